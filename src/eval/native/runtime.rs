//! What native code calls: the evaluator's closures for the pieces lowering does not
//! represent, error construction (with the same kernels and messages as the evaluator),
//! views of array storage, frames. Every helper is `extern "C"`, takes the `Runtime` first and
//! never unwinds: a failure is recorded in the runtime (`fail`) for the native code to test,
//! a panic caught and re-raised at the edge (`take_failure`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::core::ir::{ArithOp, GlobalDef, MathFn};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::Shape;
use super::super::closure::Instance;
use super::super::code::{BindCode, ExprCode, StmtCode};
use super::super::error::{
    interrupted, note_frame, runtime_error, used_before_initialisation, INTERNAL, OVERFLOW,
};
use super::super::value::{ArgForm, ArrayVal, Buffer, Scalars, Value, MAX_SUM_PARTS};
use super::super::{Ctrl, Frame, Runtime};
use super::Repr;

/// Why native code is unwinding.
pub enum Fault {
    Error(Ctrl),
    Panic(Box<dyn std::any::Any + Send>),
}

/// Record a failure for the native code to find.
pub(super) fn fail(rt: &Runtime<'_>, fault: Fault) {
    *rt.native_fault.borrow_mut() = Some(fault);
    rt.native_failed.set(1);
}

/// After native code returns: the error it unwound with, if any (a panic is resumed).
pub fn take_failure(rt: &Runtime<'_>) -> Result<(), Ctrl> {
    if rt.native_failed.get() == 0 {
        return Ok(());
    }
    rt.native_failed.set(0);
    match rt.native_fault.borrow_mut().take() {
        Some(Fault::Error(ctrl)) => Err(ctrl),
        Some(Fault::Panic(payload)) => std::panic::resume_unwind(payload),
        None => Err(runtime_error(
            INTERNAL,
            "native code failed without an error",
            Span::default(),
        )),
    }
}

/// Run `f`, turning its error or panic into a recorded failure (and `default`).
pub(super) fn guarded<R>(rt: &Runtime<'_>, default: R, f: impl FnOnce() -> Result<R, Ctrl>) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => value,
        Ok(Err(ctrl)) => {
            fail(rt, Fault::Error(ctrl));
            default
        }
        Err(payload) => {
            fail(rt, Fault::Panic(payload));
            default
        }
    }
}

/// What a failing check in native code reports: the error is built here, from the operands
/// native code passes, by the evaluator's own kernels.
pub enum Site {
    /// Checked integer division or remainder (the fast path could not decide).
    IntArith(ArithOp, IntTy, Span),
    /// `+ - *` whose result native code found outside the type: always an error.
    Overflow(ArithOp, IntTy, Span),
    /// A counting loop's variable stepped past its type (up or down from `a`).
    Step(IntTy, bool, Span),
    /// A global read before its initialiser ran.
    Uninitialised(Arc<GlobalDef>, Span),
    /// An index outside `0 .. n`.
    Index {
        array_ty: Type,
        n: usize,
        linear: Option<IntTy>,
        span: Span,
    },
    /// A call nested deeper than the limit.
    TooDeep(String, Span),
    /// Ctrl-C seen at a loop or call.
    Interrupted(Span),
    /// `s.[i]` outside the string (`a` the index, `b` the length).
    StrIndex(Span),
    /// A conversion of the integer `a` between the two integer types, out of the second's
    /// range.
    Convert(Type, Type, Span),
    /// No arm of a `match` on a value of this type took it (`a` the address of the value).
    NoMatch(Type, Span),
    /// An error leaving a call of `name` (defined in unit `unit`) made at the span.
    Frame(String, u32, Span),
}

/// The error of `site` for the operands `a` and `b`, or the value when the evaluator's
/// kernel finds none (a fast path may be conservative).
extern "C" fn fault(rt: &Runtime<'_>, site: &Site, a: i64, b: i64) -> i64 {
    guarded(rt, 0, || match site {
        Site::IntArith(op, ity, span) => {
            super::super::prims::int_arith(*op, *ity, a, b).map_err(|fault| fault.at(*span))
        }
        Site::Overflow(op, ity, span) => match super::super::prims::int_arith(*op, *ity, a, b) {
            Err(fault) => Err(fault.at(*span)),
            Ok(_) => Err(runtime_error(
                INTERNAL,
                format!("native code found {a} {op:?} {b} outside {}", ity.name()),
                *span,
            )),
        },
        Site::Step(ity, up, span) => Err(runtime_error(
            OVERFLOW,
            format!(
                "{} overflow: loop variable stepped to {}",
                ity.name(),
                super::super::prims::int_value(a, *ity) + if *up { 1 } else { -1 }
            ),
            *span,
        )),
        Site::Uninitialised(def, span) => Err(used_before_initialisation(def, *span)),
        Site::Index {
            array_ty,
            n,
            linear,
            span,
        } => {
            let position = match linear {
                Some(ity) => super::super::prims::int_value(a, *ity),
                None => a as u64 as i128,
            };
            Err(super::super::compile::index_error(position, array_ty, *n).at(*span))
        }
        Site::TooDeep(name, span) => Err(runtime_error(
            super::super::error::RECURSION_TOO_DEEP,
            format!(
                "recursion too deep: more than {} nested calls (calling {name})",
                rt.max_depth
            ),
            *span,
        )),
        Site::Interrupted(span) => Err(interrupted(*span)),
        Site::Convert(from, to, span) => {
            match super::super::prims::convert(&Value::Int(a), from, to) {
                Ok(Value::Int(n)) => Ok(n),
                Ok(_) => Ok(0),
                Err(fault) => Err(fault.at(*span)),
            }
        }
        Site::NoMatch(ty, span) => {
            // SAFETY: native code passes the address of the scrutinee's live value.
            let value = unsafe { &*(a as *const Value) };
            Err(super::super::compile::no_match(value, ty, *span))
        }
        Site::StrIndex(span) => {
            Err(super::super::prims::str_index_error(a as i128, b as i128).at(*span))
        }
        Site::Frame(..) => Ok(b),
    })
}

