//! Where whittle may fetch from: the profile's allowed and blocked sites
//! and the private-network guard (docs/privacy.md).
//!
//! Two checks, both needed:
//! - **sites**: a URL's scheme, host and port against origin patterns
//!   ([`NetPolicy::check_url`], and [`NetPolicy::check_host`] where only a
//!   host and port are known, as in the Chromium socket guard);
//! - **addresses**: loopback, private, link-local (cloud metadata), CGNAT,
//!   multicast and unspecified addresses are refused unless the profile
//!   (or `--allow-private`) allows them ([`NetPolicy::check_ip`]). The
//!   static fetcher asks on every resolved address at connect time
//!   ([`GuardedResolver`]) and Chromium's sockets go through
//!   `crate::guard`, so a name that resolves to a private address (DNS
//!   rebinding) is refused as surely as a literal one.
//!
//! Patterns: `example.com` (that host), `*.example.com` (its subdomains and
//! itself), `*` (any host), each optionally with a scheme (`https://…`)
//! and a port (`…:8080`). A host matches when no `block` pattern matches
//! it and, if `allow` is not empty, an `allow` pattern does.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, OnceLock};

use url::{Host, Url};

/// Why a URL or address was refused; its code is always
/// `origin_not_allowed` (docs/mcp.md#error-codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// A host name DNS says does not exist (or has no address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchHost(pub String);

impl fmt::Display for NoSuchHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no host is named {}", self.0)
    }
}

impl std::error::Error for NoSuchHost {}

/// One origin pattern of the profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPattern {
    scheme: Option<String>,
    /// Lower-case host; with `subdomains`, the suffix after `*.`. Empty
    /// for `*`.
    host: String,
    subdomains: bool,
    port: Option<u16>,
    text: String,
}

impl OriginPattern {
    /// Parses `[scheme://]host[:port]` where host may be `*` or start with
    /// `*.`; a trailing `/` is allowed, any other path is an error.
    pub fn parse(text: &str) -> Result<OriginPattern, String> {
        let original = text;
        let text = text.trim();
        let (scheme, rest) = match text.split_once("://") {
            Some((s, rest)) => {
                let s = s.to_ascii_lowercase();
                if !matches!(s.as_str(), "http" | "https" | "ws" | "wss") {
                    return Err(format!("{original:?}: the scheme must be http, https, ws or wss"));
                }
                (Some(s), rest)
            }
            None => (None, text),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains('/') || rest.contains('?') || rest.contains('#') || rest.contains('@') {
            return Err(format!("{original:?}: a site is a host with an optional scheme and port, not a path"));
        }
        // The port is after the last `:` outside IPv6 brackets.
        let (host, port) = match rest.rfind(':') {
            Some(i) if !rest[i..].contains(']') => {
                let port = rest[i + 1..].parse::<u16>().map_err(|_| format!("{original:?}: bad port"))?;
                (&rest[..i], Some(port))
            }
            _ => (rest, None),
        };
        let host = host.to_ascii_lowercase();
        let (host, subdomains) = if host == "*" {
            (String::new(), true)
        } else if let Some(suffix) = host.strip_prefix("*.") {
            (suffix.to_owned(), true)
        } else {
            (host, false)
        };
        // As URLs carry hosts: punycode, IPs normalised, no trailing dot.
        let host = if subdomains && host.is_empty() {
            host
        } else {
            if host.contains('*') {
                return Err(format!("{original:?}: not a host name"));
            }
            match Host::parse(&host) {
                Ok(Host::Domain(d)) => d.trim_end_matches('.').to_owned(),
                Ok(Host::Ipv4(ip)) => ip.to_string(),
                Ok(Host::Ipv6(ip)) => format!("[{ip}]"),
                Err(_) => return Err(format!("{original:?}: not a host name")),
            }
        };
        Ok(OriginPattern { scheme, host, subdomains, port, text: original.trim().to_owned() })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn matches(&self, scheme: Option<&str>, host: &str, port: u16) -> bool {
        if let (Some(want), Some(got)) = (&self.scheme, scheme)
            && !same_scheme(want, got)
        {
            return false;
        }
        if let Some(p) = self.port
            && p != port
        {
            return false;
        }
        if self.subdomains {
            self.host.is_empty()
                || host == self.host
                || host.len() > self.host.len()
                    && host.ends_with(self.host.as_str())
                    && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        }
    }
}

/// `ws` is `http` upgraded, `wss` is `https`: a site allowed for one is
/// allowed for the other.
fn same_scheme(pattern: &str, scheme: &str) -> bool {
    fn norm(s: &str) -> &str {
        match s {
            "ws" => "http",
            "wss" => "https",
            other => other,
        }
    }
    norm(pattern) == norm(scheme)
}

/// Where a session may fetch from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetPolicy {
    /// Allowed sites; empty: every site not blocked.
    pub allow: Vec<OriginPattern>,
    /// Blocked sites (win over `allow`).
    pub block: Vec<OriginPattern>,
    /// Whether loopback, private and link-local addresses may be fetched.
    pub private: bool,
}

impl NetPolicy {
    /// Every public site; no private addresses (the default).
    pub fn public() -> NetPolicy {
        NetPolicy::default()
    }

