//! Changing a [`Document`] after parsing: what acting on a static page
//! needs (typing into fields, form state, page updates without scripts).
//!
//! The operations are the DOM's (`createElement`, `createTextNode`,
//! `insertBefore`, `appendChild`, `remove`, `setAttribute`,
//! `removeAttribute`), and they refuse, with a [`MutationError`], what the
//! DOM refuses (a node inside itself, a second root element, text directly
//! under the document) and what whittle's limits forbid. They never panic,
//! not even on a `NodeId` from another document.
//!
//! What stays true after any sequence of mutations:
//! - arena slots are never reused: a detached node keeps its `NodeId` (it
//!   stays in the arena, outside the tree, and may be inserted again), and a
//!   new node always gets an id no node of this document had;
//! - parent, child and sibling links agree (the parser's sink links nodes
//!   with the same helpers, below);
//! - an element's cached id and classes follow its attributes;
//! - [`Document::element_by_id`] and [`Document::base_url`] answer for the
//!   tree as it is now (a mutation that can change them drops the index, the
//!   next lookup rebuilds it in one walk);
//! - no element sits deeper than [`MAX_DEPTH`] and none has more than
//!   1,000 attributes, as after parsing;
//! - a control that is inserted or removed (or whose ancestor is) loses the
//!   form the parser associated it with, as HTML resets its form owner;
//!   what a person typed or checked in it stays.
//!
//! What a mutation invalidates: every side table computed from the document
//! before it (`Styles`, `Layout`, `Semantics`, `AxTree`); run the pipeline
//! again. Refs are not invalidated: a [`RefTable`](crate::RefTable) keys
//! them by ([`DocumentId`](super::DocumentId), [`NodeId`]), so a node keeps
//! its ref across re-renders.
//!
//! Costs: creating a node and detaching one are O(1), attributes
//! O(attributes); inserting is O(depth) (the cycle and depth checks) plus,
//! when the inserted node has children, O(size of its subtree) (its height
//! is measured).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use html5ever::{LocalName, QualName, local_name, ns};

use super::sink::depth_of;
use super::{Attr, Document, Edge, Element, Node, NodeData, NodeId};
use super::{MAX_ATTRIBUTES, MAX_DEPTH};

/// Why a mutation was refused. The document is unchanged when one is
/// returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutationError {
    /// No node of this document has this id (it may come from another one).
    UnknownNode(NodeId),
    /// The node is not of the kind the operation needs: attributes need an
    /// element, [`Document::set_text`] a text node, a parent an element, a
    /// template's contents or the document.
    WrongKind(NodeId),
    /// The insertion would break the tree: a node into itself or one of its
    /// descendants, the document or a doctype as a child, text or a second
    /// element directly under the document.
    Hierarchy,
    /// The reference node of an insertion is not a child of the parent.
    NotAChild(NodeId),
    /// An element would sit deeper than [`MAX_DEPTH`].
    TooDeep,
    /// The element would have more than 1,000 attributes.
    TooManyAttributes,
    /// Not a valid element or attribute name.
    InvalidName,
    /// The arena holds `u32::MAX` nodes; no more can be created.
    ArenaFull,
}

impl fmt::Display for MutationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MutationError::UnknownNode(id) => write!(f, "no node #{} in this document", id.index()),
            MutationError::WrongKind(id) => write!(f, "node #{} is not of the kind this operation needs", id.index()),
            MutationError::Hierarchy => f.write_str("the node cannot be inserted there"),
            MutationError::NotAChild(id) => write!(f, "node #{} is not a child of the parent", id.index()),
            MutationError::TooDeep => write!(f, "an element would be nested deeper than {MAX_DEPTH} levels"),
            MutationError::TooManyAttributes => {
                write!(f, "an element would have more than {MAX_ATTRIBUTES} attributes")
            }
            MutationError::InvalidName => f.write_str("not a valid element or attribute name"),
            MutationError::ArenaFull => f.write_str("the document holds the most nodes it can"),
        }
    }
}

impl std::error::Error for MutationError {}

