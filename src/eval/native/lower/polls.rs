//! Ctrl-C in native code: a poll of the interrupt flag at function entry and at every loop
//! back-edge, except in counting loops, which poll once per chunk of iterations.
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

use super::super::runtime::Site;
use super::{flags, Lower};
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
}
