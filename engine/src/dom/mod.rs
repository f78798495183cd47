//! The arena `Document`: every node of a parsed page in one `Vec`, addressed by
//! [`NodeId`]. Later stages keep their results in side tables indexed by the
//! same ids, so a stage never changes the tree.
//!
//! Each document has a process-unique [`DocumentId`], which is what a
//! [`RefTable`](crate::RefTable) keys its refs by. Between snapshots a caller
//! may change the tree through the mutation API (`mutate.rs`: create, insert,
//! detach, set attributes); arena slots are never reused, so a `NodeId`
//! names one node for the life of its document.
//!
//! Architecture invariant: nothing here recurses. Every walk uses the sibling
//! and parent links (see [`Document::descendants`] and [`Document::traverse`]),
//! so a 100,000-deep page cannot overflow the stack.

mod build;
pub mod form;
mod form_state;
mod mutate;
mod name;
mod places;
mod sink;

use std::num::NonZeroU32;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use compact_str::CompactString;
use html5ever::{LocalName, Namespace, QualName, local_name, ns};
use url::Url;

use crate::diag::Diagnostic;
pub use form_state::{ChosenFile, FormState};
pub use build::{DocumentBuilder, Markup};
pub use mutate::MutationError;
pub use places::{PlaceMap, Places};
pub(crate) use name::{Name, NameMap, PrehashedHasher};
pub(crate) use sink::{ArenaSink, Handle, Names, is_void};

/// The deepest an element may sit in the tree (Chromium's
/// `kMaximumHTMLParserDOMTreeDepth`): the sink enforces it on every
/// insertion (`sink.rs`), the mutation API on every change (`mutate.rs`),
/// and the parser's depth guard keeps html5ever's own stack short.
pub const MAX_DEPTH: u32 = 512;

/// The most attributes one element keeps (the parser cuts the rest from
/// the text before html5ever sees them; `mutate.rs` refuses more).
pub(crate) const MAX_ATTRIBUTES: usize = 1_000;

/// The identity of a [`Document`]: unique within the process (every
/// document, from every parse, gets the next number of a global counter
/// when it is created). A [`RefTable`](crate::RefTable) keys refs by it, so
/// several documents (tabs) can share one table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct DocumentId(u64);

impl DocumentId {
    /// A number no document of this process had before. (A `u64` counted
    /// up by one per document does not wrap in any process's lifetime.)
    fn fresh() -> DocumentId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        DocumentId(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The number itself.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// The index of a node in its [`Document`]. The document node is always
/// [`NodeId::DOCUMENT`].
///
/// Held as index + 1, never zero, so that an `Option<NodeId>` (five in
/// every node's links, more in the side tables) takes four bytes, not
/// eight.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(NonZeroU32);

const _: () = assert!(size_of::<Option<NodeId>>() == 4);

impl std::fmt::Debug for NodeId {
    /// `NodeId(index)`, the index as [`NodeId::index`] gives it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("NodeId").field(&self.index()).finish()
    }
}

impl NodeId {
    /// The document node, root of the tree.
    pub const DOCUMENT: NodeId = NodeId(NonZeroU32::MIN);

    /// The position of this node in the arena (and in every side table).
    #[inline]
    pub fn index(self) -> usize {
        (self.0.get() - 1) as usize
    }

