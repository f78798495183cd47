//! Selector matching over the arena: the `selectors` crate's `SelectorImpl`
//! (whittle's atoms, pseudo-classes and pseudo-elements) and its `Element`
//! trait for [`ElementRef`], a `Copy` view of one element of a [`Document`].
//!
//! Pseudo-classes describe a page at rest: no element is hovered, focused,
//! active or visited. `:has()` is matched by looking down and forward from
//! the anchor, within the same step budget as every other walk (see
//! [`MatchState`]): a hostile `:has()` can only make whittle apply fewer
//! rules.

use std::borrow::Borrow;
use std::cell::Cell;
use std::fmt;

use cssparser::{ParseError, ToCss};
use html5ever::{LocalName, Namespace, local_name, ns};
use precomputed_hash::PrecomputedHash;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::{BLOOM_HASH_MASK, BloomFilter};
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::matching::ElementSelectorFlags;
use selectors::parser::{ParseRelative, SelectorList, SelectorParseErrorKind};
use selectors::{OpaqueElement, SelectorImpl};

use crate::dom::{Document, Element, Name, NodeData, NodeId};

/// whittle's selector vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Simple;

/// An identifier, local name or prefix: an atom that knows its hash.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub(crate) struct Ident(pub(crate) LocalName);

impl<'a> From<&'a str> for Ident {
    fn from(s: &'a str) -> Ident {
        Ident(LocalName::from(s))
    }
}

impl ToCss for Ident {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl PrecomputedHash for Ident {
    fn precomputed_hash(&self) -> u32 {
        self.0.precomputed_hash()
    }
}

impl Borrow<LocalName> for Ident {
    fn borrow(&self) -> &LocalName {
        &self.0
    }
}

impl ToCss for Name {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(self.as_str(), dest)
    }
}

/// What `selectors` files ids and classes under in its bloom filter:
/// [`Name::bloom`], the hash the cascade files elements' own by.
impl PrecomputedHash for Name {
    fn precomputed_hash(&self) -> u32 {
        self.bloom()
    }
}

/// An attribute value in a selector.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct AttrValue(String);

impl<'a> From<&'a str> for AttrValue {
    fn from(s: &'a str) -> AttrValue {
        AttrValue(s.to_owned())
    }
}

impl AsRef<str> for AttrValue {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl ToCss for AttrValue {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_string(&self.0, dest)
    }
}

/// The pseudo-classes whittle evaluates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PseudoClass {
    Link,
    AnyLink,
    Checked,
    Indeterminate,
    Disabled,
    Enabled,
    Required,
    Optional,
    ReadOnly,
    ReadWrite,
    PlaceholderShown,
    Default,
    Defined,
    Open,
    /// `:lang(x)`.
    Lang(Box<str>),
    /// `:dir(ltr|rtl)`: true when the element or its nearest ancestor with
    /// `dir` says so (ltr when none does).
    Dir(bool),
    /// A pseudo-class that never matches a page at rest (`:hover`,
    /// `:focus`, `:visited`, `:target`, …) or one whittle does not know.
    /// (Its text as read, colon included.)
    Never(Box<str>),
}

impl ToCss for PseudoClass {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        let name = match self {
            PseudoClass::Link => "link",
            PseudoClass::AnyLink => "any-link",
            PseudoClass::Checked => "checked",
            PseudoClass::Indeterminate => "indeterminate",
            PseudoClass::Disabled => "disabled",
            PseudoClass::Enabled => "enabled",
            PseudoClass::Required => "required",
            PseudoClass::Optional => "optional",
            PseudoClass::ReadOnly => "read-only",
            PseudoClass::ReadWrite => "read-write",
            PseudoClass::PlaceholderShown => "placeholder-shown",
            PseudoClass::Default => "default",
            PseudoClass::Defined => "defined",
            PseudoClass::Open => "open",
            PseudoClass::Lang(l) => return write!(dest, ":lang({l})"),
            PseudoClass::Dir(rtl) => return dest.write_str(if *rtl { ":dir(rtl)" } else { ":dir(ltr)" }),
            PseudoClass::Never(n) => return dest.write_str(n),
        };
        dest.write_char(':')?;
        dest.write_str(name)
    }
}

