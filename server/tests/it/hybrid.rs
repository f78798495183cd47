//! One tab over both engines, against two loopback sites (two origins of
//! one host, so they share cookies): a site of plain pages and a site of
//! apps. Each document goes to the engine it needs; history, cookies, what
//! was typed and refs move with the tab; a request nothing answers does
//! not hold a page; a Chromium that dies mid-session costs a notice, not
//! the tab. Run by `chromium.rs` on its one Chromium.

use std::time::Duration;

use serde_json::json;
use whittle::backend::Backend;
use whittle::backend::auto::AutoBackend;

use crate::chromium::{engine, session};
use crate::server::{Reply, Seen, Server};
use crate::session::{call, ok};

/// An app: nothing but a root its script fills. It sets a cookie from the
/// script and says which cookies it sees.
const APP: &str = r#"<!doctype html><title>Field app</title><div id="root"></div>
<script>
document.cookie = 'fromjs=2; path=/';
const seen = document.cookie.split('; ').map(c => c.split('=')[0]);
document.getElementById('root').innerHTML =
  '<main><h1>App home</h1><p id="odd">odd cookie: ' + (seen.includes('odd') ? 'yes' : 'no') + '</p>' +
  '<p>c0 cookie: ' + (seen.includes('c0') ? 'yes' : 'no') + '</p>' +
  '<a href="{PLAIN}">Back to the article</a> <a href="/other">Another app page</a> <a href="/file.txt">Statement</a></main>';
</script>"#;

/// An app page that renders, then asks for data nothing answers.
const WAITING: &str = r#"<!doctype html><title>Waiting</title><div id="root"></div>
<script>
document.getElementById('root').innerHTML = '<main><h1>Rendered</h1><p>The list below fills when the data comes.</p></main>';
fetch('/hang').then(r => r.text()).then(t => { document.querySelector('p').textContent = t; });
</script>"#;

/// An app page with an image nothing answers: it never fires `load`.
const IMAGE: &str = r#"<!doctype html><title>Gallery</title><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<main><h1>Gallery</h1><img src="/hang" alt="A view of the hills"></main>';</script>"#;

/// An app page whose second script nothing answers: the parser waits.
const STUCK: &str = r#"<!doctype html><title>Stuck</title><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<main><h1>Before the script</h1></main>';</script>
<script src="/hang"></script><p>After the script</p>"#;

/// An app page whose script sends the tab on at once, to `{TO}`.
const ONWARD: &str = r#"<!doctype html><title>Moving</title><div id="root"></div>
<script>location.replace('{TO}');</script>"#;

const ARTICLE: &str = "<main><h1>Rain returns</h1><p>The first heavy rain of the year fell over the valley on Tuesday night, filling the reservoirs by a third.</p><p>Farmers said it came just in time for the barley.</p></main>";

