//! The act-result diff (docs/observation.md): what changed between two
//! observations of one page, in the model's terms.
//!
//! ```text
//! Δ +1 −0 ~2
//! @ [8] form "Shipping"
//! ~ [9] textbox "Email" = "jane@example.com" required
//! + alert: Please enter a valid postcode
//! ```
//!
//! - `Δ +added −removed ~changed` first (the `−` is U+2212);
//! - `~ # …`: the header changed (title, URL or the scroll part `↑a ↓b`),
//!   shown as it is now;
//! - `~ line`: a line still there whose text or depth changed, as it is now;
//! - `+ line`: a new line; `- line`: a line gone, as it was;
//! - `@ line`: context, the nearest ancestor line (smaller indentation,
//!   earlier in the observation) that shows a ref, printed before a group
//!   of changes under it, not repeated while the next changes share it,
//!   and left out when the changed line has no such ancestor (it is top
//!   level) or when the context is a line the diff just printed as a change.
//!
//! Lines are printed without their indentation. A diff of an observation
//! with itself is empty, and its text is `Δ +0 −0 ~0`.
//!
//! *Identity of lines*: a line that shows refs is the same line in both
//! observations when its first ref is the same (so a new value is a `~`,
//! not a `-` and a `+`); other lines are the same when their text and depth
//! are. Refs come from [`Observation::line_refs`], never from the text
//! (page text may hold `[12]` too).
//!
//! *Alignment*: common lines at both ends are skipped, then Myers' diff
//! aligns the rest (O((N+M)·D) for D edits) up to [`MAX_EDITS`] edits;
//! beyond that a keyed diff (lines whose identity occurs once in each
//! observation, kept in order by a longest increasing subsequence) aligns
//! them in O(N log N), so a 10,000-line page rewritten wholesale costs no
//! more than sorting it.
//!
//! Whether to send the diff or the whole observation: [`diff_or_full`].

use std::collections::HashMap;
use std::fmt::Write;

use crate::fold::tokens;
use crate::render::Observation;

/// Edits (lines added or removed) beyond which Myers' alignment gives way
/// to the keyed one. Its time is O((N+M)·D) and its memory O(D²).
pub const MAX_EDITS: usize = 1_000;

/// The server sends the diff only when it costs at most this share
/// (percent) of the whole observation (docs/observation.md).
pub const DIFF_SHARE_PERCENT: u64 = 75;

/// What an edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditOp {
    /// `~`: the line is still there, with a new text or depth.
    Changed,
    /// `+`: a new line.
    Added,
    /// `-`: a line gone.
    Removed,
}

impl EditOp {
    /// The mark that begins the edit's line.
    pub fn mark(self) -> char {
        match self {
            EditOp::Changed => '~',
            EditOp::Added => '+',
            EditOp::Removed => '-',
        }
    }
}

/// One changed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// What happened.
    pub op: EditOp,
    /// The line's text without indentation: as it is now (`~`, `+`) or as
    /// it was (`-`).
    pub text: String,
    /// Its depth (indentation) now (`~`, `+`) or then (`-`).
    pub depth: usize,
    /// Index into the old observation's lines: the line itself for `~` and
    /// `-`; for `+`, the old line it goes before (the old length at the
    /// end). Applying the edits in order to the old lines gives the new
    /// ones.
    pub old: usize,
    /// Index into the new observation's lines: the line itself for `~` and
    /// `+`; for `-`, the new line it stood before.
    pub new: usize,
    /// The `@` context: the nearest ancestor line showing a ref (without
    /// indentation, as it is now if it is still there), if any.
    pub context: Option<String>,
}

/// The difference between two observations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
    /// Lines changed, the header included.
    pub changed: u32,
    /// The new header, when it changed.
    pub header: Option<String>,
    /// The changed lines, in the order of the observations.
    pub edits: Vec<Edit>,
}

