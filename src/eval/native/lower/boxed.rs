//! Values not in registers that native code computes into the evaluator's value at an
//! address (`value_into`): aggregates (boxed from their leaves), kernels over native
//! operands, maps, closures, and the forms that build a value from native parts: a call of a
//! native instance returning a boxed value (written by the callee), a variant or option
//! (`Some x`, `Node (l, r)`), a string (`text.rs`), a conditional or a match choosing one, a
//! copy of a variable, a constant. Anything else is a fallback piece. The value at the
//! address is replaced only once the new one is complete, so a fault leaves it as it was.

use cranelift_codegen::ir::{
    types, Block, InstBuilder, StackSlotData, StackSlotKind, Value as ClValue,
};

use crate::core::ir::{
    CmpOp, CoerceKind, Expr, ExprKind, IndexMode, PathStep, Place, Prim, VarrayOp, WorldOp,
};

use super::super::layout::{self, VALUE_SIZE};
use super::super::runtime::{Helper, Parts};
use super::element::ElementPath;
use super::{flags, Lower};
use crate::eval::array::Shape;
use crate::eval::native::{Agg, Repr};
use crate::eval::value::{ArgForm, LeafRepr, Value};
use crate::types::Type;

/// Operands read for a helper (`read_operands`): the address of each, whether it is a
/// temporary this code dropped (a computed string or boxed aggregate), and the unwind blocks
/// that drop them if a later step fails.
pub(super) struct Operands {
    pub(super) addrs: Vec<ClValue>,
    temps: Vec<ClValue>,
    blocks: Vec<Block>,
    outer_unwind: Block,
}

