//! The CSS properties whittle computes, their values, and their parsers.
//!
//! Only what the pipeline reads is kept (ARCHITECTURE.md): what decides
//! visibility (`display`, `visibility`, `content-visibility`, `opacity`),
//! what later places boxes (`position`, `overflow`, `font-size`), how text is
//! shown (`white-space`, `text-transform`), and generated `content` for
//! `::before`/`::after`, which feeds accessible names. Every other property
//! is skipped while parsing, so a rule that sets none of these costs nothing
//! after the stylesheet is read. The box properties layout needs live in
//! [`super::boxes`].

use cssparser::{Parser, Token};

/// `display`, reduced to what the pipeline distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Display {
    /// No box; the subtree is not rendered.
    None,
    /// No box of its own; children are rendered in its place.
    Contents,
    /// A block-level box (`block`, `flow-root`, `list-item`, `table`, …).
    Block,
    /// `list-item`.
    ListItem,
    /// Inline-level (`inline`, `ruby`, …).
    #[default]
    Inline,
    /// `inline-block`, `inline-flex`, `inline-grid`, `inline-table`.
    InlineBlock,
    /// `flex` / `-webkit-box`.
    Flex,
    /// `grid`.
    Grid,
    /// `table`.
    Table,
    /// `table-row-group`, `table-header-group`, `table-footer-group`.
    TableRowGroup,
    /// `table-row`.
    TableRow,
    /// `table-cell`.
    TableCell,
    /// `table-caption`.
    TableCaption,
    /// `table-column`, `table-column-group`.
    TableColumn,
}

impl Display {
    /// Whether the box sits in a line with text (inline-level).
    pub fn is_inline_level(self) -> bool {
        matches!(self, Display::Inline | Display::InlineBlock)
    }

    fn parse(input: &mut Parser<'_>) -> Option<Display> {
        let first = input.expect_ident().ok()?.to_ascii_lowercase();
        let second = input.try_parse(|i| i.expect_ident().map(|s| s.to_ascii_lowercase())).ok();
        Some(match (first.as_str(), second.as_deref()) {
            ("none", None) => Display::None,
            ("contents", None) => Display::Contents,
            ("block" | "flow-root" | "-webkit-box-block", None) => Display::Block,
            ("block", Some("flow" | "flow-root")) | ("flow" | "flow-root", Some("block")) => Display::Block,
            ("list-item", _) | (_, Some("list-item")) => Display::ListItem,
            ("inline" | "ruby" | "ruby-base" | "ruby-text" | "ruby-base-container"
            | "ruby-text-container", None) => Display::Inline,
            ("inline", Some("flow")) | ("flow", Some("inline")) => Display::Inline,
            ("inline-block" | "inline-flex" | "inline-grid" | "inline-table" | "-webkit-inline-box"
            | "inline-flow-root" | "-ms-inline-flexbox" | "-webkit-inline-flex", None) => Display::InlineBlock,
            ("inline", Some(_)) | (_, Some("inline")) => Display::InlineBlock,
            ("flex" | "-webkit-box" | "-webkit-flex" | "-ms-flexbox", None) => Display::Flex,
            ("block", Some("flex")) | ("flex", Some("block")) => Display::Flex,
            ("grid" | "-ms-grid", None) => Display::Grid,
            ("block", Some("grid")) | ("grid", Some("block")) => Display::Grid,
            ("table", None) => Display::Table,
            ("block", Some("table")) | ("table", Some("block")) => Display::Table,
            ("table-row-group" | "table-header-group" | "table-footer-group", None) => Display::TableRowGroup,
            ("table-row", None) => Display::TableRow,
            ("table-cell", None) => Display::TableCell,
            ("table-caption", None) => Display::TableCaption,
            ("table-column" | "table-column-group", None) => Display::TableColumn,
            _ => return None,
        })
    }
}

/// `visibility` (inherited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Visibility {
    /// Shown.
    #[default]
    Visible,
    /// Not shown; takes space; a descendant may be visible again.
    Hidden,
    /// As hidden (for table parts: also takes no space).
    Collapse,
}

/// `content-visibility`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentVisibility {
    /// Contents shown.
    #[default]
    Visible,
    /// Contents shown (rendering may be deferred off-screen).
    Auto,
    /// Contents skipped: not shown, not found.
    Hidden,
}

