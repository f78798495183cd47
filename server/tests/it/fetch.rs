//! The static backend's fetcher against loopback servers the tests start
//! themselves: redirects, cookies, methods, limits, timeouts, bombs, hop
//! checks and stylesheets. Each test takes well under a few seconds.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::server::{Reply, Server};
use whittle::fetch::{FetchError, Fetcher, HopCheck, Limits, Method, Request, Response, parse_url};

fn fetcher(limits: Limits) -> Fetcher {
    Fetcher::new(limits, None).unwrap_or_else(|e| panic!("{e}"))
}

async fn get(f: &Fetcher, server: &Server, path: &str) -> Result<Response, FetchError> {
    f.fetch_page(Request::get(server.url(path))).await
}

fn ok(r: Result<Response, FetchError>) -> Response {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn err(r: Result<Response, FetchError>) -> FetchError {
    match r {
        Ok(r) => panic!("expected an error, got HTTP {} from {}", r.status, r.url),
        Err(e) => e,
    }
}

fn text(r: &Response) -> &str {
    std::str::from_utf8(&r.bytes).unwrap_or("<not utf-8>")
}

#[tokio::test]
async fn a_page_with_its_charset_from_the_header() {
    let server = Server::start(|_| Reply::page(200, "text/html; charset=windows-1251", b"<p>\xcf\xf0\xe8")).await;
    let r = ok(get(&fetcher(Limits::default()), &server, "/page#part").await);
    assert_eq!(r.status, 200);
    assert_eq!(r.url, server.url("/page#part"));
    assert_eq!(r.charset.as_deref(), Some("windows-1251"));
    assert_eq!(r.content_type.as_deref(), Some("text/html; charset=windows-1251"));
    assert_eq!(r.bytes, b"<p>\xcf\xf0\xe8");
    assert!(r.redirects.is_empty());
    let seen = &server.log()[0];
    assert_eq!((seen.method.as_str(), seen.path.as_str()), ("GET", "/page"), "the fragment stays here");
    assert!(seen.header("user-agent").is_some_and(|ua| ua.starts_with("whittle/")));
    assert!(seen.header("accept").is_some_and(|a| a.starts_with("text/html")));
}

#[tokio::test]
async fn cookies_set_on_a_redirect_hop_are_sent_back() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/login" => Reply::redirect(302, "/home").header("Set-Cookie", "sid=42; Path=/"),
        _ => Reply::html(&format!("<p>cookie: {}", seen.header("cookie").unwrap_or("none"))),
    })
    .await;
    let f = fetcher(Limits::default());
    let r = ok(get(&f, &server, "/login").await);
    assert_eq!(text(&r), "<p>cookie: sid=42");
    assert_eq!(r.url, server.url("/home"));
    assert_eq!(r.redirects, vec![server.url("/login")]);
    // A clone is the same session; a new fetcher is a new one.
    assert_eq!(text(&ok(get(&f.clone(), &server, "/other").await)), "<p>cookie: sid=42");
    assert_eq!(text(&ok(get(&fetcher(Limits::default()), &server, "/other").await)), "<p>cookie: none");
}

#[tokio::test]
async fn a_cookie_check_that_comes_back_with_the_cookie_is_no_loop() {
    let server = Server::start(|seen| match (seen.path.as_str(), seen.header("cookie")) {
        ("/article", None) => Reply::redirect(302, "/consent"),
        ("/consent", _) => Reply::redirect(302, "/article").header("Set-Cookie", "consent=yes"),
        _ => Reply::html("<p>the article"),
    })
    .await;
    let r = ok(get(&fetcher(Limits::default()), &server, "/article").await);
    assert_eq!(text(&r), "<p>the article");
    assert_eq!(server.paths(), ["/article", "/consent", "/article"]);
}

/// `/hop/N` redirects to `/hop/N-1`; `/hop/0` is the page.
async fn hops() -> Server {
    Server::start(|seen| match seen.path.strip_prefix("/hop/").and_then(|n| n.parse::<u32>().ok()) {
        Some(n) if n > 0 => Reply::redirect(301, &format!("/hop/{}", n - 1)),
        _ => Reply::html("<p>arrived"),
    })
    .await
}

#[tokio::test]
async fn ten_redirects_are_followed_and_eleven_are_refused() {
    let server = hops().await;
    let f = fetcher(Limits::default());
    let r = ok(get(&f, &server, "/hop/10").await);
    assert_eq!((r.url.path(), r.redirects.len()), ("/hop/0", 10));
    let e = err(get(&f, &server, "/hop/11").await);
    assert!(matches!(e, FetchError::TooManyRedirects { limit: 10, .. }), "{e:?}");
    assert_eq!(e.code(), "nav_failed");
    assert_eq!(e.to_string(), format!("{} redirects more than 10 times", server.url("/hop/11")));
    // The eleventh redirect is not followed.
    assert_eq!(server.paths().len(), 11 + 11);
    assert_eq!(server.paths().iter().filter(|p| *p == "/hop/0").count(), 1);
}

