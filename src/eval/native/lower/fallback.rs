//! The pieces of a native function that run on the closure compiler: an expression or a
//! statement compiled by `compile::Compiler` and called with the native frame. The register
//! variables a piece mentions are written to their slots before the call and read back after,
//! and so are the globals held in registers for a loop.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, Stmt};

use super::super::runtime::{self, Helper};
use super::{args, Lower, ReturnTarget, V};
use crate::eval::native::Repr;

impl Lower<'_, '_, '_> {
    /// Evaluate the native-typed expression `e` on the closure compiler; `why` goes to the
    /// report.
    pub(super) fn fallback_expr(&mut self, e: &Expr, why: &str) -> V {
        if let Some(agg) = crate::eval::native::Agg::of(&e.ty) {
            return self.agg_fallback(e, &agg, why);
        }
        let repr = Repr::of(&e.ty).unwrap_or(Repr::Unit);
        let out = self.out;
        self.eval_into(e, out, why);
        self.load_value(out, repr)
    }

    /// Evaluate `e` on the closure compiler into the value at `out` (which holds a value,
    /// replaced); `why` goes to the report.
    pub(super) fn eval_into(&mut self, e: &Expr, out: ClValue, why: &str) {
        self.note(why, e.span);
        self.own_for_piece(&[], Some(e));
        let code = self.c.expr(e);
        let code = self.keep(code) as usize;
        let slots = self.mentioned_expr(e);
        let status = self.run_piece(Helper::EvalExpr, code, &slots, Some(out));
        self.branch_unwind_if(status);
        self.reload(&slots);
    }

    /// Call the runtime's `helper` (`eval_expr` or `run_stmt`) on the compiled piece at
    /// `code` with the native frame (`out` the value an expression's result goes to), the
    /// register variables in `slots` written to their slots first: its status.
    fn run_piece(
        &mut self,
        helper: Helper,
        code: usize,
        slots: &[crate::core::ir::Slot],
        out: Option<ClValue>,
    ) -> ClValue {
        self.spill(slots);
        // The piece reads and assigns globals in their slots.
        let promoted = self.promoted_in_slots(None);
        let pushed = self.pushed_now();
        self.commit_pushes(&pushed);
        self.frame_used = true;
        let (rt, frame, n) = (self.rt, self.frame, self.n_slots);
        let code = self.iconst(code as i64);
        let ncaps = self.iconst(self.n_captures as i64);
        let mut values = vec![rt, code, frame, n, self.captures, ncaps];
        values.extend(out);
        let params = vec![types::I64; values.len()];
        let status = self
            .call_helper(helper, &params, &[types::I32], &values)
            .expect("a piece's helper returns a status");
        self.promoted_in_slots(Some(promoted));
        self.refetch_pushes(&pushed);
        status
    }

    /// Run the statement `s` on the closure compiler; `why` goes to the report.
    pub(super) fn fallback_stmt(&mut self, s: &Stmt, why: &str, span: crate::syntax::span::Span) {
        self.note(why, span);
        self.own_for_piece(std::slice::from_ref(s), None);
        let code = self.c.stmt(s);
        let code = self.keep(code) as usize;
        let stmts = std::slice::from_ref(s);
        let slots = self.mentioned_stmts(stmts);
        let status = self.run_piece(Helper::RunStmt, code, &slots, None);
        let done = self.b.create_block();
        let other = self.b.create_block();
        self.b.set_cold_block(other);
        self.b.ins().brif(status, other, &[], done, &[]);
        self.b.seal_block(other);
        self.b.switch_to_block(other);
        // Failed: unwind (the registers are stale, but nothing reads them any more).
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, status, 1);
        self.branch_unwind_if(failed);
        self.reload(&slots);
        // A `return` from inside the piece.
        let is_return = self.b.ins().icmp_imm_s(IntCC::Equal, status, 4);
        let not_return = self.b.create_block();
        let ret = self.b.create_block();
        self.b.ins().brif(is_return, ret, &[], not_return, &[]);
        self.b.seal_block(ret);
        self.b.switch_to_block(ret);
        if let Some(ReturnTarget {
            block,
            agg: Some(desc),
            ..
        }) = self.returns.last().copied()
        {
            let agg = self.agg_at(desc);
            let temp = self.temp_value();
            let rt = self.rt;
            self.call_helper(Helper::ReturnedInto, &[types::I64; 2], &[], &[rt, temp]);
            let v = self.unbox_from(temp, &agg);
            self.drop_value(temp);
            let vals = self.jump_values(v);
            self.b.ins().jump(block, &args(&vals));
        } else if let Some(ReturnTarget {
            block,
            out: Some(out),
            ..
        }) = self.returns.last().copied()
        {
            let rt = self.rt;
            self.call_helper(Helper::ReturnedInto, &[types::I64; 2], &[], &[rt, out]);
            self.b.ins().jump(block, &[]);
        } else if let Some(target) = self.returns.last().copied() {
            let rt = self.rt;
            let code = self.iconst(runtime::repr_code(target.repr) as i64);
            let bits = self
                .call_helper(
                    Helper::ReturnedBits,
                    &[types::I64, types::I64],
                    &[types::I64],
                    &[rt, code],
                )
                .expect("returned_bits returns bits");
            match target.repr {
                Repr::I64 | Repr::Ref => self.b.ins().jump(target.block, &args(&[bits])),
                Repr::F64 => {
                    let f = self.b.ins().bitcast(
                        types::F64,
                        cranelift_codegen::ir::MemFlagsData::new(),
                        bits,
                    );
                    self.b.ins().jump(target.block, &args(&[f]))
                }
                Repr::Unit => self.b.ins().jump(target.block, &[]),
            };
        } else {
            // No return target: a unit run by the evaluator inside a function; the value is
            // the runtime's, and the failure the evaluator finds is the `return`.
            let rt = self.rt;
            self.call_helper(Helper::ReturnOut, &[types::I64], &[], &[rt]);
            let unwind = self.unwind;
            self.b.ins().jump(unwind, &[]);
        }
        self.b.seal_block(not_return);
        self.b.switch_to_block(not_return);
        // `break` (2) or `continue` (3) of an enclosing native loop, by label.
        let label = self.b.ins().uload32(
            cranelift_codegen::ir::MemFlagsData::trusted(),
            self.rt,
            crate::eval::native::layout::label(),
        );
        let is_break = self.b.ins().icmp_imm_s(IntCC::Equal, status, 2);
        let targets: Vec<_> = self
            .loops
            .iter()
            .map(|l| (l.label, l.exit, l.next))
            .collect();
        for (lab, exit, next) in targets.into_iter().rev() {
            let this = self.b.ins().icmp_imm_s(IntCC::Equal, label, lab as i64);
            let go = self.b.create_block();
            let rest = self.b.create_block();
            self.b.ins().brif(this, go, &[], rest, &[]);
            self.b.seal_block(go);
            self.b.switch_to_block(go);
            self.b.ins().brif(is_break, exit, &[], next, &[]);
            self.b.seal_block(rest);
            self.b.switch_to_block(rest);
        }
        // Not a label of this function's loops: cannot happen; unwind as a failure would.
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        self.reload(&slots);
    }

    /// Note a fallback piece for the report. A piece without a reason is the cold path of a
    /// native form, taken only by a value of an unusual representation: not listed.
    pub(super) fn note(&mut self, why: &str, span: crate::syntax::span::Span) {
        if !why.is_empty() {
            self.notes
                .push(format!("{why} (at bytes {}..{})", span.start, span.end));
        }
    }
}