/// `position`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Position {
    /// Normal flow.
    #[default]
    Static,
    /// Normal flow, offset.
    Relative,
    /// Out of flow, placed against the containing block.
    Absolute,
    /// Out of flow, placed against the viewport.
    Fixed,
    /// In flow until scrolled against an edge.
    Sticky,
}

/// `overflow-x` / `overflow-y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Content may spill out.
    #[default]
    Visible,
    /// Clipped, scrollable by script.
    Hidden,
    /// Clipped.
    Clip,
    /// Scrollable.
    Scroll,
    /// Scrollable when needed.
    Auto,
}

/// `white-space` (inherited), as it affects collapsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhiteSpace {
    /// Collapse spaces and newlines.
    #[default]
    Normal,
    /// Collapse, no wrapping.
    Nowrap,
    /// Keep spaces and newlines.
    Pre,
    /// Keep spaces and newlines, wrap.
    PreWrap,
    /// Collapse spaces, keep newlines.
    PreLine,
}

impl WhiteSpace {
    /// Whether newlines in the source are kept.
    pub fn keeps_newlines(self) -> bool {
        matches!(self, WhiteSpace::Pre | WhiteSpace::PreWrap | WhiteSpace::PreLine)
    }
}

/// `text-transform` (inherited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextTransform {
    /// As written.
    #[default]
    None,
    /// UPPER CASE.
    Uppercase,
    /// lower case.
    Lowercase,
    /// First Letter Of Each Word.
    Capitalize,
}

impl TextTransform {
    /// Applies the transform to a piece of text (borrowed back when there
    /// is none; `capitalize` takes the text as starting a word).
    pub fn apply(self, text: &str) -> std::borrow::Cow<'_, str> {
        match self {
            TextTransform::None => std::borrow::Cow::Borrowed(text),
            TextTransform::Uppercase => text.to_uppercase().into(),
            TextTransform::Lowercase => text.to_lowercase().into(),
            TextTransform::Capitalize => {
                let mut out = String::with_capacity(text.len());
                let mut start = true;
                for c in text.chars() {
                    if start && c.is_alphabetic() {
                        out.extend(c.to_uppercase());
                        start = false;
                    } else {
                        out.push(c);
                        start = c.is_whitespace();
                    }
                }
                out.into()
            }
        }
    }
}

/// One piece of generated content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentItem {
    /// A quoted string.
    Text(String),
    /// `attr(name)`.
    Attr(String),
    /// An image (`url()`, gradients): contributes no text.
    Image,
    /// Counters and quotes: whittle does not number; no text.
    Other,
}

/// The `content` property of `::before` / `::after`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Content {
    /// `normal` / `none`: no pseudo-element box.
    #[default]
    None,
    /// Generated content, with the alternative text after `/` if given.
    Items(Vec<ContentItem>, Option<Vec<ContentItem>>),
}

/// A length before it is resolved against font sizes and the viewport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// CSS px (absolute units are converted).
    Px(f32),
    /// Of the element's font size.
    Em(f32),
    /// Of the root's font size.
    Rem(f32),
    /// Of the containing block (0–100).
    Percent(f32),
    /// Of the viewport width (0–100).
    Vw(f32),
    /// Of the viewport height (0–100).
    Vh(f32),
}

impl Length {
    /// The number as written, whatever the unit.
    pub fn number(self) -> f32 {
        match self {
            Length::Px(v) | Length::Em(v) | Length::Rem(v) | Length::Percent(v) | Length::Vw(v) | Length::Vh(v) => v,
        }
    }
}

/// `font-size` as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FontSize {
    Length(Length),
    /// `larger` / `smaller`: a factor of the parent's size.
    Relative(f32),
}

/// The properties whittle computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Property {
    Display,
    Visibility,
    ContentVisibility,
    Position,
    OverflowX,
    OverflowY,
    Opacity,
    FontSize,
    WhiteSpace,
    TextTransform,
    Content,
    Color,
    BackgroundColor,
    BackgroundImage,
    Clip,
    ClipPath,
    TextIndent,
}

impl Property {
    pub(crate) fn is_inherited(self) -> bool {
        matches!(
            self,
            Property::Visibility
                | Property::FontSize
                | Property::WhiteSpace
                | Property::TextTransform
                | Property::Color
                | Property::TextIndent
        )
    }
}

