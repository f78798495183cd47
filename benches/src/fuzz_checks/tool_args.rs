//! `tool_args`: arbitrary JSON arguments for every tool of the MCP server —
//! whittle's own through [`Session::call`], the agent-browser tool set's
//! through [`Sessions::call`] — on the static backend, end in an output
//! (an `ok: false` or error result for bad arguments), never a panic.
//!
//! Nothing leaves the machine: the session's fetcher asks a hop check
//! before every request, and the check lets through only the harness's
//! own loopback server, which serves the project's fixture pages
//! (`corpus/fixtures/*.html` at `/<file name>`; anything else is a 404
//! page). Search words go to that server too.
//!
//! # Input format
//!
//! Bytes are read in order; past the end every byte reads as 0.
//!
//! - byte 0: the page opened first, `0` none, `k` the fixture page
//!   `(k - 1) % pages`, in file name order;
//! - then up to [`MAX_CALLS`] calls while bytes remain, each a tool byte `t`
//!   (the tool `t % (tools + 1)` of whittle's tool list then the
//!   agent-browser list, in their order, the last value an unknown tool
//!   whose name is the string that follows, sent to whittle's tools)
//!   and the arguments: an object when `t < 0x80`, else any value.
//!
//! A value is a tag byte `g`, by `g % 8`: null; a boolean (`g & 8`); a
//! number 0–255 (next byte: refs, indexes, small budgets); a number from
//! the next 8 bytes (little-endian; an `i64`, or an `f64` when `g & 8`,
//! null if not finite); a word of the vocabulary (next byte, modulo its
//! size); a string (a length byte, modulo 64, then that many bytes, UTF-8
//! lossy); an array (a count byte, modulo 5, then values); an object (a
//! count byte, modulo 6, then pairs of a key and a value). A key byte
//! below `0xe0` names a word of the vocabulary, else a string follows.
//! Values nest at most [`MAX_NESTING`] deep (deeper ones are null).
//!
//! The vocabulary is every property name and enum value of the tools'
//! JSON Schemas (as the server publishes them, so it follows `tools.rs`),
//! the served pages' URLs, and a few words the schemas describe in prose:
//! `back`, `forward`, `reload`, keys, `secret:card` (a secret the session
//! holds), `css:` and `role:` queries.
//!
//! Each input gets a fresh session (and fresh agent-browser sessions), so
//! that refs are numbered from 1 on every input (small numbers name the page's elements) and a crash input
//! replays alone. `wait`'s `ms` is cut to [`MAX_WAIT_MS`] (whatever the
//! shape of the arguments): a sleep teaches the fuzzer nothing and would
//! stall it for up to 30 s.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Number, Value};
use url::Url;
use whittle::backend::BrowseError;
use whittle::backend::static_http::StaticBackend;
use whittle::compat::{Answer, IDLE, Sessions, Starter, SystemClock};
use whittle::fetch::{Fetcher, HopCheck, Limits};
use whittle::profile::Secrets;
use whittle::session::{Session, SessionOptions, ToolOutput};
use whittle::tools::WaitArgs;

/// The most tool calls one input makes.
pub const MAX_CALLS: usize = 8;
/// How deep argument values nest.
pub const MAX_NESTING: usize = 3;
/// The longest `wait ms` the harness lets through.
pub const MAX_WAIT_MS: u64 = 2;

/// A runtime, the loopback server and a fetcher, shared by every input.
#[derive(Debug)]
pub struct ToolHarness {
    runtime: tokio::runtime::Runtime,
    fetcher: Fetcher,
    /// The served fixture pages, in file name order.
    pages: Vec<Url>,
    search_url: String,
    tools: Vec<String>,
    words: Vec<String>,
}

