//! One fold pass: the view for the mode, the runs that fold, then lines
//! collapsed, largest savings first, until the estimate fits the budget;
//! what is left is emitted as lines with their refs, and cut at the end
//! when even the folded page does not fit.

use crate::dom::{Document, NodeId};
use crate::layout::{Layout, Placement};
use crate::line::{self, LineStyle, MAX_INDENT, RenderOptions};
use crate::semantics::role::Role;
use crate::text::one_line;
use crate::tree::{AxTree, ItemId, Prefix, Segment, signature};

use super::view::{
    Class, FoldKind, Policy, Run, State, Take, View, budget_text, container_widget, fold_text, head_ref, items_inside,
    read_drops,
};
use super::tokens;
use super::{
    FoldOptions, Folded, ITEMS_KEEP, ITEMS_KEEP_BELOW, Line, LineKind, Mode, PROSE_KEEP, PROSE_KEEP_BELOW, Refs,
    fit_header,
};

#[allow(clippy::too_many_arguments)]
pub(super) fn fold_once(
    doc: &Document,
    tree: &AxTree,
    layout: &Layout,
    placement: &dyn Fn(NodeId) -> Placement,
    options: &FoldOptions,
    render_options: &RenderOptions,
    target: Option<u64>,
) -> Folded {
    // The header's exact cost, counted once here for the whole pass.
    let header = line::header(doc, layout, render_options);
    let (header, header_cost) = match target {
        Some(t) => fit_header(header, (t / 4) as u32),
        None => {
            let cost = tokens::exact_line_cost(0, &header);
            (header, cost)
        }
    };
    let mut out = Folded { header, ..Folded::default() };
    let style = match options.mode {
        Mode::Full => LineStyle::Full,
        Mode::Actions => LineStyle::Actions,
        Mode::Read => LineStyle::Read,
    };

    // Where the view starts.
    let mut start: Vec<ItemId> = tree.roots.clone();
    if let Some(r) = options.expand {
        let found = (0..tree.items.len()).find(|&i| {
            tree.items[i].head.iter().any(|s| matches!(s, Segment::Widget(w) if tree.widgets[*w].ref_id == Some(r)))
        });
        match found {
            Some(i) => start = vec![i],
            None => {
                out.expand_missing = true;
                out.estimated_tokens = header_cost;
                return out;
            }
        }
    } else if options.mode == Mode::Read
        && let Some(root) = options.content
        && let inside = items_inside(doc, tree, root)
        && !inside.is_empty()
    {
        start = inside;
    } else if options.mode == Mode::Read {
        let mut main = None;
        tree.walk(|_, item| {
            if main.is_none()
                && let [Segment::Widget(w)] = item.head.as_slice()
                && tree.widgets[*w].role == Role::Main
            {
                main = Some(tree.widgets[*w].node);
            }
        });
        if let Some(node) = main
            && let Some(i) = (0..tree.items.len()).find(|&i| tree.items[i].node == Some(node))
        {
            start = tree.items[i].children.clone();
        }
    }

    let view = View::build(tree, &start, |it| {
        let item = &tree.items[it];
        match options.mode {
            Mode::Full | Mode::Actions => Take::Line(line::item_line(tree, item, render_options, style)),
            Mode::Read => {
                if let Some(w) = container_widget(tree, it) {
                    let w = &tree.widgets[w];
                    if read_drops(w.role) {
                        return Take::Drop;
                    }
                    let name = one_line(&w.name);
                    if name.is_empty() || w.role == Role::Main {
                        return Take::Splice;
                    }
                    return Take::SpliceWithLine(crate::text::truncate_chars(&name, render_options.max_name_chars));
                }
                let text = line::item_line(tree, item, render_options, style);
                if text.is_empty() { Take::Splice } else { Take::Line(text) }
            }
        }
    });
    let n = view.len();

    // Which view nodes show a ref, and which of those are on the first screen.
    let shows_refs = style != LineStyle::Read;
    let mut self_ref = vec![false; n];
    let mut self_protected = vec![false; n];
    if shows_refs {
        for v in 0..n {
            if view.caption[v] {
                continue;
            }
            for seg in &tree.items[view.item[v]].head {
                if let Segment::Widget(w) = seg
                    && let Some(_) = tree.widgets[*w].ref_id
                {
                    self_ref[v] = true;
                    if placement(tree.widgets[*w].node) == Placement::InView {
                        self_protected[v] = true;
                    }
                }
            }
        }
    }

    // `actions`: keep what has a ref, the structure around it, and the
    // headings before it.
    let mut view = view;
    if options.mode == Mode::Actions {
        prune_actions(tree, &mut view, &self_ref);
    }
    let view = view;
    // Pruned nodes stay in the arrays; only what hangs from the roots counts.
    let mut reachable = vec![false; n];
    let mut stack: Vec<usize> = view.roots.clone();
    while let Some(v) = stack.pop() {
        reachable[v] = true;
        stack.extend(view.children[v].iter().copied());
    }

    // Costs and protection, bottom-up (ids are in pre-order).
    let mut own = vec![0u64; n];
    let mut cur = vec![0u64; n];
    let mut protected = self_protected;
    for v in (0..n).rev() {
        own[v] = u64::from(tokens::line_cost(view.depth[v].min(MAX_INDENT), &view.text[v]));
        let mut c = own[v];
        for &ch in &view.children[v] {
            c += cur[ch];
            protected[v] |= protected[ch];
        }
        cur[v] = c;
    }
    let header_cost = u64::from(header_cost);
    let total = header_cost + view.roots.iter().map(|&r| cur[r]).sum::<u64>();
    let mut st = State {
        view: &view,
        own,
        cur,
        protected,
        hidden: vec![false; n],
        collapsed: vec![false; n],
        mark: vec![None; n],
        total,
    };

    if let Some(target) = target {
        let classes: Vec<Class> = (0..n)
            .map(|v| {
                let item = &tree.items[view.item[v]];
                if view.caption[v] {
                    Class::None
                } else if options.mode != Mode::Actions && signature::is_text_block(tree, item) {
                    Class::Text
                } else {
                    Class::Item(signature::signature(doc, tree, item))
                }
            })
            .collect();
        let mut runs = find_runs(tree, &view, &classes, &reachable);
        let policy = if options.expand.is_some() {
            Policy { always_text: None, levels: &[(10, 12), (5, 3), (3, 1), (1, 0)] }
        } else {
            match options.mode {
                Mode::Full => Policy { always_text: Some(PROSE_KEEP), levels: &[(5, PROSE_KEEP), (3, 1), (1, 0)] },
                Mode::Actions => {
                    Policy { always_text: None, levels: &[(5, usize::MAX), (3, usize::MAX), (1, usize::MAX)] }
                }
                Mode::Read => Policy { always_text: None, levels: &[(10, 12), (5, 6), (3, 3), (1, 1), (1, 0)] },
            }
        };
        let keep_for = |run: &Run, items: usize, text: usize| match run.kind {
            FoldKind::Items(_) => items.min(run.len),
            FoldKind::Text => text.saturating_sub(run.before).min(run.len),
        };
        // What lies below the first screen is there to be scrolled to,
        // expanded or extracted: it keeps less.
        let below = |v: usize| tree.items[view.item[v]].at.is_some_and(|n| placement(n) == Placement::Below);
        if policy.always_text.is_some() {
            // Navigation, asides and footers wholly below the first screen
            // are one line each, their ref to expand them.
            for (v, &item) in view.item.iter().enumerate() {
                let side = matches!(tree.items[item].head.as_slice(), [Segment::Widget(w)]
                    if matches!(tree.widgets[*w].role, Role::Navigation | Role::Complementary | Role::ContentInfo));
                if side
                    && reachable[v]
                    && !st.protected[v]
                    && below(v)
                    && !view.children[v].is_empty()
                    && let Some(r) = head_ref(tree, item)
                {
                    st.collapse(v, r);
                }
            }
            for run in runs.iter_mut().filter(|r| matches!(r.kind, FoldKind::Items(_))) {
                let members = &view.siblings(run.parent)[run.start..run.start + run.len];
                let keep = match members.iter().position(|&v| below(v)) {
                    Some(first_below) if run.len >= ITEMS_KEEP_BELOW + 2 => first_below.clamp(ITEMS_KEEP_BELOW, ITEMS_KEEP),
                    _ => ITEMS_KEEP,
                };
                if run.len >= keep + 3 {
                    st.apply(run, keep);
                }
            }
        }
        if let Some(p) = policy.always_text {
            // Only long prose: what folds must cost at least two fold lines.
            // Below the first screen a container's prose keeps its first
            // [`PROSE_KEEP_BELOW`] blocks (its lead).
            for run in runs.iter_mut().filter(|r| r.kind == FoldKind::Text) {
                let mut k = keep_for(run, usize::MAX, p);
                let members = &view.siblings(run.parent)[run.start..run.start + run.len];
                if let Some(first_below) = members.iter().position(|&v| below(v)) {
                    let lead = PROSE_KEEP_BELOW.saturating_sub(run.before.saturating_sub(first_below));
                    k = k.min(first_below.max(lead)).min(run.len);
                }
                let fc = State::fold_cost(FoldKind::Text, run.len, run.depth);
                if st.saving(run, k) >= fc {
                    st.apply(run, k);
                }
            }
        }
        for &(items, text) in policy.levels {
            if st.total <= target {
                break;
            }
            let mut order: Vec<(u64, usize)> = runs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let s = st.saving(r, keep_for(r, items, text));
                    (s > 0).then_some((s, i))
                })
                .collect();
            order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for (_, i) in order {
                if st.total <= target {
                    break;
                }
                let k = keep_for(&runs[i], items, text);
                st.apply(&mut runs[i], k);
            }
        }
        // Whole containers, last first.
        if st.total > target {
            for v in (0..n).rev() {
                if st.total <= target {
                    break;
                }
                if !reachable[v] || st.protected[v] || view.children[v].is_empty() || view.caption[v] {
                    continue;
                }
                if let Some(r) = head_ref(tree, view.item[v]) {
                    st.collapse(v, r);
                }
            }
        }
    }

    emit(tree, &view, &st, &mut out, shows_refs);
    let mut total = header_cost + out_costs(&out.lines).iter().sum::<u64>();
    if let Some(target) = target
        && total > target
    {
        cut(tree, &mut out, header_cost, target, shows_refs);
        total = header_cost + out_costs(&out.lines).iter().sum::<u64>();
    }
    out.widgets = out
        .lines
        .iter()
        .filter_map(|l| match l.kind {
            LineKind::Item(i) if shows_refs => Some(i),
            _ => None,
        })
        .flat_map(|i| {
            tree.items[i].head.iter().filter_map(|s| if let Segment::Widget(w) = s { Some(*w) } else { None })
        })
        .collect();
    for l in &out.lines {
        match l.kind {
            LineKind::MoreItems { count, .. } => out.folded_items += count,
            LineKind::MoreText { count } => out.folded_text_blocks += count,
            _ => {}
        }
    }
    out.estimated_tokens = u32::try_from(total).unwrap_or(u32::MAX);
    out
}

