//! Safety: what keeps page-written text from steering the model or leaking
//! what must stay on the machine (docs/observation.md, docs/privacy.md).
//!
//! - [`tokens`]: values in page text that look like secrets (card numbers
//!   passing Luhn, JWTs, API keys, SSNs, IBANs) become numbered tokens
//!   (`‹card:1›`) through a per-session [`Vault`], which also resolves the
//!   tokens the model types back.
//! - [`injection`]: whether text reads like instructions to an AI agent,
//!   invisible Unicode (tag characters, zero-width runs, bidi controls),
//!   and bot challenges.

pub mod conceal;
pub mod injection;
pub mod tokens;

pub use tokens::{ResolveError, TokenKind, Vault};

/// Text as it may leave for the model: what a person cannot read taken out
/// ([`conceal::readable`]), then secret-looking values replaced by
/// `vault`'s tokens. Borrowed when nothing changed.
pub fn private<'a>(vault: &mut Vault, text: &'a str) -> std::borrow::Cow<'a, str> {
    match conceal::readable(text).text {
        std::borrow::Cow::Borrowed(b) => vault.redact(b),
        std::borrow::Cow::Owned(o) => std::borrow::Cow::Owned(vault.redact(&o).into_owned()),
    }
}
