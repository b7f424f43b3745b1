//! The library's whole-array kernels on rayon: integer `\sum` and block fills, split at fixed
//! boundaries, and the sequential folds of `\prod` and floating-point sums.
//!
//! Results never depend on the thread count: blocks are fixed by position, not by worker, and
//! partial results are combined in position order. Integer sums are exact: each block carries
//! its sum and the minimum and maximum of its prefix sums, so the combination knows whether
//! the sequential left fold would overflow inside a block, and only that block is re-run
//! sequentially to raise the very fault the fold raises. `\prod` and floating-point sums stay
//! sequential; so do the accumulating loops of native code (`fold_left` of integer `+` is
//! one); its filling loops and maps run on `native/chunks.rs`.
//!
//! Below `PARALLEL_THRESHOLD` elements everything runs on the calling thread.
//!
//! Ctrl-C: every block of a sum polls the interrupt flag before it starts, on whichever thread
//! runs it, so a long kernel stops within one block's work (R0012).

use rayon::prelude::*;

use crate::core::ir::ArithOp;
use crate::types::ty::IntTy;

use super::error::{poll_interrupt, Fault};
use super::prims::{int_arith, int_from_i128};
use super::scalars::Elem;

/// Arrays with fewer elements than this are processed on the calling thread.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

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
    fn is_empty(&self) -> bool {
        self.min_prefix > self.max_prefix
    }

    /// Does the left fold of checked `+` starting from `acc` stay within `ity`'s range at
    /// every step of this block?
    pub fn fits(&self, acc: i128, ity: IntTy) -> bool {
        self.is_empty()
            || (acc + self.min_prefix >= ity.min() && acc + self.max_prefix <= ity.max())
    }
}

fn block_sum<T: Elem>(values: &[T], ity: IntTy) -> BlockSum {
    let mut total: i128 = 0;
    let mut min_prefix = i128::MAX;
    let mut max_prefix = i128::MIN;
    if crate::eval::prims::is_unsigned_64(ity) {
        for &x in values {
            total += x.to_i64() as u64 as i128;
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
            match running.checked_add(x.to_i64()) {
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
            total += x.to_i64() as i128;
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
pub fn sum_int<T: Elem>(values: &[T], ity: IntTy) -> Result<i64, Fault> {
    let block = |block: &[T]| poll_interrupt().map(|()| block_sum(block, ity));
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
                running = int_arith(ArithOp::Add, ity, running, x.to_i64())?;
            }
        }
        acc += block.total;
    }
    // Every prefix, the last included, is within the type's range here.
    Ok(int_from_i128(acc, ity).unwrap_or(0))
}

/// The positions of one block of a parallel fill (`fill_prefix`).
pub const FILL_BLOCK: usize = 1 << 15;

/// Fill `dest` a block at a time on rayon workers: `fill(start, block)` writes the block of
/// `dest` that begins at offset `start`.
pub fn fill_blocks<T: Send>(dest: &mut [T], fill: impl Fn(usize, &mut [T]) + Sync) {
    dest.par_chunks_mut(FILL_BLOCK)
        .enumerate()
        .for_each(|(b, block)| fill(b * FILL_BLOCK, block));
}

/// The left fold of checked `op` (`\prod`, or `\sum` where it is not `sum_int`) over integer
/// leaves of type `ity` from `init`, polling Ctrl-C every `POLL_INTERVAL` elements.
pub fn fold_int<T: Elem>(values: &[T], op: ArithOp, ity: IntTy, init: i64) -> Result<i64, Fault> {
    let mut acc = init;
    for block in values.chunks(crate::interrupt::POLL_INTERVAL) {
        poll_interrupt()?;
        for &x in block {
            acc = int_arith(op, ity, acc, x.to_i64())?;
        }
    }
    Ok(acc)
}

/// The left fold of `op` over floating leaves from `init`, each step rounded to `float` when
/// `single` (`\sum`, `\prod` of doubles and floats), polling Ctrl-C every `POLL_INTERVAL`
/// elements.
pub fn fold_float<T: Elem>(
    values: &[T],
    op: ArithOp,
    single: bool,
    init: f64,
) -> Result<f64, Fault> {
    let mut acc = init;
    for block in values.chunks(crate::interrupt::POLL_INTERVAL) {
        poll_interrupt()?;
        for &x in block {
            acc = super::prims::round_float(super::prims::float_arith(op, acc, x.to_f64()), single);
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
}
