//! Parallel kernels: `map` of a pure function compiled to a chunk kernel, integer
//! `\sum`, and the integer accumulation loops of `compile/loops.rs` (`s = s + E`, which
//! `fold_left` of integer `+` becomes), split over rayon at fixed chunk boundaries.
//!
//! Results never depend on the thread count: chunks are fixed by position, not by worker, and
//! partial results are combined in position order. Integer sums are exact: each chunk carries
//! its sum and the minimum and maximum of its prefix sums, so the combination knows whether
//! the sequential left fold would overflow inside a chunk, and only that chunk is re-run
//! sequentially to raise the very fault the fold raises (for an accumulation loop, also a
//! block whose terms faulted: the re-run finds which comes first, an overflow or the term's
//! fault, and leaves the variables as the sequential loop leaves them). A failing `map` reports the fault of
//! the lowest position, which is the one sequential evaluation reports first (a pure function
//! has no other effect to order). `\prod` and floating-point sums stay sequential.
//!
//! Below `PARALLEL_THRESHOLD` elements everything runs on the calling thread.
//!
//! Ctrl-C: every block of a sum and every task of a map polls the interrupt flag before it
//! starts, on whichever thread runs it, so a long kernel stops within one block's work (R0012);
//! the interrupted block of the lowest position is the one reported.

use rayon::prelude::*;

use crate::core::ir::ArithOp;
use crate::types::ty::IntTy;

use super::error::{interrupted, poll_interrupt, Fault};
use super::prims::{int_arith, int_from_i128};
use super::value::Value;
use super::vector::{Chunk, ChunkFault, Input, Kernel, KernelFn, CHUNK};
use crate::syntax::span::Span;

/// Arrays with fewer elements than this are processed on the calling thread.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

/// Elements per parallel task (a whole number of kernel chunks).
const TASK: usize = 16 * CHUNK;

/// Elements per partial sum.
const SUM_BLOCK: usize = 1 << 15;

/// The number of worker threads parallel kernels may use.
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}

/// The partial result of summing one block: its exact sum and the extremes of its prefix sums
/// (empty prefix excluded; an empty block has `min_prefix > max_prefix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSum {
    total: i128,
    min_prefix: i128,
    max_prefix: i128,
}

impl BlockSum {
    /// The sum of no values.
    pub const EMPTY: BlockSum = BlockSum {
        total: 0,
        min_prefix: i128::MAX,
        max_prefix: i128::MIN,
    };

    fn is_empty(&self) -> bool {
        self.min_prefix > self.max_prefix
    }

    /// The values of `self`'s block followed by those of `next`'s.
    pub fn then(self, next: BlockSum) -> BlockSum {
        if next.is_empty() {
            return self;
        }
        if self.is_empty() {
            return next;
        }
        BlockSum {
            total: self.total + next.total,
            min_prefix: self.min_prefix.min(self.total + next.min_prefix),
            max_prefix: self.max_prefix.max(self.total + next.max_prefix),
        }
    }

    /// Does the left fold of checked `+` starting from `acc` stay within `ity`'s range at
    /// every step of this block?
    pub fn fits(&self, acc: i128, ity: IntTy) -> bool {
        self.is_empty()
            || (acc + self.min_prefix >= ity.min() && acc + self.max_prefix <= ity.max())
    }

    /// The block of integer values of type `ity` (stored as `Value::Int` leaves).
    pub fn of(values: &[i64], ity: IntTy) -> BlockSum {
        block_sum(values, ity)
    }
}

fn block_sum(values: &[i64], ity: IntTy) -> BlockSum {
    let mut total: i128 = 0;
    let mut min_prefix = i128::MAX;
    let mut max_prefix = i128::MIN;
    if crate::eval::prims::is_unsigned_64(ity) {
        for &x in values {
            total += x as u64 as i128;
            max_prefix = max_prefix.max(total);
            min_prefix = min_prefix.min(total);
        }
    } else if !values.is_empty() {
        // Signed (and narrower unsigned) leaves are their own value; an i64 running sum with
        // i64 extremes suffices unless it would wrap, which `checked_add` detects.
        let mut running: i64 = 0;
        let mut low = i64::MAX;
        let mut high = i64::MIN;
        let mut exact = true;
        for &x in values {
            match running.checked_add(x) {
                Some(r) => running = r,
                None => {
                    exact = false;
                    break;
                }
            }
            low = low.min(running);
            high = high.max(running);
        }
        if exact {
            return BlockSum {
                total: running as i128,
                min_prefix: low as i128,
                max_prefix: high as i128,
            };
        }
        for &x in values {
            total += x as i128;
            max_prefix = max_prefix.max(total);
            min_prefix = min_prefix.min(total);
        }
    }
    BlockSum {
        total,
        min_prefix,
        max_prefix,
    }
}

