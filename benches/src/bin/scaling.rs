//! The scaling series: is every stage linear? Generated pages of each kind
//! at several sizes (default 10 KB, 100 KB, 1 MB, 5 MB and 20 MB), each
//! stage timed alone (best of RUNS, on the previous stages' outputs), in
//! nanoseconds per byte of HTML. For each stage the median ns/byte over
//! the sizes is its rate; a size whose ns/byte is more than 20% off it is
//! flagged (`!`): linear time is a flat row.
//!
//! Run: `cargo run --release -p whittle-benches --bin scaling [-- --sizes
//! 10k,100k,1m,5m,20m] [--kinds realistic,wide-list,table,stylesheet]
//! [--runs 5]` (kinds are `whittle_corpus::generate::Kind` names; sizes
//! are read as `whittle corpus generate` reads them, `k` and `m` binary).

use std::time::{Duration, Instant};

use whittle::corpus::parse_size;
use whittle_benches::{digest_options, median, rcdom_parse, stage_parse};
use whittle_corpus::generate::{Kind, generate};
use whittle_engine::safety::conceal::conceal;
use whittle_engine::{
    CascadeOptions, FoldOptions, LayoutOptions, RefTable, RenderOptions, build_tree, cascade, compute_layout, compute_semantics,
    digest, fold, render,
};

/// The stages in pipeline order, then the digest (beside the pipeline)
/// and the baseline.
const STAGES: [&str; 11] =
    ["parse", "cascade", "layout", "conceal", "semantics", "tree", "fold", "render", "snapshot (sum)", "digest", "rcdom parse"];

/// How far a size's ns/byte may stray from the stage's median.
const TOLERANCE: f64 = 0.20;

/// A stage is rerun until RUNS runs or this much time, whichever comes
/// first (at least once): a superlinear stage at 20 MB must not take the
/// bench hostage.
const STAGE_TIME: Duration = Duration::from_secs(20);

struct Args {
    sizes: Vec<usize>,
    kinds: Vec<Kind>,
    runs: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        sizes: vec![10_000, 100_000, 1_000_000, 5_000_000, 20_000_000],
        kinds: vec![Kind::Realistic, Kind::WideList, Kind::Table, Kind::Stylesheet],
        runs: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--sizes" => args.sizes = value.split(',').map(parse_size).collect::<Result<_, _>>()?,
            "--kinds" => args.kinds = value.split(',').map(|k| k.parse().map_err(|e| format!("{e}"))).collect::<Result<_, _>>()?,
            "--runs" => args.runs = value.parse::<usize>().map_err(|_| format!("not a count: {value}"))?.max(1),
            _ => return Err(format!("unknown option {flag} (--sizes, --kinds, --runs)")),
        }
    }
    Ok(args)
}

/// The best of up to `runs` runs of `f`, within [`STAGE_TIME`].
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        if start.elapsed() > STAGE_TIME {
            break;
        }
    }
    best
}

/// Each stage's best time on one page, in [`STAGES`] order.
fn time_stages(html: &[u8], runs: usize) -> Vec<Duration> {
    use std::hint::black_box;
    let parse = best(runs, || drop(black_box(stage_parse(html))));
    let doc = stage_parse(html);
    let cascade_t = best(runs, || drop(black_box(cascade(&doc, &CascadeOptions::default()))));
    let styles = cascade(&doc, &CascadeOptions::default());
    let layout_t = best(runs, || drop(black_box(compute_layout(&doc, &styles, &LayoutOptions::default()))));
    let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
    let conceal_t = best(runs, || drop(black_box(conceal(&doc, &styles, &layout))));
    let hidden = conceal(&doc, &styles, &layout);
    let semantics_t = best(runs, || drop(black_box(compute_semantics(&doc, &styles, &hidden))));
    let sem = compute_semantics(&doc, &styles, &hidden);
    let tree_t = best(runs, || drop(black_box(build_tree(&doc, &styles, &hidden, &sem, &mut RefTable::new()))));
    let tree = build_tree(&doc, &styles, &hidden, &sem, &mut RefTable::new());
    let (fold_options, render_options) = (FoldOptions::default(), RenderOptions::default());
    let fold_t = best(runs, || drop(black_box(fold(&doc, &tree, &layout, &fold_options, &render_options))));
    let folded = fold(&doc, &tree, &layout, &fold_options, &render_options);
    let render_t = best(runs, || drop(black_box(render(&doc, &folded))));
    let sum = parse + cascade_t + layout_t + conceal_t + semantics_t + tree_t + fold_t + render_t;
    let options = digest_options();
    let digest_t = best(runs, || drop(black_box(digest(&doc, &styles, &hidden, &sem, &options))));
    let rcdom = best(runs, || drop(black_box(rcdom_parse(html))));
    vec![parse, cascade_t, layout_t, conceal_t, semantics_t, tree_t, fold_t, render_t, sum, digest_t, rcdom]
}

fn size_label(bytes: usize) -> String {
    if bytes >= 1_000_000 { format!("{:.3} MB", bytes as f64 / 1e6) } else { format!("{:.1} KB", bytes as f64 / 1e3) }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("scaling: {e}");
            std::process::exit(2);
        }
    };
    // The first exact token count compiles o200k's split pattern (a
    // one-time cost the fold stage would otherwise pay inside its first run).
    whittle_engine::fold::tokens::exact_count("warm up");
    let mut flagged = Vec::new();
    for &kind in &args.kinds {
        let mut pages = Vec::new();
        for &size in &args.sizes {
            match generate(kind, size) {
                Ok(page) => pages.push(page),
                Err(e) => println!("{kind} {size}: {e}"),
            }
        }
        println!("\n## {kind}: ns per byte of HTML, best of {} runs; (±%) off the stage's median over sizes, ! past ±{:.0}%", args.runs, TOLERANCE * 100.0);
        let mut per_byte: Vec<Vec<f64>> = vec![Vec::new(); STAGES.len()];
        for page in &pages {
            let times = time_stages(page.as_bytes(), args.runs);
            for (row, t) in per_byte.iter_mut().zip(times) {
                row.push(t.as_nanos() as f64 / page.len() as f64);
            }
        }
        print!("| {:<14} |", "stage");
        for page in &pages {
            print!(" {:>18} |", size_label(page.len()));
        }
        println!(" {:>7} |", "median");
        println!("|{}", "---|".repeat(pages.len() + 2));
        for (stage, row) in STAGES.iter().zip(&per_byte) {
            let mid = median(row.clone());
            print!("| {stage:<14} |");
            for (value, page) in row.iter().zip(&pages) {
                let off = value / mid - 1.0;
                let mark = if off.abs() > TOLERANCE { "!" } else { " " };
                print!(" {value:>8.2} ({:>+4.0}%){mark} |", off * 100.0);
                if off.abs() > TOLERANCE {
                    flagged.push(format!("{kind} {stage} at {}: {value:.2} ns/B, {:+.0}% off {mid:.2}", size_label(page.len()), off * 100.0));
                }
            }
            println!(" {mid:>7.2} |");
        }
    }
    println!("\n{} of the cells are more than ±{:.0}% off their stage's median:", flagged.len(), TOLERANCE * 100.0);
    for f in &flagged {
        println!("  {f}");
    }
}
