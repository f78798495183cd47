//! Building the box tree (`boxes.rs`) from the Document and its Styles,
//! running taffy on it, and reading the boxes back.
//!
//! Block-level elements, flex and grid containers, atomic inline boxes
//! (`inline-block`, replaced elements) and out-of-flow boxes each get a
//! taffy node. Inline content between them is a *run*: its text becomes one
//! measured leaf ([`Leaf`]); a run that also holds atomic boxes becomes an
//! anonymous wrapping flex row, so the boxes sit side by side and wrap like
//! words. Inline elements (`<a>`, `<span>`) get no node: their box is the
//! union of their text's place in the run. Tables are approximated: rows
//! stack as blocks, each row a flex row of cells sharing the width.
//! `position: fixed` boxes hang off
//! a node the size of the viewport. The walk is iterative; the taffy tree
//! is cut at [`MAX_DEPTH`] because taffy itself recurses.

use html5ever::{local_name, ns};
use taffy::style_helpers::{TaffyGridLine, TaffyGridSpan, auto, length, percent};
use taffy as tf;

use super::Rect;
use super::boxes::{BoxTree, NO_PARENT};
use super::text::{ADVANCE, Leaf, NORMAL_LINE_HEIGHT, count};
use crate::dom::{Document, Element, NodeData, NodeId};
use crate::style::boxes::{
    Align, BoxProp, BoxValue, FlexDirection, GridLine, LineHeight, MaxTrack, MinTrack, Repeat,
    Side, Track, TrackSize,
};
use crate::style::values::{Display, Length, Overflow, Position, WhiteSpace, resolve_length};
use crate::style::{ComputedStyle, Styles};

/// Deepest taffy node; deeper content is laid out as text of the node at
/// this depth (taffy's layout recurses once per level).
pub(crate) const MAX_DEPTH: u16 = 160;

/// Largest length taffy is given, in px (Chromium clamps near 2²⁵ px).
const MAX_PX: f32 = 33_554_428.0;

/// A DOM text node's place in a text leaf, in px along its one line.
#[derive(Debug, Clone, Copy)]
struct Piece {
    node: NodeId,
    leaf: u32,
    start: f32,
    end: f32,
}

/// The built tree, before and after layout.
pub(crate) struct Built {
    /// The box tree, parents first; node 0 is the viewport.
    boxes: BoxTree,
    /// Which element each box stands for (`None`: anonymous).
    owner: Vec<Option<NodeId>>,
    /// Whether the node is `position: fixed` (or inside such a box).
    fixed: Vec<bool>,
    /// Whether the node clips its content.
    clips: Vec<bool>,
    pieces: Vec<Piece>,
    /// Elements cut at [`MAX_DEPTH`].
    pub(crate) cut: usize,
}

/// Boxes read back from taffy.
pub(crate) struct Boxes {
    /// Border box per DOM node.
    pub(crate) rects: Vec<Option<Rect>>,
    /// Per DOM node: inside a fixed box.
    pub(crate) fixed: Vec<bool>,
    /// Per DOM node: clipped away by an ancestor's overflow.
    pub(crate) clipped: Vec<bool>,
    /// Page height.
    pub(crate) content_height: f32,
}

struct Ctx<'a> {
    doc: &'a Document,
    styles: &'a Styles,
    vw: f32,
    vh: f32,
    root_font: f32,
}

impl Ctx<'_> {
    /// A length in px, clamped; percentages (resolved by taffy, or by the
    /// caller) count as 0 here.
    fn px(&self, l: Length, font: f32) -> f32 {
        resolve_length(l, font, self.root_font, 0.0, (self.vw, self.vh)).clamp(-MAX_PX, MAX_PX)
    }

    fn lp(&self, l: Length, font: f32) -> tf::LengthPercentage {
        match l {
            Length::Percent(p) if p.is_finite() => percent(p.clamp(-1e4, 1e4) / 100.0),
            _ => length(self.px(l, font)),
        }
    }

    /// A length, else `auto` (for `auto`, `none` and intrinsic keywords):
    /// a `Dimension` or a `LengthPercentageAuto`.
    fn or_auto<T: From<tf::LengthPercentage> + taffy::style_helpers::TaffyAuto>(&self, v: &BoxValue, font: f32) -> T {
        match v {
            BoxValue::Length(l) => self.lp(*l, font).into(),
            _ => auto(),
        }
    }

    /// A length, else 0 (padding, borders, gaps).
    fn or_zero(&self, v: &BoxValue, font: f32) -> tf::LengthPercentage {
        match v {
            BoxValue::Length(l) => self.lp(*l, font),
            _ => length(0.0),
        }
    }

    fn line_height(&self, id: NodeId) -> f32 {
        let font = self.styles.get(id).font_size;
        let lh = self
            .styles
            .box_decls(id)
            .iter()
            .find_map(|(p, v)| match (p, v) {
                (BoxProp::LineHeight, BoxValue::LineHeight(lh)) => Some(*lh),
                _ => None,
            });
        let px = match lh.unwrap_or(LineHeight::Normal) {
            LineHeight::Normal => font * NORMAL_LINE_HEIGHT,
            LineHeight::Number(n) => font * n,
            LineHeight::Length(Length::Percent(p)) => font * p / 100.0,
            LineHeight::Length(l) => self.px(l, font),
        };
        if px.is_finite() {
            px.clamp(0.0, MAX_PX)
        } else {
            font * NORMAL_LINE_HEIGHT
        }
    }
}

