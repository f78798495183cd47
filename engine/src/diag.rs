//! Diagnostics: what a stage noticed about bad or unusual input. Stages never
//! fail on page data; they recover and say so here.

use std::fmt;

/// The stage that produced a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Decoding bytes and building the tree.
    Parse,
    /// Stylesheets and the cascade.
    Cascade,
    /// Boxes and the viewport.
    Layout,
    /// Roles, names and states.
    Semantics,
    /// The text observation.
    Render,
}

/// One thing a stage noticed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Where it was noticed.
    pub stage: Stage,
    /// What, in one line.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(stage: Stage, message: impl Into<String>) -> Diagnostic {
        Diagnostic { stage, message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = match self.stage {
            Stage::Parse => "parse",
            Stage::Cascade => "cascade",
            Stage::Layout => "layout",
            Stage::Semantics => "semantics",
            Stage::Render => "render",
        };
        write!(f, "{stage}: {}", self.message)
    }
}
