//! whittle's corpus: the project's own fixture pages, the shared corpus of
//! real pages written by others (found, never copied), and generators of
//! synthetic pages for scale and hostile-input tests.
//!
//! The shared corpus lives outside the repository. It is found through the
//! `WHITTLE_SHARED_CORPUS` environment variable, or else at `../shared/corpus`
//! next to the workspace. When it is absent, [`shared_dir`] returns `None`
//! and callers say that they skipped, and why.

use std::io::Read;
use std::path::{Path, PathBuf};

pub mod generate;
pub mod manifest;
pub mod saved;
pub mod score;

pub use manifest::{Manifest, ManifestError, Root, SuiteSpec, user_dir};

/// The environment variable that points at the shared corpus.
pub const SHARED_ENV: &str = "WHITTLE_SHARED_CORPUS";

/// The workspace root (this crate sits in `corpus/`).
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The project's own fixture pages.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The project's layout pages (`corpus/layout`), written for comparing
/// whittle's boxes with Chromium's (see `corpus/oracle/README.md`).
pub fn layout_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("layout")
}

/// The pages the screenshot tests and bench mark (`corpus/pictures`):
/// forms, dense links, icon grids, refs at every edge, tiny refs.
pub fn pictures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("pictures")
}

/// The conformance pages: one CSS or HTML construct per element, with
/// Chromium's verdicts beside each page.
pub fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// The shared corpus, if it is there.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(SHARED_ENV) {
        Some(d) => PathBuf::from(d),
        None => workspace_dir().join("..").join("shared").join("corpus"),
    };
    dir.is_dir().then_some(dir)
}

/// Why the shared corpus is missing, for "skipped" messages.
pub fn shared_missing_reason() -> String {
    format!(
        "the shared corpus was not found (looked at ${SHARED_ENV}, then {}); tests that need it are skipped",
        workspace_dir().join("..").join("shared").join("corpus").display()
    )
}

/// A suite of pages in the shared corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// Mozilla Readability's test pages (`readability/*/source.html`).
    Readability,
    /// The ScrapingHub article-extraction benchmark (`html/*.html.gz`).
    ArticleExtraction,
    /// Popular sites around 2013 (`htmlparser-benchmark/*.html`).
    HtmlparserBenchmark,
    /// Servo's page-load captures.
    ServoWarc,
    /// Bootstrap 5 examples.
    Bootstrap,
    /// lol-html's large benchmark pages.
    LolHtml,
    /// html5ever's micro-benchmark fragments.
    Html5everBench,
}

impl Suite {
    /// Every suite.
    pub const ALL: [Suite; 7] = [
        Suite::Readability,
        Suite::ArticleExtraction,
        Suite::HtmlparserBenchmark,
        Suite::ServoWarc,
        Suite::Bootstrap,
        Suite::LolHtml,
        Suite::Html5everBench,
    ];

    /// The suite's name in the manifest (also its folder in the shared corpus).
    pub fn name(self) -> &'static str {
        match self {
            Suite::Readability => "readability",
            Suite::ArticleExtraction => "article-extraction-benchmark",
            Suite::HtmlparserBenchmark => "htmlparser-benchmark",
            Suite::ServoWarc => "servo-warc-pages",
            Suite::Bootstrap => "bootstrap",
            Suite::LolHtml => "lol-html-bench",
            Suite::Html5everBench => "html5ever-bench",
        }
    }

    /// The suite's pages, sorted by path (from the manifest). Empty when
    /// the shared corpus is absent.
    pub fn pages(self) -> Vec<PathBuf> {
        Manifest::builtin().suite(self.name()).map(SuiteSpec::pages).unwrap_or_default()
    }
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    entries.sort();
    entries
}

/// Every `*.html` file under `dir`, recursively, sorted; folders named in
/// `skip` are not entered.
pub fn html_files_under(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for p in read_dir_sorted(&d) {
            if p.is_dir() {
                if !p.file_name().is_some_and(|n| skip.iter().any(|s| n == *s)) {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "html") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every real page the manifest knows: the shared corpus's and the user's
/// own (see [`Manifest::real_pages`]).
pub fn real_pages() -> Vec<PathBuf> {
    Manifest::builtin().real_pages()
}

/// Reads a page, gunzipping `.gz` files.
pub fn load(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut out)?;
        return Ok(out);
    }
    Ok(bytes)
}

/// A short name for a corpus page: its path below the shared corpus.
pub fn short_name(path: &Path) -> String {
    shared_dir()
        .and_then(|root| path.strip_prefix(&root).ok().map(|p| p.display().to_string()))
        .unwrap_or_else(|| path.display().to_string())
}

/// One page of the article-extraction benchmark with its hand-labelled
/// article text.
#[derive(Debug, Clone)]
pub struct ArticleCase {
    /// The gzipped page.
    pub path: PathBuf,
    /// The URL the page was saved from.
    pub url: String,
    /// The article's text (`articleBody`).
    pub body: String,
}

/// The article-extraction benchmark's pages with their truth, in the
/// order of [`Suite::ArticleExtraction`]'s pages. Empty when the shared
/// corpus is absent; an error when its `ground-truth.json` is unreadable.
pub fn article_cases() -> Result<Vec<ArticleCase>, String> {
    let Some(root) = shared_dir() else { return Ok(Vec::new()) };
    let dir = root.join(Suite::ArticleExtraction.name());
    let truth_path = dir.join("ground-truth.json");
    let text = std::fs::read_to_string(&truth_path).map_err(|e| format!("{}: {e}", truth_path.display()))?;
    let truth: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", truth_path.display()))?;
    let mut out = Vec::new();
    for path in Suite::ArticleExtraction.pages() {
        let name = path.file_name().map(|n| n.to_string_lossy().trim_end_matches(".html.gz").to_owned()).unwrap_or_default();
        let case = truth.get(&name).ok_or_else(|| format!("{}: no truth for {name}", truth_path.display()))?;
        let field = |k: &str| case.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        out.push(ArticleCase { path, url: field("url"), body: field("articleBody") });
    }
    Ok(out)
}
