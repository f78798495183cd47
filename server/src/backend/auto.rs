//! Choosing the engine per document.
//!
//! Every navigation of a tab — `navigate`, back, forward, reload, a link or
//! form followed, a new tab — starts on the static path, unless the page's
//! site (its origin) already needed scripts in this session: then it goes
//! straight to Chromium. A page moves to Chromium when it needs scripts
//! (`whittle_engine::script_need`: a shell that scripts fill, or a page its
//! own stylesheet hides until its script shows it) or when a click lands on
//! a control only a script handles (the static engine refuses it with
//! `needs_script`; the click is replayed in Chromium); its site is
//! remembered ([`Sites`]). A page in Chromium stays there while it is acted
//! on; a link it follows to a site that has not needed scripts is loaded
//! on the static path instead (Chromium's navigation is diverted). A site
//! stops going straight to Chromium once one of its pages, read as its
//! server sent it, turns out complete without scripts.
//!
//! A tab keeps one history over both engines, and what it holds moves
//! with it: cookies both ways (`cookies.rs`), what was typed, checked and
//! selected (into Chromium, for the same page), and the refs of elements
//! found again there (`whittle_engine::Places`).
//!
//! Without Chromium (`--engine static`, or it cannot start) pages stay on
//! the static path with a notice; nothing fails. [`EnginePolicy`] forces
//! one engine.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use url::Url;
use whittle_engine::{Document, DocumentId, NodeId, Places, RefTable, ScriptNeed};

use super::cdp::{Acted, CdpBackend, CdpPage, FormChange};
use super::static_http::StaticPage;
use super::{Analysis, Arrival, Backend, BrowseError, Effect, Navigation, Page, PageAction, SessionContext, Shot, ShotRequest};
use crate::fetch;

/// Which engine tabs use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum EnginePolicy {
    /// Static first; Chromium for pages that need scripts.
    #[default]
    Auto,
    /// Never Chromium (pages that need scripts get a notice).
    Static,
    /// Every tab in Chromium.
    Chromium,
}

/// The backend of `whittle mcp`/`serve`: static pages, Chromium when
/// needed.
#[derive(Debug, Clone)]
pub struct AutoBackend {
    policy: EnginePolicy,
    chromium: CdpBackend,
}

impl AutoBackend {
    /// A backend with `policy`, launching Chromium through `chromium` when
    /// it needs it.
    pub fn new(policy: EnginePolicy, chromium: CdpBackend) -> AutoBackend {
        AutoBackend { policy, chromium }
    }
}

#[async_trait]
impl Backend for AutoBackend {
    fn engine(&self) -> &'static str {
        match self.policy {
            EnginePolicy::Chromium => "chromium",
            _ => "static",
        }
    }

    fn chromium(&self) -> Option<CdpBackend> {
        (self.policy != EnginePolicy::Static).then(|| self.chromium.clone())
    }

    async fn open_page(&self, session: &SessionContext) -> Result<Box<dyn Page>, BrowseError> {
        if self.policy == EnginePolicy::Chromium {
            return Ok(Box::new(CdpPage::open(self.chromium.clone(), session).await?));
        }
        let chromium = (self.policy == EnginePolicy::Auto).then(|| self.chromium.clone());
        Ok(Box::new(AutoPage::new(session.clone(), chromium)))
    }

    fn end_session(&self, session: u64) {
        self.chromium.end_session(session);
    }

    async fn shutdown(&self) {
        self.chromium.shutdown().await;
    }
}

/// The sites (origins) of one session whose pages needed scripts: their
/// next pages go straight to Chromium.
#[derive(Debug, Default)]
pub struct Sites {
    scripts: Mutex<HashSet<String>>,
}

