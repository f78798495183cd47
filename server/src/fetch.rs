//! The static backend's HTTP client: one [`Fetcher`] per browsing session
//! (its cookie jar is the session's), redirects followed by hand so that
//! every hop goes through the session's [`HopCheck`], hard limits on time
//! and bytes ([`Limits`]), and typed errors ([`FetchError`]) that carry the
//! protocol's error codes.
//!
//! What the fetcher does not do: `file:` URLs and standard input (the CLI's
//! `load.rs` reads those), scripts, caching, HTTP authentication prompts.
//! An HTTP error status is not an error here: a 404 page is a page, returned
//! with its status.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::cookie::CookieStore;
use reqwest_cookie_store::CookieStoreMutex;
use reqwest::header;
use tokio::time::Instant;
use url::Url;
use whittle_engine::{CascadeOptions, MAX_IMPORT_DEPTH, StylesheetText, stylesheet_imports};

use crate::cookies::{Changes, Cookie};
use crate::policy::{GuardedResolver, NetPolicy, NoSuchHost, Refusal};

/// What one navigation and its stylesheets may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of a page, after decompression (default 10 MiB).
    pub max_page_bytes: usize,
    /// The most bytes of one stylesheet, after decompression (default 4 MiB).
    pub max_sheet_bytes: usize,
    /// How many linked stylesheets are fetched at most (default 32).
    pub max_sheets: usize,
    /// How many stylesheets are fetched at once (default 6, like a browser's
    /// connections per host).
    pub sheet_concurrency: usize,
    /// The longest wait for a TCP (and TLS) connection (default 10 s).
    pub connect_timeout: Duration,
    /// The longest a whole navigation may take: every redirect hop and the
    /// body (default 20 s). One batch of stylesheets gets as long again.
    pub total_timeout: Duration,
    /// How many redirects are followed (default 10).
    pub max_redirects: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_page_bytes: 10 * 1024 * 1024,
            max_sheet_bytes: 4 * 1024 * 1024,
            max_sheets: 32,
            sheet_concurrency: 6,
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(20),
            max_redirects: 10,
        }
    }
}

/// Decides whether a URL may be requested: called on the first URL of every
/// fetch and on every redirect target, before anything is sent to it. `Err`
/// says why not (the origin allow-list and the SSRF guard plug in here).
pub type HopCheck = Arc<dyn Fn(&Url) -> Result<(), String> + Send + Sync>;

/// The HTTP method of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
}

impl Method {
    fn as_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
        }
    }
}

/// A request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// Its `Content-Type`, e.g. `application/x-www-form-urlencoded`.
    pub content_type: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A navigation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The URL (http or https).
    pub url: Url,
    /// The body, for a `POST`.
    pub body: Option<Body>,
    /// The URL of the page the request comes from, for `Referer` (sent as
    /// strict-origin-when-cross-origin does) and, on a `POST`, `Origin`.
    pub referrer: Option<Url>,
}

impl Request {
    /// A `GET` of `url` from nowhere (typed into the address bar).
    pub fn get(url: Url) -> Request {
        Request { method: Method::Get, url, body: None, referrer: None }
    }

    /// A `POST` of `bytes` of type `content_type` to `url`.
    pub fn post(url: Url, content_type: &str, bytes: Vec<u8>) -> Request {
        let body = Body { content_type: content_type.to_owned(), bytes };
        Request { method: Method::Post, url, body: Some(body), referrer: None }
    }
}

/// A fetched page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The final URL, after redirects (with the requested fragment unless a
    /// redirect gave its own).
    pub url: Url,
    /// The HTTP status: 404 and 500 pages are pages too.
    pub status: u16,
    /// The method of the request that got this response (a `POST` becomes
    /// a `GET` after 301, 302 and 303).
    pub method: Method,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The charset of `Content-Type`, if any, for the parser's encoding
    /// sniffing.
    pub charset: Option<String>,
    /// The body, decompressed, undecoded.
    pub bytes: Vec<u8>,
    /// Every URL that answered with a redirect, in order (empty when the
    /// first URL answered).
    pub redirects: Vec<Url>,
    /// The final response's headers, in order (values not valid UTF-8 are
    /// decoded lossily).
    pub headers: Vec<(String, String)>,
}

