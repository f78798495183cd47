//! `whittle serve`: MCP over Streamable HTTP at `/mcp` for many clients
//! at once, on a server left running for weeks.
//!
//! What a session holds (tabs, refs, cookies, the vault, a Chromium
//! browser context) is given back when the session ends, and a session
//! ends for one of the reasons of [`End`]: the client's `DELETE`, an idle
//! timeout counted from the end of its last call (never while a call
//! runs), eviction of the longest idle session when the cap on live
//! sessions is reached, the transport closing, or shutdown. A client
//! coming back with the id of a session that ended is told so (404 with
//! a JSON-RPC error that says to start a new session), never left to
//! hang.
//!
//! The HTTP side bounds what one client can hold: connections (past the
//! cap a new one is closed at once), time to send a request's headers and
//! its body, and the body's size. SIGINT or SIGTERM stops accepting,
//! lets running calls finish within [`Lifecycle::grace`], then ends every
//! session; the caller then shuts the backend down (Chromium closed and
//! reaped, its profile removed).
//!
//! Logs name sessions by a number of their own, never by their id (an id
//! is what lets a client in).

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Notify;

use crate::mcp::{Shared, ToolSet};

/// How sessions and connections are bounded.
#[derive(Debug, Clone, Copy)]
pub struct Lifecycle {
    /// A session with no call running for this long ends.
    pub idle: Duration,
    /// Live sessions at most; a new one past it evicts the longest idle
    /// (idle for at least [`Lifecycle::evictable`]) or is refused with 503.
    pub max_sessions: usize,
    /// Open connections at most; one past it is closed at once.
    pub max_connections: usize,
    /// How long running calls may take to finish once shutdown begins.
    pub grace: Duration,
    /// How long a client may take to send a request's headers, and its
    /// body.
    pub request_timeout: Duration,
}

/// The longest `--session-idle` accepted: a week.
pub const MAX_IDLE: Duration = Duration::from_secs(7 * 24 * 3600);

impl Default for Lifecycle {
    fn default() -> Lifecycle {
        Lifecycle {
            idle: Duration::from_secs(30 * 60),
            max_sessions: default_max_sessions(),
            max_connections: default_max_connections(),
            grace: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
        }
    }
}

impl Lifecycle {
    /// How long a session must have been idle for a new one to evict it:
    /// a minute, or half the idle timeout when that is shorter.
    pub fn evictable(&self) -> Duration {
        (self.idle / 2).min(Duration::from_secs(60))
    }
}

/// One live session per 32 MiB of the machine's memory, 16 to 1,024 (a
/// static-engine session holds well under 1 MiB; one with Chromium pages
/// tens of MiB).
pub fn default_max_sessions() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?.to_owned();
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    match total {
        Some(kib) => usize::try_from(kib / (32 * 1024)).unwrap_or(usize::MAX).clamp(16, 1_024),
        None => 256,
    }
}

/// 1,024 open connections, or fewer when the process may open fewer
/// files: 64 are left for everything else (Chromium's pipes, pages,
/// logs), so the cap is met before the system's limit.
pub fn default_max_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits").ok().and_then(|l| {
        let line = l.lines().find(|l| l.starts_with("Max open files"))?.to_owned();
        line.split_whitespace().nth(3)?.parse::<usize>().ok()
    });
    match soft {
        Some(n) => n.saturating_sub(64).clamp(16, 1_024),
        None => 1_024,
    }
}

/// Parses a duration such as `90s`, `30m`, `2h`, `1d` or `45` (seconds),
/// from 1 s to [`MAX_IDLE`].
pub fn parse_idle(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| format!("{text:?} is not a duration (a whole number and s, m, h or d: 90s, 30m, 2h)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        other => return Err(format!("{text:?}: unknown unit {other:?} (s, m, h or d)")),
    };
    let secs = n.saturating_mul(scale);
    if secs == 0 {
        return Err(format!("{text:?}: a session needs at least 1s to make a call"));
    }
    if secs > MAX_IDLE.as_secs() {
        return Err(format!("{text:?}: at most 7d (a session that should never end is ended with DELETE)"));
    }
    Ok(Duration::from_secs(secs))
}

