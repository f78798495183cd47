//! The properties the fuzz targets (`fuzz/fuzz_targets/*.rs`) check on each
//! input. They live here rather than in the fuzz crate so that a crash input
//! kept under `corpus/fuzz-regressions/<target>/` replays through the same
//! code in `cargo test` (`tests/fuzz_regressions.rs`), without cargo-fuzz.
//!
//! Each check returns `Err` saying what broke. A panic in the code under
//! test is a failure too: libFuzzer reports it as a crash, the test as a
//! failed test.

pub mod tool_args;

use std::sync::OnceLock;

use url::Url;
use whittle_engine::diff::{Diff, EditOp};
use whittle_engine::fold::{FoldOptions, MIN_BUDGET, Mode};
use whittle_engine::{
    CascadeOptions, Observation, RefTable, SnapshotOptions, StylesheetText, compact_url, parse, snapshot,
    snapshot_document,
};

pub use tool_args::ToolHarness;

use crate::tree::{self, Comparison};

/// Every target, by its name in `fuzz/Cargo.toml` and its folder under
/// `corpus/fuzz-regressions/`.
pub const TARGETS: [&str; 6] = ["cascade", "diff", "snapshot", "tool_args", "tree_builder", "url"];

/// Runs target `target`'s check on one input.
pub fn check(target: &str, data: &[u8]) -> Result<(), String> {
    match target {
        "cascade" => cascade_check(data),
        "diff" => diff_check(data),
        "snapshot" => snapshot_check(data),
        "tool_args" => tool_harness()?.check(data),
        "tree_builder" => tree_builder_check(data),
        "url" => url_check(data),
        other => Err(format!("no fuzz target named {other:?}")),
    }
}

/// The `tool_args` harness of this process, started on first use (a
/// runtime, a loopback server and a fetcher shared by every input).
pub fn tool_harness() -> Result<&'static ToolHarness, String> {
    static HARNESS: OnceLock<Result<ToolHarness, String>> = OnceLock::new();
    HARNESS.get_or_init(ToolHarness::new).as_ref().map_err(Clone::clone)
}

/// `tree_builder`: the bytes, read as UTF-8 (lossy), give the same tree in
/// whittle's arena as in html5ever's rcdom. Text past the parser's caps is
/// not compared (see [`tree::compare`]).
pub fn tree_builder_check(data: &[u8]) -> Result<(), String> {
    match tree::compare(&String::from_utf8_lossy(data)) {
        Comparison::Differ(d) => Err(format!("whittle's tree is not html5ever's (rcdom): {d}")),
        Comparison::Same | Comparison::NotApplicable(_) => Ok(()),
    }
}

/// `cascade`: any stylesheet against a fixed page never panics, cascade
/// and layout together (so `@container` queries run both passes). The
/// sheet is linked, and importable from itself and under a second name
/// (`@import "b.css"`), so imports, their cycles and layers run too.
pub fn cascade_check(data: &[u8]) -> Result<(), String> {
    const PAGE: &[u8] = br#"<!doctype html><title>t</title><link rel=stylesheet href=a.css><nav class=a id=n><a href=/>x</a></nav>
<main style="container-type:inline-size"><h1 class="b c">h</h1><ul><li>1<li class=d>2</ul><form><input id=i required><select><option>o</select></form>
<details><summary>s</summary><p>p</p></details><table><tr><td>c</table></main>"#;
    let url = url::Url::parse("https://x.test/").ok();
    let doc = parse(PAGE, &whittle_engine::ParseOptions { url, ..Default::default() });
    let css = String::from_utf8_lossy(data).into_owned();
    let sheet = |name: &str| StylesheetText { url: Some(format!("https://x.test/{name}")), text: css.clone() };
    let options = CascadeOptions { stylesheets: vec![sheet("a.css"), sheet("b.css")], ..Default::default() };
    let (styles, _) = whittle_engine::style_and_layout(&doc, &options, &Default::default());
    let _ = styles.dump(&doc);
    Ok(())
}

/// The fold options the first byte of a `snapshot` input chooses: its low
/// two bits the mode (`full`, `actions`, `read`, or `full` unfolded), the
/// other six the budget, 20 to 9,470 tokens in steps of 150 (below
/// [`MIN_BUDGET`] too, which the fold stage raises to it).
pub fn snapshot_fold_options(first: u8) -> FoldOptions {
    let mode = match first & 3 {
        1 => Mode::Actions,
        2 => Mode::Read,
        _ => Mode::Full,
    };
    let budget = (first & 3 != 3).then(|| 20 + u32::from(first >> 2) * 150);
    FoldOptions { mode, budget, ..FoldOptions::default() }
}

/// Loads what the checks load once — tiktoken-rs's o200k vocabulary and
/// the engine's own token pattern — so that a fuzzer's first input is not
/// charged for it (in a debug build, on a busy machine, that alone can
/// outlast libFuzzer's per-input timeout).
pub fn warm_up() {
    let _ = tiktoken_rs::o200k_base_singleton();
    let _ = snapshot(b"<p>warm</p>", &SnapshotOptions::default(), &mut RefTable::new());
}

