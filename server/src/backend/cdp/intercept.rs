//! What a tab's page may reach: every request checked against the policy
//! before it is sent (CDP `Fetch` interception), the main-frame navigations
//! a caller takes over (`Divert`), and the socket guard's refusals, which
//! Chromium reports only as a failed proxy, named for what they are.
//! Invariant: with a policy, no request of a page is sent unchecked (its
//! WebSockets are checked by the socket guard), and a refused main-frame
//! navigation leaves the page where it was.

use std::fmt;
use std::sync::{Arc, Mutex};

use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use futures::StreamExt;
use url::Url;

use super::{COMMAND_TIMEOUT, bounded};
use super::page::CdpPage;
use crate::backend::BrowseError;
use crate::policy::NetPolicy;

impl CdpPage {
    /// While `wants` is set, a GET navigation of the main frame to a URL it
    /// accepts (a link the page follows when acted on) is not made: the
    /// page stays where it is, and [`CdpPage::take_diverted`] gives the URL
    /// to the caller, who loads it elsewhere. `None` turns it off.
    pub(crate) fn divert(&self, wants: Option<Wants>) {
        let mut s = self.divert.lock();
        s.wants = wants;
        s.taken = None;
    }

    /// The navigation [`CdpPage::divert`] took, if one was.
    pub(crate) fn take_diverted(&self) -> Option<Url> {
        self.divert.lock().taken.take()
    }

    /// `e`, or `origin_not_allowed` when the socket guard refused a
    /// connection since it had refused `before` (a name that resolved to a
    /// private address: Chromium only says the proxy failed).
    pub(super) fn refusal_or(&self, e: BrowseError, before: u64) -> BrowseError {
        match &self.running.guard {
            // The guard is the browser's, shared by every tab: its refusals
            // are not quoted (they may be another session's).
            Some(g) if e.code == "nav_failed" && g.refused() > before => BrowseError::new(
                "origin_not_allowed",
                "not allowed: whittle's guard refused a connection this page needed (a private address, or a site the profile does not allow)",
            ),
            _ => e,
        }
    }

    /// Refuses a place the policy does not allow: nothing but its origin
    /// is said.
    pub(super) fn check_place(&self, url: &Url) -> Result<(), BrowseError> {
        match &self.backend.inner.options.policy {
            Some(p) if matches!(url.scheme(), "http" | "https") => {
                p.check_url(url).map_err(|r| BrowseError::new("origin_not_allowed", format!("not allowed: {r}")))
            }
            _ => Ok(()),
        }
    }
}

/// The main-frame navigations a caller takes over while it acts on the
/// page (`AutoPage`: a link a Chromium page follows to a site the static
/// path can read).
#[derive(Default)]
pub(crate) struct Divert {
    state: Mutex<DivertState>,
}

/// Which URLs are wanted, and the one taken.
type Wants = Arc<dyn Fn(&Url) -> bool + Send + Sync>;

#[derive(Default)]
struct DivertState {
    wants: Option<Wants>,
    taken: Option<Url>,
    /// The origin of the last main-frame navigation the profile refused
    /// (the page stayed where it was).
    refused: Option<String>,
}

impl Divert {
    fn lock(&self) -> std::sync::MutexGuard<'_, DivertState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the navigation to `url` is taken (the first one wanted).
    fn take(&self, url: &Url) -> bool {
        let mut s = self.lock();
        if s.taken.is_some() || !s.wants.as_ref().is_some_and(|w| w(url)) {
            return false;
        }
        s.taken = Some(url.clone());
        true
    }

    /// Notes that a main-frame navigation to `url` was refused.
    fn refuse(&self, url: Option<&Url>) {
        let origin = url.map_or_else(|| "an address whittle cannot read".to_owned(), |u| u.origin().ascii_serialization());
        self.lock().refused = Some(origin);
    }

    /// The origin of the main-frame navigation refused since last asked.
    pub(super) fn take_refused(&self) -> Option<String> {
        self.lock().refused.take()
    }
}

impl fmt::Debug for Divert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.lock();
        f.debug_struct("Divert").field("on", &s.wants.is_some()).field("taken", &s.taken.is_some()).finish()
    }
}

/// Every request of `page` passes here before it is sent (CDP `Fetch` at
/// the request stage; without a policy, only documents):
///
/// - one `policy` refuses fails at once, as blocked by the client (URLs
///   that are not http(s) or ws(s), `data:` and `blob:`, load nothing from
///   the network and pass; Chromium does not pause WebSocket handshakes
///   here, the socket guard checks those); the main frame's next document
///   the page asks for (a script, a refresh, a link) fails as aborted
///   instead, so the page stays where it is rather than showing Chromium's
///   error page, and `divert` notes it;
/// - a GET of the main frame's next document that `divert` takes fails as
///   aborted: the page stays where it is, and the caller loads the URL;
/// - the rest go on.
///
/// Each request is answered in a task of its own, so one that Chromium is
/// slow to take never holds the page's other requests back.
pub(super) async fn intercept(page: &chromiumoxide::Page, policy: Option<Arc<NetPolicy>>, divert: Arc<Divert>, main_frame: String) {
    let Ok(mut events) = page.event_listener::<EventRequestPaused>().await else { return };
    let enable = match &policy {
        Some(_) => FetchEnableParams::default(),
        None => FetchEnableParams::builder().pattern(RequestPattern::builder().resource_type(ResourceType::Document).build()).build(),
    };
    if bounded(page.execute(enable)).await.is_err() {
        return;
    }
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let url = Url::parse(&ev.request.url);
            let allowed = match (&policy, &url) {
                (None, _) => true,
                (Some(p), Ok(u)) if matches!(u.scheme(), "http" | "https" | "ws" | "wss") => p.check_url(u).is_ok(),
                (Some(_), Ok(_)) => true,
                (Some(_), Err(_)) => false,
            };
            let document = ev.resource_type == ResourceType::Document && ev.frame_id.inner() == &main_frame;
            let navigation = document && ev.request.method == "GET";
            // A redirect is the server's answer to a navigation already
            // under way (whittle's own, or one the page started): it fails
            // as blocked, and the navigation with it.
            let reason = if !allowed && document && ev.redirected_request_id.is_none() {
                divert.refuse(url.as_ref().ok());
                Some(ErrorReason::Aborted)
            } else if !allowed {
                Some(ErrorReason::BlockedByClient)
            } else if navigation && url.as_ref().is_ok_and(|u| divert.take(u)) {
                Some(ErrorReason::Aborted)
            } else {
                None
            };
            let page = page.clone();
            let id = ev.request_id.clone();
            tokio::spawn(async move {
                let _ = match reason {
                    Some(reason) => tokio::time::timeout(COMMAND_TIMEOUT, page.execute(FailRequestParams::new(id, reason))).await.map(|_| ()),
                    None => tokio::time::timeout(COMMAND_TIMEOUT, page.execute(ContinueRequestParams::new(id))).await.map(|_| ()),
                };
            });
        }
    });
}
