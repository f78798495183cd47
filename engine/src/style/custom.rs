//! Custom properties (CSS Variables 1): `--*` values per element, inherited,
//! and `var()` substituted in them and in the declarations that use them.
//!
//! An element's custom properties are its parent's with its own declared
//! ones on top ([`Customs`], shared between elements that declare none).
//! Declared values are substituted where they are declared, so children
//! inherit plain token text. A cycle makes every property in it invalid
//! (the guaranteed-invalid value, as if not set); so does a `var()` to a
//! property that is not set, without a fallback. Work is bounded: chains of
//! references deeper than [`MAX_DEPTH`] and values longer than
//! [`MAX_VALUE_BYTES`] are invalid, and the cascade says so.

use std::sync::Arc;

use cssparser::{ParseError, Parser, Token};

use super::values::{Unparsed, Wide, parse_wide};

/// How deep `var()` references may chain on one element.
pub(crate) const MAX_DEPTH: usize = 64;
/// The longest value substitution may build (a property referring twice
/// to one referring twice to … doubles at every step).
pub(crate) const MAX_VALUE_BYTES: usize = 64 * 1024;
/// How many layers of declared properties are stacked before they are
/// merged into one, so a lookup stays a few binary searches.
const MAX_LAYERS: u8 = 8;

/// The custom properties of one element.
#[derive(Debug)]
pub(crate) struct Customs {
    /// Set (or made invalid: `None`) on this element, sorted by name.
    own: Vec<(Box<str>, Option<Arc<str>>)>,
    parent: Option<Arc<Customs>>,
    layers: u8,
}

impl Customs {
    /// The value of `--name`, if it is set and valid.
    pub(crate) fn get(this: Option<&Arc<Customs>>, name: &str) -> Option<Arc<str>> {
        let mut at = this;
        while let Some(c) = at {
            if let Ok(i) = c.own.binary_search_by(|(n, _)| (**n).cmp(name)) {
                return c.own[i].1.clone();
            }
            at = c.parent.as_ref();
        }
        None
    }

    /// `parent`'s properties with `own` (sorted, unique) on top.
    fn with(parent: Option<&Arc<Customs>>, own: Vec<(Box<str>, Option<Arc<str>>)>) -> Arc<Customs> {
        let layers = parent.map_or(0, |p| p.layers) + 1;
        if layers <= MAX_LAYERS {
            return Arc::new(Customs { own, parent: parent.cloned(), layers });
        }
        // Merge: the nearest value of each name wins.
        let mut all = own;
        let mut at = parent;
        while let Some(c) = at {
            for (name, value) in &c.own {
                if let Err(i) = all.binary_search_by(|(n, _)| n.cmp(name)) {
                    all.insert(i, (name.clone(), value.clone()));
                }
            }
            at = c.parent.as_ref();
        }
        Arc::new(Customs { own: all, parent: None, layers: 1 })
    }
}

/// What substitution gave up on, for the cascade's diagnostics.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cut {
    /// References chained deeper than [`MAX_DEPTH`].
    pub(crate) too_deep: u32,
    /// Values past [`MAX_VALUE_BYTES`].
    pub(crate) too_long: u32,
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Todo,
    Busy,
    Done,
}

/// Resolves the custom properties an element declares (`declared`: its
/// matching declarations in cascade order, so the last of a name wins)
/// against its parent's, giving the element's own.
pub(crate) fn declare(parent: Option<&Arc<Customs>>, declared: &[&Unparsed], cut: &mut Cut) -> Arc<Customs> {
    let mut sorted: Vec<&Unparsed> = declared.iter().rev().copied().collect();
    // Stable: the first of each name is now the one that won.
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    sorted.dedup_by(|later, earlier| later.name == earlier.name);
    let mut resolver = Resolver {
        declared: &sorted,
        parent,
        state: vec![State::Todo; sorted.len()],
        values: vec![None; sorted.len()],
        cyclic: vec![false; sorted.len()],
        stack: Vec::new(),
        cut,
    };
    for i in 0..sorted.len() {
        resolver.resolve(i);
    }
    let own = sorted.iter().zip(resolver.values).map(|(d, v)| (d.name.clone(), v)).collect();
    Customs::with(parent, own)
}

struct Resolver<'a, 'c> {
    declared: &'a [&'a Unparsed],
    parent: Option<&'a Arc<Customs>>,
    state: Vec<State>,
    values: Vec<Option<Arc<str>>>,
    cyclic: Vec<bool>,
    /// The declared properties being resolved, outermost first.
    stack: Vec<usize>,
    cut: &'c mut Cut,
}