    /// Every site, private addresses included (tests, `--allow-private`).
    pub fn open() -> NetPolicy {
        NetPolicy { private: true, ..NetPolicy::default() }
    }

    /// Checks a URL before anything is sent to it: its scheme, its site,
    /// and, for a literal IP or a `localhost` name, its address.
    pub fn check_url(&self, url: &Url) -> Result<(), Refusal> {
        let scheme = url.scheme();
        if !matches!(scheme, "http" | "https" | "ws" | "wss") {
            return Err(Refusal(format!("{scheme}: URLs are not fetched")));
        }
        let Some(host) = url.host() else { return Err(Refusal("a URL without a host".into())) };
        let port = url.port_or_known_default().unwrap_or(0);
        let name = match &host {
            Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => format!("[{ip}]"),
        };
        self.check_site(Some(scheme), &name, port, || origin_of(url))?;
        match host {
            Host::Ipv4(ip) => self.check_ip(IpAddr::V4(ip)),
            Host::Ipv6(ip) => self.check_ip(IpAddr::V6(ip)),
            Host::Domain(d) => self.check_name(d),
        }
    }

    /// Checks a host and port where the scheme is not known (a socket).
    pub fn check_host(&self, host: &str, port: u16) -> Result<(), Refusal> {
        let lower = host.trim_end_matches('.').to_ascii_lowercase();
        let name = match lower.trim_start_matches('[').trim_end_matches(']').parse::<Ipv6Addr>() {
            Ok(ip) => format!("[{ip}]"),
            Err(_) => lower,
        };
        self.check_site(None, &name, port, || format!("{name}:{port}"))?;
        match host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            Ok(ip) => self.check_ip(ip),
            Err(_) => self.check_name(host),
        }
    }

    fn check_site(&self, scheme: Option<&str>, host: &str, port: u16, origin: impl Fn() -> String) -> Result<(), Refusal> {
        if let Some(p) = self.block.iter().find(|p| p.matches(scheme, host, port)) {
            return Err(Refusal(format!("{} is blocked by the profile ({})", origin(), p.as_str())));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|p| p.matches(scheme, host, port)) {
            return Err(Refusal(format!("{} is not among the profile's allowed sites", origin())));
        }
        Ok(())
    }

    /// Names that always mean this machine, before any lookup.
    fn check_name(&self, name: &str) -> Result<(), Refusal> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if !self.private && (name == "localhost" || name.ends_with(".localhost")) {
            return Err(private_refusal(&name, "this machine"));
        }
        Ok(())
    }

    /// Checks an address about to be connected to.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refusal> {
        match (self.private, private_kind(ip)) {
            (false, Some(kind)) => Err(private_refusal(&ip.to_string(), kind)),
            _ => Ok(()),
        }
    }

}

fn private_refusal(what: &str, kind: &str) -> Refusal {
    Refusal(format!(
        "{what} is {kind}; whittle fetches private addresses only with --allow-private or `private = true` in the profile"
    ))
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// What kind of non-public address `ip` is, if it is one.
pub fn private_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return private_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return private_v4(Ipv4Addr::new(a, b, c, d));
            }
            if v6.is_loopback() {
                Some("a loopback address")
            } else if v6.is_unspecified() {
                Some("the unspecified address")
            } else if s[0] & 0xfe00 == 0xfc00 {
                Some("a private address")
            } else if s[0] & 0xffc0 == 0xfe80 {
                Some("a link-local address")
            } else if v6.is_multicast() {
                Some("a multicast address")
            } else if s[0..6] == [0, 0, 0, 0, 0, 0] {
                // IPv4-compatible (deprecated) ::a.b.c.d.
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                private_v4(Ipv4Addr::new(a, b, c, d)).or(Some("a reserved address"))
            } else {
                None
            }
        }
    }
}

fn private_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip == Ipv4Addr::new(169, 254, 169, 254) || ip == Ipv4Addr::new(100, 100, 100, 200) {
        Some("a cloud metadata address")
    } else if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private address")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if a == 0 {
        Some("the unspecified address")
    } else if a == 100 && (64..128).contains(&b) {
        Some("a shared (carrier-grade NAT) address")
    } else if a == 192 && b == 0 && c == 0 || a == 198 && (b == 18 || b == 19) || ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("a reserved address")
    } else {
        None
    }
}

