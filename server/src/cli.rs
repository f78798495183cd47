//! The command line: `whittle snapshot` and `whittle inspect`.

use std::io::Write;
use std::sync::Arc;

use serde::Serialize;
use url::Url;
use whittle_engine::fnv1a;
use whittle_engine::render::envelope::Ids;
use whittle_engine::fold::{FoldOptions, MIN_BUDGET, Mode};
use whittle_engine::{
    CascadeOptions, Document, Envelope, NodeData, RefTable, Selector, SnapshotOptions, StylesheetText, Viewport,
    linked_stylesheet_urls, parse, snapshot_document,
};

use crate::load::{LoadError, Loader};
use crate::policy::NetPolicy;

/// Why a command failed, and with which exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad arguments: exit 2.
    #[error("{0}")]
    Usage(String),
    /// The page could not be loaded: exit 1.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Writing the output failed: exit 1.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    /// The page has nothing of what was asked (no table, no list): exit 1.
    #[error("{0}")]
    Nothing(String),
    /// The profile cannot be used: exit 2.
    #[error("profile {0}")]
    Profile(#[from] crate::profile::ProfileError),
    /// Chromium could not render the page: exit 1.
    #[error("{0}")]
    Browser(String),
    /// The profile says paused: nothing from any page is given out: exit 3.
    #[error("⏸ paused by the profile ({0}): nothing from the page was sent")]
    Paused(String),
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Profile(_) => 2,
            CliError::Paused(_) => 3,
            CliError::Load(_) | CliError::Output(_) | CliError::Nothing(_) | CliError::Browser(_) => 1,
        }
    }
}

/// The flags of every command that fetches: the profile, and whether
/// private addresses may be fetched.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AccessArgs {
    /// The profile (TOML): allowed and blocked sites, private addresses,
    /// secrets, limits (default: $WHITTLE_PROFILE, else
    /// $XDG_CONFIG_HOME/whittle/profile.toml or
    /// ~/.config/whittle/profile.toml when it exists).
    #[arg(long, value_name = "PATH")]
    pub profile: Option<std::path::PathBuf>,
    /// Allow loopback, private and link-local addresses (local testing,
    /// intranets); refused by default.
    #[arg(long)]
    pub allow_private: bool,
}

impl AccessArgs {
    /// The profile, with `--allow-private` applied.
    pub fn profile(&self) -> Result<crate::profile::Profile, crate::profile::ProfileError> {
        let mut profile = crate::profile::Profile::load(self.profile.as_deref())?;
        profile.net.private |= self.allow_private;
        Ok(profile)
    }

    /// The network policy of a CLI command; a paused profile is an error.
    pub fn policy(&self) -> Result<Arc<NetPolicy>, CliError> {
        let profile = self.profile()?;
        if profile.paused {
            let path = profile.path.as_deref().map_or_else(|| "profile".into(), |p| p.display().to_string());
            return Err(CliError::Paused(path));
        }
        Ok(Arc::new(profile.net))
    }
}

/// Output format of `snapshot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The text observation.
    Text,
    /// The structured envelope (the MCP tools' `structuredContent`) as JSON.
    Json,
}

/// Parses `--viewport WIDTHxHEIGHT` (each 1–100,000 px).
pub fn parse_viewport(s: &str) -> Result<Viewport, String> {
    let bad = || format!("{s:?} is not WIDTHxHEIGHT in px, e.g. 1280x800");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=100_000).contains(&w) || !(1..=100_000).contains(&h) {
        return Err(format!("{s:?}: width and height must be between 1 and 100000 px"));
    }
    Ok(Viewport { width: w, height: h })
}

/// Parses `--device-scale` (a number within
/// [`DEVICE_SCALES`](crate::backend::cdp::DEVICE_SCALES)).
pub fn parse_device_scale(s: &str) -> Result<f64, String> {
    let range = crate::backend::cdp::DEVICE_SCALES;
    match s.trim().parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v),
        _ => Err(format!("{s:?}: give a number from {} to {}, e.g. 2", range.start(), range.end())),
    }
}

