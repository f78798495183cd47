//! The rule index: every selector of every kept rule, filed under the most
//! selective part of its rightmost compound (an id, else a class, else a tag
//! name, else "universal"), so an element only tries the rules that could
//! match it. Each rule also carries its ancestor hashes for the bloom filter
//! that rejects descendant selectors without walking ancestors.

use std::sync::{Arc, OnceLock};

use html5ever::LocalName;
use selectors::bloom::BLOOM_HASH_MASK;
use selectors::context::QuirksMode;
use selectors::parser::{AncestorHashes, Combinator, Component, Selector};

use smallvec::SmallVec;

use super::select::{PseudoElement, Simple};
use super::sheet::{ContainerRule, DeclBlock, ParsedSheet};
use super::values::Decl;
use crate::dom::{Element, Name, NameMap};

/// Where a rule comes from (CSS Cascade 4 §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    UserAgent,
    Author,
}

/// Which box a rule styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Element,
    Before,
    After,
}

#[derive(Debug)]
pub(crate) struct IndexedRule {
    pub(crate) selector: Selector<Simple>,
    pub(crate) hashes: AncestorHashes,
    /// The precedence of its cascade layer (higher wins for normal
    /// declarations; see [`super::sheet::Layers::ranks`]), or
    /// [`UNLAYERED`]: read it through [`Rules::layer`].
    pub(crate) layer: u32,
    pub(crate) specificity: u32,
    pub(crate) order: u32,
    pub(crate) origin: Origin,
    pub(crate) block: Arc<DeclBlock>,
    /// The `@container` rule it is in, if any.
    pub(crate) container: Option<Arc<ContainerRule>>,
}

/// The rules for one target, filed by bucket.
#[derive(Debug, Default)]
pub(crate) struct RuleIndex {
    pub(crate) rules: Vec<IndexedRule>,
    by_id: NameMap<Name, Vec<u32>>,
    by_class: NameMap<Name, Vec<u32>>,
    by_tag: NameMap<LocalName, Vec<u32>>,
    universal: Vec<u32>,
}

enum Bucket {
    Id(Name),
    Class(Name),
    Tag(LocalName),
    Universal,
}

impl RuleIndex {
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn push(&mut self, rule: IndexedRule, bucket: Bucket) {
        let index = self.rules.len() as u32;
        self.rules.push(rule);
        match bucket {
            Bucket::Id(k) => self.by_id.entry(k).or_default().push(index),
            Bucket::Class(k) => self.by_class.entry(k).or_default().push(index),
            Bucket::Tag(k) => self.by_tag.entry(k).or_default().push(index),
            Bucket::Universal => self.universal.push(index),
        }
    }

    /// Calls `f` with every rule that could match `e` (each once).
    pub(crate) fn candidates<'r>(&'r self, e: &Element, quirks: bool, mut f: impl FnMut(&'r IndexedRule)) {
        if self.rules.is_empty() {
            return;
        }
        let each = |list: Option<&'r Vec<u32>>, f: &mut dyn FnMut(&'r IndexedRule)| {
            for &i in list.into_iter().flatten() {
                f(&self.rules[i as usize]);
            }
        };
        // In quirks mode ids and classes were filed in lower case.
        let lookup = |map: &'r NameMap<Name, Vec<u32>>, key: &Name, f: &mut dyn FnMut(&'r IndexedRule)| {
            let hit = if quirks && key.has_ascii_uppercase() { map.get(&key.to_ascii_lowercase()) } else { map.get(key) };
            each(hit, f);
        };
        if let Some(id) = e.id_name() {
            lookup(&self.by_id, id, &mut f);
        }
        for class in e.class_names() {
            lookup(&self.by_class, class, &mut f);
        }
        each(self.by_tag.get(&e.name.local), &mut f);
        if e.name.local.bytes().any(|b| b.is_ascii_uppercase()) {
            let lower = LocalName::from(e.name.local.to_ascii_lowercase());
            each(self.by_tag.get(&lower), &mut f);
        }
        for &i in &self.universal {
            f(&self.rules[i as usize]);
        }
    }
}

