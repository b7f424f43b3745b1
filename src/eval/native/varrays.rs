//! The runtime's helpers for varrays and darrays: the view native code keeps of scalar
//! elements for a loop, and each operation, run by the kernels' own code
//! (`compile/varray.rs`) under the varray's lock, so values and faults are theirs.

use super::super::compile::varray::{view, NativeVarrayOp};
use super::super::value::Value;
use super::super::Runtime;
use super::runtime::guarded;
use crate::core::ir::VarrayOp;

/// The elements of the varray (or darray) in `value` (a slot): the address of the first when
/// they are scalars (else null) and their count, into `out`; null and 0 when it holds no
/// varray.
pub(super) extern "C" fn varray_view(value: &Value, out: &mut [usize; 2]) {
    *out = match view(value) {
        Some((data, len)) => [data, len],
        None => [0, 0],
    };
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
