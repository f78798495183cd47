//! Roles: WAI-ARIA 1.2 explicit roles and the HTML-AAM mapping of every
//! element, including the context-dependent ones (header/footer in sections,
//! aside, section/form with and without a name, img with empty alt, input
//! types, select size/multiple, li outside a list, cells of data and layout
//! tables), resolved as Chromium's `computedRole` does.

use html5ever::{local_name, ns};

use crate::dom::form::{input_type, select_is_listbox};
use crate::dom::{Document, Element, NodeId};

macro_rules! roles {
    ($($variant:ident => $name:literal,)*) => {
        /// An accessibility role. [`Role::as_str`] gives the name Chromium's
        /// `computedRole` reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Role {
            $(
                #[doc = $name]
                $variant,
            )*
        }

        impl Role {
            /// The role's name as `computedRole` reports it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Role::$variant => $name,)*
                }
            }
        }
    };
}

roles! {
    Alert => "alert",
    AlertDialog => "alertdialog",
    Application => "application",
    Article => "article",
    Banner => "banner",
    Blockquote => "blockquote",
    Button => "button",
    Caption => "caption",
    Cell => "cell",
    Checkbox => "checkbox",
    Code => "code",
    ColumnHeader => "columnheader",
    Combobox => "combobox",
    Comment => "comment",
    Complementary => "complementary",
    ContentInfo => "contentinfo",
    Definition => "definition",
    Deletion => "deletion",
    Dialog => "dialog",
    Document => "document",
    Emphasis => "emphasis",
    Feed => "feed",
    Figure => "figure",
    Form => "form",
    Generic => "generic",
    Grid => "grid",
    GridCell => "gridcell",
    Group => "group",
    Heading => "heading",
    Image => "image",
    Insertion => "insertion",
    Link => "link",
    List => "list",
    Listbox => "listbox",
    ListItem => "listitem",
    Log => "log",
    Main => "main",
    Mark => "mark",
    Marquee => "marquee",
    Math => "math",
    Menu => "menu",
    Menubar => "menubar",
    MenuItem => "menuitem",
    MenuItemCheckbox => "menuitemcheckbox",
    MenuItemRadio => "menuitemradio",
    Meter => "meter",
    Navigation => "navigation",
    None => "none",
    Note => "note",
    Option => "option",
    Paragraph => "paragraph",
    ProgressBar => "progressbar",
    Radio => "radio",
    RadioGroup => "radiogroup",
    Region => "region",
    Row => "row",
    RowGroup => "rowgroup",
    RowHeader => "rowheader",
    Scrollbar => "scrollbar",
    Search => "search",
    Searchbox => "searchbox",
    SectionFooter => "sectionfooter",
    SectionHeader => "sectionheader",
    Separator => "separator",
    Slider => "slider",
    SpinButton => "spinbutton",
    Status => "status",
    Strong => "strong",
    Subscript => "subscript",
    Suggestion => "suggestion",
    Superscript => "superscript",
    Switch => "switch",
    Tab => "tab",
    Table => "table",
    TabList => "tablist",
    TabPanel => "tabpanel",
    Term => "term",
    Textbox => "textbox",
    Time => "time",
    Timer => "timer",
    Toolbar => "toolbar",
    Tooltip => "tooltip",
    Tree => "tree",
    TreeGrid => "treegrid",
    TreeItem => "treeitem",
    GraphicsDocument => "graphics-document",
    GraphicsObject => "graphics-object",
    GraphicsSymbol => "graphics-symbol",
    Iframe => "iframe",
}

impl Role {
    /// The page's frame around its content: navigation, banner, footer and
    /// complementary landmarks, dialogs, menus, toolbars and tab lists
    /// (what `read` mode, `extract list` and the main content leave out).
    pub fn is_page_frame(self) -> bool {
        matches!(
            self,
            Role::Navigation
                | Role::Banner
                | Role::ContentInfo
                | Role::Complementary
                | Role::Dialog
                | Role::AlertDialog
                | Role::Menu
                | Role::Menubar
                | Role::Toolbar
                | Role::TabList
        )
    }

