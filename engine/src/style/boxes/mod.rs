//! The box properties layout reads: sizes, margins, padding, borders,
//! insets, flex and grid fields, `box-sizing`, `line-height`, `float`.
//!
//! They are kept apart from [`ComputedStyle`](super::ComputedStyle): most
//! nodes set none of them, so the cascade stores, per element, only the
//! declarations that won ([`BoxDecls`]), and layout resolves them against
//! font sizes and the viewport. Values whittle cannot read (`calc()`,
//! `var()`, named grid lines) drop the declaration, as a browser drops what
//! it cannot parse; layout then uses the initial value.

use cssparser::{Parser, Token};

use super::values::{Decl, Length, keyword, length};

/// The box properties a cascade without a layout keeps: conceal reads
/// them to find a box declared too small, or placed too far out, to be
/// seen (see [`crate::safety::conceal::conceal_declared`]).
pub const WITHOUT_LAYOUT: [BoxProp; 5] = [BoxProp::Width, BoxProp::Height, BoxProp::Top, BoxProp::Right, BoxProp::Left];

/// A box property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BoxProp {
    Width,
    Height,
    MinWidth,
    MinHeight,
    MaxWidth,
    MaxHeight,
    MarginTop,
    MarginRight,
    MarginBottom,
    MarginLeft,
    PaddingTop,
    PaddingRight,
    PaddingBottom,
    PaddingLeft,
    BorderTop,
    BorderRight,
    BorderBottom,
    BorderLeft,
    Top,
    Right,
    Bottom,
    Left,
    FlexDirection,
    FlexWrap,
    FlexGrow,
    FlexShrink,
    FlexBasis,
    JustifyContent,
    AlignItems,
    AlignSelf,
    AlignContent,
    RowGap,
    ColumnGap,
    GridTemplateColumns,
    GridTemplateRows,
    GridColumnStart,
    GridColumnEnd,
    GridRowStart,
    GridRowEnd,
    BoxSizing,
    LineHeight,
    Float,
    Clear,
    AspectRatio,
}

/// `flex-direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum FlexDirection {
    Row,
    RowReverse,
    Column,
    ColumnReverse,
}

/// Alignment keywords (`justify-content`, `align-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Align {
    Normal,
    Start,
    End,
    Center,
    Stretch,
    Baseline,
    SpaceBetween,
    SpaceAround,
    SpaceEvenly,
}

/// `float` / `clear` sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Side {
    None,
    Left,
    Right,
    Both,
}

/// `line-height`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LineHeight {
    /// `normal`: about 1.2 × the font size.
    Normal,
    /// A factor of the font size (inherited as the factor).
    Number(f32),
    /// A length (inherited as the resolved length).
    Length(Length),
}

/// One track size in a grid template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrackSize {
    /// A length or percentage.
    Fixed(Length),
    /// `Nfr`.
    Fr(f32),
    /// `auto`.
    Auto,
    /// `min-content`.
    MinContent,
    /// `max-content`.
    MaxContent,
    /// `minmax(min, max)` (min is never `fr`).
    MinMax(MinTrack, MaxTrack),
}

/// The lower bound of `minmax()`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum MinTrack {
    Fixed(Length),
    Auto,
    MinContent,
    MaxContent,
}

/// The upper bound of `minmax()`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum MaxTrack {
    Fixed(Length),
    Fr(f32),
    Auto,
    MinContent,
    MaxContent,
}

/// How often `repeat()` repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Repeat {
    Count(u16),
    AutoFill,
    AutoFit,
}

/// One component of a grid template.
#[derive(Debug, Clone, PartialEq)]
pub enum Track {
    /// One track.
    Single(TrackSize),
    /// `repeat(count, tracks)`.
    Repeat(Repeat, Vec<TrackSize>),
}

/// A grid line placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridLine {
    /// `auto`.
    Auto,
    /// A line number (negative counts from the end).
    Line(i16),
    /// `span N`.
    Span(u16),
}

