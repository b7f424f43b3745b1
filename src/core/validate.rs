//! The IR validator: proves that what the checker hands to the evaluator is *concrete* — no
//! inference variable survives, every call passes exactly the parameter type (implicit
//! conversions are explicit `Widen`s), every kernel gets the operand types it was selected
//! for, as the primitive table declares them. Run by the checker after every unit in debug
//! builds (and so in every test) and with `--validate`; a violation is a checker bug.

use crate::core::ir::{CoerceKind, Expr, ExprKind, IndexMode, Pattern, Prim, Stmt, Unit};
use crate::core::visit::{walk_expr, walk_pattern, walk_stmt, walk_stmts, Visit};
use crate::types::ty::Type;

/// The primitive table as the validator asks it; the checker implements it with
/// `check::prims::check_kernel` and `Checker::check_coercion`.
pub trait Table {
    /// Does the table admit kernel `prim` on these operand types with this result type?
    fn kernel(&mut self, prim: &Prim, args: &[Type], result: &Type) -> Result<(), String>;
    /// Does the table select coercion `kind` from `from` to `to` (`e :>> T`)?
    fn coercion(&mut self, kind: CoerceKind, from: &Type, to: &Type) -> Result<(), String>;
}

/// Every problem found in a unit (empty when the unit is well formed).
pub fn validate_unit(unit: &Unit, table: &mut dyn Table) -> Vec<String> {
    let mut v = Validator {
        problems: Vec::new(),
        table,
    };
    for (_, f) in &unit.functions {
        for p in &f.params {
            v.visit_pattern(p);
        }
        walk_stmts(&mut v, &f.body);
    }
    walk_stmts(&mut v, &unit.body);
    if let Some(e) = &unit.result {
        v.visit_expr(e);
    }
    v.problems
}

struct Validator<'a> {
    problems: Vec<String>,
    table: &'a mut dyn Table,
}

impl Visit<'_> for Validator<'_> {
    fn visit_pattern(&mut self, p: &Pattern) {
        if p.ty.has_meta() {
            self.problems.push(format!(
                "{:?}: pattern of unresolved type `{}`",
                p.span, p.ty
            ));
        }
        walk_pattern(self, p)
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        walk_stmt(self, s);
        match s {
            Stmt::StoreAt { pointer, value } => match pointer.ty.pointee() {
                Some((mode, t)) if mode.can_write() && *t == value.ty => {}
                _ => self.problem(
                    pointer,
                    format!("store of `{}` through `{}`", value.ty, pointer.ty),
                ),
            },
            Stmt::If(c, ..) | Stmt::While { cond: c, .. } => self.bool(c),
            Stmt::ForRange {
                from, to, var_ty, ..
            } => {
                for e in [from, to] {
                    if e.ty != Type::Int(*var_ty) {
                        self.problem(
                            e,
                            format!(
                                "loop bound of type `{}` for a `{}` variable",
                                e.ty,
                                var_ty.name()
                            ),
                        );
                    }
                }
            }
            Stmt::Match(_, arms) => {
                for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
                    self.bool(guard)
                }
            }
            _ => {}
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        self.ty(e, &e.ty);
        match &e.kind {
            ExprKind::MakeFun { type_args, .. } => {
                for t in type_args {
                    self.ty(e, t)
                }
            }
            ExprKind::TypeSize(t) => self.ty(e, t),
            _ => {}
        }
        walk_expr(self, e);
        self.check(e);
    }
}

impl Validator<'_> {
    fn problem(&mut self, e: &Expr, what: String) {
        self.problems.push(format!("{:?}: {what}", e.span));
    }

    fn ty(&mut self, e: &Expr, t: &Type) {
        if t.has_meta() {
            self.problem(e, format!("unresolved inference variable in `{t}`"));
        }
    }

    /// The typing rules of `e` over its operands' types (the operands were visited).
    fn check(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Call { func, args } => {
                let mut t = func.ty.clone();
                for a in args {
                    match t {
                        Type::Fun(p, r) => {
                            if *p != a.ty {
                                self.problem(
                                    a,
                                    format!("argument of type `{}` where `{p}` is expected", a.ty),
                                );
                            }
                            t = (*r).clone();
                        }
                        other => {
                            self.problem(e, format!("call of a non-function `{other}`"));
                            return;
                        }
                    }
                }
                if t != e.ty {
                    self.problem(
                        e,
                        format!("call typed `{}` but the function gives `{t}`", e.ty),
                    );
                }
            }
            ExprKind::Prim(prim, args) => self.prim(e, prim, args),
            ExprKind::Coerce(kind, x) => {
                if let Err(problem) = self.table.coercion(*kind, &x.ty, &e.ty) {
                    self.problem(e, problem);
                }
            }
            ExprKind::Index { array, index, mode } => match (mode, &array.ty) {
                (IndexMode::Linear, _) if !matches!(index.ty, Type::Int(_)) => {
                    self.problem(index, format!("linear index of type `{}`", index.ty))
                }
                (IndexMode::Code, Type::Array(_, i) | Type::CArray(_, i)) if **i != index.ty => {
                    self.problem(
                        index,
                        format!("index of type `{}` for an array over `{i}`", index.ty),
                    )
                }
                (_, Type::Array(..) | Type::CArray(..)) => {}
                (_, t) => self.problem(array, format!("indexing a non-array `{t}`")),
            },
            ExprKind::If(c, a, b) => {
                self.bool(c);
                if a.ty != e.ty || b.ty != e.ty {
                    self.problem(e, "branches of different types".into());
                }
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.bool(a);
                self.bool(b)
            }
            ExprKind::Match(_, arms) => {
                for arm in arms {
                    if let Some(g) = &arm.guard {
                        self.bool(g)
                    }
                    if arm.body.ty != e.ty {
                        self.problem(
                            &arm.body,
                            format!(
                                "match arm of type `{}` in a match of type `{}`",
                                arm.body.ty, e.ty
                            ),
                        );
                    }
                }
            }
            ExprKind::AddrOf { .. } if e.ty.pointee().is_none() => {
                self.problem(e, format!("address typed `{}`", e.ty));
            }
            ExprKind::PtrProject { pointer, .. }
                if pointer.ty.pointee().is_none() || e.ty.pointee().is_none() =>
            {
                self.problem(e, format!("pointer projection from `{}`", pointer.ty));
            }
            ExprKind::Deref(p) => match p.ty.pointee() {
                Some((mode, t)) if mode.can_read() && *t == e.ty => {}
                _ => self.problem(e, format!("dereference of `{}` typed `{}`", p.ty, e.ty)),
            },
            ExprKind::PtrCast(p) if p.ty.pointee().is_none() || e.ty.pointee().is_none() => {
                self.problem(e, format!("pointer cast from `{}`", p.ty));
            }
            _ => {}
        }
    }

    /// A condition (its expression was visited): it must be a `bool`.
    fn bool(&mut self, e: &Expr) {
        if !e.ty.is_bool() {
            self.problem(e, format!("condition of type `{}`", e.ty));
        }
    }

    /// A kernel with its operand and result types: the table's entries that own it decide
    /// (their schemes, classes, functors and side conditions).
    fn prim(&mut self, e: &Expr, prim: &Prim, args: &[Expr]) {
        let types: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        if let Err(problem) = self.table.kernel(prim, &types, &e.ty) {
            self.problem(e, problem);
        }
    }
}
