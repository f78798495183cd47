//! `@media` queries (Media Queries 4) and `@supports` conditions, evaluated
//! against whittle's viewport: a screen of the given size, 1 dppx, fine
//! pointer that can hover, light colour scheme, no reduced motion.
//!
//! A query whittle cannot read, or a feature it does not know, is false, as
//! Media Queries 4 §3.2 asks for unknown features.

use cssparser::{Parser, Token};

use super::values::{Length, length, resolve_length};

/// The environment queries are asked about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MediaEnv {
    pub(crate) width: f32,
    pub(crate) height: f32,
    pub(crate) scripting: bool,
}

/// Evaluates a media query list (`screen and (min-width: 600px), print`).
/// An empty list is true.
pub(crate) fn matches_media_list(text: &str, env: &MediaEnv) -> bool {
    let mut input = Parser::new(text);
    matches_media_list_in(&mut input, env)
}

pub(crate) fn matches_media_list_in(input: &mut Parser<'_>, env: &MediaEnv) -> bool {
    if input.is_exhausted() {
        return true;
    }
    let mut any = false;
    loop {
        let matched = input
            .parse_until_before(cssparser::Delimiter::Comma, |i| {
                Ok::<_, cssparser::ParseError<()>>(media_query(i, env).unwrap_or(false))
            })
            .unwrap_or(false);
        any |= matched;
        match input.next() {
            Ok(Token::Comma) => continue,
            _ => return any,
        }
    }
}

/// One query: `[not|only]? type [and condition]?` or a bare condition.
fn media_query(input: &mut Parser<'_>, env: &MediaEnv) -> Option<bool> {
    let state = input.state();
    if let Ok(ident) = input.expect_ident().map(|s| s.to_ascii_lowercase()) {
        let (negate, media_type) = match ident.as_str() {
            "not" => (true, input.expect_ident().ok()?.to_ascii_lowercase()),
            "only" => (false, input.expect_ident().ok()?.to_ascii_lowercase()),
            _ => (false, ident),
        };
        let type_matches = match media_type.as_str() {
            "all" | "screen" => true,
            "print" | "speech" | "tty" | "tv" | "projection" | "handheld" | "braille" | "embossed"
            | "aural" => false,
            // `not (...)` as a condition rather than a type.
            _ if negate && media_type.is_empty() => false,
            _ => return None,
        };
        let rest = if input.try_parse(|i| i.expect_ident_matching("and")).is_ok() {
            condition(input, env, false)?
        } else {
            true
        };
        input.expect_exhausted().ok()?;
        let result = type_matches && rest;
        return Some(if negate { !result } else { result });
    }
    input.reset(&state);
    let result = condition(input, env, true)?;
    input.expect_exhausted().ok()?;
    Some(result)
}

/// `<media-condition>`: `not X`, `X and Y and …`, `X or Y or …`.
fn condition(input: &mut Parser<'_>, env: &MediaEnv, allow_or: bool) -> Option<bool> {
    if input.try_parse(|i| i.expect_ident_matching("not")).is_ok() {
        return in_parens(input, env).map(|v| !v);
    }
    let mut value = in_parens(input, env)?;
    let mut joiner: Option<bool> = None; // Some(true) = and, Some(false) = or
    loop {
        let is_and = if input.try_parse(|i| i.expect_ident_matching("and")).is_ok() {
            true
        } else if allow_or && input.try_parse(|i| i.expect_ident_matching("or")).is_ok() {
            false
        } else {
            return Some(value);
        };
        if joiner.is_some_and(|j| j != is_and) {
            return None; // mixing and/or without parentheses is invalid
        }
        joiner = Some(is_and);
        let next = in_parens(input, env)?;
        value = if is_and { value && next } else { value || next };
    }
}

/// `( condition )` or `( feature )`.
fn in_parens(input: &mut Parser<'_>, env: &MediaEnv) -> Option<bool> {
    input.expect_parenthesis_block().ok()?;
    input
        .parse_nested_block(|i| {
            let state = i.state();
            if let Some(v) = condition(i, env, true)
                && i.is_exhausted()
            {
                return Ok(v);
            }
            i.reset(&state);
            feature(i, env).ok_or(cssparser::ParseError::<()>::custom(()))
        })
        .ok()
}

