//! One text form of a parsed tree, written alike from whittle's arena
//! [`Document`] and from html5ever's [`RcDom`], so that the two tree
//! builders can be compared line by line: by the `tree_builder` fuzz target
//! and by `tests/tree_identity.rs` on every corpus page. rcdom follows the
//! HTML spec's tree construction as html5ever implements it; whittle's sink
//! (`engine/src/dom/sink.rs`) must build the same tree.
//!
//! The form is html5lib-tests' tree format: a line per node, `| ` and two
//! spaces per depth; elements `<name>`, foreign ones `<svg name>` and
//! `<math name>`; attributes on the lines below their element, sorted, with
//! a namespace as a prefix word (`xlink href="…"`); text `"…"`; comments
//! `<!-- … -->`; a template's contents under a `content` line. Choices of
//! this form:
//!
//! - the first line is `#document`, then ` quirks` when the document is in
//!   quirks mode (the arena keeps a flag: limited quirks is no quirks);
//! - a doctype is `<!DOCTYPE>`: the arena keeps no name or identifiers
//!   (nothing in whittle reads them), so what is compared of a doctype is
//!   its place and the quirks mode it decided;
//! - adjacent text nodes are one line: whittle reads runs of text, not how
//!   a run is split into nodes;
//! - processing instructions (the HTML parser makes none) are `<?>`.
//!
//! Both walks use explicit stacks: pages nest 100,000 deep.

use std::fmt;

use html5ever::interface::QuirksMode;
use html5ever::{QualName, ns};
use markup5ever_rcdom::{Handle, RcDom};
use whittle_engine::{Document, NodeData, NodeId, ParseOptions};

/// Lines of context shown around the first difference.
const CONTEXT: usize = 3;

/// Diagnostics of the arena parse that say a cap changed the tree
/// (`engine/src/parse/depth.rs`, `engine/src/parse/attrs.rs`); the test
/// `caps_make_the_comparison_not_apply` in `tests/tree_identity.rs` fails
/// if their wording drifts.
const CAP_DIAGNOSTICS: [&str; 2] = ["nested deeper than", "attributes; the rest were dropped"];

/// The dump of whittle's tree.
pub fn arena_dump(doc: &Document) -> String {
    /// A node to write, or the `content` line of a template's fragment.
    enum Item {
        Node(NodeId, usize),
        Content(NodeId, usize),
    }
    let mut dump = Dump::new(doc.is_quirks());
    let mut stack = Vec::new();
    // Children go on the stack last first, so the first is written first.
    let push_children = |stack: &mut Vec<Item>, parent: NodeId, depth: usize| {
        let start = stack.len();
        stack.extend(doc.children(parent).map(|c| Item::Node(c, depth)));
        stack[start..].reverse();
    };
    push_children(&mut stack, NodeId::DOCUMENT, 0);
    while let Some(item) = stack.pop() {
        let (id, depth) = match item {
            Item::Content(fragment, depth) => {
                dump.line(depth, "content");
                push_children(&mut stack, fragment, depth + 1);
                continue;
            }
            Item::Node(id, depth) => (id, depth),
        };
        match &doc.node(id).data {
            // Roots are never children; written so a broken link shows.
            NodeData::Document => dump.line(depth, "#document"),
            NodeData::Fragment => dump.line(depth, "#document-fragment"),
            NodeData::Doctype => dump.line(depth, "<!DOCTYPE>"),
            NodeData::Text(t) => dump.text(depth, t),
            NodeData::Comment(c) => dump.comment(depth, c),
            NodeData::ProcessingInstruction => dump.line(depth, "<?>"),
            NodeData::Element(e) => {
                dump.element(depth, &e.name, e.attrs.iter().map(|a| (&a.name, a.value.as_str())));
                push_children(&mut stack, id, depth + 1);
                if let Some(fragment) = e.template_contents() {
                    stack.push(Item::Content(fragment, depth + 1));
                }
            }
        }
    }
    dump.finish()
}

