//! `research --warc`: the HTML pages of WARC archives, digested as
//! [`research`](crate::research) digests fetched pages, one
//! [`PageResult`] per page.
//!
//! Each file is read as it comes, record by record: a `.warc` as it is,
//! a gzip one (told by its first bytes, not its name) through
//! [`flate2`]'s multi-member decoder, so one gzip member per record (as
//! Common Crawl writes them) and a whole-file gzip read alike. The
//! [`warc`] crate parses the record framing (its streaming reader); inside
//! a `response` record, [`httparse`] parses the HTTP head, and the body is
//! de-chunked (`Transfer-Encoding: chunked`) and decompressed
//! (`Content-Encoding: gzip`/`deflate`) here. A page is a `response`
//! record whose HTTP `Content-Type` is HTML (`text/html`,
//! `application/xhtml+xml`; without one, sniffed from the body's start as
//! the MIME Sniffing standard does) and whose status is 2xx or 4xx–5xx;
//! it is parsed with its `Content-Type` charset, as research parses a
//! fetched page ([`research::analyse_page`]), and gives its digest and its
//! main text (what `whittle extract` prints).
//!
//! *Invariants*:
//! - Every record read is either one [`PageResult`] (a page, digested or
//!   failed) or counted in [`Summary::skipped`] by kind: none is lost
//!   silently (`records == pages + skipped`).
//! - Memory is constant: one thread reads, at most [`WarcOptions::workers`]
//!   records wait in a bounded queue while the workers digest theirs, and
//!   no body over [`WarcOptions::max_page_bytes`] is held (it is read
//!   through and dropped: `too_large`). A WARC header is at most
//!   [`MAX_WARC_HEAD`], an HTTP head at most [`MAX_HTTP_HEAD`].
//! - A broken record is one failed page, and reading goes on: after a
//!   broken header or a Content-Length that does not match the record, at
//!   the next line that starts with `WARC/` (the framing is still the
//!   crate's to parse: this only finds where it can start again). A file
//!   that ends inside a record, or whose gzip stream is corrupt, ends with
//!   one failed page; the next file is read.
//! - A panic while digesting a page is that page's `internal` error.
//! - Nothing is fetched: no request of any kind is made.
//! - Messages name the file, the record's number in it and its URL
//!   redacted ([`redact`]), never page text.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use url::Url;
use warc::{Record, RecordType, StreamingBody, WarcReader};

use crate::fetch::{redact, redact_str};
use crate::research::{self, PageError, PageResult};

mod http;
mod input;

use http::{Decode, Head, decode, http_parser, is_html, sniffs_as_html};
use input::{Input, RawHead};

/// The most bytes a page's body may have without `--max-page-bytes`, as
/// stored and once decoded: [`crate::fetch::Limits::max_page_bytes`]'s
/// default.
pub const DEFAULT_MAX_PAGE_BYTES: usize = 10 * 1024 * 1024;
/// The longest WARC header block read; a longer one is a broken record.
pub const MAX_WARC_HEAD: u64 = 256 * 1024;
/// The longest HTTP head (status line and headers) read from a response
/// record; a longer one is a broken record.
pub const MAX_HTTP_HEAD: usize = 256 * 1024;
/// The most HTTP headers a response may have.
const MAX_HTTP_HEADERS: usize = 256;
/// The reader's buffer.
const BUFFER: usize = 64 * 1024;
/// The reading thread's stack: the `warc` crate skips record bodies
/// through a 1 MiB buffer on the stack.
const READER_STACK: usize = 8 * 1024 * 1024;

/// How archives are researched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarcOptions {
    /// Each page's digest budget, in tokens (at least
    /// [`research::MIN_PAGE_BUDGET`]).
    pub budget: u32,
    /// The most bytes a page's body may have, as stored and once decoded.
    pub max_page_bytes: usize,
    /// Threads digesting (the reader is one more).
    pub workers: usize,
}