impl Diff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.header.is_none() && self.edits.is_empty()
    }

    /// The diff's text (docs/observation.md), newline-terminated: `Δ +a −r ~c`, then
    /// the header change and the hunks. An empty diff is the one line
    /// `Δ +0 −0 ~0`.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(24 + self.edits.iter().map(|e| e.text.len() + 3).sum::<usize>());
        let _ = writeln!(out, "Δ +{} −{} ~{}", self.added, self.removed, self.changed);
        if let Some(h) = &self.header {
            let _ = writeln!(out, "~ {h}");
        }
        // The context printed last, and the last line printed as a change:
        // a change under it needs no `@` either.
        let mut context: Option<&str> = None;
        let mut last_change: Option<&str> = None;
        for e in &self.edits {
            let c = e.context.as_deref();
            if c != context {
                if let Some(c) = c
                    && Some(c) != last_change
                {
                    let _ = writeln!(out, "@ {c}");
                }
                context = c;
            }
            let _ = writeln!(out, "{} {}", e.op.mark(), e.text);
            last_change = Some(&e.text);
        }
        out
    }

    /// What [`Diff::text`] costs in o200k tokens (the estimate the fold
    /// stage uses).
    pub fn tokens(&self) -> u32 {
        self.text().lines().map(|l| tokens::line_cost(0, l)).sum()
    }
}

/// What to send after an action: the diff, or the whole new observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffChoice {
    /// The diff is the cheaper, faithful answer.
    Diff(Diff),
    /// Send the whole observation instead.
    Full(WhyFull),
}

/// Why [`diff_or_full`] chose the whole observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhyFull {
    /// The URL changed (beyond its fragment): the page navigated.
    Navigated,
    /// The diff would cost more than [`DIFF_SHARE_PERCENT`] of the
    /// observation.
    TooLarge {
        /// The diff's estimated tokens.
        diff_tokens: u32,
        /// The whole observation's estimated tokens.
        full_tokens: u32,
    },
}

/// The rule (docs/observation.md): the whole new observation when the page navigated
/// (its URL changed other than in the fragment) or when the diff would
/// cost more than 75% of it (both counted with the fold stage's o200k
/// estimate), else the diff. A server that knows better whether the page
/// navigated can call [`diff`] and compare [`Diff::tokens`] with
/// [`Observation::tokens`] itself.
pub fn diff_or_full(old: &Observation, new: &Observation) -> DiffChoice {
    let page = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
    if page(&old.url) != page(&new.url) {
        return DiffChoice::Full(WhyFull::Navigated);
    }
    let d = diff(old, new);
    let diff_tokens = d.tokens();
    let full_tokens = new.tokens();
    if u64::from(diff_tokens) * 100 > u64::from(full_tokens) * DIFF_SHARE_PERCENT {
        return DiffChoice::Full(WhyFull::TooLarge { diff_tokens, full_tokens });
    }
    DiffChoice::Diff(d)
}

/// What changed from `old` to `new` (see the module documentation).
pub fn diff(old: &Observation, new: &Observation) -> Diff {
    diff_bounded(old, new, MAX_EDITS)
}

/// One side's lines: depth, text without indentation, identity.
struct Side<'a> {
    depth: Vec<usize>,
    text: Vec<&'a str>,
    key: Vec<u32>,
}

/// The identity of a line before interning.
#[derive(Hash, PartialEq, Eq)]
enum Key<'a> {
    Ref(u32),
    Text(usize, &'a str),
}

fn side<'a>(obs: &'a Observation, keys: &mut HashMap<Key<'a>, u32>) -> Side<'a> {
    let n = obs.lines.len();
    let mut s = Side { depth: Vec::with_capacity(n), text: Vec::with_capacity(n), key: Vec::with_capacity(n) };
    for (i, line) in obs.lines.iter().enumerate() {
        // Render indents by depth with spaces, and no line's own text
        // begins with one.
        let text = line.trim_start_matches(' ');
        let depth = line.len() - text.len();
        let key = match obs.line_refs.get(i).and_then(|r| r.first()) {
            Some(&r) => Key::Ref(r),
            None => Key::Text(depth, text),
        };
        let next = u32::try_from(keys.len()).unwrap_or(u32::MAX);
        s.key.push(*keys.entry(key).or_insert(next));
        s.depth.push(depth);
        s.text.push(text);
    }
    s
}

