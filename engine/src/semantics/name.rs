//! Accessible names and descriptions, per "Accessible Name and Description
//! Computation 1.2" §4.3 and HTML-AAM §4.1, with Chromium's choices where the
//! specs leave room (spaces around non-inline boxes, `::before`/`::after`
//! content with its alternative text, title before placeholder).
//!
//! The walk recurses into children for name-from-content, but never deeper
//! than [`MAX_DEPTH`] levels, and every computation has a node budget, so
//! hostile nesting can neither overflow the stack nor make naming quadratic.

use rustc_hash::FxHashSet;

use html5ever::{local_name, ns};

use super::Semantics;
use crate::dom::form::{control_value, input_type, option_label, selected_options};
use super::role::{Role, svg_title};
use crate::dom::{Document, Element, NodeData, NodeId};
use crate::style::values::{Content, ContentItem, Display};
use crate::style::{PseudoStyle, Styles};
use crate::text::{collapse_whitespace, split_html_space, trim_html};

/// How deep name-from-content recursion may go.
pub(crate) const MAX_DEPTH: u32 = 200;
/// How many nodes one name computation may visit.
const NODE_BUDGET: usize = 20_000;
/// Names longer than this are cut (the rest is never shown anyway).
const MAX_NAME_CHARS: usize = 4_000;
/// How many bytes of text one name computation may copy.
const BYTE_BUDGET: usize = MAX_NAME_CHARS * 4;

/// Why a node is being visited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The node whose name is asked for.
    Root,
    /// Reached through `aria-labelledby`/`aria-describedby`.
    Referenced,
    /// Inside a native `<label>` of `target`.
    Label { target: NodeId },
    /// A descendant, during name from content.
    Content,
}

#[derive(Debug, Clone, Copy)]
struct Walk {
    mode: Mode,
    /// Hidden nodes count (the traversal started at a hidden node reached
    /// by reference, or at a hidden root).
    hidden_ok: bool,
    /// Already inside an `aria-labelledby` traversal (labelledby is
    /// followed one level only).
    in_labelledby: bool,
    /// The label target, carried into descendants of a label.
    label_target: Option<NodeId>,
    depth: u32,
}

/// Computes names; holds the per-computation budget.
pub(crate) struct Namer<'a> {
    doc: &'a Document,
    styles: &'a Styles,
    sem: &'a Semantics,
    visited: FxHashSet<NodeId>,
    budget: usize,
    bytes_left: usize,
    root: NodeId,
}

