//! Loading a page for the CLI: a file, standard input, or an http(s) URL
//! (with its linked stylesheets) through one [`Fetcher`], so the
//! stylesheets get the page's cookies.

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use url::Url;
use whittle_engine::{CascadeOptions, MAX_IMPORT_DEPTH, StylesheetText, stylesheet_imports};

use crate::fetch::{FetchError, Fetcher, Limits, Request, decode_css, redact};
use crate::policy::NetPolicy;

/// The most bytes a page may have.
pub const MAX_PAGE_BYTES: usize = 64 * 1024 * 1024;
/// The most bytes one stylesheet may have.
pub const MAX_SHEET_BYTES: usize = 8 * 1024 * 1024;
/// How many linked stylesheets are fetched at most.
pub const MAX_SHEETS: usize = 32;

/// Why a page could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Reading a file or standard input failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// What was read.
        path: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The argument is neither a readable file nor a URL whittle fetches.
    #[error("invalid URL {0:?}: {1}")]
    InvalidUrl(String, String),
    /// Fetching the URL failed (network, timeout, redirects, size, type).
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The server answered with an error status (the CLI shows no error
    /// pages).
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The page is larger than whittle reads.
    #[error("{what} is larger than {limit} bytes")]
    TooLarge {
        /// What was too large.
        what: String,
        /// The limit.
        limit: usize,
    },
}

/// A loaded page.
#[derive(Debug)]
pub struct Page {
    /// Its bytes, undecoded.
    pub bytes: Vec<u8>,
    /// Its URL (final, after redirects), if it has one.
    pub url: Option<Url>,
    /// The charset from `Content-Type`, if any.
    pub charset: Option<String>,
}

/// Loads pages and their stylesheets for one CLI run. The HTTP side (a
/// runtime and a [`Fetcher`] with the CLI's limits) starts on first use.
#[derive(Debug)]
pub struct Loader {
    http: Option<(tokio::runtime::Runtime, Fetcher)>,
    policy: Arc<NetPolicy>,
}

impl Loader {
    /// A loader that has fetched nothing yet and fetches what `policy`
    /// allows.
    pub fn new(policy: Arc<NetPolicy>) -> Loader {
        Loader { http: None, policy }
    }