/// The layer of an author rule outside any layer, until the cascade knows
/// where that is (its sheets may declare layers after it was filed):
/// [`Rules::layer`] gives the rank.
pub(crate) const UNLAYERED: u32 = u32::MAX;

/// The rules of some sheets, split by target. Each rule's `order` counts
/// from the filing's first selector.
#[derive(Debug, Default)]
pub(crate) struct Filed {
    pub(crate) element: RuleIndex,
    pub(crate) before: RuleIndex,
    pub(crate) after: RuleIndex,
    /// Whether a selector uses `:has()`.
    has_relative: bool,
    /// Whether a rule is inside an `@container` size query.
    size_queries: bool,
    /// Selectors read, filed or not: the orders this filing takes.
    selectors: u32,
}

impl Filed {
    pub(crate) fn index(&self, target: Target) -> &RuleIndex {
        match target {
            Target::Element => &self.element,
            Target::Before => &self.before,
            Target::After => &self.after,
        }
    }
}

/// A sheet's own filing, made the first time a cascade files it and kept
/// with the sheet, one per way of filing it (quirks mode, which
/// declarations are kept): the UA sheet, and a site's large sheet read
/// once per session, are then not filed again on every page.
#[derive(Debug, Default)]
pub(crate) struct SharedFiling(pub(super) [OnceLock<Arc<Filed>>; 8]);

/// All rules of a document: its own filing (its sheets read for it alone)
/// and the shared filings (the UA sheet's, and those of the cached sheets
/// it links), each at the order its first selector takes in the cascade.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    own: Filed,
    shared: Vec<(Arc<Filed>, u32)>,
    /// Whether a selector uses `:has()`.
    pub(crate) has_relative: bool,
    /// The layer precedence of author rules outside any layer.
    pub(crate) unlayered: u32,
    /// Whether a rule is inside an `@container` size query.
    pub(crate) size_queries: bool,
}

/// Which declarations matter to the cascade being run: a rule that sets
/// none of them is not filed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kept {
    /// Custom properties (some computed value uses `var()`, or a
    /// container query asks for a style).
    pub(crate) customs: bool,
    pub(crate) boxes: KeptBoxes,
}

/// Which box properties matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeptBoxes {
    /// All of them: a layout follows.
    All,
    /// Those that can hide a box when there is no layout.
    Hiding,
}

impl Kept {
    fn keeps(self, decl: &Decl) -> bool {
        match decl {
            Decl::Custom(_) => self.customs,
            Decl::Box(p, _) | Decl::BoxWide(p, _) => self.boxes == KeptBoxes::All || super::boxes::WITHOUT_LAYOUT.contains(p),
            _ => true,
        }
    }
}

impl Rules {
    /// Files every selector of an author sheet's rules in the document's
    /// own filing, leaving out the rules that set nothing `kept` keeps.
    /// (The UA sheet is always shared: [`Rules::add_shared_sheet`].)
    pub(crate) fn add_author_sheet(&mut self, sheet: &ParsedSheet, quirks: bool, layer_rank: impl Fn(Option<u32>) -> u32, kept: Kept) {
        self.own.add_sheet(sheet, Origin::Author, quirks, layer_rank, kept);
        self.has_relative |= self.own.has_relative;
        self.size_queries |= self.own.size_queries;
    }

