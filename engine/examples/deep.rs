//! Times the whole snapshot of generated deep and large pages:
//! `cargo run --release --example deep [depth]`.
use whittle_corpus::generate::{Nesting, nested_page, realistic_page};

fn main() {
    let depth: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    for kind in Nesting::ALL {
        let page = nested_page(kind, depth);
        let t = std::time::Instant::now();
        let snap = whittle_engine::snapshot(page.as_bytes(), &Default::default(), &mut Default::default());
        println!("{kind:?} depth {depth}: {:?}, {} lines", t.elapsed(), snap.observation.lines.len());
        if std::env::var_os("DUMPS").is_some() {
            let t = std::time::Instant::now();
            let a = snap.document.dump().len();
            let b = snap.styles.dump(&snap.document).len();
            let c = snap.semantics.dump(&snap.document, &snap.styles).len();
            println!("  dumps {a} {b} {c} bytes in {:?}", t.elapsed());
        }
    }
    let page = realistic_page(20 * 1024 * 1024);
    let t = std::time::Instant::now();
    let snap = whittle_engine::snapshot(page.as_bytes(), &Default::default(), &mut Default::default());
    println!("20 MB page: {:?}, {} lines", t.elapsed(), snap.observation.lines.len());
}
