//! The deterministic text-measure model: no fonts, only arithmetic.
//!
//! A run of text is `width` px wide on one line: each character advances
//! [`ADVANCE`] × its font size. Given a box width it wraps into
//! `ceil(width / box)` lines of `line_height` px; its narrowest possible
//! width (min-content) is its longest word. The same input always gives
//! the same boxes, on every machine.

use taffy::{AvailableSpace, Size};

/// Average advance of a character, in ems (between a serif and a sans
/// default font's average over English text, spaces included).
pub const ADVANCE: f32 = 0.43;

/// `line-height: normal`, in ems.
pub const NORMAL_LINE_HEIGHT: f32 = 1.15;

/// A measured run of text (or an atomic box with a fixed size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Leaf {
    /// Text: its one-line width, its longest word, its line height, and
    /// whether it may wrap.
    Text {
        width: f32,
        longest_word: f32,
        line_height: f32,
        lines: u32,
        wraps: bool,
    },
    /// A replaced box (image, video, frame) of an intrinsic size that
    /// keeps its aspect ratio; `shrink`: CSS caps its width (`max-width`),
    /// so it also narrows to the space available.
    Replaced { width: f32, height: f32, shrink: bool },
}

impl Leaf {
    /// The size taffy asks for.
    pub(crate) fn measure(
        &self,
        known: Size<Option<f32>>,
        available: Size<AvailableSpace>,
    ) -> Size<f32> {
        match *self {
            Leaf::Replaced { width, height, shrink } => {
                let ratio = height / width;
                match (known.width, known.height) {
                    (Some(w), Some(h)) => Size { width: w, height: h },
                    (Some(w), None) => Size { width: w, height: w * ratio },
                    (None, Some(h)) => Size { width: h / ratio, height: h },
                    (None, None) => {
                        let w = match available.width {
                            AvailableSpace::Definite(a) if shrink => width.min(a.max(0.0)),
                            AvailableSpace::MinContent if shrink => 0.0,
                            _ => width,
                        };
                        Size { width: w, height: w * ratio }
                    }
                }
            }
            Leaf::Text {
                width,
                longest_word,
                line_height,
                lines,
                wraps,
            } => {
                let box_width = known.width.unwrap_or(match available.width {
                    AvailableSpace::Definite(w) => w,
                    AvailableSpace::MinContent => {
                        if wraps {
                            longest_word
                        } else {
                            width
                        }
                    }
                    AvailableSpace::MaxContent => width,
                });
                let box_width = box_width.max(0.0);
                // Shrink-to-fit boxes are measured at exactly their text's
                // width: a rounding hair over it is still one line.
                let wrapped = if wraps && width > box_width + 0.5 && box_width > 0.0 {
                    // Wrapping at word boundaries wastes part of each line.
                    ((width * 1.05) / box_width).ceil().min(1e6) as u32
                } else {
                    1
                };
                let lines = wrapped.max(lines).max(1);
                let w = if lines > 1 && wraps {
                    box_width.max(longest_word.min(width))
                } else {
                    width
                };
                Size {
                    width: known.width.unwrap_or(w),
                    height: known.height.unwrap_or(lines as f32 * line_height),
                }
            }
        }
    }
}

/// Counts a text node the way it would be shown: whitespace runs collapse
/// to one space unless `keep_spaces`. Returns (characters, longest word in
/// characters, forced line breaks, leading space, trailing space).
pub(crate) fn count(text: &str, keep_spaces: bool) -> TextCount {
    if keep_spaces { count_preserved(text) } else { count_collapsed(text) }
}

/// Whitespace collapses. Reads bytes, not chars (this is layout's hot
/// path): a UTF-8 continuation byte belongs to the character before it.
/// Branch-free per byte: words and spaces alternate every few bytes, and a
/// branch on each would be mispredicted at every turn.
fn count_collapsed(text: &str) -> TextCount {
    let bytes = text.as_bytes();
    let (mut shown, mut runs, mut word, mut longest_word) = (0usize, 0usize, 0usize, 0usize);
    // 1 after a space, 0 after anything else.
    let mut in_space = 0usize;
    for &b in bytes {
        let space = usize::from(SPACES[usize::from(b)]);
        let starts_char = (space ^ 1) & usize::from(b & 0xC0 != 0x80);
        runs += space & (in_space ^ 1);
        shown += starts_char;
        // A space ends the word: the mask is all ones only after others.
        word = (word + starts_char) & space.wrapping_sub(1);
        longest_word = longest_word.max(word);
        in_space = space;
    }
    // Each run of spaces shows as one, but for a leading one.
    let leading_space = bytes.first().is_some_and(u8::is_ascii_whitespace);
    let chars = shown + runs - usize::from(leading_space);
    TextCount {
        chars,
        longest_word,
        breaks: 0,
        longest_line: chars,
        leading_space,
        // The counted trailing space belongs between this and what follows.
        trailing_space: in_space == 1 && chars > 0,
    }
}

