//! Acting on a static page, as HTML defines what a person's input does when
//! no script runs: typing into fields, checking boxes, choosing options and
//! files, clicking links, buttons, labels and summaries, pressing Enter in a
//! field, submitting and resetting forms.
//!
//! The operations change the [`Document`]'s form state
//! ([`FormState`](crate::dom::FormState): current values, checkedness,
//! selectedness, chosen files; the markup's defaults stay in the
//! attributes) or, for `contenteditable` and `<details>`, its tree through
//! the mutation API. What needs the network (following a link, sending a
//! form) is returned to the caller as a [`Click::Navigate`] or a
//! [`Submission`] with the exact bytes HTML would send
//! ([`Submission::request_url`], [`Submission::urlencoded_body`],
//! [`Submission::multipart_body`], [`Submission::text_plain_body`]). Run the
//! pipeline again ([`snapshot_document`](crate::snapshot_document)) to see
//! the page after an act; refs stay.
//!
//! What a script would have to do is refused with
//! [`ActError::NeedsScript`], never faked. Refusals leave the document as
//! it was, and nothing here panics, whatever the node: an id from another
//! document, a detached node, a text node. Error messages never carry the
//! value of a field (a password's, say): only what the page wrote.

mod encode;
mod submit;
#[cfg(test)]
mod tests;

use std::fmt;

use html5ever::local_name;
use url::Url;

use crate::dom::{ChosenFile, Document, Element, MutationError, NodeId};
use crate::dom::form::{
    control_value, form_owner, input_type, is_checked, is_disabled, labeled_control, option_label, option_value,
    parse_float, select_options, selected_options,
};
use crate::text::collapse_whitespace;
pub use submit::{Enctype, Entry, EntryValue, FileEntry, Method, Submission, close_dialog, implicit_submission, submit};

/// Why an act was refused, in words a model understands. `Display` gives
/// a predicate to print after the target's line (`[9] textbox "Email" is
/// required`). When the reason is about another element than the target
/// (the control of a label, a form's first invalid field, its disabled
/// default button), [`ActError::node`] names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActError {
    /// Not an element on this page: an id from another document, a node
    /// taken out of the tree, a template's contents.
    NotOnPage(NodeId),
    /// Inside an `inert` subtree: the page does not let it be used now.
    Inert(NodeId),
    /// The control (or its fieldset) is disabled.
    Disabled(NodeId),
    /// The field is read-only.
    ReadOnly(NodeId),
    /// Typing or clearing needs a text field, a text area or an editable
    /// element.
    NotTextField,
    /// Checking needs a checkbox or a radio button.
    NotCheckable,
    /// Choosing options needs a `<select>`.
    NotSelect,
    /// Choosing files needs an `<input type=file>`.
    NotFileInput,
    /// A radio button is unchecked by checking another of its group.
    UncheckRadio,
    /// No option matches a choice.
    NoSuchOption {
        /// The choice as given.
        choice: String,
        /// The labels of the select's options.
        options: Vec<String>,
    },
    /// The option that matches a choice is disabled.
    OptionDisabled {
        /// Its label.
        label: String,
    },
    /// A single select takes exactly one choice.
    OneChoice {
        /// How many were given.
        given: usize,
    },
    /// A file input without `multiple` takes one file.
    OneFile {
        /// How many were given.
        given: usize,
    },
    /// The value does not fit the control (a range takes a number, a colour
    /// well `#rrggbb`).
    BadValue(&'static str),
    /// What was asked needs a script to run, which a static page has not.
    NeedsScript(&'static str),
    /// The element is not a `<form>`.
    NotAForm,
    /// The control has no form owner.
    NotInForm,
    /// The element is not a submit button of the form.
    NotSubmitButton,
    /// Pressing Enter there submits nothing.
    NoImplicitSubmission(&'static str),
    /// A link or a form action is not a valid URL (or is relative on a page
    /// without an address).
    BadUrl,
    /// The form did not pass constraint validation: `node` is its first
    /// invalid control.
    Invalid {
        /// The invalid control.
        node: NodeId,
        /// What is wrong with it.
        reason: Invalid,
    },
    /// The tree refused a change (limits of the mutation API).
    Mutation(MutationError),
}

/// Why a control fails constraint validation (HTML §4.10.20.1). `Display`
/// never shows the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// `required` and empty (unchecked, nothing chosen).
    Required,
    /// `type=email` holding something else.
    NotEmail,
    /// `type=url` holding something that is not an absolute URL.
    NotUrl,
    /// `type=number` holding something that is not a number.
    NotNumber,
    /// A date or time field holding something else; the format it needs.
    BadFormat(&'static str),
    /// Shorter than `minlength` (characters).
    TooShort(usize),
    /// Longer than `maxlength` (characters).
    TooLong(usize),
    /// Below `min` (as the page wrote it).
    Underflow(String),
    /// Above `max` (as the page wrote it).
    Overflow(String),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Required => f.write_str("is required"),
            Invalid::NotEmail => f.write_str("is not an email address"),
            Invalid::NotUrl => f.write_str("is not a URL (it needs a scheme, like https://)"),
            Invalid::NotNumber => f.write_str("is not a number"),
            Invalid::BadFormat(format) => write!(f, "is not in the format {format}"),
            Invalid::TooShort(n) => write!(f, "is too short (at least {n} characters)"),
            Invalid::TooLong(n) => write!(f, "is too long (at most {n} characters)"),
            Invalid::Underflow(min) => write!(f, "must be at least {min}"),
            Invalid::Overflow(max) => write!(f, "must be at most {max}"),
        }
    }
}

