//! whittle's layout against Chromium's, offline.
//!
//! Every page of `corpus/fixtures` and `corpus/layout` that has a
//! `<page>.layout.json` beside it (Chromium's boxes at 1280×800, written by
//! `corpus/oracle/chromium_layout.py`, see `corpus/oracle/README.md`) is
//! parsed (with its `file:` URL as base), cascaded with the default options
//! (the default `Viewport` is 1280×800, like the oracle's) and laid out with
//! `compute_layout(.., &LayoutOptions::default())` (scroll 0). Then:
//!
//! - **Matching**: elements are matched by their index in document order
//!   among elements (`doc.descendants(NodeId::DOCUMENT)` keeping elements;
//!   `getElementsByTagName('*')` in Chromium). Both trees come from the same
//!   HTML tree-building algorithm, so the orders agree; an index whose tags
//!   differ (or that one side lacks) is skipped, counted and reported.
//! - **Content height**: ours (`Layout::content_height`) over Chromium's
//!   (`scrollingElement.scrollHeight`); both are at least the viewport's
//!   height. Aim: within ±15% on every page.
//! - **First screen**: over the elements Chromium renders (`getClientRects`
//!   not empty) that are inside `<body>` (its descendants; `<html>`, `<head>`
//!   and `<body>` themselves are left out), does ours agree with Chromium on
//!   whether the element is in the first viewport? Chromium's element is in
//!   it when its border box reaches into y ∈ [0, 800): `y < 800` and either
//!   `y + h > 0` or `h == 0` (an empty box at the top counts). Ours is in it
//!   when `Layout::placement == Placement::InView`; an element we gave no box
//!   (`Placement::Unknown`) is not. Only the vertical position counts, as
//!   `Placement` is vertical: a skip link at `left: -9999px` near the top
//!   counts as in the first screen for both. Clipping is not considered
//!   either: a box inside an `overflow: hidden` or scrolling container counts
//!   by its own border box. The rule for Chromium's boxes
//!   is the same rule `Layout::placement` applies to ours at scroll 0 (the
//!   test checks that the two stay in step). Aim: ≥ 90% agreement over all
//!   elements of all pages together; per-page figures are printed too.
//!
//! `layout_matches_chromium` asserts the aims; the comparison itself is a
//! function over two lists of boxes, tested on Chromium's own boxes (which
//! must agree 100% with themselves, height ratio 1.0) and on synthetic ones.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use whittle_engine::{
    CascadeOptions, Document, Layout, LayoutOptions, NodeId, ParseOptions, Placement, Rect, cascade, compute_layout,
    parse,
};

/// The viewport the oracle ran at, and the default `Viewport`.
const VIEWPORT: (f32, f32) = (1280.0, 800.0);
/// Content height within this fraction of Chromium's, on every page.
const HEIGHT_TOLERANCE: f32 = 0.15;
/// First-screen agreement over all elements of all pages.
const MIN_AGREEMENT: f64 = 0.90;
/// Pages whose content height misses the ±15% aim today, with the ratio
/// they must not get worse than: `lists` (nested lists and definition
/// lists run long). Fixing one removes its entry.
const KNOWN_HEIGHT_MISSES: &[(&str, f32)] = &[("layout/lists.html", 0.20)];
/// How many skipped indices a page lists by name.
const SKIPS_LISTED: usize = 5;

/// One element as a layout engine placed it.
#[derive(Debug, Clone, PartialEq)]
struct Placed {
    /// Index in document order among elements.
    index: usize,
    /// Lowercase local name.
    tag: String,
    /// Border box, page coordinates (meaningless when not rendered).
    rect: Rect,
    /// Whether it has a box at all.
    rendered: bool,
    /// Whether it is a descendant of `<body>`.
    in_body: bool,
}

/// One page's boxes from one engine.
#[derive(Debug, Clone)]
struct PageBoxes {
    content_height: f32,
    elements: Vec<Placed>,
}

/// Whether the element reaches into the first viewport (scroll 0): the rule
/// of `Layout::placement(..) == Placement::InView`, applied to any box.
fn in_first_screen(p: &Placed, viewport_height: f32) -> bool {
    p.rendered && p.rect.y < viewport_height && (p.rect.bottom() > 0.0 || p.rect.height <= 0.0)
}

