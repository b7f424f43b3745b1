//! Which statements and expressions are *closed* (see `hoist.rs`): lowered natively with no
//! call that could replace, share or reallocate an array's storage, and no fallback piece. A
//! closed loop's arrays are collected on the way, each with whether the loop stores into it,
//! for their views to be fetched once before it.

use std::collections::HashMap;

use crate::core::ir::{
    CoerceKind, Expr, ExprKind, PathStep, Pattern, PatternKind, Place, Prim, Stmt, VarrayOp,
};
use crate::eval::native::Repr;

use super::element::ElementPath;
use super::for_each::ForEach;
use super::hoist::{base_place, promotable};
use super::Lower;

impl Lower<'_, '_, '_> {
    /// Is `stmt` closed (see the module's comment)? Collects the array variables it uses,
    /// with whether it stores into them.
    pub(super) fn closed_stmt(
        &self,
        stmt: &Stmt,
        arrays: &mut HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let stmts = |this: &Self, ss: &[Stmt], arrays: &mut HashMap<Place, (Expr, bool)>| {
            ss.iter().all(|s| this.closed_stmt(s, arrays))
        };
        match stmt {
            // A procedure's body inlined as a statement (`swap (p, i, j)`): closed when its
            // statements and result are.
            Stmt::Expr(Expr {
                kind: ExprKind::Inlined(inlined),
                ty,
                ..
            }) => {
                Repr::of(ty).is_some()
                    && stmts(self, &inlined.stmts, arrays)
                    && inlined
                        .result
                        .as_ref()
                        .is_none_or(|r| self.closed_expr(r, arrays))
            }
            Stmt::Expr(
                e @ Expr {
                    kind: ExprKind::Prim(Prim::Varray(VarrayOp::Push), a),
                    ..
                },
            ) => self.closed_push(e, a, arrays),
            Stmt::Expr(e) => {
                (Repr::of(&e.ty).is_some() || crate::eval::native::Agg::of(&e.ty).is_some())
                    && self.closed_expr(e, arrays)
            }
            Stmt::Assign(place, e) => {
                let target = match place {
                    Place::Local(s) => self.vars.contains_key(s) || self.avars.contains_key(s),
                    Place::Global(_) => {
                        Repr::of(&e.ty).is_some_and(|r| r != Repr::Unit) || promotable(&e.ty)
                    }
                    _ => false,
                };
                target && self.closed_expr(e, arrays)
            }
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => {
                if let Some(ok) = self.closed_columns_store(*place, root_ty, path, value, arrays) {
                    return ok;
                }
                let Some(base) = self.place_base(*place) else {
                    return false;
                };
                let mut ok = self.closed_expr(value, arrays);
                let mut ty = root_ty.clone();
                let mut steps = Vec::new();
                for step in path {
                    let PathStep::Index(index, mode) = step else {
                        return false;
                    };
                    let crate::types::Type::Array(elem, _) = &ty else {
                        return false;
                    };
                    ok &= self.closed_expr(index, arrays);
                    steps.push((index, *mode, ty.clone()));
                    ty = (**elem).clone();
                }
                let base = Expr {
                    kind: base,
                    ty: root_ty.clone(),
                    span: value.span,
                };
                let repr = Repr::of(&value.ty).unwrap_or(Repr::Unit);
                let element = ElementPath {
                    base: &base,
                    pointer: false,
                    steps,
                };
                // A scalar, or a row stored whole (`store_row`).
                let scalar = repr != Repr::Unit
                    && self.element_path_ok(&element, repr)
                    && Repr::of(&ty) == Some(repr);
                ok &= scalar || self.row_store_kind(&element, &ty, &value.ty).is_some();
                if ok {
                    arrays.insert(*place, (base.clone(), true));
                }
                ok
            }
            Stmt::If(c, a, b) => {
                self.closed_expr(c, arrays) && stmts(self, a, arrays) && stmts(self, b, arrays)
            }
            Stmt::While { cond, body, .. } => {
                self.closed_expr(cond, arrays) && stmts(self, body, arrays)
            }
            Stmt::Loop { body, .. } => stmts(self, body, arrays),
            Stmt::ForRange {
                var,
                var_ty,
                from,
                to,
                body,
                ..
            } => {
                let wide = |ity: crate::types::ty::IntTy| !ity.signed() && ity.bits() == 64;
                let var_ok = match var {
                    Place::Local(s) => self.vars.contains_key(s),
                    Place::Global(_) => true,
                    _ => false,
                };
                let limit_wide = matches!(to.ty, crate::types::Type::Int(ity) if wide(ity));
                var_ok
                    && wide(*var_ty) == limit_wide
                    && Repr::of(&to.ty) == Some(Repr::I64)
                    && self.closed_expr(from, arrays)
                    && self.closed_expr(to, arrays)
                    && stmts(self, body, arrays)
            }
            Stmt::ForCodes { var, ty, body, .. } => {
                let var_ok = match var {
                    Place::Local(s) => self.vars.contains_key(s),
                    Place::Global(_) => true,
                    _ => false,
                };
                var_ok && Repr::of(ty) == Some(Repr::I64) && stmts(self, body, arrays)
            }
            Stmt::Break(_) | Stmt::Continue(_) => true,
            Stmt::Block(ss) => stmts(self, ss, arrays),
            Stmt::Specialise { .. } => false,
            Stmt::Match(scrutinee, arms) => {
                self.closed_expr(scrutinee, arrays)
                    && arms.iter().all(|arm| {
                        arm.patterns.iter().all(|p| self.closed_pattern(p))
                            && arm
                                .guard
                                .as_ref()
                                .is_none_or(|g| self.closed_expr(g, arrays))
                            && stmts(self, &arm.body, arrays)
                    })
            }
            Stmt::StoreAt { pointer, value } => {
                if let Some(ok) = self.closed_columns_store_at(pointer, value, arrays) {
                    return ok;
                }
                if let Some(base) = self.stored_through(pointer, value) {
                    return self.closed_expr(value, arrays)
                        && self.closed_pointee(base, true, arrays);
                }
                let Some(path) = ElementPath::through(pointer) else {
                    return false;
                };
                let repr = Repr::of(&value.ty).unwrap_or(Repr::Unit);
                let leaf = path.steps.last().and_then(|(_, _, ty)| match ty {
                    crate::types::Type::Array(elem, _) => Repr::of(elem),
                    _ => None,
                });
                let ok = leaf == Some(repr)
                    && self.element_path_ok(&path, repr)
                    && self.closed_expr(value, arrays);
                let Some(place) = base_place(path.base) else {
                    return false;
                };
                if ok {
                    arrays.insert(place, (path.base.clone(), true));
                }
                ok
            }
            // Nothing after it in the loop runs: only its value must keep the views valid.
            Stmt::Return(value) => value.as_ref().is_none_or(|v| self.closed_result(v, arrays)),
            Stmt::ForArray {
                var, array, body, ..
            } => self.closed_for_each(*var, array, body, arrays),
        }
    }

    /// Is `for var in array do body done` closed? Its variable in registers (a global's, held
    /// there for the loop), its elements read from leaves (`for_each_form`), and the array a
    /// variable the body neither assigns nor stores into: the loop's copy shares the array's
    /// storage, and a store through a view kept for the loop would change what it reads. (A
    /// pointer the body stores through may point into the array too.)
    fn closed_for_each(
        &self,
        var: Place,
        array: &Expr,
        body: &[Stmt],
        arrays: &mut HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let Some(place @ (Place::Local(_) | Place::Global(_))) = base_place(array) else {
            return false;
        };
        let crate::types::Type::Array(elem, _) = &array.ty else {
            return false;
        };
        let held = match var {
            Place::Local(s) => self.vars.contains_key(&s) || self.avars.contains_key(&s),
            Place::Global(_) => promotable(elem),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        };
        let form = self.for_each_form(var, &array.ty, held);
        let mut inner = HashMap::new();
        if !held
            || !matches!(form, Some(ForEach::Leaves(_)))
            || !body.iter().all(|s| self.closed_stmt(s, &mut inner))
        {
            return false;
        }
        let stores_into_it = inner.values().any(|(base, write)| {
            *write && (base_place(base) == Some(place) || base.ty.pointee().is_some())
        });
        if stores_into_it || super::hoist::assigned_places(body).contains(&place) {
            return false;
        }
        // The array itself, read through a view kept for the loop (`kept_element_leaves`).
        if matches!(array.kind, ExprKind::Local(_) | ExprKind::Global(_)) {
            arrays.entry(place).or_insert((array.clone(), false));
        }
        for (p, (base, write)) in inner {
            arrays
                .entry(p)
                .and_modify(|(_, w)| *w |= write)
                .or_insert((base, write));
        }
        true
    }

    /// Is `e` closed, or a variant or tuple built of closed values (an allocation)?
    fn closed_result(&self, e: &Expr, arrays: &mut HashMap<Place, (Expr, bool)>) -> bool {
        match &e.kind {
            ExprKind::Inject { arg, .. } => self.closed_result(arg, arrays),
            ExprKind::Tuple(parts) if crate::eval::native::Agg::of(&e.ty).is_none() => {
                parts.iter().all(|p| self.closed_result(p, arrays))
            }
            _ => self.closed_expr(e, arrays),
        }
    }

    /// Is `text` a variable holding a string in its slot (a global, or a local not in
    /// registers)?
    fn string_variable(&self, text: &Expr) -> bool {
        text.ty == crate::types::Type::String
            && match text.kind {
                ExprKind::Local(s) => !self.vars.contains_key(&s),
                ExprKind::Global(_) => true,
                _ => false,
            }
    }

    fn closed_pattern(&self, p: &Pattern) -> bool {
        match &p.kind {
            PatternKind::Wildcard | PatternKind::Const(_) | PatternKind::Range(..) => true,
            PatternKind::Bind(Place::Local(s)) => self.vars.contains_key(s),
            _ => false,
        }
    }

    /// Is `e` lowered natively with no call and no fallback piece?
    pub(super) fn closed_expr(&self, e: &Expr, arrays: &mut HashMap<Place, (Expr, bool)>) -> bool {
        let agg = crate::eval::native::Agg::of(&e.ty).is_some();
        if Repr::of(&e.ty).is_none() && !agg {
            return false;
        }
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Zero | ExprKind::TypeSize(_) => true,
            // A constant made by a conversion (`char "a"`).
            ExprKind::Prim(Prim::Convert, _) if super::expr::constant_conversion(e).is_some() => {
                true
            }
            ExprKind::Local(s) | ExprKind::Take(s) => {
                self.vars.contains_key(s) || self.avars.contains_key(s)
            }
            // A captured scalar, held in a register since the function's entry.
            ExprKind::Capture(i) => self.capture_values.contains_key(i),
            // A scalar field of the object a pointer variable points at, or a whole part of it
            // (`pointee.rs`).
            ExprKind::Field(..) | ExprKind::Deref(_)
                if super::pointee::pointee_base(e).is_some() =>
            {
                let base = super::pointee::pointee_base(e).expect("checked");
                self.closed_pointee(base, false, arrays)
            }
            // A field of an aggregate in registers (a global one held there for the loop), or
            // of an element of an array or varray of tuples stored as columns (`ps.(i).x`).
            ExprKind::Field(inner, i) => {
                crate::eval::native::Agg::component(&inner.ty, *i as usize).is_some()
                    && match &inner.kind {
                        ExprKind::Local(s) => self.avars.contains_key(s),
                        ExprKind::Global(_) => promotable(&inner.ty),
                        ExprKind::Index { .. }
                        | ExprKind::Deref(_)
                        | ExprKind::Prim(Prim::Varray(VarrayOp::Get), _) => {
                            self.closed_expr(inner, arrays)
                        }
                        _ => false,
                    }
            }
            ExprKind::Tuple(parts) | ExprKind::Array(parts) if agg => {
                parts.iter().all(|p| self.closed_expr(p, arrays))
            }
            // A scalar or pointer global, or an aggregate one held in registers.
            ExprKind::Global(_) => !agg || promotable(&e.ty),
            // A body inlined at its call (a library function's, as `len d`) whose statements
            // and value are closed.
            ExprKind::Inlined(inlined) => {
                inlined
                    .result
                    .as_ref()
                    .is_some_and(|r| self.closed_expr(r, arrays))
                    && inlined.stmts.iter().all(|s| self.closed_stmt(s, arrays))
            }
            // An element (read or set) or the length of a varray variable in the frame or a
            // global, as `varray_op` lowers them (`varray_form`): its view is kept for the
            // loop. Nothing in a closed loop pops, and it pushes only in place, onto a varray
            // no other operation of the loop reaches (`pushes_in_place`).
            ExprKind::Prim(
                Prim::Varray(
                    op @ (VarrayOp::Get | VarrayOp::Set | VarrayOp::Len | VarrayOp::MaxLen),
                ),
                a,
            ) if self.varray_form(e, *op, a).is_some() => {
                let (varray, rest) = a.split_first().expect("checked by varray_form");
                let Some(place @ (Place::Local(_) | Place::Global(_))) = base_place(varray) else {
                    return false;
                };
                if !rest.iter().all(|x| self.closed_expr(x, arrays)) {
                    return false;
                }
                arrays.entry(place).or_insert((varray.clone(), false));
                true
            }
            // An element of a varray of tuples of scalars, read or set by its columns.
            ExprKind::Prim(Prim::Varray(op @ (VarrayOp::Get | VarrayOp::Set)), a)
                if self.column_op(e, *op, a) =>
            {
                self.closed_column_op(a, arrays)
            }
            // The length or a byte of the string a variable holds, as `string_read` lowers
            // them: its view is kept for the loop (a closed loop assigns no string).
            ExprKind::Prim(Prim::StrLen | Prim::StrIndex, a) if self.string_variable(&a[0]) => {
                let index_ok = a[1..].iter().all(|i| {
                    matches!(i.ty, crate::types::Type::Int(ity) if ity.signed() || ity.bits() < 64)
                        && self.closed_expr(i, arrays)
                });
                let Some(place) = base_place(&a[0]) else {
                    return false;
                };
                if index_ok && Repr::of(&e.ty) == Some(Repr::I64) {
                    arrays.entry(place).or_insert((a[0].clone(), false));
                }
                index_ok && Repr::of(&e.ty) == Some(Repr::I64)
            }
            // A primitive on native operands is lowered natively or runs the evaluator's
            // kernel on scalar values only (`kernel`): neither can touch an array's storage.
            ExprKind::Prim(Prim::Len, _) => false,
            // An aggregate result is lowered natively only for a record literal (`Permute`).
            ExprKind::Prim(p, a) => {
                (!agg || matches!(p, Prim::Permute(_)))
                    && (super::expr::evaluates_operands_first(p)
                        || a.iter().all(|x| Repr::of(&x.ty).is_some()))
                    && a.iter().all(|x| self.closed_expr(x, arrays))
            }
            ExprKind::If(a, b, c) => {
                self.closed_expr(a, arrays)
                    && self.closed_expr(b, arrays)
                    && self.closed_expr(c, arrays)
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.closed_expr(a, arrays) && self.closed_expr(b, arrays)
            }
            ExprKind::CField(a, _) => self.closed_expr(a, arrays),
            ExprKind::CTuple(parts) => parts.iter().all(|p| self.closed_expr(p, arrays)),
            // An aggregate kept leaf for leaf (`agg_expr`'s reinterpretation).
            ExprKind::Coerce(
                CoerceKind::Reinterpret
                | CoerceKind::Opaque
                | CoerceKind::DecodeInt
                | CoerceKind::EncodeInt,
                a,
            ) => {
                let leaves = |t| crate::eval::native::Agg::of(t).map(|x| x.leaves);
                (!agg || leaves(&a.ty) == leaves(&e.ty)) && self.closed_expr(a, arrays)
            }
            // An element at a constant position of a small array global: held in registers
            // for the loop, unless the loop also reads it through a view (`promote_globals`).
            ExprKind::Index { array, index, .. }
                if matches!(array.kind, ExprKind::Global(_))
                    && super::agg::constant_component(&array.ty, index).is_some() =>
            {
                true
            }
            ExprKind::Index { .. } | ExprKind::Deref(_) => {
                let Some(path) = ElementPath::of(e) else {
                    return false;
                };
                let readable = if agg {
                    self.columns_path(&path) == crate::eval::native::Agg::of(&e.ty)
                } else {
                    self.element_path_ok(&path, Repr::of(&e.ty).unwrap_or(Repr::Unit))
                };
                if !readable
                    || !path
                        .steps
                        .iter()
                        .all(|(i, _, _)| self.closed_expr(i, arrays))
                {
                    return false;
                }
                let Some(place) = base_place(path.base) else {
                    return false;
                };
                arrays.entry(place).or_insert((path.base.clone(), false));
                true
            }
            _ => false,
        }
    }
}
