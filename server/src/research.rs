//! `research`: many pages fetched at once and digested in parallel, one
//! compact digest each (the engine's [`whittle_engine::digest`]).
//!
//! Fetching runs on the tokio runtime through the session's [`Fetcher`]
//! (its redirects, size caps and hop checks; one pool of connections,
//! reused per host), at most [`ResearchOptions::per_host`] fetches per
//! host and [`ResearchOptions::concurrency`] pages in flight (fetched or
//! waiting to be digested) at once, each fetch within
//! [`ResearchOptions::page_timeout`]. Each page is digested as soon as it
//! arrives, while the others are still fetched. Parsing and digesting run on rayon's
//! pool, so they never block the runtime and use every core. Linked
//! stylesheets are not fetched: a digest is about text, and inline styles
//! already hide what `display: none` hides.
//!
//! A page that looks like a shell scripts fill is digested as served, with
//! a `⚠ needs scripts` line, unless the call gives a [`Renderer`]: then it
//! is loaded in a Chromium tab (a few at a time) and digested from what the
//! scripts made of it, through the same engine stages.
//!
//! One page's failure is one line of the result, never the call's: an
//! invalid or duplicate URL, a non-page (PDF, image, JSON), a host that
//! never answers, a bug in digesting (caught) — each becomes a
//! [`PageResult`] with `ok: false` and a reason. Results keep the input's
//! order; [`research`]'s callback sees each as it finishes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Semaphore;
use url::Url;
use whittle_engine::{DigestOptions, ParseOptions};

use crate::backend::cdp::{CdpBackend, CdpPage};
use crate::backend::{BrowseError, Navigation, Page, SessionContext};
use crate::fetch::{FetchError, Fetcher, Request, Response, parse_url, redact, redact_str};

/// The total token budget of a call without one.
pub const DEFAULT_BUDGET: u32 = 4_000;
/// The pages of a call without a limit.
pub const DEFAULT_LIMIT: usize = 10;
/// The most pages one call researches, whatever its limit.
pub const MAX_LIMIT: usize = 100;
/// The least budget one page's digest gets (its header line and a little).
pub const MIN_PAGE_BUDGET: u32 = 40;

/// How a research call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResearchOptions {
    /// Pages in flight at once: being fetched, or fetched and waiting to
    /// be digested (default 16).
    pub concurrency: usize,
    /// Pages fetched at once from one host (default 4).
    pub per_host: usize,
    /// The longest one page may take, redirects and body included
    /// (default 10 s).
    pub page_timeout: Duration,
    /// The total token budget of the digests.
    pub budget: u32,
    /// The most pages researched (more URLs are counted, not fetched).
    /// The `research` tool caps it at [`MAX_LIMIT`]; the command line
    /// does not.
    pub limit: usize,
}

impl Default for ResearchOptions {
    fn default() -> ResearchOptions {
        ResearchOptions {
            concurrency: 16,
            per_host: 4,
            page_timeout: Duration::from_secs(10),
            budget: DEFAULT_BUDGET,
            limit: DEFAULT_LIMIT,
        }
    }
}

/// One page's outcome.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PageResult {
    /// Its number (1-based, in input order; for a WARC archive, the
    /// record's number in the run).
    pub index: usize,
    /// The URL as given (for a WARC archive, the record's
    /// `WARC-Target-URI`).
    pub url: String,
    /// When the page was archived (a WARC record's `WARC-Date`, as
    /// written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The HTTP status the archive recorded, when its response was parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Where it ended, after redirects (redacted), when fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// Whether it was digested.
    pub ok: bool,
    /// Its title (empty when not fetched).
    pub title: String,
    /// Its digest, or its error line.
    pub digest: String,
    /// Its main content as plain text, as `whittle extract` gives it
    /// (WARC archives only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Why it failed: `{code, message}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<PageError>,
    /// Whether it looks like it needs scripts (digested without them).
    pub needs_scripts: bool,
    /// Whether Chromium rendered it (its scripts ran) for the digest.
    pub rendered: bool,
    /// The digest's (or the error line's) tokens, by the engine's
    /// estimate.
    pub tokens: u32,
    /// The final URL, for opening it as a tab (`keep`).
    #[serde(skip)]
    pub opened: Option<Url>,
}

