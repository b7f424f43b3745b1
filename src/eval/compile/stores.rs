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

/// The tails of `place = place + t1 + … + tn` on a string variable (`s += e`, however the
/// chain nests): the tails when the chain starts with the variable itself and no tail can
/// assign it (none holds a call), so they may be computed before the variable is read and
/// appended in place.
pub(crate) fn string_append_tails(place: Place, value: &Expr) -> Option<Vec<&Expr>> {
    let crate::core::ir::ExprKind::Prim(crate::core::ir::Prim::StrConcat, _) = &value.kind else {
        return None;
    };
    let parts = super::super::prims::string_parts(value);
    let (text, tails) = parts.split_first()?;
    let reads_place = match (&text.kind, place) {
        (crate::core::ir::ExprKind::Local(s), Place::Local(t))
        | (crate::core::ir::ExprKind::Global(s), Place::Global(t)) => *s == t,
        _ => false,
    };
    (reads_place && tails.iter().all(|t| super::int::is_call_free(t))).then(|| tails.to_vec())
}

impl Compiler<'_> {
    /// `s = s + t1 + … + tn` on a string variable (`s += e`): the tails appended in place when
    /// the string is not shared (amortised O(1) per append instead of a copy of `s`). They
    /// are computed first (`string_append_tails`); a global must be known to be set, so that
    /// reading it last cannot fail.
    pub(super) fn string_append(&mut self, place: Place, value: &Expr) -> Option<StmtCode> {
        let tails = string_append_tails(place, value)?;
        if let Place::Global(g) = place {
            if self.uninitialised_check(g, &value.ty).is_some() {
                return None;
            }
        }
        self.note_place(place);
        let tails: Vec<Expr> = tails.into_iter().cloned().collect();
        let codes = self.exprs(&tails);
        let span = value.span;
        Some(Box::new(move |frame| {
            let mut values = smallvec::SmallVec::<[Value; 4]>::new();
            for code in &codes {
                values.push(code(frame)?);
            }
            let texts: smallvec::SmallVec<[&[u8]; 4]> =
                values.iter().map(super::super::prims::str_bytes).collect();
            let rt = frame.rt;
            with_place(frame, place, |text| match text {
                Value::Str(bytes) => super::super::prims::str_append(bytes, &texts, &rt.limits),
                _ => Ok(()),
            })
            .map_err(|fault| fault.at(span))
        }))
    }
}
