//! whittle's server crate: the command line (`whittle snapshot`, `inspect`,
//! `extract`, `research`), the MCP server (`mcp.rs`: the tools over stdio
//! and Streamable HTTP; `compat.rs`: the agent-browser tool set), sessions
//! and tabs (`session/`), many pages digested in parallel (`research.rs`;
//! from WARC archives: `warc.rs`) and the backends that hold pages
//! (`backend/`).
//! Page logic lives in `whittle-engine`; this crate loads pages and speaks
//! to people and programs.

pub mod backend;
pub mod cli;
pub mod command;
pub mod compat;
pub mod cookies;
pub mod corpus;
pub mod doctor;
pub mod fetch;
pub mod guard;
pub mod load;
pub mod logging;
pub mod mcp;
pub mod memory;
pub mod picture;
pub mod policy;
pub mod profile;
pub mod research;
pub mod serve;
pub mod session;
pub mod tools;
pub mod warc;
