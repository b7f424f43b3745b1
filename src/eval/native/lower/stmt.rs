//! Statements: assignments, element stores (into array variables and through pointers),
//! conditions, every loop form, `break`, `continue`, `return` and matches on native values.
//! Anything else is a fallback piece.

use cranelift_codegen::ir::{InstBuilder, Value as ClValue};

use crate::core::ir::{Arm, Expr, ExprKind, PathStep, Place, Stmt};
use crate::types::ty::IntTy;
use crate::types::Type;

use super::agg::{field_leaves, split_fields};
use super::element::{path_kind, ElementPath};
use super::hoist::Outside;
use super::leaves::scalar_kind;
use super::{args, LoopTarget, Lower, V};
use crate::eval::native::{Agg, Held, Repr};

/// The inlined body of `e` when its statements can run natively before its value: it has a
/// result expression and no `return` among its statements.
fn peelable(e: &Expr) -> Option<&crate::core::ir::Inlined> {
    match &e.kind {
        ExprKind::Inlined(inlined)
            if inlined.result.is_some() && !crate::core::inline::has_return(&inlined.stmts) =>
        {
            Some(inlined)
        }
        _ => None,
    }
}

/// The element type of an array type (`unit` for anything else).
fn elem_of(ty: &Type) -> Type {
    match ty {
        Type::Array(elem, _) => (**elem).clone(),
        _ => Type::Unitsum(1),
    }
}

