//! Pages that need scripts: which the static path can tell
//! (`whittle_engine::script_need`), a stylesheet that hides the whole page
//! until its script shows it (the cascade sets that rule aside), and every
//! page of the shared corpus whose observation is empty or nearly so,
//! accounted for.

use whittle_engine::style::Hidden;
use whittle_engine::{ScriptNeed, script_need};

use crate::snap;

/// What the static path says a page needs, and its observation's lines.
fn need(html: &str) -> (Option<ScriptNeed>, Vec<String>) {
    let s = snap(html.as_bytes(), Some("https://news.example/story"));
    (script_need(&s.document, &s.styles, &s.concealment, &s.semantics), s.observation.lines)
}

const ARTICLE: &str = "<main><h1>Rain returns</h1><p>The first heavy rain of the year fell over the valley on Tuesday night, filling the reservoirs by a third.</p></main>";

#[test]
fn a_page_hidden_until_its_script_shows_it_is_shown_with_the_rule_set_aside() {
    // An anti-clickjacking guard: `html { display: none }` and a script.
    let guard = format!("<style>html {{ display: none }}</style><script>if (self === top) document.documentElement.style.display = 'block';</script>{ARTICLE}");
    let (got, lines) = need(&guard);
    assert_eq!(got, Some(ScriptNeed::Veil));
    assert!(lines.iter().any(|l| l.contains("Rain returns")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("filling the reservoirs")), "{lines:#?}");
    let s = snap(guard.as_bytes(), None);
    let veil = s.styles.veil().expect("a veil");
    assert_eq!(veil.hid, Hidden::DisplayNone);
    assert_eq!(Some(veil.element), s.document.root_element());
    assert!(s.styles.diagnostics().iter().any(|d| d.message.contains("set aside")), "{:?}", s.styles.diagnostics());

    // An anti-flicker snippet: `body { visibility: hidden !important }`
    // in a style element a script removes.
    let flicker = format!("<style id=veil>body {{ visibility: hidden !important }}</style><script>document.getElementById('veil').remove()</script>{ARTICLE}");
    let (got, lines) = need(&flicker);
    assert_eq!(got, Some(ScriptNeed::Veil));
    assert!(lines.iter().any(|l| l.contains("filling the reservoirs")), "{lines:#?}");
    let s = snap(flicker.as_bytes(), None);
    assert_eq!(s.styles.veil().map(|v| v.hid), Some(Hidden::Invisible));
    assert_eq!(s.styles.veil().map(|v| v.element), s.document.body());
}

#[test]
fn what_hides_a_page_without_a_script_stays_hidden() {
    // No script can show it: the page is empty, as in a browser.
    let (got, lines) = need(&format!("<style>html {{ display: none }}</style>{ARTICLE}"));
    assert_eq!(got, None);
    assert!(lines.is_empty(), "{lines:#?}");
    // Hiding one part of the page is not hiding the page.
    let (got, lines) = need(&format!("<style>main {{ display: none }}</style><script>x()</script><p>Still here, and long enough to be a page of its own with a sentence.</p>{ARTICLE}"));
    assert_eq!(got, None);
    assert!(!lines.iter().any(|l| l.contains("Rain returns")), "{lines:#?}");
    // Faded content is shown anyway: no veil to lift.
    let s = snap(format!("<style>html {{ opacity: 0 }}</style><script>x()</script>{ARTICLE}").as_bytes(), None);
    assert!(s.styles.veil().is_none());
    assert!(s.observation.lines.iter().any(|l| l.contains("Rain returns")));
    // A hidden element that is not the root or the body: not a veil.
    let s = snap(format!("<script>x()</script><div style=display:none>{ARTICLE}</div>").as_bytes(), None);
    assert!(s.styles.veil().is_none());
}

#[test]
fn shells_need_scripts_and_articles_with_scripts_do_not() {
    let (got, _) = need("<title>App</title><div id=root></div><script src=/bundle.js></script>");
    assert_eq!(got, Some(ScriptNeed::Shell));
    let (got, _) = need(&format!("<title>Story</title>{ARTICLE}{ARTICLE}{ARTICLE}<script>analytics()</script>"));
    assert_eq!(got, None);
}

/// The pages of the shared corpus that need scripts, with what the static
/// path sees and why Chromium is right for them. Every other page — all of
/// readability, bootstrap and WPT but the first two — reads complete as
/// served: bootstrap's sign-in and breadcrumbs pages and WPT's role pages,
/// for one, are small, but everything a person sees is in their markup
/// (their scripts add behaviour, or check roles).
const NEED_SCRIPTS: &[(&str, ScriptNeed, &str)] = &[
    ("readability/engadget/source.html", ScriptNeed::Veil, "`html { display: none }` until a frame-busting script shows the article"),
    ("readability/seattletimes-1/source.html", ScriptNeed::Veil, "`body { visibility: hidden }` until a flicker-control script removes the rule"),
    ("servo-warc-pages/Baidu.html", ScriptNeed::Shell, "the whole page is in a `display: none` wrapper a script shows"),
    ("servo-warc-pages/Instagram.html", ScriptNeed::Shell, "an empty body that scripts fill"),
    ("servo-warc-pages/Twitter.html", ScriptNeed::Shell, "its `<noscript>` asks for JavaScript, and it has no main content of its own"),
];

