//! One session's cookies as both engines keep them: the static path in
//! its fetcher's jar, Chromium in the session's browser context. A
//! [`Cookie`] is either engine's, in neutral terms; [`CookieSync`]
//! carries what one engine changed to the other when a tab moves between
//! them, so a login made on one path holds on the other.
//!
//! Each session keeps the cookies both engines last held alike. A move
//! takes the engine being left, finds what changed there since (set,
//! changed, or gone), applies only that to the other engine, and records
//! what both now hold alike. A change the other engine made meanwhile
//! (another tab of the session) is not overwritten: it goes the other way
//! at the next move. A cookie one engine refuses (Chromium keeps no more
//! than 4 KB in one, nor 180 per domain) is never held alike, so it is
//! never taken for one the other engine deleted: it stays where it is.

use std::collections::HashMap;
use std::sync::Mutex;

/// `SameSite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameSite {
    /// Sent only to its own site.
    Strict,
    /// Sent to its own site and top-level navigations to it.
    Lax,
    /// Sent everywhere (browsers keep it only when `Secure`).
    None,
}

/// A cookie, as either engine holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The host, or the domain it is sent to with its subdomains, in
    /// lower case without a leading dot.
    pub domain: String,
    /// Whether it goes to `domain` only (set without a `Domain` attribute).
    pub host_only: bool,
    /// Its path.
    pub path: String,
    /// `Secure`.
    pub secure: bool,
    /// `HttpOnly`.
    pub http_only: bool,
    /// `SameSite`, when it was given.
    pub same_site: Option<SameSite>,
    /// When it expires, in whole seconds since the Unix epoch; `None`
    /// for a session cookie.
    pub expires: Option<i64>,
}

/// What names one cookie in a store: two cookies with the same key are the
/// same cookie (RFC 6265 §5.3 step 11).
type Key = (String, String, bool, String);

impl Cookie {
    fn key(&self) -> Key {
        (self.name.clone(), self.domain.clone(), self.host_only, self.path.clone())
    }

    /// The URL a cookie store is told the cookie came from: its domain and
    /// path, over https when it is `Secure`.
    pub fn origin_url(&self) -> Option<url::Url> {
        let scheme = if self.secure { "https" } else { "http" };
        let host = if self.domain.contains(':') && !self.domain.starts_with('[') {
            format!("[{}]", self.domain)
        } else {
            self.domain.clone()
        };
        url::Url::parse(&format!("{scheme}://{host}{}", if self.path.starts_with('/') { &self.path } else { "/" })).ok()
    }

    /// The same cookie, gone: expired a year ago (how a store is told to
    /// drop it).
    pub fn expired(&self) -> Cookie {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        Cookie { value: String::new(), expires: Some(now - 365 * 24 * 3600), ..self.clone() }
    }
}

/// The cookies a session's two engines last agreed on.
#[derive(Debug, Default)]
pub struct CookieSync {
    agreed: Mutex<HashMap<Key, Cookie>>,
}

/// What changed on one side since the last agreement.
#[derive(Debug, Default, PartialEq)]
pub struct Changes {
    /// Cookies new or changed there.
    pub set: Vec<Cookie>,
    /// Cookies gone from there (to be removed on the other side).
    pub gone: Vec<Cookie>,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.gone.is_empty()
    }
}

impl CookieSync {
    /// What `side` changed since the last agreement.
    pub fn changes(&self, side: &[Cookie]) -> Changes {
        let agreed = self.agreed.lock().unwrap_or_else(|e| e.into_inner());
        let mut seen: std::collections::HashSet<Key> = std::collections::HashSet::with_capacity(side.len());
        let mut changes = Changes::default();
        for c in side {
            let key = c.key();
            if agreed.get(&key) != Some(c) {
                changes.set.push(c.clone());
            }
            seen.insert(key);
        }
        changes.gone = agreed.iter().filter(|(k, _)| !seen.contains(*k)).map(|(_, c)| c.clone()).collect();
        changes
    }

