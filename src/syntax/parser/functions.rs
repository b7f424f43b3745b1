//! Functions: parameter lists, type parameters and return types, lambdas, named definitions
//! and C bindings, which expressions and statements share.

use chumsky::prelude::*;

use super::{coded_error, keyword, name, token, BoxedParser, Extra, Rules, TokenInput};
use crate::syntax::ast::*;
use crate::syntax::desugar::{self, ParamItem};
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};

/// The parts of a function's head that lambdas and definitions share.
pub(super) struct FunctionHeads<'t> {
    /// One or more parameter groups, with the statements that bind nested parameters at entry.
    param_groups: BoxedParser<'t, (Vec<ParamGroup>, Vec<Stmt>)>,
    /// `[T, U : UNITSUM]`.
    pub type_params: BoxedParser<'t, Vec<TypeParam>>,
    /// `: T`, if written.
    return_type: BoxedParser<'t, Option<TypeExpr>>,
}

impl<'t> FunctionHeads<'t> {
    pub fn new(type_expr: &BoxedParser<'t, TypeExpr>) -> Self {
        // A parameter is `x : T` or a parenthesised list of parameters.
        let param_item = recursive(|item| {
            choice((
                // `var x : T`; `val x : T` is the default written out.
                keyword(Keyword::Var)
                    .ignore_then(name())
                    .then_ignore(token(Token::Colon))
                    .then(type_expr.clone())
                    .map(|(name, ty)| ParamItem::Var(Param { name, ty })),
                keyword(Keyword::Val)
                    .or_not()
                    .ignore_then(name())
                    .then_ignore(token(Token::Colon))
                    .then(type_expr.clone())
                    .map(|(name, ty)| ParamItem::Simple(Param { name, ty })),
                item.separated_by(token(Token::Comma))
                    .at_least(1)
                    .collect::<Vec<_>>()
                    .delimited_by(token(Token::LParen), token(Token::RParen))
                    .map_with(|items, extra| ParamItem::Nested(items, extra.span())),
            ))
        });
        let param_group = param_item
            .separated_by(token(Token::Comma))
            .collect::<Vec<_>>()
            .delimited_by(token(Token::LParen), token(Token::RParen))
            .map_with(|items, extra| desugar::lower_params(items, extra.span()))
            .labelled("parameter list");
        // The groups, and the statements binding nested parameters at entry.
        let param_groups = param_group
            .repeated()
            .at_least(1)
            .collect::<Vec<_>>()
            .map(|groups| {
                let mut prelude = Vec::new();
                let groups = groups
                    .into_iter()
                    .map(|(group, stmts)| {
                        prelude.extend(stmts);
                        group
                    })
                    .collect::<Vec<_>>();
                (groups, prelude)
            })
            .boxed();
        let kind_expr = select! {
            Token::Ident(word) if word == "TYPE" => KindExpr::Type,
            Token::Ident(word) if word == "UNITSUM" => KindExpr::Unitsum,
            Token::Ident(word) if word == "COMPACTLINEAR" => KindExpr::CompactLinear,
        }
        .labelled("kind (`TYPE`, `UNITSUM` or `COMPACTLINEAR`)");
        let type_params = name()
            .then(token(Token::Colon).ignore_then(kind_expr).or_not())
            .map(|(name, kind)| TypeParam {
                name,
                kind: kind.unwrap_or(KindExpr::Type),
                constraints: Vec::new(),
            })
            .separated_by(token(Token::Comma))
            .at_least(1)
            .collect::<Vec<_>>()
            .then(super::modules::with_clause(type_expr).or_not())
            .map(super::modules::attach_constraints)
            .delimited_by(token(Token::LBracket), token(Token::RBracket))
            .boxed();
        let return_type = token(Token::Colon)
            .ignore_then(type_expr.clone())
            .or_not()
            .boxed();

        FunctionHeads {
            param_groups,
            type_params,
            return_type,
        }
    }
}

/// `fun`, `cfun` or `gen`.
fn fun_or_gen<'t>() -> impl Parser<'t, TokenInput<'t>, FunKind, Extra<'t>> + Clone {
    choice((
        keyword(Keyword::Fun).to(FunKind::Fun),
        keyword(Keyword::Cfun).to(FunKind::Fun),
        keyword(Keyword::Gen).to(FunKind::Gen),
    ))
}

/// `proc` or `cproc`.
fn proc_keyword<'t>() -> impl Parser<'t, TokenInput<'t>, Token, Extra<'t>> + Clone {
    keyword(Keyword::Proc).or(keyword(Keyword::Cproc))
}

