//! Varrays in native code: the operations of a varray variable whose elements are held in
//! registers, each one call of the runtime's `varray_op`, which runs the kernels' own code
//! (`compile/varray.rs`) under the varray's lock, so values and faults are theirs.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place, Prim, VarrayOp};
use crate::core::visit::each_in_expr;
use crate::eval::compile::varray::NativeVarrayOp;
use crate::eval::native::{Agg, Repr};
use crate::types::Type;

use super::super::runtime::Helper;
use super::{Lower, V};

impl Lower<'_, '_, '_> {
    /// A varray operation (`Prim::Varray`: its length or bound, an element read, set, pushed,
    /// popped) on a varray variable, by the runtime's `varray_op` (the kernels' own code,
    /// under the varray's lock) when its elements are held in registers, by `values_call`
    /// when they are not scalars; `None` for any other, left to a kernel call or a fallback
    /// piece. The variable's varray is taken when the operation runs, after the index and
    /// element, which are closed (no call, no effect), so the order cannot show.
    pub(super) fn varray_op(&mut self, e: &Expr, op: VarrayOp, a: &[Expr]) -> Option<V> {
        if let Some(index) = self.values_form(e, op, a) {
            return Some(match Agg::of(&e.ty) {
                // An aggregate element read: cloned into a temporary, then unboxed.
                Some(agg) => {
                    let temp = self.temp_value();
                    self.values_call(e, op, index, a, Some(temp));
                    let v = self.unbox_from(temp, &agg);
                    self.drop_value(temp);
                    v
                }
                None => {
                    self.values_call(e, op, index, a, None);
                    V::Unit
                }
            });
        }
        let (element, index) = self.varray_form(e, op, a)?;
        let (varray, rest) = a.split_first()?;
        let closed = rest
            .iter()
            .all(|x| self.closed_expr(x, &mut std::collections::HashMap::new()));
        if !closed {
            return None;
        }
        self.check_base(varray);
        let zero = self.iconst(0);
        let i = match index {
            Some(_) => self.expr(&rest[0]).int(),
            None => zero,
        };
        let value = match (op, rest) {
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => Some(self.expr(x)),
            _ => None,
        };
        let x = match value {
            Some(V::F(f)) => self.b.ins().bitcast(types::I64, MemFlagsData::new(), f),
            Some(v) => v.int(),
            None => zero,
        };
        let place = super::hoist::base_place(varray);
        let hoisted = (place.as_ref())
            .and_then(|place| self.views.get(place))
            .map(|(data, len, _)| (data[0], data[1], *len));
        let stored = match (op, rest) {
            (VarrayOp::Set, [_, x]) => crate::eval::value::ScalarKind::of(&x.ty),
            _ => None,
        };
        match (op, hoisted) {
            // Inside the count, which a varray of scalar elements holds at `data` (they are
            // stored as scalars, `Items::of`): read without a test.
            (VarrayOp::Get, Some((data, _, _)))
                if place.is_some_and(|place| self.below_count(&rest[0], place)) =>
            {
                let kind = crate::eval::value::ScalarKind::of(&e.ty).expect("a scalar element");
                let at = self.leaf_addr(kind, data, i);
                return Some(self.load_leaf(kind, at));
            }
            (VarrayOp::Get, Some((data, readable, _))) => {
                return Some(self.varray_read(e, data, readable, i, element, |l| {
                    l.varray_call(e, op, index, element, varray, i, x)
                }));
            }
            // A store into the elements, which every holder of the varray shares.
            (VarrayOp::Set, Some((data, readable, _))) if stored.is_some() => {
                let kind = stored.expect("a scalar element");
                let v = match value.expect("an element") {
                    V::F(f) => f,
                    v => v.int(),
                };
                if place.is_some_and(|place| self.below_count(&rest[0], place)) {
                    let at = self.leaf_addr(kind, data, i);
                    self.store_leaf(kind, v, at);
                    return Some(V::Unit);
                }
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, readable);
                let (fast, cold, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.set_cold_block(cold);
                self.b.ins().brif(inside, fast, &[], cold, &[]);
                self.b.seal_block(fast);
                self.b.seal_block(cold);
                self.b.switch_to_block(cold);
                self.varray_call(e, op, index, element, varray, i, x);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(fast);
                let at = self.leaf_addr(kind, data, i);
                self.store_leaf(kind, v, at);
                self.b.ins().jump(join, &[]);
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                return Some(V::Unit);
            }
            // The count, which nothing in the loop changes.
            (VarrayOp::Len, Some((_, _, len))) => return Some(V::I(len)),
            _ => {}
        }
        Some(self.varray_call(e, op, index, element, varray, i, x))
    }

    /// The element's representation and the index type of a varray operation `varray_op`
    /// lowers (its operands aside): on a varray variable (a local kept in the frame, a global,
    /// a captured value), of scalar elements, by an integer index. `None` for any other.
    pub(super) fn varray_form(
        &self,
        e: &Expr,
        op: VarrayOp,
        a: &[Expr],
    ) -> Option<(Repr, Option<crate::types::IntTy>)> {
        let (varray, rest) = a.split_first()?;
        let variable = match varray.kind {
            ExprKind::Local(s) => !self.vars.contains_key(&s) && !self.avars.contains_key(&s),
            ExprKind::Global(_) => true,
            ExprKind::Capture(i) => (i as usize) < self.n_captures,
            _ => false,
        };
        let element = match (op, rest) {
            (VarrayOp::Len | VarrayOp::MaxLen | VarrayOp::Pop, []) => None,
            (VarrayOp::Get, [_]) => Some(&e.ty),
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => Some(&x.ty),
            _ => return None,
        };
        let element = match element.map(Repr::of) {
            None => Repr::I64,
            Some(Some(r @ (Repr::I64 | Repr::F64))) => r,
            Some(_) => return None,
        };
        let index = match (op, rest.first().map(|i| &i.ty)) {
            (VarrayOp::Get | VarrayOp::Set, Some(Type::Int(ity))) => Some(*ity),
            (VarrayOp::Get | VarrayOp::Set, _) => return None,
            _ => None,
        };
        variable.then_some((element, index))
    }

    /// The index type of a varray operation whose element is not a scalar (a string, a
    /// variant, a tuple or struct) that `values_call` lowers: on a varray variable (captured
    /// ones too), by a closed integer index, with an element that leaves the variable alone
    /// (so computing it before the variable is read cannot show). `Some(None)` for `Push`;
    /// `None` for any other form.
    pub(super) fn values_form(
        &self,
        e: &Expr,
        op: VarrayOp,
        a: &[Expr],
    ) -> Option<Option<crate::types::IntTy>> {
        let (varray, rest) = a.split_first()?;
        let variable = match varray.kind {
            ExprKind::Local(s) => !self.vars.contains_key(&s) && !self.avars.contains_key(&s),
            ExprKind::Global(_) | ExprKind::LocalCell(_) => true,
            ExprKind::Capture(i) | ExprKind::CaptureCell(i) => (i as usize) < self.n_captures,
            _ => false,
        };
        let (element, index, x) = match (op, rest) {
            (VarrayOp::Get, [i]) => (&e.ty, Some(i), None),
            (VarrayOp::Set, [i, x]) => (&x.ty, Some(i), Some(x)),
            (VarrayOp::Push, [x]) => (&x.ty, None, Some(x)),
            _ => return None,
        };
        if !variable || Repr::of(element).is_some() {
            return None;
        }
        let index = match index {
            Some(i) => match &i.ty {
                Type::Int(ity) if self.closed_expr(i, &mut std::collections::HashMap::new()) => {
                    Some(*ity)
                }
                _ => return None,
            },
            None => None,
        };
        let alone = x.is_none_or(|x| leaves_alone(x, varray));
        alone.then_some(index)
    }

    /// A varray operation of `values_form`: the index, then the element into a temporary the
    /// runtime moves into the varray (`Push`, `Set`), or the element read into `out` (`Get`).
    pub(super) fn values_call(
        &mut self,
        e: &Expr,
        op: VarrayOp,
        index: Option<crate::types::IntTy>,
        a: &[Expr],
        out: Option<ClValue>,
    ) {
        let (varray, rest) = a.split_first().expect("values_form: a varray operand");
        self.check_base(varray);
        let i = match index {
            Some(_) => self.expr(&rest[0]).int(),
            None => self.iconst(0),
        };
        let null = self.iconst(0);
        let x = match (op, rest) {
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => {
                let temp = self.temp_value();
                self.value_into(x, temp, "an element of a varray");
                temp
            }
            _ => null,
        };
        let addr = self.base_addr(varray);
        let site = self.keep(NativeVarrayOp {
            op,
            index,
            element: None,
            span: e.span,
        });
        let site = self.ptr_const(site);
        let rt = self.rt;
        let out = out.unwrap_or(null);
        self.call_helper(
            Helper::VarrayValuesOp,
            &[types::I64; 6],
            &[],
            &[rt, site, addr, i, x, out],
        );
        self.check_failed();
    }

    /// `varray_op`'s runtime call.
    #[allow(clippy::too_many_arguments)]
    fn varray_call(
        &mut self,
        e: &Expr,
        op: VarrayOp,
        index: Option<crate::types::IntTy>,
        element: Repr,
        varray: &Expr,
        i: ClValue,
        x: ClValue,
    ) -> V {
        let addr = self.base_addr(varray);
        let site = self.keep(NativeVarrayOp {
            op,
            index,
            element: Some(element),
            span: e.span,
        });
        let site = self.ptr_const(site);
        let rt = self.rt;
        let r = self
            .call_helper(
                Helper::VarrayOp,
                &[types::I64; 5],
                &[types::I64],
                &[rt, site, addr, i, x],
            )
            .expect("varray_op returns bits");
        self.check_failed();
        match op {
            VarrayOp::Get => self.bits_value(r, element),
            VarrayOp::Len | VarrayOp::MaxLen => V::I(r),
            _ => V::Unit,
        }
    }

    /// Element `i` of a varray through the view kept for the enclosing closed loop: `data`,
    /// where `readable` elements are (none when `data` is null). Outside them, `slow`, the
    /// runtime call, which raises the kernel's own error.
    fn varray_read(
        &mut self,
        e: &Expr,
        data: ClValue,
        readable: ClValue,
        i: ClValue,
        element: Repr,
        slow: impl FnOnce(&mut Self) -> V,
    ) -> V {
        let kind = crate::eval::value::ScalarKind::of(&e.ty).expect("checked: a scalar element");
        let join = self.b.create_block();
        self.b
            .append_block_param(join, element.clif().unwrap_or(types::I64));
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, readable);
        let fast = self.b.create_block();
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        self.b.ins().brif(inside, fast, &[], cold, &[]);
        self.b.seal_block(fast);
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        let v = slow(self).int();
        self.b.ins().jump(join, &super::args(&[v]));
        self.b.switch_to_block(fast);
        let at = self.leaf_addr(kind, data, i);
        let v = self.load_leaf(kind, at).int();
        self.b.ins().jump(join, &super::args(&[v]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_value(join, element)
    }

    /// The elements of the varray in the value at `addr`: the address of the first when they
    /// are scalars (else null) and their count (0 when it holds no varray).
    pub(super) fn varray_view(&mut self, addr: ClValue) -> (ClValue, ClValue) {
        let out = self.leaf_buffer(2);
        self.call_helper(Helper::VarrayView, &[types::I64; 2], &[], &[addr, out]);
        let data = self.b.ins().load(types::I64, super::flags(), out, 0);
        let len = self.b.ins().load(types::I64, super::flags(), out, 8);
        (data, len)
    }
}

