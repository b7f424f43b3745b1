//! Aggregates of scalars (tuples, records and structs of scalars, small arrays of scalars) as
//! their leaves in registers: construction, projection at constant positions, variables,
//! conditions, calls and returns. Where an aggregate meets code that needs the evaluator's
//! value (a fallback piece, a global, a frame slot), it is boxed or unboxed by a runtime
//! helper at that point only.

use cranelift_codegen::ir::{
    condcodes::IntCC, types, InstBuilder, StackSlotData, StackSlotKind, Value as ClValue,
};

use crate::core::ir::{
    CoerceKind, Const, Expr, ExprKind, IndexMode, PathStep, Place, Prim, Slot, Stmt,
};
use crate::eval::array::Shape;
use crate::eval::value::LeafRepr;
use crate::types::Type;

use super::super::runtime::{Helper, Site};
use super::element::ElementPath;
use super::hoist::Outside;
use super::{args, flags, Lower, V};
use crate::eval::native::{Agg, Repr};

/// The leaves of component `index` of a value of `ty` when `index` is a constant naming one
/// (a field number, or an in-range element position): first leaf and count.
pub(super) fn constant_component(ty: &Type, index: &Expr) -> Option<(usize, usize)> {
    Agg::of(ty)?;
    Agg::component(ty, constant_position(index)?)
}

/// The position `index` names when it is a constant: an integer, or one decoded into the
/// index type (`r.(2 :>> 3)`, which cannot fail when the position is below the type's size,
/// as every component's is).
pub(super) fn constant_position(index: &Expr) -> Option<usize> {
    match &index.kind {
        ExprKind::Const(Const::Int(k)) => usize::try_from(*k).ok(),
        ExprKind::Coerce(CoerceKind::DecodeInt, inner) => match inner.kind {
            ExprKind::Const(Const::Int(k)) => usize::try_from(k).ok(),
            _ => None,
        },
        _ => None,
    }
}

