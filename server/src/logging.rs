//! Logs: what whittle did — each tool call (tool, tab, engine, ms, `ok` or
//! the error code), engine switches, Chromium launches and crashes, fetch
//! failures — never what a page or a person wrote. No page text, typed
//! value, cookie, token or query string is a field of any event whittle
//! logs; URLs appear as their origin only.
//!
//! Lines go to stderr (stdout is the MCP channel of `whittle mcp`) or to
//! `--log-file`. `--log-level` chooses whittle's level, else `RUST_LOG`
//! (the `tracing` filter syntax), else the command's default. Other crates
//! log at most their warnings, whatever the filter says: at debug level
//! the MCP library writes whole messages, typed values among them.
//!
//! An MCP client that calls `logging/setLevel` also hears of its own tool
//! calls as `notifications/message` at that level ([`ClientLevel`]); no
//! client hears of another's.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use serde_json::json;
use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::prelude::*;

/// The logging flags of every command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LogArgs {
    /// How much whittle logs: error, warn, info, debug or trace (default
    /// warn, and info for `mcp` and `serve`); overrides RUST_LOG.
    #[arg(long, value_name = "LEVEL", global = true, value_parser = parse_level)]
    pub log_level: Option<Level>,
    /// Append the log to this file instead of standard error.
    #[arg(long, value_name = "PATH", global = true)]
    pub log_file: Option<PathBuf>,
}

/// Parses `--log-level`.
fn parse_level(s: &str) -> Result<Level, String> {
    s.trim().parse().map_err(|_| format!("{s:?}: give error, warn, info, debug or trace"))
}

/// Starts logging for this process, with `default` as whittle's level
/// when neither `--log-level` nor `RUST_LOG` says. A `RUST_LOG` that does
/// not parse or a log file that cannot be opened is a one-line error.
pub fn init(args: &LogArgs, default: Level) -> Result<(), String> {
    let filter = match (args.log_level, std::env::var("RUST_LOG")) {
        (Some(level), _) => whittle_at(level),
        (None, Ok(spec)) if !spec.trim().is_empty() => {
            EnvFilter::builder().parse(spec.trim()).map_err(|e| format!("RUST_LOG {spec:?} does not parse: {e}"))?
        }
        (None, _) => whittle_at(default),
    };
    let writer = match &args.log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("--log-file {}: {e}", path.display()))?;
            BoxMakeWriter::new(std::sync::Mutex::new(file))
        }
        None => BoxMakeWriter::new(std::io::stderr),
    };
    // Whatever the filter admits, other crates give their warnings at most.
    let ours = tracing_subscriber::filter::filter_fn(|meta| {
        meta.target().starts_with("whittle") || *meta.level() <= Level::WARN
    });
    let layer = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(writer).with_filter(filter).with_filter(ours);
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .map_err(|e| format!("cannot start logging: {e}"))
}

/// whittle's crates at `level`, the rest at warnings (or errors).
fn whittle_at(level: Level) -> EnvFilter {
    let rest = if level == Level::ERROR { "error" } else { "warn" };
    let level = level.as_str().to_ascii_lowercase();
    EnvFilter::new(format!("{rest},whittle={level},whittle_engine={level}"))
}

/// The level of `notifications/message` one MCP client asked for with
/// `logging/setLevel`; none until it asks.
#[derive(Debug, Clone, Default)]
pub struct ClientLevel(Arc<AtomicU8>);

#[allow(deprecated, reason = "logging/setLevel is part of the protocol versions whittle speaks")]
mod client_level {
    use rmcp::model::LoggingLevel;

    /// A level's rank, 1 (debug) to 8 (emergency); 0 is "not asked".
    pub(super) fn rank(level: LoggingLevel) -> u8 {
        match level {
            LoggingLevel::Debug => 1,
            LoggingLevel::Info => 2,
            LoggingLevel::Notice => 3,
            LoggingLevel::Warning => 4,
            LoggingLevel::Error => 5,
            LoggingLevel::Critical => 6,
            LoggingLevel::Alert => 7,
            LoggingLevel::Emergency => 8,
        }
    }
}

