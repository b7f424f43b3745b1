//! Statements and control flow: blocks, assignments, branches, the loops (a counting loop
//! over signed integers runs in native integers, its variable and limit read by kind),
//! `break`, `continue` and `return`.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use crate::core::ir::{ArithOp, Expr, ExprKind, LabelId, Place, Prim, RangeKind, Stmt};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::Shape;
use super::super::code::{IntCode, StmtCode};
use super::super::compact::is_int_like;
use super::super::compact::{size_big, value_from_big, value_from_u64, CodeRepr};
use super::super::error::{interrupted, runtime_error, OVERFLOW};
use super::super::prims::{int_arith, int_from_i128, int_value, is_unsigned_64};
use super::super::value::Value;
use super::super::{Ctrl, Frame};
use super::operands::{with_int_operands, ConstRead, IntOperand, IntRead};
use super::pattern::{no_match, select_arm, CompiledArm};
use super::{
    assign, float, int_ty_of, internal, read_int, read_place, store_int, write_int, Compiler,
};

/// What a loop does after one run of its body.
pub(super) enum Flow {
    Next,
    Exit,
}

/// The loop back-edge: also where Ctrl-C is noticed (R0012 at `span`, the loop's header).
#[inline]
pub(super) fn after_body(
    result: Result<(), Ctrl>,
    label: LabelId,
    span: Span,
) -> Result<Flow, Ctrl> {
    if crate::interrupt::requested() {
        return Err(interrupted(span));
    }
    match result {
        Ok(()) => Ok(Flow::Next),
        Err(Ctrl::Break(l)) if l == label => Ok(Flow::Exit),
        Err(Ctrl::Continue(l)) if l == label => Ok(Flow::Next),
        Err(other) => Err(other),
    }
}

