//! Any text as a URL (and as a link on a page): `compact_url` never panics,
//! is deterministic, writes no control characters and keeps its length
//! bounds.
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/url/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::url_check(data) {
        panic!("{e}");
    }
});
