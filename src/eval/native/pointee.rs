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
use super::super::value::{ScalarKind, Value};
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

/// The address of each scalar leaf of the object `pointer` points at, into `out` (`n`
/// words, then a flag), for native code to read and write the leaves where they live
/// (`lower/pointee.rs`): the object's leaves taken depth first, as `Agg` and an array's
/// columns lay a tuple out, leaf `i` of kind `kinds[i]` in an array's storage.
/// - In a global or a cell, reached by fields (`&g`, `&g.f`): the payload of each leaf's
///   `Value`, which holds it in 8 bytes whatever its kind; the flag is 0. Each tuple on the
///   way is made unshared first, so no store into the object moves it while native code
///   keeps the addresses.
/// - An element of an array of unboxed scalars, or of tuples stored as columns (`&a.(i)`):
///   its leaves in the array's storage, at their kinds' widths, made unshared first when
///   `write` is 1; the flag is 1.
///
/// All zero when native code cannot see the object: a pointer into a compact value or
/// through a tuple into an array, a cast pointer, a variable not assigned yet, or leaves of
/// other kinds.
pub(super) extern "C" fn pointer_leaves_view(
    rt: &Runtime<'_>,
    pointer: &Value,
    kinds: *const ScalarKind,
    n: usize,
    write: u32,
    out: *mut usize,
) {
    // SAFETY: native code passes `n` kinds it keeps, and a buffer of `n + 1` words.
    let (kinds, out) = unsafe {
        (
            std::slice::from_raw_parts(kinds, n),
            std::slice::from_raw_parts_mut(out, n + 1),
        )
    };
    out.fill(0);
    let mut found: SmallVec<[usize; 8]> = SmallVec::new();
    let in_array = with_target(rt, pointer, |value, steps| {
        if let Some(positions) = field_positions(steps, &[]) {
            let mut part = value;
            for i in positions {
                part = match part {
                    Value::Tuple(parts) => Arc::make_mut(parts).get_mut(i)?,
                    _ => return None,
                };
            }
            leaf_payloads(part, &mut found, kinds)?;
            Some(false)
        } else {
            element_leaves(value, steps, write == 1, &mut found, kinds)?;
            Some(true)
        }
    });
    if let Some(in_array) = in_array.filter(|_| found.len() == n) {
        out[..n].copy_from_slice(&found);
        out[n] = in_array as usize;
    }
}

/// The address of the payload of each scalar leaf of `value`, depth first through tuples
/// (each made unshared), into `found`, each an integer or a float as its kind in `kinds`
/// says; `None` at any other value.
fn leaf_payloads(
    value: &mut Value,
    found: &mut SmallVec<[usize; 8]>,
    kinds: &[ScalarKind],
) -> Option<()> {
    match value {
        Value::Tuple(parts) => {
            for part in Arc::make_mut(parts).iter_mut() {
                leaf_payloads(part, found, kinds)?;
            }
            Some(())
        }
        Value::Int(_) | Value::Float(_) => {
            let float = matches!(value, Value::Float(_));
            if float != kinds.get(found.len())?.is_float() {
                return None;
            }
            let at = value as *mut Value as usize + super::layout::PAYLOAD as usize;
            found.push(at);
            Some(())
        }
        _ => None,
    }
}

/// The addresses of the leaves of the element of the array in `value` that the element
/// steps `steps` lead to, of the kinds `kinds` (the storage made unshared first when
/// `write`), into `found`; `None` for any other target.
fn element_leaves(
    value: &mut Value,
    steps: &[(StepKind, usize)],
    write: bool,
    found: &mut SmallVec<[usize; 8]>,
    kinds: &[ScalarKind],
) -> Option<()> {
    use super::super::value::Buffer;
    let mut offset = 0;
    for (kind, position) in steps {
        let StepKind::Element(shape) = kind else {
            return None;
        };
        offset += position * shape.elem_leaves;
    }
    let Value::Array(array) = value else {
        return None;
    };
    if offset >= array.len {
        return None;
    }
    let start = if write { 0 } else { array.start };
    let buffer: &Buffer = if write {
        super::super::array::make_unique(array)
    } else {
        &array.buf
    };
    let columns = match buffer {
        Buffer::Scalars(leaves) => std::slice::from_ref(leaves),
        Buffer::Columns(columns) => &columns.columns[..],
        _ => return None,
    };
    if columns.len() != kinds.len() {
        return None;
    }
    for (column, kind) in columns.iter().zip(kinds) {
        if column.kind() != *kind {
            return None;
        }
        found.push(column.addr(start + offset));
    }
    Some(())
}
