//! Compiling what the inliner (`core/inline.rs`) made: bodies inlined at their call sites
//! (`ExprKind::Inlined`) and `map` with an inlined function (`ExprKind::MapLoop`).

use crate::core::inline::has_return;
use crate::core::ir::{Expr, Inlined, InlinedFrame, Place, Slot};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::{LeafBuilder, Shape};
use super::super::code::ScalarCode;
use super::super::error::{note_frame, runtime_error, INTERNAL};
use super::super::parallel::map_kernel;
use super::super::value::{ArrayVal, Buffer, LeafRepr, Value};
use super::super::vector::{self, is_int_like, Kernel, VecScope};
use super::super::{Ctrl, Frame};
use super::{internal, read_place, Compiler, ExprCode, IntCode};

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
        builder.push_element(apply(frame, input.element(view, i))?);
    }
    Ok(Value::Array(builder.finish()))
}

/// The chunk kernel of `map` over an array of `input` into one of `output` (`var` the
/// element, `body` the inlined function), with the places it reads: a straight-line scalar
/// body over unboxed leaves; over `PARALLEL_THRESHOLD` elements it runs on rayon.
fn map_chunk_kernel(
    var: Slot,
    array: &Expr,
    body: &Expr,
    input: &Shape,
    output: &Shape,
) -> Option<(Kernel, VecScope)> {
    if input.elem_is_array || output.elem_is_array {
        return None;
    }
    let Type::Array(elem, _) = &array.ty else {
        return None;
    };
    let input_fits = match input.repr {
        LeafRepr::Scalar(kind) if kind.is_float() => matches!(**elem, Type::Double | Type::Float),
        LeafRepr::Scalar(_) => is_int_like(elem),
        LeafRepr::Boxed | LeafRepr::Columns(_) => false,
    };
    if !input_fits {
        return None;
    }
    let mut scope = VecScope::new(Place::Local(var), None, true);
    let kernel = vector::kernel(body, &mut scope)?;
    let output_fits = match (&kernel, output.repr) {
        (Kernel::Int(_), LeafRepr::Scalar(kind)) => !kind.is_float(),
        (Kernel::Float(_), LeafRepr::Scalar(kind)) => kind.is_float(),
        _ => false,
    };
    output_fits.then_some((kernel, scope))
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

    /// `map` with its function inlined: one chunk kernel over the elements (in parallel for
    /// long arrays) when the body is a straight-line scalar expression of the element
    /// and loop-invariant variables; otherwise the body evaluated per element with the
    /// element in slot `var`.
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
        if let Some(code) = self.map_kernel_loop(var, array, body, &input, &output, span) {
            return code;
        }
        if let Some(code) = self.column_map(var, array, body, (&input, &output, ty), span) {
            return code;
        }
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

    fn map_kernel_loop(
        &mut self,
        var: Slot,
        array: &Expr,
        body: &Expr,
        input: &Shape,
        output: &Shape,
        span: Span,
    ) -> Option<ExprCode> {
        let (kernel, scope) = map_chunk_kernel(var, array, body, input, output)?;
        for p in &scope.env {
            self.note_place(*p);
        }
        let env_places = scope.env;
        let out_repr = output.repr;
        let array = super::admitting_copy(self.expr(array), span);
        let var = var as usize;
        Some(Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            let env: Vec<Value> = env_places.iter().map(|p| read_place(frame, *p)).collect();
            let (Buffer::Scalars(elements), LeafRepr::Scalar(out)) = (&*view.buf, out_repr) else {
                return Err(runtime_error(
                    INTERNAL,
                    "map kernel over boxed leaves",
                    span,
                ));
            };
            match map_kernel(&kernel, view.len, (elements, view.start), &env, out, span) {
                Ok(values) => Ok(Value::Array(ArrayVal::new(Buffer::Scalars(values)))),
                Err((k, fault)) => {
                    // The element variable holds the faulting element, as after a loop.
                    frame.slots[var] = view.leaf(k);
                    Err(fault)
                }
            }
        }))
    }
}
