//! Form submission (HTML §4.10.21): implicit submission, interactive
//! constraint validation, the entry list, and the request a form makes.

use std::collections::HashSet;

use encoding_rs::Encoding;
use html5ever::local_name;
use url::Url;

use super::{
    ActError, Invalid, LENGTH_INPUTS, TEXT_INPUTS, base_target, is_submit_button, is_valid_float, non_negative_integer,
    on_page, opens_new_tab, radio_group, utf16_len,
};
use crate::dom::{Document, Element, NodeId};
use crate::dom::form::{
    control_value, form_owner, input_type, is_checked, is_disabled, option_value, parse_float, select_is_listbox,
    select_options, selected_options,
};

/// The HTTP method of a submission (`method`, `formmethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The entries go into the URL's query.
    Get,
    /// The entries are the request body.
    Post,
    /// No request: the form's `<dialog>` closes.
    Dialog,
}

/// How a POST body is encoded (`enctype`, `formenctype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enctype {
    /// `application/x-www-form-urlencoded`, the default.
    UrlEncoded,
    /// `multipart/form-data` (RFC 7578).
    Multipart,
    /// `text/plain`.
    TextPlain,
}

/// One entry of a form's entry list: a name and a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The control's name (or `dirname`, or `name.x` of an image button).
    pub name: String,
    /// The value.
    pub value: EntryValue,
}

/// An entry's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryValue {
    /// Text, newlines as the control had them (the encoders make them CRLF).
    Text(String),
    /// A file of an `<input type=file>`.
    File(FileEntry),
}

/// A file entry: which file of which input. The caller has the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// The `<input type=file>`.
    pub node: NodeId,
    /// Which of its chosen files; `None` when none was chosen (HTML then
    /// sends an empty file with an empty name).
    pub index: Option<usize>,
    /// The file's name (empty when none was chosen).
    pub filename: String,
    /// Its MIME type; `application/octet-stream` when unknown.
    pub content_type: String,
}

/// A form submission: what the caller sends (HTML §4.10.21.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    /// The `<form>`.
    pub form: NodeId,
    /// The submit button, if one was used.
    pub submitter: Option<NodeId>,
    /// GET, POST or dialog.
    pub method: Method,
    /// The action URL, resolved (the document's URL when the form gives
    /// none). For GET, [`Submission::request_url`] is what to fetch.
    pub action: Url,
    /// The body's encoding for POST.
    pub enctype: Enctype,
    /// The entry list, in tree order.
    pub entries: Vec<Entry>,
    /// Whether the response opens in a new tab (`target`/`formtarget`
    /// `_blank` or a named one).
    pub new_tab: bool,
    /// The character encoding of names and values (`accept-charset`, else
    /// the page's; UTF-8 for UTF-16 pages).
    pub encoding: &'static Encoding,
}

