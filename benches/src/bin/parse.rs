//! The tree builder alone: whittle's arena parse against html5ever →
//! markup5ever_rcdom on the same bytes, per page of the shared corpus
//! (best of RUNS each), as the ratio rcdom time ÷ arena time (above 1:
//! whittle faster). Also the arena parse from text already decoded, which
//! isolates the charset work.
//!
//! Run: `cargo run --release -p whittle-benches --bin parse [-- RUNS]`.

use std::time::Duration;

use whittle_benches::{best_of, median, percentile, rcdom_parse, real_pages, stage_parse};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use whittle_engine::{ParseOptions, parse_str};

/// A token sink that keeps nothing: html5ever's tokenizer alone, the floor
/// under any tree builder on top of it.
struct Discard;

impl TokenSink for Discard {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        std::hint::black_box(token);
        TokenSinkResult::Continue
    }
}

fn tokenize_only(text: &str) {
    let tokenizer = Tokenizer::new(Discard, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(text));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    if whittle_corpus::shared_dir().is_none() {
        println!("parse: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let pages = real_pages();
    if let Ok(mode) = std::env::var("PARSE_ONLY") {
        for _ in 0..runs {
            for p in &pages {
                let text = String::from_utf8_lossy(&p.bytes);
                match mode.as_str() {
                    "rcdom" => drop(std::hint::black_box(rcdom_parse(&p.bytes))),
                    _ => drop(std::hint::black_box(parse_str(&text, &ParseOptions::default()))),
                }
            }
        }
        return;
    }
    let (mut speedups, mut text_speedups) = (Vec::new(), Vec::new());
    let (mut t_rcdom, mut t_arena, mut t_text, mut t_tok) = (Duration::ZERO, Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut tok_speedups = Vec::new();
    let mut bytes = 0usize;
    for p in &pages {
        let text = String::from_utf8_lossy(&p.bytes).into_owned();
        let base = best_of(runs, || drop(std::hint::black_box(rcdom_parse(&p.bytes))));
        let arena = best_of(runs, || drop(std::hint::black_box(stage_parse(&p.bytes))));
        let from_text = best_of(runs, || drop(std::hint::black_box(parse_str(&text, &ParseOptions::default()))));
        let tok = best_of(runs, || tokenize_only(&text));
        tok_speedups.push(base.as_secs_f64() / tok.as_secs_f64().max(1e-9));
        t_tok += tok;
        speedups.push(base.as_secs_f64() / arena.as_secs_f64().max(1e-9));
        text_speedups.push(base.as_secs_f64() / from_text.as_secs_f64().max(1e-9));
        t_rcdom += base;
        t_arena += arena;
        t_text += from_text;
        bytes += p.bytes.len();
    }
    let mb = bytes as f64 / 1e6;
    let report = |label: &str, mut v: Vec<f64>, total: Duration| {
        v.sort_by(f64::total_cmp);
        println!(
            "{label}: rcdom ÷ arena per page: median {:.2}x, p10 {:.2}x, p90 {:.2}x; {:.1} MB/s ({:.2}x rcdom's {:.1} MB/s in all)",
            median(v.clone()),
            percentile(&v, 0.1),
            percentile(&v, 0.9),
            mb / total.as_secs_f64(),
            t_rcdom.as_secs_f64() / total.as_secs_f64(),
            mb / t_rcdom.as_secs_f64(),
        );
    };
    println!("pages: {} ({mb:.1} MB), best of {runs} runs each", pages.len());
    report("parse (bytes: sniff, decode, build)", speedups, t_arena);
    report("parse_str (text already decoded)", text_speedups, t_text);
    report("html5ever's tokenizer alone (no tree)", tok_speedups, t_tok);
}
