//! The static path: pages fetched with reqwest (through
//! [`Fetcher`](crate::fetch::Fetcher): cookies, redirects, caps), parsed
//! and analysed by the engine, and acted on without scripts — values typed
//! into the engine's form state, links followed, forms submitted as the
//! HTML spec says (`whittle_engine::act`). A [`StaticPage`] holds one
//! document at a time; the tab around it (`auto.rs`) keeps the history and
//! decides which engine loads each page. [`StaticBackend`] opens tabs that
//! never use Chromium.
//!
//! Costs: an action that changes only a field's value (`type`, `clear`)
//! rebuilds only the semantic tree; anything else reruns cascade, layout
//! and semantics on the document already parsed (never a re-parse).

use std::collections::HashMap;
use std::path::PathBuf;

use async_trait::async_trait;
use url::Url;
use whittle_engine::act::{self, Click, Method, Submission};
use whittle_engine::ChosenFile;
use whittle_engine::{
    CascadeOptions, Document, DocumentId, LayoutOptions, NodeId, ParseOptions, RefTable, Viewport,
    build_tree, compute_semantics, conceal, linked_stylesheet_urls, parse, style_and_layout,
};

use super::auto::AutoPage;
use super::{Analysis, Arrival, Backend, BrowseError, Effect, Page, PageAction, SessionContext};
use crate::fetch::{self, FetchError, Fetcher};
use crate::tools::Do;

/// The static backend: tabs that never use Chromium (one per process;
/// tabs share nothing but the session's fetcher).
#[derive(Debug, Default)]
pub struct StaticBackend;

#[async_trait]
impl Backend for StaticBackend {
    fn engine(&self) -> &'static str {
        "static"
    }

    async fn open_page(&self, session: &SessionContext) -> Result<Box<dyn Page>, BrowseError> {
        Ok(Box::new(AutoPage::new(session.clone(), None)))
    }
}

/// The page a tab shows.
#[derive(Debug)]
struct Current {
    url: Url,
    /// How to fetch it again (a form answered by a redirect: a `GET` of
    /// where it went).
    again: fetch::Request,
    /// The viewport and the page's fetched stylesheets, for every cascade.
    cascade: CascadeOptions,
    state: State,
    scroll_y: f32,
    /// The element that has focus (`press` goes there).
    focus: Option<NodeId>,
    /// Files chosen for file inputs.
    files: HashMap<NodeId, Vec<PathBuf>>,
    notices: Vec<String>,
}

#[derive(Debug)]
enum State {
    /// Parsed or changed; cascade, layout and semantics are to be run.
    Dirty(Box<Document>),
    /// Analysed; `values_changed` lists the fields whose value alone
    /// changed since (their widgets are refreshed, nothing is rebuilt).
    Analysed { analysis: Box<Analysis>, values_changed: Vec<NodeId> },
    /// Between the two (only while a method runs).
    Taken,
}

/// One document on the static path.
#[derive(Debug)]
pub struct StaticPage {
    fetcher: Fetcher,
    viewport: Viewport,
    current: Option<Current>,
    generation: u64,
}

impl StaticPage {
    /// An empty page.
    pub fn new(fetcher: Fetcher, viewport: Viewport) -> StaticPage {
        StaticPage { fetcher, viewport, current: None, generation: 0 }
    }

    fn current(&mut self) -> Result<&mut Current, BrowseError> {
        self.current.as_mut().ok_or_else(no_page)
    }

