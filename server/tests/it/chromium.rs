//! The Chromium backend against pages served on loopback: a single-page
//! app whose content exists only after scripts run (the tab escalates,
//! the content is observed, a form is filled and sent through CDP), dialogs,
//! new tabs, downloads, a page that hangs, and Chromium killed under a
//! session.
//!
//! Two tests run the scenarios in turn, each on its own Chromium
//! (launching one per scenario would cost seconds each on a small
//! machine; two halves run at once). Without Chromium
//! the test says it skipped and why, unless `WHITTLE_CHROMIUM_TESTS=require`
//! (CI sets it), where that is a failure.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use whittle::backend::Backend;
use whittle::backend::auto::{AutoBackend, EnginePolicy};
use whittle::backend::cdp::{CdpBackend, ChromiumOptions, find_chromium};
use whittle::fetch::{Fetcher, Limits};
use whittle::session::{Session, SessionOptions, ToolOutput};

use crate::server::{Reply, Seen, Server};
use crate::session::{call, code, ok};

/// A shop whose page is an empty root that a script fills.
const APP: &str = r#"<!doctype html><title>Greeter</title>
<div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
const root = document.getElementById('root');
root.innerHTML = '<main><h1>Greeter</h1><form id="f"><label>Your name <input name="who"></label> <button>Greet me</button></form><p id="out"></p></main>';
document.getElementById('f').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const who = new FormData(ev.target).get('who');
  const r = await fetch('/api/greet?who=' + encodeURIComponent(who));
  document.getElementById('out').textContent = await r.text();
});
</script>"#;

const DIALOG: &str = r#"<!doctype html><title>Orders</title><main><h1>Order 7</h1>
<button onclick="document.getElementById('s').textContent = confirm('Delete the order?') ? 'Order deleted' : 'Order kept'">Delete</button>
<button onclick="alert('Saved'); document.getElementById('s').textContent = 'Order saved'">Save</button>
<button onclick="const n = prompt('New name?', 'Order 8'); document.getElementById('s').textContent = n === null ? 'Name kept' : 'Renamed to ' + n">Rename</button>
<p id="s">Order open</p></main><script>document.title = 'Orders';</script>"#;

const TABS: &str = r#"<!doctype html><title>Links</title><main><h1>Links</h1>
<a href="/help" target="_blank">Help</a>
<button onclick="window.open('/help')">Open help</button>
<button onclick="for (let i = 0; i < 100; i++) window.open('/help?' + i)">Storm</button>
<a href="/file.txt">Statement</a><p id="vis"></p></main><script>
const vis = () => document.getElementById('vis').textContent = 'This tab is ' + document.visibilityState;
vis(); document.addEventListener('visibilitychange', vis);</script>"#;

/// A page taller than the view: what is below it is not marked.
const LOGIN: &str = r#"<!doctype html><title>Sign in</title><main><h1>Sign in</h1>
<form><label>Email <input name="email"></label><label>Password <input type="password" name="pw" value="hunter2"></label>
<button>Sign in</button></form><iframe title="Ads" src="/help" width="300" height="100"></iframe>
<div style="height: 3000px"></div><a href="/help">Far below</a></main>"#;

