//! The kernels of folds and scans of distributed arrays: `fold_left f init a` (`DistOp::Fold`),
//! and the library's `reduce f a`, `scan_left f init a`, `cumsum a`, `cumprod a`,
//! `fold_right f a init` and `scan_right f a init` (`ChunkedFn`). Each is the tiled fold or
//! scan of `eval::distributed::tiles`, by the user's function (or `+` for `cumsum`, `*` for
//! `cumprod`), on this process's positions, exchanging tile pieces and totals with the others;
//! a right fold or scan is the left one of the mirror image, by `f` with its operands swapped.

use crate::core::ir::{ArithOp, ChunkedFn};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::Shape;
use super::super::closure::apply;
use super::super::code::ExprCode;
use super::super::distributed::owned;
use super::super::distributed::tiles::{self, Chunk};
use super::super::error::{Fault, DATA_FORMAT};
use super::super::prims::{float_arith, int_arith, round_float};
use super::super::value::{ArrayVal, Value};
use super::super::Ctrl;
use super::dist::owned_array;
use super::internal;

/// `fold_left f init a` of a distributed `a` (operands `f`, `init`, `a`): `f init` of the tiled
/// fold of `a` by `f`, or `init` when `a` is empty.
pub(super) fn fold(mut codes: Vec<ExprCode>, arg_tys: &[Type], span: Span) -> ExprCode {
    let Some(shape) = Shape::of_array_or_unit(&arg_tys[2]) else {
        return internal("fold over a value that is not an array", span);
    };
    let a = codes.pop().expect("three operands");
    let init = codes.pop().expect("three operands");
    let f = codes.pop().expect("three operands");
    Box::new(move |frame| {
        let function = f(frame)?;
        let (init, array) = (init(frame)?, a(frame)?);
        let Value::Array(view) = array else {
            return Ok(init);
        };
        let rt = frame.rt;
        let mut f = |x: Value, y: Value| apply(rt, function.clone(), [x, y], span);
        match tiled_fold(&view, &shape, false, &mut f, span)? {
            Some(total) => f(init, total),
            None => Ok(init),
        }
    })
}

/// `fold_right f a init` of a distributed `a` (operands `f`, `a`, `init`): `f` of the tiled
/// right fold of `a` by `f` and `init`, or `init` when `a` is empty.
fn fold_right(mut codes: Vec<ExprCode>, array_ty: &Type, span: Span) -> ExprCode {
    let Some(shape) = Shape::of_array_or_unit(array_ty) else {
        return internal("fold over a value that is not an array", span);
    };
    let init = codes.pop().expect("three operands");
    let a = codes.pop().expect("three operands");
    let f = codes.pop().expect("three operands");
    Box::new(move |frame| {
        let function = f(frame)?;
        let (array, init) = (a(frame)?, init(frame)?);
        let Value::Array(view) = array else {
            return Ok(init);
        };
        let rt = frame.rt;
        let mut f = |x: Value, y: Value| apply(rt, function.clone(), [x, y], span);
        match tiled_fold(&view, &shape, true, &mut f, span)? {
            Some(total) => f(total, init),
            None => Ok(init),
        }
    })
}

/// The chunked kernels of `reduce`, `scan_left`, `cumsum`, `cumprod`, `fold_right` and
/// `scan_right` on their compiled operands (the library call last, run for an empty array by
/// `reduce`, whose answer is the library's).
pub(super) fn library(
    f: ChunkedFn,
    arg_tys: &[Type],
    mut codes: Vec<ExprCode>,
    result_ty: &Type,
    span: Span,
) -> ExprCode {
    let whole = codes.pop().expect("the library call");
    let array_ty = match f {
        ChunkedFn::Reduce | ChunkedFn::FoldRight | ChunkedFn::ScanRight => &arg_tys[1],
        ChunkedFn::ScanLeft => &arg_tys[2],
        _ => &arg_tys[0],
    };
    if f == ChunkedFn::Reduce {
        return reduce(codes, array_ty, whole, span);
    }
    if f == ChunkedFn::FoldRight {
        return fold_right(codes, array_ty, span);
    }
    let right = f == ChunkedFn::ScanRight;
    let (Some(shape), Some(output), Type::Array(elem, _)) = (
        Shape::of_array_or_unit(array_ty),
        Shape::of_array_or_unit(result_ty),
        result_ty,
    ) else {
        return internal("a scan of a value that is not an array", span);
    };
    let (elem, result_ty) = ((**elem).clone(), result_ty.clone());
    let (a, by) = match f {
        ChunkedFn::Cumulative(sum) => match arithmetic(sum, &elem, span) {
            Some((unit, op)) => (codes.pop().expect("one operand"), By::Arithmetic(unit, op)),
            None => return internal("a running sum of an array that is not of numbers", span),
        },
        // `scan_right f a init`
        _ if right => {
            let init = codes.pop().expect("three operands");
            let a = codes.pop().expect("three operands");
            (a, By::Function(codes.pop().expect("three operands"), init))
        }
        // `scan_left f init a`
        _ => {
            let a = codes.pop().expect("three operands");
            let init = codes.pop().expect("three operands");
            (a, By::Function(codes.pop().expect("three operands"), init))
        }
    };
    Box::new(move |frame| {
        let (function, init) = match &by {
            By::Function(f, init) => (Some(f(frame)?), init(frame)?),
            By::Arithmetic(unit, _) => (None, unit.clone()),
        };
        let array = a(frame)?;
        let Value::Array(view) = array else {
            return Ok(array);
        };
        let rt = frame.rt;
        let mut f = |x: Value, y: Value| match (&function, &by) {
            (Some(function), _) if right => apply(rt, function.clone(), [y, x], span),
            (Some(function), _) => apply(rt, function.clone(), [x, y], span),
            (None, By::Arithmetic(_, op)) => op(x, y),
            (None, By::Function(..)) => Err(super::dist::internal_fault(span)),
        };
        let n = shape.len_of(&view);
        let (chunk, values) = owned_values(&view, &shape, right);
        let (folded, mine) = folded_tiles(chunk, &values, true, &mut f, span)?;
        let mut scanned = chunk.scan(init, &folded, mine, &mut f)?;
        if right {
            scanned.reverse();
        }
        let mut scanned = scanned.into_iter();
        owned_array(&elem, &output, &result_ty, n, rt, span, |_| {
            scanned
                .next()
                .ok_or_else(|| super::dist::internal_fault(span))
        })
    })
}

