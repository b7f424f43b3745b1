//! The runtime's helpers for fields reached through a pointer (`*p.x`, `p*.x`, `p.x <- v`
//! where `p` points at a struct, tuple or record): what native code calls to read or replace
//! such a scalar where it lives, in the global or the cell the pointer points into. Each
//! answers 0 when it cannot see the target (a pointer into an array or a compact value, a
//! cast pointer, a variable not assigned yet); native code then runs the access on the
//! closure compiler, which reads or stores it, or raises its error.

use std::sync::Arc;

use super::super::pointer::{Base, StepKind};
use super::super::value::Value;
use super::super::Runtime;
use super::runtime::repr_of;

/// Run `f` on the object `pointer` points at and the field positions its steps take into
/// it; `None` when the pointer's steps are not all fields or its target is not a global or
/// a cell.
fn with_target<R>(
    rt: &Runtime<'_>,
    pointer: &Value,
    f: impl FnOnce(&mut Value, &[usize]) -> Option<R>,
) -> Option<R> {
    let Value::Ptr(p) = pointer else {
        return None;
    };
    let mut prefix = smallvec::SmallVec::<[usize; 4]>::new();
    for (kind, position) in &p.steps {
        let StepKind::Field = kind else {
            return None;
        };
        prefix.push(*position);
    }
    match &p.base {
        // SAFETY: the closure only reads or updates the global's value in place.
        Base::Global(slot) => unsafe { rt.globals.with_mut(*slot as usize, |v| f(v, &prefix)) },
        Base::Cell(cell) => {
            let mut value = cell.lock();
            f(&mut value, &prefix)
        }
        Base::Cast { .. } => None,
    }
}

/// The part of `value` that `positions` lead to, each step into a tuple value; `None` on the
/// way through any other value.
fn part_at(value: &Value, positions: impl IntoIterator<Item = usize>) -> Option<&Value> {
    positions.into_iter().try_fold(value, |part, i| match part {
        Value::Tuple(parts) => parts.get(i),
        _ => None,
    })
}

/// The bits (of representation `repr`) of the scalar that the `n` fields at `path` lead to
/// from the object `pointer` points at, into `out`: 1, or 0 when native code cannot see it.
pub(super) extern "C" fn pointer_leaf_bits(
    rt: &Runtime<'_>,
    pointer: &Value,
    path: *const u32,
    n: usize,
    repr: u64,
    out: &mut u64,
) -> u32 {
    // SAFETY: native code passes a path it keeps, of `n` field indices.
    let path = unsafe { std::slice::from_raw_parts(path, n) };
    let bits = with_target(rt, pointer, |value, prefix| {
        let positions = prefix
            .iter()
            .copied()
            .chain(path.iter().map(|&i| i as usize));
        match part_at(value, positions)? {
            leaf @ (Value::Int(_) | Value::Float(_)) => Some(repr_of(repr as u32).unboxed(leaf)),
            _ => None,
        }
    });
    match bits {
        Some(bits) => {
            *out = bits;
            1
        }
        None => 0,
    }
}

/// Replace the scalar that the `n` fields at `path` lead to from the object `pointer`
/// points at by the bits `bits` of representation `repr`, each tuple on the way made
/// unshared first (as the closure compiler's store does): 1, or 0 (nothing stored) when
/// native code cannot see it.
pub(super) extern "C" fn pointer_set_leaf(
    rt: &Runtime<'_>,
    pointer: &Value,
    path: *const u32,
    n: usize,
    repr: u64,
    bits: u64,
) -> u32 {
    // SAFETY: as `pointer_leaf_bits`.
    let path = unsafe { std::slice::from_raw_parts(path, n) };
    let stored = with_target(rt, pointer, |value, prefix| {
        let positions = prefix
            .iter()
            .copied()
            .chain(path.iter().map(|&i| i as usize));
        let mut part = value;
        for i in positions {
            part = match part {
                Value::Tuple(parts) => Arc::make_mut(parts).get_mut(i)?,
                _ => return None,
            };
        }
        match part {
            Value::Int(_) | Value::Float(_) => {
                *part = repr_of(repr as u32).boxed(bits);
                Some(())
            }
            _ => None,
        }
    });
    stored.is_some() as u32
}
