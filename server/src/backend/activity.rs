//! When a Chromium page can be read: its own activity, as events, and the
//! rule that turns them into "usable".
//!
//! Each tab's [`Activity`] follows three things Chromium reports about the
//! page, as they happen:
//!
//! - the main frame's documents: a new one starts (`init`), is parsed
//!   (`DOMContentLoaded`), has loaded (`load`), or the frame moved within
//!   its document (a fragment, `history.pushState`);
//! - requests that can change what the page shows — documents (frames),
//!   scripts, stylesheets, `fetch` and XHR — from when they are sent until
//!   they finish or fail (images, fonts, media and beacons do not change
//!   the text or the roles whittle reads, and are not waited for);
//! - changes to the DOM once the document is parsed, from a
//!   `MutationObserver` that whittle puts in every document before the
//!   page's own scripts run, in an isolated world of its own (the page
//!   cannot see it), reporting through a CDP binding at most every 20 ms
//!   (style-only changes, as animations make them, are not reported).
//!
//! A page is *quiet* once neither its DOM nor those requests did anything
//! for [`QUIET`], not counting a request that has gone [`STUCK`] without an
//! answer: a request that nothing will answer does not hold the page back.
//! An action waits for quiet, counted from when its input was dispatched
//! (a click that took a while to deliver is not quiet on arrival). A
//! navigation waits for its document to be parsed, then until it is
//! *usable*: quiet, or — a page whose scripts neither changed the DOM nor
//! sent a request once it was parsed — loaded and still for
//! [`AFTER_LOAD`] more (what a script does at `load` is waited for).
//! Every wait is event-driven (woken by each event, or at the moment the
//! rule can next hold) and bounded by the caller.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, EventLifecycleEvent, EventNavigatedWithinDocument,
};
use chromiumoxide::cdp::js_protocol::runtime::{AddBindingParams, EventBindingCalled};
use futures::StreamExt;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How long the page must be still to count as ready.
pub(crate) const QUIET: Duration = Duration::from_millis(100);
/// How long a page whose scripts did nothing after the parse must stay
/// still after `load`.
pub(crate) const AFTER_LOAD: Duration = Duration::from_millis(20);
/// How long a request may go unanswered before it is no longer waited for.
pub(crate) const STUCK: Duration = Duration::from_millis(1_000);

/// The isolated world whittle's observer runs in.
const WORLD: &str = "whittle";
/// The binding the observer reports through.
const BINDING: &str = "__whittleActivity";

/// Reports DOM changes once the document is parsed (the parser's own
/// insertions are not the page changing), at most every 20 ms: at once
/// after a still spell, then once more at the end of each 20 ms in which
/// something changed. Mutation records that only touch `style`
/// (animations) are not reported.
const OBSERVER: &str = r#"(() => {
  const send = globalThis.__whittleActivity;
  if (typeof send !== 'function') return;
  let cooling = false, dirty = false;
  const tick = () => {
    if (dirty) { dirty = false; send(''); setTimeout(tick, 20); } else { cooling = false; }
  };
  const note = (records) => {
    if (!records.some(r => r.type !== 'attributes' || r.attributeName !== 'style')) return;
    if (cooling) { dirty = true; return; }
    cooling = true; send(''); setTimeout(tick, 20);
  };
  const observe = () => new MutationObserver(note).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', observe, { once: true }); else observe();
})();"#;

/// The main frame's current document.
#[derive(Debug, Clone, Default)]
struct Doc {
    loader: String,
    /// When it was parsed (`DOMContentLoaded`).
    parsed: Option<Instant>,
    /// When it fired `load`.
    loaded: Option<Instant>,
}

#[derive(Debug)]
struct State {
    main_frame: String,
    /// The latest document of the main frame.
    doc: Option<Doc>,
    /// When the frame last moved within its document.
    within: Option<Instant>,
    /// The last DOM change (or the start of the wait).
    dom: Instant,
    /// When a counted request was last sent, or one ended.
    net: Instant,
    /// When a counted request was last sent.
    sent: Instant,
    /// Counted requests in flight, by id, with when they were sent.
    in_flight: HashMap<String, Instant>,
    /// The main frame's document requests in flight, by id.
    documents: HashSet<String>,
    /// Why the main frame's last document request failed, since the wait
    /// began (Chromium's error code: `net::ERR_NAME_NOT_RESOLVED`).
    failure: Option<String>,
}

impl State {
    /// The earliest moment every counted request in flight is answered or
    /// gone stuck, if one is still young.
    fn requests_settle(&self, now: Instant) -> Option<Instant> {
        self.in_flight.values().map(|&sent| sent + STUCK).filter(|&t| t > now).max()
    }

    /// The last DOM change or network event.
    fn last(&self) -> Instant {
        self.dom.max(self.net)
    }
}

