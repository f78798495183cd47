//! The page as the engine reads it: Chromium's `DOMSnapshot.captureSnapshot`
//! turned into the engine's neutral `Capture`, and its analysis built from
//! it. Invariant: refs follow their elements from one capture to the next
//! by Chromium's backend node id (from a static tab's document, by the
//! element's place), so a ref the model holds keeps naming one element.

use std::collections::{HashMap, HashSet};

use chromiumoxide::cdp::browser_protocol::dom::BackendNodeId;
use chromiumoxide::cdp::browser_protocol::dom_snapshot::{CaptureSnapshotParams, CaptureSnapshotReturns};
use url::Url;
use whittle_engine::{
    Capture, CapturedKind, CapturedNode, NodeId, Places, Rect, RefTable, Viewport, build_tree, compute_semantics,
    conceal, from_capture,
};

use super::bounded;
use super::page::CdpPage;
use crate::backend::{Analysis, BrowseError};

/// The last capture of a page.
#[derive(Debug)]
pub(super) struct Live {
    pub(super) analysis: Analysis,
    /// Per document node: Chromium's backend node id.
    pub(super) backend_ids: Vec<Option<i64>>,
}

impl CdpPage {
    /// Captures the page and builds its analysis; refs of the previous
    /// capture follow their elements by backend node id.
    pub(super) async fn capture(&mut self, refs: &mut RefTable) -> Result<(), BrowseError> {
        self.to_front().await;
        let params = CaptureSnapshotParams::new(whittle_engine::COMPUTED_PROPERTIES.iter().map(|s| (*s).to_owned()).collect());
        let snapshot = bounded(self.page.execute(params)).await?.result;
        // The page may have moved on by itself (a script, a redirect).
        if let Some(url) = snapshot
            .documents
            .first()
            .and_then(|d| usize::try_from(*d.document_url.inner()).ok())
            .and_then(|i| snapshot.strings.get(i))
            .and_then(|u| Url::parse(u).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        {
            self.url = Some(url);
        }
        // A page that went where the profile does not allow (a script, a
        // redirect the guard refused): nothing of it is read.
        if let Some(url) = &self.url {
            self.check_place(url)?;
        }
        let viewport = self.viewport;
        let previous = self.live.take();
        let live = tokio::task::block_in_place(|| {
            let (capture, backend_ids) = to_capture(&snapshot, self.url.clone(), viewport);
            let captured = from_capture(&capture);
            let mut ids: Vec<Option<i64>> = vec![None; captured.document.len()];
            let mut by_backend: HashMap<i64, NodeId> = HashMap::with_capacity(captured.nodes.len());
            for (i, made) in captured.nodes.iter().enumerate() {
                if let (Some(n), Some(&b)) = (made, backend_ids.get(i))
                    && ids[n.index()].is_none()
                {
                    ids[n.index()] = Some(b);
                    by_backend.insert(b, *n);
                }
            }
            if let Some(prev) = &previous {
                refs.carry(prev.analysis.document.id(), captured.document.id(), |old| {
                    prev.backend_ids.get(old.index()).copied().flatten().and_then(|b| by_backend.get(&b).copied())
                });
            } else if let Some((from, places)) = self.adopt.take() {
                let here = Places::of(&captured.document);
                let map = places.map_to(&here);
                let (_, lost) = refs.carry(from, captured.document.id(), |old| map.get(old));
                if lost > 0 {
                    self.notices.push(format!(
                        "{lost} element(s) shown before are not on the page as Chromium shows it: their refs are gone (the others kept theirs)"
                    ));
                }
            }
            let concealment = conceal(&captured.document, &captured.styles, &captured.layout);
            let semantics = compute_semantics(&captured.document, &captured.styles, &concealment);
            let tree = build_tree(&captured.document, &captured.styles, &concealment, &semantics, refs);
            Live {
                analysis: Analysis {
                    document: captured.document,
                    styles: captured.styles,
                    layout: captured.layout,
                    concealment,
                    semantics,
                    tree,
                    values_since: (self.generation, Vec::new()),
                },
                backend_ids: ids,
            }
        });
        self.live = Some(live);
        self.stale = false;
        Ok(())
    }

    /// The backend node id of a node of the current capture.
    pub(super) fn backend_id(&self, node: NodeId) -> Result<BackendNodeId, BrowseError> {
        self.live
            .as_ref()
            .and_then(|l| l.backend_ids.get(node.index()).copied().flatten())
            .map(BackendNodeId::new)
            .ok_or_else(|| BrowseError::new("unknown_ref", "that element is gone from the page: observe again"))
    }
}

/// Turns a DOMSnapshot into the engine's neutral capture, with each
/// captured node's backend node id.
fn to_capture(snapshot: &CaptureSnapshotReturns, url: Option<Url>, viewport: Viewport) -> (Capture, Vec<i64>) {
    let strings = &snapshot.strings;
    let s = |i: i64| -> &str { usize::try_from(i).ok().and_then(|i| strings.get(i)).map_or("", String::as_str) };
    let Some(doc) = snapshot.documents.first() else {
        return (Capture { url, viewport, ..Capture::default() }, Vec::new());
    };
    let nodes = &doc.nodes;
    let n = nodes.parent_index.as_ref().map_or(0, Vec::len);
    let types = nodes.node_type.as_deref().unwrap_or(&[]);
    let names = nodes.node_name.as_deref().unwrap_or(&[]);
    let values = nodes.node_value.as_deref().unwrap_or(&[]);
    let parents = nodes.parent_index.as_deref().unwrap_or(&[]);
    let backend: Vec<i64> = nodes.backend_node_id.as_ref().map(|v| v.iter().map(|b| *b.inner()).collect()).unwrap_or_default();
    let mut out: Vec<CapturedNode> = Vec::with_capacity(n);
    for i in 0..n {
        let parent = parents.get(i).and_then(|&p| usize::try_from(p).ok());
        let name = names.get(i).map_or("", |x| s(*x.inner()));
        let kind = match types.get(i).copied().unwrap_or(0) {
            9 => CapturedKind::Document,
            1 => CapturedKind::Element {
                name: name.to_owned(),
                attrs: nodes
                    .attributes
                    .as_ref()
                    .and_then(|a| a.get(i))
                    .map(|a| a.inner().chunks(2).filter(|c| c.len() == 2).map(|c| (s(*c[0].inner()).to_owned(), s(*c[1].inner()).to_owned())).collect())
                    .unwrap_or_default(),
            },
            3 => CapturedKind::Text(values.get(i).map_or("", |x| s(*x.inner())).to_owned()),
            8 => CapturedKind::Comment(values.get(i).map_or("", |x| s(*x.inner())).to_owned()),
            11 if parent.is_some() => CapturedKind::ShadowRoot,
            _ => CapturedKind::Other,
        };
        out.push(CapturedNode { parent, kind, ..CapturedNode::default() });
    }
    // Rare data: pseudo-elements, form values.
    if let Some(p) = &nodes.pseudo_type {
        for (&i, v) in p.index.iter().zip(&p.value) {
            if let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                node.kind = match s(*v.inner()) {
                    "before" => CapturedKind::Pseudo { before: true },
                    "after" => CapturedKind::Pseudo { before: false },
                    _ => CapturedKind::Other,
                };
            }
        }
    }
    if let Some(v) = &nodes.input_value {
        for (&i, val) in v.index.iter().zip(&v.value) {
            if let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                node.value = Some(s(*val.inner()).to_owned());
            }
        }
    }
    for (data, set) in [(&nodes.input_checked, 0), (&nodes.option_selected, 1)] {
        let Some(d) = data else { continue };
        let on: HashSet<i64> = d.index.iter().copied().collect();
        for (i, node) in out.iter_mut().enumerate() {
            let CapturedKind::Element { name, attrs } = &node.kind else { continue };
            let is = |n: &str| name.eq_ignore_ascii_case(n);
            let checkable = is("input") && attrs.iter().any(|(k, v)| k.eq_ignore_ascii_case("type") && (v.eq_ignore_ascii_case("checkbox") || v.eq_ignore_ascii_case("radio")));
            if (set == 0 && checkable) || (set == 1 && is("option")) {
                let value = on.contains(&(i as i64));
                if set == 0 { node.checked = Some(value) } else { node.selected = Some(value) }
            }
        }
    }
    // Layout: boxes, computed styles, laid-out text.
    let layout = &doc.layout;
    for (k, &i) in layout.node_index.iter().enumerate() {
        let Some(node) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) else { continue };
        if let Some(b) = layout.bounds.get(k).map(|r| r.inner())
            && b.len() >= 4
        {
            let r = Rect { x: b[0] as f32, y: b[1] as f32, width: b[2] as f32, height: b[3] as f32 };
            node.rect = Some(match node.rect {
                Some(old) => union(&old, &r),
                None => r,
            });
        }
        if node.style.is_none()
            && let Some(st) = layout.styles.get(k)
            && !st.inner().is_empty()
        {
            node.style = Some(st.inner().iter().map(|x| s(*x.inner()).to_owned()).collect());
        }
        if let Some(t) = layout.text.get(k).map(|x| s(*x.inner())).filter(|t| !t.is_empty()) {
            node.layout_text.get_or_insert_with(String::new).push_str(t);
        }
    }
    let content_height = doc.content_height.unwrap_or(0.0) as f32;
    let scroll = doc.scroll_offset_y.unwrap_or(0.0) as f32;
    (Capture { url, viewport, scroll_y: scroll, content_height, nodes: out }, backend)
}

pub(super) fn union(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.min(b.x);
    let y = a.y.min(b.y);
    let right = (a.x + a.width).max(b.x + b.width);
    let bottom = a.bottom().max(b.bottom());
    Rect { x, y, width: right - x, height: bottom - y }
}