/// Parses `--max-sessions`: 1 to 100,000.
pub fn parse_max_sessions(text: &str) -> Result<usize, String> {
    let n: usize = text.trim().parse().map_err(|_| format!("{text:?} is not a whole number of sessions"))?;
    match n {
        0 => Err("0 sessions would refuse every client; give at least 1".to_owned()),
        1..=100_000 => Ok(n),
        _ => Err(format!("{n} sessions is past the limit of 100000")),
    }
}

// ---- sessions -------------------------------------------------------------

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The client sent `DELETE /mcp`.
    Deleted,
    /// No call for the idle timeout.
    Idle,
    /// The longest idle session, ended to make room for a new one.
    Evicted,
    /// Its transport closed (the session's service ended).
    Closed,
    /// The server is stopping.
    Shutdown,
}

impl End {
    fn name(self) -> &'static str {
        match self {
            End::Deleted => "deleted",
            End::Idle => "idle",
            End::Evicted => "evicted",
            End::Closed => "closed",
            End::Shutdown => "shutdown",
        }
    }
}

/// What one session is doing: the calls it is running, and since when it
/// has had none.
#[derive(Debug)]
struct Activity {
    /// The session's number in logs (from 1, in the order they started).
    number: u64,
    started: Instant,
    calls: Mutex<Calls>,
    /// Woken when a call ends or a transport closes.
    changed: Arc<Notify>,
}

#[derive(Debug)]
struct Calls {
    running: HashSet<RequestId>,
    /// When the last call ended (or the session started).
    idle_since: Instant,
    done: u64,
    closed: bool,
}