impl Default for WarcOptions {
    fn default() -> WarcOptions {
        WarcOptions {
            budget: crate::cli::PAGE_BUDGET,
            max_page_bytes: DEFAULT_MAX_PAGE_BYTES,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// The records that are not pages, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// `request` records.
    pub request: usize,
    /// `metadata` records.
    pub metadata: usize,
    /// `revisit` records (a page seen again, its body not stored).
    pub revisit: usize,
    /// Responses with a 1xx or 3xx status (redirects, `304 Not Modified`).
    pub redirect: usize,
    /// Responses that are not HTML (images, scripts, PDF, `dns:` records…).
    pub not_html: usize,
    /// `warcinfo`, `resource`, `conversion`, `continuation` and unknown
    /// records.
    pub other: usize,
}

impl Skipped {
    /// All the records skipped.
    pub fn total(&self) -> usize {
        self.request + self.metadata + self.revisit + self.redirect + self.not_html + self.other
    }

    fn add(&mut self, kind: Skip) {
        *match kind {
            Skip::Request => &mut self.request,
            Skip::Metadata => &mut self.metadata,
            Skip::Revisit => &mut self.revisit,
            Skip::Redirect => &mut self.redirect,
            Skip::NotHtml => &mut self.not_html,
            Skip::Other => &mut self.other,
        } += 1;
    }
}

/// What a run read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records read (a broken one counts once).
    pub records: usize,
    /// Pages: the results given, digested or failed.
    pub pages: usize,
    /// Pages digested.
    pub digested: usize,
    /// Pages failed (each with its error).
    pub failed: usize,
    /// Records that are not pages.
    pub skipped: Skipped,
}

impl Summary {
    /// One line: `N records · P pages · D digested · F failed · S skipped
    /// (request …, metadata …, revisit …, redirect …, not html …, other …)`.
    pub fn line(&self) -> String {
        let s = &self.skipped;
        format!(
            "{} records · {} pages · {} digested · {} failed · {} skipped (request {}, metadata {}, revisit {}, redirect {}, not html {}, other {})",
            self.records,
            self.pages,
            self.digested,
            self.failed,
            s.total(),
            s.request,
            s.metadata,
            s.revisit,
            s.redirect,
            s.not_html,
            s.other
        )
    }
}

/// Checks that every file can be read, before anything is: the first that
/// cannot, in a one-line message naming it.
pub fn check_files(paths: &[PathBuf]) -> Result<(), String> {
    for path in paths {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("--warc {shown}: {e}"))?;
        if meta.is_dir() {
            return Err(format!("--warc {shown}: is a directory"));
        }
        File::open(path).map_err(|e| format!("--warc {shown}: {e}"))?;
    }
    Ok(())
}

