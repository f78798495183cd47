//! A browsing session: the tabs of one MCP client, their shared refs and
//! cookies, and the tools of docs/mcp.md run against them. Every tool call
//! ends in a [`ToolOutput`] — the text the model reads and the envelope of
//! §4 — also when it fails: errors are `ok: false` results with a code, and
//! the session keeps working.
//!
//! The session speaks to pages only through the [`Backend`]/[`Page`]
//! traits; observations, diffs, `find` and `extract` are computed here from
//! the page's [`Analysis`](crate::backend::Analysis) with the engine, so
//! every backend reads the same.
//!
//! One file per tool: `observe.rs` (and the view every tool renders),
//! `navigate.rs`, `act.rs`, `read.rs` (`find`, `extract`), `tabs.rs`,
//! `picture.rs` (`screenshot`), `wait.rs`, `research.rs`; `compat.rs` is
//! what the agent-browser tool set asks of a session. This file holds the
//! session, its tabs and refs, the dispatch of a call, and what the tools
//! share (arguments read, redaction, notices, the lines of arrivals and
//! pictures).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::DeserializeOwned;
use url::Url;
use whittle_engine::render::envelope::Ids;
use whittle_engine::line::role_word;
use whittle_engine::tree::Widget;
use whittle_engine::safety::Vault;
use whittle_engine::{Envelope, Observation, RefTable, compact_url};

use crate::backend::{Arrival, Backend, BrowseError, Page, SessionContext};
use crate::fetch::Fetcher;
use crate::profile::{Profile, Secrets};

mod act;
mod compat;
mod navigate;
mod observe;
mod picture;
mod read;
mod research;
mod tabs;
mod wait;

pub use compat::parse_selector;
pub use navigate::resolve_input;

/// The most tabs a session keeps open.
pub const MAX_TABS: usize = 32;

/// Settings of a session.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Where search words go: a URL with `{q}` for the words.
    pub search_url: String,
    /// The viewport pages are laid out in.
    pub viewport: whittle_engine::Viewport,
    /// The named secrets `type` resolves (`secret:NAME`).
    pub secrets: Arc<Secrets>,
    /// Whether the person paused the AI.
    pub paused: Paused,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            search_url: "https://html.duckduckgo.com/html/?q={q}".into(),
            viewport: whittle_engine::Viewport::default(),
            secrets: Arc::default(),
            paused: Paused::never(),
        }
    }
}

/// The profile's `paused` flag, read again whenever the profile file
/// changes: the person can pause the AI mid-session by editing it.
#[derive(Debug, Clone)]
pub struct Paused {
    path: Option<std::path::PathBuf>,
    /// The file's modification time when last read, and its flag then.
    state: Arc<std::sync::Mutex<(Option<std::time::SystemTime>, bool)>>,
}

impl Paused {
    /// Never paused (no profile file).
    pub fn never() -> Paused {
        Paused { path: None, state: Arc::default() }
    }

    /// The flag of `profile`, followed in its file from now on.
    pub fn from_profile(profile: &Profile) -> Paused {
        let modified = profile.path.as_deref().and_then(|p| std::fs::metadata(p).ok()).and_then(|m| m.modified().ok());
        Paused { path: profile.path.clone(), state: Arc::new(std::sync::Mutex::new((modified, profile.paused))) }
    }

    /// Whether the AI is paused now. A profile that no longer parses keeps
    /// the last flag read.
    pub fn is_paused(&self) -> bool {
        let Ok(mut state) = self.state.lock() else { return true };
        if let Some(path) = &self.path {
            let modified = std::fs::metadata(path).ok().and_then(|m| m.modified().ok());
            if modified != state.0 {
                state.0 = modified;
                if let Ok(p) = Profile::load(Some(path)) {
                    state.1 = p.paused;
                }
            }
        }
        state.1
    }
}

/// One tool call's answer: what the model reads and the structured result.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The text content.
    pub text: String,
    /// The envelope (structured content).
    pub envelope: Envelope,
    /// A picture (`screenshot`, `observe` with `image`): its JPEG, and
    /// what was drawn where.
    pub image: Option<crate::picture::Annotated>,
}

/// An observation as the model saw it: its id and each shown ref's role.
#[derive(Debug)]
struct Seen {
    id: String,
    roles: HashMap<u32, &'static str>,
}

#[derive(Debug)]
struct Tab {
    id: u32,
    page: Box<dyn Page>,
    seen: VecDeque<Seen>,
    /// The default view at a page generation: what an action's diff starts
    /// from when nothing changed since, and what is refolded when only
    /// field values changed.
    baseline: Option<Baseline>,
}

