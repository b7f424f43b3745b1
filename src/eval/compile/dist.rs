//! The kernels of distributed arrays (`Prim::Dist`, `Prim::Collect`): each computes this
//! process's chunk of the linear index and combines across processes (`eval::distributed`).

use std::sync::Arc;

use crate::core::ir::{ArithOp, DistOp, Expr, Prim};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::{self, LeafBuilder, Shape};
use super::super::closure::{apply, apply_one};
use super::super::code::ExprCode;
use super::super::data::{chunk, text, Layout};
use super::super::distributed::{self as dist, owned};
use super::super::error::{Fault, OVERFLOW};
use super::super::prims::int_arith;
use super::super::scalars::{each, Elem, Scalars};
use super::super::value::{ArrayVal, Buffer, LeafRepr, Value};
use super::super::Ctrl;
use super::{internal, Compiler};

impl Compiler<'_> {
    /// A distributed kernel with its operands' types and its result type.
    pub(super) fn distributed(
        &mut self,
        prim: &Prim,
        args: &[Expr],
        mut codes: Vec<ExprCode>,
        result_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let arg_tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        let kernel: ExprCode = match prim {
            Prim::Dist(DistOp::Map) => dist_map(codes, &arg_tys[1..], result_ty, span),
            Prim::Dist(DistOp::Owned(end)) => {
                let end = *end;
                let n = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let n = n(frame)?.as_int_lossy().max(0) as usize;
                    let (lo, hi) = owned(n);
                    Ok(Value::Int(if end { hi } else { lo } as i64))
                })
            }
            Prim::Dist(DistOp::Agree) => Box::new(move |_| {
                dist::agree().map_err(|f| f.at(span))?;
                Ok(Value::Unit)
            }),
            Prim::Dist(DistOp::Fold) => super::dist_fold::fold(codes, &arg_tys, span),
            Prim::Dist(DistOp::Filter) => super::dist_move::filter(codes, &arg_tys[1], span),
            Prim::Dist(DistOp::Transpose) => {
                super::dist_move::transpose(codes, &arg_tys[0], result_ty, span)
            }
            Prim::Dist(DistOp::Rev) => {
                super::dist_move::rev(codes.pop().expect("one operand"), &arg_tys[0], span)
            }
            Prim::Dist(DistOp::Sort) => {
                super::dist_sort::sort(codes.pop().expect("one operand"), &arg_tys[0], span)
            }
            Prim::Dist(DistOp::Halo) => super::dist_move::with_halo(codes, &arg_tys[0], span),
            Prim::Dist(DistOp::Library(f)) => {
                super::dist_library::compile(*f, &arg_tys, codes, result_ty, span)
            }
            Prim::Dist(DistOp::Reduce(sum)) => {
                let a: Arc<ExprCode> = Arc::new(codes.pop().expect("one operand"));
                let whole = super::prim::reduce_code(*sum, result_ty, share(&a), span);
                let gathered = match Shape::of_array_or_unit(&arg_tys[0]) {
                    Some(shape) => {
                        let operand = share(&a);
                        let collected: ExprCode =
                            Box::new(move |frame| collect(operand(frame)?, &shape, span));
                        super::prim::reduce_code(*sum, result_ty, collected, span)
                    }
                    None => return internal("a reduction of a value that is not an array", span),
                };
                reduce(*sum, result_ty, share(&a), whole, gathered, span)
            }
            Prim::Collect => {
                let Some(shape) = Shape::of_array_or_unit(result_ty) else {
                    return internal("collect of a value that is not an array", span);
                };
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| collect(a(frame)?, &shape, span))
            }
            Prim::Dist(DistOp::LoadNpy) => {
                let layout = match Layout::of(result_ty) {
                    Ok(layout) => layout,
                    Err(message) => return refused(message, span),
                };
                let path = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let path = text(&path(frame)?);
                    chunk::load_owned(&path, &layout, &frame.rt.limits, |n| {
                        let (lo, hi) = owned(n);
                        lo..hi
                    })
                    .map_err(|f| f.at(span))
                })
            }
            Prim::Dist(DistOp::SaveNpy) => {
                let layout = match Layout::of(&arg_tys[1]) {
                    Ok(layout) => layout,
                    Err(message) => return refused(message, span),
                };
                let a = codes.pop().expect("two operands");
                let path = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let path = text(&path(frame)?);
                    let array = a(frame)?;
                    let n = match &array {
                        Value::Array(view) => view.len,
                        _ => 0,
                    };
                    let (lo, hi) = owned(n);
                    chunk::save_owned(&path, &layout, &array, dist::prints(), lo..hi, &|| {
                        dist::barrier()
                    })
                    .map_err(|f| f.at(span))?;
                    // The file is whole before any process goes on (and may read it).
                    dist::barrier().map_err(|f| f.at(span))?;
                    Ok(Value::Unit)
                })
            }
            _ => internal(format!("{prim:?} is not a distributed kernel"), span),
        };
        if matches!(prim, Prim::Dist(DistOp::Owned(_) | DistOp::Agree)) {
            return kernel;
        }
        // A kernel ends with an agreement: a process that failed on its chunk stops at
        // once, and the others stop here, before any goes on past the failure.
        Box::new(move |frame| {
            let value = kernel(frame)?;
            dist::agree().map_err(|f| f.at(span))?;
            Ok(value)
        })
    }
}