    #[inline]
    pub(crate) fn from_index(index: usize) -> NodeId {
        // The arena never holds more than u32::MAX nodes: `push` checks.
        NodeId(NonZeroU32::MIN.saturating_add(index as u32))
    }
}

/// One node of the tree with its links.
#[derive(Debug, Clone)]
pub struct Node {
    pub(crate) parent: Option<NodeId>,
    pub(crate) first_child: Option<NodeId>,
    pub(crate) last_child: Option<NodeId>,
    pub(crate) prev_sibling: Option<NodeId>,
    pub(crate) next_sibling: Option<NodeId>,
    /// What the node is.
    pub data: NodeData,
}

/// The kinds of nodes whittle keeps.
#[derive(Debug, Clone)]
pub enum NodeData {
    /// The root.
    Document,
    /// A `<template>`'s contents: a fragment outside the main tree.
    Fragment,
    /// `<!DOCTYPE …>`.
    Doctype,
    /// Character data, already decoded.
    Text(CompactString),
    /// A comment (kept so that the tree matches the reference parser).
    Comment(String),
    /// A processing instruction (only from foreign content).
    ProcessingInstruction,
    /// An element.
    Element(Element),
}

/// An element: its name, attributes and the pieces of them that selector
/// matching asks for over and over (id and classes, pre-split as
/// [`Name`]s).
#[derive(Debug, Clone)]
pub struct Element {
    /// Namespace and local name (lower-case for HTML elements).
    pub name: QualName,
    /// Attributes in source order.
    pub attrs: Vec<Attr>,
    /// The id (first, when `has_id`), then the classes, each once, in
    /// order; empty (no allocation) for an element with neither.
    names: Box<[Name]>,
    has_id: bool,
    /// For `<template>`: the fragment holding its contents.
    pub(crate) template_contents: Option<NodeId>,
}

/// One attribute.
#[derive(Debug, Clone)]
pub struct Attr {
    /// Attribute name (lower-case for HTML elements).
    pub name: QualName,
    /// Decoded value.
    pub value: CompactString,
}

impl Element {
    pub(crate) fn new(name: QualName, attrs: Vec<Attr>) -> Element {
        let mut element = Element { name, attrs, names: Box::default(), has_id: false, template_contents: None };
        element.refresh_cached_attrs();
        element
    }

    /// Recomputes the id and classes after the attribute list changed.
    pub(crate) fn refresh_cached_attrs(&mut self) {
        // One pass, names compared as atoms (this runs for every element
        // the parser creates); the first of a repeated name counts, as in
        // `attr`.
        let (mut id, mut class) = (None, None);
        for a in &self.attrs {
            if a.name.ns != ns!() {
                continue;
            }
            match a.name.local {
                local_name!("id") if id.is_none() => id = Some(a.value.as_str()),
                local_name!("class") if class.is_none() => class = Some(a.value.as_str()),
                _ => {}
            }
        }
        let id = id.filter(|v| !v.is_empty());
        self.has_id = id.is_some();
        self.names = match (id, class) {
            (None, None) => Box::default(),
            (id, class) => {
                let mut names: smallvec::SmallVec<[Name; 8]> = id.map(Name::new).into_iter().collect();
                if let Some(list) = class {
                    Name::push_set(list, &mut names, usize::from(self.has_id));
                }
                names.into_iter().collect()
            }
        };
    }

    /// The id, if it has a non-empty one.
    #[inline]
    pub(crate) fn id_name(&self) -> Option<&Name> {
        if self.has_id { self.names.first() } else { None }
    }

    /// The classes, each once, in order.
    #[inline]
    pub(crate) fn class_names(&self) -> &[Name] {
        &self.names[usize::from(self.has_id)..]
    }

    /// The local name, e.g. `div`.
    #[inline]
    pub fn local_name(&self) -> &LocalName {
        &self.name.local
    }

    /// Whether this is an HTML element with the given local name.
    #[inline]
    pub fn is_html(&self, local: &LocalName) -> bool {
        self.name.ns == ns!(html) && self.name.local == *local
    }

    /// Whether this element is in the HTML namespace.
    #[inline]
    pub fn is_html_element(&self) -> bool {
        self.name.ns == ns!(html)
    }

    /// The namespace.
    #[inline]
    pub fn namespace(&self) -> &Namespace {
        &self.name.ns
    }

    /// The value of the attribute `name` (no namespace), if present.
    #[inline]
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && &*a.name.local == name)
            .map(|a| a.value.as_str())
    }

    /// Whether the attribute `name` (no namespace) is present.
    #[inline]
    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    /// The element's id, if it has a non-empty one.
    pub fn id(&self) -> Option<&str> {
        self.id_name().map(Name::as_str)
    }

    /// The element's classes.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        self.class_names().iter().map(Name::as_str)
    }

    /// For `<template>`: the fragment holding its contents, a tree of its
    /// own outside the document's (HTML's "template contents"). Public so
    /// that a tree can be compared with another parser's node for node
    /// (`benches/src/tree.rs`).
    pub fn template_contents(&self) -> Option<NodeId> {
        self.template_contents
    }
}

