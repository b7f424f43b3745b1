//! The runtime's helpers for fields reached through a pointer (`*p.x`, `p*.x`, `p.x <- v`
//! where `p` points at a struct, tuple or record, or at an element of an array: `&ps.(i)`
//! given to a function that is not inlined): what native code calls to read or replace such
//! a scalar where it lives, in the global or the cell the pointer points into. A path of
//! fields only is followed in place; one through array elements by the evaluator's own
//! `load_path` and `store_into`. Each answers 0 when it cannot see the target (a pointer
//! into a compact value, a cast pointer, a variable not assigned yet); native code then
//! runs the access on the closure compiler, which reads or stores it, or raises its error.

use std::sync::Arc;

use smallvec::SmallVec;

use super::super::compact::CodeRepr;
use super::super::pointer::{load_path, store_into, Base, StepKind};
use super::super::value::Value;
use super::super::Runtime;
use super::runtime::repr_of;

/// Run `f` on the object `pointer` points at and the steps its path takes into it; `None`
/// when its target is not a global or a cell.
fn with_target<R>(
    rt: &Runtime<'_>,
    pointer: &Value,
    f: impl FnOnce(&mut Value, &[(StepKind, usize)]) -> Option<R>,
) -> Option<R> {
    let Value::Ptr(p) = pointer else {
        return None;
    };
    match &p.base {
        // SAFETY: the closure only reads or updates the global's value in place.
        Base::Global(slot) => unsafe { rt.globals.with_mut(*slot as usize, |v| f(v, &p.steps)) },
        Base::Cell(cell) => {
            let mut value = cell.lock();
            f(&mut value, &p.steps)
        }
        Base::Cast { .. } => None,
    }
}

/// The positions of a pointer's steps followed by the fields `path`, when every step is a
/// field.
fn field_positions(steps: &[(StepKind, usize)], path: &[u32]) -> Option<Positions> {
    steps
        .iter()
        .map(|(kind, position)| matches!(kind, StepKind::Field).then_some(*position))
        .chain(path.iter().map(|&i| Some(i as usize)))
        .collect()
}

/// The step kinds of a path, and the position each takes.
type Kinds = SmallVec<[StepKind; 8]>;
type Positions = SmallVec<[usize; 8]>;

/// A pointer's steps followed by the fields `path`, as the evaluator's paths take them, when
/// no step enters a compact value (whose components are digits of a code, not leaves).
fn full_path(steps: &[(StepKind, usize)], path: &[u32]) -> Option<(Kinds, Positions)> {
    if steps
        .iter()
        .any(|(kind, _)| matches!(kind, StepKind::CField(_) | StepKind::CElement(_)))
    {
        return None;
    }
    let kinds = steps
        .iter()
        .map(|(kind, _)| kind.clone())
        .chain(path.iter().map(|_| StepKind::Field))
        .collect();
    let positions = steps
        .iter()
        .map(|(_, position)| *position)
        .chain(path.iter().map(|&i| i as usize))
        .collect();
    Some((kinds, positions))
}

/// The scalar leaf at a path through arrays and tuples (`full_path`), read as the evaluator
/// reads `*p` (an element of an array is the value the array holds there).
fn leaf_through(value: &Value, kinds: &[StepKind], positions: &[usize]) -> Option<Value> {
    match load_path(value.clone(), kinds, positions, CodeRepr::Small) {
        leaf @ (Value::Int(_) | Value::Float(_)) => Some(leaf),
        _ => None,
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
    let bits = with_target(rt, pointer, |value, steps| {
        let leaf = match field_positions(steps, path) {
            Some(positions) => part_at(value, positions)?.clone(),
            None => {
                let (kinds, positions) = full_path(steps, path)?;
                leaf_through(value, &kinds, &positions)?
            }
        };
        match leaf {
            Value::Int(_) | Value::Float(_) => Some(repr_of(repr as u32).unboxed(&leaf)),
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
    let stored = with_target(rt, pointer, |value, steps| {
        let Some(positions) = field_positions(steps, path) else {
            // Through an array's element: the leaf must be there, as the evaluator's store
            // finds it, before it is replaced on the same path.
            let (kinds, positions) = full_path(steps, path)?;
            leaf_through(value, &kinds, &positions)?;
            store_into(value, &kinds, &positions, repr_of(repr as u32).boxed(bits));
            return Some(());
        };
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