/// Why a fetch failed. The messages are one line and show URLs without
/// userinfo and with query values replaced by `…` ([`redact`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// Not a URL, or not an http(s) one (also as a redirect target).
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL, redacted.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The session's [`HopCheck`] refused the URL; nothing was sent to it.
    #[error("not allowed: {reason}")]
    Blocked {
        /// The refused URL, redacted.
        url: String,
        /// The hop check's reason.
        reason: String,
    },
    /// DNS, connection, TLS, a broken or undecodable body, a bad redirect.
    #[error("cannot fetch {url}: {message}")]
    Network {
        /// The URL, redacted.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The connection or the whole navigation took too long.
    #[error("{url} did not load within {}", seconds(.after))]
    Timeout {
        /// The requested URL, redacted.
        url: String,
        /// The limit that ran out.
        after: Duration,
    },
    /// More redirects than [`Limits::max_redirects`].
    #[error("{url} redirects more than {limit} times")]
    TooManyRedirects {
        /// The requested URL, redacted.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// A redirect led back to a request already made, with the same
    /// cookies: it would go round forever.
    #[error("{url} redirects in a loop")]
    RedirectLoop {
        /// The URL requested twice, redacted.
        url: String,
    },
    /// The body is larger than the limit (after decompression).
    #[error("{url} is larger than {limit} bytes")]
    TooLarge {
        /// The URL, redacted.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// The response is not a page: an image, a PDF, JSON, a download…
    #[error("{url} is {kind}, not an HTML page (Content-Type: {content_type})")]
    NotHtml {
        /// The URL, redacted.
        url: String,
        /// What it is, e.g. `an image`, `JSON`.
        kind: &'static str,
        /// The `Content-Type` (at most 100 characters).
        content_type: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}

impl FetchError {
    /// The error code (docs/mcp.md#error-codes).
    pub fn code(&self) -> &'static str {
        match self {
            FetchError::InvalidUrl { .. } => "invalid_url",
            FetchError::Blocked { .. } => "origin_not_allowed",
            FetchError::Timeout { .. } => "nav_timeout",
            FetchError::TooLarge { .. } => "too_large",
            FetchError::Client(_) => "engine_unavailable",
            FetchError::Network { .. }
            | FetchError::TooManyRedirects { .. }
            | FetchError::RedirectLoop { .. }
            | FetchError::NotHtml { .. } => "nav_failed",
        }
    }
}

fn seconds(d: &Duration) -> String {
    if d.subsec_millis() == 0 { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
}

/// Parses a URL the fetcher takes: absolute, http or https.
pub fn parse_url(s: &str) -> Result<Url, FetchError> {
    let url = Url::parse(s.trim()).map_err(|e| FetchError::InvalidUrl { url: redact_str(s), reason: e.to_string() })?;
    check_scheme(&url)?;
    Ok(url)
}

fn check_scheme(url: &Url) -> Result<(), FetchError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(FetchError::InvalidUrl {
            url: redact(url),
            reason: format!("whittle fetches http and https URLs, not {other}:"),
        }),
    }
}

/// A URL as messages show it: without userinfo and fragment, each query
/// value replaced by `…` (tokens travel in queries).
pub fn redact(url: &Url) -> String {
    let mut bare = url.clone();
    let _ = bare.set_username("");
    let _ = bare.set_password(None);
    bare.set_query(None);
    bare.set_fragment(None);
    let mut out = String::from(bare);
    if let Some(query) = url.query() {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=…"),
                None => "…".to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// [`redact`] for text that did not parse as a URL: cuts userinfo and the
/// query, and keeps at most 200 characters.
pub fn redact_str(s: &str) -> String {
    let s = s.trim();
    let s = s.split(['?', '#']).next().unwrap_or("");
    let s = match (s.find("://"), s.rfind('@')) {
        (Some(start), Some(at)) if at > start => format!("{}{}", &s[..start + 3], &s[at + 1..]),
        _ => s.to_owned(),
    };
    s.chars().take(200).collect()
}

/// What is being fetched: it decides `Accept`, the size limit and whether
/// non-page types are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Page,
    Sheet,
}

/// The HTTP client of one browsing session. Clones share the client, its
/// connections and its cookie jar; a new `Fetcher` is a new session.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    jar: Arc<CookieStoreMutex>,
    limits: Limits,
    hop_check: Option<HopCheck>,
    sheets: Arc<Mutex<SheetCache>>,
    /// The same sheets as the engine read them, so that a site's pages
    /// do not parse its sheets again (cascades of this session share it).
    parsed: whittle_engine::SheetCache,
}

/// The most bytes of stylesheet text one [`Fetcher`] (and its clones) keep.
const SHEET_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// Stylesheets already fetched by one browsing session, by URL: a site's
/// pages share their sheets, which are not fetched again for each page.
/// A sheet the server says to check before reuse (`Cache-Control:
/// no-cache`, `max-age=0`) is kept with its validators (`ETag`,
/// `Last-Modified`) and asked for again conditionally: a `304 Not
/// Modified` reuses it without its body. Sheets it says not to keep
/// (`no-store`, or no validator to check them by) are not kept; the oldest
/// go first past [`SHEET_CACHE_BYTES`].
#[derive(Debug, Default)]
struct SheetCache {
    by_url: HashMap<String, Kept>,
    order: VecDeque<String>,
    bytes: usize,
}

/// A kept sheet: its text, and the validators to check it by first, when
/// the server asked for that.
#[derive(Debug, Clone)]
struct Kept {
    text: Arc<str>,
    check: Option<Validators>,
}

/// What a conditional request sends back: the `ETag` and `Last-Modified`
/// the server gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Validators {
    etag: Option<String>,
    last_modified: Option<String>,
}