impl Document {
    /// Adds a node to the arena, outside the tree. `None` once the arena
    /// holds `u32::MAX` nodes (ids past that would alias old ones).
    pub(crate) fn push_node(&mut self, data: NodeData) -> Option<NodeId> {
        if self.nodes.len() >= u32::MAX as usize {
            return None;
        }
        let id = NodeId::from_index(self.nodes.len());
        self.nodes.push(Node {
            parent: None,
            first_child: None,
            last_child: None,
            prev_sibling: None,
            next_sibling: None,
            data,
        });
        Some(id)
    }

    fn known(&self, id: NodeId) -> Result<(), MutationError> {
        if id.index() < self.nodes.len() { Ok(()) } else { Err(MutationError::UnknownNode(id)) }
    }

    /// Whether `id` is a node of this document that is in its tree (the
    /// document node or one of its descendants; not a detached node, not a
    /// template's contents). O(depth).
    pub fn is_connected(&self, id: NodeId) -> bool {
        id.index() < self.nodes.len() && (id == NodeId::DOCUMENT || self.ancestors(id).last() == Some(NodeId::DOCUMENT))
    }

    /// Creates an element, outside the tree (`createElement` with
    /// attributes). A repeated attribute keeps its first value, as in
    /// parsing; a `<template>` gets its contents fragment.
    pub fn create_element(&mut self, name: QualName, attrs: Vec<Attr>) -> Result<NodeId, MutationError> {
        if !valid_element_name(&name.local) {
            return Err(MutationError::InvalidName);
        }
        let mut seen = HashSet::with_capacity(attrs.len());
        let mut kept = Vec::with_capacity(attrs.len());
        for a in attrs {
            if !valid_attribute_name(&a.name.local) {
                return Err(MutationError::InvalidName);
            }
            if seen.insert(a.name.clone()) {
                kept.push(a);
            }
        }
        if kept.len() > MAX_ATTRIBUTES {
            return Err(MutationError::TooManyAttributes);
        }
        let template = name.ns == ns!(html) && name.local == local_name!("template");
        // Both nodes or neither.
        if self.nodes.len() + usize::from(template) >= u32::MAX as usize {
            return Err(MutationError::ArenaFull);
        }
        let id = self.push_node(NodeData::Element(Element::new(name, kept))).ok_or(MutationError::ArenaFull)?;
        if template {
            let contents = self.push_node(NodeData::Fragment).ok_or(MutationError::ArenaFull)?;
            if let NodeData::Element(e) = &mut self.nodes[id.index()].data {
                e.template_contents = Some(contents);
            }
        }
        Ok(id)
    }

    /// Creates an HTML element from its local name and `(name, value)`
    /// attributes, outside the tree. Names are ASCII-lowercased, as
    /// `createElement` and `setAttribute` do in an HTML document.
    pub fn create_html_element(&mut self, local: &str, attrs: &[(&str, &str)]) -> Result<NodeId, MutationError> {
        let name = QualName::new(None, ns!(html), LocalName::from(local.to_ascii_lowercase()));
        let attrs = attrs
            .iter()
            .map(|&(n, v)| Attr {
                name: QualName::new(None, ns!(), LocalName::from(n.to_ascii_lowercase())),
                value: v.into(),
            })
            .collect();
        self.create_element(name, attrs)
    }

    /// Creates a text node, outside the tree (`createTextNode`).
    pub fn create_text(&mut self, text: &str) -> Result<NodeId, MutationError> {
        self.push_node(NodeData::Text(text.into())).ok_or(MutationError::ArenaFull)
    }

    /// Replaces the data of a text node.
    pub fn set_text(&mut self, node: NodeId, text: &str) -> Result<(), MutationError> {
        self.known(node)?;
        match &mut self.nodes[node.index()].data {
            NodeData::Text(t) => {
                t.clear();
                t.push_str(text);
                Ok(())
            }
            _ => Err(MutationError::WrongKind(node)),
        }
    }

    /// Appends `child` (with its subtree) as the last child of `parent`,
    /// moving it if it is in a tree already (`appendChild`).
    pub fn append_child(&mut self, parent: NodeId, child: NodeId) -> Result<(), MutationError> {
        self.insert_before(parent, child, None)
    }

