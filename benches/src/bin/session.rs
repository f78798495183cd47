//! The MCP server's hot paths, through a real session and the static
//! backend, with pages served on loopback:
//!
//! - `observe` on a page already loaded, for every real page of the shared
//!   corpus: a repeated observe (the view rendered before, and the
//!   envelope), one with a smaller budget (fold, render, envelope), and an action
//!   that makes the page be analysed again (cascade, layout, semantics,
//!   tree on the parsed document, two renders and a diff); median and p90
//!   over pages, each page the median of its runs;
//! - `act type` + diff on a generated 200 KB page with a form.
//!
//! Run: `cargo run --release -p whittle-benches --bin session [-- RUNS]`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use whittle::backend::static_http::StaticBackend;
use whittle::fetch::{Fetcher, Limits};
use whittle::session::{Session, SessionOptions};
use whittle_benches::{loopback_only, median, ms, percentile, serve};

/// A budget other than the default: such a view is folded on every call.
const SMALLER_BUDGET: u32 = 1_500;

/// A page of about `bytes` with a form whose field the bench types into.
fn form_page(bytes: usize) -> String {
    let filler = whittle_corpus::generate::realistic_page(bytes);
    let form = r#"<form aria-label="Probe" action="/done"><label>Email <input type=email name=email></label><button>Send</button></form>"#;
    match filler.find("<body>") {
        Some(i) => format!("{}{form}{}", &filler[..i + 6], &filler[i + 6..]),
        None => format!("{form}{filler}"),
    }
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(9);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async move {
        let mut pages = HashMap::new();
        let corpus: Vec<_> = if whittle_corpus::shared_dir().is_some() {
            whittle_corpus::real_pages()
        } else {
            println!("session: corpus pages skipped: {}", whittle_corpus::shared_missing_reason());
            Vec::new()
        };
        let mut paths = Vec::new();
        for (i, p) in corpus.iter().enumerate() {
            if let Ok(bytes) = whittle_corpus::load(p) {
                let path = format!("/p{i}.html");
                pages.insert(path.clone(), bytes);
                paths.push((path, whittle_corpus::short_name(p)));
            }
        }
        let page = form_page(200 * 1024);
        let form_bytes = page.len();
        pages.insert("/form.html".into(), page.into_bytes());
        let addr = serve(Arc::new(pages)).await;

        let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("fetcher");
        let mut session = Session::new(Arc::new(StaticBackend), fetcher, SessionOptions::default()).await.expect("session");

        let (mut first, mut again, mut folded) = (Vec::new(), Vec::new(), Vec::new());
        for (path, _name) in &paths {
            let nav = session.call("navigate", json!({"url": format!("http://{addr}{path}")})).await;
            if !nav.envelope.ok {
                continue;
            }
            // A scroll of 0 screens drops the analysis: the act reruns
            // cascade, layout, semantics and tree on the parsed document.
            let mut firsts = Vec::new();
            for _ in 0..runs.min(3) {
                let t = Instant::now();
                session.call("act", json!({"do": "scroll", "dy": 0})).await;
                firsts.push(ms(t.elapsed()));
            }
            let mut agains = Vec::new();
            let mut folds = Vec::new();
            for _ in 0..runs {
                let t = Instant::now();
                let out = session.call("observe", json!({})).await;
                agains.push(ms(t.elapsed()));
                std::hint::black_box(out);
                let t = Instant::now();
                let out = session.call("observe", json!({"budget": SMALLER_BUDGET})).await;
                folds.push(ms(t.elapsed()));
                std::hint::black_box(out);
            }
            first.push(median(firsts));
            again.push(median(agains));
            folded.push(median(folds));
        }
        first.sort_by(f64::total_cmp);
        again.sort_by(f64::total_cmp);
        folded.sort_by(f64::total_cmp);
        if !again.is_empty() {
            println!("pages: {}", again.len());
            println!(
                "observe, page unchanged (the view rendered before + envelope): median {:.2} ms, p90 {:.2} ms",
                percentile(&again, 0.5),
                percentile(&again, 0.9)
            );
            println!(
                "observe budget {SMALLER_BUDGET}, page already analysed (fold + render + envelope): median {:.2} ms, p90 {:.2} ms",
                percentile(&folded, 0.5),
                percentile(&folded, 0.9)
            );
            println!(
                "act scroll 0 (re-analysis: cascade, layout, semantics, tree, then two renders and a diff): median {:.2} ms, p90 {:.2} ms",
                percentile(&first, 0.5),
                percentile(&first, 0.9)
            );
        }

        let nav = session.call("navigate", json!({"url": format!("http://{addr}/form.html")})).await;
        let field = nav
            .envelope
            .page_content
            .as_ref()
            .and_then(|p| p.elements.iter().find(|e| e.role == "textbox" && e.name == "Email"))
            .map(|e| e.ref_id)
            .expect("the form page shows its field");
        let mut typed = Vec::new();
        for i in 0..runs.max(5) * 3 {
            let t = Instant::now();
            let out = session.call("act", json!({"do": "type", "ref": field, "text": format!("jane{i}@example.com")})).await;
            typed.push(ms(t.elapsed()));
            assert!(out.envelope.ok, "{}", out.text);
        }
        let typed_median = median(typed);
        println!("act type + diff on a {} KB page: median {typed_median:.2} ms", form_bytes / 1024);
    });
}