/// A lambda with a block body: `fun (x:int) { … }`, `proc () = { … }`.
pub(super) fn block_lambda<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
) -> BoxedParser<'t, Expr> {
    let FunctionHeads {
        param_groups,
        return_type,
        ..
    } = heads;
    let braced_stmts = &rules.braced_stmts;
    // `{ stmts }`, optionally after `=`.
    let block_function_tail = choice((
        fun_or_gen()
            .then(param_groups.clone())
            .then(return_type.clone())
            .then_ignore(token(Token::Assign).or_not())
            .then(braced_stmts.clone())
            .map(|(((kind, (params, prelude)), ret), body)| {
                let body = desugar::with_prelude(prelude, FunBody::Block(body));
                (kind, params, ret, body)
            }),
        proc_keyword()
            .ignore_then(param_groups.clone())
            .then_ignore(token(Token::Assign).or_not())
            .then(braced_stmts.clone())
            .map(|((params, prelude), body)| {
                let body = desugar::with_prelude(prelude, FunBody::Block(body));
                (FunKind::Proc, params, None, body)
            }),
    ))
    .boxed();
    block_function_tail
        .map_with(|(kind, params, ret, body), extra| lambda(kind, params, ret, body, extra.span()))
        .boxed()
}

/// A lambda with an expression body: `fun (x:int) => x + 1`.
pub(super) fn arrow_lambda<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
) -> BoxedParser<'t, Expr> {
    let FunctionHeads {
        param_groups,
        return_type,
        ..
    } = heads;
    let expr = &rules.expr;
    fun_or_gen()
        .then(param_groups.clone())
        .then(return_type.clone())
        .then_ignore(token(Token::FatArrow))
        .then(expr.clone())
        .map_with(|(((kind, (params, prelude)), ret), body), extra| {
            let body = desugar::with_prelude(prelude, FunBody::Expr(body));
            lambda(kind, params, ret, body, extra.span())
        })
        .boxed()
}

/// An anonymous function.
fn lambda(
    kind: FunKind,
    params: Vec<ParamGroup>,
    ret: Option<TypeExpr>,
    body: FunBody,
    span: Span,
) -> Expr {
    Spanned::new(
        ExprKind::Lambda(Box::new(FunDef {
            kind,
            name: None,
            type_params: Vec::new(),
            params,
            ret,
            body: body.into(),
            span,
        })),
        span,
    )
}

/// `fun == : A * A -> B = "$1==$2";`: an operator C binding, the built-in `OP` on `A`; any
/// other C binding is E0100.
pub(super) fn c_binding<'t>(rules: &Rules<'t>) -> BoxedParser<'t, Stmt> {
    let type_expr = &rules.type_expr;
    let semicolon = token(Token::Semicolon);
    fun_or_gen()
        .ignore_then(name_or_operator())
        .then_ignore(token(Token::Colon))
        .then(type_expr.clone())
        .then_ignore(token(Token::Assign))
        .then(select! { Token::Str(bytes) = extra => (bytes, extra.span()) })
        .then_ignore(semicolon.clone())
        .validate(|((name, ty), (template, template_span)), extra, emitter| {
            let span: Span = extra.span();
            let operands = match &ty.node {
                TypeExprKind::Fun(domain, result) => match &domain.node {
                    TypeExprKind::Product(parts) if parts.len() == 2 => {
                        Some((parts[0].clone(), parts[1].clone(), (**result).clone()))
                    }
                    _ => None,
                },
                _ => None,
            };
            let (Some(op), Some((a, b, result))) = (operator_template(&template), operands) else {
                emitter.emit(coded_error(
                    template_span,
                    "E0100",
                    "the only C bindings are operator templates `\"$1 OP $2\"` of type `A * A -> B`",
                    Some("OP is one of == != < <= > >= + - * / %"),
                ));
                return StmtKind::Error;
            };
            let param = |n: &str, ty: TypeExpr| Param {
                name: Spanned::new(n.to_string(), ty.span),
                ty,
            };
            let operand = |n: &str| Box::new(Spanned::new(ExprKind::Name(n.to_string()), template_span));
            StmtKind::Fun(std::sync::Arc::new(FunDef {
                kind: FunKind::Fun,
                name: Some(name),
                type_params: Vec::new(),
                params: vec![ParamGroup {
                    params: vec![param("$1", a), param("$2", b)],
                    span: ty.span,
                }],
                ret: Some(result),
                body: FunBody::Expr(Spanned::new(
                    ExprKind::BuiltinBinary(op, operand("$1"), operand("$2")),
                    template_span,
                ))
                .into(),
                span,
            }))
        })
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed()
}

