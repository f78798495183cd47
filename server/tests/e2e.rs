//! The MCP server end to end: runs `tests/e2e/test_mcp.py`, where the
//! official Python MCP SDK drives `whittle mcp` (stdio) and `whittle serve`
//! (Streamable HTTP) through the demo shop of `tests/e2e/shop.py` on
//! loopback, and fails when it fails. It also counts the o200k tokens of the
//! tool list the server sends. `tests/e2e/test_compat.py` does the same for
//! the agent-browser tool set (`whittle mcp --tools agent-browser`), and
//! `tests/e2e/test_load.py` puts `whittle serve` under load, churn and
//! abuse through the same SDK.
//!
//! Without `python3` or its `mcp` module the suite cannot run: the test
//! says why and passes, unless `WHITTLE_E2E=require` (CI sets it), where
//! it fails.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Writes straight to stderr, past the test harness's capture, so the
/// figures show in CI's log.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

fn required() -> bool {
    std::env::var("WHITTLE_E2E").is_ok_and(|v| v == "require")
}

/// `None` when python3 with the `mcp` SDK is there, else why not.
fn sdk_missing() -> Option<String> {
    match Command::new("python3").args(["-c", "import mcp, anyio"]).output() {
        Err(e) => Some(format!("python3 cannot be run: {e}")),
        Ok(o) if !o.status.success() => {
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.lines().last().unwrap_or("").to_owned();
            Some(format!("python3 cannot import the MCP SDK ({last}); pip install mcp jsonschema"))
        }
        Ok(_) => None,
    }
}

/// Runs `tests/e2e/<script>` against this build's binary with `extra`
/// arguments; `None` (after saying why) when the SDK is missing and not
/// required.
fn run_suite(name: &str, script: &str, extra: &[&std::ffi::OsStr]) -> Option<std::process::ExitStatus> {
    if let Some(why) = sdk_missing() {
        assert!(!required(), "WHITTLE_E2E=require, but the {name} suite cannot run: {why}");
        say(&format!("{name}: SKIPPED, {why} (set WHITTLE_E2E=require to make this a failure)"));
        return None;
    }
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e").join(script);
    let status = Command::new("python3")
        .arg(&suite)
        .arg("--whittle")
        .arg(env!("CARGO_BIN_EXE_whittle"))
        .args(extra)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", suite.display()));
    Some(status)
}

#[test]
fn mcp_end_to_end() {
    let tools_json = std::env::temp_dir().join(format!("whittle-e2e-tools-{}.json", std::process::id()));
    let Some(status) = run_suite("e2e", "test_mcp.py", &["--tools-json".as_ref(), tools_json.as_os_str()]) else { return };

    // The tool list as sent, counted with the engine's o200k tables (the
    // Python side can count only where tiktoken can fetch its own).
    if let Ok(text) = std::fs::read_to_string(&tools_json) {
        let tokens = whittle_engine::fold::tokens::exact_count(&text);
        // What a client that shows the model no output schemas sends.
        let mut tools: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
        for t in &mut tools {
            if let Some(t) = t.as_object_mut() {
                t.remove("outputSchema");
            }
        }
        let inputs = whittle_engine::fold::tokens::exact_count(&serde_json::Value::from(tools).to_string());
        say(&format!(
            "e2e: tool list (name, description, inputSchema, outputSchema as sent): {} bytes, \
             {tokens} o200k tokens, {inputs} without the outputSchemas (target ≤ 1,200)",
            text.len()
        ));
        let _ = std::fs::remove_file(&tools_json);
    }
    assert!(status.success(), "the MCP end-to-end suite failed ({status}); its report is above");
}

/// The agent-browser tool set (`whittle mcp --tools agent-browser`) through
/// the same SDK: agent-browser's schemas, every output validated against them,
/// its error codes (tests/e2e/test_compat.py).
#[test]
fn agent_browser_tool_set_end_to_end() {
    let Some(status) = run_suite("e2e agent-browser", "test_compat.py", &[]) else { return };
    assert!(status.success(), "the agent-browser end-to-end suite failed ({status}); its report is above");
}

/// `whittle serve` under load through the SDK (tests/e2e/test_load.py):
/// 32 sessions × 200 calls with no error and no cross-session leak, 8
/// sessions in Chromium contexts closed after, 1,000 sessions abandoned and
/// expired with the RSS back down, bad clients beside a good one.
#[test]
fn serve_under_load_churn_and_abuse() {
    let Some(status) = run_suite("e2e load", "test_load.py", &[]) else { return };
    assert!(status.success(), "the load suite failed ({status}); its report is above");
}
