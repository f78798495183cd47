//! The socket guard: a SOCKS5 server on loopback through which Chromium
//! makes every TCP connection (docs/privacy.md).
//!
//! Chromium is launched with [`SocketGuard::chromium_args`]: the guard as
//! its SOCKS5 proxy, no implicit loopback bypass, and no WebRTC UDP outside
//! the proxy. Every connection a page, worker or service worker opens then
//! arrives here as a CONNECT with the host name (Chromium leaves names to a
//! SOCKS5 proxy). The guard checks the host and port against the
//! [`NetPolicy`], looks the name up itself, keeps only the addresses the
//! policy allows and connects to one of those, so a name that resolves to
//! a private address (DNS rebinding) is refused like a literal one. Then it
//! copies bytes both ways until either side is done.
//!
//! RFC 1928 subset: no authentication, CONNECT only. Nothing is logged;
//! the host and port of the last few refusals are kept for notices.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout};

use crate::policy::{Lookup, NetPolicy, Refusal, resolve_allowed};

/// How long a client has for its greeting and request.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the name lookup may take, and, separately, the connection to
/// the target (all its allowed addresses together).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many refusals [`SocketGuard::recent_refusals`] keeps.
const RECENT_REFUSALS: usize = 20;

/// The pause after a failed accept (e.g. too many open files).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0x00;
const NO_ACCEPTABLE_METHOD: u8 = 0xFF;
const CMD_CONNECT: u8 = 0x01;
const ATYP_IPV4: u8 = 0x01;
const ATYP_NAME: u8 = 0x03;
const ATYP_IPV6: u8 = 0x04;

const REP_SUCCEEDED: u8 = 0x00;
const REP_GENERAL_FAILURE: u8 = 0x01;
const REP_NOT_ALLOWED: u8 = 0x02;
const REP_NETWORK_UNREACHABLE: u8 = 0x03;
const REP_HOST_UNREACHABLE: u8 = 0x04;
const REP_CONNECTION_REFUSED: u8 = 0x05;
const REP_COMMAND_NOT_SUPPORTED: u8 = 0x07;
const REP_ADDRESS_TYPE_NOT_SUPPORTED: u8 = 0x08;

/// A SOCKS5 (RFC 1928, no authentication, CONNECT only) server on
/// 127.0.0.1 that enforces a [`NetPolicy`] on every connection.
///
/// Dropping it stops accepting; tunnels already open run until their ends
/// close them.
#[derive(Debug)]
pub struct SocketGuard {
    addr: SocketAddr,
    stats: Arc<Stats>,
    task: JoinHandle<()>,
}

impl SocketGuard {
    /// Binds 127.0.0.1:0 and starts accepting on the current tokio runtime.
    pub async fn start(policy: Arc<NetPolicy>) -> io::Result<SocketGuard> {
        SocketGuard::start_with(policy, Limits::default()).await
    }

    async fn start_with(policy: Arc<NetPolicy>, limits: Limits) -> io::Result<SocketGuard> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(Stats::default());
        let shared = Shared { policy, stats: stats.clone(), limits, own: addr, lookup: Lookup::default() };
        let task = tokio::spawn(accept_loop(listener, Arc::new(shared)));
        Ok(SocketGuard { addr, stats, task })
    }

    /// The proxy address (for `--proxy-server=socks5://ADDR`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Chromium command-line flags that route every connection through
    /// this guard: the proxy, no implicit loopback bypass (so loopback
    /// connections come through the guard too), and no UDP from WebRTC
    /// outside the proxy.
    pub fn chromium_args(&self) -> Vec<String> {
        vec![
            format!("--proxy-server=socks5://{}", self.addr),
            "--proxy-bypass-list=<-loopback>".to_owned(),
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_owned(),
        ]
    }

    /// Connections refused so far by the policy (site or address).
    pub fn refused(&self) -> u64 {
        self.stats.refused.load(Ordering::Relaxed)
    }

    /// Connections let through so far (the target connected).
    pub fn allowed(&self) -> u64 {
        self.stats.allowed.load(Ordering::Relaxed)
    }

    /// The last few refusals, oldest first: `host:port: reason` (at most
    /// 20 kept).
    pub fn recent_refusals(&self) -> Vec<String> {
        self.stats.recent().iter().cloned().collect()
    }
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The time bounds of one connection.
#[derive(Debug, Clone, Copy)]
struct Limits {
    handshake: Duration,
    connect: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { handshake: HANDSHAKE_TIMEOUT, connect: CONNECT_TIMEOUT }
    }
}

