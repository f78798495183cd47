//! Stage 3, `compute_layout`: where each element's box lies, how tall the
//! page is, and whether a node is above, in or below the viewport.
//!
//! Boxes come from taffy (block, flex, grid) fed by the cascade's box
//! properties; inline content is measured by a deterministic text model
//! (characters × an average advance of the font size, wrapped at the box
//! width, one line height per line; see [`text`]). The Chromium backend
//! fills the same [`Layout`] from the boxes Chromium reports.
//!
//! Placement: a `position: fixed` box (and what is inside it) is in view
//! whenever it overlaps the viewport, whatever the scroll; a box clipped
//! away by an ancestor's `overflow` or pushed off the left or right edge is
//! not in view (reported as [`Placement::Below`]).

mod boxes;
mod build;
pub(crate) use build::overlaps;
pub mod text;

use crate::diag::{Diagnostic, Stage};
use crate::dom::{Document, NodeId};
use crate::style::{CascadeOptions, ContainerSizes, ContainerType, Styles, Viewport};

/// A box in CSS px, relative to the top-left of the page (not the
/// viewport).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
}

impl Rect {
    /// The bottom edge.
    pub fn bottom(&self) -> f32 {
        self.y + self.height
    }
}

/// Where a node lies relative to the viewport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Entirely above the viewport (scrolled past).
    Above,
    /// At least partly inside the viewport.
    InView,
    /// Entirely below the viewport (or clipped out of sight).
    Below,
    /// No box: not rendered, or layout could not place it. Treat it as
    /// shown (the pipeline never drops content only because layout is
    /// unsure).
    Unknown,
}

/// Layout options. The viewport is the one the cascade used
/// ([`Styles::viewport`]), so media queries and boxes agree.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LayoutOptions {
    /// Vertical scroll offset (CSS px).
    pub scroll_y: f32,
}

/// Boxes for one document.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    boxes: Vec<Option<Rect>>,
    fixed: Vec<bool>,
    clipped: Vec<bool>,
    content_height: f32,
    viewport: Viewport,
    scroll_y: f32,
    diagnostics: Vec<Diagnostic>,
}

impl Layout {
    /// A layout that knows nothing: every node is [`Placement::Unknown`],
    /// the page is one screen tall.
    pub fn unknown(viewport: Viewport) -> Layout {
        Layout {
            boxes: Vec::new(),
            fixed: Vec::new(),
            clipped: Vec::new(),
            content_height: viewport.height as f32,
            viewport,
            scroll_y: 0.0,
            diagnostics: Vec::new(),
        }
    }

    /// Boxes another engine laid out: per node its border box (page
    /// coordinates, or viewport coordinates when `fixed`), whether it is in
    /// a fixed box, whether an ancestor's overflow clips it away.
    pub(crate) fn from_parts(
        viewport: Viewport,
        scroll_y: f32,
        content_height: f32,
        boxes: Vec<Option<Rect>>,
        fixed: Vec<bool>,
        clipped: Vec<bool>,
    ) -> Layout {
        Layout {
            boxes,
            fixed,
            clipped,
            content_height: content_height.max(viewport.height as f32),
            viewport,
            scroll_y: scroll_y.max(0.0),
            diagnostics: Vec::new(),
        }
    }

    /// The node's border box, if it has one.
    pub fn rect(&self, id: NodeId) -> Option<Rect> {
        self.boxes.get(id.index()).copied().flatten()
    }

    /// Where the node lies relative to the viewport.
    pub fn placement(&self, id: NodeId) -> Placement {
        let Some(r) = self.rect(id) else {
            return Placement::Unknown;
        };
        if self.clipped.get(id.index()).copied().unwrap_or(false) {
            return Placement::Below;
        }
        // A fixed box's rect is in viewport coordinates.
        let top = if self.fixed.get(id.index()).copied().unwrap_or(false) {
            0.0
        } else {
            self.scroll_y
        };
        let bottom = top + self.viewport.height as f32;
        if r.bottom() <= top && r.height > 0.0 {
            Placement::Above
        } else if r.y >= bottom {
            Placement::Below
        } else {
            Placement::InView
        }
    }

