//! Unit tests of acting on a page: the rules HTML gives for each
//! operation. Expected values are worked out from the spec by hand.

use super::submit::is_email;
use super::*;
use crate::parse::{ParseOptions, parse_str};

fn page(html: &str) -> Document {
    let options = ParseOptions { url: Url::parse("https://shop.example/checkout/step?x=1").ok(), ..Default::default() };
    parse_str(html, &options)
}

fn id(doc: &Document, id: &str) -> NodeId {
    doc.element_by_id(id).unwrap_or_else(|| panic!("no #{id}"))
}

/// Every element with an id, by id (taken before the document is
/// borrowed mutably).
fn ids(doc: &Document) -> std::collections::HashMap<String, NodeId> {
    let mut out = std::collections::HashMap::new();
    for n in doc.descendants(NodeId::DOCUMENT) {
        if let Some(key) = doc.element(n).and_then(|e| e.id()) {
            out.entry(key.to_owned()).or_insert(n);
        }
    }
    out
}

fn value(doc: &Document, node: &str) -> String {
    control_value(doc, id(doc, node))
}

fn text_entries(s: &Submission) -> Vec<(String, String)> {
    s.entries
        .iter()
        .map(|e| match &e.value {
            EntryValue::Text(v) => (e.name.clone(), v.clone()),
            EntryValue::File(f) => (e.name.clone(), format!("file:{}", f.filename)),
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|&(n, v)| (n.to_owned(), v.to_owned())).collect()
}

#[test]
fn typing_replaces_or_appends_and_keeps_the_default_apart() {
    let mut doc = page("<input id=a value=Jane>");
    let n = ids(&doc);
    let a = n["a"];
    assert_eq!(type_text(&mut doc, a, "Joe", true), Ok(Typed { cut: 0 }));
    assert_eq!(value(&doc, "a"), "JaneJoe");
    type_text(&mut doc, a, "Ann", false).expect("typed");
    assert_eq!(value(&doc, "a"), "Ann");
    // The attribute is still the default.
    assert_eq!(doc.element(a).and_then(|e| e.attr("value")), Some("Jane"));
    clear(&mut doc, a).expect("cleared");
    assert_eq!(value(&doc, "a"), "");
}

#[test]
fn typing_follows_value_sanitization_and_maxlength() {
    let mut doc = page(
        "<input id=t maxlength=5><input id=e type=email><input id=m type=email multiple>
         <input id=u type=url><textarea id=ta maxlength=4></textarea><input id=n type=number>",
    );
    let n = ids(&doc);
    // Newlines are dropped in an input; maxlength counts UTF-16 code
    // units, so 😀 (two) does not fit after "abcd".
    assert_eq!(type_text(&mut doc, n["t"], "ab\ncd😀e", false), Ok(Typed { cut: 2 }));
    assert_eq!(value(&doc, "t"), "abcd");
    assert_eq!(type_text(&mut doc, n["t"], "xyz", true), Ok(Typed { cut: 2 }));
    assert_eq!(value(&doc, "t"), "abcdx");
    type_text(&mut doc, n["e"], "  jane@example.com \n", false).expect("typed");
    assert_eq!(value(&doc, "e"), "jane@example.com");
    type_text(&mut doc, n["m"], " a@b.c , d@e.f ", false).expect("typed");
    assert_eq!(value(&doc, "m"), "a@b.c,d@e.f");
    type_text(&mut doc, n["u"], " https://x.example/ ", false).expect("typed");
    assert_eq!(value(&doc, "u"), "https://x.example/");
    // A text area keeps newlines (CR LF as LF), one code unit each.
    assert_eq!(type_text(&mut doc, n["ta"], "a\r\nb\rcd", false), Ok(Typed { cut: 2 }));
    assert_eq!(value(&doc, "ta"), "a\nb\n");
    // A number field takes the text as it is; validation judges it.
    type_text(&mut doc, n["n"], "12abc", false).expect("typed");
    assert_eq!(value(&doc, "n"), "12abc");
}

#[test]
fn typing_refuses_what_a_person_cannot_type_into() {
    let mut doc = page(
        "<input id=ro readonly value=x><input id=dis disabled><fieldset disabled><input id=fs></fieldset>
         <input id=cb type=checkbox><div id=div>text</div><div id=aria role=textbox></div>
         <input id=range type=range><input id=color type=color><input id=hidden type=hidden>",
    );
    let n = ids(&doc);
    assert_eq!(type_text(&mut doc, n["ro"], "y", false), Err(ActError::ReadOnly(n["ro"])));
    assert_eq!(type_text(&mut doc, n["dis"], "y", false), Err(ActError::Disabled(n["dis"])));
    assert_eq!(type_text(&mut doc, n["fs"], "y", false), Err(ActError::Disabled(n["fs"])));
    assert_eq!(type_text(&mut doc, n["cb"], "y", false), Err(ActError::NotTextField));
    assert_eq!(type_text(&mut doc, n["div"], "y", false), Err(ActError::NotTextField));
    assert_eq!(type_text(&mut doc, n["hidden"], "y", false), Err(ActError::NotTextField));
    let aria = type_text(&mut doc, n["aria"], "y", false).expect_err("refused");
    assert!(matches!(aria, ActError::NeedsScript(_)), "{aria:?}");
    assert!(aria.to_string().starts_with("needs a script"));
    assert_eq!(type_text(&mut doc, n["range"], "much", false), Err(ActError::BadValue("takes a number")));
    type_text(&mut doc, n["range"], "70", false).expect("typed");
    assert_eq!(value(&doc, "range"), "70");
    type_text(&mut doc, n["range"], "700", false).expect("typed");
    assert_eq!(value(&doc, "range"), "100", "clamped to max");
    assert!(type_text(&mut doc, n["color"], "red", false).is_err());
    type_text(&mut doc, n["color"], "#1E90FF", false).expect("typed");
    assert_eq!(value(&doc, "color"), "#1e90ff");
    // Nothing changed by the refusals.
    assert_eq!(value(&doc, "ro"), "x");
}

#[test]
fn typing_into_editable_content_replaces_its_children() {
    let mut doc = page("<div id=ed contenteditable><p>old <b id=b>bold</b></p></div><div contenteditable=false><span id=no>x</span></div>");
    let n = ids(&doc);
    let b = n["b"];
    type_text(&mut doc, b, "line one\nline two", false).expect("typed");
    let ed = n["ed"];
    assert_eq!(doc.text_content(ed), "line oneline two");
    assert_eq!(doc.children(ed).filter(|&c| doc.element(c).is_some_and(|e| &**e.local_name() == "br")).count(), 1);
    type_text(&mut doc, ed, "!", true).expect("typed");
    assert_eq!(doc.text_content(ed), "line oneline two!");
    assert_eq!(type_text(&mut doc, n["no"], "y", false), Err(ActError::NotTextField));
    clear(&mut doc, ed).expect("cleared");
    assert_eq!(doc.first_child(ed), None);
}

#[test]
fn a_label_acts_on_its_control() {
    let mut doc = page("<label id=l>Name <input id=a></label><label id=c for=cb>Agree</label><input id=cb type=checkbox>");
    let n = ids(&doc);
    type_text(&mut doc, n["l"], "Jo", false).expect("typed");
    assert_eq!(value(&doc, "a"), "Jo");
    assert_eq!(set_checked(&mut doc, n["c"], true), Ok(true));
    assert!(is_checked(&doc, n["cb"]));
    assert_eq!(click(&mut doc, n["c"]), Ok(Click::Toggled { control: n["cb"], checked: false }));
    assert_eq!(click(&mut doc, n["l"]), Ok(Click::Focus(n["a"])));
}

#[test]
fn radio_groups_follow_form_owner_name_and_tree() {
    let mut doc = page(
        "<form id=f1><input type=radio name=r id=a checked><input type=radio name=r id=b>
           <input type=radio name=R id=upper checked></form>
         <form id=f2><input type=radio name=r id=c checked></form>
         <input type=radio name=r id=d form=f1><input type=radio name=r id=loose checked>
         <input type=radio id=nameless checked>",
    );
    let n = ids(&doc);
    assert_eq!(set_checked(&mut doc, n["d"], true), Ok(true));
    let checked = |doc: &Document, x: &str| is_checked(doc, id(doc, x));
    // d's group is f1's "r": a is unchecked, names are case-sensitive, f2
    // and radios without a form are other groups.
    assert!(!checked(&doc, "a") && checked(&doc, "d") && checked(&doc, "upper"));
    assert!(checked(&doc, "c") && checked(&doc, "loose") && checked(&doc, "nameless"));
    set_checked(&mut doc, n["b"], true).expect("checked");
    assert!(!checked(&doc, "d") && checked(&doc, "b"));
    assert_eq!(set_checked(&mut doc, n["b"], false), Err(ActError::UncheckRadio));
    assert_eq!(set_checked(&mut doc, n["a"], false), Ok(false));
    assert_eq!(set_checked(&mut doc, n["b"], true), Ok(false), "already checked");
}

#[test]
fn checking_refuses_what_is_not_a_native_checkbox() {
    let mut doc = page(
        "<div id=aria role=checkbox aria-checked=false>Agree</div><input id=t><fieldset disabled><legend>
         <input id=in-legend type=checkbox></legend><input id=off type=checkbox></fieldset>",
    );
    let n = ids(&doc);
    assert!(matches!(set_checked(&mut doc, n["aria"], true), Err(ActError::NeedsScript(_))));
    assert_eq!(set_checked(&mut doc, n["t"], true), Err(ActError::NotCheckable));
    assert_eq!(set_checked(&mut doc, n["off"], true), Err(ActError::Disabled(n["off"])));
    // The first legend of a disabled fieldset is not disabled.
    assert_eq!(set_checked(&mut doc, n["in-legend"], true), Ok(true));
}

#[test]
fn select_matches_label_then_value_then_loosely() {
    let mut doc = page(
        "<select id=s><option value=ca>Canada</option><option value=mx label=Mexico>MX</option>
           <option value=us disabled>United  States</option><optgroup label=More><option>New Zealand</option></optgroup></select>
         <select id=m multiple><option selected>A</option><option>B</option><option>C</option></select>",
    );
    let n = ids(&doc);
    let s = n["s"];
    assert_eq!(value(&doc, "s"), "Canada");
    assert_eq!(select(&mut doc, s, &["Mexico"]), Ok(vec!["Mexico".to_owned()]));
    assert_eq!(select(&mut doc, s, &["ca"]), Ok(vec!["Canada".to_owned()]));
    assert_eq!(select(&mut doc, s, &["  new   ZEALAND "]), Ok(vec!["New Zealand".to_owned()]));
    assert_eq!(select(&mut doc, s, &["MX"]), Ok(vec!["Mexico".to_owned()]), "by value, loosely");
    assert_eq!(select(&mut doc, s, &["united states"]), Err(ActError::OptionDisabled { label: "United States".to_owned() }));
    let missing = select(&mut doc, s, &["Mars"]).expect_err("refused");
    assert_eq!(missing.to_string(), "has no option \"Mars\" (options: Canada, Mexico, United States, New Zealand)");
    assert_eq!(select(&mut doc, s, &["Canada", "Mexico"]), Err(ActError::OneChoice { given: 2 }));
    assert_eq!(value(&doc, "s"), "Mexico", "refusals change nothing");
    // The markup is untouched: choices live in the form state.
    assert!(select_options(&doc, s).iter().all(|&o| doc.element(o).is_some_and(|e| !e.has_attr("selected"))));

    let m = n["m"];
    assert_eq!(select(&mut doc, m, &["c", "B"]), Ok(vec!["B".to_owned(), "C".to_owned()]));
    assert_eq!(select(&mut doc, m, &[]), Ok(vec![]));
    // An option's select is its select.
    let c = select_options(&doc, m)[2];
    assert_eq!(select(&mut doc, c, &["A"]), Ok(vec!["A".to_owned()]));
}

#[test]
fn many_options_are_listed_briefly() {
    let options: String = (1..=14).map(|i| format!("<option>O{i}</option>")).collect();
    let mut doc = page(&format!("<select id=s>{options}</select>"));
    let n = ids(&doc);
    let err = select(&mut doc, n["s"], &["none"]).expect_err("refused");
    assert_eq!(err.to_string(), "has no option \"none\" (options: O1, O2, O3, O4, O5, O6, O7, O8, O9, O10, … 4 more)");
}

#[test]
fn links_resolve_against_the_base_and_know_their_tab() {
    let mut doc = page(
        "<a id=rel href=../cart>Cart</a><a id=blank href=/help target=_blank><span id=inner>Help</span></a>
         <a id=named href=/x target=preview>X</a><a id=js href='javascript:void(0)'>JS</a>
         <a id=hash href=# onclick=go()>Go</a><a id=frag href=#top>Top</a><a id=none>Placeholder</a>",
    );
    let n = ids(&doc);
    let nav = |url: &str, new_tab| Ok(Click::Navigate { url: Url::parse(url).expect("a URL"), new_tab });
    assert_eq!(click(&mut doc, n["rel"]), nav("https://shop.example/cart", false));
    assert_eq!(click(&mut doc, n["inner"]), nav("https://shop.example/help", true));
    let text = doc.first_child(n["inner"]).expect("a child");
    assert_eq!(click(&mut doc, text), nav("https://shop.example/help", true), "a text node clicks its element");
    assert_eq!(click(&mut doc, n["named"]), nav("https://shop.example/x", true));
    assert_eq!(click(&mut doc, n["js"]), Err(ActError::NeedsScript("the link runs JavaScript")));
    assert!(matches!(click(&mut doc, n["hash"]), Err(ActError::NeedsScript(_))));
    assert_eq!(click(&mut doc, n["frag"]), nav("https://shop.example/checkout/step?x=1#top", false));
    assert_eq!(click(&mut doc, n["none"]), Ok(Click::Nothing));

    let mut doc = page("<base href=https://cdn.example/a/ target=_blank><a id=l href=b>B</a>");
    let n = ids(&doc);
    assert_eq!(click(&mut doc, n["l"]), nav("https://cdn.example/a/b", true));
}

#[test]
fn buttons_without_native_behaviour_need_a_script() {
    let mut doc = page(
        "<form><button id=plain type=button>Open</button><input id=ib type=button value=Go></form>
         <button id=orphan>Send</button><div id=div onclick=x()><span id=in>Menu</span></div>
         <span id=role role=button>Like</span><button id=off disabled>Off</button><p id=p>text</p>",
    );
    let n = ids(&doc);
    for x in ["plain", "ib", "orphan", "in", "role"] {
        let err = click(&mut doc, n[x]).expect_err("refused");
        assert!(matches!(err, ActError::NeedsScript(_)), "{x}: {err:?}");
    }
    assert_eq!(click(&mut doc, n["orphan"]).expect_err("refused").to_string(), "needs a script (the button has no form)");
    assert_eq!(click(&mut doc, n["off"]), Err(ActError::Disabled(n["off"])));
    assert_eq!(click(&mut doc, n["p"]), Ok(Click::Nothing));
}

#[test]
fn summary_toggles_its_details_only() {
    let mut doc = page("<details id=d><summary id=s>More</summary><summary id=s2>Not this</summary>Body</details>");
    let n = ids(&doc);
    let d = n["d"];
    assert_eq!(click(&mut doc, n["s"]), Ok(Click::DetailsToggled { details: d, open: true }));
    assert!(doc.element(d).is_some_and(|e| e.has_attr("open")));
    assert_eq!(click(&mut doc, n["s2"]), Ok(Click::Nothing));
    assert_eq!(click(&mut doc, n["s"]), Ok(Click::DetailsToggled { details: d, open: false }));
    assert!(!doc.element(d).is_some_and(|e| e.has_attr("open")));
}

#[test]
fn fields_get_the_focus_and_files_a_chooser() {
    let mut doc = page("<input id=t><select id=s><option>A</select><textarea id=ta></textarea><input id=f type=file><div contenteditable id=ed><b id=b>x</b></div>");
    let n = ids(&doc);
    for x in ["t", "s", "ta"] {
        assert_eq!(click(&mut doc, n[x]), Ok(Click::Focus(n[x])));
    }
    assert_eq!(click(&mut doc, n["f"]), Ok(Click::ChooseFile(n["f"])));
    assert_eq!(click(&mut doc, n["b"]), Ok(Click::Focus(n["ed"])));
}

#[test]
fn files_are_chosen_shown_and_cleared() {
    let mut doc = page("<input id=one type=file><input id=many type=file multiple><input id=t>");
    let n = ids(&doc);
    let file = |name: &str| ChosenFile { name: name.to_owned(), content_type: String::new() };
    assert_eq!(choose_files(&mut doc, n["one"], vec![file("a"), file("b")]), Err(ActError::OneFile { given: 2 }));
    choose_files(&mut doc, n["many"], vec![file("a.pdf"), file("b.png")]).expect("chosen");
    assert_eq!(value(&doc, "many"), "a.pdf, b.png");
    assert_eq!(choose_files(&mut doc, n["t"], vec![]), Err(ActError::NotFileInput));
    clear(&mut doc, n["many"]).expect("cleared");
    assert_eq!(value(&doc, "many"), "");
}

#[test]
fn the_entry_list_follows_the_spec() {
    let doc = page(
        "<form id=f action=/search>
           <input name=q value='a b'><input name=empty><input value=unnamed>
           <input type=checkbox name=c1 checked><input type=checkbox name=c2 checked value=yes><input type=checkbox name=c3>
           <input type=radio name=r value=1><input type=radio name=r value=2 checked>
           <input name=off disabled value=x><fieldset disabled><input name=fs value=x></fieldset>
           <datalist><input name=dl value=x></datalist>
           <select name=s multiple><option selected>A</option><option selected disabled>B</option><option selected value=c>C</option></select>
           <select name=one><option>First</option><option>Second</option></select>
           <textarea name=t>x\ny</textarea>
           <input type=hidden name=_CHARSET_><input type=hidden name=h value=' keep '>
           <input type=file name=upload>
           <input name=d dirname=d.dir dir=rtl value=x>
           <button name=b1 value=v1 id=b1>One</button><button name=b2 value=v2>Two</button><input type=reset name=rs>
           <input type=number name=n value=1e3><input type=number name=bad value=1x><input type=email name=e value=' a@b.c '>
           <input type=date name=day value=2024-02-30><input type=color name=col value=RED><input type=range name=rg value=250>
         </form>",
    );
    let n = ids(&doc);
    let s = submit(&doc, n["f"], Some(n["b1"])).expect("submitted");
    assert_eq!(
        text_entries(&s),
        pairs(&[
            ("q", "a b"),
            ("empty", ""),
            ("c1", "on"),
            ("c2", "yes"),
            ("r", "2"),
            ("s", "A"),
            ("s", "c"),
            ("one", "First"),
            ("t", "x\ny"),
            ("_CHARSET_", "UTF-8"),
            ("h", " keep "),
            ("upload", "file:"),
            ("d", "x"),
            ("d.dir", "rtl"),
            ("b1", "v1"),
            ("n", "1e3"),
            ("bad", ""),
            ("e", "a@b.c"),
            ("day", ""),
            ("col", "#000000"),
            ("rg", "100"),
        ])
    );
    assert_eq!(s.method, Method::Get);
    assert_eq!(
        s.request_url().as_str(),
        "https://shop.example/search?q=a+b&empty=&c1=on&c2=yes&r=2&s=A&s=c&one=First&t=x%0D%0Ay&_CHARSET_=UTF-8&h=+keep+\
         &upload=&d=x&d.dir=rtl&b1=v1&n=1e3&bad=&e=a%40b.c&day=&col=%23000000&rg=100"
    );
    assert_eq!(s.body("b", &|_, _| Vec::new()), None);
}

#[test]
fn dirname_follows_dir_auto_and_ancestors() {
    let doc = page(
        "<form id=f dir=rtl><input name=a dirname=a.dir><input name=b dirname=b.dir dir=auto value='abc'>
         <input name=c dirname=c.dir dir=auto value='שלום'><input type=tel name=t dirname=t.dir></form>",
    );
    let n = ids(&doc);
    let s = submit(&doc, n["f"], None).expect("submitted");
    let dirs: Vec<(String, String)> = text_entries(&s).into_iter().filter(|(n, _)| n.ends_with(".dir")).collect();
    assert_eq!(dirs, pairs(&[("a.dir", "rtl"), ("b.dir", "ltr"), ("c.dir", "rtl"), ("t.dir", "ltr")]));
}

#[test]
fn the_action_and_method_come_from_form_and_submitter() {
    let doc = page(
        "<form id=f method=POST action='' enctype=TEXT/PLAIN target=_self><input name=a value=1>
           <button id=plain>Go</button>
           <button id=over formaction=/other formmethod=get formenctype=multipart/form-data formtarget=_blank>Other</button>
           <button id=bogus formmethod=put formenctype=x/y>Bogus</button></form>
         <form id=js action='javascript:alert(1)'><button id=jsb>Go</button></form>
         <form id=dlg method=dialog><button id=db>Close</button></form>",
    );
    let n = ids(&doc);
    let s = submit(&doc, n["f"], Some(n["plain"])).expect("submitted");
    assert_eq!((s.method, s.enctype, s.new_tab), (Method::Post, Enctype::TextPlain, false));
    // An empty action is the document's URL, query and all.
    assert_eq!(s.action.as_str(), "https://shop.example/checkout/step?x=1");
    assert_eq!(s.request_url(), s.action);
    assert_eq!(s.body("b", &|_, _| Vec::new()), Some(b"a=1\r\n".to_vec()));
    let s = submit(&doc, n["f"], Some(n["over"])).expect("submitted");
    assert_eq!((s.method, s.enctype, s.new_tab), (Method::Get, Enctype::Multipart, true));
    assert_eq!(s.request_url().as_str(), "https://shop.example/other?a=1");
    // Invalid formmethod and formenctype fall back to GET and urlencoded,
    // not to the form's.
    let s = submit(&doc, n["f"], Some(n["bogus"])).expect("submitted");
    assert_eq!((s.method, s.enctype), (Method::Get, Enctype::UrlEncoded));
    assert!(matches!(submit(&doc, n["js"], Some(n["jsb"])), Err(ActError::NeedsScript(_))));
    assert_eq!(submit(&doc, n["f"], Some(n["jsb"])), Err(ActError::NotSubmitButton));
    assert_eq!(submit(&doc, n["plain"], None), Err(ActError::NotAForm));
    let s = submit(&doc, n["dlg"], Some(n["db"])).expect("submitted");
    assert_eq!(s.method, Method::Dialog);
}

#[test]
fn a_dialog_form_closes_its_dialog() {
    let mut doc = page("<dialog open id=d><form method=dialog><button id=ok value=yes>OK</button></form></dialog>");
    let n = ids(&doc);
    let Ok(Click::Submit(s)) = click(&mut doc, n["ok"]) else { panic!("not a submission") };
    assert_eq!(s.method, Method::Dialog);
    assert!(!doc.element(n["d"]).is_some_and(|e| e.has_attr("open")));
}

#[test]
fn relative_actions_need_an_address() {
    let doc = parse_str("<form id=f action=/x><input name=a></form><form id=g><input name=a></form>", &ParseOptions::default());
    let n = ids(&doc);
    assert_eq!(submit(&doc, n["f"], None), Err(ActError::BadUrl));
    assert_eq!(submit(&doc, n["g"], None), Err(ActError::BadUrl));
    let doc = parse_str("<form id=f action=https://a.example/x?old=1#frag></form>", &ParseOptions::default());
    let n = ids(&doc);
    let s = submit(&doc, n["f"], None).expect("submitted");
    // GET replaces the query (with nothing: a bare `?`) and keeps the
    // fragment.
    assert_eq!(s.request_url().as_str(), "https://a.example/x?#frag");
}

#[test]
fn the_form_encoding_is_accept_charset_or_the_page() {
    let doc = page("<form id=f accept-charset='bogus windows-1252' action=/s><input name=q value='café ☃'><input type=hidden name=_charset_></form>");
    let n = ids(&doc);
    let s = submit(&doc, n["f"], None).expect("submitted");
    assert_eq!(s.encoding, encoding_rs::WINDOWS_1252);
    // é is one byte; ☃ is not in windows-1252, so it goes as &#9731;.
    assert_eq!(s.urlencoded_body(), "q=caf%E9+%26%239731%3B&_charset_=windows-1252");
    assert_eq!(s.text_plain_body(), b"q=caf\xe9 &#9731;\r\n_charset_=windows-1252\r\n".to_vec());
}

#[test]
fn validation_reports_the_first_invalid_control() {
    let invalid = |html: &str| {
        let doc = page(html);
        let form = doc.descendants(NodeId::DOCUMENT).find(|&n| doc.element(n).is_some_and(|e| e.is_html(&local_name!("form")))).expect("found");
        match submit(&doc, form, None) {
            Err(ActError::Invalid { node, reason }) => {
                Some((doc.element(node).and_then(|e| e.attr("name")).unwrap_or("").to_owned(), reason))
            }
            Ok(_) => None,
            Err(e) => panic!("{e:?}"),
        }
    };
    let req = |name: &str| Some((name.to_owned(), Invalid::Required));
    assert_eq!(invalid("<form><input name=a required><input name=b required></form>"), req("a"));
    assert_eq!(invalid("<form><input name=a required value=x></form>"), None);
    assert_eq!(invalid("<form novalidate><input name=a required></form>"), None);
    assert_eq!(invalid("<form><input name=a required disabled><input name=b required readonly><input type=hidden name=c required></form>"), None);
    assert_eq!(invalid("<form><input type=checkbox name=a required></form>"), req("a"));
    assert_eq!(invalid("<form><input type=radio name=r><input type=radio name=r required></form>"), req("r"));
    assert_eq!(invalid("<form><input type=radio name=r checked><input type=radio name=r required></form>"), None);
    assert_eq!(invalid("<form><select name=s required><option value=''>Choose</option><option>A</option></select></form>"), req("s"));
    assert_eq!(invalid("<form><select name=s required><optgroup><option value=''>Choose</option></optgroup></select></form>"), None);
    assert_eq!(invalid("<form><select name=s required multiple><option>A</option></select></form>"), req("s"));
    assert_eq!(invalid("<form><textarea name=t required></textarea></form>"), req("t"));
    assert_eq!(invalid("<form><input type=file name=f required></form>"), req("f"));
    assert_eq!(invalid("<form><input type=email name=e value='not an address'></form>"), Some(("e".to_owned(), Invalid::NotEmail)));
    assert_eq!(invalid("<form><input type=email multiple name=e value='a@b.c, x'></form>"), Some(("e".to_owned(), Invalid::NotEmail)));
    assert_eq!(invalid("<form><input type=url name=u value='example.com'></form>"), Some(("u".to_owned(), Invalid::NotUrl)));
    assert_eq!(invalid("<form><input type=number name=n min=2 max=5 value=7></form>"), Some(("n".to_owned(), Invalid::Overflow("5".to_owned()))));
    assert_eq!(invalid("<form><datalist><input name=a required></datalist><button name=b required>x</button></form>"), None);

    // What a person typed is judged too, lengths only then.
    let mut doc = page("<form id=f><input id=n type=number name=n min=1><input id=d type=date name=d><input id=t name=t minlength=3 value=ab></form>");
    let n = ids(&doc);
    let f = n["f"];
    assert_eq!(submit(&doc, f, None).map(|_| ()), Ok(()), "an untouched default is not too short");
    type_text(&mut doc, n["n"], "0", false).expect("typed");
    assert_eq!(submit(&doc, f, None), Err(ActError::Invalid { node: n["n"], reason: Invalid::Underflow("1".to_owned()) }));
    type_text(&mut doc, n["n"], "abc", false).expect("typed");
    assert_eq!(submit(&doc, f, None), Err(ActError::Invalid { node: n["n"], reason: Invalid::NotNumber }));
    type_text(&mut doc, n["n"], "3", false).expect("typed");
    type_text(&mut doc, n["d"], "03/15/2025", false).expect("typed");
    let err = submit(&doc, f, None).expect_err("refused");
    assert_eq!(err.to_string(), "is not in the format YYYY-MM-DD");
    type_text(&mut doc, n["d"], "2024-02-29", false).expect("typed");
    type_text(&mut doc, n["t"], "xy", false).expect("typed");
    assert_eq!(submit(&doc, f, None), Err(ActError::Invalid { node: n["t"], reason: Invalid::TooShort(3) }));
}

#[test]
fn email_addresses_as_html_defines_them() {
    for ok in ["a@b", "jane.doe+tag@example.co.uk", "x@localhost", "!#$%&'*+/=?^_`{|}~-@a-b.c"] {
        assert!(is_email(ok), "{ok}");
    }
    for bad in ["", "a", "@b", "a@", "a@b..c", "a@-b.c", "a@b-.c", "a b@c", "a@b@c", "jané@x.y", &format!("a@{}", "x".repeat(64))] {
        assert!(!is_email(bad), "{bad}");
    }
}

#[test]
fn implicit_submission_uses_the_default_button() {
    let doc = page(
        "<form id=one action=/s><input id=q name=q value=x></form>
         <form id=two action=/s><input id=a name=a><input id=b name=b><input type=checkbox id=cb name=cb></form>
         <form id=three action=/s><input id=c name=c><input name=d><button id=off disabled>Go</button><button name=go>Go</button></form>
         <form id=four action=/s><input id=e name=e><input name=f><input type=submit name=go value=Go></form>
         <form action=/s><textarea id=ta></textarea><select id=sel></select></form><input id=out>
         <form action=/s><input id=g name=g><input type=submit name=go></form>",
    );
    let n = ids(&doc);
    let s = implicit_submission(&doc, n["q"]).expect("submitted");
    assert_eq!((s.submitter, s.request_url().as_str()), (None, "https://shop.example/s?q=x"));
    assert!(matches!(implicit_submission(&doc, n["a"]), Err(ActError::NoImplicitSubmission(_))));
    // A checkbox does not block, but the form's two text fields do.
    assert!(matches!(implicit_submission(&doc, n["cb"]), Err(ActError::NoImplicitSubmission(_))));
    // The default button is the first submit button, even when disabled.
    assert_eq!(implicit_submission(&doc, n["c"]), Err(ActError::Disabled(n["off"])));
    let s = implicit_submission(&doc, n["e"]).expect("submitted");
    assert_eq!(s.request_url().as_str(), "https://shop.example/s?e=&f=&go=Go");
    assert!(matches!(implicit_submission(&doc, n["ta"]), Err(ActError::NoImplicitSubmission(_))));
    assert!(matches!(implicit_submission(&doc, n["sel"]), Err(ActError::NoImplicitSubmission(_))));
    assert_eq!(implicit_submission(&doc, n["out"]), Err(ActError::NotInForm));
    // A submit input without a value sends its label, as browsers do.
    let s = implicit_submission(&doc, n["g"]).expect("submitted");
    assert_eq!(s.request_url().as_str(), "https://shop.example/s?g=&go=Submit");
}

#[test]
fn a_form_in_a_table_owns_its_controls_until_they_move() {
    let mut doc = page("<table><form id=f action=/t><tr><td><input id=a name=a value=1><button id=go>Go</button></td></tr></form></table>");
    let n = ids(&doc);
    let f = n["f"];
    // The parser closed the form at once: it has no children.
    assert_eq!(doc.first_child(f), None);
    let Ok(Click::Submit(s)) = click(&mut doc, n["go"]) else { panic!("no submission") };
    assert_eq!(s.request_url().as_str(), "https://shop.example/t?a=1");
    // Moved, a control's form owner is found again (here: none).
    let a = n["a"];
    let body = doc.body().expect("a body");
    doc.append_child(body, a).expect("appended");
    assert_eq!(form_owner(&doc, a), None);
}

#[test]
fn reset_restores_the_defaults_of_its_form_only() {
    let mut doc = page(
        "<form id=f><input id=t value=orig><input id=cb type=checkbox checked><select id=s><option>A<option selected>B</select>
           <input id=file type=file><button id=r type=reset>Reset</button></form>
         <input id=other form=f value=o><input id=outside value=x>",
    );
    let n = ids(&doc);
    type_text(&mut doc, n["t"], "new", false).expect("typed");
    type_text(&mut doc, n["other"], "new", false).expect("typed");
    type_text(&mut doc, n["outside"], "new", false).expect("typed");
    set_checked(&mut doc, n["cb"], false).expect("checked");
    select(&mut doc, n["s"], &["A"]).expect("selected");
    choose_files(&mut doc, n["file"], vec![ChosenFile { name: "a".to_owned(), content_type: String::new() }]).expect("chosen");
    assert_eq!(click(&mut doc, n["r"]), Ok(Click::Reset(n["f"])));
    assert_eq!((value(&doc, "t"), value(&doc, "other"), value(&doc, "s"), value(&doc, "file")), ("orig".into(), "o".into(), "B".into(), "".into()));
    assert!(is_checked(&doc, n["cb"]));
    assert_eq!(value(&doc, "outside"), "new");
}

#[test]
fn nodes_off_the_page_are_refused() {
    let mut big = page(&"<p>x</p>".repeat(50));
    let foreign = NodeId::from_index(big.len() - 1);
    let mut doc = page("<form id=f><input id=a></form><template><input id=in-template></template><div inert><button id=inert>x</button></div>");
    let n = ids(&doc);
    let detached = n["a"];
    doc.detach(detached).expect("detached");
    let template_input = doc
        .descendants(NodeId::DOCUMENT)
        .filter_map(|n| doc.element(n).and_then(|e| e.template_contents))
        .flat_map(|c| doc.descendants(c).collect::<Vec<_>>())
        .find(|&n| doc.element(n).is_some_and(|e| e.is_html(&local_name!("input"))))
        .expect("found");
    for node in [foreign, detached, template_input, NodeId::DOCUMENT] {
        let off = Err(ActError::NotOnPage(node));
        assert_eq!(type_text(&mut doc, node, "x", false), off.clone().map(|()| Typed::default()));
        assert_eq!(clear(&mut doc, node), off);
        assert_eq!(set_checked(&mut doc, node, true), off.clone().map(|()| false));
        assert_eq!(select(&mut doc, node, &["x"]), off.clone().map(|()| Vec::new()));
        assert_eq!(choose_files(&mut doc, node, Vec::new()), off);
        assert_eq!(click(&mut doc, node), off.clone().map(|()| Click::Nothing));
        assert_eq!(reset(&mut doc, node), off);
        assert!(implicit_submission(&doc, node).is_err());
        assert!(submit(&doc, node, None).is_err());
        assert!(submit(&doc, n["f"], Some(node)).is_err());
    }
    assert_eq!(click(&mut doc, n["inert"]), Err(ActError::Inert(n["inert"])));
    // The big document is untouched by all this.
    assert!(click(&mut big, foreign).is_ok());
}

#[test]
fn editable_content_at_the_depth_cap_keeps_its_text_when_a_line_break_cannot_go_in() {
    let mut doc = page(&format!("{}<span contenteditable id=e>old</span>", "<div>".repeat(600)));
    let e = id(&doc, "e");
    assert_eq!(type_text(&mut doc, e, "a\nb", false), Err(ActError::Mutation(MutationError::TooDeep)));
    assert_eq!(doc.text_content(e), "old");
    type_text(&mut doc, e, "new", false).expect("typed");
    assert_eq!(doc.text_content(e), "new");
}
