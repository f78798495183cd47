//! A browsing session as an agent runs one, against plain Chromium on the
//! same pages in the same run.
//!
//! whittle: one `whittle mcp` process (the release build, default engine
//! `auto`, `--allow-private` for the loopback pages) driven over stdio by
//! the MCP SDK's client (rmcp), one tab navigating in order through every
//! page of a mix: the readability, bootstrap and WPT pages of the shared
//! corpus, with one of the project's script-rendered pages
//! (`corpus/scripted/`) after every 20 of them. This bench serves them on
//! loopback, each site under a name of its own, as on the web: every
//! readability page is a site (`<case>.localhost`), the bootstrap examples
//! one (`bootstrap.localhost`), the WPT pages one (`wpt.localhost`), the
//! script-rendered pages one (`apps.localhost`); `*.localhost` is loopback
//! to both whittle and Chromium; the Bootstrap examples' own stylesheet,
//! which the corpus does not hold, is a generated sheet of its size
//! (`whittle_benches::bootstrap_assets`). Each `navigate` is timed from
//! the client's request to its result.
//!
//! Chromium: one headless tab of Debian's Chromium, `Page.navigate` until
//! the page's `load` event, then `Accessibility.getFullAXTree`, on the same
//! list. The two take turns by blocks of `--every` pages (whittle's
//! navigations of a block, then Chromium's of the same pages), so neither
//! is timed while the other works: Chromium goes on after a page has
//! loaded (its scripts, and its renderer processes, one per site). On both sides the
//! pages' requests to other hosts fail at once (no internet on the bench
//! machine): whittle's guard finds no address for them, the plain Chromium
//! has a closed proxy and no resolver.
//!
//! Prints the median and p90 per-page time of both and their ratio, the
//! pages that ran in Chromium with both times for them, and every failure.
//!
//! Run: `cargo build --release -p whittle && cargo run --release -p
//! whittle-benches --bin browse [-- --pages N] [--every 20] [--whittle
//! target/release/whittle] [--engine auto|static|chromium]` (needs
//! `apt-get install -y chromium`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use whittle::backend::SessionContext;
use whittle::backend::cdp::CdpPage;
use whittle::fetch::{Fetcher, Limits};
use whittle_benches::{median, ms, offline_chromium, percentile, serve, site_of};

/// The longest the plain Chromium's navigation may take.
const NAV_TIMEOUT: Duration = Duration::from_secs(30);

