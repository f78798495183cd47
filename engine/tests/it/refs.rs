//! Refs are stable (docs/observation.md), checked as properties over random
//! pages and random mutations:
//! - rendering an unchanged document again gives the same text and refs;
//! - an element keeps its number for as long as it exists (also while it
//!   is hidden or moved, and after it comes back);
//! - a new element gets a number greater than any given before, and no
//!   number ever names two elements;
//! - documents sharing one table (tabs) never collide, also when a tab
//!   navigates (its old document is forgotten).

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::Config;
use whittle_engine::{
    Document, DocumentId, MutationError, NodeId, ParseOptions, RefTable, SnapshotOptions, parse_str, snapshot_document,
};

/// A piece of a generated page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Div,
    Paragraph,
    List,
    Item,
    Form,
    Nav,
    Link,
    Button,
    Field,
    Checkbox,
    Select,
    Text,
}

impl Kind {
    fn is_container(self) -> bool {
        matches!(self, Kind::Div | Kind::Paragraph | Kind::List | Kind::Item | Kind::Form | Kind::Nav)
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Div),
        Just(Kind::Paragraph),
        Just(Kind::List),
        Just(Kind::Item),
        Just(Kind::Form),
        Just(Kind::Nav),
        Just(Kind::Link),
        Just(Kind::Button),
        Just(Kind::Field),
        Just(Kind::Checkbox),
        Just(Kind::Select),
        Just(Kind::Text),
    ]
}

/// A page as a list of (which earlier container is the parent, what):
/// always a tree, built without recursion.
fn page() -> impl Strategy<Value = Vec<(usize, Kind)>> {
    prop::collection::vec((0..64usize, kind()), 1..40)
}

/// The page's HTML. Kinds are adjusted where HTML would not nest them as
/// written (the parser would move them): lists hold items, paragraphs hold
/// phrasing content, forms do not nest.
fn html(spec: &[(usize, Kind)]) -> String {
    // Node 0 is the body; containers are the nodes that may have children.
    let mut kinds = vec![Kind::Div];
    let mut children: Vec<Vec<usize>> = vec![Vec::new()];
    let mut containers = vec![0usize];
    let mut in_form = vec![false];
    for &(pick, wanted) in spec {
        let parent = containers[pick % containers.len()];
        let mut k = wanted;
        match kinds[parent] {
            Kind::List => k = Kind::Item,
            Kind::Paragraph if k.is_container() => k = Kind::Link,
            _ => {}
        }
        if k == Kind::Form && in_form[parent] {
            k = Kind::Div;
        }
        let id = kinds.len();
        kinds.push(k);
        children.push(Vec::new());
        in_form.push(in_form[parent] || k == Kind::Form);
        children[parent].push(id);
        if k.is_container() {
            containers.push(id);
        }
    }
    let mut out = String::from("<!doctype html><title>Page</title><body>");
    let mut stack: Vec<(usize, bool)> = children[0].iter().rev().map(|&c| (c, false)).collect();
    while let Some((n, closing)) = stack.pop() {
        let (open, close) = match kinds[n] {
            Kind::Div => ("<div>".to_owned(), "</div>"),
            Kind::Paragraph => (format!("<p>p{n} "), "</p>"),
            Kind::List => ("<ul>".to_owned(), "</ul>"),
            Kind::Item => (format!("<li>i{n} "), "</li>"),
            Kind::Form => (format!("<form aria-label=\"Form {n}\">"), "</form>"),
            Kind::Nav => (format!("<nav aria-label=\"Nav {n}\">"), "</nav>"),
            Kind::Link => (format!("<a href=\"/l{n}\">Link {n}</a>"), ""),
            Kind::Button => (format!("<button>Button {n}</button>"), ""),
            Kind::Field => (format!("<input aria-label=\"Field {n}\">"), ""),
            Kind::Checkbox => (format!("<label><input type=checkbox> Check {n}</label>"), ""),
            Kind::Select => (format!("<select aria-label=\"Select {n}\"><option>a{n}<option>b{n}</select>"), ""),
            Kind::Text => (format!("text {n} "), ""),
        };
        if closing {
            out.push_str(close);
            continue;
        }
        out.push_str(&open);
        if kinds[n].is_container() {
            stack.push((n, true));
            stack.extend(children[n].iter().rev().map(|&c| (c, false)));
        }
    }
    out
}

