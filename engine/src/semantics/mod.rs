//! Stage 3, `compute_semantics`: roles, accessible names and descriptions,
//! values, states, heading levels and sensitive kinds, as a browser's
//! accessibility tree exposes them.
//!
//! Roles (and the ARIA-hidden/disabled flags that flow down the tree) are
//! computed for every element in one top-down pass, inertness in another
//! ([`Semantics::is_inert`]); names, values and states are computed on
//! demand per element ([`Semantics::ax_node`]), since most elements never
//! need one. Files: `role.rs` (HTML-AAM + WAI-ARIA roles),
//! `name.rs` (accname 1.2), `state.rs`, `sensitive.rs`; the facts of form
//! controls come from [`dom::form`](crate::dom::form), which the cascade
//! reads too.

pub(crate) mod name;
pub mod role;
pub mod sensitive;
pub mod state;

use std::collections::{HashMap, HashSet};

use html5ever::local_name;

use crate::dom::form;
use crate::dom::{Document, Element, NodeId};
use crate::safety::conceal::Concealment;
use crate::style::Styles;
use crate::text::{split_html_space, trim_html};
pub use name::range_value;
use name::Namer;
use role::{Context, Role, TableKind, compute_role, table_kind};
pub use sensitive::Sensitive;
pub use state::States;

const ARIA_HIDDEN: u8 = 1;
const ARIA_DISABLED: u8 = 2;
const INERT: u8 = 4;
/// In a hidden region that reads like instructions to an AI agent
/// (from [`Concealment::withheld`]).
const WITHHELD: u8 = 8;

/// Roles and inherited ARIA flags for every node, and each control's labels.
#[derive(Debug)]
pub struct Semantics {
    roles: Vec<Role>,
    flags: Vec<u8>,
    labels: HashMap<NodeId, Vec<NodeId>>,
    owns: HashMap<NodeId, Vec<NodeId>>,
    owned_by: HashMap<NodeId, NodeId>,
    /// The selected `<option>`s of every `<select>`.
    selected: HashSet<NodeId>,
}

/// Everything the accessibility tree says about one element.
#[derive(Debug, Clone, PartialEq)]
pub struct AxNode {
    /// Its role.
    pub role: Role,
    /// Accessible name.
    pub name: String,
    /// Accessible description.
    pub description: String,
    /// Current value (text in a field, selected option, range value);
    /// always empty for sensitive fields.
    pub value: String,
    /// States.
    pub states: States,
    /// Heading level (headings only).
    pub level: Option<u8>,
    /// What kind of secret the field holds, if any.
    pub sensitive: Option<Sensitive>,
    /// Whether it is hidden from the page (CSS) or from assistive
    /// technology (`aria-hidden`, `inert`).
    pub hidden: bool,
    /// Option labels of a combobox or listbox.
    pub options: Vec<String>,
}

