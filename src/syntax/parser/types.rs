//! Type expressions: atoms (names, applications, pointers, records, unitsums), then the
//! operator levels from the tightest, `^` and `^^`, through `\*`, `*`, `\+` and `+` to `->`.

use chumsky::prelude::*;

use super::levels::{operator_level, Grouping};
use super::{
    chain_or_single, int_literal, named_list, pointer_mode, token, BoxedParser, Extra,
    RecursiveParser, TokenInput,
};
use crate::syntax::ast::*;
use crate::syntax::span::Spanned;
use crate::syntax::token::{Keyword, Token};

/// Type expressions: returns the full type parser and the atomic type parser.
pub(super) fn type_parsers<'t>() -> (BoxedParser<'t, TypeExpr>, BoxedParser<'t, TypeExpr>) {
    let mut type_expr: RecursiveParser<'t, TypeExpr> = Recursive::declare();

    let mut atom: RecursiveParser<'t, TypeExpr> = Recursive::declare();
    // `&T`, `&<T`, `&>T` bind tightest: `&int ^ 3` is `(&int) ^ 3`.
    let pointer = token(Token::Ampersand)
        .ignore_then(pointer_mode())
        .then(atom.clone())
        .map(|(mode, target)| TypeExprKind::Ptr(mode, Box::new(target)));
    // `_pclt<D, C>` and its read-only and write-only forms.
    let compact_pointer = select! {
        Token::Ident(name) if name == "_pclt" => PtrMode::ReadWrite,
        Token::Ident(name) if name == "_rpclt" => PtrMode::Read,
        Token::Ident(name) if name == "_wpclt" => PtrMode::Write,
    }
    .then_ignore(token(Token::Less))
    .then(type_expr.clone())
    .then_ignore(token(Token::Comma))
    .then(type_expr.clone())
    .then_ignore(token(Token::Greater))
    .map(|((mode, whole), component)| {
        TypeExprKind::CPtr(mode, Box::new(whole), Box::new(component))
    });
    // `secret T`, `public T`: a prefix like `&`.
    let visibility = select! {
        Token::Ident(name) if name == "secret" => true,
        Token::Ident(name) if name == "public" => false,
    }
    .then(atom.clone())
    .map(|(secret, target)| TypeExprKind::Visibility(secret, Box::new(target)));
    // `extend A, B with C end`: the type of Felix's extension of records and tuples.
    let extend = select! { Token::Ident(name) if name == "extend" => () }
        .ignore_then(
            type_expr
                .clone()
                .separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(just(Token::Keyword(Keyword::With)))
        .then(type_expr.clone())
        .then_ignore(just(Token::Keyword(Keyword::End)))
        .map(|(bases, extension)| TypeExprKind::Extend(bases, Box::new(extension)));
    atom.define(
        choice((
            extend,
            pointer,
            visibility,
            compact_pointer,
            // `pair[int]`: a parametric type applied to its arguments.
            super::modules::qualified_name()
                .then(
                    type_expr
                        .clone()
                        .separated_by(token(Token::Comma))
                        .at_least(1)
                        .collect::<Vec<_>>()
                        .delimited_by(token(Token::LBracket), token(Token::RBracket)),
                )
                .map(|(name, args)| TypeExprKind::Apply(name, args)),
            // `M::T`: a type of a module, by its qualified name.
            super::modules::qualified_name().map(|name| TypeExprKind::Name(name.node)),
            int_literal().map(TypeExprKind::Unitsum),
            token(Token::LParen)
                .then(token(Token::RParen))
                .to(TypeExprKind::Unit),
        ))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .or(record_type(type_expr.clone()))
        .or(type_expr
            .clone()
            .delimited_by(token(Token::LParen), token(Token::RParen)))
        .labelled("type"),
    );
    let atom = atom.boxed();

    // `T ^ N` and `T ^^ N`, left associative.
    let power = operator_level(
        atom.clone(),
        choice((
            token(Token::Caret).to(false),
            token(Token::CompactCaret).to(true),
        )),
        Grouping::Left(|compact, base, index, span| {
            let kind = if compact {
                TypeExprKind::CArray(Box::new(base), Box::new(index))
            } else {
                TypeExprKind::Array(Box::new(base), Box::new(index))
            };
            Spanned::new(kind, span)
        }),
    );
    // `distributed T ^ I`: a prefix over a whole power, so the qualifier takes the array.
    let power = select! { Token::Ident(name) if name == "distributed" => () }
        .ignore_then(power.clone())
        .map_with(|t, extra| Spanned::new(TypeExprKind::Distributed(Box::new(t)), extra.span()))
        .or(power)
        .boxed();
    let compact_product = operator_level(
        power,
        token(Token::CompactStar),
        Grouping::Chain(TypeExprKind::CProduct),
    );
    let product = operator_level(
        compact_product,
        choice((
            token(Token::Star).to(None),
            token(Token::UnitsumArith(UnitsumOp::Mul)).to(Some(UnitsumOp::Mul)),
            token(Token::UnitsumArith(UnitsumOp::Div)).to(Some(UnitsumOp::Div)),
            token(Token::UnitsumArith(UnitsumOp::Mod)).to(Some(UnitsumOp::Mod)),
        )),
        Grouping::Fold(|first, rest| fold_type_level(first, rest, TypeExprKind::Product)),
    );
    let compact_sum = operator_level(
        product,
        token(Token::CompactPlus),
        Grouping::Chain(TypeExprKind::CSum),
    );
    let sum = operator_level(
        compact_sum,
        choice((
            token(Token::Plus).to(None),
            token(Token::UnitsumArith(UnitsumOp::Add)).to(Some(UnitsumOp::Add)),
            token(Token::UnitsumArith(UnitsumOp::Sub)).to(Some(UnitsumOp::Sub)),
        )),
        Grouping::Fold(|first, rest| fold_type_level(first, rest, TypeExprKind::Sum)),
    );
    // `D -> C`, right associative.
    type_expr.define(operator_level(
        sum,
        token(Token::RightArrow),
        Grouping::Right(|_, domain, codomain, span| {
            Spanned::new(
                TypeExprKind::Fun(Box::new(domain), Box::new(codomain)),
                span,
            )
        }),
    ));
    (type_expr.labelled("type").boxed(), atom)
}