/// Reads `paths` in order and digests their pages (see the module
/// documentation). `on_page` is called on this thread with each result as
/// it finishes; when it fails, reading stops and its error is returned.
pub fn research_warc(
    paths: &[PathBuf],
    options: &WarcOptions,
    on_page: &mut dyn FnMut(&PageResult) -> io::Result<()>,
) -> io::Result<Summary> {
    let workers = options.workers.max(1);
    let budget = options.budget.max(research::MIN_PAGE_BUDGET);
    let (job_tx, job_rx) = sync_channel::<Job>(workers);
    let (line_tx, line_rx) = sync_channel::<PageResult>(workers * 4);
    std::thread::scope(|scope| {
        let reader = {
            let line_tx = line_tx.clone();
            let options = *options;
            std::thread::Builder::new().name("warc-reader".into()).stack_size(READER_STACK).spawn_scoped(
                scope,
                move || {
                    let mut reader = Reader { options, jobs: job_tx, lines: line_tx, records: 0, skipped: Skipped::default(), open: true };
                    for path in paths {
                        if !reader.open {
                            break;
                        }
                        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.read_file(path)));
                        if read.is_err() {
                            let meta = reader.next_meta(None);
                            let message = format!("whittle failed reading {} (a bug); the rest of it is skipped", path.display());
                            reader.fail(meta, "internal", message);
                        }
                    }
                    (reader.records, reader.skipped)
                },
            )?
        };
        // The workers alone hold the queue's end: when they stop, the
        // reader's next send fails and it stops too.
        let jobs = Arc::new(Mutex::new(job_rx));
        for n in 0..workers {
            let (jobs, lines) = (jobs.clone(), line_tx.clone());
            std::thread::Builder::new()
                .name(format!("warc-digest-{n}"))
                .spawn_scoped(scope, move || work(&jobs, &lines, budget))?;
        }
        drop((jobs, line_tx));
        let mut summary = Summary::default();
        let mut failure = None;
        for page in line_rx.iter() {
            summary.pages += 1;
            if page.ok {
                summary.digested += 1;
            } else {
                summary.failed += 1;
            }
            if let Err(e) = on_page(&page) {
                failure = Some(e);
                break;
            }
        }
        drop(line_rx);
        let (records, skipped) = reader.join().map_err(|_| io::Error::other("the WARC reader failed (a bug)"))?;
        if let Some(e) = failure {
            return Err(e);
        }
        summary.records = records;
        summary.skipped = skipped;
        Ok(summary)
    })
}

/// A page to digest.
#[derive(Debug)]
struct Job {
    meta: Meta,
    url: Url,
    charset: Option<String>,
    bytes: Vec<u8>,
}

/// What a result says of its record whatever became of it.
#[derive(Debug, Clone, Default)]
struct Meta {
    index: usize,
    url: String,
    date: Option<String>,
    status: Option<u16>,
}

/// Digests jobs until the queue closes or the results are no longer read.
fn work(jobs: &Mutex<Receiver<Job>>, lines: &SyncSender<PageResult>, budget: u32) {
    loop {
        let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { return };
        if lines.send(digest(job, budget)).is_err() {
            return;
        }
    }
}

/// One page's digest and main text; a panic is its `internal` error.
fn digest(job: Job, budget: u32) -> PageResult {
    let Job { meta, url, charset, bytes } = job;
    let index = meta.index;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let page = research::analyse_page(&bytes, Some(url), charset);
        (page.digest(&whittle_engine::DigestOptions { index, budget, scripts_ran: false }), page.main_text())
    }));
    match outcome {
        Ok((d, text)) => PageResult {
            index,
            url: meta.url,
            date: meta.date,
            status: meta.status,
            ok: true,
            title: d.title,
            digest: d.text,
            text: Some(text),
            needs_scripts: d.needs_scripts,
            tokens: d.tokens,
            ..PageResult::default()
        },
        Err(_) => failure(meta, "internal", "whittle failed to digest this page (a bug)".into()),
    }
}

/// A failed page's result.
fn failure(meta: Meta, code: &'static str, message: String) -> PageResult {
    let mut r = research::failed(meta.index, &meta.url, PageError { code, message });
    r.date = meta.date;
    r.status = meta.status;
    r
}

/// Why a record is not a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    Request,
    Metadata,
    Revisit,
    Redirect,
    NotHtml,
    Other,
}

