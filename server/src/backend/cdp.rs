//! The Chromium backend: pages in a real Chromium over CDP (chromiumoxide),
//! for pages that need scripts. Chromium supplies the DOM, the computed
//! styles and the boxes (`DOMSnapshot.captureSnapshot`), and the page joins
//! the engine's pipeline at semantics (`whittle_engine::from_capture`), so
//! the model reads the same format, refs and folding as on the static path.
//!
//! Shape: one Chromium per server process, launched on first use (headless,
//! a fresh profile folder, background networking off, no sandbox as root);
//! a browser context per session (its cookies); a target per tab. Refs bind
//! to Chromium's backend node ids: each capture builds a new `Document`,
//! and the session's refs are carried over to it by backend node id.
//!
//! Lifecycle: a Chromium that crashes or is killed is noticed (its event
//! loop ends); the next page opened or navigated relaunches it and says
//! the tabs it held were lost. Every CDP call is bounded in time, so a page
//! that loops forever in script costs a timeout, not the session.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chromiumoxide::cdp::browser_protocol::browser::{
    BrowserContextId, CancelDownloadParams, CloseParams, DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::dom::{
    BackendNodeId, DescribeNodeParams, FocusParams, GetContentQuadsParams, ResolveNodeParams, ScrollIntoViewIfNeededParams,
    SetFileInputFilesParams,
};
use chromiumoxide::cdp::browser_protocol::dom_snapshot::{CaptureSnapshotParams, CaptureSnapshotReturns};
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams,
    MouseButton,
};
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, GetResponseBodyParams, ResourceType};
use chromiumoxide::cdp::browser_protocol::storage::{GetCookiesParams, SetCookiesParams};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, EventJavascriptDialogOpening, GetFrameTreeParams,
    GetNavigationHistoryParams, HandleJavaScriptDialogParams, NavigateParams, NavigateToHistoryEntryParams,
    ReloadParams, StopLoadingParams, Viewport as ClipViewport,
};
use chromiumoxide::cdp::browser_protocol::target::{CreateBrowserContextParams, CreateTargetParams, TargetId};
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams};
use chromiumoxide::{Browser, BrowserConfig};
use futures::StreamExt;
use url::Url;
use whittle_engine::{
    Capture, CapturedKind, CapturedNode, DocumentId, NodeId, Places, Rect, RefTable, Viewport,
    build_tree, compute_semantics, conceal, from_capture,
};

use super::activity::{Activity, Outcome};
use super::{Analysis, Arrival, Backend, BrowseError, Effect, Navigation, Page, PageAction, SessionContext, Shot, ShotRequest};
use crate::cookies::{self, Changes, Cookie};
use crate::guard::SocketGuard;
use crate::picture::Mark;
use crate::policy::NetPolicy;
use crate::tools::Do;

/// How long one CDP command may take before the page counts as hung.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// After an action: the longest wait for the page to become quiet.
const SETTLE_MAX: Duration = Duration::from_millis(2_500);
/// How long a parsed page may go on changing or loading (scripts that
/// never finish, a DOM that never rests) before it is shown as it is.
const LOAD_GRACE: Duration = Duration::from_secs(3);
/// The device pixel ratios a page may be emulated with.
pub const DEVICE_SCALES: std::ops::RangeInclusive<f64> = 1.0..=4.0;
/// Text boxes a picture's labels keep off, at most.
const MAX_TEXT_BOXES: usize = 6000;
/// The widest and tallest picture, in its own pixels: a longer page, a
/// bigger box or a bigger view is cut there.
const MAX_PICTURE_PX: f64 = 16_384.0;

/// Where and how Chromium runs.
#[derive(Debug, Clone)]
pub struct ChromiumOptions {
    /// The executable; `None`: `$WHITTLE_CHROMIUM`, then `chromium`,
    /// `chromium-browser`, `google-chrome`, `google-chrome-stable` on PATH.
    pub executable: Option<PathBuf>,
    /// The viewport pages are laid out in.
    pub viewport: Viewport,
    /// Device pixels per CSS pixel (within [`DEVICE_SCALES`]): a picture
    /// has this many pixels per CSS pixel, and its labels are drawn to
    /// match.
    pub device_scale: f64,
    /// Where downloads go.
    pub downloads: PathBuf,
    /// The longest a navigation may take.
    pub nav_timeout: Duration,
    /// The longest Chromium may take to start and be ready for commands.
    pub launch_timeout: Duration,
    /// The largest download kept; a bigger one is cancelled.
    pub max_download_bytes: u64,
    /// More Chromium switches, without their leading dashes (e.g.
    /// `host-resolver-rules=…`; with a `policy`, not `proxy-server`: the
    /// guard is the proxy).
    pub args: Vec<String>,
    /// Where pages may fetch from. `Some`: every socket Chromium opens goes
    /// through a [`SocketGuard`] (sites and addresses checked, names
    /// resolved by whittle), every request of every page is checked first
    /// (CDP `Fetch` interception), and a page at a refused address gives
    /// `origin_not_allowed` instead of its content. `None`: no checks
    /// (tests and benches on loopback).
    pub policy: Option<Arc<NetPolicy>>,
}

impl Default for ChromiumOptions {
    fn default() -> ChromiumOptions {
        ChromiumOptions {
            executable: None,
            viewport: Viewport::default(),
            device_scale: 1.0,
            downloads: std::env::temp_dir().join("whittle-downloads"),
            nav_timeout: Duration::from_secs(20),
            launch_timeout: Duration::from_secs(20),
            max_download_bytes: 100 * 1024 * 1024,
            args: Vec::new(),
            policy: None,
        }
    }
}

/// `scale` as a device pixel ratio Chromium is given: within
/// [`DEVICE_SCALES`] (1 when it is not a number).
fn device_scale(scale: f64) -> f64 {
    if scale.is_finite() { scale.clamp(*DEVICE_SCALES.start(), *DEVICE_SCALES.end()) } else { 1.0 }
}

