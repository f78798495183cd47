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

#[test]
fn both_tool_sets_pass_the_inspectors_strict_schema_lint() {
    let launcher = match launcher() {
        Ok(l) => l,
        Err(why) => {
            assert!(
                std::env::var("WHITTLE_INSPECTOR_TESTS").as_deref() != Ok("require"),
                "WHITTLE_INSPECTOR_TESTS=require, but {why}"
            );
            eprintln!("inspector: SKIPPED ({why}; set WHITTLE_INSPECTOR to an npm prefix with @modelcontextprotocol/inspector@2.12.0)");
            return;
        }
    };
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
