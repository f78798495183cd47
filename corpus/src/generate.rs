//! Synthetic pages for scale and hostile-input tests: realistic markup of
//! a given size, one wide list, one huge table, a large stylesheet over
//! realistic markup, and deep nesting of several kinds. Deterministic: the
//! same arguments give the same bytes.
//!
//! [`generate`] is the entry point for sizes that come from a person (the
//! CLI's `whittle corpus generate KIND SIZE`): a [`Kind`] parsed from its
//! name, a size, and an error instead of a page past [`MAX_BYTES`]. The
//! page functions below it clamp their sizes to the same limit, so no
//! caller can ask them for more memory than that.

use std::fmt;
use std::str::FromStr;

/// The largest page generated (256 MiB): beyond it a page is a memory
/// exhaustion test, not a scale test.
pub const MAX_BYTES: usize = 256 * 1024 * 1024;

/// The columns of the table [`generate`] writes for [`Kind::Table`].
pub const TABLE_COLUMNS: usize = 8;

/// A kind of generated page, by the name the CLI takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`realistic_page`]: articles, lists, forms and tables.
    Realistic,
    /// [`wide_list_page`]: one list with many items.
    WideList,
    /// [`table_page`]: one table of [`TABLE_COLUMNS`] columns, many rows.
    Table,
    /// [`stylesheet_page`]: many rules of varied selectors over realistic
    /// markup.
    Stylesheet,
    /// [`nested_page`]: one kind of deep nesting.
    Deep(Nesting),
}

impl Kind {
    /// Every kind, in the order help texts list them.
    pub const ALL: [Kind; 11] = [
        Kind::Realistic,
        Kind::WideList,
        Kind::Table,
        Kind::Stylesheet,
        Kind::Deep(Nesting::Div),
        Kind::Deep(Nesting::Span),
        Kind::Deep(Nesting::List),
        Kind::Deep(Nesting::Table),
        Kind::Deep(Nesting::SvgGroup),
        Kind::Deep(Nesting::Link),
        Kind::Deep(Nesting::AriaButton),
    ];

    /// Its name (`realistic`, `wide-list`, `deep-div`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Realistic => "realistic",
            Kind::WideList => "wide-list",
            Kind::Table => "table",
            Kind::Stylesheet => "stylesheet",
            Kind::Deep(n) => n.name(),
        }
    }

    /// What [`generate`]'s size counts for this kind: `bytes` (a target the
    /// page reaches and passes by less than one repeated block), or
    /// `levels` of nesting for the `deep-*` kinds.
    pub fn unit(self) -> &'static str {
        match self {
            Kind::Deep(_) => "levels",
            _ => "bytes",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = GenerateError;

    fn from_str(s: &str) -> Result<Kind, GenerateError> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| GenerateError::UnknownKind(s.to_owned()))
    }
}

/// Why [`generate`] (or parsing a [`Kind`]) gave no page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenerateError {
    /// No kind has this name.
    UnknownKind(String),
    /// The page would be larger than [`MAX_BYTES`].
    TooLarge {
        /// The kind asked for.
        kind: Kind,
        /// The size asked for, in the kind's [`Kind::unit`].
        size: usize,
    },
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::UnknownKind(given) => {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                write!(f, "unknown page kind `{given}`: the kinds are {}", names.join(", "))
            }
            GenerateError::TooLarge { kind: kind @ Kind::Deep(n), size } => write!(
                f,
                "a {kind} page {size} levels deep would take about {} MiB, over the limit of {} MiB",
                size.saturating_mul(n.bytes_per_level()) / (1024 * 1024),
                MAX_BYTES / (1024 * 1024)
            ),
            GenerateError::TooLarge { kind, size } => write!(
                f,
                "a {kind} page of {size} bytes is over the limit of {} MiB ({MAX_BYTES} bytes)",
                MAX_BYTES / (1024 * 1024)
            ),
        }
    }
}

impl std::error::Error for GenerateError {}

/// A page of `kind`, `size` in the kind's [`Kind::unit`]; refused when it
/// would pass [`MAX_BYTES`].
pub fn generate(kind: Kind, size: usize) -> Result<String, GenerateError> {
    let bytes = match kind {
        Kind::Deep(n) => size.saturating_mul(n.bytes_per_level()),
        _ => size,
    };
    if bytes > MAX_BYTES {
        return Err(GenerateError::TooLarge { kind, size });
    }
    Ok(match kind {
        Kind::Realistic => realistic_page(size),
        Kind::WideList => wide_list_page(size),
        Kind::Table => table_page(TABLE_COLUMNS, size),
        Kind::Stylesheet => stylesheet_page(size),
        Kind::Deep(n) => nested_page(n, size),
    })
}

