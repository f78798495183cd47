//! Extraction quality as the ScrapingHub article-extraction benchmark scores
//! it, so whittle's figures compare with the published ones.
//!
//! Text is cut into word tokens (runs of alphanumeric characters and `_`,
//! Python's `\w+`; case kept), the tokens into overlapping 4-token
//! shingles (a text of fewer than four tokens is one shorter shingle), and
//! the two multisets of shingles are compared: true positives are the
//! shingles both have, false positives the extracted text's extra ones,
//! false negatives the missing ones. Each page's three counts are divided
//! by their sum, so long articles weigh no more than short ones. Precision
//! is the mean over pages that predicted something (`tp + fp > 0`), recall
//! the mean over pages with something to find (`tp + fn > 0`), and F1 is
//! computed from the two means — exactly the upstream `evaluate.py`.
//!
//! One known difference: Rust's `char::is_alphanumeric` counts combining
//! marks of some scripts (Devanagari vowel signs) as letters where Python's
//! `\w` splits on them; on the benchmark's pages (English, a few European
//! languages) the two agree.

use std::collections::HashMap;

/// One page's normalised counts: true positives, false positives, false
/// negatives, summing to 1 (or all 0 when both texts are empty).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PageScore {
    /// Shingles both texts have.
    pub tp: f64,
    /// Shingles only the extraction has.
    pub fp: f64,
    /// Shingles only the truth has.
    pub fn_: f64,
}

impl PageScore {
    /// The page's precision (upstream's `precision_score`).
    pub fn precision(&self) -> f64 {
        if self.fp == 0.0 && self.fn_ == 0.0 {
            1.0
        } else if self.tp == 0.0 && self.fp == 0.0 {
            0.0
        } else {
            self.tp / (self.tp + self.fp)
        }
    }

    /// The page's recall (upstream's `recall_score`).
    pub fn recall(&self) -> f64 {
        if self.fp == 0.0 && self.fn_ == 0.0 {
            1.0
        } else if self.tp == 0.0 && self.fn_ == 0.0 {
            0.0
        } else {
            self.tp / (self.tp + self.fn_)
        }
    }

    /// The page's own F1 (for finding the worst pages; the benchmark's F1
    /// is [`Summary::f1`]).
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) }
    }
}

/// The benchmark's figures over a set of pages.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
    /// F1 of the two means.
    pub f1: f64,
    /// Pages scored.
    pub pages: usize,
}

/// Word tokens: maximal runs of alphanumeric characters and `_`.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn shingles(text: &str) -> HashMap<Vec<&str>, u32> {
    const N: usize = 4;
    let tokens = tokens(text);
    let mut out: HashMap<Vec<&str>, u32> = HashMap::new();
    if tokens.is_empty() {
        return out;
    }
    for i in 0..tokens.len().saturating_sub(N - 1).max(1) {
        let end = (i + N).min(tokens.len());
        *out.entry(tokens[i..end].to_vec()).or_default() += 1;
    }
    out
}

/// Scores one extraction against the truth.
pub fn score_page(truth: &str, extracted: &str) -> PageScore {
    let (t, p) = (shingles(truth), shingles(extracted));
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (k, &tc) in &t {
        let pc = p.get(k).copied().unwrap_or(0);
        tp += f64::from(tc.min(pc));
        fn_ += f64::from(tc.saturating_sub(pc));
    }
    for (k, &pc) in &p {
        let tc = t.get(k).copied().unwrap_or(0);
        fp += f64::from(pc.saturating_sub(tc));
    }
    let sum = tp + fp + fn_;
    if sum > 0.0 {
        PageScore { tp: tp / sum, fp: fp / sum, fn_: fn_ / sum }
    } else {
        PageScore::default()
    }
}

/// The benchmark's figures over pages' scores.
pub fn summarize(scores: &[PageScore]) -> Summary {
    let mean = |xs: Vec<f64>| if xs.is_empty() { 0.0 } else { xs.iter().sum::<f64>() / xs.len() as f64 };
    let precision = mean(scores.iter().filter(|s| s.tp + s.fp > 0.0).map(PageScore::precision).collect());
    let recall = mean(scores.iter().filter(|s| s.tp + s.fn_ > 0.0).map(PageScore::recall).collect());
    let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
    Summary { precision, recall, f1, pages: scores.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_word_runs() {
        assert_eq!(tokens("It’s 4:30 — naïve_café, ok?"), ["It", "s", "4", "30", "naïve_café", "ok"]);
        assert!(tokens(" … ").is_empty());
    }

    #[test]
    fn identical_texts_score_one() {
        let s = score_page("one two three four five", "one  two\nthree four five");
        assert_eq!((s.precision(), s.recall()), (1.0, 1.0));
    }

    #[test]
    fn extra_and_missing_shingles_count_once_each() {
        // Truth: 6 tokens → 3 shingles. Extraction: the first 5 tokens and
        // one extra word → 3 shingles, 2 shared.
        let s = score_page("a b c d e f", "a b c d e x");
        assert!((s.tp - 0.5).abs() < 1e-9, "{s:?}");
        assert!((s.fp - 0.25).abs() < 1e-9 && (s.fn_ - 0.25).abs() < 1e-9, "{s:?}");
        assert!((s.precision() - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn short_texts_are_one_shingle_and_empty_ones_none() {
        assert_eq!(score_page("a b", "a b").precision(), 1.0);
        let empty = score_page("a b c d", "");
        assert_eq!((empty.tp, empty.fp, empty.fn_), (0.0, 0.0, 1.0));
        assert_eq!(empty.recall(), 0.0);
        // Upstream: nothing to find and nothing found counts as perfect.
        assert_eq!(score_page("", "").precision(), 1.0);
    }

    #[test]
    fn summary_means_over_pages_that_count() {
        let pages = [score_page("a b c d", "a b c d"), score_page("a b c d", "")];
        let s = summarize(&pages);
        // The empty extraction has tp + fp = 0: left out of precision.
        assert_eq!(s.precision, 1.0);
        assert_eq!(s.recall, 0.5);
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-9);
    }
}