    /// Fetches and parses `request`; the new page replaces the current
    /// one (on failure the current one stays).
    pub async fn load(&mut self, request: fetch::Request) -> Result<Arrival, BrowseError> {
        let from = self.current.as_ref().map(|c| c.url.clone());
        let (mut request, mut refreshes) = (request, 0);
        // A page that refreshes to another at once is, to a person, that
        // other page: followed like a redirect, within the same limit.
        let (again, response, document) = loop {
            let again = request.clone();
            let response = self.fetcher.fetch_page(request).await.map_err(fetch_error)?;
            let options = ParseOptions { url: Some(response.url.clone()), transport_charset: response.charset.clone(), scripting: true };
            let document = blocking(|| parse(&response.bytes, &options));
            match prompt_refresh(&document, &response.url) {
                Some(next) if refreshes < self.fetcher.limits().max_redirects => {
                    refreshes += 1;
                    request = fetch::Request { referrer: Some(response.url.clone()), ..fetch::Request::get(next) };
                }
                _ => break (again, response, document),
            }
        };
        let mut cascade_options =
            CascadeOptions { viewport: self.viewport, sheet_cache: Some(self.fetcher.parsed_sheets()), ..CascadeOptions::default() };
        let hrefs = linked_stylesheet_urls(&document, &cascade_options);
        let (sheets, problems) = self.fetcher.fetch_stylesheets(&hrefs, &cascade_options).await;
        cascade_options.stylesheets = sheets;
        let mut notices = Vec::new();
        if response.status >= 400 {
            let text = status_text(response.status);
            notices.push(if text.is_empty() { format!("HTTP {}", response.status) } else { format!("HTTP {} {text}", response.status) });
        }
        if !problems.is_empty() {
            notices.push(format!("{} stylesheet(s) could not be loaded", problems.len()));
        }
        self.generation += 1;
        let url = response.url.clone();
        let again = match response.method {
            fetch::Method::Get => fetch::Request { method: fetch::Method::Get, url: url.clone(), body: None, ..again },
            fetch::Method::Post => fetch::Request { url: url.clone(), ..again },
        };
        let left = self.current.replace(Current {
            url: url.clone(),
            again,
            cascade: cascade_options,
            state: State::Dirty(Box::new(document)),
            scroll_y: 0.0,
            focus: None,
            files: HashMap::new(),
            notices,
        });
        drop_later(left);
        Ok(Arrival { from, to: url })
    }

    /// How to fetch the current page again, if one is loaded.
    pub fn request(&self) -> Option<&fetch::Request> {
        self.current.as_ref().map(|c| &c.again)
    }

    /// The document, for changing it: its analysis is dropped, unless
    /// only the value of `values_of` changes (typing, clearing): then the
    /// analysis stays and that field's widget is refreshed.
    fn document_mut(&mut self, values_of: Option<NodeId>) -> Result<&mut Document, BrowseError> {
        self.generation += 1;
        let current = self.current()?;
        let state = std::mem::replace(&mut current.state, State::Taken);
        current.state = match (state, values_of) {
            (State::Analysed { analysis, mut values_changed }, Some(node)) => {
                values_changed.push(node);
                State::Analysed { analysis, values_changed }
            }
            (State::Analysed { analysis, .. }, None) => State::Dirty(Box::new(analysis.document)),
            (other, _) => other,
        };
        match &mut current.state {
            State::Dirty(doc) => Ok(doc),
            State::Analysed { analysis, .. } => Ok(&mut analysis.document),
            State::Taken => Err(no_page()),
        }
    }

    /// The document as it is now, if a page is loaded.
    pub fn document(&self) -> Option<&Document> {
        match &self.current.as_ref()?.state {
            State::Dirty(doc) => Some(doc),
            State::Analysed { analysis, .. } => Some(&analysis.document),
            State::Taken => None,
        }
    }

    /// Follows what a click or key press asked for.
    async fn follow(&mut self, click: Click) -> Result<Effect, BrowseError> {
        match click {
            Click::Navigate { url, new_tab: true } => Ok(Effect::NewTab(url)),
            Click::Navigate { url, new_tab: false } => {
                let current = self.current()?;
                if same_document(&current.url, &url) {
                    current.url = url.clone();
                    return Ok(Effect::Changed);
                }
                let request = fetch::Request { referrer: Some(current.url.clone()), ..fetch::Request::get(url) };
                Ok(Effect::Navigated(self.load(request).await?))
            }
            Click::Submit(submission) => self.submit(submission).await,
            Click::ChooseFile(_) => {
                Err(BrowseError::new("invalid_args", "is a file input: use upload with files to choose them"))
            }
            Click::Toggled { .. } | Click::Focus(_) | Click::Reset(_) | Click::DetailsToggled { .. } | Click::Nothing => {
                Ok(Effect::Changed)
            }
        }
    }