/// For each line, the nearest ancestor line (smaller depth, earlier) that
/// shows a ref.
fn contexts(obs: &Observation, side: &Side<'_>) -> Vec<Option<usize>> {
    // Ancestors of the current line: (depth, nearest ref'd line at or
    // above it).
    let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
    let mut out = Vec::with_capacity(side.depth.len());
    for (i, &d) in side.depth.iter().enumerate() {
        while stack.last().is_some_and(|&(sd, _)| sd >= d) {
            stack.pop();
        }
        let above = stack.last().and_then(|&(_, r)| r);
        out.push(above);
        let has_ref = obs.line_refs.get(i).is_some_and(|r| !r.is_empty());
        stack.push((d, if has_ref { Some(i) } else { above }));
    }
    out
}

/// [`diff`] with Myers' alignment bounded at `max_edits` edits.
pub(crate) fn diff_bounded(old: &Observation, new: &Observation, max_edits: usize) -> Diff {
    let mut keys = HashMap::new();
    let a = side(old, &mut keys);
    let b = side(new, &mut keys);
    let pairs = align(&a.key, &b.key, max_edits);
    let ctx_a = contexts(old, &a);
    let ctx_b = contexts(new, &b);
    // Where each old line is in the new observation, for contexts.
    let mut in_new = vec![None; a.key.len()];
    for &(i, j) in &pairs {
        in_new[i] = Some(j);
    }
    let context_old = |i: usize| {
        ctx_a[i].map(|c| match in_new[c] {
            Some(j) => b.text[j].to_owned(),
            None => a.text[c].to_owned(),
        })
    };
    let context_new = |j: usize| ctx_b[j].map(|c| b.text[c].to_owned());

    let mut d = Diff::default();
    if old.header != new.header {
        d.header = Some(new.header.clone());
        d.changed += 1;
    }
    let (mut i, mut j) = (0, 0);
    let ends = pairs.iter().copied().chain(std::iter::once((a.key.len(), b.key.len())));
    for (mi, mj) in ends {
        while i < mi {
            d.edits.push(Edit {
                op: EditOp::Removed,
                text: a.text[i].to_owned(),
                depth: a.depth[i],
                old: i,
                new: j,
                context: context_old(i),
            });
            d.removed += 1;
            i += 1;
        }
        while j < mj {
            d.edits.push(Edit {
                op: EditOp::Added,
                text: b.text[j].to_owned(),
                depth: b.depth[j],
                old: i,
                new: j,
                context: context_new(j),
            });
            d.added += 1;
            j += 1;
        }
        if mi < a.key.len() && (a.text[mi] != b.text[mj] || a.depth[mi] != b.depth[mj]) {
            d.edits.push(Edit {
                op: EditOp::Changed,
                text: b.text[mj].to_owned(),
                depth: b.depth[mj],
                old: mi,
                new: mj,
                context: context_new(mj),
            });
            d.changed += 1;
        }
        i = mi + 1;
        j = mj + 1;
    }
    d
}

/// The lines of `a` and `b` that stay, as increasing index pairs.
fn align(a: &[u32], b: &[u32], max_edits: usize) -> Vec<(usize, usize)> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut pairs: Vec<(usize, usize)> = (0..prefix).map(|i| (i, i)).collect();
    let middle = match myers(am, bm, max_edits) {
        Some(m) => m,
        None => keyed(am, bm),
    };
    pairs.extend(middle.into_iter().map(|(i, j)| (i + prefix, j + prefix)));
    pairs.extend((0..suffix).map(|k| (a.len() - suffix + k, b.len() - suffix + k)));
    pairs
}

