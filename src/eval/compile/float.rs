//! Unboxed code for `double` and `float` expressions (`FloatCode`): operands read by kind,
//! the operation chosen at compile time, no `Value` built between operations. A `float` is
//! kept rounded to `f32` after every operation, as `Value::Float` holds it.

use crate::core::ir::{ArithOp, Const, Expr, ExprKind, Place, Prim};
use crate::types::Type;

use super::super::prims::{int_value, round_float};
use super::super::Frame;
use super::operands::{FloatLeafPair, FloatOperand};
use super::{assign, Compiler, CondCode, FloatCode, StmtCode};

/// Is a value of this type a `Value::Float`?
pub fn is_float(ty: &Type) -> bool {
    matches!(ty, Type::Double | Type::Float)
}

/// Write a float into a local slot, in place when it already holds one.
#[inline]
fn store_float(slot: &mut super::Value, value: f64) {
    match slot {
        super::Value::Float(x) => *x = value,
        other => replace_value(other, super::Value::Float(value)),
    }
}

/// Replace a slot's value, out of line (the first store of a scalar into a slot; the hot
/// paths store in place).
#[cold]
#[inline(never)]
pub(super) fn replace_value(slot: &mut super::Value, value: super::Value) {
    *slot = value;
}

/// `a op b` on two operands, `op` chosen at compile time (so each operator's code is its own
/// monomorphic function) and rounded to `f32` in `op` for a `float`.
struct FloatBinary<F> {
    a: FloatOperand,
    b: FloatOperand,
    op: F,
}

impl<F: Fn(f64, f64) -> f64> FloatBinary<F> {
    #[inline(always)]
    fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<f64, super::Ctrl> {
        let x = self.a.eval(frame)?;
        let y = self.b.eval(frame)?;
        Ok((self.op)(x, y))
    }
}

/// Expand `$body` once per floating operator, with `$binary` the `FloatBinary` computing
/// `a op b` (rounded to `f32` when `single`).
macro_rules! with_float_op {
    ($op:expr, $a:ident, $b:ident, $single:ident, |$binary:ident| $body:expr) => {{
        macro_rules! build {
            (|$x:ident, $y:ident| $e:expr) => {
                if $single {
                    let $binary = FloatBinary {
                        a: $a,
                        b: $b,
                        op: |$x: f64, $y: f64| ($e) as f32 as f64,
                    };
                    $body
                } else {
                    let $binary = FloatBinary {
                        a: $a,
                        b: $b,
                        op: |$x: f64, $y: f64| $e,
                    };
                    $body
                }
            };
        }
        match $op {
            ArithOp::Add => build!(|x, y| x + y),
            ArithOp::Sub => build!(|x, y| x - y),
            ArithOp::Mul => build!(|x, y| x * y),
            ArithOp::Div => build!(|x, y| x / y),
            ArithOp::Mod => build!(|x, y| x % y),
        }
    }};
}

