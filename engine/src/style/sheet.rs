//! Reading stylesheets (CSS Syntax 3 through `cssparser`) into style rules.
//!
//! `@media` and `@supports` are evaluated while reading, so only rules that
//! apply to whittle's viewport come out; `@import` reads the imported sheet
//! in place (its text fetched by the caller, found by URL in [`Sheets`]),
//! under its media, `supports()` and `layer()` conditions; `@layer` blocks
//! and statements file rules in cascade layers ([`Layers`]); nested style
//! rules (CSS Nesting) are flattened with `&` replaced; rules inside
//! `@container` carry its condition, which the cascade evaluates per
//! element. Everything else (`@font-face`, `@keyframes`, …) is skipped. A rule whose
//! block sets none of the properties whittle computes is dropped here,
//! which is what keeps the cascade cheap on framework stylesheets; so is
//! one whose every selector the cascade would not file (`:hover`,
//! `::selection`, …), whose declarations are not even read. In a
//! document's own long sheet, a rule that can match none of the
//! document's elements (each selector's subject needs a class, id or type
//! none has) is skipped unread.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use html5ever::LocalName;
use url::Url;

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, Delimiter, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser,
};

use crate::dom::{Document, Name, PrehashedHasher};

use super::media::{MediaEnv, matches_media_list_in, supports, supports_function};
use super::index::never_filed;
use super::select::{Selectors, parse_selector_list};
use super::values::{Decl, Unparsed, parse_declaration};

/// The declarations of one rule, split by importance.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct DeclBlock {
    pub(crate) normal: Vec<Decl>,
    pub(crate) important: Vec<Decl>,
}

impl DeclBlock {
    pub(crate) fn is_empty(&self) -> bool {
        self.normal.is_empty() && self.important.is_empty()
    }
}

/// A style rule: a selector list and its declarations.
#[derive(Debug)]
pub(crate) struct SheetRule {
    pub(crate) selectors: Selectors,
    pub(crate) block: Arc<DeclBlock>,
    /// Its cascade layer ([`Layers`]); `None` outside any layer.
    pub(crate) layer: Option<u32>,
    /// The `@container` rule it is in, if any.
    pub(crate) container: Option<Arc<ContainerRule>>,
}

/// An `@container` rule's condition, which holds or not per element (its
/// nearest container of that name and the container's size).
#[derive(Debug)]
pub(crate) struct ContainerRule {
    /// The container name asked for.
    pub(crate) name: Option<Box<str>>,
    /// The condition, as written.
    pub(crate) query: Box<str>,
    /// The `@container` rule this one is nested in.
    pub(crate) outer: Option<Arc<ContainerRule>>,
}

impl ContainerRule {
    /// Whether the condition asks about custom properties
    /// (`style(--x: y)`), not sizes.
    pub(crate) fn is_style_query(&self) -> bool {
        self.query.as_bytes().get(..6).is_some_and(|b| b.eq_ignore_ascii_case(b"style("))
    }
}

/// What reading a stylesheet gave.
#[derive(Debug, Default)]
pub(crate) struct ParsedSheet {
    pub(crate) rules: Vec<SheetRule>,
    /// Rules dropped because they did not parse (bad selectors, stray
    /// tokens).
    pub(crate) invalid_rules: usize,
    /// Its rules filed for the cascade, kept while the sheet is shared.
    pub(crate) filed: super::index::SharedFiling,
}

/// How deep `@import` may nest (a sheet importing a sheet importing …).
pub const MAX_IMPORT_DEPTH: usize = 8;
/// How many `@import`s one cascade reads in all, so that a sheet importing
/// the same sheet twice at every level stays small work.
pub(crate) const MAX_IMPORTS: usize = 64;

/// The cascade layers of one origin (CSS Cascade 5 §6.4): named layers
/// by their full dotted name, anonymous ones each their own, every layer
/// knowing its parent, in the order they were first declared.
#[derive(Debug, Default)]
pub(crate) struct Layers {
    /// Full name (empty for an anonymous layer) and parent of each layer.
    layers: Vec<(Box<str>, Option<u32>)>,
    by_name: HashMap<Box<str>, u32>,
}

impl Layers {
    /// The layer `name` (dotted parts) inside `parent`, declared now if it
    /// is new; a new anonymous layer for `None`.
    fn declare(&mut self, parent: Option<u32>, name: Option<&[String]>) -> u32 {
        let Some(parts) = name else {
            self.layers.push((Box::from(""), parent));
            return (self.layers.len() - 1) as u32;
        };
        let mut at = parent;
        for part in parts {
            let full: Box<str> = match at {
                Some(p) if !self.layers[p as usize].0.is_empty() => format!("{}.{part}", self.layers[p as usize].0).into(),
                // Inside an anonymous layer, names are the layer's own:
                // keyed by its index so they never meet outer names.
                Some(p) => format!("#{p}.{part}").into(),
                None => part.as_str().into(),
            };
            at = Some(match self.by_name.get(&full) {
                Some(&id) => id,
                None => {
                    let id = self.layers.len() as u32;
                    self.layers.push((full.clone(), at));
                    self.by_name.insert(full, id);
                    id
                }
            });
        }
        at.unwrap_or_else(|| self.declare(parent, None))
    }

