//! Ids and class names as elements and selectors hold them: the text and
//! a hash of it, made once. Selector matching compares them and the rule
//! index and the bloom filter file them by the hash, so no global atom
//! table is involved: a page's ids and classes (a third of its elements
//! carry a class) are split and hashed as the parser creates each
//! element, without a lock, and freed with the document.

use std::hash::{BuildHasherDefault, Hash, Hasher};

use compact_str::CompactString;
use rustc_hash::FxHashSet;
use selectors::bloom::BLOOM_HASH_MASK;
use smallvec::SmallVec;

/// An id or a class name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Name {
    /// FNV-1a of the ASCII-lowercased bytes: names that differ only in
    /// ASCII case hash alike, so one hash serves pages in quirks mode,
    /// where ids and classes match ignoring ASCII case, and the others.
    hash: u32,
    text: CompactString,
}

impl Name {
    pub(crate) fn new(text: &str) -> Name {
        Name { hash: text.bytes().fold(FNV_OFFSET, fold_step), text: CompactString::from(text) }
    }

    /// Adds the names of a list separated by HTML whitespace (a `class`
    /// value) to `names` as an ordered set, after the `from` names already
    /// there: a class listed twice is kept once (DOM's DOMTokenList), or
    /// every rule for it would be tried once per copy. The list is read
    /// once, byte by byte, each name hashed as it is read.
    pub(crate) fn push_set(list: &str, names: &mut SmallVec<[Name; 8]>, from: usize) {
        let bytes = list.as_bytes();
        // The names kept so far as slices of `list`; past a few, a set
        // of them, so that a long list stays linear.
        let mut kept: SmallVec<[&str; 16]> = SmallVec::new();
        let mut set: Option<FxHashSet<&str>> = None;
        let mut i = 0;
        loop {
            while i < bytes.len() && is_space(bytes[i]) {
                i += 1;
            }
            if i == bytes.len() {
                return;
            }
            let (start, mut hash) = (i, FNV_OFFSET);
            while i < bytes.len() && !is_space(bytes[i]) {
                hash = fold_step(hash, bytes[i]);
                i += 1;
            }
            // Both ends are at ASCII bytes, so on character boundaries.
            let text = &list[start..i];
            let dup = match &mut set {
                Some(set) => !set.insert(text),
                None => {
                    let dup = names[from..].iter().any(|n| n.hash == hash && n.text == text);
                    if !dup && kept.len() == 16 {
                        set = Some(kept.iter().copied().chain([text]).collect());
                    } else if !dup {
                        kept.push(text);
                    }
                    dup
                }
            };
            if !dup {
                names.push(Name { hash, text: CompactString::from(text) });
            }
        }
    }

    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The name in ASCII lower case (the same hash).
    pub(crate) fn to_ascii_lowercase(&self) -> Name {
        Name { hash: self.hash, text: self.text.to_ascii_lowercase() }
    }

    /// Whether the name has an ASCII upper-case letter.
    pub(crate) fn has_ascii_uppercase(&self) -> bool {
        self.text.bytes().any(|b| b.is_ascii_uppercase())
    }

    /// Whether the two are the same ignoring ASCII case.
    #[inline]
    pub(crate) fn eq_ignore_ascii_case(&self, other: &Name) -> bool {
        self.hash == other.hash && self.text.eq_ignore_ascii_case(&other.text)
    }

    /// Its hash in the bloom filter's 24 bits, never 0 (which ends a
    /// selector's hashes). Names that differ only in ASCII case share it,
    /// so a filter of these hashes never rejects a quirks-mode match: a
    /// collision only lets a rule be tried.
    #[inline]
    pub(crate) fn bloom(&self) -> u32 {
        match (self.hash ^ (self.hash >> 24)) & BLOOM_HASH_MASK {
            0 => 1,
            h => h,
        }
    }
}

const FNV_OFFSET: u32 = 0x811c_9dc5;

/// One byte of FNV-1a over ASCII-lowercased bytes.
#[inline]
fn fold_step(h: u32, b: u8) -> u32 {
    (h ^ u32::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0193)
}

/// HTML whitespace.
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

impl PartialEq for Name {
    #[inline]
    fn eq(&self, other: &Name) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.hash);
    }
}

impl<'a> From<&'a str> for Name {
    fn from(text: &'a str) -> Name {
        Name::new(text)
    }
}

/// A hasher for keys whose `Hash` writes one precomputed `u32` (names,
/// atoms): it spreads that hash over the 64 bits a map reads.
#[derive(Default)]
pub(crate) struct PrehashedHasher(u64);

impl Hasher for PrehashedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0 ^ u64::from(i)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by [`Name`]s (or atoms), hashed by their own hash.
pub(crate) type NameMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<PrehashedHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_equal_by_text_and_hash_alike_in_any_ascii_case() {
        let (a, b, c) = (Name::new("Menu"), Name::new("menu"), Name::new("Menu"));
        assert_eq!(a, c);
        assert_ne!(a, b, "case-sensitive equality");
        assert!(a.eq_ignore_ascii_case(&b));
        assert_eq!(a.bloom(), b.bloom());
        assert_eq!(a.to_ascii_lowercase(), b);
        assert!(a.has_ascii_uppercase() && !b.has_ascii_uppercase());
        // Non-ASCII letters are compared as they are.
        assert!(!Name::new("É").eq_ignore_ascii_case(&Name::new("é")));
        assert_ne!(Name::new("").bloom(), 0);
    }

    #[test]
    fn a_list_is_an_ordered_set_split_at_html_whitespace() {
        let set = |list: &str, before: &[&str]| {
            let mut names: SmallVec<[Name; 8]> = before.iter().map(|n| Name::new(n)).collect();
            Name::push_set(list, &mut names, before.len());
            assert!(names.iter().all(|n| n.hash == Name::new(n.as_str()).hash));
            names[before.len()..].iter().map(|n| n.as_str().to_owned()).collect::<Vec<_>>()
        };
        assert_eq!(set("  a\tb\n\x0C\ra  c\u{a0}d é ", &[]), ["a", "b", "c\u{a0}d", "é"]);
        // The names before `from` (an id) are not the list's.
        assert_eq!(set("x y x", &["x"]), ["x", "y"]);
        assert_eq!(set("", &[]), Vec::<String>::new());
        // Long lists keep the first of each name, in order, past the point
        // where a set takes over.
        let long: Vec<String> = (0..40).map(|i| format!("c{}", i % 25)).collect();
        let expect: Vec<String> = (0..25).map(|i| format!("c{i}")).collect();
        assert_eq!(set(&long.join(" "), &[]), expect);
    }
}
