//! The properties that decide whether text can be seen at all once it has
//! a box: `color`, `background-color`/`background-image` (and the
//! `background` shorthand), `clip` and `clip-path`. The safety pass
//! (`crate::safety::conceal`) reads them; nothing else does.
//!
//! A colour whittle cannot read (`var()`, `color-mix()`, `oklch()` …) is
//! *unknown* (`None`), never guessed: text is concealed only on values
//! read for certain.

use cssparser::{Parser, Token};

/// A colour: red, green, blue, alpha (0–255 each).
pub type Rgba = [u8; 4];

/// Black, `color`'s initial value.
pub const BLACK: Rgba = [0, 0, 0, 255];
/// `transparent`, `background-color`'s initial value.
pub const TRANSPARENT: Rgba = [0, 0, 0, 0];

/// Parses a whole `<color>` value; `None` when it is not one whittle reads.
pub(crate) fn color(input: &mut Parser<'_>) -> Option<Rgba> {
    let c = one_color(input)?;
    input.expect_exhausted().ok()?;
    Some(c)
}

/// One `<color>` token (or function) from the input.
fn one_color(input: &mut Parser<'_>) -> Option<Rgba> {
    let token = input.next().ok()?.clone();
    match token {
        Token::Ident(name) => {
            let lower = name.to_ascii_lowercase();
            match lower.as_str() {
                "transparent" => Some(TRANSPARENT),
                _ => cssparser::color::parse_named_color(&lower).ok().map(|(r, g, b)| [r, g, b, 255]),
            }
        }
        Token::Hash(h) | Token::IDHash(h) => {
            cssparser::color::parse_hash_color(h.as_bytes()).ok().map(|(r, g, b, a)| [r, g, b, unit(a)])
        }
        Token::Function(name) => {
            let lower = name.to_ascii_lowercase();
            input
                .parse_nested_block(|args| {
                    let c = match lower.as_str() {
                        "rgb" | "rgba" => rgb(args),
                        "hsl" | "hsla" => hsl(args),
                        _ => None,
                    };
                    c.ok_or(cssparser::ParseError::<()>::custom(()))
                })
                .ok()
        }
        _ => None,
    }
}

