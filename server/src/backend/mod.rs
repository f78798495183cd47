//! The boundary between sessions and whatever holds the pages: the
//! [`Backend`] trait (one per server process) and the [`Page`] it opens for
//! each tab. The session (`session/`) owns the trait and speaks only to
//! it; `static_http.rs` holds a page with reqwest and the engine's own
//! DOM, `cdp/` over CDP in Chromium (`activity.rs`: when a Chromium page
//! can be read), and `auto.rs` is the tab that loads each document on the
//! static path unless it needs scripts, and moves it to Chromium when it
//! does.
//!
//! A page hands the session an [`Analysis`] — the engine's `Document`,
//! `Styles`, `Layout`, `Semantics` and `AxTree` — and the session folds,
//! renders, diffs and answers from it, so both backends give the model the
//! same text. Acting takes a [`PageAction`] whose target is already
//! resolved from a ref to a node of the page's current document.

mod activity;
pub mod auto;
pub mod cdp;
pub mod static_http;

use std::fmt;

use async_trait::async_trait;
use url::Url;
use whittle_engine::{AxTree, Concealment, Document, Layout, NodeId, Rect, RefTable, Semantics, Styles};

use crate::tools::Do;

/// Why a browsing operation failed: an error code (docs/mcp.md#error-codes)
/// and one line for the model. Messages never hold values of sensitive
/// fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowseError {
    /// `invalid_url`, `nav_failed`, `nav_timeout`, `too_large`, …
    pub code: &'static str,
    /// What happened.
    pub message: String,
    /// The element the message is about, when it is not the step's target
    /// (a form's first invalid field): the act result names it by its ref.
    pub about: Option<NodeId>,
}

impl BrowseError {
    /// An error with a code and a message.
    pub fn new(code: &'static str, message: impl Into<String>) -> BrowseError {
        BrowseError { code, message: message.into(), about: None }
    }
}

impl fmt::Display for BrowseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BrowseError {}

/// Where a navigation goes.
#[derive(Debug, Clone)]
pub enum Navigation {
    /// A URL (http or https).
    To(Url),
    /// One step back in the tab's history.
    Back,
    /// One step forward.
    Forward,
    /// The current entry again.
    Reload,
}

/// A navigation that happened.
#[derive(Debug, Clone)]
pub struct Arrival {
    /// The URL before (none for a tab's first page).
    pub from: Option<Url>,
    /// The URL after redirects.
    pub to: Url,
}

/// The engine's view of the page as it is now.
#[derive(Debug)]
pub struct Analysis {
    /// The DOM.
    pub document: Document,
    /// Computed styles.
    pub styles: Styles,
    /// Boxes.
    pub layout: Layout,
    /// What a person cannot see although it has a box.
    pub concealment: Concealment,
    /// Roles.
    pub semantics: Semantics,
    /// The semantic tree with refs.
    pub tree: AxTree,
    /// The page generation at which the stages last ran, and the fields
    /// whose value alone changed since (their widgets refreshed): a view
    /// rendered at that generation or later is refolded for these fields
    /// only (`whittle_engine::fold::refold_values`).
    pub values_since: (u64, Vec<NodeId>),
}

/// One action on the page, its target resolved.
#[derive(Debug, Clone, Copy)]
pub struct PageAction<'a> {
    /// What to do.
    pub action: Do,
    /// The element, when the step names one.
    pub target: Option<NodeId>,
    /// `type`: the text.
    pub text: Option<&'a str>,
    /// `select`: the options.
    pub values: &'a [String],
    /// `press`: the key.
    pub key: Option<&'a str>,
    /// `scroll`: screens.
    pub dy: Option<f64>,
    /// `upload`: the files.
    pub files: &'a [String],
    /// Whether the person confirmed (dialogs, form resubmission).
    pub confirm: bool,
}

/// What an action did to the page.
#[derive(Debug)]
pub enum Effect {
    /// The page changed in place (or may have); diff it.
    Changed,
    /// The tab navigated.
    Navigated(Arrival),
    /// A link or form asked for a new tab at this URL.
    NewTab(Url),
    /// The page opened a new tab itself (a script, `target=_blank` in
    /// Chromium): here it is, loaded.
    Opened(Box<dyn Page>),
}

/// What `screenshot` asks a page for (nodes of its current document).
#[derive(Debug, Clone, Default)]
pub struct ShotRequest {
    /// Only this element's box; `None`: the viewport.
    pub clip: Option<NodeId>,
    /// Elements to mark, with their refs.
    pub marks: Vec<(u32, NodeId)>,
    /// Elements to cover (sensitive fields, frames).
    pub covers: Vec<NodeId>,
    /// The whole scrollable page rather than the viewport (without `clip`).
    pub full_page: bool,
    /// A lossless picture (PNG) rather than a JPEG.
    pub lossless: bool,
}