impl ToolHarness {
    /// Starts the runtime and the loopback server and reads the tool list.
    pub fn new() -> Result<ToolHarness, String> {
        // The static backend runs engine work in `block_in_place`: that
        // needs the multi-threaded runtime; one worker is enough.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        let mut files: Vec<_> = std::fs::read_dir(whittle_corpus::fixtures_dir())
            .map_err(|e| format!("{}: {e}", whittle_corpus::fixtures_dir().display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .collect();
        files.sort();
        let mut served = HashMap::new();
        for path in &files {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            served.insert(format!("/{name}"), bytes);
        }
        let addr = runtime.block_on(crate::serve(Arc::new(served)));
        let root = Url::parse(&format!("http://{addr}/")).map_err(|e| format!("{addr}: {e}"))?;
        let pages: Vec<Url> = files
            .iter()
            .filter_map(|p| p.file_name().and_then(|n| root.join(&n.to_string_lossy()).ok()))
            .collect();
        if pages.is_empty() {
            return Err("no fixture pages to serve".into());
        }
        let origin = root.origin();
        let hop: HopCheck = Arc::new(move |url: &Url| {
            if url.origin() == origin { Ok(()) } else { Err("the fuzz harness fetches only from its own loopback server".into()) }
        });
        let limits = Limits { connect_timeout: Duration::from_secs(2), total_timeout: Duration::from_secs(5), ..Limits::default() };
        let fetcher = {
            let _inside = runtime.enter();
            Fetcher::new(limits, Some(hop)).map_err(|e| format!("fetcher: {e}"))?
        };
        let listed: Vec<_> = whittle::mcp::tools().into_iter().chain(whittle::compat::tools()).collect();
        let tools: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        let mut words = BTreeSet::new();
        for t in &listed {
            schema_words(&Value::Object((*t.input_schema).clone()), &mut words);
        }
        words.extend(pages.iter().map(|p| p.to_string()));
        let extra = [
            "back", "forward", "reload", "Enter", "Tab", "Escape", "ArrowDown", "Control+a", "secret:card", "css:a", "css:input",
            "role:button", "role:link pay", "",
        ];
        words.extend(extra.into_iter().map(str::to_owned));
        let search_url = format!("{root}search?q={{q}}");
        Ok(ToolHarness { runtime, fetcher, pages, search_url, tools, words: words.into_iter().collect() })
    }

    /// Runs one input's calls on a fresh session and checks every output.
    pub fn check(&self, data: &[u8]) -> Result<(), String> {
        let mut input = Input { data, at: 0 };
        let page = usize::from(input.byte());
        let options = SessionOptions {
            search_url: self.search_url.clone(),
            secrets: Arc::new(Secrets(vec![("card".into(), "4111 1111 1111 1111".into())])),
            ..SessionOptions::default()
        };
        let starter = HarnessStarter { fetcher: self.fetcher.clone(), options: options.clone() };
        self.runtime.block_on(async {
            let compat = Sessions::new(Arc::new(starter), Arc::new(SystemClock), IDLE);
            let mut session = Session::new(Arc::new(StaticBackend), self.fetcher.clone(), options)
                .await
                .map_err(|e| format!("a session did not start: {e}"))?;
            if page > 0 {
                let url = &self.pages[(page - 1) % self.pages.len()];
                let out = session.call("navigate", serde_json::json!({ "url": url.as_str() })).await;
                check_output("navigate", &out)?;
                if !out.envelope.ok {
                    return Err(format!("the harness's own page {url} did not load: {}", out.text));
                }
            }
            for _ in 0..MAX_CALLS {
                if input.at >= data.len() {
                    break;
                }
                let t = input.byte();
                let tool = match self.tools.get(usize::from(t) % (self.tools.len() + 1)) {
                    Some(name) => name.clone(),
                    None => input.string(),
                };
                let mut args = if t < 0x80 { Value::Object(self.object(&mut input, 0)) } else { self.value(&mut input, 0) };
                if tool == "wait" {
                    args = short_wait(args);
                }
                if whittle::compat::TOOL_NAMES.contains(&tool.as_str()) {
                    let answer = compat.call(&tool, args.clone()).await;
                    check_answer(answer).map_err(|e| format!("{tool} {args}: {e}"))?;
                    continue;
                }
                let out = session.call(&tool, args.clone()).await;
                check_output(&tool, &out).map_err(|e| format!("{tool} {args}: {e}"))?;
            }
            Ok(())
        })
    }

    fn value(&self, input: &mut Input<'_>, depth: usize) -> Value {
        let tag = input.byte();
        match tag % 8 {
            1 => Value::Bool(tag & 8 != 0),
            2 => Value::from(input.byte()),
            3 => {
                let raw = u64::from_le_bytes(std::array::from_fn(|_| input.byte()));
                if tag & 8 == 0 {
                    Value::from(raw as i64)
                } else {
                    Number::from_f64(f64::from_bits(raw)).map_or(Value::Null, Value::Number)
                }
            }
            4 => Value::String(self.word(input)),
            5 => Value::String(input.string()),
            6 if depth < MAX_NESTING => {
                let n = input.byte() % 5;
                Value::Array((0..n).map(|_| self.value(input, depth + 1)).collect())
            }
            7 if depth < MAX_NESTING => Value::Object(self.object(input, depth + 1)),
            _ => Value::Null,
        }
    }

    fn object(&self, input: &mut Input<'_>, depth: usize) -> Map<String, Value> {
        let n = input.byte() % 6;
        let mut map = Map::new();
        for _ in 0..n {
            let key = if input.peek() < 0xe0 {
                self.word(input)
            } else {
                input.byte();
                input.string()
            };
            let value = self.value(input, depth);
            map.insert(key, value);
        }
        map
    }

    fn word(&self, input: &mut Input<'_>) -> String {
        let i = usize::from(input.byte()) % self.words.len().max(1);
        self.words.get(i).cloned().unwrap_or_default()
    }
}

/// `wait`'s arguments with `ms` cut to [`MAX_WAIT_MS`], in whichever shape
/// serde reads them (an object, or an array of the fields in order): read
/// as the server reads them and, when the wait would be longer, written
/// back as the same arguments in an object.
fn short_wait(args: Value) -> Value {
    match serde_json::from_value::<WaitArgs>(args.clone()) {
        Ok(w) if w.ms.is_some_and(|ms| u64::from(ms) > MAX_WAIT_MS) => {
            serde_json::json!({ "text": w.text, "gone": w.gone, "ms": MAX_WAIT_MS, "user": w.user })
        }
        _ => args,
    }
}

/// What every tool output must be: some text, an envelope naming the
/// tool, `ok` exactly when there is no error, and JSON that serializes.
fn check_output(tool: &str, out: &ToolOutput) -> Result<(), String> {
    let e = &out.envelope;
    if out.text.is_empty() {
        return Err("an empty text".into());
    }
    if e.server.tool != tool {
        return Err(format!("the envelope names the tool {:?}", e.server.tool));
    }
    if e.ok != e.server.error.is_none() {
        return Err(format!("ok is {} with error {:?}", e.ok, e.server.error));
    }
    serde_json::to_string(e).map_err(|err| format!("the envelope does not serialize: {err}"))?;
    Ok(())
}

/// What every agent-browser answer must be: an object, or an error with a
/// code in capitals and a message; and an MCP result that serializes.
fn check_answer(answer: Answer) -> Result<(), String> {
    match &answer.result {
        Ok(v) if !v.is_object() => return Err(format!("a result that is not an object: {v}")),
        Ok(_) => {}
        Err(f) if f.code.is_empty() || f.message.is_empty() || f.code != f.code.to_ascii_uppercase() => {
            return Err(format!("a malformed error: {f:?}"));
        }
        Err(_) => {}
    }
    let result = answer.into_result();
    serde_json::to_string(&result).map_err(|err| format!("the result does not serialize: {err}"))?;
    Ok(())
}

/// Agent-browser sessions as the harness makes them: on the static
/// backend, through its loopback-only fetcher.
#[derive(Debug)]
struct HarnessStarter {
    fetcher: Fetcher,
    options: SessionOptions,
}

#[async_trait::async_trait]
impl Starter for HarnessStarter {
    async fn start(&self) -> Result<Session, BrowseError> {
        Session::new(Arc::new(StaticBackend), self.fetcher.clone(), self.options.clone()).await
    }
}

/// Property names, enum values and constants of a JSON Schema (a walk
/// with a stack: schemas are small, but nothing here recurses).
fn schema_words(schema: &Value, words: &mut BTreeSet<String>) {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    match (k.as_str(), child) {
                        ("properties", Value::Object(props)) => words.extend(props.keys().cloned()),
                        ("enum", Value::Array(values)) => words.extend(values.iter().filter_map(Value::as_str).map(str::to_owned)),
                        ("const", Value::String(s)) => {
                            words.insert(s.clone());
                        }
                        _ => {}
                    }
                    stack.push(child);
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// The input being read.
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn peek(&self) -> u8 {
        self.data.get(self.at).copied().unwrap_or(0)
    }

    fn byte(&mut self) -> u8 {
        let b = self.peek();
        self.at += 1;
        b
    }

    /// A length byte (modulo 64), then that many bytes as UTF-8 (lossy).
    fn string(&mut self) -> String {
        let len = usize::from(self.byte() % 64);
        let start = self.at.min(self.data.len());
        let end = (self.at + len).min(self.data.len());
        self.at += len;
        String::from_utf8_lossy(&self.data[start..end]).into_owned()
    }
}
