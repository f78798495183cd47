//! The accessibility tree as compact YAML, the shape of agent-browser's
//! `browser_snapshot` (and of Playwright's ARIA snapshots): one sequence
//! entry per node, `role "name" [state]`, a value after `: `, children
//! nested under `role "name":`.
//!
//! ```yaml
//! - navigation "Main":
//!   - link "Home"
//!   - link "Prices"
//! - heading "Plans" [level=1]
//! - textbox "Email" [required]: ada@example.com
//! - generic:
//!   - text: Read the
//!   - link "terms"
//! # … +20 more items
//! ```
//!
//! It is written from the folded observation, so it is as compact as
//! `observe` (repeated items and long prose folded, the same budget): what
//! the fold leaves out shows as YAML comments (`# … +20 more items`), which
//! a YAML parser skips and a model still reads. Roles are ARIA's words.
//! Every scalar that YAML could read as something else (`: `, ` #`, a
//! leading indicator, `true`, `12`) is written double-quoted, JSON-style,
//! so the text always parses as YAML.

use std::borrow::Cow;
use std::fmt::Write;

use crate::line::{MAX_INDENT, RenderOptions};
use crate::text::one_line;
use crate::fold::{Folded, LineKind};
use crate::semantics::role::Role;
use crate::tree::{AxTree, Item, Prefix, Segment, Widget};

/// The folded tree as YAML (see the module documentation). The page's
/// notes (`⚠ suspected injection`, …) come first, as comments.
pub fn yaml(tree: &AxTree, folded: &Folded, options: &RenderOptions) -> String {
    let mut out = String::new();
    for note in &folded.notes {
        comment(&mut out, 0, note);
    }
    for (i, line) in folded.lines.iter().enumerate() {
        // Capped as `observe` caps indentation: a page nested 10,000 deep
        // must not cost 10,000 spaces a line.
        let indent = line.depth.min(MAX_INDENT);
        let has_children = folded.lines.get(i + 1).is_some_and(|next| next.depth.min(MAX_INDENT) > indent);
        match &line.kind {
            LineKind::Item(id) => {
                let node = Node::of(tree, &tree.items[*id], options);
                // A line of widgets alone (links side by side) is those
                // widgets, without a node of its own when nothing nests
                // under it.
                let (parts_at, wrapped) = if node.flat && !has_children { (indent, false) } else { (indent + 1, true) };
                if wrapped {
                    entry(&mut out, indent, &node.label, node.value.as_deref(), has_children || !node.parts.is_empty());
                }
                for (label, value) in &node.parts {
                    entry(&mut out, parts_at, label, value.as_deref(), false);
                }
            }
            LineKind::Caption(_) => entry(&mut out, indent, "caption", Some(&line.text), has_children),
            LineKind::MoreItems { count, .. } => comment(&mut out, indent, &format!("… +{count} more items")),
            LineKind::MoreText { count } => comment(&mut out, indent, &format!("… +{count} more text blocks")),
            LineKind::Budget { count } => comment(&mut out, indent, &format!("… +{count} more lines (cut to the budget)")),
        }
    }
    out
}

/// One node: its label, its value, and the parts of a line that mixes
/// text and widgets (written as its first children).
struct Node {
    label: String,
    value: Option<String>,
    parts: Vec<(String, Option<String>)>,
    /// Its parts say all of it (widgets without text).
    flat: bool,
}