    /// The role an ARIA `role` token names (ASCII case-insensitive);
    /// `None` for unknown and abstract roles.
    pub fn from_aria(token: &str) -> Option<Role> {
        let lower = token.to_ascii_lowercase();
        Some(match lower.as_str() {
            "alert" => Role::Alert,
            "alertdialog" => Role::AlertDialog,
            "application" => Role::Application,
            "article" => Role::Article,
            "banner" => Role::Banner,
            "blockquote" => Role::Blockquote,
            "button" => Role::Button,
            "caption" => Role::Caption,
            "cell" => Role::Cell,
            "checkbox" => Role::Checkbox,
            "code" => Role::Code,
            "columnheader" => Role::ColumnHeader,
            "combobox" => Role::Combobox,
            "comment" => Role::Comment,
            "complementary" => Role::Complementary,
            "contentinfo" => Role::ContentInfo,
            "definition" => Role::Definition,
            "deletion" => Role::Deletion,
            "dialog" => Role::Dialog,
            "directory" => Role::List,
            "document" => Role::Document,
            "emphasis" => Role::Emphasis,
            "feed" => Role::Feed,
            "figure" => Role::Figure,
            "form" => Role::Form,
            "generic" => Role::Generic,
            "grid" => Role::Grid,
            "gridcell" => Role::GridCell,
            "group" => Role::Group,
            "heading" => Role::Heading,
            "img" | "image" => Role::Image,
            "insertion" => Role::Insertion,
            "link" => Role::Link,
            "list" => Role::List,
            "listbox" => Role::Listbox,
            "listitem" => Role::ListItem,
            "log" => Role::Log,
            "main" => Role::Main,
            "mark" => Role::Mark,
            "marquee" => Role::Marquee,
            "math" => Role::Math,
            "menu" => Role::Menu,
            "menubar" => Role::Menubar,
            "menuitem" => Role::MenuItem,
            "menuitemcheckbox" => Role::MenuItemCheckbox,
            "menuitemradio" => Role::MenuItemRadio,
            "meter" => Role::Meter,
            "navigation" => Role::Navigation,
            "none" | "presentation" => Role::None,
            "note" => Role::Note,
            "option" => Role::Option,
            "paragraph" => Role::Paragraph,
            "progressbar" => Role::ProgressBar,
            "radio" => Role::Radio,
            "radiogroup" => Role::RadioGroup,
            "region" => Role::Region,
            "row" => Role::Row,
            "rowgroup" => Role::RowGroup,
            "rowheader" => Role::RowHeader,
            "scrollbar" => Role::Scrollbar,
            "search" => Role::Search,
            "searchbox" => Role::Searchbox,
            "separator" => Role::Separator,
            "slider" => Role::Slider,
            "spinbutton" => Role::SpinButton,
            "status" => Role::Status,
            "strong" => Role::Strong,
            "subscript" => Role::Subscript,
            "suggestion" => Role::Suggestion,
            "superscript" => Role::Superscript,
            "switch" => Role::Switch,
            "tab" => Role::Tab,
            "table" => Role::Table,
            "tablist" => Role::TabList,
            "tabpanel" => Role::TabPanel,
            "term" => Role::Term,
            "textbox" => Role::Textbox,
            "time" => Role::Time,
            "timer" => Role::Timer,
            "toolbar" => Role::Toolbar,
            "tooltip" => Role::Tooltip,
            "tree" => Role::Tree,
            "treegrid" => Role::TreeGrid,
            "treeitem" => Role::TreeItem,
            "graphics-document" => Role::GraphicsDocument,
            "graphics-object" => Role::GraphicsObject,
            "graphics-symbol" => Role::GraphicsSymbol,
            _ => return None,
        })
    }

    /// Whether the role carries no semantics of its own.
    pub fn is_generic(self) -> bool {
        matches!(self, Role::Generic | Role::None)
    }

    /// Landmark roles (WAI-ARIA 1.2 §5.3.4).
    pub fn is_landmark(self) -> bool {
        matches!(
            self,
            Role::Banner
                | Role::ContentInfo
                | Role::Navigation
                | Role::Main
                | Role::Complementary
                | Role::Search
                | Role::Region
                | Role::Form
        )
    }