/// The CSS-wide keywords (`revert-layer` acts as `revert`: whittle does not
/// model layers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    Inherit,
    Initial,
    Unset,
    Revert,
}

impl Property {
    /// Every property whittle computes (what `all` sets).
    pub(crate) const ALL: [Property; 17] = [
        Property::Display,
        Property::Visibility,
        Property::ContentVisibility,
        Property::Position,
        Property::OverflowX,
        Property::OverflowY,
        Property::Opacity,
        Property::FontSize,
        Property::WhiteSpace,
        Property::TextTransform,
        Property::Content,
        Property::Color,
        Property::BackgroundColor,
        Property::BackgroundImage,
        Property::Clip,
        Property::ClipPath,
        Property::TextIndent,
    ];
}

/// A parsed declaration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decl {
    Display(Display),
    Visibility(Visibility),
    ContentVisibility(ContentVisibility),
    Position(Position),
    OverflowX(Overflow),
    OverflowY(Overflow),
    Opacity(f32),
    FontSize(FontSize),
    WhiteSpace(WhiteSpace),
    TextTransform(TextTransform),
    Content(Content),
    /// `color`; `None`: a value whittle cannot read.
    Color(Option<super::paint::Rgba>),
    /// `background-color`; `None`: a value whittle cannot read.
    BackgroundColor(Option<super::paint::Rgba>),
    /// Whether `background-image` paints something.
    BackgroundImage(bool),
    /// Whether `clip` leaves no area.
    Clip(bool),
    /// Whether `clip-path` clips everything away.
    ClipPath(bool),
    /// Whether `text-indent` pushes text out of sight.
    TextIndentFar(bool),
    Wide(Property, Wide),
    /// A box property (see [`super::boxes`]).
    Box(super::boxes::BoxProp, super::boxes::BoxValue),
    /// A CSS-wide keyword on a box property.
    BoxWide(super::boxes::BoxProp, Wide),
    /// A custom property (`--name: value`), its value as written.
    Custom(std::sync::Arc<Unparsed>),
    /// A declaration of a property whittle computes whose value has
    /// `var()`: read once the element's custom properties are known.
    Pending(std::sync::Arc<Unparsed>),
    /// `container-type`.
    ContainerType(ContainerType),
    /// `container-name` (empty: `none`).
    ContainerName(std::sync::Arc<[Box<str>]>),
}

/// `container-type`: which sizes of the element its descendants'
/// `@container` rules can query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContainerType {
    /// Not a size container.
    #[default]
    Normal,
    /// Its width.
    InlineSize,
    /// Its width and height.
    Size,
}

/// A declaration kept as written: its property name and value text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unparsed {
    pub(crate) name: Box<str>,
    pub(crate) value: Box<str>,
}

