//! Every page of the shared corpus — every `*.html` under it (readability's
//! sources and expected outputs, htmlparser-benchmark, servo-warc-pages,
//! bootstrap, lol-html-bench, html5ever-bench, wpt with `manual/`) and the
//! gzipped article-extraction pages — snapshots without panicking, gives the
//! same output twice, and gives a well-formed observation and envelope.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use whittle_corpus::Suite;
use whittle_engine::render::envelope::{Envelope, Ids};

use crate::{sanity, snap};

fn check_page(path: &PathBuf) -> Result<(), String> {
    let name = whittle_corpus::short_name(path);
    let bytes = whittle_corpus::load(path).map_err(|e| format!("{name}: {e}"))?;
    let url = "https://corpus.whittle.test/page";
    let run = || snap(&bytes, Some(url));
    let first = catch_unwind(AssertUnwindSafe(run)).map_err(|_| format!("{name}: panicked"))?;
    let second = catch_unwind(AssertUnwindSafe(run)).map_err(|_| format!("{name}: panicked on the second run"))?;
    if first.observation != second.observation {
        return Err(format!("{name}: two snapshots of the same bytes differ"));
    }
    sanity::check_observation(&first).map_err(|e| format!("{name}: {e}"))?;
    let envelope = Envelope::observation(
        Ids { tool: "snapshot".into(), operation_id: "t".into(), tab_id: "1".into() },
        "static",
        &first.layout,
        &first.observation,
        &first.tree,
        None,
    );
    let json = serde_json::to_string(&envelope).map_err(|e| format!("{name}: envelope does not serialize: {e}"))?;
    if json.is_empty() {
        return Err(format!("{name}: empty envelope"));
    }
    Ok(())
}

#[test]
fn every_corpus_page_snapshots() {
    if whittle_corpus::shared_dir().is_none() {
        println!("corpus: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    for suite in Suite::ALL {
        let n = suite.pages().len();
        println!("corpus: {n} pages in {}", suite.name());
        assert!(n > 0, "suite {} has no pages", suite.name());
    }
    let shared = whittle_corpus::shared_dir().unwrap_or_default();
    let mut pages = whittle_corpus::html_files_under(&shared, &[]);
    pages.extend(Suite::ArticleExtraction.pages());
    // Split the pages over the machine's cores.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(1);
    let chunk = pages.len().div_ceil(threads);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = pages
            .chunks(chunk.max(1))
            .map(|part| scope.spawn(move || part.iter().filter_map(|p| check_page(p).err()).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|_| vec!["a worker thread panicked".into()])).collect()
    });
    println!("corpus: {} pages, {} failed", pages.len(), failures.len());
    assert!(failures.is_empty(), "{} corpus pages failed:\n{}", failures.len(), failures.join("\n"));
}