/// The project's script-rendered pages: what each needs.
const SCRIPTED: &[(&str, Option<ScriptNeed>)] = &[
    ("app-root.html", Some(ScriptNeed::Shell)),
    ("late-render.html", Some(ScriptNeed::Shell)),
    ("todo-app.html", Some(ScriptNeed::Shell)),
    ("hash-router.html", Some(ScriptNeed::Shell)),
    ("frame-guard.html", Some(ScriptNeed::Veil)),
    ("body-veil.html", Some(ScriptNeed::Veil)),
    // Content of its own and one button a script handles: static until
    // the button is clicked.
    ("script-button.html", None),
    // Its anti-flicker class is added by its own script, which the static
    // path does not run: nothing hides it.
    ("anti-flicker.html", None),
];

/// How much text a page's observation shows (its lines, not the header
/// or notes), how much text its markup holds outside scripts, styles and
/// templates, and what it needs.
fn shown_and_written(bytes: &[u8]) -> (usize, usize, Option<ScriptNeed>) {
    use whittle_engine::{Edge, NodeId};
    let s = snap(bytes, Some("https://corpus.whittle.test/page"));
    let need = script_need(&s.document, &s.styles, &s.concealment, &s.semantics);
    let shown: usize = s.observation.lines.iter().map(|l| l.trim().chars().count()).sum();
    let doc = &s.document;
    let mut written = 0;
    let mut walk = doc.traverse(NodeId::DOCUMENT);
    while let Some(edge) = walk.next() {
        let Edge::Open(id) = edge else { continue };
        if let Some(e) = doc.element(id)
            && matches!(&**e.local_name(), "script" | "style" | "template" | "noscript" | "head")
        {
            walk.skip_children(id);
        } else if let Some(t) = doc.text(id) {
            written += t.split_whitespace().map(|w| w.chars().count() + 1).sum::<usize>();
        }
    }
    (shown, written, need)
}

#[test]
fn the_project_s_script_rendered_pages_need_what_they_need() {
    for (name, want) in SCRIPTED {
        let path = whittle_corpus::workspace_dir().join("corpus/scripted").join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (_, _, need) = shown_and_written(&bytes);
        assert_eq!(need, *want, "{name}");
    }
}

/// Every page of the shared corpus opened alone: those that need scripts
/// are exactly [`NEED_SCRIPTS`], and none of the others shows next to
/// nothing of a page that has text (under 80 characters of the 400 or
/// more its markup holds).
#[test]
fn the_corpus_pages_that_need_scripts_are_known_and_none_is_left_empty() {
    let Some(shared) = whittle_corpus::shared_dir() else {
        println!("scripts: corpus scan skipped: {}", whittle_corpus::shared_missing_reason());
        return;
    };
    let mut pages = whittle_corpus::html_files_under(&shared, &[]);
    pages.extend(whittle_corpus::Suite::ArticleExtraction.pages());
    // Readability's expected outputs are that library's markup, not pages.
    pages.retain(|p| !p.ends_with("expected.html"));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(1);
    let chunk = pages.len().div_ceil(threads).max(1);
    let found: Vec<(String, usize, usize, Option<ScriptNeed>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = pages
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .filter_map(|p| {
                            let bytes = whittle_corpus::load(p).ok()?;
                            let (shown, written, need) = shown_and_written(&bytes);
                            (need.is_some() || (shown < 80 && written >= 400)).then(|| (whittle_corpus::short_name(p), shown, written, need))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut wrong = Vec::new();
    for (name, shown, written, need) in &found {
        let known = NEED_SCRIPTS.iter().find(|(page, _, _)| page == name);
        match (need, known) {
            (Some(need), Some((_, want, why))) if need == want => {
                println!("scripts: {name}: needs scripts ({need:?}): {why}; static view {shown} of {written} characters")
            }
            (Some(need), _) => wrong.push(format!("{name}: needs scripts ({need:?}), not known to")),
            (None, _) => wrong.push(format!("{name}: shows {shown} of {written} characters")),
        }
    }
    for (page, _, _) in NEED_SCRIPTS {
        if !found.iter().any(|(n, _, _, need)| n == page && need.is_some()) {
            wrong.push(format!("{page}: known to need scripts, but does not"));
        }
    }
    println!("scripts: {} of {} corpus pages need scripts", found.iter().filter(|f| f.3.is_some()).count(), pages.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
