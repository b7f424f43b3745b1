//! Modules and type classes: `module M { … }`, `class C[T] { … }`, `instance C[int] { … }`,
//! `open M;`, `inherit M;`, `virtual fun f: T -> R;`, and the `with` clause of a function's
//! type parameters. The words `module`, `class`, `instance`, `open`, `inherit` and `virtual`
//! are recognised where these statements start, so they stay usable as names elsewhere.

use chumsky::prelude::*;

use super::functions::FunctionHeads;
use super::{coded_error, name, token, BoxedParser, Extra, Rules, TokenInput};
use crate::syntax::ast::*;
use crate::syntax::span::Spanned;
use crate::syntax::token::{Keyword, Token};

/// The contextual word `w` (`virtual` is a reserved word, the others are names).
fn word<'t>(w: &'static str) -> impl Parser<'t, TokenInput<'t>, (), Extra<'t>> + Clone {
    select! {
        Token::Ident(name) if name == w => (),
        Token::Keyword(Keyword::Reserved(name)) if name == w => (),
    }
}

/// Do the tokens start a module, class or instance definition (`module M {`, `class C[`,
/// `instance C[`, `instance[`), which is a statement even without a `;`?
pub fn starts_module_statement(tokens: &[(Token, crate::syntax::span::Span)]) -> bool {
    match tokens {
        [(Token::Ident(w), _), (Token::Ident(_), _), (next, _), ..]
            if w == "module" || w == "class" =>
        {
            matches!(next, Token::LBrace | Token::LBracket)
        }
        [(Token::Ident(w), _), (next, _), ..] if w == "instance" => {
            matches!(next, Token::Ident(_) | Token::LBracket)
        }
        _ => false,
    }
}

/// A name, possibly qualified (`M::N::f`), as one name joined by `::`.
pub(super) fn qualified_name<'t>() -> impl Parser<'t, TokenInput<'t>, SName, Extra<'t>> + Clone {
    name()
        .separated_by(token(Token::ColonColon))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|parts, extra| {
            let joined: Vec<String> = parts.into_iter().map(|p| p.node).collect();
            Spanned::new(joined.join("::"), extra.span())
        })
}

/// `[T, U]`: type arguments.
fn type_args<'t>(
    type_expr: &BoxedParser<'t, TypeExpr>,
) -> impl Parser<'t, TokenInput<'t>, Vec<TypeExpr>, Extra<'t>> + Clone {
    type_expr
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LBracket), token(Token::RBracket))
}

/// `with Str[T], Eq[U]`: the constraints of a type parameter list.
pub(super) fn with_clause<'t>(
    type_expr: &BoxedParser<'t, TypeExpr>,
) -> impl Parser<'t, TokenInput<'t>, Vec<Constraint>, Extra<'t>> + Clone {
    let constraint = qualified_name()
        .then(type_args(type_expr))
        .map(|(class, args)| Constraint { class, args });
    just(Token::Keyword(Keyword::With)).ignore_then(
        constraint
            .separated_by(token(Token::Comma))
            .at_least(1)
            .collect::<Vec<_>>(),
    )
}

/// The type parameters with the constraints of their `with` clause kept on the last one.
pub(super) fn attach_constraints(
    (mut params, constraints): (Vec<TypeParam>, Option<Vec<Constraint>>),
) -> Vec<TypeParam> {
    if let (Some(constraints), Some(last)) = (constraints, params.last_mut()) {
        last.constraints = constraints;
    }
    params
}

