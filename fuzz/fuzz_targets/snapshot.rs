//! Any bytes: the snapshot never panics, is deterministic, its observation
//! is well formed (header first, no blank lines), and rendering the same
//! document again with the same ref table changes nothing (refs are stable).
#![no_main]

use libfuzzer_sys::fuzz_target;
use whittle_engine::{RefTable, SnapshotOptions, snapshot, snapshot_document};

fuzz_target!(|data: &[u8]| {
    let options = SnapshotOptions::default();
    let mut refs = RefTable::new();
    let a = snapshot(data, &options, &mut refs);
    let b = snapshot(data, &options, &mut RefTable::new());
    assert_eq!(a.observation, b.observation, "same bytes, different observation");
    assert!(a.observation.header.starts_with('#'));
    assert!(a.observation.lines.iter().all(|l| !l.trim().is_empty()));
    let first = a.observation;
    let again = snapshot_document(a.document, &options, &mut refs);
    assert_eq!(first, again.observation, "same document re-rendered, different observation or refs");
});