/// Note on the error being unwound that it left the call of `site` (a `Site::Frame`).
extern "C" fn note_call(rt: &Runtime<'_>, site: &Site) {
    if let Site::Frame(name, unit, span) = site {
        note_frame_of(rt, name, *unit, *span);
    }
}

/// Note on the error being unwound that it left a call of the function `name` (of `unit`) at
/// `span`.
pub(super) fn note_frame_of(rt: &Runtime<'_>, name: &str, unit: u32, span: Span) {
    let mut fault = rt.native_fault.borrow_mut();
    if let Some(Fault::Error(_)) = &*fault {
        if let Some(Fault::Error(ctrl)) = fault.take() {
            *fault = Some(Fault::Error(note_frame(ctrl, name, unit, span)));
        }
    }
}

/// The frame slots `frame .. frame + n` as the evaluator's frame, with the captures `caps ..
/// caps + ncaps` of the function running.
///
/// # Safety
/// `frame` points at `n` initialised values owned by the native caller, `caps` at `ncaps`
/// (or is null when `ncaps` is 0).
unsafe fn frame_of<'a, 'o>(
    rt: &'a Runtime<'o>,
    frame: *mut Value,
    n: usize,
    caps: *const Value,
    ncaps: usize,
) -> Frame<'a, 'o> {
    Frame {
        slots: std::slice::from_raw_parts_mut(frame, n),
        captures: captures_of(caps, ncaps),
        rt,
    }
}

/// The captures `caps .. caps + n` (none when `n` is 0).
///
/// # Safety
/// `caps` points at `n` initialised values that outlive the use.
unsafe fn captures_of<'a>(caps: *const Value, n: usize) -> &'a [Value] {
    if n == 0 || caps.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(caps, n)
    }
}

/// Evaluate a fallback expression in the native frame (with the function's `ncaps`
/// captures), its value into `out` (a slot of the frame). 0: done; 1: failed.
extern "C" fn eval_expr(
    rt: &Runtime<'_>,
    code: &ExprCode,
    frame: *mut Value,
    n: usize,
    caps: *const Value,
    ncaps: usize,
    out: *mut Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: the native caller passes its frame of `n` slots, its captures, and `out`
        // inside the frame.
        let mut frame = unsafe { frame_of(rt, frame, n, caps, ncaps) };
        let value = code(&mut frame)?;
        unsafe { *out = value };
        Ok(0)
    })
}

/// Evaluate a kernel on native operands: `code` reads its operands as the captures `caps ..
/// caps + ncaps` (scalar values written by native code), its value into `out`. 0: done; 1:
/// failed.
extern "C" fn eval_kernel(
    rt: &Runtime<'_>,
    code: &ExprCode,
    caps: *const Value,
    ncaps: usize,
    out: *mut Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: the native caller passes `ncaps` initialised scalar values.
        let captures = unsafe { std::slice::from_raw_parts(caps, ncaps) };
        let mut frame = Frame {
            slots: &mut [],
            captures,
            rt,
        };
        let value = code(&mut frame)?;
        unsafe { *out = value };
        Ok(0)
    })
}

/// Run a fallback statement in the native frame (with the function's `ncaps` captures). 0:
/// done; 1: failed; 2: `break` and 3: `continue` of the loop labelled `native_label`; 4:
/// `return` (the value in `returned`).
extern "C" fn run_stmt(
    rt: &Runtime<'_>,
    code: &StmtCode,
    frame: *mut Value,
    n: usize,
    caps: *const Value,
    ncaps: usize,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: the native caller passes its frame of `n` slots and its captures.
        let mut frame = unsafe { frame_of(rt, frame, n, caps, ncaps) };
        match code(&mut frame) {
            Ok(()) => Ok(0),
            Err(Ctrl::Break(label)) => {
                rt.native_label.set(label);
                Ok(2)
            }
            Err(Ctrl::Continue(label)) => {
                rt.native_label.set(label);
                Ok(3)
            }
            Err(Ctrl::Return) => Ok(4),
            Err(error) => Err(error),
        }
    })
}

/// The value of the `return` a fallback statement made, as bits of `repr`.
extern "C" fn returned_bits(rt: &Runtime<'_>, repr: u64) -> u64 {
    let value = rt.take_returned();
    repr_of(repr as u32).unboxed(&value)
}

/// A `return` out of native code run by the evaluator (a block over run-time sizes inside a
/// function): the value is in the runtime's `returned`; the evaluator's caller takes it when
/// this failure reaches it as `Ctrl::Return`.
extern "C" fn return_out(rt: &Runtime<'_>) {
    fail(rt, Fault::Error(Ctrl::Return));
}

pub(super) fn repr_of(code: u32) -> Repr {
    match code {
        0 => Repr::I64,
        1 => Repr::F64,
        _ => Repr::Unit,
    }
}

/// The code `returned_bits` takes for a representation.
pub fn repr_code(repr: Repr) -> u32 {
    match repr {
        Repr::I64 => 0,
        Repr::F64 => 1,
        Repr::Unit | Repr::Ref => 2,
    }
}