    /// Roles a person acts on: these get refs.
    pub fn is_interactive(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Link
                | Role::Checkbox
                | Role::Radio
                | Role::Switch
                | Role::Textbox
                | Role::Searchbox
                | Role::Combobox
                | Role::Listbox
                | Role::Option
                | Role::Slider
                | Role::SpinButton
                | Role::Scrollbar
                | Role::Tab
                | Role::MenuItem
                | Role::MenuItemCheckbox
                | Role::MenuItemRadio
                | Role::TreeItem
                | Role::GridCell
        )
    }

    /// Roles whose name may come from their content (accname 1.2 §4.3
    /// step 2F, WAI-ARIA "Name From: contents").
    pub fn name_from_content(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Cell
                | Role::Checkbox
                | Role::ColumnHeader
                | Role::GridCell
                | Role::Heading
                | Role::Link
                | Role::MenuItem
                | Role::MenuItemCheckbox
                | Role::MenuItemRadio
                | Role::Option
                | Role::Radio
                | Role::Row
                | Role::RowHeader
                | Role::Switch
                | Role::Tab
                | Role::Tooltip
                | Role::TreeItem
        )
    }

    /// Roles whose descendants are presentational (WAI-ARIA 1.2
    /// "Children Presentational: True").
    pub fn children_presentational(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Checkbox
                | Role::Image
                | Role::Meter
                | Role::ProgressBar
                | Role::Radio
                | Role::Scrollbar
                | Role::Separator
                | Role::Slider
                | Role::Switch
                | Role::Tab
                | Role::MenuItemCheckbox
                | Role::MenuItemRadio
                | Role::GraphicsSymbol
        )
    }

    /// Controls whose value stands in for them inside another element's
    /// name (accname 1.2 step 2E, "embedded control").
    pub fn is_embedded_control(self) -> bool {
        matches!(
            self,
            Role::Textbox
                | Role::Searchbox
                | Role::Combobox
                | Role::Listbox
                | Role::Slider
                | Role::SpinButton
                | Role::ProgressBar
                | Role::Meter
                | Role::Scrollbar
        )
    }

    /// Roles for which a name is prohibited (WAI-ARIA 1.2): Chromium still
    /// reports `aria-label` on them, but never names them from content.
    pub fn name_prohibited(self) -> bool {
        matches!(
            self,
            Role::Caption
                | Role::Code
                | Role::Deletion
                | Role::Emphasis
                | Role::Generic
                | Role::Insertion
                | Role::Paragraph
                | Role::None
                | Role::Strong
                | Role::Subscript
                | Role::Superscript
                | Role::Term
                | Role::Time
                | Role::Mark
                | Role::Definition
        )
    }
}

/// Facts about a node's ancestors that context-dependent roles need,
/// computed top-down once per document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Context {
    /// The role of the nearest ancestor that is not generic/none.
    pub(crate) parent_role: Option<Role>,
    /// The nearest sectioning ancestor for header/footer/aside purposes:
    /// `Some(true)` for article/aside/nav/section (and their roles),
    /// `Some(false)` for main.
    pub(crate) sectioning: Option<bool>,
    /// The kind of the nearest table ancestor.
    pub(crate) table: Option<TableKind>,
    /// Inside an element whose children are presentational.
    pub(crate) presentational_children: bool,
    /// Inside an element with a (non-presentational) listbox/menu/… role
    /// that owns options/items through a group.
    pub(crate) grandparent_role: Option<Role>,
    /// The table row this is in has a `<td>` (decides `th` row headers;
    /// computed once per row).
    pub(crate) row_has_td: bool,
}

/// Whether a table holds data or lays out the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableKind {
    Data,
    Grid,
    Layout,
}

/// Global ARIA states and properties: any of them on an element with role
/// `none` makes the role conflict and be ignored (WAI-ARIA 1.2 §9.3).
fn has_global_aria(e: &Element) -> bool {
    const GLOBAL: [&str; 19] = [
        "aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby",
        "aria-description", "aria-details", "aria-disabled", "aria-dropeffect",
        "aria-errormessage", "aria-flowto", "aria-grabbed", "aria-haspopup", "aria-invalid",
        "aria-keyshortcuts", "aria-label", "aria-labelledby", "aria-live", "aria-owns",
    ];
    GLOBAL.iter().any(|a| e.has_attr(a)) || e.has_attr("aria-relevant") || e.has_attr("aria-roledescription")
}

