//! The hostile-page suite (`corpus/hostile/`, see its README): every case
//! opened in a fresh session whose profile allows one loopback site, every
//! tool's output collected, each case's expectation checked; a second
//! loopback server (not allowed) counts the requests that reach it, and
//! must see none. Then the leak canary: a session over pages full of
//! sensitive values and typed secrets, every output scanned for them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use whittle::backend::Backend;
use whittle::backend::auto::{AutoBackend, EnginePolicy};
use whittle::backend::cdp::{CdpBackend, ChromiumOptions, find_chromium};
use whittle::fetch::{Fetcher, Limits};
use whittle::policy::{NetPolicy, OriginPattern};
use whittle::profile::{Profile, Secrets};
use whittle::session::{Paused, Session, SessionOptions, ToolOutput};

use crate::server::{Reply, Seen, Server};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    page: String,
    trick: String,
    #[serde(default)]
    must_not: Vec<String>,
    #[serde(default)]
    must: Vec<String>,
    #[serde(default)]
    profile: Option<CaseProfile>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    expect_error: Option<String>,
    #[serde(default)]
    engine: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseProfile {
    #[serde(default)]
    paused: bool,
}

#[derive(Debug, serde::Deserialize)]
struct Manifest {
    case: Vec<Case>,
}

fn hostile_dir() -> std::path::PathBuf {
    whittle_corpus::workspace_dir().join("corpus").join("hostile")
}

