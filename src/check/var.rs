//! Variables: their types (inferred on demand), how a frame reaches them (locals, globals,
//! captures), assignment and stores.

use crate::check::env::{Binding, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::project::Projection;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, Capture, IndexMode, PathStep, Place};
use crate::syntax::ast::{self, AssignOp, ExprKind, ForKind, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::Type;

impl Checker {
    pub(crate) fn set_var_type(&mut self, vb: &VarBinding, name: &str, t: Type) {
        if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
            if v.loc == vb.loc {
                v.ty = VarType::Known(t);
            }
        }
    }

    /// The type of a variable, checking its declaration's initialiser now if it has not been
    /// reached yet (hoisting: a function may use a variable defined later).
    pub(crate) fn var_type(&mut self, name: &str, vb: &VarBinding, span: Span) -> Type {
        match &vb.ty {
            VarType::Known(t) => t.clone(),
            VarType::InProgress => {
                self.type_error(span, format!("`{name}` is used in its own initialiser"));
                error_type()
            }
            VarType::Pending => {
                let Some(decl) = vb.decl.clone() else {
                    return error_type();
                };
                if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
                    v.ty = VarType::InProgress;
                }
                let saved = (self.scope, self.frame);
                self.scope = vb.scope;
                self.frame = vb.loc.frame;
                // The variables whose own initialisers are being checked are hidden from
                // those initialisers only, not from this one's.
                let hidden = std::mem::take(&mut self.unit.hidden);
                let n_errors = self.unit.errors.len();
                let (n_fresh, n_pre) = (self.unit.fresh_sizes.len(), self.unit.pre_stmts.len());
                let t = match &decl.node {
                    StmtKind::Var { init: Some(e), .. } | StmtKind::Val { init: e, .. } => {
                        self.initialiser(vb, name, e, None).ty
                    }
                    StmtKind::For {
                        kind:
                            ForKind::RangeExclusive(a, _)
                            | ForKind::RangeInclusive(a, _)
                            | ForKind::Upto { from: a, .. }
                            | ForKind::Downto { from: a, .. },
                        ..
                    } => self.expr(a, None).ty,
                    _ => error_type(),
                };
                self.scope = saved.0;
                self.frame = saved.1;
                self.unit.hidden = hidden;
                // The initialiser could not be checked from here (it needs the declaration
                // this use is in: `var x : int = m + 1; var m = x;`), though checking the
                // declaration itself may well succeed: the use is the error, unless another
                // explains it.
                if self.unit.errors.len() > n_errors && crate::check::contains_error(&t) {
                    if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
                        v.ty = VarType::Pending;
                    }
                    self.unit.early_failures.push((span, name.to_string()));
                    self.unit.errors.truncate(n_errors);
                    self.unit.fresh_sizes.truncate(n_fresh);
                    self.unit.pre_stmts.truncate(n_pre);
                    return error_type();
                }
                // Errors are reported when the declaration itself is checked.
                self.unit.errors.truncate(n_errors);
                let t = self.zonk(&t);
                if self.unit.fresh_sizes.len() > n_fresh {
                    // A size known only when the initialiser runs (`filter`'s) is made when
                    // the declaration itself is checked: this early look gives the type for
                    // the use at hand and leaves the variable pending.
                    self.unit.fresh_sizes.truncate(n_fresh);
                    self.unit.pre_stmts.truncate(n_pre);
                    if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
                        v.ty = VarType::Pending;
                    }
                    return t;
                }
                self.set_var_type(vb, name, t.clone());
                t
            }
        }
    }

    /// The uses of variables whose type could not be known where they are (`var_type`), now
    /// that no other error explains them.
    pub(crate) fn report_early_failures(&mut self) {
        for (span, name) in std::mem::take(&mut self.unit.early_failures) {
            self.error(CheckError::Type {
                span,
                message: format!(
                    "the type of `{name}` cannot be known here: its initialiser needs the \
                     declaration this use is in"
                ),
                help: Some(format!(
                    "give `{name}` a type (`var {name} : T = ...`), or define it before this use"
                )),
            });
        }
    }

    /// How the current frame reaches a variable: a local, a global, or a capture (adding the
    /// captures along the chain of enclosing functions).
    pub(crate) fn var_access(&mut self, vb: &VarBinding) -> ir::ExprKind {
        let loc = vb.loc;
        if self.frames[loc.frame].global {
            return ir::ExprKind::Global(loc.slot);
        }
        if loc.frame == self.frame {
            return if loc.cell {
                ir::ExprKind::LocalCell(loc.slot)
            } else {
                ir::ExprKind::Local(loc.slot)
            };
        }
        let idx = self.capture_chain(loc);
        if loc.cell {
            ir::ExprKind::CaptureCell(idx)
        } else {
            ir::ExprKind::Capture(idx)
        }
    }

    fn capture_chain(&mut self, loc: VarLoc) -> u32 {
        let mut chain = Vec::new();
        let mut f = self.frame;
        while f != loc.frame {
            chain.push(f);
            match self.frames[f].parent {
                Some(p) => f = p,
                None => break,
            }
        }
        let mut source = if loc.cell {
            Capture::Cell(loc.slot)
        } else {
            Capture::Slot(loc.slot)
        };
        let mut idx = 0;
        for fr in chain.into_iter().rev() {
            idx = self.frames[fr].capture(loc, source);
            source = Capture::Outer(idx);
        }
        idx
    }

    /// The value of function `idx` (one without a holder: generic, or not nested in a
    /// function) at `type_args`, made in the current frame. A `MakeFun` takes the function's
    /// captures from the frame making it, which is right in the frame the function is
    /// defined in; anywhere below it (a sibling calling a generic nested function, the
    /// function calling itself) it is a `Closure` whose captures reach the same variables
    /// from here, filled in once the defining frame's function is complete
    /// (`resolve_closures`), when the function's captures are all known.
    pub(crate) fn fun_value_kind(&mut self, idx: usize, type_args: Vec<Type>) -> ir::ExprKind {
        if self.funs[idx].state == super::env::FunState::Deferred {
            self.check_function(idx);
        }
        let fun = self.funs[idx].id;
        match self.frames[self.funs[idx].frame].parent {
            Some(p) if !self.frames[p].global && p != self.frame => {
                self.unit.pending_closures.push((self.frame, idx));
                ir::ExprKind::Closure {
                    fun,
                    type_args,
                    captures: std::sync::Arc::from([]),
                }
            }
            _ => ir::ExprKind::MakeFun { fun, type_args },
        }
    }

    /// Fill in the captures of the `Closure`s of functions defined in `frame` made below it
    /// (`fun_value_kind`): each of the function's captured variables reached from the frame
    /// making the closure, through captures added along the way. The functions already built
    /// that change are rebuilt with their longer capture lists.
    pub(crate) fn resolve_closures(&mut self, frame: super::env::FrameId) {
        let pending = std::mem::take(&mut self.unit.pending_closures);
        let (here, rest): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .partition(|(_, g)| self.frames[self.funs[*g].frame].parent == Some(frame));
        self.unit.pending_closures = rest;
        if here.is_empty() {
            return;
        }
        let saved = self.frame;
        let mut touched = std::collections::HashSet::new();
        let mut fills = Vec::new();
        for (at, g) in here {
            let locs: Vec<VarLoc> = (self.frames[self.funs[g].frame].captures.iter())
                .map(|(loc, _)| *loc)
                .collect();
            self.frame = at;
            let captures: Vec<Capture> = locs
                .into_iter()
                .map(|loc| Capture::Outer(self.capture_chain(loc)))
                .collect();
            let mut f = at;
            while f != frame {
                touched.insert(f);
                match self.frames[f].parent {
                    Some(p) => f = p,
                    None => break,
                }
            }
            fills.push((at, self.funs[g].id, captures));
        }
        self.frame = saved;
        for i in 0..self.unit.out_funs.len() {
            let id = self.unit.out_funs[i].0;
            let Some(f) = self.funs.iter().find(|s| s.id == id).map(|s| s.frame) else {
                continue;
            };
            if !touched.contains(&f) {
                continue;
            }
            let captures = self.frames[f].captures.iter().map(|(_, c)| *c).collect();
            let function = std::sync::Arc::make_mut(&mut self.unit.out_funs[i].1);
            function.captures = captures;
            let mut fill = FillClosures(fills.iter().filter(|(at, ..)| *at == f).collect());
            crate::core::visit::walk_stmts_mut(&mut fill, &mut function.body);
        }
    }

    pub(crate) fn place_of(&mut self, vb: &VarBinding) -> Place {
        match self.var_access(vb) {
            ir::ExprKind::Global(s) => Place::Global(s),
            ir::ExprKind::Local(s) => Place::Local(s),
            ir::ExprKind::LocalCell(s) => Place::LocalCell(s),
            ir::ExprKind::CaptureCell(i) => Place::CaptureCell(i),
            _ => Place::Local(vb.loc.slot),
        }
    }

    /// Note an assignment for purity (what allows parallel evaluation): assigning outside the
    /// frame's own locals.
    pub(crate) fn note_assignment(&mut self, place: Place) {
        if matches!(place, Place::Global(_) | Place::CaptureCell(_)) {
            let frame = self.frame;
            self.frames[frame].impure = true;
        }
    }

    fn assignable_var(&mut self, target: &ast::Expr) -> Option<(VarBinding, Type)> {
        let name = match &target.node {
            ExprKind::Name(n) => n,
            _ => {
                self.error(CheckError::NotAssignable {
                    span: target.span,
                    what: "this expression".into(),
                });
                return None;
            }
        };
        match self.lookup_value(name) {
            Some(Binding::Var(vb)) if vb.mutable => {
                let t = self.var_type(name, &vb, target.span);
                Some((vb, t))
            }
            Some(Binding::Var(vb)) => {
                match vb.decl.as_deref() {
                    // A `val`: point at its declaration, suggest `var`.
                    Some(decl) if matches!(decl.node, ast::StmtKind::Val { .. }) => {
                        self.error(CheckError::AssignToVal {
                            span: target.span,
                            name: name.to_string(),
                            declared: decl.span,
                        })
                    }
                    _ => self.error(CheckError::NotAssignable {
                        span: target.span,
                        what: format!("`{name}`, which is a `val` or a parameter"),
                    }),
                }
                None
            }
            Some(_) => {
                self.error(CheckError::NotAssignable {
                    span: target.span,
                    what: format!("`{name}`, which is not a variable"),
                });
                None
            }
            None => {
                self.error(CheckError::UndefinedName {
                    name: name.clone(),
                    span: target.span,
                    what: "variable",
                    hint: None,
                });
                None
            }
        }
    }

    pub(crate) fn assign(
        &mut self,
        target: &ast::Expr,
        op: AssignOp,
        value: &ast::Expr,
        span: Span,
    ) -> Option<ir::Stmt> {
        let (vb, t) = self.assignable_var(target)?;
        if op == AssignOp::Add && crate::check::darray::is_dynamic_array(&self.zonk(&t)) {
            return self.append_stmt(target, value, span);
        }
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let rhs = match op {
            AssignOp::Set => {
                let ir = self.expr(value, Some(&t));
                self.want_secret_var(&vb, &ir.ty, &t);
                self.coerce_to(ir, &t, "this assignment")
            }
            _ => {
                let bop = match op {
                    AssignOp::Add => ast::BinOp::Add,
                    AssignOp::Sub => ast::BinOp::Sub,
                    AssignOp::Mul => ast::BinOp::Mul,
                    AssignOp::Div => ast::BinOp::Div,
                    AssignOp::Mod => ast::BinOp::Mod,
                    AssignOp::BitAnd => ast::BinOp::BitAnd,
                    AssignOp::BitOr => ast::BinOp::BitOr,
                    AssignOp::BitXor => ast::BinOp::BitXor,
                    AssignOp::Shl => ast::BinOp::Shl,
                    AssignOp::Shr => ast::BinOp::Shr,
                    AssignOp::Set => unreachable!(),
                };
                let current = ir::Expr {
                    kind: self.var_access(&vb),
                    ty: t.clone(),
                    span: target.span,
                };
                // A nominal target (`b += x;` appending to a darray) takes its operator from a
                // definition, whose right operand need not have the target's type.
                let hint = (!matches!(t, Type::Nominal(_))).then_some(&t);
                let rhs = self.expr(value, hint);
                let combined = match self.user_operator(bop.symbol(), current, rhs, span) {
                    Ok(call) => call,
                    Err((current, rhs)) => self.binary_ir(bop, current, rhs, span),
                };
                self.want_secret_var(&vb, &combined.ty, &t);
                self.coerce_to(combined, &t, "this assignment")
            }
        };
        Some(ir::Stmt::Assign(place, rhs))
    }

    /// `&x.i.j <- v;`
    pub(crate) fn store(&mut self, target: &ast::Expr, value: &ast::Expr) -> Option<ir::Stmt> {
        // Unwind the projection chain down to the variable.
        let mut steps = Vec::new();
        let mut cur = target;
        loop {
            match &cur.node {
                ExprKind::Dot(lhs, rhs) => {
                    steps.push(rhs.as_ref());
                    cur = lhs;
                }
                ExprKind::Name(_) => break,
                _ => {
                    self.error(CheckError::NotAssignable {
                        span: target.span,
                        what: "this expression (store into a component of a `var`: `&x.i <- v;`)"
                            .into(),
                    });
                    return None;
                }
            }
        }
        steps.reverse();
        let (vb, root_ty) = self.assignable_var(cur)?;
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let mut ty = root_ty.clone();
        let mut path = Vec::new();
        for rhs in steps {
            if !ty.has_meta() && !self.is_projection(&ty, rhs) {
                // A step that is not a projection (`&x.px <- v` with a projection function
                // `px`): a store through the pointer the whole chain makes. A local
                // has an address only when the function takes it with `&x` somewhere.
                if matches!(place, Place::Local(_)) {
                    self.error(CheckError::NotAddressable {
                        span: cur.span,
                        what: format!(
                            "`{}` here: `{}` is applied to a pointer; make one first with `val p = &{};`",
                            target_name(cur),
                            rhs_text(rhs),
                            target_name(cur)
                        ),
                    });
                    return None;
                }
                let pointer = ast::Expr::new(
                    ExprKind::Addr(
                        crate::syntax::ast::PtrMode::ReadWrite,
                        Box::new(target.clone()),
                    ),
                    target.span,
                );
                return self.store_at(&pointer, value);
            }
            let (step, next) = self.store_step(&ty, rhs, path.is_empty().then_some(&vb))?;
            path.push(step);
            ty = next;
        }
        let v = self.expr(value, Some(&ty));
        // A visibility instance storing a secret into an element of an untyped variable
        // makes the variable secret (`secret.rs`).
        self.want_secret_var(&vb, &v.ty, &ty);
        let v = self.coerce_to(v, &ty, "this store");
        Some(ir::Stmt::Store {
            place,
            root_ty,
            path,
            value: v,
        })
    }

    /// Is `x.rhs` a projection (not a reverse application) for `x : ty`? Decided from the
    /// syntax and the bindings alone, without checking `rhs`.
    fn is_projection(&mut self, ty: &Type, rhs: &ast::Expr) -> bool {
        match &rhs.node {
            ExprKind::Name(n) => {
                if self.record_field_projection(ty, n).is_some()
                    || Checker::named_fields(ty)
                        .is_some_and(|fs| fs.iter().any(|(f, _)| **f == **n))
                {
                    return true;
                }
                match self.lookup_value(n) {
                    Some(Binding::Var(vb)) => {
                        let vt = self.var_type(n, &vb, rhs.span);
                        !matches!(self.zonk(&vt), Type::Fun(..))
                    }
                    _ => false,
                }
            }
            ExprKind::Qualified(_) | ExprKind::TypeApply(..) | ExprKind::Lambda(_) => false,
            _ => true,
        }
    }

    fn store_step(
        &mut self,
        ty: &Type,
        rhs: &ast::Expr,
        root: Option<&VarBinding>,
    ) -> Option<(PathStep, Type)> {
        match self.projection(ty, rhs, None) {
            Some(Projection::Field(i, t)) => Some((PathStep::Field(i), t)),
            Some(Projection::Index(e, mode, t)) => Some((PathStep::Index(e, mode), t)),
            // A component of a compact value: the store rewrites its digits.
            Some(Projection::CField(i, t)) => Some((PathStep::Field(i), t)),
            None => {
                if ty.has_meta() {
                    return None;
                }
                let message = format!("cannot store into a component of `{ty}` here");
                // `var m : int ^ 3 * 2;` is `(int ^ 3) * bool`, not a matrix.
                let pair_not_matrix = matches!(ty, Type::Tuple(components)
                    if matches!(components.first(), Some(Type::Array(..))))
                    && matches!(rhs.node, ExprKind::CTuple(_));
                if !pair_not_matrix {
                    self.type_error(rhs.span, message);
                    return None;
                }
                let error = CheckError::Type {
                    span: rhs.span,
                    message,
                    help: Some(format!(
                        "`{ty}` is a pair, not a matrix: `^` binds tighter than `*`, so `int ^ 3 * 2` is `(int ^ 3) * bool`; for an array indexed by a compact pair declare it as `T ^ (A \\* B)`, as in `int ^ (3 \\* 2)`"
                    )),
                };
                let declared = root.map(VarBinding::declared_type_span);
                match declared {
                    Some(at) => self.error(CheckError::Noted {
                        error: Box::new(error),
                        at,
                        label: format!("declared here as `{ty}`: `^` binds tighter than `*`"),
                    }),
                    None => self.error(error),
                }
                None
            }
        }
    }

    /// `set (&a, i, v)`: a store at a linear int position.
    pub(crate) fn set_stmt(&mut self, arg: &ast::Expr, span: Span) -> Option<ir::Stmt> {
        let ExprKind::Tuple(items) = &arg.node else {
            self.type_error(span, "`set` takes `(&a, i, v)`");
            return None;
        };
        if items.len() != 3 {
            self.type_error(span, "`set` takes `(&a, i, v)`");
            return None;
        }
        let ExprKind::Addr(crate::syntax::ast::PtrMode::ReadWrite, target) = &items[0].node else {
            self.type_error(items[0].span, "the first argument of `set` is `&a`");
            return None;
        };
        let (vb, root_ty) = self.assignable_var(target)?;
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let Type::Array(elem, _) = &root_ty else {
            self.type_error(
                target.span,
                format!("`set` needs an array, found `{root_ty}`"),
            );
            return None;
        };
        let elem = (**elem).clone();
        let i = self.expr(&items[1], None);
        if !matches!(i.ty, Type::Int(_)) {
            self.type_error(
                items[1].span,
                format!("the position must be an integer, found `{}`", i.ty),
            );
            return None;
        }
        let v = self.expr(&items[2], Some(&elem));
        let v = self.coerce_to(v, &elem, "`set`");
        Some(ir::Stmt::Store {
            place,
            root_ty,
            path: vec![PathStep::Index(i, IndexMode::Linear)],
            value: v,
        })
    }
}