    /// Each layer's precedence for normal declarations (higher wins), and
    /// that of rules outside any layer, the highest: a layer's sublayers
    /// come before its own rules, layers in the order they were declared.
    pub(crate) fn ranks(&self) -> (Vec<u32>, u32) {
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); self.layers.len()];
        let mut top = Vec::new();
        for (id, (_, parent)) in self.layers.iter().enumerate() {
            match parent {
                Some(p) => children[*p as usize].push(id as u32),
                None => top.push(id as u32),
            }
        }
        let mut ranks = vec![0; self.layers.len()];
        let mut next = 0;
        // Post-order without recursion: (layer, whether its children are done).
        let mut stack: Vec<(u32, bool)> = top.iter().rev().map(|&l| (l, false)).collect();
        while let Some((layer, done)) = stack.pop() {
            if done {
                ranks[layer as usize] = next;
                next += 1;
            } else {
                stack.push((layer, true));
                stack.extend(children[layer as usize].iter().rev().map(|&c| (c, false)));
            }
        }
        (ranks, next)
    }
}

/// What reading the author sheets of one cascade shares: the sheets
/// `@import` can find by absolute URL, the layers, and what was cut.
#[derive(Debug, Default)]
pub(crate) struct Sheets<'a> {
    pub(crate) by_url: HashMap<&'a str, &'a str>,
    pub(crate) layers: Layers,
    /// The URLs of the imports being read, outermost first.
    stack: Vec<String>,
    imports_read: usize,
    /// `@import`s not read because the sheet was not given (not fetched,
    /// or it failed).
    pub(crate) missing: usize,
    /// `@import`s not read: a cycle, too deep, or too many.
    pub(crate) cut: usize,
    /// The document the rules are read for, when a rule that can match
    /// none of its elements may be skipped unread (see [`unmatched`]):
    /// set for its own sheets, unset while a sheet shared with other
    /// documents is read.
    pub(crate) only_for: Option<&'a Document>,
    /// What `only_for`'s elements have, gathered when a rule first asks.
    present: Option<Present<'a>>,
}

/// A sheet shorter than this is read whole: gathering the document's
/// classes, ids and names would cost more than the few dozen rules it could skip.
const SKIP_FROM: usize = 4096;

/// The classes, ids and local names a document's elements have (every
/// element of the arena, so that nothing a rule could match is missed);
/// in quirks mode, where classes and ids match whatever their ASCII case,
/// in lower case.
#[derive(Debug, Default)]
struct Present<'a> {
    quirks: bool,
    classes: NameSet<'a>,
    ids: NameSet<'a>,
    /// Local names, in ASCII lower case (type selectors match HTML
    /// elements' names whatever their case).
    tags: FxHashSet<LocalName>,
}

/// Names, hashed by their own hash.
type NameSet<'a> = std::collections::HashSet<Cow<'a, Name>, BuildHasherDefault<PrehashedHasher>>;

impl<'a> Present<'a> {
    fn of(doc: &'a Document) -> Present<'a> {
        let quirks = doc.is_quirks();
        let key = |name: &'a Name| match quirks && name.has_ascii_uppercase() {
            true => Cow::Owned(name.to_ascii_lowercase()),
            false => Cow::Borrowed(name),
        };
        let mut present = Present { quirks, ..Present::default() };
        for i in 0..doc.len() {
            if let Some(e) = doc.element(crate::dom::NodeId::from_index(i)) {
                present.classes.extend(e.class_names().iter().map(key));
                present.ids.extend(e.id_name().map(key));
                let name = e.local_name();
                if name.bytes().any(|b| b.is_ascii_uppercase()) {
                    present.tags.insert(LocalName::from(name.to_ascii_lowercase()));
                } else if !present.tags.contains(name) {
                    present.tags.insert(name.clone());
                }
            }
        }
        present
    }

    fn has_tag(&self, name: &str) -> bool {
        self.tags.contains(&LocalName::from(name.to_ascii_lowercase()))
    }

    fn has(&self, set: &NameSet<'a>, name: &str) -> bool {
        let name = Name::new(name);
        if self.quirks && name.has_ascii_uppercase() { set.contains(&name.to_ascii_lowercase()) } else { set.contains(&name) }
    }
}

impl<'a> Sheets<'a> {
    /// What rules may be checked against, when they may.
    fn present(&mut self) -> Option<&Present<'a>> {
        let doc = self.only_for?;
        Some(self.present.get_or_insert_with(|| Present::of(doc)))
    }

    /// What reading a sheet can leave behind here: layers declared and
    /// imports read, missed or cut. A sheet that left it unchanged read
    /// the same whatever else the cascade reads (see [`SheetCache`](super::SheetCache)).
    pub(crate) fn marks(&self) -> (usize, usize, usize, usize) {
        (self.layers.layers.len(), self.imports_read, self.missing, self.cut)
    }
}

