//! Main-content extraction: which text of a page is its article, post or
//! document, and which is the frame around it (menus, teasers, share bars,
//! footers, comments).
//!
//! One walk over the document cuts the visible text into *blocks* — the
//! runs of text between block-level boxes (paragraphs, list items, cells,
//! headings, `<br>`-separated lines) — and adds each block's characters to
//! its container and, when the walk leaves an element, to the element's
//! parent. A block is *prose* when it is long enough to be a sentence or
//! more and mostly not link text; every other block is *chrome* (and so is
//! the prose of page furniture and of teaser cards). The main content is
//! the element with the most prose less a fifth of its chrome: it grows to
//! take in more of the article's paragraphs and stops where menus and link
//! lists would come with them. Its blocks are then kept in order, less the
//! ones that are mostly links, the ones inside furniture, and lines that
//! are furniture wherever they stand (see `main_content_titled`).
//!
//! Never read: what is hidden (CSS, `aria-hidden`, `inert`), scripts, styles,
//! templates, form controls, frames, media; figure captions count when
//! choosing the container but are not kept.
//! The walk is iterative; the sums over subtrees are backward passes over
//! the pre-order: linear in the page.

use html5ever::local_name;

use crate::dom::{Document, Edge, Element, NodeData, NodeId};
use crate::fold::FoldOptions;
use crate::safety::conceal::Concealment;
use crate::semantics::Semantics;
use crate::semantics::role::Role;
use crate::style::Styles;
use crate::style::values::Display;
use crate::text::{push_collapsed, without_controls};

/// A block shorter than this (in chars) is never prose.
const PROSE_CHARS: usize = 30;
/// A block whose link text is more than this share of it is never prose.
const PROSE_LINK_DENSITY: f64 = 0.25;
/// A block of the main content whose link text is more than this share
/// is left out (a list of related links inside the article).
const KEEP_LINK_DENSITY: f64 = 0.5;
/// How much a character of chrome counts against a container.
const CHROME_WEIGHT: f64 = 0.2;
/// A part named like furniture that holds more than this share of the
/// page's prose is a wrapper, not furniture.
const WRAPPER_SHARE: f64 = 0.5;
/// A block whose link text is at least this share of it is a link line.
const LINK_LINE_DENSITY: f64 = 0.8;
/// How many levels above a paragraph a teaser card may start.
const TEASER_DEPTH: usize = 6;

/// What a block of the main content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// `h1`–`h6`, with its level.
    Heading(u8),
    /// A paragraph or a run of text.
    Paragraph,
    /// A list item.
    Item,
    /// A table cell's text.
    Cell,
    /// Preformatted text.
    Pre,
    /// A quotation.
    Quote,
}

/// One block of text of the main content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The block-level element that holds the text.
    pub node: NodeId,
    /// What it is.
    pub kind: BlockKind,
    /// Its text, whitespace collapsed.
    pub text: String,
    /// For a cell: its row (the cell's parent element).
    pub row: Option<NodeId>,
}

/// A page's main content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MainContent {
    /// The element chosen as the content's container (`None` for a page
    /// with no text).
    pub root: Option<NodeId>,
    /// Its blocks, in reading order.
    pub blocks: Vec<Block>,
}

impl MainContent {
    /// The content as lines: one per block, a table row's cells joined
    /// with ` | `; each with its first block's kind ([`BlockKind::Cell`]
    /// for a row).
    pub fn lines(&self) -> Vec<(BlockKind, String)> {
        let mut out: Vec<(BlockKind, String)> = Vec::new();
        let mut row: Option<NodeId> = None;
        for b in &self.blocks {
            match (b.kind, b.row, out.last_mut()) {
                (BlockKind::Cell, Some(r), Some((_, line))) if row == Some(r) => {
                    line.push_str(" | ");
                    line.push_str(&b.text);
                }
                _ => out.push((b.kind, b.text.clone())),
            }
            row = if b.kind == BlockKind::Cell { b.row } else { None };
        }
        out
    }

    /// The content as plain text: [`MainContent::lines`], one per line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (_, line) in self.lines() {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// A block of the whole page, before the choice.
struct Seg {
    container: NodeId,
    /// The container's position in the walk (pre-order), for "is under".
    order: u32,
    kind: BlockKind,
    text: String,
    chars: usize,
    link_chars: usize,
    /// Inside a part named like page furniture.
    furniture: bool,
    /// The summary of a teaser card.
    teaser: bool,
    /// A figure's caption (`figcaption`).
    caption: bool,
}

impl Seg {
    fn link_density(&self) -> f64 {
        if self.chars == 0 { 0.0 } else { self.link_chars as f64 / self.chars as f64 }
    }