fn out_costs(lines: &[Line]) -> Vec<u64> {
    lines.iter().map(|l| u64::from(tokens::line_cost(l.depth.min(MAX_INDENT), &l.text))).collect()
}

/// Keeps, in `actions` mode, the lines with refs, live regions, the
/// containers and list items around kept lines, and the headings whose
/// section holds a kept line.
fn prune_actions(tree: &AxTree, view: &mut View, self_ref: &[bool]) {
    let n = view.len();
    let mut kept: Vec<bool> =
        (0..n).map(|v| self_ref[v] || matches!(tree.items[view.item[v]].prefix, Prefix::Live(_))).collect();
    let headings = |view: &View, kept: &mut Vec<bool>, sibs: &[usize]| {
        // Walking back: pending[l] says kept content follows before the
        // next heading of level l or higher.
        let mut pending = [false; 8];
        for &s in sibs.iter().rev() {
            match tree.items[view.item[s]].prefix {
                Prefix::Heading(l) => {
                    let l = usize::from(l.clamp(1, 6));
                    kept[s] |= pending[l];
                    for p in pending.iter_mut().skip(l) {
                        *p = false;
                    }
                    if kept[s] {
                        for p in pending.iter_mut().take(l) {
                            *p = true;
                        }
                    }
                }
                _ => {
                    if kept[s] {
                        pending = [true; 8];
                    }
                }
            }
        }
    };
    for v in (0..n).rev() {
        let sibs = std::mem::take(&mut view.children[v]);
        headings(view, &mut kept, &sibs);
        if !kept[v] && sibs.iter().any(|&c| kept[c]) {
            kept[v] = true;
        }
        view.children[v] = sibs;
    }
    let roots = std::mem::take(&mut view.roots);
    headings(view, &mut kept, &roots);
    view.roots = roots.into_iter().filter(|&r| kept[r]).collect();
    for v in 0..n {
        let sibs = std::mem::take(&mut view.children[v]);
        view.children[v] = sibs.into_iter().filter(|&c| kept[c]).collect();
    }
}

