//! Counting loops in native code (`for i in a ..< b`, `..`, `downto`, `for i in ..[T]`, and
//! the loops over an array's elements, `counted_loop`), and Ctrl-C: a poll of the interrupt
//! flag at function entry and at every loop back-edge, except in counting loops, which poll
//! once per chunk of iterations.
//!
//! A counting loop whose variable only its step changes, up to a limit computed once, runs in
//! chunks of at most `POLL_EVERY` iterations: before each chunk, Ctrl-C is polled and the
//! chunk's end computed (the limit, or nearer); the latch tests the stepped variable against
//! that end, as it would against the limit, and only when the chunk is done, against the
//! limit. The body runs exactly as often as without chunks, and an interrupt is seen within a
//! chunk's iterations. A loop known to make no more iterations than a chunk polls once,
//! before the first.

use cranelift_codegen::ir::{
    condcodes::IntCC, types, Block, InstBuilder, StackSlot, StackSlotData, StackSlotKind,
    Value as ClValue,
};

use crate::core::ir::{Expr, ExprKind, Place, RangeKind, Stmt};
use crate::eval::native::Repr;
use crate::types::ty::IntTy;

use super::super::runtime::Site;
use super::{flags, Lower, V};
use crate::syntax::span::Span;

/// The most iterations of a counting loop between two polls of Ctrl-C.
const POLL_EVERY: i64 = 4096;

/// Does a counting loop of `trips` iterations fit in one chunk, so that it may poll Ctrl-C
/// once, before its first iteration?
pub(super) fn within_chunk(trips: u64) -> bool {
    trips <= POLL_EVERY as u64
}

/// A counting loop run in chunks: the block that starts a chunk, and the variable holding its
/// end.
pub(super) struct Chunks {
    head: Block,
    end: StackSlot,
}