    fn is_prose(&self) -> bool {
        !self.furniture && !self.teaser && self.chars >= PROSE_CHARS && self.link_density() <= PROSE_LINK_DENSITY
    }
}

/// Finds the page's main content (see the module documentation).
pub fn main_content(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> MainContent {
    main_content_titled(doc, styles, conceal, sem, &super::meta::page_meta(doc).title)
}

/// `options` with the page's main content as [`FoldOptions::content`],
/// when they read it ([`FoldOptions::wants_content`]).
pub fn with_main_content(options: FoldOptions, doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> FoldOptions {
    if !options.wants_content() {
        return options;
    }
    FoldOptions { content: main_content(doc, styles, conceal, sem).root, ..options }
}

/// [`main_content`] for a page whose title (`og:title`, else `<title>`) is
/// known already.
pub(crate) fn main_content_titled(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics, title: &str) -> MainContent {
    let Some(html) = doc.root_element() else { return MainContent::default() };
    let mut walk = walk(doc, styles, conceal, sem, html);
    mark_furniture(doc, &mut walk);
    mark_teasers(doc, &mut walk);
    let sums = Sums::of(doc, &walk);
    let Some(root) = sums.choose(&walk) else { return MainContent::default() };
    let (start, end) = (walk.order[root.index()], walk.end[root.index()]);
    let blocks = walk
        .segs
        .into_iter()
        .filter(|s| s.order >= start && s.order <= end)
        .filter(|s| !s.furniture && s.link_density() <= KEEP_LINK_DENSITY)
        .filter(|s| !matches!(s.kind, BlockKind::Heading(_)) || !repeats_title(title, &s.text))
        .filter(|s| s.is_prose() || !is_furniture_line(&s.text))
        // A caption describes a picture a reader of the text does not see;
        // articles' text (the benchmark's truth) leaves it out. It still
        // counts as the container's text when choosing.
        .filter(|s| !s.caption)
        .map(|s| s.into_block(doc))
        .collect();
    MainContent { root: Some(root), blocks }
}

/// All the text of the page's main region, one block per line: inside
/// its `main` landmark when it has one, else everything outside the
/// landmarks around content (navigation, banner, footer, asides). Lists of
/// links, captions and short lines stay: what a reader of a listing page
/// (products, search results) wants, where [`main_content`] keeps an
/// article's prose.
pub fn main_region(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> MainContent {
    let all = page_text(doc, styles, conceal, sem);
    let Some(html) = all.root else { return all };
    // One pass in tree order (parents first): whether each node is in a
    // `main` landmark, and whether it is in a frame landmark.
    let mut in_main = vec![false; doc.len()];
    let mut in_frame = vec![false; doc.len()];
    let mut has_main = false;
    for n in doc.descendants(html) {
        let (m, f) = doc.parent(n).map_or((false, false), |p| (in_main[p.index()], in_frame[p.index()]));
        let role = sem.role(n);
        let main_here = role == Role::Main && !styles.is_display_none(n);
        has_main |= main_here;
        in_main[n.index()] = m || main_here;
        in_frame[n.index()] = f || role.is_page_frame();
    }
    let keep = |b: &Block| if has_main { in_main[b.node.index()] } else { !in_frame[b.node.index()] };
    MainContent { root: all.root, blocks: all.blocks.into_iter().filter(keep).collect() }
}

/// All the page's visible text as blocks, in reading order: what
/// [`main_content`] chooses from, nothing left out (navigation, footers,
/// captions too). `root` is the root element.
pub fn page_text(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> MainContent {
    let Some(html) = doc.root_element() else { return MainContent::default() };
    let blocks = walk(doc, styles, conceal, sem, html)
        .segs
        .into_iter()
        .map(|s| s.into_block(doc))
        .collect();
    MainContent { root: Some(html), blocks }
}

impl Seg {
    /// The block a reader gets: its container, kind, text, and a cell's row.
    fn into_block(self, doc: &Document) -> Block {
        let row = if self.kind == BlockKind::Cell { doc.parent_element(self.container) } else { None };
        Block { row, node: self.container, kind: self.kind, text: self.text }
    }
}

/// The walk's results: the page's blocks and where each element sits.
struct Walk {
    segs: Vec<Seg>,
    /// Pre-order position of each element walked (0: not walked).
    order: Vec<u32>,
    /// The last pre-order position inside each element.
    end: Vec<u32>,
    /// The elements walked, in pre-order.
    elements: Vec<NodeId>,
    /// Elements named like page furniture, in pre-order.
    named: Vec<NodeId>,
}

fn walk(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics, html: NodeId) -> Walk {
    let n = doc.len();
    let mut w = Walk { segs: Vec::new(), order: vec![0; n], end: vec![0; n], elements: Vec::new(), named: Vec::new() };
    let mut cx = Segmenter::default();
    let mut blocks: Vec<NodeId> = vec![html];
    let mut links = 0u32;
    let mut counter = 0u32;
    let mut traverse = doc.traverse(html);
    while let Some(edge) = traverse.next() {
        match edge {
            Edge::Open(id) => match &doc.node(id).data {
                NodeData::Element(el) => {
                    if skipped(styles, sem, id, el) {
                        traverse.skip_children(id);
                        if is_block(styles, id) {
                            cx.flush(doc, &mut w, &blocks);
                        }
                        continue;
                    }
                    counter += 1;
                    w.order[id.index()] = counter;
                    w.elements.push(id);
                    if el.is_html(&local_name!("br")) {
                        cx.flush(doc, &mut w, &blocks);
                    } else if is_block(styles, id) {
                        cx.flush(doc, &mut w, &blocks);
                        blocks.push(id);
                    }
                    if el.is_html(&local_name!("a")) && el.has_attr("href") {
                        links += 1;
                    }
                    if id != html && is_furniture(sem, id, el) {
                        w.named.push(id);
                    }
                }
                NodeData::Text(t) if !conceal.text_concealed(id) => cx.push(t, links > 0),
                _ => {}
            },
            Edge::Close(id) => {
                let Some(el) = doc.element(id) else { continue };
                if w.order[id.index()] == 0 {
                    // Skipped: its Open already cut the block.
                    continue;
                }
                if blocks.last() == Some(&id) {
                    cx.flush(doc, &mut w, &blocks);
                    blocks.pop();
                }
                if el.is_html(&local_name!("a")) && el.has_attr("href") {
                    links = links.saturating_sub(1);
                }
                w.end[id.index()] = counter;
            }
        }
    }
    cx.flush(doc, &mut w, &blocks);
    w
}

/// Prose and chrome characters under each element.
struct Sums {
    prose: Vec<f64>,
    chrome: Vec<f64>,
}

impl Sums {
    /// Adds each block to its container, then sums up the tree.
    fn of(doc: &Document, w: &Walk) -> Sums {
        let mut s = Sums { prose: vec![0.0; w.order.len()], chrome: vec![0.0; w.order.len()] };
        for seg in &w.segs {
            let i = seg.container.index();
            if seg.is_prose() {
                s.prose[i] += seg.chars as f64;
            } else {
                s.chrome[i] += seg.chars as f64;
            }
        }
        up_the_tree(doc, w, &mut s.prose);
        up_the_tree(doc, w, &mut s.chrome);
        s
    }

    /// The element with the most prose less its weighted chrome; the
    /// deepest one on a tie (ancestors come first in pre-order).
    fn choose(&self, w: &Walk) -> Option<NodeId> {
        let mut best: Option<(f64, NodeId)> = None;
        for &id in &w.elements {
            let i = id.index();
            if self.prose[i] == 0.0 {
                continue;
            }
            let value = self.prose[i] - CHROME_WEIGHT * self.chrome[i];
            if best.is_none_or(|(b, _)| value >= b) {
                best = Some((value, id));
            }
        }
        best.map(|(_, id)| id).or_else(|| {
            // No prose at all (a page of short lines): everything is
            // chrome, and the first element holding text is all there is.
            w.elements.iter().copied().find(|&id| self.chrome[id.index()] > 0.0)
        })
    }
}

/// Turns per-element values into sums over each element's subtree: each
/// element is added to its parent, backwards over the pre-order, so every
/// child is complete before its parent takes it.
fn up_the_tree<T: Copy + std::ops::AddAssign>(doc: &Document, w: &Walk, values: &mut [T]) {
    for &id in w.elements.iter().rev() {
        if let Some(p) = doc.parent_element(id) {
            let v = values[id.index()];
            values[p.index()] += v;
        }
    }
}

/// Marks the blocks inside elements named like furniture — unless such an
/// element holds most of the page's prose: then the name is a wrapper's
/// (`Page-ad-margins`, `has-sidebar` around the article), not furniture's.
fn mark_furniture(doc: &Document, w: &mut Walk) {
    if w.named.is_empty() {
        return;
    }
    let sums = Sums::of(doc, w);
    let total: f64 = w.elements.first().map(|r| sums.prose[r.index()]).unwrap_or(0.0);
    // +1 where a furniture part starts, -1 after it ends: the running sum
    // at a block's position says whether one encloses it.
    let mut delta = vec![0i32; w.elements.len() + 2];
    for &id in &w.named {
        if sums.prose[id.index()] <= WRAPPER_SHARE * total {
            delta[w.order[id.index()] as usize] += 1;
            delta[w.end[id.index()] as usize + 1] -= 1;
        }
    }
    let mut inside = Vec::with_capacity(delta.len());
    let mut run = 0i32;
    for d in delta {
        run += d;
        inside.push(run > 0);
    }
    for seg in &mut w.segs {
        seg.furniture = inside.get(seg.order as usize).copied().unwrap_or(false);
    }
}

/// Marks the prose of teaser cards as chrome: a paragraph whose nearest
/// enclosing element with a link line (a block that is nearly all link: a
/// headline pointing elsewhere) holds no other prose is a summary of
/// another page ("More stories" grids), not this page's text.
fn mark_teasers(doc: &Document, w: &mut Walk) {
    let n = w.order.len();
    let (mut prose, mut link_lines) = (vec![0u32; n], vec![0u32; n]);
    for seg in &w.segs {
        let i = seg.container.index();
        if seg.is_prose() {
            prose[i] += 1;
        } else if seg.link_density() >= LINK_LINE_DENSITY {
            link_lines[i] += 1;
        }
    }
    up_the_tree(doc, w, &mut prose);
    up_the_tree(doc, w, &mut link_lines);
    for seg in &mut w.segs {
        if !seg.is_prose() {
            continue;
        }
        // Cards are shallow: look a few levels up, no further.
        let card = std::iter::once(seg.container)
            .chain(doc.ancestors(seg.container))
            .take(TEASER_DEPTH)
            .find(|a| link_lines[a.index()] > 0);
        if card.is_some_and(|c| prose[c.index()] == 1) {
            seg.teaser = true;
        }
    }
}

/// The text of the block being read.
#[derive(Default)]
struct Segmenter {
    text: String,
    link_chars: usize,
}

impl Segmenter {
    fn push(&mut self, t: &str, in_link: bool) {
        let before = self.text.len();
        push_collapsed(&mut self.text, &without_controls(t));
        if in_link {
            self.link_chars += self.text[before..].trim().chars().count();
        }
    }

    fn flush(&mut self, doc: &Document, w: &mut Walk, blocks: &[NodeId]) {
        let text = self.text.trim();
        if !text.is_empty() {
            let container = blocks.last().copied().unwrap_or(NodeId::DOCUMENT);
            let chars = text.chars().count();
            w.segs.push(Seg {
                container,
                order: w.order[container.index()],
                kind: kind_of(doc, container),
                text: text.to_owned(),
                chars,
                link_chars: self.link_chars.min(chars),
                furniture: false,
                teaser: false,
                caption: doc.element(container).is_some_and(|e| e.is_html(&local_name!("figcaption"))),
            });
        }
        self.text.clear();
        self.link_chars = 0;
    }
}

/// What a block is, from its container.
fn kind_of(doc: &Document, container: NodeId) -> BlockKind {
    use html5ever::local_name as l;
    let Some(el) = doc.element(container).filter(|e| e.is_html_element()) else { return BlockKind::Paragraph };
    match *el.local_name() {
        l!("h1") => BlockKind::Heading(1),
        l!("h2") => BlockKind::Heading(2),
        l!("h3") => BlockKind::Heading(3),
        l!("h4") => BlockKind::Heading(4),
        l!("h5") => BlockKind::Heading(5),
        l!("h6") => BlockKind::Heading(6),
        l!("li") | l!("dt") | l!("dd") => BlockKind::Item,
        l!("td") | l!("th") => BlockKind::Cell,
        l!("pre") => BlockKind::Pre,
        l!("blockquote") => BlockKind::Quote,
        _ => BlockKind::Paragraph,
    }
}

/// Whether an element starts a block of its own.
fn is_block(styles: &Styles, id: NodeId) -> bool {
    !matches!(styles.get(id).display, Display::Inline | Display::InlineBlock | Display::Contents | Display::None)
}

/// Elements whose content is never read as main content: what is hidden,
/// and what is not text (scripts, styles, controls, frames, media,
/// drawings).
fn skipped(styles: &Styles, sem: &Semantics, id: NodeId, el: &Element) -> bool {
    if sem.is_hidden(styles, id) {
        return true;
    }
    if !el.is_html_element() {
        // SVG and MathML: drawings and formulas, not prose.
        return true;
    }
    use html5ever::local_name as l;
    matches!(
        *el.local_name(),
        l!("script")
            | l!("style")
            | l!("noscript")
            | l!("template")
            | l!("head")
            | l!("select")
            | l!("textarea")
            | l!("button")
            | l!("input")
            | l!("iframe")
            | l!("object")
            | l!("embed")
            | l!("video")
            | l!("audio")
            | l!("canvas")
            | l!("dialog")
    )
}

/// Whether an element is page furniture, by what it is or by its name.
pub(crate) fn is_furniture(sem: &Semantics, id: NodeId, el: &Element) -> bool {
    furniture_by_kind(sem, id, el) || named_like_furniture(el)
}

/// Whether an element is page furniture by what it is: navigation, banner,
/// footer, complementary and search landmarks (by element or role), menus,
/// toolbars, tab lists, dialogs.
fn furniture_by_kind(sem: &Semantics, id: NodeId, el: &Element) -> bool {
    use html5ever::local_name as l;
    matches!(*el.local_name(), l!("nav") | l!("aside") | l!("footer") | l!("header") | l!("menu"))
        || sem.role(id).is_page_frame()
        || sem.role(id) == Role::Search
}

/// Class and id words of page furniture.
const FURNITURE: &[&str] = &[
    "ad", "ads", "advert", "advertisement", "advertising", "sponsor", "sponsored", "promo", "share", "sharing",
    "social", "related", "recommended", "newsletter", "subscribe", "subscription", "comment", "comments", "sidebar",
    "widget", "breadcrumb", "breadcrumbs", "footer", "nav", "navbar", "navigation", "menu", "popup", "modal",
    "cookie", "consent", "banner", "tags", "byline", "author", "caption", "outbrain", "taboola", "disqus",
    "signup", "sronly", "visuallyhidden", "hidden", "credit", "credits",
];

/// Whether the element's `class` or `id` names it page furniture (whole
/// words of it: `share-bar`, `related_links`, `adSlot`). `article`,
/// `main` and `body` never are.
fn named_like_furniture(el: &Element) -> bool {
    if el.is_html(&local_name!("body")) || el.is_html(&local_name!("article")) || el.is_html(&local_name!("main")) {
        return false;
    }
    [el.attr("class"), el.id()].into_iter().flatten().any(|v| any_word(v, |w| FURNITURE.contains(&w)))
}

/// Whether `pred` holds for a word of a class or id: the pieces split at
/// non-letters and at lower→upper case changes, lowercased, and each
/// token's letters joined (`sr-only` gives `sr`, `only` and `sronly`, for
/// the names written both ways). Two buffers for the whole value: this
/// runs for every element of the page.
fn any_word(value: &str, mut pred: impl FnMut(&str) -> bool) -> bool {
    let (mut word, mut joined) = (String::new(), String::new());
    for token in value.split(|c: char| c.is_ascii_whitespace()) {
        word.clear();
        joined.clear();
        let mut prev_lower = false;
        for c in token.chars() {
            if !c.is_ascii_alphabetic() {
                if !word.is_empty() && pred(&word) {
                    return true;
                }
                word.clear();
                prev_lower = false;
                continue;
            }
            if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
                if pred(&word) {
                    return true;
                }
                word.clear();
            }
            prev_lower = c.is_ascii_lowercase();
            word.push(c.to_ascii_lowercase());
            joined.push(c.to_ascii_lowercase());
        }
        if (!word.is_empty() && pred(&word)) || (!joined.is_empty() && pred(&joined)) {
            return true;
        }
    }
    false
}

/// Whether a heading is the page's title again (the headline: the header
/// line already says it).
fn repeats_title(title: &str, heading: &str) -> bool {
    let h = heading.trim();
    !h.is_empty() && h.chars().count() >= 8 && title.contains(h)
}

/// Lines that are page furniture whatever their place: ad and share
/// labels, datelines, bare URLs, copyright notices.
fn is_furniture_line(text: &str) -> bool {
    const LABELS: &[&str] = &[
        "advertisement", "advert", "ad", "sponsored", "share", "share this", "share this article", "comments",
        "comment", "read more", "related", "related articles", "explore further", "join the conversation",
        "join the conversation...", "click to share", "print", "email", "tweet", "skip to content",
    ];
    let t = text.trim();
    let lower = t.to_lowercase();
    let bare = lower.trim_matches(|c: char| !c.is_alphanumeric() && c != '.');
    if LABELS.contains(&bare) {
        return true;
    }
    if (t.starts_with("http://") || t.starts_with("https://")) && !t.contains(' ') {
        return true;
    }
    if lower.starts_with('©') || lower.starts_with("copyright") || lower.contains("all rights reserved") {
        return true;
    }
    is_dateline(&lower)
}

/// A short line that is a date or a time and little else: `October 12,
/// 2017`, `Published Monday, November 18, 2019 8:22AM EST`, `Updated 11:21
/// pm CST, Tuesday, November 19, 2019`.
fn is_dateline(lower: &str) -> bool {
    const MONTHS: &[&str] = &[
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ];
    const OTHERS: &[&str] = &[
        "published", "updated", "posted", "on", "at", "am", "pm", "est", "edt", "cst", "cdt", "pst", "pdt", "gmt",
        "utc", "bst", "cet", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "last",
        "modified", "th", "st", "nd", "rd",
    ];
    if lower.chars().count() > 80 {
        return false;
    }
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let year = words.iter().any(|w| w.len() == 4 && (w.starts_with("19") || w.starts_with("20")) && w.bytes().all(|b| b.is_ascii_digit()));
    let month = words.iter().any(|w| MONTHS.contains(w));
    (year || month)
        && words.iter().all(|w| w.bytes().all(|b| b.is_ascii_digit()) || MONTHS.contains(w) || OTHERS.contains(w) || w.ends_with("am") && w[..w.len() - 2].bytes().all(|b| b.is_ascii_digit()) || w.ends_with("pm") && w[..w.len() - 2].bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word [`any_word`] looks at, in order.
    fn words(value: &str) -> Vec<String> {
        let mut out = Vec::new();
        any_word(value, |w| {
            out.push(w.to_owned());
            false
        });
        out
    }

    #[test]
    fn datelines_are_furniture_and_sentences_with_dates_are_not() {
        for line in ["October 12, 2017", "Published Monday, November 18, 2019 8:22AM EST", "Updated 11:21 pm CST, Tuesday, November 19, 2019", "2019-11-20"] {
            assert!(is_furniture_line(line), "{line}");
        }
        for line in ["The vote on October 12, 2017 changed the rules.", "May the best team win", "Chapter 2019"] {
            assert!(!is_furniture_line(line), "{line}");
        }
    }

    #[test]
    fn labels_urls_and_copyright_are_furniture() {
        for line in ["ADVERTISEMENT", "Advert", "Explore further", "https://example.com/x", "© 2026 News Example", "Text. All rights reserved."] {
            assert!(is_furniture_line(line), "{line}");
        }
        assert!(!is_furniture_line("Share prices fell on Monday."));
        assert!(!is_furniture_line("See https://example.com for details"));
    }

    #[test]
    fn class_words_split_at_case_and_punctuation() {
        assert_eq!(words("adSlot share-bar sr-only"), ["ad", "slot", "adslot", "share", "bar", "sharebar", "sr", "only", "sronly"]);
        assert!(words("headline reader").iter().all(|w| !FURNITURE.contains(&w.as_str())));
    }

    #[test]
    fn a_headline_repeating_the_title_is_left_out() {
        assert!(repeats_title("Night trains return to the Alps – The Daily Example", "Night trains return to the Alps"));
        assert!(!repeats_title("Night trains return to the Alps", "Why now"));
    }
}