impl<'a> Namer<'a> {
    pub(crate) fn new(doc: &'a Document, styles: &'a Styles, sem: &'a Semantics) -> Namer<'a> {
        Namer { doc, styles, sem, visited: FxHashSet::default(), budget: NODE_BUDGET, bytes_left: BYTE_BUDGET, root: NodeId::DOCUMENT }
    }

    fn start(&mut self, root: NodeId) {
        self.root = root;
        self.visited.clear();
        self.budget = NODE_BUDGET;
        self.bytes_left = BYTE_BUDGET;
    }

    /// The accessible name of `id`, whitespace collapsed.
    pub(crate) fn name(&mut self, id: NodeId) -> String {
        self.start(id);
        // An element its author made presentational has no name.
        if explicitly_presentational(self.doc, id, self.role(id)) {
            return String::new();
        }
        // A hidden root still gets a name from hidden labels and references,
        // but not from its own (hidden) content.
        let walk = Walk { mode: Mode::Root, hidden_ok: false, in_labelledby: false, label_target: None, depth: 0 };
        self.visited.insert(id);
        let raw = self.text_alternative(id, walk);
        finish(&raw)
    }

    /// The accessible description of `id`: `aria-describedby`, else
    /// `aria-description`, else a `title` that did not become the name.
    pub(crate) fn description(&mut self, id: NodeId, name: &str) -> String {
        let Some(e) = self.doc.element(id) else { return String::new() };
        if let Some(ids) = e.attr("aria-describedby") {
            self.start(id);
            let text = self.referenced(id, ids);
            if !text.trim().is_empty() {
                return finish(&text);
            }
        }
        if let Some(d) = e.attr("aria-description").filter(|d| !d.trim().is_empty()) {
            return collapse_whitespace(d);
        }
        if let Some(t) = e.attr("title").map(collapse_whitespace).filter(|t| !t.is_empty() && t != name) {
            return t;
        }
        if let Some(p) = e.attr("placeholder").map(collapse_whitespace).filter(|p| !p.is_empty() && p != name) {
            return p;
        }
        String::new()
    }

    fn is_hidden(&self, id: NodeId) -> bool {
        self.styles.hidden(id).is_some() || self.sem.is_aria_hidden(id)
    }

    fn role(&self, id: NodeId) -> Role {
        self.sem.role(id)
    }

    /// Text of the elements an id list refers to, joined by spaces.
    fn referenced(&mut self, from: NodeId, ids: &str) -> String {
        let mut parts = Vec::new();
        for token in split_html_space(ids) {
            let Some(target) = self.doc.element_by_id(token) else { continue };
            let walk = Walk {
                mode: Mode::Referenced,
                hidden_ok: self.is_hidden(target),
                in_labelledby: true,
                label_target: None,
                depth: 1,
            };
            // A node referenced twice in one computation counts once.
            if !self.visited.insert(target) && target != from {
                continue;
            }
            let text = self.text_alternative(target, walk);
            let text = text.trim();
            if !text.is_empty() {
                parts.push(text.to_owned());
            }
        }
        parts.join(" ")
    }

    /// accname 1.2 §4.3.2, steps 2A–2I, for one node.
    fn text_alternative(&mut self, id: NodeId, walk: Walk) -> String {
        if self.budget == 0 {
            return String::new();
        }
        self.budget -= 1;
        let doc = self.doc;
        match &doc.node(id).data {
            NodeData::Text(t) => {
                if !walk.hidden_ok && self.is_hidden(id) {
                    return String::new();
                }
                let style = self.styles.get(id);
                return style.text_transform.apply(self.take_bytes(t)).into_owned();
            }
            NodeData::Element(_) => {}
            _ => return String::new(),
        }
        let Some(e) = doc.element(id) else { return String::new() };
        // 2A: hidden and not referenced. An element hidden only by
        // `visibility` may still hold visible descendants: it contributes
        // their text and nothing of its own.
        if !walk.hidden_ok && walk.mode != Mode::Root && self.is_hidden(id) {
            let invisible_only = self.styles.hidden(id) == Some(crate::style::Hidden::Invisible)
                && !self.sem.is_aria_hidden(id);
            if invisible_only && walk.depth < MAX_DEPTH {
                return self.content(id, e, walk);
            }
            return String::new();
        }
        let role = self.role(id);
        // 2B: aria-labelledby, one level deep.
        if !walk.in_labelledby
            && let Some(ids) = labelledby(e)
        {
            let text = self.referenced(id, ids);
            if !text.trim().is_empty() {
                return text;
            }
        }
        let in_recursion = walk.mode != Mode::Root;
        // The control a label names is not part of its own name.
        if walk.label_target == Some(id) && in_recursion {
            return String::new();
        }
        // 2C/2E: an embedded control inside another's name gives its value.
        // (A field that lists itself in its own aria-labelledby contributes
        // its value there too: "Delete [5] days".)
        if in_recursion && (id != self.root || walk.mode == Mode::Referenced) && role.is_embedded_control() {
            return self.embedded_value(id, e, role);
        }
        // 2C: aria-label.
        if let Some(label) = e.attr("aria-label")
            && !trim_html(label).is_empty()
        {
            return label.to_owned();
        }
        // 2D: the host language, unless the author made the element
        // presentational (children of a button are presentational too, but
        // an image there still gives its alt).
        if !explicitly_presentational(doc, id, role) {
            if let Some(native) = self.native(id, e, walk) {
                if !native.trim().is_empty() {
                    return native;
                }
            }
        }
        // 2F: name from content.
        let from_content = match walk.mode {
            Mode::Root => role.name_from_content(),
            _ => true,
        };
        let mut spacing = String::new();
        if from_content && walk.depth < MAX_DEPTH {
            let text = self.content(id, e, walk);
            if !text.trim().is_empty() {
                return text;
            }
            // Whitespace still separates words in the parent's name.
            if in_recursion {
                spacing = text;
            }
        }
        // Dialogs and articles without a name take their first heading's
        // (accname 1.2 "name from heading", proposed).
        if walk.mode == Mode::Root && matches!(role, Role::Dialog | Role::AlertDialog | Role::Article) {
            if let Some(text) = self.first_heading_text(id) {
                return text;
            }
        }
        // 2I: tooltip, then placeholder for text fields.
        if let Some(title) = tooltip(e) {
            return title.to_owned();
        }
        if e.is_html(&local_name!("img")) && !e.has_attr("alt") {
            if let Some(caption) = self.sole_figure_caption(id) {
                return caption;
            }
        }
        if is_text_field(e) {
            for attr in ["placeholder", "aria-placeholder"] {
                if let Some(p) = e.attr(attr).filter(|p| !trim_html(p).is_empty()) {
                    return p.to_owned();
                }
            }
        }
        spacing
    }

    /// The text of the shallowest heading inside `id` (breadth first).
    fn first_heading_text(&mut self, id: NodeId) -> Option<String> {
        let doc = self.doc;
        let mut level: Vec<NodeId> = doc.element_children(id).collect();
        let mut seen = 0usize;
        while !level.is_empty() && seen < 2_000 {
            if let Some(&h) = level.iter().find(|&&n| self.role(n) == Role::Heading && !self.is_hidden(n)) {
                let he = doc.element(h)?;
                let walk = Walk { mode: Mode::Content, hidden_ok: false, in_labelledby: false, label_target: None, depth: 1 };
                let text = self.content(h, he, walk);
                return (!text.trim().is_empty()).then_some(text);
            }
            seen += level.len();
            level = level.iter().flat_map(|&n| doc.element_children(n)).collect();
        }
        None
    }

    /// The figcaption of the figure an image stands alone in (HTML-AAM:
    /// it names the image, not the figure, when nothing else is there).
    fn sole_figure_caption(&mut self, img: NodeId) -> Option<String> {
        let doc = self.doc;
        let figure = doc.parent_element(img)?;
        if !doc.element(figure)?.is_html(&local_name!("figure")) {
            return None;
        }
        let mut caption = None;
        for c in doc.children(figure) {
            if c == img {
                continue;
            }
            match &doc.node(c).data {
                NodeData::Text(t) if t.trim().is_empty() => {}
                NodeData::Comment(_) => {}
                NodeData::Element(ce) if ce.is_html(&local_name!("figcaption")) && caption.is_none() => caption = Some(c),
                _ => return None,
            }
        }
        let caption = caption?;
        let ce = doc.element(caption)?;
        let walk = Walk { mode: Mode::Content, hidden_ok: false, in_labelledby: false, label_target: None, depth: 1 };
        let text = self.content(caption, ce, walk);
        (!text.trim().is_empty()).then_some(text)
    }

    /// As much of `text` as the byte budget still allows (cut on a char
    /// boundary), charged to the budget.
    fn take_bytes<'t>(&mut self, text: &'t str) -> &'t str {
        let mut n = text.len().min(self.bytes_left);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        self.bytes_left -= n;
        &text[..n]
    }

    /// The text under `id`, within the byte budget.
    fn bounded_text(&mut self, id: NodeId) -> String {
        let mut out = String::new();
        for d in self.doc.descendants(id) {
            if self.bytes_left == 0 {
                break;
            }
            if let Some(t) = self.doc.text(d) {
                out.push_str(self.take_bytes(t));
            }
        }
        collapse_whitespace(&out)
    }

    /// The value of an embedded control (accname 1.2 step 2E).
    fn embedded_value(&mut self, id: NodeId, e: &Element, role: Role) -> String {
        let doc = self.doc;
        match role {
            Role::Textbox | Role::Searchbox => {
                if e.is_html(&local_name!("input")) {
                    control_value(doc, id)
                } else {
                    self.bounded_text(id)
                }
            }
            Role::Combobox | Role::Listbox => {
                if e.is_html(&local_name!("select")) {
                    return selected_options(doc, id)
                        .into_iter()
                        .map(|o| option_label(doc, o))
                        .collect::<Vec<_>>()
                        .join(" ");
                }
                if e.is_html(&local_name!("input")) {
                    return control_value(doc, id);
                }
                // ARIA: the selected option(s), else the text shown.
                let options: Vec<NodeId> = doc
                    .descendants(id)
                    .take(NODE_BUDGET)
                    .filter(|&d| {
                        self.sem.role(d) == Role::Option
                            && doc.element(d).and_then(|de| de.attr("aria-selected")).is_some_and(|v| v.eq_ignore_ascii_case("true"))
                    })
                    .collect();
                if !options.is_empty() {
                    let texts: Vec<String> = options.into_iter().map(|d| self.bounded_text(d)).collect();
                    return texts.join(" ");
                }
                if role == Role::Combobox { self.bounded_text(id) } else { String::new() }
            }
            _ => range_value(doc, id, e),
        }
    }

    /// HTML-AAM §4.1: names the host language gives.
    fn native(&mut self, id: NodeId, e: &Element, walk: Walk) -> Option<String> {
        let doc = self.doc;
        if e.name.ns == ns!(svg) {
            return svg_title(doc, id);
        }
        if !e.is_html_element() {
            return None;
        }
        let local = e.local_name().clone();
        match local {
            local_name!("input") => {
                let kind = input_type(e);
                if kind != "hidden"
                    && let Some(labels) = self.labels(id, walk)
                {
                    return Some(labels);
                }
                match kind {
                    "button" | "submit" | "reset" => {
                        if let Some(v) = e.attr("value") {
                            return Some(v.to_owned());
                        }
                        match kind {
                            "submit" => Some("Submit".to_owned()),
                            "reset" => Some("Reset".to_owned()),
                            _ => None,
                        }
                    }
                    "image" => e
                        .attr("alt")
                        .or_else(|| e.attr("value"))
                        .map(str::to_owned)
                        .or_else(|| e.attr("title").is_none().then(|| "Submit".to_owned())),
                    _ => None,
                }
            }
            local_name!("button") | local_name!("select") | local_name!("textarea") | local_name!("meter")
            | local_name!("output") | local_name!("progress") => self.labels(id, walk),
            local_name!("img") | local_name!("area") => e.attr("alt").map(str::to_owned),
            local_name!("fieldset") => self.first_child_text(id, &local_name!("legend"), walk),
            // A figcaption no longer names its figure (HTML-AAM, 2024).
            local_name!("table") => self
                .first_child_text(id, &local_name!("caption"), walk)
                .filter(|t| !t.trim().is_empty())
                .or_else(|| e.attr("summary").map(str::to_owned)),
            // A customizable select's optgroup is named by its legend.
            local_name!("optgroup") => self
                .first_child_text(id, &local_name!("legend"), walk)
                .filter(|t| !t.trim().is_empty())
                .or_else(|| e.attr("label").map(str::to_owned)),
            local_name!("option") => e.attr("label").filter(|l| !l.is_empty()).map(str::to_owned),
            _ => None,
        }
    }

    /// The text of a control's `<label>`s (HTML §4.10.4), joined.
    fn labels(&mut self, id: NodeId, walk: Walk) -> Option<String> {
        if walk.depth >= MAX_DEPTH || (walk.in_labelledby && walk.mode != Mode::Root) {
            // Inside a labelledby traversal, a control contributes its value,
            // not its labels; handled by the embedded-control step.
            return None;
        }
        let labels = self.sem.labels_of(id);
        if labels.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        for &label in labels {
            if !self.visited.insert(label) {
                continue;
            }
            let hidden = self.is_hidden(label);
            let w = Walk {
                mode: Mode::Label { target: id },
                hidden_ok: hidden || walk.hidden_ok,
                in_labelledby: walk.in_labelledby,
                label_target: Some(id),
                depth: walk.depth + 1,
            };
            let Some(le) = self.doc.element(label) else { continue };
            // A label's own aria-label/labelledby do not apply to the
            // control; its content does.
            let text = self.content(label, le, w);
            let text = text.trim();
            if !text.is_empty() {
                parts.push(text.to_owned());
            }
        }
        let joined = parts.join(" ");
        (!joined.is_empty()).then_some(joined)
    }

    fn first_child_text(&mut self, id: NodeId, local: &html5ever::LocalName, walk: Walk) -> Option<String> {
        if walk.depth >= MAX_DEPTH {
            return None;
        }
        let child = self.doc.element_children(id).find(|&c| self.doc.element(c).is_some_and(|ce| ce.is_html(local)))?;
        let w = Walk { mode: Mode::Content, depth: walk.depth + 1, ..walk };
        let ce = self.doc.element(child)?;
        Some(self.content(child, ce, w))
    }

    /// Name from content: `::before`, the children, `::after`, with spaces
    /// around boxes that are not inline.
    fn content(&mut self, id: NodeId, e: &Element, walk: Walk) -> String {
        let mut out = String::new();
        if let Some(before) = self.styles.before(id) {
            push_part(&mut out, &pseudo_text(before, e), before.display);
        }
        let child_mode = match walk.mode {
            Mode::Root | Mode::Referenced => Mode::Content,
            other => other,
        };
        let child_walk = Walk { mode: child_mode, depth: walk.depth + 1, ..walk };
        let children: Vec<NodeId> = self.sem.ax_children(self.doc, id).collect();
        for child in children {
            if self.budget == 0 || self.bytes_left == 0 {
                break;
            }
            // A node already used through aria-labelledby in this
            // computation is not counted twice.
            if self.visited.contains(&child) {
                continue;
            }
            // A heading does not take its name from a heading nested in it.
            if self.role(self.root) == Role::Heading && self.role(child) == Role::Heading {
                continue;
            }
            let text = self.text_alternative(child, child_walk);
            let display = match self.doc.element(child) {
                Some(ce) => display_for_spacing(self.styles, child, ce),
                None => Display::Inline,
            };
            push_part(&mut out, &text, display);
        }
        if let Some(after) = self.styles.after(id) {
            push_part(&mut out, &pseudo_text(after, e), after.display);
        }
        out
    }
}