/// At most this many option labels are listed in an error.
const LISTED_OPTIONS: usize = 10;

impl fmt::Display for ActError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActError::NotOnPage(_) => f.write_str("is not on the page"),
            ActError::Inert(_) => f.write_str("cannot be used now (the page made it inert)"),
            ActError::Disabled(_) => f.write_str("is disabled"),
            ActError::ReadOnly(_) => f.write_str("is read-only"),
            ActError::NotTextField => f.write_str("is not a text field"),
            ActError::NotCheckable => f.write_str("is not a checkbox or radio button"),
            ActError::NotSelect => f.write_str("is not a select"),
            ActError::NotFileInput => f.write_str("is not a file input"),
            ActError::UncheckRadio => f.write_str("is a radio button: check another one of its group instead"),
            ActError::NoSuchOption { choice, options } => {
                write!(f, "has no option {choice:?} (options: ")?;
                for (i, label) in options.iter().take(LISTED_OPTIONS).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(label)?;
                }
                if options.len() > LISTED_OPTIONS {
                    write!(f, ", … {} more", options.len() - LISTED_OPTIONS)?;
                }
                f.write_str(")")
            }
            ActError::OptionDisabled { label } => write!(f, "has option {label:?} disabled"),
            ActError::OneChoice { given } => write!(f, "takes exactly one option, not {given}"),
            ActError::OneFile { given } => write!(f, "takes one file, not {given}"),
            ActError::BadValue(what) => f.write_str(what),
            ActError::NeedsScript(why) => write!(f, "needs a script ({why})"),
            ActError::NotAForm => f.write_str("is not a form"),
            ActError::NotInForm => f.write_str("is not in a form"),
            ActError::NotSubmitButton => f.write_str("is not a submit button of that form"),
            ActError::NoImplicitSubmission(why) => write!(f, "does not submit with Enter ({why})"),
            ActError::BadUrl => f.write_str("points to an address that is not a valid URL"),
            ActError::Invalid { reason, .. } => reason.fmt(f),
            ActError::Mutation(e) => write!(f, "could not be changed ({e})"),
        }
    }
}

impl std::error::Error for ActError {}

impl From<MutationError> for ActError {
    fn from(e: MutationError) -> ActError {
        ActError::Mutation(e)
    }
}

impl ActError {
    /// The element the reason is about, when the error names one (it may
    /// differ from the target: a label's control, a form's invalid field).
    pub fn node(&self) -> Option<NodeId> {
        match self {
            ActError::NotOnPage(n) | ActError::Inert(n) | ActError::Disabled(n) | ActError::ReadOnly(n) => Some(*n),
            ActError::Invalid { node, .. } => Some(*node),
            _ => None,
        }
    }
}

/// What a click did.
#[derive(Debug, Clone, PartialEq)]
pub enum Click {
    /// A link (`a[href]`, `area[href]`) to follow: the caller navigates
    /// (same-document for a fragment of the current URL).
    Navigate {
        /// The resolved target.
        url: Url,
        /// Whether it opens in a new tab (`target=_blank` or a named target,
        /// from the link or `<base target>`).
        new_tab: bool,
    },
    /// A submit button sent its form: the caller makes the request. For
    /// [`Method::Dialog`] there is none; the form's dialog was closed.
    Submit(Submission),
    /// A checkbox was toggled or a radio button checked (also through its
    /// label).
    Toggled {
        /// The control.
        control: NodeId,
        /// Its checkedness now.
        checked: bool,
    },
    /// A field (text, select, text area, editable element) got the focus;
    /// nothing changed.
    Focus(NodeId),
    /// A file input: the caller offers its file chooser
    /// ([`choose_files`]).
    ChooseFile(NodeId),
    /// A reset button put its form's controls back to their defaults.
    Reset(NodeId),
    /// A `<summary>` opened or closed its `<details>`.
    DetailsToggled {
        /// The `<details>`.
        details: NodeId,
        /// Whether it is open now.
        open: bool,
    },
    /// Nothing happens on a click there.
    Nothing,
}

