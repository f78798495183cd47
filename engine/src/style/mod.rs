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
mod cascader;
mod computed;
mod custom;
mod index;
mod known;
mod media;
pub(crate) mod select;
mod sheet;
pub mod values;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use html5ever::local_name;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{Document, Edge, Element, NodeId};
use index::{Kept, KeptBoxes, Origin, Rules};
use media::MediaEnv;
use sheet::{ParsedSheet, Sheets, has_var, imports_of, parse_sheet, parse_sheet_in};
pub use computed::COMPUTED_PROPERTIES;
pub use select::{Selector, SelectorError};
pub use values::ContainerType;
use values::{
    Content, ContentVisibility, Decl, Display, Overflow, Position, TextTransform, Visibility, WhiteSpace,
};
pub use cascader::ContainerSizes;
use cascader::run_cascade;

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
    /// Whether a layout will follow. Without one (an extract, a digest)
    /// only the box properties that can hide a box are kept
    /// ([`boxes::WITHOUT_LAYOUT`]), and rules that set no other property
    /// are not matched at all: what is hidden and every computed value
    /// come out the same, for less work.
    pub layout: bool,
    /// Where linked sheets already read are kept between cascades, if the
    /// caller keeps them (see [`SheetCache`]).
    pub sheet_cache: Option<SheetCache>,
}

impl CascadeOptions {
    fn media_env(&self) -> MediaEnv {
        MediaEnv { width: self.viewport.width as f32, height: self.viewport.height as f32, scripting: self.scripting }
    }
}

impl Default for CascadeOptions {
    fn default() -> CascadeOptions {
        CascadeOptions { viewport: Viewport::default(), stylesheets: Vec::new(), scripting: true, layout: true, sheet_cache: None }
    }
}

/// Linked stylesheets already read, kept across cascades by a caller that
/// cascades many pages of a site (a browsing session): a sheet given again
/// with the same URL and text, for the same viewport, is not parsed again
/// (a site's 200 KB sheet costs its pages 8 ms each otherwise). Sheets that
/// declare cascade layers or `@import` others are read each time (what
/// they give depends on the rest of the cascade). Clones share the cache;
/// it keeps the [`SheetCache::SHEETS`] most recently read.
#[derive(Debug, Clone, Default)]
pub struct SheetCache(Arc<Mutex<VecDeque<CachedSheet>>>);

#[derive(Debug)]
struct CachedSheet {
    url: String,
    text: Arc<str>,
    env: MediaEnv,
    sheet: Arc<ParsedSheet>,
}

impl SheetCache {
    /// How many sheets one cache keeps.
    pub const SHEETS: usize = 64;

    fn get(&self, url: &str, text: &str, env: &MediaEnv) -> Option<Arc<ParsedSheet>> {
        let cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        cache.iter().find(|c| c.url == url && c.env == *env && *c.text == *text).map(|c| Arc::clone(&c.sheet))
    }

    fn put(&self, url: &str, text: &str, env: &MediaEnv, sheet: &Arc<ParsedSheet>) {
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|c| !(c.url == url && c.env == *env));
        if cache.len() >= SheetCache::SHEETS {
            cache.pop_front();
        }
        cache.push_back(CachedSheet { url: url.to_owned(), text: Arc::from(text), env: *env, sheet: Arc::clone(sheet) });
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

/// A linked sheet, read, or taken from the caller's [`SheetCache`] when it
/// was read the same way before; and whether the cache holds it (other
/// cascades then read it too).
fn linked_sheet<'a>(
    s: &'a StylesheetText,
    options: &CascadeOptions,
    env: &MediaEnv,
    sheets: &mut Sheets<'a>,
) -> (Arc<ParsedSheet>, bool) {
    let (Some(url), Some(cache)) = (s.url.as_deref(), options.sheet_cache.as_ref()) else {
        let base = s.url.as_deref().and_then(|u| url::Url::parse(u).ok());
        return (Arc::new(parse_sheet_in(&s.text, base.as_ref(), env, sheets)), false);
    };
    if let Some(sheet) = cache.get(url, &s.text, env) {
        return (sheet, true);
    }
    let before = sheets.marks();
    // The cache may give this sheet to other documents: every rule is read.
    let only_for = sheets.only_for.take();
    let sheet = Arc::new(parse_sheet_in(&s.text, url::Url::parse(url).ok().as_ref(), env, sheets));
    sheets.only_for = only_for;
    // A sheet that declares layers or imports, or puts rules in a layer
    // (even one an earlier sheet declared: layers are numbered per
    // document), gives what the rest of the cascade makes of it.
    let shared = sheets.marks() == before && sheet.rules.iter().all(|r| r.layer.is_none());
    if shared {
        cache.put(url, &s.text, env, &sheet);
    }
    (sheet, shared)
}