/// Reads a stylesheet with no imports and no layers of note (whittle's own).
pub(crate) fn parse_sheet(text: &str, env: &MediaEnv) -> ParsedSheet {
    let mut sheets = Sheets::default();
    parse_sheet_in(text, None, env, &mut sheets)
}

/// Reads an author stylesheet whose relative URLs resolve against `base`.
pub(crate) fn parse_sheet_in<'a>(text: &str, base: Option<&Url>, env: &MediaEnv, sheets: &mut Sheets<'a>) -> ParsedSheet {
    let mut out = ParsedSheet::default();
    read_rules(text, base, env, sheets, &mut out, None);
    out
}

/// Reads a sheet's rules into `out`, in layer `layer`.
fn read_rules(text: &str, base: Option<&Url>, env: &MediaEnv, sheets: &mut Sheets<'_>, out: &mut ParsedSheet, layer: Option<u32>) {
    let mut input = Parser::new(text);
    let skips = text.len() >= SKIP_FROM;
    let mut top = RuleParser { env, out, sheets, parent: None, layer, container: None, base, top: true, rules_seen: false, skips };
    let mut invalid = 0;
    for result in StyleSheetParser::new(&mut input, &mut top) {
        if result.is_err() {
            invalid += 1;
        }
    }
    out.invalid_rules += invalid;
}

/// The sheets a stylesheet imports, in order, resolved against `base`:
/// the `@import` rules at its start whose media and `supports()`
/// conditions hold (the ones [`read_rules`] would read).
pub(crate) fn imports_of(text: &str, base: Option<&Url>, env: &MediaEnv) -> Vec<Url> {
    let mut input = Parser::new(text);
    let mut scan = ImportScan { env, base, found: Vec::new(), done: false };
    let mut sheet = StyleSheetParser::new(&mut input, &mut scan);
    while sheet.next().is_some() {
        if sheet.parser.done {
            break;
        }
    }
    scan.found
}

/// An `@import` prelude: the URL and, when the rule applies, its layer.
struct Import {
    href: String,
    /// `None`: no layer; `Some(None)`: an anonymous layer.
    layer: Option<Option<Vec<String>>>,
}

/// Reads an `@import` prelude; `None` when it is malformed or its
/// conditions do not hold.
fn import_prelude(input: &mut Parser<'_>, env: &MediaEnv) -> Option<Import> {
    let href = match input.next().ok()?.clone() {
        cssparser::Token::UnquotedUrl(u) | cssparser::Token::QuotedString(u) => u.as_ref().to_owned(),
        cssparser::Token::Function(f) if f.eq_ignore_ascii_case("url") => input
            .parse_nested_block(|i| Ok::<_, ParseError<()>>(i.expect_string()?.as_ref().to_owned()))
            .ok()?,
        _ => return None,
    };
    let mut layer = None;
    if input.try_parse(|i| i.expect_ident_matching("layer")).is_ok() {
        layer = Some(None);
    } else if input.try_parse(|i| i.expect_function_matching("layer")).is_ok() {
        let name = input.parse_nested_block(|i| layer_name(i).ok_or(ParseError::<()>::custom(()))).ok()?;
        layer = Some(Some(name));
    }
    if input.try_parse(|i| i.expect_function_matching("supports")).is_ok() {
        let holds = input.parse_nested_block(|i| Ok::<_, ParseError<()>>(supports_function(i))).unwrap_or(false);
        if !holds {
            return None;
        }
    }
    matches_media_list_in(input, env).then_some(Import { href, layer })
}

/// A layer name: identifiers joined by `.`.
fn layer_name(input: &mut Parser<'_>) -> Option<Vec<String>> {
    let mut parts = vec![input.expect_ident().ok()?.as_ref().to_owned()];
    while let Ok(cssparser::Token::Delim('.')) = input.next_including_whitespace().cloned() {
        parts.push(input.next_including_whitespace().ok().and_then(|t| match t {
            cssparser::Token::Ident(i) => Some(i.as_ref().to_owned()),
            _ => None,
        })?);
    }
    input.is_exhausted().then_some(parts)
}

/// Layer names of an `@layer` prelude: one (a block) or several (a
/// statement); empty for an anonymous block.
fn layer_names(input: &mut Parser<'_>) -> Option<Vec<Vec<String>>> {
    let mut names = Vec::new();
    if input.is_exhausted() {
        return Some(names);
    }
    loop {
        names.push(input.parse_until_before(Delimiter::Comma, |i| layer_name(i).ok_or(ParseError::<()>::custom(()))).ok()?);
        if input.is_exhausted() {
            return Some(names);
        }
        input.expect_comma().ok()?;
    }
}

/// Reads only the `@import` rules at the start of a sheet.
struct ImportScan<'a> {
    env: &'a MediaEnv,
    base: Option<&'a Url>,
    found: Vec<Url>,
    /// Set at the first rule after which `@import` is no longer valid.
    done: bool,
}

