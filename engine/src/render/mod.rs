//! Stage 5, `render`: the lines the fold stage kept ([`crate::fold()`]) as
//! the text observation of docs/observation.md, and the same facts as the
//! structured result ([`Envelope`]). How each line and the header read is
//! [`crate::line`]'s.

pub mod envelope;
pub mod yaml;

use crate::dom::Document;
use crate::fold::{Folded, Refs};
use crate::line::MAX_INDENT;
pub use envelope::{Envelope, ElementEntry};

/// The rendered observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The page title.
    pub title: String,
    /// The page URL (in full), if known.
    pub url: String,
    /// The header line.
    pub header: String,
    /// Notes about the page as a whole (`⚠ …`, `⚿ …`: whittle's words),
    /// printed after the header.
    pub notes: Vec<String>,
    /// The tree lines, indented.
    pub lines: Vec<String>,
    /// The refs each line shows, in order (one entry per line of
    /// [`Observation::lines`]; see [`crate::fold::Line::refs`]): what
    /// [`crate::diff()`] identifies lines by.
    pub line_refs: Vec<Refs>,
    /// The widgets the lines show (indices into [`AxTree::widgets`](crate::tree::AxTree::widgets)), in
    /// reading order: what was folded away or cut is not among them.
    pub widgets: Vec<usize>,
    /// Whether the budget cut lines off the end (a final `… +N more lines
    /// (budget)` line says how many).
    pub tree_truncated: bool,
    /// Whether that cut removed refs.
    pub marks_truncated: bool,
}

impl Observation {
    /// The whole observation: header and lines, newline-terminated.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.header.len() + self.lines.iter().map(|l| l.len() + 1).sum::<usize>() + 1);
        out.push_str(&self.header);
        out.push('\n');
        for l in self.notes.iter().chain(&self.lines) {
            out.push_str(l);
            out.push('\n');
        }
        out
    }

    /// The estimated o200k tokens of the whole observation (header and
    /// indented lines), counted as the fold stage counts them.
    pub fn tokens(&self) -> u32 {
        let lines: u32 = self
            .lines
            .iter()
            .map(|l| {
                let text = l.trim_start_matches(' ');
                crate::fold::tokens::line_cost(l.len() - text.len(), text)
            })
            .fold(0, u32::saturating_add);
        let notes: u32 = self.notes.iter().map(|n| crate::fold::tokens::line_cost(0, n)).fold(0, u32::saturating_add);
        crate::fold::tokens::line_cost(0, &self.header).saturating_add(notes).saturating_add(lines)
    }
}

/// Renders the observation of a page from its folded lines: the header,
/// then each line indented by its depth (capped at [`MAX_INDENT`]).
pub fn render(doc: &Document, folded: &Folded) -> Observation {
    let title = doc.title();
    let url = doc.url().map(|u| u.to_string()).unwrap_or_default();
    let lines = folded
        .lines
        .iter()
        .map(|l| {
            let indent = l.depth.min(MAX_INDENT);
            let mut line = String::with_capacity(indent + l.text.len());
            line.extend(std::iter::repeat_n(' ', indent));
            line.push_str(&l.text);
            line
        })
        .collect();
    Observation {
        title,
        url,
        header: folded.header.clone(),
        notes: folded.notes.clone(),
        lines,
        line_refs: folded.lines.iter().map(|l| l.refs.clone()).collect(),
        widgets: folded.widgets.clone(),
        tree_truncated: folded.tree_truncated,
        marks_truncated: folded.marks_truncated,
    }
}