/// What typing did beyond setting the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Typed {
    /// Characters `maxlength` cut off the end of the text.
    pub cut: usize,
}

/// The `<input>` types a person types text into.
const TEXT_INPUTS: [&str; 12] = [
    "text", "search", "tel", "url", "email", "password", "date", "month", "week", "time", "datetime-local", "number",
];

/// The `<input>` types `maxlength` and `minlength` apply to.
const LENGTH_INPUTS: [&str; 6] = ["text", "search", "tel", "url", "email", "password"];

/// ARIA roles that make an element look interactive although only a script
/// can make it do anything.
const SCRIPTED_ROLES: [&str; 16] = [
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "treeitem", "combobox", "slider", "spinbutton", "textbox", "searchbox",
];

/// Attributes that hang a script on a click.
const CLICK_HANDLERS: [&str; 6] = ["onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup", "ontouchstart"];

/// Types `text` into a field: `<input>`s a person types into, `<textarea>`,
/// or an editable element (`contenteditable`, whose children are replaced).
/// A `<label>` types into its control. `append` keeps what is there.
///
/// As a browser would: newlines are dropped in single-line inputs, `url`
/// and `email` values are trimmed, `maxlength` cuts what does not fit
/// (reported in [`Typed::cut`]); number, date and time fields take the text
/// as given (constraint validation judges it on submission); a range takes
/// a number, a colour well `#rrggbb`. Disabled and read-only fields refuse.
pub fn type_text(doc: &mut Document, node: NodeId, text: &str, append: bool) -> Result<Typed, ActError> {
    on_page(doc, node)?;
    match text_target(doc, node)? {
        TextTarget::Field(id) => type_into_field(doc, id, text, append),
        TextTarget::Editable(host) => {
            let old: Vec<NodeId> = if append { Vec::new() } else { doc.children(host).collect() };
            // The new text goes in first: if the tree refuses it (the depth
            // cap), the old content is still there.
            append_lines(doc, host, text)?;
            for c in old {
                doc.detach(c)?;
            }
            Ok(Typed::default())
        }
    }
}

/// Empties a field (as selecting all and deleting): text fields, text
/// areas, editable elements; a file input forgets its chosen files.
pub fn clear(doc: &mut Document, node: NodeId) -> Result<(), ActError> {
    on_page(doc, node)?;
    let node = label_control(doc, node);
    if let Some(e) = doc.element(node)
        && e.is_html(&local_name!("input"))
        && input_type(e) == "file"
    {
        if is_disabled(doc, node) {
            return Err(ActError::Disabled(node));
        }
        doc.form.set_files(node, Vec::new());
        return Ok(());
    }
    match text_target(doc, node)? {
        TextTarget::Field(id) => {
            if doc.element(id).is_some_and(|e| e.is_html(&local_name!("input")) && matches!(input_type(e), "range" | "color")) {
                return Err(ActError::NotTextField);
            }
            type_into_field(doc, id, "", false).map(|_| ())
        }
        TextTarget::Editable(host) => {
            let children: Vec<NodeId> = doc.children(host).collect();
            for c in children {
                doc.detach(c)?;
            }
            Ok(())
        }
    }
}