impl Lower<'_, '_, '_> {
    /// Poll Ctrl-C (a loop back-edge, a call).
    pub(super) fn poll_interrupt(&mut self, span: Span) {
        let flag = self.ptr_const(crate::interrupt::flag_address());
        let set = self.b.ins().uload8(types::I64, flags(), flag, 0);
        let zero = self.iconst(0);
        self.raise_if(set, Site::Interrupted(span), zero, zero);
    }

    /// The first test of a counting loop polling Ctrl-C at `span` once per chunk: while
    /// `enter` holds, into the first chunk, else to `exit`. A chunk's head polls Ctrl-C,
    /// reads the loop variable (`i`), which has not passed `limit` (in the loop's direction,
    /// `up` or down, signed or not), and sets the chunk's end, at most `POLL_EVERY` past it,
    /// then goes on into `body`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter_chunks(
        &mut self,
        span: Span,
        enter: ClValue,
        exit: Block,
        i: impl FnOnce(&mut Self) -> ClValue,
        limit: ClValue,
        up: bool,
        body: Block,
    ) -> Chunks {
        let chunks = Chunks {
            head: self.b.create_block(),
            end: (self.b).create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                8,
                3,
            )),
        };
        self.b.ins().brif(enter, chunks.head, &[], exit, &[]);
        self.b.switch_to_block(chunks.head);
        self.poll_interrupt(span);
        let i = i(self);
        // The distance to the limit is exact as an unsigned difference, and a step of
        // `POLL_EVERY` short of the limit cannot overflow.
        let (left, step) = match up {
            true => (self.b.ins().isub(limit, i), POLL_EVERY),
            false => (self.b.ins().isub(i, limit), -POLL_EVERY),
        };
        let many = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, left, POLL_EVERY);
        let near = self.b.ins().iadd_imm_s(i, step);
        let end = self.b.ins().select(many, near, limit);
        // Kept in a stack slot: as a value, Cranelift would compute it again at every test.
        let at = self.b.ins().stack_addr(types::I64, chunks.end, 0);
        self.b.ins().store(flags(), end, at, 0);
        self.b.ins().jump(body, &[]);
        chunks
    }

    /// The latch's test of a chunked loop, of the loop variable's value `x` (stepped already
    /// in `a ..< b`; not yet in `a .. b` and `downto`, whose `step` sets the variable to its
    /// next value, or back to `x`, when given `false`): on into `body`
    /// while short of the chunk's end (`short`: the loop's strict comparison), else on into
    /// the next chunk while short of `limit`, else to `exit`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn chunk_latch(
        &mut self,
        chunks: Chunks,
        x: ClValue,
        short: IntCC,
        limit: ClValue,
        body: Block,
        exit: Block,
        mut step: Option<impl FnMut(&mut Self, bool)>,
    ) {
        let at = self.b.ins().stack_addr(types::I64, chunks.end, 0);
        let end = self.b.ins().load(types::I64, flags(), at, 0);
        let more = self.b.ins().icmp(short, x, end);
        let done = self.b.create_block();
        // Stepped on the way into the body (an edge of its own would cost moves there), and
        // set back on the way out.
        if let Some(step) = step.as_mut() {
            step(self, true);
        }
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        let more = self.b.ins().icmp(short, x, limit);
        match step.as_mut() {
            Some(step) => {
                step(self, false);
                let next_chunk = self.b.create_block();
                self.b.ins().brif(more, next_chunk, &[], exit, &[]);
                self.b.seal_block(next_chunk);
                self.b.switch_to_block(next_chunk);
                step(self, true);
                self.b.ins().jump(chunks.head, &[]);
            }
            None => {
                self.b.ins().brif(more, chunks.head, &[], exit, &[]);
            }
        }
        self.b.seal_block(chunks.head);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_range(
        &mut self,
        label: u32,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) {
        let start = self.expr(from);
        self.write_var(var, start);
        // A global variable holds a value from here on, in the loop: its reads check nothing.
        let noted = self.note_defined_in_loop(var);
        // A limit the same at every test is computed once, before the first: its faults
        // are those of the first test, which comes next.
        let invariant = self.invariant_limit(var, to, body);
        let mut limit = invariant.then(|| self.expr(to).int());
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let first_limit = match limit {
            Some(limit) => limit,
            None => self.expr(to).int(),
        };
        let i = self.read_var(var, Repr::I64).int();
        // `size`, `uint64` and `ulong` values are their registers' bits read as unsigned.
        let unsigned = !var_ty.signed() && var_ty.bits() == 64;
        let cc = match (kind, unsigned) {
            (RangeKind::Exclusive, false) => IntCC::SignedLessThan,
            (RangeKind::Inclusive, false) => IntCC::SignedLessThanOrEqual,
            (RangeKind::Downto, false) => IntCC::SignedGreaterThanOrEqual,
            (RangeKind::Exclusive, true) => IntCC::UnsignedLessThan,
            (RangeKind::Inclusive, true) => IntCC::UnsignedLessThanOrEqual,
            (RangeKind::Downto, true) => IntCC::UnsignedGreaterThanOrEqual,
        };
        let enter_cc = cc;
        // In `a ..< b` over a local the body leaves alone, the variable is below `b`, a value
        // of its type. So over a global held in a register for a closed loop (no call in it);
        // any other global or captured variable may be assigned by a call.
        let own = match var {
            Place::Local(_) => true,
            Place::Global(g) => self.promoted.contains_key(&g),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        };
        let assigned_in_body = std::cell::Cell::new(false);
        crate::core::visit::each_in_stmts(body, &mut |_| {}, &mut |p| {
            assigned_in_body.set(assigned_in_body.get() || p == var)
        });
        let assigned_in_body = assigned_in_body.get();
        let assigned = std::cell::Cell::new(!own || assigned_in_body);
        // At most this many iterations, when the limits' values are known and the body
        // leaves the variable alone (64-bit unsigned ones are bit patterns: not counted).
        let trips = match (self.int_range(from), self.int_range(to)) {
            (Some((a_lo, a_hi)), Some((b_lo, b_hi))) if !unsigned && !assigned_in_body => {
                let span = match kind {
                    RangeKind::Downto => a_hi - b_lo,
                    _ => b_hi - a_lo,
                };
                u64::try_from(span.max(0) + 1).ok()
            }
            _ => None,
        };
        let poll = !trips.is_some_and(|n| self.short_loop(n, body));
        // No more iterations than a chunk's: Ctrl-C polled once, before the first.
        let once = poll && trips.is_some_and(within_chunk);
        if once {
            self.poll_interrupt(to.span);
        }
        let poll = poll && !once;
        // A loop whose limit is computed once tests it at its latch and goes on from there
        // into the body: the header's test would repeat it. (Cranelift hoists what the body
        // computes from values it does not change only out of a loop of this shape.)
        let rotated = limit.is_some();
        // Up to a limit computed once, over a variable only the step changes: Ctrl-C polled
        // once per chunk of iterations.
        let chunked = poll && rotated && !assigned.get();
        let enter = self.b.ins().icmp(cc, i, first_limit);
        let up = kind != RangeKind::Downto;
        let mut chunks = match chunked {
            true => {
                let read = |l: &mut Self| l.read_var(var, Repr::I64).int();
                let limit = first_limit;
                Some(self.enter_chunks(to.span, enter, exit, read, limit, up, body_block))
            }
            false => {
                self.b.ins().brif(enter, body_block, &[], exit, &[]);
                None
            }
        };
        if !rotated {
            self.b.seal_block(body_block);
        }
        self.b.switch_to_block(body_block);
        // The values it takes hold in the body when no pointer can reach it either.
        let held = !matches!(var, Place::Local(s) if !self.vars.contains_key(&s));
        let mark = self.ranges_mark();
        if !assigned.get() && held {
            self.learn_loop_variable(var, from, to, kind, body);
        }
        self.loop_body(label, exit, latch, body);
        self.forget_since(mark);
        self.b.switch_to_block(latch);
        if poll && chunks.is_none() {
            self.poll_interrupt(to.span);
        }
        let i = self.read_var(var, Repr::I64).int();
        if kind != RangeKind::Exclusive {
            let limit = match limit.take() {
                Some(limit) => limit,
                None => self.expr(to).int(),
            };
            if let Some(chunks) = chunks.take() {
                // Short of the chunk's end, or of the limit, the step stays in range.
                let short = match (up, unsigned) {
                    (true, false) => IntCC::SignedLessThan,
                    (false, false) => IntCC::SignedGreaterThan,
                    (true, true) => IntCC::UnsignedLessThan,
                    (false, true) => IntCC::UnsignedGreaterThan,
                };
                let step = |l: &mut Self, on: bool| {
                    let next = match on {
                        true => l.b.ins().iadd_imm_s(i, if up { 1 } else { -1 }),
                        false => i,
                    };
                    l.write_var(var, V::I(next));
                };
                self.chunk_latch(chunks, i, short, limit, body_block, exit, Some(step));
                self.b.seal_block(body_block);
                self.b.seal_block(header);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
                return;
            }
            let cc = match (kind == RangeKind::Inclusive, unsigned) {
                (true, false) => IntCC::SignedGreaterThanOrEqual,
                (false, false) => IntCC::SignedLessThanOrEqual,
                (true, true) => IntCC::UnsignedGreaterThanOrEqual,
                (false, true) => IntCC::UnsignedLessThanOrEqual,
            };
            let done = self.b.ins().icmp(cc, i, limit);
            let step = self.b.create_block();
            self.b.ins().brif(done, exit, &[], step, &[]);
            self.b.seal_block(step);
            self.b.switch_to_block(step);
        }
        let (edge, delta) = match (up, unsigned) {
            (true, false) => (var_ty.max().min(i64::MAX as i128) as i64, 1),
            (false, false) => (var_ty.min().max(i64::MIN as i128) as i64, -1),
            // The largest unsigned value's bits, and 0.
            (true, true) => (-1, 1),
            (false, true) => (0, -1),
        };
        let cc = match (up, unsigned) {
            (true, false) => IntCC::SignedGreaterThanOrEqual,
            (false, false) => IntCC::SignedLessThanOrEqual,
            (true, true) => IntCC::UnsignedGreaterThanOrEqual,
            (false, true) => IntCC::UnsignedLessThanOrEqual,
        };
        // Over a variable the body leaves alone (`own`, above), the step of `a ..< b` cannot
        // pass the type's largest value: the variable is below `b`.
        // After the latch's test of an inclusive range (`upto`, `..`, `downto`), the
        // variable is short of the limit, a value of its type: the step stays in range.
        if kind == RangeKind::Exclusive && assigned.get() {
            let bad = self.b.ins().icmp_imm_s(cc, i, edge);
            let zero = self.iconst(0);
            self.raise_if(bad, Site::Step(var_ty, up, to.span), i, zero);
        }
        let next = self.b.ins().iadd_imm_s(i, delta);
        self.write_var(var, V::I(next));
        if rotated {
            match (kind, limit) {
                (RangeKind::Exclusive, Some(limit)) if chunks.is_some() => {
                    let chunks = chunks.expect("chunked");
                    self.chunk_latch(
                        chunks,
                        next,
                        enter_cc,
                        limit,
                        body_block,
                        exit,
                        None::<fn(&mut Self, bool)>,
                    );
                }
                // `a ..< b` tests the stepped value, as the header would.
                (RangeKind::Exclusive, Some(limit)) => {
                    let more = self.b.ins().icmp(enter_cc, next, limit);
                    self.b.ins().brif(more, body_block, &[], exit, &[]);
                }
                _ => {
                    self.b.ins().jump(body_block, &[]);
                }
            }
            self.b.seal_block(body_block);
        } else {
            self.b.ins().jump(header, &[]);
        }
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        self.forget_defined_after_loop(noted);
    }

    /// Is the limit `to` of the counting loop over `var` with body `body` the same value at
    /// every test? It is when it is computed by pure operations from constants, from
    /// variables held in registers (locals, and globals held there for the closed loop)
    /// that neither the body nor the loop assigns, and from the lengths of varrays and
    /// strings whose views are kept for the loop (which nothing in it can change).
    fn invariant_limit(&self, var: Place, to: &Expr, body: &[Stmt]) -> bool {
        let mut assigned = super::hoist::assigned_places(body);
        assigned.insert(var);
        if !self.pure(to) {
            return false;
        }
        let fixed = std::cell::Cell::new(true);
        crate::core::visit::each_in_expr(
            to,
            &mut |x| {
                let held =
                    |place: Place| !assigned.contains(&place) && self.views.contains_key(&place);
                let ok = match x.kind {
                    ExprKind::Local(s) => {
                        held(Place::Local(s))
                            || !assigned.contains(&Place::Local(s))
                                && (self.vars.contains_key(&s) || self.avars.contains_key(&s))
                    }
                    ExprKind::Global(g) => {
                        held(Place::Global(g))
                            || !assigned.contains(&Place::Global(g))
                                && self.promoted.contains_key(&g)
                            || self.c.global_constant(g).is_some()
                    }
                    // Storage the loop may store into.
                    ExprKind::Take(_) | ExprKind::Index { .. } | ExprKind::Deref(_) => false,
                    _ => true,
                };
                fixed.set(fixed.get() && ok);
            },
            &mut |_| {},
        );
        fixed.get()
    }

    /// Does a counting loop of at most `n` iterations of `body` end soon enough to leave
    /// Ctrl-C to the next poll after it (of the loop around it, a call, the next loop): a
    /// few thousand iterations of a closed body with no loop in it (no call either), a few
    /// microseconds?
    fn short_loop(&self, n: u64, body: &[Stmt]) -> bool {
        struct Loops(bool);
        impl<'ir> crate::core::visit::Visit<'ir> for Loops {
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                match s {
                    Stmt::While { .. }
                    | Stmt::Loop { .. }
                    | Stmt::ForRange { .. }
                    | Stmt::ForCodes { .. }
                    | Stmt::ForArray { .. } => self.0 = true,
                    _ => crate::core::visit::walk_stmt(self, s),
                }
            }
        }
        let mut loops = Loops(false);
        for s in body {
            crate::core::visit::Visit::visit_stmt(&mut loops, s);
        }
        n <= 4096
            && !loops.0
            && body
                .iter()
                .all(|s| self.closed_stmt(s, &mut std::collections::HashMap::new()))
    }

    pub(super) fn for_codes(&mut self, label: u32, var: Place, n: u64, body: &[Stmt]) {
        let limit = self.iconst(n as i64);
        let span = crate::syntax::span::Span::default();
        let poll = (!self.short_loop(n, body)).then_some(span);
        // No more iterations than a chunk's: Ctrl-C polled once, before the first.
        let poll = match poll {
            Some(span) if within_chunk(n) => {
                self.poll_interrupt(span);
                None
            }
            poll => poll,
        };
        self.counted_loop(label, limit, poll, body, Some(var), |l, code| {
            l.write_var(var, V::I(code));
        });
    }

    /// Note that the global `var` (when it is one) holds a value, in the code lowered from
    /// now on: a loop's variable, once the loop gave it one. The global, when it was not
    /// noted already, for `forget_defined_after_loop`.
    pub(super) fn note_defined_in_loop(&mut self, var: Place) -> Option<u32> {
        match var {
            Place::Global(g) => self.c.note_defined(g).then_some(g),
            _ => None,
        }
    }

    /// Forget what `note_defined_in_loop` noted: after the loop, which may have run no time.
    pub(super) fn forget_defined_after_loop(&mut self, noted: Option<u32>) {
        if let Some(g) = noted {
            self.c.forget_defined(g);
        }
    }

    /// A loop whose own counter runs from 0 while below `limit` (unsigned): each iteration
    /// runs `enter` with the counter, then `body`; Ctrl-C is polled (at `poll`, when given)
    /// once per chunk of iterations.
    pub(super) fn counted_loop(
        &mut self,
        label: u32,
        limit: ClValue,
        poll: Option<crate::syntax::span::Span>,
        body: &[Stmt],
        var: Option<Place>,
        enter: impl FnOnce(&mut Self, ClValue),
    ) {
        let counter = self.b.declare_var(types::I64);
        let zero = self.iconst(0);
        self.b.def_var(counter, zero);
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let i = self.b.use_var(counter);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, limit);
        let chunks = match poll {
            Some(span) => {
                let read = |l: &mut Self| l.b.use_var(counter);
                Some(self.enter_chunks(span, more, exit, read, limit, true, body_block))
            }
            None => {
                self.b.ins().brif(more, body_block, &[], exit, &[]);
                None
            }
        };
        self.b.switch_to_block(body_block);
        let i = self.b.use_var(counter);
        enter(self, i);
        // `enter` gave the loop's variable its value: a global one's reads in the body check
        // nothing.
        let noted = var.and_then(|var| self.note_defined_in_loop(var));
        self.loop_body(label, exit, latch, body);
        self.forget_defined_after_loop(noted);
        self.b.switch_to_block(latch);
        let i = self.b.use_var(counter);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(counter, next);
        // The latch tests the count and goes on into the body (the shape of loop Cranelift
        // hoists invariant values out of), as `for_range` does.
        let less = IntCC::UnsignedLessThan;
        match chunks {
            Some(chunks) => {
                let no_step = None::<fn(&mut Self, bool)>;
                self.chunk_latch(chunks, next, less, limit, body_block, exit, no_step)
            }
            None => {
                let more = self.b.ins().icmp(less, next, limit);
                self.b.ins().brif(more, body_block, &[], exit, &[]);
            }
        }
        self.b.seal_block(body_block);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
    }
}