/// Names to addresses, for the static fetcher and the socket guard: DNS
/// from the system's resolver configuration (`/etc/resolv.conf`, the hosts
/// file), with short timeouts — a second a try, three tries, so a lost
/// packet costs a second rather than the system resolver's five — and a
/// cache (names that do not exist for 30 s at least); the system resolver
/// itself when that configuration cannot be
/// read. `localhost` and its subdomains are loopback without a query
/// (RFC 6761 §6.3), as in browsers. Made on first use, in the runtime that
/// uses it.
#[derive(Default)]
pub struct Lookup {
    resolver: OnceLock<Option<hickory_resolver::TokioResolver>>,
}

impl fmt::Debug for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lookup").field("dns", &self.resolver.get().map(Option::is_some)).finish()
    }
}

impl Lookup {
    /// The addresses of `host` (a name or an IP literal), with `port`.
    pub async fn addresses(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let name = bare.trim_end_matches('.').to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") {
            return Ok(vec![SocketAddr::from((Ipv4Addr::LOCALHOST, port)), SocketAddr::from((Ipv6Addr::LOCALHOST, port))]);
        }
        let resolver = self.resolver.get_or_init(|| {
            let mut builder = hickory_resolver::TokioResolver::builder_tokio().ok()?;
            let options = builder.options_mut();
            options.timeout = std::time::Duration::from_secs(1);
            options.attempts = 3;
            options.ip_strategy = hickory_resolver::config::LookupIpStrategy::Ipv4AndIpv6;
            // A name that does not exist is asked again after 30 s at the
            // soonest (pages of many sites share their trackers' hosts).
            options.negative_min_ttl = Some(std::time::Duration::from_secs(30));
            builder.build().ok()
        });
        match resolver {
            Some(r) => match r.lookup_ip(name.as_str()).await {
                Ok(found) => Ok(found.iter().map(|ip| SocketAddr::new(ip, port)).collect()),
                // No such name: `NotFound`, which `resolve_allowed` says
                // plainly; anything else (no answer) as it came.
                Err(e) if e.is_nx_domain() || e.is_no_records_found() => {
                    Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{name}: no such name")))
                }
                Err(e) => Err(std::io::Error::other(format!("{name}: {e}"))),
            },
            None => Ok(tokio::net::lookup_host((name.as_str(), port)).await?.collect()),
        }
    }
}

/// The static fetcher's resolver: names are looked up, and the lookup
/// fails unless an allowed address remains, so the client connects only to
/// addresses that passed [`NetPolicy::check_ip`].
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    policy: Arc<NetPolicy>,
    lookup: Arc<Lookup>,
}

