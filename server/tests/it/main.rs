//! The server crate's integration tests, one binary: the fetcher and the
//! browsing session against loopback servers the tests start themselves.

mod chromium;
mod compat;
mod fetch;
mod hostile;
mod hybrid;
mod inspector;
mod labels;
mod research;
mod serve;
mod server;
mod session;
mod stop;
