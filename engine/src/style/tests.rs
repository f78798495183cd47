use super::*;
use crate::parse;

fn styled(html: &str) -> (Document, Styles) {
    let doc = parse(html.as_bytes(), &Default::default());
    let styles = cascade(&doc, &CascadeOptions::default());
    (doc, styles)
}

fn by_id(doc: &Document, id: &str) -> NodeId {
    doc.element_by_id(id).unwrap_or(NodeId::DOCUMENT)
}

#[test]
fn precedence_follows_cascade_4() {
    let (doc, s) = styled(
        "<style>
           #a { display: block } div { display: inline } .c.c { display: flex }
           #b { display: none !important } #b { display: block }
           #d { display: grid !important }
         </style>
         <div id=a class='c'>a</div><div id=b style='display:block'>b</div>
         <div id=d style='display:inline'>d</div><div id=e style='display:none !important' class=c>e</div>",
    );
    assert_eq!(s.get(by_id(&doc, "a")).display, Display::Block); // id beats two classes
    assert_eq!(s.get(by_id(&doc, "b")).display, Display::None); // important beats inline
    assert_eq!(s.get(by_id(&doc, "d")).display, Display::Grid);
    assert_eq!(s.get(by_id(&doc, "e")).display, Display::None); // inline important wins
}

#[test]
fn visibility_rules() {
    let (doc, s) = styled(
        "<div id=v style='visibility:hidden'><span id=back style='visibility:visible'>x</span><span id=still>y</span></div>
         <div id=n style='display:none'><span id=under style='display:block'>z</span></div>
         <div id=cv style='content-visibility:hidden'><p id=cvchild>q</p></div>
         <details id=det><summary id=sum>s</summary><p id=detp>d</p></details>
         <details open><summary>s</summary><p id=openp>d</p></details>
         <p hidden id=h>h</p><p hidden=until-found id=uf><span id=ufc>u</span></p>
         <noscript><p>n</p></noscript>",
    );
    assert_eq!(s.hidden(by_id(&doc, "v")), Some(Hidden::Invisible));
    assert_eq!(s.hidden(by_id(&doc, "back")), None);
    assert_eq!(s.hidden(by_id(&doc, "still")), Some(Hidden::Invisible));
    assert_eq!(s.hidden(by_id(&doc, "under")), Some(Hidden::DisplayNone));
    assert_eq!(s.hidden(by_id(&doc, "cv")), None);
    assert_eq!(s.hidden(by_id(&doc, "cvchild")), Some(Hidden::Skipped));
    assert_eq!(s.hidden(by_id(&doc, "sum")), None);
    assert_eq!(s.hidden(by_id(&doc, "detp")), Some(Hidden::Skipped));
    assert_eq!(s.hidden(by_id(&doc, "openp")), None);
    assert_eq!(s.hidden(by_id(&doc, "h")), Some(Hidden::DisplayNone));
    assert_eq!(s.hidden(by_id(&doc, "ufc")), Some(Hidden::Skipped));
    let noscript = doc
        .descendants(NodeId::DOCUMENT)
        .find(|&n| doc.element(n).is_some_and(|e| &*e.name.local == "noscript"));
    assert!(noscript.is_some_and(|n| s.hidden(n) == Some(Hidden::DisplayNone)));
}

#[test]
fn revert_goes_back_to_the_ua_sheet() {
    let (doc, s) = styled(
        "<style>div { display: inline } #r { display: revert } #a { all: revert } #u { display: unset }</style>
         <div id=r>r</div><div id=a>a</div><div id=u>u</div>",
    );
    assert_eq!(s.get(by_id(&doc, "r")).display, Display::Block);
    assert_eq!(s.get(by_id(&doc, "a")).display, Display::Block);
    assert_eq!(s.get(by_id(&doc, "u")).display, Display::Inline);
}

#[test]
fn media_queries_use_the_viewport() {
    let html = "<style>@media (max-width: 600px) { #m { display: none } }</style><p id=m>m</p>";
    let doc = parse(html.as_bytes(), &Default::default());
    let wide = cascade(&doc, &CascadeOptions::default());
    let narrow = cascade(
        &doc,
        &CascadeOptions { viewport: Viewport { width: 400, height: 800 }, ..Default::default() },
    );
    assert!(wide.is_visible(by_id(&doc, "m")));
    assert!(!narrow.is_visible(by_id(&doc, "m")));
}

