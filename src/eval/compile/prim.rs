//! Primitives: the kernel of each `Prim` chosen from its operand types (arithmetic,
//! comparisons, strings, printing, conversions, arrays); the library functions' kernels are
//! in `library.rs`.

use std::sync::Arc;

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::core::ir::{ArithOp, CmpOp, Expr, Prim};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::{self, Shape};
use super::super::closure::{apply, apply_one, ScalarCall};
use super::super::code::ExprCode;
use super::super::compact::{code_big, code_u64, CodeRepr, SumLayout};
use super::super::error::{interrupted, Fault, OVERFLOW};
use super::super::format as show;
use super::super::prims::{
    self, float_arith, float_holds, holds, int_arith, int_value, is_unsigned_64, round_float,
};
use super::super::scalars::{self, each, Elem, Scalars};
use super::super::value::{leaf_repr, leaf_type, Buffer, Value};
use super::super::{Ctrl, Frame};
use super::{inlined, int_ty_of, internal, Compiler};

impl Compiler<'_> {
    pub(super) fn prim(
        &mut self,
        prim: &Prim,
        args: &[Expr],
        result_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let arg_tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        // A loader with its dimensions: the loader's own operands are compiled here.
        if let (Prim::Shaped, [loaded]) = (prim, args) {
            if let crate::core::ir::ExprKind::Prim(loader, operands) = &loaded.kind {
                let codes = self.exprs(operands);
                return super::super::data::compile_shaped(loader, codes, &loaded.ty, span);
            }
        }
        // The length of an array in a variable is its type's, as on native code: the variable
        // is not read (its initialiser need not have run).
        if let (Prim::Len, [array]) = (prim, args) {
            if let (
                Some(n),
                crate::core::ir::ExprKind::Local(_) | crate::core::ir::ExprKind::Global(_),
            ) = (
                Shape::of(&array.ty).and_then(|shape| shape.n_elements),
                &array.kind,
            ) {
                let n = Value::Int(n as i64);
                return Box::new(move |_| Ok(n.clone()));
            }
        }
        // A chain of concatenations: its operands in order, then one string of their total
        // size.
        if let Prim::StrConcat = prim {
            let parts: Vec<Expr> = args
                .iter()
                .flat_map(|a| prims::string_parts(a))
                .cloned()
                .collect();
            let codes = self.exprs(&parts);
            return Box::new(move |frame| {
                let mut values = smallvec::SmallVec::<[Value; 4]>::new();
                for code in &codes {
                    values.push(code(frame)?);
                }
                let texts: smallvec::SmallVec<[&[u8]; 4]> =
                    values.iter().map(prims::str_bytes).collect();
                prims::str_concat_all(&texts, &frame.rt.limits).map_err(|f| f.at(span))
            });
        }
        let mut codes = self.exprs(args);
        if crate::core::prims::operand_count(prim).is_some_and(|n| n != codes.len()) {
            return internal(
                format!("{prim:?} applied to {} arguments", codes.len()),
                span,
            );
        }
        match prim {
            Prim::IntArith(op, ity) => {
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                int_arith_code(*op, *ity, a, b, span)
            }
            Prim::FloatArith(op, single) => {
                let (op, single) = (*op, *single);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let x = a(frame)?.as_float_lossy();
                    let y = b(frame)?.as_float_lossy();
                    Ok(Value::Float(round_float(float_arith(op, x, y), single)))
                })
            }
            Prim::NatArith(op) => {
                let op = *op;
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let x = code_big(&a(frame)?);
                    let y = code_big(&b(frame)?);
                    prims::nat_arith(op, &x, &y, &frame.rt.limits)
                        .map(|r| Value::Big(Arc::new(r)))
                        .map_err(|f| f.at(span))
                })
            }
            Prim::IntNeg(ity) => {
                let ity = *ity;
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    prims::int_neg(ity, a(frame)?.as_int_lossy())
                        .map(Value::Int)
                        .map_err(|f| f.at(span))
                })
            }
            Prim::FloatNeg => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(Value::Float(-a(frame)?.as_float_lossy())))
            }
            Prim::Compare(op) => {
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                compare_code(*op, &arg_tys[0], a, b)
            }
            Prim::Not => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(Value::bool(!a(frame)?.truthy())))
            }
            Prim::StrConcat => unreachable!("a concatenation is compiled above"),
            Prim::StrRepeat => {
                let ity = int_ty_of(&arg_tys[1]);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let s = a(frame)?;
                    let n = int_value(b(frame)?.as_int_lossy(), ity);
                    let Value::Str(s) = s else {
                        return Ok(Value::str(b""));
                    };
                    prims::str_repeat(&s, n, &frame.rt.limits).map_err(|f| f.at(span))
                })
            }
            Prim::StrIndex => {
                let ity = int_ty_of(&arg_tys[1]);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let s = a(frame)?;
                    let i = int_value(b(frame)?.as_int_lossy(), ity);
                    let Value::Str(s) = s else {
                        return Ok(Value::Int(0));
                    };
                    prims::str_index(&s, i).map_err(|f| f.at(span))
                })
            }
            Prim::StrSlice { from, to } => {
                let (has_from, has_to) = (*from, *to);
                let bound_tys: Vec<IntTy> = arg_tys[1..].iter().map(int_ty_of).collect();
                Box::new(move |frame| {
                    let Value::Str(s) = codes[0](frame)? else {
                        return Ok(Value::str(b""));
                    };
                    let mut next = 1;
                    let mut bound =
                        |present: bool, frame: &mut Frame<'_, '_>| -> Result<Option<i128>, Ctrl> {
                            if !present {
                                return Ok(None);
                            }
                            let value = codes[next](frame)?;
                            let ity = bound_tys[next - 1];
                            next += 1;
                            Ok(Some(int_value(value.as_int_lossy(), ity)))
                        };
                    let from = bound(has_from, frame)?;
                    let to = bound(has_to, frame)?;
                    Ok(prims::str_slice(&s, from, to))
                })
            }
            Prim::StrLen => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Str(s) => Ok(Value::Int(s.len() as i64)),
                    _ => Ok(Value::Int(0)),
                })
            }
            Prim::ToUpper => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Str(s) => Ok(Value::Str(s.to_ascii_uppercase().into())),
                    other => Ok(other),
                })
            }
            Prim::Str | Prim::Repr | Prim::Strr => {
                let render: fn(&Value, &Type) -> Vec<u8> = match prim {
                    Prim::Str => show::str_value_bytes,
                    Prim::Repr => show::repr_value_bytes,
                    _ => show::strr_value_bytes,
                };
                let ty = arg_tys[0].clone();
                let a = codes.pop().expect("one operand");
                let min_bytes = show::min_text_bytes(&ty);
                Box::new(move |frame| {
                    let value = a(frame)?;
                    show::check_text_size(min_bytes, &ty, &frame.rt.limits)
                        .map_err(|f| f.at(span))?;
                    Ok(Value::Str(Arc::new(render(&value, &ty))))
                })
            }
            Prim::Print | Prim::Println => {
                let newline = *prim == Prim::Println;
                let ty = arg_tys[0].clone();
                let a = codes.pop().expect("one operand");
                let min_bytes = show::min_text_bytes(&ty);
                Box::new(move |frame| {
                    let value = a(frame)?;
                    show::check_text_size(min_bytes, &ty, &frame.rt.limits)
                        .map_err(|f| f.at(span))?;
                    let mut text = show::str_value_bytes(&value, &ty);
                    if newline {
                        text.push(b'\n');
                    }
                    frame.rt.write(&text);
                    Ok(Value::Unit)
                })
            }
            Prim::Endl => Box::new(|frame| {
                frame.rt.write(b"\n");
                Ok(Value::Unit)
            }),
            Prim::Caseno => {
                let a = codes.pop().expect("one operand");
                match SumLayout::of(&arg_tys[0]) {
                    Some(layout) => {
                        Box::new(move |frame| Ok(Value::Int(layout.split(&a(frame)?).0 as i64)))
                    }
                    None => Box::new(move |frame| match a(frame)? {
                        Value::Sum(sum) => Ok(Value::Int(sum.tag() as i64)),
                        other => Ok(Value::Int(code_u64(&other) as i64)),
                    }),
                }
            }
            Prim::Len => {
                let shape = Shape::of(&arg_tys[0]);
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match (a(frame)?, &shape) {
                    (Value::Array(view), Some(shape)) => Ok(Value::Int(shape.len_of(&view) as i64)),
                    (Value::Str(s), _) => Ok(Value::Int(s.len() as i64)),
                    _ => Ok(Value::Int(0)),
                })
            }
            Prim::Convert => {
                let (from, to) = (arg_tys[0].clone(), result_ty.clone());
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    prims::convert(&a(frame)?, &from, &to).map_err(|f| f.at(span))
                })
            }
            Prim::Widen => codes.pop().expect("one operand"),
            Prim::Upcast => {
                let Some(conversion) =
                    super::super::upcast::Conversion::new(&arg_tys[0], result_ty)
                else {
                    return internal(
                        format!("no subtype conversion from {} to {result_ty}", arg_tys[0]),
                        span,
                    );
                };
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(conversion.apply(a(frame)?)))
            }
            Prim::Permute(order) => {
                let order = order.clone();
                Box::new(move |frame| {
                    let mut values = vec![Value::Unit; codes.len()];
                    for (code, &position) in codes.iter().zip(order.iter()) {
                        values[position as usize] = code(frame)?;
                    }
                    Ok(Value::Tuple(values.into()))
                })
            }
            Prim::CheckedReshape(_) => codes.pop().expect("one operand"),
            Prim::ShapeFault(message) => {
                let message = message.clone();
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    a(frame)?;
                    Err(super::super::error::runtime_error(
                        super::super::error::SHAPE_MISMATCH,
                        message.to_string(),
                        span,
                    ))
                })
            }
            Prim::Map => self.map(codes, &arg_tys[1], result_ty, span),
            Prim::Dist(_) | Prim::Collect => self.distributed(prim, args, codes, result_ty, span),
            Prim::Filter => self.filter(codes, &arg_tys[1], span),
            Prim::Varray(op) => self.varray(*op, codes, &arg_tys, result_ty, span),
            Prim::Append => {
                let (Some(first), Some(second)) = (
                    Shape::of_array_or_unit(&arg_tys[0]),
                    Shape::of_array_or_unit(&arg_tys[1]),
                ) else {
                    return internal("concat of values that are not arrays", span);
                };
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let mut out = crate::eval::array::LeafBuilder::new(first.repr);
                    for (shape, value) in [(&first, a(frame)?), (&second, b(frame)?)] {
                        if let Value::Array(view) = value {
                            for i in 0..shape.len_of(&view) {
                                out.push_element(shape.element(&view, i));
                            }
                        }
                    }
                    Ok(Value::Array(out.finish()))
                })
            }
            Prim::FoldLeft => {
                let Some(shape) = Shape::of_array_or_unit(&arg_tys[2]) else {
                    return internal("fold over a value that is not an array", span);
                };
                let mut codes = codes.into_iter();
                let (f, first, second) = (
                    codes.next().expect("three operands"),
                    codes.next().expect("three operands"),
                    codes.next().expect("three operands"),
                );
                Box::new(move |frame| {
                    let function = f(frame)?;
                    let (init, array) = (first(frame)?, second(frame)?);
                    let Value::Array(view) = array else {
                        return Ok(init);
                    };
                    let mut acc = init;
                    for i in 0..shape.len_of(&view) {
                        acc = apply(
                            frame.rt,
                            function.clone(),
                            [acc, shape.element(&view, i)],
                            span,
                        )?;
                    }
                    Ok(acc)
                })
            }
            Prim::Rev => {
                let Some(shape) = Shape::of_array_or_unit(&arg_tys[0]) else {
                    return internal("rev of a value that is not an array", span);
                };
                let a = super::admitting_copy(codes.pop().expect("one operand"), span);
                Box::new(move |frame| match a(frame)? {
                    Value::Array(view) => Ok(Value::Array(array::reverse(&view, &shape))),
                    other => Ok(other),
                })
            }
            Prim::Sum | Prim::Prod => {
                let a = codes.pop().expect("one operand");
                reduce_code(*prim == Prim::Sum, result_ty, a, span)
            }
            Prim::Concat => {
                let result = result_ty.clone();
                let repr = leaf_repr(leaf_type(&arg_tys[0]));
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| match (a(frame)?, b(frame)?) {
                    (Value::Array(x), Value::Array(y)) => {
                        array::concat(&x, &y, repr, &result, &frame.rt.limits)
                            .map(Value::Array)
                            .map_err(|f| f.at(span))
                    }
                    (x, _) => Ok(x),
                })
            }
            Prim::Unresolved(_) => internal("an operator the checker did not resolve", span),
            Prim::Transpose => {
                let Some((rows, cols, block, repr)) = transpose_geometry(&arg_tys[0]) else {
                    return internal(format!("transpose of {}", arg_tys[0]), span);
                };
                let a = super::admitting_copy(codes.pop().expect("one operand"), span);
                Box::new(move |frame| match a(frame)? {
                    Value::Array(view) => Ok(Value::Array(array::transpose(
                        &view, rows, cols, block, repr,
                    ))),
                    other => Ok(other),
                })
            }
            // The kernels of the library functions.
            _ => super::super::library::compile(prim, args, codes, result_ty, span)
                .unwrap_or_else(|| internal(format!("{prim:?} of an unexpected type"), span)),
        }
    }

    /// `map f a` of a function value: `f` applied to each element in order.
    pub(super) fn map(
        &mut self,
        mut codes: Vec<ExprCode>,
        array_ty: &Type,
        result_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let (Some(input), Some(output)) = (
            Shape::of_array_or_unit(array_ty),
            Shape::of_array_or_unit(result_ty),
        ) else {
            return internal("map over a value that is not an array", span);
        };
        let result_ty = result_ty.clone();
        let a = codes.pop().expect("two operands");
        let f = codes.pop().expect("two operands");
        Box::new(move |frame| {
            let function = f(frame)?;
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            inlined::map_elements(
                frame,
                &view,
                (&input, &output, &result_ty),
                span,
                |frame, e| apply_one(frame.rt, &function, e, span),
            )
        })
    }
}

