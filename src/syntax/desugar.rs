//! Surface forms the parser rewrites into the core statements: destructuring
//! definitions and assignments (`a, (b, c) := e;`, `val a, b = e;`, `a, b = b, a;`, `def`),
//! nested tuple parameters and `{ … }` closures.
//!
//! The value being destructured is bound once to a hidden `val` whose name (`$t…`) no source
//! program can spell, and each name then takes an [`ExprKind::Component`] of it, which the checker
//! verifies against the value's component count (E0301).

use crate::syntax::ast::*;
use crate::syntax::span::{Span, Spanned};

/// How a name on the left of a destructuring form receives its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bind {
    /// `val n` (and every name of `:=` and `val a, b = e`).
    Val,
    /// `var n`.
    Var,
    /// An existing variable, assigned (tuple assignment, a bare name in `def`).
    Assign,
}

/// The left side of a destructuring form.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Name {
        bind: Bind,
        name: SName,
        ty: Option<TypeExpr>,
    },
    /// `_`: the component is evaluated and dropped.
    Ignore(Span),
    Tuple(Vec<Target>, Span),
}

impl Target {
    fn span(&self) -> Span {
        match self {
            Target::Name { name, .. } => name.span,
            Target::Ignore(span) | Target::Tuple(_, span) => *span,
        }
    }
}

/// The hidden name of the value a destructuring form at `span` takes apart.
fn hidden_name(span: Span, suffix: &str) -> String {
    format!("$t{}{suffix}", span.start)
}

/// The left side `a, (b, c)` of `:=` or of a tuple assignment as a target; `Err` with the span
/// of the first part that is neither a name nor a parenthesised list of names.
pub fn target_of_expr(e: &Expr, bind: Bind) -> Result<Target, Span> {
    match &e.node {
        ExprKind::Name(n) if n == "_" => Ok(Target::Ignore(e.span)),
        ExprKind::Name(n) => Ok(Target::Name {
            bind,
            name: Spanned::new(n.clone(), e.span),
            ty: None,
        }),
        ExprKind::Tuple(items) => Ok(Target::Tuple(
            items
                .iter()
                .map(|item| target_of_expr(item, bind))
                .collect::<Result<_, _>>()?,
            e.span,
        )),
        _ => Err(e.span),
    }
}

/// `target = init` as statements of the enclosing scope.
pub fn destructure(target: Target, init: Expr, span: Span) -> StmtKind {
    let mut out = Vec::new();
    bind_target(target, init, span, "", &mut out);
    StmtKind::Seq(out)
}

fn bind_target(target: Target, value: Expr, span: Span, path: &str, out: &mut Vec<Stmt>) {
    match target {
        Target::Name { bind, name, ty } => {
            let name_span = name.span;
            let kind = match bind {
                Bind::Val => StmtKind::Val {
                    name,
                    ty,
                    init: value,
                    sizes: Vec::new(),
                },
                Bind::Var => StmtKind::Var {
                    name,
                    ty,
                    init: Some(value),
                },
                Bind::Assign => {
                    let target = Spanned::new(ExprKind::Name(name.node.clone()), name.span);
                    StmtKind::Assign {
                        target,
                        op: AssignOp::Set,
                        value,
                    }
                }
            };
            // Each definition has a span of its own: the checker finds hoisted declarations by
            // their statement's span.
            out.push(Spanned::new(kind, name_span));
        }
        Target::Ignore(_) => {}
        Target::Tuple(parts, tuple_span) => {
            // The value is evaluated once, before any component is bound or assigned, so
            // `a, b = b, a;` swaps.
            let hidden = hidden_name(span, path);
            out.push(Spanned::new(
                StmtKind::Val {
                    name: Spanned::new(hidden.clone(), tuple_span),
                    ty: None,
                    init: value,
                    sizes: Vec::new(),
                },
                tuple_span,
            ));
            let count = parts.len() as u32;
            for (index, part) in parts.into_iter().enumerate() {
                let part_span = part.span();
                let component = Spanned::new(
                    ExprKind::Component {
                        tuple: Box::new(Spanned::new(ExprKind::Name(hidden.clone()), tuple_span)),
                        index: index as u32,
                        count,
                    },
                    part_span,
                );
                bind_target(part, component, span, &format!("{path}_{index}"), out);
            }
        }
    }
}

