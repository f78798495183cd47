//! The Chromium backend, on pages of the shared corpus served on loopback
//! by the bench itself:
//!
//! - escalation: each page of readability, bootstrap and WPT opened alone,
//!   in a session of its own with the `auto` engine policy, as `whittle
//!   mcp` does; the share of pages that moved to Chromium, and which;
//! - observe on the Chromium path after a Readability page has loaded
//!   (capture with `DOMSnapshot.captureSnapshot`, semantics, tree, fold,
//!   render) against `Accessibility.getFullAXTree` on the same page in the
//!   same run: per page the median of RUNS runs of each, then the median
//!   and p90 of the per-page ratios and the ratio of the totals.
//!
//! Run: `cargo run --release -p whittle-benches --bin chromium [-- RUNS]`
//! (needs Chromium: `apt-get install -y chromium`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use serde_json::json;
use whittle::backend::auto::{AutoBackend, EnginePolicy};
use whittle::backend::cdp::CdpPage;
use whittle::backend::{Navigation, Page, SessionContext};
use whittle::fetch::{Fetcher, Limits};
use whittle::session::{Session, SessionOptions};
use whittle_benches::{loopback_only, median, ms, offline_chromium, percentile, serve};
use whittle_corpus::Suite;
use whittle_engine::{FoldOptions, RefTable, RenderOptions, fold, render};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5).max(1);
    let pages = whittle_benches::pages(&[Suite::Readability]);
    let mut mix = pages.clone();
    mix.extend(whittle_benches::pages(&[Suite::Bootstrap]));
    let wpt = whittle_corpus::Manifest::builtin().suite("wpt").map(|s| s.pages()).unwrap_or_default();
    mix.extend(wpt.iter().filter_map(|p| Some(whittle_benches::Page { name: whittle_corpus::short_name(p), bytes: whittle_corpus::load(p).ok()? })));
    if pages.is_empty() {
        println!("no shared corpus ({}): nothing to measure", whittle_corpus::shared_missing_reason());
        return;
    }
    if let Err(e) = whittle::backend::cdp::find_chromium(None) {
        println!("{}: nothing to measure", e.message);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(run(pages, mix, runs));
}

async fn run(pages: Vec<whittle_benches::Page>, mix: Vec<whittle_benches::Page>, runs: usize) {
    let served: HashMap<String, Vec<u8>> = mix.iter().enumerate().map(|(i, p)| (format!("/{i}"), p.bytes.clone())).collect();
    let addr = serve(Arc::new(served)).await;
    let cdp = offline_chromium();

    // Escalation, as `whittle mcp` decides it for a page opened alone.
    let auto = Arc::new(AutoBackend::new(EnginePolicy::Auto, cdp.clone()));
    let mut escalated = Vec::new();
    for (i, p) in mix.iter().enumerate() {
        // A new session per page: nothing is known of the site yet.
        let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("a fetcher");
        let mut session = Session::new(auto.clone(), fetcher, SessionOptions::default()).await.expect("a session");
        let out = session.call("navigate", json!({"url": format!("http://{addr}/{i}")})).await;
        let v = serde_json::to_value(&out.envelope).unwrap_or_default();
        if v["server"]["engine"] == "chromium" {
            escalated.push(p.name.clone());
        }
    }
    println!(
        "escalation: {}/{} pages of readability, bootstrap and WPT opened alone moved to Chromium ({:.1}%)",
        escalated.len(),
        mix.len(),
        100.0 * escalated.len() as f64 / mix.len() as f64
    );
    for name in &escalated {
        println!("  escalated: {name}");
    }

    // Observe on the Chromium path vs the full accessibility tree.
    let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("a fetcher");
    let context = SessionContext::new(fetcher, u64::MAX, Default::default());
    let mut page = CdpPage::open(cdp, &context).await.expect("a Chromium tab");
    let mut refs = RefTable::new();
    let (mut ratios, mut whittle_total, mut ax_total) = (Vec::new(), 0.0, 0.0);
    for (i, p) in pages.iter().enumerate() {
        let url = url::Url::parse(&format!("http://{addr}/{i}")).expect("a URL");
        if let Err(e) = page.navigate(Navigation::To(url), false).await {
            println!("  {}: did not load: {}", p.name, e.message);
            continue;
        }
        let mut ours = Vec::with_capacity(runs);
        let mut theirs = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            page.touch();
            let Ok(a) = page.analysis(&mut refs).await else { break };
            let options = whittle_engine::with_main_content(FoldOptions::default(), &a.document, &a.styles, &a.concealment, &a.semantics);
            let folded = fold(&a.document, &a.tree, &a.layout, &options, &RenderOptions::default());
            std::hint::black_box(render(&a.document, &folded).text());
            ours.push(ms(t.elapsed()));
            let t = Instant::now();
            if page.cdp().execute(GetFullAxTreeParams::default()).await.is_err() {
                break;
            }
            theirs.push(ms(t.elapsed()));
        }
        if ours.len() < runs || theirs.len() < runs {
            println!("  {}: Chromium failed mid-measure", p.name);
            continue;
        }
        let (o, t) = (median(ours), median(theirs));
        whittle_total += o;
        ax_total += t;
        ratios.push(o / t);
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "observe (Chromium path) vs Accessibility.getFullAXTree over {} pages, {runs} runs each: ratio median {:.2}, p90 {:.2}, totals {:.0} ms vs {:.0} ms = {:.2}",
        ratios.len(),
        median(ratios.clone()),
        percentile(&ratios, 0.9),
        whittle_total,
        ax_total,
        whittle_total / ax_total.max(f64::MIN_POSITIVE)
    );
    page.close().await;
}