fn feature(input: &mut Parser<'_>, env: &MediaEnv) -> Option<bool> {
    let state = input.state();
    // `name`, `name: value`, or `name op value`.
    if let Ok(name) = input.expect_ident().map(|s| s.to_ascii_lowercase()) {
        if input.is_exhausted() {
            return boolean_feature(&name, env);
        }
        if input.try_parse(|i| i.expect_colon()).is_ok() {
            return plain_feature(&name, input, env);
        }
        let op = comparison(input)?;
        let value = any_number(input, env)?;
        let actual = range_value(&name, env)?;
        input.expect_exhausted().ok()?;
        return Some(compare(actual, op, value));
    }
    // `value op name [op value]`.
    input.reset(&state);
    let left = any_number(input, env)?;
    let op1 = comparison(input)?;
    let name = input.expect_ident().ok()?.to_ascii_lowercase();
    let actual = range_value(&name, env)?;
    let first = compare(left, op1, actual);
    if input.is_exhausted() {
        return Some(first);
    }
    let op2 = comparison(input)?;
    let right = any_number(input, env)?;
    Some(first && compare(actual, op2, right))
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

fn comparison(input: &mut Parser<'_>) -> Option<Op> {
    let first = match input.next().ok()? {
        Token::Delim('<') => '<',
        Token::Delim('>') => '>',
        Token::Delim('=') => return Some(Op::Eq),
        _ => return None,
    };
    let with_eq = input
        .try_parse(|i| match i.next_including_whitespace() {
            Ok(Token::Delim('=')) => Ok(()),
            _ => Err(cssparser::ParseError::<()>::custom(())),
        })
        .is_ok();
    Some(match (first, with_eq) {
        ('<', false) => Op::Lt,
        ('<', true) => Op::Le,
        ('>', false) => Op::Gt,
        _ => Op::Ge,
    })
}

fn compare(left: f32, op: Op, right: f32) -> bool {
    match op {
        Op::Lt => left < right,
        Op::Le => left <= right,
        Op::Gt => left > right,
        Op::Ge => left >= right,
        Op::Eq => (left - right).abs() < 1e-3,
    }
}

/// The environment's value of a range feature.
fn range_value(name: &str, env: &MediaEnv) -> Option<f32> {
    Some(match name {
        "width" | "device-width" => env.width,
        "height" | "device-height" => env.height,
        "aspect-ratio" | "device-aspect-ratio" => env.width / env.height.max(1.0),
        "resolution" | "-webkit-device-pixel-ratio" | "device-pixel-ratio" => 1.0,
        "color" => 8.0,
        "color-index" | "monochrome" | "grid" => 0.0,
        _ => return None,
    })
}

fn any_number(input: &mut Parser<'_>, env: &MediaEnv) -> Option<f32> {
    let token = input.next().ok()?.clone();
    token_number(&token, input, env)
}

fn token_number(token: &Token<'_>, input: &mut Parser<'_>, env: &MediaEnv) -> Option<f32> {
    match token {
        Token::Number { value, .. } => {
            // A ratio `16 / 9`.
            if input.try_parse(|i| i.expect_delim('/')).is_ok() {
                let Token::Number { value: den, .. } = input.next().ok()?.clone() else { return None };
                return Some(value / den.max(f32::MIN_POSITIVE));
            }
            Some(*value)
        }
        Token::Dimension { value, unit, .. } => {
            let unit = unit.to_ascii_lowercase();
            match unit.as_str() {
                "dppx" | "x" => Some(*value),
                "dpi" => Some(value / 96.0),
                "dpcm" => Some(value * 2.54 / 96.0),
                _ => length(token).map(|l: Length| resolve_length(l, 16.0, 16.0, 0.0, (env.width, env.height))),
            }
        }
        _ => None,
    }
}

fn plain_feature(name: &str, input: &mut Parser<'_>, env: &MediaEnv) -> Option<bool> {
    let (prefix, base) = if let Some(b) = name.strip_prefix("min-") {
        (Some(Op::Ge), b)
    } else if let Some(b) = name.strip_prefix("max-") {
        (Some(Op::Le), b)
    } else if let Some(b) = name.strip_prefix("-webkit-min-") {
        (Some(Op::Ge), b)
    } else if let Some(b) = name.strip_prefix("-webkit-max-") {
        (Some(Op::Le), b)
    } else {
        (None, name)
    };
    if let Some(actual) = range_value(base, env) {
        let value = any_number(input, env)?;
        input.expect_exhausted().ok()?;
        return Some(compare(actual, prefix.unwrap_or(Op::Eq), value));
    }
    if prefix.is_some() {
        return None;
    }
    let value = input.expect_ident().ok()?.to_ascii_lowercase();
    input.expect_exhausted().ok()?;
    Some(match name {
        "orientation" => (value == "landscape") == (env.width >= env.height),
        "prefers-color-scheme" => value == "light",
        "prefers-reduced-motion" | "prefers-reduced-transparency" | "prefers-reduced-data"
        | "prefers-contrast" => value == "no-preference",
        "hover" | "any-hover" => value == "hover",
        "pointer" | "any-pointer" => value == "fine",
        "display-mode" => value == "browser",
        "forced-colors" | "inverted-colors" => value == "none",
        "scripting" => value == if env.scripting { "enabled" } else { "none" },
        "update" => value == "fast",
        "overflow-block" => value == "scroll",
        "overflow-inline" => value == "scroll",
        "color-gamut" => value == "srgb",
        "dynamic-range" | "video-dynamic-range" => value == "standard",
        _ => return None,
    })
}

fn boolean_feature(name: &str, env: &MediaEnv) -> Option<bool> {
    Some(match name {
        "color" | "hover" | "any-hover" | "pointer" | "any-pointer" | "width" | "height" | "update" => true,
        "monochrome" | "grid" | "color-index" | "inverted-colors" | "forced-colors" => false,
        "scripting" => env.scripting,
        "prefers-reduced-motion" | "prefers-contrast" | "prefers-reduced-transparency" => false,
        _ => return None,
    })
}

/// Evaluates an `@supports` condition. whittle claims every property and
/// selector a current browser supports: a declaration test is true when it
/// is well formed, `selector()` is true when it parses.
pub(crate) fn supports(input: &mut Parser<'_>) -> bool {
    supports_condition(input).unwrap_or(false)
}

/// Evaluates the argument of `@import … supports(…)`: a condition or a
/// bare declaration.
pub(crate) fn supports_function(input: &mut Parser<'_>) -> bool {
    let state = input.state();
    if let Some(v) = supports_condition(input) {
        return v;
    }
    input.reset(&state);
    declaration_supported(input)
}

/// `property: value`: supported when Chromium knows the property (see
/// `known.rs`) and, for `display` and `position`, whose values whittle
/// knows them all, when the value is one of them.
fn declaration_supported(input: &mut Parser<'_>) -> bool {
    let Ok(name) = input.expect_ident().map(|n| n.to_ascii_lowercase()) else { return false };
    if input.expect_colon().is_err() {
        return false;
    }
    let start = input.position();
    while input.next().is_ok() {}
    let value = input.slice_from(start).trim();
    if value.is_empty() {
        return false;
    }
    if name.starts_with("--") {
        return true;
    }
    if super::known::PROPERTIES.binary_search(&name.as_str()).is_err() {
        return false;
    }
    if (name == "display" || name == "position") && !super::sheet::has_var(value) {
        return super::sheet::parse_substituted(&name, value, &mut Vec::new());
    }
    true
}

fn supports_condition(input: &mut Parser<'_>) -> Option<bool> {
    if input.try_parse(|i| i.expect_ident_matching("not")).is_ok() {
        return supports_in_parens(input).map(|v| !v);
    }
    let mut value = supports_in_parens(input)?;
    loop {
        if input.try_parse(|i| i.expect_ident_matching("and")).is_ok() {
            let next = supports_in_parens(input)?;
            value = value && next;
        } else if input.try_parse(|i| i.expect_ident_matching("or")).is_ok() {
            let next = supports_in_parens(input)?;
            value = value || next;
        } else {
            return input.is_exhausted().then_some(value);
        }
    }
}

fn supports_in_parens(input: &mut Parser<'_>) -> Option<bool> {
    match input.next().ok()?.clone() {
        Token::ParenthesisBlock => input
            .parse_nested_block(|i| {
                let state = i.state();
                if let Some(v) = supports_condition(i) {
                    return Ok(v);
                }
                i.reset(&state);
                Ok::<_, cssparser::ParseError<()>>(declaration_supported(i))
            })
            .ok(),
        Token::Function(name) => {
            let name = name.to_ascii_lowercase();
            input
                .parse_nested_block(|i| {
                    Ok::<_, cssparser::ParseError<()>>(match name.as_str() {
                        "selector" => super::select::parse_selector_list(i, false).is_ok(),
                        _ => {
                            while i.next().is_ok() {}
                            false
                        }
                    })
                })
                .ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENV: MediaEnv = MediaEnv { width: 1280.0, height: 800.0, scripting: true };

    #[test]
    fn media_lists() {
        for (q, want) in [
            ("", true),
            ("screen", true),
            ("print", false),
            ("print, screen", true),
            ("not print", true),
            ("only screen and (min-width: 768px)", true),
            ("screen and (max-width: 767.98px)", false),
            ("(min-width: 40em)", true),
            ("(max-width: 80em)", true),
            ("(width >= 1200px)", true),
            ("(400px <= width <= 700px)", false),
            ("(orientation: landscape)", true),
            ("(prefers-color-scheme: dark)", false),
            ("(prefers-reduced-motion: reduce)", false),
            ("(hover: hover) and (pointer: fine)", true),
            ("(min-width: 600px) or (max-width: 100px)", true),
            ("not (min-width: 600px)", false),
            ("(min-aspect-ratio: 16/9)", false),
            ("(-webkit-min-device-pixel-ratio: 2)", false),
            ("(unknown-feature: 1)", false),
            ("screen and (((", false),
        ] {
            assert_eq!(matches_media_list(q, &ENV), want, "{q}");
        }
    }

    #[test]
    fn supports_conditions() {
        for (q, want) in [
            ("(display: grid)", true),
            ("not (display: grid)", false),
            ("(display: grid) and (gap: 1px)", true),
            ("selector(:is(a))", true),
            ("font-tech(color-COLRv1)", false),
        ] {
            let mut p = Parser::new(q);
            assert_eq!(supports(&mut p), want, "{q}");
        }
    }
}