impl Activity {
    fn lock(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn began(&self, id: RequestId) {
        self.lock().running.insert(id);
    }

    fn finished(&self, id: &RequestId) {
        let mut calls = self.lock();
        if calls.running.remove(id) {
            calls.done += 1;
            if calls.running.is_empty() {
                calls.idle_since = Instant::now();
            }
            drop(calls);
            self.changed.notify_waiters();
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }

    /// How long it has been idle, `None` while a call runs.
    fn idle_for(&self, now: Instant) -> Option<Duration> {
        let calls = self.lock();
        calls.running.is_empty().then(|| now.saturating_duration_since(calls.idle_since))
    }
}

/// How many ended ids are remembered, to tell a client its session ended
/// rather than that it never existed.
const REMEMBERED: usize = 4_096;

#[derive(Debug, Default)]
struct Book {
    live: HashMap<SessionId, Arc<Activity>>,
    /// Admissions between the check and the session's creation.
    reserved: usize,
    ended: HashMap<SessionId, End>,
    ended_order: VecDeque<SessionId>,
    /// Sessions ended and the memory they freed not yet given back: when
    /// the first of them and the last of them ended.
    unreturned: Option<(Instant, Instant)>,
    /// When to give back once more: after the threads that ran the ended
    /// sessions' work have exited and their caches returned to the heap.
    again: Option<Instant>,
}

impl Book {
    /// Moves `id` from the live sessions to the ended ones; its activity
    /// if it was live.
    fn end(&mut self, id: &SessionId, why: End) -> Option<Arc<Activity>> {
        let activity = self.live.remove(id)?;
        if self.ended_order.len() == REMEMBERED
            && let Some(old) = self.ended_order.pop_front()
        {
            self.ended.remove(&old);
        }
        self.ended.insert(id.clone(), why);
        self.ended_order.push_back(id.clone());
        let now = Instant::now();
        self.unreturned = Some((self.unreturned.map_or(now, |(first, _)| first), now));
        Some(activity)
    }

    /// Whether to give back now what ended sessions freed: once no session
    /// has ended for [`QUIET`] (a session's tabs and pages are dropped
    /// just after it ends, and a burst of endings is trimmed once), or when
    /// sessions have kept ending for [`TRIM_AT_LEAST`]; after that, once
    /// more when the idle threads have exited.
    fn take_trim(&mut self, now: Instant) -> bool {
        let due = self.unreturned.is_some_and(|(first, last)| now - last >= QUIET || now - first >= TRIM_AT_LEAST);
        if due {
            self.unreturned = None;
            self.again = Some(now + crate::memory::THREAD_KEEP_ALIVE + QUIET);
            return true;
        }
        if self.again.is_some_and(|at| now >= at) {
            self.again = None;
            return true;
        }
        false
    }
}

/// How long after the last session ended its memory is given back.
const QUIET: Duration = Duration::from_secs(1);
/// The longest memory waits to be given back while sessions keep ending.
const TRIM_AT_LEAST: Duration = Duration::from_secs(30);

/// rmcp's in-memory session manager, with the lifecycle whittle keeps:
/// every session's activity, the ended ids, the idle reaper, admission.
#[derive(Debug)]
pub struct Live {
    inner: LocalSessionManager,
    book: Mutex<Book>,
    lifecycle: Lifecycle,
    next: AtomicU64,
    changed: Arc<Notify>,
    draining: AtomicBool,
    /// POST requests whose response has not yet been sent in whole.
    posts: std::sync::atomic::AtomicUsize,
}

/// Counts of a server's sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub live: usize,
    pub running_calls: usize,
}

impl Live {
    /// A manager with `lifecycle`'s limits, and its reaper running on the
    /// current runtime until the manager is dropped.
    pub fn start(lifecycle: Lifecycle) -> Arc<Live> {
        let mut inner = LocalSessionManager::default();
        // Idle sessions are whittle's to end (rmcp's own keep-alive would
        // also end one whose call runs long without a message).
        inner.session_config.keep_alive = None;
        let live = Arc::new(Live {
            inner,
            book: Mutex::new(Book::default()),
            lifecycle,
            next: AtomicU64::new(1),
            changed: Arc::new(Notify::new()),
            draining: AtomicBool::new(false),
            posts: std::sync::atomic::AtomicUsize::new(0),
        });
        let weak = Arc::downgrade(&live);
        let tick = (lifecycle.idle / 8).clamp(Duration::from_millis(50), Duration::from_secs(10));
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(tick);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                let Some(live) = weak.upgrade() else { break };
                live.reap().await;
            }
        });
        live
    }

    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Live sessions, and calls running in them.
    pub fn counts(&self) -> Counts {
        let book = self.book();
        let running_calls = book.live.values().map(|a| a.lock().running.len()).sum();
        Counts { live: book.live.len(), running_calls }
    }

    /// Ends the sessions idle past the timeout, and those whose transport
    /// closed; gives back the memory ended sessions freed, once they have
    /// stopped ending (see [`Book::take_trim`]).
    async fn reap(&self) {
        let now = Instant::now();
        let due: Vec<(SessionId, End)> = self
            .book()
            .live
            .iter()
            .filter_map(|(id, a)| {
                if a.lock().closed {
                    Some((id.clone(), End::Closed))
                } else {
                    a.idle_for(now).filter(|d| *d >= self.lifecycle.idle).map(|_| (id.clone(), End::Idle))
                }
            })
            .collect();
        for (id, why) in due {
            self.end(&id, why).await;
        }
        if self.book().take_trim(Instant::now()) {
            let started = Instant::now();
            let rss_before = crate::memory::resident_kib();
            let gave = tokio::task::spawn_blocking(crate::memory::give_back).await.unwrap_or(false);
            tracing::info!(
                gave,
                ms = started.elapsed().as_millis() as u64,
                rss_kib_before = rss_before,
                rss_kib = crate::memory::resident_kib(),
                "memory ended sessions freed given back"
            );
        }
    }

    /// Ends session `id` for `why`: logged, remembered, and closed in rmcp
    /// (its handler, and with it the session's tabs and browser context,
    /// dropped).
    async fn end(&self, id: &SessionId, why: End) {
        let ended = {
            let mut book = self.book();
            let ended = book.end(id, why);
            ended.map(|a| (a, book.live.len()))
        };
        if let Some((activity, live)) = ended {
            let done = activity.lock().done;
            tracing::info!(
                session = activity.number,
                reason = why.name(),
                calls = done,
                lived_s = activity.started.elapsed().as_secs(),
                live,
                "session ended"
            );
            activity.close();
        }
        // Whether or not it was live here: rmcp may still hold it.
        let _ = self.inner.close_session(id).await;
    }

    /// Why session `id` ended, if it is one of the last ended.
    fn ended(&self, id: &str) -> Option<End> {
        self.book().ended.get(id).copied()
    }

    fn is_live(&self, id: &str) -> bool {
        self.book().live.contains_key(id)
    }

    /// Room for one more session: a reservation, after evicting the
    /// longest idle session if the cap is reached; otherwise how long to
    /// wait before trying again.
    async fn admit(self: &Arc<Self>) -> Result<Reservation, Duration> {
        let evict = {
            let mut book = self.book();
            if book.live.len() + book.reserved < self.lifecycle.max_sessions {
                book.reserved += 1;
                None
            } else {
                let now = Instant::now();
                let floor = self.lifecycle.evictable();
                let oldest = book
                    .live
                    .iter()
                    .filter_map(|(id, a)| a.idle_for(now).map(|d| (d, id)))
                    .max_by_key(|(d, _)| *d);
                match oldest {
                    Some((d, id)) if d >= floor => {
                        let id = id.clone();
                        book.reserved += 1;
                        Some(id)
                    }
                    // The soonest a session can become evictable.
                    Some((d, _)) => return Err((floor - d).max(Duration::from_secs(1))),
                    None => return Err(floor.max(Duration::from_secs(1))),
                }
            }
        };
        if let Some(id) = evict {
            self.end(&id, End::Evicted).await;
        }
        Ok(Reservation(Arc::downgrade(self)))
    }

    /// Shutdown: refuses new requests, waits up to `grace` for running
    /// calls and for their answers to be sent, then ends every session.
    pub async fn drain(&self, grace: Duration) {
        self.draining.store(true, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.changed.notified();
            let running = self.counts().running_calls + self.posts.load(Ordering::SeqCst);
            if running == 0 {
                break;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                tracing::warn!(running, grace_s = grace.as_secs(), "shutdown: calls still running past the grace period are cut off");
                break;
            }
        }
        let ids: Vec<SessionId> = self.book().live.keys().cloned().collect();
        for id in ids {
            self.end(&id, End::Shutdown).await;
        }
    }
}

