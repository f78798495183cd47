//! Exact o200k_base token counts from a table embedded at build time.
//!
//! tiktoken-rs builds four copies of the 200,000-token vocabulary on first
//! use (~46 MB and ~0.14 s), which dominated a short `whittle snapshot`
//! and the MCP server's memory. Counting needs only the vocabulary:
//! `build.rs` writes it once as one blob (offsets by rank, a hash index,
//! the bytes; 4.2 MB, read in place), and this module splits text with
//! o200k's own pattern (tiktoken-rs's `O200K_BASE_PAT_STR`) and merges
//! each piece by rank. Tests check the counts equal tiktoken-rs's.
//!
//! The pattern's one lookahead, `\s+(?!\S)` (a run of spaces leaves its
//! last space to the word after it), is the only part a finite automaton
//! cannot run; tiktoken-rs runs the whole pattern on `fancy-regex`'s
//! backtracking machine for it. Here `regex-automata` runs the pattern
//! without that alternative, each match anchored where the last ended, and
//! [`O200k::pattern_piece_end`] gives the last space back by hand.
//!
//! Most observation text is ASCII, where the pattern's classes are a
//! byte's: [`ascii_piece_end`] reads those pieces by hand (a call into the
//! regex engine per piece of four bytes cost more than the merging), and
//! recent short pieces' counts are kept per thread ([`Recent`]). Tests
//! check the hand reading splits as the pattern does.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use regex_automata::meta;
use regex_automata::{Anchored, Input};

static TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bin"));

/// The vocabulary as laid out by `build.rs`.
#[derive(Debug)]
pub(crate) struct O200k {
    /// `n + 1` little-endian offsets into `bytes`, by rank.
    offsets: &'static [u8],
    /// Open addressing by [`hash`] of a token's bytes: its rank + 1 and a
    /// tag of the hash ([`tagged`]), or 0 for an empty slot; a power of
    /// two, under 40% full.
    slots: &'static [u8],
    bytes: &'static [u8],
    pattern: meta::Regex,
}

/// The end of o200k's pattern: spaces before a word, then any other spaces.
/// [`O200k::load`] runs it as `\s+` alone (see the module's notes).
const LOOKAHEAD_TAIL: &str = r"|\s+(?!\S)|\s+";

/// A piece as o200k's `\s+(?!\S)` leaves it: a run of two or more
/// spaces followed by more text gives its last space to what follows. (A
/// run holding a line break is matched by an earlier alternative, which
/// ends it at the break.)
fn before_word(piece: &str, more: bool) -> &str {
    if !more || piece.ends_with(['\r', '\n']) || !piece.chars().all(char::is_whitespace) {
        return piece;
    }
    match piece.char_indices().next_back() {
        Some((last, _)) if last > 0 => &piece[..last],
        _ => piece,
    }
}

