//! The rule index: every selector of every kept rule, filed under the most
//! selective part of its rightmost compound (an id, else a class, else a tag
//! name, else "universal"), so an element only tries the rules that could
//! match it. Each rule also carries its ancestor hashes for the bloom filter
//! that rejects descendant selectors without walking ancestors.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use html5ever::LocalName;
use selectors::context::QuirksMode;
use selectors::parser::{AncestorHashes, Combinator, Component, Selector};

use super::select::{PseudoElement, Simple};
use super::sheet::{ContainerRule, DeclBlock, ParsedSheet};
use super::values::Decl;
use crate::dom::Element;

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
    /// declarations; see [`super::sheet::Layers::ranks`]).
    pub(crate) layer: u32,
    pub(crate) specificity: u32,
    pub(crate) order: u32,
    pub(crate) origin: Origin,
    pub(crate) block: Arc<DeclBlock>,
    /// The `@container` rule it is in, if any.
    pub(crate) container: Option<Arc<ContainerRule>>,
}

/// A hasher for atoms, whose `Hash` writes their precomputed 32-bit hash.
#[derive(Default)]
pub(crate) struct AtomHasher(u64);

impl Hasher for AtomHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0 ^ u64::from(i)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type AtomMap<V> = HashMap<LocalName, V, BuildHasherDefault<AtomHasher>>;

/// The rules for one target, filed by bucket.
#[derive(Debug, Default)]
pub(crate) struct RuleIndex {
    pub(crate) rules: Vec<IndexedRule>,
    by_id: AtomMap<Vec<u32>>,
    by_class: AtomMap<Vec<u32>>,
    by_tag: AtomMap<Vec<u32>>,
    universal: Vec<u32>,
}

enum Bucket {
    Id(LocalName),
    Class(LocalName),
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
        let lookup = |map: &'r AtomMap<Vec<u32>>, key: &LocalName, f: &mut dyn FnMut(&'r IndexedRule)| {
            let hit = if quirks && key.bytes().any(|b| b.is_ascii_uppercase()) {
                map.get(&LocalName::from(key.to_ascii_lowercase()))
            } else {
                map.get(key)
            };
            if let Some(list) = hit {
                for &i in list {
                    f(&self.rules[i as usize]);
                }
            }
        };
        if let Some(id) = &e.id {
            lookup(&self.by_id, id, &mut f);
        }
        for class in e.class_atoms() {
            lookup(&self.by_class, class, &mut f);
        }
        lookup(&self.by_tag, &e.name.local, &mut f);
        if e.name.local.bytes().any(|b| b.is_ascii_uppercase()) {
            let lower = LocalName::from(e.name.local.to_ascii_lowercase());
            lookup(&self.by_tag, &lower, &mut f);
        }
        for &i in &self.universal {
            f(&self.rules[i as usize]);
        }
    }
}

/// All rules of a document, split by target.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    pub(crate) element: RuleIndex,
    pub(crate) before: RuleIndex,
    pub(crate) after: RuleIndex,
    /// Whether a selector uses `:has()`.
    pub(crate) has_relative: bool,
    /// The layer precedence of author rules outside any layer.
    pub(crate) unlayered: u32,
    /// Whether a rule is inside an `@container` size query.
    pub(crate) size_queries: bool,
    next_order: u32,
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
    /// Files every selector of `sheet`'s rules, leaving out the rules that
    /// set nothing `kept` keeps.
    pub(crate) fn add_sheet(
        &mut self,
        sheet: &ParsedSheet,
        origin: Origin,
        quirks: bool,
        layer_rank: impl Fn(Option<u32>) -> u32,
        kept: Kept,
    ) {
        let quirks_mode = if quirks { QuirksMode::Quirks } else { QuirksMode::NoQuirks };
        for rule in &sheet.rules {
            if !rule.block.normal.iter().chain(&rule.block.important).any(|d| kept.keeps(d)) {
                self.next_order += rule.selectors.slice().len() as u32;
                continue;
            }
            for selector in rule.selectors.slice() {
                let order = self.next_order;
                self.next_order += 1;
                if never_matches(selector) {
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
                        hashes: AncestorHashes::new(selector, quirks_mode),
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

/// Whether a selector needs a state a page at rest never has (`:hover`,
/// `:focus`, `:visited`, …) outside any `:not()`: such rules are not filed
/// at all, which removes a large share of real-world rules.
fn never_matches(selector: &Selector<Simple>) -> bool {
    selector
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
    let fold = |a: &LocalName| {
        if quirks { LocalName::from(a.to_ascii_lowercase()) } else { a.clone() }
    };
    let mut class = None;
    let mut tag = None;
    for component in iter {
        match component {
            Component::ID(id) => return (target, Bucket::Id(fold(&id.0))),
            Component::Class(c) if class.is_none() => class = Some(fold(&c.0)),
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