impl<'i> AtRuleParser<'i> for ImportScan<'_> {
    type Prelude = ();
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        if name.eq_ignore_ascii_case("import") {
            if let Some(import) = import_prelude(input, self.env)
                && let Some(url) = resolve(self.base, &import.href)
            {
                self.found.push(url);
            }
        } else if !name.eq_ignore_ascii_case("charset") && !name.eq_ignore_ascii_case("layer") {
            self.done = true;
        }
        while input.next().is_ok() {}
        Ok(())
    }

    fn rule_without_block(&mut self, _: (), _: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(&mut self, _: (), _: &ParserState, _: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        // A block `@layer` ends the imports too.
        self.done = true;
        Ok(())
    }
}

impl<'i> QualifiedRuleParser<'i> for ImportScan<'_> {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        self.done = true;
        while input.next().is_ok() {}
        Ok(())
    }

    fn parse_block(&mut self, _: (), _: &ParserState, _: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        Ok(())
    }
}

/// An import's absolute URL.
fn resolve(base: Option<&Url>, href: &str) -> Option<Url> {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace());
    match base {
        Some(base) => base.join(href).ok(),
        None => Url::parse(href).ok(),
    }
}

/// Reads a `style` attribute.
pub(crate) fn parse_inline(text: &str) -> DeclBlock {
    let mut block = DeclBlock::default();
    let mut input = Parser::new(text);
    let mut parser = DeclOnly { block: &mut block };
    for _ in RuleBodyParser::new(&mut input, &mut parser) {}
    block
}

/// Parses one declaration's value (and `!important`) into `block`.
///
/// A custom property keeps its value as written; so does a property whittle
/// computes whose value has `var()` (any value parses then: it is read
/// when the element's custom properties are known).
fn declaration<'i>(
    block: &mut DeclBlock,
    name: &str,
    input: &mut Parser<'i>,
) -> Result<(), ParseError<()>> {
    let mut decls = Vec::new();
    let start = input.position();
    let parsed = input.parse_until_before(Delimiter::Bang, |i| {
        if name.starts_with("--") {
            // Kept as written (below): `parse_until_before` skips the rest
            // of it (its result, "not exhausted", is not read).
            return Ok(());
        }
        parse_declaration(name, i, &mut decls).ok_or(ParseError::<()>::custom(()))
    });
    let value = input.slice_from(start);
    if name.starts_with("--") {
        decls.push(Decl::Custom(Arc::new(Unparsed { name: name.into(), value: value.trim().into() })));
    } else if has_var(value) {
        if !is_read(name) {
            return Err(ParseError::custom(()));
        }
        decls.clear();
        decls.push(Decl::Pending(Arc::new(Unparsed { name: name.into(), value: value.into() })));
    } else {
        parsed?;
    }
    let important = input.try_parse(cssparser::parse_important).is_ok();
    input.expect_exhausted()?;
    if important {
        block.important.extend(decls);
    } else {
        block.normal.extend(decls);
    }
    Ok(())
}

/// Reads a value substituted for `var()` as property `name`; false when
/// it is not a value of that property.
pub(crate) fn parse_substituted(name: &str, text: &str, out: &mut Vec<Decl>) -> bool {
    let mut input = Parser::new(text);
    let parsed = input.parse_until_before(Delimiter::Bang, |i| {
        parse_declaration(name, i, out).ok_or(ParseError::<()>::custom(()))
    });
    parsed.is_ok() && input.is_exhausted()
}

/// Whether a value's text has a `var(` (a false match only costs a
/// substitution that changes nothing).
pub(crate) fn has_var(value: &str) -> bool {
    let b = value.as_bytes();
    memchr::memchr_iter(b'(', b).any(|i| i >= 3 && b[i - 3..i].eq_ignore_ascii_case(b"var"))
}

/// Whether whittle computes the property `name` (it reads `unset` there).
pub(crate) fn is_read(name: &str) -> bool {
    let mut decls = Vec::new();
    parse_declaration(name, &mut Parser::new("unset"), &mut decls).is_some() && !decls.is_empty()
}

struct DeclOnly<'a> {
    block: &'a mut DeclBlock,
}

impl<'i> DeclarationParser<'i> for DeclOnly<'_> {
    type Declaration = ();
    type Error = ();
    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _start: &ParserState,
    ) -> Result<(), ParseError<()>> {
        declaration(self.block, &name, input)
    }
}

impl<'i> AtRuleParser<'i> for DeclOnly<'_> {
    type Prelude = ();
    type AtRule = ();
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for DeclOnly<'_> {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, (), ()> for DeclOnly<'_> {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        false
    }
}

/// The at-rules whittle reads.
enum AtPrelude {
    /// `@media` / `@supports`: whether the condition holds.
    Conditional(bool),
    /// `@layer` with the names it gives (none: an anonymous block).
    Layer(Vec<Vec<String>>),
    /// `@import` whose conditions hold.
    Import(Import),
    /// `@container`: the name asked for, the condition as written.
    Container(Option<Box<str>>, Box<str>),
    /// A malformed `@layer` or `@import` prelude: a block after it is a
    /// rule that could not be read.
    Invalid,
    /// Anything else (`@font-face`, `@keyframes`, …): skipped.
    Skip,
}

