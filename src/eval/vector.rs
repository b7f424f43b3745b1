//! Chunked evaluation of element-wise bodies.
//!
//! A straight-line scalar expression over one "element variable" (a loop counter, or the
//! parameter of a function mapped over an array) is compiled to a *kernel* that computes the
//! expression for a whole chunk of consecutive elements at once, each operation running as a
//! tight loop over an unboxed slice. Interpretive dispatch is paid once per chunk and operation
//! instead of once per element and operation.
//!
//! Semantics are exactly those of evaluating the expression element by element, in order: a
//! kernel that faults reports the position of the first faulting element together with the
//! fault that element-wise evaluation would have raised there (operands are evaluated on the
//! prefix before any earlier fault only, so the earliest fault in evaluation order wins). The
//! values before that position are valid; the rest of the output is unspecified.
//!
//! Architecture invariant: kernels never touch a frame, globals or output. Variables other
//! than the element variable are read once, before the loop, into the chunk's environment, so
//! kernels are `Send + Sync` and can run on any rayon worker.

use num_traits::ToPrimitive;

use crate::core::ir::{ArithOp, CmpOp, CoerceKind, Const, Expr, ExprKind, IndexMode, Place, Prim};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::compact::{size_big, CodeRepr, ProductLayout};
use super::error::{runtime_error, Fault, CONVERSION_OUT_OF_RANGE};
use super::prims::{
    float_arith, float_holds, holds, int_arith, int_from_i128, int_value, round_float,
};
use super::value::{Buffer, Scalars, Value};
use super::Ctrl;

/// Elements per chunk: large enough to amortise dispatch, small enough to stay in L1/L2.
pub const CHUNK: usize = 1024;

/// The first faulting element of a chunk (its position in the chunk) and its fault.
pub type ChunkFault = (usize, Ctrl);

/// The elements one kernel call works on.
pub struct Chunk<'a> {
    /// Where the element variable comes from.
    pub input: Input<'a>,
    /// Loop-invariant values read before the loop (see `VecScope::env`).
    pub env: &'a [Value],
    /// The values of the `val`s of an inlined block body, one slice per binding of
    /// `VecScope::lets`, element by element like the input.
    pub lets: &'a [Input<'a>],
}

