//! Bot and human checks (Cloudflare, reCAPTCHA, hCaptcha, PerimeterX,
//! Arkose, DataDome, …): by the words of a page's title and text, and by
//! the markers in its markup (script hosts, widget classes and ids).

use crate::dom::Element;

/// Phrases of bot and human checks, lower-case, whitespace collapsed.
const CHALLENGE_PHRASES: &[&str] = &[
    "checking your browser before accessing",
    "checking if the site connection is secure",
    "needs to review the security of your connection before proceeding",
    "verify you are human",
    "verifying you are human",
    "verify that you are human",
    "verify you are a human",
    "verify you're human",
    "verify you are not a robot",
    "complete the security check",
    "ddos protection by",
    "enable javascript and cookies to continue",
    "pardon our interruption",
    "unusual traffic from your computer network",
    "make sure you're not a robot",
];

/// Lower-cases, turns `’` into `'` and collapses whitespace.
fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            '’' => out.push('\''),
            c if c.is_ascii() => out.push(c.to_ascii_lowercase()),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Whether `word` occurs in `s` as a whole word.
fn has_word(s: &str, word: &str) -> bool {
    s.match_indices(word).any(|(at, _)| {
        let before = s[..at].chars().next_back();
        let after = s[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Whether a page's title and the start of its visible text (the first
/// 2 KB are read) are those of a bot or human check: Cloudflare's
/// `Just a moment...`, `Checking your browser before accessing`,
/// `Attention Required! | Cloudflare`, `Verify you are human`,
/// PerimeterX's `Press & Hold` to prove you are human, `Access denied`
/// pages that mention bots, Distil's `Pardon Our Interruption`, Google's
/// `unusual traffic from your computer network`, …
///
/// Case-insensitive. Words a page may use for other reasons (`robot`,
/// `human`, `press and hold`, `access denied`, `just a moment`) count only
/// with the rest of their check (`just a moment` only as the whole title).
pub fn challenge_words(title: &str, text: &str) -> bool {
    let mut cut = text.len().min(2048);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let title = normalize(title);
    let body = normalize(&text[..cut]);
    let bare_title = title.trim_end_matches(['.', '…', '!', '?', ' ']);
    if matches!(bare_title, "just a moment" | "are you a robot") {
        return true;
    }
    if matches!(bare_title, "one moment, please" | "security check") && body.len() < 1500 {
        return true;
    }
    if title.contains("attention required") && title.contains("cloudflare") {
        return true;
    }
    let either = |p: &str| title.contains(p) || body.contains(p);
    if CHALLENGE_PHRASES.iter().any(|p| either(p)) {
        return true;
    }
    let head = match body.char_indices().nth(300) {
        Some((at, _)) => &body[..at],
        None => &body,
    };
    if has_word(head, "are you a robot") {
        return true;
    }
    let bot_word = |s: &str| has_word(s, "bot") || has_word(s, "bots") || has_word(s, "robot") || s.contains("automated");
    if either("access denied") && (bot_word(&title) || bot_word(&body)) {
        return true;
    }
    let human = |s: &str| has_word(s, "human") || s.contains("not a bot");
    if (either("press & hold") || either("press and hold")) && (human(&title) || human(&body)) {
        return true;
    }
    false
}

/// Class words of challenge widgets (a class containing one is one).
const CHALLENGE_CLASSES: &[&str] = &["g-recaptcha", "h-captcha", "cf-turnstile", "cf-challenge", "px-captcha", "arkose", "funcaptcha"];

/// The bytes a word of [`CHALLENGE_CLASSES`] starts with, in either case.
const CHALLENGE_CLASS_STARTS: [bool; 256] = {
    let mut starts = [false; 256];
    let mut i = 0;
    while i < CHALLENGE_CLASSES.len() {
        let b = CHALLENGE_CLASSES[i].as_bytes()[0];
        starts[b as usize] = true;
        starts[b.to_ascii_uppercase() as usize] = true;
        i += 1;
    }
    starts
};

/// Whether a `class` value contains a word of [`CHALLENGE_CLASSES`], ASCII
/// case-insensitively. One pass over the value: the words are compared
/// only where a byte could start one (this runs on the `class` of every
/// element of a page).
fn challenge_class(value: &str) -> bool {
    let v = value.as_bytes();
    (0..v.len()).any(|i| {
        CHALLENGE_CLASS_STARTS[usize::from(v[i])]
            && CHALLENGE_CLASSES.iter().any(|n| v[i..].get(..n.len()).is_some_and(|w| w.eq_ignore_ascii_case(n.as_bytes())))
    })
}

/// Hosts whose iframes and scripts are challenge widgets (a host matches
/// itself and its subdomains).
const CHALLENGE_HOSTS: &[&str] = &["challenges.cloudflare.com", "hcaptcha.com", "arkoselabs.com", "funcaptcha.com", "captcha-delivery.com"];

/// Whether element attribute `attr_name="attr_value"` on a `tag` element
/// (lower-case name) marks a bot-challenge widget:
///
/// - `class` containing `g-recaptcha`, `h-captcha`, `cf-turnstile`,
///   `cf-challenge`, `px-captcha`, `arkose` or `funcaptcha`;
/// - `id` `challenge-form`, `challenge-running`, `cf-challenge-running`,
///   `px-captcha`;
/// - `src` of an `iframe` or `script` on `challenges.cloudflare.com`,
///   `www.google.com/recaptcha/…`, `www.recaptcha.net`, `hcaptcha.com`
///   (and `js.hcaptcha.com`, …), `*.arkoselabs.com`, `*.funcaptcha.com`,
///   DataDome's `*.captcha-delivery.com`; not reCAPTCHA v3
///   (`api.js?render=<site key>`), which scores visitors unseen on ordinary
///   pages and never challenges them.
///
/// A widget alone does not make a challenge page (comment and sign-up
/// forms carry reCAPTCHA): the caller weighs it with [`challenge_words`]
/// and how much else the page has.
///
/// Other attributes never match.
pub fn challenge_marker(tag: &str, attr_name: &str, attr_value: &str) -> bool {
    if attr_name.eq_ignore_ascii_case("class") {
        return challenge_class(attr_value);
    }
    if attr_name.eq_ignore_ascii_case("id") {
        const IDS: &[&str] = &["challenge-form", "challenge-running", "cf-challenge-running", "px-captcha"];
        let id = attr_value.trim();
        return IDS.iter().any(|c| id.eq_ignore_ascii_case(c));
    }
    if attr_name.eq_ignore_ascii_case("src") && matches!(tag, "iframe" | "script") {
        let url = attr_value.trim();
        let rest = if let Some(r) = url.get(..8).filter(|p| p.eq_ignore_ascii_case("https://")) {
            &url[r.len()..]
        } else if let Some(r) = url.get(..7).filter(|p| p.eq_ignore_ascii_case("http://")) {
            &url[r.len()..]
        } else if let Some(r) = url.strip_prefix("//") {
            r
        } else {
            return false;
        };
        let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let host = rest[..host_end].rsplit('@').next().unwrap_or("");
        let host = host.split(':').next().unwrap_or("").trim_end_matches('.');
        let path = &rest[host_end..];
        let host = host.as_bytes();
        let under = |domain: &str| {
            let domain = domain.as_bytes();
            host.eq_ignore_ascii_case(domain)
                || (host.len() > domain.len()
                    && host[host.len() - domain.len() - 1] == b'.'
                    && host[host.len() - domain.len()..].eq_ignore_ascii_case(domain))
        };
        let google = (host.eq_ignore_ascii_case(b"www.google.com") || host.eq_ignore_ascii_case(b"google.com"))
            && path.get(..10).is_some_and(|p| p.eq_ignore_ascii_case("/recaptcha"));
        if google || under("recaptcha.net") {
            // reCAPTCHA v3 (`api.js?render=<site key>`) only scores visitors
            // in the background; it never shows a challenge.
            let v3 = path.split(['?', '&']).any(|p| {
                p.get(..7).is_some_and(|k| k.eq_ignore_ascii_case("render=")) && !matches!(&p[7..], "explicit" | "onload" | "")
            });
            return !v3;
        }
        return CHALLENGE_HOSTS.iter().any(|d| under(d));
    }
    false
}

/// Whether an element is a challenge widget that shows itself: one of its
/// `class`, `id` or (on `iframe` and `script`) `src` is a
/// [`challenge_marker`], and it is not an invisible reCAPTCHA
/// (`data-size="invisible"`, which scores visitors and shows nothing).
/// The class text is read only when the element has classes, `src` only
/// on the two tags it marks: this runs on every element of a page, and
/// each read searches the attribute list.
pub fn challenge_element(e: &Element) -> bool {
    let tag = e.local_name().as_ref();
    let marked = (!e.class_names().is_empty() && e.attr("class").is_some_and(|v| challenge_marker(tag, "class", v)))
        || e.id().is_some_and(|v| challenge_marker(tag, "id", v))
        || (matches!(tag, "iframe" | "script") && e.attr("src").is_some_and(|v| challenge_marker(tag, "src", v)));
    marked && !e.attr("data-size").is_some_and(|v| v.trim().eq_ignore_ascii_case("invisible"))
}
