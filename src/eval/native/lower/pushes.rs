//! Pushes onto a varray (or darray) in a closed loop or region, in place.
//!
//! A push by the runtime (`varray_op`) takes the varray's lock, an atomic operation that
//! costs more than the push. In a closed loop (`hoist.rs`) nothing but the loop's own code
//! runs, so the storage of a varray variable it pushes onto is fetched once before it
//! (`varray_push_view`): each column's address, the count, and the room before the storage
//! must grow or the bound is reached. The count is then held in a register: a push stores the
//! element's leaves after the last and adds one. A push without room writes the count back
//! (`varray_commit`), runs the runtime's own push (which grows the storage under the memory
//! budget, or raises R0009 at the bound), and fetches the storage again. The count is written
//! back when the loop ends, on every error leaving it, and around a piece run on the closure
//! compiler (which may read the varray).
//!
//! Nothing else in the loop may see the count the varray holds meanwhile, so a loop pushes in
//! place only when it leaves only at its end and nothing in it but the pushes reaches a
//! varray of a pushed one's element type: no read, store, length or print of it, nor of
//! another variable that may hold the same varray (two varray variables may share their
//! elements). Two pushed variables of the same element type are compared before the loop:
//! when they hold the same varray, every push onto either is the runtime's.

use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value as ClValue};
use cranelift_frontend::Variable;

use crate::core::ir::{Expr, ExprKind, Place, Prim, Stmt, VarrayOp};
use crate::eval::value::ScalarKind;
use crate::types::Type;

use super::super::runtime::Helper;
use super::hoist::base_place;
use super::varray::{column_element, varray_columns, varray_element};
use super::{Lower, V};

/// The storage of a varray variable pushed onto in place: each column's address (one for
/// scalars), the count of elements, and the count up to which a push needs no room.
#[derive(Clone)]
pub(super) struct PushView {
    data: Vec<Variable>,
    len: Variable,
    limit: Variable,
    base: Expr,
    /// Non-zero when another varray variable pushed onto in the same loop holds the same
    /// varray: then every push is the runtime's (the room is kept at 0).
    shared: Option<ClValue>,
}

/// What `Lower::fetch_pushes` set up for a loop or region, undone by `Lower::end_pushes`.
pub(super) struct Pushing {
    places: Vec<Place>,
    /// The unwind block in force before.
    outer: cranelift_codegen::ir::Block,
}

/// The varray variables `stmts` push onto, with the expression of each, in the order first
/// pushed onto.
fn pushed_places(stmts: &[Stmt]) -> Vec<(Place, Expr)> {
    let mut pushed: Vec<(Place, Expr)> = Vec::new();
    crate::core::visit::each_in_stmts(
        stmts,
        &mut |e| {
            if let ExprKind::Prim(Prim::Varray(VarrayOp::Push), a) = &e.kind {
                if let Some(place) = a.first().and_then(base_place) {
                    if pushed.iter().all(|(p, _)| *p != place) {
                        pushed.push((place, a[0].clone()));
                    }
                }
            }
        },
        &mut |_| {},
    );
    pushed
}

/// Does `stmt` push onto a varray variable?
pub(super) fn pushes(stmt: &Stmt) -> bool {
    !pushed_places(std::slice::from_ref(stmt)).is_empty()
}

