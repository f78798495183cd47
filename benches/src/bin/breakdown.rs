//! Where the time of a `navigate` and of a `research` page goes, layer by
//! layer, on the static path.
//!
//! Pages are served on loopback by the bench, each site under a name of its
//! own as in `browse` (`<case>.localhost` for each Readability page,
//! `<suite>.localhost` for the others), keep-alive, `text/html` without a
//! charset; the Bootstrap examples' own stylesheet, which the corpus does
//! not hold, is a generated sheet of its size
//! (`whittle_benches::bootstrap_assets`). Per page, each layer is run `--runs` times and its median
//! taken; the tables give the median, p90 and total of those over the
//! pages, and each layer's median ratio to html5ever → rcdom on the same
//! bytes (the bare parse every stage is measured against).
//!
//! `navigate` (pages of `--navigate`, default readability and bootstrap):
//!
//! - the layers in the order the session runs them, each called as it
//!   calls them: the page's fetch (the guarded fetcher `whittle mcp
//!   --allow-private` builds), parse, the linked stylesheets' fetches
//!   (the same fetcher, so its per-session cache is warm after the first
//!   run, as on a second visit), cascade + layout, conceal, semantics,
//!   tree, fold (with the main content it is handed), render, the
//!   envelope and the text, the privacy pass over them, and the MCP result
//!   as JSON (structured content and the JSON-RPC message);
//! - the whole tool in process: `Session::call("navigate")` on the static
//!   backend;
//! - the whole tool as a client sees it: `navigate` through `whittle mcp
//!   --engine static` over stdio, from the MCP SDK's client (rmcp).
//!
//! What the session adds beyond its layers, and what MCP and the pipe add
//! beyond the session, are the differences of those medians.
//!
//! `research` (pages of `--research`, default readability and
//! htmlparser-benchmark, 250 pages interleaved): fetch, parse, analysis
//! (cascade without layout, conceal, semantics), digest, the JSON line and
//! its privacy pass; then `whittle research --jsonl` over all of them, as a
//! user runs it (default concurrency and per-host limit), pages/s.
//!
//! `--page FILE` measures one file instead of a corpus (both parts).
//!
//! Run: `cargo build --release -p whittle && cargo run --release -p
//! whittle-benches --bin breakdown [-- --runs 5] [--page FILE] [--navigate
//! readability,bootstrap] [--research readability,htmlparser-benchmark]
//! [--pages N] [--whittle target/release/whittle] [--only navigate|research]`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use whittle::backend::static_http::StaticBackend;
use whittle::fetch::{Fetcher, Limits, Request};
use whittle::policy::NetPolicy;
use whittle::session::{Session, SessionOptions, ToolOutput};
use whittle_benches::{median, ms, percentile, rcdom_parse, serve, site_of};
use whittle_engine::render::envelope::Ids;
use whittle_engine::safety::{Vault, private};
use whittle_engine::{
    Analysed, CascadeOptions, DigestOptions, Envelope, FoldOptions, LayoutOptions, ParseOptions, RefTable, RenderOptions,
    build_tree, compute_semantics, conceal, fold, linked_stylesheet_urls, parse, render, style_and_layout, with_main_content,
};