struct Args {
    pages: usize,
    every: usize,
    whittle: PathBuf,
    engine: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        pages: usize::MAX,
        every: 20,
        whittle: whittle_corpus::workspace_dir().join("target/release/whittle"),
        engine: "auto".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let count = || value.parse::<usize>().map_err(|_| format!("not a count: {value}"));
        match flag.as_str() {
            "--pages" => args.pages = count()?,
            "--every" => args.every = count()?.max(1),
            "--whittle" => args.whittle = PathBuf::from(&value),
            "--engine" => args.engine = value,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

/// One page of the mix: its name and its URL.
struct Stop {
    name: String,
    url: String,
    scripted: bool,
}

/// One page's figures.
struct Row {
    name: String,
    scripted: bool,
    whittle: Option<f64>,
    engine: String,
    error: Option<String>,
    chromium: Option<f64>,
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("browse: {e}");
            std::process::exit(2);
        }
    };
    if !args.whittle.is_file() {
        eprintln!("browse: no whittle binary at {} (cargo build --release -p whittle)", args.whittle.display());
        std::process::exit(2);
    }
    if let Err(e) = whittle::backend::cdp::find_chromium(None) {
        println!("browse: {}: nothing to measure", e.message);
        return;
    }
    let mut corpus = Vec::new();
    for suite in ["readability", "bootstrap", "wpt"] {
        match whittle_corpus::Manifest::builtin().suite(suite) {
            Some(spec) => corpus.extend(spec.pages()),
            None => unreachable!("the manifest names {suite}"),
        }
    }
    if corpus.is_empty() {
        println!("browse: no shared corpus ({}): nothing to measure", whittle_corpus::shared_missing_reason());
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(run(args, corpus));
}

async fn run(args: Args, corpus: Vec<PathBuf>) {
    let scripted: Vec<PathBuf> = whittle_corpus::Manifest::builtin().suite("scripted").map(|s| s.pages()).unwrap_or_default();
    let mut pages = whittle_benches::bootstrap_assets();
    let mut apps = HashMap::new();
    let mut corpus_names = Vec::new();
    for path in corpus.iter().take(args.pages) {
        let Ok(bytes) = whittle_corpus::load(path) else { continue };
        let name = whittle_corpus::short_name(path);
        pages.insert(format!("/{name}"), bytes);
        corpus_names.push(name);
    }
    let mut app_names = Vec::new();
    for path in &scripted {
        let Ok(bytes) = whittle_corpus::load(path) else { continue };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        apps.insert(format!("/{name}"), bytes);
        app_names.push(name);
    }
    let port = serve(Arc::new(pages)).await.port();
    let apps_port = serve(Arc::new(apps)).await.port();
    let mut stops = Vec::new();
    for (i, name) in corpus_names.iter().enumerate() {
        stops.push(Stop { name: name.clone(), url: format!("http://{}:{port}/{name}", site_of(name)), scripted: false });
        if (i + 1) % args.every == 0 && !app_names.is_empty() {
            let app = &app_names[(i / args.every) % app_names.len()];
            stops.push(Stop { name: format!("scripted/{app}"), url: format!("http://apps.localhost:{apps_port}/{app}"), scripted: true });
        }
    }

    // whittle, as a client starts it.
    let mut child = tokio::process::Command::new(&args.whittle)
        .args(["mcp", "--allow-private", "--engine", &args.engine])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("whittle mcp starts");
    let transport = (child.stdout.take().expect("stdout"), child.stdin.take().expect("stdin"));
    let client = ().serve(transport).await.expect("an MCP session");

    // Plain Chromium.
    let fetcher = Fetcher::new(Limits::default(), None).expect("a fetcher");
    let context = SessionContext::new(fetcher, u64::MAX, Default::default());
    let tab = CdpPage::open(offline_chromium(), &context).await.expect("a Chromium tab");

    // Untimed: both sides' first navigation (Chromium's launch, the
    // fetcher's first connection, o200k's pattern).
    let warm = stops[0].url.clone();
    let _ = navigate(&client, &warm).await;
    let _ = tokio::time::timeout(NAV_TIMEOUT, tab.cdp().goto(warm.as_str())).await;

    // In blocks of `--every` pages: whittle's navigations, then Chromium's
    // on the same pages. Neither runs while the other is timed (Chromium
    // goes on working after a page loads: its scripts, its renderer
    // processes, one per site), and both see the machine as it is then.
    let mut rows = Vec::with_capacity(stops.len());
    for block in stops.chunks(args.every) {
        let mut ours = Vec::with_capacity(block.len());
        for stop in block {
            let t = Instant::now();
            let result = navigate(&client, &stop.url).await;
            let took = ms(t.elapsed());
            ours.push(match result {
                Ok((true, engine, _)) => (Some(took), engine, None),
                Ok((false, engine, code)) => (None, engine, Some(format!("{code} after {took:.0} ms"))),
                Err(e) => (None, String::new(), Some(e)),
            });
        }
        for (stop, (whittle, engine, error)) in block.iter().zip(ours) {
            let t = Instant::now();
            let chromium = match tokio::time::timeout(NAV_TIMEOUT, tab.cdp().goto(stop.url.as_str())).await {
                Ok(Ok(_)) => tab.cdp().execute(GetFullAxTreeParams::default()).await.ok().map(|_| ms(t.elapsed())),
                _ => None,
            };
            eprintln!(
                "[{}/{}] {}: whittle {} · Chromium {}",
                rows.len() + 1,
                stops.len(),
                stop.name,
                whittle.map_or_else(|| error.clone().unwrap_or_default(), |t| format!("{t:.1} ms ({engine})")),
                chromium.map_or_else(|| "failed".to_owned(), |t| format!("{t:.1} ms"))
            );
            rows.push(Row { name: stop.name.clone(), scripted: stop.scripted, whittle, engine, error, chromium });
        }
        // Untimed: Chromium leaves the last page, so its scripts do not run
        // on while whittle's next block is timed.
        let _ = tokio::time::timeout(NAV_TIMEOUT, tab.cdp().goto("about:blank")).await;
    }
    let _ = client.cancel().await;
    tab.close().await;
    report(&rows, &args.engine);
}

/// Calls `navigate`: whether it succeeded, the engine that served the page
/// and the error code.
async fn navigate(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>, url: &str) -> Result<(bool, String, String), String> {
    let arguments = json!({ "url": url }).as_object().cloned();
    let mut params = CallToolRequestParams::new("navigate");
    params.arguments = arguments;
    let result = client.call_tool(params).await.map_err(|e| format!("the call failed: {e}"))?;
    let envelope = result.structured_content.unwrap_or_default();
    let ok = envelope["ok"].as_bool().unwrap_or(false);
    let engine = envelope["server"]["engine"].as_str().unwrap_or("").to_owned();
    let error = &envelope["server"]["error"];
    let code = format!("{} ({})", error["code"].as_str().unwrap_or(""), error["message"].as_str().unwrap_or(""));
    Ok((ok, engine, code))
}

fn report(rows: &[Row], engine: &str) {
    let both: Vec<&Row> = rows.iter().filter(|r| r.whittle.is_some() && r.chromium.is_some()).collect();
    let sorted = |v: Vec<f64>| {
        let mut v = v;
        v.sort_by(f64::total_cmp);
        v
    };
    let ours = sorted(both.iter().filter_map(|r| r.whittle).collect());
    let theirs = sorted(both.iter().filter_map(|r| r.chromium).collect());
    let scripted = rows.iter().filter(|r| r.scripted).count();
    println!(
        "browse: {} pages ({} corpus, {scripted} script-rendered), one tab of `whittle mcp --engine {engine}` over stdio, beside Chromium navigate + getFullAXTree",
        rows.len(),
        rows.len() - scripted
    );
    println!("pages both loaded: {}", both.len());
    let (m_ours, m_theirs) = (median(ours.clone()), median(theirs.clone()));
    let (p_ours, p_theirs) = (percentile(&ours, 0.9), percentile(&theirs, 0.9));
    println!("whittle navigate:                median {m_ours:7.1} ms, p90 {p_ours:7.1} ms");
    println!("Chromium navigate + AX tree:     median {m_theirs:7.1} ms, p90 {p_theirs:7.1} ms");
    println!(
        "Chromium ÷ whittle:              median {:.1}×, p90 {:.1}×",
        m_theirs / m_ours.max(f64::MIN_POSITIVE),
        p_theirs / p_ours.max(f64::MIN_POSITIVE)
    );
    let in_chromium: Vec<&&Row> = both.iter().filter(|r| r.engine == "chromium").collect();
    if !in_chromium.is_empty() {
        let ours = median(in_chromium.iter().filter_map(|r| r.whittle).collect());
        let theirs = median(in_chromium.iter().filter_map(|r| r.chromium).collect());
        println!(
            "pages whittle ran in Chromium: {} — whittle median {ours:.1} ms, plain Chromium median {theirs:.1} ms on them (whittle ÷ Chromium {:.2}×)",
            in_chromium.len(),
            ours / theirs.max(f64::MIN_POSITIVE)
        );
        for r in &in_chromium {
            println!("  {:<60} whittle {:7.1} ms   Chromium {:7.1} ms", r.name, r.whittle.unwrap_or(0.0), r.chromium.unwrap_or(0.0));
        }
    } else {
        println!("pages whittle ran in Chromium: 0");
    }
    let failures: Vec<&Row> = rows.iter().filter(|r| r.error.is_some() || r.chromium.is_none()).collect();
    println!("failures: {}", failures.len());
    for r in failures {
        let chromium = match r.chromium {
            Some(t) => format!("Chromium loaded it in {t:.0} ms"),
            None => "Chromium did not load it".into(),
        };
        println!("  {:<60} whittle: {}; {chromium}", r.name, r.error.as_deref().unwrap_or("ok"));
    }
}