/// Reads the UA sheet, the document's sheets and the caller's, and files
/// their rules.
fn read_rules(doc: &Document, options: &CascadeOptions) -> ReadRules {
    let env = options.media_env();
    let mut diagnostics = Vec::new();
    let mut rules = Rules::default();
    let boxes = if options.layout { KeptBoxes::All } else { KeptBoxes::Hiding };
    // The UA sheet is filed once per way of filing it, for every cascade.
    rules.add_shared_sheet(ua_sheet(), Origin::UserAgent, doc.is_quirks(), Kept { customs: false, boxes });

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
    sheets.only_for = Some(doc);
    for s in &options.stylesheets {
        if let Some(url) = &s.url {
            sheets.by_url.entry(url.as_str()).or_insert(s.text.as_str());
        }
    }
    let doc_base = doc.base_url();
    // Each sheet, and whether the caller's cache holds it.
    let mut parsed: Vec<(Arc<ParsedSheet>, bool)> = Vec::new();
    for (at, source) in sources.iter().enumerate() {
        let sheet = match *source {
            SheetSource::Inline(id) => (Arc::new(parse_sheet_in(&style_text(doc, id), doc_base, &env, &mut sheets)), false),
            SheetSource::Linked(i) if last_link.get(&i) == Some(&at) => linked_sheet(&options.stylesheets[i], options, &env, &mut sheets),
            SheetSource::Linked(_) => continue,
        };
        parsed.push(sheet);
    }
    for s in &options.stylesheets {
        if s.url.is_none() {
            parsed.push((Arc::new(parse_sheet_in(&s.text, None, &env, &mut sheets)), false));
        }
    }
    // Layers are ranked once every sheet has declared its own.
    let (ranks, unlayered) = sheets.layers.ranks();
    let rank = |layer: Option<u32>| layer.map_or(unlayered, |l| ranks.get(l as usize).copied().unwrap_or(unlayered));
    // Custom properties matter when a property whittle computes uses
    // var(); otherwise rules that only set them are not even filed.
    let uses_var = parsed.iter().any(|(sheet, _)| {
        sheet.rules.iter().any(|r| r.block.normal.iter().chain(&r.block.important).any(|d| matches!(d, Decl::Pending(_))))
    }) || doc.descendants(NodeId::DOCUMENT).any(|n| doc.element(n).and_then(|e| e.attr("style")).is_some_and(has_var));
    let style_queries = parsed.iter().any(|(sheet, _)| {
        sheet.rules.iter().any(|r| {
            std::iter::successors(r.container.as_deref(), |c| c.outer.as_deref()).any(sheet::ContainerRule::is_style_query)
        })
    });
    let uses_customs = uses_var || style_queries;
    let kept = Kept { customs: uses_customs, boxes };
    for (sheet, shared) in &parsed {
        invalid_rules += sheet.invalid_rules;
        if *shared {
            rules.add_shared_sheet(sheet, Origin::Author, doc.is_quirks(), kept);
        } else {
            rules.add_author_sheet(sheet, doc.is_quirks(), rank, kept);
        }
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
