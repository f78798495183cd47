//! The `extract` tool (docs/mcp.md): a table, a list of repeated items,
//! the main text or the links of a page as rows, paged to a token budget.
//!
//! ```text
//! [5] table "Prices" · rows 1–20 of 52
//! Plan | Price | Seats
//! Basic | $10 | 1
//! …
//! … +32 more (extract offset:20)
//! ```
//!
//! The first line says what was extracted (its line as the observation
//! writes it, with its ref when it has one; `text` for the main text,
//! nothing for all the links of the page) and which rows this page holds:
//! `N rows` when all of them, `rows a–b of N` when paged, `no rows`. Rows
//! follow, one per line, then, when rows remain, `… +N more (extract
//! offset:M)`: call again with `offset: M` for the next page.
//!
//! - [`ExtractKind::Table`]: the table at the scope (a ref's node), or the
//!   visible data table with the most rows. Rows are `a | b | c`, the
//!   header row (a `<thead>` row, or a first row of header cells) first on
//!   every page and not counted; each cell's visible text flattened (nested
//!   tables too), `|` in it escaped as `\|`; with `links`, each link's text
//!   is followed by ` (url)`.
//! - [`ExtractKind::List`]: repeated items under the scope, or the page's
//!   main content (the `main` landmark, else the page without navigation,
//!   banner, footer, asides, dialogs and menus): a list's items, or the
//!   longest run of alike siblings ([`crate::tree::signature`]) or of alike
//!   groups of siblings (cards whose wrappers have no line of their own),
//!   whichever has more items. Each item is one row of its lines' fields
//!   joined by ` · ` (`[24] link "Widget 1" $1.50 [25] button "Add to
//!   cart"`), refs kept so the model can act on a row; with `links`, link
//!   widgets are followed by ` (url)`.
//! - [`ExtractKind::Text`]: the page's main content as plain text, one
//!   block (paragraph, list item, cell; headings as `h2 Text`) per line,
//!   as [`crate::digest::main_content`] finds it; or, with a ref, that
//!   subtree as `observe` mode `read` writes it, where `links` follows link
//!   names with ` (url)` (the main content is plain text: `links` does not
//!   apply).
//! - [`ExtractKind::Links`]: every link of the scope or of the whole page
//!   (off-screen and folded ones too, never hidden ones), as `[n] link
//!   "name" (url)`.

use std::collections::HashSet;
use std::fmt::{self, Write};

use html5ever::local_name;

use crate::dom::{Document, NodeId};
use crate::find::visible_text;
use crate::fold::{self, FoldOptions, LineKind, Mode, tokens};
use crate::layout::Layout;
use crate::line::{self, RenderOptions};
use crate::safety::conceal::Concealment;
use crate::semantics::Semantics;
use crate::semantics::role::Role;
use crate::style::Styles;
use crate::text::one_line;
use crate::tree::{AxTree, ItemId, Prefix, Segment, Widget};

/// A page budget for callers without one, in o200k tokens.
pub const DEFAULT_PAGE_TOKENS: u32 = 2_000;
/// Budgets below this are raised to it.
pub const MIN_PAGE_TOKENS: u32 = 100;
/// A cell's text, in chars.
pub const MAX_CELL_CHARS: usize = 300;
/// A list row, in chars.
pub const MAX_ROW_CHARS: usize = 600;
/// The shortest run of alike siblings (or groups) that counts as a list.
pub const MIN_LIST_RUN: usize = 3;
/// The most items a repeated group (a card without an item of its own)
/// may have.
pub const MAX_GROUP: usize = 6;

/// What to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtractKind {
    /// A table's rows.
    Table,
    /// Repeated items as rows.
    List,
    /// The main text as paragraphs.
    Text,
    /// Every link with its URL.
    Links,
}

impl ExtractKind {
    /// `table`, `list`, `text` or `links`.
    pub fn parse(s: &str) -> Option<ExtractKind> {
        match s {
            "table" => Some(ExtractKind::Table),
            "list" => Some(ExtractKind::List),
            "text" => Some(ExtractKind::Text),
            "links" => Some(ExtractKind::Links),
            _ => None,
        }
    }

