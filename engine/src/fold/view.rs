//! What one fold pass works on: the items a mode shows in reading order
//! ([`View`]), each one's class (a run of same-shaped siblings, prose, an
//! item of its own), the runs found, and the pass's state as lines are
//! collapsed to stay within the budget.

use crate::dom::{Document, NodeId};
use crate::line::MAX_INDENT;
use crate::semantics::role::Role;
use crate::tree::{AxTree, ItemId, Segment};

use super::tokens;

/// The text of a fold line.
pub(super) fn fold_text(kind: FoldKind, count: usize) -> String {
    match kind {
        FoldKind::Items(r) => format!("… +{count} more items (observe ref {r})"),
        FoldKind::Text => format!("… +{count} more text blocks (extract text)"),
    }
}

pub(super) fn budget_text(count: usize) -> String {
    format!("… +{count} more lines (budget)")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FoldKind {
    Items(u32),
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Never part of a run (captions).
    None,
    /// Prose.
    Text,
    /// An item with this signature.
    Item(u64),
}

/// What a mode does with one item.
pub(super) enum Take {
    /// Its line, its children below it.
    Line(String),
    /// No line; its children in its place.
    Splice,
    /// A caption line, then its children in its place.
    SpliceWithLine(String),
    /// Nothing of it.
    Drop,
}

/// The items a mode shows, as a forest; node ids are in pre-order.
pub(super) struct View {
    pub(super) item: Vec<ItemId>,
    pub(super) text: Vec<String>,
    pub(super) caption: Vec<bool>,
    pub(super) parent: Vec<Option<usize>>,
    pub(super) children: Vec<Vec<usize>>,
    pub(super) roots: Vec<usize>,
    pub(super) depth: Vec<usize>,
    pub(super) tree_parent: Vec<Option<ItemId>>,
}

impl View {
    pub(super) fn build(tree: &AxTree, start: &[ItemId], mut take: impl FnMut(ItemId) -> Take) -> View {
        let mut v = View {
            item: Vec::new(),
            text: Vec::new(),
            caption: Vec::new(),
            parent: Vec::new(),
            children: Vec::new(),
            roots: Vec::new(),
            depth: Vec::new(),
            tree_parent: Vec::new(),
        };
        let mut stack: Vec<(ItemId, Option<usize>, Option<ItemId>)> =
            start.iter().rev().map(|&r| (r, None, None)).collect();
        while let Some((it, vp, tp)) = stack.pop() {
            let (line, caption, inside) = match take(it) {
                Take::Drop => continue,
                Take::Splice => (None, false, false),
                Take::Line(t) => (Some(t), false, true),
                Take::SpliceWithLine(t) => (Some(t), true, false),
            };
            let mut child_parent = vp;
            if let Some(text) = line {
                let id = v.item.len();
                v.item.push(it);
                v.text.push(text);
                v.caption.push(caption);
                v.parent.push(vp);
                v.children.push(Vec::new());
                v.depth.push(vp.map_or(0, |p| v.depth[p] + 1));
                v.tree_parent.push(tp);
                match vp {
                    Some(p) => v.children[p].push(id),
                    None => v.roots.push(id),
                }
                if inside {
                    child_parent = Some(id);
                }
            }
            for &c in tree.items[it].children.iter().rev() {
                stack.push((c, child_parent, Some(it)));
            }
        }
        v
    }

    pub(super) fn len(&self) -> usize {
        self.item.len()
    }

    pub(super) fn siblings(&self, parent: Option<usize>) -> &[usize] {
        match parent {
            Some(p) => &self.children[p],
            None => &self.roots,
        }
    }
}

/// The ref of an item that is a container head (`[11] list "Products"`).
pub(super) fn head_ref(tree: &AxTree, item: ItemId) -> Option<u32> {
    match tree.items[item].head.as_slice() {
        [Segment::Widget(w)] => tree.widgets[*w].ref_id,
        _ => None,
    }
}

/// The outermost items whose element (or first text) lies inside `root`,
/// in order: the descent follows only the items that hold `root`. Linear:
/// `root`'s subtree and its ancestors are marked once.
pub(super) fn items_inside(doc: &Document, tree: &AxTree, root: NodeId) -> Vec<ItemId> {
    let mut inside = vec![false; doc.len()];
    inside[root.index()] = true;
    for n in doc.descendants(root) {
        inside[n.index()] = true;
    }
    let mut holds = vec![false; doc.len()];
    for a in doc.ancestors(root) {
        holds[a.index()] = true;
    }
    let mut out = Vec::new();
    let mut stack: Vec<ItemId> = tree.roots.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let item = &tree.items[i];
        match item.node.or(item.at) {
            Some(n) if inside[n.index()] => out.push(i),
            Some(n) if !holds[n.index()] => {}
            _ => stack.extend(item.children.iter().rev().copied()),
        }
    }
    out
}

/// Landmarks and widgets-holders that `read` mode leaves out.
pub(super) fn read_drops(role: Role) -> bool {
    role.is_page_frame() || matches!(role, Role::Search | Role::Form)
}