fn at_prelude(name: &str, input: &mut Parser<'_>, env: &MediaEnv) -> AtPrelude {
    let prelude = if name.eq_ignore_ascii_case("media") {
        AtPrelude::Conditional(matches_media_list_in(input, env))
    } else if name.eq_ignore_ascii_case("supports") {
        AtPrelude::Conditional(supports(input))
    } else if name.eq_ignore_ascii_case("layer") {
        // A malformed name makes the whole rule invalid.
        layer_names(input).map_or(AtPrelude::Invalid, AtPrelude::Layer)
    } else if name.eq_ignore_ascii_case("import") {
        import_prelude(input, env).map_or(AtPrelude::Invalid, AtPrelude::Import)
    } else if name.eq_ignore_ascii_case("container") {
        let name = input
            .try_parse(|i| {
                let ident = i.expect_ident()?.clone();
                let keyword = ["and", "or", "not", "none", "style"].iter().any(|k| ident.eq_ignore_ascii_case(k));
                if keyword { Err(ParseError::<()>::custom(())) } else { Ok(Box::<str>::from(ident.as_ref())) }
            })
            .ok();
        let start = input.position();
        while input.next().is_ok() {}
        AtPrelude::Container(name, input.slice_from(start).trim().into())
    } else {
        AtPrelude::Skip
    };
    while input.next().is_ok() {}
    prelude
}

/// Reads rules at the top level, inside conditional and layer at-rules,
/// and (with a parent) nested inside style rules.
struct RuleParser<'a, 'b> {
    env: &'a MediaEnv,
    out: &'a mut ParsedSheet,
    sheets: &'a mut Sheets<'b>,
    parent: Option<Selectors>,
    layer: Option<u32>,
    container: Option<Arc<ContainerRule>>,
    base: Option<&'a Url>,
    /// Whether this is the sheet's top level, where `@import` may be.
    top: bool,
    /// Whether a rule after which `@import` is invalid was read.
    rules_seen: bool,
    /// Whether rules that match no element of the document are skipped
    /// (see [`Sheets::only_for`]).
    skips: bool,
}

impl RuleParser<'_, '_> {
    /// Reads the rules of a block (a conditional, layer or container
    /// rule) into the same output, in `layer` and under `container`.
    fn block(&mut self, input: &mut Parser<'_>, layer: Option<u32>, container: Option<Arc<ContainerRule>>) {
        let mut inner = RuleParser {
            env: self.env,
            out: self.out,
            sheets: self.sheets,
            parent: self.parent.clone(),
            layer,
            container,
            base: self.base,
            top: false,
            rules_seen: true,
            skips: self.skips,
        };
        let mut invalid = 0;
        for result in StyleSheetParser::new(input, &mut inner) {
            if result.is_err() {
                invalid += 1;
            }
        }
        self.out.invalid_rules += invalid;
    }

    /// Reads an imported sheet in place.
    fn import(&mut self, import: Import) {
        let Some(url) = resolve(self.base, &import.href) else { return };
        let sheets = &mut *self.sheets;
        if sheets.stack.iter().any(|u| *u == url.as_str())
            || sheets.stack.len() >= MAX_IMPORT_DEPTH
            || sheets.imports_read >= MAX_IMPORTS
        {
            sheets.cut += 1;
            return;
        }
        let Some(&text) = sheets.by_url.get(url.as_str()) else {
            sheets.missing += 1;
            return;
        };
        sheets.imports_read += 1;
        let layer = match import.layer {
            None => self.layer,
            Some(name) => Some(sheets.layers.declare(self.layer, name.as_deref())),
        };
        sheets.stack.push(url.as_str().to_owned());
        read_rules(text, Some(&url), self.env, self.sheets, self.out, layer);
        self.sheets.stack.pop();
    }
}

impl<'i> AtRuleParser<'i> for RuleParser<'_, '_> {
    type Prelude = AtPrelude;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<AtPrelude, ParseError<()>> {
        let prelude = at_prelude(&name, input, self.env);
        // Only `@charset`, `@layer` statements and other `@import`s may
        // come before an `@import`.
        if !name.eq_ignore_ascii_case("import") && !name.eq_ignore_ascii_case("charset") && !name.eq_ignore_ascii_case("layer") {
            self.rules_seen = true;
        }
        Ok(prelude)
    }