/// Maximal runs of siblings: items with one signature under one ref'd
/// container, and prose.
fn find_runs(tree: &AxTree, view: &View, classes: &[Class], reachable: &[bool]) -> Vec<Run> {
    let mut runs = Vec::new();
    let lists = std::iter::once(None).chain((0..view.len()).filter(|&v| reachable[v]).map(Some));
    for parent in lists {
        let sibs = view.siblings(parent);
        let depth = parent.map_or(0, |p| view.depth[p] + 1);
        let mut text_before = 0;
        let mut i = 0;
        while i < sibs.len() {
            let class = classes[sibs[i]];
            let tp = view.tree_parent[sibs[i]];
            let mut j = i + 1;
            match class {
                Class::None => {}
                Class::Text => {
                    while j < sibs.len() && classes[sibs[j]] == Class::Text {
                        j += 1;
                    }
                    runs.push(Run {
                        parent,
                        start: i,
                        len: j - i,
                        kind: FoldKind::Text,
                        before: text_before,
                        keep: j - i,
                        depth,
                    });
                    text_before += j - i;
                }
                Class::Item(_) => {
                    while j < sibs.len() && classes[sibs[j]] == class && view.tree_parent[sibs[j]] == tp {
                        j += 1;
                    }
                    let r = tp.and_then(|t| head_ref(tree, t));
                    if let Some(r) = r
                        && j - i >= signature::MIN_RUN
                    {
                        runs.push(Run {
                            parent,
                            start: i,
                            len: j - i,
                            kind: FoldKind::Items(r),
                            before: 0,
                            keep: j - i,
                            depth,
                        });
                    }
                }
            }
            i = j;
        }
    }
    runs
}

