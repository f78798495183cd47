//! Acting on a static page end to end: an act changes the document, the
//! next snapshot shows it with every ref kept, and a form sends the bytes
//! HTML says. Expected requests are worked out by hand from the HTML and
//! URL standards, not taken from a run.

use whittle_engine::{
    ActError, ChosenFile, Click, Document, Enctype, Invalid, Method, NodeId, RefTable, SnapshotOptions, choose_files,
    clear, click, implicit_submission, parse_str, select, set_checked, snapshot, snapshot_document, submit, type_text,
};

/// A page in a tab: its document between snapshots, its refs and its
/// latest observation.
struct Page {
    doc: Option<Document>,
    refs: RefTable,
    options: SnapshotOptions,
    text: String,
}

impl Page {
    fn open(html: &str) -> Page {
        let mut options = SnapshotOptions::default();
        options.parse.url = url::Url::parse("https://shop.example/checkout/step").ok();
        options.fold = whittle_engine::FoldOptions::unfolded();
        let mut refs = RefTable::new();
        let snap = snapshot(html.as_bytes(), &options, &mut refs);
        let text = snap.observation.text();
        Page { doc: Some(snap.document), refs, options, text }
    }

    fn doc(&mut self) -> &mut Document {
        self.doc.as_mut().expect("the page holds its document")
    }

    fn id(&mut self, id: &str) -> NodeId {
        self.doc().element_by_id(id).unwrap_or_else(|| panic!("no #{id}"))
    }

    /// The node behind a ref of the observation.
    fn node(&self, r: u32) -> NodeId {
        self.refs.resolve(r).map(|(_, n)| n).unwrap_or_else(|| panic!("no ref {r}"))
    }

    /// The ref the observation gave a node.
    fn ref_of(&self, node: NodeId) -> u32 {
        let doc = self.doc.as_ref().expect("the page holds its document").id();
        self.refs.get(doc, node).expect("a ref")
    }

    /// Snapshots the document again; returns the new observation.
    fn refresh(&mut self) -> String {
        let doc = self.doc.take().expect("the page holds its document");
        let snap = snapshot_document(doc, &self.options, &mut self.refs);
        self.text = snap.observation.text();
        self.doc = Some(snap.document);
        self.text.clone()
    }
}

fn file(name: &str, content_type: &str) -> ChosenFile {
    ChosenFile { name: name.to_owned(), content_type: content_type.to_owned() }
}

const SIGNUP: &str = r#"<title>Sign up</title>
<style>input[value=old] + .hint { display: none } input:checked + .unchecked { display: none }</style>
<main><form aria-label="Sign up" action="/signup" method="post">
  <label>Email <input id=email type=email name=email required></label>
  <label>Nickname <input id=nick name=nick value=old><span class=hint>Pick a nickname</span></label>
  <label>Password <input id=pw type=password name=pw></label>
  <label><input id=news type=checkbox name=news><span class=unchecked>No news yet</span> Newsletter</label>
  <button id=go>Create account</button>
</form></main>"#;

#[test]
fn typing_shows_in_the_next_observation_and_refs_stay() {
    let mut page = Page::open(SIGNUP);
    let before = page.text.clone();
    assert!(before.contains("[1] form \"Sign up\"\n"), "{before}");
    let email = page.id("email");
    let email_ref = page.ref_of(email);
    assert_eq!(page.node(email_ref), email);
    let node = page.node(email_ref);
    type_text(page.doc(), node, "jane@example.com", false).expect("typed");
    let nick = page.id("nick");
    type_text(page.doc(), nick, "new", false).expect("typed");
    let after = page.refresh();
    let expected = before
        .replace(
            &format!("[{email_ref}] textbox \"Email\" required"),
            &format!("[{email_ref}] textbox \"Email\" = \"jane@example.com\" required"),
        )
        .replace("textbox \"Nickname\" = \"old\"", "textbox \"Nickname\" = \"new\"");
    // Only the two lines changed: every ref is where it was, and the hint
    // stays hidden because `[value=old]` matches the attribute, not what
    // was typed (as in browsers).
    assert_eq!(after, expected);
    assert!(!after.contains("Pick a nickname"));
    assert!(after.contains("No news yet"));

    // `:checked` follows the checkedness a person set.
    let news = page.id("news");
    assert_eq!(set_checked(page.doc(), news, true), Ok(true));
    let after = page.refresh();
    assert!(!after.contains("No news yet"), "{after}");
    assert!(after.contains(&format!("[{}] checkbox \"Newsletter\" checked", page.ref_of(news))), "{after}");
}

