//! `for v in a` over an array: the array evaluated once (a copy of its value, so stores into
//! it in the body do not change what the loop sees), then its elements read in order into the
//! loop's variable. Scalars are read from the leaves into a register; tuples of scalars stored
//! as columns and rows of scalars (small arrays) into an aggregate variable's registers (a
//! local's, or a global's held in registers for a closed loop, `hoist.rs`); anything else
//! (boxed tuples, strings) into the variable's slot by a helper.

use cranelift_codegen::ir::{InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place, Slot, Stmt};
use crate::eval::array::Shape;
use crate::eval::value::{LeafRepr, ScalarKind};
use crate::types::Type;

use super::{Lower, V};
use crate::eval::native::{Agg, Repr};

/// The most elements of an array whose loop drops its copy by a plain call (`on_a_copy`).
const FEW_ELEMENTS: usize = 8;

/// How the elements of an array type are laid out in its leaves, when native code reads and
/// stores them in registers.
#[derive(Clone)]
pub(super) enum LeafForm {
    /// One unboxed scalar per element.
    Scalar(ScalarKind),
    /// A row of scalars (a small array) per element: its leaves side by side.
    Rows(ScalarKind, Agg),
    /// A tuple of scalars per element, stored as columns.
    Columns(Agg),
}

impl LeafForm {
    /// The form of the elements of `array_ty`, when it is one of these.
    pub(super) fn of(array_ty: &Type) -> Option<LeafForm> {
        let shape = Shape::of(array_ty)?;
        let elem = elem_of(array_ty)?;
        let one_leaf = !shape.elem_is_array && shape.elem_leaves == 1;
        match (shape.repr, Agg::of(elem)) {
            (LeafRepr::Scalar(kind), _) if one_leaf => Some(LeafForm::Scalar(kind)),
            (LeafRepr::Scalar(kind), Some(agg))
                if shape.elem_is_array
                    && !agg.leaves.is_empty()
                    && shape.elem_leaves == agg.leaves.len() =>
            {
                Some(LeafForm::Rows(kind, agg))
            }
            (LeafRepr::Columns(layout), Some(agg)) if one_leaf && agg.layout() == Some(layout) => {
                Some(LeafForm::Columns(agg))
            }
            _ => None,
        }
    }

    /// The aggregate an element is, for rows and columns.
    pub(super) fn agg(&self) -> Option<&Agg> {
        match self {
            LeafForm::Scalar(_) => None,
            LeafForm::Rows(_, agg) | LeafForm::Columns(agg) => Some(agg),
        }
    }
}

/// The leaves of an array of a `LeafForm`, fetched: each element is read from them into
/// registers (`load_element_leaves`) or stored from there (`store_element_leaves`).
pub(super) enum ElementLeaves {
    /// The address of the scalars.
    Scalar(ScalarKind, ClValue),
    /// The address of the leaves, and the number of leaves per row.
    Rows(ScalarKind, ClValue, usize),
    /// Each column's kind and address.
    Columns(Vec<(ScalarKind, ClValue)>),
}

/// How `for v in a` reads the elements into `v`.
pub(super) enum ForEach {
    /// From the array's leaves, into `v`'s registers (`for_leaves`).
    Leaves(LeafForm),
    /// Any other element, `v` held as a value in its slot (`for_elements`).
    Elements,
}

/// The element type of an array type.
fn elem_of(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(elem, _) => Some(elem),
        _ => None,
    }
}