impl Resolver<'_, '_> {
    /// The value of `--name` on the element: a declared one (resolved now
    /// if need be), else the parent's.
    fn get(&mut self, name: &str) -> Option<Arc<str>> {
        match self.declared.binary_search_by(|d| (*d.name).cmp(name)) {
            Ok(i) => {
                if self.state[i] == State::Busy {
                    // A cycle: everything on the stack from `i` up.
                    if let Some(from) = self.stack.iter().position(|&s| s == i) {
                        for &s in &self.stack[from..] {
                            self.cyclic[s] = true;
                        }
                    }
                    return None;
                }
                self.resolve(i);
                self.values[i].clone()
            }
            Err(_) => Customs::get(self.parent, name),
        }
    }

    fn resolve(&mut self, i: usize) {
        if self.state[i] != State::Todo {
            return;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.cut.too_deep += 1;
            self.state[i] = State::Done;
            return;
        }
        self.state[i] = State::Busy;
        self.stack.push(i);
        let raw: &str = &self.declared[i].value;
        let value = match parse_wide(&mut Parser::new(raw.trim())) {
            Ok(Wide::Initial) => None,
            // Custom properties inherit: unset and revert are inherit.
            Ok(_) => Customs::get(self.parent, &self.declared[i].name),
            Err(_) if !super::sheet::has_var(raw) => Some(Arc::from(raw)),
            Err(_) => {
                let mut out = String::new();
                let mut too_long = false;
                let ok = substitute(raw, &mut |n| self.get(n), &mut out, &mut too_long);
                if too_long {
                    self.cut.too_long += 1;
                }
                ok.then(|| Arc::from(out.trim()))
            }
        };
        self.stack.pop();
        self.state[i] = State::Done;
        self.values[i] = if self.cyclic[i] { None } else { value };
    }
}

/// Writes `value` into `out` with every `var()` replaced by what `lookup`
/// gives for its name, else by its fallback (itself substituted). False
/// when a `var()` has neither (the value is invalid at computed-value
/// time) or the result grew past [`MAX_VALUE_BYTES`] (`too_long` set).
pub(crate) fn substitute(
    value: &str,
    lookup: &mut dyn FnMut(&str) -> Option<Arc<str>>,
    out: &mut String,
    too_long: &mut bool,
) -> bool {
    let mut input = Parser::new(value);
    substitute_in(&mut input, lookup, out, too_long).is_ok()
}

fn substitute_in<'i>(
    input: &mut Parser<'i>,
    lookup: &mut dyn FnMut(&str) -> Option<Arc<str>>,
    out: &mut String,
    too_long: &mut bool,
) -> Result<(), ParseError<()>> {
    loop {
        let start = input.position();
        let token = match input.next_including_whitespace_and_comments() {
            Ok(t) => t.clone(),
            Err(_) => return Ok(()),
        };
        match token {
            Token::Function(ref f) if f.eq_ignore_ascii_case("var") => {
                input.parse_nested_block(|i| var_call(i, lookup, out, too_long))?;
            }
            Token::Function(_) | Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                out.push_str(input.slice_from(start));
                let close = match token {
                    Token::SquareBracketBlock => ']',
                    Token::CurlyBracketBlock => '}',
                    _ => ')',
                };
                input.parse_nested_block(|i| substitute_in(i, lookup, out, too_long))?;
                out.push(close);
            }
            _ => out.push_str(input.slice_from(start)),
        }
        if out.len() > MAX_VALUE_BYTES {
            *too_long = true;
            return Err(ParseError::custom(()));
        }
    }
}

/// The inside of `var(--name [, fallback])`.
fn var_call<'i>(
    input: &mut Parser<'i>,
    lookup: &mut dyn FnMut(&str) -> Option<Arc<str>>,
    out: &mut String,
    too_long: &mut bool,
) -> Result<(), ParseError<()>> {
    let name = input.expect_ident()?.clone();
    if !name.starts_with("--") {
        return Err(ParseError::custom(()));
    }
    let fallback = input.try_parse(|i| i.expect_comma()).is_ok();
    match lookup(&name) {
        Some(value) => {
            out.push_str(&value);
            while input.next_including_whitespace_and_comments().is_ok() {}
            Ok(())
        }
        None if fallback => substitute_in(input, lookup, out, too_long),
        None => Err(ParseError::custom(())),
    }
}