/// What is put into a page.
#[derive(Debug, Clone, Copy)]
enum Fragment {
    Link,
    Button,
    Field,
    /// A list of this many links.
    Links(usize),
    /// A named form with a field and a button.
    Form,
}

fn fragment() -> impl Strategy<Value = Fragment> {
    prop_oneof![
        Just(Fragment::Link),
        Just(Fragment::Button),
        Just(Fragment::Field),
        (1..4usize).prop_map(Fragment::Links),
        Just(Fragment::Form),
    ]
}

/// A change to a page; numbers pick an element (in tree order under the
/// body) or a position among a parent's children, modulo their count.
#[derive(Debug, Clone, Copy)]
enum Op {
    Insert { parent: usize, at: usize, what: Fragment },
    Remove { target: usize },
    Move { target: usize, parent: usize, at: usize },
    ToggleHidden { target: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..64usize, 0..8usize, fragment()).prop_map(|(parent, at, what)| Op::Insert { parent, at, what }),
        2 => (0..64usize).prop_map(|target| Op::Remove { target }),
        2 => (0..64usize, 0..64usize, 0..8usize).prop_map(|(target, parent, at)| Op::Move { target, parent, at }),
        1 => (0..64usize).prop_map(|target| Op::ToggleHidden { target }),
    ]
}

fn body(doc: &Document) -> NodeId {
    doc.body().expect("generated pages have a body")
}

/// The body and the elements under it, in tree order.
fn elements(doc: &Document) -> Vec<NodeId> {
    doc.descendants(body(doc)).filter(|&n| doc.element(n).is_some()).collect()
}

/// The reference node for inserting at position `at` of `parent`'s
/// children (`None`: last).
fn position(doc: &Document, parent: NodeId, at: usize) -> Option<NodeId> {
    let count = doc.children(parent).count();
    doc.children(parent).nth(at % (count + 1))
}

fn element(doc: &mut Document, name: &str, attrs: &[(&str, &str)], text: Option<&str>) -> NodeId {
    let e = doc.create_html_element(name, attrs).expect("valid names, room in the arena");
    if let Some(t) = text {
        let t = doc.create_text(t).expect("room in the arena");
        doc.append_child(e, t).expect("text under a new element");
    }
    e
}

/// Builds a fragment (outside the tree) with the DOM API.
fn build(doc: &mut Document, what: Fragment, n: usize) -> NodeId {
    let href = format!("/new{n}");
    match what {
        Fragment::Link => element(doc, "a", &[("href", &href)], Some(&format!("New link {n}"))),
        Fragment::Button => element(doc, "button", &[], Some(&format!("New button {n}"))),
        Fragment::Field => element(doc, "input", &[("aria-label", &format!("New field {n}"))], None),
        Fragment::Links(count) => {
            let list = element(doc, "ul", &[], None);
            for i in 0..count {
                let li = element(doc, "li", &[], None);
                let a = element(doc, "a", &[("href", &format!("{href}/{i}"))], Some(&format!("New {n}.{i}")));
                doc.append_child(li, a).expect("fresh nodes");
                doc.append_child(list, li).expect("fresh nodes");
            }
            list
        }
        Fragment::Form => {
            let form = element(doc, "form", &[("aria-label", &format!("New form {n}"))], None);
            let field = element(doc, "input", &[("aria-label", &format!("New form field {n}"))], None);
            let button = element(doc, "button", &[], Some("Send"));
            doc.append_child(form, field).expect("fresh nodes");
            doc.append_child(form, button).expect("fresh nodes");
            form
        }
    }
}