/// `snapshot`: the first byte chooses mode and budget
/// ([`snapshot_fold_options`]), the rest is the page. The snapshot is
/// deterministic, its observation well formed ([`well_formed`]) and within
/// the budget by tiktoken's count, and rendering the same document again
/// with the same ref table changes nothing (refs are stable).
pub fn snapshot_check(data: &[u8]) -> Result<(), String> {
    let (first, page) = data.split_first().map_or((0, data), |(f, rest)| (*f, rest));
    let options = SnapshotOptions { fold: snapshot_fold_options(first), ..SnapshotOptions::default() };
    let mut refs = RefTable::new();
    let a = snapshot(page, &options, &mut refs);
    let b = snapshot(page, &options, &mut RefTable::new());
    if a.observation != b.observation {
        return Err(format!("same bytes, different observations:\n{}\n---\n{}", a.observation.text(), b.observation.text()));
    }
    well_formed(&a.observation)?;
    if let Some(budget) = options.fold.budget {
        let limit = budget.max(MIN_BUDGET);
        let text = a.observation.text();
        // tiktoken-rs itself, not the engine's own o200k counter: the check
        // stays independent of what it checks.
        let tokens = tiktoken_rs::o200k_base_singleton().encode_ordinary(&text).len() as u64;
        if tokens > u64::from(limit) {
            return Err(format!("{tokens} tokens, over the budget of {limit} ({:?}):\n{text}", options.fold.mode));
        }
    }
    let first_observation = a.observation;
    let again = snapshot_document(a.document, &options, &mut refs);
    if first_observation != again.observation {
        return Err(format!(
            "the same document rendered again with the same refs changed:\n{}\n---\n{}",
            first_observation.text(),
            again.observation.text()
        ));
    }
    Ok(())
}

/// What every observation must look like, whatever the page (as the
/// engine's own fixture tests check it): a header that starts with `#`,
/// then lines that are not blank, do not end in whitespace, hold no control
/// characters, and are indented one space deeper than the line before at
/// most (the first not at all).
pub fn well_formed(obs: &Observation) -> Result<(), String> {
    if !obs.header.starts_with('#') || obs.header.contains(char::is_control) {
        return Err(format!("bad header {:?}", obs.header));
    }
    let mut prev_depth = 0;
    for (i, line) in obs.lines.iter().enumerate() {
        let depth = line.len() - line.trim_start_matches(' ').len();
        let problem = if line.trim().is_empty() {
            "is blank"
        } else if line.ends_with(char::is_whitespace) {
            "ends with whitespace"
        } else if line.contains(char::is_control) {
            "holds a control character"
        } else if depth > prev_depth + 1 || (i == 0 && depth > 0) {
            "is indented more than one level deeper than the line before"
        } else {
            ""
        };
        if !problem.is_empty() {
            return Err(format!("line {} {problem}: {line:?}\n{}", i + 1, obs.text()));
        }
        prev_depth = depth;
    }
    Ok(())
}