/// The source of the element variable's values.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// The elements of an integer (or code) array.
    I64(&'a [i64]),
    /// The elements of a double array.
    F64(&'a [f64]),
}

/// Room to widen one chunk of narrow leaves into an `Input` (a chunk of 64-bit leaves is
/// borrowed as it is).
#[derive(Default)]
pub struct ChunkInput {
    ints: Vec<i64>,
    floats: Vec<f64>,
}

impl ChunkInput {
    /// The leaves `range` of `src` as a chunk's input.
    pub fn of<'a>(&'a mut self, src: &'a Scalars, range: std::ops::Range<usize>) -> Input<'a> {
        match src {
            Scalars::I64(v) => Input::I64(&v[range]),
            Scalars::F64(v) => Input::F64(&v[range]),
            s if s.kind().is_float() => {
                self.floats.resize(range.len(), 0.0);
                s.read_floats(range.start, &mut self.floats);
                Input::F64(&self.floats)
            }
            s => {
                self.ints.resize(range.len(), 0);
                s.read_ints(range.start, &mut self.ints);
                Input::I64(&self.ints)
            }
        }
    }
}

/// A kernel producing values of type `T` for one chunk.
pub type KernelFn<T> = dyn Fn(&Chunk<'_>, &mut [T]) -> Result<(), ChunkFault> + Send + Sync;
pub type IntKernel = Box<KernelFn<i64>>;
pub type FloatKernel = Box<KernelFn<f64>>;

/// A compiled kernel, by the representation of the values it produces.
pub enum Kernel {
    Int(IntKernel),
    Float(FloatKernel),
}

/// What a vectorised expression may read.
pub struct VecScope {
    /// The element variable.
    pub var: Place,
    /// A variable the surrounding loop writes: reading it makes the body sequential.
    pub written: Option<Place>,
    /// May other variables be read (once, before the loop)? Not inside a mapped function,
    /// whose frame does not exist.
    pub allow_env: bool,
    /// The loop-invariant variables read, in the order of `Chunk::env`.
    pub env: Vec<Place>,
    /// The `val`s bound inside the expression (an inlined block body), in the order of
    /// `Chunk::lets`.
    pub lets: Vec<Place>,
    /// Elements that are tuples stored in columns: the projection of the element variable
    /// (`v.1.0` is `[1, 0]`) whose column is the input. The variable itself is then read
    /// only through that projection.
    pub projection: Option<Vec<usize>>,
}

impl VecScope {
    pub fn new(var: Place, written: Option<Place>, allow_env: bool) -> VecScope {
        VecScope {
            var,
            written,
            allow_env,
            env: Vec::new(),
            lets: Vec::new(),
            projection: None,
        }
    }

    /// Is `e` the projection of the element variable that the input holds?
    fn is_input_projection(&self, e: &Expr) -> bool {
        let Some(projection) = &self.projection else {
            return false;
        };
        let mut current = e;
        for &k in projection.iter().rev() {
            match &current.kind {
                ExprKind::Field(inner, j) if *j as usize == k => current = inner,
                _ => return false,
            }
        }
        place_read(current) == Some(self.var)
    }

    /// The environment position of a loop-invariant variable, registering it on first use.
    fn env_slot(&mut self, place: Place) -> Option<usize> {
        if !self.allow_env
            || self.lets.contains(&place)
            || Some(place) == self.written
            || place == self.var
        {
            return None;
        }
        if let Some(i) = self.env.iter().position(|p| *p == place) {
            return Some(i);
        }
        self.env.push(place);
        Some(self.env.len() - 1)
    }
}

/// Is a value of this type a `Value::Int` (an integer, a char, or a 64-bit compact code)?
pub fn is_int_like(ty: &Type) -> bool {
    match ty {
        Type::Int(_) | Type::Char => true,
        t => crate::types::kind::is_compact(t) && CodeRepr::of(t) == CodeRepr::Small,
    }
}

fn is_float(ty: &Type) -> bool {
    matches!(ty, Type::Double | Type::Float)
}

/// The place an expression reads, when it is a plain variable read.
fn place_read(e: &Expr) -> Option<Place> {
    match e.kind {
        ExprKind::Local(s) => Some(Place::Local(s)),
        ExprKind::Global(s) => Some(Place::Global(s)),
        _ => None,
    }
}

/// Compile `e` to a kernel, or `None` when it is not a straight-line scalar expression this
/// module handles.
pub fn kernel(e: &Expr, scope: &mut VecScope) -> Option<Kernel> {
    if is_int_like(&e.ty) {
        int_kernel(e, scope).map(Kernel::Int)
    } else if is_float(&e.ty) {
        float_kernel(e, scope).map(Kernel::Float)
    } else {
        None
    }
}

/// Apply `f` to every element of `out` in place; stop at the first fault.
#[inline]
fn map_in_place<T: Copy>(
    out: &mut [T],
    mut f: impl FnMut(T) -> Result<T, Ctrl>,
) -> Result<(), ChunkFault> {
    for (k, slot) in out.iter_mut().enumerate() {
        match f(*slot) {
            Ok(v) => *slot = v,
            Err(e) => return Err((k, e)),
        }
    }
    Ok(())
}

/// Evaluate two operand kernels on the longest fault-free prefix, then combine.
#[inline]
fn binary_prefix<T: Copy + Default>(
    chunk: &Chunk<'_>,
    out: &mut [T],
    a: &KernelFn<T>,
    b: &KernelFn<T>,
    mut combine: impl FnMut(T, T) -> Result<T, Ctrl>,
) -> Result<(), ChunkFault> {
    let mut valid = out.len();
    let mut pending: Option<ChunkFault> = None;
    if let Err((k, e)) = a(chunk, out) {
        valid = k;
        pending = Some((k, e));
    }
    let mut right = vec![T::default(); valid];
    if let Err((k, e)) = b(chunk, &mut right) {
        valid = k;
        pending = Some((k, e));
    }
    for k in 0..valid {
        match combine(out[k], right[k]) {
            Ok(v) => out[k] = v,
            Err(e) => return Err((k, e)),
        }
    }
    match pending {
        Some(fault) => Err(fault),
        None => Ok(()),
    }
}

fn int_binary<F>(
    a: IntKernel,
    b: IntKernel,
    op: ArithOp,
    ity: IntTy,
    span: Span,
    fast: F,
) -> IntKernel
where
    F: Fn(i64, i64) -> Option<i64> + Send + Sync + 'static,
{
    Box::new(move |chunk, out| {
        binary_prefix(chunk, out, &*a, &*b, |x, y| match fast(x, y) {
            Some(r) => Ok(r),
            None => int_arith(op, ity, x, y).map_err(|f| f.at(span)),
        })
    })
}

/// The element variable's values (or its projection's, `VecScope::projection`) as integers.
fn int_input() -> IntKernel {
    Box::new(|chunk, out| {
        match chunk.input {
            Input::I64(values) => out.copy_from_slice(&values[..out.len()]),
            Input::F64(_) => out.fill(0),
        }
        Ok(())
    })
}

/// The element variable's values (or its projection's) as floats.
fn float_input() -> FloatKernel {
    Box::new(|chunk, out| {
        match chunk.input {
            Input::F64(values) => out.copy_from_slice(&values[..out.len()]),
            _ => out.fill(0.0),
        }
        Ok(())
    })
}

fn int_kernel(e: &Expr, scope: &mut VecScope) -> Option<IntKernel> {
    let span = e.span;
    match &e.kind {
        ExprKind::Const(Const::Int(i)) => {
            let i = *i;
            Some(Box::new(move |_, out| {
                out.fill(i);
                Ok(())
            }))
        }
        ExprKind::Field(..) if scope.is_input_projection(e) => Some(int_input()),
        ExprKind::Local(_) | ExprKind::Global(_) => {
            let place = place_read(e)?;
            if place == scope.var {
                return scope.projection.is_none().then(int_input);
            }
            if let Some(i) = scope.lets.iter().position(|p| *p == place) {
                return Some(Box::new(move |chunk, out| {
                    if let Input::I64(values) = chunk.lets[i] {
                        out.copy_from_slice(&values[..out.len()]);
                    }
                    Ok(())
                }));
            }
            let slot = scope.env_slot(place)?;
            Some(Box::new(move |chunk, out| {
                out.fill(chunk.env[slot].as_int_lossy());
                Ok(())
            }))
        }
        ExprKind::Inlined(inlined) => framed(lets(inlined, scope, int_kernel)?, inlined),
        ExprKind::If(c, a, b) => {
            let (c, a, b) = (
                int_kernel(c, scope)?,
                int_kernel(a, scope)?,
                int_kernel(b, scope)?,
            );
            Some(Box::new(move |chunk, out| {
                select(chunk, out, &*c, &*a, &*b)
            }))
        }
        ExprKind::And(a, b) => {
            let (a, b) = (int_kernel(a, scope)?, int_kernel(b, scope)?);
            let no: IntKernel = Box::new(|_, out| {
                out.fill(0);
                Ok(())
            });
            Some(Box::new(move |chunk, out| {
                select(chunk, out, &*a, &*b, &*no)
            }))
        }
        ExprKind::Or(a, b) => {
            let (a, b) = (int_kernel(a, scope)?, int_kernel(b, scope)?);
            let yes: IntKernel = Box::new(|_, out| {
                out.fill(1);
                Ok(())
            });
            Some(Box::new(move |chunk, out| {
                select(chunk, out, &*a, &*yes, &*b)
            }))
        }
        ExprKind::Prim(Prim::Not, args) if args.len() == 1 => {
            let a = int_kernel(&args[0], scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                for v in out.iter_mut() {
                    *v = (*v == 0) as i64;
                }
                Ok(())
            }))
        }
        ExprKind::Prim(Prim::Compare(op), args) if args.len() == 2 => {
            compare_kernel(*op, &args[0], &args[1], scope)
        }
        ExprKind::Prim(Prim::IntArith(op, ity), args) if args.len() == 2 => {
            let a = int_kernel(&args[0], scope)?;
            let b = int_kernel(&args[1], scope)?;
            let (op, ity) = (*op, *ity);
            Some(crate::eval::prims::with_fast_int_op!(
                op,
                ity,
                int_binary(a, b, op, ity, span)
            ))
        }
        // Bitwise operators and shifts, with the faults of element-by-element code.
        ExprKind::Prim(Prim::IntBit(op, ity), args) if args.len() == 2 => {
            let a = int_kernel(&args[0], scope)?;
            let b = int_kernel(&args[1], scope)?;
            let (op, ity) = (*op, *ity);
            Some(Box::new(move |chunk, out| {
                binary_prefix(chunk, out, &*a, &*b, |x, y| {
                    super::prims::int_bit(op, ity, x, y).map_err(|f| f.at(span))
                })
            }))
        }
        ExprKind::Prim(Prim::IntCompl(ity), args) if args.len() == 1 => {
            let a = int_kernel(&args[0], scope)?;
            let ity = *ity;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                for v in out.iter_mut() {
                    *v = super::prims::int_compl(ity, *v);
                }
                Ok(())
            }))
        }
        ExprKind::Prim(Prim::Widen, args) if args.len() == 1 && is_int_like(&args[0].ty) => {
            int_kernel(&args[0], scope)
        }
        ExprKind::Prim(Prim::Convert, args)
            if args.len() == 1
                && matches!(args[0].ty, Type::Int(_))
                && matches!(e.ty, Type::Int(_)) =>
        {
            let (Type::Int(from), Type::Int(to)) = (&args[0].ty, &e.ty) else {
                return None;
            };
            let (from, to) = (*from, *to);
            let target = e.ty.clone();
            let a = int_kernel(&args[0], scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                map_in_place(out, |x| {
                    let v = int_value(x, from);
                    int_from_i128(v, to).ok_or_else(|| {
                        runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!("conversion out of range: {v} does not fit {target}"),
                            span,
                        )
                    })
                })
            }))
        }
        ExprKind::Coerce(CoerceKind::EncodeInt, inner) if is_int_like(&inner.ty) => {
            let Type::Int(ity) = e.ty else { return None };
            let a = int_kernel(inner, scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                map_in_place(out, |code| {
                    int_from_i128(code as u64 as i128, ity).ok_or_else(|| {
                        runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!(
                                "conversion out of range: code {} does not fit {}",
                                code as u64,
                                ity.name()
                            ),
                            span,
                        )
                    })
                })
            }))
        }
        ExprKind::Coerce(CoerceKind::DecodeInt, inner) => {
            let Type::Int(ity) = inner.ty else {
                return None;
            };
            let size_u128 = size_big(&e.ty).to_u128()?;
            let target = e.ty.clone();
            let a = int_kernel(inner, scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                map_in_place(out, |x| {
                    let n = int_value(x, ity);
                    if n >= 0 && (n as u128) < size_u128 {
                        Ok(n as u64 as i64)
                    } else {
                        Err(super::error::decode_error(
                            &n.to_string(),
                            &target,
                            &size_big(&target),
                            span,
                        ))
                    }
                })
            }))
        }
        ExprKind::Coerce(CoerceKind::Reinterpret, inner) if is_int_like(&inner.ty) => {
            int_kernel(inner, scope)
        }
        ExprKind::CField(inner, index) => {
            let (radix, weight) = ProductLayout::small_digit(&inner.ty, *index as usize)?;
            let a = int_kernel(inner, scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                if radix == 0 || weight == 0 {
                    out.fill(0);
                } else {
                    for slot in out.iter_mut() {
                        *slot = ((*slot as u64 / weight) % radix) as i64;
                    }
                }
                Ok(())
            }))
        }
        ExprKind::Index { array, index, mode } => {
            let slot = scope.env_slot(place_read(array)?)?;
            let Type::Array(elem, _) = &array.ty else {
                return None;
            };
            if !is_int_like(elem) {
                return None;
            }
            let position = int_kernel(index, scope)?;
            let index_ity = match &index.ty {
                Type::Int(ity) => Some(*ity),
                _ => None,
            };
            let (mode, array_ty, index_span) = (*mode, array.ty.clone(), index.span);
            Some(Box::new(move |chunk, out| {
                let result = position(chunk, out);
                let valid = match &result {
                    Ok(()) => out.len(),
                    Err((k, _)) => *k,
                };
                let Value::Array(view) = &chunk.env[slot] else {
                    return Err((0, internal(span)));
                };
                let Buffer::Scalars(values) = &*view.buf else {
                    return Err((0, internal(span)));
                };
                let gathered = gather(
                    &mut out[..valid],
                    (view.len, |p| values.int(view.start + p)),
                    mode,
                    index_ity,
                    &array_ty,
                    index_span,
                );
                gathered.and(result)
            }))
        }
        _ => None,
    }
}

