//! The operands of unboxed integer and floating operations and of conditions. An operator's
//! closure is compiled for its operands' kinds (`with_int_operands!` picks a monomorphic
//! reader per kind, read inline), so the common pairs need no nested closure call and no
//! dispatch on the kind at run time.

use crate::core::ir::{ArithOp, CmpOp};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;

use super::super::code::{CondCode, FloatCode, IntCode};
use super::super::prims::{float_arith, float_holds, holds, int_arith, round_float};
use super::super::{Ctrl, Frame};

/// How an integer operand is read; implemented per operand kind so that an operator's closure
/// is compiled for its operands' kinds (no dispatch on the kind at run time).
pub trait IntRead: Send + Sync + 'static {
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl>;
}

/// A plain local plus or minus a constant, in signed 32- or 64-bit arithmetic (`n - 1`).
pub struct OffsetRead {
    pub(super) slot: usize,
    pub(super) delta: i64,
    pub(super) subtract: bool,
    pub(super) ity: IntTy,
    pub(super) span: Span,
}

impl IntRead for OffsetRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        let x = frame.slots[self.slot].as_int_lossy();
        let result = if self.subtract {
            x.checked_sub(self.delta)
        } else {
            x.checked_add(self.delta)
        };
        match result {
            Some(r) if self.ity.bits() == 64 || r as i32 as i64 == r => Ok(r),
            _ => {
                let op = if self.subtract {
                    ArithOp::Sub
                } else {
                    ArithOp::Add
                };
                int_arith(op, self.ity, x, self.delta).map_err(|f| f.at(self.span))
            }
        }
    }
}

/// A constant operand.
pub struct ConstRead(pub(super) i64);

/// A plain local variable operand.
pub struct LocalRead(pub(super) usize);

/// A global variable operand.
pub struct GlobalRead(pub(super) usize);

/// An operand computed by nested code.
pub struct CodeRead(pub(super) IntCode);

impl IntRead for ConstRead {
    #[inline(always)]
    fn read(&self, _: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(self.0)
    }
}

impl IntRead for LocalRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(frame.slots[self.0].as_int_lossy())
    }
}

impl IntRead for GlobalRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(frame.rt.globals.get_int(self.0))
    }
}

impl IntRead for CodeRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        (self.0)(frame)
    }
}

impl IntRead for IntOperand {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        self.eval(frame)
    }
}