/// `diff`: the input is two pages, split at its first NUL byte (the second
/// empty when there is none). For each page's observation `diff(a, a)` is
/// empty; between the two pages, and between the first page at the default
/// budget and the same document at a tight one (refs shared, lines folded:
/// the diffs an action gives), the diff applied to the old lines gives the
/// new ones ([`check_diff`]).
pub fn diff_check(data: &[u8]) -> Result<(), String> {
    let (a, b) = match data.iter().position(|&byte| byte == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    let options = SnapshotOptions::default();
    let mut refs = RefTable::new();
    let old = snapshot(a, &options, &mut refs);
    // A table of its own: ref numbers collide with the first page's, so
    // unrelated lines share an identity (`~` edits).
    let new = snapshot(b, &options, &mut RefTable::new());
    for obs in [&old.observation, &new.observation] {
        let same = whittle_engine::diff(obs, obs);
        if !same.is_empty() || same.text() != "Δ +0 −0 ~0\n" {
            return Err(format!("an observation's diff with itself is not empty:\n{}", same.text()));
        }
    }
    check_diff(&old.observation, &new.observation)?;
    let tight = SnapshotOptions { fold: FoldOptions { budget: Some(300), ..FoldOptions::default() }, ..SnapshotOptions::default() };
    let folded = snapshot_document(old.document, &tight, &mut refs);
    check_diff(&old.observation, &folded.observation)?;
    check_diff(&folded.observation, &old.observation)
}

/// The diff from `old` to `new` is what engine/src/diff.rs documents:
/// applied to the old lines it gives the new ones, a removed line is the
/// old line, an added or changed line is the new line at its index, the
/// header is there exactly when it changed, and the counts count the edits.
/// `diff_or_full` runs too.
pub fn check_diff(old: &Observation, new: &Observation) -> Result<(), String> {
    let d = whittle_engine::diff(old, new);
    let show = || format!("old:\n{}new:\n{}diff:\n{}", old.text(), new.text(), d.text());
    let applied = apply_diff(&old.lines, &d).map_err(|e| format!("{e}\n{}", show()))?;
    if applied != new.lines {
        return Err(format!("the diff applied to the old lines does not give the new ones\n{}", show()));
    }
    for e in d.edits.iter().filter(|e| e.op != EditOp::Removed) {
        if new.lines.get(e.new).map(String::as_str) != Some(&indented(e.depth, &e.text)) {
            return Err(format!("edit {e:?} is not the new line at its index\n{}", show()));
        }
    }
    let header = (old.header != new.header).then(|| new.header.clone());
    if d.header != header {
        return Err(format!("header change {:?}, expected {header:?}\n{}", d.header, show()));
    }
    let count = |op| d.edits.iter().filter(|e| e.op == op).count() as u32;
    let counted = (count(EditOp::Added), count(EditOp::Removed), count(EditOp::Changed) + u32::from(header.is_some()));
    if (d.added, d.removed, d.changed) != counted {
        return Err(format!("counts {:?} for edits {counted:?}\n{}", (d.added, d.removed, d.changed), show()));
    }
    let _ = whittle_engine::diff_or_full(old, new);
    Ok(())
}

/// Applies a diff's edits in order to the old lines, as [`Diff`]'s edits
/// are documented: `old` is the line itself for `~` and `-`, the old line
/// it goes before for `+`. `Err` when an edit points outside the old lines
/// or backwards, or a removed line is not the old one.
pub fn apply_diff(old: &[String], d: &Diff) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(old.len());
    let mut at = 0;
    for e in &d.edits {
        let kept = old.get(at..e.old).ok_or_else(|| format!("edit {e:?} is not after line {at} of {}", old.len()))?;
        out.extend_from_slice(kept);
        let line = indented(e.depth, &e.text);
        match e.op {
            EditOp::Removed => {
                if old.get(e.old) != Some(&line) {
                    return Err(format!("removed line {e:?} is not the old line {:?}", old.get(e.old)));
                }
                at = e.old + 1;
            }
            EditOp::Changed => {
                if e.old >= old.len() {
                    return Err(format!("changed line {e:?} is past the old lines"));
                }
                out.push(line);
                at = e.old + 1;
            }
            EditOp::Added => {
                out.push(line);
                at = e.old;
            }
        }
    }
    out.extend_from_slice(old.get(at..).unwrap_or_default());
    Ok(out)
}

/// An observation line: `depth` spaces, then the text.
fn indented(depth: usize, text: &str) -> String {
    format!("{}{text}", " ".repeat(depth))
}

/// `url`: the input as text (UTF-8, lossy), parsed as a URL and resolved
/// as a link on a page; each URL that results gets a compact form
/// ([`check_compact_url`]).
pub fn url_check(data: &[u8]) -> Result<(), String> {
    const BASE: &str = "https://www.shop.example/a/b/?q=1#top";
    let text = String::from_utf8_lossy(data);
    let base = Url::parse(BASE).map_err(|e| format!("{BASE}: {e}"))?;
    for url in [Url::parse(&text).ok(), base.join(&text).ok()].into_iter().flatten() {
        check_compact_url(&url)?;
    }
    Ok(())
}

/// `compact_url` (engine/src/render/url.rs) is deterministic, writes no
/// control characters (newlines included), and keeps to what its
/// documentation promises about length: for `http(s)`, at most the URL
/// without its `scheme://`, and at most the host, the path and 112 more
/// characters (`:port` 6, the query 81 with its `?` as it is cut to 80, the
/// fragment 25 with its `#` as longer ones are dropped); `file:` its path;
/// `data:` the 6 characters `data:…`; any other scheme 61 (60 and `…`).
pub fn check_compact_url(url: &Url) -> Result<(), String> {
    let compact = compact_url(url);
    if compact_url(url) != compact {
        return Err(format!("compact_url({url}) is not deterministic"));
    }
    if compact.contains(char::is_control) {
        return Err(format!("compact_url({url}) = {compact:?} holds a control character"));
    }
    let chars = |s: &str| s.chars().count();
    let bound = match url.scheme() {
        "http" | "https" => {
            let without_scheme = chars(url.as_str()) - chars(url.scheme()) - "://".len();
            let parts = url.host_str().map_or(0, chars) + chars(url.path()) + 6 + 81 + 25;
            without_scheme.min(parts)
        }
        "file" => chars(url.path()),
        "data" => chars("data:…"),
        _ => 61,
    };
    if chars(&compact) > bound {
        return Err(format!("compact_url({url}) = {compact:?}: {} characters, more than {bound}", chars(&compact)));
    }
    Ok(())
}