/// Computes roles for a styled document.
///
/// ```
/// use whittle_engine::{parse, cascade, compute_semantics};
/// let doc = parse(b"<nav aria-label=Primary><a href=/>Home</a></nav>", &Default::default());
/// let styles = cascade(&doc, &Default::default());
/// let sem = compute_semantics(&doc, &styles, &Default::default());
/// let link = doc.descendants(doc.body().unwrap()).find(|&n| sem.role(n).as_str() == "link").unwrap();
/// assert_eq!(sem.ax_node(&doc, &styles, link).name, "Home");
/// ```
///
/// `conceal` is what the conceal stage found ([`crate::safety::conceal`]):
/// what it withholds is hidden here as `aria-hidden` is.
pub fn compute_semantics(doc: &Document, styles: &Styles, conceal: &Concealment) -> Semantics {
    let (owns, owned_by) = aria_owns(doc, styles);
    let mut roles = vec![Role::None; doc.len()];
    let mut flags = vec![0u8; doc.len()];
    let mut child_ctx: Vec<Context> = vec![Context::default(); doc.len()];
    let mut visited = vec![false; doc.len()];
    let mut labels: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut selected: HashSet<NodeId> = HashSet::new();

    // Walk the accessibility tree (the DOM with aria-owns applied) so that
    // owned elements take their owner's context.
    let mut stack: Vec<(NodeId, Option<NodeId>)> = vec![(NodeId::DOCUMENT, None)];
    while let Some((id, parent)) = stack.pop() {
        if visited[id.index()] {
            continue;
        }
        visited[id.index()] = true;
        visit(doc, id, parent, &mut roles, &mut flags, &mut child_ctx, &mut labels, &mut selected);
        let start = stack.len();
        for c in doc.children(id) {
            // Children owned through aria-owns come after the others.
            if !owned_by.contains_key(&c) {
                stack.push((c, Some(id)));
            }
        }
        if let Some(list) = owns.get(&id) {
            stack.extend(list.iter().map(|&c| (c, Some(id))));
        }
        stack[start..].reverse();
    }
    // Ownership cycles can leave nodes unreached: give them their DOM
    // parent's context.
    for id in doc.descendants(NodeId::DOCUMENT) {
        if !visited[id.index()] {
            visited[id.index()] = true;
            visit(doc, id, doc.parent(id), &mut roles, &mut flags, &mut child_ctx, &mut labels, &mut selected);
        }
    }
    mark_inert(doc, &mut flags);
    // Only a page with hidden instructions has anything withheld.
    if conceal.removed_instructions > 0 {
        for (i, f) in flags.iter_mut().enumerate() {
            if conceal.withheld(NodeId::from_index(i)) {
                *f |= WITHHELD;
            }
        }
    }
    Semantics { roles, flags, labels, owns, owned_by, selected }
}

/// Marks every node inside an `inert` subtree (HTML §6.3 "Inert
/// subtrees"): an HTML element with the attribute, whatever its value, and
/// everything under it in the DOM — inertness follows the document's tree,
/// not `aria-owns`. One pass in tree order: a node's parent is marked
/// before it.
///
/// A modal dialog (`showModal()`) makes the rest of the page inert too, but
/// only a script opens one: a `<dialog open>` in the markup is non-modal
/// and leaves its page alone. So on the static path only the attribute
/// counts; a page Chromium rendered is read from its DOM, where a modal
/// dialog's inertness is not an attribute either.
fn mark_inert(doc: &Document, flags: &mut [u8]) {
    for id in doc.descendants(NodeId::DOCUMENT) {
        let inherited = doc.parent(id).is_some_and(|p| flags[p.index()] & INERT != 0);
        let root = doc.element(id).is_some_and(|e| e.is_html_element() && e.has_attr("inert"));
        if inherited || root {
            flags[id.index()] |= INERT;
        }
    }
}