/// A password field (with a value) and a frame at known places, refs in
/// the view and refs far below it, and a hidden paragraph.
const PROFILE: &str = r#"<!doctype html><title>Profile</title>
<style>body { margin: 0; font: 16px sans-serif; background: #fff }
#pw { position: absolute; left: 400px; top: 300px; width: 300px; height: 40px; box-sizing: border-box }
#ads { position: absolute; left: 800px; top: 300px; width: 300px; height: 120px; border: 0 }
#far { position: absolute; left: 20px; top: 2400px }</style>
<main><h1>Profile</h1>
<form><label>Email <input name="email" value="jane@example.com"></label>
<label>Password <input type="password" id="pw" name="pw" value="canary-Pw-7Q2x9"></label>
<button>Save</button></form>
<p><a href="/help">Help</a> <a href="/help?faq">FAQ</a> <button type="button">Cancel</button></p>
<p style="display: none">Old address</p>
<iframe id="ads" title="Ads" src="/help"></iframe>
<div id="far"><a href="/help?far">Far link</a> <button type="button">Far button</button></div>
</main>"#;

/// A page with content of its own and one control only a script handles.
const WIDGET: &str = r#"<!doctype html><title>Notes</title><main><h1>Notes</h1>
<p>Write a note below and press Count to see what you wrote, counted by the page itself.</p>
<p>Notes stay on this page only; nothing is sent anywhere, and reloading the page forgets them.</p>
<label>Note <input name="n"></label> <label><input type="checkbox" id="urgent"> Urgent</label>
<label>Colour <select id="colour"><option>Red</option><option>Blue</option></select></label>
<button type="button" onclick="document.getElementById('c').textContent = 'Clicked: ' + [document.querySelector('input').value, document.getElementById('urgent').checked ? 'urgent' : 'not urgent', document.getElementById('colour').value].join(', ')">Count</button>
<p id="c">Not clicked</p></main><script>/* the page's script */</script>"#;

/// Every kind of step, each leaving a trace the page shows.
const CONTROLS: &str = r#"<!doctype html><title>Controls</title>
<style>#tip { visibility: hidden } #spot:hover + #tip { visibility: visible } .tall { height: 3000px }</style>
<main><h1>Controls</h1>
<label>Size <select id="size" onchange="log('size ' + this.value)"><option value="s">Small</option><option value="l">Large</option></select></label>
<label><input type="checkbox" id="gift" onchange="log('gift ' + this.checked)"> Gift wrap</label>
<form onsubmit="event.preventDefault(); log('searched ' + this.q.value)"><input name="q" aria-label="Search"></form>
<label>Photo <input type="file" id="photo" onchange="log('file ' + this.files[0].name)"></label>
<button id="spot" type="button">Hover me</button><span id="tip">Tip shown</span>
<p id="log">Log:</p>
<div class="tall"></div>
</main><script>function log(s) { document.getElementById('log').textContent += ' ' + s; }</script>"#;

const LOOP: &str = "<!doctype html><title>Loop</title><p>Spinning</p><script>while (true) {}</script>";

fn required() -> bool {
    std::env::var("WHITTLE_CHROMIUM_TESTS").is_ok_and(|v| v == "require")
}

async fn site() -> Server {
    Server::start(|seen: &Seen| {
        let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
        match path {
            "/app" => Reply::html(APP),
            "/api/greet" => {
                let who = query.strip_prefix("who=").unwrap_or("").replace("%20", " ");
                Reply::page(200, "text/plain", format!("Hello, {who}!").as_bytes())
            }
            "/dialog" => Reply::html(DIALOG),
            "/tabs" => Reply::html(TABS),
            "/help" => Reply::html("<title>Help</title><main><h1>Help</h1><p>Ask us.</p></main>"),
            "/big.bin" => Reply::page(200, "application/octet-stream", &vec![b'x'; 3 * 1024 * 1024])
                .header("Content-Disposition", "attachment; filename=\"big.bin\""),
            "/big" => Reply::html("<title>Big</title><main><a href=/big.bin>Archive</a></main><script></script>"),
            "/file.txt" => Reply::page(200, "text/plain", b"statement of account\n")
                .header("Content-Disposition", "attachment; filename=\"statement.txt\""),
            "/loop" => Reply::html(LOOP),
            "/login" => Reply::html(LOGIN),
            "/profile" => Reply::html(PROFILE),
            "/controls" => Reply::html(CONTROLS),
            "/widget" => Reply::html(WIDGET),
            "/slow" => Reply::html("<title>Slow</title><main><p id=s>Loading</p></main><script>setTimeout(() => { document.getElementById('s').textContent = 'Ready'; }, 800)</script>"),
            "/handoff" => Reply::html("<title>Check</title><main><h1>Are you human?</h1></main><script>setTimeout(() => { location = '/help'; }, 700)</script>"),
            "/plain" => Reply::html("<title>Plain</title><main><h1>Plain page</h1><p>No scripts needed here.</p><a href=/help>Help</a></main>"),
            _ => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

pub(crate) async fn session(backend: &AutoBackend) -> Session {
    let fetcher = Fetcher::new(Limits::default(), None).unwrap_or_else(|e| panic!("{e}"));
    Session::new(Arc::new(backend.clone()), fetcher, SessionOptions::default()).await.unwrap_or_else(|e| panic!("{e}"))
}

fn ref_named(out: &ToolOutput, role: &str, name: &str) -> u32 {
    let elements = &out.envelope.page_content.as_ref().unwrap_or_else(|| panic!("no page content in\n{}", out.text)).elements;
    elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .map(|e| e.ref_id)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", out.text))
}

pub(crate) fn engine(out: &ToolOutput) -> String {
    serde_json::to_value(&out.envelope).map(|v| v["server"]["engine"].as_str().unwrap_or("").to_owned()).unwrap_or_default()
}

/// The backends of one Chromium: `auto`, `always` (Chromium) and `never`
/// (static); `None` after saying why when there is no Chromium.
fn backends(name: &str) -> Option<(AutoBackend, AutoBackend, AutoBackend, std::path::PathBuf)> {
    if let Err(e) = find_chromium(None) {
        assert!(!required(), "WHITTLE_CHROMIUM_TESTS=require, but: {}", e.message);
        eprintln!("{name}: SKIPPED, {} (set WHITTLE_CHROMIUM_TESTS=require to make this a failure)", e.message);
        return None;
    }
    let downloads = std::env::temp_dir().join(format!("whittle-test-downloads-{name}-{}", std::process::id()));
    let options = ChromiumOptions { downloads: downloads.clone(), nav_timeout: Duration::from_secs(5), ..ChromiumOptions::default() };
    let cdp = CdpBackend::new(options);
    let auto = AutoBackend::new(EnginePolicy::Auto, cdp.clone());
    let always = AutoBackend::new(EnginePolicy::Chromium, cdp.clone());
    let never = AutoBackend::new(EnginePolicy::Static, cdp);
    Some((auto, always, never, downloads))
}

/// Reading and acting: the scenarios on one Chromium, in turn. (Two
/// tests, each with its own Chromium, so the two halves run at once.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_backend_reads_and_acts() {
    let Some((auto, always, never, downloads)) = backends("reads") else { return };
    let site = site().await;
    the_chromium_path_reads_like_the_static_path(&always, &never).await;
    a_script_page_escalates_and_its_form_works(&auto, &never, &site).await;
    a_plain_page_stays_static(&auto, &site).await;
    crate::hybrid::run(&auto, &always, &never).await;
    a_script_only_control_moves_the_tab(&auto, &site).await;
    every_step_works_through_cdp(&always, &site).await;
    research_renders_script_pages_when_allowed(&auto, &never, &site).await;
    dialogs_are_dismissed_then_accepted_on_confirm(&always, &site).await;
    let _ = std::fs::remove_dir_all(&downloads);
}

/// Tabs, downloads, pictures, waits, a looping page, a killed Chromium and
/// sessions that end, on a Chromium of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_backend_tabs_pictures_and_failures() {
    let Some((auto, always, never, downloads)) = backends("tabs") else { return };
    let site = site().await;
    new_tabs_and_downloads(&always, &site, &downloads).await;
    a_screenshot_marks_the_refs_in_view_and_covers_secrets(&auto, &always, &site).await;
    crate::labels::on_pages(&always, &auto).await;
    observe_with_an_image_is_one_snapshot(&auto, &always, &never, &site).await;
    waits_poll_a_live_page(&always, &site).await;
    a_looping_page_times_out_and_the_session_goes_on(&always, &site).await;
    a_download_over_the_cap_is_cancelled(&site).await;
    a_killed_chromium_is_relaunched(&always, &site).await;
    an_ended_session_closes_its_browser_context(&always, &site).await;
    let _ = std::fs::remove_dir_all(&downloads);
}

/// A session's browser context lives as long as the session: two sessions
/// hold two more, and each one dropped closes its own.
async fn an_ended_session_closes_its_browser_context(always: &AutoBackend, site: &Server) {
    let cdp = always.chromium().unwrap_or_else(|| panic!("a Chromium backend"));
    let settle = |want: usize| {
        let cdp = cdp.clone();
        async move {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                let open = cdp.open_contexts().await;
                if open == want {
                    return;
                }
                assert!(std::time::Instant::now() < deadline, "{open} browser contexts open, want {want}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    // Sessions of the scenarios before have ended by now.
    settle(0).await;
    let mut a = session(always).await;
    let mut b = session(always).await;
    ok(&call(&mut a, "navigate", json!({"url": site.url("/help").as_str()})).await);
    ok(&call(&mut b, "navigate", json!({"url": site.url("/plain").as_str()})).await);
    settle(2).await;
    drop(a);
    settle(1).await;
    // The other session's page is untouched.
    assert!(ok(&call(&mut b, "observe", json!({})).await).contains("Plain page"));
    drop(b);
    settle(0).await;
}

/// The project's fixtures and layout pages, served as they are, observed on both paths:
/// the same page must read the same (refs aside) on at least 95% of its
/// lines. Figures per page are printed.
async fn the_chromium_path_reads_like_the_static_path(always: &AutoBackend, never: &AutoBackend) {
    let mut pages = whittle_corpus::html_files_under(&whittle_corpus::fixtures_dir(), &[]);
    pages.extend(whittle_corpus::html_files_under(&whittle_corpus::layout_dir(), &[]));
    assert!(pages.len() >= 10, "fixtures missing from {}", whittle_corpus::fixtures_dir().display());
    let files: std::collections::HashMap<String, Vec<u8>> = pages
        .iter()
        .map(|p| {
            let dir = p.parent().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let file = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (format!("/{dir}/{file}"), std::fs::read(p).unwrap_or_default())
        })
        .collect();
    let files = Arc::new(files);
    let served = files.clone();
    let server = Server::start(move |seen: &Seen| match served.get(seen.path.as_str()) {
        Some(body) => Reply::page(200, "text/html; charset=utf-8", body),
        None => Reply::page(404, "text/html", b"no"),
    })
    .await;
    let refless = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                let mut out = String::with_capacity(l.len());
                let mut rest = l;
                while let Some(i) = rest.find('[') {
                    out.push_str(&rest[..i]);
                    let after = &rest[i + 1..];
                    match after.find(']') {
                        Some(j) if after[..j].chars().all(|c| c.is_ascii_digit()) && j > 0 => {
                            out.push_str("[]");
                            rest = &after[j + 1..];
                        }
                        _ => {
                            out.push('[');
                            rest = after;
                        }
                    }
                }
                out.push_str(rest);
                out
            })
            .collect()
    };
    let (mut same, mut total) = (0usize, 0usize);
    let mut names: Vec<&String> = files.keys().collect();
    names.sort();
    for name in names {
        let url = server.url(name);
        let mut a = session(never).await;
        let mut b = session(always).await;
        let static_out = call(&mut a, "navigate", json!({"url": url.as_str()})).await;
        let chromium_out = call(&mut b, "navigate", json!({"url": url.as_str()})).await;
        assert_eq!(engine(&chromium_out), "chromium");
        let (x, y) = (refless(ok(&static_out)), refless(ok(&chromium_out)));
        // Lines of the static observation that Chromium's has too, in
        // order (a longest common subsequence).
        let common = lcs(&x, &y);
        let n = x.len().max(y.len());
        eprintln!("cross-engine {name}: {common}/{n} lines agree");
        same += common;
        total += n;
    }
    let share = same as f64 / total.max(1) as f64;
    eprintln!("cross-engine: {same}/{total} lines agree ({:.1}%)", share * 100.0);
    assert!(share >= 0.95, "only {:.1}% of lines agree across engines", share * 100.0);
}

/// The length of the longest common subsequence of two line lists.
fn lcs(a: &[String], b: &[String]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut prev = 0;
        for (j, y) in b.iter().enumerate() {
            let keep = row[j + 1];
            row[j + 1] = if x == y { prev + 1 } else { row[j + 1].max(row[j]) };
            prev = keep;
        }
    }
    row[b.len()]
}

async fn a_script_page_escalates_and_its_form_works(auto: &AutoBackend, never: &AutoBackend, site: &Server) {
    // Without Chromium the page is shown as served, with a note.
    let mut s = session(never).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/app").as_str()})).await;
    assert!(ok(&out).contains("⚠ this page needs scripts: shown without them"), "{}", out.text);
    assert!(!out.text.contains("Greet me"));

    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/app").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ this page needs scripts: switched to Chromium"), "{text}");
    assert_eq!(engine(&out), "chromium");
    assert!(text.contains("h1 Greeter"), "{text}");
    let field = ref_named(&out, "textbox", "Your name");
    let button = ref_named(&out, "button", "Greet me");
    let out = call(&mut s, "act", json!({"steps": [
        {"do": "type", "ref": field, "text": "Ada Lovelace"},
        {"do": "click", "ref": button}
    ]}))
    .await;
    let text = ok(&out);
    assert!(text.contains(&format!("✓ type [{field}] textbox \"Your name\" \"Ada Lovelace\"")), "{text}");
    assert!(text.contains("Hello, Ada Lovelace!"), "{text}");
    // The refs stayed: the field is still the same ref after captures.
    let out = call(&mut s, "observe", json!({})).await;
    assert_eq!(ref_named(&out, "textbox", "Your name"), field);
    assert!(ok(&out).contains("= \"Ada Lovelace\""), "{}", out.text);
}