#[test]
fn linked_sheets_apply_where_linked() {
    let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/").ok(), ..Default::default() };
    let doc = parse(b"<link rel=stylesheet href=a.css><style>#t{display:block}</style><p id=t>t", &options);
    let styles = cascade(
        &doc,
        &CascadeOptions {
            stylesheets: vec![StylesheetText { url: Some("https://x.test/p/a.css".into()), text: "#t{display:none}".into() }],
            ..Default::default()
        },
    );
    // The <style> comes later in tree order, so it wins.
    assert_eq!(styles.get(by_id(&doc, "t")).display, Display::Block);
    let user = cascade(
        &doc,
        &CascadeOptions {
            stylesheets: vec![StylesheetText { url: None, text: "#t{display:none}".into() }],
            ..Default::default()
        },
    );
    assert_eq!(user.get(by_id(&doc, "t")).display, Display::None);
}

#[test]
fn a_sheet_cache_reads_a_linked_sheet_once_and_answers_as_reading_does() {
    let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/").ok(), ..Default::default() };
    let doc = parse(b"<link rel=stylesheet href=a.css><p id=t class=n>t</p><p id=u>u", &options);
    let cache = SheetCache::default();
    let with = |text: &str, width: u32| {
        let stylesheets = vec![StylesheetText { url: Some("https://x.test/p/a.css".into()), text: text.into() }];
        let viewport = Viewport { width, ..Viewport::default() };
        let cached = cascade(&doc, &CascadeOptions { stylesheets: stylesheets.clone(), viewport, sheet_cache: Some(cache.clone()), ..Default::default() });
        let plain = cascade(&doc, &CascadeOptions { stylesheets, viewport, ..Default::default() });
        for id in ["t", "u"] {
            assert_eq!(cached.get(by_id(&doc, id)), plain.get(by_id(&doc, id)), "{text} at {width}px: #{id}");
        }
        (cached.is_visible(by_id(&doc, "t")), cached.is_visible(by_id(&doc, "u")))
    };
    let kept = |cache: &SheetCache| cache.0.lock().map(|c| c.len()).unwrap_or(usize::MAX);
    let sheet = ".n{display:none} @media (max-width: 600px) { #u{display:none} }";
    assert_eq!(with(sheet, 1280), (false, true));
    assert_eq!(kept(&cache), 1);
    // Read again from the cache: the same answer.
    assert_eq!(with(sheet, 1280), (false, true));
    assert_eq!(kept(&cache), 1);
    // Another viewport evaluates its media queries anew.
    assert_eq!(with(sheet, 500), (false, false));
    assert_eq!(kept(&cache), 2);
    // The same URL with a new text is read anew.
    assert_eq!(with("#u{display:none}", 1280), (true, false));
    // A sheet with layers or imports depends on the rest of the cascade:
    // it is read every time and never kept.
    let before = kept(&cache);
    assert_eq!(with("@layer base { .n{display:none} }", 1280), (false, true));
    assert_eq!(with("@import url(b.css); .n{display:none}", 1280), (false, true));
    assert_eq!(kept(&cache), before);
}

/// A cached sheet must not carry one document's layers into another: a
/// sheet whose rules sit in a layer an earlier sheet declared is read
/// anew for every page (the second page, declaring no layers, once
/// panicked on it).
#[test]
fn a_sheet_in_another_sheets_layer_is_not_cached() {
    let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/").ok(), ..Default::default() };
    let stylesheets = vec![StylesheetText { url: Some("https://x.test/p/a.css".into()), text: "@layer a { #t{display:none} }".into() }];
    let cache = SheetCache::default();
    let pages = [
        "<style>@layer z, a; @layer z { #t{display:block} }</style><link rel=stylesheet href=a.css><p id=t>t",
        "<link rel=stylesheet href=a.css><p id=t>t",
        "<style>@layer a, z; @layer z { #t{display:block} }</style><link rel=stylesheet href=a.css><p id=t>t",
    ];
    for page in pages {
        let doc = parse(page.as_bytes(), &options);
        let cached = cascade(&doc, &CascadeOptions { stylesheets: stylesheets.clone(), sheet_cache: Some(cache.clone()), ..Default::default() });
        let plain = cascade(&doc, &CascadeOptions { stylesheets: stylesheets.clone(), ..Default::default() });
        assert_eq!(cached.get(by_id(&doc, "t")), plain.get(by_id(&doc, "t")), "{page}");
    }
    assert_eq!(cache.0.lock().map(|c| c.len()).ok(), Some(0));
}