fn u32_at(s: &[u8], i: usize) -> u32 {
    s.get(4 * i..4 * i + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl O200k {
    /// The embedded vocabulary; `None` if the table or the pattern is
    /// unusable (callers then estimate).
    pub(crate) fn get() -> Option<&'static O200k> {
        static VOCAB: OnceLock<Option<O200k>> = OnceLock::new();
        VOCAB.get_or_init(O200k::load).as_ref()
    }

    fn load() -> Option<O200k> {
        let n = u32_at(TABLE, 0) as usize;
        let offsets = TABLE.get(4..4 * (n + 2))?;
        let s = u32_at(TABLE, n + 2) as usize;
        let slots = TABLE.get(4 * (n + 3)..4 * (n + 3 + s))?;
        let bytes = TABLE.get(4 * (n + 3 + s)..)?;
        if n == 0 || !s.is_power_of_two() || s <= n || u32_at(offsets, n) as usize != bytes.len() {
            return None;
        }
        let pattern = tiktoken_rs::O200K_BASE_PAT_STR.strip_suffix(LOOKAHEAD_TAIL)?;
        let pattern = meta::Regex::new(&format!(r"{pattern}|\s+")).ok()?;
        Some(O200k { offsets, slots, bytes, pattern })
    }

    fn token(&self, rank: u32) -> &'static [u8] {
        let (start, end) = (u32_at(self.offsets, rank as usize) as usize, u32_at(self.offsets, rank as usize + 1) as usize);
        self.bytes.get(start..end).unwrap_or_default()
    }

    /// The rank of the token spelled `piece`, if there is one.
    fn rank(&self, piece: &[u8]) -> Option<u32> {
        self.rank_hashed(piece, hash(piece))
    }

    /// [`O200k::rank`] of a piece whose [`hash`] is `h`.
    fn rank_hashed(&self, piece: &[u8], h: u64) -> Option<u32> {
        let mask = self.slots.len() / 4 - 1;
        let mut slot = h as usize & mask;
        loop {
            let entry = u32_at(self.slots, slot);
            if entry == 0 {
                return None;
            }
            // Another tag: another token, known without reading it.
            let rank_1 = entry & ((1 << RANK_BITS) - 1);
            if let Some(rank) = rank_1.checked_sub(1)
                && tagged(rank_1, h) == entry
                && self.token(rank) == piece
            {
                return Some(rank);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Tokens of `text` encoded without special tokens, as tiktoken's
    /// `encode_ordinary(text).len()`.
    pub(crate) fn count(&self, text: &str) -> usize {
        thread_local! {
            /// This thread's scratch space: threads sharing one would wait
            /// on it (`research` counts on every core).
            static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
        }
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.count_with(scratch.get_or_insert_with(|| Scratch::new(self)), text),
            Err(_) => self.count_with(&mut Scratch::new(self), text),
        })
    }

    fn count_with(&self, scratch: &mut Scratch, text: &str) -> usize {
        let mut n = 0;
        let mut at = 0;
        while at < text.len() {
            match self.piece_end(&mut scratch.regex, text, at) {
                Some(end) => {
                    n += self.cached_piece_count(&mut scratch.pieces, &text.as_bytes()[at..end]);
                    at = end;
                }
                // The pattern ends in `\s+` and matches every character
                // class, so this is not reached; if it ever is, the rest is
                // priced one token per byte.
                None => return n + text.len() - at,
            }
        }
        n
    }

    /// Where the piece of `text` that starts at `at` ends: read by hand
    /// when every character that decides it is ASCII ([`ascii_piece_end`]),
    /// by the pattern otherwise.
    fn piece_end(&self, regex: &mut meta::Cache, text: &str, at: usize) -> Option<usize> {
        ascii_piece_end(text.as_bytes(), at).or_else(|| self.pattern_piece_end(regex, text, at))
    }

    /// [`O200k::piece_end`] by the pattern: its match anchored where the
    /// last piece ended (the pattern matches every character, so there is
    /// no gap to search across, and no backward pass to find where a match
    /// starts), with the lookahead's last space given back.
    fn pattern_piece_end(&self, regex: &mut meta::Cache, text: &str, at: usize) -> Option<usize> {
        let input = Input::new(text).range(at..).anchored(Anchored::Yes);
        let m = self.pattern.search_with(regex, &input).filter(|m| m.end() > at)?;
        Some(at + before_word(&text[at..m.end()], m.end() < text.len()).len())
    }

    /// [`O200k::piece_count`], looked up first among the short pieces
    /// counted lately. A page repeats its words, and the vocabulary is
    /// megabytes: a lookup there misses the processor's caches two or three
    /// times (the slot, the token's offset, its bytes), where this small
    /// table stays in them.
    fn cached_piece_count(&self, pieces: &mut [Recent], piece: &[u8]) -> usize {
        let Some(key) = Recent::key(piece) else { return self.piece_count(piece, hash(piece)) };
        let h = hash(piece);
        let slot = &mut pieces[h as usize & (RECENT_PIECES - 1)];
        // (An empty slot matches only an empty piece, whose count is 0.)
        if usize::from(slot.len) == piece.len() && slot.bytes == key {
            return usize::from(slot.count);
        }
        let count = self.piece_count(piece, h);
        // A piece of at most `RECENT_BYTES` bytes has at most as many tokens.
        *slot = Recent { len: piece.len() as u8, count: count as u8, bytes: key };
        count
    }

    /// Byte-pair merging of one piece: start from its bytes, and merge the
    /// adjacent pair whose joined bytes have the lowest rank (the leftmost
    /// on a tie) until no pair is a token. Candidate pairs wait in a heap
    /// (stale ones are skipped when popped), so a long piece costs
    /// O(n log n), not O(n²).
    /// `h` is the piece's [`hash`].
    fn piece_count(&self, piece: &[u8], h: u64) -> usize {
        let n = piece.len();
        if n <= 1 || self.rank_hashed(piece, h).is_some() {
            return n.min(1);
        }
        if n <= SHORT_PIECE { self.short_piece_count(piece) } else { self.long_piece_count(piece) }
    }

    /// [`O200k::piece_count`] of a long piece (not a token itself).
    fn long_piece_count(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // Parts are named by their first byte: `next[s]` is where the part
        // at `s` ends, `prev[s]` where the one before it starts.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut heap = BinaryHeap::with_capacity(n);
        let offer = |heap: &mut BinaryHeap<Reverse<(u32, usize, usize)>>, start: usize, end: usize| {
            if let Some(rank) = self.rank(&piece[start..end]) {
                heap.push(Reverse((rank, start, end)));
            }
        };
        for i in 0..n - 1 {
            offer(&mut heap, i, i + 2);
        }
        let mut parts = n;
        while let Some(Reverse((_, start, end))) = heap.pop() {
            // Still two parts from `start` to `end`?
            let mid = next[start];
            if !alive[start] || mid >= n || next[mid] != end {
                continue;
            }
            alive[mid] = false;
            next[start] = end;
            if end < n {
                prev[end] = start;
                offer(&mut heap, start, next[end]);
            }
            if let Some(&before) = prev.get(start) && before < n {
                offer(&mut heap, before, end);
            }
            parts -= 1;
        }
        parts
    }

    /// [`O200k::piece_count`] of a piece of at most [`SHORT_PIECE`] bytes
    /// (nearly every piece that is not a token itself), with the same
    /// merges in the same order, on the stack: each round merges the
    /// lowest-ranked adjacent pair, the leftmost on a tie.
    fn short_piece_count(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // Part `i` is `piece[starts[i]..starts[i + 1]]`; `ranks[i]` is the
        // rank of part `i` joined with part `i + 1` (`u32::MAX`: none).
        let mut starts = [0usize; SHORT_PIECE + 1];
        let mut ranks = [u32::MAX; SHORT_PIECE];
        for (i, s) in starts.iter_mut().enumerate().take(n + 1) {
            *s = i;
        }
        let mut parts = n;
        let pair = |starts: &[usize; SHORT_PIECE + 1], i: usize| self.rank(&piece[starts[i]..starts[i + 2]]).unwrap_or(u32::MAX);
        for i in 0..parts - 1 {
            ranks[i] = pair(&starts, i);
        }
        while parts > 1 {
            let mut at = 0;
            for i in 1..parts - 1 {
                if ranks[i] < ranks[at] {
                    at = i;
                }
            }
            if ranks[at] == u32::MAX {
                break;
            }
            // Parts `at` and `at + 1` become one; the boundary between them
            // goes, and the pairs after them move down by one.
            starts.copy_within(at + 2..=parts, at + 1);
            if at + 2 < parts {
                ranks.copy_within(at + 2..parts - 1, at + 1);
            }
            parts -= 1;
            if at + 1 < parts {
                ranks[at] = pair(&starts, at);
            }
            if at > 0 {
                ranks[at - 1] = pair(&starts, at - 1);
            }
        }
        parts
    }
}

/// How o200k's pattern sees an ASCII character.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ascii {
    Upper,
    Lower,
    Digit,
    /// `\r` or `\n`.
    Break,
    /// Other white space: space, tab, vertical tab, form feed.
    Space,
    /// Anything else: punctuation, symbols, control characters.
    Other,
    /// Past the end of the text.
    End,
}

