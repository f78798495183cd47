//! What every observation must look like, whatever the page.

use whittle_engine::Snapshot;

/// Checks the shape of an observation: a header line; indentation that
/// grows one level at a time; no blank lines, trailing spaces or control
/// characters; every ref shown written as `[n] ` exactly once, in
/// increasing order of reading; fold lines naming a ref that is shown.
pub(crate) fn check_observation(snapshot: &Snapshot) -> Result<(), String> {
    let obs = &snapshot.observation;
    if !obs.header.starts_with('#') {
        return Err(format!("header does not start with '#': {:?}", obs.header));
    }
    let mut prev_depth = 0usize;
    for (i, line) in obs.lines.iter().enumerate() {
        let depth = line.len() - line.trim_start_matches(' ').len();
        if line.trim().is_empty() {
            return Err(format!("line {} is blank", i + 1));
        }
        if line.ends_with(char::is_whitespace) {
            return Err(format!("line {} ends with whitespace: {line:?}", i + 1));
        }
        if depth > prev_depth + 1 || (i == 0 && depth > 0) {
            return Err(format!("line {} jumps from depth {prev_depth} to {depth}: {line:?}", i + 1));
        }
        if line.chars().any(|c| c.is_control()) {
            return Err(format!("line {} holds a control character: {line:?}", i + 1));
        }
        prev_depth = depth;
    }
    let text = obs.text();
    let marks = ref_marks(&text);
    let mut last = 0u32;
    for &w in &obs.widgets {
        let Some(r) = snapshot.tree.widgets.get(w).and_then(|w| w.ref_id) else { continue };
        if r <= last {
            return Err(format!("ref [{r}] comes after [{last}] in reading order"));
        }
        last = r;
        let n = marks.get(&r).copied().unwrap_or(0);
        if n != 1 {
            return Err(format!("ref [{r}] appears {n} times in the text"));
        }
    }
    // Nothing but the shown refs is written as a ref.
    let shown = obs.widgets.iter().filter(|&&w| snapshot.tree.widgets.get(w).is_some_and(|w| w.ref_id.is_some())).count();
    if marks.len() != shown {
        return Err(format!("{} refs in the text, {shown} shown widgets with refs", marks.len()));
    }
    // Fold lines name a container that is shown with its ref (`read` mode
    // shows no refs at all).
    for line in obs.lines.iter().filter(|_| !marks.is_empty()) {
        if let Some(pos) = line.find("(observe ref ") {
            let r: u32 = line[pos + 13..].trim_end_matches(')').parse().map_err(|_| format!("bad fold line {line:?}"))?;
            if marks.get(&r).copied().unwrap_or(0) != 1 {
                return Err(format!("fold line names ref {r}, which the observation does not show: {line:?}"));
            }
        }
    }
    Ok(())
}

/// How often each `[n] ` mark occurs (not counting page text escaped as
/// `\[n]`), in one pass.
fn ref_marks(text: &str) -> std::collections::HashMap<u32, usize> {
    let mut out = std::collections::HashMap::new();
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'[' || (i > 0 && bytes[i - 1] == b'\\') {
            continue;
        }
        let digits = bytes[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || bytes.get(i + 1 + digits) != Some(&b']') || bytes.get(i + 2 + digits) != Some(&b' ') {
            continue;
        }
        if let Ok(n) = text[i + 1..i + 1 + digits].parse::<u32>() {
            *out.entry(n).or_insert(0) += 1;
        }
    }
    out
}
