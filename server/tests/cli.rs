//! The `whittle` command line, run as a user runs it: exit codes, output
//! formats, bad input, and pages fetched from a loopback server the test
//! starts itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn whittle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run whittle: {e}"))
}

fn whittle_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run whittle: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("whittle did not finish: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn demo_shop() -> PathBuf {
    whittle_corpus::fixtures_dir().join("demo-shop.html")
}

#[test]
fn snapshot_of_the_demo_shop() {
    let path = demo_shop();
    let o = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--base-url", "https://shop.example/checkout"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let expected = std::fs::read_to_string(whittle_corpus::fixtures_dir().join("demo-shop.expected"))
        .unwrap_or_else(|e| panic!("demo-shop.expected: {e}"));
    assert_eq!(text, expected);
}

#[test]
fn json_envelope_keeps_page_text_out_of_server() {
    let path = demo_shop();
    let o = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--format", "json", "--base-url", "https://shop.example/checkout"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("not JSON: {e}"));
    assert_eq!(v["ok"], true);
    let server = &v["server"];
    for key in ["tool", "operation_id", "tab_id", "snapshot_id", "origin", "engine", "viewport", "capture", "dialog_open", "notices", "counters"] {
        assert!(!server[key].is_null() || key == "origin", "server.{key} missing");
    }
    assert_eq!(server["origin"], "https://shop.example");
    assert_eq!(server["engine"], "static");
    let server_text = server.to_string();
    for page_written in ["Demo Shop", "Shipping", "Widget", "Email", "Country"] {
        assert!(!server_text.contains(page_written), "page text {page_written:?} leaked into server: {server_text}");
    }
    let content = &v["page_content"];
    assert_eq!(content["title"], "Shipping – Demo Shop");
    let elements = content["elements"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(server["counters"]["marks"], elements);
    assert_eq!(server["counters"]["tree_lines"], content["tree"].as_array().map(Vec::len).unwrap_or(0));
    let email = content["elements"].as_array().and_then(|a| a.iter().find(|e| e["name"] == "Email")).cloned();
    let email = email.unwrap_or_default();
    assert_eq!(email["role"], "textbox");
    assert_eq!(email["states"], serde_json::json!(["required"]));
    // The same page gives the same snapshot id.
    let again = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--format", "json", "--base-url", "https://shop.example/checkout"]);
    let v2: serde_json::Value = serde_json::from_str(&stdout(&again)).unwrap_or_default();
    assert_eq!(v["server"]["snapshot_id"], v2["server"]["snapshot_id"]);
}

#[test]
fn the_viewport_decides_what_is_in_view() {
    let path = demo_shop();
    let json = |viewport: &str| -> serde_json::Value {
        let o = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--format", "json", "--viewport", viewport]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("not JSON: {e}"))
    };
    let wide = json("1280x800");
    let small = json("400x300");
    assert_eq!(wide["server"]["viewport"]["width"], 1280);
    assert_eq!(small["server"]["viewport"]["height"], 300);
    let height = |v: &serde_json::Value| v["server"]["viewport"]["content_height"].as_u64().unwrap_or(0);
    assert!(height(&wide) > 800, "the demo shop is taller than one screen: {}", height(&wide));
    assert!(height(&small) > 300, "several screens of 300 px: {}", height(&small));
    let below = |viewport: &str| -> Option<f32> {
        let o = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--viewport", viewport]);
        let first = stdout(&o).lines().next().unwrap_or_default().to_owned();
        first.rsplit_once('↓').and_then(|(_, n)| n.parse().ok())
    };
    let (below_wide, below_small) = (below("1280x800"), below("400x300"));
    assert!(below_wide.is_some_and(|w| below_small.is_some_and(|s| s > w)), "{below_wide:?} {below_small:?}");
    let bad = whittle(&["snapshot", path.to_str().unwrap_or_default(), "--viewport", "wide"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("WIDTHxHEIGHT"), "{}", stderr(&bad));
}

#[test]
fn a_device_scale_outside_one_to_four_is_refused() {
    for bad in ["0", "5", "two", "NaN", "inf"] {
        let o = whittle(&["mcp", "--device-scale", bad]);
        assert_eq!(o.status.code(), Some(2), "--device-scale {bad}");
        assert!(stderr(&o).contains("from 1 to 4"), "--device-scale {bad}: {}", stderr(&o));
    }
}

#[test]
fn inspect_prints_one_json_object_per_match() {
    let page = br#"<title>t</title><form aria-label="Sign in"><label>Email <input type=email required></label>
        <input type=password name=pw><button disabled>Go</button></form><p hidden><a href=/x>x</a></p>"#;
    let o = whittle_stdin(&["inspect", "-", "input, button, a"], page);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap_or_default()).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["tag"], "input");
    assert_eq!(lines[0]["role"], "textbox");
    assert_eq!(lines[0]["name"], "Email");
    assert_eq!(lines[0]["states"], serde_json::json!(["required"]));
    assert_eq!(lines[0]["attrs"]["type"], "email");
    assert!(lines[0]["ref"].is_u64());
    assert_eq!(lines[1]["sensitive"], "password");
    assert_eq!(lines[2]["role"], "button");
    assert_eq!(lines[2]["states"], serde_json::json!(["disabled"]));
    assert_eq!(lines[3]["hidden"], true);
    assert!(lines[3]["ref"].is_null(), "hidden elements get no ref");
}

