//! Per-page ratio of whittle's whole snapshot to html5ever → rcdom on the
//! same bytes, over the real pages of the shared corpus; prints the median
//! and p90 ratio and throughputs. Each page is timed as the minimum of
//! several runs, which is robust on a busy machine.
//!
//! Run: `cargo run --release -p whittle-benches --bin ratio [-- RUNS]`
//! (`RATIO_ONLY=whole|rcdom` loops one side, for `perf`).

use std::time::Duration;

use whittle_benches::{best_of, real_pages, rcdom_parse, stage_parse, stages_after_parse, whole};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    if whittle_corpus::shared_dir().is_none() {
        println!("ratio: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let pages = real_pages();
    // `RATIO_ONLY=whole|rcdom` loops one side over every page, for `perf`.
    if let Ok(mode) = std::env::var("RATIO_ONLY") {
        for _ in 0..runs {
            for p in &pages {
                match mode.as_str() {
                    "rcdom" => drop(std::hint::black_box(rcdom_parse(&p.bytes))),
                    _ => drop(std::hint::black_box(whole(&p.bytes))),
                }
            }
        }
        return;
    }
    let mut ratios = Vec::with_capacity(pages.len());
    let mut parse_ratios = Vec::with_capacity(pages.len());
    let (mut total_base, mut total_whole, mut total_parse, mut total_rest) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut bytes = 0usize;
    let mut worst: Vec<(f64, String)> = Vec::new();
    for p in &pages {
        let base = best_of(runs, || drop(std::hint::black_box(rcdom_parse(&p.bytes))));
        let all = best_of(runs, || {
            std::hint::black_box(whole(&p.bytes));
        });
        let parse = best_of(runs, || drop(std::hint::black_box(stage_parse(&p.bytes))));
        let doc = stage_parse(&p.bytes);
        let rest = best_of(runs, || {
            std::hint::black_box(stages_after_parse(&doc));
        });
        let r = all.as_secs_f64() / base.as_secs_f64().max(1e-9);
        ratios.push(r);
        parse_ratios.push(parse.as_secs_f64() / base.as_secs_f64().max(1e-9));
        worst.push((r, p.name.clone()));
        total_base += base;
        total_whole += all;
        total_parse += parse;
        total_rest += rest;
        bytes += p.bytes.len();
    }
    ratios.sort_by(f64::total_cmp);
    parse_ratios.sort_by(f64::total_cmp);
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mb = bytes as f64 / 1e6;
    println!("pages: {} ({:.1} MB), best of {runs} runs each", pages.len(), mb);
    println!(
        "whole snapshot / rcdom parse, per page: median {:.2}x, p90 {:.2}x, max {:.2}x",
        percentile(&ratios, 0.5),
        percentile(&ratios, 0.9),
        ratios.last().copied().unwrap_or(0.0)
    );
    println!(
        "arena parse / rcdom parse, per page: median {:.2}x, p90 {:.2}x",
        percentile(&parse_ratios, 0.5),
        percentile(&parse_ratios, 0.9)
    );
    println!(
        "throughput: rcdom {:.1} MB/s · whittle parse {:.1} MB/s · cascade..render {:.1} MB/s · whole {:.1} MB/s",
        mb / total_base.as_secs_f64(),
        mb / total_parse.as_secs_f64(),
        mb / total_rest.as_secs_f64(),
        mb / total_whole.as_secs_f64()
    );
    println!("slowest relative to rcdom:");
    for (r, name) in worst.iter().take(8) {
        println!("  {r:.2}x {name}");
    }
}
