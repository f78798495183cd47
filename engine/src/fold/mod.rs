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
//! 1. runs of siblings with one structural signature
//!    ([`signature`](crate::tree::signature)) keep their first 5, then 3,
//!    then 1 items and end with `… +N more items
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
mod pass;
pub mod tokens;
mod view;

use std::fmt::Write;

use smallvec::SmallVec;

use crate::dom::{Document, NodeId};
use crate::layout::{Layout, Placement};
use crate::line::{self, LineStyle, MAX_INDENT, RenderOptions};
use crate::tree::{AxTree, ItemId, Segment};
use pass::{cut_at, fold_once};

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

/// Shortens a header whose exact cost exceeds `limit` tokens; gives it
/// with its cost.
fn fit_header(header: String, limit: u32) -> (String, u32) {
    let cost = tokens::exact_line_cost(0, &header);
    if cost <= limit {
        return (header, cost);
    }
    let mut chars: Vec<char> = header.chars().collect();
    while chars.len() > 2 {
        let keep = chars.len() * 3 / 4;
        chars.truncate(keep);
        let mut s: String = chars.iter().collect();
        s = s.trim_end().to_owned();
        s.push('…');
        let cost = tokens::exact_line_cost(0, &s);
        if cost <= limit {
            return (s, cost);
        }
    }
    let short = "#".to_owned();
    let cost = tokens::exact_line_cost(0, &short);
    (short, cost)
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
