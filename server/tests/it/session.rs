//! A browsing session on the static backend against a small shop served on
//! loopback: navigate, act with diffs, forms sent as HTML says, tabs, refs
//! and snapshots, and bad input that ends in `ok: false` with a code while
//! the session keeps working.

use std::sync::Arc;

use serde_json::{Value, json};
use whittle::backend::static_http::StaticBackend;
use whittle::fetch::{Fetcher, Limits};
use whittle::session::{Session, SessionOptions, ToolOutput};

use crate::server::{Reply, Seen, Server};

const CHECKOUT: &str = r#"<!doctype html><title>Checkout – Shop</title>
<nav aria-label="Primary"><a href="/">Home</a> <a href="/help" target="_blank">Help</a></nav>
<main><h1>Shipping</h1>
<form aria-label="Shipping" method="post" action="/review">
 <label>Email <input type="email" name="email" required></label>
 <label>Country <select name="country"><option value="US">United States</option><option value="CA">Canada</option><option value="MX">Mexico</option></select></label>
 <p><label><input type="checkbox" name="gift"> This is a gift</label></p>
 <p><label><input type="radio" name="shipping" value="standard" checked> Standard</label>
 <label><input type="radio" name="shipping" value="express"> Express</label></p>
 <p><label>Password <input type="password" name="pw"></label></p>
 <button>Continue to review</button>
</form>
<form aria-label="Search" action="/search"><input type="search" name="q" aria-label="Search"></form>
<style>#more { display: none } #show:checked ~ #more { display: block }</style>
<input type="checkbox" id="show" aria-label="Show details">
<div id="more">{MORE}</div>
</main>"#;

/// A page that a checkbox turns into another page (CSS only).
const TOGGLE: &str = "<title>Toggle</title><style>#more { display: none } #show:checked ~ #more { display: block }</style>\
    <input type=checkbox id=show aria-label=\"Show details\"><div id=more><h2>Details</h2><p>One.</p><p>Two.</p><p>Three.</p></div>";

fn checkout() -> String {
    let more: String = (1..=60).map(|i| format!("<p>Detail number {i} of the order terms.</p>")).collect();
    CHECKOUT.replace("{MORE}", &more)
}

