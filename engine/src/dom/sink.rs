//! html5ever's `TreeSink` writing straight into the arena.
//!
//! The parser calls these methods through `&self`, so the arena sits in a
//! `RefCell`; every borrow is short and never held across a call back into
//! the parser.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, Namespace, QualName};

use super::mutate::{link_before, link_last, unlink};
use super::{Attr, Document, Element, NodeData, NodeId};
use super::MAX_DEPTH;

/// Parse errors beyond this many are counted, not kept.
const KEPT_PARSE_ERRORS: usize = 8;

pub(crate) struct ArenaSink {
    doc: RefCell<Document>,
    parse_errors: Cell<usize>,
    kept_errors: RefCell<Vec<Cow<'static, str>>>,
    /// The element the parser most likely has as its current node: the last
    /// non-void element inserted, or the parent of the last one popped.
    current: Cell<Option<NodeId>>,
}

/// The name of an element, borrowed out of the arena for the tree builder.
#[derive(Debug)]
pub(crate) struct SinkName {
    ns: Namespace,
    local: LocalName,
}

impl ElemName for SinkName {
    fn ns(&self) -> &Namespace {
        &self.ns
    }
    fn local_name(&self) -> &LocalName {
        &self.local
    }
}

impl ArenaSink {
    pub(crate) fn new(doc: Document) -> ArenaSink {
        ArenaSink {
            doc: RefCell::new(doc),
            parse_errors: Cell::new(0),
            kept_errors: RefCell::new(Vec::new()),
            current: Cell::new(None),
        }
    }

    /// The likely current node of the parser and its depth in the tree
    /// (counted up to `MAX_DEPTH + 1`).
    pub(crate) fn current(&self) -> Option<(NodeId, u32)> {
        let id = self.current.get()?;
        Some((id, depth_of(&self.doc.borrow(), id)))
    }

