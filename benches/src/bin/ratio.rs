//! Per-page ratio of whittle's whole snapshot to html5ever → rcdom on the
//! same bytes, over the real pages of the shared corpus; prints the median
//! and p90 ratio and throughputs. Each page is timed as the minimum of
//! several runs, which is robust on a busy machine.
//!
//! Run: `cargo run --release -p whittle-benches --bin ratio [-- RUNS [--stages]]`
//! (`--stages`: each stage after parse timed alone as well, its median
//! ratio to rcdom per page)
//! (`RATIO_ONLY=whole|rcdom` loops one side, for `perf`).

use std::time::Duration;

use whittle_benches::{best_of, real_pages, rcdom_parse, stage_parse, stages_after_parse, whole};
use whittle_engine::{
    CascadeOptions, Concealment, FoldOptions, LayoutOptions, RefTable, RenderOptions, Semantics, Styles, build_tree, cascade,
    compute_layout, compute_semantics, conceal, fold, render, with_main_content,
};

/// The stages after parse, each timed alone on the page's parsed
/// document (best of `runs`), in pipeline order.
const STAGES: [&str; 8] = ["cascade", "layout", "conceal", "semantics", "tree", "main content", "fold", "render"];

fn stage_times(doc: &whittle_engine::Document, runs: usize) -> [Duration; 8] {
    let cascade_options = CascadeOptions::default();
    let styles: Styles = cascade(doc, &cascade_options);
    let layout = compute_layout(doc, &styles, &LayoutOptions::default());
    let hidden: Concealment = conceal(doc, &styles, &layout);
    let sem: Semantics = compute_semantics(doc, &styles, &hidden);
    let tree = build_tree(doc, &styles, &hidden, &sem, &mut RefTable::new());
    let options = with_main_content(FoldOptions::default(), doc, &styles, &hidden, &sem);
    let folded = fold(doc, &tree, &layout, &options, &RenderOptions::default());
    [
        best_of(runs, || drop(std::hint::black_box(cascade(doc, &cascade_options)))),
        best_of(runs, || drop(std::hint::black_box(compute_layout(doc, &styles, &LayoutOptions::default())))),
        best_of(runs, || drop(std::hint::black_box(conceal(doc, &styles, &layout)))),
        best_of(runs, || drop(std::hint::black_box(compute_semantics(doc, &styles, &hidden)))),
        best_of(runs, || drop(std::hint::black_box(build_tree(doc, &styles, &hidden, &sem, &mut RefTable::new())))),
        best_of(runs, || {
            std::hint::black_box(with_main_content(FoldOptions::default(), doc, &styles, &hidden, &sem));
        }),
        best_of(runs, || drop(std::hint::black_box(fold(doc, &tree, &layout, &options, &RenderOptions::default())))),
        best_of(runs, || drop(std::hint::black_box(render(doc, &folded)))),
    ]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    // `--stages` (after RUNS): each stage after parse timed alone too.
    let breakdown = std::env::args().any(|a| a == "--stages");
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
    let mut per_stage: Vec<Vec<f64>> = vec![Vec::new(); STAGES.len()];
    let mut stage_totals = [Duration::ZERO; 8];
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
        if breakdown {
            for (i, t) in stage_times(&doc, runs).into_iter().enumerate() {
                per_stage[i].push(t.as_secs_f64() / base.as_secs_f64().max(1e-9));
                stage_totals[i] += t;
            }
        }
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
    if breakdown {
        println!("each stage after parse, alone, / rcdom parse, per page (median, p90) and its share of all pages' time:");
        let all_stages: f64 = stage_totals.iter().map(Duration::as_secs_f64).sum();
        for (i, name) in STAGES.iter().enumerate() {
            per_stage[i].sort_by(f64::total_cmp);
            println!(
                "  {name:<13} median {:.2}x, p90 {:.2}x, {:.1}% of the stages' time",
                percentile(&per_stage[i], 0.5),
                percentile(&per_stage[i], 0.9),
                100.0 * stage_totals[i].as_secs_f64() / all_stages.max(1e-12)
            );
        }
    }
    println!("slowest relative to rcdom:");
    for (r, name) in worst.iter().take(8) {
        println!("  {r:.2}x {name}");
    }
}