/// A POST being answered, until its response body is sent or dropped.
#[derive(Debug)]
struct InFlight(Arc<Live>);

impl InFlight {
    fn new(live: &Arc<Live>) -> InFlight {
        live.posts.fetch_add(1, Ordering::SeqCst);
        InFlight(live.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.posts.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

/// A place for a session being created; given back when dropped.
#[derive(Debug)]
struct Reservation(Weak<Live>);

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(live) = self.0.upgrade() {
            let mut book = live.book();
            book.reserved = book.reserved.saturating_sub(1);
        }
    }
}

impl SessionManager for Live {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = Watched<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let activity = Arc::new(Activity {
            number,
            started: Instant::now(),
            calls: Mutex::new(Calls { running: HashSet::new(), idle_since: Instant::now(), done: 0, closed: false }),
            changed: self.changed.clone(),
        });
        let live = {
            let mut book = self.book();
            book.live.insert(id.clone(), activity.clone());
            book.live.len()
        };
        tracing::info!(session = number, live, "session started");
        Ok((id, Watched { inner: transport, activity }))
    }

    async fn initialize_session(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // rmcp calls this for a DELETE, and once a session's service ends
        // (after whittle ended it, or when its transport closed).
        let why = self.book().live.get(id).map(|a| if a.lock().closed { End::Closed } else { End::Deleted });
        match why {
            Some(why) => self.end(id, why).await,
            None => self.inner.close_session(id).await?,
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}

/// A session's transport, telling its [`Activity`] when a call begins
/// (a request arrives) and ends (its response or error leaves), and when
/// the transport closes.
#[derive(Debug)]
pub struct Watched<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Watched<T> {
    type Error = T::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &item {
            JsonRpcMessage::Response(r) => self.activity.finished(&r.id),
            JsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.activity.finished(id);
                }
            }
            JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => {}
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let message = self.inner.receive().await;
        match &message {
            Some(JsonRpcMessage::Request(r)) => self.activity.began(r.id.clone()),
            None => self.activity.close(),
            Some(_) => {}
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.activity.close();
        self.inner.close().await
    }
}

// ---- HTTP -------------------------------------------------------------------

/// Serves clients over Streamable HTTP at `/mcp` on `listen` until
/// `stop` resolves, as [`serve_on`] does. Prints
/// `listening on http://ADDR/mcp` on standard error once bound.
pub async fn serve_http(
    shared: Arc<Shared>,
    listen: SocketAddr,
    token: Option<String>,
    lifecycle: Lifecycle,
    stop: impl Future<Output = ()> + Send,
) -> Result<(), std::io::Error> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    #[allow(clippy::print_stderr)]
    {
        eprintln!("listening on http://{addr}/mcp");
    }
    serve_on(listener, shared, token, lifecycle, stop).await
}

