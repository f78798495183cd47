//! The HTTP message inside a WARC `response` record: its head (httparse,
//! as lenient as browsers), whether it is HTML, and its body de-chunked and
//! decompressed within the page cap.

use std::io::{self, Read};

/// httparse, as lenient as browsers are with what servers send.
pub(super) fn http_parser() -> httparse::ParserConfig {
    let mut config = httparse::ParserConfig::default();
    config
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true);
    config
}

/// What the HTTP head of a response says.
#[derive(Debug)]
pub(super) struct Head {
    /// Its length in bytes.
    pub(super) len: usize,
    pub(super) status: u16,
    pub(super) content_type: Option<String>,
    transfer_encoding: Option<String>,
    content_encoding: Option<String>,
}

impl Head {
    pub(super) fn of(response: &httparse::Response<'_, '_>, len: usize) -> Head {
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_owned())
        };
        Head {
            len,
            status: response.code.unwrap_or_default(),
            content_type: header("content-type").filter(|t| !t.is_empty()),
            transfer_encoding: header("transfer-encoding"),
            content_encoding: header("content-encoding"),
        }
    }
}

/// Whether a `Content-Type` is HTML.
pub(super) fn is_html(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "text/html" || essence == "application/xhtml+xml"
}

/// Whether a body without a `Content-Type` is HTML, by the MIME Sniffing
/// standard's patterns (after whitespace; a UTF-8 BOM is passed over too).
pub(super) fn sniffs_as_html(body: &[u8]) -> bool {
    const PATTERNS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML", b"<HTML", b"<HEAD", b"<SCRIPT", b"<IFRAME", b"<H1", b"<DIV", b"<FONT", b"<TABLE", b"<A",
        b"<STYLE", b"<TITLE", b"<B", b"<BODY", b"<BR", b"<P", b"<!--",
    ];
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body.iter().position(|b| !matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')).unwrap_or(body.len());
    let body = &body[start..];
    PATTERNS.iter().any(|p| {
        body.len() > p.len()
            && body[..p.len()].eq_ignore_ascii_case(p)
            && matches!(body[p.len()], b' ' | b'>')
    })
}

/// Why a body could not be decoded.
#[derive(Debug)]
pub(super) enum Decode {
    TooLarge,
    Bad(String),
}

/// The body as the page's bytes: de-chunked, then decompressed, each
/// within `max` bytes.
pub(super) fn decode(body: Vec<u8>, head: &Head, max: usize) -> Result<Vec<u8>, Decode> {
    let chunked = head.transfer_encoding.as_deref().is_some_and(|t| {
        t.rsplit(',').next().is_some_and(|last| last.trim().eq_ignore_ascii_case("chunked"))
    });
    let mut body = if chunked { dechunk(body, max)? } else { body };
    let codings = head.content_encoding.as_deref().unwrap_or("");
    for coding in codings.split(',').map(|c| c.trim().to_ascii_lowercase()).rev() {
        body = match coding.as_str() {
            "" | "identity" => body,
            // Archives often hold the body decoded under the header it was
            // sent with: what is not gzip is taken as it is.
            "gzip" | "x-gzip" if !body.starts_with(&[0x1f, 0x8b]) => body,
            "gzip" | "x-gzip" => inflate(flate2::read::MultiGzDecoder::new(&body[..]), max, "gzip")?,
            "deflate" => match inflate(flate2::read::ZlibDecoder::new(&body[..]), max, "deflate") {
                // Some servers send raw deflate as `deflate`; browsers take it.
                Err(Decode::Bad(_)) => inflate(flate2::read::DeflateDecoder::new(&body[..]), max, "deflate")?,
                other => other?,
            },
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(Decode::Bad(format!("its Content-Encoding {shown:?} is not supported (gzip and deflate are)")));
            }
        };
    }
    Ok(body)
}

/// Decompresses within `max` bytes. A stream that ends early gives what
/// it holds, as browsers show a page cut short.
pub(super) fn inflate(decoder: impl Read, max: usize, what: &str) -> Result<Vec<u8>, Decode> {
    let mut out = Vec::new();
    match decoder.take(max as u64 + 1).read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && !out.is_empty() => {}
        Err(e) => return Err(Decode::Bad(format!("its {what} body cannot be decompressed ({e})"))),
    }
    if out.len() > max {
        return Err(Decode::TooLarge);
    }
    Ok(out)
}

/// Joins the chunks of a `Transfer-Encoding: chunked` body (trailers
/// dropped). A body whose first chunk size does not parse was stored
/// de-chunked and is taken as it is; one that ends early gives what it
/// holds.
pub(super) fn dechunk(body: Vec<u8>, max: usize) -> Result<Vec<u8>, Decode> {
    let mut out = Vec::new();
    let mut rest = &body[..];
    loop {
        match httparse::parse_chunk_size(rest) {
            Ok(httparse::Status::Complete((used, size))) => {
                rest = &rest[used..];
                if size == 0 {
                    return Ok(out);
                }
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                if size > max || out.len() + size.min(rest.len()) > max {
                    return Err(Decode::TooLarge);
                }
                if size >= rest.len() {
                    out.extend_from_slice(rest);
                    return Ok(out);
                }
                out.extend_from_slice(&rest[..size]);
                rest = &rest[size..];
                rest = rest.strip_prefix(b"\r\n").or_else(|| rest.strip_prefix(b"\n")).unwrap_or(rest);
            }
            Ok(httparse::Status::Partial) => return Ok(out),
            Err(_) if out.is_empty() && rest.len() == body.len() => return Ok(body),
            Err(_) => return Err(Decode::Bad("its chunked body has a chunk size that is not a number".into())),
        }
    }
}
