//! The kernels of `varray[T]` (`Prim::Varray`): a varray is a handle (`Value::Varray`) to one
//! shared buffer of elements, so every kernel reads or changes the elements in place. A
//! darray is a variant holding its varray; `array d` unwraps it.

use std::sync::Arc;

use crate::core::ir::VarrayOp;
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::{check_allocation, LeafBuilder, Shape};
use super::super::code::ExprCode;
use super::super::error::{Fault, ASSERTION_FAILURE, INDEX_OUT_OF_RANGE, TOO_LARGE};
use super::super::prims::int_value;
use super::super::value::{ArrayVal, Buffer, DynArray, Elements, Items, LeafRepr, Value};
use super::super::Ctrl;
use super::{int_ty_of, internal, Compiler};

/// The elements behind a varray value (or a darray's, `Sum(0, varray)`).
pub fn elements(v: &Value) -> Option<&Arc<Elements>> {
    match v {
        Value::Varray(d) => Some(d),
        Value::Sum(pair) => pair.parts().first().and_then(elements),
        _ => None,
    }
}

/// The elements of the varray (or darray) `v`, read under the lock into `out` (of n + 1
/// words): when n is 1, the address of the first if they are scalars, else the address of
/// each of their n columns if they are stored so, null otherwise; then their count (0 when
/// `v` is no varray). Addresses stay valid until an element is pushed or popped (which may
/// move them), so native code keeps them only for a loop that does neither.
pub fn view(v: &Value, out: &mut [usize]) {
    out.fill(0);
    let Some(elements) = elements(v) else {
        return;
    };
    let d = lock(elements);
    let (data, count) = out.split_at_mut(out.len() - 1);
    count[0] = d.items.len();
    match &d.items {
        Items::Scalars(s) if data.len() == 1 => data[0] = s.addr(0),
        Items::Columns(c) if c.columns.len() == data.len() => {
            for (at, column) in data.iter_mut().zip(&c.columns) {
                *at = column.addr(0);
            }
        }
        _ => {}
    }
}

fn lock(d: &Elements) -> spin::mutex::SpinMutexGuard<'_, DynArray> {
    d.lock()
}

/// The position `i` of a varray of `len` elements (or of a list through its varray), or R0001.
fn position(i: i128, len: usize, span: Span) -> Result<usize, Ctrl> {
    if i < 0 || i >= len as i128 {
        return Err(Fault::new(
            INDEX_OUT_OF_RANGE,
            format!("index {i} out of range for {len} elements"),
        )
        .at(span));
    }
    Ok(i as usize)
}

/// Room for one more element: past the bound R0009; a growth of the buffer admitted by the
/// memory budget first (R0007).
fn make_room(d: &mut DynArray, limits: &crate::limits::Limits, span: Span) -> Result<(), Ctrl> {
    if d.items.len() >= d.bound {
        return Err(Fault::new(
            ASSERTION_FAILURE,
            format!("push_back past the bound {} of a varray", d.bound),
        )
        .at(span));
    }
    if d.items.len() == d.items.capacity() {
        let grown = (d.items.capacity() * 2).clamp(4, d.bound.max(4));
        let bytes = grown as u128 * d.items.element_bytes() as u128;
        let refused = |why: String| {
            Fault::new(TOO_LARGE, format!("varray too large to grow: {why}")).at(span)
        };
        limits
            .admit(bytes)
            .map_err(|refusal| refused(refusal.describe(bytes)))?;
        d.items
            .try_reserve_exact(grown - d.items.len())
            .map_err(|_| refused("the system refused the memory".into()))?;
    }
    Ok(())
}

/// Element `i` (a position of the index type's value) of a varray's elements, or R0001.
fn get(d: &DynArray, i: i128, span: Span) -> Result<Value, Ctrl> {
    Ok(d.items.get(position(i, d.items.len(), span)?))
}

/// Element `i` of a varray's elements set to `x`, or R0001.
fn set(d: &mut DynArray, i: i128, x: Value, span: Span) -> Result<(), Ctrl> {
    let k = position(i, d.items.len(), span)?;
    d.items.set(k, x);
    Ok(())
}

/// `x` appended (R0009 past the bound, R0007 past the memory budget).
fn push(
    d: &mut DynArray,
    x: Value,
    limits: &crate::limits::Limits,
    span: Span,
) -> Result<(), Ctrl> {
    make_room(d, limits, span)?;
    d.items.push(x);
    Ok(())
}

/// The last element dropped, or R0009 when there is none.
fn pop(d: &mut DynArray, span: Span) -> Result<(), Ctrl> {
    if !d.items.pop() {
        return Err(Fault::new(ASSERTION_FAILURE, "pop of an empty varray").at(span));
    }
    Ok(())
}

