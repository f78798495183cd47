//! The `find` tool (docs/mcp.md) on hand-written pages: role, text and
//! `css:` queries, their contexts, limits and near misses; off-screen and
//! folded-away lines are found, hidden content never is.

use whittle_engine::{FindError, Found, RefTable, Snapshot, SnapshotOptions, find, snapshot};

const CHECKOUT: &str = r#"<title>Checkout</title>
<header><nav aria-label="Primary"><a href="/">Home</a> <a href="/pay">Payments</a></nav></header>
<main>
<h1>Checkout</h1>
<form aria-label="Checkout">
<label>Full name <input name=fullname value="Jane Roe"></label>
<div><button>Pay now</button></div>
<div><button>Pay later</button></div>
<div><button>Cancel</button></div>
</form>
<h2>Gift cards</h2>
<p>Pay with a gift card: <button>Pay with gift card</button></p>
<div hidden><button>Pay secretly</button></div>
<button style="display:none">Pay hidden</button>
<p>Questions? Call us.</p>
</main>"#;

fn snap(html: &str) -> Snapshot {
    snapshot(html.as_bytes(), &SnapshotOptions::default(), &mut RefTable::new())
}

/// A snapshot with a viewport 300 px tall: long lists reach below the
/// first screen and fold.
pub(crate) fn snap_short(html: &str) -> Snapshot {
    let mut options = SnapshotOptions::default();
    options.cascade.viewport = whittle_engine::Viewport { width: 1280, height: 300 };
    snapshot(html.as_bytes(), &options, &mut RefTable::new())
}

fn run(s: &Snapshot, query: &str, limit: usize) -> Found {
    match find(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, query, limit) {
        Ok(f) => f,
        Err(e) => panic!("{query}: {e}"),
    }
}

fn text(s: &Snapshot, query: &str) -> String {
    run(s, query, 20).text
}

#[test]
fn the_page_is_what_the_tests_assume() {
    assert_eq!(
        snap(CHECKOUT).observation.text(),
        "# Checkout\nheader\n nav \"Primary\"\n  [1] link \"Home\" [2] link \"Payments\"\nmain\n h1 Checkout\n \
         [3] form \"Checkout\"\n  [4] textbox \"Full name\" = \"Jane Roe\"\n  [5] button \"Pay now\"\n  \
         [6] button \"Pay later\"\n  [7] button \"Cancel\"\n h2 Gift cards\n \
         Pay with a gift card: [8] button \"Pay with gift card\"\n Questions? Call us.\n"
    );
}

#[test]
fn role_queries_list_lines_under_their_context() {
    let s = snap(CHECKOUT);
    let found = run(&s, "role:button pay", 20);
    assert_eq!(
        found.text,
        "3 matches for role:button \"pay\"\n@ [3] form \"Checkout\"\n[5] button \"Pay now\"\n[6] button \"Pay later\"\n\
         @ h2 Gift cards\nPay with a gift card: [8] button \"Pay with gift card\"\n"
    );
    assert_eq!((found.matches, found.listed, found.hidden), (3, 3, 0));
    // Case does not matter, words may come in any order.
    assert_eq!(
        text(&s, "role:BUTTON Later PAY"),
        "1 match for role:button \"later pay\"\n@ [3] form \"Checkout\"\n[6] button \"Pay later\"\n"
    );
    // Values match too.
    assert_eq!(
        text(&s, "role:textbox jane"),
        "1 match for role:textbox \"jane\"\n@ [3] form \"Checkout\"\n[4] textbox \"Full name\" = \"Jane Roe\"\n"
    );
}

#[test]
fn headings_and_landmarks_are_roles_too() {
    let s = snap(CHECKOUT);
    // A heading's context is its container, not the heading before it.
    assert_eq!(text(&s, "role:heading"), "2 matches for role:heading\n@ main\nh1 Checkout\nh2 Gift cards\n");
    assert_eq!(text(&s, "role:h2"), "1 match for role:h2\n@ main\nh2 Gift cards\n");
    // The observation's word or the ARIA role.
    assert_eq!(text(&s, "role:nav"), "1 match for role:nav\n@ header\nnav \"Primary\"\n");
    assert_eq!(
        text(&s, "role:navigation primary"),
        "1 match for role:navigation \"primary\"\n@ header\nnav \"Primary\"\n"
    );
    // Inside a container without a ref, the heading before it places it.
    assert_eq!(text(&s, "role:form"), "1 match for role:form\n@ h1 Checkout\n[3] form \"Checkout\"\n");
}

#[test]
fn near_misses_say_what_is_close() {
    let s = snap(CHECKOUT);
    assert_eq!(
        text(&s, "role:button home"),
        "no match for role:button \"home\"; 1 line with \"home\" under other roles:\n@ nav \"Primary\"\n\
         [1] link \"Home\" [2] link \"Payments\"\n"
    );
    assert_eq!(
        text(&s, "role:buton"),
        "no match for role:buton; roles here: button 4, heading 2, link 2, form 1, header 1, main 1, nav 1, textbox 1\n"
    );
    assert_eq!(
        text(&s, "gift pay"),
        "no match for \"gift pay\"; 1 line with all its words:\n@ h2 Gift cards\n\
         Pay with a gift card: [8] button \"Pay with gift card\"\n"
    );
    assert_eq!(run(&s, "gift pay", 20).matches, 0);
}

