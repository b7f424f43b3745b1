//! Stores of one scalar element, `&a.i <- v` (and `set (&a, i, v)`), into a variable holding
//! an array of unboxed scalars: the index and the value are computed unboxed and the leaf is
//! written in place (copy-on-write as any store), whatever loop the store is in.

use crate::core::ir::{Expr, IndexMode, PathStep, Place};
use crate::types::Type;

use super::super::array::{make_unique, Shape};
use super::super::value::{Buffer, LeafRepr, Value};
use super::super::vector::is_int_like;
use super::super::Frame;
use super::float::is_float;
use super::paths::unboxed_position;
use super::{int_ty_of, Compiler, StmtCode};

/// Run `f` on the value of a local or global variable, in place.
#[inline(always)]
pub(super) fn with_place<R>(
    frame: &mut Frame<'_, '_>,
    place: Place,
    f: impl FnOnce(&mut Value) -> R,
) -> R {
    match place {
        Place::Local(s) => f(&mut frame.slots[s as usize]),
        // SAFETY: `f` only writes into the value (and may copy its buffer); it never touches
        // another global.
        _ => unsafe { frame.rt.globals.with_mut(place_slot(place), f) },
    }
}

fn place_slot(place: Place) -> usize {
    match place {
        Place::Local(s) | Place::Global(s) | Place::LocalCell(s) | Place::CaptureCell(s) => {
            s as usize
        }
    }
}

impl Compiler<'_> {
    /// The store `place.index <- value` into an array of scalar leaves, or `None` for any
    /// other store.
    pub(super) fn scalar_store(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> Option<StmtCode> {
        if let Some(code) = self.column_store(place, root_ty, path, value) {
            return Some(code);
        }
        let [PathStep::Index(index, mode)] = path else {
            return None;
        };
        if !matches!(place, Place::Local(_) | Place::Global(_)) || !is_int_like(&index.ty) {
            return None;
        }
        let shape = Shape::of(root_ty)?;
        let n = shape.n_elements?;
        if shape.elem_is_array {
            return None;
        }
        self.note_place(place);
        let (mode, ity, span) = (*mode, int_ty_of(&index.ty), index.span);
        let array_ty = root_ty.clone();
        let position = self.int_code(index);
        let linear = mode == IndexMode::Linear;
        let check = move |i: i64| -> Result<usize, super::Ctrl> {
            unboxed_position(i, linear, ity, n, &array_ty).map_err(|f| f.at(span))
        };
        match shape.repr {
            LeafRepr::Scalar(kind) if !kind.is_float() && is_int_like(&value.ty) => {
                let value = self.int_code(value);
                Some(Box::new(move |frame| {
                    let i = check(position(frame)?)?;
                    let x = value(frame)?;
                    with_place(frame, place, |root| {
                        if let Value::Array(view) = root {
                            if let Buffer::Scalars(leaves) = make_unique(view) {
                                leaves.set_int(i, x);
                            }
                        }
                    });
                    Ok(())
                }))
            }
            LeafRepr::Scalar(kind) if kind.is_float() && is_float(&value.ty) => {
                let value = self.float_code(value);
                Some(Box::new(move |frame| {
                    let i = check(position(frame)?)?;
                    let x = value(frame)?;
                    with_place(frame, place, |root| {
                        if let Value::Array(view) = root {
                            if let Buffer::Scalars(leaves) = make_unique(view) {
                                leaves.set_float(i, x);
                            }
                        }
                    });
                    Ok(())
                }))
            }
            _ => None,
        }
    }
}

impl Compiler<'_> {
    /// `s = s + e` on a string variable (`s += e`): `e` appended in place when the string is
    /// not shared (amortised O(1) per append instead of a copy of `s`). `e` is evaluated
    /// first, which is only unobservable when it cannot assign `s`: it must be call-free.
    pub(super) fn string_append(&mut self, place: Place, value: &Expr) -> Option<StmtCode> {
        let crate::core::ir::ExprKind::Prim(crate::core::ir::Prim::StrConcat, args) = &value.kind
        else {
            return None;
        };
        let [text, tail] = args.as_slice() else {
            return None;
        };
        let reads_place = match (text.kind.clone(), place) {
            (crate::core::ir::ExprKind::Local(s), Place::Local(t)) => s == t,
            (crate::core::ir::ExprKind::Global(s), Place::Global(t)) => {
                s == t && self.uninitialised_check(s, &text.ty).is_none()
            }
            _ => false,
        };
        if !reads_place || !super::int::is_call_free(tail) {
            return None;
        }
        self.note_place(place);
        let tail = self.expr(tail);
        let span = value.span;
        Some(Box::new(move |frame| {
            let tail = tail(frame)?;
            let Value::Str(tail) = tail else {
                return Ok(());
            };
            let rt = frame.rt;
            with_place(frame, place, |text| match text {
                Value::Str(bytes) => super::super::prims::str_append(bytes, &tail, &rt.limits),
                _ => Ok(()),
            })
            .map_err(|fault| fault.at(span))
        }))
    }
}
