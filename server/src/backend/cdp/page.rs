//! A tab in Chromium (`CdpPage`): its target, navigation and the wait
//! until its page can be read, its main frame and history entries, and
//! its end (closed with the tab; a page moved to the static path left for
//! a blank one). Invariant: a navigation drops the last capture and moves
//! the tab to a new generation, so nothing read from the document left is
//! taken for the one arrived at.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chromiumoxide::cdp::browser_protocol::dom::BackendNodeId;
use chromiumoxide::cdp::browser_protocol::network::GetResponseBodyParams;
use chromiumoxide::cdp::browser_protocol::storage::{GetCookiesParams, SetCookiesParams};
use chromiumoxide::cdp::browser_protocol::page::{
    BringToFrontParams, GetFrameTreeParams, GetNavigationHistoryParams, NavigateParams, NavigateToHistoryEntryParams, ReloadParams,
    StopLoadingParams,
};
use chromiumoxide::cdp::browser_protocol::target::TargetId;
use url::Url;
use whittle_engine::{DocumentId, Places, RefTable, Viewport};

use super::{COMMAND_TIMEOUT, bounded, bounded_by, cdp_error};
use super::browser::{CdpBackend, Running};
use super::capture::Live;
use super::events::{DialogState, watch_dialogs};
use super::input::Acted;
use super::intercept::{Divert, intercept};
use crate::backend::activity::{Activity, Outcome};
use crate::backend::{Analysis, Arrival, BrowseError, Effect, Navigation, Page, PageAction, SessionContext, Shot, ShotRequest};
use crate::cookies::{self, Changes, Cookie};
use crate::guard::SocketGuard;
use crate::policy::NetPolicy;

/// How long a parsed page may go on changing or loading (scripts that
/// never finish, a DOM that never rests) before it is shown as it is.
const LOAD_GRACE: Duration = Duration::from_secs(3);

/// How long a page has to say where it is once the navigation timeout
/// has passed; one that takes longer is busy in a script.
const FRAME_GRACE: Duration = Duration::from_secs(1);

/// A tab in Chromium.
#[derive(Debug)]
pub struct CdpPage {
    pub(super) backend: CdpBackend,
    pub(super) running: Arc<Running>,
    pub(super) session: u64,
    pub(super) viewport: Viewport,
    pub(super) page: chromiumoxide::Page,
    pub(super) url: Option<Url>,
    pub(super) generation: u64,
    pub(super) live: Option<Live>,
    /// The page may have changed since the last capture.
    pub(super) stale: bool,
    pub(super) notices: Vec<String>,
    pub(super) dialogs: Arc<DialogState>,
    /// New tabs this page opened that were already handed over.
    pub(super) popups_seen: HashSet<TargetId>,
    /// Whether its target was closed already.
    closed: bool,
    /// What the page is doing (see `activity.rs`).
    pub(super) activity: Arc<Activity>,
    /// Main-frame navigations a caller takes over.
    pub(super) divert: Arc<Divert>,
    /// A document of another engine whose refs the next capture takes
    /// over, for the elements found again by their place.
    pub(super) adopt: Option<(DocumentId, Places)>,
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
pub(super) struct Frame {
    pub(super) id: String,
    pub(super) loader: String,
    pub(super) url: String,
    /// What an error page stands for: the URL that could not be loaded.
    unreachable: Option<String>,
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
    pub(super) async fn wrap(backend: CdpBackend, running: Arc<Running>, session: u64, viewport: Viewport, page: chromiumoxide::Page) -> CdpPage {
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

    /// The Chromium page itself, for tools that speak CDP directly (the
    /// benches time `Accessibility.getFullAXTree` on it).
    pub fn cdp(&self) -> &chromiumoxide::Page {
        &self.page
    }

    pub(super) fn alive(&self) -> bool {
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

    pub(super) fn dead() -> BrowseError {
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
    pub(super) async fn frame(&self) -> Result<Frame, BrowseError> {
        self.frame_within(COMMAND_TIMEOUT).await
    }

    /// Makes this tab the one its window shows, before whittle works on
    /// it. Chromium runs a tab that another covers (a page's popup, a tab
    /// opened after it) as hidden: without animation frames a mouse move,
    /// which waits for the next frame, took 5 s, and the page's timers
    /// slow to once a second.
    pub(super) async fn to_front(&self) {
        let _ = bounded_by(Duration::from_secs(2), self.page.execute(BringToFrontParams::default())).await;
    }

    /// [`Self::frame`], answered within `limit`.
    async fn frame_within(&self, limit: Duration) -> Result<Frame, BrowseError> {
        let tree = bounded_by(limit, self.page.execute(GetFrameTreeParams::default())).await?;
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
        // Where the tab is, asked within what is left of the navigation
        // timeout (at least FRAME_GRACE): past it, a page that does not
        // answer at once is busy in a script, and waiting the 10 s any CDP
        // call may take would make the navigation overrun its timeout.
        let answer_by = || deadline.saturating_duration_since(tokio::time::Instant::now()).clamp(FRAME_GRACE, COMMAND_TIMEOUT);
        let frame = self.frame_within(answer_by()).await?;
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
        let last = self.frame_within(answer_by()).await.unwrap_or(frame);
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
    pub(super) async fn ready_state(&self) -> Option<String> {
        let v = self.eval_within("document.readyState", Duration::from_millis(500)).await.ok()?;
        v.as_str().map(str::to_owned)
    }

    /// Waits (bounded by the navigation timeout) until a document other
    /// than `before` has been parsed and the page is quiet: after an
    /// action that navigated, or for a tab the page opened.
    pub(super) async fn wait_arrival(&self, before: Option<&str>) {
        let start = tokio::time::Instant::now();
        let deadline = start + self.backend.inner.options.nav_timeout;
        if self.activity.arrived(before, start, deadline).await == Outcome::Done {
            self.activity.usable(deadline.min(tokio::time::Instant::now() + LOAD_GRACE)).await;
        }
    }

    pub(super) async fn eval_value(&self, expression: &str) -> Result<serde_json::Value, BrowseError> {
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

    /// Closes the tab in Chromium now (dropping it closes it too, in the
    /// background).
    pub async fn close(mut self) {
        self.closed = true;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.page.clone().close()).await;
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
        self.to_front().await;
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

fn restarted_notice() -> String {
    "Chromium had stopped and was restarted: the pages of its tabs were lost".to_owned()
}