    /// Files a sheet that other cascades read too (the UA sheet, or a
    /// cached linked author sheet) through its own filing, made once. An
    /// author sheet shared so has no layered rule (the cache keeps no such
    /// sheet: layer ranks depend on the document), so each of its rules is
    /// filed as [`UNLAYERED`]; the UA sheet has no layers either, and its
    /// rules share the rank 0 of their origin.
    pub(crate) fn add_shared_sheet(&mut self, sheet: &ParsedSheet, origin: Origin, quirks: bool, kept: Kept) {
        debug_assert!(sheet.rules.iter().all(|r| r.layer.is_none()), "a shared sheet has no layered rule");
        let slot = usize::from(quirks) | usize::from(kept.customs) << 1 | usize::from(kept.boxes == KeptBoxes::All) << 2;
        let filed = sheet.filed.0[slot].get_or_init(|| {
            let layer = match origin {
                Origin::UserAgent => 0,
                Origin::Author => UNLAYERED,
            };
            let mut filed = Filed::default();
            filed.add_sheet(sheet, origin, quirks, |_| layer, kept);
            Arc::new(filed)
        });
        self.has_relative |= filed.has_relative;
        self.size_queries |= filed.size_queries;
        // The own filing's orders and the shared ones' share one count.
        let first = self.own.selectors;
        self.own.selectors += filed.selectors;
        self.shared.push((Arc::clone(filed), first));
    }

    /// Whether no rule styles `target`.
    pub(crate) fn is_empty(&self, target: Target) -> bool {
        self.own.index(target).is_empty() && self.shared.iter().all(|(f, _)| f.index(target).is_empty())
    }

    /// The indexes of the rules for `target`, each with the order its
    /// rules' own orders start from.
    pub(crate) fn indexes(&self, target: Target) -> impl Iterator<Item = (&RuleIndex, u32)> {
        std::iter::once((self.own.index(target), 0)).chain(self.shared.iter().map(move |(f, first)| (f.index(target), *first)))
    }

    /// The layer rank of `rule` in this cascade.
    #[inline]
    pub(crate) fn layer(&self, rule: &IndexedRule) -> u32 {
        if rule.layer == UNLAYERED { self.unlayered } else { rule.layer }
    }
}

impl Filed {
    /// Files every selector of `sheet`'s rules, leaving out the rules that
    /// set nothing `kept` keeps.
    fn add_sheet(&mut self, sheet: &ParsedSheet, origin: Origin, quirks: bool, layer_rank: impl Fn(Option<u32>) -> u32, kept: Kept) {
        let quirks_mode = if quirks { QuirksMode::Quirks } else { QuirksMode::NoQuirks };
        for rule in &sheet.rules {
            if !rule.block.normal.iter().chain(&rule.block.important).any(|d| kept.keeps(d)) {
                self.selectors += rule.selectors.slice().len() as u32;
                continue;
            }
            for selector in rule.selectors.slice() {
                let order = self.selectors;
                self.selectors += 1;
                if never_filed(selector) {
                    continue;
                }
                self.has_relative |= uses_has(selector);
                self.size_queries |=
                    std::iter::successors(rule.container.as_deref(), |c| c.outer.as_deref()).any(|c| !c.is_style_query());
                let (target, bucket) = classify(selector, quirks);
                let index = match target {
                    Some(Target::Element) => &mut self.element,
                    Some(Target::Before) => &mut self.before,
                    Some(Target::After) => &mut self.after,
                    None => continue,
                };
                index.push(
                    IndexedRule {
                        selector: selector.clone(),
                        hashes: ancestor_hashes(selector, quirks_mode),
                        layer: layer_rank(rule.layer),
                        specificity: selector.specificity(),
                        order,
                        origin,
                        block: Arc::clone(&rule.block),
                        container: rule.container.clone(),
                    },
                    bucket,
                );
            }
        }
    }
}

