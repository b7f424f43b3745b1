//! Instantiation of generic functions: substituting concrete types for a function's declared
//! type parameters in every type the function's IR mentions.
//!
//! Architecture invariant: this is a pure tree rewrite of the IR; it knows nothing about
//! evaluation and never fails (a missing type argument leaves the variable in place).

use crate::core::ir::{Arm, Expr, ExprKind, Function, PathStep, Pattern, PatternKind, Stmt};
use crate::types::ty::{TyVar, Type};

/// The function `f` with `args[i]` substituted for `f.type_params[i]` everywhere: in every
/// `Expr::ty`, `Pattern::ty`, `MakeFun::type_args`, `TypeSize`, `ForCodes::ty`,
/// `Store::root_ty`, the parameter patterns and the result type. The returned function has no
/// type parameters left.
pub fn instantiate(f: &Function, args: &[Type]) -> Function {
    let substitution = Substitution {
        params: &f.type_params,
        args,
    };
    Function {
        name: f.name.clone(),
        kind: f.kind,
        span: f.span,
        type_params: Vec::new(),
        params: f.params.iter().map(|p| substitution.pattern(p)).collect(),
        ret: substitution.ty(&f.ret),
        n_slots: f.n_slots,
        cell_slots: f.cell_slots.clone(),
        captures: f.captures.clone(),
        body: f.body.iter().map(|s| substitution.stmt(s)).collect(),
        pure_: f.pure_,
    }
}

/// The pairing of type parameters with their arguments, applied recursively.
struct Substitution<'a> {
    params: &'a [TyVar],
    args: &'a [Type],
}

