//! How many o200k_base tokens a line costs: a fast estimate for text in
//! the Latin alphabet, tiktoken's exact count for the rest.
//!
//! Counting every line with the real tokenizer (o200k's byte-pair merges)
//! would cost more than the rest of the fold stage. For lines in ASCII with
//! at most a few other letters (nearly every line of an English page), this
//! module imitates o200k's
//! pre-tokenizer (words with one leading space or mark, runs of up to three
//! digits, runs of punctuation with the newline after them, runs of
//! spaces) in one pass over the characters, and prices each piece from
//! tables measured on whittle's own observations of the shared corpus
//! (`cargo run --release -p whittle-benches --bin tokens -- --calibrate`).
//! Other scripts tokenize too unevenly to estimate (o200k spends 0.6 tokens
//! on a common Chinese character, 2 on a rare one; Czech words cost twice
//! English ones): a line with more than [`EXACT_ABOVE`] non-ASCII letters is
//! counted exactly, as tiktoken counts it, by `o200k.rs` from a
//! vocabulary embedded at build time; its `None` (a table that did not
//! load) means the estimate is used throughout.
//!
//! The fold stage keeps a margin ([`super::MARGIN_PERCENT`]) below the
//! budget; the tests check the estimate against tiktoken on real outputs
//! (within ±10%) and that folded observations fit their budgets by
//! tiktoken's count.
//!
//! Prices are in hundredths of a token; a line's estimate is rounded to
//! the nearest token.

use super::o200k::O200k;

/// Lines with more non-ASCII letters or symbols than this are counted
/// exactly.
pub const EXACT_ABOVE: usize = 2;

/// Hundredths of a token for an ASCII word of `n` letters with a leading
/// space (index `n`; the last entry for anything longer, plus
/// [`LONG_WORD_PER_LETTER`] per letter beyond it). Measured: the average
/// over the corpus's observations.
const WORD: [u32; 16] = [0, 100, 100, 101, 102, 109, 114, 117, 128, 132, 141, 143, 154, 154, 207, 270];
/// Hundredths of a token per letter of a word longer than `WORD.len() - 1`.
const LONG_WORD_PER_LETTER: u32 = 30;
/// A non-ASCII letter in a line priced by the estimate (at most
/// [`EXACT_ABOVE`] of them): `café`, `naïve`.
const OTHER_LETTER: u32 = 150;
/// A mark glued to the front of a word (`("Widget`, `x'Widget`): often its
/// own token.
const GLUED_MARK: u32 = 45;
/// A run of punctuation: the first mark, then each different one.
const PUNCT_FIRST: u32 = 100;
const PUNCT_MORE: u32 = 40;
/// Each repeat of the same mark (`-----`, `────`): BPE merges long runs.
const PUNCT_REPEAT_ASCII: u32 = 12;
const PUNCT_REPEAT_OTHER: u32 = 20;
/// Non-ASCII symbols outside the common set cost extra byte-level tokens.
const RARE_SYMBOL: u32 = 120;
/// A run of two or more spaces (indentation): one token.
const SPACES: u32 = 100;
/// The newline ending a line (free after punctuation: `".` and `"\n` are
/// one piece).
const NEWLINE: u32 = 100;