/// The leaves of the array in `value` (a slot): their address and count, into `out`, the
/// storage made unshared first when `write` is 1 (copy-on-write); null and 0 when it holds no
/// array of unboxed scalars (not assigned yet).
extern "C" fn array_view(value: &mut Value, write: u32, out: &mut [usize; 2]) {
    *out = in_cell(value, |value| match leaves_of(value, write == 1) {
        Some((data, len)) => [data, len],
        None => [0, 0],
    });
}

/// `view` of the value in `value`, or, when it is a captured variable's cell, of the value in
/// the cell, under its lock. A view stays valid after the lock is released, as a frame slot's
/// does: until the variable is assigned or its storage is shared, and native code keeps it
/// only for a loop that does neither (`hoist`).
fn in_cell<R>(value: &mut Value, view: impl FnOnce(&mut Value) -> R) -> R {
    match value {
        Value::Cell(cell) => view(&mut cell.lock()),
        plain => view(plain),
    }
}

/// The bytes of the string in `value` (a slot): their address and count, into `out`; null and
/// 0 when it holds no string (the address of an empty string's bytes is not null).
extern "C" fn string_view(value: &Value, out: &mut [usize; 2]) {
    *out = match value {
        Value::Str(s) => [s.as_ptr() as usize, s.len()],
        _ => [0, 0],
    };
}

/// The columns of the array of tuples (records, structs) of scalars in `value` (a slot):
/// the element count into `out[0]`, then the address of each column's first leaf, the
/// storage made unshared first when `write` is 1; a count of 0 when it holds no such array.
extern "C" fn columns_view(value: &mut Value, write: u32, out: *mut usize) {
    in_cell(value, |value| columns_into(value, write == 1, 0, out));
}

/// The columns of the array of tuples a pointer points at (the pointer is the value at
/// `pointer`), from its target on, as `columns_view` gives them; a count of 0 (and the first
/// column's address untouched) when native code cannot see the target (a cast pointer).
extern "C" fn pointer_columns_view(rt: &Runtime<'_>, pointer: &Value, write: u32, out: *mut usize) {
    use super::super::pointer::{Base, StepKind};
    // SAFETY: the native caller passes one word for the count and one per column.
    unsafe { *out = 0 };
    let Value::Ptr(p) = pointer else {
        return;
    };
    let mut offset = 0;
    for (kind, position) in &p.steps {
        let StepKind::Element(shape) = kind else {
            return;
        };
        offset += position * shape.elem_leaves;
    }
    let write = write == 1;
    match &p.base {
        // SAFETY: the closure only updates the global's value in place.
        Base::Global(slot) => unsafe {
            rt.globals.with_mut(*slot as usize, |value| {
                columns_into(value, write, offset, out)
            })
        },
        Base::Cell(cell) => {
            let mut value = cell.lock();
            columns_into(&mut value, write, offset, out)
        }
        Base::Cast { .. } => {}
    }
}

/// Write the columns view of the array of tuples of scalars at `value` from element
/// `offset` on (count, then each column's address) to `out`, made unshared first when
/// `write`; a count of 0 when it holds no such array or fewer than `offset` elements.
fn columns_into(value: &mut Value, write: bool, offset: usize, out: *mut usize) {
    // SAFETY: the native caller passes one word for the count and one per column.
    unsafe { *out = 0 };
    let Value::Array(array) = value else {
        return;
    };
    let len = array.len;
    if offset > len {
        return;
    }
    let start = if write { 0 } else { array.start };
    let buffer: &Buffer = if write {
        super::super::array::make_unique(array)
    } else {
        &array.buf
    };
    let Buffer::Columns(columns) = buffer else {
        return;
    };
    for (c, column) in columns.columns.iter().enumerate() {
        let data = column.addr(start + offset);
        // SAFETY: as above.
        unsafe { *out.add(1 + c) = data };
    }
    // SAFETY: as above.
    unsafe { *out = len - offset };
}

/// The view (leaves' address and count) of the array at `value` when it is an array of
/// unboxed scalars, made unshared first when `write`.
fn leaves_of(value: &mut Value, write: bool) -> Option<(usize, usize)> {
    leaves_and_width(value, write).map(|(data, len, _)| (data, len))
}

/// `leaves_of`, with the bytes of one leaf.
fn leaves_and_width(value: &mut Value, write: bool) -> Option<(usize, usize, usize)> {
    let Value::Array(array) = value else {
        return None;
    };
    if write {
        let len = array.len;
        return match super::super::array::make_unique(array) {
            Buffer::Scalars(v) => Some((v.addr_mut(), len, v.kind().bytes())),
            _ => None,
        };
    }
    match &*array.buf {
        Buffer::Scalars(v) => Some((v.addr(array.start), array.len, v.kind().bytes())),
        _ => None,
    }
}

/// The view of the array a pointer points at (the pointer is the value at `pointer`): the
/// address and count of the leaves from the pointer's target on, into `out`; the storage is
/// made unshared first when `write` is 1. Null and 0 when the target is not reached by
/// element steps into an array of unboxed scalars held in a variable (a cast pointer): native
/// code then runs the access on the closure compiler.
extern "C" fn pointer_view(rt: &Runtime<'_>, pointer: &Value, write: u32, out: &mut [usize; 2]) {
    use super::super::pointer::{Base, StepKind};
    *out = [0, 0];
    let Value::Ptr(p) = pointer else {
        return;
    };
    let mut offset = 0;
    for (kind, position) in &p.steps {
        let StepKind::Element(shape) = kind else {
            return;
        };
        offset += position * shape.elem_leaves;
    }
    let write = write == 1;
    let view = match &p.base {
        // SAFETY: the closure only updates the global's value in place.
        Base::Global(slot) => unsafe {
            rt.globals
                .with_mut(*slot as usize, |value| leaves_and_width(value, write))
        },
        Base::Cell(cell) => {
            let mut value = cell.lock();
            leaves_and_width(&mut value, write)
        }
        Base::Cast { .. } => None,
    };
    if let Some((data, len, width)) = view.filter(|(_, len, _)| offset <= *len) {
        *out = [data + offset * width, len - offset];
    }
}