/// The class of `bytes[i]`; `None` for a byte of a non-ASCII character,
/// whose class only the pattern knows.
fn ascii_class(bytes: &[u8], i: usize) -> Option<Ascii> {
    let Some(&b) = bytes.get(i) else { return Some(Ascii::End) };
    Some(match b {
        b'A'..=b'Z' => Ascii::Upper,
        b'a'..=b'z' => Ascii::Lower,
        b'0'..=b'9' => Ascii::Digit,
        b'\r' | b'\n' => Ascii::Break,
        b' ' | b'\t' | b'\x0B' | b'\x0C' => Ascii::Space,
        0x80.. => return None,
        _ => Ascii::Other,
    })
}

/// The piece o200k's pattern (with its lookahead) matches at `at`, read by
/// hand, or `None` when a character that decides it is not ASCII. For
/// ASCII, the pattern's alternatives, in their order, are:
/// 1–2. letters — upper case then lower case — after at most one
///    character that is not a letter, digit or line break, then an
///    English contraction (`'s`, `'ll`, … in any case);
/// 3. one to three digits;
/// 4. an optional space, punctuation, then line breaks and slashes;
/// 5. white space up to its last line break;
/// 6. white space, less its last character when a word follows.
fn ascii_piece_end(bytes: &[u8], at: usize) -> Option<usize> {
    use Ascii::*;
    let first = ascii_class(bytes, at)?;
    let letters = match first {
        Upper | Lower => Some(at),
        Space | Other => matches!(ascii_class(bytes, at + 1)?, Upper | Lower).then_some(at + 1),
        Digit | Break | End => None,
    };
    if let Some(mut i) = letters {
        // Upper case then lower case (either may be empty, not both).
        while ascii_class(bytes, i)? == Upper {
            i += 1;
        }
        while ascii_class(bytes, i)? == Lower {
            i += 1;
        }
        if bytes.get(i) != Some(&b'\'') {
            return Some(i);
        }
        let next = |k: usize| bytes.get(i + k).map(u8::to_ascii_lowercase);
        // `s` matches `ſ` without regard to case: a non-ASCII character
        // there is the pattern's to judge.
        if next(1).is_some_and(|b| b >= 0x80) {
            return None;
        }
        return Some(match (next(1), next(2)) {
            (Some(b's' | b't' | b'm' | b'd'), _) => i + 2,
            (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => i + 3,
            _ => i,
        });
    }
    if first == Digit {
        let mut i = at;
        while i < at + 3 && ascii_class(bytes, i)? == Digit {
            i += 1;
        }
        return Some(i);
    }
    let marks = if bytes.get(at) == Some(&b' ') { at + 1 } else { at };
    if ascii_class(bytes, marks)? == Other {
        let mut i = marks;
        while ascii_class(bytes, i)? == Other {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b'\r' | b'\n' | b'/')) {
            i += 1;
        }
        return Some(i);
    }
    // White space.
    let mut i = at;
    let mut last_break = None;
    loop {
        match ascii_class(bytes, i)? {
            Space => {}
            Break => last_break = Some(i),
            _ => break,
        }
        i += 1;
    }
    Some(match last_break {
        Some(b) => b + 1,
        None if i < bytes.len() && i - at >= 2 => i - 1,
        None => i,
    })
}

