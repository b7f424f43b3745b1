//! The IR validator: proves that what the checker hands to the evaluator is *concrete* — no
//! inference variable survives, every call passes exactly the parameter type (implicit
//! conversions are explicit `Widen`s), every kernel gets the operand types it was selected
//! for, as the primitive table declares them. Run by the checker after every unit in debug
//! builds (and so in every test) and with `--validate`; a violation is a checker bug.

use crate::core::ir::{
    Arm, CoerceKind, Expr, ExprKind, Function, IndexMode, Pattern, PatternKind, Prim, Stmt, Unit,
};
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
        v.function(f);
    }
    v.stmts(&unit.body);
    if let Some(e) = &unit.result {
        v.expr(e);
    }
    v.problems
}

struct Validator<'a> {
    problems: Vec<String>,
    table: &'a mut dyn Table,
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

    fn function(&mut self, f: &Function) {
        for p in &f.params {
            self.pattern(p);
        }
        self.stmts(&f.body);
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) | Stmt::Assign(_, e) => self.expr(e),
            Stmt::Store { path, value, .. } => {
                for step in path {
                    if let crate::core::ir::PathStep::Index(e, _) = step {
                        self.expr(e)
                    }
                }
                self.expr(value)
            }
            Stmt::StoreAt { pointer, value } => {
                self.expr(pointer);
                self.expr(value);
                match pointer.ty.pointee() {
                    Some((mode, t)) if mode.can_write() && *t == value.ty => {}
                    _ => self.problem(
                        pointer,
                        format!("store of `{}` through `{}`", value.ty, pointer.ty),
                    ),
                }
            }
            Stmt::If(c, a, b) => {
                self.bool(c);
                self.stmts(a);
                self.stmts(b)
            }
            Stmt::While { cond, body, .. } => {
                self.bool(cond);
                self.stmts(body)
            }
            Stmt::Loop { body, .. } | Stmt::ForCodes { body, .. } | Stmt::Block(body) => {
                self.stmts(body)
            }
            Stmt::ForRange {
                from,
                to,
                body,
                var_ty,
                ..
            } => {
                for e in [from, to] {
                    self.expr(e);
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
                self.stmts(body)
            }
            Stmt::ForArray { array, body, .. } => {
                self.expr(array);
                self.stmts(body)
            }
            Stmt::Return(e) => {
                if let Some(e) = e {
                    self.expr(e)
                }
            }
            Stmt::Match(e, arms) => {
                self.expr(e);
                for Arm {
                    patterns,
                    guard,
                    body,
                } in arms
                {
                    for p in patterns {
                        self.pattern(p)
                    }
                    if let Some(g) = guard {
                        self.bool(g)
                    }
                    self.stmts(body)
                }
            }
            Stmt::Break(_) | Stmt::Continue(_) => {}
        }
    }

    fn bool(&mut self, e: &Expr) {
        self.expr(e);
        if !e.ty.is_bool() {
            self.problem(e, format!("condition of type `{}`", e.ty));
        }
    }

    fn pattern(&mut self, p: &Pattern) {
        if p.ty.has_meta() {
            self.problems.push(format!(
                "{:?}: pattern of unresolved type `{}`",
                p.span, p.ty
            ));
        }
        match &p.kind {
            PatternKind::Tuple(ps) => ps.iter().for_each(|q| self.pattern(q)),
            PatternKind::Inject { arg: Some(a), .. }
            | PatternKind::CInject { arg: Some(a), .. } => self.pattern(a),
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        self.ty(e, &e.ty);
        match &e.kind {
            ExprKind::Call { func, args } => {
                self.expr(func);
                let mut t = func.ty.clone();
                for a in args {
                    self.expr(a);
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
            ExprKind::Prim(prim, args) => {
                for a in args {
                    self.expr(a);
                }
                self.prim(e, prim, args);
            }
            ExprKind::Tuple(xs) | ExprKind::Array(xs) | ExprKind::CTuple(xs) => {
                xs.iter().for_each(|x| self.expr(x))
            }
            ExprKind::Field(x, _) | ExprKind::CField(x, _) => self.expr(x),
            ExprKind::Coerce(kind, x) => {
                self.expr(x);
                if let Err(problem) = self.table.coercion(*kind, &x.ty, &e.ty) {
                    self.problem(e, problem);
                }
            }
            ExprKind::Inject { arg, .. } | ExprKind::CInject { arg, .. } => self.expr(arg),
            ExprKind::Index { array, index, mode } => {
                self.expr(array);
                self.expr(index);
                match (mode, &array.ty) {
                    (IndexMode::Linear, _) if !matches!(index.ty, Type::Int(_)) => {
                        self.problem(index, format!("linear index of type `{}`", index.ty))
                    }
                    (IndexMode::Code, Type::Array(_, i) | Type::CArray(_, i))
                        if **i != index.ty =>
                    {
                        self.problem(
                            index,
                            format!("index of type `{}` for an array over `{i}`", index.ty),
                        )
                    }
                    (_, Type::Array(..) | Type::CArray(..)) => {}
                    (_, t) => self.problem(array, format!("indexing a non-array `{t}`")),
                }
            }
            ExprKind::If(c, a, b) => {
                self.bool(c);
                self.expr(a);
                self.expr(b);
                if a.ty != e.ty || b.ty != e.ty {
                    self.problem(e, "branches of different types".into());
                }
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.bool(a);
                self.bool(b)
            }
            ExprKind::Match(s, arms) => {
                self.expr(s);
                for Arm {
                    patterns,
                    guard,
                    body,
                } in arms
                {
                    for p in patterns {
                        self.pattern(p)
                    }
                    if let Some(g) = guard {
                        self.bool(g)
                    }
                    self.expr(body);
                    if body.ty != e.ty {
                        self.problem(
                            body,
                            format!(
                                "match arm of type `{}` in a match of type `{}`",
                                body.ty, e.ty
                            ),
                        );
                    }
                }
            }
            ExprKind::MakeFun { type_args, .. } => {
                for t in type_args {
                    self.ty(e, t)
                }
            }
            ExprKind::TypeSize(t) => self.ty(e, t),
            ExprKind::AddrOf { path, .. } => {
                self.path(path);
                if e.ty.pointee().is_none() {
                    self.problem(e, format!("address typed `{}`", e.ty));
                }
            }
            ExprKind::PtrProject { pointer, path } => {
                self.expr(pointer);
                self.path(path);
                if pointer.ty.pointee().is_none() || e.ty.pointee().is_none() {
                    self.problem(e, format!("pointer projection from `{}`", pointer.ty));
                }
            }
            ExprKind::Deref(p) => {
                self.expr(p);
                match p.ty.pointee() {
                    Some((mode, t)) if mode.can_read() && *t == e.ty => {}
                    _ => self.problem(e, format!("dereference of `{}` typed `{}`", p.ty, e.ty)),
                }
            }
            ExprKind::PtrCast(p) => {
                self.expr(p);
                if p.ty.pointee().is_none() || e.ty.pointee().is_none() {
                    self.problem(e, format!("pointer cast from `{}`", p.ty));
                }
            }
            ExprKind::Inlined(inlined) => {
                self.stmts(&inlined.stmts);
                if let Some(result) = &inlined.result {
                    self.expr(result);
                }
            }
            ExprKind::MapLoop { array, body, .. } => {
                self.expr(array);
                self.expr(body);
            }
            _ => {}
        }
    }

    fn path(&mut self, path: &[crate::core::ir::PathStep]) {
        for step in path {
            if let crate::core::ir::PathStep::Index(x, _) = step {
                self.expr(x)
            }
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
