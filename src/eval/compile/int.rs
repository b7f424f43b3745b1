//! Unboxed integer code (`IntCode`) and conditions: integer-like expressions evaluated to a
//! bare `i64`, comparisons decided inline by the loop or branch that uses them.

use crate::core::ir::{
    ArithOp, BitOp, CmpOp, CoerceKind, Const, Expr, ExprKind, IndexMode, Place, Prim,
};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::Shape;
use super::super::code::{CondCode, IntCode};
use super::super::compact::is_int_like;
use super::super::compact::{CArrayLayout, CodeRepr, ProductLayout};
use super::super::error::{runtime_error, CONVERSION_OUT_OF_RANGE};
use super::super::prims::{self, holds, int_arith, int_from_i128, is_unsigned_64};
use super::super::value::{Buffer, Value};
use super::super::Ctrl;
use super::operands::{with_int_operands, Condition, IntOperand, IntRead, OffsetRead};
use super::paths::unboxed_position;
use super::{float, inlined, int_ty_of, Compiler};

impl Compiler<'_> {
    /// Compile an expression of an integer-like type to code producing the unboxed `i64`.
    pub fn int_code(&mut self, e: &Expr) -> IntCode {
        if let Some(code) = self.try_int_code(e) {
            return code;
        }
        let code = self.expr(e);
        Box::new(move |frame| Ok(code(frame)?.as_int_lossy()))
    }

    /// Compile an integer-like operand: constants and variable reads are kept as data so the
    /// operator's closure reads them inline instead of calling a nested closure.
    pub(super) fn int_operand(&mut self, e: &Expr) -> IntOperand {
        match &e.kind {
            ExprKind::Const(Const::Int(i)) if is_int_like(&e.ty) => IntOperand::Const(*i),
            ExprKind::Local(s) if is_int_like(&e.ty) => {
                self.note_slot(*s);
                IntOperand::Local(*s as usize)
            }
            ExprKind::Global(s) if is_int_like(&e.ty) => {
                match self.uninitialised_check(*s, &e.ty) {
                    None => IntOperand::Global(*s as usize),
                    Some(def) => {
                        let read = Self::checked_global_read(def, e.span);
                        IntOperand::Code(Box::new(move |frame| Ok(read(frame)?.as_int_lossy())))
                    }
                }
            }
            ExprKind::Prim(Prim::IntArith(op @ (ArithOp::Add | ArithOp::Sub), ity), args)
                if args.len() == 2 && ity.signed() && matches!(ity.bits(), 32 | 64) =>
            {
                match (&args[0].kind, &args[1].kind) {
                    (ExprKind::Local(s), ExprKind::Const(Const::Int(delta)))
                        if is_int_like(&args[0].ty) =>
                    {
                        self.note_slot(*s);
                        IntOperand::Offset(OffsetRead {
                            slot: *s as usize,
                            delta: *delta,
                            subtract: *op == ArithOp::Sub,
                            ity: *ity,
                            span: e.span,
                        })
                    }
                    _ => IntOperand::Code(self.int_code(e)),
                }
            }
            ExprKind::Prim(Prim::Widen, args) if args.len() == 1 && is_int_like(&args[0].ty) => {
                self.int_operand(&args[0])
            }
            _ => IntOperand::Code(self.int_code(e)),
        }
    }

    /// A condition to be evaluated inline by a loop or a branch: a comparison of scalar
    /// operands is kept as data (no closure call of its own), anything else is `cond_code`.
    pub(super) fn condition(&mut self, e: &Expr) -> Condition {
        if let ExprKind::Prim(Prim::Compare(op), args) = &e.kind {
            if args.len() == 2 && float::is_float(&args[0].ty) {
                return Condition::Float(
                    *op,
                    self.float_operand(&args[0]),
                    self.float_operand(&args[1]),
                );
            }
            if args.len() == 2
                && int_comparable(&args[0].ty)
                && !unsigned_codes(&args[0].ty)
                && args[0].ty != Type::Char
            {
                return Condition::Int(*op, self.int_operand(&args[0]), self.int_operand(&args[1]));
            }
        }
        Condition::Code(self.cond_code(e))
    }

    /// Compile a condition (a `bool` expression).
    pub fn cond_code(&mut self, e: &Expr) -> CondCode {
        match &e.kind {
            ExprKind::Inlined(inlined) if inlined.stmts.is_empty() && inlined.result.is_some() => {
                let code = self.cond_code(inlined.result.as_ref().expect("a result"));
                inlined::framed(code, inlined)
            }
            ExprKind::Prim(Prim::Not, args) if args.len() == 1 => {
                let a = self.cond_code(&args[0]);
                Box::new(move |frame| Ok(!a(frame)?))
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.cond_code(a), self.cond_code(b));
                Box::new(move |frame| Ok(a(frame)? && b(frame)?))
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.cond_code(a), self.cond_code(b));
                Box::new(move |frame| Ok(a(frame)? || b(frame)?))
            }
            ExprKind::Prim(Prim::Compare(op), args)
                if args.len() == 2 && float::is_float(&args[0].ty) =>
            {
                self.float_compare(*op, &args[0], &args[1])
            }
            ExprKind::Prim(Prim::Compare(op), args)
                if args.len() == 2 && int_comparable(&args[0].ty) =>
            {
                let op = *op;
                let unsigned = unsigned_codes(&args[0].ty);
                let a = self.int_operand(&args[0]);
                let b = self.int_operand(&args[1]);
                if args[0].ty == Type::Char && !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    // `char` is signed: bytes above 127 order below 0.
                    Box::new(move |frame| {
                        let x = a.eval(frame)? as u8 as i8;
                        Ok(holds(op, x.cmp(&(b.eval(frame)? as u8 as i8))))
                    })
                } else if unsigned {
                    Box::new(move |frame| {
                        let x = a.eval(frame)? as u64;
                        Ok(holds(op, x.cmp(&(b.eval(frame)? as u64))))
                    })
                } else {
                    with_int_operands!(a, b, |x, y| Box::new(move |frame| {
                        let left = x.read(frame)?;
                        Ok(holds(op, left.cmp(&y.read(frame)?)))
                    }))
                }
            }
            _ if is_int_like(&e.ty) => {
                let code = self.int_code(e);
                Box::new(move |frame| Ok(code(frame)? != 0))
            }
            _ => {
                let code = self.expr(e);
                Box::new(move |frame| Ok(code(frame)?.truthy()))
            }
        }
    }

    /// Unboxed code for the integer-like expressions that dominate loops and arithmetic;
    /// `None` for other shapes (the caller boxes them as usual).
    pub(super) fn try_int_code(&mut self, e: &Expr) -> Option<IntCode> {
        if !is_int_like(&e.ty) {
            return None;
        }
        let span = e.span;
        match &e.kind {
            ExprKind::Inlined(inlined) => self.inlined_int(inlined),
            ExprKind::Field(..) => self.column_read::<i64>(e),
            ExprKind::Prim(Prim::Convert, args) if args.len() == 1 => {
                self.try_convert_int(e, &args[0])
            }
            ExprKind::Const(Const::Int(i)) => {
                let i = *i;
                Some(Box::new(move |_| Ok(i)))
            }
            ExprKind::Local(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Some(Box::new(move |frame| Ok(frame.slots[s].as_int_lossy())))
            }
            ExprKind::Global(s) => match self.uninitialised_check(*s, &e.ty) {
                None => {
                    let s = *s as usize;
                    Some(Box::new(move |frame| Ok(frame.rt.globals.get_int(s))))
                }
                Some(def) => {
                    let read = Self::checked_global_read(def, e.span);
                    Some(Box::new(move |frame| Ok(read(frame)?.as_int_lossy())))
                }
            },
            ExprKind::Prim(Prim::IntArith(op, ity), args) if args.len() == 2 => {
                let a = self.int_operand(&args[0]);
                let b = self.int_operand(&args[1]);
                let (op, ity) = (*op, *ity);
                Some(with_int_operands!(
                    a,
                    b,
                    |x, y| crate::eval::prims::with_fast_int_op!(
                        op,
                        ity,
                        scalar_int_binary(x, y, op, ity, span)
                    )
                ))
            }
            ExprKind::Prim(Prim::Widen, args) if args.len() == 1 && is_int_like(&args[0].ty) => {
                Some(self.int_code(&args[0]))
            }
            // Bitwise operators and shifts stay unboxed in integer loops.
            ExprKind::Prim(Prim::IntBit(op, ity), args) if args.len() == 2 => {
                let a = self.int_code(&args[0]);
                let b = self.int_code(&args[1]);
                let (op, ity) = (*op, *ity);
                Some(match op {
                    BitOp::And => Box::new(move |frame| Ok(a(frame)? & b(frame)?)),
                    BitOp::Or => Box::new(move |frame| Ok(a(frame)? | b(frame)?)),
                    BitOp::Xor => Box::new(move |frame| Ok(a(frame)? ^ b(frame)?)),
                    BitOp::Shl | BitOp::Shr => Box::new(move |frame| {
                        let x = a(frame)?;
                        prims::int_bit(op, ity, x, b(frame)?).map_err(|f| f.at(span))
                    }),
                })
            }
            ExprKind::Prim(Prim::IntCompl(ity), args) if args.len() == 1 => {
                let a = self.int_code(&args[0]);
                let ity = *ity;
                Some(Box::new(move |frame| Ok(prims::int_compl(ity, a(frame)?))))
            }
            ExprKind::Prim(Prim::Compare(_), args)
                if args.len() == 2 && int_comparable(&args[0].ty) =>
            {
                let cond = self.cond_code(e);
                Some(Box::new(move |frame| Ok(cond(frame)? as i64)))
            }
            ExprKind::Prim(Prim::Not, _) | ExprKind::And(..) | ExprKind::Or(..) => {
                let cond = self.cond_code(e);
                Some(Box::new(move |frame| Ok(cond(frame)? as i64)))
            }
            ExprKind::Coerce(CoerceKind::EncodeInt, inner) if is_int_like(&inner.ty) => {
                let Type::Int(ity) = e.ty else { return None };
                let code = self.int_code(inner);
                Some(Box::new(move |frame| {
                    let c = code(frame)? as u64;
                    int_from_i128(c as i128, ity).ok_or_else(|| {
                        runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!(
                                "conversion out of range: code {c} does not fit {}",
                                ity.name()
                            ),
                            span,
                        )
                    })
                }))
            }
            ExprKind::Coerce(CoerceKind::Reinterpret, inner) if is_int_like(&inner.ty) => {
                Some(self.int_code(inner))
            }
            ExprKind::CField(inner, index) => {
                let (radix, weight) = ProductLayout::small_digit(&inner.ty, *index as usize)?;
                if radix == 0 || weight == 0 {
                    return None;
                }
                let code = self.int_code(inner);
                Some(Box::new(move |frame| {
                    Ok(((code(frame)? as u64 / weight) % radix) as i64)
                }))
            }
            ExprKind::Index { array, index, mode } => self.int_index(array, index, *mode),
            ExprKind::If(c, a, b) => {
                if let ExprKind::Prim(Prim::Compare(op), operands) = &c.kind {
                    if operands.len() == 2
                        && int_comparable(&operands[0].ty)
                        && !unsigned_codes(&operands[0].ty)
                        && operands[0].ty != Type::Char
                    {
                        // The comparison evaluated inline: no condition closure.
                        let op = *op;
                        let x = self.int_operand(&operands[0]);
                        let y = self.int_operand(&operands[1]);
                        let (a, b) = (self.int_operand(a), self.int_operand(b));
                        return Some(with_int_operands!(x, y, |x, y| Box::new(move |frame| {
                            let left = x.read(frame)?;
                            if holds(op, left.cmp(&y.read(frame)?)) {
                                a.eval(frame)
                            } else {
                                b.eval(frame)
                            }
                        })));
                    }
                }
                let (c, a, b) = (self.cond_code(c), self.int_code(a), self.int_code(b));
                Some(Box::new(
                    move |frame| {
                        if c(frame)? {
                            a(frame)
                        } else {
                            b(frame)
                        }
                    },
                ))
            }
            _ => None,
        }
    }

    /// An element of an integer array held in a variable, read without copying the array
    /// value. Only when the index cannot change the variable (no calls), so reading the
    /// variable after the index is the same as before it.
    fn int_index(&mut self, array: &Expr, index: &Expr, mode: IndexMode) -> Option<IntCode> {
        if let Type::CArray(..) = array.ty {
            return self.int_carray_index(array, index, mode);
        }
        let shape = Shape::of(&array.ty)?;
        if shape.elem_is_array
            || !matches!(shape.repr, super::super::value::LeafRepr::Scalar(k) if !k.is_float())
            || !is_call_free(index)
        {
            return None;
        }
        let place = match array.kind {
            ExprKind::Local(s) => {
                self.note_slot(s);
                Place::Local(s)
            }
            ExprKind::Global(s) if self.uninitialised_check(s, &array.ty).is_none() => {
                Place::Global(s)
            }
            _ => return None,
        };
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let linear = mode == IndexMode::Linear && matches!(index.ty, Type::Int(_));
        let index = self.int_code(index);
        let leaf = move |value: &Value, raw: i64| -> Result<i64, Ctrl> {
            let Value::Array(view) = value else {
                return Ok(0);
            };
            let position = unboxed_position(raw, linear, index_ity, view.len, &array_ty)
                .map_err(|f| f.at(index_span))?;
            match &*view.buf {
                Buffer::Scalars(values) => Ok(values.int(view.start + position)),
                _ => Ok(0),
            }
        };
        Some(match place {
            Place::Local(s) => {
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    leaf(&frame.slots[s], raw)
                })
            }
            _ => {
                let Place::Global(s) = place else { return None };
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    // SAFETY: `leaf` only reads the array value.
                    unsafe { frame.rt.globals.read_with(s, |value| leaf(value, raw)) }
                })
            }
        })
    }

    /// An element of a compact array whose codes fit in 64 bits, as an unboxed integer.
    fn int_carray_index(&mut self, array: &Expr, index: &Expr, mode: IndexMode) -> Option<IntCode> {
        let layout = CArrayLayout::of(&array.ty)?;
        if CodeRepr::of(&array.ty) != CodeRepr::Small || layout.elem != CodeRepr::Small {
            return None;
        }
        layout.small_element(0, 0)?;
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let linear = mode == IndexMode::Linear && matches!(index.ty, Type::Int(_));
        let code = self.int_code(array);
        let index = self.int_code(index);
        Some(Box::new(move |frame| {
            let code = code(frame)? as u64;
            let raw = index(frame)?;
            let position = unboxed_position(raw, linear, index_ity, layout.n, &array_ty)
                .map_err(|f| f.at(index_span))?;
            Ok(layout.small_element(code, position).unwrap_or(0) as i64)
        }))
    }
}

