//! Every crash input the fuzz targets found and the project kept
//! (`corpus/fuzz-regressions/<target>/<file>`) replays through its target's
//! check (`whittle_benches::fuzz_checks`, the code the fuzz target runs), so
//! a fixed crash stays fixed without cargo-fuzz. A folder that names no
//! target is an error: its inputs would never run.

use std::path::{Path, PathBuf};

use whittle_benches::fuzz_checks::{TARGETS, check};

/// The entries of a folder, sorted; notes (`*.md`) left out.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .collect();
    out.sort();
    out
}

#[test]
fn kept_crash_inputs_pass_their_targets_checks() {
    let root = whittle_corpus::workspace_dir().join("corpus").join("fuzz-regressions");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for dir in entries(&root) {
        let target = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !dir.is_dir() || !TARGETS.contains(&target.as_str()) {
            failures.push(format!("{}: not a folder named after a fuzz target ({})", dir.display(), TARGETS.join(", ")));
            continue;
        }
        for input in entries(&dir) {
            let bytes = std::fs::read(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            replayed += 1;
            match std::panic::catch_unwind(|| check(&target, &bytes)) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(format!("{}: {e}", input.display())),
                Err(_) => failures.push(format!("{}: panicked (the message is above)", input.display())),
            }
        }
    }
    println!("fuzz_regressions: {replayed} kept inputs replayed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The `tool_args` harness on inputs from a fixed pseudo-random stream: a
/// few hundred calls over both tool sets (whittle's and the agent-browser
/// set), each ending in a well-formed result. Not fuzzing (the fuzz smoke
/// and long runs are), but it keeps the harness and every tool's argument
/// reading working under `cargo test`.
#[test]
fn tool_args_harness_survives_a_fixed_stream_of_inputs() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut failures = Vec::new();
    for i in 0..120 {
        let len = 1 + (next() % 96) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Keep argument objects (tool bytes below 0x80) common.
        for b in bytes.iter_mut().skip(1).step_by(7) {
            *b &= 0x7f;
        }
        if let Err(e) = check("tool_args", &bytes) {
            failures.push(format!("input {i} {bytes:?}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