/// Common non-ASCII punctuation that o200k has single tokens for.
fn common_symbol(c: char) -> bool {
    matches!(
        c,
        '·' | '…'
            | '–'
            | '—'
            | '‘'
            | '’'
            | '“'
            | '”'
            | '•'
            | '→'
            | '←'
            | '↑'
            | '↓'
            | '×'
            | '€'
            | '£'
            | '©'
            | '®'
            | '°'
            | '«'
            | '»'
            | '\u{a0}'
            | '§'
            | '¶'
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Letter,
    Digit,
    Mark,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if c.is_alphabetic() {
        Class::Letter
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Mark
    }
}

/// Characters outside ASCII that the estimate cannot price: letters of
/// other alphabets, and symbols other than the punctuation whittle's own
/// lines and English text use (o200k spends a token or more on each of
/// `€€€`, `»»»`, `†††`, where the estimate would guess a merged run: found
/// by the `snapshot` fuzz target). That punctuation is cheap alone, after
/// a word; right after another non-ASCII character (a run such as
/// `”””…`, also found by the fuzzer) it counts too.
fn other_letters(text: &str) -> usize {
    if text.is_ascii() {
        return 0;
    }
    let mut after_other = false;
    let mut n = 0;
    for c in text.chars() {
        let cheap = matches!(c, '·' | '…' | '–' | '—' | '‘' | '’' | '“' | '”' | '\u{a0}');
        if !c.is_ascii() && (!cheap || after_other) {
            n += 1;
        }
        after_other = !c.is_ascii();
    }
    n
}

/// tiktoken's count of a whole text, o200k_base without special tokens
/// (the estimate if the table did not load).
pub fn exact_count(text: &str) -> u64 {
    match O200k::get() {
        Some(bpe) => bpe.count(text) as u64,
        None => text.lines().map(|l| u64::from(line_cost(0, l))).sum(),
    }
}

/// Tokens of `text` (no newline counted).
pub fn estimate(text: &str) -> u32 {
    if other_letters(text) > EXACT_ABOVE
        && let Some(bpe) = O200k::get()
    {
        return u32::try_from(bpe.count(text)).unwrap_or(u32::MAX);
    }
    (hundredths(text) + 50) / 100
}

/// [`line_cost`] by tiktoken's count whatever the line holds: for the one
/// line of every observation whose text the page chooses freely (the
/// header, from its title), where a misjudged run would be paid on every
/// view.
pub fn exact_line_cost(indent: usize, text: &str) -> u32 {
    let Some(bpe) = O200k::get() else { return line_cost(indent, text) };
    let mut line = String::with_capacity(indent + text.len() + 1);
    line.extend(std::iter::repeat_n(' ', indent));
    line.push_str(text);
    line.push('\n');
    u32::try_from(bpe.count(&line)).unwrap_or(u32::MAX)
}

/// Tokens of one observation line: its indentation (`indent` spaces), its
/// text and the newline after it.
pub fn line_cost(indent: usize, text: &str) -> u32 {
    if other_letters(text) > EXACT_ABOVE && O200k::get().is_some() {
        return exact_line_cost(indent, text);
    }
    let mut h = hundredths(text);
    if !text.chars().next_back().is_some_and(|c| c.is_ascii_punctuation()) {
        h += NEWLINE;
    }
    if indent >= 2 {
        h += SPACES;
    }
    (h + 50) / 100
}

fn word_cost(ascii_letters: u32, other: u32) -> u32 {
    let n = ascii_letters as usize;
    let ascii = if n == 0 {
        0
    } else if n < WORD.len() {
        WORD[n]
    } else {
        WORD[WORD.len() - 1] + (n - (WORD.len() - 1)) as u32 * LONG_WORD_PER_LETTER
    };
    ascii + other * OTHER_LETTER
}

/// The estimate in hundredths of a token.
fn hundredths(text: &str) -> u32 {
    if text.is_ascii() {
        // Nearly every line: its bytes are its characters.
        return hundredths_of(text.as_bytes());
    }
    // Lines are short: their characters fit on the stack.
    let chars: smallvec::SmallVec<[char; 256]> = text.chars().collect();
    hundredths_of(&chars)
}

/// [`hundredths`] of a line's characters (`char`s, or the bytes of an
/// ASCII line).
fn hundredths_of<C: Copy + Into<char>>(chars: &[C]) -> u32 {
    let at = |i: usize| -> char { chars[i].into() };
    let mut total: u32 = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = at(i);
        match class(c) {
            Class::Space => {
                let start = i;
                while i < chars.len() && class(at(i)) == Class::Space {
                    i += 1;
                }
                // A single space before a word or mark is part of it; a
                // longer run is a token (its last space joins what follows).
                if i - start >= 2 || i == chars.len() {
                    total += SPACES;
                }
            }
            Class::Digit => {
                let start = i;
                while i < chars.len() && class(at(i)) == Class::Digit {
                    i += 1;
                }
                total += ((i - start) as u32).div_ceil(3) * 100;
            }
            Class::Letter => total += word(chars, &mut i),
            Class::Mark => {
                let start = i;
                while i < chars.len() && class(at(i)) == Class::Mark {
                    i += 1;
                }
                // One mark right before a word is glued to it, unless a
                // space came first (` "Home` is ` "` and `Home`).
                let after_space = start > 0 && class(at(start - 1)) == Class::Space;
                if i - start == 1 && !after_space && i < chars.len() && class(at(i)) == Class::Letter {
                    total += GLUED_MARK + if c.is_ascii() || common_symbol(c) { 0 } else { RARE_SYMBOL };
                    total += word(chars, &mut i);
                    continue;
                }
                for j in 0..i - start {
                    let m = at(start + j);
                    let prev = if j > 0 { Some(at(start + j - 1)) } else { None };
                    total += match prev {
                        None => PUNCT_FIRST,
                        Some(p) if p == m => {
                            if m.is_ascii() {
                                PUNCT_REPEAT_ASCII
                            } else {
                                PUNCT_REPEAT_OTHER
                            }
                        }
                        Some(_) => PUNCT_MORE,
                    };
                    if prev != Some(m) && !m.is_ascii() && !common_symbol(m) {
                        total += RARE_SYMBOL * (m.len_utf8() as u32 - 1) / 2;
                    }
                }
            }
        }
    }
    total
}