/// The value of a box property.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum BoxValue {
    Length(Length),
    Auto,
    /// `none` (`max-width`, `flex-basis` content…).
    None,
    Number(f32),
    BorderBox(bool),
    FlexDirection(FlexDirection),
    /// `flex-wrap`: wraps (`wrap`, `wrap-reverse`) or not.
    Wrap(bool),
    Align(Align),
    Side(Side),
    LineHeight(LineHeight),
    Tracks(Box<[Track]>),
    Line(GridLine),
}

/// The winning box declarations of one element, in no particular order,
/// each property at most once.
pub type BoxDecls = Box<[(BoxProp, BoxValue)]>;

/// Most tracks or repetitions a template may ask for: a 10,000-column grid
/// is laid out as 1,000 columns (with a diagnostic-free degradation: the
/// page still renders).
pub const MAX_TRACKS: u16 = 1000;

/// Parses a box property declaration into `out`. `None`: not a box
/// property, or a value whittle cannot read.
pub(crate) fn parse(name: &str, input: &mut Parser<'_>, out: &mut Vec<Decl>) -> Option<()> {
    let name = name.to_ascii_lowercase();
    let mut push = |p: BoxProp, v: BoxValue| out.push(Decl::Box(p, v));
    use BoxProp as P;
    match name.as_str() {
        "width" => push(P::Width, size(input)?),
        "height" => push(P::Height, size(input)?),
        "min-width" => push(P::MinWidth, size(input)?),
        "min-height" => push(P::MinHeight, size(input)?),
        "max-width" => push(P::MaxWidth, size(input)?),
        "max-height" => push(P::MaxHeight, size(input)?),
        "margin" => four(
            input,
            [P::MarginTop, P::MarginRight, P::MarginBottom, P::MarginLeft],
            &mut push,
            length_or_auto,
        )?,
        "margin-top" => push(P::MarginTop, length_or_auto(input)?),
        "margin-right" => push(P::MarginRight, length_or_auto(input)?),
        "margin-bottom" => push(P::MarginBottom, length_or_auto(input)?),
        "margin-left" => push(P::MarginLeft, length_or_auto(input)?),
        "margin-block" => two(
            input,
            [P::MarginTop, P::MarginBottom],
            &mut push,
            length_or_auto,
        )?,
        "margin-inline" => two(
            input,
            [P::MarginLeft, P::MarginRight],
            &mut push,
            length_or_auto,
        )?,
        "margin-block-start" => push(P::MarginTop, length_or_auto(input)?),
        "margin-block-end" => push(P::MarginBottom, length_or_auto(input)?),
        "margin-inline-start" => push(P::MarginLeft, length_or_auto(input)?),
        "margin-inline-end" => push(P::MarginRight, length_or_auto(input)?),
        "padding" => four(
            input,
            [
                P::PaddingTop,
                P::PaddingRight,
                P::PaddingBottom,
                P::PaddingLeft,
            ],
            &mut push,
            non_negative,
        )?,
        "padding-top" => push(P::PaddingTop, non_negative(input)?),
        "padding-right" => push(P::PaddingRight, non_negative(input)?),
        "padding-bottom" => push(P::PaddingBottom, non_negative(input)?),
        "padding-left" => push(P::PaddingLeft, non_negative(input)?),
        "padding-block" => two(
            input,
            [P::PaddingTop, P::PaddingBottom],
            &mut push,
            non_negative,
        )?,
        "padding-inline" => two(
            input,
            [P::PaddingLeft, P::PaddingRight],
            &mut push,
            non_negative,
        )?,
        "padding-block-start" => push(P::PaddingTop, non_negative(input)?),
        "padding-block-end" => push(P::PaddingBottom, non_negative(input)?),
        "padding-inline-start" => push(P::PaddingLeft, non_negative(input)?),
        "padding-inline-end" => push(P::PaddingRight, non_negative(input)?),
        "border-width" => four(
            input,
            [P::BorderTop, P::BorderRight, P::BorderBottom, P::BorderLeft],
            &mut push,
            border_width,
        )?,
        "border-top-width" => push(P::BorderTop, border_width(input)?),
        "border-right-width" => push(P::BorderRight, border_width(input)?),
        "border-bottom-width" => push(P::BorderBottom, border_width(input)?),
        "border-left-width" => push(P::BorderLeft, border_width(input)?),
        "border" => {
            let w = border_shorthand(input)?;
            for p in [P::BorderTop, P::BorderRight, P::BorderBottom, P::BorderLeft] {
                push(p, w.clone());
            }
        }
        "border-top" => push(P::BorderTop, border_shorthand(input)?),
        "border-right" => push(P::BorderRight, border_shorthand(input)?),
        "border-bottom" => push(P::BorderBottom, border_shorthand(input)?),
        "border-left" => push(P::BorderLeft, border_shorthand(input)?),
        "inset" => four(
            input,
            [P::Top, P::Right, P::Bottom, P::Left],
            &mut push,
            length_or_auto,
        )?,
        "top" => push(P::Top, length_or_auto(input)?),
        "right" => push(P::Right, length_or_auto(input)?),
        "bottom" => push(P::Bottom, length_or_auto(input)?),
        "left" => push(P::Left, length_or_auto(input)?),
        "flex-direction" => push(
            P::FlexDirection,
            BoxValue::FlexDirection(flex_direction(input)?),
        ),
        "flex-wrap" => push(P::FlexWrap, BoxValue::Wrap(flex_wrap(input)?)),
        "flex-flow" => {
            let mut any = false;
            while !input.is_exhausted() {
                if let Ok(d) = input.try_parse(|i| flex_direction(i).ok_or(())) {
                    push(P::FlexDirection, BoxValue::FlexDirection(d));
                } else {
                    push(P::FlexWrap, BoxValue::Wrap(flex_wrap(input)?));
                }
                any = true;
            }
            if !any {
                return None;
            }
        }
        "flex-grow" => push(P::FlexGrow, BoxValue::Number(number(input)?.max(0.0))),
        "flex-shrink" => push(P::FlexShrink, BoxValue::Number(number(input)?.max(0.0))),
        "flex-basis" => push(P::FlexBasis, size(input)?),
        "flex" => flex(input, &mut push)?,
        "justify-content" => push(P::JustifyContent, BoxValue::Align(align(input)?)),
        "align-items" => push(P::AlignItems, BoxValue::Align(align(input)?)),
        "align-self" => push(P::AlignSelf, BoxValue::Align(align(input)?)),
        "align-content" => push(P::AlignContent, BoxValue::Align(align(input)?)),
        "gap" | "grid-gap" => two(input, [P::RowGap, P::ColumnGap], &mut push, gap)?,
        "row-gap" | "grid-row-gap" => push(P::RowGap, gap(input)?),
        "column-gap" | "grid-column-gap" => push(P::ColumnGap, gap(input)?),
        "grid-template-columns" => push(P::GridTemplateColumns, BoxValue::Tracks(tracks(input)?)),
        "grid-template-rows" => push(P::GridTemplateRows, BoxValue::Tracks(tracks(input)?)),
        "grid-column" => grid_span(input, [P::GridColumnStart, P::GridColumnEnd], &mut push)?,
        "grid-row" => grid_span(input, [P::GridRowStart, P::GridRowEnd], &mut push)?,
        "grid-column-start" => push(P::GridColumnStart, BoxValue::Line(grid_line(input)?)),
        "grid-column-end" => push(P::GridColumnEnd, BoxValue::Line(grid_line(input)?)),
        "grid-row-start" => push(P::GridRowStart, BoxValue::Line(grid_line(input)?)),
        "grid-row-end" => push(P::GridRowEnd, BoxValue::Line(grid_line(input)?)),
        "box-sizing" => push(
            P::BoxSizing,
            BoxValue::BorderBox(keyword(input, |k| match k {
                "border-box" => Some(true),
                "content-box" => Some(false),
                _ => None,
            })?),
        ),
        "line-height" => push(P::LineHeight, BoxValue::LineHeight(line_height(input)?)),
        "float" => push(
            P::Float,
            BoxValue::Side(keyword(input, |k| match k {
                "none" => Some(Side::None),
                "left" | "inline-start" => Some(Side::Left),
                "right" | "inline-end" => Some(Side::Right),
                _ => None,
            })?),
        ),
        "clear" => push(
            P::Clear,
            BoxValue::Side(keyword(input, |k| match k {
                "none" => Some(Side::None),
                "left" | "inline-start" => Some(Side::Left),
                "right" | "inline-end" => Some(Side::Right),
                "both" => Some(Side::Both),
                _ => None,
            })?),
        ),
        "aspect-ratio" => push(P::AspectRatio, aspect_ratio(input)?),
        _ => return None,
    }
    input.expect_exhausted().ok()
}