/// Submits `form` as clicking `submitter` (a submit button of the form)
/// would, or as `requestSubmit()` with none: unless `novalidate` or the
/// submitter's `formnovalidate` say otherwise, the form's controls are
/// validated first (the first invalid one is [`ActError::Invalid`]); then
/// the entry list is built and the request described. Pure: the caller
/// sends it (and for [`Method::Dialog`], calls [`close_dialog`]).
pub fn submit(doc: &Document, form: NodeId, submitter: Option<NodeId>) -> Result<Submission, ActError> {
    on_page(doc, form)?;
    let Some(f) = doc.element(form).filter(|e| e.is_html(&local_name!("form"))) else {
        return Err(ActError::NotAForm);
    };
    let button = match submitter {
        Some(s) => {
            on_page(doc, s)?;
            let Some(b) = doc.element(s).filter(|b| is_submit_button(b) && form_owner(doc, s) == Some(form)) else {
                return Err(ActError::NotSubmitButton);
            };
            if is_disabled(doc, s) {
                return Err(ActError::Disabled(s));
            }
            Some(b)
        }
        None => None,
    };
    // The submitter's form* attributes override the form's.
    let attr = |form_attr: &str, button_attr: &str| match button.and_then(|b| b.attr(button_attr)) {
        Some(v) => Some(v),
        None => f.attr(form_attr),
    };
    let novalidate = f.has_attr("novalidate") || button.is_some_and(|b| b.has_attr("formnovalidate"));
    if !novalidate {
        validate(doc, form)?;
    }
    let method = match attr("method", "formmethod").map(|m| crate::text::trim_html(m).to_ascii_lowercase()).as_deref() {
        Some("post") => Method::Post,
        Some("dialog") => Method::Dialog,
        _ => Method::Get,
    };
    let enctype = match attr("enctype", "formenctype").map(|m| crate::text::trim_html(m).to_ascii_lowercase()).as_deref() {
        Some("multipart/form-data") => Enctype::Multipart,
        Some("text/plain") => Enctype::TextPlain,
        _ => Enctype::UrlEncoded,
    };
    let action = attr("action", "formaction").unwrap_or("");
    let action = if crate::text::trim_html(action).is_empty() { doc.url().cloned() } else { doc.resolve_url(action) };
    let action = match (action, method) {
        (Some(url), _) => url,
        (None, Method::Dialog) => Url::parse("about:blank").map_err(|_| ActError::BadUrl)?,
        (None, _) => return Err(ActError::BadUrl),
    };
    if action.scheme() == "javascript" && method != Method::Dialog {
        return Err(ActError::NeedsScript("the form's action runs JavaScript"));
    }
    let target = match attr("target", "formtarget") {
        Some(t) => t.to_owned(),
        None => base_target(doc),
    };
    let encoding = submission_encoding(doc, f);
    Ok(Submission {
        form,
        submitter,
        method,
        action,
        enctype,
        entries: entry_list(doc, form, submitter, encoding),
        new_tab: method != Method::Dialog && opens_new_tab(&target),
        encoding,
    })
}

/// Pressing Enter in `field` (HTML §4.10.21.2, implicit submission): the
/// form's default button (its first submit button) is clicked; a form
/// without one is submitted only when it has at most one field that blocks
/// implicit submission (a text-like `<input>`). A disabled default button
/// submits nothing. Enter in a text area or on a button is not implicit
/// submission (a new line; a click).
pub fn implicit_submission(doc: &Document, field: NodeId) -> Result<Submission, ActError> {
    on_page(doc, field)?;
    let Some(e) = doc.element(field) else { return Err(ActError::NotInForm) };
    if !e.is_html(&local_name!("input")) {
        return Err(ActError::NoImplicitSubmission(if e.is_html(&local_name!("textarea")) {
            "Enter starts a new line in a text area"
        } else {
            "only a field of a form is submitted with Enter"
        }));
    }
    if matches!(input_type(e), "submit" | "image" | "reset" | "button" | "hidden") {
        return Err(ActError::NoImplicitSubmission("Enter on a button clicks it"));
    }
    if is_disabled(doc, field) {
        return Err(ActError::Disabled(field));
    }
    let form = form_owner(doc, field).ok_or(ActError::NotInForm)?;
    let controls = controls_of(doc, form);
    let default_button = controls.iter().copied().find(|&c| doc.element(c).is_some_and(is_submit_button));
    match default_button {
        Some(button) if is_disabled(doc, button) => Err(ActError::Disabled(button)),
        Some(button) => submit(doc, form, Some(button)),
        None => {
            let blocking = controls
                .iter()
                .filter(|&&c| {
                    doc.element(c).is_some_and(|ce| ce.is_html(&local_name!("input")) && TEXT_INPUTS.contains(&input_type(ce)))
                })
                .count();
            if blocking > 1 {
                return Err(ActError::NoImplicitSubmission("the form has several fields and no submit button"));
            }
            submit(doc, form, None)
        }
    }
}

