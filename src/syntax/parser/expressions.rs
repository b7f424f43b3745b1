//! Expressions, level by level from the tightest: atoms, postfix operations, application,
//! prefix operators, the binary operators, tuples, `$`, `|>`, `:>>` and the arrow lambda.

use chumsky::prelude::*;

use super::functions::{self, FunctionHeads};
use super::levels::{operator_level, Grouping};
use super::patterns;
use super::{
    coded_error, int_literal, keyword, pointer_mode, record_fields, to_word, token, BoxedParser,
    Extra, RecursiveParser, Rules, TokenInput,
};
use crate::syntax::ast::*;
use crate::syntax::desugar;
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};

/// What statements take from the expression grammar.
pub(super) struct Expressions<'t> {
    /// An atom with its postfix operations: the operand of `++` and `--`.
    pub postfix: BoxedParser<'t, Expr>,
    /// `match e with`.
    pub match_head: BoxedParser<'t, Expr>,
    /// `| p | q when g =>`: the patterns and guard of a `match` arm.
    pub arm_patterns: BoxedParser<'t, (Vec<Pattern>, Option<Expr>)>,
}

/// Defines `rules.expr`, the whole expression, and returns the parts statements reuse.
pub(super) fn define_expressions<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
    type_atom: BoxedParser<'t, TypeExpr>,
    type_list: BoxedParser<'t, Vec<TypeExpr>>,
) -> Expressions<'t> {
    let Rules {
        type_expr,
        braced_stmts,
        recovering,
        ..
    } = rules;
    let recovering = *recovering;
    let mut expr = rules.expr.clone();
    let block_lambda = functions::block_lambda(rules, heads);
    let arrow_lambda = functions::arrow_lambda(rules, heads);

    // Level 18: atoms.
    let mut atom: RecursiveParser<'t, Expr> = Recursive::declare();
    // A record field's value: an expression without a top-level `,`.
    let mut field_value: RecursiveParser<'t, Expr> = Recursive::declare();
    let pattern = patterns::pattern_parser(expr.clone(), field_value.clone());

    // `p*.f` and `p->f` are `(*p).f`; `x&.f` is `(&x).f`.
    let pointer_dot = choice((
        token(Token::Star)
            .then(token(Token::Dot))
            .to(PostfixPointer::Deref),
        token(Token::RightArrow).to(PostfixPointer::Deref),
        token(Token::Ampersand)
            .then(token(Token::Dot))
            .to(PostfixPointer::Addr),
    ))
    .then(
        select! {
            Token::Ident(name) = extra => Spanned::new(ExprKind::Name(name), extra.span()),
            Token::Int(lit) = extra => Spanned::new(ExprKind::Int(lit), extra.span()),
        }
        .or(expr
            .clone()
            .delimited_by(token(Token::LParen), token(Token::RParen))),
    )
    .map(|(how, rhs)| Postfix::PointerDot(how, rhs));
    // The rest of a slice after its start: `..j`, `..<j` or `..`.
    let range_tail = choice((
        token(Token::DotDotLess).to(false),
        token(Token::DotDot).to(true),
    ))
    .then(expr.clone().or_not());
    let postfix_operation = token(Token::Dot)
        .ignore_then(choice((
            token(Token::LBracket)
                .ignore_then(choice((
                    to_word()
                        .ignore_then(expr.clone())
                        .map(|end| Postfix::Slice(None, Some(end))),
                    expr.clone()
                        .then_ignore(to_word())
                        .then(expr.clone().or_not())
                        .map(|(start, end)| Postfix::Slice(Some(start), end)),
                    expr.clone().map(Postfix::Index),
                )))
                .then_ignore(token(Token::RBracket)),
            select! {
                Token::Ident(name) = extra => Postfix::Dot(Spanned::new(ExprKind::Name(name), extra.span())),
                Token::Int(lit) = extra => Postfix::Dot(Spanned::new(ExprKind::Int(lit), extra.span())),
                Token::Keyword(Keyword::True) = extra => Postfix::Dot(Spanned::new(ExprKind::Bool(true), extra.span())),
                Token::Keyword(Keyword::False) = extra => Postfix::Dot(Spanned::new(ExprKind::Bool(false), extra.span())),
            },
            // `.(e)`, or a slice `.(i..j)`, `.(i..<j)`, `.(i..)`, `.(..j)`: one pass over `e`.
            expr.clone()
                .then(range_tail.clone().or_not())
                .map(|(e, tail)| match tail {
                    None => Postfix::Dot(e),
                    Some((inclusive, to)) => Postfix::Range(Some(e), to, inclusive),
                })
                .or(range_tail.map(|(inclusive, to)| Postfix::Range(None, to, inclusive)))
                .delimited_by(token(Token::LParen), token(Token::RParen)),
        )))
        .or(pointer_dot);
    let postfix = atom
        .clone()
        .foldl_with(postfix_operation.repeated(), |lhs, operation, extra| {
            let kind = match operation {
                Postfix::Dot(rhs) => ExprKind::Dot(Box::new(lhs), Box::new(rhs)),
                Postfix::PointerDot(how, rhs) => {
                    let span = lhs.span;
                    let pointer = match how {
                        PostfixPointer::Deref => ExprKind::Deref(Box::new(lhs)),
                        PostfixPointer::Addr => ExprKind::Addr(PtrMode::ReadWrite, Box::new(lhs)),
                    };
                    ExprKind::Dot(Box::new(Spanned::new(pointer, span)), Box::new(rhs))
                }
                Postfix::Index(index) => ExprKind::StrIndex(Box::new(lhs), Box::new(index)),
                Postfix::Slice(start, end) => {
                    ExprKind::StrSlice(Box::new(lhs), start.map(Box::new), end.map(Box::new))
                }
                Postfix::Range(from, to, inclusive) => ExprKind::Slice {
                    base: Box::new(lhs),
                    from: from.map(Box::new),
                    to: to.map(Box::new),
                    inclusive,
                },
            };
            Spanned::new(kind, extra.span())
        })
        .boxed();

    let literal = select! {
        Token::Int(lit) => ExprKind::Int(lit),
        Token::Float(lit) => ExprKind::Float(lit),
        Token::Str(bytes) => ExprKind::Str(bytes),
        Token::FormatStr(bytes) => ExprKind::Format(bytes),
        Token::Keyword(Keyword::True) => ExprKind::Bool(true),
        Token::Keyword(Keyword::False) => ExprKind::Bool(false),
    };
    // A name, possibly qualified, each segment with type arguments or none: `f`, `f[int]`,
    // `M::f`, `M::f[int]`, `Show[int]::show`.
    let type_arguments = type_list
        .clone()
        .delimited_by(token(Token::LBracket), token(Token::RBracket));
    let segment = select! { Token::Ident(name) = extra => Spanned::new(name, extra.span()) }
        .then(type_arguments.or_not());
    let path = segment
        .clone()
        .then(
            token(Token::ColonColon)
                .ignore_then(segment)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map_with(|(first, rest), extra| {
            let span = extra.span();
            let mut segments = vec![first];
            segments.extend(rest);
            let (last_name, last_args) = segments.pop().expect("a path has a segment");
            if segments.iter().any(|(_, args)| args.is_some()) {
                let mut all: Vec<(SName, Vec<TypeExpr>)> = segments
                    .into_iter()
                    .map(|(n, a)| (n, a.unwrap_or_default()))
                    .collect();
                all.push((last_name, last_args.unwrap_or_default()));
                return Spanned::new(ExprKind::QualifiedArgs(all), span);
            }
            let head_span = Span::new(span.start, last_name.span.end);
            let head = if segments.is_empty() {
                ExprKind::Name(last_name.node)
            } else {
                let mut names: Vec<Name> = segments.into_iter().map(|(n, _)| n.node).collect();
                names.push(last_name.node);
                ExprKind::Qualified(names)
            };
            let head = Spanned::new(head, head_span);
            match last_args {
                Some(args) => Spanned::new(ExprKind::TypeApply(Box::new(head), args), span),
                None => head,
            }
        });
    let if_expr = keyword(Keyword::If)
        .ignore_then(expr.clone())
        .then_ignore(keyword(Keyword::Then))
        .then(expr.clone())
        .then(
            keyword(Keyword::Elif)
                .ignore_then(expr.clone())
                .then_ignore(keyword(Keyword::Then))
                .then(expr.clone())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then_ignore(keyword(Keyword::Else))
        .then(expr.clone())
        // Without `endif` the last branch extends as far as it can; such an `if` stands
        // only where a whole expression does, which `expr` checks (`open_operand`).
        .then_ignore(keyword(Keyword::Endif).or_not())
        .map_with(|(((condition, then_branch), elifs), otherwise), extra| {
            let mut branches = vec![(condition, then_branch)];
            branches.extend(elifs);
            Spanned::new(ExprKind::If(branches, Box::new(otherwise)), extra.span())
        })
        .boxed();
    let parenthesised = token(Token::LParen)
        .ignore_then(expr.clone())
        .then_ignore(token(Token::RParen))
        .map_with(|inner, extra| Spanned::new(inner.node, extra.span()));
    let parenthesised = if recovering {
        parenthesised
            .recover_with(via_parser(nested_delimiters(
                Token::LParen,
                Token::RParen,
                [
                    (Token::LBracket, Token::RBracket),
                    (Token::LBrace, Token::RBrace),
                ],
                |span| Spanned::new(ExprKind::Error, span),
            )))
            .boxed()
    } else {
        parenthesised.boxed()
    };
    // An arm's alternatives, each `p [as x] [with y = e, …] [when g]`, whose tuple or list
    // cons needs no parentheses: `| X, _ =>`, `| h ! t =>`.
    let alternative = patterns::guarded(pattern.clone(), field_value.clone(), expr.clone());
    let arm_patterns = token(Token::Bar)
        .ignore_then(
            alternative
                .separated_by(token(Token::Bar))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(token(Token::FatArrow))
        .map(arm_alternatives)
        .boxed();
    // `match … endmatch` (the loosest level, but closed by `endmatch`, so Felix also accepts it
    // as an operand: `println$ match … endmatch`).
    let match_head = keyword(Keyword::Match)
        .ignore_then(expr.clone())
        .then_ignore(keyword(Keyword::With))
        .boxed();
    let match_expr = match_head
        .clone()
        .then(
            arm_patterns
                .clone()
                .then(expr.clone())
                .map_with(|((patterns, guard), body), extra| MatchArm {
                    patterns,
                    guard,
                    body,
                    span: extra.span(),
                })
                .repeated()
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .boxed();
    // Like `if`: without `endmatch` the last arm extends as far as it can.
    let match_expr = match_expr
        .then_ignore(keyword(Keyword::Endmatch).or_not())
        .map_with(|(scrutinee, arms), extra| {
            Spanned::new(ExprKind::Match(Box::new(scrutinee), arms), extra.span())
        })
        .boxed();

    // `let fun f (x: int) => e in body` and `let fun f : A -> B = | p => e in body`: the
    // function is defined for `body` only (Felix's block expression).
    let let_word = select! { Token::Ident(word) if word == "let" => () };
    let let_fun = let_word
        .ignore_then(choice((
            super::felix_forms::matching_definition(
                rules,
                heads.type_params.clone(),
                arm_patterns.clone(),
            ),
            functions::arrow_definition(rules, heads).map(Some),
        )))
        .then_ignore(token(Token::LetIn))
        .then(expr.clone())
        .map_with(|(def, body), extra| {
            let span: Span = extra.span();
            match def {
                Some(def) => Spanned::new(ExprKind::LetFun(Box::new(def), Box::new(body)), span),
                None => Spanned::new(ExprKind::Error, span),
            }
        })
        .boxed();
    // `let match e with | p => e …`: Felix's match without `endmatch`.
    let let_match = let_word.ignore_then(match_expr.clone()).boxed();
    // `let p = e in body`: like a `match` without `endmatch`, the body extends as far as it can.
    let let_expr = let_word
        .ignore_then(patterns::guarded_alternatives(
            pattern.clone(),
            field_value.clone(),
        ))
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(token(Token::LetIn))
        .then(expr.clone())
        .map_with(|((pattern, value), body), extra| {
            let arm = MatchArm {
                span: pattern.span.to(body.span),
                patterns: vec![pattern],
                guard: None,
                body,
            };
            Spanned::new(ExprKind::Let(Box::new(value), Box::new(arm)), extra.span())
        })
        .boxed();

    // `extend a, b with c end`: the bases are expressions without a top-level `,`, the
    // extension a whole expression.
    let extend_expr = select! { Token::Ident(word) if word == "extend" => () }
        .ignore_then(
            field_value
                .clone()
                .separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(keyword(Keyword::With))
        .then(expr.clone())
        .then_ignore(keyword(Keyword::End))
        .map_with(|(bases, extension), extra| {
            Spanned::new(ExprKind::Extend(bases, Box::new(extension)), extra.span())
        })
        .boxed();
    // `([a, b, c])`: Felix's list literal, `list (a, b, c)`.
    let list_literal = field_value
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LBracket), token(Token::RBracket))
        .delimited_by(token(Token::LParen), token(Token::RParen))
        .map_with(|mut items, extra| {
            let span: Span = extra.span();
            let arg = if items.len() == 1 {
                items.remove(0)
            } else {
                let inner = Span::new(span.start + 1, span.end - 1);
                Spanned::new(ExprKind::Tuple(items), inner)
            };
            let func = Spanned::new(ExprKind::Name("list".into()), span);
            Spanned::new(
                ExprKind::Apply {
                    func: Box::new(func),
                    arg: Box::new(arg),
                    how: ApplyForm::Juxtapose,
                },
                span,
            )
        })
        .boxed();

    atom.define(
        choice((
            let_fun,
            let_match,
            let_expr,
            extend_expr,
            list_literal,
            literal.map_with(|kind, extra| Spanned::new(kind, extra.span())),
            path,
            token(Token::LParen)
                .then(token(Token::RParen))
                .map_with(|_, extra| Spanned::new(ExprKind::Unit, extra.span())),
            record_fields(field_value.clone())
                .map_with(|fields, extra| Spanned::new(ExprKind::Record(fields), extra.span())),
            parenthesised,
            token(Token::Hash)
                .ignore_then(atom.clone())
                .map_with(|operand, extra| {
                    Spanned::new(ExprKind::Hash(Box::new(operand)), extra.span())
                }),
            token(Token::Ampersand)
                .ignore_then(pointer_mode())
                .then(postfix.clone())
                .map_with(|(mode, operand), extra| {
                    Spanned::new(ExprKind::Addr(mode, Box::new(operand)), extra.span())
                }),
            if_expr,
            block_lambda,
            // An arrow lambda binds looser than every operator and than `,`: as an operand
            // or a later tuple component it is refused with the fix.
            arrow_lambda
                .clone()
                .validate(|lambda, _, emitter| {
                    emitter.emit(coded_error(
                        lambda.span,
                        "E0100",
                        "a lambda `fun (…) => e` inside a tuple or as an operand must be parenthesised",
                        Some("write `(fun (…) => e)`: its body would otherwise extend to the end of the expression"),
                    ));
                    lambda
                }),
            match_expr,
            // `{ stmts }`: a closure of `()`.
            braced_stmts
                .clone()
                .map_with(|body, extra| desugar::closure(body, extra.span())),
        ))
        .labelled("expression"),
    );

    // Level 16: juxtaposition and `caseno`.
    let argument = postfix.clone().and_is(to_word().not());
    let caseno_or_postfix = keyword(Keyword::Caseno)
        .ignore_then(postfix.clone())
        .map_with(|operand, extra| Spanned::new(ExprKind::Caseno(Box::new(operand)), extra.span()))
        .or(postfix.clone())
        .boxed();
    // `f of (T)`: the overload or constructor taking a `T`; the type is an atom.
    let application_head = caseno_or_postfix
        .clone()
        .then(keyword(Keyword::Of).ignore_then(type_atom.clone()).or_not())
        .map_with(|(head, of), extra| match of {
            Some(ty) => Spanned::new(ExprKind::OfType(Box::new(head), ty), extra.span()),
            None => head,
        });
    let apply_all =
        |func: Expr,
         arg: Expr,
         extra: &mut chumsky::input::MapExtra<'t, '_, TokenInput<'t>, Extra<'t>>| {
            apply(func, arg, ApplyForm::Juxtapose, extra.span())
        };
    // `aproj i of T`: the index is an application without the `of` suffix.
    let plain_application = caseno_or_postfix
        .foldl_with(argument.clone().repeated(), apply_all)
        .boxed();
    // An argument may select its overload too: `iter println of (int) b`.
    let argument_of = argument
        .clone()
        .then(keyword(Keyword::Of).ignore_then(type_atom.clone()).or_not())
        .map_with(|(arg, of), extra| match of {
            Some(ty) => Spanned::new(ExprKind::OfType(Box::new(arg), ty), extra.span()),
            None => arg,
        });
    let application = application_head
        .foldl_with(argument_of.repeated(), |func, arg, extra| {
            apply(func, arg, ApplyForm::Juxtapose, extra.span())
        })
        .boxed();

    // Between levels 15 and 16: prefix `*`, the dereference: `*f x` is `*(f x)`.
    let dereference = token(Token::Star)
        .map_with(|_, extra| extra.span())
        .repeated()
        .foldr_with(application.clone(), |star_span: Span, operand, _| {
            let span = star_span.to(operand.span);
            Spanned::new(ExprKind::Deref(Box::new(operand)), span)
        })
        .boxed();
    // Level 15: prefix `-`, `+` and `~`.
    let prefix = choice((
        token(Token::Minus).to(UnOp::Neg),
        token(Token::Plus).to(UnOp::Plus),
        token(Token::Tilde).to(UnOp::Compl),
    ))
    .map_with(|operator, extra| (operator, extra.span()))
    .repeated()
    .foldr_with(dereference, |(operator, operator_span), operand, _| {
        let span = operator_span.to(operand.span);
        Spanned::new(ExprKind::Unary(operator, Box::new(operand)), span)
    })
    .boxed();

    // Levels 14 and 13: multiplicative and additive operators.
    let multiplicative = binary_level(
        prefix,
        choice((
            token(Token::Star).to(BinOp::Mul),
            token(Token::Slash).to(BinOp::Div),
            token(Token::Percent).to(BinOp::Mod),
        )),
    );
    let additive = binary_level(
        multiplicative,
        choice((
            token(Token::Plus).to(BinOp::Add),
            token(Token::Minus).to(BinOp::Sub),
        )),
    );

    // Bitwise operators and shifts, between levels 13 and 12, loosest first:
    // `\|` < `\^` < `\&` < `<<` `>>`, each left associative.
    let bitwise = bitwise_levels(additive);

    // Level 12: injections and unitsum values, stand-alone projections.
    let of_type = keyword(Keyword::Of).ignore_then(type_expr.clone());
    // `` `0:5 ``, also an index of `aproj`.
    let unitsum_value = token(Token::Backtick)
        .ignore_then(int_literal())
        .then_ignore(token(Token::Colon))
        .then(type_atom.clone())
        .map_with(|(lit, ty), extra| Spanned::new(ExprKind::UnitsumValue(lit, ty), extra.span()))
        .boxed();
    let level12 = choice((
        keyword(Keyword::Case)
            .ignore_then(int_literal())
            .then(of_type.clone())
            .map(|(lit, ty)| ExprKind::Case(lit, ty)),
        token(Token::Backtick)
            .ignore_then(int_literal())
            .then_ignore(token(Token::Colon).or(keyword(Keyword::Of)))
            .then(type_atom.clone())
            .map(|(lit, ty)| ExprKind::UnitsumValue(lit, ty)),
        keyword(Keyword::Proj)
            .ignore_then(int_literal())
            .then(of_type.clone())
            .map(|(lit, ty)| ExprKind::Proj(lit, ty)),
        keyword(Keyword::Aproj)
            .ignore_then(unitsum_value.or(plain_application))
            .then(of_type.clone())
            .map(|(index, ty)| ExprKind::Aproj(Box::new(index), ty)),
        // `ident of T`, the identity; `ident` is otherwise an ordinary name, as in Felix.
        select! { Token::Ident(name) if name == "ident" => () }
            .ignore_then(of_type)
            .map(ExprKind::Ident),
    ))
    .map_with(|kind, extra| Spanned::new(kind, extra.span()))
    .or(bitwise)
    .boxed();

    // Between levels 12 and 10: Felix's list cons `h ! t`, right associative
    // (`1 ! 2 ! Empty[int]` is `1 ! (2 ! Empty[int])`); it stands for `Cons (h, t)`.
    let cons = operator_level(
        level12,
        token(Token::Bang).map_with(|_, extra| -> Span { extra.span() }),
        Grouping::Right(|bang, head, tail, span| {
            let pair = head.span.to(tail.span);
            let func = Spanned::new(ExprKind::Name("Cons".into()), bang);
            let arg = Spanned::new(ExprKind::Tuple(vec![head, tail]), pair);
            apply(func, arg, ApplyForm::Juxtapose, span)
        }),
    );

    // Level 10: comparisons, non-associative.
    let comparison_operator = choice((
        token(Token::EqEq).to(BinOp::Eq),
        token(Token::NotEq).to(BinOp::Ne),
        token(Token::LessEq).to(BinOp::Le),
        token(Token::Less).to(BinOp::Lt),
        token(Token::GreaterEq).to(BinOp::Ge),
        token(Token::Greater).to(BinOp::Gt),
        // Membership: `\in`, `in`, `\notin`, `not in`.
        token(Token::SetIn).to(BinOp::In),
        keyword(Keyword::In).to(BinOp::In),
        token(Token::SetNotIn).to(BinOp::NotIn),
        keyword(Keyword::Not)
            .then(keyword(Keyword::In))
            .to(BinOp::NotIn),
    ))
    .map_with(|operator, extra| (operator, extra.span()));
    let comparison = operator_level(
        cons,
        comparison_operator,
        Grouping::NonAssociative(
            |(operator, _), lhs, rhs, _| {
                let span = lhs.span.to(rhs.span);
                Spanned::new(
                    ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)),
                    span,
                )
            },
            |(operator, operator_span)| {
                coded_error(
                    *operator_span,
                    "E0100",
                    &format!(
                        "comparison operators are not associative: a second `{}` cannot follow a comparison",
                        operator.symbol()
                    ),
                    Some("parenthesise one comparison, or combine them with `and`: `a < b and b < c`"),
                )
            },
        ),
    );

    // Levels 9, 8, 7: `not`, `and`, `or`.
    let negation = keyword(Keyword::Not)
        .map_with(|_, extra| extra.span())
        .repeated()
        .foldr_with(comparison, |not_span: Span, operand: Expr, _| {
            let span = not_span.to(operand.span);
            Spanned::new(ExprKind::Unary(UnOp::Not, Box::new(operand)), span)
        })
        .boxed();
    let conjunction = binary_level(negation, keyword(Keyword::And).to(BinOp::And));
    let disjunction = binary_level(conjunction, keyword(Keyword::Or).to(BinOp::Or));

    // Levels 6 and 5: compact tuples and tuples.
    let compact_tuple = operator_level(
        disjunction,
        token(Token::CompactComma),
        Grouping::Chain(ExprKind::CTuple),
    );
    field_value.define(compact_tuple.clone());
    let tuple = operator_level(
        compact_tuple,
        token(Token::Comma),
        Grouping::Chain(ExprKind::Tuple),
    );

    // Level 4: `f $ x`, right associative.
    let dollar = operator_level(
        tuple,
        token(Token::Dollar),
        Grouping::Right(|_, func, arg, span| apply(func, arg, ApplyForm::Dollar, span)),
    );

    // Level 3: `x |> f`, left associative.
    let pipe = operator_level(
        dollar,
        token(Token::PipeRight),
        Grouping::Left(|_, arg, func, span| apply(func, arg, ApplyForm::Pipe, span)),
    );

    // Level 2: `e :>> T` (left associative: `e :>> A :>> B` converts twice) and the
    // arrow lambda.
    let coercion = pipe.foldl(
        token(Token::Coerce)
            .ignore_then(type_expr.clone())
            .repeated(),
        |value, target| {
            let span = value.span.to(target.span);
            Spanned::new(ExprKind::Coerce(Box::new(value), target), span)
        },
    );
    let level2 = arrow_lambda.or(coercion).boxed();

    expr.define(
        level2
            .validate(|e, _, emitter| {
                if let Some(open) = open_operand(&e) {
                    let error = if matches!(open.node, ExprKind::Let(..) | ExprKind::LetFun(..)) {
                        coded_error(
                            open.span,
                            "E0100",
                            "a `let … in` cannot be an operand: its body extends to the end of the expression",
                            Some("put it in parentheses"),
                        )
                    } else {
                        coded_error(
                            open.span,
                            "E0100",
                            "an `if` or `match` without `endif`/`endmatch` cannot be an operand",
                            Some("close it with `endif`/`endmatch`, or put it in parentheses"),
                        )
                    };
                    emitter.emit(error);
                }
                e
            })
            .labelled("expression"),
    );

    Expressions {
        postfix,
        match_head,
        arm_patterns,
    }
}