/// Finds the Chromium executable: the one given, else the environment's,
/// else the first of the usual names on PATH.
pub fn find_chromium(given: Option<&Path>) -> Result<PathBuf, BrowseError> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p.to_owned())
        } else {
            Err(BrowseError::new("engine_unavailable", format!("no Chromium at {}", p.display())))
        };
    }
    if let Some(p) = std::env::var_os("WHITTLE_CHROMIUM").map(PathBuf::from) {
        return find_chromium(Some(&p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(BrowseError::new(
        "engine_unavailable",
        "no Chromium found (install chromium, or give its path with --chromium or WHITTLE_CHROMIUM)",
    ))
}

/// Chromium launches in this process, by every backend: each one's number,
/// which names its profile folder.
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// The Chromium backend. Cheap to clone; clones share the one browser.
#[derive(Debug, Clone)]
pub struct CdpBackend {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    options: ChromiumOptions,
    running: tokio::sync::Mutex<Option<Arc<Running>>>,
}

/// One launched Chromium.
struct Running {
    browser: Browser,
    /// False once its event loop ended (crash, kill, closed pipe).
    alive: Arc<AtomicBool>,
    /// Turns true when the event loop ends (Chromium's connection closed).
    ended: tokio::sync::watch::Receiver<bool>,
    /// The browser process's id.
    pid: Option<u32>,
    /// Which launch this is (1 for the first).
    number: u64,
    /// The browser context of each session.
    contexts: tokio::sync::Mutex<HashMap<u64, BrowserContextId>>,
    downloads: Arc<Mutex<Downloads>>,
    profile: PathBuf,
    /// The socket guard all of Chromium's connections go through, when
    /// there is a policy.
    guard: Option<SocketGuard>,
}

impl fmt::Debug for Running {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Running").field("number", &self.number).field("alive", &self.alive).finish_non_exhaustive()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Kill Chromium and wait (briefly) for it to exit before removing
        // its profile, which it writes to until it is gone; tokio reaps
        // the process (no zombie).
        if let Some(child) = self.browser.get_mut_child() {
            let child = child.as_mut_inner();
            let _ = child.start_kill();
            for _ in 0..100 {
                if !matches!(child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Whether process `pid` exists and has not exited (a zombie has).
fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Removes the profile folders of whittle processes that are gone (one
/// that was killed cannot clean up after itself).
fn sweep_profiles() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("whittle-chromium-")) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Downloads seen, by guid.
#[derive(Debug, Default)]
struct Downloads {
    /// guid → (frame, file name, state, bytes).
    items: HashMap<String, Download>,
}

#[derive(Debug, Clone)]
struct Download {
    frame: String,
    name: String,
    state: DownloadState,
    bytes: u64,
    reported: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DownloadState {
    Going,
    Done,
    Failed,
    TooLarge,
}

impl CdpBackend {
    /// A backend that launches Chromium when a page is first opened.
    pub fn new(options: ChromiumOptions) -> CdpBackend {
        CdpBackend { inner: Arc::new(Inner { options, running: tokio::sync::Mutex::new(None) }) }
    }

    /// Whether a Chromium executable can be found (without launching it).
    pub fn available(&self) -> bool {
        find_chromium(self.inner.options.executable.as_deref()).is_ok()
    }

    /// Launches Chromium as pages would, opens a blank page in a browser
    /// context of its own, and closes everything again: whether Chromium
    /// works here. Within the launch timeout plus [`COMMAND_TIMEOUT`]s.
    pub async fn probe(&self) -> Result<(), BrowseError> {
        let running = Arc::new(self.launch().await?);
        let page = async {
            let context = self.context(&running, 0).await?;
            let params =
                CreateTargetParams::builder().url("about:blank").browser_context_id(context).build().map_err(cdp_error)?;
            bounded(running.browser.new_page(params)).await.map(drop)
        };
        let opened = page.await;
        drop(running);
        opened
    }

    /// The running Chromium, launched (again) if there is none or it
    /// died; `true` when this call relaunched one that had died.
    async fn running(&self) -> Result<(Arc<Running>, bool), BrowseError> {
        let mut slot = self.inner.running.lock().await;
        let mut relaunched = false;
        if let Some(r) = slot.as_ref() {
            if r.alive.load(Ordering::SeqCst) {
                return Ok((r.clone(), false));
            }
            relaunched = true;
            *slot = None;
        }
        let started = std::time::Instant::now();
        let r = match self.launch().await {
            Ok(r) => Arc::new(r),
            Err(e) => {
                tracing::error!(code = e.code, error = %e.message, "Chromium did not start");
                return Err(e);
            }
        };
        tracing::info!(launch = r.number, relaunch = relaunched, ms = started.elapsed().as_millis() as u64, "Chromium launched");
        watch_downloads(&r, self.inner.options.max_download_bytes).await;
        *slot = Some(r.clone());
        Ok((r, relaunched))
    }

    async fn launch(&self) -> Result<Running, BrowseError> {
        let o = &self.inner.options;
        let exe = find_chromium(o.executable.as_deref())?;
        let number = LAUNCHES.fetch_add(1, Ordering::SeqCst) + 1;
        if number == 1 {
            sweep_profiles();
        }
        let profile = std::env::temp_dir().join(format!("whittle-chromium-{}-{number}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile)
            .map_err(|e| BrowseError::new("engine_unavailable", format!("cannot make Chromium's profile folder: {e}")))?;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&exe)
            .new_headless_mode()
            .user_data_dir(&profile)
            .viewport(chromiumoxide::handler::viewport::Viewport {
                width: o.viewport.width,
                height: o.viewport.height,
                device_scale_factor: Some(device_scale(o.device_scale)),
                emulating_mobile: false,
                is_landscape: false,
                has_touch: false,
            })
            .window_size(o.viewport.width, o.viewport.height)
            .launch_timeout(o.launch_timeout)
            .request_timeout(COMMAND_TIMEOUT)
            .args(["disable-gpu", "disable-quic", "disable-component-update", "disable-sync", "no-first-run", "disable-background-networking", "mute-audio"])
            // Back and forward load the page again, with its lifecycle
            // events (a page restored from the cache sends none).
            .arg(("disable-features", "BackForwardCache"));
        if running_as_root() {
            builder = builder.no_sandbox();
        }
        builder = builder.args(o.args.iter().map(String::as_str));
        let guard = match &o.policy {
            Some(policy) => {
                let guard = SocketGuard::start(policy.clone())
                    .await
                    .map_err(|e| BrowseError::new("engine_unavailable", format!("cannot start the socket guard for Chromium: {e}")))?;
                let args: Vec<String> = guard.chromium_args().iter().map(|a| a.trim_start_matches('-').to_owned()).collect();
                builder = builder.args(args);
                Some(guard)
            }
            None => None,
        };
        let launched = match builder.build() {
            Ok(config) => Browser::launch(config)
                .await
                .map_err(|e| BrowseError::new("engine_unavailable", format!("Chromium did not start ({}): {e}", exe.display()))),
            Err(e) => Err(BrowseError::new("engine_unavailable", format!("Chromium: {e}"))),
        };
        let (mut browser, mut handler) = match launched {
            Ok(b) => b,
            Err(e) => {
                // chromiumoxide has killed and reaped the process; its
                // profile folder is whittle's to remove.
                let _ = std::fs::remove_dir_all(&profile);
                return Err(e);
            }
        };
        let pid = browser.get_mut_child().and_then(|c| c.as_mut_inner().id());
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        let (ended_tx, ended) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                // A message chromiumoxide cannot decode is not fatal; a
                // closed connection ends the stream.
                if let Err(chromiumoxide::error::CdpError::Ws(_)) = event {
                    break;
                }
            }
            flag.store(false, Ordering::SeqCst);
            let _ = ended_tx.send(true);
            tracing::info!(launch = number, "Chromium's connection closed");
        });
        let downloads = Arc::new(Mutex::new(Downloads::default()));
        Ok(Running { browser, alive, ended, pid, number, contexts: tokio::sync::Mutex::new(HashMap::new()), downloads, profile, guard })
    }

    /// Disposes of session `session`'s browser context (its pages,
    /// cookies, storage and downloads in progress), in the background.
    fn dispose_context(&self, session: u64) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let inner = self.inner.clone();
        runtime.spawn(async move {
            let Some(running) = inner.running.lock().await.clone() else { return };
            let Some(context) = running.contexts.lock().await.remove(&session) else { return };
            if !running.alive.load(Ordering::SeqCst) {
                return;
            }
            match bounded(running.browser.dispose_browser_context(context)).await {
                Ok(()) => tracing::info!(launch = running.number, "browser context closed"),
                Err(e) => tracing::warn!(launch = running.number, code = e.code, "a browser context could not be disposed"),
            }
        });
    }

    /// The running browser process's id, if one runs.
    pub async fn browser_pid(&self) -> Option<u32> {
        self.inner.running.lock().await.as_ref().and_then(|r| r.pid)
    }

    /// Browser contexts open now (one per session that opened a Chromium
    /// page), for tests and the shutdown log.
    pub async fn open_contexts(&self) -> usize {
        let running = self.inner.running.lock().await.clone();
        match running {
            Some(r) => r.contexts.lock().await.len(),
            None => 0,
        }
    }

    /// Closes Chromium, waits (a few seconds at most) for it to exit, reaps
    /// it and removes its profile. The next page launches a new one.
    pub async fn close(&self) {
        let Some(running) = self.inner.running.lock().await.take() else { return };
        let started = std::time::Instant::now();
        let number = running.number;
        if running.alive.load(Ordering::SeqCst) {
            // Chromium closes its windows and exits with all its processes;
            // the answer may not come before the connection closes.
            let _ = bounded_by(Duration::from_secs(2), running.browser.execute(CloseParams::default())).await;
            let mut ended = running.ended.clone();
            let _ = tokio::time::timeout(Duration::from_secs(5), ended.wait_for(|e| *e)).await;
        }
        // The last holder kills what is left, reaps it and removes the
        // profile. If a page still holds it, the profile goes once the
        // process has exited (it writes there until then); the process is
        // reaped when the page lets go, or by init once whittle exits.
        match Arc::try_unwrap(running) {
            Ok(running) => drop(running),
            Err(shared) => {
                if let Some(pid) = shared.pid {
                    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
                    let mut tick = tokio::time::interval(Duration::from_millis(20));
                    while process_running(pid) && tokio::time::Instant::now() < deadline {
                        tick.tick().await;
                    }
                }
                let _ = std::fs::remove_dir_all(&shared.profile);
            }
        }
        tracing::info!(launch = number, ms = started.elapsed().as_millis() as u64, "Chromium closed");
    }

    /// The browser context of `session` in `running`, made on first use
    /// (downloads allowed, into the downloads folder).
    async fn context(&self, running: &Running, session: u64) -> Result<BrowserContextId, BrowseError> {
        let mut contexts = running.contexts.lock().await;
        if let Some(c) = contexts.get(&session) {
            return Ok(c.clone());
        }
        let c = bounded(running.browser.create_browser_context(CreateBrowserContextParams::default())).await?;
        let downloads = self.inner.options.downloads.clone();
        let _ = std::fs::create_dir_all(&downloads);
        let behavior = SetDownloadBehaviorParams::builder()
            .behavior(SetDownloadBehaviorBehavior::AllowAndName)
            .browser_context_id(c.clone())
            .download_path(downloads.display().to_string())
            .events_enabled(true)
            .build()
            .map_err(cdp_error)?;
        bounded(running.browser.execute(behavior)).await?;
        contexts.insert(session, c.clone());
        Ok(c)
    }

    /// Opens a Chromium page for a session (its browser context made on
    /// first use).
    async fn new_target(&self, session: u64) -> Result<(Arc<Running>, chromiumoxide::Page, bool), BrowseError> {
        let (running, relaunched) = self.running().await?;
        let context = self.context(&running, session).await?;
        let params = CreateTargetParams::builder().url("about:blank").browser_context_id(context).build().map_err(cdp_error)?;
        let page = bounded(running.browser.new_page(params)).await?;
        Ok((running, page, relaunched))
    }
}

#[async_trait]
impl Backend for CdpBackend {
    fn engine(&self) -> &'static str {
        "chromium"
    }

    async fn open_page(&self, session: &SessionContext) -> Result<Box<dyn Page>, BrowseError> {
        Ok(Box::new(CdpPage::open(self.clone(), session).await?))
    }

    fn end_session(&self, session: u64) {
        self.dispose_context(session);
    }

    async fn shutdown(&self) {
        self.close().await;
    }
}

/// The last capture of a page.
#[derive(Debug)]
struct Live {
    analysis: Analysis,
    /// Per document node: Chromium's backend node id.
    backend_ids: Vec<Option<i64>>,
}

/// A change a person made to a control on the static path, carried into
/// Chromium by [`CdpPage::restore_form`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FormChange {
    /// A text control's typed value.
    Value(String),
    /// A checkbox's or radio button's checkedness.
    Checked(bool),
    /// An option's selectedness (its `<select>` is told of it).
    Selected(bool),
}

/// What an action did, for a caller that keeps the tabs a page opens as
/// Chromium tabs.
#[derive(Debug)]
pub(crate) enum Acted {
    /// The effect on this tab.
    Done(Effect),
    /// The page opened a new tab: here it is, loaded.
    Opened(Box<CdpPage>),
}

/// A tab in Chromium.
#[derive(Debug)]
pub struct CdpPage {
    backend: CdpBackend,
    running: Arc<Running>,
    session: u64,
    viewport: Viewport,
    page: chromiumoxide::Page,
    url: Option<Url>,
    generation: u64,
    live: Option<Live>,
    /// The page may have changed since the last capture.
    stale: bool,
    notices: Vec<String>,
    dialogs: Arc<DialogState>,
    /// New tabs this page opened that were already handed over.
    popups_seen: HashSet<TargetId>,
    /// Whether its target was closed already.
    closed: bool,
    /// What the page is doing (see `activity.rs`).
    activity: Arc<Activity>,
    /// Main-frame navigations a caller takes over.
    divert: Arc<Divert>,
    /// A document of another engine whose refs the next capture takes
    /// over, for the elements found again by their place.
    adopt: Option<(DocumentId, Places)>,
    /// The blank page [`CdpPage::park`] is loading, waited for before the
    /// next navigation.
    parking: Option<tokio::task::JoinHandle<()>>,
    /// The document before our last `Page.navigate`, while chromiumoxide
    /// may still hold that command (see [`CdpPage::release`]).
    held: Option<Option<String>>,
}

impl Drop for CdpPage {
    /// A tab the session dropped (closed, or the session ended) is closed
    /// in Chromium too, so targets do not pile up in a long-lived server.
    fn drop(&mut self) {
        if self.closed || !self.alive() {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let page = self.page.clone();
            handle.spawn(async move {
                let _ = tokio::time::timeout(Duration::from_secs(2), page.close()).await;
            });
        }
    }
}

/// The main frame of a page.
#[derive(Debug, Clone)]
struct Frame {
    id: String,
    loader: String,
    url: String,
    /// What an error page stands for: the URL that could not be loaded.
    unreachable: Option<String>,
}

/// Dialogs: dismissed unless the current action was confirmed; each one
/// is reported once as a `!` line.
#[derive(Debug, Default)]
struct DialogState {
    accept: AtomicBool,
    lines: Mutex<Vec<String>>,
}

impl CdpPage {
    /// A new blank tab of `session`'s browser context.
    pub async fn open(backend: CdpBackend, session: &SessionContext) -> Result<CdpPage, BrowseError> {
        let (running, page, relaunched) = backend.new_target(session.session).await?;
        let mut tab = CdpPage::wrap(backend, running, session.session, session.viewport, page).await;
        if relaunched {
            tab.notices.push(restarted_notice());
        }
        Ok(tab)
    }

    /// A tab for a target of `running` (a new one, or one a page opened),
    /// its dialogs watched.
    async fn wrap(backend: CdpBackend, running: Arc<Running>, session: u64, viewport: Viewport, page: chromiumoxide::Page) -> CdpPage {
        let dialogs = Arc::new(DialogState::default());
        let divert = Arc::new(Divert::default());
        let activity = watch(&page, &dialogs, &divert, backend.inner.options.policy.clone()).await;
        CdpPage {
            backend,
            running,
            session,
            viewport,
            page,
            url: None,
            generation: 0,
            live: None,
            stale: true,
            notices: Vec::new(),
            dialogs,
            popups_seen: HashSet::new(),
            closed: false,
            activity,
            divert,
            adopt: None,
            parking: None,
            held: None,
        }
    }

    /// Every cookie of this session's browser context.
    pub(crate) async fn cookies(&self) -> Result<Vec<Cookie>, BrowseError> {
        let context = self.backend.context(&self.running, self.session).await?;
        let params = GetCookiesParams::builder().browser_context_id(context).build();
        let got = bounded(self.running.browser.execute(params)).await?;
        Ok(got.result.cookies.iter().map(cookies::from_chromium).collect())
    }

    /// Applies what the static path changed to this session's browser
    /// context: cookies set, cookies gone. Gives how many Chromium refused.
    pub(crate) async fn apply_cookies(&self, changes: &Changes) -> Result<usize, BrowseError> {
        let mut refused = 0;
        let mut params = Vec::with_capacity(changes.set.len() + changes.gone.len());
        for c in changes.set.iter().cloned().chain(changes.gone.iter().map(Cookie::expired)) {
            match cookies::to_chromium(&c) {
                Some(p) => params.push(p),
                None => refused += 1,
            }
        }
        if params.is_empty() {
            return Ok(refused);
        }
        let context = self.backend.context(&self.running, self.session).await?;
        let set = |cookies: Vec<_>| SetCookiesParams { cookies, browser_context_id: Some(context.clone()) };
        if bounded(self.running.browser.execute(set(params.clone()))).await.is_ok() {
            return Ok(refused);
        }
        // One cookie Chromium refuses fails the whole call: one by one.
        for p in params {
            if bounded(self.running.browser.execute(set(vec![p]))).await.is_err() {
                refused += 1;
            }
        }
        Ok(refused)
    }

    /// Takes over the refs of `from`, another engine's copy of the page now
    /// loaded here (a tab moving from the static path): at the next
    /// capture each element found again at its place keeps its ref; the
    /// notices say how many were not found.
    pub(crate) fn adopt_refs(&mut self, from: DocumentId, places: Places) {
        self.adopt = Some((from, places));
    }

    /// Leaves the page (the tab's document moved to the other engine):
    /// Chromium loads a blank page in the background, so the page's
    /// scripts stop, and the tab is empty until it navigates again.
    pub(crate) fn park(&mut self) {
        self.url = None;
        self.live = None;
        self.stale = true;
        self.generation += 1;
        self.notices.clear();
        let page = self.page.clone();
        let activity = self.activity.clone();
        self.parking = Some(tokio::spawn(async move {
            leave(&page, &activity).await;
        }));
    }

    /// The id of Chromium's history entry the tab is at.
    pub(crate) async fn entry_id(&self) -> Option<i64> {
        let history = bounded(self.page.execute(GetNavigationHistoryParams::default())).await.ok()?;
        let i = usize::try_from(history.result.current_index).ok()?;
        history.result.entries.get(i).map(|e| e.id)
    }

    /// Goes to Chromium's history entry `id` (keeping what Chromium keeps
    /// of it: a page's own states, a form's answer); `None` when Chromium
    /// no longer has it.
    pub(crate) async fn go_to_entry(&mut self, id: i64) -> Option<Result<Arrival, BrowseError>> {
        if let Some(parking) = self.parking.take() {
            let _ = parking.await;
        }
        let history = bounded(self.page.execute(GetNavigationHistoryParams::default())).await.ok()?;
        if !history.result.entries.iter().any(|e| e.id == id) {
            return None;
        }
        self.notices.clear();
        let page = self.page.clone();
        let go = async move { page.execute(NavigateToHistoryEntryParams::new(id)).await.map(|_| ()).map_err(cdp_error) };
        Some(self.load(go).await)
    }

    /// The current document as its server sent it (before its scripts
    /// ran), with the charset it was read in, if Chromium still holds it.
    pub(crate) fn source(&self) -> impl std::future::Future<Output = Option<(Vec<u8>, Option<String>)>> + Send + 'static {
        let page = self.page.clone();
        let loader = self.activity.loader();
        async move {
            // A navigation's request has its document's loader id.
            let params = GetResponseBodyParams::new(chromiumoxide::cdp::browser_protocol::network::RequestId::new(loader?));
            let body = bounded(page.execute(params)).await.ok()?.result;
            if body.base64_encoded {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD.decode(&body.body).ok()?;
                Some((bytes, None))
            } else {
                Some((body.body.into_bytes(), Some("utf-8".to_owned())))
            }
        }
    }

    /// While `wants` is set, a GET navigation of the main frame to a URL it
    /// accepts (a link the page follows when acted on) is not made: the
    /// page stays where it is, and [`CdpPage::take_diverted`] gives the URL
    /// to the caller, who loads it elsewhere. `None` turns it off.
    pub(crate) fn divert(&self, wants: Option<Wants>) {
        let mut s = self.divert.lock();
        s.wants = wants;
        s.taken = None;
    }

    /// The navigation [`CdpPage::divert`] took, if one was.
    pub(crate) fn take_diverted(&self) -> Option<Url> {
        self.divert.lock().taken.take()
    }

    /// The Chromium page itself, for tools that speak CDP directly (the
    /// benches time `Accessibility.getFullAXTree` on it).
    pub fn cdp(&self) -> &chromiumoxide::Page {
        &self.page
    }

    fn alive(&self) -> bool {
        self.running.alive.load(Ordering::SeqCst)
    }

    /// A fresh target when Chromium died under this tab (its page is
    /// lost); says so in a notice.
    async fn revive(&mut self) -> Result<(), BrowseError> {
        if self.alive() {
            return Ok(());
        }
        self.replace_target().await?;
        self.notices = vec![restarted_notice()];
        Ok(())
    }

    /// A fresh target for this tab, set up as the first was; the old one,
    /// if Chromium still has it, is closed in the background.
    async fn replace_target(&mut self) -> Result<(), BrowseError> {
        let (running, page, _) = self.backend.new_target(self.session).await?;
        let old = std::mem::replace(&mut self.page, page);
        if self.alive() {
            tokio::spawn(async move {
                let _ = tokio::time::timeout(Duration::from_secs(2), old.close()).await;
            });
        }
        self.running = running;
        let policy = self.backend.inner.options.policy.clone();
        self.activity = watch(&self.page, &self.dialogs, &self.divert, policy).await;
        self.live = None;
        self.stale = true;
        self.generation += 1;
        self.popups_seen.clear();
        self.held = None;
        Ok(())
    }

    /// `e`, or `origin_not_allowed` when the socket guard refused a
    /// connection since it had refused `before` (a name that resolved to a
    /// private address: Chromium only says the proxy failed).
    fn refusal_or(&self, e: BrowseError, before: u64) -> BrowseError {
        match &self.running.guard {
            // The guard is the browser's, shared by every tab: its refusals
            // are not quoted (they may be another session's).
            Some(g) if e.code == "nav_failed" && g.refused() > before => BrowseError::new(
                "origin_not_allowed",
                "not allowed: whittle's guard refused a connection this page needed (a private address, or a site the profile does not allow)",
            ),
            _ => e,
        }
    }

    /// Refuses a place the policy does not allow: nothing but its origin
    /// is said.
    fn check_place(&self, url: &Url) -> Result<(), BrowseError> {
        match &self.backend.inner.options.policy {
            Some(p) if matches!(url.scheme(), "http" | "https") => {
                p.check_url(url).map_err(|r| BrowseError::new("origin_not_allowed", format!("not allowed: {r}")))
            }
            _ => Ok(()),
        }
    }

    fn dead() -> BrowseError {
        BrowseError::new("engine_crashed", "Chromium stopped and this tab's page was lost: navigate to load it again")
    }

    /// Goes somewhere (the body of `navigate`).
    async fn go(&mut self, to: Navigation) -> Result<Arrival, BrowseError> {
        let page = self.page.clone();
        match to {
            Navigation::To(url) => {
                self.check_place(&url)?;
                // A refusal noted before this navigation is the old page's.
                let _ = self.divert.take_refused();
                let go = async move {
                    let params = NavigateParams::builder().url(url.as_str()).build().map_err(cdp_error)?;
                    let r = page.execute(params).await.map_err(cdp_error)?;
                    match &r.result.error_text {
                        // Only whittle blocks requests (Fetch interception).
                        Some(e) if e.contains("ERR_BLOCKED_BY_CLIENT") => Err(BrowseError::new(
                            "origin_not_allowed",
                            format!("{} (or a page it redirected to) is not allowed by the profile", url.origin().ascii_serialization()),
                        )),
                        Some(e) => Err(BrowseError::new("nav_failed", format!("Chromium could not load it: {e}"))),
                        None => Ok(()),
                    }
                };
                let refused = self.running.guard.as_ref().map_or(0, SocketGuard::refused);
                self.release().await;
                self.held = Some(self.activity.loader());
                self.load(go).await.map_err(|e| self.refusal_or(e, refused))
            }
            Navigation::Reload => {
                let go = async move { page.execute(ReloadParams::default()).await.map(|_| ()).map_err(cdp_error) };
                self.load(go).await
            }
            Navigation::Back | Navigation::Forward => {
                let history = bounded(self.page.execute(GetNavigationHistoryParams::default())).await?;
                let step: i64 = if matches!(to, Navigation::Back) { -1 } else { 1 };
                let i = history.result.current_index + step;
                let Some(entry) = usize::try_from(i).ok().and_then(|i| history.result.entries.get(i)) else {
                    return Err(BrowseError::new("nav_failed", if step < 0 { "no page to go back to" } else { "no page to go forward to" }));
                };
                let id = entry.id;
                let go = async move {
                    page.execute(NavigateToHistoryEntryParams::new(id)).await.map(|_| ()).map_err(cdp_error)
                };
                self.load(go).await
            }
        }
    }

    /// The main frame: its id, its loader id (a new one is a new
    /// document) and its URL.
    async fn frame(&self) -> Result<Frame, BrowseError> {
        let tree = bounded(self.page.execute(GetFrameTreeParams::default())).await?;
        let f = &tree.result.frame_tree.frame;
        Ok(Frame { id: f.id.inner().clone(), loader: f.loader_id.inner().clone(), url: f.url.clone(), unreachable: f.unreachable_url.clone() })
    }

    /// Runs a navigation `go` and waits until its page can be read: its
    /// document parsed, then quiet (see `activity.rs`); a page that does
    /// not get quiet within [`LOAD_GRACE`] of being parsed, or whose
    /// document never finishes, is shown as far as it got, with a notice.
    /// All within the navigation timeout.
    async fn load(&mut self, go: impl std::future::Future<Output = Result<(), BrowseError>> + Send + 'static) -> Result<Arrival, BrowseError> {
        let from = self.url.clone();
        let timeout = self.backend.inner.options.nav_timeout;
        let start = tokio::time::Instant::now();
        let deadline = start + timeout;
        let before = self.activity.loader();
        self.stale = true;
        self.generation += 1;
        self.live = None;
        self.activity.begin(true);
        let timed_out = || BrowseError::new("nav_timeout", format!("the page did not load within {} s", timeout.as_secs()));
        // chromiumoxide answers `Page.navigate` only once the page has
        // loaded (or the navigation failed): the command runs on its own
        // while the page's events say when it can be read.
        let mut nav = tokio::spawn(go);
        let mut nav_done = false;
        let arrived = tokio::select! {
            done = &mut nav => {
                nav_done = true;
                match done {
                    Ok(Ok(())) => self.activity.arrived(before.as_deref(), start, deadline).await,
                    Ok(Err(e)) => return Err(e),
                    Err(_) => return Err(BrowseError::new("internal", "the navigation task failed")),
                }
            }
            outcome = self.activity.arrived(before.as_deref(), start, deadline) => outcome,
        };
        let frame = self.frame().await?;
        // A navigation that failed commits Chromium's error page: its
        // error is the command's answer, which comes once that page loaded.
        // The page asked for may also have loaded and sent the tab on (a
        // refresh, a script) to one that failed.
        if is_error_page(&frame) {
            if !nav_done {
                match tokio::time::timeout_at(deadline, &mut nav).await {
                    Ok(Ok(Err(e))) => return Err(e),
                    Ok(_) => {}
                    Err(_) => return Err(timed_out()),
                }
            }
            return Err(self.went_on_and_failed(&frame));
        }
        let partial = match arrived {
            Outcome::Done => {
                let grace = deadline.min(tokio::time::Instant::now() + LOAD_GRACE);
                self.activity.usable(grace).await == Outcome::TimedOut && !self.activity.loaded()
            }
            // A document that committed but never finished parsing (it is
            // still arriving, or waits for a script nothing answers) is
            // shown as far as it got; nothing committed is a timeout.
            Outcome::TimedOut if self.activity.loader() != before => true,
            Outcome::TimedOut => {
                nav.abort();
                self.stop_loading().await;
                return Err(timed_out());
            }
        };
        if partial {
            nav.abort();
            self.stop_loading().await;
            self.notices.push("the page was still loading (scripts or data that did not arrive): shown as far as it got".into());
        }
        let last = self.frame().await.unwrap_or(frame);
        if is_error_page(&last) {
            return Err(self.went_on_and_failed(&last));
        }
        let url = last.url;
        let to = Url::parse(&url).map_err(|_| BrowseError::new("nav_failed", "the page has no URL whittle can read"))?;
        self.url = Some(to.clone());
        Ok(Arrival { from, to })
    }

    /// The error of a page that loaded, then sent the tab on to one that
    /// could not be loaded (an error page): where (its origin, not its
    /// path or query) and Chromium's error code.
    fn went_on_and_failed(&self, error_page: &Frame) -> BrowseError {
        let to = error_page.unreachable.as_deref().and_then(|u| Url::parse(u).ok());
        let why = self.activity.failure().map_or(String::new(), |e| format!(" ({e})"));
        let message = match to {
            Some(to) => format!("the page sent the tab on (a refresh or a script) to {}, which Chromium could not load{why}", to.origin().ascii_serialization()),
            None => format!("the page sent the tab on (a refresh or a script) to one Chromium could not load{why}"),
        };
        BrowseError::new("nav_failed", message)
    }

    /// Lets the next navigation go. chromiumoxide answers a
    /// `Page.navigate` only once its page has fired `load`, and sends no
    /// other `Page.navigate` of the tab until then (for up to 30 s); a page
    /// is shown once usable, often before, and one whose image nothing
    /// answers never fires it (stopping it does not either). Such a page is
    /// left for a blank one, which loads at once; a page too busy to leave
    /// costs the tab a fresh target.
    async fn release(&mut self) {
        let Some(before) = self.held.take() else { return };
        if self.activity.loaded() && self.activity.loader() != before {
            return;
        }
        if !leave(&self.page, &self.activity).await {
            let _ = self.replace_target().await;
        }
    }

    async fn stop_loading(&self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), self.page.execute(StopLoadingParams::default())).await;
    }

    /// `document.readyState`, unless the page does not answer within
    /// half a second.
    async fn ready_state(&self) -> Option<String> {
        let v = self.eval_within("document.readyState", Duration::from_millis(500)).await.ok()?;
        v.as_str().map(str::to_owned)
    }

    /// Waits (bounded by the navigation timeout) until a document other
    /// than `before` has been parsed and the page is quiet: after an
    /// action that navigated, or for a tab the page opened.
    async fn wait_arrival(&self, before: Option<&str>) {
        let start = tokio::time::Instant::now();
        let deadline = start + self.backend.inner.options.nav_timeout;
        if self.activity.arrived(before, start, deadline).await == Outcome::Done {
            self.activity.usable(deadline.min(tokio::time::Instant::now() + LOAD_GRACE)).await;
        }
    }

    /// Waits until the page is quiet, at most [`SETTLE_MAX`].
    async fn settle(&self) {
        self.activity.quiet(tokio::time::Instant::now() + SETTLE_MAX).await;
    }

    async fn eval_value(&self, expression: &str) -> Result<serde_json::Value, BrowseError> {
        self.eval_within(expression, COMMAND_TIMEOUT).await
    }

    /// Evaluates `expression` in the page and returns its value, within
    /// `limit`.
    async fn eval_within(&self, expression: &str, limit: Duration) -> Result<serde_json::Value, BrowseError> {
        let params = chromiumoxide::cdp::js_protocol::runtime::EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .build()
            .map_err(cdp_error)?;
        let r = bounded_by(limit, self.page.execute(params)).await?;
        if r.result.exception_details.is_some() {
            return Err(BrowseError::new("internal", "a page script failed"));
        }
        Ok(r.result.result.value.clone().unwrap_or(serde_json::Value::Null))
    }

    /// Captures the page and builds its analysis; refs of the previous
    /// capture follow their elements by backend node id.
    async fn capture(&mut self, refs: &mut RefTable) -> Result<(), BrowseError> {
        let params = CaptureSnapshotParams::new(whittle_engine::COMPUTED_PROPERTIES.iter().map(|s| (*s).to_owned()).collect());
        let snapshot = bounded(self.page.execute(params)).await?.result;
        // The page may have moved on by itself (a script, a redirect).
        if let Some(url) = snapshot
            .documents
            .first()
            .and_then(|d| usize::try_from(*d.document_url.inner()).ok())
            .and_then(|i| snapshot.strings.get(i))
            .and_then(|u| Url::parse(u).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        {
            self.url = Some(url);
        }
        // A page that went where the profile does not allow (a script, a
        // redirect the guard refused): nothing of it is read.
        if let Some(url) = &self.url {
            self.check_place(url)?;
        }
        let viewport = self.viewport;
        let previous = self.live.take();
        let live = tokio::task::block_in_place(|| {
            let (capture, backend_ids) = to_capture(&snapshot, self.url.clone(), viewport);
            let captured = from_capture(&capture);
            let mut ids: Vec<Option<i64>> = vec![None; captured.document.len()];
            let mut by_backend: HashMap<i64, NodeId> = HashMap::with_capacity(captured.nodes.len());
            for (i, made) in captured.nodes.iter().enumerate() {
                if let (Some(n), Some(&b)) = (made, backend_ids.get(i))
                    && ids[n.index()].is_none()
                {
                    ids[n.index()] = Some(b);
                    by_backend.insert(b, *n);
                }
            }
            if let Some(prev) = &previous {
                refs.carry(prev.analysis.document.id(), captured.document.id(), |old| {
                    prev.backend_ids.get(old.index()).copied().flatten().and_then(|b| by_backend.get(&b).copied())
                });
            } else if let Some((from, places)) = self.adopt.take() {
                let here = Places::of(&captured.document);
                let map = places.map_to(&here);
                let (_, lost) = refs.carry(from, captured.document.id(), |old| map.get(old));
                if lost > 0 {
                    self.notices.push(format!(
                        "{lost} element(s) shown before are not on the page as Chromium shows it: their refs are gone (the others kept theirs)"
                    ));
                }
            }
            let concealment = conceal(&captured.document, &captured.styles, &captured.layout);
            let semantics = compute_semantics(&captured.document, &captured.styles, &concealment);
            let tree = build_tree(&captured.document, &captured.styles, &concealment, &semantics, refs);
            Live {
                analysis: Analysis {
                    document: captured.document,
                    styles: captured.styles,
                    layout: captured.layout,
                    concealment,
                    semantics,
                    tree,
                    values_since: (self.generation, Vec::new()),
                },
                backend_ids: ids,
            }
        });
        self.live = Some(live);
        self.stale = false;
        Ok(())
    }

    /// The backend node id of a node of the current capture.
    fn backend_id(&self, node: NodeId) -> Result<BackendNodeId, BrowseError> {
        self.live
            .as_ref()
            .and_then(|l| l.backend_ids.get(node.index()).copied().flatten())
            .map(BackendNodeId::new)
            .ok_or_else(|| BrowseError::new("unknown_ref", "that element is gone from the page: observe again"))
    }

    /// Calls `function` (JavaScript, `this` the element) and returns its
    /// value.
    async fn call_on(&self, node: BackendNodeId, function: &str, args: Vec<serde_json::Value>) -> Result<serde_json::Value, BrowseError> {
        let resolved = bounded(self.page.execute(ResolveNodeParams::builder().backend_node_id(node).build())).await?;
        let Some(object) = resolved.result.object.object_id.clone() else {
            return Err(BrowseError::new("unknown_ref", "that element is gone from the page: observe again"));
        };
        let arguments: Vec<CallArgument> = args.into_iter().map(|v| CallArgument::builder().value(v).build()).collect();
        let params = CallFunctionOnParams::builder()
            .function_declaration(function)
            .object_id(object)
            .arguments(arguments)
            .return_by_value(true)
            .await_promise(false)
            .user_gesture(true)
            .build()
            .map_err(cdp_error)?;
        let r = bounded(self.page.execute(params)).await?;
        if let Some(e) = &r.result.exception_details {
            let message = e.exception.as_ref().and_then(|x| x.description.clone()).unwrap_or_else(|| e.text.clone());
            let first = message.lines().next().unwrap_or("").chars().take(200).collect::<String>();
            return Err(BrowseError::new("not_actionable", format!("the page refused: {first}")));
        }
        Ok(r.result.result.value.clone().unwrap_or(serde_json::Value::Null))
    }

    /// The centre of the element's first box, scrolled into view; `None`
    /// when it has no box.
    async fn centre(&self, node: BackendNodeId) -> Result<Option<(f64, f64)>, BrowseError> {
        let _ = bounded(self.page.execute(ScrollIntoViewIfNeededParams::builder().backend_node_id(node).build())).await;
        // The first box (a wrapped link's first line), not their union.
        Ok(self.quads(node).await.first().map(|r| (f64::from(r.x + r.width / 2.0), f64::from(r.y + r.height / 2.0))))
    }

    async fn mouse(&self, kind: DispatchMouseEventType, x: f64, y: f64, clicks: i64) -> Result<(), BrowseError> {
        let mut b = DispatchMouseEventParams::builder().r#type(kind.clone()).x(x).y(y);
        if !matches!(kind, DispatchMouseEventType::MouseMoved) {
            b = b.button(MouseButton::Left).click_count(clicks).buttons(1);
        }
        bounded(self.page.execute(b.build().map_err(cdp_error)?)).await?;
        Ok(())
    }

    /// A person's click: pointer events at the box centre when the element
    /// is what is there, else a DOM click.
    async fn click(&self, node: BackendNodeId) -> Result<(), BrowseError> {
        if let Some((x, y)) = self.centre(node).await? {
            let hit = self
                .call_on(
                    node,
                    "function(x, y) { const e = document.elementFromPoint(x, y); return !!e && (e === this || this.contains(e) || (this.labels && [...this.labels].some(l => l.contains(e)))); }",
                    vec![x.into(), y.into()],
                )
                .await?;
            if hit == serde_json::Value::Bool(true) {
                self.mouse(DispatchMouseEventType::MouseMoved, x, y, 0).await?;
                self.mouse(DispatchMouseEventType::MousePressed, x, y, 1).await?;
                self.mouse(DispatchMouseEventType::MouseReleased, x, y, 1).await?;
                return Ok(());
            }
        }
        self.call_on(node, "function() { this.click(); }", vec![]).await.map(|_| ())
    }

    async fn key(&self, combo: &str) -> Result<(), BrowseError> {
        let parts: Vec<&str> = combo.split('+').filter(|p| !p.is_empty()).collect();
        let Some((last, mods)) = parts.split_last() else {
            return Err(BrowseError::new("invalid_args", "press: `key` is empty"));
        };
        let mut modifiers = 0i64;
        for m in mods {
            modifiers |= match m.to_ascii_lowercase().as_str() {
                "alt" => 1,
                "control" | "ctrl" => 2,
                "meta" | "cmd" | "command" => 4,
                "shift" => 8,
                other => return Err(BrowseError::new("invalid_args", format!("press: unknown modifier {other:?}"))),
            };
        }
        let def = chromiumoxide::keys::USKEYBOARD_LAYOUT
            .iter()
            .find(|k| k.key == *last)
            .or_else(|| chromiumoxide::keys::USKEYBOARD_LAYOUT.iter().find(|k| k.key.eq_ignore_ascii_case(last)))
            .ok_or_else(|| BrowseError::new("invalid_args", format!("press: unknown key {last:?}")))?;
        let text = if modifiers & !8 != 0 { None } else { def.text.map(str::to_owned).or_else(|| (def.key.chars().count() == 1).then(|| def.key.to_owned())) };
        let down = DispatchKeyEventParams::builder()
            .r#type(if text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown })
            .key(def.key)
            .code(def.code)
            .windows_virtual_key_code(def.key_code)
            .native_virtual_key_code(def.key_code)
            .modifiers(modifiers);
        let down = match &text {
            Some(t) => down.text(t.clone()).unmodified_text(t.clone()),
            None => down,
        };
        bounded(self.page.execute(down.build().map_err(cdp_error)?)).await?;
        let up = DispatchKeyEventParams::builder()
            .r#type(DispatchKeyEventType::KeyUp)
            .key(def.key)
            .code(def.code)
            .windows_virtual_key_code(def.key_code)
            .native_virtual_key_code(def.key_code)
            .modifiers(modifiers)
            .build()
            .map_err(cdp_error)?;
        bounded(self.page.execute(up)).await?;
        Ok(())
    }

    /// The first new tab this page opened since the last look, loaded;
    /// any others are closed at once (a popup storm costs nothing).
    async fn popup(&mut self) -> Option<CdpPage> {
        let pages = bounded(self.running.browser.pages()).await.ok()?;
        let me = self.page.target_id().clone();
        let mut first = None;
        for p in pages {
            if p.opener_id().as_ref() != Some(&me) || !self.popups_seen.insert(p.target_id().clone()) {
                continue;
            }
            if first.is_some() {
                let _ = tokio::time::timeout(Duration::from_secs(2), p.close()).await;
                continue;
            }
            first = Some(p);
        }
        let mut tab = CdpPage::wrap(self.backend.clone(), self.running.clone(), self.session, self.viewport, first?).await;
        tab.generation = 1;
        // Opened by the page: its first document may have been parsed
        // before this tab listened to its events.
        if matches!(tab.ready_state().await.as_deref(), Some("interactive" | "complete"))
            && let Ok(f) = tab.frame().await
        {
            tab.activity.assume_parsed(f.loader);
        }
        tab.wait_arrival(None).await;
        if let Ok(f) = tab.frame().await {
            tab.url = Url::parse(&f.url).ok();
        }
        Some(tab)
    }

    /// Downloads this page started: `↧` lines, waiting (bounded) for them
    /// to finish.
    async fn download_lines(&self) -> Vec<String> {
        let Ok(Frame { id: frame_id, .. }) = self.frame().await else { return Vec::new() };
        let folder = self.backend.inner.options.downloads.clone();
        let start = tokio::time::Instant::now();
        loop {
            let (going, lines) = {
                let mut d = self.running.downloads.lock().unwrap_or_else(|e| e.into_inner());
                let mine: Vec<&mut Download> = d.items.values_mut().filter(|x| x.frame == frame_id && !x.reported).collect();
                let going = mine.iter().any(|x| x.state == DownloadState::Going);
                let mut lines = Vec::new();
                if !going || start.elapsed() > Duration::from_secs(30) {
                    for x in mine {
                        x.reported = true;
                        let path = folder.join(&x.name);
                        lines.push(match x.state {
                            DownloadState::Done => format!("↧ downloaded {} → {}", x.name, path.display()),
                            DownloadState::Going => format!("↧ still downloading {} → {}", x.name, path.display()),
                            DownloadState::TooLarge => {
                                format!("✗ download {} cancelled: larger than {}", x.name, size(self.backend.inner.options.max_download_bytes))
                            }
                            DownloadState::Failed => format!("✗ download {} failed", x.name),
                        });
                    }
                }
                (going, lines)
            };
            if !lines.is_empty() || !going {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A picture of the viewport, or of `clip`'s box, with where `marks`
    /// and `covers` lie in it (picture pixels). Every password, card and
    /// one-time-code field and every frame Chromium finds is covered too.
    pub async fn shoot(
        &mut self,
        clip: Option<BackendNodeId>,
        marks: &[(u32, BackendNodeId)],
        covers: &[BackendNodeId],
        request: &ShotRequest,
    ) -> Result<Shot, BrowseError> {
        if !self.alive() {
            return Err(Self::dead());
        }
        let mut params = match request.lossless {
            true => CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Png),
            false => CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Jpeg).quality(80),
        };
        // The picture's top-left corner, in viewport coordinates, and its
        // size in CSS px (`None`: the viewport's).
        let mut origin = (0.0f32, 0.0f32);
        let mut extent: Option<(f64, f64)> = None;
        let options = &self.backend.inner.options;
        let device = device_scale(options.device_scale);
        // No side of the picture over MAX_PICTURE_PX of its own pixels.
        let most = MAX_PICTURE_PX / device;
        // What to capture, in CSS px of the document (`None`: the view).
        let mut region: Option<(f64, f64, f64, f64)> = None;
        if request.full_page && clip.is_none() {
            // The document from its top-left corner, as wide and tall as
            // it is (up to the largest picture).
            let size = self
                .eval_value("[document.documentElement.scrollWidth, document.documentElement.scrollHeight, window.scrollX, window.scrollY, window.innerWidth]")
                .await?;
            let at = |i: usize| size.get(i).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
            origin = (-at(2) as f32, -at(3) as f32);
            region = Some((0.0, 0.0, at(0).max(at(4)), at(1)));
        } else if let Some(node) = clip {
            let _ = bounded(self.page.execute(ScrollIntoViewIfNeededParams::builder().backend_node_id(node).build())).await;
            let r = self.viewport_rect(node).await.ok_or_else(|| BrowseError::new("not_actionable", "has no box to take a picture of"))?;
            let (sx, sy) = self.scroll().await?;
            origin = (r.x, r.y);
            region = Some((f64::from(r.x) + sx, f64::from(r.y) + sy, f64::from(r.width), f64::from(r.height)));
        } else if f64::from(options.viewport.width) > most || f64::from(options.viewport.height) > most {
            // A view larger than the largest picture: its top-left part.
            let (sx, sy) = self.scroll().await?;
            region = Some((sx, sy, f64::from(options.viewport.width), f64::from(options.viewport.height)));
        }
        if let Some((x, y, width, height)) = region {
            let (width, height) = (width.max(1.0).min(most), height.max(1.0).min(most));
            extent = Some((width, height));
            params = params.clip(ClipViewport { x, y, width, height, scale: 1.0 }).capture_beyond_viewport(true);
        }
        // CSS pixels of the viewport to pixels of the picture.
        let scale = device as f32;
        let shift = |r: Rect| Rect {
            x: (r.x - origin.0) * scale,
            y: (r.y - origin.1) * scale,
            width: r.width * scale,
            height: r.height * scale,
        };
        let mut placed = Vec::with_capacity(marks.len());
        for &(number, node) in marks {
            if let Some(r) = self.viewport_rect(node).await {
                placed.push(Mark { number, rect: shift(r) });
            }
        }
        let mut cover_rects = Vec::with_capacity(covers.len());
        for &node in covers {
            if let Some(r) = self.viewport_rect(node).await {
                cover_rects.push(shift(r));
            }
        }
        let found = self
            .eval_value(
                "[...document.querySelectorAll('input[type=password], input[autocomplete^=\"cc-\"], input[autocomplete=\"one-time-code\"], iframe, frame, embed, object')]\
                 .map(e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })",
            )
            .await?;
        for r in rects(&found).into_iter().map(shift) {
            let near = |a: &Rect| (a.x - r.x).abs() < 1.0 && (a.y - r.y).abs() < 1.0 && (a.width - r.width).abs() < 1.0;
            if !cover_rects.iter().any(near) {
                cover_rects.push(r);
            }
        }
        // Labels keep off the page's text: only a picture with marks needs it.
        let texts = match marks.is_empty() {
            true => Vec::new(),
            false => self.text_boxes(origin, extent).await.into_iter().map(shift).collect(),
        };
        let shot = bounded(self.page.execute(params.build())).await?;
        use base64::Engine as _;
        let data: &str = shot.result.data.as_ref();
        let picture = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowseError::new("internal", format!("Chromium's screenshot could not be read: {e}")))?;
        Ok(Shot { picture, marks: placed, covers: cover_rects, texts, scale })
    }

    /// How far the view is scrolled, in CSS px.
    async fn scroll(&self) -> Result<(f64, f64), BrowseError> {
        let scroll = self.eval_value("[window.scrollX, window.scrollY]").await?;
        let at = |i: usize| scroll.get(i).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
        Ok((at(0), at(1)))
    }

    /// The boxes of the page's visible text and form fields inside the
    /// picture (top-left `origin`, `extent` CSS px, else the viewport), in
    /// viewport coordinates: at most [`MAX_TEXT_BOXES`], from at most
    /// 50,000 text nodes. None when the page does not answer.
    async fn text_boxes(&self, origin: (f32, f32), extent: Option<(f64, f64)>) -> Vec<Rect> {
        let (w, h) = extent.map_or(("innerWidth".to_owned(), "innerHeight".to_owned()), |(w, h)| (w.to_string(), h.to_string()));
        let script = format!(
            "(() => {{ const x0 = {x0}, y0 = {y0}, x1 = x0 + {w}, y1 = y0 + {h}, out = [], range = document.createRange();             const add = b => {{ if (b.width > 0 && b.height > 0 && b.right > x0 && b.left < x1 && b.bottom > y0 && b.top < y1 && out.length < {max})              out.push([b.x, b.y, b.width, b.height]); }};             const walk = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);             for (let n, seen = 0; (n = walk.nextNode()) && seen < 50000 && out.length < {max}; seen++) {{               if (!n.data.trim()) continue; range.selectNodeContents(n); for (const b of range.getClientRects()) add(b); }}             for (const e of document.querySelectorAll('input:not([type=hidden]), textarea, select')) add(e.getBoundingClientRect());             return out; }})()",
            x0 = origin.0,
            y0 = origin.1,
            max = MAX_TEXT_BOXES,
        );
        self.eval_value(&script).await.map_or_else(|_| Vec::new(), |found| rects(&found))
    }

    /// The element's border box in viewport coordinates (the bounds of
    /// its quads), if it has one.
    async fn viewport_rect(&self, node: BackendNodeId) -> Option<Rect> {
        self.quads(node).await.into_iter().reduce(|a, b| union(&a, &b))
    }

    /// The bounds of each of the element's boxes (`DOM.getContentQuads`),
    /// in viewport coordinates; none when it has no box.
    async fn quads(&self, node: BackendNodeId) -> Vec<Rect> {
        let Ok(quads) = bounded(self.page.execute(GetContentQuadsParams::builder().backend_node_id(node).build())).await else {
            return Vec::new();
        };
        quads
            .result
            .quads
            .iter()
            .filter_map(|q| {
                let q = q.inner();
                if q.len() < 8 {
                    return None;
                }
                let (xs, ys) = ([q[0], q[2], q[4], q[6]], [q[1], q[3], q[5], q[7]]);
                let (x0, x1) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
                let (y0, y1) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
                Some(Rect { x: x0 as f32, y: y0 as f32, width: (x1 - x0) as f32, height: (y1 - y0) as f32 })
            })
            .collect()
    }

    /// Resolves a selector to a node (for callers that know elements by
    /// their place in another engine's copy of the page).
    pub async fn node_at(&self, selector: &str) -> Option<BackendNodeId> {
        self.find(selector).await.ok().flatten()
    }
}