/// A parsed page.
///
/// Not `Clone` on purpose: a copy would share the original's
/// [`DocumentId`], and with it the refs of the original's nodes.
#[derive(Debug)]
pub struct Document {
    pub(crate) id: DocumentId,
    pub(crate) nodes: Vec<Node>,
    pub(crate) quirks: bool,
    pub(crate) url: Option<Url>,
    pub(crate) encoding: &'static encoding_rs::Encoding,
    /// What is found by key rather than by a walk. Built at the end of
    /// parsing; a mutation that can change it empties it, and the next
    /// lookup rebuilds it (one walk), so a batch of mutations costs one
    /// rebuild, not one per mutation.
    index: OnceLock<Index>,
    /// What a person typed, checked, selected and chose in the form
    /// controls, apart from their markup (`form_state.rs`).
    pub(crate) form: FormState,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The id map and the base URL of a [`Document`].
#[derive(Debug, Default)]
struct Index {
    /// Each id's first element in tree order (`getElementById`).
    ids: NameMap<Name, NodeId>,
    /// The first `<base href>` in tree order, resolved.
    base_url: Option<Url>,
}

/// An edge of a depth-first walk: entering a node, or leaving it after all of
/// its descendants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Before the node's descendants.
    Open(NodeId),
    /// After the node's descendants.
    Close(NodeId),
}

impl Document {
    pub(crate) fn empty() -> Document {
        Document {
            id: DocumentId::fresh(),
            nodes: vec![Node {
                parent: None,
                first_child: None,
                last_child: None,
                prev_sibling: None,
                next_sibling: None,
                data: NodeData::Document,
            }],
            quirks: false,
            url: None,
            encoding: encoding_rs::UTF_8,
            index: OnceLock::new(),
            form: FormState::default(),
            diagnostics: Vec::new(),
        }
    }

    /// This document's identity, unique within the process.
    pub fn id(&self) -> DocumentId {
        self.id
    }