/// Serves clients over Streamable HTTP at `/mcp` on `listener` until
/// `stop` resolves, then drains: running calls get [`Lifecycle::grace`],
/// every session ends, connections close. With `token`, every request
/// needs `Authorization: Bearer <token>` (401 otherwise).
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    token: Option<String>,
    lifecycle: Lifecycle,
    stop: impl Future<Output = ()> + Send,
) -> Result<(), std::io::Error> {
    let addr = listener.local_addr()?;
    let live = Live::start(lifecycle);
    let mut config = StreamableHttpServerConfig::default();
    // Cancelled last, once every session has ended: rmcp's own tasks stop.
    let shutdown = config.cancellation_token.clone();
    if !addr.ip().is_loopback() {
        // Bound to a routable address on purpose: accept its Host header.
        config = config.with_allowed_hosts(vec![addr.ip().to_string(), addr.to_string()]);
    }
    let max_body = config.max_request_body_bytes;
    let mcp = match shared.tool_set() {
        ToolSet::Whittle => {
            let factory = move || Ok(crate::mcp::Handler::new(shared.clone()));
            axum::Router::new().nest_service("/mcp", StreamableHttpService::new(factory, live.clone(), config))
        }
        ToolSet::AgentBrowser => {
            let factory = move || Ok(crate::compat::Handler::new(shared.clone()));
            axum::Router::new().nest_service("/mcp", StreamableHttpService::new(factory, live.clone(), config))
        }
    };
    let gate = Gate { live: live.clone(), lifecycle, max_body };
    let mut router = mcp.layer(axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let gate = gate.clone();
        async move { gate.check(req, next).await }
    }));
    if let Some(token) = token {
        let expected = Arc::new(format!("Bearer {token}"));
        router = router.layer(axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
            let expected = expected.clone();
            async move {
                let given = req.headers().get(header::AUTHORIZATION).map(|v| v.as_bytes()).unwrap_or(b"");
                if constant_time_eq(given, expected.as_bytes()) { next.run(req).await } else { unauthorized() }
            }
        }));
    }
    tracing::info!(
        %addr,
        idle_s = lifecycle.idle.as_secs(),
        max_sessions = lifecycle.max_sessions,
        max_connections = lifecycle.max_connections,
        "listening"
    );
    let connections = accept(listener, router, lifecycle, stop).await;
    // Stopping: no new connection; requests on open ones get 503.
    live.drain(lifecycle.grace).await;
    shutdown.cancel();
    if tokio::time::timeout(Duration::from_secs(2), connections.shutdown()).await.is_err() {
        tracing::warn!("shutdown: connections still open after 2 s are dropped");
    }
    Ok(())
}

/// Accepts connections until `stop`, each served by hyper with a header
/// timeout, at most [`Lifecycle::max_connections`] at once; the open
/// connections, for a graceful shutdown.
async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    lifecycle: Lifecycle,
    stop: impl Future<Output = ()> + Send,
) -> hyper_util::server::graceful::GracefulShutdown {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(tokio::sync::Semaphore::new(lifecycle.max_connections));
    let (mut refused, mut failed) = (0u64, 0u64);
    let mut stop = std::pin::pin!(stop);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, or a connection reset before
                // it was taken: wait for one to be given back.
                failed += 1;
                if failed.is_power_of_two() {
                    tracing::warn!(error = %e, failed, "accept failed");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refused += 1;
            if refused.is_power_of_two() {
                tracing::warn!(refused, max = lifecycle.max_connections, "connections past the cap closed");
            }
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(lifecycle.request_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(slot);
        });
    }
    graceful
}

/// What every request passes before rmcp sees it.
#[derive(Debug, Clone)]
struct Gate {
    live: Arc<Live>,
    lifecycle: Lifecycle,
    max_body: usize,
}

