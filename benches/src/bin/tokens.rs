//! The token targets of the fold stage, over the shared corpus's
//! `readability` and `bootstrap` suites (o200k_base counts by tiktoken):
//!
//! - default observation tokens: median and p90 (targets ≤ 700, ≤ 3,000);
//! - budgets 500, 2,000 and 8,000 met on every page;
//! - `--no-fold` keeps every interactive element;
//! - the time layout + folding add to the snapshot (target ≤ 30%);
//! - the fold estimate against tiktoken.
//!
//! `cargo run --release -p whittle-benches --bin tokens [-- RUNS]`;
//! `-- --calibrate` prints tiktoken's average cost of words by length, the
//! table the estimator in `engine/src/fold/tokens.rs` is fitted to.

use std::collections::BTreeMap;
use std::time::Instant;

use whittle_benches::{Page, pages};
use whittle_corpus::Suite;
use whittle_engine::fold::{FoldOptions, Mode, tokens};
use whittle_engine::{
    CascadeOptions, Concealment, LayoutOptions, ParseOptions, RefTable, RenderOptions, SnapshotOptions, build_tree, cascade,
    compute_layout, compute_semantics, fold, parse, render, snapshot,
};

fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn snap(bytes: &[u8], fold: FoldOptions) -> whittle_engine::Snapshot {
    let options = SnapshotOptions { fold, ..SnapshotOptions::default() };
    snapshot(bytes, &options, &mut RefTable::new())
}

fn estimate(obs: &whittle_engine::Observation) -> usize {
    tokens::line_cost(0, &obs.header) as usize
        + obs
            .lines
            .iter()
            .map(|l| {
                let t = l.trim_start_matches(' ');
                tokens::line_cost(l.len() - t.len(), t) as usize
            })
            .sum::<usize>()
}

/// Times of each stage for one page, best of `runs`: (everything, layout,
/// fold).
fn stage_times(page: &Page, runs: usize) -> (f64, f64, f64) {
    let mut best = (f64::MAX, 0.0, 0.0);
    for _ in 0..runs {
        let t0 = Instant::now();
        let doc = parse(&page.bytes, &ParseOptions::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let t1 = Instant::now();
        let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
        let t2 = Instant::now();
        let hidden = Concealment::default();
        let sem = compute_semantics(&doc, &styles, &hidden);
        let tree = build_tree(&doc, &styles, &hidden, &sem, &mut RefTable::new());
        let t3 = Instant::now();
        let folded = fold(&doc, &tree, &layout, &FoldOptions::default(), &RenderOptions::default());
        let t4 = Instant::now();
        let obs = render(&doc, &folded);
        let t5 = Instant::now();
        std::hint::black_box(obs);
        let total = (t5 - t0).as_secs_f64();
        if total < best.0 {
            best = (total, (t2 - t1).as_secs_f64(), (t4 - t3).as_secs_f64());
        }
    }
    best
}

fn calibrate(pages: &[Page]) {
    let mut by_len: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for p in pages {
        let text = snap(&p.bytes, FoldOptions::unfolded()).observation.text();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_ascii_alphabetic() {
                let s = i;
                i += 1;
                while i < chars.len()
                    && chars[i].is_ascii_alphabetic()
                    && !(chars[i].is_ascii_uppercase() && chars[i - 1].is_ascii_lowercase())
                {
                    i += 1;
                }
                let word: String = chars[s..i].iter().collect();
                let with_space = format!(" {word}");
                let e = by_len.entry(word.len().min(30)).or_default();
                e.0 += 1;
                e.1 += o200k(&with_space);
            } else {
                i += 1;
            }
        }
    }
    println!("ASCII words (with a leading space): letters → average o200k tokens ×100");
    for (len, (n, t)) in by_len {
        println!("{len:>3}: {:>4} ({n} words)", t * 100 / n.max(1));
    }
}