struct Args {
    runs: usize,
    page: Option<PathBuf>,
    navigate: Vec<String>,
    research: Vec<String>,
    pages: usize,
    whittle: PathBuf,
    only: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        runs: 5,
        page: None,
        navigate: vec!["readability".into(), "bootstrap".into()],
        research: vec!["readability".into(), "htmlparser-benchmark".into()],
        pages: 250,
        whittle: whittle_corpus::workspace_dir().join("target/release/whittle"),
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let list = || value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect::<Vec<_>>();
        match flag.as_str() {
            "--runs" => args.runs = value.parse::<usize>().map_err(|_| format!("not a count: {value}"))?.max(1),
            "--pages" => args.pages = value.parse::<usize>().map_err(|_| format!("not a count: {value}"))?.max(1),
            "--page" => args.page = Some(PathBuf::from(&value)),
            "--navigate" => args.navigate = list(),
            "--research" => args.research = list(),
            "--whittle" => args.whittle = PathBuf::from(&value),
            "--only" => args.only = Some(value),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

/// A page to measure: its name and bytes.
struct Source {
    name: String,
    bytes: Vec<u8>,
}

/// The pages of `suites`, interleaved so that any count takes from each.
fn corpus(suites: &[String], limit: usize) -> Result<Vec<Source>, String> {
    let manifest = whittle_corpus::Manifest::builtin();
    let mut lists = Vec::new();
    for suite in suites {
        let spec = manifest.suite(suite).ok_or_else(|| format!("no suite named {suite}"))?;
        lists.push(spec.pages());
    }
    let mut out = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for list in &lists {
            if let Some(path) = list.get(i)
                && out.len() < limit
                && let Ok(bytes) = whittle_corpus::load(path)
            {
                out.push(Source { name: whittle_corpus::short_name(path), bytes });
            }
        }
    }
    Ok(out)
}

/// Per layer, per page: the median of its runs (ms).
#[derive(Default)]
struct Table {
    order: Vec<&'static str>,
    rows: HashMap<&'static str, Vec<f64>>,
    /// The rcdom parse of each page, in the same order as every row.
    rcdom: Vec<f64>,
}

impl Table {
    fn add(&mut self, layer: &'static str, value: f64) {
        if !self.rows.contains_key(layer) {
            self.order.push(layer);
        }
        self.rows.entry(layer).or_default().push(value);
    }

    fn print(&self, title: &str, total_of: &str) {
        let whole = self.rows.get(total_of).map(|v| median(v.clone())).unwrap_or(0.0);
        println!("{title}");
        println!("| layer | median ms | p90 ms | total ms | median share of `{total_of}` | median × rcdom parse |");
        println!("|---|---|---|---|---|---|");
        for layer in &self.order {
            let values = &self.rows[layer];
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let m = median(values.clone());
            let ratios: Vec<f64> =
                values.iter().zip(&self.rcdom).filter(|(_, r)| **r > 0.0).map(|(v, r)| v / r).collect();
            println!(
                "| {layer} | {m:.3} | {:.3} | {:.1} | {:.1}% | {:.2}× |",
                percentile(&sorted, 0.9),
                values.iter().sum::<f64>(),
                100.0 * m / whole.max(f64::MIN_POSITIVE),
                median(ratios),
            );
        }
        println!();
    }
}

/// The median of `runs` timings of `f` (ms), and its last result.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        times.push(ms(t.elapsed()));
        last = Some(out);
    }
    (median(times), last.expect("at least one run"))
}

/// The same, for async work.
async fn time_async<T, F: std::future::Future<Output = T>>(runs: usize, mut f: impl FnMut() -> F) -> (f64, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f().await;
        times.push(ms(t.elapsed()));
        last = Some(out);
    }
    (median(times), last.expect("at least one run"))
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("breakdown: {e}");
            std::process::exit(2);
        }
    };
    if !args.whittle.is_file() {
        eprintln!("breakdown: no whittle binary at {} (cargo build --release -p whittle)", args.whittle.display());
        std::process::exit(2);
    }
    let load = |suites: &[String], limit: usize| -> Vec<Source> {
        match &args.page {
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => vec![Source { name: path.display().to_string(), bytes }],
                Err(e) => {
                    eprintln!("breakdown: {}: {e}", path.display());
                    std::process::exit(2);
                }
            },
            None => {
                if whittle_corpus::shared_dir().is_none() {
                    println!("breakdown: skipped: {}", whittle_corpus::shared_missing_reason());
                    std::process::exit(0);
                }
                corpus(suites, limit).unwrap_or_else(|e| {
                    eprintln!("breakdown: {e}");
                    std::process::exit(2);
                })
            }
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    if args.only.as_deref() != Some("research") {
        let pages = load(&args.navigate, usize::MAX);
        runtime.block_on(navigate_part(&args, pages));
    }
    if args.only.as_deref() != Some("navigate") {
        let pages = load(&args.research, args.pages);
        runtime.block_on(research_part(&args, pages));
    }
}

