//! Stage 4, `build_tree`: the semantic tree a model reads, built from the
//! Document, its Styles and its Semantics.
//!
//! What happens to each element:
//! - hidden (CSS or `aria-hidden`) or inert (`inert`: seen, but nothing
//!   of it can be used, and Chromium's accessibility tree leaves it out):
//!   dropped and counted;
//! - a control, link, image or frame: one *widget* in the current line
//!   (its own line when its box is block-level); its content is its name;
//! - a landmark, list, table, dialog, named group, …: a *container* item
//!   with its own line and its content one level deeper;
//! - a heading, live region or table row: one line of its own;
//! - a list item: `- a · b` (its simple lines joined), nested structure
//!   below it;
//! - any other block box: a line break; any other inline box: nothing (its
//!   text flows into the current line, so inline runs stay on one line).
//!
//! Generic wrappers therefore add no depth. Labels, legends, captions and
//! figcaptions whose text became the name of what they label are not
//! repeated. Refs are assigned at the end, in tree order, to what can be
//! acted on or expanded. The walk is iterative.

mod build;
pub mod refs;
pub mod signature;

use crate::dom::{Document, NodeId};
use crate::safety::conceal::Concealment;
use crate::semantics::{Semantics, Sensitive, States, role::Role};
use crate::style::Styles;
pub use build::container_role;
pub use refs::RefTable;

/// Index of an item in [`AxTree::items`].
pub type ItemId = usize;

/// Something shown with a role: a control, link, image, frame, or the head
/// of a container.
#[derive(Debug, Clone, PartialEq)]
pub struct Widget {
    /// The element.
    pub node: NodeId,
    /// Its ref, once assigned.
    pub ref_id: Option<u32>,
    /// Whether it gets a ref.
    pub wants_ref: bool,
    /// Its role.
    pub role: Role,
    /// Accessible name.
    pub name: String,
    /// Value (empty for sensitive fields).
    pub value: String,
    /// Option labels (comboboxes, listboxes).
    pub options: Vec<String>,
    /// States.
    pub states: States,
    /// Sensitive kind.
    pub sensitive: Option<Sensitive>,
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// Text, whitespace already collapsed.
    Text(String),
    /// A widget (index into [`AxTree::widgets`]).
    Widget(usize),
}

/// How an item's line begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// Nothing.
    None,
    /// `hN `.
    Heading(u8),
    /// `- `.
    ListItem,
    /// `alert: `, `status: `, …
    Live(Role),
}

/// One item of the tree: a line (possibly empty for a pure container) and
/// the items one level below it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The element the item stands for, if any.
    pub node: Option<NodeId>,
    /// How the line begins.
    pub prefix: Prefix,
    /// The line.
    pub head: Vec<Segment>,
    /// Items one level deeper.
    pub children: Vec<ItemId>,
    /// Kept even when empty: its name is text the page shows (a legend
    /// or caption), not only a label for its content.
    pub(crate) keep: bool,
    /// A node the line shows (its element, else its first text): where the
    /// line is on the page, for layout's placement.
    pub at: Option<NodeId>,
}

/// Counts of what was left out or masked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Hidden subtrees (and invisible text) with content, not sent.
    pub omitted_not_visible: u32,
    /// Sensitive fields whose value was withheld.
    pub redacted_fields: u32,
    /// Frames shown only as one line.
    pub frames_masked: u32,
    /// Passages a person cannot see that read like instructions to an AI
    /// agent: withheld (the `⚠ removed hidden instructions` note).
    pub removed_instructions: u32,
    /// Visible passages that read like instructions to an AI agent: kept
    /// as page data (the `⚠ suspected injection` note).
    pub suspected_injection: u32,
    /// Whether the page is a bot challenge (the `⚠ bot challenge` note).
    pub bot_challenge: bool,
}

/// The semantic tree.
#[derive(Debug, Clone, Default)]
pub struct AxTree {
    /// All items; `roots` and `children` index into it.
    pub items: Vec<Item>,
    /// The top-level items.
    pub roots: Vec<ItemId>,
    /// All widgets.
    pub widgets: Vec<Widget>,
    /// What was left out.
    pub counters: Counters,
}