fn internal(span: Span) -> Ctrl {
    runtime_error(
        super::error::INTERNAL,
        "vector kernel applied to an unexpected value",
        span,
    )
}

/// Replace each position in `out` by the leaf it designates, checking linear positions.
fn gather(
    out: &mut [i64],
    (n, leaf): (usize, impl Fn(usize) -> i64),
    mode: IndexMode,
    index_ity: Option<IntTy>,
    array_ty: &Type,
    index_span: Span,
) -> Result<(), ChunkFault> {
    for (k, slot) in out.iter_mut().enumerate() {
        let position = match (mode, index_ity) {
            (IndexMode::Linear, Some(ity)) => int_value(*slot, ity),
            _ => *slot as u64 as i128,
        };
        if position < 0 || position >= n as i128 {
            return Err((k, index_fault(position, array_ty, n, index_span)));
        }
        *slot = leaf(position as usize);
    }
    Ok(())
}

fn index_fault(position: i128, array_ty: &Type, n: usize, span: Span) -> Ctrl {
    let plural = if n == 1 { "element" } else { "elements" };
    Fault::new(
        super::error::INDEX_OUT_OF_RANGE,
        format!("index {position} out of range for {array_ty} ({n} {plural})"),
    )
    .at(span)
}

fn float_kernel(e: &Expr, scope: &mut VecScope) -> Option<FloatKernel> {
    let span = e.span;
    match &e.kind {
        ExprKind::Const(Const::Float(x)) => {
            let x = *x;
            Some(Box::new(move |_, out| {
                out.fill(x);
                Ok(())
            }))
        }
        ExprKind::Field(..) if scope.is_input_projection(e) => Some(float_input()),
        ExprKind::Local(_) | ExprKind::Global(_) => {
            let place = place_read(e)?;
            if place == scope.var {
                return scope.projection.is_none().then(float_input);
            }
            if let Some(i) = scope.lets.iter().position(|p| *p == place) {
                return Some(Box::new(move |chunk, out| {
                    if let Input::F64(values) = chunk.lets[i] {
                        out.copy_from_slice(&values[..out.len()]);
                    }
                    Ok(())
                }));
            }
            let slot = scope.env_slot(place)?;
            Some(Box::new(move |chunk, out| {
                out.fill(chunk.env[slot].as_float_lossy());
                Ok(())
            }))
        }
        ExprKind::Inlined(inlined) => framed(lets(inlined, scope, float_kernel)?, inlined),
        ExprKind::If(c, a, b) => {
            let c = int_kernel(c, scope)?;
            let (a, b) = (float_kernel(a, scope)?, float_kernel(b, scope)?);
            Some(Box::new(move |chunk, out| {
                select(chunk, out, &*c, &*a, &*b)
            }))
        }
        ExprKind::Prim(Prim::FloatArith(op, single), args) if args.len() == 2 => {
            let a = float_kernel(&args[0], scope)?;
            let b = float_kernel(&args[1], scope)?;
            let (op, single) = (*op, *single);
            Some(Box::new(move |chunk, out| {
                binary_prefix(chunk, out, &*a, &*b, |x, y| {
                    Ok(round_float(float_arith(op, x, y), single))
                })
            }))
        }
        ExprKind::Prim(Prim::FloatNeg, args) if args.len() == 1 => {
            let a = float_kernel(&args[0], scope)?;
            Some(Box::new(move |chunk, out| {
                a(chunk, out)?;
                for x in out.iter_mut() {
                    *x = -*x;
                }
                Ok(())
            }))
        }
        ExprKind::Prim(Prim::Convert, args)
            if args.len() == 1 && matches!(args[0].ty, Type::Int(_)) =>
        {
            let Type::Int(from) = args[0].ty else {
                return None;
            };
            let single = e.ty == Type::Float;
            let a = int_kernel(&args[0], scope)?;
            Some(Box::new(move |chunk, out| {
                let mut ints = vec![0i64; out.len()];
                let result = a(chunk, &mut ints);
                let valid = match &result {
                    Ok(()) => ints.len(),
                    Err((k, _)) => *k,
                };
                for k in 0..valid {
                    out[k] = round_float(int_value(ints[k], from) as f64, single);
                }
                result
            }))
        }
        ExprKind::Index { array, index, mode } => {
            let slot = scope.env_slot(place_read(array)?)?;
            let Type::Array(elem, _) = &array.ty else {
                return None;
            };
            if !is_float(elem) {
                return None;
            }
            let position = int_kernel(index, scope)?;
            let index_ity = match &index.ty {
                Type::Int(ity) => Some(*ity),
                _ => None,
            };
            let (mode, array_ty, index_span) = (*mode, array.ty.clone(), index.span);
            Some(Box::new(move |chunk, out| {
                let mut positions = vec![0i64; out.len()];
                let result = position(chunk, &mut positions);
                let valid = match &result {
                    Ok(()) => positions.len(),
                    Err((k, _)) => *k,
                };
                let Value::Array(view) = &chunk.env[slot] else {
                    return Err((0, internal(span)));
                };
                let Buffer::Scalars(values) = &*view.buf else {
                    return Err((0, internal(span)));
                };
                let n = view.len;
                for k in 0..valid {
                    let position = match (mode, index_ity) {
                        (IndexMode::Linear, Some(ity)) => int_value(positions[k], ity),
                        _ => positions[k] as u64 as i128,
                    };
                    if position < 0 || position >= n as i128 {
                        return Err((k, index_fault(position, &array_ty, n, index_span)));
                    }
                    out[k] = values.float(view.start + position as usize);
                }
                result
            }))
        }
        _ => None,
    }
}