#[allow(deprecated, reason = "logging/setLevel is part of the protocol versions whittle speaks")]
impl ClientLevel {
    /// Sets the level the client asked for.
    pub fn set(&self, level: rmcp::model::LoggingLevel) {
        self.0.store(client_level::rank(level), Ordering::Relaxed);
    }

    /// The notification of a call, when the client asked for its level.
    pub fn notification(&self, call: &Call<'_>) -> Option<rmcp::model::LoggingMessageNotificationParam> {
        use rmcp::model::LoggingLevel;
        let asked = self.0.load(Ordering::Relaxed);
        let level = if call.outcome == "ok" { LoggingLevel::Info } else { LoggingLevel::Warning };
        (asked != 0 && client_level::rank(level) >= asked)
            .then(|| rmcp::model::LoggingMessageNotificationParam::new(level, call.fields()).with_logger("whittle"))
    }
}

/// One tool call as the log reports it.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// The tool, when it is one the server offers; else `unknown`.
    pub tool: &'a str,
    /// The tab the call acted on (an id whittle gave), if any.
    pub tab: &'a str,
    /// `static` or `chromium`, if the call used an engine.
    pub engine: &'a str,
    /// Milliseconds it took.
    pub ms: u64,
    /// `ok`, or the error code.
    pub outcome: &'a str,
}

impl<'a> Call<'a> {
    /// The call that began at `started`; `offered`: whether `tool` is one
    /// the server offers (a name it does not is logged as `unknown`: it is
    /// whatever the client sent).
    pub fn new(tool: &'a str, offered: bool, started: Instant) -> Call<'a> {
        let tool = if offered { tool } else { "unknown" };
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Call { tool, tab: "", engine: "", ms, outcome: "ok" }
    }

    /// Writes the call's log line: info when it succeeded, warn when not.
    pub fn log(&self) {
        let Call { tool, tab, engine, ms, outcome } = self;
        if *outcome == "ok" {
            tracing::info!(target: "whittle::call", tool, tab, engine, ms, outcome, "tool call");
        } else {
            tracing::warn!(target: "whittle::call", tool, tab, engine, ms, outcome, "tool call");
        }
    }

    /// The call's fields as a JSON object (the notification's data).
    fn fields(&self) -> serde_json::Value {
        json!({"tool": self.tool, "tab": self.tab, "engine": self.engine, "ms": self.ms, "outcome": self.outcome})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(deprecated, reason = "the protocol's logging levels")]
    fn a_client_hears_of_calls_only_at_the_level_it_asked_for() {
        use rmcp::model::LoggingLevel;
        let level = ClientLevel::default();
        let started = Instant::now();
        let ok = Call { tab: "1", engine: "static", ..Call::new("observe", true, started) };
        let failed = Call { outcome: "nav_timeout", ..ok.clone() };
        assert!(level.notification(&ok).is_none(), "nothing before logging/setLevel");
        level.set(LoggingLevel::Info);
        let n = level.notification(&ok).expect("info admits a call");
        assert_eq!(n.data["tool"], "observe");
        assert_eq!(n.data["outcome"], "ok");
        level.set(LoggingLevel::Warning);
        assert!(level.notification(&ok).is_none());
        assert_eq!(level.notification(&failed).map(|n| n.level), Some(LoggingLevel::Warning));
    }

    #[test]
    fn a_tool_the_server_does_not_offer_is_logged_as_unknown() {
        let call = Call::new("secret text a client sent", false, Instant::now());
        assert_eq!(call.tool, "unknown");
    }

    #[test]
    fn levels_parse_and_garbage_is_refused() {
        assert_eq!(parse_level("debug"), Ok(Level::DEBUG));
        assert_eq!(parse_level("WARN"), Ok(Level::WARN));
        assert!(parse_level("loud").is_err_and(|e| e.contains("error, warn, info, debug or trace")));
    }
}