/// Myers' greedy shortest edit script (the O((N+M)·D) forward version,
/// keeping each round's diagonals for the way back); `None` beyond
/// `max_edits` edits.
fn myers(a: &[u32], b: &[u32], max_edits: usize) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return Some(Vec::new());
    }
    let limit = (n + m).min(max_edits);
    // v[k + off]: the furthest x reached on diagonal k = x - y.
    let off = limit + 1;
    let mut v = vec![0usize; 2 * off + 1];
    // trace[d]: v over diagonals -d..=d after round d.
    let mut trace: Vec<Vec<usize>> = Vec::new();
    let mut end = None;
    'rounds: for d in 0..=limit {
        let di = d as isize;
        for k in (-di..=di).step_by(2) {
            let at = |k: isize| (k + off as isize) as usize;
            let down = k == -di || (k != di && v[at(k - 1)] < v[at(k + 1)]);
            let mut x = if down { v[at(k + 1)] } else { v[at(k - 1)] + 1 };
            let mut y = (x as isize - k) as usize;
            while x < n && y < m && a[x] == b[y] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                trace.push(v[off - d..=off + d].to_vec());
                end = Some(d);
                break 'rounds;
            }
        }
        trace.push(v[off - d..=off + d].to_vec());
    }
    let d_end = end?;
    // Back from (n, m): each round undoes one edit and the snake after it.
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=d_end).rev() {
        let di = d as isize;
        let k = x as isize - y as isize;
        let prev = &trace[d - 1];
        let get = |k: isize| prev[(k + di - 1) as usize];
        let down = k == -di || (k != di && get(k - 1) < get(k + 1));
        let pk = if down { k + 1 } else { k - 1 };
        let px = get(pk);
        let py = (px as isize - pk) as usize;
        // The snake after the edit.
        let (sx, sy) = if down { (px, py + 1) } else { (px + 1, py) };
        while x > sx && y > sy {
            x -= 1;
            y -= 1;
            pairs.push((x, y));
        }
        x = px;
        y = py;
    }
    // Round 0's snake: the common start.
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        pairs.push((x, y));
    }
    pairs.reverse();
    Some(pairs)
}

