//! What the reader reads from: a file's bytes (gzip or not) with each
//! WARC header block kept as it passes ([`Tape`]), so a record's fields
//! are read leniently ([`RawHead`]) and reading can start again at the next
//! `WARC/` line after a broken record.

use std::cell::RefCell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use super::BUFFER;

/// A record's WARC header fields, as the `warc` crate's parser reads them
/// (names lower-case, values decoded lossily: [`Record::header`] would
/// panic on a value that is not UTF-8).
#[derive(Debug, Default)]
pub(super) struct RawHead {
    fields: Vec<(String, String)>,
}

impl RawHead {
    pub(super) fn parse(block: &[u8]) -> Option<RawHead> {
        let (_, (_, fields, _)) = warc::parser::headers(block).ok()?;
        let fields = fields
            .into_iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), String::from_utf8_lossy(value).trim().to_owned()))
            .collect();
        Some(RawHead { fields })
    }

    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// `WARC-Target-URI`, without the angle brackets WARC 1.0's examples
    /// put around it.
    pub(super) fn target_uri(&self) -> String {
        let uri = self.get("warc-target-uri").unwrap_or("");
        uri.strip_prefix('<').and_then(|u| u.strip_suffix('>')).unwrap_or(uri).trim().to_owned()
    }
}

/// What the reader notes of the bytes the `warc` crate consumes while it
/// reads a WARC header: how many, and which.
#[derive(Debug, Default)]
pub(super) struct Tape {
    consumed: u64,
    /// No more than this many may be consumed (while a header is read).
    limit: Option<u64>,
    /// The bytes consumed since [`Tape::start`].
    recording: Option<Vec<u8>>,
    /// Whether the limit was reached.
    overflowed: bool,
}

impl Tape {
    pub(super) fn start(&mut self, most: u64) {
        self.limit = Some(self.consumed + most);
        self.recording = Some(Vec::new());
        self.overflowed = false;
    }

    pub(super) fn stop(&mut self) -> (Vec<u8>, bool) {
        self.limit = None;
        (self.recording.take().unwrap_or_default(), self.overflowed)
    }
}

/// A file's (decompressed) bytes, buffered, with what the [`Tape`] notes,
/// bytes put back, and the scan to the next record.
pub(super) struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Shared with the reader, which starts and stops it around headers.
    pub(super) tape: Rc<RefCell<Tape>>,
}

impl<R> std::fmt::Debug for Input<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("pos", &self.pos).field("end", &self.end).finish_non_exhaustive()
    }
}

impl<R: Read> Input<R> {
    pub(super) fn new(inner: R) -> Input<R> {
        Input { inner, buf: vec![0; BUFFER], pos: 0, end: 0, tape: Rc::default() }
    }

    /// Puts `bytes` back before what is left to read.
    pub(super) fn unread(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if bytes.len() <= self.pos {
            self.pos -= bytes.len();
            self.buf[self.pos..self.pos + bytes.len()].copy_from_slice(bytes);
        } else {
            let mut joined = Vec::with_capacity((bytes.len() + self.end - self.pos).max(BUFFER));
            joined.extend_from_slice(bytes);
            joined.extend_from_slice(&self.buf[self.pos..self.end]);
            self.end = joined.len();
            joined.resize(self.end.max(BUFFER), 0);
            self.buf = joined;
            self.pos = 0;
        }
        let mut tape = self.tape.borrow_mut();
        tape.consumed = tape.consumed.saturating_sub(bytes.len() as u64);
    }

    /// Makes at least `n` bytes available unless the stream ends first.
    pub(super) fn fill_at_least(&mut self, n: usize) -> io::Result<()> {
        if self.end - self.pos >= n {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        while self.end < n {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => break,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Moves to the next line that starts with `WARC/`: `false` when the
    /// stream ends first.
    pub(super) fn scan_to_record(&mut self) -> io::Result<bool> {
        const MARK: &[u8] = b"WARC/";
        // Whether the byte before the window ends a line; the scan starts
        // inside a broken record, so not.
        let mut line_start = false;
        loop {
            self.fill_at_least(MARK.len())?;
            let window = &self.buf[self.pos..self.end];
            if window.len() < MARK.len() {
                let n = window.len();
                self.consume(n);
                return Ok(false);
            }
            let found = (0..=window.len() - MARK.len()).find(|&i| {
                &window[i..i + MARK.len()] == MARK && if i == 0 { line_start } else { window[i - 1] == b'\n' }
            });
            if let Some(i) = found {
                self.consume(i);
                return Ok(true);
            }
            // The last bytes may begin the mark.
            let n = window.len() - (MARK.len() - 1);
            line_start = window[n - 1] == b'\n';
            self.consume(n);
        }
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.end {
            self.pos = 0;
            self.end = 0;
            loop {
                match self.inner.read(&mut self.buf) {
                    Ok(n) => {
                        self.end = n;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        let mut available = self.end - self.pos;
        let left = {
            let tape = self.tape.borrow();
            tape.limit.map(|limit| limit.saturating_sub(tape.consumed))
        };
        if let Some(left) = left {
            if left == 0 && available > 0 {
                self.tape.borrow_mut().overflowed = true;
                return Err(io::Error::new(io::ErrorKind::InvalidData, "WARC header too long"));
            }
            available = available.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        Ok(&self.buf[self.pos..self.pos + available])
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.end - self.pos);
        let mut tape = self.tape.borrow_mut();
        tape.consumed += amount as u64;
        if let Some(recording) = &mut tape.recording {
            recording.extend_from_slice(&self.buf[self.pos..self.pos + amount]);
        }
        self.pos += amount;
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}
