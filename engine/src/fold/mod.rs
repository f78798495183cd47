//! Stage 6, `fold`: which lines of the semantic tree the model reads, under
//! a token budget and an `observe` mode (docs/observation.md).
//!
//! ```text
//! [11] list "Products"
//!  - [12] link "Widget 1" · $1.50 4.0 stars · [13] button "Add to cart"
//!  … +20 more items (observe ref 11)
//! ```
//!
//! The stage works on a *view*: the items a mode shows, each with its line
//! (written by [`crate::line::item_line`]) and what it costs in o200k
//! tokens ([`tokens`]), counted once. It then folds, cheapest decisions
//! first, until the estimate is under the budget less a margin:
//!
//! 0. in `full` mode, always: runs of more than [`ITEMS_KEEP`] + 2 alike
//!    items keep their first [`ITEMS_KEEP`], and long prose (at least two
//!    fold lines' worth) beyond the first [`PROSE_KEEP`] text blocks of a
//!    container becomes `… +N more text blocks (extract text)`; below the
//!    first screen (layout's [`Placement::Below`]) runs keep
//!    [`ITEMS_KEEP_BELOW`] items, prose its first [`PROSE_KEEP_BELOW`]
//!    block, and navigation, asides and footers become one line each
//!    (`… +N more items (observe ref R)`, R the landmark's ref);
//! 1. runs of siblings with one structural signature ([`signature`]) keep
//!    their first 5, then 3, then 1 items and end with `… +N more items
//!    (observe ref R)` (R: the container's ref), while prose keeps fewer
//!    blocks; at each level the runs that save most fold first, and only
//!    as many as needed;
//! 2. containers with a ref fold all their items, last (deepest, furthest
//!    down the page) first;
//! 3. if it still does not fit, the lines are cut at the end with
//!    `… +N more lines (budget)` and the observation says it was truncated.
//!
//! Items that hold an interactive element of the first screen (a widget
//! with a ref whose node is [`Placement::InView`]) are never folded; only
//! the last-resort cut can drop them. Every decision updates the costs of
//! the folded run's ancestors (the tree is at most 512 deep), so the stage
//! is linear in the items times the depth, never re-rendering the tree.
//!
//! `budget: None` (`--no-fold`) turns folding and the budget off: every
//! line of the mode is kept.

mod notes;
mod o200k;
pub mod tokens;

use std::fmt::Write;

use smallvec::SmallVec;

use crate::dom::{Document, NodeId};
use crate::layout::{Layout, Placement};
use crate::line::{self, LineStyle, MAX_INDENT, RenderOptions};
use crate::semantics::role::Role;
use crate::text::one_line;
use crate::tree::{AxTree, ItemId, Prefix, Segment, signature};

/// The default budget in o200k tokens. A page's first screen and its
/// structure fit in far less; 3,000 leaves room for long forms, tables and
/// menus while an agent that observes dozens of times per task spends a
/// small part of its context on each observation (the p90 target of the
/// project is 3,000 tokens per observation).
pub const DEFAULT_BUDGET: u32 = 3_000;
/// Budgets below this are raised to it: the header and a fold line alone
/// need a few dozen tokens.
pub const MIN_BUDGET: u32 = 100;
/// The estimate must come under the budget by this much (percent), so
/// that the real count does too (the estimate is within a few percent of
/// tiktoken on real pages; the tests check both).
pub const MARGIN_PERCENT: u32 = 8;
/// Text blocks of a container shown in `full` mode before prose folds.
pub const PROSE_KEEP: usize = 3;
/// Text blocks of a container kept in `full` mode once its prose runs below
/// the first screen.
pub const PROSE_KEEP_BELOW: usize = 1;
/// Items of a run kept in `full` mode when the run reaches below the first
/// screen (the items in view are always kept).
pub const ITEMS_KEEP_BELOW: usize = 3;
/// Items of a run shown in `full` mode before the run folds, whatever the
/// budget: a list of 40 results reads as well from its first 8.
pub const ITEMS_KEEP: usize = 8;

/// What an observation shows (docs/observation.md, `observe` modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Everything (the default).
    #[default]
    Full,
    /// Only what has a ref, with the landmarks and headings that place it.
    Actions,
    /// The main content as prose: no refs, no navigation.
    Read,
}