/// Whether `style(--name: value)` (or `style(--name)`: set at all) holds
/// for custom properties `customs`. Values compare as written, spaces at
/// their ends aside; other style queries do not hold.
pub(crate) fn style_query(query: &str, customs: Option<&Arc<Customs>>) -> bool {
    let mut input = Parser::new(query);
    if input.expect_function_matching("style").is_err() {
        return false;
    }
    let asked = input.parse_nested_block(|i| {
        let name = i.expect_ident()?.as_ref().to_owned();
        if !name.starts_with("--") {
            return Err(ParseError::<()>::custom(()));
        }
        if i.is_exhausted() {
            return Ok((name, None));
        }
        i.expect_colon()?;
        let start = i.position();
        while i.next_including_whitespace_and_comments().is_ok() {}
        Ok((name, Some(i.slice_from(start).trim().to_owned())))
    });
    let Ok((name, value)) = asked else { return false };
    if !input.is_exhausted() {
        return false;
    }
    match (Customs::get(customs, &name), value) {
        (Some(have), Some(want)) => have.trim() == want,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, value: &str) -> Unparsed {
        Unparsed { name: name.into(), value: value.into() }
    }

    fn resolved(parent: Option<&Arc<Customs>>, decls: &[Unparsed]) -> (Arc<Customs>, Cut) {
        let refs: Vec<&Unparsed> = decls.iter().collect();
        let mut cut = Cut::default();
        (declare(parent, &refs, &mut cut), cut)
    }

    fn value(c: &Arc<Customs>, name: &str) -> Option<String> {
        Customs::get(Some(c), name).map(|v| v.to_string())
    }

    #[test]
    fn values_resolve_inherit_and_fall_back() {
        let (root, _) = resolved(None, &[decl("--d", "none"), decl("--gap", "calc(var(--u) * 2)"), decl("--u", "4px")]);
        assert_eq!(value(&root, "--gap").as_deref(), Some("calc(4px * 2)"));
        let (child, _) = resolved(
            Some(&root),
            &[decl("--x", "var(--d)"), decl("--y", "var(--nope, var(--also-nope, block))"), decl("--u", "initial"), decl("--z", "var(--u)")],
        );
        assert_eq!(value(&child, "--x").as_deref(), Some("none"));
        assert_eq!(value(&child, "--y").as_deref(), Some("block"));
        assert_eq!(value(&child, "--u"), None, "initial is not set");
        assert_eq!(value(&child, "--z"), None, "a var() to a property not set, without fallback");
        assert_eq!(value(&child, "--gap").as_deref(), Some("calc(4px * 2)"), "inherited as substituted");
        assert_eq!(value(&child, "--D"), None, "names are case-sensitive");
    }

    #[test]
    fn cycles_make_every_property_in_them_invalid() {
        let (c, _) = resolved(
            None,
            &[decl("--a", "var(--b, 1)"), decl("--b", "var(--a, 2)"), decl("--c", "var(--c)"), decl("--d", "var(--a, ok)")],
        );
        assert_eq!(value(&c, "--a"), None);
        assert_eq!(value(&c, "--b"), None);
        assert_eq!(value(&c, "--c"), None);
        assert_eq!(value(&c, "--d").as_deref(), Some("ok"), "outside the cycle, the fallback applies");
    }

    #[test]
    fn deep_chains_and_growing_values_are_bounded() {
        let chain: Vec<Unparsed> = (0..10_000).map(|i| decl(&format!("--v{i:05}"), &format!("var(--v{:05})", i + 1))).collect();
        let (c, cut) = resolved(None, &chain);
        assert_eq!(value(&c, "--v00000"), None);
        assert!(cut.too_deep > 0);
        // Each step doubles: 2^40 bytes, unless cut.
        let mut bomb = vec![decl("--b0", "xxxxxxxx")];
        bomb.extend((1..40).map(|i| decl(&format!("--b{i:02}"), &format!("var(--b{:02}) var(--b{:02})", i - 1, i - 1))));
        bomb[0] = decl("--b00", "xxxxxxxx");
        let (c, cut) = resolved(None, &bomb);
        assert_eq!(value(&c, "--b39"), None);
        assert!(cut.too_long > 0);
        assert!(value(&c, "--b03").is_some_and(|v| v.len() > 60));
    }

    #[test]
    fn many_layers_of_declarations_still_find_the_nearest() {
        let mut at = resolved(None, &[decl("--a", "0"), decl("--keep", "root")]).0;
        for i in 1..100 {
            at = resolved(Some(&at), &[decl("--a", &i.to_string())]).0;
        }
        assert_eq!(value(&at, "--a").as_deref(), Some("99"));
        assert_eq!(value(&at, "--keep").as_deref(), Some("root"));
        assert!(at.layers <= MAX_LAYERS);
    }
}