/// Whether the element can take focus (roughly HTML's focusable areas).
pub(crate) fn is_focusable(doc: &Document, id: NodeId, e: &Element) -> bool {
    if e.attr("tabindex").is_some_and(|t| t.trim().parse::<i32>().is_ok()) {
        return true;
    }
    if e.attr("contenteditable").is_some_and(|v| !v.eq_ignore_ascii_case("false")) {
        return true;
    }
    if !e.is_html_element() {
        return false;
    }
    match *e.local_name() {
        local_name!("a") | local_name!("area") => e.has_attr("href"),
        local_name!("button") | local_name!("select") | local_name!("textarea") => {
            !crate::dom::form::is_disabled(doc, id)
        }
        local_name!("input") => input_type(e) != "hidden" && !crate::dom::form::is_disabled(doc, id),
        local_name!("summary") => true,
        local_name!("iframe") => true,
        _ => false,
    }
}

/// Whether a required-context role sits in its required context.
fn in_required_context(doc: &Document, id: NodeId, role: Role, ctx: &Context) -> bool {
    let parent = ctx.parent_role;
    let is = |roles: &[Role]| parent.is_some_and(|p| roles.contains(&p));
    match role {
        Role::ListItem => is(&[Role::List]),
        Role::Option => is(&[Role::Listbox, Role::Combobox])
            || (is(&[Role::Group]) && ctx.grandparent_role == Some(Role::Listbox)),
        Role::MenuItem | Role::MenuItemCheckbox | Role::MenuItemRadio => {
            is(&[Role::Menu, Role::Menubar, Role::Group])
        }
        Role::Tab => is(&[Role::TabList]),
        Role::TreeItem => is(&[Role::Tree, Role::Group]),
        Role::Row => is(&[Role::Table, Role::Grid, Role::TreeGrid, Role::RowGroup]),
        // Chromium keeps a row group that holds rows even outside a table.
        Role::RowGroup => is(&[Role::Table, Role::Grid, Role::TreeGrid]) || has_child_with_role(doc, id, "row"),
        Role::Cell | Role::GridCell | Role::ColumnHeader | Role::RowHeader => {
            is(&[Role::Row, Role::RowGroup, Role::Grid, Role::TreeGrid, Role::Table])
        }
        Role::Caption => is(&[Role::Figure, Role::Grid, Role::Table, Role::TreeGrid]),
        _ => true,
    }
}

fn has_child_with_role(doc: &Document, id: NodeId, role: &str) -> bool {
    doc.element_children(id).any(|c| {
        doc.element(c)
            .and_then(|ce| ce.attr("role"))
            .is_some_and(|r| crate::text::split_html_space(r).next().is_some_and(|t| t.eq_ignore_ascii_case(role)))
    })
}

/// Attributes that make a generic element at least a `group` (HTML-AAM
/// "minimum role"), and that, like global ARIA attributes, override
/// `role=none`.
fn needs_minimum_role(e: &Element) -> bool {
    e.has_attr("draggable") || e.has_attr("autofocus") || e.has_attr("popover")
}

/// The role of an element. `has_name` tells whether it has an accessible
/// name from its author (`aria-label`, `aria-labelledby`, `title`), which
/// decides section/form/aside/img roles.
pub(crate) fn compute_role(
    doc: &Document,
    id: NodeId,
    e: &Element,
    ctx: &Context,
    has_author_name: &dyn Fn(bool) -> bool,
) -> Role {
    let focusable_or_global = || is_focusable(doc, id, e) || has_global_aria(e) || needs_minimum_role(e);
    if ctx.presentational_children && !is_focusable(doc, id, e) {
        return Role::None;
    }
    let mut orphaned = false;
    if let Some(roles) = e.attr("role") {
        for token in crate::text::split_html_space(roles) {
            let Some(role) = Role::from_aria(token) else { continue };
            if role == Role::None {
                // Presentational role conflict resolution (WAI-ARIA 1.2 §9.3).
                if focusable_or_global() {
                    break;
                }
                return Role::None;
            }
            if !in_required_context(doc, id, role, ctx) {
                orphaned = true;
                break;
            }
            // Landmarks that need a name are not landmarks without one.
            if matches!(role, Role::Form | Role::Region) && !has_author_name(true) {
                break;
            }
            if role == Role::Generic {
                break;
            }
            return role;
        }
    }
    let native = native_role(doc, id, e, ctx, has_author_name);
    if native == Role::Generic {
        if needs_minimum_role(e) {
            return Role::Group;
        }
        // A role used outside its required context is ignored; with nothing
        // underneath, the element has no role at all.
        if orphaned {
            return Role::None;
        }
    }
    native
}