    /// Sends a form (or closes its dialog, for `method=dialog`).
    async fn submit(&mut self, submission: Submission) -> Result<Effect, BrowseError> {
        let current = self.current()?;
        let referrer = Some(current.url.clone());
        let request = match submission.method {
            Method::Dialog => {
                act::close_dialog(self.document_mut(None)?, &submission).map_err(refused)?;
                return Ok(Effect::Changed);
            }
            Method::Get => fetch::Request { referrer, ..fetch::Request::get(submission.request_url()) },
            Method::Post => {
                let boundary = format!("----whittle{:016x}", whittle_engine::fnv1a(current.url.as_str().as_bytes()));
                let files = read_files(&current.files)?;
                let contents = |node: NodeId, i: usize| files.get(&node).and_then(|f| f.get(i)).cloned().unwrap_or_default();
                let bytes = submission.body(&boundary, &contents).unwrap_or_default();
                let content_type = submission.content_type(&boundary);
                fetch::Request { referrer, ..fetch::Request::post(submission.request_url(), &content_type, bytes) }
            }
        };
        if submission.new_tab && request.method == fetch::Method::Get {
            return Ok(Effect::NewTab(request.url));
        }
        Ok(Effect::Navigated(self.load(request).await?))
    }

    /// The current URL, if a page is loaded.
    pub fn url(&self) -> Option<&Url> {
        self.current.as_ref().map(|c| &c.url)
    }

    /// Notices about the current page.
    pub fn notices(&self) -> Vec<String> {
        self.current.as_ref().map(|c| c.notices.clone()).unwrap_or_default()
    }

    /// The current document's id.
    pub fn document_id(&self) -> Option<DocumentId> {
        self.document().map(Document::id)
    }

    /// A number that changes whenever the page may look different.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The engine's view of the page, computed if it changed since the
    /// last call.
    pub async fn analysis(&mut self, refs: &mut RefTable) -> Result<&Analysis, BrowseError> {
        let generation = self.generation;
        let current = self.current()?;
        let state = std::mem::replace(&mut current.state, State::Taken);
        let scroll_y = current.scroll_y;
        let options = &current.cascade;
        current.state = blocking(|| match state {
            State::Dirty(document) => {
                let document = *document;
                let (styles, layout) = style_and_layout(&document, options, &LayoutOptions { scroll_y });
                let concealment = conceal(&document, &styles, &layout);
                let semantics = compute_semantics(&document, &styles, &concealment);
                let tree = build_tree(&document, &styles, &concealment, &semantics, refs);
                let values_since = (generation, Vec::new());
                let analysis = Box::new(Analysis { document, styles, layout, concealment, semantics, tree, values_since });
                State::Analysed { analysis, values_changed: Vec::new() }
            }
            State::Analysed { mut analysis, values_changed } if !values_changed.is_empty() => {
                let a = &mut *analysis;
                a.tree.refresh_values(&a.document, &a.styles, &a.semantics, &values_changed);
                a.values_since.1.extend(values_changed);
                State::Analysed { analysis, values_changed: Vec::new() }
            }
            other => other,
        });
        match &current.state {
            State::Analysed { analysis, .. } => Ok(analysis),
            _ => Err(no_page()),
        }
    }