impl SheetCache {
    fn get(&self, url: &Url) -> Option<Kept> {
        self.by_url.get(url.as_str()).cloned()
    }

    fn put(&mut self, url: &Url, kept: Kept) {
        if kept.text.len() > SHEET_CACHE_BYTES / 4 {
            return;
        }
        match self.by_url.insert(url.as_str().to_owned(), kept.clone()) {
            // Checked again (a new text, or new validators): in its place.
            Some(old) => {
                self.bytes = self.bytes - old.text.len() + kept.text.len();
            }
            None => {
                self.bytes += kept.text.len();
                self.order.push_back(url.as_str().to_owned());
            }
        }
        while self.bytes > SHEET_CACHE_BYTES
            && let Some(old) = self.order.pop_front()
        {
            if let Some(k) = self.by_url.remove(&old) {
                self.bytes -= k.text.len();
            }
        }
    }
}

/// How a response may be kept for the session's later pages: as it is
/// (`Some(None)`), checked by its validators before each reuse
/// (`Some(Some(_))`), or not at all.
fn keeping(headers: &[(String, String)]) -> Option<Option<Validators>> {
    // A validator is sent back as a header: only one that is a valid
    // header value is kept.
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty() && v.bytes().all(|b| (0x20..0x7f).contains(&b)))
    };
    let (mut store, mut check) = (true, false);
    for (name, value) in headers {
        if !name.eq_ignore_ascii_case("cache-control") {
            continue;
        }
        for d in value.split(',') {
            let d = d.trim().to_ascii_lowercase();
            if d == "no-store" {
                store = false;
            } else if d == "no-cache" || d.replace(' ', "") == "max-age=0" {
                check = true;
            }
        }
    }
    if !store {
        return None;
    }
    if !check {
        return Some(None);
    }
    let validators = Validators { etag: header("etag"), last_modified: header("last-modified") };
    (validators != Validators::default()).then_some(Some(validators))
}

