//! whittle beside Chromium on the same pages, in one run: the bench serves
//! corpus pages on loopback and, for each page, times
//!
//! - whittle's `navigate` path: the static backend's tab fetching the page
//!   (and its linked stylesheets) over loopback through whittle's fetcher,
//!   then the analysis, fold and render of an observation;
//! - whittle's snapshot alone, on the page's bytes in memory;
//! - Chromium: `Page.navigate` until the page's `load` event, then
//!   `Accessibility.getFullAXTree`, in one headless tab (Debian's
//!   `chromium`, launched as the `chromium` bench does).
//!
//! Each page's time is the median of RUNS runs of each, interleaved so
//! machine load affects all alike. Prints the per-page ratio whittle ÷
//! Chromium (median, p90; lower is better) and the output sizes
//! (observation bytes against the AX tree's JSON bytes). Nothing leaves the
//! machine: whittle's fetcher refuses every host but loopback, and
//! Chromium's requests to other hosts fail at once.
//!
//! Run: `cargo run --release -p whittle-benches --bin side_by_side [--
//! --pages N] [--runs 3] [--suite readability]` (needs `apt-get install -y
//! chromium`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use url::Url;
use whittle::backend::cdp::CdpPage;
use whittle::backend::static_http::StaticPage;
use whittle::backend::SessionContext;
use whittle::fetch::{Fetcher, Limits, Request};
use whittle_benches::{loopback_only, median, ms, offline_chromium, percentile, serve};
use whittle_corpus::Suite;
use whittle_engine::{FoldOptions, RefTable, RenderOptions, Viewport, fold, render};

/// The longest Chromium's navigation may take: a page whose `load` never
/// fires (an image error handler looping offline) is left out.
const NAV_TIMEOUT: Duration = Duration::from_secs(15);

struct Args {
    pages: usize,
    runs: usize,
    suite: Suite,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { pages: usize::MAX, runs: 3, suite: Suite::Readability };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--pages" => args.pages = value.parse().map_err(|_| format!("not a count: {value}"))?,
            "--runs" => args.runs = value.parse::<usize>().map_err(|_| format!("not a count: {value}"))?.max(1),
            "--suite" => {
                args.suite = Suite::ALL.into_iter().find(|s| s.name() == value).ok_or_else(|| {
                    let names: Vec<&str> = Suite::ALL.iter().map(|s| s.name()).collect();
                    format!("no suite {value}: the suites are {}", names.join(", "))
                })?;
            }
            _ => return Err(format!("unknown option {flag} (--pages, --runs, --suite)")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("side_by_side: {e}");
            std::process::exit(2);
        }
    };
    let pages: Vec<_> = whittle_benches::pages(&[args.suite]).into_iter().take(args.pages).collect();
    if pages.is_empty() {
        println!("no pages ({}): nothing to measure", whittle_corpus::shared_missing_reason());
        return;
    }
    if let Err(e) = whittle::backend::cdp::find_chromium(None) {
        println!("{}: nothing to measure", e.message);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(run(pages, args.runs));
}

/// One page's medians, in milliseconds, and output sizes in bytes.
struct Row {
    fetch_and_snapshot: f64,
    snapshot: f64,
    chromium: f64,
    observation_bytes: usize,
    ax_bytes: usize,
}