/// Pieces up to this many bytes are merged on the stack, longer ones
/// with a heap of candidate pairs.
const SHORT_PIECE: usize = 32;

/// A thread's scratch space for counting: the pattern's, and the pieces
/// counted lately.
struct Scratch {
    regex: meta::Cache,
    pieces: Box<[Recent]>,
}

impl Scratch {
    fn new(bpe: &O200k) -> Scratch {
        Scratch { regex: bpe.pattern.create_cache(), pieces: vec![Recent::default(); RECENT_PIECES].into_boxed_slice() }
    }
}

/// Slots of the recent pieces' table (256 KiB per thread that counts), a
/// power of two: one per [`hash`], the latest piece there replacing the
/// one before.
const RECENT_PIECES: usize = 16384;

/// The longest piece the recent pieces' table keeps (nearly every piece of
/// text in a Latin script is shorter).
const RECENT_BYTES: usize = 14;

/// A piece counted lately: its bytes (zero-padded), its length (0: an
/// empty slot) and its tokens.
#[derive(Clone, Copy, Default)]
struct Recent {
    len: u8,
    count: u8,
    bytes: [u8; RECENT_BYTES],
}

impl Recent {
    /// A piece's bytes as a slot keeps them, if it is short enough.
    fn key(piece: &[u8]) -> Option<[u8; RECENT_BYTES]> {
        let mut key = [0; RECENT_BYTES];
        key.get_mut(..piece.len())?.copy_from_slice(piece);
        Some(key)
    }
}