/// Parses the value of property `name` into zero or more declarations
/// (shorthands give several). `None`: not a property whittle computes, or a
/// value it cannot read (such as `var()`), which a browser would also drop
/// or which cannot change what whittle shows.
pub(crate) fn parse_declaration(name: &str, input: &mut Parser<'_>, out: &mut Vec<Decl>) -> Option<()> {
    // (Compared as bytes: a page's property name may be any text.)
    if name.as_bytes().get(..9).is_some_and(|b| b.eq_ignore_ascii_case(b"container")) {
        return container(&name[9..], input, out);
    }
    if name.eq_ignore_ascii_case("all") {
        let wide = input.try_parse(parse_wide).ok()?;
        out.extend(Property::ALL.iter().map(|&p| Decl::Wide(p, wide)));
        return Some(());
    }
    if name.eq_ignore_ascii_case("background") {
        if let Ok(wide) = input.try_parse(parse_wide) {
            out.push(Decl::Wide(Property::BackgroundColor, wide));
            out.push(Decl::Wide(Property::BackgroundImage, wide));
            return Some(());
        }
        let (color, image) = super::paint::background(input);
        out.push(Decl::BackgroundColor(color));
        out.push(Decl::BackgroundImage(image));
        return Some(());
    }
    let Some(property) = match_property(name) else {
        let longhands = super::boxes::longhands(name);
        if !longhands.is_empty()
            && let Ok(wide) = input.try_parse(parse_wide)
        {
            out.extend(longhands.iter().map(|&p| Decl::BoxWide(p, wide)));
            return Some(());
        }
        return super::boxes::parse(name, input, out);
    };
    if let Ok(wide) = input.try_parse(parse_wide) {
        match property {
            Some(p) => out.push(Decl::Wide(p, wide)),
            None => {
                out.push(Decl::Wide(Property::OverflowX, wide));
                out.push(Decl::Wide(Property::OverflowY, wide));
            }
        }
        return Some(());
    }
    let decl = match property {
        Some(Property::Display) => Decl::Display(Display::parse(input)?),
        Some(Property::Visibility) => Decl::Visibility(keyword(input, |k| match k {
            "visible" => Some(Visibility::Visible),
            "hidden" => Some(Visibility::Hidden),
            "collapse" => Some(Visibility::Collapse),
            _ => None,
        })?),
        Some(Property::ContentVisibility) => Decl::ContentVisibility(keyword(input, |k| match k {
            "visible" => Some(ContentVisibility::Visible),
            "auto" => Some(ContentVisibility::Auto),
            "hidden" => Some(ContentVisibility::Hidden),
            _ => None,
        })?),
        Some(Property::Position) => Decl::Position(keyword(input, |k| match k {
            "static" => Some(Position::Static),
            "relative" => Some(Position::Relative),
            "absolute" => Some(Position::Absolute),
            "fixed" => Some(Position::Fixed),
            "sticky" | "-webkit-sticky" => Some(Position::Sticky),
            _ => None,
        })?),
        Some(Property::OverflowX) => Decl::OverflowX(overflow(input)?),
        Some(Property::OverflowY) => Decl::OverflowY(overflow(input)?),
        None => {
            // The `overflow` shorthand: one or two keywords.
            let x = overflow(input)?;
            let y = input.try_parse(|i| overflow(i).ok_or(())).unwrap_or(x);
            out.push(Decl::OverflowX(x));
            out.push(Decl::OverflowY(y));
            return input.expect_exhausted().ok();
        }
        Some(Property::Opacity) => Decl::Opacity(match input.next().ok()? {
            Token::Number { value, .. } => value.clamp(0.0, 1.0),
            Token::Percentage { unit_value, .. } => unit_value.clamp(0.0, 1.0),
            _ => return None,
        }),
        Some(Property::FontSize) => Decl::FontSize(font_size(input)?),
        Some(Property::WhiteSpace) => Decl::WhiteSpace(white_space(input)?),
        Some(Property::TextTransform) => Decl::TextTransform(keyword(input, |k| match k {
            "none" => Some(TextTransform::None),
            "uppercase" => Some(TextTransform::Uppercase),
            "lowercase" => Some(TextTransform::Lowercase),
            "capitalize" => Some(TextTransform::Capitalize),
            _ => None,
        })?),
        Some(Property::Content) => Decl::Content(content(input)?),
        // An unreadable colour is unknown, not dropped: a dropped one would
        // leave the inherited colour, and a guess could hide visible text.
        Some(Property::Color) => {
            out.push(Decl::Color(super::paint::color(input)));
            return Some(());
        }
        Some(Property::BackgroundColor) => {
            out.push(Decl::BackgroundColor(super::paint::color(input)));
            return Some(());
        }
        Some(Property::BackgroundImage) => {
            out.push(Decl::BackgroundImage(super::paint::background_image(input)));
            return Some(());
        }
        Some(Property::Clip) => {
            out.push(Decl::Clip(super::paint::clip(input)));
            return Some(());
        }
        Some(Property::ClipPath) => {
            out.push(Decl::ClipPath(super::paint::clip_path(input)));
            return Some(());
        }
        Some(Property::TextIndent) => {
            out.push(Decl::TextIndentFar(super::paint::text_indent_far(input)));
            return Some(());
        }
    };
    input.expect_exhausted().ok()?;
    out.push(decl);
    Some(())
}