/// `\sum` of integer leaves of type `ity`: the left fold of checked `+` from zero, with the
/// fault that fold raises (R0003 at the first overflowing prefix). Each block polls Ctrl-C
/// first (R0012).
pub fn sum_int(values: &[i64], ity: IntTy) -> Result<i64, Fault> {
    let block = |block: &[i64]| poll_interrupt().map(|()| block_sum(block, ity));
    let blocks: Vec<BlockSum> = if values.len() >= PARALLEL_THRESHOLD && thread_count() > 1 {
        values
            .par_chunks(SUM_BLOCK)
            .map(block)
            .collect::<Result<_, _>>()?
    } else {
        values
            .chunks(SUM_BLOCK)
            .map(block)
            .collect::<Result<_, _>>()?
    };
    let mut acc: i128 = 0;
    for (index, block) in blocks.iter().enumerate() {
        if !block.fits(acc, ity) {
            // The fold overflows inside this block: replay it to raise the same fault.
            let start = index * SUM_BLOCK;
            let end = (start + SUM_BLOCK).min(values.len());
            let mut running = int_from_i128(acc, ity).unwrap_or(0);
            for &x in &values[start..end] {
                running = int_arith(ArithOp::Add, ity, running, x)?;
            }
        }
        acc += block.total;
    }
    // Every prefix, the last included, is within the type's range here.
    Ok(int_from_i128(acc, ity).unwrap_or(0))
}

/// Should an integer accumulation over `n` elements be split over rayon?
pub fn split_accumulation(n: usize) -> bool {
    n >= PARALLEL_THRESHOLD && thread_count() > 1
}

/// The positions of one block of a parallel fill (`fill_prefix`).
pub const FILL_BLOCK: usize = 1 << 15;

/// The first block of `n` positions (blocks of `FILL_BLOCK`) for which `faults` holds,
/// computed on rayon workers; `None` when no block faults.
pub fn first_faulting_block(
    n: usize,
    faults: impl Fn(usize, usize) -> bool + Sync,
) -> Option<usize> {
    let blocks = n.div_ceil(FILL_BLOCK);
    (0..blocks).into_par_iter().find_first(|&b| {
        let start = b * FILL_BLOCK;
        faults(start, (n - start).min(FILL_BLOCK))
    })
}

/// Fill `dest` a block at a time on rayon workers: `fill(start, block)` writes the block of
/// `dest` that begins at offset `start`.
pub fn fill_blocks<T: Send>(dest: &mut [T], fill: impl Fn(usize, &mut [T]) + Sync) {
    dest.par_chunks_mut(FILL_BLOCK)
        .enumerate()
        .for_each(|(b, block)| fill(b * FILL_BLOCK, block));
}

/// What one block of a split accumulation found (see `accumulate_int`).
pub enum Block {
    /// Every term of the block was computed: the exact sum of its additions, in order.
    Summed(BlockSum),
    /// A term faulted somewhere in the block.
    Faulted,
}

/// A block that the sequential fold would stop in (or might: it is replayed to find out).
pub struct Replay {
    /// The positions of the block.
    pub range: std::ops::Range<usize>,
    /// The exact value of the fold before the block.
    pub acc: i128,
    /// Ctrl-C was found pressed when the block was about to start.
    pub interrupted: bool,
}

/// Blocks computed in parallel before their sums are combined (at least; 4 per thread on
/// larger machines): bounds the memory of the partial results and the work done past a fault.
const WAVE: usize = 64;

/// An integer left fold of checked `+` (of type `ity`) from `init` over the positions
/// `0 .. n`, split into blocks of `SUM_BLOCK` positions that `block` computes on rayon workers
/// (fixed boundaries, a wave of blocks at a time). Each block polls Ctrl-C before it starts.
/// The blocks' sums are combined in position order; a block in which the sequential fold
/// would overflow, or whose terms faulted, or that found Ctrl-C pressed, is handed to
/// `replay` on the calling thread with the exact value of the fold before it: `replay` runs it
/// sequentially (raising the fault the fold raises there) or returns the fold after it. The
/// result is the fold's value, the same on any number of threads.
pub fn accumulate_int<E>(
    n: usize,
    init: i128,
    ity: IntTy,
    block: impl Fn(std::ops::Range<usize>) -> Block + Sync,
    mut replay: impl FnMut(Replay) -> Result<i128, E>,
) -> Result<i128, E> {
    let blocks = n.div_ceil(SUM_BLOCK);
    let range_of = |index: usize| index * SUM_BLOCK..((index + 1) * SUM_BLOCK).min(n);
    let run = |index: usize| -> Option<Block> {
        if crate::interrupt::kernel_poll() {
            return None;
        }
        Some(block(range_of(index)))
    };
    let wave = WAVE.max(4 * thread_count());
    let mut acc = init;
    let mut first = 0;
    while first < blocks {
        let last = (first + wave).min(blocks);
        let wave: Vec<Option<Block>> = (first..last).into_par_iter().map(run).collect();
        for (index, outcome) in (first..last).zip(wave) {
            acc = match outcome {
                Some(Block::Summed(sum)) if sum.fits(acc, ity) => acc + sum.total,
                outcome => replay(Replay {
                    range: range_of(index),
                    acc,
                    interrupted: outcome.is_none(),
                })?,
            };
        }
        first = last;
    }
    Ok(acc)
}

