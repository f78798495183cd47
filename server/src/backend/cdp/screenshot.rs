//! Pictures of a tab: the view, the whole page or an element's box, with
//! where the marks, the covers and the page's text lie in it, in picture
//! pixels. Invariant: every password, card and one-time-code field and
//! every frame Chromium finds is among the covers, and no side of a
//! picture passes `MAX_PICTURE_PX` of its pixels.

use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, GetContentQuadsParams, ScrollIntoViewIfNeededParams};
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, CaptureScreenshotParams, Viewport as ClipViewport};
use whittle_engine::Rect;

use super::bounded;
use super::browser::device_scale;
use super::capture::union;
use super::page::CdpPage;
use crate::backend::{BrowseError, Shot, ShotRequest};
use crate::picture::Mark;

/// Text boxes a picture's labels keep off, at most.
const MAX_TEXT_BOXES: usize = 6000;
/// The widest and tallest picture, in its own pixels: a longer page, a
/// bigger box or a bigger view is cut there.
const MAX_PICTURE_PX: f64 = 16_384.0;

impl CdpPage {
    /// A picture of the viewport, or of `clip`'s box, with where `marks`
    /// and `covers` lie in it (picture pixels). Every password, card and
    /// one-time-code field and every frame Chromium finds is covered too.
    pub async fn shoot(
        &mut self,
        clip: Option<BackendNodeId>,
        marks: &[(u32, BackendNodeId)],
        covers: &[BackendNodeId],
        request: &ShotRequest,
    ) -> Result<Shot, BrowseError> {
        if !self.alive() {
            return Err(Self::dead());
        }
        self.to_front().await;
        let mut params = match request.lossless {
            true => CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Png),
            false => CaptureScreenshotParams::builder().format(CaptureScreenshotFormat::Jpeg).quality(80),
        };
        // The picture's top-left corner, in viewport coordinates, and its
        // size in CSS px (`None`: the viewport's).
        let mut origin = (0.0f32, 0.0f32);
        let mut extent: Option<(f64, f64)> = None;
        let options = &self.backend.inner.options;
        let device = device_scale(options.device_scale);
        // No side of the picture over MAX_PICTURE_PX of its own pixels.
        let most = MAX_PICTURE_PX / device;
        // What to capture, in CSS px of the document (`None`: the view).
        let mut region: Option<(f64, f64, f64, f64)> = None;
        if request.full_page && clip.is_none() {
            // The document from its top-left corner, as wide and tall as
            // it is (up to the largest picture).
            let size = self
                .eval_value("[document.documentElement.scrollWidth, document.documentElement.scrollHeight, window.scrollX, window.scrollY, window.innerWidth]")
                .await?;
            let at = |i: usize| size.get(i).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
            origin = (-at(2) as f32, -at(3) as f32);
            region = Some((0.0, 0.0, at(0).max(at(4)), at(1)));
        } else if let Some(node) = clip {
            let _ = bounded(self.page.execute(ScrollIntoViewIfNeededParams::builder().backend_node_id(node).build())).await;
            let r = self.viewport_rect(node).await.ok_or_else(|| BrowseError::new("not_actionable", "has no box to take a picture of"))?;
            let (sx, sy) = self.scroll().await?;
            origin = (r.x, r.y);
            region = Some((f64::from(r.x) + sx, f64::from(r.y) + sy, f64::from(r.width), f64::from(r.height)));
        } else if f64::from(options.viewport.width) > most || f64::from(options.viewport.height) > most {
            // A view larger than the largest picture: its top-left part.
            let (sx, sy) = self.scroll().await?;
            region = Some((sx, sy, f64::from(options.viewport.width), f64::from(options.viewport.height)));
        }
        if let Some((x, y, width, height)) = region {
            let (width, height) = (width.max(1.0).min(most), height.max(1.0).min(most));
            extent = Some((width, height));
            params = params.clip(ClipViewport { x, y, width, height, scale: 1.0 }).capture_beyond_viewport(true);
        }
        // CSS pixels of the viewport to pixels of the picture.
        let scale = device as f32;
        let shift = |r: Rect| Rect {
            x: (r.x - origin.0) * scale,
            y: (r.y - origin.1) * scale,
            width: r.width * scale,
            height: r.height * scale,
        };
        let mut placed = Vec::with_capacity(marks.len());
        for &(number, node) in marks {
            if let Some(r) = self.viewport_rect(node).await {
                placed.push(Mark { number, rect: shift(r) });
            }
        }
        let mut cover_rects = Vec::with_capacity(covers.len());
        for &node in covers {
            if let Some(r) = self.viewport_rect(node).await {
                cover_rects.push(shift(r));
            }
        }
        let found = self
            .eval_value(
                "[...document.querySelectorAll('input[type=password], input[autocomplete^=\"cc-\"], input[autocomplete=\"one-time-code\"], iframe, frame, embed, object')]\
                 .map(e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })",
            )
            .await?;
        for r in rects(&found).into_iter().map(shift) {
            let near = |a: &Rect| (a.x - r.x).abs() < 1.0 && (a.y - r.y).abs() < 1.0 && (a.width - r.width).abs() < 1.0;
            if !cover_rects.iter().any(near) {
                cover_rects.push(r);
            }
        }
        // Labels keep off the page's text: only a picture with marks needs it.
        let texts = match marks.is_empty() {
            true => Vec::new(),
            false => self.text_boxes(origin, extent).await.into_iter().map(shift).collect(),
        };
        let shot = bounded(self.page.execute(params.build())).await?;
        use base64::Engine as _;
        let data: &str = shot.result.data.as_ref();
        let picture = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowseError::new("internal", format!("Chromium's screenshot could not be read: {e}")))?;
        Ok(Shot { picture, marks: placed, covers: cover_rects, texts, scale })
    }

    /// How far the view is scrolled, in CSS px.
    async fn scroll(&self) -> Result<(f64, f64), BrowseError> {
        let scroll = self.eval_value("[window.scrollX, window.scrollY]").await?;
        let at = |i: usize| scroll.get(i).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
        Ok((at(0), at(1)))
    }

    /// The boxes of the page's visible text and form fields inside the
    /// picture (top-left `origin`, `extent` CSS px, else the viewport), in
    /// viewport coordinates: at most [`MAX_TEXT_BOXES`], from at most
    /// 50,000 text nodes. None when the page does not answer.
    async fn text_boxes(&self, origin: (f32, f32), extent: Option<(f64, f64)>) -> Vec<Rect> {
        let (w, h) = extent.map_or(("innerWidth".to_owned(), "innerHeight".to_owned()), |(w, h)| (w.to_string(), h.to_string()));
        let script = format!(
            "(() => {{ const x0 = {x0}, y0 = {y0}, x1 = x0 + {w}, y1 = y0 + {h}, out = [], range = document.createRange();             const add = b => {{ if (b.width > 0 && b.height > 0 && b.right > x0 && b.left < x1 && b.bottom > y0 && b.top < y1 && out.length < {max})              out.push([b.x, b.y, b.width, b.height]); }};             const walk = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);             for (let n, seen = 0; (n = walk.nextNode()) && seen < 50000 && out.length < {max}; seen++) {{               if (!n.data.trim()) continue; range.selectNodeContents(n); for (const b of range.getClientRects()) add(b); }}             for (const e of document.querySelectorAll('input:not([type=hidden]), textarea, select')) add(e.getBoundingClientRect());             return out; }})()",
            x0 = origin.0,
            y0 = origin.1,
            max = MAX_TEXT_BOXES,
        );
        self.eval_value(&script).await.map_or_else(|_| Vec::new(), |found| rects(&found))
    }

    /// The element's border box in viewport coordinates (the bounds of
    /// its quads), if it has one.
    async fn viewport_rect(&self, node: BackendNodeId) -> Option<Rect> {
        self.quads(node).await.into_iter().reduce(|a, b| union(&a, &b))
    }

    /// The bounds of each of the element's boxes (`DOM.getContentQuads`),
    /// in viewport coordinates; none when it has no box.
    pub(super) async fn quads(&self, node: BackendNodeId) -> Vec<Rect> {
        let Ok(quads) = bounded(self.page.execute(GetContentQuadsParams::builder().backend_node_id(node).build())).await else {
            return Vec::new();
        };
        quads
            .result
            .quads
            .iter()
            .filter_map(|q| {
                let q = q.inner();
                if q.len() < 8 {
                    return None;
                }
                let (xs, ys) = ([q[0], q[2], q[4], q[6]], [q[1], q[3], q[5], q[7]]);
                let (x0, x1) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
                let (y0, y1) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
                Some(Rect { x: x0 as f32, y: y0 as f32, width: (x1 - x0) as f32, height: (y1 - y0) as f32 })
            })
            .collect()
    }
}

/// The rectangles of a script's `[[x, y, width, height], …]` (entries
/// not of four numbers are passed over).
fn rects(found: &serde_json::Value) -> Vec<Rect> {
    let numbers = |r: &serde_json::Value| -> Vec<f32> {
        r.as_array().into_iter().flatten().filter_map(serde_json::Value::as_f64).map(|x| x as f32).collect()
    };
    found
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| match numbers(r)[..] {
            [x, y, width, height] => Some(Rect { x, y, width, height }),
            _ => None,
        })
        .collect()
}