/// The page's head up to its `<style>` contents.
const HEAD: &str = "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Generated page</title><style>";

/// The realistic page's own rules (every generated page but the deep ones
/// starts with them).
const BASE_CSS: &str =
    ".hidden{display:none} .card{border:1px solid #ccc} nav a{margin:0 4px}@media (max-width: 600px){.wide{display:none}}";

/// From the end of the style sheet to the start of `<main>`'s contents.
const TOP: &str = "</style></head><body>\
     <header><nav aria-label=Main><a href=/>Home</a> <a href=/shop>Shop</a> <a href=/about>About</a></nav></header><main>";

/// The end of every generated page but the deep ones.
const BOTTOM: &str = "</main><footer><p>Generated</p></footer></body></html>";

/// Writes the head with `css` after the base rules, and the page's top.
fn open_page(out: &mut String, css: &str) {
    out.push_str(HEAD);
    out.push_str(BASE_CSS);
    out.push_str(css);
    out.push_str(TOP);
}

/// About `bytes` bytes of realistic markup: a page of navigation, articles
/// with headings, paragraphs and links, product lists, forms and tables,
/// repeated with varying text. `bytes` is clamped to [`MAX_BYTES`].
pub fn realistic_page(bytes: usize) -> String {
    let bytes = bytes.min(MAX_BYTES);
    let mut out = String::with_capacity(bytes + 4096);
    open_page(&mut out, "");
    let mut n = 0usize;
    while out.len() < bytes {
        push_article(&mut out, n, false);
        n += 1;
    }
    out.push_str(BOTTOM);
    out
}

/// Writes article `n` of a realistic page. `own_classes` gives the
/// article and its parts classes of their own (`c{n}`, `c{n}-title`, …),
/// as a site's component CSS names them, for [`stylesheet_page`]'s rules.
fn push_article(out: &mut String, n: usize, own_classes: bool) {
    use std::fmt::Write as _;
    let class = |part: &str| if own_classes { format!(" class=c{n}-{part}") } else { String::new() };
    let (article, list) = if own_classes { (format!("\"card c{n}\""), format!("\"features c{n}-list\"")) } else { ("card".into(), "features".into()) };
    let _ = write!(
        out,
        "<article class={article} id=a{n}><h2{}>Section {n}: notes on item {n}</h2>\
         <p{}>Paragraph {n} talks about <a href=/items/{n}>item {n}</a>, its price of ${}.{:02} and \
         <em>why</em> it matters. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
         eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>\
         <ul class={list}><li>Feature A{n}</li><li>Feature B{n} <span class=hidden>secret {n}</span></li>\
         <li><a href=/f/{n}>More</a></li></ul>",
        class("title"),
        class("text"),
        n % 97,
        n % 100
    );
    let _ = match n % 4 {
        0 => write!(
            out,
            "<form aria-label='Order {n}'><label>Quantity <input type=number name=q{n} value=1></label>\
             <select name=s{n}><option>Small<option selected>Medium<option>Large</select>\
             <button>Add {n}</button></form>"
        ),
        1 => write!(
            out,
            "<table><caption>Specs {n}</caption><thead><tr><th>Name<th>Value</thead>\
             <tbody><tr><td>Weight<td>{n} g<tr><td>Size<td>{} cm</tbody></table>",
            n % 50
        ),
        2 => write!(out, "<div class=wide><img src=/img/{n}.png alt='Photo {n}'><p>Caption {n}</p></div>"),
        _ => write!(out, "<details><summary>Details {n}</summary><p>Hidden details {n}</p></details>"),
    };
    out.push_str("</article>");
}

/// One product list of about `bytes` bytes (clamped to [`MAX_BYTES`]) in
/// the realistic page's frame: each item a link, a price and a button,
/// under the `:nth-child` and sibling rules shop sheets style lists with
/// (the cascade's nth-index cache and sibling scans must stay linear).
pub fn wide_list_page(bytes: usize) -> String {
    use std::fmt::Write as _;
    let bytes = bytes.min(MAX_BYTES);
    let mut out = String::with_capacity(bytes + 4096);
    open_page(&mut out, " .items li:nth-child(2n){background:#f7f7f7} .item + .item{border-top:1px solid #eee} .item:last-child{margin-bottom:2em}");
    out.push_str("<h1>All products</h1><ul class=items aria-label=Products>");
    let mut i = 0usize;
    while out.len() < bytes {
        let _ = write!(
            out,
            "<li class=item id=p{i}><a href=/p/{i}>Product {i}</a> <span class=price>${}.{:02}</span> \
             <button type=button>Add to cart</button></li>",
            i % 500,
            i % 100
        );
        i += 1;
    }
    out.push_str("</ul>");
    out.push_str(BOTTOM);
    out
}