    /// The kind's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractKind::Table => "table",
            ExtractKind::List => "list",
            ExtractKind::Text => "text",
            ExtractKind::Links => "links",
        }
    }
}

/// One page of an extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The text (see the module documentation), newline-terminated.
    pub text: String,
    /// Rows (items, paragraphs, links) in all, the header row of a table
    /// not counted.
    pub items_total: usize,
    /// The offset of the next page, when rows remain.
    pub next_offset: Option<usize>,
}

/// Why nothing could be extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractError {
    /// `table` with a scope that is not a table.
    NotATable {
        /// The scope's role word (`link`, `list`, …).
        role: String,
    },
    /// `table` on a page without a visible data table.
    NoTable,
    /// `list` found no list and no run of alike items.
    NoList,
    /// The scope is hidden.
    ScopeHidden,
    /// `text` with a scope that has no ref to expand.
    ScopeWithoutRef,
    /// `offset` is at or past the last row.
    OffsetPastEnd {
        /// The offset asked for.
        offset: usize,
        /// Rows in all.
        total: usize,
    },
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::NotATable { role } => write!(f, "the ref is a {role}, not a table"),
            ExtractError::NoTable => f.write_str("no table on the page"),
            ExtractError::NoList => f.write_str("no list or repeated items found"),
            ExtractError::ScopeHidden => f.write_str("the ref is hidden"),
            ExtractError::ScopeWithoutRef => f.write_str("text needs a ref from the observation as its scope"),
            ExtractError::OffsetPastEnd { offset, total } => {
                write!(f, "offset {offset} is past the end ({total} rows)")
            }
        }
    }
}

impl std::error::Error for ExtractError {}

/// Extracts one page of rows (see the module documentation). `scope` is
/// the node of the ref the model gave, if any; `page_tokens` the page's
/// budget in o200k tokens (at least one row is always given).
#[allow(clippy::too_many_arguments)]
pub fn extract(
    doc: &Document,
    styles: &Styles,
    conceal: &Concealment,
    sem: &Semantics,
    tree: &AxTree,
    kind: ExtractKind,
    scope: Option<NodeId>,
    offset: usize,
    links: bool,
    page_tokens: u32,
) -> Result<Extracted, ExtractError> {
    if let Some(s) = scope
        && sem.is_hidden(styles, s)
    {
        return Err(ExtractError::ScopeHidden);
    }
    let cx = Cx { doc, styles, conceal, sem, tree, links, options: RenderOptions::default() };
    let rows = match kind {
        ExtractKind::Table => cx.table(scope)?,
        ExtractKind::List => cx.list(scope)?,
        ExtractKind::Text => cx.text(scope)?,
        ExtractKind::Links => cx.links(scope),
    };
    page(rows, offset, page_tokens)
}

/// What an extraction produced before paging.
struct Rows {
    /// What was extracted: its line.
    what: String,
    /// `row`, `item`, `paragraph`, `link`.
    unit: &'static str,
    /// Lines repeated at the top of every page (a table's header).
    header: Vec<String>,
    rows: Vec<String>,
}

fn page(rows: Rows, offset: usize, page_tokens: u32) -> Result<Extracted, ExtractError> {
    let total = rows.rows.len();
    if offset > 0 && offset >= total {
        return Err(ExtractError::OffsetPastEnd { offset, total });
    }
    let budget = page_tokens.max(MIN_PAGE_TOKENS);
    let more_line = |left: usize, next: usize| format!("… +{left} more (extract offset:{next})");
    let mut cost = tokens::line_cost(0, &rows.what) + 8;
    cost += rows.header.iter().map(|h| tokens::line_cost(0, h)).sum::<u32>();
    let mut end = offset;
    while end < total {
        let c = tokens::line_cost(0, &rows.rows[end]);
        let reserve = if end + 1 < total { tokens::line_cost(0, &more_line(total, total)) } else { 0 };
        if end > offset && cost + c + reserve > budget {
            break;
        }
        cost += c;
        end += 1;
    }
    let shown = end - offset;
    let unit = rows.unit;
    let mut text = rows.what.clone();
    if !text.is_empty() {
        text.push_str(" · ");
    }
    let _ = match total {
        0 => writeln!(text, "no {unit}s"),
        1 => writeln!(text, "1 {unit}"),
        _ if shown == total => writeln!(text, "{total} {unit}s"),
        _ => writeln!(text, "{unit}s {}–{end} of {total}", offset + 1),
    };
    for h in &rows.header {
        text.push_str(h);
        text.push('\n');
    }
    for r in &rows.rows[offset..end] {
        text.push_str(r);
        text.push('\n');
    }
    let next_offset = (end < total).then_some(end);
    if let Some(next) = next_offset {
        text.push_str(&more_line(total - end, next));
        text.push('\n');
    }
    Ok(Extracted { text, items_total: total, next_offset })
}