/// The largest `--budget` accepted (a million tokens is more than any
/// model reads at once).
pub const MAX_BUDGET: u32 = 1_000_000;

/// What `snapshot` shows, as given on the command line (unchecked).
#[derive(Debug, Clone, Copy, Default)]
pub struct ViewArgs<'a> {
    /// `--mode`.
    pub mode: Option<&'a str>,
    /// `--budget`.
    pub budget: Option<&'a str>,
    /// `--expand`.
    pub expand: Option<&'a str>,
    /// `--no-fold`.
    pub no_fold: bool,
}

impl ViewArgs<'_> {
    /// The fold options these arguments ask for, or a one-line usage error.
    pub fn fold_options(&self) -> Result<FoldOptions, CliError> {
        let mut options = FoldOptions::default();
        if let Some(m) = self.mode {
            options.mode = Mode::parse(m)
                .ok_or_else(|| CliError::Usage(format!("--mode must be actions, full or read, not {m:?}")))?;
        }
        if let Some(b) = self.budget {
            if self.no_fold {
                return Err(CliError::Usage("--budget and --no-fold exclude each other".into()));
            }
            let n: u32 = b.trim().parse().map_err(|_| {
                CliError::Usage(format!("--budget must be a number of tokens from {MIN_BUDGET} to {MAX_BUDGET}, not {b:?}"))
            })?;
            if !(MIN_BUDGET..=MAX_BUDGET).contains(&n) {
                return Err(CliError::Usage(format!("--budget must be from {MIN_BUDGET} to {MAX_BUDGET} tokens, not {n}")));
            }
            options.budget = Some(n);
        }
        if self.no_fold {
            options.budget = None;
        }
        if let Some(e) = self.expand {
            let r: u32 = e
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .ok()
                .filter(|&r| r > 0)
                .ok_or_else(|| CliError::Usage(format!("--expand must be a ref (a positive number), not {e:?}")))?;
            options.expand = Some(r);
        }
        Ok(options)
    }
}

/// How `snapshot`, `extract` and `inspect` load their page.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PageArgs {
    /// The page's URL, for the header and for resolving links (default:
    /// where the page came from).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Also fetch the stylesheets a FILE or `-` links on the web. Without
    /// it a local page is read offline: only stylesheets on disk apply.
    #[arg(long)]
    pub fetch_stylesheets: bool,
    /// Also print diagnostics (recovered parse errors, skipped CSS,
    /// stylesheets not fetched) to stderr.
    #[arg(short, long)]
    pub verbose: bool,
}

impl PageArgs {
    /// Prints the diagnostics to stderr when `--verbose` asked for them.
    fn note(&self, problems: impl IntoIterator<Item = impl std::fmt::Display>) {
        if self.verbose {
            for p in problems {
                eprintln!("whittle: note: {p}");
            }
        }
    }
}

/// Loads a page and parses it with its URL. A page from the web brings
/// its stylesheets from the web; a local one only with
/// `--fetch-stylesheets`.
fn load_document(
    source: &str,
    page_args: &PageArgs,
    policy: &Arc<NetPolicy>,
) -> Result<(Document, Vec<StylesheetText>, Vec<String>), CliError> {
    let mut loader = Loader::new(policy.clone());
    let page = loader.load(source)?;
    let from_web = page.url.as_ref().is_some_and(|u| matches!(u.scheme(), "http" | "https"));
    let url = match &page_args.base_url {
        Some(b) => Some(Url::parse(b).map_err(|e| CliError::Usage(format!("--base-url {b:?} is not a URL: {e}")))?),
        None => page.url.clone(),
    };
    let options = whittle_engine::ParseOptions { url, transport_charset: page.charset.clone(), scripting: true };
    let doc = parse(&page.bytes, &options);
    // Linked stylesheets resolve against the base URL; fetch what applies.
    let hrefs = linked_stylesheet_urls(&doc, &CascadeOptions::default());
    let (sheets, problems) = loader.linked_stylesheets(&hrefs, from_web || page_args.fetch_stylesheets);
    Ok((doc, sheets, problems))
}