/// How a child takes part in its parent's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Its own block-level node.
    Block,
    /// Its own node, out of flow.
    OutOfFlow,
    /// An atomic box inside a line.
    Atomic,
    /// Its children flow in the parent's line.
    Inline,
}

fn is_replaced(e: &Element) -> bool {
    if e.namespace() == &ns!(svg) {
        return e.local_name() == &local_name!("svg");
    }
    e.is_html_element()
        && matches!(
            *e.local_name(),
            local_name!("img")
                | local_name!("input")
                | local_name!("select")
                | local_name!("textarea")
                | local_name!("iframe")
                | local_name!("video")
                | local_name!("audio")
                | local_name!("canvas")
                | local_name!("embed")
                | local_name!("object")
                | local_name!("meter")
                | local_name!("progress")
        )
}

fn part(doc: &Document, styles: &Styles, id: NodeId, e: &Element, st: &ComputedStyle) -> Part {
    if matches!(st.position, Position::Absolute | Position::Fixed) {
        return Part::OutOfFlow;
    }
    match st.display {
        Display::Inline => {
            if is_replaced(e) {
                return Part::Atomic;
            }
            // Block-in-inline (`<a><div>…</div></a>`): laid out as a block.
            let has_block = doc.element_children(id).any(|c| {
                !styles.is_display_none(c)
                    && !styles.get(c).display.is_inline_level()
                    && styles.get(c).display != Display::Contents
            });
            if has_block { Part::Block } else { Part::Inline }
        }
        Display::InlineBlock => Part::Atomic,
        _ => Part::Block,
    }
}

/// Pending inline content of one container.
#[derive(Default)]
struct Run {
    /// Text segments and atomic boxes in order.
    items: Vec<RunItem>,
}

enum RunItem {
    Text(TextSeg),
    Atomic(NodeId),
}

#[derive(Default)]
struct TextSeg {
    width: f32,
    longest_word: f32,
    breaks: u32,
    ends_with_space: bool,
    pieces: Vec<(NodeId, f32, f32)>,
}

impl Run {
    fn text(&mut self) -> &mut TextSeg {
        if !matches!(self.items.last(), Some(RunItem::Text(_))) {
            self.items.push(RunItem::Text(TextSeg::default()));
        }
        match self.items.last_mut() {
            Some(RunItem::Text(t)) => t,
            _ => unreachable!("a text segment was just pushed"),
        }
    }

    fn add_text(&mut self, node: NodeId, text: &str, st: &ComputedStyle) {
        let keep = matches!(
            st.white_space,
            WhiteSpace::Pre | WhiteSpace::PreWrap | WhiteSpace::PreLine
        );
        let c = count(text, keep);
        if c.chars == 0 && c.breaks == 0 {
            // Whitespace only: at most a space between words.
            let seg = self.text();
            if !seg.ends_with_space && seg.width > 0.0 {
                seg.width += ADVANCE * st.font_size;
                seg.ends_with_space = true;
            }
            return;
        }
        let advance = ADVANCE * st.font_size;
        let seg = self.text();
        if c.leading_space && !seg.ends_with_space && seg.width > 0.0 {
            seg.width += advance;
        }
        let start = seg.width;
        let chars = if keep && c.breaks > 0 {
            c.longest_line
        } else {
            c.chars
        };
        seg.width += chars as f32 * advance;
        seg.longest_word = seg.longest_word.max(c.longest_word as f32 * advance);
        seg.breaks += c.breaks as u32;
        seg.ends_with_space = c.trailing_space;
        seg.pieces.push((node, start, seg.width));
    }
}