impl Lower<'_, '_, '_> {
    /// A block's statements, in order. A global the block assigns is known to hold a value in
    /// the statements after the assignment (at top level, where no call can come first), so
    /// a loop among them that reads it checks nothing; what the block assigned is forgotten
    /// after it, since it may not have run.
    pub(super) fn stmts(&mut self, stmts: &[Stmt]) {
        let mark = self.ranges_mark();
        let mut defined = Vec::new();
        let mut next = 0;
        while next < stmts.len() {
            self.ensure_open();
            match self.region(&stmts[next..]) {
                0 => {
                    self.stmt(&stmts[next]);
                    if let Stmt::Assign(Place::Global(g), _) = &stmts[next] {
                        if self.c.note_defined(*g) {
                            defined.push(*g);
                        }
                    }
                    next += 1;
                }
                n => next += n,
            }
        }
        self.forget_since(mark);
        for g in defined {
            self.c.forget_defined(g);
        }
    }

    /// The current value of a native variable.
    pub(super) fn read_var(&mut self, place: Place, repr: Repr) -> V {
        match place {
            Place::Local(s) => {
                let (var, r) = self.vars[&s];
                let v = self.b.use_var(var);
                match r {
                    Repr::F64 => V::F(v),
                    _ => V::I(v),
                }
            }
            Place::Global(s) => match self.promoted_read(s, None) {
                Some(v) => v,
                None => {
                    let addr = self.global_addr(s);
                    self.load_value(addr, repr)
                }
            },
            Place::LocalCell(_) | Place::CaptureCell(_) => self.cell_read(place, repr),
        }
    }

    /// Assign a native variable.
    pub(super) fn write_var(&mut self, place: Place, v: V) {
        match place {
            Place::Local(s) => {
                if let (Some((var, _)), V::I(x) | V::F(x)) = (self.vars.get(&s).copied(), v) {
                    self.b.def_var(var, x);
                }
            }
            Place::Global(s) => {
                if matches!(v, V::I(_) | V::F(_)) && self.promoted_write(s, v) {
                    return;
                }
                let addr = self.global_addr(s);
                self.store_value(addr, v);
            }
            Place::LocalCell(_) | Place::CaptureCell(_) => self.cell_write(place, v),
        }
    }

    /// The array variable `place` as the base of an element path: a local kept in the frame,
    /// a global, or a captured variable's cell native code reaches; `None` for a variable in
    /// registers.
    pub(super) fn place_base(&self, place: Place) -> Option<ExprKind> {
        match place {
            Place::Local(s) if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) => {
                Some(ExprKind::Local(s))
            }
            Place::Global(s) => Some(ExprKind::Global(s)),
            Place::LocalCell(s) => Some(ExprKind::LocalCell(s)),
            Place::CaptureCell(i) if self.cell_place(place) => Some(ExprKind::CaptureCell(i)),
            _ => None,
        }
    }

    /// Is `place` a variable native code holds (a register, or a global of a native type)?
    pub(super) fn native_var(&self, place: Place, ty: &Type) -> bool {
        match place {
            Place::Local(s) => self.vars.contains_key(&s),
            Place::Global(_) | Place::LocalCell(_) | Place::CaptureCell(_) => {
                (self.cell_place(place) || matches!(place, Place::Global(_)))
                    && Repr::of(ty).is_some_and(|r| r != Repr::Unit)
            }
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        self.before_stmt(s);
        self.lower_stmt(s);
        self.after_stmt(s);
        if let Stmt::Assign(place, e) = s {
            self.learn_assigned(*place, e);
        }
    }

    fn lower_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) => {
                if Repr::of(&e.ty).is_some() || Agg::of(&e.ty).is_some() {
                    self.expr(e);
                } else {
                    self.fallback_stmt(s, "a statement on values not in registers", e.span);
                }
            }
            // An aggregate: into its registers, or boxed into its frame or global slot.
            Stmt::Assign(place, e) if Agg::of(&e.ty).is_some() => {
                if !self.aggregate_var(*place) {
                    return self.fallback_stmt(s, "an assignment of a captured variable", e.span);
                }
                let v = self.expr(e);
                self.write_aggregate(*place, &e.ty, v);
            }
            // A body inlined into a value that is not in registers (a function returning a
            // tuple): its statements are native code, only its final value is a fallback piece.
            Stmt::Assign(place, e) if Repr::of(&e.ty).is_none() && peelable(e).is_some() => {
                let inlined = peelable(e).expect("checked");
                let result = inlined.result.clone().expect("checked");
                let outer = self.enter_inlined(inlined);
                self.stmts(&inlined.stmts);
                self.ensure_open();
                self.assign_value(*place, &result);
                self.leave_inlined(inlined, outer);
            }
            // A function value into a frame slot (a nested function's closure, made when the
            // enclosing function starts).
            Stmt::Assign(Place::Local(slot), e)
                if matches!(e.kind, ExprKind::MakeFun { .. } | ExprKind::Closure { .. })
                    && !self.vars.contains_key(slot)
                    && !self.avars.contains_key(slot) =>
            {
                self.frame_used = true;
                let addr = self.slot_addr(*slot);
                if !self.make_closure_into(e, addr) {
                    self.fallback_stmt(
                        s,
                        "a function value capturing values of enclosing code",
                        e.span,
                    );
                }
            }
            Stmt::Assign(place @ (Place::LocalCell(_) | Place::CaptureCell(_)), e)
                if matches!(e.kind, ExprKind::MakeFun { .. } | ExprKind::Closure { .. })
                    && self.cell_place(*place) =>
            {
                if !self.make_closure_in_cell(e, *place) {
                    self.fallback_stmt(
                        s,
                        "a function value capturing values of enclosing code",
                        e.span,
                    );
                }
            }
            Stmt::Assign(place, e) => match Repr::of(&e.ty) {
                Some(Repr::Unit) if matches!(place, Place::Local(_) | Place::Global(_)) => {
                    self.expr(e);
                    if let Place::Global(g) = place {
                        let addr = self.global_addr(*g);
                        self.store_value(addr, V::Unit);
                    }
                }
                Some(_) if self.native_var(*place, &e.ty) => {
                    let v = self.expr(e);
                    self.write_var(*place, v);
                }
                _ => self.assign_value(*place, e),
            },
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => self.store(s, *place, root_ty, path, value),
            Stmt::If(c, then_branch, else_branch)
                if self.if_as_select(c, then_branch, else_branch) => {}
            Stmt::If(c, then_branch, else_branch) => {
                let (t, f, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.branch(c, t, f);
                for (block, branch, holds) in [(t, then_branch, true), (f, else_branch, false)] {
                    self.b.seal_block(block);
                    self.b.switch_to_block(block);
                    self.knowing(c, holds, |l| l.stmts(branch));
                    if !self.filled() {
                        self.b.ins().jump(join, &[]);
                    }
                }
                self.b.seal_block(join);
                self.b.switch_to_block(join);
            }
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => {
                let hoisted = self.hoist(s);
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let latch = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                if *until {
                    self.branch(cond, exit, body_block);
                } else {
                    self.branch(cond, body_block, exit);
                }
                self.b.seal_block(body_block);
                self.b.switch_to_block(body_block);
                self.knowing(cond, !*until, |l| l.loop_body(*label, exit, latch, body));
                self.b.switch_to_block(latch);
                self.poll_interrupt(cond.span);
                self.b.ins().jump(header, &[]);
                self.b.seal_block(header);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
                self.unhoist(hoisted);
            }
            Stmt::Loop { label, body } => {
                let hoisted = self.hoist(s);
                let header = self.b.create_block();
                let latch = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                self.loop_body(*label, exit, latch, body);
                self.b.switch_to_block(latch);
                self.poll_interrupt(crate::syntax::span::Span::default());
                self.b.ins().jump(header, &[]);
                self.b.seal_block(header);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
                self.unhoist(hoisted);
            }
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => {
                let limit_ity = match to.ty {
                    Type::Int(ity) => ity,
                    _ => IntTy::Long,
                };
                // The variable and its limit compare as signed or both as unsigned 64-bit.
                let wide_unsigned = |ity: IntTy| !ity.signed() && ity.bits() == 64;
                if wide_unsigned(*var_ty) != wide_unsigned(limit_ity)
                    || !self.native_var(*var, &Type::Int(*var_ty))
                    || Repr::of(&to.ty) != Some(Repr::I64)
                {
                    return self.fallback_stmt(s, "a loop over 64-bit unsigned values", to.span);
                }
                let hoisted = self.hoist(s);
                if !self.chunk_loop(s) {
                    self.for_range(*label, *var, *var_ty, from, to, *kind, body);
                }
                self.unhoist(hoisted);
            }
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => {
                let n = crate::types::size::size_of(ty).and_then(|n| u64::try_from(n).ok());
                match n {
                    Some(n)
                        if Repr::of(ty) == Some(Repr::I64)
                            && self.native_var(*var, ty)
                            && n < i64::MAX as u64 =>
                    {
                        let hoisted = self.hoist(s);
                        if !self.chunk_loop(s) {
                            self.for_codes(*label, *var, n, body);
                        }
                        self.unhoist(hoisted);
                    }
                    _ => self.fallback_stmt(
                        s,
                        "a loop over a large or non-compact type",
                        crate::syntax::span::Span::default(),
                    ),
                }
            }
            Stmt::Break(label) | Stmt::Continue(label) => {
                let target = self.loops.iter().rev().find(|l| l.label == *label);
                match target {
                    Some(t) => {
                        let block = if matches!(s, Stmt::Break(_)) {
                            t.exit
                        } else {
                            t.next
                        };
                        // Leaving the innermost loop for one around it: what it writes back
                        // at its end is written here.
                        if self.loops.last().is_some_and(|inner| inner.label != *label) {
                            let mut sunk: Vec<u32> = self.sunk.iter().copied().collect();
                            sunk.sort_unstable();
                            self.store_sunk(&sunk);
                        }
                        self.b.ins().jump(block, &[]);
                    }
                    None => self.fallback_stmt(
                        s,
                        "a jump out of fallback code",
                        crate::syntax::span::Span::default(),
                    ),
                }
            }
            Stmt::Return(value) => {
                let Some(target) = self.returns.last().copied() else {
                    return self.fallback_stmt(s, "a return", crate::syntax::span::Span::default());
                };
                let v = match value {
                    Some(e) if Repr::of(&e.ty).is_some() => self.expr(e),
                    Some(e) if target.agg.is_some() && Agg::of(&e.ty).is_some() => {
                        let v = self.expr(e);
                        let vals = self.jump_values(v);
                        self.b.ins().jump(target.block, &args(&vals));
                        return;
                    }
                    // An array native code computes (a map, an inlined body ending in one, a
                    // kernel over native operands) goes straight to the caller's value.
                    Some(e)
                        if target.out.is_some()
                            && (matches!(e.ty, Type::Array(..)) && self.worth_native(e)
                                || self.builds_natively(e)) =>
                    {
                        let out = target.out.expect("checked");
                        self.value_into(e, out, "a return of a value not in registers");
                        self.ensure_open();
                        self.b.ins().jump(target.block, &[]);
                        return;
                    }
                    Some(e) => {
                        return self.fallback_stmt(
                            s,
                            "a return of a value not in registers",
                            e.span,
                        )
                    }
                    None => V::Unit,
                };
                let vals: Vec<ClValue> = match (v, target.repr) {
                    (V::I(x) | V::F(x), Repr::I64 | Repr::F64) => vec![x],
                    (V::Unit, Repr::I64) => vec![self.iconst(0)],
                    (V::Unit, Repr::F64) => vec![self.b.ins().f64const(0.0)],
                    _ => vec![],
                };
                self.b.ins().jump(target.block, &args(&vals));
            }
            Stmt::Match(scrutinee, arms) => self.match_stmt(scrutinee, arms),
            Stmt::Block(stmts) => self.stmts(stmts),
            Stmt::Specialise { span, .. } => {
                self.fallback_stmt(s, "code specialised to run-time sizes", *span)
            }
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => {
                let hoisted = self.hoist(s);
                self.for_each(s, *label, *var, array, body);
                self.unhoist(hoisted);
            }
            Stmt::StoreAt { pointer, value } => self.store_at(s, pointer, value),
        }
    }

    /// A loop body: its statements with `break` and `continue` of `label` going to `exit` and
    /// `next`; ends by jumping to `next`.
    pub(super) fn loop_body(
        &mut self,
        label: u32,
        exit: cranelift_codegen::ir::Block,
        next: cranelift_codegen::ir::Block,
        body: &[Stmt],
    ) {
        self.loops.push(LoopTarget { label, exit, next });
        self.stmts(body);
        self.loops.pop();
        if !self.filled() {
            self.b.ins().jump(next, &[]);
        }
        // Every edge into the latch is in now. Sealed before its code reads variables, the
        // latch finds their definitions rather than making block parameters of its own, and
        // a variable the body leaves alone does not become a parameter of the loop's header.
        self.b.seal_block(next);
    }

    /// Is `place` a variable held as a value in its slot: a global, or a local that is not
    /// in registers?
    pub(super) fn slot_var(&self, place: Place) -> bool {
        match place {
            Place::Local(s) => !self.vars.contains_key(&s) && !self.avars.contains_key(&s),
            Place::Global(_) => true,
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        }
    }

    /// `place = e` for a value not in registers: `s = s + t …` on a string is appended in
    /// place (`append_into`); an array native code computes, or a value it builds (a call's
    /// result, a variant, a string, a conditional or match choosing one), goes straight into
    /// the variable's value (`value_into`, which leaves the variable as it was when `e`
    /// faults); anything else, and a captured variable's assignment, is a fallback piece.
    fn assign_value(&mut self, place: Place, e: &Expr) {
        if let Some(tails) = crate::eval::compile::string_append_tails(place, e) {
            // A tail that is the variable itself (`s = s + s`) is read where it lives, so it
            // cannot be appended to in place: the concatenation makes a new string.
            let reads_place = |t: &&Expr| match (&t.kind, place) {
                (ExprKind::Local(s), Place::Local(p)) | (ExprKind::Global(s), Place::Global(p)) => {
                    *s == p
                }
                _ => false,
            };
            if self.slot_var(place) && !tails.iter().any(reads_place) {
                return self.append_into(place, e, &tails);
            }
        }
        let why = format!(
            "an assignment of a value of type {} (not in registers)",
            e.ty
        );
        let native =
            matches!(e.ty, Type::Array(..)) && self.worth_native(e) || self.builds_natively(e);
        let addr = match place {
            Place::Local(slot) if native => {
                self.frame_used = true;
                self.slot_addr(slot)
            }
            Place::Global(g) if native => self.global_addr(g),
            _ => {
                let assign = Stmt::Assign(place, e.clone());
                return self.fallback_stmt(&assign, &why, e.span);
            }
        };
        self.value_into(e, addr, &why);
    }

    /// `&x.(i).(j) <- v` into an array of unboxed scalars: the indices (each checked), then
    /// the value, then the store (copy-on-write: the storage is made unshared first).
    fn store(&mut self, s: &Stmt, place: Place, root_ty: &Type, path: &[PathStep], value: &Expr) {
        let repr = Repr::of(&value.ty);
        if path.is_empty() {
            // `&x <- v`: an assignment, with a store's check of a global's declaration.
            if repr.is_none() || !self.native_var(place, &value.ty) {
                return self.fallback_stmt(s, "a store of a value not in registers", value.span);
            }
            self.check_store_target(place, root_ty, path, value);
            let v = self.expr(value);
            self.write_var(place, v);
            return;
        }
        if self.store_field(place, root_ty, path, value)
            || self.store_columns(s, place, root_ty, path, value)
        {
            return;
        }
        let Some(base_kind) = self.place_base(place) else {
            return self.fallback_stmt(s, "a store into a variable not an array", value.span);
        };
        // Rebuild the path as an element read to reuse its checks.
        let base = Expr {
            kind: base_kind,
            ty: root_ty.clone(),
            span: value.span,
        };
        let mut steps = Vec::new();
        let mut ty = root_ty.clone();
        for step in path {
            let PathStep::Index(index, mode) = step else {
                return self.fallback_stmt(s, "a store into a field", value.span);
            };
            let Type::Array(elem, _) = &ty else {
                return self.fallback_stmt(s, "a store into a non-array", value.span);
            };
            let elem = (**elem).clone();
            steps.push((index, *mode, ty.clone()));
            ty = elem;
        }
        let element = ElementPath {
            base: &base,
            pointer: false,
            steps,
        };
        let Some(repr) = repr.filter(|r| *r != Repr::Unit && self.element_path_ok(&element, *r))
        else {
            if repr.is_none()
                && (self.store_row(s, &element, &ty, value, (place, root_ty, path))
                    || self.store_boxed(place, root_ty, path, value, &element))
            {
                return;
            }
            return self.fallback_stmt(
                s,
                "a store into an array not of unboxed scalars",
                value.span,
            );
        };
        if Repr::of(&ty) != Some(repr) {
            return self.fallback_stmt(s, "a store of a whole row", value.span);
        }
        self.check_store_target(place, root_ty, path, value);
        let pos = self.leaf_position(&element);
        let v = self.expr(value).int();
        self.store_element(s, &element, pos, v);
    }

    /// `&x.(i) <- (a, b)`: a row (`ty`, a small array of scalars) stored whole into an array
    /// of such rows, from an aggregate in registers: the indices (each checked), then the
    /// value, then its leaves stored side by side (copy-on-write). False, with nothing
    /// lowered, for a store of another kind.
    fn store_row(
        &mut self,
        s: &Stmt,
        element: &ElementPath<'_>,
        ty: &Type,
        value: &Expr,
        (place, root_ty, path): (Place, &Type, &[PathStep]),
    ) -> bool {
        let Some(kind) = self.row_store_kind(element, ty, &value.ty) else {
            return false;
        };
        self.check_store_target(place, root_ty, path, value);
        let pos = self.leaf_position(element);
        let v = self.expr(value);
        let leaves: Vec<ClValue> = self.leaves(v).into_iter().map(V::int).collect();
        if !self.unchecked_view(element, true, None) {
            self.pin(&leaves);
        }
        self.store_inside(s, element, None, pos, |l, data| {
            for (j, leaf) in leaves.iter().enumerate() {
                let at = l.b.ins().iadd_imm_s(pos, j as i64);
                let at = l.leaf_addr(kind, data[0], at);
                l.store_leaf(kind, *leaf, at);
            }
        });
        true
    }

    /// The kind of the leaves when a value of type `value_ty` (an aggregate in registers) is
    /// stored by `store_row` as the element `ty` (a row of such leaves) that `element` leads
    /// to; `None` for a store of another kind.
    pub(super) fn row_store_kind(
        &self,
        element: &ElementPath<'_>,
        ty: &Type,
        value_ty: &Type,
    ) -> Option<crate::eval::value::ScalarKind> {
        let (agg, kind) = (Agg::of(value_ty)?, scalar_kind(ty)?);
        let repr = if kind.is_float() {
            Repr::F64
        } else {
            Repr::I64
        };
        let row = crate::eval::value::leaf_count(ty);
        let fits = matches!(ty, Type::Array(..))
            && row == Some(agg.leaves.len())
            && agg.leaves.iter().all(|r| *r == repr)
            && self.element_path_ok(element, repr)
            && path_kind(element) == kind;
        fits.then_some(kind)
    }

    /// `p.(i).(j) <- v` through a pointer to an array of unboxed scalars: the pointer, the
    /// indices (each checked), the value, then the store (copy-on-write). The indices and the
    /// value must have no effect: the store runs again on the closure compiler when native code
    /// cannot see the pointer's target.
    fn store_at(&mut self, s: &Stmt, pointer: &Expr, value: &Expr) {
        if self.store_at_columns(s, pointer, value) || self.store_pointee(s, pointer, value) {
            return;
        }
        let repr = Repr::of(&value.ty).filter(|r| *r != Repr::Unit);
        let path = ElementPath::through(pointer).filter(|p| !p.steps.is_empty());
        let mut scratch = std::collections::HashMap::new();
        let (Some(path), Some(repr)) = (path, repr) else {
            return self.fallback_stmt(s, "a store through a pointer", pointer.span);
        };
        let leaf = path.steps.last().map(|(_, _, ty)| elem_of(ty));
        if !self.element_path_ok(&path, repr)
            || leaf.as_ref().and_then(Repr::of) != Some(repr)
            || !self.closed_expr(value, &mut scratch)
        {
            return self.fallback_stmt(s, "a store through a pointer", pointer.span);
        }
        self.check_base(path.base);
        let pos = self.leaf_position(&path);
        let v = self.expr(value).int();
        self.store_element(s, &path, pos, v);
    }

    /// The number of leaves native code holds a value of `ty` in (none for `unit` and values
    /// it does not hold).
    fn held_leaves(ty: &Type) -> Option<usize> {
        match Held::of(ty)? {
            Held::Scalar(Repr::Unit) => None,
            Held::Scalar(_) => Some(1),
            Held::Agg(agg) => Some(agg.leaves.len()),
        }
    }

    /// `&x.(i).f <- v` into an array of tuples of scalars stored as columns (the element or
    /// some of its fields); false, having done nothing, when the store is not of that form.
    fn store_columns(
        &mut self,
        s: &Stmt,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> bool {
        let Some((indices, fields)) = split_fields(path) else {
            return false;
        };
        let Some((base, steps, ty)) = self.store_steps(place, root_ty, indices, value.span) else {
            return false;
        };
        let element = ElementPath {
            base: &base,
            pointer: false,
            steps,
        };
        let Some(agg) = self.columns_path(&element) else {
            return false;
        };
        let Some((range, _)) = field_leaves(&ty, &fields) else {
            return false;
        };
        if Self::held_leaves(&value.ty) != Some(range.1) {
            return false;
        }
        self.check_store_target(place, root_ty, path, value);
        let pos = self.leaf_position(&element);
        let v = self.expr(value);
        self.columns_store(s, &element, &agg, range, pos, v);
        true
    }

    /// `p.(i).f <- v` through a pointer to an array of tuples of scalars stored as columns;
    /// false, having done nothing, when the store is not of that form. As for any store
    /// through a pointer, the indices and the value must have no effect.
    fn store_at_columns(&mut self, s: &Stmt, pointer: &Expr, value: &Expr) -> bool {
        let ExprKind::PtrProject {
            pointer: base,
            path,
        } = &pointer.kind
        else {
            return false;
        };
        let Some((indices, fields)) = split_fields(path) else {
            return false;
        };
        let Some(element) =
            ElementPath::through_steps(base, indices).filter(|p| !p.steps.is_empty())
        else {
            return false;
        };
        let Some(agg) = self.columns_path(&element) else {
            return false;
        };
        let elem = elem_of(&element.steps.last().expect("not empty").2);
        let Some((range, _)) = field_leaves(&elem, &fields) else {
            return false;
        };
        let mut scratch = std::collections::HashMap::new();
        if Self::held_leaves(&value.ty) != Some(range.1) || !self.closed_expr(value, &mut scratch) {
            return false;
        }
        self.check_base(element.base);
        let pos = self.leaf_position(&element);
        let v = self.expr(value);
        self.columns_store(s, &element, &agg, range, pos, v);
        true
    }

    /// A store into a global whose declaration may not have run yet is R0011, from the first
    /// index to the value (as a read would be).
    pub(super) fn check_store_target(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) {
        if let Place::Global(g) = place {
            let start = match path.first() {
                Some(PathStep::Index(index, _)) => index.span.start.min(value.span.start),
                _ => value.span.start,
            };
            let span = crate::syntax::span::Span::new(start, value.span.end);
            self.check_global_set(g, root_ty, span);
        }
    }

    /// Store `v` at leaf `pos` of the array of `path` (the store `s`).
    fn store_element(&mut self, s: &Stmt, path: &ElementPath<'_>, pos: ClValue, v: ClValue) {
        let kind = path_kind(path);
        if !self.unchecked_view(path, true, None) {
            self.pin(&[v]);
        }
        self.store_inside(s, path, None, pos, |l, data| {
            let at = l.leaf_addr(kind, data[0], pos);
            l.store_leaf(kind, v, at);
        });
    }

    /// The store `s` at leaf `pos` of the array of `path` (of `n_columns` columns, or flat):
    /// `write` with the view's addresses (writable), when `pos` is inside. A variable that
    /// holds no array has no storage (the checks before reported a global's placeholder):
    /// nothing is stored. Through a pointer native code cannot see (a null view), the
    /// statement runs on the closure compiler.
    pub(super) fn store_inside(
        &mut self,
        s: &Stmt,
        path: &ElementPath<'_>,
        n_columns: Option<usize>,
        pos: ClValue,
        write: impl FnOnce(&mut Self, &[ClValue]),
    ) {
        let after = self.b.create_block();
        let slow = std::cell::Cell::new(false);
        let unviewable = |l: &mut Self| {
            slow.set(true);
            l.fallback_stmt(s, "", path.base.span);
            if !l.filled() {
                l.b.ins().jump(after, &[]);
            }
        };
        let outside = Outside::Skip(after);
        let skips = self.straight.skips;
        let data = self.checked_view(path, true, n_columns, pos, unviewable, outside);
        write(self, &data);
        // Entered only from here: the tests before hold after it.
        if let (false, true, Some(block)) = (
            slow.get(),
            skips == self.straight.skips,
            self.b.current_block(),
        ) {
            self.straight.continue_into(block, after);
        }
        self.b.ins().jump(after, &[]);
        self.b.seal_block(after);
        self.b.switch_to_block(after);
    }

    fn match_stmt(&mut self, scrutinee: &Expr, arms: &[Arm<Vec<Stmt>>]) {
        let join = self.join_block(Repr::Unit, None);
        self.lower_match(scrutinee, arms, join, |l, body| {
            l.stmts(body);
            (!l.filled()).then(Vec::new)
        });
        self.joined(join, Repr::Unit, None);
    }

    /// A closed store into an array of tuples stored as columns (`store_columns`): `None`
    /// when the store is not of that form.
    pub(super) fn closed_columns_store(
        &self,
        place: Place,
        root_ty: &crate::types::Type,
        path: &[PathStep],
        value: &Expr,
        arrays: &mut std::collections::HashMap<Place, (Expr, bool)>,
    ) -> Option<bool> {
        let (indices, fields) = super::agg::split_fields(path)?;
        let (base, steps, ty) = self.store_steps(place, root_ty, indices, value.span)?;
        let element = ElementPath {
            base: &base,
            pointer: false,
            steps,
        };
        self.columns_path(&element)?;
        super::agg::field_leaves(&ty, &fields)?;
        let ok = element
            .steps
            .iter()
            .all(|(i, _, _)| self.closed_expr(i, arrays))
            && self.closed_expr(value, arrays);
        if ok {
            arrays.insert(place, (base.clone(), true));
        }
        Some(ok)
    }

    /// A closed store through a pointer into an array of tuples stored as columns
    /// (`store_at_columns`): `None` when the store is not of that form.
    pub(super) fn closed_columns_store_at(
        &self,
        pointer: &Expr,
        value: &Expr,
        arrays: &mut std::collections::HashMap<Place, (Expr, bool)>,
    ) -> Option<bool> {
        let ExprKind::PtrProject {
            pointer: base,
            path,
        } = &pointer.kind
        else {
            return None;
        };
        let (indices, fields) = super::agg::split_fields(path)?;
        let element = ElementPath::through_steps(base, indices).filter(|p| !p.steps.is_empty())?;
        self.columns_path(&element)?;
        let elem = match &element.steps.last()?.2 {
            crate::types::Type::Array(elem, _) => (**elem).clone(),
            _ => return None,
        };
        super::agg::field_leaves(&elem, &fields)?;
        let ok = element
            .steps
            .iter()
            .all(|(i, _, _)| self.closed_expr(i, arrays))
            && self.closed_expr(value, arrays);
        let Some(place) = super::hoist::base_place(element.base) else {
            return Some(false);
        };
        if ok {
            arrays.insert(place, (element.base.clone(), true));
        }
        Some(ok)
    }
}