/// A cached sheet is filed once and its filing shared by later cascades:
/// their answers equal a cascade that reads and files everything itself,
/// whatever the page's own sheets around it, its layers and its mode.
#[test]
fn a_cached_sheet_is_filed_once_and_cascades_in_its_place() {
    let shared = "#t{display:block} #v{display:none} #w{display:none} #x{display:block} #y{display:block !important}
                  .b::before{content:'s'} p.a::after{content:'s'}";
    for quirks in ["", "<!doctype html>"] {
        let page = format!(
            "{quirks}<style>@layer base {{ #x{{display:none}} #y{{display:none !important}} }} #t{{display:none}} #v{{display:block}}</style>
             <link rel=stylesheet href=a.css><style>#w{{display:flex}} .a::after{{content:none}}</style>
             <p id=t class=b>t</p><p id=v class=a>v</p><p id=w>w</p><p id=x>x</p><p id=y>y</p>"
        );
        let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/").ok(), ..Default::default() };
        let doc = parse(page.as_bytes(), &options);
        let stylesheets = vec![StylesheetText { url: Some("https://x.test/p/a.css".into()), text: shared.into() }];
        let cache = SheetCache::default();
        let plain = cascade(&doc, &CascadeOptions { stylesheets: stylesheets.clone(), ..Default::default() });
        let filing = || {
            let cached = cache.0.lock().ok().and_then(|c| c.front().map(|c| Arc::clone(&c.sheet)));
            cached.map(|s| s.filed.0.iter().filter_map(|f| f.get().map(Arc::as_ptr)).collect::<Vec<_>>())
        };
        // The first cascade reads the sheet into the cache and files it
        // alone; the second finds both.
        let mut filings = Vec::new();
        for _ in 0..2 {
            let cached = cascade(&doc, &CascadeOptions { stylesheets: stylesheets.clone(), sheet_cache: Some(cache.clone()), ..Default::default() });
            for id in ["t", "v", "w", "x", "y"] {
                let id = by_id(&doc, id);
                assert_eq!(cached.get(id), plain.get(id), "{quirks}: #{}", doc.element(id).and_then(|e| e.attr("id")).unwrap_or_default());
                assert_eq!(cached.before(id).map(|p| p.content.clone()), plain.before(id).map(|p| p.content.clone()));
                assert_eq!(cached.after(id).map(|p| p.content.clone()), plain.after(id).map(|p| p.content.clone()));
            }
            filings.push(filing());
        }
        assert_eq!(filings[0].as_ref().map(Vec::len), Some(1), "{quirks}: one filing, made by the first cascade");
        assert_eq!(filings[0], filings[1], "{quirks}: the second cascade used it");
        // The answers themselves: a later sheet wins over an earlier one,
        // an unlayered rule over a layered one, and for !important the
        // other way round.
        let display = |id| plain.get(by_id(&doc, id)).display;
        assert_eq!(
            ["t", "v", "w", "x", "y"].map(display),
            [Display::Block, Display::None, Display::Flex, Display::Block, Display::None],
            "{quirks}"
        );
        assert!(plain.before(by_id(&doc, "t")).is_some() && plain.after(by_id(&doc, "v")).is_none());
    }
}

#[test]
fn pseudo_elements_and_inheritance() {
    let (doc, s) = styled(
        "<style>.b::before{content:'x'} .a::after{content:attr(title)} .n::before{content:none}
          p { font-size: 20px; text-transform: uppercase } span { font-size: 2em }</style>
         <p id=p class='b a n' title=t><span id=s>s</span></p>",
    );
    let p = by_id(&doc, "p");
    // `.n::before { content: none }` comes later and wins.
    assert!(s.before(p).is_none());
    assert_eq!(
        s.after(p).map(|a| a.content.clone()),
        Some(Content::Items(vec![values::ContentItem::Attr("title".into())], None))
    );
    let span = by_id(&doc, "s");
    assert_eq!(s.get(span).font_size, 40.0);
    assert_eq!(s.get(span).text_transform, TextTransform::Uppercase);
}