/// One parameter as written: `x : T` or a parenthesised list of parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamItem {
    Simple(Param),
    /// `var x : T`: a mutable, addressable local initialised from the argument.
    Var(Param),
    Nested(Vec<ParamItem>, Span),
}

/// A parameter group with nested lists replaced by hidden parameters of the tuple type, and the
/// statements that bind the nested names at entry.
pub fn lower_params(items: Vec<ParamItem>, span: Span) -> (ParamGroup, Vec<Stmt>) {
    let mut params = Vec::with_capacity(items.len());
    let mut prelude = Vec::new();
    for item in items {
        match item {
            ParamItem::Simple(p) => params.push(p),
            ParamItem::Var(p) => {
                let span = p.name.span;
                let hidden = format!("$v{}", span.start);
                let value = Spanned::new(ExprKind::Name(hidden.clone()), span);
                prelude.push(Spanned::new(
                    StmtKind::Var {
                        name: p.name,
                        ty: None,
                        init: Some(value),
                    },
                    span,
                ));
                params.push(Param {
                    name: Spanned::new(hidden, span),
                    ty: p.ty,
                });
            }
            ParamItem::Nested(inner, nested_span) => {
                let hidden = format!("$p{}", nested_span.start);
                let ty = item_type(&inner, nested_span);
                let target = item_target(&inner, nested_span);
                let value = Spanned::new(ExprKind::Name(hidden.clone()), nested_span);
                bind_target(target, value, nested_span, "", &mut prelude);
                params.push(Param {
                    name: Spanned::new(hidden, nested_span),
                    ty,
                });
            }
        }
    }
    (ParamGroup { params, span }, prelude)
}

fn item_type(items: &[ParamItem], span: Span) -> TypeExpr {
    let types: Vec<TypeExpr> = items
        .iter()
        .map(|item| match item {
            ParamItem::Simple(p) | ParamItem::Var(p) => p.ty.clone(),
            ParamItem::Nested(inner, s) => item_type(inner, *s),
        })
        .collect();
    match types.len() {
        0 => Spanned::new(TypeExprKind::Unit, span),
        1 => types.into_iter().next().expect("one type"),
        _ => Spanned::new(TypeExprKind::Product(types), span),
    }
}

fn item_target(items: &[ParamItem], span: Span) -> Target {
    let parts: Vec<Target> = items
        .iter()
        .map(|item| match item {
            ParamItem::Simple(p) => Target::Name {
                bind: Bind::Val,
                name: p.name.clone(),
                ty: None,
            },
            ParamItem::Var(p) => Target::Name {
                bind: Bind::Var,
                name: p.name.clone(),
                ty: None,
            },
            ParamItem::Nested(inner, s) => item_target(inner, *s),
        })
        .collect();
    if parts.len() == 1 {
        return parts.into_iter().next().expect("one part");
    }
    Target::Tuple(parts, span)
}

/// A function body with the statements binding nested parameters run first.
pub fn with_prelude(prelude: Vec<Stmt>, body: FunBody) -> FunBody {
    if prelude.is_empty() {
        return body;
    }
    match body {
        FunBody::Block(stmts) => FunBody::Block(prelude.into_iter().chain(stmts).collect()),
        FunBody::Expr(e) => {
            let span = e.span;
            let mut stmts = prelude;
            stmts.push(Spanned::new(StmtKind::Return(Some(e)), span));
            FunBody::Block(stmts)
        }
    }
}

