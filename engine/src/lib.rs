//! whittle's snapshot engine: HTML bytes in, the compact text observation a
//! model reads out. Pure and synchronous: no I/O, no async, no JSON-RPC, no
//! browser. It never panics on page data; what it had to recover from is
//! reported as [`Diagnostic`]s.
//!
//! The pipeline, one entry function and one output type per stage:
//!
//! | stage | function | output |
//! |---|---|---|
//! | parse | [`parse()`] | [`Document`] (arena, html5ever through our own `TreeSink`) |
//! | cascade | [`cascade`] | [`Styles`] (computed values, what is hidden) |
//! | layout | [`compute_layout`] | [`Layout`] (boxes, page height, what is in view) |
//! | conceal | [`conceal()`] | [`Concealment`] (what has a box but no person can read) |
//! | semantics | [`compute_semantics`] | [`Semantics`] (roles; names, states on demand) |
//! | tree | [`build_tree`] | [`AxTree`] (the semantic tree, refs assigned) |
//! | fold | [`fold()`] | [`Folded`] (the lines a mode and a token budget keep) |
//! | render | [`render()`] | [`Observation`] (the text) and [`Envelope`] (the structure) |
//!
//! [`snapshot`] runs them all:
//!
//! ```
//! use whittle_engine::{snapshot, RefTable, SnapshotOptions};
//! let html = br#"<title>Shop</title><nav aria-label="Primary"><a href="/">Home</a></nav>
//!                <main><h1>Shipping</h1><label>Email <input type=email required></label></main>"#;
//! let snap = snapshot(html, &SnapshotOptions::default(), &mut RefTable::new());
//! assert_eq!(
//!     snap.observation.text(),
//!     "# Shop\nnav \"Primary\"\n [1] link \"Home\"\nmain\n h1 Shipping\n [2] textbox \"Email\" required\n"
//! );
//! ```
//!
//! Refs come from a [`RefTable`] that outlives snapshots (the server keeps
//! one per session). A [`Document`] can be changed between snapshots with
//! its DOM-like mutation API ([`Document::create_html_element`],
//! [`Document::insert_before`], [`Document::detach`],
//! [`Document::set_attribute`], …); rendering it again keeps every
//! element's number, and new elements get new ones:
//!
//! ```
//! use whittle_engine::{snapshot, snapshot_document, RefTable, SnapshotOptions};
//! let options = SnapshotOptions::default();
//! let mut refs = RefTable::new();
//! let snap = snapshot(b"<a href=/a>A</a> <a href=/b id=b>B</a>", &options, &mut refs);
//! assert_eq!(snap.observation.text(), "#\n[1] link \"A\" [2] link \"B\"\n");
//! let mut doc = snap.document;
//! let b = doc.element_by_id("b").unwrap();
//! let first = doc.body().and_then(|body| doc.first_child(body)).unwrap();
//! doc.detach(first).unwrap();
//! let button = doc.create_html_element("button", &[("aria-label", "New")]).unwrap();
//! doc.insert_before(doc.parent(b).unwrap(), button, Some(b)).unwrap();
//! let snap = snapshot_document(doc, &options, &mut refs);
//! assert_eq!(snap.observation.text(), "#\n[3] button \"New\" [2] link \"B\"\n");
//! ```
//!
//! Acting on a page between snapshots is [`act`]'s: typing, checking,
//! choosing options and files change the document's form state; clicks
//! and Enter give what to fetch ([`Click::Navigate`], a [`Submission`] with
//! its exact request):
//!
//! ```
//! use whittle_engine::{snapshot, snapshot_document, type_text, implicit_submission, RefTable, SnapshotOptions};
//! let mut options = SnapshotOptions::default();
//! options.parse.url = url::Url::parse("https://shop.example/").ok();
//! let mut refs = RefTable::new();
//! let snap = snapshot(br#"<form action=/search><input name=q aria-label=Search></form>"#, &options, &mut refs);
//! assert_eq!(snap.observation.text(), "# shop.example\n[1] textbox \"Search\"\n");
//! let (_, field) = refs.resolve(1).unwrap();
//! let mut doc = snap.document;
//! type_text(&mut doc, field, "desk lamp", false).unwrap();
//! let sent = implicit_submission(&doc, field).unwrap();
//! assert_eq!(sent.request_url().as_str(), "https://shop.example/search?q=desk+lamp");
//! let snap = snapshot_document(doc, &options, &mut refs);
//! assert_eq!(snap.observation.text(), "# shop.example\n[1] textbox \"Search\" = \"desk lamp\"\n");
//! ```

#![forbid(unsafe_code)]

pub mod act;
pub mod capture;
pub mod diag;
pub mod diff;
pub mod digest;
pub mod dom;
pub mod extract;
pub mod find;
pub mod fold;
pub mod layout;
pub mod line;
pub mod parse;
pub mod render;
pub mod safety;
pub mod semantics;
pub mod style;
pub(crate) mod text;
pub mod tree;