/// Does computing `x` leave the varray variable `varray` as it is: no assignment or move of
/// it, and, for a global or captured one (which a function may assign), no call?
fn leaves_alone(x: &Expr, varray: &Expr) -> bool {
    let local = match varray.kind {
        ExprKind::Local(s) => Some(s),
        _ => None,
    };
    let place = match varray.kind {
        ExprKind::Local(s) => Some(Place::Local(s)),
        ExprKind::LocalCell(s) => Some(Place::LocalCell(s)),
        ExprKind::Global(s) => Some(Place::Global(s)),
        ExprKind::CaptureCell(i) => Some(Place::CaptureCell(i)),
        _ => None,
    };
    let alone = std::cell::Cell::new(true);
    each_in_expr(
        x,
        &mut |e| match &e.kind {
            ExprKind::Take(s) if Some(*s) == local => alone.set(false),
            ExprKind::Call { .. }
            | ExprKind::MakeFun { .. }
            | ExprKind::Closure { .. }
            | ExprKind::MapLoop { .. }
            | ExprKind::Inlined(_)
            | ExprKind::Prim(_, _)
                if local.is_none() && calls_code(e) =>
            {
                alone.set(false)
            }
            _ => {}
        },
        &mut |written| {
            if Some(written) == place {
                alone.set(false);
            }
        },
    );
    alone.get()
}

/// May evaluating `e` itself (its operands aside) run code of the program: a call, a closure,
/// a map, an inlined body, or a kernel applying a function value?
fn calls_code(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Prim(p, _) => matches!(
            p,
            Prim::Map | Prim::Filter | Prim::FoldLeft | Prim::SortBy | Prim::Mem | Prim::MemRel
        ),
        _ => true,
    }
}
