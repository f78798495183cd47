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
//! [`O200k::count_with`] gives the last space back by hand.

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
        let mask = self.slots.len() / 4 - 1;
        let h = hash(piece);
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
            /// This thread's scratch space for the pattern: threads
            /// sharing one would wait on it (`research` counts on every
            /// core).
            static CACHE: RefCell<Option<meta::Cache>> = const { RefCell::new(None) };
        }
        CACHE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut cache) => self.count_with(cache.get_or_insert_with(|| self.pattern.create_cache()), text),
            Err(_) => self.count_with(&mut self.pattern.create_cache(), text),
        })
    }

    /// Each piece is the pattern's match anchored where the last one
    /// ended (the pattern matches every character, so there is no gap to
    /// search across, and no backward pass to find where a match starts).
    fn count_with(&self, cache: &mut meta::Cache, text: &str) -> usize {
        let mut n = 0;
        let mut at = 0;
        while at < text.len() {
            let input = Input::new(text).range(at..).anchored(Anchored::Yes);
            match self.pattern.search_with(cache, &input) {
                Some(m) if m.end() > at => {
                    let piece = before_word(&text[at..m.end()], m.end() < text.len());
                    n += self.piece_count(piece.as_bytes());
                    at += piece.len();
                }
                // The pattern ends in `\s+` and matches every character
                // class, so this is not reached; if it ever is, the rest is
                // priced one token per byte.
                _ => return n + text.len() - at,
            }
        }
        n
    }

    /// Byte-pair merging of one piece: start from its bytes, and merge the
    /// adjacent pair whose joined bytes have the lowest rank (the leftmost
    /// on a tie) until no pair is a token. Candidate pairs wait in a heap
    /// (stale ones are skipped when popped), so a long piece costs
    /// O(n log n), not O(n²).
    fn piece_count(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        if n <= 1 || self.rank(piece).is_some() {
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

/// Pieces up to this many bytes are merged on the stack, longer ones
/// with a heap of candidate pairs.
const SHORT_PIECE: usize = 32;

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

    proptest::proptest! {
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