impl Compiler<'_> {
    /// A loop's body: its statements run by the loop's own closure (no closure call for the
    /// block itself on every iteration).
    fn loop_body(&mut self, stmts: &[Stmt]) -> Block {
        let mut codes: Vec<StmtCode> = stmts.iter().map(|s| self.stmt(s)).collect();
        match codes.len() {
            1 => Block::One(codes.pop().expect("one statement")),
            _ => Block::Many(codes),
        }
    }

    /// A statement list run in order.
    pub fn block(&mut self, stmts: &[Stmt]) -> StmtCode {
        let mut codes: Vec<StmtCode> = stmts.iter().map(|s| self.stmt(s)).collect();
        match codes.len() {
            0 => Box::new(|_| Ok(())),
            1 => codes.pop().expect("one statement"),
            _ => Box::new(move |frame| {
                for code in &codes {
                    code(frame)?;
                }
                Ok(())
            }),
        }
    }

    pub fn stmt(&mut self, stmt: &Stmt) -> StmtCode {
        // A loop's variable has its value in the loop's body, even when it is a global first
        // assigned by the loop (no R0011 check needed on its reads there).
        let loop_var = match stmt {
            Stmt::ForRange { var, .. }
            | Stmt::ForCodes { var, .. }
            | Stmt::ForArray { var, .. } => Some(*var),
            _ => None,
        };
        let newly_defined = match loop_var {
            Some(Place::Global(s)) => self.defined.insert(s).then_some(s),
            _ => None,
        };
        let code = self.stmt_code(stmt);
        if let Some(s) = newly_defined {
            self.defined.remove(&s);
        }
        code
    }

    fn stmt_code(&mut self, stmt: &Stmt) -> StmtCode {
        match stmt {
            Stmt::Expr(e) => {
                let code = self.expr(e);
                Box::new(move |frame| code(frame).map(|_| ()))
            }
            Stmt::Assign(place, e) if is_int_like(&e.ty) => {
                let place = *place;
                self.note_place(place);
                if let ExprKind::Prim(Prim::IntArith(op, ity), args) = &e.kind {
                    if args.len() == 2 && matches!(place, Place::Local(_) | Place::Global(_)) {
                        // One closure for `x = a op b`: the operation and the store fused.
                        let a = self.int_operand(&args[0]);
                        let b = self.int_operand(&args[1]);
                        let (op, ity, span) = (*op, *ity, e.span);
                        return with_int_operands!(
                            a,
                            b,
                            |x, y| crate::eval::prims::with_fast_int_op!(
                                op,
                                ity,
                                assign_int_binary(place, x, y, op, ity, span)
                            )
                        );
                    }
                }
                let code = self.int_code(e);
                match place {
                    Place::Local(s) => Box::new(move |frame| {
                        let value = code(frame)?;
                        store_int(&mut frame.slots[s as usize], value);
                        Ok(())
                    }),
                    Place::Global(s) => Box::new(move |frame| {
                        let value = code(frame)?;
                        frame.rt.globals.set_int(s as usize, value);
                        Ok(())
                    }),
                    _ => Box::new(move |frame| {
                        let value = code(frame)?;
                        write_int(frame, place, value);
                        Ok(())
                    }),
                }
            }
            Stmt::Assign(place, e) if float::is_float(&e.ty) => self.assign_float(*place, e),
            Stmt::Assign(place, e) => {
                if let Some(code) = self.string_append(*place, e) {
                    return code;
                }
                let place = *place;
                self.note_place(place);
                let code = self.expr(e);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    assign(frame, place, value);
                    Ok(())
                })
            }
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => self.store(*place, root_ty, path, value),
            Stmt::StoreAt { pointer, value } => self.store_at(pointer, value),
            Stmt::If(c, then_branch, else_branch) => {
                let cond = self.condition(c);
                let then_code = self.block(then_branch);
                let else_code = self.block(else_branch);
                Box::new(move |frame| {
                    if cond.eval(frame)? {
                        then_code(frame)
                    } else {
                        else_code(frame)
                    }
                })
            }
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => {
                let (label, until) = (*label, *until);
                let span = cond.span;
                let cond = self.condition(cond);
                let body = self.loop_body(body);
                Box::new(move |frame| {
                    while cond.eval(frame)? != until {
                        if let Flow::Exit = after_body(body.run(frame), label, span)? {
                            break;
                        }
                    }
                    Ok(())
                })
            }
            Stmt::Loop { label, body } => {
                let label = *label;
                let body = self.loop_body(body);
                Box::new(move |frame| loop {
                    if let Flow::Exit = after_body(body.run(frame), label, Span::default())? {
                        return Ok(());
                    }
                })
            }
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => self.for_range(*label, *var, *var_ty, from, to, *kind, body),
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => self.for_codes(*label, *var, ty, body),
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => {
                let (label, var) = (*label, *var);
                self.note_place(var);
                let Some(shape) = Shape::of_array_or_unit(&array.ty) else {
                    let error = internal("for over a value that is not an array", array.span);
                    return Box::new(move |frame| error(frame).map(|_| ()));
                };
                let span = array.span;
                if let Some(code) = self.column_loop(label, var, array, body) {
                    return code;
                }
                let array = self.expr(array);
                let body = self.block(body);
                Box::new(move |frame| {
                    let Value::Array(view) = array(frame)? else {
                        return Ok(());
                    };
                    for i in 0..shape.len_of(&view) {
                        assign(frame, var, shape.element(&view, i));
                        if let Flow::Exit = after_body(body(frame), label, span)? {
                            break;
                        }
                    }
                    Ok(())
                })
            }
            Stmt::Break(label) => {
                let label = *label;
                Box::new(move |_| Err(Ctrl::Break(label)))
            }
            Stmt::Continue(label) => {
                let label = *label;
                Box::new(move |_| Err(Ctrl::Continue(label)))
            }
            Stmt::Return(None) => Box::new(|frame| Err(frame.rt.give_return(Value::Unit))),
            Stmt::Return(Some(e)) => {
                let code = self.expr(e);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    Err(frame.rt.give_return(value))
                })
            }
            Stmt::Match(scrutinee, arms) => {
                let span = scrutinee.span;
                let ty = scrutinee.ty.clone();
                let scrutinee = self.expr(scrutinee);
                let arms: Vec<CompiledArm<StmtCode>> = arms
                    .iter()
                    .map(|arm| self.arm(arm, |c, b| c.block(b)))
                    .collect();
                Box::new(move |frame| {
                    let value = scrutinee(frame)?;
                    match select_arm(frame, &arms, &value)? {
                        Some(body) => body(frame),
                        None => Err(no_match(&value, &ty, span)),
                    }
                })
            }
            Stmt::Block(stmts) => self.block(stmts),
            Stmt::Specialise { sizes, body, span } => self.specialise(sizes, body, *span),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_range(
        &mut self,
        label: LabelId,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) -> StmtCode {
        self.counting_loop(label, var, var_ty, from, to, kind, body)
    }

    /// A numeric loop as written: `to` re-evaluated at every test.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn counting_loop(
        &mut self,
        label: LabelId,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) -> StmtCode {
        self.note_place(var);
        let limit_ity = int_ty_of(&to.ty);
        let span = to.span;
        let from = self.int_code(from);
        if kind == RangeKind::Exclusive && !is_unsigned_64(var_ty) && !is_unsigned_64(limit_ity) {
            // The common counting loop, in native integers: both the variable and the limit
            // are their own i64 values.
            let to = self.int_operand(to);
            let body = self.loop_body(body);
            let last = var_ty.max() as i64;
            let looping = CountingLoop {
                label,
                var_ty,
                last,
                span,
            };
            return match (var, to) {
                (Place::Local(s), IntOperand::Const(limit)) => {
                    looping.build(LocalVar(s as usize), from, ConstRead(limit), body)
                }
                (Place::Global(s), IntOperand::Const(limit)) => {
                    looping.build(GlobalVar(s as usize), from, ConstRead(limit), body)
                }
                (Place::Local(s), to) => looping.build(LocalVar(s as usize), from, to, body),
                (Place::Global(s), to) => looping.build(GlobalVar(s as usize), from, to, body),
                (var, to) => looping.build(PlaceVar(var), from, to, body),
            };
        }
        let to = self.int_code(to);
        let body = self.block(body);
        let current = move |frame: &Frame<'_, '_>| -> i128 {
            let raw = match var {
                Place::Local(s) => frame.slots[s as usize].as_int_lossy(),
                _ => read_place(frame, var).as_int_lossy(),
            };
            int_value(raw, var_ty)
        };
        let step = move |frame: &mut Frame<'_, '_>, value: i128| -> Result<(), Ctrl> {
            let stored = int_from_i128(value, var_ty).ok_or_else(|| {
                runtime_error(
                    OVERFLOW,
                    format!(
                        "{} overflow: loop variable stepped to {value}",
                        var_ty.name()
                    ),
                    span,
                )
            })?;
            match var {
                Place::Local(s) => frame.slots[s as usize] = Value::Int(stored),
                _ => assign(frame, var, Value::Int(stored)),
            }
            Ok(())
        };
        Box::new(move |frame| {
            let start = from(frame)?;
            assign(frame, var, Value::Int(start));
            loop {
                let limit = int_value(to(frame)?, limit_ity);
                let i = current(frame);
                let enter = match kind {
                    RangeKind::Exclusive => i < limit,
                    RangeKind::Inclusive => i <= limit,
                    RangeKind::Downto => i >= limit,
                };
                if !enter {
                    return Ok(());
                }
                if let Flow::Exit = after_body(body(frame), label, span)? {
                    return Ok(());
                }
                let i = current(frame);
                match kind {
                    RangeKind::Exclusive => step(frame, i + 1)?,
                    RangeKind::Inclusive => {
                        let limit = int_value(to(frame)?, limit_ity);
                        if i >= limit {
                            return Ok(());
                        }
                        step(frame, i + 1)?
                    }
                    RangeKind::Downto => {
                        let limit = int_value(to(frame)?, limit_ity);
                        if i <= limit {
                            return Ok(());
                        }
                        step(frame, i - 1)?
                    }
                }
            }
        })
    }

    fn for_codes(&mut self, label: LabelId, var: Place, ty: &Type, body: &[Stmt]) -> StmtCode {
        self.note_place(var);
        let repr = CodeRepr::of(ty);
        let size = size_big(ty);
        let body = self.block(body);
        let span = Span::default();
        match size.to_u128() {
            Some(n) if repr != CodeRepr::Big => Box::new(move |frame| {
                let mut code: u128 = 0;
                while code < n {
                    assign(frame, var, value_from_u64(code as u64, repr));
                    if let Flow::Exit = after_body(body(frame), label, span)? {
                        break;
                    }
                    code += 1;
                }
                Ok(())
            }),
            _ => Box::new(move |frame| {
                let mut code = BigUint::zero();
                while code < size {
                    assign(frame, var, value_from_big(code.clone(), repr));
                    if let Flow::Exit = after_body(body(frame), label, span)? {
                        break;
                    }
                    code += 1u32;
                }
                Ok(())
            }),
        }
    }
}

