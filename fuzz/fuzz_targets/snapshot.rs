//! The first byte chooses mode and budget, the rest is a page: the snapshot
//! never panics, is deterministic, well formed, within its budget by
//! tiktoken's count, and the same document rendered again with the same
//! ref table does not change (refs are stable).
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/snapshot/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: whittle_benches::fuzz_checks::warm_up(), |data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::snapshot_check(data) {
        panic!("{e}");
    }
});