impl GuardedResolver {
    /// A resolver enforcing `policy`.
    pub fn new(policy: Arc<NetPolicy>) -> GuardedResolver {
        GuardedResolver { policy, lookup: Arc::default() }
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (policy, lookup) = (self.policy.clone(), self.lookup.clone());
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found = resolve_allowed(&policy, &lookup, &host, 0).await?;
            Ok(Box::new(found.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Looks `host` up and keeps the addresses `policy` allows; an error
/// (a [`Refusal`] when every address was refused) when none remain.
pub async fn resolve_allowed(
    policy: &NetPolicy,
    lookup: &Lookup,
    host: &str,
    port: u16,
) -> Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
    policy.check_name(host)?;
    let all: Vec<SocketAddr> = lookup.addresses(host, port).await.map_err(|e| -> Box<dyn std::error::Error + Send + Sync> {
        match e.kind() {
            std::io::ErrorKind::NotFound => Box::new(NoSuchHost(host.to_owned())),
            _ => Box::new(e),
        }
    })?;
    let mut refused = None;
    let allowed: Vec<SocketAddr> = all
        .into_iter()
        .filter(|a| match policy.check_ip(a.ip()) {
            Ok(()) => true,
            Err(r) => {
                refused.get_or_insert(r);
                false
            }
        })
        .collect();
    match (allowed.is_empty(), refused) {
        (true, Some(r)) => Err(Box::new(Refusal(format!("{host} resolves only to refused addresses: {r}")))),
        (true, None) => Err(Box::new(NoSuchHost(host.to_owned()))),
        (false, _) => Ok(allowed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], block: &[&str], private: bool) -> NetPolicy {
        let parse = |v: &[&str]| v.iter().map(|p| OriginPattern::parse(p).unwrap_or_else(|e| panic!("{e}"))).collect();
        NetPolicy { allow: parse(allow), block: parse(block), private }
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn patterns_match_hosts_subdomains_schemes_and_ports() {
        let p = policy(&["*.example.com", "https://docs.rs", "127.0.0.1:8080"], &["ads.example.com"], true);
        assert!(p.check_url(&url("https://example.com/a")).is_ok());
        assert!(p.check_url(&url("http://www.example.com/a")).is_ok());
        assert!(p.check_url(&url("wss://live.example.com/socket")).is_ok());
        assert!(p.check_url(&url("https://ads.example.com/")).is_err(), "block wins");
        assert!(p.check_url(&url("https://notexample.com/")).is_err(), "a suffix must start at a dot");
        assert!(p.check_url(&url("https://docs.rs/serde")).is_ok());
        assert!(p.check_url(&url("http://docs.rs/serde")).is_err(), "scheme given: only https");
        assert!(p.check_url(&url("http://127.0.0.1:8080/")).is_ok());
        assert!(p.check_url(&url("http://127.0.0.1:8081/")).is_err(), "port given: only that port");
        assert!(p.check_host("www.example.com", 443).is_ok());
        assert!(p.check_host("ads.example.com", 443).is_err());
        assert!(p.check_host("evil.test", 443).is_err());
        let e = p.check_url(&url("https://evil.test/path?secret=1")).expect_err("not allowed").0;
        assert_eq!(e, "https://evil.test is not among the profile's allowed sites");
    }

    #[test]
    fn hosts_compare_as_urls_write_them() {
        let p = policy(&[], &["example.com", "bücher.de", "[0:0::5]"], true);
        for bad in ["https://example.com./", "https://EXAMPLE.com/", "https://xn--bcher-kva.de/", "https://bücher.de/", "http://[::5]/"] {
            assert!(p.check_url(&url(bad)).is_err(), "{bad} is blocked");
        }
        assert!(p.check_host("example.com.", 443).is_err());
        assert!(p.check_host("xn--bcher-kva.de", 443).is_err());
        assert!(p.check_host("::5", 80).is_err());
    }

    #[test]
    fn bad_patterns_are_errors() {
        for bad in ["", "ftp://x.com", "x.com/path", "x.com:99999", "a*b.com", "user@x.com", "https://"] {
            assert!(OriginPattern::parse(bad).is_err(), "{bad:?} should not parse");
        }
        for good in ["*", "*.co.uk", "http://[::1]:3000", "x.com/", "localhost:8080"] {
            assert!(OriginPattern::parse(good).is_ok(), "{good:?} should parse");
        }
    }

    #[test]
    fn private_addresses_are_refused_unless_allowed() {
        let p = NetPolicy::public();
        for bad in [
            "http://127.0.0.1/", "http://127.1.2.3:8080/", "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data/", "http://100.64.0.1/", "http://0.0.0.0/", "http://[::1]/",
            "http://[fd00::1]/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/",
            "http://localhost:3000/", "http://app.localhost/", "http://2130706433/", "http://0x7f.1/",
        ] {
            assert!(p.check_url(&url(bad)).is_err(), "{bad} should be refused");
            assert!(NetPolicy::open().check_url(&url(bad)).is_ok(), "{bad} is allowed with private");
        }
        for good in ["https://93.184.215.14/", "https://[2606:4700::1111]/", "https://example.com/"] {
            assert!(p.check_url(&url(good)).is_ok(), "{good} is public");
        }
        assert!(p.check_url(&url("file:///etc/passwd")).is_err());
        assert!(p.check_host("127.0.0.1", 80).is_err());
        assert!(p.check_host("::1", 80).is_err());
        assert!(p.check_host("localhost", 80).is_err());
    }

    #[tokio::test]
    async fn names_resolving_to_private_addresses_are_refused() {
        let lookup = Lookup::default();
        let refused = resolve_allowed(&NetPolicy::public(), &lookup, "localhost", 80).await.expect_err("localhost is private");
        assert!(refused.to_string().contains("this machine"), "{refused}");
        // Subdomains of localhost are loopback too, without a query.
        let refused = resolve_allowed(&NetPolicy::public(), &lookup, "app.localhost", 80).await.expect_err("loopback");
        assert!(refused.downcast_ref::<Refusal>().is_some(), "{refused}");
        let ok = resolve_allowed(&NetPolicy::open(), &lookup, "App.Localhost.", 80).await.expect("allowed");
        assert!(ok.contains(&SocketAddr::from(([127, 0, 0, 1], 80))), "{ok:?}");
        // An IP literal goes through the lookup too (reqwest never asks for
        // one, the Chromium guard may).
        let refused = resolve_allowed(&NetPolicy::public(), &lookup, "127.0.0.1", 80).await.expect_err("loopback");
        assert!(refused.downcast_ref::<Refusal>().is_some(), "{refused}");
        let ok = resolve_allowed(&NetPolicy::open(), &lookup, "127.0.0.1", 80).await.expect("allowed");
        assert_eq!(ok, vec![SocketAddr::from(([127, 0, 0, 1], 80))]);
        let ok = resolve_allowed(&NetPolicy::open(), &lookup, "[::1]", 80).await.expect("allowed");
        assert_eq!(ok, vec![SocketAddr::from((Ipv6Addr::LOCALHOST, 80))]);
    }
}