async fn a_plain_page_stays_static(auto: &AutoBackend, site: &Server) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/plain").as_str()})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    assert!(!ok(&out).contains("Chromium"));
}

async fn a_script_only_control_moves_the_tab(auto: &AutoBackend, site: &Server) {
    let mut s = session(auto).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/widget").as_str()})).await;
    assert_eq!(engine(&out), "static", "{}", out.text);
    let note = ref_named(&out, "textbox", "Note");
    let urgent = ref_named(&out, "checkbox", "Urgent");
    let colour = ref_named(&out, "combobox", "Colour");
    let out = call(&mut s, "act", json!({"steps": [
        {"do": "type", "ref": note, "text": "hello"},
        {"do": "check", "ref": urgent},
        {"do": "select", "ref": colour, "values": ["Blue"]},
        {"do": "click", "text": "Count"}
    ]}))
    .await;
    let text = ok(&out);
    assert_eq!(engine(&out), "chromium", "{text}");
    assert!(text.contains("⚠ that control needs scripts: switched to Chromium"), "{text}");
    // What was typed, checked and selected on the static path was carried
    // over, and the click ran the page's script.
    assert!(text.contains("Clicked: hello, urgent, Blue"), "{text}");
    // The elements kept their refs across the move.
    assert_eq!(ref_named(&out, "textbox", "Note"), note, "{text}");
    assert_eq!(ref_named(&out, "checkbox", "Urgent"), urgent, "{text}");
    assert!(!text.contains("their refs are gone"), "{text}");
}

