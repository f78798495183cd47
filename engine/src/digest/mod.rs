//! Digests: what a page says in a few lines, for `research`. Built on
//! [`content`], the main-content extraction that `extract text` uses too.
//!
//! ```text
//! ## [2] Library hours extended · news.example/story
//! by Jane Roe · 2026-11-20 · News Example
//! outline: Library hours extended / Reactions / What's next
//! The council voted on Tuesday to extend the library's opening hours.
//! - Monday to Friday, 8:00 to 22:00
//! Day | Opens | Closes
//! … +6 more blocks (extract text)
//! links 84 · forms 1
//! ```
//!
//! - The header: `## [n] title · compact url` (the title from `og:title`,
//!   else `<title>`, else the first `h1`).
//! - The byline, date and site when the page states them (meta tags,
//!   `<time>`, `rel=author`), on one line.
//! - The outline: the page's first visible `h1` (outside navigation,
//!   footer and asides), then the main content's `h1`–`h3`, at most
//!   [`MAX_OUTLINE`]; left out when it is only the title again.
//! - The main content condensed to what the budget leaves: each
//!   paragraph's first sentence, list items as `- item`, a table's cells
//!   as `a | b | c` rows, in reading order; what does not fit is counted in
//!   `… +N more blocks (extract text)`.
//! - `⚠ needs scripts` when the page looks like a script-rendered shell:
//!   it has scripts, its main content is thin, and it has almost no text,
//!   an empty app root, or a `<noscript>` asking for JavaScript. What it
//!   shows without scripts is all the digest has.
//! - Counts: the page's links and forms.
//!
//! The budget is met by the engine's token estimate; the header line is
//! always written, even when it alone is over.

pub mod content;
mod links;
pub mod meta;

use crate::dom::{Document, Edge, NodeData, NodeId};
use crate::fold::tokens;
use crate::line::compact_url;
use crate::safety::conceal::Concealment;
use crate::semantics::Semantics;
use crate::style::Styles;
use crate::text::truncate_chars;

pub use content::{Block, BlockKind, MainContent, main_content, main_region, page_text, with_main_content};
pub use links::result_links;
pub use meta::{PageMeta, page_meta};

/// The most headings the outline lists.
pub const MAX_OUTLINE: usize = 12;
/// A heading in the outline, in chars.
const MAX_HEADING_CHARS: usize = 80;
/// A sentence or list item, in chars.
const MAX_LINE_CHARS: usize = 300;
/// A title in the header, in chars.
const MAX_TITLE_CHARS: usize = 120;
/// A sentence ends at `. `, `? ` or `! ` once it has this many chars.
const MIN_SENTENCE_CHARS: usize = 40;
/// Below this many chars of visible text, a page with scripts and nothing
/// of meaning to show (see [`Scan::meaningful`]) is a shell.
const SHELL_TEXT_CHARS: usize = 100;
/// A page whose main content has this many bytes of text or more is never
/// taken for a shell.
const THIN_CONTENT_BYTES: usize = 500;

/// How to digest one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DigestOptions {
    /// The page's number in the header (`## [n]`).
    pub index: usize,
    /// The digest's budget in o200k tokens (the header is always written).
    pub budget: u32,
    /// Whether the page's scripts already ran (a page Chromium rendered):
    /// then it is never called a script shell.
    pub scripts_ran: bool,
}

/// One page's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// The text (see the module documentation), newline-terminated.
    pub text: String,
    /// The page's title (at most 120 chars).
    pub title: String,
    /// The text's tokens by the engine's estimate.
    pub tokens: u32,
    /// Links on the page.
    pub links: usize,
    /// Forms on the page.
    pub forms: usize,
    /// Whether the page looks like it needs scripts to show its content.
    pub needs_scripts: bool,
    /// The main content's blocks that the budget left out.
    pub blocks_left: usize,
    /// The page's facts (title untruncated, byline, date, site, language).
    pub meta: PageMeta,
    /// The headings of the main content, as the `outline:` line lists
    /// them (also when the line is left out for repeating the title).
    pub outline: Vec<String>,
}