/// `container-type`, `container-name` and the `container` shorthand
/// (`name… [/ type]`), by the part of the name after `container`.
fn container(rest: &str, input: &mut Parser<'_>, out: &mut Vec<Decl>) -> Option<()> {
    let kind = |input: &mut Parser<'_>| {
        keyword(input, |k| match k {
            "normal" | "scroll-state" => Some(ContainerType::Normal),
            "inline-size" => Some(ContainerType::InlineSize),
            "size" => Some(ContainerType::Size),
            _ => None,
        })
    };
    let names = |input: &mut Parser<'_>| -> Option<std::sync::Arc<[Box<str>]>> {
        if input.try_parse(|i| i.expect_ident_matching("none")).is_ok() {
            return Some(std::sync::Arc::from(Vec::new()));
        }
        let mut names = Vec::new();
        while let Ok(name) = input.try_parse(|i| i.expect_ident().cloned()) {
            if ["and", "or", "not", "none"].iter().any(|k| name.eq_ignore_ascii_case(k)) {
                return None;
            }
            names.push(Box::<str>::from(name.as_ref()));
        }
        (!names.is_empty()).then(|| names.into())
    };
    if rest.eq_ignore_ascii_case("-type") {
        out.push(Decl::ContainerType(kind(input)?));
    } else if rest.eq_ignore_ascii_case("-name") {
        out.push(Decl::ContainerName(names(input)?));
    } else if rest.is_empty() {
        out.push(Decl::ContainerName(names(input)?));
        let t = if input.try_parse(|i| i.expect_delim('/')).is_ok() { kind(input)? } else { ContainerType::Normal };
        out.push(Decl::ContainerType(t));
    } else {
        return None;
    }
    input.expect_exhausted().ok()
}

/// The property for a declaration name; `Some(None)` is the `overflow`
/// shorthand.
fn match_property(name: &str) -> Option<Option<Property>> {
    let p = match name.len() {
        4 if name.eq_ignore_ascii_case("clip") => Property::Clip,
        5 if name.eq_ignore_ascii_case("color") => Property::Color,
        9 if name.eq_ignore_ascii_case("clip-path") => Property::ClipPath,
        16 if name.eq_ignore_ascii_case("background-color") => Property::BackgroundColor,
        16 if name.eq_ignore_ascii_case("background-image") => Property::BackgroundImage,
        7 if name.eq_ignore_ascii_case("display") => Property::Display,
        7 if name.eq_ignore_ascii_case("opacity") => Property::Opacity,
        7 if name.eq_ignore_ascii_case("content") => Property::Content,
        8 if name.eq_ignore_ascii_case("position") => Property::Position,
        8 if name.eq_ignore_ascii_case("overflow") => return Some(None),
        9 if name.eq_ignore_ascii_case("font-size") => Property::FontSize,
        10 if name.eq_ignore_ascii_case("visibility") => Property::Visibility,
        10 if name.eq_ignore_ascii_case("overflow-x") => Property::OverflowX,
        10 if name.eq_ignore_ascii_case("overflow-y") => Property::OverflowY,
        11 if name.eq_ignore_ascii_case("white-space") => Property::WhiteSpace,
        11 if name.eq_ignore_ascii_case("text-indent") => Property::TextIndent,
        14 if name.eq_ignore_ascii_case("text-transform") => Property::TextTransform,
        18 if name.eq_ignore_ascii_case("content-visibility") => Property::ContentVisibility,
        _ => return None,
    };
    Some(Some(p))
}

pub(crate) fn parse_wide<'i>(input: &mut Parser<'i>) -> Result<Wide, cssparser::ParseError<()>> {
    let ident = input.expect_ident()?.clone();
    let wide = if ident.eq_ignore_ascii_case("inherit") {
        Wide::Inherit
    } else if ident.eq_ignore_ascii_case("initial") {
        Wide::Initial
    } else if ident.eq_ignore_ascii_case("unset") {
        Wide::Unset
    } else if ident.eq_ignore_ascii_case("revert") || ident.eq_ignore_ascii_case("revert-layer") {
        Wide::Revert
    } else {
        return Err(cssparser::ParseError::custom(()));
    };
    input.expect_exhausted()?;
    Ok(wide)
}

pub(crate) fn keyword<T>(input: &mut Parser<'_>, f: impl FnOnce(&str) -> Option<T>) -> Option<T> {
    let ident = input.expect_ident().ok()?.to_ascii_lowercase();
    f(&ident)
}

fn overflow(input: &mut Parser<'_>) -> Option<Overflow> {
    keyword(input, |k| match k {
        "visible" => Some(Overflow::Visible),
        "hidden" => Some(Overflow::Hidden),
        "clip" => Some(Overflow::Clip),
        "scroll" => Some(Overflow::Scroll),
        "auto" | "overlay" => Some(Overflow::Auto),
        _ => None,
    })
}