/// A comparison of two integer-like or two floating operands, giving 0 or 1.
fn compare_kernel(op: CmpOp, a: &Expr, b: &Expr, scope: &mut VecScope) -> Option<IntKernel> {
    if is_float(&a.ty) {
        let (x, y) = (float_kernel(a, scope)?, float_kernel(b, scope)?);
        return Some(Box::new(move |chunk, out| {
            let mut left = vec![0f64; out.len()];
            let mut right = vec![0f64; out.len()];
            let mut valid = out.len();
            let mut pending = None;
            if let Err((k, e)) = x(chunk, &mut left) {
                valid = k;
                pending = Some((k, e));
            }
            if let Err((k, e)) = y(chunk, &mut right[..valid]) {
                valid = k;
                pending = Some((k, e));
            }
            for k in 0..valid {
                out[k] = float_holds(op, left[k], right[k]) as i64;
            }
            pending.map_or(Ok(()), Err)
        }));
    }
    if !is_int_like(&a.ty) || a.ty == Type::Char {
        return None;
    }
    let unsigned = match &a.ty {
        Type::Int(ity) => !ity.signed() && ity.bits() == 64,
        _ => true,
    };
    let (x, y) = (int_kernel(a, scope)?, int_kernel(b, scope)?);
    Some(Box::new(move |chunk, out| {
        binary_prefix(chunk, out, &*x, &*y, |l, r| {
            let ordering = if unsigned {
                (l as u64).cmp(&(r as u64))
            } else {
                l.cmp(&r)
            };
            Ok(holds(op, ordering) as i64)
        })
    }))
}

