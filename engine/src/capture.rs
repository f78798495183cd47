//! A page another engine rendered (the Chromium backend's
//! `DOMSnapshot.captureSnapshot`), turned into the pipeline's
//! [`Document`], [`Styles`] and [`Layout`], so it joins the pipeline at
//! semantics and reads exactly like a page of the static path.
//!
//! The input is engine-neutral ([`Capture`]): nodes in tree order with
//! their parent's index, each element's computed values
//! ([`COMPUTED_PROPERTIES`]) and border box when it has a box. What has no
//! box is decided here the way a browser shows it:
//! - an element without a box whose descendants have boxes is
//!   `display: contents`;
//! - an element or text without a box and without such descendants is not
//!   rendered (`display: none` on it or an ancestor, a closed `<details>`,
//!   `<head>`) — except options and option groups, which a `<select>`
//!   draws itself: they take the select's visibility;
//! - `::before`/`::after` nodes become generated content of their element
//!   (the text the other engine laid out for them).
//!
//! Bad input is data: a node whose parent comes after it or is not an
//! element, a second root, an invalid name — each is dropped (its subtree
//! with it) and counted in a diagnostic, never a panic.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{Document, DocumentBuilder, Markup, NodeId};
use crate::layout::{Layout, Rect, overlaps};
use crate::style::values::{Content, ContentItem, Display, Overflow, Position, Visibility};
use crate::style::{COMPUTED_PROPERTIES, ComputedStyle, Hidden, PseudoStyle, Styles, Viewport};

/// One page as another engine rendered it.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    /// The document's URL.
    pub url: Option<url::Url>,
    /// The viewport it was laid out in.
    pub viewport: Viewport,
    /// How far it is scrolled down (CSS px).
    pub scroll_y: f32,
    /// The height of its content (CSS px).
    pub content_height: f32,
    /// Its nodes, in tree order (a parent before its children).
    pub nodes: Vec<CapturedNode>,
}

/// One node of a [`Capture`].
#[derive(Debug, Clone, Default)]
pub struct CapturedNode {
    /// The index of its parent in [`Capture::nodes`]; `None` for the
    /// document.
    pub parent: Option<usize>,
    /// What it is.
    pub kind: CapturedKind,
    /// Its computed values in the order of [`COMPUTED_PROPERTIES`], when it
    /// has a box.
    pub style: Option<Vec<String>>,
    /// Its border box in page coordinates, when it has one.
    pub rect: Option<Rect>,
    /// Text laid out for it (the generated text of a pseudo-element).
    pub layout_text: Option<String>,
    /// A text control's current value.
    pub value: Option<String>,
    /// A checkbox's or radio button's checkedness.
    pub checked: Option<bool>,
    /// An option's selectedness.
    pub selected: Option<bool>,
}

/// The kind of a [`CapturedNode`].
#[derive(Debug, Clone, Default)]
pub enum CapturedKind {
    /// The document node.
    Document,
    /// An element: its tag name as the other engine spells it (upper case
    /// for HTML elements of an HTML document) and its attributes.
    Element {
        /// The tag name.
        name: String,
        /// `(name, value)` pairs.
        attrs: Vec<(String, String)>,
    },
    /// A `::before` (`true`) or `::after` (`false`) pseudo-element of its
    /// parent.
    Pseudo {
        /// Whether it is `::before`.
        before: bool,
    },
    /// Text.
    Text(String),
    /// A comment.
    Comment(String),
    /// A shadow root: its children are read as children of its host.
    ShadowRoot,
    /// Anything else (doctype, other pseudo-elements, …): skipped with
    /// its subtree.
    #[default]
    Other,
}

/// What [`from_capture`] built.
#[derive(Debug)]
pub struct Captured {
    /// The DOM.
    pub document: Document,
    /// Computed styles and visibility.
    pub styles: Styles,
    /// Boxes.
    pub layout: Layout,
    /// For each captured node, the document node it became.
    pub nodes: Vec<Option<NodeId>>,
}

