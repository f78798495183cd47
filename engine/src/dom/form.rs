//! Form controls as HTML defines them (§4.10): input types, values,
//! checkedness, disabledness, select options and their selectedness, label
//! association, form owners. Current state comes from the document's
//! [`FormState`](crate::dom::FormState) first, the markup's defaults
//! second. Facts of the document itself, below every stage: selector
//! matching (`:checked`, `:disabled`, …), semantics and
//! [`act`](crate::act) all read them here.

use html5ever::local_name;

use crate::dom::{Document, Element, NodeId};
use crate::text::collapse_whitespace;

/// The state of an `<input>`'s `type` attribute (HTML §4.10.5): a known
/// keyword in lower case, `text` for anything else.
pub fn input_type(e: &Element) -> &'static str {
    const TYPES: [&str; 22] = [
        "hidden", "text", "search", "tel", "url", "email", "password", "date", "month", "week",
        "time", "datetime-local", "number", "range", "color", "checkbox", "radio", "file",
        "submit", "image", "reset", "button",
    ];
    match e.attr("type") {
        Some(t) => {
            let t = crate::text::trim_html(t);
            TYPES.iter().find(|k| k.eq_ignore_ascii_case(t)).copied().unwrap_or("text")
        }
        None => "text",
    }
}

/// Whether an element is a form control that is disabled (HTML §4.10.18.5):
/// its own `disabled`, or inside a disabled `<fieldset>` but not in that
/// fieldset's first `<legend>`; options also by their `<optgroup>`.
pub fn is_disabled(doc: &Document, id: NodeId) -> bool {
    let Some(e) = doc.element(id) else { return false };
    if !e.is_html_element() {
        return false;
    }
    match *e.local_name() {
        local_name!("option") => {
            e.has_attr("disabled")
                || doc
                    .parent_element(id)
                    .and_then(|p| doc.element(p))
                    .is_some_and(|p| p.is_html(&local_name!("optgroup")) && p.has_attr("disabled"))
        }
        local_name!("optgroup") => e.has_attr("disabled"),
        local_name!("button") | local_name!("input") | local_name!("select") | local_name!("textarea")
        | local_name!("fieldset") => {
            if e.has_attr("disabled") {
                return true;
            }
            let mut child = id;
            for a in doc.ancestors(id) {
                let Some(ae) = doc.element(a) else { break };
                if ae.is_html(&local_name!("fieldset")) && ae.has_attr("disabled") {
                    // Only the fieldset's first legend is exempt.
                    let in_first_legend = doc.element(child).is_some_and(|c| c.is_html(&local_name!("legend")))
                        && doc.is_first_of_its_kind(child, &local_name!("legend"));
                    if !in_first_legend {
                        return true;
                    }
                }
                child = a;
            }
            false
        }
        _ => false,
    }
}

/// Whether the element is a labelable control (HTML §4.10.2).
pub fn is_labelable(e: &Element) -> bool {
    e.is_html_element()
        && match *e.local_name() {
            local_name!("input") => input_type(e) != "hidden",
            local_name!("button") | local_name!("meter") | local_name!("output")
            | local_name!("progress") | local_name!("select") | local_name!("textarea") => true,
            _ => false,
        }
}

/// The control a `<label>` labels: its `for` target if that is labelable,
/// else (without `for`) its first labelable descendant.
pub fn labeled_control(doc: &Document, label: NodeId) -> Option<NodeId> {
    let e = doc.element(label)?;
    if let Some(target) = e.attr("for") {
        let id = doc.element_by_id(target)?;
        return doc.element(id).filter(|t| is_labelable(t)).map(|_| id);
    }
    doc.descendants(label).skip(1).find(|&d| doc.element(d).is_some_and(is_labelable))
}

