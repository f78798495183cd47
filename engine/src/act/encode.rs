//! The bytes of a form submission (HTML §4.10.21.3, §4.10.21.6–8): the URL
//! Standard's urlencoded serializer, `multipart/form-data` (RFC 7578 as
//! HTML profiles it) and `text/plain`, in the form's encoding.

use std::borrow::Cow;

use url::Url;
use url::form_urlencoded;

use super::submit::{Enctype, EntryValue, Method, Submission};
use crate::dom::NodeId;

impl Submission {
    /// What to fetch: for GET the action URL with its query replaced by
    /// the urlencoded entries (HTML's "mutate action URL"; a `mailto:`
    /// action gets them as headers, spaces as `%20`); otherwise the action
    /// URL, with the body from [`Submission::body`].
    pub fn request_url(&self) -> Url {
        let mut url = self.action.clone();
        if self.method == Method::Get {
            match url.scheme() {
                "http" | "https" | "ftp" | "data" | "file" => url.set_query(Some(&self.urlencoded_body())),
                "mailto" => url.set_query(Some(&self.urlencoded_body().replace('+', "%20"))),
                _ => {}
            }
        }
        url
    }

    /// The `Content-Type` of a POST body; `boundary` as given to
    /// [`Submission::multipart_body`].
    pub fn content_type(&self, boundary: &str) -> String {
        match self.enctype {
            Enctype::UrlEncoded => "application/x-www-form-urlencoded".to_owned(),
            Enctype::Multipart => format!("multipart/form-data; boundary={boundary}"),
            Enctype::TextPlain => "text/plain".to_owned(),
        }
    }

    /// The request body for POST in the form's enctype (`None` for GET and
    /// dialog submissions). See [`Submission::multipart_body`] for
    /// `boundary` and `contents`.
    pub fn body(&self, boundary: &str, contents: &dyn Fn(NodeId, usize) -> Vec<u8>) -> Option<Vec<u8>> {
        if self.method != Method::Post {
            return None;
        }
        Some(match self.enctype {
            Enctype::UrlEncoded => self.urlencoded_body().into_bytes(),
            Enctype::Multipart => self.multipart_body(boundary, contents),
            Enctype::TextPlain => self.text_plain_body(),
        })
    }

    /// The entries as `application/x-www-form-urlencoded` (URL Standard
    /// §5.2): names and values with newlines as CRLF, files as their
    /// names, encoded in the form's encoding (characters it lacks as
    /// `&#N;`), percent-encoded but for ASCII letters, digits and `*-._`,
    /// spaces as `+`, joined by `=` and `&`.
    pub fn urlencoded_body(&self) -> String {
        let mut out = String::new();
        for (name, value) in self.pairs() {
            if !out.is_empty() {
                out.push('&');
            }
            out.extend(form_urlencoded::byte_serialize(&self.encoding.encode(&name).0));
            out.push('=');
            out.extend(form_urlencoded::byte_serialize(&self.encoding.encode(&value).0));
        }
        out
    }

    /// The entries as `text/plain` (HTML §4.10.21.8): `name=value` and CRLF
    /// for each, newlines as CRLF, files as their names, in the form's
    /// encoding. Not escaped: a value holding `=` or a newline is
    /// ambiguous, as in browsers.
    pub fn text_plain_body(&self) -> Vec<u8> {
        let mut out = String::new();
        for (name, value) in self.pairs() {
            out.push_str(&name);
            out.push('=');
            out.push_str(&value);
            out.push_str("\r\n");
        }
        self.encoding.encode(&out).0.into_owned()
    }

    /// The entries as `multipart/form-data` (HTML §4.10.21.7, RFC 7578):
    /// one part per entry, `Content-Disposition: form-data; name="…"` (with
    /// `; filename="…"` and a `Content-Type` line for files), names and
    /// text values with newlines as CRLF and in the form's encoding; in
    /// names and file names `"` is sent as `%22`, CR as `%0D`, LF as `%0A`.
    ///
    /// `boundary` must not occur in any part (a long random string does
    /// that); `contents(input, index)` gives the bytes of the `index`th
    /// file chosen for `input` (see
    /// [`FileEntry`](super::FileEntry); an input with no file sends an
    /// empty part with an empty file name, without asking).
    pub fn multipart_body(&self, boundary: &str, contents: &dyn Fn(NodeId, usize) -> Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        for entry in &self.entries {
            out.extend_from_slice(b"--");
            out.extend_from_slice(boundary.as_bytes());
            out.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
            out.extend_from_slice(&escape_quoted(&self.encoding.encode(&crlf(&entry.name)).0));
            out.push(b'"');
            match &entry.value {
                EntryValue::Text(value) => {
                    out.extend_from_slice(b"\r\n\r\n");
                    out.extend_from_slice(&self.encoding.encode(&crlf(value)).0);
                }
                EntryValue::File(file) => {
                    out.extend_from_slice(b"; filename=\"");
                    out.extend_from_slice(&escape_quoted(&self.encoding.encode(&file.filename).0));
                    out.extend_from_slice(b"\"\r\nContent-Type: ");
                    out.extend_from_slice(file.content_type.as_bytes());
                    out.extend_from_slice(b"\r\n\r\n");
                    if let Some(index) = file.index {
                        out.extend_from_slice(&contents(file.node, index));
                    }
                }
            }
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"--");
        out.extend_from_slice(boundary.as_bytes());
        out.extend_from_slice(b"--\r\n");
        out
    }

    /// Converting the entry list to name-value pairs (HTML §4.10.21.4):
    /// files become their names, newlines become CRLF.
    fn pairs(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .map(|e| {
                let value = match &e.value {
                    EntryValue::Text(v) => crlf(v).into_owned(),
                    EntryValue::File(f) => f.filename.clone(),
                };
                (crlf(&e.name).into_owned(), value)
            })
            .collect()
    }
}

/// Every CR not followed by LF and every LF not preceded by CR becomes CRLF.
fn crlf(s: &str) -> Cow<'_, str> {
    if !s.contains(['\r', '\n']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                out.push_str("\r\n");
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\n' => out.push_str("\r\n"),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Escapes a multipart name or file name: LF → `%0A`, CR → `%0D`,
/// `"` → `%22`.
fn escape_quoted(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.extend_from_slice(b"%0A"),
            b'\r' => out.extend_from_slice(b"%0D"),
            b'"' => out.extend_from_slice(b"%22"),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_become_crlf() {
        assert_eq!(crlf("a\nb\r\nc\rd"), "a\r\nb\r\nc\r\nd");
        assert_eq!(crlf("\r\r\n\n"), "\r\n\r\n\r\n");
        assert!(matches!(crlf("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn quoted_names_are_escaped() {
        assert_eq!(escape_quoted(b"a\"b\r\nc"), b"a%22b%0D%0Ac");
    }
}