/// Digests a page (see the module documentation).
pub fn digest(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics, options: &DigestOptions) -> Digest {
    let meta = meta::page_meta(doc);
    let content = content::main_content_titled(doc, styles, conceal, sem, &meta.title);
    let scan = scan(doc, styles, conceal);
    let title = truncate_chars(&meta.title, MAX_TITLE_CHARS);
    let needs_scripts = !options.scripts_ran && is_script_shell(&scan, &content);

    let mut w = Writer { text: String::new(), tokens: 0, budget: options.budget };
    let mut header = format!("## [{}] {}", options.index, if title.is_empty() { "(untitled)" } else { &title });
    if let Some(url) = doc.url() {
        header.push_str(" · ");
        header.push_str(&compact_url(url));
    }
    w.force(&header);
    let about: Vec<&str> = [meta.byline.as_deref(), meta.published.as_deref(), meta.site.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect();
    let counts = format!("links {} · forms {}", scan.links, scan.forms);
    // The counts close the digest, after the line that counts what did not
    // fit: keep room for both.
    let reserve_counts = tokens::line_cost(0, &counts);
    let reserve_more = tokens::line_cost(0, "… +99999 more blocks (extract text)");
    w.budget = w.budget.saturating_sub(reserve_counts + reserve_more);
    if needs_scripts {
        w.line("⚠ needs scripts: digested as served, without them");
    }
    if !about.is_empty() {
        let by = about.join(" · ");
        w.line(&by);
    }
    let content_lines = content.lines();
    let outline = outline(scan.h1.as_deref(), &content_lines);
    // A lone heading that repeats the title says nothing new.
    if !(outline.is_empty() || outline.len() == 1 && title.starts_with(outline[0].as_str())) {
        w.line(&format!("outline: {}", outline.join(" / ")));
    }
    let lines = condensed(content_lines);
    let mut shown = 0;
    for line in &lines {
        if !w.line(line) {
            break;
        }
        shown += 1;
    }
    let blocks_left = lines.len() - shown;
    w.budget = options.budget.saturating_sub(reserve_counts);
    if blocks_left > 0 {
        let more = format!("… +{blocks_left} more blocks (extract text)");
        w.line(&more);
    }
    w.budget = options.budget;
    w.line(&counts);
    Digest {
        text: w.text,
        title,
        tokens: w.tokens,
        links: scan.links,
        forms: scan.forms,
        needs_scripts,
        blocks_left,
        meta,
        outline,
    }
}

/// Lines within a budget.
struct Writer {
    text: String,
    tokens: u32,
    budget: u32,
}

impl Writer {
    /// Writes the line if it fits.
    fn line(&mut self, line: &str) -> bool {
        let cost = tokens::line_cost(0, line);
        if self.tokens + cost > self.budget {
            return false;
        }
        self.push(line, cost);
        true
    }

    /// Writes the line whatever the budget (the header).
    fn force(&mut self, line: &str) {
        self.push(line, tokens::line_cost(0, line));
    }

    fn push(&mut self, line: &str, cost: u32) {
        self.tokens += cost;
        self.text.push_str(line);
        self.text.push('\n');
    }
}

/// The main content as digest lines: paragraphs' first sentences, list
/// items, table rows; headings are in the outline already.
fn condensed(lines: Vec<(BlockKind, String)>) -> Vec<String> {
    lines
        .into_iter()
        .filter_map(|(kind, text)| match kind {
            BlockKind::Heading(_) => None,
            BlockKind::Item => Some(format!("- {}", truncate_chars(&text, MAX_LINE_CHARS))),
            BlockKind::Cell => Some(truncate_chars(&text, MAX_LINE_CHARS)),
            _ => Some(truncate_chars(first_sentence(&text), MAX_LINE_CHARS)),
        })
        .collect()
}

/// The page's first `h1`, then the main content's `h1`–`h3`, at most
/// [`MAX_OUTLINE`].
fn outline(h1: Option<&str>, lines: &[(BlockKind, String)]) -> Vec<String> {
    let mut out: Vec<String> = h1.map(|h| truncate_chars(h, MAX_HEADING_CHARS)).into_iter().collect();
    for (kind, text) in lines {
        if out.len() >= MAX_OUTLINE {
            break;
        }
        if matches!(kind, BlockKind::Heading(1..=3)) && Some(text.as_str()) != h1 {
            out.push(truncate_chars(text, MAX_HEADING_CHARS));
        }
    }
    out
}

/// The text up to the end of its first sentence that has at least
/// [`MIN_SENTENCE_CHARS`] chars (the whole text when none ends).
fn first_sentence(text: &str) -> &str {
    let mut chars = 0;
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        chars += 1;
        if c == ' ' && chars > MIN_SENTENCE_CHARS && matches!(prev, Some('.' | '?' | '!')) {
            return &text[..i];
        }
        prev = Some(c);
    }
    text
}