/// Serves `pages` on loopback under their sites' names; gives each page's
/// URL.
async fn serve_sites(pages: &[Source]) -> Vec<String> {
    let mut served = whittle_benches::bootstrap_assets();
    for p in pages {
        served.insert(format!("/{}", p.name.trim_start_matches('/')), p.bytes.clone());
    }
    let port = serve(Arc::new(served)).await.port();
    pages.iter().map(|p| format!("http://{}:{port}/{}", site_of(&p.name), p.name.trim_start_matches('/'))).collect()
}

async fn navigate_part(args: &Args, pages: Vec<Source>) {
    let runs = args.runs;
    let urls = serve_sites(&pages).await;
    let policy = Arc::new(NetPolicy::open());
    let fetcher = Fetcher::guarded(Limits::default(), policy.clone()).expect("a fetcher");
    let mut session =
        Session::new(Arc::new(StaticBackend), Fetcher::guarded(Limits::default(), policy).expect("a fetcher"), SessionOptions::default())
            .await
            .expect("a session");
    let mut child = tokio::process::Command::new(&args.whittle)
        .args(["mcp", "--allow-private", "--engine", "static"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("whittle mcp starts");
    let transport = (child.stdout.take().expect("stdout"), child.stdin.take().expect("stdin"));
    let client = ().serve(transport).await.expect("an MCP session");
    // Untimed: the first navigation of each side (connections, o200k's
    // pattern).
    if let Some(first) = urls.first() {
        let _ = session.call("navigate", json!({ "url": first })).await;
        let _ = call_navigate(&client, first).await;
    }

    let mut table = Table::default();
    let mut failed = Vec::new();
    for (page, url) in pages.iter().zip(&urls) {
        // The first visit of a page (a new site's connection, its
        // stylesheets fetched or failed for the first time), then the
        // median of the visits after it.
        let t = Instant::now();
        let first_ok = call_navigate(&client, url).await;
        let first = ms(t.elapsed());
        let (mcp, ok) = time_async(runs, || call_navigate(&client, url)).await;
        if !ok || !first_ok {
            failed.push(page.name.clone());
            continue;
        }
        let mut times = Vec::with_capacity(runs);
        let mut ok = true;
        for _ in 0..runs {
            let t = Instant::now();
            ok &= session.call("navigate", json!({ "url": url })).await.envelope.ok;
            times.push(ms(t.elapsed()));
        }
        let session_ms = median(times);
        if !ok {
            failed.push(page.name.clone());
            continue;
        }
        let (fetch_ms, response) = time_async(runs, || fetcher.fetch_page(Request::get(url.parse().expect("a URL")))).await;
        let Ok(response) = response else {
            failed.push(page.name.clone());
            continue;
        };
        table.rcdom.push(time(runs, || drop(rcdom_parse(&response.bytes))).0);
        let options = ParseOptions { url: Some(response.url.clone()), transport_charset: response.charset.clone(), scripting: true };
        let (parse_ms, doc) = time(runs, || parse(&response.bytes, &options));
        // The session's fetcher keeps the sheets it read for its cascades.
        let mut cascade_options = CascadeOptions { sheet_cache: Some(fetcher.parsed_sheets()), ..CascadeOptions::default() };
        let (sheets_ms, (sheets, _)) = time_async(runs, || {
            let hrefs = linked_stylesheet_urls(&doc, &cascade_options);
            let fetcher = &fetcher;
            let cascade_options = &cascade_options;
            async move { fetcher.fetch_stylesheets(&hrefs, cascade_options).await }
        })
        .await;
        cascade_options.stylesheets = sheets;
        let (style_ms, (styles, layout)) = time(runs, || style_and_layout(&doc, &cascade_options, &LayoutOptions::default()));
        let (conceal_ms, concealment) = time(runs, || conceal(&doc, &styles, &layout));
        let (semantics_ms, semantics) = time(runs, || compute_semantics(&doc, &styles, &concealment));
        let (tree_ms, tree) = time(runs, || build_tree(&doc, &styles, &concealment, &semantics, &mut RefTable::new()));
        let (fold_ms, folded) = time(runs, || {
            let options = with_main_content(FoldOptions::default(), &doc, &styles, &concealment, &semantics);
            fold(&doc, &tree, &layout, &options, &RenderOptions::default())
        });
        let (render_ms, obs) = time(runs, || render(&doc, &folded));
        let origin = response.url.origin().ascii_serialization();
        let (envelope_ms, (text, envelope)) = time(runs, || {
            let ids = Ids { tool: "navigate".into(), operation_id: "op".into(), tab_id: "t1".into() };
            (obs.text(), Envelope::observation(ids, "static", &layout, &obs, &tree, Some(origin.clone())))
        });
        let (privacy_ms, _) = time(runs, || {
            let mut vault = Vault::new();
            let text = private(&mut vault, &text).into_owned();
            let mut lines = Vec::new();
            for e in envelope.page_content.iter().flat_map(|p| &p.elements) {
                lines.push(private(&mut vault, &e.name).into_owned());
            }
            (text, lines)
        });
        let (json_ms, _) = time(runs, || {
            let result = whittle::mcp::to_result(ToolOutput { text: text.clone(), envelope: envelope.clone(), image: None });
            serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 1, "result": result })).map(|v| v.len())
        });
        for (layer, value) in [
            ("fetch", fetch_ms),
            ("parse", parse_ms),
            ("stylesheets", sheets_ms),
            ("cascade + layout", style_ms),
            ("conceal", conceal_ms),
            ("semantics", semantics_ms),
            ("tree", tree_ms),
            ("fold (with main content)", fold_ms),
            ("render", render_ms),
            ("envelope + text", envelope_ms),
            ("privacy pass", privacy_ms),
            ("MCP result as JSON", json_ms),
        ] {
            table.add(layer, value);
        }
        let layers = fetch_ms + parse_ms + sheets_ms + style_ms + conceal_ms + semantics_ms + tree_ms + fold_ms + render_ms + envelope_ms + privacy_ms;
        table.add("session beyond its layers", session_ms - layers);
        table.add("Session::call(navigate), in process", session_ms);
        table.add("MCP and the pipe beyond the session", mcp - session_ms - json_ms);
        table.add("navigate through whittle mcp (client)", mcp);
        table.add("the same, first visit", first);
    }
    let _ = client.cancel().await;
    let what = args.page.as_ref().map_or_else(|| args.navigate.join(" + "), |p| p.display().to_string());
    table.print(
        &format!(
            "navigate, static engine: {} pages ({what}), median of {runs} runs per page, {} failed",
            table.rcdom.len(),
            failed.len()
        ),
        "navigate through whittle mcp (client)",
    );
    for name in failed {
        println!("  failed: {name}");
    }
}