/// The statements of a loop's body.
pub enum Block {
    One(StmtCode),
    Many(Vec<StmtCode>),
}

impl Block {
    #[inline(always)]
    fn run(&self, frame: &mut Frame<'_, '_>) -> Result<(), Ctrl> {
        match self {
            Block::One(code) => code(frame),
            Block::Many(codes) => {
                for code in codes {
                    code(frame)?;
                }
                Ok(())
            }
        }
    }
}

/// The integer variable of a counting loop, accessed by its kind.
trait LoopVar: Copy + Send + Sync + 'static {
    fn get(self, frame: &Frame<'_, '_>) -> i64;
    fn set(self, frame: &mut Frame<'_, '_>, value: i64);
}

/// A plain local loop variable.
#[derive(Clone, Copy)]
struct LocalVar(usize);

/// A global loop variable (a top-level loop).
#[derive(Clone, Copy)]
struct GlobalVar(usize);

/// Any other variable.
#[derive(Clone, Copy)]
struct PlaceVar(Place);

impl LoopVar for LocalVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        frame.slots[self.0].as_int_lossy()
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        store_int(&mut frame.slots[self.0], value)
    }
}

impl LoopVar for GlobalVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        frame.rt.globals.get_int(self.0)
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        frame.rt.globals.set_int(self.0, value)
    }
}