impl Node {
    fn of(tree: &AxTree, item: &Item, options: &RenderOptions) -> Node {
        let widgets = item.head.iter().filter(|s| matches!(s, Segment::Widget(_))).count();
        let has_text = item.head.iter().any(|s| matches!(s, Segment::Text(t) if !t.trim().is_empty()));
        // The line read as text: its text and the names of its widgets.
        let flat = || {
            let mut s = String::new();
            for seg in &item.head {
                let piece = match seg {
                    Segment::Text(t) => t.as_str(),
                    Segment::Widget(w) => tree.widgets[*w].name.as_str(),
                };
                if !s.is_empty() && !s.ends_with(' ') {
                    s.push(' ');
                }
                s.push_str(piece);
            }
            one_line(&s)
        };
        let parts = || -> Vec<(String, Option<String>)> {
            item.head
                .iter()
                .filter_map(|seg| match seg {
                    Segment::Text(t) => {
                        let t = one_line(t);
                        (!t.is_empty()).then(|| ("text".to_owned(), Some(t)))
                    }
                    Segment::Widget(w) => Some(widget(&tree.widgets[*w], options)),
                })
                .collect()
        };
        let text_only = |label: String| {
            let value = flat();
            Node { label, value: (!value.is_empty()).then_some(value), parts: Vec::new(), flat: false }
        };
        match item.prefix {
            Prefix::Heading(level) => {
                let mut label = format!("heading {}", quoted(&flat(), options.max_name_chars));
                let _ = write!(label, " [level={level}]");
                // A link in a heading stays something to act on.
                let parts = if widgets > 0 { parts() } else { Vec::new() };
                Node { label, value: None, parts: parts.into_iter().filter(|(l, _)| l != "text").collect(), flat: false }
            }
            Prefix::ListItem | Prefix::Live(_) => {
                let label = match item.prefix {
                    Prefix::Live(role) => aria_word(role).to_owned(),
                    _ => "listitem".to_owned(),
                };
                if widgets == 0 { text_only(label) } else { Node { label, value: None, parts: parts(), flat: false } }
            }
            Prefix::None if widgets == 1 && !has_text => {
                let Some(Segment::Widget(w)) = item.head.iter().find(|s| matches!(s, Segment::Widget(_))) else {
                    return text_only("text".to_owned());
                };
                let (label, value) = widget(&tree.widgets[*w], options);
                Node { label, value, parts: Vec::new(), flat: false }
            }
            Prefix::None if widgets == 0 => text_only("text".to_owned()),
            Prefix::None => Node { label: "generic".to_owned(), value: None, parts: parts(), flat: !has_text },
        }
    }
}

/// `role "name" [state]…` and the value, if it has one a person sees
/// (never a sensitive field's).
fn widget(w: &Widget, options: &RenderOptions) -> (String, Option<String>) {
    let mut label = aria_word(w.role).to_owned();
    let name = one_line(&w.name);
    if !name.is_empty() {
        label.push(' ');
        label.push_str(&quoted(&name, options.max_name_chars));
    }
    for s in w.states.names() {
        let _ = write!(label, " [{s}]");
    }
    let value = one_line(&w.value);
    let value = (w.sensitive.is_none() && !value.is_empty()).then(|| crate::text::truncate_chars(&value, options.max_value_chars));
    (label, value)
}

/// ARIA's word for a role.
fn aria_word(role: Role) -> &'static str {
    match role {
        Role::Image => "img",
        r => r.as_str(),
    }
}

/// `"name"`, cut to `max` chars, `"` and `\` escaped.
fn quoted(s: &str, max: usize) -> String {
    let mut out = String::new();
    crate::line::quote(&mut out, s, max);
    out
}

fn entry(out: &mut String, depth: usize, label: &str, value: Option<&str>, has_children: bool) {
    indent(out, depth);
    out.push_str("- ");
    out.push_str(&scalar(label));
    match (value, has_children) {
        (Some(v), true) => {
            out.push_str(":\n");
            indent(out, depth + 1);
            out.push_str("- text: ");
            out.push_str(&scalar(v));
        }
        (Some(v), false) => {
            out.push_str(": ");
            out.push_str(&scalar(v));
        }
        (None, true) => out.push(':'),
        (None, false) => {}
    }
    out.push('\n');
}