/// HTML-AAM's mapping for an element without a (usable) explicit role.
fn native_role(doc: &Document, id: NodeId, e: &Element, ctx: &Context, has_author_name: &dyn Fn(bool) -> bool) -> Role {
    if e.name.ns == ns!(svg) {
        return svg_role(doc, id, e, has_author_name);
    }
    if e.name.ns == ns!(mathml) {
        return if e.local_name() == &local_name!("math") { Role::Math } else { Role::Generic };
    }
    if e.name.ns != ns!(html) {
        return Role::Generic;
    }
    match *e.local_name() {
        local_name!("a") | local_name!("area") => {
            if e.has_attr("href") || (e.is_html(&local_name!("area")) && e.has_attr("onclick")) {
                Role::Link
            } else {
                Role::Generic
            }
        }
        local_name!("address") => Role::Group,
        local_name!("article") => Role::Article,
        local_name!("aside") => {
            if ctx.sectioning == Some(true) && !has_author_name(true) {
                Role::Generic
            } else {
                Role::Complementary
            }
        }
        local_name!("blockquote") => Role::Blockquote,
        local_name!("button") => Role::Button,
        local_name!("caption") => Role::Caption,
        local_name!("code") => Role::Code,
        local_name!("datalist") => Role::Listbox,
        local_name!("dd") => Role::Definition,
        local_name!("del") | local_name!("s") => Role::Deletion,
        local_name!("details") => Role::Group,
        local_name!("dfn") | local_name!("dt") => Role::Term,
        local_name!("dialog") => Role::Dialog,
        local_name!("dir") | local_name!("menu") | local_name!("ol") | local_name!("ul") => Role::List,
        local_name!("dl") => Role::List,
        local_name!("em") => Role::Emphasis,
        local_name!("fieldset") => Role::Group,
        local_name!("figure") => Role::Figure,
        local_name!("footer") => match ctx.sectioning {
            Some(_) => Role::SectionFooter,
            None => Role::ContentInfo,
        },
        local_name!("form") => {
            if has_author_name(true) {
                Role::Form
            } else {
                Role::Generic
            }
        }
        local_name!("h1") | local_name!("h2") | local_name!("h3") | local_name!("h4") | local_name!("h5")
        | local_name!("h6") => Role::Heading,
        local_name!("header") => match ctx.sectioning {
            Some(_) => Role::SectionHeader,
            None => Role::Banner,
        },
        local_name!("hgroup") => Role::Group,
        local_name!("hr") => Role::Separator,
        local_name!("iframe") | local_name!("frame") => Role::Iframe,
        local_name!("img") => img_role(e, has_author_name),
        local_name!("input") => input_role(e),
        local_name!("ins") => Role::Insertion,
        local_name!("li") => {
            if ctx.parent_role == Some(Role::List) {
                Role::ListItem
            } else {
                Role::Generic
            }
        }
        local_name!("main") => Role::Main,
        local_name!("mark") => Role::Mark,
        local_name!("math") => Role::Math,
        local_name!("meter") => Role::Meter,
        local_name!("nav") => Role::Navigation,
        local_name!("optgroup") => Role::Group,
        local_name!("option") => Role::Option,
        local_name!("output") => Role::Status,
        local_name!("p") => Role::Paragraph,
        local_name!("progress") => Role::ProgressBar,
        local_name!("search") => Role::Search,
        local_name!("section") => {
            if has_author_name(true) {
                Role::Region
            } else {
                Role::Generic
            }
        }
        local_name!("select") => {
            if select_is_listbox(e) {
                Role::Listbox
            } else {
                Role::Combobox
            }
        }
        local_name!("strong") => Role::Strong,
        local_name!("sub") => Role::Subscript,
        local_name!("summary") => summary_role(doc, id),
        local_name!("sup") => Role::Superscript,
        local_name!("svg") => Role::GraphicsDocument,
        local_name!("table") => match ctx.table {
            // `ctx.table` here is the kind of this very table (see
            // `table_kind`), set by the caller.
            Some(TableKind::Grid) => Role::Grid,
            Some(TableKind::Layout) => Role::Generic,
            _ => Role::Table,
        },
        local_name!("tbody") | local_name!("thead") | local_name!("tfoot") => match ctx.table {
            Some(TableKind::Layout) | None => Role::Generic,
            _ => Role::RowGroup,
        },
        local_name!("tr") => match ctx.table {
            Some(TableKind::Layout) | None => Role::Generic,
            _ => Role::Row,
        },
        local_name!("td") => match ctx.table {
            Some(TableKind::Data) => Role::Cell,
            Some(TableKind::Grid) => Role::GridCell,
            _ => Role::Generic,
        },
        local_name!("th") => match ctx.table {
            Some(TableKind::Data) | Some(TableKind::Grid) => th_role(doc, id, e, ctx.row_has_td),
            _ => Role::Generic,
        },
        local_name!("textarea") => Role::Textbox,
        local_name!("time") => Role::Time,
        _ => Role::Generic,
    }
}

