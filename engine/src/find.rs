//! The `find` tool (docs/mcp.md): search the whole page, also what lies
//! off-screen or what folding hid, never hidden content.
//!
//! Three forms of query:
//!
//! - `role:button pay`: lines showing a widget whose role is `button` and
//!   whose name or value holds every word (case-insensitive). The role is
//!   the word the observation writes ([`line::role_word`]: `header`,
//!   `nav`, `img`, …) or the ARIA role (`banner`, `navigation`, `image`);
//!   lines that are roles themselves match too: `heading` (or `h1`…`h6`),
//!   `listitem`, `row`, live regions (`alert`, `status`, …). No words: every
//!   line with that role.
//! - `pay now` (plain text): lines whose text, widget names or values hold
//!   the phrase; when none does, the lines holding all of its words.
//! - `css:.star-rating.Five`: elements matching a selector (the engine's
//!   [`Selector`], read-only, no script), the visible ones listed, the
//!   hidden ones only counted.
//!
//! Searching uses the semantic tree before folding ([`AxTree`]), which
//! holds no hidden content.
//!
//! The result text, newline-terminated:
//!
//! ```text
//! 3 matches for role:button "pay"
//! @ [8] form "Checkout"
//! [17] button "Pay now"
//! [18] button "Pay later"
//! @ h2 Gift cards
//! [30] button "Pay with a gift card"
//! ```
//!
//! - the summary: `N matches for QUERY` (`1 match`, `no match`); a match
//!   is an observation line, so two buttons on one line are one match;
//! - each match: its line as the observation writes it (refs included, so
//!   the model can act on it at once, and the rest of the line, such as the
//!   product a button belongs to), cut to [`MAX_LINE_CHARS`] around the
//!   match with `…`;
//! - `@ line`: where the following matches are, printed when it changes:
//!   the nearest enclosing container (landmark, form, list, table, dialog,
//!   …), or, when that container has no ref, the last heading before the
//!   match inside it; nothing at the top level before any heading;
//! - `… +N more (limit L)` when more matched than `limit`.
//!
//! When nothing matches, the summary says what is close: for a role query
//! with words, the lines holding the words under other roles
//! (`no match for role:button "pay"; 2 lines with "pay" under other
//! roles:`, listed); for an unknown role, the roles the page has
//! (`no match for role:buton; roles here: link 40, button 12, …`); for a
//! phrase, the lines with all its words.
//!
//! `css:` lines are elements:
//!
//! ```text
//! 2 matches for css:p.star-rating (+1 hidden, not listed)
//! p.star-rating.Five · inside: [24]
//! [31] a#more.btn href="/catalogue/page-2.html" · "next"
//! ```
//!
//! `[ref] tag#id.class.class attr="value" … · "visible text" · inside:
//! [r] [r]`: its ref if it has one (else up to 3 refs inside it), the
//! attributes `role`, `type`, `name`, `href`, `aria-label`, `alt`, `title`,
//! `placeholder`, `value` (never for sensitive fields) and up to 3 `data-*`,
//! each cut to [`MAX_ATTR_CHARS`], and its visible text cut to
//! [`MAX_TEXT_CHARS`].

use std::collections::HashMap;
use std::fmt::{self, Write};

use html5ever::local_name;

use crate::dom::{Document, Edge, NodeData, NodeId};
use crate::line::{self, RenderOptions};
use crate::safety::conceal::Concealment;
use crate::semantics::Semantics;
use crate::semantics::role::Role;
use crate::style::{Selector, SelectorError, Styles};
use crate::text::one_line;
use crate::tree::{AxTree, ItemId, Prefix, Segment};

/// Match lines longer than this (chars) are cut around the match.
pub const MAX_LINE_CHARS: usize = 200;
/// Visible text of a `css:` match, in chars.
pub const MAX_TEXT_CHARS: usize = 80;
/// Attribute values of a `css:` match, in chars.
pub const MAX_ATTR_CHARS: usize = 80;
/// A sensible `limit` when the caller gives none.
pub const DEFAULT_LIMIT: usize = 20;