/// Why what the static path shows of a page is not what a person sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptNeed {
    /// A shell that scripts fill: the page has scripts, its main content is
    /// thin, and it has almost no text, an empty app root (`#root`,
    /// `#__next`, `#app`, `#__nuxt`) or a `<noscript>` asking for
    /// JavaScript.
    Shell,
    /// Its own stylesheet hides the whole page until its script shows it
    /// (a [`Veil`](crate::style::Veil), which the cascade set aside: the
    /// static view shows the page, but only a script decides what stays).
    Veil,
}

/// Whether the page needs scripts, and why ([`ScriptNeed`]). The server
/// asks this of every page it loads and takes the page to Chromium when it
/// can; without Chromium the page is shown as the static path sees it,
/// with a notice.
///
/// The one walk of the page decides first; the main content is extracted
/// only for the few pages that walk cannot clear.
pub fn script_need(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics) -> Option<ScriptNeed> {
    if styles.veil().is_some() {
        return Some(ScriptNeed::Veil);
    }
    let scan = scan(doc, styles, conceal);
    if !may_be_shell(&scan) {
        return None;
    }
    let meta = meta::page_meta(doc);
    let content = content::main_content_titled(doc, styles, conceal, sem, &meta.title);
    is_script_shell(&scan, &content).then_some(ScriptNeed::Shell)
}

/// What the walk alone says: scripts, and almost no text, an empty app
/// root or a `<noscript>` asking for JavaScript.
fn may_be_shell(scan: &Scan) -> bool {
    scan.scripts > 0 && ((scan.text_chars < SHELL_TEXT_CHARS && scan.meaningful == 0) || scan.app_root_empty || scan.noscript_asks)
}

fn is_script_shell(scan: &Scan, content: &MainContent) -> bool {
    // A page with an article of its own is not a shell, whatever its
    // `<noscript>` says (comment widgets ask for JavaScript too).
    let content_chars: usize = content.blocks.iter().map(|b| b.text.len()).sum();
    may_be_shell(scan) && content_chars < THIN_CONTENT_BYTES
}

/// Whether an element means something by itself (see [`Scan::meaningful`]).
fn is_meaningful(el: &crate::Element) -> bool {
    use html5ever::local_name as l;
    if el.has_attr("role") {
        return true;
    }
    match *el.local_name() {
        l!("a") | l!("area") => el.has_attr("href"),
        l!("img") => el.attr("alt").is_some_and(|a| !a.trim().is_empty()),
        l!("input") => el.attr("type").is_none_or(|t| !t.eq_ignore_ascii_case("hidden")),
        l!("button") | l!("select") | l!("textarea") | l!("h1") | l!("h2") | l!("h3") | l!("h4") | l!("h5") | l!("h6")
        | l!("nav") | l!("main") | l!("header") | l!("footer") | l!("aside") | l!("article") | l!("form") | l!("ul")
        | l!("ol") | l!("dl") | l!("table") | l!("details") | l!("dialog") | l!("video") | l!("audio") | l!("iframe")
        | l!("progress") | l!("meter") => true,
        _ => false,
    }
}

