//! Prints a page's layout dump (page height, then every element's box and
//! placement): `cargo run --release -p whittle-engine --example layout FILE [--all]`.
use whittle_engine::*;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: layout FILE");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("layout: {path}: {e}");
            std::process::exit(1);
        }
    };
    let doc = parse(&bytes, &ParseOptions::default());
    let styles = cascade(&doc, &CascadeOptions::default());
    let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
    for d in layout.diagnostics() {
        eprintln!("{d}");
    }
    if std::env::args().nth(2).as_deref() == Some("--all") {
        // Every element in tree order, `-` for no box: for comparing with
        // the Chromium oracle.
        println!("content_height {}", layout.content_height());
        for id in doc.descendants(NodeId::DOCUMENT) {
            let Some(el) = doc.element(id) else { continue };
            match layout.rect(id) {
                Some(r) => println!("{} {} {} {} {} {:?}", el.local_name(), r.x, r.y, r.width, r.height, layout.placement(id)),
                None => println!("{} - - - - Unknown", el.local_name()),
            }
        }
        return;
    }
    print!("{}", layout.dump(&doc));
}