    /// Number of nodes in the arena (including template contents and
    /// detached nodes).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the arena holds only the document node.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The node with this id.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The element with this id, or `None` for other kinds of nodes.
    #[inline]
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.index()].data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The text of a text node.
    #[inline]
    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id.index()].data {
            NodeData::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The parent node.
    #[inline]
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].parent
    }

    /// The parent, if it is an element.
    #[inline]
    pub fn parent_element(&self, id: NodeId) -> Option<NodeId> {
        self.parent(id).filter(|&p| self.element(p).is_some())
    }

    /// First child.
    #[inline]
    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].first_child
    }

    /// Last child.
    #[inline]
    pub fn last_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].last_child
    }

    /// Next sibling.
    #[inline]
    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].next_sibling
    }

    /// Previous sibling.
    #[inline]
    pub fn prev_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].prev_sibling
    }

    /// Whether no earlier sibling of `id` is an HTML element named `local`
    /// (the scan stops at the first one found).
    pub(crate) fn is_first_of_its_kind(&self, id: NodeId, local: &LocalName) -> bool {
        let mut at = self.prev_sibling(id);
        while let Some(s) = at {
            if self.element(s).is_some_and(|e| e.is_html(local)) {
                return false;
            }
            at = self.prev_sibling(s);
        }
        true
    }

    /// The children of a node, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children { doc: self, next: self.first_child(id) }
    }

    /// The element children of a node, in order.
    pub fn element_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id).filter(|&c| self.element(c).is_some())
    }

    /// The ancestors of a node, nearest first (not including the node).
    pub fn ancestors(&self, id: NodeId) -> Ancestors<'_> {
        Ancestors { doc: self, next: self.parent(id) }
    }

    /// The node and its descendants in tree order (pre-order).
    pub fn descendants(&self, root: NodeId) -> Descendants<'_> {
        Descendants { doc: self, root, next: Some(root) }
    }

    /// A depth-first walk of the subtree at `root` giving open and close
    /// edges, without recursion.
    pub fn traverse(&self, root: NodeId) -> Traverse<'_> {
        Traverse { doc: self, root, next: Some(Edge::Open(root)) }
    }

    /// The `<html>` element, if any.
    pub fn root_element(&self) -> Option<NodeId> {
        self.element_children(NodeId::DOCUMENT).next()
    }

    /// The first element child of `parent` that is the HTML element `local`.
    pub fn child_html(&self, parent: NodeId, local: &LocalName) -> Option<NodeId> {
        self.element_children(parent).find(|&c| self.element(c).is_some_and(|e| e.is_html(local)))
    }

    /// `<body>` (or the root's first `<frameset>`), if any.
    pub fn body(&self) -> Option<NodeId> {
        let html = self.root_element()?;
        self.element_children(html).find(|&c| {
            self.element(c)
                .is_some_and(|e| e.is_html(&local_name!("body")) || e.is_html(&local_name!("frameset")))
        })
    }

    /// The element with this id (the first in tree order), as
    /// `getElementById` finds it.
    pub fn element_by_id(&self, id: &str) -> Option<NodeId> {
        if id.is_empty() {
            return None;
        }
        self.index().ids.get(&Name::new(id)).copied()
    }

    /// The document's title: the first `<title>` in the document, with
    /// whitespace collapsed (SVG `<title>` at the root aside).
    pub fn title(&self) -> String {
        let title = self.descendants(NodeId::DOCUMENT).find(|&id| {
            self.element(id).is_some_and(|e| e.is_html(&local_name!("title")))
        });
        match title {
            Some(t) => crate::text::collapse_whitespace(&self.text_content(t)),
            None => String::new(),
        }
    }

    /// The concatenated text of all text nodes under `id`.
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        for d in self.descendants(id) {
            if let Some(t) = self.text(d) {
                out.push_str(t);
            }
        }
        out
    }

    /// The document URL, when the caller gave one.
    pub fn url(&self) -> Option<&Url> {
        self.url.as_ref()
    }

    /// The base URL for resolving links: the first `<base href>` resolved
    /// against the document URL, else the document URL.
    pub fn base_url(&self) -> Option<&Url> {
        self.index().base_url.as_ref().or(self.url.as_ref())
    }

    /// Resolves a link target against the base URL.
    pub fn resolve_url(&self, href: &str) -> Option<Url> {
        let href = href.trim_matches(|c: char| c.is_ascii_whitespace());
        match self.base_url() {
            Some(base) => base.join(href).ok(),
            None => Url::parse(href).ok(),
        }
    }

    /// The state of the form controls that is not in the markup: current
    /// values, checkedness, selectedness and chosen files. Changed through
    /// the [`act`](crate::act) API.
    pub fn form_state(&self) -> &FormState {
        &self.form
    }

    /// The character encoding the bytes were decoded with.
    pub fn encoding(&self) -> &'static encoding_rs::Encoding {
        self.encoding
    }

    /// Whether the page is in quirks mode.
    pub fn is_quirks(&self) -> bool {
        self.quirks
    }

    /// What the parser had to say: bad bytes, parse errors (counted), limits.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Builds the id map and resolves `<base href>` now (parsing calls this
    /// when it is done, so the walk is timed with the parse).
    pub(crate) fn reindex(&mut self) {
        self.index = OnceLock::from(self.build_index());
    }

    /// The id map and base URL, rebuilt first if a mutation emptied them.
    fn index(&self) -> &Index {
        self.index.get_or_init(|| self.build_index())
    }

    /// Drops the id map and base URL; the next lookup rebuilds them.
    pub(crate) fn invalidate_index(&mut self) {
        self.index = OnceLock::new();
    }

    /// One walk of the tree (template contents and detached nodes are not
    /// in it): ids and the first `<base href>`.
    fn build_index(&self) -> Index {
        let mut ids = NameMap::default();
        let mut base_href = None;
        for id in self.descendants(NodeId::DOCUMENT) {
            if let Some(e) = self.element(id) {
                if let Some(key) = e.id_name() {
                    ids.entry(key.clone()).or_insert(id);
                }
                if base_href.is_none() && e.is_html(&local_name!("base")) {
                    base_href = e.attr("href");
                }
            }
        }
        let base_url = base_href.and_then(|href| {
            let href = href.trim_matches(|c: char| c.is_ascii_whitespace());
            let resolved = match &self.url {
                Some(u) => u.join(href).ok(),
                None => Url::parse(href).ok(),
            };
            // A `data:` or `javascript:` base is not a base (HTML §4.2.3).
            resolved.filter(|u| !matches!(u.scheme(), "data" | "javascript"))
        });
        Index { ids, base_url }
    }

    /// A plain-text dump of the tree, one node per line, indented by depth:
    /// what parser tests compare.
    pub fn dump(&self) -> String {
        let mut out = String::new();
        let mut depth = 0usize;
        for edge in self.traverse(NodeId::DOCUMENT) {
            match edge {
                Edge::Open(id) => {
                    if id != NodeId::DOCUMENT {
                        for _ in 1..depth {
                            out.push_str("  ");
                        }
                        self.dump_node(id, &mut out);
                        out.push('\n');
                    }
                    depth += 1;
                }
                Edge::Close(_) => depth -= 1,
            }
        }
        out
    }

    fn dump_node(&self, id: NodeId, out: &mut String) {
        use std::fmt::Write;
        match &self.node(id).data {
            NodeData::Document | NodeData::Fragment => out.push_str("#document"),
            NodeData::Doctype => out.push_str("<!DOCTYPE>"),
            NodeData::Text(t) => {
                let _ = write!(out, "{t:?}");
            }
            NodeData::Comment(c) => {
                let _ = write!(out, "<!-- {c} -->");
            }
            NodeData::ProcessingInstruction => out.push_str("<?pi?>"),
            NodeData::Element(e) => {
                out.push('<');
                if e.name.ns == ns!(svg) {
                    out.push_str("svg ");
                } else if e.name.ns == ns!(mathml) {
                    out.push_str("math ");
                }
                out.push_str(&e.name.local);
                for a in &e.attrs {
                    let _ = write!(out, " {}={:?}", a.name.local, a.value);
                }
                out.push('>');
            }
        }
    }
}

