//! Compiling what the inliner (`core/inline.rs`) made: bodies inlined at their call sites
//! (`ExprKind::Inlined`) and `map` and `filter` with an inlined function (`ExprKind::MapLoop`).

use crate::core::inline::has_return;
use crate::core::ir::{Expr, Inlined, InlinedFrame, Slot};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::{LeafBuilder, Shape};
use super::super::code::ScalarCode;
use super::super::error::note_frame;
use super::super::value::{ArrayVal, Value};
use super::super::{Ctrl, Frame};
use super::{internal, Compiler, ExprCode, IntCode};

/// Code of an inlined body with the body's function noted in the call stack of a runtime
/// error raised inside it (as a call of the function would).
pub fn framed<T: 'static>(code: ScalarCode<T>, inlined: &Inlined) -> ScalarCode<T> {
    match &inlined.frame {
        None => code,
        Some(InlinedFrame { name, unit }) => {
            let (name, unit, call) = (name.clone(), *unit, inlined.call);
            Box::new(move |frame| code(frame).map_err(|e| note_frame(e, &name, unit, call)))
        }
    }
}

/// The array of `apply(element)` for each element of `view`, built boxed (`input`, `output`:
/// the shapes of the array and the result, `result_ty` the result's type, for the size check).
/// Ctrl-C is polled every `POLL_INTERVAL` elements and reported at `span`.
pub(super) fn map_elements(
    frame: &mut Frame<'_, '_>,
    view: &ArrayVal,
    (input, output, result_ty): (&Shape, &Shape, &Type),
    span: Span,
    mut apply: impl FnMut(&mut Frame<'_, '_>, Value) -> Result<Value, Ctrl>,
) -> Result<Value, Ctrl> {
    let n = input.len_of(view);
    let mut builder = LeafBuilder::new(output.repr);
    builder
        .reserve(
            n.saturating_mul(output.elem_leaves),
            result_ty,
            &frame.rt.limits,
        )
        .map_err(|f| f.at(span))?;
    for i in 0..n {
        if i % crate::interrupt::POLL_INTERVAL == 0 {
            crate::eval::error::poll_interrupt().map_err(|f| f.at(span))?;
        }
        builder.push_element(apply(frame, input.element(view, i))?);
    }
    Ok(Value::Array(builder.finish()))
}

/// The array of the elements of `view` (of shape `input`) for which `keep(element)` holds,
/// in order. Ctrl-C is polled every `POLL_INTERVAL` elements and reported at `span`.
pub(super) fn filter_elements(
    frame: &mut Frame<'_, '_>,
    view: &ArrayVal,
    input: &Shape,
    span: Span,
    mut keep: impl FnMut(&mut Frame<'_, '_>, &Value) -> Result<bool, Ctrl>,
) -> Result<ArrayVal, Ctrl> {
    let mut kept = LeafBuilder::new(input.repr);
    for i in 0..input.len_of(view) {
        if i % crate::interrupt::POLL_INTERVAL == 0 {
            crate::eval::error::poll_interrupt().map_err(|f| f.at(span))?;
        }
        let element = input.element(view, i);
        if keep(frame, &element)? {
            kept.push_element(element);
        }
    }
    Ok(kept.finish())
}

impl Compiler<'_> {
    /// An inlined body: its statements in this frame, then its value (a `return` among the
    /// statements gives the value, as it would from the function).
    pub(super) fn inlined(&mut self, inlined: &Inlined) -> ExprCode {
        let code = self.inlined_unframed(inlined);
        framed(code, inlined)
    }

    fn inlined_unframed(&mut self, inlined: &Inlined) -> ExprCode {
        let result = inlined.result.as_ref().map(|r| self.expr(r));
        if inlined.stmts.is_empty() {
            return result.unwrap_or_else(|| Box::new(|_| Ok(Value::Unit)));
        }
        let catches = has_return(&inlined.stmts);
        let stmts = self.block(&inlined.stmts);
        match (result, catches) {
            (Some(result), false) => Box::new(move |frame| {
                stmts(frame)?;
                result(frame)
            }),
            (Some(result), true) => Box::new(move |frame| match stmts(frame) {
                Ok(()) => result(frame),
                Err(Ctrl::Return) => Ok(frame.rt.take_returned()),
                Err(other) => Err(other),
            }),
            (None, _) => Box::new(move |frame| match stmts(frame) {
                Ok(()) | Err(Ctrl::Break(_) | Ctrl::Continue(_)) => Ok(Value::Unit),
                Err(Ctrl::Return) => Ok(frame.rt.take_returned()),
                Err(other) => Err(other),
            }),
        }
    }

    /// An inlined body of integer type as unboxed code, when its value is an expression.
    pub(super) fn inlined_int(&mut self, inlined: &Inlined) -> Option<IntCode> {
        let result = inlined.result.as_ref()?;
        if inlined.stmts.is_empty() {
            return Some(framed(self.int_code(result), inlined));
        }
        if has_return(&inlined.stmts) {
            return None;
        }
        let stmts = self.block(&inlined.stmts);
        let result = self.int_code(result);
        let code: IntCode = Box::new(move |frame| {
            stmts(frame)?;
            result(frame)
        });
        Some(framed(code, inlined))
    }

    /// `map` with its function inlined: the body evaluated per element with the element in
    /// slot `var`.
    pub(super) fn map_loop(
        &mut self,
        var: Slot,
        array: &Expr,
        body: &Expr,
        ty: &Type,
        span: Span,
    ) -> ExprCode {
        self.note_slot(var);
        let (Some(input), Some(output)) = (
            Shape::of_array_or_unit(&array.ty),
            Shape::of_array_or_unit(ty),
        ) else {
            return internal("map over a value that is not an array", span);
        };
        let array = self.expr(array);
        let body = self.expr(body);
        let result_ty = ty.clone();
        let var = var as usize;
        Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            let shapes = (&input, &output, &result_ty);
            map_elements(frame, &view, shapes, span, |frame, element| {
                frame.slots[var] = element;
                body(frame)
            })
        })
    }

    /// `filter` with its predicate inlined (a `MapLoop` that filters): the elements of
    /// `array` for which `body` holds with `var` bound to the element.
    pub(super) fn filter_loop(
        &mut self,
        var: Slot,
        array: &Expr,
        body: &Expr,
        span: Span,
    ) -> ExprCode {
        self.note_slot(var);
        let Some(input) = Shape::of_array_or_unit(&array.ty) else {
            return internal("filter over a value that is not an array", span);
        };
        let array = self.expr(array);
        let body = self.expr(body);
        let var = var as usize;
        Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            filter_elements(frame, &view, &input, span, |frame, element| {
                frame.slots[var] = element.clone();
                Ok(body(frame)?.as_int_lossy() != 0)
            })
            .map(Value::Array)
        })
    }
}
