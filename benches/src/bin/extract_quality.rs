//! Main-content extraction quality and time, page by page: the figures of
//! the quality test (`engine/tests/it/digest.rs`) with the worst pages
//! listed, for working on the extractor.
//!
//! Run: `cargo run --release -p whittle-benches --bin extract_quality [-- [article|readability] [WORST] [--show NAME]]`
//! (`--show` prints the extracted text and the truth of the page whose
//! name starts with NAME).

use std::time::Instant;

use whittle_corpus::score::{PageScore, score_page, summarize};
use whittle_engine::{CascadeOptions, Concealment, ParseOptions, cascade, compute_semantics, main_content, parse};

/// The main text, and the chosen container's ancestry (`tag#id.class`
/// from it up) for `--show`.
fn extract(bytes: &[u8], url: &str) -> (String, Vec<String>) {
    let options = ParseOptions { url: url::Url::parse(url).ok(), ..ParseOptions::default() };
    let doc = parse(bytes, &options);
    let styles = cascade(&doc, &CascadeOptions { layout: false, ..CascadeOptions::default() });
    let hidden = Concealment::default();
    let sem = compute_semantics(&doc, &styles, &hidden);
    let content = main_content(&doc, &styles, &hidden, &sem);
    let chain = content
        .root
        .map(|r| {
            std::iter::once(r)
                .chain(doc.ancestors(r))
                .filter_map(|a| doc.element(a))
                .map(|e| format!("{}#{}.{}", e.local_name(), e.id().unwrap_or(""), e.attr("class").unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    (content.text(), chain)
}

fn body_text(bytes: &[u8]) -> String {
    let doc = parse(bytes, &ParseOptions::default());
    doc.body().map(|b| doc.text_content(b)).unwrap_or_default()
}

/// (name, page bytes, url, truth)
fn cases(suite: &str) -> Vec<(String, Vec<u8>, String, String)> {
    let mut out = Vec::new();
    if suite == "readability" {
        for path in whittle_corpus::Suite::Readability.pages() {
            let dir = path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
            let Ok(expected) = std::fs::read(dir.join("expected.html")) else { continue };
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let bytes = whittle_corpus::load(&path).unwrap_or_default();
            out.push((name, bytes, "http://fakehost/test/page.html".to_owned(), body_text(&expected)));
        }
    } else {
        for case in whittle_corpus::article_cases().unwrap_or_else(|e| panic!("{e}")) {
            let name = case.path.file_name().map(|n| n.to_string_lossy()[..12].to_owned()).unwrap_or_default();
            let bytes = whittle_corpus::load(&case.path).unwrap_or_default();
            out.push((name, bytes, case.url, case.body));
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if whittle_corpus::shared_dir().is_none() {
        println!("extract_quality: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let suite = args.iter().find(|a| *a == "readability" || *a == "article").cloned().unwrap_or_else(|| "article".into());
    let worst: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(15);
    let show = args.iter().position(|a| a == "--show").and_then(|i| args.get(i + 1)).cloned();
    let mut scores: Vec<(String, PageScore)> = Vec::new();
    let mut times = Vec::new();
    for (name, bytes, url, truth) in cases(&suite) {
        let t = Instant::now();
        let (text, chain) = extract(&bytes, &url);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if show.as_deref().is_some_and(|s| name.starts_with(s)) {
            println!("=== root ===\n{}\n=== extracted ===\n{text}\n=== truth ===\n{truth}\n", chain.join("\n"));
        }
        scores.push((name, score_page(&truth, &text)));
    }
    let all: Vec<PageScore> = scores.iter().map(|(_, s)| *s).collect();
    let s = summarize(&all);
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times.get(((times.len().saturating_sub(1)) as f64 * p).round() as usize).copied().unwrap_or(0.0);
    println!(
        "{suite}: {} pages: precision {:.4} recall {:.4} F1 {:.4}; ms/page median {:.2} p90 {:.2} max {:.2}",
        s.pages, s.precision, s.recall, s.f1, pct(0.5), pct(0.9), pct(1.0)
    );
    scores.sort_by(|a, b| a.1.f1().total_cmp(&b.1.f1()));
    for (name, sc) in scores.iter().take(worst) {
        println!("  {name:<40} F1 {:.3}  P {:.3}  R {:.3}", sc.f1(), sc.precision(), sc.recall());
    }
}