/// Applies one change. Moving an element into its own subtree is refused
/// by the DOM API (and leaves the page as it was); nothing else may fail.
fn apply(doc: &mut Document, op: Op, n: usize) -> Result<(), TestCaseError> {
    let all = elements(doc);
    // Everything but the body.
    let inner = &all[1..];
    match op {
        Op::Insert { parent, at, what } => {
            let parent = all[parent % all.len()];
            let fragment = build(doc, what, n);
            let reference = position(doc, parent, at);
            prop_assert_eq!(doc.insert_before(parent, fragment, reference), Ok(()));
        }
        Op::Remove { target } if !inner.is_empty() => {
            prop_assert_eq!(doc.detach(inner[target % inner.len()]), Ok(()));
        }
        Op::Move { target, parent, at } if !inner.is_empty() => {
            let target = inner[target % inner.len()];
            let parent = all[parent % all.len()];
            let reference = position(doc, parent, at);
            let moved = doc.insert_before(parent, target, reference);
            let into_itself = parent == target || doc.ancestors(parent).any(|a| a == target);
            if into_itself {
                prop_assert_eq!(moved, Err(MutationError::Hierarchy));
            } else {
                prop_assert_eq!(moved, Ok(()));
            }
        }
        Op::ToggleHidden { target } if !inner.is_empty() => {
            let target = inner[target % inner.len()];
            if doc.element(target).is_some_and(|e| e.has_attr("hidden")) {
                prop_assert_eq!(doc.remove_attribute(target, "hidden"), Ok(true));
            } else {
                prop_assert_eq!(doc.set_attribute(target, "hidden", ""), Ok(()));
            }
        }
        Op::Remove { .. } | Op::Move { .. } | Op::ToggleHidden { .. } => {}
    }
    Ok(())
}

/// One render: the document back, its text, and its (node, ref) pairs in
/// tree order.
fn render(doc: Document, refs: &mut RefTable) -> (Document, String, Vec<(NodeId, u32)>) {
    let snap = snapshot_document(doc, &SnapshotOptions::default(), refs);
    let text = snap.observation.text();
    let mut pairs: Vec<(NodeId, u32)> =
        snap.tree.widgets.iter().filter_map(|w| w.ref_id.map(|r| (w.node, r))).collect();
    pairs.sort_by_key(|&(_, r)| r);
    (snap.document, text, pairs)
}

/// Every ref seen in a session, to check each new render against.
#[derive(Default)]
struct Ledger {
    /// The number each element had (forgotten documents removed).
    by_element: HashMap<(DocumentId, NodeId), u32>,
    /// The element each number ever named (kept after forgetting).
    by_ref: HashMap<u32, (DocumentId, NodeId)>,
    /// The highest number seen.
    max: u32,
}

impl Ledger {
    /// Renders `doc` twice and checks both renders against the ledger.
    fn render(&mut self, doc: Document, refs: &mut RefTable) -> Result<Document, TestCaseError> {
        let id = doc.id();
        let (doc, text, pairs) = render(doc, refs);
        let before = self.max;
        for &(node, r) in &pairs {
            let key = (id, node);
            match self.by_element.get(&key) {
                Some(&old) => prop_assert_eq!(old, r, "element #{} changed its number", node.index()),
                None => {
                    prop_assert!(r > before, "new element #{} got {} but {} was given before", node.index(), r, before)
                }
            }
            if let Some(&named) = self.by_ref.get(&r) {
                prop_assert_eq!(named, key, "number {} reused", r);
            }
            prop_assert!(doc.is_connected(node));
            prop_assert_eq!(refs.resolve(r), Some(key));
            self.by_element.insert(key, r);
            self.by_ref.insert(r, key);
            self.max = self.max.max(r);
        }
        let (doc, again_text, again_pairs) = render(doc, refs);
        prop_assert_eq!(&again_text, &text, "unchanged document, different text");
        prop_assert_eq!(again_pairs, pairs, "unchanged document, different refs");
        Ok(doc)
    }

