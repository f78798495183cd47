//! How one item of the semantic tree reads as one line, and the header
//! line: the words, refs, quotes and states of docs/observation.md. The
//! fold stage prices lines with them before choosing what to keep, and
//! [`render`](mod@crate::render) writes the lines it kept.
//!
//! ```text
//! # Shipping – Demo Shop · shop.example/checkout
//! header
//!  nav "Primary"
//!   [3] link "Home"
//! ```
//!
//! The header ends with the scroll part `↑a ↓b`: screens of page above and
//! below the viewport, one decimal, a side that rounds to 0 left out.

pub mod url;

use std::fmt::Write;

use crate::dom::Document;
use crate::layout::Layout;
use crate::semantics::role::Role;
use crate::text::one_line;
use crate::tree::{AxTree, Item, Prefix, Segment, Widget};
pub use url::compact_url;

/// Lines deeper than this are indented as if at this depth: a page nested
/// hundreds of levels would otherwise spend most of its output on spaces
/// (no real page comes near it).
pub const MAX_INDENT: usize = 64;

/// Display limits.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// Names longer than this many characters are cut with `…` in the text
    /// (the structured elements keep them whole).
    pub max_name_chars: usize,
    /// Values longer than this are cut the same way.
    pub max_value_chars: usize,
    /// How many options of a combobox/listbox are listed before `+N`.
    pub max_options: usize,
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions { max_name_chars: 160, max_value_chars: 160, max_options: 4 }
    }
}

/// The header line: `# title · compact url · scroll`, each part left out
/// when empty.
pub fn header(doc: &Document, layout: &Layout, options: &RenderOptions) -> String {
    let title = doc.title();
    let compact = doc.url().map(compact_url).unwrap_or_default();
    let shown_title = crate::text::truncate_chars(&one_line(&title), options.max_name_chars);
    let scroll = scroll_part(layout.screens_above(), layout.screens_below());
    let mut header = String::from("#");
    for part in [shown_title.as_str(), compact.as_str(), scroll.as_str()] {
        if part.is_empty() {
            continue;
        }
        header.push_str(if header.len() == 1 { " " } else { " · " });
        header.push_str(part);
    }
    header
}

/// How an item's line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStyle {
    /// Everything: text and widgets with their refs.
    Full,
    /// As `Full`, but a line with more than [`ACTIONS_MAX_TEXT`]
    /// characters of text (prose) is reduced to its widgets.
    Actions,
    /// Prose: text, links as their names, no refs, no other widgets.
    Read,
}

/// Text characters beyond which an `actions` line keeps only its widgets.
pub const ACTIONS_MAX_TEXT: usize = 80;

/// One item's line, without indentation.
pub fn item_line(tree: &AxTree, item: &Item, options: &RenderOptions, style: LineStyle) -> String {
    let mut out = String::new();
    match style {
        LineStyle::Full => write_item(&mut out, tree, item, options),
        LineStyle::Actions => {
            let text: usize = item
                .head
                .iter()
                .map(|s| match s {
                    Segment::Text(t) => t.len(),
                    Segment::Widget(_) => 0,
                })
                .sum();
            let widgets = item.head.iter().filter(|s| matches!(s, Segment::Widget(_))).count();
            if text > ACTIONS_MAX_TEXT && widgets > 0 {
                write_prefix(&mut out, item);
                for seg in &item.head {
                    if let Segment::Widget(w) = seg {
                        if !out.is_empty() && !out.ends_with(' ') {
                            out.push(' ');
                        }
                        write_widget(&mut out, &tree.widgets[*w], options);
                    }
                }
            } else {
                write_item(&mut out, tree, item, options);
            }
        }
        LineStyle::Read => out = read_line(tree, item, options, &|_| None),
    }
    out
}

/// An item's line in `read` style: text, links as their names (each
/// followed by ` (url)` when `link_url` gives one), no refs, no other
/// widgets.
pub(crate) fn read_line(
    tree: &AxTree,
    item: &Item,
    options: &RenderOptions,
    link_url: &dyn Fn(&Widget) -> Option<String>,
) -> String {
    let mut out = String::new();
    let mut body = String::new();
    for seg in &item.head {
        match seg {
            Segment::Text(t) => push_text(&mut body, t),
            Segment::Widget(w) => {
                let w = &tree.widgets[*w];
                if w.role == Role::Link {
                    push_text(&mut body, &crate::text::truncate_chars(&one_line(&w.name), options.max_name_chars));
                    if let Some(url) = link_url(w) {
                        let _ = write!(body, " ({url})");
                    }
                }
            }
        }
    }
    // Widgets left out leave double spaces; a line of only a prefix
    // says nothing.
    // A left-out widget may leave a separator with nothing after it.
    let body = one_line(&body);
    let parts: Vec<&str> = body.split(" · ").map(str::trim).filter(|p| !p.is_empty() && *p != "·").collect();
    let body = parts.join(" · ");
    let body = body.trim_end_matches([' ', '·', '|']).to_owned();
    if !body.is_empty() {
        write_prefix(&mut out, item);
        out.push_str(&body);
    }
    out
}