#[async_trait]
impl Page for CdpPage {
    fn engine(&self) -> &'static str {
        "chromium"
    }

    fn url(&self) -> Option<&Url> {
        self.url.as_ref()
    }

    fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    fn touch(&mut self) {
        // A live page changes by itself: the next analysis captures again.
        self.stale = true;
        self.generation += 1;
    }

    fn take_events(&mut self) -> Vec<String> {
        let mut lines = std::mem::take(&mut *self.dialogs.lines.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some(origin) = self.divert.take_refused() {
            lines.push(format!("! the page tried to send the tab to {origin}, which the profile does not allow: the tab stayed on this page"));
        }
        lines
    }

    async fn navigate(&mut self, to: Navigation, confirm: bool) -> Result<Arrival, BrowseError> {
        self.notices.clear();
        if let Some(parking) = self.parking.take() {
            let _ = parking.await;
        }
        self.revive().await?;
        // A `beforeunload` prompt of the page being left is answered as the
        // call says (dismissed: the page stays, and the `!` line says so).
        self.dialogs.accept.store(confirm, Ordering::SeqCst);
        let arrival = self.go(to).await;
        self.dialogs.accept.store(false, Ordering::SeqCst);
        arrival
    }

    async fn analysis(&mut self, refs: &mut RefTable) -> Result<&Analysis, BrowseError> {
        if !self.alive() {
            return Err(Self::dead());
        }
        if self.url.is_none() {
            return Err(BrowseError::new("no_page", "this tab is empty: navigate somewhere first"));
        }
        if self.stale || self.live.is_none() {
            self.capture(refs).await?;
        }
        self.live.as_ref().map(|l| &l.analysis).ok_or_else(|| BrowseError::new("internal", "no capture"))
    }

    async fn act(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError> {
        Ok(match self.act_on(action).await? {
            Acted::Done(effect) => effect,
            Acted::Opened(tab) => Effect::Opened(tab),
        })
    }

    fn document_id(&self) -> Option<DocumentId> {
        self.live.as_ref().map(|l| l.analysis.document.id())
    }

    fn generation(&self) -> u64 {
        self.generation
    }

    async fn screenshot(&mut self, request: &ShotRequest) -> Result<Shot, BrowseError> {
        let clip = match request.clip {
            Some(n) => Some(self.backend_id(n)?),
            None => None,
        };
        let marks: Vec<(u32, BackendNodeId)> = request.marks.iter().filter_map(|&(r, n)| Some((r, self.backend_id(n).ok()?))).collect();
        let covers: Vec<BackendNodeId> = request.covers.iter().filter_map(|&n| self.backend_id(n).ok()).collect();
        self.shoot(clip, &marks, &covers, request).await
    }

    fn is_live(&self) -> bool {
        true
    }

    /// Chromium's DevTools front end for this tab (remote debugging on
    /// loopback): a person on this machine sees the page there and can
    /// use it.
    fn hand_over(&self) -> Option<String> {
        let ws = Url::parse(self.running.browser.websocket_address()).ok()?;
        let host = format!("{}:{}", ws.host_str()?, ws.port()?);
        Some(format!("http://{host}/devtools/inspector.html?ws={host}/devtools/page/{}", self.page.target_id().inner()))
    }
}

impl CdpPage {
    /// Performs one action (the trait's `act`), giving a tab the page
    /// opened as a `CdpPage`.
    pub(crate) async fn act_on(&mut self, action: PageAction<'_>) -> Result<Acted, BrowseError> {
        if !self.alive() {
            return Err(Self::dead());
        }
        let before = self.frame().await?;
        self.dialogs.accept.store(action.confirm, Ordering::SeqCst);
        self.activity.begin(false);
        let target = match action.target {
            Some(n) => Some(self.backend_id(n)?),
            None => None,
        };
        let result = self.perform(&action, target).await;
        self.activity.acted();
        self.after_action(before, result).await
    }

    /// Runs `action` on the element `selector` finds (a tab that just
    /// moved here from the static path: its refs name nodes of the static
    /// document).
    pub(crate) async fn act_at(&mut self, selector: &str, action: PageAction<'_>) -> Result<Acted, BrowseError> {
        let node = self.find(selector).await?.ok_or_else(|| {
            BrowseError::new("not_found", "the element is not on the page as Chromium shows it: observe again")
        })?;
        let before = self.frame().await?;
        self.dialogs.accept.store(action.confirm, Ordering::SeqCst);
        self.activity.begin(false);
        let result = self.perform(&action, Some(node)).await;
        self.activity.acted();
        self.after_action(before, result).await
    }

    /// Puts what was changed in the static page's controls (typed,
    /// checked, selected) into the same controls here, each with the
    /// events a person's change fires, so the page's scripts see it. A
    /// control not found here is passed over.
    pub(crate) async fn restore_form(&mut self, changes: &[(String, FormChange)]) {
        for (selector, change) in changes {
            let Ok(Some(node)) = self.find(selector).await else { continue };
            let (set, value) = match change {
                FormChange::Value(v) => ("this.value = v; fire(this);", v.clone().into()),
                FormChange::Checked(on) => ("this.checked = v; fire(this);", (*on).into()),
                FormChange::Selected(on) => ("this.selected = v; const s = this.closest('select'); if (s) fire(s);", (*on).into()),
            };
            let function = format!(
                "function(v) {{ const fire = e => {{ e.dispatchEvent(new Event('input', {{bubbles: true}})); \
                 e.dispatchEvent(new Event('change', {{bubbles: true}})); }}; {set} }}"
            );
            let _ = self.call_on(node, &function, vec![value]).await;
        }
    }

    /// What an action did: waits for the page to settle, then reports
    /// dialogs and downloads, a new tab, a navigation, or a change.
    async fn after_action(&mut self, before: Frame, result: Result<(), BrowseError>) -> Result<Acted, BrowseError> {
        self.generation += 1;
        self.stale = true;
        if let Err(e) = result {
            self.dialogs.accept.store(false, Ordering::SeqCst);
            return Err(e);
        }
        self.settle().await;
        let after = self.frame().await.unwrap_or_else(|_| before.clone());
        self.dialogs.accept.store(false, Ordering::SeqCst);
        let mut events = self.download_lines().await;
        self.dialogs.lines.lock().unwrap_or_else(|e| e.into_inner()).append(&mut events);
        if let Some(tab) = self.popup().await {
            return Ok(Acted::Opened(Box::new(tab)));
        }
        if after.loader != before.loader {
            self.wait_arrival(Some(&before.loader)).await;
            let url = self.frame().await?.url;
            let from = self.url.clone();
            let to = Url::parse(&url).map_err(|_| BrowseError::new("nav_failed", "the page has no URL whittle can read"))?;
            self.url = Some(to.clone());
            self.live = None;
            return Ok(Acted::Done(Effect::Navigated(Arrival { from, to })));
        }
        if after.url != before.url {
            self.url = Url::parse(&after.url).ok().or(self.url.take());
        }
        Ok(Acted::Done(Effect::Changed))
    }

    /// The backend node id of the first element `selector` matches.
    async fn find(&self, selector: &str) -> Result<Option<BackendNodeId>, BrowseError> {
        let params = chromiumoxide::cdp::js_protocol::runtime::EvaluateParams::builder()
            .expression(format!("document.querySelector({})", serde_json::Value::String(selector.to_owned())))
            .build()
            .map_err(cdp_error)?;
        let r = bounded(self.page.execute(params)).await?;
        let Some(object) = r.result.result.object_id.clone() else { return Ok(None) };
        let node = bounded(self.page.execute(DescribeNodeParams::builder().object_id(object).build())).await?;
        Ok(Some(node.result.node.backend_node_id))
    }

    /// Closes the tab in Chromium now (dropping it closes it too, in the
    /// background).
    pub async fn close(mut self) {
        self.closed = true;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.page.clone().close()).await;
    }

    async fn perform(&mut self, a: &PageAction<'_>, target: Option<BackendNodeId>) -> Result<(), BrowseError> {
        let need = || target.ok_or_else(|| BrowseError::new("invalid_args", "this action needs a `ref`"));
        match a.action {
            Do::Click => self.click(need()?).await,
            Do::Hover => {
                let node = need()?;
                match self.centre(node).await? {
                    Some((x, y)) => self.mouse(DispatchMouseEventType::MouseMoved, x, y, 0).await,
                    None => Err(BrowseError::new("not_actionable", "has no box to point at")),
                }
            }
            Do::Check | Do::Uncheck => {
                let node = need()?;
                let want = a.action == Do::Check;
                let state = self.call_on(node, "function() { return ('checked' in this) ? this.checked : (this.getAttribute('aria-checked') === 'true'); }", vec![]).await?;
                if state.as_bool() != Some(want) {
                    self.click(node).await?;
                }
                Ok(())
            }
            Do::Type => {
                let node = need()?;
                let text = a.text.unwrap_or("");
                let editable = self
                    .call_on(
                        node,
                        "function() { if (this.disabled) return 'disabled'; if (this.readOnly) return 'readonly'; this.focus(); \
                         if (typeof this.select === 'function' && 'value' in this) { this.select(); return 'ok'; } \
                         if (this.isContentEditable) { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); return 'ok'; } \
                         return 'not-editable'; }",
                        vec![],
                    )
                    .await?;
                match editable.as_str() {
                    Some("ok") => {}
                    Some("disabled") => return Err(BrowseError::new("not_actionable", "is disabled")),
                    Some("readonly") => return Err(BrowseError::new("not_actionable", "is read-only")),
                    _ => return Err(BrowseError::new("not_actionable", "is not a field one can type into")),
                }
                if text.is_empty() {
                    self.key("Delete").await
                } else {
                    bounded(self.page.execute(InsertTextParams::new(text))).await.map(|_| ())
                }
            }
            Do::Clear => {
                let node = need()?;
                self.call_on(
                    node,
                    "function() { this.focus(); if ('value' in this) { this.value = ''; } else if (this.isContentEditable) { this.textContent = ''; } \
                     this.dispatchEvent(new Event('input', {bubbles: true})); this.dispatchEvent(new Event('change', {bubbles: true})); }",
                    vec![],
                )
                .await
                .map(|_| ())
            }
            Do::Select => {
                let node = need()?;
                let missing = self
                    .call_on(
                        node,
                        "function(wanted) { if (!this.options) return ['not a list of options']; \
                         const norm = s => s.replace(/\\s+/g, ' ').trim().toLowerCase(); \
                         const picks = wanted.map(w => [...this.options].find(o => norm(o.label) === norm(w) || o.value === w || norm(o.text) === norm(w))); \
                         const missing = wanted.filter((w, i) => !picks[i]); if (missing.length) return missing; \
                         if (this.multiple) { for (const o of this.options) o.selected = picks.includes(o); } else { picks[0].selected = true; } \
                         this.dispatchEvent(new Event('input', {bubbles: true})); this.dispatchEvent(new Event('change', {bubbles: true})); return []; }",
                        vec![serde_json::json!(a.values)],
                    )
                    .await?;
                match missing.as_array() {
                    Some(m) if !m.is_empty() => {
                        let names: Vec<String> = m.iter().filter_map(|v| v.as_str()).map(|s| format!("{s:?}")).collect();
                        Err(BrowseError::new("not_found", format!("has no option {}", names.join(", "))))
                    }
                    _ => Ok(()),
                }
            }
            Do::Press => {
                if let Some(node) = target {
                    let _ = bounded(self.page.execute(FocusParams::builder().backend_node_id(node).build())).await;
                }
                self.key(a.key.unwrap_or("")).await
            }
            Do::Scroll => {
                let dy = a.dy.unwrap_or(1.0);
                match target {
                    Some(node) => self
                        .call_on(node, "function(dy) { this.scrollBy(0, dy * (this.clientHeight || innerHeight)); }", vec![dy.into()])
                        .await
                        .map(|_| ()),
                    None => self.eval_value(&format!("window.scrollBy(0, {dy} * innerHeight)")).await.map(|_| ()),
                }
            }
            Do::Upload => {
                let node = need()?;
                let mut files = Vec::new();
                for f in a.files {
                    let p = Path::new(f);
                    if !p.is_file() {
                        return Err(BrowseError::new("invalid_args", format!("no file {f:?}")));
                    }
                    files.push(p.canonicalize().unwrap_or_else(|_| p.to_owned()).display().to_string());
                }
                let params = SetFileInputFilesParams::builder().files(files).backend_node_id(node).build().map_err(cdp_error)?;
                bounded(self.page.execute(params)).await.map(|_| ())
            }
            Do::Submit => {
                let node = need()?;
                self.call_on(
                    node,
                    "function() { const f = this.form || this.closest('form') || (this.tagName === 'FORM' ? this : null); \
                     if (!f) throw new Error('is not in a form'); if (f.requestSubmit) f.requestSubmit(); else f.submit(); }",
                    vec![],
                )
                .await
                .map(|_| ())
            }
        }
    }
}