/// Serves the suite's folder with the placeholders filled in.
async fn folder_server(other: Arc<std::sync::OnceLock<String>>, hits: Option<Arc<AtomicUsize>>) -> Server {
    Server::start(move |seen: &Seen| {
        if let Some(h) = &hits {
            h.fetch_add(1, Ordering::SeqCst);
        }
        let other = other.get().cloned().unwrap_or_default();
        let path = seen.path.split('?').next().unwrap_or("");
        if let Some(name) = path.strip_prefix("/redirect-to-other/") {
            return Reply::redirect(302, &format!("{other}/{name}"));
        }
        if path == "/redirect-to-private" {
            return Reply::redirect(302, "http://169.254.169.254/latest/meta-data/");
        }
        let name = path.trim_start_matches('/');
        if name.contains("..") || name.contains('/') {
            return Reply::page(404, "text/plain", b"no");
        }
        match std::fs::read(hostile_dir().join(name)) {
            Ok(bytes) => {
                let text = fill(&String::from_utf8_lossy(&bytes), &other);
                let kind = if name.ends_with(".css") { "text/css" } else { "text/html; charset=utf-8" };
                Reply::page(200, kind, text.as_bytes())
            }
            Err(_) => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

fn fill(s: &str, other: &str) -> String {
    s.replace("{{OTHER_WS}}", &other.replacen("http://", "ws://", 1)).replace("{{OTHER}}", other)
}

/// The session options of a case: the allowed site, private addresses
/// allowed (the suite is on loopback), and the case's profile.
fn options(paused: bool, secrets: Secrets) -> SessionOptions {
    let profile = Profile { paused, ..Profile::default() };
    SessionOptions {
        secrets: Arc::new(secrets),
        paused: Paused::from_profile(&profile),
        ..SessionOptions::default()
    }
}

async fn session(backend: Arc<dyn Backend>, policy: &Arc<NetPolicy>, paused: bool, secrets: Secrets) -> Session {
    // As the MCP server builds it: the session's fetcher obeys the policy.
    let fetcher = Fetcher::guarded(Limits { total_timeout: Duration::from_secs(5), ..Limits::default() }, policy.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    Session::new(backend, fetcher, options(paused, secrets)).await.unwrap_or_else(|e| panic!("{e}"))
}

/// Everything a tool output shows the model: text and envelope.
fn shown(out: &ToolOutput) -> String {
    format!("{}\n{}", out.text, serde_json::to_string(&out.envelope).unwrap_or_default())
}

fn error_code(out: &ToolOutput) -> Option<&str> {
    out.envelope.server.error.as_ref().map(|e| e.code.as_str())
}

fn chromium_required() -> bool {
    std::env::var("WHITTLE_CHROMIUM_TESTS").is_ok_and(|v| v == "require")
}

/// Runs one case; the reasons it fails, if any.
async fn run_case(case: &Case, backend: Arc<dyn Backend>, policy: &Arc<NetPolicy>, allowed: &Server, other: &str) -> Vec<String> {
    let paused = case.profile.as_ref().is_some_and(|p| p.paused);
    let mut s = session(backend, policy, paused, Secrets::default()).await;
    let url = match &case.url {
        Some(u) if u.starts_with('/') => format!("{}{}", allowed.base, u),
        Some(u) => fill(u, other),
        None => format!("{}/{}", allowed.base, case.page),
    };
    let mut outputs: Vec<ToolOutput> = Vec::new();
    let nav = s.call("navigate", json!({"url": url})).await;
    let mut problems = Vec::new();
    let observe_text;
    if let Some(want) = &case.expect_error {
        if error_code(&nav) != Some(want.as_str()) {
            problems.push(format!("expected error {want}, got {:?}: {}", error_code(&nav), nav.text));
        }
        observe_text = nav.text.clone();
        outputs.push(nav);
    } else if paused {
        observe_text = nav.text.clone();
        outputs.push(nav);
        outputs.push(s.call("observe", json!({})).await);
        outputs.push(s.call("extract", json!({"kind": "text"})).await);
    } else {
        if !nav.envelope.ok {
            problems.push(format!("navigate failed: {}", nav.text));
        }
        outputs.push(nav);
        let full = s.call("observe", json!({"mode": "full", "budget": 20000})).await;
        observe_text = full.text.clone();
        outputs.push(full);
        outputs.push(s.call("observe", json!({"mode": "actions"})).await);
        outputs.push(s.call("observe", json!({"mode": "read"})).await);
        outputs.push(s.call("extract", json!({"kind": "text"})).await);
        outputs.push(s.call("find", json!({"q": "the"})).await);
        outputs.push(s.call("research", json!({"urls": [url]})).await);
    }
    let all: String = outputs.iter().map(shown).collect::<Vec<_>>().join("\n");
    for bad in &case.must_not {
        let bad = fill(bad, other);
        if all.contains(&bad) {
            problems.push(format!("must not show {bad:?}"));
        }
    }
    for good in &case.must {
        let good = fill(good, other);
        // Notes are in the observation; a token may be in a block that
        // observe folded away, so any output counts.
        let place = if good.starts_with(['⚠', '⚿', '⏸', '\n']) { &observe_text } else { &all };
        if !place.contains(&good) {
            problems.push(format!("must show {good:?}"));
        }
    }
    if !problems.is_empty() {
        problems.push(format!("observe was:\n{observe_text}"));
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_page_meets_its_expectation() {
    let text = std::fs::read_to_string(hostile_dir().join("cases.toml")).unwrap_or_else(|e| panic!("cases.toml: {e}"));
    let manifest: Manifest = toml::from_str(&text).unwrap_or_else(|e| panic!("cases.toml: {e}"));
    assert!(manifest.case.len() >= 40, "the suite has {} cases", manifest.case.len());
    let other_base = Arc::new(std::sync::OnceLock::new());
    let other_hits = Arc::new(AtomicUsize::new(0));
    let other = folder_server(other_base.clone(), Some(other_hits.clone())).await;
    let _ = other_base.set(other.base.clone());
    let allowed = folder_server(other_base.clone(), None).await;
    let port = allowed.url("/").port().unwrap_or(0);
    let policy = Arc::new(NetPolicy {
        allow: vec![OriginPattern::parse(&format!("127.0.0.1:{port}")).unwrap_or_else(|e| panic!("{e}"))],
        block: Vec::new(),
        private: true,
    });
    let chromium = CdpBackend::new(ChromiumOptions {
        nav_timeout: Duration::from_secs(5),
        policy: Some(policy.clone()),
        ..ChromiumOptions::default()
    });
    let statics: Arc<dyn Backend> = Arc::new(AutoBackend::new(EnginePolicy::Static, chromium.clone()));
    let scripted: Arc<dyn Backend> = Arc::new(AutoBackend::new(EnginePolicy::Chromium, chromium.clone()));
    let have_chromium = find_chromium(None).is_ok();
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for case in &manifest.case {
        assert!(hostile_dir().join(&case.page).is_file(), "{}: no such page", case.page);
        let backend = match case.engine.as_deref() {
            Some("chromium") if !have_chromium => {
                assert!(!chromium_required(), "WHITTLE_CHROMIUM_TESTS=require, but Chromium is missing");
                eprintln!("hostile: {} SKIPPED (no Chromium; set WHITTLE_CHROMIUM_TESTS=require to fail instead)", case.page);
                skipped += 1;
                continue;
            }
            Some("chromium") => scripted.clone(),
            Some(other) => panic!("{}: unknown engine {other:?}", case.page),
            None => statics.clone(),
        };
        let problems = run_case(case, backend, &policy, &allowed, &other.base).await;
        if problems.is_empty() {
            passed += 1;
        } else {
            failures.push(format!("✗ {} ({}):\n  {}", case.page, case.trick, problems.join("\n  ")));
        }
    }
    // Chromium may fire late requests (a beacon after load): give them a
    // moment to arrive before counting.
    tokio::time::sleep(Duration::from_millis(300)).await;
    eprintln!("hostile: {passed} passed, {} failed, {skipped} skipped of {}", failures.len(), manifest.case.len());
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), manifest.case.len(), failures.join("\n"));
    assert_eq!(other_hits.load(Ordering::SeqCst), 0, "requests reached the site that is not allowed: {:?}", other.paths());
}

/// Canary values: on the pages, in the secrets file, typed by the model.
const CANARIES: [&str; 8] = [
    "CANARY-pass-5e1f0c",
    "4111111111111111",
    "4111 1111 1111 1111",
    "CANARY-cvc-3a9",
    "CANARY-otp-882211",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ",
    "CANARY-secret-91f2aa",
    "DE89370400440532013000",
];

const ACCOUNT: &str = r#"<!doctype html><title>Account</title><main><h1>Your account</h1>
<p>Card on file: 4111 1111 1111 1111 (expires 12/29). IBAN DE89 3704 0044 0532 0130 00.</p>
<p>API session: <code>eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ</code></p>
<img alt="card 4111111111111111" src="/x.png">
<form method="post" action="/sent">
 <label>Password <input type="password" name="pw" value="CANARY-pass-5e1f0c"></label>
 <label>Card number <input name="cc" autocomplete="cc-number" value="4111111111111111"></label>
 <label>CVC <input name="cvc" autocomplete="cc-csc" value="CANARY-cvc-3a9"></label>
 <label>Verification code <input name="otp" autocomplete="one-time-code" value="CANARY-otp-882211"></label>
 <label>Note <input name="note"></label>
 <label>Comment <input name="comment" title="4111-1111-1111-1111"></label>
 <button>Save</button>
</form></main>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_canary_leaves_the_machine() {
    let sent: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let log = sent.clone();
    let server = Server::start(move |seen: &Seen| match seen.path.as_str() {
        "/account" => Reply::html(ACCOUNT),
        "/form" => Reply::html("<title>Other site</title><main><label>Pay with <input name=p></label></main>"),
        "/sent" => {
            let body = String::from_utf8_lossy(&seen.body).into_owned();
            if let Ok(mut l) = log.lock() {
                l.push(body.clone());
            }
            // The page echoes what it got, as careless sites do.
            Reply::html(&format!("<title>Saved</title><main><h1>Saved</h1><p>You sent: {body}</p></main>"))
        }
        _ => Reply::page(404, "text/html", b"<title>Not found</title>"),
    })
    .await;
    let policy = Arc::new(NetPolicy::open());
    let chromium = CdpBackend::new(ChromiumOptions { nav_timeout: Duration::from_secs(5), ..ChromiumOptions::default() });
    let backend: Arc<dyn Backend> = Arc::new(AutoBackend::new(EnginePolicy::Auto, chromium));
    let secrets = Secrets(vec![("BANK_PIN".into(), "CANARY-secret-91f2aa".into())]);
    let mut s = session(backend, &policy, false, secrets).await;
    let mut outputs = Vec::new();
    let url = server.url("/account");
    let page = s.call("navigate", json!({"url": url.as_str()})).await;
    assert!(page.envelope.ok, "{}", page.text);
    let elements = page.envelope.page_content.as_ref().map(|p| p.elements.clone()).unwrap_or_default();
    let ref_of = |name: &str| elements.iter().find(|e| e.name == name).map(|e| e.ref_id).unwrap_or_else(|| panic!("no {name}"));
    let (note, comment, pw) = (ref_of("Note"), ref_of("Comment"), ref_of("Password"));
    // The card seen on the page came back as a token; type it back, and a
    // secret by name, into ordinary fields; a secret into the password.
    let card_token = if page.text.contains("‹card:1›") { "‹card:1›" } else { panic!("no card token in\n{}", page.text) };
    outputs.push(page);
    for (r, text) in [(note, "secret:BANK_PIN"), (comment, card_token), (pw, "‹secret:BANK_PIN›")] {
        let out = s.call("act", json!({"do": "type", "ref": r, "text": text})).await;
        assert!(out.envelope.ok, "{}", out.text);
        assert!(out.text.contains(text), "the ✓ line echoes the token: {}", out.text);
        outputs.push(out);
    }
    // Unknown names and tokens never issued are errors naming them.
    let out = s.call("act", json!({"do": "type", "ref": note, "text": "secret:NO_SUCH"})).await;
    assert_eq!(error_code(&out), Some("unknown_secret"), "{}", out.text);
    assert!(out.text.contains("NO_SUCH"), "{}", out.text);
    outputs.push(out);
    let out = s.call("act", json!({"do": "type", "ref": note, "text": "‹card:9›"})).await;
    assert_eq!(error_code(&out), Some("unknown_token"), "{}", out.text);
    outputs.push(out);
    for (tool, args) in [
        ("observe", json!({})),
        ("observe", json!({"mode": "actions"})),
        ("extract", json!({"kind": "text"})),
        ("find", json!({"q": "card"})),
        ("find", json!({"q": "css:input"})),
        ("tabs", json!({"op": "list"})),
        ("research", json!({"urls": [url.as_str()]})),
    ] {
        outputs.push(s.call(tool, args).await);
    }
    // Send the form: the site gets the real values; its echo comes back
    // as tokens.
    let save = outputs[0].envelope.page_content.as_ref().and_then(|p| p.elements.iter().find(|e| e.name == "Save").map(|e| e.ref_id));
    let out = s.call("act", json!({"do": "click", "ref": save.unwrap_or(0)})).await;
    assert!(out.envelope.ok, "{}", out.text);
    outputs.push(out);
    outputs.push(s.call("observe", json!({})).await);
    outputs.push(s.call("extract", json!({"kind": "text"})).await);
    let body = sent.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(body.contains("CANARY-secret-91f2aa") && body.contains("4111"), "the page got the real values: {body}");
    // The picture, where Chromium can take one: its text and envelope
    // (marks, covers) hold no canary either.
    if find_chromium(None).is_ok() {
        let shot = s.call("screenshot", json!({})).await;
        assert!(shot.envelope.ok, "{}", shot.text);
        outputs.push(shot);
    }
    // Another site (the same server by another name): a token seen on the
    // first is not typed here, whatever the page asks; the secrets file's
    // values are.
    let other = format!("http://localhost:{}/form", url.port().unwrap_or(0));
    let page = s.call("navigate", json!({"url": other})).await;
    assert!(page.envelope.ok, "{}", page.text);
    let field = page.envelope.page_content.as_ref().and_then(|p| p.elements.first().map(|e| e.ref_id)).unwrap_or(0);
    outputs.push(page);
    for (text, code) in [(card_token, Some("other_site")), ("secret:password#1", Some("other_site")), ("secret:BANK_PIN", None)] {
        let out = s.call("act", json!({"do": "type", "ref": field, "text": text})).await;
        assert_eq!(error_code(&out), code, "{text}: {}", out.text);
        outputs.push(out);
    }
    let all: String = outputs.iter().map(shown).collect::<Vec<_>>().join("\n");
    let hits: Vec<&str> = CANARIES.iter().copied().filter(|c| all.contains(c)).collect();
    assert!(hits.is_empty(), "canaries in the outputs: {hits:?}\n{all}");
    assert!(all.contains("‹secret:BANK_PIN›"), "typed secrets show by name");
    assert!(all.contains("‹secret:cvc#"), "a sensitive field's value echoed by its site shows as a token");
}