impl Compiler<'_> {
    /// `filter p a`: the elements for which `p` holds, as an array over their count, even of
    /// none or one (code over run-time sizes keeps `T ^ 0` and `T ^ 1` as arrays).
    pub(super) fn filter(
        &mut self,
        mut codes: Vec<ExprCode>,
        array_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let Some(input) = Shape::of_array_or_unit(array_ty) else {
            return internal("filter over a value that is not an array", span);
        };
        let a = codes.pop().expect("two operands");
        let p = codes.pop().expect("two operands");
        Box::new(move |frame| {
            let predicate = p(frame)?;
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            filter_view(frame, &input, &predicate, &view, span).map(Value::Array)
        })
    }
}

/// The elements of `view` (of shape `input`) for which `predicate` holds, in order.
pub(super) fn filter_view(
    frame: &mut Frame<'_, '_>,
    input: &Shape,
    predicate: &Value,
    view: &super::super::value::ArrayVal,
    span: Span,
) -> Result<super::super::value::ArrayVal, Ctrl> {
    if let Some(call) = ScalarCall::of(predicate) {
        if !input.elem_is_array && input.elem_leaves == 1 {
            if let Some(kept) = filter_scalars(frame.rt, &call, view, span) {
                return kept;
            }
        }
    }
    super::inlined::filter_elements(frame, view, input, span, |frame, element| {
        Ok(apply_one(frame.rt, predicate, element.clone(), span)?.as_int_lossy() != 0)
    })
}