/// Checks or unchecks a checkbox, or checks a radio button (which unchecks
/// the other radios of its group: same form owner, same name, same tree).
/// A `<label>` acts on its control. Returns whether the checkedness
/// changed. Unchecking a checked radio is refused (a person checks another
/// one); an ARIA-only checkbox, switch or radio needs a script.
pub fn set_checked(doc: &mut Document, node: NodeId, checked: bool) -> Result<bool, ActError> {
    on_page(doc, node)?;
    let node = label_control(doc, node);
    let Some(e) = doc.element(node) else { return Err(ActError::NotCheckable) };
    let kind = if e.is_html(&local_name!("input")) { input_type(e) } else { "" };
    if !matches!(kind, "checkbox" | "radio") {
        if has_role(e, &["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]) {
            return Err(ActError::NeedsScript("it is a checkbox only for a script, not a native control"));
        }
        return Err(ActError::NotCheckable);
    }
    if is_disabled(doc, node) {
        return Err(ActError::Disabled(node));
    }
    let was = is_checked(doc, node);
    if kind == "radio" {
        if !checked {
            return if was { Err(ActError::UncheckRadio) } else { Ok(false) };
        }
        for other in radio_group(doc, node) {
            if other != node && is_checked(doc, other) {
                doc.form.set_checked(other, false);
            }
        }
    }
    doc.form.set_checked(node, checked);
    Ok(was != checked)
}

/// Chooses options of a `<select>` (or the select of a `<label>` or of an
/// `<option>`): each choice matches an option by label, else by value,
/// exactly, else ignoring case and extra whitespace. A single select takes
/// exactly one choice; a multiple select's selection is replaced (no
/// choices: nothing selected). Disabled options refuse. Returns the labels
/// now selected.
pub fn select(doc: &mut Document, node: NodeId, choices: &[&str]) -> Result<Vec<String>, ActError> {
    on_page(doc, node)?;
    let select = select_target(doc, node)?;
    if is_disabled(doc, select) {
        return Err(ActError::Disabled(select));
    }
    let multiple = doc.element(select).is_some_and(|e| e.has_attr("multiple"));
    if !multiple && choices.len() != 1 {
        return Err(ActError::OneChoice { given: choices.len() });
    }
    let options = select_options(doc, select);
    let mut chosen = Vec::with_capacity(choices.len());
    for choice in choices {
        chosen.push(match_option(doc, &options, choice)?);
    }
    for &o in &options {
        doc.form.set_selected(o, chosen.contains(&o));
    }
    Ok(selected_options(doc, select).into_iter().map(|o| option_label(doc, o)).collect())
}

/// Chooses the files of an `<input type=file>` (or of a `<label>`'s): their
/// names and types go into the form state (the observation shows the
/// names, a submission lists them); the caller keeps the bytes. More than
/// one file needs `multiple`; none clears the choice.
pub fn choose_files(doc: &mut Document, node: NodeId, files: Vec<ChosenFile>) -> Result<(), ActError> {
    on_page(doc, node)?;
    let node = label_control(doc, node);
    let Some(e) = doc.element(node) else { return Err(ActError::NotFileInput) };
    if !(e.is_html(&local_name!("input")) && input_type(e) == "file") {
        return Err(ActError::NotFileInput);
    }
    if files.len() > 1 && !e.has_attr("multiple") {
        return Err(ActError::OneFile { given: files.len() });
    }
    if is_disabled(doc, node) {
        return Err(ActError::Disabled(node));
    }
    doc.form.set_files(node, files);
    Ok(())
}

/// Resets a form (HTML §4.10.21.5): every control whose form owner it is
/// forgets what a person typed, checked, selected and chose, and shows its
/// markup's defaults again.
pub fn reset(doc: &mut Document, form: NodeId) -> Result<(), ActError> {
    on_page(doc, form)?;
    if !doc.element(form).is_some_and(|e| e.is_html(&local_name!("form"))) {
        return Err(ActError::NotAForm);
    }
    let controls: Vec<NodeId> = doc
        .descendants(NodeId::DOCUMENT)
        .filter(|&n| {
            doc.element(n).is_some_and(|e| {
                e.is_html(&local_name!("input")) || e.is_html(&local_name!("textarea")) || e.is_html(&local_name!("select"))
            }) && form_owner(doc, n) == Some(form)
        })
        .collect();
    for control in controls {
        if doc.element(control).is_some_and(|e| e.is_html(&local_name!("select"))) {
            for o in select_options(doc, control) {
                doc.form.reset_option(o);
            }
        } else {
            doc.form.reset_control(control);
        }
    }
    Ok(())
}

/// Clicks `node`: what the node, or its nearest ancestor that reacts to a
/// click, does without scripts (HTML's activation behaviour).
///
/// - `a[href]`, `area[href]`: [`Click::Navigate`] to the link resolved
///   against the base URL (`javascript:` needs a script);
/// - a submit button (`<button>` of type submit, the default;
///   `<input type=submit|image>`): [`Click::Submit`] of its form owner,
///   with its `formaction`, `formmethod`, `formenctype`, `formtarget`,
///   `formnovalidate`; a `method=dialog` form closes its dialog;
/// - a reset button resets its form ([`Click::Reset`]);
/// - a checkbox toggles, a radio button is checked ([`Click::Toggled`]);
/// - a `<label>` clicks its control (so a text field gets the focus);
/// - the `<summary>` of a `<details>` opens or closes it;
/// - a text field, select, text area or editable element gets the focus,
///   a file input asks for files ([`Click::ChooseFile`]).
///
/// A `type=button` button, a submit button without a form, and elements
/// with a click handler attribute or an interactive ARIA role but no native
/// behaviour need a script ([`ActError::NeedsScript`]); disabled controls
/// refuse; anything else is [`Click::Nothing`].
pub fn click(doc: &mut Document, node: NodeId) -> Result<Click, ActError> {
    on_page(doc, node)?;
    let path: Vec<NodeId> =
        std::iter::once(node).chain(doc.ancestors(node)).filter(|&n| doc.element(n).is_some()).collect();
    for el in path {
        if let Some(outcome) = activate(doc, el)? {
            return Ok(outcome);
        }
    }
    Ok(Click::Nothing)
}

/// What clicking `el` itself does, or `None` when it has no behaviour of
/// its own (the click goes on to its parent).
fn activate(doc: &mut Document, el: NodeId) -> Result<Option<Click>, ActError> {
    let Some(e) = doc.element(el) else { return Ok(None) };
    if e.namespace() == &html5ever::ns!(svg) && e.local_name() == &local_name!("a") {
        return match e.attr("href") {
            Some(href) => follow_link(doc, el, href).map(Some),
            None => Ok(None),
        };
    }
    if !e.is_html_element() {
        return Ok(None);
    }
    let scripted = CLICK_HANDLERS.iter().any(|h| e.has_attr(h)) || has_role(e, &SCRIPTED_ROLES);
    match *e.local_name() {
        local_name!("a") | local_name!("area") => {
            if let Some(href) = e.attr("href") {
                let href = href.to_owned();
                if scripted && crate::text::trim_html(&href).starts_with('#') {
                    return Err(ActError::NeedsScript("the link only points to this page; a script handles it"));
                }
                return follow_link(doc, el, &href).map(Some);
            }
        }
        local_name!("button") => {
            if is_disabled(doc, el) {
                return Err(ActError::Disabled(el));
            }
            return match button_type(e) {
                "submit" => submit_with(doc, el).map(Some),
                "reset" => reset_with(doc, el).map(Some),
                _ => Err(ActError::NeedsScript("the button does nothing without one")),
            };
        }
        local_name!("input") => {
            let kind = input_type(e);
            if kind == "hidden" {
                return Ok(None);
            }
            if is_disabled(doc, el) {
                return Err(ActError::Disabled(el));
            }
            return match kind {
                "submit" | "image" => submit_with(doc, el).map(Some),
                "reset" => reset_with(doc, el).map(Some),
                "button" => Err(ActError::NeedsScript("the button does nothing without one")),
                "checkbox" => {
                    let checked = !is_checked(doc, el);
                    set_checked(doc, el, checked)?;
                    Ok(Some(Click::Toggled { control: el, checked }))
                }
                "radio" => {
                    set_checked(doc, el, true)?;
                    Ok(Some(Click::Toggled { control: el, checked: true }))
                }
                "file" => Ok(Some(Click::ChooseFile(el))),
                _ => Ok(Some(Click::Focus(el))),
            };
        }
        local_name!("select") | local_name!("textarea") => {
            if is_disabled(doc, el) {
                return Err(ActError::Disabled(el));
            }
            return Ok(Some(Click::Focus(el)));
        }
        local_name!("label") => {
            if let Some(control) = labeled_control(doc, el) {
                // The control is labelable, never a label: one level.
                return activate(doc, control);
            }
        }
        local_name!("summary") => {
            if let Some(details) = details_of_summary(doc, el) {
                let open = !doc.element(details).is_some_and(|d| d.has_attr("open"));
                if open {
                    doc.set_attribute(details, "open", "")?;
                } else {
                    doc.remove_attribute(details, "open")?;
                }
                return Ok(Some(Click::DetailsToggled { details, open }));
            }
        }
        _ => {}
    }
    if scripted {
        return Err(ActError::NeedsScript("only a script reacts to clicks on it"));
    }
    if editing_host(doc, el) == Some(el) {
        return Ok(Some(Click::Focus(el)));
    }
    Ok(None)
}

/// A `<button>`'s type: `submit` (also for a missing or unknown value),
/// `reset` or `button`.
fn button_type(e: &Element) -> &'static str {
    match e.attr("type").map(|t| crate::text::trim_html(t).to_ascii_lowercase()).as_deref() {
        Some("reset") => "reset",
        Some("button") => "button",
        _ => "submit",
    }
}

