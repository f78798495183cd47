//! Any stylesheet against a fixed page: the cascade never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use whittle_engine::{CascadeOptions, StylesheetText, cascade, parse};

const PAGE: &[u8] = br#"<!doctype html><title>t</title><nav class=a id=n><a href=/>x</a></nav>
<main><h1 class="b c">h</h1><ul><li>1<li class=d>2</ul><form><input id=i required><select><option>o</select></form>
<details><summary>s</summary><p>p</p></details><table><tr><td>c</table></main>"#;

fuzz_target!(|data: &[u8]| {
    let doc = parse(PAGE, &Default::default());
    let css = String::from_utf8_lossy(data).into_owned();
    let options = CascadeOptions { stylesheets: vec![StylesheetText { url: None, text: css }], ..Default::default() };
    let styles = cascade(&doc, &options);
    let _ = styles.dump(&doc);
});
