//! A loopback HTTP/1.1 server for the fetch tests: each test starts its own
//! on 127.0.0.1, answers every request through a handler, and logs what it
//! was asked. One request per connection (`Connection: close`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Seen {
    /// The value of header `name` (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// How the server answers.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// A whole response, sent after `delay`.
    Full { status: u16, headers: Vec<(String, String)>, body: Vec<u8>, delay: Duration },
    /// Headers without a length, then one byte every 50 ms for as long as
    /// the client listens.
    Trickle,
    /// `len` spaces in 64 KiB writes, announced by `Content-Length` or
    /// not.
    Big { len: usize, content_length: bool },
    /// Nothing at all: the connection stays open and silent.
    Hang,
}

impl Reply {
    pub(crate) fn page(status: u16, content_type: &str, body: &[u8]) -> Reply {
        let headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
        Reply::Full { status, headers, body: body.to_vec(), delay: Duration::ZERO }
    }

    pub(crate) fn html(body: &str) -> Reply {
        Reply::page(200, "text/html", body.as_bytes())
    }

    pub(crate) fn redirect(status: u16, location: &str) -> Reply {
        Reply::page(status, "text/html", b"moved").header("Location", location)
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    pub(crate) fn delayed(mut self, by: Duration) -> Reply {
        if let Reply::Full { delay, .. } = &mut self {
            *delay = by;
        }
        self
    }
}

type Handler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// A running server; it stops with the test's runtime.
#[derive(Debug, Clone)]
pub(crate) struct Server {
    pub(crate) base: String,
    log: Arc<Mutex<Vec<Seen>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl Server {
    pub(crate) async fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}"));
        let server = Server {
            base: format!("http://{addr}"),
            log: Arc::default(),
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
        };
        let handler: Handler = Arc::new(handler);
        let state = server.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (state, handler) = (state.clone(), handler.clone());
                tokio::spawn(async move { state.serve(stream, handler).await });
            }
        });
        server
    }

    pub(crate) fn url(&self, path: &str) -> Url {
        Url::parse(&format!("{}{path}", self.base)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Every request so far, in arrival order.
    pub(crate) fn log(&self) -> Vec<Seen> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The paths requested so far.
    pub(crate) fn paths(&self) -> Vec<String> {
        self.log().into_iter().map(|s| s.path).collect()
    }

    /// The most requests that were being answered at once.
    pub(crate) fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    async fn serve(&self, mut stream: TcpStream, handler: Handler) {
        let Some(seen) = read_request(&mut stream).await else { return };
        if let Ok(mut log) = self.log.lock() {
            log.push(seen.clone());
        }
        // In flight while the handler answers and the reply waits, not
        // while it is sent (the client may be done before we are).
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let reply = handler(&seen);
        if let Reply::Full { delay, .. } = &reply {
            tokio::time::sleep(*delay).await;
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let _ = write_reply(&mut stream, reply).await;
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, path) = (request_line.next()?.to_owned(), request_line.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Seen { method, path, headers, body })
}

async fn write_reply(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Full { status, headers, body, .. } => {
            let mut head = format!("HTTP/1.1 {status} X\r\n");
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(&body).await?;
        }
        Reply::Trickle => {
            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n<p>").await?;
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                stream.write_all(b"a").await?;
            }
        }
        Reply::Big { len, content_length } => {
            let length = if content_length { format!("Content-Length: {len}\r\n") } else { String::new() };
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{length}Connection: close\r\n\r\n");
            stream.write_all(head.as_bytes()).await?;
            let block = vec![b' '; 64 * 1024];
            let mut sent = 0;
            while sent < len {
                let n = block.len().min(len - sent);
                stream.write_all(&block[..n]).await?;
                sent += n;
            }
        }
        Reply::Hang => std::future::pending::<()>().await,
    }
    stream.shutdown().await
}
