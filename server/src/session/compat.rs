//! What the agent-browser tool set (`crate::compat`) asks of a
//! session: the same tabs, engines, site rules and privacy as whittle's own
//! tools, with pages read and acted on by CSS selector instead of by ref.
//! Every method leaves the active tab's default view rendered (as every
//! whittle tool does), so values typed into sensitive fields become
//! secrets of the session before anything is read back.

use std::time::Duration;

use url::Url;
use whittle_engine::style::Selector;
use whittle_engine::{FoldOptions, NodeId, Observation, RenderOptions};

use super::{Fail, Session, private};
use crate::backend::{BrowseError, Navigation, ShotRequest};
use crate::tools::{Do, Step};

/// How often a page that runs scripts is looked at again while waiting
/// for a selector.
const POLL: Duration = Duration::from_millis(100);
/// Attributes whose values are URLs: read back resolved against the page,
/// as a browser's `element.href` gives them, so they can be navigated to.
const URL_ATTRIBUTES: [&str; 7] = ["href", "src", "action", "formaction", "poster", "cite", "data"];

/// A CSS selector a tool argument gave, parsed.
pub fn parse_selector(text: &str) -> Result<Selector, BrowseError> {
    if text.trim().is_empty() {
        return Err(BrowseError::new("invalid_selector", "the selector is empty"));
    }
    Selector::parse(text).map_err(|e| BrowseError::new("invalid_selector", format!("the selector {text:?} does not parse ({e})")))
}

fn no_page() -> BrowseError {
    BrowseError::new("no_page", "no page is loaded in this session: call browser_navigate first")
}

impl Session {
    /// Whether the person paused the AI in the profile (nothing may run).
    pub fn is_paused(&self) -> bool {
        self.options.paused.is_paused()
    }

    /// Loads `url` in the active tab. With `wait_for`, then waits up to
    /// `wait` for an element to match it (a page without scripts is looked
    /// at once: it does not change by itself); none is `nav_timeout`.
    pub async fn load(&mut self, url: Url, wait_for: Option<(&str, &Selector)>, wait: Duration) -> Result<Observation, Fail> {
        self.tab().page.touch();
        let arrived = self.tab().page.navigate(Navigation::To(url), false).await;
        let _ = self.tab().page.take_events();
        arrived?;
        if let Some((text, selector)) = wait_for {
            let start = tokio::time::Instant::now();
            loop {
                let tab = &mut self.tabs[self.active];
                let live = tab.page.is_live();
                if !selector.select(&tab.page.analysis(&mut self.refs).await?.document).is_empty() {
                    break;
                }
                if !live || start.elapsed() >= wait {
                    let waited = if live { format!("within {} s of the load", wait.as_secs()) } else { "(the page runs no scripts)".into() };
                    return Err(BrowseError::new("nav_timeout", format!("the page loaded, but nothing matched {text:?} {waited}")));
                }
                tokio::time::sleep(POLL).await;
                self.tab().page.touch();
            }
        }
        self.current_view("browser_navigate").await
    }

    /// The active tab's default view (its title and URL are the page's).
    /// `no_page` before anything was loaded.
    pub async fn current_view(&mut self, tool: &str) -> Result<Observation, Fail> {
        if self.tabs[self.active].page.url().is_none() {
            return Err(no_page());
        }
        self.tab().page.touch();
        Ok(self.view(tool, &FoldOptions::default()).await?.0)
    }

    /// The page's text as plain lines, one per block: its main region
    /// (the part `extract text` reads, lists of links included; no
    /// navigation, header or footer around it), or, with `whole` or when
    /// no main region stands out, all the text a person sees on it.
    pub async fn page_text(&mut self, whole: bool) -> Result<String, Fail> {
        let tab = &mut self.tabs[self.active];
        let a = tab.page.analysis(&mut self.refs).await?;
        if !whole {
            let main = whittle_engine::digest::main_region(&a.document, &a.styles, &a.concealment, &a.semantics).text();
            if !main.trim().is_empty() {
                return Ok(main);
            }
        }
        Ok(whittle_engine::digest::page_text(&a.document, &a.styles, &a.concealment, &a.semantics).text())
    }