    /// Records what both engines now hold alike (after one's changes were
    /// applied to the other): the cookies `one` and `other` both have, with
    /// the same value and attributes.
    pub fn agree(&self, one: &[Cookie], other: &[Cookie]) {
        let theirs: HashMap<Key, &Cookie> = other.iter().map(|c| (c.key(), c)).collect();
        let mut agreed = self.agreed.lock().unwrap_or_else(|e| e.into_inner());
        agreed.clear();
        agreed.extend(one.iter().filter(|c| theirs.get(&c.key()) == Some(c)).map(|c| (c.key(), c.clone())));
    }
}

// ---- the static path's jar ----------------------------------------------

/// A cookie of the jar in neutral terms (`None` for one without a usable
/// domain).
pub(crate) fn from_jar(c: &cookie_store::Cookie<'static>) -> Option<Cookie> {
    use cookie_store::{CookieDomain, CookieExpiration};
    let (domain, host_only) = match &c.domain {
        CookieDomain::HostOnly(d) => (d.clone(), true),
        CookieDomain::Suffix(d) => (d.clone(), false),
        CookieDomain::NotPresent | CookieDomain::Empty => return None,
    };
    let expires = match &c.expires {
        CookieExpiration::AtUtc(at) => Some(at.unix_timestamp()),
        CookieExpiration::SessionEnd => None,
    };
    let same_site = c.same_site().map(|s| match s {
        cookie::SameSite::Strict => SameSite::Strict,
        cookie::SameSite::Lax => SameSite::Lax,
        cookie::SameSite::None => SameSite::None,
    });
    Some(Cookie {
        name: c.name().to_owned(),
        value: c.value().to_owned(),
        domain: domain.trim_start_matches('.').to_ascii_lowercase(),
        host_only,
        path: String::from(&c.path),
        secure: c.secure().unwrap_or(false),
        http_only: c.http_only().unwrap_or(false),
        same_site,
        expires,
    })
}

/// A neutral cookie as the `Set-Cookie` the jar stores it from.
pub(crate) fn to_jar(c: &Cookie) -> cookie_store::RawCookie<'static> {
    let mut raw = cookie_store::RawCookie::new(c.name.clone(), c.value.clone());
    if !c.host_only {
        raw.set_domain(c.domain.clone());
    }
    raw.set_path(c.path.clone());
    raw.set_secure(c.secure);
    raw.set_http_only(c.http_only);
    if let Some(s) = c.same_site {
        raw.set_same_site(match s {
            SameSite::Strict => cookie::SameSite::Strict,
            SameSite::Lax => cookie::SameSite::Lax,
            SameSite::None => cookie::SameSite::None,
        });
    }
    if let Some(at) = c.expires.and_then(|t| cookie::time::OffsetDateTime::from_unix_timestamp(t).ok()) {
        raw.set_expires(at);
    }
    raw
}

// ---- Chromium -------------------------------------------------------------

/// The most bytes of name and value together Chromium keeps in a cookie.
const CHROMIUM_MAX_COOKIE: usize = 4096;

/// A cookie of a Chromium browser context in neutral terms.
pub(crate) fn from_chromium(c: &chromiumoxide::cdp::browser_protocol::network::Cookie) -> Cookie {
    use chromiumoxide::cdp::browser_protocol::network::CookieSameSite;
    // Chromium writes a domain cookie's domain with a leading dot.
    let host_only = !c.domain.starts_with('.');
    Cookie {
        name: c.name.clone(),
        value: c.value.clone(),
        domain: c.domain.trim_start_matches('.').to_ascii_lowercase(),
        host_only,
        path: c.path.clone(),
        secure: c.secure,
        http_only: c.http_only,
        same_site: c.same_site.as_ref().map(|s| match s {
            CookieSameSite::Strict => SameSite::Strict,
            CookieSameSite::Lax => SameSite::Lax,
            CookieSameSite::None => SameSite::None,
        }),
        expires: (!c.session && c.expires.is_finite()).then_some(c.expires as i64),
    }
}