#[test]
fn plain_text_finds_phrases_in_text_and_names() {
    let s = snap(CHECKOUT);
    assert_eq!(
        text(&s, "pay  WITH"),
        "1 match for \"pay WITH\"\n@ h2 Gift cards\nPay with a gift card: [8] button \"Pay with gift card\"\n"
    );
    assert_eq!(text(&s, "call us"), "1 match for \"call us\"\n@ h2 Gift cards\nQuestions? Call us.\n");
    // A link's name is matched like text.
    assert_eq!(
        text(&s, "payments"),
        "1 match for \"payments\"\n@ nav \"Primary\"\n[1] link \"Home\" [2] link \"Payments\"\n"
    );
}

#[test]
fn hidden_content_is_never_found() {
    let s = snap(CHECKOUT);
    assert_eq!(text(&s, "role:button secretly"), "no match for role:button \"secretly\"\n");
    assert_eq!(text(&s, "pay hidden"), "no match for \"pay hidden\"\n");
    assert_eq!(text(&s, "secretly"), "no match for \"secretly\"\n");
    // css counts hidden matches but does not list them.
    let found = run(&s, "css:button", 20);
    assert_eq!(
        found.text,
        "4 matches for css:button (+2 hidden, not listed)\n[5] button · \"Pay now\"\n[6] button · \"Pay later\"\n\
         [7] button · \"Cancel\"\n[8] button · \"Pay with gift card\"\n"
    );
    assert_eq!((found.matches, found.listed, found.hidden), (4, 4, 2));
}

#[test]
fn css_lists_attributes_and_refs() {
    let s = snap(CHECKOUT);
    assert_eq!(
        text(&s, "css:nav a[href]"),
        "2 matches for css:nav a[href]\n[1] a href=\"/\" · \"Home\"\n[2] a href=\"/pay\" · \"Payments\"\n"
    );
    assert_eq!(text(&s, "css:input"), "1 match for css:input\n[4] input name=\"fullname\" value=\"Jane Roe\"\n");
    let html = r#"<main><div id=card class="product pod" data-sku=A1 data-price="1.50" data-x=1 data-y=2>
        <p class="star-rating Five">★★★★★</p><a href="/p/a1" title="Lamp">Lamp</a> <button>Add</button></div>
        <div class="product pod" style="visibility:hidden"><p class="star-rating Five">x</p></div>
        <input type=password name=pw value="hunter2"><p class="star-rating Two">★★</p></main>"#;
    let s = snap(html);
    assert_eq!(
        text(&s, "css:.star-rating.Five"),
        "1 match for css:.star-rating.Five (+1 hidden, not listed)\np.star-rating.Five · \"★★★★★\"\n"
    );
    assert_eq!(
        text(&s, "css:#card"),
        "1 match for css:#card\ndiv#card.product.pod data-sku=\"A1\" data-price=\"1.50\" data-x=\"1\" \
         · \"★★★★★ Lamp Add\" · inside: [1] [2]\n"
    );
    // A password's value never leaves the machine.
    assert_eq!(text(&s, "css:input"), "1 match for css:input\n[3] input type=\"password\" name=\"pw\"\n");
}

#[test]
fn css_that_does_not_parse_is_an_error_naming_it() {
    let s = snap(CHECKOUT);
    let err = find(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, "css:a[", 20).err();
    match err {
        Some(FindError::Selector(e)) => assert!(e.to_string().contains("\"a[\""), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(find(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, "  ", 20).err(), Some(FindError::Empty));
    assert_eq!(find(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, "role:", 20).err(), Some(FindError::NoRole));
}

/// A list of `n` products: a link, a price and a button each.
pub(crate) fn products(n: usize) -> String {
    let mut html = String::from("<title>Shop</title><main><h1>Products</h1><ul aria-label=Products>");
    for i in 1..=n {
        html.push_str(&format!(
            "<li><a href=\"/p/{i}\">Widget {i}</a> <span>${i}.50</span> <button>Add to cart</button></li>"
        ));
    }
    html.push_str("</ul></main>");
    html
}

#[test]
fn what_folding_hid_is_found() {
    let s = snap_short(&products(25));
    let obs = s.observation.text();
    assert!(obs.contains("more items (observe ref 1)") && !obs.contains("Widget 25"), "{obs}");
    let found = run(&s, "role:button add", 3);
    assert_eq!(
        found.text,
        "25 matches for role:button \"add\"\n@ [1] list \"Products\"\n\
         - [2] link \"Widget 1\" $1.50 [3] button \"Add to cart\"\n\
         - [4] link \"Widget 2\" $2.50 [5] button \"Add to cart\"\n\
         - [6] link \"Widget 3\" $3.50 [7] button \"Add to cart\"\n… +22 more (limit 3)\n"
    );
    assert_eq!((found.matches, found.listed), (25, 3));
    assert_eq!(
        text(&s, "widget 25"),
        "1 match for \"widget 25\"\n@ [1] list \"Products\"\n\
         - [50] link \"Widget 25\" $25.50 [51] button \"Add to cart\"\n"
    );
    assert_eq!(
        text(&s, "role:link 24"),
        "1 match for role:link \"24\"\n@ [1] list \"Products\"\n\
         - [48] link \"Widget 24\" $24.50 [49] button \"Add to cart\"\n"
    );
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let filler = "lorem ipsum dolor sit amet ".repeat(30);
    let html = format!("<p>{filler}<a href=/x>the target</a> {filler}</p>");
    let s = snap(&html);
    let found = run(&s, "role:link target", 20);
    let line = found.text.lines().nth(1).unwrap_or_default();
    assert!(line.starts_with('…') && line.ends_with('…'), "{line}");
    assert!(line.contains("[1] link \"the target\""), "{line}");
    assert!(line.chars().count() <= whittle_engine::find::MAX_LINE_CHARS + 2, "{line}");
}
