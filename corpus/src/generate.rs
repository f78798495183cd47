//! Synthetic pages for scale and hostile-input tests: realistic markup of
//! a given size, and deep nesting of several kinds. Deterministic: the same
//! arguments give the same bytes.

/// About `bytes` bytes of realistic markup: a page of navigation, articles
/// with headings, paragraphs and links, product lists, forms and tables,
/// repeated with varying text.
pub fn realistic_page(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    out.push_str(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Generated page</title>\
         <style>.hidden{display:none} .card{border:1px solid #ccc} nav a{margin:0 4px}\
         @media (max-width: 600px){.wide{display:none}}</style></head><body>\
         <header><nav aria-label=Main><a href=/>Home</a> <a href=/shop>Shop</a> <a href=/about>About</a></nav></header><main>",
    );
    let mut i = 0usize;
    while out.len() < bytes {
        let n = i;
        out.push_str(&format!(
            "<article class=card id=a{n}><h2>Section {n}: notes on item {n}</h2>\
             <p>Paragraph {n} talks about <a href=/items/{n}>item {n}</a>, its price of ${}.{:02} and \
             <em>why</em> it matters. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
             eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>\
             <ul class=features><li>Feature A{n}</li><li>Feature B{n} <span class=hidden>secret {n}</span></li>\
             <li><a href=/f/{n}>More</a></li></ul>",
            n % 97,
            n % 100
        ));
        match n % 4 {
            0 => out.push_str(&format!(
                "<form aria-label='Order {n}'><label>Quantity <input type=number name=q{n} value=1></label>\
                 <select name=s{n}><option>Small<option selected>Medium<option>Large</select>\
                 <button>Add {n}</button></form>"
            )),
            1 => out.push_str(&format!(
                "<table><caption>Specs {n}</caption><thead><tr><th>Name<th>Value</thead>\
                 <tbody><tr><td>Weight<td>{n} g<tr><td>Size<td>{} cm</tbody></table>",
                n % 50
            )),
            2 => out.push_str(&format!(
                "<div class=wide><img src=/img/{n}.png alt='Photo {n}'><p>Caption {n}</p></div>"
            )),
            _ => out.push_str(&format!(
                "<details><summary>Details {n}</summary><p>Hidden details {n}</p></details>"
            )),
        }
        out.push_str("</article>");
        i += 1;
    }
    out.push_str("</main><footer><p>Generated</p></footer></body></html>");
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
}

/// A page nested `depth` levels deep, with text at the bottom and the
/// closing tags present.
pub fn nested_page(kind: Nesting, depth: usize) -> String {
    let (open, close): (&str, &str) = match kind {
        Nesting::Div => ("<div>", "</div>"),
        Nesting::Span => ("<span>", "</span>"),
        Nesting::List => ("<ul><li>", "</li></ul>"),
        Nesting::Table => ("<table><tr><td>", "</td></tr></table>"),
        Nesting::SvgGroup => ("<g>", "</g>"),
        Nesting::Link => ("<a href=#>", "</a>"),
        Nesting::AriaButton => ("<span role=button>", "</span>"),
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_determinism() {
        let page = realistic_page(100_000);
        assert!(page.len() >= 100_000 && page.len() < 105_000);
        assert_eq!(page, realistic_page(100_000));
        let deep = nested_page(Nesting::Div, 1000);
        assert_eq!(deep.matches("<div>").count(), 1000);
    }
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
}

impl Hostile {
    /// Every pattern.
    pub const ALL: [Hostile; 14] = [
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
    }
}
