//! Privacy tokens: the per-session [`Vault`] that keeps secret-looking values
//! out of everything the model reads (docs/privacy.md).
//!
//! [`Vault::redact`] replaces each such value in page text by a numbered
//! token, `‹card:1›`, `‹jwt:1›`, `‹key:2›`, `‹ssn:1›`, `‹iban:1›` (the
//! brackets are U+2039 and U+203A), and each value from the user's secrets
//! file by `‹secret:NAME›`. Numbering is per kind and starts at 1; the same
//! value always gets the same token (card numbers are compared by their
//! digits, IBANs without spaces and in upper case). What counts:
//!
//! - **card**: 13 to 19 digits, plain or in groups split by single spaces or
//!   single hyphens (a first group of four, then groups of three to six:
//!   `4111 1111 1111 1111`, `3782 822463 10005`), passing the Luhn check,
//!   starting like a real card (Visa 4, Mastercard 51–55 and 2221–2720, Amex
//!   34/37, Diners, JCB, Discover, UnionPay, Maestro) with a length that
//!   brand uses, and not one digit repeated. A card followed by more numbers
//!   (`4111 1111 1111 1111 12/25`) is still found.
//! - **jwt**: `eyJ…` header, payload and signature in base64url joined by
//!   dots, the header decoding to a JSON object.
//! - **key**: API keys by their prefixes: AWS `AKIA`/`ASIA` + 16, GitHub
//!   `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` + 36 and `github_pat_` + 22, Slack
//!   `xoxa-`/`xoxb-`/`xoxp-`/`xoxr-`, Stripe `sk_live_`/`sk_test_`/
//!   `rk_live_`/`rk_test_` + 16, Google `AIza` + 35, OpenAI and Anthropic
//!   `sk-…` (20 or more, holding a stretch of 16 between `-`/`_` with a
//!   digit or a capital, so that `sk-` slugs stay text); and
//!   `-----BEGIN … PRIVATE KEY-----` blocks, through their END line, or,
//!   when a page shows the block cut short, through the last of the body
//!   (up to a cut-off mark such as `…`, or other text).
//! - **ssn**: `AAA-GG-SSSS` with hyphens, in the ranges that are issued
//!   (area not 000, 666 or 900–999, group not 00, serial not 0000).
//! - **iban**: country code, check digits and account, plain or in groups of
//!   four, with that country's length and a valid mod-97 checksum.
//! - **secret**: every occurrence of a secrets-file value, longer values
//!   first. Values shorter than 6 characters are never searched for (they
//!   would match ordinary words), though they can still be typed by name.
//!
//! Left as text: values failing their check (Luhn, mod 97, ranges), values
//! glued to letters, digits or `_` (`x4111…`, `…1111abc`, 20-digit runs),
//! digits joined to others by a decimal point (`0.4111…`), and tokens
//! already in the text, so that redacting twice changes nothing. Letters
//! outside ASCII count as boundaries (pages in Chinese or Japanese write
//! numbers against words).
//!
//! The model types tokens back; [`Vault::resolve`] turns them into the real
//! values locally, and refuses (never guesses) tokens it did not issue.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use memchr::memmem;

const OPEN: &str = "\u{2039}";
const CLOSE: &str = "\u{203A}";

/// Secrets shorter than this (in characters) are typeable but never searched for.
const MIN_SEARCHED_SECRET_CHARS: usize = 6;

/// Longest secret name recognised inside a `‹secret:NAME›` token, in bytes.
const MAX_NAME_BYTES: usize = 256;

/// What a token stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A payment card number.
    Card,
    /// A JSON Web Token.
    Jwt,
    /// An API key or a private key block.
    Key,
    /// A US social security number.
    Ssn,
    /// An international bank account number.
    Iban,
    /// A value from the user's secrets file (tokens name it rather than number it).
    Secret,
}

impl TokenKind {
    /// The numbered kinds, in the order of their slots in the vault.
    const NUMBERED: [TokenKind; 5] = [TokenKind::Card, TokenKind::Jwt, TokenKind::Key, TokenKind::Ssn, TokenKind::Iban];

    /// The name used in tokens: `card`, `jwt`, `key`, `ssn`, `iban`, `secret`.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Card => "card",
            TokenKind::Jwt => "jwt",
            TokenKind::Key => "key",
            TokenKind::Ssn => "ssn",
            TokenKind::Iban => "iban",
            TokenKind::Secret => "secret",
        }
    }

    fn from_name(name: &str) -> Option<TokenKind> {
        Some(match name {
            "card" => TokenKind::Card,
            "jwt" => TokenKind::Jwt,
            "key" => TokenKind::Key,
            "ssn" => TokenKind::Ssn,
            "iban" => TokenKind::Iban,
            "secret" => TokenKind::Secret,
            _ => return None,
        })
    }

    /// The vault slot of a numbered kind.
    fn slot(self) -> Option<usize> {
        TokenKind::NUMBERED.iter().position(|&k| k == self)
    }
}

/// What the model typed could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// `secret:NAME` or `‹secret:NAME›` named no secret in the secrets file.
    UnknownSecret(String),
    /// A numbered token (its text, like `‹card:3›`) this session never issued.
    UnknownToken(String),
    /// A token (its text) whose value was seen on other sites only: it is
    /// typed only where it was seen (so a page cannot talk the model into
    /// sending a value from another site to it).
    OtherSite(String),
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::UnknownSecret(name) => write!(f, "no secret named {name} in the secrets file"),
            ResolveError::UnknownToken(token) => write!(f, "{token} was never issued in this session"),
            ResolveError::OtherSite(token) => {
                write!(f, "{token} was seen on another site: whittle types a value only on a site where it was seen")
            }
        }
    }
}

impl std::error::Error for ResolveError {}

/// One entry of the secrets file.
#[derive(Clone)]
struct Secret {
    name: String,
    value: String,
    /// Present when the value is long enough to be searched for in page text.
    finder: Option<memmem::Finder<'static>>,
    /// Whether redaction has put this secret's token in some text.
    used: bool,
    /// The sites it may be typed on (`None`: any; the secrets file's).
    sites: Option<Vec<String>>,
}

/// The per-session token vault: issues tokens for secret-looking values in
/// page text and resolves the tokens the model types back (see the module
/// documentation for what counts).
///
/// Its `Debug` output shows counts only, never a value.
#[derive(Clone, Default)]
pub struct Vault {
    secrets: Vec<Secret>,
    /// Indices into `secrets` of the searchable ones, longest value first.
    search_order: Vec<usize>,
    /// Per numbered kind: the value of token `n` at index `n - 1`, in the form first seen.
    values: [Vec<String>; 5],
    /// Per numbered kind: normalised value → token number.
    numbers: [HashMap<String, usize>; 5],
    /// Per numbered kind: the sites each token was seen on (index `n - 1`).
    seen_on: [Vec<Vec<String>>; 5],
    /// The site of the page being read or typed into, if one page is.
    site: Option<String>,
}

impl fmt::Debug for Vault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Counts<'a>(&'a Vault);
        impl fmt::Debug for Counts<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(TokenKind::NUMBERED.iter().zip(&self.0.values).map(|(k, v)| (k.as_str(), v.len())))
                    .entry(&"secret", &self.0.secrets.iter().filter(|s| s.used).count())
                    .finish()
            }
        }
        f.debug_struct("Vault").field("secrets", &self.secrets.len()).field("issued", &Counts(self)).finish()
    }
}