async fn every_step_works_through_cdp(always: &AutoBackend, site: &Server) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/controls").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("↓"), "the page is taller than the view: {text}");
    assert!(!text.contains("Tip shown"), "{text}");
    let size = ref_named(&out, "combobox", "Size");
    let gift = ref_named(&out, "checkbox", "Gift wrap");
    let search = ref_named(&out, "textbox", "Search");
    let photo = ref_named(&out, "button", "Photo");
    let file = std::env::temp_dir().join(format!("whittle-upload-{}.txt", std::process::id()));
    std::fs::write(&file, "a photo").unwrap_or_else(|e| panic!("{e}"));
    let out = call(&mut s, "act", json!({"steps": [
        {"do": "select", "ref": size, "values": ["Large"]},
        {"do": "check", "ref": gift},
        {"do": "type", "ref": search, "text": "lamps"},
        {"do": "press", "ref": search, "key": "Enter"},
        {"do": "upload", "ref": photo, "files": [file.display().to_string()]},
        {"do": "hover", "text": "Hover me"}
    ]}))
    .await;
    let text = ok(&out);
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    assert!(text.contains(&format!("Log: size l gift true searched lamps file {name}")), "{text}");
    assert!(text.contains("Tip shown"), "hover shows the tip: {text}");
    let out = call(&mut s, "act", json!({"do": "uncheck", "ref": gift})).await;
    assert!(ok(&out).contains("gift false"), "{}", out.text);
    let out = call(&mut s, "act", json!({"do": "scroll", "dy": 10})).await;
    let text = ok(&out);
    // Scrolled to the end: screens above, none below.
    assert!(text.contains("· ↑3") && !text.contains("↓"), "{text}");
    let _ = std::fs::remove_file(&file);
}