impl Lower<'_, '_, '_> {
    /// Is the statement `e`, a push of operands `a`, one a closed loop runs in place: onto a
    /// varray variable in the frame or a global, of scalars or of tuples of scalars stored as
    /// columns, with a closed element?
    pub(super) fn closed_push(
        &self,
        e: &Expr,
        a: &[Expr],
        arrays: &mut HashMap<Place, (Expr, bool)>,
    ) -> bool {
        let [varray, x] = a else {
            return false;
        };
        if !matches!(base_place(varray), Some(Place::Local(_) | Place::Global(_))) {
            return false;
        }
        let scalar =
            self.varray_form(e, VarrayOp::Push, a).is_some() && ScalarKind::of(&x.ty).is_some();
        let columns = self.column_op(e, VarrayOp::Push, a) && varray_columns(&varray.ty).is_some();
        (scalar || columns) && self.closed_expr(x, arrays)
    }

    /// May the closed statements `stmts` push in place (see the module's comment)? True when
    /// they push onto nothing.
    pub(super) fn pushes_in_place(&self, stmts: &[Stmt]) -> bool {
        let pushed = pushed_places(stmts);
        if pushed.is_empty() {
            return true;
        }
        if crate::core::visit::jumps_out(stmts) || crate::core::inline::has_return(stmts) {
            return false;
        }
        let elements: Vec<Option<&Type>> = pushed
            .iter()
            .map(|(_, base)| varray_element(&base.ty))
            .collect();
        if elements.contains(&None) {
            return false;
        }
        // Every expression of a pushed element type is a pushed variable, read only as the
        // varray of a push.
        let (mut uses, mut pushes) = (HashMap::new(), HashMap::new());
        let mut alone = true;
        crate::core::visit::each_in_stmts(
            stmts,
            &mut |e| {
                if let ExprKind::Prim(Prim::Varray(VarrayOp::Push), a) = &e.kind {
                    if let Some(place) = a.first().and_then(base_place) {
                        *pushes.entry(place).or_insert(0) += 1;
                    }
                }
                let element = varray_element(&e.ty);
                if element.is_none() || !elements.contains(&element) {
                    return;
                }
                let place = match e.kind {
                    ExprKind::Local(s) => Some(Place::Local(s)),
                    ExprKind::Global(g) => Some(Place::Global(g)),
                    _ => None,
                };
                match place.filter(|place| pushed.iter().any(|(p, _)| p == place)) {
                    Some(place) => *uses.entry(place).or_insert(0) += 1,
                    None => alone = false,
                }
            },
            &mut |_| {},
        );
        alone && uses == pushes
    }

    /// Before the closed loop or region `stmts` (`pushes_in_place` said so): fetch the
    /// storage of each varray variable it pushes onto that has none fetched yet, and write its
    /// count back on every error leaving it. What to undo after it (`end_pushes`).
    pub(super) fn fetch_pushes(&mut self, stmts: &[Stmt]) -> Option<Pushing> {
        let fresh: Vec<(Place, Expr)> = pushed_places(stmts)
            .into_iter()
            .filter(|(place, _)| !self.pushing.contains_key(place))
            .collect();
        if fresh.is_empty() {
            return None;
        }
        let mut places = Vec::new();
        let mut fetched: Vec<(Option<&Type>, ClValue)> = Vec::new();
        for (place, base) in &fresh {
            let n = varray_columns(&base.ty).map_or(1, |layout| layout.kinds.len());
            let view = PushView {
                data: (0..n).map(|_| self.b.declare_var(types::I64)).collect(),
                len: self.b.declare_var(types::I64),
                limit: self.b.declare_var(types::I64),
                base: base.clone(),
                shared: None,
            };
            let elements = self.push_view(&view);
            fetched.push((varray_element(&base.ty), elements));
            self.pushing.insert(*place, view);
            places.push(*place);
        }
        // Two variables of the same element type may hold the same varray: checked here,
        // once, since nothing in the loop can assign either.
        for (i, place) in places.iter().enumerate() {
            let mut shared = None;
            for (j, other) in fetched.iter().enumerate() {
                if j == i || other.0 != fetched[i].0 {
                    continue;
                }
                let same = self.b.ins().icmp(IntCC::Equal, fetched[i].1, other.1);
                shared = Some(match shared {
                    Some(any) => self.b.ins().bor(any, same),
                    None => same,
                });
            }
            if let Some(shared) = shared {
                let view = self.pushing.get_mut(place).expect("fetched above");
                view.shared = Some(shared);
                let limit = view.limit;
                let held = self.b.use_var(limit);
                let zero = self.iconst(0);
                let limit_now = self.b.ins().select(shared, zero, held);
                self.b.def_var(limit, limit_now);
            }
        }
        let outer = self.unwind;
        let list = places.clone();
        self.unwind = self.side_block(|l| {
            l.commit_pushes(&list);
            l.b.ins().jump(outer, &[]);
        });
        Some(Pushing { places, outer })
    }

    /// After the loop or region `fetch_pushes` prepared: the counts written back, the unwind
    /// block in force before restored.
    pub(super) fn end_pushes(&mut self, pushing: Option<Pushing>) {
        let Some(Pushing { places, outer }) = pushing else {
            return;
        };
        if !self.filled() {
            self.commit_pushes(&places);
        }
        let side = self.unwind;
        self.b.seal_block(side);
        self.unwind = outer;
        for place in places {
            self.pushing.remove(&place);
        }
    }

    /// The varray variables pushed onto in place now, in a fixed order.
    pub(super) fn pushed_now(&self) -> Vec<Place> {
        let mut places: Vec<Place> = self.pushing.keys().copied().collect();
        places.sort_by_key(|place| format!("{place:?}"));
        places
    }

    /// Write the counts of the varrays at `places` back (`varray_commit`).
    pub(super) fn commit_pushes(&mut self, places: &[Place]) {
        for place in places {
            let view = self.pushing[place].clone();
            let addr = self.base_addr(&view.base);
            let len = self.b.use_var(view.len);
            self.call_helper(Helper::VarrayCommit, &[types::I64; 2], &[], &[addr, len]);
        }
    }

    /// Fetch the storage of the varrays at `places` again (after the runtime pushed, or a
    /// piece of the closure compiler ran).
    pub(super) fn refetch_pushes(&mut self, places: &[Place]) {
        for place in places {
            let view = self.pushing[place].clone();
            self.push_view(&view);
        }
    }

    /// Fetch the storage of `view`'s varray into its variables (`varray_push_view`): the
    /// address of its elements.
    fn push_view(&mut self, view: &PushView) -> ClValue {
        let n = view.data.len();
        let addr = self.base_addr(&view.base);
        let out = self.leaf_buffer(n + 3);
        let count = self.iconst(n as i64);
        self.call_helper(
            Helper::VarrayPushView,
            &[types::I64; 3],
            &[],
            &[addr, out, count],
        );
        let words: Vec<ClValue> = (0..n + 3)
            .map(|c| (self.b.ins()).load(types::I64, super::flags(), out, (c * 8) as i32))
            .collect();
        for (var, word) in view.data.iter().zip(&words) {
            self.b.def_var(*var, *word);
        }
        self.b.def_var(view.len, words[n]);
        let limit = match view.shared {
            Some(shared) => {
                let zero = self.iconst(0);
                self.b.ins().select(shared, zero, words[n + 1])
            }
            None => words[n + 1],
        };
        self.b.def_var(view.limit, limit);
        words[n + 2]
    }

    /// Push the element (its leaves `x`) of the push `e` (operands `a`) in place, when its
    /// varray's storage is kept for the enclosing loop: after the last element when there is
    /// room, else by `runtime` (the runtime's own push), between writing the count back and
    /// fetching the storage again. False when it is not kept (nothing lowered).
    pub(super) fn push_in_place(
        &mut self,
        e: &Expr,
        a: &[Expr],
        x: &[V],
        runtime: impl FnOnce(&mut Self),
    ) -> bool {
        let Some(place) = a.first().and_then(base_place) else {
            return false;
        };
        let Some(view) = self.pushing.get(&place).cloned() else {
            return false;
        };
        let kinds: Vec<ScalarKind> = match column_element(e, VarrayOp::Push, a) {
            Some(agg) => agg.layout().expect("a column element").kinds.to_vec(),
            None => ScalarKind::of(&a[1].ty).into_iter().collect(),
        };
        let leaves: Vec<ClValue> = x
            .iter()
            .filter_map(|leaf| match *leaf {
                V::I(v) | V::F(v) => Some(v),
                _ => None,
            })
            .collect();
        if kinds.len() != view.data.len() || leaves.len() != kinds.len() {
            // Not a form the view stores (`closed_push` admits none): the runtime's push, with
            // the count it sees kept right.
            self.commit_pushes(&[place]);
            runtime(self);
            self.refetch_pushes(&[place]);
            return true;
        }
        let len = self.b.use_var(view.len);
        let limit = self.b.use_var(view.limit);
        let full = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, len, limit);
        let join = self.b.create_block();
        let fast = self.cold_if(full);
        self.commit_pushes(&[place]);
        runtime(self);
        self.refetch_pushes(&[place]);
        self.b.ins().jump(join, &[]);
        self.b.seal_block(fast);
        self.b.switch_to_block(fast);
        for ((kind, leaf), data) in kinds.iter().zip(leaves).zip(&view.data) {
            let data = self.b.use_var(*data);
            let at = self.leaf_addr(*kind, data, len);
            self.store_leaf(*kind, leaf, at);
        }
        let next = self.b.ins().iadd_imm_s(len, 1);
        self.b.def_var(view.len, next);
        self.b.ins().jump(join, &[]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        true
    }
}
