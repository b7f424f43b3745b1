//! The runtime's helpers for varrays and darrays: the view native code keeps of scalar
//! elements for a loop, and each operation, run by the kernels' own code
//! (`compile/varray.rs`) under the varray's lock, so values and faults are theirs.

use super::super::compile::varray::{view, NativeVarrayOp};
use super::super::scalars::Scalars;
use super::super::value::{Items, Value};
use super::super::Runtime;
use super::runtime::guarded;
use crate::core::ir::VarrayOp;

/// A new, empty varray of elements of type `element` and bound `bound` (a `size`), written
/// to the value at `out` (replaced).
pub(super) unsafe extern "C" fn varray_new(
    element: &crate::types::Type,
    bound: u64,
    out: *mut Value,
) {
    let varray = super::super::compile::varray::new_varray(element, bound);
    // SAFETY: the caller's live value, replaced.
    unsafe { *out = varray };
}

/// The elements of the varray (or darray) in `value` (a slot), into `out`: when `n` is 1
/// the address of the first if they are scalars, else the address of each of its `n`
/// columns if they are tuples of scalars stored so (null otherwise), then their count; nulls
/// and 0 when it holds no varray.
///
/// # Safety
/// `out` is the address of `n + 1` words the native caller owns.
pub(super) unsafe extern "C" fn varray_view(value: &Value, out: *mut usize, n: usize) {
    // SAFETY: the caller's buffer of `n + 1` words.
    let out = unsafe { std::slice::from_raw_parts_mut(out, n + 1) };
    view(value, out);
}

/// The room for pushes native code keeps for a closed loop (`lower/pushes.rs`), of the
/// varray (or darray) in `value` (a slot), into `out`: the address of each of its `n` columns'
/// storage (one for scalars), the count of elements, how many it may hold before a push must
/// grow the storage or reach its bound, and the address of the elements (the same for two
/// variables holding the same varray). The count and room are 0, and nothing may be pushed in
/// place, when its elements are not stored so (or it holds no varray).
///
/// # Safety
/// `out` is the address of `n + 3` words the native caller owns.
pub(super) unsafe extern "C" fn varray_push_view(value: &Value, out: *mut usize, n: usize) {
    // SAFETY: the caller's buffer of `n + 3` words.
    let out = unsafe { std::slice::from_raw_parts_mut(out, n + 3) };
    out.fill(0);
    let Some(elements) = super::super::compile::varray::elements(value) else {
        return;
    };
    out[n + 2] = std::sync::Arc::as_ptr(elements) as usize;
    let mut d = elements.lock();
    let bound = d.bound;
    let columns: Vec<&mut Scalars> = match &mut d.items {
        Items::Scalars(s) if n == 1 => vec![s],
        Items::Columns(c) if c.columns.len() == n => c.columns.iter_mut().collect(),
        _ => return,
    };
    let len = columns[0].len();
    let room = columns.iter().map(|c| c.capacity()).min().unwrap_or(0);
    for (at, column) in out.iter_mut().zip(columns) {
        *at = column.addr_mut();
    }
    out[n] = len;
    out[n + 1] = room.min(bound).max(len);
}

/// The count of elements of the varray (or darray) in `value` (a slot) set to `len`, after
/// native code pushed elements in place up to it (`varray_push_view`). Nothing is done unless
/// `len` lies between the count and the room of every column.
pub(super) extern "C" fn varray_commit(value: &Value, len: usize) {
    let Some(elements) = super::super::compile::varray::elements(value) else {
        return;
    };
    let mut d = elements.lock();
    let columns: Vec<&mut Scalars> = match &mut d.items {
        Items::Scalars(s) => vec![s],
        Items::Columns(c) => c.columns.iter_mut().collect(),
        _ => return,
    };
    if columns
        .iter()
        .all(|c| c.len() <= len && len <= c.capacity())
    {
        for column in columns {
            // SAFETY: native code wrote every leaf from the count up to `len`, within the
            // room `varray_push_view` gave it, and nothing else touched the storage since.
            unsafe { column.set_len(len) };
        }
    }
}

/// The varray operation `op` on the varray (or darray) at `v`, with the bits of an index `i`
/// and of a scalar element `x`: its result's bits (see `NativeVarrayOp::run`), 0 after a
/// fault.
pub(super) extern "C" fn varray_op(
    rt: &Runtime<'_>,
    op: &NativeVarrayOp,
    v: &Value,
    i: i64,
    x: u64,
) -> u64 {
    match op.run_bits(v, i, x) {
        Some(bits) => bits,
        None => varray_op_slow(rt, op, v, i, x),
    }
}

/// `varray_op` when the operation may fail or must grow the buffer: apart, so that the
/// common case saves no registers for it.
#[cold]
#[inline(never)]
fn varray_op_slow(rt: &Runtime<'_>, op: &NativeVarrayOp, v: &Value, i: i64, x: u64) -> u64 {
    guarded(rt, 0, || {
        let element = op.element.expect("a scalar element");
        let result = op.run(v, i, element.boxed(x), &rt.limits)?;
        Ok(match result {
            Value::Unit => 0,
            value if op.op == VarrayOp::Get => element.unboxed(&value),
            count => count.as_int_lossy() as u64,
        })
    })
}