/// A value found in page text: its byte range and what will replace it.
#[derive(Clone, Copy)]
enum Replace {
    /// A token already in the text: kept as it is.
    Keep,
    /// The secret at this index of `Vault::secrets`.
    Secret(usize),
    /// A value the pattern scan found.
    Pattern(TokenKind),
}

impl Vault {
    /// An empty vault.
    pub fn new() -> Vault {
        Vault::default()
    }

    /// Adds a named secret from the secrets file (a second value for the same
    /// name replaces the first).
    ///
    /// Values shorter than 6 characters are still typeable (`secret:NAME`)
    /// but are never searched for in page text: they are too likely to match
    /// ordinary words. Empty values are never searched for either.
    ///
    /// Names should hold no whitespace (`secret:NAME` typed as the whole text
    /// stops at none) and no `‹` or `›` (they would end the token).
    pub fn add_secret(&mut self, name: &str, value: &str) {
        let finder = (value.chars().count() >= MIN_SEARCHED_SECRET_CHARS).then(|| memmem::Finder::new(value).into_owned());
        let secret = Secret { name: name.to_owned(), value: value.to_owned(), finder, used: false, sites: None };
        match self.secrets.iter_mut().find(|s| s.name == name) {
            Some(slot) => *slot = secret,
            None => self.secrets.push(secret),
        }
        let mut order: Vec<usize> = (0..self.secrets.len()).filter(|&i| self.secrets[i].finder.is_some()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.secrets[i].value.len()));
        self.search_order = order;
    }

    /// Adds a value seen in a sensitive field of the current site's page
    /// as a secret named `name`, typed (and looked for in page text) only
    /// on that site.
    pub fn add_site_secret(&mut self, name: &str, value: &str) {
        self.add_secret(name, value);
        let sites = self.site.iter().cloned().collect();
        if let Some(secret) = self.secrets.iter_mut().find(|s| s.name == name) {
            secret.sites = Some(sites);
        }
    }

    /// Sets the site (a host) of the page whose text is redacted next, or
    /// into which a token is typed next; `None` when the text is not one
    /// page's (research digests). A numbered token is typed only on a site
    /// whose page showed it.
    pub fn set_site(&mut self, host: Option<&str>) {
        self.site = host.map(|h| h.trim_start_matches("www.").to_ascii_lowercase());
    }

    fn typeable_here(&self, sites: &[String]) -> bool {
        self.site.as_ref().is_some_and(|s| sites.contains(s))
    }

    /// Whether the secrets file has a secret of this name.
    pub fn has_secret(&self, name: &str) -> bool {
        self.secret(name).is_some()
    }

    fn secret(&self, name: &str) -> Option<&Secret> {
        self.secrets.iter().find(|s| s.name == name)
    }

    /// Replaces every secret-looking value in `text` by its token, issuing
    /// new tokens as needed. Returns `Cow::Borrowed` when nothing changed.
    ///
    /// One pass per searchable secret (a SIMD substring search) and one pass
    /// over the bytes for the patterns, each attempt bounded by the run of
    /// characters it starts, so the cost is linear in the text's length.
    pub fn redact<'a>(&mut self, text: &'a str) -> Cow<'a, str> {
        let bytes = text.as_bytes();
        // Start → (end, what): non-overlapping.
        let mut spans: BTreeMap<usize, (usize, Replace)> = BTreeMap::new();
        for i in memmem::find_iter(bytes, OPEN) {
            if let Some((end, _)) = parse_token(text, i) {
                spans.insert(i, (end, Replace::Keep));
            }
        }
        let mut changed = false;
        for &index in &self.search_order {
            let secret = &self.secrets[index];
            // A site's secret (a field's value) is looked for on its site
            // only: elsewhere it could only hide ordinary words.
            if secret.sites.as_ref().is_some_and(|s| !self.typeable_here(s)) {
                continue;
            }
            let Some(finder) = &secret.finder else { continue };
            let len = finder.needle().len();
            for start in finder.find_iter(bytes) {
                let end = start + len;
                let overlaps = spans.range(..end).next_back().is_some_and(|(_, &(e, _))| e > start);
                if !overlaps {
                    spans.insert(start, (end, Replace::Secret(index)));
                    changed = true;
                }
            }
        }
        let mut found = Vec::new();
        let mut from = 0;
        for (&start, &(end, _)) in &spans {
            scan(text, from, start, &mut found);
            from = end;
        }
        scan(text, from, text.len(), &mut found);
        if found.is_empty() && !changed {
            return Cow::Borrowed(text);
        }
        for (start, end, kind) in found {
            spans.insert(start, (end, Replace::Pattern(kind)));
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, (end, what)) in spans {
            match what {
                Replace::Keep => continue,
                Replace::Secret(index) => {
                    out.push_str(&text[last..start]);
                    let secret = &mut self.secrets[index];
                    secret.used = true;
                    push_token(&mut out, "secret", &secret.name);
                }
                Replace::Pattern(kind) => {
                    out.push_str(&text[last..start]);
                    let n = self.number(kind, &text[start..end]);
                    push_token(&mut out, kind.as_str(), &n.to_string());
                }
            }
            last = end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// The number of `value`'s token, issuing it if new.
    fn number(&mut self, kind: TokenKind, value: &str) -> usize {
        let Some(slot) = kind.slot() else { return 0 };
        let key = normalise(kind, value);
        let n = match self.numbers[slot].get(&key) {
            Some(&n) => n,
            None => {
                self.values[slot].push(value.to_owned());
                self.seen_on[slot].push(Vec::new());
                let n = self.values[slot].len();
                self.numbers[slot].insert(key, n);
                n
            }
        };
        if let Some(site) = &self.site
            && let Some(sites) = self.seen_on[slot].get_mut(n - 1)
            && !sites.contains(site)
        {
            sites.push(site.clone());
        }
        n
    }

    /// How many tokens have been issued (all kinds; a secret counts once its
    /// token has appeared in redacted text).
    pub fn issued(&self) -> usize {
        self.values.iter().map(Vec::len).sum::<usize>() + self.secrets.iter().filter(|s| s.used).count()
    }

    /// Resolves what the model typed: `secret:NAME` as the whole text (after
    /// trimming) means that secret's value; anywhere in the text,
    /// `‹secret:NAME›` and `‹kind:n›` tokens are replaced by their values
    /// (a card by the form it was first seen in). Other text is kept as it
    /// is, `secret:` inside a longer text included. Unknown names and
    /// never-issued tokens are errors, never a guess.
    pub fn resolve(&self, text: &str) -> Result<String, ResolveError> {
        if let Some(name) = whole_secret_reference(text) {
            return match self.secret(name) {
                Some(secret) if secret.sites.as_ref().is_none_or(|s| self.typeable_here(s)) => Ok(secret.value.clone()),
                Some(_) => Err(ResolveError::OtherSite(format!("secret:{name}"))),
                None => Err(ResolveError::UnknownSecret(name.to_owned())),
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for i in memmem::find_iter(text.as_bytes(), OPEN) {
            let Some((end, token)) = parse_token(text, i) else { continue };
            out.push_str(&text[last..i]);
            match token {
                TokenRef::Secret(name) => match self.secret(name) {
                    Some(secret) if secret.sites.as_ref().is_none_or(|s| self.typeable_here(s)) => out.push_str(&secret.value),
                    Some(_) => return Err(ResolveError::OtherSite(text[i..end].to_owned())),
                    None => return Err(ResolveError::UnknownSecret(name.to_owned())),
                },
                TokenRef::Numbered(kind, digits) => {
                    let found = kind.slot().and_then(|slot| {
                        let n: usize = digits.parse().ok()?;
                        // `‹card:01›` is not what was issued: no guessing.
                        (n.to_string() == digits).then_some(())?;
                        let i = n.checked_sub(1)?;
                        Some((self.values[slot].get(i)?, self.seen_on[slot].get(i)?))
                    });
                    match found {
                        Some((value, sites)) if self.typeable_here(sites) => out.push_str(value),
                        Some(_) => return Err(ResolveError::OtherSite(text[i..end].to_owned())),
                        None => return Err(ResolveError::UnknownToken(text[i..end].to_owned())),
                    }
                }
            }
            last = end;
        }
        out.push_str(&text[last..]);
        Ok(out)
    }

    /// Whether `text` contains any token or `secret:` reference that
    /// [`resolve`](Vault::resolve) would replace (or refuse, when unknown),
    /// so callers know to echo the token form rather than the value.
    pub fn mentions_tokens(text: &str) -> bool {
        whole_secret_reference(text).is_some()
            || memmem::find_iter(text.as_bytes(), OPEN).any(|i| parse_token(text, i).is_some())
    }
}

fn push_token(out: &mut String, kind: &str, id: &str) {
    out.push_str(OPEN);
    out.push_str(kind);
    out.push(':');
    out.push_str(id);
    out.push_str(CLOSE);
}

/// The form two values are compared in: card digits only, IBANs without
/// spaces and in upper case, everything else as written.
fn normalise(kind: TokenKind, value: &str) -> String {
    match kind {
        TokenKind::Card => value.chars().filter(char::is_ascii_digit).collect(),
        TokenKind::Iban => value.chars().filter(|&c| c != ' ').map(|c| c.to_ascii_uppercase()).collect(),
        _ => value.to_owned(),
    }
}

/// `secret:NAME` as the whole (trimmed) text: the name.
fn whole_secret_reference(text: &str) -> Option<&str> {
    let name = text.trim().strip_prefix("secret:")?;
    let plain = !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == '\u{2039}' || c == '\u{203A}');
    plain.then_some(name)
}

/// A token in typed or page text.
enum TokenRef<'a> {
    Secret(&'a str),
    Numbered(TokenKind, &'a str),
}

/// The token starting at byte `i` of `text` (where a `‹` is) and where it ends.
fn parse_token(text: &str, i: usize) -> Option<(usize, TokenRef<'_>)> {
    let body = i + OPEN.len();
    let rest = text.get(body..)?;
    let colon = rest.bytes().take(7).position(|c| c == b':')?;
    let kind = TokenKind::from_name(&rest[..colon])?;
    let after = &rest[colon + 1..];
    let after_start = body + colon + 1;
    if kind == TokenKind::Secret {
        for (at, c) in after.char_indices() {
            match c {
                '\u{203A}' if at > 0 => return Some((after_start + at + CLOSE.len(), TokenRef::Secret(&after[..at]))),
                '\u{203A}' | '\u{2039}' | '\n' | '\r' => return None,
                _ if at >= MAX_NAME_BYTES => return None,
                _ => {}
            }
        }
        None
    } else {
        let digits = after.bytes().take(21).take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 20 || !after[digits..].starts_with(CLOSE) {
            return None;
        }
        Some((after_start + digits + CLOSE.len(), TokenRef::Numbered(kind, &after[..digits])))
    }
}

// ---------------------------------------------------------------------------
// The pattern scan.

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_key_char(c: u8) -> bool {
    is_word(c) || c == b'-'
}

/// The end of the run of bytes matching `f` starting at `i`.
fn run_end(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    i + b.get(i..).map_or(0, |rest| rest.iter().take_while(|&&c| f(c)).count())
}

/// Like [`run_end`], but stopping before `-----`: a private key block right
/// after a key is a value of its own.
fn key_run_end(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    let mut j = i;
    while j < b.len() && f(b[j]) && !(b[j] == b'-' && b[j..].starts_with(b"-----")) {
        j += 1;
    }
    j
}

/// Scans `text[from..to]` for pattern values (its edges count as
/// boundaries), pushing absolute `(start, end, kind)` in order.
fn scan(text: &str, from: usize, to: usize, out: &mut Vec<(usize, usize, TokenKind)>) {
    let b = &text.as_bytes()[from..to];
    let mut groups = Vec::new();
    // Where the text after the last value found starts: a boundary, as the
    // token replacing that value will be when the output is redacted again.
    let mut lo = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev = if i > lo { Some(b[i - 1]) } else { None };
        let word_start = prev.is_none_or(|p| !is_word(p));
        let key_start = prev.is_none_or(|p| !is_key_char(p));
        let hit = match c {
            b'0'..=b'9' if prev.is_none_or(|p| !p.is_ascii_digit()) => {
                let before = out.len();
                i = digit_run(&b[lo..], i - lo, &mut groups, &mut |s, e, kind| out.push((from + lo + s, from + lo + e, kind))) + lo;
                if out.len() > before && out.last().is_some_and(|&(_, e, _)| e == from + i) {
                    lo = i;
                }
                continue;
            }
            b'A'..=b'Z' if word_start => match iban_at(b, i) {
                Some(end) => Some((end, TokenKind::Iban)),
                None if key_start => upper_key_at(b, i).map(|e| (e, TokenKind::Key)),
                None => None,
            },
            b'e' if key_start && prev != Some(b'.') => jwt_at(b, i).map(|e| (e, TokenKind::Jwt)),
            b'g' | b'r' | b's' | b'x' if key_start => lower_key_at(b, i).map(|e| (e, TokenKind::Key)),
            b'-' if prev != Some(b'-') => private_key_at(b, i).map(|e| (e, TokenKind::Key)),
            _ => None,
        };
        match hit {
            Some((end, kind)) => {
                out.push((from + i, from + end, kind));
                i = end;
                lo = end;
            }
            // Nothing starts inside a word: skip the rest of it.
            None if is_word(c) => i = run_end(b, i + 1, is_word),
            None => i += 1,
        }
    }
}

/// The run of digit groups starting at `start` (a digit after a non-digit):
/// groups joined by single spaces or hyphens. Reports the SSNs and cards in
/// it and returns where it ends.
fn digit_run(
    b: &[u8],
    start: usize,
    groups: &mut Vec<(usize, usize, u8)>,
    report: &mut impl FnMut(usize, usize, TokenKind),
) -> usize {
    groups.clear();
    let mut i = start;
    let mut sep = 0;
    let mut digits = 0;
    loop {
        let group_start = i;
        i = run_end(b, i, |c| c.is_ascii_digit());
        groups.push((group_start, i, sep));
        digits += i - group_start;
        if i + 1 < b.len() && matches!(b[i], b' ' | b'-') && b[i + 1].is_ascii_digit() {
            sep = b[i];
            i += 1;
        } else {
            break;
        }
    }
    let end = i;
    if digits < 9 {
        return end;
    }
    let groups: &[(usize, usize, u8)] = groups;
    let n = groups.len();
    // Glued to a word, or the digits after a decimal point (or before one).
    let glued_before = start > 0 && (is_word(b[start - 1]) || (b[start - 1] == b'.' && start >= 2 && b[start - 2].is_ascii_digit()));
    let glued_after = end < b.len() && (is_word(b[end]) || (b[end] == b'.' && b.get(end + 1).is_some_and(u8::is_ascii_digit)));
    let (start_ok, end_ok) = (!glued_before, !glued_after);
    let len = |g: usize| groups[g].1 - groups[g].0;
    let sep = |g: usize| groups[g].2;
    // A window may end at group `g` when a separator or the run's good end follows.
    let may_end = |g: usize| g + 1 < n || end_ok;
    let mut g = 0;
    while g < n {
        if g == 0 && !start_ok {
            g += 1;
            continue;
        }
        let ssn = g + 2 < n
            && (len(g), len(g + 1), len(g + 2)) == (3, 2, 4)
            && sep(g + 1) == b'-'
            && sep(g + 2) == b'-'
            // Neighbours joined by hyphens do not matter: they may be
            // values themselves, and redacting again must find the same.
            && (g + 3 < n || end_ok)
            && ssn_valid(&b[groups[g].0..groups[g + 2].1]);
        if ssn {
            report(groups[g].0, groups[g + 2].1, TokenKind::Ssn);
            g += 3;
            continue;
        }
        let mut card = None;
        if (13..=19).contains(&len(g)) {
            if may_end(g) && is_card(&b[groups[g].0..groups[g].1]) {
                card = Some(g);
            }
        } else if len(g) == 4 && g + 1 < n {
            let window_sep = sep(g + 1);
            let mut total = 4;
            for j in g + 1..n {
                if sep(j) != window_sep || !(3..=6).contains(&len(j)) {
                    break;
                }
                total += len(j);
                if total > 19 {
                    break;
                }
                if total >= 13 && may_end(j) {
                    let mut buf = [0u8; 19];
                    let mut k = 0;
                    for &c in &b[groups[g].0..groups[j].1] {
                        if c.is_ascii_digit() {
                            buf[k] = c;
                            k += 1;
                        }
                    }
                    if is_card(&buf[..k]) {
                        card = Some(j);
                    }
                }
            }
        }
        match card {
            Some(last) => {
                report(groups[g].0, groups[last].1, TokenKind::Card);
                g = last + 1;
            }
            None => g += 1,
        }
    }
    end
}

/// `AAA-GG-SSSS` in the issued ranges.
fn ssn_valid(s: &[u8]) -> bool {
    let area = &s[0..3];
    let group = &s[4..6];
    let serial = &s[7..11];
    area != b"000" && area != b"666" && area[0] != b'9' && group != b"00" && serial != b"0000"
}

/// Digits that could be a card number: brand prefix and length, not one
/// digit repeated, Luhn.
fn is_card(d: &[u8]) -> bool {
    let len = d.len();
    if !(13..=19).contains(&len) || d.iter().all(|&c| c == d[0]) {
        return false;
    }
    let prefix = |n: usize| d[..n].iter().fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'));
    let brand = match d[0] {
        b'4' => matches!(len, 13 | 16 | 19),
        b'3' => match prefix(2) {
            34 | 37 => len == 15,
            30 | 36 | 38 | 39 => len >= 14,
            35 => len >= 16,
            _ => false,
        },
        b'5' => {
            if (51..=55).contains(&prefix(2)) {
                len == 16
            } else {
                true // Maestro (50, 56–59)
            }
        }
        b'2' => (2221..=2720).contains(&prefix(4)) && len == 16,
        b'6' => true, // Discover, UnionPay, Maestro
        _ => false,
    };
    brand && luhn(d)
}

fn luhn(d: &[u8]) -> bool {
    let mut sum = 0;
    for (k, &c) in d.iter().rev().enumerate() {
        let mut v = u32::from(c - b'0');
        if k % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

/// IBAN lengths by country (ISO 13616 registry).
fn iban_length(country: &[u8]) -> Option<usize> {
    Some(match country {
        b"NO" => 15,
        b"BE" => 16,
        b"DK" | b"FI" | b"FO" | b"GL" | b"NL" | b"SD" | b"FK" => 18,
        b"MK" | b"SI" => 19,
        b"AT" | b"BA" | b"EE" | b"KZ" | b"LT" | b"LU" | b"XK" | b"MN" => 20,
        b"CH" | b"HR" | b"LI" | b"LV" => 21,
        b"BG" | b"BH" | b"CR" | b"DE" | b"GB" | b"GE" | b"IE" | b"ME" | b"RS" | b"VA" => 22,
        b"AE" | b"GI" | b"IL" | b"IQ" | b"TL" | b"SO" | b"OM" => 23,
        b"AD" | b"CZ" | b"ES" | b"MD" | b"PK" | b"RO" | b"SA" | b"SE" | b"SK" | b"TN" | b"VG" => 24,
        b"PT" | b"ST" | b"LY" => 25,
        b"IS" | b"TR" => 26,
        b"FR" | b"GR" | b"IT" | b"MC" | b"MR" | b"SM" | b"BI" | b"DJ" => 27,
        b"AL" | b"AZ" | b"BY" | b"CY" | b"DO" | b"GT" | b"HU" | b"LB" | b"PL" | b"SV" | b"NI" => 28,
        b"BR" | b"EG" | b"PS" | b"QA" | b"UA" => 29,
        b"JO" | b"KW" | b"MU" => 30,
        b"MT" | b"SC" => 31,
        b"LC" => 32,
        b"RU" => 33,
        _ => return None,
    })
}

/// An IBAN starting at `i` (an upper-case letter at a word start): its end.
fn iban_at(b: &[u8], i: usize) -> Option<usize> {
    let head = b.get(i..i + 4)?;
    if !(head[1].is_ascii_uppercase() && head[2].is_ascii_digit() && head[3].is_ascii_digit()) {
        return None;
    }
    let expected = iban_length(&head[..2])?;
    let plain_end = run_end(b, i, |c| c.is_ascii_alphanumeric());
    let end = if plain_end - i == expected {
        plain_end
    } else if plain_end - i == 4 {
        // Groups of four split by single spaces, the last one shorter.
        let mut pos = i + 4;
        let mut count = 4;
        while count < expected {
            let want = (expected - count).min(4);
            let group = b.get(pos + 1..pos + 1 + want)?;
            if b[pos] != b' ' || !group.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
            pos += 1 + want;
            count += want;
        }
        pos
    } else {
        return None;
    };
    if b.get(end).is_some_and(|&c| is_word(c)) {
        return None;
    }
    let chars = || b[i..end].iter().filter(|&&c| c != b' ');
    let rearranged = chars().skip(4).chain(chars().take(4));
    let mut rest = 0u32;
    for &c in rearranged {
        rest = match c {
            b'0'..=b'9' => (rest * 10 + u32::from(c - b'0')) % 97,
            _ => (rest * 100 + u32::from(c.to_ascii_uppercase() - b'A') + 10) % 97,
        };
    }
    (rest == 1).then_some(end)
}

/// An API key with an upper-case prefix (AWS, Google) at `i`: its end.
fn upper_key_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") {
        let end = i + 20;
        let body = b.get(i + 4..end)?;
        let ok = body.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) && !b.get(end).is_some_and(|&c| is_word(c));
        return ok.then_some(end);
    }
    if rest.starts_with(b"AIza") {
        // 35 characters; longer runs count too (an exact length would fail
        // here and could pass once a value glued after it was redacted).
        let end = key_run_end(b, i + 4, is_key_char);
        return (end - i >= 39).then_some(end);
    }
    None
}

