//! Dialogs and downloads, followed from CDP events: each dialog answered
//! as it opens (dismissed unless the action was confirmed) and noted as a
//! `!` line; each download followed to its end and given its name, or
//! cancelled once past the size limit. Invariant: each dialog and each
//! download is reported once, by the tab whose page opened or started it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::{
    CancelDownloadParams, DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
};
use chromiumoxide::cdp::browser_protocol::page::{EventJavascriptDialogOpening, HandleJavaScriptDialogParams};
use futures::StreamExt;

use super::COMMAND_TIMEOUT;
use super::browser::Running;
use super::page::{CdpPage, Frame};

/// Dialogs: dismissed unless the current action was confirmed; each one
/// is reported once as a `!` line.
#[derive(Debug, Default)]
pub(super) struct DialogState {
    pub(super) accept: AtomicBool,
    pub(super) lines: Mutex<Vec<String>>,
}

/// Downloads seen, by guid.
#[derive(Debug, Default)]
pub(super) struct Downloads {
    /// guid → (frame, file name, state, bytes).
    items: HashMap<String, Download>,
}

#[derive(Debug, Clone)]
struct Download {
    frame: String,
    name: String,
    state: DownloadState,
    bytes: u64,
    reported: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DownloadState {
    Going,
    Done,
    Failed,
    TooLarge,
}

impl CdpPage {
    /// Downloads this page started: `↧` lines, waiting (bounded) for them
    /// to finish.
    pub(super) async fn download_lines(&self) -> Vec<String> {
        let Ok(Frame { id: frame_id, .. }) = self.frame().await else { return Vec::new() };
        let folder = self.backend.inner.options.downloads.clone();
        let start = tokio::time::Instant::now();
        loop {
            let (going, lines) = {
                let mut d = self.running.downloads.lock().unwrap_or_else(|e| e.into_inner());
                let mine: Vec<&mut Download> = d.items.values_mut().filter(|x| x.frame == frame_id && !x.reported).collect();
                let going = mine.iter().any(|x| x.state == DownloadState::Going);
                let mut lines = Vec::new();
                if !going || start.elapsed() > Duration::from_secs(30) {
                    for x in mine {
                        x.reported = true;
                        let path = folder.join(&x.name);
                        lines.push(match x.state {
                            DownloadState::Done => format!("↧ downloaded {} → {}", x.name, path.display()),
                            DownloadState::Going => format!("↧ still downloading {} → {}", x.name, path.display()),
                            DownloadState::TooLarge => {
                                format!("✗ download {} cancelled: larger than {}", x.name, size(self.backend.inner.options.max_download_bytes))
                            }
                            DownloadState::Failed => format!("✗ download {} failed", x.name),
                        });
                    }
                }
                (going, lines)
            };
            if !lines.is_empty() || !going {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Dismisses (or, for a confirmed action, accepts) each dialog as it
/// opens and notes it as a `!` line.
pub(super) async fn watch_dialogs(page: &chromiumoxide::Page, state: Arc<DialogState>) {
    let Ok(mut events) = page.event_listener::<EventJavascriptDialogOpening>().await else { return };
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let accept = state.accept.load(Ordering::SeqCst);
            let kind = format!("{:?}", ev.r#type).to_lowercase();
            let message: String = whittle_engine::collapse_whitespace(&ev.message).chars().take(300).collect();
            // An alert has nothing to choose: it is only reported.
            let line = match (kind.as_str(), accept) {
                ("alert", _) => format!("! alert {message:?}"),
                (_, true) => format!("! {kind} {message:?} accepted"),
                (_, false) => format!("! {kind} {message:?} dismissed (repeat the action with confirm:true to accept)"),
            };
            state.lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            let params = HandleJavaScriptDialogParams { accept, prompt_text: ev.default_prompt.clone().filter(|_| accept) };
            let _ = tokio::time::timeout(COMMAND_TIMEOUT, page.execute(params)).await;
        }
    });
}

/// Follows the browser's downloads; cancels one that grows past `max`.
pub(super) async fn watch_downloads(running: &Arc<Running>, max: u64) {
    let browser = &running.browser;
    let downloads = running.downloads.clone();
    if let Ok(mut begins) = browser.event_listener::<EventDownloadWillBegin>().await {
        let d = downloads.clone();
        tokio::spawn(async move {
            while let Some(ev) = begins.next().await {
                let name = Path::new(&ev.suggested_filename).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "download".into());
                d.lock().unwrap_or_else(|e| e.into_inner()).items.insert(
                    ev.guid.clone(),
                    Download { frame: ev.frame_id.inner().clone(), name, state: DownloadState::Going, bytes: 0, reported: false },
                );
            }
        });
    }
    if let Ok(mut progress) = browser.event_listener::<EventDownloadProgress>().await {
        let weak = Arc::downgrade(running);
        tokio::spawn(async move {
            while let Some(ev) = progress.next().await {
                let mut cancel = false;
                {
                    let mut d = downloads.lock().unwrap_or_else(|e| e.into_inner());
                    let Some(item) = d.items.get_mut(&ev.guid) else { continue };
                    item.bytes = ev.received_bytes.max(0.0) as u64;
                    match ev.state {
                        // Finished before a progress event could stop it
                        // (a fast source): over the cap, it is deleted.
                        DownloadProgressState::Completed if item.bytes > max || item.state == DownloadState::TooLarge => {
                            item.state = DownloadState::TooLarge;
                            if let Some(path) = &ev.file_path {
                                let _ = std::fs::remove_file(path);
                            }
                        }
                        DownloadProgressState::Completed => {
                            item.state = DownloadState::Done;
                            // Saved under its guid (AllowAndName): give it its name.
                            if let Some(path) = &ev.file_path {
                                let path = Path::new(path);
                                if let Some(dir) = path.parent() {
                                    let _ = std::fs::rename(path, dir.join(&item.name));
                                }
                            }
                        }
                        DownloadProgressState::Canceled if item.state != DownloadState::TooLarge => item.state = DownloadState::Failed,
                        DownloadProgressState::InProgress if item.bytes > max || ev.total_bytes > max as f64 => {
                            item.state = DownloadState::TooLarge;
                            cancel = true;
                        }
                        _ => {}
                    }
                }
                if cancel && let Some(r) = weak.upgrade() {
                    let _ = tokio::time::timeout(COMMAND_TIMEOUT, r.browser.execute(CancelDownloadParams::new(ev.guid.clone()))).await;
                }
            }
        });
    }
}

/// A byte count in words: `100 MB`, `256 KB`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 * 1024 => format!("{} MB", b / (1024 * 1024)),
        b if b >= 1024 => format!("{} KB", b / 1024),
        b => format!("{b} bytes"),
    }
}