/// The positions of `input` (a chunk's element variable or a `val`'s values) listed in
/// `positions`, as an explicit input.
fn gather_input(input: Input<'_>, positions: &[usize]) -> GatheredInput {
    match input {
        Input::I64(values) => GatheredInput::I64(positions.iter().map(|p| values[*p]).collect()),
        Input::F64(values) => GatheredInput::F64(positions.iter().map(|p| values[*p]).collect()),
    }
}

enum GatheredInput {
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl GatheredInput {
    fn input(&self) -> Input<'_> {
        match self {
            GatheredInput::I64(v) => Input::I64(v),
            GatheredInput::F64(v) => Input::F64(v),
        }
    }
}

/// The kernel of an inlined body, with the body's function noted in the call stack of a
/// fault raised inside it.
fn framed<T: 'static>(
    kernel: Box<KernelFn<T>>,
    inlined: &crate::core::ir::Inlined,
) -> Option<Box<KernelFn<T>>> {
    let Some(crate::core::ir::InlinedFrame { name, unit }) = &inlined.frame else {
        return Some(kernel);
    };
    let (name, unit, call) = (name.clone(), *unit, inlined.call);
    Some(Box::new(move |chunk, out| {
        kernel(chunk, out).map_err(|(k, e)| (k, super::error::note_frame(e, &name, unit, call)))
    }))
}

