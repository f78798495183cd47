//! Stage 5, `render`: the semantic tree as the text observation of
//! PROTOCOL §1, and the same facts as the structured envelope of §4.
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

pub mod envelope;
pub mod url;

use std::fmt::Write;

use crate::dom::Document;
use crate::layout::Layout;
use crate::semantics::role::Role;
use crate::tree::{AxTree, Item, Prefix, Segment, Widget};
pub use envelope::{Envelope, ElementEntry};
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

/// The rendered observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The page title.
    pub title: String,
    /// The page URL (in full), if known.
    pub url: String,
    /// The header line.
    pub header: String,
    /// The tree lines, indented.
    pub lines: Vec<String>,
}

impl Observation {
    /// The whole observation: header and lines, newline-terminated.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.header.len() + self.lines.iter().map(|l| l.len() + 1).sum::<usize>() + 1);
        out.push_str(&self.header);
        out.push('\n');
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

/// Renders the observation of a page.
pub fn render(doc: &Document, tree: &AxTree, layout: &Layout, options: &RenderOptions) -> Observation {
    let title = doc.title();
    let url = doc.url().map(|u| u.to_string()).unwrap_or_default();
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
    let mut lines = Vec::new();
    tree.walk(|depth, item| {
        let mut line = " ".repeat(depth.min(MAX_INDENT));
        write_item(&mut line, tree, item, options);
        lines.push(line);
    });
    Observation { title, url, header, lines }
}

/// `↑a ↓b` in screens with one decimal; a side that rounds to 0 is left
/// out, and both: nothing.
pub fn scroll_part(above: f32, below: f32) -> String {
    let tenths = |s: f32| if s.is_finite() { (s * 10.0).round().max(0.0) as u64 } else { 0 };
    let show = |t: u64| if t % 10 == 0 { format!("{}", t / 10) } else { format!("{}.{}", t / 10, t % 10) };
    let (a, b) = (tenths(above), tenths(below));
    match (a, b) {
        (0, 0) => String::new(),
        (0, b) => format!("↓{}", show(b)),
        (a, 0) => format!("↑{}", show(a)),
        (a, b) => format!("↑{} ↓{}", show(a), show(b)),
    }
}

/// Page text for one line: any whitespace or control character becomes a
/// space, runs collapse, ends are trimmed.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

fn write_item(out: &mut String, tree: &AxTree, item: &Item, options: &RenderOptions) {
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
    for seg in &item.head {
        match seg {
            Segment::Text(t) => push_text(out, t),
            Segment::Widget(w) => write_widget(out, &tree.widgets[*w], options),
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
}

/// Page text, with anything that looks like a ref (`[12]`) escaped as
/// `\[12]`, so that only whittle's refs read as refs.
fn push_text(out: &mut String, text: &str) {
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
fn write_widget(out: &mut String, w: &Widget, options: &RenderOptions) {
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
fn quote(out: &mut String, s: &str, max: usize) {
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
