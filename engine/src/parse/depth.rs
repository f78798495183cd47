//! The nesting limit. html5ever checks "has an element in scope" by walking
//! its stack of open elements, so a page of 100,000 unclosed `<div>`s costs
//! time quadratic in its depth (110 s measured). Chromium caps the tree depth
//! at 512 (elements deeper than that become siblings); whittle does the same
//! by closing the current element before a start tag would open an element
//! below depth [`MAX_DEPTH`] (HTML and foreign elements alike: SVG and
//! MathML nest without implied end tags). The stack then never grows past the limit, each
//! scope walk is bounded, and parsing stays linear. Nothing is dropped: the
//! deep elements and their text are all kept, as siblings.

use std::cell::Cell;

use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::TreeBuilder;
use html5ever::{LocalName, local_name};

use crate::dom::{ArenaSink, Handle, MAX_DEPTH, is_void};

/// Sits between the tokenizer and the tree builder.
pub(crate) struct DepthGuard<'n> {
    pub(crate) builder: TreeBuilder<Handle<'n>, ArenaSink<'n>>,
    pub(crate) flattened: Cell<usize>,
}

/// HTML elements whose end tag must not be invented: their contents are
/// raw text (the tokenizer is in a special state) or they frame the
/// document. Foreign (SVG, MathML) elements can always be closed.
fn never_close(name: &LocalName, html: bool) -> bool {
    html && matches!(
        *name,
        local_name!("html")
            | local_name!("head")
            | local_name!("body")
            | local_name!("script")
            | local_name!("style")
            | local_name!("textarea")
            | local_name!("title")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("plaintext")
            | local_name!("template")
    )
}

impl<'n> TokenSink for DepthGuard<'n> {
    type Handle = Handle<'n>;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle<'n>> {
        if let Token::TagToken(tag) = &token
            && tag.kind == TagKind::StartTag
            && !tag.self_closing
            && !is_void(&tag.name)
            && let Some((current, depth)) = self.builder.sink.current()
            && depth >= MAX_DEPTH
            && let Some((name, html)) = self.builder.sink.element_name(current)
            && !never_close(&name, html)
        {
            let end = Tag {
                kind: TagKind::EndTag,
                name,
                self_closing: false,
                attrs: Vec::new(),
                had_duplicate_attributes: false,
            };
            // An end tag for an ordinary element never asks the tokenizer
            // to change state, so its result carries nothing to forward.
            let _ = self.builder.process_token(Token::TagToken(end), line_number);
            self.flattened.set(self.flattened.get() + 1);
        }
        self.builder.process_token(token, line_number)
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder.adjusted_current_node_present_but_not_in_html_namespace()
    }
}