#[tokio::test]
async fn a_redirect_loop_is_caught_at_once() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/a" => Reply::redirect(302, "/b"),
        _ => Reply::redirect(307, "/a"),
    })
    .await;
    let e = err(get(&fetcher(Limits::default()), &server, "/a").await);
    assert!(matches!(e, FetchError::RedirectLoop { .. }), "{e:?}");
    assert_eq!(e.to_string(), format!("{} redirects in a loop", server.url("/a")));
    assert_eq!(server.paths(), ["/a", "/b"], "nothing is requested twice");
}

fn post(server: &Server, path: &str) -> Request {
    let mut r = Request::post(server.url(path), "application/x-www-form-urlencoded", b"q=shoes&size=42".to_vec());
    r.referrer = Some(server.url("/search?from=home"));
    r
}

#[tokio::test]
async fn a_post_answered_with_303_302_or_301_continues_as_a_get() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/see-other" => Reply::redirect(303, "/done"),
        "/found" => Reply::redirect(302, "/done"),
        "/moved" => Reply::redirect(301, "/done"),
        _ => Reply::html(&format!("<p>{} with {} bytes", seen.method, seen.body.len())),
    })
    .await;
    let f = fetcher(Limits::default());
    for path in ["/see-other", "/found", "/moved"] {
        let r = ok(f.fetch_page(post(&server, path)).await);
        assert_eq!((text(&r), r.method, r.url.path()), ("<p>GET with 0 bytes", Method::Get, "/done"), "{path}");
    }
    let log = server.log();
    let (form, done) = (&log[0], &log[1]);
    assert_eq!((form.method.as_str(), form.body.as_slice()), ("POST", &b"q=shoes&size=42"[..]));
    assert_eq!(form.header("content-type"), Some("application/x-www-form-urlencoded"));
    assert_eq!(form.header("origin"), Some(server.base.as_str()));
    assert_eq!(form.header("referer"), Some(server.url("/search?from=home").as_str()));
    assert_eq!(done.header("content-type"), None, "the body and its type are dropped");
    assert_eq!(done.header("referer"), form.header("referer"), "the referrer stays the page's");
}

#[tokio::test]
async fn a_post_answered_with_307_or_308_keeps_its_method_and_body() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/temporary" => Reply::redirect(307, "/echo"),
        "/permanent" => Reply::redirect(308, "/echo"),
        _ => Reply::html(&format!("<p>{} {}", seen.method, String::from_utf8_lossy(&seen.body))),
    })
    .await;
    let f = fetcher(Limits::default());
    for path in ["/temporary", "/permanent"] {
        let r = ok(f.fetch_page(post(&server, path)).await);
        assert_eq!((text(&r), r.method), ("<p>POST q=shoes&size=42", Method::Post), "{path}");
    }
    let log = server.log();
    assert_eq!(log[1].header("content-type"), Some("application/x-www-form-urlencoded"));
}

#[tokio::test]
async fn error_statuses_are_pages_with_their_status() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/missing" => Reply::page(404, "text/html", b"<h1>Not found"),
        _ => Reply::page(500, "text/html", b"<h1>Oops"),
    })
    .await;
    let f = fetcher(Limits::default());
    let r = ok(get(&f, &server, "/missing").await);
    assert_eq!((r.status, text(&r)), (404, "<h1>Not found"));
    let r = ok(get(&f, &server, "/broken").await);
    assert_eq!((r.status, text(&r)), (500, "<h1>Oops"));
}

#[tokio::test]
async fn what_is_not_a_page_is_refused_saying_what_it_is() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/logo.png" => Reply::page(200, "image/png", b"\x89PNG\r\n"),
        "/paper.pdf" => Reply::page(200, "application/pdf", b"%PDF-1.7"),
        "/api" => Reply::page(200, "application/json; charset=utf-8", b"{}"),
        _ => Reply::page(200, "text/plain", b"plain text is shown as text"),
    })
    .await;
    let f = fetcher(Limits::default());
    for (path, kind) in [("/logo.png", "an image"), ("/paper.pdf", "a PDF"), ("/api", "JSON")] {
        let e = err(get(&f, &server, path).await);
        assert_eq!(e.code(), "nav_failed");
        assert!(e.to_string().starts_with(&format!("{} is {kind}, not an HTML page (Content-Type: ", server.url(path))), "{e}");
    }
    assert_eq!(ok(get(&f, &server, "/notes.txt").await).status, 200);
}

