//! Shared pieces of whittle's benches: corpus pages, the rcdom baseline,
//! and each pipeline stage as a function.

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::RcDom;
use whittle_corpus::Suite;
use whittle_engine::{
    CascadeOptions, Document, FoldOptions, LayoutOptions, ParseOptions, RefTable, RenderOptions, build_tree, cascade,
    compute_layout, compute_semantics, fold, parse, render,
};

/// A corpus page in memory.
#[derive(Debug, Clone)]
pub struct Page {
    /// Its path below the shared corpus.
    pub name: String,
    /// Its bytes (gunzipped).
    pub bytes: Vec<u8>,
}

/// The pages of the given suites; empty when the shared corpus is absent.
pub fn pages(suites: &[Suite]) -> Vec<Page> {
    let mut out = Vec::new();
    for suite in suites {
        for path in suite.pages() {
            if let Ok(bytes) = whittle_corpus::load(&path) {
                out.push(Page { name: whittle_corpus::short_name(&path), bytes });
            }
        }
    }
    out
}

/// The baseline: html5ever into markup5ever_rcdom, decoding the bytes as
/// UTF-8 (lossy), as html5ever's own examples do.
pub fn rcdom_parse(bytes: &[u8]) -> RcDom {
    html5ever::parse_document(RcDom::default(), Default::default()).from_utf8().one(bytes)
}

/// Stage 1.
pub fn stage_parse(bytes: &[u8]) -> Document {
    parse(bytes, &ParseOptions::default())
}

/// The whole pipeline, returning the observation's length.
pub fn whole(bytes: &[u8]) -> usize {
    let snap = whittle_engine::snapshot(bytes, &Default::default(), &mut RefTable::new());
    snap.observation.lines.len()
}

/// Each stage after parsing, for one page, returning a size so nothing is
/// optimized away.
pub fn stages_after_parse(doc: &Document) -> usize {
    let styles = cascade(doc, &CascadeOptions::default());
    let layout = compute_layout(doc, &styles, &LayoutOptions::default());
    let sem = compute_semantics(doc, &styles);
    let tree = build_tree(doc, &styles, &sem, &mut RefTable::new());
    let folded = fold(doc, &tree, &layout, &FoldOptions::default(), &RenderOptions::default());
    render(doc, &folded).lines.len()
}