/// A named definition: `fun f[T] (x:T) : T => x;`, `gen g () { … }`, `proc p (x:int) => stmt;`.
pub(super) fn definition<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
) -> BoxedParser<'t, Stmt> {
    let Rules {
        expr,
        stmt,
        braced_stmts,
        ..
    } = rules;
    let FunctionHeads {
        param_groups,
        type_params,
        return_type,
    } = heads;
    let semicolon = token(Token::Semicolon);
    let named_fun_or_gen = fun_or_gen()
        .then(name_or_operator())
        .then(type_params.clone().or_not())
        .then(param_groups.clone())
        .then(return_type.clone())
        .then(choice((
            token(Token::FatArrow)
                .ignore_then(expr.clone())
                .then_ignore(semicolon.clone())
                .map(FunBody::Expr),
            token(Token::Assign)
                .or_not()
                .ignore_then(braced_stmts.clone())
                .then_ignore(semicolon.clone().or_not())
                .map(FunBody::Block),
        )))
        .map(
            |(((((kind, name), type_params), (params, prelude)), ret), body)| {
                let body = desugar::with_prelude(prelude, body);
                (kind, name, type_params, params, ret, body)
            },
        );
    let named_proc = proc_keyword()
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then(param_groups.clone())
        .then(choice((
            // `proc p (x:int) => stmt;`.
            token(Token::FatArrow)
                .ignore_then(stmt.clone())
                .map(|body| vec![body]),
            token(Token::Assign)
                .or_not()
                .ignore_then(braced_stmts.clone())
                .then_ignore(semicolon.clone().or_not()),
        )))
        .map(|(((name, type_params), (params, prelude)), body)| {
            (
                FunKind::Proc,
                name,
                type_params,
                params,
                None,
                desugar::with_prelude(prelude, FunBody::Block(body)),
            )
        });
    named_fun_or_gen
        .or(named_proc)
        .map_with(|(kind, name, type_params, params, ret, body), extra| {
            let span = extra.span();
            let definition = FunDef {
                kind,
                name: Some(name),
                type_params: type_params.unwrap_or_default(),
                params,
                ret,
                body: body.into(),
                span,
            };
            Spanned::new(StmtKind::Fun(std::sync::Arc::new(definition)), span)
        })
        .boxed()
}

/// `fun f[T] (x:T) : T => e` without a `;`: the function of `let fun f (x:T) => e in body`.
pub(super) fn arrow_definition<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
) -> BoxedParser<'t, FunDef> {
    let FunctionHeads {
        param_groups,
        type_params,
        return_type,
    } = heads;
    keyword(Keyword::Fun)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then(param_groups.clone())
        .then(return_type.clone())
        .then_ignore(token(Token::FatArrow))
        .then(rules.expr.clone())
        .map_with(
            |((((name, type_params), (params, prelude)), ret), body), extra| FunDef {
                kind: FunKind::Fun,
                name: Some(name),
                type_params: type_params.unwrap_or_default(),
                params,
                ret,
                body: desugar::with_prelude(prelude, FunBody::Expr(body)).into(),
                span: extra.span(),
            },
        )
        .boxed()
}

/// A name, or an operator defined like a name (`fun + (a:V, b:V) …`).
fn name_or_operator<'t>() -> impl Parser<'t, TokenInput<'t>, SName, Extra<'t>> + Clone {
    let operator = select! {
        Token::Plus => BinOp::Add,
        Token::Minus => BinOp::Sub,
        Token::Star => BinOp::Mul,
        Token::Slash => BinOp::Div,
        Token::Percent => BinOp::Mod,
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Less => BinOp::Lt,
        Token::LessEq => BinOp::Le,
        Token::Greater => BinOp::Gt,
        Token::GreaterEq => BinOp::Ge,
        Token::ShiftLeft => BinOp::Shl,
        Token::BitAnd => BinOp::BitAnd,
        Token::BitOr => BinOp::BitOr,
        Token::CompactCaret => BinOp::BitXor,
    };
    // `>>` is two `>` tokens (so that `_pclt<A, _pclt<B, C>>` closes twice).
    let shift_right = token(Token::Greater)
        .then(token(Token::Greater))
        .to(BinOp::Shr);
    let operator = shift_right
        .or(operator)
        .map_with(|op: BinOp, extra| Spanned::new(op.symbol().to_string(), extra.span()));
    // `~` is a prefix operator only.
    let complement =
        token(Token::Tilde).map_with(|_, extra| Spanned::new("~".to_string(), extra.span()));
    name().or(operator).or(complement).labelled("name")
}

/// The built-in operator of a C binding template `"$1 OP $2"` (spaces optional).
fn operator_template(template: &[u8]) -> Option<BinOp> {
    let text: String = String::from_utf8_lossy(template)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let op = text.strip_prefix("$1")?.strip_suffix("$2")?;
    [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
    ]
    .into_iter()
    .find(|b| b.symbol() == op)
}