#[test]
fn sensitive_values_never_reach_the_observation() {
    let html = std::fs::read_to_string(whittle_corpus::fixtures_dir().join("sensitive-fields.html")).expect("the fixture");
    let mut page = Page::open(&html);
    let before = page.text.clone();
    for (id, secret) in [("pw", "typed-hunter3"), ("number", "5555444433332222"), ("cvc", "987"), ("otp", "112233")] {
        let node = page.id(id);
        type_text(page.doc(), node, secret, false).expect("typed");
        let after = page.refresh();
        assert!(!after.contains(secret), "{id}: {after}");
        assert_eq!(after, before, "a sensitive field's line does not change");
    }
    // The form still sends what was typed: the server needs it.
    let pay = page.id("pw");
    let form = whittle_engine::dom::form::form_owner(page.doc(), pay).expect("a form");
    let sent = submit(page.doc(), form, None).expect("submitted");
    assert!(sent.urlencoded_body().contains("password=typed-hunter3"));
    // And a refusal never echoes a value.
    let body = page.doc().body().expect("a body");
    let err = type_text(page.doc(), body, "typed-hunter3", false).expect_err("refused");
    assert!(!err.to_string().contains("hunter"));
}

#[test]
fn radio_buttons_of_a_group_exclude_each_other_across_the_form() {
    let mut page = Page::open(
        r#"<fieldset><legend>Shipping</legend><form id=f>
             <label><input type=radio name=ship id=std value=std checked> Standard</label>
             <label><input type=radio name=ship id=exp value=exp> Express</label></form>
           <label><input type=radio name=ship id=pickup value=pickup form=f> Pick-up</label>
           <label><input type=radio name=ship id=other value=other> Other form</label></fieldset>"#,
    );
    let before = page.text.clone();
    let (std, pickup, other) = (page.id("std"), page.id("pickup"), page.id("other"));
    let line = |page: &Page, node: NodeId, name: &str, checked: bool| {
        format!("[{}] radio \"{name}\"{}", page.ref_of(node), if checked { " checked" } else { "" })
    };
    assert!(before.contains(&line(&page, std, "Standard", true)), "{before}");
    set_checked(page.doc(), other, true).expect("checked");
    assert_eq!(click(page.doc(), pickup), Ok(Click::Toggled { control: pickup, checked: true }));
    let after = page.refresh();
    // Pick-up (form=f) unchecked Standard; "Other form" has no form owner,
    // so it is another group and stays checked.
    assert!(after.contains(&line(&page, std, "Standard", false)), "{after}");
    assert!(after.contains(&line(&page, pickup, "Pick-up", true)), "{after}");
    assert!(after.contains(&line(&page, other, "Other form", true)), "{after}");
    let f = page.id("f");
    let sent = submit(page.doc(), f, None).expect("submitted");
    assert_eq!(sent.request_url().as_str(), "https://shop.example/checkout/step?ship=pickup");
    assert_eq!(set_checked(page.doc(), pickup, false), Err(ActError::UncheckRadio));
}

#[test]
fn form_attribute_owners_submit_in_tree_order() {
    let mut page = Page::open(
        r#"<input name=before form=f value=1>
           <form id=f action="search"><input name=inside value=2><input name=elsewhere form=g value=x></form>
           <form id=g></form>
           <select name=after form=f><option>3</option></select><textarea name=note form=f>4</textarea>
           <input name=nowhere form=missing value=5><input name=bare value=6>"#,
    );
    let f = page.id("f");
    let sent = submit(page.doc(), f, None).expect("submitted");
    assert_eq!(sent.request_url().as_str(), "https://shop.example/checkout/search?before=1&inside=2&after=3&note=4");
}

