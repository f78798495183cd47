//! Times each stage on one page: `cargo run --release --example stages FILE`
//! (the mean of 20 runs; `RUNS=n` for another count, e.g. under `perf`).
use std::time::Instant;
use whittle_engine::*;

fn main() {
    let path = std::env::args().nth(1).expect("usage: stages FILE");
    let bytes = std::fs::read(&path).expect("readable file");
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(20);
    let mut times = [0f64; 8];
    for _ in 0..runs {
        let t = Instant::now();
        let doc = parse(&bytes, &ParseOptions::default());
        times[0] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let styles = cascade(&doc, &CascadeOptions::default());
        times[1] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
        times[2] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let hidden = conceal(&doc, &styles, &layout);
        times[3] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let sem = compute_semantics(&doc, &styles, &hidden);
        times[4] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let tree = build_tree(&doc, &styles, &hidden, &sem, &mut RefTable::new());
        times[5] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let folded = fold(&doc, &tree, &layout, &FoldOptions::default(), &RenderOptions::default());
        times[6] += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let obs = render(&doc, &folded);
        times[7] += t.elapsed().as_secs_f64();
        std::hint::black_box(obs);
    }
    for (name, t) in ["parse", "cascade", "layout", "conceal", "semantics", "tree", "fold", "render"].iter().zip(times) {
        println!("{name:>10}: {:.3} ms", t * 1000.0 / runs as f64);
    }
}