/// Calls `navigate` through the client; whether it succeeded.
async fn call_navigate(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>, url: &str) -> bool {
    let mut params = CallToolRequestParams::new("navigate");
    params.arguments = json!({ "url": url }).as_object().cloned();
    match client.call_tool(params).await {
        Ok(result) => result.structured_content.is_some_and(|e| e["ok"].as_bool() == Some(true)),
        Err(_) => false,
    }
}

async fn research_part(args: &Args, pages: Vec<Source>) {
    let runs = args.runs;
    let urls = serve_sites(&pages).await;
    let fetcher = Fetcher::guarded(Limits::default(), Arc::new(NetPolicy::open())).expect("a fetcher");
    let budget = whittle::cli::PAGE_BUDGET;
    let mut table = Table::default();
    let mut failed = Vec::new();
    for (i, (page, url)) in pages.iter().zip(&urls).enumerate() {
        let (fetch_ms, response) = time_async(runs, || fetcher.fetch_page(Request::get(url.parse().expect("a URL")))).await;
        let Ok(response) = response else {
            failed.push(page.name.clone());
            continue;
        };
        table.rcdom.push(time(runs, || drop(rcdom_parse(&response.bytes))).0);
        let options = ParseOptions { url: Some(response.url.clone()), transport_charset: response.charset.clone(), scripting: true };
        let (parse_ms, doc) = time(runs, || parse(&response.bytes, &options));
        // A document is not `Clone`: each run parses again, and the
        // parse's median is taken off.
        let (parse_and_analyse_ms, analysed) = time(runs, || Analysed::new(parse(&response.bytes, &options), Vec::new()));
        drop(doc);
        let analyse_ms = parse_and_analyse_ms - parse_ms;
        let digest_options = DigestOptions { index: i + 1, budget, scripts_ran: false };
        let (digest_ms, digest) = time(runs, || analysed.digest(&digest_options));
        let (json_ms, _) = time(runs, || {
            let result = whittle::research::PageResult {
                index: i + 1,
                url: url.clone(),
                ok: true,
                title: digest.title.clone(),
                digest: digest.text.clone(),
                tokens: digest.tokens,
                ..Default::default()
            };
            let line = serde_json::to_string(&result).unwrap_or_default();
            private(&mut Vault::new(), &line).len()
        });
        for (layer, value) in [
            ("fetch", fetch_ms),
            ("parse", parse_ms),
            ("analysis (cascade, conceal, semantics)", analyse_ms),
            ("digest", digest_ms),
            ("JSON line + privacy pass", json_ms),
        ] {
            table.add(layer, value);
        }
        table.add("all layers", fetch_ms + parse_ms + analyse_ms + digest_ms + json_ms);
    }
    let what = args.page.as_ref().map_or_else(|| args.research.join(" + "), |p| p.display().to_string());
    table.print(
        &format!("research, one page: {} pages ({what}), median of {runs} runs per page, {} failed", table.rcdom.len(), failed.len()),
        "all layers",
    );
    for name in &failed {
        println!("  failed: {name}");
    }
    research_end_to_end(args, &urls).await;
}