/// What a scan combines by: the function operand (with the `init` operand), or the addition
/// of the element type from its zero (`cumsum`) or its multiplication from one (`cumprod`).
enum By {
    Function(ExprCode, ExprCode),
    Arithmetic(Value, Box<Operation>),
}

/// `reduce f a` (operands `f`, `a`): the tiled fold of `a` by `f`; the library's answer (an
/// error) for an empty `a`.
fn reduce(mut codes: Vec<ExprCode>, array_ty: &Type, whole: ExprCode, span: Span) -> ExprCode {
    let Some(shape) = Shape::of_array_or_unit(array_ty) else {
        return internal("reduce of a value that is not an array", span);
    };
    let a = codes.pop().expect("two operands");
    let f = codes.pop().expect("two operands");
    Box::new(move |frame| {
        let function = f(frame)?;
        let Value::Array(view) = a(frame)? else {
            return whole(frame);
        };
        let rt = frame.rt;
        let mut f = |x: Value, y: Value| apply(rt, function.clone(), [x, y], span);
        match tiled_fold(&view, &shape, false, &mut f, span)? {
            Some(total) => Ok(total),
            None => whole(frame),
        }
    })
}

type Operation = dyn Fn(Value, Value) -> Result<Value, Ctrl> + Send + Sync;

/// The unit and the checked addition (`sum`) or multiplication of a number type (`None` for
/// another type), as the library's `s + x` and `s * x` compute them.
fn arithmetic(sum: bool, elem: &Type, span: Span) -> Option<(Value, Box<Operation>)> {
    let op = if sum { ArithOp::Add } else { ArithOp::Mul };
    let unit = i64::from(!sum);
    match elem {
        Type::Int(ity) => {
            let ity = *ity;
            Some((
                Value::Int(unit),
                Box::new(move |x, y| {
                    int_arith(op, ity, x.as_int_lossy(), y.as_int_lossy())
                        .map(Value::Int)
                        .map_err(|f| f.at(span))
                }),
            ))
        }
        Type::Double | Type::Float => {
            let single = *elem == Type::Float;
            Some((
                Value::Float(unit as f64),
                Box::new(move |x, y| match (x, y) {
                    (Value::Float(x), Value::Float(y)) => {
                        Ok(Value::Float(round_float(float_arith(op, x, y), single)))
                    }
                    _ => Err(super::dist::internal_fault(span)),
                }),
            ))
        }
        _ => None,
    }
}

/// This process's positions of an array, and its elements at them; with `right`, of the
/// array's mirror image (its elements last to first).
fn owned_values(view: &ArrayVal, shape: &Shape, right: bool) -> (Chunk, Vec<Value>) {
    let n = shape.len_of(view);
    let (lo, hi) = owned(n);
    if right {
        let values = (lo..hi).rev().map(|i| shape.element(view, i)).collect();
        return (Chunk::mirrored(n, lo, hi), values);
    }
    let values = (lo..hi).map(|i| shape.element(view, i)).collect();
    (Chunk::new(n, lo, hi), values)
}

/// Steps (1) and (2) of a tiled fold or scan, with their exchanges: every tile's total (and
/// in-tile values at the positions of the processes after the one that folded it), and this
/// process's in-tile values of the tiles it starts.
fn folded_tiles(
    chunk: Chunk,
    values: &[Value],
    scan: bool,
    f: &mut impl FnMut(Value, Value) -> Result<Value, Ctrl>,
    span: Span,
) -> Result<(Vec<tiles::Folded<Value>>, Vec<Value>), Ctrl> {
    let heads = tiles::gather_pieces(chunk.head(values))
        .map_err(|fault| fault.at(span))?
        .ok_or_else(|| one_process(span))?;
    let (folded, mine) = chunk.fold_tiles(values, &heads, scan, f)?;
    let folded = tiles::gather_folded(folded)
        .map_err(|fault| fault.at(span))?
        .ok_or_else(|| one_process(span))?;
    Ok((folded, mine))
}

/// The tiled fold of an array by `f` (`None` when it is empty); with `right`, the right fold
/// (`f x acc`), the left fold of the mirror image by `f` with its operands swapped.
fn tiled_fold(
    view: &ArrayVal,
    shape: &Shape,
    right: bool,
    f: &mut impl FnMut(Value, Value) -> Result<Value, Ctrl>,
    span: Span,
) -> Result<Option<Value>, Ctrl> {
    let (chunk, values) = owned_values(view, shape, right);
    let mut f = |x: Value, y: Value| if right { f(y, x) } else { f(x, y) };
    let f = &mut f;
    let (folded, _) = folded_tiles(chunk, &values, false, f, span)?;
    let totals: Vec<Value> = folded.into_iter().map(|t| t.total).collect();
    tiles::tree(&totals, f)
}

fn one_process(span: Span) -> Ctrl {
    Fault::new(
        DATA_FORMAT,
        "a fold or scan whose values hold functions, pointers or varrays runs on one process \
         only (they cannot be sent to another process)"
            .to_string(),
    )
    .at(span)
}