/// The longhands a box shorthand (or longhand) sets, for CSS-wide
/// keywords; empty when `name` is not a box property.
pub(crate) fn longhands(name: &str) -> &'static [BoxProp] {
    use BoxProp as P;
    match name.to_ascii_lowercase().as_str() {
        "width" => &[P::Width],
        "height" => &[P::Height],
        "min-width" => &[P::MinWidth],
        "min-height" => &[P::MinHeight],
        "max-width" => &[P::MaxWidth],
        "max-height" => &[P::MaxHeight],
        "margin" => &[P::MarginTop, P::MarginRight, P::MarginBottom, P::MarginLeft],
        "margin-top" => &[P::MarginTop],
        "margin-right" => &[P::MarginRight],
        "margin-bottom" => &[P::MarginBottom],
        "margin-left" => &[P::MarginLeft],
        "padding" => &[
            P::PaddingTop,
            P::PaddingRight,
            P::PaddingBottom,
            P::PaddingLeft,
        ],
        "padding-top" => &[P::PaddingTop],
        "padding-right" => &[P::PaddingRight],
        "padding-bottom" => &[P::PaddingBottom],
        "padding-left" => &[P::PaddingLeft],
        "border" | "border-width" => {
            &[P::BorderTop, P::BorderRight, P::BorderBottom, P::BorderLeft]
        }
        "inset" => &[P::Top, P::Right, P::Bottom, P::Left],
        "top" => &[P::Top],
        "right" => &[P::Right],
        "bottom" => &[P::Bottom],
        "left" => &[P::Left],
        "flex" => &[P::FlexGrow, P::FlexShrink, P::FlexBasis],
        "line-height" => &[P::LineHeight],
        "float" => &[P::Float],
        "box-sizing" => &[P::BoxSizing],
        "flex-direction" => &[P::FlexDirection],
        "grid-template-columns" => &[P::GridTemplateColumns],
        "grid-template-rows" => &[P::GridTemplateRows],
        "gap" => &[P::RowGap, P::ColumnGap],
        _ => &[],
    }
}

