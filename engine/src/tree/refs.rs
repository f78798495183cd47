//! Refs: the numbers `[n]` that name what can be acted on or expanded.
//!
//! The contract (docs/observation.md): a ref is unique for the whole session and
//! stable across re-renders. The same element keeps its number for as long
//! as it exists; a new element gets a new number, never a reused one, also
//! across navigations and tabs.
//!
//! How: a [`RefTable`] lives as long as the session (the server keeps one
//! per session and shares it across tabs). It keys refs by element
//! identity, which is ([`DocumentId`], [`NodeId`]): a document's id is
//! unique within the process and its arena slots are never reused, so the
//! pair names one element for the life of the process, and rendering the
//! same (possibly mutated) document again finds the numbers its elements
//! already have. Numbers come from one counter that only goes up.
//!
//! Memory: each live document has a map of the nodes that got a ref. It
//! never grows faster than the document itself (the arena keeps every node
//! it ever had), but it outlives the document unless told: call
//! [`RefTable::forget`] when a tab closes or navigates away (drops the
//! document). The forgotten numbers stay used.

use rustc_hash::FxHashMap;

use crate::dom::{DocumentId, NodeId};

/// Hands out refs, keyed by (document, node); numbers are never reused.
#[derive(Debug, Clone)]
pub struct RefTable {
    /// The next number to give. A `u64` so that it cannot wrap; numbers
    /// past `u32::MAX` are not given at all.
    next: u64,
    /// Per live document: node → ref.
    by_node: FxHashMap<DocumentId, FxHashMap<NodeId, u32>>,
    /// Ref → the node it names, for every live document.
    by_ref: FxHashMap<u32, (DocumentId, NodeId)>,
}

impl Default for RefTable {
    fn default() -> RefTable {
        RefTable { next: 1, by_node: FxHashMap::default(), by_ref: FxHashMap::default() }
    }
}

impl RefTable {
    /// A table whose first ref is 1.
    pub fn new() -> RefTable {
        RefTable::default()
    }

    /// The ref of `node` in document `doc`, giving it the next number the
    /// first time. `None` only once every `u32` number has been given (no
    /// number is ever given twice).
    pub fn assign(&mut self, doc: DocumentId, node: NodeId) -> Option<u32> {
        let nodes = self.by_node.entry(doc).or_default();
        if let Some(&r) = nodes.get(&node) {
            return Some(r);
        }
        let r = u32::try_from(self.next).ok()?;
        self.next += 1;
        nodes.insert(node, r);
        self.by_ref.insert(r, (doc, node));
        Some(r)
    }

    /// The ref `node` of document `doc` has, if it has one.
    pub fn get(&self, doc: DocumentId, node: NodeId) -> Option<u32> {
        self.by_node.get(&doc)?.get(&node).copied()
    }

    /// The document and node a ref names; `None` for a number never given
    /// or one of a forgotten document. The node may have been detached
    /// since (see [`Document::is_connected`](crate::Document::is_connected)).
    pub fn resolve(&self, r: u32) -> Option<(DocumentId, NodeId)> {
        self.by_ref.get(&r).copied()
    }

    /// Drops every ref of document `doc` (a tab closed or navigated away):
    /// lookups no longer find them, and their numbers are never given again.
    /// Returns how many refs were dropped. O(refs of `doc`).
    pub fn forget(&mut self, doc: DocumentId) -> usize {
        let Some(nodes) = self.by_node.remove(&doc) else { return 0 };
        for r in nodes.values() {
            self.by_ref.remove(r);
        }
        nodes.len()
    }

    /// Moves the refs of document `from` to document `to`, which holds the
    /// same elements under other node ids (a page captured again by
    /// another engine): `node_in_to` gives each node of `from` its node in
    /// `to`, `None` for one that is gone. Refs of gone nodes are dropped
    /// (their numbers stay used); `from` is forgotten. Gives how many refs
    /// moved and how many were dropped. O(refs of `from`).
    pub fn carry(&mut self, from: DocumentId, to: DocumentId, node_in_to: impl Fn(NodeId) -> Option<NodeId>) -> (usize, usize) {
        let Some(nodes) = self.by_node.remove(&from) else { return (0, 0) };
        // In node order, so which of two old nodes keeps a shared new one
        // does not depend on hashing.
        let mut nodes: Vec<(NodeId, u32)> = nodes.into_iter().collect();
        nodes.sort_unstable();
        let mut moved: FxHashMap<NodeId, u32> = FxHashMap::with_capacity_and_hasher(nodes.len(), Default::default());
        let mut dropped = 0;
        for (node, r) in nodes {
            self.by_ref.remove(&r);
            match node_in_to(node) {
                // Two old nodes found at one new node: the first keeps it.
                Some(n) if !moved.contains_key(&n) => {
                    moved.insert(n, r);
                    self.by_ref.insert(r, (to, n));
                }
                _ => dropped += 1,
            }
        }
        let kept = moved.len();
        self.by_node.entry(to).or_default().extend(moved);
        (kept, dropped)
    }