/// A varray operation of native code (`native/lower/varray.rs`): what it is, the index's
/// type (`Get`, `Set`), how registers hold an element (`None`: elements pass as values, by
/// address), and where it is.
#[derive(Debug)]
pub struct NativeVarrayOp {
    pub op: VarrayOp,
    pub index: Option<IntTy>,
    pub element: Option<crate::eval::native::Repr>,
    pub span: Span,
}

impl NativeVarrayOp {
    /// Run it directly on the register bits of a scalar element (index bits `i`, element
    /// bits `x`) when nothing can go wrong: the varray holds scalars, the index is inside it,
    /// and a pushed element fits the buffer as it is. `None` otherwise, for `run` (which
    /// raises the faults, or grows the buffer under the memory budget).
    #[inline]
    pub fn run_bits(&self, v: &Value, i: i64, x: u64) -> Option<u64> {
        self.element?;
        let mut d = lock(elements(v)?);
        let bound = d.bound;
        match self.op {
            VarrayOp::Len => return Some(d.items.len() as u64),
            VarrayOp::MaxLen => return Some(bound as u64),
            _ => {}
        }
        let Items::Scalars(s) = &mut d.items else {
            return None;
        };
        if self.op == VarrayOp::Push {
            return s.push_bits_within(x, bound).then_some(0);
        }
        let len = s.len();
        let inside = || {
            let k = int_value(i, self.index.unwrap_or(IntTy::Long));
            (0..len as i128).contains(&k).then_some(k as usize)
        };
        match self.op {
            VarrayOp::Get => Some(s.bits(inside()?)),
            VarrayOp::Set => {
                s.set_bits(inside()?, x);
                Some(0)
            }
            _ => None,
        }
    }

    /// A `Get` of an element that is a value (a string, a variant, a closure) inside the
    /// elements of `v` (the index bits `i` read as `run` reads them): the element cloned, or
    /// `None` for `run` to decide (another operation, an index outside, a captured cell).
    pub fn read_value(&self, v: &Value, i: i64) -> Option<Value> {
        if self.op != VarrayOp::Get {
            return None;
        }
        let d = lock(elements(v)?);
        let Items::Values(values) = &d.items else {
            return None;
        };
        let k = int_value(i, self.index.unwrap_or(IntTy::Long));
        values.get(usize::try_from(k).ok()?).cloned()
    }

    /// A `Set` of an element that is a value inside the elements of `v`: the element moved
    /// out of `x` (left `Unit`) into its place, the old one dropped once the lock is released;
    /// false, with `x` untouched, for `run` to decide (as `read_value`). A `Push` likewise,
    /// when the storage has room and the bound is not reached (nothing grows, nothing fails).
    pub fn write_value(&self, v: &Value, i: i64, x: &mut Value) -> bool {
        let Some(elements) = elements(v) else {
            return false;
        };
        let old = {
            let mut d = lock(elements);
            let bound = d.bound;
            let Items::Values(values) = &mut d.items else {
                return false;
            };
            if self.op == VarrayOp::Push {
                if values.len() >= bound || values.len() == values.capacity() {
                    return false;
                }
                values.push(std::mem::replace(x, Value::Unit));
                return true;
            }
            if self.op != VarrayOp::Set {
                return false;
            }
            let k = int_value(i, self.index.unwrap_or(IntTy::Long));
            let Some(slot) = usize::try_from(k).ok().and_then(|k| values.get_mut(k)) else {
                return false;
            };
            std::mem::replace(slot, std::mem::replace(x, Value::Unit))
        };
        drop(old);
        true
    }

    /// Run it on the varray (or darray) `v` with the index bits `i` and the element `x`: the
    /// length or bound, the element read, or `unit`; the faults are the kernels' own.
    pub fn run(
        &self,
        v: &Value,
        i: i64,
        x: Value,
        limits: &crate::limits::Limits,
    ) -> Result<Value, Ctrl> {
        let span = self.span;
        let d = elements(v).ok_or_else(|| internal_fault(span))?;
        let mut d = lock(d);
        let index = || int_value(i, self.index.unwrap_or(IntTy::Long));
        match self.op {
            VarrayOp::Len => Ok(Value::Int(d.items.len() as i64)),
            VarrayOp::MaxLen => Ok(Value::Int(d.bound as i64)),
            VarrayOp::Get => get(&d, index(), span),
            VarrayOp::Set => set(&mut d, index(), x, span).map(|()| Value::Unit),
            VarrayOp::Push => push(&mut d, x, limits, span).map(|()| Value::Unit),
            VarrayOp::Pop => pop(&mut d, span).map(|()| Value::Unit),
            VarrayOp::New | VarrayOp::ToArray => Err(internal_fault(span)),
        }
    }
}