    /// The page's height in CSS px (at least the viewport's).
    pub fn content_height(&self) -> f32 {
        self.content_height
    }

    /// The viewport.
    pub fn viewport(&self) -> Viewport {
        self.viewport
    }

    /// What layout had to give up on.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The vertical scroll offset.
    pub fn scroll_y(&self) -> f32 {
        self.scroll_y
    }

    /// Screens of page above the viewport.
    pub fn screens_above(&self) -> f32 {
        self.scroll_y / self.viewport.height.max(1) as f32
    }

    /// Screens of page below the viewport.
    pub fn screens_below(&self) -> f32 {
        let below = self.content_height - self.scroll_y - self.viewport.height as f32;
        below.max(0.0) / self.viewport.height.max(1) as f32
    }

    /// A plain-text dump: the page height, then one line per element with
    /// a box, in tree order: `tag x,y wxh placement`.
    pub fn dump(&self, doc: &Document) -> String {
        use std::fmt::Write;
        let mut out = format!("content_height {}\n", self.content_height.round());
        for id in doc.descendants(NodeId::DOCUMENT) {
            let (Some(el), Some(r)) = (doc.element(id), self.rect(id)) else {
                continue;
            };
            let _ = writeln!(
                out,
                "{} {},{} {}x{} {:?}",
                el.local_name(),
                r.x.round(),
                r.y.round(),
                r.width.round(),
                r.height.round(),
                self.placement(id)
            );
        }
        out
    }
}

/// The cascade and layout together, `@container` size queries included:
/// when the page has them (and size containers), the cascade runs again
/// with each container's content box from the first layout, and the page
/// is laid out again. A container's size does not depend on what its
/// queries style inside it, so the second pass is exact, except for a
/// container nested in another whose queries change the inner one's size.
///
/// ```
/// use whittle_engine::{parse, style_and_layout};
/// let doc = parse(b"<style>.c{container-type:inline-size;width:300px} @container (max-width:400px){p{display:none}}</style>\
///                  <div class=c><p id=t>t</p></div>", &Default::default());
/// let (styles, _) = style_and_layout(&doc, &Default::default(), &Default::default());
/// assert!(!styles.is_visible(doc.element_by_id("t").unwrap()));
/// ```
pub fn style_and_layout(doc: &Document, cascade: &CascadeOptions, options: &LayoutOptions) -> (Styles, Layout) {
    let styles = crate::style::cascade(doc, cascade);
    let layout = compute_layout(doc, &styles, options);
    if styles.size_containers().is_empty() {
        return (styles, layout);
    }
    let sizes: ContainerSizes = styles
        .size_containers()
        .iter()
        .filter_map(|&(id, kind)| {
            let rect = layout.rect(id)?;
            let (w, h) = content_box(&styles, id, rect);
            Some((id, (w, (kind == ContainerType::Size).then_some(h))))
        })
        .collect();
    let styles = crate::style::cascade_sized(doc, cascade, &styles, &sizes);
    let layout = compute_layout(doc, &styles, options);
    (styles, layout)
}

/// An element's content box from its border box: less the padding and
/// borders given in absolute lengths.
fn content_box(styles: &Styles, id: NodeId, rect: Rect) -> (f32, f32) {
    use crate::style::boxes::{BoxProp as P, BoxValue};
    use crate::style::values::Length;
    let px = |prop: P| {
        styles.box_decls(id).iter().find(|(p, _)| *p == prop).map_or(0.0, |(_, v)| match v {
            BoxValue::Length(Length::Px(px)) => px.max(0.0),
            _ => 0.0,
        })
    };
    let w = rect.width - px(P::PaddingLeft) - px(P::PaddingRight) - px(P::BorderLeft) - px(P::BorderRight);
    let h = rect.height - px(P::PaddingTop) - px(P::PaddingBottom) - px(P::BorderTop) - px(P::BorderBottom);
    (w.max(0.0), h.max(0.0))
}