impl Compiler<'_> {
    /// `e` (of type `double` or `float`) as unboxed code.
    pub(super) fn float_code(&mut self, e: &Expr) -> FloatCode {
        if let Some(code) = self.try_float_code(e) {
            return code;
        }
        let code = self.expr(e);
        Box::new(move |frame| Ok(code(frame)?.as_float_lossy()))
    }

    /// Unboxed code for the floating expressions of arithmetic and loops; `None` for other
    /// shapes (compiled boxed).
    pub(super) fn try_float_code(&mut self, e: &Expr) -> Option<FloatCode> {
        if !is_float(&e.ty) {
            return None;
        }
        match &e.kind {
            ExprKind::Const(Const::Float(x)) => {
                let x = *x;
                Some(Box::new(move |_| Ok(x)))
            }
            ExprKind::Local(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Some(Box::new(move |frame| Ok(frame.slots[s].as_float_lossy())))
            }
            ExprKind::Global(s) if self.uninitialised_check(*s, &e.ty).is_none() => {
                let s = *s as usize;
                // SAFETY: the closure reads the value and touches no other global.
                Some(Box::new(move |frame| {
                    Ok(unsafe { frame.rt.globals.read_with(s, |v| v.as_float_lossy()) })
                }))
            }
            ExprKind::Capture(i) => {
                let i = *i as usize;
                Some(Box::new(
                    move |frame| Ok(frame.captures[i].as_float_lossy()),
                ))
            }
            ExprKind::Field(..) => self.column_read::<f64>(e),
            ExprKind::Prim(Prim::FloatArith(op, single), args) if args.len() == 2 => {
                let (a, b, single) = (
                    self.float_operand(&args[0]),
                    self.float_operand(&args[1]),
                    *single,
                );
                Some(with_float_op!(op, a, b, single, |binary| Box::new(
                    move |frame| binary.eval(frame)
                )))
            }
            ExprKind::Prim(Prim::FloatNeg, args) if args.len() == 1 => {
                let a = self.float_code(&args[0]);
                Some(Box::new(move |frame| Ok(-a(frame)?)))
            }
            ExprKind::Prim(Prim::FloatFn(f, single), args) if args.len() == 1 => {
                let (f, single) = (*f, *single);
                let a = self.float_code(&args[0]);
                Some(Box::new(move |frame| {
                    Ok(round_float(
                        super::super::library::math(f, a(frame)?),
                        single,
                    ))
                }))
            }
            ExprKind::Prim(Prim::Convert, args) if args.len() == 1 => {
                let single = e.ty == Type::Float;
                match &args[0].ty {
                    Type::Int(from) => {
                        let from = *from;
                        let a = self.int_code(&args[0]);
                        Some(Box::new(move |frame| {
                            Ok(round_float(int_value(a(frame)?, from) as f64, single))
                        }))
                    }
                    t if is_float(t) => {
                        let a = self.float_code(&args[0]);
                        Some(Box::new(move |frame| Ok(round_float(a(frame)?, single))))
                    }
                    _ => None,
                }
            }
            ExprKind::If(c, a, b) => {
                let c = self.condition(c);
                let (a, b) = (self.float_operand(a), self.float_operand(b));
                Some(Box::new(move |frame| {
                    if c.eval(frame)? {
                        a.eval(frame)
                    } else {
                        b.eval(frame)
                    }
                }))
            }
            ExprKind::Inlined(inlined) => {
                let result = inlined.result.as_ref()?;
                if inlined.stmts.is_empty() {
                    return Some(super::inlined::framed(self.float_code(result), inlined));
                }
                if crate::core::inline::has_return(&inlined.stmts) {
                    return None;
                }
                let stmts = self.block(&inlined.stmts);
                let result = self.float_code(result);
                let code: FloatCode = Box::new(move |frame| {
                    stmts(frame)?;
                    result(frame)
                });
                Some(super::inlined::framed(code, inlined))
            }
            _ => None,
        }
    }

    /// A floating operand: constants and variables are read inline by the operation.
    pub(super) fn float_operand(&mut self, e: &Expr) -> FloatOperand {
        match &e.kind {
            ExprKind::Const(Const::Float(x)) if is_float(&e.ty) => FloatOperand::Const(*x),
            ExprKind::Local(s) if is_float(&e.ty) => {
                self.note_slot(*s);
                FloatOperand::Local(*s as usize)
            }
            ExprKind::Global(s)
                if is_float(&e.ty) && self.uninitialised_check(*s, &e.ty).is_none() =>
            {
                FloatOperand::Global(*s as usize)
            }
            ExprKind::Capture(i) if is_float(&e.ty) => FloatOperand::Capture(*i as usize),
            ExprKind::Prim(Prim::FloatArith(op, single), args)
                if args.len() == 2
                    && args.iter().all(|a| {
                        is_float(&a.ty)
                            && matches!(
                                a.kind,
                                ExprKind::Const(_)
                                    | ExprKind::Local(_)
                                    | ExprKind::Global(_)
                                    | ExprKind::Capture(_)
                            )
                    }) =>
            {
                let (a, b) = (self.float_operand(&args[0]), self.float_operand(&args[1]));
                if a.is_leaf() && b.is_leaf() {
                    FloatOperand::Pair(Box::new(FloatLeafPair {
                        op: *op,
                        single: *single,
                        a,
                        b,
                    }))
                } else {
                    FloatOperand::Code(self.float_code(e))
                }
            }
            _ => FloatOperand::Code(self.float_code(e)),
        }
    }

    /// An explicit conversion to an integer type or `char` from an integer-like or floating
    /// operand, chosen at compile time (the semantics of `prims::convert`).
    pub(super) fn try_convert_int(&mut self, e: &Expr, arg: &Expr) -> Option<super::IntCode> {
        let span = e.span;
        let to = e.ty.clone();
        let out_of_range = move |shown: String| {
            super::runtime_error(
                super::CONVERSION_OUT_OF_RANGE,
                format!("conversion out of range: {shown} does not fit {to}"),
                span,
            )
        };
        if is_float(&arg.ty) {
            let Type::Int(ity) = e.ty else {
                return None;
            };
            let a = self.float_code(arg);
            return Some(Box::new(move |frame| {
                let x = a(frame)?;
                if x.is_nan() || x.is_infinite() || x.abs() >= 1e38 {
                    return Err(out_of_range(x.to_string()));
                }
                let v = x.trunc() as i128;
                super::int_from_i128(v, ity).ok_or_else(|| out_of_range(v.to_string()))
            }));
        }
        if !super::is_int_like(&arg.ty) {
            return None;
        }
        let from = match &arg.ty {
            Type::Int(ity) => Some(*ity),
            _ => None,
        };
        let a = self.int_code(arg);
        match e.ty {
            // Every value of `from` is a value of `ity`, held as the same `i64`.
            Type::Int(ity)
                if from.is_some_and(|from| from.min() >= ity.min() && from.max() <= ity.max()) =>
            {
                Some(a)
            }
            Type::Int(ity) => Some(Box::new(move |frame| {
                let raw = a(frame)?;
                let v = match from {
                    Some(from) => int_value(raw, from),
                    None => raw as i128,
                };
                super::int_from_i128(v, ity).ok_or_else(|| out_of_range(v.to_string()))
            })),
            Type::Char => Some(Box::new(move |frame| {
                let raw = a(frame)?;
                let v = match from {
                    Some(from) => int_value(raw, from),
                    None => raw as i128,
                };
                Ok(v.rem_euclid(256) as i64)
            })),
            _ => None,
        }
    }

    /// A comparison of two floating operands as a condition.
    pub(super) fn float_compare(
        &mut self,
        op: crate::core::ir::CmpOp,
        a: &Expr,
        b: &Expr,
    ) -> CondCode {
        let condition =
            super::operands::Condition::Float(op, self.float_operand(a), self.float_operand(b));
        Box::new(move |frame| condition.eval(frame))
    }

    /// `place = e` for a floating `e`: stored unboxed, in place where the variable already
    /// holds a float.
    pub(super) fn assign_float(&mut self, place: Place, e: &Expr) -> StmtCode {
        self.note_place(place);
        if let (
            ExprKind::Prim(Prim::FloatArith(op, single), args),
            Place::Local(_) | Place::Global(_),
        ) = (&e.kind, place)
        {
            if args.len() == 2 {
                // `x = a op b` as one closure: the operation and the store fused.
                let (a, b, single) = (
                    self.float_operand(&args[0]),
                    self.float_operand(&args[1]),
                    *single,
                );
                return with_float_op!(op, a, b, single, |binary| store_float_code(place, binary));
            }
        }
        let code = self.float_code(e);
        match place {
            Place::Local(s) => {
                let s = s as usize;
                Box::new(move |frame| {
                    let value = code(frame)?;
                    store_float(&mut frame.slots[s], value);
                    Ok(())
                })
            }
            Place::Global(s) => {
                let s = s as usize;
                Box::new(move |frame: &mut Frame<'_, '_>| {
                    let value = code(frame)?;
                    frame.rt.globals.set_float(s, value);
                    Ok(())
                })
            }
            _ => Box::new(move |frame| {
                let value = code(frame)?;
                assign(frame, place, super::Value::Float(value));
                Ok(())
            }),
        }
    }
}

/// Store what `binary` computes into a plain local or a global, unboxed.
fn store_float_code<F>(place: Place, binary: FloatBinary<F>) -> StmtCode
where
    F: Fn(f64, f64) -> f64 + Send + Sync + 'static,
{
    match place {
        Place::Local(s) => {
            let s = s as usize;
            Box::new(move |frame| {
                let value = binary.eval(frame)?;
                store_float(&mut frame.slots[s], value);
                Ok(())
            })
        }
        Place::Global(s) => {
            let s = s as usize;
            Box::new(move |frame| {
                let value = binary.eval(frame)?;
                frame.rt.globals.set_float(s, value);
                Ok(())
            })
        }
        _ => Box::new(move |frame| {
            let value = binary.eval(frame)?;
            assign(frame, place, super::Value::Float(value));
            Ok(())
        }),
    }
}