/// Computes one node's role, flags and the context its children get.
fn visit(
    doc: &Document,
    id: NodeId,
    parent: Option<NodeId>,
    roles: &mut [Role],
    flags: &mut [u8],
    child_ctx: &mut [Context],
    labels: &mut HashMap<NodeId, Vec<NodeId>>,
    selected: &mut HashSet<NodeId>,
) {
    let ctx = parent.map(|p| child_ctx[p.index()]).unwrap_or_default();
    let parent_flags = parent.map(|p| flags[p.index()]).unwrap_or(0);
    let Some(e) = doc.element(id) else {
        flags[id.index()] = parent_flags;
        child_ctx[id.index()] = ctx;
        return;
    };
    let mut f = parent_flags;
    if is_true(e, "aria-hidden") && !e.is_html(&local_name!("html")) && !e.is_html(&local_name!("body")) {
        f |= ARIA_HIDDEN;
    }
    if is_true(e, "aria-disabled") {
        f |= ARIA_DISABLED;
    }
    flags[id.index()] = f;

    let mut own_ctx = ctx;
    if e.is_html(&local_name!("table")) {
        own_ctx.table = Some(table_kind(doc, id, e));
    }
    let role = compute_role(doc, id, e, &own_ctx, &|with_title| author_named(doc, e, with_title));
    roles[id.index()] = role;

    if e.is_html(&local_name!("label"))
        && let Some(control) = form::labeled_control(doc, id)
    {
        labels.entry(control).or_default().push(id);
    }

    let mut next = own_ctx;
    if e.is_html(&local_name!("tr")) {
        next.row_has_td = doc.element_children(id).any(|c| doc.element(c).is_some_and(|ce| ce.is_html(&local_name!("td"))));
    }
    if e.is_html(&local_name!("select")) {
        selected.extend(form::selected_options(doc, id));
    }
    if !role.is_generic() {
        next.grandparent_role = ctx.parent_role;
        next.parent_role = Some(role);
    }
    match role {
        Role::Article | Role::Complementary | Role::Navigation | Role::Region => next.sectioning = Some(true),
        Role::Main => next.sectioning = Some(next.sectioning.unwrap_or(false)),
        Role::Generic if e.is_html(&local_name!("section")) || e.is_html(&local_name!("aside")) => {
            next.sectioning = Some(true)
        }
        Role::Table => next.table = Some(own_ctx.table.filter(|k| *k != TableKind::Layout).unwrap_or(TableKind::Data)),
        Role::Grid | Role::TreeGrid => next.table = Some(TableKind::Grid),
        _ => {}
    }
    if role.children_presentational() {
        next.presentational_children = true;
    }
    child_ctx[id.index()] = next;
}

/// `aria-owns` relations: owner → owned (in order) and owned → owner.
/// The first owner of an element wins; an element cannot own one of its
/// ancestors; hidden elements own nothing (WAI-ARIA 1.3: relations of
/// excluded elements are not resolved).
type Owns = (HashMap<NodeId, Vec<NodeId>>, HashMap<NodeId, NodeId>);

fn aria_owns(doc: &Document, styles: &Styles) -> Owns {
    let mut owns: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut owned_by: HashMap<NodeId, NodeId> = HashMap::new();
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(ids) = doc.element(id).and_then(|e| e.attr("aria-owns")) else { continue };
        let hidden = styles.hidden(id).is_some()
            || std::iter::once(id).chain(doc.ancestors(id)).any(|a| doc.element(a).is_some_and(|ae| is_true(ae, "aria-hidden")));
        if hidden {
            continue;
        }
        for token in split_html_space(ids) {
            let Some(target) = doc.element_by_id(token) else { continue };
            if target == id || owned_by.contains_key(&target) || doc.ancestors(id).any(|a| a == target) {
                continue;
            }
            owned_by.insert(target, id);
            owns.entry(id).or_default().push(target);
        }
    }
    (owns, owned_by)
}

fn is_true(e: &Element, attr: &str) -> bool {
    e.attr(attr).is_some_and(|v| trim_html(v).eq_ignore_ascii_case("true"))
}

/// Whether the author named the element (`aria-labelledby` with text,
/// `aria-label`, and, when `with_title`, `title`).
fn author_named(doc: &Document, e: &Element, with_title: bool) -> bool {
    let labelledby = e.attr("aria-labelledby").or_else(|| e.attr("aria-labeledby"));
    if let Some(ids) = labelledby {
        let named = split_html_space(ids)
            .take(32)
            .filter_map(|t| doc.element_by_id(t))
            .any(|r| has_text(doc, r) || has_label_attr(doc.element(r)));
        if named {
            return true;
        }
    }
    if e.attr("aria-label").is_some_and(|l| !trim_html(l).is_empty()) {
        return true;
    }
    with_title && e.attr("title").is_some_and(|t| !trim_html(t).is_empty())
}

/// The text under `id`, whitespace collapsed, cut at 4,000 bytes (values
/// and option labels are never shown longer).
fn bounded_text(doc: &Document, id: NodeId) -> String {
    const LIMIT: usize = 4_000;
    let mut out = String::new();
    for d in doc.descendants(id) {
        if let Some(t) = doc.text(d) {
            crate::text::push_collapsed(&mut out, t);
            if out.len() >= LIMIT {
                let mut cut = LIMIT;
                while !out.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.truncate(cut);
                break;
            }
        }
    }
    out.trim().to_owned()
}

