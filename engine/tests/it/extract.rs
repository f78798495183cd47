//! The `extract` tool (docs/mcp.md) on hand-written pages: tables with
//! their header, lists of products and of cards, the main text, links,
//! paging to a token budget, and the errors a model can cause.

use whittle_engine::fold::tokens;
use whittle_engine::{ExtractError, ExtractKind, Extracted, NodeId, Snapshot, extract};

use crate::find::products;
use crate::snap;

const PLANS: &str = r#"<title>Plans</title>
<main>
<h1>Plans</h1>
<table><caption>Prices</caption>
<thead><tr><th>Plan</th><th>Price</th><th>Seats</th></tr></thead>
<tbody>
<tr><td><a href="/basic">Basic</a></td><td>$10</td><td>1</td></tr>
<tr><td>Team | Pro</td><td>$50</td><td>10</td></tr>
<tr style="display:none"><td>Secret</td><td>$0</td><td>0</td></tr>
<tr><td>Enterprise <table><tr><td>nested</td><td>info</td></tr></table></td><td>Call</td>
  <td><span hidden>x</span>many</td></tr>
</tbody></table>
<p>Small print with <a href="/terms">terms</a>.</p>
</main>"#;

const ARTICLE: &str = r#"<title>Article</title>
<nav aria-label=Site><a href=/>Home</a></nav>
<main><h1>Title</h1><p>First paragraph with <a href="/more">a link</a>.</p><p>Second paragraph.</p>
<form aria-label=Subscribe><input aria-label=Email></form></main>
<footer>Footer text</footer>"#;

const CARDS: &str = r#"<main><h1>Results</h1><p>Four results.</p>
<div class=card><h2>Lamp</h2><p>$12</p><a href=/lamp>View</a></div>
<div class=card><h2>Mug</h2><p>$5</p><a href=/mug>View</a></div>
<div class=card><h2>Tent</h2><p>$200</p><a href=/tent>View</a></div>
<div class=card><h2>Rope</h2><p>$9</p><a href=/rope>View</a></div>
</main>"#;

fn page(html: &str) -> Snapshot {
    snap(html.as_bytes(), Some("https://shop.example/page"))
}

fn run(
    s: &Snapshot,
    kind: ExtractKind,
    scope: Option<NodeId>,
    offset: usize,
    links: bool,
    budget: u32,
) -> Result<Extracted, ExtractError> {
    extract(&s.document, &s.styles, &s.concealment, &s.semantics, &s.tree, kind, scope, offset, links, budget)
}

fn text(s: &Snapshot, kind: ExtractKind, links: bool) -> String {
    match run(s, kind, None, 0, links, 2_000) {
        Ok(e) => e.text,
        Err(e) => panic!("{kind:?}: {e}"),
    }
}

/// The first element named `tag` (with `href`, when given).
fn element(s: &Snapshot, tag: &str, href: Option<&str>) -> NodeId {
    let doc = &s.document;
    doc.descendants(NodeId::DOCUMENT)
        .find(|&n| {
            doc.element(n).is_some_and(|e| &**e.local_name() == tag && (href.is_none() || e.attr("href") == href))
        })
        .unwrap_or_else(|| panic!("no {tag} {href:?}"))
}

#[test]
fn a_table_with_its_header_first() {
    let s = page(PLANS);
    let out = run(&s, ExtractKind::Table, None, 0, false, 2_000).expect("table");
    assert_eq!(
        out.text,
        "[1] table \"Prices\" · 3 rows\nPlan | Price | Seats\nBasic | $10 | 1\nTeam \\| Pro | $50 | 10\n\
         Enterprise nested info | Call | many\n"
    );
    assert_eq!((out.items_total, out.next_offset), (3, None));
    assert_eq!(
        text(&s, ExtractKind::Table, true),
        "[1] table \"Prices\" · 3 rows\nPlan | Price | Seats\nBasic (https://shop.example/basic) | $10 | 1\n\
         Team \\| Pro | $50 | 10\nEnterprise nested info | Call | many\n"
    );
    // The table's ref gives the same table.
    let table = element(&s, "table", None);
    assert_eq!(run(&s, ExtractKind::Table, Some(table), 0, false, 2_000).map(|e| e.text), Ok(out.text));
}

#[test]
fn tables_that_are_not_there() {
    let s = page(PLANS);
    let link = element(&s, "a", Some("/basic"));
    let err = run(&s, ExtractKind::Table, Some(link), 0, false, 2_000).err();
    assert_eq!(err, Some(ExtractError::NotATable { role: "link".to_owned() }));
    assert_eq!(err.map(|e| e.to_string()).unwrap_or_default(), "the ref is a link, not a table");
    let s = page(ARTICLE);
    let err = run(&s, ExtractKind::Table, None, 0, false, 2_000).err();
    assert_eq!(err.map(|e| e.to_string()).unwrap_or_default(), "no table on the page");
}

#[test]
fn tables_page_with_the_header_on_every_page() {
    let mut html = String::from("<table><tr><th>Name</th><th>Amount</th></tr>");
    for i in 1..=50 {
        html.push_str(&format!("<tr><td>Row {i}</td><td>{}</td></tr>", i * 10));
    }
    html.push_str("</table>");
    let s = page(&html);
    let rows = pages(&s, ExtractKind::Table, 100, "Name | Amount");
    let expected: Vec<String> = (1..=50).map(|i| format!("Row {i} | {}", i * 10)).collect();
    assert_eq!(rows, expected);
    let err = run(&s, ExtractKind::Table, None, 50, false, 100).err();
    assert_eq!(err.map(|e| e.to_string()).unwrap_or_default(), "offset 50 is past the end (50 rows)");
}

