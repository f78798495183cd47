//! The box tree taffy lays out, stored the way layout builds it.
//!
//! taffy's own `TaffyTree` keeps every node in a slot map with room for
//! its style, two layouts, a cache and more, and a heap vector of children
//! per parent: building it cost more than laying it out. Layout here
//! builds a tree once, parents first, and reads it back once, so nodes are
//! plain indices into parallel vectors, the children of all nodes sit in
//! one vector (gathered after building), and the layout state exists only
//! while taffy runs. taffy's low-level traits are implemented on it the
//! way `TaffyTree` implements them, so the algorithms and their results
//! are the same.

use taffy::{self as tf, CoreStyle, NodeId as TfId};

use super::text::Leaf;

/// A node's index in the tree.
pub(super) type Index = u32;

/// The tree as it is built: a node's style, its measured content (text or
/// a replaced box) and its parent. Children follow their parents, and
/// come in the order they were added.
#[derive(Default)]
pub(super) struct BoxTree {
    style: Vec<tf::Style>,
    leaf: Vec<Option<Leaf>>,
    parent: Vec<Index>,
}

/// `parent` of the root.
pub(super) const NO_PARENT: Index = Index::MAX;

impl BoxTree {
    pub(super) fn with_capacity(n: usize) -> BoxTree {
        BoxTree {
            style: Vec::with_capacity(n),
            leaf: Vec::with_capacity(n),
            parent: Vec::with_capacity(n),
        }
    }

    /// Adds a node as the last child of `parent` (`NO_PARENT` for the
    /// root); `None` past `u32::MAX` nodes.
    pub(super) fn push(&mut self, style: tf::Style, leaf: Option<Leaf>, parent: Index) -> Option<Index> {
        let at = Index::try_from(self.style.len()).ok().filter(|&i| i != NO_PARENT)?;
        self.style.push(style);
        self.leaf.push(leaf);
        self.parent.push(parent);
        Some(at)
    }

    pub(super) fn len(&self) -> usize {
        self.style.len()
    }

    pub(super) fn parent(&self, node: Index) -> Index {
        self.parent[node as usize]
    }

    pub(super) fn leaf(&self, node: Index) -> Option<&Leaf> {
        self.leaf[node as usize].as_ref()
    }

    /// Lays the tree out from its root (node 0) in `available` space; gives
    /// each node's box (unrounded), by index.
    pub(super) fn layout(&self, available: tf::Size<tf::AvailableSpace>) -> Vec<tf::Layout> {
        let n = self.len();
        if n == 0 {
            return Vec::new();
        }
        // Children of all nodes in one vector, grouped by parent (a
        // counting sort; each group keeps the order nodes were added).
        let mut first = vec![0u32; n + 1];
        for &p in &self.parent[1..] {
            first[p as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut next = first.clone();
        let mut children = vec![TfId::new(0); n.saturating_sub(1)];
        for (i, &p) in self.parent.iter().enumerate().skip(1) {
            children[next[p as usize] as usize] = TfId::from(i);
            next[p as usize] += 1;
        }
        let mut run = Run {
            tree: self,
            first,
            children,
            cache: vec![tf::Cache::new(); n],
            layout: vec![tf::Layout::new(); n],
            grid: (0..n).map(|_| tf::DetailedLayoutInfo::None).collect(),
        };
        tf::compute_root_layout(&mut run, TfId::new(0), available);
        run.layout
    }
}

/// The tree while taffy runs: its children gathered, and each node's
/// cache, box and grid record (out-of-flow boxes in a grid area read it).
struct Run<'t> {
    tree: &'t BoxTree,
    /// `children[first[i]..first[i + 1]]` are node `i`'s children.
    first: Vec<u32>,
    children: Vec<TfId>,
    cache: Vec<tf::Cache>,
    layout: Vec<tf::Layout>,
    grid: Vec<tf::DetailedLayoutInfo>,
}

fn ix(id: TfId) -> usize {
    usize::from(id)
}

impl<'t> Run<'t> {
    fn style(&self, id: TfId) -> &'t tf::Style {
        &self.tree.style[ix(id)]
    }

    fn kids(&self, id: TfId) -> &[TfId] {
        let i = ix(id);
        &self.children[self.first[i] as usize..self.first[i + 1] as usize]
    }