/// What a record read in full gives.
#[derive(Debug)]
enum Verdict {
    Page { url: Url, charset: Option<String>, bytes: Vec<u8> },
    Failed(&'static str, String),
    Skip(Skip),
}

/// A record read, given out once the reader has seen its end is where
/// its Content-Length says.
#[derive(Debug)]
struct Pending {
    meta: Meta,
    verdict: Verdict,
}

/// Where reading goes on after a run of records ends.
#[derive(Debug)]
enum Recover {
    /// The file is done.
    End,
    /// At the next line starting with `WARC/`, after these bytes (read
    /// already, to be looked at again).
    Scan(Vec<u8>),
}

/// Why a record's block could not be read to its end.
#[derive(Debug)]
enum Cut {
    /// The file ends inside it.
    Short,
    /// Reading failed (a corrupt or truncated gzip stream).
    Io(io::Error),
}

impl From<io::Error> for Cut {
    fn from(e: io::Error) -> Cut {
        Cut::Io(e)
    }
}

/// The code and words for a read that failed.
fn io_failure(e: &io::Error) -> (&'static str, String) {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => ("truncated", "the file ends inside it (a truncated gzip stream)".into()),
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
            ("bad_record", format!("the file cannot be read on from here: corrupt gzip data ({e})"))
        }
        _ => ("bad_record", format!("the file cannot be read on from here: {e}")),
    }
}

/// The reading thread: files in order, records in order.
struct Reader {
    options: WarcOptions,
    jobs: SyncSender<Job>,
    lines: SyncSender<PageResult>,
    records: usize,
    skipped: Skipped,
    /// Whether results are still read.
    open: bool,
}

impl Reader {
    fn next_meta(&mut self, head: Option<&RawHead>) -> Meta {
        self.records += 1;
        Meta {
            index: self.records,
            url: head.map(RawHead::target_uri).unwrap_or_default(),
            date: head.and_then(|h| h.get("warc-date")).map(str::to_owned),
            status: None,
        }
    }

    fn line(&mut self, r: PageResult) {
        self.open &= self.lines.send(r).is_ok();
    }

    fn fail(&mut self, meta: Meta, code: &'static str, message: String) {
        self.line(failure(meta, code, message));
    }

    /// Gives out a record read: queues its page, sends its error, or
    /// counts it skipped.
    fn settle(&mut self, pending: Option<Pending>) {
        let Some(Pending { meta, verdict }) = pending else { return };
        match verdict {
            Verdict::Page { url, charset, bytes } => self.open &= self.jobs.send(Job { meta, url, charset, bytes }).is_ok(),
            Verdict::Failed(code, message) => self.fail(meta, code, message),
            Verdict::Skip(kind) => self.skipped.add(kind),
        }
    }

    fn read_file(&mut self, path: &Path) {
        let name = path.display().to_string();
        let opened = File::open(path).map(|f| BufReader::with_capacity(BUFFER, f));
        let mut file = match opened {
            Ok(f) => f,
            Err(e) => {
                let meta = self.next_meta(None);
                return self.fail(meta, "bad_record", format!("cannot read {name}: {e}"));
            }
        };
        let gzip = match file.fill_buf() {
            Ok(start) => start.starts_with(&[0x1f, 0x8b]),
            Err(e) => {
                let meta = self.next_meta(None);
                return self.fail(meta, "bad_record", format!("cannot read {name}: {e}"));
            }
        };
        if gzip {
            self.read_stream(&name, Input::new(flate2::bufread::MultiGzDecoder::new(file)));
        } else {
            self.read_stream(&name, Input::new(file));
        }
    }

    fn read_stream<R: Read>(&mut self, name: &str, mut input: Input<R>) {
        let mut nth = 0usize;
        loop {
            let recover = self.read_run(name, &mut input, &mut nth);
            if !self.open {
                return;
            }
            match recover {
                Recover::End => return,
                Recover::Scan(again) => {
                    input.unread(&again);
                    match input.scan_to_record() {
                        Ok(true) => {}
                        Ok(false) => return,
                        Err(e) => {
                            let meta = self.next_meta(None);
                            let (code, why) = io_failure(&e);
                            return self.fail(meta, code, format!("{name}, after record {nth}: {why}"));
                        }
                    }
                }
            }
        }
    }

