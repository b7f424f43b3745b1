//! The last step of inferring the result types of recursive functions: once every
//! body of a unit is checked, the inference variables that stood for results still being
//! inferred are solved; this pass writes their solutions into the unit's IR, and reports the
//! functions whose result type nothing determined (E0302).

use std::sync::Arc;

use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir::{Expr, ExprKind, Function, PathStep, Prim, Stmt};
use crate::core::visit::{
    walk_expr, walk_expr_mut, walk_stmt_mut, walk_stmts, walk_stmts_mut, Visit, VisitMut,
};
use crate::types::ty::Type;

impl Checker {
    /// Zonk every type of the unit being checked (its top-level statements, its result
    /// expression and its functions), and report recursive functions whose result type is
    /// still unknown.
    pub(crate) fn resolve_recursive_results(
        &mut self,
        body: &mut [Stmt],
        result: Option<&mut Expr>,
    ) {
        for i in 0..self.funs.len() {
            let Some(m) = self.funs[i].ret_meta.clone() else {
                continue;
            };
            let solved = self.zonk(&m);
            if matches!(solved, Type::Meta(_)) {
                let name = self.funs[i].name.clone();
                self.error(CheckError::CannotInfer {
                    span: self.funs[i].span,
                    message: format!(
                        "cannot resolve the result type of `{name}`: every returned expression depends on a recursive call; declare it, e.g. `fun {name} (…) : int`"
                    ),
                });
                self.funs[i].ret = Some(crate::check::error_type());
            } else if let Some(r) = &self.funs[i].ret {
                let r = self.zonk(r);
                self.funs[i].ret = Some(r);
            }
        }
        self.zonk_unit(body, result);
    }

    /// E0302 for the first expression of the unit whose type nothing determined: a generic
    /// primitive used as a value that nothing instantiates (`println$ filter;`).
    pub(crate) fn report_unknown_types(&mut self, body: &[Stmt], result: Option<&Expr>) {
        struct FirstUnknown<'c>(&'c Checker, Option<(crate::syntax::span::Span, Type)>);
        impl<'ir> Visit<'ir> for FirstUnknown<'_> {
            fn visit_expr(&mut self, e: &'ir Expr) {
                if self.1.is_some() {
                    return;
                }
                if e.ty.has_meta() {
                    let t = self.0.zonk(&e.ty);
                    let mut unsolved = false;
                    t.walk(&mut |x| {
                        unsolved |= matches!(x, Type::Meta(m) if *m != crate::check::ERROR_META)
                    });
                    if unsolved {
                        self.1 = Some((e.span, t));
                        return;
                    }
                }
                walk_expr(self, e)
            }
        }
        let mut finder = FirstUnknown(self, None);
        walk_stmts(&mut finder, body);
        if let Some(e) = result {
            finder.visit_expr(e);
        }
        for (_, f) in &self.unit.out_funs {
            walk_stmts(&mut finder, &f.body);
        }
        if let Some((span, t)) = finder.1 {
            self.error(CheckError::CannotInfer {
                span,
                message: format!(
                    "cannot infer the type of this expression (`{}`): nothing in this unit fixes it; give the type arguments, as in `f[int]`, or declare the value's type",
                    t.with_unknowns_numbered()
                ),
            });
        }
    }

    /// Erase visibility from every type of the unit's IR: the evaluator sees the
    /// public type of the same values.
    pub(crate) fn erase_visibility(&mut self, body: &mut [Stmt], result: Option<&mut Expr>) {
        self.secret.erasing = true;
        self.zonk_unit(body, result);
        self.secret.erasing = false;
    }

    fn zonk_unit(&mut self, body: &mut [Stmt], result: Option<&mut Expr>) {
        walk_stmts_mut(&mut Zonk(self), body);
        if let Some(e) = result {
            Zonk(self).visit_expr_mut(e);
        }
        let mut funs = std::mem::take(&mut self.unit.out_funs);
        for (_, f) in funs.iter_mut() {
            let mut g: Function = (**f).clone();
            g.ret = self.zonk(&g.ret);
            if self.secret.erasing {
                g.ret = g.ret.erase_secret().erase_distributed();
            }
            for p in g.params.iter_mut() {
                Zonk(self).visit_pattern_mut(p);
            }
            walk_stmts_mut(&mut Zonk(self), &mut g.body);
            *f = Arc::new(g);
        }
        self.unit.out_funs = funs;
    }

    fn zonk_in_place(&self, t: &mut Type) {
        if t.has_meta() {
            *t = self.zonk(t);
        }
        if self.secret.erasing && t.has_secret() {
            *t = t.erase_secret();
        }
        if self.secret.erasing && t.has_distributed() {
            *t = t.erase_distributed();
        }
    }
}