/// `aria-labelledby`, or Chromium's legacy spelling `aria-labeledby`,
/// whichever the element has first.
fn labelledby(e: &Element) -> Option<&str> {
    e.attrs
        .iter()
        .find(|a| a.name.ns == ns!() && matches!(&*a.name.local, "aria-labelledby" | "aria-labeledby"))
        .map(|a| a.value.as_str())
}

/// The tooltip: `title`, or `xlink:title` on SVG elements.
fn tooltip(e: &Element) -> Option<&str> {
    e.attr("title")
        .or_else(|| {
            e.attrs
                .iter()
                .find(|a| a.name.ns == ns!(xlink) && &*a.name.local == "title")
                .map(|a| a.value.as_str())
        })
        .filter(|t| !trim_html(t).is_empty())
}

/// Whether the author gave the element `role="none"`/`presentation` and
/// the role stuck (no conflict made it ignored).
fn explicitly_presentational(doc: &Document, id: NodeId, role: Role) -> bool {
    role == Role::None
        && doc.element(id).and_then(|e| e.attr("role")).is_some_and(|r| {
            split_html_space(r).find_map(Role::from_aria) == Some(Role::None)
        })
}

/// Whether the element is a text entry field (placeholder applies).
fn is_text_field(e: &Element) -> bool {
    e.is_html(&local_name!("textarea"))
        || (e.is_html(&local_name!("input"))
            && matches!(input_type(e), "text" | "search" | "url" | "tel" | "email" | "password" | "number"))
}