impl Lower<'_, '_, '_> {
    /// Lower an expression whose value is the aggregate `agg`.
    pub(super) fn agg_expr(&mut self, e: &Expr, agg: &Agg) -> V {
        match &e.kind {
            ExprKind::Tuple(parts) | ExprKind::Array(parts) => {
                let mut leaves = Vec::with_capacity(agg.leaves.len());
                for part in parts {
                    let v = self.expr(part);
                    leaves.extend(self.leaves(v));
                }
                if leaves.len() != agg.leaves.len() {
                    return self.agg_fallback(e, agg, "a tuple of unexpected leaves");
                }
                self.agg_value(leaves)
            }
            // A record literal out of field order: the fields computed in source order, each
            // placed at its position.
            ExprKind::Prim(Prim::Permute(order), parts) => {
                let mut fields = vec![Vec::new(); parts.len()];
                for (part, &position) in parts.iter().zip(order.iter()) {
                    let v = self.expr(part);
                    fields[position as usize] = self.leaves(v);
                }
                let leaves: Vec<V> = fields.into_iter().flatten().collect();
                if leaves.len() != agg.leaves.len() {
                    return self.agg_fallback(e, agg, "a record of unexpected leaves");
                }
                self.agg_value(leaves)
            }
            ExprKind::Local(s) | ExprKind::Take(s) if self.avars.contains_key(s) => {
                self.read_agg_var(*s)
            }
            ExprKind::Capture(i) => self.capture_agg(e, *i, agg),
            ExprKind::Local(s) | ExprKind::Take(s) => {
                self.frame_used = true;
                let addr = self.slot_addr(*s);
                self.unbox_from(addr, agg)
            }
            ExprKind::Global(s) => {
                if let Some(v) = self.promoted_read(*s, Some(e.span)) {
                    return v;
                }
                self.check_global_set(*s, &e.ty, e.span);
                let addr = self.global_addr(*s);
                self.unbox_from(addr, agg)
            }
            ExprKind::Zero => {
                let leaves = agg.leaves.iter().map(|r| self.zero(*r)).collect();
                self.agg_value(leaves)
            }
            ExprKind::Field(inner, i) if Agg::of(&inner.ty).is_some() => {
                match Agg::component(&inner.ty, *i as usize) {
                    Some(range) => self.project(inner, range),
                    None => self.agg_fallback(e, agg, "a field of an unknown layout"),
                }
            }
            // The object a pointer variable points at, or a part of it, read where it lives.
            ExprKind::Deref(_) if super::pointee::read_whole(e).is_some() => {
                self.read_whole_pointee(e, agg)
            }
            ExprKind::Index { .. } | ExprKind::Deref(_)
                if ElementPath::of(e)
                    .is_some_and(|path| self.columns_path(&path).as_ref() == Some(agg)) =>
            {
                let path = ElementPath::of(e).expect("checked");
                self.columns_read(e, &path, agg)
            }
            ExprKind::Index { array, index, .. }
                if !self.element_base(array) && constant_component(&array.ty, index).is_some() =>
            {
                let range = constant_component(&array.ty, index).expect("checked");
                self.project(array, range)
            }
            // A reshape keeps the leaves in their order.
            ExprKind::Coerce(
                CoerceKind::Reinterpret | CoerceKind::Opaque | CoerceKind::Reshape,
                inner,
            ) if Agg::of(&inner.ty).is_some_and(|a| a.leaves == agg.leaves) => self.expr(inner),
            ExprKind::If(c, t, f) => {
                let join = self.join_block(Repr::Unit, Some(agg));
                self.lower_if((c, t, f), join, |l, arm| {
                    let v = l.expr(arm);
                    l.jump_values(v)
                });
                self.joined(join, Repr::Unit, Some(agg))
            }
            // A small array mapped element by element in registers, or made in memory by a
            // native loop (from an array not in registers) and read back.
            ExprKind::MapLoop { .. } => match self.map_in_registers(e, agg) {
                Some(v) => v,
                None if self.native_map(e) => self.unboxed(agg, |l, temp| l.map_into(e, temp)),
                None => self.agg_fallback(
                    e,
                    agg,
                    "a map whose source or elements are not scalars in registers",
                ),
            },
            // An element of a varray variable (`items.i`), read by `varray_op`.
            ExprKind::Prim(Prim::Varray(op), a) if self.values_form(e, *op, a).is_some() => self
                .varray_op(e, *op, a)
                .expect("values_form: an element read varray_op lowers"),
            ExprKind::Call { func, args } => self.call(e, func, args, Repr::Unit),
            ExprKind::Inlined(inlined) => self.inlined(inlined, Repr::Unit, e),
            ExprKind::Match(scrutinee, arms) => {
                let join = self.join_block(Repr::Unit, Some(agg));
                self.lower_match(scrutinee, arms, join, |l, body| {
                    let v = l.expr(body);
                    Some(l.jump_values(v))
                });
                self.joined(join, Repr::Unit, Some(agg))
            }
            _ => self.agg_fallback(e, agg, "an aggregate expression form not lowered yet"),
        }
    }

    /// Is `array` a variable whose elements native code reads in place (an array global not
    /// held in registers for a loop, or a local kept in the frame), rather than an aggregate
    /// in registers?
    pub(super) fn element_base(&self, array: &Expr) -> bool {
        match &array.kind {
            ExprKind::Global(g) => {
                matches!(array.ty, Type::Array(..)) && !self.promoted.contains_key(g)
            }
            ExprKind::LocalCell(_) | ExprKind::CaptureCell(_) => {
                matches!(array.ty, Type::Array(..))
            }
            ExprKind::Local(s) => {
                matches!(array.ty, Type::Array(..)) && !self.avars.contains_key(s)
            }
            ExprKind::Deref(_) => true,
            ExprKind::Index { array, .. } => self.element_base(array),
            _ => false,
        }
    }

    /// The leaves `range` (first, count) of the aggregate `inner`: one scalar, or an
    /// aggregate.
    pub(super) fn project(&mut self, inner: &Expr, (first, count): (usize, usize)) -> V {
        let v = self.expr(inner);
        let leaves = self.leaves(v);
        let part: Vec<V> = leaves[first..first + count].to_vec();
        match part.as_slice() {
            [one] => *one,
            _ => self.agg_value(part),
        }
    }

    /// Evaluate the aggregate `e` on the closure compiler and unbox its leaves.
    pub(super) fn agg_fallback(&mut self, e: &Expr, agg: &Agg, why: &str) -> V {
        self.unboxed(agg, |l, temp| l.eval_into(e, temp, why))
    }

    /// The aggregate `agg` that `make` writes to a temporary evaluator value, unboxed.
    fn unboxed(&mut self, agg: &Agg, make: impl FnOnce(&mut Self, ClValue)) -> V {
        let temp = self.temp_value();
        make(self, temp);
        let v = self.unbox_from(temp, agg);
        self.drop_value(temp);
        v
    }
}

