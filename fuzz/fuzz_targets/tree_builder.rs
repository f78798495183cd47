//! Differential: any text gives the same tree in whittle's arena as in
//! html5ever's rcdom (`whittle_benches::tree`), unless a parser cap applied.
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/tree_builder/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::tree_builder_check(data) {
        panic!("{e}");
    }
});