/// `if c then a else b` over a chunk, exactly as element by element: each branch runs only
/// on the elements that take it (gathered into a chunk of their own), so a branch's fault
/// counts only where the branch is taken; the earliest fault in element order wins.
fn select<T: Copy + Default>(
    chunk: &Chunk<'_>,
    out: &mut [T],
    cond: &KernelFn<i64>,
    a: &KernelFn<T>,
    b: &KernelFn<T>,
) -> Result<(), ChunkFault> {
    let mut mask = vec![0i64; out.len()];
    let (mut valid, mut pending) = match cond(chunk, &mut mask) {
        Ok(()) => (out.len(), None),
        Err((k, e)) => (k, Some((k, e))),
    };
    let (taken, other): (Vec<usize>, Vec<usize>) = (0..valid).partition(|k| mask[*k] != 0);
    for (branch, positions) in [(a, taken), (b, other)] {
        if positions.is_empty() {
            continue;
        }
        let input = gather_input(chunk.input, &positions);
        let lets: Vec<GatheredInput> = chunk
            .lets
            .iter()
            .map(|l| gather_input(*l, &positions))
            .collect();
        let let_inputs: Vec<Input<'_>> = lets.iter().map(|l| l.input()).collect();
        let sub = Chunk {
            input: input.input(),
            env: chunk.env,
            lets: &let_inputs,
        };
        let mut results = vec![T::default(); positions.len()];
        let done = match branch(&sub, &mut results) {
            Ok(()) => positions.len(),
            Err((j, e)) => {
                if positions[j] < valid {
                    valid = positions[j];
                    pending = Some((positions[j], e));
                }
                j
            }
        };
        for (j, p) in positions[..done].iter().enumerate() {
            out[*p] = results[j];
        }
    }
    pending.map_or(Ok(()), Err)
}