    /// Reads records with one streaming reader until the file ends or the
    /// framing breaks.
    fn read_run<R: Read>(&mut self, name: &str, input: &mut Input<R>, nth: &mut usize) -> Recover {
        let tape = input.tape.clone();
        let mut warc = WarcReader::new(input);
        let mut records = warc.stream_records();
        let mut pending: Option<Pending> = None;
        // Before each record but the run's first, the crate reads the
        // previous one's end (CRLF CRLF).
        let mut skip = 0usize;
        loop {
            if !self.open {
                return Recover::End;
            }
            tape.borrow_mut().start(skip as u64 + MAX_WARC_HEAD);
            let item = records.next_item();
            let (head, overflowed) = tape.borrow_mut().stop();
            let block = head.get(skip..).unwrap_or_default();
            match item {
                None => {
                    self.settle(pending.take());
                    if let Some(start) = block.iter().position(|b| !b.is_ascii_whitespace()) {
                        *nth += 1;
                        let meta = self.next_meta(RawHead::parse(block).as_ref());
                        if block[start..].starts_with(b"WARC/") {
                            self.fail(meta, "truncated", format!("{name} ends inside the WARC header of its record {nth}"));
                        } else {
                            self.fail(meta, "bad_record", format!("{name}, record {nth}: not a WARC record (no WARC/ version line)"));
                        }
                    }
                    return Recover::End;
                }
                Some(Ok(mut record)) => {
                    self.settle(pending.take());
                    *nth += 1;
                    let raw = RawHead::parse(block).unwrap_or_default();
                    let mut meta = self.next_meta(Some(&raw));
                    let kind = record.warc_type().clone();
                    let read = self.read_record(&kind, &raw, &mut meta, &mut record);
                    match read.and_then(|verdict| finish(&mut record).map(|()| verdict)) {
                        Ok(verdict) => pending = Some(Pending { meta, verdict }),
                        Err(cut) => {
                            let (code, why) = match cut {
                                Cut::Short => ("truncated", "the file ends inside it".to_owned()),
                                Cut::Io(e) => io_failure(&e),
                            };
                            self.fail(meta, code, format!("{name}, record {nth}: {why}"));
                            return Recover::End;
                        }
                    }
                    skip = 4;
                }
                Some(Err(e)) => {
                    match e {
                        // The file ends where the previous record's end
                        // should be.
                        warc::Error::UnexpectedEOB => {
                            let meta = pending.take().map(|p| p.meta).unwrap_or_else(|| self.next_meta(None));
                            self.fail(meta, "truncated", format!("{name}, record {nth}: the file ends inside it"));
                            return Recover::End;
                        }
                        // The previous record's content is not followed by
                        // its end: its Content-Length is wrong.
                        warc::Error::ParseHeaders(_) if skip > 0 && head.len() == skip => {
                            let meta = pending.take().map(|p| p.meta).unwrap_or_else(|| self.next_meta(None));
                            self.fail(
                                meta,
                                "bad_record",
                                format!("{name}, record {nth}: its Content-Length does not match its content"),
                            );
                            return Recover::Scan(head);
                        }
                        // Blank lines between records, or at the end.
                        warc::Error::ParseHeaders(_) if block.iter().all(u8::is_ascii_whitespace) => {
                            self.settle(pending.take());
                            // Looked at again: the scan sees they end a line.
                            return Recover::Scan(block.to_vec());
                        }
                        warc::Error::ReadData(io) if !overflowed => {
                            self.settle(pending.take());
                            *nth += 1;
                            let meta = self.next_meta(None);
                            let (code, why) = io_failure(&io);
                            self.fail(meta, code, format!("{name}, record {nth}: {why}"));
                            return Recover::End;
                        }
                        e => {
                            self.settle(pending.take());
                            *nth += 1;
                            let meta = self.next_meta(RawHead::parse(block).as_ref());
                            let why = match e {
                                warc::Error::ReadData(_) => format!("its WARC header is longer than {} KiB", MAX_WARC_HEAD / 1024),
                                warc::Error::MissingHeader(h) => format!("its WARC header has no {h}"),
                                warc::Error::MalformedHeader(h, why) => format!("its {h} is malformed ({why})"),
                                _ => "its WARC header cannot be parsed (no WARC/ version line, a line that is not `Name: value`, or a Content-Length that is not a number)".into(),
                            };
                            self.fail(meta, "bad_record", format!("{name}, record {nth}: {why}"));
                            // Past the broken header's first byte, so that
                            // the scan does not find it again.
                            return Recover::Scan(block.get(1..).unwrap_or_default().to_vec());
                        }
                    }
                }
            }
        }
    }

