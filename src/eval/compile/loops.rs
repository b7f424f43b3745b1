//! Fused accumulation loops: `s = s + E1 + E2 ...` in the body of a loop over a compact type
//! (`for i in ..[T]`) or over an array's elements (`for v in a`, and `fold_left` with an
//! inlined function, which the inliner turns into that loop). The terms are computed a
//! chunk at a time by kernels (`vector.rs`) and added in order with the same checks, so the
//! result is bit-identical and a fault is reported exactly where the element-by-element loop
//! reports it.

use crate::core::ir::{ArithOp, Expr, ExprKind, Place, Prim, Stmt};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::error::{interrupted, runtime_error, INTERNAL};
use super::super::prims::{float_arith, int_arith, round_float};
use super::super::value::{Buffer, LeafRepr, Value};
use super::super::vector::{self, is_int_like, Input, Kernel, KernelFn, VecScope};
use super::super::{Ctrl, Frame};
use super::{assign, peel, read_place, write_int, Compiler, ExprCode, StmtCode};

/// Where the loop variable's values come from.
pub(super) enum Elements {
    /// The codes `0 .. n` of a compact type.
    Counter(u64),
    /// The elements of an unboxed array of scalars (`I64` or `F64` leaves).
    Array(ExprCode, LeafRepr),
}

/// The addition that accumulates: integer of a width, or floating (`float` when `single`).
#[derive(Clone, Copy)]
enum Sum {
    Int(IntTy),
    Float(bool),
}

/// The term kernels of one accumulation, by the representation they produce.
enum Terms {
    Int(Vec<(Box<KernelFn<i64>>, Span)>),
    Float(Vec<(Box<KernelFn<f64>>, Span)>),
}

fn reads(e: &Expr, place: Place) -> bool {
    match peel(e).kind {
        ExprKind::Local(s) => Place::Local(s) == place,
        ExprKind::Global(s) => Place::Global(s) == place,
        _ => false,
    }
}

/// Unfold `((s + e1) + e2) + ...` into its terms, first term first, and the addition.
fn unfold(value: &Expr, target: Place) -> Option<(Vec<(&Expr, Span)>, Sum)> {
    let mut terms: Vec<(&Expr, Span)> = Vec::new();
    let mut current = peel(value);
    let sum = loop {
        let (sum, args) = match &current.kind {
            ExprKind::Prim(Prim::IntArith(ArithOp::Add, ity), args) => (Sum::Int(*ity), args),
            ExprKind::Prim(Prim::FloatArith(ArithOp::Add, single), args) => {
                (Sum::Float(*single), args)
            }
            _ => return None,
        };
        let [left, right] = args.as_slice() else {
            return None;
        };
        terms.push((right, current.span));
        if reads(left, target) {
            break sum;
        }
        current = peel(left);
    };
    terms.reverse();
    Some((terms, sum))
}

