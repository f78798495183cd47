//! The walk that builds the tree: every node in accessibility-tree order
//! (`aria-owns` applied), each element shown as a line, a widget in a
//! line, or its children's text, hidden and concealed text left out and
//! counted, label text not repeated. Iterative: a deep page cannot
//! overflow the stack.

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use html5ever::local_name;

use crate::dom::{Document, Edge, Element, NodeData, NodeId};
use crate::safety::conceal::{self, Concealment};
use crate::safety::injection;
use crate::semantics::{AxNode, NameComputer, Semantics, role::Role};
use crate::style::values::Display;
use crate::style::{Hidden, Styles};
use crate::text::{is_html_space, separates_words};

use super::{AxTree, Item, ItemId, Prefix, Segment, Widget};

/// `<label>`s whose text is the name of the visible control they label:
/// their text is not shown again.
pub(super) fn consumed_labels(doc: &Document, styles: &Styles, sem: &Semantics) -> FxHashSet<NodeId> {
    let mut out = FxHashSet::default();
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(e) = doc.element(id) else { continue };
        if !e.is_html(&local_name!("label")) {
            continue;
        }
        let Some(control) = crate::dom::form::labeled_control(doc, id) else { continue };
        let Some(ce) = doc.element(control) else { continue };
        let named_otherwise = ce.attr("aria-label").is_some_and(|l| !l.trim().is_empty()) || ce.has_attr("aria-labelledby");
        if !named_otherwise && !sem.is_hidden(styles, control) && sem.role(control) != Role::None {
            out.insert(id);
        }
    }
    out
}

/// A piece of a line under construction.
#[derive(Debug, Clone)]
enum Piece<'a> {
    Text(Cow<'a, str>),
    Space,
    Sep(&'static str),
    Widget(usize),
}

/// Where content goes: a container (lines become child items) or a
/// single-line item (boundaries become spaces).
#[derive(Debug)]
pub(super) struct Sink<'a> {
    item: Option<ItemId>,
    single_line: bool,
    line: Vec<Piece<'a>>,
    /// The first text node of `line`.
    first: Option<NodeId>,
}

/// What to undo when an element closes.
#[derive(Debug, Default, Clone, Copy)]
struct Frame {
    pop_sink: bool,
    boundary: bool,
    soft_space: bool,
    suppress: bool,
}

pub(super) struct Builder<'a> {
    doc: &'a Document,
    styles: &'a Styles,
    conceal: &'a Concealment,
    sem: &'a Semantics,
    namer: NameComputer<'a>,
    tree: AxTree,
    sinks: Vec<Sink<'a>>,
    consumed: FxHashSet<NodeId>,
    suppress_text: u32,
}

/// How an element is shown.
enum Kind {
    Widget,
    Container,
    Heading,
    Live,
    ListItem,
    Row,
    Cell,
    Break,
    Block,
    InlineBlock,
    Inline,
    Skip,
}

/// Roles shown as containers: a line of their own, their content one
/// level deeper.
pub fn container_role(role: Role) -> bool {
    matches!(
        role,
        Role::Banner
            | Role::ContentInfo
            | Role::Navigation
            | Role::Complementary
            | Role::Main
            | Role::Search
            | Role::Region
            | Role::Form
            | Role::List
            | Role::Table
            | Role::Grid
            | Role::TreeGrid
            | Role::Dialog
            | Role::AlertDialog
            | Role::Group
            | Role::RadioGroup
            | Role::TabList
            | Role::TabPanel
            | Role::Menu
            | Role::Menubar
            | Role::Toolbar
            | Role::Tree
            | Role::Figure
            | Role::Article
            | Role::Feed
    )
}

/// Containers shown only when they have a name.
fn needs_name(role: Role) -> bool {
    matches!(role, Role::Group | Role::TabPanel | Role::Figure | Role::RadioGroup | Role::Toolbar | Role::TabList)
}

/// Roles that get refs.
pub(super) fn wants_ref(role: Role) -> bool {
    (role.is_interactive() && role != Role::GridCell)
        || matches!(role, Role::Iframe | Role::List | Role::Table | Role::Grid | Role::TreeGrid | Role::Tree | Role::Form)
}