impl Mode {
    /// `full`, `actions` or `read`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "full" => Some(Mode::Full),
            "actions" => Some(Mode::Actions),
            "read" => Some(Mode::Read),
            _ => None,
        }
    }

    /// The mode's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Actions => "actions",
            Mode::Read => "read",
        }
    }
}

/// Options of the fold stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldOptions {
    /// The mode.
    pub mode: Mode,
    /// The budget in o200k tokens for the whole observation (header and
    /// lines); `None` turns folding off.
    pub budget: Option<u32>,
    /// Show only the subtree of the item holding this ref, with folding
    /// relaxed (still within the budget).
    pub expand: Option<u32>,
    /// In `read` mode, the main content's element
    /// ([`crate::digest::main_content`]'s root): the view is what lies
    /// inside it. `None`: the `main` landmark, else the whole page. The
    /// fold does not look for it: its caller hands it in
    /// ([`crate::digest::with_main_content`]).
    pub content: Option<NodeId>,
}

impl Default for FoldOptions {
    fn default() -> FoldOptions {
        FoldOptions { mode: Mode::Full, budget: Some(DEFAULT_BUDGET), expand: None, content: None }
    }
}

impl FoldOptions {
    /// Whether these options read [`FoldOptions::content`] and it is not
    /// set yet: the mode is `read` and no ref is expanded (the other modes
    /// do not need it, and finding it walks the page).
    pub fn wants_content(&self) -> bool {
        self.mode == Mode::Read && self.expand.is_none() && self.content.is_none()
    }

    /// No folding and no budget: every line of the mode.
    pub fn unfolded() -> FoldOptions {
        FoldOptions { budget: None, ..FoldOptions::default() }
    }
}

/// What a line of the folded observation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// An item's line.
    Item(ItemId),
    /// In `read` mode, the name of a container (a table's caption).
    Caption(ItemId),
    /// `… +N more items (observe ref R)`.
    MoreItems {
        /// Items folded.
        count: u32,
        /// The container's ref.
        container_ref: u32,
    },
    /// `… +N more text blocks (extract text)`.
    MoreText {
        /// Text blocks folded.
        count: u32,
    },
    /// `… +N more lines (budget)`: the cut at the end.
    Budget {
        /// Lines cut.
        count: u32,
    },
}

/// One line: its depth, what it is, its text (without indentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Depth (render indents by it, capped).
    pub depth: usize,
    /// What it stands for.
    pub kind: LineKind,
    /// The text.
    pub text: String,
    /// The refs the text shows, in order (empty in `read` mode and for
    /// fold lines, whose `observe ref R` names a container shown
    /// elsewhere). Taken from the widgets, never parsed from the text: page
    /// text may hold `[12]` too.
    pub refs: Refs,
}

/// The refs of one line: most lines show none, one or two.
pub type Refs = SmallVec<[u32; 2]>;

/// The folded observation: the lines render writes, and what was folded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folded {
    /// The header line (shortened if it alone would eat the budget).
    pub header: String,
    /// The page's notes (`notes.rs`), after the header.
    pub notes: Vec<String>,
    /// The lines, in reading order.
    pub lines: Vec<Line>,
    /// The widgets the lines show, in reading order.
    pub widgets: Vec<usize>,
    /// The estimated o200k tokens of the whole observation.
    pub estimated_tokens: u32,
    /// Items folded into `… +N more items` lines.
    pub folded_items: u32,
    /// Text blocks folded into `… +N more text blocks` lines.
    pub folded_text_blocks: u32,
    /// Lines cut by the budget.
    pub cut_lines: u32,
    /// Whether the budget cut lines.
    pub tree_truncated: bool,
    /// Whether the cut removed refs.
    pub marks_truncated: bool,
    /// Set when `expand` named a ref the tree does not have (no lines).
    pub expand_missing: bool,
}