const ORDER: &str = "<form id=f action=\"/send?old=1#top\" method=post>
  <input name=\"first name\" value=\"Zoë &amp; Bob\">
  <textarea name=msg>Line 1
Line 2</textarea>
  <input type=checkbox name=ok checked><input type=checkbox name=no>
  <select name=size><option>S<option selected value=m>Medium</select>
  <input type=hidden name=\"q&quot;&#10;\" value=v>
  <input type=file name=cv id=cv><input type=file name=extra>
  <button id=go name=go value=1>Send</button>
  <button id=get formmethod=get>Search</button>
  <button id=plain formenctype=text/plain>Plain</button>
  <button id=multi formenctype=multipart/form-data formaction=/upload formtarget=_blank>Upload</button>
</form>";

#[test]
fn a_form_sends_the_bytes_html_says() {
    let mut page = Page::open(ORDER);
    let cv = page.id("cv");
    choose_files(page.doc(), cv, vec![file("cv \"1\".txt", "text/plain")]).expect("chosen");
    let files = |node: NodeId, index: usize| if node == cv && index == 0 { b"hello".to_vec() } else { panic!("asked for ({node:?}, {index})") };

    // POST, urlencoded: spaces as +, UTF-8 percent-encoded, newlines CRLF,
    // files as their names (none chosen: empty), the submitter's entry last.
    let (go, f) = (page.id("go"), page.id("f"));
    let Ok(Click::Submit(sent)) = click(page.doc(), go) else { panic!("no submission") };
    assert_eq!((sent.method, sent.enctype, sent.new_tab), (Method::Post, Enctype::UrlEncoded, false));
    assert_eq!(sent.request_url().as_str(), "https://shop.example/send?old=1#top");
    let urlencoded = "first+name=Zo%C3%AB+%26+Bob&msg=Line+1%0D%0ALine+2&ok=on&size=m&q%22%0D%0A=v&cv=cv+%221%22.txt&extra=&go=1";
    assert_eq!(sent.urlencoded_body(), urlencoded);
    assert_eq!(sent.body("unused", &files), Some(urlencoded.as_bytes().to_vec()));
    assert_eq!(sent.content_type("unused"), "application/x-www-form-urlencoded");

    // formmethod=get: the query is replaced, the fragment kept; the other
    // buttons send nothing of theirs.
    let get = page.id("get");
    let sent = submit(page.doc(), f, Some(get)).expect("submitted");
    assert_eq!(sent.method, Method::Get);
    assert_eq!(
        sent.request_url().as_str(),
        "https://shop.example/send?first+name=Zo%C3%AB+%26+Bob&msg=Line+1%0D%0ALine+2&ok=on&size=m&q%22%0D%0A=v&cv=cv+%221%22.txt&extra=#top"
    );
    assert_eq!(sent.body("unused", &files), None);

    // text/plain: name=value CRLF, nothing escaped.
    let plain = page.id("plain");
    let sent = submit(page.doc(), f, Some(plain)).expect("submitted");
    assert_eq!(sent.enctype, Enctype::TextPlain);
    assert_eq!(
        String::from_utf8(sent.text_plain_body()).expect("UTF-8"),
        "first name=Zoë & Bob\r\nmsg=Line 1\r\nLine 2\r\nok=on\r\nsize=m\r\nq\"\r\n=v\r\ncv=cv \"1\".txt\r\nextra=\r\n"
    );

    // multipart/form-data with formaction and formtarget: names and file
    // names with " CR LF escaped, an empty file part for the input with no
    // file.
    let multi = page.id("multi");
    let sent = submit(page.doc(), f, Some(multi)).expect("submitted");
    assert_eq!((sent.enctype, sent.new_tab), (Enctype::Multipart, true));
    assert_eq!(sent.request_url().as_str(), "https://shop.example/upload");
    assert_eq!(sent.content_type("XyZ"), "multipart/form-data; boundary=XyZ");
    let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"first name\"\r\n\r\nZoë & Bob\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"msg\"\r\n\r\nLine 1\r\nLine 2\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"ok\"\r\n\r\non\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"size\"\r\n\r\nm\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"q%22%0D%0A\"\r\n\r\nv\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"cv\"; filename=\"cv %221%22.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n\
                    --XyZ\r\nContent-Disposition: form-data; name=\"extra\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n\
                    --XyZ--\r\n";
    assert_eq!(String::from_utf8(sent.multipart_body("XyZ", &files)).expect("UTF-8"), expected);
    assert_eq!(sent.body("XyZ", &files).map(String::from_utf8), Some(Ok(expected.to_owned())));
}

