//! Two pages split at the first NUL byte: an observation's diff with itself
//! is empty, and every diff applied to the old lines gives the new ones.
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/diff/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: whittle_benches::fuzz_checks::warm_up(), |data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::diff_check(data) {
        panic!("{e}");
    }
});
