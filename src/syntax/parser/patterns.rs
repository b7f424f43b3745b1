//! Patterns: names, literals, ranges, constructors, `case` patterns, tuples and records;
//! alternatives `p | q` and `p as x` (in parentheses, and at the top of a `match` arm or a
//! `let`).

use chumsky::prelude::*;

use super::{
    chain_or_single, int_literal, keyword, name, record_fields, token, BoxedParser, Extra,
    TokenInput,
};
use crate::syntax::ast::*;
use crate::syntax::span::Spanned;
use crate::syntax::token::{Keyword, Token};

/// Patterns.
pub(super) fn pattern_parser<'t>() -> BoxedParser<'t, Pattern> {
    recursive(|pattern| {
        let atom = choice((
            select! { Token::Ident(name) if name != "as" => name_pattern(name) },
            // `#A`: a constant constructor.
            token(Token::Hash)
                .ignore_then(select! { Token::Ident(name) => PatternKind::Constant(name) }),
            token(Token::Minus)
                .or_not()
                .then(int_literal())
                .map(|(minus, lit)| PatternKind::Int {
                    negative: minus.is_some(),
                    lit,
                }),
            select! {
                Token::Str(bytes) => PatternKind::Str(bytes),
                Token::Keyword(Keyword::True) => PatternKind::Bool(true),
                Token::Keyword(Keyword::False) => PatternKind::Bool(false),
            },
            token(Token::LParen)
                .then(token(Token::RParen))
                .to(PatternKind::Unit),
            record_fields(pattern.clone()).map(PatternKind::Record),
        ))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .or(alternatives(pattern.clone().boxed())
            .delimited_by(token(Token::LParen), token(Token::RParen))
            .map_with(|p, extra| match p.node {
                // The parentheses belong to the tuple or the alternatives they enclose.
                PatternKind::Tuple(_) | PatternKind::Alt(_) | PatternKind::As(..) => {
                    Spanned::new(p.node, extra.span())
                }
                _ => p,
            }))
        .boxed();

        let case = keyword(Keyword::Case)
            .or(token(Token::Backtick))
            .ignore_then(int_literal())
            .then(atom.clone().or_not())
            .map(|(lit, argument)| PatternKind::Case(lit, argument.map(Box::new)));
        let constructor = select! { Token::Ident(name) if name != "_" => name }
            .then(atom.clone())
            .map(|(name, argument)| PatternKind::Ctor(name, Box::new(argument)));
        // `lo .. hi` between two literals; a negative bound is not a literal.
        let bound = select! {
            Token::Int(lit) => PatternKind::Int { negative: false, lit },
            Token::Str(bytes) => PatternKind::Str(bytes),
        }
        .map_with(|kind, extra| Spanned::new(kind, extra.span()));
        let range = bound
            .then_ignore(token(Token::DotDot))
            .then(bound)
            .map(|(lo, hi)| PatternKind::Range(Box::new(lo), Box::new(hi)));
        choice((range, case, constructor))
            .map_with(|kind, extra| Spanned::new(kind, extra.span()))
            .or(atom)
            .labelled("pattern")
    })
    .boxed()
}

/// A whole pattern over `single`, the pattern without a top-level `,` or `!`: a tuple of them
/// (`a, b`), and Felix's list cons `h ! t`, looser than the tuple and right associative
/// (`a, b ! t` is `(a, b) ! t`; `x ! y ! t` is `x ! (y ! t)`); it stands for `Cons (h, t)`.
pub(super) fn cons_pattern<'t>(single: BoxedParser<'t, Pattern>) -> BoxedParser<'t, Pattern> {
    let tuple = single
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|patterns, extra| chain_or_single(patterns, extra.span(), PatternKind::Tuple))
        .boxed();
    recursive(
        move |cons: Recursive<dyn Parser<'t, TokenInput<'t>, Pattern, Extra<'t>>>| {
            tuple
                .then(token(Token::Bang).ignore_then(cons).or_not())
                .map_with(
                    |(head, tail): (Pattern, Option<Pattern>), extra| match tail {
                        None => head,
                        Some(tail) => {
                            let pair = head.span.to(tail.span);
                            let arg = Spanned::new(PatternKind::Tuple(vec![head, tail]), pair);
                            Spanned::new(
                                PatternKind::Ctor("Cons".into(), Box::new(arg)),
                                extra.span(),
                            )
                        }
                    },
                )
        },
    )
    .boxed()
}

/// A tuple or list cons of patterns without parentheses (`a, b`, `h ! t`), or one pattern,
/// optionally named as a whole: `a, b as t` (`as` is looser than `!`, as in Felix).
pub(super) fn named_tuple<'t>(pattern: BoxedParser<'t, Pattern>) -> BoxedParser<'t, Pattern> {
    cons_pattern(pattern)
        .then(as_word().ignore_then(name()).or_not())
        .map_with(|(p, name), extra| match name {
            Some(name) => Spanned::new(PatternKind::As(Box::new(p), name), extra.span()),
            None => p,
        })
        .boxed()
}

/// `p | q | …` over `named_tuple`s: one pattern when there is no `|`.
pub(super) fn alternatives<'t>(pattern: BoxedParser<'t, Pattern>) -> BoxedParser<'t, Pattern> {
    named_tuple(pattern)
        .separated_by(token(Token::Bar))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|mut patterns, extra| {
            if patterns.len() == 1 {
                patterns.remove(0)
            } else {
                Spanned::new(PatternKind::Alt(patterns), extra.span())
            }
        })
        .boxed()
}

/// `as`, which names a whole pattern; not reserved, so a contextual word.
fn as_word<'t>() -> BoxedParser<'t, ()> {
    select! { Token::Ident(word) if word == "as" => () }.boxed()
}

/// A bare name in a pattern: `_`, a constant constructor if it starts with an upper-case letter,
/// otherwise a binding.
fn name_pattern(name: Name) -> PatternKind {
    if name == "_" {
        PatternKind::Wildcard
    } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
        PatternKind::Constant(name)
    } else {
        PatternKind::Name(name)
    }
}