impl selectors::parser::NonTSPseudoClass for PseudoClass {
    fn is_active_or_hover(&self) -> bool {
        false
    }
    fn is_user_action_state(&self) -> bool {
        false
    }
}

/// The pseudo-elements whittle reads (`::before`, `::after`); others parse
/// and never apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PseudoElement {
    Before,
    After,
    Other(Box<str>),
}

impl ToCss for PseudoElement {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        dest.write_str("::")?;
        dest.write_str(match self {
            PseudoElement::Before => "before",
            PseudoElement::After => "after",
            PseudoElement::Other(n) => n,
        })
    }
}

impl selectors::parser::PseudoElement for PseudoElement {
    fn is_before_or_after(&self) -> bool {
        matches!(self, PseudoElement::Before | PseudoElement::After)
    }
    fn accepts_state_pseudo_classes(&self) -> bool {
        true
    }
}

impl SelectorImpl for Simple {
    type ExtraMatchingData<'a> = ();
    type AttrValue = AttrValue;
    type Identifier = Name;
    type LocalName = Ident;
    type NamespaceUrl = Namespace;
    type NamespacePrefix = Ident;
    type BorrowedNamespaceUrl = Namespace;
    type BorrowedLocalName = LocalName;
    type NonTSPseudoClass = PseudoClass;
    type PseudoElement = PseudoElement;
}

/// Parses selectors into whittle's vocabulary.
pub(crate) struct SelectorParser;

impl<'i> selectors::parser::Parser<'i> for SelectorParser {
    type Impl = Simple;
    type Error = SelectorParseErrorKind;

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    fn parse_has(&self) -> bool {
        true
    }

    fn parse_parent_selector(&self) -> bool {
        true
    }

    fn is_is_alias(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("-webkit-any") || name.eq_ignore_ascii_case("-moz-any")
    }

    fn parse_non_ts_pseudo_class(&self, name: &str) -> Result<PseudoClass, ParseError<Self::Error>> {
        pseudo_class(name)
    }

    fn parse_non_ts_functional_pseudo_class(
        &self,
        name: &str,
        parser: &mut cssparser::Parser<'i>,
        _after_part: bool,
    ) -> Result<PseudoClass, ParseError<Self::Error>> {
        if name.eq_ignore_ascii_case("lang") {
            let lang = parser.expect_ident_or_string()?.as_ref().to_ascii_lowercase();
            return Ok(PseudoClass::Lang(lang.into()));
        }
        if name.eq_ignore_ascii_case("dir") {
            let dir = parser.expect_ident()?.clone();
            return Ok(PseudoClass::Dir(dir.eq_ignore_ascii_case("rtl")));
        }
        // Other functional pseudo-classes a browser knows: the arguments
        // are consumed and the state never holds on a page at rest. One a
        // browser does not know makes the selector invalid.
        if !known_pseudo_class(name) {
            return Err(ParseError::custom(SelectorParseErrorKind::UnsupportedPseudoClassOrElement));
        }
        while parser.next().is_ok() {}
        Ok(PseudoClass::Never(format!(":{name}()").into()))
    }

    fn parse_pseudo_element(&self, name: &str) -> Result<PseudoElement, ParseError<Self::Error>> {
        // Other engines' pseudo-elements make a selector invalid in
        // Chromium (`::selection, ::-moz-selection` is a rule it drops).
        let bytes = name.as_bytes();
        if ["-moz-", "-ms-", "-o-"].iter().any(|p| bytes.len() > p.len() && bytes[..p.len()].eq_ignore_ascii_case(p.as_bytes())) {
            return Err(ParseError::custom(SelectorParseErrorKind::UnsupportedPseudoClassOrElement));
        }
        Ok(if name.eq_ignore_ascii_case("before") {
            PseudoElement::Before
        } else if name.eq_ignore_ascii_case("after") {
            PseudoElement::After
        } else {
            PseudoElement::Other(name.to_ascii_lowercase().into())
        })
    }