/// The plain site: an article linking to the app, a page that sets many
/// cookies, one that says which cookies it was sent, a redirect to the app,
/// and a page its stylesheet hides until its script shows it.
async fn plain_site(app: &Server) -> Server {
    let app_url = app.url("/app").to_string();
    Server::start(move |seen: &Seen| {
        let path = seen.path.split('?').next().unwrap_or("");
        // The app links back here: it is told where here is.
        let back = format!("{app_url}?plain=http://{}/plain", seen.header("host").unwrap_or(""));
        match path {
            "/plain" => Reply::html(&format!("<title>Article</title>{ARTICLE}<p><a href=\"{back}\">Open the app</a></p>")),
            // Fifty cookies a page (a response carries at most 100
            // headers), the first page three more.
            "/login" => {
                let part: usize = seen.path.split("part=").nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
                let mut reply = Reply::html("<title>Signed in</title><main><h1>Signed in</h1></main>");
                if part == 0 {
                    reply = reply
                        .header("Set-Cookie", "sid=abc; Path=/; HttpOnly")
                        .header("Set-Cookie", "odd=1; Path=/; SameSite=None")
                        .header("Set-Cookie", &format!("big={}; Path=/", "x".repeat(5000)));
                }
                for i in part * 50..(part + 1) * 50 {
                    reply = reply.header("Set-Cookie", &format!("c{i}={i}; Path=/"));
                }
                reply
            }
            "/echo" => {
                let cookies = seen.header("cookie").unwrap_or("");
                let names: Vec<&str> = cookies.split("; ").filter_map(|c| c.split('=').next()).collect();
                let has = |n: &str| if names.contains(&n) { "yes" } else { "no" };
                Reply::html(&format!(
                    "<title>Echo</title><main><h1>Cookies sent</h1><p>{} cookies</p><p>sid: {}</p><p>big: {}</p><p>c249: {}</p><p>fromjs: {}</p></main>",
                    names.len(),
                    has("sid"),
                    has("big"),
                    has("c249"),
                    has("fromjs")
                ))
            }
            "/go" => Reply::redirect(302, &back),
            "/veil" => Reply::html(&format!(
                "<title>Veiled</title><style>html {{ display: none }}</style><script>if (self === top) document.documentElement.style.display = 'block';</script>{ARTICLE}"
            )),
            _ => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

/// The app site. `/other` is a plain page of that site.
async fn app_site() -> Server {
    // The app links back to the plain site, whose address is known only
    // once both run: the app asks for it in its query.
    Server::start(move |seen: &Seen| {
        let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
        match path {
            "/app" => Reply::html(&APP.replace("{PLAIN}", &query.replace("plain=", ""))),
            "/other" => Reply::html(&format!("<title>Other</title>{ARTICLE}")),
            "/waiting" => Reply::html(WAITING),
            "/stuck" => Reply::html(STUCK),
            "/gallery" => Reply::html(IMAGE),
            "/onward" => Reply::html(&ONWARD.replace("{TO}", query.strip_prefix("to=").unwrap_or(""))),
            "/hang" => Reply::Hang,
            "/file.txt" => Reply::page(200, "text/plain", b"statement of account\n")
                .header("Content-Disposition", "attachment; filename=\"statement.txt\""),
            _ => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

/// Every scenario, on `auto` (Chromium when needed), `always` (Chromium
/// for every page) and `never` (no Chromium).
pub(crate) async fn run(auto: &AutoBackend, always: &AutoBackend, never: &AutoBackend) {
    let app = app_site().await;
    let plain = plain_site(&app).await;
    let app_url = format!("{}?plain={}", app.url("/app"), plain.url("/plain"));
    documents_choose_their_engine(auto, &plain, &app_url).await;
    cookies_follow_the_tab_both_ways(auto, &plain, &app_url).await;
    a_site_that_needed_scripts_starts_static_again(auto, &app, &app_url).await;
    a_redirect_from_a_plain_page_to_an_app(auto, &plain).await;
    a_page_hidden_until_its_script_shows_it(auto, never, &plain).await;
    a_request_nothing_answers_does_not_hold_the_page(auto, &app).await;
    a_page_that_sends_the_tab_to_a_dead_end(auto, always, &app, &plain).await;
    a_chromium_that_dies_costs_a_notice_not_the_tab(auto, &plain, &app_url).await;
}

/// Static → Chromium by a link, Chromium → static by a link (diverted),
/// back and forward across engines.
async fn documents_choose_their_engine(auto: &AutoBackend, plain: &Server, app_url: &str) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": plain.url("/plain").as_str()})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    // A link from the article to the app: the app needs scripts.
    let out = call(&mut s, "act", json!({"do": "click", "text": "Open the app"})).await;
    let text = ok(&out);
    assert!(out.envelope.page_content.as_ref().is_some_and(|p| p.url.starts_with(app_url.split('?').next().unwrap_or(""))), "{text}");
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("⚠ this page needs scripts: switched to Chromium"), "{text}");
    assert!(text.contains("h1 App home"), "{text}");
    // A link the app follows back to the article: the static path loads it.
    let out = call(&mut s, "act", json!({"do": "click", "text": "Back to the article"})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "static", "{text}");
    assert!(text.contains("h1 Rain returns"), "{text}");
    assert!(text.contains("→ "), "the act says it navigated: {text}");
    // A file the app links to is no page for the static path: Chromium
    // downloads it, as it would have.
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert_eq!(engine(&out), "chromium", "{}", out.text);
    let out = call(&mut s, "act", json!({"do": "click", "text": "Statement"})).await;
    let text = ok(&out);
    assert!(text.contains("↧ downloaded statement.txt"), "{text}");
    assert_eq!(engine(&out), "chromium", "{text}");
    let out = call(&mut s, "navigate", json!({"url": "forward"})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    // Back: the app, whose site needs scripts, straight in Chromium.
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("⚠ this site needed scripts: shown by Chromium"), "{text}");
    assert!(text.contains("h1 App home"), "{text}");
    // Forward: the article again, static.
    let out = call(&mut s, "navigate", json!({"url": "forward"})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    // Back twice: the first page of the tab; once more, nothing.
    call(&mut s, "navigate", json!({"url": "back"})).await;
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    assert!(ok(&out).contains("h1 Rain returns"), "{}", out.text);
    let out = call(&mut s, "navigate", json!({"url": "back"})).await;
    assert_eq!(crate::session::code(&out), "nav_failed", "{}", out.text);
}

/// Cookies set on the static path reach Chromium, and what Chromium's
/// page set reaches the static path; cookies Chromium refuses (too large,
/// more than it keeps per site) stay on the static path, and an odd one
/// (`SameSite=None` without `Secure`) is carried rather than lost.
async fn cookies_follow_the_tab_both_ways(auto: &AutoBackend, plain: &Server, app_url: &str) {
    let mut s = session(auto).await;
    ok(&call(&mut s, "navigate", json!({"url": plain.url("/login?part=0").as_str()})).await);
    let out = call(&mut s, "navigate", json!({"url": app_url})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("odd cookie: yes") && text.contains("c0 cookie: yes"), "{text}");
    assert!(text.contains("⚠ 1 cookie(s) could not be carried to Chromium"), "{text}");
    let out = call(&mut s, "act", json!({"do": "click", "text": "Back to the article"})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    // Two hundred more: more than Chromium keeps for one site.
    for part in 1..5 {
        ok(&call(&mut s, "navigate", json!({"url": plain.url(&format!("/login?part={part}")).as_str()})).await);
    }
    assert_eq!(engine(&call(&mut s, "navigate", json!({"url": app_url})).await), "chromium");
    let out = call(&mut s, "act", json!({"do": "click", "text": "Back to the article"})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    let out = call(&mut s, "navigate", json!({"url": plain.url("/echo").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "static", "{text}");
    // sid, odd, big, c0…c249, and the app's own: nothing lost.
    assert!(text.contains("254 cookies"), "{text}");
    for have in ["sid: yes", "big: yes", "c249: yes", "fromjs: yes"] {
        assert!(text.contains(have), "{have}: {text}");
    }
}

/// A site whose page needed scripts goes straight to Chromium; once one of
/// its pages turns out complete without them, it starts static again.
async fn a_site_that_needed_scripts_starts_static_again(auto: &AutoBackend, app: &Server, app_url: &str) {
    let mut s = session(auto).await;
    assert_eq!(engine(&call(&mut s, "navigate", json!({"url": app_url})).await), "chromium");
    let out = call(&mut s, "navigate", json!({"url": app.url("/other").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("⚠ this site needed scripts: shown by Chromium"), "{text}");
    // That page was complete as served: the site's next page is static.
    let out = call(&mut s, "navigate", json!({"url": app.url("/other").as_str()})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    assert!(ok(&out).contains("h1 Rain returns"), "{}", out.text);
}

async fn a_redirect_from_a_plain_page_to_an_app(auto: &AutoBackend, plain: &Server) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": plain.url("/go").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("h1 App home"), "{text}");
}

/// `html { display: none }` until a frame-busting script shows the page:
/// Chromium when it can, else the page with that rule set aside.
async fn a_page_hidden_until_its_script_shows_it(auto: &AutoBackend, never: &AutoBackend, plain: &Server) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": plain.url("/veil").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("⚠ this page hides itself until its script shows it: switched to Chromium"), "{text}");
    assert!(text.contains("filling the reservoirs"), "{text}");
    let mut s = session(never).await;
    let out = call(&mut s, "navigate", json!({"url": plain.url("/veil").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "static", "{text}");
    assert!(text.contains("⚠ this page hides itself until its script shows it: shown with that rule set aside"), "{text}");
    assert!(text.contains("filling the reservoirs"), "{text}");
}

/// A fetch nothing answers is not waited for; a parser-blocking script
/// nothing answers holds the parse, and the page is shown as far as it
/// got when the navigation's time is up.
async fn a_request_nothing_answers_does_not_hold_the_page(auto: &AutoBackend, app: &Server) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": app.url("/waiting").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("h1 Rendered"), "{text}");
    assert!(!text.contains("still loading"), "{text}");
    // A page that never fires `load` (its image hangs) is shown once
    // usable, and the next page comes as quickly: nothing waits for that
    // `load`.
    let out = call(&mut s, "navigate", json!({"url": app.url("/gallery").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("h1 Gallery") && text.contains("A view of the hills"), "{text}");
    assert!(!text.contains("still loading"), "{text}");
    let out = call(&mut s, "navigate", json!({"url": app.url("/waiting").as_str()})).await;
    assert!(ok(&out).contains("h1 Rendered"), "{}", out.text);
    let out = call(&mut s, "navigate", json!({"url": app.url("/stuck").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ the page was still loading"), "{text}");
    assert!(text.contains("h1 Before the script"), "{text}");
    assert!(!text.contains("After the script"), "{text}");
}

/// A page that loads, then sends the tab on to a place that cannot be
/// loaded: the navigation fails and says where it went (the origin only)
/// and why; the tab goes on.
async fn a_page_that_sends_the_tab_to_a_dead_end(auto: &AutoBackend, always: &AutoBackend, app: &Server, plain: &Server) {
    let closed_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        l.local_addr().map(|a| a.port()).unwrap_or(1)
    };
    let to = format!("http://127.0.0.1:{closed_port}/account?token=hidden");
    let onward = format!("{}?to={to}", app.url("/onward"));
    let went = format!("the page sent the tab on (a refresh or a script) to http://127.0.0.1:{closed_port}, which Chromium could not load (net::ERR_CONNECTION_REFUSED)");
    // Every page in Chromium: the navigation fails.
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": onward})).await;
    assert_eq!(crate::session::code(&out), "nav_failed", "{}", out.text);
    assert_eq!(engine(&out), "chromium", "{}", out.text);
    let message = out.envelope.server.error.as_ref().map(|e| e.message.clone()).unwrap_or_default();
    assert_eq!(message, went);
    let out = call(&mut s, "navigate", json!({"url": plain.url("/plain").as_str()})).await;
    assert!(ok(&out).contains("h1 Rain returns"), "{}", out.text);
    // Auto: the shell is shown as its server sent it, and says why.
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": onward})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "static", "{text}");
    assert!(text.contains(&format!("⚠ this page needs scripts, but Chromium could not show it (nav_failed: {went}): shown without scripts")), "{text}");
    assert!(!text.contains("token=hidden"), "{text}");
    let out = call(&mut s, "navigate", json!({"url": plain.url("/plain").as_str()})).await;
    assert!(ok(&out).contains("h1 Rain returns"), "{}", out.text);
}

/// Chromium killed while the tab shows a Chromium page: the next plain
/// page loads on the static path, and the next app relaunches Chromium.
async fn a_chromium_that_dies_costs_a_notice_not_the_tab(auto: &AutoBackend, plain: &Server, app_url: &str) {
    let mut s = session(auto).await;
    assert_eq!(engine(&call(&mut s, "navigate", json!({"url": app_url})).await), "chromium");
    // Kill this backend's Chromium (another test may run its own).
    let cdp = auto.chromium().unwrap_or_else(|| panic!("a Chromium backend"));
    let pid = cdp.browser_pid().await.unwrap_or_else(|| panic!("no Chromium running"));
    let status = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    assert!(status.is_ok_and(|s| s.success()), "kill found no Chromium");
    // Until its pipe closes, the old Chromium looks alive.
    for _ in 0..50 {
        // Gone, or a zombie (its parent reaps it later).
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.rsplit_once(')').is_none_or(|(_, rest)| rest.trim_start().starts_with('Z')) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let out = call(&mut s, "navigate", json!({"url": plain.url("/plain").as_str()})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "static", "{text}");
    assert!(text.contains("h1 Rain returns"), "{text}");
    let out = call(&mut s, "navigate", json!({"url": app_url})).await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("h1 App home"), "{text}");
}