impl Sites {
    fn key(url: &Url) -> Option<String> {
        let origin = url.origin();
        origin.is_tuple().then(|| origin.ascii_serialization())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.scripts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `url`'s site needed scripts.
    pub fn need_scripts(&self, url: &Url) -> bool {
        Sites::key(url).is_some_and(|k| self.lock().contains(&k))
    }

    /// Remembers that a page of `url`'s site needed scripts.
    fn mark(&self, url: &Url) {
        if let Some(k) = Sites::key(url) {
            self.lock().insert(k);
        }
    }

    /// Forgets it: a page of the site was complete without them.
    fn clear(&self, url: &Url) {
        if let Some(k) = Sites::key(url) {
            self.lock().remove(&k);
        }
    }
}

/// The engine the tab's current document is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Static,
    Chromium,
}

/// One entry of a tab's history.
#[derive(Debug, Clone)]
struct Entry {
    /// How the static path fetches it again (a form's answer: its POST).
    request: fetch::Request,
    /// Chromium's own history entry, when Chromium showed it.
    chromium: Option<i64>,
}

/// Why a page moves to Chromium.
#[derive(Debug, Clone, Copy)]
enum Why {
    /// What the static path saw of it.
    Need(ScriptNeed),
    /// A control only a script handles.
    Control,
    /// Its site needed scripts before.
    Site,
}

impl Why {
    fn words(self) -> &'static str {
        match self {
            Why::Need(ScriptNeed::Shell) => "this page needs scripts",
            Why::Need(ScriptNeed::Veil) => "this page hides itself until its script shows it",
            Why::Control => "that control needs scripts",
            Why::Site => "this site needed scripts",
        }
    }

    /// The notice of a page left on the static path because Chromium
    /// failed: unavailable, or unable to show this page.
    fn not_moved(self, e: &BrowseError) -> String {
        let shown = match self {
            Why::Need(ScriptNeed::Veil) => "shown with that rule set aside",
            _ => "shown without scripts",
        };
        if is_engine_failure(e) {
            format!("{}, and Chromium is unavailable ({}): {shown}", self.words(), e.message)
        } else {
            format!("{}, but Chromium could not show it ({}: {}): {shown}", self.words(), e.code, e.message)
        }
    }
}

/// A tab whose documents go to the engine each needs (see the module
/// documentation).
#[derive(Debug)]
pub(crate) struct AutoPage {
    session: SessionContext,
    /// Where pages that need scripts go; `None`: nowhere (static policy,
    /// or Chromium could not start for this tab).
    chromium: Option<CdpBackend>,
    statics: StaticPage,
    /// The tab's Chromium page, opened on first need and kept.
    cdp: Option<CdpPage>,
    on: On,
    history: Vec<Entry>,
    index: usize,
    /// The static document last checked for needing scripts.
    checked: Option<DocumentId>,
    /// What the engine choice adds to the notices.
    notices: Vec<String>,
    /// How many times the tab changed engine: generations of either
    /// engine's pages never repeat across a change.
    moves: u64,
}

impl AutoPage {
    /// An empty tab of `session`, moving pages to `chromium` when they need
    /// scripts (never, without it).
    pub(crate) fn new(session: SessionContext, chromium: Option<CdpBackend>) -> AutoPage {
        AutoPage {
            statics: StaticPage::new(session.fetcher.clone(), session.viewport),
            session,
            chromium,
            cdp: None,
            on: On::Static,
            history: Vec::new(),
            index: 0,
            checked: None,
            notices: Vec::new(),
            moves: 0,
        }
    }

    /// A tab for a page a Chromium page opened (already loaded there).
    fn opened(session: SessionContext, chromium: Option<CdpBackend>, page: CdpPage) -> AutoPage {
        let mut tab = AutoPage::new(session, chromium);
        if let Some(url) = page.url().cloned() {
            tab.history.push(Entry { request: fetch::Request::get(url), chromium: None });
        }
        tab.cdp = Some(page);
        tab.on = On::Chromium;
        tab
    }

    /// The Chromium page, when it shows the tab's document.
    fn live(&self) -> Option<&CdpPage> {
        self.cdp.as_ref().filter(|_| self.on == On::Chromium)
    }

    fn live_mut(&mut self) -> Option<&mut CdpPage> {
        self.cdp.as_mut().filter(|_| self.on == On::Chromium)
    }

    /// The URL of the tab's document.
    fn here(&self) -> Option<&Url> {
        match self.live() {
            Some(cdp) => cdp.url(),
            None => self.statics.url(),
        }
    }

