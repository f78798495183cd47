//! Shared pieces of whittle's benches: corpus pages, the rcdom baseline,
//! and each pipeline stage as a function.

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::RcDom;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use whittle_corpus::Suite;
use whittle_engine::{
    CascadeOptions, Document, FoldOptions, LayoutOptions, ParseOptions, RefTable, RenderOptions, build_tree, cascade,
    compute_layout, compute_semantics, fold, parse, render,
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
    let mut out = Vec::new();
    for suite in suites {
        for path in suite.pages() {
            if let Ok(bytes) = whittle_corpus::load(&path) {
                out.push(Page { name: whittle_corpus::short_name(&path), bytes });
            }
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
    let styles = cascade(doc, &CascadeOptions::default());
    let layout = compute_layout(doc, &styles, &LayoutOptions::default());
    let sem = compute_semantics(doc, &styles);
    let tree = build_tree(doc, &styles, &sem, &mut RefTable::new());
    let folded = fold(doc, &tree, &layout, &FoldOptions::default(), &RenderOptions::default());
    render(doc, &folded).lines.len()
}

/// Serves `pages` (path → bytes) on a loopback port until the process ends.
pub async fn serve(pages: Arc<HashMap<String, Vec<u8>>>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { continue };
            let pages = pages.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let mut read = 0;
                while read < buf.len() {
                    match tokio::io::AsyncReadExt::read(&mut stream, &mut buf[read..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => read += n,
                    }
                    if buf[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let head = String::from_utf8_lossy(&buf[..read]);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, body) = match pages.get(&path) {
                    Some(b) => ("200 OK", b.as_slice()),
                    None => ("404 Not Found", &b"not found"[..]),
                };
                let header = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = tokio::io::AsyncWriteExt::write_all(&mut stream, header.as_bytes()).await;
                let _ = tokio::io::AsyncWriteExt::write_all(&mut stream, body).await;
            });
        }
    });
    addr
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