/// The dump of html5ever's reference tree.
pub fn rcdom_dump(dom: &RcDom) -> String {
    use markup5ever_rcdom::NodeData;
    /// A node to write, or the `content` line of a template's fragment.
    enum Item {
        Node(Handle, usize),
        Content(Handle, usize),
    }
    let mut dump = Dump::new(dom.quirks_mode.get() == QuirksMode::Quirks);
    let mut stack = Vec::new();
    let push_children = |stack: &mut Vec<Item>, parent: &Handle, depth: usize| {
        stack.extend(parent.children.borrow().iter().rev().map(|c| Item::Node(c.clone(), depth)));
    };
    push_children(&mut stack, &dom.document, 0);
    while let Some(item) = stack.pop() {
        let (node, depth) = match item {
            Item::Content(fragment, depth) => {
                dump.line(depth, "content");
                push_children(&mut stack, &fragment, depth + 1);
                continue;
            }
            Item::Node(node, depth) => (node, depth),
        };
        match &node.data {
            NodeData::Document => dump.line(depth, "#document"),
            NodeData::Doctype { .. } => dump.line(depth, "<!DOCTYPE>"),
            NodeData::Text { contents } => dump.text(depth, &contents.borrow()),
            NodeData::Comment { contents } => dump.comment(depth, contents),
            NodeData::ProcessingInstruction { .. } => dump.line(depth, "<?>"),
            NodeData::Element { name, attrs, template_contents, .. } => {
                dump.element(depth, name, attrs.borrow().iter().map(|a| (&a.name, &*a.value)));
                push_children(&mut stack, &node, depth + 1);
                if let Some(fragment) = template_contents.borrow().as_ref() {
                    stack.push(Item::Content(fragment.clone(), depth + 1));
                }
            }
        }
    }
    dump.finish()
}

/// The dump being written.
struct Dump {
    out: String,
    /// Text not written yet, with its depth: the next text node at the same
    /// depth, if it comes next, is its sibling and joins it.
    text: Option<(usize, String)>,
}

impl Dump {
    fn new(quirks: bool) -> Dump {
        let out = if quirks { "#document quirks\n" } else { "#document\n" };
        Dump { out: out.to_owned(), text: None }
    }

    /// Starts a line at `depth`, after any pending text.
    fn start(&mut self, depth: usize) {
        self.flush_text();
        self.out.push_str("| ");
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn line(&mut self, depth: usize, s: &str) {
        self.start(depth);
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn text(&mut self, depth: usize, t: &str) {
        if let Some((d, pending)) = &mut self.text
            && *d == depth
        {
            pending.push_str(t);
            return;
        }
        self.flush_text();
        self.text = Some((depth, t.to_owned()));
    }

    fn flush_text(&mut self) {
        if let Some((depth, t)) = self.text.take() {
            self.start(depth);
            self.out.push('"');
            self.out.push_str(&t);
            self.out.push_str("\"\n");
        }
    }

    fn comment(&mut self, depth: usize, c: &str) {
        self.start(depth);
        self.out.push_str("<!-- ");
        self.out.push_str(c);
        self.out.push_str(" -->\n");
    }

    fn element<'a>(&mut self, depth: usize, name: &QualName, attrs: impl Iterator<Item = (&'a QualName, &'a str)>) {
        self.start(depth);
        self.out.push('<');
        if name.ns == ns!(svg) {
            self.out.push_str("svg ");
        } else if name.ns == ns!(mathml) {
            self.out.push_str("math ");
        } else if name.ns != ns!(html) {
            self.out.push_str(&name.ns);
            self.out.push(' ');
        }
        self.out.push_str(&name.local);
        self.out.push_str(">\n");
        let mut attrs: Vec<(String, &str)> = attrs.map(|(n, v)| (attr_name(n), v)).collect();
        attrs.sort_unstable();
        for (n, v) in attrs {
            self.start(depth + 1);
            self.out.push_str(&n);
            self.out.push_str("=\"");
            self.out.push_str(v);
            self.out.push_str("\"\n");
        }
    }

    fn finish(mut self) -> String {
        self.flush_text();
        self.out
    }
}

/// An attribute's name as html5lib-tests writes it: a namespace as a
/// prefix word.
fn attr_name(name: &QualName) -> String {
    let prefix = if name.ns == ns!() {
        return name.local.to_string();
    } else if name.ns == ns!(xlink) {
        "xlink"
    } else if name.ns == ns!(xml) {
        "xml"
    } else if name.ns == ns!(xmlns) {
        "xmlns"
    } else {
        &name.ns
    };
    format!("{prefix} {}", name.local)
}

/// What comparing the two tree builders on one text found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// The dumps are equal.
    Same,
    /// They differ.
    Differ(Difference),
    /// The arena parse applied one of its caps (nesting 512, attributes
    /// 1,000 per tag), so its tree differs from the spec's by design; the
    /// diagnostic says which.
    NotApplicable(String),
}