/// Whether `e` is a submit button (HTML §4.10.2): `<button>` of type
/// submit, `<input type=submit|image>`.
pub(crate) fn is_submit_button(e: &Element) -> bool {
    (e.is_html(&local_name!("button")) && button_type(e) == "submit")
        || (e.is_html(&local_name!("input")) && matches!(input_type(e), "submit" | "image"))
}

/// A submit button's click: submits its form owner.
fn submit_with(doc: &mut Document, button: NodeId) -> Result<Click, ActError> {
    let Some(form) = form_owner(doc, button) else {
        return Err(ActError::NeedsScript("the button has no form"));
    };
    let submission = submit(doc, form, Some(button))?;
    if submission.method == Method::Dialog {
        close_dialog(doc, &submission)?;
    }
    Ok(Click::Submit(submission))
}

/// A reset button's click: resets its form owner.
fn reset_with(doc: &mut Document, button: NodeId) -> Result<Click, ActError> {
    let Some(form) = form_owner(doc, button) else {
        return Err(ActError::NeedsScript("the button has no form"));
    };
    reset(doc, form)?;
    Ok(Click::Reset(form))
}

/// Following a hyperlink (HTML §4.6.4): the URL resolved against the base
/// URL, a new tab for `_blank` or a named target.
fn follow_link(doc: &Document, link: NodeId, href: &str) -> Result<Click, ActError> {
    let url = doc.resolve_url(href).ok_or(ActError::BadUrl)?;
    if url.scheme() == "javascript" {
        return Err(ActError::NeedsScript("the link runs JavaScript"));
    }
    let target = match doc.element(link).and_then(|e| e.attr("target")) {
        Some(t) => t.to_owned(),
        None => base_target(doc),
    };
    Ok(Click::Navigate { url, new_tab: opens_new_tab(&target) })
}