/// The comparison of one page.
#[derive(Debug, Clone, Default)]
struct Comparison {
    ours_height: f32,
    chromium_height: f32,
    /// Elements counted for the first screen (rendered by Chromium, in body,
    /// matched).
    compared: usize,
    /// Of those, where both agree.
    agree: usize,
    /// In our first screen, not in Chromium's.
    ours_only: usize,
    /// In Chromium's first screen, not in ours.
    chromium_only: usize,
    /// Indices skipped because the trees differ there.
    skipped: usize,
    /// What was skipped, the first few.
    notes: Vec<String>,
}

impl Comparison {
    /// Our content height over Chromium's.
    fn ratio(&self) -> f32 {
        self.ours_height / self.chromium_height.max(1.0)
    }

    /// First-screen agreement (1.0 when nothing was compared).
    fn agreement(&self) -> f64 {
        if self.compared == 0 { 1.0 } else { self.agree as f64 / self.compared as f64 }
    }
}

impl Comparison {
    /// Counts a skipped index and keeps the first few reasons.
    fn skip(&mut self, why: String) {
        self.skipped += 1;
        if self.notes.len() < SKIPS_LISTED {
            self.notes.push(why);
        }
    }
}

/// Compares our boxes with Chromium's (see the module comment).
fn compare(chromium: &PageBoxes, ours: &PageBoxes, viewport_height: f32) -> Comparison {
    let mut c = Comparison {
        ours_height: ours.content_height,
        chromium_height: chromium.content_height,
        ..Comparison::default()
    };
    let by_index: HashMap<usize, &Placed> = ours.elements.iter().map(|p| (p.index, p)).collect();
    for theirs in &chromium.elements {
        let Some(mine) = by_index.get(&theirs.index) else {
            c.skip(format!("#{} <{}>: we have no element there", theirs.index, theirs.tag));
            continue;
        };
        if mine.tag != theirs.tag {
            c.skip(format!("#{}: Chromium has <{}>, we have <{}>", theirs.index, theirs.tag, mine.tag));
            continue;
        }
        if !(theirs.rendered && theirs.in_body) {
            continue;
        }
        c.compared += 1;
        match (in_first_screen(mine, viewport_height), in_first_screen(theirs, viewport_height)) {
            (a, b) if a == b => c.agree += 1,
            (true, _) => c.ours_only += 1,
            (false, _) => c.chromium_only += 1,
        }
    }
    let theirs: std::collections::HashSet<usize> = chromium.elements.iter().map(|p| p.index).collect();
    for mine in ours.elements.iter().filter(|p| !theirs.contains(&p.index)) {
        c.skip(format!("#{} <{}>: Chromium has no element there", mine.index, mine.tag));
    }
    c
}

/// Reads an oracle file.
fn chromium_boxes(json: &str) -> Result<PageBoxes, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let viewport: Vec<f64> = v["viewport"].as_array().into_iter().flatten().filter_map(Value::as_f64).collect();
    if viewport != [f64::from(VIEWPORT.0), f64::from(VIEWPORT.1)] {
        return Err(format!("measured at a {viewport:?} viewport, not {VIEWPORT:?}"));
    }
    let content_height = v["content_height"].as_f64().ok_or("no content_height")? as f32;
    let body = v["body"].as_u64().map(|b| b as usize);
    let list = v["elements"].as_array().ok_or("no elements")?;
    let mut elements: Vec<Placed> = Vec::with_capacity(list.len());
    for (k, e) in list.iter().enumerate() {
        let num = |key: &str| e[key].as_f64().map(|n| n as f32).ok_or_else(|| format!("element {k}: no {key}"));
        let index = e["i"].as_u64().ok_or_else(|| format!("element {k}: no i"))? as usize;
        if index != k {
            return Err(format!("element {k} has index {index}"));
        }
        // Parents come before their children in document order.
        let parent = e["p"].as_u64().map(|p| p as usize).filter(|&p| p < k);
        let in_body = parent.is_some_and(|p| Some(p) == body || elements[p].in_body);
        elements.push(Placed {
            index,
            tag: e["tag"].as_str().ok_or_else(|| format!("element {k}: no tag"))?.to_owned(),
            rect: Rect { x: num("x")?, y: num("y")?, width: num("w")?, height: num("h")? },
            rendered: e["r"].as_bool().ok_or_else(|| format!("element {k}: no r"))?,
            in_body,
        });
    }
    Ok(PageBoxes { content_height, elements })
}

