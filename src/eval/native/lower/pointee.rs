//! Scalars a pointer variable points at, and scalar fields of the struct, tuple or record it
//! points at: `*p` and `(*p).x` (`p*.x`) read, `p <- v` and `p.x <- v` stored where they
//! live, through the runtime's pointee helpers, with no copy of the object (a pointer into
//! an array too: the helpers follow its element steps). When a helper cannot see the target
//! (a pointer into a compact value, a cast pointer, a variable not assigned yet) the access
//! runs on the closure compiler in a cold block, which reads or stores it or raises its
//! error.
//!
//! In a closed loop or region (`hoist.rs`) the object's leaves are viewed instead: their
//! addresses are fetched once before it (`leaves_view`), and each access is one load or
//! store. The object stays where it is while nothing replaces it, which `leaf_views_kept`
//! checks for the loop as a whole.

use std::collections::HashMap;

use cranelift_codegen::ir::{types, InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, PathStep, Place, Stmt};
use crate::core::visit::{walk_expr, walk_stmt, walk_stmts, Visit};
use crate::types::Type;

use super::super::runtime::{repr_code, Helper};
use super::{args, flags, Lower, V};
use crate::eval::native::{Agg, Repr};
use crate::eval::value::{leaf_repr, LeafRepr, ScalarKind};

/// The pointer variable and the fields of a scalar read through it: `*p`, `(*p).f.g`, or
/// `*(p.f.g)` (the projection `&(p).f.g` dereferenced); `None` for any other read.
pub(super) fn read_through(e: &Expr) -> Option<(&Expr, Vec<u32>)> {
    let mut fields = Vec::new();
    let mut at = e;
    while let ExprKind::Field(inner, i) = &at.kind {
        fields.push(*i);
        at = inner;
    }
    fields.reverse();
    let ExprKind::Deref(pointer) = &at.kind else {
        return None;
    };
    let (base, mut path) = projected_fields(pointer)?;
    path.extend(fields);
    held(&base.ty, &path, Repr::of(&e.ty)?).then_some((base, path))
}

/// A pointer variable (a local, a global or a captured one) and the fields its projection
/// takes: `p` (none) or `&(p).f.g`.
fn projected_fields(pointer: &Expr) -> Option<(&Expr, Vec<u32>)> {
    let (base, steps) = match &pointer.kind {
        ExprKind::PtrProject { pointer, path } => (&**pointer, &path[..]),
        _ => (pointer, &[][..]),
    };
    if !matches!(
        base.kind,
        ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Capture(_)
    ) {
        return None;
    }
    let fields = steps
        .iter()
        .map(|step| match step {
            PathStep::Field(i) => Some(*i),
            PathStep::Index(..) => None,
        })
        .collect::<Option<Vec<u32>>>()?;
    Some((base, fields))
}

/// The type of the part `fields` lead to from the target of the pointer type `pointer_ty`
/// through tuples, records or structs held as values (not compact codes, not arrays): the
/// target itself, when there are none.
fn part_type(pointer_ty: &Type, fields: &[u32]) -> Option<Type> {
    let (_, mut ty) = pointer_ty.pointee()?;
    let mut owned;
    for &i in fields {
        if Repr::of(ty).is_some() || crate::eval::array::Shape::of(ty).is_some() {
            return None;
        }
        owned = ty.field_type(i as usize)?;
        ty = &owned;
    }
    Some(ty.clone())
}

/// Do `fields` lead from the target of the pointer type `pointer_ty` (`part_type`) to a
/// scalar of `repr`?
fn held(pointer_ty: &Type, fields: &[u32], repr: Repr) -> bool {
    matches!(repr, Repr::I64 | Repr::F64)
        && part_type(pointer_ty, fields).is_some_and(|ty| Repr::of(&ty) == Some(repr))
}

/// Do `fields` lead from the target of the pointer type `pointer_ty` (`part_type`) to an
/// object held as the aggregate `agg`, leaf for leaf?
fn held_whole(pointer_ty: &Type, fields: &[u32], agg: &Agg) -> bool {
    part_type(pointer_ty, fields)
        .and_then(|ty| object_leaves(&ty))
        .is_some_and(|leaves| leaves == agg.leaves)
}