impl fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fetcher")
            .field("limits", &self.limits)
            .field("hop_check", &self.hop_check.is_some())
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with an empty cookie jar. `hop_check`, if any, is asked
    /// about every URL before it is requested; nothing else is checked
    /// (tests and benches on loopback). Sessions use [`Fetcher::guarded`].
    pub fn new(limits: Limits, hop_check: Option<HopCheck>) -> Result<Fetcher, FetchError> {
        Fetcher::build(limits, hop_check, None)
    }

    /// A fetcher that obeys `policy`: every URL (redirect targets and
    /// stylesheets included) is checked before it is requested, and every
    /// address a name resolves to is checked before the client connects,
    /// so a name that resolves to a private address is refused too.
    pub fn guarded(limits: Limits, policy: Arc<NetPolicy>) -> Result<Fetcher, FetchError> {
        let check = policy.clone();
        let hop: HopCheck = Arc::new(move |url: &Url| check.check_url(url).map_err(|r| r.0));
        Fetcher::build(limits, Some(hop), Some(policy))
    }

    fn build(limits: Limits, hop_check: Option<HopCheck>, policy: Option<Arc<NetPolicy>>) -> Result<Fetcher, FetchError> {
        // reqwest is built without a default TLS provider; pick ring (the
        // error only says one is installed already).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let jar = Arc::new(CookieStoreMutex::default());
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("whittle/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(limits.connect_timeout)
            // Redirects are followed by hand: each hop is checked.
            .redirect(reqwest::redirect::Policy::none())
            .cookie_provider(jar.clone());
        if let Some(policy) = policy {
            // A proxy from the environment would connect for us, to
            // addresses the resolver never saw.
            builder = builder.no_proxy().dns_resolver(GuardedResolver::new(policy));
        }
        let client = builder.build().map_err(|e| FetchError::Client(error_chain(&e)))?;
        Ok(Fetcher { client, jar, limits, hop_check, sheets: Arc::default(), parsed: whittle_engine::SheetCache::default() })
    }

    /// Every cookie the session's jar holds (expired ones left out).
    pub fn cookies(&self) -> Vec<Cookie> {
        let store = self.jar.lock().unwrap_or_else(|e| e.into_inner());
        store.iter_unexpired().filter_map(crate::cookies::from_jar).collect()
    }

    /// Applies what the other engine changed (a tab moving here from
    /// Chromium): cookies set, cookies gone. Gives how many could not be
    /// stored (the jar's rules refused them).
    pub fn apply_cookies(&self, changes: &Changes) -> usize {
        let mut store = self.jar.lock().unwrap_or_else(|e| e.into_inner());
        for gone in &changes.gone {
            store.remove(&gone.domain, &gone.path, &gone.name);
        }
        let mut refused = 0;
        for c in &changes.set {
            let Some(url) = c.origin_url() else {
                refused += 1;
                continue;
            };
            if store.insert_raw(&crate::cookies::to_jar(c), &url).is_err() {
                refused += 1;
            }
        }
        refused
    }

    /// The limits this fetcher applies.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Fetches a page, following redirects, within
    /// [`Limits::total_timeout`] and [`Limits::max_page_bytes`]. Refuses
    /// responses that are not pages ([`FetchError::NotHtml`]); a missing
    /// `Content-Type` counts as HTML.
    pub async fn fetch_page(&self, request: Request) -> Result<Response, FetchError> {
        let deadline = Instant::now() + self.limits.total_timeout;
        let origin = request.url.origin().ascii_serialization();
        let result = self.fetch(request, Kind::Page, deadline).await;
        if let Err(e) = &result {
            tracing::info!(%origin, code = e.code(), "page fetch failed");
        }
        result
    }

    /// Fetches the stylesheets a page names (`urls`: what
    /// `linked_stylesheet_urls` gives), then the sheets they `@import`
    /// under `options`' media conditions, level by level, at most
    /// [`Limits::sheet_concurrency`] at once, [`Limits::max_sheets`] in all,
    /// within one [`Limits::total_timeout`]. Sheets this fetcher fetched
    /// before are taken from its cache. Gives the sheets that loaded (the
    /// cascade finds them by URL) and one line for each that did not: a
    /// missing sheet is not fatal, the page renders without it.
    pub async fn fetch_stylesheets(&self, urls: &[Url], options: &CascadeOptions) -> (Vec<StylesheetText>, Vec<String>) {
        let deadline = Instant::now() + self.limits.total_timeout;
        let mut problems = Vec::new();
        let mut sheets: Vec<StylesheetText> = Vec::new();
        let mut tried: HashSet<Url> = HashSet::new();
        let mut level: Vec<Url> = urls.iter().filter(|u| tried.insert((*u).clone())).cloned().collect();
        let mut skipped = 0;
        for depth in 0..=MAX_IMPORT_DEPTH {
            let room = self.limits.max_sheets.saturating_sub(sheets.len());
            if level.len() > room {
                skipped += level.len() - room;
                level.truncate(room);
            }
            if level.is_empty() {
                break;
            }
            let (fetched, failed) = self.fetch_level(&level, deadline).await;
            if !failed.is_empty() {
                tracing::debug!(failed = failed.len(), "stylesheets not loaded");
            }
            problems.extend(failed);
            let next: Vec<Url> = fetched
                .iter()
                .flat_map(|sheet| stylesheet_imports(sheet, options))
                .filter(|u| tried.insert(u.clone()))
                .collect();
            sheets.extend(fetched);
            if depth == MAX_IMPORT_DEPTH && !next.is_empty() {
                problems.push(format!("stylesheet imports nested deeper than {MAX_IMPORT_DEPTH} not followed"));
            }
            level = next;
        }
        if skipped > 0 {
            let max = self.limits.max_sheets;
            problems.insert(0, format!("{skipped} stylesheet{} beyond the first {max} skipped", if skipped == 1 { "" } else { "s" }));
        }
        (sheets, problems)
    }

    /// Where this session's cascades keep the linked sheets they read
    /// ([`CascadeOptions::sheet_cache`]).
    pub fn parsed_sheets(&self) -> whittle_engine::SheetCache {
        self.parsed.clone()
    }

    /// Fetches one level of stylesheets in parallel (or from the cache), in
    /// the order of `urls`.
    async fn fetch_level(&self, urls: &[Url], deadline: Instant) -> (Vec<StylesheetText>, Vec<String>) {
        let mut problems = Vec::new();
        let mut results: Vec<Option<Result<StylesheetText, String>>> = Vec::with_capacity(urls.len());
        // Kept sheets are used as they are, or checked first.
        let mut to_check: Vec<Option<Kept>> = Vec::with_capacity(urls.len());
        {
            let cache = self.sheets.lock().unwrap_or_else(|e| e.into_inner());
            for u in urls {
                match cache.get(u) {
                    Some(kept) if kept.check.is_none() => {
                        results.push(Some(Ok(StylesheetText { url: Some(u.to_string()), text: kept.text.as_ref().to_owned() })));
                        to_check.push(None);
                    }
                    kept => {
                        results.push(None);
                        to_check.push(kept);
                    }
                }
            }
        }
        let mut tasks = tokio::task::JoinSet::new();
        let mut next = 0;
        loop {
            while tasks.len() < self.limits.sheet_concurrency.max(1) && next < urls.len() {
                if results[next].is_none() {
                    let (fetcher, url, index, kept) = (self.clone(), urls[next].clone(), next, to_check[next].take());
                    tasks.spawn(async move { (index, fetcher.fetch_stylesheet(url, kept, deadline).await) });
                }
                next += 1;
            }
            match tasks.join_next().await {
                Some(Ok((index, result))) => results[index] = Some(result),
                Some(Err(e)) => problems.push(format!("a stylesheet fetch failed: {e}")),
                // Nothing running: every URL was started or cached.
                None => break,
            }
        }
        let mut sheets = Vec::new();
        for result in results.into_iter().flatten() {
            match result {
                Ok(sheet) => sheets.push(sheet),
                Err(problem) => problems.push(problem),
            }
        }
        (sheets, problems)
    }

    /// Fetches one stylesheet; `kept`, a copy kept earlier whose server
    /// asked to check it first: asked for conditionally, and reused on
    /// `304 Not Modified`.
    async fn fetch_stylesheet(&self, url: Url, kept: Option<Kept>, deadline: Instant) -> Result<StylesheetText, String> {
        let check = kept.as_ref().and_then(|k| k.check.as_ref());
        let response = match tokio::time::timeout_at(deadline, self.follow(Request::get(url.clone()), Kind::Sheet, check)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout { url: redact(&url), after: self.limits.total_timeout }),
        }
        .map_err(|e| format!("stylesheet skipped: {e}"))?;
        if response.status == 304
            && let Some(kept) = kept
        {
            return Ok(StylesheetText { url: Some(url.to_string()), text: kept.text.as_ref().to_owned() });
        }
        if !(200..300).contains(&response.status) {
            return Err(format!("stylesheet skipped: {} answered HTTP {}", redact(&url), response.status));
        }
        // A browser applies only what is served as CSS (strict MIME
        // checking); a sheet with no type is read.
        let mime = response.content_type.as_deref().and_then(|t| t.split(';').next()).map(|m| m.trim().to_ascii_lowercase());
        if let Some(mime) = mime.filter(|m| !m.is_empty() && m != "text/css") {
            return Err(format!("stylesheet skipped: {} is {mime}, not CSS", redact(&url)));
        }
        let text = decode_css(&response.bytes, response.charset.as_deref());
        if let Some(check) = keeping(&response.headers) {
            self.sheets.lock().unwrap_or_else(|e| e.into_inner()).put(&url, Kept { text: Arc::from(text.as_str()), check });
        }
        Ok(StylesheetText { url: Some(url.to_string()), text })
    }

    /// One fetch with its redirects, ended at `deadline`.
    async fn fetch(&self, request: Request, kind: Kind, deadline: Instant) -> Result<Response, FetchError> {
        let shown = redact(&request.url);
        match tokio::time::timeout_at(deadline, self.follow(request, kind, None)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout { url: shown, after: self.limits.total_timeout }),
        }
    }

    /// Requests, follows redirects (301/302/303 turn a `POST` into a `GET`
    /// without body, 307/308 keep both), reads the final body.
    /// `check`: the validators of a copy already kept, sent as
    /// `If-None-Match` and `If-Modified-Since` (a `304` is then the answer).
    async fn follow(&self, request: Request, kind: Kind, check: Option<&Validators>) -> Result<Response, FetchError> {
        let Request { mut method, mut url, mut body, referrer } = request;
        let first = redact(&url);
        let mut redirects = Vec::new();
        // A request made twice with the same cookies gets the same answer:
        // a loop. (The same URL with new cookies is a login or consent
        // check, and fine.)
        let mut seen = HashSet::new();
        loop {
            check_scheme(&url)?;
            if let Some(check) = &self.hop_check {
                check(&url).map_err(|reason| FetchError::Blocked { url: redact(&url), reason })?;
            }
            let mut key = url.clone();
            key.set_fragment(None);
            let cookies = self.jar.cookies(&key).map(|v| v.as_bytes().to_vec());
            if !seen.insert((method, key, cookies)) {
                return Err(FetchError::RedirectLoop { url: redact(&url) });
            }
            let response = self.send(method, &url, body.as_ref(), referrer.as_ref(), kind, check).await?;
            let status = response.status().as_u16();
            let Some(mut next) = redirect_target(status, &response, &url)? else {
                return self.read(response, url, method, redirects, kind).await;
            };
            if redirects.len() >= self.limits.max_redirects {
                return Err(FetchError::TooManyRedirects { url: first, limit: self.limits.max_redirects });
            }
            if status == 303 || (matches!(status, 301 | 302) && method == Method::Post) {
                method = Method::Get;
                body = None;
            }
            if next.fragment().is_none() && url.fragment().is_some() {
                next.set_fragment(url.fragment());
            }
            redirects.push(std::mem::replace(&mut url, next));
        }
    }

    async fn send(
        &self,
        method: Method,
        url: &Url,
        body: Option<&Body>,
        referrer: Option<&Url>,
        kind: Kind,
        check: Option<&Validators>,
    ) -> Result<reqwest::Response, FetchError> {
        let accept = match kind {
            Kind::Page => "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            Kind::Sheet => "text/css,*/*;q=0.1",
        };
        let mut builder = self.client.request(method.as_reqwest(), url.clone()).header(header::ACCEPT, accept);
        if let Some(from) = referrer {
            if let Some(value) = referer(from, url) {
                builder = builder.header(header::REFERER, value);
            }
            if method == Method::Post && matches!(from.scheme(), "http" | "https") {
                builder = builder.header(header::ORIGIN, from.origin().ascii_serialization());
            }
        }
        if let Some(body) = body {
            builder = builder.header(header::CONTENT_TYPE, body.content_type.as_str()).body(body.bytes.clone());
        }
        if let Some(v) = check {
            if let Some(etag) = &v.etag {
                builder = builder.header(header::IF_NONE_MATCH, etag.as_str());
            }
            if let Some(date) = &v.last_modified {
                builder = builder.header(header::IF_MODIFIED_SINCE, date.as_str());
            }
        }
        builder.send().await.map_err(|e| self.network_error(url, e))
    }

    /// Reads the final response's body within the size limit.
    async fn read(
        &self,
        mut response: reqwest::Response,
        url: Url,
        method: Method,
        redirects: Vec<Url>,
        kind: Kind,
    ) -> Result<Response, FetchError> {
        let content_type =
            response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
        if kind == Kind::Page
            && let Some(ct) = content_type.as_deref()
            && let Some(what) = not_a_page(ct)
        {
            let content_type = ct.chars().take(100).collect();
            return Err(FetchError::NotHtml { url: redact(&url), kind: what, content_type });
        }
        let limit = match kind {
            Kind::Page => self.limits.max_page_bytes,
            Kind::Sheet => self.limits.max_sheet_bytes,
        };
        let too_large = || FetchError::TooLarge { url: redact(&url), limit };
        // Known only when the body is not compressed.
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect();
        let mut bytes = Vec::new();
        // Chunks come decompressed: the limit counts what a bomb expands to.
        while let Some(chunk) = response.chunk().await.map_err(|e| self.network_error(&url, e))? {
            if bytes.len() + chunk.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        let charset = content_type
            .as_deref()
            .and_then(whittle_engine::parse::charset::charset_from_content_type)
            .map(str::to_owned);
        Ok(Response { status: response.status().as_u16(), url, method, content_type, charset, bytes, redirects, headers })
    }

    fn network_error(&self, url: &Url, e: reqwest::Error) -> FetchError {
        if e.is_timeout() {
            return FetchError::Timeout { url: redact(url), after: self.limits.connect_timeout };
        }
        // The guarded resolver refused every address the name has.
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(err) = source {
            if let Some(refusal) = err.downcast_ref::<Refusal>() {
                return FetchError::Blocked { url: redact(url), reason: refusal.0.clone() };
            }
            if let Some(missing) = err.downcast_ref::<NoSuchHost>() {
                return FetchError::Network { url: redact(url), message: missing.to_string() };
            }
            source = err.source();
        }
        // reqwest's message would repeat the URL, userinfo and all.
        FetchError::Network { url: redact(url), message: error_chain(&e.without_url()) }
    }
}

/// The next URL if `response` is a redirect: 301, 302, 303, 307 or 308
/// with a `Location` (without one, the response is the page).
fn redirect_target(status: u16, response: &reqwest::Response, url: &Url) -> Result<Option<Url>, FetchError> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(None);
    }
    let Some(location) = response.headers().get(header::LOCATION) else { return Ok(None) };
    let bad = |why: &str| FetchError::Network { url: redact(url), message: format!("redirect to {why}") };
    let location = std::str::from_utf8(location.as_bytes()).map_err(|_| bad("a Location that is not UTF-8"))?;
    let next = url.join(location.trim()).map_err(|e| bad(&format!("an invalid Location ({e})")))?;
    Ok(Some(next))
}

/// The `Referer` from `from` to `to` under the default referrer policy,
/// strict-origin-when-cross-origin: the whole URL (without userinfo and
/// fragment) within an origin, only the origin across origins, nothing
/// from https to http.
fn referer(from: &Url, to: &Url) -> Option<String> {
    if !matches!(from.scheme(), "http" | "https") || (from.scheme() == "https" && to.scheme() == "http") {
        return None;
    }
    if from.origin() != to.origin() {
        return Some(format!("{}/", from.origin().ascii_serialization()));
    }
    let mut url = from.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    Some(url.into())
}

/// What a response is when its `Content-Type` is not something whittle
/// reads as a page (HTML, XHTML, XML, any `text/`), else `None`.
fn not_a_page(content_type: &str) -> Option<&'static str> {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let (top, sub) = essence.split_once('/').unwrap_or((essence.as_str(), ""));
    let page = essence.is_empty()
        || top == "text"
        || (top == "application" && (sub == "xml" || sub.ends_with("+xml")));
    if page {
        return None;
    }
    Some(match (top, sub) {
        ("image", _) => "an image",
        ("audio", _) => "audio",
        ("video", _) => "a video",
        ("font", _) => "a font",
        (_, "pdf") => "a PDF",
        (_, "json") => "JSON",
        (_, s) if s.ends_with("+json") => "JSON",
        (_, "javascript" | "ecmascript" | "wasm") => "a script",
        (_, "zip" | "gzip" | "x-gzip" | "x-tar" | "x-7z-compressed" | "x-rar-compressed" | "x-bzip2" | "zstd") => {
            "an archive"
        }
        (_, "octet-stream") => "a binary download",
        _ => "not a page",
    })
}

/// A stylesheet's text (CSS Syntax §3.2): a BOM, else the `Content-Type`
/// charset, else `@charset`, else UTF-8.
pub(crate) fn decode_css(bytes: &[u8], charset: Option<&str>) -> String {
    let label = charset.map(str::as_bytes).or_else(|| {
        let rest = bytes.strip_prefix(b"@charset \"")?;
        let end = rest.iter().position(|&b| b == b'"')?;
        rest[end..].starts_with(b"\";").then_some(&rest[..end])
    });
    let encoding = label
        .and_then(encoding_rs::Encoding::for_label)
        .map_or(encoding_rs::UTF_8, encoding_rs::Encoding::output_encoding);
    // `decode` lets a BOM override the label.
    encoding.decode(bytes).0.into_owned()
}

/// The whole cause chain of an error, on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn messages_show_no_secrets() {
        assert_eq!(redact(&url("https://me:hunter2@x.test/a?token=abc&q#frag")), "https://x.test/a?token=…&…");
        assert_eq!(redact_str("ht tp://me:hunter2@x?y=1"), "ht tp://x");
        let e = parse_url("ftp://me:hunter2@x.test/?k=v").err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(e, "invalid URL \"ftp://x.test/?k=…\": whittle fetches http and https URLs, not ftp:");
    }

    #[test]
    fn referrer_policy() {
        let page = url("https://u:p@shop.test/cart?id=1#top");
        assert_eq!(referer(&page, &url("https://shop.test/pay")).as_deref(), Some("https://shop.test/cart?id=1"));
        assert_eq!(referer(&page, &url("https://cdn.test/x")).as_deref(), Some("https://shop.test/"));
        assert_eq!(referer(&page, &url("http://shop.test/x")), None);
    }

    #[test]
    fn page_types() {
        for ok in ["text/html; charset=utf-8", "", "application/xhtml+xml", "text/plain", "application/rss+xml"] {
            assert_eq!(not_a_page(ok), None, "{ok}");
        }
        assert_eq!(not_a_page("image/svg+xml"), Some("an image"));
        assert_eq!(not_a_page("application/pdf"), Some("a PDF"));
        assert_eq!(not_a_page("application/ld+json; x=y"), Some("JSON"));
        assert_eq!(not_a_page("application/octet-stream"), Some("a binary download"));
    }

    #[test]
    fn stylesheet_charsets() {
        assert_eq!(decode_css(b"a{content:'\xe9'}", Some("windows-1252")), "a{content:'é'}");
        assert_eq!(decode_css(b"@charset \"latin1\"; a{content:'\xe9'}", None), "@charset \"latin1\"; a{content:'é'}");
        assert_eq!(decode_css(b"\xef\xbb\xbfa{}", Some("windows-1252")), "a{}");
        assert_eq!(decode_css(b"@charset \"utf-16\"; \xc3\xa9", None), "@charset \"utf-16\"; é");
    }
}
