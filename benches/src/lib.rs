//! Shared pieces of whittle's benches: corpus pages, the rcdom baseline,
//! each pipeline stage as a function, the change the diff benches diff,
//! a loopback page server and a Chromium that stays off the network.

pub mod fuzz_checks;
pub mod tree;

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::RcDom;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use whittle::backend::cdp::{CdpBackend, ChromiumOptions};
use whittle_corpus::Suite;
use whittle_engine::{
    CascadeOptions, Concealment, DigestOptions, Document, FoldOptions, LayoutOptions, NodeId, Observation, ParseOptions, RefTable,
    RenderOptions, SnapshotOptions, build_tree, compute_semantics, fold, parse, render, snapshot, style_and_layout,
    snapshot_document,
};

/// A corpus page in memory.
#[derive(Debug, Clone)]
pub struct Page {
    /// Its path below the shared corpus.
    pub name: String,
    /// Its bytes (gunzipped).
    pub bytes: Vec<u8>,
}

/// The pages of the given suites; empty when the shared corpus is absent.
pub fn pages(suites: &[Suite]) -> Vec<Page> {
    load_all(suites.iter().flat_map(|s| s.pages()))
}

/// Every real page: the shared corpus's real suites and the pages saved
/// with `whittle corpus add` (`whittle_corpus::real_pages`).
pub fn real_pages() -> Vec<Page> {
    load_all(whittle_corpus::real_pages())
}

fn load_all(paths: impl IntoIterator<Item = PathBuf>) -> Vec<Page> {
    let mut out = Vec::new();
    for path in paths {
        if let Ok(bytes) = whittle_corpus::load(&path) {
            out.push(Page { name: whittle_corpus::short_name(&path), bytes });
        }
    }
    out
}

/// The baseline: html5ever into markup5ever_rcdom, decoding the bytes as
/// UTF-8 (lossy), as html5ever's own examples do.
pub fn rcdom_parse(bytes: &[u8]) -> RcDom {
    html5ever::parse_document(RcDom::default(), Default::default()).from_utf8().one(bytes)
}

/// Stage 1.
pub fn stage_parse(bytes: &[u8]) -> Document {
    parse(bytes, &ParseOptions::default())
}

/// The whole pipeline, returning the observation's length.
pub fn whole(bytes: &[u8]) -> usize {
    let snap = whittle_engine::snapshot(bytes, &Default::default(), &mut RefTable::new());
    snap.observation.lines.len()
}

/// Each stage after parsing, for one page, returning a size so nothing is
/// optimized away.
pub fn stages_after_parse(doc: &Document) -> usize {
    let (styles, layout) = style_and_layout(doc, &CascadeOptions::default(), &LayoutOptions::default());
    let hidden = Concealment::default();
    let sem = compute_semantics(doc, &styles, &hidden);
    let tree = build_tree(doc, &styles, &hidden, &sem, &mut RefTable::new());
    let folded = fold(doc, &tree, &layout, &FoldOptions::default(), &RenderOptions::default());
    render(doc, &folded).lines.len()
}

/// The digest `research` writes for one page of a call with the default
/// budget and limit (4,000 tokens over 10 pages).
pub fn digest_options() -> DigestOptions {
    let budget = whittle::research::DEFAULT_BUDGET / whittle::research::DEFAULT_LIMIT as u32;
    DigestOptions { index: 1, budget, scripts_ran: false }
}

/// Two observations of one page, before and after a change like the
/// ones an action makes (what `act` diffs): a status message appears at
/// the top of the body ("added to cart"), and the middle link or list item
/// of the page goes away. Refs carry over, as they do in a session.
pub fn before_after(bytes: &[u8]) -> (Observation, Observation) {
    let options = SnapshotOptions::default();
    let mut refs = RefTable::new();
    let snap = snapshot(bytes, &options, &mut refs);
    let before = snap.observation;
    let mut doc = snap.document;
    if let Some(body) = doc.body() {
        let gone: Vec<NodeId> = doc
            .descendants(body)
            .filter(|&n| doc.element(n).is_some_and(|e| matches!(&**e.local_name(), "a" | "li")))
            .collect();
        // A refused mutation leaves the page as it was: the diff is only
        // smaller, never wrong.
        if let Some(&middle) = gone.get(gone.len() / 2) {
            let _ = doc.detach(middle);
        }
        if let (Ok(status), Ok(text)) = (doc.create_html_element("p", &[("role", "status")]), doc.create_text("Added to cart (1 item)")) {
            let first = doc.first_child(body);
            let _ = doc.append_child(status, text);
            let _ = doc.insert_before(body, status, first);
        }
    }
    let after = snapshot_document(doc, &options, &mut refs).observation;
    (before, after)
}

