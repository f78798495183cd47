//! The person's profile: one TOML file that says where whittle may go and
//! with what (`--profile PATH`; by default `$WHITTLE_PROFILE`, else
//! `$XDG_CONFIG_HOME/whittle/profile.toml`, else
//! `~/.config/whittle/profile.toml`; a missing default file means the
//! defaults). Command-line flags win over the profile.
//!
//! ```toml
//! paused = false                      # true: nothing from any page is sent (⏸)
//! secrets = "secrets.toml"            # NAME = "value" lines; relative to this file
//! downloads = "~/Downloads/whittle"
//! search = "https://html.duckduckgo.com/html/?q={q}"
//! engine = "auto"                     # auto | static | chromium
//! chromium = "/usr/bin/chromium"
//!
//! [sites]
//! allow = ["*.example.com", "https://docs.rs"]   # empty or absent: every site not blocked
//! block = ["ads.example.com"]
//! private = false                     # loopback, private and link-local addresses
//!
//! [limits]
//! nav_timeout = 20                    # seconds
//! max_page_bytes = 10485760
//! ```
//!
//! Every error names the file and the line. The secrets file's errors
//! never quote its lines (they hold the secrets).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::backend::auto::EnginePolicy;
use crate::policy::{NetPolicy, OriginPattern};

/// A profile that could not be used: the file, the line (when known) and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when the error has a place.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ProfileError {}

/// What a profile sets; `None` fields leave the command line's defaults.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    /// Allowed and blocked sites, private addresses.
    pub net: NetPolicy,
    /// Named secrets (`secret:NAME`), sorted by name.
    pub secrets: Secrets,
    /// Where Chromium's downloads go.
    pub downloads: Option<PathBuf>,
    /// Where search words go (`{q}`).
    pub search_url: Option<String>,
    /// Which engine tabs use.
    pub engine: Option<EnginePolicy>,
    /// The Chromium executable.
    pub chromium: Option<PathBuf>,
    /// Whether the person paused the AI: nothing from any page is sent.
    pub paused: bool,
    /// Seconds a navigation may take.
    pub nav_timeout: Option<u64>,
    /// The most bytes a page may have once decompressed.
    pub max_page_bytes: Option<usize>,
}

/// Named secret values. `Debug` shows the names only.
#[derive(Clone, Default)]
pub struct Secrets(pub Vec<(String, String)>);

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(name, _)| name)).finish()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    paused: Option<bool>,
    secrets: Option<Spanned<String>>,
    downloads: Option<String>,
    search: Option<Spanned<String>>,
    engine: Option<Spanned<String>>,
    chromium: Option<String>,
    sites: Option<Sites>,
    limits: Option<Limits>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sites {
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    #[serde(default)]
    block: Vec<Spanned<String>>,
    private: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Limits {
    nav_timeout: Option<Spanned<u64>>,
    max_page_bytes: Option<Spanned<u64>>,
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

impl Profile {
    /// Where the profile is looked for when no `--profile` is given.
    pub fn default_path() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os("WHITTLE_PROFILE").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(p));
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").filter(|p| !p.is_empty()).map(|h| PathBuf::from(h).join(".config")))?;
        Some(config.join("whittle").join("profile.toml"))
    }

    /// Loads `explicit` (which must exist), else the default file if there
    /// is one, else the defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Profile, ProfileError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => match Profile::default_path() {
                Some(p) if p.is_file() => p,
                _ => return Ok(Profile::default()),
            },
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ProfileError { path: path.clone(), line: None, message: format!("cannot read it: {e}") })?;
        Profile::parse(&text, &path)
    }

    /// Parses a profile's text; `path` names it in errors and anchors its
    /// relative paths.
    pub fn parse(text: &str, path: &Path) -> Result<Profile, ProfileError> {
        let err = |line: Option<usize>, message: String| ProfileError { path: path.to_path_buf(), line, message };
        let at = |span: std::ops::Range<usize>, message: String| err(Some(line_of(text, span.start)), message);
        let file: File = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            err(line, e.message().trim().to_owned())
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut profile = Profile { path: Some(path.to_path_buf()), paused: file.paused.unwrap_or(false), ..Profile::default() };
        if let Some(sites) = file.sites {
            let parse = |list: Vec<Spanned<String>>| -> Result<Vec<OriginPattern>, ProfileError> {
                list.into_iter()
                    .map(|s| {
                        let span = s.span();
                        OriginPattern::parse(s.get_ref()).map_err(|m| at(span, m))
                    })
                    .collect()
            };
            profile.net.allow = parse(sites.allow)?;
            profile.net.block = parse(sites.block)?;
            profile.net.private = sites.private.unwrap_or(false);
        }
        if let Some(search) = file.search {
            if !search.get_ref().contains("{q}") {
                return Err(at(search.span(), format!("search {:?} has no {{q}} for the search words", search.get_ref())));
            }
            profile.search_url = Some(search.into_inner());
        }
        if let Some(engine) = file.engine {
            use clap::ValueEnum as _;
            let value = EnginePolicy::from_str(engine.get_ref(), true)
                .map_err(|_| at(engine.span(), format!("engine {:?}: use auto, static or chromium", engine.get_ref())))?;
            profile.engine = Some(value);
        }
        profile.downloads = file.downloads.map(|d| expand(&d, dir));
        profile.chromium = file.chromium.map(|c| expand(&c, dir));
        if let Some(limits) = file.limits {
            if let Some(t) = limits.nav_timeout {
                if *t.get_ref() == 0 || *t.get_ref() > 600 {
                    return Err(at(t.span(), "nav_timeout is in seconds, from 1 to 600".into()));
                }
                profile.nav_timeout = Some(*t.get_ref());
            }
            if let Some(b) = limits.max_page_bytes {
                if *b.get_ref() < 1024 {
                    return Err(at(b.span(), "max_page_bytes must be at least 1024".into()));
                }
                profile.max_page_bytes = Some(usize::try_from(*b.get_ref()).unwrap_or(usize::MAX));
            }
        }
        if let Some(secrets) = file.secrets {
            let secrets_path = expand(secrets.get_ref(), dir);
            let text = std::fs::read_to_string(&secrets_path).map_err(|e| {
                at(secrets.span(), format!("cannot read the secrets file {}: {e}", secrets_path.display()))
            })?;
            profile.secrets = parse_secrets(&text, &secrets_path)?;
        }
        Ok(profile)
    }
}