#[derive(Debug, Default)]
struct Stats {
    refused: AtomicU64,
    allowed: AtomicU64,
    recent: Mutex<VecDeque<String>>,
}

impl Stats {
    fn recent(&self) -> std::sync::MutexGuard<'_, VecDeque<String>> {
        // A panic elsewhere cannot leave the list inconsistent.
        self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn refuse(&self, target: &Target, why: &dyn fmt::Display) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        let mut recent = self.recent();
        while recent.len() >= RECENT_REFUSALS {
            recent.pop_front();
        }
        recent.push_back(format!("{target}: {why}"));
    }
}

/// What every connection task needs.
#[derive(Debug)]
struct Shared {
    policy: Arc<NetPolicy>,
    stats: Arc<Stats>,
    limits: Limits,
    /// The guard's own address, never a target.
    own: SocketAddr,
    /// Names to addresses (cached for Chromium's whole life).
    lookup: Lookup,
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((client, _)) => {
                tokio::spawn(serve(client, shared.clone()));
            }
            Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
        }
    }
}

/// Where a client asked to go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    Ip(IpAddr),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    dest: Dest,
    port: u16,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.dest {
            Dest::Ip(ip) => write!(f, "{}", SocketAddr::new(*ip, self.port)),
            Dest::Name(name) => write!(f, "{name}:{}", self.port),
        }
    }
}

/// One client, from greeting to the end of its tunnel. Every failure ends
/// this connection only.
async fn serve(mut client: TcpStream, shared: Arc<Shared>) {
    let limits = shared.limits;
    let target = match timeout(limits.handshake, handshake(&mut client)).await {
        Ok(Ok(Some(target))) => target,
        // Answered already, not SOCKS5, closed early, or too slow.
        _ => return,
    };
    let mut upstream = match open(&shared, &target).await {
        Ok(upstream) => upstream,
        Err(code) => {
            let _ = timeout(limits.handshake, reply(&mut client, code, None)).await;
            return;
        }
    };
    shared.stats.allowed.fetch_add(1, Ordering::Relaxed);
    let bound = upstream.local_addr().ok();
    if !matches!(timeout(limits.handshake, reply(&mut client, REP_SUCCEEDED, bound)).await, Ok(Ok(()))) {
        return;
    }
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

/// Reads the greeting and the request. `None` when the connection ends
/// here (an error reply was sent, or the client does not speak SOCKS5).
async fn handshake(client: &mut TcpStream) -> io::Result<Option<Target>> {
    let [version, count] = read_array::<2>(client).await?;
    if version != VERSION {
        return Ok(None);
    }
    let mut methods = vec![0; usize::from(count)];
    client.read_exact(&mut methods).await?;
    if !methods.contains(&NO_AUTH) {
        client.write_all(&[VERSION, NO_ACCEPTABLE_METHOD]).await?;
        return Ok(None);
    }
    client.write_all(&[VERSION, NO_AUTH]).await?;

    let [version, command, _reserved, atyp] = read_array::<4>(client).await?;
    if version != VERSION {
        return Ok(None);
    }
    let dest = match atyp {
        ATYP_IPV4 => Some(Dest::Ip(IpAddr::V4(Ipv4Addr::from(read_array::<4>(client).await?)))),
        ATYP_IPV6 => Some(Dest::Ip(IpAddr::V6(Ipv6Addr::from(read_array::<16>(client).await?)))),
        ATYP_NAME => {
            let [len] = read_array::<1>(client).await?;
            let mut name = vec![0; usize::from(len)];
            client.read_exact(&mut name).await?;
            parse_name(name)
        }
        _ => {
            reply(client, REP_ADDRESS_TYPE_NOT_SUPPORTED, None).await?;
            return Ok(None);
        }
    };
    let port = u16::from_be_bytes(read_array::<2>(client).await?);
    if command != CMD_CONNECT {
        reply(client, REP_COMMAND_NOT_SUPPORTED, None).await?;
        return Ok(None);
    }
    match dest {
        Some(dest) => Ok(Some(Target { dest, port })),
        None => {
            reply(client, REP_HOST_UNREACHABLE, None).await?;
            Ok(None)
        }
    }
}

/// A SOCKS5 host name: an IP literal (bracketed or not) is an address;
/// an empty or non-UTF-8 name is `None`.
fn parse_name(bytes: Vec<u8>) -> Option<Dest> {
    let name = String::from_utf8(bytes).ok()?;
    if name.is_empty() {
        return None;
    }
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(&name);
    Some(match bare.parse::<IpAddr>() {
        Ok(ip) => Dest::Ip(ip),
        Err(_) => Dest::Name(name),
    })
}

async fn read_array<const N: usize>(client: &mut TcpStream) -> io::Result<[u8; N]> {
    let mut buf = [0; N];
    client.read_exact(&mut buf).await?;
    Ok(buf)
}

/// A reply: `code`, then the bound address (0.0.0.0:0 when there is none).
async fn reply(client: &mut TcpStream, code: u8, bound: Option<SocketAddr>) -> io::Result<()> {
    let mut msg = Vec::with_capacity(22);
    msg.extend_from_slice(&[VERSION, code, 0]);
    match bound.unwrap_or(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0))) {
        SocketAddr::V4(a) => {
            msg.push(ATYP_IPV4);
            msg.extend_from_slice(&a.ip().octets());
            msg.extend_from_slice(&a.port().to_be_bytes());
        }
        SocketAddr::V6(a) => {
            msg.push(ATYP_IPV6);
            msg.extend_from_slice(&a.ip().octets());
            msg.extend_from_slice(&a.port().to_be_bytes());
        }
    }
    client.write_all(&msg).await
}

