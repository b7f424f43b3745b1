//! The kernels of the distributed operations that move elements between processes: `filter`,
//! the permutations `transpose` and `rev`, and the halo of a stencil loop. Each process works out from its chunk what it
//! sends to which process, one all-to-all exchange (`eval::exchange`) moves the elements as
//! `distributed::wire` encodes them (numbers at their storage width, columns, boxed values),
//! and each process places what it received in its chunk of the result. One process (no MPI) runs the same kernels, and sends everything to itself.

use std::sync::Arc;

use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::{self, Shape};
use super::super::code::ExprCode;
use super::super::distributed::{chunk, wire, world};
use super::super::error::{Fault, DATA_FORMAT};
use super::super::exchange::{
    all_to_all, filter_destinations, gather_counts, halo, halo_from, BlockPermutation,
};
use super::super::scalars::Scalars;
use super::super::value::{ArrayVal, Buffer, Value};
use super::super::Ctrl;
use super::internal;

/// The leaves of an array of numbers (a distributed sort's).
pub(super) fn numbers(view: &ArrayVal, span: Span) -> Result<&Scalars, Ctrl> {
    match &*view.buf {
        Buffer::Scalars(values) => Ok(values),
        _ => Err(not_numbers(span)),
    }
}

fn not_numbers(span: Span) -> Ctrl {
    Fault::new(
        DATA_FORMAT,
        "only arrays of numbers are sorted by their order keys".to_string(),
    )
    .at(span)
}

/// The exchange, its failure a fault at `span`.
pub(super) fn exchange(sends: Vec<Vec<u8>>, span: Span) -> Result<Vec<Vec<u8>>, Ctrl> {
    all_to_all(sends).map_err(|fault| fault.at(span))
}

/// `filter p a` of a distributed array: each process filters its chunk, the counts of all
/// (gathered) give each kept element its position in the result, and the exchange moves the
/// kept elements to the owners of those positions, in order.
pub(super) fn filter(mut codes: Vec<ExprCode>, array_ty: &Type, span: Span) -> ExprCode {
    let Some(input) = Shape::of_array_or_unit(array_ty) else {
        return internal("filter over a value that is not an array", span);
    };
    let result_ty = array_ty.clone();
    let a = codes.pop().expect("two operands");
    let p = codes.pop().expect("two operands");
    Box::new(move |frame| {
        let predicate = p(frame)?;
        let Value::Array(view) = a(frame)? else {
            return Ok(Value::Unit);
        };
        let leaves = input.elem_leaves;
        let n = input.len_of(&view);
        let (rank, size) = world();
        let (lo, hi) = chunk(n, rank, size);
        let mine = view.slice(lo * leaves, (hi - lo) * leaves);
        let kept = super::prim::filter_view(frame, &input, &predicate, &mine, span)?;
        if size == 1 {
            return Ok(Value::Array(kept));
        }
        if leaves == 0 {
            return Ok(Value::Array(kept));
        }
        in_order(&kept, leaves, &result_ty, &frame.rt.limits, span).map(Value::Array)
    })
}

/// An array whose elements (of `leaves` leaves each) are the runs of all processes in rank
/// order, this process's `run`, distributed: the counts of all give each element its
/// position, and one exchange moves the elements to the owners of their positions, in order.
/// The positions other processes own hold zeros (boxed leaves the unit: nothing reads them).
pub(super) fn in_order(
    run: &ArrayVal,
    leaves: usize,
    result_ty: &Type,
    limits: &crate::limits::Limits,
    span: Span,
) -> Result<ArrayVal, Ctrl> {
    let (rank, size) = world();
    let at = |e: usize| run.start + e * leaves;
    let counts = gather_counts(run.len / leaves).map_err(|fault| fault.at(span))?;
    let (m, ranges) = filter_destinations(&counts, rank);
    let mut sends = Vec::with_capacity(ranges.len());
    for r in &ranges {
        // Each message: its number of elements, then their leaves.
        let mut bytes = (r.end - r.start).to_le_bytes().to_vec();
        wire::encode_leaves(&run.buf, at(r.start)..at(r.end), &mut bytes)
            .map_err(|f| f.at(span))?;
        sends.push(bytes);
    }
    let received = exchange(sends, span)?;
    array::check_allocation(m.checked_mul(leaves), result_ty, limits).map_err(|f| f.at(span))?;
    let mut out = wire::blank_like(&run.buf, m * leaves, &Value::Unit);
    let mut next = chunk(m, rank, size).0 * leaves;
    for part in received {
        let count = part
            .get(..8)
            .map(|w| usize::from_le_bytes(w.try_into().expect("eight bytes")))
            .ok_or_else(|| internal_fault(span))?;
        wire::decode_leaves(&mut out, next, count * leaves, &part[8..]).map_err(|f| f.at(span))?;
        next += count * leaves;
    }
    Ok(ArrayVal::new(out))
}

fn internal_fault(span: Span) -> Ctrl {
    Fault::new(
        super::super::error::INTERNAL,
        "a distributed array of an unexpected kind".to_string(),
    )
    .at(span)
}

