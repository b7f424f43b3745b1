//! Fused loops. Stores: `for i in ..[T] do &a.i <- E; done` and `for i in a ..< b do &a.i <- E;
//! done` fill the array a chunk at a time (over `PARALLEL_THRESHOLD` positions with more than
//! one thread, the blocks before the first block where `E` would fault are filled on rayon
//! workers, `FusedStore::parallel_prefix`). Accumulation: `s = s + E1 + E2 ...` in the body of a loop over a compact type
//! (`for i in ..[T]`) or over an array's elements (`for v in a`, and `fold_left` with an
//! inlined function, which the inliner turns into that loop). The terms are computed a
//! chunk at a time by kernels (`vector.rs`) and added in order with the same checks, so the
//! result is bit-identical and a fault is reported exactly where the element-by-element loop
//! reports it. An integer accumulation over at least `PARALLEL_THRESHOLD` elements with more
//! than one thread is split over rayon (`Run::split`): blocks summed exactly on the
//! workers, combined in order, the block where the loop stops replayed in order.

use std::sync::Arc;

use crate::core::ir::{
    ArithOp, Expr, ExprKind, GlobalDef, IndexMode, InlinedFrame, PathStep, Place, Prim, Stmt,
};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::{make_unique, Shape};
use super::super::error::{interrupted, note_frame, runtime_error, INTERNAL};
use super::super::parallel::{self, Block, BlockSum, Replay};
use super::super::prims::{float_arith, int_arith, int_from_i128, int_value, round_float};
use super::super::value::{Buffer, ColumnLayout, LeafRepr, Value};
use super::super::vector::{self, is_int_like, Input, Kernel, KernelFn, VecScope};
use super::super::{Ctrl, Frame};
use super::stores::with_place;
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

/// `e` without the wrappers of inlined bodies that are a single expression, noting their
/// functions (innermost last) for the call stack of a fault inside.
fn peel_framed<'e>(e: &'e Expr, frames: &mut Vec<(InlinedFrame, Span)>) -> &'e Expr {
    match &e.kind {
        ExprKind::Inlined(inlined) if inlined.stmts.is_empty() => match &inlined.result {
            Some(result) => {
                if let Some(frame) = &inlined.frame {
                    frames.push((frame.clone(), inlined.call));
                }
                peel_framed(result, frames)
            }
            None => e,
        },
        _ => e,
    }
}

/// A loop body that is one inlined procedure body (from another source, so kept apart by
/// the inliner) seen as its statements, noting its functions for the call stack of a fault.
fn unwrap_body<'s>(mut body: &'s [Stmt], frames: &mut Vec<(InlinedFrame, Span)>) -> &'s [Stmt] {
    while let [Stmt::Expr(Expr {
        kind: ExprKind::Inlined(inlined),
        ..
    })] = body
    {
        if inlined.result.is_some() || crate::core::inline::has_return(&inlined.stmts) {
            break;
        }
        if let Some(frame) = &inlined.frame {
            frames.push((frame.clone(), inlined.call));
        }
        body = &inlined.stmts;
    }
    body
}

/// The terms, first term first, the addition, and the functions of the inlined bodies the
/// chain was found in.
type Unfolded<'e> = (Vec<(&'e Expr, Span)>, Sum, Vec<(InlinedFrame, Span)>);

/// Unfold `((s + e1) + e2) + ...` into its terms.
fn unfold(value: &Expr, target: Place) -> Option<Unfolded<'_>> {
    let mut terms: Vec<(&Expr, Span)> = Vec::new();
    let mut frames = Vec::new();
    let mut current = peel_framed(value, &mut frames);
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
        current = peel_framed(left, &mut frames);
    };
    terms.reverse();
    Some((terms, sum, frames))
}

