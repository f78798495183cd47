//! Sensitive fields: controls whose value must never leave the machine
//! (docs/privacy.md). Found by input type, by `autocomplete` tokens, and by the
//! hints a page gives a person (name, id, placeholder, label).

use html5ever::local_name;

use crate::dom::form::input_type;
use crate::dom::Element;

/// The kind of secret a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Sensitive {
    /// A password.
    Password,
    /// A payment card number.
    Card,
    /// A card security code.
    Cvc,
    /// A card expiry date.
    Expiry,
    /// A one-time code (2FA, SMS, e-mail verification).
    Otp,
    /// A national identity or tax number (US SSN, UK National Insurance
    /// number, tax ids).
    Ssn,
}

impl Sensitive {
    /// The word shown after `⚿`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sensitive::Password => "password",
            Sensitive::Card => "card",
            Sensitive::Cvc => "cvc",
            Sensitive::Expiry => "expiry",
            Sensitive::Otp => "otp",
            Sensitive::Ssn => "ssn",
        }
    }
}

/// Which autocomplete token means which kind (HTML §4.10.18.7.1).
fn from_autocomplete(value: &str) -> Option<Sensitive> {
    crate::text::split_html_space(value).find_map(|t| {
        Some(match t.to_ascii_lowercase().as_str() {
            "current-password" | "new-password" => Sensitive::Password,
            "cc-number" => Sensitive::Card,
            "cc-csc" => Sensitive::Cvc,
            "cc-exp" | "cc-exp-month" | "cc-exp-year" => Sensitive::Expiry,
            "one-time-code" => Sensitive::Otp,
            _ => return None,
        })
    })
}

/// Kinds by the words a page uses for the field. The patterns are matched
/// on a lower-cased string with `-`, `_` and `.` turned into spaces.
fn from_hint(hint: &str) -> Option<Sensitive> {
    let h: String = hint
        .chars()
        .map(|c| if matches!(c, '-' | '_' | '.' | '[' | ']') { ' ' } else { c.to_ascii_lowercase() })
        .collect();
    let words: Vec<&str> = h.split_whitespace().collect();
    let has_word = |w: &str| words.contains(&w);
    let has = |p: &str| h.contains(p);
    if has("card number") || has("cardnumber") || has("ccnumber") || has("cc number") || has("credit card")
        || has("kartennummer") || has("numero de carte") || has("número de tarjeta")
    {
        return Some(Sensitive::Card);
    }
    if has_word("cvc") || has_word("cvv") || has_word("cvv2") || has_word("csc") || has_word("cid")
        || has("security code") || has("card code") || has("card verification")
    {
        return Some(Sensitive::Cvc);
    }
    if has("expiry") || has("expiration") || has("exp date") || has("expdate") || has("mm/yy") || has("mm / yy")
        || has("mm/yyyy") || has("cc exp")
    {
        return Some(Sensitive::Expiry);
    }
    if has("one time") || has("onetime") || has_word("otp") || has_word("totp") || has_word("2fa")
        || has("verification code") || has("auth code") || has("authentication code") || has("passcode")
        || has("security pin") || has("sms code")
    {
        return Some(Sensitive::Otp);
    }
    if has("social security") || has_word("ssn") || has("national insurance") || has("tax identification")
        || has_word("itin") || has("taxpayer id") || has("sozialversicherungsnummer") || has("numéro de sécurité sociale")
    {
        return Some(Sensitive::Ssn);
    }
    if has("password") || has_word("passwd") || has_word("pwd") {
        return Some(Sensitive::Password);
    }
    None
}

/// The sensitive kind of a text-entry control, if any. `name` is its
/// accessible name (which carries its label's words).
pub(crate) fn sensitive_kind(e: &Element, name: &str) -> Option<Sensitive> {
    let text_entry = if e.is_html(&local_name!("input")) {
        let kind = input_type(e);
        if kind == "password" {
            return Some(Sensitive::Password);
        }
        matches!(kind, "text" | "tel" | "number" | "search" | "email" | "url")
    } else {
        e.is_html(&local_name!("textarea"))
    };
    if !text_entry {
        return None;
    }
    if let Some(kind) = e.attr("autocomplete").and_then(from_autocomplete) {
        return Some(kind);
    }
    ["name", "id", "placeholder", "aria-label", "data-testid"]
        .iter()
        .filter_map(|a| e.attr(a))
        .chain(std::iter::once(name))
        .find_map(from_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints() {
        assert_eq!(from_hint("Card number"), Some(Sensitive::Card));
        assert_eq!(from_hint("cc_number"), Some(Sensitive::Card));
        assert_eq!(from_hint("CVV"), Some(Sensitive::Cvc));
        assert_eq!(from_hint("Expiry (MM/YY)"), Some(Sensitive::Expiry));
        assert_eq!(from_hint("Enter the 6-digit verification code"), Some(Sensitive::Otp));
        assert_eq!(from_hint("Email"), None);
        assert_eq!(from_hint("Discount code"), None);
        assert_eq!(from_hint("Social Security Number"), Some(Sensitive::Ssn));
        assert_eq!(from_hint("ssn"), Some(Sensitive::Ssn));
        assert_eq!(from_hint("lesson plan"), None);
        // Words, not substrings: "cid" inside "decide" is not a CVC.
        assert_eq!(from_hint("decide later"), None);
    }

    #[test]
    fn autocomplete_tokens() {
        assert_eq!(from_autocomplete("section-pay billing cc-number"), Some(Sensitive::Card));
        assert_eq!(from_autocomplete("one-time-code"), Some(Sensitive::Otp));
        assert_eq!(from_autocomplete("email"), None);
    }
}