#[tokio::test]
async fn a_50_mb_body_is_too_large_and_stops_at_the_limit() {
    let server = Server::start(|seen| Reply::Big { len: 50 << 20, content_length: seen.path == "/announced" }).await;
    let f = fetcher(Limits::default());
    for path in ["/announced", "/unannounced"] {
        let start = Instant::now();
        let e = err(get(&f, &server, path).await);
        assert!(matches!(e, FetchError::TooLarge { limit: 10_485_760, .. }), "{e:?}");
        assert_eq!(e.code(), "too_large");
        assert!(start.elapsed() < Duration::from_secs(3), "{path}: {:?}", start.elapsed());
    }
}

#[tokio::test]
async fn a_body_that_never_ends_and_a_server_that_never_answers_time_out() {
    let server = Server::start(|seen| if seen.path == "/trickle" { Reply::Trickle } else { Reply::Hang }).await;
    let f = fetcher(Limits { total_timeout: Duration::from_millis(800), ..Limits::default() });
    for path in ["/trickle", "/hang"] {
        let start = Instant::now();
        let e = err(get(&f, &server, path).await);
        assert!(matches!(e, FetchError::Timeout { .. }), "{e:?}");
        assert_eq!(e.code(), "nav_timeout");
        assert_eq!(e.to_string(), format!("{} did not load within 800 ms", server.url(path)));
        assert!(start.elapsed() < Duration::from_secs(3), "{path}: {:?}", start.elapsed());
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
    encoder.finish().unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn compressed_bodies_are_read_and_a_gzip_bomb_is_too_large() {
    let page = gzip(b"<p>hello, compressed");
    let bomb = gzip(&vec![b' '; 32 << 20]);
    assert!(bomb.len() < 100_000, "{} bytes", bomb.len());
    let server = Server::start(move |seen| {
        let body = if seen.path == "/bomb" { &bomb } else { &page };
        Reply::page(200, "text/html", body).header("Content-Encoding", "gzip")
    })
    .await;
    let f = fetcher(Limits::default());
    let r = ok(get(&f, &server, "/page").await);
    assert_eq!(text(&r), "<p>hello, compressed");
    assert!(server.log()[0].header("accept-encoding").is_some_and(|a| a.contains("gzip") && a.contains("br")));
    let e = err(get(&f, &server, "/bomb").await);
    assert!(matches!(e, FetchError::TooLarge { .. }), "{e:?}");
}

#[tokio::test]
async fn the_hop_check_sees_every_hop_and_can_refuse_one() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/go" => Reply::redirect(302, "/private/admin"),
        _ => Reply::html("<p>secret"),
    })
    .await;
    let check: HopCheck = Arc::new(|url: &url::Url| {
        if url.path().starts_with("/private") { Err("a private address".to_owned()) } else { Ok(()) }
    });
    let f = Fetcher::new(Limits::default(), Some(check)).unwrap_or_else(|e| panic!("{e}"));
    let e = err(get(&f, &server, "/go").await);
    assert!(matches!(e, FetchError::Blocked { .. }), "{e:?}");
    assert_eq!(e.code(), "origin_not_allowed");
    assert_eq!(e.to_string(), "not allowed: a private address");
    // Also the first URL; nothing was ever sent to the refused ones.
    assert!(matches!(get(&f, &server, "/private/x").await, Err(FetchError::Blocked { .. })));
    assert_eq!(server.paths(), ["/go"]);
}

#[tokio::test]
async fn refused_connections_and_bad_urls_are_clear_errors() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(9);
    let f = fetcher(Limits::default());
    let url = parse_url(&format!("http://me:hunter2@127.0.0.1:{closed}/?token=abc")).unwrap_or_else(|e| panic!("{e}"));
    let e = err(f.fetch_page(Request::get(url)).await);
    assert!(matches!(e, FetchError::Network { .. }), "{e:?}");
    assert_eq!(e.code(), "nav_failed");
    let message = e.to_string();
    assert!(message.starts_with(&format!("cannot fetch http://127.0.0.1:{closed}/?token=…: ")), "{message}");
    assert!(!message.contains("hunter2") && !message.contains("abc") && !message.contains('\n'), "{message}");

    for bad in ["ftp://example.test/", "javascript:alert(1)", "not a url", "file:///etc/passwd"] {
        assert_eq!(parse_url(bad).map_err(|e| e.code()), Err("invalid_url"), "{bad}");
    }
    let ftp = url::Url::parse("ftp://example.test/").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.fetch_page(Request::get(ftp)).await.map_err(|e| e.code()), Err("invalid_url"));
    let server = Server::start(|_| Reply::redirect(302, "file:///etc/passwd")).await;
    let e = err(get(&f, &server, "/").await);
    assert!(matches!(e, FetchError::InvalidUrl { .. }), "{e:?}");
}

