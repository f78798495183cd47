//! Any bytes: the snapshot never panics, is deterministic, and its
//! observation is well formed (header first, no blank lines).
#![no_main]

use libfuzzer_sys::fuzz_target;
use whittle_engine::{RefTable, SnapshotOptions, snapshot};

fuzz_target!(|data: &[u8]| {
    let options = SnapshotOptions::default();
    let a = snapshot(data, &options, &mut RefTable::new());
    let b = snapshot(data, &options, &mut RefTable::new());
    assert_eq!(a.observation, b.observation, "same bytes, different observation");
    assert!(a.observation.header.starts_with('#'));
    assert!(a.observation.lines.iter().all(|l| !l.trim().is_empty()));
});