/// Writes the lines of the folded view.
fn emit(tree: &AxTree, view: &View, st: &State<'_>, out: &mut Folded, shows_refs: bool) {
    let mut stack: Vec<usize> = view.roots.iter().rev().copied().collect();
    while let Some(v) = stack.pop() {
        let depth = view.depth[v];
        if st.hidden[v] {
            if let Some((count, kind)) = st.mark[v] {
                out.lines.push(fold_line(kind, count, depth));
            }
            continue;
        }
        let (kind, refs) = if view.caption[v] {
            (LineKind::Caption(view.item[v]), Refs::new())
        } else if shows_refs {
            (LineKind::Item(view.item[v]), item_refs(tree, view.item[v]))
        } else {
            (LineKind::Item(view.item[v]), Refs::new())
        };
        out.lines.push(Line { depth, kind, text: view.text[v].clone(), refs });
        if st.collapsed[v] {
            if let Some(r) = head_ref(tree, view.item[v]) {
                out.lines.push(fold_line(FoldKind::Items(r), view.children[v].len(), depth + 1));
            }
            continue;
        }
        stack.extend(view.children[v].iter().rev().copied());
    }
}

fn fold_line(kind: FoldKind, count: usize, depth: usize) -> Line {
    let count32 = u32::try_from(count).unwrap_or(u32::MAX);
    let kind_out = match kind {
        FoldKind::Items(r) => LineKind::MoreItems { count: count32, container_ref: r },
        FoldKind::Text => LineKind::MoreText { count: count32 },
    };
    Line { depth, kind: kind_out, text: fold_text(kind, count), refs: Refs::new() }
}