/// Why a page failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageError {
    /// A protocol error code (`invalid_url`, `nav_failed`, `nav_timeout`,
    /// `too_large`, `origin_not_allowed`, `duplicate`, `internal`; from WARC
    /// archives also `bad_record`, `truncated` and `bad_encoding`, see
    /// [`crate::warc`]).
    pub code: &'static str,
    /// One line, URLs redacted.
    pub message: String,
}

/// A whole call's outcome.
#[derive(Debug, Clone, Default)]
pub struct Research {
    /// One result per researched URL, in input order.
    pub pages: Vec<PageResult>,
    /// URLs given beyond the limit, not researched.
    pub beyond_limit: usize,
}

impl Research {
    /// The text the model reads: a summary line, then the digests and
    /// error lines in input order, within `budget` (pages that no longer
    /// fit are counted in a last line).
    pub fn text(&self, budget: u32, limit: usize) -> String {
        let ok = self.pages.iter().filter(|p| p.ok).count();
        let failed = self.pages.len() - ok;
        let mut out = format!("research: {} pages · {ok} digested", self.pages.len());
        if failed > 0 {
            out.push_str(&format!(" · {failed} failed"));
        }
        out.push('\n');
        let mut spent = 0u32;
        let mut left_out = 0usize;
        for p in &self.pages {
            if left_out > 0 || (spent > 0 && spent + p.tokens > budget) {
                left_out += 1;
                continue;
            }
            spent += p.tokens;
            out.push_str(&p.digest);
        }
        if left_out > 0 {
            out.push_str(&format!(
                "… +{left_out} pages not shown: the budget of {budget} tokens is spent (raise budget, or research fewer urls)\n"
            ));
        }
        if self.beyond_limit > 0 {
            out.push_str(&format!(
                "… +{} more urls not researched (limit {limit}; at most {MAX_LIMIT} per call)\n",
                self.beyond_limit
            ));
        }
        out
    }
}

/// Researches `urls` (see the module documentation). `on_page` is called
/// with each result as it finishes, and the number finished so far.
pub async fn research(
    fetcher: &Fetcher,
    urls: &[String],
    options: &ResearchOptions,
    on_page: &mut (dyn FnMut(&PageResult, usize) + Send),
) -> Research {
    research_with(fetcher, urls, options, None, on_page).await
}

/// Where pages that need scripts are rendered, when a call allows it:
/// Chromium tabs of the caller's session, a few at a time.
#[derive(Debug, Clone)]
pub struct Renderer {
    chromium: CdpBackend,
    context: SessionContext,
    tabs: Arc<Semaphore>,
}

impl Renderer {
    /// Renders in `chromium`, as `context`'s session, at most `tabs` pages
    /// at once.
    pub fn new(chromium: CdpBackend, context: SessionContext, tabs: usize) -> Renderer {
        Renderer { chromium, context, tabs: Arc::new(Semaphore::new(tabs.max(1))) }
    }

    /// Loads `url` in a new Chromium tab and digests what the scripts
    /// made of it; the tab is closed after.
    async fn digest(&self, url: Url, index: usize, budget: u32) -> Result<whittle_engine::Digest, BrowseError> {
        let _slot = self.tabs.acquire().await.ok();
        let mut page = CdpPage::open(self.chromium.clone(), &self.context).await?;
        let result = async {
            page.navigate(Navigation::To(url), false).await?;
            let mut refs = whittle_engine::RefTable::new();
            let a = page.analysis(&mut refs).await?;
            Ok(tokio::task::block_in_place(|| {
                whittle_engine::digest(&a.document, &a.styles, &a.concealment, &a.semantics, &DigestOptions { index, budget, scripts_ran: true })
            }))
        }
        .await;
        page.close().await;
        result
    }
}