/// Drop the `n` values of a native frame that is being left.
extern "C" fn drop_frame(frame: *mut Value, n: usize) {
    for i in 0..n {
        // SAFETY: the frame's slots are initialised values, dropped once, as it is left.
        unsafe { std::ptr::drop_in_place(frame.add(i)) };
    }
}

/// Copy the value at `from` into the slot at `to` (which holds a value, replaced).
extern "C" fn clone_value(from: &Value, to: &mut Value) {
    *to = from.clone();
}

/// The order of the values at `a` and `b` by `compare`, the evaluator's comparator of their
/// type: -1, 0 or 1.
extern "C" fn compare_values(
    compare: &crate::eval::prims::Comparator,
    a: &Value,
    b: &Value,
) -> i64 {
    compare(a, b) as i64
}

/// Put a fresh cell into each of the `n` slots listed at `slots`.
extern "C" fn init_cells(frame: *mut Value, slots: *const u32, n: usize) {
    for i in 0..n {
        // SAFETY: the list has `n` slots of the frame, which hold `Unit` (nothing to drop).
        unsafe {
            let slot = *slots.add(i) as usize;
            frame
                .add(slot)
                .write(Value::Cell(crate::eval::value::new_cell(Value::Unit)));
        }
    }
}

/// The bits (of the representation coded `repr`, `repr_code`) of the variable whose value
/// is at `at`: a captured variable's cell (read under its lock), or a plain value.
extern "C" fn cell_read(at: &Value, repr: u64) -> u64 {
    let repr = repr_of(repr as u32);
    match at {
        Value::Cell(cell) => repr.unboxed(&cell.lock()),
        plain => repr.unboxed(plain),
    }
}

/// A copy of the variable whose value is at `at` (a cell's content, or a plain value) into
/// `out` (which holds a value, replaced).
extern "C" fn cell_clone(at: &Value, out: *mut Value) {
    let value = match at {
        Value::Cell(cell) => cell.lock().clone(),
        plain => plain.clone(),
    };
    // SAFETY: native code passes a live value.
    unsafe { *out = value };
}

/// Assign the variable whose cell is at `at` the value of `bits` (of the representation coded
/// `repr`). A slot of the frame that holds no cell yet gets one (`local` 1), as the
/// evaluator's assignment does; a capture that is no cell is left (`local` 0).
extern "C" fn cell_write(at: *mut Value, repr: u64, bits: u64, local: u64) {
    cell_assign(at, repr_of(repr as u32).boxed(bits), local)
}

/// Assign the variable whose cell is at `at` the value at `value` (moved out, leaving
/// `unit`), as `cell_write` does.
extern "C" fn cell_put(at: *mut Value, value: *mut Value, local: u64) {
    // SAFETY: native code passes a live value it owns.
    let value = std::mem::replace(unsafe { &mut *value }, Value::Unit);
    cell_assign(at, value, local)
}

fn cell_assign(at: *mut Value, value: Value, local: u64) {
    // SAFETY: native code passes the address of a live frame slot or capture.
    match unsafe { &*at } {
        Value::Cell(cell) => *cell.lock() = value,
        _ if local == 1 => unsafe {
            *at = Value::Cell(crate::eval::value::new_cell(value));
        },
        _ => {}
    }
}

/// A function value of `instance` into `out` (which holds a value, replaced), capturing
/// copies of the `instance.captures.len()` values at `caps` (the creating frame's values,
/// gathered by native code as `Capture` says).
extern "C" fn make_closure(instance: &Arc<Instance>, caps: *const Value, out: *mut Value) {
    // SAFETY: native code passes one live value per capture of the instance, and `out`.
    let captures = unsafe { captures_of(caps, instance.captures.len()) };
    let closure = super::super::closure::Closure::new(
        instance.clone(),
        captures.iter().cloned().collect(),
        Vec::new(),
    );
    unsafe { *out = Value::Fun(Arc::new(closure)) };
}

/// A unary math function of the evaluator (`library::math`).
extern "C" fn math(f: u32, x: f64) -> f64 {
    const FNS: [MathFn; 17] = [
        MathFn::Sqrt,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Log10,
        MathFn::Ceil,
        MathFn::Floor,
        MathFn::Trunc,
        MathFn::Abs,
    ];
    super::super::library::math(FNS[f as usize], x)
}

/// The index of `f` for `math`.
pub fn math_code(f: MathFn) -> u32 {
    f as u32
}

extern "C" fn atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