/// The pointer variable and the fields of the tuple, record or struct of scalars `e` reads
/// through it, whole: `*p`, `*(&(p).f)`.
pub(super) fn read_whole(e: &Expr) -> Option<(&Expr, Vec<u32>)> {
    let ExprKind::Deref(pointer) = &e.kind else {
        return None;
    };
    let agg = Agg::of(&e.ty)?;
    let (base, fields) = projected_fields(pointer)?;
    (viewed_object(base).is_some() && held_whole(&base.ty, &fields, &agg)).then_some((base, fields))
}

/// The pointer variable whose object `e` reads (a scalar of it, `read_through`, or the
/// whole of a part, `read_whole`).
pub(super) fn pointee_base(e: &Expr) -> Option<&Expr> {
    read_through(e)
        .or_else(|| read_whole(e))
        .map(|(base, _)| base)
}

/// The representation of each scalar leaf of an object of type `ty` held as a value: a
/// scalar, or a tuple, record or struct of them (nested ones depth first, as `Agg` lays them
/// out), up to 64 leaves; `None` for an array or anything else. The leaves a view of the
/// object a pointer points at gives (`leaves_view`).
pub(super) fn object_leaves(ty: &Type) -> Option<Vec<Repr>> {
    fn walk(ty: &Type, leaves: &mut Vec<Repr>) -> Option<()> {
        if let Some(repr) = Repr::of(ty) {
            leaves.push(repr);
            return matches!(repr, Repr::I64 | Repr::F64).then_some(());
        }
        if crate::eval::array::Shape::of(ty).is_some() {
            return None;
        }
        let mut any = false;
        for k in 0.. {
            let Some(field) = ty.field_type(k) else {
                break;
            };
            walk(&field, leaves)?;
            any = true;
        }
        any.then_some(())
    }
    let mut leaves = Vec::new();
    walk(ty, &mut leaves)?;
    (leaves.len() <= 64).then_some(leaves)
}

/// The position among `object_leaves(ty)` of the leaf the fields `fields` lead to.
fn leaf_index(ty: &Type, fields: &[u32]) -> usize {
    let Some((&first, rest)) = fields.split_first() else {
        return 0;
    };
    let before: usize = (0..first as usize)
        .map(|k| {
            let field = ty.field_type(k).expect("a field of the object");
            object_leaves(&field)
                .expect("checked by object_leaves")
                .len()
        })
        .sum();
    let field = ty
        .field_type(first as usize)
        .expect("a field of the object");
    before + leaf_index(&field, rest)
}

/// The kind each leaf of an object of type `ty` (`object_leaves`) is stored at in an array's
/// storage: its column's in an array of such objects, or for an object no array stores
/// unboxed, 8 bytes (which no array's column matches: a view finds only the leaves of one
/// held as a value).
fn object_kinds(ty: &Type) -> Vec<ScalarKind> {
    let leaves = object_leaves(ty).expect("checked by object_leaves");
    let kinds = match leaf_repr(ty) {
        LeafRepr::Scalar(kind) => vec![kind],
        LeafRepr::Columns(layout) => layout.kinds.clone(),
        LeafRepr::Boxed => Vec::new(),
    };
    let fits = kinds.len() == leaves.len()
        && kinds
            .iter()
            .zip(&leaves)
            .all(|(k, r)| k.is_float() == (*r == Repr::F64));
    if fits {
        return kinds;
    }
    leaves
        .iter()
        .map(|r| match r {
            Repr::F64 => ScalarKind::F64,
            _ => ScalarKind::I64,
        })
        .collect()
}

/// The type of the object a pointer variable whose leaves can be viewed points at.
pub(super) fn viewed_object(pointer: &Expr) -> Option<&Type> {
    let (_, ty) = pointer.ty.pointee()?;
    matches!(pointer.kind, ExprKind::Local(_) | ExprKind::Global(_))
        .then_some(ty)
        .filter(|ty| object_leaves(ty).is_some())
}

