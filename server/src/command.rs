//! The `whittle` command: its arguments and what each subcommand runs.
//! The binary (`src/main.rs`) and the Python package's `whittle` script both
//! call [`run`], so they are one command.

use std::ffi::OsString;
use std::sync::Arc;


use clap::{Parser, Subcommand};
use crate::cli::{self, Format};

/// whittle: web pages as a few hundred tokens of plain text for AI agents.
#[derive(Debug, Parser)]
#[command(name = "whittle", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("WHITTLE_COMMIT"), ")"), about)]
struct Args {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    log: crate::logging::LogArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the observation of a page (a file, `-` for stdin, or a URL).
    Snapshot {
        /// FILE, URL, or `-`.
        source: String,
        /// `text` (the observation) or `json` (the structured envelope).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// `full` (everything, the default), `actions` (what has a ref, with
        /// the landmarks and headings that place it) or `read` (the main
        /// content as prose).
        #[arg(long, value_name = "actions|full|read")]
        mode: Option<String>,
        /// Token budget (o200k) the observation must fit; repeated items and
        /// prose fold to meet it (default 3000).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        budget: Option<String>,
        /// Show only the subtree of this ref, with folding relaxed.
        #[arg(long, value_name = "REF", allow_hyphen_values = true)]
        expand: Option<String>,
        /// No folding and no budget: every line, every ref.
        #[arg(long)]
        no_fold: bool,
        /// The viewport, `WIDTHxHEIGHT` in CSS px (media queries, layout,
        /// what is in view).
        #[arg(long, value_parser = cli::parse_viewport, default_value = "1280x800")]
        viewport: whittle_engine::Viewport,
        #[command(flatten)]
        page: cli::PageArgs,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
    /// Print a page's main content as plain text (or its largest table, or
    /// its repeated items).
    Extract {
        /// A file path, `-` for standard input, or an http(s)/file URL.
        source: String,
        /// What to print.
        #[arg(long, value_enum, default_value = "text")]
        kind: cli::ExtractWhat,
        #[command(flatten)]
        page: cli::PageArgs,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
    /// Digest many pages in parallel: title, byline, outline, key sentences
    /// and counts of each.
    Research {
        /// http(s) URLs.
        urls: Vec<String>,
        /// A file of URLs, one per line (`#` starts a comment).
        #[arg(long, value_name = "FILE")]
        urls_file: Option<std::path::PathBuf>,
        /// Digest the HTML pages archived in these WARC files (`.warc`,
        /// `.warc.gz`) instead of fetching: one JSON object per page (index,
        /// url, date, status, ok, title, digest, text, tokens, error), and a
        /// summary of the records on standard error. Nothing is fetched.
        #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["urls", "urls_file"])]
        warc: Vec<std::path::PathBuf>,
        /// With --warc: the most bytes a page's body may have, as stored and
        /// decoded (default 10 MiB); a larger one is a `too_large` line.
        #[arg(long, value_name = "BYTES", requires = "warc")]
        max_page_bytes: Option<usize>,
        /// One JSON object per page as each finishes (index, url, ok, title,
        /// digest, error, …), instead of the digests in input order (always,
        /// with --warc).
        #[arg(long)]
        jsonl: bool,
        /// The total token budget of the digests (default 400 per page); with
        /// --warc, each page's budget (default 400).
        #[arg(long, value_name = "N")]
        budget: Option<u32>,
        /// Pages in flight at once (fetched or being fetched, not yet
        /// digested).
        #[arg(long, value_name = "N", default_value_t = 16)]
        concurrency: usize,
        /// Pages fetched at once from one host.
        #[arg(long, value_name = "N", default_value_t = 4)]
        per_host: usize,
        /// Render pages that need scripts in Chromium (slower; needs
        /// Chromium installed).
        #[arg(long)]
        scripts: bool,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
    /// Serve the browsing tools over MCP on standard input and output (one
    /// client; configure it as a stdio server).
    Mcp {
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Serve the browsing tools over MCP Streamable HTTP at `/mcp` (one
    /// browsing session per MCP session). Set WHITTLE_TOKEN to require
    /// `Authorization: Bearer <token>`.
    Serve {
        /// Address to listen on; loopback unless you choose otherwise.
        #[arg(long, default_value = "127.0.0.1:8931")]
        listen: std::net::SocketAddr,
        /// End a session after this long with no call (never while a call
        /// runs): `90s`, `30m`, `2h`, up to `7d`. Its tabs, browser context
        /// and vault go with it.
        #[arg(long, value_name = "DURATION", value_parser = crate::serve::parse_idle, default_value = "30m")]
        session_idle: std::time::Duration,
        /// Live sessions at most (default: one per 32 MiB of memory, 16 to
        /// 1024). A new session past it ends the longest idle one, or is
        /// refused with 503 and Retry-After when none has been idle a
        /// minute.
        #[arg(long, value_name = "N", value_parser = crate::serve::parse_max_sessions)]
        max_sessions: Option<usize>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Check what works on this machine: Chromium, the profile, the
    /// downloads folder, and the MCP clients configured to run whittle.
    Doctor {
        /// The Chromium executable to check (default: the profile's, else
        /// $WHITTLE_CHROMIUM, else chromium or google-chrome on PATH).
        #[arg(long, value_name = "PATH")]
        chromium: Option<std::path::PathBuf>,
        /// Seconds Chromium may take to launch.
        #[arg(long, value_name = "SECONDS", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
        timeout: u64,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
    /// Grow and inspect the corpus of pages tests and benches run on.
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
    },
    /// Print role, name, states… of each element matching a CSS selector,
    /// one JSON object per line.
    Inspect {
        /// FILE or URL.
        source: String,
        /// A CSS selector, e.g. `form input, [role=button]`.
        selector: String,
        #[command(flatten)]
        page: cli::PageArgs,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
}

#[derive(Debug, Subcommand)]
enum CorpusCommand {
    /// Save a page with its metadata (URL, date, status, headers, charset)
    /// in your corpus (the manifest's `user` suite).
    Add {
        /// An http(s) URL.
        url: String,
        /// Save the DOM Chromium rendered (after scripts) instead of the
        /// bytes the server sent.
        #[arg(long)]
        rendered: bool,
        /// Where to save (default: $WHITTLE_USER_CORPUS, else
        /// $XDG_DATA_HOME/whittle/corpus or ~/.local/share/whittle/corpus).
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
        /// The most bytes the page may have, decompressed (default 64 MiB).
        #[arg(long, value_name = "BYTES", default_value_t = crate::corpus::DEFAULT_MAX_BYTES)]
        max_bytes: usize,
        /// Seconds the fetch (and the render) may take.
        #[arg(long, value_name = "SECONDS", default_value_t = 30)]
        timeout: u64,
        /// The Chromium executable, for --rendered (default: $WHITTLE_CHROMIUM,
        /// else chromium or google-chrome on PATH).
        #[arg(long, value_name = "PATH")]
        chromium: Option<std::path::PathBuf>,
        #[command(flatten)]
        access: cli::AccessArgs,
    },
    /// List the manifest's suites: where each is and how many pages it has.
    List,
    /// Write a synthetic page: realistic, wide-list, table, stylesheet
    /// (SIZE in bytes) or deep-div, deep-span, … (SIZE in levels).
    Generate {
        /// The kind of page.
        kind: String,
        /// Bytes (or levels for deep-*), optionally with k or m: 500k, 20m.
        size: String,
        /// Write to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
}

/// Settings shared by `mcp` and `serve`. Each one given here wins over the
/// profile's.
#[derive(Debug, clap::Args)]
struct ServerArgs {
    /// Where search words go: a URL with `{q}` for the words (default
    /// https://html.duckduckgo.com/html/?q={q}).
    #[arg(long, value_name = "URL")]
    search_url: Option<String>,
    /// The viewport, `WIDTHxHEIGHT` in CSS px.
    #[arg(long, value_parser = cli::parse_viewport, default_value = "1280x800")]
    viewport: whittle_engine::Viewport,
    /// Device pixels per CSS pixel in Chromium, 1 to 4: screenshots have
    /// this many pixels per CSS pixel (sharper, and more image tokens),
    /// their labels drawn to match.
    #[arg(long, value_name = "RATIO", value_parser = cli::parse_device_scale, default_value = "1")]
    device_scale: f64,
    /// Seconds a navigation may take in all, redirects and body included
    /// (default 20).
    #[arg(long, value_name = "SECONDS")]
    nav_timeout: Option<u64>,
    /// The most bytes a page may have once decompressed (default 10 MiB).
    #[arg(long, value_name = "BYTES")]
    max_page_bytes: Option<usize>,
    /// Which engine tabs use: `auto` (static, and Chromium for pages that
    /// need scripts; the default), `static` (never Chromium) or `chromium`
    /// (always).
    #[arg(long, value_enum)]
    engine: Option<crate::backend::auto::EnginePolicy>,
    /// The Chromium executable (default: $WHITTLE_CHROMIUM, else chromium or
    /// google-chrome on PATH).
    #[arg(long, value_name = "PATH")]
    chromium: Option<std::path::PathBuf>,
    /// Where Chromium's downloads go.
    #[arg(long, value_name = "DIR")]
    downloads: Option<std::path::PathBuf>,
    /// The tools to offer: `whittle` (its own) or `agent-browser` (the six
    /// `browser_*` tools of that tool set, same schemas, for clients wired
    /// to it).
    #[arg(long, value_enum, default_value = "whittle")]
    tools: crate::mcp::ToolSet,
    #[command(flatten)]
    access: cli::AccessArgs,
}

impl ServerArgs {
    fn shared(&self) -> Result<Arc<crate::mcp::Shared>, String> {
        let profile = self.access.profile().map_err(|e| format!("profile {e}"))?;
        let search_url = self
            .search_url
            .clone()
            .or_else(|| profile.search_url.clone())
            .unwrap_or_else(|| crate::session::SessionOptions::default().search_url);
        if !search_url.contains("{q}") {
            return Err(format!("--search-url {search_url:?} has no {{q}} for the search words"));
        }
        let limits = crate::fetch::Limits {
            total_timeout: std::time::Duration::from_secs(self.nav_timeout.or(profile.nav_timeout).unwrap_or(20).max(1)),
            max_page_bytes: self.max_page_bytes.or(profile.max_page_bytes).unwrap_or(10 * 1024 * 1024),
            ..crate::fetch::Limits::default()
        };
        let policy = Arc::new(profile.net.clone());
        let options = crate::session::SessionOptions {
            search_url,
            viewport: self.viewport,
            secrets: Arc::new(profile.secrets.clone()),
            paused: crate::session::Paused::from_profile(&profile),
        };
        let executable = self.chromium.clone().or_else(|| profile.chromium.clone());
        if let Some(p) = &executable
            && !p.is_file()
        {
            return Err(format!("chromium {}: no such file", p.display()));
        }
        let mut chromium = crate::backend::cdp::ChromiumOptions {
            executable,
            viewport: self.viewport,
            device_scale: self.device_scale,
            nav_timeout: limits.total_timeout,
            policy: Some(policy.clone()),
            ..crate::backend::cdp::ChromiumOptions::default()
        };
        if let Some(d) = self.downloads.clone().or_else(|| profile.downloads.clone()) {
            chromium.downloads = d;
        }
        let cdp = crate::backend::cdp::CdpBackend::new(chromium);
        let engine = self.engine.or(profile.engine).unwrap_or_default();
        let backend = Arc::new(crate::backend::auto::AutoBackend::new(engine, cdp));
        Ok(crate::mcp::Shared::with_tools(backend, limits, policy, options, self.tools))
    }
}

/// Runs a server until it ends (the client closes, or SIGINT/SIGTERM),
/// then shuts the backend down (Chromium closed and reaped, its profile
/// removed); its exit code.
fn run_server(server: &ServerArgs, listen: Option<(std::net::SocketAddr, crate::serve::Lifecycle)>) -> i32 {
    let shared = match server.shared() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("whittle: {e}");
            return 2;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .thread_keep_alive(crate::memory::THREAD_KEEP_ALIVE)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("whittle: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let token = std::env::var("WHITTLE_TOKEN").ok().filter(|t| !t.is_empty());
    let tools = clap::ValueEnum::to_possible_value(&server.tools).map(|v| v.get_name().to_owned()).unwrap_or_default();
    match listen {
        Some((addr, _)) => tracing::info!(%addr, tools, bearer = token.is_some(), "serving MCP over HTTP at /mcp"),
        None => tracing::info!(tools, "serving MCP on standard input and output"),
    }
    let backend = shared.backend();
    let result = runtime.block_on(async {
        let result = match listen {
            Some((addr, lifecycle)) => crate::serve::serve_http(shared, addr, token, lifecycle, stop_signal()).await,
            None => crate::mcp::serve_stdio(shared, stop_signal()).await,
        };
        backend.shutdown().await;
        result
    });
    // Tasks still running (a page closing) end with the runtime, not
    // after the process has gone.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    if let Err(e) = result {
        tracing::error!(error = %e, "server stopped");
        eprintln!("whittle: {e}");
        return 1;
    }
    tracing::info!("server stopped");
    0
}

/// Resolves at SIGINT or SIGTERM (logged), or never where they cannot be
/// listened for.
#[cfg(unix)]
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut interrupt), Ok(mut terminate)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
        tracing::warn!("cannot listen for SIGINT and SIGTERM: stop the server by closing its input or killing it");
        return std::future::pending().await;
    };
    let name = tokio::select! {
        _ = interrupt.recv() => "SIGINT",
        _ = terminate.recv() => "SIGTERM",
    };
    tracing::info!(signal = name, "stopping: running calls may finish, then sessions and Chromium close");
}

/// Resolves at Ctrl-C (logged).
#[cfg(not(unix))]
async fn stop_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        return std::future::pending().await;
    }
    tracing::info!(signal = "ctrl-c", "stopping: running calls may finish, then sessions and Chromium close");
}

/// Runs the `whittle` command on `args` (the program name first, as
/// `std::env::args_os` gives them); its exit code. Output goes to the
/// process's standard output and error.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match Args::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            // `--help` and `--version` print to standard output and succeed.
            let _ = e.print();
            return e.exit_code();
        }
    };
    let default_level = if matches!(args.command, Command::Mcp { .. } | Command::Serve { .. }) {
        tracing::Level::INFO
    } else {
        tracing::Level::WARN
    };
    if let Err(e) = crate::logging::init(&args.log, default_level) {
        eprintln!("whittle: {e}");
        return 2;
    }
    match &args.command {
        Command::Mcp { server } => return run_server(server, None),
        Command::Serve { listen, session_idle, max_sessions, server } => {
            let defaults = crate::serve::Lifecycle::default();
            let lifecycle = crate::serve::Lifecycle {
                idle: *session_idle,
                max_sessions: max_sessions.unwrap_or(defaults.max_sessions),
                ..defaults
            };
            return run_server(server, Some((*listen, lifecycle)));
        }
        _ => {}
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &args.command {
        Command::Snapshot { source, format, mode, budget, expand, no_fold, viewport, page, access } => {
            let view = cli::ViewArgs {
                mode: mode.as_deref(),
                budget: budget.as_deref(),
                expand: expand.as_deref(),
                no_fold: *no_fold,
            };
            access.policy().and_then(|policy| {
                cli::snapshot(source, *format, page, view, *viewport, &policy, &mut out)
            })
        }
        Command::Inspect { source, selector, page, access } => {
            access.policy().and_then(|policy| cli::inspect(source, selector, page, &policy, &mut out))
        }
        Command::Extract { source, kind, page, access } => {
            access.policy().and_then(|policy| cli::extract(source, *kind, page, &policy, &mut out))
        }
        Command::Research { urls, urls_file, warc, max_page_bytes, jsonl, budget, concurrency, per_host, scripts, access } => {
            access.policy().and_then(|policy| {
                let args = cli::ResearchArgs {
                    urls: urls.clone(),
                    urls_file: urls_file.clone(),
                    warc: warc.clone(),
                    max_page_bytes: *max_page_bytes,
                    jsonl: *jsonl,
                    budget: *budget,
                    concurrency: *concurrency,
                    per_host: *per_host,
                    scripts: *scripts,
                    policy,
                };
                cli::research(&args, &mut std::io::stdout())
            })
        }
        Command::Corpus { command } => match command {
            CorpusCommand::Add { url, rendered, dir, max_bytes, timeout, chromium, access } => {
                access.policy().and_then(|policy| {
                    let options = crate::corpus::AddOptions {
                        rendered: *rendered,
                        dir: dir.clone(),
                        max_bytes: *max_bytes,
                        timeout: std::time::Duration::from_secs((*timeout).max(1)),
                        chromium: chromium.clone(),
                        policy,
                    };
                    crate::corpus::add(url, &options, &mut out)
                })
            }
            CorpusCommand::List => crate::corpus::list(&mut out),
            CorpusCommand::Generate { kind, size, output } => {
                crate::corpus::generate(kind, size, output.as_deref(), &mut out)
            }
        },
        Command::Doctor { chromium, timeout, access } => {
            let args = crate::doctor::DoctorArgs {
                chromium: chromium.clone(),
                timeout: std::time::Duration::from_secs(*timeout),
                access: access.clone(),
            };
            match crate::doctor::run(&args, &mut out) {
                Ok(true) => Ok(()),
                Ok(false) => return 1,
                Err(e) => Err(e),
            }
        }
        Command::Mcp { .. } | Command::Serve { .. } => Ok(()),
    };
    if let Err(e) = result {
        // A closed pipe (`| head`) is not an error worth a message.
        if let cli::CliError::Output(io) = &e
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return 0;
        }
        eprintln!("whittle: {e}");
        return e.exit_code();
    }
    0
}