#[tokio::test]
async fn stylesheets_come_in_parallel_bounded_in_order_and_failures_are_notes() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/missing.css" => Reply::page(404, "text/html", b"<h1>Not found"),
        "/latin1.css" => Reply::page(200, "text/css; charset=iso-8859-1", b"q::before{content:'\xe9'}"),
        path => Reply::page(200, "text/css", format!("/* {path} */").as_bytes()).delayed(Duration::from_millis(150)),
    })
    .await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(9);
    let mut urls: Vec<url::Url> = (1..=6).map(|i| server.url(&format!("/{i}.css"))).collect();
    urls.insert(2, server.url("/missing.css"));
    urls.insert(4, server.url("/latin1.css"));
    urls.push(url::Url::parse(&format!("http://127.0.0.1:{closed}/gone.css")).unwrap_or_else(|e| panic!("{e}")));
    urls.push(server.url("/beyond-the-limit.css"));
    let f = fetcher(Limits { sheet_concurrency: 2, max_sheets: 9, ..Limits::default() });
    let (sheets, problems) = f.fetch_stylesheets(&urls, &Default::default()).await;
    let texts: Vec<&str> = sheets.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        ["/* /1.css */", "/* /2.css */", "/* /3.css */", "q::before{content:'é'}", "/* /4.css */", "/* /5.css */", "/* /6.css */"]
    );
    assert_eq!(sheets[0].url.as_deref(), Some(urls[0].as_str()));
    assert_eq!(server.max_in_flight(), 2, "two at a time");
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert_eq!(problems[0], "1 stylesheet beyond the first 9 skipped");
    assert_eq!(problems[1], format!("stylesheet skipped: {} answered HTTP 404", server.url("/missing.css")));
    assert!(problems[2].starts_with(&format!("stylesheet skipped: cannot fetch http://127.0.0.1:{closed}/gone.css")));
    assert!(!server.paths().contains(&"/beyond-the-limit.css".to_owned()));
}

#[tokio::test]
async fn imported_stylesheets_are_fetched_level_by_level_once_and_kept_for_the_session() {
    let server = Server::start(|seen| match seen.path.as_str() {
        "/css/theme.css" => Reply::page(
            200,
            "text/css",
            b"@import 'base.css'; @import url(/print.css) print; @import '/theme.css'; @import 'pic.png'; @import 'huge.css';",
        ),
        "/css/pic.png" => Reply::page(200, "image/png", b"\x89PNG"),
        "/css/huge.css" => Reply::page(200, "text/css", &vec![b'a'; 5 * 1024 * 1024]),
        "/css/base.css" => Reply::page(200, "text/css", b"@import url('../css/theme.css'); a.headerlink { visibility: hidden }"),
        "/theme.css" => Reply::page(200, "text/css", b"p { color: red }").header("cache-control", "no-store"),
        path => Reply::page(404, "text/plain", path.as_bytes()),
    })
    .await;
    let f = fetcher(Limits::default());
    let urls = [server.url("/css/theme.css")];
    let (sheets, problems) = f.fetch_stylesheets(&urls, &Default::default()).await;
    let got: Vec<&str> = sheets.iter().filter_map(|s| s.url.as_deref()).collect();
    assert_eq!(got, [server.url("/css/theme.css").as_str(), server.url("/css/base.css").as_str(), server.url("/theme.css").as_str()]);
    // What is not CSS, and what is too big, are notes.
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0], format!("stylesheet skipped: {} is image/png, not CSS", server.url("/css/pic.png")));
    assert!(problems[1].contains("huge.css") && problems[1].contains("larger than"), "{problems:?}");
    // The cycle back to theme.css and the print-only import are not fetched.
    let fetched = ["/css/theme.css", "/css/base.css", "/theme.css", "/css/pic.png", "/css/huge.css"];
    let mut paths = server.paths();
    paths.sort();
    let mut want = fetched.to_vec();
    want.sort();
    assert_eq!(paths, want);
    // The next page of the session takes the kept sheets; a sheet marked
    // no-store is fetched again (and the failed ones are tried again).
    let (again, _) = f.fetch_stylesheets(&urls, &Default::default()).await;
    assert_eq!(again.len(), 3);
    let paths = server.paths();
    assert_eq!(paths.len(), fetched.len() + 3, "{paths:?}");
    assert!(!paths[fetched.len()..].contains(&"/css/theme.css".to_owned()) && paths[fetched.len()..].contains(&"/theme.css".to_owned()));
}