/// Builds the pipeline's inputs from a captured page. Linear in its nodes.
pub fn from_capture(capture: &Capture) -> Captured {
    let n = capture.nodes.len();
    let mut dropped = 0usize;
    let mut builder = DocumentBuilder::new(capture.url.clone());
    // Per captured node: the document node, and its namespace (elements).
    let mut made: Vec<Option<NodeId>> = vec![None; n];
    let mut spaces: Vec<Markup> = vec![Markup::Html; n];
    for (i, node) in capture.nodes.iter().enumerate() {
        let parent = match node.parent {
            None => None,
            Some(p) if p < i => made[p].map(|id| (p, id)),
            Some(_) => {
                dropped += 1;
                continue;
            }
        };
        let id = match (&node.kind, parent) {
            (CapturedKind::Document, None) if i == 0 => Some(NodeId::DOCUMENT),
            (CapturedKind::Element { name, attrs }, Some((p, parent))) => {
                let ns = namespace_of(name, spaces[p], builder.get(parent).map(|e| String::from(&**e.local_name())));
                spaces[i] = ns;
                let attrs: Vec<(&str, &str)> = attrs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
                let id = builder.element(parent, ns, name, &attrs);
                if let Some(id) = id {
                    if let Some(v) = &node.value {
                        builder.set_value(id, v);
                    }
                    if let Some(c) = node.checked {
                        builder.set_checked(id, c);
                    }
                    if let Some(s) = node.selected {
                        builder.set_selected(id, s);
                    }
                }
                id
            }
            (CapturedKind::Text(t), Some((_, parent))) => builder.text(parent, t),
            (CapturedKind::Comment(t), Some((_, parent))) => builder.comment(parent, t),
            (CapturedKind::ShadowRoot, Some((p, parent))) => {
                spaces[i] = spaces[p];
                Some(parent)
            }
            // Pseudo-elements become generated content below.
            (CapturedKind::Pseudo { .. }, Some(_)) => None,
            _ => None,
        };
        if id.is_none() && !matches!(node.kind, CapturedKind::Pseudo { .. } | CapturedKind::Other) {
            dropped += 1;
        }
        made[i] = id;
    }
    let document = builder.finish();

    // Which captured nodes have a box somewhere in their subtree.
    let mut rendered: Vec<bool> = capture.nodes.iter().map(|c| c.style.is_some() || c.rect.is_some()).collect();
    for i in (1..n).rev() {
        if rendered[i]
            && let Some(p) = capture.nodes[i].parent.filter(|&p| p < i)
        {
            rendered[p] = true;
        }
    }

    let len = document.len();
    let mut styles = vec![ComputedStyle::default(); len];
    let mut hidden: Vec<Option<Hidden>> = vec![Some(Hidden::DisplayNone); len];
    let mut boxes: Vec<Option<Rect>> = vec![None; len];
    let mut fixed = vec![false; len];
    let mut clipped = vec![false; len];
    // Per document node: the clip rectangle its descendants are cut to.
    let mut clip: Vec<Option<Rect>> = vec![None; len];
    let mut before: HashMap<NodeId, PseudoStyle> = HashMap::new();
    let mut after: HashMap<NodeId, PseudoStyle> = HashMap::new();
    hidden[NodeId::DOCUMENT.index()] = None;
    let scroll = capture.scroll_y.max(0.0);
    let mut values: Vec<&str> = Vec::with_capacity(COMPUTED_PROPERTIES.len());

    for (i, node) in capture.nodes.iter().enumerate() {
        let Some(parent) = node.parent.filter(|&p| p < i).and_then(|p| made[p]) else { continue };
        if let CapturedKind::Pseudo { before: is_before } = node.kind {
            let Some(style) = &node.style else { continue };
            values.clear();
            values.extend(style.iter().map(String::as_str));
            let computed = ComputedStyle::from_computed(&values, &styles[parent.index()]);
            let text = node.layout_text.clone().unwrap_or_default();
            if computed.display == Display::None || text.is_empty() {
                continue;
            }
            let pseudo = PseudoStyle { display: computed.display, content: Content::Items(vec![ContentItem::Text(text)], None) };
            if is_before { before.insert(parent, pseudo) } else { after.insert(parent, pseudo) };
            continue;
        }
        let Some(id) = made[i] else { continue };
        if id == parent {
            // A shadow root: nothing of its own.
            continue;
        }
        let p = parent.index();
        let parent_style = styles[p];
        let in_select = document.element(id).is_some_and(|e| {
            matches!(&**e.local_name(), "option" | "optgroup")
                && document.ancestors(id).any(|a| document.element(a).is_some_and(|e| &**e.local_name() == "select"))
        });
        let (style, h) = if let Some(values_of) = &node.style {
            values.clear();
            values.extend(values_of.iter().map(String::as_str));
            let s = ComputedStyle::from_computed(&values, &parent_style);
            let h = if s.visibility == Visibility::Visible { None } else { Some(Hidden::Invisible) };
            (s, h)
        } else if document.element(id).is_some() && in_select {
            (ComputedStyle { display: Display::Block, ..ComputedStyle::inheriting(&parent_style) }, hidden[p])
        } else if document.element(id).is_some() && rendered[i] {
            (ComputedStyle { display: Display::Contents, ..ComputedStyle::inheriting(&parent_style) }, hidden[p])
        } else if document.text(id).is_some() && (node.rect.is_some() || in_select_text(&document, id)) {
            // Laid-out text: shown unless its element is not.
            (parent_style, hidden[p])
        } else {
            (ComputedStyle { display: Display::None, ..ComputedStyle::inheriting(&parent_style) }, Some(Hidden::DisplayNone))
        };
        // Nothing shows below a node that is not rendered.
        let h = match hidden[p] {
            Some(Hidden::DisplayNone) => Some(Hidden::DisplayNone),
            _ => h,
        };
        styles[id.index()] = style;
        hidden[id.index()] = h;

        let is_fixed = fixed[p] || (node.style.is_some() && style.position == Position::Fixed);
        fixed[id.index()] = is_fixed;
        if let Some(mut r) = node.rect {
            if is_fixed {
                r.y -= scroll;
            }
            boxes[id.index()] = Some(r);
            let cut = clip[p].filter(|_| !(style.position == Position::Fixed && node.style.is_some()));
            clipped[id.index()] = clipped[p] || cut.is_some_and(|c| !overlaps(&r, &c));
            let own = (style.overflow_x != Overflow::Visible || style.overflow_y != Overflow::Visible) && node.style.is_some();
            clip[id.index()] = match (own, cut) {
                (true, Some(c)) => Some(intersect(&r, &c)),
                (true, None) => Some(r),
                (false, c) => c,
            };
        } else {
            clipped[id.index()] = clipped[p];
            clip[id.index()] = clip[p];
        }
    }

    let mut diagnostics = Vec::new();
    if dropped > 0 {
        diagnostics.push(Diagnostic::new(Stage::Parse, format!("{dropped} captured node(s) could not be placed and were dropped")));
    }
    let styles = Styles::from_parts(styles, &hidden, before, after, capture.viewport, diagnostics);
    let layout = Layout::from_parts(capture.viewport, scroll, capture.content_height, boxes, fixed, clipped);
    Captured { document, styles, layout, nodes: made }
}