#[test]
fn bad_input_gives_clear_errors_and_exit_codes() {
    // A missing file: exit 1, one line.
    let o = whittle(&["snapshot", "/nonexistent/whittle/page.html"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("whittle: cannot read /nonexistent/whittle/page.html"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
    // A directory.
    let o = whittle(&["snapshot", "/"]);
    assert_eq!(o.status.code(), Some(1));
    // An invalid selector: a usage error, exit 2.
    let o = whittle_stdin(&["inspect", "-", "a[[["], b"<a>x</a>");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid selector"));
    // A scheme whittle does not fetch.
    let o = whittle(&["snapshot", "ftp://example.test/x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("invalid URL"));
    let o = whittle(&["snapshot", "--format", "json", "ftp://example.test/x"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["server"]["error"]["code"], "invalid_url");
    // A bad --base-url is a usage error.
    let o = whittle_stdin(&["snapshot", "-", "--base-url", "not a url"], b"<p>x");
    assert_eq!(o.status.code(), Some(2));
    // Unknown arguments.
    assert_eq!(whittle(&["snapshot"]).status.code(), Some(2));
    assert_eq!(whittle(&["frobnicate"]).status.code(), Some(2));
    // Pages that are not really HTML still render.
    for input in [&b""[..], b"\xff\xfe\x00\x01binary\x80\x81", b"\xc3\x28 invalid utf-8 \xe2\x82", b"<style>}}}{{{ a{display:</style><p>ok"] {
        let o = whittle_stdin(&["snapshot", "-"], input);
        assert!(o.status.success(), "input {input:?}: {}", stderr(&o));
        assert!(stdout(&o).starts_with('#'));
    }
}

/// A loopback HTTP server for the test: serves `routes` (path → status,
/// content type, body) to any number of requests, on a thread.
fn serve(routes: Vec<(&'static str, u16, &'static str, Vec<u8>)>) -> String {
    serve_counted(routes).0
}

/// [`serve`], and how many connections the server accepted.
fn serve_counted(routes: Vec<(&'static str, u16, &'static str, Vec<u8>)>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}"));
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap_or_else(|e| panic!("clone: {e}")));
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).map_or(true, |n| n == 0) || header == "\r\n" {
                    break;
                }
            }
            let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let (status, ctype, body) = routes
                .iter()
                .find(|(p, ..)| *p == path)
                .map(|(_, s, c, b)| (*s, *c, b.clone()))
                .unwrap_or((404, "text/plain", b"not found".to_vec()));
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
            let mut rest = Vec::new();
            let _ = reader.read_to_end(&mut rest);
        }
    });
    (format!("http://{addr}"), hits)
}

