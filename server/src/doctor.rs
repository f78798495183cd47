//! `whittle doctor`: one screen on what works on this machine — the build,
//! Chromium (found, its version, whether it launches headless), the
//! profile and what it allows, the downloads folder, and the MCP clients'
//! config files that name whittle. Every check is bounded in time; none
//! fetches anything from the network. It prints names and paths only:
//! never a secret, a token or the arguments a client config passes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::backend::cdp::{self, CdpBackend, ChromiumOptions};
use crate::cli::{AccessArgs, CliError};
use crate::profile::Profile;

/// What `whittle doctor` is given.
#[derive(Debug, Clone)]
pub struct DoctorArgs {
    /// The Chromium executable to check (else the profile's, the
    /// environment's or the usual names on PATH).
    pub chromium: Option<PathBuf>,
    /// How long Chromium may take to launch.
    pub timeout: Duration,
    /// The profile to read.
    pub access: AccessArgs,
}

/// The commit whittle was built from.
pub const COMMIT: &str = env!("WHITTLE_COMMIT");

/// The width of the label column.
const LABEL: usize = 14;

/// The report, written as it is made: a label, what was found, and the
/// problems counted.
struct Report<'a, W: Write> {
    out: &'a mut W,
    problems: Vec<String>,
}

impl<W: Write> Report<'_, W> {
    fn line(&mut self, label: &str, text: impl AsRef<str>) -> std::io::Result<()> {
        writeln!(self.out, "{label:<LABEL$}{}", text.as_ref())?;
        self.out.flush()
    }

    fn problem(&mut self, label: &str, text: impl AsRef<str>, summary: impl Into<String>) -> std::io::Result<()> {
        self.problems.push(summary.into());
        self.line(label, format!("PROBLEM: {}", text.as_ref()))
    }
}

/// Runs the checks and prints the report; `Ok(false)` when something is
/// broken (the CLI exits 1).
pub fn run(args: &DoctorArgs, out: &mut impl Write) -> Result<bool, CliError> {
    let mut r = Report { out, problems: Vec::new() };
    writeln!(r.out, "whittle {} (commit {COMMIT})", env!("CARGO_PKG_VERSION"))?;
    writeln!(r.out)?;
    let profile = profile(&args.access, &mut r)?;
    chromium(args, profile.as_ref(), &mut r)?;
    downloads(profile.as_ref(), &mut r)?;
    clients(&mut r)?;
    writeln!(r.out)?;
    if r.problems.is_empty() {
        writeln!(r.out, "No problems found.")?;
    } else {
        let n = r.problems.len();
        writeln!(r.out, "{n} problem{}: {}", if n == 1 { "" } else { "s" }, r.problems.join("; "))?;
    }
    Ok(r.problems.is_empty())
}

/// The profile in use and what it sets; `None` when it does not load.
fn profile(access: &AccessArgs, r: &mut Report<'_, impl Write>) -> Result<Option<Profile>, CliError> {
    let profile = match access.profile() {
        Ok(p) => p,
        Err(e) => {
            r.problem("profile", format!("does not parse: {e}"), "the profile does not parse")?;
            return Ok(None);
        }
    };
    match &profile.path {
        Some(path) => r.line("profile", format!("{} (parses)", path.display()))?,
        None => {
            let looked = Profile::default_path().map_or_else(String::new, |p| format!(" ({} does not exist)", p.display()));
            r.line("profile", format!("none: the defaults{looked}"))?;
        }
    }
    let net = &profile.net;
    let list = |patterns: &[crate::policy::OriginPattern]| {
        patterns.iter().map(crate::policy::OriginPattern::as_str).collect::<Vec<_>>().join(", ")
    };
    if net.allow.is_empty() {
        r.line("  allowed", "every site that is not blocked")?;
    } else {
        r.line("  allowed", format!("only {}", list(&net.allow)))?;
    }
    r.line("  blocked", if net.block.is_empty() { "none".to_owned() } else { list(&net.block) })?;
    r.line(
        "  private",
        if net.private {
            "allowed: loopback, private and link-local addresses may be fetched"
        } else {
            "refused: loopback, private and link-local addresses are not fetched"
        },
    )?;
    let engine = profile.engine.unwrap_or_default();
    let engine = clap::ValueEnum::to_possible_value(&engine).map(|v| v.get_name().to_owned()).unwrap_or_default();
    r.line("  engine", engine)?;
    let secrets = profile.secrets.0.len();
    r.line("  secrets", if secrets == 0 { "none".to_owned() } else { format!("{secrets} named (values not shown)") })?;
    if profile.paused {
        r.line("  paused", "yes: nothing from any page is given out until the profile says otherwise")?;
    }
    Ok(Some(profile))
}