/// `whittle research --jsonl` over every URL, as a user runs it.
async fn research_end_to_end(args: &Args, urls: &[String]) {
    let dir = std::env::temp_dir().join(format!("whittle-breakdown-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let list = dir.join("urls.txt");
    if std::fs::write(&list, urls.join("\n")).is_err() {
        return;
    }
    let mut rates = Vec::new();
    for _ in 0..args.runs.min(3) {
        let t = Instant::now();
        let out = tokio::process::Command::new(&args.whittle)
            .args(["research", "--jsonl", "--allow-private", "--urls-file"])
            .arg(&list)
            .stderr(Stdio::null())
            .output()
            .await;
        let took = t.elapsed().as_secs_f64();
        match out {
            Ok(o) if o.status.success() => {
                let lines = o.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
                let ok = o.stdout.split(|&b| b == b'\n').filter(|l| l.windows(9).any(|w| w == b"\"ok\":true")).count();
                println!("whittle research --jsonl: {lines} lines, {ok} ok, {took:.2} s = {:.0} pages/s", urls.len() as f64 / took);
                rates.push(urls.len() as f64 / took);
            }
            Ok(o) => println!("whittle research failed: {}", o.status),
            Err(e) => println!("whittle research did not start: {e}"),
        }
    }
    if !rates.is_empty() {
        println!("research end to end: median {:.0} pages/s over {} runs", median(rates), args.runs.min(3));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