/// Our boxes, and how many elements `Layout::placement` classifies
/// differently from [`in_first_screen`] (should be none).
fn our_boxes(doc: &Document, layout: &Layout) -> (PageBoxes, usize) {
    let body = doc.body();
    let mut elements = Vec::new();
    let mut out_of_step = 0;
    for id in doc.descendants(NodeId::DOCUMENT) {
        let Some(el) = doc.element(id) else { continue };
        let rect = layout.rect(id);
        let placed = Placed {
            index: elements.len(),
            tag: el.local_name().to_string(),
            rect: rect.unwrap_or_default(),
            rendered: rect.is_some(),
            in_body: body.is_some_and(|b| doc.ancestors(id).any(|a| a == b)),
        };
        if (layout.placement(id) == Placement::InView) != in_first_screen(&placed, VIEWPORT.1) {
            out_of_step += 1;
        }
        elements.push(placed);
    }
    (PageBoxes { content_height: layout.content_height(), elements }, out_of_step)
}

/// A page with Chromium's boxes beside it.
#[derive(Debug)]
struct OraclePage {
    html: PathBuf,
    json: PathBuf,
}

impl OraclePage {
    fn name(&self) -> String {
        let dir = self.html.parent().and_then(Path::file_name).and_then(|d| d.to_str()).unwrap_or("?");
        let file = self.html.file_name().and_then(|f| f.to_str()).unwrap_or("?");
        format!("{dir}/{file}")
    }

    fn chromium(&self) -> Result<PageBoxes, String> {
        let json = std::fs::read_to_string(&self.json).map_err(|e| format!("{}: {e}", self.json.display()))?;
        chromium_boxes(&json).map_err(|e| format!("{}: {e}", self.json.display()))
    }

    /// Parses, cascades and lays out the page.
    fn ours(&self) -> Result<(Document, Layout), String> {
        let bytes = std::fs::read(&self.html).map_err(|e| format!("{}: {e}", self.html.display()))?;
        let options = ParseOptions { url: url::Url::from_file_path(&self.html).ok(), ..ParseOptions::default() };
        let doc = parse(&bytes, &options);
        let styles = cascade(&doc, &CascadeOptions::default());
        let layout = compute_layout(&doc, &styles, &LayoutOptions::default());
        Ok((doc, layout))
    }
}

/// The pages with oracle data, and why others are missing.
fn oracle_pages() -> (Vec<OraclePage>, Vec<String>) {
    let mut pages = Vec::new();
    let mut missing = Vec::new();
    for dir in [whittle_corpus::fixtures_dir(), whittle_corpus::layout_dir()] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            missing.push(format!("{} not found: its pages are not compared", dir.display()));
            continue;
        };
        let mut html: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .collect();
        html.sort();
        for page in html {
            let stem = page.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let json = page.with_file_name(format!("{stem}.layout.json"));
            if json.is_file() {
                pages.push(OraclePage { html: page, json });
            } else {
                missing.push(format!(
                    "{} has no {}: not compared (python3 corpus/oracle/chromium_layout.py measures it)",
                    page.display(),
                    json.display()
                ));
            }
        }
    }
    (pages, missing)
}

/// Says what is missing; returns the pages, or `None` (after saying why)
/// when there is nothing to compare.
fn pages_or_skip(test: &str) -> Option<Vec<OraclePage>> {
    let (pages, missing) = oracle_pages();
    for m in &missing {
        println!("{test}: {m}");
    }
    if pages.is_empty() {
        println!("{test}: skipped: no page has Chromium layout data (*.layout.json), nothing to compare");
        return None;
    }
    Some(pages)
}

