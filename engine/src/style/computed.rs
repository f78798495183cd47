//! Styles another engine computed (the Chromium backend's `DOMSnapshot`):
//! its computed values read into a [`ComputedStyle`], and [`Styles`] built
//! from them instead of by the cascade.

use std::collections::HashMap;

use cssparser::Parser;

use super::values::{Decl, FontSize, parse_declaration};
use super::{ComputedStyle, Hidden, INVISIBLE, NONE, PseudoStyle, SKIPPED, Styles, Viewport};
use crate::diag::Diagnostic;
use crate::dom::NodeId;

/// The computed properties whittle reads, in the order
/// [`ComputedStyle::from_computed`] takes their values. A source that
/// reports computed styles asks for exactly these.
pub const COMPUTED_PROPERTIES: [&str; 16] = [
    "display",
    "visibility",
    "content-visibility",
    "position",
    "overflow-x",
    "overflow-y",
    "opacity",
    "font-size",
    "white-space",
    "text-transform",
    "color",
    "background-color",
    "background-image",
    "clip",
    "clip-path",
    "text-indent",
];

impl ComputedStyle {
    /// The style of an element from its computed values, given in the
    /// order of [`COMPUTED_PROPERTIES`] (missing or unreadable ones keep
    /// their initial values; inherited ones, `parent`'s).
    pub fn from_computed(values: &[&str], parent: &ComputedStyle) -> ComputedStyle {
        let mut style = ComputedStyle::inheriting(parent);
        let mut decls = Vec::with_capacity(2);
        for (name, value) in COMPUTED_PROPERTIES.iter().zip(values) {
            decls.clear();
            let mut parser = Parser::new(value);
            if parse_declaration(name, &mut parser, &mut decls).is_none() {
                continue;
            }
            for d in &decls {
                // Computed font sizes are absolute lengths.
                if !style.set_keyword(d)
                    && let Decl::FontSize(FontSize::Length(l)) = *d
                {
                    style.font_size = super::values::resolve_length(l, parent.font_size, 16.0, parent.font_size, (0.0, 0.0));
                }
            }
        }
        style
    }
}

impl Styles {
    /// Styles from another engine: one computed style and visibility per
    /// node of the document (`styles.len()` nodes), the generated content
    /// of `::before` and `::after`.
    pub(crate) fn from_parts(
        styles: Vec<ComputedStyle>,
        hidden: &[Option<Hidden>],
        before: HashMap<NodeId, PseudoStyle>,
        after: HashMap<NodeId, PseudoStyle>,
        viewport: Viewport,
        diagnostics: Vec<Diagnostic>,
    ) -> Styles {
        let flags = hidden
            .iter()
            .map(|h| match h {
                None => 0,
                Some(Hidden::DisplayNone) => NONE,
                Some(Hidden::Skipped) => SKIPPED,
                Some(Hidden::Invisible) => INVISIBLE,
            })
            .collect();
        let n = styles.len();
        // Chromium ran the page's scripts: a veil it shows is real.
        Styles {
            styles,
            flags,
            before,
            after,
            boxes: vec![None; n],
            viewport,
            diagnostics,
            veil: None,
            size_containers: Vec::new(),
            rules: None,
        }
    }
}