impl Compiler<'_> {
    /// A loop whose body is `s = s + E1 + ...` with terms that are straight-line scalar
    /// expressions of the loop variable and loop-invariant variables: compiled to chunk
    /// kernels for the terms and an in-order accumulation. `None` for any other shape.
    pub(super) fn accumulate_loop(
        &mut self,
        var: Place,
        var_ty: &Type,
        elements: impl FnOnce(&mut Self) -> Option<Elements>,
        body: &[Stmt],
    ) -> Option<StmtCode> {
        let [Stmt::Assign(target, value)] = body else {
            return None;
        };
        let target = *target;
        if target == var
            || !matches!(target, Place::Local(_) | Place::Global(_))
            || !matches!(var, Place::Local(_) | Place::Global(_))
        {
            return None;
        }
        let (terms, sum) = unfold(value, target)?;
        let mut scope = VecScope::new(var, Some(target), true);
        let terms = match sum {
            Sum::Int(_) => {
                let mut kernels = Vec::with_capacity(terms.len());
                for (term, span) in &terms {
                    match vector::kernel(term, &mut scope)? {
                        Kernel::Int(k) => kernels.push((k, *span)),
                        Kernel::Float(_) => return None,
                    }
                }
                Terms::Int(kernels)
            }
            Sum::Float(_) => {
                let mut kernels = Vec::with_capacity(terms.len());
                for (term, span) in &terms {
                    match vector::kernel(term, &mut scope)? {
                        Kernel::Float(k) => kernels.push((k, *span)),
                        Kernel::Int(_) => return None,
                    }
                }
                Terms::Float(kernels)
            }
        };
        let elements = elements(self)?;
        if let Elements::Array(_, repr) = &elements {
            let fits = match repr {
                LeafRepr::I64 => is_int_like(var_ty),
                LeafRepr::F64 => matches!(var_ty, Type::Double | Type::Float),
                LeafRepr::Boxed => false,
            };
            if !fits {
                return None;
            }
        }
        self.note_place(target);
        self.note_place(var);
        for p in &scope.env {
            self.note_place(*p);
        }
        let env_places = scope.env;
        let span = match &terms {
            Terms::Int(k) => k.first().map(|(_, s)| *s),
            Terms::Float(k) => k.first().map(|(_, s)| *s),
        }
        .unwrap_or_default();
        Some(Box::new(move |frame| {
            let env: Vec<Value> = env_places.iter().map(|p| read_place(frame, *p)).collect();
            match &elements {
                Elements::Counter(n) => {
                    let n = *n;
                    let mut state = Accumulator::start(frame, target, sum, &terms);
                    let mut base: u64 = 0;
                    while base < n {
                        let len = (n - base).min(vector::CHUNK as u64) as usize;
                        if let Err((k, fault)) =
                            state.chunk(base as i64, Input::Counter, len, &env, span)
                        {
                            state.finish(frame, target);
                            write_int(frame, var, (base + k as u64) as i64);
                            return Err(fault);
                        }
                        base += len as u64;
                    }
                    state.finish(frame, target);
                    if n > 0 {
                        write_int(frame, var, (n - 1) as i64);
                    }
                    Ok(())
                }
                Elements::Array(array, _) => {
                    let Value::Array(view) = array(frame)? else {
                        return Ok(());
                    };
                    let mut state = Accumulator::start(frame, target, sum, &terms);
                    let mut base = 0usize;
                    while base < view.len {
                        let len = (view.len - base).min(vector::CHUNK);
                        let range = view.start + base..view.start + base + len;
                        let input = match &*view.buf {
                            Buffer::I64(values) => Input::I64(&values[range]),
                            Buffer::F64(values) => Input::F64(&values[range]),
                            Buffer::Boxed(_) => {
                                return Err(runtime_error(
                                    INTERNAL,
                                    "accumulation over boxed leaves",
                                    span,
                                ))
                            }
                        };
                        if let Err((k, fault)) = state.chunk(0, input, len, &env, span) {
                            state.finish(frame, target);
                            assign(frame, var, view.leaf(base + k));
                            return Err(fault);
                        }
                        base += len;
                    }
                    state.finish(frame, target);
                    if view.len > 0 {
                        assign(frame, var, view.leaf(view.len - 1));
                    }
                    Ok(())
                }
            }
        }))
    }
}

/// The running sum and the chunk buffers of one run of an accumulation loop.
struct Accumulator<'t> {
    terms: &'t Terms,
    sum: Sum,
    int: i64,
    float: f64,
    ints: Vec<Vec<i64>>,
    floats: Vec<Vec<f64>>,
}

impl<'t> Accumulator<'t> {
    fn start(frame: &Frame<'_, '_>, target: Place, sum: Sum, terms: &'t Terms) -> Self {
        let current = read_place(frame, target);
        let (ints, floats) = match terms {
            Terms::Int(k) => (vec![vec![0i64; vector::CHUNK]; k.len()], Vec::new()),
            Terms::Float(k) => (Vec::new(), vec![vec![0f64; vector::CHUNK]; k.len()]),
        };
        Accumulator {
            terms,
            sum,
            int: current.as_int_lossy(),
            float: current.as_float_lossy(),
            ints,
            floats,
        }
    }