/// The varray operation `op` on the varray (or darray) at `v` whose elements pass as values:
/// with the bits of an index `i`, the element moved out of `x` (left `Unit`; null for none),
/// the element read cloned into `out` (which holds a value, replaced; null for none).
///
/// # Safety
/// `x` and `out` are null or the addresses of live values the native caller owns.
pub(super) unsafe extern "C" fn varray_values_op(
    rt: &Runtime<'_>,
    op: &NativeVarrayOp,
    v: &Value,
    i: i64,
    x: *mut Value,
    out: *mut Value,
) {
    // The common cases first, with no unwinding guard: an element read, replaced or pushed
    // within the storage.
    if x.is_null() && !out.is_null() {
        if let Some(element) = op.read_value(v, i) {
            // SAFETY: the caller's live value, replaced.
            unsafe { *out = element };
            return;
        }
    } else if !x.is_null() && out.is_null() {
        // SAFETY: the caller's live value, taken only when the element is stored.
        if op.write_value(v, i, unsafe { &mut *x }) {
            return;
        }
    }
    guarded(rt, (), || {
        let element = match x.is_null() {
            true => Value::Unit,
            // SAFETY: the caller's live value, taken (it keeps `Unit`).
            false => std::mem::replace(unsafe { &mut *x }, Value::Unit),
        };
        // A captured variable's cell: the varray in it (a handle to the same elements).
        let result = match v {
            Value::Cell(cell) => {
                let varray = cell.lock().clone();
                op.run(&varray, i, element, &rt.limits)?
            }
            v => op.run(v, i, element, &rt.limits)?,
        };
        if !out.is_null() {
            // SAFETY: the caller's live value, replaced.
            unsafe { *out = result };
        }
        Ok(())
    })
}

/// The varray operation `op` (`Get`, `Set`, `Push`) on the varray (or darray) at `v` whose
/// elements are tuples, records or structs of scalars (`agg`), stored as columns: with the
/// bits of an index `i`, and the element's leaves in `bits`, one word each (the element read
/// is written there). No element is ever boxed: a leaf goes between its column and its word.
///
/// # Safety
/// `bits` is the address of one word per leaf of `agg`, which the native caller owns.
pub(super) unsafe extern "C" fn varray_leaves_op(
    rt: &Runtime<'_>,
    op: &NativeVarrayOp,
    agg: &super::Agg,
    v: &Value,
    i: i64,
    bits: *mut u64,
) {
    // SAFETY: the caller's buffer of one word per leaf.
    let bits = unsafe { std::slice::from_raw_parts_mut(bits, agg.leaves.len()) };
    if leaves_in_place(op, v, i, bits) {
        return;
    }
    guarded(rt, (), || {
        // A captured variable's cell: the varray in it (a handle to the same elements).
        let varray = match v {
            Value::Cell(cell) => cell.lock().clone(),
            v => v.clone(),
        };
        let element = match op.op {
            VarrayOp::Set | VarrayOp::Push => agg.boxed(bits),
            _ => Value::Unit,
        };
        let result = op.run(&varray, i, element, &rt.limits)?;
        if op.op == VarrayOp::Get {
            agg.unbox(&result, bits);
        }
        Ok(())
    })
}

/// `varray_leaves_op` directly on the columns when nothing can go wrong: the index is inside
/// the elements, and a pushed element fits every column as it is. False otherwise, for the
/// kernels' own code (which raises the faults, or grows the columns under the memory budget).
#[inline]
fn leaves_in_place(op: &NativeVarrayOp, v: &Value, i: i64, bits: &mut [u64]) -> bool {
    let Some(elements) = super::super::compile::varray::elements(v) else {
        return false;
    };
    let mut d = elements.lock();
    let bound = d.bound;
    // The room for a push, counted only for one (a minimum over the columns).
    let room = match op.op {
        VarrayOp::Push => d.items.capacity(),
        _ => 0,
    };
    let Items::Columns(c) = &mut d.items else {
        return false;
    };
    let len = c.len();
    let index = op.index.unwrap_or(crate::types::ty::IntTy::Long);
    let k = super::super::prims::int_value(i, index);
    let inside = (0..len as i128).contains(&k);
    match op.op {
        VarrayOp::Get if inside => {
            for (bit, column) in bits.iter_mut().zip(&c.columns) {
                *bit = column.bits(k as usize);
            }
        }
        VarrayOp::Set if inside => {
            for (bit, column) in bits.iter().zip(&mut c.columns) {
                column.set_bits(k as usize, *bit);
            }
        }
        VarrayOp::Push if len < bound && len < room => {
            for (bit, column) in bits.iter().zip(&mut c.columns) {
                column.push_bits_within(*bit, bound);
            }
        }
        _ => return false,
    }
    true
}