    /// Reads what a record's block says; the caller reads the rest of it
    /// through ([`finish`]).
    fn read_record<T: Read>(
        &mut self,
        kind: &RecordType,
        raw: &RawHead,
        meta: &mut Meta,
        block: &mut Record<StreamingBody<'_, T>>,
    ) -> Result<Verdict, Cut> {
        match kind {
            RecordType::Response => self.read_response(raw, meta, block),
            RecordType::Request => Ok(Verdict::Skip(Skip::Request)),
            RecordType::Metadata => Ok(Verdict::Skip(Skip::Metadata)),
            RecordType::Revisit => Ok(Verdict::Skip(Skip::Revisit)),
            _ => Ok(Verdict::Skip(Skip::Other)),
        }
    }

    fn read_response<T: Read>(
        &mut self,
        raw: &RawHead,
        meta: &mut Meta,
        block: &mut Record<StreamingBody<'_, T>>,
    ) -> Result<Verdict, Cut> {
        let max = self.options.max_page_bytes;
        if raw.get("content-type").is_some_and(|t| !t.trim().to_ascii_lowercase().starts_with("application/http")) {
            return Ok(Verdict::Skip(Skip::NotHtml));
        }
        let shown = match Url::parse(&meta.url) {
            Ok(u) => redact(&u),
            Err(_) => redact_str(&meta.url),
        };
        let failed = |code: &'static str, message: String| -> Result<Verdict, Cut> {
            Ok(Verdict::Failed(code, format!("{shown}: {message}")))
        };
        // The HTTP head, and the start of the body read with it.
        let mut buf: Vec<u8> = Vec::new();
        let head = loop {
            let more = read_some(block, &mut buf, 16 * 1024)?;
            let mut headers = [httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
            let mut response = httparse::Response::new(&mut headers);
            match http_parser().parse_response(&mut response, &buf) {
                Ok(httparse::Status::Complete(len)) => break Head::of(&response, len),
                Ok(httparse::Status::Partial) if more == 0 => return failed("bad_record", "its HTTP head is incomplete".into()),
                Ok(httparse::Status::Partial) if buf.len() >= MAX_HTTP_HEAD => {
                    return failed("bad_record", format!("its HTTP head is longer than {} KiB", MAX_HTTP_HEAD / 1024));
                }
                Ok(httparse::Status::Partial) => {}
                Err(e) => return failed("bad_record", format!("its HTTP head is malformed ({e})")),
            }
        };
        meta.status = Some(head.status);
        if matches!(head.status, 100..=199 | 300..=399) {
            return Ok(Verdict::Skip(Skip::Redirect));
        }
        if head.content_type.as_deref().is_some_and(|t| !is_html(t)) {
            return Ok(Verdict::Skip(Skip::NotHtml));
        }
        if head.status >= 400 {
            return Ok(Verdict::Failed("nav_failed", format!("{shown} answered HTTP {}", head.status)));
        }
        let stored = (buf.len() - head.len) as u64 + block.content_length();
        if stored > max as u64 {
            return failed("too_large", format!("its body has {stored} bytes, more than the limit of {max}"));
        }
        buf.drain(..head.len);
        block.read_to_end(&mut buf)?;
        if block.content_length() > 0 {
            return Err(Cut::Short);
        }
        let bytes = match decode(buf, &head, max) {
            Ok(bytes) => bytes,
            Err(Decode::TooLarge) => return failed("too_large", format!("decoded, its body has more than {max} bytes")),
            Err(Decode::Bad(why)) => return failed("bad_encoding", why),
        };
        if head.content_type.is_none() && !sniffs_as_html(&bytes) {
            return Ok(Verdict::Skip(Skip::NotHtml));
        }
        let Ok(url) = Url::parse(&meta.url) else {
            return failed("bad_record", "its WARC-Target-URI is not a URL".into());
        };
        let charset = head
            .content_type
            .as_deref()
            .and_then(whittle_engine::parse::charset::charset_from_content_type)
            .map(str::to_owned);
        Ok(Verdict::Page { url, charset, bytes })
    }
}

