//! Choosing the engine per tab: a tab starts on the static path and moves
//! to Chromium when its page needs scripts — the page looks like a shell
//! that scripts fill (`whittle_engine::needs_scripts`: scripts, thin
//! content, and almost no text, an empty app root or a `<noscript>` asking
//! for JavaScript), or a click lands on a control only a script can handle
//! (the static engine refuses it with `needs_script`). Once moved, the tab
//! stays in Chromium. The observation says so in a notice.
//!
//! Without Chromium the static observation stays, with a notice that the
//! page needs scripts; nothing fails. [`EnginePolicy`] forces one engine.

use async_trait::async_trait;
use url::Url;
use whittle_engine::{Document, DocumentId, NodeId, RefTable};

use super::cdp::{CdpBackend, CdpPage, FormChange};
use super::static_http::StaticPage;
use super::{Analysis, Arrival, Backend, BrowseError, Effect, Navigation, Page, PageAction, SessionContext, Shot, ShotRequest};

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
        Ok(Box::new(AutoPage {
            inner: Engine::Static(Box::new(StaticPage::new(session.fetcher.clone(), session.viewport))),
            chromium,
            session: session.clone(),
            checked: None,
            notice: None,
        }))
    }
}

/// A tab that may move from the static path to Chromium.
#[derive(Debug)]
struct AutoPage {
    inner: Engine,
    /// Where it may move; `None` once moved, or when the policy is static.
    chromium: Option<CdpBackend>,
    session: SessionContext,
    /// The static document last checked for needing scripts.
    checked: Option<DocumentId>,
    /// What the engine choice adds to the notices.
    notice: Option<String>,
}

/// The engine a tab is on.
#[derive(Debug)]
enum Engine {
    Static(Box<StaticPage>),
    Chromium(Box<CdpPage>),
}

impl Engine {
    fn page(&self) -> &dyn Page {
        match self {
            Engine::Static(p) => &**p,
            Engine::Chromium(p) => &**p,
        }
    }

    fn page_mut(&mut self) -> &mut dyn Page {
        match self {
            Engine::Static(p) => &mut **p,
            Engine::Chromium(p) => &mut **p,
        }
    }
}

impl AutoPage {
    /// A Chromium page of this session at `url`, with the cookies the
    /// static path holds for it.
    async fn chromium_page(&self, chromium: CdpBackend, url: Url) -> Result<CdpPage, BrowseError> {
        let cookies = self.session.fetcher.cookies_for(&url);
        let mut page = CdpPage::open(chromium, &self.session).await?.with_cookies(cookies);
        page.navigate(Navigation::To(url), false).await?;
        Ok(page)
    }

    /// Moves the tab to Chromium at `url`. On failure the tab stays
    /// static and the notice says why.
    async fn escalate(&mut self, url: Url, why: &str) -> Result<(), BrowseError> {
        let Some(chromium) = self.chromium.take() else {
            return Err(BrowseError::new("engine_unavailable", "Chromium is not used for this session"));
        };
        match self.chromium_page(chromium, url).await {
            Ok(page) => {
                self.inner = Engine::Chromium(Box::new(page));
                self.notice = Some(format!("{why}: switched to Chromium"));
                Ok(())
            }
            Err(e) => {
                self.notice = Some(format!("{why}, and Chromium is unavailable ({}): shown without scripts", e.message));
                Err(e)
            }
        }
    }
}

#[async_trait]
impl Page for AutoPage {
    fn engine(&self) -> &'static str {
        self.inner.page().engine()
    }

    fn url(&self) -> Option<&Url> {
        self.inner.page().url()
    }

    fn notices(&self) -> Vec<String> {
        let mut n = self.inner.page().notices();
        n.extend(self.notice.clone());
        n
    }

    async fn navigate(&mut self, to: Navigation, confirm: bool) -> Result<Arrival, BrowseError> {
        if matches!(self.inner, Engine::Static(_)) {
            self.notice = None;
        }
        self.inner.page_mut().navigate(to, confirm).await
    }

    async fn analysis(&mut self, refs: &mut RefTable) -> Result<&Analysis, BrowseError> {
        let mut escalate = None;
        if let Engine::Static(page) = &mut self.inner {
            let a = page.analysis(refs).await?;
            let id = a.document.id();
            if self.checked != Some(id) {
                self.checked = Some(id);
                if whittle_engine::needs_scripts(&a.document, &a.styles, &a.semantics) {
                    match (&self.chromium, page.url()) {
                        (Some(_), Some(url)) => escalate = Some((url.clone(), id)),
                        _ => self.notice = Some("this page needs scripts: shown without them".into()),
                    }
                }
            }
        }
        if let Some((url, old)) = escalate
            && self.escalate(url, "this page needs scripts").await.is_ok()
        {
            refs.forget(old);
        }
        self.inner.page_mut().analysis(refs).await
    }

    async fn act(&mut self, action: PageAction<'_>) -> Result<Effect, BrowseError> {
        let Engine::Static(page) = &mut self.inner else {
            return self.inner.page_mut().act(action).await;
        };
        match page.act(action).await {
            Err(e) if e.code == "needs_script" && self.chromium.is_some() => {
                // Find the target in Chromium's document by its place in
                // the static one; carry over what was typed.
                let (Some(url), Some(doc), Some(target)) = (page.url().cloned(), page.document(), action.target) else {
                    return Err(e);
                };
                let path = css_path(doc, target);
                let changes = form_changes(doc, &[]);
                if self.escalate(url, "that control needs scripts").await.is_err() {
                    return Err(e);
                }
                let Engine::Chromium(page) = &mut self.inner else { return Err(e) };
                page.restore_form(&changes).await;
                page.act_at(&path, action).await
            }
            other => other,
        }
    }

    fn document_id(&self) -> Option<DocumentId> {
        self.inner.page().document_id()
    }

    fn generation(&self) -> u64 {
        self.inner.page().generation()
    }

    fn touch(&mut self) {
        self.inner.page_mut().touch();
    }

    fn is_live(&self) -> bool {
        self.inner.page().is_live()
    }

    fn take_events(&mut self) -> Vec<String> {
        self.inner.page_mut().take_events()
    }

    fn hand_over(&self) -> Option<String> {
        self.inner.page().hand_over()
    }

    async fn screenshot(&mut self, request: &ShotRequest) -> Result<Shot, BrowseError> {
        let page = match &mut self.inner {
            Engine::Chromium(page) => return page.screenshot(request).await,
            Engine::Static(page) => page,
        };
        // A static tab is drawn by Chromium for its picture, with what was
        // typed, checked and selected on the static path (but no value of a
        // covered field: it is never shown); its elements are found there by
        // their place in the page.
        let (Some(url), Some(doc)) = (page.url().cloned(), page.document()) else {
            return Err(BrowseError::new("no_page", "this tab is empty: navigate somewhere first"));
        };
        let Some(chromium) = self.chromium.clone() else {
            return Err(BrowseError::new("engine_unavailable", "screenshots need Chromium, which this tab cannot use (--engine static, or it failed to start)"));
        };
        let clip = request.clip.map(|n| css_path(doc, n));
        let marks: Vec<(u32, String)> = request.marks.iter().map(|&(r, n)| (r, css_path(doc, n))).collect();
        let covers: Vec<String> = request.covers.iter().map(|&n| css_path(doc, n)).collect();
        let changes = form_changes(doc, &request.covers);
        let mut shown = self.chromium_page(chromium, url).await?;
        let result = async {
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
    let skip: std::collections::HashSet<NodeId> = skip.iter().copied().collect();
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