/// A page's picture and where things lie in it (picture pixels).
#[derive(Debug, Clone, Default)]
pub struct Shot {
    /// The image (JPEG or PNG).
    pub picture: Vec<u8>,
    /// The marks, placed.
    pub marks: Vec<crate::picture::Mark>,
    /// Rectangles to cover: the requested ones and every password field
    /// and frame the renderer found itself.
    pub covers: Vec<Rect>,
    /// The boxes of the page's text in the picture, which labels keep
    /// off (at most a few thousand).
    pub texts: Vec<Rect>,
    /// Picture pixels per CSS pixel (marks and covers are in picture
    /// pixels already).
    pub scale: f32,
}

/// What holds the pages of one engine. One per server process, shared by
/// sessions.
#[async_trait]
pub trait Backend: Send + Sync + fmt::Debug {
    /// `static` or `chromium` (the envelope's `engine`).
    fn engine(&self) -> &'static str;

    /// A new, empty page for a tab of a session. Pages of one session share
    /// cookies: `session` names it.
    async fn open_page(&self, session: &SessionContext) -> Result<Box<dyn Page>, BrowseError>;

    /// The Chromium this backend may use for pages that need scripts
    /// (`research` renders them there when asked), if any.
    fn chromium(&self) -> Option<cdp::CdpBackend> {
        None
    }

    /// Session number `session` ended: what the backend holds for it goes
    /// (Chromium: its browser context, with the pages, cookies and
    /// downloads in it). Returns at once; the work runs in the background.
    fn end_session(&self, _session: u64) {}

    /// The server is stopping: whatever the backend runs stops and is
    /// reaped (Chromium: closed, waited for, its profile removed), within
    /// seconds.
    async fn shutdown(&self) {}
}

/// What a backend needs to know about the session opening a page.
#[derive(Debug, Clone)]
pub struct SessionContext {
    /// The cookie store and HTTP client of the session (static backend).
    pub fetcher: crate::fetch::Fetcher,
    /// The session's number, unique in the process (Chromium gives each
    /// session its own browser context).
    pub session: u64,
    /// The viewport pages are laid out in.
    pub viewport: whittle_engine::Viewport,
    /// The sites whose pages needed scripts (they go straight to Chromium).
    pub sites: std::sync::Arc<auto::Sites>,
    /// The cookies both engines last agreed on (a tab moving between them
    /// takes what changed along).
    pub cookies: std::sync::Arc<crate::cookies::CookieSync>,
}

impl SessionContext {
    /// The context of session number `session`, its HTTP client `fetcher`.
    pub fn new(fetcher: crate::fetch::Fetcher, session: u64, viewport: whittle_engine::Viewport) -> SessionContext {
        SessionContext { fetcher, session, viewport, sites: Default::default(), cookies: Default::default() }
    }
}

/// One tab's page.
#[async_trait]
pub trait Page: Send + fmt::Debug {
    /// `static` or `chromium`.
    fn engine(&self) -> &'static str;

    /// The current URL, if the tab has loaded anything.
    fn url(&self) -> Option<&Url>;

    /// Notices about the current page (whittle's words, never page text).
    fn notices(&self) -> Vec<String>;

    /// Goes somewhere. `confirm` allows what needs it (resubmitting a form
    /// when going back to its result).
    async fn navigate(&mut self, to: Navigation, confirm: bool) -> Result<Arrival, BrowseError>;

    /// The engine's view of the page as it is now, computed if the page
    /// changed since the last call. Refs come from the session's table.
    async fn analysis(&mut self, refs: &mut RefTable) -> Result<&Analysis, BrowseError>;

    /// Performs one action. `Err` is a refusal or a failure the act result
    /// prints as `✗` (its code becomes the envelope's error code).
    async fn act(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError>;

    /// The document whose refs this page's observations show.
    fn document_id(&self) -> Option<whittle_engine::DocumentId>;

    /// A number that changes whenever the page may look different
    /// (navigation, an action, a scroll): an observation rendered at one
    /// generation holds until it changes.
    fn generation(&self) -> u64;

    /// Called at the start of each tool call: a page that runs scripts may
    /// have changed by itself since the last one (the next analysis looks
    /// again). Pages without scripts change only when acted on.
    fn touch(&mut self) {}

    /// Whether the page runs scripts (it can change by itself: `wait`
    /// polls it).
    fn is_live(&self) -> bool {
        false
    }

    /// Where a person can see and use this page themselves (`wait user`),
    /// if anywhere.
    fn hand_over(&self) -> Option<String> {
        None
    }

    /// What happened besides the action's own effect, as act-result lines
    /// (`!` dialogs, `↧` downloads), each given once.
    fn take_events(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// A picture of the viewport or of one element, and where the
    /// elements to mark and to cover lie in it, as Chromium draws them.
    async fn screenshot(&mut self, request: &ShotRequest) -> Result<Shot, BrowseError> {
        let _ = request;
        Err(BrowseError::new("engine_unavailable", "this page has no rendering to take a picture of"))
    }
}
