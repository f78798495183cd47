//! The `whittle` binary's servers stopped as users stop them — SIGTERM to
//! `serve`, end of input to `mcp` — with Chromium running under them:
//! they exit cleanly, and leave no Chromium process and no profile folder
//! behind. Also: the lifecycle flags refuse what cannot work, and the
//! logs name sessions without their ids.
//!
//! Each server runs with TMPDIR set to a folder of the test's own: its
//! Chromium profile goes there, and every process Chromium starts inherits
//! it, so leftovers are found by their environment, whatever else runs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::Client;
use crate::server::{Reply, Server};

fn whittle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
}

fn chromium_found(test: &str) -> bool {
    if whittle::backend::cdp::find_chromium(None).is_ok() {
        return true;
    }
    assert!(
        std::env::var("WHITTLE_CHROMIUM_TESTS").map_or(true, |v| v != "require"),
        "WHITTLE_CHROMIUM_TESTS=require but no Chromium was found"
    );
    eprintln!("{test}: SKIPPED: no Chromium (apt-get install -y chromium)");
    false
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-stop-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Processes whose environment has `TMPDIR=dir`: the server's Chromium
/// and everything it started.
fn processes_under(dir: &Path) -> Vec<String> {
    let needle = format!("TMPDIR={}", dir.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
            let state = status.lines().find(|l| l.starts_with("State:")).unwrap_or("").to_owned();
            let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            found.push(format!("{pid} {state} {}", cmd.chars().take(120).collect::<String>()));
        }
    }
    found
}

fn profiles_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("whittle-chromium-"))
        .collect()
}

/// After the server exited: nothing of its Chromium is left.
fn assert_nothing_left(dir: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_under(dir);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "{what}: processes left running:\n{}", left.join("\n"));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(profiles_in(dir), Vec::<String>::new(), "{what}: Chromium profile folders left in {}", dir.display());
}

/// The server's standard error, line by line, as it comes.
fn collect(child: &mut Child) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    });
    lines
}

fn wait_for_line(lines: &Mutex<Vec<String>>, what: &str, pick: impl Fn(&str) -> Option<String>) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(found) = lines.lock().unwrap_or_else(|e| e.into_inner()).iter().find_map(|l| pick(l)) {
            return found;
        }
        assert!(Instant::now() < deadline, "no {what} in:\n{}", lines.lock().unwrap_or_else(|e| e.into_inner()).join("\n"));
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_exit(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not exit within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn site() -> Server {
    Server::start(|_| Reply::html("<title>Plain</title><main><h1>Plain</h1><p>A page.</p><a href=/>Home</a></main>")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_serve_and_chromium_goes_with_it() {
    if !chromium_found("sigterm_stops_serve_and_chromium_goes_with_it") {
        return;
    }
    let dir = scratch("serve");
    let site = site().await;
    let mut child = whittle()
        .args(["serve", "--listen", "127.0.0.1:0", "--engine", "chromium", "--allow-private", "--nav-timeout", "10"])
        .env("TMPDIR", &dir)
        .env_remove("WHITTLE_PROFILE")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run whittle serve: {e}"));
    let lines = collect(&mut child);
    let url = wait_for_line(&lines, "listening line", |l| l.strip_prefix("listening on ").map(str::to_owned));
    let mut ids = Vec::new();
    for _ in 0..2 {
        let mut c = Client::new(&url);
        c.open().await.unwrap_or_else(|e| panic!("{e:?}"));
        let out = c.call("navigate", json!({"url": site.url("/").as_str()})).await.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out["ok"], json!(true), "{out}");
        assert_eq!(out["server"]["engine"], json!("chromium"), "{out}");
        ids.push(c.id.clone().unwrap_or_default());
    }
    assert!(!processes_under(&dir).is_empty(), "no Chromium found running under {}", dir.display());
    assert_eq!(profiles_in(&dir).len(), 1, "one Chromium profile while it runs");

    let pid = child.id().to_string();
    let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(sent.success());
    let status = wait_exit(&mut child, "whittle serve after SIGTERM");
    assert!(status.success(), "exit after SIGTERM: {status:?}");
    assert_nothing_left(&dir, "serve after SIGTERM");

    let log = lines.lock().unwrap_or_else(|e| e.into_inner()).join("\n");
    for want in ["signal=\"SIGTERM\"", "session started", "reason=\"shutdown\"", "Chromium closed"] {
        assert!(log.contains(want), "no {want} in the log:\n{log}");
    }
    for id in &ids {
        assert!(!log.contains(id.as_str()), "a session id is in the log:\n{log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_stops_mcp_and_chromium_goes_with_it() {
    if !chromium_found("end_of_input_stops_mcp_and_chromium_goes_with_it") {
        return;
    }
    let dir = scratch("mcp");
    let site = site().await;
    let mut child = whittle()
        .args(["mcp", "--engine", "chromium", "--allow-private", "--nav-timeout", "10"])
        .env("TMPDIR", &dir)
        .env_remove("WHITTLE_PROFILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run whittle mcp: {e}"));
    let lines = collect(&mut child);
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let url = site.url("/").to_string();
    let answers = tokio::task::spawn_blocking(move || {
        let mut out = BufReader::new(stdout);
        let mut send = |v: Value| {
            writeln!(stdin, "{v}").unwrap_or_else(|e| panic!("{e}"));
            stdin.flush().unwrap_or_else(|e| panic!("{e}"));
        };
        let mut read = |id: u64| -> Value {
            let mut line = String::new();
            loop {
                line.clear();
                let n = out.read_line(&mut line).unwrap_or_else(|e| panic!("{e}"));
                assert!(n > 0, "whittle mcp closed its output before answering {id}");
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && v["id"] == json!(id)
                {
                    return v;
                }
            }
        };
        send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stop-test", "version": "1"}}}));
        read(1);
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "navigate", "arguments": {"url": url}}}));
        let answer = read(2);
        // End of input: the client is gone.
        drop(stdin);
        answer
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let content = &answers["result"]["structuredContent"];
    assert_eq!(content["ok"], json!(true), "{answers}");
    assert_eq!(content["server"]["engine"], json!("chromium"), "{answers}");
    let status = wait_exit(&mut child, "whittle mcp after end of input");
    assert!(status.success(), "exit after end of input: {status:?}");
    assert_nothing_left(&dir, "mcp after end of input");
    let log = lines.lock().unwrap_or_else(|e| e.into_inner()).join("\n");
    assert!(log.contains("Chromium closed"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lifecycle_flags_that_cannot_work_are_refused() {
    for (flag, value, says) in [
        ("--max-sessions", "0", "at least 1"),
        ("--max-sessions", "-3", "whole number"),
        ("--max-sessions", "1000000", "limit"),
        ("--session-idle", "0s", "at least 1s"),
        ("--session-idle", "-5m", "not a duration"),
        ("--session-idle", "8d", "at most 7d"),
        ("--session-idle", "soon", "not a duration"),
        ("--session-idle", "5 fortnights", "unknown unit"),
    ] {
        let o = whittle()
            .args(["serve", "--listen", "127.0.0.1:0", &format!("{flag}={value}")])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(says) && err.contains(flag), "{flag} {value}: {err}");
    }
}
