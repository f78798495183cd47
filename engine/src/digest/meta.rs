//! What a page says about itself: title, byline, publication date, site
//! name — from its `<meta>` tags (Open Graph, article, Dublin Core,
//! `itemprop`), `<time>` and `rel=author`, in that order of trust.

use html5ever::local_name;

use crate::dom::{Document, NodeId};
use crate::text::one_line;

/// A byline or site name, in chars: longer ones are not bylines.
const MAX_BYLINE_CHARS: usize = 80;

/// A page's own facts; absent ones are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMeta {
    /// `og:title`, else `<title>`, else the first `h1`.
    pub title: String,
    /// Who wrote it.
    pub byline: Option<String>,
    /// When it was published: `YYYY-MM-DD` when the page gives an ISO date,
    /// else as written.
    pub published: Option<String>,
    /// The site's name.
    pub site: Option<String>,
    /// The language it declares: the root element's `lang` (as written,
    /// e.g. `en-GB`), else `<meta http-equiv=content-language>`.
    pub language: Option<String>,
}

/// Reads the page's facts (one walk).
pub fn page_meta(doc: &Document) -> PageMeta {
    let mut og_title = None;
    let (mut author, mut published, mut site, mut time, mut rel_author, mut h1) = (None, None, None, None, None, None);
    let (mut lang, mut content_language) = (None, None);
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(el) = doc.element(id).filter(|e| e.is_html_element()) else { continue };
        let name = el.local_name();
        if *name == local_name!("html") && lang.is_none() {
            lang = el.attr("lang").or_else(|| el.attr("xml:lang")).map(one_line);
        }
        if *name == local_name!("meta") {
            if content_language.is_none() && el.attr("http-equiv").is_some_and(|h| h.trim().eq_ignore_ascii_case("content-language")) {
                // The first of a comma-separated list, as HTML's pragma takes it.
                content_language = el.attr("content").and_then(|c| c.split(',').next()).map(one_line);
            }
            let key = el.attr("property").or_else(|| el.attr("name")).or_else(|| el.attr("itemprop")).unwrap_or("");
            let value = || el.attr("content").map(one_line).filter(|v| !v.is_empty());
            match key.to_ascii_lowercase().as_str() {
                "og:title" | "twitter:title" if og_title.is_none() => og_title = value(),
                "author" | "article:author" | "dc.creator" | "byl" | "parsely-author" if author.is_none() => {
                    author = value().filter(|v| !v.starts_with("http"));
                }
                "article:published_time" | "datepublished" | "date" | "pubdate" | "dc.date" | "parsely-pub-date"
                    if published.is_none() =>
                {
                    published = value();
                }
                "og:site_name" | "application-name" if site.is_none() => site = value(),
                _ => {}
            }
        } else if *name == local_name!("time") && time.is_none() {
            time = el.attr("datetime").map(one_line).or_else(|| Some(one_line(&doc.text_content(id))));
        } else if *name == local_name!("a") && rel_author.is_none() && el.attr("rel").is_some_and(|r| r.contains("author")) {
            rel_author = Some(one_line(&doc.text_content(id)));
        } else if *name == local_name!("h1") && h1.is_none() {
            h1 = Some(one_line(&doc.text_content(id)));
        }
    }
    let title = og_title.or_else(|| Some(one_line(&doc.title())).filter(|t| !t.is_empty())).or(h1).unwrap_or_default();
    let short = |s: Option<String>| s.filter(|s| !s.is_empty() && s.chars().count() <= MAX_BYLINE_CHARS);
    PageMeta {
        title,
        byline: short(author.or(rel_author)).map(|a| if a.to_ascii_lowercase().starts_with("by ") { a } else { format!("by {a}") }),
        published: published.or(time).filter(|d| !d.is_empty()).map(|d| iso_date(&d)),
        site: short(site),
        language: lang.or(content_language).filter(|l| !l.is_empty() && l.len() <= MAX_LANGUAGE_CHARS),
    }
}

/// The longest language tag kept (BCP 47 tags are short; more is junk).
const MAX_LANGUAGE_CHARS: usize = 35;

/// `2019-11-20T08:00:00Z` → `2019-11-20`; anything else as it is.
fn iso_date(d: &str) -> String {
    let b = d.as_bytes();
    let iso = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    if iso { d[..10].to_owned() } else { crate::text::truncate_chars(d, 40) }
}