/// Text inside an option: a select draws it without a box of its own.
fn in_select_text(doc: &Document, text: NodeId) -> bool {
    doc.parent(text).and_then(|p| doc.element(p)).is_some_and(|e| matches!(&**e.local_name(), "option" | "optgroup"))
}

/// The namespace of an element named `name` (as the other engine spells
/// it) under a parent of namespace `parent` named `parent_name`: HTML
/// documents report HTML elements in upper case, foreign ones as written.
fn namespace_of(name: &str, parent: Markup, parent_name: Option<String>) -> Markup {
    let html_spelling = !name.bytes().any(|b| b.is_ascii_lowercase());
    if name.eq_ignore_ascii_case("svg") && !html_spelling {
        return Markup::Svg;
    }
    if name.eq_ignore_ascii_case("math") && !html_spelling {
        return Markup::MathMl;
    }
    match parent {
        // HTML inside foreignObject (SVG) or annotation-xml (MathML).
        Markup::Svg if parent_name.as_deref() == Some("foreignObject") => Markup::Html,
        Markup::Svg | Markup::MathMl if html_spelling && name.bytes().any(|b| b.is_ascii_alphabetic()) => {
            Markup::Html
        }
        foreign @ (Markup::Svg | Markup::MathMl) => foreign,
        Markup::Html => Markup::Html,
    }
}

