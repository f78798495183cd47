//! Agreement with Chromium's accessibility tree on the shared corpus: for
//! each page, the (role, name) pairs of the controls and links whittle
//! lists with a ref (the snapshot unfolded) against those of the nodes
//! Chromium's `Accessibility.getFullAXTree` does not ignore, with the same
//! roles, the page served on loopback (remote resources unreachable for
//! both). Counted as multisets per page and summed: precision (whittle's
//! pairs Chromium has too), recall (Chromium's pairs whittle has) and F1.
//!
//! Run: `cargo run --release -p whittle-benches --bin ax_agreement [--
//! --cache FILE]` (needs Chromium: `apt-get install -y chromium`). With
//! `--cache`, Chromium's pairs are read from FILE when it exists and
//! written to it otherwise, so two builds are compared on the same
//! answers.

use std::collections::HashMap;
use std::sync::Arc;

use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use whittle::backend::SessionContext;
use whittle::backend::cdp::CdpPage;
use whittle::fetch::{Fetcher, Limits};
use whittle_benches::{loopback_only, offline_chromium, serve};
use whittle_corpus::Suite;
use whittle_engine::{FoldOptions, RefTable, SnapshotOptions, Viewport};

/// The roles compared: what an agent acts on.
const ROLES: &[&str] = &[
    "link", "button", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "slider", "spinbutton",
    "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem",
];

type Pairs = Vec<(String, String)>;

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cache = args.iter().position(|a| a == "--cache").and_then(|i| args.get(i + 1)).map(std::path::PathBuf::from);
    let pages = whittle_benches::pages(&[Suite::Readability, Suite::Bootstrap, Suite::ServoWarc]);
    if pages.is_empty() {
        println!("no shared corpus ({}): nothing to measure", whittle_corpus::shared_missing_reason());
        return;
    }
    let cached: Option<HashMap<String, Pairs>> =
        cache.as_ref().and_then(|c| std::fs::read(c).ok()).and_then(|b| serde_json::from_slice(&b).ok());
    let chromium = match cached {
        Some(c) => c,
        None => {
            if let Err(e) = whittle::backend::cdp::find_chromium(None) {
                println!("{}: nothing to measure", e.message);
                return;
            }
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
            let answers = runtime.block_on(ask_chromium(&pages));
            if let Some(c) = &cache {
                let _ = std::fs::write(c, serde_json::to_vec(&answers).unwrap_or_default());
            }
            answers
        }
    };
    let (mut both, mut ours_n, mut theirs_n, mut compared) = (0usize, 0usize, 0usize, 0usize);
    let mut worst: Vec<(f64, String, usize, usize)> = Vec::new();
    for p in &pages {
        let Some(theirs) = chromium.get(&p.name) else { continue };
        compared += 1;
        let mut options = SnapshotOptions::default();
        options.fold = FoldOptions::unfolded();
        let snap = whittle_engine::snapshot(&p.bytes, &options, &mut RefTable::new());
        let ours: Pairs = snap
            .tree
            .widgets
            .iter()
            .filter(|w| w.ref_id.is_some() && ROLES.contains(&w.role.as_str()))
            .map(|w| (w.role.as_str().to_owned(), norm(&w.name)))
            .collect();
        let mut left: HashMap<&(String, String), usize> = HashMap::new();
        for pair in theirs {
            *left.entry(pair).or_default() += 1;
        }
        let mut hit = 0;
        for pair in &ours {
            if let Some(n) = left.get_mut(pair)
                && *n > 0
            {
                *n -= 1;
                hit += 1;
            }
        }
        both += hit;
        ours_n += ours.len();
        theirs_n += theirs.len();
        let missed = ours.len() + theirs.len() - 2 * hit;
        worst.push((missed as f64, p.name.clone(), ours.len(), theirs.len()));
    }
    let precision = both as f64 / ours_n.max(1) as f64;
    let recall = both as f64 / theirs_n.max(1) as f64;
    let f1 = 2.0 * precision * recall / (precision + recall).max(1e-9);
    println!("pages compared: {compared} of {}", pages.len());
    println!("(role, name) pairs: whittle {ours_n}, Chromium {theirs_n}, in both {both}");
    println!("precision {precision:.4}, recall {recall:.4}, F1 {f1:.4}");
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("pages with the most pairs on one side only:");
    for (missed, name, ours, theirs) in worst.iter().take(8) {
        println!("  {name}: {missed} (whittle {ours}, Chromium {theirs})");
    }
}

async fn ask_chromium(pages: &[whittle_benches::Page]) -> HashMap<String, Pairs> {
    let served: HashMap<String, Vec<u8>> = pages.iter().enumerate().map(|(i, p)| (format!("/{i}"), p.bytes.clone())).collect();
    let addr = serve(Arc::new(served)).await;
    let fetcher = Fetcher::new(Limits::default(), Some(loopback_only())).expect("a fetcher");
    let context = SessionContext::new(fetcher, u64::MAX, Viewport::default());
    let tab = CdpPage::open(offline_chromium(), &context).await.expect("a Chromium tab");
    let mut out = HashMap::new();
    for (i, p) in pages.iter().enumerate() {
        let url = format!("http://{addr}/{i}");
        match tokio::time::timeout(std::time::Duration::from_secs(30), tab.cdp().goto(url.as_str())).await {
            Ok(Ok(_)) => {}
            _ => {
                println!("  {}: Chromium did not load it", p.name);
                continue;
            }
        }
        let Ok(ax) = tab.cdp().execute(GetFullAxTreeParams::default()).await else { continue };
        let value = |v: &Option<chromiumoxide::cdp::browser_protocol::accessibility::AxValue>| {
            v.as_ref().and_then(|v| v.value.as_ref()).and_then(|v| v.as_str()).map(norm).unwrap_or_default()
        };
        let pairs: Pairs = ax
            .result
            .nodes
            .iter()
            .filter(|n| !n.ignored)
            .map(|n| (value(&n.role), value(&n.name)))
            .filter(|(role, _)| ROLES.contains(&role.as_str()))
            .collect();
        out.insert(p.name.clone(), pairs);
    }
    tab.close().await;
    out
}