#[test]
fn an_image_button_sends_its_click_coordinates() {
    let mut page = Page::open(
        r#"<form id=f action=/map><input name=q value=x><input type=image name=pos src=map.png alt=Go id=named>
           <input type=image src=go.png alt=Go id=unnamed></form>"#,
    );
    let named = page.id("named");
    let Ok(Click::Submit(sent)) = click(page.doc(), named) else { panic!("no submission") };
    assert_eq!(sent.request_url().as_str(), "https://shop.example/map?q=x&pos.x=0&pos.y=0");
    let (unnamed, f) = (page.id("unnamed"), page.id("f"));
    let sent = submit(page.doc(), f, Some(unnamed)).expect("submitted");
    assert_eq!(sent.request_url().as_str(), "https://shop.example/map?q=x&x=0&y=0");
}

#[test]
fn reset_shows_the_defaults_again() {
    let mut page = Page::open(
        r#"<form aria-label=Filters><label>Search <input id=q value=lamps></label>
           <label><input type=checkbox id=c checked> In stock</label>
           <label>Sort <select id=s><option>Price</option><option>Rating</option></select></label>
           <button type=reset id=r>Reset</button></form>"#,
    );
    let before = page.text.clone();
    let (q, c, s, r) = (page.id("q"), page.id("c"), page.id("s"), page.id("r"));
    type_text(page.doc(), q, "desks", false).expect("typed");
    click(page.doc(), c).expect("clicked");
    assert_eq!(select(page.doc(), s, &["rating"]), Ok(vec!["Rating".to_owned()]));
    let changed = page.refresh();
    assert!(changed.contains("= \"desks\"") && changed.contains("= \"Rating\""), "{changed}");
    assert!(!changed.contains("In stock\" checked"), "{changed}");
    let form = whittle_engine::dom::form::form_owner(page.doc(), r).expect("a form");
    assert_eq!(click(page.doc(), r), Ok(Click::Reset(form)));
    assert_eq!(page.refresh(), before);
}

#[test]
fn required_fields_stop_the_submission_with_their_ref() {
    let mut page = Page::open(SIGNUP);
    let go = page.id("go");
    let err = click(page.doc(), go).expect_err("refused");
    let email = page.id("email");
    assert_eq!(err, ActError::Invalid { node: email, reason: Invalid::Required });
    assert_eq!(err.node(), Some(email));
    let line = format!("[{}] textbox \"Email\" {err}", page.ref_of(email));
    assert_eq!(line, "[2] textbox \"Email\" is required");
    type_text(page.doc(), email, "jane@", false).expect("typed");
    assert_eq!(click(page.doc(), go).expect_err("refused").to_string(), "is not an email address");
    type_text(page.doc(), email, "example.com", true).expect("typed");
    let Ok(Click::Submit(sent)) = click(page.doc(), go) else { panic!("no submission") };
    assert_eq!(sent.urlencoded_body(), "email=jane%40example.com&nick=old&pw=");
}

#[test]
fn a_disabled_fieldset_disables_its_controls() {
    let mut page = Page::open(
        r#"<form id=f action=/x><fieldset disabled><legend><label>Code <input id=code name=code value=1></label></legend>
           <label>Name <input id=name name=name value=2></label><button id=inside>Go</button></fieldset>
           <input name=open value=3><button id=go>Go</button></form>"#,
    );
    let (code, name, inside, go) = (page.id("code"), page.id("name"), page.id("inside"), page.id("go"));
    assert!(page.text.contains(&format!("[{}] textbox \"Name\" = \"2\" disabled", page.ref_of(name))), "{}", page.text);
    assert_eq!(type_text(page.doc(), name, "x", false), Err(ActError::Disabled(name)));
    assert_eq!(click(page.doc(), inside), Err(ActError::Disabled(inside)));
    // The first legend is exempt.
    type_text(page.doc(), code, "9", false).expect("typed");
    let Ok(Click::Submit(sent)) = click(page.doc(), go) else { panic!("no submission") };
    assert_eq!(sent.request_url().as_str(), "https://shop.example/x?code=9&open=3");
}

