//! Data-driven fixtures: every `corpus/fixtures/<case>.html` is snapshotted
//! and compared with `<case>.expected` beside it. `UPDATE_EXPECT=1`
//! rewrites the expected files. A fixture may start with
//! `<!-- whittle-fixture: url=… -->` to set the page URL; otherwise it is
//! `https://fixtures.whittle.test/<case>.html`.
//!
//! Variants: a sidecar `<case>.variants` holds one variant per line,
//! `NAME option…` with the options `mode=actions|full|read`, `budget=N`,
//! `expand=REF` and `no-fold` (`#` starts a comment). Each variant is
//! compared with `<case>.NAME.expected`, and its observation must fit its
//! budget by tiktoken's o200k count.

use std::path::Path;

use whittle_engine::fold::{FoldOptions, Mode};
use whittle_engine::{RefTable, SnapshotOptions, snapshot};

use crate::{o200k_tokens, sanity, update_expect};

fn fixture_url(html: &str, case: &str) -> String {
    let first = html.lines().next().unwrap_or("");
    first
        .strip_prefix("<!-- whittle-fixture:")
        .and_then(|rest| rest.trim().strip_suffix("-->"))
        .and_then(|directives| directives.split_whitespace().find_map(|d| d.strip_prefix("url=")))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("https://fixtures.whittle.test/{case}.html"))
}

/// Fold options from a variant's words.
fn parse_variant(words: &[&str]) -> Result<FoldOptions, String> {
    let mut o = FoldOptions::default();
    for w in words {
        match w.split_once('=') {
            Some(("mode", m)) => o.mode = Mode::parse(m).ok_or_else(|| format!("bad mode {m:?}"))?,
            Some(("budget", b)) => o.budget = Some(b.parse().map_err(|_| format!("bad budget {b:?}"))?),
            Some(("expand", r)) => o.expand = Some(r.parse().map_err(|_| format!("bad ref {r:?}"))?),
            None if *w == "no-fold" => o.budget = None,
            _ => return Err(format!("unknown variant option {w:?}")),
        }
    }
    Ok(o)
}

/// The variants of a case: the default, then those of its sidecar.
fn variants(path: &Path) -> Result<Vec<(Option<String>, FoldOptions)>, String> {
    let mut out = vec![(None, FoldOptions::default())];
    let sidecar = path.with_extension("variants");
    let Ok(text) = std::fs::read_to_string(&sidecar) else { return Ok(out) };
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((name, opts)) = words.split_first() else { continue };
        let options = parse_variant(opts).map_err(|e| format!("{}: {e}", sidecar.display()))?;
        out.push((Some((*name).to_owned()), options));
    }
    Ok(out)
}

fn check(path: &Path) -> Result<(), String> {
    let case = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_owned();
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let html = String::from_utf8_lossy(&bytes);
    let url = fixture_url(&html, &case);
    let mut errors = Vec::new();
    for (name, fold) in variants(path)? {
        let mut options = SnapshotOptions::default();
        options.parse.url = url::Url::parse(&url).ok();
        options.fold = fold;
        let snapshot = snapshot(&bytes, &options, &mut RefTable::new());
        let actual = snapshot.observation.text();
        let label = match &name {
            Some(n) => format!("{} [{n}]", path.display()),
            None => path.display().to_string(),
        };
        if let Err(e) = sanity::check_observation(&snapshot) {
            errors.push(format!("{label}: {e}"));
            continue;
        }
        if let Some(b) = fold.budget {
            let real = o200k_tokens(&actual);
            if real > b as usize {
                errors.push(format!("{label}: {real} tokens, over the budget of {b}"));
            }
        }
        let expected_path = match &name {
            Some(n) => path.with_extension(format!("{n}.expected")),
            None => path.with_extension("expected"),
        };
        if update_expect() {
            std::fs::write(&expected_path, &actual).map_err(|e| format!("{}: {e}", expected_path.display()))?;
            continue;
        }
        let expected = match std::fs::read_to_string(&expected_path) {
            Ok(e) => e,
            Err(e) => {
                errors.push(format!("{}: {e} (run with UPDATE_EXPECT=1 to create it)", expected_path.display()));
                continue;
            }
        };
        if expected != actual {
            errors.push(format!(
                "{label} differs from {}\n{}",
                expected_path.display(),
                line_diff(&expected, &actual)
            ));
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(errors.join("\n")) }
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
