//! Stage 2, `cascade`: the Document and its stylesheets in, [`Styles`] out.
//!
//! Sheets, in cascade order: whittle's UA sheet (`ua.css`), then the page's
//! `<style>` elements and `<link rel=stylesheet>` sheets (whose text the
//! caller fetched and passes in) in tree order, then sheets the caller adds,
//! then `style` attributes. Precedence follows CSS Cascade 4 §6: origin and
//! importance, then specificity, then order of appearance.
//!
//! Besides computed values, the cascade decides what is hidden
//! ([`Hidden`]): `display:none`, `visibility:hidden|collapse`, the contents
//! of `content-visibility:hidden` elements, the contents of a closed
//! `<details>` other than its summary, and `<noscript>` when scripts are
//! assumed on. (`aria-hidden` hides from the accessibility tree, not from
//! the page; the semantics stage applies it.)

pub mod boxes;
pub mod paint;
mod computed;
mod custom;
mod index;
mod known;
mod media;
pub(crate) mod select;
mod sheet;
pub mod values;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use html5ever::local_name;
use selectors::bloom::BloomFilter;
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags,
};
use smallvec::SmallVec;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{Document, Edge, Element, NodeId};
use index::{IndexedRule, Origin, RuleIndex, Rules};
use media::MediaEnv;
use select::{ElementRef, Matcher, for_each_hash};
use custom::Customs;
use sheet::{DeclBlock, ParsedSheet, Sheets, has_var, imports_of, parse_inline, parse_sheet, parse_sheet_in, parse_substituted};
pub use computed::COMPUTED_PROPERTIES;
pub use select::{Selector, SelectorError};
pub use values::ContainerType;
use values::{
    Content, ContentVisibility, Decl, Display, FontSize, Overflow, Position, Property, TextTransform,
    Unparsed, Visibility, WhiteSpace, Wide, resolve_length,
};

/// The size of the screen the page is laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Viewport {
    /// CSS pixels.
    pub width: u32,
    /// CSS pixels.
    pub height: u32,
}

impl Default for Viewport {
    fn default() -> Viewport {
        Viewport { width: 1280, height: 800 }
    }
}

/// A stylesheet's text, fetched by the caller.
#[derive(Debug, Clone)]
pub struct StylesheetText {
    /// The absolute URL of a `<link rel=stylesheet>` this text belongs to;
    /// `None` for a sheet that applies after the page's own (a user sheet).
    pub url: Option<String>,
    /// The CSS.
    pub text: String,
}

/// What `cascade` needs besides the document.
#[derive(Debug, Clone)]
pub struct CascadeOptions {
    /// The viewport `@media` queries are evaluated against.
    pub viewport: Viewport,
    /// Fetched linked stylesheets and extra sheets.
    pub stylesheets: Vec<StylesheetText>,
    /// Whether scripts are assumed on (hides `<noscript>`; the
    /// `scripting` media feature).
    pub scripting: bool,
}

impl CascadeOptions {
    fn media_env(&self) -> MediaEnv {
        MediaEnv { width: self.viewport.width as f32, height: self.viewport.height as f32, scripting: self.scripting }
    }
}

impl Default for CascadeOptions {
    fn default() -> CascadeOptions {
        CascadeOptions { viewport: Viewport::default(), stylesheets: Vec::new(), scripting: true }
    }
}

/// The computed values whittle keeps for one node (text nodes carry their
/// parent's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComputedStyle {
    /// `display`.
    pub display: Display,
    /// `visibility`.
    pub visibility: Visibility,
    /// `content-visibility`.
    pub content_visibility: ContentVisibility,
    /// `position`.
    pub position: Position,
    /// `overflow-x`.
    pub overflow_x: Overflow,
    /// `overflow-y`.
    pub overflow_y: Overflow,
    /// `opacity`.
    pub opacity: f32,
    /// `font-size` in px.
    pub font_size: f32,
    /// `white-space`.
    pub white_space: WhiteSpace,
    /// `text-transform`.
    pub text_transform: TextTransform,
    /// `color`; `None` when whittle could not read it.
    pub color: Option<paint::Rgba>,
    /// `background-color`; `None` when whittle could not read it.
    pub background_color: Option<paint::Rgba>,
    /// Whether `background-image` paints something.
    pub background_image: bool,
    /// Whether `clip` leaves no area (it applies to positioned boxes).
    pub clip_empty: bool,
    /// Whether `clip-path` clips everything away.
    pub clip_path_empty: bool,
    /// Whether `text-indent` pushes the text out of sight.
    pub text_indent_far: bool,
}

impl Default for ComputedStyle {
    fn default() -> ComputedStyle {
        ComputedStyle {
            display: Display::Inline,
            visibility: Visibility::Visible,
            content_visibility: ContentVisibility::Visible,
            position: Position::Static,
            overflow_x: Overflow::Visible,
            overflow_y: Overflow::Visible,
            opacity: 1.0,
            font_size: 16.0,
            white_space: WhiteSpace::Normal,
            text_transform: TextTransform::None,
            color: Some(paint::BLACK),
            background_color: Some(paint::TRANSPARENT),
            background_image: false,
            clip_empty: false,
            clip_path_empty: false,
            text_indent_far: false,
        }
    }
}

impl ComputedStyle {
    /// Sets the property a keyword-valued declaration (or opacity) gives;
    /// `false` for the others (font sizes, content, box properties,
    /// CSS-wide keywords), which need context.
    #[inline]
    pub(crate) fn set_keyword(&mut self, decl: &Decl) -> bool {
        match *decl {
            Decl::Display(d) => self.display = d,
            Decl::Visibility(v) => self.visibility = v,
            Decl::ContentVisibility(v) => self.content_visibility = v,
            Decl::Position(p) => self.position = p,
            Decl::OverflowX(o) => self.overflow_x = o,
            Decl::OverflowY(o) => self.overflow_y = o,
            Decl::Opacity(o) => self.opacity = o,
            Decl::WhiteSpace(w) => self.white_space = w,
            Decl::TextTransform(t) => self.text_transform = t,
            Decl::Color(c) => self.color = c,
            Decl::BackgroundColor(c) => self.background_color = c,
            Decl::BackgroundImage(i) => self.background_image = i,
            Decl::Clip(c) => self.clip_empty = c,
            Decl::ClipPath(c) => self.clip_path_empty = c,
            Decl::TextIndentFar(f) => self.text_indent_far = f,
            _ => return false,
        }
        true
    }

    /// Initial values, with the inherited properties taken from `parent`.
    pub(crate) fn inheriting(parent: &ComputedStyle) -> ComputedStyle {
        ComputedStyle {
            visibility: parent.visibility,
            font_size: parent.font_size,
            white_space: parent.white_space,
            text_transform: parent.text_transform,
            color: parent.color,
            text_indent_far: parent.text_indent_far,
            ..ComputedStyle::default()
        }
    }
}

/// A `::before` or `::after` box.
#[derive(Debug, Clone, PartialEq)]
pub struct PseudoStyle {
    /// Its `display`.
    pub display: Display,
    /// Its generated content.
    pub content: Content,
}

/// Why a node is not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hidden {
    /// `display: none` on it or an ancestor (also `<noscript>` with
    /// scripts on, and nodes outside the document such as template
    /// contents).
    DisplayNone,
    /// Inside a `content-visibility: hidden` element or a closed
    /// `<details>`.
    Skipped,
    /// `visibility: hidden` or `collapse`.
    Invisible,
}

/// The page's own stylesheet hiding the whole page on a page with
/// scripts: `display: none` or `visibility: hidden` on the root element or
/// the body, from an author rule the page's script lifts — an
/// anti-clickjacking guard (`html { display: none }` until a frame-busting
/// script shows the page) or an anti-flicker snippet (`body { visibility:
/// hidden }` until a script removes the rule). The cascade sets that rule
/// aside, so the page is computed as its script leaves it, and says so
/// here. (`opacity: 0` needs no lifting: faded content is shown anyway.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Veil {
    /// The root element or the body.
    pub element: NodeId,
    /// How the rule hid it: [`Hidden::DisplayNone`] or [`Hidden::Invisible`].
    pub hid: Hidden,
}

const NONE: u8 = 1;
const SKIPPED: u8 = 2;
const INVISIBLE: u8 = 4;

