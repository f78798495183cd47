//! The cascade's walk: every element in tree order, its matching rules
//! by origin, importance, specificity and order (CSS Cascade 4 §6), its
//! computed values from its parent's, what it hides, and the generated
//! content of its `::before`/`::after`. One pass, no recursion; a subtree
//! under `display: none` is not matched at all.

use std::collections::HashMap;
use std::sync::Arc;

use html5ever::local_name;
use selectors::bloom::BloomFilter;
use selectors::context::{MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags};
use smallvec::SmallVec;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{Document, Edge, Element, NodeId};

use super::index::{IndexedRule, Origin, Rules, Target};
use super::media::MediaEnv;
use super::select::{ElementRef, Matcher, for_each_hash};
use super::custom::Customs;
use super::sheet::{DeclBlock, parse_inline, parse_substituted};
use super::values::ContainerType;
use super::values::{
    Content, ContentVisibility, Decl, Display, FontSize, Position, Property, Unparsed, Visibility, Wide, resolve_length,
};
use super::{boxes, custom, media, sheet};
use super::{CascadeOptions, ComputedStyle, Hidden, INVISIBLE, NONE, PseudoStyle, ReadRules, SKIPPED, Styles, Veil};

/// Runs the cascade on rules [`read_rules`] filed.
pub(super) fn run_cascade(doc: &Document, options: &CascadeOptions, read: &Arc<ReadRules>, container_sizes: Option<&ContainerSizes>) -> Styles {
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

impl<'a> Cascader<'a> {
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

    /// Collects the declaration blocks of the rules for `target` that
    /// match `id`, with their cascade sort keys.
    fn matching<'r>(
        &mut self,
        target: Target,
        id: NodeId,
        e: &Element,
        bloom: &BloomFilter,
        mode: MatchingMode,
        out: &mut SmallVec<[Matched<'r>; 16]>,
    ) where
        'a: 'r,
    {
        let doc = self.doc;
        let rules = self.rules;
        let quirks = doc.is_quirks();
        let unlayered = rules.unlayered;
        // Each hit with the order its index's orders start from.
        let mut hits: SmallVec<[(&'a IndexedRule, u32); 16]> = SmallVec::new();
        let Matcher { caches, quirks: quirks_mode, state } = &mut self.matcher;
        let element = ElementRef::new(doc, id, state);
        // One context for all the rules tried on the element: matching
        // leaves it as it found it.
        let mut ctx =
            MatchingContext::new(mode, Some(bloom), caches, *quirks_mode, NeedsSelectorFlags::No, MatchingForInvalidation::No);
        for (index, first) in rules.indexes(target) {
            index.candidates(e, quirks, |rule: &'a IndexedRule| {
                // Out of budget: skip author rules (UA rules need no walks).
                if state.is_cut() && rule.origin == Origin::Author {
                    return;
                }
                let matched = selectors::matching::matches_selector(&rule.selector, 0, Some(&rule.hashes), element, &mut ctx);
                // A match decided after a refused walk is not trusted.
                if matched && !state.is_cut() {
                    hits.push((rule, first));
                }
            });
        }
        for (rule, first) in hits {
            if let Some(container) = &rule.container
                && !self.container_holds(id, container)
            {
                continue;
            }
            let (normal, important) = match rule.origin {
                Origin::UserAgent => (0, 3),
                Origin::Author => (1, 2),
            };
            let (layer, order) = (rules.layer(rule), first + rule.order);
            if !rule.block.normal.is_empty() {
                out.push((normal, layer, rule.specificity, order, &rule.block.normal));
            }
            if !rule.block.important.is_empty() {
                // Important declarations of earlier layers win.
                out.push((important, unlayered.saturating_sub(layer), rule.specificity, order, &rule.block.important));
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
        self.matching(Target::Element, id, e, bloom, MatchingMode::Normal, &mut matched);
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
        for (target, is_before) in [(Target::Before, true), (Target::After, false)] {
            if rules.is_empty(target) {
                continue;
            }
            let mut matched: SmallVec<[Matched<'_>; 16]> = SmallVec::new();
            self.matching(target, id, e, bloom, MatchingMode::ForStatelessPseudoElement, &mut matched);
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