/// Reads a record's block through to its end (what was not read of it).
fn finish<T: Read>(block: &mut Record<StreamingBody<'_, T>>) -> Result<(), Cut> {
    io::copy(block, &mut io::sink())?;
    if block.content_length() > 0 {
        return Err(Cut::Short);
    }
    Ok(())
}

/// Appends at most `most` bytes of `from` to `buf`; how many (0 at the
/// block's end; a block the file ends inside is [`Cut::Short`]).
fn read_some<T: Read>(from: &mut Record<StreamingBody<'_, T>>, buf: &mut Vec<u8>, most: usize) -> Result<usize, Cut> {
    let start = buf.len();
    buf.resize(start + most, 0);
    let read = loop {
        match from.read(&mut buf[start..]) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(start);
                return Err(Cut::Io(e));
            }
        }
    };
    buf.truncate(start + read);
    if read == 0 && from.content_length() > 0 {
        return Err(Cut::Short);
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::http::dechunk;
    use super::*;

    #[test]
    fn the_default_cap_is_the_fetchers() {
        assert_eq!(DEFAULT_MAX_PAGE_BYTES, crate::fetch::Limits::default().max_page_bytes);
    }

    #[test]
    fn html_is_sniffed() {
        assert!(sniffs_as_html(b"\n  <!doctype html><p>x"));
        assert!(sniffs_as_html(b"\xEF\xBB\xBF<html>"));
        assert!(sniffs_as_html(b"<P>x"));
        assert!(!sniffs_as_html(b"<PNG"));
        assert!(!sniffs_as_html(b"{\"a\": 1}"));
        assert!(!sniffs_as_html(b"\x89PNG\r\n"));
        assert!(!sniffs_as_html(b""));
    }

    #[test]
    fn chunks_are_joined() {
        let body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n".to_vec();
        assert_eq!(dechunk(body, 100).ok(), Some(b"Wikipedia".to_vec()));
        // Stored de-chunked already: taken as it is.
        assert_eq!(dechunk(b"<html>".to_vec(), 100).ok(), Some(b"<html>".to_vec()));
        // Cut short: what arrived.
        assert_eq!(dechunk(b"4\r\nWiki\r\n9\r\npe".to_vec(), 100).ok(), Some(b"Wikipe".to_vec()));
        assert!(matches!(dechunk(b"4\r\nWiki\r\nzz\r\n".to_vec(), 100), Err(Decode::Bad(_))));
        assert!(matches!(dechunk(b"ff\r\n".to_vec(), 10), Err(Decode::TooLarge)));
    }

    #[test]
    fn the_scan_finds_the_next_record() {
        let mut input = Input::new(&b"junk\r\nmore WARC/ not here\r\nWARC/1.0\r\nrest"[..]);
        assert!(input.scan_to_record().is_ok_and(|found| found));
        let mut rest = String::new();
        assert!(input.read_to_string(&mut rest).is_ok());
        assert_eq!(rest, "WARC/1.0\r\nrest");
        let mut input = Input::new(&b"no record here"[..]);
        assert!(input.scan_to_record().is_ok_and(|found| !found));
    }
}
