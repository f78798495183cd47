// The hash of o200k's token index, shared by `build.rs` (which fills the
// index) and `o200k.rs` (which reads it) through `include!`.

/// FNV-1a over the bytes, folded: the low bits pick a slot, bits 32 and up
/// give the tag a slot keeps beside the rank ([`tagged`]).
fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ (h >> 29)
}

/// Bits of a slot that hold rank + 1 (o200k's ranks are below 2^18); the
/// bits above hold a tag from the hash, so that a probe past another
/// token's slot rarely needs to read that token's bytes.
const RANK_BITS: u32 = 18;

/// A slot's value for rank + 1 `entry` of a token whose hash is `h`.
fn tagged(entry: u32, h: u64) -> u32 {
    entry | tag(h) << RANK_BITS
}

/// The tag of a hash, as a slot holds it (shifted down).
fn tag(h: u64) -> u32 {
    (h >> 32) as u32 & ((1 << (32 - RANK_BITS)) - 1)
}