fn img_role(e: &Element, has_author_name: &dyn Fn(bool) -> bool) -> Role {
    match e.attr("alt") {
        Some("") => {
            if has_author_name(false) {
                Role::Image
            } else {
                Role::None
            }
        }
        Some(_) => Role::Image,
        None => {
            let has_source = e.attr("src").is_some_and(|s| !s.is_empty())
                || e.attr("srcset").is_some_and(|s| !s.is_empty());
            if has_source || has_author_name(true) { Role::Image } else { Role::Generic }
        }
    }
}

fn input_role(e: &Element) -> Role {
    let has_list = e.has_attr("list");
    match input_type(e) {
        "button" | "submit" | "reset" | "image" | "file" => Role::Button,
        "checkbox" => {
            if e.has_attr("switch") {
                Role::Switch
            } else {
                Role::Checkbox
            }
        }
        "radio" => Role::Radio,
        "range" => Role::Slider,
        "number" => Role::SpinButton,
        "search" => {
            if has_list {
                Role::Combobox
            } else {
                Role::Searchbox
            }
        }
        "hidden" => Role::None,
        "color" => Role::Button,
        "text" | "email" | "tel" | "url" => {
            if has_list {
                Role::Combobox
            } else {
                Role::Textbox
            }
        }
        _ => Role::Textbox,
    }
}

/// `<summary>`: the disclosure button of its `<details>` when it is that
/// details' first summary child; generic otherwise (HTML-AAM).
fn summary_role(doc: &Document, id: NodeId) -> Role {
    let Some(parent) = doc.parent_element(id) else { return Role::Generic };
    if !doc.element(parent).is_some_and(|p| p.is_html(&local_name!("details"))) {
        return Role::Generic;
    }
    // The first summary child: no summary before it. The backward scan
    // stops at the previous summary, so each sibling is scanned once.
    if doc.is_first_of_its_kind(id, &local_name!("summary")) { Role::Button } else { Role::Generic }
}

/// `<th>`: a column header unless its scope or position says row header.
fn th_role(doc: &Document, id: NodeId, e: &Element, row_has_td: bool) -> Role {
    match e.attr("scope").map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("row") | Some("rowgroup") => return Role::RowHeader,
        Some("col") | Some("colgroup") => return Role::ColumnHeader,
        _ => {}
    }
    let Some(row) = doc.parent_element(id) else { return Role::ColumnHeader };
    let in_thead = doc
        .parent_element(row)
        .and_then(|g| doc.element(g))
        .is_some_and(|g| g.is_html(&local_name!("thead")));
    if in_thead {
        return Role::ColumnHeader;
    }
    // A header cell in a row that also has data cells is a row header.
    if row_has_td { Role::RowHeader } else { Role::ColumnHeader }
}

