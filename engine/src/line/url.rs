//! The compact URL of the header line (docs/observation.md): no scheme, no leading
//! `www.`, no trailing `/`, long query values elided (`?q=…`).
//!
//! Choices the protocol leaves open, made for a reader that only needs to
//! recognise the page: query values longer than 16 characters become `…`;
//! a query longer than 80 characters in all is cut to `?…`; a fragment is
//! kept when it is at most 24 characters (single-page apps route by it),
//! otherwise dropped; `file:` URLs show their path.

use url::Url;

const MAX_VALUE: usize = 16;
const MAX_QUERY: usize = 80;
const MAX_FRAGMENT: usize = 24;

/// Renders `url` compactly.
pub fn compact_url(url: &Url) -> String {
    match url.scheme() {
        "http" | "https" => {}
        "file" => return url.path().to_owned(),
        "data" => return "data:…".to_owned(),
        _ => {
            let s = url.as_str();
            return if s.chars().count() > 60 { crate::text::truncate_chars(s, 60) } else { s.to_owned() };
        }
    }
    let mut out = String::new();
    let host = url.host_str().unwrap_or("");
    out.push_str(host.strip_prefix("www.").unwrap_or(host));
    if let Some(port) = url.port() {
        out.push(':');
        out.push_str(&port.to_string());
    }
    let path = url.path();
    if path != "/" {
        out.push_str(path.strip_suffix('/').unwrap_or(path));
    }
    if let Some(query) = url.query().filter(|q| !q.is_empty()) {
        out.push('?');
        if query.len() > MAX_QUERY * 3 {
            out.push('…');
        } else {
            let mut parts = Vec::new();
            for pair in query.split('&') {
                let (k, v) = pair.split_once('=').map_or((pair, None), |(k, v)| (k, Some(v)));
                parts.push(match v {
                    Some(v) if v.chars().count() > MAX_VALUE => format!("{k}=…"),
                    Some(v) => format!("{k}={v}"),
                    None => k.to_owned(),
                });
            }
            let joined = parts.join("&");
            if joined.chars().count() > MAX_QUERY {
                out.push('…');
            } else {
                out.push_str(&joined);
            }
        }
    }
    if let Some(fragment) = url.fragment().filter(|f| !f.is_empty() && f.chars().count() <= MAX_FRAGMENT) {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        Url::parse(s).map(|u| compact_url(&u)).unwrap_or_default()
    }

    #[test]
    fn compacts() {
        assert_eq!(c("https://shop.example/checkout"), "shop.example/checkout");
        assert_eq!(c("https://www.example.com/"), "example.com");
        assert_eq!(c("http://example.com/a/b/"), "example.com/a/b");
        assert_eq!(c("https://example.com:8443/x"), "example.com:8443/x");
        assert_eq!(c("https://s.example/search?q=lantern+reviews+2024+best&page=2"), "s.example/search?q=…&page=2");
        assert_eq!(c("https://app.example/#/inbox"), "app.example#/inbox");
        assert_eq!(c("file:///tmp/page.html"), "/tmp/page.html");
        assert_eq!(c("data:text/html,hello"), "data:…");
    }
}