/// Turns a DOMSnapshot into the engine's neutral capture, with each
/// captured node's backend node id.
fn to_capture(snapshot: &CaptureSnapshotReturns, url: Option<Url>, viewport: Viewport) -> (Capture, Vec<i64>) {
    let strings = &snapshot.strings;
    let s = |i: i64| -> &str { usize::try_from(i).ok().and_then(|i| strings.get(i)).map_or("", String::as_str) };
    let Some(doc) = snapshot.documents.first() else {
        return (Capture { url, viewport, ..Capture::default() }, Vec::new());
    };
    let nodes = &doc.nodes;
    let n = nodes.parent_index.as_ref().map_or(0, Vec::len);
    let types = nodes.node_type.as_deref().unwrap_or(&[]);
    let names = nodes.node_name.as_deref().unwrap_or(&[]);
    let values = nodes.node_value.as_deref().unwrap_or(&[]);
    let parents = nodes.parent_index.as_deref().unwrap_or(&[]);
    let backend: Vec<i64> = nodes.backend_node_id.as_ref().map(|v| v.iter().map(|b| *b.inner()).collect()).unwrap_or_default();
    let mut out: Vec<CapturedNode> = Vec::with_capacity(n);
    for i in 0..n {
        let parent = parents.get(i).and_then(|&p| usize::try_from(p).ok());
        let name = names.get(i).map_or("", |x| s(*x.inner()));
        let kind = match types.get(i).copied().unwrap_or(0) {
            9 => CapturedKind::Document,
            1 => CapturedKind::Element {
                name: name.to_owned(),
                attrs: nodes
                    .attributes
                    .as_ref()
                    .and_then(|a| a.get(i))
                    .map(|a| a.inner().chunks(2).filter(|c| c.len() == 2).map(|c| (s(*c[0].inner()).to_owned(), s(*c[1].inner()).to_owned())).collect())
                    .unwrap_or_default(),
            },
            3 => CapturedKind::Text(values.get(i).map_or("", |x| s(*x.inner())).to_owned()),
            8 => CapturedKind::Comment(values.get(i).map_or("", |x| s(*x.inner())).to_owned()),
            11 if parent.is_some() => CapturedKind::ShadowRoot,
            _ => CapturedKind::Other,
        };
        out.push(CapturedNode { parent, kind, ..CapturedNode::default() });
    }
    // Rare data: pseudo-elements, form values.
    if let Some(p) = &nodes.pseudo_type {
        for (&i, v) in p.index.iter().zip(&p.value) {
            if let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                node.kind = match s(*v.inner()) {
                    "before" => CapturedKind::Pseudo { before: true },
                    "after" => CapturedKind::Pseudo { before: false },
                    _ => CapturedKind::Other,
                };
            }
        }
    }
    if let Some(v) = &nodes.input_value {
        for (&i, val) in v.index.iter().zip(&v.value) {
            if let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                node.value = Some(s(*val.inner()).to_owned());
            }
        }
    }
    for (data, set) in [(&nodes.input_checked, 0), (&nodes.option_selected, 1)] {
        let Some(d) = data else { continue };
        let on: HashSet<i64> = d.index.iter().copied().collect();
        for (i, node) in out.iter_mut().enumerate() {
            let CapturedKind::Element { name, attrs } = &node.kind else { continue };
            let is = |n: &str| name.eq_ignore_ascii_case(n);
            let checkable = is("input") && attrs.iter().any(|(k, v)| k.eq_ignore_ascii_case("type") && (v.eq_ignore_ascii_case("checkbox") || v.eq_ignore_ascii_case("radio")));
            if (set == 0 && checkable) || (set == 1 && is("option")) {
                let value = on.contains(&(i as i64));
                if set == 0 { node.checked = Some(value) } else { node.selected = Some(value) }
            }
        }
    }
    // Layout: boxes, computed styles, laid-out text.
    let layout = &doc.layout;
    for (k, &i) in layout.node_index.iter().enumerate() {
        let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) else { continue };
        if let Some(b) = layout.bounds.get(k).map(|r| r.inner())
            && b.len() >= 4
        {
            let r = Rect { x: b[0] as f32, y: b[1] as f32, width: b[2] as f32, height: b[3] as f32 };
            node.rect = Some(match node.rect {
                Some(old) => union(&old, &r),
                None => r,
            });
        }
        if node.style.is_none()
            && let Some(st) = layout.styles.get(k)
            && !st.inner().is_empty()
        {
            node.style = Some(st.inner().iter().map(|x| s(*x.inner()).to_owned()).collect());
        }
        if let Some(t) = layout.text.get(k).map(|x| s(*x.inner())).filter(|t| !t.is_empty()) {
            node.layout_text.get_or_insert_with(String::new).push_str(t);
        }
    }
    let content_height = doc.content_height.unwrap_or(0.0) as f32;
    let scroll = doc.scroll_offset_y.unwrap_or(0.0) as f32;
    (Capture { url, viewport, scroll_y: scroll, content_height, nodes: out }, backend)
}

