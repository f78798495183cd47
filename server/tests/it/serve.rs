//! `serve`'s session lifecycle and its limits, over real HTTP on loopback:
//! idle sessions end (never during a call), the cap evicts the longest
//! idle session or refuses with 503, ended and unknown ids get a 404 that
//! says what to do, bad requests get errors while other sessions go on,
//! and a stop drains the server. The server runs in the test's process
//! (short timeouts); `tests/cli.rs` runs the binary for signals and
//! Chromium.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whittle::backend::static_http::StaticBackend;
use whittle::fetch::Limits;
use whittle::mcp::{Shared, ToolSet};
use whittle::policy::NetPolicy;
use whittle::serve::Lifecycle;
use whittle::session::SessionOptions;

use crate::server::{Reply, Seen, Server};

const PAGE: &str = "<title>Shop</title><main><h1>Shop</h1><label>Search <input name=q></label><a href=/slow>Slow</a></main>";

/// A whittle server on an ephemeral loopback port, stopped when dropped.
pub(crate) struct Running {
    pub(crate) url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

impl Running {
    pub(crate) async fn start(lifecycle: Lifecycle, tools: ToolSet) -> Running {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
        let url = format!("http://{}/mcp", listener.local_addr().unwrap_or_else(|e| panic!("{e}")));
        let limits = Limits { total_timeout: Duration::from_secs(10), ..Limits::default() };
        let shared = Shared::with_tools(Arc::new(StaticBackend), limits, Arc::new(NetPolicy::open()), SessionOptions::default(), tools);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let done = tokio::spawn(async move {
            let stop = async move {
                let _ = rx.await;
            };
            whittle::serve::serve_on(listener, shared, None, lifecycle, stop).await.unwrap_or_else(|e| panic!("serve: {e}"));
        });
        Running { url, stop: Some(tx), done }
    }

    /// Stops the server; returns once it has drained.
    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        let done = &mut self.done;
        tokio::time::timeout(Duration::from_secs(30), done).await.unwrap_or_else(|_| panic!("the server did not stop")).unwrap_or_else(|e| panic!("{e}"));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.done.abort();
    }
}

/// An answer that was not a JSON-RPC result: its HTTP status and body.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) status: u16,
    pub(crate) body: String,
    pub(crate) retry_after: Option<String>,
}

/// A bare MCP client over Streamable HTTP, enough to open sessions, call
/// tools and abandon them.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    http: reqwest::Client,
    url: String,
    pub(crate) id: Option<String>,
}

impl Client {
    pub(crate) fn new(url: &str) -> Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder().no_proxy().build().unwrap_or_else(|e| panic!("{e}"));
        Client { http, url: url.to_owned(), id: None }
    }

    async fn post(&self, body: Value) -> Result<(reqwest::header::HeaderMap, String), Refused> {
        let mut req = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if let Some(id) = &self.id {
            req = req.header("Mcp-Session-Id", id).header("MCP-Protocol-Version", "2025-11-25");
        }
        let resp = match req.send().await {
            Ok(r) => r,
            // Refused or closed before an answer: status 0.
            Err(e) => return Err(Refused { status: 0, body: e.to_string(), retry_after: None }),
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap_or_default();
        if (200..300).contains(&status) {
            Ok((headers, text))
        } else {
            let retry_after = headers.get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
            Err(Refused { status, body: text, retry_after })
        }
    }

    /// The JSON-RPC message with `id` in a response (JSON or SSE).
    fn answer(text: &str, id: u64) -> Value {
        let candidates: Vec<&str> = if text.trim_start().starts_with('{') {
            vec![text]
        } else {
            text.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).collect()
        };
        candidates
            .into_iter()
            .filter_map(|c| serde_json::from_str::<Value>(c).ok())
            .find(|v| v["id"] == json!(id))
            .unwrap_or_else(|| panic!("no answer to request {id} in {text:?}"))
    }

    /// Opens a session (initialize, then initialized).
    pub(crate) async fn open(&mut self) -> Result<(), Refused> {
        self.id = None;
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "lifecycle-test", "version": "1"}}});
        let (headers, text) = self.post(init).await?;
        let answer = Client::answer(&text, 0);
        assert!(answer.get("result").is_some(), "initialize failed: {answer}");
        let id = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).unwrap_or_else(|| panic!("no session id"));
        self.id = Some(id.to_owned());
        self.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        Ok(())
    }

    /// Calls `tool`; its structured content.
    pub(crate) async fn call(&self, tool: &str, args: Value) -> Result<Value, Refused> {
        let (_, text) = self.post(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": args}})).await?;
        let answer = Client::answer(&text, 7);
        Ok(answer["result"]["structuredContent"].clone())
    }

    /// Sends `DELETE /mcp` for the session; the HTTP status.
    pub(crate) async fn delete(&self) -> u16 {
        let mut req = self.http.delete(&self.url).header("MCP-Protocol-Version", "2025-11-25");
        if let Some(id) = &self.id {
            req = req.header("Mcp-Session-Id", id);
        }
        req.send().await.unwrap_or_else(|e| panic!("DELETE: {e}")).status().as_u16()
    }
}

