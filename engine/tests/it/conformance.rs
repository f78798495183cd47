//! whittle against Chromium on the CSS and HTML constructs the web uses,
//! offline: `corpus/conformance/<page>.html` holds one case per element
//! (an `id` starting `case-`), and `<page>.layout.json` beside it what
//! Chromium made of each (written by `corpus/oracle/chromium_layout.py`,
//! see `corpus/oracle/README.md`):
//!
//! - `c`, `checkVisibility()`: whether the element is rendered, against
//!   ours: not `display: none` and not skipped (`content-visibility`, a
//!   closed `<details>`, `hidden=until-found`);
//! - `v`, whether its computed `visibility` is `visible`, against ours
//!   (where both render it);
//! - `f`, whether `focus()` focused it, for form controls and links,
//!   against ours: a line with a ref that is not disabled (where both
//!   render it).
//!
//! Each page is read as the CLI reads a saved page: its `file:` URL as
//! base, its linked sheets and their `@import`s read from disk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use url::Url;
use whittle_engine::style::Hidden;
use whittle_engine::style::values::Visibility;
use whittle_engine::{
    CascadeOptions, MAX_IMPORT_DEPTH, NodeId, ParseOptions, RefTable, SnapshotOptions, StylesheetText,
    linked_stylesheet_urls, parse, snapshot_document, stylesheet_imports,
};

/// The stylesheets a saved page names, and what they import, from disk.
fn sheets_from_disk(urls: Vec<Url>) -> Vec<StylesheetText> {
    let options = CascadeOptions::default();
    let mut tried: HashSet<Url> = urls.iter().cloned().collect();
    let (mut sheets, mut level) = (Vec::new(), urls);
    for _ in 0..=MAX_IMPORT_DEPTH {
        let mut next = Vec::new();
        for url in &level {
            let Some(text) = url.to_file_path().ok().and_then(|p| std::fs::read_to_string(p).ok()) else { continue };
            let sheet = StylesheetText { url: Some(url.to_string()), text };
            next.extend(stylesheet_imports(&sheet, &options).into_iter().filter(|u| tried.insert(u.clone())));
            sheets.push(sheet);
        }
        level = next;
    }
    sheets
}

/// What one page's cases disagree on, one line each.
fn compare(page: &Path, json: &str) -> Result<(usize, Vec<String>), String> {
    let oracle: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let bytes = std::fs::read(page).map_err(|e| e.to_string())?;
    let url = Url::from_file_path(page.canonicalize().map_err(|e| e.to_string())?).map_err(|()| "no file URL")?;
    let doc = parse(&bytes, &ParseOptions { url: Some(url), ..ParseOptions::default() });
    let mut options = SnapshotOptions::default();
    options.cascade.stylesheets = sheets_from_disk(linked_stylesheet_urls(&doc, &options.cascade));
    let elements: Vec<NodeId> = doc.descendants(NodeId::DOCUMENT).filter(|&n| doc.element(n).is_some()).collect();
    let snap = snapshot_document(doc, &options, &mut RefTable::new());
    let (doc, styles) = (&snap.document, &snap.styles);
    let mut cases = 0;
    let mut wrong = Vec::new();
    for el in oracle["elements"].as_array().ok_or("no elements")? {
        let Some(case) = el["id"].as_str() else { continue };
        cases += 1;
        let node = el["i"].as_u64().and_then(|i| elements.get(i as usize).copied());
        let Some(node) = node.filter(|&n| doc.element(n).is_some_and(|e| e.attr("id") == Some(case))) else {
            wrong.push(format!("{case}: not the same element in whittle's tree"));
            continue;
        };
        let mut check = |what: &str, chromium: bool, ours: bool| {
            if chromium != ours {
                wrong.push(format!("{case}: {what} is {chromium} in Chromium, {ours} in whittle"));
            }
        };
        let rendered = !styles.is_display_none(node);
        let chromium_rendered = el["c"].as_bool().ok_or("no c")?;
        check("rendered", chromium_rendered, rendered);
        if !(rendered && chromium_rendered) {
            continue;
        }
        let visible = styles.get(node).visibility == Visibility::Visible && styles.hidden(node) != Some(Hidden::Invisible);
        let chromium_visible = el["v"].as_bool().ok_or("no v")?;
        check("visible", chromium_visible, visible);
        // Focus alone is not an action: a plain element with `tabindex` can
        // take focus and does nothing; whittle gives it no ref.
        let control = matches!(el["tag"].as_str(), Some("button" | "input" | "select" | "textarea" | "a"));
        if let Some(focusable) = el["f"].as_bool()
            && control
            && visible
            && chromium_visible
        {
            let actionable = snap
                .tree
                .widgets
                .iter()
                .any(|w| w.node == node && w.ref_id.is_some() && !w.states.names().any(|s| s == "disabled"));
            check("actionable", focusable, actionable);
        }
    }
    Ok((cases, wrong))
}

#[test]
fn conformance_cases_behave_as_in_chromium() {
    let dir = whittle_corpus::conformance_dir();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "html")).collect())
        .unwrap_or_default();
    pages.sort();
    assert!(!pages.is_empty(), "no conformance pages in {}", dir.display());
    let (mut cases, mut wrong) = (0, Vec::new());
    for page in &pages {
        let json = page.with_extension("layout.json");
        let json = std::fs::read_to_string(&json)
            .unwrap_or_else(|e| panic!("{}: {e} (python3 corpus/oracle/chromium_layout.py measures it)", json.display()));
        let name = page.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        match compare(page, &json) {
            Ok((n, w)) => {
                println!("{name}: {}/{n} cases as in Chromium", n - w.len());
                cases += n;
                wrong.extend(w.into_iter().map(|w| format!("{name} {w}")));
            }
            Err(e) => wrong.push(format!("{name}: {e}")),
        }
    }
    println!("all: {}/{cases} cases as in Chromium", cases - wrong.len());
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
}