/// The shop: `/checkout`, `/review` (echoes the form body), `/search`
/// (echoes the query), `/help`, `/img` (not a page) and 404 elsewhere.
async fn shop() -> Server {
    let page = checkout();
    Server::start(move |seen: &Seen| {
        let path = seen.path.split('?').next().unwrap_or("");
        match path {
            "/checkout" => Reply::html(&page),
            "/review" if seen.method == "POST" => {
                let body = String::from_utf8_lossy(&seen.body);
                Reply::html(&format!("<title>Review – Shop</title><main><h1>Review</h1><p>Sent: {body}</p></main>"))
            }
            "/search" => {
                let q = seen.path.split_once('?').map(|(_, q)| q).unwrap_or("");
                Reply::html(&format!("<title>Search – Shop</title><main><h1>Results</h1><p>Query: {q}</p></main>"))
            }
            "/help" => Reply::html("<title>Help</title><main><h1>Help</h1></main>"),
            "/toggle" => Reply::html(TOGGLE),
            "/img" => Reply::page(200, "image/png", b"\x89PNG\r\n"),
            _ => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

pub(crate) async fn session() -> Session {
    let fetcher = Fetcher::new(Limits::default(), None).unwrap_or_else(|e| panic!("{e}"));
    Session::new(Arc::new(StaticBackend), fetcher, SessionOptions::default()).await.unwrap_or_else(|e| panic!("{e}"))
}

/// Calls a tool and checks that the envelope agrees with itself (shared
/// with the other session tests).
pub(crate) async fn call(s: &mut Session, tool: &str, args: Value) -> ToolOutput {
    let out = s.call(tool, args).await;
    let v = serde_json::to_value(&out.envelope).unwrap_or_default();
    assert_eq!(v["server"]["tool"], tool);
    assert_eq!(v["ok"].as_bool(), Some(out.envelope.ok), "{v}");
    out
}

pub(crate) fn ok(out: &ToolOutput) -> &str {
    assert!(out.envelope.ok, "expected ok, got:\n{}\n{:?}", out.text, out.envelope.server.error);
    &out.text
}

pub(crate) fn code(out: &ToolOutput) -> &str {
    assert!(!out.envelope.ok, "expected an error, got:\n{}", out.text);
    out.envelope.server.error.as_ref().map(|e| e.code.as_str()).unwrap_or("")
}

/// The ref of the element with this role and name in the observation.
fn ref_of(out: &ToolOutput, role: &str, name: &str) -> u32 {
    let elements = &out.envelope.page_content.as_ref().unwrap_or_else(|| panic!("no page content")).elements;
    elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .map(|e| e.ref_id)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", out.text))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_checkout_typed_chosen_and_sent_as_a_form() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let port = server.url("/").port().unwrap_or(0);
    assert!(ok(&page).starts_with(&format!("# Checkout – Shop · 127.0.0.1:{port}/checkout\n")), "{}", page.text);
    let email = ref_of(&page, "textbox", "Email");
    let country = ref_of(&page, "combobox", "Country");
    let gift = ref_of(&page, "checkbox", "This is a gift");
    let express = ref_of(&page, "radio", "Express");
    let standard = ref_of(&page, "radio", "Standard");
    let form = ref_of(&page, "form", "Shipping");

    let typed = call(&mut s, "act", json!({"do": "type", "ref": email, "text": "jane@example.com"})).await;
    assert_eq!(
        ok(&typed),
        format!(
            "✓ type [{email}] textbox \"Email\" \"jane@example.com\"\nΔ +0 −0 ~1\n@ [{form}] form \"Shipping\"\n\
             ~ [{email}] textbox \"Email\" = \"jane@example.com\" required\n"
        )
    );
    let chosen = call(&mut s, "act", json!({"do": "select", "ref": country, "values": ["canada"]})).await;
    assert!(ok(&chosen).contains(&format!("~ [{country}] combobox \"Country\" = \"Canada\"")), "{}", chosen.text);
    // A batch: the gift box, then Express by its label text.
    let batch = call(&mut s, "act", json!({"steps": [{"do": "check", "ref": gift}, {"do": "click", "text": "Express"}]})).await;
    let text = ok(&batch);
    assert!(
        text.starts_with(&format!(
            "✓ check [{gift}] checkbox \"This is a gift\"\n✓ click [{express}] radio \"Express\"\nΔ +0 −0 ~2\n"
        )),
        "{text}"
    );
    assert!(text.contains(&format!("~ [{standard}] radio \"Standard\" [{express}] radio \"Express\" checked")), "{text}");

    let sent = call(&mut s, "act", json!({"do": "click", "text": "Continue to review"})).await;
    let text = ok(&sent);
    assert!(text.contains(&format!("→ 127.0.0.1:{port}/checkout → 127.0.0.1:{port}/review · \"Review – Shop\"\n# Review")), "{text}");
    let post = server.log().into_iter().rfind(|r| r.method == "POST").unwrap_or_else(|| panic!("no POST"));
    assert_eq!(String::from_utf8_lossy(&post.body), "email=jane%40example.com&country=CA&gift=on&shipping=express&pw=");
    assert_eq!(post.header("content-type"), Some("application/x-www-form-urlencoded"));
    assert!(text.contains("Sent: email=jane%40example.com"), "{text}");
    // The old page's refs are gone with it.
    let stale = call(&mut s, "act", json!({"do": "type", "ref": email, "text": "x"})).await;
    assert_eq!(code(&stale), "unknown_ref");

    // Back to the form answer: a POST is not sent again without confirm.
    let back = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert!(ok(&back).contains("# Checkout – Shop"), "{}", back.text);
    let forward = call(&mut s, "navigate", json!({"url": "forward"})).await;
    assert_eq!(code(&forward), "confirm_needed");
    let again = call(&mut s, "navigate", json!({"url": "forward", "confirm": true})).await;
    assert!(ok(&again).contains("# Review – Shop"));
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_the_field_and_stop_the_batch() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let email = ref_of(&page, "textbox", "Email");
    let gift = ref_of(&page, "checkbox", "This is a gift");
    let submit = ref_of(&page, "button", "Continue to review");
    let out = call(
        &mut s,
        "act",
        json!({"steps": [{"do": "check", "ref": gift}, {"do": "click", "ref": submit}, {"do": "type", "ref": email, "text": "x"}]}),
    )
    .await;
    assert_eq!(code(&out), "invalid_form");
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines[0], format!("✓ check [{gift}] checkbox \"This is a gift\""));
    assert_eq!(lines[1], format!("✗ click [{submit}] button \"Continue to review\": [{email}] textbox \"Email\" is required"));
    assert_eq!(lines[2], format!("· not run: type [{email}]"));
    // The step that ran changed the page; the diff says so.
    assert!(out.text.contains(&format!("~ [{gift}] checkbox \"This is a gift\" checked")), "{}", out.text);
    assert!(server.log().iter().all(|r| r.method != "POST"), "an invalid form was sent");

    let typed_into_a_box = call(&mut s, "act", json!({"do": "type", "ref": gift, "text": "x"})).await;
    assert_eq!(code(&typed_into_a_box), "not_actionable");
    assert!(typed_into_a_box.text.contains("is not a text field"), "{}", typed_into_a_box.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_is_typed_but_never_echoed() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let pw = ref_of(&page, "textbox", "Password");
    let out = call(&mut s, "act", json!({"do": "type", "ref": pw, "text": "hunter2-secret"})).await;
    assert!(ok(&out).starts_with(&format!("✓ type [{pw}] textbox \"Password\" (14 characters)\n")), "{}", out.text);
    let all = format!("{}{}", out.text, serde_json::to_string(&out.envelope).unwrap_or_default());
    assert!(!all.contains("hunter2"), "{all}");
}

/// The static engine draws nothing: `observe` with `image` is the
/// observation it would be without, plus a notice saying why there is no
/// picture, never a failed call.
#[tokio::test(flavor = "multi_thread")]
async fn observe_with_an_image_on_the_static_engine_is_the_observation_and_a_notice() {
    let server = shop().await;
    let mut s = session().await;
    ok(&call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await);
    let plain = call(&mut s, "observe", json!({})).await;
    let out = call(&mut s, "observe", json!({"image": true})).await;
    let text = ok(&out);
    assert!(out.image.is_none(), "a picture from the static engine");
    let notice = "no image (engine_unavailable): ";
    assert!(out.envelope.server.notices.iter().any(|n| n.starts_with(notice)), "{:?}", out.envelope.server.notices);
    // Right after the header, and nothing else changes.
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with(&format!("⚠ {notice}")), "{text}");
    lines.remove(1);
    assert_eq!(format!("{}\n", lines.join("\n")), plain.text);
    let (with, without) = (serde_json::to_value(&out.envelope).unwrap_or_default(), serde_json::to_value(&plain.envelope).unwrap_or_default());
    assert!(with["server"].get("image").is_none(), "{with}");
    assert_eq!(with["server"]["counters"], without["server"]["counters"]);
    assert_eq!(with["server"]["snapshot_id"], without["server"]["snapshot_id"]);
    assert_eq!(with["page_content"], without["page_content"]);
    assert_eq!(with["server"]["counters"]["marks"], json!(out.envelope.page_content.as_ref().map_or(0, |p| p.elements.len())));
    // The wrong type is an argument error naming it.
    let bad = call(&mut s, "observe", json!({"image": "yes"})).await;
    assert_eq!(code(&bad), "invalid_args");
    assert!(bad.text.contains("image"), "{}", bad.text);
}

/// Observing a page that has not changed gives the view rendered before;
/// every change (CSS the action turns on, a typed value, another view in
/// between) shows in the next observation.
#[tokio::test(flavor = "multi_thread")]
async fn observe_again_is_the_same_view_until_the_page_changes() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/toggle").as_str()})).await;
    let show = ref_of(&page, "checkbox", "Show details");
    let first = call(&mut s, "observe", json!({})).await;
    assert!(!ok(&first).contains("Details"), "{}", first.text);
    assert_eq!(ok(&call(&mut s, "observe", json!({})).await), first.text);
    ok(&call(&mut s, "act", json!({"do": "check", "ref": show})).await);
    let checked = call(&mut s, "observe", json!({})).await;
    assert!(ok(&checked).contains(&format!("[{show}] checkbox \"Show details\" checked\nh2 Details\n")), "{}", checked.text);

    call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let form = call(&mut s, "observe", json!({})).await;
    // A smaller budget is folded anew, and leaves the default view as it was.
    let small = call(&mut s, "observe", json!({"budget": 60})).await;
    assert!(ok(&small).len() < form.text.len(), "{}", small.text);
    assert_eq!(ok(&call(&mut s, "observe", json!({})).await), form.text);
    let email = ref_of(&form, "textbox", "Email");
    ok(&call(&mut s, "act", json!({"do": "type", "ref": email, "text": "jane@example.com"})).await);
    let typed = call(&mut s, "observe", json!({})).await;
    assert!(ok(&typed).contains(&format!("[{email}] textbox \"Email\" = \"jane@example.com\"")), "{}", typed.text);
    ok(&call(&mut s, "act", json!({"do": "clear", "ref": email})).await);
    let cleared = call(&mut s, "observe", json!({})).await;
    assert!(!ok(&cleared).contains("jane@example.com"), "{}", cleared.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_in_a_search_field_sends_its_form_and_links_open_tabs() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let search = ref_of(&page, "searchbox", "Search");
    let out = call(&mut s, "act", json!({"steps": [{"do": "type", "ref": search, "text": "desk lamp"}, {"do": "press", "key": "Enter"}]})).await;
    assert!(ok(&out).contains("Query: q=desk+lamp"), "{}", out.text);

    let back = call(&mut s, "navigate", json!({"url": "back"})).await;
    let help = ref_of(&back, "link", "Help");
    let opened = call(&mut s, "act", json!({"do": "click", "ref": help})).await;
    let text = ok(&opened);
    assert!(text.contains("⧉ new tab 2 opened (now active)\n# Help"), "{text}");
    assert_eq!(opened.envelope.server.tab_id, "2");
    // A ref of tab 1 is refused on tab 2, and names its tab.
    let wrong = call(&mut s, "act", json!({"do": "click", "ref": help})).await;
    assert_eq!(code(&wrong), "unknown_ref");
    assert!(wrong.text.contains("is on tab 1"), "{}", wrong.text);
    let list = call(&mut s, "tabs", json!({"op": "list"})).await;
    assert!(ok(&list).contains("  1 127.0.0.1:") && list.text.contains("* 2 127.0.0.1:"), "{}", list.text);
    let switched = call(&mut s, "tabs", json!({"op": "switch", "index": 1})).await;
    assert!(ok(&switched).contains("# Checkout – Shop"));
    let closed = call(&mut s, "tabs", json!({"op": "close", "index": 2})).await;
    assert!(ok(&closed).starts_with("tab 2 closed\n* 1 "), "{}", closed.text);
    let again = call(&mut s, "act", json!({"do": "click", "ref": help})).await;
    assert!(ok(&again).contains("⧉ new tab 2 opened"));
}

#[tokio::test(flavor = "multi_thread")]
async fn what_css_shows_comes_as_a_diff_or_as_the_page_and_snapshots_go_stale() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let first = page.envelope.server.snapshot_id.clone();
    let show = ref_of(&page, "checkbox", "Show details");
    // `:checked ~ #more` shows 60 paragraphs: the cascade runs again, and
    // the fold keeps the diff small.
    let out = call(&mut s, "act", json!({"do": "check", "ref": show, "snapshot_id": first})).await;
    let text = ok(&out);
    assert!(text.contains("\n+ Detail number 1 of the order terms.\n"), "{text}");
    assert!(text.contains("\n~ # Checkout – Shop · "), "the page got longer: {text}");

    let unknown = call(&mut s, "act", json!({"do": "uncheck", "ref": show, "snapshot_id": "0000"})).await;
    assert_eq!(code(&unknown), "snapshot_stale");
    // On a page the box turns into another, the diff would cost more than
    // three quarters of the view: the view comes instead.
    let toggle = call(&mut s, "navigate", json!({"url": server.url("/toggle").as_str()})).await;
    let show_here = ref_of(&toggle, "checkbox", "Show details");
    let out = call(&mut s, "act", json!({"do": "check", "ref": show_here})).await;
    let port = server.url("/").port().unwrap_or(0);
    assert_eq!(ok(&out), format!("✓ check [{show_here}] checkbox \"Show details\"\n# Toggle · 127.0.0.1:{port}/toggle\n[{show_here}] checkbox \"Show details\" checked\nh2 Details\nOne.\nTwo.\nThree.\n"));
    let gone = call(&mut s, "act", json!({"do": "uncheck", "ref": show, "snapshot_id": first})).await;
    assert_eq!(code(&gone), "snapshot_stale");
}

#[tokio::test(flavor = "multi_thread")]
async fn find_extract_and_wait_answer_about_the_page() {
    let server = shop().await;
    let mut s = session().await;
    let page = call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let submit = ref_of(&page, "button", "Continue to review");
    let found = call(&mut s, "find", json!({"q": "role:button review"})).await;
    assert!(ok(&found).starts_with("1 match for role:button \"review\"\n"), "{}", found.text);
    assert!(found.text.contains(&format!("[{submit}] button \"Continue to review\"")));
    let bad = call(&mut s, "find", json!({"q": "css:[[["})).await;
    assert_eq!(code(&bad), "invalid_args");
    let text = call(&mut s, "extract", json!({"kind": "links"})).await;
    assert!(ok(&text).contains("/help"), "{}", text.text);
    let waited = call(&mut s, "wait", json!({"text": "shipping", "ms": 10})).await;
    assert!(ok(&waited).starts_with("✓ \"shipping\" is on the page\n"), "{}", waited.text);
    let absent = call(&mut s, "wait", json!({"text": "Order placed"})).await;
    assert_eq!(code(&absent), "wait_timeout");
    let person = call(&mut s, "wait", json!({"user": true})).await;
    assert!(ok(&person).starts_with("⏸ "), "{}", person.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_gives_codes_and_the_session_keeps_working() {
    let server = shop().await;
    let mut s = session().await;
    let empty = call(&mut s, "observe", json!({})).await;
    assert_eq!(code(&empty), "no_page");
    call(&mut s, "navigate", json!({"url": server.url("/checkout").as_str()})).await;
    let closed_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        l.local_addr().map(|a| a.port()).unwrap_or(1)
    };
    let cases = [
        ("act", json!({"do": 5}), "invalid_args"),
        ("act", json!({"do": "fly"}), "invalid_args"),
        ("act", json!({"do": "type", "ref": 1}), "invalid_args"),
        ("act", json!({"do": "click", "ref": 99999}), "unknown_ref"),
        ("act", json!({}), "invalid_args"),
        ("observe", json!({"mode": "everything"}), "invalid_args"),
        ("observe", json!({"ref": 99999}), "unknown_ref"),
        ("navigate", json!({"url": "javascript:alert(1)"}), "invalid_url"),
        ("navigate", json!({"url": "ftp://127.0.0.1/x"}), "invalid_url"),
        ("navigate", json!({"url": format!("http://127.0.0.1:{closed_port}/")}), "nav_failed"),
        ("navigate", json!({"url": server.url("/img").as_str()}), "nav_failed"),
        ("navigate", json!({"nope": 1}), "invalid_args"),
        ("tabs", json!({"op": "switch", "index": 7}), "invalid_args"),
        ("teleport", json!({}), "invalid_args"),
    ];
    for (tool, args, want) in cases {
        let out = s.call(tool, args.clone()).await;
        assert_eq!(code(&out), want, "{tool} {args}: {}", out.text);
        assert!(out.text.starts_with('✗'), "{}", out.text);
        let still = call(&mut s, "observe", json!({})).await;
        assert!(ok(&still).starts_with("# Checkout – Shop"), "after {tool} {args}: {}", still.text);
    }
    let named = s.call("act", json!({"do": "fly"})).await;
    assert!(named.text.contains("do: unknown variant `fly`"), "{}", named.text);
    // An HTTP error page is a page, with a notice.
    let missing = call(&mut s, "navigate", json!({"url": server.url("/nowhere").as_str()})).await;
    assert!(ok(&missing).contains("\n⚠ HTTP 404 Not Found\n"), "{}", missing.text);
    assert_eq!(missing.envelope.server.notices, ["HTTP 404 Not Found"]);
}

/// A page that refreshes to another at once reads as that page, with the
/// back button skipping it, as in a browser; one that refreshes later,
/// refreshes itself, or refreshes in a loop is shown as it is.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_refreshes_at_once_is_the_page_it_refreshes_to() {
    let server = Server::start(|seen: &Seen| {
        let refresh = |content: &str| Reply::html(&format!("<title>Moved</title><meta http-equiv=Refresh content=\"{content}\"><p>This page has moved.</p>"));
        match seen.path.as_str() {
            "/start" => Reply::html("<title>Start</title><h1>Start</h1>"),
            "/moved" => refresh("0; URL='/new?from=moved'"),
            "/soon" => refresh("1;/new"),
            "/later" => refresh("5; url=/new"),
            "/self" => refresh("0"),
            "/loop" => refresh("0;url=/loop-b"),
            "/loop-b" => refresh("0;url=/loop"),
            p if p.starts_with("/new") => Reply::html("<title>New home</title><h1>The new home</h1>"),
            _ => Reply::page(404, "text/html", b"<title>Not found</title>"),
        }
    })
    .await;
    let mut s = session().await;
    ok(&call(&mut s, "navigate", json!({"url": server.url("/start").as_str()})).await);
    for path in ["/moved", "/soon"] {
        let out = call(&mut s, "navigate", json!({"url": server.url(path).as_str()})).await;
        let text = ok(&out);
        assert!(text.contains("\n# New home · ") && text.contains("h1 The new home"), "{path}: {text}");
    }
    // The refresh came from the refreshing page.
    let log = server.log();
    let sent = log.iter().find(|r| r.path == "/new?from=moved").unwrap_or_else(|| panic!("no /new request: {:?}", server.paths()));
    assert_eq!(sent.header("referer"), Some(server.url("/moved").as_str()));
    // Back: the page before the refreshing one.
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert!(ok(&out).contains("h1 The new home"), "{}", out.text);
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert!(ok(&out).contains("h1 Start"), "{}", out.text);
    for path in ["/later", "/self", "/loop"] {
        let out = call(&mut s, "navigate", json!({"url": server.url(path).as_str()})).await;
        assert!(ok(&out).contains("This page has moved."), "{path}: {}", out.text);
    }
    // The loop was followed as far as redirects are, no further.
    let loops = server.paths().iter().filter(|p| p.starts_with("/loop")).count();
    assert_eq!(loops, 1 + Limits::default().max_redirects, "{:?}", server.paths());
}

#[tokio::test]
async fn what_a_site_hides_through_imported_stylesheets_is_not_listed() {
    // A documentation theme, as Sphinx writes it: the linked sheet imports
    // the base theme, which hides each heading's permalink anchor.
    let server = Server::start(|seen: &Seen| match seen.path.as_str() {
        "/docs/page.html" => Reply::html(
            "<title>Docs</title><link rel=stylesheet href=_static/theme.css>\
             <h1>Install<a class=headerlink href=#install title='Link to this heading'>¶</a></h1>\
             <h2>Usage<a class=headerlink href=#usage>¶</a></h2><p><a href=/docs/next.html>Next</a>",
        ),
        "/docs/_static/theme.css" => Reply::page(200, "text/css", b"@import url(\"basic.css\"); h1 { color: #222 }"),
        "/docs/_static/basic.css" => Reply::page(200, "text/css", b"a.headerlink { visibility: hidden }"),
        _ => Reply::page(404, "text/html", b"<title>Not found</title>"),
    })
    .await;
    let mut s = session().await;
    let out = call(&mut s, "navigate", json!({"url": server.url("/docs/page.html").as_str()})).await;
    let text = ok(&out);
    assert!(!text.contains('¶') && text.contains("Next"), "{text}");
    assert!(!text.contains("stylesheet"), "no sheet failed: {text}");
}