/// The `<select>`'s options in tree order: children, and children of child
/// `<optgroup>`s.
pub fn select_options(doc: &Document, select: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    for c in doc.element_children(select) {
        let Some(e) = doc.element(c) else { continue };
        if e.is_html(&local_name!("option")) {
            out.push(c);
        } else if e.is_html(&local_name!("optgroup")) {
            out.extend(
                doc.element_children(c)
                    .filter(|&g| doc.element(g).is_some_and(|ge| ge.is_html(&local_name!("option")))),
            );
        }
    }
    out
}

/// Whether the `<select>` shows a list box rather than a drop-down.
pub fn select_is_listbox(e: &Element) -> bool {
    e.has_attr("multiple") || e.attr("size").and_then(|s| s.trim().parse::<u32>().ok()).is_some_and(|n| n > 1)
}

/// An option's selectedness before its select's rules apply: what a person
/// chose ([`FormState`](crate::dom::FormState)), else its `selected`
/// attribute.
pub fn option_selectedness(doc: &Document, option: NodeId) -> bool {
    doc.form_state()
        .selected(option)
        .unwrap_or_else(|| doc.element(option).is_some_and(|e| e.has_attr("selected")))
}

/// The selected options of a `<select>` (HTML §4.10.7 selectedness): those
/// a person chose, else those marked `selected`; for a drop-down, the last
/// of them, else the first enabled option.
pub fn selected_options(doc: &Document, select: NodeId) -> Vec<NodeId> {
    let Some(e) = doc.element(select) else { return Vec::new() };
    let options = select_options(doc, select);
    let marked: Vec<NodeId> = options.iter().copied().filter(|&o| option_selectedness(doc, o)).collect();
    if e.has_attr("multiple") {
        return marked;
    }
    if let Some(&last) = marked.last() {
        return vec![last];
    }
    if select_is_listbox(e) {
        return Vec::new();
    }
    options.into_iter().find(|&o| !is_disabled(doc, o)).into_iter().collect()
}

/// An option's label (HTML §4.10.10): its `label` attribute, else its text
/// with whitespace collapsed.
pub fn option_label(doc: &Document, option: NodeId) -> String {
    if let Some(label) = doc.element(option).and_then(|e| e.attr("label")).filter(|l| !l.is_empty()) {
        return label.to_owned();
    }
    collapse_whitespace(&doc.text_content(option))
}

/// An option's value (HTML §4.10.10): its `value` attribute, else its text
/// with whitespace stripped and collapsed.
pub fn option_value(doc: &Document, option: NodeId) -> String {
    match doc.element(option).and_then(|e| e.attr("value")) {
        Some(v) => v.to_owned(),
        None => collapse_whitespace(&doc.text_content(option)),
    }
}

/// The checkedness of a checkbox or radio button (HTML §4.10.5): what a
/// person made it ([`FormState`](crate::dom::FormState)), else its
/// `checked` attribute. False for every other element.
pub fn is_checked(doc: &Document, id: NodeId) -> bool {
    let Some(e) = doc.element(id) else { return false };
    e.is_html(&local_name!("input"))
        && matches!(input_type(e), "checkbox" | "radio")
        && doc.form_state().checked(id).unwrap_or_else(|| e.has_attr("checked"))
}