/// Folds a type operator level that mixes an n-ary chain operator (`op == None`) with the binary
/// left-associative unitsum operators (`op == Some(…)`).
fn fold_type_level(
    first: TypeExpr,
    rest: Vec<(Option<UnitsumOp>, TypeExpr)>,
    make_chain: fn(Vec<TypeExpr>) -> TypeExprKind,
) -> TypeExpr {
    fn collapse(
        operands: Vec<TypeExpr>,
        make_chain: fn(Vec<TypeExpr>) -> TypeExprKind,
    ) -> TypeExpr {
        let span = operands[0].span.to(operands[operands.len() - 1].span);
        chain_or_single(operands, span, make_chain)
    }
    let mut operands = vec![first];
    for (operator, operand) in rest {
        match operator {
            None => operands.push(operand),
            Some(operator) => {
                let left = collapse(std::mem::take(&mut operands), make_chain);
                let span = left.span.to(operand.span);
                operands.push(Spanned::new(
                    TypeExprKind::UnitsumArith(operator, Box::new(left), Box::new(operand)),
                    span,
                ));
            }
        }
    }
    collapse(operands, make_chain)
}

/// `(a:int, b:string)`: a record type.
fn record_type<'t>(
    type_expr: impl Parser<'t, TokenInput<'t>, TypeExpr, Extra<'t>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t>, TypeExpr, Extra<'t>> + Clone {
    named_list(Token::Colon, type_expr)
        .map_with(|fields, extra| Spanned::new(TypeExprKind::Record(fields), extra.span()))
}
