fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10000);
    let tag = std::env::args().nth(2).unwrap_or("div".into());
    let html = format!("<{tag}>").repeat(n);
    let t = std::time::Instant::now();
    let doc = whittle_engine::parse(html.as_bytes(), &Default::default());
    eprintln!("{} nodes in {:?}", doc.len(), t.elapsed());
}