#[test]
fn layout_matches_chromium() {
    let Some(pages) = pages_or_skip("layout") else { return };
    let mut table = format!(
        "{:<34} {:>5} {:>17} {:>6} {:>7} {:>6} {:>6} {:>5}\n",
        "page", "elems", "height ours/chr", "ratio", "screen1", "ours+", "chr+", "skip"
    );
    let mut total = Comparison::default();
    let mut failures = Vec::new();
    for page in &pages {
        let name = page.name();
        let (chromium, (doc, layout)) = match page.chromium().and_then(|c| Ok((c, page.ours()?))) {
            Ok(x) => x,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let (ours, out_of_step) = our_boxes(&doc, &layout);
        let c = compare(&chromium, &ours, VIEWPORT.1);
        let _ = writeln!(
            table,
            "{:<34} {:>5} {:>8.0}/{:<8.0} {:>6.3} {:>6.1}% {:>6} {:>6} {:>5}",
            name,
            c.compared,
            c.ours_height,
            c.chromium_height,
            c.ratio(),
            100.0 * c.agreement(),
            c.ours_only,
            c.chromium_only,
            c.skipped
        );
        for n in &c.notes {
            let _ = writeln!(table, "    skipped {n}");
        }
        if out_of_step > 0 {
            // Layout::placement also counts boxes clipped by an ancestor's
            // overflow as out of view; the rect rule here does not.
            let _ = writeln!(table, "    {out_of_step} elements clipped or fixed: placement differs from the rect rule");
        }
        let known = KNOWN_HEIGHT_MISSES.iter().find(|(page, _)| *page == name).map(|&(_, ceiling)| ceiling);
        if let Some(ceiling) = known {
            if (c.ratio() - 1.0).abs() > ceiling {
                failures.push(format!("{name}: content height ratio {:.3} is worse than the recorded miss ±{ceiling}", c.ratio()));
            }
        } else if (c.ratio() - 1.0).abs() > HEIGHT_TOLERANCE {
            failures.push(format!(
                "{name}: content height {:.0} is {:.0}% of Chromium's {:.0} (aim: within ±{:.0}%)",
                c.ours_height,
                100.0 * c.ratio(),
                c.chromium_height,
                100.0 * HEIGHT_TOLERANCE
            ));
        }
        total.compared += c.compared;
        total.agree += c.agree;
        total.ours_only += c.ours_only;
        total.chromium_only += c.chromium_only;
        total.skipped += c.skipped;
    }
    let _ = writeln!(
        table,
        "{:<34} {:>5} {:>17} {:>6} {:>6.1}% {:>6} {:>6} {:>5}",
        format!("total ({} pages)", pages.len()),
        total.compared,
        "",
        "",
        100.0 * total.agreement(),
        total.ours_only,
        total.chromium_only,
        total.skipped
    );
    println!(
        "layout against Chromium (screen1: first-screen agreement; ours+/chr+: in only our/Chromium's first \
         screen)\n{table}"
    );
    if total.agreement() < MIN_AGREEMENT {
        failures.push(format!(
            "first-screen agreement {:.1}% over {} elements (aim: at least {:.0}%)",
            100.0 * total.agreement(),
            total.compared,
            100.0 * MIN_AGREEMENT
        ));
    }
    assert!(failures.is_empty(), "layout is off Chromium's:\n{}", failures.join("\n"));
}

/// The committed oracle data lines up with our tree: the same elements in
/// the same order (what matching by index relies on).
#[test]
fn oracle_data_matches_our_tree() {
    let Some(pages) = pages_or_skip("layout oracle") else { return };
    let mut failures = Vec::new();
    for page in &pages {
        let result = page.chromium().and_then(|chromium| {
            let (doc, layout) = page.ours()?;
            let (ours, _) = our_boxes(&doc, &layout);
            Ok(compare(&chromium, &ours, VIEWPORT.1))
        });
        match result {
            Ok(c) if c.skipped == 0 => {}
            Ok(c) => failures.push(format!("{}: {} indices differ: {}", page.name(), c.skipped, c.notes.join("; "))),
            Err(e) => failures.push(e),
        }
    }
    println!("layout oracle: {} pages, {} with trees that differ from Chromium's", pages.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Chromium's boxes compared with themselves: full agreement, ratio 1.
#[test]
fn comparison_of_chromium_with_itself_is_exact() {
    let Some(pages) = pages_or_skip("layout comparison") else { return };
    let mut compared = 0;
    for page in &pages {
        let chromium = page.chromium().unwrap_or_else(|e| panic!("{e}"));
        let c = compare(&chromium, &chromium, VIEWPORT.1);
        assert_eq!(c.skipped, 0, "{}: {:?}", page.name(), c.notes);
        assert_eq!(c.agree, c.compared, "{}", page.name());
        assert!((c.ratio() - 1.0).abs() < 1e-6, "{}: ratio {}", page.name(), c.ratio());
        assert!(c.compared > 0 || chromium.elements.len() < 5, "{}: nothing compared", page.name());
        compared += c.compared;
    }
    println!("layout comparison: {} pages, {compared} elements agree with themselves", pages.len());
}

fn placed(index: usize, tag: &str, y: f32, height: f32, rendered: bool) -> Placed {
    Placed {
        index,
        tag: tag.to_owned(),
        rect: Rect { x: 0.0, y, width: 100.0, height },
        rendered,
        in_body: !matches!(tag, "html" | "head" | "body" | "title"),
    }
}

#[test]
fn comparison_on_synthetic_boxes() {
    let chromium = PageBoxes {
        content_height: 2000.0,
        elements: vec![
            placed(0, "html", 0.0, 2000.0, true),
            placed(1, "head", 0.0, 0.0, false),
            placed(2, "title", 0.0, 0.0, false),
            placed(3, "body", 0.0, 2000.0, true),
            placed(4, "h1", 10.0, 40.0, true),         // in the first screen
            placed(5, "p", 780.0, 40.0, true),         // straddles the fold: in
            placed(6, "p", 800.0, 40.0, true),         // starts at the fold: below
            placed(7, "span", 790.0, 0.0, true),       // empty box above the fold: in
            placed(8, "div", -9999.0, 20.0, true),     // above the page: out
            placed(9, "nav", 0.0, 0.0, false),         // display:none: not counted
            placed(10, "footer", 1900.0, 100.0, true), // far below
        ],
    };
    let mut ours = chromium.clone();
    ours.content_height = 1800.0;
    let c = compare(&chromium, &ours, 800.0);
    assert_eq!((c.compared, c.agree, c.skipped), (6, 6, 0));
    assert!((c.ratio() - 0.9).abs() < 1e-6);

    // The paragraph at the fold moves below it; the footer gets no box; the
    // hidden nav gets one in view (not counted: Chromium does not render it).
    ours.elements[5].rect.y = 820.0;
    ours.elements[10].rendered = false;
    ours.elements[9] = placed(9, "nav", 0.0, 30.0, true);
    let c = compare(&chromium, &ours, 800.0);
    assert_eq!((c.compared, c.agree, c.ours_only, c.chromium_only), (6, 5, 0, 1));
    assert!((c.agreement() - 5.0 / 6.0).abs() < 1e-9);

    // The footer has no box and counts as not in view; moving it into view
    // makes it ours-only.
    ours.elements[10] = placed(10, "footer", 300.0, 10.0, true);
    let c = compare(&chromium, &ours, 800.0);
    assert_eq!((c.ours_only, c.chromium_only), (1, 1));

    // Trees that differ: a tag mismatch and an extra element are skipped and
    // reported, not compared.
    let mut other = chromium.clone();
    other.elements[4].tag = "h2".into();
    other.elements.push(placed(11, "script", 0.0, 0.0, false));
    let c = compare(&chromium, &other, 800.0);
    assert_eq!((c.compared, c.agree, c.skipped), (5, 5, 2));
    assert!(c.notes[0].contains("Chromium has <h1>, we have <h2>"), "{:?}", c.notes);
    assert!(c.notes[1].contains("#11 <script>: Chromium has no element there"), "{:?}", c.notes);
}

#[test]
fn oracle_json_is_read() {
    let json = r#"{"viewport": [1280, 800], "content_height": 1234, "body": 2, "elements": [
{"i": 0, "tag": "html", "p": null, "x": 0, "y": 0, "w": 1280, "h": 1234, "r": true},
{"i": 1, "tag": "head", "p": 0, "x": 0, "y": 0, "w": 0, "h": 0, "r": false},
{"i": 2, "tag": "body", "p": 0, "x": 8, "y": 8, "w": 1264, "h": 1218, "r": true},
{"i": 3, "tag": "div", "p": 2, "x": 8, "y": 8, "w": 1264, "h": 900.5, "r": true},
{"i": 4, "tag": "p", "p": 3, "x": 8, "y": 900, "w": 1264, "h": 18, "r": true}
]}"#;
    let boxes = chromium_boxes(json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(boxes.content_height, 1234.0);
    let in_body: Vec<bool> = boxes.elements.iter().map(|e| e.in_body).collect();
    assert_eq!(in_body, [false, false, false, true, true]);
    assert_eq!(boxes.elements[3].rect, Rect { x: 8.0, y: 8.0, width: 1264.0, height: 900.5 });
    let screen: Vec<bool> = boxes.elements.iter().map(|e| in_first_screen(e, 800.0)).collect();
    assert_eq!(screen, [true, false, true, true, false]);
    assert!(chromium_boxes(&json.replace("[1280, 800]", "[1280, 713]")).is_err());
}
