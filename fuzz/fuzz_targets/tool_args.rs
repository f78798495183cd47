//! Arbitrary JSON arguments for every MCP tool through `Session::call` on
//! the static backend, fetching only from a loopback server of its own:
//! an output every time, never a panic.
//!
//! The check is `whittle_benches::fuzz_checks`'s, shared with the
//! regression test that replays `corpus/fuzz-regressions/tool_args/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = whittle_benches::fuzz_checks::tool_harness().and_then(|h| h.check(data)) {
        panic!("{e}");
    }
});