/// The rewrite of every type of a unit's IR: inference variables solved, visibility erased
/// when `Checker::erasing`, operators whose operand types were unknown resolved.
struct Zonk<'c>(&'c mut Checker);

impl VisitMut for Zonk<'_> {
    fn visit_type_mut(&mut self, t: &mut Type) {
        self.0.zonk_in_place(t)
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let Stmt::Store { root_ty, path, .. } = s {
            if self.0.secret.erasing {
                erase_path(&self.0.zonk(root_ty), path);
            }
        }
        walk_stmt_mut(self, s)
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.0.secret.erasing {
            self.0.erase_components(e);
            match &mut e.kind {
                ExprKind::AddrOf { root_ty, path, .. } => erase_path(&self.0.zonk(root_ty), path),
                ExprKind::PtrProject { pointer, path } => {
                    if let Some((_, pointee)) = self.0.zonk(&pointer.ty).pointee() {
                        erase_path(pointee, path);
                    }
                }
                _ => {}
            }
        }
        walk_expr_mut(self, e);
        if let ExprKind::Prim(Prim::Unresolved(op), args) = &mut e.kind {
            let op = *op;
            let mut args = std::mem::take(args).into_iter();
            let (Some(x), Some(y)) = (args.next(), args.next()) else {
                return;
            };
            let resolved = self.0.binary_ir(op, x, y, e.span);
            self.0.unify(&resolved.ty, &e.ty);
            *e = resolved;
        }
    }
}

impl Checker {
    /// Erasing visibility can make a tuple type an array (`secret int * int` is a tuple,
    /// `int * int` the array `int ^ 2`): the tuple built or projected in the checker's terms
    /// becomes the array the evaluator expects for the erased type.
    fn erase_components(&mut self, e: &mut Expr) {
        if !matches!(e.kind, ExprKind::Field(..) | ExprKind::Tuple(..)) {
            return;
        }
        match &mut e.kind {
            ExprKind::Tuple(parts)
                if matches!(self.zonk(&e.ty).erase_secret(), Type::Array(..)) =>
            {
                e.kind = ExprKind::Array(std::mem::take(parts));
            }
            ExprKind::Field(x, k) => {
                let whole = self.zonk(&x.ty);
                if whole.has_secret() && matches!(whole.erase_secret(), Type::Array(..)) {
                    let index = crate::check::build::int_const(
                        *k as i64,
                        Type::Int(crate::types::ty::IntTy::Long),
                        e.span,
                    );
                    let array =
                        std::mem::replace(x, Box::new(crate::check::build::error_expr(e.span)));
                    e.kind = ExprKind::Index {
                        array,
                        index: Box::new(index),
                        mode: crate::core::ir::IndexMode::Linear,
                    };
                }
            }
            _ => {}
        }
    }
}

/// A store or address path over a value of the checker's type `root`: a component step into a
/// tuple that erases to an array becomes an index step (see `erase_components`).
fn erase_path(root: &Type, path: &mut [PathStep]) {
    let mut t = root.clone();
    for step in path.iter_mut() {
        let next = match step {
            PathStep::Field(k) => {
                let k = *k as usize;
                let component = t
                    .tuple_components()
                    .and_then(|cs| cs.get(k).cloned())
                    .or_else(|| {
                        t.record_fields()
                            .and_then(|mut fs| fs.nth(k).map(|(_, f)| f.clone()))
                    });
                if t.has_secret() && matches!(t.erase_secret(), Type::Array(..)) {
                    let span = crate::syntax::span::Span::default();
                    let index = crate::check::build::int_const(
                        k as i64,
                        Type::Int(crate::types::ty::IntTy::Long),
                        span,
                    );
                    *step = PathStep::Index(index, crate::core::ir::IndexMode::Linear);
                }
                component
            }
            PathStep::Index(..) => match &t {
                Type::Array(e, _) | Type::CArray(e, _) => Some((**e).clone()),
                _ => None,
            },
        };
        match next {
            Some(n) => t = n,
            None => return,
        }
    }
}
