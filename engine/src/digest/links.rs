//! The links a results page offers: what `research` opens when it is given
//! no URLs.

use html5ever::local_name;
use url::Url;

use crate::dom::{Document, NodeData};
use crate::semantics::Semantics;
use crate::style::Styles;
use crate::text::collapse_whitespace;

use super::content::is_furniture;

/// A result's link text has at least this many chars and two words (a
/// headline or a product's name, not `Next`, `2` or `Images`).
const MIN_RESULT_CHARS: usize = 8;

/// The page's result links, in order, at most `limit`: visible `http(s)`
/// links outside navigation, banner, footer, asides, menus and parts named
/// like furniture (ads, share bars, related links), whose text reads like a
/// headline or a name; de-duplicated by URL (fragment ignored), never the page
/// itself or an anchor on it.
pub fn result_links(doc: &Document, styles: &Styles, sem: &Semantics, limit: usize) -> Vec<Url> {
    let page = doc.url().map(|u| without_fragment(u.clone()));
    let mut out: Vec<Url> = Vec::new();
    let Some(root) = doc.root_element() else { return out };
    let mut walk = doc.descendants(root);
    while let Some(id) = walk.next() {
        if out.len() >= limit {
            break;
        }
        let NodeData::Element(el) = &doc.node(id).data else { continue };
        if sem.is_hidden(styles, id) || (id != root && is_furniture(sem, id, el)) {
            walk.skip_subtree(id);
            continue;
        }
        if !el.is_html(&local_name!("a")) {
            continue;
        }
        walk.skip_subtree(id);
        let Some(url) = el.attr("href").and_then(|h| doc.resolve_url(h)) else { continue };
        if !matches!(url.scheme(), "http" | "https") {
            continue;
        }
        let url = without_fragment(url);
        if page.as_ref() == Some(&url) || out.contains(&url) {
            continue;
        }
        let text = collapse_whitespace(&doc.text_content(id));
        if text.chars().count() >= MIN_RESULT_CHARS && text.contains(' ') {
            out.push(url);
        }
    }
    out
}

fn without_fragment(mut url: Url) -> Url {
    url.set_fragment(None);
    url
}