    /// Whether `url` goes straight to Chromium.
    fn wants_chromium(&self, url: &Url) -> bool {
        self.chromium.is_some() && self.session.sites.need_scripts(url)
    }

    /// Records a new history entry after the current one (cutting the
    /// forward history).
    fn push(&mut self, entry: Entry) {
        if !self.history.is_empty() {
            self.history.truncate(self.index + 1);
        }
        self.history.push(entry);
        self.index = self.history.len() - 1;
    }

    /// The history entry of the page the current engine shows now.
    async fn entry_here(&self) -> Entry {
        match (self.on, &self.cdp) {
            (On::Chromium, Some(cdp)) => {
                let url = cdp.url().cloned().or_else(|| self.statics.url().cloned());
                let chromium = cdp.entry_id().await;
                let request = url.map(fetch::Request::get).or_else(|| self.statics.request().cloned());
                Entry { request: request.unwrap_or_else(blank_request), chromium }
            }
            _ => Entry { request: self.statics.request().cloned().unwrap_or_else(blank_request), chromium: None },
        }
    }

    /// The tab's Chromium page, opened on first use.
    async fn cdp(&mut self) -> Result<&mut CdpPage, BrowseError> {
        let Some(backend) = self.chromium.clone() else {
            return Err(BrowseError::new("engine_unavailable", "Chromium is not used for this session"));
        };
        if self.cdp.is_none() {
            match CdpPage::open(backend, &self.session).await {
                Ok(page) => self.cdp = Some(page),
                Err(e) => {
                    // Chromium cannot start: this tab stops trying.
                    if e.code == "engine_unavailable" {
                        self.chromium = None;
                    }
                    return Err(e);
                }
            }
        }
        self.cdp.as_mut().ok_or_else(|| BrowseError::new("internal", "no Chromium page"))
    }

    /// Carries the static path's cookie changes to Chromium (before it
    /// loads a page); a notice says what it refused.
    async fn cookies_to_chromium(&mut self) -> Result<(), BrowseError> {
        let session = self.session.clone();
        let refused = cookies_into(&session, self.cdp().await?).await?;
        if refused > 0 {
            self.notices.push(format!("{refused} cookie(s) could not be carried to Chromium (too large or malformed): they stay on the static path"));
        }
        Ok(())
    }

    /// Carries Chromium's cookie changes to the static path (before it
    /// loads a page).
    async fn cookies_to_static(&mut self) {
        let Some(cdp) = &self.cdp else { return };
        let Ok(theirs) = cdp.cookies().await else { return };
        let sync = &self.session.cookies;
        let changes = sync.changes(&theirs);
        if !changes.is_empty() {
            self.session.fetcher.apply_cookies(&changes);
            sync.agree(&theirs, &self.session.fetcher.cookies());
        }
    }

    /// Loads `request` on the static path. The page Chromium showed stays
    /// until the new one has arrived.
    async fn load_static(&mut self, request: fetch::Request) -> Result<Arrival, BrowseError> {
        let from = self.here().cloned();
        let leaving = self.on == On::Chromium;
        if leaving {
            self.cookies_to_static().await;
        }
        let arrival = self.statics.load(request).await?;
        if leaving {
            self.moved(On::Static);
        }
        self.checked = None;
        Ok(Arrival { from, ..arrival })
    }

    /// Loads `url` in Chromium (with the static path's cookies), or goes to
    /// Chromium's own history entry `entry` when it still has it.
    async fn load_chromium(&mut self, url: Url, entry: Option<i64>) -> Result<Arrival, BrowseError> {
        let from = self.here().cloned();
        if self.on == On::Static {
            self.cookies_to_chromium().await?;
        }
        let here = self.on == On::Chromium;
        let cdp = self.cdp().await?;
        let revisited = match entry {
            Some(id) if here => cdp.go_to_entry(id).await,
            _ => None,
        };
        let arrival = match revisited {
            Some(arrival) => arrival?,
            None => cdp.navigate(Navigation::To(url), false).await?,
        };
        if self.on == On::Static {
            self.moved(On::Chromium);
        }
        Ok(Arrival { from, ..arrival })
    }

