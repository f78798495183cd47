//! Choosing the character encoding of a page's bytes (HTML §13.2.3 "The input
//! byte stream"): byte order mark, then the transport's charset (the HTTP
//! `Content-Type` the caller passes in), then `<meta charset>` found by the
//! prescan (§13.2.3.2), then UTF-8 when the bytes are valid UTF-8, else
//! windows-1252.
//!
//! Deviation: the prescan looks at the first 8 KiB rather than 1,024 bytes,
//! as Chromium keeps looking past 1,024 bytes while it is still in `<head>`;
//! real pages often declare their charset after long inline scripts.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// How many leading bytes the `<meta>` prescan examines.
const PRESCAN_BYTES: usize = 8 * 1024;

/// Where the encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingSource {
    /// A byte order mark.
    Bom,
    /// The charset the caller passed (HTTP `Content-Type`).
    Transport,
    /// A `<meta charset>` or `<meta http-equiv=content-type>`.
    Meta,
    /// No declaration: the bytes were valid UTF-8.
    ValidUtf8,
    /// No declaration and not UTF-8: windows-1252, the web's default.
    Fallback,
}

/// The decoded text and how it was decoded.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The page as Unicode (borrowed when the bytes were valid UTF-8).
    pub text: Cow<'a, str>,
    /// The encoding used.
    pub encoding: &'static Encoding,
    /// How it was chosen.
    pub source: EncodingSource,
    /// Whether malformed sequences were replaced with U+FFFD.
    pub had_errors: bool,
}

/// Picks the encoding for `bytes` and decodes them.
pub fn decode<'a>(bytes: &'a [u8], transport_charset: Option<&str>) -> Decoded<'a> {
    let (encoding, source, body) = if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        (enc, EncodingSource::Bom, &bytes[bom_len..])
    } else if let Some(enc) = transport_charset.and_then(|l| Encoding::for_label(l.trim().as_bytes())) {
        (enc, EncodingSource::Transport, bytes)
    } else if let Some(enc) = prescan(&bytes[..bytes.len().min(PRESCAN_BYTES)]) {
        (enc, EncodingSource::Meta, bytes)
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        // Already checked: borrowed as it is, not validated a second time.
        return Decoded { text: Cow::Borrowed(text), encoding: UTF_8, source: EncodingSource::ValidUtf8, had_errors: false };
    } else {
        (WINDOWS_1252, EncodingSource::Fallback, bytes)
    };
    let (text, had_errors) = encoding.decode_without_bom_handling(body);
    Decoded { text, encoding, source, had_errors }
}

/// An encoding label declared in markup, as HTML treats it: UTF-16 means
/// UTF-8 (the bytes could not have been read otherwise), `x-user-defined`
/// means windows-1252. (A transport charset is taken as it is.)
pub(crate) fn label_to_encoding(label: &str) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(label.trim().as_bytes())?;
    Some(if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE {
        UTF_8
    } else if enc == encoding_rs::X_USER_DEFINED {
        WINDOWS_1252
    } else {
        enc
    })
}

/// The charset parameter of a `Content-Type` value, e.g.
/// `text/html; charset="utf-8"` gives `utf-8`.
pub fn charset_from_content_type(value: &str) -> Option<&str> {
    extract_meta_charset(value.as_bytes()).and_then(|b| std::str::from_utf8(b).ok())
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The prescan of HTML §13.2.3.2.
fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"<!--") {
            // "<!--" then everything up to "-->"; the "--" of "<!--" may be
            // part of the closing "-->" ("<!-->", "<!--->").
            i += 2;
            match find(&bytes[i..], b"-->") {
                Some(end) => i += end + 3,
                None => return None,
            }
        } else if rest.len() > 6
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            i += 6;
            if let Some(enc) = meta_tag(bytes, &mut i) {
                return Some(enc);
            }
        } else if rest.len() > 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic() || (rest[1] == b'/' && rest[2].is_ascii_alphabetic()))
        {
            i += if rest[1] == b'/' { 2 } else { 1 };
            while i < bytes.len() && !is_space(bytes[i]) && bytes[i] != b'>' {
                i += 1;
            }
            while get_attribute(bytes, &mut i).is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            match bytes[i..].iter().position(|&b| b == b'>') {
                Some(end) => i += end + 1,
                None => return None,
            }
        } else {
            i += 1;
        }
    }
    None
}

/// The attributes of one `<meta>` tag; the encoding it declares, if any.
fn meta_tag(bytes: &[u8], i: &mut usize) -> Option<&'static Encoding> {
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    let mut seen: Vec<Vec<u8>> = Vec::new();
    while let Some((name, value)) = get_attribute(bytes, i) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value.eq_ignore_ascii_case(b"content-type"),
            b"content" if charset.is_none() => {
                if let Some(label) = extract_meta_charset(&value)
                    && let Some(enc) = std::str::from_utf8(label).ok().and_then(label_to_encoding)
                {
                    charset = Some(enc);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = std::str::from_utf8(&value).ok().and_then(label_to_encoding);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        _ => charset,
    }
}

