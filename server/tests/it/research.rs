//! `research` against loopback servers: digests in input order, one line
//! per failed page (invalid, duplicate, not a page, 404, silent host), the
//! limits on concurrency, URLs and budget, result links when no URLs are
//! given, `keep`, and progress.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use whittle::fetch::{Fetcher, Limits};
use whittle::research::{ResearchOptions, research};
use whittle::session::Progress;

use crate::server::{Reply, Seen, Server};
use crate::session::{call, code, ok, session};

fn article(title: &str) -> String {
    format!(
        "<!doctype html><title>{title} – Example News</title>\
         <meta name=author content=\"Jane Roe\"><meta property=article:published_time content=2026-11-20T08:00:00Z>\
         <meta property=og:site_name content=\"Example News\">\
         <nav><a href=/>Home</a> <a href=/world>World</a></nav>\
         <main><h1>{title}</h1>\
         <p>The council voted on Tuesday to extend the opening hours of the library. Students had asked for it.</p>\
         <h2>Reactions</h2><p>Staff welcomed the change, which starts next month, and asked for more help at night.</p>\
         <ul><li>Monday to Friday, eight to ten</li><li>Weekends, nine to six</li></ul></main>\
         <footer><a href=/about>About</a></footer>"
    )
}

const RESULTS: &str = "<!doctype html><title>Results</title>\
    <header><nav><a href=/home>Home page of the site</a></nav></header>\
    <main><h1>Results for library</h1>\
    <div class=result><h3><a href=/a>Library hours extended after vote</a></h3><p>The council voted…</p></div>\
    <div class=result><h3><a href=/b#top>Students welcome longer hours</a></h3><p>Students had asked…</p></div>\
    <div class=ad><a href=/sponsored>Buy a sponsored library card today</a></div>\
    <div class=result><h3><a href=/a>Library hours extended after vote</a></h3></div>\
    <div class=result><h3><a href=/c>What the new hours mean for you</a></h3></div>\
    <p><a href=#main>Back to the top of this page</a> <a href=/next>Next</a></p></main>\
    <footer><a href=/privacy>Privacy policy of the site</a></footer>";

async fn news() -> Server {
    Server::start(|seen: &Seen| {
        let path = seen.path.split('?').next().unwrap_or("");
        match path {
            "/a" => Reply::html(&article("Library hours extended")),
            "/b" => Reply::html(&article("Students welcome longer hours")),
            "/c" => Reply::html(&article("What the new hours mean")),
            "/slow" => Reply::html(&article("A slow page")).delayed(Duration::from_millis(300)),
            "/results" => Reply::html(RESULTS),
            "/report.pdf" => Reply::page(200, "application/pdf", b"%PDF-1.4"),
            "/hang" => Reply::Hang,
            p if p.starts_with("/p") => Reply::html(&article(&format!("Page {}", &p[2..]))).delayed(Duration::from_millis(40)),
            _ => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
        }
    })
    .await
}