impl Gate {
    async fn check(&self, req: axum::extract::Request, next: axum::middleware::Next) -> Response {
        if self.live.draining.load(Ordering::SeqCst) {
            return refusal(StatusCode::SERVICE_UNAVAILABLE, None, "whittle is shutting down: try again once it is back");
        }
        let session = req.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let mut reservation = None;
        match &session {
            Some(id) if !self.live.is_live(id) => {
                let message = match self.live.ended(id) {
                    Some(End::Idle) => format!(
                        "session expired: it was idle for more than {}; start a new session (initialize without Mcp-Session-Id)",
                        human(self.lifecycle.idle)
                    ),
                    Some(End::Evicted) => "session ended: the server was full and it was the longest idle; start a new session (initialize without Mcp-Session-Id)".to_owned(),
                    Some(why) => format!("session ended ({}); start a new session (initialize without Mcp-Session-Id)", why.name()),
                    None => "no such session (it may have ended before the server restarted); start a new session (initialize without Mcp-Session-Id)".to_owned(),
                };
                return refusal(StatusCode::NOT_FOUND, None, &message);
            }
            None if req.method() == Method::POST => match self.live.admit().await {
                Ok(r) => reservation = Some(r),
                Err(wait) => {
                    let message = format!(
                        "whittle has {} live sessions, its limit (--max-sessions), and none idle long enough to end: end one (DELETE /mcp) or retry in {} s",
                        self.lifecycle.max_sessions,
                        wait.as_secs()
                    );
                    return refusal(StatusCode::SERVICE_UNAVAILABLE, Some(wait), &message);
                }
            },
            _ => {}
        }
        // A body announced as too large is refused before it is read.
        let announced = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        if announced.is_some_and(|n| n > self.max_body as u64) {
            let message = format!("the request body is over {} bytes", self.max_body);
            return refusal(StatusCode::PAYLOAD_TOO_LARGE, None, &message);
        }
        // The body in whole within the request timeout: a client sending
        // it a byte at a time holds nothing for long.
        let (parts, body) = req.into_parts();
        let bytes = match tokio::time::timeout(self.lifecycle.request_timeout, axum::body::to_bytes(body, self.max_body)).await {
            Ok(Ok(b)) => b,
            Ok(Err(_)) => {
                let message = format!("the request body is over {} bytes, or was cut off", self.max_body);
                return refusal(StatusCode::PAYLOAD_TOO_LARGE, None, &message);
            }
            Err(_) => {
                let message = format!("the request body took more than {} to arrive", human(self.lifecycle.request_timeout));
                return refusal(StatusCode::REQUEST_TIMEOUT, None, &message);
            }
        };
        let post = (parts.method == Method::POST).then(|| InFlight::new(&self.live));
        let delete = parts.method == Method::DELETE;
        let mut response = next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await;
        drop(reservation);
        if delete && response.status() == StatusCode::ACCEPTED {
            // The session is gone when the answer leaves: 204, as clients
            // expect of a DELETE that is done.
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        match post {
            // A call's answer streams (SSE) after the handler returns: it
            // is in flight until its body has been sent.
            Some(in_flight) => {
                use futures::StreamExt as _;
                let (parts, body) = response.into_parts();
                let stream = body.into_data_stream().map(move |chunk| {
                    let _ = &in_flight;
                    chunk
                });
                Response::from_parts(parts, axum::body::Body::from_stream(stream))
            }
            None => response,
        }
    }
}

/// An HTTP error with a JSON-RPC error body that says what to do.
fn refusal(status: StatusCode, retry_after: Option<Duration>, message: &str) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": message}});
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    if let Some(wait) = retry_after
        && let Ok(v) = HeaderValue::from_str(&wait.as_secs().max(1).to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

/// `90s`, `30m`, `2h`: a duration as the flags take it.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        _ if s >= 86_400 && s.is_multiple_of(86_400) => format!("{}d", s / 86_400),
        _ if s >= 3_600 && s.is_multiple_of(3_600) => format!("{}h", s / 3_600),
        _ if s >= 60 && s.is_multiple_of(60) => format!("{}m", s / 60),
        _ => format!("{s}s"),
    }
}

/// 401 with the scheme the client should use.
fn unauthorized() -> Response {
    let status = StatusCode::UNAUTHORIZED;
    (status, [(header::WWW_AUTHENTICATE, "Bearer")], "missing or wrong bearer token\n").into_response()
}