    /// Inserts `child` (with its subtree) into `parent` before `reference`,
    /// or last when `reference` is `None`, moving it if it is in a tree
    /// already (`insertBefore`). `child` may be an element, a text node or
    /// a comment; `parent` an element, a template's contents or the
    /// document (which takes one element and no text).
    pub fn insert_before(
        &mut self,
        parent: NodeId,
        child: NodeId,
        reference: Option<NodeId>,
    ) -> Result<(), MutationError> {
        self.known(parent)?;
        self.known(child)?;
        if let Some(r) = reference {
            self.known(r)?;
        }
        if !matches!(self.nodes[parent.index()].data, NodeData::Element(_) | NodeData::Fragment | NodeData::Document) {
            return Err(MutationError::WrongKind(parent));
        }
        let child_is_element = match self.nodes[child.index()].data {
            NodeData::Element(_) => true,
            NodeData::Text(_) | NodeData::Comment(_) => false,
            _ => return Err(MutationError::Hierarchy),
        };
        if parent == NodeId::DOCUMENT {
            let second_root = child_is_element && self.element_children(NodeId::DOCUMENT).any(|c| c != child);
            if second_root || matches!(self.nodes[child.index()].data, NodeData::Text(_)) {
                return Err(MutationError::Hierarchy);
            }
        }
        if let Some(r) = reference
            && self.parent(r) != Some(parent)
        {
            return Err(MutationError::NotAChild(r));
        }
        // Inserting a node before itself puts it where it is.
        let reference = if reference == Some(child) { self.next_sibling(child) } else { reference };
        if child == parent || self.ancestors(parent).any(|a| a == child) {
            return Err(MutationError::Hierarchy);
        }
        if child_is_element {
            self.check_depth(parent, child)?;
            // The moved subtree may hold ids or a `<base>`.
            self.invalidate_index();
            self.forget_parser_owners(child);
        }
        unlink(self, child);
        match reference {
            Some(r) => link_before(self, r, child),
            None => link_last(self, parent, child),
        }
        Ok(())
    }

    /// Whether the elements of `child`'s subtree, put under `parent`, stay
    /// within [`MAX_DEPTH`].
    fn check_depth(&self, parent: NodeId, child: NodeId) -> Result<(), MutationError> {
        let base = depth_of(self, parent);
        if base >= MAX_DEPTH {
            return Err(MutationError::TooDeep);
        }
        if self.first_child(child).is_none() {
            return Ok(());
        }
        let mut depth = base;
        for edge in self.traverse(child) {
            match edge {
                Edge::Open(n) => {
                    depth += 1;
                    if depth > MAX_DEPTH && self.element(n).is_some() {
                        return Err(MutationError::TooDeep);
                    }
                }
                Edge::Close(_) => depth -= 1,
            }
        }
        Ok(())
    }

    /// Takes `node` (with its subtree) out of the tree (`remove`). It stays
    /// in the arena under its id and may be inserted again; a node that has
    /// no parent is left as it is. The document node cannot be detached.
    pub fn detach(&mut self, node: NodeId) -> Result<(), MutationError> {
        self.known(node)?;
        if node == NodeId::DOCUMENT {
            return Err(MutationError::Hierarchy);
        }
        if self.parent(node).is_some() && self.element(node).is_some() {
            self.invalidate_index();
            self.forget_parser_owners(node);
        }
        unlink(self, node);
        Ok(())
    }

    /// HTML resets the form owner of a control when it or an ancestor is
    /// inserted or removed: the parser's association of the subtree's
    /// controls no longer holds (walks the subtree only when there are
    /// associations).
    fn forget_parser_owners(&mut self, root: NodeId) {
        if !self.form.has_parser_owners() {
            return;
        }
        let subtree: Vec<NodeId> = self.descendants(root).collect();
        for n in subtree {
            self.form.drop_parser_owner(n);
        }
    }

    /// Sets an attribute (no namespace) of an element, adding it if absent
    /// (`setAttribute`; the name is ASCII-lowercased on HTML elements).
    pub fn set_attribute(&mut self, element: NodeId, name: &str, value: &str) -> Result<(), MutationError> {
        self.known(element)?;
        if !valid_attribute_name(name) {
            return Err(MutationError::InvalidName);
        }
        let NodeData::Element(e) = &mut self.nodes[element.index()].data else {
            return Err(MutationError::WrongKind(element));
        };
        let name = attribute_name(e, name);
        match e.attrs.iter_mut().find(|a| a.name.ns == ns!() && *a.name.local == *name) {
            Some(a) => {
                a.value.clear();
                a.value.push_str(value);
            }
            None => {
                if e.attrs.len() >= MAX_ATTRIBUTES {
                    return Err(MutationError::TooManyAttributes);
                }
                e.attrs
                    .push(Attr { name: QualName::new(None, ns!(), LocalName::from(&*name)), value: value.into() });
            }
        }
        self.attribute_changed(element, &name);
        Ok(())
    }