/// The tree of items and widgets, before empty containers are pruned and
/// refs are given.
pub(super) fn walk(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> AxTree {
    let mut b = Builder {
        doc,
        styles,
        conceal,
        sem,
        namer: sem.namer(doc, styles),
        tree: AxTree::default(),
        sinks: vec![Sink { item: None, single_line: false, line: Vec::new(), first: None }],
        consumed: consumed_labels(doc, styles, sem),
        suppress_text: 0,
    };
    b.tree.counters.removed_instructions = conceal.removed_instructions;
    b.tree.counters.bot_challenge = conceal.challenge;
    b.run();
    b.tree
}

impl<'a> Builder<'a> {
    fn run(&mut self) {
        let doc = self.doc;
        let mut frames: Vec<Frame> = Vec::new();
        let mut walk = doc.traverse(NodeId::DOCUMENT);
        while let Some(edge) = walk.next() {
            match edge {
                Edge::Open(id) => {
                    match &doc.node(id).data {
                        NodeData::Text(t) => {
                            if self.suppress_text == 0 {
                                self.text(id, t);
                            }
                            walk.skip_children(id);
                            frames.push(Frame::default());
                        }
                        NodeData::Element(e) => {
                            let (frame, descend) = self.open(id, e);
                            frames.push(frame);
                            if !descend {
                                walk.skip_children(id);
                            }
                        }
                        NodeData::Document => frames.push(Frame::default()),
                        _ => {
                            walk.skip_children(id);
                            frames.push(Frame::default());
                        }
                    }
                }
                Edge::Close(_) => {
                    let frame = frames.pop().unwrap_or_default();
                    self.close(frame);
                }
            }
        }
        // The document frame closed; flush what is left.
        self.flush_line();
    }

    fn text(&mut self, id: NodeId, text: &'a str) {
        let hidden = self.styles.hidden(id);
        if hidden.is_some() || self.sem.is_ax_hidden(id) {
            if matches!(hidden, Some(Hidden::Invisible)) && !text.trim().is_empty() {
                self.tree.counters.omitted_not_visible += 1;
            }
            return;
        }
        // Text a person cannot see (see `safety::conceal`).
        if self.conceal.text_concealed(id) {
            if !text.trim().is_empty() {
                self.tree.counters.omitted_not_visible += 1;
            }
            return;
        }
        // Whitespace between tags (most text nodes of an indented page) is
        // a word break and nothing more, unless it holds a line break that
        // `white-space` keeps: nothing to read, scan or copy.
        if is_blank(text)
            && !(text.contains('\n') && self.styles.get(id).white_space.keeps_newlines() && !self.in_single_line())
        {
            self.push(Piece::Space);
            return;
        }
        // Characters a person cannot see: tag characters, zero-width runs,
        // bidi controls, and Latin text an override turns backwards.
        let readable = conceal::readable(text);
        if readable.instructions {
            self.tree.counters.removed_instructions += 1;
        }
        let text: Cow<'a, str> = readable.text;
        if injection::reads_like_instructions(&text) {
            self.tree.counters.suspected_injection += 1;
        }
        if let Some(sink) = self.sinks.last_mut()
            && sink.first.is_none()
            && !text.trim().is_empty()
        {
            sink.first = Some(id);
        }
        let style = self.styles.get(id);
        // The page's own text is borrowed, not copied, unless a transform
        // or a cleaning changed it.
        let text = match style.text_transform.apply(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(changed) => Cow::Owned(changed),
        };
        let keep_newlines = style.white_space.keeps_newlines();
        let single = self.sinks.last().is_some_and(|s| s.single_line);
        if keep_newlines && !single && text.contains('\n') {
            let mut first = true;
            for part in text.split('\n') {
                if !first {
                    self.boundary();
                }
                first = false;
                self.push(Piece::Text(Cow::Owned(part.to_owned())));
            }
        } else {
            self.push(Piece::Text(text));
        }
    }

    fn push(&mut self, piece: Piece<'a>) {
        if let Some(s) = self.sinks.last_mut() {
            s.line.push(piece);
        }
    }

    /// A block boundary: a new line in a container, a space in a line.
    fn boundary(&mut self) {
        if self.sinks.last().is_some_and(|s| s.single_line) {
            self.push(Piece::Space);
        } else {
            self.flush_line();
        }
    }

    /// Turns the current container line into an item.
    fn flush_line(&mut self) {
        let Some(sink) = self.sinks.last_mut() else { return };
        if sink.single_line || sink.line.is_empty() {
            return;
        }
        let pieces = std::mem::take(&mut sink.line);
        let first = sink.first.take();
        let parent = sink.item;
        let head = finalize(&pieces);
        if head.is_empty() {
            return;
        }
        let item = self.new_item(None, Prefix::None, head);
        self.tree.items[item].at = first;
        self.attach(parent, item);
    }

    fn new_item(&mut self, node: Option<NodeId>, prefix: Prefix, head: Vec<Segment>) -> ItemId {
        self.tree.items.push(Item { node, prefix, head, children: Vec::new(), keep: false, at: node });
        self.tree.items.len() - 1
    }

    fn attach(&mut self, parent: Option<ItemId>, child: ItemId) {
        match parent {
            Some(p) => self.tree.items[p].children.push(child),
            None => self.tree.roots.push(child),
        }
    }

    fn current_item(&self) -> Option<ItemId> {
        self.sinks.last().and_then(|s| s.item)
    }

    fn in_single_line(&self) -> bool {
        self.sinks.last().is_some_and(|s| s.single_line)
    }

    fn widget(&mut self, id: NodeId, ax: AxNode) -> usize {
        if ax.sensitive.is_some() {
            self.tree.counters.redacted_fields += 1;
        }
        if ax.role == Role::Iframe {
            self.tree.counters.frames_masked += 1;
        }
        self.tree.widgets.push(Widget {
            node: id,
            ref_id: None,
            wants_ref: wants_ref(ax.role),
            role: ax.role,
            name: ax.name,
            value: ax.value,
            options: ax.options,
            states: ax.states,
            sensitive: ax.sensitive,
        });
        self.tree.widgets.len() - 1
    }

    fn classify(&self, id: NodeId, e: &Element, role: Role) -> Kind {
        let display = self.styles.get(id).display;
        if e.is_html(&local_name!("br")) {
            return Kind::Break;
        }
        if matches!(*e.local_name(), local_name!("video") | local_name!("audio")) && e.is_html_element() {
            return Kind::Skip;
        }
        let widget_role = (role.is_interactive() && role != Role::GridCell)
            || matches!(role, Role::Image | Role::Iframe | Role::Meter | Role::ProgressBar);
        if widget_role {
            return Kind::Widget;
        }
        // A named SVG is a picture with a name; an unnamed one may hold text.
        if role == Role::GraphicsDocument && crate::semantics::role::svg_title(self.doc, id).is_some()
            || role == Role::GraphicsDocument && e.has_attr("aria-label")
        {
            return Kind::Widget;
        }
        match role {
            Role::Heading => return Kind::Heading,
            Role::Alert | Role::Status | Role::Log | Role::Timer | Role::Marquee => return Kind::Live,
            Role::ListItem => return Kind::ListItem,
            Role::Row => return Kind::Row,
            Role::Cell | Role::GridCell | Role::ColumnHeader | Role::RowHeader => return Kind::Cell,
            r if container_role(r) => return Kind::Container,
            _ => {}
        }
        match display {
            Display::Inline | Display::Contents => Kind::Inline,
            Display::InlineBlock => Kind::InlineBlock,
            _ => Kind::Block,
        }
    }

    /// Handles an element opening; returns what to do on close and whether
    /// to walk its children.
    fn open(&mut self, id: NodeId, e: &Element) -> (Frame, bool) {
        let mut frame = Frame::default();
        // A hidden region that reads like instructions: nothing of it.
        if self.conceal.withheld(id) {
            if has_content(self.doc, id) {
                self.tree.counters.omitted_not_visible += 1;
            }
            return (frame, false);
        }
        // Hidden: count, skip. `visibility:hidden` alone lets visible
        // descendants through, so those are walked.
        match self.styles.hidden(id) {
            Some(Hidden::Invisible) if !self.sem.is_ax_hidden(id) => return (frame, true),
            Some(_) => {
                // `<head>`, scripts and styles are hidden by what they are,
                // not by the page's choice: nothing of them is "omitted".
                if !is_metadata(e) && has_content(self.doc, id) {
                    self.tree.counters.omitted_not_visible += 1;
                }
                return (frame, false);
            }
            None if self.sem.is_ax_hidden(id) => {
                if has_content(self.doc, id) {
                    self.tree.counters.omitted_not_visible += 1;
                }
                return (frame, false);
            }
            None => {}
        }
        if self.consumed.contains(&id) {
            self.suppress_text += 1;
            frame.suppress = true;
        }
        let role = self.sem.role(id);
        let kind = self.classify(id, e, role);
        match kind {
            Kind::Skip => return (frame, false),
            Kind::Break => {
                self.boundary();
                return (frame, false);
            }
            Kind::Inline => {}
            Kind::InlineBlock => {
                self.push(Piece::Space);
                frame.soft_space = true;
            }
            Kind::Block => {
                self.boundary();
                frame.boundary = true;
            }
            Kind::Widget => {
                let mut ax = self.sem.ax_node_with(&mut self.namer, self.doc, self.styles, id);
                if matches!(role, Role::Image | Role::GraphicsDocument) && ax.name.trim().is_empty() {
                    return (frame, false);
                }
                if role == Role::GraphicsDocument {
                    ax.role = Role::Image;
                }
                // Inline widgets flow with the text (`finalize` keeps them
                // apart from words); block-level ones get their own line.
                // A field ends its line too: fields are wide, and a person
                // sees a form as one field per line, each after its label.
                let block = !self.styles.get(id).display.is_inline_level();
                let field = matches!(
                    role,
                    Role::Textbox | Role::Searchbox | Role::Combobox | Role::Listbox | Role::SpinButton | Role::Slider
                );
                if block {
                    self.boundary();
                }
                let w = self.widget(id, ax);
                self.push(Piece::Widget(w));
                if block || field {
                    self.boundary();
                }
                if frame.suppress {
                    self.suppress_text -= 1;
                }
                return (Frame::default(), false);
            }
            Kind::Container => {
                if self.in_single_line() {
                    self.push(Piece::Space);
                    frame.soft_space = true;
                } else {
                    let mut ax = self.sem.ax_node_with(&mut self.namer, self.doc, self.styles, id);
                    // A name taken from the first heading would only repeat
                    // the heading line just below.
                    if matches!(role, Role::Dialog | Role::AlertDialog | Role::Article) && !author_named(e) {
                        ax.name.clear();
                    }
                    if needs_name(role) && ax.name.is_empty() {
                        self.boundary();
                        frame.boundary = true;
                    } else {
                        let shows_caption = self.consume_caption(id, e, &ax);
                        self.flush_line();
                        let w = self.widget(id, ax);
                        let item = self.new_item(Some(id), Prefix::None, vec![Segment::Widget(w)]);
                        self.tree.items[item].keep = shows_caption;
                        let parent = self.current_item();
                        self.attach(parent, item);
                        self.sinks.push(Sink { item: Some(item), single_line: false, line: Vec::new(), first: None });
                        frame.pop_sink = true;
                    }
                }
            }
            Kind::Heading | Kind::Live | Kind::Row => {
                if self.in_single_line() {
                    self.push(Piece::Space);
                    frame.soft_space = true;
                } else {
                    self.flush_line();
                    let prefix = match kind {
                        Kind::Heading => Prefix::Heading(crate::semantics::state::heading_level(e)),
                        Kind::Live => Prefix::Live(role),
                        _ => Prefix::None,
                    };
                    let item = self.new_item(Some(id), prefix, Vec::new());
                    let parent = self.current_item();
                    self.attach(parent, item);
                    self.sinks.push(Sink { item: Some(item), single_line: true, line: Vec::new(), first: None });
                    frame.pop_sink = true;
                }
            }
            Kind::ListItem => {
                if self.in_single_line() {
                    self.push(Piece::Space);
                    frame.soft_space = true;
                } else {
                    self.flush_line();
                    let item = self.new_item(Some(id), Prefix::ListItem, Vec::new());
                    let parent = self.current_item();
                    self.attach(parent, item);
                    self.sinks.push(Sink { item: Some(item), single_line: false, line: Vec::new(), first: None });
                    frame.pop_sink = true;
                }
            }
            Kind::Cell => {
                if self.in_single_line() {
                    if self.sinks.last().is_some_and(|s| !s.line.is_empty()) {
                        self.push(Piece::Sep(" | "));
                    }
                } else {
                    self.boundary();
                    frame.boundary = true;
                }
            }
        }
        (frame, true)
    }

    /// A fieldset's legend, a table's caption or a figure's figcaption
    /// that became the container's name is not shown again. Returns whether
    /// one was.
    fn consume_caption(&mut self, id: NodeId, e: &Element, ax: &AxNode) -> bool {
        if ax.name.is_empty() || e.has_attr("aria-label") || e.has_attr("aria-labelledby") {
            return false;
        }
        let wanted = match *e.local_name() {
            local_name!("fieldset") => local_name!("legend"),
            local_name!("table") => local_name!("caption"),
            local_name!("figure") => local_name!("figcaption"),
            _ => return false,
        };
        match self.doc.element_children(id).find(|&c| self.doc.element(c).is_some_and(|ce| ce.is_html(&wanted))) {
            Some(c) => {
                self.consumed.insert(c);
                true
            }
            None => false,
        }
    }

    fn close(&mut self, frame: Frame) {
        if frame.pop_sink {
            let single = self.in_single_line();
            if !single {
                self.flush_line();
            }
            if let Some(sink) = self.sinks.pop()
                && let Some(item) = sink.item
            {
                if single {
                    self.tree.items[item].head = finalize(&sink.line);
                } else if self.tree.items[item].prefix == Prefix::ListItem {
                    self.merge_list_item(item);
                }
            }
        }
        if frame.boundary {
            self.boundary();
        }
        if frame.soft_space {
            self.push(Piece::Space);
        }
        if frame.suppress {
            self.suppress_text -= 1;
        }
    }

    /// A list item's leading one-line children (text, controls, headings)
    /// become its own line, joined by ` · `; anything with structure below
    /// it (a nested list, a table, a landmark) stays below it.
    fn merge_list_item(&mut self, item: ItemId) {
        let children = std::mem::take(&mut self.tree.items[item].children);
        let mut head: Vec<Segment> = Vec::new();
        let mut rest = Vec::new();
        let mut merging = true;
        for c in children {
            let child = &self.tree.items[c];
            let container = matches!(child.head.as_slice(), [Segment::Widget(w)] if container_role(self.tree.widgets[*w].role));
            let one_line = child.children.is_empty() && !container && child.prefix != Prefix::ListItem;
            if merging && one_line {
                if !head.is_empty() {
                    head.push(Segment::Text(" · ".to_owned()));
                }
                match child.prefix {
                    Prefix::Heading(level) => head.push(Segment::Text(format!("h{level} "))),
                    Prefix::Live(role) => head.push(Segment::Text(format!("{}: ", role.as_str()))),
                    Prefix::None | Prefix::ListItem => {}
                }
                head.extend(child.head.iter().cloned());
            } else {
                merging = false;
                rest.push(c);
            }
        }
        let it = &mut self.tree.items[item];
        it.head = merge_texts(head);
        it.children = rest;
    }
}

/// Joins adjacent text segments.
fn merge_texts(segments: Vec<Segment>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(segments.len());
    for s in segments {
        match (out.last_mut(), s) {
            (Some(Segment::Text(prev)), Segment::Text(t)) => prev.push_str(&t),
            (_, s) => out.push(s),
        }
    }
    out
}

/// Whether the author named the element (not its content or a heading).
fn author_named(e: &Element) -> bool {
    ["aria-label", "aria-labelledby", "title"].iter().any(|a| e.attr(a).is_some_and(|v| !v.trim().is_empty()))
}

/// Whether a hidden subtree holds anything a person would have seen: text
/// or a control.
/// Elements that never show content, whatever the page: metadata,
/// scripts, styles, templates.
fn is_metadata(e: &Element) -> bool {
    e.is_html_element()
        && matches!(
            *e.local_name(),
            local_name!("head")
                | local_name!("script")
                | local_name!("style")
                | local_name!("template")
                | local_name!("title")
                | local_name!("meta")
                | local_name!("link")
                | local_name!("base")
                | local_name!("noscript")
        )
}

fn has_content(doc: &Document, id: NodeId) -> bool {
    doc.descendants(id).any(|d| match &doc.node(d).data {
        NodeData::Text(t) => !t.trim().is_empty(),
        NodeData::Element(e) => {
            e.is_html_element()
                && matches!(
                    *e.local_name(),
                    local_name!("input") | local_name!("button") | local_name!("select") | local_name!("textarea")
                        | local_name!("img")
                )
        }
        _ => false,
    })
}

/// Whether `text` is HTML whitespace only (at least one character).
fn is_blank(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| is_html_space(char::from(b)))
}