/// The cascade's result: a computed style and visibility per node, the
/// generated content of `::before`/`::after`, and diagnostics.
#[derive(Debug)]
pub struct Styles {
    styles: Vec<ComputedStyle>,
    flags: Vec<u8>,
    before: HashMap<NodeId, PseudoStyle>,
    after: HashMap<NodeId, PseudoStyle>,
    /// Box declarations of the elements that have any.
    boxes: Vec<Option<boxes::BoxDecls>>,
    viewport: Viewport,
    diagnostics: Vec<Diagnostic>,
    veil: Option<Veil>,
    /// The size containers, when `@container` size queries ask about them.
    size_containers: Vec<(NodeId, ContainerType)>,
    /// The rules read, kept when size queries need a second pass.
    rules: Option<Arc<ReadRules>>,
}

impl Styles {
    /// The elements that are size containers (`container-type`), in tree
    /// order, when the page has `@container` size queries; empty
    /// otherwise. Their sizes after layout are what [`cascade_sized`]
    /// evaluates the queries against.
    pub fn size_containers(&self) -> &[(NodeId, ContainerType)] {
        &self.size_containers
    }

    /// The computed style of a node.
    #[inline]
    pub fn get(&self, id: NodeId) -> &ComputedStyle {
        &self.styles[id.index()]
    }

    /// Why the node is hidden, if it is.
    #[inline]
    pub fn hidden(&self, id: NodeId) -> Option<Hidden> {
        let f = self.flags[id.index()];
        if f & NONE != 0 {
            Some(Hidden::DisplayNone)
        } else if f & SKIPPED != 0 {
            Some(Hidden::Skipped)
        } else if f & INVISIBLE != 0 {
            Some(Hidden::Invisible)
        } else {
            None
        }
    }

    /// Whether the node is shown.
    #[inline]
    pub fn is_visible(&self, id: NodeId) -> bool {
        self.flags[id.index()] == 0
    }

    /// Whether the node has no box at all (`display: none` on it or an
    /// ancestor): unlike `visibility: hidden`, nothing below it can show.
    #[inline]
    pub fn is_display_none(&self, id: NodeId) -> bool {
        self.flags[id.index()] & (NONE | SKIPPED) != 0
    }

    /// The element's `::before` box, if it has generated content.
    pub fn before(&self, id: NodeId) -> Option<&PseudoStyle> {
        self.before.get(&id)
    }

    /// The element's `::after` box, if it has generated content.
    pub fn after(&self, id: NodeId) -> Option<&PseudoStyle> {
        self.after.get(&id)
    }

    /// The box declarations that won for the element (sizes, margins,
    /// flex and grid fields, …), empty when it has none.
    pub fn box_decls(&self, id: NodeId) -> &[(boxes::BoxProp, boxes::BoxValue)] {
        self.boxes.get(id.index()).and_then(|b| b.as_deref()).unwrap_or(&[])
    }

    /// The viewport the cascade was computed for.
    pub fn viewport(&self) -> Viewport {
        self.viewport
    }

    /// The rule that hid the whole page until a script showed it, set
    /// aside by the cascade (see [`Veil`]).
    pub fn veil(&self) -> Option<Veil> {
        self.veil
    }

    /// What the cascade noticed (unreadable rules, …).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// A plain-text dump: one line per element in tree order with its
    /// display and, when hidden, why.
    pub fn dump(&self, doc: &Document) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let mut depth = 0usize;
        for edge in doc.traverse(NodeId::DOCUMENT) {
            match edge {
                Edge::Open(id) => {
                    if let Some(e) = doc.element(id) {
                        let s = self.get(id);
                        let _ = write!(out, "{}{} {:?}", "  ".repeat(depth), e.local_name(), s.display);
                        if let Some(h) = self.hidden(id) {
                            let _ = write!(out, " hidden:{h:?}");
                        }
                        if let Some(p) = self.before(id) {
                            let _ = write!(out, " ::before={:?}", p.content);
                        }
                        if let Some(p) = self.after(id) {
                            let _ = write!(out, " ::after={:?}", p.content);
                        }
                        out.push('\n');
                        depth += 1;
                    }
                }
                Edge::Close(id) => {
                    if doc.element(id).is_some() {
                        depth -= 1;
                    }
                }
            }
        }
        out
    }
}

/// Where an author sheet comes from.
enum SheetSource {
    /// A `<style>` element.
    Inline(NodeId),
    /// `options.stylesheets[i]`, linked from the page.
    Linked(usize),
}

/// The UA sheet, read once per process.
fn ua_sheet() -> &'static ParsedSheet {
    static UA: OnceLock<ParsedSheet> = OnceLock::new();
    UA.get_or_init(|| {
        // The UA sheet has no media queries; the environment does not matter.
        let env = MediaEnv { width: 1280.0, height: 800.0, scripting: true };
        parse_sheet(include_str!("ua.css"), &env)
    })
}

/// Whether a `<link>` is a stylesheet that applies.
fn is_stylesheet_link(e: &Element) -> bool {
    e.is_html(&local_name!("link"))
        && e.attr("rel").is_some_and(|rel| {
            let mut sheet = false;
            for token in crate::text::split_html_space(rel) {
                if token.eq_ignore_ascii_case("stylesheet") {
                    sheet = true;
                } else if token.eq_ignore_ascii_case("alternate") {
                    return false;
                }
            }
            sheet
        })
        && !e.has_attr("disabled")
}

/// The absolute URLs of the stylesheets the page itself names and that
/// apply, in tree order: the sheets it links to (`rel=stylesheet`, not
/// `alternate`, not `disabled`, `media` matching the viewport) and those its
/// `<style>` elements `@import`. This is what a caller should fetch and pass
/// back in [`CascadeOptions::stylesheets`], then the imports of what it
/// fetched ([`stylesheet_imports`]), until none are new.
pub fn linked_stylesheet_urls(doc: &Document, options: &CascadeOptions) -> Vec<url::Url> {
    let env = options.media_env();
    let mut urls = Vec::new();
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(e) = doc.element(id) else { continue };
        if !e.attr("media").is_none_or(|m| media::matches_media_list(m, &env)) {
            continue;
        }
        if is_style_element(e) {
            urls.extend(imports_of(&style_text(doc, id), doc.base_url(), &env));
        } else if is_stylesheet_link(e)
            && let Some(url) = e.attr("href").and_then(|h| doc.resolve_url(h))
        {
            urls.push(url);
        }
    }
    urls
}

/// The absolute URLs a fetched stylesheet imports that apply (its
/// `@import` rules whose media and `supports()` conditions hold), in order,
/// resolved against the sheet's own URL. Imports nest at most
/// [`MAX_IMPORT_DEPTH`] deep in the cascade; a caller following them need
/// not go further.
pub fn stylesheet_imports(sheet: &StylesheetText, options: &CascadeOptions) -> Vec<url::Url> {
    let base = sheet.url.as_deref().and_then(|u| url::Url::parse(u).ok());
    imports_of(&sheet.text, base.as_ref(), &options.media_env())
}

pub use sheet::MAX_IMPORT_DEPTH;

/// A `<style>`'s own text: its text children, not its descendants.
fn style_text(doc: &Document, id: NodeId) -> String {
    doc.children(id).filter_map(|c| doc.text(c)).collect()
}

/// Whether an element is a `<style>` sheet (HTML or SVG, type CSS).
fn is_style_element(e: &Element) -> bool {
    e.local_name() == &local_name!("style")
        && (e.is_html_element() || e.namespace() == &html5ever::ns!(svg))
        && e.attr("type").is_none_or(|t| t.trim().is_empty() || t.trim().eq_ignore_ascii_case("text/css"))
}

/// Runs the cascade.
///
/// ```
/// use whittle_engine::{parse, cascade};
/// let doc = parse(b"<style>.x{display:none}</style><p class=x>a<p>b", &Default::default());
/// let styles = cascade(&doc, &Default::default());
/// let hidden = doc.descendants(doc.body().unwrap()).filter(|&n| styles.hidden(n).is_some()).count();
/// assert_eq!(hidden, 2); // the first <p> and its text
/// ```
pub fn cascade(doc: &Document, options: &CascadeOptions) -> Styles {
    let rules = Arc::new(read_rules(doc, options));
    run_cascade(doc, options, &rules, None)
}

/// The cascade again, `first` its result for the same document and
/// options, with `@container` size queries evaluated against
/// `container_sizes` (found by laying out `first`; see
/// [`Styles::size_containers`]). The stylesheets `first` read are not read
/// again.
pub fn cascade_sized(doc: &Document, options: &CascadeOptions, first: &Styles, container_sizes: &ContainerSizes) -> Styles {
    let rules = match &first.rules {
        Some(rules) => Arc::clone(rules),
        None => Arc::new(read_rules(doc, options)),
    };
    run_cascade(doc, options, &rules, Some(container_sizes))
}

