//! Criterion benches of the whole snapshot and of each stage, per suite of
//! the shared corpus, in bytes/s, beside html5ever → rcdom on the same
//! bytes; and the two functions beside the pipeline: `diff` (an act
//! result: two observations of a page before and after a change) and
//! `digest` (one page of `research`). Every figure is bytes of the suite's
//! HTML per second of that step alone.
//! Run: `cargo bench -p whittle-benches --bench pipeline`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use whittle_benches::{Page, before_after, digest_options, pages, rcdom_parse, stage_parse, whole};
use whittle_corpus::Suite;
use whittle_engine::safety::conceal::conceal;
use whittle_engine::{
    CascadeOptions, FoldOptions, LayoutOptions, RefTable, RenderOptions, build_tree, cascade, compute_layout, compute_semantics,
    diff, digest, fold, render,
};

fn bench_suite(c: &mut Criterion, suite: Suite, pages: &[Page]) {
    let bytes: u64 = pages.iter().map(|p| p.bytes.len() as u64).sum();
    let mut group = c.benchmark_group(suite.name());
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("rcdom-parse", "baseline"), |b| {
        b.iter(|| {
            for p in pages {
                black_box(rcdom_parse(&p.bytes));
            }
        })
    });
    group.bench_function(BenchmarkId::new("snapshot", "whole"), |b| {
        b.iter(|| {
            for p in pages {
                black_box(whole(&p.bytes));
            }
        })
    });
    group.bench_function(BenchmarkId::new("stage", "parse"), |b| {
        b.iter(|| {
            for p in pages {
                black_box(stage_parse(&p.bytes));
            }
        })
    });
    let docs: Vec<_> = pages.iter().map(|p| stage_parse(&p.bytes)).collect();
    group.bench_function(BenchmarkId::new("stage", "cascade"), |b| {
        b.iter(|| {
            for d in &docs {
                black_box(cascade(d, &CascadeOptions::default()));
            }
        })
    });
    let styles: Vec<_> = docs.iter().map(|d| cascade(d, &CascadeOptions::default())).collect();
    group.bench_function(BenchmarkId::new("stage", "layout"), |b| {
        b.iter(|| {
            for (d, s) in docs.iter().zip(&styles) {
                black_box(compute_layout(d, s, &LayoutOptions::default()));
            }
        })
    });
    let layouts: Vec<_> = docs.iter().zip(&styles).map(|(d, s)| compute_layout(d, s, &LayoutOptions::default())).collect();
    group.bench_function(BenchmarkId::new("stage", "conceal"), |b| {
        b.iter(|| {
            for ((d, s), l) in docs.iter().zip(&styles).zip(&layouts) {
                black_box(conceal(d, s, l));
            }
        })
    });
    // The later stages see what the snapshot's see: concealed text.
    let hidden: Vec<_> = docs.iter().zip(&styles).zip(&layouts).map(|((d, s), l)| conceal(d, s, l)).collect();
    group.bench_function(BenchmarkId::new("stage", "semantics"), |b| {
        b.iter(|| {
            for ((d, s), h) in docs.iter().zip(&styles).zip(&hidden) {
                black_box(compute_semantics(d, s, h));
            }
        })
    });
    let sems: Vec<_> = docs.iter().zip(&styles).zip(&hidden).map(|((d, s), h)| compute_semantics(d, s, h)).collect();
    group.bench_function(BenchmarkId::new("stage", "tree"), |b| {
        b.iter(|| {
            for (((d, s), h), m) in docs.iter().zip(&styles).zip(&hidden).zip(&sems) {
                black_box(build_tree(d, s, h, m, &mut RefTable::new()));
            }
        })
    });
    let trees: Vec<_> = docs
        .iter()
        .zip(&styles)
        .zip(&hidden)
        .zip(&sems)
        .map(|(((d, s), h), m)| build_tree(d, s, h, m, &mut RefTable::new()))
        .collect();
    group.bench_function(BenchmarkId::new("stage", "fold"), |b| {
        b.iter(|| {
            for ((d, t), l) in docs.iter().zip(&trees).zip(&layouts) {
                black_box(fold(d, t, l, &FoldOptions::default(), &RenderOptions::default()));
            }
        })
    });
    let folded: Vec<_> = docs
        .iter()
        .zip(&trees)
        .zip(&layouts)
        .map(|((d, t), l)| fold(d, t, l, &FoldOptions::default(), &RenderOptions::default()))
        .collect();
    group.bench_function(BenchmarkId::new("stage", "render"), |b| {
        b.iter(|| {
            for (d, f) in docs.iter().zip(&folded) {
                black_box(render(d, f));
            }
        })
    });
    let observed: Vec<_> = pages.iter().map(|p| before_after(&p.bytes)).collect();
    group.bench_function(BenchmarkId::new("beside", "diff"), |b| {
        b.iter(|| {
            for (before, after) in &observed {
                black_box(diff(before, after));
            }
        })
    });
    let options = digest_options();
    group.bench_function(BenchmarkId::new("beside", "digest"), |b| {
        b.iter(|| {
            for (((d, s), h), m) in docs.iter().zip(&styles).zip(&hidden).zip(&sems) {
                black_box(digest(d, s, h, m, &options));
            }
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    if whittle_corpus::shared_dir().is_none() {
        eprintln!("pipeline bench: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    for suite in Suite::ALL {
        let p = pages(&[suite]);
        if !p.is_empty() {
            bench_suite(c, suite, &p);
        }
    }
}

criterion_group!(pipeline, benches);
criterion_main!(pipeline);
