//! The chunked kernels of library functions written in Tessera (`ChunkedFn`): `minimum`,
//! `maximum`, `mean`, `dot`, `map2` and `rev_map` of distributed arrays (the folds and scans
//! are in `dist_fold.rs`). Each computes this process's
//! positions and combines across processes; its last operand is the call of the library
//! function itself, run for an empty array (so its own error or value is the answer) and, on
//! one process, for element types the kernel does not chunk.

use std::borrow::Cow;

use crate::core::ir::{ArithOp, ChunkedFn};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::code::ExprCode;
use super::super::distributed::{self as dist, owned};
use super::super::error::{Fault, DATA_FORMAT};
use super::super::prims::int_arith;
use super::super::value::{Buffer, Scalars, Value};
use super::super::Ctrl;
use super::dist::{dist_map, overflow};

/// The kernel of `f` on its compiled operands (the library call last).
pub(super) fn compile(
    f: ChunkedFn,
    arg_tys: &[Type],
    mut codes: Vec<ExprCode>,
    result_ty: &Type,
    span: Span,
) -> ExprCode {
    if matches!(
        f,
        ChunkedFn::Reduce
            | ChunkedFn::ScanLeft
            | ChunkedFn::Cumulative(_)
            | ChunkedFn::FoldRight
            | ChunkedFn::ScanRight
    ) {
        return super::dist_fold::library(f, arg_tys, codes, result_ty, span);
    }
    let whole = codes.pop().expect("the library call");
    if f == ChunkedFn::Map2 {
        return dist_map(codes, &arg_tys[1..3], result_ty, span);
    }
    if f == ChunkedFn::RevMap {
        let mapped = dist_map(codes, &arg_tys[1..2], result_ty, span);
        return super::dist_move::rev(mapped, result_ty, span);
    }
    let b = (f == ChunkedFn::Dot).then(|| codes.pop().expect("two operands"));
    let a = codes.pop().expect("an operand");
    let elem = result_ty.clone();
    Box::new(move |frame| {
        let x = a(frame)?;
        let y = match &b {
            Some(b) => Some(b(frame)?),
            None => None,
        };
        let n = match &x {
            Value::Array(view) => view.len,
            _ => 0,
        };
        // An empty array is the same on every process: the library's answer (or error).
        if n == 0 {
            return whole(frame);
        }
        let done = match f {
            ChunkedFn::Extreme(max) => extreme(max, &elem, &x, span),
            ChunkedFn::Mean => owned_f64(&x).map(|(values, lo)| {
                dist::reduce_float(&values, lo, n, ArithOp::Add, false)
                    .map(|sum| Value::Float(sum / n as f64))
                    .map_err(|f| f.at(span))
            }),
            ChunkedFn::Dot => dot(&elem, &x, y.as_ref().expect("two operands"), span),
            ChunkedFn::Map2
            | ChunkedFn::Reduce
            | ChunkedFn::ScanLeft
            | ChunkedFn::Cumulative(_)
            | ChunkedFn::FoldRight
            | ChunkedFn::ScanRight
            | ChunkedFn::RevMap => {
                unreachable!("compiled above")
            }
        };
        match done {
            Some(result) => result,
            None if dist::world().1 == 1 => whole(frame),
            None => Err(Fault::new(
                DATA_FORMAT,
                "this operation on a distributed array of this element type runs on one \
                 process only"
                    .to_string(),
            )
            .at(span)),
        }
    })
}

/// This process's positions of a floating array (widened to `f64`), with the first one's
/// index.
fn owned_f64(v: &Value) -> Option<(Cow<'_, [f64]>, usize)> {
    let Value::Array(view) = v else { return None };
    let Buffer::Scalars(values) = &*view.buf else {
        return None;
    };
    let (lo, hi) = owned(view.len);
    let (from, to) = (view.start + lo, view.start + hi);
    match values {
        Scalars::F64(v) => Some((Cow::Borrowed(&v[from..to]), lo)),
        narrow if narrow.kind().is_float() => {
            let mut wide = vec![0.0; to - from];
            narrow.read_floats(from, &mut wide);
            Some((Cow::Owned(wide), lo))
        }
        _ => None,
    }
}