/// One data table of about `bytes` bytes (clamped to [`MAX_BYTES`]) in the
/// realistic page's frame: a header row of `columns` `<th>` (clamped to
/// 1..=1,000), then as many rows as fit, each opening with a row header and
/// holding a link, numbers and words, as a report or a price list does.
pub fn table_page(columns: usize, bytes: usize) -> String {
    use std::fmt::Write as _;
    let (columns, bytes) = (columns.clamp(1, 1000), bytes.min(MAX_BYTES));
    let mut out = String::with_capacity(bytes + 4096);
    open_page(&mut out, " td{padding:2px 6px} tbody tr:nth-child(odd){background:#f4f4f4} th[scope=col]{text-align:left}");
    out.push_str("<h1>Report</h1><table><caption>Generated report</caption><thead><tr>");
    for c in 0..columns {
        let _ = write!(out, "<th scope=col>Column {c}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    let mut r = 0usize;
    while out.len() < bytes {
        let _ = write!(out, "<tr><th scope=row>Row {r}</th>");
        for c in 1..columns {
            let _ = match c % 3 {
                0 => write!(out, "<td><a href=/r/{r}/{c}>entry {r}.{c}</a></td>"),
                1 => write!(out, "<td>{}.{:02}</td>", (r * 31 + c) % 1000, (r + c) % 100),
                _ => write!(out, "<td>word {}</td>", (r * 7 + c) % 113),
            };
        }
        out.push_str("</tr>");
        r += 1;
    }
    out.push_str("</tbody></table>");
    out.push_str(BOTTOM);
    out
}

/// The fixed part of [`stylesheet_page`]'s sheet: tag, attribute,
/// pseudo-class and `:is`/`:not`/`:has` rules every site has a few of,
/// whatever its size.
const SITE_CSS: &str = " h2{margin:.5em 0} .card p a{color:#0645ad} .features li{padding:2px}\
     input[type=number]{width:4em} details[open] p{margin:0} table caption{font-size:.9em}\
     form label{display:inline-block} nav a:first-child{font-size:1.1em} [aria-label]{outline:0}\
     :is(h1,h2,h3){line-height:1.2} .card:not(.hidden) em{font-style:italic} li:nth-child(2n){background:#fafafa}\
     a[href^=\"/items\"]{color:#0b0080} .wide img{width:100%} .card:has(img){overflow:hidden}\
     main > article:first-of-type{margin-top:0} summary::marker{color:#888}";

/// Writes the rules of article `n` of [`stylesheet_page`]: each kind of
/// selector once, keyed on the article's own classes and id, one state
/// rule (`:hover`), rules for components the page does not hold (most of
/// a site's CSS is unused on any one page), and now and then a media
/// query or a rule that hides a part.
fn push_rules(out: &mut String, n: usize) {
    use std::fmt::Write as _;
    let _ = write!(
        out,
        " #a{n}{{margin:0 0 1em}}\
         .c{n}{{padding:4px 8px;border-color:#ddd}}\
         .c{n} .c{n}-title{{font-size:1.4em;color:#222}}\
         .c{n} > .c{n}-text{{line-height:1.5}}\
         .c{n}-list[class~=features]{{margin-left:1em}}\
         .c{n}:not(.hidden) .c{n}-list{{padding-left:20px}}\
         .c{n}:nth-child(2n+1) .c{n}-title{{text-transform:uppercase}}\
         .c{n}-title:hover{{color:#06c}}\
         .u{n}-banner{{position:fixed;top:0}} #u{n} .u{n}-promo > .u{n}-label{{display:none}}"
    );
    if n.is_multiple_of(10) {
        let _ = write!(out, "@media (max-width:600px){{.c{n}{{display:none}}}}");
    }
    if n % 7 == 3 {
        let _ = write!(out, " .c{n}-list{{display:none}}");
    }
}

/// About `bytes` bytes (clamped to [`MAX_BYTES`]) of a page whose one
/// `<style>` holds many rules over realistic markup (about 40% of the
/// bytes are CSS): for each article, rules of each selector kind (id,
/// class, descendant, child, attribute, `:not`, `:nth-child`, `:hover`)
/// keyed on the article's own classes, plus rules for absent components
/// and a fixed set of site-wide ones. The rules grow with the page, as a
/// site's CSS grows with its components, but each element can match only
/// its own few: a cascade that files rules by their rightmost id or class
/// stays linear on it (rules keyed on a tag would make any engine's
/// matching quadratic, and real sheets keep those few).
pub fn stylesheet_page(bytes: usize) -> String {
    let bytes = bytes.min(MAX_BYTES);
    let frame = HEAD.len() + BASE_CSS.len() + TOP.len() + BOTTOM.len();
    let (mut css, mut html) = (String::from(SITE_CSS), String::new());
    let mut n = 0usize;
    while frame + css.len() + html.len() < bytes {
        push_rules(&mut css, n);
        push_article(&mut html, n, true);
        n += 1;
    }
    let mut out = String::with_capacity(frame + css.len() + html.len());
    open_page(&mut out, &css);
    out.push_str(&html);
    out.push_str(BOTTOM);
    out
}

/// The kinds of deep nesting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// `<div>` inside `<div>`: block containers.
    Div,
    /// `<span>`: inline containers (no implied end tags).
    Span,
    /// `<ul><li>` pairs: lists in list items.
    List,
    /// `<table><tr><td>`: tables in cells.
    Table,
    /// SVG `<g>` groups (foreign content).
    SvgGroup,
    /// `<a>` links (each closes the previous one in the parser).
    Link,
    /// `role=button` spans: name-from-content inside name-from-content.
    AriaButton,
}

impl Nesting {
    /// Every kind.
    pub const ALL: [Nesting; 7] =
        [Nesting::Div, Nesting::Span, Nesting::List, Nesting::Table, Nesting::SvgGroup, Nesting::Link, Nesting::AriaButton];

    /// Its name as a [`Kind`] (`deep-div`, …).
    pub fn name(self) -> &'static str {
        match self {
            Nesting::Div => "deep-div",
            Nesting::Span => "deep-span",
            Nesting::List => "deep-list",
            Nesting::Table => "deep-table",
            Nesting::SvgGroup => "deep-svg",
            Nesting::Link => "deep-link",
            Nesting::AriaButton => "deep-button",
        }
    }

    /// The tags that open and close one level.
    fn tags(self) -> (&'static str, &'static str) {
        match self {
            Nesting::Div => ("<div>", "</div>"),
            Nesting::Span => ("<span>", "</span>"),
            Nesting::List => ("<ul><li>", "</li></ul>"),
            Nesting::Table => ("<table><tr><td>", "</td></tr></table>"),
            Nesting::SvgGroup => ("<g>", "</g>"),
            Nesting::Link => ("<a href=#>", "</a>"),
            Nesting::AriaButton => ("<span role=button>", "</span>"),
        }
    }

    /// The bytes one level adds to [`nested_page`] (its tags, and the
    /// text written every 1,000 levels, rounded up).
    fn bytes_per_level(self) -> usize {
        let (open, close) = self.tags();
        open.len() + close.len() + 1
    }
}