fn unit(a: f32) -> u8 {
    (a.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The numbers of a colour function: comma- or space-separated, with an
/// optional alpha after `/` or a fourth comma.
fn numbers(args: &mut Parser<'_>) -> Option<Vec<(f32, bool)>> {
    let mut out = Vec::with_capacity(4);
    while !args.is_exhausted() {
        match args.next().ok()? {
            Token::Number { value, .. } => out.push((*value, false)),
            Token::Percentage { unit_value, .. } => out.push((*unit_value, true)),
            Token::Dimension { value, unit, .. } if unit.eq_ignore_ascii_case("deg") => out.push((*value, false)),
            Token::Comma | Token::Delim('/') => {}
            // `none`, `from`, `var()`: not read.
            _ => return None,
        }
    }
    matches!(out.len(), 3 | 4).then_some(out)
}

fn alpha(n: &[(f32, bool)]) -> u8 {
    n.get(3).map_or(255, |&(v, _)| unit(v))
}

fn rgb(args: &mut Parser<'_>) -> Option<Rgba> {
    let n = numbers(args)?;
    let channel = |(v, pct): (f32, bool)| if pct { unit(v) } else { v.clamp(0.0, 255.0).round() as u8 };
    Some([channel(n[0]), channel(n[1]), channel(n[2]), alpha(&n)])
}

fn hsl(args: &mut Parser<'_>) -> Option<Rgba> {
    let n = numbers(args)?;
    let h = n[0].0.rem_euclid(360.0) / 360.0;
    let s = if n[1].1 { n[1].0 } else { n[1].0 / 100.0 }.clamp(0.0, 1.0);
    let l = if n[2].1 { n[2].0 } else { n[2].0 / 100.0 }.clamp(0.0, 1.0);
    let q = if l < 0.5 { l * (1.0 + s) } else { l + s - l * s };
    let p = 2.0 * l - q;
    let hue = |t: f32| {
        let t = t.rem_euclid(1.0);
        let v = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        unit(v)
    };
    Some([hue(h + 1.0 / 3.0), hue(h), hue(h - 1.0 / 3.0), alpha(&n)])
}

/// The `background` shorthand: its colour (transparent when none is
/// given; unknown when a part cannot be read) and whether it paints an
/// image (`url()` or a gradient).
pub(crate) fn background(input: &mut Parser<'_>) -> (Option<Rgba>, bool) {
    let mut color = Some(TRANSPARENT);
    let mut image = false;
    while !input.is_exhausted() {
        let state = input.state();
        if let Some(c) = one_color(input) {
            color = Some(c);
            continue;
        }
        input.reset(&state);
        match input.next() {
            Ok(Token::UnquotedUrl(_)) => image = true,
            Ok(Token::Function(name)) => {
                let name = name.to_ascii_lowercase();
                if name == "url" || name.contains("gradient") || name == "image-set" || name == "image" {
                    image = true;
                } else {
                    // `var()` and friends: the colour could be anything.
                    color = None;
                    image = true;
                }
                let _ = input.parse_nested_block(|b| {
                    while b.next().is_ok() {}
                    Ok::<(), cssparser::ParseError<()>>(())
                });
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    (color, image)
}

/// `background-image`: whether it is anything but `none`.
pub(crate) fn background_image(input: &mut Parser<'_>) -> bool {
    let none = input.try_parse(|i| i.expect_ident_matching("none")).is_ok() && input.is_exhausted();
    if !none {
        while input.next().is_ok() {}
    }
    !none
}

/// A length in px for `clip: rect()`: `auto` is unbounded (`None`).
fn clip_edge(args: &mut Parser<'_>) -> Result<Option<f32>, ()> {
    match args.next().map_err(|_| ())? {
        // Only px is compared; other units leave the clip unread.
        Token::Dimension { value, unit, .. } if unit.eq_ignore_ascii_case("px") => Ok(Some(*value)),
        Token::Number { value, .. } if *value == 0.0 => Ok(Some(0.0)),
        Token::Ident(i) if i.eq_ignore_ascii_case("auto") => Ok(None),
        _ => Err(()),
    }
}

/// `clip`: whether it is a `rect()` with no area (`rect(0 0 0 0)`,
/// `rect(1px, 1px, 1px, 1px)`): nothing of the box is painted.
pub(crate) fn clip(input: &mut Parser<'_>) -> bool {
    if input.try_parse(|i| i.expect_function_matching("rect")).is_err() {
        while input.next().is_ok() {}
        return false;
    }
    input
        .parse_nested_block(|args| {
            let mut edges = [None; 4];
            for (i, edge) in edges.iter_mut().enumerate() {
                if i > 0 {
                    let _ = args.try_parse(|a| a.expect_comma());
                }
                *edge = clip_edge(args).map_err(|()| cssparser::ParseError::<()>::custom(()))?;
            }
            let [top, right, bottom, left] = edges;
            let empty = |a: Option<f32>, b: Option<f32>| matches!((a, b), (Some(a), Some(b)) if b - a <= 1.0);
            Ok(empty(top, bottom) || empty(left, right))
        })
        .unwrap_or(false)
}

/// `clip-path`: whether it clips everything away (`inset(50%)` or more,
/// a circle or ellipse of radius 0).
pub(crate) fn clip_path(input: &mut Parser<'_>) -> bool {
    let Ok(name) = input.expect_function().map(|n| n.to_ascii_lowercase()) else {
        while input.next().is_ok() {}
        return false;
    };
    input
        .parse_nested_block(|args| {
            let first = args.next().cloned();
            while args.next().is_ok() {}
            let hidden = match (name.as_str(), first) {
                ("inset", Ok(Token::Percentage { unit_value, .. })) => unit_value >= 0.5,
                ("circle" | "ellipse", Ok(Token::Number { value, .. } | Token::Dimension { value, .. })) => value == 0.0,
                ("circle" | "ellipse", Ok(Token::Percentage { unit_value, .. })) => unit_value == 0.0,
                _ => false,
            };
            Ok::<bool, cssparser::ParseError<()>>(hidden)
        })
        .unwrap_or(false)
}

/// `text-indent`: whether it moves the first line out of sight
/// (`-9999px`, the image-replacement trick): 500px or more to the left,
/// 5000px or more to the right, or a whole line's width (`-100%`).
pub(crate) fn text_indent_far(input: &mut Parser<'_>) -> bool {
    let far = match input.next() {
        Ok(Token::Dimension { value, .. }) => *value <= -500.0 || *value >= 5000.0,
        Ok(Token::Percentage { unit_value, .. }) => *unit_value <= -1.0,
        _ => false,
    };
    while input.next().is_ok() {}
    far
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<T>(css: &str, f: impl FnOnce(&mut Parser<'_>) -> T) -> T {
        let mut parser = Parser::new(css);
        f(&mut parser)
    }

    #[test]
    fn colours() {
        assert_eq!(with("white", color), Some([255, 255, 255, 255]));
        assert_eq!(with("#fff", color), Some([255, 255, 255, 255]));
        assert_eq!(with("#00000080", color), Some([0, 0, 0, 128]));
        assert_eq!(with("rgb(10, 20, 30)", color), Some([10, 20, 30, 255]));
        assert_eq!(with("rgba(10, 20, 30, 0)", color), Some([10, 20, 30, 0]));
        assert_eq!(with("rgb(10 20 30 / 50%)", color), Some([10, 20, 30, 128]));
        assert_eq!(with("hsl(0, 100%, 50%)", color), Some([255, 0, 0, 255]));
        assert_eq!(with("transparent", color), Some(TRANSPARENT));
        assert_eq!(with("var(--fg)", color), None);
        assert_eq!(with("oklch(70% 0.1 200)", color), None);
        assert_eq!(with("currentcolor", color), None);
    }

    #[test]
    fn backgrounds() {
        assert_eq!(with("#222 url(x.png) no-repeat", background), (Some([34, 34, 34, 255]), true));
        assert_eq!(with("white", background), (Some([255, 255, 255, 255]), false));
        assert_eq!(with("linear-gradient(red, blue)", background), (Some(TRANSPARENT), true));
        assert_eq!(with("var(--bg)", background).0, None);
        assert!(with("url(a.png)", background_image));
        assert!(!with("none", background_image));
    }

    #[test]
    fn clips() {
        assert!(with("rect(0 0 0 0)", clip));
        assert!(with("rect(1px, 1px, 1px, 1px)", clip));
        assert!(!with("rect(0, 100px, 50px, 0)", clip));
        assert!(!with("auto", clip));
        assert!(!with("rect(auto, auto, auto, auto)", clip));
        assert!(!with("rect(0 1em 1em 0)", clip));
        assert!(with("inset(50%)", clip_path));
        assert!(with("circle(0)", clip_path));
        assert!(!with("inset(10%)", clip_path));
        assert!(!with("none", clip_path));
        assert!(!with("url(#mask)", clip_path));
        assert!(with("-9999px", text_indent_far));
        assert!(with("-100%", text_indent_far));
        assert!(!with("2em", text_indent_far));
        assert!(!with("-1em", text_indent_far));
    }
}