impl Lower<'_, '_, '_> {
    /// Evaluate `e` into the evaluator's value at `out` (which holds a value, replaced):
    /// natively when this module builds its form, otherwise as a fallback piece (`why` goes to
    /// the report).
    pub(super) fn value_into(&mut self, e: &Expr, out: ClValue, why: &str) {
        if let Some(agg) = Agg::of(&e.ty) {
            let v = self.expr(e);
            self.box_into(out, &agg, v);
            return;
        }
        match &e.kind {
            ExprKind::Prim(Prim::StrConcat, _) => self.concat_into(e, out),
            ExprKind::Prim(Prim::Varray(op @ VarrayOp::Get), a)
                if self.values_form(e, *op, a).is_some() =>
            {
                let index = self.values_form(e, *op, a).flatten();
                self.values_call(e, *op, index, a, Some(out));
            }
            ExprKind::Prim(Prim::Varray(VarrayOp::New), a) if self.new_varray_into(e, a, out) => {}
            ExprKind::Prim(Prim::World(WorldOp::Readln), a) => {
                self.read_line_into(&a[0], e.span, out)
            }
            ExprKind::Prim(p @ (Prim::Str | Prim::Repr | Prim::Strr), x) if x.len() == 1 => {
                self.show_into(p, &x[0], e.span, out)
            }
            ExprKind::Prim(p, a)
                if super::expr::evaluates_operands_first(p)
                    && (matches!(p, Prim::World(_)) || a.iter().any(|o| self.worth_native(o))) =>
            {
                self.kernel_into(e, a, |args| ExprKind::Prim(p.clone(), args), out)
            }
            ExprKind::MapLoop { .. } if self.native_map(e) => self.map_into(e, out),
            ExprKind::MapLoop { .. } if self.native_filter(e) => self.filter_into(e, out),
            // A body whose value is what a `return` among its statements gives: each return
            // writes it to `out`, as a native function's returns write the caller's value.
            ExprKind::Inlined(inlined) if inlined.result.is_none() => {
                let outer_unwind = self.enter_inlined(inlined);
                let done = self.b.create_block();
                self.returns.push(super::ReturnTarget {
                    block: done,
                    repr: Repr::Unit,
                    out: Some(out),
                    agg: None,
                });
                self.stmts(&inlined.stmts);
                self.returns.pop();
                if !self.filled() {
                    self.b.ins().jump(done, &[]);
                }
                self.b.seal_block(done);
                self.b.switch_to_block(done);
                self.leave_inlined(inlined, outer_unwind);
            }
            ExprKind::Inlined(inlined) if self.worth_native(e) || self.builds_natively(e) => {
                let result = inlined.result.as_ref().expect("a result");
                let outer_unwind = self.enter_inlined(inlined);
                self.stmts(&inlined.stmts);
                self.ensure_open();
                self.value_into(result, out, why);
                self.leave_inlined(inlined, outer_unwind);
            }
            // A reshape between arrays of the same leaves is the same value (zero copy).
            ExprKind::Coerce(CoerceKind::Reshape, inner) if same_array_leaves(inner, e) => {
                self.value_into(inner, out, why)
            }
            ExprKind::MakeFun { .. } | ExprKind::Closure { .. }
                if self.make_closure_into(e, out) => {}
            ExprKind::Call { func, args } => self.call_into(e, func, args, out),
            // A case without an argument (`None`, `Empty`) is one shared value, copied.
            ExprKind::Inject { tag, arg } if Repr::of(&arg.ty) == Some(Repr::Unit) => {
                self.expr(arg);
                self.copy_kept(Value::sum(*tag, ArgForm::Whole, Value::Unit), out);
            }
            // A case whose argument is a literal tuple or array (`Node (l, k, r)`, `h ! t`):
            // the argument and the case made by one helper call.
            ExprKind::Inject { tag, arg } if self.parts_into(arg, out, why, Some(*tag)) => {}
            ExprKind::Inject { tag, arg } => {
                let temp = self.temp_value();
                self.part_into(arg, temp, why);
                let tag = self.iconst(*tag as i64);
                let form = self.iconst(ArgForm::of(&arg.ty) as i64);
                let args = [tag, form, temp, out];
                self.call_helper(Helper::MakeSum, &[types::I64; 4], &[], &args);
            }
            ExprKind::Tuple(parts) | ExprKind::Array(parts)
                if !parts.is_empty() && self.parts_into(e, out, why, None) => {}
            ExprKind::If(c, t, f) => {
                let join = self.join_block(Repr::Unit, None);
                self.lower_if((c, t, f), join, |l, arm| {
                    l.value_into(arm, out, why);
                    vec![]
                });
                self.joined(join, Repr::Unit, None);
            }
            ExprKind::Match(scrutinee, arms) => {
                let join = self.join_block(Repr::Unit, None);
                self.lower_match(scrutinee, arms, join, |l, body| {
                    l.value_into(body, out, why);
                    Some(vec![])
                });
                self.joined(join, Repr::Unit, None);
            }
            ExprKind::Local(s) if !self.vars.contains_key(s) && !self.avars.contains_key(s) => {
                self.frame_used = true;
                let from = self.slot_addr(*s);
                self.copy_value(from, out);
            }
            // Moved out of its slot, which is left holding `unit`: no copy.
            ExprKind::Take(s) if !self.vars.contains_key(s) && !self.avars.contains_key(s) => {
                self.frame_used = true;
                let from = self.slot_addr(*s);
                self.take_value(from, out);
            }
            ExprKind::Global(g) => {
                self.check_global_set(*g, &e.ty, e.span);
                let from = self.global_addr(*g);
                self.copy_value(from, out);
            }
            ExprKind::Const(c) => {
                self.copy_kept(crate::eval::compile::const_value(c, &e.ty), out);
            }
            ExprKind::Prim(Prim::StrSlice { from, to }, a) if sliced_natively(e) => {
                self.slice_into(*from, *to, a, out)
            }
            ExprKind::Field(..) | ExprKind::Index { .. } if self.part_path(e).is_some() => {
                self.part_read_into(e, out)
            }
            ExprKind::Field(inner, i) if self.field_of_built(inner) => {
                self.field_into(inner, *i, out, why)
            }
            _ => self.eval_into(e, out, why),
        }
    }

    /// Is `inner` a tuple, record or struct not in registers that `value_into` builds
    /// natively (a varray's element, a call's result), so that a field of it is read by
    /// `field_into`?
    fn field_of_built(&self, inner: &Expr) -> bool {
        Repr::of(&inner.ty).is_none()
            && Agg::of(&inner.ty).is_none()
            && Shape::of(&inner.ty).is_none()
            && !crate::types::kind::is_compact(&inner.ty)
            && self.builds_natively(inner)
    }

    /// `v.i` of a value `field_of_built` accepts: the value computed into a temporary, its
    /// part `i` copied into `out`, the temporary dropped. A value not held as a tuple is its
    /// own part, as the closure compiler reads it.
    fn field_into(&mut self, inner: &Expr, i: u32, out: ClValue, why: &str) {
        let temp = self.temp_value();
        self.value_into(inner, temp, why);
        let first = self.parts_address(temp, &inner.ty);
        let (part, whole, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(first, part, &[], whole, &[]);
        self.b.seal_block(part);
        self.b.seal_block(whole);
        self.b.switch_to_block(part);
        let at = self
            .b
            .ins()
            .iadd_imm_s(first, i64::from(i) * VALUE_SIZE as i64);
        self.copy_value(at, out);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(whole);
        self.take_value(temp, out);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        self.drop_value(temp);
    }

    /// Write the value of the literal tuple or array `e` to `out`, its parts computed first and
    /// the value made by one helper call; as the argument of the case `sum` when given (the
    /// case's value then written). False, with nothing lowered, when `e` is not such a literal
    /// or its array has no shape the helper builds.
    fn parts_into(&mut self, e: &Expr, out: ClValue, why: &str, sum: Option<u32>) -> bool {
        let parts = match &e.kind {
            ExprKind::Tuple(parts) | ExprKind::Array(parts) if !parts.is_empty() => parts,
            _ => return false,
        };
        let shape = match e.ty {
            crate::types::Type::Array(..) => match Shape::of(&e.ty) {
                Some(shape) => Some(shape),
                None if sum.is_some() => return false,
                None => {
                    self.eval_into(e, out, why);
                    return true;
                }
            },
            _ => None,
        };
        let values = self.temp_values(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(values, (i * VALUE_SIZE) as i64);
            self.part_into(part, at, why);
        }
        let desc = self.keep(Parts {
            shape,
            ty: e.ty.clone(),
            span: e.span,
            sum: sum.map(|tag| (tag, ArgForm::of(&e.ty))),
        });
        let desc = self.ptr_const(desc);
        let n = self.iconst(parts.len() as i64);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::MakeParts,
                &[types::I64; 5],
                &[types::I32],
                &[rt, desc, values, n, out],
            )
            .expect("make_parts returns a status");
        self.branch_unwind_if(status);
        true
    }

    /// Is `e` a variable whose value is the evaluator's in its slot (a local in the frame, a
    /// global, a value captured by copy) and not a scalar or aggregate in registers?
    fn boxed_variable(&self, e: &Expr) -> bool {
        let slot = match e.kind {
            ExprKind::Local(s) => !self.vars.contains_key(&s) && !self.avars.contains_key(&s),
            ExprKind::Global(_) => true,
            ExprKind::Capture(i) => (i as usize) < self.n_captures,
            _ => false,
        };
        slot && Repr::of(&e.ty).is_none() && Agg::of(&e.ty).is_none()
    }

    /// The variable and the steps (each with the type of the value it is taken from) of a read
    /// of a part of a variable holding its value in its slot: fields of tuples, records and
    /// structs (`v.a.b`), elements of arrays of boxed values (`v.(i)`) by a closed index.
    fn part_path<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, Vec<(&'e Type, Step<'e>)>)> {
        let mut steps = Vec::new();
        let mut at = e;
        loop {
            let (inner, step) = match &at.kind {
                ExprKind::Field(inner, i) => (inner, Step::Field(*i)),
                ExprKind::Index { array, index, mode } => {
                    let shape = Shape::of(&array.ty)?;
                    let boxed = shape.elem_leaves == 1 && !shape.elem_is_array;
                    let n = shape.n_elements?;
                    let closed = Repr::of(&index.ty) == Some(Repr::I64)
                        && self.closed_expr(index, &mut std::collections::HashMap::new());
                    if !boxed || !closed {
                        return None;
                    }
                    (array, Step::Index(index, *mode, n))
                }
                _ => break,
            };
            if Repr::of(&inner.ty).is_some() || Agg::of(&inner.ty).is_some() {
                return None;
            }
            steps.push((&inner.ty, step));
            at = inner;
        }
        steps.reverse();
        (!steps.is_empty() && self.boxed_variable(at)).then_some((at, steps))
    }

    /// A read of a part of a variable (`part_path`) copied into `out` from where the tuples
    /// and arrays on the way hold it, each linear index checked (R0001); a value of another
    /// representation goes to the closure compiler (a cold path: reading a variable and
    /// computing closed indices have no effect, so they may run there).
    fn part_read_into(&mut self, e: &Expr, out: ClValue) {
        let other = self.b.create_block();
        let done = self.b.create_block();
        let addr = self.part_address(e, other);
        self.copy_value(addr, out);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(other);
        self.b.switch_to_block(other);
        self.eval_into(e, out, "");
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
    }

    /// The address of a part of a variable (`part_path`) where the tuples and arrays on the
    /// way hold it, for a helper that only reads it: in place, or `temp` (which holds `Unit`)
    /// with the part copied into it by the closure compiler when a value on the way is held
    /// in another representation.
    fn part_in_place(&mut self, e: &Expr, temp: ClValue) -> ClValue {
        let other = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I64);
        let addr = self.part_address(e, other);
        self.b.ins().jump(done, &super::args(&[addr]));
        self.b.seal_block(other);
        self.b.switch_to_block(other);
        self.eval_into(e, temp, "");
        self.b.ins().jump(done, &super::args(&[temp]));
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// The address of a part of a variable (`part_path`), each linear index checked (R0001);
    /// a jump to `other` (made cold here) where a value on the way is not held as a tuple or
    /// an array of boxed values.
    fn part_address(&mut self, e: &Expr, other: Block) -> ClValue {
        let (variable, steps) = self.part_path(e).expect("checked by the caller");
        self.check_base(variable);
        let mut addr = self.base_addr(variable);
        self.b.set_cold_block(other);
        for (ty, step) in steps {
            let first = self.parts_address(addr, ty);
            let held = self.b.create_block();
            self.b.ins().brif(first, held, &[], other, &[]);
            self.b.seal_block(held);
            self.b.switch_to_block(held);
            let position = match step {
                Step::Field(i) => self.iconst(i64::from(i)),
                Step::Index(index, IndexMode::Linear, n) => self.linear_index(index, ty, n),
                Step::Index(index, _, _) => self.expr(index).int(),
            };
            let offset = self.b.ins().imul_imm_s(position, VALUE_SIZE as i64);
            addr = self.b.ins().iadd(first, offset);
        }
        addr
    }

    /// `&a.(i) <- v` into an array of boxed elements of one leaf each (strings, variants) held
    /// in a variable's slot: the index checked (R0001), then `v` computed into a temporary
    /// (natively where `value_into` builds it: a call, a function's inlined body with its
    /// loops), then moved into the element, the storage made unshared first. False, with
    /// nothing lowered, for a store of another kind.
    pub(super) fn store_boxed(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
        element: &ElementPath<'_>,
    ) -> bool {
        let [(index, mode, array_ty)] = element.steps.as_slice() else {
            return false;
        };
        let boxed = Shape::of(array_ty)
            .filter(|s| s.elem_leaves == 1 && !s.elem_is_array && s.repr == LeafRepr::Boxed);
        let Some(n) = boxed.and_then(|s| s.n_elements) else {
            return false;
        };
        if element.pointer
            || Repr::of(&index.ty) != Some(Repr::I64)
            || !self.boxed_variable(element.base)
        {
            return false;
        }
        self.check_store_target(place, root_ty, path, value);
        let position = match mode {
            IndexMode::Linear => self.linear_index(index, array_ty, n),
            _ => self.expr(index).int(),
        };
        let temp = self.temp_value();
        self.value_into(value, temp, "an element of an array of boxed values");
        let addr = self.base_addr(element.base);
        let args = [addr, position, temp];
        self.call_helper(Helper::StoreBoxed, &[types::I64; 3], &[], &args);
        true
    }

    /// The address of the first part of the tuple (or array of boxed leaves) of type `ty` at
    /// `addr`, or null when the value there is not held so.
    fn parts_address(&mut self, addr: ClValue, ty: &Type) -> ClValue {
        match (Shape::of(ty), layout::tuple_parts()) {
            (None, Some(parts)) => {
                let is_tuple = self.has_tag(addr, layout::TAG_TUPLE);
                let at = self.b.ins().load(types::I64, flags(), addr, parts.word);
                let first = self.b.ins().iadd_imm_s(at, parts.parts as i64);
                let null = self.iconst(0);
                self.b.ins().select(is_tuple, first, null)
            }
            _ => self
                .call_helper(Helper::BoxedParts, &[types::I64], &[types::I64], &[addr])
                .expect("boxed_parts returns an address"),
        }
    }

    /// Copy the evaluator's value at `from` into the value at `out` (replaced).
    pub(super) fn copy_value(&mut self, from: ClValue, out: ClValue) {
        // A unit, an integer or a float is copied by its words; anything else by the helper
        // (which counts the new reference).
        let owns = self.owns(from);
        let helper = self.b.create_block();
        let words = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(owns, helper, &[], words, &[]);
        self.b.seal_block(helper);
        self.b.seal_block(words);
        self.b.switch_to_block(helper);
        self.call_helper(Helper::CloneValue, &[types::I64; 2], &[], &[from, out]);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(words);
        let copied = self.value_words(from);
        self.drop_value(out);
        self.store_value_words(&copied, out);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
    }

    /// Move the value at `from` into the value at `out` (replaced, and dropped after), leaving
    /// `unit` at `from` (which may be `out`).
    pub(super) fn take_value(&mut self, from: ClValue, out: ClValue) {
        let moved = self.value_words(from);
        let unit = self.b.ins().iconst(types::I8, layout::TAG_UNIT as i64);
        self.b.ins().store(flags(), unit, from, 0);
        self.drop_value(out);
        self.store_value_words(&moved, out);
    }

    /// Copy `value`, kept as long as the code, into the value at `out` (replaced).
    fn copy_kept(&mut self, value: Value, out: ClValue) {
        let kept = self.keep(value);
        let from = self.ptr_const(kept);
        self.copy_value(from, out);
    }

    /// The address of the evaluator's value of `e`: a local variable's own frame slot, else a
    /// stack temporary it is computed into (`true`: drop it after use). `why` goes to the
    /// report if computing it is a fallback piece.
    pub(super) fn boxed_operand(&mut self, e: &Expr, why: &str) -> (ClValue, bool) {
        match e.kind {
            ExprKind::Local(s) if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) => {
                self.frame_used = true;
                (self.slot_addr(s), false)
            }
            _ => {
                let temp = self.temp_value();
                self.part_into(e, temp, why);
                (temp, true)
            }
        }
    }

    /// The address of the evaluator's value of `e` for a helper that only reads it: a
    /// constant's kept value, a global's slot (checked for a value first), a local's slot,
    /// else a stack temporary it is computed into (`true`: drop it after use).
    pub(super) fn read_operand(&mut self, e: &Expr, why: &str) -> (ClValue, bool) {
        match &e.kind {
            ExprKind::Const(c) => {
                let kept = self.keep(crate::eval::compile::const_value(c, &e.ty));
                (self.ptr_const(kept), false)
            }
            ExprKind::Global(g) => {
                self.check_global_set(*g, &e.ty, e.span);
                let at = self.global_addr(*g);
                (at, false)
            }
            _ => self.boxed_operand(e, why),
        }
    }

    /// Read `operands` in order where each lives (`read_operand`: a constant, a variable's
    /// slot), computing the others (and every scalar or aggregate) into temporaries. A
    /// variable is read in place only when no later operand holds a call (which could assign
    /// it); otherwise it is copied first, as the evaluator reads it. Until
    /// `release_operands`, a failure drops the temporaries made.
    pub(super) fn read_operands(&mut self, operands: &[&Expr], why: &str) -> Operands {
        let mut read = Operands {
            addrs: Vec::with_capacity(operands.len()),
            temps: Vec::new(),
            blocks: Vec::new(),
            outer_unwind: self.unwind,
        };
        for (i, e) in operands.iter().enumerate() {
            let later_calls = !operands[i + 1..]
                .iter()
                .all(|o| crate::eval::compile::is_call_free(o));
            // A scalar or aggregate is computed: a global may be held in registers by a
            // closed loop.
            let native = Repr::of(&e.ty).is_some() || Agg::of(&e.ty).is_some();
            let (at, temp) = if later_calls || native {
                let temp = self.temp_value();
                self.part_into(e, temp, why);
                (temp, Some(temp))
            } else if self.part_path(e).is_some() {
                // An element or field of a variable: read in place (the temporary holds the
                // part only on the cold path, and `Unit` otherwise).
                let temp = self.temp_value();
                (self.part_in_place(e, temp), Some(temp))
            } else {
                let (at, temp) = self.read_operand(e, why);
                (at, temp.then_some(at))
            };
            read.addrs.push(at);
            // A scalar's value owns nothing: its temporary needs no drop.
            if let Some(at) = temp.filter(|_| Repr::of(&e.ty).is_none()) {
                read.temps.push(at);
                let outer = self.unwind;
                let unwind = self.side_block(|l| {
                    l.drop_value(at);
                    l.b.ins().jump(outer, &[]);
                });
                read.blocks.push(unwind);
                self.unwind = unwind;
            }
        }
        read
    }

    /// After the helper that read `read`: its temporaries dropped, the unwind block restored.
    pub(super) fn release_operands(&mut self, read: Operands) {
        for block in read.blocks {
            self.b.seal_block(block);
        }
        self.unwind = read.outer_unwind;
        for at in read.temps {
            self.drop_value(at);
        }
    }

    /// `x op y` on values not in registers (strings, tuples, variants, lists), compared in
    /// place by the evaluator's comparator of their type (`read_operands`: a variable is
    /// copied only when the other operand holds a call).
    pub(super) fn compare_boxed(&mut self, op: CmpOp, x: &Expr, y: &Expr) -> ClValue {
        let read = self.read_operands(&[x, y], "an operand of a comparison not in registers");
        let compare = self.keep(crate::eval::prims::comparator(&x.ty));
        let compare = self.ptr_const(compare);
        let (xa, ya) = (read.addrs[0], read.addrs[1]);
        let order = self
            .call_helper(
                Helper::CompareValues,
                &[types::I64; 3],
                &[types::I64],
                &[compare, xa, ya],
            )
            .expect("compare_values returns the order");
        self.release_operands(read);
        let holds = self
            .b
            .ins()
            .icmp_imm_s(super::expr::int_cc(op, false), order, 0);
        self.b.ins().uextend(types::I64, holds)
    }

    /// Evaluate `e` into the fresh temporary `at` (which holds `Unit`): a scalar stored, a
    /// unit only evaluated, anything else by `value_into`.
    pub(super) fn part_into(&mut self, e: &Expr, at: ClValue, why: &str) {
        match Repr::of(&e.ty) {
            Some(Repr::I64 | Repr::F64) => {
                let v = self.expr(e);
                self.store_value(at, v);
            }
            Some(Repr::Unit) => {
                self.expr(e);
            }
            _ => self.value_into(e, at, why),
        }
    }

    /// `n` values on the stack, each holding `Unit`.
    pub(super) fn temp_values(&mut self, n: usize) -> ClValue {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (n * VALUE_SIZE) as u32,
            3,
        ));
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let unit = self.b.ins().iconst(types::I8, 0);
        for i in 0..n {
            self.b
                .ins()
                .store(super::flags(), unit, at, (i * VALUE_SIZE) as i32);
        }
        at
    }

    /// Does `value_into` build the boxed value `e` natively, rather than run it as one
    /// fallback piece? A call, a variant, a tuple with parts in registers or built so, a
    /// conditional or match, a copy of a variable (a global checked for a value first) or
    /// constant, a part of a variable, a field of a value built so, a substring, a varray's
    /// element, or a body inlined for one or ending in returns.
    pub(super) fn builds_natively(&self, e: &Expr) -> bool {
        if Repr::of(&e.ty).is_some() || Agg::of(&e.ty).is_some() {
            return false;
        }
        match &e.kind {
            ExprKind::Call { .. } => true,
            ExprKind::Inject { .. } | ExprKind::If(..) | ExprKind::Match(..) => true,
            ExprKind::Prim(Prim::StrSlice { .. }, _) => sliced_natively(e),
            ExprKind::Prim(Prim::Varray(VarrayOp::New), _) => true,
            ExprKind::Prim(Prim::Varray(op), a) => self.values_form(e, *op, a).is_some(),
            // Input and output (`readln f`, `load path`): the runtime's operation on its
            // operands, computed first (`kernel_into`).
            ExprKind::Prim(Prim::World(_), _) => true,
            ExprKind::Prim(p, _) => text_prim(p),
            ExprKind::Field(inner, _) => self.part_path(e).is_some() || self.field_of_built(inner),
            ExprKind::Index { .. } => self.part_path(e).is_some(),
            ExprKind::Const(_) | ExprKind::Global(_) => true,
            ExprKind::Local(s) | ExprKind::Take(s) => {
                !self.vars.contains_key(s) && !self.avars.contains_key(s)
            }
            ExprKind::Tuple(parts) | ExprKind::Array(parts) => parts
                .iter()
                .any(|p| Repr::of(&p.ty).is_some() || self.builds_natively(p)),
            ExprKind::MapLoop { .. } => self.native_map(e) || self.native_filter(e),
            ExprKind::Coerce(CoerceKind::Reshape, inner) if same_array_leaves(inner, e) => {
                self.builds_natively(inner)
            }
            ExprKind::Inlined(inlined) => inlined
                .result
                .as_ref()
                .is_none_or(|r| self.builds_natively(r)),
            _ => false,
        }
    }
}

