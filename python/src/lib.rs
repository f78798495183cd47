//! whittle for Python: the engine's snapshot, extraction and digest as
//! functions of the `whittle` module, and the `whittle` command.
//!
//! Every function takes the page as `bytes` (decoded as the command line
//! decodes a file: byte order mark, the HTTP `Content-Type` given, then
//! `<meta charset>`, else windows-1252) or as `str`, converts its
//! arguments while it holds the GIL, and runs the engine with the GIL
//! released, so threads scale across cores. Bad arguments raise
//! `ValueError`/`TypeError` with a one-line reason; the engine itself never
//! fails on page data, and a bug in it (a panic) is a `whittle.WhittleError`
//! for that call, never a crash of the interpreter.
//!
//! What a page says passes through the same privacy filter as the command
//! line's output (characters a person cannot see removed, secret-looking
//! values as tokens), so `whittle.extract(html)` is `whittle extract`'s text.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use whittle::cli::MAX_BUDGET;
use whittle_engine::fold::{FoldOptions, MIN_BUDGET, Mode};
use whittle_engine::render::envelope::{Envelope, Ids};
use whittle_engine::{Document, ParseOptions, RefTable, SnapshotOptions, StylesheetText, Viewport};

create_exception!(
    _whittle,
    WhittleError,
    PyException,
    "whittle could not do what was asked: the message says why (a page that cannot be read as asked, or a bug in whittle)."
);

/// A page as the caller gave it, borrowed from the Python object while the
/// GIL is released.
enum Html<'a> {
    Bytes(Cow<'a, [u8]>),
    Text(Cow<'a, str>),
}

impl<'a> Html<'a> {
    /// `bytes` and `bytearray` as bytes, `str` as text (a lone surrogate,
    /// which no page can hold, becomes U+FFFD as a decoder would make it).
    fn from_py(html: &'a Bound<'_, PyAny>) -> PyResult<Html<'a>> {
        if let Ok(b) = html.cast::<PyBytes>() {
            Ok(Html::Bytes(Cow::Borrowed(b.as_bytes())))
        } else if let Ok(s) = html.cast::<PyString>() {
            match s.to_cow() {
                Ok(text) => Ok(Html::Text(text)),
                // Lone surrogates: each one U+FFFD, as a UTF-16 decoder gives.
                Err(_) => {
                    let units = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?;
                    let units = units.cast::<PyBytes>()?.as_bytes();
                    let units: Vec<u16> = units.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
                    Ok(Html::Text(Cow::Owned(String::from_utf16_lossy(&units))))
                }
            }
        } else if let Ok(b) = html.cast::<PyByteArray>() {
            Ok(Html::Bytes(Cow::Owned(b.to_vec())))
        } else {
            let kind = html.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
            Err(PyTypeError::new_err(format!("html must be str or bytes, not {kind}")))
        }
    }

    fn parse(&self, options: &ParseOptions) -> Document {
        match self {
            Html::Bytes(b) => whittle_engine::parse(b, options),
            Html::Text(t) => whittle_engine::parse_str(t, options),
        }
    }
}

/// The parse options of `url` and `content_type`, checked.
fn parse_options(url: Option<&str>, content_type: Option<&str>) -> PyResult<ParseOptions> {
    let url = match url {
        None => None,
        Some(u) => Some(url::Url::parse(u.trim()).map_err(|e| {
            // The URL as given may carry a password or a token.
            PyValueError::new_err(format!("url {:?} is not an absolute URL: {e}", whittle::fetch::redact_str(u)))
        })?),
    };
    let transport_charset = content_type
        .and_then(whittle_engine::parse::charset::charset_from_content_type)
        .map(str::to_owned);
    Ok(ParseOptions { url, transport_charset, scripting: true })
}

/// Runs `work` with the GIL released; a panic in it is a `WhittleError`.
fn engine<T: Send>(py: Python<'_>, what: &str, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work))).map_err(|_| {
        WhittleError::new_err(format!("whittle failed to {what} this page (a bug in whittle; the page is not at fault)"))
    })
}

/// The text a person may be shown of what a page wrote (see the module
/// documentation); one vault per call, so a value is one token throughout.
fn private(vault: &mut whittle_engine::safety::Vault, text: &str) -> String {
    whittle_engine::safety::private(vault, text).into_owned()
}

/// One element with a ref.
#[pyclass(module = "whittle", frozen, get_all)]
#[derive(Debug, Clone)]
struct Element {
    /// Its ref: the number in `[n]` in the text.
    #[pyo3(name = "ref")]
    ref_: u32,
    /// Its role (`button`, `link`, `textbox`, …).
    role: String,
    /// Its accessible name.
    name: String,
    /// Its value (empty for a sensitive field).
    value: String,
    /// Its states (`checked`, `disabled`, `required`, …).
    states: Vec<String>,
}

#[pymethods]
impl Element {
    fn __repr__(&self) -> String {
        format!("Element(ref={}, role={:?}, name={:?})", self.ref_, self.role, self.name)
    }
}