/// Where the first character of `s` that is (`separator`) or is not a
/// word separator ([`separates_words`]) starts (`s.len()`: none). ASCII is
/// read by its byte, without decoding.
fn next_separator(s: &str, separator: bool) -> usize {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let (is_separator, len) = match bytes[i] {
            b @ 0..0x80 => (separates_words(char::from(b)), 1),
            _ => match s[i..].chars().next() {
                Some(c) => (separates_words(c), c.len_utf8()),
                None => break,
            },
        };
        if is_separator == separator {
            return i;
        }
        i += len;
    }
    bytes.len()
}

/// Joins the pieces of a line: whitespace collapsed, no space at either
/// end, widgets kept apart from words.
fn finalize(pieces: &[Piece<'_>]) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut text = String::new();
    let mut pending_space = false;
    let mut after_widget = false;
    let mut any = false;
    for piece in pieces {
        match piece {
            Piece::Text(t) => {
                // Separators' runs become one space. A word is copied whole:
                // only its first character decides the space before.
                let mut rest: &str = t;
                while !rest.is_empty() {
                    let start = next_separator(rest, false);
                    if start > 0 {
                        pending_space = true;
                        rest = &rest[start..];
                    }
                    let end = next_separator(rest, true);
                    let Some(first) = rest[..end].chars().next() else { break };
                    if any && (pending_space || (after_widget && first.is_alphanumeric())) && !text.ends_with(' ') {
                        text.push(' ');
                    }
                    pending_space = false;
                    after_widget = false;
                    text.push_str(&rest[..end]);
                    any = true;
                    rest = &rest[end..];
                }
            }
            Piece::Space => pending_space = true,
            Piece::Sep(s) => {
                if any {
                    let trimmed = text.trim_end_matches(' ').len();
                    text.truncate(trimmed);
                    text.push_str(s);
                    pending_space = false;
                    after_widget = false;
                }
            }
            Piece::Widget(w) => {
                if any && (pending_space || text.chars().last().is_some_and(char::is_alphanumeric) || after_widget)
                    && !text.ends_with(' ')
                {
                    text.push(' ');
                }
                if !text.is_empty() {
                    out.push(Segment::Text(std::mem::take(&mut text)));
                }
                out.push(Segment::Widget(*w));
                pending_space = false;
                after_widget = true;
                any = true;
            }
        }
    }
    let trimmed = text.trim_end_matches(' ').len();
    text.truncate(trimmed);
    if text.ends_with(" | ") || text.ends_with(" |") {
        let t = text.trim_end_matches([' ', '|']).len();
        text.truncate(t);
    }
    if !text.is_empty() {
        out.push(Segment::Text(text));
    }
    out
}