/// A page's `<meta http-equiv="refresh">`: after `seconds`, the browser
/// loads `url` (the page itself when the content names no URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refresh {
    /// The delay, in whole seconds (a fraction is ignored, as browsers do).
    pub seconds: u64,
    /// Where to, resolved against the page's base URL.
    pub url: url::Url,
}

/// The page's declarative refresh: the first `<meta http-equiv=refresh>`
/// whose content reads as HTML's "shared declarative refresh steps" read
/// it (`5`, `0; url=/next`, `0;URL='/next'`). `None` without one, or
/// without a URL to resolve against.
pub fn refresh(doc: &Document) -> Option<Refresh> {
    doc.descendants(NodeId::DOCUMENT).find_map(|id| {
        let el = doc.element(id).filter(|e| e.is_html_element() && *e.local_name() == local_name!("meta"))?;
        if !el.attr("http-equiv")?.trim().eq_ignore_ascii_case("refresh") {
            return None;
        }
        let (seconds, target) = parse_refresh(el.attr("content")?)?;
        let url = match target {
            Some(t) => doc.resolve_url(t)?,
            None => doc.url()?.clone(),
        };
        Some(Refresh { seconds, url })
    })
}

/// The delay and the URL text of a refresh's `content` (HTML's shared
/// declarative refresh steps); `None` when it is not a refresh.
fn parse_refresh(content: &str) -> Option<(u64, Option<&str>)> {
    let ws = |c: char| c.is_ascii_whitespace();
    let s = content.trim_start_matches(ws);
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 && !s.starts_with('.') {
        return None;
    }
    // Past u64, the delay is as good as never.
    let seconds = if digits == 0 { 0 } else { s[..digits].parse().unwrap_or(u64::MAX) };
    let s = s[digits..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if s.is_empty() {
        return Some((seconds, None));
    }
    if !s.starts_with([';', ',']) && !s.starts_with(ws) {
        return None;
    }
    let s = s.trim_start_matches(ws);
    let s = s.strip_prefix([';', ',']).unwrap_or(s).trim_start_matches(ws);
    if s.is_empty() {
        return Some((seconds, None));
    }
    // `url=` is optional: without it (or only partly there), the rest is
    // the URL.
    let mut url = s;
    if let Some(rest) = s.get(..3).filter(|p| p.eq_ignore_ascii_case("url")).map(|_| s[3..].trim_start_matches(ws))
        && let Some(rest) = rest.strip_prefix('=')
    {
        url = rest.trim_start_matches(ws);
    }
    if let Some(quote) = url.chars().next().filter(|c| matches!(c, '\'' | '"')) {
        url = &url[1..];
        if let Some(end) = url.find(quote) {
            url = &url[..end];
        }
    }
    Some((seconds, Some(url)))
}

#[cfg(test)]
mod tests {
    use super::parse_refresh;

    #[test]
    fn refresh_content_reads_as_browsers_read_it() {
        assert_eq!(parse_refresh("5"), Some((5, None)));
        assert_eq!(parse_refresh(" 0; url=https://example.com/next"), Some((0, Some("https://example.com/next"))));
        assert_eq!(parse_refresh("0;URL='/next' trailing"), Some((0, Some("/next"))));
        assert_eq!(parse_refresh("1, url = \"/a b\""), Some((1, Some("/a b"))));
        assert_eq!(parse_refresh("0 /plain"), Some((0, Some("/plain"))));
        assert_eq!(parse_refresh("2.5; /later"), Some((2, Some("/later"))));
        assert_eq!(parse_refresh(".5;url=/x"), Some((0, Some("/x"))));
        assert_eq!(parse_refresh("0; urn:x"), Some((0, Some("urn:x"))));
        assert_eq!(parse_refresh("0;"), Some((0, None)));
        assert_eq!(parse_refresh("99999999999999999999999;url=/x"), Some((u64::MAX, Some("/x"))));
        assert_eq!(parse_refresh("soon"), None);
        assert_eq!(parse_refresh("5x"), None);
        assert_eq!(parse_refresh(""), None);
        // Multi-byte text right after the delay or the `url` prefix.
        assert_eq!(parse_refresh("0;ü"), Some((0, Some("ü"))));
        assert_eq!(parse_refresh("0;uü=x"), Some((0, Some("uü=x"))));
    }
}