/// The `val`s of an inlined block body (`val y = e1; ...; return r`): each value computed
/// for the chunk into a buffer that later reads of the `val` take, then the result.
fn lets<T: Copy + Default + 'static>(
    inlined: &crate::core::ir::Inlined,
    scope: &mut VecScope,
    result_kernel: fn(&Expr, &mut VecScope) -> Option<Box<KernelFn<T>>>,
) -> Option<Box<KernelFn<T>>> {
    let result = inlined.result.as_ref()?;
    if inlined.stmts.is_empty() {
        return result_kernel(result, scope);
    }
    let mut bindings: Vec<Kernel> = Vec::with_capacity(inlined.stmts.len());
    let first = scope.lets.len();
    for stmt in &inlined.stmts {
        let crate::core::ir::Stmt::Assign(place @ Place::Local(_), value) = stmt else {
            return None;
        };
        if *place == scope.var || Some(*place) == scope.written || scope.lets.contains(place) {
            return None;
        }
        bindings.push(kernel(value, scope)?);
        scope.lets.push(*place);
    }
    let body = result_kernel(result, scope)?;
    Some(Box::new(move |chunk, out| {
        run_lets(&bindings, &*body, chunk, out, chunk.lets[..first].to_vec())
    }))
}

/// Compute the first binding's values for the chunk, then the rest with it in scope, then
/// the body; the earliest fault wins and the body runs on the prefix before it.
fn run_lets<T: Copy + Default>(
    bindings: &[Kernel],
    body: &KernelFn<T>,
    chunk: &Chunk<'_>,
    out: &mut [T],
    inputs: Vec<Input<'_>>,
) -> Result<(), ChunkFault> {
    let scoped = Chunk {
        input: chunk.input,
        env: chunk.env,
        lets: &inputs,
    };
    let Some((binding, rest)) = bindings.split_first() else {
        return body(&scoped, out);
    };
    let mut valid = out.len();
    let mut pending: Option<ChunkFault> = None;
    let buffer = match binding {
        Kernel::Int(k) => {
            let mut values = vec![0i64; valid];
            if let Err((j, e)) = k(&scoped, &mut values) {
                valid = j;
                pending = Some((j, e));
            }
            GatheredInput::I64(values)
        }
        Kernel::Float(k) => {
            let mut values = vec![0f64; valid];
            if let Err((j, e)) = k(&scoped, &mut values) {
                valid = j;
                pending = Some((j, e));
            }
            GatheredInput::F64(values)
        }
    };
    let mut next = inputs.clone();
    next.push(buffer.input());
    run_lets(rest, body, chunk, &mut out[..valid], next)?;
    pending.map_or(Ok(()), Err)
}