/// `filter` of a native predicate over unboxed scalars: each leaf passed as bits (the same
/// calls, polls and result as the general loop); `None` when the leaves are not those the
/// predicate takes.
fn filter_scalars(
    rt: &crate::eval::Runtime<'_>,
    call: &ScalarCall<'_>,
    view: &super::super::value::ArrayVal,
    span: Span,
) -> Option<Result<super::super::value::ArrayVal, Ctrl>> {
    use crate::eval::native::Repr;
    fn run<T: Elem>(
        leaves: &[T],
        test: &mut dyn FnMut(u64) -> Result<bool, Ctrl>,
        span: Span,
    ) -> Result<Vec<T>, Ctrl> {
        let mut kept = Vec::new();
        for (i, &leaf) in leaves.iter().enumerate() {
            if i % crate::interrupt::POLL_INTERVAL == 0 {
                crate::eval::error::poll_interrupt().map_err(|f| f.at(span))?;
            }
            if test(leaf.to_bits())? {
                kept.push(leaf);
            }
        }
        Ok(kept)
    }
    if call.ret != Repr::I64 {
        return None;
    }
    let mut test = |bits: u64| call.call(rt, bits, span).map(|r| r != 0);
    let range = view.start..view.start + view.len;
    let kept = match &*view.buf {
        Buffer::Scalars(v) if v.kind().is_float() == (call.param == Repr::F64) => {
            let kept: Result<Scalars, Ctrl> =
                scalars::each!(v, v => run(&v[range], &mut test, span).map(Into::into));
            kept.map(array::LeafBuilder::Scalars)
        }
        _ => return None,
    };
    Some(kept.map(|kept| kept.finish()))
}