    fn parse_functional_pseudo_element(
        &self,
        name: &str,
        arguments: &mut cssparser::Parser<'i>,
    ) -> Result<PseudoElement, ParseError<Self::Error>> {
        while arguments.next().is_ok() {}
        Ok(PseudoElement::Other(name.to_ascii_lowercase().into()))
    }
}

/// Whether Chromium knows a pseudo-class (see `known.rs`).
fn known_pseudo_class(name: &str) -> bool {
    super::known::PSEUDO_CLASSES.binary_search(&name.to_ascii_lowercase().as_str()).is_ok()
}

/// A pseudo-class whittle evaluates; one a browser knows but that never
/// holds on a page at rest is `Never`; an unknown one is an error (the
/// selector list is invalid, as in a browser).
fn pseudo_class(name: &str) -> Result<PseudoClass, ParseError<SelectorParseErrorKind>> {
    let lower = name.to_ascii_lowercase();
    Ok(match lower.as_str() {
        "link" => PseudoClass::Link,
        "any-link" | "-webkit-any-link" => PseudoClass::AnyLink,
        "checked" => PseudoClass::Checked,
        "indeterminate" => PseudoClass::Indeterminate,
        "disabled" => PseudoClass::Disabled,
        "enabled" => PseudoClass::Enabled,
        "required" => PseudoClass::Required,
        "optional" => PseudoClass::Optional,
        "read-only" => PseudoClass::ReadOnly,
        "read-write" => PseudoClass::ReadWrite,
        "placeholder-shown" => PseudoClass::PlaceholderShown,
        "default" => PseudoClass::Default,
        "defined" => PseudoClass::Defined,
        "open" => PseudoClass::Open,
        _ if known_pseudo_class(&lower) => PseudoClass::Never(format!(":{lower}").into()),
        _ => return Err(ParseError::custom(SelectorParseErrorKind::UnsupportedPseudoClassOrElement)),
    })
}

/// A parsed selector list.
pub(crate) type Selectors = SelectorList<Simple>;

/// Parses a selector list as a style rule's prelude (nested rules may use
/// `&`).
pub(crate) fn parse_selector_list(
    input: &mut cssparser::Parser<'_>,
    nested: bool,
) -> Result<Selectors, ParseError<SelectorParseErrorKind>> {
    let relative = if nested { ParseRelative::ForNesting } else { ParseRelative::No };
    SelectorList::parse(&SelectorParser, input, relative)
}

/// A selector the caller typed (e.g. `whittle inspect`).
#[derive(Debug)]
pub struct Selector(Selectors);

/// A selector that did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(pub String);

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid selector: {}", self.0)
    }
}

impl std::error::Error for SelectorError {}

impl Selector {
    /// Parses a selector list such as `main a[href], .price`.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        let mut parser = cssparser::Parser::new(text);
        parse_selector_list(&mut parser, false)
            .map(Selector)
            .map_err(|e| SelectorError(format!("{text:?} ({:?})", e.kind)))
    }

    /// The elements of `doc` that match, in tree order.
    pub fn select(&self, doc: &Document) -> Vec<NodeId> {
        let mut caches = SelectorCaches::default();
        let quirks = if doc.is_quirks() { QuirksMode::Quirks } else { QuirksMode::NoQuirks };
        let state = MatchState::new(doc.len());
        doc.descendants(NodeId::DOCUMENT)
            .filter(|&id| {
                doc.element(id).is_some() && {
                    state.reset();
                    let mut ctx = MatchingContext::new(
                        MatchingMode::Normal,
                        None,
                        &mut caches,
                        quirks,
                        NeedsSelectorFlags::No,
                        MatchingForInvalidation::No,
                    );
                    selectors::matching::matches_selector_list(&self.0, ElementRef::new(doc, id, &state), &mut ctx)
                        && !state.is_cut()
                }
            })
            .collect()
    }
}

