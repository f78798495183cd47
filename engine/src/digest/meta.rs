//! What a page says about itself: title, byline, publication date, site
//! name — from its `<meta>` tags (Open Graph, article, Dublin Core,
//! `itemprop`), `<time>` and `rel=author`, in that order of trust.

use html5ever::local_name;

use crate::dom::{Document, NodeId};
use crate::render::one_line;

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
}

/// Reads the page's facts (one walk).
pub fn page_meta(doc: &Document) -> PageMeta {
    let mut og_title = None;
    let (mut author, mut published, mut site, mut time, mut rel_author, mut h1) = (None, None, None, None, None, None);
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(el) = doc.element(id).filter(|e| e.is_html_element()) else { continue };
        let name = el.local_name();
        if *name == local_name!("meta") {
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
    }
}

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
