//! whittle's snapshot engine.
pub mod diag;
pub mod dom;
pub mod parse;
pub mod style;
pub(crate) mod semantics { pub(crate) mod form; }
pub(crate) mod text;

pub use diag::{Diagnostic, Stage};
pub use dom::{Document, Edge, Element, NodeData, NodeId};
pub use parse::{ParseOptions, parse, parse_str};
pub use style::{CascadeOptions, Styles, cascade};