/// The first line where two dumps differ, with the lines around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The differing line's number (1-based).
    pub line: usize,
    /// The arena's dump from a few lines before it to a few after.
    pub arena: String,
    /// rcdom's dump, the same lines.
    pub rcdom: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "first difference at line {}\n-- arena:\n{}-- rcdom:\n{}", self.line, self.arena, self.rcdom)
    }
}

/// Parses `text` with whittle (`parse_str`: no decoding, default options)
/// and with html5ever into rcdom, and compares the dumps. rcdom is not
/// run when a cap applied: its answer would not be compared, and a page
/// past the caps is one whose parse html5ever makes quadratic.
pub fn compare(text: &str) -> Comparison {
    let doc = whittle_engine::parse_str(text, &ParseOptions::default());
    if let Some(cap) = doc.diagnostics().iter().find(|d| CAP_DIAGNOSTICS.iter().any(|c| d.message.contains(c))) {
        return Comparison::NotApplicable(cap.message.clone());
    }
    let arena = arena_dump(&doc);
    drop(doc);
    let rcdom = rcdom_dump(&rcdom_parse_str(text));
    match first_difference(&arena, &rcdom) {
        Some(d) => Comparison::Differ(d),
        None => Comparison::Same,
    }
}

/// html5ever into rcdom from text (the scripting flag and every other
/// option at html5ever's defaults, which are whittle's).
pub fn rcdom_parse_str(text: &str) -> RcDom {
    use html5ever::tendril::TendrilSink;
    html5ever::parse_document(RcDom::default(), Default::default()).one(text)
}

/// Where `arena` and `rcdom` first differ, if they do.
pub fn first_difference(arena: &str, rcdom: &str) -> Option<Difference> {
    if arena == rcdom {
        return None;
    }
    let (a, r): (Vec<&str>, Vec<&str>) = (arena.lines().collect(), rcdom.lines().collect());
    // Equal texts aside, some line differs or one dump has more lines.
    let at = a.iter().zip(&r).position(|(x, y)| x != y).unwrap_or(a.len().min(r.len()));
    let window = |lines: &[&str]| {
        let from = at.saturating_sub(CONTEXT);
        let to = (at + CONTEXT + 1).min(lines.len());
        lines.get(from..to).unwrap_or_default().iter().map(|l| format!("{l}\n")).collect::<String>()
    };
    Some(Difference { line: at + 1, arena: window(&a), rcdom: window(&r) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_html5lib_tree_format() {
        let text = "<!doctype html><p b=2 a=1>x<!--c--><svg xlink:href=u><g></g></svg><template>t</template>";
        let doc = whittle_engine::parse_str(text, &ParseOptions::default());
        let want = "#document\n| <!DOCTYPE>\n| <html>\n|   <head>\n|   <body>\n|     <p>\n|       a=\"1\"\n|       b=\"2\"\n\
                    |       \"x\"\n|       <!-- c -->\n|       <svg svg>\n|         xlink href=\"u\"\n|         <svg g>\n\
                    |       <template>\n|         content\n|           \"t\"\n";
        assert_eq!(arena_dump(&doc), want);
        assert_eq!(rcdom_dump(&rcdom_parse_str(text)), want);
    }

    #[test]
    fn quirks_mode_is_written() {
        assert!(arena_dump(&whittle_engine::parse_str("<p>", &ParseOptions::default())).starts_with("#document quirks\n"));
    }

    #[test]
    fn a_difference_names_its_line() {
        let d = first_difference("a\nb\nc\n", "a\nx\nc\n");
        assert_eq!(d.map(|d| d.line), Some(2));
        let shorter = first_difference("a\nb\n", "a\nb\nc\n");
        assert_eq!(shorter.map(|d| (d.line, d.arena, d.rcdom)), Some((3, "a\nb\n".into(), "a\nb\nc\n".into())));
    }
}