/// A tab's default view and the page generation it was rendered at.
#[derive(Debug)]
struct Baseline {
    generation: u64,
    folded: whittle_engine::Folded,
    observation: Observation,
}

/// The tabs of one client.
#[derive(Debug)]
pub struct Session {
    backend: Arc<dyn Backend>,
    context: SessionContext,
    options: SessionOptions,
    refs: RefTable,
    tabs: Vec<Tab>,
    active: usize,
    next_tab: u32,
    operations: u64,
    tag: String,
    /// The current call's progress sink, if its caller wants one.
    progress: Option<Progress>,
    /// Privacy tokens issued in this session, and the named secrets.
    vault: Vault,
    /// Values seen in sensitive fields (each also a secret in `vault`).
    field_values: std::collections::HashSet<String>,
}

/// A progress callback: `(done, total, message)`.
pub type ProgressFn = dyn FnMut(u32, u32, &str) + Send;

/// Where a long call reports its progress.
pub struct Progress(pub Box<ProgressFn>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// Session tags: unique in the process.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// A tool's failure before or instead of an observation.
type Fail = BrowseError;

fn invalid_args(message: impl Into<String>) -> Fail {
    BrowseError::new("invalid_args", message)
}

impl Drop for Session {
    /// What the backend holds for the session (a Chromium browser context)
    /// goes with it, whatever ended it.
    fn drop(&mut self) {
        self.backend.end_session(self.context.session);
    }
}

impl Session {
    /// A session with one empty tab.
    pub async fn new(backend: Arc<dyn Backend>, fetcher: Fetcher, options: SessionOptions) -> Result<Session, BrowseError> {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let context = SessionContext::new(fetcher, n, options.viewport);
        let mut vault = Vault::new();
        for (name, value) in &options.secrets.0 {
            vault.add_secret(name, value);
        }
        let mut session = Session {
            vault,
            field_values: Default::default(),
            backend,
            context,
            options,
            refs: RefTable::new(),
            tabs: Vec::new(),
            active: 0,
            next_tab: 1,
            operations: 0,
            progress: None,
            tag: format!("s{n}"),
        };
        session.open_tab().await?;
        Ok(session)
    }

    /// Runs one tool with its JSON arguments. Never fails: errors are
    /// results with `ok: false`.
    pub async fn call(&mut self, tool: &str, args: serde_json::Value) -> ToolOutput {
        self.call_with_progress(tool, args, None).await
    }

    /// [`Session::call`], telling `progress` how a long tool advances
    /// (`research`: once per page finished).
    pub async fn call_with_progress(&mut self, tool: &str, args: serde_json::Value, progress: Option<Progress>) -> ToolOutput {
        self.operations += 1;
        if self.options.paused.is_paused() {
            // Nothing runs and nothing from any page is sent.
            let message = "the person paused the AI in the profile: nothing from the page was sent and nothing was done";
            return ToolOutput { text: format!("⏸ {message}"), envelope: Envelope::error(self.ids(tool), "paused", message), image: None };
        }
        self.progress = progress;
        if let Some(tab) = self.tabs.get_mut(self.active) {
            tab.page.touch();
        }
        let result = self.dispatch(tool, args).await;
        self.progress = None;
        let mut out = match result {
            Ok(out) => out,
            Err(e) => {
                let mut envelope = Envelope::error(self.ids(tool), e.code, e.message.clone());
                // The engine of the tab the call was about.
                if let Some(tab) = self.tabs.get(self.active) {
                    envelope.server.engine = tab.page.engine();
                }
                ToolOutput { text: format!("✗ {}: {}", e.code, e.message), envelope, image: None }
            }
        };
        // A research digest is many sites' text: what it shows is typed
        // nowhere until a page of its site shows it.
        let site = if tool == "research" { None } else { self.active_host() };
        self.vault.set_site(site.as_deref());
        self.redact(&mut out);
        out
    }

    /// The host of the active tab's page, if it has one.
    fn active_host(&self) -> Option<String> {
        self.tabs.get(self.active).and_then(|t| t.page.url()).and_then(|u| u.host_str()).map(str::to_owned)
    }

    /// Replaces secret-looking values in everything the model reads by
    /// their tokens (docs/privacy.md) and takes out characters a person cannot
    /// see: the text, every page-written string of the envelope, and
    /// error messages (they may quote the page).
    fn redact(&mut self, out: &mut ToolOutput) {
        let vault = &mut self.vault;
        let mut fix = |s: &mut String| private(vault, s);
        fix(&mut out.text);
        if let Some(e) = out.envelope.server.error.as_mut() {
            fix(&mut e.message);
        }
        // Notices may quote a server's words (an HTTP reason, a browser's
        // error text).
        out.envelope.server.notices.iter_mut().for_each(&mut fix);
        if let Some(page) = out.envelope.page_content.as_mut() {
            fix(&mut page.title);
            fix(&mut page.url);
            // As one text: a value may span lines (a private key block).
            let joined = page.tree.join("\n");
            let mut tree = joined.clone();
            fix(&mut tree);
            if tree != joined {
                page.tree = tree.lines().map(str::to_owned).collect();
            }
            for e in &mut page.elements {
                fix(&mut e.name);
                fix(&mut e.value);
            }
        }
    }

    async fn dispatch(&mut self, tool: &str, args: serde_json::Value) -> Result<ToolOutput, Fail> {
        match tool {
            "observe" => self.observe(parse_args(args)?).await,
            "act" => self.act(parse_args(args)?).await,
            "navigate" => self.navigate(parse_args(args)?).await,
            "find" => self.find(parse_args(args)?).await,
            "extract" => self.extract(parse_args(args)?).await,
            "tabs" => self.tabs(parse_args(args)?).await,
            "wait" => self.wait(parse_args(args)?).await,
            "research" => self.research(parse_args(args)?).await,
            "screenshot" => self.screenshot(parse_args(args)?).await,
            other => Err(invalid_args(format!("no tool named {other:?}"))),
        }
    }

    fn ids(&self, tool: &str) -> Ids {
        Ids {
            tool: tool.to_owned(),
            operation_id: format!("{}-{}", self.tag, self.operations),
            tab_id: self.tabs.get(self.active).map(|t| t.id.to_string()).unwrap_or_default(),
        }
    }

    fn tab(&mut self) -> &mut Tab {
        &mut self.tabs[self.active]
    }

    async fn open_tab(&mut self) -> Result<usize, BrowseError> {
        if self.tabs.len() >= MAX_TABS {
            return Err(BrowseError::new("too_many_tabs", format!("a session keeps at most {MAX_TABS} tabs: close one first")));
        }
        let page = self.backend.open_page(&self.context).await?;
        self.tabs.push(Tab { id: self.next_tab, page, seen: VecDeque::new(), baseline: None });
        self.next_tab += 1;
        Ok(self.tabs.len() - 1)
    }
}

/// Reads a tool's arguments; the error names the argument at fault
/// (`do: unknown variant \`fly\`, expected one of …`).
fn parse_args<T: DeserializeOwned>(args: serde_json::Value) -> Result<T, Fail> {
    let args = if args.is_null() { serde_json::Value::Object(Default::default()) } else { args };
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." { invalid_args(inner.to_string()) } else { invalid_args(format!("{path}: {inner}")) }
    })
}