/// Iterator over a node's children.
#[derive(Debug)]
pub struct Children<'a> {
    doc: &'a Document,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = self.doc.next_sibling(id);
        Some(id)
    }
}

/// Iterator over a node's ancestors, nearest first.
#[derive(Debug)]
pub struct Ancestors<'a> {
    doc: &'a Document,
    next: Option<NodeId>,
}

impl Iterator for Ancestors<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = self.doc.parent(id);
        Some(id)
    }
}

/// Pre-order iterator over a subtree.
#[derive(Debug)]
pub struct Descendants<'a> {
    doc: &'a Document,
    root: NodeId,
    next: Option<NodeId>,
}

impl Descendants<'_> {
    /// Skips the descendants of the node last returned.
    pub fn skip_subtree(&mut self, of: NodeId) {
        self.next = next_skipping_children(self.doc, of, self.root);
    }
}

fn next_skipping_children(doc: &Document, mut id: NodeId, root: NodeId) -> Option<NodeId> {
    loop {
        if id == root {
            return None;
        }
        if let Some(s) = doc.next_sibling(id) {
            return Some(s);
        }
        id = doc.parent(id)?;
    }
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = match self.doc.first_child(id) {
            Some(c) => Some(c),
            None => next_skipping_children(self.doc, id, self.root),
        };
        Some(id)
    }
}

/// Depth-first walk with open/close edges.
#[derive(Debug)]
pub struct Traverse<'a> {
    doc: &'a Document,
    root: NodeId,
    next: Option<Edge>,
}

impl Traverse<'_> {
    /// After `Open(id)` was returned: skip its descendants (the next edge is
    /// its `Close`).
    pub fn skip_children(&mut self, id: NodeId) {
        self.next = Some(Edge::Close(id));
    }
}

impl Iterator for Traverse<'_> {
    type Item = Edge;
    #[inline]
    fn next(&mut self) -> Option<Edge> {
        let edge = self.next?;
        self.next = match edge {
            Edge::Open(id) => match self.doc.first_child(id) {
                Some(c) => Some(Edge::Open(c)),
                None => Some(Edge::Close(id)),
            },
            Edge::Close(id) => {
                if id == self.root {
                    None
                } else if let Some(s) = self.doc.next_sibling(id) {
                    Some(Edge::Open(s))
                } else {
                    self.doc.parent(id).map(Edge::Close)
                }
            }
        };
        Some(edge)
    }
}