/// Is `e` an `if` or `match` written without `endif`/`endmatch` (its last branch ends where it
/// does), or a `let … in`?
fn is_open_conditional(e: &Expr) -> bool {
    match &e.node {
        ExprKind::Let(_, arm) => arm.body.span.end == e.span.end,
        ExprKind::LetFun(_, body) => body.span.end == e.span.end,
        ExprKind::If(_, otherwise) => otherwise.span.end == e.span.end,
        ExprKind::Match(_, arms) => arms
            .last()
            .is_some_and(|arm| arm.body.span.end == e.span.end),
        _ => false,
    }
}

/// An open `if` or `match` extends to the end of the enclosing expression, so when it is not
/// the whole expression it is its last operand (`println$ if c then 1 else 2`), which the
/// language forbids. Branches and lambda bodies are whole expressions, checked where they are parsed.
fn open_operand(e: &Expr) -> Option<&Expr> {
    let mut node = e;
    loop {
        let last = match &node.node {
            ExprKind::Apply { arg: last, .. }
            | ExprKind::Binary(_, _, last)
            | ExprKind::Unary(_, last)
            | ExprKind::Caseno(last)
            | ExprKind::Hash(last)
            | ExprKind::Addr(_, last)
            | ExprKind::Deref(last) => last,
            ExprKind::Tuple(items) | ExprKind::CTuple(items) => items.last()?,
            _ => return None,
        };
        if last.span.end != e.span.end {
            return None;
        }
        if is_open_conditional(last) {
            return Some(last);
        }
        node = last;
    }
}