pub use act::{
    ActError, Click, Enctype, Entry, EntryValue, FileEntry, Invalid, Method, Submission, Typed, choose_files, clear,
    click, close_dialog, implicit_submission, reset, select, set_checked, submit, type_text,
};
pub use capture::{Capture, CapturedKind, CapturedNode, Captured, from_capture};
pub use diag::{Diagnostic, Stage};
pub use diff::{Diff, DiffChoice, diff, diff_or_full};
pub use digest::meta::{Refresh, refresh};
pub use digest::{Digest, DigestOptions, MainContent, PageMeta, ScriptNeed, digest, main_content, result_links, script_need, with_main_content};
pub use dom::{Attr, ChosenFile, DocumentBuilder, Markup, Document, DocumentId, Edge, Element, FormState, MutationError, NodeData, NodeId, PlaceMap, Places};
pub use extract::{ExtractError, ExtractKind, Extracted, extract};
pub use find::{FindError, Found, find};
pub use fold::{FoldOptions, Folded, Mode, fold};
pub use layout::{Layout, LayoutOptions, Placement, Rect, compute_layout, style_and_layout};
pub use parse::{ParseOptions, parse, parse_str};
pub use safety::conceal::{Concealment, conceal, conceal_declared};
pub use line::{LineStyle, RenderOptions, compact_url};
pub use render::{Envelope, Observation, render};
pub use text::fnv1a;
pub use semantics::{AxNode, Semantics, compute_semantics};
pub use style::{
    COMPUTED_PROPERTIES, CascadeOptions, ComputedStyle, Selector, SelectorError, SheetCache, Styles, StylesheetText, Veil, Viewport, cascade, linked_stylesheet_urls, stylesheet_imports, MAX_IMPORT_DEPTH,
};
pub use text::collapse_whitespace;
pub use tree::{AxTree, RefTable, build_tree};

/// Options for every stage of a snapshot.
#[derive(Debug, Clone, Default)]
pub struct SnapshotOptions {
    /// Parsing.
    pub parse: ParseOptions,
    /// The cascade (and the viewport).
    pub cascade: CascadeOptions,
    /// Layout.
    pub layout: LayoutOptions,
    /// Folding: mode, budget, expanded ref.
    pub fold: FoldOptions,
    /// Rendering.
    pub render: RenderOptions,
}

/// Every stage's output for one page.
#[derive(Debug)]
pub struct Snapshot {
    /// The parsed page.
    pub document: Document,
    /// Its styles.
    pub styles: Styles,
    /// Its boxes.
    pub layout: Layout,
    /// What a person cannot see although it has a box.
    pub concealment: Concealment,
    /// Its roles.
    pub semantics: Semantics,
    /// The semantic tree.
    pub tree: AxTree,
    /// The lines chosen for the budget and mode.
    pub folded: Folded,
    /// The text observation.
    pub observation: Observation,
}

impl Snapshot {
    /// Every stage's diagnostics, in stage order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.document.diagnostics().iter().chain(self.styles.diagnostics()).chain(self.layout.diagnostics()).cloned().collect()
    }
}

/// A page with the stages its text needs, and no more: the cascade of its
/// inline styles and the sheets given (declared-hidden content concealed;
/// no layout) and its semantics. Digests, the main text and `whittle
/// extract`'s table and list rows all start here, so each reads a page
/// alike wherever it is called from (the command line, research, WARC
/// archives, Python).
#[derive(Debug)]
pub struct Analysed {
    /// The page.
    pub document: Document,
    /// Its cascade.
    pub styles: Styles,
    /// What its declarations hide from a person.
    pub concealment: Concealment,
    /// Its roles, names and states.
    pub semantics: Semantics,
}

impl Analysed {
    /// Cascades `document` with its inline styles and `sheets`, conceals
    /// what it declares hidden and computes its semantics.
    pub fn new(document: Document, sheets: Vec<StylesheetText>) -> Analysed {
        let styles = cascade(&document, &CascadeOptions { stylesheets: sheets, layout: false, ..CascadeOptions::default() });
        let concealment = conceal_declared(&document, &styles);
        let semantics = compute_semantics(&document, &styles, &concealment);
        Analysed { document, styles, concealment, semantics }
    }

    /// Its digest (see [`digest()`]).
    pub fn digest(&self, options: &DigestOptions) -> Digest {
        digest(&self.document, &self.styles, &self.concealment, &self.semantics, options)
    }

    /// Its main content as plain text, one block per line.
    pub fn main_text(&self) -> String {
        main_content(&self.document, &self.styles, &self.concealment, &self.semantics).text()
    }

    /// Every row of its largest table, its repeated items or its links
    /// (unpaged; [`ExtractKind::Text`] gives [`Analysed::main_text`]).
    pub fn extract(&self, kind: ExtractKind) -> Result<String, ExtractError> {
        if kind == ExtractKind::Text {
            return Ok(self.main_text());
        }
        let tree = build_tree(&self.document, &self.styles, &self.concealment, &self.semantics, &mut RefTable::new());
        extract(&self.document, &self.styles, &self.concealment, &self.semantics, &tree, kind, None, 0, false, u32::MAX).map(|e| e.text)
    }
}

/// Runs the whole pipeline on a page's bytes.
pub fn snapshot(bytes: &[u8], options: &SnapshotOptions, refs: &mut RefTable) -> Snapshot {
    let document = parse(bytes, &options.parse);
    snapshot_document(document, options, refs)
}

/// Runs the pipeline from an already parsed (and possibly mutated)
/// document.
///
/// Refs come from `refs`, keyed by the document's [`DocumentId`]: running
/// this again on the same document (take it back from
/// [`Snapshot::document`], change it, pass it in) gives every element the
/// number it had, and new elements new numbers. Several documents (tabs) may
/// share one table; call [`RefTable::forget`] with [`Document::id`] when a
/// document is dropped.
pub fn snapshot_document(document: Document, options: &SnapshotOptions, refs: &mut RefTable) -> Snapshot {
    let (styles, layout) = style_and_layout(&document, &options.cascade, &options.layout);
    let concealment = conceal(&document, &styles, &layout);
    let semantics = compute_semantics(&document, &styles, &concealment);
    let tree = build_tree(&document, &styles, &concealment, &semantics, refs);
    let fold_options = with_main_content(options.fold, &document, &styles, &concealment, &semantics);
    let folded = fold(&document, &tree, &layout, &fold_options, &options.render);
    let observation = render(&document, &folded);
    Snapshot { document, styles, layout, concealment, semantics, tree, folded, observation }
}