    fn http(&mut self) -> Result<&(tokio::runtime::Runtime, Fetcher), FetchError> {
        let http = match self.http.take() {
            Some(http) => http,
            None => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| FetchError::Client(e.to_string()))?;
                let limits = Limits {
                    max_page_bytes: MAX_PAGE_BYTES,
                    max_sheet_bytes: MAX_SHEET_BYTES,
                    max_sheets: MAX_SHEETS,
                    total_timeout: Duration::from_secs(30),
                    ..Limits::default()
                };
                (runtime, Fetcher::guarded(limits, self.policy.clone())?)
            }
        };
        Ok(self.http.insert(http))
    }

    /// Loads `source`: `-` for standard input, an `http(s)://` or `file:`
    /// URL, or a path. An HTTP error status is an error here.
    pub fn load(&mut self, source: &str) -> Result<Page, LoadError> {
        if source == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_PAGE_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| LoadError::Io { path: "standard input".into(), source: e })?;
            if bytes.len() > MAX_PAGE_BYTES {
                return Err(LoadError::TooLarge { what: "standard input".into(), limit: MAX_PAGE_BYTES });
            }
            return Ok(Page { bytes, url: None, charset: None });
        }
        let Some(scheme) = url_scheme(source) else { return load_file(Path::new(source)) };
        if scheme != "http" && scheme != "https" && scheme != "file" {
            return Err(LoadError::InvalidUrl(source.into(), format!("whittle fetches http, https and file URLs, not {scheme}:")));
        }
        let url = Url::parse(source).map_err(|e| LoadError::InvalidUrl(source.into(), e.to_string()))?;
        if url.scheme() == "file" {
            let path = url.to_file_path().map_err(|()| LoadError::InvalidUrl(source.into(), "not a local file path".into()))?;
            return load_file(&path);
        }
        let (runtime, fetcher) = self.http()?;
        let response = runtime.block_on(fetcher.fetch_page(Request::get(url)))?;
        if !(200..300).contains(&response.status) {
            return Err(LoadError::Status { url: redact(&response.url), status: response.status });
        }
        Ok(Page { bytes: response.bytes, url: Some(response.url), charset: response.charset })
    }

    /// Fetches the stylesheets a page names (`http(s)` in parallel, `file`
    /// from disk) and the sheets they `@import`, level by level. With
    /// `remote` false nothing is fetched from the network: `http(s)` sheets
    /// are skipped and counted in one note. Failures are skipped too: the
    /// page renders without that sheet, and the failure is reported. The
    /// cascade finds the sheets by URL.
    pub fn linked_stylesheets(&mut self, hrefs: &[Url], remote_allowed: bool) -> (Vec<StylesheetText>, Vec<String>) {
        let options = CascadeOptions::default();
        let (mut sheets, mut problems) = (Vec::new(), Vec::new());
        let mut tried: HashSet<Url> = HashSet::new();
        let mut level: Vec<Url> = hrefs.iter().filter(|u| tried.insert((*u).clone())).cloned().collect();
        let mut skipped = 0usize;
        for _ in 0..=MAX_IMPORT_DEPTH {
            level.truncate(MAX_SHEETS.saturating_sub(sheets.len()));
            if level.is_empty() {
                break;
            }
            // Remote sheets come with their own remote imports.
            let mut remote: Vec<Url> = level.iter().filter(|u| matches!(u.scheme(), "http" | "https")).cloned().collect();
            if !remote_allowed {
                skipped += remote.len();
                remote.clear();
            }
            if !remote.is_empty() {
                let (fetched, failed) = match self.http() {
                    Ok((runtime, fetcher)) => runtime.block_on(fetcher.fetch_stylesheets(&remote, &options)),
                    Err(e) => (Vec::new(), vec![format!("stylesheets skipped: {e}")]),
                };
                problems.extend(failed);
                for sheet in &fetched {
                    tried.extend(sheet.url.as_deref().and_then(|u| Url::parse(u).ok()));
                }
                sheets.extend(fetched);
            }
            let mut next = Vec::new();
            for url in level.iter().filter(|u| u.scheme() == "file") {
                match url.to_file_path().ok().and_then(|p| std::fs::read(p).ok()) {
                    Some(bytes) if bytes.len() <= MAX_SHEET_BYTES => {
                        let sheet = StylesheetText { url: Some(url.to_string()), text: decode_css(&bytes, None) };
                        next.extend(stylesheet_imports(&sheet, &options).into_iter().filter(|u| tried.insert(u.clone())));
                        sheets.push(sheet);
                    }
                    _ => problems.push(format!("stylesheet {url} could not be read")),
                }
            }
            level = next;
        }
        if skipped > 0 {
            let s = if skipped == 1 { "" } else { "s" };
            problems.push(format!("{skipped} stylesheet{s} on the web not fetched (--fetch-stylesheets fetches them)"));
        }
        (sheets, problems)
    }
}

/// The scheme of something that looks like an absolute URL (`name:` with a
/// letter-started name of two or more characters, so `C:\x` stays a path).
fn url_scheme(s: &str) -> Option<String> {
    let (scheme, _) = s.split_once(':')?;
    let ok = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| scheme.to_ascii_lowercase())
}

fn load_file(path: &Path) -> Result<Page, LoadError> {
    let io = |e| LoadError::Io { path: path.display().to_string(), source: e };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(LoadError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other("is a directory"),
        });
    }
    if meta.len() > MAX_PAGE_BYTES as u64 {
        return Err(LoadError::TooLarge { what: path.display().to_string(), limit: MAX_PAGE_BYTES });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let url = std::fs::canonicalize(path).ok().and_then(|p| Url::from_file_path(p).ok());
    Ok(Page { bytes, url, charset: None })
}

impl LoadError {
    /// The error code for this failure (docs/mcp.md#error-codes).
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::InvalidUrl(..) => "invalid_url",
            LoadError::TooLarge { .. } => "too_large",
            LoadError::Fetch(e) => e.code(),
            LoadError::Io { .. } | LoadError::Status { .. } => "nav_failed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        assert_eq!(url_scheme("https://x.test/"), Some("https".into()));
        assert_eq!(url_scheme("corpus/fixtures/a.html"), None);
        assert_eq!(url_scheme("C:\\x"), None);
        assert_eq!(url_scheme("ftp://x"), Some("ftp".into()));
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(Loader::new(Arc::new(NetPolicy::public())).load("/nonexistent/whittle/page.html"), Err(LoadError::Io { .. })));
        assert!(matches!(Loader::new(Arc::new(NetPolicy::public())).load("ftp://example.test/"), Err(LoadError::InvalidUrl(..))));
    }
}