fn union(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.min(b.x);
    let y = a.y.min(b.y);
    let right = (a.x + a.width).max(b.x + b.width);
    let bottom = a.bottom().max(b.bottom());
    Rect { x, y, width: right - x, height: bottom - y }
}

/// Dismisses (or, for a confirmed action, accepts) each dialog as it
/// opens and notes it as a `!` line.
async fn watch_dialogs(page: &chromiumoxide::Page, state: Arc<DialogState>) {
    let Ok(mut events) = page.event_listener::<EventJavascriptDialogOpening>().await else { return };
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let accept = state.accept.load(Ordering::SeqCst);
            let kind = format!("{:?}", ev.r#type).to_lowercase();
            let message: String = whittle_engine::collapse_whitespace(&ev.message).chars().take(300).collect();
            // An alert has nothing to choose: it is only reported.
            let line = match (kind.as_str(), accept) {
                ("alert", _) => format!("! alert {message:?}"),
                (_, true) => format!("! {kind} {message:?} accepted"),
                (_, false) => format!("! {kind} {message:?} dismissed (repeat the action with confirm:true to accept)"),
            };
            state.lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            let params = HandleJavaScriptDialogParams { accept, prompt_text: ev.default_prompt.clone().filter(|_| accept) };
            let _ = tokio::time::timeout(COMMAND_TIMEOUT, page.execute(params)).await;
        }
    });
}

