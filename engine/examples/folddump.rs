//! Prints the fold stage's dump for a page: `cargo run --example folddump -- FILE [BUDGET] [EXPAND]`.
use whittle_engine::*;
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_default();
    let bytes = std::fs::read(&path).unwrap_or_default();
    let mut options = SnapshotOptions::default();
    if let Some(b) = args.next().and_then(|b| b.parse().ok()) {
        options.fold.budget = Some(b);
    }
    options.fold.expand = args.next().and_then(|e| e.parse().ok());
    let s = snapshot(&bytes, &options, &mut RefTable::new());
    print!("{}", s.folded.dump());
}