/// What one walk over the page counts.
#[derive(Default)]
struct Scan {
    links: usize,
    forms: usize,
    scripts: usize,
    text_chars: usize,
    /// Visible elements that mean something by themselves, whatever their
    /// text: controls, links, headings, landmarks, lists, tables, images
    /// with a text alternative, elements with a `role`. A page of tests
    /// with two labelled regions is small; a shell has none of these.
    meaningful: usize,
    app_root_empty: bool,
    noscript_asks: bool,
    /// The first visible `h1` outside navigation, footer and asides.
    h1: Option<String>,
}

fn scan(doc: &Document, styles: &Styles, conceal: &Concealment) -> Scan {
    use html5ever::local_name as l;
    let mut s = Scan::default();
    // Open navigation, footer and aside elements: an `h1` inside them is
    // not the page's.
    let mut frame = 0u32;
    let mut traverse = doc.traverse(NodeId::DOCUMENT);
    while let Some(edge) = traverse.next() {
        match edge {
            Edge::Open(id) => match &doc.node(id).data {
                // An inline SVG or MathML drawing means something by itself.
                NodeData::Element(el) if !el.is_html_element() && matches!(*el.local_name(), l!("svg") | l!("math")) => {
                    if !styles.is_display_none(id) {
                        s.meaningful += 1;
                    }
                    traverse.skip_children(id);
                    continue;
                }
                NodeData::Element(el) if el.is_html_element() => {
                    let name = el.local_name();
                    match *name {
                        l!("script") => {
                            s.scripts += 1;
                            traverse.skip_children(id);
                            continue;
                        }
                        l!("noscript") => {
                            let t = doc.text_content(id).to_ascii_lowercase();
                            s.noscript_asks |= t.contains("javascript") && (t.contains("enable") || t.contains("requires") || t.contains("need"));
                            traverse.skip_children(id);
                            continue;
                        }
                        l!("style") | l!("template") | l!("head") => {
                            traverse.skip_children(id);
                            continue;
                        }
                        _ => {}
                    }
                    if matches!(el.id(), Some("root" | "__next" | "app" | "__nuxt")) && doc.first_child(id).is_none() {
                        s.app_root_empty = true;
                    }
                    if styles.is_display_none(id) {
                        traverse.skip_children(id);
                        continue;
                    }
                    if matches!(*name, l!("nav") | l!("footer") | l!("aside")) {
                        frame += 1;
                    }
                    if is_meaningful(el) {
                        s.meaningful += 1;
                    }
                    match *name {
                        l!("a") if el.has_attr("href") => s.links += 1,
                        l!("form") => s.forms += 1,
                        l!("h1") if frame == 0 && s.h1.is_none() => {
                            let h = crate::text::one_line(&doc.text_content(id));
                            s.h1 = Some(h).filter(|h| !h.is_empty());
                        }
                        _ => {}
                    }
                }
                NodeData::Text(t) if styles.is_visible(doc.parent(id).unwrap_or(NodeId::DOCUMENT)) && !conceal.text_concealed(id) => {
                    s.text_chars += t.chars().filter(|c| !c.is_whitespace()).count();
                }
                _ => {}
            },
            Edge::Close(id) => {
                if let Some(el) = doc.element(id)
                    && el.is_html_element()
                    && matches!(*el.local_name(), l!("nav") | l!("footer") | l!("aside"))
                    && !styles.is_display_none(id)
                {
                    frame = frame.saturating_sub(1);
                }
            }
        }
    }
    s
}