/// `transpose a` of a distributed matrix: each process sends each block of its chunk (an
/// element, or for an array of arrays an element of a row) to the owner of its position in
/// the transpose; each receiver knows which positions the blocks from each process fill.
pub(super) fn transpose(
    mut codes: Vec<ExprCode>,
    array_ty: &Type,
    result_ty: &Type,
    span: Span,
) -> ExprCode {
    let (Some((rows, columns, block, repr)), Some(input), Some(output)) = (
        super::prim::transpose_geometry(array_ty),
        Shape::of_array_or_unit(array_ty),
        Shape::of_array_or_unit(result_ty),
    ) else {
        return internal(format!("transpose of {array_ty}"), span);
    };
    let a = super::admitting_copy(codes.pop().expect("one operand"), span);
    Box::new(move |frame| {
        let Value::Array(view) = a(frame)? else {
            return Ok(Value::Unit);
        };
        if world().1 == 1 || block == 0 || rows * columns == 0 {
            return Ok(Value::Array(array::transpose(
                &view, rows, columns, block, repr,
            )));
        }
        let permutation = BlockPermutation::transpose(
            rows,
            columns,
            input.elem_leaves / block,
            output.elem_leaves / block,
        );
        permute(&view, &permutation, block, span).map(Value::Array)
    })
}

/// `rev a` of a distributed array (`a` computed by `code`): each process sends each element
/// of its chunk to the owner of its mirror position.
pub(super) fn rev(code: ExprCode, array_ty: &Type, span: Span) -> ExprCode {
    let Some(shape) = Shape::of_array_or_unit(array_ty) else {
        return internal("rev of a value that is not an array", span);
    };
    let a = super::admitting_copy(code, span);
    Box::new(move |frame| {
        let Value::Array(view) = a(frame)? else {
            return Ok(Value::Unit);
        };
        let n = shape.len_of(&view);
        if world().1 == 1 || shape.elem_leaves == 0 || n == 0 {
            return Ok(Value::Array(array::reverse(&view, &shape)));
        }
        let permutation = BlockPermutation::reverse(n);
        permute(&view, &permutation, shape.elem_leaves, span).map(Value::Array)
    })
}

/// A distributed array whose blocks of `block` leaves `permutation` moves, by one exchange:
/// each process sends the blocks of its chunk, at their storage width, to the owners of their
/// targets and places the blocks it receives.
fn permute(
    view: &ArrayVal,
    permutation: &BlockPermutation,
    block: usize,
    span: Span,
) -> Result<ArrayVal, Ctrl> {
    let (rank, size) = world();
    let mut sends = Vec::with_capacity(size);
    for blocks in permutation.sends(rank, size) {
        let mut bytes = Vec::new();
        for u in blocks {
            let at = view.start + u * block;
            wire::encode_leaves(&view.buf, at..at + block, &mut bytes).map_err(|f| f.at(span))?;
        }
        sends.push(bytes);
    }
    let received = exchange(sends, span)?;
    let mut out = wire::blank_like(&view.buf, permutation.blocks * block, &Value::Unit);
    for (part, targets) in received.iter().zip(permutation.receives(rank, size)) {
        let mut read = 0;
        for t in targets {
            read += wire::decode_leaves(&mut out, t * block, block, &part[read..])
                .map_err(|f| f.at(span))?;
        }
    }
    Ok(ArrayVal::new(out))
}

/// The halo of a loop over a distributed array's positions that reads it up to `before`
/// positions before the loop's and `after` after: the array with, on each process, the
/// positions around its chunk that the loop reads filled in from the processes that own
/// them (its own chunk unchanged). One process has everything already.
pub(super) fn with_halo(mut codes: Vec<ExprCode>, array_ty: &Type, span: Span) -> ExprCode {
    let Some(input) = Shape::of_array_or_unit(array_ty) else {
        return internal("a halo of a value that is not an array", span);
    };
    let after = codes.pop().expect("three operands");
    let before = codes.pop().expect("three operands");
    let a = codes.pop().expect("three operands");
    Box::new(move |frame| {
        let value = a(frame)?;
        let before = before(frame)?.as_int_lossy().max(0) as usize;
        let after = after(frame)?.as_int_lossy().max(0) as usize;
        let (rank, size) = world();
        let Value::Array(mut view) = value else {
            return Ok(value);
        };
        if size == 1 {
            return Ok(Value::Array(view));
        }
        let leaves = input.elem_leaves;
        let n = input.len_of(&view);
        let mut sends = Vec::with_capacity(size);
        for to in 0..size {
            let mut bytes = Vec::new();
            for r in halo_from(n, before, after, rank, to, size) {
                let at = |p: usize| view.start + p * leaves;
                wire::encode_leaves(&view.buf, at(r.start)..at(r.end), &mut bytes)
                    .map_err(|f| f.at(span))?;
            }
            sends.push(bytes);
        }
        let received = exchange(sends, span)?;
        if halo(n, before, after, rank, size)
            .iter()
            .all(|r| r.is_empty())
        {
            return Ok(Value::Array(view));
        }
        // Written in place when the array's buffer is its own; otherwise into a copy of its
        // chunk (the positions it does not own are never read).
        let own = view.start == 0
            && view.len == view.buf.len()
            && Arc::strong_count(&view.buf) == 1
            && Arc::weak_count(&view.buf) == 0;
        if !own {
            let (lo, hi) = chunk(n, rank, size);
            let mut copy = wire::blank_like(&view.buf, view.len, &Value::Unit);
            let from = view.start + lo * leaves..view.start + hi * leaves;
            wire::copy_leaves(&view.buf, from, &mut copy, lo * leaves);
            view = ArrayVal::new(copy);
        }
        let Some(out) = Arc::get_mut(&mut view.buf) else {
            return Err(internal_fault(span));
        };
        for (from, part) in received.iter().enumerate() {
            let mut read = 0;
            for r in halo_from(n, before, after, from, rank, size) {
                let count = (r.end - r.start) * leaves;
                read += wire::decode_leaves(out, r.start * leaves, count, &part[read..])
                    .map_err(|f| f.at(span))?;
            }
        }
        Ok(Value::Array(view))
    })
}