/// A selector's hashes for the bloom filter: names its ancestors must
/// have. In quirks mode `selectors` leaves out ancestors' classes and ids
/// (they match ignoring ASCII case), which on a page in quirks mode made
/// every `.menu a` try every ancestor of every link; whittle adds them as
/// their [`Name::bloom`]s, which ignore case, as the cascade files the
/// elements' own, up to the four hashes the filter checks.
fn ancestor_hashes(selector: &Selector<Simple>, quirks_mode: QuirksMode) -> AncestorHashes {
    let own = AncestorHashes::new(selector, quirks_mode);
    if quirks_mode != QuirksMode::Quirks {
        return own;
    }
    let mut hashes: SmallVec<[u32; 4]> = own.packed_hashes.iter().map(|h| h & BLOOM_HASH_MASK).take_while(|&h| h != 0).collect();
    if hashes.len() == 3 && own.fourth_hash() != 0 {
        return own;
    }
    // The compounds an element's ancestors match: those left of a child or
    // descendant combinator, not those of its siblings' (left of `+` or
    // `~` up to the next such combinator) nor its own (left of a
    // pseudo-element).
    let mut iter = selector.iter();
    let mut ancestor = false;
    'walk: loop {
        for component in iter.by_ref() {
            let name = match component {
                Component::ID(id) if ancestor => id,
                Component::Class(class) if ancestor => class,
                _ => continue,
            };
            let hash = name.bloom();
            if !hashes.contains(&hash) {
                hashes.push(hash);
                if hashes.len() == 4 {
                    break 'walk;
                }
            }
        }
        match iter.next_sequence() {
            None => break,
            Some(combinator) => ancestor = matches!(combinator, Combinator::Child | Combinator::Descendant),
        }
    }
    let fourth = hashes.get(3).copied().unwrap_or(0);
    let at = |i: usize| hashes.get(i).copied().unwrap_or(0);
    AncestorHashes {
        packed_hashes: [
            at(0) | (fourth & 0x0000_00ff) << 24,
            at(1) | (fourth & 0x0000_ff00) << 16,
            at(2) | (fourth & 0x00ff_0000) << 8,
        ],
    }
}

/// Whether a selector is not filed at all: it needs a state a page at
/// rest never has (`:hover`, `:focus`, `:visited`, …) outside any `:not()`,
/// or styles a pseudo-element whittle does not draw (`::selection`,
/// `::placeholder`, …). This removes a large share of real-world rules;
/// reading a sheet skips the declarations of a rule with no other selector.
pub(crate) fn never_filed(selector: &Selector<Simple>) -> bool {
    matches!(selector.pseudo_element(), Some(PseudoElement::Other(_)))
        || selector
            .iter_raw_match_order()
            .any(|c| matches!(c, Component::NonTSPseudoClass(super::select::PseudoClass::Never(_))))
}

/// Whether a selector has a `:has()`, at any depth of `:is()`,
/// `:where()` and `:not()`.
fn uses_has(selector: &Selector<Simple>) -> bool {
    selector.iter_raw_match_order().any(|c| match c {
        Component::Has(_) => true,
        Component::Is(list) | Component::Where(list) | Component::Negation(list) => list.slice().iter().any(uses_has),
        _ => false,
    })
}

/// Which box a selector styles (`None`: a pseudo-element whittle ignores)
/// and where to file it.
fn classify(selector: &Selector<Simple>, quirks: bool) -> (Option<Target>, Bucket) {
    let target = match selector.pseudo_element() {
        None => Some(Target::Element),
        Some(PseudoElement::Before) => Some(Target::Before),
        Some(PseudoElement::After) => Some(Target::After),
        Some(PseudoElement::Other(_)) => None,
    };
    let mut iter = selector.iter();
    if target != Some(Target::Element) {
        // Skip the pseudo-element's own compound.
        for _ in iter.by_ref() {}
        if iter.next_sequence() != Some(Combinator::PseudoElement) {
            return (target, Bucket::Universal);
        }
    }
    let fold = |a: &Name| if quirks { a.to_ascii_lowercase() } else { a.clone() };
    let mut class = None;
    let mut tag = None;
    for component in iter {
        match component {
            Component::ID(id) => return (target, Bucket::Id(fold(id))),
            Component::Class(c) if class.is_none() => class = Some(fold(c)),
            Component::LocalName(l) => tag = Some(l.lower_name.0.clone()),
            _ => {}
        }
    }
    let bucket = match (class, tag) {
        (Some(c), _) => Bucket::Class(c),
        (None, Some(t)) => Bucket::Tag(t),
        (None, None) => Bucket::Universal,
    };
    (target, bucket)
}
