//! The manifest of suites (`corpus/manifest.toml`, compiled in): where each
//! suite's pages are and what they are for. Tests, benches and `whittle
//! corpus list` find pages through it, so a suite added there is seen by
//! all of them.
//!
//! A manifest that cannot be read is an error naming its line; the one
//! compiled in is checked by a test, so it always reads.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

/// The manifest compiled into the crate.
const BUILTIN: &str = include_str!("../manifest.toml");

/// The environment variable that points at the user's own corpus.
pub const USER_ENV: &str = "WHITTLE_USER_CORPUS";

/// Where a suite's pattern starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// This repository's `corpus/` folder.
    Repo,
    /// The shared corpus ([`crate::shared_dir`]).
    Shared,
    /// The user's corpus ([`user_dir`]), grown by `whittle corpus add`.
    User,
}

impl Root {
    /// The folder, if it exists.
    pub fn dir(self) -> Option<PathBuf> {
        match self {
            Root::Repo => Some(Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()),
            Root::Shared => crate::shared_dir(),
            Root::User => Some(user_dir()).filter(|d| d.is_dir()),
        }
    }

    /// Its name in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Root::Repo => "repo",
            Root::Shared => "shared",
            Root::User => "user",
        }
    }
}

/// The user's corpus: `$WHITTLE_USER_CORPUS`, else
/// `$XDG_DATA_HOME/whittle/corpus`, else `~/.local/share/whittle/corpus`
/// (the folder may not exist yet).
pub fn user_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(USER_ENV) {
        return dir;
    }
    let data = var("XDG_DATA_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local").join("share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("whittle").join("corpus")
}

/// One suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteSpec {
    /// Its unique name.
    pub name: String,
    /// Where its pattern starts.
    pub root: Root,
    /// Its pages below the root: `/`-separated, `*` within a segment, `**`
    /// for any number of folders.
    pub pattern: String,
    /// Whether its pages are whole real pages (benches run on these).
    pub real: bool,
    /// One line for people.
    pub about: String,
}

impl SuiteSpec {
    /// The suite's pages, sorted; empty when its root is absent.
    pub fn pages(&self) -> Vec<PathBuf> {
        match self.root.dir() {
            Some(dir) => expand(&dir, &self.pattern),
            None => Vec::new(),
        }
    }
}

/// A manifest that could not be read: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The manifest's name (its path, or `corpus/manifest.toml`).
    pub origin: String,
    /// The 1-based line, when the error has a place.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {line}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for ManifestError {}

/// The suites, in manifest order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Every suite.
    pub suites: Vec<SuiteSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    #[serde(default)]
    suite: Vec<RawSuite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    name: Spanned<String>,
    root: Spanned<String>,
    pattern: Spanned<String>,
    #[serde(default)]
    real: bool,
    #[serde(default)]
    about: String,
}

impl Manifest {
    /// The manifest compiled in (`corpus/manifest.toml`).
    pub fn builtin() -> &'static Manifest {
        static BUILT: OnceLock<Manifest> = OnceLock::new();
        BUILT.get_or_init(|| {
            // A test (`builtin_manifest_reads`) keeps this from failing.
            Manifest::parse(BUILTIN, "corpus/manifest.toml").unwrap_or_else(|e| panic!("{e}"))
        })
    }

    /// Reads a manifest; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Manifest, ManifestError> {
        let error = |at: Option<usize>, message: String| ManifestError {
            origin: origin.to_owned(),
            line: at.map(|at| line_of(text, at)),
            message,
        };
        let raw: RawManifest = toml::from_str(text)
            .map_err(|e| error(e.span().map(|s| s.start), e.message().trim().to_owned()))?;
        let mut suites: Vec<SuiteSpec> = Vec::with_capacity(raw.suite.len());
        for s in raw.suite {
            let name = s.name.get_ref().trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(error(Some(s.name.span().start), format!("suite name {name:?}: use letters, digits, - and _")));
            }
            if suites.iter().any(|x| x.name == name) {
                return Err(error(Some(s.name.span().start), format!("suite {name:?} is named twice")));
            }
            let root = match s.root.get_ref().as_str() {
                "repo" => Root::Repo,
                "shared" => Root::Shared,
                "user" => Root::User,
                other => {
                    return Err(error(
                        Some(s.root.span().start),
                        format!("suite {name:?}: root {other:?} is not one of repo, shared, user"),
                    ));
                }
            };
            let pattern = s.pattern.get_ref();
            if let Err(why) = check_pattern(pattern) {
                return Err(error(Some(s.pattern.span().start), format!("suite {name:?}: pattern {pattern:?} {why}")));
            }
            suites.push(SuiteSpec { name: name.to_owned(), root, pattern: pattern.clone(), real: s.real, about: s.about });
        }
        if suites.is_empty() {
            return Err(error(None, "no [[suite]] entries".into()));
        }
        Ok(Manifest { suites })
    }

    /// The suite called `name`.
    pub fn suite(&self, name: &str) -> Option<&SuiteSpec> {
        self.suites.iter().find(|s| s.name == name)
    }

    /// The pages of every suite marked `real`, suite by suite in manifest
    /// order: the shared corpus's real pages and the pages users saved with
    /// `whittle corpus add`. What the benches over real pages run on.
    pub fn real_pages(&self) -> Vec<PathBuf> {
        self.suites.iter().filter(|s| s.real).flat_map(SuiteSpec::pages).collect()
    }
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Why a pattern cannot be used, if it cannot: it must stay below its
/// root.
fn check_pattern(pattern: &str) -> Result<(), &'static str> {
    if pattern.is_empty() {
        return Err("is empty");
    }
    if pattern.starts_with('/') || pattern.contains('\\') {
        return Err("must be a relative path with / between folders");
    }
    if pattern.split('/').any(|seg| seg.is_empty() || seg == "." || seg == "..") {
        return Err("has an empty, . or .. segment");
    }
    if pattern.split('/').next_back() == Some("**") {
        return Err("must end with a file name pattern, not **");
    }
    Ok(())
}