impl Folded {
    /// A plain-text dump: a summary line, then one line per output line
    /// with its depth and kind.
    pub fn dump(&self) -> String {
        let mut out = format!(
            "tokens~{} folded_items {} folded_text {} cut {}{}{}\n{}\n",
            self.estimated_tokens,
            self.folded_items,
            self.folded_text_blocks,
            self.cut_lines,
            if self.marks_truncated { " marks_truncated" } else { "" },
            if self.expand_missing { " expand_missing" } else { "" },
            self.header
        );
        for l in &self.lines {
            let kind = match l.kind {
                LineKind::Item(i) => format!("item {i}"),
                LineKind::Caption(i) => format!("caption {i}"),
                LineKind::MoreItems { count, container_ref } => format!("more-items {count} ref {container_ref}"),
                LineKind::MoreText { count } => format!("more-text {count}"),
                LineKind::Budget { count } => format!("budget {count}"),
            };
            let _ = writeln!(out, "{} {kind}: {}", l.depth, l.text);
        }
        out
    }
}

/// The text of a fold line.
fn fold_text(kind: FoldKind, count: usize) -> String {
    match kind {
        FoldKind::Items(r) => format!("… +{count} more items (observe ref {r})"),
        FoldKind::Text => format!("… +{count} more text blocks (extract text)"),
    }
}