/// Leaves the page for a blank one, as the page itself would
/// (`location.replace`: no request, no referrer, and not a `Page.navigate`
/// for chromiumoxide to hold); whether the blank page loaded, within 2 s.
async fn leave(page: &chromiumoxide::Page, activity: &Activity) -> bool {
    let before = activity.loader();
    let start = tokio::time::Instant::now();
    let deadline = start + Duration::from_secs(2);
    let Ok(params) = chromiumoxide::cdp::js_protocol::runtime::EvaluateParams::builder().expression("location.replace('about:blank')").build() else {
        return false;
    };
    if !matches!(tokio::time::timeout(Duration::from_secs(1), page.execute(params)).await, Ok(Ok(_))) {
        return false;
    }
    activity.arrived(before.as_deref(), start, deadline).await == Outcome::Done && activity.load_fired(deadline).await == Outcome::Done
}

/// The rectangles of a script's `[[x, y, width, height], …]` (entries
/// not of four numbers are passed over).
fn rects(found: &serde_json::Value) -> Vec<Rect> {
    let numbers = |r: &serde_json::Value| -> Vec<f32> {
        r.as_array().into_iter().flatten().filter_map(serde_json::Value::as_f64).map(|x| x as f32).collect()
    };
    found
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| match numbers(r)[..] {
            [x, y, width, height] => Some(Rect { x, y, width, height }),
            _ => None,
        })
        .collect()
}