    fn rule_without_block(&mut self, prelude: AtPrelude, _start: &ParserState) -> Result<(), ()> {
        match prelude {
            AtPrelude::Import(import) if self.top && !self.rules_seen => self.import(import),
            AtPrelude::Layer(names) => {
                for name in &names {
                    self.sheets.layers.declare(self.layer, Some(name));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn parse_block(&mut self, prelude: AtPrelude, _start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        match prelude {
            AtPrelude::Conditional(true) => {
                self.rules_seen = true;
                self.block(input, self.layer, self.container.clone());
            }
            AtPrelude::Layer(names) => {
                self.rules_seen = true;
                // A block names one layer, or none (anonymous).
                if names.len() <= 1 {
                    let layer = self.sheets.layers.declare(self.layer, names.first().map(Vec::as_slice));
                    self.block(input, Some(layer), self.container.clone());
                }
            }
            AtPrelude::Container(name, query) => {
                self.rules_seen = true;
                let container = Arc::new(ContainerRule { name, query, outer: self.container.clone() });
                self.block(input, self.layer, Some(container));
            }
            // Valid rules that do not apply, or that whittle does not
            // read: passed over (left unread, `cssparser` would count them
            // with the rules that could not be read).
            AtPrelude::Conditional(false) | AtPrelude::Skip => {
                self.rules_seen = true;
                while input.next().is_ok() {}
            }
            // An `@import` with a block, or a malformed one: counted.
            AtPrelude::Import(_) | AtPrelude::Invalid => self.rules_seen = true,
        }
        Ok(())
    }
}

/// A style rule's selectors: read, or (a rule that matches no element of
/// the document) only their text, read if the rule turns out to nest
/// other rules.
enum RulePrelude<'i> {
    Read(Selectors),
    Unmatched(&'i str),
}

impl<'i> QualifiedRuleParser<'i> for RuleParser<'_, '_> {
    type Prelude = RulePrelude<'i>;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<RulePrelude<'i>, ParseError<()>> {
        self.rules_seen = true;
        if self.skips
            && self.parent.is_none()
            && let Some(present) = self.sheets.present()
        {
            let (start, state) = (input.position(), input.state());
            if unmatched(input, present) {
                return Ok(RulePrelude::Unmatched(input.slice_from(start)));
            }
            input.reset(&state);
        }
        let selectors = parse_selector_list(input, self.parent.is_some()).map_err(|_| ParseError::custom(()))?;
        Ok(RulePrelude::Read(match &self.parent {
            Some(parent) => selectors.replace_parent_selector(parent),
            None => selectors,
        }))
    }

    fn parse_block(&mut self, prelude: RulePrelude<'i>, start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        let selectors = match prelude {
            RulePrelude::Read(selectors) => selectors,
            RulePrelude::Unmatched(text) => {
                // Its declarations apply to nothing; a rule nested in it
                // (a `{` in the block) may still match (`:not(&)`), so
                // then it is read after all.
                let state = input.state();
                if !has_block(input) {
                    return Ok(());
                }
                input.reset(&state);
                let selectors = parse_selector_list(&mut Parser::new(text), false).map_err(|_| ParseError::custom(()))?;
                return QualifiedRuleParser::parse_block(self, RulePrelude::Read(selectors), start, input);
            }
        };
        // The rule's own declarations come before the rules nested in it.
        let slot = self.out.rules.len();
        let (layer, container) = (self.layer, self.container.clone());
        self.out.rules.push(SheetRule { selectors: selectors.clone(), block: Arc::new(DeclBlock::default()), layer, container });
        let mut block = DeclBlock::default();
        // Rules nested in it may still match (`&:hover` never does, but in
        // `:is(a:hover, b) .x` the `b` may): only its own declarations are
        // skipped when none of its selectors is filed.
        let declarations = !selectors.slice().iter().all(never_filed);
        let mut body = BodyParser { parser: self, selectors: &selectors, block: &mut block, declarations };
        // Errors here are declarations whittle does not compute (or cannot
        // read): normal, not worth a diagnostic.
        for _ in RuleBodyParser::new(input, &mut body) {}
        if block.is_empty() {
            self.out.rules.remove(slot);
        } else {
            self.out.rules[slot].block = Arc::new(block);
        }
        Ok(())
    }
}

/// Whether a selector list (read from `input` to its end) matches no
/// element of the document: each of its complex selectors has, in its
/// last compound and outside any function, a class, an id or a type that
/// no element has. Anything it does not follow (a `&`, a namespace, a
/// malformed class or id) makes it answer no, and the list is read as
/// usual.
fn unmatched(input: &mut Parser<'_>, present: &Present<'_>) -> bool {
    use cssparser::Token;
    // Whether the current compound needs what no element has; whether a
    // compound, then white space, then a combinator were passed since the
    // last compound began.
    let (mut absent, mut compound, mut space, mut combinator) = (false, false, false, false);
    loop {
        let token = match input.next_including_whitespace() {
            Ok(token) => token.clone(),
            // A selector may not end in a combinator.
            Err(_) => return absent && !combinator,
        };
        match token {
            Token::WhiteSpace(_) => space = compound,
            Token::Delim('>' | '+' | '~') => {
                if !compound || combinator {
                    return false;
                }
                combinator = true;
            }
            Token::Comma => {
                if !absent || combinator {
                    return false;
                }
                (absent, compound, space) = (false, false, false);
            }
            Token::Delim('&' | '|') | Token::Hash(_) => return false,
            token => {
                let first = !compound || space || combinator;
                if space || combinator {
                    (absent, space, combinator) = (false, false, false);
                }
                compound = true;
                match token {
                    Token::Ident(name) if first => absent |= !present.has_tag(&name),
                    Token::IDHash(id) => absent |= !present.has(&present.ids, &id),
                    Token::Delim('.') => match input.next_including_whitespace() {
                        Ok(Token::Ident(class)) => absent |= !present.has(&present.classes, class),
                        _ => return false,
                    },
                    _ => {}
                }
            }
        }
    }
}

/// Whether a rule's block (read from `input` to its end) holds a `{ … }`
/// of its own: a nested rule, or a block in a value.
fn has_block(input: &mut Parser<'_>) -> bool {
    loop {
        match input.next() {
            Ok(cssparser::Token::CurlyBracketBlock) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// The body of a style rule: declarations, nested style rules, nested
/// conditional and layer at-rules.
struct BodyParser<'p, 'a, 'b, 'c> {
    parser: &'p mut RuleParser<'a, 'b>,
    selectors: &'c Selectors,
    block: &'c mut DeclBlock,
    /// Whether its declarations are read (see [`never_filed`]).
    declarations: bool,
}

impl<'b> BodyParser<'_, '_, 'b, '_> {
    /// A parser for rules nested in this one: `parent` is this rule's
    /// selectors for nested style rules, `None` for the declarations of a
    /// nested at-rule (which apply to this rule's selectors).
    fn nested(&mut self, parent: Option<Selectors>, layer: Option<u32>, container: Option<Arc<ContainerRule>>) -> RuleParser<'_, 'b> {
        RuleParser {
            env: self.parser.env,
            out: self.parser.out,
            sheets: self.parser.sheets,
            parent,
            layer,
            container,
            base: self.parser.base,
            top: false,
            rules_seen: true,
            skips: self.parser.skips,
        }
    }
}

impl<'i> DeclarationParser<'i> for BodyParser<'_, '_, '_, '_> {
    type Declaration = ();
    type Error = ();
    fn parse_value(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>, _start: &ParserState) -> Result<(), ParseError<()>> {
        if !self.declarations {
            // `cssparser` skips the rest of it to the `;`.
            return Err(ParseError::custom(()));
        }
        declaration(self.block, &name, input)
    }
}

impl<'i> AtRuleParser<'i> for BodyParser<'_, '_, '_, '_> {
    type Prelude = AtPrelude;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<AtPrelude, ParseError<()>> {
        Ok(at_prelude(&name, input, self.parser.env))
    }

    fn rule_without_block(&mut self, _prelude: AtPrelude, _start: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(&mut self, prelude: AtPrelude, start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        let container = self.parser.container.clone();
        let (layer, container) = match prelude {
            AtPrelude::Conditional(true) => (self.parser.layer, container),
            AtPrelude::Layer(names) if names.len() <= 1 => {
                (Some(self.parser.sheets.layers.declare(self.parser.layer, names.first().map(Vec::as_slice))), container)
            }
            AtPrelude::Container(name, query) => {
                (self.parser.layer, Some(Arc::new(ContainerRule { name, query, outer: container })))
            }
            _ => return Ok(()),
        };
        // Declarations directly inside a nested conditional rule apply to
        // the parent's selectors, in their own rule after it; rules nested
        // in it are nested in the parent.
        let selectors = self.selectors.clone();
        let mut parent = self.nested(None, layer, container);
        QualifiedRuleParser::parse_block(&mut parent, RulePrelude::Read(selectors), start, input)
    }
}

impl<'i> QualifiedRuleParser<'i> for BodyParser<'_, '_, '_, '_> {
    type Prelude = Selectors;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<Selectors, ParseError<()>> {
        let selectors = parse_selector_list(input, true).map_err(|_| ParseError::custom(()))?;
        Ok(selectors.replace_parent_selector(self.selectors))
    }

    fn parse_block(&mut self, selectors: Selectors, start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        let (layer, container) = (self.parser.layer, self.parser.container.clone());
        let mut nested = self.nested(Some(self.selectors.clone()), layer, container);
        QualifiedRuleParser::parse_block(&mut nested, RulePrelude::Read(selectors), start, input)
    }
}

impl<'i> RuleBodyItemParser<'i, (), ()> for BodyParser<'_, '_, '_, '_> {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::values::{Display, Visibility};

    const ENV: MediaEnv = MediaEnv { width: 1280.0, height: 800.0, scripting: true };

    fn rules(css: &str) -> Vec<(String, DeclBlock)> {
        use cssparser::ToCss;
        parse_sheet(css, &ENV)
            .rules
            .into_iter()
            .map(|r| (r.selectors.to_css_string(), (*r.block).clone()))
            .collect()
    }

    #[test]
    fn keeps_only_rules_that_matter() {
        let got = rules("a { cursor: pointer } .x { display: none; cursor: text } p { visibility: hidden !important }");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, ".x");
        assert_eq!(got[0].1.normal, vec![Decl::Display(Display::None)]);
        assert_eq!(got[1].1.important, vec![Decl::Visibility(Visibility::Hidden)]);
        // No selector of the rule is ever filed: its declarations are not
        // read, but a rule nested in it is.
        let got = rules("a:hover, ::selection { display: none } .y:focus { display: none; & + p { display: none } }");
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [":is(.y:focus) + p"]);
    }

    #[test]
    fn media_and_supports_are_evaluated() {
        let got = rules(
            "@media print { .a { display: none } } @media (min-width: 600px) { .b { display: none } }
             @supports (display: grid) { .c { display: none } } @font-face { font-family: x }
             @layer base { .d { display: none } } @container (width > 1px) { .e { display: none } }",
        );
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".b", ".c", ".d", ".e"]);
    }

    #[test]
    fn rules_that_do_not_apply_are_not_counted_as_unreadable() {
        // Conditions that do not hold and at-rules whittle does not read
        // are valid CSS; a malformed selector and a malformed layer name
        // are not.
        let sheet = parse_sheet(
            "@media print { .a { display: none } } @font-face { font-family: x } @keyframes k { to { top: 0 } }
             @supports (display: nope) { p { display: none } } .b:: { display: none } @layer a..b { .c { display: none } }",
            &ENV,
        );
        assert_eq!((sheet.rules.len(), sheet.invalid_rules), (0, 2));
    }

    #[test]
    fn nesting_is_flattened() {
        let got = rules(".card { display: block; & .title { display: none } .body { display: none } @media (min-width: 1px) { display: flex } }");
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".card", ":is(.card) .title", ":is(.card) .body", ".card"]);
    }

