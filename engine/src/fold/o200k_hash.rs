// The hash of o200k's token index, shared by `build.rs` (which fills the
// index) and `o200k.rs` (which reads it) through `include!`.

/// FNV-1a over the bytes, folded to a slot number.
fn hash(bytes: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 29)) as usize
}