fn finite(l: Length) -> Option<Length> {
    l.number().is_finite().then_some(l)
}

fn is_negative(l: Length) -> bool {
    l.number() < 0.0
}

fn a_length(input: &mut Parser<'_>) -> Option<Length> {
    let token = input.next().ok()?.clone();
    finite(length(&token)?)
}

fn length_or_auto(input: &mut Parser<'_>) -> Option<BoxValue> {
    if input.try_parse(|i| i.expect_ident_matching("auto")).is_ok() {
        return Some(BoxValue::Auto);
    }
    Some(BoxValue::Length(a_length(input)?))
}

fn non_negative(input: &mut Parser<'_>) -> Option<BoxValue> {
    let l = a_length(input)?;
    (!is_negative(l)).then_some(BoxValue::Length(l))
}

/// `width`-like values: a length, `auto`, `none`, or an intrinsic keyword
/// (read as `auto`).
fn size(input: &mut Parser<'_>) -> Option<BoxValue> {
    if let Ok(k) = input.try_parse(|i| i.expect_ident().map(|s| s.to_ascii_lowercase())) {
        return match k.as_str() {
            "auto"
            | "min-content"
            | "max-content"
            | "fit-content"
            | "-webkit-fill-available"
            | "stretch"
            | "-moz-available"
            | "content" => Some(BoxValue::Auto),
            "none" => Some(BoxValue::None),
            _ => None,
        };
    }
    non_negative(input)
}