/// Chromium: found, its version, and whether it launches headless.
fn chromium(args: &DoctorArgs, profile: Option<&Profile>, r: &mut Report<'_, impl Write>) -> Result<(), CliError> {
    let given = args.chromium.clone().or_else(|| profile.and_then(|p| p.chromium.clone()));
    let exe = match cdp::find_chromium(given.as_deref()) {
        Ok(exe) => exe,
        Err(e) if given.is_some() => {
            r.problem("chromium", &e.message, "the Chromium given does not exist")?;
            return Ok(());
        }
        Err(_) => {
            r.line(
                "chromium",
                "not found: pages are read without running their scripts (install chromium, or give --chromium PATH)",
            )?;
            return Ok(());
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Browser(format!("cannot start the async runtime: {e}")))?;
    let version = runtime.block_on(version(&exe, args.timeout.min(Duration::from_secs(10))));
    r.line("chromium", format!("{} ({})", exe.display(), version.unwrap_or_else(|e| format!("version unknown: {e}"))))?;
    let options = ChromiumOptions {
        executable: Some(exe),
        launch_timeout: args.timeout,
        policy: Some(std::sync::Arc::new(profile.map(|p| p.net.clone()).unwrap_or_default())),
        ..ChromiumOptions::default()
    };
    let started = Instant::now();
    let bound = args.timeout + 2 * cdp::COMMAND_TIMEOUT;
    let probe = runtime.block_on(async { tokio::time::timeout(bound, CdpBackend::new(options).probe()).await });
    match probe {
        Ok(Ok(())) => r.line("  headless", format!("launches ({:.1} s)", started.elapsed().as_secs_f64()))?,
        Ok(Err(e)) => r.problem("  headless", format!("does not launch: {}", e.message), "Chromium does not launch")?,
        Err(_) => r.problem(
            "  headless",
            format!("does not launch: no answer within {} s", bound.as_secs()),
            "Chromium does not launch",
        )?,
    }
    Ok(())
}

/// `chromium --version`, bounded; the process is killed when it is late.
async fn version(exe: &Path, limit: Duration) -> Result<String, String> {
    let child = tokio::process::Command::new(exe)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let out = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .map_err(|_| format!("no answer within {} s", limit.as_secs()))?
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || text.is_empty() {
        return Err(format!("--version exited with {}", out.status));
    }
    Ok(text.lines().next().unwrap_or_default().chars().take(120).collect())
}

/// The downloads folder: where it is, and whether it can be written.
fn downloads(profile: Option<&Profile>, r: &mut Report<'_, impl Write>) -> Result<(), CliError> {
    let dir = profile.and_then(|p| p.downloads.clone()).unwrap_or_else(|| ChromiumOptions::default().downloads);
    if !dir.exists() {
        return Ok(r.line("downloads", format!("{} (made on the first download)", dir.display()))?);
    }
    if !dir.is_dir() {
        return Ok(r.problem("downloads", format!("{} is not a folder", dir.display()), "the downloads folder is a file")?);
    }
    let probe = dir.join(format!(".whittle-doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            r.line("downloads", format!("{} (writable)", dir.display()))?;
        }
        Err(e) => r.problem(
            "downloads",
            format!("{} cannot be written: {e}", dir.display()),
            "the downloads folder cannot be written",
        )?,
    }
    Ok(())
}

/// How a client's config file lists its servers.
#[derive(Debug, Clone, Copy)]
enum Format {
    /// JSON, servers under this key (and, for `~/.claude.json`, under each
    /// project's).
    Json(&'static str),
    /// TOML, servers under `[mcp_servers.NAME]`.
    CodexToml,
}

/// One config file a client reads.
#[derive(Debug)]
struct ClientFile {
    client: &'static str,
    path: PathBuf,
    format: Format,
}

/// The config files of the MCP clients whittle has instructions for, on
/// this system, for this user and this folder.
fn client_files() -> Vec<ClientFile> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = env("HOME").or_else(|| env("USERPROFILE"));
    let mut files = Vec::new();
    let mut add = |client, path: Option<PathBuf>, format| {
        if let Some(path) = path {
            files.push(ClientFile { client, path, format });
        }
    };
    let at = |base: &Option<PathBuf>, rel: &str| base.as_ref().map(|b| b.join(rel));
    let config = env("XDG_CONFIG_HOME").or_else(|| at(&home, ".config"));
    let mac = at(&home, "Library/Application Support");
    let appdata = env("APPDATA");
    for base in [&mac, &config, &appdata] {
        add("Claude Desktop", at(base, "Claude/claude_desktop_config.json"), Format::Json("mcpServers"));
    }
    add("Claude Code", at(&home, ".claude.json"), Format::Json("mcpServers"));
    add("Claude Code", Some(PathBuf::from(".mcp.json")), Format::Json("mcpServers"));
    add("Cursor", at(&home, ".cursor/mcp.json"), Format::Json("mcpServers"));
    add("Cursor", Some(PathBuf::from(".cursor/mcp.json")), Format::Json("mcpServers"));
    for base in [&mac, &config, &appdata] {
        add("VS Code", at(base, "Code/User/mcp.json"), Format::Json("servers"));
    }
    add("VS Code", Some(PathBuf::from(".vscode/mcp.json")), Format::Json("servers"));
    add("Codex CLI", env("CODEX_HOME").map(|c| c.join("config.toml")).or_else(|| at(&home, ".codex/config.toml")), Format::CodexToml);
    add("Codex CLI", Some(PathBuf::from(".codex/config.toml")), Format::CodexToml);
    files.dedup_by(|a, b| a.path == b.path);
    files
}

/// A server entry that names whittle: its command, when it is a stdio
/// entry.
#[derive(Debug)]
struct Entry {
    command: Option<String>,
}

/// The whittle entries of a config file's server table(s).
fn whittle_entries(text: &str, format: Format) -> Result<(usize, Vec<Entry>), String> {
    let tables: Vec<serde_json::Map<String, serde_json::Value>> = match format {
        Format::Json(key) => {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
            let mut tables: Vec<_> = v.get(key).and_then(|s| s.as_object()).cloned().into_iter().collect();
            if let Some(projects) = v.get("projects").and_then(|p| p.as_object()) {
                tables.extend(projects.values().filter_map(|p| p.get(key)?.as_object().cloned()));
            }
            tables
        }
        Format::CodexToml => {
            let v: toml::Table = toml::from_str(text).map_err(|e| format!("not TOML: {}", e.message().trim()))?;
            let servers = v.get("mcp_servers").map(|s| serde_json::to_value(s).unwrap_or_default());
            servers.and_then(|s| s.as_object().cloned()).into_iter().collect()
        }
    };
    let total = tables.iter().map(serde_json::Map::len).sum();
    let mut entries = Vec::new();
    for (name, server) in tables.iter().flatten() {
        let command = server.get("command").and_then(|c| c.as_str()).map(str::to_owned);
        let named = |s: &str| s.to_ascii_lowercase().contains("whittle");
        let args_name = server
            .get("args")
            .and_then(|a| a.as_array())
            .is_some_and(|a| a.iter().filter_map(|x| x.as_str()).any(|x| x == "whittle"));
        let command_is = command.as_deref().is_some_and(|c| Path::new(c).file_stem().and_then(|s| s.to_str()) == Some("whittle"));
        if named(name) || command_is || args_name {
            entries.push(Entry { command });
        }
    }
    Ok((total, entries))
}

/// Whether `command` runs: a path that is a file, or a name on PATH.
fn runs(command: &str) -> bool {
    let path = Path::new(command);
    if path.components().count() > 1 {
        return path.is_file();
    }
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&dirs).any(|d| d.join(command).is_file() || d.join(format!("{command}.exe")).is_file())
}