/// Is `reshaped` a reshape of the array `inner` into an array of the same leaves (so the same
/// value, as the closure compiler's reshape keeps it)?
fn same_array_leaves(inner: &Expr, reshaped: &Expr) -> bool {
    matches!(inner.ty, Type::Array(..))
        && matches!(reshaped.ty, Type::Array(..))
        && crate::eval::array::same_leaves(&inner.ty, &reshaped.ty)
}

/// Is a comparison of values of type `ty` made in place (`compare_boxed`)? Values not in
/// registers and not aggregates; compact values (big codes) stay with the closure compiler,
/// which compares compact sums by case.
pub(super) fn compared_in_place(ty: &crate::types::Type) -> bool {
    Repr::of(ty).is_none() && Agg::of(ty).is_none() && !crate::types::kind::is_compact(ty)
}

/// Is `e` a substring native code takes (`slice_into`): of a string, by integer bounds?
pub(super) fn sliced_natively(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Prim(Prim::StrSlice { .. }, a) => {
            a[0].ty == Type::String && a[1..].iter().all(|b| matches!(b.ty, Type::Int(_)))
        }
        _ => false,
    }
}

/// Is `p` one of the text operations native code computes itself (`text.rs`): a string
/// concatenation, or `str`, `repr` or `_strr` of a value?
pub(super) fn text_prim(p: &Prim) -> bool {
    matches!(p, Prim::StrConcat | Prim::Str | Prim::Repr | Prim::Strr)
}

/// One step of a `part_path`: a field, or an element by an index (its mode, the array's
/// element count).
#[derive(Clone, Copy)]
enum Step<'e> {
    Field(u32),
    Index(&'e Expr, IndexMode, usize),
}