    /// Performs one action (see [`Page::act`]).
    pub async fn act(&mut self, a: PageAction<'_>) -> Result<Effect, BrowseError> {
        let focus = self.current()?.focus;
        let target = a.target.or(focus);
        let need = |t: Option<NodeId>| t.ok_or_else(|| BrowseError::new("invalid_args", "this action needs a `ref`"));
        match a.action {
            Do::Type | Do::Clear => {
                let node = need(target)?;
                // A field's value lives in the form state: nothing but its
                // widget changes. Editable elements change the DOM itself.
                let is_field = self.document().and_then(|d| d.element(node)).is_some_and(|e| is_html(e, "input") || is_html(e, "textarea"));
                let doc = self.document_mut(if is_field { Some(node) } else { None })?;
                let result = match a.action {
                    Do::Type => act::type_text(doc, node, a.text.unwrap_or(""), false).map(|_| ()),
                    _ => act::clear(doc, node),
                };
                result.map_err(refused)?;
                self.current()?.focus = Some(node);
                Ok(Effect::Changed)
            }
            Do::Select => {
                let node = need(target)?;
                let choices: Vec<&str> = a.values.iter().map(String::as_str).collect();
                act::select(self.document_mut(None)?, node, &choices).map_err(refused)?;
                Ok(Effect::Changed)
            }
            Do::Check | Do::Uncheck => {
                let node = need(target)?;
                act::set_checked(self.document_mut(None)?, node, a.action == Do::Check).map_err(refused)?;
                Ok(Effect::Changed)
            }
            Do::Click => {
                let node = need(target)?;
                let click = act::click(self.document_mut(None)?, node).map_err(refused)?;
                if let Click::Focus(field) = click {
                    self.current()?.focus = Some(field);
                } else {
                    self.current()?.focus = Some(node);
                }
                self.follow(click).await
            }
            Do::Submit => {
                let node = need(target)?;
                let doc = self.document().ok_or_else(no_page)?;
                let form = if doc.element(node).is_some_and(|e| is_html(e, "form")) {
                    Some(node)
                } else {
                    whittle_engine::dom::form::form_owner(doc, node)
                };
                let Some(form) = form else { return Err(BrowseError::new("not_actionable", "is not in a form")) };
                let submission = act::submit(doc, form, None).map_err(refused)?;
                self.submit(submission).await
            }
            Do::Press => {
                let key = a.key.unwrap_or("");
                if !key.eq_ignore_ascii_case("enter") {
                    // Without scripts, other keys change nothing a static
                    // page shows (Tab moves focus, which the tree does not show).
                    return Ok(Effect::Changed);
                }
                let Some(node) = target else { return Ok(Effect::Changed) };
                let doc = self.document().ok_or_else(no_page)?;
                let is_field = doc.element(node).is_some_and(|e| {
                    is_html(e, "input")
                        && !matches!(
                            whittle_engine::dom::form::input_type(e),
                            "submit" | "image" | "reset" | "button" | "checkbox" | "radio" | "file"
                        )
                });
                if is_field {
                    let submission = act::implicit_submission(doc, node).map_err(refused)?;
                    return self.submit(submission).await;
                }
                // Enter on a link or button activates it.
                let click = act::click(self.document_mut(None)?, node).map_err(refused)?;
                self.follow(click).await
            }
            Do::Scroll => {
                let screens = a.dy.unwrap_or(0.0);
                let height = self.viewport.height as f32;
                let doc_height = match &self.current()?.state {
                    State::Analysed { analysis, .. } => analysis.layout.content_height(),
                    _ => f32::MAX,
                };
                let top = match (a.target, &self.current()?.state) {
                    (Some(node), State::Analysed { analysis, .. }) => analysis.layout.rect(node).map(|r| r.y),
                    _ => None,
                };
                let current = self.current()?;
                let wanted = match top {
                    Some(y) => y + screens as f32 * height,
                    None => current.scroll_y + screens as f32 * height,
                };
                current.scroll_y = wanted.clamp(0.0, (doc_height - height).max(0.0));
                self.document_mut(None)?;
                Ok(Effect::Changed)
            }
            Do::Upload => {
                let node = need(target)?;
                let mut paths = Vec::new();
                let mut chosen = Vec::new();
                for f in a.files {
                    let p = PathBuf::from(f);
                    if !p.is_file() {
                        return Err(BrowseError::new("invalid_args", format!("{f:?} is not a readable file")));
                    }
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    chosen.push(ChosenFile { name, content_type: String::new() });
                    paths.push(p);
                }
                act::choose_files(self.document_mut(None)?, node, chosen).map_err(refused)?;
                self.current()?.files.insert(node, paths);
                Ok(Effect::Changed)
            }
            // Hover styles are not applied to a page at rest.
            Do::Hover => Ok(Effect::Changed),
        }
    }
}