/// [`research`], with pages that need scripts rendered by `render` (their
/// result says `rendered`); without it, or when rendering fails, they are
/// digested as served, with the digest's `⚠ needs scripts` line.
pub async fn research_with(
    fetcher: &Fetcher,
    urls: &[String],
    options: &ResearchOptions,
    render: Option<Renderer>,
    on_page: &mut (dyn FnMut(&PageResult, usize) + Send),
) -> Research {
    let limit = options.limit.max(1);
    let taken = &urls[..urls.len().min(limit)];
    let beyond_limit = urls.len() - taken.len();

    let mut results: Vec<Option<PageResult>> = vec![None; taken.len()];
    let mut finished = 0usize;
    // Invalid and duplicate URLs are answered at once; the rest share the
    // budget.
    let mut seen: HashMap<Url, usize> = HashMap::new();
    let mut to_fetch: Vec<(usize, Url)> = Vec::new();
    for (i, given) in taken.iter().enumerate() {
        let index = i + 1;
        let outcome = match parse_url(given.trim()) {
            Err(e) => Err(error_of(&e)),
            Ok(url) => {
                let mut key = url.clone();
                key.set_fragment(None);
                match seen.get(&key) {
                    Some(first) => Err(PageError { code: "duplicate", message: format!("the same page as [{first}]") }),
                    None => {
                        seen.insert(key, index);
                        Ok(url)
                    }
                }
            }
        };
        match outcome {
            Ok(url) => to_fetch.push((i, url)),
            Err(error) => {
                let r = failed(index, given, error);
                finished += 1;
                on_page(&r, finished);
                results[i] = Some(r);
            }
        }
    }
    // The error lines come out of the budget first.
    let errors: u32 = results.iter().flatten().map(|r| r.tokens).sum();
    let share = (options.budget.saturating_sub(errors) / to_fetch.len().max(1) as u32).max(MIN_PAGE_BUDGET);
    let global = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut hosts: HashMap<String, Arc<Semaphore>> = HashMap::new();
    let mut tasks = tokio::task::JoinSet::new();
    for (i, url) in to_fetch {
        let index = i + 1;
        let host = url.host_str().unwrap_or_default().to_owned();
        let per_host = hosts.entry(host).or_insert_with(|| Arc::new(Semaphore::new(options.per_host.max(1)))).clone();
        let (global, fetcher, given, timeout) = (global.clone(), fetcher.clone(), taken[i].clone(), options.page_timeout);
        let render = render.clone();
        tasks.spawn(async move {
            let result = async {
                // Neither semaphore is ever closed. A page holds its host's
                // slot while it is fetched, and a slot of the call until it
                // is digested: the host's next page is fetched while this
                // one is digested, and the pages waiting for a core are
                // bounded.
                let host = per_host.acquire_owned().await.ok();
                let _slot = global.acquire_owned().await.ok();
                let fetched = tokio::time::timeout(timeout, fetcher.fetch_page(Request::get(url.clone()))).await;
                drop(host);
                match fetched {
                    Ok(Ok(response)) if response.status >= 400 => failed(
                        index,
                        &given,
                        PageError { code: "nav_failed", message: format!("{} answered HTTP {}", redact(&response.url), response.status) },
                    ),
                    Ok(Ok(response)) => {
                        let r = digest_on_pool(index, &given, response, share).await;
                        match (&render, &r.opened) {
                            (Some(render), Some(url)) if r.ok && r.needs_scripts => rendered(r.clone(), render.digest(url.clone(), index, share).await),
                            _ => r,
                        }
                    }
                    Ok(Err(e)) => failed(index, &given, error_of(&e)),
                    Err(_) => failed(
                        index,
                        &given,
                        PageError { code: "nav_timeout", message: format!("{} did not load within {} s", redact(&url), timeout.as_secs()) },
                    ),
                }
            }
            .await;
            (i, result)
        });
    }
    while let Some(joined) = tasks.join_next().await {
        // A task only ends in a JoinError if it panicked: its slot stays
        // empty and is filled below.
        if let Ok((i, r)) = joined {
            finished += 1;
            on_page(&r, finished);
            results[i] = Some(r);
        }
    }
    let pages = results
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.unwrap_or_else(|| {
                let r = failed(i + 1, &taken[i], PageError { code: "internal", message: "whittle failed on this page (a bug)".into() });
                finished += 1;
                on_page(&r, finished);
                r
            })
        })
        .collect();
    Research { pages, beyond_limit }
}