fn intersect(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let right = (a.x + a.width).min(b.x + b.width);
    let bottom = a.bottom().min(b.bottom());
    Rect { x, y, width: (right - x).max(0.0), height: (bottom - y).max(0.0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RefTable, build_tree, compute_semantics, conceal, fold, render, FoldOptions, RenderOptions};

    fn el(parent: usize, name: &str, attrs: &[(&str, &str)], rect: Option<(f32, f32, f32, f32)>, display: &str) -> CapturedNode {
        CapturedNode {
            parent: Some(parent),
            kind: CapturedKind::Element { name: name.into(), attrs: attrs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect() },
            style: rect.map(|_| {
                let mut v: Vec<String> = COMPUTED_PROPERTIES.iter().map(|_| String::new()).collect();
                v[0] = display.into();
                v[1] = "visible".into();
                v[7] = "16px".into();
                v
            }),
            rect: rect.map(|(x, y, width, height)| Rect { x, y, width, height }),
            ..CapturedNode::default()
        }
    }

    fn text(parent: usize, t: &str, laid_out: bool) -> CapturedNode {
        CapturedNode {
            parent: Some(parent),
            kind: CapturedKind::Text(t.into()),
            rect: laid_out.then_some(Rect { x: 0.0, y: 0.0, width: 10.0, height: 10.0 }),
            ..CapturedNode::default()
        }
    }

    fn observe(c: &Capture) -> String {
        let got = from_capture(c);
        let concealment = conceal(&got.document, &got.styles, &got.layout);
        let sem = compute_semantics(&got.document, &got.styles, &concealment);
        let tree = build_tree(&got.document, &got.styles, &concealment, &sem, &mut RefTable::new());
        let folded = fold(&got.document, &tree, &got.layout, &FoldOptions::default(), &RenderOptions::default());
        render(&got.document, &folded).text()
    }

    fn page(nodes: Vec<CapturedNode>) -> Capture {
        let mut all = vec![CapturedNode { kind: CapturedKind::Document, ..CapturedNode::default() }];
        all.extend(nodes);
        Capture { url: url::Url::parse("https://app.example/").ok(), viewport: Viewport::default(), nodes: all, ..Capture::default() }
    }

    #[test]
    fn boxes_decide_what_shows() {
        let b = Some((0.0, 0.0, 100.0, 20.0));
        let c = page(vec![
            el(0, "HTML", &[], b, "block"),                       // 1
            el(1, "HEAD", &[], None, ""),                         // 2
            el(2, "TITLE", &[], None, ""),                        // 3
            text(3, "Inbox", false),                              // 4
            el(1, "BODY", &[], b, "block"),                       // 5
            el(5, "BUTTON", &[], b, "inline-block"),              // 6
            text(6, "Send", true),                                // 7
            el(5, "DIV", &[], None, ""),                          // 8: display:none
            el(8, "BUTTON", &[], None, ""),                       // 9
            text(9, "Hidden", false),                             // 10
            el(5, "DIV", &[("class", "wrap")], None, ""),         // 11: display:contents
            el(11, "A", &[("href", "/a")], b, "inline"),          // 12
            text(12, "Archive", true),                            // 13
            el(5, "SELECT", &[("aria-label", "Folder")], b, "inline-block"), // 14
            el(14, "OPTION", &[], None, ""),                      // 15
            text(15, "Work", false),                              // 16
        ]);
        // The same page on the static path reads the same.
        let html = br#"<title>Inbox</title><button>Send</button><div style=display:none><button>Hidden</button></div>
            <div style=display:contents><a href=/a>Archive</a></div><select aria-label=Folder><option>Work</select>"#;
        let mut options = crate::SnapshotOptions::default();
        options.parse.url = c.url.clone();
        let expected = crate::snapshot(html, &options, &mut RefTable::new()).observation.text();
        assert_eq!(expected, "# Inbox · app.example\n[1] button \"Send\" [2] link \"Archive\" [3] combobox \"Folder\" = \"Work\" (Work)\n");
        assert_eq!(observe(&c), expected);
    }

    #[test]
    fn form_state_and_pseudo_content_come_along() {
        let b = Some((0.0, 0.0, 100.0, 20.0));
        let mut field = el(2, "INPUT", &[("aria-label", "Email")], b, "inline-block");
        field.value = Some("jane@example.com".into());
        let mut check = el(2, "INPUT", &[("type", "checkbox"), ("aria-label", "Remember")], b, "inline-block");
        check.checked = Some(true);
        let mut pseudo = CapturedNode { parent: Some(5), kind: CapturedKind::Pseudo { before: true }, ..el(5, "x", &[], b, "inline") };
        pseudo.kind = CapturedKind::Pseudo { before: true };
        pseudo.layout_text = Some("Menu".into());
        let c = page(vec![
            el(0, "HTML", &[], b, "block"),   // 1
            el(1, "BODY", &[], b, "block"),   // 2
            field,                            // 3
            check,                            // 4
            el(2, "BUTTON", &[], b, "inline-block"), // 5
            pseudo,                           // 6
        ]);
        assert_eq!(
            observe(&c),
            "# app.example\n[1] textbox \"Email\" = \"jane@example.com\"\n[2] checkbox \"Remember\" checked [3] button \"Menu\"\n"
        );
    }

    #[test]
    fn bad_input_is_dropped_not_fatal() {
        let b = Some((0.0, 0.0, 100.0, 20.0));
        let mut nodes = vec![
            el(0, "HTML", &[], b, "block"),       // 1
            el(0, "HTML", &[], b, "block"),       // 2: a second root
            el(9, "P", &[], b, "block"),          // 3: parent after it
            el(1, "BODY", &[], b, "block"),       // 4
            el(4, "1bad", &[], b, "block"),       // 5: invalid name
            el(4, "SPAN", &[("a b", "x"), ("title", "ok")], b, "inline"), // 6
            text(6, "fine", true),                // 7
            text(0, "stray", true),               // 8: text under the document
        ];
        // A chain deeper than the parser's cap.
        for i in 0..2_000 {
            nodes.push(el(if i == 0 { 6 } else { 8 + i }, "DIV", &[], b, "block"));
        }
        let got = from_capture(&page(nodes));
        assert!(!got.styles.diagnostics().is_empty());
        assert_eq!(got.nodes[2], None);
        assert_eq!(got.nodes[3], None);
        assert_eq!(got.nodes[5], None);
        assert!(got.nodes[7].is_some());
        let deepest = got.nodes.last().copied().flatten().expect("placed");
        assert!(got.document.ancestors(deepest).count() <= crate::parse::MAX_DEPTH as usize);
    }

    #[test]
    fn foreign_elements_keep_their_namespace() {
        assert_eq!(namespace_of("svg", Markup::Html, None), Markup::Svg);
        assert_eq!(namespace_of("linearGradient", Markup::Svg, Some("svg".into())), Markup::Svg);
        assert_eq!(namespace_of("DIV", Markup::Svg, Some("foreignObject".into())), Markup::Html);
        assert_eq!(namespace_of("SVG", Markup::Html, None), Markup::Html);
        assert_eq!(namespace_of("mi", Markup::MathMl, Some("math".into())), Markup::MathMl);
    }

    #[test]
    fn fixed_and_clipped_boxes() {
        let mut header = el(2, "HEADER", &[], Some((0.0, 900.0, 100.0, 50.0)), "block");
        if let Some(s) = header.style.as_mut() {
            s[3] = "fixed".into();
        }
        let mut scroller = el(2, "DIV", &[], Some((0.0, 0.0, 100.0, 100.0)), "block");
        if let Some(s) = scroller.style.as_mut() {
            s[4] = "hidden".into();
            s[5] = "hidden".into();
        }
        let mut c = page(vec![
            el(0, "HTML", &[], Some((0.0, 0.0, 1280.0, 3000.0)), "block"), // 1
            el(1, "BODY", &[], Some((0.0, 0.0, 1280.0, 3000.0)), "block"), // 2
            header,                                                      // 3
            scroller,                                                    // 4
            el(4, "P", &[], Some((0.0, 500.0, 100.0, 20.0)), "block"),   // 5: clipped away
        ]);
        c.scroll_y = 900.0;
        c.content_height = 3000.0;
        let got = from_capture(&c);
        let header = got.nodes[3].expect("placed");
        let p = got.nodes[5].expect("placed");
        assert_eq!(got.layout.rect(header).map(|r| r.y), Some(0.0));
        assert_eq!(got.layout.placement(header), crate::Placement::InView);
        assert_eq!(got.layout.placement(p), crate::Placement::Below);
        assert_eq!(got.layout.content_height(), 3000.0);
    }
}