async fn run(pages: Vec<whittle_benches::Page>, runs: usize) {
    let served: HashMap<String, Vec<u8>> = pages.iter().enumerate().map(|(i, p)| (format!("/{i}"), p.bytes.clone())).collect();
    let addr = serve(Arc::new(served)).await;
    let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("a fetcher");
    let context = SessionContext::new(fetcher.clone(), u64::MAX, Viewport::default());
    let tab = CdpPage::open(offline_chromium(), &context).await.expect("a Chromium tab");
    let mut ours = StaticPage::new(fetcher, Viewport::default());
    let mut refs = RefTable::new();
    // Untimed: o200k's split pattern, Chromium's first navigation of the tab,
    // the fetcher's first connection.
    whittle_engine::fold::tokens::exact_count("warm up");
    let first = Url::parse(&format!("http://{addr}/0")).expect("a URL");
    let _ = tokio::time::timeout(NAV_TIMEOUT, tab.cdp().goto(first.as_str())).await;
    let _ = ours.load(Request::get(first)).await;
    let mut rows = Vec::new();
    'pages: for (i, p) in pages.iter().enumerate() {
        let url = Url::parse(&format!("http://{addr}/{i}")).expect("a URL");
        let (mut fetched, mut alone, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        let (mut observation_bytes, mut ax_bytes) = (0, 0);
        for _ in 0..runs {
            let t = Instant::now();
            if let Err(e) = ours.load(Request::get(url.clone())).await {
                println!("  {}: whittle did not load it: {}", p.name, e.message);
                continue 'pages;
            }
            let Ok(a) = ours.analysis(&mut refs).await else { continue 'pages };
            let folded = fold(&a.document, &a.tree, &a.layout, &FoldOptions::default(), &RenderOptions::default());
            observation_bytes = render(&a.document, &folded).text().len();
            fetched.push(ms(t.elapsed()));
            let previous = a.document.id();
            refs.forget(previous);

            let t = Instant::now();
            let snap = whittle_engine::snapshot(&p.bytes, &Default::default(), &mut RefTable::new());
            std::hint::black_box(snap.observation.text());
            alone.push(ms(t.elapsed()));

            let t = Instant::now();
            match tokio::time::timeout(NAV_TIMEOUT, tab.cdp().goto(url.as_str())).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    println!("  {}: Chromium did not load it: {e}", p.name);
                    continue 'pages;
                }
                Err(_) => {
                    println!("  {}: Chromium's load did not fire within {} s", p.name, NAV_TIMEOUT.as_secs());
                    continue 'pages;
                }
            }
            let Ok(ax) = tab.cdp().execute(GetFullAxTreeParams::default()).await else {
                println!("  {}: Chromium gave no accessibility tree", p.name);
                continue 'pages;
            };
            theirs.push(ms(t.elapsed()));
            ax_bytes = serde_json::to_vec(&ax.result.nodes).map_or(0, |v| v.len());
        }
        rows.push(Row {
            fetch_and_snapshot: median(fetched),
            snapshot: median(alone),
            chromium: median(theirs),
            observation_bytes,
            ax_bytes,
        });
    }
    tab.close().await;
    report(&rows, pages.len(), runs);
}

fn report(rows: &[Row], pages: usize, runs: usize) {
    if rows.is_empty() {
        println!("no page loaded in both");
        return;
    }
    let sorted = |f: &dyn Fn(&Row) -> f64| {
        let mut v: Vec<f64> = rows.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let total = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).sum::<f64>();
    println!("{} of {pages} pages loaded in both, median of {runs} runs each (ms per page):", rows.len());
    for (what, f) in [
        ("whittle fetch + snapshot", &(|r: &Row| r.fetch_and_snapshot) as &dyn Fn(&Row) -> f64),
        ("whittle snapshot alone", &|r: &Row| r.snapshot),
        ("Chromium navigate + getFullAXTree", &|r: &Row| r.chromium),
    ] {
        let v = sorted(f);
        println!("  {what:<34} median {:>7.2}, p90 {:>7.2}, total {:>9.0}", median(v.clone()), percentile(&v, 0.9), total(f));
    }
    for (what, f) in [
        ("fetch + snapshot", &(|r: &Row| r.fetch_and_snapshot / r.chromium) as &dyn Fn(&Row) -> f64),
        ("snapshot alone", &|r: &Row| r.snapshot / r.chromium),
    ] {
        let v = sorted(f);
        let m = median(v.clone());
        println!(
            "ratio whittle {what} ÷ Chromium, per page: median {m:.3} ({:.0}× faster), p90 {:.3} ({:.0}× faster)",
            1.0 / m,
            percentile(&v, 0.9),
            1.0 / percentile(&v, 0.9)
        );
    }
    let obs = sorted(&|r: &Row| r.observation_bytes as f64);
    let ax = sorted(&|r: &Row| r.ax_bytes as f64);
    let size = sorted(&|r: &Row| r.ax_bytes as f64 / (r.observation_bytes as f64).max(1.0));
    println!(
        "output: observation median {:.1} KB, AX tree JSON median {:.1} KB; AX ÷ observation per page median {:.0}×, p90 {:.0}×",
        median(obs) / 1e3,
        median(ax) / 1e3,
        median(size.clone()),
        percentile(&size, 0.9)
    );
}