struct Cx<'a> {
    doc: &'a Document,
    styles: &'a Styles,
    conceal: &'a Concealment,
    sem: &'a Semantics,
    tree: &'a AxTree,
    links: bool,
    options: RenderOptions,
}

fn is_table_role(role: Role) -> bool {
    matches!(role, Role::Table | Role::Grid | Role::TreeGrid)
}

fn is_cell_role(role: Role) -> bool {
    matches!(role, Role::Cell | Role::GridCell | Role::ColumnHeader | Role::RowHeader)
}

impl Cx<'_> {
    fn is_table(&self, id: NodeId) -> bool {
        is_table_role(self.sem.role(id)) || self.doc.element(id).is_some_and(|e| e.is_html(&local_name!("table")))
    }

    fn is_row(&self, id: NodeId) -> bool {
        self.sem.role(id) == Role::Row || self.doc.element(id).is_some_and(|e| e.is_html(&local_name!("tr")))
    }

    fn is_cell(&self, id: NodeId) -> bool {
        is_cell_role(self.sem.role(id))
            || self.doc.element(id).is_some_and(|e| e.is_html(&local_name!("td")) || e.is_html(&local_name!("th")))
    }

    fn is_header_cell(&self, id: NodeId) -> bool {
        matches!(self.sem.role(id), Role::ColumnHeader)
            || self.doc.element(id).is_some_and(|e| e.is_html(&local_name!("th")))
    }

    /// Elements under `root` (not itself) that `want` accepts, not looking
    /// inside them, inside hidden subtrees or inside nested tables.
    fn collect(&self, root: NodeId, want: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut walk = self.doc.descendants(root);
        walk.next();
        while let Some(n) = walk.next() {
            if self.doc.element(n).is_none() {
                continue;
            }
            if self.sem.is_hidden(self.styles, n) {
                walk.skip_subtree(n);
            } else if want(n) {
                out.push(n);
                walk.skip_subtree(n);
            } else if self.is_table(n) {
                walk.skip_subtree(n);
            }
        }
        out
    }

    /// The line of a widget shown for `node`, or `fallback`.
    fn widget_line(&self, node: NodeId, fallback: &str) -> String {
        match self.tree.widgets.iter().find(|w| w.node == node) {
            Some(w) => {
                let mut out = String::new();
                line::write_widget(&mut out, w, &self.options);
                out
            }
            None => fallback.to_owned(),
        }
    }

    fn table(&self, scope: Option<NodeId>) -> Result<Rows, ExtractError> {
        let table = match scope {
            Some(s) if self.is_table(s) => s,
            Some(s) => {
                let role = self.sem.role(s);
                let word = if role.is_generic() {
                    self.doc.element(s).map(|e| e.local_name().to_string()).unwrap_or_else(|| "node".to_owned())
                } else {
                    line::role_word(role).to_owned()
                };
                return Err(ExtractError::NotATable { role: word });
            }
            None => {
                let mut best: Option<(usize, NodeId)> = None;
                for id in self.doc.descendants(NodeId::DOCUMENT) {
                    if is_table_role(self.sem.role(id)) && !self.sem.is_hidden(self.styles, id) {
                        let rows = self.collect(id, |n| self.is_row(n)).len();
                        if best.is_none_or(|(b, _)| rows > b) {
                            best = Some((rows, id));
                        }
                    }
                }
                best.ok_or(ExtractError::NoTable)?.1
            }
        };
        let mut header = Vec::new();
        let mut rows = Vec::new();
        for (i, row) in self.collect(table, |n| self.is_row(n)).into_iter().enumerate() {
            let cells = self.collect(row, |n| self.is_cell(n));
            let texts: Vec<String> = cells
                .iter()
                .map(|&c| {
                    visible_text(self.doc, self.styles, self.conceal, self.sem, c, self.links, MAX_CELL_CHARS).replace('|', "\\|")
                })
                .collect();
            if texts.iter().all(String::is_empty) {
                continue;
            }
            let line = texts.join(" | ");
            let in_head = self
                .doc
                .ancestors(row)
                .take_while(|&a| a != table)
                .any(|a| self.doc.element(a).is_some_and(|e| e.is_html(&local_name!("thead"))));
            let first_of_headers = i == 0 && cells.iter().all(|&c| self.is_header_cell(c));
            if (in_head || first_of_headers) && rows.is_empty() {
                header.push(line);
            } else {
                rows.push(line);
            }
        }
        Ok(Rows { what: self.widget_line(table, "table"), unit: "row", header, rows })
    }

    /// The items that stand for the scope: its own item's children when it
    /// has an item of its own (a list, a landmark), else the topmost items
    /// whose element lies inside it (generic wrappers have no item).
    fn scoped_roots(&self, scope: NodeId) -> (Option<ItemId>, Vec<ItemId>) {
        if let Some(own) = (0..self.tree.items.len()).find(|&i| self.tree.items[i].node == Some(scope))
            && !self.tree.items[own].children.is_empty()
        {
            return (Some(own), self.tree.items[own].children.clone());
        }
        let inside = |n: NodeId| n == scope || self.doc.ancestors(n).any(|a| a == scope);
        let mut out = Vec::new();
        let mut stack: Vec<ItemId> = self.tree.roots.iter().rev().copied().collect();
        while let Some(id) = stack.pop() {
            let item = &self.tree.items[id];
            let first_widget = || {
                item.head.iter().find_map(|s| match s {
                    Segment::Widget(w) => Some(self.tree.widgets[*w].node),
                    Segment::Text(_) => None,
                })
            };
            let node = item.node.or(item.at).or_else(first_widget);
            if node.is_some_and(inside) {
                out.push(id);
            } else {
                stack.extend(item.children.iter().rev().copied());
            }
        }
        (None, out)
    }

    /// The items of the page's main content: the `main` landmark's, else
    /// the top level (the caller leaves out the landmarks around it).
    fn main_roots(&self) -> (Option<ItemId>, Vec<ItemId>) {
        let main = (0..self.tree.items.len()).find(|&i| self.head_role(i) == Some(Role::Main));
        match main {
            Some(m) => (Some(m), self.tree.items[m].children.clone()),
            None => (None, self.tree.roots.clone()),
        }
    }

    /// The role of an item whose line is one container widget.
    fn head_role(&self, item: ItemId) -> Option<Role> {
        match self.tree.items[item].head.as_slice() {
            [Segment::Widget(w)] => Some(self.tree.widgets[*w].role),
            _ => None,
        }
    }

    fn list(&self, scope: Option<NodeId>) -> Result<Rows, ExtractError> {
        let (top, roots) = match scope {
            Some(s) => self.scoped_roots(s),
            None => self.main_roots(),
        };
        let around = |i: ItemId| self.head_role(i).is_some_and(Role::is_page_frame);
        // Candidates: (parent item, groups of items, one row each); the
        // best has the most rows, the first of equals (shorter groups are
        // tried first).
        let mut best: Option<(Option<ItemId>, Vec<&[ItemId]>)> = None;
        let mut lists: Vec<(Option<ItemId>, Vec<ItemId>)> =
            vec![(top, roots.into_iter().filter(|&r| scope.is_some() || !around(r)).collect())];
        let mut all: Vec<(Option<ItemId>, Vec<ItemId>)> = Vec::new();
        while let Some((parent, sibs)) = lists.pop() {
            for &c in sibs.iter().rev() {
                if !self.tree.items[c].children.is_empty() && (scope.is_some() || !around(c)) {
                    lists.push((Some(c), self.tree.items[c].children.clone()));
                }
            }
            all.push((parent, sibs));
        }
        for (parent, sibs) in &all {
            let is_list = parent.is_some_and(|p| matches!(self.head_role(p), Some(Role::List | Role::Feed)));
            let groups: Vec<&[ItemId]> =
                if is_list { sibs.chunks(1).collect() } else { self.repeated_groups(sibs) };
            if !groups.is_empty() && best.as_ref().is_none_or(|(_, b)| groups.len() > b.len()) {
                best = Some((*parent, groups));
            }
        }
        let (parent, groups) = best.ok_or(ExtractError::NoList)?;
        let what = match parent {
            Some(p) => crate::text::truncate_chars(
                &line::item_line(self.tree, &self.tree.items[p], &self.options, line::LineStyle::Full),
                120,
            ),
            None => "items".to_owned(),
        };
        let rows = groups
            .iter()
            .map(|g| {
                let fields: Vec<String> = g.iter().map(|&i| self.list_row(i)).filter(|r| !r.is_empty()).collect();
                crate::text::truncate_chars(&fields.join(" · "), MAX_ROW_CHARS)
            })
            .filter(|r| !r.is_empty())
            .collect();
        Ok(Rows { what, unit: "item", header: Vec::new(), rows })
    }

    /// The longest repetition among siblings: a run of at least
    /// [`MIN_LIST_RUN`] alike items (not prose), or of alike groups of up
    /// to [`MAX_GROUP`] items (cards whose wrappers add no item of their
    /// own: `h2 Lamp`, `$12`, `[3] link "View"`, `h2 Mug`, …), each group
    /// beginning at a heading when one is among its first items.
    fn repeated_groups<'s>(&self, sibs: &'s [ItemId]) -> Vec<&'s [ItemId]> {
        let items = &self.tree.items;
        let sigs: Vec<u64> = sibs.iter().map(|&c| crate::tree::signature::signature(self.doc, self.tree, &items[c])).collect();
        let text: Vec<bool> = sibs.iter().map(|&c| crate::tree::signature::is_text_block(self.tree, &items[c])).collect();
        let n = sibs.len();
        let mut best: Vec<&[ItemId]> = Vec::new();
        for p in 1..=MAX_GROUP.min(n / MIN_LIST_RUN) {
            let mut j = p;
            while j < n {
                if sigs[j] != sigs[j - p] || p == 1 && text[j] {
                    j += 1;
                    continue;
                }
                let start = j - p;
                while j < n && sigs[j] == sigs[j - p] && !(p == 1 && text[j]) {
                    j += 1;
                }
                // sibs[start..j] repeats with period p.
                let heading =
                    (0..p).find(|&o| matches!(items[sibs[start + o]].prefix, Prefix::Heading(_))).unwrap_or(0);
                let from = start + heading;
                let count = (j - from) / p;
                if count >= MIN_LIST_RUN && count > best.len() && !(from..from + p).all(|i| text[i]) {
                    best = sibs[from..from + count * p].chunks(p).collect();
                }
            }
        }
        best
    }

    /// An item and the lines below it as one row of fields.
    fn list_row(&self, item: ItemId) -> String {
        let mut fields: Vec<String> = Vec::new();
        let mut stack = vec![item];
        while let Some(id) = stack.pop() {
            let it = &self.tree.items[id];
            let field = match it.head.as_slice() {
                // A bare container adds its ref or name, not its role.
                [Segment::Widget(w)] if crate::tree::container_role(self.tree.widgets[*w].role) => {
                    let w = &self.tree.widgets[*w];
                    if w.ref_id.is_some() {
                        let mut s = String::new();
                        line::write_widget(&mut s, w, &self.options);
                        s
                    } else {
                        one_line(&w.name)
                    }
                }
                _ => self.full_line(it.head.as_slice(), it.prefix),
            };
            if !field.is_empty() {
                fields.push(field);
            }
            stack.extend(it.children.iter().rev().copied());
        }
        fields.join(" · ")
    }

    /// A line in full style without its `- ` or `hN ` prefix; links
    /// followed by their URL when asked.
    fn full_line(&self, head: &[Segment], prefix: Prefix) -> String {
        let mut out = String::new();
        if let Prefix::Live(role) = prefix {
            let _ = write!(out, "{}: ", role.as_str());
        }
        for seg in head {
            match seg {
                Segment::Text(t) => line::push_text(&mut out, t),
                Segment::Widget(w) => {
                    let w = &self.tree.widgets[*w];
                    line::write_widget(&mut out, w, &self.options);
                    if let Some(url) = self.link_url(w) {
                        let _ = write!(out, " ({url})");
                    }
                }
            }
        }
        out.trim().to_owned()
    }

    /// A link widget's URL, when `links` asks for URLs.
    fn link_url(&self, w: &Widget) -> Option<String> {
        if !self.links || w.role != Role::Link {
            return None;
        }
        self.url_of(w.node)
    }

    fn url_of(&self, node: NodeId) -> Option<String> {
        let href = self.doc.element(node)?.attr("href")?;
        Some(self.doc.resolve_url(href).map(|u| u.to_string()).unwrap_or_else(|| href.trim().to_owned()))
    }

    fn text(&self, scope: Option<NodeId>) -> Result<Rows, ExtractError> {
        if scope.is_none() {
            let content = crate::digest::main_content(self.doc, self.styles, self.conceal, self.sem);
            let rows = content
                .lines()
                .into_iter()
                .map(|(kind, text)| match kind {
                    crate::digest::BlockKind::Heading(level) => format!("h{level} {text}"),
                    _ => text,
                })
                .collect();
            return Ok(Rows { what: "text".to_owned(), unit: "paragraph", header: Vec::new(), rows });
        }
        let expand = match scope {
            Some(s) => {
                let r = self.tree.widgets.iter().find(|w| w.node == s).and_then(|w| w.ref_id);
                Some(r.ok_or(ExtractError::ScopeWithoutRef)?)
            }
            None => None,
        };
        let layout = Layout::unknown(self.styles.viewport());
        let options = FoldOptions { mode: Mode::Read, budget: None, expand, content: None };
        let folded = fold::fold(self.doc, self.tree, &layout, &options, &self.options);
        let rows = folded
            .lines
            .iter()
            // The scope's own name is the first line already.
            .filter(|l| !matches!(l.kind, LineKind::Caption(i) if scope.is_some() && self.tree.items[i].node == scope))
            .map(|l| match l.kind {
                LineKind::Item(i) if self.links => {
                    line::read_line(self.tree, &self.tree.items[i], &self.options, &|w| self.link_url(w))
                }
                _ => l.text.clone(),
            })
            .filter(|l| !l.is_empty())
            .collect();
        let what = match scope {
            Some(s) => self.widget_line(s, "text"),
            None => "text".to_owned(),
        };
        Ok(Rows { what, unit: "paragraph", header: Vec::new(), rows })
    }

    fn links(&self, scope: Option<NodeId>) -> Rows {
        let roots = match scope {
            Some(s) => self.scoped_roots(s).1,
            None => self.tree.roots.clone(),
        };
        let mut rows = Vec::new();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack: Vec<ItemId> = roots.into_iter().rev().collect();
        while let Some(id) = stack.pop() {
            let it = &self.tree.items[id];
            for seg in &it.head {
                if let Segment::Widget(w) = seg
                    && self.tree.widgets[*w].role == Role::Link
                    && seen.insert(*w)
                {
                    let w = &self.tree.widgets[*w];
                    let mut line = String::new();
                    line::write_widget(&mut line, w, &self.options);
                    if let Some(url) = self.url_of(w.node) {
                        let _ = write!(line, " ({url})");
                    }
                    rows.push(line);
                }
            }
            stack.extend(it.children.iter().rev().copied());
        }
        let what = match scope {
            Some(s) => self.widget_line(s, ""),
            None => String::new(),
        };
        Rows { what, unit: "link", header: Vec::new(), rows }
    }
}