/// The code that fails with `message` (a type no file holds).
fn refused(message: String, span: Span) -> ExprCode {
    Box::new(move |_| Err(Fault::new(super::super::error::DATA_FORMAT, message.clone()).at(span)))
}

/// A code that runs a shared one (so two kernels can evaluate the same operand code).
pub(super) fn share(code: &Arc<ExprCode>) -> ExprCode {
    let code = code.clone();
    Box::new(move |frame| code(frame))
}

/// `map f a` (one array) and `map2 f a b` (two, indexed alike) on the owned positions; the
/// others are the result type's zeros. `codes` are the function's then the arrays'.
pub(super) fn dist_map(
    mut codes: Vec<ExprCode>,
    array_tys: &[Type],
    result_ty: &Type,
    span: Span,
) -> ExprCode {
    let inputs: Option<Vec<Shape>> = array_tys.iter().map(Shape::of_array_or_unit).collect();
    let (Some(inputs), Some(output), Type::Array(elem, _)) =
        (inputs, Shape::of_array_or_unit(result_ty), result_ty)
    else {
        return internal("map over a value that is not an array", span);
    };
    let (elem, result_ty) = ((**elem).clone(), result_ty.clone());
    let arrays = codes.split_off(1);
    let f = codes.pop().expect("the function operand");
    Box::new(move |frame| {
        let function = f(frame)?;
        let mut views = Vec::with_capacity(arrays.len());
        for a in &arrays {
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            views.push(view);
        }
        let n = inputs[0].len_of(&views[0]);
        let rt = frame.rt;
        owned_array(&elem, &output, &result_ty, n, rt, span, |i| {
            let args = inputs.iter().zip(&views).map(|(s, v)| s.element(v, i));
            if views.len() == 1 {
                let arg = args.into_iter().next().expect("one array");
                apply_one(rt, &function, arg, span)
            } else {
                apply(rt, function.clone(), args, span)
            }
        })
    })
}

/// A distributed array of `n` elements of type `elem` (of type `result_ty`, shaped `output`):
/// `at(i)` at each position `i` this process owns, in order, and the element type's zero at
/// the others.
pub(super) fn owned_array(
    elem: &Type,
    output: &Shape,
    result_ty: &Type,
    n: usize,
    rt: &super::super::Runtime<'_>,
    span: Span,
    mut at: impl FnMut(usize) -> Result<Value, Ctrl>,
) -> Result<Value, Ctrl> {
    let (lo, hi) = owned(n);
    // Scalar results: a zeroed buffer (its pages untouched outside the chunk cost no
    // memory) with the chunk written in.
    if let (Type::Int(_) | Type::Double | Type::Float, LeafRepr::Scalar(kind)) = (elem, output.repr)
    {
        let mut out = Scalars::zeros(kind, n);
        for i in lo..hi {
            match at(i)? {
                leaf @ (Value::Int(_) | Value::Float(_)) => out.set(i, &leaf),
                _ => return Err(internal_fault(span)),
            }
        }
        return Ok(Value::Array(ArrayVal::new(Buffer::Scalars(out))));
    }
    let zero = array::zero_value(elem, &rt.limits).map_err(|f| f.at(span))?;
    let mut out = LeafBuilder::new(output.repr);
    out.reserve(n.saturating_mul(output.elem_leaves), result_ty, &rt.limits)
        .map_err(|f| f.at(span))?;
    for i in 0..n {
        if (lo..hi).contains(&i) {
            out.push_element(at(i)?);
        } else {
            out.push_element(zero.clone());
        }
    }
    Ok(Value::Array(out.finish()))
}