#[test]
fn descendant_selectors_with_bloom_filter() {
    let (doc, s) = styled(
        "<style>.menu .item { display: none } ul > li.x { display: none } div + p { display: none }</style>
         <div class=menu><ul><li class='item' id=i1>a</li><li class=x id=i2>b</li></ul></div>
         <ul><li class=item id=i3>c</li></ul><div></div><p id=sib>s</p>",
    );
    assert!(!s.is_visible(by_id(&doc, "i1")));
    assert!(!s.is_visible(by_id(&doc, "i2")));
    assert!(s.is_visible(by_id(&doc, "i3")));
    assert!(!s.is_visible(by_id(&doc, "sib")));
}

#[test]
fn quirks_mode_ancestors_match_ignoring_case_through_the_bloom_filter() {
    let sheet = "<style>.MENU .item, #Nav a, .side + div .x, div.Wrap > i ~ b, .other .item { display: none }
         .tip .Mark::after { content: '!' } .Mark::before { content: '*' }</style>";
    let body = "<div class=menu><span class=Item id=q1>a</span></div><div id=nav><a id=q2>b</a></div>
         <p class=SIDE></p><div><b class=x id=q3>c</b></div><div class=wrap><i></i><b id=q4>d</b></div>
         <span class=item id=q5>e</span><div class=TIP><i class=mark id=q6>f</i></div><i class=mark id=q7>g</i>";
    // No doctype: quirks mode, where classes and ids match ignoring ASCII case.
    let (doc, s) = styled(&format!("{sheet}{body}"));
    assert!(doc.is_quirks());
    for hidden in ["q1", "q2", "q3", "q4"] {
        assert!(!s.is_visible(by_id(&doc, hidden)), "quirks: #{hidden} is hidden");
    }
    assert!(s.is_visible(by_id(&doc, "q5")), "quirks: #q5 has no .other ancestor");
    // A sibling's class and the originating element's own are not ancestors.
    assert!(s.after(by_id(&doc, "q6")).is_some(), "quirks: #q6::after");
    assert!(s.before(by_id(&doc, "q7")).is_some(), "quirks: #q7::before");
    let (doc, s) = styled(&format!("<!doctype html>{sheet}{body}"));
    assert!(!doc.is_quirks());
    for shown in ["q1", "q2", "q3", "q4", "q5"] {
        assert!(s.is_visible(by_id(&doc, shown)), "standards mode: #{shown} matches no rule of another case");
    }
    assert!(s.after(by_id(&doc, "q6")).is_none() && s.before(by_id(&doc, "q7")).is_none());
}

#[test]
fn has_looks_down_and_ahead() {
    let (doc, s) = styled(
        "<style>div:has(> .x) { display: none } p:has(+ .y) { display: none } p:has(~ .z) { display: none }
           section:not(:has(.q)) { display: none } article:has(.deep) { display: none } li:has(.nope) { display: none }</style>
         <div id=a><span class=x>x</span></div><div id=b><i><span class=x>x</span></i></div>
         <p id=c>c</p><p class=y>y</p><p id=d>d</p><span></span><b class=z>z</b>
         <section id=e>e</section><section id=f><b class=q>q</b></section>
         <article id=g><div><div><b class=deep>d</b></div></div></article><ul><li id=h>h</li></ul>",
    );
    let hidden = |id| !s.is_visible(by_id(&doc, id));
    assert!(hidden("a"), "child");
    assert!(!hidden("b"), "a grandchild is not a child");
    assert!(hidden("c"), "next sibling");
    assert!(hidden("d"), "later sibling");
    assert!(hidden("e") && !hidden("f"), ":not(:has())");
    assert!(hidden("g"), "deep descendant");
    assert!(!hidden("h"), "no match");
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}

#[test]
fn has_inside_has_is_invalid_and_dropped() {
    let (doc, s) = styled(
        "<style>div:has(:has(.x)) { display: none } div:is(:has(> .x)) { visibility: hidden }</style>
         <div id=a><p><b class=x>x</b></p></div><div id=b><b class=x>x</b></div>",
    );
    assert!(s.is_visible(by_id(&doc, "a")), ":has() nested in :has() is not a selector");
    assert_eq!(s.get(by_id(&doc, "b")).visibility, Visibility::Hidden);
}