/// Run a kernel over every element of `input` (`n` elements, or a counter `0..n`), writing
/// the results to `out` (length `n`). The fault of the lowest position is returned; a task
/// that finds Ctrl-C pressed before it starts faults with R0012 at `span`.
fn run_chunks<T: Copy + Send>(
    n: usize,
    input: Input<'_>,
    env: &[Value],
    out: &mut [T],
    kernel: &KernelFn<T>,
    span: Span,
) -> Result<(), ChunkFault> {
    let task = |(task_index, task_out): (usize, &mut [T])| -> Result<(), ChunkFault> {
        let task_start = task_index * TASK;
        if crate::interrupt::kernel_poll() {
            return Err((task_start, interrupted(span)));
        }
        for (chunk_index, chunk_out) in task_out.chunks_mut(CHUNK).enumerate() {
            let start = task_start + chunk_index * CHUNK;
            let end = start + chunk_out.len();
            let chunk = Chunk {
                base: start as i64,
                input: match input {
                    Input::Counter => Input::Counter,
                    Input::I64(values) => Input::I64(&values[start..end]),
                    Input::F64(values) => Input::F64(&values[start..end]),
                },
                env,
                lets: &[],
            };
            kernel(&chunk, chunk_out).map_err(|(k, e)| (start + k, e))?;
        }
        Ok(())
    };
    if n >= PARALLEL_THRESHOLD && thread_count() > 1 {
        let faults: Vec<ChunkFault> = out
            .par_chunks_mut(TASK)
            .enumerate()
            .filter_map(|job| task(job).err())
            .collect();
        // `collect` keeps position order, so the first fault is the lowest position.
        match faults.into_iter().next() {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    } else {
        out.chunks_mut(TASK).enumerate().try_for_each(task)
    }
}

/// The output of a map kernel: one buffer of `n` results.
pub enum Mapped {
    I64(Vec<i64>),
    F64(Vec<f64>),
}

/// Apply a compiled pure element function to `n` elements. On a fault, the fault of the
/// lowest position (with that position). Ctrl-C is noticed between tasks of `TASK` elements
/// and reported at `span` (the `map`).
pub fn map_kernel(
    kernel: &Kernel,
    n: usize,
    input: Input<'_>,
    env: &[Value],
    span: Span,
) -> Result<Mapped, ChunkFault> {
    match kernel {
        Kernel::Int(k) => {
            let mut out = super::array::zeroed::<i64>(n);
            run_chunks(n, input, env, &mut out, &**k, span)?;
            Ok(Mapped::I64(out))
        }
        Kernel::Float(k) => {
            let mut out = super::array::zeroed::<f64>(n);
            run_chunks(n, input, env, &mut out, &**k, span)?;
            Ok(Mapped::F64(out))
        }
    }
}

/// The left fold of checked `op` (`\prod`, or `\sum` where it is not `sum_int`) over integer
/// leaves of type `ity` from `init`, polling Ctrl-C every `POLL_INTERVAL` elements.
pub fn fold_int(values: &[i64], op: ArithOp, ity: IntTy, init: i64) -> Result<i64, Fault> {
    let mut acc = init;
    for block in values.chunks(crate::interrupt::POLL_INTERVAL) {
        poll_interrupt()?;
        for &x in block {
            acc = int_arith(op, ity, acc, x)?;
        }
    }
    Ok(acc)
}

/// The left fold of `op` over floating leaves from `init`, each step rounded to `float` when
/// `single` (`\sum`, `\prod` of doubles and floats), polling Ctrl-C every `POLL_INTERVAL`
/// elements.
pub fn fold_float(values: &[f64], op: ArithOp, single: bool, init: f64) -> Result<f64, Fault> {
    let mut acc = init;
    for block in values.chunks(crate::interrupt::POLL_INTERVAL) {
        poll_interrupt()?;
        for &x in block {
            acc = super::prims::round_float(super::prims::float_arith(op, acc, x), single);
        }
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_match_the_sequential_fold() {
        let values: Vec<i64> = (0..200_000).map(|i| (i * 7919) % 1000 - 500).collect();
        let expected: i64 = values.iter().sum();
        assert_eq!(sum_int(&values, IntTy::Long), Ok(expected));
    }

    #[test]
    fn overflow_is_reported_at_the_first_overflowing_prefix() {
        // The prefix sums exceed the long range in the middle, then come back: the sequential
        // fold faults there, so the sum must fault too even though the total fits.
        let mut values = vec![0i64; 100_000];
        values[40_000] = i64::MAX;
        values[70_000] = 1;
        values[90_000] = -10;
        let fault = sum_int(&values, IntTy::Long).expect_err("overflow");
        let sequential = int_arith(ArithOp::Add, IntTy::Long, i64::MAX, 1).expect_err("overflow");
        assert_eq!(fault, sequential);
    }

    #[test]
    fn narrow_types_use_their_own_bounds() {
        let values = vec![i32::MAX as i64, 1, -5];
        assert!(sum_int(&values, IntTy::Int).is_err());
        assert_eq!(sum_int(&[1, 2, 3], IntTy::Int), Ok(6));
    }

    #[test]
    fn block_sums_compose() {
        let values: Vec<i64> = (0..5000).map(|i| (i * 7919) % 2001 - 1000).collect();
        for ity in [IntTy::Long, IntTy::Int, IntTy::ULong] {
            let whole = BlockSum::of(&values, ity);
            for cut in [0, 1, 1024, 4999, 5000] {
                let (left, right) = values.split_at(cut);
                assert_eq!(
                    BlockSum::of(left, ity).then(BlockSum::of(right, ity)),
                    whole
                );
            }
        }
        assert_eq!(BlockSum::EMPTY.then(BlockSum::EMPTY), BlockSum::EMPTY);
        assert!(BlockSum::EMPTY.fits(i64::MAX as i128, IntTy::Long));
    }

    /// The sequential fold of `values[range]` from `acc` (the reference `replay`).
    fn fold_from(values: &[i64], replay: Replay, ity: IntTy) -> Result<i128, Fault> {
        let mut acc = int_from_i128(replay.acc, ity).expect("in range");
        for &x in &values[replay.range] {
            acc = int_arith(ArithOp::Add, ity, acc, x)?;
        }
        Ok(crate::eval::prims::int_value(acc, ity))
    }

    #[test]
    fn split_accumulation_is_the_left_fold() {
        let values: Vec<i64> = (0..300_000).map(|i| (i * 7919) % 1000 - 400).collect();
        let block = |range: std::ops::Range<usize>| {
            Block::Summed(BlockSum::of(&values[range], IntTy::Long))
        };
        let mut replays = 0;
        let total = accumulate_int(values.len(), -77, IntTy::Long, block, |r| {
            replays += 1;
            fold_from(&values, r, IntTy::Long)
        });
        let expected: i64 = values.iter().sum::<i64>() - 77;
        assert_eq!(total, Ok(expected as i128));
        assert_eq!(replays, 0);
    }

    #[test]
    fn split_accumulation_replays_only_the_block_that_overflows() {
        // The fold passes the int range inside block 3 (from the start value) and comes back.
        let mut values = vec![1i64; 200_000];
        values[3 * SUM_BLOCK + 10] = 100;
        values[150_000] = -1000;
        let init = i32::MAX as i128 - (3 * SUM_BLOCK) as i128 - 50;
        let block =
            |range: std::ops::Range<usize>| Block::Summed(BlockSum::of(&values[range], IntTy::Int));
        let mut seen = Vec::new();
        let fault = accumulate_int(values.len(), init, IntTy::Int, block, |r| {
            seen.push((r.range.start, r.acc, r.interrupted));
            fold_from(&values, r, IntTy::Int)
        })
        .expect_err("overflow");
        assert_eq!(
            seen,
            vec![(3 * SUM_BLOCK, init + (3 * SUM_BLOCK) as i128, false)]
        );
        // The sequential fold's fault: the prefix before element 3 * SUM_BLOCK + 10 plus 100.
        let before = (init + (3 * SUM_BLOCK) as i128 + 10) as i64;
        assert_eq!(
            fault,
            int_arith(ArithOp::Add, IntTy::Int, before, 100).expect_err("overflow")
        );
    }

    #[test]
    fn split_accumulation_replays_a_faulted_block_with_the_exact_sum_before_it() {
        let values = vec![2i64; 100_000];
        let block = |range: std::ops::Range<usize>| {
            if range.contains(&70_000) {
                Block::Faulted
            } else {
                Block::Summed(BlockSum::of(&values[range], IntTy::Long))
            }
        };
        let mut seen = Vec::new();
        let total = accumulate_int(values.len(), 5, IntTy::Long, block, |r| {
            seen.push((r.range.clone(), r.acc));
            fold_from(&values, r, IntTy::Long)
        });
        assert_eq!(total, Ok(200_005));
        assert_eq!(
            seen,
            vec![(2 * SUM_BLOCK..3 * SUM_BLOCK, 5 + 4 * SUM_BLOCK as i128)]
        );
    }
}