/// A fault of the accumulation with the functions its expression was inlined from.
fn with_frames(fault: Ctrl, frames: &[(InlinedFrame, Span)]) -> Ctrl {
    frames.iter().rev().fold(fault, |fault, (frame, call)| {
        note_frame(fault, &frame.name, frame.unit, *call)
    })
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
        let mut body_frames = Vec::new();
        let [Stmt::Assign(target, value)] = unwrap_body(body, &mut body_frames) else {
            return None;
        };
        let target = *target;
        if target == var
            || !matches!(target, Place::Local(_) | Place::Global(_))
            || !matches!(var, Place::Local(_) | Place::Global(_))
        {
            return None;
        }
        let (terms, sum, mut frames) = unfold(value, target)?;
        body_frames.append(&mut frames);
        let frames = body_frames;
        let mut scope = VecScope::new(var, Some(target), true);
        // Elements stored in columns: the terms may read one scalar field of the element,
        // whose column is then the input (`for p in a do s += p.1; done`).
        let column = match super::super::value::leaf_repr(var_ty) {
            LeafRepr::Columns(layout) => {
                let path = super::columns::single_projection(&terms, var)?;
                let super::super::value::ColumnField::Column(c) = layout.field(&path)? else {
                    return None;
                };
                scope.projection = Some(path);
                Some((*c, layout.kinds[*c].repr()))
            }
            _ => None,
        };
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
            let fits = match (repr, column) {
                (LeafRepr::I64, None) => is_int_like(var_ty),
                (LeafRepr::F64, None) => matches!(var_ty, Type::Double | Type::Float),
                (LeafRepr::Columns(_), Some(_)) => true,
                _ => false,
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
            let view = match &elements {
                Elements::Counter(_) => None,
                Elements::Array(array, _) => match array(frame)? {
                    Value::Array(view) => Some(view),
                    _ => return Ok(()),
                },
            };
            let (n, input) = match (&elements, &view) {
                (_, Some(view)) => {
                    let range = view.start..view.start + view.len;
                    let buffer = match (&*view.buf, column) {
                        (Buffer::Columns(columns), Some((c, _))) => &columns.columns[c],
                        (buffer, _) => buffer,
                    };
                    let input = match (buffer, column) {
                        (Buffer::I64(values), None | Some((_, LeafRepr::I64))) => {
                            Input::I64(&values[range])
                        }
                        (Buffer::F64(values), None | Some((_, LeafRepr::F64))) => {
                            Input::F64(&values[range])
                        }
                        _ => {
                            return Err(runtime_error(
                                INTERNAL,
                                "accumulation over boxed leaves",
                                span,
                            ))
                        }
                    };
                    (view.len, input)
                }
                (Elements::Counter(n), None) => (*n as usize, Input::Counter),
                (Elements::Array(..), None) => return Ok(()),
            };
            // The loop variable holds the element at `position`, as after that iteration.
            let set_var = |frame: &mut Frame<'_, '_>, position: usize| match &view {
                None => write_int(frame, var, position as i64),
                Some(view) => assign(frame, var, view.leaf(position)),
            };
            let run = Run {
                terms: &terms,
                sum,
                input,
                env: &env,
                span,
            };
            let outcome = match sum {
                Sum::Int(ity) if parallel::split_accumulation(n) => {
                    run.split(frame, target, n, ity)
                }
                _ => {
                    let mut state = Accumulator::new(&terms, sum, read_place(frame, target));
                    let outcome = run.range(&mut state, 0..n, true);
                    state.finish(frame, target);
                    outcome
                }
            };
            match outcome {
                Ok(()) => {
                    if n > 0 {
                        set_var(frame, n - 1);
                    }
                    Ok(())
                }
                Err((position, fault)) => {
                    set_var(frame, position);
                    Err(with_frames(fault, &frames))
                }
            }
        }))
    }
}

/// One run of an accumulation loop: its terms over the elements of `input`.
struct Run<'r> {
    terms: &'r Terms,
    sum: Sum,
    input: Input<'r>,
    env: &'r [Value],
    /// Where an interrupt is reported.
    span: Span,
}