/// An arm's alternatives as parsed (pattern, `with` bindings, guard, span) as `MatchArm`
/// holds them: one alternative keeps its guard on the arm; among several, an alternative with
/// bindings or a guard is `PatternKind::Guarded`, since its guard is its own.
#[allow(clippy::type_complexity)]
fn arm_alternatives(
    mut alternatives: Vec<(Pattern, Vec<(SName, Expr)>, Option<Expr>, Span)>,
) -> (Vec<Pattern>, Option<Expr>) {
    if alternatives.len() == 1 && alternatives[0].1.is_empty() {
        let (pattern, _, guard, _) = alternatives.remove(0);
        return (vec![pattern], guard);
    }
    let patterns = alternatives
        .into_iter()
        .map(|(pattern, with, guard, span)| patterns::guarded_pattern(pattern, with, guard, span))
        .collect();
    (patterns, None)
}

/// A postfix operation of level 17.
#[derive(Clone)]
enum Postfix {
    Dot(Expr),
    /// `p*.f`, `p->f` (through `*p`) or `x&.f` (through `&x`).
    PointerDot(PostfixPointer, Expr),
    Index(Expr),
    Slice(Option<Expr>, Option<Expr>),
    /// `.(i..j)` and its forms: the start, the end and whether the end is included.
    Range(Option<Expr>, Option<Expr>, bool),
}