/// Lays out the document. Never fails: a page taffy cannot lay out gets
/// [`Layout::unknown`] boxes and a diagnostic.
pub fn compute_layout(doc: &Document, styles: &Styles, options: &LayoutOptions) -> Layout {
    let viewport = styles.viewport();
    let mut layout = Layout::unknown(viewport);
    let (vw, vh) = (viewport.width as f32, viewport.height as f32);
    // taffy is a third-party crate fed page-controlled styles: a panic in
    // it must not take the snapshot down.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let built = build::build(doc, styles)?;
        let cut = built.cut;
        built.layout(doc, vw, vh).map(|b| (b, cut))
    }));
    match run {
        Ok(Some((boxes, cut))) => {
            layout.boxes = boxes.rects;
            layout.fixed = boxes.fixed;
            layout.clipped = boxes.clipped;
            layout.content_height = boxes.content_height.max(vh);
            fill_inline_boxes(doc, &mut layout);
            if cut > 0 {
                layout.diagnostics.push(Diagnostic::new(
                    Stage::Layout,
                    format!(
                        "{cut} boxes nested deeper than {} levels were laid out as plain text",
                        build::MAX_DEPTH
                    ),
                ));
            }
        }
        Ok(None) => {}
        Err(_) => layout.diagnostics.push(Diagnostic::new(
            Stage::Layout,
            "the page could not be laid out; nothing is known about what is in view",
        )),
    }
    let max_scroll = (layout.content_height - vh).max(0.0);
    layout.scroll_y = if options.scroll_y.is_finite() {
        options.scroll_y.clamp(0.0, max_scroll)
    } else {
        0.0
    };
    layout
}