/// After a [`Method::Dialog`] submission: closes the `<dialog>` holding the
/// form (removes its `open`). Returns whether a dialog was closed; other
/// submissions change nothing.
pub fn close_dialog(doc: &mut Document, submission: &Submission) -> Result<bool, ActError> {
    if submission.method != Method::Dialog || submission.form.index() >= doc.len() {
        return Ok(false);
    }
    let dialog = doc
        .ancestors(submission.form)
        .find(|&a| doc.element(a).is_some_and(|e| e.is_html(&local_name!("dialog"))));
    match dialog {
        Some(d) => Ok(doc.remove_attribute(d, "open")?),
        None => Ok(false),
    }
}

/// The submittable elements (HTML §4.10.2) whose form owner is `form`, in
/// tree order.
fn controls_of(doc: &Document, form: NodeId) -> Vec<NodeId> {
    doc.descendants(NodeId::DOCUMENT)
        .filter(|&n| {
            doc.element(n).is_some_and(|e| {
                e.is_html(&local_name!("input"))
                    || e.is_html(&local_name!("button"))
                    || e.is_html(&local_name!("select"))
                    || e.is_html(&local_name!("textarea"))
            }) && form_owner(doc, n) == Some(form)
        })
        .collect()
}

fn in_datalist(doc: &Document, id: NodeId) -> bool {
    doc.ancestors(id).any(|a| doc.element(a).is_some_and(|e| e.is_html(&local_name!("datalist"))))
}

/// Constructing the entry list (HTML §4.10.21.4).
fn entry_list(doc: &Document, form: NodeId, submitter: Option<NodeId>, encoding: &'static Encoding) -> Vec<Entry> {
    let mut entries = Vec::new();
    let text = |name: &str, value: String| Entry { name: name.to_owned(), value: EntryValue::Text(value) };
    for field in controls_of(doc, form) {
        let Some(e) = doc.element(field) else { continue };
        let kind = if e.is_html(&local_name!("input")) { input_type(e) } else { "" };
        let is_button = e.is_html(&local_name!("button")) || matches!(kind, "submit" | "image" | "reset" | "button");
        if in_datalist(doc, field)
            || is_disabled(doc, field)
            || (is_button && Some(field) != submitter)
            || (matches!(kind, "checkbox" | "radio") && !is_checked(doc, field))
        {
            continue;
        }
        let name = e.attr("name").unwrap_or("");
        if kind == "image" {
            let prefix = if name.is_empty() { String::new() } else { format!("{name}.") };
            // No pointer: the click is at the image's origin.
            entries.push(text(&format!("{prefix}x"), "0".to_owned()));
            entries.push(text(&format!("{prefix}y"), "0".to_owned()));
            continue;
        }
        if name.is_empty() {
            continue;
        }
        if e.is_html(&local_name!("select")) {
            for o in selected_options(doc, field) {
                if !is_disabled(doc, o) {
                    entries.push(text(name, option_value(doc, o)));
                }
            }
        } else if matches!(kind, "checkbox" | "radio") {
            entries.push(text(name, e.attr("value").unwrap_or("on").to_owned()));
        } else if kind == "file" {
            let files = doc.form_state().files(field).unwrap_or_default();
            if files.is_empty() {
                entries.push(Entry {
                    name: name.to_owned(),
                    value: EntryValue::File(FileEntry {
                        node: field,
                        index: None,
                        filename: String::new(),
                        content_type: "application/octet-stream".to_owned(),
                    }),
                });
            }
            for (i, file) in files.iter().enumerate() {
                let content_type =
                    if file.content_type.is_empty() { "application/octet-stream" } else { file.content_type.as_str() };
                entries.push(Entry {
                    name: name.to_owned(),
                    value: EntryValue::File(FileEntry {
                        node: field,
                        index: Some(i),
                        filename: file.name.clone(),
                        content_type: content_type.to_owned(),
                    }),
                });
            }
        } else if kind == "hidden" && name.eq_ignore_ascii_case("_charset_") {
            entries.push(text(name, encoding.name().to_owned()));
        } else {
            entries.push(text(name, field_value(doc, field, e, kind)));
        }
        // dirname: the direction of auto-directionality elements.
        let auto_directional = e.is_html(&local_name!("textarea"))
            || matches!(kind, "hidden" | "text" | "search" | "tel" | "url" | "email" | "password" | "submit" | "reset" | "button");
        if auto_directional && let Some(dirname) = e.attr("dirname").filter(|d| !d.is_empty()) {
            let dir = if is_rtl(doc, field, kind) { "rtl" } else { "ltr" };
            entries.push(text(dirname, dir.to_owned()));
        }
    }
    entries
}