/// How many tree steps (to a parent or sibling) matching may take for one
/// element, across all the rules tried on it. Ordinary pages stay far below
/// it (at most 3,000 on any page of the shared corpus); it bounds what
/// hostile selectors can cost (nested `:is()` with combinators is
/// exponential in its nesting).
pub(crate) const ELEMENT_STEPS: u32 = 20_000;
/// The steps one document may take: a fixed part plus a part per node
/// (the shared corpus needs at most 0.6 M steps and 372 per node). This
/// bounds patterns that are cheap per element but add up, such as
/// `A ~ B` among 100,000 siblings.
pub(crate) const DOCUMENT_STEPS: u64 = 4_000_000;
/// The per-node part of [`DOCUMENT_STEPS`].
pub(crate) const DOCUMENT_STEPS_PER_NODE: u64 = 100;

/// The matching work budget of one cascade. When it runs out, the rule
/// being matched counts as not matching and the element's remaining author
/// rules are skipped: a hostile stylesheet can only make whittle apply
/// fewer rules, never wrong ones, and the cascade stays linear.
#[derive(Debug)]
pub(crate) struct MatchState {
    element_left: Cell<u32>,
    document_left: Cell<u64>,
    /// Set when a walk was refused for the current element.
    cut: Cell<bool>,
    /// Elements on which a walk was refused.
    pub(crate) cut_elements: Cell<u32>,
    /// The selected options of every select, computed the first time
    /// `:checked` asks about an option.
    selected: std::cell::OnceCell<std::collections::HashSet<NodeId>>,
}

impl MatchState {
    pub(crate) fn new(nodes: usize) -> MatchState {
        MatchState {
            element_left: Cell::new(ELEMENT_STEPS),
            document_left: Cell::new(DOCUMENT_STEPS + DOCUMENT_STEPS_PER_NODE * nodes as u64),
            cut: Cell::new(false),
            cut_elements: Cell::new(0),
            selected: std::cell::OnceCell::new(),
        }
    }

    fn option_selected(&self, doc: &Document, option: NodeId) -> bool {
        let selected = self.selected.get_or_init(|| {
            doc.descendants(NodeId::DOCUMENT)
                .filter(|&n| doc.element(n).is_some_and(|e| e.is_html(&local_name!("select"))))
                .flat_map(|n| crate::dom::form::selected_options(doc, n))
                .collect()
        });
        selected.contains(&option)
            || (!doc.ancestors(option).take(2).any(|a| doc.element(a).is_some_and(|e| e.is_html(&local_name!("select"))))
                && doc.element(option).is_some_and(|e| e.has_attr("selected")))
    }

    /// Starts the budget of a new element.
    pub(crate) fn reset(&self) {
        if self.cut.replace(false) {
            self.cut_elements.set(self.cut_elements.get() + 1);
        }
        self.element_left.set(ELEMENT_STEPS);
    }

    /// Whether a walk was refused on the current element.
    pub(crate) fn is_cut(&self) -> bool {
        self.cut.get()
    }

    /// Takes one step charged to the document's budget only; false (and
    /// the element marked cut) when it is spent.
    #[inline]
    fn step_document(&self) -> bool {
        let d = self.document_left.get();
        if d == 0 {
            self.cut.set(true);
            return false;
        }
        self.document_left.set(d - 1);
        true
    }

    /// Takes one step; false (and the element marked cut) when a budget
    /// is spent.
    #[inline]
    fn step(&self) -> bool {
        let (e, d) = (self.element_left.get(), self.document_left.get());
        if e == 0 || d == 0 {
            self.cut.set(true);
            return false;
        }
        self.element_left.set(e - 1);
        self.document_left.set(d - 1);
        true
    }
}