/// Whether any text node under `id` holds a non-space character (looking
/// at no more than 1,000 nodes).
fn has_text(doc: &Document, id: NodeId) -> bool {
    doc.descendants(id).take(1_000).any(|d| doc.text(d).is_some_and(|t| !trim_html(t).is_empty()))
}

fn has_label_attr(e: Option<&Element>) -> bool {
    e.is_some_and(|e| e.attr("aria-label").is_some_and(|l| !trim_html(l).is_empty()) || e.has_attr("alt"))
}

impl Semantics {
    /// The computed role (`Role::None` for non-elements).
    #[inline]
    pub fn role(&self, id: NodeId) -> Role {
        self.roles[id.index()]
    }

    /// Whether the node is inside an `aria-hidden="true"` subtree.
    #[inline]
    pub fn is_aria_hidden(&self, id: NodeId) -> bool {
        self.flags[id.index()] & ARIA_HIDDEN != 0
    }

    /// Whether the node is inside an `inert` subtree. A person still sees
    /// inert content but cannot focus, click or edit any of it, and
    /// Chromium leaves it out of the accessibility tree (ignored, as
    /// "inert element" or "inert subtree"); whittle leaves it out of the
    /// semantic tree the same way. Names computed from content still take
    /// its text, as Chromium's do (only `aria-hidden` and CSS hiding keep
    /// text out of a name).
    #[inline]
    pub fn is_inert(&self, id: NodeId) -> bool {
        self.flags[id.index()] & INERT != 0
    }

    /// Whether the node is hidden from assistive technology: inside an
    /// `aria-hidden="true"` or an `inert` subtree.
    #[inline]
    pub fn is_ax_hidden(&self, id: NodeId) -> bool {
        self.flags[id.index()] & (ARIA_HIDDEN | INERT) != 0
    }

    #[inline]
    pub(crate) fn is_aria_disabled(&self, id: NodeId) -> bool {
        self.flags[id.index()] & ARIA_DISABLED != 0
    }

    /// Whether the node is hidden from a person or from assistive
    /// technology (`aria-hidden`, `inert`), or withheld from the model.
    pub fn is_hidden(&self, styles: &Styles, id: NodeId) -> bool {
        styles.hidden(id).is_some() || self.flags[id.index()] & (ARIA_HIDDEN | INERT | WITHHELD) != 0
    }

    /// A node's children in the accessibility tree: its DOM children
    /// (less those another element owns) and then what it owns through
    /// `aria-owns`.
    pub fn ax_children<'d>(&'d self, doc: &'d Document, id: NodeId) -> impl Iterator<Item = NodeId> + 'd {
        let owned: &[NodeId] = self.owns.get(&id).map(Vec::as_slice).unwrap_or(&[]);
        doc.children(id).filter(move |c| !self.owned_by.contains_key(c)).chain(owned.iter().copied())
    }

    /// Whether an `<option>` is selected (HTML selectedness, computed once
    /// per `<select>`).
    pub fn is_option_selected(&self, doc: &Document, id: NodeId) -> bool {
        if self.selected.contains(&id) {
            return true;
        }
        // Outside a select, an option is selected by its attribute.
        let in_select = doc.ancestors(id).take(2).any(|a| doc.element(a).is_some_and(|e| e.is_html(&local_name!("select"))));
        !in_select && doc.element(id).is_some_and(|e| e.has_attr("selected"))
    }

