//! whittle's server crate: the command line (`whittle snapshot`, `whittle
//! inspect`) and, in later stages, the MCP server, sessions and backends.
//! Page logic lives in `whittle-engine`; this crate loads pages and speaks
//! to people and programs.

pub mod cli;
pub mod fetch;
pub mod load;