/// A view of one element for the `selectors` crate.
#[derive(Clone, Copy)]
pub(crate) struct ElementRef<'a> {
    pub(crate) doc: &'a Document,
    pub(crate) id: NodeId,
    state: &'a MatchState,
}

impl fmt::Debug for ElementRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ElementRef({:?})", self.id)
    }
}

impl<'a> ElementRef<'a> {
    pub(crate) fn new(doc: &'a Document, id: NodeId, state: &'a MatchState) -> ElementRef<'a> {
        ElementRef { doc, id, state }
    }

    fn element(&self) -> &'a Element {
        match &self.doc.node(self.id).data {
            NodeData::Element(e) => e,
            // ElementRef is only ever built for elements.
            _ => unreachable_element(),
        }
    }

    /// A neighbour, if the step budget allows the step.
    fn wrap(&self, id: Option<NodeId>) -> Option<ElementRef<'a>> {
        let id = id?;
        self.state.step().then_some(ElementRef { doc: self.doc, id, state: self.state })
    }

    /// A child, if the document's step budget allows the step (see
    /// [`ElementRef::next_sibling_element`]).
    fn wrap_forward(&self, id: Option<NodeId>) -> Option<ElementRef<'a>> {
        let id = id?;
        self.state.step_document().then_some(ElementRef { doc: self.doc, id, state: self.state })
    }

    fn html_is(&self, name: &LocalName) -> bool {
        self.element().is_html(name)
    }

    /// Form controls that can be disabled (HTML §4.10.18.5 plus `fieldset`,
    /// `optgroup`, `option`).
    fn is_disabled(&self) -> bool {
        crate::dom::form::is_disabled(self.doc, self.id)
    }

    fn is_form_control(&self) -> bool {
        let e = self.element();
        e.is_html_element()
            && matches!(
                *e.local_name(),
                local_name!("button")
                    | local_name!("input")
                    | local_name!("select")
                    | local_name!("textarea")
                    | local_name!("optgroup")
                    | local_name!("option")
                    | local_name!("fieldset")
            )
    }

    fn is_text_field(&self) -> bool {
        let e = self.element();
        if e.is_html(&local_name!("textarea")) {
            return true;
        }
        e.is_html(&local_name!("input"))
            && matches!(
                crate::dom::form::input_type(e),
                "text" | "search" | "url" | "tel" | "email" | "password" | "number" | "date"
                    | "month" | "week" | "time" | "datetime-local"
            )
    }

    fn is_checked(&self) -> bool {
        let e = self.element();
        if e.is_html(&local_name!("input")) {
            crate::dom::form::is_checked(self.doc, self.id)
        } else if e.is_html(&local_name!("option")) {
            self.state.option_selected(self.doc, self.id)
        } else {
            false
        }
    }

    fn lang(&self) -> Option<&'a str> {
        std::iter::once(self.id)
            .chain(self.doc.ancestors(self.id))
            .filter_map(|a| self.doc.element(a))
            .find_map(|e| e.attr("lang").or_else(|| e.attr("xml:lang")))
    }

    fn is_rtl(&self) -> bool {
        std::iter::once(self.id)
            .chain(self.doc.ancestors(self.id))
            .filter_map(|a| self.doc.element(a))
            .find_map(|e| match e.attr("dir").map(str::to_ascii_lowercase).as_deref() {
                Some("rtl") => Some(true),
                Some("ltr") => Some(false),
                _ => None,
            })
            .unwrap_or(false)
    }
}

#[cold]
fn unreachable_element() -> ! {
    // Invariant of ElementRef::new's callers; a bug here is ours, not the page's.
    panic!("ElementRef built for a non-element node")
}