    /// The `<label>` elements of a control, in tree order.
    pub fn labels_of(&self, id: NodeId) -> &[NodeId] {
        self.labels.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Everything about one element. For many elements, use
    /// [`Semantics::namer`] and [`Semantics::ax_node_with`] to share the
    /// name computer.
    pub fn ax_node(&self, doc: &Document, styles: &Styles, id: NodeId) -> AxNode {
        let mut namer = self.namer(doc, styles);
        self.ax_node_with(&mut namer, doc, styles, id)
    }

    /// A name computer for this document.
    pub fn namer<'a>(&'a self, doc: &'a Document, styles: &'a Styles) -> NameComputer<'a> {
        NameComputer(Namer::new(doc, styles, self))
    }

    /// Everything about one element, with a shared name computer.
    pub fn ax_node_with(&self, namer: &mut NameComputer<'_>, doc: &Document, styles: &Styles, id: NodeId) -> AxNode {
        let role = self.role(id);
        let Some(e) = doc.element(id) else {
            return AxNode {
                role,
                name: String::new(),
                description: String::new(),
                value: String::new(),
                states: States::default(),
                level: None,
                sensitive: None,
                hidden: self.is_hidden(styles, id),
                options: Vec::new(),
            };
        };
        let name = namer.0.name(id);
        let description = namer.0.description(id, &name);
        let sensitive = sensitive::sensitive_kind(e, &name);
        let value = if sensitive.is_some() { String::new() } else { self.value(doc, id, e, role) };
        AxNode {
            role,
            states: state::compute_states(doc, self, id, e, role),
            level: (role == Role::Heading).then(|| state::heading_level(e)),
            sensitive,
            hidden: self.is_hidden(styles, id),
            options: self.options(doc, id, e, role),
            name,
            description,
            value,
        }
    }

    /// The value a person sees in a control.
    fn value(&self, doc: &Document, id: NodeId, e: &Element, role: Role) -> String {
        match role {
            Role::Textbox | Role::Searchbox | Role::Combobox | Role::Listbox => {
                if e.is_html(&local_name!("input")) || e.is_html(&local_name!("textarea")) || e.is_html(&local_name!("select")) {
                    form::control_value(doc, id)
                } else if role == Role::Listbox {
                    // An ARIA listbox: its selected options.
                    self.aria_options(doc, id)
                        .filter(|&d| {
                            doc.element(d).and_then(|o| o.attr("aria-selected")).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
                        })
                        .map(|d| bounded_text(doc, d))
                        .collect::<Vec<_>>()
                        .join(", ")
                } else {
                    // An ARIA textbox or combobox shows its text as its value.
                    bounded_text(doc, id)
                }
            }
            Role::Slider | Role::SpinButton | Role::ProgressBar | Role::Meter | Role::Scrollbar => {
                range_value(doc, id, e)
            }
            _ => String::new(),
        }
    }

    /// Option labels of a select, or the options an ARIA listbox owns.
    fn options(&self, doc: &Document, id: NodeId, e: &Element, role: Role) -> Vec<String> {
        match role {
            Role::Combobox | Role::Listbox if e.is_html(&local_name!("select")) => {
                form::select_options(doc, id).into_iter().map(|o| form::option_label(doc, o)).collect()
            }
            Role::Listbox => self.aria_options(doc, id).map(|d| bounded_text(doc, d)).collect(),
            _ => Vec::new(),
        }
    }

    /// The options an ARIA listbox holds (looking at no more than 10,000
    /// nodes, so nested listboxes cannot make this quadratic).
    fn aria_options<'d>(&'d self, doc: &'d Document, id: NodeId) -> impl Iterator<Item = NodeId> + 'd {
        doc.descendants(id).skip(1).take(10_000).filter(move |&d| self.role(d) == Role::Option)
    }

    /// A plain-text dump: each element with a role other than generic/none,
    /// indented by tree depth, with name, value and states.
    pub fn dump(&self, doc: &Document, styles: &Styles) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let mut namer = self.namer(doc, styles);
        let mut depth = 0usize;
        for edge in doc.traverse(NodeId::DOCUMENT) {
            match edge {
                crate::dom::Edge::Open(id) => {
                    if doc.element(id).is_none() {
                        continue;
                    }
                    depth += 1;
                    if self.role(id).is_generic() {
                        continue;
                    }
                    let ax = self.ax_node_with(&mut namer, doc, styles, id);
                    let _ = write!(out, "{}{}", " ".repeat(depth - 1), ax.role.as_str());
                    if !ax.name.is_empty() {
                        let _ = write!(out, " {:?}", ax.name);
                    }
                    if !ax.value.is_empty() {
                        let _ = write!(out, " = {:?}", ax.value);
                    }
                    for s in ax.states.names() {
                        let _ = write!(out, " {s}");
                    }
                    if ax.hidden {
                        out.push_str(" (hidden)");
                    }
                    out.push('\n');
                }
                crate::dom::Edge::Close(id) => {
                    if doc.element(id).is_some() {
                        depth -= 1;
                    }
                }
            }
        }
        out
    }
}