/// A page's observation: what a person would see and can act on.
#[pyclass(module = "whittle", frozen, get_all)]
#[derive(Debug)]
struct Snapshot {
    /// The observation: the text a model reads.
    text: String,
    /// The page's title.
    title: String,
    /// The page's URL (`""` without one).
    url: String,
    /// Every element with a ref, in ref order.
    elements: Vec<Element>,
    /// What the observation left out or withheld: `omitted_not_visible`,
    /// `redacted_fields`, `frames_masked`, `marks`, `tree_lines`,
    /// `tree_truncated`, …
    counters: Py<PyDict>,
    /// What the engine recovered from (parse errors, skipped CSS), one
    /// line each.
    diagnostics: Vec<String>,
}

#[pymethods]
impl Snapshot {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("Snapshot(title={:?}, elements={}, chars={})", self.title, self.elements.len(), self.text.len())
    }
}

/// What `snapshot` computes with the GIL released.
struct Snapped {
    text: String,
    title: String,
    url: String,
    elements: Vec<Element>,
    counters: serde_json::Map<String, serde_json::Value>,
    diagnostics: Vec<String>,
}

/// snapshot(html, url=None, *, mode="full", budget=3000, viewport=(1280, 800), stylesheets=(), content_type=None)
/// --
///
/// The page's observation, as `whittle snapshot` prints it.
#[pyfunction]
#[pyo3(signature = (html, url=None, *, mode="full", budget=Some(3000), viewport=(1280, 800), stylesheets=Vec::new(), content_type=None))]
#[allow(clippy::too_many_arguments)]
fn snapshot(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<&str>,
    mode: &str,
    budget: Option<i64>,
    viewport: (i64, i64),
    stylesheets: Vec<String>,
    content_type: Option<&str>,
) -> PyResult<Snapshot> {
    let html = Html::from_py(html)?;
    let mut options = SnapshotOptions { parse: parse_options(url, content_type)?, ..SnapshotOptions::default() };
    let mode = Mode::parse(mode).ok_or_else(|| PyValueError::new_err(format!("mode must be \"actions\", \"full\" or \"read\", not {mode:?}")))?;
    let budget = match budget {
        None => None,
        Some(b) if (i64::from(MIN_BUDGET)..=i64::from(MAX_BUDGET)).contains(&b) => Some(b as u32),
        Some(b) => {
            return Err(PyValueError::new_err(format!("budget must be from {MIN_BUDGET} to {MAX_BUDGET} tokens (or None for no folding), not {b}")));
        }
    };
    options.fold = FoldOptions { mode, budget, ..FoldOptions::default() };
    let (w, h) = viewport;
    if !(1..=100_000).contains(&w) || !(1..=100_000).contains(&h) {
        return Err(PyValueError::new_err(format!("viewport width and height must be from 1 to 100000 px, not ({w}, {h})")));
    }
    options.cascade.viewport = Viewport { width: w as u32, height: h as u32 };
    options.cascade.stylesheets = stylesheets.into_iter().map(|text| StylesheetText { url: None, text }).collect();
    let snapped = engine(py, "snapshot", move || {
        let document = html.parse(&options.parse);
        let origin = document.url().filter(|u| u.scheme() != "file").map(|u| u.origin().ascii_serialization());
        let snap = whittle_engine::snapshot_document(document, &options, &mut RefTable::new());
        let diagnostics = snap.diagnostics().iter().map(ToString::to_string).collect();
        let ids = Ids { tool: "snapshot".into(), operation_id: String::new(), tab_id: "1".into() };
        let envelope = Envelope::observation(ids, "static", &snap.layout, &snap.observation, &snap.tree, origin);
        let mut vault = whittle_engine::safety::Vault::new();
        // The envelope's counters, as its JSON names them: a counter added
        // there is one here.
        let counters = match serde_json::to_value(&envelope.server.counters) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let content = envelope.page_content.unwrap_or_else(|| unreachable!("an observation envelope has page content"));
        let elements = content
            .elements
            .into_iter()
            .map(|e| Element {
                ref_: e.ref_id,
                role: e.role.to_owned(),
                name: private(&mut vault, &e.name),
                value: private(&mut vault, &e.value),
                states: e.states.into_iter().map(str::to_owned).collect(),
            })
            .collect();
        Snapped {
            text: private(&mut vault, &snap.observation.text()),
            title: private(&mut vault, &content.title),
            url: content.url,
            elements,
            counters,
            diagnostics,
        }
    })?;
    let counters = PyDict::new(py);
    for (key, value) in snapped.counters {
        match value {
            serde_json::Value::Bool(b) => counters.set_item(key, b)?,
            serde_json::Value::Number(n) => counters.set_item(key, n.as_u64().unwrap_or_default())?,
            _ => {}
        }
    }
    Ok(Snapshot {
        text: snapped.text,
        title: snapped.title,
        url: snapped.url,
        elements: snapped.elements,
        counters: counters.unbind(),
        diagnostics: snapped.diagnostics,
    })
}