fn white_space(input: &mut Parser<'_>) -> Option<WhiteSpace> {
    keyword(input, |k| match k {
        "normal" => Some(WhiteSpace::Normal),
        "nowrap" => Some(WhiteSpace::Nowrap),
        "pre" => Some(WhiteSpace::Pre),
        "pre-wrap" | "break-spaces" => Some(WhiteSpace::PreWrap),
        "pre-line" => Some(WhiteSpace::PreLine),
        _ => None,
    })
}

/// A `<length-percentage>` token.
pub(crate) fn length(token: &Token<'_>) -> Option<Length> {
    match *token {
        Token::Dimension { value, ref unit, .. } => {
            let unit = unit.to_ascii_lowercase();
            Some(match unit.as_str() {
                "px" => Length::Px(value),
                "em" => Length::Em(value),
                "rem" => Length::Rem(value),
                "ex" | "ch" => Length::Em(value / 2.0),
                "pt" => Length::Px(value * 4.0 / 3.0),
                "pc" => Length::Px(value * 16.0),
                "in" => Length::Px(value * 96.0),
                "cm" => Length::Px(value * 96.0 / 2.54),
                "mm" => Length::Px(value * 96.0 / 25.4),
                "q" => Length::Px(value * 96.0 / 101.6),
                "vw" | "svw" | "lvw" | "dvw" => Length::Vw(value),
                "vh" | "svh" | "lvh" | "dvh" => Length::Vh(value),
                _ => return None,
            })
        }
        Token::Percentage { unit_value, .. } => Some(Length::Percent(unit_value * 100.0)),
        Token::Number { value, .. } if value == 0.0 => Some(Length::Px(0.0)),
        _ => None,
    }
}

fn font_size(input: &mut Parser<'_>) -> Option<FontSize> {
    let token = input.next().ok()?.clone();
    if let Token::Ident(k) = &token {
        let px = match k.to_ascii_lowercase().as_str() {
            "xx-small" => 9.0,
            "x-small" => 10.0,
            "small" => 13.0,
            "medium" => 16.0,
            "large" => 18.0,
            "x-large" => 24.0,
            "xx-large" => 32.0,
            "xxx-large" => 48.0,
            "larger" => return Some(FontSize::Relative(1.2)),
            "smaller" => return Some(FontSize::Relative(1.0 / 1.2)),
            _ => return None,
        };
        return Some(FontSize::Length(Length::Px(px)));
    }
    let l = length(&token)?;
    let negative = l.number() < 0.0 || !l.number().is_finite();
    if negative { None } else { Some(FontSize::Length(l)) }
}

fn content(input: &mut Parser<'_>) -> Option<Content> {
    if let Ok(k) = input.try_parse(|i| i.expect_ident().map(|s| s.to_ascii_lowercase())) {
        return match k.as_str() {
            "none" | "normal" => Some(Content::None),
            _ => {
                // A quote keyword starting the list.
                let mut items = vec![ContentItem::Other];
                content_items(input, &mut items)?;
                finish_content(input, items)
            }
        };
    }
    let mut items = Vec::new();
    content_items(input, &mut items)?;
    if items.is_empty() {
        return None;
    }
    finish_content(input, items)
}

fn finish_content(input: &mut Parser<'_>, items: Vec<ContentItem>) -> Option<Content> {
    let alt = if input.try_parse(|i| i.expect_delim('/')).is_ok() {
        let mut alt = Vec::new();
        content_items(input, &mut alt)?;
        Some(alt)
    } else {
        None
    };
    Some(Content::Items(items, alt))
}