/// What [`find`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The result text (see the module documentation), newline-terminated.
    pub text: String,
    /// Matches in all (visible ones, for `css:`).
    pub matches: usize,
    /// Matches listed (at most the limit).
    pub listed: usize,
    /// `css:` only: matching elements that are hidden (counted, never
    /// listed).
    pub hidden: usize,
}

/// A query [`find`] cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindError {
    /// Nothing to search for.
    Empty,
    /// `role:` without a role.
    NoRole,
    /// `css:` with a selector that does not parse.
    Selector(SelectorError),
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FindError::Empty => f.write_str("empty query: give words, role:ROLE words, or css:SELECTOR"),
            FindError::NoRole => f.write_str("role: needs a role, as in role:button pay"),
            FindError::Selector(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FindError {}

/// Searches the page (see the module documentation for queries and the
/// result's form). `limit` caps the matches listed; all are counted.
pub fn find(
    doc: &Document,
    styles: &Styles,
    conceal: &Concealment,
    sem: &Semantics,
    tree: &AxTree,
    query: &str,
    limit: usize,
) -> Result<Found, FindError> {
    let query = query.trim();
    if query.is_empty() {
        return Err(FindError::Empty);
    }
    let options = RenderOptions::default();
    if let Some(sel) = query.strip_prefix("css:") {
        return find_css(doc, styles, conceal, sem, tree, sel.trim(), limit);
    }
    if let Some(rest) = query.strip_prefix("role:") {
        let mut parts = rest.split_whitespace();
        let role = parts.next().ok_or(FindError::NoRole)?.to_lowercase();
        let words: Vec<String> = parts.map(str::to_lowercase).collect();
        let shown = if words.is_empty() {
            format!("role:{role}")
        } else {
            let mut s = format!("role:{role} ");
            line::quote(&mut s, &words.join(" "), options.max_name_chars);
            s
        };
        let hits = search(tree, |it| role_match(sem, tree, it, &role, &words));
        if !hits.is_empty() || words.is_empty() && role_known(sem, tree, &role) {
            return Ok(listing(tree, &hits, summary(hits.len(), &shown), limit, &options, None));
        }
        if words.is_empty() || !role_known(sem, tree, &role) {
            let mut head = summary(0, &shown);
            let counts = role_counts(sem, tree);
            if !counts.is_empty() {
                let parts: Vec<String> = counts.iter().take(12).map(|(r, n)| format!("{r} {n}")).collect();
                let _ = write!(head, "; roles here: {}", parts.join(", "));
            }
            return Ok(listing(tree, &[], head, limit, &options, None));
        }
        // No line of that role has the words: which lines do?
        let others = search(tree, |it| words_match(tree, it, &words));
        let mut head = summary(0, &shown);
        if !others.is_empty() {
            let n = others.len();
            let lines = plural(n, "line", "lines");
            let _ = write!(head, "; {n} {lines} with {} under other roles:", quoted(&words.join(" ")));
        }
        let mut found = listing(tree, &others, head, limit, &options, Some(&words[0]));
        found.matches = 0;
        return Ok(found);
    }
    let phrase = normalize(query);
    let words: Vec<String> = phrase.split(' ').map(str::to_owned).collect();
    let shown = quoted(query);
    let hits = search(tree, |it| phrase_match(tree, it, &phrase));
    if !hits.is_empty() || words.len() < 2 {
        return Ok(listing(tree, &hits, summary(hits.len(), &shown), limit, &options, Some(&phrase)));
    }
    let near = search(tree, |it| words_match(tree, it, &words));
    let mut head = summary(0, &shown);
    if !near.is_empty() {
        let n = near.len();
        let _ = write!(head, "; {n} {} with all its words:", plural(n, "line", "lines"));
    }
    let mut found = listing(tree, &near, head, limit, &options, Some(&words[0]));
    found.matches = 0;
    Ok(found)
}

/// `N matches for QUERY`.
fn summary(n: usize, shown: &str) -> String {
    match n {
        0 => format!("no match for {shown}"),
        1 => format!("1 match for {shown}"),
        n => format!("{n} matches for {shown}"),
    }
}

/// A matching line: its item, the widget that matched (if one did), and
/// where it is.
#[derive(Debug, Clone, Copy)]
struct Hit {
    item: ItemId,
    focus: Option<usize>,
    context: Context,
}

/// Where a line is: its nearest enclosing container item (and whether it
/// shows a ref), and the last heading seen inside that container (or at the
/// top level) before it.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    container: Option<ItemId>,
    container_ref: bool,
    heading: Option<ItemId>,
}