/// Builds the taffy tree.
pub(crate) fn build(doc: &Document, styles: &Styles) -> Option<Built> {
    let root_el = doc.root_element()?;
    let vp = styles.viewport();
    let ctx = Ctx {
        doc,
        styles,
        vw: vp.width as f32,
        vh: vp.height as f32,
        root_font: styles.get(root_el).font_size,
    };
    let mut b = Built {
        boxes: BoxTree::with_capacity(doc.len() / 2 + 8),
        owner: Vec::new(),
        fixed: Vec::new(),
        clips: Vec::new(),
        pieces: Vec::new(),
        cut: 0,
    };
    let viewport_style = tf::Style {
        display: tf::Display::Block,
        size: tf::Size {
            width: length(ctx.vw),
            height: length(ctx.vh),
        },
        ..tf::Style::default()
    };
    b.boxes.push(viewport_style, None, NO_PARENT)?;
    b.owner.push(None);
    b.fixed.push(false);
    b.clips.push(false);
    let html = b.add_element(&ctx, root_el, 0)?;
    let mut queue: Vec<(NodeId, u32, u16)> = vec![(root_el, html, 1)];
    // The walk of one element's children, its buffer reused by the next.
    let mut walk = Vec::new();
    while let Some((el, at, depth)) = queue.pop() {
        b.children(&ctx, el, at, depth, &mut queue, &mut walk);
    }
    Some(b)
}

impl Built {
    fn push_node(
        &mut self,
        style: tf::Style,
        leaf: Option<Leaf>,
        parent: u32,
        owner: Option<NodeId>,
        fixed: bool,
        clips: bool,
    ) -> Option<u32> {
        let at = self.boxes.push(style, leaf, parent)?;
        let fixed = fixed || self.fixed[parent as usize];
        self.owner.push(owner);
        self.fixed.push(fixed);
        self.clips.push(clips);
        Some(at)
    }

    /// A node for element `id` under taffy node `parent` (the viewport node
    /// for fixed boxes).
    fn add_element(&mut self, ctx: &Ctx<'_>, id: NodeId, parent: u32) -> Option<u32> {
        let e = ctx.doc.element(id)?;
        let st = ctx.styles.get(id);
        let (style, leaf) = element_style(ctx, id, e, st);
        let clips = !matches!(st.overflow_x, Overflow::Visible)
            || !matches!(st.overflow_y, Overflow::Visible);
        let fixed = st.position == Position::Fixed;
        let parent = if fixed { 0 } else { parent };
        self.push_node(style, leaf, parent, Some(id), fixed, clips)
    }

    fn add_leaf(&mut self, leaf: Leaf, parent: u32, style: tf::Style) -> Option<u32> {
        self.push_node(style, Some(leaf), parent, None, false, false)
    }