/// The `target` of the first `<base>` that has one, else empty.
pub(crate) fn base_target(doc: &Document) -> String {
    doc.descendants(NodeId::DOCUMENT)
        .filter_map(|n| doc.element(n).filter(|e| e.is_html(&local_name!("base"))).and_then(|e| e.attr("target")))
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Whether a navigable target name opens a new tab: `_blank`, or a name no
/// tab has yet (whittle's tabs have none); `_self`, `_parent`, `_top` and
/// empty stay.
pub(crate) fn opens_new_tab(target: &str) -> bool {
    let t = crate::text::trim_html(target).to_ascii_lowercase();
    !matches!(t.as_str(), "" | "_self" | "_parent" | "_top")
}

/// The `<details>` whose summary `summary` is: its parent, when it is the
/// parent's first `<summary>` child.
fn details_of_summary(doc: &Document, summary: NodeId) -> Option<NodeId> {
    let parent = doc.parent_element(summary)?;
    let details = doc.element(parent)?;
    if !details.is_html(&local_name!("details")) {
        return None;
    }
    let first = doc.element_children(parent).find(|&c| doc.element(c).is_some_and(|ce| ce.is_html(&local_name!("summary"))));
    (first == Some(summary)).then_some(parent)
}

/// Refuses nodes that are not on this page, and elements in an `inert`
/// subtree.
fn on_page(doc: &Document, node: NodeId) -> Result<(), ActError> {
    if node.index() >= doc.len() || node == NodeId::DOCUMENT || !doc.is_connected(node) {
        return Err(ActError::NotOnPage(node));
    }
    let inert = std::iter::once(node)
        .chain(doc.ancestors(node))
        .any(|n| doc.element(n).is_some_and(|e| e.is_html_element() && e.has_attr("inert")));
    if inert {
        return Err(ActError::Inert(node));
    }
    Ok(())
}

/// A `<label>`'s control, or the node itself.
fn label_control(doc: &Document, node: NodeId) -> NodeId {
    match doc.element(node) {
        Some(e) if e.is_html(&local_name!("label")) => labeled_control(doc, node).unwrap_or(node),
        _ => node,
    }
}

/// Whether one of the tokens of `e`'s `role` is in `roles`.
fn has_role(e: &Element, roles: &[&str]) -> bool {
    e.attr("role").is_some_and(|r| crate::text::split_html_space(r).any(|t| roles.iter().any(|x| x.eq_ignore_ascii_case(t))))
}

/// Where typed text goes.
enum TextTarget {
    /// An `<input>` or `<textarea>`.
    Field(NodeId),
    /// The editing host of a `contenteditable` region.
    Editable(NodeId),
}

fn text_target(doc: &Document, node: NodeId) -> Result<TextTarget, ActError> {
    let node = label_control(doc, node);
    let Some(e) = doc.element(node) else {
        return match doc.parent(node).and_then(|p| editing_host(doc, p)) {
            Some(host) => Ok(TextTarget::Editable(host)),
            None => Err(ActError::NotTextField),
        };
    };
    if e.is_html(&local_name!("input")) {
        let kind = input_type(e);
        return if TEXT_INPUTS.contains(&kind) || matches!(kind, "range" | "color") {
            Ok(TextTarget::Field(node))
        } else {
            Err(ActError::NotTextField)
        };
    }
    if e.is_html(&local_name!("textarea")) {
        return Ok(TextTarget::Field(node));
    }
    if let Some(host) = editing_host(doc, node) {
        return Ok(TextTarget::Editable(host));
    }
    if has_role(e, &["textbox", "searchbox", "combobox"]) {
        return Err(ActError::NeedsScript("it is a text field only for a script, not a native one"));
    }
    Err(ActError::NotTextField)
}

/// The editing host of `node` (HTML §6.8.1): the nearest element whose
/// `contenteditable` is true or plaintext-only, unless a nearer one says
/// false.
fn editing_host(doc: &Document, node: NodeId) -> Option<NodeId> {
    let mut host = None;
    for n in std::iter::once(node).chain(doc.ancestors(node)) {
        let Some(e) = doc.element(n) else { continue };
        match e.attr("contenteditable").map(|v| crate::text::trim_html(v).to_ascii_lowercase()).as_deref() {
            Some("" | "true" | "plaintext-only") => host = Some(n),
            Some("false") => break,
            _ => continue,
        }
    }
    // The outermost editable ancestor of a run of editable ones is the
    // host; a `false` below it ends the run.
    host
}

/// Appends text to an editable element, a `<br>` for each line break; all
/// of it or (when the tree refuses a node) none.
fn append_lines(doc: &mut Document, host: NodeId, text: &str) -> Result<(), ActError> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut added = Vec::new();
    let mut add = |doc: &mut Document, node: Result<NodeId, MutationError>| -> Result<(), MutationError> {
        let node = node?;
        doc.append_child(host, node)?;
        added.push(node);
        Ok(())
    };
    let mut result = Ok(());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            let br = doc.create_html_element("br", &[]);
            result = add(doc, br);
        }
        if result.is_ok() && !line.is_empty() {
            let t = doc.create_text(line);
            result = add(doc, t);
        }
        if result.is_err() {
            break;
        }
    }
    if let Err(e) = result {
        for n in added {
            let _ = doc.detach(n);
        }
        return Err(e.into());
    }
    Ok(())
}

