//! Data-driven fixtures: every `corpus/fixtures/<case>.html` is snapshotted
//! and compared with `<case>.expected` beside it. `UPDATE_EXPECT=1`
//! rewrites the expected files. A fixture may start with
//! `<!-- whittle-fixture: url=… -->` to set the page URL; otherwise it is
//! `https://fixtures.whittle.test/<case>.html`.

use std::path::Path;

use crate::{sanity, snap, update_expect};

fn fixture_url(html: &str, case: &str) -> String {
    let first = html.lines().next().unwrap_or("");
    first
        .strip_prefix("<!-- whittle-fixture:")
        .and_then(|rest| rest.trim().strip_suffix("-->"))
        .and_then(|directives| directives.split_whitespace().find_map(|d| d.strip_prefix("url=")))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("https://fixtures.whittle.test/{case}.html"))
}

fn check(path: &Path) -> Result<(), String> {
    let case = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_owned();
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let html = String::from_utf8_lossy(&bytes);
    let url = fixture_url(&html, &case);
    let snapshot = snap(&bytes, Some(&url));
    let actual = snapshot.observation.text();
    sanity::check_observation(&snapshot).map_err(|e| format!("{}: {e}", path.display()))?;
    let expected_path = path.with_extension("expected");
    if update_expect() {
        std::fs::write(&expected_path, &actual).map_err(|e| format!("{}: {e}", expected_path.display()))?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&expected_path).map_err(|e| {
        format!("{}: {e} (run with UPDATE_EXPECT=1 to create it)", expected_path.display())
    })?;
    if expected != actual {
        return Err(format!(
            "{} differs from {}\n{}",
            path.display(),
            expected_path.display(),
            line_diff(&expected, &actual)
        ));
    }
    Ok(())
}

/// The lines that differ, marked `-` (expected) and `+` (actual).
fn line_diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    for i in 0..e.len().max(a.len()) {
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("  line {}: - {x}\n", i + 1));
                }
                if let Some(y) = y {
                    out.push_str(&format!("  line {}: + {y}\n", i + 1));
                }
            }
        }
    }
    out
}

#[test]
fn fixtures() {
    let dir = whittle_corpus::fixtures_dir();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    cases.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "html"));
    cases.sort();
    assert!(!cases.is_empty(), "no fixtures in {}", dir.display());
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c).err()).collect();
    println!("fixtures: {} cases, {} failed", cases.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} fixtures failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