/// One tab's activity (see the module documentation).
#[derive(Debug)]
pub(crate) struct Activity {
    state: Mutex<State>,
    changed: Notify,
}

/// What a wait saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The condition held.
    Done,
    /// The deadline came first.
    TimedOut,
}

impl Activity {
    /// Starts following `page`, whose main frame is `main_frame`: installs
    /// the observer for the documents it loads from now on and listens to
    /// its events until the page is gone.
    pub(crate) async fn watch(page: &chromiumoxide::Page, main_frame: String) -> Arc<Activity> {
        let activity = Arc::new(Activity {
            state: Mutex::new(State {
                main_frame,
                doc: None,
                within: None,
                dom: Instant::now(),
                net: Instant::now(),
                sent: Instant::now(),
                in_flight: HashMap::new(),
                documents: HashSet::new(),
                failure: None,
            }),
            changed: Notify::new(),
        });
        let binding = AddBindingParams::builder().name(BINDING).execution_context_name(WORLD).build();
        let script = AddScriptToEvaluateOnNewDocumentParams::builder().source(OBSERVER).world_name(WORLD).build();
        // Without them (a Chromium too old for isolated bindings) the
        // requests and the lifecycle alone say what the page does.
        if let (Ok(b), Ok(s)) = (binding, script) {
            let _ = tokio::time::timeout(super::cdp::COMMAND_TIMEOUT, page.execute(b)).await;
            let _ = tokio::time::timeout(super::cdp::COMMAND_TIMEOUT, page.execute(s)).await;
        }
        let (Ok(mut lifecycle), Ok(mut within), Ok(mut sent), Ok(mut finished), Ok(mut failed), Ok(mut calls)) = (
            page.event_listener::<EventLifecycleEvent>().await,
            page.event_listener::<EventNavigatedWithinDocument>().await,
            page.event_listener::<EventRequestWillBeSent>().await,
            page.event_listener::<EventLoadingFinished>().await,
            page.event_listener::<EventLoadingFailed>().await,
            page.event_listener::<EventBindingCalled>().await,
        ) else {
            return activity;
        };
        let weak = Arc::downgrade(&activity);
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    Some(e) = lifecycle.next() => Event::Lifecycle(e.frame_id.inner().clone(), e.loader_id.inner().clone(), e.name.clone()),
                    Some(e) = within.next() => Event::Within(e.frame_id.inner().clone()),
                    Some(e) = sent.next() => Event::Sent {
                        id: e.request_id.inner().clone(),
                        counted: counted(e.r#type.as_ref()),
                        document_of: (e.r#type == Some(ResourceType::Document)).then(|| e.frame_id.as_ref().map(|f| f.inner().clone())).flatten(),
                    },
                    Some(e) = finished.next() => Event::Ended(e.request_id.inner().clone(), None),
                    Some(e) = failed.next() => Event::Ended(e.request_id.inner().clone(), Some(e.error_text.clone())),
                    Some(e) = calls.next() => if e.name == BINDING { Event::Dom } else { continue },
                    else => break,
                };
                let Some(activity) = weak.upgrade() else { break };
                activity.apply(event);
            }
        });
        activity
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn apply(&self, event: Event) {
        let now = Instant::now();
        {
            let mut s = self.lock();
            match event {
                Event::Lifecycle(frame, loader, name) => {
                    if frame != s.main_frame {
                        return;
                    }
                    match name.as_str() {
                        "init" => s.doc = Some(Doc { loader, ..Doc::default() }),
                        "DOMContentLoaded" | "load" => {
                            // A document whose `init` came before this tab
                            // listened is the latest all the same.
                            let doc = match &mut s.doc {
                                Some(d) if d.loader == loader => d,
                                other => other.insert(Doc { loader, ..Doc::default() }),
                            };
                            doc.parsed.get_or_insert(now);
                            if name == "load" {
                                doc.loaded.get_or_insert(now);
                            }
                        }
                        _ => return,
                    }
                }
                Event::Within(frame) => {
                    if frame == s.main_frame {
                        s.within = Some(now);
                        s.dom = now;
                    }
                }
                Event::Sent { id, counted, document_of } => {
                    if document_of.is_some_and(|f| f == s.main_frame) {
                        s.documents.insert(id.clone());
                    }
                    if !counted {
                        return;
                    }
                    s.in_flight.insert(id, now);
                    s.net = now;
                    s.sent = now;
                }
                Event::Ended(id, failure) => {
                    if s.documents.remove(&id) {
                        s.failure = failure;
                    }
                    if s.in_flight.remove(&id).is_none() {
                        return;
                    }
                    s.net = now;
                }
                Event::Dom => s.dom = now,
            }
        }
        self.changed.notify_waiters();
    }

    /// The loader id of the main frame's latest document, if one was seen.
    pub(crate) fn loader(&self) -> Option<String> {
        self.lock().doc.as_ref().map(|d| d.loader.clone())
    }

    /// Why the main frame's last document request failed, if one did
    /// since the wait began.
    pub(crate) fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    /// Whether the latest document has fired `load`.
    pub(crate) fn loaded(&self) -> bool {
        self.lock().doc.as_ref().is_some_and(|d| d.loaded.is_some())
    }

    /// Counts from now: the quiet window starts again, and requests of the
    /// page being left are forgotten (a navigation cancels them).
    pub(crate) fn begin(&self, forget_requests: bool) {
        let mut s = self.lock();
        let now = Instant::now();
        (s.dom, s.net, s.sent) = (now, now, now);
        s.failure = None;
        if forget_requests {
            s.in_flight.clear();
            s.documents.clear();
        }
    }

    /// The action was dispatched: the quiet window counts from now. What
    /// it set going (a navigation, a download, a request) is reported a
    /// moment after Chromium answers the input, and dispatching it can take
    /// longer than the window on a busy machine.
    pub(crate) fn acted(&self) {
        self.lock().net = Instant::now();
        self.changed.notify_waiters();
    }

    /// Takes what is known from elsewhere (the page was already parsed
    /// before its events were listened to: a tab the page opened).
    pub(crate) fn assume_parsed(&self, loader: String) {
        let mut s = self.lock();
        if s.doc.as_ref().is_none_or(|d| d.loader != loader) {
            s.doc = Some(Doc { loader, parsed: Some(Instant::now()), loaded: None });
        }
    }

    /// Waits until the latest document has fired `load`.
    pub(crate) async fn load_fired(&self, deadline: Instant) -> Outcome {
        self.wait(deadline, |s, _| if s.doc.as_ref().is_some_and(|d| d.loaded.is_some()) { Ok(()) } else { Err(None) }).await
    }

    /// Waits until a document other than `before` is parsed, or the frame
    /// moved within its document after `since`.
    pub(crate) async fn arrived(&self, before: Option<&str>, since: Instant, deadline: Instant) -> Outcome {
        self.wait(deadline, |s, _| {
            let new_doc = s.doc.as_ref().is_some_and(|d| d.parsed.is_some() && Some(d.loader.as_str()) != before);
            let moved = s.within.is_some_and(|t| t >= since);
            (new_doc || moved).then_some(()).ok_or(None)
        })
        .await
    }

    /// Waits until the page is quiet (see the module documentation).
    pub(crate) async fn quiet(&self, deadline: Instant) -> Outcome {
        self.wait(deadline, |s, now| {
            // The earliest moment the rule can hold: QUIET after the last
            // event, and each young request answered or gone stuck.
            let at = (s.last() + QUIET).max(s.requests_settle(now).unwrap_or(now));
            if at <= now { Ok(()) } else { Err(Some(at)) }
        })
        .await
    }

    /// Waits until the parsed document is usable (see the module
    /// documentation).
    pub(crate) async fn usable(&self, deadline: Instant) -> Outcome {
        self.wait(deadline, |s, now| {
            let requests = s.requests_settle(now);
            let at = match s.doc.as_ref().and_then(|d| d.parsed.zip(d.loaded)) {
                // Scripts did nothing once the page was parsed.
                Some((parsed, loaded)) if requests.is_none() && s.dom <= parsed && s.sent <= parsed => {
                    loaded.max(s.dom) + AFTER_LOAD
                }
                _ => (s.last() + QUIET).max(requests.unwrap_or(now)),
            };
            if at <= now { Ok(()) } else { Err(Some(at)) }
        })
        .await
    }

    /// Waits until `check` holds (`Ok`), woken by every event and at the
    /// moment it names (`Err(Some(at))`), never past `deadline`.
    async fn wait(&self, deadline: Instant, check: impl Fn(&State, Instant) -> Result<(), Option<Instant>>) -> Outcome {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let now = Instant::now();
            let wake = match check(&self.lock(), now) {
                Ok(()) => return Outcome::Done,
                Err(at) => at.map_or(deadline, |at| at.min(deadline)),
            };
            if now >= deadline {
                return Outcome::TimedOut;
            }
            tokio::select! {
                () = &mut notified => {}
                () = tokio::time::sleep_until(wake) => {}
            }
        }
    }
}

/// One event, as the state needs it.
enum Event {
    Lifecycle(String, String, String),
    Within(String),
    /// A request: its id, whether it is counted, and the frame it is the
    /// document of.
    Sent { id: String, counted: bool, document_of: Option<String> },
    /// A request finished, or failed (with Chromium's error code).
    Ended(String, Option<String>),
    Dom,
}

/// Whether a request of this type can change what whittle reads of the
/// page.
fn counted(kind: Option<&ResourceType>) -> bool {
    matches!(
        kind,
        Some(ResourceType::Document | ResourceType::Stylesheet | ResourceType::Script | ResourceType::Xhr | ResourceType::Fetch)
    )
}
