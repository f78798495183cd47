//! Refs: the numbers `[n]` that name what can be acted on or expanded.
//!
//! Within one snapshot, refs are handed out in tree order. A `RefTable` is
//! meant to outlive a snapshot (the server keeps one per session): a number,
//! once given, is never given again.

use std::collections::HashMap;

use crate::dom::NodeId;

/// Hands out refs; numbers are never reused.
#[derive(Debug, Clone)]
pub struct RefTable {
    next: u32,
    current: HashMap<NodeId, u32>,
    nodes: HashMap<u32, NodeId>,
}

impl Default for RefTable {
    fn default() -> RefTable {
        RefTable { next: 1, current: HashMap::new(), nodes: HashMap::new() }
    }
}

impl RefTable {
    /// A table whose first ref is 1.
    pub fn new() -> RefTable {
        RefTable::default()
    }

    /// Starts a new snapshot of a new document: node ids of the previous
    /// document mean nothing now, but their numbers stay used.
    pub fn begin_document(&mut self) {
        self.current.clear();
        self.nodes.clear();
    }

    /// The ref of `node` in the current document, assigning the next
    /// number the first time.
    pub fn assign(&mut self, node: NodeId) -> u32 {
        if let Some(&r) = self.current.get(&node) {
            return r;
        }
        let r = self.next;
        self.next = self.next.saturating_add(1);
        self.current.insert(node, r);
        self.nodes.insert(r, node);
        r
    }

    /// The ref `node` has, if it has one.
    pub fn get(&self, node: NodeId) -> Option<u32> {
        self.current.get(&node).copied()
    }

    /// The node a ref names in the current document.
    pub fn node(&self, r: u32) -> Option<NodeId> {
        self.nodes.get(&r).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_never_reused() {
        let mut t = RefTable::new();
        let a = t.assign(NodeId::from_index(5));
        let b = t.assign(NodeId::from_index(9));
        assert_eq!((a, b), (1, 2));
        assert_eq!(t.assign(NodeId::from_index(5)), 1);
        assert_eq!(t.node(2), Some(NodeId::from_index(9)));
        t.begin_document();
        assert_eq!(t.node(2), None);
        assert_eq!(t.get(NodeId::from_index(5)), None);
        assert_eq!(t.assign(NodeId::from_index(5)), 3);
    }
}
