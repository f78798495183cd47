//! Pages at the limits: a 20 MB page and 100,000-deep nesting of every
//! kind finish without overflowing the stack, keep their content, and give
//! a well-formed observation. (How long they take is measured by the
//! bench, not asserted here.)

use whittle_corpus::generate::{Hostile, Nesting, hostile_page, nested_page, realistic_page};

use crate::{sanity, snap, snap_unfolded};

#[test]
fn a_20_mb_page() {
    let page = realistic_page(20 * 1024 * 1024);
    // Folded to the default budget: well-formed, and within it.
    let folded = snap(page.as_bytes(), None);
    sanity::check_observation(&folded).unwrap_or_else(|e| panic!("{e}"));
    assert!(folded.folded.estimated_tokens <= whittle_engine::fold::DEFAULT_BUDGET);
    let s = snap_unfolded(page.as_bytes(), None);
    sanity::check_observation(&s).unwrap_or_else(|e| panic!("{e}"));
    let text = s.observation.text();
    assert!(text.contains("Section 0: notes on item 0"));
    assert!(text.contains("Generated"), "the footer after 20 MB is there");
    // Hidden spans are counted, not shown.
    assert!(!text.contains("secret 1"));
    assert!(s.tree.counters.omitted_not_visible > 1000);
}

#[test]
fn deep_nesting_of_every_kind() {
    for kind in Nesting::ALL {
        let page = nested_page(kind, 100_000);
        let folded = snap(page.as_bytes(), None);
        sanity::check_observation(&folded).unwrap_or_else(|e| panic!("{kind:?} folded: {e}"));
        let s = snap_unfolded(page.as_bytes(), None);
        sanity::check_observation(&s).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let text = s.observation.text();
        assert!(text.contains("after"), "{kind:?}: the paragraph after the nesting is missing:\n{}", &text[..text.len().min(500)]);
        // Every stage's dump walks the whole tree without recursion.
        assert!(!s.document.dump().is_empty());
        assert!(!s.styles.dump(&s.document).is_empty());
        let _ = s.semantics.dump(&s.document, &s.styles);
    }
}

#[test]
fn hostile_patterns_finish() {
    // Each of these once made a stage superlinear; their scaling is printed
    // by `cargo run --release -p whittle-benches --bin hostile`.
    for kind in Hostile::ALL {
        let page = hostile_page(kind, 5_000);
        let s = snap(page.as_bytes(), None);
        sanity::check_observation(&s).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    }
}