/// Can integer comparison of codes decide `Prim::Compare` on this type? (Compact sums compare
/// by summand tag, not code.)
fn int_comparable(ty: &Type) -> bool {
    is_int_like(ty) && !matches!(ty, Type::CSum(_))
}

/// Are values of this integer-like type compared as unsigned 64-bit codes?
fn unsigned_codes(ty: &Type) -> bool {
    match ty {
        Type::Int(ity) => is_unsigned_64(*ity),
        Type::Char => false,
        _ => true,
    }
}

/// Does evaluating the expression involve no call (so no effect on variables)?
pub(crate) fn is_call_free(e: &Expr) -> bool {
    use crate::core::visit::{walk_expr, Visit};
    struct CallFree(bool);
    impl Visit<'_> for CallFree {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 &= match &e.kind {
                ExprKind::Prim(prim, _) => !crate::core::prims::calls_or_writes(prim),
                // Conservative: a pointer reads (or makes a cell of) a variable out of sight.
                ExprKind::MakeFun { .. }
                | ExprKind::Closure { .. }
                | ExprKind::Call { .. }
                | ExprKind::Match(..)
                | ExprKind::AddrOf { .. }
                | ExprKind::PtrProject { .. }
                | ExprKind::Deref(_)
                | ExprKind::PtrCast(_)
                | ExprKind::Inlined(_)
                | ExprKind::MapLoop { .. } => false,
                _ => true,
            };
            if self.0 {
                walk_expr(self, e)
            }
        }
    }
    let mut free = CallFree(true);
    free.visit_expr(e);
    free.0
}

fn scalar_int_binary<A: IntRead, B: IntRead, F>(
    a: A,
    b: B,
    op: ArithOp,
    ity: IntTy,
    span: Span,
    fast: F,
) -> IntCode
where
    F: Fn(i64, i64) -> Option<i64> + Send + Sync + 'static,
{
    Box::new(move |frame| {
        let x = a.read(frame)?;
        let y = b.read(frame)?;
        match fast(x, y) {
            Some(r) => Ok(r),
            None => int_arith(op, ity, x, y).map_err(|f| f.at(span)),
        }
    })
}