fn gap(input: &mut Parser<'_>) -> Option<BoxValue> {
    if input
        .try_parse(|i| i.expect_ident_matching("normal"))
        .is_ok()
    {
        return Some(BoxValue::Length(Length::Px(0.0)));
    }
    non_negative(input)
}

fn border_width(input: &mut Parser<'_>) -> Option<BoxValue> {
    if let Ok(k) = input.try_parse(|i| i.expect_ident().map(|s| s.to_ascii_lowercase())) {
        return match k.as_str() {
            "thin" => Some(BoxValue::Length(Length::Px(1.0))),
            "medium" => Some(BoxValue::Length(Length::Px(3.0))),
            "thick" => Some(BoxValue::Length(Length::Px(5.0))),
            _ => None,
        };
    }
    non_negative(input)
}

/// `border: 1px solid red`: the width, `0` when the style is `none` or
/// `hidden`, `medium` (3px) when only a style is given.
fn border_shorthand(input: &mut Parser<'_>) -> Option<BoxValue> {
    let mut width = None;
    let mut styled = false;
    let mut none = false;
    while let Ok(token) = input.next() {
        match token.clone() {
            Token::Ident(k) => match k.to_ascii_lowercase().as_str() {
                "none" | "hidden" => none = true,
                "solid" | "dashed" | "dotted" | "double" | "groove" | "ridge" | "inset"
                | "outset" => styled = true,
                "thin" => width = Some(Length::Px(1.0)),
                "medium" => width = Some(Length::Px(3.0)),
                "thick" => width = Some(Length::Px(5.0)),
                _ => {}
            },
            t @ (Token::Dimension { .. } | Token::Number { .. }) => {
                if let Some(l) = length(&t).and_then(finite)
                    && !is_negative(l)
                {
                    width = Some(l);
                }
            }
            Token::Function(_) => {
                let _ = input.parse_nested_block(|i| {
                    while i.next().is_ok() {}
                    Ok::<_, cssparser::ParseError<()>>(())
                });
            }
            _ => {}
        }
    }
    if none || !styled {
        return Some(BoxValue::Length(Length::Px(0.0)));
    }
    Some(BoxValue::Length(width.unwrap_or(Length::Px(3.0))))
}