/// `\sum` and `\prod` of a distributed array: floating values by the tile tree, integers
/// exactly; any other element type (`natural`) by `whole` on one process, by `gathered` (the
/// whole array gathered first) on several.
fn reduce(
    sum: bool,
    elem: &Type,
    a: ExprCode,
    whole: ExprCode,
    gathered: ExprCode,
    span: Span,
) -> ExprCode {
    let op = if sum { ArithOp::Add } else { ArithOp::Mul };
    let single = *elem == Type::Float;
    let ity = match elem {
        Type::Int(ity) => Some(*ity),
        _ => None,
    };
    let floating = matches!(elem, Type::Double | Type::Float);
    if ity.is_none() && !floating {
        // Naturals: the whole array gathered to every process, reduced as on one process.
        return Box::new(move |frame| {
            if dist::world().1 > 1 {
                return gathered(frame);
            }
            whole(frame)
        });
    }
    Box::new(move |frame| {
        let Value::Array(view) = a(frame)? else {
            return Ok(if floating {
                Value::Float(if sum { 0.0 } else { 1.0 })
            } else {
                Value::Int(if sum { 0 } else { 1 })
            });
        };
        let n = view.len;
        let (lo, hi) = owned(n);
        let range = view.start + lo..view.start + hi;
        match (&*view.buf, ity) {
            (Buffer::Scalars(values), None) if values.kind().is_float() => {
                let wide: std::borrow::Cow<'_, [f64]> = match values {
                    Scalars::F64(v) => std::borrow::Cow::Borrowed(&v[range]),
                    narrow => {
                        let mut wide = vec![0.0; range.len()];
                        narrow.read_floats(range.start, &mut wide);
                        std::borrow::Cow::Owned(wide)
                    }
                };
                dist::reduce_float(&wide, lo, n, op, single)
                    .map(Value::Float)
                    .map_err(|f| f.at(span))
            }
            (Buffer::Scalars(values), Some(ity)) => {
                let partial = each!(values, v => int_partial(&v[range], sum));
                let total = dist::reduce_int(partial, sum)
                    .map_err(|f| f.at(span))?
                    .and_then(|t| i64::try_from(t).ok())
                    .ok_or_else(|| overflow(sum, span))?;
                // Narrower integer types keep their own bounds.
                int_arith(ArithOp::Add, ity, 0, total)
                    .map(Value::Int)
                    .map_err(|f| f.at(span))
            }
            _ => whole(frame),
        }
    })
}

/// This process's exact integer `\sum` (or `\prod`) of its leaves; `None` when it
/// overflows 128 bits (a product with a zero is zero).
fn int_partial<T: Elem>(values: &[T], sum: bool) -> Option<i128> {
    if !sum && values.iter().any(|x| x.to_i64() == 0) {
        return Some(0);
    }
    values
        .iter()
        .try_fold(if sum { 0i128 } else { 1 }, |acc, &x| {
            if sum {
                acc.checked_add(x.to_i64() as i128)
            } else {
                acc.checked_mul(x.to_i64() as i128)
            }
        })
}

pub(super) fn internal_fault(span: Span) -> Ctrl {
    Fault::new(
        super::super::error::INTERNAL,
        "a mapped function gave a value of an unexpected kind".to_string(),
    )
    .at(span)
}

pub(super) fn overflow(sum: bool, span: Span) -> Ctrl {
    let what = if sum { "sum" } else { "product" };
    Fault::new(
        OVERFLOW,
        format!("the {what} of a distributed array overflows"),
    )
    .at(span)
}

/// The whole array on every process, from each process's chunk.
pub(super) fn collect(value: Value, shape: &Shape, span: Span) -> Result<Value, Ctrl> {
    let Value::Array(mut view) = value else {
        return Ok(value);
    };
    if dist::world().1 == 1 {
        return Ok(Value::Array(view));
    }
    dist::collect(array::make_unique(&mut view), shape.elem_leaves).map_err(|f| f.at(span))?;
    Ok(Value::Array(view))
}
