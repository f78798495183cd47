//! Any stylesheet, linked from a fixed page and importable from itself:
//! cascade and layout never panic.
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/cascade/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::cascade_check(data) {
        panic!("{e}");
    }
});