/// Compares secrets without an early exit on the first differing byte.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_comparison() {
        assert!(constant_time_eq(b"Bearer x", b"Bearer x"));
        assert!(!constant_time_eq(b"Bearer y", b"Bearer x"));
        assert!(!constant_time_eq(b"", b"Bearer x"));
    }

    #[test]
    fn idle_durations_parse_within_bounds() {
        assert_eq!(parse_idle("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_idle("30m"), Ok(Duration::from_secs(1_800)));
        assert_eq!(parse_idle("2h"), Ok(Duration::from_secs(7_200)));
        assert_eq!(parse_idle("7d"), Ok(MAX_IDLE));
        assert_eq!(parse_idle("45"), Ok(Duration::from_secs(45)));
        for bad in ["0", "0s", "-5m", "8d", "99999999999999999999d", "5x", "", "m", "1.5h"] {
            assert!(parse_idle(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(human(Duration::from_secs(1_800)), "30m");
        assert_eq!(human(Duration::from_secs(90)), "90s");
    }

    #[test]
    fn session_caps_parse_within_bounds() {
        assert_eq!(parse_max_sessions("32"), Ok(32));
        assert!(parse_max_sessions("0").is_err_and(|e| e.contains("at least 1")));
        for bad in ["-1", "many", "100001", ""] {
            assert!(parse_max_sessions(bad).is_err(), "{bad:?} accepted");
        }
        assert!((16..=1_024).contains(&default_max_sessions()));
        assert!((16..=1_024).contains(&default_max_connections()));
    }

    #[test]
    fn ended_ids_are_remembered_up_to_a_bound() {
        let mut book = Book::default();
        for i in 0..REMEMBERED + 10 {
            let id = live_session(&mut book, &format!("s{i}"));
            assert!(book.end(&id, End::Idle).is_some());
            assert!(book.end(&id, End::Idle).is_none(), "an ended session ends once");
        }
        assert_eq!(book.ended.len(), REMEMBERED);
        assert_eq!(book.ended_order.len(), REMEMBERED);
        assert!(!book.ended.contains_key("s0"), "the oldest is forgotten first");
        assert_eq!(book.ended.get(&*format!("s{}", REMEMBERED + 9)), Some(&End::Idle));
        assert!(book.live.is_empty());
    }

    fn live_session(book: &mut Book, name: &str) -> SessionId {
        let id: SessionId = Arc::from(name);
        let activity = Arc::new(Activity {
            number: 1,
            started: Instant::now(),
            calls: Mutex::new(Calls { running: HashSet::new(), idle_since: Instant::now(), done: 0, closed: false }),
            changed: Arc::new(Notify::new()),
        });
        book.live.insert(id.clone(), activity);
        id
    }

    #[test]
    fn memory_is_given_back_once_sessions_stop_ending_and_again_after_the_threads_exit() {
        let mut book = Book::default();
        let t0 = Instant::now();
        assert!(!book.take_trim(t0), "nothing ended, nothing to give back");
        let a = live_session(&mut book, "a");
        book.end(&a, End::Idle);
        let ended = book.unreturned.expect("an ending is recorded").1;
        assert!(!book.take_trim(ended), "not while sessions may still be ending");
        assert!(book.take_trim(ended + QUIET));
        assert!(!book.take_trim(ended + QUIET), "once per quiet period");
        let again = ended + QUIET + crate::memory::THREAD_KEEP_ALIVE + QUIET;
        assert!(!book.take_trim(again - Duration::from_millis(1)));
        assert!(book.take_trim(again), "once more when the idle threads have exited");
        assert!(!book.take_trim(again + Duration::from_secs(3600)), "then nothing until another session ends");
    }

    #[test]
    fn memory_is_given_back_while_sessions_keep_ending() {
        let mut book = Book::default();
        let first = Instant::now();
        // Sessions ending every half second for 40 s: the last ending is
        // never a second old, but the first is past the bound.
        book.unreturned = Some((first, first + Duration::from_secs(40)));
        assert!(book.take_trim(first + Duration::from_millis(40_400)));
        book.unreturned = Some((first, first + Duration::from_secs(20)));
        assert!(!book.take_trim(first + Duration::from_millis(20_400)), "within the bound it waits for a quiet second");
    }
}