/// A page nested `depth` levels deep, with text at the bottom and the
/// closing tags present; `depth` is clamped so the page stays within
/// [`MAX_BYTES`].
pub fn nested_page(kind: Nesting, depth: usize) -> String {
    let (open, close) = kind.tags();
    let depth = depth.min(MAX_BYTES / kind.bytes_per_level());
    let mut out = String::with_capacity((open.len() + close.len()) * depth + 200);
    out.push_str("<!DOCTYPE html><title>Deep</title><body>");
    if kind == Nesting::SvgGroup {
        out.push_str("<svg>");
    }
    for i in 0..depth {
        out.push_str(open);
        if i % 1000 == 0 {
            out.push_str("level ");
        }
    }
    out.push_str("bottom");
    for _ in 0..depth {
        out.push_str(close);
    }
    if kind == Nesting::SvgGroup {
        out.push_str("</svg>");
    }
    out.push_str("<p>after</p></body>");
    out
}

/// Hostile patterns, each a page of size proportional to `n`, that once
/// made some stage superlinear (found in review; kept as regression cases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// `n` rules on `.a` and one element with class `a` written `n` times.
    DuplicateClasses,
    /// `.x ~ div` and `n` sibling divs.
    SiblingCombinator,
    /// `:is()` nested 12 deep with combinators, over `n` nested divs.
    NestedIs,
    /// CSS nesting 12 levels deep over `n` nested divs.
    CssNesting,
    /// `n` `<th>` in one row.
    HeaderCells,
    /// A disabled fieldset with `n` inputs.
    DisabledFieldset,
    /// `option:checked` styled, `n` options in one select.
    CheckedOptions,
    /// `n` spans then `n` summaries in one div.
    Summaries,
    /// One element owning its `n` children through aria-owns.
    AriaOwns,
    /// A 1 MB text referenced by `n` buttons' aria-labelledby.
    LabelledbyBigText,
    /// `<i><b><div></i>` `n` times (the adoption agency deepens the tree).
    Misnested,
    /// `n` nested `<svg>` elements.
    DeepSvg,
    /// `n` nested SVG `<style>` elements.
    SvgStyles,
    /// An `<html>` start tag repeated with `n` attributes each.
    HtmlAttributes,
    /// `div:has(.nope)` over `n` nested divs: every anchor looks at its
    /// whole subtree.
    HasDescendant,
    /// `div:has(~ .nope)` over `n` sibling divs: every anchor looks at
    /// every later sibling.
    HasSiblings,
    /// A chain of `n` custom properties, each `var()` of the next, on the
    /// root, used by `n` elements.
    VarChain,
}

