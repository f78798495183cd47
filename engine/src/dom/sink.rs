//! html5ever's `TreeSink` writing straight into the arena.
//!
//! The parser calls these methods through `&self`, so the arena sits in a
//! `RefCell`; every borrow is short and never held across a call back into
//! the parser.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use compact_str::CompactString;
use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, ExpandedName, LocalName, QualName, local_name, ns};

use super::mutate::{link_before, link_last, unlink};
use super::{Attr, Document, Element, NodeData, NodeId};
use super::MAX_DEPTH;

/// Parse errors beyond this many are counted, not kept.
const KEPT_PARSE_ERRORS: usize = 8;

/// A node as the tree builder holds it: its id, and for an element its
/// name, so that the builder reads names (which it does at every step)
/// without reaching into the arena. The name lives in the parse's
/// [`Names`], so a handle is a plain copy: the builder clones handles at
/// every step (its stack, its list of formatting elements, each insertion
/// point), and a copy of two words costs no reference count and no drop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handle<'n> {
    pub(crate) id: NodeId,
    name: &'n QualName,
}

/// The name of every node that is not an element: the builder never asks
/// for it.
static NO_NAME: QualName = QualName { prefix: None, ns: ns!(), local: local_name!("") };

impl Handle<'_> {
    /// A node that is not an element (the document, a comment, a
    /// template's contents).
    fn other(id: NodeId) -> Handle<'static> {
        Handle { id, name: &NO_NAME }
    }
}

/// The element names of one parse, one entry per element created, freed
/// when the parse ends.
pub(crate) type Names = typed_arena::Arena<QualName>;

pub(crate) struct ArenaSink<'n> {
    /// Where the handles' names are kept.
    names: &'n Names,
    tree: RefCell<Tree>,
    parse_errors: Cell<usize>,
    kept_errors: RefCell<Vec<Cow<'static, str>>>,
    /// The element the parser most likely has as its current node: the last
    /// non-void element inserted, or the parent of the last one popped.
    current: Cell<Option<NodeId>>,
}

/// The document being built, and each node's depth.
struct Tree {
    doc: Document,
    depths: Depths,
}

/// Each node's depth below the top of its tree (the document, a template's
/// contents, or a detached node), kept as nodes are linked so that the
/// depth cap costs no walk up the ancestors. A node moved with its
/// children (the adoption agency, foster parenting) moves its subtree's
/// depths too; past a budget of such work (a page built to move the same
/// large subtrees over and over) depths are walked instead, as the mutation
/// API does, so parsing stays linear.
struct Depths {
    /// Per node, in arena order; empty once walking.
    of: Vec<u32>,
    /// Subtree nodes visited to move depths so far.
    moved: usize,
}

/// Moved-subtree work allowed: this many visits per node of the arena, and
/// this many beyond.
const MOVE_BUDGET_PER_NODE: usize = 4;
const MOVE_BUDGET_BASE: usize = 65_536;

impl Tree {
    fn push(&mut self, data: NodeData) -> NodeId {
        // Past u32::MAX nodes (over 4 billion, far beyond any input whittle
        // accepts) the arena refuses to grow; the parser keeps going with a
        // placeholder.
        match self.doc.push_node(data) {
            Some(id) => {
                if !self.depths.of.is_empty() {
                    self.depths.of.push(0);
                }
                id
            }
            None => NodeId::DOCUMENT,
        }
    }

    /// The depth of a node, counted up to `MAX_DEPTH + 1` (deeper does not
    /// matter).
    fn depth(&self, id: NodeId) -> u32 {
        match self.depths.of.get(id.index()) {
            Some(&d) => d.min(MAX_DEPTH + 1),
            None => depth_of(&self.doc, id),
        }
    }

    /// Where an element may hang when the parser puts it under `parent`:
    /// like Chromium, nothing goes below [`MAX_DEPTH`]; a deeper element
    /// becomes a child of the ancestor at the limit instead (so it lands
    /// as a sibling of the deep chain's last element).
    fn clamp_parent(&self, parent: NodeId) -> NodeId {
        let depth = self.depth(parent);
        if depth < MAX_DEPTH {
            return parent;
        }
        let mut at = parent;
        for _ in MAX_DEPTH - 1..depth {
            match self.doc.nodes[at.index()].parent {
                Some(p) => at = p,
                None => break,
            }
        }
        at
    }