/// `whittle snapshot`. With `--format json`, a page that cannot be loaded
/// also gives an error envelope (`ok: false`, `server.error.code`) on
/// standard output. `view` chooses the mode, budget and expanded ref; bad
/// values are usage errors (exit 2) before anything is loaded, and so is
/// an `--expand` ref the page does not have.
#[allow(clippy::too_many_arguments)]
pub fn snapshot(
    source: &str,
    format: Format,
    page: &PageArgs,
    view: ViewArgs<'_>,
    viewport: Viewport,
    policy: &Arc<NetPolicy>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let fold = view.fold_options()?;
    let loaded = load_document(source, page, policy);
    if format == Format::Json
        && let Err(CliError::Load(e)) = &loaded
    {
        let ids = Ids { tool: "snapshot".into(), operation_id: String::new(), tab_id: "1".into() };
        let envelope = Envelope::error(ids, e.code(), e.to_string());
        serde_json::to_writer_pretty(&mut *out, &envelope).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
    }
    let (doc, sheets, problems) = loaded?;
    let origin = doc.url().filter(|u| u.scheme() != "file").map(|u| u.origin().ascii_serialization());
    let mut options = SnapshotOptions::default();
    options.cascade.stylesheets = sheets;
    options.cascade.viewport = viewport;
    options.fold = fold;
    let snap = snapshot_document(doc, &options, &mut RefTable::new());
    if snap.folded.expand_missing {
        let r = fold.expand.unwrap_or_default();
        return Err(CliError::Usage(format!("--expand {r}: the page has no ref {r}")));
    }
    page.note(&problems);
    page.note(snap.diagnostics());
    match format {
        Format::Text => out.write_all(private(&snap.observation.text()).as_bytes())?,
        Format::Json => {
            let snapshot_text = snap.observation.text();
            let ids = Ids {
                tool: "snapshot".into(),
                operation_id: format!("{:016x}", fnv1a(format!("snapshot\n{snapshot_text}").as_bytes())),
                tab_id: "1".into(),
            };
            let envelope = Envelope::observation(ids, "static", &snap.layout, &snap.observation, &snap.tree, origin);
            let json = serde_json::to_string_pretty(&envelope).map_err(std::io::Error::from)?;
            out.write_all(private(&json).as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// One line of `whittle inspect`.
#[derive(Debug, Serialize)]
struct Inspected<'a> {
    tag: &'a str,
    attrs: serde_json::Map<String, serde_json::Value>,
    role: &'static str,
    name: String,
    description: String,
    value: String,
    states: Vec<&'static str>,
    hidden: bool,
    #[serde(rename = "ref")]
    ref_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sensitive: Option<whittle_engine::semantics::Sensitive>,
}

/// `whittle inspect`: one JSON object per element matching `selector`, in
/// tree order.
pub fn inspect(
    source: &str,
    selector: &str,
    page: &PageArgs,
    policy: &Arc<NetPolicy>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let selector = Selector::parse(selector).map_err(|e| CliError::Usage(e.to_string()))?;
    let (doc, sheets, problems) = load_document(source, page, policy)?;
    let mut options = SnapshotOptions::default();
    options.cascade.stylesheets = sheets;
    let mut refs = RefTable::new();
    let snap = snapshot_document(doc, &options, &mut refs);
    page.note(&problems);
    page.note(snap.diagnostics());
    let doc = &snap.document;
    let mut namer = snap.semantics.namer(doc, &snap.styles);
    let mut writer = std::io::BufWriter::new(out);
    for id in selector.select(doc) {
        let NodeData::Element(e) = &doc.node(id).data else { continue };
        let ax = snap.semantics.ax_node_with(&mut namer, doc, &snap.styles, id);
        let attrs = e
            .attrs
            .iter()
            .map(|a| (a.name.local.to_string(), serde_json::Value::String(a.value.to_string())))
            .collect();
        let line = Inspected {
            tag: &e.name.local,
            attrs,
            role: ax.role.as_str(),
            name: ax.name,
            description: ax.description,
            value: ax.value,
            states: ax.states.names().collect(),
            hidden: ax.hidden,
            ref_id: refs.get(doc.id(), id),
            level: ax.level,
            sensitive: ax.sensitive,
        };
        serde_json::to_writer(&mut writer, &line).map_err(std::io::Error::from)?;
        writer.write_all(b"\n")?;
    }
    writer.flush()?;
    Ok(())
}

/// What `whittle extract` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExtractWhat {
    /// The main content as plain text, one block per line (what the
    /// extraction quality test scores).
    Text,
    /// The largest visible data table, one row per line.
    Table,
    /// The repeated items of the main content, one per line.
    List,
}

/// `whittle extract`: the page's main text, table or list, unpaged.
/// Only the stages each kind needs run: text needs no layout and no tree.
pub fn extract(
    source: &str,
    what: ExtractWhat,
    page: &PageArgs,
    policy: &Arc<NetPolicy>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (doc, sheets, problems) = load_document(source, page, policy)?;
    // The stages research's digests share (`research --warc` gives the
    // same main text).
    let analysed = whittle_engine::Analysed::new(doc, sheets);
    page.note(&problems);
    page.note(analysed.document.diagnostics().iter().chain(analysed.styles.diagnostics()));
    let kind = match what {
        ExtractWhat::Text => whittle_engine::ExtractKind::Text,
        ExtractWhat::Table => whittle_engine::ExtractKind::Table,
        ExtractWhat::List => whittle_engine::ExtractKind::List,
    };
    let text = analysed.extract(kind).map_err(|e| CliError::Nothing(e.to_string()))?;
    out.write_all(private(&text).as_bytes())?;
    Ok(())
}

/// What the CLI prints of a page, as the MCP session gives it: without
/// characters a person cannot see, secret-looking values as tokens
/// (docs/privacy.md). One output: numbered within it.
fn private(text: &str) -> String {
    whittle_engine::safety::private(&mut whittle_engine::safety::Vault::new(), text).into_owned()
}

/// `whittle research`'s budget per page without `--budget`, in tokens.
pub const PAGE_BUDGET: u32 = 400;

/// How `whittle research` runs.
#[derive(Debug, Clone)]
pub struct ResearchArgs {
    /// URLs from the command line.
    pub urls: Vec<String>,
    /// A file of URLs, one per line (`#` starts a comment).
    pub urls_file: Option<std::path::PathBuf>,
    /// WARC archives to digest the pages of, instead of fetching URLs.
    pub warc: Vec<std::path::PathBuf>,
    /// With `warc`: the most bytes a page's body may have (default
    /// [`crate::fetch::Limits::max_page_bytes`]'s).
    pub max_page_bytes: Option<usize>,
    /// One JSON object per page, as each finishes.
    pub jsonl: bool,
    /// The total token budget (default [`PAGE_BUDGET`] per page); with
    /// `warc`, each page's.
    pub budget: Option<u32>,
    /// Pages in flight at once (fetched or being fetched, not yet digested).
    pub concurrency: usize,
    /// Pages fetched at once from one host.
    pub per_host: usize,
    /// Render pages that need scripts in Chromium.
    pub scripts: bool,
    /// Where pages may be fetched from.
    pub policy: Arc<NetPolicy>,
}

/// `whittle research`: digests pages in parallel. With `jsonl`, streams
/// one JSON object per page as it finishes (`index`, `url`, `ok`, `title`,
/// `digest`, `error` when not ok, …); else prints the digests in input
/// order. A progress line goes to standard error when it is a terminal.
/// With `warc`, the pages of those archives instead ([`research_warc`]).
pub fn research(args: &ResearchArgs, out: &mut (dyn Write + Send)) -> Result<(), CliError> {
    use std::io::IsTerminal;
    if !args.warc.is_empty() {
        return research_warc(args, out);
    }
    if args.max_page_bytes.is_some() {
        // clap's `requires` lets it through when URLs are given.
        return Err(CliError::Usage("--max-page-bytes is for --warc".into()));
    }
    let mut urls = args.urls.clone();
    if let Some(path) = &args.urls_file {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::Usage(format!("--urls-file {}: {e}", path.display())))?;
        urls.extend(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned));
    }
    if urls.is_empty() {
        return Err(CliError::Usage("no URLs: give some, or --urls-file".into()));
    }
    let options = crate::research::ResearchOptions {
        concurrency: args.concurrency.max(1),
        per_host: args.per_host.max(1),
        budget: args.budget.unwrap_or_else(|| PAGE_BUDGET.saturating_mul(urls.len() as u32)),
        limit: urls.len(),
        ..crate::research::ResearchOptions::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start the async runtime: {e}")))?;
    let fetcher = crate::fetch::Fetcher::guarded(crate::fetch::Limits::default(), args.policy.clone()).map_err(LoadError::from)?;
    let progress = std::io::stderr().is_terminal();
    let total = urls.len();
    let mut write_error: Option<std::io::Error> = None;
    // One vault for the run: the same value is the same token on every line.
    let mut vault = whittle_engine::safety::Vault::new();
    let result = {
        let mut on_page = |page: &crate::research::PageResult, done: usize| {
            if progress {
                let what = if page.ok { page.title.clone() } else { format!("✗ {}", crate::fetch::redact_str(&page.url)) };
                eprint!("\r\x1b[2K[{done}/{total}] {what}");
            }
            if args.jsonl && write_error.is_none() {
                let line = serde_json::to_string(page).unwrap_or_default();
                let line = whittle_engine::safety::private(&mut vault, &line).into_owned();
                if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                    write_error = Some(e);
                }
            }
        };
        let render = args.scripts.then(|| {
            let chromium = crate::backend::cdp::CdpBackend::new(crate::backend::cdp::ChromiumOptions {
                policy: Some(args.policy.clone()),
                ..crate::backend::cdp::ChromiumOptions::default()
            });
            let context = crate::backend::SessionContext::new(fetcher.clone(), 0, whittle_engine::Viewport::default());
            crate::research::Renderer::new(chromium, context, 3)
        });
        runtime.block_on(crate::research::research_with(&fetcher, &urls, &options, render, &mut on_page))
    };
    if progress {
        eprintln!();
    }
    if let Some(e) = write_error {
        return Err(CliError::Output(e));
    }
    if !args.jsonl {
        out.write_all(private(&result.text(options.budget, options.limit)).as_bytes())?;
    }
    Ok(())
}