/// An API key shape: prefix, the characters of the body, the shortest body.
type KeyShape = (&'static [u8], fn(u8) -> bool, usize);

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

const KEY_SHAPES: [KeyShape; 14] = [
    (b"ghp_", alnum, 36),
    (b"gho_", alnum, 36),
    (b"ghu_", alnum, 36),
    (b"ghs_", alnum, 36),
    (b"ghr_", alnum, 36),
    (b"github_pat_", is_word, 22),
    (b"sk_live_", alnum, 16),
    (b"sk_test_", alnum, 16),
    (b"rk_live_", alnum, 16),
    (b"rk_test_", alnum, 16),
    // Slack tokens hold no `_`, but a body that stopped short of one would
    // fail here and pass once a value glued after it was redacted.
    (b"xoxa-", is_key_char, 10),
    (b"xoxb-", is_key_char, 10),
    (b"xoxp-", is_key_char, 10),
    (b"xoxr-", is_key_char, 10),
];

/// An API key with a lower-case prefix (GitHub, Slack, Stripe, OpenAI,
/// Anthropic) at `i`: its end.
fn lower_key_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    for (prefix, body, min) in KEY_SHAPES {
        if rest.starts_with(prefix) {
            let start = i + prefix.len();
            let end = key_run_end(b, start, body);
            let ok = end - start >= min && !b.get(end).is_some_and(|&c| is_word(c));
            return ok.then_some(end);
        }
    }
    if rest.starts_with(b"sk-") {
        let start = i + 3;
        let end = key_run_end(b, start, is_key_char);
        // Some stretch between `-`/`_` of 16+ characters with a digit or a
        // capital: random, not a slug like `sk-ski-resorts-in-austria`.
        let random = b[start..end]
            .split(|&c| c == b'-' || c == b'_')
            .any(|part| part.len() >= 16 && part.iter().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
        return (end - start >= 20 && random).then_some(end);
    }
    None
}

fn base64url_value(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    }))
}

