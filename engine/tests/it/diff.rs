//! The act-result diff (docs/observation.md): pages changed through the mutation
//! API diff as the protocol shows, lines keep their identity by ref, and
//! as properties over random line edits: a diff of an observation with
//! itself is empty, and applying a diff to the old lines gives the new
//! ones.

use proptest::prelude::*;
use whittle_engine::diff::{DiffChoice, EditOp, WhyFull};
use whittle_engine::fold::Refs;
use whittle_engine::{Diff, Observation, RefTable, SnapshotOptions, diff, diff_or_full, snapshot, snapshot_document};

const SHIPPING: &str = r#"<title>Shipping</title>
<main>
<h1>Shipping</h1>
<form aria-label="Shipping">
<label>Email <input type=email id=email required></label>
<label>Postcode <input id=zip></label>
<div id=msgs></div>
<button>Continue</button>
</form>
<ul id=list><li>One</li><li id=two>Two</li></ul>
</main>"#;

fn unfolded() -> SnapshotOptions {
    SnapshotOptions { fold: whittle_engine::FoldOptions::unfolded(), ..SnapshotOptions::default() }
}

#[test]
fn a_typed_value_an_alert_and_a_removed_item() {
    let options = unfolded();
    let mut refs = RefTable::new();
    let before = snapshot(SHIPPING.as_bytes(), &options, &mut refs);
    assert_eq!(
        before.observation.text(),
        "# Shipping\nmain\n h1 Shipping\n [1] form \"Shipping\"\n  [2] textbox \"Email\" required\n  \
         [3] textbox \"Postcode\"\n  [4] button \"Continue\"\n [5] list\n  - One\n  - Two\n"
    );
    let mut doc = before.document;
    let email = doc.element_by_id("email").expect("email");
    doc.set_attribute(email, "value", "jane@example.com").expect("set value");
    let msgs = doc.element_by_id("msgs").expect("msgs");
    let alert = doc.create_html_element("div", &[("role", "alert")]).expect("alert");
    let text = doc.create_text("Please enter a valid postcode").expect("text");
    doc.append_child(alert, text).expect("append text");
    doc.append_child(msgs, alert).expect("append alert");
    let two = doc.element_by_id("two").expect("two");
    doc.detach(two).expect("detach");
    let after = snapshot_document(doc, &options, &mut refs);

    let d = diff(&before.observation, &after.observation);
    assert_eq!((d.added, d.removed, d.changed), (1, 1, 1));
    assert_eq!(
        d.text(),
        "Δ +1 −1 ~1\n@ [1] form \"Shipping\"\n~ [2] textbox \"Email\" = \"jane@example.com\" required\n\
         + alert: Please enter a valid postcode\n@ [5] list\n- - Two\n"
    );
    assert!(diff(&after.observation, &after.observation).is_empty());
}

#[test]
fn header_changes_and_new_top_level_lines_need_no_context() {
    let options = unfolded();
    let mut refs = RefTable::new();
    let before = snapshot(b"<title>Cart</title><main><p>Empty</p></main>", &options, &mut refs);
    let mut doc = before.document;
    let body = doc.body().expect("body");
    let form = doc.create_html_element("form", &[("aria-label", "Saved")]).expect("form");
    let ok = doc.create_html_element("button", &[]).expect("button");
    let label = doc.create_text("OK").expect("text");
    doc.append_child(ok, label).expect("label");
    doc.append_child(form, ok).expect("button in");
    doc.append_child(body, form).expect("form in");
    let title = doc
        .descendants(whittle_engine::NodeId::DOCUMENT)
        .find(|&n| doc.element(n).is_some_and(|e| &**e.local_name() == "title"));
    let title_text = title.and_then(|t| doc.first_child(t)).expect("title text");
    doc.set_text(title_text, "Cart (1)").expect("set title");
    let after = snapshot_document(doc, &options, &mut refs);
    assert_eq!(
        diff(&before.observation, &after.observation).text(),
        // The button's context is the form just printed as added.
        "Δ +2 −0 ~1\n~ # Cart (1)\n+ [1] form \"Saved\"\n+ [2] button \"OK\"\n"
    );
}

#[test]
fn page_text_that_looks_like_a_ref_is_not_an_identity() {
    let options = unfolded();
    let mut refs = RefTable::new();
    let before = snapshot(b"<p id=p>See [7] below</p><a href=/x>X</a>", &options, &mut refs);
    let mut doc = before.document;
    let p = doc.element_by_id("p").expect("p");
    let t = doc.first_child(p).expect("text");
    doc.set_text(t, "See [7] above").expect("set text");
    let after = snapshot_document(doc, &options, &mut refs);
    // A line without refs changes as a removal and an addition; the
    // escaped `\[7]` names nothing.
    assert_eq!(
        diff(&before.observation, &after.observation).text(),
        "Δ +1 −1 ~0\n- See \\[7] below\n+ See \\[7] above\n"
    );
}

