//! `whittle corpus`: grow and inspect the corpus tests and benches run on.
//!
//! - `add URL [--rendered]` saves a page as it was fetched (or the DOM
//!   Chromium rendered) with its metadata ([`whittle_corpus::saved`]) in
//!   the user's corpus, which the manifest's `user` suite reads.
//! - `list` shows each suite of the manifest: where it is, how many pages.
//! - `generate KIND SIZE` writes a synthetic scale page.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use url::Url;
use whittle_corpus::generate::{self, Kind};
use whittle_corpus::saved::{self, PageMeta};
use whittle_corpus::{Manifest, Root};

use crate::backend::Page as _;
use crate::cli::CliError;
use crate::fetch::{FetchError, Fetcher, Limits, Request, redact};
use crate::load::LoadError;
use crate::policy::NetPolicy;

/// The largest page `corpus add` saves unless told otherwise (64 MiB).
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

/// What `corpus add` needs besides the URL.
#[derive(Debug, Clone)]
pub struct AddOptions {
    /// Save the DOM Chromium rendered (after scripts) instead of the bytes.
    pub rendered: bool,
    /// Where to save (default: [`whittle_corpus::user_dir`]).
    pub dir: Option<PathBuf>,
    /// The most bytes the page may have, decompressed.
    pub max_bytes: usize,
    /// Seconds the fetch (and the render) may take.
    pub timeout: Duration,
    /// The Chromium executable, for `rendered`.
    pub chromium: Option<PathBuf>,
    /// What may be fetched.
    pub policy: Arc<NetPolicy>,
}

/// `whittle corpus add`: fetches `url` and saves it with its metadata;
/// prints where.
pub fn add(url: &str, options: &AddOptions, out: &mut dyn Write) -> Result<(), CliError> {
    let mut url = crate::fetch::parse_url(url).map_err(LoadError::from)?;
    // Credentials in the URL are not kept in the metadata.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LoadError::from(FetchError::Client(e.to_string())))?;
    let limits = Limits { max_page_bytes: options.max_bytes, total_timeout: options.timeout, ..Limits::default() };
    let fetcher = Fetcher::guarded(limits, options.policy.clone()).map_err(LoadError::from)?;
    // The page as the server sends it: its status, headers and bytes (and
    // the checks that it is an HTML page, under the size limit, allowed).
    let response = runtime.block_on(fetcher.fetch_page(Request::get(url.clone()))).map_err(LoadError::from)?;
    if !(200..300).contains(&response.status) {
        return Err(LoadError::Status { url: redact(&response.url), status: response.status }.into());
    }
    let bytes = if options.rendered {
        runtime.block_on(render(&fetcher, &response.url, options))?
    } else {
        response.bytes.clone()
    };
    let encoding = whittle_engine::parse::charset::decode(&bytes, response.charset.as_deref()).encoding.name().to_owned();
    let (headers, dropped_headers) = saved::keep_headers(&response.headers);
    let meta = PageMeta {
        url: url.to_string(),
        final_url: response.url.to_string(),
        redirects: response.redirects.iter().map(Url::to_string).collect(),
        fetched_at: saved::rfc3339(SystemTime::now()),
        status: response.status,
        content_type: response.content_type.clone(),
        charset: response.charset.clone(),
        encoding,
        headers,
        dropped_headers,
        rendered: options.rendered,
        bytes: bytes.len(),
        saved_by: concat!("whittle ", env!("CARGO_PKG_VERSION")).to_owned(),
    };
    let dir = options.dir.clone().unwrap_or_else(whittle_corpus::user_dir);
    let saved = saved::save(&dir, &meta, &bytes).map_err(|e| LoadError::Io { path: dir.display().to_string(), source: e })?;
    writeln!(
        out,
        "saved {} → {} ({} bytes, {}{}, status {}){}",
        redact(&url),
        saved.page.display(),
        meta.bytes,
        meta.encoding,
        if meta.rendered { ", rendered by Chromium" } else { "" },
        meta.status,
        if saved.replaced { "; replaced the earlier save" } else { "" }
    )?;
    writeln!(out, "metadata → {}", saved.meta.display())?;
    Ok(())
}

/// The DOM Chromium rendered at `url`, serialized, in UTF-8 with a byte
/// order mark (which wins over the page's own `<meta charset>`, since the
/// serialization is UTF-8 whatever the page was sent in).
async fn render(fetcher: &Fetcher, url: &Url, options: &AddOptions) -> Result<Vec<u8>, CliError> {
    use crate::backend::cdp::{CdpBackend, CdpPage, ChromiumOptions};
    let chromium = CdpBackend::new(ChromiumOptions {
        executable: options.chromium.clone(),
        nav_timeout: options.timeout,
        policy: Some(options.policy.clone()),
        ..ChromiumOptions::default()
    });
    let context = crate::backend::SessionContext::new(fetcher.clone(), 0, whittle_engine::Viewport::default());
    let failed = |e: crate::backend::BrowseError| CliError::Browser(format!("cannot render {} in Chromium: {e}", redact(url)));
    let mut page = CdpPage::open(chromium, &context).await.map_err(failed)?;
    let html = match page.navigate(crate::backend::Navigation::To(url.clone()), false).await {
        Ok(_) => serialize_dom(&page).await.map_err(|e| CliError::Browser(format!("cannot read the DOM of {}: {e}", redact(url)))),
        Err(e) => Err(failed(e)),
    };
    page.close().await;
    let html = html?;
    if html.len() > options.max_bytes {
        return Err(LoadError::TooLarge { what: redact(url), limit: options.max_bytes }.into());
    }
    let mut bytes = Vec::with_capacity(html.len() + 3);
    bytes.extend_from_slice(b"\xEF\xBB\xBF");
    bytes.extend_from_slice(html.as_bytes());
    Ok(bytes)
}

