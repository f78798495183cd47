//! The attribute cap. html5ever's tokenizer checks each new attribute of a
//! tag against all earlier ones (for duplicates), so one tag with n
//! attributes costs n² (a 1 MB tag of 125,000 attributes: about 15 s).
//! Before parsing, whittle scans the text with a small tag scanner; when a
//! tag holds more than [`MAX_ATTRIBUTES`] attributes, the attributes after
//! the limit are cut from the text. No real page comes near the limit; the
//! fast path (nothing to cut) copies nothing.
//!
//! The scanner follows the tokenizer's tag, attribute and comment states,
//! and skips the contents of raw-text elements (`<script>`, `<style>`, …)
//! so that code there is never mistaken for tags.

use crate::dom::MAX_ATTRIBUTES;

const RAW_TEXT: [&[u8]; 9] =
    [b"script", b"style", b"textarea", b"title", b"xmp", b"iframe", b"noembed", b"noframes", b"noscript"];

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The text with over-long attribute lists cut, and how many tags were
/// cut; `None` when nothing needs cutting.
pub(crate) fn cap_attributes(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(off) = memchr(b'<', &bytes[i..]) {
        i += off;
        let rest = &bytes[i..];
        if rest.starts_with(b"<!--") {
            i = match find(&bytes[i + 2..], b"-->") {
                Some(end) => i + 2 + end + 3,
                None => bytes.len(),
            };
            continue;
        }
        let start_tag = rest.get(1).is_some_and(u8::is_ascii_alphabetic);
        let end_tag = rest.get(1) == Some(&b'/') && rest.get(2).is_some_and(u8::is_ascii_alphabetic);
        if !start_tag && !end_tag {
            i += 1;
            continue;
        }
        let name_start = i + if end_tag { 2 } else { 1 };
        let mut j = name_start;
        while j < bytes.len() && !is_space(bytes[j]) && bytes[j] != b'/' && bytes[j] != b'>' {
            j += 1;
        }
        let name = &bytes[name_start..j];
        let (tag_end, cut_from) = scan_attributes(bytes, j);
        if let Some(from) = cut_from {
            cuts.push((from, tag_end));
        }
        i = tag_end;
        if start_tag && let Some(raw) = RAW_TEXT.iter().find(|r| r.eq_ignore_ascii_case(name)) {
            i = skip_raw_text(bytes, i, raw);
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(from, to) in &cuts {
        out.push_str(&text[at..from]);
        at = to;
    }
    out.push_str(&text[at..]);
    Some((out, cuts.len()))
}

/// Scans the attributes of a tag from `i` (just after its name). Gives the
/// position of the tag's `>` (or the end of the text) and, when the tag has
/// too many attributes, where the excess starts.
fn scan_attributes(bytes: &[u8], mut i: usize) -> (usize, Option<usize>) {
    let mut count = 0usize;
    let mut cut_from = None;
    loop {
        while i < bytes.len() && (is_space(bytes[i]) || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' {
            return (i, cut_from);
        }
        // An attribute name (its first character may be `=`).
        count += 1;
        if count == MAX_ATTRIBUTES + 1 {
            cut_from = Some(i);
        }
        i += 1;
        while i < bytes.len() && !is_space(bytes[i]) && !matches!(bytes[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        if bytes.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        match bytes.get(i) {
            Some(&q) if q == b'"' || q == b'\'' => {
                i = match memchr(q, &bytes[i + 1..]) {
                    Some(end) => i + 1 + end + 1,
                    None => bytes.len(),
                };
            }
            _ => {
                while i < bytes.len() && !is_space(bytes[i]) && bytes[i] != b'>' {
                    i += 1;
                }
            }
        }
    }
}

/// Skips to the `</name` that ends a raw-text element.
fn skip_raw_text(bytes: &[u8], mut i: usize, name: &[u8]) -> usize {
    while let Some(off) = memchr(b'<', &bytes[i..]) {
        i += off;
        let rest = &bytes[i..];
        if rest.len() > name.len() + 1 && rest[1] == b'/' && rest[2..2 + name.len()].eq_ignore_ascii_case(name) {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

use memchr::memchr;

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_pages_are_untouched() {
        assert!(cap_attributes("<p class=a id='x>y' data-z=\"1\">text</p><!-- <a b c> -->").is_none());
        let script = format!("<script>if (a<b {} ) {{}}</script><p>", "x ".repeat(5_000));
        assert!(cap_attributes(&script).is_none(), "script contents are not tags");
    }

    #[test]
    fn huge_tags_are_cut_after_the_limit() {
        let attrs: String = (0..3_000).map(|i| format!(" a{i}=\"v>{i}\"")).collect();
        let page = format!("<p{attrs}>kept</p>");
        let (out, cut) = cap_attributes(&page).unwrap_or_default();
        assert_eq!(cut, 1);
        assert!(out.contains(" a999=\"v>999\""));
        assert!(!out.contains(" a1000="));
        assert!(out.ends_with(">kept</p>"));
        let doc = crate::parse(page.as_bytes(), &Default::default());
        let p = doc.descendants(crate::NodeId::DOCUMENT).find(|&n| doc.element(n).is_some_and(|e| &*e.name.local == "p"));
        assert_eq!(p.and_then(|p| doc.element(p)).map(|e| e.attrs.len()), Some(MAX_ATTRIBUTES));
        assert!(doc.diagnostics().iter().any(|d| d.message.contains("attributes")));
    }
}