/// `→ from → to · "title"`.
fn arrival_line(from: &Url, a: &Arrival, obs: &Observation) -> String {
    format!("→ {} → {} · {:?}\n", compact_url(from), compact_url(&a.to), obs.title)
}

/// [`whittle_engine::safety::private`] in place.
/// Whether a picture covers this widget: a sensitive field or a frame
/// (docs/privacy.md).
fn covered(w: &Widget) -> bool {
    w.sensitive.is_some() || role_word(w.role) == "frame"
}

fn private(vault: &mut Vault, s: &mut String) {
    if let std::borrow::Cow::Owned(t) = whittle_engine::safety::private(vault, s) {
        *s = t;
    }
}

/// `▣ what: W×H px, N ref(s) marked, M field(s) or frame(s) covered`: what
/// a picture holds, in words.
fn picture_line(what: &str, done: &crate::picture::Annotated) -> String {
    format!(
        "▣ {what}: {}×{} px, {} ref(s) marked, {} field(s) or frame(s) covered\n",
        done.width,
        done.height,
        done.marked.len(),
        done.covered
    )
}

/// The observation text with whittle's notices as `⚠` lines after the
/// header.
fn with_notices(text: &str, envelope: &Envelope) -> String {
    // The page's notes (`⚠ …`, `⚿ …`) are in the observation already.
    let mut notices = envelope.server.notices.iter().filter(|n| !n.starts_with(['⚠', '⚿'])).peekable();
    if notices.peek().is_none() {
        return text.to_owned();
    }
    let (header, rest) = text.split_once('\n').unwrap_or((text, ""));
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(header);
    out.push('\n');
    for n in notices {
        out.push_str("⚠ ");
        out.push_str(n);
        out.push('\n');
    }
    out.push_str(rest);
    out
}