/// A path's index steps and the field numbers that follow them (`p.(i).x.y`); `None` when
/// an index follows a field.
pub(super) fn split_fields(path: &[PathStep]) -> Option<(&[PathStep], Vec<u32>)> {
    let n = path
        .iter()
        .take_while(|s| matches!(s, PathStep::Index(..)))
        .count();
    let fields = path[n..]
        .iter()
        .map(|s| match s {
            PathStep::Field(f) => Some(*f),
            PathStep::Index(..) => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((&path[..n], fields))
}

/// The leaves (first, count) the fields `fields` select in a value of the aggregate type
/// `ty`, and the selected value's type.
pub(super) fn field_leaves(ty: &Type, fields: &[u32]) -> Option<((usize, usize), Type)> {
    let mut range = (0, Agg::of(ty)?.leaves.len());
    let mut ty = ty.clone();
    for f in fields {
        let (start, n) = Agg::component(&ty, *f as usize)?;
        range = (range.0 + start, n);
        ty = ty.field_type(*f as usize)?;
    }
    Some((range, ty))
}

impl Lower<'_, '_, '_> {
    /// The aggregate of the elements an element path ends at, when they are tuples of
    /// scalars stored as columns (an array of structs).
    pub(super) fn columns_path(&self, path: &ElementPath<'_>) -> Option<Agg> {
        let (_, _, last) = path.steps.last()?;
        let Type::Array(elem, _) = last else {
            return None;
        };
        let agg = Agg::of(elem)?;
        let layout = agg.layout()?;
        let shape = Shape::of(last)?;
        (shape.elem_leaves == 1 && self.leaf_path_ok(path, LeafRepr::Columns(layout)))
            .then_some(agg)
    }

    /// The columns of the array in the evaluator's value at `addr` (or, when `pointer`, of
    /// the array the pointer there points at): its element count and each column's first leaf,
    /// made unshared first when `write`; through a pointer whose target native code cannot
    /// see, the first column's address is null.
    pub(super) fn columns_at(
        &mut self,
        addr: ClValue,
        write: bool,
        pointer: bool,
        n_columns: usize,
    ) -> (ClValue, Vec<ClValue>) {
        let buf = self.leaf_buffer(n_columns + 1);
        let zero = self.iconst(0);
        self.b.ins().store(flags(), zero, buf, 8);
        let helpers = (Helper::ColumnsView, Helper::PointerColumnsView);
        self.call_view(helpers, addr, write, pointer, buf);
        let len = self.b.ins().load(types::I64, flags(), buf, 0);
        let columns = (0..n_columns)
            .map(|c| {
                self.b
                    .ins()
                    .load(types::I64, flags(), buf, (8 * (c + 1)) as i32)
            })
            .collect();
        (len, columns)
    }

    /// A store `place.(i)...` along `indices` from `root_ty` into an array variable (in the
    /// frame, or a global): the variable as an expression, the index steps and the type they
    /// reach; `None` when the place or a step is not of that form, or there is no step.
    #[allow(clippy::type_complexity)]
    pub(super) fn store_steps<'e>(
        &self,
        place: Place,
        root_ty: &Type,
        indices: &'e [PathStep],
        span: crate::syntax::span::Span,
    ) -> Option<(Expr, Vec<(&'e Expr, IndexMode, Type)>, Type)> {
        let kind = self.place_base(place)?;
        let base = Expr {
            kind,
            ty: root_ty.clone(),
            span,
        };
        let mut steps = Vec::new();
        let mut ty = root_ty.clone();
        for step in indices {
            let (PathStep::Index(index, mode), Type::Array(elem, _)) = (step, &ty) else {
                return None;
            };
            let elem = (**elem).clone();
            steps.push((index, *mode, ty.clone()));
            ty = elem;
        }
        (!steps.is_empty()).then_some((base, steps, ty))
    }

    /// Read the element (a tuple of scalars, `e`) of an array of them stored as columns.
    pub(super) fn columns_read(&mut self, e: &Expr, path: &ElementPath<'_>, agg: &Agg) -> V {
        self.check_base(path.base);
        let pos = self.leaf_position(path);
        let join = self.b.create_block();
        self.value_params(join, Repr::Unit, Some(agg));
        let unviewable = |l: &mut Self| {
            let v = l.agg_fallback(e, agg, "");
            let vals = l.jump_values(v);
            l.b.ins().jump(join, &args(&vals));
        };
        let n_columns = Some(agg.leaves.len());
        let columns = self.checked_view(path, false, n_columns, pos, unviewable, Outside::Raise);
        let kinds = &agg.layout().expect("an aggregate stored as columns").kinds;
        let mut vals = Vec::with_capacity(columns.len());
        for (data, kind) in columns.iter().zip(kinds) {
            let at = self.leaf_addr(*kind, *data, pos);
            vals.push(self.load_leaf(*kind, at).int());
        }
        self.b.ins().jump(join, &args(&vals));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_values(join, Repr::Unit, Some(agg))
    }

    /// R0001 when the leaf position `pos` is not below the array's count `len` (a variable
    /// holding no array yet has a count of 0).
    pub(super) fn check_position(&mut self, path: &ElementPath<'_>, pos: ClValue, len: ClValue) {
        let bad = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, pos, len);
        let zero = self.iconst(0);
        self.raise_if(
            bad,
            Site::Index {
                array_ty: path.steps[0].2.clone(),
                n: 0,
                linear: None,
                span: path.base.span,
            },
            pos,
            zero,
        );
    }

    /// Store `value` into the leaves `range` of the element at leaf position `pos` of an
    /// array of tuples stored as columns (the statement `s`): copy-on-write first; nothing
    /// is stored into a variable that holds no array.
    pub(super) fn columns_store(
        &mut self,
        s: &Stmt,
        path: &ElementPath<'_>,
        agg: &Agg,
        (first, count): (usize, usize),
        pos: ClValue,
        value: V,
    ) {
        let leaves = self.leaves(value);
        debug_assert_eq!(leaves.len(), count);
        let bits: Vec<ClValue> = leaves
            .iter()
            .filter_map(|leaf| match leaf {
                V::I(x) | V::F(x) => Some(*x),
                _ => None,
            })
            .collect();
        let kinds = &agg.layout().expect("an aggregate stored as columns").kinds;
        if !self.unchecked_view(path, true, Some(kinds.len())) {
            self.pin(&bits);
        }
        self.store_inside(s, path, Some(kinds.len()), pos, |l, columns| {
            for (k, leaf) in leaves.iter().enumerate() {
                if let V::I(x) | V::F(x) = leaf {
                    let kind = kinds[first + k];
                    let at = l.leaf_addr(kind, columns[first + k], pos);
                    l.store_leaf(kind, *x, at);
                }
            }
        });
    }
}