/// Reads content items until the end or a `/`.
fn content_items(input: &mut Parser<'_>, out: &mut Vec<ContentItem>) -> Option<()> {
    loop {
        let state = input.state();
        let Ok(token) = input.next() else { return Some(()) };
        match token.clone() {
            Token::QuotedString(s) => out.push(ContentItem::Text(s.as_ref().to_owned())),
            Token::UnquotedUrl(_) => out.push(ContentItem::Image),
            Token::Ident(_) => out.push(ContentItem::Other),
            Token::Delim('/') => {
                input.reset(&state);
                return Some(());
            }
            Token::Function(name) => {
                let name = name.to_ascii_lowercase();
                let item = input
                    .parse_nested_block(|i| {
                        Ok::<_, cssparser::ParseError<()>>(match name.as_str() {
                            "attr" => {
                                let attr = i.expect_ident()?.as_ref().to_ascii_lowercase();
                                while i.next().is_ok() {}
                                ContentItem::Attr(attr)
                            }
                            "url" | "image-set" | "-webkit-image-set" | "linear-gradient"
                            | "radial-gradient" | "conic-gradient" | "repeating-linear-gradient"
                            | "repeating-radial-gradient" | "image" => {
                                while i.next().is_ok() {}
                                ContentItem::Image
                            }
                            _ => {
                                while i.next().is_ok() {}
                                ContentItem::Other
                            }
                        })
                    })
                    .ok()?;
                if name == "var" || name == "env" {
                    return None;
                }
                out.push(item);
            }
            _ => return None,
        }
    }
}

/// Resolves a length to pixels.
pub(crate) fn resolve_length(l: Length, font_size: f32, root_font_size: f32, percent_base: f32, viewport: (f32, f32)) -> f32 {
    let px = match l {
        Length::Px(v) => v,
        Length::Em(v) => v * font_size,
        Length::Rem(v) => v * root_font_size,
        Length::Percent(v) => v / 100.0 * percent_base,
        Length::Vw(v) => v / 100.0 * viewport.0,
        Length::Vh(v) => v / 100.0 * viewport.1,
    };
    if px.is_finite() { px } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(name: &str, value: &str) -> Vec<Decl> {
        let mut parser = Parser::new(value);
        let mut out = Vec::new();
        let _ = parse_declaration(name, &mut parser, &mut out);
        out
    }

    #[test]
    fn display_forms() {
        assert_eq!(decls("display", "none"), vec![Decl::Display(Display::None)]);
        assert_eq!(decls("DISPLAY", "Inline-Block"), vec![Decl::Display(Display::InlineBlock)]);
        assert_eq!(decls("display", "inline flex"), vec![Decl::Display(Display::InlineBlock)]);
        assert_eq!(decls("display", "block flow-root"), vec![Decl::Display(Display::Block)]);
        assert_eq!(decls("display", "bogus"), vec![]);
        assert_eq!(decls("display", "var(--d)"), vec![]);
        assert_eq!(decls("display", "inherit"), vec![Decl::Wide(Property::Display, Wide::Inherit)]);
        assert_eq!(decls("display", "revert-layer"), vec![Decl::Wide(Property::Display, Wide::Revert)]);
        assert_eq!(decls("all", "unset").len(), Property::ALL.len());
        assert!(decls("all", "none").is_empty());
    }

    #[test]
    fn overflow_shorthand() {
        assert_eq!(decls("overflow", "hidden auto"), vec![Decl::OverflowX(Overflow::Hidden), Decl::OverflowY(Overflow::Auto)]);
        assert_eq!(decls("overflow", "clip"), vec![Decl::OverflowX(Overflow::Clip), Decl::OverflowY(Overflow::Clip)]);
    }

    #[test]
    fn content_with_alt_text() {
        assert_eq!(
            decls("content", r#"" before " / " alt " attr(data-x)"#),
            vec![Decl::Content(Content::Items(
                vec![ContentItem::Text(" before ".into())],
                Some(vec![ContentItem::Text(" alt ".into()), ContentItem::Attr("data-x".into())])
            ))]
        );
        assert_eq!(decls("content", "none"), vec![Decl::Content(Content::None)]);
        assert_eq!(
            decls("content", r#""x" url(a.png)"#),
            vec![Decl::Content(Content::Items(vec![ContentItem::Text("x".into()), ContentItem::Image], None))]
        );
    }

    #[test]
    fn unknown_properties_are_skipped() {
        assert!(decls("cursor", "pointer").is_empty());
        // Colours are read (what text is drawn in); unreadable ones are
        // unknown, not dropped.
        assert_eq!(decls("color", "red"), vec![Decl::Color(Some([255, 0, 0, 255]))]);
        assert_eq!(decls("color", "var(--fg)"), vec![Decl::Color(None)]);
        assert!(decls("font-size", "-3px").is_empty());
        assert_eq!(decls("font-size", "2em"), vec![Decl::FontSize(FontSize::Length(Length::Em(2.0)))]);
    }
}