    /// The tab now shows `on`'s page; the other engine's page is left.
    fn moved(&mut self, on: On) {
        self.on = on;
        self.moves += 1;
        if on == On::Static
            && let Some(cdp) = &mut self.cdp
        {
            cdp.park();
        }
    }

    /// Opens `request` on the engine its site needs; a site that needs
    /// scripts falls back to the static path when Chromium fails, with a
    /// notice. `chromium_entry`: Chromium's history entry of it, if any.
    async fn open(&mut self, request: fetch::Request, chromium_entry: Option<i64>, confirm: bool) -> Result<Arrival, BrowseError> {
        if request.method == fetch::Method::Post && !confirm {
            return Err(BrowseError::new(
                "confirm_needed",
                "that page was the answer to a form: going there sends the form again; repeat with confirm:true",
            ));
        }
        let url = request.url.clone();
        if self.wants_chromium(&url) {
            match self.load_chromium(url.clone(), chromium_entry).await {
                Ok(arrival) => {
                    self.notices.push(format!("{}: shown by Chromium", Why::Site.words()));
                    self.recheck(&arrival.to).await;
                    return Ok(arrival);
                }
                Err(e) if is_engine_failure(&e) => {
                    self.notices.push(Why::Site.not_moved(&e));
                }
                Err(e) => return Err(e),
            }
        }
        self.load_static(request).await
    }

    /// Reads the page Chromium just loaded as its server sent it (no
    /// second request: Chromium keeps the document's body): when it is
    /// complete without scripts, its site goes to the static path again.
    /// Its linked stylesheets are not fetched for this.
    async fn recheck(&self, url: &Url) {
        let Some(cdp) = &self.cdp else { return };
        let Some((bytes, charset)) = cdp.source().await else { return };
        let options = whittle_engine::ParseOptions { url: Some(url.clone()), transport_charset: charset, scripting: true };
        let cascade = whittle_engine::CascadeOptions { viewport: self.session.viewport, ..Default::default() };
        let complete = super::static_http::blocking(|| {
            let doc = whittle_engine::parse(&bytes, &options);
            let styles = whittle_engine::cascade(&doc, &cascade);
            let hidden = whittle_engine::Concealment::default();
            let semantics = whittle_engine::compute_semantics(&doc, &styles, &hidden);
            whittle_engine::script_need(&doc, &styles, &hidden, &semantics).is_none()
        });
        if complete {
            self.session.sites.clear(url);
        }
    }

    /// Moves the static page to Chromium (same URL), with what was typed,
    /// checked and selected on it, and its refs for the elements found
    /// again. On failure the tab stays static and the notice says why.
    async fn escalate(&mut self, why: Why) -> Result<(), BrowseError> {
        let (Some(url), Some(doc)) = (self.statics.url().cloned(), self.statics.document()) else {
            return Err(no_page());
        };
        let changes = form_changes(doc, &[]);
        let (from, places) = (doc.id(), Places::of(doc));
        self.session.sites.mark(&url);
        let origin = url.origin().ascii_serialization();
        let moved = async {
            self.load_chromium(url, None).await?;
            let cdp = self.cdp().await?;
            cdp.restore_form(&changes).await;
            cdp.adopt_refs(from, places);
            Ok::<_, BrowseError>(())
        }
        .await;
        match moved {
            Ok(()) => {
                tracing::info!(%origin, why = why.words(), "engine switch: static to chromium");
                self.notices.push(format!("{}: switched to Chromium", why.words()));
                let entry = self.entry_here().await;
                if let Some(e) = self.history.get_mut(self.index) {
                    e.chromium = entry.chromium;
                }
                Ok(())
            }
            Err(e) => {
                tracing::warn!(%origin, why = why.words(), code = e.code, "engine switch failed: the tab stays static");
                self.notices.push(why.not_moved(&e));
                Err(e)
            }
        }
    }

