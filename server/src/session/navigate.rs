//! `navigate`: the active tab sent to a URL, back, forward or reloaded,
//! and how a person's words become a URL (an address with or without its
//! scheme, or words for the search URL). Invariant: a URL the model gives
//! is opened only if it is http or https.

use url::Url;
use whittle_engine::FoldOptions;

use super::{Fail, Session, ToolOutput, arrival_line, invalid_args, with_notices};
use crate::backend::{BrowseError, Navigation};
use crate::tools::NavigateArgs;

impl Session {
    pub(super) async fn navigate(&mut self, args: NavigateArgs) -> Result<ToolOutput, Fail> {
        let nav = self.navigation(&args.url)?;
        let confirm = args.confirm.unwrap_or(false);
        let arrival = self.tab().page.navigate(nav, confirm).await;
        // A `beforeunload` prompt of the page left (Chromium): its `!` line.
        let events = self.tab().page.take_events();
        let arrival = arrival.map_err(|e| match events.is_empty() {
            true => e,
            false => BrowseError::new(e.code, format!("{} ({})", e.message, events.join("; "))),
        })?;
        let (obs, envelope) = self.view("navigate", &FoldOptions::default()).await?;
        let mut text = String::new();
        for line in events {
            text.push_str(&line);
            text.push('\n');
        }
        if let Some(from) = &arrival.from {
            text.push_str(&arrival_line(from, &arrival, &obs));
        }
        text.push_str(&with_notices(&obs.text(), &envelope));
        Ok(ToolOutput { text, envelope, image: None })
    }

    /// Reads `navigate`'s `url`: back/forward/reload, a URL (a scheme-less
    /// host gets `https://`, loopback and IP hosts `http://`), or search
    /// words for the search URL.
    pub(super) fn navigation(&self, input: &str) -> Result<Navigation, Fail> {
        let s = input.trim();
        match s {
            "" => return Err(invalid_args("url is empty")),
            "back" => return Ok(Navigation::Back),
            "forward" => return Ok(Navigation::Forward),
            "reload" => return Ok(Navigation::Reload),
            _ => {}
        }
        Ok(Navigation::To(resolve_input(s, &self.options.search_url)?))
    }
}

/// The URL `navigate` goes to for `input` (not back/forward/reload).
pub fn resolve_input(input: &str, search_url: &str) -> Result<Url, BrowseError> {
    let s = input.trim();
    if let Some((scheme, _)) = s.split_once(':')
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && !looks_like_host_port(s)
    {
        let lower = scheme.to_ascii_lowercase();
        if lower != "http" && lower != "https" {
            return Err(BrowseError::new("invalid_url", format!("whittle opens http and https URLs, not {lower}:")));
        }
        return Url::parse(s).map_err(|e| BrowseError::new("invalid_url", format!("{s:?} is not a URL: {e}")));
    }
    if !s.contains(char::is_whitespace) && looks_like_host(s) {
        let host_end = s.find(['/', '?', '#']).unwrap_or(s.len());
        let host = &s[..host_end];
        let bare = host.rsplit_once(':').map_or(host, |(h, _)| h);
        let local = bare == "localhost" || bare.parse::<std::net::Ipv4Addr>().is_ok() || bare.starts_with('[');
        let scheme = if local { "http" } else { "https" };
        return Url::parse(&format!("{scheme}://{s}")).map_err(|e| BrowseError::new("invalid_url", format!("{s:?} is not a URL: {e}")));
    }
    let q: String = url::form_urlencoded::byte_serialize(s.as_bytes()).collect();
    let target = search_url.replace("{q}", &q);
    Url::parse(&target).map_err(|e| BrowseError::new("invalid_url", format!("the search URL {search_url:?} is not a URL: {e}")))
}

/// `host:port…` (so `localhost:8080/x` is not read as scheme `localhost`).
fn looks_like_host_port(s: &str) -> bool {
    let Some((_, rest)) = s.split_once(':') else { return false };
    rest.starts_with(|c: char| c.is_ascii_digit())
}

/// Something a person would type as an address: `localhost`, an IP, or a
/// dotted name whose last label is letters.
fn looks_like_host(s: &str) -> bool {
    let host_end = s.find(['/', '?', '#']).unwrap_or(s.len());
    let host = &s[..host_end];
    let bare = host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h);
    if bare == "localhost" || bare.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let labels: Vec<&str> = bare.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(char::is_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEARCH: &str = "https://search.test/?q={q}";

    #[test]
    fn navigate_inputs() {
        let go = |s: &str| resolve_input(s, SEARCH).map(|u| u.to_string());
        assert_eq!(go("https://shop.example/checkout").expect("present"), "https://shop.example/checkout");
        assert_eq!(go("shop.example/checkout").expect("present"), "https://shop.example/checkout");
        assert_eq!(go("localhost:8080/x").expect("present"), "http://localhost:8080/x");
        assert_eq!(go("127.0.0.1:9/a?b=c").expect("present"), "http://127.0.0.1:9/a?b=c");
        assert_eq!(go("lantern reviews").expect("present"), "https://search.test/?q=lantern+reviews");
        assert_eq!(go("node.js").expect("present"), "https://node.js/");
        assert_eq!(go("what is 2+2?").expect("present"), "https://search.test/?q=what+is+2%2B2%3F");
        assert_eq!(resolve_input("javascript:alert(1)", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("ftp://x.test/", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("file:///etc/passwd", SEARCH).expect_err("an error").code, "invalid_url");
        assert_eq!(resolve_input("http://[::1", SEARCH).expect_err("an error").code, "invalid_url");
    }
}