impl AxTree {
    /// Recomputes the value, states and options of the widgets standing for
    /// `nodes` after a change of form values only (typing, clearing): the
    /// rest of the tree is what a rebuild would give, so a caller that
    /// knows nothing else changed skips the rebuild. O(widgets).
    pub fn refresh_values(&mut self, doc: &Document, styles: &Styles, sem: &Semantics, nodes: &[NodeId]) {
        for w in self.widgets.iter_mut().filter(|w| nodes.contains(&w.node)) {
            let ax = sem.ax_node(doc, styles, w.node);
            w.value = ax.value;
            w.states = ax.states;
            w.options = ax.options;
        }
    }

    /// The widgets that have refs, in ref order.
    pub fn referenced(&self) -> impl Iterator<Item = &Widget> {
        let mut list: Vec<&Widget> = self.widgets.iter().filter(|w| w.ref_id.is_some()).collect();
        list.sort_by_key(|w| w.ref_id);
        list.into_iter()
    }

    /// A plain-text dump of the items: one per line, indented by depth,
    /// with the element each stands for and its widgets as
    /// `{role "name" [ref] #node}`.
    pub fn dump(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        self.walk(|depth, item| {
            out.push_str(&"  ".repeat(depth));
            if let Some(n) = item.node {
                let _ = write!(out, "#{} ", n.index());
            }
            let _ = write!(out, "{:?}:", item.prefix);
            for seg in &item.head {
                match seg {
                    Segment::Text(t) => {
                        let _ = write!(out, " {t:?}");
                    }
                    Segment::Widget(w) => {
                        let w = &self.widgets[*w];
                        let _ = write!(out, " {{{} {:?}", w.role.as_str(), w.name);
                        if let Some(r) = w.ref_id {
                            let _ = write!(out, " [{r}]");
                        }
                        let _ = write!(out, " #{}}}", w.node.index());
                    }
                }
            }
            out.push('\n');
        });
        out
    }

    /// Calls `f(depth, item)` for every item in tree order, without
    /// recursion.
    pub fn walk(&self, mut f: impl FnMut(usize, &Item)) {
        let mut stack: Vec<(usize, ItemId)> = self.roots.iter().rev().map(|&r| (0, r)).collect();
        while let Some((depth, id)) = stack.pop() {
            let item = &self.items[id];
            f(depth, item);
            for &c in item.children.iter().rev() {
                stack.push((depth + 1, c));
            }
        }
    }
}

/// Builds the semantic tree and assigns refs from `refs`: an element that
/// had a ref in an earlier build of the same document keeps it.
pub fn build_tree(doc: &Document, styles: &Styles, conceal: &Concealment, sem: &Semantics, refs: &mut RefTable) -> AxTree {
    let mut tree = build::walk(doc, styles, conceal, sem);
    prune_empty(&mut tree);
    foldable_containers_get_refs(doc, &mut tree);
    assign_refs(&mut tree, doc, refs);
    tree
}

/// Drops containers that ended up empty (an empty `<ul>`, a `<nav>` whose
/// links were all hidden), bottom-up, without recursion.
fn prune_empty(tree: &mut AxTree) {
    // Post-order over the item tree.
    let mut order = Vec::new();
    let mut stack: Vec<ItemId> = tree.roots.clone();
    while let Some(id) = stack.pop() {
        order.push(id);
        stack.extend(tree.items[id].children.iter().copied());
    }
    let mut empty = vec![false; tree.items.len()];
    for &id in order.iter().rev() {
        let item = &tree.items[id];
        let kept: Vec<ItemId> = item.children.iter().copied().filter(|&c| !empty[c]).collect();
        let is_container_head = matches!(item.head.as_slice(), [Segment::Widget(w)] if container_role(tree.widgets[*w].role));
        empty[id] = kept.is_empty() && (item.head.is_empty() || (is_container_head && !item.keep));
        tree.items[id].children = kept;
    }
    tree.roots.retain(|&r| !empty[r]);
}