/// Whether `name` matches `pattern`, where `*` stands for any run of
/// characters (greedy with backtracking to the last `*`: linear in
/// practice, at worst their product on short file names).
fn matches(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

/// The files below `root` that `pattern` names, sorted. Iterative: each
/// segment expands the folders the previous one reached.
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let segments: Vec<&str> = pattern.split('/').collect();
    let mut reached = vec![root.to_path_buf()];
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let mut next = Vec::new();
        if *seg == "**" {
            // The folders reached and every folder below them.
            let mut stack = std::mem::take(&mut reached);
            while let Some(dir) = stack.pop() {
                for entry in crate::read_dir_sorted(&dir) {
                    if entry.is_dir() {
                        stack.push(entry);
                    }
                }
                next.push(dir);
            }
        } else {
            for dir in &reached {
                for entry in crate::read_dir_sorted(dir) {
                    let name_matches = entry.file_name().is_some_and(|n| matches(seg, &n.to_string_lossy()));
                    if name_matches && (if last { entry.is_file() } else { entry.is_dir() }) {
                        next.push(entry);
                    }
                }
            }
        }
        reached = next;
    }
    reached.sort();
    reached.dedup();
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifest_reads() {
        let m = Manifest::parse(BUILTIN, "corpus/manifest.toml").unwrap_or_else(|e| panic!("{e}"));
        for suite in crate::Suite::ALL {
            assert!(m.suite(suite.name()).is_some(), "{} missing from the manifest", suite.name());
        }
        for name in ["fixtures", "hostile", "layout"] {
            let suite = m.suite(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(suite.pages().len() >= 5, "{name}: the repository's own pages are found");
        }
    }

    #[test]
    fn real_pages_are_those_of_the_real_suites_only() {
        let text = "[[suite]]\nname = \"pages\"\nroot = \"repo\"\npattern = \"hostile/*.html\"\nreal = true\nabout = \"\"\n\n\
                    [[suite]]\nname = \"bits\"\nroot = \"repo\"\npattern = \"fixtures/*.html\"\nreal = false\nabout = \"\"\n";
        let m = Manifest::parse(text, "m").unwrap_or_else(|e| panic!("{e}"));
        let real = m.real_pages();
        let hostile = m.suite("pages").map(SuiteSpec::pages).unwrap_or_default();
        assert!(!hostile.is_empty(), "the repository's hostile pages are found");
        assert_eq!(real, hostile, "only the suite marked real");
    }

    #[test]
    fn errors_name_the_line() {
        let bad_root = "[[suite]]\nname = \"a\"\nroot = \"elsewhere\"\npattern = \"*.html\"\n";
        let e = Manifest::parse(bad_root, "m.toml").expect_err("bad root");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.to_string().starts_with("m.toml line 3: "), "{e}");
        let twice = "[[suite]]\nname = \"a\"\nroot = \"repo\"\npattern = \"*.html\"\n\n[[suite]]\nname = \"a\"\nroot = \"repo\"\npattern = \"x/*.html\"\n";
        assert_eq!(Manifest::parse(twice, "m").expect_err("twice").line, Some(7));
        let unknown = "[[suite]]\nname = \"a\"\nroot = \"repo\"\npattern = \"*.html\"\nsize = 3\n";
        assert_eq!(Manifest::parse(unknown, "m").expect_err("unknown key").line, Some(5));
        let broken = "[[suite]]\nname = \"a\nroot = \"repo\"\n";
        assert_eq!(Manifest::parse(broken, "m").expect_err("syntax").line, Some(2));
        let escape = "[[suite]]\nname = \"a\"\nroot = \"repo\"\npattern = \"../secrets/*\"\n";
        assert_eq!(Manifest::parse(escape, "m").expect_err("..").line, Some(4));
        assert!(Manifest::parse("", "m").expect_err("empty").to_string().contains("no [[suite]]"));
    }

    #[test]
    fn patterns_match_within_a_segment() {
        assert!(matches("*.html", "a.html"));
        assert!(matches("*.html.gz", "ab12.html.gz"));
        assert!(!matches("*.html", "a.html.gz"));
        assert!(matches("source.html", "source.html"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        assert!(matches("*", ""));
    }

    #[test]
    fn double_star_reaches_every_folder() {
        let root = std::env::temp_dir().join(format!("whittle-manifest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for p in ["a.html", "x/b.html", "x/y/c.html", "x/y/d.txt"] {
            let path = root.join(p);
            std::fs::create_dir_all(path.parent().unwrap_or(&root)).expect("mkdir");
            std::fs::write(&path, "<p>").expect("write");
        }
        let names: Vec<String> = expand(&root, "**/*.html")
            .iter()
            .map(|p| p.strip_prefix(&root).map(|p| p.display().to_string()).unwrap_or_default())
            .collect();
        assert_eq!(names, ["a.html", "x/b.html", "x/y/c.html"]);
        assert_eq!(expand(&root, "x/*.html").len(), 1);
        let _ = std::fs::remove_dir_all(&root);
    }
}