fn main() {
    if whittle_corpus::shared_dir().is_none() {
        eprintln!("tokens: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    }
    let arg = std::env::args().nth(1);
    let pages = pages(&[Suite::Readability, Suite::Bootstrap]);
    if arg.as_deref() == Some("--calibrate") {
        calibrate(&pages);
        return;
    }
    if arg.as_deref() == Some("--lines") {
        // The lines whose estimate is furthest from tiktoken, on pages
        // whose name contains the next argument.
        let want = std::env::args().nth(2).unwrap_or_default();
        let mut rows = Vec::new();
        for p in pages.iter().filter(|p| p.name.contains(&want)) {
            let obs = snap(&p.bytes, FoldOptions::unfolded()).observation;
            for l in &obs.lines {
                let t = l.trim_start_matches(' ');
                let est = tokens::line_cost(l.len() - t.len(), t) as i64;
                let real = o200k(&format!("{l}\n")) as i64;
                rows.push((est - real, est, real, l.chars().take(150).collect::<String>()));
            }
        }
        rows.sort_by_key(|r| -(r.0.abs()));
        let (e, r): (i64, i64) = rows.iter().fold((0, 0), |a, x| (a.0 + x.1, a.1 + x.2));
        println!("lines {} est {e} real {r}", rows.len());
        for (d, est, real, l) in rows.iter().take(40) {
            println!("{d:+4} {est:>5} {real:>5} {l}");
        }
        return;
    }
    let runs: usize = arg.and_then(|a| a.parse().ok()).unwrap_or(3);
    let _ = o200k("warm up the tables");

    let mut default_tokens = Vec::new();
    let mut unfolded_tokens = Vec::new();
    let mut over: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut no_fold_missing = Vec::new();
    let mut est_err: Vec<f64> = Vec::new();
    let mut mode_tokens: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for p in &pages {
        let d = snap(&p.bytes, FoldOptions::default());
        let text = d.observation.text();
        let real = o200k(&text);
        default_tokens.push(real as f64);
        if real >= 200 {
            est_err.push((estimate(&d.observation) as f64 - real as f64) / real as f64);
        }
        let u = snap(&p.bytes, FoldOptions::unfolded());
        unfolded_tokens.push(o200k(&u.observation.text()) as f64);
        let all = u.tree.referenced().count();
        let shown = u.observation.widgets.iter().filter(|&&w| u.tree.widgets[w].ref_id.is_some()).count();
        if all != shown {
            no_fold_missing.push(format!("{}: {shown} of {all}", p.name));
        }
        for b in [500u32, 2_000, 8_000] {
            let s = snap(&p.bytes, FoldOptions { budget: Some(b), ..FoldOptions::default() });
            let t = o200k(&s.observation.text());
            if t > b as usize {
                over.entry(b).or_default().push(format!("{} ({t})", p.name));
            }
        }
        for mode in [Mode::Actions, Mode::Read] {
            let s = snap(&p.bytes, FoldOptions { mode, ..FoldOptions::default() });
            mode_tokens.entry(mode.as_str()).or_default().push(o200k(&s.observation.text()) as f64);
        }
    }
    let sort = |v: &mut Vec<f64>| v.sort_by(|a, b| a.total_cmp(b));
    sort(&mut default_tokens);
    sort(&mut unfolded_tokens);
    sort(&mut est_err);
    println!(
        "{} pages (readability {}, bootstrap {})",
        pages.len(),
        Suite::Readability.pages().len(),
        Suite::Bootstrap.pages().len()
    );
    println!(
        "default observation (full, budget {}): median {:.0} tokens, p90 {:.0}, max {:.0}",
        whittle_engine::fold::DEFAULT_BUDGET,
        percentile(&default_tokens, 0.5),
        percentile(&default_tokens, 0.9),
        percentile(&default_tokens, 1.0)
    );
    println!(
        "unfolded (--no-fold): median {:.0} tokens, p90 {:.0}, max {:.0}",
        percentile(&unfolded_tokens, 0.5),
        percentile(&unfolded_tokens, 0.9),
        percentile(&unfolded_tokens, 1.0)
    );
    for (m, v) in &mut mode_tokens {
        sort(v);
        println!("mode {m}: median {:.0} tokens, p90 {:.0}", percentile(v, 0.5), percentile(v, 0.9));
    }
    for b in [500u32, 2_000, 8_000] {
        let n = over.get(&b).map_or(0, Vec::len);
        println!(
            "budget {b}: met on {}/{} pages{}",
            pages.len() - n,
            pages.len(),
            over.get(&b).map(|v| format!(" — over: {}", v.join(", "))).unwrap_or_default()
        );
    }
    println!(
        "--no-fold keeps every ref on {}/{} pages{}",
        pages.len() - no_fold_missing.len(),
        pages.len(),
        if no_fold_missing.is_empty() {
            String::new()
        } else {
            format!(" — missing: {}", no_fold_missing.join(", "))
        }
    );
    println!(
        "estimate vs tiktoken (pages ≥ 200 tokens, default budget): median {:+.1}%, min {:+.1}%, max {:+.1}%",
        percentile(&est_err, 0.5) * 100.0,
        percentile(&est_err, 0.0) * 100.0,
        percentile(&est_err, 1.0) * 100.0
    );
    let mut shares = Vec::new();
    let (mut sum_total, mut sum_extra, mut sum_layout, mut sum_fold) = (0.0, 0.0, 0.0, 0.0);
    for p in &pages {
        let (total, layout, fold) = stage_times(p, runs);
        let extra = layout + fold;
        sum_total += total;
        sum_extra += extra;
        sum_layout += layout;
        sum_fold += fold;
        shares.push(extra / total.max(1e-9));
    }
    sort(&mut shares);
    println!(
        "layout + fold share of the snapshot (best of {runs}): median {:.1}%, p90 {:.1}%, all pages together {:.1}% ({:.1} ms of {:.1} ms)",
        percentile(&shares, 0.5) * 100.0,
        percentile(&shares, 0.9) * 100.0,
        sum_extra / sum_total.max(1e-9) * 100.0,
        sum_extra * 1000.0,
        sum_total * 1000.0
    );
    println!(
        "  of which layout {:.1} ms, fold {:.1} ms; layout + fold over the rest of the pipeline: {:.1}%",
        sum_layout * 1000.0,
        sum_fold * 1000.0,
        sum_extra / (sum_total - sum_extra).max(1e-9) * 100.0
    );
}