extern "C" fn pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// Call an instance that has no native body through the evaluator (a trampoline's body),
/// with the captures at `caps` (one per capture of the instance): the arguments as bits per
/// its signature (a boxed group as its value's address); the result as bits, or into `out`
/// when boxed.
extern "C" fn call_evaluator(
    rt: &Runtime<'_>,
    target: &Trampoline,
    caps: *const Value,
    bits: *const u64,
    out: *mut Value,
) -> u64 {
    guarded(rt, 0, || {
        let mut k = 0;
        let mut args = Vec::with_capacity(target.sig.groups.len());
        let groups = target.sig.groups.iter().zip(&target.sig.boxed);
        for ((group, boxed), array) in groups.zip(&target.sig.arrays) {
            let mut word = || {
                // SAFETY: the native caller passes one word per flattened parameter.
                let w = unsafe { *bits.add(k) };
                k += 1;
                w
            };
            if *boxed {
                // SAFETY: a boxed group's word is the address of a live value.
                args.push(unsafe { (*(word() as *const Value)).clone() });
                continue;
            }
            let mut parts: Vec<Value> = group.iter().map(|repr| repr.boxed(word())).collect();
            args.push(match (parts.len(), array) {
                (0, _) => Value::Unit,
                (1, _) => parts.pop().unwrap_or(Value::Unit),
                (_, Some(kind)) => Value::Array(ArrayVal::new(Buffer::Scalars(
                    Scalars::from_values(*kind, &parts),
                ))),
                _ => Value::Tuple(parts.into()),
            });
        }
        // SAFETY: the caller passes the instance's captures.
        let captures = unsafe { captures_of(caps, target.instance.captures.len()) };
        let value = super::super::closure::run_instance(rt, &target.instance, captures, args)?;
        if target.sig.has_out() {
            // SAFETY: the caller's `out` holds a value (`Unit`), replaced here.
            unsafe { *out = value };
            return Ok(0);
        }
        Ok(target.sig.ret.unboxed(&value))
    })
}

/// Bind a boxed parameter group: run the instance's pattern binder for group `group` on a
/// copy of the value at `value`, in the native frame. 0: done; 1: failed.
extern "C" fn bind_group(
    rt: &Runtime<'_>,
    instance: &Instance,
    group: usize,
    frame: *mut Value,
    n: usize,
    value: &Value,
) -> u32 {
    guarded(rt, 1, || {
        let Some(code) = instance.code.get() else {
            return Ok(0);
        };
        // SAFETY: the native function passes its own frame of `n` slots.
        let mut frame = unsafe { frame_of(rt, frame, n, std::ptr::null(), 0) };
        match (code.param_slots[group], &code.params[group]) {
            (Some(slot), _) => frame.slots[slot] = value.clone(),
            (None, binder) => {
                binder(&mut frame, value)?;
            }
        }
        Ok(0)
    })
}

/// Put the variant of case `tag` with the argument moved out of `arg`, held as `form` (an
/// `ArgForm`'s byte), into `out` (which holds a value, replaced), as the closure compiler
/// builds it.
extern "C" fn make_sum(tag: u64, form: u64, arg: &mut Value, out: &mut Value) {
    let arg = std::mem::replace(arg, Value::Unit);
    let form = ArgForm::from_byte(form as u8).unwrap_or(ArgForm::Whole);
    *out = Value::sum(tag as u32, form, arg);
}

/// Put the argument of the case at `sum` (a `Value::Sum`) into `out` (which holds a value,
/// replaced): made again from the parts its node holds it as.
extern "C" fn sum_argument(sum: &Value, out: &mut Value) {
    if let Value::Sum(node) = sum {
        *out = node.argument().into_owned();
    }
}

/// A tuple or array literal native code builds from parts it computed.
pub struct Parts {
    /// The array's shape, or `None` for a tuple or struct.
    pub shape: Option<Shape>,
    pub ty: Type,
    pub span: Span,
    /// The case whose argument the literal is (`Node (l, k, r)`), and the form its node
    /// holds an argument of the literal's type in: the value made is that case's.
    pub sum: Option<(u32, ArgForm)>,
}

/// Put the value of the literal `parts` describes (or of its case, `Parts::sum`), its `n`
/// parts moved out of `values`, into `out` (which holds a value, replaced), as the closure
/// compiler builds it. 0: done; 1: failed (no room for the array).
extern "C" fn make_parts(
    rt: &Runtime<'_>,
    parts: &Parts,
    values: *mut Value,
    n: usize,
    out: &mut Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: the native caller passes `n` initialised values of its own, left `Unit`.
        let values = unsafe { std::slice::from_raw_parts_mut(values, n) };
        let take = |v: &mut Value| std::mem::replace(v, Value::Unit);
        // A case whose argument its node holds as parts: the parts moved there.
        if let Some((tag, form)) = parts.sum {
            if form != ArgForm::Whole && (2..=MAX_SUM_PARTS).contains(&n) {
                *out = Value::sum_taking(tag, form, values);
                return Ok(0);
            }
        }
        let boxed = |shape: &Shape| {
            shape.repr == crate::eval::value::LeafRepr::Boxed && !shape.elem_is_array
        };
        let value = match &parts.shape {
            None => crate::eval::value::tuple_taking(values),
            Some(shape) if boxed(shape) => Value::Array(
                crate::eval::array::boxed_leaves(
                    values.iter_mut().map(take).collect(),
                    &parts.ty,
                    &rt.limits,
                )
                .map_err(|f| f.at(parts.span))?,
            ),
            Some(shape) => {
                let mut builder =
                    super::super::compile::literal_builder(shape, n, &parts.ty, &rt.limits)
                        .map_err(|f| f.at(parts.span))?;
                values
                    .iter_mut()
                    .for_each(|v| builder.push_element(take(v)));
                Value::Array(builder.finish())
            }
        };
        *out = match parts.sum {
            Some((tag, form)) => Value::sum(tag, form, value),
            None => value,
        };
        Ok(0)
    })
}