/// `↑a ↓b` in screens with one decimal; a side that rounds to 0 is left
/// out, and both: nothing.
pub fn scroll_part(above: f32, below: f32) -> String {
    let tenths = |s: f32| if s.is_finite() { (s * 10.0).round().max(0.0) as u64 } else { 0 };
    let show = |t: u64| if t.is_multiple_of(10) { format!("{}", t / 10) } else { format!("{}.{}", t / 10, t % 10) };
    let (a, b) = (tenths(above), tenths(below));
    match (a, b) {
        (0, 0) => String::new(),
        (0, b) => format!("↓{}", show(b)),
        (a, 0) => format!("↑{}", show(a)),
        (a, b) => format!("↑{} ↓{}", show(a), show(b)),
    }
}


fn write_item(out: &mut String, tree: &AxTree, item: &Item, options: &RenderOptions) {
    write_prefix(out, item);
    for seg in &item.head {
        match seg {
            Segment::Text(t) => push_text(out, t),
            Segment::Widget(w) => write_widget(out, &tree.widgets[*w], options),
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
}

pub(crate) fn write_prefix(out: &mut String, item: &Item) {
    match item.prefix {
        Prefix::None => {}
        Prefix::Heading(level) => {
            let _ = write!(out, "h{level} ");
        }
        Prefix::ListItem => out.push_str("- "),
        Prefix::Live(role) => {
            let _ = write!(out, "{}: ", role.as_str());
        }
    }
}

/// Page text, with anything that looks like a ref (`[12]`) escaped as
/// `\[12]`, so that only whittle's refs read as refs.
pub(crate) fn push_text(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'[' {
            let digits = bytes[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b']') {
                out.push_str(&text[last..i]);
                out.push('\\');
                last = i;
            }
        }
    }
    out.push_str(&text[last..]);
}

/// The word for a role in the tree: landmarks by their short aliases.
pub fn role_word(role: Role) -> &'static str {
    match role {
        Role::Banner => "header",
        Role::ContentInfo => "footer",
        Role::Navigation => "nav",
        Role::Complementary => "aside",
        Role::Image => "img",
        Role::Iframe => "frame",
        r => r.as_str(),
    }
}

/// `[n] role "name" = "value" (options) states ⚿kind`.
pub(crate) fn write_widget(out: &mut String, w: &Widget, options: &RenderOptions) {
    if let Some(r) = w.ref_id {
        let _ = write!(out, "[{r}] ");
    }
    out.push_str(role_word(w.role));
    if !w.name.is_empty() {
        out.push(' ');
        quote(out, &w.name, options.max_name_chars);
    }
    if !w.value.is_empty() && w.sensitive.is_none() {
        out.push_str(" = ");
        quote(out, &w.value, options.max_value_chars);
    }
    if !w.options.is_empty() {
        out.push_str(" (");
        let shown = w.options.len().min(options.max_options);
        for (i, o) in w.options.iter().take(shown).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&crate::text::truncate_chars(&one_line(o), 40));
        }
        if w.options.len() > shown {
            let _ = write!(out, " +{}", w.options.len() - shown);
        }
        out.push(')');
    }
    for s in w.states.names() {
        out.push(' ');
        out.push_str(s);
    }
    if let Some(kind) = w.sensitive {
        out.push_str(" ⚿");
        out.push_str(kind.as_str());
    }
}

/// A quoted string: `"` and `\` escaped, cut at `max` chars.
pub(crate) fn quote(out: &mut String, s: &str, max: usize) {
    let s = crate::text::truncate_chars(s, max);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::scroll_part;

    #[test]
    fn scroll_part_drops_empty_sides() {
        assert_eq!(scroll_part(0.0, 0.0), "");
        assert_eq!(scroll_part(0.0, 0.04), "");
        assert_eq!(scroll_part(0.0, 1.5), "↓1.5");
        assert_eq!(scroll_part(2.0, 0.0), "↑2");
        assert_eq!(scroll_part(1.25, 3.0), "↑1.3 ↓3");
        assert_eq!(scroll_part(f32::NAN, f32::INFINITY), "");
    }
}
