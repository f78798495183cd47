//! Stage 1, `parse`: bytes in, an arena [`Document`] out.
//!
//! The bytes are decoded per HTML's encoding rules (see [`charset`]), parsed
//! by html5ever into the arena through whittle's own `TreeSink`, and indexed
//! (ids, `<base href>`). Parsing never fails: malformed bytes become U+FFFD,
//! malformed markup is recovered as the HTML spec says, and both are noted as
//! diagnostics.

mod attrs;
pub mod charset;
mod depth;

pub use crate::dom::MAX_DEPTH;

use std::cell::Cell;

use html5ever::interface::TreeSink;
use html5ever::tendril::StrTendril;
use html5ever::TokenizerResult;
use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use url::Url;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{ArenaSink, Document, Names};

/// What `parse` needs besides the bytes.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// The page's URL (where it was fetched from), for the header line and
    /// for resolving links; `None` for pages without one.
    pub url: Option<Url>,
    /// The charset from the HTTP `Content-Type`, if any.
    pub transport_charset: Option<String>,
    /// Whether scripts are assumed to run. On (the default) `<noscript>`
    /// holds raw text and shows nothing, as in a browser with scripts on.
    pub scripting: bool,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions { url: None, transport_charset: None, scripting: true }
    }
}

/// Parses a page.
///
/// ```
/// let doc = whittle_engine::parse(b"<title>Hi</title><p>Hello", &Default::default());
/// assert_eq!(doc.title(), "Hi");
/// ```
pub fn parse(bytes: &[u8], options: &ParseOptions) -> Document {
    let decoded = charset::decode(bytes, options.transport_charset.as_deref());
    let (doc, declared) = parse_str_inner(&decoded.text, options, Some(&decoded));
    // HTML §13.2.3.4 "changing the encoding while parsing": a `<meta
    // charset>` the prescan did not reach overrides a guessed encoding.
    // Parsing starts over once with the declared one.
    let guessed = matches!(decoded.source, charset::EncodingSource::ValidUtf8 | charset::EncodingSource::Fallback);
    if guessed
        && let Some(enc) = declared
        && enc != decoded.encoding
    {
        let (text, had_errors) = enc.decode_without_bom_handling(bytes);
        let redecoded = charset::Decoded {
            text,
            encoding: enc,
            source: charset::EncodingSource::Meta,
            had_errors,
        };
        return parse_str_inner(&redecoded.text, options, Some(&redecoded)).0;
    }
    doc
}

/// Parses a page that is already text.
pub fn parse_str(text: &str, options: &ParseOptions) -> Document {
    parse_str_inner(text, options, None).0
}