fn comment(out: &mut String, depth: usize, text: &str) {
    indent(out, depth);
    out.push_str("# ");
    out.push_str(&one_line(text));
    out.push('\n');
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `s` as a YAML scalar: plain when YAML reads it back as this very
/// string, else double-quoted (JSON's escapes are YAML's).
fn scalar(s: &str) -> Cow<'_, str> {
    if is_plain_safe(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if s.trim() != s || s.ends_with(':') || s.contains(": ") || s.contains(" #") {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if s.chars().any(|c| c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}') {
        return false;
    }
    // What YAML (1.1 or 1.2) would read as a boolean, null or number.
    let lower = s.to_ascii_lowercase();
    if matches!(lower.as_str(), "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~") {
        return false;
    }
    let numeric = s.trim_start_matches(['+', '-']);
    !(numeric.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && numeric.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '+' | '-')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_that_yaml_would_misread_are_quoted() {
        for plain in ["link \"Home\"", "button \"Save\" [disabled]", "Read the", "text", "3 items left", "a-b"] {
            assert_eq!(scalar(plain), plain);
        }
        for quoted in ["", " lead", "key: value", "a #comment", "- dash", "[x]", "true", "No", "12", "3.5", "0x1F", "12:30", "end:", "\"q\"", "tab\there"] {
            let s = scalar(quoted);
            assert!(s.starts_with('"') && s.ends_with('"'), "{quoted:?} → {s}");
            assert_eq!(serde_json::from_str::<String>(&s).ok().as_deref(), Some(quoted));
        }
    }

    /// A scalar as written: plain and safe, or double-quoted with only
    /// the escapes `scalar` writes.
    fn is_scalar(s: &str) -> bool {
        if let Some(inner) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => return false,
                    '\\' => match chars.next() {
                        Some('"' | '\\' | 'n' | 't' | 'r') => {}
                        Some('u') => {
                            if !(0..4).all(|_| chars.next().is_some_and(|h| h.is_ascii_hexdigit())) {
                                return false;
                            }
                        }
                        _ => return false,
                    },
                    _ => {}
                }
            }
            true
        } else {
            is_plain_safe(s)
        }
    }

    #[test]
    fn hostile_names_still_give_yaml_of_the_promised_shape() {
        let page = r##"<title>t</title><nav aria-label="key: value"><a href=/a>- dash</a> <a href=/b>#hash</a></nav>
<main><h1>Title: with colon</h1><h2>12</h2>
<p>Read the <a href=/t>"terms"</a> now: # not a comment</p>
<ul><li>true</li><li>plain item</li><li><a href=/x>a: b</a></li></ul>
<label>Email <input value="a: b # c" required></label><label>Secret <input type=password value=hunter2></label>
<button aria-label="tab	and
newline">x</button><select aria-label=Pick><option>yes<option selected>no</select>
<section aria-label="S"><div><div><p>deep <a href=/d>link</a></p></div></div></section></main>"##;
        let snap = crate::snapshot(page.as_bytes(), &Default::default(), &mut crate::RefTable::new());
        let out = yaml(&snap.tree, &snap.folded, &RenderOptions::default());
        assert!(!out.contains("hunter2"), "{out}");
        let mut prev_depth = 0usize;
        let mut opens = false;
        for (i, line) in out.lines().enumerate() {
            let body = line.trim_start_matches(' ');
            let pad = line.len() - body.len();
            assert!(pad % 2 == 0, "line {i} odd indent: {line:?}\n{out}");
            let depth = pad / 2;
            if body.starts_with("# ") {
                continue;
            }
            assert!(depth <= prev_depth + usize::from(opens), "line {i} nests under a line that opens nothing: {line:?}\n{out}");
            let entry = body.strip_prefix("- ").unwrap_or_else(|| panic!("line {i} is not an entry: {line:?}\n{out}"));
            // `key`, `key:`, or `key: value`, split at the first `: ` or
            // `:` outside quotes.
            let (key, rest) = if entry.starts_with('"') {
                let mut escaped = false;
                let end = entry.char_indices().skip(1).find(|&(_, c)| {
                    let close = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    close
                });
                let (at, _) = end.unwrap_or_else(|| panic!("line {i}: unclosed quote: {line:?}"));
                entry.split_at(at + 1)
            } else {
                match entry.find(": ") {
                    Some(at) => entry.split_at(at),
                    None => entry.strip_suffix(':').map_or((entry, ""), |k| (k, ":")),
                }
            };
            assert!(is_scalar(key), "line {i}: key {key:?} is not a safe scalar\n{out}");
            opens = rest == ":";
            if let Some(value) = rest.strip_prefix(": ") {
                assert!(is_scalar(value), "line {i}: value {value:?} is not a safe scalar\n{out}");
            } else {
                assert!(rest.is_empty() || opens, "line {i}: {rest:?} after the key\n{out}");
            }
            prev_depth = depth;
        }
        for want in [
            "- \"navigation \\\"key: value\\\"\":",
            "- link \"- dash\"",
            "- \"heading \\\"Title: with colon\\\" [level=1]\"",
            "- text: \"now: # not a comment\"",
            "- heading \"12\" [level=2]",
            "- listitem: \"true\"",
            "- textbox \"Email\" [required]: \"a: b # c\"",
            "- combobox \"Pick\": \"no\"",
        ] {
            assert!(out.lines().any(|l| l.trim_start() == want), "no {want:?} in:\n{out}");
        }
    }
}