/// Aggregate values, their variables, and their meeting points with the evaluator.
impl Lower<'_, '_, '_> {
    /// An aggregate value of the given leaves.
    pub(super) fn agg_value(&mut self, leaves: Vec<V>) -> V {
        self.aggs.push(leaves);
        V::Agg((self.aggs.len() - 1) as u32)
    }

    /// The leaves of an aggregate value (a scalar is its own one leaf).
    pub(super) fn leaves(&self, v: V) -> Vec<V> {
        match v {
            V::Agg(k) => self.aggs[k as usize].clone(),
            V::Unit => vec![],
            scalar => vec![scalar],
        }
    }

    /// The address of the descriptor of `agg`, for the runtime helpers.
    pub(super) fn agg_ptr(&mut self, agg: &Agg) -> usize {
        if let Some(p) = self.agg_ptrs.get(agg) {
            return *p;
        }
        let p = self.keep(agg.clone()) as usize;
        self.agg_ptrs.insert(agg.clone(), p);
        p
    }

    /// A buffer of one word per leaf on the stack.
    pub(super) fn leaf_buffer(&mut self, n: usize) -> ClValue {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (n.max(1) * 8) as u32,
            3,
        ));
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// Write leaves to the buffer `buf`.
    pub(super) fn store_leaves(&mut self, buf: ClValue, leaves: &[V]) {
        for (i, leaf) in leaves.iter().enumerate() {
            if let V::I(x) | V::F(x) = leaf {
                self.b.ins().store(flags(), *x, buf, (i * 8) as i32);
            }
        }
    }

    /// Read the leaves of `agg` from the buffer `buf`.
    pub(super) fn load_leaves(&mut self, buf: ClValue, agg: &Agg) -> Vec<V> {
        agg.leaves
            .iter()
            .enumerate()
            .map(|(i, r)| match r {
                Repr::F64 => V::F(self.b.ins().load(types::F64, flags(), buf, (i * 8) as i32)),
                _ => V::I(self.b.ins().load(types::I64, flags(), buf, (i * 8) as i32)),
            })
            .collect()
    }

    /// Store the aggregate `v` as the evaluator's value at `addr` (which holds a value,
    /// replaced).
    pub(super) fn box_into(&mut self, addr: ClValue, agg: &Agg, v: V) {
        let leaves = self.leaves(v);
        let buf = self.leaf_buffer(leaves.len());
        self.store_leaves(buf, &leaves);
        let desc = self.agg_ptr(agg) as i64;
        let desc = self.iconst(desc);
        self.call_helper(Helper::BoxLeaves, &[types::I64; 3], &[], &[desc, buf, addr]);
    }

    /// The aggregate `agg` held by the evaluator's value at `addr`.
    pub(super) fn unbox_from(&mut self, addr: ClValue, agg: &Agg) -> V {
        let buf = self.leaf_buffer(agg.leaves.len());
        let desc = self.agg_ptr(agg) as i64;
        let desc = self.iconst(desc);
        self.call_helper(
            Helper::UnboxLeaves,
            &[types::I64; 3],
            &[],
            &[desc, addr, buf],
        );
        let leaves = self.load_leaves(buf, agg);
        self.agg_value(leaves)
    }

    /// The value of an aggregate variable.
    pub(super) fn read_agg_var(&mut self, s: Slot) -> V {
        let vars = self.avars[&s].0.clone();
        let leaves = vars
            .iter()
            .map(|(var, r)| {
                let x = self.b.use_var(*var);
                match r {
                    Repr::F64 => V::F(x),
                    _ => V::I(x),
                }
            })
            .collect();
        self.agg_value(leaves)
    }

    /// Assign an aggregate variable.
    pub(super) fn write_agg_var(&mut self, s: Slot, v: V) {
        let vars = self.avars[&s].0.clone();
        let leaves = self.leaves(v);
        for ((var, _), leaf) in vars.iter().zip(leaves) {
            if let V::I(x) | V::F(x) = leaf {
                self.b.def_var(*var, x);
            }
        }
    }

    /// Block parameters for a value of `repr` or of the aggregate `agg`.
    pub(super) fn value_params(
        &mut self,
        block: cranelift_codegen::ir::Block,
        repr: Repr,
        agg: Option<&Agg>,
    ) {
        match agg {
            Some(agg) => {
                for r in &agg.leaves {
                    let ty = r.clif().unwrap_or(types::I64);
                    self.b.append_block_param(block, ty);
                }
            }
            None => {
                if let Some(ty) = repr.clif() {
                    self.b.append_block_param(block, ty);
                }
            }
        }
    }

    /// The Cranelift values a jump passes for `v` (its leaves for an aggregate).
    pub(super) fn jump_values(&self, v: V) -> Vec<ClValue> {
        self.leaves(v).into_iter().flat_map(V::scalars).collect()
    }

    /// The aggregate a descriptor address stands for.
    pub(super) fn agg_at(&self, p: usize) -> Agg {
        self.agg_ptrs
            .iter()
            .find(|(_, q)| **q == p)
            .map(|(a, _)| a.clone())
            .expect("a descriptor made by agg_ptr")
    }

    /// The value arriving at `join` as its parameters (a scalar or an aggregate's leaves).
    pub(super) fn join_values(
        &mut self,
        join: cranelift_codegen::ir::Block,
        repr: Repr,
        agg: Option<&Agg>,
    ) -> V {
        match agg {
            Some(agg) => {
                let params = self.b.block_params(join).to_vec();
                let leaves = params
                    .into_iter()
                    .zip(&agg.leaves)
                    .map(|(x, r)| if *r == Repr::F64 { V::F(x) } else { V::I(x) })
                    .collect();
                self.agg_value(leaves)
            }
            None => self.join_value(join, repr),
        }
    }
}

