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

mod scan;
#[cfg(test)]
mod tests;

use scan::scan;

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
