//! Expressions: constants, variables, function values and calls, tuples and arrays,
//! projections and indexing, injections, coercions, conditionals, and the dispatch to
//! pointers, primitives and inlined bodies.

use std::sync::Arc;

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::core::ir::{CoerceKind, Expr, ExprKind, IndexMode, Place, Prim};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::{self, LeafBuilder, Shape};
use super::super::closure::{apply, apply_one, call_instance, Closure};
use super::super::code::ExprCode;
use super::super::compact::{
    code_big, code_u64, size_big, value_from_big, value_from_u64, CArrayLayout, CodeRepr,
    ProductLayout, SumLayout,
};
use super::super::error::{decode_error, runtime_error, CONVERSION_OUT_OF_RANGE};
use super::super::prims::{int_from_i128, int_value};
use super::super::value::{ArgForm, Value, MAX_SUM_PARTS};
use super::paths::{index_error, position_of};
use super::pattern::{no_match, select_arm, CompiledArm};
use super::{
    const_value, gather_captures, int_ty_of, internal, read_place, record_components, Compiler,
};

impl Compiler<'_> {
    pub fn expr(&mut self, e: &Expr) -> ExprCode {
        let span = e.span;
        if let Some(code) = self.try_int_code(e) {
            return Box::new(move |frame| code(frame).map(Value::Int));
        }
        if matches!(
            e.kind,
            ExprKind::Prim(
                Prim::FloatArith(..) | Prim::FloatNeg | Prim::FloatFn(..) | Prim::Convert,
                _
            ) | ExprKind::Call { .. }
        ) {
            if let Some(code) = self.try_float_code(e) {
                return Box::new(move |frame| code(frame).map(Value::Float));
            }
        }
        match &e.kind {
            ExprKind::Const(c) => {
                let value = const_value(c, &e.ty);
                Box::new(move |_| Ok(value.clone()))
            }
            ExprKind::Zero => {
                if matches!(e.ty, Type::Array(..)) || record_components(&e.ty).is_some() {
                    let ty = e.ty.clone();
                    Box::new(move |frame| {
                        array::zero_value(&ty, &frame.rt.limits).map_err(|f| f.at(span))
                    })
                } else {
                    let value =
                        array::zero_value(&e.ty, &self.program.limits).unwrap_or(Value::Unit);
                    Box::new(move |_| Ok(value.clone()))
                }
            }
            ExprKind::Local(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Box::new(move |frame| Ok(frame.slots[s].clone()))
            }
            ExprKind::Take(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Box::new(move |frame| Ok(std::mem::replace(&mut frame.slots[s], Value::Unit)))
            }
            ExprKind::LocalCell(s) => {
                self.note_slot(*s);
                let place = Place::LocalCell(*s);
                Box::new(move |frame| Ok(read_place(frame, place)))
            }
            ExprKind::Global(s) => match self.uninitialised_check(*s, &e.ty) {
                None => {
                    let place = Place::Global(*s);
                    Box::new(move |frame| Ok(read_place(frame, place)))
                }
                Some(def) => Self::checked_global_read(def, span),
            },
            ExprKind::Capture(i) => {
                let i = *i as usize;
                Box::new(move |frame| Ok(frame.captures.get(i).cloned().unwrap_or(Value::Unit)))
            }
            ExprKind::CaptureCell(i) => {
                let place = Place::CaptureCell(*i);
                Box::new(move |frame| Ok(read_place(frame, place)))
            }
            ExprKind::MakeFun { fun, type_args } => {
                let Some(instance) = self.instance(*fun, type_args) else {
                    return internal(format!("unknown function {fun}"), span);
                };
                self.note_captures(&instance.captures);
                Box::new(move |frame| {
                    let captures = gather_captures(frame, &instance.captures);
                    Ok(Value::Fun(Arc::new(Closure::new(
                        instance.clone(),
                        captures.into(),
                        Vec::new(),
                    ))))
                })
            }
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => {
                let Some(instance) = self.instance(*fun, type_args) else {
                    return internal(format!("unknown function {fun}"), span);
                };
                self.note_captures(captures);
                let captures = captures.clone();
                Box::new(move |frame| {
                    let captures = gather_captures(frame, &captures);
                    Ok(Value::Fun(Arc::new(Closure::new(
                        instance.clone(),
                        captures.into(),
                        Vec::new(),
                    ))))
                })
            }
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Prim(prim, args) => self.prim(prim, args, &e.ty, span),
            ExprKind::Tuple(parts) if matches!(e.ty, Type::Array(..)) => {
                self.array_literal(parts, &e.ty, span)
            }
            ExprKind::Tuple(parts) if parts.is_empty() => Box::new(|_| Ok(Value::Unit)),
            ExprKind::Tuple(parts) => {
                let codes = self.exprs(parts);
                Box::new(move |frame| {
                    let mut values = Vec::with_capacity(codes.len());
                    for code in &codes {
                        values.push(code(frame)?);
                    }
                    Ok(Value::Tuple(values.into()))
                })
            }
            ExprKind::Array(parts) => self.array_literal(parts, &e.ty, span),
            ExprKind::CTuple(parts) => {
                let Some(layout) = ProductLayout::of(&e.ty) else {
                    return internal(format!("compact tuple of type {}", e.ty), span);
                };
                let codes = self.exprs(parts);
                Box::new(move |frame| {
                    let mut values = Vec::with_capacity(codes.len());
                    for code in &codes {
                        values.push(code(frame)?);
                    }
                    Ok(layout.build(&values))
                })
            }
            ExprKind::Field(inner, i) => {
                if let Some(code) = self.column_read::<Value>(e) {
                    return code;
                }
                let i = *i as usize;
                if let Some(shape) = Shape::of(&inner.ty) {
                    let inner = self.expr(inner);
                    return Box::new(move |frame| match inner(frame)? {
                        Value::Array(view) => Ok(shape.element(&view, i)),
                        other => Ok(other),
                    });
                }
                let inner = self.expr(inner);
                Box::new(move |frame| match inner(frame)? {
                    Value::Tuple(parts) => Ok(parts.get(i).cloned().unwrap_or(Value::Unit)),
                    other => Ok(other),
                })
            }
            ExprKind::CField(inner, i) => {
                let i = *i as usize;
                let (layout, i) = match ProductLayout::of(&inner.ty) {
                    Some(layout) => (layout, i),
                    None => match ProductLayout::one_digit(&inner.ty, i) {
                        Some(layout) => (layout, 0),
                        None => {
                            return internal(
                                format!("compact projection of type {}", inner.ty),
                                span,
                            )
                        }
                    },
                };
                let inner = self.expr(inner);
                Box::new(move |frame| Ok(layout.field(&inner(frame)?, i)))
            }
            ExprKind::Index { array, index, mode } => self.index(array, index, *mode, span),
            // A case of a literal tuple (`Cons (h, t)`) its node holds as parts: the parts
            // moved there.
            ExprKind::Inject { tag, arg } => match (&arg.kind, ArgForm::of(&arg.ty)) {
                (ExprKind::Tuple(parts), ArgForm::Tuple)
                    if (2..=MAX_SUM_PARTS).contains(&parts.len()) =>
                {
                    let tag = *tag;
                    let codes = self.exprs(parts);
                    Box::new(move |frame| {
                        let mut values = [Value::Unit, Value::Unit, Value::Unit, Value::Unit];
                        for (value, code) in values.iter_mut().zip(&codes) {
                            *value = code(frame)?;
                        }
                        let parts = &mut values[..codes.len()];
                        Ok(Value::sum_taking(tag, ArgForm::Tuple, parts))
                    })
                }
                (_, form) => {
                    let tag = *tag;
                    let arg = self.expr(arg);
                    Box::new(move |frame| Ok(Value::sum(tag, form, arg(frame)?)))
                }
            },
            ExprKind::CInject { tag, arg } => {
                let Some(layout) = SumLayout::of(&e.ty) else {
                    return internal(format!("compact injection into {}", e.ty), span);
                };
                let tag = *tag as usize;
                let arg = self.expr(arg);
                Box::new(move |frame| Ok(layout.inject(tag, &arg(frame)?)))
            }
            ExprKind::TypeSize(ty) => {
                let size = size_big(ty);
                let value = if e.ty == Type::Natural {
                    Value::Big(Arc::new(size))
                } else {
                    Value::Int(size.to_u64().unwrap_or(u64::MAX) as i64)
                };
                Box::new(move |_| Ok(value.clone()))
            }
            ExprKind::Coerce(kind, inner) => self.coerce(*kind, inner, &e.ty, span),
            ExprKind::If(c, a, b) => {
                let (c, a, b) = (self.expr(c), self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if c(frame)?.truthy() {
                        a(frame)
                    } else {
                        b(frame)
                    }
                })
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if a(frame)?.truthy() {
                        b(frame)
                    } else {
                        Ok(Value::bool(false))
                    }
                })
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if a(frame)?.truthy() {
                        Ok(Value::bool(true))
                    } else {
                        b(frame)
                    }
                })
            }
            ExprKind::AddrOf {
                place,
                root_ty,
                path,
            } => self.address(*place, root_ty, path, span),
            ExprKind::PtrProject { pointer, path } => self.pointer_projection(pointer, path, span),
            ExprKind::Deref(pointer) => self.dereference(pointer, &e.ty, span),
            ExprKind::PtrCast(pointer) => self.pointer_cast(pointer, &e.ty, span),
            ExprKind::Inlined(inlined) => self.inlined(inlined),
            ExprKind::MapLoop {
                var,
                array,
                body,
                filter,
            } => match filter {
                false => self.map_loop(*var, array, body, &e.ty, span),
                true => self.filter_loop(*var, array, body, span),
            },
            ExprKind::Match(scrutinee, arms) => {
                let ty = scrutinee.ty.clone();
                let scrutinee_span = scrutinee.span;
                let scrutinee = self.expr(scrutinee);
                let arms: Vec<CompiledArm<ExprCode>> = arms
                    .iter()
                    .map(|arm| self.arm(arm, |c, b| c.expr(b)))
                    .collect();
                Box::new(move |frame| {
                    let value = scrutinee(frame)?;
                    match select_arm(frame, &arms, &value)? {
                        Some(body) => body(frame),
                        None => Err(no_match(&value, &ty, scrutinee_span)),
                    }
                })
            }
        }
    }

    fn array_literal(&mut self, parts: &[Expr], ty: &Type, span: Span) -> ExprCode {
        let Some(shape) = Shape::of(ty) else {
            return internal(format!("array literal of type {ty}"), span);
        };
        let ty = ty.clone();
        let codes = self.exprs(parts);
        Box::new(move |frame| {
            let mut builder = literal_builder(&shape, codes.len(), &ty, &frame.rt.limits)
                .map_err(|f| f.at(span))?;
            for code in &codes {
                builder.push_element(code(frame)?);
            }
            Ok(Value::Array(builder.finish()))
        })
    }

    pub(super) fn index(
        &mut self,
        array: &Expr,
        index: &Expr,
        mode: IndexMode,
        span: Span,
    ) -> ExprCode {
        if let Some(layout) = CArrayLayout::of(&array.ty) {
            let array_ty = array.ty.clone();
            let index_ity = int_ty_of(&index.ty);
            let index_span = index.span;
            let array = self.expr(array);
            let index = self.expr(index);
            return Box::new(move |frame| {
                let code = array(frame)?;
                let index = index(frame)?;
                let position = position_of(&index, mode, index_ity, layout.n, &array_ty)
                    .map_err(|f| f.at(index_span))?;
                Ok(layout.element(&code, position))
            });
        }
        let Some(shape) = Shape::of(&array.ty) else {
            return internal(format!("indexing a value of type {}", array.ty), span);
        };
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let array = self.expr(array);
        let index = self.expr(index);
        if mode == IndexMode::Linear && !shape.elem_is_array {
            // The common case: one leaf per element, checked position.
            return Box::new(move |frame| {
                let Value::Array(view) = array(frame)? else {
                    return Ok(Value::Unit);
                };
                let i = int_value(index(frame)?.as_int_lossy(), index_ity);
                if i < 0 || i >= view.len as i128 {
                    return Err(index_error(i, &array_ty, view.len).at(index_span));
                }
                Ok(view.leaf(i as usize))
            });
        }
        Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            let index = index(frame)?;
            let n = shape.len_of(&view);
            let position =
                position_of(&index, mode, index_ity, n, &array_ty).map_err(|f| f.at(index_span))?;
            Ok(shape.element(&view, position))
        })
    }

    pub(super) fn call(&mut self, func: &Expr, args: &[Expr], span: Span) -> ExprCode {
        let mut arg_codes = self.exprs(args);
        let known = match &func.kind {
            ExprKind::MakeFun { fun, type_args } => Some((fun, type_args, None)),
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => Some((fun, type_args, Some(captures.to_vec()))),
            _ => None,
        };
        if let Some((fun, type_args, own)) = known {
            let Some(instance) = self.called_instance(*fun, type_args, arg_codes.len()) else {
                return internal(format!("unknown function {fun}"), span);
            };
            let captures = own.unwrap_or_else(|| instance.captures.clone());
            self.note_captures(&captures);
            let n_groups = instance.n_groups;
            // Direct call: no closure value is built.
            if captures.is_empty() && n_groups == 1 && arg_codes.len() == 1 {
                let arg = arg_codes.pop().expect("one argument");
                return Box::new(move |frame| {
                    let value = arg(frame)?;
                    call_instance(frame.rt, &instance, &[], [value], span)
                });
            }
            // The running closure calling itself (`core::selfcall`) passes its captures on.
            let own = captures
                .iter()
                .enumerate()
                .all(|(i, c)| *c == crate::core::ir::Capture::Outer(i as u32));
            return Box::new(move |frame| {
                let gathered;
                let captures = if own && frame.captures.len() == captures.len() {
                    frame.captures
                } else {
                    gathered = gather_captures(frame, &captures);
                    &gathered[..]
                };
                let mut values = Vec::with_capacity(arg_codes.len());
                for code in &arg_codes {
                    values.push(code(frame)?);
                }
                if values.len() < n_groups {
                    return Ok(Value::Fun(Arc::new(Closure::new(
                        instance.clone(),
                        captures.to_vec().into(),
                        values,
                    ))));
                }
                let rest = values.split_off(n_groups);
                let result = call_instance(frame.rt, &instance, captures, values, span)?;
                if rest.is_empty() {
                    Ok(result)
                } else {
                    apply(frame.rt, result, rest, span)
                }
            });
        }
        let func = self.expr(func);
        if arg_codes.len() == 1 {
            let arg = arg_codes.pop().expect("one argument");
            return Box::new(move |frame| {
                let f = func(frame)?;
                let value = arg(frame)?;
                apply_one(frame.rt, &f, value, span)
            });
        }
        Box::new(move |frame| {
            let f = func(frame)?;
            let mut values = Vec::with_capacity(arg_codes.len());
            for code in &arg_codes {
                values.push(code(frame)?);
            }
            apply(frame.rt, f, values, span)
        })
    }

    fn coerce(&mut self, kind: CoerceKind, inner: &Expr, target: &Type, span: Span) -> ExprCode {
        let source = inner.ty.clone();
        let target = target.clone();
        let code = self.expr(inner);
        match kind {
            CoerceKind::EncodeInt => {
                let ity = int_ty_of(&target);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    let encoded = match &value {
                        Value::Big(b) => b.to_i128(),
                        other => Some(code_u64(other) as i128),
                    };
                    encoded
                        .and_then(|c| int_from_i128(c, ity))
                        .map(Value::Int)
                        .ok_or_else(|| {
                            runtime_error(
                                CONVERSION_OUT_OF_RANGE,
                                format!(
                                    "conversion out of range: code {} does not fit {}",
                                    code_big(&value),
                                    ity.name()
                                ),
                                span,
                            )
                        })
                })
            }
            CoerceKind::EncodeNatural => {
                Box::new(move |frame| Ok(Value::Big(Arc::new(code_big(&code(frame)?)))))
            }
            CoerceKind::EncodeString => Box::new(move |frame| {
                Ok(Value::str(code_big(&code(frame)?).to_string().as_bytes()))
            }),
            CoerceKind::DecodeInt => {
                let ity = int_ty_of(&source);
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                let small_size = size.to_u128();
                Box::new(move |frame| {
                    let n = int_value(code(frame)?.as_int_lossy(), ity);
                    let in_range = match small_size {
                        Some(s) => n >= 0 && (n as u128) < s,
                        None => n >= 0,
                    };
                    if !in_range {
                        return Err(decode_error(&n.to_string(), &target, &size, span));
                    }
                    Ok(value_from_u64(n as u64, repr))
                })
            }
            CoerceKind::DecodeNatural => {
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                Box::new(move |frame| {
                    let n = code_big(&code(frame)?);
                    if n >= size {
                        return Err(decode_error(&n.to_string(), &target, &size, span));
                    }
                    Ok(value_from_big(n, repr))
                })
            }
            CoerceKind::DecodeString => {
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                Box::new(move |frame| {
                    let Value::Str(text) = code(frame)? else {
                        return Ok(Value::Unit);
                    };
                    let parsed = if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
                        BigUint::parse_bytes(&text, 10)
                    } else {
                        None
                    };
                    match parsed {
                        Some(n) if n < size => Ok(value_from_big(n, repr)),
                        _ => Err(decode_error(
                            &format!("\"{}\"", String::from_utf8_lossy(&text)),
                            &target,
                            &size,
                            span,
                        )),
                    }
                })
            }
            // An opaque value is stored as its representation.
            CoerceKind::Opaque => code,
            CoerceKind::Reinterpret => {
                let repr = CodeRepr::of(&target);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    Ok(match (&value, repr) {
                        (Value::Int(_), CodeRepr::Small) | (Value::Big(_), CodeRepr::Big) => value,
                        _ => value_from_big(code_big(&value), repr),
                    })
                })
            }
            CoerceKind::Reshape => {
                if matches!(source, Type::Array(..))
                    && matches!(target, Type::Array(..))
                    && array::same_leaves(&source, &target)
                {
                    // Same leaves in the same order: the view is reused as is (zero copy).
                    return code;
                }
                Box::new(move |frame| {
                    let value = code(frame)?;
                    let mut leaves = Vec::new();
                    array::flatten(&value, &source, &mut leaves);
                    array::rebuild(&target, &mut leaves.into_iter(), &frame.rt.limits)
                        .map_err(|f| f.at(span))
                })
            }
            CoerceKind::IntToNatural => {
                let ity = int_ty_of(&source);
                Box::new(move |frame| {
                    let n = int_value(code(frame)?.as_int_lossy(), ity);
                    if n < 0 {
                        return Err(runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!("conversion out of range: {n} is negative, not a natural"),
                            span,
                        ));
                    }
                    Ok(Value::Big(Arc::new(BigUint::from(n as u128))))
                })
            }
            CoerceKind::NaturalToInt => {
                let ity = int_ty_of(&target);
                Box::new(move |frame| {
                    let n = code_big(&code(frame)?);
                    n.to_i128()
                        .and_then(|v| int_from_i128(v, ity))
                        .map(Value::Int)
                        .ok_or_else(|| {
                            runtime_error(
                                CONVERSION_OUT_OF_RANGE,
                                format!("conversion out of range: {n} does not fit {}", ity.name()),
                                span,
                            )
                        })
                })
            }
            CoerceKind::NaturalToString => Box::new(move |frame| {
                Ok(Value::str(code_big(&code(frame)?).to_string().as_bytes()))
            }),
        }
    }
}

/// The builder of an array literal of `n` elements of `shape` (type `ty`), its room reserved:
/// R0007 when there is none.
pub(crate) fn literal_builder(
    shape: &Shape,
    n: usize,
    ty: &Type,
    limits: &crate::limits::Limits,
) -> Result<LeafBuilder, super::super::error::Fault> {
    let mut builder = LeafBuilder::new(shape.repr);
    builder.reserve(n.saturating_mul(shape.elem_leaves), ty, limits)?;
    Ok(builder)
}