    /// Takes a node out of the tree, to the top of a tree of its own.
    fn detach(&mut self, id: NodeId) {
        if self.doc.nodes[id.index()].parent.is_some() {
            unlink(&mut self.doc, id);
            self.placed_at(id);
        }
    }

    fn link_last(&mut self, parent: NodeId, child: NodeId) {
        link_last(&mut self.doc, parent, child);
        self.placed_at(child);
    }

    fn link_before(&mut self, sibling: NodeId, child: NodeId) {
        link_before(&mut self.doc, sibling, child);
        self.placed_at(child);
    }

    /// Sets the depth of `id` where it now is, and its descendants' when
    /// it moved with them.
    fn placed_at(&mut self, id: NodeId) {
        if self.depths.of.is_empty() {
            return;
        }
        let depth = self.doc.nodes[id.index()].parent.map_or(0, |p| self.depths.of[p.index()].saturating_add(1));
        if self.depths.of[id.index()] == depth {
            return;
        }
        self.depths.of[id.index()] = depth;
        if self.doc.nodes[id.index()].first_child.is_none() {
            return;
        }
        let allowed = MOVE_BUDGET_BASE + MOVE_BUDGET_PER_NODE * self.doc.nodes.len();
        for d in self.doc.descendants(id).skip(1) {
            self.depths.moved += 1;
            if self.depths.moved > allowed {
                self.depths.of = Vec::new();
                return;
            }
            let parent = self.doc.nodes[d.index()].parent.map_or(0, |p| self.depths.of[p.index()]);
            self.depths.of[d.index()] = parent.saturating_add(1);
        }
    }

    /// Whether a node is an element.
    fn is_element(&self, id: NodeId) -> bool {
        matches!(self.doc.nodes[id.index()].data, NodeData::Element(_))
    }
}

