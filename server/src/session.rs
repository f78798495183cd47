//! A browsing session: the tabs of one MCP client, their shared refs and
//! cookies, and the tools of docs/mcp.md run against them. Every tool call
//! ends in a [`ToolOutput`] — the text the model reads and the envelope of
//! §4 — also when it fails: errors are `ok: false` results with a code, and
//! the session keeps working.
//!
//! The session speaks to pages only through the [`Backend`]/[`Page`]
//! traits; observations, diffs, `find` and `extract` are computed here from
//! the page's [`Analysis`] with the engine, so every backend reads the same.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use url::Url;
use whittle_engine::render::envelope::{Ids, ImageInfo};
use whittle_engine::line::role_word;
use whittle_engine::tree::Widget;
use whittle_engine::safety::Vault;
use whittle_engine::{Envelope, FoldOptions, Mode, NodeId, Observation, RefTable, RenderOptions, compact_url, fold, render, with_main_content};

use crate::backend::{Analysis, Arrival, Backend, BrowseError, Effect, Navigation, Page, PageAction, SessionContext, ShotRequest};
use crate::fetch::Fetcher;
use crate::profile::{Profile, Secrets};
use crate::research::{self, ResearchOptions};
use crate::tools::{
    ActArgs, Do, ExtractArgs, FindArgs, ModeArg, NavigateArgs, ObserveArgs, ResearchArgs, ScreenshotArgs, Step, TabOp, TabsArgs, WaitArgs,
};

mod compat;

pub use compat::parse_selector;

