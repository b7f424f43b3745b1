//! In-place updates of a variable's value: `with_place`, and `s = s + e` on a string appended
//! in place.

use crate::core::ir::{Expr, Place};

use super::super::value::Value;
use super::super::Frame;
use super::{Compiler, StmtCode};

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