    /// Acts on the static page; a control only a script handles moves the
    /// page to Chromium and the action is replayed there, on the element
    /// found by its place.
    async fn act_static(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError> {
        match self.statics.act(action).await {
            Ok(Effect::Navigated(arrival)) => {
                let entry = self.entry_here().await;
                self.push(entry);
                self.checked = None;
                if self.wants_chromium(&arrival.to) && self.escalate(Why::Site).await.is_ok() {
                    self.recheck(&arrival.to).await;
                }
                Ok(Effect::Navigated(arrival))
            }
            Err(e) if e.code == "needs_script" && self.chromium.is_some() => {
                let (Some(doc), Some(target)) = (self.statics.document(), action.target) else {
                    return Err(e);
                };
                let path = css_path(doc, target);
                if self.escalate(Why::Control).await.is_err() {
                    return Err(e);
                }
                let acted = self.cdp().await?.act_at(&path, action).await?;
                self.after_chromium(acted, None).await
            }
            other => other,
        }
    }

    /// Acts on the Chromium page; a link it follows to a site the static
    /// path can read is loaded there instead.
    async fn act_chromium(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError> {
        let sites = self.session.sites.clone();
        let before = self.here().cloned();
        let cdp = self.cdp().await?;
        cdp.divert(Some(Arc::new(move |url: &Url| !sites.need_scripts(url))));
        let acted = cdp.act_on(action).await;
        let diverted = cdp.take_diverted();
        cdp.divert(None);
        if let Some(url) = diverted {
            let request = fetch::Request { referrer: before.clone(), ..fetch::Request::get(url) };
            match self.load_static(request).await {
                Ok(arrival) => {
                    let entry = self.entry_here().await;
                    self.push(entry);
                    return Ok(Effect::Navigated(arrival));
                }
                Err(e) if e.code == "origin_not_allowed" => return Err(e),
                // Not a page the static path reads (a file to download, a
                // server that refuses it): the action is done again in
                // Chromium, as it would have been, without diverting.
                Err(_) => {
                    let acted = self.cdp().await?.act_on(action).await;
                    return self.after_chromium(acted?, before).await;
                }
            }
        }
        self.after_chromium(acted?, before).await
    }

    /// Records what a Chromium action did in the tab's history; a tab the
    /// page opened becomes a tab of its own.
    async fn after_chromium(&mut self, acted: Acted, before: Option<Url>) -> Result<Effect, BrowseError> {
        match acted {
            Acted::Opened(page) => Ok(Effect::Opened(Box::new(AutoPage::opened(self.session.clone(), self.chromium.clone(), *page)))),
            Acted::Done(effect) => {
                let moved_within = matches!(effect, Effect::Changed) && before.is_some() && self.here() != before.as_ref();
                if matches!(effect, Effect::Navigated(_)) || moved_within {
                    let entry = self.entry_here().await;
                    self.push(entry);
                }
                Ok(effect)
            }
        }
    }
}

#[async_trait]
impl Page for AutoPage {
    fn engine(&self) -> &'static str {
        match self.live() {
            Some(_) => "chromium",
            None => "static",
        }
    }

    fn url(&self) -> Option<&Url> {
        self.here()
    }

    fn notices(&self) -> Vec<String> {
        let mut n = match self.live() {
            Some(cdp) => cdp.notices(),
            None => self.statics.notices(),
        };
        n.extend(self.notices.iter().cloned());
        n
    }

    async fn navigate(&mut self, to: Navigation, confirm: bool) -> Result<Arrival, BrowseError> {
        self.notices.clear();
        let at = match to {
            Navigation::To(url) => {
                let arrival = self.open(fetch::Request::get(url), None, confirm).await?;
                let entry = self.entry_here().await;
                self.push(entry);
                return Ok(arrival);
            }
            Navigation::Back if self.index > 0 && !self.history.is_empty() => self.index - 1,
            Navigation::Back => return Err(BrowseError::new("nav_failed", "there is no page to go back to")),
            Navigation::Forward if self.index + 1 < self.history.len() => self.index + 1,
            Navigation::Forward => return Err(BrowseError::new("nav_failed", "there is no page to go forward to")),
            Navigation::Reload if !self.history.is_empty() => self.index,
            Navigation::Reload => return Err(no_page()),
        };
        let entry = self.history[at].clone();
        let arrival = self.open(entry.request, entry.chromium, confirm).await?;
        self.index = at;
        let now = self.entry_here().await;
        self.history[at] = now;
        Ok(arrival)
    }

    async fn analysis(&mut self, refs: &mut RefTable) -> Result<&Analysis, BrowseError> {
        if self.on == On::Static {
            let a = self.statics.analysis(refs).await?;
            let id = a.document.id();
            let mut need = None;
            if self.checked != Some(id) {
                self.checked = Some(id);
                need = whittle_engine::script_need(&a.document, &a.styles, &a.concealment, &a.semantics);
            }
            if let Some(need) = need {
                if self.chromium.is_some() {
                    // On failure the notice says why; the static view stays.
                    let _ = self.escalate(Why::Need(need)).await;
                } else {
                    self.notices.push(match need {
                        ScriptNeed::Shell => "this page needs scripts: shown without them".into(),
                        ScriptNeed::Veil => "this page hides itself until its script shows it: shown with that rule set aside".into(),
                    });
                }
            }
        }
        match self.on {
            On::Chromium => match self.cdp.as_mut() {
                Some(cdp) => cdp.analysis(refs).await,
                None => Err(no_page()),
            },
            On::Static => self.statics.analysis(refs).await,
        }
    }

    async fn act(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError> {
        // The notice said how the page got here; the action starts anew.
        self.notices.clear();
        match self.on {
            On::Static => self.act_static(action).await,
            On::Chromium => self.act_chromium(action).await,
        }
    }

    fn document_id(&self) -> Option<DocumentId> {
        match self.live() {
            Some(cdp) => cdp.document_id(),
            None => self.statics.document_id(),
        }
    }

    fn generation(&self) -> u64 {
        // The engine's own count, under the number of moves: a view of one
        // engine's page never passes for the other's.
        let own = match self.live() {
            Some(cdp) => cdp.generation(),
            None => self.statics.generation(),
        };
        (self.moves << 40) | (own & ((1 << 40) - 1))
    }

    fn touch(&mut self) {
        if let Some(cdp) = self.live_mut() {
            cdp.touch();
        }
    }

    fn is_live(&self) -> bool {
        self.live().is_some()
    }

    fn take_events(&mut self) -> Vec<String> {
        self.live_mut().map(|cdp| cdp.take_events()).unwrap_or_default()
    }

    fn hand_over(&self) -> Option<String> {
        self.live().and_then(|cdp| cdp.hand_over())
    }

    async fn screenshot(&mut self, request: &ShotRequest) -> Result<Shot, BrowseError> {
        if let Some(cdp) = self.live_mut() {
            return cdp.screenshot(request).await;
        }
        // A static tab is drawn by Chromium for its picture, in a page of
        // its own, with the session's cookies and what was typed, checked
        // and selected on the static path (but no value of a covered
        // field: it is never shown); its elements are found there by their
        // place in the page.
        let (Some(url), Some(doc)) = (self.statics.url().cloned(), self.statics.document()) else {
            return Err(BrowseError::new("no_page", "this tab is empty: navigate somewhere first"));
        };
        let Some(chromium) = self.chromium.clone() else {
            return Err(BrowseError::new("engine_unavailable", "screenshots need Chromium, which this tab cannot use (--engine static, or it failed to start)"));
        };
        let clip = request.clip.map(|n| css_path(doc, n));
        let marks: Vec<(u32, String)> = request.marks.iter().map(|&(r, n)| (r, css_path(doc, n))).collect();
        let covers: Vec<String> = request.covers.iter().map(|&n| css_path(doc, n)).collect();
        let changes = form_changes(doc, &request.covers);
        let mut shown = CdpPage::open(chromium, &self.session).await?;
        let result = async {
            // Cookies it cannot take are drawn without, as on a fresh load.
            let _ = cookies_into(&self.session, &shown).await;
            shown.navigate(Navigation::To(url), false).await?;
            shown.restore_form(&changes).await;
            let clip = match &clip {
                Some(path) => Some(shown.node_at(path).await.ok_or_else(|| {
                    BrowseError::new("not_found", "that element is not on the page as Chromium draws it")
                })?),
                None => None,
            };
            let mut placed = Vec::with_capacity(marks.len());
            for (r, path) in &marks {
                if let Some(n) = shown.node_at(path).await {
                    placed.push((*r, n));
                }
            }
            let mut hidden = Vec::with_capacity(covers.len());
            for path in &covers {
                if let Some(n) = shown.node_at(path).await {
                    hidden.push(n);
                }
            }
            shown.shoot(clip, &placed, &hidden, request).await
        }
        .await;
        shown.close().await;
        result
    }
}

/// Carries the static path's cookie changes into `cdp`'s browser context
/// and records what both now hold alike; gives how many Chromium refused.
async fn cookies_into(session: &SessionContext, cdp: &CdpPage) -> Result<usize, BrowseError> {
    let jar = session.fetcher.cookies();
    let changes = session.cookies.changes(&jar);
    if changes.is_empty() {
        return Ok(0);
    }
    let refused = cdp.apply_cookies(&changes).await?;
    session.cookies.agree(&jar, &cdp.cookies().await?);
    Ok(refused)
}

/// Whether Chromium itself failed (it could not start, died, or stopped
/// answering), rather than the page.
fn is_engine_failure(e: &BrowseError) -> bool {
    matches!(e.code, "engine_unavailable" | "engine_crashed" | "page_unresponsive" | "internal")
}

fn no_page() -> BrowseError {
    BrowseError::new("no_page", "the tab has no page yet: navigate somewhere first")
}

/// A request for nothing (a history entry of a page without a URL).
fn blank_request() -> fetch::Request {
    fetch::Request::get(Url::parse("about:blank").unwrap_or_else(|_| unreachable!("about:blank is a URL")))
}

/// A selector that finds `node` again in the same page loaded elsewhere:
/// `#id` when it has a unique-looking id, else the chain of
/// `tag:nth-child(n)` from the root.
pub(crate) fn css_path(doc: &Document, node: NodeId) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut at = Some(node);
    while let Some(n) = at {
        let Some(e) = doc.element(n) else { break };
        if let Some(id) = e.id().filter(|id| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') && !id.starts_with(|c: char| c.is_ascii_digit())) {
            parts.push(format!("#{id}"));
            break;
        }
        let parent = doc.parent(n);
        let index = parent.map_or(1, |p| doc.element_children(p).position(|c| c == n).map_or(1, |i| i + 1));
        parts.push(format!("{}:nth-child({index})", e.local_name()));
        at = parent.filter(|&p| doc.element(p).is_some());
    }
    parts.reverse();
    parts.join(" > ")
}

/// What a person changed in the static page's controls, in document
/// order, as `(selector, change)`; the controls in `skip` are left out.
/// Chosen files are not carried (their bytes stay with the caller). Linear
/// in the page, plus a [`css_path`] per change.
fn form_changes(doc: &Document, skip: &[NodeId]) -> Vec<(String, FormChange)> {
    let state = doc.form_state();
    if state.is_empty() {
        return Vec::new();
    }
    let skip: HashSet<NodeId> = skip.iter().copied().collect();
    doc.descendants(NodeId::DOCUMENT)
        .filter(|n| !skip.contains(n))
        .filter_map(|n| {
            // Checkedness and selectedness only where they differ from the
            // markup's default, which the fresh load already has: choosing
            // in a select sets every option's selectedness.
            let default = |attr: &str| doc.element(n).is_some_and(|e| e.has_attr(attr));
            let change = match (state.value(n), state.checked(n), state.selected(n)) {
                (Some(v), _, _) => FormChange::Value(v.to_owned()),
                (None, Some(on), _) if on != default("checked") => FormChange::Checked(on),
                (None, None, Some(on)) if on != default("selected") => FormChange::Selected(on),
                _ => return None,
            };
            Some((css_path(doc, n), change))
        })
        .collect()
}