    #[test]
    fn broken_css_is_survived() {
        // A stray `}` starts a (bad) rule that swallows the next block, as in
        // a browser; the rule after it survives.
        let got = rules("}}} .z { display: none } .a { display: none ; ;; } @media { .b { display: none } .c {{{ display:none");
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".a", ".b"]);
        let _ = rules("\u{0}\u{ffff}/*");
        let _ = rules(&"(".repeat(10_000));
        let _ = rules(&"@media screen { ".repeat(10_000));
    }

    /// The selectors of the rules read for `html`'s document (a rule that
    /// matches none of its elements is skipped, in a sheet made long enough
    /// by a comment), and how many were dropped as unreadable.
    fn rules_for(html: &str, css: &str) -> (Vec<String>, usize) {
        use cssparser::ToCss;
        let doc = crate::parse(html.as_bytes(), &Default::default());
        let mut sheets = Sheets::default();
        sheets.only_for = Some(&doc);
        let css = format!("/*{}*/{css}", " ".repeat(SKIP_FROM));
        let sheet = parse_sheet_in(&css, None, &ENV, &mut sheets);
        (sheet.rules.iter().map(|r| r.selectors.to_css_string()).collect(), sheet.invalid_rules)
    }

    #[test]
    fn rules_that_match_no_element_are_not_read() {
        let html = "<!doctype html><p class='here a:b' id=top>x";
        let css = ".gone, #gone, p .gone, .here.gone, .gone:hover, .gone > p + .gone ~ .gone, .gone::before { display: none }
            .gone,#gone { display: none }
            .gone p, .here, #top, .a\\:b, .gone, p, :not(.gone), .gone .here, p.here { display: none }
            .Here { display: none } .gone, .here { display: none } .gone /* c */ { display: none }
            table, p > TD { display: none } P::before { display: none } *|table { display: none }";
        let (read, invalid) = rules_for(html, css);
        assert_eq!(read, [
            ".gone p, .here, #top, .a\\:b, .gone, p, :not(.gone), .gone .here, p.here",
            ".gone, .here",
            "P::before",
            "table",
        ]);
        assert_eq!(invalid, 0);
        // The same sheet read for no document in particular keeps them
        // all, and so does a short sheet.
        assert_eq!(rules(css).len(), 9);
        let doc = crate::parse(html.as_bytes(), &Default::default());
        let mut sheets = Sheets::default();
        sheets.only_for = Some(&doc);
        assert_eq!(parse_sheet_in(css, None, &ENV, &mut sheets).rules.len(), 9);
    }

    #[test]
    fn an_unmatched_rule_still_gives_its_nested_rules() {
        let (read, _) = rules_for("<!doctype html><p>x", ".gone { display: none; :not(&) { display: none } } .gone { & p { display: none } }");
        // The first is read whole (its own declarations too, harmless).
        assert_eq!(read, [".gone", ":not(:is(.gone))", ":is(.gone) p"]);
    }

    #[test]
    fn selectors_it_does_not_follow_are_read_as_usual() {
        // Malformed selectors are still found malformed; a `&` at the top
        // and a bad id are left to the selector parser.
        let (read, invalid) = rules_for("<!doctype html><p>x", ".gone > { display: none } > .gone { display: none } .gone, { display: none } .gone. { display: none } #1 { display: none } & .gone { display: none }");
        assert_eq!(read, ["& .gone"]);
        assert_eq!(invalid, 5);
    }

    #[test]
    fn quirks_mode_compares_without_case() {
        // Without a doctype classes and ids match whatever their ASCII
        // case: a rule is skipped only when no case of it is there.
        let (read, _) = rules_for("<p class=Here id=Top>x", ".HERE { display: none } #top { display: none } .gone { display: none } .hére { display: none }");
        assert_eq!(read, [".HERE", "#top"]);
    }

    #[test]
    fn inline_style() {
        let block = parse_inline("display:none; cursor: pointer; visibility: hidden !important");
        assert_eq!(block.normal, vec![Decl::Display(Display::None)]);
        assert_eq!(block.important, vec![Decl::Visibility(Visibility::Hidden)]);
    }
}