#[tokio::test]
async fn a_sheet_to_check_before_reuse_is_asked_for_by_its_validators() {
    // v1 until the server's version changes; each sheet says to check it.
    let version = Arc::new(std::sync::atomic::AtomicU32::new(1));
    let seen_version = version.clone();
    let server = Server::start(move |seen| {
        let v = seen_version.load(std::sync::atomic::Ordering::SeqCst);
        let etag = format!("\"v{v}\"");
        match seen.path.as_str() {
            "/etag.css" if seen.header("if-none-match") == Some(etag.as_str()) => Reply::page(304, "text/css", b""),
            "/etag.css" => Reply::page(200, "text/css", format!("/* etag v{v} */").as_bytes())
                .header("Cache-Control", "no-cache")
                .header("ETag", &etag),
            "/dated.css" if seen.header("if-modified-since") == Some("Tue, 01 Dec 2026 10:00:00 GMT") && v == 1 => {
                Reply::page(304, "text/css", b"")
            }
            "/dated.css" => Reply::page(200, "text/css", format!("/* dated v{v} */").as_bytes())
                .header("Cache-Control", "max-age=0")
                .header("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"),
            // To check, but nothing to check it by: fetched whole each time.
            _ => Reply::page(200, "text/css", b"/* bare */").header("Cache-Control", "no-cache"),
        }
    })
    .await;
    let f = fetcher(Limits::default());
    let urls = [server.url("/etag.css"), server.url("/dated.css"), server.url("/bare.css")];
    let texts = |sheets: Vec<whittle_engine::StylesheetText>| sheets.into_iter().map(|s| s.text).collect::<Vec<_>>();
    let (first, _) = f.fetch_stylesheets(&urls, &Default::default()).await;
    assert_eq!(texts(first), ["/* etag v1 */", "/* dated v1 */", "/* bare */"]);
    // The next page asks again, conditionally: unchanged sheets come back
    // as 304s and are taken from the session's copy.
    let (second, problems) = f.fetch_stylesheets(&urls, &Default::default()).await;
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(texts(second), ["/* etag v1 */", "/* dated v1 */", "/* bare */"]);
    let log = server.log();
    assert_eq!(log.len(), 6);
    let conditional: Vec<(&str, Option<&str>, Option<&str>)> =
        log[3..].iter().map(|r| (r.path.as_str(), r.header("if-none-match"), r.header("if-modified-since"))).collect();
    assert!(conditional.contains(&("/etag.css", Some("\"v1\""), None)), "{conditional:?}");
    assert!(conditional.contains(&("/dated.css", None, Some("Tue, 01 Dec 2026 10:00:00 GMT"))), "{conditional:?}");
    assert!(conditional.contains(&("/bare.css", None, None)), "{conditional:?}");
    // Changed on the server: the new text, and it is what is kept.
    version.store(2, std::sync::atomic::Ordering::SeqCst);
    let (third, _) = f.fetch_stylesheets(&urls, &Default::default()).await;
    assert_eq!(texts(third), ["/* etag v2 */", "/* dated v2 */", "/* bare */"]);
    let (fourth, _) = f.fetch_stylesheets(&urls, &Default::default()).await;
    assert_eq!(texts(fourth), ["/* etag v2 */", "/* dated v2 */", "/* bare */"]);
    assert_eq!(server.log()[9..].iter().find(|r| r.path == "/etag.css").and_then(|r| r.header("if-none-match")), Some("\"v2\""));
}

#[tokio::test]
async fn an_import_chain_stops_at_the_depth_limit_with_a_note() {
    let server = Server::start(|seen| {
        let n: u32 = seen.path.trim_start_matches('/').trim_end_matches(".css").parse().unwrap_or(0);
        Reply::page(200, "text/css", format!("@import '{}.css'; #p{n} {{ display: none }}", n + 1).as_bytes())
    })
    .await;
    let f = fetcher(Limits::default());
    let (sheets, problems) = f.fetch_stylesheets(&[server.url("/0.css")], &Default::default()).await;
    assert_eq!(sheets.len(), whittle_engine::MAX_IMPORT_DEPTH + 1);
    assert_eq!(problems, [format!("stylesheet imports nested deeper than {} not followed", whittle_engine::MAX_IMPORT_DEPTH)]);
}