#[test]
fn line_refs_are_the_refs_the_lines_show() {
    for name in ["demo-shop.html", "controls.html", "inline-runs.html", "aria-widgets.html"] {
        let Ok(bytes) = std::fs::read(whittle_corpus::fixtures_dir().join(name)) else { continue };
        let mut refs = RefTable::new();
        let s = snapshot(&bytes, &SnapshotOptions::default(), &mut refs);
        let o = &s.observation;
        assert_eq!(o.lines.len(), o.line_refs.len(), "{name}");
        for (line, refs) in o.lines.iter().zip(&o.line_refs) {
            assert_eq!(shown_refs(line), refs.to_vec(), "{name}: {line}");
        }
        // Rendering the unchanged page again changes nothing.
        let again = snapshot_document(s.document, &SnapshotOptions::default(), &mut refs);
        assert!(diff(&s.observation, &again.observation).is_empty(), "{name}");
    }
}

/// The `[n] ` marks of a line that whittle wrote: not escaped, not inside
/// quotes, not in a fold line.
fn shown_refs(line: &str) -> Vec<u32> {
    if line.trim_start().starts_with('…') {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut quoted = false;
    let mut prev = ' ';
    let chars: Vec<char> = line.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '"' && prev != '\\' {
            quoted = !quoted;
        } else if c == '[' && !quoted && prev != '\\' {
            let digits: String = chars[i + 1..].iter().take_while(|d| d.is_ascii_digit()).collect();
            if !digits.is_empty() && chars.get(i + 1 + digits.len()) == Some(&']') {
                out.push(digits.parse().unwrap_or_default());
            }
        }
        prev = c;
    }
    out
}

#[test]
fn diff_or_full_follows_the_protocol() {
    let old = observation("https://shop.example/a", &lines(20, ""));
    let mut new = old.clone();
    new.lines[3] = "[4] button \"Buy 4\" pressed".to_owned();
    match diff_or_full(&old, &new) {
        DiffChoice::Diff(d) => assert_eq!(d.text(), "Δ +0 −0 ~1\n~ [4] button \"Buy 4\" pressed\n"),
        other => panic!("{other:?}"),
    }
    // Every line changed: the diff would cost more than the page.
    let rewritten = observation("https://shop.example/a", &lines(20, " again"));
    assert!(matches!(diff_or_full(&old, &rewritten), DiffChoice::Full(WhyFull::TooLarge { .. })));
    let moved = observation("https://shop.example/b", &lines(20, ""));
    assert_eq!(diff_or_full(&old, &moved), DiffChoice::Full(WhyFull::Navigated));
    let fragment = observation("https://shop.example/a#reviews", &lines(20, ""));
    assert!(matches!(diff_or_full(&old, &fragment), DiffChoice::Diff(d) if d.is_empty()));
}

fn lines(n: u32, suffix: &str) -> Vec<(String, Refs)> {
    (1..=n).map(|i| (format!("[{i}] button \"Buy {i}\"{suffix}"), Refs::from_slice(&[i]))).collect()
}

fn observation(url: &str, lines: &[(String, Refs)]) -> Observation {
    Observation {
        notes: Vec::new(),
        title: "Shop".to_owned(),
        url: url.to_owned(),
        header: "# Shop".to_owned(),
        lines: lines.iter().map(|(l, _)| l.clone()).collect(),
        line_refs: lines.iter().map(|(_, r)| r.clone()).collect(),
        widgets: Vec::new(),
        tree_truncated: false,
        marks_truncated: false,
    }
}

#[test]
fn ten_thousand_lines_rewritten_diff_without_blowing_up() {
    let old: Vec<(String, Refs)> = (0..10_000).map(|i| (format!("row {i}"), Refs::new())).collect();
    // Every line changes and the order is reversed: no alignment is cheap.
    let new: Vec<(String, Refs)> = (0..10_000).rev().map(|i| (format!("row {i} b"), Refs::new())).collect();
    let d = diff(&observation("", &old), &observation("", &new));
    assert_eq!((d.added, d.removed, d.changed), (10_000, 10_000, 0));
    // Reversed but equal: the keyed alignment keeps one line, the rest moves.
    let reversed: Vec<(String, Refs)> = old.iter().rev().cloned().collect();
    let d = diff(&observation("", &old), &observation("", &reversed));
    let texts = |ls: &[(String, Refs)]| ls.iter().map(|l| l.0.clone()).collect::<Vec<_>>();
    assert_eq!(apply(&texts(&old), &d), texts(&reversed));
}

