//! Writes o200k_base's vocabulary, taken from the `tiktoken-rs` crate at
//! build time, as one compact table the engine embeds
//! (`fold::o200k`): counting tokens then builds nothing at run time but
//! the split pattern (tiktoken-rs's tables take ~46 MB and ~0.14 s on
//! first use).
//!
//! Layout, all integers little-endian `u32`:
//! `n` · `n + 1` offsets into the bytes, by rank · `s` · the `s` slots of
//! an open-addressing index (by `hash` of a token's bytes: rank + 1 in the
//! low `RANK_BITS` bits and a tag of the hash above them, 0 for an empty
//! slot; a power of two, under 40% full) · the token bytes, rank after
//! rank. A rank with no ordinary token (a special token's) has an
//! empty span and no slot.

use std::path::PathBuf;

/// Past the last ordinary rank of o200k_base (its special tokens are
/// 199999 and 200018).
const RANKS: u32 = 200_000;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/fold/o200k_hash.rs");
    let bpe = tiktoken_rs::o200k_base().expect("tiktoken-rs's o200k_base loads");
    let specials: Vec<Vec<u8>> = bpe.special_tokens().iter().map(|s| s.as_bytes().to_vec()).collect();
    let mut tokens: Vec<Vec<u8>> = Vec::with_capacity(RANKS as usize);
    for rank in 0..RANKS {
        let bytes = bpe.decode_bytes(&[rank]).unwrap_or_default();
        tokens.push(if specials.contains(&bytes) { Vec::new() } else { bytes });
    }

    let total: usize = tokens.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(4 * (3 + 4 * tokens.len()) + total);
    let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    put(&mut out, RANKS);
    let mut at = 0u32;
    put(&mut out, at);
    for t in &tokens {
        at += u32::try_from(t.len()).expect("short tokens");
        put(&mut out, at);
    }
    let mut slots = vec![0u32; (tokens.len() * 5 / 2).next_power_of_two()];
    let mask = slots.len() - 1;
    for (rank, t) in (1u32..).zip(&tokens) {
        if t.is_empty() {
            continue;
        }
        let h = hash(t);
        let mut slot = h as usize & mask;
        while slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        assert!(rank < 1 << RANK_BITS, "ranks fit beside the tag");
        slots[slot] = tagged(rank, h);
    }
    put(&mut out, u32::try_from(slots.len()).expect("fewer than 2^32 slots"));
    for &s in &slots {
        put(&mut out, s);
    }
    for t in &tokens {
        out.extend_from_slice(t);
    }
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("o200k.bin");
    std::fs::write(&path, out).expect("writes o200k.bin");
}

include!("src/fold/o200k_hash.rs");