/// Typing into an `<input>` or `<textarea>`.
fn type_into_field(doc: &mut Document, id: NodeId, text: &str, append: bool) -> Result<Typed, ActError> {
    let Some(e) = doc.element(id) else { return Err(ActError::NotTextField) };
    if is_disabled(doc, id) {
        return Err(ActError::Disabled(id));
    }
    let textarea = e.is_html(&local_name!("textarea"));
    let kind = if textarea { "textarea" } else { input_type(e) };
    if e.has_attr("readonly") && (textarea || TEXT_INPUTS.contains(&kind)) {
        return Err(ActError::ReadOnly(id));
    }
    let max_length = if textarea || LENGTH_INPUTS.contains(&kind) { e.attr("maxlength").and_then(non_negative_integer) } else { None };
    let current = if append { control_value(doc, id) } else { String::new() };
    let mut typed = if textarea { text.replace("\r\n", "\n").replace('\r', "\n") } else { text.replace(['\r', '\n'], "") };
    let mut cut = 0;
    if let Some(max) = max_length {
        let room = max.saturating_sub(utf16_len(&current));
        let (kept, dropped) = truncate_utf16(&typed, room);
        typed.truncate(kept);
        cut = dropped;
    }
    let mut value = current;
    value.push_str(&typed);
    let value = match kind {
        "url" => crate::text::trim_html(&value).to_owned(),
        "email" if e.has_attr("multiple") => {
            value.split(',').map(crate::text::trim_html).collect::<Vec<_>>().join(",")
        }
        "email" => crate::text::trim_html(&value).to_owned(),
        "range" => {
            let v = crate::text::trim_html(&value);
            if !is_valid_float(v) {
                return Err(ActError::BadValue("takes a number"));
            }
            v.to_owned()
        }
        "color" => {
            let v = crate::text::trim_html(&value);
            if !is_simple_color(v) {
                return Err(ActError::BadValue("takes a colour as #rrggbb, like #1e90ff"));
            }
            v.to_ascii_lowercase()
        }
        _ => value,
    };
    doc.form.set_value(id, value);
    Ok(Typed { cut })
}

