//! The last step of inferring the result types of recursive functions (L11.34): once every
//! body of a unit is checked, the inference variables that stood for results still being
//! inferred are solved; this pass writes their solutions into the unit's IR, and reports the
//! functions whose result type nothing determined (E0302).

use std::sync::Arc;

use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir::{Arm, Expr, ExprKind, Function, PathStep, Pattern, PatternKind, Prim, Stmt};
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

    /// Erase visibility from every type of the unit's IR (issue 14): the evaluator sees the
    /// public type of the same values.
    pub(crate) fn erase_visibility(&mut self, body: &mut [Stmt], result: Option<&mut Expr>) {
        self.secret.erasing = true;
        self.zonk_unit(body, result);
        self.secret.erasing = false;
    }

    fn zonk_unit(&mut self, body: &mut [Stmt], result: Option<&mut Expr>) {
        for s in body.iter_mut() {
            self.zonk_stmt(s);
        }
        if let Some(e) = result {
            self.zonk_expr(e);
        }
        let mut funs = std::mem::take(&mut self.unit.out_funs);
        for (_, f) in funs.iter_mut() {
            let mut g: Function = (**f).clone();
            g.ret = self.zonk(&g.ret);
            if self.secret.erasing {
                g.ret = g.ret.erase_secret();
            }
            for p in g.params.iter_mut() {
                self.zonk_pattern(p);
            }
            for s in g.body.iter_mut() {
                self.zonk_stmt(s);
            }
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
    }

    fn zonk_expr(&mut self, e: &mut Expr) {
        if self.secret.erasing {
            self.erase_components(e);
        }
        self.zonk_in_place(&mut e.ty);
        match &mut e.kind {
            ExprKind::Const(_)
            | ExprKind::Zero
            | ExprKind::Local(_)
            | ExprKind::LocalCell(_)
            | ExprKind::Global(_)
            | ExprKind::Capture(_)
            | ExprKind::CaptureCell(_) => {}
            ExprKind::MakeFun { type_args, .. } | ExprKind::Closure { type_args, .. } => {
                for t in type_args {
                    self.zonk_in_place(t);
                }
            }
            ExprKind::TypeSize(t) => self.zonk_in_place(t),
            ExprKind::Call { func, args } => {
                self.zonk_expr(func);
                for a in args {
                    self.zonk_expr(a);
                }
            }
            ExprKind::Prim(_, args)
            | ExprKind::Tuple(args)
            | ExprKind::Array(args)
            | ExprKind::CTuple(args) => {
                for a in args {
                    self.zonk_expr(a);
                }
            }
            ExprKind::AddrOf { root_ty, path, .. } => {
                if self.secret.erasing {
                    erase_path(&self.zonk(root_ty), path);
                }
                self.zonk_in_place(root_ty);
                for step in path {
                    if let PathStep::Index(e, _) = step {
                        self.zonk_expr(e);
                    }
                }
            }
            ExprKind::PtrProject { pointer, path } => {
                if self.secret.erasing {
                    if let Some((_, pointee)) = self.zonk(&pointer.ty).pointee() {
                        erase_path(pointee, path);
                    }
                }
                self.zonk_expr(pointer);
                for step in path {
                    if let PathStep::Index(e, _) = step {
                        self.zonk_expr(e);
                    }
                }
            }
            ExprKind::Field(x, _)
            | ExprKind::CField(x, _)
            | ExprKind::Deref(x)
            | ExprKind::PtrCast(x)
            | ExprKind::Coerce(_, x)
            | ExprKind::Inject { arg: x, .. }
            | ExprKind::CInject { arg: x, .. } => self.zonk_expr(x),
            ExprKind::Index { array, index, .. } => {
                self.zonk_expr(array);
                self.zonk_expr(index);
            }
            ExprKind::If(c, a, b) => {
                self.zonk_expr(c);
                self.zonk_expr(a);
                self.zonk_expr(b);
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.zonk_expr(a);
                self.zonk_expr(b);
            }
            ExprKind::Match(scrutinee, arms) => {
                self.zonk_expr(scrutinee);
                for arm in arms {
                    self.zonk_arm(arm, |c, b| c.zonk_expr(b));
                }
            }
            ExprKind::Inlined(inlined) => {
                self.zonk_stmts(&mut inlined.stmts);
                if let Some(result) = &mut inlined.result {
                    self.zonk_expr(result);
                }
            }
            ExprKind::MapLoop { array, body, .. } => {
                self.zonk_expr(array);
                self.zonk_expr(body);
            }
        }
        if let ExprKind::Prim(Prim::Unresolved(op), args) = &mut e.kind {
            let op = *op;
            let mut args = std::mem::take(args).into_iter();
            let (Some(x), Some(y)) = (args.next(), args.next()) else {
                return;
            };
            let resolved = self.binary_ir(op, x, y, e.span);
            self.unify(&resolved.ty, &e.ty);
            *e = resolved;
        }
    }

    fn zonk_arm<B>(&mut self, arm: &mut Arm<B>, body: impl Fn(&mut Checker, &mut B)) {
        for p in arm.patterns.iter_mut() {
            self.zonk_pattern(p);
        }
        if let Some(g) = &mut arm.guard {
            self.zonk_expr(g);
        }
        body(self, &mut arm.body);
    }

    fn zonk_pattern(&self, p: &mut Pattern) {
        self.zonk_in_place(&mut p.ty);
        match &mut p.kind {
            PatternKind::Tuple(parts) => {
                for q in parts {
                    self.zonk_pattern(q);
                }
            }
            PatternKind::Inject { arg: Some(a), .. }
            | PatternKind::CInject { arg: Some(a), .. } => self.zonk_pattern(a),
            _ => {}
        }
    }

    fn zonk_stmts(&mut self, stmts: &mut [Stmt]) {
        for s in stmts {
            self.zonk_stmt(s);
        }
    }

    fn zonk_stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Expr(e) | Stmt::Assign(_, e) | Stmt::Return(Some(e)) => self.zonk_expr(e),
            Stmt::Return(None) | Stmt::Break(_) | Stmt::Continue(_) => {}
            Stmt::Store {
                root_ty,
                path,
                value,
                ..
            } => {
                if self.secret.erasing {
                    erase_path(&self.zonk(root_ty), path);
                }
                self.zonk_in_place(root_ty);
                for step in path {
                    if let PathStep::Index(e, _) = step {
                        self.zonk_expr(e);
                    }
                }
                self.zonk_expr(value);
            }
            Stmt::StoreAt { pointer, value } => {
                self.zonk_expr(pointer);
                self.zonk_expr(value);
            }
            Stmt::If(c, a, b) => {
                self.zonk_expr(c);
                self.zonk_stmts(a);
                self.zonk_stmts(b);
            }
            Stmt::While { cond, body, .. } => {
                self.zonk_expr(cond);
                self.zonk_stmts(body);
            }
            Stmt::Loop { body, .. } | Stmt::Block(body) => self.zonk_stmts(body),
            Stmt::ForRange { from, to, body, .. } => {
                self.zonk_expr(from);
                self.zonk_expr(to);
                self.zonk_stmts(body);
            }
            Stmt::ForCodes { ty, body, .. } => {
                self.zonk_in_place(ty);
                self.zonk_stmts(body);
            }
            Stmt::ForArray { array, body, .. } => {
                self.zonk_expr(array);
                self.zonk_stmts(body);
            }
            Stmt::Match(scrutinee, arms) => {
                self.zonk_expr(scrutinee);
                for arm in arms {
                    self.zonk_arm(arm, |c, b| c.zonk_stmts(b));
                }
            }
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
                    let index = crate::check::expr::int_const(
                        *k as i64,
                        Type::Int(crate::types::ty::IntTy::Long),
                        e.span,
                    );
                    let array =
                        std::mem::replace(x, Box::new(crate::check::expr::error_expr(e.span)));
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
                    let index = crate::check::expr::int_const(
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
