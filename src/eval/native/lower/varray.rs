//! Varrays in native code: the operations of a varray variable whose elements are held in
//! registers, each one call of the runtime's `varray_op`, which runs the kernels' own code
//! (`compile/varray.rs`) under the varray's lock, so values and faults are theirs. A push in a
//! closed loop stores in place instead (`pushes.rs`).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place, Prim, VarrayOp};
use crate::core::visit::each_in_expr;
use crate::eval::compile::varray::NativeVarrayOp;
use crate::eval::native::{Agg, Repr};
use crate::eval::value::{leaf_repr, ColumnLayout, LeafRepr};
use crate::types::ty::NominalBody;
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
            if let Some(agg) = column_element(e, op, a) {
                return Some(self.leaves_call(e, op, index, a, &agg));
            }
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
        if let (VarrayOp::Push, Some(v)) = (op, value) {
            let pushed = self.push_in_place(e, a, &[v], |l| {
                l.varray_call(e, op, index, element, varray, i, x);
            });
            if pushed {
                return Some(V::Unit);
            }
        }
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

    /// `varray[T] n`, a new empty varray of bound `n`, written to `out` (replaced) by the
    /// runtime. False, with nothing lowered, when `e`'s type is not a varray's.
    pub(super) fn new_varray_into(&mut self, e: &Expr, a: &[Expr], out: ClValue) -> bool {
        let (Some(element), [bound]) = (crate::eval::compile::varray::element_type(&e.ty), a)
        else {
            return false;
        };
        let bound = self.expr(bound).int();
        let element = self.keep(element);
        let element = self.ptr_const(element);
        self.call_helper(
            Helper::VarrayNew,
            &[types::I64; 3],
            &[],
            &[element, bound, out],
        );
        true
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
        let site = self.varray_site(op, index, None, e.span);
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

    /// A varray operation of `values_form` on elements that are tuples of scalars (`agg`),
    /// never boxed: the index, then the element's leaves; each leaf read from or stored to
    /// its column through the columns kept for the enclosing closed loop when the index is
    /// inside them, else by the runtime (`varray_leaves_op`, which raises the kernels' own
    /// faults and grows the columns for a `Push`).
    fn leaves_call(
        &mut self,
        e: &Expr,
        op: VarrayOp,
        index: Option<crate::types::IntTy>,
        a: &[Expr],
        agg: &Agg,
    ) -> V {
        let (varray, rest) = a.split_first().expect("values_form: a varray operand");
        self.check_base(varray);
        let i = match index {
            Some(_) => self.expr(&rest[0]).int(),
            None => self.iconst(0),
        };
        let element = match (op, rest) {
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => {
                let v = self.expr(x);
                self.leaves(v)
            }
            _ => vec![],
        };
        if op == VarrayOp::Push {
            let pushed = self.push_in_place(e, a, &element, |l| {
                l.leaves_runtime(e, op, index, varray, i, &element, agg);
            });
            if pushed {
                return V::Unit;
            }
        }
        let layout = agg.layout().expect("checked by column_element");
        let place = super::hoist::base_place(varray);
        let columns = (place.as_ref())
            .and_then(|place| self.views.get(place))
            .filter(|(data, _, _)| data.len() == layout.kinds.len() + 1 && op != VarrayOp::Push)
            .map(|(data, _, _)| data.clone());
        let Some(columns) = columns else {
            return self.leaves_runtime(e, op, index, varray, i, &element, agg);
        };
        let (data, readable) = columns.split_at(layout.kinds.len());
        let join = self.join_block(Repr::Unit, (op == VarrayOp::Get).then_some(agg));
        if !place.is_some_and(|place| self.below_count(&rest[0], place)) {
            let inside = (self.b.ins()).icmp(IntCC::UnsignedLessThan, i, readable[0]);
            let (fast, cold) = (self.b.create_block(), self.b.create_block());
            self.b.set_cold_block(cold);
            self.b.ins().brif(inside, fast, &[], cold, &[]);
            self.b.seal_block(fast);
            self.b.seal_block(cold);
            self.b.switch_to_block(cold);
            let v = self.leaves_runtime(e, op, index, varray, i, &element, agg);
            let v = self.jump_values(v);
            self.b.ins().jump(join, &super::args(&v));
            self.b.switch_to_block(fast);
        }
        let mut read = Vec::new();
        for (c, (kind, column)) in layout.kinds.iter().zip(data).enumerate() {
            let at = self.leaf_addr(*kind, *column, i);
            match element.get(c) {
                Some(V::I(x) | V::F(x)) => self.store_leaf(*kind, *x, at),
                _ => read.extend(self.load_leaf(*kind, at).scalars()),
            }
        }
        self.b.ins().jump(join, &super::args(&read));
        self.joined(join, Repr::Unit, (op == VarrayOp::Get).then_some(agg))
    }

    /// `leaves_call` by the runtime: the element's leaves (`Set`, `Push`) into a buffer the
    /// runtime copies into the columns, or the element read from them into the buffer (`Get`).
    #[allow(clippy::too_many_arguments)]
    fn leaves_runtime(
        &mut self,
        e: &Expr,
        op: VarrayOp,
        index: Option<crate::types::IntTy>,
        varray: &Expr,
        i: ClValue,
        element: &[V],
        agg: &Agg,
    ) -> V {
        let buf = self.leaf_buffer(agg.leaves.len());
        self.store_leaves(buf, element);
        let addr = self.base_addr(varray);
        let site = self.varray_site(op, index, None, e.span);
        let desc = self.agg_ptr(agg) as i64;
        let desc = self.iconst(desc);
        let rt = self.rt;
        self.call_helper(
            Helper::VarrayLeavesOp,
            &[types::I64; 6],
            &[],
            &[rt, site, desc, addr, i, buf],
        );
        self.check_failed();
        match op {
            VarrayOp::Get => {
                let leaves = self.load_leaves(buf, agg);
                self.agg_value(leaves)
            }
            _ => V::Unit,
        }
    }

    /// The address of the description the runtime's varray helpers are given of an
    /// operation: what it is, its index's type, how registers hold its element (`None`: as
    /// values, or as an aggregate's leaves), and where it is.
    fn varray_site(
        &mut self,
        op: VarrayOp,
        index: Option<crate::types::IntTy>,
        element: Option<Repr>,
        span: crate::syntax::span::Span,
    ) -> ClValue {
        let site = self.keep(NativeVarrayOp {
            op,
            index,
            element,
            span,
        });
        self.ptr_const(site)
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
        let site = self.varray_site(op, index, Some(element), e.span);
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

    /// The elements of the varray in the value at `addr`, of type `ty`: the address of the
    /// first when they are scalars, else null, or when they are tuples of scalars the address
    /// of each column (`varray_columns`), and their count (0 when it holds no varray).
    pub(super) fn varray_view(&mut self, addr: ClValue, ty: &Type) -> (Vec<ClValue>, ClValue) {
        let n = varray_columns(ty).map_or(1, |layout| layout.kinds.len());
        let out = self.leaf_buffer(n + 1);
        let count = self.iconst(n as i64);
        self.call_helper(
            Helper::VarrayView,
            &[types::I64; 3],
            &[],
            &[addr, out, count],
        );
        let data = (0..n)
            .map(|c| (self.b.ins()).load(types::I64, super::flags(), out, (c * 8) as i32))
            .collect();
        let len = (self.b.ins()).load(types::I64, super::flags(), out, (n * 8) as i32);
        (data, len)
    }

    /// Is `e` a varray operation of `leaves_call`: on a varray variable, by a closed index,
    /// with an element that is a tuple of scalars?
    pub(super) fn column_op(&self, e: &Expr, op: VarrayOp, a: &[Expr]) -> bool {
        self.values_form(e, op, a).is_some() && column_element(e, op, a).is_some()
    }

    /// Is the `column_op` of operands `a` closed: its index and element are. The columns of a
    /// varray variable in the frame or a global are then kept for the loop (see `varray_op`).
    pub(super) fn closed_column_op(
        &self,
        a: &[Expr],
        arrays: &mut std::collections::HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let (varray, rest) = a.split_first().expect("checked by column_op");
        if !rest.iter().all(|x| self.closed_expr(x, arrays)) {
            return false;
        }
        if let Some(place @ (Place::Local(_) | Place::Global(_))) = super::hoist::base_place(varray)
        {
            arrays.entry(place).or_insert((varray.clone(), false));
        }
        true
    }
}

/// Is `base`, a variable a closed loop uses (`closed_expr`), a varray's rather than an array's,
/// a pointer's or a string's?
pub(super) fn varray_base(base: &Expr) -> bool {
    base.ty.pointee().is_none() && !matches!(base.ty, Type::Array(..) | Type::String)
}

/// The column layout of the elements of a varray or darray type, when they are tuples,
/// records or structs of scalars (which a varray stores as columns, `Items::of`).
pub(super) fn varray_columns(ty: &Type) -> Option<&'static ColumnLayout> {
    match leaf_repr(varray_element(ty)?) {
        LeafRepr::Columns(layout) => Some(layout),
        _ => None,
    }
}

/// The element type of a varray or darray type.
pub(super) fn varray_element(ty: &Type) -> Option<&Type> {
    let Type::Nominal(def) = ty else {
        return None;
    };
    let (declaration, _) = def.instance.as_ref()?;
    let Some(NominalBody::Variant(constructors)) = def.body() else {
        return None;
    };
    let inner = constructors.first()?.1.as_ref()?;
    match &*declaration.name {
        "darray" => varray_element(inner),
        "varray" => Some(inner),
        _ => None,
    }
}

/// The aggregate of the element of a varray operation (`Get`, `Set`, `Push`) when it is a
/// tuple, record or struct of scalars, which a varray stores as columns (`Items::of`):
/// `leaves_call` moves it between its columns and registers, never boxed.
pub(super) fn column_element(e: &Expr, op: VarrayOp, a: &[Expr]) -> Option<Agg> {
    let element = match (op, a) {
        (VarrayOp::Set, [_, _, x]) | (VarrayOp::Push, [_, x]) => &x.ty,
        (VarrayOp::Get, [_, _]) => &e.ty,
        _ => return None,
    };
    Agg::of(element).filter(|agg| agg.layout().is_some())
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