/// Every page of an extraction in turn: each fits the budget by the
/// estimate, begins with `header` when given, ends with the line that
/// names the next offset; returns the rows of all pages.
fn pages(s: &Snapshot, kind: ExtractKind, budget: u32, header: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut offset = 0;
    let mut count = 0;
    loop {
        let out = run(s, kind, None, offset, false, budget).expect("page");
        let lines: Vec<&str> = out.text.lines().collect();
        let cost: u32 = lines.iter().map(|l| tokens::line_cost(0, l)).sum();
        assert!(cost <= budget, "{cost} tokens > {budget}:\n{}", out.text);
        let mut body = &lines[1..];
        if !header.is_empty() {
            assert_eq!(body.first().copied(), Some(header));
            body = &body[1..];
        }
        match out.next_offset {
            Some(next) => {
                let more = format!("… +{} more (extract offset:{next})", out.items_total - next);
                assert_eq!(body.last().copied(), Some(more.as_str()));
                let span = format!("s {}–{next} of {}", offset + 1, out.items_total);
                assert!(lines[0].ends_with(&span), "{}", lines[0]);
                rows.extend(body[..body.len() - 1].iter().map(|l| (*l).to_owned()));
                assert!(next > offset);
                offset = next;
            }
            None => {
                rows.extend(body.iter().map(|l| (*l).to_owned()));
                break;
            }
        }
        count += 1;
        assert!(count < 100, "no progress");
    }
    assert!(count >= 2, "one page only");
    rows
}

#[test]
fn a_product_list_as_rows_with_refs() {
    let s = page(&products(25));
    let out = run(&s, ExtractKind::List, None, 0, false, 2_000).expect("list");
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines.len(), 26);
    assert_eq!(lines[0], "[1] list \"Products\" · 25 items");
    assert_eq!(lines[1], "[2] link \"Widget 1\" $1.50 [3] button \"Add to cart\"");
    assert_eq!(lines[25], "[50] link \"Widget 25\" $25.50 [51] button \"Add to cart\"");
    let with_links = text(&s, ExtractKind::List, true);
    assert_eq!(
        with_links.lines().nth(1),
        Some("[2] link \"Widget 1\" (https://shop.example/p/1) $1.50 [3] button \"Add to cart\"")
    );
    // The list's ref gives the same rows; paging gives them all once.
    let ul = element(&s, "ul", None);
    assert_eq!(run(&s, ExtractKind::List, Some(ul), 0, false, 2_000).map(|e| e.text), Ok(out.text.clone()));
    let rows = pages(&s, ExtractKind::List, 100, "");
    assert_eq!(rows, lines[1..].to_vec());
}

#[test]
fn cards_without_a_line_of_their_own_are_rows_too() {
    let s = page(CARDS);
    assert_eq!(
        text(&s, ExtractKind::List, false),
        "main · 4 items\nLamp · $12 · [1] link \"View\"\nMug · $5 · [2] link \"View\"\n\
         Tent · $200 · [3] link \"View\"\n\
         Rope · $9 · [4] link \"View\"\n"
    );
    let s = page(ARTICLE);
    assert_eq!(run(&s, ExtractKind::List, None, 0, false, 2_000).err(), Some(ExtractError::NoList));
}

#[test]
fn the_main_text_is_the_main_content() {
    let s = page(ARTICLE);
    // Navigation, the form and the footer are not the article.
    assert_eq!(
        text(&s, ExtractKind::Text, false),
        "text · 3 paragraphs\nh1 Title\nFirst paragraph with a link.\nSecond paragraph.\n"
    );
    // Plain text: `links` applies to a ref's subtree only.
    assert_eq!(text(&s, ExtractKind::Text, true), text(&s, ExtractKind::Text, false));
    // A scope needs a ref to expand.
    let main = element(&s, "main", None);
    assert_eq!(run(&s, ExtractKind::Text, Some(main), 0, false, 2_000).err(), Some(ExtractError::ScopeWithoutRef));
    let s = page(&products(4));
    let ul = element(&s, "ul", None);
    assert_eq!(
        run(&s, ExtractKind::Text, Some(ul), 0, false, 2_000).map(|e| e.text),
        Ok("[1] list \"Products\" · 4 paragraphs\n- Widget 1 $1.50\n- Widget 2 $2.50\n- Widget 3 $3.50\n\
            - Widget 4 $4.50\n"
            .to_owned())
    );
}

#[test]
fn every_link_with_its_url() {
    let s = page(ARTICLE);
    assert_eq!(
        text(&s, ExtractKind::Links, false),
        "2 links\n[1] link \"Home\" (https://shop.example/)\n[2] link \"a link\" (https://shop.example/more)\n"
    );
}

#[test]
fn hidden_rows_and_links_are_never_extracted() {
    let html = r#"<ul><li><a href=/a>A</a></li><li hidden><a href=/h>Hidden</a></li><li><a href=/b>B</a></li>
        <li style="visibility:hidden"><a href=/v>Invisible</a></li><li><a href=/c>C</a></li></ul>"#;
    let s = page(html);
    let list = text(&s, ExtractKind::List, true);
    assert_eq!(
        list,
        "[1] list · 3 items\n[2] link \"A\" (https://shop.example/a)\n[3] link \"B\" (https://shop.example/b)\n\
         [4] link \"C\" (https://shop.example/c)\n"
    );
    let links = text(&s, ExtractKind::Links, false);
    assert!(!links.contains("Hidden") && !links.contains("Invisible"), "{links}");
}