/// A page's result once Chromium rendered it: its digest from the
/// rendered page, or the static one with a line saying why not.
fn rendered(mut r: PageResult, outcome: Result<whittle_engine::Digest, BrowseError>) -> PageResult {
    match outcome {
        Ok(d) => {
            r.title = d.title;
            r.tokens = d.tokens;
            r.needs_scripts = d.needs_scripts;
            r.digest = d.text;
            r.rendered = true;
        }
        Err(e) => {
            let line = format!("⚠ not rendered in Chromium: {}\n", e.message);
            r.tokens += whittle_engine::fold::tokens::line_cost(0, &line);
            r.digest.push_str(&line);
        }
    }
    r
}

fn error_of(e: &FetchError) -> PageError {
    PageError { code: e.code(), message: e.to_string() }
}

/// A page's result when it failed: its error line as digest.
pub(crate) fn failed(index: usize, given: &str, error: PageError) -> PageResult {
    // Never the URL as given: it may carry a password or a token.
    let shown = match Url::parse(given.trim()) {
        Ok(u) => Url::parse(&redact(&u)).map(|r| whittle_engine::compact_url(&r)).unwrap_or_else(|_| redact(&u)),
        Err(_) => redact_str(given),
    };
    let line = if shown.is_empty() {
        format!("## [{index}] ✗ {}: {}", error.code, error.message)
    } else {
        format!("## [{index}] ✗ {shown} · {}: {}", error.code, error.message)
    };
    PageResult {
        index,
        url: given.to_owned(),
        ok: false,
        title: String::new(),
        tokens: whittle_engine::fold::tokens::line_cost(0, &line),
        digest: line + "\n",
        error: Some(error),
        ..PageResult::default()
    }
}

/// Parses and digests a fetched page on rayon's pool; a panic there is
/// this page's `internal` error, not the call's.
async fn digest_on_pool(index: usize, given: &str, response: Response, budget: u32) -> PageResult {
    let (tx, rx) = tokio::sync::oneshot::channel();
    rayon::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| digest_page(index, &response, budget)));
        let _ = tx.send(outcome.ok().map(|d| (d, response.url)));
    });
    match rx.await {
        Ok(Some((d, url))) => PageResult {
            index,
            url: given.to_owned(),
            final_url: Some(redact(&url)),
            ok: true,
            title: d.title,
            tokens: d.tokens,
            needs_scripts: d.needs_scripts,
            rendered: false,
            digest: d.text,
            opened: Some(url),
            ..PageResult::default()
        },
        _ => failed(index, given, PageError { code: "internal", message: "whittle failed to digest this page (a bug)".into() }),
    }
}

/// The engine's stages a digest needs: parse, cascade (inline styles
/// only), semantics, digest.
pub fn digest_page(index: usize, response: &Response, budget: u32) -> whittle_engine::Digest {
    analyse_page(&response.bytes, Some(response.url.clone()), response.charset.clone())
        .digest(&DigestOptions { index, budget, scripts_ran: false })
}

/// Parses a page as research does (its URL, the charset of its HTTP
/// `Content-Type`) and analyses it with its inline styles only.
pub fn analyse_page(bytes: &[u8], url: Option<Url>, transport_charset: Option<String>) -> whittle_engine::Analysed {
    let parse = ParseOptions { url, transport_charset, ..ParseOptions::default() };
    whittle_engine::Analysed::new(whittle_engine::parse(bytes, &parse), Vec::new())
}