    /// The local name of an element as its end tag would spell it (ASCII
    /// lower case), and whether it is an HTML element; `None` for other
    /// nodes.
    pub(crate) fn element_name(&self, id: NodeId) -> Option<(LocalName, bool)> {
        match &self.doc.borrow().nodes[id.index()].data {
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
    /// node.
    fn placed(&self, child: NodeId) {
        let doc = self.doc.borrow();
        if let NodeData::Element(e) = &doc.nodes[child.index()].data
            && !(e.is_html_element() && is_void(&e.name.local))
        {
            self.current.set(Some(child));
        }
    }

    fn push(&self, data: NodeData) -> NodeId {
        // Past u32::MAX nodes (over 4 billion, far beyond any input whittle
        // accepts) the arena refuses to grow; the parser keeps going with a
        // placeholder.
        self.doc.borrow_mut().push_node(data).unwrap_or(NodeId::DOCUMENT)
    }
}

/// The depth of a node below the root of its tree (the document, a
/// template's contents or a detached subtree's top), counted up to
/// `MAX_DEPTH + 1` (deeper does not matter).
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

/// Where an element may hang when the parser puts it under `parent`: like
/// Chromium, nothing goes below [`MAX_DEPTH`]; a deeper element becomes a
/// child of the ancestor at the limit instead (so it lands as a sibling of
/// the deep chain's last element).
fn clamp_parent(doc: &Document, parent: NodeId) -> NodeId {
    let depth = depth_of(doc, parent);
    if depth < MAX_DEPTH {
        return parent;
    }
    let mut at = parent;
    for _ in MAX_DEPTH - 1..depth {
        match doc.nodes[at.index()].parent {
            Some(p) => at = p,
            None => break,
        }
    }
    at
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
    attrs.into_iter().map(|a| Attr { name: a.name, value: String::from(&*a.value) }).collect()
}

impl TreeSink for ArenaSink {
    type Handle = NodeId;
    type Output = Document;
    type ElemName<'a> = SinkName;

    fn finish(self) -> Document {
        let mut doc = self.doc.into_inner();
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

    fn get_document(&self) -> NodeId {
        NodeId::DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> SinkName {
        let doc = self.doc.borrow();
        match &doc.nodes[target.index()].data {
            NodeData::Element(e) => SinkName { ns: e.name.ns.clone(), local: e.name.local.clone() },
            // The tree builder only asks for element names; answer something
            // harmless rather than panic if that promise is ever broken.
            _ => SinkName { ns: Namespace::from(""), local: LocalName::from("") },
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let is_template = flags.template;
        let id = self.push(NodeData::Element(Element::new(name, convert_attrs(attrs))));
        if is_template {
            let contents = self.push(NodeData::Fragment);
            if let NodeData::Element(e) = &mut self.doc.borrow_mut().nodes[id.index()].data {
                e.template_contents = Some(contents);
            }
        }
        id
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.push(NodeData::Comment(String::from(&*text)))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.push(NodeData::ProcessingInstruction)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        let mut doc = self.doc.borrow_mut();
        match child {
            NodeOrText::AppendNode(node) => {
                unlink(&mut doc, node);
                let parent = if matches!(doc.nodes[node.index()].data, NodeData::Element(_)) {
                    clamp_parent(&doc, *parent)
                } else {
                    *parent
                };
                link_last(&mut doc, parent, node);
                drop(doc);
                self.placed(node);
            }
            NodeOrText::AppendText(text) => {
                if let Some(last) = doc.nodes[parent.index()].last_child
                    && let NodeData::Text(existing) = &mut doc.nodes[last.index()].data
                {
                    existing.push_str(&text);
                    return;
                }
                drop(doc);
                let id = self.push(NodeData::Text(String::from(&*text)));
                link_last(&mut self.doc.borrow_mut(), *parent, id);
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.doc.borrow().nodes[element.index()].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _name: StrTendril, _public: StrTendril, _system: StrTendril) {
        let id = self.push(NodeData::Doctype);
        link_last(&mut self.doc.borrow_mut(), NodeId::DOCUMENT, id);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        let contents = match &self.doc.borrow().nodes[target.index()].data {
            NodeData::Element(e) => e.template_contents,
            _ => None,
        };
        // Only templates are asked for; a fresh fragment keeps a broken
        // promise harmless.
        contents.unwrap_or_else(|| self.push(NodeData::Fragment))
    }

    /// HTML §13.2.6.5's "HTML integration point": a MathML `annotation-xml`
    /// whose `encoding` is `text/html` or `application/xhtml+xml` (the
    /// condition html5ever's element flags carry), read from the element's
    /// attributes. Without it, HTML inside such an element was parsed as
    /// MathML (found by the `tree_builder` fuzz target).
    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        use html5ever::{local_name, ns};
        match &self.doc.borrow().nodes[handle.index()].data {
            NodeData::Element(e) => {
                e.name.ns == ns!(mathml)
                    && e.name.local == local_name!("annotation-xml")
                    && e.attrs.iter().any(|a| {
                        a.name.ns == ns!()
                            && a.name.local == local_name!("encoding")
                            && (a.value.eq_ignore_ascii_case("text/html")
                                || a.value.eq_ignore_ascii_case("application/xhtml+xml"))
                    })
            }
            _ => false,
        }
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.doc.borrow_mut().quirks = mode == QuirksMode::Quirks;
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let mut doc = self.doc.borrow_mut();
        match new_node {
            NodeOrText::AppendNode(node) => {
                unlink(&mut doc, node);
                let deep = doc.nodes[sibling.index()].parent.is_some_and(|p| depth_of(&doc, p) >= MAX_DEPTH);
                if deep && matches!(doc.nodes[node.index()].data, NodeData::Element(_)) {
                    let parent = doc.nodes[sibling.index()].parent.map_or(NodeId::DOCUMENT, |p| clamp_parent(&doc, p));
                    link_last(&mut doc, parent, node);
                } else {
                    link_before(&mut doc, *sibling, node);
                }
                drop(doc);
                self.placed(node);
            }
            NodeOrText::AppendText(text) => {
                if let Some(prev) = doc.nodes[sibling.index()].prev_sibling
                    && let NodeData::Text(existing) = &mut doc.nodes[prev.index()].data
                {
                    existing.push_str(&text);
                    return;
                }
                drop(doc);
                let id = self.push(NodeData::Text(String::from(&*text)));
                link_before(&mut self.doc.borrow_mut(), *sibling, id);
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut doc = self.doc.borrow_mut();
        if let NodeData::Element(e) = &mut doc.nodes[target.index()].data {
            let mut present: std::collections::HashSet<QualName> = e.attrs.iter().map(|a| a.name.clone()).collect();
            for a in attrs {
                if present.insert(a.name.clone()) {
                    e.attrs.push(Attr { name: a.name, value: String::from(&*a.value) });
                }
            }
            e.refresh_cached_attrs();
        }
    }

    /// The parser's form element pointer: `target` belongs to `form` even
    /// when it does not end up inside it (a `<form>` directly in a
    /// `<table>` is closed at once, the rows' controls are still its).
    fn associate_with_form(&self, target: &NodeId, form: &NodeId, _nodes: (&NodeId, Option<&NodeId>)) {
        self.doc.borrow_mut().form.set_parser_owner(*target, *form);
    }

    fn pop(&self, node: &NodeId) {
        let parent = self.doc.borrow().nodes[node.index()].parent;
        self.current.set(parent);
    }

    fn remove_from_parent(&self, target: &NodeId) {
        unlink(&mut self.doc.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut doc = self.doc.borrow_mut();
        let new_parent = clamp_parent(&doc, *new_parent);
        while let Some(child) = doc.nodes[node.index()].first_child {
            unlink(&mut doc, child);
            link_last(&mut doc, new_parent, child);
        }
    }
}