/// The statements of modules and type classes.
pub(super) fn module_statements<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
) -> BoxedParser<'t, StmtKind> {
    let Rules {
        type_expr,
        stmt,
        braced_stmts,
        ..
    } = rules;
    let type_params = heads.type_params.clone();
    let semicolon = token(Token::Semicolon);
    let module_or_class = word("module")
        .to(false)
        .or(word("class").to(true))
        .then(name())
        .then(type_params.clone().or_not())
        .then(braced_stmts.clone())
        .then_ignore(semicolon.clone().or_not())
        .map(|(((class, name), params), body)| ModuleItem::Module {
            name,
            params: params.unwrap_or_default(),
            body,
            class,
        });
    let instance = word("instance")
        .ignore_then(type_params.clone().or_not())
        .then(qualified_name())
        .then(type_args(type_expr))
        .then(braced_stmts.clone())
        .then_ignore(semicolon.clone().or_not())
        .map(|(((params, class), args), body)| ModuleItem::Instance {
            params: params.unwrap_or_default(),
            class,
            args,
            body,
        });
    let open = word("open")
        .to(false)
        .or(word("inherit").to(true))
        .then(qualified_name())
        .then(type_args(type_expr).or_not())
        .then_ignore(semicolon.clone())
        .map(|((inherit, module), args)| ModuleItem::Open {
            module,
            args: args.unwrap_or_default(),
            inherit,
        });
    // `virtual fun f: A -> B;`: a declaration without a body.
    let kind = choice((
        just(Token::Keyword(Keyword::Fun)).to(FunKind::Fun),
        just(Token::Keyword(Keyword::Gen)).to(FunKind::Gen),
        just(Token::Keyword(Keyword::Proc)).to(FunKind::Proc),
    ));
    let bodiless = word("virtual")
        .ignore_then(kind)
        .then(name())
        .then(type_params.clone().or_not())
        .then_ignore(token(Token::Colon))
        .then(type_expr.clone())
        .then_ignore(semicolon)
        .map_with(|(((kind, name), type_params), ty), extra| {
            let (params, ret) = signature_groups(kind, ty);
            ModuleItem::Virtual {
                def: std::sync::Arc::new(FunDef {
                    kind,
                    name: Some(name),
                    type_params: type_params.unwrap_or_default(),
                    params,
                    ret,
                    body: FunBody::Block(Vec::new()).into(),
                    span: extra.span(),
                }),
                bodiless: true,
            }
        });
    // `virtual fun f (x:T) => e;`: a definition, the default of the instances.
    let with_default =
        word("virtual")
            .ignore_then(stmt.clone())
            .validate(|s: Stmt, extra, emitter| match s.node {
                StmtKind::Fun(def) if def.name.is_some() => ModuleItem::Virtual {
                    def,
                    bodiless: false,
                },
                _ => {
                    emitter.emit(coded_error(
                    extra.span(),
                    "E0100",
                    "`virtual` is followed by a function: `virtual fun f: T -> R;` or a definition",
                    None,
                ));
                    ModuleItem::Virtual {
                        def: std::sync::Arc::new(FunDef {
                            kind: FunKind::Fun,
                            name: None,
                            type_params: Vec::new(),
                            params: Vec::new(),
                            ret: None,
                            body: FunBody::Block(Vec::new()).into(),
                            span: extra.span(),
                        }),
                        bodiless: true,
                    }
                }
            });
    choice((module_or_class, instance, open, bodiless, with_default))
        .map(|item| StmtKind::Module(Box::new(item)))
        .boxed()
}

/// The parameter groups and result of a function declared by its type: `A -> B -> R` takes
/// a group of type `A`, then one of type `B`, and returns `R`; a procedure's type is its
/// parameter type (`virtual proc p: T;`), or `T -> void`.
fn signature_groups(kind: FunKind, ty: TypeExpr) -> (Vec<ParamGroup>, Option<TypeExpr>) {
    let group = |i: usize, t: TypeExpr| ParamGroup {
        span: t.span,
        params: vec![Param {
            name: Spanned::new(format!("_{i}"), t.span),
            ty: t,
        }],
    };
    let mut groups = Vec::new();
    let mut rest = ty;
    loop {
        match rest.node {
            TypeExprKind::Fun(domain, codomain) => {
                groups.push(group(groups.len(), *domain));
                rest = *codomain;
            }
            node => {
                rest = Spanned::new(node, rest.span);
                break;
            }
        }
    }
    if kind == FunKind::Proc && groups.is_empty() {
        groups.push(group(0, rest));
        return (groups, None);
    }
    (groups, Some(rest))
}
