//! The tool lists through the official MCP Inspector's schema linter:
//! `mcp-inspector --cli --strict --method tools/list` against `whittle mcp`,
//! for both tool sets, with no finding allowed (a warning included: the
//! Inspector's own exit code counts only errors).
//!
//! The Inspector is an npm package; the test finds it under the npm prefix
//! `$WHITTLE_INSPECTOR` (installed with `npm install --prefix DIR
//! @modelcontextprotocol/inspector@2.12.0`). Without it the test says it
//! skipped, or fails with `WHITTLE_INSPECTOR_TESTS=require`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The Inspector's launcher script, or why it is not there.
fn launcher() -> Result<PathBuf, String> {
    let prefix = std::env::var_os("WHITTLE_INSPECTOR").ok_or("WHITTLE_INSPECTOR is not set")?;
    let package = PathBuf::from(prefix).join("node_modules/@modelcontextprotocol/inspector");
    let launcher = package.join("clients/launcher/build/index.js");
    let cli = std::fs::read_to_string(package.join("clients/cli/build/index.js"))
        .map_err(|e| format!("no Inspector CLI under {}: {e}", package.display()))?;
    // An Inspector without the schema linter would pass vacuously.
    if !cli.contains("schemaFindings") {
        return Err(format!("the Inspector under {} has no schema linter (2.12.0 has)", package.display()));
    }
    Ok(launcher)
}

/// The launcher, or `None` (after saying why) when the test skips.
fn launcher_or_skip(test: &str) -> Option<PathBuf> {
    match launcher() {
        Ok(l) => Some(l),
        Err(why) => {
            assert!(
                std::env::var("WHITTLE_INSPECTOR_TESTS").as_deref() != Ok("require"),
                "WHITTLE_INSPECTOR_TESTS=require, but {why}"
            );
            eprintln!("{test}: SKIPPED ({why}; set WHITTLE_INSPECTOR to an npm prefix with @modelcontextprotocol/inspector@2.12.0)");
            None
        }
    }
}

#[test]
fn both_tool_sets_pass_the_inspectors_strict_schema_lint() {
    let Some(launcher) = launcher_or_skip("inspector") else { return };
    for (set, tools) in [("whittle", 9), ("agent-browser", 6)] {
        let out = Command::new("node")
            .arg(&launcher)
            .args(["--cli", "--strict", "--format", "json", "--connect-timeout", "30000", "--method", "tools/list", "--"])
            .arg(env!("CARGO_BIN_EXE_whittle"))
            .args(["mcp", "--tools", set])
            .output()
            .unwrap_or_else(|e| panic!("cannot run node: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Exit 6 is the Inspector's "error findings": reported below.
        assert!(matches!(out.status.code(), Some(0 | 6)), "{set}: the Inspector exited {:?}: {stderr}", out.status.code());
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{set}: not JSON ({e}): {stderr}"));
        let listed = report["result"]["tools"].as_array().map_or(0, Vec::len);
        assert_eq!(listed, tools, "{set}: the Inspector saw {listed} tools: {stderr}");
        let findings: Vec<&Value> = report["schemaFindings"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| t["findings"].as_array().into_iter().flatten())
            .collect();
        assert!(findings.is_empty(), "{set}: {} schema findings: {stderr}", findings.len());
    }
}

/// Every stdio snippet of docs/clients.md, its whittle entry used as the
/// Inspector's client config as it is written (`whittle` found on PATH, as
/// the docs assume), starts whittle and lists its nine tools.
#[test]
fn the_stdio_snippets_of_the_client_docs_start_whittle() {
    let Some(launcher) = launcher_or_skip("client snippets") else { return };
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/clients.md");
    let text = std::fs::read_to_string(&docs).unwrap_or_else(|e| panic!("{}: {e}", docs.display()));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_whittle"));
    let path = std::env::join_paths(
        bin.parent().into_iter().map(PathBuf::from).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("whittle-client-snippets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut tried = 0;
    for (i, block) in text.split("```json").skip(1).filter_map(|b| b.split("```").next()).enumerate() {
        let config: Value = serde_json::from_str(block).unwrap_or_else(|e| panic!("snippet {i} of docs/clients.md is not JSON: {e}"));
        let servers = config.get("mcpServers").or_else(|| config.get("servers"));
        let Some(server) = servers.and_then(|s| s.get("whittle")) else { panic!("snippet {i} has no whittle server") };
        if server.get("command").is_none() {
            continue; // over HTTP, with the token from the client's environment or secret store
        }
        // The Inspector reads `mcpServers`; VS Code's `servers` holds the
        // same entries, `type` included, which the Inspector reads too.
        let file = dir.join(format!("snippet-{i}.json"));
        let config = serde_json::json!({ "mcpServers": { "whittle": server } });
        std::fs::write(&file, config.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new("node")
            .arg(&launcher)
            .args(["--cli", "--format", "json", "--connect-timeout", "30000", "--method", "tools/list", "--server", "whittle", "--config"])
            .arg(&file)
            .env("PATH", &path)
            .env("MCP_INSPECTOR_SECRET_STORE", "memory")
            .output()
            .unwrap_or_else(|e| panic!("cannot run node: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("snippet {i}: not JSON ({e}): {stderr}"));
        let listed = report["result"]["tools"].as_array().map_or(0, Vec::len);
        assert_eq!(listed, 9, "snippet {i} ({block}): the Inspector saw {listed} tools: {stderr}");
        tried += 1;
    }
    assert!(tried >= 3, "docs/clients.md has {tried} stdio JSON snippets; Claude Desktop, Cursor and VS Code each have one");
    let _ = std::fs::remove_dir_all(&dir);
}