/// Expand `$body` with `$x` and `$y` bound to readers specialised to the kinds of the operands
/// `$a` and `$b` (the common pairs; others read through `IntOperand`'s dispatch).
macro_rules! with_int_operands {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            (
                $crate::eval::compile::operands::IntOperand::Local(i),
                $crate::eval::compile::operands::IntOperand::Const(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::LocalRead(i),
                    $crate::eval::compile::operands::ConstRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Local(i),
                $crate::eval::compile::operands::IntOperand::Local(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::LocalRead(i),
                    $crate::eval::compile::operands::LocalRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Local(i),
                $crate::eval::compile::operands::IntOperand::Code(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::LocalRead(i),
                    $crate::eval::compile::operands::CodeRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Global(i),
                $crate::eval::compile::operands::IntOperand::Const(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::GlobalRead(i),
                    $crate::eval::compile::operands::ConstRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Global(i),
                $crate::eval::compile::operands::IntOperand::Global(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::GlobalRead(i),
                    $crate::eval::compile::operands::GlobalRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Global(i),
                $crate::eval::compile::operands::IntOperand::Code(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::GlobalRead(i),
                    $crate::eval::compile::operands::CodeRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Code(i),
                $crate::eval::compile::operands::IntOperand::Const(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::CodeRead(i),
                    $crate::eval::compile::operands::ConstRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Code(i),
                $crate::eval::compile::operands::IntOperand::Local(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::CodeRead(i),
                    $crate::eval::compile::operands::LocalRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Code(i),
                $crate::eval::compile::operands::IntOperand::Global(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::CodeRead(i),
                    $crate::eval::compile::operands::GlobalRead(j),
                );
                $body
            }
            (
                $crate::eval::compile::operands::IntOperand::Code(i),
                $crate::eval::compile::operands::IntOperand::Code(j),
            ) => {
                let ($x, $y) = (
                    $crate::eval::compile::operands::CodeRead(i),
                    $crate::eval::compile::operands::CodeRead(j),
                );
                $body
            }
            (a, b) => {
                let ($x, $y) = (a, b);
                $body
            }
        }
    };
}

pub(super) use with_int_operands;

/// A condition of a loop or a branch, evaluated where it is used.
pub enum Condition {
    Float(CmpOp, FloatOperand, FloatOperand),
    /// Signed integers (and narrower codes), compared as `i64`.
    Int(CmpOp, IntOperand, IntOperand),
    Code(CondCode),
}

impl Condition {
    #[inline(always)]
    pub fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<bool, Ctrl> {
        match self {
            Condition::Float(op, a, b) => {
                let x = a.eval(frame)?;
                Ok(float_holds(*op, x, b.eval(frame)?))
            }
            Condition::Int(op, a, b) => {
                let x = a.eval(frame)?;
                Ok(holds(*op, x.cmp(&b.eval(frame)?)))
            }
            Condition::Code(code) => code(frame),
        }
    }
}

/// An operand of an unboxed integer operation: a constant, a variable read inline, or nested
/// code.
pub enum IntOperand {
    Const(i64),
    Local(usize),
    Global(usize),
    Offset(OffsetRead),
    Code(IntCode),
}

impl IntOperand {
    /// The operand's value.
    #[inline(always)]
    pub fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        match self {
            IntOperand::Const(i) => Ok(*i),
            IntOperand::Local(s) => Ok(frame.slots[*s].as_int_lossy()),
            IntOperand::Global(s) => Ok(frame.rt.globals.get_int(*s)),
            IntOperand::Offset(offset) => offset.read(frame),
            IntOperand::Code(code) => code(frame),
        }
    }
}

/// An operand of an unboxed floating operation: a constant or a variable is read inline by
/// the operation's closure (one `match`, predicted in a loop) instead of through a nested
/// closure, which would return its `Result` through memory.
pub enum FloatOperand {
    Const(f64),
    Local(usize),
    Global(usize),
    Capture(usize),
    /// `a op b` on two of the above, computed where it is read (`x * 0.5`).
    Pair(Box<FloatLeafPair>),
    Code(FloatCode),
}

/// `a op b` on two constants or variables, rounded to `f32` when `single`.
pub struct FloatLeafPair {
    pub(super) op: ArithOp,
    pub(super) single: bool,
    pub(super) a: FloatOperand,
    pub(super) b: FloatOperand,
}

impl FloatOperand {
    /// The value of a constant or variable operand (the operands of a `FloatLeafPair`).
    #[inline(always)]
    fn leaf(&self, frame: &Frame<'_, '_>) -> f64 {
        match self {
            FloatOperand::Const(x) => *x,
            FloatOperand::Local(s) => frame.slots[*s].as_float_lossy(),
            FloatOperand::Global(s) => frame.rt.globals.get_float(*s),
            FloatOperand::Capture(i) => frame.captures[*i].as_float_lossy(),
            FloatOperand::Pair(_) | FloatOperand::Code(_) => unreachable!("not a leaf operand"),
        }
    }

    pub(super) fn is_leaf(&self) -> bool {
        !matches!(self, FloatOperand::Pair(_) | FloatOperand::Code(_))
    }

    #[inline(always)]
    pub fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<f64, Ctrl> {
        match self {
            FloatOperand::Const(x) => Ok(*x),
            FloatOperand::Local(s) => Ok(frame.slots[*s].as_float_lossy()),
            FloatOperand::Global(s) => Ok(frame.rt.globals.get_float(*s)),
            FloatOperand::Capture(i) => Ok(frame.captures[*i].as_float_lossy()),
            FloatOperand::Pair(pair) => {
                let (x, y) = (pair.a.leaf(frame), pair.b.leaf(frame));
                Ok(round_float(float_arith(pair.op, x, y), pair.single))
            }
            FloatOperand::Code(code) => code(frame),
        }
    }
}
