use super::*;

fn boxes(name: &str, value: &str) -> Vec<(BoxProp, BoxValue)> {
    let mut parser = Parser::new(value);
    let mut out = Vec::new();
    if parse(name, &mut parser, &mut out).is_none() {
        return Vec::new();
    }
    out.into_iter()
        .filter_map(|d| match d {
            Decl::Box(p, v) => Some((p, v)),
            _ => None,
        })
        .collect()
}

#[test]
fn margin_shorthand_expands() {
    let m = boxes("margin", "0 auto");
    assert_eq!(m.len(), 4);
    assert_eq!(
        m[0],
        (BoxProp::MarginTop, BoxValue::Length(Length::Px(0.0)))
    );
    assert_eq!(m[1], (BoxProp::MarginRight, BoxValue::Auto));
    assert_eq!(m[3], (BoxProp::MarginLeft, BoxValue::Auto));
}

#[test]
fn flex_shorthand() {
    let f = boxes("flex", "1");
    assert!(f.contains(&(BoxProp::FlexGrow, BoxValue::Number(1.0))));
    assert!(f.contains(&(BoxProp::FlexBasis, BoxValue::Length(Length::Px(0.0)))));
    assert!(boxes("flex", "none").contains(&(BoxProp::FlexGrow, BoxValue::Number(0.0))));
}

#[test]
fn grid_templates() {
    let t = boxes(
        "grid-template-columns",
        "[a] repeat(4, minmax(0, 1fr)) 200px",
    );
    let BoxValue::Tracks(tracks) = &t[0].1 else {
        panic!("tracks")
    };
    assert_eq!(tracks.len(), 2);
    assert!(boxes("grid-template-columns", "repeat(100000, 1px)").len() == 1);
    assert!(
        boxes(
            "grid-template-columns",
            "repeat(2000, 1px) repeat(2000, 1px)"
        )
        .is_empty()
    );
    assert!(boxes("grid-template-columns", "calc(100% - 2px)").is_empty());
}

#[test]
fn absurd_and_negative_values_are_dropped_or_kept_finite() {
    assert!(boxes("padding", "-4px").is_empty());
    assert!(boxes("width", "-1px").is_empty());
    assert_eq!(
        boxes("width", "1e9px"),
        vec![(BoxProp::Width, BoxValue::Length(Length::Px(1e9)))]
    );
    assert!(boxes("width", "1e40px").is_empty());
    assert_eq!(
        boxes("margin-top", "-20px"),
        vec![(BoxProp::MarginTop, BoxValue::Length(Length::Px(-20.0)))]
    );
}

#[test]
fn border_needs_a_style() {
    assert_eq!(
        boxes("border", "1px solid #ccc")[0].1,
        BoxValue::Length(Length::Px(1.0))
    );
    assert_eq!(
        boxes("border", "none")[0].1,
        BoxValue::Length(Length::Px(0.0))
    );
    assert_eq!(
        boxes("border-top", "2px")[0].1,
        BoxValue::Length(Length::Px(0.0))
    );
}
