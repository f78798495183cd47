//! States (WAI-ARIA 1.2 §6.6 and their HTML equivalents), in the order the
//! protocol prints them: `checked mixed disabled expanded collapsed selected
//! current pressed required invalid readonly`.

use html5ever::local_name;

use super::Semantics;
use crate::dom::form::{input_type, is_checked, is_disabled};
use super::role::Role;
use crate::dom::{Document, Element, NodeId};

/// A set of states.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct States(u16);

/// The states in protocol order with their names.
const NAMES: [(u16, &str); 11] = [
    (States::CHECKED.0, "checked"),
    (States::MIXED.0, "mixed"),
    (States::DISABLED.0, "disabled"),
    (States::EXPANDED.0, "expanded"),
    (States::COLLAPSED.0, "collapsed"),
    (States::SELECTED.0, "selected"),
    (States::CURRENT.0, "current"),
    (States::PRESSED.0, "pressed"),
    (States::REQUIRED.0, "required"),
    (States::INVALID.0, "invalid"),
    (States::READONLY.0, "readonly"),
];

impl States {
    /// Checked (checkbox, radio, switch, menu item).
    pub const CHECKED: States = States(1);
    /// Neither checked nor unchecked, or half pressed.
    pub const MIXED: States = States(1 << 1);
    /// Cannot be used.
    pub const DISABLED: States = States(1 << 2);
    /// What it controls is shown.
    pub const EXPANDED: States = States(1 << 3);
    /// What it controls is hidden.
    pub const COLLAPSED: States = States(1 << 4);
    /// Selected (option, tab, row, cell).
    pub const SELECTED: States = States(1 << 5);
    /// The current item (page, step, …).
    pub const CURRENT: States = States(1 << 6);
    /// A pressed toggle button.
    pub const PRESSED: States = States(1 << 7);
    /// Must be filled.
    pub const REQUIRED: States = States(1 << 8);
    /// Holds a value the page calls invalid.
    pub const INVALID: States = States(1 << 9);
    /// Can be read, not changed.
    pub const READONLY: States = States(1 << 10);

    /// Whether every state of `other` is set.
    pub fn contains(self, other: States) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no state is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn insert(&mut self, other: States) {
        self.0 |= other.0;
    }

    /// The names of the set states, in protocol order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        NAMES.into_iter().filter(move |(bit, _)| self.0 & bit != 0).map(|(_, name)| name)
    }
}

fn aria_true(e: &Element, attr: &str) -> bool {
    e.attr(attr).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

fn aria_token(e: &Element, attr: &str) -> Option<String> {
    e.attr(attr).map(|v| v.trim().to_ascii_lowercase()).filter(|v| !v.is_empty() && v != "undefined")
}

/// The states of one element.
pub(crate) fn compute_states(doc: &Document, sem: &Semantics, id: NodeId, e: &Element, role: Role) -> States {
    let mut s = States::default();
    let native_input = e.is_html(&local_name!("input"));
    let kind = if native_input { input_type(e) } else { "" };

    // checked / mixed
    if native_input && matches!(kind, "checkbox" | "radio") {
        if is_checked(doc, id) {
            s.insert(States::CHECKED);
        }
    } else if matches!(
        role,
        Role::Checkbox | Role::Radio | Role::Switch | Role::MenuItemCheckbox | Role::MenuItemRadio | Role::TreeItem
    ) {
        match aria_token(e, "aria-checked").as_deref() {
            Some("true") => s.insert(States::CHECKED),
            Some("mixed") if role != Role::Radio && role != Role::MenuItemRadio => s.insert(States::MIXED),
            _ => {}
        }
    }

    // disabled: native, or aria-disabled on it or an ancestor.
    if is_disabled(doc, id) || sem.is_aria_disabled(id) {
        s.insert(States::DISABLED);
    }

    // expanded / collapsed
    match aria_token(e, "aria-expanded").as_deref() {
        Some("true") => s.insert(States::EXPANDED),
        Some("false") => s.insert(States::COLLAPSED),
        _ => {
            if e.is_html(&local_name!("summary")) && role == Role::Button {
                let open = doc
                    .parent_element(id)
                    .and_then(|p| doc.element(p))
                    .is_some_and(|p| p.has_attr("open"));
                s.insert(if open { States::EXPANDED } else { States::COLLAPSED });
            }
        }
    }

    // selected
    if e.is_html(&local_name!("option")) {
        if sem.is_option_selected(doc, id) {
            s.insert(States::SELECTED);
        }
    } else if aria_true(e, "aria-selected") {
        s.insert(States::SELECTED);
    }

    // current
    if aria_token(e, "aria-current").is_some_and(|v| v != "false") {
        s.insert(States::CURRENT);
    }

    // pressed
    if role == Role::Button {
        match aria_token(e, "aria-pressed").as_deref() {
            Some("true") => s.insert(States::PRESSED),
            Some("mixed") => s.insert(States::MIXED),
            _ => {}
        }
    }

    // required
    let native_required = (native_input && !matches!(kind, "hidden" | "button" | "submit" | "reset" | "image" | "range" | "color"))
        || e.is_html(&local_name!("select"))
        || e.is_html(&local_name!("textarea"));
    if (native_required && e.has_attr("required")) || aria_true(e, "aria-required") {
        s.insert(States::REQUIRED);
    }

    // invalid
    if aria_token(e, "aria-invalid").is_some_and(|v| v != "false") {
        s.insert(States::INVALID);
    }

    // readonly
    let text_like = e.is_html(&local_name!("textarea"))
        || (native_input
            && matches!(
                kind,
                "text" | "search" | "url" | "tel" | "email" | "password" | "number" | "date" | "month" | "week"
                    | "time" | "datetime-local"
            ));
    if (text_like && e.has_attr("readonly")) || aria_true(e, "aria-readonly") {
        s.insert(States::READONLY);
    }
    s
}

/// The heading level: `aria-level` when valid, else `<hN>`'s N, else 2.
pub(crate) fn heading_level(e: &Element) -> u8 {
    if let Some(level) = e.attr("aria-level").and_then(|l| l.trim().parse::<u32>().ok()).filter(|&l| l >= 1) {
        return level.min(99) as u8;
    }
    match &*e.name.local {
        "h1" => 1,
        "h2" => 2,
        "h3" => 3,
        "h4" => 4,
        "h5" => 5,
        "h6" => 6,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_out_in_protocol_order() {
        let mut s = States::default();
        s.insert(States::READONLY);
        s.insert(States::CHECKED);
        s.insert(States::REQUIRED);
        assert_eq!(s.names().collect::<Vec<_>>(), ["checked", "required", "readonly"]);
    }
}