async fn research_renders_script_pages_when_allowed(auto: &AutoBackend, never: &AutoBackend, site: &Server) {
    let urls = [site.url("/app").to_string(), site.url("/plain").to_string()];
    let mut s = session(auto).await;
    let out = call(&mut s, "research", json!({"urls": urls})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ needs scripts") && text.contains("forms 0"), "{text}");
    let out = call(&mut s, "research", json!({"urls": urls, "scripts": true})).await;
    let text = ok(&out);
    assert!(!text.contains("needs scripts"), "{text}");
    assert!(text.contains("## [1] Greeter") && text.contains("forms 1"), "{text}");
    assert!(text.contains("## [2] Plain"), "{text}");
    // A server without Chromium says so and digests as served.
    let mut s = session(never).await;
    let out = call(&mut s, "research", json!({"urls": urls, "scripts": true})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ needs scripts") && text.contains("⚠ scripts: this server does not use Chromium"), "{text}");
}

async fn dialogs_are_dismissed_then_accepted_on_confirm(always: &AutoBackend, site: &Server) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/dialog").as_str()})).await;
    let delete = ref_named(&out, "button", "Delete");
    let out = call(&mut s, "act", json!({"do": "click", "ref": delete})).await;
    let text = ok(&out);
    assert!(text.contains("! confirm \"Delete the order?\" dismissed (repeat the action with confirm:true to accept)"), "{text}");
    assert!(text.contains("Order kept"), "{text}");
    let out = call(&mut s, "act", json!({"do": "click", "ref": delete, "confirm": true})).await;
    let text = ok(&out);
    assert!(text.contains("! confirm \"Delete the order?\" accepted"), "{text}");
    assert!(text.contains("Order deleted"), "{text}");
    // An alert is reported and the page goes on; a prompt dismissed gives
    // null, accepted its default answer.
    let out = call(&mut s, "act", json!({"do": "click", "text": "Save"})).await;
    let text = ok(&out);
    assert!(text.contains("! alert \"Saved\"\n") && text.contains("Order saved"), "{text}");
    let out = call(&mut s, "act", json!({"do": "click", "text": "Rename"})).await;
    let text = ok(&out);
    assert!(text.contains("! prompt \"New name?\" dismissed") && text.contains("Name kept"), "{text}");
    let out = call(&mut s, "act", json!({"do": "click", "text": "Rename", "confirm": true})).await;
    let text = ok(&out);
    assert!(text.contains("! prompt \"New name?\" accepted") && text.contains("Renamed to Order 8"), "{text}");
}

async fn new_tabs_and_downloads(always: &AutoBackend, site: &Server, downloads: &std::path::Path) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/tabs").as_str()})).await;
    let help = ref_named(&out, "link", "Help");
    let out = call(&mut s, "act", json!({"do": "click", "ref": help})).await;
    let text = ok(&out);
    assert!(text.contains("⧉ new tab 2 opened (now active)"), "{text}");
    assert!(text.contains("h1 Help"), "{text}");
    let list = call(&mut s, "tabs", json!({"op": "list"})).await;
    assert_eq!(ok(&list).lines().count(), 2, "{}", list.text);

    // A script that opens 100 tabs gets a few; the rest are closed.
    let out = call(&mut s, "tabs", json!({"op": "switch", "index": 1})).await;
    let storm = ref_named(&out, "button", "Storm");
    let out = call(&mut s, "act", json!({"do": "click", "ref": storm})).await;
    assert!(ok(&out).contains("⧉ new tab 3 opened (now active)"), "{}", out.text);
    let list = call(&mut s, "tabs", json!({"op": "list"})).await;
    assert_eq!(ok(&list).lines().count(), 3, "{}", list.text);

    let out = call(&mut s, "tabs", json!({"op": "switch", "index": 1})).await;
    let statement = ref_named(&out, "link", "Statement");
    let out = call(&mut s, "act", json!({"do": "click", "ref": statement})).await;
    let text = ok(&out);
    let saved = downloads.join("statement.txt");
    assert!(text.contains(&format!("↧ downloaded statement.txt → {}", saved.display())), "{text}");
    assert_eq!(std::fs::read_to_string(&saved).unwrap_or_default(), "statement of account\n");
    // The tab worked on is the one Chromium shows, not one run as hidden
    // behind the tabs its page opened (where input waits for frames that
    // never come and timers slow down).
    let seen = call(&mut s, "observe", json!({})).await;
    assert!(ok(&seen).contains("This tab is visible"), "{}", seen.text);
}