    /// Removes an attribute (no namespace) of an element
    /// (`removeAttribute`). Returns whether it was there.
    pub fn remove_attribute(&mut self, element: NodeId, name: &str) -> Result<bool, MutationError> {
        self.known(element)?;
        let NodeData::Element(e) = &mut self.nodes[element.index()].data else {
            return Err(MutationError::WrongKind(element));
        };
        let name = attribute_name(e, name);
        let Some(at) = e.attrs.iter().position(|a| a.name.ns == ns!() && *a.name.local == *name) else {
            return Ok(false);
        };
        e.attrs.remove(at);
        self.attribute_changed(element, &name);
        Ok(true)
    }

    /// Keeps the caches that depend on attribute `name` of `element` true.
    fn attribute_changed(&mut self, element: NodeId, name: &str) {
        let mut reindex = false;
        if let NodeData::Element(e) = &mut self.nodes[element.index()].data {
            if matches!(name, "id" | "class") {
                e.refresh_cached_attrs();
            }
            reindex = name == "id" || (name == "href" && e.is_html(&local_name!("base")));
        }
        if reindex {
            self.invalidate_index();
        }
    }
}

/// An attribute name as stored on `e`: ASCII-lowercased on HTML elements.
fn attribute_name<'a>(e: &Element, name: &'a str) -> Cow<'a, str> {
    if e.is_html_element() && name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// DOM's "valid element local name", simplified: starts with an ASCII
/// letter, holds no ASCII whitespace, NUL, `/` or `>`.
pub(super) fn valid_element_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && !name.contains(|c: char| c.is_ascii_whitespace() || matches!(c, '\0' | '/' | '>'))
}

/// DOM's "valid attribute local name": not empty, no ASCII whitespace,
/// NUL, `/`, `=` or `>`.
pub(super) fn valid_attribute_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| c.is_ascii_whitespace() || matches!(c, '\0' | '/' | '=' | '>'))
}

/// Unlinks `id` from its parent and siblings (its subtree comes along).
pub(super) fn unlink(doc: &mut Document, id: NodeId) {
    let (parent, prev, next) = {
        let n = &doc.nodes[id.index()];
        (n.parent, n.prev_sibling, n.next_sibling)
    };
    if let Some(p) = prev {
        doc.nodes[p.index()].next_sibling = next;
    } else if let Some(parent) = parent {
        doc.nodes[parent.index()].first_child = next;
    }
    if let Some(n) = next {
        doc.nodes[n.index()].prev_sibling = prev;
    } else if let Some(parent) = parent {
        doc.nodes[parent.index()].last_child = prev;
    }
    let n = &mut doc.nodes[id.index()];
    n.parent = None;
    n.prev_sibling = None;
    n.next_sibling = None;
}

/// Links a detached node as the last child of `parent`.
pub(super) fn link_last(doc: &mut Document, parent: NodeId, child: NodeId) {
    let last = doc.nodes[parent.index()].last_child;
    {
        let c = &mut doc.nodes[child.index()];
        c.parent = Some(parent);
        c.prev_sibling = last;
        c.next_sibling = None;
    }
    match last {
        Some(l) => doc.nodes[l.index()].next_sibling = Some(child),
        None => doc.nodes[parent.index()].first_child = Some(child),
    }
    doc.nodes[parent.index()].last_child = Some(child);
}