    /// Lays out the children of `el` (taffy node `at`); `stack` is scratch
    /// space for the walk.
    fn children(
        &mut self,
        ctx: &Ctx<'_>,
        el: NodeId,
        at: u32,
        depth: u16,
        queue: &mut Vec<(NodeId, u32, u16)>,
        stack: &mut Vec<Option<NodeId>>,
    ) {
        let doc = ctx.doc;
        let Some(e) = doc.element(el) else { return };
        if is_replaced(e) {
            return;
        }
        let st = ctx.styles.get(el);
        let line_height = ctx.line_height(el);
        let wraps = !matches!(st.white_space, WhiteSpace::Nowrap | WhiteSpace::Pre);
        if depth >= MAX_DEPTH {
            // Too deep for taffy: the whole subtree is text of this box.
            let mut run = Run::default();
            for d in doc.descendants(el).skip(1) {
                if let Some(t) = doc.text(d)
                    && !ctx.styles.is_display_none(d)
                {
                    run.add_text(d, t, ctx.styles.get(d));
                }
            }
            self.cut += 1;
            self.flush(ctx, run, at, line_height, wraps, queue, depth);
            return;
        }
        let mut run = Run::default();
        stack.clear();
        stack.push(doc.first_child(el));
        while let Some(top) = stack.last_mut() {
            let Some(child) = *top else {
                stack.pop();
                continue;
            };
            *top = doc.next_sibling(child);
            if ctx.styles.is_display_none(child) {
                continue;
            }
            match &doc.node(child).data {
                NodeData::Text(t) => run.add_text(child, t, ctx.styles.get(child)),
                NodeData::Element(ce) => {
                    let cst = ctx.styles.get(child);
                    if cst.display == Display::Contents {
                        stack.push(doc.first_child(child));
                        continue;
                    }
                    match part(doc, ctx.styles, child, ce, cst) {
                        Part::Inline => stack.push(doc.first_child(child)),
                        Part::Atomic => run.items.push(RunItem::Atomic(child)),
                        Part::OutOfFlow => {
                            if let Some(n) = self.add_element(ctx, child, at) {
                                queue.push((child, n, depth + 1));
                            }
                        }
                        Part::Block => {
                            self.flush(
                                ctx,
                                std::mem::take(&mut run),
                                at,
                                line_height,
                                wraps,
                                queue,
                                depth,
                            );
                            if let Some(n) = self.add_element(ctx, child, at) {
                                queue.push((child, n, depth + 1));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.flush(ctx, run, at, line_height, wraps, queue, depth);
    }

    /// Turns pending inline content into nodes under `at`.
    #[allow(clippy::too_many_arguments)]
    fn flush(
        &mut self,
        ctx: &Ctx<'_>,
        run: Run,
        at: u32,
        line_height: f32,
        wraps: bool,
        queue: &mut Vec<(NodeId, u32, u16)>,
        depth: u16,
    ) {
        let has_atomic = run.items.iter().any(|i| matches!(i, RunItem::Atomic(_)));
        let mut parent = at;
        if has_atomic {
            let line = tf::Style {
                display: tf::Display::Flex,
                flex_wrap: if wraps {
                    tf::FlexWrap::Wrap
                } else {
                    tf::FlexWrap::NoWrap
                },
                align_items: tf::AlignItems::FLEX_END,
                ..tf::Style::default()
            };
            let Some(n) = self.push_node(line, None, at, None, false, false) else {
                return;
            };
            parent = n;
        }
        for item in run.items {
            match item {
                RunItem::Text(seg) => {
                    if seg.pieces.is_empty() {
                        continue;
                    }
                    let leaf = Leaf::Text {
                        width: seg.width.min(MAX_PX),
                        longest_word: seg.longest_word.min(MAX_PX),
                        line_height,
                        lines: seg.breaks.saturating_add(1),
                        wraps,
                    };
                    let style = tf::Style {
                        flex_shrink: 1.0,
                        ..tf::Style::default()
                    };
                    let Some(n) = self.add_leaf(leaf, parent, style) else {
                        continue;
                    };
                    for (node, start, end) in seg.pieces {
                        self.pieces.push(Piece {
                            node,
                            leaf: n,
                            start,
                            end,
                        });
                    }
                }
                RunItem::Atomic(id) => {
                    if let Some(n) = self.add_element(ctx, id, parent) {
                        queue.push((id, n, depth + 1));
                    }
                }
            }
        }
    }

    /// Runs taffy and reads back the boxes.
    pub(crate) fn layout(self, doc: &Document, vw: f32, vh: f32) -> Option<Boxes> {
        let available = tf::Size {
            width: tf::AvailableSpace::Definite(vw),
            height: tf::AvailableSpace::Definite(vh),
        };
        let layouts = self.boxes.layout(available);
        // Absolute boxes, parents first; clip rects inherited.
        let n = self.boxes.len();
        let mut abs: Vec<Rect> = Vec::with_capacity(n);
        let mut clip: Vec<Option<Rect>> = Vec::with_capacity(n);
        let mut clipped_node: Vec<bool> = Vec::with_capacity(n);
        let mut rects: Vec<Option<Rect>> = vec![None; doc.len()];
        let mut fixed: Vec<bool> = vec![false; doc.len()];
        let mut clipped: Vec<bool> = vec![false; doc.len()];
        let mut content_bottom = vh;
        for i in 0..n {
            let parent = self.boxes.parent(i as u32);
            let l = layouts.get(i)?;
            let (px, py, pclip) = if parent == NO_PARENT {
                (0.0, 0.0, None)
            } else {
                let p = abs[parent as usize];
                let own_clip = if self.clips[parent as usize] {
                    Some(p)
                } else {
                    None
                };
                (p.x, p.y, intersect(clip[parent as usize], own_clip))
            };
            let r = Rect {
                x: finite(px + l.location.x),
                y: finite(py + l.location.y),
                width: finite(l.size.width),
                height: finite(l.size.height),
            };
            let is_clipped = pclip.is_some_and(|c| !overlaps(&r, &c))
                || (parent != NO_PARENT && clipped_node[parent as usize])
                || r.x >= vw
                || r.x + r.width <= 0.0 && r.width > 0.0;
            abs.push(r);
            clip.push(pclip);
            clipped_node.push(is_clipped);
            if !self.fixed[i] && !is_clipped && parent != NO_PARENT {
                content_bottom = content_bottom.max(r.bottom());
            }
            if let Some(id) = self.owner[i] {
                rects[id.index()] = Some(r);
                fixed[id.index()] = self.fixed[i];
                clipped[id.index()] = is_clipped;
            }
        }
        for p in &self.pieces {
            // Pieces name leaves this tree made: the index is in range.
            let leaf = abs[p.leaf as usize];
            let lh = match self.boxes.leaf(p.leaf) {
                Some(Leaf::Text { line_height, .. }) => *line_height,
                Some(Leaf::Replaced { .. }) | None => leaf.height,
            };
            let r = if leaf.width <= 0.0 || lh <= 0.0 {
                leaf
            } else {
                let lines = (leaf.height / lh).round().max(1.0);
                let first = (p.start / leaf.width).floor().min(lines - 1.0).max(0.0);
                let last = ((p.end - 0.01).max(p.start) / leaf.width)
                    .floor()
                    .min(lines - 1.0)
                    .max(first);
                let one_line = first == last;
                Rect {
                    x: if one_line {
                        leaf.x + p.start - first * leaf.width
                    } else {
                        leaf.x
                    },
                    y: leaf.y + first * lh,
                    width: if one_line {
                        (p.end - p.start).min(leaf.width)
                    } else {
                        leaf.width
                    },
                    height: (last - first + 1.0) * lh,
                }
            };
            rects[p.node.index()] = Some(r);
            fixed[p.node.index()] = self.fixed[p.leaf as usize];
            clipped[p.node.index()] = clipped_node[p.leaf as usize];
        }
        Some(Boxes {
            rects,
            fixed,
            clipped,
            content_height: content_bottom,
        })
    }
}

fn finite(v: f32) -> f32 {
    if v.is_finite() { v } else { 0.0 }
}

fn intersect(a: Option<Rect>, b: Option<Rect>) -> Option<Rect> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let x = a.x.max(b.x);
            let y = a.y.max(b.y);
            let right = (a.x + a.width).min(b.x + b.width);
            let bottom = a.bottom().min(b.bottom());
            Some(Rect {
                x,
                y,
                width: (right - x).max(0.0),
                height: (bottom - y).max(0.0),
            })
        }
    }
}

pub(crate) fn overlaps(r: &Rect, c: &Rect) -> bool {
    let w = r.width.max(0.5);
    let h = r.height.max(0.5);
    r.x < c.x + c.width && r.x + w > c.x && r.y < c.bottom() && r.y + h > c.y
}

/// The taffy style of an element.
fn element_style(ctx: &Ctx<'_>, id: NodeId, e: &Element, st: &ComputedStyle) -> (tf::Style, Option<Leaf>) {
    let font = st.font_size;
    let mut s = tf::Style {
        box_sizing: tf::BoxSizing::ContentBox,
        flex_shrink: 1.0,
        ..tf::Style::default()
    };
    s.display = match st.display {
        Display::Flex => tf::Display::Flex,
        Display::Grid => tf::Display::Grid,
        // Tables and row groups stack their rows like blocks (cheaper
        // for taffy than column flex, and the same boxes).
        Display::Table | Display::TableRowGroup => tf::Display::Block,
        Display::TableRow => {
            s.flex_direction = tf::FlexDirection::Row;
            tf::Display::Flex
        }
        _ => tf::Display::Block,
    };
    if st.display == Display::TableCell {
        s.flex_grow = 1.0;
    }
    s.position = match st.position {
        Position::Absolute | Position::Fixed => tf::Position::Absolute,
        _ => tf::Position::Relative,
    };
    let overflow = |o: Overflow| match o {
        Overflow::Visible => tf::Overflow::Visible,
        Overflow::Clip => tf::Overflow::Clip,
        Overflow::Hidden => tf::Overflow::Hidden,
        Overflow::Scroll | Overflow::Auto => tf::Overflow::Scroll,
    };
    s.overflow = tf::Point {
        x: overflow(st.overflow_x),
        y: overflow(st.overflow_y),
    };
    s.scrollbar_width = 0.0;
    let mut flex_dir = None;
    let mut columns: Option<&[Track]> = None;
    let mut rows: Option<&[Track]> = None;
    for (p, v) in ctx.styles.box_decls(id) {
        match p {
            BoxProp::Width => s.size.width = ctx.or_auto(v, font),
            BoxProp::Height => s.size.height = ctx.or_auto(v, font),
            BoxProp::MinWidth => s.min_size.width = ctx.or_auto(v, font),
            BoxProp::MinHeight => s.min_size.height = ctx.or_auto(v, font),
            BoxProp::MaxWidth => s.max_size.width = ctx.or_auto(v, font),
            BoxProp::MaxHeight => s.max_size.height = ctx.or_auto(v, font),
            BoxProp::MarginTop => s.margin.top = ctx.or_auto(v, font),
            BoxProp::MarginRight => s.margin.right = ctx.or_auto(v, font),
            BoxProp::MarginBottom => s.margin.bottom = ctx.or_auto(v, font),
            BoxProp::MarginLeft => s.margin.left = ctx.or_auto(v, font),
            BoxProp::PaddingTop => s.padding.top = ctx.or_zero(v, font),
            BoxProp::PaddingRight => s.padding.right = ctx.or_zero(v, font),
            BoxProp::PaddingBottom => s.padding.bottom = ctx.or_zero(v, font),
            BoxProp::PaddingLeft => s.padding.left = ctx.or_zero(v, font),
            BoxProp::BorderTop => s.border.top = ctx.or_zero(v, font),
            BoxProp::BorderRight => s.border.right = ctx.or_zero(v, font),
            BoxProp::BorderBottom => s.border.bottom = ctx.or_zero(v, font),
            BoxProp::BorderLeft => s.border.left = ctx.or_zero(v, font),
            BoxProp::Top => s.inset.top = ctx.or_auto(v, font),
            BoxProp::Right => s.inset.right = ctx.or_auto(v, font),
            BoxProp::Bottom => s.inset.bottom = ctx.or_auto(v, font),
            BoxProp::Left => s.inset.left = ctx.or_auto(v, font),
            BoxProp::FlexDirection => {
                if let BoxValue::FlexDirection(d) = v {
                    flex_dir = Some(*d);
                }
            }
            BoxProp::FlexWrap => {
                if let BoxValue::Wrap(w) = v {
                    s.flex_wrap = if *w {
                        tf::FlexWrap::Wrap
                    } else {
                        tf::FlexWrap::NoWrap
                    };
                }
            }
            BoxProp::FlexGrow => {
                if let BoxValue::Number(n) = v {
                    s.flex_grow = n.min(1e6);
                }
            }
            BoxProp::FlexShrink => {
                if let BoxValue::Number(n) = v {
                    s.flex_shrink = n.min(1e6);
                }
            }
            BoxProp::FlexBasis => s.flex_basis = ctx.or_auto(v, font),
            BoxProp::JustifyContent => {
                s.justify_content = align_of(v).map_or(tf::AlignContent::NORMAL, content_align)
            }
            BoxProp::AlignContent => {
                s.align_content = align_of(v).map_or(tf::AlignContent::NORMAL, content_align)
            }
            BoxProp::AlignItems => {
                s.align_items = align_of(v).map_or(tf::AlignItems::NORMAL, items_align)
            }
            BoxProp::AlignSelf => s.align_self = align_of(v).map(items_align),
            BoxProp::RowGap => s.gap.height = ctx.or_zero(v, font),
            BoxProp::ColumnGap => s.gap.width = ctx.or_zero(v, font),
            BoxProp::GridTemplateColumns => {
                if let BoxValue::Tracks(t) = v {
                    columns = Some(t);
                }
            }
            BoxProp::GridTemplateRows => {
                if let BoxValue::Tracks(t) = v {
                    rows = Some(t);
                }
            }
            BoxProp::GridColumnStart => s.grid_column.start = placement(v),
            BoxProp::GridColumnEnd => s.grid_column.end = placement(v),
            BoxProp::GridRowStart => s.grid_row.start = placement(v),
            BoxProp::GridRowEnd => s.grid_row.end = placement(v),
            BoxProp::BoxSizing => {
                if let BoxValue::BorderBox(b) = v {
                    s.box_sizing = if *b {
                        tf::BoxSizing::BorderBox
                    } else {
                        tf::BoxSizing::ContentBox
                    };
                }
            }
            BoxProp::Float => {
                if let BoxValue::Side(side) = v
                    && st.position != Position::Absolute
                    && st.position != Position::Fixed
                {
                    s.float = match side {
                        Side::Left => tf::Float::Left,
                        Side::Right => tf::Float::Right,
                        _ => tf::Float::None,
                    };
                }
            }
            BoxProp::Clear => {
                if let BoxValue::Side(side) = v {
                    s.clear = match side {
                        Side::Left => tf::Clear::Left,
                        Side::Right => tf::Clear::Right,
                        Side::Both => tf::Clear::Both,
                        Side::None => tf::Clear::None,
                    };
                }
            }
            BoxProp::AspectRatio => {
                if let BoxValue::Number(r) = v {
                    s.aspect_ratio = Some(*r);
                }
            }
            BoxProp::LineHeight => {}
        }
    }
    if let Some(d) = flex_dir {
        s.flex_direction = match d {
            FlexDirection::Row => tf::FlexDirection::Row,
            FlexDirection::RowReverse => tf::FlexDirection::RowReverse,
            FlexDirection::Column => tf::FlexDirection::Column,
            FlexDirection::ColumnReverse => tf::FlexDirection::ColumnReverse,
        };
    }
    if st.display == Display::Grid {
        if let Some(t) = columns {
            s.grid_template_columns = template(ctx, t, font);
        }
        if let Some(t) = rows {
            s.grid_template_rows = template(ctx, t, font);
        }
    }
    if is_replaced(e) {
        s.item_is_replaced = true;
        let (w, h) = intrinsic_size(ctx, id, e, st);
        let auto_w = s.size.width == auto();
        let auto_h = s.size.height == auto();
        // Controls keep their intrinsic height when CSS sets only a width;
        // images, video, frames scale with their aspect ratio.
        let scales = !matches!(e.local_name().as_ref(), "input" | "select" | "textarea" | "meter" | "progress");
        if scales && w > 0.0 && h > 0.0 && s.aspect_ratio.is_none() {
            // Measured, so the height follows the width taffy settles on
            // (after max-width, flex shrinking, stretching).
            // A percentage width makes it compressible: its min-content
            // contribution is 0, as in browsers.
            let percent_width = ctx.styles.box_decls(id).iter().any(|(p, v)| {
                matches!((p, v), (BoxProp::Width | BoxProp::MaxWidth, BoxValue::Length(Length::Percent(_))))
            });
            let shrink = s.max_size.width != auto() || percent_width;
            return (s, Some(Leaf::Replaced { width: w, height: h, shrink }));
        }
        if auto_w {
            s.size.width = length(w);
        }
        if auto_h {
            s.size.height = length(h);
        }
    }
    (s, None)
}

fn align_of(v: &BoxValue) -> Option<Align> {
    match v {
        BoxValue::Align(a) => Some(*a),
        _ => None,
    }
}

fn content_align(a: Align) -> tf::AlignContent {
    match a {
        Align::Normal => tf::AlignContent::NORMAL,
        Align::Start | Align::Baseline => tf::AlignContent::FLEX_START,
        Align::End => tf::AlignContent::FLEX_END,
        Align::Center => tf::AlignContent::CENTER,
        Align::Stretch => tf::AlignContent::STRETCH,
        Align::SpaceBetween => tf::AlignContent::SPACE_BETWEEN,
        Align::SpaceAround => tf::AlignContent::SPACE_AROUND,
        Align::SpaceEvenly => tf::AlignContent::SPACE_EVENLY,
    }
}

fn items_align(a: Align) -> tf::AlignItems {
    match a {
        Align::Normal => tf::AlignItems::NORMAL,
        Align::Stretch => tf::AlignItems::STRETCH,
        Align::Start | Align::SpaceBetween | Align::SpaceAround | Align::SpaceEvenly => {
            tf::AlignItems::FLEX_START
        }
        Align::End => tf::AlignItems::FLEX_END,
        Align::Center => tf::AlignItems::CENTER,
        Align::Baseline => tf::AlignItems::BASELINE,
    }
}

fn placement(v: &BoxValue) -> tf::GridPlacement {
    match v {
        BoxValue::Line(GridLine::Line(n)) => tf::GridPlacement::from_line_index(*n),
        BoxValue::Line(GridLine::Span(n)) => tf::GridPlacement::from_span(*n),
        _ => tf::GridPlacement::Auto,
    }
}

fn track(ctx: &Ctx<'_>, t: TrackSize, font: f32) -> tf::TrackSizingFunction {
    use taffy::style_helpers::{fr, max_content, min_content, minmax};
    let fixed = |l: Length| -> tf::LengthPercentage { ctx.lp(l, font) };
    match t {
        TrackSize::Fixed(l) => {
            let v = fixed(l);
            minmax(v.into(), v.into())
        }
        TrackSize::Fr(f) => minmax(auto(), fr(f)),
        TrackSize::Auto => minmax(auto(), auto()),
        TrackSize::MinContent => minmax(min_content(), min_content()),
        TrackSize::MaxContent => minmax(max_content(), max_content()),
        TrackSize::MinMax(lo, hi) => {
            let lo: tf::MinTrackSizingFunction = match lo {
                MinTrack::Fixed(l) => fixed(l).into(),
                MinTrack::Auto => auto(),
                MinTrack::MinContent => min_content(),
                MinTrack::MaxContent => max_content(),
            };
            let hi: tf::MaxTrackSizingFunction = match hi {
                MaxTrack::Fixed(l) => fixed(l).into(),
                MaxTrack::Fr(f) => fr(f),
                MaxTrack::Auto => auto(),
                MaxTrack::MinContent => min_content(),
                MaxTrack::MaxContent => max_content(),
            };
            minmax(lo, hi)
        }
    }
}

fn template(ctx: &Ctx<'_>, tracks: &[Track], font: f32) -> Vec<tf::GridTemplateComponent<String>> {
    let mut out = Vec::new();
    for t in tracks {
        match t {
            Track::Single(size) => {
                out.push(tf::GridTemplateComponent::Single(track(ctx, *size, font)))
            }
            Track::Repeat(count, sizes) => {
                // Auto-repeat needs definite track sizes (taffy's rule);
                // otherwise repeat once.
                let definite = sizes.iter().all(|s| {
                    matches!(
                        s,
                        TrackSize::Fixed(_)
                            | TrackSize::MinMax(MinTrack::Fixed(_), _)
                            | TrackSize::MinMax(_, MaxTrack::Fixed(_))
                    )
                });
                let sizes: Vec<_> = sizes.iter().map(|s| track(ctx, *s, font)).collect();
                let count = match count {
                    Repeat::Count(n) => tf::RepetitionCount::Count(*n),
                    Repeat::AutoFill if definite => tf::RepetitionCount::AutoFill,
                    Repeat::AutoFit if definite => tf::RepetitionCount::AutoFit,
                    _ => tf::RepetitionCount::Count(1),
                };
                out.push(tf::GridTemplateComponent::Repeat(
                    tf::GridTemplateRepetition {
                        count,
                        tracks: sizes,
                        line_names: Vec::new(),
                    },
                ));
            }
        }
    }
    out
}

/// The size a replaced element has when CSS does not give one.
fn intrinsic_size(ctx: &Ctx<'_>, id: NodeId, e: &Element, st: &ComputedStyle) -> (f32, f32) {
    let attr = |name: &str| -> Option<f32> {
        let v = e.attr(name)?.trim();
        let digits: String = v
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        digits
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v.min(MAX_PX))
    };
    let font = st.font_size;
    let adv = ADVANCE * font;
    let line = ctx.line_height(id).max(font);
    let sized = |w: f32, h: f32| match (attr("width"), attr("height")) {
        (Some(aw), Some(ah)) => (aw, ah),
        (Some(aw), None) => (aw, if w > 0.0 { aw * h / w } else { h }),
        (None, Some(ah)) => (if h > 0.0 { ah * w / h } else { w }, ah),
        (None, None) => (w, h),
    };
    match e.local_name().as_ref() {
        "img" => {
            if e.attr("src").is_some_and(|s| !s.trim().is_empty()) || e.has_attr("srcset") {
                let alt = e.attr("alt").map_or(0, |a| a.chars().count()) as f32;
                sized(
                    if alt > 0.0 { alt * adv } else { 16.0 },
                    if alt > 0.0 { line } else { 16.0 },
                )
            } else {
                sized(0.0, 0.0)
            }
        }
        "input" => {
            let kind = e
                .attr("type")
                .map(|t| t.trim().to_ascii_lowercase())
                .unwrap_or_default();
            match kind.as_str() {
                "checkbox" | "radio" => (13.0, 13.0),
                "submit" | "button" | "reset" => {
                    let label = e.attr("value").map_or(6, |v| v.chars().count()) as f32;
                    (label * adv + 12.0, line + 4.0)
                }
                "image" => sized(16.0, 16.0),
                "range" => (129.0, 16.0),
                "color" => (50.0, 27.0),
                "file" => (250.0, line + 4.0),
                _ => {
                    let chars = attr("size")
                        .filter(|s| *s > 0.0)
                        .unwrap_or(20.0)
                        .min(1000.0);
                    (chars * adv, line)
                }
            }
        }
        "select" => {
            let longest = ctx
                .doc
                .descendants(id)
                .filter(|&d| {
                    ctx.doc
                        .element(d)
                        .is_some_and(|o| o.is_html(&local_name!("option")))
                })
                .take(200)
                .map(|o| ctx.doc.text_content(o).chars().count())
                .max()
                .unwrap_or(0) as f32;
            let rows = if e.has_attr("multiple") || attr("size").is_some_and(|s| s > 1.0) {
                attr("size").unwrap_or(4.0).clamp(1.0, 100.0)
            } else {
                1.0
            };
            (longest * adv + 24.0, rows * line)
        }
        "textarea" => {
            let cols = attr("cols")
                .filter(|c| *c > 0.0)
                .unwrap_or(20.0)
                .min(1000.0);
            let rows = attr("rows").filter(|r| *r > 0.0).unwrap_or(2.0).min(1000.0);
            (cols * adv, rows * line)
        }
        "meter" => sized(80.0, 16.0),
        "progress" => sized(160.0, 16.0),
        "audio" => {
            if e.has_attr("controls") {
                (300.0, 54.0)
            } else {
                (0.0, 0.0)
            }
        }
        _ => sized(300.0, 150.0),
    }
}