/// How many observations per tab an action may name by `snapshot_id`.
const SNAPSHOTS_KEPT: usize = 16;
/// The longest `wait ms`.
const MAX_WAIT_MS: u32 = 30_000;
/// How long `wait` polls a live page for `text`/`gone` by default.
const DEFAULT_WAIT_MS: u32 = 10_000;
/// The longest `wait user` (the person solving a CAPTCHA, a 2FA prompt).
const MAX_USER_WAIT_MS: u32 = 300_000;
/// A diff is sent instead of the full view only when it costs at most this
/// share of it (docs/observation.md).
const DIFF_SHARE: f64 = 0.75;
/// Chromium tabs `research` renders pages that need scripts in at once.
const RENDER_TABS: usize = 3;
/// The most values of sensitive fields a session remembers as secrets.
const MAX_FIELD_SECRETS: usize = 256;
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

    // ---- research ---------------------------------------------------------

    async fn research(&mut self, args: ResearchArgs) -> Result<ToolOutput, Fail> {
        if args.budget == Some(0) || args.limit == Some(0) {
            return Err(invalid_args("budget and limit must be at least 1"));
        }
        let options = ResearchOptions {
            budget: args.budget.unwrap_or(research::DEFAULT_BUDGET),
            limit: args.limit.map_or(research::DEFAULT_LIMIT, |l| (l as usize).min(research::MAX_LIMIT)),
            ..ResearchOptions::default()
        };
        let urls: Vec<String> = match args.urls {
            Some(urls) if urls.is_empty() => return Err(invalid_args("urls is empty: give some, or none to open the active page's results")),
            Some(urls) => urls,
            None => {
                let tab = &mut self.tabs[self.active];
                if tab.page.url().is_none() {
                    return Err(BrowseError::new("no_page", "no urls and no page open: give urls, or navigate to a results page first"));
                }
                let a = tab.page.analysis(&mut self.refs).await?;
                let links = whittle_engine::result_links(&a.document, &a.styles, &a.semantics, options.limit);
                if links.is_empty() {
                    return Err(BrowseError::new("not_found", "the active page has no result links: give urls"));
                }
                links.into_iter().map(String::from).collect()
            }
        };
        let total = urls.len().min(options.limit) as u32;
        let mut progress = self.progress.take();
        // Progress messages carry page titles: they leave as the results do.
        let vault = &mut self.vault;
        vault.set_site(None);
        let mut on_page = |page: &research::PageResult, done: usize| {
            if let Some(p) = progress.as_mut() {
                let mut what = if page.ok { page.title.clone() } else { "failed".to_owned() };
                private(vault, &mut what);
                (p.0)(done as u32, total, &format!("[{}] {what}", page.index));
            }
        };
        let mut text = String::new();
        let render = match (args.scripts == Some(true), self.backend.chromium()) {
            (false, _) => None,
            (true, Some(chromium)) => Some(research::Renderer::new(chromium, self.context.clone(), RENDER_TABS)),
            (true, None) => {
                text.push_str("⚠ scripts: this server does not use Chromium; pages that need scripts are digested as served\n");
                None
            }
        };
        let result = research::research_with(&self.context.fetcher, &urls, &options, render, &mut on_page).await;
        text.insert_str(0, &result.text(options.budget, options.limit));
        if args.keep == Some(true) {
            for page in result.pages.iter().filter(|p| p.ok) {
                let Some(url) = page.opened.clone() else { continue };
                match self.keep_as_tab(url).await {
                    Ok(i) => text.push_str(&format!("⧉ [{}] kept as tab {}\n", page.index, i + 1)),
                    Err(e) => {
                        text.push_str(&format!("✗ [{}] not kept: {}\n", page.index, e.message));
                        if e.code == "too_many_tabs" {
                            break;
                        }
                    }
                }
            }
        }
        self.answer("research", text).await
    }

    /// Opens `url` in a new tab (not made active); a tab that does not
    /// load is closed again, never left blank.
    async fn keep_as_tab(&mut self, url: Url) -> Result<usize, BrowseError> {
        let i = self.open_tab().await?;
        match self.tabs[i].page.navigate(Navigation::To(url), false).await {
            Ok(_) => Ok(i),
            Err(e) => {
                // The new tab is the last one.
                self.tabs.pop();
                Err(e)
            }
        }
    }

    // ---- observe ----------------------------------------------------------

    async fn observe(&mut self, args: ObserveArgs) -> Result<ToolOutput, Fail> {
        let mode = match args.mode {
            None | Some(ModeArg::Full) => Mode::Full,
            Some(ModeArg::Actions) => Mode::Actions,
            Some(ModeArg::Read) => Mode::Read,
        };
        if args.budget == Some(0) {
            return Err(invalid_args("budget must be at least 1"));
        }
        let fold_options = FoldOptions {
            mode,
            budget: Some(args.budget.unwrap_or(whittle_engine::fold::DEFAULT_BUDGET)),
            expand: args.ref_id,
            content: None,
        };
        if let Some(r) = args.ref_id {
            self.node_of(r).await?;
        }
        let (obs, mut envelope) = self.view("observe", &fold_options).await?;
        let mut image = None;
        let mut line = String::new();
        if args.image == Some(true) {
            match self.picture(&mut envelope, None, true).await {
                Ok(done) => {
                    line = picture_line("image of the view", &done);
                    image = Some(done);
                }
                // The observation stands without its picture (a tab that
                // cannot be drawn, a picture that failed): the notice says
                // why, and the envelope is that of an observation without
                // `image`.
                Err(e) => envelope.server.notices.push(format!("no image ({}): {}", e.code, e.message)),
            }
        }
        let mut text = with_notices(&obs.text(), &envelope);
        text.push_str(&line);
        Ok(ToolOutput { text, envelope, image })
    }

    /// Renders the active tab with `options`, remembers the observation
    /// for `snapshot_id` checks, and gives it with its envelope.
    async fn view(&mut self, tool: &str, options: &FoldOptions) -> Result<(Observation, Envelope), Fail> {
        let ids = self.ids(tool);
        let tab = &mut self.tabs[self.active];
        let origin = tab.page.url().map(|u| u.origin().ascii_serialization());
        // Analysing first: it may add notices (a tab moved to Chromium).
        tab.page.analysis(&mut self.refs).await?;
        let engine = tab.page.engine();
        let mut notices = tab.page.notices();
        let host = tab.page.url().and_then(|u| u.host_str()).map(str::to_owned);
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let is_default = *options == FoldOptions::default();
        // Only field values changed since the baseline: refold their lines.
        let refolded = match &tab.baseline {
            Some(b) if is_default && !analysis.values_since.1.is_empty() && b.generation >= analysis.values_since.0 => {
                whittle_engine::fold::refold_values(&b.folded, &analysis.tree, options, &RenderOptions::default(), &analysis.values_since.1)
            }
            _ => None,
        };
        let folded = match refolded {
            Some(f) => f,
            None => {
                let options = with_main_content(*options, &analysis.document, &analysis.styles, &analysis.concealment, &analysis.semantics);
                fold(&analysis.document, &analysis.tree, &analysis.layout, &options, &RenderOptions::default())
            }
        };
        let obs = render(&analysis.document, &folded);
        // Values of sensitive fields (prefilled, or typed) become secrets of
        // the session: a page that shows one as text later (a careless
        // echo) shows its token instead.
        for w in analysis.tree.widgets.iter().filter(|w| w.sensitive.is_some()) {
            if self.field_values.len() >= MAX_FIELD_SECRETS {
                break;
            }
            let value = whittle_engine::dom::form::control_value(&analysis.document, w.node);
            if !value.is_empty() && self.field_values.insert(value.clone()) {
                // `#` is in no name of the secrets file.
                let kind = w.sensitive.map_or("field", |k| k.as_str());
                let n = self.field_values.len();
                self.vault.set_site(host.as_deref());
                self.vault.add_site_secret(&format!("{kind}#{n}"), &value);
            }
        }
        let mut envelope = Envelope::observation(ids, engine, &analysis.layout, &obs, &analysis.tree, origin);
        envelope.server.notices.append(&mut notices);
        remember(tab, &envelope);
        if is_default {
            tab.baseline = Some(Baseline { generation: tab.page.generation(), folded, observation: obs.clone() });
        }
        Ok((obs, envelope))
    }

    /// The active tab's default view, from the baseline when the page has
    /// not changed since it was rendered.
    async fn default_view(&mut self) -> Result<Observation, Fail> {
        let tab = &self.tabs[self.active];
        if let Some(b) = &tab.baseline
            && b.generation == tab.page.generation()
        {
            return Ok(b.observation.clone());
        }
        Ok(self.view("act", &FoldOptions::default()).await?.0)
    }

    // ---- navigate ---------------------------------------------------------

    async fn navigate(&mut self, args: NavigateArgs) -> Result<ToolOutput, Fail> {
        let nav = self.navigation(&args.url)?;
        let confirm = args.confirm.unwrap_or(false);
        let arrival = self.tab().page.navigate(nav, confirm).await;
        // A `beforeunload` prompt of the page left (Chromium): its `!` line.
        let events = self.tab().page.take_events();
        let arrival = arrival.map_err(|e| match events.is_empty() {
            true => e,
            false => BrowseError::new(e.code, format!("{} ({})", e.message, events.join("; "))),
        })?;
        let (obs, envelope) = self.view("navigate", &FoldOptions::default()).await?;
        let mut text = String::new();
        for line in events {
            text.push_str(&line);
            text.push('\n');
        }
        if let Some(from) = &arrival.from {
            text.push_str(&arrival_line(from, &arrival, &obs));
        }
        text.push_str(&with_notices(&obs.text(), &envelope));
        Ok(ToolOutput { text, envelope, image: None })
    }

    /// Reads `navigate`'s `url`: back/forward/reload, a URL (a scheme-less
    /// host gets `https://`, loopback and IP hosts `http://`), or search
    /// words for the search URL.
    fn navigation(&self, input: &str) -> Result<Navigation, Fail> {
        let s = input.trim();
        match s {
            "" => return Err(invalid_args("url is empty")),
            "back" => return Ok(Navigation::Back),
            "forward" => return Ok(Navigation::Forward),
            "reload" => return Ok(Navigation::Reload),
            _ => {}
        }
        Ok(Navigation::To(resolve_input(s, &self.options.search_url)?))
    }

    // ---- act --------------------------------------------------------------

    async fn act(&mut self, args: ActArgs) -> Result<ToolOutput, Fail> {
        let confirm = args.confirm.unwrap_or(false);
        let steps = args.into_steps().map_err(invalid_args)?;
        for s in &steps {
            check_step(s)?;
        }
        let before = self.default_view().await?;
        let start_tab = self.active;
        let start_engine = self.tab().page.engine();
        let mut lines: Vec<String> = Vec::new();
        let mut arrival: Option<Arrival> = None;
        let mut failure: Option<BrowseError> = None;
        for (i, step) in steps.iter().enumerate() {
            let outcome = self.run_step(step, confirm).await;
            let events = self.tab().page.take_events();
            match outcome {
                Ok((line, effect)) => {
                    lines.push(format!("✓ {line}"));
                    lines.extend(events);
                    if let Some(a) = self.follow(effect, &mut lines).await {
                        // Keep where the batch started from.
                        let from = arrival.as_ref().and_then(|first| first.from.clone()).or(a.from.clone());
                        arrival = Some(Arrival { from, ..a });
                    }
                }
                Err((line, e)) => {
                    lines.push(self.failure_line(&line, &e).await);
                    lines.extend(events);
                    for rest in &steps[i + 1..] {
                        lines.push(format!("· not run: {}", step_words(rest)));
                    }
                    failure = Some(e);
                    break;
                }
            }
        }
        let (after, mut envelope) = self.view("act", &FoldOptions::default()).await?;
        let mut text = lines.join("\n");
        text.push('\n');
        if let Some(a) = arrival.as_ref().filter(|_| self.active == start_tab) {
            if let Some(from) = &a.from {
                text.push_str(&arrival_line(from, a, &after));
            }
            text.push_str(&with_notices(&after.text(), &envelope));
        } else if self.active != start_tab || self.tab().page.engine() != start_engine {
            // Another tab, or the page moved to the other engine (refs may
            // have changed, and a notice says so): the whole view.
            text.push_str(&with_notices(&after.text(), &envelope));
        } else {
            // The diff (docs/observation.md), unless it would cost more than 75% of
            // the whole view.
            let diff = whittle_engine::diff::diff(&before, &after);
            if diff.is_empty() && failure.is_some() {
                // The ✗ line says it all.
            } else if f64::from(diff.tokens()) <= DIFF_SHARE * f64::from(after.tokens()) {
                text.push_str(&diff.text());
            } else {
                text.push_str(&with_notices(&after.text(), &envelope));
            }
        }
        if let Some(e) = failure {
            envelope.ok = false;
            envelope.server.error = Some(whittle_engine::render::envelope::ErrorInfo { code: e.code.to_owned(), message: e.message });
        }
        Ok(ToolOutput { text, envelope, image: None })
    }

    /// Follows an action's effect on the tabs: a tab the page opened, or
    /// one a link asked for, becomes the active tab (its `⧉` line goes to
    /// `lines`). Gives the navigation, if the action navigated.
    async fn follow(&mut self, effect: Effect, lines: &mut Vec<String>) -> Option<Arrival> {
        match effect {
            Effect::Changed => {}
            Effect::Navigated(a) => return Some(a),
            Effect::NewTab(url) => match self.open_tab().await {
                Ok(index) => {
                    self.active = index;
                    lines.push(format!("⧉ new tab {} opened (now active)", index + 1));
                    if let Err(e) = self.tab().page.navigate(Navigation::To(url), false).await {
                        lines.push(format!("✗ the new tab did not load: {}", e.message));
                    }
                }
                Err(e) => lines.push(format!("✗ no new tab: {}", e.message)),
            },
            Effect::Opened(page) => {
                if self.tabs.len() >= MAX_TABS {
                    lines.push(format!("✗ the page opened a new tab; it was not kept (a session keeps at most {MAX_TABS})"));
                } else {
                    self.tabs.push(Tab { id: self.next_tab, page, seen: VecDeque::new(), baseline: None });
                    self.next_tab += 1;
                    self.active = self.tabs.len() - 1;
                    lines.push(format!("⧉ new tab {} opened (now active)", self.active + 1));
                }
            }
        }
        None
    }

    /// Runs one step on the active tab: the `✓` line's words and what it
    /// did, or the `✗` line's words and why it failed.
    async fn run_step(&mut self, step: &Step, confirm: bool) -> Result<(String, Effect), (String, BrowseError)> {
        let words = step_words(step);
        let target = match self.target(step).await {
            Ok(t) => t,
            Err(e) => return Err((words, e)),
        };
        let (head, sensitive) = match target {
            Some((_, r)) => {
                let (line, sensitive) = self.describe(|w| w.ref_id == Some(r)).await.unwrap_or_else(|| (format!("[{r}]"), false));
                (format!("{} {line}", step.action.word()), sensitive)
            }
            None => (step.action.word().to_owned(), false),
        };
        match self.perform(step, target.map(|(n, _)| n), confirm).await {
            Ok(effect) => Ok((format!("{head}{}", step_detail(step, sensitive)), effect)),
            Err(e) => Err((head, e)),
        }
    }

    /// Performs `step` on `target` (already resolved) in the active tab.
    /// Tokens and `secret:NAME` in typed text are resolved here, on the
    /// machine.
    async fn perform(&mut self, step: &Step, target: Option<NodeId>, confirm: bool) -> Result<Effect, BrowseError> {
        let host = self.active_host();
        self.vault.set_site(host.as_deref());
        let typed = match (step.action, step.text.as_deref()) {
            (Do::Type, Some(t)) => match self.vault.resolve(t) {
                Ok(v) => Some(v),
                Err(e) => {
                    let code = match e {
                        whittle_engine::safety::ResolveError::UnknownSecret(_) => "unknown_secret",
                        whittle_engine::safety::ResolveError::UnknownToken(_) => "unknown_token",
                        whittle_engine::safety::ResolveError::OtherSite(_) => "other_site",
                    };
                    return Err(BrowseError::new(code, e.to_string()));
                }
            },
            (_, t) => t.map(str::to_owned),
        };
        let action = PageAction {
            action: step.action,
            target,
            text: typed.as_deref(),
            values: step.values.as_deref().unwrap_or(&[]),
            key: step.key.as_deref(),
            dy: step.dy,
            files: step.files.as_deref().unwrap_or(&[]),
            confirm,
        };
        self.tab().page.act(action).await
    }

    /// The node a step acts on and its ref: from `ref` (checked against
    /// `snapshot_id`), from `text` for steps that target by text, or none.
    async fn target(&mut self, step: &Step) -> Result<Option<(NodeId, u32)>, BrowseError> {
        if let Some(r) = step.ref_id {
            if let Some(sid) = &step.snapshot_id {
                self.check_snapshot(sid, r).await?;
            }
            let node = self.node_of(r).await?;
            return Ok(Some((node, r)));
        }
        let by_text = matches!(step.action, Do::Click | Do::Hover | Do::Check | Do::Uncheck);
        if let (true, Some(text)) = (by_text, step.text.as_deref()) {
            let tab = &mut self.tabs[self.active];
            let analysis = tab.page.analysis(&mut self.refs).await?;
            return match target_by_text(analysis, text) {
                Some(found) => Ok(Some(found)),
                None => Err(BrowseError::new("not_found", format!("nothing on the page reads {text:?}"))),
            };
        }
        Ok(None)
    }

    /// The node of ref `r` in the active tab's document.
    async fn node_of(&mut self, r: u32) -> Result<NodeId, BrowseError> {
        let Some((doc, node)) = self.refs.resolve(r) else {
            return Err(BrowseError::new("unknown_ref", format!("no element has ref {r}: observe again")));
        };
        if self.tabs[self.active].page.document_id() == Some(doc) {
            return Ok(node);
        }
        // Make sure the active page's refs are current before refusing (a
        // page captured again carries its refs to its new document).
        self.tabs[self.active].page.analysis(&mut self.refs).await?;
        if let Some((doc, node)) = self.refs.resolve(r)
            && self.tabs[self.active].page.document_id() == Some(doc)
        {
            return Ok(node);
        }
        if let Some(i) = self.tabs.iter().position(|t| t.page.document_id() == Some(doc)) {
            return Err(BrowseError::new(
                "unknown_ref",
                format!("ref {r} is on tab {}, not the active tab {}: switch tabs first", i + 1, self.active + 1),
            ));
        }
        Err(BrowseError::new("unknown_ref", format!("ref {r} belongs to a page that is gone: observe again")))
    }

    async fn check_snapshot(&mut self, sid: &str, r: u32) -> Result<(), BrowseError> {
        let stale = |why: String| BrowseError::new("snapshot_stale", format!("{why}: observe again"));
        let role_then = {
            let tab = &self.tabs[self.active];
            let Some(seen) = tab.seen.iter().find(|s| s.id == sid) else {
                return Err(stale(format!("snapshot {sid} is not one of this tab's recent observations")));
            };
            seen.roles.get(&r).copied()
        };
        let node = self.node_of(r).await.map_err(|_| stale(format!("ref {r} is gone since snapshot {sid}")))?;
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let role_now = analysis.tree.widgets.iter().find(|w| w.node == node).map(|w| role_word(w.role));
        match (role_then, role_now) {
            (Some(then), Some(now)) if then != now => Err(stale(format!("ref {r} was a {then} and is now a {now}"))),
            (Some(_), None) => Err(stale(format!("ref {r} is no longer shown"))),
            _ => Ok(()),
        }
    }

    /// The `✗` line of a failed step. The engine's refusals are predicates
    /// (`is disabled`, `is required`) about the target or, when `about`
    /// names another element, about that one.
    async fn failure_line(&mut self, head: &str, e: &BrowseError) -> String {
        if !matches!(e.code, "not_actionable" | "needs_script" | "invalid_form") {
            return format!("✗ {head}: {}", e.message);
        }
        let about = match e.about {
            Some(node) => self.describe(|w| w.node == node).await.map(|(line, _)| line),
            None => None,
        };
        match about {
            Some(other) if !head.ends_with(&other) => format!("✗ {head}: {other} {}", e.message),
            _ => format!("✗ {head} {}", e.message),
        }
    }

    /// `[r] role "name"` of the first widget of the active page that
    /// `which` picks, as the tree shows it, and whether it is a sensitive
    /// field; `None` when there is none or it has no ref.
    async fn describe(&mut self, which: impl Fn(&Widget) -> bool) -> Option<(String, bool)> {
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await.ok()?;
        let w = analysis.tree.widgets.iter().find(|w| which(w))?;
        let r = w.ref_id?;
        let name = whittle_engine::collapse_whitespace(&w.name);
        let line = if name.is_empty() { format!("[{r}] {}", role_word(w.role)) } else { format!("[{r}] {} {name:?}", role_word(w.role)) };
        Some((line, w.sensitive.is_some()))
    }

    // ---- find, extract ----------------------------------------------------

    async fn find(&mut self, args: FindArgs) -> Result<ToolOutput, Fail> {
        let limit = args.limit.unwrap_or(20).clamp(1, 500) as usize;
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let found = whittle_engine::find::find(&analysis.document, &analysis.styles, &analysis.concealment, &analysis.semantics, &analysis.tree, &args.q, limit)
            .map_err(|e| invalid_args(e.to_string()))?;
        self.answer("find", found.text).await
    }

    async fn extract(&mut self, args: ExtractArgs) -> Result<ToolOutput, Fail> {
        let scope = match args.ref_id {
            Some(r) => Some(self.node_of(r).await?),
            None => None,
        };
        let kind = match args.kind {
            crate::tools::ExtractKind::Table => whittle_engine::extract::ExtractKind::Table,
            crate::tools::ExtractKind::List => whittle_engine::extract::ExtractKind::List,
            crate::tools::ExtractKind::Text => whittle_engine::extract::ExtractKind::Text,
            crate::tools::ExtractKind::Links => whittle_engine::extract::ExtractKind::Links,
        };
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let extracted = whittle_engine::extract::extract(
            &analysis.document,
            &analysis.styles,
            &analysis.concealment,
            &analysis.semantics,
            &analysis.tree,
            kind,
            scope,
            args.offset.unwrap_or(0) as usize,
            args.links.unwrap_or(false),
            whittle_engine::extract::DEFAULT_PAGE_TOKENS,
        )
        .map_err(|e| BrowseError::new("not_found", e.to_string()))?;
        self.answer("extract", extracted.text).await
    }

    /// A result that is not an observation (find, extract, tabs, wait): the
    /// text, and an envelope about the active page whose `tree` holds the
    /// text's lines.
    async fn answer(&mut self, tool: &str, text: String) -> Result<ToolOutput, Fail> {
        let ids = self.ids(tool);
        let tab = &mut self.tabs[self.active];
        let engine = tab.page.engine();
        let origin = tab.page.url().map(|u| u.origin().ascii_serialization());
        let envelope = match tab.page.analysis(&mut self.refs).await {
            Ok(analysis) => {
                let lines: Vec<String> = text.lines().map(str::to_owned).collect();
                let obs = Observation {
                    title: analysis.document.title(),
                    url: analysis.document.url().map(|u| u.to_string()).unwrap_or_default(),
                    header: String::new(),
                    notes: Vec::new(),
                    line_refs: vec![Default::default(); lines.len()],
                    lines,
                    widgets: Vec::new(),
                    tree_truncated: false,
                    marks_truncated: false,
                };
                Envelope::observation(ids, engine, &analysis.layout, &obs, &analysis.tree, origin)
            }
            // An empty tab: nothing of a page to describe.
            Err(_) => {
                let mut e = Envelope::error(ids, "", "");
                e.ok = true;
                e.server.error = None;
                e
            }
        };
        let mut text = text;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(ToolOutput { text, envelope, image: None })
    }

    // ---- tabs -------------------------------------------------------------

    async fn tabs(&mut self, args: TabsArgs) -> Result<ToolOutput, Fail> {
        match args.op {
            TabOp::List => {
                let text = self.tab_list();
                self.answer("tabs", text).await
            }
            TabOp::Open => {
                let nav = match &args.url {
                    Some(u) => Some(self.navigation(u)?),
                    None => None,
                };
                let index = self.open_tab().await?;
                let previous = self.active;
                self.active = index;
                if let Some(nav) = nav
                    && let Err(e) = self.tab().page.navigate(nav, false).await
                {
                    // The tab stays open (empty); say why it is.
                    self.active = previous;
                    return Err(BrowseError::new(e.code, format!("tab {} opened but did not load: {}", index + 1, e.message)));
                }
                let mut text = format!("⧉ tab {} opened (now active)\n", index + 1);
                if self.tab().page.url().is_some() {
                    let (obs, envelope) = self.view("tabs", &FoldOptions::default()).await?;
                    text.push_str(&with_notices(&obs.text(), &envelope));
                    return Ok(ToolOutput { text, envelope, image: None });
                }
                self.answer("tabs", text).await
            }
            TabOp::Switch => {
                let i = self.tab_index(args.index)?;
                self.active = i;
                if self.tab().page.url().is_none() {
                    return self.answer("tabs", format!("tab {} is empty: navigate somewhere", i + 1)).await;
                }
                let (obs, envelope) = self.view("tabs", &FoldOptions::default()).await?;
                Ok(ToolOutput { text: with_notices(&obs.text(), &envelope), envelope, image: None })
            }
            TabOp::Close => {
                let i = match args.index {
                    Some(_) => self.tab_index(args.index)?,
                    None => self.active,
                };
                let tab = self.tabs.remove(i);
                if let Some(doc) = tab.page.document_id() {
                    self.refs.forget(doc);
                }
                if self.tabs.is_empty() {
                    self.active = 0;
                    self.open_tab().await?;
                } else if self.active > i || self.active >= self.tabs.len() {
                    self.active = self.active.saturating_sub(1);
                }
                let text = format!("tab {} closed\n{}", i + 1, self.tab_list());
                self.answer("tabs", text).await
            }
        }
    }

    fn tab_index(&self, index: Option<u32>) -> Result<usize, Fail> {
        let Some(n) = index else { return Err(invalid_args("index is required (see tabs op:list)")) };
        let i = (n as usize).wrapping_sub(1);
        if i >= self.tabs.len() {
            return Err(invalid_args(format!("no tab {n}: there are {} (numbered from 1)", self.tabs.len())));
        }
        Ok(i)
    }

    /// One line per tab: `* 1 title · compact url` (`*` the active one).
    fn tab_list(&self) -> String {
        let mut out = String::new();
        for (i, t) in self.tabs.iter().enumerate() {
            let mark = if i == self.active { '*' } else { ' ' };
            let url = t.page.url().map(compact_url).unwrap_or_else(|| "(empty)".into());
            out.push_str(&format!("{mark} {} {url}\n", i + 1));
        }
        out
    }

    // ---- screenshot -------------------------------------------------------

    /// The active tab's picture (Chromium's; a static tab is loaded there
    /// for it), the refs of the current view marked, sensitive fields and
    /// frames covered.
    async fn screenshot(&mut self, args: ScreenshotArgs) -> Result<ToolOutput, Fail> {
        let focus = match args.ref_id {
            Some(r) => Some(self.node_of(r).await?),
            None => None,
        };
        let (_, mut envelope) = self.view("screenshot", &FoldOptions::default()).await?;
        let done = self.picture(&mut envelope, focus, args.marks != Some(false)).await?;
        let what = match args.ref_id {
            Some(r) => format!("screenshot of [{r}]'s box"),
            None => "screenshot of the view".to_owned(),
        };
        Ok(ToolOutput { text: picture_line(&what, &done), envelope, image: Some(done) })
    }

    /// The active tab's picture as the model gets it, for the observation
    /// `envelope` was just made from (`observe` with `image`, and
    /// `screenshot`): the view, or `clip`'s box; with `marked`, a numbered
    /// mark on each ref of the observation (`elements`); a solid cover over each
    /// sensitive field and frame of the page (and those Chromium finds
    /// itself). Chromium draws it; a static tab is loaded there for it.
    ///
    /// The envelope then states what the picture holds: `image` (its
    /// pixels and pixels per CSS pixel), `marks` (the marks drawn: refs
    /// whose box overlaps the picture) and `marks_truncated`, also set when
    /// a ref of the observation has no mark (outside the picture, no box,
    /// or not found where Chromium draws the page; never for a picture
    /// without marks).
    async fn picture(&mut self, envelope: &mut Envelope, clip: Option<NodeId>, marked: bool) -> Result<crate::picture::Annotated, Fail> {
        let shown: HashSet<u32> = envelope.page_content.as_ref().map(|p| p.elements.iter().map(|e| e.ref_id).collect()).unwrap_or_default();
        let tab = &mut self.tabs[self.active];
        let request = {
            let a = tab.page.analysis(&mut self.refs).await?;
            let mut request = ShotRequest { clip, ..Default::default() };
            for w in &a.tree.widgets {
                if covered(w) {
                    request.covers.push(w.node);
                }
                if let Some(n) = w.ref_id.filter(|n| marked && shown.contains(n)) {
                    request.marks.push((n, w.node));
                }
            }
            request
        };
        let shot = tab.page.screenshot(&request).await?;
        let done = tokio::task::block_in_place(|| crate::picture::annotate(&shot.picture, &shot.marks, &shot.covers, &shot.texts, shot.scale))
            .map_err(|e| BrowseError::new("internal", e))?;
        let drawn: HashSet<u32> = done.marked.iter().copied().collect();
        let counters = &mut envelope.server.counters;
        counters.marks = done.marked.len() as u32;
        counters.marks_truncated |= marked && !shown.is_subset(&drawn);
        envelope.server.image = Some(ImageInfo { width: done.width, height: done.height, scale: shot.scale });
        Ok(done)
    }

    // ---- wait -------------------------------------------------------------

    /// `wait`. On a page that runs scripts, `text`/`gone` are polled
    /// until they hold or `ms` (default [`DEFAULT_WAIT_MS`]) passes; on a
    /// static page, which changes only when acted on, they are checked once
    /// after `ms`. `user` hands the page to the person (see
    /// [`Page::hand_over`]) and returns when the page navigates or the
    /// condition holds, at most [`MAX_USER_WAIT_MS`].
    async fn wait(&mut self, args: WaitArgs) -> Result<ToolOutput, Fail> {
        let user = args.user == Some(true);
        if !user && args.text.is_none() && args.gone.is_none() && args.ms.is_none() {
            return Err(invalid_args("give text, gone, ms or user"));
        }
        let live = self.tabs[self.active].page.is_live();
        let mut lines = Vec::new();
        if user {
            let Some(place) = self.tabs[self.active].page.hand_over() else {
                let text = "⏸ waiting for the person: the static engine does not show this tab to them; \
                            ask them to finish (CAPTCHA, 2FA) in their own browser, then navigate or observe again\n";
                return self.answer("wait", text.to_owned()).await;
            };
            lines.push(format!("⏸ handed to the person: they can use this page at {place} (on this machine)"));
        }
        let conditions = args.text.is_some() || args.gone.is_some();
        let (limit, poll) = match (user, live && conditions) {
            (true, _) => (args.ms.unwrap_or(MAX_USER_WAIT_MS).min(MAX_USER_WAIT_MS), true),
            (false, true) => (args.ms.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS), true),
            (false, false) => (args.ms.unwrap_or(0).min(MAX_WAIT_MS), false),
        };
        let start = tokio::time::Instant::now();
        let limit_d = Duration::from_millis(u64::from(limit));
        if !poll {
            tokio::time::sleep(limit_d).await;
        }
        let url_before = self.tabs[self.active].page.url().cloned();
        let (held, checks, navigated) = loop {
            let tab = &mut self.tabs[self.active];
            let page_text = {
                let analysis = tab.page.analysis(&mut self.refs).await?;
                observe_analysis(analysis, &FoldOptions::unfolded()).text().to_lowercase()
            };
            let mut checks = Vec::new();
            if let Some(t) = &args.text {
                checks.push((page_text.contains(&t.to_lowercase()), format!("{t:?} is on the page"), format!("{t:?} is not on the page")));
            }
            if let Some(g) = &args.gone {
                checks.push((!page_text.contains(&g.to_lowercase()), format!("{g:?} is not on the page"), format!("{g:?} is still on the page")));
            }
            let navigated = user && tab.page.url() != url_before.as_ref();
            let held = if user { navigated || (conditions && checks.iter().all(|c| c.0)) } else { checks.iter().all(|c| c.0) };
            if held || !poll || start.elapsed() >= limit_d {
                break (held, checks, navigated);
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
            self.tabs[self.active].page.touch();
        };
        let quiet = !live && !held && conditions;
        for (ok, yes, no) in checks {
            lines.push(match (ok, quiet) {
                (true, _) => format!("✓ {yes}"),
                (false, true) => format!("✗ {no} (a page without scripts changes only when acted on or reloaded)"),
                (false, false) => format!("✗ {no}"),
            });
        }
        if user {
            lines.push(if navigated { "✓ the person moved the page on".to_owned() } else if held { "✓ the person is done".to_owned() } else { format!("✗ the person did not finish within {} s", limit / 1000) });
        } else if args.ms.is_some() && !poll {
            lines.push(format!("✓ waited {limit} ms"));
        } else if poll {
            lines.push(format!("waited {} ms", start.elapsed().as_millis()));
        }
        let mut out = self.answer("wait", lines.join("\n")).await?;
        if !held && (conditions || user) {
            out.envelope.ok = false;
            out.envelope.server.error = Some(whittle_engine::render::envelope::ErrorInfo {
                code: "wait_timeout".into(),
                message: "the condition did not hold".into(),
            });
        }
        Ok(out)
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

/// Checks what a step needs before anything runs.
fn check_step(s: &Step) -> Result<(), Fail> {
    let need = |what: bool, msg: &str| if what { Ok(()) } else { Err(invalid_args(format!("{}: {msg}", s.action.word()))) };
    match s.action {
        Do::Type => need(s.text.is_some(), "`text` is required"),
        Do::Select => need(s.values.as_ref().is_some_and(|v| !v.is_empty()), "`values` is required"),
        Do::Press => need(s.key.as_ref().is_some_and(|k| !k.is_empty()), "`key` is required"),
        Do::Scroll => need(s.dy.is_some_and(f64::is_finite), "`dy` (screens) is required"),
        Do::Upload => need(s.files.as_ref().is_some_and(|f| !f.is_empty()) && s.ref_id.is_some(), "`ref` and `files` are required"),
        Do::Click | Do::Hover | Do::Check | Do::Uncheck => {
            need(s.ref_id.is_some() || s.text.is_some(), "`ref` or `text` is required")
        }
        Do::Clear | Do::Submit => need(s.ref_id.is_some(), "`ref` is required"),
    }
}

/// A step in words, for lines that say what was not run.
fn step_words(s: &Step) -> String {
    let mut out = s.action.word().to_owned();
    if let Some(r) = s.ref_id {
        out.push_str(&format!(" [{r}]"));
    } else if let Some(t) = &s.text
        && matches!(s.action, Do::Click | Do::Hover | Do::Check | Do::Uncheck)
    {
        out.push_str(&format!(" {t:?}"));
    }
    out
}

/// What follows the target on a `✓` line: the typed text (its length only
/// for sensitive fields), the chosen options, the key, the distance.
fn step_detail(s: &Step, sensitive: bool) -> String {
    match s.action {
        // A token or `secret:NAME` is the model's own words: echoed as typed.
        Do::Type if sensitive && !Vault::mentions_tokens(s.text.as_deref().unwrap_or("")) => {
            format!(" ({} characters)", s.text.as_deref().unwrap_or("").chars().count())
        }
        Do::Type => format!(" {:?}", s.text.as_deref().unwrap_or("")),
        Do::Select => format!(" = {}", s.values.as_deref().unwrap_or(&[]).join(", ")),
        Do::Press => format!(" {}", s.key.as_deref().unwrap_or("")),
        Do::Scroll => format!(" {}", s.dy.unwrap_or(0.0)),
        Do::Upload => format!(" {} file(s)", s.files.as_ref().map_or(0, Vec::len)),
        _ => String::new(),
    }
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

/// Folds and renders an analysis.
fn observe_analysis(a: &Analysis, options: &FoldOptions) -> Observation {
    let options = with_main_content(*options, &a.document, &a.styles, &a.concealment, &a.semantics);
    let folded = fold(&a.document, &a.tree, &a.layout, &options, &RenderOptions::default());
    render(&a.document, &folded)
}

/// Remembers an observation for `snapshot_id` checks.
fn remember(tab: &mut Tab, envelope: &Envelope) {
    let id = envelope.server.snapshot_id.clone();
    if tab.seen.iter().any(|s| s.id == id) {
        return;
    }
    let roles = envelope.page_content.as_ref().map(|p| p.elements.iter().map(|e| (e.ref_id, e.role)).collect()).unwrap_or_default();
    if tab.seen.len() == SNAPSHOTS_KEPT {
        tab.seen.pop_front();
    }
    tab.seen.push_back(Seen { id, roles });
}

/// The widget a step's `text` names: the first whose name equals it
/// (case and spacing aside), else the first whose name contains it; refs
/// only, in reading order.
fn target_by_text(a: &Analysis, text: &str) -> Option<(NodeId, u32)> {
    let wanted = whittle_engine::collapse_whitespace(text).to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let named = |w: &&whittle_engine::tree::Widget| w.ref_id.is_some();
    let norm = |s: &str| whittle_engine::collapse_whitespace(s).to_lowercase();
    let exact = a.tree.widgets.iter().filter(named).find(|w| norm(&w.name) == wanted);
    let w = exact.or_else(|| a.tree.widgets.iter().filter(named).find(|w| norm(&w.name).contains(&wanted)))?;
    Some((w.node, w.ref_id?))
}

/// The URL `navigate` goes to for `input` (not back/forward/reload).
pub fn resolve_input(input: &str, search_url: &str) -> Result<Url, BrowseError> {
    let s = input.trim();
    if let Some((scheme, _)) = s.split_once(':')
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && !looks_like_host_port(s)
    {
        let lower = scheme.to_ascii_lowercase();
        if lower != "http" && lower != "https" {
            return Err(BrowseError::new("invalid_url", format!("whittle opens http and https URLs, not {lower}:")));
        }
        return Url::parse(s).map_err(|e| BrowseError::new("invalid_url", format!("{s:?} is not a URL: {e}")));
    }
    if !s.contains(char::is_whitespace) && looks_like_host(s) {
        let host_end = s.find(['/', '?', '#']).unwrap_or(s.len());
        let host = &s[..host_end];
        let bare = host.rsplit_once(':').map_or(host, |(h, _)| h);
        let local = bare == "localhost" || bare.parse::<std::net::Ipv4Addr>().is_ok() || bare.starts_with('[');
        let scheme = if local { "http" } else { "https" };
        return Url::parse(&format!("{scheme}://{s}")).map_err(|e| BrowseError::new("invalid_url", format!("{s:?} is not a URL: {e}")));
    }
    let q: String = url::form_urlencoded::byte_serialize(s.as_bytes()).collect();
    let target = search_url.replace("{q}", &q);
    Url::parse(&target).map_err(|e| BrowseError::new("invalid_url", format!("the search URL {search_url:?} is not a URL: {e}")))
}

/// `host:port…` (so `localhost:8080/x` is not read as scheme `localhost`).
fn looks_like_host_port(s: &str) -> bool {
    let Some((_, rest)) = s.split_once(':') else { return false };
    rest.starts_with(|c: char| c.is_ascii_digit())
}

/// Something a person would type as an address: `localhost`, an IP, or a
/// dotted name whose last label is letters.
fn looks_like_host(s: &str) -> bool {
    let host_end = s.find(['/', '?', '#']).unwrap_or(s.len());
    let host = &s[..host_end];
    let bare = host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h);
    if bare == "localhost" || bare.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let labels: Vec<&str> = bare.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(char::is_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEARCH: &str = "https://search.test/?q={q}";

    #[test]
    fn navigate_inputs() {
        let go = |s: &str| resolve_input(s, SEARCH).map(|u| u.to_string());
        assert_eq!(go("https://shop.example/checkout").expect("present"), "https://shop.example/checkout");
        assert_eq!(go("shop.example/checkout").expect("present"), "https://shop.example/checkout");
        assert_eq!(go("localhost:8080/x").expect("present"), "http://localhost:8080/x");
        assert_eq!(go("127.0.0.1:9/a?b=c").expect("present"), "http://127.0.0.1:9/a?b=c");
        assert_eq!(go("lantern reviews").expect("present"), "https://search.test/?q=lantern+reviews");
        assert_eq!(go("node.js").expect("present"), "https://node.js/");
        assert_eq!(go("what is 2+2?").expect("present"), "https://search.test/?q=what+is+2%2B2%3F");
        assert_eq!(resolve_input("javascript:alert(1)", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("ftp://x.test/", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("file:///etc/passwd", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("http://[::1", SEARCH).expect_err("an error").code, "invalid_url");
    }

    #[test]
    fn steps_need_their_arguments() {
        let step = |v: serde_json::Value| serde_json::from_value::<Step>(v).expect("present");
        assert!(check_step(&step(serde_json::json!({"do": "type", "ref": 3}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "type", "ref": 3, "text": "x"}))).is_ok());
        assert!(check_step(&step(serde_json::json!({"do": "click"}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "click", "text": "Go"}))).is_ok());
        assert!(check_step(&step(serde_json::json!({"do": "select", "ref": 1, "values": []}))).is_err());
        assert!(check_step(&step(serde_json::json!({"do": "scroll", "dy": 1.5}))).is_ok());
        assert!(serde_json::from_value::<Step>(serde_json::json!({"do": "fly"})).is_err());
    }
}