/// Parses text; also gives the encoding a late `<meta>` declared, if any.
fn parse_str_inner(
    text: &str,
    options: &ParseOptions,
    decoded: Option<&charset::Decoded<'_>>,
) -> (Document, Option<&'static encoding_rs::Encoding>) {
    let mut doc = Document::empty();
    doc.url = options.url.clone();
    if let Some(d) = decoded {
        doc.encoding = d.encoding;
        if d.had_errors {
            doc.diagnostics.push(Diagnostic::new(
                Stage::Parse,
                format!("malformed {} byte sequences replaced with U+FFFD", d.encoding.name()),
            ));
        }
    }
    let capped = attrs::cap_attributes(text);
    let text = match &capped {
        Some((capped_text, tags)) => {
            doc.diagnostics.push(Diagnostic::new(
                Stage::Parse,
                format!("{tags} tags had more than {} attributes; the rest were dropped", crate::dom::MAX_ATTRIBUTES),
            ));
            capped_text.as_str()
        }
        None => text,
    };
    let builder_opts = TreeBuilderOpts { scripting_enabled: options.scripting, ..Default::default() };
    let names = Names::new();
    let guard = depth::DepthGuard {
        builder: TreeBuilder::new(ArenaSink::new(doc, text.len(), &names), builder_opts),
        flattened: Cell::new(0),
    };
    let tokenizer = Tokenizer::new(guard, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(text));
    // `Script` asks the caller to run a script (whittle runs none);
    // `EncodingIndicator` reports a `<meta charset>`: note it and go on.
    let mut declared = None;
    loop {
        match tokenizer.feed(&input) {
            TokenizerResult::Done => break,
            TokenizerResult::Script(_) => {}
            TokenizerResult::EncodingIndicator(label) => {
                if declared.is_none() {
                    declared = charset::label_to_encoding(&label);
                }
            }
        }
    }
    tokenizer.end();
    let guard = tokenizer.sink;
    let flattened = guard.flattened.get();
    let mut doc = guard.builder.sink.finish();
    if flattened > 0 {
        doc.diagnostics.push(Diagnostic::new(
            Stage::Parse,
            format!(
                "{flattened} elements nested deeper than {} levels were placed as siblings (as Chromium does)",
                MAX_DEPTH
            ),
        ));
    }
    doc.reindex();
    (doc, declared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::NodeId;

    #[test]
    fn builds_the_tree_the_spec_describes() {
        let doc = parse(b"<p>one<b>two<p>three</b>four", &ParseOptions::default());
        let dump = doc.dump();
        assert_eq!(
            dump,
            "<html>\n  <head>\n  <body>\n    <p>\n      \"one\"\n      <b>\n        \"two\"\n    <p>\n      <b>\n        \"three\"\n      \"four\"\n"
        );
    }

    #[test]
    fn html_inside_an_html_annotation_is_html() {
        // MathML's `annotation-xml` with an HTML encoding is an HTML
        // integration point: a `<div>` there stays an HTML element, inside.
        let doc = parse(b"<math><annotation-xml encoding=Text/HTML><div>x</div></annotation-xml></math>", &ParseOptions::default());
        let div = doc.descendants(NodeId::DOCUMENT).find(|&id| doc.element(id).is_some_and(|e| &*e.name.local == "div"));
        let div = div.and_then(|id| doc.element(id).map(|e| (e.is_html_element(), doc.ancestors(id).count())));
        assert_eq!(div, Some((true, 5)), "{}", doc.dump());
        // Any other encoding leaves it MathML: the `<div>` breaks out.
        let doc = parse(b"<math><annotation-xml encoding=mathml><div>x</div>", &ParseOptions::default());
        let div = doc.descendants(NodeId::DOCUMENT).find(|&id| doc.element(id).is_some_and(|e| &*e.name.local == "div"));
        assert_eq!(div.map(|id| doc.ancestors(id).count()), Some(3), "{}", doc.dump());
    }

    #[test]
    fn base_href_resolves_against_the_url() {
        let options = ParseOptions {
            url: Url::parse("https://shop.example/a/b").ok(),
            ..ParseOptions::default()
        };
        let doc = parse(b"<base href='/x/'><a href=y>", &options);
        assert_eq!(doc.resolve_url("y").map(|u| u.to_string()).as_deref(), Some("https://shop.example/x/y"));
        let doc = parse(b"<a href=y>", &options);
        assert_eq!(doc.resolve_url("y").map(|u| u.to_string()).as_deref(), Some("https://shop.example/a/y"));
    }

    #[test]
    fn empty_and_binary_input_still_give_a_document() {
        for input in [&b""[..], b"\0\xff\xfe\x00garbage\x80", b"<<<>>>&&&"] {
            let doc = parse(input, &ParseOptions::default());
            assert!(doc.root_element().is_some());
            assert!(doc.body().is_some());
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let depth = 100_000;
        let html = "<div>".repeat(depth);
        let doc = parse(html.as_bytes(), &ParseOptions::default());
        // Every element is kept; the tree is capped at Chromium's depth,
        // foreign content too.
        let svg = parse(format!("<svg>{}", "<g>".repeat(depth)).as_bytes(), &ParseOptions::default());
        let deepest_svg = svg.descendants(NodeId::DOCUMENT).map(|d| svg.ancestors(d).count()).max();
        assert!(deepest_svg.is_some_and(|d| d <= MAX_DEPTH as usize + 2), "{deepest_svg:?}");
        let divs = doc
            .descendants(NodeId::DOCUMENT)
            .filter(|&id| doc.element(id).is_some_and(|e| &*e.name.local == "div"))
            .count();
        assert_eq!(divs, depth);
        let deepest = doc.descendants(NodeId::DOCUMENT).map(|d| doc.ancestors(d).count()).max();
        assert!(deepest.is_some_and(|d| d <= MAX_DEPTH as usize + 2), "{deepest:?}");
        assert!(doc.diagnostics().iter().any(|d| d.message.contains("nested deeper")));
    }

    #[test]
    fn meta_charset_does_not_stop_the_parser() {
        let doc = parse(b"<meta charset=\"utf-8\"><title>x</title><p>hi", &ParseOptions::default());
        assert_eq!(doc.title(), "x");
        assert!(doc.text_content(NodeId::DOCUMENT).contains("hi"));
    }

    #[test]
    fn late_meta_charset_restarts_with_that_encoding() {
        // A declaration past the prescan window, in a page whose bytes are
        // not UTF-8: the restart decodes them as declared.
        let mut page = b"<!--".to_vec();
        page.extend(std::iter::repeat_n(b'x', 9000));
        page.extend_from_slice(b"--><meta charset=windows-1251><p>\xcf\xf0\xe8\xe2\xe5\xf2");
        let doc = parse(&page, &ParseOptions::default());
        assert_eq!(doc.encoding().name(), "windows-1251");
        assert!(doc.text_content(NodeId::DOCUMENT).contains("Привет"));
    }

    #[test]
    fn ids_map_to_the_first_element() {
        let doc = parse(b"<p id=a>1</p><p id=a>2</p>", &ParseOptions::default());
        let first = doc.element_by_id("a");
        assert!(first.is_some_and(|id| doc.text_content(id) == "1"));
    }
}