/// SVG-AAM: shapes and groups are generic unless named; `<a>` is a link,
/// `<image>` an image.
fn svg_role(doc: &Document, id: NodeId, e: &Element, has_author_name: &dyn Fn(bool) -> bool) -> Role {
    let named = || has_author_name(true) || svg_title(doc, id).is_some();
    match &*e.name.local {
        "svg" => Role::GraphicsDocument,
        "a" => {
            if e.has_attr("href") || e.attrs.iter().any(|a| &*a.name.local == "href") {
                Role::Link
            } else {
                Role::Group
            }
        }
        "g" => {
            if named() {
                Role::Group
            } else {
                Role::Generic
            }
        }
        // An `<image>` is an image unless an empty `<title>` says it is
        // decorative (SVG-AAM, as browsers do it).
        "image" => {
            let empty_title = doc.element_children(id).any(|c| {
                doc.element(c).is_some_and(|ce| &*ce.name.local == "title") && doc.text_content(c).trim().is_empty()
            });
            if empty_title && !has_author_name(true) { Role::Generic } else { Role::Image }
        }
        "circle" | "ellipse" | "line" | "path" | "polygon" | "polyline" | "rect" | "use" => {
            if named() {
                Role::GraphicsSymbol
            } else {
                Role::Generic
            }
        }
        "text" | "textPath" | "tspan" => Role::Generic,
        "title" | "desc" | "defs" | "style" | "script" | "linearGradient" | "radialGradient"
        | "clipPath" | "mask" | "pattern" | "symbol" | "marker" | "filter" | "metadata" => Role::None,
        _ => Role::Generic,
    }
}

/// The text of an SVG element's `<title>` child, if it has one.
pub(crate) fn svg_title(doc: &Document, id: NodeId) -> Option<String> {
    let title = doc.element_children(id).find(|&c| {
        doc.element(c).is_some_and(|ce| ce.name.ns == ns!(svg) && &*ce.name.local == "title")
    })?;
    let text = crate::text::collapse_whitespace(&doc.text_content(title));
    (!text.is_empty()).then_some(text)
}

/// Chromium's data-table heuristic (`AXLayoutObject::IsDataTable`, reduced
/// to what markup shows): explicit table roles, captions, headers, summary,
/// `th`/`scope`/`headers`, borders, or many rows mean data; a single row or
/// column, or cells holding tables, mean layout.
pub(crate) fn table_kind(doc: &Document, table: NodeId, e: &Element) -> TableKind {
    if let Some(roles) = e.attr("role") {
        for t in crate::text::split_html_space(roles) {
            match Role::from_aria(t) {
                Some(Role::Grid) | Some(Role::TreeGrid) => return TableKind::Grid,
                Some(Role::Table) => return TableKind::Data,
                Some(Role::None) => return TableKind::Layout,
                _ => {}
            }
        }
    }
    if e.has_attr("summary") || e.attr("border").is_some_and(|b| b.trim() != "0") {
        return TableKind::Data;
    }
    let mut rows = 0usize;
    let mut max_cols = 0usize;
    let mut data_signals = false;
    let mut nested_table = false;
    for section in doc.element_children(table) {
        let Some(se) = doc.element(section) else { continue };
        match &*se.name.local {
            "caption" | "thead" | "tfoot" | "colgroup" | "col" => data_signals = true,
            _ => {}
        }
        let row_iter: Vec<NodeId> = if se.is_html(&local_name!("tr")) {
            vec![section]
        } else if matches!(&*se.name.local, "tbody" | "thead" | "tfoot") {
            doc.element_children(section).collect()
        } else {
            Vec::new()
        };
        for row in row_iter {
            if !doc.element(row).is_some_and(|r| r.is_html(&local_name!("tr"))) {
                continue;
            }
            rows += 1;
            let mut cols = 0;
            for cell in doc.element_children(row) {
                let Some(ce) = doc.element(cell) else { continue };
                if ce.is_html(&local_name!("th")) || ce.has_attr("scope") || ce.has_attr("headers") || ce.has_attr("abbr") {
                    data_signals = true;
                }
                if ce.is_html(&local_name!("td")) || ce.is_html(&local_name!("th")) {
                    cols += 1;
                    if !nested_table
                        && doc.descendants(cell).skip(1).any(|d| doc.element(d).is_some_and(|de| de.is_html(&local_name!("table"))))
                    {
                        nested_table = true;
                    }
                }
            }
            max_cols = max_cols.max(cols);
            if rows > 20 && data_signals {
                break;
            }
        }
    }
    if data_signals {
        return TableKind::Data;
    }
    if nested_table || rows <= 1 || max_cols <= 1 {
        return TableKind::Layout;
    }
    if rows >= 20 { TableKind::Data } else { TableKind::Layout }
}
