//! `whittle research --warc`, run as a user runs it on WARC files the tests
//! write themselves: every HTML response is one JSON line with the digest
//! research gives and the text `whittle extract` gives; other records are
//! counted; broken records are error lines and reading goes on. No test
//! touches the network.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use flate2::Compression;
use flate2::write::{DeflateEncoder, GzEncoder};
use serde_json::Value;

const DATE: &str = "2026-03-01T12:00:00Z";

fn whittle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run whittle: {e}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A new file in the temp directory, unique to this test run.
fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("whittle-warc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

fn id() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("<urn:uuid:00000000-0000-4000-8000-{:012}>", N.fetch_add(1, Ordering::Relaxed))
}

/// One WARC record, its Content-Length `length` (the block's by default).
fn record_with(kind: &str, uri: &[u8], content_type: &str, block: &[u8], length: Option<&str>) -> Vec<u8> {
    let mut r = format!("WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {}\r\nWARC-Date: {DATE}\r\nWARC-Target-URI: ", id()).into_bytes();
    r.extend_from_slice(uri);
    let length = length.map_or_else(|| block.len().to_string(), str::to_owned);
    r.extend_from_slice(format!("\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n").as_bytes());
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    let content_type = match kind {
        "response" | "revisit" => "application/http; msgtype=response",
        "request" => "application/http; msgtype=request",
        "warcinfo" => "application/warc-fields",
        _ => "text/plain",
    };
    record_with(kind, uri.as_bytes(), content_type, block, None)
}

/// An HTTP response: status line, headers, body.
fn http(status: u16, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 {status} X\r\n").into_bytes();
    for h in headers {
        r.extend_from_slice(format!("{h}\r\n").as_bytes());
    }
    r.extend_from_slice(b"\r\n");
    r.extend_from_slice(body);
    r
}

fn html_response(uri: &str, body: &str) -> Vec<u8> {
    record("response", uri, &http(200, &["Content-Type: text/html; charset=utf-8"], body.as_bytes()))
}

fn page(title: &str, text: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><header><a href=/>Home</a></header>\
         <main><h1>{title}</h1><p>{text}</p><p>A second paragraph about {title}, long enough to be read as prose by the engine.</p></main>\
         <footer>© Example</footer></body></html>"
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).unwrap_or_else(|e| panic!("gzip: {e}"));
    e.finish().unwrap_or_else(|e| panic!("gzip: {e}"))
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).unwrap_or_else(|e| panic!("deflate: {e}"));
    e.finish().unwrap_or_else(|e| panic!("deflate: {e}"))
}

fn chunked(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in body.chunks(37) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// A run's output: its JSON lines by index, and its summary line.
struct Run {
    output: Output,
    lines: Vec<Value>,
    summary: String,
}

impl Run {
    fn ok(&self) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["ok"] == Value::Bool(true)).collect()
    }

    fn failed(&self) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["ok"] == Value::Bool(false)).collect()
    }

    fn titles(&self) -> Vec<String> {
        self.ok().iter().map(|l| l["title"].as_str().unwrap_or_default().to_owned()).collect()
    }

    fn codes(&self) -> Vec<String> {
        self.failed().iter().map(|l| l["error"]["code"].as_str().unwrap_or_default().to_owned()).collect()
    }
}