#[test]
fn selects_take_labels_values_and_loose_spelling() {
    let mut page = Page::open(
        r#"<label>Country <select id=c name=c><option value=ca>Canada</option><option value=mx>Mexico</option>
           <option value=us>United States</option></select></label>
           <label>Toppings <select id=t name=t multiple><option>Cheese</option><option selected>Ham</option>
           <option>Olives</option></select></label>"#,
    );
    let (c, t) = (page.id("c"), page.id("t"));
    assert_eq!(select(page.doc(), c, &["Mexico"]), Ok(vec!["Mexico".to_owned()]));
    assert_eq!(select(page.doc(), c, &["us"]), Ok(vec!["United States".to_owned()]));
    assert_eq!(select(page.doc(), c, &["  canada "]), Ok(vec!["Canada".to_owned()]));
    let err = select(page.doc(), c, &["Mars"]).expect_err("refused");
    assert_eq!(err.to_string(), "has no option \"Mars\" (options: Canada, Mexico, United States)");
    assert_eq!(select(page.doc(), t, &["olives", "Cheese"]), Ok(vec!["Cheese".to_owned(), "Olives".to_owned()]));
    let after = page.refresh();
    assert!(after.contains(&format!("[{}] combobox \"Country\" = \"Canada\"", page.ref_of(c))), "{after}");
    assert!(after.contains(&format!("[{}] listbox \"Toppings\" = \"Cheese, Olives\"", page.ref_of(t))), "{after}");
}