/// The rules of every sheet of a document, filed, and what reading them
/// noticed.
#[derive(Debug)]
struct ReadRules {
    rules: Rules,
    diagnostics: Vec<Diagnostic>,
    /// Whether custom properties are tracked (see [`Cascader::customs`]).
    uses_customs: bool,
}

/// Reads the UA sheet, the document's sheets and the caller's, and files
/// their rules.
fn read_rules(doc: &Document, options: &CascadeOptions) -> ReadRules {
    let env = options.media_env();
    let mut diagnostics = Vec::new();
    let mut rules = Rules::default();
    rules.add_sheet(ua_sheet(), Origin::UserAgent, doc.is_quirks(), |_| 0, false);

    // Author sheets in tree order. A sheet linked several times is read
    // once and filed where it is linked last: identical rules later in the
    // cascade win anyway, so the result is the same.
    let mut invalid_rules = 0usize;
    let mut sources: Vec<SheetSource> = Vec::new();
    let mut last_link: HashMap<usize, usize> = HashMap::new();
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(e) = doc.element(id) else { continue };
        let applies = |e: &Element| e.attr("media").is_none_or(|m| media::matches_media_list(m, &env));
        if is_style_element(e) {
            if applies(e) {
                sources.push(SheetSource::Inline(id));
            }
        } else if is_stylesheet_link(e) && applies(e) {
            let url = e.attr("href").and_then(|h| doc.resolve_url(h)).map(String::from);
            let found = url.and_then(|u| options.stylesheets.iter().position(|s| s.url.as_deref() == Some(u.as_str())));
            if let Some(i) = found {
                last_link.insert(i, sources.len());
                sources.push(SheetSource::Linked(i));
            }
        }
    }
    // Every given sheet with a URL can be imported by that URL.
    let mut sheets = Sheets::default();
    for s in &options.stylesheets {
        if let Some(url) = &s.url {
            sheets.by_url.entry(url.as_str()).or_insert(s.text.as_str());
        }
    }
    let doc_base = doc.base_url();
    let mut parsed = Vec::new();
    for (at, source) in sources.iter().enumerate() {
        let sheet = match *source {
            SheetSource::Inline(id) => parse_sheet_in(&style_text(doc, id), doc_base, &env, &mut sheets),
            SheetSource::Linked(i) if last_link.get(&i) == Some(&at) => {
                let s = &options.stylesheets[i];
                let base = s.url.as_deref().and_then(|u| url::Url::parse(u).ok());
                parse_sheet_in(&s.text, base.as_ref(), &env, &mut sheets)
            }
            SheetSource::Linked(_) => continue,
        };
        parsed.push(sheet);
    }
    for s in &options.stylesheets {
        if s.url.is_none() {
            parsed.push(parse_sheet_in(&s.text, None, &env, &mut sheets));
        }
    }
    // Layers are ranked once every sheet has declared its own.
    let (ranks, unlayered) = sheets.layers.ranks();
    let rank = |layer: Option<u32>| layer.map_or(unlayered, |l| ranks[l as usize]);
    // Custom properties matter when a property whittle computes uses
    // var(); otherwise rules that only set them are not even filed.
    let uses_var = parsed.iter().any(|sheet| {
        sheet.rules.iter().any(|r| r.block.normal.iter().chain(&r.block.important).any(|d| matches!(d, Decl::Pending(_))))
    }) || doc.descendants(NodeId::DOCUMENT).any(|n| doc.element(n).and_then(|e| e.attr("style")).is_some_and(has_var));
    let style_queries = parsed.iter().any(|sheet| {
        sheet.rules.iter().any(|r| {
            std::iter::successors(r.container.as_deref(), |c| c.outer.as_deref()).any(sheet::ContainerRule::is_style_query)
        })
    });
    let uses_customs = uses_var || style_queries;
    for sheet in &parsed {
        invalid_rules += sheet.invalid_rules;
        rules.add_sheet(sheet, Origin::Author, doc.is_quirks(), rank, uses_customs);
    }
    rules.unlayered = unlayered;
    if invalid_rules > 0 {
        diagnostics.push(Diagnostic::new(Stage::Cascade, format!("{invalid_rules} CSS rules could not be read and were dropped")));
    }
    if sheets.missing > 0 {
        diagnostics.push(Diagnostic::new(
            Stage::Cascade,
            format!("{} imported stylesheets were not loaded and were skipped", sheets.missing),
        ));
    }
    if sheets.cut > 0 {
        diagnostics.push(Diagnostic::new(
            Stage::Cascade,
            format!(
                "{} @import rules were not followed (a cycle, nesting deeper than {}, or more than {} imports)",
                sheets.cut,
                sheet::MAX_IMPORT_DEPTH,
                sheet::MAX_IMPORTS
            ),
        ));
    }

    ReadRules { rules, diagnostics, uses_customs }
}

/// Runs the cascade on rules [`read_rules`] filed.
fn run_cascade(doc: &Document, options: &CascadeOptions, read: &Arc<ReadRules>, container_sizes: Option<&ContainerSizes>) -> Styles {
    let env = options.media_env();
    let ReadRules { rules, diagnostics, uses_customs } = &**read;
    let mut out = Styles {
        styles: vec![ComputedStyle::default(); doc.len()],
        flags: vec![NONE; doc.len()],
        before: HashMap::new(),
        after: HashMap::new(),
        boxes: vec![None; doc.len()],
        viewport: options.viewport,
        diagnostics: diagnostics.clone(),
        veil: None,
        size_containers: Vec::new(),
        rules: None,
    };
    let mut cascader = Cascader {
        doc,
        rules,
        env: &env,
        scripting: options.scripting,
        matcher: Matcher::new(doc),
        root_font_size: 16.0,
        veil: None,
        has_script: None,
        customs: if *uses_customs { vec![None; doc.len()] } else { Vec::new() },
        custom_cut: custom::Cut::default(),
        container_sizes,
        containers: HashMap::new(),
        container_cache: HashMap::new(),
    };
    cascader.run(&mut out);
    if rules.size_queries {
        let mut containers: Vec<(NodeId, ContainerType)> = cascader.containers.iter().map(|(&id, &(t, _))| (id, t)).collect();
        containers.sort_unstable_by_key(|&(id, _)| id.index());
        if container_sizes.is_none() && !containers.is_empty() {
            out.diagnostics.push(Diagnostic::new(
                Stage::Cascade,
                "@container size queries were not evaluated (they need the layout's sizes): their rules were not applied",
            ));
        }
        out.size_containers = containers;
        if !out.size_containers.is_empty() {
            // Kept for the second pass (`cascade_sized`).
            out.rules = Some(Arc::clone(read));
        }
    }
    let custom::Cut { too_deep, too_long } = cascader.custom_cut;
    if too_deep + too_long > 0 {
        out.diagnostics.push(Diagnostic::new(
            Stage::Cascade,
            format!(
                "{} custom properties were not substituted (var() references chained deeper than {}, or values past {} KiB): they count as not set",
                too_deep + too_long,
                custom::MAX_DEPTH,
                custom::MAX_VALUE_BYTES / 1024
            ),
        ));
    }
    if let Some(veil) = cascader.veil {
        out.veil = Some(veil);
        let how = if veil.hid == Hidden::DisplayNone { "display: none" } else { "visibility: hidden" };
        out.diagnostics.push(Diagnostic::new(
            Stage::Cascade,
            format!("the page's stylesheet hides the whole page ({how}) until its script shows it: that rule was set aside"),
        ));
    }
    cascader.matcher.state.reset();
    let cut = cascader.matcher.state.cut_elements.get();
    if cut > 0 {
        out.diagnostics.push(Diagnostic::new(
            Stage::Cascade,
            format!("selector matching hit its work limit on {cut} elements; some complex selectors were not applied there"),
        ));
    }
    out
}

struct Cascader<'a> {
    doc: &'a Document,
    rules: &'a Rules,
    env: &'a MediaEnv,
    scripting: bool,
    matcher: Matcher,
    root_font_size: f32,
    /// The rule set aside that hid the whole page.
    veil: Option<Veil>,
    /// Whether the page has a script (found when first asked).
    has_script: Option<bool>,
    /// Each element's custom properties; empty when no property whittle
    /// computes uses `var()`.
    customs: Vec<Option<Arc<Customs>>>,
    /// What substitution gave up on.
    custom_cut: custom::Cut,
    /// The content-box sizes of the size containers, from a first layout.
    container_sizes: Option<&'a ContainerSizes>,
    /// The size containers seen so far: their type and names.
    containers: HashMap<NodeId, (ContainerType, Arc<[Box<str>]>)>,
    /// Size queries evaluated, by container and rule.
    container_cache: HashMap<(NodeId, usize), bool>,
}