impl<'n> ArenaSink<'n> {
    /// A sink building into `doc` (empty but for its root), for a page of
    /// `bytes` bytes of text (the arena is sized for it), keeping element
    /// names in `names`.
    pub(crate) fn new(mut doc: Document, bytes: usize, names: &'n Names) -> ArenaSink<'n> {
        // Real pages have a node per 34-150 bytes (52 at the median).
        doc.nodes.reserve(bytes / 48);
        let depths = Depths { of: vec![0; doc.nodes.len()], moved: 0 };
        ArenaSink {
            names,
            tree: RefCell::new(Tree { doc, depths }),
            parse_errors: Cell::new(0),
            kept_errors: RefCell::new(Vec::new()),
            current: Cell::new(None),
        }
    }

    /// The likely current node of the parser and its depth in the tree
    /// (counted up to `MAX_DEPTH + 1`).
    pub(crate) fn current(&self) -> Option<(NodeId, u32)> {
        let id = self.current.get()?;
        Some((id, self.tree.borrow().depth(id)))
    }

    /// The local name of an element as its end tag would spell it (ASCII
    /// lower case), and whether it is an HTML element; `None` for other
    /// nodes.
    pub(crate) fn element_name(&self, id: NodeId) -> Option<(LocalName, bool)> {
        match &self.tree.borrow().doc.nodes[id.index()].data {
            NodeData::Element(e) => {
                let name = if e.name.local.bytes().any(|b| b.is_ascii_uppercase()) {
                    LocalName::from(e.name.local.to_ascii_lowercase())
                } else {
                    e.name.local.clone()
                };
                Some((name, e.is_html_element()))
            }
            _ => None,
        }
    }

    /// Records that `child` was just inserted: the parser's likely current
    /// node, unless it is a void element (never on the parser's stack).
    fn placed(&self, tree: &Tree, child: NodeId) {
        if let NodeData::Element(e) = &tree.doc.nodes[child.index()].data
            && !(e.is_html_element() && is_void(&e.name.local))
        {
            self.current.set(Some(child));
        }
    }
}

/// The depth of a node below the root of its tree (the document, a
/// template's contents or a detached subtree's top), counted up to
/// `MAX_DEPTH + 1` (deeper does not matter), by walking its ancestors.
pub(super) fn depth_of(doc: &Document, id: NodeId) -> u32 {
    let mut depth = 0;
    let mut at = id;
    while let Some(p) = doc.nodes[at.index()].parent {
        depth += 1;
        if depth > MAX_DEPTH {
            break;
        }
        at = p;
    }
    depth
}

/// Void elements: the parser never pushes them on its stack.
pub(crate) fn is_void(local: &LocalName) -> bool {
    use html5ever::local_name;
    matches!(
        *local,
        local_name!("area")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("frame")
            | local_name!("hr")
            | local_name!("image")
            | local_name!("img")
            | local_name!("input")
            | local_name!("keygen")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

fn convert_attrs(attrs: Vec<Attribute>) -> Vec<Attr> {
    attrs.into_iter().map(|a| Attr { name: a.name, value: CompactString::from(&*a.value) }).collect()
}

impl<'n> TreeSink for ArenaSink<'n> {
    type Handle = Handle<'n>;
    type Output = Document;
    type ElemName<'a>
        = ExpandedName<'a>
    where
        Self: 'a;

    fn finish(self) -> Document {
        let mut doc = self.tree.into_inner().doc;
        let count = self.parse_errors.get();
        if count > 0 {
            let examples = self.kept_errors.into_inner().join("; ");
            doc.diagnostics.push(crate::diag::Diagnostic::new(
                crate::diag::Stage::Parse,
                format!("{count} HTML parse errors (recovered per the HTML spec), e.g. {examples}"),
            ));
        }
        doc
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        let n = self.parse_errors.get() + 1;
        self.parse_errors.set(n);
        if n <= KEPT_PARSE_ERRORS {
            self.kept_errors.borrow_mut().push(msg);
        }
    }

    fn get_document(&self) -> Handle<'n> {
        Handle::other(NodeId::DOCUMENT)
    }

    fn elem_name<'a>(&'a self, target: &'a Handle<'n>) -> ExpandedName<'a> {
        target.name.expanded()
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle<'n> {
        let handle_name = &*self.names.alloc(name.clone());
        let mut tree = self.tree.borrow_mut();
        let id = tree.push(NodeData::Element(Element::new(name, convert_attrs(attrs))));
        if flags.template {
            let contents = tree.push(NodeData::Fragment);
            if let NodeData::Element(e) = &mut tree.doc.nodes[id.index()].data {
                e.template_contents = Some(contents);
            }
        }
        Handle { id, name: handle_name }
    }

