//! Pages saved by `whittle corpus add`: each page's bytes as they were
//! fetched (or the DOM Chromium rendered, serialized) in `<name>.html`, and
//! beside it `<name>.json`, a [`PageMeta`] saying where, when and how.
//!
//! Headers that carry credentials (`Set-Cookie`, anything naming a token,
//! a session, a secret or authorization) are left out of the metadata, by
//! name, so a saved corpus can be shared.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Where and how a saved page was fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageMeta {
    /// The URL asked for.
    pub url: String,
    /// The URL that answered, after redirects.
    pub final_url: String,
    /// Every URL that answered with a redirect, in order.
    #[serde(default)]
    pub redirects: Vec<String>,
    /// When, in RFC 3339 (UTC).
    pub fetched_at: String,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The charset `Content-Type` named, if any.
    pub charset: Option<String>,
    /// The encoding the bytes decode with, as whittle's parser sniffs it
    /// (BOM, `Content-Type`, `<meta>`, else UTF-8 or windows-1252).
    pub encoding: String,
    /// The final response's headers, in order, minus those that carry
    /// credentials.
    pub headers: Vec<(String, String)>,
    /// The names of the headers left out.
    #[serde(default)]
    pub dropped_headers: Vec<String>,
    /// Whether the file holds the DOM Chromium rendered (after scripts,
    /// serialized, UTF-8) rather than the bytes the server sent.
    pub rendered: bool,
    /// The file's size.
    pub bytes: usize,
    /// What saved it (`whittle 0.1.0`).
    pub saved_by: String,
}

/// Whether a response header may carry credentials: it is left out of
/// the metadata.
pub fn is_credential_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("set-cookie")
        || ["authorization", "token", "session", "secret", "api-key", "apikey"].iter().any(|w| name.contains(w))
}

/// Splits headers into those kept and the names of those left out.
pub fn keep_headers(headers: &[(String, String)]) -> (Vec<(String, String)>, Vec<String>) {
    let mut kept = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for (name, value) in headers {
        if is_credential_header(name) {
            let lower = name.to_ascii_lowercase();
            if !dropped.contains(&lower) {
                dropped.push(lower);
            }
        } else {
            kept.push((name.clone(), value.clone()));
        }
    }
    (kept, dropped)
}

/// The file name (without extension) of a saved page: its host and path
/// made safe for every file system, then a hash of the whole URL so
/// different queries differ, and `-rendered` for Chromium's DOM. The same
/// URL always gets the same name: adding it again replaces it.
pub fn file_stem(url: &str, rendered: bool) -> String {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let without_query = without_scheme.split(['?', '#']).next().unwrap_or_default();
    let mut stem = String::new();
    for c in without_query.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            stem.push(c.to_ascii_lowercase());
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
        if stem.len() >= 60 {
            break;
        }
    }
    let stem = stem.trim_matches(['-', '.']);
    let stem = if stem.is_empty() { "page" } else { stem };
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{stem}-{:08x}{}", hash as u32, if rendered { "-rendered" } else { "" })
}

/// Where a page was saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The page's file.
    pub page: PathBuf,
    /// Its metadata file.
    pub meta: PathBuf,
    /// Whether an earlier save of the same URL was replaced.
    pub replaced: bool,
}

/// Saves a page and its metadata in `dir` (created if needed). Each file
/// is written beside its final name and renamed, so a failed save leaves
/// no half-written page.
pub fn save(dir: &Path, meta: &PageMeta, bytes: &[u8]) -> std::io::Result<Saved> {
    std::fs::create_dir_all(dir)?;
    let stem = file_stem(&meta.url, meta.rendered);
    let page = dir.join(format!("{stem}.html"));
    let meta_path = dir.join(format!("{stem}.json"));
    let replaced = page.exists();
    let json = serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?;
    write_then_rename(&page, bytes)?;
    write_then_rename(&meta_path, &json)?;
    Ok(Saved { page, meta: meta_path, replaced })
}

fn write_then_rename(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The metadata saved beside `page` (`<name>.json`), if there is any; an
/// error names the file when it cannot be read.
pub fn meta_of(page: &Path) -> Option<Result<PageMeta, String>> {
    let name = page.file_name()?.to_string_lossy();
    let stem = name.strip_suffix(".html.gz").or_else(|| name.strip_suffix(".html"))?;
    let path = page.with_file_name(format!("{stem}.json"));
    let text = std::fs::read_to_string(&path).ok()?;
    Some(serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())))
}

/// `time` in RFC 3339, UTC, to the second (`2026-11-30T15:04:05Z`).
pub fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Days to a civil date (proleptic Gregorian), counting in 400-year eras
    // that start on 1 March so leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_796_051_045)), "2026-11-30T15:04:05Z");
    }

    #[test]
    fn names_are_safe_and_stable() {
        let a = file_stem("https://Example.com/a/b?q=1", false);
        assert!(a.starts_with("example.com-a-b-"), "{a}");
        assert_ne!(a, file_stem("https://example.com/a/b?q=2", false));
        assert_eq!(a, file_stem("https://Example.com/a/b?q=1", false));
        assert!(file_stem("https://x.org/", true).ends_with("-rendered"));
        let odd = file_stem("https://../../etc/passwd", false);
        assert!(!odd.contains('/') && !odd.starts_with('.'), "{odd}");
        assert!(file_stem(&format!("https://x.org/{}", "a".repeat(500)), false).len() < 80);
    }

    #[test]
    fn credentials_stay_out_of_the_metadata() {
        let headers = vec![
            ("Content-Type".to_owned(), "text/html".to_owned()),
            ("Set-Cookie".to_owned(), "sid=abc".to_owned()),
            ("X-Auth-Token".to_owned(), "t".to_owned()),
            ("Set-Cookie".to_owned(), "b=c".to_owned()),
        ];
        let (kept, dropped) = keep_headers(&headers);
        assert_eq!(kept, vec![("Content-Type".to_owned(), "text/html".to_owned())]);
        assert_eq!(dropped, ["set-cookie", "x-auth-token"]);
    }

    #[test]
    fn saved_pages_come_back_with_their_metadata() {
        let dir = std::env::temp_dir().join(format!("whittle-saved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let meta = PageMeta {
            url: "http://127.0.0.1:1/a".into(),
            final_url: "http://127.0.0.1:1/b".into(),
            redirects: vec!["http://127.0.0.1:1/a".into()],
            fetched_at: rfc3339(SystemTime::now()),
            status: 200,
            content_type: Some("text/html; charset=iso-8859-1".into()),
            charset: Some("iso-8859-1".into()),
            encoding: "windows-1252".into(),
            headers: vec![],
            dropped_headers: vec![],
            rendered: false,
            bytes: 3,
            saved_by: "test".into(),
        };
        let saved = save(&dir, &meta, b"<p>").expect("save");
        assert!(!saved.replaced);
        assert_eq!(std::fs::read(&saved.page).expect("page"), b"<p>");
        assert_eq!(meta_of(&saved.page), Some(Ok(meta.clone())));
        assert!(save(&dir, &meta, b"<p>2").expect("again").replaced);
        std::fs::write(&saved.meta, "{").expect("corrupt");
        assert!(matches!(meta_of(&saved.page), Some(Err(e)) if e.contains(".json")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