/// Whether `e` is the HTML element `name`.
fn is_html(e: &whittle_engine::Element, name: &str) -> bool {
    e.is_html_element() && &**e.local_name() == name
}

/// Reads the files chosen for file inputs, for a multipart body.
fn read_files(chosen: &HashMap<NodeId, Vec<PathBuf>>) -> Result<HashMap<NodeId, Vec<Vec<u8>>>, BrowseError> {
    const MAX_UPLOAD: u64 = 64 * 1024 * 1024;
    let mut out = HashMap::new();
    for (&node, paths) in chosen {
        let mut files = Vec::new();
        for p in paths {
            let too_large = std::fs::metadata(p).map(|m| m.len() > MAX_UPLOAD).unwrap_or(false);
            if too_large {
                return Err(BrowseError::new("too_large", format!("{} is larger than {MAX_UPLOAD} bytes", p.display())));
            }
            let bytes = std::fs::read(p).map_err(|e| BrowseError::new("invalid_args", format!("cannot read {}: {e}", p.display())))?;
            files.push(bytes);
        }
        out.insert(node, files);
    }
    Ok(out)
}

/// Whether `to` only moves within the page at `from` (same URL but the
/// fragment).
fn same_document(from: &Url, to: &Url) -> bool {
    to.fragment().is_some() && {
        let (mut a, mut b) = (from.clone(), to.clone());
        a.set_fragment(None);
        b.set_fragment(None);
        a == b
    }
}

/// Runs CPU-bound engine work: on a multi-threaded runtime it tells tokio
/// (`block_in_place`) so other tasks move to other workers; on a
/// current-thread runtime, where that would panic, it just runs.
pub(crate) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Drops the page a tab left (its document and analysis: a tenth of a
/// millisecond on a median page, more on a large one) on the blocking
/// pool, after the navigation has answered, not before.
fn drop_later<T: Send + 'static>(value: T) {
    match tokio::runtime::Handle::try_current() {
        Ok(h) => drop(h.spawn_blocking(move || drop(value))),
        Err(_) => drop(value),
    }
}

fn no_page() -> BrowseError {
    BrowseError::new("no_page", "the tab has no page yet: navigate somewhere first")
}

/// An act refusal from the engine: `needs_script` when only a script
/// could do it (the Chromium backend's cue), `invalid_form` when the form
/// did not validate, else `not_actionable`.
fn refused(e: act::ActError) -> BrowseError {
    let code = match &e {
        act::ActError::NeedsScript(_) => "needs_script",
        act::ActError::Invalid { .. } => "invalid_form",
        _ => "not_actionable",
    };
    BrowseError { code, message: e.to_string(), about: e.node() }
}

/// Where a page's refresh takes the browser at once: a refresh of at
/// most a second (Chromium treats those as redirects) to another http(s)
/// page. A page refreshing itself is shown as it is.
fn prompt_refresh(doc: &Document, here: &Url) -> Option<Url> {
    let r = whittle_engine::refresh(doc)?;
    let elsewhere = {
        let (mut a, mut b) = (r.url.clone(), here.clone());
        a.set_fragment(None);
        b.set_fragment(None);
        a != b
    };
    (r.seconds <= 1 && elsewhere && matches!(r.url.scheme(), "http" | "https")).then_some(r.url)
}

fn fetch_error(e: FetchError) -> BrowseError {
    BrowseError::new(e.code(), e.to_string())
}

fn status_text(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}