/// The widget an item's line is, when its whole head is one container
/// widget.
pub(super) fn container_widget(tree: &AxTree, item: ItemId) -> Option<usize> {
    match tree.items[item].head.as_slice() {
        [Segment::Widget(w)]
            if !tree.items[item].children.is_empty() || crate::tree::container_role(tree.widgets[*w].role) =>
        {
            Some(*w)
        }
        _ => None,
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub(super) parent: Option<usize>,
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) kind: FoldKind,
    /// Text blocks of the same sibling list before this run.
    pub(super) before: usize,
    /// Members kept so far (`len`: nothing folded).
    pub(super) keep: usize,
    pub(super) depth: usize,
}

/// Folding levels: (items kept per run, text blocks kept per container).
pub(super) struct Policy {
    pub(super) always_text: Option<usize>,
    pub(super) levels: &'static [(usize, usize)],
}

pub(super) struct State<'a> {
    pub(super) view: &'a View,
    pub(super) own: Vec<u64>,
    pub(super) cur: Vec<u64>,
    pub(super) protected: Vec<bool>,
    pub(super) hidden: Vec<bool>,
    pub(super) collapsed: Vec<bool>,
    pub(super) mark: Vec<Option<(usize, FoldKind)>>,
    pub(super) total: u64,
}

impl State<'_> {
    pub(super) fn fold_cost(kind: FoldKind, count: usize, depth: usize) -> u64 {
        u64::from(tokens::line_cost(depth.min(MAX_INDENT), &fold_text(kind, count)))
    }

    pub(super) fn worth(kind: FoldKind, len: usize, seg_cost: u64, fold_cost: u64) -> bool {
        match kind {
            FoldKind::Items(_) => len >= 2 && seg_cost > fold_cost,
            FoldKind::Text => (len >= 2 && seg_cost > fold_cost) || seg_cost >= 2 * fold_cost,
        }
    }

    /// The cost of a run's members when it keeps `k`, and the folded
    /// segments (start index within the run, length).
    pub(super) fn plan(&self, run: &Run, k: usize) -> (u64, Vec<(usize, usize)>) {
        let sibs = &self.view.siblings(run.parent)[run.start..run.start + run.len];
        let mut cost = 0;
        let mut segs = Vec::new();
        let mut seg: Option<(usize, usize, u64)> = None;
        let close = |seg: &mut Option<(usize, usize, u64)>, cost: &mut u64, segs: &mut Vec<(usize, usize)>| {
            if let Some((s, n, c)) = seg.take() {
                let fc = Self::fold_cost(run.kind, n, run.depth);
                if Self::worth(run.kind, n, c, fc) {
                    *cost += fc;
                    segs.push((s, n));
                } else {
                    *cost += c;
                }
            }
        };
        for (j, &v) in sibs.iter().enumerate() {
            if j >= k && !self.protected[v] {
                match &mut seg {
                    Some((_, n, c)) => {
                        *n += 1;
                        *c += self.cur[v];
                    }
                    None => seg = Some((j, 1, self.cur[v])),
                }
            } else {
                close(&mut seg, &mut cost, &mut segs);
                cost += self.cur[v];
            }
        }
        close(&mut seg, &mut cost, &mut segs);
        (cost, segs)
    }

    /// Whether `v` and its ancestors are all shown.
    pub(super) fn visible(&self, mut v: Option<usize>) -> bool {
        while let Some(x) = v {
            if self.hidden[x] || self.collapsed[x] {
                return false;
            }
            v = self.view.parent[x];
        }
        true
    }

    pub(super) fn propagate(&mut self, mut v: Option<usize>, delta: u64) {
        while let Some(x) = v {
            self.cur[x] = self.cur[x].saturating_sub(delta);
            v = self.view.parent[x];
        }
        self.total = self.total.saturating_sub(delta);
    }

    /// What folding `run` down to `k` kept members would save now.
    pub(super) fn saving(&self, run: &Run, k: usize) -> u64 {
        if k >= run.keep || !self.visible(run.parent) {
            return 0;
        }
        let (old, _) = self.plan(run, run.keep);
        let (new, _) = self.plan(run, k);
        old.saturating_sub(new)
    }

    pub(super) fn apply(&mut self, run: &mut Run, k: usize) {
        if k >= run.keep || !self.visible(run.parent) {
            return;
        }
        let (old, _) = self.plan(run, run.keep);
        let (new, segs) = self.plan(run, k);
        if new >= old {
            return;
        }
        let view = self.view;
        let sibs = &view.siblings(run.parent)[run.start..run.start + run.len];
        for &v in sibs {
            self.hidden[v] = false;
            self.mark[v] = None;
        }
        for (s, n) in segs {
            self.mark[sibs[s]] = Some((n, run.kind));
            for &v in &sibs[s..s + n] {
                self.hidden[v] = true;
            }
        }
        run.keep = k;
        self.propagate(run.parent, old - new);
    }

    pub(super) fn collapse(&mut self, v: usize, container_ref: u32) {
        if !self.visible(Some(v)) {
            return;
        }
        let below = self.cur[v] - self.own[v];
        let fc = Self::fold_cost(FoldKind::Items(container_ref), self.view.children[v].len(), self.view.depth[v] + 1);
        if fc >= below {
            return;
        }
        self.collapsed[v] = true;
        self.propagate(Some(v), below - fc);
    }
}
