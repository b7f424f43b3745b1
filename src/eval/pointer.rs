//! Pointers and the store paths they share with `&x.i <- v`.
//!
//! A pointer is the object it points at — a global slot or a cell (an addressed local is
//! a cell, like a captured one, so a pointer keeps it alive after its function returns) —
//! and a path of steps into it, each resolved to a position when the pointer is formed.
//! Steps into a compact value are digits of its code: a path that enters a compact
//! value stays one digit of the outermost code, however deep it goes. A cast pointer
//! (`C_hack::cast`) sees its operand's object through a layout-identical reshape.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::types::Type;

use super::array::{self, Shape};
use super::compact::{CArrayLayout, CodeRepr, Digit};
use super::error::Fault;
use super::value::{Buffer, Value};
use super::Frame;

/// How one step of a path finds its component; computed once from the container's type.
#[derive(Clone, Debug)]
pub enum StepKind {
    /// A component of a tuple, struct or record.
    Field,
    /// An element of an array of this shape.
    Element(Shape),
    /// A component of a compact product: its digit in the product's code.
    CField(Digit),
    /// An element of a compact array.
    CElement(CArrayLayout),
}

/// No further steps (a load or store at the pointer itself).
pub const NO_STEPS: &[StepKind] = &[];

/// Anything that carries a step kind: the steps of a compiled store and of a pointer.
pub trait Step {
    fn kind(&self) -> &StepKind;
}

impl Step for StepKind {
    fn kind(&self) -> &StepKind {
        self
    }
}

impl Step for (StepKind, usize) {
    fn kind(&self) -> &StepKind {
        &self.0
    }
}

impl Step for &StepKind {
    fn kind(&self) -> &StepKind {
        self
    }
}

/// The object a pointer points into.
#[derive(Clone, Debug)]
pub enum Base {
    Global(u32),
    Cell(Arc<super::value::CellLock>),
    /// The object of `inner` seen through a reshape from `from` to `to` (a pointer cast).
    Cast {
        inner: Arc<Pointer>,
        from: Type,
        to: Type,
    },
}

/// A pointer value: the object and the steps (kind and position) into it.
#[derive(Clone, Debug)]
pub struct Pointer {
    pub base: Base,
    pub steps: Vec<(StepKind, usize)>,
}

impl Pointer {
    /// This pointer extended by more steps (a pointer projection).
    pub fn project(&self, more: impl IntoIterator<Item = (StepKind, usize)>) -> Pointer {
        let mut steps = self.steps.clone();
        steps.extend(more);
        Pointer {
            base: self.base.clone(),
            steps,
        }
    }

    /// The current value of the object's component at this pointer's steps and then `more`
    /// (`*p`, and `*p.path` without making the projected pointer); `repr` is how a compact
    /// component's code is represented (for a path that ends inside a compact value).
    pub fn load<S: Step>(
        &self,
        frame: &Frame<'_, '_>,
        more: &[S],
        more_positions: &[usize],
        repr: CodeRepr,
    ) -> Result<Value, Fault> {
        let root = self.base_value(frame)?;
        if self.steps.is_empty() {
            // A pointer to a whole variable (a pointer parameter `p.i`): no joined path.
            return Ok(load_path(root, more, more_positions, repr));
        }
        let (kinds, positions) = self.joined_path(more, more_positions);
        Ok(load_path(root, &kinds, &positions, repr))
    }

    /// Store `new` at this pointer's steps and then `more` (`p <- v`, and `p.path <- v`
    /// without making the projected pointer), copying shared storage on the way.
    pub fn store<S: Step>(
        &self,
        frame: &Frame<'_, '_>,
        more: &[S],
        more_positions: &[usize],
        new: Value,
    ) -> Result<(), Fault> {
        if self.steps.is_empty() {
            return self.store_path(frame, more, more_positions, new);
        }
        let (kinds, positions) = self.joined_path(more, more_positions);
        self.store_path(frame, &kinds, &positions, new)
    }

    /// This pointer's path followed by `more`, inline for paths of up to 8 steps.
    fn joined_path<'a, S: Step>(
        &'a self,
        more: &'a [S],
        more_positions: &[usize],
    ) -> (SmallVec<[&'a StepKind; 8]>, SmallVec<[usize; 8]>) {
        let kinds = self
            .steps
            .iter()
            .map(|(k, _)| k)
            .chain(more.iter().map(|s| s.kind()));
        let positions = self
            .steps
            .iter()
            .map(|(_, p)| *p)
            .chain(more_positions.iter().copied());
        (kinds.collect(), positions.collect())
    }

    fn store_path<S: Step>(
        &self,
        frame: &Frame<'_, '_>,
        kinds: &[S],
        positions: &[usize],
        new: Value,
    ) -> Result<(), Fault> {
        match &self.base {
            Base::Global(slot) => {
                let mut root = frame.rt.globals.take(*slot as usize);
                store_into(&mut root, kinds, positions, new);
                frame.rt.globals.set(*slot as usize, root);
            }
            Base::Cell(cell) => {
                let mut root = std::mem::replace(&mut *lock(cell), Value::Unit);
                store_into(&mut root, kinds, positions, new);
                *lock(cell) = root;
            }
            Base::Cast { inner, from, to } => {
                let mut view = reshape(frame, inner.load_whole(frame, from)?, from, to)?;
                store_into(&mut view, kinds, positions, new);
                let back = reshape(frame, view, to, from)?;
                inner.store(frame, NO_STEPS, &[], back)?;
            }
        }
        Ok(())
    }

    /// The value this pointer designates, of type `ty`.
    fn load_whole(&self, frame: &Frame<'_, '_>, ty: &Type) -> Result<Value, Fault> {
        self.load(frame, NO_STEPS, &[], CodeRepr::of(ty))
    }

    fn base_value(&self, frame: &Frame<'_, '_>) -> Result<Value, Fault> {
        match &self.base {
            Base::Global(slot) => Ok(frame.rt.globals.get(*slot as usize)),
            Base::Cell(cell) => Ok(lock(cell).clone()),
            Base::Cast { inner, from, to } => {
                reshape(frame, inner.load_whole(frame, from)?, from, to)
            }
        }
    }
}