include!("o200k_hash.rs");

#[cfg(test)]
mod tests {
    use super::*;

    /// tiktoken-rs's own o200k_base, loaded once for all the tests.
    fn tiktoken() -> &'static tiktoken_rs::CoreBPE {
        static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
        BPE.get_or_init(|| tiktoken_rs::o200k_base().unwrap_or_else(|e| panic!("tiktoken-rs: {e}")))
    }

    #[test]
    fn the_table_holds_every_ordinary_token() {
        let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
        let bpe = tiktoken();
        for rank in (0..200_000).step_by(997) {
            let bytes = bpe.decode_bytes(&[rank]).unwrap_or_default();
            assert_eq!(ours.token(rank), &bytes[..], "rank {rank}");
            assert_eq!(ours.rank(&bytes), Some(rank), "rank {rank}");
        }
        assert_eq!(ours.rank(b"<|endoftext|>"), None, "special tokens are not ordinary");
    }

    #[test]
    fn counts_equal_tiktoken() {
        let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
        let bpe = tiktoken();
        let mut texts: Vec<String> = [
            "",
            " ",
            "\n\n\n",
            "Hello, world!",
            "[12] link \"Home\" → /about",
            "東京都の天気予報、明日は晴れ",
            "Привет мир, как дела?",
            "Aktualizováno před 21 minutami, řekl",
            "مرحبا بالعالم",
            "🚅🥈👍🏽 emoji and ZWJ 👨‍👩‍👧",
            "”””””””””””””””””””””””””””””””””””",
            "&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&",
            "€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€",
            "ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ",
            "supercalifragilisticexpialidocious antidisestablishmentarianism",
            "   indented\tline  with   spaces   \n  and more  ",
            "I'm sure they'll say it's what we'd've done. DON'T",
            "1234567890 3.14159 -42 1e10 0xFFEE",
            "<|endoftext|> is text here",
            "a\u{0}b\u{7f}c\u{200b}d\u{feff}e",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        texts.push("漢".repeat(300));
        texts.push("ab".repeat(500));
        texts.push("a".repeat(5000));
        texts.push("x".repeat(333) + &"🙂".repeat(200) + &"ё".repeat(700));
        texts.push(" \n".repeat(50));
        for dir in [whittle_corpus::fixtures_dir(), whittle_corpus::workspace_dir().join("corpus/hostile")] {
            for page in whittle_corpus::html_files_under(&dir, &[]) {
                texts.push(String::from_utf8_lossy(&std::fs::read(&page).unwrap_or_default()).into_owned());
            }
        }
        for text in &texts {
            let short: String = text.chars().take(60).collect();
            assert_eq!(ours.count(text), bpe.encode_ordinary(text).len(), "{short:?}");
        }
    }

    /// Where the hand reading and the pattern split `text` apart, if they
    /// do.
    fn split_difference(text: &str) -> Option<String> {
        let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
        let mut regex = ours.pattern.create_cache();
        let mut at = 0;
        while at < text.len() {
            let by_pattern = ours.pattern_piece_end(&mut regex, text, at);
            if let Some(by_hand) = ascii_piece_end(text.as_bytes(), at)
                && Some(by_hand) != by_pattern
            {
                return Some(format!("{text:?} at {at}: by hand {by_hand}, by the pattern {by_pattern:?}"));
            }
            at = by_pattern?;
        }
        None
    }

    /// Every string of up to three characters from a set that holds each
    /// class the pattern tells apart, ASCII or not.
    #[test]
    fn the_hand_reading_splits_as_the_pattern_does() {
        let chars: Vec<char> = "aZ5 \t\n\r\x0B\x0C\x1C\x00\x7F'.,/-_\"sStTmMdDrReEvVlL\u{a0}é漢٣€ſ\u{2003}🙂".chars().collect();
        let mut text = String::new();
        for a in &chars {
            for b in &chars {
                for c in chars.iter().map(Some).chain([None]) {
                    text.clear();
                    text.push(*a);
                    text.push(*b);
                    text.extend(c);
                    if let Some(diff) = split_difference(&text) {
                        panic!("{diff}");
                    }
                }
            }
        }
        // Contractions take up to two characters after the apostrophe.
        for word in ["we'", "WE'", " I'", "x'"] {
            for a in &chars {
                for b in &chars {
                    let text = format!("{word}{a}{b}");
                    assert_eq!(split_difference(&text), None);
                }
            }
        }
        for byte in 0u8..0x80 {
            let text = format!("x{0}{0}y {0}1{0}", byte as char);
            assert_eq!(split_difference(&text), None);
        }
    }

    proptest::proptest! {
        #[test]
        fn the_hand_reading_splits_long_text_as_the_pattern_does(text in "[a-zA-Z0-9 \t\n\r'.,:;!?/()\\[\\]\"&#<>=_-]{0,200}|[a-zA-Z0-9 '\n/.é漢\u{a0}ſ٣”-]{0,80}") {
            proptest::prop_assert_eq!(split_difference(&text), None);
        }

        #[test]
        fn short_pieces_merge_as_long_ones_do(piece in proptest::collection::vec(proptest::sample::select(&b" etaoinshrdlu.,\xc3\xa9\xe2\x80\x9d"[..]), 2..=SHORT_PIECE), repeat in proptest::collection::vec(proptest::sample::select(&b"=-ab"[..]), 2..=SHORT_PIECE)) {
            let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
            proptest::prop_assert_eq!(ours.short_piece_count(&piece), ours.long_piece_count(&piece));
            proptest::prop_assert_eq!(ours.short_piece_count(&repeat), ours.long_piece_count(&repeat));
        }

        #[test]
        fn runs_of_spaces_count_as_tiktoken_counts(text in "([ \t\u{a0}\u{2003}\u{3000}\r\n]{0,4}[a-zA-Z'.,!ё漢0-9]{0,3}){0,30}") {
            let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
            proptest::prop_assert_eq!(ours.count(&text), tiktoken().encode_ordinary(&text).len());
        }

        #[test]
        fn any_text_counts_as_tiktoken_counts(text in "[a-zA-Z0-9 ',.!?&”€漢ёé🙂\n\t-]{0,120}|\\PC{0,60}") {
            let ours = O200k::get().unwrap_or_else(|| panic!("the embedded table does not load"));
            proptest::prop_assert_eq!(ours.count(&text), tiktoken().encode_ordinary(&text).len());
        }
    }
}
