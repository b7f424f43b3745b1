//! Felix's statement forms outside the structured core: a label `name:>` and `goto name;`;
//! the C-style loop `for (init; cond; step) body`; matching function definitions
//! `fun f : A -> B = | p => e | q => e';`. `goto` is a contextual word: it starts a statement
//! only when a name and `;` follow it.

use chumsky::prelude::*;

use super::{coded_error, keyword, name, token, BoxedParser, RecursiveParser, Rules};
use crate::syntax::ast::*;
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};

/// `name:>` (a label) or `goto name;`.
pub(super) fn goto_forms<'t>() -> BoxedParser<'t, Stmt> {
    let label = name()
        .then_ignore(token(Token::Colon))
        .then_ignore(token(Token::Greater))
        .map(StmtKind::Label);
    let goto = just(Token::Ident("goto".to_string()))
        .ignore_then(name())
        .then_ignore(token(Token::Semicolon))
        .map(StmtKind::Goto);
    choice((label, goto))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed()
}

/// `for (init; cond; step) body` after its optional label: `init` is a statement (with its
/// `;`: `var i = 0;`, `i = 0;`), `step` a statement whose `;` may be left out (`++i`,
/// `i += 2`), `body` a loop body, a `{ … }` block or one statement.
pub(super) fn c_for<'t>(
    rules: &Rules<'t>,
    postfix: BoxedParser<'t, Expr>,
    assign_operator: BoxedParser<'t, AssignOp>,
    loop_body: BoxedParser<'t, Vec<Stmt>>,
) -> BoxedParser<'t, StmtKind> {
    let stmt: &RecursiveParser<'t, Stmt> = &rules.stmt;
    let expr = &rules.expr;
    // The step without its `;`.
    let bare_step = choice((
        token(Token::PlusPlus)
            .to(true)
            .or(token(Token::MinusMinus).to(false))
            .then(postfix)
            .map(|(up, target)| StmtKind::Incr { target, up }),
        expr.clone()
            .then(assign_operator.then(expr.clone()).or_not())
            .map(|(target, assignment)| match assignment {
                Some((op, value)) => StmtKind::Assign { target, op, value },
                None => StmtKind::Expr(target),
            }),
    ))
    .map_with(|kind, extra| Spanned::new(kind, extra.span()));
    let step = choice((
        bare_step.or_not().then_ignore(token(Token::RParen)),
        stmt.clone().map(Some).then_ignore(token(Token::RParen)),
    ));
    keyword(Keyword::For)
        .ignore_then(token(Token::LParen))
        .ignore_then(stmt.clone())
        .then(expr.clone())
        .then_ignore(token(Token::Semicolon))
        .then(step)
        .then(choice((
            loop_body,
            rules.braced_stmts.clone(),
            stmt.clone().map(|s| vec![s]),
        )))
        .map_with(|(((init, cond), step), body), extra| CFor {
            init,
            cond,
            step,
            body,
            span: extra.span(),
        })
        .map(|c| StmtKind::Seq(c.lower(None)))
        .boxed()
}

/// A C-style loop as parsed.
struct CFor {
    init: Stmt,
    cond: Expr,
    step: Option<Stmt>,
    body: Vec<Stmt>,
    span: Span,
}

impl CFor {
    /// The loop as Felix runs it: `init`, then while `cond` holds, `body` and `step`, where
    /// `continue` goes to `step`. In the core forms:
    ///
    /// ```text
    /// init; var started = false;
    /// label: repeat do
    ///   if started do step; done
    ///   started = true;
    ///   if not cond do break label; done
    ///   body
    /// done
    /// ```
    ///
    /// `started` and, without a label, `label` are names no program can write.
    fn lower(self, label: Option<SName>) -> Vec<Stmt> {
        let span = self.span;
        let at = |kind: StmtKind| Spanned::new(kind, span);
        let flag = format!("for({})", span.start);
        let label = label.unwrap_or_else(|| Spanned::new(flag.clone(), span));
        let flag_expr = || Spanned::new(ExprKind::Name(flag.clone()), span);
        let boolean = |b: bool| Spanned::new(ExprKind::Bool(b), span);
        let mut body = Vec::new();
        if let Some(step) = self.step {
            body.push(at(StmtKind::If {
                branches: vec![(flag_expr(), vec![step])],
                otherwise: None,
            }));
        }
        body.push(at(StmtKind::Assign {
            target: flag_expr(),
            op: AssignOp::Set,
            value: boolean(true),
        }));
        let cond_span = self.cond.span;
        let negated = Spanned::new(ExprKind::Unary(UnOp::Not, Box::new(self.cond)), cond_span);
        body.push(at(StmtKind::If {
            branches: vec![(negated, vec![at(StmtKind::Break(label.clone()))])],
            otherwise: None,
        }));
        body.extend(self.body);
        vec![
            self.init,
            at(StmtKind::Var {
                name: Spanned::new(flag.clone(), span),
                ty: None,
                init: Some(boolean(false)),
            }),
            at(StmtKind::Repeat {
                label: Some(label),
                body,
            }),
        ]
    }
}

