//! The kernel of `sort a` of a distributed array of numbers: a sample sort
//! (`eval::distributed::sample_sort`). Each process sorts its chunk's order keys with their
//! positions, the gathered samples give the splitters, one exchange sends each process the
//! elements between two splitters (at their storage width), each sorts what it received, and
//! a second exchange leaves process `r` the positions `[r·n/p, (r+1)·n/p)` of the sorted
//! array. The result is the single process's stable sort, bit for bit, on any number of
//! processes; one process runs the plain sort. Elements that are not numbers (tuples,
//! strings) are gathered to every process and sorted there by the plain sort.

use std::ops::Range;
use std::sync::Arc;

use crate::core::ir::Prim;
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::Shape;
use super::super::code::ExprCode;
use super::super::distributed::sample_sort::{buckets, float_key, samples, signed_key, splitters};
use super::super::distributed::{chunk, gather_f64, world};
use super::super::error::{Fault, DATA_FORMAT};
use super::super::prims::is_unsigned_64;
use super::super::scalars::Scalars;
use super::super::value::{ArrayVal, Buffer, Value};
use super::super::Ctrl;
use super::dist::share;
use super::dist_move::{exchange, in_order, numbers};
use super::internal;

/// `sort a` of a distributed `a` (of type `array_ty`), computed by `code`.
pub(super) fn sort(code: ExprCode, array_ty: &Type, span: Span) -> ExprCode {
    let Type::Array(elem, _) = array_ty else {
        return internal("sort of a value that is not an array", span);
    };
    let elem = (**elem).clone();
    let code = Arc::new(code);
    let plain = |operand: ExprCode| {
        super::super::library::sort_code(
            &Prim::Sort,
            vec![operand],
            std::slice::from_ref(array_ty),
            span,
        )
    };
    let whole = plain(share(&code));
    if !matches!(elem, Type::Double | Type::Float | Type::Int(_) | Type::Char) {
        // Elements without order keys (tuples, strings): gathered to every process, which
        // sorts the whole array as one process does.
        let Some(shape) = Shape::of_array_or_unit(array_ty) else {
            return internal("sort of a value that is not an array", span);
        };
        let operand = share(&code);
        return plain(Box::new(move |frame| {
            super::dist::collect(operand(frame)?, &shape, span)
        }));
    }
    let a = super::admitting_copy(share(&code), span);
    let array_ty = array_ty.clone();
    Box::new(move |frame| {
        let (rank, size) = world();
        if size == 1 {
            return whole(frame);
        }
        let Value::Array(view) = a(frame)? else {
            return Ok(Value::Unit);
        };
        let values = numbers(&view, span)?;
        let (kind, width) = (values.kind(), values.kind().bytes());
        let (lo, hi) = chunk(view.len, rank, size);
        let keys = order_keys(values, view.start + lo..view.start + hi, &elem)
            .ok_or_else(|| not_sortable(span))?;
        let mut mine: Vec<(u64, u64)> = keys.into_iter().zip(lo as u64..).collect();
        mine.sort_unstable();
        // The samples of every process, as the bits of two words each.
        let words: Vec<f64> = samples(&mine, size)
            .into_iter()
            .flat_map(|(k, p)| [f64::from_bits(k), f64::from_bits(p)])
            .collect();
        let all = gather_f64(&words)
            .map_err(|f| f.at(span))?
            .iter()
            .flat_map(|w| {
                w.chunks(2)
                    .map(|c| (c[0].to_bits(), c[1].to_bits()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let split = splitters(all, size);
        let sends = buckets(&mine, &split, size)
            .into_iter()
            .map(|r| {
                let mut bytes = Vec::with_capacity(r.len() * width);
                for &(_, p) in &mine[r] {
                    let at = view.start + p as usize;
                    bytes.extend_from_slice(values.bytes(at..at + 1));
                }
                bytes
            })
            .collect();
        drop(mine);
        // The senders in rank order, each's elements in order: sorted by key, stably.
        let received = exchange(sends, span)?.concat();
        let count = received.len() / width;
        let mut run = Scalars::zeros(kind, count);
        run.bytes_mut().copy_from_slice(&received);
        let keys = order_keys(&run, 0..count, &elem).ok_or_else(|| not_sortable(span))?;
        let mut order: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
        order.sort_unstable();
        let mut sorted = Scalars::zeros(kind, count);
        let bytes = sorted.bytes_mut();
        for (k, (_, i)) in order.into_iter().enumerate() {
            bytes[k * width..(k + 1) * width]
                .copy_from_slice(&received[i * width..(i + 1) * width]);
        }
        let sorted = ArrayVal::new(Buffer::Scalars(sorted));
        in_order(&sorted, 1, &array_ty, &frame.rt.limits, span).map(Value::Array)
    })
}

/// The order keys of the leaves `range` of `values`, elements of type `elem` (`None` for an
/// element type other than a number or a `char`).
fn order_keys(values: &Scalars, range: Range<usize>, elem: &Type) -> Option<Vec<u64>> {
    let len = range.end - range.start;
    if matches!(elem, Type::Double | Type::Float) {
        let mut wide = vec![0.0; len];
        values.read_floats(range.start, &mut wide);
        return Some(wide.into_iter().map(float_key).collect());
    }
    let key: fn(i64) -> u64 = match elem {
        Type::Int(ity) if is_unsigned_64(*ity) => |v| v as u64,
        Type::Int(_) => signed_key,
        // `char` is signed.
        Type::Char => |v| signed_key(i64::from(v as u8 as i8)),
        _ => return None,
    };
    let mut wide = vec![0; len];
    values.read_ints(range.start, &mut wide);
    Some(wide.into_iter().map(key).collect())
}

fn not_sortable(span: Span) -> Ctrl {
    Fault::new(
        DATA_FORMAT,
        "a distributed sort of elements other than numbers runs on one process only".to_string(),
    )
    .at(span)
}