fn base64url_decode(s: &[u8]) -> Option<Vec<u8>> {
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s {
        acc = (acc << 6) | base64url_value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A JWT at `i` (`eyJ` header, payload, signature joined by dots): its end.
fn jwt_at(b: &[u8], i: usize) -> Option<usize> {
    if !b[i..].starts_with(b"eyJ") {
        return None;
    }
    let b64 = |c: u8| is_key_char(c);
    let header_end = key_run_end(b, i, b64);
    if b.get(header_end) != Some(&b'.') {
        return None;
    }
    let payload_end = key_run_end(b, header_end + 1, b64);
    if payload_end == header_end + 1 || b.get(payload_end) != Some(&b'.') {
        return None;
    }
    // The signature is whatever base64url follows (no length check: text
    // glued to it would make the check fail here but pass once redacted).
    let end = key_run_end(b, payload_end + 1, b64);
    let header = base64url_decode(&b[i..header_end])?;
    let object = header.starts_with(b"{\"") && header.trim_ascii_end().ends_with(b"}");
    object.then_some(end)
}

/// A `-----BEGIN … PRIVATE KEY-----` block at `i`: its end (through the
/// matching END line, or the header alone when none follows the body).
fn private_key_at(b: &[u8], i: usize) -> Option<usize> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const DASHES: &[u8] = b"-----";
    if !b[i..].starts_with(BEGIN) {
        return None;
    }
    let label_start = i + BEGIN.len();
    let label_end = run_end(b, label_start, |c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ');
    let label = &b[label_start..label_end];
    if label.len() > 64 || !b[label_end..].starts_with(DASHES) || !(label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK")) {
        return None;
    }
    let header_end = label_end + DASHES.len();
    // The body (base64, `Proc-Type:`-style headers, whitespace) up to the
    // next `-----`. Without its END line (a page that shows the block cut
    // short) the body's whole lines go with the header: they are the key.
    let mut j = header_end;
    let mut last_space = header_end;
    while j < b.len() && !b[j..].starts_with(DASHES) {
        let c = b[j];
        if !(c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || b"+/=:,.-_".contains(&c)) {
            // A cut-off mark (`…`) ends key material; other text starts
            // after the last whole chunk.
            return Some(if c >= 0x80 { j } else { last_space });
        }
        if c.is_ascii_whitespace() {
            last_space = j;
        }
        j += 1;
    }
    if j == b.len() {
        return Some(j);
    }
    let footer = &b[j..];
    let matching = footer.starts_with(b"-----END ") && footer[9..].starts_with(label) && footer[9 + label.len()..].starts_with(DASHES);
    Some(if matching { j + 9 + label.len() + DASHES.len() } else { last_space })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vault reading and typing on one site, as a session's is.
    fn here() -> Vault {
        let mut vault = Vault::new();
        vault.set_site(Some("shop.test"));
        vault
    }

    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    fn redact(text: &str) -> String {
        here().redact(text).into_owned()
    }

    fn unchanged(text: &str) {
        let mut vault = here();
        let out = vault.redact(text);
        assert!(matches!(out, Cow::Borrowed(_)), "{text:?} became {out:?}");
        assert_eq!(vault.issued(), 0);
    }

    #[test]
    fn kind_names() {
        let names: Vec<&str> = [TokenKind::Card, TokenKind::Jwt, TokenKind::Key, TokenKind::Ssn, TokenKind::Iban, TokenKind::Secret]
            .iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(names, ["card", "jwt", "key", "ssn", "iban", "secret"]);
    }

    #[test]
    fn cards_in_every_grouping() {
        for text in ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"] {
            assert_eq!(redact(&format!("Card: {text}.")), "Card: ‹card:1›.");
        }
        assert_eq!(redact("Amex 3782 822463 10005 ok"), "Amex ‹card:1› ok");
        assert_eq!(redact("Amex 378282246310005"), "Amex ‹card:1›");
        assert_eq!(redact("MC 5555 5555 5555 4444"), "MC ‹card:1›");
        assert_eq!(redact("pay=4111111111111111&x=1"), "pay=‹card:1›&x=1");
        assert_eq!(redact("カード4111111111111111です"), "カード‹card:1›です");
        // Followed by more numbers (an expiry): still found.
        assert_eq!(redact("4111 1111 1111 1111 12/25"), "‹card:1› 12/25");
        assert_eq!(redact("4111 1111 1111 1111 2025"), "‹card:1› 2025");
        assert_eq!(redact("ref 12 4111 1111 1111 1111"), "ref 12 ‹card:1›");
    }

    #[test]
    fn not_cards() {
        unchanged("4111 1111 1111 1112"); // Luhn
        unchanged("0000000000000000"); // one digit repeated (passes Luhn)
        unchanged("0000 0000 0000 0000");
        unchanged("41111111111111111111"); // 20 digits
        unchanged("x4111111111111111");
        unchanged("4111111111111111abc");
        unchanged("id_4111111111111111");
        unchanged("0.4111111111111111");
        unchanged("4111111111111111.25");
        unchanged("4111 1111-1111 1111"); // mixed separators
        unchanged("4111  1111  1111  1111"); // double spaces
        unchanged("411111111111"); // 12 digits
        unchanged("1234567890123452"); // Luhn-valid, no card starts with 1
        unchanged("9123456789012348");
        unchanged("7812 3456 7890 1234");
        unchanged("timestamp 1718000000000 ms");
    }

    #[test]
    fn same_card_same_token_and_numbering_per_kind() {
        let mut vault = here();
        let out = vault.redact("4111 1111 1111 1111, 5555555555554444, 4111111111111111 and 4111-1111-1111-1111");
        assert_eq!(out, "‹card:1›, ‹card:2›, ‹card:1› and ‹card:1›");
        assert_eq!(vault.redact("AKIAIOSFODNN7EXAMPLE then 5555 5555 5555 4444"), "‹key:1› then ‹card:2›");
        assert_eq!(vault.redact("6011111111111117"), "‹card:3›");
        assert_eq!(vault.issued(), 4);
        // The value as first seen.
        assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
        assert_eq!(vault.resolve("‹card:2›").as_deref(), Ok("5555555555554444"));
    }

    #[test]
    fn ssns() {
        assert_eq!(redact("SSN 078-05-1120."), "SSN ‹ssn:1›.");
        assert_eq!(redact("ssn:123-45-6789 and 123-45-6789"), "ssn:‹ssn:1› and ‹ssn:1›");
        assert_eq!(redact("(219-09-9999)"), "(‹ssn:1›)");
        for invalid in ["000-12-3456", "666-12-3456", "900-12-3456", "999-12-3456", "123-00-4567", "123-45-0000"] {
            unchanged(invalid);
        }
        unchanged("123456789"); // bare nine digits
        unchanged("123 45 6789");
        unchanged("1123-45-6789");
        unchanged("123-45-67890");
        unchanged("A123-45-6789");
        unchanged("123-45-6789A");
        unchanged("1.123-45-6789");
        // Hyphenated neighbours are not looked at.
        assert_eq!(redact("9-123-45-6789-1 A-123-45-6789"), "9-‹ssn:1›-1 A-‹ssn:1›");
        assert_eq!(redact("078-05-1120-4111111111111111"), "‹ssn:1›-‹card:1›");
    }

    #[test]
    fn ibans() {
        assert_eq!(redact("IBAN DE89 3704 0044 0532 0130 00, BIC"), "IBAN ‹iban:1›, BIC");
        assert_eq!(redact("GB82WEST12345698765432"), "‹iban:1›");
        assert_eq!(redact("to GB82 WEST 1234 5698 7654 32 now"), "to ‹iban:1› now");
        assert_eq!(redact("FR14 2004 1010 0505 0001 3M02 606"), "‹iban:1›");
        assert_eq!(redact("NL91ABNA0417164300 ES9121000418450200051332"), "‹iban:1› ‹iban:2›");
        assert_eq!(redact("IT60X0542811101000000123456; CH9300762011623852957"), "‹iban:1›; ‹iban:2›");
        // A length that is a multiple of four does not swallow the next word.
        assert_eq!(redact("BE68 5390 0754 7034 from Anna"), "‹iban:1› from Anna");
        let mut vault = here();
        assert_eq!(vault.redact("DE89 3704 0044 0532 0130 00 / DE89370400440532013000"), "‹iban:1› / ‹iban:1›");
        assert_eq!(vault.redact("GB82 west 1234 5698 7654 32 = GB82WEST12345698765432"), "‹iban:2› = ‹iban:2›");
    }

    #[test]
    fn not_ibans() {
        unchanged("DE89 3704 0044 0532 0130 01"); // checksum
        unchanged("DE89370400440532013001");
        unchanged("DE8937040044053201300"); // length
        unchanged("DE893704004405320130000");
        unchanged("XDE89370400440532013000");
        unchanged("DE89370400440532013000x");
        unchanged("ZZ89370400440532013000"); // no such country
        unchanged("DE89 37040044 0532 0130 00"); // irregular groups
        unchanged("de89370400440532013000");
    }

    #[test]
    fn jwts() {
        assert_eq!(redact(&format!("Authorization: Bearer {JWT}")), "Authorization: Bearer ‹jwt:1›");
        assert_eq!(redact(&format!("/cb?token={JWT}&s=1")), "/cb?token=‹jwt:1›&s=1");
        assert_eq!(redact(&format!("token {JWT}. Next")), "token ‹jwt:1›. Next");
        let mut vault = here();
        assert_eq!(vault.redact(&format!("{JWT} {JWT}")), "‹jwt:1› ‹jwt:1›");
        assert_eq!(vault.resolve("‹jwt:1›").as_deref(), Ok(JWT));
    }

    #[test]
    fn not_jwts() {
        unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
        unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0");
        // The header does not decode to a JSON object (truncated).
        unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc");
        unchanged("eyJ.eyJ.sig");
        unchanged(&format!("x{JWT}"));
        unchanged("eyJust.some.words");
    }

    #[test]
    fn api_keys() {
        let alnum36 = "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
        let keys = [
            "AKIAIOSFODNN7EXAMPLE".to_owned(),
            "ASIAIOSFODNN7EXAMPLE".to_owned(),
            format!("ghp_{alnum36}"),
            format!("gho_{alnum36}"),
            format!("ghu_{alnum36}"),
            format!("ghs_{alnum36}"),
            format!("ghr_{alnum36}"),
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ".to_owned(),
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".to_owned(),
            "xoxp-1234567890-1234567890-1234567890-abcdef".to_owned(),
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
            "rk_live_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-StU".to_owned(),
            "sk-abcdefghijklmnopqrstuvWXYZ0123456789abcdefghijkl".to_owned(),
            "sk-proj-Ab3dEf6hIj9kLmN0pQr5sTu8vWx1yZ-ab_cd".to_owned(),
            "sk-ant-api03-AbCdEfGh1234567890IjKlMnOpQrStUvWxYz-abcdefAA".to_owned(),
        ];
        for key in &keys {
            assert_eq!(redact(&format!("key: {key} end")), "key: ‹key:1› end", "{key}");
            assert_eq!(redact(&format!("\"{key}\"")), "\"‹key:1›\"", "{key}");
        }
        let mut vault = here();
        let all = keys.join(" ");
        let out = vault.redact(&all);
        let expected: Vec<String> = (1..=keys.len()).map(|n| format!("‹key:{n}›")).collect();
        assert_eq!(out, expected.join(" "));
        assert_eq!(vault.resolve(&out).as_deref(), Ok(all.as_str()));
    }

    #[test]
    fn not_api_keys() {
        unchanged("AKIAIOSFODNN7EXAMPL"); // 15 after the prefix
        unchanged("AKIAIOSFODNN7EXAMPLE1");
        unchanged("xAKIAIOSFODNN7EXAMPLE");
        unchanged("AKIAiosfodnn7example");
        unchanged("ghp_short");
        unchanged("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"); // 35
        unchanged("github_pat_short");
        unchanged("xoxb-123");
        unchanged("sk_live_short");
        unchanged("AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-St"); // 34
        unchanged("we use sk-learn and task-force ideas");
        unchanged("/blog/sk-top-10-ski-resorts-in-the-alps-2024");
        unchanged("sk-abcdefghijklmnopqrstuvwxyz"); // no digit or capital
        unchanged("risk-AbCdEf1234567890AbCdEf1234567890");
        unchanged("my-ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
    }

    #[test]
    fn private_keys() {
        let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6+/g7h8==\nQm9keQ==\n-----END RSA PRIVATE KEY-----";
        assert_eq!(redact(&format!("key:\n{block}\nafter")), "key:\n‹key:1›\nafter");
        let pkcs8 = "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASC -----END PRIVATE KEY-----";
        assert_eq!(redact(pkcs8), "‹key:1›");
        let encrypted = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\nQUJD\n-----END RSA PRIVATE KEY-----";
        assert_eq!(redact(encrypted), "‹key:1›");
        // No END line: the header alone.
        assert_eq!(redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE (truncated"), "‹key:1› (truncated");
        assert_eq!(redact("-----BEGIN PRIVATE KEY----- nqetvQ105t7H89+uz… +14 more"), "‹key:1›… +14 more");
        // A different END label: the header alone.
        assert_eq!(
            redact("-----BEGIN EC PRIVATE KEY-----\nQUJD\n-----END RSA PRIVATE KEY-----"),
            "‹key:1›\n-----END RSA PRIVATE KEY-----"
        );
        unchanged("-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----");
        unchanged("-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----");
        unchanged("------BEGIN PRIVATE KEY-----");
    }

    #[test]
    fn named_secrets() {
        let mut vault = here();
        vault.add_secret("db", "hunter2-long-password");
        vault.add_secret("short", "pw123");
        vault.add_secret("part", "hunter2");
        assert!(vault.has_secret("db") && vault.has_secret("short") && !vault.has_secret("nope"));
        assert_eq!(
            vault.redact("login with hunter2-long-password or hunter2 (pw123)"),
            "login with ‹secret:db› or ‹secret:part› (pw123)"
        );
        assert_eq!(vault.redact("xxhunter2yy"), "xx‹secret:part›yy");
        assert_eq!(vault.issued(), 2);
        // Short secrets are never searched for, but they are typeable.
        assert!(matches!(vault.redact("pw123"), Cow::Borrowed(_)));
        assert_eq!(vault.resolve("secret:short").as_deref(), Ok("pw123"));
        // A secret value wins over a pattern it overlaps.
        vault.add_secret("card", "4111 1111 1111 1111");
        assert_eq!(vault.redact("pay 4111 1111 1111 1111"), "pay ‹secret:card›");
        // Replacing a value.
        vault.add_secret("part", "swordfish");
        assert_eq!(vault.redact("hunter2 swordfish"), "hunter2 ‹secret:part›");
    }

    #[test]
    fn existing_tokens_survive_and_redact_is_idempotent() {
        let mut vault = here();
        vault.add_secret("card:1", "card:1"); // even a secret that looks like a token's inside
        let text = format!(
            "‹card:1› was 4111 1111 1111 1111; ‹secret:x› ‹key:7›; {JWT} 078-05-1120 GB82WEST12345698765432 AKIAIOSFODNN7EXAMPLE"
        );
        let once = vault.redact(&text).into_owned();
        assert!(once.starts_with("‹card:1› was ‹card:1›; ‹secret:x› ‹key:7›; ‹jwt:1› ‹ssn:1› ‹iban:1› ‹key:1›"), "{once}");
        let twice = vault.redact(&once);
        assert!(matches!(twice, Cow::Borrowed(_)));
        assert_eq!(twice, once);
        unchanged("‹card:1› ‹secret:db› ‹iban:12›");
        // Text right after a value starts fresh, as it will after its token.
        for text in [
            "-----BEGIN PRIVATE KEY-----AKIAIOSFODNN7EXAMPLE",
            "-----BEGIN PRIVATE KEY-----4111111111111111",
            &format!("{JWT}9.4111111111111111"),
        ] {
            let mut vault = here();
            let once = vault.redact(text).into_owned();
            assert_eq!(vault.redact(&once), once, "{text}");
        }
    }

    /// Pieces that glue into awkward neighbours when concatenated.
    const PIECES: [&str; 26] = [
        "4111111111111111",
        "5555 5555 5555 4444",
        "078-05-1120",
        "GB82WEST12345698765432",
        JWT,
        "AKIAIOSFODNN7EXAMPLE",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-StU",
        "xoxb-123456789012-abcDEF",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "-----BEGIN RSA PRIVATE KEY-----",
        "\nQUJD\n",
        "-----END RSA PRIVATE KEY-----",
        "hunter22",
        "sk-",
        "eyJ",
        "1234",
        "9",
        "-",
        " ",
        ".",
        "_",
        "x",
        "Z",
        "é",
        "カ",
        "secret:",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { failure_persistence: None, ..Default::default() })]
        #[test]
        fn redaction_is_idempotent_and_resolves_back(
            picks in proptest::collection::vec(0..PIECES.len(), 0..12),
            token in 0usize..4,
            at in 0usize..12,
        ) {
            let text: String = picks.iter().map(|&p| PIECES[p]).collect();
            let mut vault = here();
            vault.set_site(Some("shop.test"));
            vault.add_secret("pw", "hunter22");
            let once = vault.redact(&text).into_owned();
            // (`secret:NAME` as the whole text is a reference, by design.)
            if !once.trim().starts_with("secret:") {
                let resolved = vault.resolve(&once);
                proptest::prop_assert_eq!(resolved.as_deref(), Ok(text.as_str()));
            }
            let twice = vault.redact(&once);
            proptest::prop_assert!(matches!(twice, Cow::Borrowed(_)), "{:?} then {:?}", once, twice);
            // With a token already in the text.
            let mut pieces: Vec<&str> = picks.iter().map(|&p| PIECES[p]).collect();
            pieces.insert(at.min(pieces.len()), ["‹card:1›", "‹secret:pw›", "‹key:3›", "‹x:1›"][token]);
            let with_token = pieces.concat();
            let once = vault.redact(&with_token).into_owned();
            let twice = vault.redact(&once).into_owned();
            proptest::prop_assert_eq!(twice, once);
        }
    }

    #[test]
    fn borrowed_when_nothing_found() {
        unchanged("");
        unchanged("Hello, world! Call +1 415 555 0100 before 2024-01-15; order #1002003004 costs $1,299.99.");
        let mut vault = here();
        vault.add_secret("pw", "correct horse battery");
        assert!(matches!(vault.redact("a correct horse, no battery"), Cow::Borrowed(_)));
    }

    #[test]
    fn resolve_round_trip() {
        let mut vault = here();
        vault.set_site(Some("shop.test"));
        vault.add_secret("email-password", "Tr0ub4dor&3-xyz");
        let text = format!(
            "card 4111-1111-1111-1111 exp 12/25, amex 3782 822463 10005, ssn 078-05-1120, iban DE89 3704 0044 0532 0130 00, \
             jwt {JWT}, aws AKIAIOSFODNN7EXAMPLE, pw Tr0ub4dor&3-xyz, card again 4111111111111111"
        );
        let redacted = vault.redact(&text).into_owned();
        assert!(!redacted.contains("4111") && !redacted.contains("Tr0ub4dor") && !redacted.contains("eyJ"), "{redacted}");
        assert!(Vault::mentions_tokens(&redacted));
        // The second card form resolves to the first: compare digits there.
        let resolved = vault.resolve(&redacted).expect("all tokens were issued");
        assert_eq!(resolved, text.replace("4111111111111111", "4111-1111-1111-1111"));
        let single = "ssn 078-05-1120, iban DE89 3704 0044 0532 0130 00, key sk_live_4eC39HqLyjWDarjtT1zdp7dc";
        let mut vault = here();
        let redacted = vault.redact(single).into_owned();
        assert_eq!(vault.resolve(&redacted).as_deref(), Ok(single));
    }

    #[test]
    fn resolve_secret_references() {
        let mut vault = here();
        vault.add_secret("github", "s3cr3t-value");
        assert_eq!(vault.resolve("secret:github").as_deref(), Ok("s3cr3t-value"));
        assert_eq!(vault.resolve("  secret:github\n").as_deref(), Ok("s3cr3t-value"));
        assert_eq!(vault.resolve("user ‹secret:github› end").as_deref(), Ok("user s3cr3t-value end"));
        assert_eq!(vault.resolve("secret:gitlab"), Err(ResolveError::UnknownSecret("gitlab".to_owned())));
        assert_eq!(vault.resolve("x ‹secret:gitlab›"), Err(ResolveError::UnknownSecret("gitlab".to_owned())));
        // Only the whole text is a reference.
        assert_eq!(vault.resolve("my secret:foo").as_deref(), Ok("my secret:foo"));
        assert_eq!(vault.resolve("secret:github please").as_deref(), Ok("secret:github please"));
        assert_eq!(vault.resolve("secret:").as_deref(), Ok("secret:"));
    }

    #[test]
    fn tokens_are_typed_only_where_they_were_seen() {
        let mut vault = here();
        vault.add_secret("PIN", "from-the-file-1");
        vault.set_site(Some("www.bank.test"));
        assert_eq!(vault.redact("card 4111 1111 1111 1111"), "card ‹card:1›");
        vault.add_site_secret("password-1", "hunter2-hunter2");
        assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
        vault.set_site(Some("evil.test"));
        assert_eq!(vault.resolve("‹card:1›"), Err(ResolveError::OtherSite("‹card:1›".to_owned())));
        assert_eq!(vault.resolve("secret:password-1"), Err(ResolveError::OtherSite("secret:password-1".to_owned())));
        // The secrets file's values go wherever the person's model types them.
        assert_eq!(vault.resolve("secret:PIN").as_deref(), Ok("from-the-file-1"));
        // Seen on a second site (the card shown there too): typeable there.
        assert_eq!(vault.redact("4111111111111111"), "‹card:1›");
        assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
        // Research digests are no one page: nothing seen there is typeable.
        vault.set_site(None);
        assert_eq!(vault.redact("IBAN DE89 3704 0044 0532 0130 00"), "IBAN ‹iban:1›");
        vault.set_site(Some("bank.test"));
        assert_eq!(vault.resolve("‹iban:1›"), Err(ResolveError::OtherSite("‹iban:1›".to_owned())));
    }

    #[test]
    fn resolve_unknown_tokens() {
        let mut vault = here();
        vault.set_site(Some("shop.test"));
        vault.redact("4111111111111111");
        assert_eq!(vault.resolve("‹card:9›"), Err(ResolveError::UnknownToken("‹card:9›".to_owned())));
        assert_eq!(vault.resolve("a ‹card:0› b"), Err(ResolveError::UnknownToken("‹card:0›".to_owned())));
        assert_eq!(vault.resolve("‹card:01›"), Err(ResolveError::UnknownToken("‹card:01›".to_owned())));
        assert_eq!(vault.resolve("‹iban:1›"), Err(ResolveError::UnknownToken("‹iban:1›".to_owned())));
        assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111111111111111"));
        // Not token-shaped: typed as is.
        for text in ["‹foo:1›", "‹card:x›", "‹card:1", "‹card›", "‹›", "‹secret:›", "plain"] {
            assert_eq!(vault.resolve(text).as_deref(), Ok(text));
            assert!(!Vault::mentions_tokens(text), "{text}");
        }
    }

    #[test]
    fn mentions_tokens() {
        assert!(Vault::mentions_tokens("secret:github"));
        assert!(Vault::mentions_tokens(" secret:github "));
        assert!(Vault::mentions_tokens("pay ‹card:1› now"));
        assert!(Vault::mentions_tokens("‹secret:db›"));
        assert!(Vault::mentions_tokens("‹card:99›")); // refused by resolve, still a token
        assert!(!Vault::mentions_tokens("my secret:foo"));
        assert!(!Vault::mentions_tokens("4111 1111 1111 1111"));
    }

    #[test]
    fn error_messages() {
        assert_eq!(ResolveError::UnknownSecret("db".to_owned()).to_string(), "no secret named db in the secrets file");
        assert_eq!(ResolveError::UnknownToken("‹card:3›".to_owned()).to_string(), "‹card:3› was never issued in this session");
    }

    #[test]
    fn debug_shows_no_values() {
        let mut vault = here();
        vault.add_secret("bank", "very-secret-passphrase");
        vault.redact("4111111111111111 very-secret-passphrase");
        let debug = format!("{vault:?} {:#?}", vault.clone());
        assert!(!debug.contains("very-secret-passphrase") && !debug.contains("4111"), "{debug}");
        assert!(debug.contains("card"), "{debug}");
    }

    #[test]
    fn a_megabyte_of_ordinary_text_gets_no_tokens() {
        let paragraph = "On 2024-01-15 at 09:30 the order #A-1002003004 (ref 4829-1934-5567) shipped for $1,299.99 \
            plus 8.25% tax; call +1 415 555 0100 or 020 7946 0958, fax (212) 555-0199. ISBN 978-3-16-148410-0, \
            version 1.2.3-beta, ZIP 94103-1234, tracking 1Z999AA10123456784, invoice 2023 2024 2025 2026 totals \
            12 345 678 and 3.14159265358979323846. Prices: 19.99, 249.00, 1 299 €. The SKU-4471 desk-lamp sells \
            with risk-free returns; see https://shop.example/p/12345678/sku-desk-lamp?page=2&sort=price-asc. \
            Coordinates 37.7749, -122.4194; epoch 1718000000 and 1718000000123 ms; IP 192.168.100.254. \
            Das Konto DE-Nummer bleibt privat, say the AKIA docs and Eyjafjallajökull guides. ";
        let mut text = String::with_capacity(1 << 20);
        while text.len() < 1 << 20 {
            text.push_str(paragraph);
        }
        let mut vault = here();
        vault.add_secret("pw", "not-in-this-text");
        assert!(matches!(vault.redact(&text), Cow::Borrowed(_)));
        assert_eq!(vault.issued(), 0);
    }
}