#[derive(Clone, Copy)]
enum PostfixPointer {
    Deref,
    Addr,
}

/// `func arg`, `func $ arg` or `arg |> func`.
fn apply(func: Expr, arg: Expr, how: ApplyForm, span: Span) -> Expr {
    Spanned::new(
        ExprKind::Apply {
            func: Box::new(func),
            arg: Box::new(arg),
            how,
        },
        span,
    )
}

/// A left-associative level of binary operators: `a - b - c` is `(a - b) - c`.
fn binary_level<'t>(
    operand: BoxedParser<'t, Expr>,
    operator: impl Parser<'t, TokenInput<'t>, BinOp, Extra<'t>> + Clone + 't,
) -> BoxedParser<'t, Expr> {
    operator_level(
        operand,
        operator,
        Grouping::Left(|operator, lhs, rhs, span| {
            Spanned::new(
                ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)),
                span,
            )
        }),
    )
}

/// The levels of the bitwise operators and shifts over `operand` (the additive
/// level): shifts, then `\&`, `\^`, `\|`, each a left-associative level. `>>` is two `>`
/// tokens with nothing between them (the lexer keeps them apart for nested brackets).
fn bitwise_levels<'t>(operand: BoxedParser<'t, Expr>) -> BoxedParser<'t, Expr> {
    let greater = || token(Token::Greater).map_with(|_, extra| -> Span { extra.span() });
    let shift_right = greater().then(greater()).try_map(|(first, second), span| {
        if first.end == second.start {
            Ok(BinOp::Shr)
        } else {
            Err(coded_error(
                span,
                "E0100",
                "`>>` is written without a space between the two `>`",
                None,
            ))
        }
    });
    let shift = binary_level(
        operand,
        choice((token(Token::ShiftLeft).to(BinOp::Shl), shift_right)),
    );
    let and = binary_level(shift, token(Token::BitAnd).to(BinOp::BitAnd));
    let xor = binary_level(and, token(Token::CompactCaret).to(BinOp::BitXor));
    binary_level(xor, token(Token::BitOr).to(BinOp::BitOr))
}