/// The part of `value` that the fields `path` lead to (field `i` of a tuple, record or struct
/// value, then of that part, …), as the closure compiler reads it: a value that is not a tuple
/// is its own only field.
fn leaf_at<'v>(value: &'v Value, path: &[u32]) -> &'v Value {
    path.iter().fold(value, |part, &i| match part {
        Value::Tuple(parts) => parts.get(i as usize).unwrap_or(&Value::Unit),
        other => other,
    })
}

/// The bits (of representation `repr`) of the scalar that the `n` fields at `path` lead to
/// in `value` (`leaf_at`).
extern "C" fn leaf_bits(value: &Value, path: *const u32, n: usize, repr: u64) -> u64 {
    // SAFETY: native code passes a path it keeps, of `n` field indices.
    let path = unsafe { std::slice::from_raw_parts(path, n) };
    repr_of(repr as u32).unboxed(leaf_at(value, path))
}

/// Replace the scalar that the `n` fields at `path` lead to in `value` (`leaf_at`) by the
/// bits `bits` of representation `repr`, each tuple on the way made unshared first (as the
/// closure compiler's store does); nothing when the value has no such part (a global not
/// assigned yet, whose error native code raised first).
extern "C" fn set_leaf(value: &mut Value, path: *const u32, n: usize, repr: u64, bits: u64) {
    // SAFETY: as `leaf_bits`.
    let path = unsafe { std::slice::from_raw_parts(path, n) };
    let mut part = value;
    for &i in path {
        part = match part {
            Value::Tuple(parts) => match Arc::make_mut(parts).get_mut(i as usize) {
                Some(field) => field,
                None => return,
            },
            other => other,
        };
    }
    if !matches!(part, Value::Unit) {
        *part = repr_of(repr as u32).boxed(bits);
    }
}

/// The address of the first of the consecutive part values of a tuple, or of an array whose
/// elements are each one boxed leaf; null for any other value (the caller then tests it by
/// the closure compiler's binder). The parts live as long as `value`.
extern "C" fn boxed_parts(value: &Value) -> *const Value {
    match value {
        Value::Tuple(items) => items.as_ptr(),
        Value::Array(view) => match &*view.buf {
            Buffer::Boxed(leaves) if view.start + view.len <= leaves.len() => {
                leaves[view.start..].as_ptr()
            }
            _ => std::ptr::null(),
        },
        _ => std::ptr::null(),
    }
}

/// Test the value at `value` against a pattern compiled by the closure compiler (`code`),
/// binding its variables in the native frame (with the function's `ncaps` captures). 1: it
/// matched; 0: it did not; 2: failed.
extern "C" fn match_pattern(
    rt: &Runtime<'_>,
    code: &BindCode,
    frame: *mut Value,
    n: usize,
    caps: *const Value,
    ncaps: usize,
    value: *const Value,
) -> u32 {
    guarded(rt, 2, || {
        // SAFETY: `value` is a live value: a stack temporary, or a frame slot the pattern
        // does not bind (so it outlives the call untouched). It is read as a shallow copy
        // that is never dropped, so the frame, borrowed mutably below, is not aliased.
        let value = std::mem::ManuallyDrop::new(unsafe { std::ptr::read(value) });
        // SAFETY: the native caller passes its frame of `n` slots and its captures.
        let mut frame = unsafe { frame_of(rt, frame, n, caps, ncaps) };
        Ok(code(&mut frame, &value)? as u32)
    })
}

/// Move the value of the `return` a fallback statement made into `out`.
extern "C" fn returned_into(rt: &Runtime<'_>, out: *mut Value) {
    let value = rt.take_returned();
    // SAFETY: `out` is the caller's result value (it holds a value, replaced here).
    unsafe { *out = value };
}

/// What a trampoline calls.
pub struct Trampoline {
    pub instance: Arc<Instance>,
    pub sig: super::NativeSig,
    /// The call's span (for R0008 when the stack cannot grow).
    pub span: Span,
}

