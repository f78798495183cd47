//! Building a [`Document`] node by node from another engine's DOM (the
//! Chromium backend's `DOMSnapshot`), in tree order: each node is appended
//! as the last child of a node built before it.
//!
//! The limits of parsing hold here too: nothing sits deeper than
//! [`MAX_DEPTH`] (a deeper element is hung on the ancestor at the limit, as
//! the parser's sink does), tags keep at most 1,000 attributes, invalid
//! names are dropped rather than refused. Depths are kept per node, so
//! building is linear in the number of nodes.

use html5ever::{LocalName, QualName, ns};
use url::Url;

use super::mutate::{link_last, valid_attribute_name, valid_element_name};
use super::{Attr, Document, Element, NodeData, NodeId};
use super::{MAX_ATTRIBUTES, MAX_DEPTH};

/// Which markup language an element belongs to (its namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// HTML.
    Html,
    /// SVG.
    Svg,
    /// MathML.
    MathMl,
}

/// Builds a [`Document`] in tree order.
#[derive(Debug)]
pub struct DocumentBuilder {
    doc: Document,
    /// Per node: how many ancestors it has (the document has none).
    depth: Vec<u32>,
}

impl DocumentBuilder {
    /// An empty document at `url`.
    pub fn new(url: Option<Url>) -> DocumentBuilder {
        let mut doc = Document::empty();
        doc.url = url;
        DocumentBuilder { doc, depth: vec![0] }
    }

    /// Appends an element under `parent` (an element or the document).
    /// `None` when `parent` is not one, when the document already has a
    /// root element, or when the name is not a valid element name.
    /// Attributes with invalid names are dropped, repeats keep their first
    /// value.
    pub fn element(&mut self, parent: NodeId, ns: Markup, name: &str, attrs: &[(&str, &str)]) -> Option<NodeId> {
        let parent = self.place(parent, true)?;
        if !valid_element_name(name) {
            return None;
        }
        let (namespace, local) = match ns {
            Markup::Html => (ns!(html), LocalName::from(name.to_ascii_lowercase())),
            Markup::Svg => (ns!(svg), LocalName::from(name)),
            Markup::MathMl => (ns!(mathml), LocalName::from(name)),
        };
        let lower = ns == Markup::Html;
        let mut kept: Vec<Attr> = Vec::with_capacity(attrs.len().min(MAX_ATTRIBUTES));
        for &(n, v) in attrs {
            if kept.len() == MAX_ATTRIBUTES {
                break;
            }
            if !valid_attribute_name(n) {
                continue;
            }
            let local = if lower { LocalName::from(n.to_ascii_lowercase()) } else { LocalName::from(n) };
            if kept.iter().any(|a| a.name.local == local) {
                continue;
            }
            kept.push(Attr { name: QualName::new(None, ns!(), local), value: v.into() });
        }
        let id = self.doc.push_node(NodeData::Element(Element::new(QualName::new(None, namespace, local), kept)))?;
        self.link(parent, id);
        Some(id)
    }

    /// Appends a text node under `parent` (an element). Adjacent text
    /// nodes stay separate, as in the DOM they came from.
    pub fn text(&mut self, parent: NodeId, text: &str) -> Option<NodeId> {
        let parent = self.place(parent, false)?;
        let id = self.doc.push_node(NodeData::Text(text.into()))?;
        self.link(parent, id);
        Some(id)
    }

    /// Appends a comment under `parent` (an element).
    pub fn comment(&mut self, parent: NodeId, text: &str) -> Option<NodeId> {
        let parent = self.place(parent, false)?;
        let id = self.doc.push_node(NodeData::Comment(text.to_owned()))?;
        self.link(parent, id);
        Some(id)
    }

    /// The current value of a text control (what was typed or set).
    pub fn set_value(&mut self, control: NodeId, value: &str) {
        self.doc.form.set_value(control, value.to_owned());
    }

    /// The checkedness of a checkbox or radio button.
    pub fn set_checked(&mut self, control: NodeId, checked: bool) {
        self.doc.form.set_checked(control, checked);
    }

    /// The selectedness of an option.
    pub fn set_selected(&mut self, option: NodeId, selected: bool) {
        self.doc.form.set_selected(option, selected);
    }

    /// The element `id` names, if it is one (for callers reading
    /// attributes while they build).
    pub fn get(&self, id: NodeId) -> Option<&Element> {
        self.doc.element(id)
    }

    /// The document, its index built.
    pub fn finish(mut self) -> Document {
        self.doc.reindex();
        self.doc
    }

    /// Where a child of `parent` really goes: `None` for a parent that
    /// cannot have children of this kind; past [`MAX_DEPTH`], the
    /// ancestor at the limit.
    fn place(&self, parent: NodeId, element: bool) -> Option<NodeId> {
        let data = &self.doc.nodes.get(parent.index())?.data;
        match data {
            NodeData::Element(_) => {}
            // One root element.
            NodeData::Document if element && self.doc.element_children(NodeId::DOCUMENT).next().is_none() => {}
            _ => return None,
        }
        let mut at = parent;
        while self.depth[at.index()] >= MAX_DEPTH {
            at = self.doc.nodes[at.index()].parent?;
        }
        Some(at)
    }

    fn link(&mut self, parent: NodeId, child: NodeId) {
        link_last(&mut self.doc, parent, child);
        debug_assert_eq!(self.depth.len(), child.index());
        self.depth.push(self.depth[parent.index()] + 1);
    }
}