/// The value a control submits (and is validated with): what a person
/// typed, else the markup's default after HTML's value sanitization.
fn field_value(doc: &Document, id: NodeId, e: &Element, kind: &str) -> String {
    if e.is_html(&local_name!("textarea")) {
        return control_value(doc, id);
    }
    if !e.is_html(&local_name!("input")) {
        // A <button>: its value attribute.
        return e.attr("value").unwrap_or("").to_owned();
    }
    if let Some(v) = doc.form_state().value(id)
        && kind != "range"
    {
        return v.to_owned();
    }
    // A submit input without a value sends its label, as browsers do
    // (Chromium's "Submit"; the accessible name says the same).
    if kind == "submit" && !e.has_attr("value") {
        return "Submit".to_owned();
    }
    let default = e.attr("value").unwrap_or("");
    let no_newlines = || default.replace(['\r', '\n'], "");
    match kind {
        "text" | "search" | "tel" | "password" => no_newlines(),
        "url" => crate::text::trim_html(&no_newlines()).to_owned(),
        "email" if e.has_attr("multiple") => no_newlines().split(',').map(crate::text::trim_html).collect::<Vec<_>>().join(","),
        "email" => crate::text::trim_html(&no_newlines()).to_owned(),
        "number" => if is_valid_float(default) { default.to_owned() } else { String::new() },
        "date" | "month" | "week" | "time" | "datetime-local" => {
            if format_error(kind, default).is_none() { default.to_owned() } else { String::new() }
        }
        "range" => control_value(doc, id),
        "color" => {
            let v = default.to_ascii_lowercase();
            if v.len() == 7 && v.starts_with('#') && v[1..].bytes().all(|b| b.is_ascii_hexdigit()) { v } else { "#000000".to_owned() }
        }
        _ => default.to_owned(),
    }
}

/// Whether an element's directionality is right-to-left: its `dir`, or its
/// ancestors'; `dir=auto` looks at the first strong character of a field's
/// value (or an element's text).
fn is_rtl(doc: &Document, id: NodeId, kind: &str) -> bool {
    for n in std::iter::once(id).chain(doc.ancestors(id)) {
        let Some(e) = doc.element(n) else { break };
        match e.attr("dir").map(|d| crate::text::trim_html(d).to_ascii_lowercase()).as_deref() {
            Some("ltr") => return false,
            Some("rtl") => return true,
            Some("auto") => {
                let text = if n == id { field_value(doc, id, e, kind) } else { doc.text_content(n) };
                return first_strong_is_rtl(&text);
            }
            _ if n == id && kind == "tel" => return false,
            _ => {}
        }
    }
    false
}

/// Whether the first strongly directional character of `text` is
/// right-to-left (Hebrew, Arabic and the other RTL blocks); none: no.
fn first_strong_is_rtl(text: &str) -> bool {
    for c in text.chars() {
        let u = c as u32;
        if matches!(u, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF) {
            return true;
        }
        if c.is_alphabetic() {
            return false;
        }
    }
    false
}

/// Selecting the form submission encoding (HTML §4.10.21.3): the first
/// label of `accept-charset` that names one, else the document's; its
/// output encoding (UTF-8 for UTF-16).
fn submission_encoding(doc: &Document, form: &Element) -> &'static Encoding {
    let chosen = form
        .attr("accept-charset")
        .and_then(|labels| crate::text::split_html_space(labels).find_map(|l| Encoding::for_label(l.as_bytes())));
    chosen.unwrap_or(doc.encoding()).output_encoding()
}