fn research(files: &[&Path], extra: &[&str]) -> Run {
    let mut args = vec!["research", "--warc"];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    args.extend_from_slice(extra);
    let output = whittle(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    lines.sort_by_key(|l| l["index"].as_u64().unwrap_or_default());
    let summary = stderr(&output)
        .lines()
        .find(|l| l.starts_with("whittle: warc: "))
        .unwrap_or_else(|| panic!("no summary line: {}", stderr(&output)))
        .to_owned();
    Run { output, lines, summary }
}

#[test]
fn html_responses_are_pages_and_the_rest_is_counted() {
    let pages = [
        ("https://news.example/night-trains?id=7&token=secret", "Night trains return", "Three operators will run sleeper trains between Zurich, Vienna and Milan."),
        ("https://news.example/bridges", "Bridges of the north", "The old bridge reopened after a decade of repairs and a long dispute."),
        ("https://blog.example/rivers", "Rivers in spring", "Snowmelt raised the rivers early this year, and the ferries waited."),
    ];
    let mut warc = record("warcinfo", "", b"software: test\r\nformat: WARC File Format 1.0\r\n");
    warc.extend(record("request", pages[0].0, b"GET /night-trains HTTP/1.1\r\nHost: news.example\r\n\r\n"));
    warc.extend(html_response(pages[0].0, &page(pages[0].1, pages[0].2)));
    warc.extend(record("metadata", pages[0].0, b"fetchTimeMs: 12\r\n"));
    warc.extend(record("response", "https://news.example/logo.png", &http(200, &["Content-Type: image/png"], b"\x89PNG\r\n\x1a\n\0\0")));
    warc.extend(record("response", "https://news.example/old", &http(301, &["Location: /bridges", "Content-Type: text/html"], b"<a href=/bridges>moved</a>")));
    warc.extend(html_response(pages[1].0, &page(pages[1].1, pages[1].2)));
    warc.extend(record("revisit", pages[1].0, &http(200, &["Content-Type: text/html"], b"")));
    warc.extend(record("response", "https://news.example/gone", &http(404, &["Content-Type: text/html"], b"<title>Not found</title>")));
    warc.extend(html_response(pages[2].0, &page(pages[2].1, pages[2].2)));
    let file = temp("mixed.warc", &warc);

    let run = research(&[&file], &[]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(
        run.summary,
        "whittle: warc: 10 records · 4 pages · 3 digested · 1 failed · 6 skipped (request 1, metadata 1, revisit 1, redirect 1, not html 1, other 1)"
    );
    assert_eq!(run.titles(), pages.iter().map(|p| p.1.to_owned()).collect::<Vec<_>>());
    // The index is the record's number in the run.
    let indexes: Vec<u64> = run.lines.iter().map(|l| l["index"].as_u64().unwrap_or_default()).collect();
    assert_eq!(indexes, [3, 7, 9, 10]);
    let gone = run.failed()[0];
    assert_eq!(gone["error"]["code"], "nav_failed");
    assert_eq!(gone["status"], 404);

    for (line, (url, title, text)) in run.ok().into_iter().zip(pages) {
        assert_eq!(line["url"], url);
        assert_eq!(line["date"], DATE);
        assert_eq!(line["status"], 200);
        let html = page(title, text);
        // The text is `whittle extract`'s for the same bytes.
        let local = temp("page.html", html.as_bytes());
        let extracted = whittle(&["extract", &local.display().to_string()]);
        assert!(extracted.status.success(), "{}", stderr(&extracted));
        assert_eq!(line["text"].as_str(), Some(String::from_utf8_lossy(&extracted.stdout).as_ref()));
        assert!(line["text"].as_str().unwrap_or_default().contains(text));
        // The digest is research's for the same bytes, URL and budget.
        let index = line["index"].as_u64().unwrap_or_default() as usize;
        let response = whittle::fetch::Response {
            url: url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}")),
            status: 200,
            method: whittle::fetch::Method::Get,
            content_type: Some("text/html; charset=utf-8".into()),
            charset: Some("utf-8".into()),
            bytes: html.into_bytes(),
            redirects: Vec::new(),
            headers: Vec::new(),
        };
        let digest = whittle::research::digest_page(index, &response, whittle::cli::PAGE_BUDGET);
        assert_eq!(line["digest"].as_str(), Some(digest.text.as_str()));
        assert_eq!(line["tokens"], digest.tokens);
    }
    // Error messages show no query values.
    assert!(!stderr(&run.output).contains("secret"));
    assert!(run.failed().iter().all(|l| !l["digest"].as_str().unwrap_or_default().contains("secret")));
}

#[test]
fn gzip_members_whole_file_gzip_chunked_and_compressed_bodies() {
    let body = |t: &str| page(t, &format!("The body of {t} arrives encoded, and still reads as plain prose here."));
    let records = [
        html_response("https://a.example/plain", &body("Plain body")),
        record(
            "response",
            "https://a.example/chunked",
            &http(200, &["Content-Type: text/html", "Transfer-Encoding: chunked"], &chunked(body("Chunked body").as_bytes())),
        ),
        record(
            "response",
            "https://a.example/gzip",
            &http(200, &["Content-Type: text/html", "Content-Encoding: gzip"], &gzip(body("Gzip body").as_bytes())),
        ),
        record(
            "response",
            "https://a.example/both",
            &http(
                200,
                &["Content-Type: text/html", "Content-Encoding: gzip", "Transfer-Encoding: chunked"],
                &chunked(&gzip(body("Chunked gzip body").as_bytes())),
            ),
        ),
        record(
            "response",
            "https://a.example/deflate",
            &http(200, &["Content-Type: text/html", "Content-Encoding: deflate"], &deflate(body("Deflate body").as_bytes())),
        ),
        // No Content-Type: sniffed.
        record("response", "https://a.example/sniffed", &http(200, &[], body("Sniffed body").as_bytes())),
    ];
    let expected = ["Plain body", "Chunked body", "Gzip body", "Chunked gzip body", "Deflate body", "Sniffed body"];
    // One gzip member per record, as Common Crawl writes them (and named
    // without `.gz`: gzip is told by its bytes).
    let members: Vec<u8> = records.iter().flat_map(|r| gzip(r)).collect();
    let whole: Vec<u8> = gzip(&records.concat());
    for file in [temp("members.warc", &members), temp("whole.warc.gz", &whole), temp("plain.warc", &records.concat())] {
        let run = research(&[&file], &["--budget", "120"]);
        assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
        assert_eq!(run.titles(), expected, "{}", file.display());
        assert!(run.failed().is_empty(), "{:?}", run.failed());
        for line in run.ok() {
            assert!(line["text"].as_str().unwrap_or_default().contains("arrives encoded"), "{line}");
        }
    }
}

#[test]
fn a_truncated_gzip_file_gives_its_earlier_pages_and_one_error() {
    let titles = ["First page", "Second page", "Third page"];
    let mut members = Vec::new();
    for (i, t) in titles.iter().enumerate() {
        members.extend(gzip(&html_response(&format!("https://t.example/{i}"), &page(t, "Some words of the page to read."))));
    }
    let cut = &members[..members.len() - 60];
    let truncated = temp("truncated.warc.gz", cut);
    let whole_cut = gzip(&titles.iter().map(|t| html_response("https://w.example/", &page(t, "Words."))).collect::<Vec<_>>().concat());
    let whole_cut = temp("whole-cut.warc.gz", &whole_cut[..whole_cut.len() * 2 / 3]);
    let after = temp("after.warc", &html_response("https://after.example/", &page("After the cut", "The next file is read.")));

    let run = research(&[&truncated, &whole_cut, &after], &[]);
    // The run goes on and succeeds: the cut is the one error line of its file.
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    let titles_seen = run.titles();
    assert_eq!(&titles_seen[..2], ["First page", "Second page"]);
    assert_eq!(titles_seen.last().map(String::as_str), Some("After the cut"));
    assert_eq!(run.codes(), ["truncated", "truncated"], "{:?}", run.failed());
    let pages: usize = run.lines.len();
    assert!(run.summary.contains(&format!("{pages} pages")), "{}", run.summary);

    // A plain file cut inside a record's header, and inside a body.
    let mut plain = html_response("https://p.example/1", &page("Whole", "Read in full."));
    plain.extend_from_slice(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Rec");
    let cut_header = temp("cut-header.warc", &plain);
    let mut plain = html_response("https://p.example/1", &page("Whole", "Read in full."));
    let next = html_response("https://p.example/2", &page("Cut", "Never read in full."));
    plain.extend_from_slice(&next[..next.len() - 40]);
    let cut_body = temp("cut-body.warc", &plain);
    for file in [cut_header, cut_body] {
        let run = research(&[&file], &[]);
        assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
        assert_eq!(run.titles(), ["Whole"]);
        assert_eq!(run.codes(), ["truncated"]);
        assert!(run.summary.starts_with("whittle: warc: 2 records · 2 pages · 1 digested · 1 failed"), "{}", run.summary);
    }
}

#[test]
fn a_bad_content_length_is_one_error_line_and_reading_goes_on() {
    let block = http(200, &["Content-Type: text/html"], page("Broken", "Its length is wrong.").as_bytes());
    let mut warc = html_response("https://b.example/1", &page("Before", "Read before the broken record."));
    // Not a number.
    warc.extend(record_with("response", b"https://b.example/nan", "application/http; msgtype=response", &block, Some("12ab")));
    warc.extend(html_response("https://b.example/2", &page("Between", "Read between the broken records.")));
    // Too short: the record's end is not where it says.
    warc.extend(record_with("response", b"https://b.example/short", "application/http; msgtype=response", &block, Some("100")));
    warc.extend(html_response("https://b.example/3", &page("After", "Read after the broken records.")));
    // Blank lines at the end are not a record.
    warc.extend_from_slice(b"\r\n\r\n");
    let file = temp("bad-length.warc", &warc);
    let run = research(&[&file], &[]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(run.titles(), ["Before", "Between", "After"]);
    assert_eq!(run.codes(), ["bad_record", "bad_record"], "{:?}", run.failed());
    assert_eq!(run.failed()[1]["url"], "https://b.example/short");
    assert!(run.summary.starts_with("whittle: warc: 5 records · 5 pages · 3 digested · 2 failed · 0 skipped"), "{}", run.summary);

    // A broken HTTP head is one error line too.
    let mut warc = record("response", "https://h.example/", b"HTTP/1.1 2x0 OK\r\nContent-Type: text/html\r\n\r\n<title>x</title>");
    warc.extend(record("response", "https://h.example/cut", b"HTTP/1.1 200 OK\r\nContent-Type: text/ht"));
    warc.extend(html_response("https://h.example/ok", &page("Fine", "The head parses.")));
    let run = research(&[&temp("bad-head.warc", &warc)], &[]);
    assert_eq!(run.titles(), ["Fine"]);
    assert_eq!(run.codes(), ["bad_record", "bad_record"]);
}

#[test]
fn an_oversized_record_is_too_large_and_skipped() {
    let big = page("Big", &"many words in a long page ".repeat(400));
    assert!(big.len() > 5_000);
    let mut warc = html_response("https://big.example/", &big);
    // Small as stored, large once decompressed.
    let bomb = gzip(&vec![b' '; 50_000]);
    warc.extend(record("response", "https://bomb.example/", &http(200, &["Content-Type: text/html", "Content-Encoding: gzip"], &bomb)));
    warc.extend(html_response("https://small.example/", &page("Small", "Fits.")));
    let file = temp("big.warc", &warc);
    let run = research(&[&file], &["--max-page-bytes", "4000"]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(run.titles(), ["Small"]);
    assert_eq!(run.codes(), ["too_large", "too_large"]);
    assert_eq!(run.failed()[0]["url"], "https://big.example/");
    // Without the flag, the default (10 MiB) lets them through.
    let run = research(&[&file], &[]);
    assert_eq!(run.ok().len(), 3, "the blank page is a page too: {:?}", run.lines);
    assert_eq!(run.titles().first().map(String::as_str), Some("Big"));
}

#[test]
fn binary_and_invalid_utf8_do_not_crash() {
    let mut garbage: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    garbage.extend_from_slice(b"\xff\xfe<title>\xc3\x28 Bad \xe2\x82</title>");
    let mut warc = record("response", "https://bin.example/html", &http(200, &["Content-Type: text/html"], &garbage));
    // Binary without a Content-Type: not sniffed as HTML.
    warc.extend(record("response", "https://bin.example/blob", &http(200, &[], &garbage)));
    // A WARC header value and an HTTP header value that are not UTF-8.
    let mut odd = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\xff\r\n\r\n".to_vec();
    odd.extend_from_slice(page("Odd header", "Still read.").as_bytes());
    warc.extend(record_with("response", b"https://bin.example/\xff\xfe", "application/http; msgtype=response", &odd, None));
    // Bytes that are no WARC at all, then a record.
    warc.extend_from_slice(&garbage);
    warc.extend_from_slice(b"\r\n");
    warc.extend(html_response("https://bin.example/after", &page("After garbage", "Found again.")));
    let file = temp("binary.warc", &warc);
    let run = research(&[&file], &[]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert!(run.titles().contains(&"After garbage".to_owned()), "{:?}", run.lines);
    assert!(run.titles().contains(&"Odd header".to_owned()), "{:?}", run.lines);
    assert!(run.summary.contains("not html 1"), "{}", run.summary);
    let html = run.lines.iter().find(|l| l["url"] == "https://bin.example/html");
    assert!(html.is_some_and(|l| l["ok"] == Value::Bool(true)), "{:?}", run.lines);
    // A random file is one error line, not a crash.
    let run = research(&[&temp("random.warc", &garbage)], &[]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(run.codes(), ["bad_record"]);
}

#[test]
fn thousands_of_records_are_all_counted() {
    let pages = 1500;
    let mut warc = Vec::new();
    for i in 0..pages {
        let url = format!("https://many.example/{i}");
        warc.extend(record("request", &url, b"GET / HTTP/1.1\r\n\r\n"));
        warc.extend(html_response(&url, &format!("<title>Page {i}</title><p>Page number {i}.")));
    }
    let file = temp("many.warc.gz", &gzip(&warc));
    let started = std::time::Instant::now();
    let run = research(&[&file], &["--budget", "60"]);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(
        run.summary,
        format!("whittle: warc: {} records · {pages} pages · {pages} digested · 0 failed · {pages} skipped (request {pages}, metadata 0, revisit 0, redirect 0, not html 0, other 0)", pages * 2)
    );
    let mut titles = run.titles();
    titles.dedup();
    assert_eq!(titles.len(), pages);
    assert_eq!(titles[pages - 1], format!("Page {}", pages - 1));
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
}

#[test]
fn usage_errors_come_before_any_output() {
    let good = temp("good.warc", &html_response("https://g.example/", &page("Good", "Fine.")));
    let good = good.display().to_string();
    let missing = "/nonexistent/whittle/archive.warc.gz";
    let o = whittle(&["research", "--warc", &good, missing]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains(missing), "{}", stderr(&o));
    let dir = std::env::temp_dir().display().to_string();
    let o = whittle(&["research", "--warc", &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("directory"), "{}", stderr(&o));
    let o = whittle(&["research", "--scripts", "--warc", &good]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--scripts"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let o = whittle(&["research", "https://example.com/", "--warc", &good]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = whittle(&["research", "--urls-file", &good, "--warc", &good]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = whittle(&["research", "--max-page-bytes", "10", "https://example.com/"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