async fn a_screenshot_marks_the_refs_in_view_and_covers_secrets(auto: &AutoBackend, always: &AutoBackend, site: &Server) {
    for backend in [always, auto] {
        let mut s = session(backend).await;
        let out = call(&mut s, "navigate", json!({"url": site.url("/login").as_str()})).await;
        ok(&out);
        let shot = call(&mut s, "screenshot", json!({})).await;
        let text = ok(&shot);
        let picture = jpeg(&shot);
        let img = image::load_from_memory(picture).unwrap_or_else(|e| panic!("not a picture: {e}")).to_rgb8();
        assert_eq!(img.dimensions(), (1280, 800));
        // Every ref in view is marked, the one far below is not.
        let in_view = ["Email", "Password", "Sign in", "Ads"].len() as u32;
        assert_eq!(shot.envelope.server.counters.marks, in_view, "{text}");
        assert!(text.contains(&format!("{in_view} ref(s) marked, 2 field(s) or frame(s) covered")), "{text}");
        let password = ref_named(&out, "textbox", "Password");
        let one = call(&mut s, "screenshot", json!({"ref": password})).await;
        let img = image::load_from_memory(jpeg(&one)).unwrap_or_else(|e| panic!("{e}")).to_rgb8();
        // The field's own picture is all cover (and its mark).
        let (w, h) = img.dimensions();
        assert!(w < 400 && h < 100, "{w}x{h}");
        let centre = img.get_pixel(w / 2, h / 2).0;
        assert!(centre.iter().all(|&c| c < 90), "the password field shows through: {centre:?}");

        // What was typed shows in the picture, on either engine (a static
        // tab is drawn by a fresh Chromium load, given the typed values).
        let email = ref_named(&out, "textbox", "Email");
        let before = dark_pixels(&call(&mut s, "screenshot", json!({"ref": email})).await);
        ok(&call(&mut s, "act", json!({"steps": [{"do": "type", "ref": email, "text": "WWWWWWWWWWWW"}]})).await);
        let after = call(&mut s, "screenshot", json!({"ref": email})).await;
        assert_eq!(engine(&after), if std::ptr::eq(backend, auto) { "static" } else { "chromium" }, "{}", after.text);
        let after = dark_pixels(&after);
        assert!(after > before + 100, "the typed text is not in the picture: {before} dark pixels before typing, {after} after");
    }
}

/// A picture's JPEG.
pub(crate) fn jpeg(out: &ToolOutput) -> &[u8] {
    &out.image.as_ref().unwrap_or_else(|| panic!("no picture: {}", out.text)).jpeg
}

/// The pixels of a screenshot that are close to black (text, covers).
fn dark_pixels(shot: &ToolOutput) -> usize {
    let img = image::load_from_memory(jpeg(shot)).unwrap_or_else(|e| panic!("not a picture: {e}")).to_rgb8();
    img.pixels().filter(|p| p.0.iter().all(|&c| c < 100)).count()
}