/// The content-box width and, for `container-type: size`, height of each
/// size container, in CSS px.
pub type ContainerSizes = HashMap<NodeId, (f32, Option<f32>)>;

/// One block of declarations that matched, with its cascade sort key:
/// origin and importance, layer, specificity, order.
type Matched<'a> = (u8, u32, u32, u32, &'a [Decl]);

impl Cascader<'_> {
    fn run(&mut self, out: &mut Styles) {
        let doc = self.doc;
        let mut bloom = BloomFilter::new();
        let mut walk = doc.traverse(NodeId::DOCUMENT);
        let mut inline_blocks: Vec<DeclBlock> = Vec::new();
        out.flags[NodeId::DOCUMENT.index()] = 0;
        // Which child of a closed <details> is its summary.
        let mut details_summary: HashMap<NodeId, Option<NodeId>> = HashMap::new();
        while let Some(edge) = walk.next() {
            match edge {
                Edge::Open(id) => {
                    if id == NodeId::DOCUMENT {
                        continue;
                    }
                    let parent = doc.parent(id).unwrap_or(NodeId::DOCUMENT);
                    let parent_style = out.styles[parent.index()];
                    let mut flags = out.flags[parent.index()] & !INVISIBLE;
                    let parent_el = doc.element(parent);
                    if parent_el.is_some() && parent_style.content_visibility == ContentVisibility::Hidden {
                        flags |= SKIPPED;
                    }
                    if let Some(p) = parent_el
                        && p.is_html(&local_name!("details"))
                        && !p.has_attr("open")
                    {
                        let summary = *details_summary.entry(parent).or_insert_with(|| {
                            doc.element_children(parent)
                                .find(|&c| doc.element(c).is_some_and(|e| e.is_html(&local_name!("summary"))))
                        });
                        if summary != Some(id) {
                            flags |= SKIPPED;
                        }
                    }
                    let Some(e) = doc.element(id) else {
                        // Text and other nodes: the parent's style.
                        out.styles[id.index()] = parent_style;
                        if parent_style.visibility != Visibility::Visible {
                            flags |= INVISIBLE;
                        }
                        out.flags[id.index()] = flags;
                        continue;
                    };
                    if flags & NONE != 0 {
                        // Inside display:none: no matching needed.
                        out.styles[id.index()] = ComputedStyle { display: Display::None, ..ComputedStyle::inheriting(&parent_style) };
                        out.flags[id.index()] = flags;
                        for d in doc.descendants(id).skip(1) {
                            out.styles[d.index()] = out.styles[id.index()];
                            out.flags[d.index()] = flags;
                        }
                        walk.skip_children(id);
                        continue;
                    }
                    let (style, box_decls) =
                        self.compute(id, e, &parent_style, out.box_decls(parent), &bloom, &mut inline_blocks);
                    out.boxes[id.index()] = box_decls;
                    if style.display == Display::None
                        || (self.scripting && e.is_html(&local_name!("noscript")))
                    {
                        flags |= NONE;
                    }
                    if style.visibility != Visibility::Visible {
                        flags |= INVISIBLE;
                    }
                    if parent == NodeId::DOCUMENT {
                        self.root_font_size = style.font_size;
                    }
                    out.styles[id.index()] = style;
                    out.flags[id.index()] = flags;
                    if flags & NONE == 0 {
                        self.pseudo(id, &bloom, out);
                    }
                    for_each_hash(e, |h| bloom.insert_hash(h));
                }
                Edge::Close(id) => {
                    // Elements were matched (and their hashes pushed) unless
                    // they sat inside a display:none subtree.
                    if let Some(e) = doc.element(id)
                        && doc.parent(id).is_some_and(|p| out.flags[p.index()] & NONE == 0)
                    {
                        for_each_hash(e, |h| bloom.remove_hash(h));
                    }
                }
            }
        }
    }

    /// Collects the declaration blocks of the rules in `index` that match
    /// `id`, with their cascade sort keys.
    fn matching<'r>(
        &mut self,
        index: &'r RuleIndex,
        id: NodeId,
        e: &Element,
        bloom: &BloomFilter,
        mode: MatchingMode,
        out: &mut SmallVec<[Matched<'r>; 16]>,
    ) {
        let doc = self.doc;
        let quirks = doc.is_quirks();
        let unlayered = self.rules.unlayered;
        let mut hits: SmallVec<[&'r IndexedRule; 16]> = SmallVec::new();
        let Matcher { caches, quirks: quirks_mode, state } = &mut self.matcher;
        let element = ElementRef::new(doc, id, state);
        index.candidates(e, quirks, |rule: &'r IndexedRule| {
            // Out of budget: skip author rules (UA rules need no walks).
            if state.is_cut() && rule.origin == Origin::Author {
                return;
            }
            let mut ctx = MatchingContext::new(
                mode,
                Some(bloom),
                caches,
                *quirks_mode,
                NeedsSelectorFlags::No,
                MatchingForInvalidation::No,
            );
            let matched = selectors::matching::matches_selector(&rule.selector, 0, Some(&rule.hashes), element, &mut ctx);
            // A match decided after a refused walk is not trusted.
            if matched && !state.is_cut() {
                hits.push(rule);
            }
        });
        for rule in hits {
            if let Some(container) = &rule.container
                && !self.container_holds(id, container)
            {
                continue;
            }
            let (normal, important) = match rule.origin {
                Origin::UserAgent => (0, 3),
                Origin::Author => (1, 2),
            };
            if !rule.block.normal.is_empty() {
                out.push((normal, rule.layer, rule.specificity, rule.order, &rule.block.normal));
            }
            if !rule.block.important.is_empty() {
                // Important declarations of earlier layers win.
                let layer = unlayered.saturating_sub(rule.layer);
                out.push((important, layer, rule.specificity, rule.order, &rule.block.important));
            }
        }
    }

    /// Whether an `@container` condition (and those it is nested in) holds
    /// for element `id`: a size query against the nearest ancestor size
    /// container of the name asked for, as big as layout found it (not
    /// known on the first pass: false); a `style()` query against the
    /// parent's custom properties.
    fn container_holds(&mut self, id: NodeId, rule: &sheet::ContainerRule) -> bool {
        let mut at = Some(rule);
        while let Some(rule) = at {
            let holds = if rule.is_style_query() {
                let parent = self.doc.parent(id).and_then(|p| self.customs.get(p.index()).cloned().flatten());
                custom::style_query(&rule.query, parent.as_ref())
            } else {
                self.size_query_holds(id, rule)
            };
            if !holds {
                return false;
            }
            at = rule.outer.as_deref();
        }
        true
    }

    fn size_query_holds(&mut self, id: NodeId, rule: &sheet::ContainerRule) -> bool {
        let Some(sizes) = self.container_sizes else { return false };
        let container = self.doc.ancestors(id).find(|a| {
            self.containers.get(a).is_some_and(|(_, names)| rule.name.as_ref().is_none_or(|n| names.contains(n)))
        });
        let Some(container) = container else { return false };
        let key = (container, rule as *const sheet::ContainerRule as usize);
        if let Some(&holds) = self.container_cache.get(&key) {
            return holds;
        }
        let holds = sizes.get(&container).is_some_and(|&(width, height)| {
            let env = MediaEnv { width, height: height.unwrap_or(f32::NAN), scripting: self.scripting };
            media::matches_media_list(&rule.query, &env)
        });
        self.container_cache.insert(key, holds);
        holds
    }

    fn compute(
        &mut self,
        id: NodeId,
        e: &Element,
        parent: &ComputedStyle,
        parent_boxes: &[(boxes::BoxProp, boxes::BoxValue)],
        bloom: &BloomFilter,
        inline_blocks: &mut Vec<DeclBlock>,
    ) -> (ComputedStyle, Option<boxes::BoxDecls>) {
        let rules = self.rules;
        if rules.has_relative {
            // `:has()` keeps a subtree filter per anchor it looked at twice
            // (4 KiB each): kept for one element's rules, not the page's.
            // A result found after a refused walk may be wrong: not kept.
            let caches = &mut self.matcher.caches;
            caches.relative_selector_filter_map = Default::default();
            if self.matcher.state.is_cut() {
                caches.relative_selector = Default::default();
            }
        }
        self.matcher.state.reset();
        let mut matched: SmallVec<[Matched<'_>; 16]> = SmallVec::new();
        self.matching(&rules.element, id, e, bloom, MatchingMode::Normal, &mut matched);
        inline_blocks.clear();
        if let Some(style_attr) = e.attr("style") {
            inline_blocks.push(parse_inline(style_attr));
        }
        if let Some(inline) = inline_blocks.first() {
            // The style attribute beats every layer (CSS Cascade 5 §6.3).
            matched.push((1, u32::MAX, u32::MAX, u32::MAX, &inline.normal));
            matched.push((2, u32::MAX, u32::MAX, u32::MAX, &inline.important));
        }
        matched.sort_unstable_by_key(|&(level, layer, spec, order, _)| (level, layer, spec, order));
        let mut style = ComputedStyle::inheriting(parent);
        // `revert` in an author rule goes back to what the UA sheet gave.
        let mut ua = style;
        let mut ua_done = false;
        let mut box_decls: SmallVec<[(boxes::BoxProp, boxes::BoxValue); 8]> = SmallVec::new();
        // line-height is inherited: start from the parent's.
        if let Some(lh) = parent_boxes.iter().find(|(p, _)| *p == boxes::BoxProp::LineHeight) {
            box_decls.push(lh.clone());
        }
        let customs = self.element_customs(id, &matched);
        let mut substituted = Vec::new();
        let (mut container_type, mut container_names) = (ContainerType::Normal, None);
        for &(level, _, _, _, decls) in &matched {
            if level > 0 && !ua_done {
                ua = style;
                ua_done = true;
            }
            let revert_to = if level == 0 || level == 3 { None } else { Some(&ua) };
            for decl in decls.iter() {
                for decl in self.expand(decl, customs.as_ref(), &mut substituted) {
                    match decl {
                        Decl::ContainerType(t) => container_type = *t,
                        Decl::ContainerName(n) => container_names = Some(n.clone()),
                        _ => self.apply_any(&mut style, &mut box_decls, parent, parent_boxes, revert_to, decl),
                    }
                }
            }
        }
        if container_type != ContainerType::Normal {
            self.containers.insert(id, (container_type, container_names.unwrap_or_else(|| Arc::from(Vec::new()))));
        }
        if !ua_done {
            ua = style;
        }
        self.lift_veil(id, e, &mut style, &ua);
        // CSS 2.1 §9.7: out-of-flow boxes and the root are block-level.
        if matches!(style.position, Position::Absolute | Position::Fixed) || self.doc.parent(id) == Some(NodeId::DOCUMENT) {
            style.display = blockify(style.display);
        }
        // Children of flex and grid containers are blockified too.
        if matches!(parent.display, Display::Flex | Display::Grid) && self.doc.parent(id) != Some(NodeId::DOCUMENT) {
            style.display = blockify(style.display);
        }
        let box_decls = (!box_decls.is_empty()).then(|| box_decls.into_vec().into_boxed_slice());
        (style, box_decls)
    }

    /// Applies one declaration to the style or the box declarations.
    fn apply_any(
        &self,
        style: &mut ComputedStyle,
        box_decls: &mut SmallVec<[(boxes::BoxProp, boxes::BoxValue); 8]>,
        parent: &ComputedStyle,
        parent_boxes: &[(boxes::BoxProp, boxes::BoxValue)],
        revert_to: Option<&ComputedStyle>,
        decl: &Decl,
    ) {
        match decl {
            Decl::Box(p, v) => set_box(box_decls, *p, Some(v.clone())),
            Decl::BoxWide(p, wide) => {
                let inherit = *wide == Wide::Inherit || (*p == boxes::BoxProp::LineHeight && matches!(wide, Wide::Unset));
                let from_parent = parent_boxes.iter().find(|(q, _)| q == p).map(|(_, v)| v.clone());
                set_box(box_decls, *p, if inherit { from_parent } else { None });
            }
            _ => self.apply(style, parent, revert_to, decl),
        }
    }

    /// The element's custom properties: its parent's, with those it
    /// declares (in `matched`) on top. Stored for its children.
    fn element_customs(&mut self, id: NodeId, matched: &[Matched<'_>]) -> Option<Arc<Customs>> {
        if self.customs.is_empty() {
            return None;
        }
        let parent = self.doc.parent(id).and_then(|p| self.customs[p.index()].clone());
        let declared: SmallVec<[&Unparsed; 8]> = matched
            .iter()
            .flat_map(|m| m.4.iter())
            .filter_map(|d| match d {
                Decl::Custom(u) => Some(&**u),
                _ => None,
            })
            .collect();
        let own = if declared.is_empty() {
            parent
        } else {
            Some(custom::declare(parent.as_ref(), &declared, &mut self.custom_cut))
        };
        self.customs[id.index()] = own.clone();
        own
    }

    /// The declarations `decl` stands for on an element with `customs`:
    /// itself, or for a `var()` declaration what it substitutes to (kept in
    /// `scratch`).
    fn expand<'d>(&mut self, decl: &'d Decl, customs: Option<&Arc<Customs>>, scratch: &'d mut Vec<Decl>) -> &'d [Decl] {
        match decl {
            Decl::Pending(u) => {
                scratch.clear();
                self.substitute(u, customs, scratch);
                scratch
            }
            _ => std::slice::from_ref(decl),
        }
    }

    /// The declarations a `var()` declaration gives on an element with
    /// `customs`; when it does not substitute to a valid value, `unset`
    /// (CSS Variables 1 §3: invalid at computed-value time).
    fn substitute(&mut self, u: &Unparsed, customs: Option<&Arc<Customs>>, out: &mut Vec<Decl>) {
        let mut text = String::new();
        let mut too_long = false;
        let ok = custom::substitute(&u.value, &mut |n| Customs::get(customs, n), &mut text, &mut too_long);
        if too_long {
            self.custom_cut.too_long += 1;
        }
        if !(ok && parse_substituted(&u.name, text.trim(), out)) {
            out.clear();
            parse_substituted(&u.name, "unset", out);
        }
    }

    /// Sets aside an author rule that hides the whole page — `display:
    /// none` or `visibility: hidden` on the root element or the body, where
    /// the UA sheet shows it — when the page has a script to lift it (see
    /// [`Veil`]). Two elements per page are looked at; the page is scanned
    /// for a script only when one of them is hidden.
    fn lift_veil(&mut self, id: NodeId, e: &Element, style: &mut ComputedStyle, ua: &ComputedStyle) {
        let doc = self.doc;
        let is_root = doc.parent(id) == Some(NodeId::DOCUMENT);
        let is_body = e.is_html(&local_name!("body")) && doc.parent(id).is_some_and(|p| doc.parent(p) == Some(NodeId::DOCUMENT));
        if !self.scripting || !(is_root || is_body) {
            return;
        }
        let none = style.display == Display::None && ua.display != Display::None;
        let invisible = style.visibility != Visibility::Visible && ua.visibility == Visibility::Visible;
        if !none && !invisible {
            return;
        }
        let has_script = *self.has_script.get_or_insert_with(|| {
            doc.descendants(NodeId::DOCUMENT).any(|n| doc.element(n).is_some_and(|e| e.is_html(&local_name!("script"))))
        });
        if !has_script {
            return;
        }
        if none {
            style.display = ua.display;
        }
        if invisible {
            style.visibility = ua.visibility;
        }
        let hid = if none { Hidden::DisplayNone } else { Hidden::Invisible };
        self.veil.get_or_insert(Veil { element: id, hid });
    }

    /// Applies one declaration. `revert_to` is the UA-origin style, for
    /// `revert` in author rules (in UA rules `revert` acts as `unset`).
    fn apply(&self, style: &mut ComputedStyle, parent: &ComputedStyle, revert_to: Option<&ComputedStyle>, decl: &Decl) {
        if style.set_keyword(decl) {
            return;
        }
        match *decl {
            Decl::FontSize(f) => {
                style.font_size = match f {
                    FontSize::Relative(factor) => parent.font_size * factor,
                    FontSize::Length(l) => resolve_length(
                        l,
                        parent.font_size,
                        self.root_font_size,
                        parent.font_size,
                        (self.env.width, self.env.height),
                    ),
                }
            }
            // Set above (keywords), or not a computed value (content, box
            // properties).
            Decl::Display(_)
            | Decl::Visibility(_)
            | Decl::ContentVisibility(_)
            | Decl::Position(_)
            | Decl::OverflowX(_)
            | Decl::OverflowY(_)
            | Decl::Opacity(_)
            | Decl::WhiteSpace(_)
            | Decl::TextTransform(_)
            | Decl::Color(_)
            | Decl::BackgroundColor(_)
            | Decl::BackgroundImage(_)
            | Decl::Clip(_)
            | Decl::ClipPath(_)
            | Decl::TextIndentFar(_)
            | Decl::Content(_)
            | Decl::Box(..)
            | Decl::BoxWide(..)
            | Decl::Custom(_)
            | Decl::Pending(_)
            | Decl::ContainerType(_)
            | Decl::ContainerName(_) => {}
            Decl::Wide(property, wide) => {
                let source = match (wide, revert_to) {
                    (Wide::Revert, Some(ua)) => *ua,
                    (Wide::Inherit, _) => *parent,
                    (Wide::Initial, _) => ComputedStyle::default(),
                    (Wide::Unset | Wide::Revert, _) => {
                        if property.is_inherited() { *parent } else { ComputedStyle::default() }
                    }
                };
                match property {
                    Property::Display => style.display = source.display,
                    Property::Visibility => style.visibility = source.visibility,
                    Property::ContentVisibility => style.content_visibility = source.content_visibility,
                    Property::Position => style.position = source.position,
                    Property::OverflowX => style.overflow_x = source.overflow_x,
                    Property::OverflowY => style.overflow_y = source.overflow_y,
                    Property::Opacity => style.opacity = source.opacity,
                    Property::FontSize => style.font_size = source.font_size,
                    Property::WhiteSpace => style.white_space = source.white_space,
                    Property::TextTransform => style.text_transform = source.text_transform,
                    Property::Color => style.color = source.color,
                    Property::BackgroundColor => style.background_color = source.background_color,
                    Property::BackgroundImage => style.background_image = source.background_image,
                    Property::Clip => style.clip_empty = source.clip_empty,
                    Property::ClipPath => style.clip_path_empty = source.clip_path_empty,
                    Property::TextIndent => style.text_indent_far = source.text_indent_far,
                    Property::Content => {}
                }
            }
        }
    }

    /// Computes `::before` and `::after` for a shown element.
    fn pseudo(&mut self, id: NodeId, bloom: &BloomFilter, out: &mut Styles) {
        let doc = self.doc;
        let Some(e) = doc.element(id) else { return };
        let rules = self.rules;
        for (index, is_before) in [(&rules.before, true), (&rules.after, false)] {
            if index.is_empty() {
                continue;
            }
            let mut matched: SmallVec<[Matched<'_>; 16]> = SmallVec::new();
            self.matching(index, id, e, bloom, MatchingMode::ForStatelessPseudoElement, &mut matched);
            if matched.is_empty() {
                continue;
            }
            matched.sort_unstable_by_key(|&(level, layer, spec, order, _)| (level, layer, spec, order));
            let mut display = Display::Inline;
            let mut content = Content::None;
            let customs = self.customs.get(id.index()).cloned().flatten();
            let mut substituted = Vec::new();
            for (_, _, _, _, decls) in &matched {
                for decl in decls.iter() {
                    for decl in self.expand(decl, customs.as_ref(), &mut substituted) {
                        match decl {
                            Decl::Display(d) => display = *d,
                            Decl::Content(c) => content = c.clone(),
                            Decl::Wide(Property::Content, _) => content = Content::None,
                            Decl::Wide(Property::Display, _) => display = Display::Inline,
                            _ => {}
                        }
                    }
                }
            }
            if display == Display::None || content == Content::None {
                continue;
            }
            let pseudo = PseudoStyle { display, content };
            if is_before {
                out.before.insert(id, pseudo);
            } else {
                out.after.insert(id, pseudo);
            }
        }
    }
}

/// Sets (or with `None` clears) one box property in a declaration list.
fn set_box(list: &mut SmallVec<[(boxes::BoxProp, boxes::BoxValue); 8]>, p: boxes::BoxProp, v: Option<boxes::BoxValue>) {
    let at = list.iter().position(|(q, _)| *q == p);
    match (at, v) {
        (Some(i), Some(v)) => list[i].1 = v,
        (None, Some(v)) => list.push((p, v)),
        (Some(i), None) => {
            list.swap_remove(i);
        }
        (None, None) => {}
    }
}

/// The block-level equivalent of a display value (CSS Display 3 §2.7).
fn blockify(d: Display) -> Display {
    match d {
        Display::Inline | Display::InlineBlock | Display::TableRow | Display::TableRowGroup
        | Display::TableCell | Display::TableCaption | Display::TableColumn => Display::Block,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn styled(html: &str) -> (Document, Styles) {
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        (doc, styles)
    }

    fn by_id(doc: &Document, id: &str) -> NodeId {
        doc.element_by_id(id).unwrap_or(NodeId::DOCUMENT)
    }

    #[test]
    fn precedence_follows_cascade_4() {
        let (doc, s) = styled(
            "<style>
               #a { display: block } div { display: inline } .c.c { display: flex }
               #b { display: none !important } #b { display: block }
               #d { display: grid !important }
             </style>
             <div id=a class='c'>a</div><div id=b style='display:block'>b</div>
             <div id=d style='display:inline'>d</div><div id=e style='display:none !important' class=c>e</div>",
        );
        assert_eq!(s.get(by_id(&doc, "a")).display, Display::Block); // id beats two classes
        assert_eq!(s.get(by_id(&doc, "b")).display, Display::None); // important beats inline
        assert_eq!(s.get(by_id(&doc, "d")).display, Display::Grid);
        assert_eq!(s.get(by_id(&doc, "e")).display, Display::None); // inline important wins
    }

    #[test]
    fn visibility_rules() {
        let (doc, s) = styled(
            "<div id=v style='visibility:hidden'><span id=back style='visibility:visible'>x</span><span id=still>y</span></div>
             <div id=n style='display:none'><span id=under style='display:block'>z</span></div>
             <div id=cv style='content-visibility:hidden'><p id=cvchild>q</p></div>
             <details id=det><summary id=sum>s</summary><p id=detp>d</p></details>
             <details open><summary>s</summary><p id=openp>d</p></details>
             <p hidden id=h>h</p><p hidden=until-found id=uf><span id=ufc>u</span></p>
             <noscript><p>n</p></noscript>",
        );
        assert_eq!(s.hidden(by_id(&doc, "v")), Some(Hidden::Invisible));
        assert_eq!(s.hidden(by_id(&doc, "back")), None);
        assert_eq!(s.hidden(by_id(&doc, "still")), Some(Hidden::Invisible));
        assert_eq!(s.hidden(by_id(&doc, "under")), Some(Hidden::DisplayNone));
        assert_eq!(s.hidden(by_id(&doc, "cv")), None);
        assert_eq!(s.hidden(by_id(&doc, "cvchild")), Some(Hidden::Skipped));
        assert_eq!(s.hidden(by_id(&doc, "sum")), None);
        assert_eq!(s.hidden(by_id(&doc, "detp")), Some(Hidden::Skipped));
        assert_eq!(s.hidden(by_id(&doc, "openp")), None);
        assert_eq!(s.hidden(by_id(&doc, "h")), Some(Hidden::DisplayNone));
        assert_eq!(s.hidden(by_id(&doc, "ufc")), Some(Hidden::Skipped));
        let noscript = doc
            .descendants(NodeId::DOCUMENT)
            .find(|&n| doc.element(n).is_some_and(|e| &*e.name.local == "noscript"));
        assert!(noscript.is_some_and(|n| s.hidden(n) == Some(Hidden::DisplayNone)));
    }

    #[test]
    fn revert_goes_back_to_the_ua_sheet() {
        let (doc, s) = styled(
            "<style>div { display: inline } #r { display: revert } #a { all: revert } #u { display: unset }</style>
             <div id=r>r</div><div id=a>a</div><div id=u>u</div>",
        );
        assert_eq!(s.get(by_id(&doc, "r")).display, Display::Block);
        assert_eq!(s.get(by_id(&doc, "a")).display, Display::Block);
        assert_eq!(s.get(by_id(&doc, "u")).display, Display::Inline);
    }

    #[test]
    fn media_queries_use_the_viewport() {
        let html = "<style>@media (max-width: 600px) { #m { display: none } }</style><p id=m>m</p>";
        let doc = parse(html.as_bytes(), &Default::default());
        let wide = cascade(&doc, &CascadeOptions::default());
        let narrow = cascade(
            &doc,
            &CascadeOptions { viewport: Viewport { width: 400, height: 800 }, ..Default::default() },
        );
        assert!(wide.is_visible(by_id(&doc, "m")));
        assert!(!narrow.is_visible(by_id(&doc, "m")));
    }

    #[test]
    fn linked_sheets_apply_where_linked() {
        let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/").ok(), ..Default::default() };
        let doc = parse(b"<link rel=stylesheet href=a.css><style>#t{display:block}</style><p id=t>t", &options);
        let styles = cascade(
            &doc,
            &CascadeOptions {
                stylesheets: vec![StylesheetText { url: Some("https://x.test/p/a.css".into()), text: "#t{display:none}".into() }],
                ..Default::default()
            },
        );
        // The <style> comes later in tree order, so it wins.
        assert_eq!(styles.get(by_id(&doc, "t")).display, Display::Block);
        let user = cascade(
            &doc,
            &CascadeOptions {
                stylesheets: vec![StylesheetText { url: None, text: "#t{display:none}".into() }],
                ..Default::default()
            },
        );
        assert_eq!(user.get(by_id(&doc, "t")).display, Display::None);
    }

    #[test]
    fn pseudo_elements_and_inheritance() {
        let (doc, s) = styled(
            "<style>.b::before{content:'x'} .a::after{content:attr(title)} .n::before{content:none}
              p { font-size: 20px; text-transform: uppercase } span { font-size: 2em }</style>
             <p id=p class='b a n' title=t><span id=s>s</span></p>",
        );
        let p = by_id(&doc, "p");
        // `.n::before { content: none }` comes later and wins.
        assert!(s.before(p).is_none());
        assert_eq!(
            s.after(p).map(|a| a.content.clone()),
            Some(Content::Items(vec![values::ContentItem::Attr("title".into())], None))
        );
        let span = by_id(&doc, "s");
        assert_eq!(s.get(span).font_size, 40.0);
        assert_eq!(s.get(span).text_transform, TextTransform::Uppercase);
    }

    #[test]
    fn descendant_selectors_with_bloom_filter() {
        let (doc, s) = styled(
            "<style>.menu .item { display: none } ul > li.x { display: none } div + p { display: none }</style>
             <div class=menu><ul><li class='item' id=i1>a</li><li class=x id=i2>b</li></ul></div>
             <ul><li class=item id=i3>c</li></ul><div></div><p id=sib>s</p>",
        );
        assert!(!s.is_visible(by_id(&doc, "i1")));
        assert!(!s.is_visible(by_id(&doc, "i2")));
        assert!(s.is_visible(by_id(&doc, "i3")));
        assert!(!s.is_visible(by_id(&doc, "sib")));
    }

    #[test]
    fn has_looks_down_and_ahead() {
        let (doc, s) = styled(
            "<style>div:has(> .x) { display: none } p:has(+ .y) { display: none } p:has(~ .z) { display: none }
               section:not(:has(.q)) { display: none } article:has(.deep) { display: none } li:has(.nope) { display: none }</style>
             <div id=a><span class=x>x</span></div><div id=b><i><span class=x>x</span></i></div>
             <p id=c>c</p><p class=y>y</p><p id=d>d</p><span></span><b class=z>z</b>
             <section id=e>e</section><section id=f><b class=q>q</b></section>
             <article id=g><div><div><b class=deep>d</b></div></div></article><ul><li id=h>h</li></ul>",
        );
        let hidden = |id| !s.is_visible(by_id(&doc, id));
        assert!(hidden("a"), "child");
        assert!(!hidden("b"), "a grandchild is not a child");
        assert!(hidden("c"), "next sibling");
        assert!(hidden("d"), "later sibling");
        assert!(hidden("e") && !hidden("f"), ":not(:has())");
        assert!(hidden("g"), "deep descendant");
        assert!(!hidden("h"), "no match");
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    }

    #[test]
    fn has_inside_has_is_invalid_and_dropped() {
        let (doc, s) = styled(
            "<style>div:has(:has(.x)) { display: none } div:is(:has(> .x)) { visibility: hidden }</style>
             <div id=a><p><b class=x>x</b></p></div><div id=b><b class=x>x</b></div>",
        );
        assert!(s.is_visible(by_id(&doc, "a")), ":has() nested in :has() is not a selector");
        assert_eq!(s.get(by_id(&doc, "b")).visibility, Visibility::Hidden);
    }

    #[test]
    fn has_on_a_big_page_is_one_walk_not_a_cut() {
        // `body:has(...)` looks at every element once: more than one
        // element's own budget, well within the document's.
        let html = format!("<style>body:has(.last) #t {{ display: none }}</style><p id=t>t</p>{}<b class=last>l</b>", "<i></i>".repeat(30_000));
        let (doc, s) = styled(&html);
        assert!(!s.is_visible(by_id(&doc, "t")));
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    }

    /// The cascade of `html` at `https://x.test/p/page.html` with `sheets`
    /// (URL, CSS) given as fetched.
    fn styled_with(html: &str, sheets: &[(&str, &str)]) -> (Document, Styles) {
        let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/page.html").ok(), ..Default::default() };
        let doc = parse(html.as_bytes(), &options);
        let stylesheets = sheets.iter().map(|(u, t)| StylesheetText { url: Some((*u).into()), text: (*t).into() }).collect();
        let styles = cascade(&doc, &CascadeOptions { stylesheets, ..Default::default() });
        (doc, styles)
    }

    #[test]
    fn imports_apply_where_they_are_imported() {
        let sheets = [
            ("https://x.test/p/a.css", "#a { display: none }"),
            ("https://x.test/p/css/theme.css", "@import 'base.css'; #t { visibility: hidden }"),
            ("https://x.test/p/css/base.css", "#b { display: none } #t { display: none }"),
            ("https://x.test/p/print.css", "#c { display: none }"),
            ("https://x.test/p/late.css", "#d { display: none }"),
            ("https://x.test/p/grid.css", "#e { display: none }"),
            ("https://x.test/p/nope.css", "#f { display: none }"),
        ];
        let (doc, s) = styled_with(
            "<style>@import url(a.css); @import 'print.css' print; @import url('grid.css') supports(display: grid) screen;
                    @import 'nope.css' supports(not (display: grid)); #g { display: none } @import 'late.css';</style>
             <link rel=stylesheet href=css/theme.css><style>#t { display: block }</style>
             <p id=a>a</p><p id=b>b</p><p id=c>c</p><p id=d>d</p><p id=e>e</p><p id=f>f</p><p id=t>t</p>",
            &sheets,
        );
        let hidden = |id| !s.is_visible(by_id(&doc, id));
        assert!(hidden("a"), "an import in a <style>");
        assert!(hidden("b"), "an import in a linked sheet, resolved against that sheet's URL");
        assert!(!hidden("c"), "media that does not hold");
        assert!(!hidden("d"), "an @import after a style rule is invalid");
        assert!(hidden("e") && !hidden("f"), "supports()");
        // The import comes first in the importing sheet's place, and the
        // later <style> still wins over both.
        assert_eq!(s.get(by_id(&doc, "t")).display, Display::Block);
        assert_eq!(s.get(by_id(&doc, "t")).visibility, Visibility::Hidden);
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    }

    #[test]
    fn import_cycles_depth_and_missing_sheets_stop_with_a_diagnostic() {
        let sheets = [
            ("https://x.test/p/a.css", "@import 'b.css'; #a { display: none }"),
            ("https://x.test/p/b.css", "@import 'a.css'; #b { display: none }"),
        ];
        let (doc, s) = styled_with("<style>@import 'a.css'; @import 'gone.css';</style><p id=a>a</p><p id=b>b</p>", &sheets);
        assert!(!s.is_visible(by_id(&doc, "a")) && !s.is_visible(by_id(&doc, "b")));
        let said: Vec<&str> = s.diagnostics().iter().map(|d| d.message.as_str()).collect();
        assert!(said.iter().any(|m| m.starts_with("1 @import rules were not followed")), "{said:?}");
        assert!(said.iter().any(|m| m.starts_with("1 imported stylesheets were not loaded")), "{said:?}");

        // A chain of 1,000 imports: read to the depth limit, then cut.
        let urls: Vec<String> = (0..1000).map(|i| format!("https://x.test/p/{i}.css")).collect();
        let texts: Vec<String> = (0..1000).map(|i| format!("@import '{}.css'; #p{i} {{ display: none }}", i + 1)).collect();
        let chain: Vec<(&str, &str)> = urls.iter().zip(&texts).map(|(u, t)| (u.as_str(), t.as_str())).collect();
        let (doc, s) = styled_with("<style>@import '0.css';</style><p id=p0>0</p><p id=p7>7</p><p id=p8>8</p>", &chain);
        assert!(!s.is_visible(by_id(&doc, "p0")) && !s.is_visible(by_id(&doc, "p7")));
        assert!(s.is_visible(by_id(&doc, "p8")), "past the depth limit");
        assert!(s.diagnostics().iter().any(|d| d.message.contains("@import rules were not followed")));
    }

    #[test]
    fn layers_order_the_cascade() {
        let sheets = [("https://x.test/p/base.css", "#i { display: none }")];
        let (doc, s) = styled_with(
            "<style>
               #u { display: block } @layer x { #u { display: none } }
               @layer a, b; @layer b { #o { display: block } } @layer a { #o { display: none } }
               @layer a { #imp { display: none !important } } @layer b { #imp { display: block !important } }
               @layer a { @layer inner { #n { display: none } } #n { display: block } }
               @layer { #anon { display: none } } #anon { display: block }
             </style>
             <style>@import 'base.css' layer(base);</style><style>#i { display: block }</style>
             <p id=u>u</p><p id=o>o</p><p id=imp>imp</p><p id=n>n</p><p id=anon>anon</p><p id=i>i</p>",
            &sheets,
        );
        let shown = |id| s.is_visible(by_id(&doc, id));
        assert!(shown("u"), "rules outside layers beat layered ones, whatever the order");
        assert!(shown("o"), "a layer declared later wins");
        assert!(!shown("imp"), "for !important, the earlier layer wins");
        assert!(shown("n"), "a layer's own rules beat its sublayers'");
        assert!(shown("anon"), "an anonymous layer is a layer");
        assert!(shown("i"), "an import into a layer is layered");
        // Alone, the layered import applies.
        let (doc, s) = styled_with("<style>@import 'base.css' layer(base);</style><p id=i>i</p>", &sheets);
        assert!(!s.is_visible(by_id(&doc, "i")));
    }

    #[test]
    fn custom_properties_cascade_inherit_and_substitute() {
        let (doc, s) = styled(
            "<style>
               :root { --d: none; --hide: hidden; --w: 120px }
               .a { display: var(--d) } .b { display: var(--missing, none) }
               .c { display: none } .c { display: var(--missing) }
               .parent { --v: hidden } .kid { visibility: var(--v) }
               .cyc { --x: var(--y); --y: var(--x); display: var(--x, none) }
               .over { display: none } .over { --p: var(--q); --q: var(--p); display: var(--p) }
               .imp { --d: block !important } .late { --d: inline } .imp.late { display: var(--d) }
               .sized { width: var(--w) } .col { color: var(--fg, #fff); background-color: var(--bg, #fff) }
               .pseudo::before { content: var(--label, 'from a var') }
             </style>
             <p id=a class=a>a</p><p id=b class=b>b</p><p id=c class=c>c</p>
             <div class=parent><span id=kid class=kid>k</span></div><span id=nokid class=kid>n</span>
             <p id=cyc class=cyc>c</p><p id=over class=over>o</p><p id=imp class='imp late'>i</p>
             <div id=sized class=sized>s</div><p id=col class=col>c</p><p id=ps class=pseudo>p</p>
             <p id=inl style='--d: block; display: var(--d)'>i</p>",
        );
        let get = |id| s.get(by_id(&doc, id));
        assert_eq!(get("a").display, Display::None);
        assert_eq!(get("b").display, Display::None, "fallback");
        assert_eq!(get("c").display, Display::Inline, "invalid at computed-value time: unset");
        assert_eq!(get("kid").visibility, Visibility::Hidden, "inherited");
        assert_eq!(get("nokid").visibility, Visibility::Visible);
        assert_eq!(get("cyc").display, Display::None, "a cycle falls back");
        assert_eq!(get("over").display, Display::Inline, "a cycle without fallback: unset");
        assert_eq!(get("imp").display, Display::Block, "an important custom property wins");
        assert_eq!(get("inl").display, Display::Block, "set and used in a style attribute");
        assert!(s.box_decls(by_id(&doc, "sized")).iter().any(|(p, _)| *p == boxes::BoxProp::Width));
        assert_eq!(get("col").color, get("col").background_color, "text in its background's colour");
        assert!(get("col").color.is_some());
        assert_eq!(
            s.before(by_id(&doc, "ps")).map(|p| p.content.clone()),
            Some(Content::Items(vec![values::ContentItem::Text("from a var".into())], None))
        );
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    }

    #[test]
    fn var_bombs_are_bounded_and_said() {
        let chain: String = (0..10_000).map(|i| format!("--v{i}: var(--v{});", i + 1)).collect();
        let doubling: String = (1..40).map(|i| format!("--b{i}: var(--b{}) var(--b{});", i - 1, i - 1)).collect();
        let html = format!(
            "<style>:root {{ {chain} --v10000: none; --b0: xxxxxxxxxxxxxxxx; {doubling} }} #a {{ display: var(--v0) }} #b {{ display: var(--b39, none) }}</style><p id=a>a</p><p id=b>b</p>"
        );
        let (doc, s) = styled(&html);
        assert_eq!(s.get(by_id(&doc, "a")).display, Display::Inline, "too deep: not set, so unset");
        assert_eq!(s.get(by_id(&doc, "b")).display, Display::None, "too long: not set, so the fallback");
        assert!(s.diagnostics().iter().any(|d| d.message.contains("custom properties were not substituted")), "{:?}", s.diagnostics());
    }

    /// The cascade and layout of `html`, container queries included.
    fn laid_out(html: &str) -> (Document, Styles) {
        let doc = parse(html.as_bytes(), &Default::default());
        let (styles, _) = crate::style_and_layout(&doc, &CascadeOptions::default(), &Default::default());
        (doc, styles)
    }

    #[test]
    fn container_queries_ask_the_nearest_container_of_their_name() {
        let (doc, s) = laid_out(
            "<style>
               .cq { container-type: inline-size; width: 500px } .side { container: side / inline-size; width: 250px; padding: 0 10px }
               .inner { container-type: inline-size; width: 600px } .labelled { container-name: labelled; width: 100px }
               .half { container-type: size; width: 50%; height: 100px } .parent { width: 600px }
               @container (min-width: 400px) { .wide { display: none } }
               @container (min-width: 800px) { .wider { display: none } }
               @container side (max-width: 250px) { .named { display: none } .far { display: none } }
               @container (max-width: 300px) { .nearest { display: none } .self { display: none } }
               @container labelled (min-width: 1px) { .unsized { display: none } }
               @container (min-width: 1px) { .orphan { display: none } }
               @container (width >= 300px) and (height < 200px) { .pct { display: none } }
               .sq { --theme: dark } @container style(--theme: dark) { .styled { display: none } }
             </style>
             <div class=cq><p id=wide class=wide>w</p><p id=wider class=wider>w</p></div>
             <div class=side><p id=named class=named>n</p><div class=inner><p id=far class=far>f</p><p id=nearest class=nearest>n</p></div></div>
             <div class=labelled><p id=unsized class=unsized>u</p></div><p id=orphan class=orphan>o</p>
             <div id=self class='cq self'>s</div><div class=parent><div class=half><p id=pct class=pct>p</p></div></div>
             <div class=sq><p id=styled class=styled>s</p></div><p id=unstyled class=styled>u</p>",
        );
        let hidden = |id| !s.is_visible(by_id(&doc, id));
        assert!(hidden("wide") && !hidden("wider"), "against the container's width");
        assert!(hidden("named"), "a named container's content box (250px)");
        assert!(hidden("far"), "past a nearer container without that name");
        assert!(!hidden("nearest"), "the nearest container is the 600px one");
        assert!(!hidden("unsized"), "a name without a container-type is no container");
        assert!(!hidden("orphan"), "no container: the query does not hold");
        assert!(!hidden("self"), "a container does not query itself");
        assert!(hidden("pct"), "range syntax, and the height of a size container");
        assert!(hidden("styled") && !hidden("unstyled"), "style() queries ask the parent");
        // Without layout (the cascade alone), size queries do not hold.
        let alone = cascade(&doc, &CascadeOptions::default());
        assert!(alone.is_visible(by_id(&doc, "wide")));
    }
}