/// Applies a diff's edits to the old lines.
fn apply(old: &[String], d: &Diff) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    for e in &d.edits {
        out.extend_from_slice(&old[at..e.old]);
        let line = format!("{}{}", " ".repeat(e.depth), e.text);
        match e.op {
            EditOp::Removed => at = e.old + 1,
            EditOp::Changed => {
                out.push(line);
                at = e.old + 1;
            }
            EditOp::Added => {
                out.push(line);
                at = e.old;
            }
        }
    }
    out.extend_from_slice(&old[at..]);
    out
}

/// A line of a random observation: depth, a word, and whether it has a
/// ref (its number is given from its position).
fn random_lines() -> impl Strategy<Value = Vec<(usize, u8, bool)>> {
    proptest::collection::vec((0usize..4, 0u8..5, any::<bool>()), 0..30)
}

#[derive(Debug, Clone)]
enum LineEdit {
    Insert(usize, usize, u8, bool),
    Delete(usize),
    /// New text, same ref (a value typed).
    Retext(usize, u8),
    Redepth(usize, usize),
}

fn line_edit() -> impl Strategy<Value = LineEdit> {
    prop_oneof![
        (any::<usize>(), 0usize..4, 0u8..5, any::<bool>()).prop_map(|(i, d, w, r)| LineEdit::Insert(i, d, w, r)),
        any::<usize>().prop_map(LineEdit::Delete),
        (any::<usize>(), 0u8..5).prop_map(|(i, w)| LineEdit::Retext(i, w)),
        (any::<usize>(), 0usize..4).prop_map(|(i, d)| LineEdit::Redepth(i, d)),
    ]
}

/// (depth, word, ref) to an observation line and its refs.
fn render(lines: &[(usize, String, Option<u32>)]) -> Vec<(String, Refs)> {
    lines
        .iter()
        .map(|(d, w, r)| {
            let indent = " ".repeat(*d);
            match r {
                Some(r) => (format!("{indent}[{r}] link \"{w}\""), Refs::from_slice(&[*r])),
                None => (format!("{indent}{w}"), Refs::new()),
            }
        })
        .collect()
}

proptest! {
    #[test]
    fn diffs_apply_and_self_diffs_are_empty(
        start in random_lines(),
        edits in proptest::collection::vec(line_edit(), 0..12),
        title_changes in any::<bool>(),
    ) {
        let words = ["alpha", "beta", "gamma", "delta", "[3] text"];
        let mut next_ref = 1000;
        let mut lines: Vec<(usize, String, Option<u32>)> = start
            .iter()
            .enumerate()
            .map(|(i, &(d, w, r))| (d, words[usize::from(w)].to_owned(), r.then_some(i as u32 + 1)))
            .collect();
        let old = observation("https://x.example/", &render(&lines));
        prop_assert!(diff(&old, &old).is_empty());
        prop_assert_eq!(diff(&old, &old).text(), "Δ +0 −0 ~0\n");
        for e in edits {
            let n = lines.len();
            match e {
                LineEdit::Insert(i, d, w, r) => {
                    let r = r.then(|| { next_ref += 1; next_ref });
                    lines.insert(i % (n + 1), (d, words[usize::from(w)].to_owned(), r));
                }
                LineEdit::Delete(i) if n > 0 => { lines.remove(i % n); }
                LineEdit::Retext(i, w) if n > 0 => {
                    lines[i % n].1 = format!("{} {}", lines[i % n].1, words[usize::from(w)]);
                }
                LineEdit::Redepth(i, d) if n > 0 => lines[i % n].0 = d,
                _ => {}
            }
        }
        let mut new = observation("https://x.example/", &render(&lines));
        if title_changes {
            new.header = "# Shop (2)".to_owned();
        }
        let d = diff(&old, &new);
        prop_assert_eq!(apply(&old.lines, &d), new.lines.clone());
        let count = |op| d.edits.iter().filter(|e| e.op == op).count() as u32;
        prop_assert_eq!(d.added, count(EditOp::Added));
        prop_assert_eq!(d.removed, count(EditOp::Removed));
        prop_assert_eq!(d.changed, count(EditOp::Changed) + u32::from(title_changes));
        prop_assert_eq!(d.is_empty(), old.lines == new.lines && !title_changes);
        // The text has one line per count and context lines.
        let text = d.text();
        let marks = text.lines().skip(1).filter(|l| !l.starts_with("@ ")).count() as u32;
        prop_assert_eq!(marks, d.added + d.removed + d.changed);
    }
}