    /// taffy's dispatch, as `TaffyTree` does it: hidden subtrees, the cache,
    /// then the algorithm of the node's `display` (a node without children
    /// is measured), then the out-of-flow boxes it contains.
    fn child_layout(&mut self, id: TfId, inputs: tf::LayoutInput, block: Option<&mut tf::BlockContext<'_>>) -> tf::LayoutOutput {
        if inputs.run_mode == tf::RunMode::PerformHiddenLayout {
            return tf::compute_hidden_layout(self, id);
        }
        tf::compute_cached_layout(self, id, inputs, |run, id, inputs| {
            let tree = run.tree;
            let style = run.style(id);
            let has_children = !run.kids(id).is_empty();
            let mut output = match (style.display, has_children) {
                (tf::Display::None, _) => tf::compute_hidden_layout(run, id),
                (tf::Display::Block, true) => tf::compute_block_layout(run, id, inputs, block),
                (tf::Display::FlowRoot, true) => tf::compute_block_layout(run, id, inputs, None),
                (tf::Display::Flex, true) => tf::compute_flexbox_layout(run, id, inputs),
                (tf::Display::Grid, true) => tf::compute_grid_layout(run, id, inputs),
                (_, false) => {
                    let leaf = tree.leaf[ix(id)];
                    tf::compute_leaf_layout(inputs, style, |_, _| 0.0, |known, available| match leaf {
                        Some(l) => l.measure(known, available),
                        None => tf::Size::ZERO,
                    })
                }
            };
            if inputs.run_mode == tf::RunMode::PerformLayout {
                tf::compute_oof_layout(run, id, &mut output);
            }
            output
        })
    }
}

impl tf::TraversePartialTree for Run<'_> {
    type ChildIter<'a>
        = std::iter::Copied<std::slice::Iter<'a, TfId>>
    where
        Self: 'a;

    fn child_ids(&self, parent: TfId) -> Self::ChildIter<'_> {
        self.kids(parent).iter().copied()
    }

    fn child_count(&self, parent: TfId) -> usize {
        self.kids(parent).len()
    }

    fn get_child_id(&self, parent: TfId, index: usize) -> TfId {
        self.kids(parent)[index]
    }
}

impl tf::TraverseTree for Run<'_> {}

impl tf::LayoutPartialTree for Run<'_> {
    type CoreContainerStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;
    type CustomIdent = <tf::Style as CoreStyle>::CustomIdent;

    fn get_core_container_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn set_unrounded_layout(&mut self, id: TfId, layout: &tf::Layout) {
        self.layout[ix(id)] = *layout;
    }

    fn compute_child_layout(&mut self, id: TfId, inputs: tf::LayoutInput) -> tf::LayoutOutput {
        self.child_layout(id, inputs, None)
    }
}

impl tf::LayoutContainingBlock for Run<'_> {
    type OofItemStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;

    fn get_oof_item_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    // The lists of out-of-flow boxes by containing block serve only
    // taffy's rounding pass, which whittle does not run (its boxes stay
    // unrounded): nothing reads them, so none are kept.
    fn clear_hoisted_children(&mut self, _id: TfId) {}

    fn add_hoisted_children(&mut self, _id: TfId, _hoisted: &[TfId]) {}

    fn get_detailed_layout_info(&self, id: TfId) -> &tf::DetailedLayoutInfo {
        &self.grid[ix(id)]
    }
}

impl tf::CacheTree for Run<'_> {
    fn cache_get(&mut self, id: TfId, input: &tf::LayoutInput) -> Option<tf::LayoutOutput> {
        self.cache[ix(id)].get(input)
    }

    fn cache_store(&mut self, id: TfId, input: &tf::LayoutInput, output: tf::LayoutOutput) {
        self.cache[ix(id)].store(input, output);
    }

    fn cache_clear(&mut self, id: TfId) {
        self.cache[ix(id)].clear();
    }
}

impl tf::LayoutBlockContainer for Run<'_> {
    type BlockContainerStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;
    type BlockItemStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;

    fn get_block_container_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn get_block_child_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn compute_block_child_layout(
        &mut self,
        id: TfId,
        inputs: tf::LayoutInput,
        block: Option<&mut tf::BlockContext<'_>>,
    ) -> tf::LayoutOutput {
        self.child_layout(id, inputs, block)
    }
}

impl tf::LayoutFlexboxContainer for Run<'_> {
    type FlexboxContainerStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;
    type FlexboxItemStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;

    fn get_flexbox_container_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn get_flexbox_child_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }
}

impl tf::LayoutGridContainer for Run<'_> {
    type GridContainerStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;
    type GridItemStyle<'a>
        = &'a tf::Style
    where
        Self: 'a;

    fn get_grid_container_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn get_grid_child_style(&self, id: TfId) -> &tf::Style {
        self.style(id)
    }

    fn set_detailed_grid_info(&mut self, id: TfId, info: tf::DetailedGridInfo) {
        self.grid[ix(id)] = tf::DetailedLayoutInfo::Grid(Box::new(info));
    }
}