impl Lower<'_, '_, '_> {
    /// The leaves of the object the pointer variable `base` points at, from the view kept for
    /// the closed loop or region being lowered; `None` when there is none.
    fn kept_view(&self, base: &Expr) -> Option<ObjectView> {
        let ty = viewed_object(base)?;
        let place = super::hoist::base_place(base)?;
        let (data, in_array, _) = self.views.get(&place)?;
        Some(ObjectView {
            data: data.clone(),
            in_array: *in_array,
            sure: self.viewed.contains(&place),
            kinds: object_kinds(ty),
        })
    }

    /// The leaf `fields` into the object the pointer variable `base` points at, from the
    /// view kept for the closed loop or region being lowered (`kept_view`).
    fn leaf_view(&self, base: &Expr, fields: &[u32]) -> Option<LeafView> {
        let view = self.kept_view(base)?;
        Some(view.leaf(leaf_index(viewed_object(base)?, fields)))
    }

    /// The leaves of the object the pointer variable `base` points at: the view kept for the
    /// closed loop or region being lowered, or else one fetched here (made unshared for a
    /// store when `write`).
    fn object_view(&mut self, base: &Expr, write: bool) -> ObjectView {
        if let Some(view) = self.kept_view(base) {
            return view;
        }
        let ty = viewed_object(base).expect("checked by viewed_object");
        self.check_base(base);
        let addr = self.base_addr(base);
        let (data, in_array) = self.leaves_view(addr, ty, write);
        ObjectView {
            data,
            in_array,
            sure: false,
            kinds: object_kinds(ty),
        }
    }

    /// The part `e` of the object a pointer variable points at, a tuple, record or struct
    /// of scalars (`read_whole`), read leaf for leaf where it lives; on the closure compiler
    /// when the runtime cannot see the object.
    pub(super) fn read_whole_pointee(&mut self, e: &Expr, agg: &Agg) -> V {
        let (base, fields) = read_whole(e).expect("checked by read_whole");
        let first = leaf_index(viewed_object(base).expect("checked"), &fields);
        let view = self.object_view(base, false);
        let join = self.b.create_block();
        self.value_params(join, Repr::Unit, Some(agg));
        if !view.sure {
            self.unviewable(view.data[0], |l| {
                let v = l.agg_fallback(e, agg, "");
                let values = l.jump_values(v);
                l.b.ins().jump(join, &args(&values));
            });
        }
        let leaves: Vec<ClValue> = (first..first + agg.leaves.len())
            .map(|i| self.load_viewed(&view.leaf(i)))
            .collect();
        self.b.ins().jump(join, &args(&leaves));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_values(join, Repr::Unit, Some(agg))
    }

    /// The store `s`, `pointer <- value`, of a whole tuple, record or struct of scalars into
    /// the part of the object a pointer variable points at (`stored_through`): `value`
    /// computed, then stored leaf for leaf; on the closure compiler when the runtime cannot
    /// see the object.
    fn store_whole_pointee(&mut self, s: &Stmt, pointer: &Expr, value: &Expr) {
        let (base, fields) = projected_fields(pointer).expect("checked by stored_through");
        let first = leaf_index(viewed_object(base).expect("checked"), &fields);
        let view = self.object_view(base, true);
        let v = self.expr(value);
        let after = self.b.create_block();
        if !view.sure {
            self.unviewable(view.data[0], |l| {
                l.fallback_stmt(s, "", pointer.span);
                if !l.filled() {
                    l.b.ins().jump(after, &[]);
                }
            });
        }
        for (i, leaf) in self.jump_values(v).into_iter().enumerate() {
            self.store_viewed(&view.leaf(first + i), leaf);
        }
        self.b.ins().jump(after, &[]);
        self.b.seal_block(after);
        self.b.switch_to_block(after);
    }

    /// The view of the leaves of the object the pointer at `addr` points at (`object`, its
    /// type): each leaf's address, all null when the runtime cannot see the object, and
    /// whether they are in an array's storage (at their kinds' widths) rather than in
    /// values (see `pointer_leaves_view`).
    pub(super) fn leaves_view(
        &mut self,
        addr: ClValue,
        object: &Type,
        write: bool,
    ) -> (Vec<ClValue>, ClValue) {
        let kinds = object_kinds(object);
        let n = kinds.len();
        let out = self.leaf_buffer(n + 1);
        let kept = self.keep(kinds);
        // SAFETY: `keep` holds the vector (and so its buffer) as long as the module.
        let kinds = self.ptr_const(unsafe { (*kept).as_ptr() });
        let rt = self.rt;
        let count = self.iconst(n as i64);
        let write = self.iconst(write as i64);
        self.call_helper(
            Helper::PointerLeavesView,
            &[types::I64; 6],
            &[],
            &[rt, addr, kinds, count, write, out],
        );
        let mut words: Vec<ClValue> = (0..=n)
            .map(|i| self.b.ins().load(types::I64, flags(), out, 8 * i as i32))
            .collect();
        let in_array = words.pop().expect("the flag");
        (words, in_array)
    }

    /// The leaf `view` in a register: at its kind's width in an array, or a value's 8-byte
    /// payload.
    fn load_viewed(&mut self, view: &LeafView) -> ClValue {
        match view.kind {
            ScalarKind::I64 | ScalarKind::F64 => {
                let ty = if view.kind.is_float() {
                    types::F64
                } else {
                    types::I64
                };
                self.b.ins().load(ty, flags(), view.at, 0)
            }
            // The payload holds the integer extended: its low bytes are the narrow leaf.
            kind if !kind.is_float() => self.load_leaf(kind, view.at).int(),
            kind => self.by_storage(
                view,
                types::F64,
                |l| l.load_leaf(kind, view.at).int(),
                |l| l.b.ins().load(types::F64, flags(), view.at, 0),
            ),
        }
    }

    /// Store the register `v` as the leaf `view`.
    fn store_viewed(&mut self, view: &LeafView, v: ClValue) {
        match view.kind {
            ScalarKind::I64 | ScalarKind::F64 => {
                self.b.ins().store(flags(), v, view.at, 0);
            }
            kind => {
                self.by_storage(
                    view,
                    types::I64,
                    |l| {
                        l.store_leaf(kind, v, view.at);
                        l.iconst(0)
                    },
                    |l| {
                        l.b.ins().store(flags(), v, view.at, 0);
                        l.iconst(0)
                    },
                );
            }
        }
    }

    /// `in_array` when the leaf `view` is in an array's storage, else `in_value`: each
    /// gives a value of type `ty`.
    fn by_storage(
        &mut self,
        view: &LeafView,
        ty: types::Type,
        in_array: impl FnOnce(&mut Self) -> ClValue,
        in_value: impl FnOnce(&mut Self) -> ClValue,
    ) -> ClValue {
        let (array, value, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(join, ty);
        self.b.ins().brif(view.in_array, array, &[], value, &[]);
        for (block, make) in [
            (
                array,
                Box::new(in_array) as Box<dyn FnOnce(&mut Self) -> ClValue>,
            ),
            (value, Box::new(in_value)),
        ] {
            self.b.seal_block(block);
            self.b.switch_to_block(block);
            let x = make(self);
            self.b.ins().jump(join, &args(&[x]));
        }
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// The pointer variable of the store `pointer <- value` when `store_pointee` lowers it.
    pub(super) fn stored_through<'e>(&self, pointer: &'e Expr, value: &Expr) -> Option<&'e Expr> {
        let (base, fields) = projected_fields(pointer)?;
        let fits = match (Repr::of(&value.ty), Agg::of(&value.ty)) {
            (Some(repr), _) => held(&base.ty, &fields, repr),
            (None, Some(agg)) => {
                viewed_object(base).is_some() && held_whole(&base.ty, &fields, &agg)
            }
            (None, None) => false,
        };
        (fits && self.pure(value)).then_some(base)
    }

    /// Is the read (or, when `write`, the store) of a leaf of the object the pointer variable
    /// `base` points at closed, through a view of its leaves kept for the loop? Notes the
    /// view in `arrays`. Whether the view can be kept for the loop as a whole is
    /// `leaf_views_kept`'s question.
    pub(super) fn closed_pointee(
        &self,
        base: &Expr,
        write: bool,
        arrays: &mut HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let Some(place) = super::hoist::base_place(base) else {
            return false;
        };
        if viewed_object(base).is_none() {
            return false;
        }
        if let Place::Local(s) = place {
            if self.vars.contains_key(&s) {
                return false;
            }
        }
        arrays
            .entry(place)
            .and_modify(|(_, w)| *w |= write)
            .or_insert((base.clone(), write));
        true
    }

    /// Can the views of the objects pointers point at among `arrays` be kept while `stmts`
    /// run? Each stays where it is unless something replaces the object: so no pointer
    /// variable with a view is assigned, and no global that may hold such an object (one
    /// whose type contains the object's) is assigned, nor read when a view of that type is
    /// stored through (it may be held in registers for the loop, `promote_globals`).
    pub(super) fn leaf_views_kept(
        &self,
        stmts: &[Stmt],
        arrays: &HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let objects: Vec<(&Type, bool, Place)> = arrays
            .iter()
            .filter_map(|(place, (base, write))| Some((viewed_object(base)?, *write, *place)))
            .collect();
        if objects.is_empty() {
            return true;
        }
        let globals = GlobalsTouched::of(stmts);
        objects.iter().all(|(object, _, place)| {
            let stored = objects.iter().any(|(o, w, _)| *w && o == object);
            !globals.assigned_places.contains(place)
                && globals.touched.iter().all(|(ty, assigned)| match ty {
                    Some(ty) => !((*assigned || stored) && contains(ty, object)),
                    None => !assigned,
                })
        })
    }

    /// The scalar field `e` (of `repr`) of the object the pointer variable `base` points at,
    /// `fields` into it (`read_through`), read where it lives: from the view of its leaves
    /// kept for the closed loop or region being lowered, or else through the runtime.
    pub(super) fn read_pointee(
        &mut self,
        e: &Expr,
        base: &Expr,
        fields: Vec<u32>,
        repr: Repr,
    ) -> V {
        let Some(view) = self.leaf_view(base, &fields) else {
            return self.read_pointee_by_helper(e, base, fields, repr);
        };
        let join = self.b.create_block();
        self.b
            .append_block_param(join, repr.clif().expect("a scalar"));
        if !view.sure {
            self.unviewable(view.at, |l| {
                let v = l.read_pointee_by_helper(e, base, fields, repr);
                l.b.ins().jump(join, &args(&[v.int()]));
            });
        }
        let v = self.load_viewed(&view);
        self.b.ins().jump(join, &args(&[v]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_value(join, repr)
    }

    /// `read_pointee` through the runtime's helper, which finds the object each time.
    fn read_pointee_by_helper(&mut self, e: &Expr, base: &Expr, fields: Vec<u32>, repr: Repr) -> V {
        self.check_base(base);
        let pointer = self.base_addr(base);
        let (path, n) = self.field_path(fields);
        let code = self.iconst(repr_code(repr) as i64);
        let out = self.leaf_buffer(1);
        let rt = self.rt;
        let seen = self
            .call_helper(
                Helper::PointerLeafBits,
                &[types::I64; 6],
                &[types::I32],
                &[rt, pointer, path, n, code, out],
            )
            .expect("pointer_leaf_bits returns a status");
        let join = self.b.create_block();
        self.b
            .append_block_param(join, repr.clif().expect("a scalar"));
        self.unviewable(seen, |l| {
            let v = l.fallback_expr(e, "");
            l.b.ins().jump(join, &args(&[v.int()]));
        });
        let bits = self.b.ins().load(types::I64, flags(), out, 0);
        let v = self.bits_value(bits, repr);
        self.b.ins().jump(join, &args(&[v.int()]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_value(join, repr)
    }

    /// The store `s`, `pointer <- value`, when `pointer` is a pointer variable to a scalar or
    /// projects one to a scalar field of the object it points at (`p <- v`, `p.f.g <- v`)
    /// and `value` can run twice:
    /// `value` is computed, then the field replaced where it lives. False, having done
    /// nothing, for any other store.
    pub(super) fn store_pointee(&mut self, s: &Stmt, pointer: &Expr, value: &Expr) -> bool {
        if self.stored_through(pointer, value).is_none() {
            return false;
        }
        if Agg::of(&value.ty).is_some() {
            self.store_whole_pointee(s, pointer, value);
            return true;
        }
        let (base, fields) = projected_fields(pointer).expect("checked by stored_through");
        let view = self.leaf_view(base, &fields);
        if view.as_ref().is_none_or(|view| !view.sure) {
            self.check_base(base);
        }
        let v = self.expr(value);
        let after = self.b.create_block();
        match view {
            Some(view) => {
                if !view.sure {
                    self.unviewable(view.at, |l| {
                        l.store_pointee_by_helper(s, pointer, base, fields, v, after)
                    });
                }
                self.store_viewed(&view, v.int());
                self.b.ins().jump(after, &[]);
            }
            None => self.store_pointee_by_helper(s, pointer, base, fields, v, after),
        }
        self.b.seal_block(after);
        self.b.switch_to_block(after);
        true
    }

    /// Store `v` into the scalar `fields` into the object the pointer variable `base`
    /// points at, through the runtime's helper (the store `s` on the closure compiler when
    /// it cannot see the object), then jump to `after`.
    fn store_pointee_by_helper(
        &mut self,
        s: &Stmt,
        pointer: &Expr,
        base: &Expr,
        fields: Vec<u32>,
        v: V,
        after: cranelift_codegen::ir::Block,
    ) {
        let pointer_at = self.base_addr(base);
        let [path, n, code, bits] = self.leaf_store_args(fields, v).expect("a scalar");
        let rt = self.rt;
        let stored = self
            .call_helper(
                Helper::PointerSetLeaf,
                &[types::I64; 6],
                &[types::I32],
                &[rt, pointer_at, path, n, code, bits],
            )
            .expect("pointer_set_leaf returns a status");
        self.unviewable(stored, |l| {
            l.fallback_stmt(s, "", pointer.span);
            if !l.filled() {
                l.b.ins().jump(after, &[]);
            }
        });
        self.b.ins().jump(after, &[]);
    }
}

/// A leaf of the object a pointer points at (`ObjectView::leaf`).
struct LeafView {
    /// Its address (null when the runtime could not see the object).
    at: ClValue,
    /// Is the address known not to be null?
    sure: bool,
    /// Its kind in an array's storage.
    kind: ScalarKind,
    /// Is it in an array's storage (else a value's payload)?
    in_array: ClValue,
}

/// The leaves of the object a pointer points at (`Lower::object_view`).
struct ObjectView {
    /// Each leaf's address (all null when the runtime could not see the object).
    data: Vec<ClValue>,
    /// Are they in an array's storage (else values' payloads)?
    in_array: ClValue,
    /// Are the addresses known not to be null?
    sure: bool,
    /// Each leaf's kind in an array's storage.
    kinds: Vec<ScalarKind>,
}

impl ObjectView {
    fn leaf(&self, i: usize) -> LeafView {
        LeafView {
            at: self.data[i],
            sure: self.sure,
            kind: self.kinds[i],
            in_array: self.in_array,
        }
    }
}

/// Does a value of type `outer` hold a value of type `inner` (as itself, a field or an
/// element, at any depth)?
fn contains(outer: &Type, inner: &Type) -> bool {
    if outer == inner {
        return true;
    }
    if let Type::Array(elem, _) = outer {
        return contains(elem, inner);
    }
    (0..)
        .map_while(|k| outer.field_type(k))
        .any(|field| contains(&field, inner))
}

/// The globals some statements read or assign, with their types where known, and every
/// place they assign.
struct GlobalsTouched {
    /// Each global's type (`None` when only assigned by a form that does not say it) and
    /// whether it is assigned.
    touched: Vec<(Option<Type>, bool)>,
    assigned_places: std::collections::HashSet<Place>,
}

impl GlobalsTouched {
    fn of(stmts: &[Stmt]) -> GlobalsTouched {
        struct Walk {
            types: HashMap<u32, Type>,
            assigned: std::collections::HashSet<Place>,
        }
        impl<'ir> Visit<'ir> for Walk {
            fn visit_expr(&mut self, e: &'ir Expr) {
                if let ExprKind::Global(g) = e.kind {
                    self.types.entry(g).or_insert_with(|| e.ty.clone());
                }
                walk_expr(self, e)
            }
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                let typed = match s {
                    Stmt::Assign(Place::Global(g), e) => Some((*g, e.ty.clone())),
                    Stmt::Store {
                        place: Place::Global(g),
                        root_ty,
                        ..
                    } => Some((*g, root_ty.clone())),
                    Stmt::ForRange {
                        var: Place::Global(g),
                        var_ty,
                        ..
                    } => Some((*g, Type::Int(*var_ty))),
                    Stmt::ForCodes {
                        var: Place::Global(g),
                        ty,
                        ..
                    } => Some((*g, ty.clone())),
                    _ => None,
                };
                if let Some((g, ty)) = typed {
                    self.types.entry(g).or_insert(ty);
                }
                walk_stmt(self, s)
            }
            fn visit_place(&mut self, place: Place) {
                self.assigned.insert(place);
            }
        }
        let mut walk = Walk {
            types: HashMap::new(),
            assigned: super::hoist::assigned_places(stmts),
        };
        walk_stmts(&mut walk, stmts);
        let mut touched: Vec<(Option<Type>, bool)> = walk
            .types
            .iter()
            .map(|(g, ty)| (Some(ty.clone()), walk.assigned.contains(&Place::Global(*g))))
            .collect();
        for place in &walk.assigned {
            if let Place::Global(g) = place {
                if !walk.types.contains_key(g) {
                    touched.push((None, true));
                }
            }
        }
        GlobalsTouched {
            touched,
            assigned_places: walk.assigned,
        }
    }
}