/// A secrets file: `NAME = "value"` lines (TOML). Errors name the line and
/// never quote it.
pub fn parse_secrets(text: &str, path: &Path) -> Result<Secrets, ProfileError> {
    let err = |line: Option<usize>, message: String| ProfileError { path: path.to_path_buf(), line, message };
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        err(line, "not a `NAME = \"value\"` line (the line is not shown: it may hold a secret)".into())
    })?;
    let mut out = Vec::with_capacity(table.len());
    for (name, value) in table {
        let line = text.lines().position(|l| l.contains(name.as_str())).map(|i| i + 1);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            return Err(err(line, "a secret's name is letters, digits, `_`, `-` and `.`".into()));
        }
        match value {
            toml::Value::String(v) if !v.is_empty() => out.push((name, v)),
            _ => return Err(err(line, format!("{name}: the value must be a non-empty string"))),
        }
    }
    Ok(Secrets(out))
}

/// `~/x` under the home folder, a relative path under `dir`.
fn expand(path: &str, dir: &Path) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    let p = PathBuf::from(path);
    if p.is_absolute() { p } else { dir.join(p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Profile, ProfileError> {
        Profile::parse(text, Path::new("/tmp/whittle-test/profile.toml"))
    }

    #[test]
    fn a_full_profile_parses() {
        let p = parse(
            "paused = true\nsearch = \"https://s.test/?q={q}\"\nengine = \"static\"\ndownloads = \"dl\"\n\
             [sites]\nallow = [\"*.example.com\", \"127.0.0.1:8080\"]\nblock = [\"ads.example.com\"]\nprivate = true\n\
             [limits]\nnav_timeout = 5\nmax_page_bytes = 2048\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(p.paused);
        assert_eq!(p.net.allow.len(), 2);
        assert_eq!(p.net.block.len(), 1);
        assert!(p.net.private);
        assert_eq!(p.engine, Some(EnginePolicy::Static));
        assert_eq!(p.downloads, Some(PathBuf::from("/tmp/whittle-test/dl")));
        assert_eq!(p.nav_timeout, Some(5));
        assert_eq!(p.max_page_bytes, Some(2048));
        assert!(parse("").is_ok_and(|p| !p.paused && !p.net.private && p.net.allow.is_empty()));
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("paused = true\nsearch = \"https://s.test/\"\n", 2, "{q}"),
            ("\n\n[sites]\nallow = [\"ok.com\",\n  \"x.com/path\"]\n", 5, "not a path"),
            ("engine = \"firefox\"\n", 1, "auto, static or chromium"),
            ("paused = true\nspeed = 3\n", 2, "speed"),
            ("paused = \"yes\"\n", 1, "bool"),
            ("[limits]\nnav_timeout = 0\n", 2, "seconds"),
            ("paused = \n", 1, ""),
            ("secrets = \"/nonexistent/secrets.toml\"\n", 1, "cannot read the secrets file"),
        ];
        for (text, line, words) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.line, Some(line), "{text:?}: {e}");
            assert!(e.to_string().contains(words), "{text:?}: {e}");
            assert!(e.to_string().starts_with("/tmp/whittle-test/profile.toml line "), "{e}");
        }
    }

    #[test]
    fn secrets_errors_never_show_the_values() {
        let path = Path::new("/tmp/s.toml");
        let s = parse_secrets("API_KEY = \"abc123xyz\"\nPIN = \"9876\"\n", path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.0.len(), 2);
        assert!(!format!("{s:?}").contains("abc123xyz"), "Debug shows names only");
        for bad in ["API_KEY = \"abc123xyz\nOTHER = 1\n", "API_KEY = abc123xyz\n", "API_KEY = 123456789\n", "\"bad name\" = \"abc123xyz\"\n"] {
            let e = parse_secrets(bad, path).expect_err(bad);
            assert!(e.line.is_some(), "{bad:?}: {e}");
            for leak in ["abc123xyz", "123456789"] {
                assert!(!e.to_string().contains(leak), "{bad:?} leaked: {e}");
            }
        }
    }
}