/// extract(html, url=None, kind="text", *, content_type=None)
/// --
///
/// The page's main content as plain text, one block per line.
#[pyfunction]
#[pyo3(signature = (html, url=None, kind="text", *, content_type=None))]
fn extract(py: Python<'_>, html: &Bound<'_, PyAny>, url: Option<&str>, kind: &str, content_type: Option<&str>) -> PyResult<String> {
    let html = Html::from_py(html)?;
    let options = parse_options(url, content_type)?;
    let kind = match kind {
        "text" => whittle_engine::ExtractKind::Text,
        "table" => whittle_engine::ExtractKind::Table,
        "list" => whittle_engine::ExtractKind::List,
        other => return Err(PyValueError::new_err(format!("kind must be \"text\", \"table\" or \"list\", not {other:?}"))),
    };
    let text = engine(py, "extract from", move || {
        let extracted = whittle_engine::Analysed::new(html.parse(&options), Vec::new()).extract(kind);
        extracted.map(|text| private(&mut whittle_engine::safety::Vault::new(), &text))
    })?;
    text.map_err(|nothing| WhittleError::new_err(nothing.to_string()))
}

/// A page's digest: its facts, outline and condensed text.
#[pyclass(module = "whittle", frozen, get_all)]
#[derive(Debug)]
struct Digest {
    /// The title (`og:title`, else `<title>`, else the first `h1`).
    title: String,
    /// Who wrote it (`"by …"`), when the page says.
    byline: Option<String>,
    /// When it was published (`YYYY-MM-DD` when the page gives an ISO
    /// date, else as written).
    date: Option<String>,
    /// The site's name.
    site: Option<String>,
    /// The language the page declares (`lang`), as written.
    language: Option<String>,
    /// The main content's headings.
    outline: Vec<String>,
    /// The digest: a header, the facts, the outline, the main content
    /// condensed to the budget, the counts.
    text: String,
    /// Links on the page.
    links: usize,
    /// Forms on the page.
    forms: usize,
    /// The text's tokens (o200k, by whittle's estimate).
    tokens: u32,
    /// Whether the page looks like it needs scripts to show its content.
    needs_scripts: bool,
    /// The main content as plain text (what `extract` gives) when asked
    /// for with `main_text=True`, else `None`.
    main_text: Option<String>,
}

#[pymethods]
impl Digest {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("Digest(title={:?}, tokens={})", self.title, self.tokens)
    }
}

/// digest(html, url=None, *, budget=400, content_type=None, main_text=False)
/// --
///
/// The page's digest, as `whittle research` gives it for one page; with
/// `main_text=True` also the main content as `extract` gives it, from the
/// same parse.
#[pyfunction]
#[pyo3(signature = (html, url=None, *, budget=whittle::cli::PAGE_BUDGET as i64, content_type=None, main_text=false))]
fn digest(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<&str>,
    budget: i64,
    content_type: Option<&str>,
    main_text: bool,
) -> PyResult<Digest> {
    let html = Html::from_py(html)?;
    let options = parse_options(url, content_type)?;
    let min = i64::from(whittle::research::MIN_PAGE_BUDGET);
    if !(min..=i64::from(MAX_BUDGET)).contains(&budget) {
        return Err(PyValueError::new_err(format!("budget must be from {min} to {MAX_BUDGET} tokens, not {budget}")));
    }
    engine(py, "digest", move || {
        // One parse and one cascade for both.
        let page = whittle_engine::Analysed::new(html.parse(&options), Vec::new());
        let d = page.digest(&whittle_engine::DigestOptions { index: 1, budget: budget as u32, scripts_ran: false });
        let text = main_text.then(|| page.main_text());
        let mut vault = whittle_engine::safety::Vault::new();
        let mut p = |s: &str| private(&mut vault, s);
        Digest {
            title: p(&d.title),
            byline: d.meta.byline.as_deref().map(&mut p),
            date: d.meta.published.as_deref().map(&mut p),
            site: d.meta.site.as_deref().map(&mut p),
            language: d.meta.language.clone(),
            outline: d.outline.iter().map(|h| p(h)).collect(),
            text: p(&d.text),
            links: d.links,
            forms: d.forms,
            tokens: d.tokens,
            needs_scripts: d.needs_scripts,
            main_text: text.as_deref().map(&mut p),
        }
    })
}

/// main(argv)
/// --
///
/// Runs the `whittle` command with `argv` (the program name first) and
/// returns its exit code. The `whittle` script installed with the package
/// calls it.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| whittle::command::run(argv))
}

#[pymodule]
fn _whittle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("WhittleError", m.py().get_type::<WhittleError>())?;
    m.add_class::<Snapshot>()?;
    m.add_class::<Element>()?;
    m.add_class::<Digest>()?;
    m.add_function(wrap_pyfunction!(snapshot, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(digest, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
