//! `map` with its function inlined (`ExprKind::MapLoop`) into an array of scalars: one native
//! loop over the elements of a copy of the array, the body lowered inline, each result stored
//! into the new array's leaves. The element is in a register when it is a scalar, otherwise
//! (a row of a reshaped matrix) it is written to the variable's frame slot.
//!
//! `filter` with its predicate inlined (a `MapLoop` that filters) over an array of scalars is
//! one such loop too: each element the predicate keeps is stored at the next leaf of a result
//! as long as the input, which is then cut to the elements kept.

use cranelift_codegen::ir::{types, InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place};
use crate::eval::array::Shape;
use crate::eval::value::LeafRepr;
use crate::types::Type;

use super::super::runtime::{Helper, MapShapes};
use super::for_each::{ElementLeaves, LeafForm};
use super::leaves::scalar_kind;
use super::{flags, Lower, V};
use crate::eval::native::{Agg, Repr};

/// A label no loop of the IR has: the element loop of a `map` has no `break` or `continue`.
const MAP_LABEL: u32 = u32::MAX;

impl Lower<'_, '_, '_> {
    /// Can `e` (a `MapLoop`) be lowered by `map_into`: a result of unboxed scalars, rows or
    /// tuples of scalars (`LeafForm`) the body computes natively, and an element in registers
    /// (its leaves read from the array's) or in the variable's frame slot?
    pub(super) fn native_map(&self, e: &Expr) -> bool {
        let ExprKind::MapLoop {
            var,
            array,
            body,
            filter: false,
        } = &e.kind
        else {
            return false;
        };
        let (Some(input), Some(output)) = (Shape::of(&array.ty), Shape::of(&e.ty)) else {
            return false;
        };
        let Type::Array(out_elem, _) = &e.ty else {
            return false;
        };
        let fits = |repr: Option<Repr>, leaves: LeafRepr| match (repr, leaves) {
            (Some(Repr::I64), LeafRepr::Scalar(kind)) => !kind.is_float(),
            (Some(Repr::F64), LeafRepr::Scalar(kind)) => kind.is_float(),
            _ => false,
        };
        let result = match LeafForm::of(&e.ty) {
            Some(LeafForm::Scalar(_)) => {
                fits(Repr::of(out_elem), output.repr) && Repr::of(&body.ty) == Repr::of(out_elem)
            }
            Some(form) => Agg::of(&body.ty).as_ref() == form.agg(),
            None => false,
        };
        // A register variable's leaves are loaded from the array's leaves.
        let element = match (self.vars.get(var), self.avars.get(var)) {
            (Some((_, repr)), _) => !input.elem_is_array && fits(Some(*repr), input.repr),
            (None, Some((_, agg))) => {
                LeafForm::of(&array.ty).is_some_and(|form| form.agg() == Some(agg))
            }
            (None, None) => true,
        };
        result && input.elem_leaves > 0 && element
    }

    /// `e`, a `MapLoop` over a small array in registers (of scalars, or of rows of scalars)
    /// into another (`agg`): the body lowered once per element, in order, the element in the
    /// variable's registers, so nothing is built in memory. `None` when the arrays are not
    /// such.
    pub(super) fn map_in_registers(&mut self, e: &Expr, agg: &Agg) -> Option<V> {
        let ExprKind::MapLoop {
            var,
            array,
            body,
            filter: false,
        } = &e.kind
        else {
            return None;
        };
        let source = Agg::of(&array.ty)?;
        let n = Shape::of(&array.ty)?.n_elements.filter(|n| *n > 0)?;
        // The leaves of one element, and of one result.
        let element: Vec<Repr> = match (self.vars.get(var), self.avars.get(var)) {
            (Some((_, repr)), _) => vec![*repr],
            (None, Some((_, elem))) => elem.leaves.clone(),
            (None, None) => return None,
        };
        let result: Vec<Repr> = match (Repr::of(&body.ty), Agg::of(&body.ty)) {
            (Some(repr @ (Repr::I64 | Repr::F64)), _) => vec![repr],
            (None, Some(out)) => out.leaves,
            _ => return None,
        };
        let tiles = |all: &[Repr], one: &[Repr]| {
            !one.is_empty() && all.len() == n * one.len() && all.chunks(one.len()).all(|c| c == one)
        };
        if !tiles(&source.leaves, &element) || !tiles(&agg.leaves, &result) {
            return None;
        }
        let elements = self.expr(array);
        let leaves = self.leaves(elements);
        let mut results = Vec::with_capacity(agg.leaves.len());
        for chunk in leaves.chunks(element.len()) {
            match self.vars.contains_key(var) {
                true => self.write_var(Place::Local(*var), chunk[0]),
                false => {
                    let v = self.agg_value(chunk.to_vec());
                    self.write_agg_var(*var, v);
                }
            }
            let v = self.expr(body);
            results.extend(self.leaves(v));
        }
        Some(self.agg_value(results))
    }

    /// `e`, a `MapLoop` `native_map` accepts, into the evaluator's value at `out` (which holds
    /// a value, replaced once the whole result is made: a fault in the body leaves it).
    pub(super) fn map_into(&mut self, e: &Expr, out: ClValue) {
        let ExprKind::MapLoop {
            var, array, body, ..
        } = &e.kind
        else {
            unreachable!("checked by native_map")
        };
        let (Some(input), Some(output)) = (Shape::of(&array.ty), Shape::of(&e.ty)) else {
            unreachable!("checked by native_map")
        };
        let in_form = LeafForm::of(&array.ty)
            .filter(|_| self.vars.contains_key(var) || self.avars.contains_key(var));
        let out_form = LeafForm::of(&e.ty).expect("checked by native_map: a result of leaves");
        let shapes = self.keep(MapShapes {
            input,
            output,
            result_ty: e.ty.clone(),
            span: e.span,
        });
        let input_shape = self.keep(input);
        let (var, span) = (*var, e.span);
        let count = match &array.ty {
            Type::Array(..) => crate::eval::value::leaf_count(&array.ty).map(|n| n as u64),
            _ => None,
        };
        self.result_into(array, shapes, out, |l, src, result, (data, n)| {
            let sources = in_form.map(|form| l.element_leaves(&form, src, false).0);
            // `map_start` gave the leaves of a new result; columns are fetched one by one.
            let results = match &out_form {
                LeafForm::Scalar(kind) => ElementLeaves::Scalar(*kind, data),
                LeafForm::Rows(kind, agg) => ElementLeaves::Rows(*kind, data, agg.leaves.len()),
                LeafForm::Columns(_) => l.element_leaves(&out_form, result, true).0,
            };
            // On rayon workers when the element and result are scalars, the body is pure and
            // reads no array (`parallel.rs`), and the array is not known to be too short.
            let scalars = match (&sources, &results) {
                (Some(ElementLeaves::Scalar(a, src)), ElementLeaves::Scalar(b, data))
                    if super::parallel::may_run_on_workers(count) =>
                {
                    Some(((*src, *data, n), (*a, *b)))
                }
                _ => None,
            };
            let sequential = |l: &mut Self| {
                l.counted_loop(MAP_LABEL, n, Some(span), &[], None, |l, i| {
                    match &sources {
                        Some(leaves) => {
                            let v = l.load_element_leaves(leaves, i);
                            match leaves {
                                ElementLeaves::Scalar(..) => l.write_var(Place::Local(var), v),
                                _ => l.write_agg_var(var, v),
                            }
                        }
                        None => {
                            l.frame_used = true;
                            let slot = l.slot_addr(var);
                            l.element_into(input_shape, src, i, slot);
                        }
                    }
                    let v = l.expr(body);
                    l.store_element_leaves(&results, i, v);
                })
            };
            match scalars.and_then(|(views, kinds)| l.chunk_map(var, body, views, kinds)) {
                Some(ran) => {
                    let (parallel, serial, done) =
                        (l.b.create_block(), l.b.create_block(), l.b.create_block());
                    l.b.ins().brif(ran, parallel, &[], serial, &[]);
                    l.b.seal_block(parallel);
                    l.b.seal_block(serial);
                    l.b.switch_to_block(parallel);
                    l.check_failed();
                    l.b.ins().jump(done, &[]);
                    l.b.switch_to_block(serial);
                    sequential(l);
                    l.b.ins().jump(done, &[]);
                    l.b.seal_block(done);
                    l.b.switch_to_block(done);
                }
                None => sequential(l),
            }
        });
    }

    /// Make the result of a `map` or `filter` over a copy of `array` into `out` (which holds a
    /// value, replaced once the whole result is made): `map_start` makes it at a temporary,
    /// dropped should `fill` fault, which gets the copy, the temporary, and the result's leaves'
    /// address and element count.
    fn result_into(
        &mut self,
        array: &Expr,
        shapes: *const MapShapes,
        out: ClValue,
        fill: impl FnOnce(&mut Self, ClValue, ClValue, (ClValue, ClValue)),
    ) {
        self.on_a_copy(array, None, |l, src| {
            let result = l.temp_value();
            let outer_unwind = l.unwind;
            let unwind = l.side_block(|l| {
                l.drop_value(result);
                l.b.ins().jump(outer_unwind, &[]);
            });
            l.unwind = unwind;
            let start = l.map_start(shapes, src, result);
            fill(l, src, result, start);
            l.copy_value(result, out);
            l.drop_value(result);
            l.b.seal_block(unwind);
            l.unwind = outer_unwind;
        });
    }

    /// Can `e` (a `MapLoop` that filters) be lowered by `filter_into`: elements that are
    /// unboxed scalars, the variable in a register, and a predicate computed natively?
    pub(super) fn native_filter(&self, e: &Expr) -> bool {
        let ExprKind::MapLoop {
            var,
            array,
            body,
            filter: true,
        } = &e.kind
        else {
            return false;
        };
        let Some(input) = Shape::of(&array.ty) else {
            return false;
        };
        let scalar = match (self.vars.get(var), input.repr) {
            (Some((_, Repr::I64)), LeafRepr::Scalar(kind)) => !kind.is_float(),
            (Some((_, Repr::F64)), LeafRepr::Scalar(kind)) => kind.is_float(),
            _ => false,
        };
        scalar
            && !input.elem_is_array
            && input.elem_leaves == 1
            && Repr::of(&body.ty) == Some(Repr::I64)
    }

    /// `e`, a `MapLoop` `native_filter` accepts, into the evaluator's value at `out` (which
    /// holds a value, replaced once the whole result is made: a fault in the predicate leaves
    /// it): one loop over the elements, each kept one stored at the next leaf of a result
    /// as long as the input, which is then cut to the elements kept.
    pub(super) fn filter_into(&mut self, e: &Expr, out: ClValue) {
        let ExprKind::MapLoop {
            var, array, body, ..
        } = &e.kind
        else {
            unreachable!("checked by native_filter")
        };
        let input = Shape::of(&array.ty).expect("checked by native_filter");
        let kind = scalar_kind(&array.ty).expect("checked by native_filter: scalar elements");
        let shapes = self.keep(MapShapes {
            input,
            output: input,
            result_ty: e.ty.clone(),
            span: e.span,
        });
        let (var, span) = (*var, e.span);
        self.result_into(array, shapes, out, |l, src, result, (data, n)| {
            let leaves = l.view(src, false, false).0;
            let kept = l.b.declare_var(types::I64);
            let zero = l.iconst(0);
            l.b.def_var(kept, zero);
            l.counted_loop(MAP_LABEL, n, Some(span), &[], None, |l, i| {
                let at = l.leaf_addr(kind, leaves, i);
                let x = l.load_leaf(kind, at);
                l.write_var(Place::Local(var), x);
                let keep = l.expr(body).int();
                let k = l.b.use_var(kept);
                let (store, next) = (l.b.create_block(), l.b.create_block());
                l.b.ins().brif(keep, store, &[], next, &[]);
                l.b.seal_block(store);
                l.b.switch_to_block(store);
                let (V::I(leaf) | V::F(leaf)) = x else {
                    unreachable!("checked by native_filter: a scalar element")
                };
                let at = l.leaf_addr(kind, data, k);
                l.store_leaf(kind, leaf, at);
                let k = l.b.ins().iadd_imm_s(k, 1);
                l.b.def_var(kept, k);
                l.b.ins().jump(next, &[]);
                l.b.seal_block(next);
                l.b.switch_to_block(next);
            });
            let k = l.b.use_var(kept);
            l.call_helper(Helper::CutArray, &[types::I64; 2], &[], &[result, k]);
        });
    }

    /// The result of a `map` over the array at `src` made at `result`: its leaves' address
    /// and the element count.
    fn map_start(
        &mut self,
        shapes: *const MapShapes,
        src: ClValue,
        result: ClValue,
    ) -> (ClValue, ClValue) {
        let start = self.leaf_buffer(2);
        let shapes = self.ptr_const(shapes);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::MapStart,
                &[types::I64; 5],
                &[types::I32],
                &[rt, shapes, src, result, start],
            )
            .expect("map_start returns a status");
        self.branch_unwind_if(status);
        let data = self.b.ins().load(types::I64, flags(), start, 0);
        let n = self.b.ins().load(types::I64, flags(), start, 8);
        (data, n)
    }

    /// Element `i` of the array at `src` (of shape `shape`) into the value at `dest`.
    pub(super) fn element_into(
        &mut self,
        shape: *const Shape,
        src: ClValue,
        i: ClValue,
        dest: ClValue,
    ) {
        let shape = self.ptr_const(shape);
        self.call_helper(
            Helper::Element,
            &[types::I64; 4],
            &[],
            &[shape, src, i, dest],
        );
    }

    /// The number of elements of the array at `src` (of shape `shape`; 0 when it holds none).
    pub(super) fn element_count(&mut self, shape: *const Shape, src: ClValue) -> ClValue {
        let shape = self.ptr_const(shape);
        self.call_helper(
            Helper::ElementCount,
            &[types::I64; 2],
            &[types::I64],
            &[shape, src],
        )
        .expect("element_count returns the count")
    }
}