/// Gives a labelled C-style loop its label: the loop parser sees the label after the loop.
pub(super) fn label_c_for(kind: &mut StmtKind, label: Option<SName>) -> bool {
    let StmtKind::Seq(stmts) = kind else {
        return false;
    };
    let Some(Spanned {
        node: StmtKind::Repeat { label: slot, body },
        ..
    }) = stmts.last_mut()
    else {
        return false;
    };
    let Some(label) = label else {
        return true;
    };
    let Some(old) = slot.replace(label.clone()) else {
        return true;
    };
    relabel(body, &old.node, &label);
    true
}

/// Points the `break` of a C-style loop's test at its label.
fn relabel(body: &mut [Stmt], old: &str, new: &SName) {
    for s in body {
        if let StmtKind::If { branches, .. } = &mut s.node {
            for (_, stmts) in branches {
                for t in stmts.iter_mut() {
                    if matches!(&t.node, StmtKind::Break(l) if l.node == old) {
                        t.node = StmtKind::Break(new.clone());
                    }
                }
            }
        }
    }
}

/// `fun f : A -> B = | p => e | q => e';` (also `gen`, `cfun`, and with type parameters
/// `fun f[T] : …`): a function of one parameter `_a : A` whose body is `match _a with | p => e
/// | q => e' endmatch`, as Felix defines it. A curried type `A -> B -> C` gives a function of
/// `A` whose arms return functions `B -> C`.
pub(super) fn matching_function<'t>(
    rules: &Rules<'t>,
    type_params: BoxedParser<'t, Vec<TypeParam>>,
    arm_patterns: BoxedParser<'t, (Vec<Pattern>, Option<Expr>)>,
) -> BoxedParser<'t, Stmt> {
    matching_definition(rules, type_params, arm_patterns)
        .then_ignore(token(Token::Semicolon))
        .map_with(|def, extra| {
            let kind = match def {
                Some(def) => StmtKind::Fun(std::sync::Arc::new(FunDef {
                    span: extra.span(),
                    ..def
                })),
                None => StmtKind::Error,
            };
            Spanned::new(kind, extra.span())
        })
        .boxed()
}

/// The definition of `matching_function` without its `;` (also the function of `let fun f
/// : A -> B = | p => e in body`); `None` after the error of a type that is not `A -> B`.
pub(super) fn matching_definition<'t>(
    rules: &Rules<'t>,
    type_params: BoxedParser<'t, Vec<TypeParam>>,
    arm_patterns: BoxedParser<'t, (Vec<Pattern>, Option<Expr>)>,
) -> BoxedParser<'t, Option<FunDef>> {
    let arm = arm_patterns
        .then(rules.expr.clone())
        .map_with(|((patterns, guard), body), extra| MatchArm {
            patterns,
            guard,
            body,
            span: extra.span(),
        });
    choice((
        keyword(Keyword::Fun).to(FunKind::Fun),
        keyword(Keyword::Cfun).to(FunKind::Fun),
        keyword(Keyword::Gen).to(FunKind::Gen),
    ))
    .then(name())
    .then(type_params.or_not())
    .then_ignore(token(Token::Colon))
    .then(rules.type_expr.clone())
    .then_ignore(token(Token::Assign))
    .then(arm.repeated().at_least(1).collect::<Vec<_>>())
    .validate(
        |((((kind, name), type_params), ty), arms), extra, emitter| {
            let span: Span = extra.span();
            let TypeExprKind::Fun(domain, result) = ty.node else {
                emitter.emit(coded_error(
                    ty.span,
                    "E0100",
                    "a function defined by matching needs a function type `A -> B`",
                    Some("write `fun f : int -> string = | 0 => \"zero\" | _ => \"other\";`"),
                ));
                return None;
            };
            // A value no arm matches is reported at the head: `f : A -> B`.
            let head = name.span.to(ty.span);
            let parameter = Spanned::new("_a".to_string(), domain.span);
            let scrutinee = Spanned::new(ExprKind::Name("_a".to_string()), head);
            let body = Spanned::new(ExprKind::Match(Box::new(scrutinee), arms), span);
            Some(FunDef {
                kind,
                name: Some(name),
                type_params: type_params.unwrap_or_default(),
                params: vec![ParamGroup {
                    span: domain.span,
                    params: vec![Param {
                        name: parameter,
                        ty: *domain,
                    }],
                }],
                ret: Some(*result),
                body: FunBody::Expr(body).into(),
                span,
            })
        },
    )
    .boxed()
}