/// Computes accessible names for many elements of one document, with a
/// node budget per name so that hostile pages stay linear.
pub struct NameComputer<'a>(Namer<'a>);

impl std::fmt::Debug for NameComputer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameComputer")
    }
}

impl NameComputer<'_> {
    /// The accessible name of an element.
    pub fn name(&mut self, id: NodeId) -> String {
        self.0.name(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CascadeOptions, cascade, parse};

    /// (role, name, states) of every element with an id, in tree order.
    fn describe(html: &str) -> Vec<(String, String, String, Vec<&'static str>)> {
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let sem = compute_semantics(&doc, &styles, &Default::default());
        doc.descendants(NodeId::DOCUMENT)
            .filter_map(|id| {
                let e = doc.element(id)?;
                let key = e.attr("id")?.to_owned();
                let ax = sem.ax_node(&doc, &styles, id);
                Some((key, ax.role.as_str().to_owned(), ax.name, ax.states.names().collect()))
            })
            .collect()
    }

    fn role_of(html: &str, id: &str) -> String {
        describe(html).into_iter().find(|d| d.0 == id).map(|d| d.1).unwrap_or_default()
    }

    #[test]
    fn data_and_layout_tables() {
        let data = "<table id=t><tr><th id=h>A<th>B<tr><td id=c>1<td>2</table>";
        assert_eq!(role_of(data, "t"), "table");
        assert_eq!(role_of(data, "h"), "columnheader");
        assert_eq!(role_of(data, "c"), "cell");
        let layout = "<table id=t><tr><td id=c><p>nav</p><td><p>content</p></table>";
        assert_eq!(role_of(layout, "t"), "generic");
        assert_eq!(role_of(layout, "c"), "generic");
        let row_header = "<table><tr><th id=h>Name<td>x<tr><th>Age<td>y</table>";
        assert_eq!(role_of(row_header, "h"), "rowheader");
    }

    #[test]
    fn context_roles() {
        assert_eq!(role_of("<ul><div><li id=i>x</li></div></ul>", "i"), "listitem");
        assert_eq!(role_of("<li id=i>x</li>", "i"), "generic");
        assert_eq!(role_of("<header id=h>x</header>", "h"), "banner");
        assert_eq!(role_of("<article><header id=h>x</header></article>", "h"), "sectionheader");
        assert_eq!(role_of("<main><aside id=a>x</aside></main>", "a"), "complementary");
        assert_eq!(role_of("<section><aside id=a>x</aside></section>", "a"), "generic");
        assert_eq!(role_of("<select id=s><option>a</select>", "s"), "combobox");
        assert_eq!(role_of("<select id=s multiple><option>a</select>", "s"), "listbox");
        assert_eq!(role_of("<input id=i list=l>", "i"), "combobox");
        assert_eq!(role_of("<div role='bogus button link' id=d>x</div>", "d"), "button");
        assert_eq!(role_of("<h2 role=none id=h tabindex=0>x</h2>", "h"), "heading");
        assert_eq!(role_of("<div role=button><span role=button id=i>x</span></div>", "i"), "none");
    }

    #[test]
    fn names_states_and_summaries() {
        let html = r#"<details id=d><summary id=s>More</summary>x</details>
            <span id=lbl>Search</span><input id=q aria-labelledby="lbl q" value="lanterns">
            <button id=b aria-describedby=hint>Pay</button><p id=hint>Charged today</p>
            <input id=c type=checkbox aria-checked=mixed checked>"#;
        let d = describe(html);
        let get = |id: &str| d.iter().find(|x| x.0 == id).cloned().unwrap_or_default();
        assert_eq!(get("s").1, "button");
        assert_eq!(get("s").3, vec!["collapsed"]);
        assert_eq!(get("q").2, "Search lanterns");
        assert_eq!(get("c").3, vec!["checked"], "native checked wins over aria-checked");
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let sem = compute_semantics(&doc, &styles, &Default::default());
        let b = doc.element_by_id("b").unwrap_or(NodeId::DOCUMENT);
        assert_eq!(sem.ax_node(&doc, &styles, b).description, "Charged today");
    }

    #[test]
    fn inert_subtrees_are_hidden_from_assistive_technology() {
        let html = r#"<div id=region inert><p id=p>Seen <button id=pay>Pay</button></p>
              <svg id=svg><circle id=c /></svg></div>
            <button id=next>Next</button>
            <svg><g id=g inert><circle id=gc /></g></svg>
            <div id=owner inert aria-owns=owned></div><span id=owned>Owned</span>
            <span id=empty inert="">x</span><span id=any inert=false>x</span>"#;
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let sem = compute_semantics(&doc, &styles, &Default::default());
        let node = |id: &str| doc.element_by_id(id).unwrap_or(NodeId::DOCUMENT);
        for id in ["region", "p", "pay", "svg", "c", "owner", "empty", "any"] {
            assert!(sem.is_inert(node(id)), "{id} is inert");
            assert!(sem.is_hidden(&styles, node(id)), "{id} is hidden from the tree");
            assert!(sem.ax_node(&doc, &styles, node(id)).hidden, "{id}");
        }
        let text = doc.first_child(node("p")).unwrap_or(NodeId::DOCUMENT);
        assert!(sem.is_inert(text), "text under an inert element");
        // Only HTML elements are inert roots; `aria-owns` does not carry
        // inertness (it follows the DOM); a sibling is not touched.
        for id in ["next", "g", "gc", "owned"] {
            assert!(!sem.is_inert(node(id)), "{id} is not inert");
        }
        assert!(!sem.is_aria_hidden(node("pay")), "inert is not aria-hidden");
    }

    #[test]
    fn a_whole_inert_body_is_inert() {
        // Unlike `aria-hidden`, which `<body>` cannot take, `inert` on the
        // body makes the page inert (as in Chromium).
        let html = "<body inert><a id=a href=/>Home</a></body>";
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let sem = compute_semantics(&doc, &styles, &Default::default());
        assert!(sem.is_inert(doc.element_by_id("a").unwrap_or(NodeId::DOCUMENT)));
    }

    #[test]
    fn names_from_content_keep_inert_text() {
        // Chromium leaves inert content out of the tree but not out of
        // names: only `aria-hidden` and CSS hiding do that.
        let html = r#"<button id=b>Pay <span inert>now</span><span aria-hidden=true> (icon)</span></button>
            <div inert><label for=e>Email</label></div><input id=e>"#;
        let d = describe(html);
        let get = |id: &str| d.iter().find(|x| x.0 == id).cloned().unwrap_or_default();
        assert_eq!(get("b").2, "Pay now");
        assert_eq!(get("e").2, "Email");
    }

    #[test]
    fn name_computation_stays_bounded_on_hostile_nesting() {
        // 50,000 nested role=button spans: each name is bounded by the
        // recursion cap and the node budget, so this finishes quickly.
        let html = format!("{}x{}", "<span role=button>".repeat(50_000), "</span>".repeat(50_000));
        let doc = parse(html.as_bytes(), &Default::default());
        let styles = cascade(&doc, &CascadeOptions::default());
        let sem = compute_semantics(&doc, &styles, &Default::default());
        let first = doc.descendants(NodeId::DOCUMENT).find(|&n| sem.role(n) == Role::Button);
        let name = first.map(|n| sem.ax_node(&doc, &styles, n).name).unwrap_or_default();
        assert!(name.len() <= 4_000);
    }
}