/// Elements without a box of their own (inline elements, `display:
/// contents`) get the union of their children's boxes, children first; then
/// what is still without a box but shown takes its parent's. Both passes
/// are linear.
fn fill_inline_boxes(doc: &Document, layout: &mut Layout) {
    let order: Vec<NodeId> = doc.descendants(NodeId::DOCUMENT).collect();
    for &id in order.iter().rev() {
        if layout.boxes[id.index()].is_some() || doc.element(id).is_none() {
            continue;
        }
        let mut union: Option<Rect> = None;
        for c in doc.children(id) {
            if let Some(r) = layout.boxes[c.index()] {
                union = Some(match union {
                    None => r,
                    Some(u) => {
                        let x = u.x.min(r.x);
                        let y = u.y.min(r.y);
                        Rect {
                            x,
                            y,
                            width: (u.x + u.width).max(r.x + r.width) - x,
                            height: u.bottom().max(r.bottom()) - y,
                        }
                    }
                });
                layout.fixed[id.index()] |= layout.fixed[c.index()];
                layout.clipped[id.index()] = layout.clipped[c.index()];
            }
        }
        layout.boxes[id.index()] = union;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CascadeOptions, cascade, parse};

    fn laid_out(html: &str, scroll_y: f32) -> (Document, Layout) {
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let layout = compute_layout(&doc, &styles, &LayoutOptions { scroll_y });
        (doc, layout)
    }

    fn by_id(doc: &Document, id: &str) -> NodeId {
        doc.element_by_id(id).unwrap_or_else(|| panic!("no #{id}"))
    }

    #[test]
    fn a_long_page_scrolls_and_places_its_parts() {
        let para = "<p>".to_owned() + &"lorem ipsum dolor sit amet ".repeat(40) + "</p>";
        let html = format!(
            "<h1 id=top>Top</h1>{}<a id=end href=#>end</a>",
            para.repeat(30)
        );
        let (doc, layout) = laid_out(&html, 0.0);
        assert!(
            layout.content_height() > 3.0 * 800.0,
            "{}",
            layout.content_height()
        );
        assert_eq!(layout.placement(by_id(&doc, "top")), Placement::InView);
        assert_eq!(layout.placement(by_id(&doc, "end")), Placement::Below);
        assert!(layout.screens_below() > 2.0);
        let (doc, scrolled) = laid_out(&html, 1e9);
        assert_eq!(scrolled.placement(by_id(&doc, "top")), Placement::Above);
        assert_eq!(scrolled.placement(by_id(&doc, "end")), Placement::InView);
        assert_eq!(scrolled.screens_below(), 0.0);
    }

    #[test]
    fn fixed_boxes_stay_in_view_and_hidden_ones_have_no_box() {
        let html = r#"<div id=bar style="position:fixed;top:0;left:0;right:0;height:40px"><a id=home href=/>Home</a></div>
            <div style="height:5000px"></div><p id=gone style="display:none">x</p>"#;
        let (doc, layout) = laid_out(html, 2000.0);
        assert_eq!(layout.placement(by_id(&doc, "bar")), Placement::InView);
        assert_eq!(layout.placement(by_id(&doc, "home")), Placement::InView);
        assert_eq!(layout.placement(by_id(&doc, "gone")), Placement::Unknown);
        assert!(
            (layout.content_height() - 5016.0).abs() < 40.0,
            "{}",
            layout.content_height()
        );
    }

    #[test]
    fn flex_and_grid_place_items_side_by_side() {
        let html = r#"<div style="display:grid;grid-template-columns:repeat(4,1fr);gap:10px">
              <div id=a style="height:100px">a</div><div id=b style="height:100px">b</div>
              <div id=c style="height:100px">c</div><div id=d style="height:100px">d</div><div id=e style="height:100px">e</div></div>
            <nav style="display:flex"><a id=x href=#>one</a><a id=y href=#>two</a></nav>"#;
        let (doc, layout) = laid_out(html, 0.0);
        let r = |id| {
            layout
                .rect(by_id(&doc, id))
                .unwrap_or_else(|| panic!("no box for {id}"))
        };
        assert_eq!(r("a").y, r("d").y);
        assert!(r("b").x > r("a").x && r("d").x > r("c").x);
        assert!(
            r("e").y >= r("a").bottom(),
            "the fifth card wraps to a second row"
        );
        assert_eq!(r("x").y, r("y").y);
        assert!(r("y").x >= r("x").x + r("x").width);
    }

    #[test]
    fn overflow_hidden_clips_what_lies_outside() {
        let html = r#"<div style="height:50px;overflow:hidden"><div style="height:40px"></div><a id=in href=#>in</a>
            <div style="height:500px"></div><a id=out href=#>out</a></div>"#;
        let (doc, layout) = laid_out(html, 0.0);
        assert_eq!(layout.placement(by_id(&doc, "in")), Placement::InView);
        assert_eq!(layout.placement(by_id(&doc, "out")), Placement::Below);
        assert_eq!(
            layout.content_height(),
            800.0,
            "clipped content does not make the page taller"
        );
    }

    #[test]
    fn absurd_input_terminates_with_finite_boxes() {
        let cols = "<div>x</div>".repeat(10_000);
        let deep_flex = "<div style=display:flex>".repeat(3_000) + "deep" + &"</div>".repeat(3_000);
        let giant = "word ".repeat(400_000);
        let html = format!(
            r#"<div style="width:1e9px;height:-5px;margin:NaNpx;padding:1e30px">a</div>
               <div style="display:grid;grid-template-columns:repeat(10000,1px)">{cols}</div>
               <div style="grid-template-columns:repeat(auto-fill,minmax(1fr,2px))">{deep_flex}</div><p>{giant}</p>"#
        );
        let (doc, layout) = laid_out(&html, 0.0);
        assert!(layout.content_height().is_finite() && layout.content_height() >= 800.0);
        for id in doc.descendants(NodeId::DOCUMENT) {
            if let Some(r) = layout.rect(id) {
                assert!(
                    r.x.is_finite()
                        && r.y.is_finite()
                        && r.width.is_finite()
                        && r.height.is_finite()
                );
            }
        }
        assert!(
            layout
                .diagnostics()
                .iter()
                .any(|d| d.message.contains("deeper than"))
        );
    }
}
