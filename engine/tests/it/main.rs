//! whittle-engine's integration tests, one binary:
//! - `fixtures`: `corpus/fixtures/<case>.html` against `<case>.expected`;
//! - `wpt`: roles and names against the WPT pages of the shared corpus,
//!   with a ratchet;
//! - `corpus`: every page of the shared corpus snapshots without panicking,
//!   deterministically, with a well-formed observation;
//! - `layout`: boxes against Chromium's (`corpus/*/<page>.layout.json`);
//! - `limits`: huge and deeply nested pages finish;
//! - `refs`: refs stay stable across re-renders, mutations and tabs
//!   (property tests);
//! - `diff`, `find`, `extract`: the act-result diff and the `find` and
//!   `extract` tools on hand-written pages, and the diff's properties;
//! - `folding`: budgets always met (by tiktoken's count), the estimate
//!   against tiktoken, protected and unfolded refs, modes.

mod act;
mod conformance;
mod corpus;
mod diff;
mod digest;
mod extract;
mod find;
mod fixtures;
mod folding;
mod layout;
mod limits;
mod refs;
mod sanity;
mod stages;
mod scripts;
mod wpt;

use whittle_engine::{RefTable, Snapshot, SnapshotOptions, snapshot};

/// Snapshots `bytes` as if fetched from `url`.
pub fn snap(bytes: &[u8], url: Option<&str>) -> Snapshot {
    let mut options = SnapshotOptions::default();
    options.parse.url = url.and_then(|u| url::Url::parse(u).ok());
    snapshot(bytes, &options, &mut RefTable::new())
}

/// Snapshots `bytes` with folding off: every line.
pub fn snap_unfolded(bytes: &[u8], url: Option<&str>) -> Snapshot {
    let mut options = SnapshotOptions::default();
    options.parse.url = url.and_then(|u| url::Url::parse(u).ok());
    options.fold = whittle_engine::FoldOptions::unfolded();
    snapshot(bytes, &options, &mut RefTable::new())
}

/// The real o200k_base token count of a text (tiktoken's tables, loaded
/// once per test binary).
pub fn o200k_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// Whether expected files should be rewritten instead of compared.
pub fn update_expect() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v != "0")
}