/// The select a choice goes to: a `<select>`, a `<label>`'s, an
/// `<option>`'s (or its optgroup's).
fn select_target(doc: &Document, node: NodeId) -> Result<NodeId, ActError> {
    let node = label_control(doc, node);
    let is_select = |n: NodeId| doc.element(n).is_some_and(|e| e.is_html(&local_name!("select")));
    if is_select(node) {
        return Ok(node);
    }
    let in_select = doc
        .element(node)
        .is_some_and(|e| e.is_html(&local_name!("option")) || e.is_html(&local_name!("optgroup")));
    if in_select && let Some(s) = doc.ancestors(node).take(2).find(|&a| is_select(a)) {
        return Ok(s);
    }
    if doc.element(node).is_some_and(|e| has_role(e, &["listbox", "combobox"])) {
        return Err(ActError::NeedsScript("it is a list of options only for a script, not a native select"));
    }
    Err(ActError::NotSelect)
}

/// The option a choice names: by label, then value, exactly; then the same
/// ignoring case and extra whitespace. Among matches of one rule the first
/// enabled option wins.
fn match_option(doc: &Document, options: &[NodeId], choice: &str) -> Result<NodeId, ActError> {
    let labels: Vec<String> = options.iter().map(|&o| option_label(doc, o)).collect();
    let values: Vec<String> = options.iter().map(|&o| option_value(doc, o)).collect();
    let fold = |s: &str| collapse_whitespace(s).to_lowercase();
    let folded = fold(choice);
    let rules: [&dyn Fn(usize) -> bool; 4] = [
        &|i| labels[i] == choice,
        &|i| values[i] == choice,
        &|i| fold(&labels[i]) == folded,
        &|i| fold(&values[i]) == folded,
    ];
    for rule in rules {
        let matches: Vec<usize> = (0..options.len()).filter(|&i| rule(i)).collect();
        if let Some(&i) = matches.iter().find(|&&i| !is_disabled(doc, options[i])) {
            return Ok(options[i]);
        }
        if let Some(&i) = matches.first() {
            return Err(ActError::OptionDisabled { label: labels[i].clone() });
        }
    }
    Err(ActError::NoSuchOption { choice: choice.to_owned(), options: labels })
}

/// The radio button group of `radio` (HTML §4.10.5.1.18): the radios of
/// its tree with the same form owner and the same non-empty name; a radio
/// without a name is alone.
pub(crate) fn radio_group(doc: &Document, radio: NodeId) -> Vec<NodeId> {
    let Some(name) = doc.element(radio).and_then(|e| e.attr("name")).filter(|n| !n.is_empty()) else {
        return vec![radio];
    };
    let owner = form_owner(doc, radio);
    let root = doc.ancestors(radio).last().unwrap_or(radio);
    doc.descendants(root)
        .filter(|&n| {
            doc.element(n).is_some_and(|e| {
                e.is_html(&local_name!("input")) && input_type(e) == "radio" && e.attr("name") == Some(name)
            }) && form_owner(doc, n) == owner
        })
        .collect()
}

/// HTML's "rules for parsing non-negative integers" (§2.3.4.2).
pub(crate) fn non_negative_integer(s: &str) -> Option<usize> {
    let s = s.trim_start_matches(crate::text::is_html_space);
    let s = s.strip_prefix('+').unwrap_or(s);
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    // Beyond usize the limit is as good as none.
    Some(s[..digits].parse::<usize>().unwrap_or(usize::MAX))
}

/// A string's length in UTF-16 code units (what `maxlength` counts).
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Where to cut `s` so it holds at most `room` UTF-16 code units (never
/// inside a character), and how many characters that drops.
fn truncate_utf16(s: &str, room: usize) -> (usize, usize) {
    let mut used = 0;
    for (at, c) in s.char_indices() {
        used += c.len_utf16();
        if used > room {
            return (at, s[at..].chars().count());
        }
    }
    (s.len(), 0)
}

/// A "valid floating-point number" (HTML §2.3.4.3): the whole string.
pub(crate) fn is_valid_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let int = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int;
    let mut digits = int > 0;
    if b.get(i) == Some(&b'.') {
        let frac = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if frac == 0 {
            return false;
        }
        i += 1 + frac;
        digits = true;
    }
    if !digits {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len() && parse_float(s).is_some()
}

/// A "valid simple colour" (HTML §2.3.6): `#` and six hex digits.
fn is_simple_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}
