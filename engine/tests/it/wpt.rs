//! The WPT accessibility pages of the shared corpus (`wpt/`, without
//! `manual/`), run as they are: every element carrying
//! `data-expectedrole`, `data-expectedlabel`/`data-expectedname` or class
//! `ex-generic` is compared with whittle's role and name. Passes and
//! failures are printed per file; `tests/wpt-ratchet.txt` records the pass
//! counts, and the test fails when any file passes fewer checks than
//! recorded. `UPDATE_EXPECT=1` rewrites the ratchet (after an improvement).
//!
//! Expected values the upstream suite marks as unsettled
//! (`indeterminate`, `SPEC_AMBIGUOUS_LOG_VALUE`, `UNDEFINED…`) are logged
//! and skipped, never counted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use whittle_engine::{Selector, collapse_whitespace};

use crate::{snap, update_expect};

const SELECTOR: &str = "[data-expectedrole],[data-expectedlabel],[data-expectedname],.ex-generic";

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    pass: u32,
    total: u32,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct FileTally {
    roles: Tally,
    names: Tally,
    generic: Tally,
}

fn norm_role(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase();
    match s.as_str() {
        "img" => "image".into(),
        "presentation" => "none".into(),
        _ => s,
    }
}

fn unsettled(want: &str) -> bool {
    let w = want.trim().to_ascii_lowercase();
    w == "indeterminate" || w == "spec_ambiguous_log_value" || w.starts_with("undefined")
}

fn ratchet_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("wpt-ratchet.txt")
}

fn read_ratchet() -> BTreeMap<String, FileTally> {
    let text = std::fs::read_to_string(ratchet_path()).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut parts = line.split_whitespace();
        let Some(file) = parts.next() else { continue };
        let mut t = FileTally::default();
        for p in parts {
            let Some((k, v)) = p.split_once('=') else { continue };
            let Some((pass, total)) = v.split_once('/') else { continue };
            let tally = Tally { pass: pass.parse().unwrap_or(0), total: total.parse().unwrap_or(0) };
            match k {
                "roles" => t.roles = tally,
                "names" => t.names = tally,
                "generic" => t.generic = tally,
                _ => {}
            }
        }
        out.insert(file.to_owned(), t);
    }
    out
}

fn write_ratchet(results: &BTreeMap<String, FileTally>) {
    let mut text = String::from(
        "# WPT pass counts per page (pass/total). The wpt test fails when a page passes\n\
         # fewer checks than recorded here. Rewrite with UPDATE_EXPECT=1 after an improvement.\n",
    );
    for (file, t) in results {
        text.push_str(&format!(
            "{file} roles={}/{} names={}/{} generic={}/{}\n",
            t.roles.pass, t.roles.total, t.names.pass, t.names.total, t.generic.pass, t.generic.total
        ));
    }
    if let Err(e) = std::fs::write(ratchet_path(), text) {
        panic!("cannot write {}: {e}", ratchet_path().display());
    }
}

#[test]
fn wpt_roles_and_names() {
    let Some(shared) = whittle_corpus::shared_dir() else {
        println!("wpt: skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    };
    let dir = shared.join("wpt");
    let pages = whittle_corpus::html_files_under(&dir, &["manual"]);
    assert!(!pages.is_empty(), "no WPT pages under {}", dir.display());
    let selector = Selector::parse(SELECTOR).unwrap_or_else(|e| panic!("{e}"));
    let mut results: BTreeMap<String, FileTally> = BTreeMap::new();
    let mut skipped = 0u32;
    for page in &pages {
        let rel = page.strip_prefix(&dir).unwrap_or(page).display().to_string();
        let bytes = std::fs::read(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let s = snap(&bytes, None);
        let doc = &s.document;
        let mut namer = s.semantics.namer(doc, &s.styles);
        let mut tally = FileTally::default();
        let mut failures = Vec::new();
        for id in selector.select(doc) {
            let Some(e) = doc.element(id) else { continue };
            let ax = s.semantics.ax_node_with(&mut namer, doc, &s.styles, id);
            let test = e.attr("data-testname").unwrap_or("?");
            let got_role = norm_role(ax.role.as_str());
            let mut check = |kind: &str, tally: &mut Tally, want: &str, got: &str| {
                if unsettled(want) {
                    skipped += 1;
                    return;
                }
                tally.total += 1;
                if want == got {
                    tally.pass += 1;
                } else {
                    failures.push(format!("  FAIL [{test}] {kind}: want {want:?} got {got:?}"));
                }
            };
            if let Some(want) = e.attr("data-expectedrole") {
                check("role", &mut tally.roles, &norm_role(want), &got_role);
            }
            for key in ["data-expectedlabel", "data-expectedname"] {
                if let Some(want) = e.attr(key) {
                    // The upstream harness compares trimmed strings (JS trim).
                    let (want, got) = (collapse_whitespace(want), collapse_whitespace(&ax.name));
                    check("name", &mut tally.names, want.trim(), got.trim());
                }
            }
            if e.classes().any(|c| c == "ex-generic") {
                let generic = matches!(got_role.as_str(), "generic" | "none" | "");
                check("generic", &mut tally.generic, "generic", if generic { "generic" } else { &got_role });
            }
        }
        println!(
            "wpt: {rel} roles {}/{} names {}/{} generic {}/{}",
            tally.roles.pass, tally.roles.total, tally.names.pass, tally.names.total, tally.generic.pass, tally.generic.total
        );
        for f in &failures {
            println!("{f}");
        }
        results.insert(rel, tally);
    }
    let sum = |f: fn(&FileTally) -> Tally| {
        results.values().map(f).fold(Tally::default(), |a, b| Tally { pass: a.pass + b.pass, total: a.total + b.total })
    };
    let (roles, names, generic) = (sum(|t| t.roles), sum(|t| t.names), sum(|t| t.generic));
    let pct = |t: Tally| if t.total == 0 { 0.0 } else { 100.0 * f64::from(t.pass) / f64::from(t.total) };
    println!(
        "wpt: {} pages · roles {}/{} ({:.1}%) · names {}/{} ({:.1}%) · generic {}/{} ({:.1}%) · {skipped} unsettled checks skipped",
        results.len(),
        roles.pass,
        roles.total,
        pct(roles),
        names.pass,
        names.total,
        pct(names),
        generic.pass,
        generic.total,
        pct(generic)
    );
    if update_expect() {
        write_ratchet(&results);
        return;
    }
    let ratchet = read_ratchet();
    assert!(!ratchet.is_empty(), "no ratchet at {}: run with UPDATE_EXPECT=1 to record one", ratchet_path().display());
    let mut regressions = Vec::new();
    for (file, want) in &ratchet {
        let got = results.get(file).copied().unwrap_or_default();
        for (kind, w, g) in [("roles", want.roles, got.roles), ("names", want.names, got.names), ("generic", want.generic, got.generic)] {
            if g.pass < w.pass {
                regressions.push(format!("{file}: {kind} {}/{} now, {}/{} recorded", g.pass, g.total, w.pass, w.total));
            }
        }
    }
    assert!(regressions.is_empty(), "WPT regressions against {}:\n{}", ratchet_path().display(), regressions.join("\n"));
}