/// The keyed alignment for large edits: lines whose identity occurs once
/// on each side, kept in order by a longest increasing subsequence, each
/// extended by equal neighbours.
fn keyed(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    let mut count: HashMap<u32, (u32, u32, usize)> = HashMap::new();
    for (i, &k) in a.iter().enumerate() {
        let e = count.entry(k).or_insert((0, 0, i));
        e.0 += 1;
    }
    for &k in b {
        if let Some(e) = count.get_mut(&k) {
            e.1 += 1;
        }
    }
    // Anchors in the order of `b`, with their place in `a`.
    let anchors: Vec<(usize, usize)> = b
        .iter()
        .enumerate()
        .filter_map(|(j, k)| match count.get(k) {
            Some(&(1, 1, i)) => Some((i, j)),
            _ => None,
        })
        .collect();
    // Longest increasing subsequence of the `a` positions (patience).
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; anchors.len()];
    for (p, &(i, _)) in anchors.iter().enumerate() {
        let at = tails.partition_point(|&t| anchors[t].0 < i);
        if at > 0 {
            prev[p] = Some(tails[at - 1]);
        }
        if at == tails.len() {
            tails.push(p);
        } else {
            tails[at] = p;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(p) = cur {
        chain.push(anchors[p]);
        cur = prev[p];
    }
    chain.reverse();
    // Extend each anchor backwards and forwards over equal lines, within
    // the gap to its neighbours.
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(chain.len());
    let (mut lo_a, mut lo_b) = (0, 0);
    for (c, &(i, j)) in chain.iter().enumerate() {
        let mut back = Vec::new();
        let (mut x, mut y) = (i, j);
        while x > lo_a && y > lo_b && a[x - 1] == b[y - 1] {
            x -= 1;
            y -= 1;
            back.push((x, y));
        }
        out.extend(back.into_iter().rev());
        out.push((i, j));
        let (hi_a, hi_b) = chain.get(c + 1).copied().unwrap_or((a.len(), b.len()));
        let (mut x, mut y) = (i + 1, j + 1);
        while x < hi_a && y < hi_b && a[x] == b[y] {
            out.push((x, y));
            x += 1;
            y += 1;
        }
        lo_a = x;
        lo_b = y;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(lines: &[(&str, &[u32])]) -> Observation {
        Observation {
            title: String::new(),
            url: String::new(),
            header: "# T".to_owned(),
            notes: Vec::new(),
            lines: lines.iter().map(|(l, _)| (*l).to_owned()).collect(),
            line_refs: lines.iter().map(|(_, r)| r.iter().copied().collect()).collect(),
            widgets: Vec::new(),
            tree_truncated: false,
            marks_truncated: false,
        }
    }

    #[test]
    fn myers_finds_a_shortest_script() {
        let a = [1, 2, 3, 4, 5, 6];
        let b = [1, 3, 4, 7, 5, 6, 8];
        let pairs = myers(&a, &b, 100).unwrap_or_default();
        assert_eq!(pairs, [(0, 0), (2, 1), (3, 2), (4, 4), (5, 5)]);
        assert_eq!(myers(&a, &b, 2), None, "4 edits are needed");
        assert_eq!(myers(&[], &b, 0), Some(Vec::new()));
    }

    /// The length of a longest common subsequence, by dynamic
    /// programming.
    fn lcs(a: &[u32], b: &[u32]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diag = 0;
            for (j, y) in b.iter().enumerate() {
                let up = row[j + 1];
                row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
                diag = up;
            }
        }
        row[b.len()]
    }

    fn valid(a: &[u32], b: &[u32], pairs: &[(usize, usize)]) -> bool {
        pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1)
            && pairs.iter().all(|&(i, j)| i < a.len() && j < b.len() && a[i] == b[j])
    }

    proptest::proptest! {
        #[test]
        fn myers_keeps_a_longest_common_subsequence(
            a in proptest::collection::vec(0u32..6, 0..40),
            b in proptest::collection::vec(0u32..6, 0..40),
        ) {
            let pairs = myers(&a, &b, MAX_EDITS).unwrap_or_default();
            proptest::prop_assert!(valid(&a, &b, &pairs), "{:?}", pairs);
            proptest::prop_assert_eq!(pairs.len(), lcs(&a, &b));
            let keyed = keyed(&a, &b);
            proptest::prop_assert!(valid(&a, &b, &keyed), "{:?}", keyed);
            let bounded = align(&a, &b, 3);
            proptest::prop_assert!(valid(&a, &b, &bounded), "{:?}", bounded);
        }
    }

    #[test]
    fn keyed_alignment_keeps_unique_lines_in_order() {
        // 9 and 8 swap: only one of them can stay; 5 is not unique.
        let a = [1, 9, 8, 5, 5, 2, 3];
        let b = [1, 8, 9, 5, 2, 3, 4];
        let pairs = keyed(&a, &b);
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "{pairs:?}");
        assert!(pairs.iter().all(|&(i, j)| a[i] == b[j]), "{pairs:?}");
        assert!(pairs.contains(&(0, 0)) && pairs.contains(&(5, 4)) && pairs.contains(&(6, 5)), "{pairs:?}");
    }

    #[test]
    fn a_large_rewrite_falls_back_to_the_keyed_diff() {
        let lines: Vec<String> = (0..40).map(|i| format!("line {i}")).collect();
        let old: Vec<(&str, &[u32])> = lines.iter().map(|l| (l.as_str(), &[][..])).collect();
        // Every other line replaced: 40 edits.
        let changed: Vec<String> =
            lines.iter().enumerate().map(|(i, l)| if i % 2 == 0 { format!("{l} new") } else { l.clone() }).collect();
        let new: Vec<(&str, &[u32])> = changed.iter().map(|l| (l.as_str(), &[][..])).collect();
        let (o, n) = (obs(&old), obs(&new));
        let bounded = diff_bounded(&o, &n, 5);
        let exact = diff_bounded(&o, &n, MAX_EDITS);
        assert_eq!((bounded.added, bounded.removed), (20, 20));
        assert_eq!(bounded, exact, "unique lines align the same either way");
    }

    #[test]
    fn contexts_are_printed_once_per_group() {
        let old = obs(&[
            ("[8] form \"Shipping\"", &[8]),
            (" [9] textbox \"Email\" required", &[9]),
            (" [10] textbox \"Name\"", &[10]),
            ("footer", &[]),
        ]);
        let new = obs(&[
            ("[8] form \"Shipping\"", &[8]),
            (" [9] textbox \"Email\" = \"j@x.org\" required", &[9]),
            (" [10] textbox \"Name\" = \"Jo\"", &[10]),
            (" alert: Bad postcode", &[]),
            ("footer", &[]),
            ("[30] dialog \"Saved\"", &[30]),
            (" [31] button \"OK\"", &[31]),
        ]);
        let d = diff(&old, &new);
        assert_eq!(
            d.text(),
            "Δ +3 −0 ~2\n@ [8] form \"Shipping\"\n~ [9] textbox \"Email\" = \"j@x.org\" required\n\
             ~ [10] textbox \"Name\" = \"Jo\"\n+ alert: Bad postcode\n+ [30] dialog \"Saved\"\n+ [31] button \"OK\"\n"
        );
        assert_eq!(diff(&new, &new).text(), "Δ +0 −0 ~0\n");
    }
}