impl Lower<'_, '_, '_> {
    /// How `for v in a` over an array of type `array_ty` reads its elements into `var`
    /// (`held`: an aggregate `var` is in registers); `None` when native code does not.
    pub(super) fn for_each_form(&self, var: Place, array_ty: &Type, held: bool) -> Option<ForEach> {
        let elem = elem_of(array_ty)?;
        let form = LeafForm::of(array_ty);
        match form {
            Some(LeafForm::Rows(..) | LeafForm::Columns(_)) if held => {
                return form.map(ForEach::Leaves)
            }
            Some(LeafForm::Scalar(_))
                if Repr::of(elem).is_some_and(|r| r != Repr::Unit)
                    && self.native_var(var, elem) =>
            {
                return form.map(ForEach::Leaves)
            }
            _ => {}
        }
        // Not a global variable over tuples stored as columns: native code would box each
        // element into the global's slot, while the closure compiler's loop moves a cursor
        // over the columns (`compile/columns.rs`), several times faster.
        let columns = Shape::of(array_ty).is_some_and(|s| matches!(s.repr, LeafRepr::Columns(_)));
        (self.slot_var(var) && !(matches!(var, Place::Global(_)) && columns))
            .then_some(ForEach::Elements)
    }

    /// Is the aggregate variable `var` held in registers: a local's, or a global's promoted
    /// for the closed loop being lowered?
    fn held_aggregate(&self, var: Place) -> bool {
        match var {
            Place::Local(s) => self.avars.contains_key(&s),
            Place::Global(g) => self.promoted.get(&g).is_some_and(|p| p.aggregate()),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        }
    }

    /// `s`, a `for v in a` (`label`, `var`, `array`, `body`): natively in the form
    /// `for_each_form` gives, else a fallback piece.
    pub(super) fn for_each(
        &mut self,
        s: &Stmt,
        label: u32,
        var: Place,
        array: &Expr,
        body: &[Stmt],
    ) {
        let held = self.held_aggregate(var);
        match self.for_each_form(var, &array.ty, held) {
            Some(ForEach::Leaves(form)) => self.for_leaves(label, var, array, &form, body),
            Some(ForEach::Elements) => self.for_elements(label, var, array, body),
            None => self.fallback_stmt(s, "a loop over an array of non-scalars", array.span),
        }
    }

    /// The leaves of the array in the evaluator's value at `addr`, of the form `form`
    /// (made unshared first when `write`), and its element count.
    pub(super) fn element_leaves(
        &mut self,
        form: &LeafForm,
        addr: ClValue,
        write: bool,
    ) -> (ElementLeaves, ClValue) {
        match form {
            LeafForm::Scalar(kind) => {
                let (data, len) = self.view(addr, write, false);
                (ElementLeaves::Scalar(*kind, data), len)
            }
            LeafForm::Rows(kind, agg) => {
                let k = agg.leaves.len();
                let (data, len) = self.view(addr, write, false);
                let n = self.b.ins().udiv_imm_s(len, k as i64);
                (ElementLeaves::Rows(*kind, data, k), n)
            }
            LeafForm::Columns(agg) => {
                let kinds = agg.layout().expect("columns").kinds.clone();
                let (len, columns) = self.columns_at(addr, write, false, kinds.len());
                (
                    ElementLeaves::Columns(kinds.into_iter().zip(columns).collect()),
                    len,
                )
            }
        }
    }

    /// Element `i` of `leaves`, in registers: a scalar, or an aggregate of its leaves.
    pub(super) fn load_element_leaves(&mut self, leaves: &ElementLeaves, i: ClValue) -> V {
        match leaves {
            ElementLeaves::Scalar(kind, data) => {
                let at = self.leaf_addr(*kind, *data, i);
                self.load_leaf(*kind, at)
            }
            ElementLeaves::Rows(kind, data, k) => {
                let first = self.b.ins().imul_imm_s(i, *k as i64);
                let mut vals = Vec::with_capacity(*k);
                for j in 0..*k {
                    let pos = self.b.ins().iadd_imm_s(first, j as i64);
                    let at = self.leaf_addr(*kind, *data, pos);
                    vals.push(self.load_leaf(*kind, at));
                }
                self.agg_value(vals)
            }
            ElementLeaves::Columns(columns) => {
                let mut vals = Vec::with_capacity(columns.len());
                for (kind, data) in columns {
                    let at = self.leaf_addr(*kind, *data, i);
                    vals.push(self.load_leaf(*kind, at));
                }
                self.agg_value(vals)
            }
        }
    }

    /// Store `v` (a scalar, or an aggregate of the element's leaves) as element `i` of
    /// `leaves`.
    pub(super) fn store_element_leaves(&mut self, leaves: &ElementLeaves, i: ClValue, v: V) {
        let scalar = |v: V| match v {
            V::I(x) | V::F(x) => x,
            V::Unit | V::Agg(_) => unreachable!("checked: a leaf is a scalar"),
        };
        match leaves {
            ElementLeaves::Scalar(kind, data) => {
                let at = self.leaf_addr(*kind, *data, i);
                self.store_leaf(*kind, scalar(v), at);
            }
            ElementLeaves::Rows(kind, data, k) => {
                let first = self.b.ins().imul_imm_s(i, *k as i64);
                for (j, leaf) in self.leaves(v).into_iter().enumerate() {
                    let pos = self.b.ins().iadd_imm_s(first, j as i64);
                    let at = self.leaf_addr(*kind, *data, pos);
                    self.store_leaf(*kind, scalar(leaf), at);
                }
            }
            ElementLeaves::Columns(columns) => {
                for ((kind, data), leaf) in columns.iter().zip(self.leaves(v)) {
                    let at = self.leaf_addr(*kind, *data, i);
                    self.store_leaf(*kind, scalar(leaf), at);
                }
            }
        }
    }

    /// `for v in a` over an array whose elements are read from its leaves (`LeafForm`) into
    /// `v`'s registers: the array evaluated once (a copy, or the local itself when the body
    /// leaves it alone, `unchanged_local`), then each element read and written to `v`.
    fn for_leaves(&mut self, label: u32, var: Place, array: &Expr, form: &LeafForm, body: &[Stmt]) {
        let elem = elem_of(&array.ty).expect("checked: an array").clone();
        let over = |l: &mut Self, leaves: ElementLeaves, n: ClValue| {
            l.counted_loop(label, n, Some(array.span), body, Some(var), |l, i| {
                let v = l.load_element_leaves(&leaves, i);
                match form {
                    LeafForm::Scalar(_) => l.write_var(var, v),
                    LeafForm::Rows(..) | LeafForm::Columns(_) => l.write_aggregate(var, &elem, v),
                }
            });
        };
        if let Some((leaves, n)) = self.kept_element_leaves(array, form) {
            return over(self, leaves, n);
        }
        let in_place = self.unchanged_local(array, var, body);
        self.on_a_copy(array, in_place, |l, temp| {
            let (leaves, n) = l.element_leaves(form, temp, false);
            over(l, leaves, n);
        });
    }

    /// The leaves and element count of `array`, a variable, from the view a closed loop or
    /// region keeps for it (known to be there: `viewed`). Such a loop leaves the variable's
    /// storage where it is, and `closed_for_each` saw that the body stores nothing into it:
    /// the loop reads it in place, with no copy and no call.
    fn kept_element_leaves(
        &mut self,
        array: &Expr,
        form: &LeafForm,
    ) -> Option<(ElementLeaves, ClValue)> {
        let place = match array.kind {
            ExprKind::Local(s) => Place::Local(s),
            ExprKind::Global(g) => Place::Global(g),
            _ => return None,
        };
        if !self.viewed.contains(&place) {
            return None;
        }
        let (data, len, _) = self.views.get(&place)?.clone();
        match form {
            LeafForm::Scalar(kind) if data.len() == 1 => {
                Some((ElementLeaves::Scalar(*kind, data[0]), len))
            }
            LeafForm::Rows(kind, agg) if data.len() == 1 => {
                let k = agg.leaves.len();
                let n = self.b.ins().udiv_imm_s(len, k as i64);
                Some((ElementLeaves::Rows(*kind, data[0], k), n))
            }
            LeafForm::Columns(agg) => {
                let kinds = agg.layout()?.kinds.clone();
                (kinds.len() == data.len()).then(|| {
                    (
                        ElementLeaves::Columns(kinds.into_iter().zip(data).collect()),
                        len,
                    )
                })
            }
            _ => None,
        }
    }

    /// The slot of `array` when it is a local held as a value in its slot (`slot_var`) that
    /// `body` neither assigns, stores into nor moves out of, and that is not the loop's
    /// variable `var`: a loop over it may read it where it is, without a copy. (A local is
    /// never addressed: one that is becomes a cell.)
    fn unchanged_local(&self, array: &Expr, var: Place, body: &[Stmt]) -> Option<Slot> {
        let ExprKind::Local(slot) = array.kind else {
            return None;
        };
        if var == Place::Local(slot) || !self.slot_var(Place::Local(slot)) {
            return None;
        }
        let changed = std::cell::Cell::new(false);
        crate::core::visit::each_in_stmts(
            body,
            &mut |e| {
                if matches!(e.kind, ExprKind::Take(s) if s == slot) {
                    changed.set(true);
                }
            },
            &mut |place| {
                if place == Place::Local(slot) {
                    changed.set(true);
                }
            },
        );
        (!changed.get()).then_some(slot)
    }

    /// `for v in a` over elements of any other kind (rows, boxed tuples, strings), `v` held
    /// in its slot (`slot_var`): on a copy of the array, as `for_array`, each element written
    /// to the slot before the body runs.
    fn for_elements(&mut self, label: u32, var: Place, array: &Expr, body: &[Stmt]) {
        let shape = crate::eval::array::Shape::of(&array.ty).expect("checked: an array");
        let shape = self.keep(shape);
        let in_place = self.unchanged_local(array, var, body);
        self.on_a_copy(array, in_place, |l, temp| {
            let n = l.element_count(shape, temp);
            l.counted_loop(label, n, Some(array.span), body, Some(var), |l, i| {
                let dest = match var {
                    Place::Local(slot) => {
                        l.frame_used = true;
                        l.slot_addr(slot)
                    }
                    Place::Global(g) => l.global_addr(g),
                    Place::LocalCell(_) | Place::CaptureCell(_) => {
                        unreachable!("checked by slot_var")
                    }
                };
                l.element_into(shape, temp, i, dest);
            });
        });
    }

    /// Run `lower` with a copy of the value of `array` (a view sharing its storage) in a
    /// temporary, dropped after it, also when an error unwinds from inside; or, when the
    /// array is the local `in_place` (`unchanged_local`), with the address of its slot.
    /// The copy of an array of more than `FEW_ELEMENTS` is dropped through the helper's stub,
    /// which keeps every register: what the loop carried in registers (a float accumulator)
    /// is still live across the drop, and a call that changes registers would keep it on the
    /// stack through the whole loop.
    pub(super) fn on_a_copy(
        &mut self,
        array: &Expr,
        in_place: Option<Slot>,
        lower: impl FnOnce(&mut Self, ClValue),
    ) {
        if let Some(slot) = in_place {
            self.frame_used = true;
            let at = self.slot_addr(slot);
            return lower(self, at);
        }
        let temp = self.temp_value();
        let notes = self.notes.len();
        self.value_into(array, temp, "");
        self.notes.truncate(notes);
        let outer_unwind = self.unwind;
        let unwind = self.side_block(|l| {
            l.drop_value(temp);
            l.b.ins().jump(outer_unwind, &[]);
        });
        self.unwind = unwind;
        lower(self, temp);
        // A loop over a few elements carries little through few iterations: its copy is
        // dropped by a plain call, cheaper than the stub's saving of every register.
        let few = crate::eval::array::Shape::of(&array.ty)
            .and_then(|shape| shape.n_elements)
            .is_some_and(|n| n <= FEW_ELEMENTS);
        match few {
            true => self.drop_value(temp),
            false => self.keeping_registers(|l| l.drop_value(temp)),
        }
        self.b.seal_block(unwind);
        self.unwind = outer_unwind;
    }
}