impl Substitution<'_> {
    fn ty(&self, ty: &Type) -> Type {
        if self.params.is_empty() || !ty.has_var() {
            return ty.clone();
        }
        let usable = self.params.len().min(self.args.len());
        ty.subst_vars(&self.params[..usable], &self.args[..usable])
    }

    fn expr(&self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Const(c) => ExprKind::Const(c.clone()),
            ExprKind::Zero => ExprKind::Zero,
            ExprKind::Local(s) => ExprKind::Local(*s),
            ExprKind::LocalCell(s) => ExprKind::LocalCell(*s),
            ExprKind::Global(s) => ExprKind::Global(*s),
            ExprKind::Capture(i) => ExprKind::Capture(*i),
            ExprKind::CaptureCell(i) => ExprKind::CaptureCell(*i),
            ExprKind::MakeFun { fun, type_args } => ExprKind::MakeFun {
                fun: *fun,
                type_args: type_args.iter().map(|t| self.ty(t)).collect(),
            },
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => ExprKind::Closure {
                fun: *fun,
                type_args: type_args.iter().map(|t| self.ty(t)).collect(),
                captures: captures.clone(),
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func: Box::new(self.expr(func)),
                args: self.exprs(args),
            },
            ExprKind::Prim(p, args) => ExprKind::Prim(p.clone(), self.exprs(args)),
            ExprKind::Tuple(es) => ExprKind::Tuple(self.exprs(es)),
            ExprKind::Array(es) => ExprKind::Array(self.exprs(es)),
            ExprKind::CTuple(es) => ExprKind::CTuple(self.exprs(es)),
            ExprKind::Field(x, i) => ExprKind::Field(Box::new(self.expr(x)), *i),
            ExprKind::CField(x, i) => ExprKind::CField(Box::new(self.expr(x)), *i),
            ExprKind::Index { array, index, mode } => ExprKind::Index {
                array: Box::new(self.expr(array)),
                index: Box::new(self.expr(index)),
                mode: *mode,
            },
            ExprKind::Inject { tag, arg } => ExprKind::Inject {
                tag: *tag,
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::CInject { tag, arg } => ExprKind::CInject {
                tag: *tag,
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::TypeSize(t) => ExprKind::TypeSize(self.ty(t)),
            ExprKind::Coerce(k, x) => ExprKind::Coerce(*k, Box::new(self.expr(x))),
            ExprKind::If(c, a, b) => ExprKind::If(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            ),
            ExprKind::And(a, b) => ExprKind::And(Box::new(self.expr(a)), Box::new(self.expr(b))),
            ExprKind::Or(a, b) => ExprKind::Or(Box::new(self.expr(a)), Box::new(self.expr(b))),
            ExprKind::Match(x, arms) => ExprKind::Match(
                Box::new(self.expr(x)),
                arms.iter().map(|a| self.arm(a, |b| self.expr(b))).collect(),
            ),
            ExprKind::AddrOf {
                place,
                root_ty,
                path,
            } => ExprKind::AddrOf {
                place: *place,
                root_ty: self.ty(root_ty),
                path: self.path(path),
            },
            ExprKind::PtrProject { pointer, path } => ExprKind::PtrProject {
                pointer: Box::new(self.expr(pointer)),
                path: self.path(path),
            },
            ExprKind::Deref(x) => ExprKind::Deref(Box::new(self.expr(x))),
            ExprKind::PtrCast(x) => ExprKind::PtrCast(Box::new(self.expr(x))),
            ExprKind::Inlined(inlined) => ExprKind::Inlined(Box::new(crate::core::ir::Inlined {
                frame: inlined.frame.clone(),
                call: inlined.call,
                stmts: self.stmts(&inlined.stmts),
                result: inlined.result.as_ref().map(|r| self.expr(r)),
            })),
            ExprKind::MapLoop { var, array, body } => ExprKind::MapLoop {
                var: *var,
                array: Box::new(self.expr(array)),
                body: Box::new(self.expr(body)),
            },
        };
        Expr {
            kind,
            ty: self.ty(&e.ty),
            span: e.span,
        }
    }

    fn path(&self, path: &[PathStep]) -> Vec<PathStep> {
        path.iter()
            .map(|step| match step {
                PathStep::Field(i) => PathStep::Field(*i),
                PathStep::Index(e, mode) => PathStep::Index(self.expr(e), *mode),
            })
            .collect()
    }

    fn exprs(&self, es: &[Expr]) -> Vec<Expr> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn arm<B, C>(&self, arm: &Arm<B>, body: impl Fn(&B) -> C) -> Arm<C> {
        Arm {
            patterns: arm.patterns.iter().map(|p| self.pattern(p)).collect(),
            guard: arm.guard.as_ref().map(|g| self.expr(g)),
            body: body(&arm.body),
        }
    }

    fn pattern(&self, p: &Pattern) -> Pattern {
        let kind = match &p.kind {
            PatternKind::Wildcard => PatternKind::Wildcard,
            PatternKind::Bind(place) => PatternKind::Bind(*place),
            PatternKind::Const(c) => PatternKind::Const(c.clone()),
            PatternKind::Range(lo, hi) => PatternKind::Range(lo.clone(), hi.clone()),
            PatternKind::Tuple(ps) => {
                PatternKind::Tuple(ps.iter().map(|q| self.pattern(q)).collect())
            }
            PatternKind::Inject { tag, arg } => PatternKind::Inject {
                tag: *tag,
                arg: arg.as_ref().map(|a| Box::new(self.pattern(a))),
            },
            PatternKind::CInject { tag, arg } => PatternKind::CInject {
                tag: *tag,
                arg: arg.as_ref().map(|a| Box::new(self.pattern(a))),
            },
        };
        Pattern {
            kind,
            ty: self.ty(&p.ty),
            span: p.span,
        }
    }

    fn stmts(&self, ss: &[Stmt]) -> Vec<Stmt> {
        ss.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Expr(e) => Stmt::Expr(self.expr(e)),
            Stmt::Assign(place, e) => Stmt::Assign(*place, self.expr(e)),
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => Stmt::Store {
                place: *place,
                root_ty: self.ty(root_ty),
                path: self.path(path),
                value: self.expr(value),
            },
            Stmt::StoreAt { pointer, value } => Stmt::StoreAt {
                pointer: self.expr(pointer),
                value: self.expr(value),
            },
            Stmt::If(c, a, b) => Stmt::If(self.expr(c), self.stmts(a), self.stmts(b)),
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => Stmt::While {
                label: *label,
                cond: self.expr(cond),
                until: *until,
                body: self.stmts(body),
            },
            Stmt::Loop { label, body } => Stmt::Loop {
                label: *label,
                body: self.stmts(body),
            },
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => Stmt::ForRange {
                label: *label,
                var: *var,
                var_ty: *var_ty,
                from: self.expr(from),
                to: self.expr(to),
                kind: *kind,
                body: self.stmts(body),
            },
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => Stmt::ForCodes {
                label: *label,
                var: *var,
                ty: self.ty(ty),
                body: self.stmts(body),
            },
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => Stmt::ForArray {
                label: *label,
                var: *var,
                array: self.expr(array),
                body: self.stmts(body),
            },
            Stmt::Break(l) => Stmt::Break(*l),
            Stmt::Continue(l) => Stmt::Continue(*l),
            Stmt::Return(e) => Stmt::Return(e.as_ref().map(|x| self.expr(x))),
            Stmt::Match(e, arms) => Stmt::Match(
                self.expr(e),
                arms.iter()
                    .map(|a| self.arm(a, |b| self.stmts(b)))
                    .collect(),
            ),
            Stmt::Block(ss) => Stmt::Block(self.stmts(ss)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ir::Place;
    use crate::syntax::ast::FunKind;
    use crate::syntax::span::Span;
    use crate::types::ty::Kind;
    use std::sync::Arc;

    #[test]
    fn substitutes_every_type_position() {
        let t = TyVar {
            id: 7,
            name: Arc::from("T"),
            kind: Kind::CompactLinear,
        };
        let var = Type::Var(t.clone());
        let array_of_var = Type::array(Type::INT, var.clone());
        let f = Function {
            name: "f".into(),
            kind: FunKind::Fun,
            span: Span::default(),
            type_params: vec![t],
            params: vec![Pattern {
                kind: PatternKind::Bind(Place::Local(0)),
                ty: array_of_var.clone(),
                span: Span::default(),
            }],
            ret: var.clone(),
            n_slots: 1,
            cell_slots: vec![],
            captures: vec![],
            body: vec![
                Stmt::ForCodes {
                    label: 0,
                    var: Place::Local(0),
                    ty: var.clone(),
                    body: vec![],
                },
                Stmt::Return(Some(Expr {
                    kind: ExprKind::TypeSize(var.clone()),
                    ty: Type::SIZE,
                    span: Span::default(),
                })),
            ],
            pure_: true,
        };
        let three = Type::Unitsum(3);
        let g = instantiate(&f, std::slice::from_ref(&three));
        assert!(g.type_params.is_empty());
        assert_eq!(g.ret, three);
        assert_eq!(g.params[0].ty, Type::array(Type::INT, three.clone()));
        match &g.body[0] {
            Stmt::ForCodes { ty, .. } => assert_eq!(*ty, three),
            other => panic!("unexpected statement {other:?}"),
        }
        match &g.body[1] {
            Stmt::Return(Some(Expr {
                kind: ExprKind::TypeSize(ty),
                ..
            })) => assert_eq!(*ty, three),
            other => panic!("unexpected statement {other:?}"),
        }
    }
}