/// `{ stmts }` as an expression: a function of `()`, a procedure unless one of its own
/// statements is `return e;`.
pub fn closure(body: Vec<Stmt>, span: Span) -> Expr {
    let kind = if returns_value(&body) {
        FunKind::Fun
    } else {
        FunKind::Proc
    };
    Spanned::new(
        ExprKind::Lambda(Box::new(FunDef {
            kind,
            name: None,
            type_params: Vec::new(),
            params: vec![ParamGroup {
                params: Vec::new(),
                span,
            }],
            ret: None,
            body: FunBody::Block(body).into(),
            span,
        })),
        span,
    )
}

/// Felix's block expression: the statements `stmts` (definitions), then the value of
/// `value`, as a function of `()` applied at once (`#{ stmts; return value; }`). `let fun f …
/// in e` is one.
pub fn block_value(stmts: Vec<Stmt>, value: Expr, span: Span) -> Expr {
    let mut body = stmts;
    body.push(Spanned::new(StmtKind::Return(Some(value)), span));
    // It returns a value, so it is a function.
    let func = closure(body, span);
    Spanned::new(
        ExprKind::Apply {
            func: Box::new(func),
            arg: Box::new(Spanned::new(ExprKind::Unit, span)),
            how: ApplyForm::Juxtapose,
        },
        span,
    )
}

/// Does a `return e;` of this body (not of a nested function) return a value?
fn returns_value(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.node {
        StmtKind::Return(value) => value.is_some(),
        StmtKind::If {
            branches,
            otherwise,
        } => {
            branches.iter().any(|(_, b)| returns_value(b))
                || otherwise.as_deref().is_some_and(returns_value)
        }
        StmtKind::While { body, .. }
        | StmtKind::Until { body, .. }
        | StmtKind::Repeat { body, .. }
        | StmtKind::For { body, .. }
        | StmtKind::Block(body)
        | StmtKind::Seq(body) => returns_value(body),
        StmtKind::Match(_, arms) => arms.iter().any(|a| returns_value(&a.body)),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str, at: usize) -> Expr {
        Spanned::new(ExprKind::Name(n.into()), Span::new(at, at + 1))
    }

    #[test]
    fn nested_targets_bind_each_name_to_a_component_of_one_hidden_value() {
        // a, (b, c) := e;
        let lhs = Spanned::new(
            ExprKind::Tuple(vec![
                name("a", 0),
                Spanned::new(
                    ExprKind::Tuple(vec![name("b", 4), name("c", 7)]),
                    Span::new(3, 9),
                ),
            ]),
            Span::new(0, 9),
        );
        let target = target_of_expr(&lhs, Bind::Val).expect("names only");
        let StmtKind::Seq(stmts) = destructure(target, name("e", 13), Span::new(0, 15)) else {
            panic!("a sequence");
        };
        let defined: Vec<String> = stmts
            .iter()
            .map(|s| match &s.node {
                StmtKind::Val { name, .. } => name.node.clone(),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(defined, ["$t0", "a", "$t0_1", "b", "c"]);
    }

    #[test]
    fn only_names_and_lists_of_names_are_targets() {
        let lhs = Spanned::new(
            ExprKind::Tuple(vec![
                name("a", 0),
                Spanned::new(
                    ExprKind::Int(IntLit {
                        value: Some(1),
                        suffix: String::new(),
                    }),
                    Span::new(3, 4),
                ),
            ]),
            Span::new(0, 4),
        );
        assert_eq!(target_of_expr(&lhs, Bind::Assign), Err(Span::new(3, 4)));
    }

    #[test]
    fn closures_are_procedures_unless_they_return_a_value() {
        let ret = |v: Option<Expr>| Spanned::new(StmtKind::Return(v), Span::new(0, 1));
        let kind = |body| match closure(body, Span::new(0, 1)).node {
            ExprKind::Lambda(f) => f.kind,
            _ => panic!("a lambda"),
        };
        assert_eq!(kind(vec![ret(None)]), FunKind::Proc);
        assert_eq!(kind(vec![ret(Some(name("x", 0)))]), FunKind::Fun);
    }
}