/// Prices the word starting at `chars[*i]` and moves past it. A word
/// splits where a lowercase letter meets an uppercase one (`iPhone`), as
/// o200k's pre-tokenizer does.
fn word<C: Copy + Into<char>>(chars: &[C], i: &mut usize) -> u32 {
    let at = |i: usize| -> char { chars[i].into() };
    let mut total = 0;
    let (mut ascii, mut other) = (0u32, 0u32);
    let mut prev_lower = false;
    while *i < chars.len() && class(at(*i)) == Class::Letter {
        let c = at(*i);
        if prev_lower && c.is_uppercase() {
            total += word_cost(ascii, other);
            (ascii, other) = (0, 0);
        }
        if c.is_ascii() {
            ascii += 1;
        } else {
            other += 1;
        }
        prev_lower = c.is_lowercase();
        *i += 1;
    }
    total + word_cost(ascii, other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typographic_punctuation_is_cheap_alone_and_priced_in_runs() {
        assert_eq!(other_letters("“Quoted,” she said — twice…"), 0);
        assert_eq!(other_letters("a ””””””””” b"), 8);
        let run = "”".repeat(35);
        let line = format!("{run} Setting up");
        assert_eq!(u64::from(line_cost(0, &line)), exact_count(&format!("{line}\n")), "a run is counted exactly");
    }

    #[test]
    fn simple_pieces() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("Home"), 1);
        assert_eq!(estimate("123456"), 2);
        assert_eq!(estimate("[12] link \"Home\""), 7);
        assert!(estimate("supercalifragilisticexpialidocious") >= 5);
        assert_eq!(line_cost(0, "main"), 2);
        assert_eq!(line_cost(3, "main"), 3);
        // The newline joins a closing mark.
        assert_eq!(line_cost(0, "[1] link \"Home\""), 7);
    }

    #[test]
    fn other_scripts_are_counted_exactly() {
        let bpe = tiktoken_rs::o200k_base().ok();
        for text in ["東京都の天気予報", "Привет мир, как дела?", "Aktualizováno před 21 minutami, řekl"]
        {
            let want = bpe.as_ref().map_or(0, |b| b.encode_ordinary(text).len()) as u32;
            assert_eq!(estimate(text), want, "{text}");
        }
        // A few accents stay with the estimate, priced high.
        assert!(estimate("café") >= 2);
    }
}