impl selectors::Element for ElementRef<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.doc.node(self.id))
    }

    fn parent_element(&self) -> Option<Self> {
        self.wrap(self.doc.parent_element(self.id))
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.sibling_element(Document::prev_sibling, MatchState::step)
    }

    fn next_sibling_element(&self) -> Option<Self> {
        // Forward walks are `:has()` looking down and ahead (and
        // `:nth-last-*`): charged to the document's budget only, so that
        // `body:has(dialog[open])` on a page of 50,000 elements is one
        // full walk, not a cut.
        self.sibling_element(Document::next_sibling, MatchState::step_document)
    }

    fn first_element_child(&self) -> Option<Self> {
        self.wrap_forward(self.doc.element_children(self.id).next())
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.element().is_html_element()
    }

    fn has_local_name(&self, local_name: &LocalName) -> bool {
        self.element().name.local == *local_name
    }

    fn has_namespace(&self, ns: &Namespace) -> bool {
        self.element().name.ns == *ns
    }

    fn is_same_type(&self, other: &Self) -> bool {
        self.element().name == other.element().name
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&Namespace>,
        local_name: &Ident,
        operation: &AttrSelectorOperation<&AttrValue>,
    ) -> bool {
        self.element().attrs.iter().any(|a| {
            a.name.local == local_name.0
                && match ns {
                    NamespaceConstraint::Any => true,
                    NamespaceConstraint::Specific(ns) => a.name.ns == **ns,
                }
                && operation.eval_str(&a.value)
        })
    }

    fn match_non_ts_pseudo_class(&self, pc: &PseudoClass, _: &mut MatchingContext<'_, Simple>) -> bool {
        match pc {
            PseudoClass::Link | PseudoClass::AnyLink => self.is_link(),
            PseudoClass::Checked => self.is_checked(),
            PseudoClass::Indeterminate => {
                let e = self.element();
                (e.is_html(&local_name!("input"))
                    && crate::dom::form::input_type(e) == "checkbox"
                    && e.has_attr("indeterminate"))
                    || (e.is_html(&local_name!("progress")) && !e.has_attr("value"))
            }
            PseudoClass::Disabled => self.is_form_control() && self.is_disabled(),
            PseudoClass::Enabled => self.is_form_control() && !self.is_disabled(),
            PseudoClass::Required => {
                (self.html_is(&local_name!("input"))
                    || self.html_is(&local_name!("select"))
                    || self.html_is(&local_name!("textarea")))
                    && self.element().has_attr("required")
            }
            PseudoClass::Optional => {
                (self.html_is(&local_name!("input"))
                    || self.html_is(&local_name!("select"))
                    || self.html_is(&local_name!("textarea")))
                    && !self.element().has_attr("required")
            }
            PseudoClass::ReadWrite => self.match_non_ts_pseudo_class_readwrite(),
            PseudoClass::ReadOnly => !self.match_non_ts_pseudo_class_readwrite(),
            PseudoClass::PlaceholderShown => {
                self.is_text_field()
                    && self.element().has_attr("placeholder")
                    && crate::dom::form::control_value(self.doc, self.id).is_empty()
            }
            PseudoClass::Default => {
                let e = self.element();
                (e.is_html(&local_name!("option")) && e.has_attr("selected"))
                    || (e.is_html(&local_name!("input"))
                        && matches!(crate::dom::form::input_type(e), "checkbox" | "radio")
                        && e.has_attr("checked"))
            }
            PseudoClass::Defined => true,
            PseudoClass::Open => {
                (self.html_is(&local_name!("details")) || self.html_is(&local_name!("dialog")))
                    && self.element().has_attr("open")
            }
            PseudoClass::Lang(want) => self.lang().is_some_and(|l| {
                let l = l.to_ascii_lowercase();
                l == **want || (l.starts_with(&**want) && l.as_bytes().get(want.len()) == Some(&b'-'))
            }),
            PseudoClass::Dir(rtl) => self.is_rtl() == *rtl,
            PseudoClass::Never(_) => false,
        }
    }

    fn match_pseudo_element(&self, _pe: &PseudoElement, _: &mut MatchingContext<'_, Simple>) -> bool {
        false
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        // `:link` and `:any-link` match `a` and `area` with an href (HTML
        // §4.16.3). Called once per selector match (for :visited handling):
        // keep it to an atom comparison for the common case.
        let e = self.element();
        matches!(e.name.local, local_name!("a") | local_name!("area")) && e.name.ns == ns!(html) && e.has_attr("href")
    }

    fn is_html_slot_element(&self) -> bool {
        false
    }

    fn has_id(&self, id: &Name, case_sensitivity: CaseSensitivity) -> bool {
        self.element().id_name().is_some_and(|own| match case_sensitivity {
            CaseSensitivity::CaseSensitive => own == id,
            CaseSensitivity::AsciiCaseInsensitive => own.eq_ignore_ascii_case(id),
        })
    }

    fn has_class(&self, name: &Name, case_sensitivity: CaseSensitivity) -> bool {
        let classes = self.element().class_names();
        match case_sensitivity {
            // Names compare their hashes first.
            CaseSensitivity::CaseSensitive => classes.contains(name),
            CaseSensitivity::AsciiCaseInsensitive => classes.iter().any(|c| c.eq_ignore_ascii_case(name)),
        }
    }

    fn has_custom_state(&self, _name: &Name) -> bool {
        false
    }

    fn imported_part(&self, _name: &Name) -> Option<Name> {
        None
    }

    fn is_part(&self, _name: &Name) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        self.doc.children(self.id).all(|c| match &self.doc.node(c).data {
            NodeData::Element(_) => false,
            NodeData::Text(t) => t.is_empty(),
            _ => true,
        })
    }

    fn is_root(&self) -> bool {
        self.doc.parent(self.id) == Some(NodeId::DOCUMENT)
    }

    fn add_element_unique_hashes(&self, filter: &mut BloomFilter) -> bool {
        for_each_hash(self.element(), |h| filter.insert_hash(h));
        true
    }
}