/// Checks the target, resolves it to allowed addresses and connects to the
/// first that answers; the error is the reply code.
async fn open(shared: &Shared, target: &Target) -> Result<TcpStream, u8> {
    let policy = &*shared.policy;
    let host = match &target.dest {
        Dest::Ip(ip) => ip.to_string(),
        Dest::Name(name) => name.clone(),
    };
    if let Err(refusal) = policy.check_host(&host, target.port) {
        shared.stats.refuse(target, &refusal);
        return Err(REP_NOT_ALLOWED);
    }
    let addrs = match &target.dest {
        // check_host has checked the address.
        Dest::Ip(ip) => vec![SocketAddr::new(*ip, target.port)],
        Dest::Name(name) => match timeout(shared.limits.connect, resolve_allowed(policy, &shared.lookup, name, target.port)).await {
            Ok(Ok(addrs)) => addrs,
            Ok(Err(e)) => {
                return match e.downcast_ref::<Refusal>() {
                    Some(refusal) => {
                        shared.stats.refuse(target, refusal);
                        Err(REP_NOT_ALLOWED)
                    }
                    None => Err(REP_HOST_UNREACHABLE),
                };
            }
            Err(_) => return Err(REP_HOST_UNREACHABLE),
        },
    };
    // The guard itself is no target: a tunnel into it would only nest.
    let is_self = |a: &SocketAddr| a.port() == shared.own.port() && (a.ip().is_loopback() || a.ip().is_unspecified());
    // Every address here passed check_ip; asking again costs nothing.
    let addrs: Vec<SocketAddr> = addrs.into_iter().filter(|a| policy.check_ip(a.ip()).is_ok() && !is_self(a)).collect();
    if addrs.is_empty() {
        shared.stats.refuse(target, &"the address is the socket guard itself");
        return Err(REP_NOT_ALLOWED);
    }
    connect_first(&addrs, shared.limits.connect).await
}

/// Tries the addresses in order within `limit` (each gets an equal share
/// of the time left, so one silent address does not starve the rest).
async fn connect_first(addrs: &[SocketAddr], limit: Duration) -> Result<TcpStream, u8> {
    let deadline = Instant::now() + limit;
    let mut code = REP_HOST_UNREACHABLE;
    for (i, addr) in addrs.iter().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let share = left / u32::try_from(addrs.len() - i).unwrap_or(u32::MAX);
        match timeout(share, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(e)) => code = reply_code(&e),
            Err(_) => code = REP_HOST_UNREACHABLE,
        }
    }
    Err(code)
}