#[test]
fn has_on_a_big_page_is_one_walk_not_a_cut() {
    // `body:has(...)` looks at every element once: more than one
    // element's own budget, well within the document's.
    let html = format!("<style>body:has(.last) #t {{ display: none }}</style><p id=t>t</p>{}<b class=last>l</b>", "<i></i>".repeat(30_000));
    let (doc, s) = styled(&html);
    assert!(!s.is_visible(by_id(&doc, "t")));
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}

/// The cascade of `html` at `https://x.test/p/page.html` with `sheets`
/// (URL, CSS) given as fetched.
fn styled_with(html: &str, sheets: &[(&str, &str)]) -> (Document, Styles) {
    let options = crate::ParseOptions { url: url::Url::parse("https://x.test/p/page.html").ok(), ..Default::default() };
    let doc = parse(html.as_bytes(), &options);
    let stylesheets = sheets.iter().map(|(u, t)| StylesheetText { url: Some((*u).into()), text: (*t).into() }).collect();
    let styles = cascade(&doc, &CascadeOptions { stylesheets, ..Default::default() });
    (doc, styles)
}

#[test]
fn imports_apply_where_they_are_imported() {
    let sheets = [
        ("https://x.test/p/a.css", "#a { display: none }"),
        ("https://x.test/p/css/theme.css", "@import 'base.css'; #t { visibility: hidden }"),
        ("https://x.test/p/css/base.css", "#b { display: none } #t { display: none }"),
        ("https://x.test/p/print.css", "#c { display: none }"),
        ("https://x.test/p/late.css", "#d { display: none }"),
        ("https://x.test/p/grid.css", "#e { display: none }"),
        ("https://x.test/p/nope.css", "#f { display: none }"),
    ];
    let (doc, s) = styled_with(
        "<style>@import url(a.css); @import 'print.css' print; @import url('grid.css') supports(display: grid) screen;
                @import 'nope.css' supports(not (display: grid)); #g { display: none } @import 'late.css';</style>
         <link rel=stylesheet href=css/theme.css><style>#t { display: block }</style>
         <p id=a>a</p><p id=b>b</p><p id=c>c</p><p id=d>d</p><p id=e>e</p><p id=f>f</p><p id=t>t</p>",
        &sheets,
    );
    let hidden = |id| !s.is_visible(by_id(&doc, id));
    assert!(hidden("a"), "an import in a <style>");
    assert!(hidden("b"), "an import in a linked sheet, resolved against that sheet's URL");
    assert!(!hidden("c"), "media that does not hold");
    assert!(!hidden("d"), "an @import after a style rule is invalid");
    assert!(hidden("e") && !hidden("f"), "supports()");
    // The import comes first in the importing sheet's place, and the
    // later <style> still wins over both.
    assert_eq!(s.get(by_id(&doc, "t")).display, Display::Block);
    assert_eq!(s.get(by_id(&doc, "t")).visibility, Visibility::Hidden);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}

#[test]
fn import_cycles_depth_and_missing_sheets_stop_with_a_diagnostic() {
    let sheets = [
        ("https://x.test/p/a.css", "@import 'b.css'; #a { display: none }"),
        ("https://x.test/p/b.css", "@import 'a.css'; #b { display: none }"),
    ];
    let (doc, s) = styled_with("<style>@import 'a.css'; @import 'gone.css';</style><p id=a>a</p><p id=b>b</p>", &sheets);
    assert!(!s.is_visible(by_id(&doc, "a")) && !s.is_visible(by_id(&doc, "b")));
    let said: Vec<&str> = s.diagnostics().iter().map(|d| d.message.as_str()).collect();
    assert!(said.iter().any(|m| m.starts_with("1 @import rules were not followed")), "{said:?}");
    assert!(said.iter().any(|m| m.starts_with("1 imported stylesheets were not loaded")), "{said:?}");

    // A chain of 1,000 imports: read to the depth limit, then cut.
    let urls: Vec<String> = (0..1000).map(|i| format!("https://x.test/p/{i}.css")).collect();
    let texts: Vec<String> = (0..1000).map(|i| format!("@import '{}.css'; #p{i} {{ display: none }}", i + 1)).collect();
    let chain: Vec<(&str, &str)> = urls.iter().zip(&texts).map(|(u, t)| (u.as_str(), t.as_str())).collect();
    let (doc, s) = styled_with("<style>@import '0.css';</style><p id=p0>0</p><p id=p7>7</p><p id=p8>8</p>", &chain);
    assert!(!s.is_visible(by_id(&doc, "p0")) && !s.is_visible(by_id(&doc, "p7")));
    assert!(s.is_visible(by_id(&doc, "p8")), "past the depth limit");
    assert!(s.diagnostics().iter().any(|d| d.message.contains("@import rules were not followed")));
}

