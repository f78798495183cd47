//! Digests: what a page is about in a few lines, for `research`. Built on
//! [`content`], the main-content extraction that `extract text` and
//! `observe` mode `read` use too.

pub mod content;

pub use content::{Block, BlockKind, MainContent, main_content};