/// The `## [n]` lines of a research result.
fn headers(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("## [")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_are_digested_in_input_order_with_failures_as_lines() {
    let server = news().await;
    let port = server.url("/").port().unwrap_or(0);
    let mut s = session().await;
    let urls = [
        server.url("/slow").to_string(),
        server.url("/a").to_string(),
        "not a url".to_owned(),
        server.url("/report.pdf").to_string(),
        server.url("/a#reactions").to_string(),
        server.url("/missing").to_string(),
    ];
    let out = call(&mut s, "research", json!({"urls": urls})).await;
    let text = ok(&out);
    assert!(text.starts_with("research: 6 pages · 2 digested · 4 failed\n"), "{text}");
    let h = headers(text);
    assert_eq!(h.len(), 6, "{text}");
    // Input order, though /slow finished last.
    assert_eq!(h[0], format!("## [1] A slow page – Example News · 127.0.0.1:{port}/slow"));
    assert_eq!(h[1], format!("## [2] Library hours extended – Example News · 127.0.0.1:{port}/a"));
    assert!(h[2].starts_with("## [3] ✗ not a url · invalid_url: "), "{}", h[2]);
    assert!(h[3].starts_with(&format!("## [4] ✗ 127.0.0.1:{port}/report.pdf · nav_failed: ")) && h[3].contains("not an HTML page"), "{}", h[3]);
    // Shown redacted: no fragment (it can carry a token), no userinfo.
    assert_eq!(h[4], format!("## [5] ✗ 127.0.0.1:{port}/a · duplicate: the same page as [2]"));
    assert!(h[5].ends_with(&format!("nav_failed: http://127.0.0.1:{port}/missing answered HTTP 404")), "{}", h[5]);
    // A digest: byline, outline, the paragraphs' first sentences, the list,
    // counts; navigation and footer are not content.
    let digest: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("## [2]")).skip(1).take_while(|l| !l.starts_with("## [")).collect();
    assert_eq!(
        digest,
        [
            "by Jane Roe · 2026-11-20 · Example News",
            "outline: Library hours extended / Reactions",
            "The council voted on Tuesday to extend the opening hours of the library.",
            "Staff welcomed the change, which starts next month, and asked for more help at night.",
            "- Monday to Friday, eight to ten",
            "- Weekends, nine to six",
            "links 3 · forms 0",
        ]
    );
    // The duplicate and the invalid URL were never requested.
    let paths = server.paths();
    assert_eq!(paths.iter().filter(|p| p.as_str() == "/a").count(), 1, "{paths:?}");
    // The session still browses.
    ok(&call(&mut s, "navigate", json!({"url": server.url("/b").as_str()})).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_that_never_answers_is_one_timeout_line() {
    let server = news().await;
    let fetcher = Fetcher::new(Limits::default(), None).unwrap_or_else(|e| panic!("{e}"));
    let options = ResearchOptions { page_timeout: Duration::from_millis(300), ..ResearchOptions::default() };
    let urls = [server.url("/hang").to_string(), server.url("/a").to_string()];
    let started = std::time::Instant::now();
    let r = research(&fetcher, &urls, &options, &mut |_, _| {}).await;
    assert!(started.elapsed() < Duration::from_secs(5), "the call waited {:?}", started.elapsed());
    assert_eq!(r.pages[0].error.as_ref().map(|e| e.code), Some("nav_timeout"));
    assert!(r.pages[1].ok, "{:?}", r.pages[1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn fetches_stay_within_the_per_host_limit() {
    let server = news().await;
    let fetcher = Fetcher::new(Limits::default(), None).unwrap_or_else(|e| panic!("{e}"));
    let options = ResearchOptions { per_host: 3, concurrency: 16, limit: 100, ..ResearchOptions::default() };
    let urls: Vec<String> = (0..12).map(|i| server.url(&format!("/p{i}")).to_string()).collect();
    let mut seen = Vec::new();
    let r = research(&fetcher, &urls, &options, &mut |p, done| seen.push((p.index, done))).await;
    assert!(r.pages.iter().all(|p| p.ok));
    assert!(server.max_in_flight() <= 3, "{} requests at once", server.max_in_flight());
    // Each page reported once, as it finished, counting up to all.
    assert_eq!(seen.len(), 12);
    assert_eq!(seen.iter().map(|&(_, d)| d).collect::<Vec<_>>(), (1..=12).collect::<Vec<_>>());
    let mut indexes: Vec<usize> = seen.iter().map(|&(i, _)| i).collect();
    indexes.sort_unstable();
    assert_eq!(indexes, (1..=12).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_urls_are_bounded_by_the_limit_with_a_note() {
    let server = news().await;
    let mut s = session().await;
    let urls: Vec<String> = (0..1000).map(|i| server.url(&format!("/p{i}")).to_string()).collect();
    let out = call(&mut s, "research", json!({"urls": urls, "limit": 5})).await;
    let text = ok(&out);
    assert_eq!(headers(text).len(), 5, "{text}");
    assert!(text.ends_with("… +995 more urls not researched (limit 5; at most 100 per call)\n"), "{text}");
    assert_eq!(server.paths().len(), 5);
    // A limit above the cap is the cap.
    let urls: Vec<String> = (0..150).map(|i| server.url(&format!("/p{i}")).to_string()).collect();
    let out = call(&mut s, "research", json!({"urls": urls, "limit": 1000, "budget": 100000})).await;
    assert_eq!(headers(ok(&out)).len(), 100);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_budget_too_small_gives_partial_results_with_the_reason() {
    let server = news().await;
    let mut s = session().await;
    let urls: Vec<String> = ["/a", "/b", "/c"].iter().map(|p| server.url(p).to_string()).collect();
    let out = call(&mut s, "research", json!({"urls": urls, "budget": 1})).await;
    let text = ok(&out);
    assert_eq!(headers(text).len(), 1, "{text}");
    assert!(text.contains("… +2 pages not shown: the budget of 1 tokens is spent (raise budget, or research fewer urls)\n"), "{text}");
    // A budget that fits all three shows all three, each within its share.
    let out = call(&mut s, "research", json!({"urls": urls, "budget": 600})).await;
    let text = ok(&out);
    assert_eq!(headers(text).len(), 3, "{text}");
    assert!(out.envelope.ok);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_urls_the_result_links_of_the_active_page_are_researched() {
    let server = news().await;
    let mut s = session().await;
    assert_eq!(code(&call(&mut s, "research", json!({})).await), "no_page");
    ok(&call(&mut s, "navigate", json!({"url": server.url("/results").as_str()})).await);
    let out = call(&mut s, "research", json!({})).await;
    let text = ok(&out);
    let titles: Vec<&str> = headers(text).iter().map(|h| h.split(" · ").next().unwrap_or("")).collect();
    assert_eq!(
        titles,
        [
            "## [1] Library hours extended – Example News",
            "## [2] Students welcome longer hours – Example News",
            "## [3] What the new hours mean – Example News"
        ],
        "{text}"
    );
    // Navigation, the ad, the footer, same-page anchors and short links
    // ("Next") were not opened.
    let paths = server.paths();
    for skipped in ["/home", "/sponsored", "/privacy", "/next"] {
        assert!(!paths.iter().any(|p| p == skipped), "{skipped} was fetched: {paths:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn keep_opens_the_digested_pages_as_tabs() {
    let server = news().await;
    let mut s = session().await;
    let urls = [server.url("/a").to_string(), server.url("/missing").to_string(), server.url("/b").to_string()];
    let out = call(&mut s, "research", json!({"urls": urls, "keep": true})).await;
    let text = ok(&out);
    assert!(text.contains("⧉ [1] kept as tab 2\n⧉ [3] kept as tab 3\n"), "{text}");
    let tabs = ok(&call(&mut s, "tabs", json!({"op": "list"})).await).to_owned();
    let port = server.url("/").port().unwrap_or(0);
    assert!(tabs.ends_with(&format!("  2 127.0.0.1:{port}/a\n  3 127.0.0.1:{port}/b\n")), "{tabs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_is_reported_once_per_page() {
    let server = news().await;
    let mut s = session().await;
    let seen: Arc<Mutex<Vec<(u32, u32, String)>>> = Arc::default();
    let sink = seen.clone();
    let progress = Progress(Box::new(move |done, total, message: &str| {
        if let Ok(mut v) = sink.lock() {
            v.push((done, total, message.to_owned()));
        }
    }));
    let urls = [server.url("/a").to_string(), "nope".to_owned()];
    let out = s.call_with_progress("research", json!({"urls": urls}), Some(progress)).await;
    ok(&out);
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1].0, 2);
    assert!(seen.iter().all(|(_, total, _)| *total == 2));
    assert!(seen.iter().any(|(_, _, m)| m == "[1] Library hours extended – Example News"), "{seen:?}");
    assert!(seen.iter().any(|(_, _, m)| m == "[2] failed"), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_lines_never_show_passwords_or_tokens() {
    let mut s = session().await;
    let urls = ["ftp://alice:hunter2@files.example/x", "https://bob:s3cret@exa mple.com/?token=abcdef", "https://carol:pw@127.0.0.1:1/?api_key=SHORTKEY"];
    let out = call(&mut s, "research", json!({"urls": urls})).await;
    let text = ok(&out);
    assert_eq!(headers(text).len(), 3, "{text}");
    for secret in ["hunter2", "s3cret", "abcdef", "SHORTKEY", "alice", "bob", "carol"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_arguments_are_invalid_args() {
    let mut s = session().await;
    for args in [json!({"urls": []}), json!({"urls": ["https://a.example"], "budget": 0}), json!({"limit": 0}), json!({"urls": "x"})] {
        assert_eq!(code(&call(&mut s, "research", args.clone()).await), "invalid_args", "{args}");
    }
}