/// Interactive constraint validation: the first of the form's controls (in
/// tree order) that suffers from a problem.
fn validate(doc: &Document, form: NodeId) -> Result<(), ActError> {
    let mut judged_radios = HashSet::new();
    for field in controls_of(doc, form) {
        let Some(e) = doc.element(field) else { continue };
        if let Some(reason) = problem(doc, field, e, &mut judged_radios) {
            return Err(ActError::Invalid { node: field, reason });
        }
    }
    Ok(())
}

/// What makes one control invalid, if anything; `None` also for controls
/// barred from constraint validation (disabled, read-only, hidden,
/// buttons, in a `<datalist>`).
fn problem(doc: &Document, id: NodeId, e: &Element, judged_radios: &mut HashSet<NodeId>) -> Option<Invalid> {
    if e.is_html(&local_name!("button")) || is_disabled(doc, id) || in_datalist(doc, id) {
        return None;
    }
    let required = e.has_attr("required");
    if e.is_html(&local_name!("select")) {
        let selected = selected_options(doc, id);
        let placeholder = placeholder_option(doc, id, e);
        let missing = selected.is_empty() || (placeholder.is_some() && selected.iter().all(|&o| Some(o) == placeholder));
        return (required && missing).then_some(Invalid::Required);
    }
    let textarea = e.is_html(&local_name!("textarea"));
    let kind = if textarea { "textarea" } else { input_type(e) };
    if e.has_attr("readonly") && (textarea || TEXT_INPUTS.contains(&kind)) {
        return None;
    }
    match kind {
        "checkbox" => (required && !is_checked(doc, id)).then_some(Invalid::Required),
        "radio" => {
            if !judged_radios.insert(id) {
                return None;
            }
            let group = radio_group(doc, id);
            judged_radios.extend(group.iter().copied());
            let group_required = group.iter().any(|&r| doc.element(r).is_some_and(|re| re.has_attr("required")));
            let none_checked = !group.iter().any(|&r| is_checked(doc, r));
            (group_required && none_checked).then_some(Invalid::Required)
        }
        "file" => (required && doc.form_state().files(id).is_none_or(<[_]>::is_empty)).then_some(Invalid::Required),
        "textarea" => {
            let value = control_value(doc, id);
            if required && value.is_empty() {
                return Some(Invalid::Required);
            }
            length_problem(doc, id, e, &value)
        }
        k if TEXT_INPUTS.contains(&k) => {
            let value = field_value(doc, id, e, k);
            if value.is_empty() {
                return required.then_some(Invalid::Required);
            }
            let mismatch = match k {
                "email" if e.has_attr("multiple") => {
                    value.split(',').any(|v| !is_email(crate::text::trim_html(v))).then_some(Invalid::NotEmail)
                }
                "email" => (!is_email(&value)).then_some(Invalid::NotEmail),
                "url" => Url::parse(&value).is_err().then_some(Invalid::NotUrl),
                "number" => number_problem(e, &value),
                "date" | "month" | "week" | "time" | "datetime-local" => format_error(k, &value).map(Invalid::BadFormat),
                _ => None,
            };
            mismatch.or_else(|| if LENGTH_INPUTS.contains(&k) { length_problem(doc, id, e, &value) } else { None })
        }
        _ => None,
    }
}

/// A select's placeholder label option (HTML §4.10.7): with `required`, not
/// `multiple`, a display size of 1, its first option when that has an
/// empty value and sits directly in the select.
fn placeholder_option(doc: &Document, select: NodeId, e: &Element) -> Option<NodeId> {
    if !e.has_attr("required") || select_is_listbox(e) {
        return None;
    }
    let first = *select_options(doc, select).first()?;
    (doc.parent(first) == Some(select) && option_value(doc, first).is_empty()).then_some(first)
}

