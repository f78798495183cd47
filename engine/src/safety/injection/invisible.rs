//! Invisible Unicode: tag characters (and what they spell), zero-width
//! runs and bidi controls, removed from text in one pass; text without
//! any is borrowed, not copied.

use std::borrow::Cow;

/// Text with invisible characters removed (see [`strip_invisible`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped<'a> {
    /// The text without them; borrowed when nothing was removed.
    pub text: Cow<'a, str>,
    /// How many characters were removed.
    pub removed: usize,
    /// What the removed Unicode tag characters spelled, decoded to ASCII
    /// (separate runs joined by a space); empty when there were none. Run
    /// [`reads_like_instructions`](super::reads_like_instructions) on it.
    pub hidden_text: String,
}

/// What a character is to [`strip_invisible`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invisible {
    /// Seen by a person.
    No,
    /// A Unicode tag character (U+E0000–U+E007F) outside an emoji flag.
    Tag,
    /// Always removed: U+200B, U+2060–U+2064, U+FEFF, U+180E, bidi
    /// embeddings, overrides and isolates.
    Always,
    /// ZWNJ, ZWJ: kept alone between two visible non-ASCII characters.
    Joiner,
    /// LRM, RLM: kept alone.
    Mark,
}

fn invisible(c: char) -> Invisible {
    match c {
        '\u{200B}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Invisible::Always,
        '\u{200C}' | '\u{200D}' => Invisible::Joiner,
        '\u{200E}' | '\u{200F}' => Invisible::Mark,
        '\u{E0000}'..='\u{E007F}' => Invisible::Tag,
        _ => Invisible::No,
    }
}

/// Whether the UTF-8 bytes at `i` (a lead byte 0xE1, 0xE2, 0xEF or 0xF3)
/// start one of the characters [`invisible`] knows.
fn candidate_at(b: &[u8], i: usize) -> bool {
    match b[i] {
        0xE2 => matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(0x80), Some(0x8B..=0x8F | 0xAA..=0xAE)) | (Some(0x81), Some(0xA0..=0xA4 | 0xA6..=0xA9))
        ),
        0xEF => b.get(i + 1..i + 3) == Some(&[0xBB, 0xBF]),
        0xF3 => b.get(i + 1) == Some(&0xA0) && matches!(b.get(i + 2), Some(0x80 | 0x81)),
        0xE1 => b.get(i + 1..i + 3) == Some(&[0xA0, 0x8E]),
        _ => false,
    }
}

/// The byte offset of the first invisible character, if any.
fn first_invisible(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.is_ascii() {
        return None;
    }
    let first = memchr::memchr3_iter(0xE2, 0xEF, 0xF3, b).find(|&i| candidate_at(b, i));
    let mongolian = memchr::memchr_iter(0xE1, &b[..first.unwrap_or(b.len())]).find(|&i| candidate_at(b, i));
    match (first, mongolian) {
        (Some(a), Some(m)) => Some(a.min(m)),
        (a, m) => a.or(m),
    }
}

/// The tag characters of an emoji flag (`🏴` then lower-case letters and
/// digits as tags, then U+E007F CANCEL TAG): their count including the
/// cancel tag, if `chars` (just after the `🏴`) starts with one. Longer or
/// other tag runs after a `🏴` are hidden text, not a flag.
fn flag_tags(chars: &[char]) -> Option<usize> {
    let n = chars.iter().take(9).take_while(|&&c| matches!(c, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}')).count();
    ((2..=8).contains(&n) && chars.get(n) == Some(&'\u{E007F}')).then_some(n + 1)
}

/// Appends what tag character `c` stands for (printable ASCII; tab and line
/// breaks as spaces).
fn decode_tag(c: char, out: &mut String) {
    let ascii = (c as u32).wrapping_sub(0xE0000);
    match ascii {
        0x20..=0x7E => out.push(char::from(ascii as u8)),
        0x09 | 0x0A | 0x0D => out.push(' '),
        _ => {}
    }
}

/// Removes Unicode a person cannot see but a model reads:
///
/// - tag characters U+E0000–U+E007F (they spell ASCII: U+E0041 is `A`;
///   decoded into [`Stripped::hidden_text`]), except in emoji flag
///   sequences (`🏴` followed by 2–8 lower-case letter or digit tags and
///   U+E007F, as in 🏴󠁧󠁢󠁳󠁣󠁴󠁿);
/// - zero-width characters U+200B, U+2060, U+FEFF, U+180E, the invisible
///   math operators U+2061–U+2064;
/// - bidi embeddings and overrides U+202A–U+202E and isolates
///   U+2066–U+2069;
/// - ZWNJ and ZWJ (U+200C, U+200D), unless alone between two visible
///   non-ASCII characters (Persian, Indic scripts, 👨‍👩‍👧);
/// - LRM and RLM (U+200E, U+200F), only in runs of two or more of the
///   characters above.
///
/// Borrows the text when nothing is removed; pure ASCII and text without
/// any of these code points are checked on bytes only.
pub fn strip_invisible(text: &str) -> Stripped<'_> {
    let unchanged = || Stripped { text: Cow::Borrowed(text), removed: 0, hidden_text: String::new() };
    let Some(first) = first_invisible(text) else {
        return unchanged();
    };
    // Start at the character before the first invisible one: the joiner rule
    // looks at its neighbours.
    let base = text[..first].char_indices().next_back().map_or(0, |(i, _)| i);
    let chars: Vec<char> = text[base..].chars().collect();
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..base]);
    let mut removed = 0;
    let mut hidden_text = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\u{1F3F4}'
            && let Some(n) = flag_tags(&chars[i + 1..])
        {
            out.extend(&chars[i..=i + n]);
            i += n + 1;
            continue;
        }
        if invisible(c) == Invisible::No {
            out.push(c);
            i += 1;
            continue;
        }
        let end = i + chars[i..].iter().take_while(|&&c| invisible(c) != Invisible::No).count();
        let alone = end - i == 1;
        let visible_non_ascii = |c: Option<&char>| c.is_some_and(|&c| !c.is_ascii() && !c.is_whitespace() && invisible(c) == Invisible::No);
        let mut tags_started = false;
        for &c in &chars[i..end] {
            let keep = match invisible(c) {
                Invisible::Joiner => alone && i > 0 && visible_non_ascii(chars.get(i - 1)) && visible_non_ascii(chars.get(end)),
                Invisible::Mark => alone,
                Invisible::Tag => {
                    if !tags_started && !hidden_text.is_empty() && !hidden_text.ends_with(' ') {
                        hidden_text.push(' ');
                    }
                    tags_started = true;
                    decode_tag(c, &mut hidden_text);
                    false
                }
                Invisible::Always | Invisible::No => false,
            };
            if keep {
                out.push(c);
            } else {
                removed += 1;
            }
        }
        i = end;
    }
    if removed == 0 {
        return unchanged();
    }
    Stripped { text: Cow::Owned(out), removed, hidden_text }
}