    /// How many refs the table holds (over all live documents).
    pub fn len(&self) -> usize {
        self.by_ref.len()
    }

    /// Whether the table holds no ref.
    pub fn is_empty(&self) -> bool {
        self.by_ref.is_empty()
    }

    /// The highest number given so far, if any (forgotten ones included).
    pub fn last_given(&self) -> Option<u32> {
        u32::try_from(self.next - 1).ok().filter(|&r| r > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseOptions, parse_str};

    fn doc_id() -> DocumentId {
        parse_str("", &ParseOptions::default()).id()
    }

    #[test]
    fn a_node_keeps_its_number() {
        let (d, n) = (doc_id(), NodeId::from_index(5));
        let mut t = RefTable::new();
        assert_eq!(t.assign(d, n), Some(1));
        assert_eq!(t.assign(d, NodeId::from_index(9)), Some(2));
        assert_eq!(t.assign(d, n), Some(1));
        assert_eq!(t.get(d, n), Some(1));
        assert_eq!(t.resolve(2), Some((d, NodeId::from_index(9))));
        assert_eq!(t.resolve(3), None);
        assert_eq!((t.len(), t.last_given()), (2, Some(2)));
    }

    #[test]
    fn documents_share_the_counter_and_never_collide() {
        let (a, b) = (doc_id(), doc_id());
        assert_ne!(a, b);
        let n = NodeId::from_index(5);
        let mut t = RefTable::new();
        assert_eq!(t.assign(a, n), Some(1));
        assert_eq!(t.assign(b, n), Some(2));
        assert_eq!(t.assign(a, n), Some(1));
        assert_eq!(t.resolve(1), Some((a, n)));
        assert_eq!(t.resolve(2), Some((b, n)));
    }

    #[test]
    fn forgetting_a_document_keeps_its_numbers_used() {
        let (a, b) = (doc_id(), doc_id());
        let n = NodeId::from_index(5);
        let mut t = RefTable::new();
        t.assign(a, n);
        t.assign(a, NodeId::from_index(6));
        t.assign(b, n);
        assert_eq!(t.forget(a), 2);
        assert_eq!(t.forget(a), 0);
        assert_eq!((t.resolve(1), t.resolve(2), t.get(a, n)), (None, None, None));
        assert_eq!(t.resolve(3), Some((b, n)));
        // The same node asked for again is new to the table: a new number.
        assert_eq!(t.assign(a, n), Some(4));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn numbers_run_out_instead_of_repeating() {
        let d = doc_id();
        let mut t = RefTable::new();
        t.next = u64::from(u32::MAX);
        assert_eq!(t.assign(d, NodeId::from_index(1)), Some(u32::MAX));
        assert_eq!(t.assign(d, NodeId::from_index(2)), None);
        assert_eq!(t.assign(d, NodeId::from_index(1)), Some(u32::MAX));
        assert_eq!(t.last_given(), Some(u32::MAX));
    }

    #[test]
    fn carried_refs_follow_their_elements() {
        let (a, b) = (doc_id(), doc_id());
        let mut t = RefTable::new();
        let r1 = t.assign(a, NodeId::from_index(5)).expect("a ref");
        let r2 = t.assign(a, NodeId::from_index(6)).expect("a ref");
        t.carry(a, b, |n| (n.index() == 5).then(|| NodeId::from_index(9)));
        assert_eq!(t.resolve(r1), Some((b, NodeId::from_index(9))));
        assert_eq!(t.resolve(r2), None);
        assert_eq!(t.get(b, NodeId::from_index(9)), Some(r1));
        assert_eq!(t.get(a, NodeId::from_index(5)), None);
        // A new element gets a new number, never r2 again.
        assert!(t.assign(b, NodeId::from_index(6)).expect("a ref") > r2);
    }
}
