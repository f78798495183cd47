//! Whitespace helpers shared by the stages (HTML's ASCII whitespace, CSS's
//! white-space collapsing).

/// HTML's ASCII whitespace: tab, LF, FF, CR, space.
#[inline]
pub(crate) fn is_html_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// Collapses runs of whitespace (HTML whitespace and other Unicode spaces
/// such as NBSP are kept as they are, except ASCII) into one space and trims
/// both ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_collapsed(&mut out, s);
    let trimmed_len = out.trim_end_matches(' ').len();
    out.truncate(trimmed_len);
    out
}

/// `s` with control characters (ESC, NUL, …; not the whitespace that
/// collapsing handles) turned into spaces: page text must not carry
/// terminal escapes or invisible controls to the model or a terminal.
/// (For text read whole, `one_line` does this and the collapsing
/// at once; this is for text appended piece by piece.)
pub(crate) fn without_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(|c| c.is_control() && !is_html_space(c)) {
        std::borrow::Cow::Owned(s.chars().map(|c| if c.is_control() && !is_html_space(c) { ' ' } else { c }).collect())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Appends `s` to `out` with whitespace runs collapsed to single spaces; a
/// leading run becomes a space only when `out` does not already end in one
/// (and `out` is not empty).
pub(crate) fn push_collapsed(out: &mut String, s: &str) {
    let mut pending_space = false;
    for c in s.chars() {
        if is_html_space(c) {
            pending_space = true;
        } else {
            if pending_space && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    if pending_space && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// Trims HTML whitespace from both ends.
#[inline]
pub(crate) fn trim_html(s: &str) -> &str {
    s.trim_matches(is_html_space)
}

/// Splits on HTML whitespace, skipping empty pieces (for token lists such as
/// `class`, `rel`, `aria-labelledby`).
pub(crate) fn split_html_space(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_html_space).filter(|t| !t.is_empty())
}

/// Truncates `s` to at most `max` chars, on a char boundary, appending `…`
/// when something was cut.
pub(crate) fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => {
            let mut out = s[..cut].trim_end().to_owned();
            out.push('…');
            out
        }
        None => s.to_owned(),
    }
}

/// Whether `c` separates words in page text shown on a line: any
/// whitespace (NBSP too) or control character.
#[inline]
pub(crate) fn separates_words(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Page text for one line: any whitespace or control character becomes a
/// space, runs collapse, ends are trimmed.
pub(crate) fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if separates_words(c) {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// 64-bit FNV-1a: a stable, dependency-free content hash for ids.
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_and_trims() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
        assert_eq!(collapse_whitespace(""), "");
        assert_eq!(collapse_whitespace(" \n "), "");
        assert_eq!(collapse_whitespace("a\u{a0}b"), "a\u{a0}b");
    }

    #[test]
    fn truncates_on_char_boundary() {
        assert_eq!(truncate_chars("héllo wörld", 5), "héllo…");
        assert_eq!(truncate_chars("short", 10), "short");
    }
}