/// Per byte: ASCII white space (as [`u8::is_ascii_whitespace`]), read
/// from a table so that the test compiles to no branch.
static SPACES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_whitespace();
        b += 1;
    }
    t
};

/// Whitespace kept (`pre`): newlines are forced breaks.
fn count_preserved(text: &str) -> TextCount {
    let mut c = TextCount::default();
    let mut word = 0usize;
    let mut line = 0usize;
    for ch in text.chars() {
        if ch == '\n' {
            c.breaks += 1;
            c.longest_line = c.longest_line.max(line);
            line = 0;
            continue;
        }
        c.chars += 1;
        line += 1;
        if ch.is_whitespace() {
            c.longest_word = c.longest_word.max(word);
            word = 0;
        } else {
            word += 1;
        }
    }
    c.longest_word = c.longest_word.max(word);
    c.longest_line = c.longest_line.max(line);
    c
}

/// What [`count`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TextCount {
    /// Characters shown, collapsed spaces included.
    pub chars: usize,
    /// Longest word, in characters.
    pub longest_word: usize,
    /// Forced line breaks (preserved newlines).
    pub breaks: usize,
    /// Longest line between forced breaks, in characters.
    pub longest_line: usize,
    /// Began with whitespace.
    pub leading_space: bool,
    /// Ended with whitespace (counted in `chars`).
    pub trailing_space: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use taffy::prelude::{TaffyMaxContent, TaffyMinContent};

    /// [`count_collapsed`] as the plain reading of each character.
    fn count_collapsed_by_chars(text: &str) -> TextCount {
        let mut c = TextCount::default();
        let (mut word, mut in_space) = (0, false);
        for ch in text.chars() {
            if ch.is_ascii_whitespace() {
                if !in_space {
                    if c.chars == 0 {
                        c.leading_space = true;
                    } else {
                        c.chars += 1;
                    }
                    in_space = true;
                }
                word = 0;
            } else {
                in_space = false;
                c.chars += 1;
                word += 1;
                c.longest_word = c.longest_word.max(word);
            }
        }
        c.longest_line = c.chars;
        c.trailing_space = in_space && c.chars > 0;
        c
    }

    proptest::proptest! {
        #[test]
        fn collapsed_counts_are_the_characters_shown(text in "[ \t\n\r\x0Cab.é漢🙂\u{a0}]{0,40}") {
            proptest::prop_assert_eq!(count(&text, false), count_collapsed_by_chars(&text));
        }
    }

    #[test]
    fn counting_collapses_spaces() {
        let c = count("  hello   big  world ", false);
        assert_eq!(c.chars, "hello big world ".len());
        assert_eq!(c.longest_word, 5);
        assert!(c.leading_space && c.trailing_space);
        let p = count("a\nbb\nccc", true);
        assert_eq!((p.breaks, p.longest_line), (2, 3));
    }

    #[test]
    fn text_wraps_at_the_box_width() {
        let leaf = Leaf::Text {
            width: 1000.0,
            longest_word: 50.0,
            line_height: 20.0,
            lines: 1,
            wraps: true,
        };
        let s = leaf.measure(
            Size {
                width: Some(400.0),
                height: None,
            },
            Size::MAX_CONTENT,
        );
        assert_eq!(s.height, 60.0);
        let one = leaf.measure(Size::NONE, Size::MAX_CONTENT);
        assert_eq!((one.width, one.height), (1000.0, 20.0));
        let min = leaf.measure(Size::NONE, Size::MIN_CONTENT);
        assert_eq!(min.width, 50.0);
        let zero = leaf.measure(
            Size {
                width: Some(0.0),
                height: None,
            },
            Size::MAX_CONTENT,
        );
        assert!(zero.height.is_finite());
    }
}
