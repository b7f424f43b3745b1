//! Captured variables and closures: a function reads its closure's captured values through
//! the captures pointer every native function is passed (`(runtime, captures, ...)`, the
//! evaluator's `Value`s in the order of the function's `captures` list). A capture by value
//! (`Capture(i)`, a parameter or `val` copied when the closure was made) never changes, so
//! a captured scalar is loaded once at the function's entry; a captured variable
//! (`CaptureCell(i)`, and a cell of the function's own frame, `LocalCell(s)`) is shared with
//! the functions that capture it and is read and assigned under its lock at each use, as the
//! evaluator does. Closures made here (`MakeFun`, `Closure`) and direct calls of capturing
//! functions gather the values their captures name into a buffer of values on the stack.

use cranelift_codegen::ir::{
    condcodes::IntCC, types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    Value as ClValue,
};

use crate::core::ir::{Capture, Expr, ExprKind, Place, Stmt};
use crate::core::visit::each_in_stmts;

use super::super::layout::{self, VALUE_SIZE};
use super::super::runtime::{self, Helper};
use super::{flags, Lower, V};
use crate::eval::native::{Agg, Repr};

impl Lower<'_, '_, '_> {
    /// The address of the function's capture `i`.
    pub(super) fn capture_addr(&mut self, i: u32) -> ClValue {
        self.b
            .ins()
            .iadd_imm_s(self.captures, i as i64 * VALUE_SIZE as i64)
    }

    /// Load every captured scalar `body` reads (`Capture(i)` of a type in registers), once,
    /// here at the function's entry: the evaluator's value read as `Repr::unboxed` reads it (a
    /// value of another kind, such as a `val` captured before it was assigned, reads as 0).
    pub(super) fn load_captures(&mut self, body: &[Stmt]) {
        let mut wanted: Vec<(u32, Repr)> = Vec::new();
        each_in_stmts(
            body,
            &mut |e| {
                if let ExprKind::Capture(i) = e.kind {
                    if let Some(r @ (Repr::I64 | Repr::F64)) = Repr::of(&e.ty) {
                        wanted.push((i, r));
                    }
                }
            },
            &mut |_| {},
        );
        wanted.sort_unstable_by_key(|(i, _)| *i);
        wanted.dedup_by_key(|(i, _)| *i);
        for (i, repr) in wanted {
            if i as usize >= self.n_captures {
                continue;
            }
            let addr = self.capture_addr(i);
            let tag = self.b.ins().uload8(types::I64, flags(), addr, 0);
            let expected = match repr {
                Repr::F64 => layout::TAG_FLOAT,
                _ => layout::TAG_INT,
            };
            let is = self.b.ins().icmp_imm_s(IntCC::Equal, tag, expected as i64);
            let loaded = self.load_value(addr, repr);
            let zero = self.zero(repr);
            let v = match (loaded, zero) {
                (V::I(x), V::I(z)) => V::I(self.b.ins().select(is, x, z)),
                (V::F(x), V::F(z)) => V::F(self.b.ins().select(is, x, z)),
                _ => continue,
            };
            self.capture_values.insert(i, v);
        }
    }

    /// The value of `Capture(i)`, of a type in registers.
    pub(super) fn capture_read(&mut self, e: &Expr, i: u32, repr: Repr) -> V {
        match self.capture_values.get(&i) {
            Some(v) => *v,
            None if repr == Repr::Unit => V::Unit,
            None => self.fallback_expr(e, "a captured value of the enclosing code"),
        }
    }

    /// The aggregate value of `Capture(i)` (a tuple of scalars, a small array), unboxed.
    pub(super) fn capture_agg(&mut self, e: &Expr, i: u32, agg: &Agg) -> V {
        if i as usize >= self.n_captures {
            return self.agg_fallback(e, agg, "a captured value of the enclosing code");
        }
        let addr = self.capture_addr(i);
        self.unbox_from(addr, agg)
    }

    /// Can native code reach the cell of `place` (a cell of the frame, or a captured cell)?
    pub(super) fn cell_place(&self, place: Place) -> bool {
        match place {
            Place::LocalCell(_) => true,
            Place::CaptureCell(i) => (i as usize) < self.n_captures,
            _ => false,
        }
    }

    /// The address of the value holding the cell of `place` (`cell_place`).
    fn cell_addr(&mut self, place: Place) -> ClValue {
        match place {
            Place::LocalCell(s) => {
                self.frame_used = true;
                self.slot_addr(s)
            }
            Place::CaptureCell(i) => self.capture_addr(i),
            _ => unreachable!("not a cell"),
        }
    }

    /// Read the variable in the cell of `place`, a scalar of `repr`.
    pub(super) fn cell_read(&mut self, place: Place, repr: Repr) -> V {
        if repr == Repr::Unit {
            return V::Unit;
        }
        let at = self.cell_addr(place);
        let code = self.iconst(runtime::repr_code(repr) as i64);
        let bits = self
            .call_helper(
                Helper::CellRead,
                &[types::I64; 2],
                &[types::I64],
                &[at, code],
            )
            .expect("cell_read returns bits");
        self.bits_value(bits, repr)
    }

    /// A copy of the value of the variable in the cell of `place` into the value at `out`
    /// (which holds a value, replaced).
    pub(super) fn cell_value_into(&mut self, place: Place, out: ClValue) {
        let at = self.cell_addr(place);
        self.call_helper(Helper::CellClone, &[types::I64; 2], &[], &[at, out]);
    }

    /// Assign the variable in the cell of `place` the scalar `v`.
    pub(super) fn cell_write(&mut self, place: Place, v: V) {
        let (bits, repr) = match v {
            V::I(x) => (x, Repr::I64),
            V::F(x) => (
                self.b.ins().bitcast(types::I64, MemFlagsData::new(), x),
                Repr::F64,
            ),
            V::Unit | V::Agg(_) => return,
        };
        let at = self.cell_addr(place);
        let code = self.iconst(runtime::repr_code(repr) as i64);
        let local = self.iconst(matches!(place, Place::LocalCell(_)) as i64);
        self.call_helper(
            Helper::CellWrite,
            &[types::I64; 4],
            &[],
            &[at, code, bits, local],
        );
    }

    /// Make the function value `e` (`make_closure_into`) into the cell of `place`; `false`
    /// when it cannot be made here.
    pub(super) fn make_closure_in_cell(&mut self, e: &Expr, place: Place) -> bool {
        let temp = self.temp_value();
        if !self.make_closure_into(e, temp) {
            return false;
        }
        let at = self.cell_addr(place);
        let local = self.iconst(matches!(place, Place::LocalCell(_)) as i64);
        self.call_helper(Helper::CellPut, &[types::I64; 3], &[], &[at, temp, local]);
        true
    }

    /// A buffer of the values `captures` names in this frame, for a closure made here or a
    /// direct call: a scalar held in a register written as a value, anything else a copy of
    /// the bytes of its frame slot or of this function's own capture (borrowed: the buffer
    /// is not dropped, and must not outlive the frame). `None` when a capture cannot be
    /// reached (a capture of enclosing code in a unit's top level).
    pub(super) fn captures_buffer(&mut self, captures: &[Capture]) -> Option<ClValue> {
        if !self.captures_reachable(captures) {
            return None;
        }
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (captures.len().max(1) * VALUE_SIZE) as u32,
            3,
        ));
        let buffer = self.b.ins().stack_addr(types::I64, slot, 0);
        for (j, capture) in captures.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(buffer, (j * VALUE_SIZE) as i64);
            let from = match *capture {
                Capture::Slot(s) if self.vars.contains_key(&s) => {
                    let (var, repr) = self.vars[&s];
                    let x = self.b.use_var(var);
                    let v = match repr {
                        Repr::F64 => V::F(x),
                        _ => V::I(x),
                    };
                    self.store_value(at, v);
                    continue;
                }
                Capture::Slot(s) | Capture::Cell(s) => {
                    // An aggregate held in registers is boxed into its slot first.
                    if self.avars.contains_key(&s) {
                        self.spill(&[s]);
                    }
                    self.frame_used = true;
                    self.slot_addr(s)
                }
                Capture::Outer(k) => self.capture_addr(k),
            };
            for w in 0..VALUE_SIZE / 8 {
                let word = self.b.ins().load(types::I64, flags(), from, (w * 8) as i32);
                self.b.ins().store(flags(), word, at, (w * 8) as i32);
            }
        }
        Some(buffer)
    }

    /// Can this function reach every value `captures` names (its own captures among them)?
    pub(super) fn captures_reachable(&self, captures: &[Capture]) -> bool {
        captures
            .iter()
            .all(|c| !matches!(c, Capture::Outer(k) if *k as usize >= self.n_captures))
    }

    /// Make the function value `e` (`MakeFun` or `Closure`) into the value at `out` (which
    /// holds a value, replaced), its captures gathered here; `false` when `e` is another
    /// expression or its captures cannot be reached (the caller falls back).
    pub(super) fn make_closure_into(&mut self, e: &Expr, out: ClValue) -> bool {
        let (fun, type_args, own) = match &e.kind {
            ExprKind::MakeFun { fun, type_args } => (*fun, type_args, None),
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => (*fun, type_args, Some(captures.clone())),
            _ => return false,
        };
        let Some(instance) = self.c.instance(fun, type_args) else {
            return false;
        };
        let captures = own.map_or_else(|| instance.captures.clone(), |c| c.to_vec());
        let Some(buffer) = self.captures_buffer(&captures) else {
            return false;
        };
        let kept = self.keep(instance);
        let target = self.ptr_const(kept);
        self.call_helper(
            Helper::MakeClosure,
            &[types::I64; 3],
            &[],
            &[target, buffer, out],
        );
        true
    }
}