/// Whether the frame shows Chromium's error page.
fn is_error_page(frame: &Frame) -> bool {
    frame.url.starts_with("chrome-error:")
}

/// Sets a tab up: its dialogs answered, its requests checked and its
/// navigations offered to `divert`, its activity followed.
async fn watch(page: &chromiumoxide::Page, dialogs: &Arc<DialogState>, divert: &Arc<Divert>, policy: Option<Arc<NetPolicy>>) -> Arc<Activity> {
    watch_dialogs(page, dialogs.clone()).await;
    let main_frame = match bounded(page.execute(GetFrameTreeParams::default())).await {
        Ok(tree) => tree.result.frame_tree.frame.id.inner().clone(),
        Err(_) => String::new(),
    };
    intercept(page, policy, divert.clone(), main_frame.clone()).await;
    Activity::watch(page, main_frame).await
}

/// The main-frame navigations a caller takes over while it acts on the
/// page (`AutoPage`: a link a Chromium page follows to a site the static
/// path can read).
#[derive(Default)]
pub(crate) struct Divert {
    state: Mutex<DivertState>,
}

/// Which URLs are wanted, and the one taken.
type Wants = Arc<dyn Fn(&Url) -> bool + Send + Sync>;

#[derive(Default)]
struct DivertState {
    wants: Option<Wants>,
    taken: Option<Url>,
    /// The origin of the last main-frame navigation the profile refused
    /// (the page stayed where it was).
    refused: Option<String>,
}