/// The document's doctype and root element as markup.
async fn serialize_dom(page: &crate::backend::cdp::CdpPage) -> Result<String, String> {
    const SERIALIZE: &str = "(() => { const d = document.doctype; \
        const head = d ? '<!DOCTYPE ' + d.name + (d.publicId ? ' PUBLIC \"' + d.publicId + '\"' : '') \
        + (d.systemId ? (d.publicId ? '' : ' SYSTEM') + ' \"' + d.systemId + '\"' : '') + '>\\n' : ''; \
        return head + (document.documentElement ? document.documentElement.outerHTML : ''); })()";
    let result = tokio::time::timeout(Duration::from_secs(30), page.cdp().evaluate(SERIALIZE))
        .await
        .map_err(|_| "Chromium did not answer within 30 s".to_owned())?
        .map_err(|e| e.to_string())?;
    result.into_value::<String>().map_err(|e| e.to_string())
}

/// `whittle corpus list`: each suite of the manifest, where its pages are
/// and how many there are.
pub fn list(out: &mut dyn Write) -> Result<(), CliError> {
    let manifest = Manifest::builtin();
    for suite in &manifest.suites {
        let place = match suite.root.dir() {
            Some(dir) => format!("{} pages in {}", suite.pages().len(), dir.join(pattern_dir(&suite.pattern)).display()),
            None => match suite.root {
                Root::Shared => format!(
                    "absent: the shared corpus is not at ${} or {}",
                    whittle_corpus::SHARED_ENV,
                    whittle_corpus::workspace_dir().join("../shared/corpus").display()
                ),
                _ => format!(
                    "absent: nothing saved yet in {} (`whittle corpus add URL`; ${} moves it)",
                    whittle_corpus::user_dir().display(),
                    whittle_corpus::manifest::USER_ENV
                ),
            },
        };
        let kind = if suite.real { "real pages" } else { "test pages" };
        writeln!(out, "{:<30} {:<6} {kind:<10}  {place}", suite.name, suite.root.name())?;
        writeln!(out, "{:<30} {}", "", suite.about)?;
    }
    Ok(())
}

/// The folders a pattern starts with, before its first wildcard.
fn pattern_dir(pattern: &str) -> PathBuf {
    let mut dir = PathBuf::new();
    let segments: Vec<&str> = pattern.split('/').collect();
    for seg in &segments[..segments.len().saturating_sub(1)] {
        if seg.contains('*') {
            break;
        }
        dir.push(seg);
    }
    dir
}

/// A size for `corpus generate`: digits with an optional `k` or `m`
/// (KiB, MiB).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.strip_suffix("ib").or_else(|| t.strip_suffix('b')).unwrap_or(&t);
    let (digits, unit) = match t.strip_suffix('k') {
        Some(d) => (d, 1024),
        None => match t.strip_suffix('m') {
            Some(d) => (d, 1024 * 1024),
            None => (t, 1),
        },
    };
    digits
        .trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| format!("size {s:?}: give a number, optionally with k or m (e.g. 500k, 20m)"))
}

/// `whittle corpus generate`: a synthetic page to `output` (a file) or
/// `out`.
pub fn generate(kind: &str, size: &str, output: Option<&Path>, out: &mut dyn Write) -> Result<(), CliError> {
    let kind: Kind = kind.parse().map_err(|e: generate::GenerateError| CliError::Usage(e.to_string()))?;
    let size = parse_size(size).map_err(CliError::Usage)?;
    let page = generate::generate(kind, size).map_err(|e| CliError::Usage(e.to_string()))?;
    match output {
        Some(path) => {
            std::fs::write(path, page.as_bytes())
                .map_err(|e| LoadError::Io { path: path.display().to_string(), source: e })?;
            writeln!(out, "wrote {} ({} bytes, {kind} {size} {})", path.display(), page.len(), kind.unit())?;
        }
        None => out.write_all(page.as_bytes())?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("10k"), Ok(10 * 1024));
        assert_eq!(parse_size("20MB"), Ok(20 * 1024 * 1024));
        assert_eq!(parse_size("2MiB"), Ok(2 * 1024 * 1024));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-3").is_err());
        assert!(parse_size("99999999999999999999m").is_err());
    }

    #[test]
    fn pattern_dirs_stop_at_wildcards() {
        assert_eq!(pattern_dir("readability/*/source.html"), PathBuf::from("readability"));
        assert_eq!(pattern_dir("article-extraction-benchmark/html/*.html.gz"), PathBuf::from("article-extraction-benchmark/html"));
        assert_eq!(pattern_dir("*.html"), PathBuf::new());
    }
}