    fn create_comment(&self, text: StrTendril) -> Handle<'n> {
        Handle::other(self.tree.borrow_mut().push(NodeData::Comment(String::from(&*text))))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle<'n> {
        Handle::other(self.tree.borrow_mut().push(NodeData::ProcessingInstruction))
    }

    fn append(&self, parent: &Handle<'n>, child: NodeOrText<Handle<'n>>) {
        let mut tree = self.tree.borrow_mut();
        match child {
            NodeOrText::AppendNode(node) => {
                // Linking it sets its (and its subtree's) depths anew.
                unlink(&mut tree.doc, node.id);
                let parent = if tree.is_element(node.id) { tree.clamp_parent(parent.id) } else { parent.id };
                tree.link_last(parent, node.id);
                self.placed(&tree, node.id);
            }
            NodeOrText::AppendText(text) => {
                let parent = parent.id;
                if let Some(last) = tree.doc.nodes[parent.index()].last_child
                    && let NodeData::Text(existing) = &mut tree.doc.nodes[last.index()].data
                {
                    existing.push_str(&text);
                    return;
                }
                let id = tree.push(NodeData::Text(CompactString::from(&*text)));
                tree.link_last(parent, id);
            }
        }
    }

    fn append_based_on_parent_node(&self, element: &Handle<'n>, prev_element: &Handle<'n>, child: NodeOrText<Handle<'n>>) {
        let has_parent = self.tree.borrow().doc.nodes[element.id.index()].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _name: StrTendril, _public: StrTendril, _system: StrTendril) {
        let mut tree = self.tree.borrow_mut();
        let id = tree.push(NodeData::Doctype);
        tree.link_last(NodeId::DOCUMENT, id);
    }

    fn get_template_contents(&self, target: &Handle<'n>) -> Handle<'n> {
        let mut tree = self.tree.borrow_mut();
        let contents = match &tree.doc.nodes[target.id.index()].data {
            NodeData::Element(e) => e.template_contents,
            _ => None,
        };
        // Only templates are asked for; a fresh fragment keeps a broken
        // promise harmless.
        Handle::other(contents.unwrap_or_else(|| tree.push(NodeData::Fragment)))
    }

    /// HTML §13.2.6.5's "HTML integration point": a MathML `annotation-xml`
    /// whose `encoding` is `text/html` or `application/xhtml+xml` (the
    /// condition html5ever's element flags carry), read from the element's
    /// attributes. Without it, HTML inside such an element was parsed as
    /// MathML (found by the `tree_builder` fuzz target).
    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle<'n>) -> bool {
        if handle.name.ns != ns!(mathml) || handle.name.local != local_name!("annotation-xml") {
            return false;
        }
        match &self.tree.borrow().doc.nodes[handle.id.index()].data {
            NodeData::Element(e) => e.attrs.iter().any(|a| {
                a.name.ns == ns!()
                    && a.name.local == local_name!("encoding")
                    && (a.value.eq_ignore_ascii_case("text/html") || a.value.eq_ignore_ascii_case("application/xhtml+xml"))
            }),
            _ => false,
        }
    }

    fn same_node(&self, x: &Handle<'n>, y: &Handle<'n>) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.tree.borrow_mut().doc.quirks = mode == QuirksMode::Quirks;
    }

    fn append_before_sibling(&self, sibling: &Handle<'n>, new_node: NodeOrText<Handle<'n>>) {
        let mut tree = self.tree.borrow_mut();
        let sibling = sibling.id;
        match new_node {
            NodeOrText::AppendNode(node) => {
                let node = node.id;
                unlink(&mut tree.doc, node);
                let parent = tree.doc.nodes[sibling.index()].parent;
                let deep = parent.is_some_and(|p| tree.depth(p) >= MAX_DEPTH);
                if deep && tree.is_element(node) {
                    let parent = parent.map_or(NodeId::DOCUMENT, |p| tree.clamp_parent(p));
                    tree.link_last(parent, node);
                } else {
                    tree.link_before(sibling, node);
                }
                self.placed(&tree, node);
            }
            NodeOrText::AppendText(text) => {
                if let Some(prev) = tree.doc.nodes[sibling.index()].prev_sibling
                    && let NodeData::Text(existing) = &mut tree.doc.nodes[prev.index()].data
                {
                    existing.push_str(&text);
                    return;
                }
                let id = tree.push(NodeData::Text(CompactString::from(&*text)));
                tree.link_before(sibling, id);
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle<'n>, attrs: Vec<Attribute>) {
        let mut tree = self.tree.borrow_mut();
        if let NodeData::Element(e) = &mut tree.doc.nodes[target.id.index()].data {
            let mut present: std::collections::HashSet<QualName> = e.attrs.iter().map(|a| a.name.clone()).collect();
            for a in attrs {
                if present.insert(a.name.clone()) {
                    e.attrs.push(Attr { name: a.name, value: CompactString::from(&*a.value) });
                }
            }
            e.refresh_cached_attrs();
        }
    }

    /// The parser's form element pointer: `target` belongs to `form` even
    /// when it does not end up inside it (a `<form>` directly in a
    /// `<table>` is closed at once, the rows' controls are still its).
    fn associate_with_form(&self, target: &Handle<'n>, form: &Handle<'n>, _nodes: (&Handle<'n>, Option<&Handle<'n>>)) {
        self.tree.borrow_mut().doc.form.set_parser_owner(target.id, form.id);
    }

    fn pop(&self, node: &Handle<'n>) {
        let parent = self.tree.borrow().doc.nodes[node.id.index()].parent;
        self.current.set(parent);
    }

    fn remove_from_parent(&self, target: &Handle<'n>) {
        self.tree.borrow_mut().detach(target.id);
    }

    fn reparent_children(&self, node: &Handle<'n>, new_parent: &Handle<'n>) {
        let mut tree = self.tree.borrow_mut();
        let new_parent = tree.clamp_parent(new_parent.id);
        while let Some(child) = tree.doc.nodes[node.id.index()].first_child {
            unlink(&mut tree.doc, child);
            tree.link_last(new_parent, child);
        }
    }
}
