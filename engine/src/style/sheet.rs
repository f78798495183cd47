//! Reading stylesheets (CSS Syntax 3 through `cssparser`) into style rules.
//!
//! `@media` and `@supports` are evaluated while reading, so only rules that
//! apply to whittle's viewport come out; `@layer` blocks are read in place
//! (layer order is not modelled); nested style rules (CSS Nesting) are
//! flattened with `&` replaced. Everything else (`@font-face`, `@keyframes`,
//! `@container`, `@import`, …) is skipped. A rule whose block sets none of
//! the properties whittle computes is dropped here, which is what keeps the
//! cascade cheap on framework stylesheets.

use std::sync::Arc;

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, Delimiter, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser,
};

use super::media::{MediaEnv, matches_media_list_in, supports};
use super::select::{Selectors, parse_selector_list};
use super::values::{Decl, parse_declaration};

/// The declarations of one rule, split by importance.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct DeclBlock {
    pub(crate) normal: Vec<Decl>,
    pub(crate) important: Vec<Decl>,
}

impl DeclBlock {
    pub(crate) fn is_empty(&self) -> bool {
        self.normal.is_empty() && self.important.is_empty()
    }
}

/// A style rule: a selector list and its declarations.
#[derive(Debug)]
pub(crate) struct SheetRule {
    pub(crate) selectors: Selectors,
    pub(crate) block: Arc<DeclBlock>,
}

/// What reading a stylesheet gave.
#[derive(Debug, Default)]
pub(crate) struct ParsedSheet {
    pub(crate) rules: Vec<SheetRule>,
    /// Rules dropped because they did not parse (bad selectors, stray
    /// tokens).
    pub(crate) invalid_rules: usize,
}

/// Reads a stylesheet.
pub(crate) fn parse_sheet(text: &str, env: &MediaEnv) -> ParsedSheet {
    let mut out = ParsedSheet::default();
    let mut input = Parser::new(text);
    let mut top = RuleParser { env, out: &mut out, parent: None };
    let mut sheet = StyleSheetParser::new(&mut input, &mut top);
    let mut invalid = 0;
    for result in sheet.by_ref() {
        if result.is_err() {
            invalid += 1;
        }
    }
    out.invalid_rules += invalid;
    out
}

/// Reads a `style` attribute.
pub(crate) fn parse_inline(text: &str) -> DeclBlock {
    let mut block = DeclBlock::default();
    let mut input = Parser::new(text);
    let mut parser = DeclOnly { block: &mut block };
    for _ in RuleBodyParser::new(&mut input, &mut parser) {}
    block
}

/// Parses one declaration's value (and `!important`) into `block`.
fn declaration<'i>(
    block: &mut DeclBlock,
    name: &str,
    input: &mut Parser<'i>,
) -> Result<(), ParseError<()>> {
    let mut decls = Vec::new();
    input.parse_until_before(Delimiter::Bang, |i| {
        parse_declaration(name, i, &mut decls).ok_or(ParseError::<()>::custom(()))
    })?;
    let important = input.try_parse(cssparser::parse_important).is_ok();
    input.expect_exhausted()?;
    if important {
        block.important.extend(decls);
    } else {
        block.normal.extend(decls);
    }
    Ok(())
}

struct DeclOnly<'a> {
    block: &'a mut DeclBlock,
}

impl<'i> DeclarationParser<'i> for DeclOnly<'_> {
    type Declaration = ();
    type Error = ();
    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _start: &ParserState,
    ) -> Result<(), ParseError<()>> {
        declaration(self.block, &name, input)
    }
}

impl<'i> AtRuleParser<'i> for DeclOnly<'_> {
    type Prelude = ();
    type AtRule = ();
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for DeclOnly<'_> {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, (), ()> for DeclOnly<'_> {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        false
    }
}

/// The at-rules whittle reads.
enum AtPrelude {
    /// `@media` / `@supports`: whether the condition holds.
    Conditional(bool),
    /// `@layer` (block or statement).
    Layer,
    /// Anything else: skipped.
    Skip,
}

/// Reads rules at the top level, inside conditional at-rules, and (with a
/// parent) nested inside style rules.
struct RuleParser<'a> {
    env: &'a MediaEnv,
    out: &'a mut ParsedSheet,
    parent: Option<Selectors>,
}

fn at_prelude(name: &str, input: &mut Parser<'_>, env: &MediaEnv) -> AtPrelude {
    if name.eq_ignore_ascii_case("media") {
        AtPrelude::Conditional(matches_media_list_in(input, env))
    } else if name.eq_ignore_ascii_case("supports") {
        AtPrelude::Conditional(supports(input))
    } else if name.eq_ignore_ascii_case("layer") {
        while input.next().is_ok() {}
        AtPrelude::Layer
    } else {
        while input.next().is_ok() {}
        AtPrelude::Skip
    }
}

impl<'i> AtRuleParser<'i> for RuleParser<'_> {
    type Prelude = AtPrelude;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<AtPrelude, ParseError<()>> {
        Ok(at_prelude(&name, input, self.env))
    }

    fn rule_without_block(&mut self, _prelude: AtPrelude, _start: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(&mut self, prelude: AtPrelude, _start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        match prelude {
            AtPrelude::Conditional(true) | AtPrelude::Layer => {
                let mut inner = RuleParser { env: self.env, out: self.out, parent: self.parent.clone() };
                let mut invalid = 0;
                for result in StyleSheetParser::new(input, &mut inner) {
                    if result.is_err() {
                        invalid += 1;
                    }
                }
                self.out.invalid_rules += invalid;
            }
            AtPrelude::Conditional(false) | AtPrelude::Skip => {}
        }
        Ok(())
    }
}