fn budget_text(count: usize) -> String {
    format!("… +{count} more lines (budget)")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FoldKind {
    Items(u32),
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Never part of a run (captions).
    None,
    /// Prose.
    Text,
    /// An item with this signature.
    Item(u64),
}

/// What a mode does with one item.
enum Take {
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
struct View {
    item: Vec<ItemId>,
    text: Vec<String>,
    caption: Vec<bool>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    depth: Vec<usize>,
    tree_parent: Vec<Option<ItemId>>,
}

impl View {
    fn build(tree: &AxTree, start: &[ItemId], mut take: impl FnMut(ItemId) -> Take) -> View {
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

    fn len(&self) -> usize {
        self.item.len()
    }

    fn siblings(&self, parent: Option<usize>) -> &[usize] {
        match parent {
            Some(p) => &self.children[p],
            None => &self.roots,
        }
    }
}

/// The ref of an item that is a container head (`[11] list "Products"`).
fn head_ref(tree: &AxTree, item: ItemId) -> Option<u32> {
    match tree.items[item].head.as_slice() {
        [Segment::Widget(w)] => tree.widgets[*w].ref_id,
        _ => None,
    }
}

/// The outermost items whose element (or first text) lies inside `root`,
/// in order: the descent follows only the items that hold `root`. Linear:
/// `root`'s subtree and its ancestors are marked once.
fn items_inside(doc: &Document, tree: &AxTree, root: NodeId) -> Vec<ItemId> {
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
fn read_drops(role: Role) -> bool {
    role.is_page_frame() || matches!(role, Role::Search | Role::Form)
}

/// The widget an item's line is, when its whole head is one container
/// widget.
fn container_widget(tree: &AxTree, item: ItemId) -> Option<usize> {
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
struct Run {
    parent: Option<usize>,
    start: usize,
    len: usize,
    kind: FoldKind,
    /// Text blocks of the same sibling list before this run.
    before: usize,
    /// Members kept so far (`len`: nothing folded).
    keep: usize,
    depth: usize,
}

/// Folding levels: (items kept per run, text blocks kept per container).
struct Policy {
    always_text: Option<usize>,
    levels: &'static [(usize, usize)],
}

struct State<'a> {
    view: &'a View,
    own: Vec<u64>,
    cur: Vec<u64>,
    protected: Vec<bool>,
    hidden: Vec<bool>,
    collapsed: Vec<bool>,
    mark: Vec<Option<(usize, FoldKind)>>,
    total: u64,
}

impl State<'_> {
    fn fold_cost(kind: FoldKind, count: usize, depth: usize) -> u64 {
        u64::from(tokens::line_cost(depth.min(MAX_INDENT), &fold_text(kind, count)))
    }

    fn worth(kind: FoldKind, len: usize, seg_cost: u64, fold_cost: u64) -> bool {
        match kind {
            FoldKind::Items(_) => len >= 2 && seg_cost > fold_cost,
            FoldKind::Text => (len >= 2 && seg_cost > fold_cost) || seg_cost >= 2 * fold_cost,
        }
    }

    /// The cost of a run's members when it keeps `k`, and the folded
    /// segments (start index within the run, length).
    fn plan(&self, run: &Run, k: usize) -> (u64, Vec<(usize, usize)>) {
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
    fn visible(&self, mut v: Option<usize>) -> bool {
        while let Some(x) = v {
            if self.hidden[x] || self.collapsed[x] {
                return false;
            }
            v = self.view.parent[x];
        }
        true
    }

    fn propagate(&mut self, mut v: Option<usize>, delta: u64) {
        while let Some(x) = v {
            self.cur[x] = self.cur[x].saturating_sub(delta);
            v = self.view.parent[x];
        }
        self.total = self.total.saturating_sub(delta);
    }

    /// What folding `run` down to `k` kept members would save now.
    fn saving(&self, run: &Run, k: usize) -> u64 {
        if k >= run.keep || !self.visible(run.parent) {
            return 0;
        }
        let (old, _) = self.plan(run, run.keep);
        let (new, _) = self.plan(run, k);
        old.saturating_sub(new)
    }

    fn apply(&mut self, run: &mut Run, k: usize) {
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

    fn collapse(&mut self, v: usize, container_ref: u32) {
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

/// Shortens a header whose estimate exceeds `limit` tokens.
fn fit_header(header: String, limit: u32) -> String {
    if tokens::exact_line_cost(0, &header) <= limit {
        return header;
    }
    let mut chars: Vec<char> = header.chars().collect();
    while chars.len() > 2 {
        let keep = chars.len() * 3 / 4;
        chars.truncate(keep);
        let mut s: String = chars.iter().collect();
        s = s.trim_end().to_owned();
        s.push('…');
        if tokens::exact_line_cost(0, &s) <= limit {
            return s;
        }
    }
    "#".to_owned()
}

/// Folds the tree into the lines of the observation.
pub fn fold(
    doc: &Document,
    tree: &AxTree,
    layout: &Layout,
    options: &FoldOptions,
    render_options: &RenderOptions,
) -> Folded {
    fold_with(doc, tree, layout, &|n| layout.placement(n), options, render_options)
}

/// [`fold`] with the placement of nodes given by `placement` instead of
/// the layout (a backend that knows better, or a test).
pub fn fold_with(
    doc: &Document,
    tree: &AxTree,
    layout: &Layout,
    placement: &dyn Fn(NodeId) -> Placement,
    options: &FoldOptions,
    render_options: &RenderOptions,
) -> Folded {
    let budget = options.budget.map(|b| u64::from(b.max(MIN_BUDGET)));
    // The notes are always sent; the lines share what is left.
    let notes = notes::notes(tree);
    let notes_cost: u32 = notes.iter().map(|n| tokens::line_cost(0, n)).fold(0, u32::saturating_add);
    let with_notes = |mut f: Folded| {
        f.notes = notes.clone();
        f.estimated_tokens = f.estimated_tokens.saturating_add(notes_cost);
        f
    };
    let mut target = budget.map(|b| (b - b * u64::from(MARGIN_PERCENT) / 100).saturating_sub(u64::from(notes_cost)).max(1));
    let mut out = with_notes(fold_once(doc, tree, layout, placement, options, render_options, target));
    // The estimate is close on average but not on every page (pseudo-Latin
    // filler costs a fifth more than English words of the same length):
    // when the result comes near the budget, tiktoken counts it, and the
    // stage folds again to a target lowered by the error it saw.
    let Some(b) = budget else { return out };
    if u64::from(out.estimated_tokens) * 100 <= b * VERIFY_ABOVE_PERCENT {
        return out;
    }
    for _ in 0..3 {
        let real = tokens::exact_count(&observation_text(&out));
        if real <= b {
            return out;
        }
        let t = target.unwrap_or(b);
        target = Some((t * b / real.max(1)) * 97 / 100);
        out = with_notes(fold_once(doc, tree, layout, placement, options, render_options, target));
    }
    // Last resort: cut by exact counts, line by line.
    let shows_refs = options.mode != Mode::Read;
    for _ in 0..64 {
        if out.lines.len() <= 1 || tokens::exact_count(&observation_text(&out)) <= b {
            break;
        }
        let header_cost = u64::from(tokens::exact_line_cost(0, &out.header));
        let keep = out.lines.len().saturating_sub(1 + out.lines.len() / 8);
        let extra = match out.lines.last().map(|l| l.kind) {
            Some(LineKind::Budget { count }) => {
                out.lines.pop();
                count as usize
            }
            _ => 0,
        };
        let keep = keep.min(out.lines.len());
        cut_at(tree, &mut out, keep, extra, header_cost, shows_refs);
    }
    shorten_to_fit(tree, &mut out, b);
    out
}

/// The very last resort: lines that pass the budget alone (a run of
/// symbols the estimate prices low while tiktoken counts one token per
/// character, found by the `snapshot` fuzz target) are cut short, the
/// longest first, to what fits, ending in `…`. The refs a cut line no
/// longer shows (its `[n]` gone from the text) leave it and the widgets.
fn shorten_to_fit(tree: &AxTree, out: &mut Folded, budget: u64) {
    for round in 0..8 {
        let real = tokens::exact_count(&observation_text(out));
        if round > 0 {
            out.estimated_tokens = u32::try_from(real).unwrap_or(u32::MAX);
        }
        if real <= budget {
            return;
        }
        let longest = (0..out.lines.len()).max_by_key(|&i| out.lines[i].text.len());
        let Some(i) = longest.filter(|&i| out.lines[i].text.chars().nth(1).is_some()) else { return };
        let indent = out.lines[i].depth.min(MAX_INDENT);
        let cost = |text: &str| {
            let mut line = " ".repeat(indent);
            line.push_str(text);
            line.push('\n');
            tokens::exact_count(&line)
        };
        let own = cost(&out.lines[i].text);
        let allowed = own.saturating_sub(real - budget);
        // No o200k token is longer than 128 bytes, so a prefix of
        // `allowed × 128` bytes already holds more than `allowed` tokens:
        // the search never counts more text than that.
        let text = &out.lines[i].text;
        let cap = (allowed as usize + 1).saturating_mul(128);
        let ends: Vec<usize> = text.char_indices().map(|(at, _)| at).take_while(|&at| at <= cap).collect();
        // `ends[k]` is the length of the first k characters; find the
        // most characters whose line, with `…`, fits.
        let (mut lo, mut hi) = (0usize, ends.len() - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if cost(&format!("{}…", &text[..ends[mid]])) <= allowed {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let lo = ends[lo];
        let cut = format!("{}…", text[..lo].trim_end());
        let line = &mut out.lines[i];
        line.text = cut;
        let before = line.refs.len();
        let shown = &line.text;
        line.refs.retain(|r| shown.contains(&format!("[{r}]")));
        out.marks_truncated |= line.refs.len() < before;
        out.tree_truncated = true;
        let still: std::collections::HashSet<u32> = out.lines.iter().flat_map(|l| l.refs.iter().copied()).collect();
        out.widgets.retain(|&w| tree.widgets[w].ref_id.is_none_or(|r| still.contains(&r)));
    }
}

/// The fold of a page whose only change since `previous` was made is the
/// value, states or options of the widgets of `changed` (typing into a
/// field: [`AxTree::refresh_values`]): `previous` with the lines showing
/// them written again, without folding the whole tree again. A value
/// changes no signature, no placement and no line count, so the choices
/// of `previous` stand as long as the cost stays where [`fold`] would not
/// have checked it with tiktoken (under [`VERIFY_ABOVE_PERCENT`] of the
/// budget); otherwise, or for a mode other than `full` or an expanded
/// ref, `None`: fold again.
pub fn refold_values(
    previous: &Folded,
    tree: &AxTree,
    options: &FoldOptions,
    render_options: &RenderOptions,
    changed: &[NodeId],
) -> Option<Folded> {
    if options.mode != Mode::Full || options.expand.is_some() || previous.expand_missing {
        return None;
    }
    let shows = |item: &crate::tree::Item| {
        item.head.iter().any(|s| matches!(s, Segment::Widget(w) if tree.widgets.get(*w).is_some_and(|w| changed.contains(&w.node))))
    };
    let mut out = previous.clone();
    let mut cost = i64::from(previous.estimated_tokens);
    for line in &mut out.lines {
        let LineKind::Item(id) = line.kind else { continue };
        let item = tree.items.get(id)?;
        if !shows(item) {
            continue;
        }
        let text = line::item_line(tree, item, render_options, LineStyle::Full);
        let depth = line.depth.min(MAX_INDENT);
        cost += i64::from(tokens::line_cost(depth, &text)) - i64::from(tokens::line_cost(depth, &line.text));
        line.text = text;
    }
    out.estimated_tokens = u32::try_from(cost.max(0)).unwrap_or(u32::MAX);
    if let Some(b) = options.budget {
        let b = u64::from(b.max(MIN_BUDGET));
        if u64::from(out.estimated_tokens) * 100 > b * VERIFY_ABOVE_PERCENT {
            return None;
        }
    }
    Some(out)
}

/// Above this share of the budget (percent), the estimate is checked with
/// tiktoken.
pub const VERIFY_ABOVE_PERCENT: u64 = 70;

/// The observation's text as render writes it.
fn observation_text(out: &Folded) -> String {
    let mut text = String::with_capacity(out.header.len() + out.lines.iter().map(|l| l.text.len() + 8).sum::<usize>());
    text.push_str(&out.header);
    text.push('\n');
    for n in &out.notes {
        text.push_str(n);
        text.push('\n');
    }
    for l in &out.lines {
        text.extend(std::iter::repeat_n(' ', l.depth.min(MAX_INDENT)));
        text.push_str(&l.text);
        text.push('\n');
    }
    text
}

#[allow(clippy::too_many_arguments)]
fn fold_once(
    doc: &Document,
    tree: &AxTree,
    layout: &Layout,
    placement: &dyn Fn(NodeId) -> Placement,
    options: &FoldOptions,
    render_options: &RenderOptions,
    target: Option<u64>,
) -> Folded {
    let mut header = line::header(doc, layout, render_options);
    if let Some(t) = target {
        header = fit_header(header, (t / 4) as u32);
    }
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
                out.estimated_tokens = tokens::exact_line_cost(0, &out.header);
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
    let header_cost = u64::from(tokens::exact_line_cost(0, &out.header));
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
fn cut(tree: &AxTree, out: &mut Folded, header_cost: u64, target: u64, shows_refs: bool) {
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
fn cut_at(tree: &AxTree, out: &mut Folded, k: usize, extra: usize, header_cost: u64, shows_refs: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The safety net under the budget: whatever the estimate got wrong,
    /// a line that alone passes the budget is cut to fit, and the refs it
    /// no longer shows leave it.
    #[test]
    fn shorten_to_fit_cuts_the_longest_line_and_its_lost_refs() {
        let snap = crate::snapshot(b"<p><a href=/a>a</a> <a href=/b>b</a>", &Default::default(), &mut crate::RefTable::new());
        let tree = &snap.tree;
        let refs: Vec<(usize, u32)> = tree.widgets.iter().enumerate().filter_map(|(i, w)| w.ref_id.map(|r| (i, r))).collect();
        assert_eq!(refs.len(), 2);
        let text = format!("[{}] link \"a\" {} [{}] link \"b\"", refs[0].1, "€".repeat(500), refs[1].1);
        let mut out = Folded {
            header: "# t".into(),
            lines: vec![Line { depth: 0, kind: LineKind::MoreText { count: 1 }, text, refs: refs.iter().map(|r| r.1).collect() }],
            widgets: refs.iter().map(|r| r.0).collect(),
            ..Folded::default()
        };
        shorten_to_fit(tree, &mut out, 100);
        let real = tokens::exact_count(&observation_text(&out));
        assert!(real <= 100 && real >= 90, "{real} tokens: as much as fits, no more:\n{}", out.lines[0].text);
        assert!(out.lines[0].text.ends_with("€…"), "{}", out.lines[0].text);
        assert_eq!(out.lines[0].refs.as_slice(), &[refs[0].1], "the second ref was cut off");
        assert_eq!(out.widgets, vec![refs[0].0]);
        assert!(out.tree_truncated && out.marks_truncated);
        assert_eq!(u64::from(out.estimated_tokens), real);
    }
}