/// A neutral cookie as Chromium is told to set it; `None` for one it
/// would refuse (name and value over 4 KB). `SameSite=None` without
/// `Secure`, which Chromium refuses, is set without `SameSite` (so `Lax`,
/// its default) rather than lost.
pub(crate) fn to_chromium(c: &Cookie) -> Option<chromiumoxide::cdp::browser_protocol::network::CookieParam> {
    use chromiumoxide::cdp::browser_protocol::network::{CookieParam, CookieSameSite, TimeSinceEpoch};
    if c.name.len() + c.value.len() > CHROMIUM_MAX_COOKIE {
        return None;
    }
    let mut p = CookieParam::new(c.name.clone(), c.value.clone());
    if c.host_only {
        p.url = Some(String::from(c.origin_url()?));
    } else {
        p.domain = Some(format!(".{}", c.domain));
    }
    p.path = Some(c.path.clone());
    p.secure = Some(c.secure);
    p.http_only = Some(c.http_only);
    p.same_site = match c.same_site {
        Some(SameSite::Strict) => Some(CookieSameSite::Strict),
        Some(SameSite::Lax) => Some(CookieSameSite::Lax),
        Some(SameSite::None) if c.secure => Some(CookieSameSite::None),
        Some(SameSite::None) | None => None,
    };
    p.expires = c.expires.map(|t| TimeSinceEpoch::new(t as f64));
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(name: &str, value: &str) -> Cookie {
        Cookie {
            name: name.into(),
            value: value.into(),
            domain: "shop.example".into(),
            host_only: true,
            path: "/".into(),
            secure: false,
            http_only: false,
            same_site: None,
            expires: None,
        }
    }

    #[test]
    fn only_what_changed_since_the_agreement_moves() {
        let sync = CookieSync::default();
        let start = vec![cookie("sid", "1"), cookie("theme", "dark")];
        // Nothing agreed yet: everything is new.
        assert_eq!(sync.changes(&start).set.len(), 2);
        sync.agree(&start, &start);
        assert!(sync.changes(&start).is_empty());
        // One side changed sid, dropped theme and added cart.
        let later = vec![cookie("sid", "2"), cookie("cart", "3")];
        let c = sync.changes(&later);
        assert_eq!(c.set, vec![cookie("sid", "2"), cookie("cart", "3")]);
        assert_eq!(c.gone, vec![cookie("theme", "dark")]);
        // A cookie the same in name but on another path is another cookie.
        let other_path = Cookie { path: "/admin".into(), ..cookie("sid", "1") };
        let c = sync.changes(&[cookie("sid", "1"), cookie("theme", "dark"), other_path.clone()]);
        assert_eq!(c.set, vec![other_path]);
        assert!(c.gone.is_empty());
    }

    #[test]
    fn a_cookie_one_side_refused_is_not_taken_for_deleted() {
        let sync = CookieSync::default();
        let huge = cookie("big", &"x".repeat(5000));
        let jar = vec![cookie("sid", "1"), huge.clone()];
        // Chromium took sid, refused big, and had a cookie of its own.
        let chromium = vec![cookie("sid", "1"), cookie("theirs", "9")];
        sync.agree(&jar, &chromium);
        // Back from Chromium: its own cookie is new to the static path,
        // and big is not gone (it was never held alike).
        let c = sync.changes(&chromium);
        assert_eq!(c.set, vec![cookie("theirs", "9")]);
        assert!(c.gone.is_empty());
        // To Chromium again: big is offered again; theirs is not deleted.
        let c = sync.changes(&jar);
        assert_eq!(c.set, vec![huge]);
        assert!(c.gone.is_empty());
    }

    #[test]
    fn origin_urls_follow_secure_and_path() {
        let c = Cookie { secure: true, path: "/account".into(), ..cookie("sid", "1") };
        assert_eq!(c.origin_url().map(String::from).as_deref(), Some("https://shop.example/account"));
        let v6 = Cookie { domain: "::1".into(), path: String::new(), ..cookie("sid", "1") };
        assert_eq!(v6.origin_url().map(String::from).as_deref(), Some("http://[::1]/"));
        assert!(cookie("a", "b").expired().expires.is_some_and(|t| t < 1_000_000_000_000));
    }
}