/// The refs an item's line shows (every style but `read` writes all its
/// widgets), in order.
fn item_refs(tree: &AxTree, item: ItemId) -> Refs {
    tree.items[item]
        .head
        .iter()
        .filter_map(|s| if let Segment::Widget(w) = s { tree.widgets[*w].ref_id } else { None })
        .collect()
}

/// The last resort: keeps the longest prefix of lines that fits with a
/// final `… +N more lines (budget)`.
pub(super) fn cut(tree: &AxTree, out: &mut Folded, header_cost: u64, target: u64, shows_refs: bool) {
    let costs = out_costs(&out.lines);
    let m = out.lines.len();
    let mut running = header_cost;
    let mut k = 0;
    for (i, &c) in costs.iter().enumerate() {
        let rest = m - i - 1;
        let counter = u64::from(tokens::line_cost(0, &budget_text(rest.max(1))));
        if running + c + if rest > 0 { counter } else { 0 } > target {
            break;
        }
        running += c;
        k = i + 1;
    }
    if k == m {
        return;
    }
    cut_at(tree, out, k, 0, header_cost, shows_refs);
}

/// Keeps the first `k` lines and ends with `… +N more lines (budget)`
/// (`extra`: lines an earlier cut already counted).
pub(super) fn cut_at(tree: &AxTree, out: &mut Folded, k: usize, extra: usize, header_cost: u64, shows_refs: bool) {
    let cut_lines = out.lines.split_off(k.min(out.lines.len()));
    out.marks_truncated |= shows_refs
        && cut_lines.iter().any(|l| match l.kind {
            LineKind::Item(i) => {
                tree.items[i].head.iter().any(|s| matches!(s, Segment::Widget(w) if tree.widgets[*w].ref_id.is_some()))
            }
            _ => false,
        });
    let count = cut_lines.len() + extra;
    out.cut_lines = u32::try_from(count).unwrap_or(u32::MAX);
    out.tree_truncated = true;
    out.lines.push(Line {
        depth: 0,
        kind: LineKind::Budget { count: out.cut_lines },
        text: budget_text(count),
        refs: Refs::new(),
    });
    let kept: std::collections::HashSet<usize> = out
        .lines
        .iter()
        .filter_map(|l| if let LineKind::Item(i) = l.kind { Some(i) } else { None })
        .flat_map(|i| {
            tree.items[i].head.iter().filter_map(|s| if let Segment::Widget(w) = s { Some(*w) } else { None })
        })
        .collect();
    out.widgets.retain(|w| kept.contains(w));
    out.estimated_tokens = u32::try_from(header_cost + out_costs(&out.lines).iter().sum::<u64>()).unwrap_or(u32::MAX);
}
