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
fn count_collapsed(text: &str) -> TextCount {
    let mut c = TextCount::default();
    let mut word = 0usize;
    let mut in_space = false;
    for &b in text.as_bytes() {
        if b & 0xC0 == 0x80 {
            continue;
        }
        if b.is_ascii_whitespace() {
            if !in_space {
                if c.chars == 0 {
                    c.leading_space = true;
                } else {
                    c.chars += 1;
                }
                in_space = true;
            }
            c.longest_word = c.longest_word.max(word);
            word = 0;
        } else {
            in_space = false;
            c.chars += 1;
            word += 1;
        }
    }
    c.longest_word = c.longest_word.max(word);
    c.longest_line = c.chars;
    // The counted trailing space belongs between this and what follows.
    c.trailing_space = in_space && c.chars > 0;
    c
}

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