fn target_name(e: &ast::Expr) -> String {
    match &e.node {
        ExprKind::Name(n) => n.to_string(),
        _ => "this".into(),
    }
}

fn rhs_text(e: &ast::Expr) -> String {
    match &e.node {
        ExprKind::Name(n) => n.to_string(),
        _ => "this function".into(),
    }
}

/// Sets the captures of the placeholder `Closure`s of a function's body (`resolve_closures`):
/// the frame making them, the function they are of, its captures from there.
struct FillClosures<'a>(Vec<&'a (super::env::FrameId, ir::FunId, Vec<Capture>)>);

impl crate::core::visit::VisitMut for FillClosures<'_> {
    fn visit_expr_mut(&mut self, e: &mut ir::Expr) {
        if let ir::ExprKind::Closure {
            fun,
            type_args,
            captures,
        } = &mut e.kind
        {
            if let Some((.., filled)) = self.0.iter().find(|(_, g, _)| g == fun) {
                if captures.is_empty() && filled.is_empty() {
                    e.kind = ir::ExprKind::MakeFun {
                        fun: *fun,
                        type_args: std::mem::take(type_args),
                    };
                } else if captures.is_empty() {
                    *captures = filled.as_slice().into();
                }
            }
        }
        crate::core::visit::walk_expr_mut(self, e)
    }
}
