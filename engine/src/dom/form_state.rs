//! The state of a page's form controls that is not in its markup: what a
//! person typed, checked, selected and chose (HTML's *dirty* value,
//! checkedness, selectedness and selected files), and which `<form>` the
//! parser associated a control with when that form is not its ancestor.
//!
//! HTML keeps a control's *default* (its `value`, `checked` and `selected`
//! attributes) apart from its *current* state. The attributes stay what the
//! page wrote (CSS `[value=x]` and `:default` still match them); the current
//! state lives here, in side tables keyed by [`NodeId`], and is read by
//! [`form`](super::form) first, falling back to the
//! attributes for a control nobody touched. It changes only through the
//! [`act`](crate::act) API; a form reset forgets what was changed.
//!
//! Arena slots are never reused, so an entry can never describe another
//! node; a control that is moved keeps its state, as in browsers.

use std::collections::HashMap;

use super::NodeId;

/// A file chosen for an `<input type=file>`: what a form submission says
/// about it. The bytes stay with the caller (see
/// [`Submission::multipart_body`](crate::act::Submission::multipart_body)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChosenFile {
    /// The file name without its directory, e.g. `cv.pdf`.
    pub name: String,
    /// Its MIME type, e.g. `application/pdf`; empty when unknown
    /// (submitted as `application/octet-stream`).
    pub content_type: String,
}

/// Form-control state of one [`Document`](super::Document).
#[derive(Debug, Clone, Default)]
pub struct FormState {
    /// Current values of `<input>`s and `<textarea>`s a person edited
    /// (their dirty value flag is set).
    values: HashMap<NodeId, String>,
    /// Checkedness of checkboxes and radio buttons a person changed.
    checked: HashMap<NodeId, bool>,
    /// Selectedness of `<option>`s whose `<select>` a person changed.
    selected: HashMap<NodeId, bool>,
    /// Files chosen for `<input type=file>`s.
    files: HashMap<NodeId, Vec<ChosenFile>>,
    /// Controls the parser associated with a `<form>` through its form
    /// element pointer (`<table><form><tr><td><input>`: the form is empty,
    /// the input is still its control). Dropped for a control when it or an
    /// ancestor is inserted or removed, as HTML resets the form owner then.
    parser_owner: HashMap<NodeId, NodeId>,
}

impl FormState {
    /// The current value of a text control, if a person changed it.
    pub fn value(&self, control: NodeId) -> Option<&str> {
        self.values.get(&control).map(String::as_str)
    }

    /// The checkedness of a checkbox or radio, if a person changed it.
    pub fn checked(&self, control: NodeId) -> Option<bool> {
        self.checked.get(&control).copied()
    }

    /// The selectedness of an option, if a person changed its select.
    pub fn selected(&self, option: NodeId) -> Option<bool> {
        self.selected.get(&option).copied()
    }

    /// The files chosen for a file input, if any were.
    pub fn files(&self, control: NodeId) -> Option<&[ChosenFile]> {
        self.files.get(&control).map(Vec::as_slice)
    }

    /// The `<form>` the parser associated `control` with, if any.
    pub(crate) fn parser_owner(&self, control: NodeId) -> Option<NodeId> {
        self.parser_owner.get(&control).copied()
    }

    /// Whether no control has state here (nothing was changed or
    /// associated).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
            && self.checked.is_empty()
            && self.selected.is_empty()
            && self.files.is_empty()
            && self.parser_owner.is_empty()
    }

    pub(crate) fn set_value(&mut self, control: NodeId, value: String) {
        self.values.insert(control, value);
    }

    pub(crate) fn set_checked(&mut self, control: NodeId, checked: bool) {
        self.checked.insert(control, checked);
    }

    pub(crate) fn set_selected(&mut self, option: NodeId, selected: bool) {
        self.selected.insert(option, selected);
    }

    pub(crate) fn set_files(&mut self, control: NodeId, files: Vec<ChosenFile>) {
        self.files.insert(control, files);
    }

    pub(crate) fn set_parser_owner(&mut self, control: NodeId, form: NodeId) {
        self.parser_owner.insert(control, form);
    }

    /// Whether any control has a parser association (so a mutation has
    /// associations to drop).
    pub(crate) fn has_parser_owners(&self) -> bool {
        !self.parser_owner.is_empty()
    }

    pub(crate) fn drop_parser_owner(&mut self, control: NodeId) {
        self.parser_owner.remove(&control);
    }

    /// Forgets what a person did to one control (its reset algorithm):
    /// value, checkedness and files go back to the markup's defaults.
    pub(crate) fn reset_control(&mut self, control: NodeId) {
        self.values.remove(&control);
        self.checked.remove(&control);
        self.files.remove(&control);
    }

    /// Forgets the selectedness of one option.
    pub(crate) fn reset_option(&mut self, option: NodeId) {
        self.selected.remove(&option);
    }
}