fn reply_code(e: &io::Error) -> u8 {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => REP_CONNECTION_REFUSED,
        io::ErrorKind::NetworkUnreachable | io::ErrorKind::AddrNotAvailable => REP_NETWORK_UNREACHABLE,
        io::ErrorKind::HostUnreachable | io::ErrorKind::TimedOut => REP_HOST_UNREACHABLE,
        _ => REP_GENERAL_FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::policy::OriginPattern;

    /// Every wait in these tests is bounded.
    const WAIT: Duration = Duration::from_secs(5);

    async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
        timeout(WAIT, fut).await.unwrap_or_else(|_| panic!("{what}: timed out"))
    }

    async fn guard(policy: NetPolicy) -> SocketGuard {
        SocketGuard::start(Arc::new(policy)).await.unwrap_or_else(|e| panic!("{e}"))
    }

    /// An echo server on loopback that counts the connections it accepts.
    async fn echo_server() -> (SocketAddr, Arc<AtomicUsize>) {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap_or_else(|e| panic!("{e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let (mut r, mut w) = stream.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        (addr, accepted)
    }

    fn v4(ip: Ipv4Addr) -> Vec<u8> {
        let mut v = vec![ATYP_IPV4];
        v.extend_from_slice(&ip.octets());
        v
    }

    fn v6(ip: Ipv6Addr) -> Vec<u8> {
        let mut v = vec![ATYP_IPV6];
        v.extend_from_slice(&ip.octets());
        v
    }

    fn name(n: &str) -> Vec<u8> {
        let mut v = vec![ATYP_NAME, u8::try_from(n.len()).unwrap_or_else(|e| panic!("{e}"))];
        v.extend_from_slice(n.as_bytes());
        v
    }

    /// A minimal SOCKS5 client: greeting, then `cmd` to `dest` (ATYP and
    /// address bytes) and `port`; returns the stream and the reply code.
    async fn socks(proxy: SocketAddr, cmd: u8, dest: &[u8], port: u16) -> (TcpStream, u8) {
        within("socks handshake", async {
            let mut s = TcpStream::connect(proxy).await.unwrap_or_else(|e| panic!("{e}"));
            s.write_all(&[VERSION, 1, NO_AUTH]).await.unwrap_or_else(|e| panic!("{e}"));
            let mut choice = [0; 2];
            s.read_exact(&mut choice).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(choice, [VERSION, NO_AUTH]);
            let mut request = vec![VERSION, cmd, 0];
            request.extend_from_slice(dest);
            request.extend_from_slice(&port.to_be_bytes());
            s.write_all(&request).await.unwrap_or_else(|e| panic!("{e}"));
            let mut head = [0; 4];
            s.read_exact(&mut head).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(head[0], VERSION);
            let rest = match head[3] {
                ATYP_IPV4 => 6,
                ATYP_IPV6 => 18,
                other => panic!("reply with address type {other}"),
            };
            let mut bound = vec![0; rest];
            s.read_exact(&mut bound).await.unwrap_or_else(|e| panic!("{e}"));
            (s, head[1])
        })
        .await
    }

    async fn assert_echoes(s: &mut TcpStream) {
        within("echo", async {
            s.write_all(b"ping").await.unwrap_or_else(|e| panic!("{e}"));
            let mut back = [0; 4];
            s.read_exact(&mut back).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&back, b"ping");
        })
        .await;
    }

    /// Whether the peer closed (or reset) the connection without sending
    /// anything more.
    async fn closed(s: &mut TcpStream) -> bool {
        let mut buf = [0; 64];
        matches!(timeout(WAIT, s.read(&mut buf)).await, Ok(Ok(0) | Err(_)))
    }

    #[tokio::test]
    async fn open_policy_connects_by_address_and_by_name() {
        let (echo, accepted) = echo_server().await;
        let g = guard(NetPolicy::open()).await;
        for dest in [v4(Ipv4Addr::LOCALHOST), name("localhost"), name("127.0.0.1")] {
            let (mut s, code) = socks(g.addr(), CMD_CONNECT, &dest, echo.port()).await;
            assert_eq!(code, REP_SUCCEEDED, "{dest:?}");
            assert_echoes(&mut s).await;
        }
        assert_eq!(g.allowed(), 3);
        assert_eq!(g.refused(), 0);
        assert_eq!(accepted.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn public_policy_refuses_loopback_before_connecting() {
        let (echo, accepted) = echo_server().await;
        let g = guard(NetPolicy::public()).await;
        for dest in [v4(Ipv4Addr::LOCALHOST), name("localhost"), name("127.0.0.1"), v4(Ipv4Addr::new(127, 0, 0, 2))] {
            let (mut s, code) = socks(g.addr(), CMD_CONNECT, &dest, echo.port()).await;
            assert_eq!(code, REP_NOT_ALLOWED, "{dest:?}");
            assert!(closed(&mut s).await, "closed after a refusal");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 0, "the echo server never saw a connection");
        assert_eq!(g.refused(), 4);
        assert_eq!(g.allowed(), 0);
        let recent = g.recent_refusals();
        assert_eq!(recent.len(), 4);
        assert!(recent[0].starts_with(&format!("127.0.0.1:{}", echo.port())), "{recent:?}");
        assert!(recent[1].starts_with("localhost:"), "{recent:?}");
        assert!(recent.iter().all(|r| r.contains("private")), "{recent:?}");
    }

    #[tokio::test]
    async fn ipv6_loopback_is_refused_by_the_public_policy() {
        let g = guard(NetPolicy::public()).await;
        for dest in [v6(Ipv6Addr::LOCALHOST), v6(Ipv4Addr::LOCALHOST.to_ipv6_mapped()), name("[::1]")] {
            let (_, code) = socks(g.addr(), CMD_CONNECT, &dest, 80).await;
            assert_eq!(code, REP_NOT_ALLOWED, "{dest:?}");
        }
        assert_eq!(g.refused(), 3);
        assert!(g.recent_refusals()[0].starts_with("[::1]:80"), "{:?}", g.recent_refusals());
    }

    #[tokio::test]
    async fn site_patterns_pick_the_port() {
        let (allowed, allowed_accepts) = echo_server().await;
        let (other, other_accepts) = echo_server().await;
        let pattern = OriginPattern::parse(&format!("127.0.0.1:{}", allowed.port())).unwrap_or_else(|e| panic!("{e}"));
        let g = guard(NetPolicy { allow: vec![pattern], block: Vec::new(), private: true }).await;

        let (mut s, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), allowed.port()).await;
        assert_eq!(code, REP_SUCCEEDED);
        assert_echoes(&mut s).await;

        let (_, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), other.port()).await;
        assert_eq!(code, REP_NOT_ALLOWED);
        // Not the allowed host by name either: the pattern names 127.0.0.1.
        let (_, code) = socks(g.addr(), CMD_CONNECT, &name("localhost"), allowed.port()).await;
        assert_eq!(code, REP_NOT_ALLOWED);

        assert_eq!(allowed_accepts.load(Ordering::SeqCst), 1);
        assert_eq!(other_accepts.load(Ordering::SeqCst), 0);
        assert_eq!((g.allowed(), g.refused()), (1, 2));
        assert!(g.recent_refusals()[0].contains("not among the profile's allowed sites"), "{:?}", g.recent_refusals());
    }

    #[tokio::test]
    async fn garbage_ends_that_connection_only() {
        let (echo, _) = echo_server().await;
        let g = guard(NetPolicy::open()).await;
        let mut http = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        http.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap_or_else(|e| panic!("{e}"));
        assert!(closed(&mut http).await, "an HTTP request is not answered");

        // A client that closes mid-request.
        let mut early = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        early.write_all(&[VERSION, 1, NO_AUTH, VERSION, CMD_CONNECT]).await.unwrap_or_else(|e| panic!("{e}"));
        drop(early);

        // Only username/password offered: no acceptable method.
        let mut auth = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        auth.write_all(&[VERSION, 1, 0x02]).await.unwrap_or_else(|e| panic!("{e}"));
        let mut choice = [0; 2];
        within("method", auth.read_exact(&mut choice)).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(choice, [VERSION, NO_ACCEPTABLE_METHOD]);
        assert!(closed(&mut auth).await);

        let (mut s, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), echo.port()).await;
        assert_eq!(code, REP_SUCCEEDED, "the guard still serves");
        assert_echoes(&mut s).await;
        assert_eq!((g.allowed(), g.refused()), (1, 0));
    }

    #[tokio::test]
    async fn silent_clients_are_dropped_and_do_not_block_others() {
        let (echo, _) = echo_server().await;
        let limits = Limits { handshake: Duration::from_millis(300), ..Limits::default() };
        let g = SocketGuard::start_with(Arc::new(NetPolicy::open()), limits).await.unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let mut silent = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        let mut halfway = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        halfway.write_all(&[VERSION]).await.unwrap_or_else(|e| panic!("{e}"));

        let (mut s, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), echo.port()).await;
        assert_eq!(code, REP_SUCCEEDED, "served while others stall");
        assert_echoes(&mut s).await;

        assert!(closed(&mut silent).await, "a silent client is dropped");
        assert!(closed(&mut halfway).await, "a stalled greeting is dropped");
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(250) && waited < WAIT, "{waited:?}");
        // The open tunnel is not bound by the handshake time.
        assert_echoes(&mut s).await;
        assert!(HANDSHAKE_TIMEOUT >= Duration::from_secs(10));
    }

    #[tokio::test]
    async fn unsupported_commands_and_address_types() {
        let (echo, accepted) = echo_server().await;
        let g = guard(NetPolicy::open()).await;
        for cmd in [0x02, 0x03] {
            let (mut s, code) = socks(g.addr(), cmd, &v4(Ipv4Addr::LOCALHOST), echo.port()).await;
            assert_eq!(code, REP_COMMAND_NOT_SUPPORTED, "command {cmd}");
            assert!(closed(&mut s).await);
        }

        let mut s = within("connect", TcpStream::connect(g.addr())).await.unwrap_or_else(|e| panic!("{e}"));
        // Nothing after the address type: the guard answers at once.
        s.write_all(&[VERSION, 1, NO_AUTH, VERSION, CMD_CONNECT, 0, 0x09]).await.unwrap_or_else(|e| panic!("{e}"));
        let mut answer = [0; 12];
        within("reply", s.read_exact(&mut answer)).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer[..4], [VERSION, NO_AUTH, VERSION, REP_ADDRESS_TYPE_NOT_SUPPORTED]);

        let (_, code) = socks(g.addr(), CMD_CONNECT, &[ATYP_NAME, 0], echo.port()).await;
        assert_eq!(code, REP_HOST_UNREACHABLE, "an empty name");
        let (_, code) = socks(g.addr(), CMD_CONNECT, &[ATYP_NAME, 2, 0xff, 0xfe], echo.port()).await;
        assert_eq!(code, REP_HOST_UNREACHABLE, "a name that is not UTF-8");
        assert_eq!(accepted.load(Ordering::SeqCst), 0);
        assert_eq!((g.allowed(), g.refused()), (0, 0));
    }

    #[tokio::test]
    async fn connect_failures_and_unknown_names() {
        let g = guard(NetPolicy::open()).await;
        // A port nobody listens on.
        let closed_port = {
            let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap_or_else(|e| panic!("{e}"));
            l.local_addr().unwrap_or_else(|e| panic!("{e}")).port()
        };
        let (_, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), closed_port).await;
        assert_eq!(code, REP_CONNECTION_REFUSED);
        let (_, code) = socks(g.addr(), CMD_CONNECT, &name("no-such-host.invalid"), 80).await;
        assert_eq!(code, REP_HOST_UNREACHABLE);
        // The guard is no target of itself.
        let (_, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), g.addr().port()).await;
        assert_eq!(code, REP_NOT_ALLOWED);
        assert_eq!((g.allowed(), g.refused()), (0, 1));
    }

    #[tokio::test]
    async fn recent_refusals_keep_the_last_twenty() {
        let g = guard(NetPolicy::public()).await;
        for port in 1..=25u16 {
            let (_, code) = socks(g.addr(), CMD_CONNECT, &v4(Ipv4Addr::LOCALHOST), port).await;
            assert_eq!(code, REP_NOT_ALLOWED);
        }
        let recent = g.recent_refusals();
        assert_eq!(g.refused(), 25);
        assert_eq!(recent.len(), RECENT_REFUSALS);
        assert!(recent[0].starts_with("127.0.0.1:6:"), "{recent:?}");
        assert!(recent[19].starts_with("127.0.0.1:25:"), "{recent:?}");
    }

    #[tokio::test]
    async fn chromium_args_name_the_guard_and_dropping_stops_it() {
        let g = guard(NetPolicy::public()).await;
        let addr = g.addr();
        assert!(addr.ip().is_loopback());
        assert_eq!(
            g.chromium_args(),
            vec![
                format!("--proxy-server=socks5://127.0.0.1:{}", addr.port()),
                "--proxy-bypass-list=<-loopback>".to_owned(),
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_owned(),
            ]
        );
        drop(g);
        // The aborted accept loop drops the listener.
        let refused = within("stop", async {
            loop {
                match TcpStream::connect(addr).await {
                    Err(_) => break true,
                    Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        })
        .await;
        assert!(refused);
    }
}