/// "Get an attribute" of HTML §13.2.3.2: advances `i` past one attribute
/// and returns its lower-cased name and raw value; `None` at `>` or the end.
fn get_attribute(bytes: &[u8], i: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while *i < bytes.len() && (is_space(bytes[*i]) || bytes[*i] == b'/') {
        *i += 1;
    }
    if *i >= bytes.len() || bytes[*i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let b = *bytes.get(*i)?;
        if b == b'=' && !name.is_empty() {
            *i += 1;
            break;
        }
        if is_space(b) {
            while *i < bytes.len() && is_space(bytes[*i]) {
                *i += 1;
            }
            if bytes.get(*i) != Some(&b'=') {
                return Some((name, value));
            }
            *i += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Some((name, value));
        }
        name.push(b.to_ascii_lowercase());
        *i += 1;
    }
    while *i < bytes.len() && is_space(bytes[*i]) {
        *i += 1;
    }
    let b = *bytes.get(*i)?;
    if b == b'"' || b == b'\'' {
        *i += 1;
        while let Some(&c) = bytes.get(*i) {
            *i += 1;
            if c == b {
                return Some((name, value));
            }
            value.push(c.to_ascii_lowercase());
        }
        return None;
    }
    if b == b'>' {
        return Some((name, value));
    }
    while let Some(&c) = bytes.get(*i) {
        if is_space(c) || c == b'>' {
            break;
        }
        value.push(c.to_ascii_lowercase());
        *i += 1;
    }
    Some((name, value))
}

/// "Extracting a character encoding from a meta element" (HTML §2.6.5).
fn extract_meta_charset(content: &[u8]) -> Option<&[u8]> {
    let mut pos = 0;
    loop {
        let found = find_ignore_case(&content[pos..], b"charset")?;
        pos += found + 7;
        while pos < content.len() && is_space(content[pos]) {
            pos += 1;
        }
        if content.get(pos) != Some(&b'=') {
            continue;
        }
        pos += 1;
        while pos < content.len() && is_space(content[pos]) {
            pos += 1;
        }
        let rest = &content[pos..];
        return match rest.first() {
            Some(&q) if q == b'"' || q == b'\'' => {
                let end = rest[1..].iter().position(|&c| c == q)?;
                Some(&rest[1..1 + end])
            }
            Some(_) => {
                let end = rest.iter().position(|&c| is_space(c) || c == b';').unwrap_or(rest.len());
                Some(&rest[..end])
            }
            None => None,
        };
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(bytes: &[u8], transport: Option<&str>) -> (&'static str, EncodingSource) {
        let d = decode(bytes, transport);
        (d.encoding.name(), d.source)
    }

    #[test]
    fn bom_wins_over_everything() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice(b"<meta charset=windows-1251>x");
        assert_eq!(chosen(&bytes, Some("iso-8859-2")), ("UTF-8", EncodingSource::Bom));
        assert_eq!(decode(&bytes, None).text, "<meta charset=windows-1251>x");
    }

    #[test]
    fn utf16_transport_is_utf16() {
        let bytes = "<p>hi".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>();
        assert_eq!(chosen(&bytes, Some("utf-16le")).0, "UTF-16LE");
        assert_eq!(decode(&bytes, Some("utf-16le")).text, "<p>hi");
    }

    #[test]
    fn transport_beats_meta() {
        let page = b"<meta charset=windows-1251>";
        assert_eq!(chosen(page, Some("ISO-8859-2")), ("ISO-8859-2", EncodingSource::Transport));
        assert_eq!(chosen(page, Some("bogus")), ("windows-1251", EncodingSource::Meta));
    }

    #[test]
    fn meta_forms() {
        assert_eq!(chosen(b"<html><head><meta charset='gb2312'>", None).0, "GBK");
        assert_eq!(
            chosen(b"<meta http-equiv=Content-Type content='text/html; charset=KOI8-R'>", None).0,
            "KOI8-R"
        );
        // `content` without the pragma does not count.
        assert_eq!(chosen(b"<meta content='text/html; charset=KOI8-R'>", None).1, EncodingSource::ValidUtf8);
        // Inside a comment it does not count either; "<!-->" is a whole comment.
        assert_eq!(chosen(b"<!-- <meta charset=koi8-r> -->", None).1, EncodingSource::ValidUtf8);
        assert_eq!(chosen(b"<!--><meta charset=koi8-r>", None).0, "KOI8-R");
        assert_eq!(chosen(b"<!---><meta charset=koi8-r>", None).0, "KOI8-R");
        // UTF-16 in markup means UTF-8.
        assert_eq!(chosen(b"<meta charset=utf-16le>", None).0, "UTF-8");
    }

    #[test]
    fn undeclared_bytes() {
        assert_eq!(chosen("héllo".as_bytes(), None), ("UTF-8", EncodingSource::ValidUtf8));
        assert_eq!(chosen(b"h\xe9llo", None), ("windows-1252", EncodingSource::Fallback));
        assert_eq!(decode(b"h\xe9llo", None).text, "héllo");
    }

    #[test]
    fn content_type_charset() {
        assert_eq!(charset_from_content_type("text/html; charset=\"utf-8\""), Some("utf-8"));
        assert_eq!(charset_from_content_type("text/html"), None);
    }
}
