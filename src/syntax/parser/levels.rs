//! One level of binary operators, for type expressions and expressions alike: the operands of
//! the next tighter level, separated by the level's operators, grouped as the level says.

use chumsky::prelude::*;

use super::{chain_or_single, BoxedParser, Extra, ParseError, TokenInput};
use crate::syntax::span::{Span, Spanned};

/// Builds the node for `lhs op rhs`. The span runs from the start of the level's first operand
/// to the end of `rhs` (parentheses around the first operand included).
pub(super) type Join<O, T> = fn(O, Spanned<T>, Spanned<T>, Span) -> Spanned<T>;

/// Folds a whole run `first op operand op operand …` into one node.
pub(super) type Fold<O, T> = fn(Spanned<T>, Vec<(O, Spanned<T>)>) -> Spanned<T>;

/// How the operators of one level group their operands.
pub(super) enum Grouping<'t, O, T> {
    /// `a op b op c` is `(a op b) op c`.
    Left(Join<O, T>),
    /// `a op b op c` is `a op (b op c)`.
    Right(Join<O, T>),
    /// `a op b op c` is an error, reported at the second operator with the error the function
    /// makes; the operands are still grouped to the left, so that parsing goes on.
    NonAssociative(Join<O, T>, fn(&O) -> ParseError<'t>),
    /// `a op b op c` is one node, `make_chain([a, b, c])` spanning the run (a tuple, a compact
    /// product type); one operand alone is itself.
    Chain(fn(Vec<Spanned<T>>) -> T),
    /// The whole run is given to the function, for a level whose operators do not all group
    /// alike (a product type's `*` chains, and a unitsum `*` joins to the left). Unlike
    /// `Chain`, a run whose first operand fails keeps the errors recovered inside it (chumsky's
    /// `separated_by` rewinds them), which the messages of some malformed input depend on.
    Fold(Fold<O, T>),
}

/// The level of `operator` over `operand`: `operand (operator operand)*`, grouped by `grouping`.
pub(super) fn operator_level<'t, O: 't, T: 't>(
    operand: impl Parser<'t, TokenInput<'t>, Spanned<T>, Extra<'t>> + Clone + 't,
    operator: impl Parser<'t, TokenInput<'t>, O, Extra<'t>> + Clone + 't,
    grouping: Grouping<'t, O, T>,
) -> BoxedParser<'t, Spanned<T>> {
    match grouping {
        Grouping::Left(join) => operand
            .clone()
            .foldl_with(
                operator.then(operand).repeated(),
                move |lhs, (operator, rhs), extra| join(operator, lhs, rhs, extra.span()),
            )
            .boxed(),
        Grouping::Right(join) => recursive(move |level| {
            operand
                .then(operator.then(level).or_not())
                .map_with(move |(lhs, rest), extra| match rest {
                    Some((operator, rhs)) => join(operator, lhs, rhs, extra.span()),
                    None => lhs,
                })
        })
        .boxed(),
        Grouping::NonAssociative(join, second_operator) => operand
            .clone()
            .then(
                operator
                    .then(operand)
                    .map_with(|(operator, rhs), extra| (operator, rhs, extra.span().end))
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .validate(move |(first, rest), extra, emitter| {
                if let Some((operator, _, _)) = rest.get(1) {
                    emitter.emit(second_operator(operator));
                }
                let start = extra.span().start;
                rest.into_iter().fold(first, |lhs, (operator, rhs, end)| {
                    join(operator, lhs, rhs, Span::new(start, end))
                })
            })
            .boxed(),
        Grouping::Chain(make_chain) => operand
            .separated_by(operator)
            .at_least(1)
            .collect::<Vec<_>>()
            .map_with(move |operands, extra| chain_or_single(operands, extra.span(), make_chain))
            .boxed(),
        Grouping::Fold(fold) => operand
            .clone()
            .then(operator.then(operand).repeated().collect::<Vec<_>>())
            .map(move |(first, rest)| fold(first, rest))
            .boxed(),
    }
}