#[test]
fn a_label_click_toggles_its_checkbox() {
    let mut page = Page::open(r#"<input type=checkbox id=agree><label for=agree id=l>I agree</label>"#);
    let (agree, label) = (page.id("agree"), page.id("l"));
    let line = format!("[{}] checkbox \"I agree\"", page.ref_of(agree));
    assert!(page.text.contains(&format!("{line}\n")), "{}", page.text);
    assert_eq!(click(page.doc(), label), Ok(Click::Toggled { control: agree, checked: true }));
    assert!(page.refresh().contains(&format!("{line} checked\n")), "{}", page.text);
    let text = page.doc().first_child(label).expect("the label's text");
    assert_eq!(click(page.doc(), text), Ok(Click::Toggled { control: agree, checked: false }));
}

#[test]
fn scripts_are_needed_for_javascript_links_and_plain_buttons() {
    let mut page = Page::open(
        r#"<a id=js href="javascript:openCart()">Cart</a><form><button id=b type=button>Apply</button></form>
           <a id=ok href="/cart">Cart</a>"#,
    );
    let (js, b, ok) = (page.id("js"), page.id("b"), page.id("ok"));
    assert_eq!(click(page.doc(), js).expect_err("refused").to_string(), "needs a script (the link runs JavaScript)");
    assert!(matches!(click(page.doc(), b), Err(ActError::NeedsScript(_))));
    let Ok(Click::Navigate { url, new_tab: false }) = click(page.doc(), ok) else { panic!("no navigation") };
    assert_eq!(url.as_str(), "https://shop.example/cart");
}

#[test]
fn a_summary_opens_its_details() {
    let mut page = Page::open(r#"<details id=d><summary id=s>Shipping options</summary><p>Free over $50.</p></details>"#);
    let s = page.id("s");
    let line = format!("[{}] button \"Shipping options\"", page.ref_of(s));
    assert!(page.text.contains(&format!("{line} collapsed")) && !page.text.contains("Free over"), "{}", page.text);
    assert!(matches!(click(page.doc(), s), Ok(Click::DetailsToggled { open: true, .. })));
    let after = page.refresh();
    assert!(after.contains(&format!("{line} expanded")) && after.contains("Free over $50."), "{after}");
}

#[test]
fn pressing_enter_submits_like_a_person() {
    let mut page = Page::open(r#"<form role=search action="/search"><input id=q name=q aria-label=Search></form>"#);
    let q = page.id("q");
    type_text(page.doc(), q, "desk lamp", false).expect("typed");
    let sent = implicit_submission(page.doc(), q).expect("submitted");
    assert_eq!(sent.request_url().as_str(), "https://shop.example/search?q=desk+lamp");
}

#[test]
fn foreign_node_ids_are_refused() {
    let big = Page::open(&"<p><a href=/x>x</a></p>".repeat(40));
    let foreign = big.node(40);
    let mut page = Page::open(SIGNUP);
    assert!(foreign.index() >= page.doc().len());
    assert_eq!(click(page.doc(), foreign), Err(ActError::NotOnPage(foreign)));
    assert_eq!(type_text(page.doc(), foreign, "x", true), Err(ActError::NotOnPage(foreign)));
    assert_eq!(select(page.doc(), foreign, &["x"]), Err(ActError::NotOnPage(foreign)));
    assert_eq!(set_checked(page.doc(), foreign, true), Err(ActError::NotOnPage(foreign)));
    assert_eq!(clear(page.doc(), foreign), Err(ActError::NotOnPage(foreign)));
    assert!(submit(page.doc(), foreign, None).is_err());
    assert!(implicit_submission(page.doc(), foreign).is_err());
}

/// Every operation on every node (and some past the end) of every fixture
/// page, in a scrambled order on one document that the operations keep
/// changing: errors are fine, panics are not, and the page still snapshots.
#[test]
fn no_operation_panics_on_any_node_of_the_fixtures() {
    let Ok(dir) = std::fs::read_dir(whittle_corpus::fixtures_dir()) else { panic!("no fixtures") };
    let mut paths: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "html")).collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n.max(1)
    };
    let options = SnapshotOptions::default();
    let mut done = 0;
    for path in paths {
        let html = std::fs::read_to_string(&path).unwrap_or_default();
        let parse_options = whittle_engine::ParseOptions { url: url::Url::parse("https://fixtures.whittle.test/").ok(), ..Default::default() };
        let mut doc = parse_str(&html, &parse_options);
        // NodeIds are only made by documents: take those of a bigger one,
        // which name every node of this one and some it lacks.
        let big = parse_str(&"<p>x</p>".repeat(doc.len()), &Default::default());
        let mut nodes: Vec<NodeId> = big.descendants(NodeId::DOCUMENT).collect();
        for i in (1..nodes.len()).rev() {
            nodes.swap(i, next(i + 1));
        }
        for node in nodes {
            done += usize::from(click(&mut doc, node).is_ok());
            done += usize::from(type_text(&mut doc, node, "Ab\nc😀", next(2) == 0).is_ok());
            done += usize::from(set_checked(&mut doc, node, next(2) == 0).is_ok());
            let _ = select(&mut doc, node, &["x", "1"][..next(3)]);
            let _ = choose_files(&mut doc, node, vec![file("a.txt", "")]);
            let _ = implicit_submission(&doc, node);
            let _ = submit(&doc, node, None);
            // (form_owner, like the rest of the pipeline, takes this
            // document's nodes only.)
            if node.index() < doc.len()
                && let Some(form) = whittle_engine::dom::form::form_owner(&doc, node)
                && let Ok(s) = submit(&doc, form, Some(node))
            {
                let _ = (s.request_url(), s.urlencoded_body(), s.text_plain_body(), s.multipart_body("b", &|_, _| Vec::new()));
            }
            let _ = whittle_engine::reset(&mut doc, node);
            let _ = clear(&mut doc, node);
        }
        let snap = snapshot_document(doc, &options, &mut RefTable::new());
        assert!(!snap.observation.text().is_empty(), "{}", path.display());
    }
    // Not only refusals: the pages' links, fields and boxes were used.
    assert!(done > 100, "{done} operations succeeded");
}