impl Divert {
    fn lock(&self) -> std::sync::MutexGuard<'_, DivertState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the navigation to `url` is taken (the first one wanted).
    fn take(&self, url: &Url) -> bool {
        let mut s = self.lock();
        if s.taken.is_some() || !s.wants.as_ref().is_some_and(|w| w(url)) {
            return false;
        }
        s.taken = Some(url.clone());
        true
    }

    /// Notes that a main-frame navigation to `url` was refused.
    fn refuse(&self, url: Option<&Url>) {
        let origin = url.map_or_else(|| "an address whittle cannot read".to_owned(), |u| u.origin().ascii_serialization());
        self.lock().refused = Some(origin);
    }

    /// The origin of the main-frame navigation refused since last asked.
    fn take_refused(&self) -> Option<String> {
        self.lock().refused.take()
    }
}

impl fmt::Debug for Divert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.lock();
        f.debug_struct("Divert").field("on", &s.wants.is_some()).field("taken", &s.taken.is_some()).finish()
    }
}

/// Every request of `page` passes here before it is sent (CDP `Fetch` at
/// the request stage; without a policy, only documents):
///
/// - one `policy` refuses fails at once, as blocked by the client (URLs
///   that are not http(s) or ws(s), `data:` and `blob:`, load nothing from
///   the network and pass; Chromium does not pause WebSocket handshakes
///   here, the socket guard checks those); the main frame's next document
///   the page asks for (a script, a refresh, a link) fails as aborted
///   instead, so the page stays where it is rather than showing Chromium's
///   error page, and `divert` notes it;
/// - a GET of the main frame's next document that `divert` takes fails as
///   aborted: the page stays where it is, and the caller loads the URL;
/// - the rest go on.
///
/// Each request is answered in a task of its own, so one that Chromium is
/// slow to take never holds the page's other requests back.
async fn intercept(page: &chromiumoxide::Page, policy: Option<Arc<NetPolicy>>, divert: Arc<Divert>, main_frame: String) {
    let Ok(mut events) = page.event_listener::<EventRequestPaused>().await else { return };
    let enable = match &policy {
        Some(_) => FetchEnableParams::default(),
        None => FetchEnableParams::builder().pattern(RequestPattern::builder().resource_type(ResourceType::Document).build()).build(),
    };
    if bounded(page.execute(enable)).await.is_err() {
        return;
    }
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let url = Url::parse(&ev.request.url);
            let allowed = match (&policy, &url) {
                (None, _) => true,
                (Some(p), Ok(u)) if matches!(u.scheme(), "http" | "https" | "ws" | "wss") => p.check_url(u).is_ok(),
                (Some(_), Ok(_)) => true,
                (Some(_), Err(_)) => false,
            };
            let document = ev.resource_type == ResourceType::Document && ev.frame_id.inner() == &main_frame;
            let navigation = document && ev.request.method == "GET";
            // A redirect is the server's answer to a navigation already
            // under way (whittle's own, or one the page started): it fails
            // as blocked, and the navigation with it.
            let reason = if !allowed && document && ev.redirected_request_id.is_none() {
                divert.refuse(url.as_ref().ok());
                Some(ErrorReason::Aborted)
            } else if !allowed {
                Some(ErrorReason::BlockedByClient)
            } else if navigation && url.as_ref().is_ok_and(|u| divert.take(u)) {
                Some(ErrorReason::Aborted)
            } else {
                None
            };
            let page = page.clone();
            let id = ev.request_id.clone();
            tokio::spawn(async move {
                let _ = match reason {
                    Some(reason) => tokio::time::timeout(COMMAND_TIMEOUT, page.execute(FailRequestParams::new(id, reason))).await.map(|_| ()),
                    None => tokio::time::timeout(COMMAND_TIMEOUT, page.execute(ContinueRequestParams::new(id))).await.map(|_| ()),
                };
            });
        }
    });
}

/// Follows the browser's downloads; cancels one that grows past `max`.
async fn watch_downloads(running: &Arc<Running>, max: u64) {
    let browser = &running.browser;
    let downloads = running.downloads.clone();
    if let Ok(mut begins) = browser.event_listener::<EventDownloadWillBegin>().await {
        let d = downloads.clone();
        tokio::spawn(async move {
            while let Some(ev) = begins.next().await {
                let name = Path::new(&ev.suggested_filename).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "download".into());
                d.lock().unwrap_or_else(|e| e.into_inner()).items.insert(
                    ev.guid.clone(),
                    Download { frame: ev.frame_id.inner().clone(), name, state: DownloadState::Going, bytes: 0, reported: false },
                );
            }
        });
    }
    if let Ok(mut progress) = browser.event_listener::<EventDownloadProgress>().await {
        let weak = Arc::downgrade(running);
        tokio::spawn(async move {
            while let Some(ev) = progress.next().await {
                let mut cancel = false;
                {
                    let mut d = downloads.lock().unwrap_or_else(|e| e.into_inner());
                    let Some(item) = d.items.get_mut(&ev.guid) else { continue };
                    item.bytes = ev.received_bytes.max(0.0) as u64;
                    match ev.state {
                        // Finished before a progress event could stop it
                        // (a fast source): over the cap, it is deleted.
                        DownloadProgressState::Completed if item.bytes > max || item.state == DownloadState::TooLarge => {
                            item.state = DownloadState::TooLarge;
                            if let Some(path) = &ev.file_path {
                                let _ = std::fs::remove_file(path);
                            }
                        }
                        DownloadProgressState::Completed => {
                            item.state = DownloadState::Done;
                            // Saved under its guid (AllowAndName): give it its name.
                            if let Some(path) = &ev.file_path {
                                let path = Path::new(path);
                                if let Some(dir) = path.parent() {
                                    let _ = std::fs::rename(path, dir.join(&item.name));
                                }
                            }
                        }
                        DownloadProgressState::Canceled if item.state != DownloadState::TooLarge => item.state = DownloadState::Failed,
                        DownloadProgressState::InProgress if item.bytes > max || ev.total_bytes > max as f64 => {
                            item.state = DownloadState::TooLarge;
                            cancel = true;
                        }
                        _ => {}
                    }
                }
                if cancel && let Some(r) = weak.upgrade() {
                    let _ = tokio::time::timeout(COMMAND_TIMEOUT, r.browser.execute(CancelDownloadParams::new(ev.guid.clone()))).await;
                }
            }
        });
    }
}

/// A byte count in words: `100 MB`, `256 KB`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 * 1024 => format!("{} MB", b / (1024 * 1024)),
        b if b >= 1024 => format!("{} KB", b / 1024),
        b => format!("{b} bytes"),
    }
}

fn restarted_notice() -> String {
    "Chromium had stopped and was restarted: the pages of its tabs were lost".to_owned()
}

fn running_as_root() -> bool {
    // The effective uid from /proc (no libc call needed).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

fn cdp_error(e: impl fmt::Display) -> BrowseError {
    BrowseError::new("nav_failed", format!("Chromium: {e}"))
}

/// A CDP call bounded by [`COMMAND_TIMEOUT`]: a page that loops in script
/// costs a timeout, not the session.
async fn bounded<T, E: fmt::Display>(f: impl std::future::Future<Output = Result<T, E>>) -> Result<T, BrowseError> {
    bounded_by(COMMAND_TIMEOUT, f).await
}

/// A CDP call bounded by `limit`.
async fn bounded_by<T, E: fmt::Display>(limit: Duration, f: impl std::future::Future<Output = Result<T, E>>) -> Result<T, BrowseError> {
    match tokio::time::timeout(limit, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(cdp_error(e)),
        Err(_) => Err(BrowseError::new(
            "page_unresponsive",
            match limit.as_secs() {
                0 => format!("Chromium did not answer within {} ms (a script may be looping)", limit.as_millis()),
                secs => format!("Chromium did not answer within {secs} s (a script may be looping)"),
            },
        )),
    }
}