/// This process's positions of an integer array (widened to `i64`).
fn owned_i64(v: &Value) -> Option<Cow<'_, [i64]>> {
    let Value::Array(view) = v else { return None };
    let Buffer::Scalars(values) = &*view.buf else {
        return None;
    };
    let (lo, hi) = owned(view.len);
    let (from, to) = (view.start + lo, view.start + hi);
    match values {
        Scalars::I64(v) => Some(Cow::Borrowed(&v[from..to])),
        narrow if !narrow.kind().is_float() => {
            let mut wide = vec![0; to - from];
            narrow.read_ints(from, &mut wide);
            Some(Cow::Owned(wide))
        }
        _ => None,
    }
}

/// `dot a b`: floating products summed by the tile tree, integer products summed exactly
/// (each product checked in the element type, as the library's `x * y` is).
fn dot(elem: &Type, x: &Value, y: &Value, span: Span) -> Option<Result<Value, Ctrl>> {
    let n = match x {
        Value::Array(view) => view.len,
        _ => 0,
    };
    if let (Some((x, lo)), Some((y, _))) = (owned_f64(x), owned_f64(y)) {
        let products: Vec<f64> = x.iter().zip(y.iter()).map(|(p, q)| p * q).collect();
        let sum = dist::reduce_float(&products, lo, n, ArithOp::Add, false);
        return Some(sum.map(Value::Float).map_err(|f| f.at(span)));
    }
    let (Type::Int(ity), Some(x), Some(y)) = (elem, owned_i64(x), owned_i64(y)) else {
        return None;
    };
    let ity = *ity;
    Some((|| {
        let mut partial: Option<i128> = Some(0);
        for (&p, &q) in x.iter().zip(y.iter()) {
            let product = int_arith(ArithOp::Mul, ity, p, q).map_err(|f| f.at(span))?;
            partial = partial.and_then(|s| s.checked_add(product as i128));
        }
        let total = dist::reduce_int(partial, true)
            .map_err(|f| f.at(span))?
            .and_then(|t| i64::try_from(t).ok())
            .ok_or_else(|| overflow(true, span))?;
        int_arith(ArithOp::Add, ity, 0, total)
            .map(Value::Int)
            .map_err(|f| f.at(span))
    })())
}

/// `minimum a` and `maximum a` of scalars: each process folds its positions left to right as
/// the library does (`min (acc, x)` keeps `acc` when `acc < x`), then the processes' results
/// are folded in process order.
fn extreme(max: bool, elem: &Type, x: &Value, span: Span) -> Option<Result<Value, Ctrl>> {
    let floating = matches!(elem, Type::Double | Type::Float);
    if !floating && !matches!(elem, Type::Int(_)) {
        return None;
    }
    let Value::Array(view) = x else { return None };
    if !matches!(&*view.buf, Buffer::Scalars(_)) {
        return None;
    }
    let less = super::super::library::less_than(elem);
    let pick = |acc: Value, x: Value| if less(&acc, &x) == max { x } else { acc };
    let (lo, hi) = owned(view.len);
    let mine = (lo..hi).map(|i| view.leaf(i)).reduce(&pick);
    let word = |v: &Value| match v {
        Value::Float(x) => *x,
        other => f64::from_bits(other.as_int_lossy() as u64),
    };
    let words = match &mine {
        Some(v) => vec![1.0, word(v)],
        None => vec![0.0, 0.0],
    };
    let value = |w: f64| {
        if floating {
            Value::Float(w)
        } else {
            Value::Int(w.to_bits() as i64)
        }
    };
    let all = match dist::gather_f64(&words) {
        Ok(all) => all,
        Err(fault) => return Some(Err(fault.at(span))),
    };
    all.into_iter()
        .filter(|w| w[0] == 1.0)
        .map(|w| value(w[1]))
        .reduce(&pick)
        .map(Ok)
}