/// A container whose items the fold stage may fold into `… +N more items
/// (observe ref R)` needs a ref R, even when its role has none (a `main`
/// or `nav` with a long run of alike items): it wants one if some run of
/// its children is long enough to fold. Decided here, before refs are
/// handed out, so numbers stay in reading order and do not depend on the
/// budget.
///
/// Navigation, asides and footers with at least [`SIDE_LANDMARK_LINES`]
/// lines get one too: below the first screen the fold stage shows them as
/// one line.
fn foldable_containers_get_refs(doc: &Document, tree: &mut AxTree) {
    // Lines under each item; children are created after their parent, so
    // one pass from the end sees every child first.
    let mut lines = vec![1usize; tree.items.len()];
    for i in (0..tree.items.len()).rev() {
        let below: usize = tree.items[i].children.iter().filter(|&&c| c > i).map(|&c| lines[c]).sum();
        lines[i] = lines[i].saturating_add(below);
    }
    let mut wanted = Vec::new();
    for (i, item) in tree.items.iter().enumerate() {
        let [Segment::Widget(w)] = item.head.as_slice() else { continue };
        let role = tree.widgets[*w].role;
        if tree.widgets[*w].wants_ref || !container_role(role) {
            continue;
        }
        let side = matches!(role, Role::Navigation | Role::Complementary | Role::ContentInfo);
        if (side && lines[i] > SIDE_LANDMARK_LINES) || signature::has_foldable_run(doc, tree, item) {
            wanted.push(*w);
        }
    }
    for w in wanted {
        tree.widgets[w].wants_ref = true;
    }
}

/// Lines (the landmark's own included) from which a navigation, aside or
/// footer landmark gets a ref, so that it can fold.
pub const SIDE_LANDMARK_LINES: usize = 5;