/// The value of a range widget: `aria-valuetext`, `aria-valuenow`, or the
/// native value.
pub fn range_value(doc: &Document, id: NodeId, e: &Element) -> String {
    if let Some(t) = e.attr("aria-valuetext").filter(|t| !t.trim().is_empty()) {
        return t.to_owned();
    }
    if let Some(n) = e.attr("aria-valuenow").filter(|t| !t.trim().is_empty()) {
        return n.trim().to_owned();
    }
    if e.is_html(&local_name!("input")) {
        return control_value(doc, id);
    }
    if e.is_html(&local_name!("meter")) || e.is_html(&local_name!("progress")) {
        return e.attr("value").map(|v| v.trim().to_owned()).unwrap_or_default();
    }
    String::new()
}

/// How a child's box separates it from its neighbours in a name: inline
/// boxes join directly, everything else gets spaces.
fn display_for_spacing(styles: &Styles, id: NodeId, e: &Element) -> Display {
    if e.is_html(&local_name!("br")) {
        return Display::Block;
    }
    match styles.get(id).display {
        Display::None | Display::Contents => Display::Inline,
        d => d,
    }
}

fn push_part(out: &mut String, text: &str, display: Display) {
    if text.is_empty() {
        return;
    }
    let spaced = display != Display::Inline;
    if spaced {
        out.push(' ');
    }
    out.push_str(text);
    if spaced {
        out.push(' ');
    }
}

/// The text of generated content: its alternative text when it has one.
/// Private-use characters (icon-font glyphs) are dropped: they mean nothing
/// as text.
pub(crate) fn pseudo_text(pseudo: &PseudoStyle, e: &Element) -> String {
    let Content::Items(items, alt) = &pseudo.content else { return String::new() };
    let items = alt.as_ref().unwrap_or(items);
    let mut out = String::new();
    for item in items {
        match item {
            ContentItem::Text(t) => out.push_str(t),
            ContentItem::Attr(name) => out.push_str(e.attr(name).unwrap_or("")),
            ContentItem::Image | ContentItem::Other => {}
        }
    }
    out.retain(|c| !is_private_use(c));
    out
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Collapses whitespace, trims any whitespace (NBSP too) from both ends,
/// and cuts overlong names.
fn finish(raw: &str) -> String {
    let collapsed = collapse_whitespace(raw);
    let collapsed = match collapsed.trim() {
        t if t.len() == collapsed.len() => collapsed,
        t => t.to_owned(),
    };
    if collapsed.chars().count() > MAX_NAME_CHARS {
        crate::text::truncate_chars(&collapsed, MAX_NAME_CHARS)
    } else {
        collapsed
    }
}
