//! What a marked picture costs: the `screenshot` tool on the Chromium
//! engine, through a session as `whittle mcp` runs it, on the pages of
//! `corpus/pictures` and `corpus/fixtures` and, when the shared corpus is
//! there, its Readability pages, served on loopback. Each page is
//! navigated to once, pictured once to warm up, then RUNS times: per page
//! the median time, then the median, p90 and total over pages, with the
//! labels drawn and, where the build has it, with `marks: false` (the
//! same capture and covers without labels).
//!
//! Run: `cargo run --release -p whittle-benches --bin screenshot [-- RUNS]`
//! (needs Chromium: `apt-get install -y chromium`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use whittle::backend::auto::{AutoBackend, EnginePolicy};
use whittle::fetch::{Fetcher, Limits};
use whittle::session::{Session, SessionOptions};
use whittle_benches::{loopback_only, median, ms, offline_chromium, percentile, serve};
use whittle_corpus::Suite;

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5).max(1);
    let mut pages: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in [whittle_corpus::pictures_dir(), whittle_corpus::fixtures_dir()] {
        for p in whittle_corpus::html_files_under(&dir, &[]) {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Ok(bytes) = std::fs::read(&p) {
                pages.push((name, bytes));
            }
        }
    }
    pages.extend(whittle_benches::pages(&[Suite::Readability]).into_iter().map(|p| (p.name, p.bytes)));
    if let Err(e) = whittle::backend::cdp::find_chromium(None) {
        println!("{}: nothing to measure", e.message);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(run(pages, runs));
}

async fn run(pages: Vec<(String, Vec<u8>)>, runs: usize) {
    let served: HashMap<String, Vec<u8>> = pages.iter().enumerate().map(|(i, (_, b))| (format!("/{i}"), b.clone())).collect();
    let addr = serve(Arc::new(served)).await;
    let backend = Arc::new(AutoBackend::new(EnginePolicy::Chromium, offline_chromium()));
    let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("a fetcher");
    let mut session = Session::new(backend, fetcher, SessionOptions::default()).await.expect("a session");
    let (mut marked, mut plain) = (Vec::new(), Vec::new());
    let (mut labels, mut failed) = (0u64, 0usize);
    for (i, (name, _)) in pages.iter().enumerate() {
        let out = session.call("navigate", json!({"url": format!("http://{addr}/{i}")})).await;
        if !out.envelope.ok {
            println!("  {name}: did not load: {}", out.text.lines().next().unwrap_or_default());
            failed += 1;
            continue;
        }
        let Some((with, n)) = time(&mut session, json!({}), runs).await else {
            println!("  {name}: the screenshot failed");
            failed += 1;
            continue;
        };
        labels += u64::from(n);
        marked.push(with);
        // A build without `marks` refuses the argument: no figure then.
        if let Some((without, _)) = time(&mut session, json!({"marks": false}), runs).await {
            plain.push(without);
        }
    }
    let report = |what: &str, mut v: Vec<f64>| {
        if v.is_empty() {
            println!("{what}: no figures");
            return;
        }
        v.sort_by(f64::total_cmp);
        let total: f64 = v.iter().sum();
        println!(
            "{what}: {} pages, per page median of {runs}: median {:.1} ms, p90 {:.1} ms, total {:.0} ms",
            v.len(),
            median(v.clone()),
            percentile(&v, 0.9),
            total
        );
    };
    report("screenshot (labels)", marked);
    report("screenshot (marks: false)", plain);
    println!("labels drawn: {labels} over the pages; pages that failed: {failed}");
}

/// The median of `runs` screenshots with `args` after one to warm up, and
/// the refs marked; `None` when one fails.
async fn time(session: &mut Session, args: Value, runs: usize) -> Option<(f64, u32)> {
    let first = session.call("screenshot", args.clone()).await;
    if !first.envelope.ok {
        return None;
    }
    let mut took = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let out = session.call("screenshot", args.clone()).await;
        took.push(ms(t.elapsed()));
        if !out.envelope.ok {
            return None;
        }
    }
    Some((median(took), first.envelope.server.counters.marks))
}