/// One to four values: top, right, bottom, left.
fn four(
    input: &mut Parser<'_>,
    props: [BoxProp; 4],
    push: &mut impl FnMut(BoxProp, BoxValue),
    one: fn(&mut Parser<'_>) -> Option<BoxValue>,
) -> Option<()> {
    let mut values = Vec::with_capacity(4);
    while !input.is_exhausted() && values.len() < 4 {
        values.push(one(input)?);
    }
    let [t, r, b, l] = match values.len() {
        1 => [0, 0, 0, 0],
        2 => [0, 1, 0, 1],
        3 => [0, 1, 2, 1],
        4 => [0, 1, 2, 3],
        _ => return None,
    };
    for (p, i) in props.into_iter().zip([t, r, b, l]) {
        push(p, values[i].clone());
    }
    Some(())
}

/// One or two values (`gap: row column`, `margin-block: start end`).
fn two(
    input: &mut Parser<'_>,
    props: [BoxProp; 2],
    push: &mut impl FnMut(BoxProp, BoxValue),
    one: fn(&mut Parser<'_>) -> Option<BoxValue>,
) -> Option<()> {
    let first = one(input)?;
    let second = if input.is_exhausted() {
        first.clone()
    } else {
        one(input)?
    };
    push(props[0], first);
    push(props[1], second);
    Some(())
}

fn number(input: &mut Parser<'_>) -> Option<f32> {
    let v = input.expect_number().ok()?;
    v.is_finite().then_some(v)
}

fn flex_direction(input: &mut Parser<'_>) -> Option<FlexDirection> {
    keyword(input, |k| match k {
        "row" => Some(FlexDirection::Row),
        "row-reverse" => Some(FlexDirection::RowReverse),
        "column" => Some(FlexDirection::Column),
        "column-reverse" => Some(FlexDirection::ColumnReverse),
        _ => None,
    })
}

fn flex_wrap(input: &mut Parser<'_>) -> Option<bool> {
    keyword(input, |k| match k {
        "nowrap" => Some(false),
        "wrap" | "wrap-reverse" => Some(true),
        _ => None,
    })
}

/// `flex: none | auto | <grow> [<shrink>] [<basis>] | <basis>`.
fn flex(input: &mut Parser<'_>, push: &mut impl FnMut(BoxProp, BoxValue)) -> Option<()> {
    let (mut grow, mut shrink, mut basis) = (None, None, None);
    if let Ok(k) = input.try_parse(|i| i.expect_ident().map(|s| s.to_ascii_lowercase())) {
        let (g, s, b) = match k.as_str() {
            "none" => (0.0, 0.0, BoxValue::Auto),
            "auto" => (1.0, 1.0, BoxValue::Auto),
            "initial" => (0.0, 1.0, BoxValue::Auto),
            _ => return None,
        };
        push(BoxProp::FlexGrow, BoxValue::Number(g));
        push(BoxProp::FlexShrink, BoxValue::Number(s));
        push(BoxProp::FlexBasis, b);
        return Some(());
    }
    while !input.is_exhausted() {
        let token = input.next().ok()?.clone();
        match token {
            Token::Number { value, .. } if grow.is_none() && value.is_finite() => {
                grow = Some(value.max(0.0))
            }
            Token::Number { value, .. } if shrink.is_none() && value.is_finite() => {
                shrink = Some(value.max(0.0))
            }
            Token::Ident(ref k)
                if k.eq_ignore_ascii_case("auto") || k.eq_ignore_ascii_case("content") =>
            {
                basis = Some(BoxValue::Auto)
            }
            t => basis = Some(BoxValue::Length(length(&t).and_then(finite)?)),
        }
    }
    if grow.is_none() && basis.is_none() {
        return None;
    }
    push(BoxProp::FlexGrow, BoxValue::Number(grow.unwrap_or(1.0)));
    push(BoxProp::FlexShrink, BoxValue::Number(shrink.unwrap_or(1.0)));
    // `flex: 1` means a basis of 0.
    push(
        BoxProp::FlexBasis,
        basis.unwrap_or(BoxValue::Length(Length::Px(0.0))),
    );
    Some(())
}

fn align(input: &mut Parser<'_>) -> Option<Align> {
    let mut result = None;
    while let Ok(k) = input.expect_ident().map(|s| s.to_ascii_lowercase()) {
        let a = match k.as_str() {
            "safe" | "unsafe" | "first" | "last" => continue,
            "normal" | "auto" | "left" | "right" => Align::Normal,
            "start" | "flex-start" | "self-start" => Align::Start,
            "end" | "flex-end" | "self-end" => Align::End,
            "center" => Align::Center,
            "stretch" => Align::Stretch,
            "baseline" => Align::Baseline,
            "space-between" => Align::SpaceBetween,
            "space-around" => Align::SpaceAround,
            "space-evenly" => Align::SpaceEvenly,
            _ => return None,
        };
        result = Some(a);
    }
    result
}

fn line_height(input: &mut Parser<'_>) -> Option<LineHeight> {
    if input
        .try_parse(|i| i.expect_ident_matching("normal"))
        .is_ok()
    {
        return Some(LineHeight::Normal);
    }
    let token = input.next().ok()?.clone();
    match token {
        Token::Number { value, .. } if value.is_finite() && value >= 0.0 => {
            Some(LineHeight::Number(value))
        }
        t => {
            let l = length(&t).and_then(finite)?;
            (!is_negative(l)).then_some(LineHeight::Length(l))
        }
    }
}

fn aspect_ratio(input: &mut Parser<'_>) -> Option<BoxValue> {
    if input.try_parse(|i| i.expect_ident_matching("auto")).is_ok() {
        return Some(BoxValue::Auto);
    }
    let w = number(input)?;
    let h = if input.try_parse(|i| i.expect_delim('/')).is_ok() {
        number(input)?
    } else {
        1.0
    };
    let r = w / h;
    (r.is_finite() && r > 0.0).then_some(BoxValue::Number(r))
}

fn track_size(input: &mut Parser<'_>) -> Option<TrackSize> {
    let token = input.next().ok()?.clone();
    Some(match token {
        Token::Ident(k) => match k.to_ascii_lowercase().as_str() {
            "auto" => TrackSize::Auto,
            "min-content" => TrackSize::MinContent,
            "max-content" => TrackSize::MaxContent,
            _ => return None,
        },
        Token::Dimension {
            value, ref unit, ..
        } if unit.eq_ignore_ascii_case("fr") => {
            if !value.is_finite() || value < 0.0 {
                return None;
            }
            TrackSize::Fr(value)
        }
        Token::Function(ref name) if name.eq_ignore_ascii_case("minmax") => input
            .parse_nested_block(|i| {
                let min = match track_size(i) {
                    Some(TrackSize::Fixed(l)) => MinTrack::Fixed(l),
                    Some(TrackSize::Auto) => MinTrack::Auto,
                    Some(TrackSize::MinContent) => MinTrack::MinContent,
                    Some(TrackSize::MaxContent) => MinTrack::MaxContent,
                    _ => return Err(cssparser::ParseError::<()>::custom(())),
                };
                i.expect_comma()
                    .map_err(|_| cssparser::ParseError::<()>::custom(()))?;
                let max = match track_size(i) {
                    Some(TrackSize::Fixed(l)) => MaxTrack::Fixed(l),
                    Some(TrackSize::Fr(f)) => MaxTrack::Fr(f),
                    Some(TrackSize::Auto) => MaxTrack::Auto,
                    Some(TrackSize::MinContent) => MaxTrack::MinContent,
                    Some(TrackSize::MaxContent) => MaxTrack::MaxContent,
                    _ => return Err(cssparser::ParseError::<()>::custom(())),
                };
                Ok(TrackSize::MinMax(min, max))
            })
            .ok()?,
        Token::Function(ref name) if name.eq_ignore_ascii_case("fit-content") => {
            let l = input
                .parse_nested_block(|i| {
                    a_length(i).ok_or_else(|| cssparser::ParseError::<()>::custom(()))
                })
                .ok()?;
            TrackSize::MinMax(MinTrack::Auto, MaxTrack::Fixed(l))
        }
        t => {
            let l = length(&t).and_then(finite)?;
            if is_negative(l) {
                return None;
            }
            TrackSize::Fixed(l)
        }
    })
}

/// `grid-template-columns`: `none`, or track sizes and `repeat()`s. Line
/// names (`[a]`) are skipped; `subgrid` and `masonry` are not read.
fn tracks(input: &mut Parser<'_>) -> Option<Box<[Track]>> {
    if input.try_parse(|i| i.expect_ident_matching("none")).is_ok() {
        return Some(Box::new([]));
    }
    let mut out = Vec::new();
    let mut total: u32 = 0;
    while !input.is_exhausted() {
        if input.try_parse(|i| i.expect_square_bracket_block()).is_ok() {
            let _ = input.parse_nested_block(|i| {
                while i.next().is_ok() {}
                Ok::<_, cssparser::ParseError<()>>(())
            });
            continue;
        }
        if input
            .try_parse(|i| i.expect_function_matching("repeat"))
            .is_ok()
        {
            let (count, sizes) = input
                .parse_nested_block(|i| {
                    let err = |_: ()| cssparser::ParseError::<()>::custom(());
                    let count = match i.next().map_err(|_| err(()))?.clone() {
                        Token::Number {
                            int_value: Some(n), ..
                        } if n > 0 => Repeat::Count(n.min(i32::from(MAX_TRACKS)) as u16),
                        Token::Ident(k) if k.eq_ignore_ascii_case("auto-fill") => Repeat::AutoFill,
                        Token::Ident(k) if k.eq_ignore_ascii_case("auto-fit") => Repeat::AutoFit,
                        _ => return Err(err(())),
                    };
                    i.expect_comma().map_err(|_| err(()))?;
                    let mut sizes = Vec::new();
                    while !i.is_exhausted() {
                        if i.try_parse(|i| i.expect_square_bracket_block()).is_ok() {
                            let _ = i.parse_nested_block(|i| {
                                while i.next().is_ok() {}
                                Ok::<_, cssparser::ParseError<()>>(())
                            });
                            continue;
                        }
                        sizes.push(track_size(i).ok_or_else(|| err(()))?);
                    }
                    if sizes.is_empty() {
                        return Err(err(()));
                    }
                    Ok((count, sizes))
                })
                .ok()?;
            let n = match count {
                Repeat::Count(n) => u32::from(n),
                Repeat::AutoFill | Repeat::AutoFit => 1,
            };
            total = total.saturating_add(n.saturating_mul(sizes.len() as u32));
            out.push(Track::Repeat(count, sizes));
        } else {
            out.push(Track::Single(track_size(input)?));
            total += 1;
        }
        if total > u32::from(MAX_TRACKS) {
            return None;
        }
    }
    Some(out.into_boxed_slice())
}

fn grid_line(input: &mut Parser<'_>) -> Option<GridLine> {
    let mut span = false;
    let mut n: Option<i32> = None;
    while !input.is_exhausted() {
        let state = input.state();
        match input.next().ok()?.clone() {
            Token::Ident(k) if k.eq_ignore_ascii_case("auto") && !span && n.is_none() => {
                return Some(GridLine::Auto);
            }
            Token::Ident(k) if k.eq_ignore_ascii_case("span") => span = true,
            Token::Number {
                int_value: Some(v), ..
            } if v != 0 => n = Some(v),
            Token::Delim('/') => {
                input.reset(&state);
                break;
            }
            _ => return None,
        }
    }
    let limit = i32::from(MAX_TRACKS);
    match (span, n) {
        (true, Some(v)) if v > 0 => Some(GridLine::Span(v.min(limit) as u16)),
        (true, None) => Some(GridLine::Span(1)),
        (false, Some(v)) => Some(GridLine::Line(v.clamp(-limit, limit) as i16)),
        _ => None,
    }
}

/// `grid-column: a [/ b]`.
fn grid_span(
    input: &mut Parser<'_>,
    props: [BoxProp; 2],
    push: &mut impl FnMut(BoxProp, BoxValue),
) -> Option<()> {
    let start = grid_line(input)?;
    let end = if input.try_parse(|i| i.expect_delim('/')).is_ok() {
        grid_line(input)?
    } else {
        GridLine::Auto
    };
    push(props[0], BoxValue::Line(start));
    push(props[1], BoxValue::Line(end));
    Some(())
}

#[cfg(test)]
mod tests;