/// The MCP clients' config files found, and whether each names whittle.
fn clients(r: &mut Report<'_, impl Write>) -> Result<(), CliError> {
    let mut label = "MCP clients";
    let mut found = 0;
    for file in client_files() {
        let Ok(text) = std::fs::read_to_string(&file.path) else { continue };
        found += 1;
        let place = format!("{:<15}{}", file.client, file.path.display());
        match whittle_entries(&text, file.format) {
            Err(e) => r.problem(label, format!("{place}: does not parse ({e})"), format!("{} does not parse", file.path.display()))?,
            Ok((others, entries)) if entries.is_empty() => {
                r.line(label, format!("{place}: no whittle entry ({others} other server{})", if others == 1 { "" } else { "s" }))?;
            }
            Ok((_, entries)) => {
                let missing: Vec<&str> = entries.iter().filter_map(|e| e.command.as_deref()).filter(|c| !runs(c)).collect();
                match missing.first() {
                    Some(c) => r.problem(
                        label,
                        format!(
                            "{place}: its whittle entry runs {c:?}, {} (give the full path of whittle, or put it on PATH: `cargo install --locked --path server`)",
                            if Path::new(c).components().count() > 1 { "which does not exist" } else { "which is not on PATH" }
                        ),
                        format!("{} runs a whittle that is not there", file.client),
                    )?,
                    None => r.line(label, format!("{place}: whittle configured"))?,
                }
            }
        }
        label = "";
    }
    if found == 0 {
        r.line(label, "no client config found here (docs/clients.md shows how to add whittle to each client)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_by_name_command_or_package() {
        let json = r#"{"mcpServers":{"web":{"command":"/opt/bin/whittle","args":["mcp"]},
            "other":{"command":"npx","args":["-y","@playwright/mcp"]},
            "py":{"command":"uvx","args":["whittle","mcp"]}},
            "projects":{"/p":{"mcpServers":{"whittle":{"type":"http","url":"http://127.0.0.1:8931/mcp"}}}}}"#;
        let (total, entries) = whittle_entries(json, Format::Json("mcpServers")).expect("parses");
        assert_eq!(total, 4);
        let mut commands: Vec<_> = entries.iter().map(|e| e.command.as_deref()).collect();
        commands.sort();
        assert_eq!(commands, [None, Some("/opt/bin/whittle"), Some("uvx")]);
    }

    /// What docs/clients.md tells people to write is what doctor reads as
    /// a whittle entry, in every format.
    #[test]
    fn every_snippet_of_the_client_docs_is_a_whittle_entry() {
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/clients.md");
        let text = std::fs::read_to_string(docs).unwrap_or_default();
        let mut seen = 0;
        for (fence, format) in [("```json", None), ("```toml", Some(Format::CodexToml))] {
            for block in text.split(fence).skip(1).filter_map(|b| b.split("```").next()) {
                let format = format.unwrap_or(if block.contains("\"servers\"") { Format::Json("servers") } else { Format::Json("mcpServers") });
                let entries = whittle_entries(block, format).map(|(_, e)| e.len());
                assert_eq!(entries, Ok(1), "{block}");
                seen += 1;
            }
        }
        assert!(seen >= 7, "{seen} snippets in {docs}");
    }

    #[test]
    fn codex_tables_are_read_and_broken_files_say_so() {
        let toml = "[mcp_servers.whittle]\ncommand = \"whittle\"\nargs = [\"mcp\"]\n[mcp_servers.x]\nurl = \"http://h/mcp\"\n";
        let (total, entries) = whittle_entries(toml, Format::CodexToml).expect("parses");
        assert_eq!((total, entries.len()), (2, 1));
        let error = |text, format| whittle_entries(text, format).err().unwrap_or_default();
        assert!(error("{", Format::Json("servers")).starts_with("not JSON"));
        assert!(error("[x", Format::CodexToml).starts_with("not TOML"));
    }
}