/// The current value of a control as a person sees it: the text in a text
/// field or textarea (what was typed, else the markup's default), the label
/// of the selected option(s) of a select (comma-joined), the value of a
/// range/number, the names of the files chosen; empty for buttons,
/// checkboxes and radios.
pub fn control_value(doc: &Document, id: NodeId) -> String {
    let Some(e) = doc.element(id) else { return String::new() };
    if !e.is_html_element() {
        return String::new();
    }
    let typed = doc.form_state().value(id);
    match *e.local_name() {
        local_name!("input") => match input_type(e) {
            "checkbox" | "radio" | "submit" | "reset" | "button" | "image" | "hidden" => String::new(),
            "file" => doc
                .form_state()
                .files(id)
                .unwrap_or_default()
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            "range" => range_value(e, typed.or(e.attr("value"))),
            "color" => typed.or(e.attr("value")).unwrap_or("#000000").to_owned(),
            _ => match typed {
                Some(v) => v.to_owned(),
                None => e.attr("value").map(|v| v.replace(['\r', '\n'], "")).unwrap_or_default(),
            },
        },
        local_name!("textarea") => match typed {
            Some(v) => v.to_owned(),
            None => doc.text_content(id),
        },
        local_name!("select") => selected_options(doc, id)
            .into_iter()
            .map(|o| option_label(doc, o))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// A range input's value (HTML §4.10.5.1.13): `value` (the current one)
/// when it is a valid number, clamped to `min`..`max`; else the midpoint.
fn range_value(e: &Element, value: Option<&str>) -> String {
    let num = |name: &str, default: f64| e.attr(name).and_then(parse_float).unwrap_or(default);
    let (min, max) = (num("min", 0.0), num("max", 100.0));
    let max = if max < min { min } else { max };
    let v = match value.and_then(parse_float) {
        Some(v) => v.clamp(min, max),
        None => min + (max - min) / 2.0,
    };
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// HTML's "rules for parsing floating-point number values" (§2.3.4.3): an
/// optional `-`, digits with an optional fraction, an optional exponent;
/// no `inf`, `nan` or `+`. Whatever follows the number is ignored.
pub fn parse_float(s: &str) -> Option<f64> {
    let s = s.trim_start_matches(crate::text::is_html_space);
    let bytes = s.as_bytes();
    let mut end = 0;
    if bytes.first() == Some(&b'-') {
        end = 1;
    }
    let int_start = end;
    while bytes.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    let mut digits = end > int_start;
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        digits = true;
    }
    if !digits {
        return None;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exp = end + 1;
        if matches!(bytes.get(exp), Some(b'+' | b'-')) {
            exp += 1;
        }
        if bytes.get(exp).is_some_and(u8::is_ascii_digit) {
            while bytes.get(exp).is_some_and(u8::is_ascii_digit) {
                exp += 1;
            }
            end = exp;
        }
    }
    s[..end].parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The form owner of a control (HTML §4.10.17.3): its `form` attribute's
/// target, else the form the parser associated it with (while both are in
/// one tree), else its nearest `<form>` ancestor.
pub fn form_owner(doc: &Document, id: NodeId) -> Option<NodeId> {
    let e = doc.element(id)?;
    if let Some(form) = e.attr("form") {
        return doc.element_by_id(form).filter(|&f| doc.element(f).is_some_and(|fe| fe.is_html(&local_name!("form"))));
    }
    if let Some(form) = doc.form_state().parser_owner(id)
        && root_of(doc, form) == root_of(doc, id)
        && doc.element(form).is_some_and(|fe| fe.is_html(&local_name!("form")))
    {
        return Some(form);
    }
    doc.ancestors(id).find(|&a| doc.element(a).is_some_and(|ae| ae.is_html(&local_name!("form"))))
}

/// The root of the tree holding `id` (the document when it is connected).
fn root_of(doc: &Document, id: NodeId) -> NodeId {
    doc.ancestors(id).last().unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_floats() {
        assert_eq!(parse_float("42"), Some(42.0));
        assert_eq!(parse_float(" -1.5e2px"), Some(-150.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("inf"), None);
        assert_eq!(parse_float("NaN"), None);
        assert_eq!(parse_float("+3"), None);
        assert_eq!(parse_float("1e999"), None);
        assert_eq!(parse_float(""), None);
    }

    #[test]
    fn range_values() {
        let doc = crate::parse(b"<input type=range id=a min=-inf max=inf><input type=range id=b value=150><input type=range id=c min=10 max=20>", &Default::default());
        let value = |id: &str| doc.element_by_id(id).map(|n| control_value(&doc, n)).unwrap_or_default();
        assert_eq!(value("a"), "50");
        assert_eq!(value("b"), "100");
        assert_eq!(value("c"), "15");
    }
}
