//! whittle's tree builder (the arena sink) builds the tree html5ever's rcdom
//! builds, the HTML spec's, on every page of the project's corpus and, when
//! it is there, of the shared corpus: the two dumps of
//! `whittle_benches::tree` are equal. Each page is decoded as whittle
//! decodes it (`parse::charset`) and the same text goes to both parsers.
//! Pages past the parser's caps (nesting 512, 1,000 attributes per tag)
//! are counted apart: their trees differ by design.

use std::path::PathBuf;

use whittle_benches::tree::{self, Comparison};
use whittle_corpus::Suite;

/// What comparing a set of pages found.
#[derive(Debug, Default)]
struct Tally {
    compared: usize,
    /// Pages past a cap, with the diagnostic.
    not_applicable: Vec<String>,
    /// Pages whose trees differ, with the first difference.
    failures: Vec<String>,
}

/// Compares every page, on as many threads as there are cores.
fn compare_all(pages: &[PathBuf]) -> Tally {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = pages.len().div_ceil(threads).max(1);
    let parts: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = pages.chunks(chunk).map(|part| scope.spawn(move || compare_some(part))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Tally { failures: vec!["a worker panicked".into()], ..Tally::default() }))
            .collect()
    });
    let mut all = Tally::default();
    for t in parts {
        all.compared += t.compared;
        all.not_applicable.extend(t.not_applicable);
        all.failures.extend(t.failures);
    }
    all
}

fn compare_some(pages: &[PathBuf]) -> Tally {
    let mut tally = Tally::default();
    for path in pages {
        let name = whittle_corpus::short_name(path);
        let bytes = match whittle_corpus::load(path) {
            Ok(b) => b,
            Err(e) => {
                tally.failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let text = whittle_engine::parse::charset::decode(&bytes, None).text;
        match tree::compare(&text) {
            Comparison::Same => tally.compared += 1,
            Comparison::NotApplicable(why) => tally.not_applicable.push(format!("{name}: {why}")),
            Comparison::Differ(d) => tally.failures.push(format!("{name}: {d}")),
        }
    }
    tally
}

/// The `*.html` files of a folder (not its subfolders), sorted.
fn html_in(dir: PathBuf) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    out.sort();
    out
}

fn report(what: &str, pages: usize, tally: &Tally) {
    println!(
        "tree_identity: {what}: {pages} pages, {} compared and equal, {} past a cap, {} different",
        tally.compared,
        tally.not_applicable.len(),
        tally.failures.len()
    );
    for n in &tally.not_applicable {
        println!("  not compared: {n}");
    }
    assert!(tally.failures.is_empty(), "trees differ from rcdom's:\n{}", tally.failures.join("\n\n"));
}

#[test]
fn own_corpus_trees_are_rcdoms() {
    let corpus = whittle_corpus::workspace_dir().join("corpus");
    let pages: Vec<PathBuf> = ["fixtures", "hostile", "layout"].into_iter().flat_map(|d| html_in(corpus.join(d))).collect();
    let tally = compare_all(&pages);
    report("own corpus", pages.len(), &tally);
    // None of the project's pages is past a cap: every one is compared.
    assert!(pages.len() >= 80, "only {} pages found under {}", pages.len(), corpus.display());
    assert_eq!(tally.compared, pages.len(), "{:?}", tally.not_applicable);
}

#[test]
fn shared_corpus_trees_are_rcdoms() {
    if whittle_corpus::shared_dir().is_none() {
        println!("tree_identity: shared corpus skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let pages: Vec<PathBuf> = Suite::ALL.into_iter().flat_map(Suite::pages).collect();
    let tally = compare_all(&pages);
    report("shared corpus", pages.len(), &tally);
    assert!(tally.compared > 0, "no page of the shared corpus was compared");
    assert_eq!(tally.compared + tally.not_applicable.len(), pages.len());
}

/// The comparison says when a cap applied, rather than passing or failing
/// quietly (this pins the diagnostics `tree::compare` recognises).
#[test]
fn caps_make_the_comparison_not_apply() {
    let deep = "<div>".repeat(600);
    let attrs: String = (0..1_001).map(|i| format!(" a{i}")).collect();
    let wide = format!("<p{attrs}>x");
    for text in [deep, wide] {
        assert!(matches!(tree::compare(&text), Comparison::NotApplicable(_)), "{:.40}…", text);
    }
    assert_eq!(tree::compare(&"<div>".repeat(500)), Comparison::Same);
}