#[test]
fn fetches_pages_and_their_stylesheets_over_http() {
    let page = br#"<!doctype html><meta charset=windows-1251><title>Shop</title>
        <link rel=stylesheet href="/style.css"><p class=promo>Secret promo</p><p>Visible
        <a href="/next">Next</a>"#
        .to_vec();
    let base = serve(vec![
        ("/page", 200, "text/html; charset=utf-8", page),
        ("/style.css", 200, "text/css", b".promo { display: none }".to_vec()),
        ("/missing", 404, "text/html", b"gone".to_vec()),
        ("/logo.png", 200, "image/png", b"\x89PNG\r\n".to_vec()),
    ]);
    let o = whittle(&["snapshot", "--allow-private", &format!("{base}/page")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let host = base.trim_start_matches("http://");
    assert!(text.starts_with(&format!("# Shop · {host}/page\n")), "{text}");
    assert!(text.contains("Visible"));
    assert!(!text.contains("Secret promo"), "the linked stylesheet hides it: {text}");
    // A 404 is an I/O error; in JSON it is also an error envelope.
    let o = whittle(&["snapshot", "--allow-private", &format!("{base}/missing")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("answered HTTP 404"), "{}", stderr(&o));
    let o = whittle(&["snapshot", "--allow-private", "--format", "json", &format!("{base}/missing")]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["ok"], false);
    assert_eq!(v["server"]["error"]["code"], "nav_failed");
    // Something that is not a page is refused, not rendered.
    let o = whittle(&["snapshot", "--allow-private", &format!("{base}/logo.png")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not an HTML page (Content-Type: image/png)"), "{}", stderr(&o));
    // Nothing listens on a port we just closed: unreachable.
    let closed = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(9);
    let o = whittle(&["snapshot", "--allow-private", &format!("http://127.0.0.1:{closed}/")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("whittle: cannot fetch"), "{}", stderr(&o));
}

#[test]
fn snapshot_modes_budget_expand_and_no_fold() {
    let path = demo_shop();
    let p = path.to_str().unwrap_or_default();
    let base = ["--base-url", "https://shop.example/checkout"];
    let run = |extra: &[&str]| {
        let mut args = vec!["snapshot", p];
        args.extend(base);
        args.extend(extra);
        whittle(&args)
    };
    // A small budget folds the products into the list's ref (with a short
    // viewport, so that they lie below the first screen: what is in view is
    // never folded away).
    let o = run(&["--budget", "300", "--viewport", "1280x300"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.trim_end().ends_with("more items (observe ref 11)"), "{text}");
    // Expanding that ref shows the list alone, every product.
    let o = run(&["--expand", "11"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("[11] list \"Products\"")), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains("Add to cart")).count(), 21);
    // `actions` drops text, `read` drops refs.
    let o = whittle_stdin(&["snapshot", "-", "--mode", "actions"], b"<p>Just prose here.</p><a href=/x>Go</a>");
    assert!(o.status.success());
    assert_eq!(stdout(&o), "#\n[1] link \"Go\"\n");
    let o = run(&["--mode", "read"]);
    assert!(o.status.success());
    assert!(!stdout(&o).contains("[1]"), "{}", stdout(&o));
    assert!(stdout(&o).contains("h1 Shipping"));
    // --no-fold keeps every ref.
    let o = run(&["--no-fold", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["server"]["counters"]["marks"], 53);
    assert_eq!(v["server"]["counters"]["tree_truncated"], false);
    // The envelope lists only the refs the folded text shows.
    let o = run(&["--budget", "300", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    let marks = v["server"]["counters"]["marks"].as_u64().unwrap_or(0);
    assert!(marks > 0 && marks < 53, "{marks}");
    assert_eq!(v["page_content"]["elements"].as_array().map_or(0, Vec::len) as u64, marks);
}

#[test]
fn bad_view_arguments_are_usage_errors() {
    let path = demo_shop();
    let p = path.to_str().unwrap_or_default();
    for (args, says) in [
        (&["--mode", "everything"][..], "--mode must be actions, full or read"),
        (&["--budget", "lots"], "--budget must be a number"),
        (&["--budget", "5"], "--budget must be from 100"),
        (&["--budget", "-3"], "--budget must be a number"),
        (&["--expand", "x"], "--expand must be a ref"),
        (&["--expand", "0"], "--expand must be a ref"),
        (&["--expand", "999"], "the page has no ref 999"),
        (&["--budget", "500", "--no-fold"], "exclude each other"),
    ] {
        let mut all = vec!["snapshot", p];
        all.extend(args);
        let o = whittle(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("whittle: ") && stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
}

fn article_fixture() -> PathBuf {
    whittle_corpus::fixtures_dir().join("article.html")
}

#[test]
fn extract_prints_the_main_content_a_table_or_a_list() {
    let path = article_fixture();
    let o = whittle(&["extract", path.to_str().unwrap_or_default()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // The article, its headings, table rows and list; not the masthead,
    // the share bar, the newsletter box, the teasers, the sidebar or the
    // footer.
    assert!(text.starts_with("Three operators will run sleeper trains"), "{text}");
    assert!(text.contains("\nWhat it costs\n") && text.contains("\nZurich – Vienna | 21:40 | 07:15\n"), "{text}");
    assert!(text.ends_with("\nPets are allowed in private cabins only.\n"), "{text}");
    for frame in ["Share on X", "newsletter", "Ferries", "Most read", "All rights reserved", "Mara Lind"] {
        assert!(!text.contains(frame), "{frame:?} in {text}");
    }
    let o = whittle(&["extract", "--kind", "table", path.to_str().unwrap_or_default()]);
    assert_eq!(stdout(&o), "[9] table · 2 rows\nRoute | Departs | Arrives\nZurich – Vienna | 21:40 | 07:15\nMilan – Vienna | 20:05 | 07:50\n");
    // Standard input works too; a page without a table says so (exit 1).
    let o = whittle_stdin(&["extract", "--kind", "table", "-"], b"<p>No tables here.</p>");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "whittle: no table on the page\n");
    let o = whittle_stdin(&["extract", "-"], b"<p>Just one line.</p>");
    assert_eq!(stdout(&o), "Just one line.\n");
}

#[test]
fn research_streams_one_json_object_per_page() {
    let article = std::fs::read(article_fixture()).unwrap_or_else(|e| panic!("{e}"));
    let base = serve(vec![
        ("/night-trains", 200, "text/html", article),
        ("/report.pdf", 200, "application/pdf", b"%PDF-1.4".to_vec()),
    ]);
    let urls = [format!("{base}/night-trains"), format!("{base}/report.pdf"), "nope".to_owned(), format!("{base}/night-trains")];
    let args: Vec<&str> = ["research", "--allow-private", "--jsonl"].into_iter().chain(urls.iter().map(String::as_str)).collect();
    let o = whittle(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    assert_eq!(lines.len(), 4);
    lines.sort_by_key(|v| v["index"].as_u64());
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["url"], urls[0].as_str());
    assert_eq!(lines[0]["title"], "Night trains return to the Alps");
    let digest = lines[0]["digest"].as_str().unwrap_or_default();
    let host = base.trim_start_matches("http://");
    assert!(digest.starts_with(&format!("## [1] Night trains return to the Alps · {host}/night-trains\nby Mara Lind · 2026-11-18 · The Daily Example\noutline: Night trains return to the Alps / What it costs / Why now\nThree operators will run sleeper trains")), "{digest}");
    assert!(digest.contains("\nRoute | Departs | Arrives\n") && digest.ends_with("links 14 · forms 1\n"), "{digest}");
    assert!(lines[0].get("error").is_none());
    for (i, code) in [(1, "nav_failed"), (2, "invalid_url"), (3, "duplicate")] {
        assert_eq!(lines[i]["ok"], false, "{}", lines[i]);
        assert_eq!(lines[i]["error"]["code"], code, "{}", lines[i]);
    }
    // Without --jsonl: the digests in input order, from a file of URLs.
    let file = std::env::temp_dir().join(format!("whittle-urls-{}.txt", std::process::id()));
    std::fs::write(&file, format!("# pages\n{}\n\n{}\n", urls[0], urls[1])).unwrap_or_else(|e| panic!("{e}"));
    let o = whittle(&["research", "--allow-private", "--urls-file", file.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&file);
    let text = stdout(&o);
    assert!(text.starts_with("research: 2 pages · 1 digested · 1 failed\n## [1] Night trains"), "{text}");
    assert!(text.contains(&format!("\n## [2] ✗ {host}/report.pdf · nav_failed: ")), "{text}");
    // No URLs at all is a usage error.
    let o = whittle(&["research"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn private_addresses_and_other_sites_are_refused_before_anything_is_sent() {
    let page = b"<!doctype html><title>Shop</title><link rel=stylesheet href=STYLE><p class=promo>Secret promo</p><p>Visible".to_vec();
    let (other, other_hits) = serve_counted(vec![("/style.css", 200, "text/css", b".promo { display: none }".to_vec())]);
    let page = String::from_utf8_lossy(&page).replace("STYLE", &format!("{other}/style.css")).into_bytes();
    let (base, hits) = serve_counted(vec![("/page", 200, "text/html", page)]);
    let port = base.rsplit(':').next().unwrap_or_default().to_owned();
    // By default loopback is refused: by address, and by a name that
    // resolves to it; for every command that fetches.
    for url in [format!("{base}/page"), format!("http://localhost:{port}/page")] {
        for args in [vec!["snapshot", url.as_str()], vec!["extract", url.as_str()], vec!["inspect", url.as_str(), "p"]] {
            let o = whittle(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
            assert!(stderr(&o).contains("not allowed") && stderr(&o).contains("--allow-private"), "{args:?}: {}", stderr(&o));
        }
        let o = whittle(&["research", "--jsonl", url.as_str()]);
        assert!(stdout(&o).contains("\"origin_not_allowed\""), "{}", stdout(&o));
    }
    let o = whittle(&["snapshot", "--format", "json", "http://169.254.169.254/latest/meta-data/"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["server"]["error"]["code"], "origin_not_allowed", "{v}");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing reached the loopback server");
    // A profile that allows one loopback site: its page loads, the
    // stylesheet on another port is never requested (so the promo shows).
    let dir = std::env::temp_dir().join(format!("whittle-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, format!("[sites]\nallow = [\"127.0.0.1:{port}\"]\nprivate = true\n")).unwrap_or_else(|e| panic!("{e}"));
    let o = whittle(&["snapshot", "--profile", profile.to_str().unwrap_or_default(), &format!("{base}/page")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Visible") && stdout(&o).contains("Secret promo"), "{}", stdout(&o));
    assert_eq!(other_hits.load(Ordering::SeqCst), 0, "the other site got no request");
    assert!(hits.load(Ordering::SeqCst) > 0);
    // A site the profile does not list is refused, even with --allow-private.
    let o = whittle(&["snapshot", "--allow-private", "--profile", profile.to_str().unwrap_or_default(), &format!("{other}/style.css")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not among the profile's allowed sites"), "{}", stderr(&o));
    assert_eq!(other_hits.load(Ordering::SeqCst), 0);
    // A bad profile names its line; a missing one is an error.
    std::fs::write(&profile, "paused = false\n[sites]\nallow = [\"https://x.test/path\"]\n").unwrap_or_else(|e| panic!("{e}"));
    let o = whittle(&["snapshot", "--profile", profile.to_str().unwrap_or_default(), &format!("{base}/page")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("profile.toml line 3:"), "{}", stderr(&o));
    let o = whittle(&["snapshot", "--profile", "/nonexistent/whittle.toml", &format!("{base}/page")]);
    assert_eq!(o.status.code(), Some(2));
    // Paused: nothing is fetched or printed.
    std::fs::write(&profile, "paused = true\n").unwrap_or_else(|e| panic!("{e}"));
    let before = hits.load(Ordering::SeqCst);
    let o = whittle(&["snapshot", "--allow-private", "--profile", profile.to_str().unwrap_or_default(), &format!("{base}/page")]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).is_empty() && stderr(&o).contains("⏸ paused"), "{}", stderr(&o));
    assert_eq!(hits.load(Ordering::SeqCst), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder for one test's saved pages.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    files.sort();
    files
}

#[test]
fn corpus_add_saves_the_page_as_fetched_with_its_metadata() {
    let dir = scratch_dir("corpus-add");
    // Latin-1 bytes, a cookie that must not reach the metadata (the test
    // server writes the content type into the head as given, so a second
    // header rides along after it), a redirect to follow.
    let page = b"<!doctype html><title>Caf\xe9</title><main><p>na\xefve prose</p></main>".to_vec();
    let url = serve(vec![
        ("/page", 200, "text/html; charset=iso-8859-1\r\nSet-Cookie: sid=cookie-canary-4711\r\nX-Served-By: loopback", page.clone()),
        ("/old", 301, "text/html\r\nLocation: /page", Vec::new()),
        ("/logo.png", 200, "image/png", b"\x89PNG\r\n\x1a\n".to_vec()),
        ("/big", 200, "text/html", vec![b'a'; 200_000]),
        ("/gone", 404, "text/html", b"<p>gone".to_vec()),
    ]);
    let dir_arg = dir.to_str().unwrap_or_default();
    let o = whittle(&["corpus", "add", &format!("{url}/old"), "--dir", dir_arg, "--allow-private"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("windows-1252, status 200"), "{}", stdout(&o));
    let files = files_in(&dir);
    assert_eq!(files.len(), 2, "one page and its metadata: {files:?}");
    let html = files.iter().find(|p| p.extension().is_some_and(|e| e == "html")).cloned().unwrap_or_default();
    assert_eq!(std::fs::read(&html).unwrap_or_default(), page, "the bytes as sent, undecoded");
    let meta_text = std::fs::read_to_string(html.with_extension("json")).unwrap_or_default();
    let meta: serde_json::Value = serde_json::from_str(&meta_text).unwrap_or_else(|e| panic!("metadata is JSON: {e}"));
    assert_eq!(meta["url"], format!("{url}/old"));
    assert_eq!(meta["final_url"], format!("{url}/page"));
    assert_eq!(meta["redirects"][0], format!("{url}/old"));
    assert_eq!(meta["status"], 200);
    assert_eq!(meta["charset"], "iso-8859-1");
    assert_eq!(meta["encoding"], "windows-1252");
    assert_eq!(meta["rendered"], false);
    assert_eq!(meta["bytes"], page.len());
    let fetched_at = meta["fetched_at"].as_str().unwrap_or_default();
    assert!(fetched_at.len() == 20 && fetched_at.ends_with('Z') && fetched_at.as_bytes()[10] == b'T', "{fetched_at}");
    let headers = meta["headers"].as_array().cloned().unwrap_or_default();
    assert!(headers.iter().any(|h| h[0] == "x-served-by" && h[1] == "loopback"), "{meta_text}");
    assert!(!meta_text.contains("cookie-canary-4711"), "a Set-Cookie value reached the metadata: {meta_text}");
    assert_eq!(meta["dropped_headers"][0], "set-cookie");

    // The saved page is a page: whittle reads it back, decoded right.
    let o = whittle(&["snapshot", html.to_str().unwrap_or_default()]);
    assert!(stdout(&o).contains("Café") && stdout(&o).contains("naïve prose"), "{}", stdout(&o));
    // The manifest's `user` suite finds it.
    let o = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(["corpus", "list"])
        .env("WHITTLE_USER_CORPUS", &dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run whittle: {e}"));
    let user_line = stdout(&o).lines().find(|l| l.starts_with("user ")).unwrap_or_default().to_owned();
    assert!(user_line.contains("1 pages in"), "{}", stdout(&o));
    // Adding the same URL again replaces it.
    let o = whittle(&["corpus", "add", &format!("{url}/old"), "--dir", dir_arg, "--allow-private"]);
    assert!(stdout(&o).contains("replaced the earlier save"), "{}", stdout(&o));

    // What is not a page, too large, an error status or unreachable is a
    // clear error, and nothing is saved.
    let refused_port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(1);
    for (target, extra, expected) in [
        (format!("{url}/logo.png"), None, "not an HTML page"),
        (format!("{url}/big"), Some("100000"), "larger than 100000 bytes"),
        (format!("{url}/gone"), None, "404"),
        (format!("http://127.0.0.1:{refused_port}/"), None, "cannot fetch"),
        ("not a url".to_owned(), None, "invalid URL"),
    ] {
        let mut args = vec!["corpus", "add", &target, "--dir", dir_arg, "--allow-private"];
        if let Some(max) = extra {
            args.extend(["--max-bytes", max]);
        }
        let o = whittle(&args);
        assert_eq!(o.status.code(), Some(1), "{target}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{target}: expected {expected:?} in {}", stderr(&o));
    }
    assert_eq!(files_in(&dir).len(), 2, "errors saved nothing");
    // Without --allow-private the loopback server is refused, as everywhere.
    let o = whittle(&["corpus", "add", &format!("{url}/page"), "--dir", dir_arg]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("loopback"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a Chromium is found; without one a test says it skipped, or
/// fails under `WHITTLE_CHROMIUM_TESTS=require`.
fn chromium_found(test: &str) -> bool {
    if whittle::backend::cdp::find_chromium(None).is_ok() {
        return true;
    }
    assert!(
        std::env::var("WHITTLE_CHROMIUM_TESTS").map_or(true, |v| v != "require"),
        "WHITTLE_CHROMIUM_TESTS=require but no Chromium was found"
    );
    eprintln!("{test}: skipped: no Chromium (apt-get install -y chromium)");
    false
}

#[test]
fn corpus_add_rendered_saves_what_scripts_built() {
    if !chromium_found("corpus_add_rendered_saves_what_scripts_built") {
        return;
    }
    let dir = scratch_dir("corpus-rendered");
    let page = b"<!doctype html><meta charset=windows-1252><title>App</title><div id=root></div>\
        <script>document.getElementById('root').innerHTML = '<h1>Built by script \\u00e9</h1>'</script>"
        .to_vec();
    let url = serve(vec![("/app", 200, "text/html", page)]);
    let o = whittle(&["corpus", "add", &format!("{url}/app"), "--rendered", "--dir", dir.to_str().unwrap_or_default(), "--allow-private"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = files_in(&dir).into_iter().find(|p| p.extension().is_some_and(|e| e == "html")).unwrap_or_default();
    assert!(html.to_string_lossy().ends_with("-rendered.html"), "{}", html.display());
    let bytes = std::fs::read(&html).unwrap_or_default();
    assert!(bytes.starts_with(b"\xEF\xBB\xBF<!DOCTYPE html>"), "UTF-8 with a BOM, doctype first");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("<h1>Built by script é</h1>"), "{text}");
    let meta = std::fs::read_to_string(html.with_extension("json")).unwrap_or_default();
    assert!(meta.contains("\"rendered\": true"), "{meta}");
    // The BOM wins over the page's own windows-1252 declaration.
    let o = whittle(&["snapshot", html.to_str().unwrap_or_default()]);
    assert!(stdout(&o).contains("Built by script é"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_generate_writes_pages_and_refuses_bad_sizes() {
    let o = whittle(&["corpus", "generate", "wide-list", "20k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.len() >= 20 * 1024 && page.matches("<li").count() > 100, "{} bytes", page.len());
    let o = whittle_stdin(&["snapshot", "-"], page.as_bytes());
    assert!(o.status.success() && stdout(&o).starts_with("# "), "{}", stderr(&o));
    for (args, expected) in [
        (vec!["corpus", "generate", "spaghetti", "1k"], "the kinds are realistic"),
        (vec!["corpus", "generate", "table", "lots"], "give a number"),
        (vec!["corpus", "generate", "realistic", "2000m"], "over the limit"),
        (vec!["corpus", "generate", "deep-div", "100000000"], "over the limit"),
    ] {
        let o = whittle(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_saved_page_reads_its_linked_and_imported_sheets_from_disk() {
    let dir = scratch_dir("imports");
    let write = |path: &str, text: &str| {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(&dir)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(file, text).unwrap_or_else(|e| panic!("{e}"));
    };
    write(
        "page.html",
        "<title>Saved</title><link rel=stylesheet href=css/theme.css><style>@import 'css/inline.css';</style>\
         <h1>Guide<a class=headerlink href=#guide>¶</a></h1><p class=promo>Buy now</p><p>Kept</p>",
    );
    write("css/theme.css", "@import url(sub/basic.css);");
    write("css/sub/basic.css", "a.headerlink { visibility: hidden }");
    write("css/inline.css", ".promo { display: none }");
    let page = dir.join("page.html");
    let o = whittle(&["snapshot", page.to_str().unwrap_or_default()]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(text.contains("Kept") && !text.contains('¶') && !text.contains("Buy now"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_local_page_is_read_offline_unless_its_web_stylesheets_are_asked_for() {
    let (base, hits) = serve_counted(vec![("/web.css", 200, "text/css", b".lead { display: none }".to_vec())]);
    let dir = scratch_dir("offline");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("local.css"), ".aside { display: none }").unwrap_or_else(|e| panic!("{e}"));
    let html = format!(
        "<title>Saved</title><link rel=stylesheet href={base}/web.css><link rel=stylesheet href=local.css>\
         <main><h1>Guide</h1><p class=lead>Buy now, the whole set of guides at half the price this week.</p>\
         <p class=aside>Side note that the local stylesheet hides from view.</p>\
         <p>Kept text of the guide, which no stylesheet hides from anyone.</p></main>"
    );
    std::fs::write(dir.join("page.html"), &html).unwrap_or_else(|e| panic!("{e}"));
    let page = dir.join("page.html");
    let page = page.to_str().unwrap_or_default();
    // Private addresses are allowed, so only the offline rule keeps the
    // loopback stylesheet from being fetched.
    for args in [
        vec!["snapshot", "-v", "--allow-private", page],
        vec!["extract", "-v", "--allow-private", page],
        vec!["inspect", "-v", "--allow-private", page, "p"],
    ] {
        let o = whittle(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("1 stylesheet on the web not fetched (--fetch-stylesheets fetches them)"), "{args:?}: {}", stderr(&o));
        if args[0] != "inspect" {
            let text = stdout(&o);
            assert!(text.contains("Kept text") && text.contains("Buy now") && !text.contains("Side note"), "{args:?}: {text}");
        }
    }
    // The same from standard input (its sheets on the web skipped alike).
    let o = whittle_stdin(&["extract", "--allow-private", "-"], html.as_bytes());
    assert!(o.status.success() && stdout(&o).contains("Buy now"), "{}", stderr(&o));
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a local page made no connection");
    // Asked for, the web stylesheet is fetched and applies.
    let o = whittle(&["extract", "--allow-private", "--fetch-stylesheets", page]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("Buy now") && stdout(&o).contains("Kept text"), "{}", stdout(&o));
    assert_eq!(hits.load(Ordering::SeqCst), 1, "one fetch of the one web stylesheet");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn logging_settings_that_cannot_work_are_one_line_errors() {
    let page = demo_shop();
    let page = page.to_str().unwrap_or_default();
    let run = |args: &[&str], rust_log: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_whittle"));
        cmd.args(args).env_remove("RUST_LOG");
        if let Some(v) = rust_log {
            cmd.env("RUST_LOG", v);
        }
        cmd.output().unwrap_or_else(|e| panic!("cannot run whittle: {e}"))
    };
    // By default a command that works logs nothing.
    let o = run(&["snapshot", page], None);
    assert!(o.status.success() && stderr(&o).is_empty(), "{}", stderr(&o));
    for (args, rust_log, says) in [
        (vec!["snapshot", page], Some("whittle=["), "RUST_LOG \"whittle=[\" does not parse"),
        (vec!["--log-file", "/nonexistent/whittle/dir/log", "snapshot", page], None, "--log-file /nonexistent/whittle/dir/log: "),
        (vec!["snapshot", "--log-level", "loud", page], None, "give error, warn, info, debug or trace"),
    ] {
        let o = run(&args, rust_log);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: nothing is printed after a bad setting");
    }
    // The log goes to the file, not to stderr; --log-level wins over RUST_LOG.
    let dir = scratch_dir("logfile");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let log = dir.join("whittle.log");
    let o = run(&["extract", "--log-level", "info", "--log-file", log.to_str().unwrap_or_default(), "http://127.0.0.1:1/?key=canary-q-55"], Some("off"));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.contains("page fetch failed") && text.contains("origin=http://127.0.0.1:1"), "{text}");
    assert!(!text.contains("canary-q-55"), "a query string reached the log: {text}");
    assert!(!stderr(&o).contains("page fetch failed"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `whittle doctor` run in `dir` (its working folder) with `home` as HOME
/// and `tmp` as the temporary folder, nothing else of this user's.
fn doctor(dir: &std::path::Path, home: &std::path::Path, tmp: &std::path::Path, args: &[&str]) -> (Output, std::time::Duration) {
    let started = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("doctor")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("WHITTLE_PROFILE")
        .env_remove("CODEX_HOME")
        .env_remove("APPDATA")
        .output()
        .unwrap_or_else(|e| panic!("cannot run whittle doctor: {e}"));
    (o, started.elapsed())
}

#[test]
fn doctor_names_what_is_broken_and_never_waits_on_a_chromium_that_hangs() {
    let dir = scratch_dir("doctor-broken");
    let (home, tmp) = (dir.join("home"), dir.join("tmp"));
    for d in [home.join(".cursor"), home.join(".codex"), dir.join(".vscode"), tmp.clone()] {
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    }
    let write = |p: PathBuf, text: &str| std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    write(home.join(".cursor/mcp.json"), r#"{"mcpServers":{"whittle":{"command":"/nonexistent/bin/whittle","args":["mcp"]}}}"#);
    write(
        home.join(".codex/config.toml"),
        "[mcp_servers.whittle]\nurl = \"http://127.0.0.1:8931/mcp\"\nbearer_token_env_var = \"WHITTLE_TOKEN\"\n",
    );
    write(dir.join(".vscode/mcp.json"), "{\"servers\": {");
    let profile = dir.join("profile.toml");
    write(profile.clone(), "[sites]\nallow = [\"https://example.org\"]\nengine = \"warp\"\n");
    // A Chromium that never answers, not even to --version.
    let nap = format!("29.{}", std::process::id());
    let fake = dir.join("chromium");
    write(fake.clone(), &format!("#!/bin/sh\nexec sleep {nap}\n"));
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap_or_else(|e| panic!("{e}"));
    }
    let args = ["--profile", profile.to_str().unwrap_or_default(), "--chromium", fake.to_str().unwrap_or_default(), "--timeout", "2"];
    let (o, took) = doctor(&dir, &home, &tmp, &args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(took < std::time::Duration::from_secs(20), "doctor took {took:?}");
    assert!(out.contains("does not parse") && out.contains("line 3"), "{out}");
    assert!(out.contains("version unknown: no answer within 2 s"), "{out}");
    assert!(out.contains("does not launch"), "{out}");
    let cursor = out.lines().find(|l| l.contains(".cursor/mcp.json")).unwrap_or_default();
    assert!(cursor.contains("PROBLEM") && cursor.contains("does not exist"), "{out}");
    let codex = out.lines().find(|l| l.contains(".codex/config.toml")).unwrap_or_default();
    assert!(codex.contains("whittle configured"), "{out}");
    let vscode = out.lines().find(|l| l.contains(".vscode/mcp.json")).unwrap_or_default();
    assert!(vscode.contains("does not parse"), "{out}");
    assert!(out.trim_end().ends_with(|c: char| c.is_ascii_alphanumeric() || c == ')'), "a summary line ends the report: {out}");
    assert!(out.contains("4 problems"), "{out}");
    // Chromium was stopped, and its profile folder removed.
    let left: Vec<_> = files_in(&tmp).into_iter().filter(|p| p.to_string_lossy().contains("whittle-chromium-")).collect();
    assert!(left.is_empty(), "{left:?}");
    let sleeping = std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c.windows(nap.len()).any(|w| w == nap.as_bytes()))
    });
    assert!(!sleeping, "the Chromium that hung was left running");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn doctor_on_a_working_machine_finds_chromium_launching_and_no_problem() {
    if !chromium_found("doctor_on_a_working_machine_finds_chromium_launching_and_no_problem") {
        return;
    }
    let dir = scratch_dir("doctor-good");
    let (home, tmp) = (dir.join("home"), dir.join("tmp"));
    std::fs::create_dir_all(home.join(".config/whittle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(&tmp).unwrap_or_else(|e| panic!("{e}"));
    let profile = home.join(".config/whittle/profile.toml");
    let downloads = dir.join("downloads");
    std::fs::write(&profile, format!("downloads = {:?}\n[sites]\nblock = [\"https://ads.example\"]\n", downloads.display().to_string()))
        .unwrap_or_else(|e| panic!("{e}"));
    let (o, _) = doctor(&dir, &home, &tmp, &[]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.starts_with(&format!("whittle {}", env!("CARGO_PKG_VERSION"))), "{out}");
    assert!(out.contains(&format!("{} (parses)", profile.display())), "the default profile is found: {out}");
    assert!(out.contains("https://ads.example"), "{out}");
    assert!(out.lines().any(|l| l.contains("headless") && l.contains("launches")), "{out}");
    assert!(out.contains(&format!("{} (made on the first download)", downloads.display())), "{out}");
    assert!(out.contains("no client config found"), "{out}");
    assert!(out.contains("No problems found."), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