impl Hostile {
    /// Every pattern.
    pub const ALL: [Hostile; 17] = [
        Hostile::DuplicateClasses,
        Hostile::SiblingCombinator,
        Hostile::NestedIs,
        Hostile::CssNesting,
        Hostile::HeaderCells,
        Hostile::DisabledFieldset,
        Hostile::CheckedOptions,
        Hostile::Summaries,
        Hostile::AriaOwns,
        Hostile::LabelledbyBigText,
        Hostile::Misnested,
        Hostile::DeepSvg,
        Hostile::SvgStyles,
        Hostile::HtmlAttributes,
        Hostile::HasDescendant,
        Hostile::HasSiblings,
        Hostile::VarChain,
    ];
}

/// The page of a hostile pattern at size `n`.
pub fn hostile_page(kind: Hostile, n: usize) -> String {
    match kind {
        Hostile::DuplicateClasses => {
            format!("<style>{}</style><p class=\"{}\">x</p>", ".a{display:block}".repeat(n), "a ".repeat(n))
        }
        Hostile::SiblingCombinator => format!("<style>.x ~ div{{display:block}}</style>{}", "<div>a</div>".repeat(n)),
        Hostile::NestedIs => {
            let mut sel = String::from("[nope]");
            for _ in 0..12 {
                sel = format!(":is({sel} div)");
            }
            format!("<style>{sel}{{display:none}}</style>{}x", "<div>".repeat(n))
        }
        Hostile::CssNesting => format!(
            "<style>[x]{{{}display:none{}}}</style>{}x",
            "div{".repeat(12),
            "}".repeat(12),
            "<div>".repeat(n)
        ),
        Hostile::HeaderCells => format!("<table><tr>{}<td>d</table>", "<th>h".repeat(n)),
        Hostile::DisabledFieldset => format!("<fieldset disabled>{}</fieldset>", "<input>".repeat(n)),
        Hostile::CheckedOptions => {
            format!("<style>option:checked{{display:block}}</style><select>{}</select>", "<option>o".repeat(n))
        }
        Hostile::Summaries => format!("<div>{}{}</div>", "<span></span>".repeat(n), "<summary>s</summary>".repeat(n)),
        Hostile::AriaOwns => {
            let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
            let kids: String = (0..n).map(|i| format!("<span id=c{i}>x</span>")).collect();
            format!("<div aria-owns=\"{}\">{kids}</div>", ids.join(" "))
        }
        Hostile::LabelledbyBigText => {
            format!("<p id=t>{}</p>{}", "x".repeat(1_000_000), "<button aria-labelledby=t></button>".repeat(n / 10))
        }
        Hostile::Misnested => "<i><b><div></i>".repeat(n),
        Hostile::DeepSvg => "<svg>".repeat(n),
        Hostile::SvgStyles => format!("<svg>{}", "<style>p{display:block}".repeat(n / 5)),
        Hostile::HtmlAttributes => {
            let attrs = |p: &str| (0..n).map(|i| format!(" {p}{i}=v")).collect::<String>();
            format!("<html{}><html{}><p>x", attrs("a"), attrs("b"))
        }
        Hostile::HasDescendant => format!("<style>div:has(.nope){{display:none}}</style>{}x", "<div>".repeat(n)),
        Hostile::HasSiblings => format!("<style>div:has(~ .nope){{display:none}}</style>{}", "<div>a</div>".repeat(n)),
        Hostile::VarChain => {
            let chain: String = (0..n).map(|i| format!("--v{i}:var(--v{});", i + 1)).collect();
            format!("<style>:root{{{chain}--v{n}:none}} p{{display:var(--v0)}}</style>{}", "<p>x".repeat(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each byte-sized kind reaches its target and passes it by less than
    /// one repeated block (plus the page's end), the same every time.
    #[test]
    fn sizes_and_determinism() {
        for kind in [Kind::Realistic, Kind::WideList, Kind::Table, Kind::Stylesheet] {
            for target in [10_000, 100_000, 1_000_000] {
                let page = generate(kind, target).expect("within the limit");
                assert!(page.len() >= target && page.len() < target + 2_000, "{kind} {target}: {} bytes", page.len());
                assert_eq!(page, generate(kind, target).expect("within the limit"), "{kind} {target}");
                assert!(page.ends_with("</html>"), "{kind}");
            }
        }
        let deep = nested_page(Nesting::Div, 1000);
        assert_eq!(deep.matches("<div>").count(), 1000);
        assert_eq!(generate(Kind::Deep(Nesting::List), 500).expect("small").matches("<ul><li>").count(), 500);
    }

    #[test]
    fn shapes() {
        let list = wide_list_page(100_000);
        assert_eq!(list.matches("<ul").count(), 1);
        assert!(list.matches("<li class=item").count() > 500);
        let table = table_page(5, 50_000);
        assert_eq!(table.matches("<table>").count(), 1);
        assert_eq!(table.matches("<th scope=col>").count(), 5);
        let rows = table.matches("<th scope=row>").count();
        assert_eq!(table.matches("<td>").count(), rows * 4);
        let sheet = stylesheet_page(1_000_000);
        let articles = sheet.matches("<article").count();
        let css = &sheet[sheet.find("<style>").expect("a sheet")..sheet.find("</style>").expect("its end")];
        assert!(css.len() * 100 / sheet.len() >= 35, "{} of {} bytes are CSS", css.len(), sheet.len());
        // Every kind of selector once per article.
        for probe in ["#a7{", ".c7{", ".c7 .c7-title{", ".c7 > .c7-text{", ".c7-list[class~=features]{", ".c7:not(.hidden)", ".c7:nth-child(2n+1)", ".c7-title:hover{"] {
            assert_eq!(css.matches(probe).count(), 1, "{probe}");
        }
        assert!(sheet.contains(&format!("id=a{}>", articles - 1)) && css.contains(&format!("#a{}{{", articles - 1)));
    }

    #[test]
    fn names_parse_and_round_trip() {
        for kind in Kind::ALL {
            assert_eq!(kind.name().parse::<Kind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.name());
        }
        let e = "wide".parse::<Kind>().expect_err("not a kind");
        assert_eq!(e, GenerateError::UnknownKind("wide".into()));
        let message = e.to_string();
        assert!(message.starts_with("unknown page kind `wide`: the kinds are realistic, wide-list, table, stylesheet, deep-div"), "{message}");
        assert!(message.ends_with("deep-button"), "{message}");
    }

    /// Sizes past the limit are errors, found before any memory is taken;
    /// the page functions clamp instead.
    #[test]
    fn sizes_past_the_limit_are_refused() {
        for kind in Kind::ALL {
            let e = generate(kind, usize::MAX).expect_err("too large");
            assert_eq!(e, GenerateError::TooLarge { kind, size: usize::MAX });
            assert!(e.to_string().contains("over the limit of 256 MiB"), "{e}");
        }
        assert_eq!(
            generate(Kind::Table, MAX_BYTES + 1).expect_err("one byte over").to_string(),
            format!("a table page of {} bytes is over the limit of 256 MiB (268435456 bytes)", MAX_BYTES + 1)
        );
        assert!(generate(Kind::Deep(Nesting::Div), 30_000_000).expect_err("deep").to_string().starts_with("a deep-div page 30000000 levels deep would take about 343 MiB"));
        assert_eq!(generate(Kind::Realistic, 0).expect("empty is fine"), realistic_page(0));
    }
}