    /// Store the sum into the target.
    fn finish(&self, frame: &mut Frame<'_, '_>, target: Place) {
        match self.sum {
            Sum::Int(_) => write_int(frame, target, self.int),
            Sum::Float(_) => assign(frame, target, Value::Float(self.float)),
        }
    }

    /// Add the terms of `len` elements; on a fault, the sum holds the additions before it.
    fn chunk(
        &mut self,
        base: i64,
        input: Input<'_>,
        len: usize,
        env: &[Value],
        span: Span,
    ) -> Result<(), (usize, Ctrl)> {
        if crate::interrupt::requested() {
            return Err((0, interrupted(span)));
        }
        let chunk = vector::Chunk {
            base,
            input,
            env,
            lets: &[],
        };
        match (self.terms, self.sum) {
            (Terms::Int(kernels), Sum::Int(ity)) => {
                let (valid, pending) = run_terms(kernels, &chunk, &mut self.ints, len);
                let add = |acc: i64, x: i64, span: Span| match acc
                    .checked_add(x)
                    .filter(|_| ity.bits() == 64 && ity.signed())
                {
                    Some(r) => Ok(r),
                    None => int_arith(ArithOp::Add, ity, acc, x).map_err(|f| f.at(span)),
                };
                accumulate(&mut self.int, kernels, &self.ints, valid, pending, add)
            }
            (Terms::Float(kernels), Sum::Float(single)) => {
                let (valid, pending) = run_terms(kernels, &chunk, &mut self.floats, len);
                let add = |acc: f64, x: f64, _: Span| {
                    Ok(round_float(float_arith(ArithOp::Add, acc, x), single))
                };
                accumulate(&mut self.float, kernels, &self.floats, valid, pending, add)
            }
            _ => Err((
                0,
                runtime_error(INTERNAL, "accumulation of mixed kinds", span),
            )),
        }
    }
}

/// Run each term's kernel on the prefix before the earliest fault so far: the valid length
/// and the fault (position, term, fault) that ended it.
fn run_terms<T>(
    kernels: &[(Box<KernelFn<T>>, Span)],
    chunk: &vector::Chunk<'_>,
    buffers: &mut [Vec<T>],
    len: usize,
) -> (usize, Option<(usize, usize, Ctrl)>) {
    let mut valid = len;
    let mut pending = None;
    for (t, (kernel, _)) in kernels.iter().enumerate() {
        if let Err((k, fault)) = kernel(chunk, &mut buffers[t][..valid]) {
            valid = k;
            pending = Some((k, t, fault));
        }
    }
    (valid, pending)
}

/// Add the computed terms in element order; at the element where a term faulted, the terms
/// before it are added first, then its fault is reported.
fn accumulate<T: Copy>(
    acc: &mut T,
    kernels: &[(Box<KernelFn<T>>, Span)],
    buffers: &[Vec<T>],
    valid: usize,
    pending: Option<(usize, usize, Ctrl)>,
    add: impl Fn(T, T, Span) -> Result<T, Ctrl>,
) -> Result<(), (usize, Ctrl)> {
    if let [(_, span)] = kernels {
        for (k, x) in buffers[0][..valid].iter().enumerate() {
            *acc = add(*acc, *x, *span).map_err(|f| (k, f))?;
        }
    } else {
        for k in 0..valid {
            for (t, (_, span)) in kernels.iter().enumerate() {
                *acc = add(*acc, buffers[t][k], *span).map_err(|f| (k, f))?;
            }
        }
    }
    if let Some((k, failing_term, fault)) = pending {
        for (t, (_, span)) in kernels.iter().enumerate().take(failing_term) {
            *acc = add(*acc, buffers[t][k], *span).map_err(|f| (k, f))?;
        }
        return Err((k, fault));
    }
    Ok(())
}
