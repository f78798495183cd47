//! The agent-browser tool set (`whittle mcp --tools agent-browser`) on the
//! static backend against a small shop on loopback: sessions by id that
//! keep cookies and position and expire after 10 idle minutes (an
//! injected clock), reading and acting by CSS selector, the compact YAML
//! tree, and every bad input ending in a structured error. The real MCP
//! client and the schema validation are in `tests/e2e/test_compat.py`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use whittle::backend::static_http::StaticBackend;
use whittle::compat::{Answer, Clock, IDLE, Sessions};
use whittle::fetch::Limits;
use whittle::mcp::{Shared, ToolSet};
use whittle::policy::NetPolicy;
use whittle::session::SessionOptions;

use crate::server::{Reply, Seen, Server};

/// A clock the test moves by hand.
#[derive(Debug)]
struct TestClock(Mutex<Instant>);

impl TestClock {
    fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *now += by;
    }
}

impl Clock for TestClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

const PASSWORD: &str = "hunter2-Correct-Horse";

const FORM: &str = r#"<!doctype html><title>Checkout – Shop</title>
<nav aria-label="Primary"><a href="/">Home</a> <a href="/cart">Cart</a></nav>
<main><h1>Shipping</h1>
<form aria-label="Shipping" method="post" action="/review">
 <label>Email <input id="email" type="email" name="email" required></label>
 <label>Country <select id="country" name="country"><option value="US">United States</option><option value="CA">Canada</option></select></label>
 <label>Password <input id="pw" type="password" name="pw"></label>
 <button id="go">Continue to review</button>
</form>
<form action="/search"><input id="q" type="search" name="q" aria-label="Search"></form>
</main>"#;

/// `/` a product list, `/form`, `/review` (echoes the posted body),
/// `/search` (echoes the query), `/set` (sets a cookie), `/who` (shows the
/// cookies it got), `/hang` (never answers).
async fn shop() -> Server {
    Server::start(|seen: &Seen| {
        let path = seen.path.split('?').next().unwrap_or("");
        match path {
            "/" => {
                let items: String = (1..=5)
                    .map(|i| format!("<li class=item><a href=\"/p/{i}\">Lamp {i}</a> <span class=price>${i}.00</span></li>"))
                    .collect();
                Reply::html(&format!(
                    "<title>Lamps</title><main><h1>Lamps</h1><p>Hand-made lamps from our workshop, each one tested \
                     for a year before it ships to you.</p><ul>{items}</ul><p hidden class=price>$0.00</p></main>\
                     <footer>© Lamps</footer>"
                ))
            }
            "/form" => Reply::html(FORM),
            "/review" => Reply::html(&format!(
                "<title>Review – Shop</title><main><h1>Review</h1><p>Sent: {}</p></main>",
                String::from_utf8_lossy(&seen.body)
            )),
            "/search" => {
                let q = seen.path.split_once('?').map(|(_, q)| q).unwrap_or("");
                Reply::html(&format!("<title>Search – Shop</title><main><h1>Results</h1><p>Query: {q}</p></main>"))
            }
            "/set" => Reply::html("<title>Set</title><p>Cookie set.</p>").header("Set-Cookie", "visitor=ada; Path=/"),
            "/who" => {
                let cookie = seen.header("Cookie").unwrap_or("none");
                Reply::html(&format!("<title>Who</title><p>Cookies: {cookie}.</p>"))
            }
            "/hang" => Reply::Hang,
            _ => Reply::page(404, "text/html", b"<title>Not found</title><p>Not here.</p>"),
        }
    })
    .await
}

fn sessions(clock: Arc<TestClock>, nav_timeout: Duration) -> Arc<Sessions> {
    let limits = Limits { total_timeout: nav_timeout, ..Limits::default() };
    let shared = Shared::with_tools(Arc::new(StaticBackend), limits, Arc::new(NetPolicy::open()), SessionOptions::default(), ToolSet::AgentBrowser);
    Sessions::new(shared, clock, IDLE)
}

fn clock() -> Arc<TestClock> {
    Arc::new(TestClock(Mutex::new(Instant::now())))
}

/// The result of a call that must succeed.
async fn ok(s: &Arc<Sessions>, tool: &str, args: Value) -> Value {
    let answer: Answer = s.call(tool, args.clone()).await;
    match answer.result {
        Ok(v) => v,
        Err(f) => panic!("{tool} {args}: {f}"),
    }
}

