//! Times each hostile pattern at n and 4n and prints the ratio: about 4
//! means linear, 16 quadratic. Run:
//! `cargo run --release -p whittle-benches --bin hostile [-- N]`.

use std::time::Instant;

use whittle_corpus::generate::{Hostile, hostile_page};
use whittle_engine::{RefTable, snapshot};

fn time(page: &str) -> f64 {
    let t = Instant::now();
    let snap = snapshot(page.as_bytes(), &Default::default(), &mut RefTable::new());
    std::hint::black_box(snap.observation.lines.len());
    t.elapsed().as_secs_f64()
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    println!("{:<20} {:>10} {:>10} {:>7}", "pattern", format!("n={n}"), format!("n={}", 4 * n), "ratio");
    for kind in Hostile::ALL {
        let a = time(&hostile_page(kind, n));
        let b = time(&hostile_page(kind, 4 * n));
        println!("{:<20} {:>9.3}s {:>9.3}s {:>7.1}", format!("{kind:?}"), a, b, b / a.max(1e-6));
    }
}