    /// A tab dropped `doc`.
    fn forget(&mut self, doc: DocumentId, refs: &mut RefTable) {
        refs.forget(doc);
        self.by_element.retain(|&(d, _), _| d != doc);
    }
}

fn config() -> Config {
    // Each case renders a small page a few dozen times (about a second
    // for all cases here): enough to find ordering bugs, few enough for
    // a debug build.
    Config { cases: 96, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn refs_survive_rerenders_and_mutations(spec in page(), ops in prop::collection::vec(op(), 0..24)) {
        let mut refs = RefTable::new();
        let mut ledger = Ledger::default();
        let mut doc = parse_str(&html(&spec), &ParseOptions::default());
        doc = ledger.render(doc, &mut refs)?;
        for (n, op) in ops.into_iter().enumerate() {
            apply(&mut doc, op, n)?;
            doc = ledger.render(doc, &mut refs)?;
        }
    }

    #[test]
    fn tabs_sharing_a_table_never_collide(
        first in page(),
        second in page(),
        ops in prop::collection::vec((any::<bool>(), prop::option::weighted(0.1, page()), op()), 0..24),
    ) {
        let mut refs = RefTable::new();
        let mut ledger = Ledger::default();
        let mut tabs = Vec::new();
        for spec in [&first, &second] {
            let doc = parse_str(&html(spec), &ParseOptions::default());
            tabs.push(ledger.render(doc, &mut refs)?);
        }
        for (n, (which, navigate, op)) in ops.into_iter().enumerate() {
            let tab = usize::from(which);
            let mut doc = std::mem::replace(&mut tabs[tab], parse_str("", &ParseOptions::default()));
            match navigate {
                // The tab goes to another page: its document is dropped.
                Some(spec) => {
                    ledger.forget(doc.id(), &mut refs);
                    doc = parse_str(&html(&spec), &ParseOptions::default());
                }
                None => apply(&mut doc, op, n)?,
            }
            tabs[tab] = ledger.render(doc, &mut refs)?;
        }
        // What the table holds is exactly the live tabs' refs.
        let live: usize = tabs.iter().map(|d| ledger.by_element.keys().filter(|(id, _)| *id == d.id()).count()).sum();
        prop_assert_eq!(refs.len(), live);
    }
}

#[test]
fn an_element_keeps_its_ref_while_hidden_and_after_a_move() -> Result<(), MutationError> {
    let mut refs = RefTable::new();
    let doc = parse_str(
        "<nav aria-label=Top><a href=/a id=a>A</a></nav><main><a href=/b id=b>B</a></main>",
        &ParseOptions::default(),
    );
    let (mut doc, text, _) = render(doc, &mut refs);
    assert_eq!(text, "#\nnav \"Top\"\n [1] link \"A\"\nmain\n [2] link \"B\"\n");
    let (a, b) = (doc.element_by_id("a").expect("id in the page"), doc.element_by_id("b").expect("id in the page"));
    doc.set_attribute(a, "hidden", "")?;
    let extra = doc.create_html_element("button", &[])?;
    let label = doc.create_text("C")?;
    doc.append_child(extra, label)?;
    doc.insert_before(doc.parent(b).expect("a parent"), extra, Some(b))?;
    let (mut doc, text, _) = render(doc, &mut refs);
    assert_eq!(text, "#\nmain\n [3] button \"C\" [2] link \"B\"\n");
    doc.remove_attribute(a, "hidden")?;
    let main = doc.parent(b).expect("a parent");
    doc.append_child(main, a)?;
    let (_, text, _) = render(doc, &mut refs);
    assert_eq!(text, "#\nmain\n [3] button \"C\" [2] link \"B\" [1] link \"A\"\n");
    Ok(())
}