/// `observe` with `image`: the picture, the tree and the elements of one
/// snapshot, the counters exact for it, the secrets covered and nowhere
/// in the text; a tab that cannot be drawn gives the observation and a
/// notice.
async fn observe_with_an_image_is_one_snapshot(auto: &AutoBackend, always: &AutoBackend, never: &AutoBackend, site: &Server) {
    const SECRET: &str = "canary-Pw-7Q2x9";
    let in_view = ["Email", "Password", "Save", "Help", "FAQ", "Cancel", "Ads"];
    let below = ["Far link", "Far button"];
    for backend in [always, auto] {
        let mut s = session(backend).await;
        ok(&call(&mut s, "navigate", json!({"url": site.url("/profile").as_str()})).await);
        let plain = call(&mut s, "observe", json!({})).await;
        let out = call(&mut s, "observe", json!({"image": true})).await;
        let text = ok(&out);
        let picture = jpeg(&out);
        let img = image::load_from_memory(picture).unwrap_or_else(|e| panic!("not a picture: {e}")).to_rgb8();
        let envelope = serde_json::to_value(&out.envelope).unwrap_or_default();

        // The picture is the view, one pixel per CSS pixel, as the envelope says.
        assert_eq!(img.dimensions(), (1280, 800), "{text}");
        assert_eq!(envelope["server"]["image"], json!({"width": 1280, "height": 800, "scale": 1.0}), "{envelope}");

        // The elements are the observation's refs; those in view are marked,
        // those far below are not, and the counters say so.
        let page = out.envelope.page_content.as_ref().unwrap_or_else(|| panic!("no page content"));
        let mut names: Vec<&str> = page.elements.iter().map(|e| e.name.as_str()).collect();
        let mut expected: Vec<&str> = in_view.iter().chain(&below).copied().collect();
        names.sort_unstable();
        expected.sort_unstable();
        assert_eq!(names, expected, "{text}");
        let c = out.envelope.server.counters;
        assert_eq!(c.marks, in_view.len() as u32, "{text}");
        assert!(c.marks_truncated, "refs below the view are not marked: {text}");
        // One password field, one frame; hidden: the paragraph (the
        // head is not counted: nothing in it is ever shown).
        assert_eq!((c.redacted_fields, c.frames_masked, c.omitted_not_visible), (1, 1, 1), "{text}");
        assert!(!c.tree_truncated, "{text}");
        // The counters of the text are those of the observation without a
        // picture.
        let p = plain.envelope.server.counters;
        assert_eq!(
            (c.omitted_not_visible, c.redacted_fields, c.frames_masked, c.tree_lines, c.tree_truncated),
            (p.omitted_not_visible, p.redacted_fields, p.frames_masked, p.tree_lines, p.tree_truncated)
        );
        assert_eq!((p.marks as usize, p.marks_truncated), (page.elements.len(), false));
        assert_eq!(c.tree_lines as usize, page.tree.len());
        let tree: Vec<&str> = text.lines().skip(1).filter(|l| !l.starts_with(['⚠', '⚿', '▣'])).collect();
        assert_eq!(tree, page.tree.iter().map(String::as_str).collect::<Vec<_>>(), "{text}");
        assert!(
            text.ends_with(&format!("▣ image of the view: 1280×800 px, {} ref(s) marked, 2 field(s) or frame(s) covered\n", in_view.len())),
            "{text}"
        );
        // The text is the observation's, as without the picture.
        assert_eq!(text.lines().filter(|l| !l.starts_with('▣')).collect::<Vec<_>>(), plain.text.lines().collect::<Vec<_>>());
        assert_eq!(envelope["server"]["snapshot_id"], serde_json::to_value(&plain.envelope).unwrap_or_default()["server"]["snapshot_id"]);

        // The password's value is nowhere but on the machine.
        assert!(!text.contains(SECRET) && !envelope.to_string().contains(SECRET), "{text}\n{envelope}");
        // Its field and the frame are solid covers (beyond the marks'
        // outline and label, and JPEG's ringing near them); the page
        // around them is white; marks are drawn.
        let dark = |x0: u32, x1: u32, y0: u32, y1: u32| (x0..x1).all(|x| (y0..y1).all(|y| img.get_pixel(x, y).0.iter().all(|&v| v < 90)));
        assert!(dark(410, 690, 322, 332), "the password field shows through");
        assert!(dark(830, 1070, 330, 400), "the frame shows through");
        assert!(img.get_pixel(1200, 700).0.iter().all(|&v| v > 200), "the page is not white around the covers");
        let pink = img.pixels().filter(|p| p.0[0] > 170 && p.0[1] < 90).count();
        assert!(pink > 200, "no marks drawn ({pink} pink pixels)");

        // Over MCP: the text, then the JPEG as an image block.
        let result = serde_json::to_value(whittle::mcp::to_result(out.clone())).unwrap_or_default();
        assert_eq!(result["content"][1]["type"], "image", "{}", result["content"]);
        assert_eq!(result["content"][1]["mimeType"], "image/jpeg");

        // Every ref in view: all marked, nothing truncated.
        ok(&call(&mut s, "navigate", json!({"url": site.url("/plain").as_str()})).await);
        let out = call(&mut s, "observe", json!({"image": true})).await;
        let elements = out.envelope.page_content.as_ref().map_or(0, |p| p.elements.len());
        let c = out.envelope.server.counters;
        assert_eq!((c.marks as usize, c.marks_truncated, elements), (1, false, 1), "{}", out.text);
    }
    // A tab that cannot be drawn (--engine static): the observation, and why.
    let mut s = session(never).await;
    ok(&call(&mut s, "navigate", json!({"url": site.url("/profile").as_str()})).await);
    let out = call(&mut s, "observe", json!({"image": true})).await;
    let text = ok(&out);
    assert!(out.image.is_none() && out.envelope.server.image.is_none(), "{text}");
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("⚠ no image (engine_unavailable): ")), "{text}");
    assert!(text.contains("h1 Profile") && !text.contains(SECRET), "{text}");
}