impl ElementRef<'_> {
    /// The nearest element sibling in one direction, each node passed
    /// charged to the budget `step` takes from.
    fn sibling_element(&self, next: fn(&Document, NodeId) -> Option<NodeId>, step: fn(&MatchState) -> bool) -> Option<Self> {
        let mut s = next(self.doc, self.id);
        while let Some(id) = s {
            if !step(self.state) {
                return None;
            }
            if self.doc.element(id).is_some() {
                return Some(ElementRef { doc: self.doc, id, state: self.state });
            }
            s = next(self.doc, id);
        }
        None
    }

    fn match_non_ts_pseudo_class_readwrite(&self) -> bool {
        (self.is_text_field() && !self.element().has_attr("readonly") && !self.is_disabled())
            || self.element().attr("contenteditable").is_some_and(|v| !v.eq_ignore_ascii_case("false"))
    }
}

/// The bloom-filter hashes of an element: local name, namespace, id and
/// classes, as `selectors` collects them from selectors. Ids and classes
/// go in as [`Name::bloom`]s, which ignore ASCII case: in quirks mode,
/// where ids and classes match ignoring it, `selectors` leaves them out of
/// a selector's hashes and whittle files them itself (see
/// `index::ancestor_hashes`), with the same hashes.
pub(crate) fn for_each_hash(e: &Element, mut f: impl FnMut(u32)) {
    f(e.name.local.precomputed_hash() & BLOOM_HASH_MASK);
    if e.name.ns != ns!() {
        f(e.name.ns.precomputed_hash() & BLOOM_HASH_MASK);
    }
    for name in e.id_name().into_iter().chain(e.class_names()) {
        f(name.bloom());
    }
}

/// Matching state for one pass over a document.
pub(crate) struct Matcher {
    pub(crate) caches: SelectorCaches,
    pub(crate) quirks: QuirksMode,
    pub(crate) state: MatchState,
}

impl Matcher {
    pub(crate) fn new(doc: &Document) -> Matcher {
        Matcher {
            caches: SelectorCaches::default(),
            quirks: if doc.is_quirks() { QuirksMode::Quirks } else { QuirksMode::NoQuirks },
            state: MatchState::new(doc.len()),
        }
    }
}