#[test]
fn layers_order_the_cascade() {
    let sheets = [("https://x.test/p/base.css", "#i { display: none }")];
    let (doc, s) = styled_with(
        "<style>
           #u { display: block } @layer x { #u { display: none } }
           @layer a, b; @layer b { #o { display: block } } @layer a { #o { display: none } }
           @layer a { #imp { display: none !important } } @layer b { #imp { display: block !important } }
           @layer a { @layer inner { #n { display: none } } #n { display: block } }
           @layer { #anon { display: none } } #anon { display: block }
         </style>
         <style>@import 'base.css' layer(base);</style><style>#i { display: block }</style>
         <p id=u>u</p><p id=o>o</p><p id=imp>imp</p><p id=n>n</p><p id=anon>anon</p><p id=i>i</p>",
        &sheets,
    );
    let shown = |id| s.is_visible(by_id(&doc, id));
    assert!(shown("u"), "rules outside layers beat layered ones, whatever the order");
    assert!(shown("o"), "a layer declared later wins");
    assert!(!shown("imp"), "for !important, the earlier layer wins");
    assert!(shown("n"), "a layer's own rules beat its sublayers'");
    assert!(shown("anon"), "an anonymous layer is a layer");
    assert!(shown("i"), "an import into a layer is layered");
    // Alone, the layered import applies.
    let (doc, s) = styled_with("<style>@import 'base.css' layer(base);</style><p id=i>i</p>", &sheets);
    assert!(!s.is_visible(by_id(&doc, "i")));
}

#[test]
fn custom_properties_cascade_inherit_and_substitute() {
    let (doc, s) = styled(
        "<style>
           :root { --d: none; --hide: hidden; --w: 120px }
           .a { display: var(--d) } .b { display: var(--missing, none) }
           .c { display: none } .c { display: var(--missing) }
           .parent { --v: hidden } .kid { visibility: var(--v) }
           .cyc { --x: var(--y); --y: var(--x); display: var(--x, none) }
           .over { display: none } .over { --p: var(--q); --q: var(--p); display: var(--p) }
           .imp { --d: block !important } .late { --d: inline } .imp.late { display: var(--d) }
           .sized { width: var(--w) } .col { color: var(--fg, #fff); background-color: var(--bg, #fff) }
           .pseudo::before { content: var(--label, 'from a var') }
         </style>
         <p id=a class=a>a</p><p id=b class=b>b</p><p id=c class=c>c</p>
         <div class=parent><span id=kid class=kid>k</span></div><span id=nokid class=kid>n</span>
         <p id=cyc class=cyc>c</p><p id=over class=over>o</p><p id=imp class='imp late'>i</p>
         <div id=sized class=sized>s</div><p id=col class=col>c</p><p id=ps class=pseudo>p</p>
         <p id=inl style='--d: block; display: var(--d)'>i</p>",
    );
    let get = |id| s.get(by_id(&doc, id));
    assert_eq!(get("a").display, Display::None);
    assert_eq!(get("b").display, Display::None, "fallback");
    assert_eq!(get("c").display, Display::Inline, "invalid at computed-value time: unset");
    assert_eq!(get("kid").visibility, Visibility::Hidden, "inherited");
    assert_eq!(get("nokid").visibility, Visibility::Visible);
    assert_eq!(get("cyc").display, Display::None, "a cycle falls back");
    assert_eq!(get("over").display, Display::Inline, "a cycle without fallback: unset");
    assert_eq!(get("imp").display, Display::Block, "an important custom property wins");
    assert_eq!(get("inl").display, Display::Block, "set and used in a style attribute");
    assert!(s.box_decls(by_id(&doc, "sized")).iter().any(|(p, _)| *p == boxes::BoxProp::Width));
    assert_eq!(get("col").color, get("col").background_color, "text in its background's colour");
    assert!(get("col").color.is_some());
    assert_eq!(
        s.before(by_id(&doc, "ps")).map(|p| p.content.clone()),
        Some(Content::Items(vec![values::ContentItem::Text("from a var".into())], None))
    );
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
}

#[test]
fn var_bombs_are_bounded_and_said() {
    let chain: String = (0..10_000).map(|i| format!("--v{i}: var(--v{});", i + 1)).collect();
    let doubling: String = (1..40).map(|i| format!("--b{i}: var(--b{}) var(--b{});", i - 1, i - 1)).collect();
    let html = format!(
        "<style>:root {{ {chain} --v10000: none; --b0: xxxxxxxxxxxxxxxx; {doubling} }} #a {{ display: var(--v0) }} #b {{ display: var(--b39, none) }}</style><p id=a>a</p><p id=b>b</p>"
    );
    let (doc, s) = styled(&html);
    assert_eq!(s.get(by_id(&doc, "a")).display, Display::Inline, "too deep: not set, so unset");
    assert_eq!(s.get(by_id(&doc, "b")).display, Display::None, "too long: not set, so the fallback");
    assert!(s.diagnostics().iter().any(|d| d.message.contains("custom properties were not substituted")), "{:?}", s.diagnostics());
}

/// The cascade and layout of `html`, container queries included.
fn laid_out(html: &str) -> (Document, Styles) {
    let doc = parse(html.as_bytes(), &Default::default());
    let (styles, _) = crate::style_and_layout(&doc, &CascadeOptions::default(), &Default::default());
    (doc, styles)
}

#[test]
fn container_queries_ask_the_nearest_container_of_their_name() {
    let (doc, s) = laid_out(
        "<style>
           .cq { container-type: inline-size; width: 500px } .side { container: side / inline-size; width: 250px; padding: 0 10px }
           .inner { container-type: inline-size; width: 600px } .labelled { container-name: labelled; width: 100px }
           .half { container-type: size; width: 50%; height: 100px } .parent { width: 600px }
           @container (min-width: 400px) { .wide { display: none } }
           @container (min-width: 800px) { .wider { display: none } }
           @container side (max-width: 250px) { .named { display: none } .far { display: none } }
           @container (max-width: 300px) { .nearest { display: none } .self { display: none } }
           @container labelled (min-width: 1px) { .unsized { display: none } }
           @container (min-width: 1px) { .orphan { display: none } }
           @container (width >= 300px) and (height < 200px) { .pct { display: none } }
           .sq { --theme: dark } @container style(--theme: dark) { .styled { display: none } }
         </style>
         <div class=cq><p id=wide class=wide>w</p><p id=wider class=wider>w</p></div>
         <div class=side><p id=named class=named>n</p><div class=inner><p id=far class=far>f</p><p id=nearest class=nearest>n</p></div></div>
         <div class=labelled><p id=unsized class=unsized>u</p></div><p id=orphan class=orphan>o</p>
         <div id=self class='cq self'>s</div><div class=parent><div class=half><p id=pct class=pct>p</p></div></div>
         <div class=sq><p id=styled class=styled>s</p></div><p id=unstyled class=styled>u</p>",
    );
    let hidden = |id| !s.is_visible(by_id(&doc, id));
    assert!(hidden("wide") && !hidden("wider"), "against the container's width");
    assert!(hidden("named"), "a named container's content box (250px)");
    assert!(hidden("far"), "past a nearer container without that name");
    assert!(!hidden("nearest"), "the nearest container is the 600px one");
    assert!(!hidden("unsized"), "a name without a container-type is no container");
    assert!(!hidden("orphan"), "no container: the query does not hold");
    assert!(!hidden("self"), "a container does not query itself");
    assert!(hidden("pct"), "range syntax, and the height of a size container");
    assert!(hidden("styled") && !hidden("unstyled"), "style() queries ask the parent");
    // Without layout (the cascade alone), size queries do not hold.
    let alone = cascade(&doc, &CascadeOptions::default());
    assert!(alone.is_visible(by_id(&doc, "wide")));
}