impl Context {
    /// The line printed after `@` for a match at `item`.
    fn line(&self, tree: &AxTree, item: ItemId) -> Option<ItemId> {
        let heading = self.heading.filter(|_| !matches!(tree.items[item].prefix, Prefix::Heading(_)));
        match (self.container, heading) {
            (Some(c), Some(h)) => Some(if self.container_ref { c } else { h }),
            (c, h) => c.or(h),
        }
    }
}

/// Walks every item in reading order with its context; `matches` says
/// whether an item matches, and which widget of it if one.
fn search(tree: &AxTree, mut matches: impl FnMut(ItemId) -> Option<Option<usize>>) -> Vec<Hit> {
    struct Frame {
        depth: usize,
        container: bool,
        has_ref: bool,
        item: ItemId,
        heading: Option<ItemId>,
    }
    let mut hits = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut top_heading = None;
    let mut stack: Vec<(ItemId, usize)> = tree.roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((id, depth)) = stack.pop() {
        while frames.last().is_some_and(|f| f.depth >= depth) {
            frames.pop();
        }
        let inner = frames.iter().rposition(|f| f.container);
        let context = match inner {
            Some(i) => Context {
                container: Some(frames[i].item),
                container_ref: frames[i].has_ref,
                heading: frames[i].heading,
            },
            None => Context { container: None, container_ref: false, heading: top_heading },
        };
        if let Some(focus) = matches(id) {
            hits.push(Hit { item: id, focus, context });
        }
        let item = &tree.items[id];
        if matches!(item.prefix, Prefix::Heading(_)) {
            match inner {
                Some(i) => frames[i].heading = Some(id),
                None => top_heading = Some(id),
            }
        }
        let (container, has_ref) = match item.head.as_slice() {
            [Segment::Widget(w)] => {
                let w = &tree.widgets[*w];
                (crate::tree::container_role(w.role), w.ref_id.is_some())
            }
            _ => (false, false),
        };
        frames.push(Frame { depth, container, has_ref, item: id, heading: None });
        for &c in item.children.iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    hits
}

/// Lowercase, whitespace collapsed.
fn normalize(s: &str) -> String {
    one_line(s).to_lowercase()
}

fn quoted(s: &str) -> String {
    let mut out = String::new();
    line::quote(&mut out, &one_line(s), RenderOptions::default().max_name_chars);
    out
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The words a widget matches on: its name and value.
fn widget_text(tree: &AxTree, w: usize) -> String {
    let w = &tree.widgets[w];
    if w.value.is_empty() { normalize(&w.name) } else { normalize(&format!("{} {}", w.name, w.value)) }
}

/// An item's plain text: its text, and its widgets' names and values.
fn plain_text(tree: &AxTree, item: ItemId) -> String {
    let mut out = String::new();
    for seg in &tree.items[item].head {
        match seg {
            Segment::Text(t) => out.push_str(t),
            Segment::Widget(w) => {
                let w = &tree.widgets[*w];
                out.push(' ');
                out.push_str(&w.name);
                if !w.value.is_empty() {
                    out.push(' ');
                    out.push_str(&w.value);
                }
                out.push(' ');
            }
        }
    }
    normalize(&out)
}

/// Whether a role word names `role`: the observation's word or the ARIA
/// role.
fn names_role(word: &str, role: Role) -> bool {
    word == line::role_word(role) || word == role.as_str()
}

/// The role words of an item that is a role itself (not a widget).
fn item_roles(sem: &Semantics, tree: &AxTree, item: ItemId) -> Vec<String> {
    let it = &tree.items[item];
    match it.prefix {
        Prefix::Heading(l) => vec!["heading".to_owned(), format!("h{l}")],
        Prefix::ListItem => vec!["listitem".to_owned()],
        Prefix::Live(r) => vec![r.as_str().to_owned()],
        Prefix::None => match it.node.map(|n| sem.role(n)) {
            Some(Role::Row) => vec!["row".to_owned()],
            _ => Vec::new(),
        },
    }
}

fn role_match(sem: &Semantics, tree: &AxTree, item: ItemId, role: &str, words: &[String]) -> Option<Option<usize>> {
    for seg in &tree.items[item].head {
        if let Segment::Widget(w) = seg
            && names_role(role, tree.widgets[*w].role)
        {
            let text = widget_text(tree, *w);
            if words.iter().all(|q| text.contains(q.as_str())) {
                return Some(Some(*w));
            }
        }
    }
    if item_roles(sem, tree, item).iter().any(|r| r == role) {
        let text = plain_text(tree, item);
        if words.iter().all(|q| text.contains(q.as_str())) {
            return Some(None);
        }
    }
    None
}

/// Whether any line has the role.
fn role_known(sem: &Semantics, tree: &AxTree, role: &str) -> bool {
    tree.widgets.iter().any(|w| names_role(role, w.role))
        || (0..tree.items.len()).any(|i| item_roles(sem, tree, i).iter().any(|r| r == role))
}

/// Role words and how many lines show each, most first.
fn role_counts(sem: &Semantics, tree: &AxTree) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for w in &tree.widgets {
        *counts.entry(line::role_word(w.role).to_owned()).or_default() += 1;
    }
    for i in 0..tree.items.len() {
        if let Some(r) = item_roles(sem, tree, i).into_iter().next() {
            *counts.entry(r).or_default() += 1;
        }
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

fn phrase_match(tree: &AxTree, item: ItemId, phrase: &str) -> Option<Option<usize>> {
    if !plain_text(tree, item).contains(phrase) {
        return None;
    }
    let focus = tree.items[item].head.iter().find_map(|s| match s {
        Segment::Widget(w) if widget_text(tree, *w).contains(phrase) => Some(*w),
        _ => None,
    });
    Some(focus)
}

fn words_match(tree: &AxTree, item: ItemId, words: &[String]) -> Option<Option<usize>> {
    let text = plain_text(tree, item);
    words.iter().all(|q| text.contains(q.as_str())).then_some(None)
}

/// The summary line `head`, then the match lines.
fn listing(
    tree: &AxTree,
    hits: &[Hit],
    head: String,
    limit: usize,
    options: &RenderOptions,
    phrase: Option<&str>,
) -> Found {
    let mut text = head;
    text.push('\n');
    let mut last: Option<ItemId> = None;
    for hit in hits.iter().take(limit) {
        let ctx = hit.context.line(tree, hit.item);
        if ctx != last {
            if let Some(c) = ctx {
                let line = line::item_line(tree, &tree.items[c], options, line::LineStyle::Full);
                let _ = writeln!(text, "@ {line}");
            }
            last = ctx;
        }
        let _ = writeln!(text, "{}", hit_line(tree, hit, options, phrase));
    }
    if hits.len() > limit {
        let _ = writeln!(text, "… +{} more (limit {limit})", hits.len() - limit);
    }
    Found { text, matches: hits.len(), listed: hits.len().min(limit), hidden: 0 }
}

/// A match's line as the observation writes it, cut around the match.
fn hit_line(tree: &AxTree, hit: &Hit, options: &RenderOptions, phrase: Option<&str>) -> String {
    let item = &tree.items[hit.item];
    let mut out = String::new();
    line::write_prefix(&mut out, item);
    let mut at = None;
    for seg in &item.head {
        match seg {
            Segment::Text(t) => line::push_text(&mut out, t),
            Segment::Widget(w) => {
                if hit.focus == Some(*w) {
                    at = Some(out.len());
                }
                line::write_widget(&mut out, &tree.widgets[*w], options);
            }
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    let at = at.or_else(|| phrase.and_then(|p| find_ci(&out, p))).unwrap_or(0);
    cut_around(&out, at, MAX_LINE_CHARS)
}

/// The byte offset of `needle` (lowercase) in `hay`, ignoring case.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    hay.char_indices().map(|(i, _)| i).find(|&i| {
        let mut h = hay[i..].chars().flat_map(char::to_lowercase);
        needle.chars().all(|c| h.next() == Some(c))
    })
}

/// At most `max` chars of `s` around byte `at`, with `…` where cut.
pub(crate) fn cut_around(s: &str, at: usize, max: usize) -> String {
    let len = s.chars().count();
    if len <= max {
        return s.to_owned();
    }
    let before = s[..at.min(s.len())].chars().count();
    let start = before.saturating_sub(max / 4).min(len - max);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(s.chars().skip(start).take(max));
    if start + max < len {
        out.push('…');
    }
    out
}

/// `css:`: visible matches listed as elements, hidden ones counted.
fn find_css(
    doc: &Document,
    styles: &Styles,
    conceal: &Concealment,
    sem: &Semantics,
    tree: &AxTree,
    sel: &str,
    limit: usize,
) -> Result<Found, FindError> {
    let selector = Selector::parse(sel).map_err(FindError::Selector)?;
    let matched = selector.select(doc);
    let (visible, hidden): (Vec<NodeId>, Vec<NodeId>) = matched.into_iter().partition(|&id| !sem.is_hidden(styles, id));
    let refs: HashMap<NodeId, u32> = tree.widgets.iter().filter_map(|w| w.ref_id.map(|r| (w.node, r))).collect();
    let mut text = String::new();
    let _ = match visible.len() {
        0 => write!(text, "no match for css:{sel}"),
        1 => write!(text, "1 match for css:{sel}"),
        n => write!(text, "{n} matches for css:{sel}"),
    };
    if !hidden.is_empty() {
        let _ = write!(text, " (+{} hidden, not listed)", hidden.len());
    }
    text.push('\n');
    for &id in visible.iter().take(limit) {
        text.push_str(&element_line(doc, styles, conceal, sem, &refs, id));
        text.push('\n');
    }
    if visible.len() > limit {
        let _ = writeln!(text, "… +{} more (limit {limit})", visible.len() - limit);
    }
    Ok(Found { text, matches: visible.len(), listed: visible.len().min(limit), hidden: hidden.len() })
}

/// Attributes listed for a `css:` match, in this order (then `data-*`).
const LISTED_ATTRS: [&str; 9] = ["role", "type", "name", "href", "aria-label", "alt", "title", "placeholder", "value"];
/// `data-*` attributes listed at most.
const DATA_ATTRS: usize = 3;
/// Classes listed at most.
const CLASSES: usize = 8;
/// Refs inside an element without its own, listed at most.
const INSIDE_REFS: usize = 3;

/// `[ref] tag#id.class attr="value" · "text" · inside: [r]`.
fn element_line(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics, refs: &HashMap<NodeId, u32>, id: NodeId) -> String {
    let mut out = String::new();
    let Some(e) = doc.element(id) else { return out };
    if let Some(r) = refs.get(&id) {
        let _ = write!(out, "[{r}] ");
    }
    out.push_str(e.local_name());
    if let Some(i) = e.id().filter(|i| !i.is_empty()) {
        out.push('#');
        out.push_str(&crate::text::truncate_chars(&one_line(i), 40));
    }
    let classes: Vec<&str> = e.classes().collect();
    for c in classes.iter().take(CLASSES) {
        out.push('.');
        out.push_str(&crate::text::truncate_chars(c, 40));
    }
    if classes.len() > CLASSES {
        let _ = write!(out, ".…+{}", classes.len() - CLASSES);
    }
    let field = e.is_html(&local_name!("input")) || e.is_html(&local_name!("textarea"));
    for name in LISTED_ATTRS {
        let Some(v) = e.attr(name) else { continue };
        if name == "value"
            && field
            && (e.attr("type") == Some("password") || sem.ax_node(doc, styles, id).sensitive.is_some())
        {
            continue;
        }
        let _ = write!(out, " {name}=");
        line::quote(&mut out, &one_line(v), MAX_ATTR_CHARS);
    }
    for a in e.attrs.iter().filter(|a| a.name.local.starts_with("data-")).take(DATA_ATTRS) {
        let _ = write!(out, " {}=", &*a.name.local);
        line::quote(&mut out, &one_line(&a.value), MAX_ATTR_CHARS);
    }
    let text = if field { String::new() } else { visible_text(doc, styles, conceal, sem, id, false, MAX_TEXT_CHARS) };
    if !text.is_empty() {
        out.push_str(" · ");
        line::quote(&mut out, &text, MAX_TEXT_CHARS);
    }
    if !refs.contains_key(&id) {
        let mut inside = Vec::new();
        let mut more = 0;
        for d in doc.descendants(id).skip(1) {
            if let Some(r) = refs.get(&d) {
                if inside.len() < INSIDE_REFS {
                    inside.push(format!("[{r}]"));
                } else {
                    more += 1;
                }
            }
        }
        if !inside.is_empty() {
            let _ = write!(out, " · inside: {}", inside.join(" "));
            if more > 0 {
                let _ = write!(out, " +{more}");
            }
        }
    }
    out
}

/// The visible text of a subtree, whitespace collapsed, cut to `max`
/// chars (`usize::MAX`: all of it); with `links`, each link's text is
/// followed by its URL in parentheses. Hidden subtrees and text are left
/// out, and so are `aria-hidden` and `inert` ones (the observation has
/// none of them either); block boundaries become spaces.
pub fn visible_text(
    doc: &Document,
    styles: &Styles,
    conceal: &Concealment,
    sem: &Semantics,
    id: NodeId,
    links: bool,
    max: usize,
) -> String {
    let mut out = String::new();
    // Stop collecting well past what will be kept (whitespace collapses).
    let cap = max.saturating_mul(4).saturating_add(64);
    let mut walk = doc.traverse(id);
    while let Some(edge) = walk.next() {
        match edge {
            Edge::Open(n) => {
                if styles.is_display_none(n) || sem.is_ax_hidden(n) {
                    walk.skip_children(n);
                    continue;
                }
                match &doc.node(n).data {
                    NodeData::Text(t) if styles.hidden(n).is_none() && !conceal.text_concealed(n) => {
                        crate::text::push_collapsed(&mut out, t)
                    }
                    NodeData::Element(e) => {
                        let block = !styles.get(n).display.is_inline_level();
                        if n != id && block && !out.ends_with(' ') && !out.is_empty() {
                            out.push(' ');
                        }
                        if e.is_html(&local_name!("br")) && !out.ends_with(' ') {
                            out.push(' ');
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(n) => {
                if links
                    && let Some(e) = doc.element(n)
                    && e.is_html(&local_name!("a"))
                    && let Some(href) = e.attr("href")
                    && !styles.is_display_none(n)
                    && !sem.is_ax_hidden(n)
                {
                    let url = doc.resolve_url(href).map(|u| u.to_string()).unwrap_or_else(|| href.trim().to_owned());
                    let _ = write!(out, " ({url})");
                } else if let Some(e) = doc.element(n)
                    && n != id
                    && !e.is_html(&local_name!("a"))
                    && !styles.get(n).display.is_inline_level()
                    && !out.ends_with(' ')
                {
                    out.push(' ');
                }
            }
        }
        if out.len() > cap {
            break;
        }
    }
    crate::text::truncate_chars(&one_line(&out), max)
}

#[cfg(test)]
mod tests {
    use super::find;
    use crate::{RefTable, SnapshotOptions, snapshot};

    #[test]
    fn inert_elements_are_never_found() {
        let html = r#"<div inert><h2>Payment</h2><button class=pay>Pay now</button></div>
            <button class=pay>Pay later</button>"#;
        let s = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new());
        let run = |q: &str| match find(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, q, 20) {
            Ok(f) => f,
            Err(e) => panic!("{q}: {e}"),
        };
        assert_eq!(run("role:button").text, "1 match for role:button\n[1] button \"Pay later\"\n");
        assert_eq!(run("pay now").matches, 0);
        assert_eq!(run("payment").matches, 0);
        // `css:` counts the inert match with the hidden ones.
        let css = run("css:.pay");
        assert_eq!((css.matches, css.hidden), (1, 1), "{}", css.text);
        assert!(css.text.starts_with("1 match for css:.pay (+1 hidden, not listed)\n"), "{}", css.text);
    }

    #[test]
    fn visible_text_leaves_inert_text_out_like_the_observation() {
        let html = "<p id=p>Total <span inert>(editing)</span> $4</p>";
        let s = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new());
        let p = s.document.element_by_id("p").unwrap_or(crate::dom::NodeId::DOCUMENT);
        assert_eq!(super::visible_text(&s.document, &s.styles, &s.concealment, &s.semantics, p, false, usize::MAX), "Total $4");
    }
}