fn slow_fault(op: ArithOp, ity: IntTy, x: i64, y: i64) -> Fault {
    int_arith(op, ity, x, y)
        .err()
        .unwrap_or_else(|| Fault::new(OVERFLOW, format!("{} overflow", ity.name())))
}

fn binary_int<K>(a: ExprCode, b: ExprCode, span: Span, kernel: K) -> ExprCode
where
    K: Fn(i64, i64) -> Result<i64, Fault> + Send + Sync + 'static,
{
    Box::new(move |frame| {
        let x = a(frame)?.as_int_lossy();
        let y = b(frame)?.as_int_lossy();
        kernel(x, y).map(Value::Int).map_err(|f| f.at(span))
    })
}

/// Integer arithmetic with a specialised kernel for the common signed 32- and 64-bit cases.
fn int_arith_code(op: ArithOp, ity: IntTy, a: ExprCode, b: ExprCode, span: Span) -> ExprCode {
    let fits32 = |r: i64| r as i32 as i64 == r;
    match (op, ity.signed(), ity.bits()) {
        (ArithOp::Add, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_add(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Sub, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_sub(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Mul, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_mul(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Add, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x + y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        (ArithOp::Sub, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x - y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        (ArithOp::Mul, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x * y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        _ => binary_int(a, b, span, move |x, y| int_arith(op, ity, x, y)),
    }
}

/// A comparison with the kernel chosen by the operand type.
fn compare_code(op: CmpOp, ty: &Type, a: ExprCode, b: ExprCode) -> ExprCode {
    match ty {
        Type::Int(ity) if is_unsigned_64(*ity) => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy() as u64;
            let y = b(frame)?.as_int_lossy() as u64;
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        Type::Int(_) => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy();
            let y = b(frame)?.as_int_lossy();
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        // `char` is signed: bytes above 127 order below 0.
        Type::Char => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy() as u8 as i8;
            let y = b(frame)?.as_int_lossy() as u8 as i8;
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        Type::Double | Type::Float => Box::new(move |frame| {
            let x = a(frame)?.as_float_lossy();
            let y = b(frame)?.as_float_lossy();
            Ok(Value::bool(float_holds(op, x, y)))
        }),
        // Real Felix compares compact sums by their summand tag (`caseno`), not by code: its
        // COMPACTLINEAR `==` and `<` are defined through `caseno` (conformance
        // compact/csum_inject). Tessera keeps that for programs to print what Felix prints.
        Type::CSum(_) if SumLayout::of(ty).is_some() => {
            let layout = SumLayout::of(ty).expect("checked above");
            Box::new(move |frame| {
                let x = layout.split(&a(frame)?).0;
                let y = layout.split(&b(frame)?).0;
                Ok(Value::bool(holds(op, x.cmp(&y))))
            })
        }
        t if crate::types::kind::is_compact(t) && CodeRepr::of(t) == CodeRepr::Small => {
            Box::new(move |frame| {
                let x = code_u64(&a(frame)?);
                let y = code_u64(&b(frame)?);
                Ok(Value::bool(holds(op, x.cmp(&y))))
            })
        }
        _ => {
            let compare = prims::comparator(ty);
            Box::new(move |frame| {
                let x = a(frame)?;
                let y = b(frame)?;
                Ok(Value::bool(holds(op, compare(&x, &y))))
            })
        }
    }
}

/// `\sum` (when `sum`) or `\prod` of an array whose elements have type `elem`.
pub(super) fn reduce_code(sum: bool, elem: &Type, a: ExprCode, span: Span) -> ExprCode {
    let op = if sum { ArithOp::Add } else { ArithOp::Mul };
    match elem {
        Type::Int(ity) if sum => {
            let ity = *ity;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Int(0));
                };
                let Buffer::Scalars(values) = &*view.buf else {
                    return Ok(Value::Int(0));
                };
                let range = view.start..view.start + view.len;
                each!(values, v => super::super::parallel::sum_int(&v[range], ity))
                    .map(Value::Int)
                    .map_err(|f| f.at(span))
            })
        }
        Type::Int(ity) => {
            let ity = *ity;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Int(0));
                };
                let init: i64 = if sum { 0 } else { 1 };
                let Buffer::Scalars(values) = &*view.buf else {
                    return Ok(Value::Int(init));
                };
                let range = view.start..view.start + view.len;
                each!(values, v => super::super::parallel::fold_int(&v[range], op, ity, init))
                    .map(Value::Int)
                    .map_err(|f| f.at(span))
            })
        }
        Type::Double | Type::Float => {
            let single = *elem == Type::Float;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Float(0.0));
                };
                let init: f64 = if sum { 0.0 } else { 1.0 };
                let Buffer::Scalars(values) = &*view.buf else {
                    return Ok(Value::Float(init));
                };
                let range = view.start..view.start + view.len;
                each!(values, v => super::super::parallel::fold_float(&v[range], op, single, init))
                    .map(Value::Float)
                    .map_err(|f| f.at(span))
            })
        }
        _ => Box::new(move |frame| {
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            let mut acc = BigUint::from(if sum { 0u32 } else { 1u32 });
            for k in 0..view.len {
                if k % crate::interrupt::POLL_INTERVAL == 0 && crate::interrupt::kernel_poll() {
                    return Err(interrupted(span));
                }
                let x = code_big(&view.leaf(k));
                acc = if sum { acc + x } else { acc * x };
            }
            Ok(Value::Big(Arc::new(acc)))
        }),
    }
}

/// Rows, columns, leaves per block and leaf kind of a transposable array type: an array of
/// arrays `T ^ M ^ N` (N rows of M) or a matrix `T ^ (A \* B)` (|A| rows of |B|).
pub(super) fn transpose_geometry(
    ty: &Type,
) -> Option<(usize, usize, usize, super::super::value::LeafRepr)> {
    // The isomorphism engine derives the permutation of the copy: the source is `rows`
    // by `columns` elements, and target position p reads source (p % rows) * columns + p / rows.
    let permutation = crate::types::iso::transpose_permutation(ty).ok()?;
    let rows = permutation.rows().to_usize()?;
    let cols = permutation.columns().to_usize()?;
    let Type::Array(elem, _) = ty else {
        return None;
    };
    let moved = match &**elem {
        Type::Array(inner, _) => inner,
        elem => elem,
    };
    let block = super::super::value::leaf_count(moved)?;
    Some((rows, cols, block, leaf_repr(leaf_type(moved))))
}