impl LoopVar for PlaceVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        read_int(frame, self.0)
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        write_int(frame, self.0, value)
    }
}

/// The counting loop `for i in a ..< b` over signed (or narrow) integers, in native integers:
/// the limit is re-read before every iteration and the variable after the body (the body may
/// assign it), as in the general loop.
struct CountingLoop {
    label: LabelId,
    var_ty: IntTy,
    /// The largest value of the variable's type: stepping past it is an overflow.
    last: i64,
    span: Span,
}

impl CountingLoop {
    fn build<V: LoopVar, T: IntRead>(self, var: V, from: IntCode, to: T, body: Block) -> StmtCode {
        let CountingLoop {
            label,
            var_ty,
            last,
            span,
        } = self;
        Box::new(move |frame| {
            let start = from(frame)?;
            var.set(frame, start);
            loop {
                let limit = to.read(frame)?;
                if var.get(frame) >= limit {
                    return Ok(());
                }
                if let Flow::Exit = after_body(body.run(frame), label, span)? {
                    return Ok(());
                }
                let i = var.get(frame);
                if i >= last {
                    return Err(runtime_error(
                        OVERFLOW,
                        format!(
                            "{} overflow: loop variable stepped to {}",
                            var_ty.name(),
                            i as i128 + 1
                        ),
                        span,
                    ));
                }
                var.set(frame, i + 1);
            }
        })
    }
}

/// `place = a op b` on integers as one closure (`place` is a plain local or a global).
fn assign_int_binary<A: IntRead, B: IntRead, F>(
    place: Place,
    a: A,
    b: B,
    op: ArithOp,
    ity: IntTy,
    span: Span,
    fast: F,
) -> StmtCode
where
    F: Fn(i64, i64) -> Option<i64> + Send + Sync + 'static,
{
    let compute = move |frame: &mut Frame<'_, '_>| -> Result<i64, Ctrl> {
        let x = a.read(frame)?;
        let y = b.read(frame)?;
        match fast(x, y) {
            Some(r) => Ok(r),
            None => int_arith(op, ity, x, y).map_err(|f| f.at(span)),
        }
    };
    match place {
        Place::Local(s) => Box::new(move |frame| {
            let value = compute(frame)?;
            store_int(&mut frame.slots[s as usize], value);
            Ok(())
        }),
        Place::Global(s) => Box::new(move |frame| {
            let value = compute(frame)?;
            frame.rt.globals.set_int(s as usize, value);
            Ok(())
        }),
        _ => Box::new(move |frame| {
            let value = compute(frame)?;
            write_int(frame, place, value);
            Ok(())
        }),
    }
}