/// A hop check for benches' fetchers: loopback (`127.0.0.1`, `localhost`
/// and its subdomains) only. A page's links to other hosts (stylesheets on
/// a CDN) are refused before any name is looked up, so a bench sends
/// nothing off the machine, and waits for no resolver.
pub fn loopback_only() -> whittle::fetch::HopCheck {
    std::sync::Arc::new(|url: &url::Url| match url.host_str() {
        Some(h) if h == "127.0.0.1" || h == "localhost" || h.ends_with(".localhost") => Ok(()),
        _ => Err("this bench fetches from loopback only".into()),
    })
}

/// A Chromium backend for benches on a machine without internet:
/// requests to hosts other than loopback (`127.0.0.1`, `localhost` and
/// its subdomains) fail at once (a closed proxy
/// port, names not resolved) instead of hanging on connects, as a
/// connected machine would answer them; nothing leaves the machine.
pub fn offline_chromium() -> CdpBackend {
    let offline = vec![
        "proxy-server=http://127.0.0.1:9".to_owned(),
        "proxy-bypass-list=127.0.0.1;localhost;*.localhost".to_owned(),
        "host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost , EXCLUDE *.localhost".to_owned(),
    ];
    CdpBackend::new(ChromiumOptions { args: offline, ..ChromiumOptions::default() })
}

/// Serves `pages` (path → bytes) on a loopback port until the process ends,
/// as `text/html` without a charset (each engine reads the page's own), and
/// paths ending in `.css` as `text/css`.
/// Connections are kept alive, as web servers keep them (a request that
/// asks for `Connection: close` gets it).
pub async fn serve(pages: Arc<HashMap<String, Vec<u8>>>) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { continue };
            // Each response goes out in one write, without waiting for the
            // client's ACK of the last (Nagle's delay), as servers send.
            let _ = stream.set_nodelay(true);
            let pages = pages.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let mut read = 0;
                loop {
                    // One request's head (GETs: no body follows it).
                    let end = loop {
                        if let Some(i) = buf[..read].windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                        if read == buf.len() {
                            return;
                        }
                        match stream.read(&mut buf[read..]).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => read += n,
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
                    buf.copy_within(end..read, 0);
                    read -= end;
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let close = head.to_ascii_lowercase().contains("connection: close");
                    let (status, body) = match pages.get(&path) {
                        Some(b) => ("200 OK", b.as_slice()),
                        None => ("404 Not Found", &b"not found"[..]),
                    };
                    let kind = if path.ends_with(".css") && status.starts_with("200") { "text/css" } else { "text/html" };
                    let mut response = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n",
                        body.len(),
                        if close { "close" } else { "keep-alive" }
                    )
                    .into_bytes();
                    response.extend_from_slice(body);
                    if stream.write_all(&response).await.is_err() || close {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// What the Bootstrap examples link besides their own page: Bootstrap's
/// stylesheet (`../assets/dist/css/bootstrap.min.css`, and its right-to-left
/// twin), which the shared corpus does not hold. A generated sheet of its
/// size (227 KB, `whittle_corpus::generate::stylesheet_page`'s rules) stands
/// in for it, so that a Bootstrap page costs what reading a site's large
/// sheet costs. Paths as the pages are served (`/bootstrap/…`).
pub fn bootstrap_assets() -> HashMap<String, Vec<u8>> {
    let page = whittle_corpus::generate::stylesheet_page(560_000);
    let css = match (page.find("<style>"), page.find("</style>")) {
        (Some(a), Some(b)) if a + 7 <= b => page[a + 7..b].as_bytes().to_vec(),
        _ => Vec::new(),
    };
    ["/assets/dist/css/bootstrap.min.css", "/assets/dist/css/bootstrap.rtl.min.css"]
        .into_iter()
        .map(|p| (p.to_owned(), css.clone()))
        .collect()
}

/// The host a corpus page is served under in benches that browse, as on
/// the web: a site of its own for each Readability page
/// (`<case>.localhost`), one for each other suite (`<suite>.localhost`);
/// `*.localhost` is loopback to whittle and to Chromium.
pub fn site_of(name: &str) -> String {
    let mut parts = name.split('/');
    match (parts.next(), parts.next()) {
        (Some("readability"), Some(case)) => format!("{case}.localhost"),
        (Some(suite), _) => format!("{suite}.localhost"),
        _ => "localhost".into(),
    }
}

/// The median (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

/// The value at quantile `p` of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The shortest of `runs` timings of `f`: robust on a busy machine.
pub fn best_of(runs: usize, mut f: impl FnMut()) -> std::time::Duration {
    (0..runs)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    /// The change `before_after` makes reaches the diff: the status line
    /// is added and the middle item removed, nothing else.
    #[test]
    fn the_change_shows_in_the_diff() {
        let page = whittle_corpus::generate::wide_list_page(3_000);
        let (before, after) = super::before_after(page.as_bytes());
        let text = whittle_engine::diff(&before, &after).text();
        assert!(text.starts_with("Δ +1 −1 ~0\n"), "{text}");
        assert!(text.contains("+ status: Added to cart (1 item)"), "{text}");
    }
}