fn lock(cell: &super::value::CellLock) -> spin::mutex::SpinMutexGuard<'_, Value> {
    cell.lock()
}

/// A layout-identical reshape of a value (a checked reshape): zero copy between arrays with the same
/// leaves.
fn reshape(frame: &Frame<'_, '_>, value: Value, from: &Type, to: &Type) -> Result<Value, Fault> {
    if matches!(from, Type::Array(..))
        && matches!(to, Type::Array(..))
        && array::same_leaves(from, to)
    {
        return Ok(value);
    }
    let mut leaves = Vec::new();
    array::flatten(&value, from, &mut leaves);
    array::rebuild(to, &mut leaves.into_iter(), &frame.rt.limits)
}

/// The component of `value` at the path.
pub fn load_path<S: Step>(
    mut value: Value,
    kinds: &[S],
    positions: &[usize],
    repr: CodeRepr,
) -> Value {
    for (i, (step, position)) in kinds.iter().zip(positions).enumerate() {
        value = match (step.kind(), &value) {
            (StepKind::Field, Value::Tuple(parts)) => {
                parts.get(*position).cloned().unwrap_or(Value::Unit)
            }
            (StepKind::Element(shape), Value::Array(view)) => shape.element(view, *position),
            (StepKind::CField(_) | StepKind::CElement(_), _) => {
                return match compact_digit(kinds[i..].iter().zip(&positions[i..])) {
                    Some(digit) => digit.get(&value, repr),
                    None => Value::Unit,
                };
            }
            _ => Value::Unit,
        };
    }
    value
}

/// The one digit of the outermost code that a path inside a compact value designates.
fn compact_digit<'a, S: Step + 'a>(
    steps: impl IntoIterator<Item = (&'a S, &'a usize)>,
) -> Option<Digit> {
    let mut digit: Option<Digit> = None;
    for (step, &position) in steps {
        let inner = match step.kind() {
            StepKind::CField(d) => d.clone(),
            StepKind::CElement(layout) => layout.digit(position),
            _ => return None,
        };
        digit = Some(match digit {
            None => inner,
            Some(outer) => outer.then(inner),
        });
    }
    digit
}

/// Store `new` at the path inside `target`, copying shared storage on the way.
pub fn store_into<S: Step>(target: &mut Value, kinds: &[S], positions: &[usize], new: Value) {
    let Some(step) = kinds.first() else {
        *target = new;
        return;
    };
    match (step.kind(), target) {
        (StepKind::Field, Value::Tuple(parts)) => {
            let parts = Arc::make_mut(parts);
            if let Some(part) = parts.get_mut(positions[0]) {
                store_into(part, &kinds[1..], &positions[1..], new);
            }
        }
        (StepKind::Element(_), Value::Array(view)) => {
            let buffer = array::make_unique(view);
            store_region(buffer, 0, kinds, positions, new);
        }
        (StepKind::CField(_) | StepKind::CElement(_), code) => {
            if let (StepKind::CElement(layout), [position]) = (step.kind(), positions) {
                if layout.set_element(code, *position, &new) {
                    return;
                }
            }
            // The rest of the path stays inside this compact value: one digit of its code.
            if let Some(digit) = compact_digit(kinds.iter().zip(positions)) {
                digit.set(code, &new);
            }
        }
        _ => {}
    }
}

/// Store into the region of a unique buffer that holds the array the first step indexes.
fn store_region<S: Step>(
    buffer: &mut Buffer,
    base: usize,
    kinds: &[S],
    positions: &[usize],
    new: Value,
) {
    let StepKind::Element(shape) = kinds[0].kind() else {
        return;
    };
    let offset = base + positions[0] * shape.elem_leaves;
    if kinds.len() == 1 {
        match (&new, shape.elem_is_array) {
            (Value::Array(view), true) => array::set_leaves(buffer, offset, view),
            _ => array::set_leaf(buffer, offset, new),
        }
    } else if shape.elem_is_array {
        store_region(buffer, offset, &kinds[1..], &positions[1..], new);
    } else {
        match buffer {
            Buffer::Boxed(values) => {
                store_into(&mut values[offset], &kinds[1..], &positions[1..], new)
            }
            Buffer::Scalars(values) => {
                // A compact element held unboxed: update its code.
                let mut code = values.get(offset);
                store_into(&mut code, &kinds[1..], &positions[1..], new);
                values.set(offset, &code);
            }
            Buffer::Columns(columns) => {
                // A tuple element held in columns: gathered, updated, scattered back.
                let mut element = columns.get(offset);
                store_into(&mut element, &kinds[1..], &positions[1..], new);
                columns.set(offset, &element);
            }
        }
    }
}