impl Compiler<'_> {
    pub(super) fn varray(
        &mut self,
        op: VarrayOp,
        mut codes: Vec<ExprCode>,
        arg_tys: &[Type],
        result_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let not_varray = move || internal_fault(span);
        match op {
            VarrayOp::New => {
                let Some(element) = element_type(result_ty) else {
                    return internal(format!("a varray of type {result_ty}"), span);
                };
                let bound = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(new_varray(&element, bound(frame)?.as_int_lossy() as u64)))
            }
            VarrayOp::Len | VarrayOp::MaxLen => {
                let v = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let d = lock(elements(&v).ok_or_else(not_varray)?);
                    let n = if op == VarrayOp::Len {
                        d.items.len()
                    } else {
                        d.bound
                    };
                    Ok(Value::Int(n as i64))
                })
            }
            VarrayOp::Get => {
                let ity = int_ty_of(&arg_tys[1]);
                let i = codes.pop().expect("two operands");
                let v = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let i = int_value(i(frame)?.as_int_lossy(), ity);
                    let d = lock(elements(&v).ok_or_else(not_varray)?);
                    get(&d, i, span)
                })
            }
            VarrayOp::Set => {
                let ity = int_ty_of(&arg_tys[1]);
                let x = codes.pop().expect("three operands");
                let i = codes.pop().expect("three operands");
                let v = codes.pop().expect("three operands");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let i = int_value(i(frame)?.as_int_lossy(), ity);
                    let x = x(frame)?;
                    let mut d = lock(elements(&v).ok_or_else(not_varray)?);
                    set(&mut d, i, x, span)?;
                    Ok(Value::Unit)
                })
            }
            VarrayOp::Push => {
                let x = codes.pop().expect("two operands");
                let v = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let x = x(frame)?;
                    let mut d = lock(elements(&v).ok_or_else(not_varray)?);
                    push(&mut d, x, &frame.rt.limits, span)?;
                    Ok(Value::Unit)
                })
            }
            VarrayOp::Pop => {
                let v = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let mut d = lock(elements(&v).ok_or_else(not_varray)?);
                    pop(&mut d, span)?;
                    Ok(Value::Unit)
                })
            }
            VarrayOp::ToArray => {
                let Some(shape) = Shape::of_array_or_unit(result_ty) else {
                    return internal(format!("array v of type {result_ty}"), span);
                };
                let ty = result_ty.clone();
                let v = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let v = v(frame)?;
                    let d = lock(elements(&v).ok_or_else(not_varray)?);
                    let leaves = d.items.len().saturating_mul(shape.elem_leaves.max(1));
                    match (&d.items, shape.repr) {
                        // Scalars stored as the array stores them: one copy of the buffer.
                        (Items::Scalars(s), LeafRepr::Scalar(kind)) if s.kind() == kind => {
                            check_allocation(Some(leaves), &ty, &frame.rt.limits)
                                .map_err(|f| f.at(span))?;
                            Ok(Value::Array(ArrayVal::new(Buffer::Scalars(s.clone()))))
                        }
                        (Items::Columns(c), LeafRepr::Columns(layout)) if c.layout == layout => {
                            check_allocation(Some(leaves), &ty, &frame.rt.limits)
                                .map_err(|f| f.at(span))?;
                            Ok(Value::Array(ArrayVal::new(Buffer::Columns(c.clone()))))
                        }
                        _ => {
                            let mut out = LeafBuilder::new(shape.repr);
                            out.reserve(leaves, &ty, &frame.rt.limits)
                                .map_err(|f| f.at(span))?;
                            for item in d.items.values() {
                                out.push_element(item);
                            }
                            Ok(Value::Array(out.finish()))
                        }
                    }
                })
            }
        }
    }
}

/// An empty varray of elements of type `element` that holds at most `bound` of them (a
/// `size`'s bits).
pub(crate) fn new_varray(element: &Type, bound: u64) -> Value {
    let bound = usize::try_from(bound).unwrap_or(usize::MAX);
    Value::Varray(Arc::new(Elements::new(DynArray {
        bound,
        items: Items::of(element),
    })))
}

/// The element type `T` of `varray[T]`.
pub(crate) fn element_type(varray: &Type) -> Option<Type> {
    let Type::Nominal(def) = varray else {
        return None;
    };
    match def.body()? {
        crate::types::ty::NominalBody::Variant(constructors) => constructors.first()?.1.clone(),
        _ => None,
    }
}

fn internal_fault(span: Span) -> Ctrl {
    Fault::new(
        super::super::error::INTERNAL,
        "a varray operation on a value that is not a varray",
    )
    .at(span)
}