impl Run<'_> {
    /// The chunk of positions `start .. start + len`.
    fn chunk(&self, start: usize, len: usize) -> vector::Chunk<'_> {
        let range = start..start + len;
        let (base, input) = match self.input {
            Input::Counter => (start as i64, Input::Counter),
            Input::I64(values) => (0, Input::I64(&values[range])),
            Input::F64(values) => (0, Input::F64(&values[range])),
        };
        vector::Chunk {
            base,
            input,
            env: self.env,
            lets: &[],
        }
    }

    /// Add the terms of the positions `range` to `state`, a chunk at a time in order, polling
    /// Ctrl-C before each chunk when `poll`. On a fault, the sum holds the additions before
    /// it, and the fault's position is returned with it.
    fn range(
        &self,
        state: &mut Accumulator<'_>,
        range: std::ops::Range<usize>,
        poll: bool,
    ) -> Result<(), (usize, Ctrl)> {
        let mut start = range.start;
        while start < range.end {
            if poll && crate::interrupt::kernel_poll() {
                return Err((start, interrupted(self.span)));
            }
            let len = (range.end - start).min(vector::CHUNK);
            state
                .chunk(&self.chunk(start, len), len, self.span)
                .map_err(|(k, fault)| (start + k, fault))?;
            start += len;
        }
        Ok(())
    }

    /// The integer accumulation split over rayon: blocks of terms summed exactly
    /// on the workers (their sum and the extremes of their prefix sums), combined in order
    /// from the target's value; a block where the sequential loop would stop is replayed
    /// sequentially from the exact sum before it, so the result, the fault, and the values
    /// the variables are left with are those of the sequential loop on any number of threads.
    fn split(
        &self,
        frame: &mut Frame<'_, '_>,
        target: Place,
        n: usize,
        ity: IntTy,
    ) -> Result<(), (usize, Ctrl)> {
        let Terms::Int(kernels) = self.terms else {
            return Err((
                0,
                runtime_error(INTERNAL, "split accumulation of floats", self.span),
            ));
        };
        let init = int_value(read_place(frame, target).as_int_lossy(), ity);
        let block = |range: std::ops::Range<usize>| {
            let mut buffers = vec![vec![0i64; vector::CHUNK]; kernels.len()];
            let mut interleaved = Vec::new();
            let mut sum = BlockSum::EMPTY;
            let mut start = range.start;
            while start < range.end {
                let len = (range.end - start).min(vector::CHUNK);
                let (valid, pending) =
                    run_terms(kernels, &self.chunk(start, len), &mut buffers, len);
                if pending.is_some() {
                    return Block::Faulted;
                }
                let part = match buffers.as_slice() {
                    [only] => BlockSum::of(&only[..valid], ity),
                    _ => {
                        // The additions in the loop's order: element by element, term by term.
                        interleaved.clear();
                        for k in 0..valid {
                            interleaved.extend(buffers.iter().map(|b| b[k]));
                        }
                        BlockSum::of(&interleaved, ity)
                    }
                };
                sum = sum.then(part);
                start += len;
            }
            Block::Summed(sum)
        };
        let mut stopped = None;
        let replay = |replay: Replay| {
            let start = int_from_i128(replay.acc, ity).unwrap_or(0);
            let mut state = Accumulator::new(self.terms, self.sum, Value::Int(start));
            let outcome = if replay.interrupted {
                Err((replay.range.start, interrupted(self.span)))
            } else {
                self.range(&mut state, replay.range, false)
            };
            match outcome {
                Ok(()) => Ok(int_value(state.int, ity)),
                Err(fault) => {
                    stopped = Some(state.int);
                    Err(fault)
                }
            }
        };
        let outcome = parallel::accumulate_int(n, init, ity, block, replay);
        let last = match &outcome {
            Ok(total) => int_from_i128(*total, ity).unwrap_or(0),
            Err(_) => stopped.unwrap_or(0),
        };
        write_int(frame, target, last);
        outcome.map(|_| ())
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
    /// A sum starting from `current` (the target's value).
    fn new(terms: &'t Terms, sum: Sum, current: Value) -> Self {
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

    /// Add the terms of the `len` elements of `chunk`; on a fault, the sum holds the
    /// additions before it.
    fn chunk(
        &mut self,
        chunk: &vector::Chunk<'_>,
        len: usize,
        span: Span,
    ) -> Result<(), (usize, Ctrl)> {
        match (self.terms, self.sum) {
            (Terms::Int(kernels), Sum::Int(ity)) => {
                let (valid, pending) = run_terms(kernels, chunk, &mut self.ints, len);
                let slow = |acc: i64, x: i64, span: Span| int_add(ity, acc, x, span);
                if ity.bits() == 64 && ity.signed() {
                    let add = |acc: i64, x: i64, span: Span| match acc.checked_add(x) {
                        Some(r) => Ok(r),
                        None => slow(acc, x, span),
                    };
                    accumulate(&mut self.int, kernels, &self.ints, valid, pending, add)
                } else if ity.bits() < 64 {
                    // Narrower types: the i64 sum is exact, then checked against the range.
                    let (low, high) = (ity.min() as i64, ity.max() as i64);
                    let add = |acc: i64, x: i64, span: Span| match acc.checked_add(x) {
                        Some(r) if (low..=high).contains(&r) => Ok(r),
                        _ => int_add_cold(ity, acc, x, span),
                    };
                    accumulate(&mut self.int, kernels, &self.ints, valid, pending, add)
                } else {
                    accumulate(&mut self.int, kernels, &self.ints, valid, pending, slow)
                }
            }
            (Terms::Float(kernels), Sum::Float(single)) => {
                let (valid, pending) = run_terms(kernels, chunk, &mut self.floats, len);
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

/// Checked integer `+` of type `ity`, a fault at `span`.
fn int_add(ity: IntTy, acc: i64, x: i64, span: Span) -> Result<i64, Ctrl> {
    int_arith(ArithOp::Add, ity, acc, x).map_err(|f| f.at(span))
}

/// `int_add` off the fast path (where an overflow is possible), out of the loop's code.
#[cold]
#[inline(never)]
fn int_add_cold(ity: IntTy, acc: i64, x: i64, span: Span) -> Result<i64, Ctrl> {
    int_add(ity, acc, x, span)
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
    // The running sum stays in a register; `acc` is written once, also on a fault.
    let mut sum = *acc;
    macro_rules! add {
        ($x:expr, $span:expr, $k:expr) => {
            match add(sum, $x, $span) {
                Ok(next) => sum = next,
                Err(fault) => {
                    *acc = sum;
                    return Err(($k, fault));
                }
            }
        };
    }
    if let [(_, span)] = kernels {
        for (k, x) in buffers[0][..valid].iter().enumerate() {
            add!(*x, *span, k);
        }
    } else {
        // The position indexes every term's buffer at once.
        #[allow(clippy::needless_range_loop)]
        for k in 0..valid {
            for (t, (_, span)) in kernels.iter().enumerate() {
                add!(buffers[t][k], *span, k);
            }
        }
    }
    if let Some((k, failing_term, fault)) = pending {
        for (t, (_, span)) in kernels.iter().enumerate().take(failing_term) {
            add!(buffers[t][k], *span, k);
        }
        *acc = sum;
        return Err((k, fault));
    }
    *acc = sum;
    Ok(())
}

/// The store of a fused store loop: `&a.i <- E` with `i` the loop variable, `E` a kernel.
pub(super) struct FusedStore {
    place: Place,
    /// The value's kernel, or for an array stored in columns one kernel per column (the
    /// scalars of a tuple literal, in evaluation order).
    kernels: Vec<Kernel>,
    /// The layout of an array stored in columns.
    layout: Option<&'static ColumnLayout>,
    env_places: Vec<Place>,
    /// The array's element count.
    n: usize,
    span: Span,
    /// The functions the store was inlined from (for the call stack of a fault).
    frames: Vec<(InlinedFrame, Span)>,
    /// The globals (the array stored into, the kernels' inputs) that may not be initialised
    /// yet when the loop runs: R0011 before the first store.
    /// Globals that may not be initialised when the loop runs, with the span to report.
    uninitialised: Vec<(usize, Arc<GlobalDef>, Span)>,
}

impl Compiler<'_> {
    /// A loop body `&a.i <- E` (one store into a local or global array of scalar leaves, at
    /// the loop variable, with `mode`) whose value `E` is a straight-line scalar expression of
    /// `i` and loop-invariant variables: the kernel that fills the array a chunk at a time.
    pub(super) fn fused_store(
        &mut self,
        var: Place,
        mode: IndexMode,
        body: &[Stmt],
    ) -> Option<FusedStore> {
        let mut frames = Vec::new();
        let [Stmt::Store {
            place,
            root_ty,
            path,
            value,
        }] = unwrap_body(body, &mut frames)
        else {
            return None;
        };
        let [PathStep::Index(index, index_mode)] = path.as_slice() else {
            return None;
        };
        let place = *place;
        let shape = Shape::of(root_ty)?;
        if *index_mode != mode
            || !reads(index, var)
            || place == var
            || !matches!(place, Place::Local(_) | Place::Global(_))
            || !matches!(var, Place::Local(_) | Place::Global(_))
            || shape.elem_is_array
        {
            return None;
        }
        let n = shape.n_elements?;
        let mut scope = VecScope::new(var, Some(place), true);
        let layout = match shape.repr {
            LeafRepr::Columns(layout) => Some(layout),
            _ => None,
        };
        let kernels = match shape.repr {
            LeafRepr::Columns(layout) => {
                let mut scalars = Vec::with_capacity(layout.kinds.len());
                super::columns::tuple_literal_scalars(value, &layout.fields, &mut scalars)?;
                let mut kernels = Vec::with_capacity(scalars.len());
                for (part, column) in scalars {
                    let kernel = vector::kernel(part, &mut scope)?;
                    if !kernel_fits(&kernel, layout.kinds[column].repr()) {
                        return None;
                    }
                    kernels.push(kernel);
                }
                kernels
            }
            repr => {
                let kernel = vector::kernel(value, &mut scope)?;
                if !kernel_fits(&kernel, repr) {
                    return None;
                }
                vec![kernel]
            }
        };
        self.note_place(place);
        self.note_place(var);
        for p in &scope.env {
            self.note_place(*p);
        }
        let store_span = super::paths::store_span(path, value);
        let mut uninitialised: Vec<_> = self
            .global_needing_check(place, root_ty)
            .into_iter()
            .map(|(slot, def)| (slot, def, store_span))
            .collect();
        uninitialised.extend(self.env_needing_check(&scope.env, [value]));
        Some(FusedStore {
            place,
            kernels,
            layout,
            env_places: scope.env,
            n,
            span: value.span,
            frames,
            uninitialised,
        })
    }
}

/// The values a store kernel computed for one chunk.
enum Output {
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Output {
    /// Copy the first `range.len()` values into `range` of an unboxed buffer of the same kind.
    fn value(&self, j: usize) -> Value {
        match self {
            Output::I64(out) => Value::Int(out[j]),
            Output::F64(out) => Value::Float(out[j]),
        }
    }

    fn copy_to(&self, buffer: &mut Buffer, range: &std::ops::Range<usize>) -> bool {
        let n = range.len();
        match (self, buffer) {
            (Output::I64(out), Buffer::I64(values)) => {
                values[range.clone()].copy_from_slice(&out[..n])
            }
            (Output::F64(out), Buffer::F64(values)) => {
                values[range.clone()].copy_from_slice(&out[..n])
            }
            _ => return false,
        }
        true
    }
}

fn kernel_fits(kernel: &Kernel, repr: LeafRepr) -> bool {
    matches!(
        (kernel, repr),
        (Kernel::Int(_), LeafRepr::I64) | (Kernel::Float(_), LeafRepr::F64)
    )
}

impl FusedStore {
    /// The number of elements of the array stored into.
    pub(super) fn n(&self) -> u64 {
        self.n as u64
    }

    /// Store the values of the loop variable `first .. first + count` (positions of the array,
    /// all in range) a chunk at a time. On a fault, the stores before it are done, the
    /// variable holds the faulting value and the fault is returned; otherwise the variable
    /// is left as the caller sets it.
    pub(super) fn run(
        &self,
        frame: &mut Frame<'_, '_>,
        var: Place,
        first: u64,
        count: u64,
    ) -> Result<(), Ctrl> {
        if count > 0 {
            for (slot, def, span) in &self.uninitialised {
                super::paths::check_initialised(frame, *slot, def, *span)?;
            }
        }
        let env: Vec<Value> = self
            .env_places
            .iter()
            .map(|p| read_place(frame, *p))
            .collect();
        let mut outputs: Vec<Output> = self
            .kernels
            .iter()
            .map(|kernel| match kernel {
                Kernel::Int(_) => Output::I64(vec![0; vector::CHUNK]),
                Kernel::Float(_) => Output::F64(vec![0.0; vector::CHUNK]),
            })
            .collect();
        let mut done = self.parallel_prefix(frame, &env, first, count)?;
        while done < count {
            if crate::interrupt::requested() {
                return Err(interrupted(self.span));
            }
            let len = (count - done).min(vector::CHUNK as u64) as usize;
            let base = first + done;
            let chunk = vector::Chunk {
                base: base as i64,
                input: Input::Counter,
                env: &env,
                lets: &[],
            };
            // Each kernel runs up to the first fault of the kernels before it: the fault of
            // the element-by-element loop is the first in element order, and of an element,
            // the first in the tuple's order.
            let mut valid = len;
            let mut fault = None;
            for (kernel, output) in self.kernels.iter().zip(outputs.iter_mut()) {
                let result = match (kernel, output) {
                    (Kernel::Int(k), Output::I64(out)) => k(&chunk, &mut out[..valid]),
                    (Kernel::Float(k), Output::F64(out)) => k(&chunk, &mut out[..valid]),
                    _ => Ok(()),
                };
                if let Err((k, f)) = result {
                    valid = k;
                    fault = Some((k, f));
                }
            }
            let range = base as usize..base as usize + valid;
            let stored = with_place(frame, self.place, |root| match root {
                Value::Array(view) if range.end <= self.n => {
                    match (make_unique(view), outputs.as_slice()) {
                        (Buffer::Columns(columns), outputs) => {
                            columns.columns.len() == outputs.len()
                                && columns
                                    .columns
                                    .iter_mut()
                                    .zip(outputs)
                                    .all(|(column, output)| output.copy_to(column, &range))
                        }
                        (buffer, [output]) if self.layout.is_none() => {
                            output.copy_to(buffer, &range)
                        }
                        (buffer, outputs) => match self.layout {
                            // An array of the type not held in columns: element by element.
                            Some(layout) => {
                                for (j, position) in range.clone().enumerate() {
                                    let element = layout.gather(&mut |c| outputs[c].value(j));
                                    super::super::array::set_leaf(buffer, position, element);
                                }
                                true
                            }
                            None => false,
                        },
                    }
                }
                _ => false,
            });
            if !stored {
                return Err(runtime_error(
                    INTERNAL,
                    "fused store into a value that is not an unboxed array",
                    self.span,
                ));
            }
            if let Some((k, fault)) = fault {
                write_int(frame, var, (base + k as u64) as i64);
                return Err(with_frames(fault, &self.frames));
            }
            done += len as u64;
        }
        Ok(())
    }
}

impl FusedStore {
    /// Over at least `PARALLEL_THRESHOLD` positions on more than one thread: the
    /// positions before the first block where a kernel would fault are filled on rayon
    /// workers, and their count returned; the sequential loop does the rest. A first pass
    /// runs the kernels (pure) without storing to find that block, so the stores and the
    /// fault are those of the element-by-element loop. Ctrl-C is noticed before any store.
    fn parallel_prefix(
        &self,
        frame: &mut Frame<'_, '_>,
        env: &[Value],
        first: u64,
        count: u64,
    ) -> Result<u64, Ctrl> {
        let count = count as usize;
        if !parallel::split_accumulation(count) {
            return Ok(0);
        }
        let first = first as usize;
        let faulting = parallel::first_faulting_block(count, |start, len| {
            self.faults(env, first + start, len)
        });
        if crate::interrupt::requested() {
            return Err(interrupted(self.span));
        }
        let clean = faulting.map_or(count, |b| b * parallel::FILL_BLOCK);
        if clean == 0 {
            return Ok(0);
        }
        let range = first..first + clean;
        let stored = with_place(frame, self.place, |root| {
            let Value::Array(view) = root else {
                return false;
            };
            if range.end > self.n {
                return false;
            }
            match (make_unique(view), self.kernels.as_slice()) {
                (Buffer::Columns(columns), kernels) if columns.columns.len() == kernels.len() => {
                    columns
                        .columns
                        .iter_mut()
                        .zip(kernels)
                        .all(|(column, kernel)| fill(kernel, column, env, range.clone()))
                }
                (buffer, [kernel]) if self.layout.is_none() => {
                    fill(kernel, buffer, env, range.clone())
                }
                _ => false,
            }
        });
        Ok(if stored { clean as u64 } else { 0 })
    }

    /// Would a kernel fault at one of the `len` positions from `start`?
    fn faults(&self, env: &[Value], start: usize, len: usize) -> bool {
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        let mut done = 0;
        while done < len {
            let n = (len - done).min(vector::CHUNK);
            let chunk = counter_chunk(start + done, env);
            for kernel in &self.kernels {
                let result = match kernel {
                    Kernel::Int(k) => {
                        ints.resize(n, 0);
                        k(&chunk, &mut ints[..n])
                    }
                    Kernel::Float(k) => {
                        floats.resize(n, 0.0);
                        k(&chunk, &mut floats[..n])
                    }
                };
                if result.is_err() {
                    return true;
                }
            }
            done += n;
        }
        false
    }
}

/// The chunk of counter values from `base`.
fn counter_chunk(base: usize, env: &[Value]) -> vector::Chunk<'_> {
    vector::Chunk {
        base: base as i64,
        input: Input::Counter,
        env,
        lets: &[],
    }
}

/// Fill `range` of an unboxed buffer with `kernel`'s values on rayon workers (a range where
/// it does not fault); `false` if the buffer is not of the kernel's kind.
fn fill(
    kernel: &Kernel,
    buffer: &mut Buffer,
    env: &[Value],
    range: std::ops::Range<usize>,
) -> bool {
    fn run<T: Send>(kernel: &KernelFn<T>, dest: &mut [T], env: &[Value], first: usize) {
        parallel::fill_blocks(dest, |start, block| {
            for (c, out) in block.chunks_mut(vector::CHUNK).enumerate() {
                let chunk = counter_chunk(first + start + c * vector::CHUNK, env);
                // The first pass found no fault in this range.
                let _ = kernel(&chunk, out);
            }
        })
    }
    let first = range.start;
    match (kernel, buffer) {
        (Kernel::Int(k), Buffer::I64(values)) => run(&**k, &mut values[range], env, first),
        (Kernel::Float(k), Buffer::F64(values)) => run(&**k, &mut values[range], env, first),
        _ => return false,
    }
    true
}

impl Compiler<'_> {
    /// `for i in a ..< b do &arr.i <- E; done` with `b` a constant or a variable the body does
    /// not write and `a` call-free: when `a .. b` is inside the array (checked when the loop
    /// starts), the fused store; otherwise the loop as written, which reports the first bad
    /// index where it happens.
    pub(super) fn fused_range_store(
        &mut self,
        label: crate::core::ir::LabelId,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        body: &[Stmt],
    ) -> Option<StmtCode> {
        let invariant = match peel(to).kind {
            ExprKind::Const(_) => true,
            ExprKind::Local(s) => !reads_place_in(body, Place::Local(s)) && Place::Local(s) != var,
            ExprKind::Global(s) => {
                !reads_place_in(body, Place::Global(s)) && Place::Global(s) != var
            }
            _ => false,
        };
        if !invariant || !super::int::is_call_free(from) || !is_int_like(&to.ty) {
            return None;
        }
        let store = self.fused_store(var, IndexMode::Linear, body)?;
        let limit_ity = super::int_ty_of(&to.ty);
        let (start_code, limit_code) = (self.int_code(from), self.int_code(to));
        let general = self.counting_loop(
            label,
            var,
            var_ty,
            from,
            to,
            crate::core::ir::RangeKind::Exclusive,
            body,
        );
        let last = var_ty.max();
        Some(Box::new(move |frame| {
            let start = int_value(start_code(frame)?, var_ty);
            let limit = int_value(limit_code(frame)?, limit_ity);
            if start >= 0 && start < limit && limit <= store.n() as i128 && limit - 1 <= last {
                write_int(frame, var, start as i64);
                store.run(frame, var, start as u64, (limit - start) as u64)?;
                write_int(frame, var, limit as i64);
                return Ok(());
            }
            general(frame)
        }))
    }
}

/// Does a statement list write `place` (so it is not invariant in a loop with this body)?
fn reads_place_in(body: &[Stmt], place: Place) -> bool {
    let mut written = false;
    crate::core::visit::each_in_stmts(body, &mut |_| {}, &mut |p| written |= p == place);
    written
}