/// Links a detached node right before `sibling`.
pub(super) fn link_before(doc: &mut Document, sibling: NodeId, child: NodeId) {
    let (parent, prev) = {
        let s = &doc.nodes[sibling.index()];
        (s.parent, s.prev_sibling)
    };
    {
        let c = &mut doc.nodes[child.index()];
        c.parent = parent;
        c.prev_sibling = prev;
        c.next_sibling = Some(sibling);
    }
    doc.nodes[sibling.index()].prev_sibling = Some(child);
    match prev {
        Some(p) => doc.nodes[p.index()].next_sibling = Some(child),
        None => {
            if let Some(parent) = parent {
                doc.nodes[parent.index()].first_child = Some(child);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseOptions, parse_str};

    fn doc(html: &str) -> Document {
        parse_str(html, &ParseOptions::default())
    }

    /// Every link agrees with its counterpart, and every child list runs
    /// from `first_child` to `last_child`. O(nodes).
    fn assert_links(d: &Document) {
        for (i, n) in d.nodes.iter().enumerate() {
            let id = NodeId::from_index(i);
            let mut prev = None;
            let mut at = n.first_child;
            while let Some(c) = at {
                let cn = d.node(c);
                assert_eq!(cn.parent, Some(id), "parent of #{}", c.index());
                assert_eq!(cn.prev_sibling, prev, "prev of #{}", c.index());
                prev = Some(c);
                at = cn.next_sibling;
            }
            assert_eq!(n.last_child, prev, "last child of #{i}");
            if n.parent.is_none() {
                assert_eq!((n.prev_sibling, n.next_sibling), (None, None), "siblings of detached #{i}");
            }
        }
    }

    fn body(d: &Document) -> NodeId {
        d.body().expect("a parsed page has a body")
    }

    #[test]
    fn create_and_append() -> Result<(), MutationError> {
        let mut d = doc("<p>a</p>");
        let b = body(&d);
        let link = d.create_html_element("A", &[("HREF", "/x"), ("href", "/y")])?;
        let text = d.create_text("go")?;
        d.append_child(link, text)?;
        d.append_child(b, link)?;
        assert_links(&d);
        assert!(
            d.dump().ends_with("<body>\n    <p>\n      \"a\"\n    <a href=\"/x\">\n      \"go\"\n"),
            "{}",
            d.dump()
        );
        assert!(d.is_connected(link) && d.is_connected(text));
        Ok(())
    }

    #[test]
    fn insert_before_places_and_moves() -> Result<(), MutationError> {
        let mut d = doc("<ul><li id=a>a<li id=b>b</ul>");
        let (a, b) = (d.element_by_id("a").expect("id in the page"), d.element_by_id("b").expect("id in the page"));
        let ul = d.parent(a).expect("a parent");
        let c = d.create_html_element("li", &[("id", "c")])?;
        d.insert_before(ul, c, Some(a))?;
        assert_eq!(d.children(ul).collect::<Vec<_>>(), [c, a, b]);
        // A move: b to the front; then before itself (stays where it is).
        d.insert_before(ul, b, Some(c))?;
        d.insert_before(ul, b, Some(b))?;
        assert_eq!(d.children(ul).collect::<Vec<_>>(), [b, c, a]);
        d.insert_before(ul, b, None)?;
        assert_eq!(d.children(ul).collect::<Vec<_>>(), [c, a, b]);
        assert_links(&d);
        // The reference must be a child of the parent.
        let p = d.create_html_element("p", &[])?;
        assert_eq!(d.insert_before(ul, p, Some(ul)), Err(MutationError::NotAChild(ul)));
        assert!(!d.is_connected(p));
        Ok(())
    }

    #[test]
    fn detach_keeps_ids_and_never_reuses_slots() -> Result<(), MutationError> {
        let mut d = doc("<div id=box><a href=/a id=x>a</a><p>b</p></div><p>c</p>");
        let boxed = d.element_by_id("box").expect("id in the page");
        let x = d.element_by_id("x").expect("id in the page");
        let before = d.len();
        d.detach(boxed)?;
        assert_links(&d);
        assert!(!d.dump().contains("box"), "{}", d.dump());
        assert_eq!((d.element_by_id("box"), d.element_by_id("x")), (None, None));
        assert!(!d.is_connected(x));
        // The detached subtree is still whole and readable by id.
        assert_eq!(d.parent(x), Some(boxed));
        assert_eq!(d.element(x).and_then(|e| e.attr("href")), Some("/a"));
        // Detaching again is a no-op; the document itself cannot go.
        d.detach(boxed)?;
        assert_eq!(d.detach(NodeId::DOCUMENT), Err(MutationError::Hierarchy));
        // New nodes get new slots.
        let fresh = d.create_text("new")?;
        assert_eq!(fresh.index(), before);
        // And the subtree can come back.
        let b = body(&d);
        d.append_child(b, boxed)?;
        assert_eq!(d.element_by_id("x"), Some(x));
        assert_links(&d);
        Ok(())
    }

    #[test]
    fn the_tree_stays_a_tree() -> Result<(), MutationError> {
        let mut d = doc("<div id=outer><div id=inner></div></div>");
        let (outer, inner) =
            (d.element_by_id("outer").expect("id in the page"), d.element_by_id("inner").expect("id in the page"));
        assert_eq!(d.append_child(inner, outer), Err(MutationError::Hierarchy));
        assert_eq!(d.append_child(outer, outer), Err(MutationError::Hierarchy));
        assert_eq!(d.append_child(inner, NodeId::DOCUMENT), Err(MutationError::Hierarchy));
        let second = d.create_html_element("html", &[])?;
        assert_eq!(d.append_child(NodeId::DOCUMENT, second), Err(MutationError::Hierarchy));
        let text = d.create_text("x")?;
        assert_eq!(d.append_child(NodeId::DOCUMENT, text), Err(MutationError::Hierarchy));
        assert_eq!(d.append_child(text, inner), Err(MutationError::WrongKind(text)));
        // The root element can leave and come back.
        let html = d.root_element().expect("a root element");
        d.detach(html)?;
        assert_eq!(d.root_element(), None);
        d.append_child(NodeId::DOCUMENT, html)?;
        assert_eq!(d.root_element(), Some(html));
        assert_links(&d);
        Ok(())
    }

    #[test]
    fn foreign_ids_are_refused_not_panicked_on() {
        let big = doc("<p>1</p><p>2</p><p>3</p><p>4</p>");
        let mut small = doc("");
        let far = NodeId::from_index(big.len() + 10);
        let b = body(&small);
        assert_eq!(small.append_child(b, far), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.append_child(far, b), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.insert_before(b, b, Some(far)), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.detach(far), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.set_attribute(far, "id", "x"), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.remove_attribute(far, "id"), Err(MutationError::UnknownNode(far)));
        assert_eq!(small.set_text(far, "x"), Err(MutationError::UnknownNode(far)));
        assert!(!small.is_connected(far));
    }

    #[test]
    fn attributes_keep_caches_true() -> Result<(), MutationError> {
        let mut d = doc("<p id=a class='x y'>t</p><p id=b>u</p>");
        let a = d.element_by_id("a").expect("id in the page");
        d.set_attribute(a, "ID", "b")?;
        // Both are "b" now; the first in tree order wins.
        assert_eq!(d.element_by_id("b"), Some(a));
        assert_eq!(d.element_by_id("a"), None);
        assert_eq!(d.element(a).and_then(Element::id), Some("b"));
        d.set_attribute(a, "class", "z z w")?;
        assert_eq!(d.element(a).map(|e| e.classes().collect::<Vec<_>>()), Some(vec!["z", "w"]));
        assert_eq!(d.remove_attribute(a, "id"), Ok(true));
        assert_eq!(d.remove_attribute(a, "id"), Ok(false));
        assert_ne!(d.element_by_id("b"), Some(a));
        assert_eq!(d.element(a).and_then(Element::id), None);
        d.set_attribute(a, "data-n", "1")?;
        d.set_attribute(a, "data-n", "2")?;
        assert_eq!(d.element(a).map(|e| e.attrs.len()), Some(2));
        assert_eq!(d.element(a).and_then(|e| e.attr("data-n")), Some("2"));
        for bad in ["", "a b", "a=b", "a/b", "a>b", "a\0"] {
            assert_eq!(d.set_attribute(a, bad, "v"), Err(MutationError::InvalidName), "{bad:?}");
        }
        let text = d.first_child(a).expect("a child");
        assert_eq!(d.set_attribute(text, "id", "t"), Err(MutationError::WrongKind(text)));
        d.set_text(text, "changed")?;
        assert_eq!(d.text(text), Some("changed"));
        assert_eq!(d.set_text(a, "x"), Err(MutationError::WrongKind(a)));
        Ok(())
    }

    #[test]
    fn base_href_follows_mutations() -> Result<(), MutationError> {
        let options = ParseOptions { url: url::Url::parse("https://a.example/dir/page").ok(), ..Default::default() };
        let mut d = parse_str("<base href=/one/><p>x</p>", &options);
        let url = |d: &Document| d.base_url().map(|u| u.to_string());
        assert_eq!(url(&d).as_deref(), Some("https://a.example/one/"));
        let base = d
            .descendants(NodeId::DOCUMENT)
            .find(|&n| d.element(n).is_some_and(|e| e.is_html(&local_name!("base"))))
            .expect("a <base>");
        d.set_attribute(base, "href", "/two/")?;
        assert_eq!(url(&d).as_deref(), Some("https://a.example/two/"));
        d.detach(base)?;
        assert_eq!(url(&d).as_deref(), Some("https://a.example/dir/page"));
        Ok(())
    }

    #[test]
    fn limits_hold() -> Result<(), MutationError> {
        let mut d = doc("");
        let mut parent = body(&d);
        // body sits at depth 2: elements may go down to MAX_DEPTH.
        for _ in 2..MAX_DEPTH {
            let div = d.create_html_element("div", &[])?;
            d.append_child(parent, div)?;
            parent = div;
        }
        let one_more = d.create_html_element("div", &[])?;
        assert_eq!(d.append_child(parent, one_more), Err(MutationError::TooDeep));
        // Text may still go under the deepest element.
        let text = d.create_text("deep")?;
        d.append_child(parent, text)?;
        // A subtree two levels tall fits only where both levels do.
        let top = d.create_html_element("div", &[])?;
        let below = d.create_html_element("div", &[])?;
        d.append_child(top, below)?;
        let grand = d.parent(parent).expect("a parent");
        assert_eq!(d.append_child(grand, top), Err(MutationError::TooDeep));
        d.append_child(d.parent(grand).expect("a parent"), top)?;
        assert_links(&d);

        let e = d.create_html_element("p", &[])?;
        for i in 0..MAX_ATTRIBUTES {
            d.set_attribute(e, &format!("data-{i}"), "")?;
        }
        assert_eq!(d.set_attribute(e, "one-more", ""), Err(MutationError::TooManyAttributes));
        d.set_attribute(e, "data-0", "still fine")?;
        assert_eq!(d.create_html_element("1p", &[]), Err(MutationError::InvalidName));
        assert_eq!(d.create_html_element("p", &[("a b", "")]), Err(MutationError::InvalidName));
        Ok(())
    }

    #[test]
    fn a_created_template_has_contents() -> Result<(), MutationError> {
        let mut d = doc("");
        let t = d.create_html_element("template", &[])?;
        let contents = d.element(t).and_then(|e| e.template_contents);
        let contents = contents.expect("template contents");
        let p = d.create_html_element("p", &[])?;
        d.append_child(contents, p)?;
        let b = body(&d);
        d.append_child(b, t)?;
        assert!(!d.is_connected(p));
        assert_links(&d);
        Ok(())
    }

    #[test]
    fn a_mutated_document_still_snapshots() -> Result<(), MutationError> {
        use crate::{RefTable, SnapshotOptions, snapshot_document};
        let mut d = doc("<title>T</title><p>x <a href=/a>a</a></p>");
        let b = body(&d);
        let button = d.create_html_element("button", &[])?;
        let label = d.create_text("Go")?;
        d.append_child(button, label)?;
        d.append_child(b, button)?;
        let img = d.create_html_element("img", &[("alt", "inside a void element")])?;
        let input = d.create_html_element("input", &[])?;
        d.append_child(input, img)?;
        d.append_child(b, input)?;
        let mut refs = RefTable::new();
        let snap = snapshot_document(d, &SnapshotOptions::default(), &mut refs);
        assert!(snap.observation.text().contains("[2] button \"Go\""), "{}", snap.observation.text());
        // No root element at all.
        let mut d = snap.document;
        let html = d.root_element().expect("a root element");
        d.detach(html)?;
        let snap = snapshot_document(d, &SnapshotOptions::default(), &mut refs);
        assert_eq!(snap.observation.text(), "#\n");
        Ok(())
    }
}