impl<'i> QualifiedRuleParser<'i> for RuleParser<'_> {
    type Prelude = Selectors;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<Selectors, ParseError<()>> {
        let selectors = parse_selector_list(input, self.parent.is_some()).map_err(|_| ParseError::custom(()))?;
        Ok(match &self.parent {
            Some(parent) => selectors.replace_parent_selector(parent),
            None => selectors,
        })
    }

    fn parse_block(&mut self, selectors: Selectors, _start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        // The rule's own declarations come before the rules nested in it.
        let slot = self.out.rules.len();
        self.out.rules.push(SheetRule { selectors: selectors.clone(), block: Arc::new(DeclBlock::default()) });
        let mut block = DeclBlock::default();
        let mut body = BodyParser { env: self.env, out: self.out, selectors: &selectors, block: &mut block };
        // Errors here are declarations whittle does not compute (or cannot
        // read): normal, not worth a diagnostic.
        for _ in RuleBodyParser::new(input, &mut body) {}
        if block.is_empty() {
            self.out.rules.remove(slot);
        } else {
            self.out.rules[slot].block = Arc::new(block);
        }
        Ok(())
    }
}

/// The body of a style rule: declarations, nested style rules, nested
/// conditional at-rules.
struct BodyParser<'a, 'b> {
    env: &'a MediaEnv,
    out: &'a mut ParsedSheet,
    selectors: &'b Selectors,
    block: &'b mut DeclBlock,
}

impl<'i> DeclarationParser<'i> for BodyParser<'_, '_> {
    type Declaration = ();
    type Error = ();
    fn parse_value(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>, _start: &ParserState) -> Result<(), ParseError<()>> {
        declaration(self.block, &name, input)
    }
}

impl<'i> AtRuleParser<'i> for BodyParser<'_, '_> {
    type Prelude = AtPrelude;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<AtPrelude, ParseError<()>> {
        Ok(at_prelude(&name, input, self.env))
    }

    fn rule_without_block(&mut self, _prelude: AtPrelude, _start: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(&mut self, prelude: AtPrelude, _start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        if let AtPrelude::Conditional(true) | AtPrelude::Layer = prelude {
            // Declarations directly inside a nested conditional rule apply
            // to the parent's selectors, in their own rule after it.
            let mut parent = RuleParser { env: self.env, out: self.out, parent: None };
            QualifiedRuleParser::parse_block(&mut parent, self.selectors.clone(), _start, input)?;
        }
        Ok(())
    }
}

impl<'i> QualifiedRuleParser<'i> for BodyParser<'_, '_> {
    type Prelude = Selectors;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<Selectors, ParseError<()>> {
        let selectors = parse_selector_list(input, true).map_err(|_| ParseError::custom(()))?;
        Ok(selectors.replace_parent_selector(self.selectors))
    }

    fn parse_block(&mut self, selectors: Selectors, start: &ParserState, input: &mut Parser<'i>) -> Result<(), ParseError<()>> {
        let mut nested = RuleParser { env: self.env, out: self.out, parent: Some(self.selectors.clone()) };
        QualifiedRuleParser::parse_block(&mut nested, selectors, start, input)
    }
}

impl<'i> RuleBodyItemParser<'i, (), ()> for BodyParser<'_, '_> {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::values::{Display, Visibility};

    const ENV: MediaEnv = MediaEnv { width: 1280.0, height: 800.0, scripting: true };

    fn rules(css: &str) -> Vec<(String, DeclBlock)> {
        use cssparser::ToCss;
        parse_sheet(css, &ENV)
            .rules
            .into_iter()
            .map(|r| (r.selectors.to_css_string(), (*r.block).clone()))
            .collect()
    }

    #[test]
    fn keeps_only_rules_that_matter() {
        let got = rules("a { cursor: pointer } .x { display: none; cursor: text } p { visibility: hidden !important }");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, ".x");
        assert_eq!(got[0].1.normal, vec![Decl::Display(Display::None)]);
        assert_eq!(got[1].1.important, vec![Decl::Visibility(Visibility::Hidden)]);
    }

    #[test]
    fn media_and_supports_are_evaluated() {
        let got = rules(
            "@media print { .a { display: none } } @media (min-width: 600px) { .b { display: none } }
             @supports (display: grid) { .c { display: none } } @font-face { font-family: x }
             @layer base { .d { display: none } } @container (width > 1px) { .e { display: none } }",
        );
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".b", ".c", ".d"]);
    }

    #[test]
    fn nesting_is_flattened() {
        let got = rules(".card { display: block; & .title { display: none } .body { display: none } @media (min-width: 1px) { display: flex } }");
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".card", ":is(.card) .title", ":is(.card) .body", ".card"]);
    }

    #[test]
    fn broken_css_is_survived() {
        // A stray `}` starts a (bad) rule that swallows the next block, as in
        // a browser; the rule after it survives.
        let got = rules("}}} .z { display: none } .a { display: none ; ;; } @media { .b { display: none } .c {{{ display:none");
        let names: Vec<_> = got.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names, [".a", ".b"]);
        let _ = rules("\u{0}\u{ffff}/*");
        let _ = rules(&"(".repeat(10_000));
        let _ = rules(&"@media screen { ".repeat(10_000));
    }

    #[test]
    fn inline_style() {
        let block = parse_inline("display:none; cursor: pointer; visibility: hidden !important");
        assert_eq!(block.normal, vec![Decl::Display(Display::None)]);
        assert_eq!(block.important, vec![Decl::Visibility(Visibility::Hidden)]);
    }
}
