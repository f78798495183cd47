//! The structured result (docs/observation.md): `ok`, `server` (what whittle
//! states) and `page_content` (what the page wrote). The types only derive
//! `Serialize`; writing JSON is the caller's business.
//!
//! Architecture invariant: every field under `server` is computed by
//! whittle (ids, counters, the origin of the URL it loaded); nothing the
//! page wrote — title, names, values, tree lines — is ever put there.

use serde::Serialize;

use super::Observation;
use crate::line::role_word;
use crate::text::fnv1a;
use crate::layout::Layout;
use crate::tree::AxTree;

/// The whole structured result.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Envelope {
    /// Whether the tool call succeeded.
    pub ok: bool,
    /// What whittle states.
    pub server: ServerPart,
    /// What the page wrote (absent on errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_content: Option<PageContent>,
}

/// Identifiers the caller assigns.
#[derive(Debug, Clone, Default)]
pub struct Ids {
    /// The tool that ran (`observe`, `snapshot`, …).
    pub tool: String,
    /// This call.
    pub operation_id: String,
    /// The tab.
    pub tab_id: String,
}

/// The `server` half.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServerPart {
    /// The tool that ran.
    pub tool: String,
    /// This call.
    pub operation_id: String,
    /// The tab.
    pub tab_id: String,
    /// This observation (a hash of what was observed).
    pub snapshot_id: String,
    /// The origin of the page's URL (`scheme://host[:port]`), or `null`.
    pub origin: Option<String>,
    /// `static` or `chromium`.
    pub engine: &'static str,
    /// The viewport.
    pub viewport: ViewportInfo,
    /// `ok`, or why the capture is partial.
    pub capture: &'static str,
    /// Whether a dialog is open.
    pub dialog_open: bool,
    /// whittle's notices (never page text).
    pub notices: Vec<String>,
    /// Counts.
    pub counters: EnvelopeCounters,
    /// The picture returned with the result, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageInfo>,
    /// Set when `ok` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

/// An error: a stable code and a message.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorInfo {
    /// e.g. `invalid_url`, `nav_failed`.
    pub code: String,
    /// One line for a person.
    pub message: String,
}

/// The picture a result returned (`observe` with `image`, `screenshot`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImageInfo {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// Image pixels per CSS pixel.
    pub scale: f32,
}

/// Viewport facts.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ViewportInfo {
    /// CSS px.
    pub width: u32,
    /// CSS px.
    pub height: u32,
    /// Scroll offset.
    pub scroll_x: u32,
    /// Scroll offset.
    pub scroll_y: u32,
    /// Page height in CSS px; `null` when nothing was laid out (errors).
    pub content_height: Option<u32>,
}

/// The result's counters (docs/observation.md).
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EnvelopeCounters {
    /// Hidden content not sent.
    pub omitted_not_visible: u32,
    /// Sensitive values withheld.
    pub redacted_fields: u32,
    /// Frames shown as one line.
    pub frames_masked: u32,
    /// Refs in the observation; with an image, the marks drawn on it.
    pub marks: u32,
    /// Whether refs were cut; with an image, also whether a ref of the
    /// observation has no mark on it.
    pub marks_truncated: bool,
    /// Lines in the tree.
    pub tree_lines: u32,
    /// Whether the tree was cut.
    pub tree_truncated: bool,
}

/// The `page_content` half.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PageContent {
    /// The title.
    pub title: String,
    /// The URL.
    pub url: String,
    /// The tree lines (the text observation without its header).
    pub tree: Vec<String>,
    /// Every element with a ref.
    pub elements: Vec<ElementEntry>,
}

/// One element with a ref.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ElementEntry {
    /// Its ref.
    #[serde(rename = "ref")]
    pub ref_id: u32,
    /// Its role, as shown in the tree.
    pub role: &'static str,
    /// Its name, whole.
    pub name: String,
    /// Its value (empty for sensitive fields).
    pub value: String,
    /// Its states, in protocol order.
    pub states: Vec<&'static str>,
    /// The kind of secret, for sensitive fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<crate::semantics::Sensitive>,
}

impl Envelope {
    /// The envelope of an observation. `snapshot_id` is derived from the
    /// observation's text, so the same page gives the same id. `elements`
    /// lists the refs the observation shows (not those folded away), in
    /// reading order; the truncation counters come from the fold stage.
    pub fn observation(ids: Ids, engine: &'static str, layout: &Layout, obs: &Observation, tree: &AxTree, origin: Option<String>) -> Envelope {
        let viewport = layout.viewport();
        let elements: Vec<ElementEntry> = obs
            .widgets
            .iter()
            .filter_map(|&w| tree.widgets.get(w))
            .filter_map(|w| {
                Some(ElementEntry {
                    ref_id: w.ref_id?,
                    role: role_word(w.role),
                    name: w.name.clone(),
                    value: if w.sensitive.is_some() { String::new() } else { w.value.clone() },
                    states: w.states.names().collect(),
                    sensitive: w.sensitive,
                })
            })
            .collect();
        Envelope {
            ok: true,
            server: ServerPart {
                tool: ids.tool,
                operation_id: ids.operation_id,
                tab_id: ids.tab_id,
                snapshot_id: format!("{:016x}", fnv1a(obs.text().as_bytes())),
                origin,
                engine,
                viewport: ViewportInfo {
                    width: viewport.width,
                    height: viewport.height,
                    scroll_x: 0,
                    scroll_y: layout.scroll_y().round() as u32,
                    content_height: Some(layout.content_height().round() as u32),
                },
                capture: "ok",
                dialog_open: false,
                notices: obs.notes.clone(),
                counters: EnvelopeCounters {
                    omitted_not_visible: tree.counters.omitted_not_visible,
                    redacted_fields: tree.counters.redacted_fields,
                    frames_masked: tree.counters.frames_masked,
                    marks: elements.len() as u32,
                    marks_truncated: obs.marks_truncated,
                    tree_lines: obs.lines.len() as u32,
                    tree_truncated: obs.tree_truncated,
                },
                image: None,
                error: None,
            },
            page_content: Some(PageContent {
                title: obs.title.clone(),
                url: obs.url.clone(),
                tree: obs.lines.clone(),
                elements,
            }),
        }
    }

    /// An error result.
    pub fn error(ids: Ids, code: &str, message: impl Into<String>) -> Envelope {
        Envelope {
            ok: false,
            server: ServerPart {
                tool: ids.tool,
                operation_id: ids.operation_id,
                tab_id: ids.tab_id,
                snapshot_id: String::new(),
                origin: None,
                engine: "static",
                viewport: ViewportInfo { width: 0, height: 0, scroll_x: 0, scroll_y: 0, content_height: None },
                capture: "none",
                dialog_open: false,
                notices: Vec::new(),
                counters: EnvelopeCounters {
                    omitted_not_visible: 0,
                    redacted_fields: 0,
                    frames_masked: 0,
                    marks: 0,
                    marks_truncated: false,
                    tree_lines: 0,
                    tree_truncated: false,
                },
                image: None,
                error: Some(ErrorInfo { code: code.to_owned(), message: message.into() }),
            },
            page_content: None,
        }
    }
}
