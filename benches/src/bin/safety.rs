//! What the safety work costs on real pages (measured against a budget of
//! 10% of the snapshot): per page, the whole snapshot, and within it the
//! concealment pass (`conceal`) and the per-text checks the tree
//! makes (invisible characters, instructions to AI agents), each the best
//! of several runs. Prints the per-page share (median, p90) and totals.
//! The cascade also reads colours now; compare `ratio`'s per-page median
//! against a build without this work for that part.
//!
//! Run: `cargo run --release -p whittle-benches --bin safety [-- RUNS]`.

use std::time::Duration;

use whittle_benches::{best_of, median, percentile, real_pages};
use whittle_engine::safety::{conceal, injection};
use whittle_engine::{CascadeOptions, LayoutOptions, NodeData, NodeId, RefTable, cascade, compute_layout, parse, ParseOptions};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    if whittle_corpus::shared_dir().is_none() {
        println!("safety: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let pages = real_pages();
    let (mut shares, mut total_whole, mut total_safety) = (Vec::new(), Duration::ZERO, Duration::ZERO);
    let (mut total_pass, mut total_checks) = (Duration::ZERO, Duration::ZERO);
    let mut flagged = 0;
    for p in &pages {
        let whole = best_of(runs, || {
            std::hint::black_box(whittle_engine::snapshot(&p.bytes, &Default::default(), &mut RefTable::new()).observation.lines.len());
        });
        let doc = parse(&p.bytes, &ParseOptions::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
        let pass = best_of(runs, || {
            std::hint::black_box(conceal::conceal(&doc, &styles, &layout).removed_instructions);
        });
        let hidden = conceal::conceal(&doc, &styles, &layout);
        // The text nodes the tree reads: shown, not concealed.
        let texts: Vec<&str> = doc
            .descendants(NodeId::DOCUMENT)
            .filter_map(|n| match &doc.node(n).data {
                NodeData::Text(t) if !t.trim().is_empty() && styles.is_visible(n) && !hidden.text_concealed(n) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let checks = best_of(runs, || {
            for t in &texts {
                let r = conceal::readable(t);
                std::hint::black_box(injection::reads_like_instructions(&r.text));
            }
        });
        if hidden.removed_instructions > 0 || texts.iter().any(|t| injection::reads_like_instructions(t)) {
            flagged += 1;
        }
        let safety = pass + checks;
        total_pass += pass;
        total_checks += checks;
        shares.push(safety.as_secs_f64() / whole.as_secs_f64().max(1e-9));
        total_whole += whole;
        total_safety += safety;
    }
    shares.sort_by(f64::total_cmp);
    println!("pages: {}, best of {runs} runs each", pages.len());
    println!(
        "safety share of the snapshot, per page: median {:.1}%, p90 {:.1}%; in all {:.1}% ({} of {} ms)",
        100.0 * median(shares.clone()),
        100.0 * percentile(&shares, 0.9),
        100.0 * total_safety.as_secs_f64() / total_whole.as_secs_f64().max(1e-9),
        total_safety.as_millis(),
        total_whole.as_millis()
    );
    println!("of which the concealment pass {} ms, the per-text checks {} ms", total_pass.as_millis(), total_checks.as_millis());
    println!("pages with text read as instructions to AI agents (hidden or visible): {flagged}");
}