    /// One string per element `selector` matches, in tree order: its
    /// visible text, or the value of `attribute` ("" when it has none;
    /// URLs resolved against the page; never the value of a sensitive
    /// field). At most `limit` strings; the second value counts every match.
    pub async fn select_strings(&mut self, selector: &Selector, attribute: Option<&str>, limit: usize, max_chars: usize) -> Result<(Vec<String>, usize), Fail> {
        let tab = &mut self.tabs[self.active];
        let a = tab.page.analysis(&mut self.refs).await?;
        let matched = selector.select(&a.document);
        let sensitive = |n: NodeId| a.tree.widgets.iter().any(|w| w.node == n && w.sensitive.is_some());
        let mut out = Vec::with_capacity(matched.len().min(limit));
        for &n in matched.iter().take(limit) {
            let s = match attribute {
                None => whittle_engine::find::visible_text(&a.document, &a.styles, &a.concealment, &a.semantics, n, false, max_chars),
                Some(name) => {
                    let name = name.trim().to_ascii_lowercase();
                    let value = a.document.element(n).and_then(|e| e.attr(&name)).unwrap_or_default();
                    if name == "value" && sensitive(n) {
                        String::new()
                    } else if URL_ATTRIBUTES.contains(&name.as_str()) && !value.trim().is_empty() {
                        a.document.resolve_url(value).map(|u| u.to_string()).unwrap_or_else(|| value.trim().to_owned())
                    } else {
                        crate::compat::cut(value, max_chars)
                    }
                }
            };
            out.push(s);
        }
        Ok((out, matched.len()))
    }

    /// The active tab's accessibility tree as compact YAML
    /// (`whittle_engine::render::yaml`), from its default view: as folded
    /// as `observe` shows it.
    pub async fn aria_yaml(&mut self) -> Result<String, Fail> {
        self.current_view("browser_snapshot").await?;
        let tab = &mut self.tabs[self.active];
        let a = tab.page.analysis(&mut self.refs).await?;
        let Some(baseline) = &tab.baseline else {
            return Err(BrowseError::new("internal", "the view was not kept"));
        };
        Ok(whittle_engine::render::yaml::yaml(&a.tree, &baseline.folded, &RenderOptions::default()))
    }

    /// Performs `action` on the first element `selector` matches, in the
    /// active tab: `text` is what `type` types, `values` what `select`
    /// picks, `key` what `press` presses. A tab the page opens becomes the
    /// active one.
    pub async fn act_on(&mut self, action: Do, selector: &Selector, selector_text: &str, step: Step) -> Result<(), Fail> {
        if self.tabs[self.active].page.url().is_none() {
            return Err(no_page());
        }
        self.tab().page.touch();
        let node = {
            let tab = &mut self.tabs[self.active];
            let a = tab.page.analysis(&mut self.refs).await?;
            selector.select(&a.document).first().copied()
        };
        let Some(node) = node else {
            return Err(BrowseError::new("not_found", format!("nothing on the page matches {selector_text:?}")));
        };
        let step = Step { action, ..step };
        let done = self.perform(&step, Some(node), false).await;
        let _ = self.tab().page.take_events();
        let effect = done?;
        let mut lines = Vec::new();
        self.follow(effect, &mut lines).await;
        Ok(())
    }

    /// A picture of the active tab — its viewport, or with `full_page` the
    /// whole scrollable page — with every sensitive field and frame
    /// covered: PNG, or JPEG when the PNG would pass `max_png` bytes.
    /// Pictures need Chromium: the static engine moves the tab there.
    pub async fn page_picture(&mut self, full_page: bool, max_png: usize) -> Result<(Vec<u8>, &'static str), Fail> {
        let tab = &mut self.tabs[self.active];
        let request = {
            let a = tab.page.analysis(&mut self.refs).await?;
            let covers = a.tree.widgets.iter().filter(|w| super::covered(w)).map(|w| w.node).collect();
            ShotRequest { covers, full_page, lossless: true, ..ShotRequest::default() }
        };
        let shot = tab.page.screenshot(&request).await?;
        tokio::task::block_in_place(|| crate::picture::cover_as_png(&shot.picture, &shot.covers, max_png))
            .map_err(|e| BrowseError::new("internal", e))
    }

    /// Replaces secret-looking values in `s` by their tokens, as in every
    /// result of whittle's own tools (docs/privacy.md).
    pub fn redact_for_model(&mut self, s: &mut String) {
        let host = self.active_host();
        self.vault.set_site(host.as_deref());
        private(&mut self.vault, s);
    }
}