/// Call `target` with the captures at `caps` on a fresh stack segment (the current one is
/// nearly exhausted): through its boxed entry once it has one, otherwise through the
/// evaluator; R0008 when the stack would grow past `--max-stack`. Scalar results come back as
/// bits, aggregate results in `leaves` (a buffer of one word per leaf), a boxed result in the
/// value `leaves` then points at.
extern "C" fn grow_call(
    rt: &Runtime<'_>,
    target: &Trampoline,
    caps: *const Value,
    bits: *const u64,
    leaves: *mut u64,
) -> u64 {
    guarded(rt, 0, || {
        let mut out = Value::Unit;
        use super::super::closure::grow_for_call as grow;
        let result = match target.instance.native.get() {
            Some(entry) => {
                type Entry =
                    extern "C" fn(*const Runtime<'_>, *const Value, *const u64, *mut Value) -> u64;
                // SAFETY: `boxed` is a boxed entry (`lower::boxed_entry`) of this signature.
                let f: Entry = unsafe { std::mem::transmute(entry.boxed) };
                grow(rt, &target.instance, target.span, || {
                    f(rt, caps, bits, &mut out)
                })
            }
            None => grow(rt, &target.instance, target.span, || {
                call_evaluator(rt, target, caps, bits, &mut out)
            }),
        };
        if let Some(agg) = &target.sig.ret_agg {
            box_unbox(agg, &out, leaves);
        } else if target.sig.ret_boxed && rt.native_failed.get() == 0 {
            // SAFETY: for a boxed result, `leaves` is the caller's value, replaced.
            unsafe { *(leaves as *mut Value) = std::mem::replace(&mut out, Value::Unit) };
        }
        result
    })
}

fn box_unbox(agg: &super::Agg, value: *const Value, bits: *mut u64) {
    // SAFETY: the native caller passes a live value and a buffer of one word per leaf.
    let bits = unsafe { std::slice::from_raw_parts_mut(bits, agg.leaves.len()) };
    agg.unbox(unsafe { &*value }, bits);
}

/// The leaves of the aggregate `value` into `bits` (one word per leaf).
extern "C" fn unbox_leaves(agg: &super::Agg, value: *const Value, bits: *mut u64) {
    box_unbox(agg, value, bits)
}

/// The evaluator's value of the leaves `bits` into `out` (which holds a value, replaced).
extern "C" fn box_leaves(agg: &super::Agg, bits: *const u64, out: *mut Value) {
    // SAFETY: the native caller passes a buffer of one word per leaf and a live value.
    let bits = unsafe { std::slice::from_raw_parts(bits, agg.leaves.len()) };
    unsafe { *out = agg.boxed(bits) };
}

/// What native `map` needs of its array and its result (`lower/map.rs`).
pub struct MapShapes {
    pub input: super::super::array::Shape,
    pub output: super::super::array::Shape,
    pub result_ty: Type,
    pub span: Span,
}

/// Start a `map` over the array in `src`: its result, an array of zeroed scalars, one per
/// element, into `out` (replaced; `unit` when `src` holds no array, as the evaluator's `map`),
/// the leaves' address into `start[0]` and the element count into `start[1]`. 0: done; 1:
/// failed (R0007, as the evaluator reserves the result).
extern "C" fn map_start(
    rt: &Runtime<'_>,
    shapes: &MapShapes,
    src: &Value,
    out: &mut Value,
    start: &mut [usize; 2],
) -> u32 {
    use super::super::array::filled_buffer;
    use super::super::value::LeafRepr;
    guarded(rt, 1, || {
        *start = [0, 0];
        let Value::Array(view) = src else {
            *out = Value::Unit;
            return Ok(0);
        };
        let n = shapes.input.len_of(view);
        // A scalar per leaf (of a scalar or of a row), or a tuple per element (columns).
        let (zero, leaves) = match shapes.output.repr {
            LeafRepr::Scalar(kind) if kind.is_float() => {
                (Value::Float(0.0), shapes.output.elem_leaves)
            }
            LeafRepr::Scalar(_) => (Value::Int(0), shapes.output.elem_leaves),
            LeafRepr::Columns(_) => {
                let Type::Array(elem, _) = &shapes.result_ty else {
                    return Err(runtime_error(INTERNAL, "map into a non-array", shapes.span));
                };
                (
                    super::super::array::zero_value(elem, &rt.limits)
                        .map_err(|f| f.at(shapes.span))?,
                    1,
                )
            }
            LeafRepr::Boxed => {
                return Err(runtime_error(
                    INTERNAL,
                    "map into boxed leaves",
                    shapes.span,
                ))
            }
        };
        let total = n.saturating_mul(leaves);
        let buffer = filled_buffer(
            shapes.output.repr,
            &zero,
            total,
            &shapes.result_ty,
            &rt.limits,
        )
        .map_err(|f| f.at(shapes.span))?;
        *out = Value::Array(ArrayVal::new(buffer));
        *start = [leaves_of(out, true).map_or(0, |(data, _)| data), n];
        Ok(0)
    })
}

/// Cut the array of unboxed scalars in `value`, which owns its buffer (a result being made),
/// to its first `n` leaves: the elements a `filter` kept.
extern "C" fn cut_array(value: &mut Value, n: usize) {
    if let Value::Array(view) = value {
        if let Some(Buffer::Scalars(leaves)) = Arc::get_mut(&mut view.buf) {
            leaves.truncate(n);
            view.len = view.len.min(n);
        }
    }
}

/// Element `i` of the array in `src` (of shape `shape`) into `slot` (replaced): the variable
/// of a `map` or a `for v in a` that native code does not hold in registers (a row, a boxed
/// tuple, a string).
extern "C" fn element(shape: &Shape, src: &Value, i: usize, slot: &mut Value) {
    if let Value::Array(view) = src {
        *slot = shape.element(view, i);
    }
}

/// Move the value at `value` (leaving `unit`) to element `i` of the array of boxed leaves in
/// `slot`, the storage made unshared first, as the closure compiler's store does; dropped
/// when the slot holds no array (a global not assigned yet, whose error native code raised
/// first).
extern "C" fn store_boxed(slot: &mut Value, i: usize, value: &mut Value) {
    let leaf = std::mem::replace(value, Value::Unit);
    if let Value::Array(array) = slot {
        if i < array.len {
            super::super::array::set_leaf(super::super::array::make_unique(array), i, leaf);
        }
    }
}

/// The number of elements of the array in `src` (of shape `shape`); 0 when it holds none.
extern "C" fn element_count(shape: &Shape, src: &Value) -> usize {
    match src {
        Value::Array(view) => shape.len_of(view),
        _ => 0,
    }
}

/// The address of each helper lowering calls, by name.
pub fn address(helper: Helper) -> usize {
    match helper {
        Helper::Fault => fault as *const () as usize,
        Helper::NoteCall => note_call as *const () as usize,
        Helper::EvalExpr => eval_expr as *const () as usize,
        Helper::RunStmt => run_stmt as *const () as usize,
        Helper::ReturnedBits => returned_bits as *const () as usize,
        Helper::ReturnOut => return_out as *const () as usize,
        Helper::ArrayView => array_view as *const () as usize,
        Helper::DropFrame => drop_frame as *const () as usize,
        Helper::InitCells => init_cells as *const () as usize,
        Helper::CellRead => cell_read as *const () as usize,
        Helper::CellWrite => cell_write as *const () as usize,
        Helper::CellPut => cell_put as *const () as usize,
        Helper::CellClone => cell_clone as *const () as usize,
        Helper::CallValue => super::calls::call_value as *const () as usize,
        Helper::NoteValueCall => super::calls::note_value_call as *const () as usize,
        Helper::MakeClosure => make_closure as *const () as usize,
        Helper::Math => math as *const () as usize,
        Helper::Atan2 => atan2 as *const () as usize,
        Helper::Pow => pow as *const () as usize,
        Helper::CallEvaluator => call_evaluator as *const () as usize,
        Helper::GrowCall => grow_call as *const () as usize,
        Helper::BindGroup => bind_group as *const () as usize,
        Helper::EvalKernel => eval_kernel as *const () as usize,
        Helper::ReturnedInto => returned_into as *const () as usize,
        Helper::PointerView => pointer_view as *const () as usize,
        Helper::CloneValue => clone_value as *const () as usize,
        Helper::CompareValues => compare_values as *const () as usize,
        Helper::VarrayView => super::varrays::varray_view as *const () as usize,
        Helper::VarrayPushView => super::varrays::varray_push_view as *const () as usize,
        Helper::VarrayCommit => super::varrays::varray_commit as *const () as usize,
        Helper::MatchPattern => match_pattern as *const () as usize,
        Helper::MakeSum => make_sum as *const () as usize,
        Helper::SumArgument => sum_argument as *const () as usize,
        Helper::MakeParts => make_parts as *const () as usize,
        Helper::LeafBits => leaf_bits as *const () as usize,
        Helper::SetLeaf => set_leaf as *const () as usize,
        Helper::PointerLeafBits => super::pointee::pointer_leaf_bits as *const () as usize,
        Helper::PointerSetLeaf => super::pointee::pointer_set_leaf as *const () as usize,
        Helper::PointerLeavesView => super::pointee::pointer_leaves_view as *const () as usize,
        Helper::BoxedParts => boxed_parts as *const () as usize,
        Helper::StringView => string_view as *const () as usize,
        Helper::BoxLeaves => box_leaves as *const () as usize,
        Helper::ColumnsView => columns_view as *const () as usize,
        Helper::PointerColumnsView => pointer_columns_view as *const () as usize,
        Helper::UnboxLeaves => unbox_leaves as *const () as usize,
        Helper::MapStart => map_start as *const () as usize,
        Helper::CutArray => cut_array as *const () as usize,
        Helper::Element => element as *const () as usize,
        Helper::StoreBoxed => store_boxed as *const () as usize,
        Helper::ElementCount => element_count as *const () as usize,
        Helper::ChunkLoop => super::chunks::chunk_loop as *const () as usize,
        Helper::VarrayNew => super::varrays::varray_new as *const () as usize,
        Helper::VarrayOp => super::varrays::varray_op as *const () as usize,
        Helper::VarrayValuesOp => super::varrays::varray_values_op as *const () as usize,
        Helper::VarrayLeavesOp => super::varrays::varray_leaves_op as *const () as usize,
        Helper::ConcatStrings => super::text::concat_strings as *const () as usize,
        Helper::ParseText => super::text::parse_text as *const () as usize,
        Helper::SearchText => super::text::search_text as *const () as usize,
        Helper::WriteText => super::text::write_text as *const () as usize,
        Helper::ReadLine => super::text::read_line as *const () as usize,
        Helper::SliceText => super::text::slice_text as *const () as usize,
        Helper::AppendStrings => super::text::append_strings as *const () as usize,
        Helper::ShowValue => super::text::show_value as *const () as usize,
        Helper::PrintValue => super::text::print_value as *const () as usize,
    }
}

/// The helpers native code calls.
#[derive(Clone, Copy, Debug)]
pub enum Helper {
    Fault,
    NoteCall,
    EvalExpr,
    RunStmt,
    ReturnedBits,
    ReturnOut,
    ArrayView,
    DropFrame,
    InitCells,
    CellRead,
    CellWrite,
    CellPut,
    CellClone,
    CallValue,
    NoteValueCall,
    MakeClosure,
    Math,
    Atan2,
    Pow,
    CallEvaluator,
    GrowCall,
    BindGroup,
    ReturnedInto,
    EvalKernel,
    PointerView,
    CloneValue,
    CompareValues,
    VarrayView,
    VarrayPushView,
    VarrayCommit,
    StringView,
    BoxLeaves,
    UnboxLeaves,
    ColumnsView,
    PointerColumnsView,
    MapStart,
    CutArray,
    Element,
    StoreBoxed,
    ElementCount,
    ChunkLoop,
    VarrayNew,
    VarrayOp,
    VarrayValuesOp,
    VarrayLeavesOp,
    MatchPattern,
    MakeSum,
    SumArgument,
    MakeParts,
    LeafBits,
    SetLeaf,
    PointerLeafBits,
    PointerSetLeaf,
    PointerLeavesView,
    BoxedParts,
    ConcatStrings,
    ParseText,
    SearchText,
    WriteText,
    ReadLine,
    SliceText,
    AppendStrings,
    ShowValue,
    PrintValue,
}

impl Helper {
    /// Can a chunk of a parallel loop call it on a worker (with the worker's runtime)? The
    /// views are fetched again only where the loop's were null, which it does not run on.
    pub fn on_workers(self) -> bool {
        matches!(
            self,
            Helper::Fault
                | Helper::NoteCall
                | Helper::Math
                | Helper::Atan2
                | Helper::Pow
                | Helper::DropFrame
                | Helper::ArrayView
                | Helper::ColumnsView
        )
    }
}
