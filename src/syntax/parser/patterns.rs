//! Patterns: names, `?x`, literals, ranges, `$(e)`, constructors, `case` patterns, tuples,
//! records and lists; alternatives `p | q`, `p as x`, and `with` bindings and `when` guards
//! (in parentheses, and at the top of a `match` arm or a `let`).

use chumsky::prelude::*;

use super::{
    chain_or_single, int_literal, keyword, name, record_fields, token, BoxedParser, Extra,
    RecursiveParser, TokenInput,
};
use crate::syntax::ast::*;
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};

/// Patterns. `expr` is the whole expression (of `$(e)`), `field_value` an expression without
/// a top-level `,` (a guard or a `with` binding in parentheses).
pub(super) fn pattern_parser<'t>(
    expr: RecursiveParser<'t, Expr>,
    field_value: RecursiveParser<'t, Expr>,
) -> BoxedParser<'t, Pattern> {
    recursive(|pattern| {
        // `?x` and `val x`: a binding, whatever the name (Felix's `_ as x`).
        let binding = token(Token::Question)
            .or(keyword(Keyword::Val))
            .ignore_then(name())
            .map(|n| {
                let any = Spanned::new(PatternKind::Wildcard, n.span);
                PatternKind::As(Box::new(any), n)
            });
        // `$(e)`: a value equal to `e`.
        let equal = token(Token::Dollar)
            .ignore_then(
                expr.clone()
                    .delimited_by(token(Token::LParen), token(Token::RParen)),
            )
            .map(|e| PatternKind::Expr(Box::new(e)));
        let atom = choice((
            select! { Token::Ident(name) if name != "as" => name_pattern(name) },
            binding,
            equal,
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
        .or(
            guarded_alternatives(pattern.clone().boxed(), field_value.clone())
                .delimited_by(token(Token::LParen), token(Token::RParen))
                .map_with(|p, extra| match p.node {
                    // The parentheses belong to the tuple, the alternatives or the guard they
                    // enclose.
                    PatternKind::Tuple(_)
                    | PatternKind::Alt(_)
                    | PatternKind::As(..)
                    | PatternKind::Guarded { .. } => Spanned::new(p.node, extra.span()),
                    _ => p,
                }),
        )
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
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|patterns, extra| chain_or_single(patterns, extra.span(), PatternKind::Tuple))
        .boxed();
    // `[p, q]` is `Cons (p, Cons (q, Empty))`, `[p, q,, t]` is `Cons (p, Cons (q, t))` and
    // `[]` is `Empty`, as in Felix.
    let list = single
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .then(
            token(Token::Comma)
                .then(token(Token::Comma))
                .ignore_then(single.clone())
                .or_not(),
        )
        .or_not()
        .delimited_by(token(Token::LBracket), token(Token::RBracket))
        .map_with(|items, extra| {
            let span: Span = extra.span();
            let (items, tail) = items.unwrap_or_default();
            list_pattern(items, tail, span)
        })
        .boxed();
    recursive(
        move |cons: Recursive<dyn Parser<'t, TokenInput<'t>, Pattern, Extra<'t>>>| {
            let list = list.clone();
            tuple
                .then(token(Token::Bang).ignore_then(cons.clone()).or_not())
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
                .or(list)
        },
    )
    .boxed()
}

/// The pattern of the list literal `[items,, tail]`: `items` consed onto `tail`, or onto
/// `Empty` without one.
fn list_pattern(items: Vec<Pattern>, tail: Option<Pattern>, span: Span) -> Pattern {
    let end = Span::new(span.end.saturating_sub(1), span.end);
    let mut acc = tail.unwrap_or_else(|| Spanned::new(PatternKind::Constant("Empty".into()), end));
    for item in items.into_iter().rev() {
        let pair = Span::new(item.span.start, span.end);
        let arg = Spanned::new(PatternKind::Tuple(vec![item, acc]), pair);
        acc = Spanned::new(PatternKind::Ctor("Cons".into(), Box::new(arg)), pair);
    }
    Spanned::new(acc.node, span)
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

/// One alternative with its own `with` bindings and `when` guard, as Felix's `spattern` has
/// them: `p with y = e, z = f when g`. The values are expressions without a top-level `,`;
/// the guard is a `guard` (the same in parentheses, a whole expression at the end of an arm).
#[allow(clippy::type_complexity)]
pub(super) fn guarded<'t>(
    pattern: BoxedParser<'t, Pattern>,
    field_value: RecursiveParser<'t, Expr>,
    guard: RecursiveParser<'t, Expr>,
) -> BoxedParser<'t, (Pattern, Vec<(SName, Expr)>, Option<Expr>, Span)> {
    let with_bindings = keyword(Keyword::With)
        .ignore_then(
            name()
                .then_ignore(token(Token::Assign))
                .then(field_value.clone())
                .separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .or_not()
        .map(Option::unwrap_or_default);
    named_tuple(pattern)
        .then(with_bindings)
        .then(keyword(Keyword::When).ignore_then(guard).or_not())
        .map_with(|((pattern, with), guard), extra| (pattern, with, guard, extra.span()))
        .boxed()
}

/// `p | q | …` over `guarded` alternatives: one pattern when there is no `|`; an alternative
/// with bindings or a guard is `PatternKind::Guarded`.
pub(super) fn guarded_alternatives<'t>(
    pattern: BoxedParser<'t, Pattern>,
    field_value: RecursiveParser<'t, Expr>,
) -> BoxedParser<'t, Pattern> {
    guarded(pattern, field_value.clone(), field_value)
        .map(|(pattern, with, guard, span)| guarded_pattern(pattern, with, guard, span))
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

/// `pattern` with its `with` bindings and guard: itself when it has neither.
pub(super) fn guarded_pattern(
    pattern: Pattern,
    with: Vec<(SName, Expr)>,
    guard: Option<Expr>,
    span: Span,
) -> Pattern {
    if with.is_empty() && guard.is_none() {
        return pattern;
    }
    let kind = PatternKind::Guarded {
        pattern: Box::new(pattern),
        with,
        guard: guard.map(Box::new),
    };
    Spanned::new(kind, span)
}