impl Lower<'_, '_, '_> {
    /// Can native code assign the aggregate variable `place` (a local, in registers or its
    /// frame slot, or a global)? A captured variable's cell cannot.
    pub(super) fn aggregate_var(&self, place: Place) -> bool {
        matches!(place, Place::Local(_) | Place::Global(_))
    }

    /// `place = v` for the aggregate `v` of type `ty` (`aggregate_var`): into its registers,
    /// or boxed into its frame or global slot.
    pub(super) fn write_aggregate(&mut self, place: Place, ty: &Type, v: V) {
        let agg = Agg::of(ty).expect("an aggregate");
        match place {
            Place::Local(slot) if self.avars.contains_key(&slot) => self.write_agg_var(slot, v),
            Place::Local(slot) => {
                self.frame_used = true;
                let addr = self.slot_addr(slot);
                self.box_into(addr, &agg, v);
            }
            Place::Global(g) => {
                if !self.promoted_write(g, v) {
                    let addr = self.global_addr(g);
                    self.box_into(addr, &agg, v);
                }
            }
            Place::LocalCell(_) | Place::CaptureCell(_) => {
                unreachable!("checked by aggregate_var")
            }
        }
    }

    /// `&x.f.g <- v` into a field of a variable (a struct, tuple or record): a scalar into a
    /// variable held as a value replaced there (the other fields untouched, the value made
    /// unshared first); otherwise, for an aggregate variable, the value computed, the variable
    /// read, its leaves of that field replaced and written back. False, having done nothing,
    /// when the store is not of either form.
    pub(super) fn store_field(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> bool {
        let read = match place {
            Place::Local(s) => ExprKind::Local(s),
            Place::Global(g) => ExprKind::Global(g),
            Place::LocalCell(_) | Place::CaptureCell(_) => return false,
        };
        let Some(held) = crate::eval::native::Held::of(&value.ty) else {
            return false;
        };
        let mut fields = Vec::with_capacity(path.len());
        let mut ty = root_ty.clone();
        for step in path {
            let PathStep::Field(i) = step else {
                return false;
            };
            let Some(field) = ty.field_type(*i as usize) else {
                return false;
            };
            fields.push(*i);
            ty = field;
        }
        let scalar = matches!(
            held,
            crate::eval::native::Held::Scalar(Repr::I64 | Repr::F64)
        );
        if scalar {
            if let Some(at) = self.boxed_var_addr(place) {
                self.check_store_target(place, root_ty, path, value);
                let v = self.expr(value);
                self.set_leaf(at, fields, v);
                return true;
            }
        }
        // The field's leaves among the aggregate's.
        let mut start = 0;
        let mut ty = root_ty.clone();
        for &i in &fields {
            let Some((first, _)) = Agg::component(&ty, i as usize) else {
                return false;
            };
            start += first;
            ty = ty.field_type(i as usize).expect("a field");
        }
        self.check_store_target(place, root_ty, path, value);
        let v = self.expr(value);
        let new = self.leaves(v);
        let current = Expr {
            kind: read,
            ty: root_ty.clone(),
            span: value.span,
        };
        let whole = self.expr(&current);
        let mut leaves = self.leaves(whole);
        leaves.splice(start..start + new.len(), new);
        let updated = self.agg_value(leaves);
        self.write_aggregate(place, root_ty, updated);
        true
    }

    /// The address of the value of a variable held as a value, not in registers: a global
    /// not promoted by a closed loop, a local in its frame slot; `None` for any other.
    pub(super) fn boxed_var_addr(&mut self, place: Place) -> Option<ClValue> {
        match place {
            Place::Global(g) if !self.promoted.contains_key(&g) => Some(self.global_addr(g)),
            Place::Local(s) if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) => {
                self.frame_used = true;
                Some(self.slot_addr(s))
            }
            _ => None,
        }
    }

    /// The fields that the projection `e` takes from a variable held as a value
    /// (`boxed_var_addr`), with the variable (its read and place): `g.a.x` gives `g` and
    /// `[a, x]`.
    pub(super) fn boxed_fields<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, Place, Vec<u32>)> {
        let mut fields = Vec::new();
        let mut at = e;
        while let ExprKind::Field(inner, i) = &at.kind {
            // A field of a tuple, record or struct (an array's is an element).
            inner.ty.field_type(*i as usize)?;
            fields.push(*i);
            at = inner;
        }
        fields.reverse();
        let place = match at.kind {
            ExprKind::Global(g) if !self.promoted.contains_key(&g) => Place::Global(g),
            ExprKind::Local(s) if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) => {
                Place::Local(s)
            }
            _ => return None,
        };
        (!fields.is_empty()).then_some((at, place, fields))
    }

    /// The scalar (of `repr`) that `fields` lead to in the value at `at`, read in place.
    pub(super) fn leaf_bits(&mut self, at: ClValue, fields: Vec<u32>, repr: Repr) -> V {
        let (path, n) = self.field_path(fields);
        let code = self.iconst(super::super::runtime::repr_code(repr) as i64);
        let bits = self
            .call_helper(
                Helper::LeafBits,
                &[types::I64; 4],
                &[types::I64],
                &[at, path, n, code],
            )
            .expect("leaf_bits returns bits");
        self.bits_value(bits, repr)
    }

    /// Replace the scalar that `fields` lead to in the value at `at` by `v`.
    fn set_leaf(&mut self, at: ClValue, fields: Vec<u32>, v: V) {
        let Some([path, n, code, bits]) = self.leaf_store_args(fields, v) else {
            return;
        };
        self.call_helper(
            Helper::SetLeaf,
            &[types::I64; 5],
            &[],
            &[at, path, n, code, bits],
        );
    }

    /// What the helpers replacing a scalar field take: the field path `fields` (address and
    /// length), the representation's code and the bits of `v`; `None` when `v` is not a
    /// scalar.
    pub(super) fn leaf_store_args(&mut self, fields: Vec<u32>, v: V) -> Option<[ClValue; 4]> {
        let (bits, repr) = match v {
            V::I(x) => (x, Repr::I64),
            V::F(x) => (
                self.b
                    .ins()
                    .bitcast(types::I64, cranelift_codegen::ir::MemFlagsData::new(), x),
                Repr::F64,
            ),
            V::Unit | V::Agg(_) => return None,
        };
        let (path, n) = self.field_path(fields);
        let code = self.iconst(super::super::runtime::repr_code(repr) as i64);
        Some([path, n, code, bits])
    }

    /// The field path `fields`, kept as long as the code: its address and length.
    pub(super) fn field_path(&mut self, fields: Vec<u32>) -> (ClValue, ClValue) {
        let n = self.iconst(fields.len() as i64);
        let kept = self.keep(fields);
        // SAFETY: `keep` holds the vector (and so its buffer) as long as the module.
        let path = self.ptr_const(unsafe { (*kept).as_ptr() });
        (path, n)
    }
}