fn lifecycle(idle: Duration, max_sessions: usize) -> Lifecycle {
    Lifecycle { idle, max_sessions, request_timeout: Duration::from_secs(2), grace: Duration::from_secs(15), ..Lifecycle::default() }
}

async fn site() -> Server {
    Server::start(|seen: &Seen| match seen.path.as_str() {
        "/slow" => Reply::html(PAGE).delayed(Duration::from_millis(4_500)),
        _ => Reply::html(PAGE),
    })
    .await
}

fn ok(content: &Value) {
    assert_eq!(content["ok"], json!(true), "{content}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_ends_but_never_during_a_call() {
    let site = site().await;
    let server = Running::start(lifecycle(Duration::from_secs(3), 16), ToolSet::Whittle).await;
    let mut a = Client::new(&server.url);
    a.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    ok(&a.call("navigate", json!({"url": site.url("/").as_str()})).await.unwrap_or_else(|e| panic!("{e:?}")));

    // A call longer than the idle timeout, and the next call at once:
    // the session lives through both.
    let mut b = Client::new(&server.url);
    b.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    ok(&b.call("navigate", json!({"url": site.url("/slow").as_str()})).await.unwrap_or_else(|e| panic!("b's long call: {e:?}")));
    ok(&b.call("observe", json!({})).await.unwrap_or_else(|e| panic!("b after its long call: {e:?}")));

    // `a` has been idle for the whole of b's calls: it ended, and says so.
    let refused = a.call("observe", json!({})).await.expect_err("a's session outlived its idle timeout");
    assert_eq!(refused.status, 404, "{refused:?}");
    let body: Value = serde_json::from_str(&refused.body).unwrap_or_else(|e| panic!("{e}: {}", refused.body));
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("session expired") && message.contains("3s") && message.contains("start a new session"), "{message}");
    // A new session works at once.
    a.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    ok(&a.call("navigate", json!({"url": site.url("/").as_str()})).await.unwrap_or_else(|e| panic!("{e:?}")));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_evicts_the_longest_idle_session_or_refuses() {
    // Evictable after a minute or half the idle timeout: 1.5 s here.
    let server = Running::start(lifecycle(Duration::from_secs(3), 2), ToolSet::Whittle).await;
    let mut a = Client::new(&server.url);
    a.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    let mut b = Client::new(&server.url);
    b.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    let mut c = Client::new(&server.url);
    let refused = c.open().await.expect_err("a third session past a cap of 2 with none idle long");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains("--max-sessions") && refused.body.contains("DELETE"), "{}", refused.body);
    let wait: u64 = refused.retry_after.as_deref().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no Retry-After: {refused:?}"));
    assert!((1..=2).contains(&wait), "Retry-After {wait}");
    // Once `a` (the longest idle) may be evicted, `c` takes its place.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match c.open().await {
            Ok(()) => break,
            Err(r) if r.status == 503 && Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(r) => panic!("c never got in: {r:?}"),
        }
    }
    let gone = a.call("observe", json!({})).await.expect_err("a was evicted");
    assert_eq!(gone.status, 404);
    assert!(gone.body.contains("longest idle"), "{}", gone.body);
    b.call("observe", json!({})).await.unwrap_or_else(|e| panic!("b was not the longest idle: {e:?}"));
    c.call("observe", json!({})).await.unwrap_or_else(|e| panic!("{e:?}"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_and_unknown_ids_get_a_404_that_says_what_to_do() {
    let server = Running::start(lifecycle(Duration::from_secs(60), 16), ToolSet::AgentBrowser).await;
    let mut stranger = Client::new(&server.url);
    stranger.id = Some("not-a-session".into());
    assert_eq!(stranger.delete().await, 404, "a DELETE for an unknown session");
    let refused = stranger.call("browser_snapshot", json!({})).await.expect_err("unknown id");
    assert_eq!(refused.status, 404);
    assert!(refused.body.contains("no such session") && refused.body.contains("start a new session"), "{}", refused.body);

    let mut a = Client::new(&server.url);
    a.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    a.call("browser_snapshot", json!({})).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(a.delete().await, 204);
    let refused = a.call("browser_snapshot", json!({})).await.expect_err("deleted");
    assert_eq!(refused.status, 404);
    assert!(refused.body.contains("session ended (deleted)"), "{}", refused.body);
    assert_eq!(a.delete().await, 404, "a second DELETE");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_errors_and_other_sessions_go_on() {
    let site = site().await;
    let server = Running::start(lifecycle(Duration::from_secs(60), 16), ToolSet::Whittle).await;
    let mut good = Client::new(&server.url);
    good.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    ok(&good.call("navigate", json!({"url": site.url("/").as_str()})).await.unwrap_or_else(|e| panic!("{e:?}")));
    // The abuse has a connection pool of its own.
    let http = Client::new(&server.url).http;
    let id = good.id.clone().unwrap_or_default();

    // Not JSON, JSON that is not JSON-RPC, and a body over the limit.
    for body in [b"{not json".to_vec(), br#"{"jsonrpc":"2.0","id":1}"#.to_vec(), br#"[1,2,3]"#.to_vec(), vec![b' '; 5 * 1024 * 1024]] {
        let resp = http
            .post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("Mcp-Session-Id", &id)
            .body(body.clone())
            .send()
            .await;
        if let Ok(resp) = resp {
            let status = resp.status().as_u16();
            assert!((400..500).contains(&status) || status == 202, "{} bytes of garbage: {status}", body.len());
        }
    }
    // Refused before it is read (its Content-Length says too much): 413,
    // or the connection closed while the client still writes.
    let status = http.post(&server.url).header("Content-Type", "application/json").body(vec![b'x'; 5 * 1024 * 1024]).send().await.map(|r| r.status().as_u16()).ok();
    assert!(matches!(status, None | Some(413)), "a new session's oversized body: {status:?}");

    // A body sent a byte at a time, and headers that never end: answered
    // with 408 or closed within the request timeout.
    let addr = server.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let mut slow_body = tokio::net::TcpStream::connect(&addr).await.unwrap_or_else(|e| panic!("{e}"));
    slow_body
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut slow_headers = tokio::net::TcpStream::connect(&addr).await.unwrap_or_else(|e| panic!("{e}"));
    slow_headers.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap_or_else(|e| panic!("{e}"));
    // Meanwhile the good session is served.
    ok(&good.call("observe", json!({})).await.unwrap_or_else(|e| panic!("{e:?}")));
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), slow_body.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "a slow body held its connection past the timeout");
    assert!(answer.is_empty() || String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 408"), "{}", String::from_utf8_lossy(&answer));
    let read = tokio::time::timeout(Duration::from_secs(10), slow_headers.read_to_end(&mut Vec::new())).await;
    assert!(read.is_ok(), "slow headers held their connection past the timeout");
    // The session goes on (over a new connection: the old one idled past
    // the header timeout, which also bounds idle keep-alive).
    let again = Client { id: good.id.clone(), ..Client::new(&server.url) };
    ok(&again.call("observe", json!({})).await.unwrap_or_else(|e| panic!("{e:?}")));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_cap_are_closed_and_the_rest_served() {
    let lifecycle = Lifecycle { max_connections: 8, ..lifecycle(Duration::from_secs(60), 16) };
    let server = Running::start(lifecycle, ToolSet::Whittle).await;
    let addr = server.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let mut idle = Vec::new();
    for _ in 0..8 {
        idle.push(tokio::net::TcpStream::connect(&addr).await.unwrap_or_else(|e| panic!("{e}")));
    }
    // The ninth is accepted and closed at once.
    let mut ninth = tokio::net::TcpStream::connect(&addr).await.unwrap_or_else(|e| panic!("{e}"));
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), ninth.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "the ninth connection was kept: {read:?}");
    // Idle connections time out (no headers within the request timeout),
    // and a client gets in again.
    drop(idle);
    let mut c = Client::new(&server.url);
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Err(e) = c.open().await {
        assert!(Instant::now() < deadline, "no client got in after the cap: {e:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_lets_the_running_call_finish_then_refuses() {
    let site = site().await;
    let server = Running::start(lifecycle(Duration::from_secs(60), 16), ToolSet::Whittle).await;
    let mut a = Client::new(&server.url);
    a.open().await.unwrap_or_else(|e| panic!("{e:?}"));
    let slow = {
        let a = a.clone();
        let url = site.url("/slow").to_string();
        tokio::spawn(async move { a.call("navigate", json!({"url": url})).await })
    };
    // The call is running (the page answers after 4.5 s) when the stop
    // comes; it still gets its answer.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !site.paths().iter().any(|p| p == "/slow") {
        assert!(Instant::now() < deadline, "the slow page was never asked for");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let url = server.url.clone();
    server.stop().await;
    let answer = slow.await.unwrap_or_else(|e| panic!("{e}"));
    ok(&answer.unwrap_or_else(|e| panic!("the running call was cut off: {e:?}")));
    // Nothing listens now.
    assert!(a.http.post(&url).send().await.is_err(), "the server still answers after its stop");
}