/// The code of a call that must fail.
async fn code(s: &Arc<Sessions>, tool: &str, args: Value) -> String {
    match s.call(tool, args.clone()).await.result {
        Ok(v) => panic!("{tool} {args}: expected an error, got {v}"),
        Err(f) => {
            assert!(!f.message.is_empty(), "{tool}: an error without a message");
            f.code
        }
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("no {key} in {v}")).to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_keep_cookies_and_position_until_ten_idle_minutes_pass() {
    let shop = shop().await;
    let clock = clock();
    let s = sessions(clock.clone(), Duration::from_secs(10));
    let nav = |id: &str, path: &str| json!({"session_id": id, "url": shop.url(path).as_str()});

    let set = ok(&s, "browser_navigate", nav("a", "/set")).await;
    assert_eq!(text(&set, "session_id"), "a");
    assert_eq!(text(&set, "title"), "Set");
    let who = ok(&s, "browser_navigate", nav("a", "/who")).await;
    assert!(text(&who, "text").contains("visitor=ada"), "the cookie was kept: {who}");
    // Another id is another browser.
    let other = ok(&s, "browser_navigate", nav("b", "/who")).await;
    assert!(text(&other, "text").contains("Cookies: none"), "{other}");

    // Position: the session is still on /who nine minutes later, and that
    // call counts as use.
    clock.advance(Duration::from_secs(9 * 60));
    let page = ok(&s, "browser_extract", json!({"session_id": "a"})).await;
    assert!(page["results"][0].as_str().unwrap_or_default().contains("visitor=ada"), "{page}");
    clock.advance(Duration::from_secs(9 * 60));
    assert_eq!(s.sweep(), 1, "b, idle for 18 minutes, went; a was used 9 minutes ago");
    assert_eq!(s.ids(), ["a"]);

    // Ten idle minutes: a is gone, and its id starts a fresh browser.
    clock.advance(IDLE + Duration::from_secs(1));
    assert_eq!(code(&s, "browser_extract", json!({"session_id": "a"})).await, "NO_PAGE");
    let fresh = ok(&s, "browser_navigate", nav("a", "/who")).await;
    assert!(text(&fresh, "text").contains("Cookies: none"), "an expired id starts afresh: {fresh}");

    // Closing always succeeds, known id or not; after it the id is fresh.
    for id in ["a", "never-seen"] {
        let closed = ok(&s, "browser_close", json!({"session_id": id})).await;
        assert_eq!(closed, json!({"closed": true, "session_id": id}));
    }
    assert!(s.ids().is_empty(), "{:?}", s.ids());
    assert_eq!(code(&s, "browser_snapshot", json!({"session_id": "a"})).await, "NO_PAGE");
}

#[tokio::test(flavor = "multi_thread")]
async fn extract_reads_by_selector_and_navigate_gives_the_main_text() {
    let shop = shop().await;
    let s = sessions(clock(), Duration::from_secs(10));
    let home = ok(&s, "browser_navigate", json!({"session_id": "x", "url": shop.url("/").as_str()})).await;
    assert_eq!(text(&home, "url"), shop.url("/").as_str());
    let main = text(&home, "text");
    assert!(main.contains("Hand-made lamps") && main.contains("Lamp 3"), "{main}");
    assert!(!main.contains("© Lamps"), "the main text leaves the footer out: {main}");

    let prices = ok(&s, "browser_extract", json!({"session_id": "x", "selector": ".item .price"})).await;
    assert_eq!(prices, json!({"results": ["$1.00", "$2.00", "$3.00", "$4.00", "$5.00"], "count": 5}));
    // One string per match, hidden ones too (empty: a person sees nothing).
    let all = ok(&s, "browser_extract", json!({"session_id": "x", "selector": ".price"})).await;
    assert_eq!(all["count"], 6);
    assert_eq!(all["results"][5], "");
    let links = ok(&s, "browser_extract", json!({"session_id": "x", "selector": "li a", "attribute": "href"})).await;
    assert_eq!(links["results"][0].as_str(), Some(shop.url("/p/1").as_str()), "hrefs come back absolute: {links}");
    let whole = ok(&s, "browser_extract", json!({"session_id": "x"})).await;
    let whole = whole["results"][0].as_str().unwrap_or_default().to_owned();
    assert!(whole.contains("© Lamps") && whole.contains("Lamp 5"), "no selector: the full page text: {whole}");

    assert_eq!(code(&s, "browser_extract", json!({"session_id": "x", "selector": "li["})).await, "INVALID_SELECTOR");
    let bad = s.call("browser_extract", json!({"session_id": "x", "selector": "li["})).await;
    assert!(bad.result.as_ref().err().is_some_and(|f| f.message.contains("\"li[\"")), "the error names the selector");
    let none = ok(&s, "browser_extract", json!({"session_id": "x", "selector": ".nothing"})).await;
    assert_eq!(none, json!({"results": [], "count": 0}));
}

#[tokio::test(flavor = "multi_thread")]
async fn interact_fills_selects_submits_and_presses_by_selector() {
    let shop = shop().await;
    let s = sessions(clock(), Duration::from_secs(10));
    let id = json!("f");
    ok(&s, "browser_navigate", json!({"session_id": id, "url": shop.url("/form").as_str()})).await;
    let act = |action: &str, selector: &str, value: Option<&str>| {
        let mut args = json!({"session_id": id, "action": action, "selector": selector});
        if let Some(v) = value {
            args["value"] = json!(v);
        }
        args
    };
    let filled = ok(&s, "browser_interact", act("fill", "#email", Some("ada@example.com"))).await;
    assert_eq!(filled["success"], true);
    assert_eq!(text(&filled, "title"), "Checkout – Shop");
    ok(&s, "browser_interact", act("select", "#country", Some("Canada"))).await;
    ok(&s, "browser_interact", act("type", "#pw", Some(PASSWORD))).await;

    // The YAML tree: roles, names, states, values; never the password.
    let snap = ok(&s, "browser_snapshot", json!({"session_id": id})).await;
    let yaml = text(&snap, "snapshot");
    for line in [
        "- navigation \"Primary\":",
        "  - link \"Home\"",
        "- heading \"Shipping\" [level=1]",
        "- textbox \"Email\" [required]: ada@example.com",
        "- combobox \"Country\": Canada",
        "- textbox \"Password\"",
        "- button \"Continue to review\"",
    ] {
        assert!(yaml.lines().any(|l| l.trim_start() == line.trim_start()), "no {line:?} in:\n{yaml}");
    }
    assert!(!yaml.contains(PASSWORD), "{yaml}");
    let pw = ok(&s, "browser_extract", json!({"session_id": id, "selector": "#pw", "attribute": "value"})).await;
    assert_eq!(pw["results"][0], "", "a password field's value never leaves");

    let sent = ok(&s, "browser_interact", act("submit", "#go", None)).await;
    assert_eq!(text(&sent, "url"), shop.url("/review").as_str());
    let body = text(&sent, "text");
    assert!(body.contains("email=ada%40example.com") && body.contains("country=CA"), "{body}");
    assert!(!body.contains(PASSWORD) && !sent.to_string().contains(PASSWORD), "the typed password is not echoed back: {body}");

    ok(&s, "browser_navigate", json!({"session_id": id, "url": shop.url("/form").as_str()})).await;
    ok(&s, "browser_interact", act("fill", "#q", Some("brass lamp"))).await;
    let searched = ok(&s, "browser_interact", act("press", "#q", None)).await;
    assert!(text(&searched, "text").contains("Query: q=brass+lamp"), "press defaults to Enter: {searched}");
    ok(&s, "browser_navigate", json!({"session_id": id, "url": shop.url("/form").as_str()})).await;
    let home = ok(&s, "browser_interact", act("click", "nav a", None)).await;
    assert_eq!(text(&home, "title"), "Lamps");

    assert_eq!(code(&s, "browser_interact", act("click", "#missing", None)).await, "NOT_FOUND");
    assert_eq!(code(&s, "browser_interact", act("click", "a[", None)).await, "INVALID_SELECTOR");
    for action in ["fill", "type", "select"] {
        assert_eq!(code(&s, "browser_interact", act(action, "#email", None)).await, "INVALID_ARGS", "{action} without value");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_ends_in_the_seed_error_codes() {
    let shop = shop().await;
    let s = sessions(clock(), Duration::from_secs(2));
    let nav = |url: &str| json!({"session_id": "e", "url": url});
    for url in ["/relative", "ftp://example.com/", "example.com", "", "http://"] {
        assert_eq!(code(&s, "browser_navigate", nav(url)).await, "INVALID_URL", "{url:?}");
    }
    // Nothing listens on port 9 of loopback here.
    assert_eq!(code(&s, "browser_navigate", nav("http://127.0.0.1:9/")).await, "NAV_FAILED");
    assert_eq!(code(&s, "browser_navigate", nav(shop.url("/hang").as_str())).await, "NAV_TIMEOUT");
    let waited = json!({"session_id": "e", "url": shop.url("/").as_str(), "wait_for": "#never"});
    assert_eq!(code(&s, "browser_navigate", waited).await, "NAV_TIMEOUT");
    let found = json!({"session_id": "e", "url": shop.url("/").as_str(), "wait_for": "li.item"});
    ok(&s, "browser_navigate", found).await;

    // Arguments outside the schemas.
    for (tool, args) in [
        ("browser_navigate", json!({"session_id": "e"})),
        ("browser_navigate", json!({"session_id": "e", "url": 5})),
        ("browser_navigate", json!({"session_id": "e", "url": "http://x/", "extra": true})),
        ("browser_extract", json!({"session_id": ""})),
        ("browser_extract", json!({})),
        ("browser_interact", json!({"session_id": "e", "action": "hover", "selector": "a"})),
        ("browser_screenshot", json!({"session_id": "e", "full_page": "yes"})),
        ("browser_close", json!({"session_id": 7})),
        ("browser_open", json!({"session_id": "e"})),
    ] {
        assert_eq!(code(&s, tool, args.clone()).await, "INVALID_ARGS", "{tool} {args}");
    }
    // The session survived all of it.
    let page = ok(&s, "browser_extract", json!({"session_id": "e", "selector": "h1"})).await;
    assert_eq!(page["results"][0], "Lamps");
}