/// Gives refs to the widgets that want them: the number each element has
/// in `refs` already, else the next one, in tree order.
fn assign_refs(tree: &mut AxTree, doc: &Document, refs: &mut RefTable) {
    let mut order = Vec::new();
    tree.walk(|_, item| {
        for s in &item.head {
            if let Segment::Widget(w) = s {
                order.push(*w);
            }
        }
    });
    for w in order {
        let widget = &mut tree.widgets[w];
        if widget.wants_ref {
            widget.ref_id = refs.assign(doc.id(), widget.node);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{RefTable, SnapshotOptions, snapshot};

    fn tree_dump(html: &str) -> String {
        snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new()).tree.dump()
    }

    #[test]
    fn dump_shows_items_widgets_and_nodes() {
        let dump = tree_dump("<nav aria-label=Main><a href=/>Home</a></nav><p>Hi <b>there</b></p>");
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(lines.len(), 3, "{dump}");
        assert!(lines[0].contains(r#"None: {navigation "Main""#), "{dump}");
        assert!(lines[1].starts_with("  None: {link \"Home\" [1] #"), "{dump}");
        assert_eq!(lines[2], r#"None: "Hi there""#);
    }

    #[test]
    fn whitespace_and_control_characters_separate_words_as_one_space() {
        // NBSP, tabs, a stray control character and a line break between
        // words each read as one space; words keep their characters.
        let dump = tree_dump("<p>caf\u{e9}\u{a0}\u{a0}cr\u{e8}me\t\u{1}br\u{fb}l\u{e9}e\n \u{85} end</p>");
        assert_eq!(dump.lines().last(), Some("None: \"caf\u{e9} cr\u{e8}me br\u{fb}l\u{e9}e end\""), "{dump}");
        // A word right after a widget is set apart; punctuation is not.
        let dump = tree_dump("<p><a href=/>Go</a>now<a href=/x>there</a>.</p>");
        assert!(dump.contains("\" now \"") && dump.contains("\".\""), "{dump}");
        // A transformed text is the transformed copy; other text is as written.
        let dump = tree_dump("<p style='text-transform:uppercase'>loud</p><p>quiet</p>");
        assert!(dump.contains("\"LOUD\"") && dump.contains("\"quiet\""), "{dump}");
    }

    #[test]
    fn labels_are_not_repeated_but_their_links_stay() {
        let html = r#"<label for=e>Email</label><input id=e>
            <label><input type=checkbox> I accept the <a href=/terms>terms</a></label>"#;
        let text = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new()).observation.text();
        assert_eq!(text, "#\n[1] textbox \"Email\"\n[2] checkbox \"I accept the terms\" [3] link \"terms\"\n");
    }

    #[test]
    fn empty_containers_are_dropped() {
        let html = "<ul></ul><nav><a href=/ hidden>x</a></nav><main><p>text</p></main>";
        let text = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new()).observation.text();
        assert_eq!(text, "#\nmain\n text\n");
        // ...but a legend or caption is text the page shows.
        let html = "<fieldset><legend>Shipping address</legend></fieldset><table><caption>Totals</caption></table>";
        let text = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new()).observation.text();
        assert_eq!(text, "#\ngroup \"Shipping address\"\n[1] table \"Totals\"\n");
    }

    #[test]
    fn refs_continue_across_snapshots_of_one_table() {
        let mut refs = RefTable::new();
        let html = b"<a href=/a>a</a><a href=/b>b</a>";
        let first = snapshot(html, &SnapshotOptions::default(), &mut refs).observation.text();
        let second = snapshot(html, &SnapshotOptions::default(), &mut refs).observation.text();
        assert!(first.contains("[1] link \"a\""));
        // A new document gets new numbers: never reused within a session.
        assert!(second.contains("[3] link \"a\""), "{second}");
    }

    fn observe(html: &str) -> String {
        snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new()).observation.text()
    }

    #[test]
    fn closed_popovers_are_not_shown() {
        // No script has opened a popover on a page at rest: all are closed,
        // whatever the attribute's value.
        for value in ["", "=auto", "=manual", "=hint", "=\"\"", "=foo"] {
            let html = format!(
                "<button popovertarget=menu>Menu</button>\
                 <div id=menu popover{value}><p>Account settings</p><button>Sign out</button><a href=/help>Help</a></div>"
            );
            let s = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new());
            assert_eq!(s.observation.text(), "#\n[1] button \"Menu\"\n", "popover{value}");
            assert_eq!(s.tree.widgets.iter().filter(|w| w.ref_id.is_some()).count(), 1, "popover{value}");
        }
    }

    #[test]
    fn popover_open_never_matches_a_page_at_rest() {
        // An author's rule for the open state does not open it; one for the
        // closed state applies; a `display` set on every popover shows the
        // closed ones too (the UA rule is not `!important`, as in Chromium).
        let open_rule = "<style>[popover]:popover-open { display: block }</style><div popover>Open?</div><p>Rest</p>";
        assert_eq!(observe(open_rule), "#\nRest\n");
        let closed_rule = "<style>.tip:not(:popover-open) { color: red }</style><div class=tip popover>Tip</div><p>Rest</p>";
        assert_eq!(observe(closed_rule), "#\nRest\n");
        let shown = "<style>.menu { display: flex }</style><div class=menu popover><button>Sign out</button></div>";
        assert_eq!(observe(shown), "#\n[1] button \"Sign out\"\n");
    }

    #[test]
    fn an_open_dialog_that_is_a_popover_is_shown() {
        let html = "<dialog popover open><p>Saved</p><button>OK</button></dialog><dialog popover><p>Closed</p></dialog>";
        let text = observe(html);
        assert!(text.contains("Saved") && text.contains("button \"OK\""), "{text}");
        assert!(!text.contains("Closed"), "{text}");
    }

    #[test]
    fn inert_content_is_neither_listed_nor_actionable() {
        let html = r#"<main><h1>Checkout</h1>
            <div inert><p>Card ending 4242</p><button>Pay</button><a href=/terms>Terms</a><input aria-label=Coupon></div>
            <button>Back to cart</button></main>"#;
        let s = snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new());
        assert_eq!(s.observation.text(), "#\nmain\n h1 Checkout\n [1] button \"Back to cart\"\n");
        let refs: Vec<_> = s.tree.widgets.iter().filter(|w| w.ref_id.is_some()).map(|w| w.name.as_str()).collect();
        assert_eq!(refs, ["Back to cart"]);
        assert_eq!(s.tree.counters.omitted_not_visible, 1, "the inert region is counted as left out");
    }

    #[test]
    fn an_inert_link_gets_no_ref() {
        let text = observe("<p>Read the <a href=/terms inert>terms</a> or <a href=/faq>the FAQ</a>.</p>");
        assert_eq!(text, "#\nRead the or [1] link \"the FAQ\".\n");
    }

    #[test]
    fn whitespace_between_tags_is_a_word_break_and_kept_line_breaks_stay() {
        // Blank text nodes separate words; none means the words join.
        assert_eq!(observe("<p><b>one</b> <i>two</i><b>three</b>\n\t<i>four</i></p>"), "#\none twothree four\n");
        // A blank node beside a widget keeps the two apart.
        assert_eq!(observe("<p>Go <a href=/x>on</a> \n <a href=/y>back</a></p>"), "#\nGo [1] link \"on\" [2] link \"back\"\n");
        // Under `white-space: pre`, a blank node's line break is a line break.
        assert_eq!(observe("<pre><b>first</b>\n<b>second</b>  <b>third</b></pre>"), "#\nfirst\nsecond third\n");
    }
}
