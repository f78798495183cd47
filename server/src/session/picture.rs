//! `screenshot`, and the picture `observe` adds with `image`: drawn by
//! Chromium, the refs of the view marked. Invariant: every sensitive field
//! and frame is covered, and the envelope says which refs have no mark.

use std::collections::HashSet;

use whittle_engine::render::envelope::ImageInfo;
use whittle_engine::{Envelope, FoldOptions, NodeId};

use super::{Fail, Session, ToolOutput, covered, picture_line};
use crate::backend::{BrowseError, ShotRequest};
use crate::tools::ScreenshotArgs;

impl Session {
    /// The active tab's picture (Chromium's; a static tab is loaded there
    /// for it), the refs of the current view marked, sensitive fields and
    /// frames covered.
    pub(super) async fn screenshot(&mut self, args: ScreenshotArgs) -> Result<ToolOutput, Fail> {
        let focus = match args.ref_id {
            Some(r) => Some(self.node_of(r).await?),
            None => None,
        };
        let (_, mut envelope) = self.view("screenshot", &FoldOptions::default()).await?;
        let done = self.picture(&mut envelope, focus, args.marks != Some(false)).await?;
        let what = match args.ref_id {
            Some(r) => format!("screenshot of [{r}]'s box"),
            None => "screenshot of the view".to_owned(),
        };
        Ok(ToolOutput { text: picture_line(&what, &done), envelope, image: Some(done) })
    }

    /// The active tab's picture as the model gets it, for the observation
    /// `envelope` was just made from (`observe` with `image`, and
    /// `screenshot`): the view, or `clip`'s box; with `marked`, a numbered
    /// mark on each ref of the observation (`elements`); a solid cover over each
    /// sensitive field and frame of the page (and those Chromium finds
    /// itself). Chromium draws it; a static tab is loaded there for it.
    ///
    /// The envelope then states what the picture holds: `image` (its
    /// pixels and pixels per CSS pixel), `marks` (the marks drawn: refs
    /// whose box overlaps the picture) and `marks_truncated`, also set when
    /// a ref of the observation has no mark (outside the picture, no box,
    /// or not found where Chromium draws the page; never for a picture
    /// without marks).
    pub(super) async fn picture(&mut self, envelope: &mut Envelope, clip: Option<NodeId>, marked: bool) -> Result<crate::picture::Annotated, Fail> {
        let shown: HashSet<u32> = envelope.page_content.as_ref().map(|p| p.elements.iter().map(|e| e.ref_id).collect()).unwrap_or_default();
        let tab = &mut self.tabs[self.active];
        let request = {
            let a = tab.page.analysis(&mut self.refs).await?;
            let mut request = ShotRequest { clip, ..Default::default() };
            for w in &a.tree.widgets {
                if covered(w) {
                    request.covers.push(w.node);
                }
                if let Some(n) = w.ref_id.filter(|n| marked && shown.contains(n)) {
                    request.marks.push((n, w.node));
                }
            }
            request
        };
        let shot = tab.page.screenshot(&request).await?;
        let done = tokio::task::block_in_place(|| crate::picture::annotate(&shot.picture, &shot.marks, &shot.covers, &shot.texts, shot.scale))
            .map_err(|e| BrowseError::new("internal", e))?;
        let drawn: HashSet<u32> = done.marked.iter().copied().collect();
        let counters = &mut envelope.server.counters;
        counters.marks = done.marked.len() as u32;
        counters.marks_truncated |= marked && !shown.is_subset(&drawn);
        envelope.server.image = Some(ImageInfo { width: done.width, height: done.height, scale: shot.scale });
        Ok(done)
    }
}
