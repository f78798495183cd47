//! Loading a page for the CLI: a file, standard input, or an http(s) URL
//! (with its linked stylesheets, fetched in parallel and bounded).

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use url::Url;
use whittle_engine::StylesheetText;

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
    /// The request failed (DNS, connection, TLS, timeout, redirects).
    #[error("cannot fetch {url}: {message}")]
    Network {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The response is not a page (an image, a PDF, an archive…).
    #[error("{url} is not an HTML page (Content-Type: {content_type})")]
    NotHtml {
        /// The URL.
        url: String,
        /// What it is.
        content_type: String,
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

/// Loads `source`: `-` for standard input, an `http(s)://` URL, or a path.
pub fn load(source: &str) -> Result<Page, LoadError> {
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
    if let Some(scheme) = url_scheme(source) {
        if scheme != "http" && scheme != "https" && scheme != "file" {
            return Err(LoadError::InvalidUrl(source.into(), format!("whittle fetches http, https and file URLs, not {scheme}:")));
        }
        let url = Url::parse(source).map_err(|e| LoadError::InvalidUrl(source.into(), e.to_string()))?;
        if url.scheme() == "file" {
            let path = url.to_file_path().map_err(|()| LoadError::InvalidUrl(source.into(), "not a local file path".into()))?;
            return load_file(&path);
        }
        return fetch_page(&url);
    }
    load_file(Path::new(source))
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

fn client() -> Result<reqwest::Client, String> {
    // reqwest is built without a default TLS provider; pick ring once.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("whittle/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::limited(10))
        .build()
        .map_err(|e| e.to_string())
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())
}

fn fetch_page(url: &Url) -> Result<Page, LoadError> {
    let net = |message: String| LoadError::Network { url: url.to_string(), message };
    let rt = runtime().map_err(net)?;
    let client = client().map_err(net)?;
    rt.block_on(async {
        let (bytes, final_url, charset) = fetch(&client, url, MAX_PAGE_BYTES, true).await?;
        Ok(Page { bytes, url: Some(final_url), charset })
    })
}

/// GETs `url` with a size cap; gives the body, the final URL and the
/// `Content-Type` charset.
async fn fetch(
    client: &reqwest::Client,
    url: &Url,
    limit: usize,
    expect_html: bool,
) -> Result<(Vec<u8>, Url, Option<String>), LoadError> {
    let net = |e: reqwest::Error| LoadError::Network { url: url.to_string(), message: error_chain(&e) };
    let mut response = client.get(url.clone()).send().await.map_err(net)?;
    let status = response.status();
    if !status.is_success() {
        return Err(LoadError::Status { url: url.to_string(), status: status.as_u16() });
    }
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(LoadError::TooLarge { what: url.to_string(), limit });
    }
    let final_url = response.url().clone();
    let content_type =
        response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if expect_html && let Some(ct) = content_type.as_deref().filter(|ct| !is_markup(ct)) {
        return Err(LoadError::NotHtml { url: url.to_string(), content_type: ct.to_owned() });
    }
    let charset = content_type
        .as_deref()
        .and_then(whittle_engine::parse::charset::charset_from_content_type)
        .map(str::to_owned);
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(net)? {
        if body.len() + chunk.len() > limit {
            return Err(LoadError::TooLarge { what: url.to_string(), limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, final_url, charset))
}

/// Whether a `Content-Type` is something whittle reads as a page: HTML,
/// XHTML, XML, plain text (rendered as text).
fn is_markup(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence.is_empty()
        || essence.starts_with("text/")
        || essence.contains("html")
        || essence.contains("xml")
}

impl LoadError {
    /// The protocol's error code for this failure (PROTOCOL §4).
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::InvalidUrl(..) => "invalid_url",
            LoadError::TooLarge { .. } => "too_large",
            LoadError::Network { message, .. } if message.contains("timed out") => "nav_timeout",
            LoadError::Io { .. } | LoadError::Network { .. } | LoadError::Status { .. } | LoadError::NotHtml { .. } => {
                "nav_failed"
            }
        }
    }
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

/// Fetches the stylesheets a page links to (`http(s)` in parallel, `file`
/// from disk). Failures are skipped: the page renders without that sheet,
/// and the failure is reported.
pub fn linked_stylesheets(hrefs: &[Url]) -> (Vec<StylesheetText>, Vec<String>) {
    let mut sheets = Vec::new();
    let mut problems = Vec::new();
    let mut remote = Vec::new();
    for url in hrefs.iter().take(MAX_SHEETS) {
        match url.scheme() {
            "file" => match url.to_file_path().ok().and_then(|p| std::fs::read(p).ok()) {
                Some(bytes) if bytes.len() <= MAX_SHEET_BYTES => sheets.push(StylesheetText {
                    url: Some(url.to_string()),
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                }),
                _ => problems.push(format!("stylesheet {url} could not be read")),
            },
            "http" | "https" => remote.push(url.clone()),
            _ => {}
        }
    }
    if !remote.is_empty() {
        match (runtime(), client()) {
            (Ok(rt), Ok(client)) => {
                let results = rt.block_on(async {
                    let tasks: Vec<_> = remote
                        .iter()
                        .map(|u| {
                            let client = client.clone();
                            let u = u.clone();
                            async move { (u.clone(), fetch(&client, &u, MAX_SHEET_BYTES, false).await) }
                        })
                        .collect();
                    futures_join_all(tasks).await
                });
                for (url, result) in results {
                    match result {
                        Ok((bytes, _, _)) => sheets.push(StylesheetText {
                            url: Some(url.to_string()),
                            text: String::from_utf8_lossy(&bytes).into_owned(),
                        }),
                        Err(e) => problems.push(format!("stylesheet skipped: {e}")),
                    }
                }
            }
            (Err(e), _) | (_, Err(e)) => problems.push(format!("stylesheets skipped: {e}")),
        }
    }
    (sheets, problems)
}

/// Runs futures concurrently on the current runtime and collects their
/// results in order.
async fn futures_join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output>
where
    F: Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        if let Ok(v) = h.await {
            out.push(v);
        }
    }
    out
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
        assert!(matches!(load("/nonexistent/whittle/page.html"), Err(LoadError::Io { .. })));
        assert!(matches!(load("ftp://example.test/"), Err(LoadError::InvalidUrl(..))));
    }
}