/// `whittle research --warc`: every HTML page of the archives, one JSON
/// object per line as each is digested (`index`, `url`, `date`, `status`,
/// `ok`, `title`, `digest`, `text`, `tokens`, `error` when not ok; see
/// [`crate::warc`]), then a summary line on standard error that counts
/// every record. Nothing is fetched. A file that cannot be read is a
/// usage error before anything is printed; a broken record is its page's
/// error line, never the run's.
fn research_warc(args: &ResearchArgs, out: &mut (dyn Write + Send)) -> Result<(), CliError> {
    if args.scripts {
        return Err(CliError::Usage(
            "--scripts is not supported with --warc: archived pages are digested as recorded, without running their scripts".into(),
        ));
    }
    crate::warc::check_files(&args.warc).map_err(CliError::Usage)?;
    let options = crate::warc::WarcOptions {
        budget: args.budget.unwrap_or(PAGE_BUDGET),
        max_page_bytes: args.max_page_bytes.unwrap_or(crate::fetch::Limits::default().max_page_bytes),
        ..crate::warc::WarcOptions::default()
    };
    // One vault for the run: the same value is the same token on every line.
    let mut vault = whittle_engine::safety::Vault::new();
    let mut on_page = |page: &crate::research::PageResult| -> std::io::Result<()> {
        let line = serde_json::to_string(page).map_err(std::io::Error::from)?;
        let line = whittle_engine::safety::private(&mut vault, &line);
        writeln!(out, "{line}")?;
        out.flush()
    };
    let summary = crate::warc::research_warc(&args.warc, &options, &mut on_page)?;
    eprintln!("whittle: warc: {}", summary.line());
    Ok(())
}