async fn waits_poll_a_live_page(always: &AutoBackend, site: &Server) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/slow").as_str()})).await;
    assert!(ok(&out).contains("Loading"), "{}", out.text);
    let out = call(&mut s, "wait", json!({"text": "ready", "gone": "Loading"})).await;
    let text = ok(&out);
    assert!(text.contains("✓ \"ready\" is on the page") && text.contains("✓ \"Loading\" is not on the page"), "{text}");
    let out = call(&mut s, "wait", json!({"text": "Never", "ms": 600})).await;
    assert_eq!(code(&out), "wait_timeout", "{}", out.text);

    // The person takes over; the page moving on ends the wait.
    let out = call(&mut s, "navigate", json!({"url": site.url("/handoff").as_str()})).await;
    ok(&out);
    let out = call(&mut s, "wait", json!({"user": true, "ms": 10000})).await;
    let text = ok(&out);
    assert!(text.contains("⏸ handed to the person: they can use this page at http://127.0.0.1:"), "{text}");
    assert!(text.contains("✓ the person moved the page on"), "{text}");
}

async fn a_looping_page_times_out_and_the_session_goes_on(always: &AutoBackend, site: &Server) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/loop").as_str()})).await;
    assert!(matches!(code(&out), "nav_timeout" | "page_unresponsive"), "{}", out.text);
    let out = call(&mut s, "tabs", json!({"op": "open", "url": site.url("/help").as_str().replace("127.0.0.1", "localhost")})).await;
    assert!(ok(&out).contains("h1 Help"), "{}", out.text);
}

async fn a_download_over_the_cap_is_cancelled(site: &Server) {
    let downloads = std::env::temp_dir().join(format!("whittle-test-capped-{}", std::process::id()));
    let small = ChromiumOptions { downloads: downloads.clone(), max_download_bytes: 256 * 1024, ..ChromiumOptions::default() };
    let always = AutoBackend::new(EnginePolicy::Chromium, CdpBackend::new(small));
    let mut s = session(&always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/big").as_str()})).await;
    let archive = ref_named(&out, "link", "Archive");
    let out = call(&mut s, "act", json!({"do": "click", "ref": archive})).await;
    assert!(ok(&out).contains("✗ download big.bin cancelled: larger than 256 KB"), "{}", out.text);
    assert!(!downloads.join("big.bin").exists());
    let _ = std::fs::remove_dir_all(&downloads);
}

/// No Chromium, or one that does not start: clear errors and notices, and
/// the session goes on (no Chromium is needed for this test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_broken_chromium_is_a_clear_error() {
    let Err(missing) = find_chromium(Some(std::path::Path::new("/nonexistent/chromium"))) else {
        panic!("a missing Chromium was found");
    };
    assert_eq!(missing.code, "engine_unavailable");
    assert!(missing.message.contains("/nonexistent/chromium"), "{}", missing.message);
    // `false` starts and exits at once: Chromium "fails to start".
    let broken = ChromiumOptions { executable: Some("/bin/false".into()), ..ChromiumOptions::default() };
    let auto = AutoBackend::new(EnginePolicy::Auto, CdpBackend::new(broken));
    let site = site().await;
    let mut s = session(&auto).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/app").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ this page needs scripts, and Chromium is unavailable (Chromium did not start"), "{text}");
    let shot = call(&mut s, "screenshot", json!({})).await;
    assert_eq!(code(&shot), "engine_unavailable", "{}", shot.text);
    let seen = call(&mut s, "observe", json!({"image": true})).await;
    assert!(ok(&seen).contains("⚠ no image (engine_unavailable): "), "{}", seen.text);
    let out = call(&mut s, "navigate", json!({"url": site.url("/plain").as_str()})).await;
    assert!(ok(&out).contains("Plain page"), "{}", out.text);
}

async fn a_killed_chromium_is_relaunched(always: &AutoBackend, site: &Server) {
    let mut s = session(always).await;
    let out = call(&mut s, "navigate", json!({"url": site.url("/help").as_str()})).await;
    ok(&out);
    // Kill this backend's Chromium (another test may run its own).
    let cdp = always.chromium().unwrap_or_else(|| panic!("a Chromium backend"));
    let pid = cdp.browser_pid().await.unwrap_or_else(|| panic!("no Chromium running"));
    let status = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    assert!(status.is_ok_and(|s| s.success()), "kill found no Chromium");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let out = call(&mut s, "observe", json!({})).await;
    assert_eq!(code(&out), "engine_crashed", "{}", out.text);
    let out = call(&mut s, "navigate", json!({"url": site.url("/help").as_str()})).await;
    let text = ok(&out);
    assert!(text.contains("⚠ Chromium had stopped and was restarted: the pages of its tabs were lost"), "{text}");
    assert!(text.contains("h1 Help"), "{text}");
}
