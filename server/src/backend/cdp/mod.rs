//! The Chromium backend: pages in a real Chromium over CDP (chromiumoxide),
//! for pages that need scripts. Chromium supplies the DOM, the computed
//! styles and the boxes (`DOMSnapshot.captureSnapshot`), and the page joins
//! the engine's pipeline at semantics (`whittle_engine::from_capture`), so
//! the model reads the same format, refs and folding as on the static path.
//!
//! Shape: one Chromium per server process, launched on first use (headless,
//! a fresh profile folder, background networking off, no sandbox as root);
//! a browser context per session (its cookies); a target per tab. Refs bind
//! to Chromium's backend node ids: each capture builds a new `Document`,
//! and the session's refs are carried over to it by backend node id.
//!
//! Lifecycle: a Chromium that crashes or is killed is noticed (its event
//! loop ends); the next page opened or navigated relaunches it and says
//! the tabs it held were lost. Every CDP call is bounded in time, so a page
//! that loops forever in script costs a timeout, not the session.
//!
//! The parts: `browser.rs` launches the one Chromium, gives each session
//! its browser context and closes it all; `page.rs` is a tab (`CdpPage`):
//! navigation, load, frames; `capture.rs` turns a DOM snapshot into the
//! engine's capture; `input.rs` acts on a page and reports what the action
//! did; `events.rs` follows dialogs and downloads; `screenshot.rs` takes
//! pictures; `intercept.rs` checks each request against the policy and
//! hands main-frame navigations to a caller that wants them.

mod browser;
mod capture;
mod events;
mod input;
mod intercept;
mod page;
mod screenshot;

pub use browser::{CdpBackend, ChromiumOptions, DEVICE_SCALES, find_chromium};
pub(crate) use input::{Acted, FormChange};
pub use page::CdpPage;

use std::fmt;
use std::time::Duration;

use super::BrowseError;

/// How long one CDP command may take before the page counts as hung.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

fn cdp_error(e: impl fmt::Display) -> BrowseError {
    BrowseError::new("nav_failed", format!("Chromium: {e}"))
}

/// A CDP call bounded by [`COMMAND_TIMEOUT`]: a page that loops in script
/// costs a timeout, not the session.
async fn bounded<T, E: fmt::Display>(f: impl std::future::Future<Output = Result<T, E>>) -> Result<T, BrowseError> {
    bounded_by(COMMAND_TIMEOUT, f).await
}

/// A CDP call bounded by `limit`.
async fn bounded_by<T, E: fmt::Display>(limit: Duration, f: impl std::future::Future<Output = Result<T, E>>) -> Result<T, BrowseError> {
    match tokio::time::timeout(limit, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(cdp_error(e)),
        Err(_) => Err(BrowseError::new(
            "page_unresponsive",
            match limit.as_secs() {
                0 => format!("Chromium did not answer within {} ms (a script may be looping)", limit.as_millis()),
                secs => format!("Chromium did not answer within {secs} s (a script may be looping)"),
            },
        )),
    }
}