/// `minlength`/`maxlength`, judged only on what a person typed (HTML's
/// dirty value), as browsers do.
fn length_problem(doc: &Document, id: NodeId, e: &Element, value: &str) -> Option<Invalid> {
    doc.form_state().value(id)?;
    let len = utf16_len(value);
    if let Some(max) = e.attr("maxlength").and_then(non_negative_integer)
        && len > max
    {
        return Some(Invalid::TooLong(max));
    }
    if let Some(min) = e.attr("minlength").and_then(non_negative_integer)
        && len > 0
        && len < min
    {
        return Some(Invalid::TooShort(min));
    }
    None
}

/// A number field: not a number, below `min`, above `max`.
fn number_problem(e: &Element, value: &str) -> Option<Invalid> {
    if !is_valid_float(value) {
        return Some(Invalid::NotNumber);
    }
    let v = parse_float(value)?;
    let bound = |name: &str| e.attr(name).and_then(|b| parse_float(b).map(|n| (n, crate::text::trim_html(b).to_owned())));
    if let Some((min, text)) = bound("min")
        && v < min
    {
        return Some(Invalid::Underflow(text));
    }
    if let Some((max, text)) = bound("max")
        && v > max
    {
        return Some(Invalid::Overflow(text));
    }
    None
}

/// A "valid email address" (HTML §4.10.5.1.5): `local@domain`, the local
/// part of letters, digits and ``.!#$%&'*+/=?^_`{|}~-``, the domain of
/// dot-separated labels of letters, digits and inner hyphens (at most 63).
pub(crate) fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    let local_ok = !local.is_empty()
        && local.bytes().all(|b| b.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&b));
    local_ok
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Whether a date or time field's value is in its format (HTML §2.3.5);
/// `Some(format)` when it is not.
fn format_error(kind: &str, value: &str) -> Option<&'static str> {
    let ok = match kind {
        "date" => parse_date(value).is_some(),
        "month" => parse_month(value).is_some(),
        "week" => parse_week(value),
        "time" => parse_time(value),
        "datetime-local" => value
            .split_once(['T', ' '])
            .is_some_and(|(d, t)| parse_date(d).is_some() && parse_time(t)),
        _ => true,
    };
    if ok {
        return None;
    }
    Some(match kind {
        "date" => "YYYY-MM-DD",
        "month" => "YYYY-MM",
        "week" => "YYYY-Www",
        "time" => "HH:MM",
        _ => "YYYY-MM-DDTHH:MM",
    })
}

/// `n` ASCII digits exactly, as a number.
fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// A year: four or more digits, above zero.
fn year(s: &str) -> Option<u32> {
    (s.len() >= 4 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u32>().ok()).flatten().filter(|&y| y > 0)
}

/// `YYYY-MM`: (year, month).
fn parse_month(s: &str) -> Option<(u32, u32)> {
    let (y, m) = s.rsplit_once('-')?;
    let (y, m) = (year(y)?, digits(m, 2)?);
    (1..=12).contains(&m).then_some((y, m))
}

/// `YYYY-MM-DD`, with a day the month has.
fn parse_date(s: &str) -> Option<()> {
    let (ym, d) = s.rsplit_once('-')?;
    let (y, m) = parse_month(ym)?;
    let d = digits(d, 2)?;
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days).contains(&d).then_some(())
}

/// `YYYY-Www`, week 1 to 53.
fn parse_week(s: &str) -> bool {
    s.rsplit_once("-W").is_some_and(|(y, w)| year(y).is_some() && digits(w, 2).is_some_and(|w| (1..=53).contains(&w)))
}

/// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.s` (one to three fraction digits).
fn parse_time(s: &str) -> bool {
    let mut parts = s.splitn(3, ':');
    let (Some(h), Some(m)) = (parts.next(), parts.next()) else { return false };
    if !(digits(h, 2).is_some_and(|h| h < 24) && digits(m, 2).is_some_and(|m| m < 60)) {
        return false;
    }
    match parts.next() {
        None => true,
        Some(sec) => {
            let (whole, frac) = sec.split_once('.').map_or((sec, None), |(w, f)| (w, Some(f)));
            digits(whole, 2).is_some_and(|s| s < 60)
                && frac.is_none_or(|f| (1..=3).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()))
        }
    }
}
