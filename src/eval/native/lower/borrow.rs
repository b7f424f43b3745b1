//! Borrowed values: boxed values a function reads without a reference count of its own.
//!
//! A boxed argument is passed by reference: the address of the caller's frame slot or
//! temporary, which nothing assigns while the call runs. When the function never assigns the
//! parameter, it is *borrowed*: read at that address (an address variable, `aliases`), with
//! no clone on entry, no drop on exit and no copy into its own slot.
//!
//! The variables a `match` on such a parameter binds to parts of it (`| Add (a, b) => ...`)
//! are borrowed the same way, as long as the parameter's value lives, which is the whole call:
//! each is read where its address variable points, which is the part inside the parameter's
//! value. Such a variable may also be bound to a value of its own, which its frame slot then
//! owns and its address variable points at: when a match on something else binds it, or the
//! closure compiler's pattern binder does. Its slot holds `Unit` or a value it owns, never a
//! borrowed one, so dropping the frame drops it (tested only once some such slot may own a
//! value, `vars_owned`).
//!
//! The closure compiler reads variables in the frame: before a fallback piece that mentions a
//! borrowed parameter, its value is copied bitwise into its slot (set back to `Unit` before
//! the frame is dropped); a borrowed variable's value is cloned into its slot, where native
//! code then reads it too.
//!
//! Only the native lowering of a function's own body writes these slots (the analysis admits
//! a variable only when every write of it in the body is a pattern's binding; a chunk
//! function of a parallel loop binds no boxed values).

use std::cell::RefCell;
use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Function, Pattern, PatternKind, Place, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts, walk_expr, walk_stmt, Visit};
use crate::eval::native::{Agg, Repr};

use super::super::layout::{self, VALUE_SIZE};
use super::{flags, Lower};

/// What a function may borrow: the parameters its body never writes, and the variables bound
/// only by patterns, some of them in matches on those parameters.
pub(super) struct Borrows {
    pub params: Vec<Slot>,
    pub vars: Vec<Slot>,
}

impl Borrows {
    pub(super) fn of(function: &Function) -> Borrows {
        let mut params = Vec::new();
        for p in &function.params {
            let mut patterns = vec![p];
            while let Some(p) = patterns.pop() {
                match &p.kind {
                    PatternKind::Bind(Place::Local(s)) => params.push(*s),
                    PatternKind::Tuple(parts) => patterns.extend(parts.iter()),
                    _ => {}
                }
            }
        }
        // A `take` moves the value out: a write too.
        let written = RefCell::new(Vec::new());
        each_in_stmts(
            &function.body,
            &mut |e| {
                if let ExprKind::Take(s) = e.kind {
                    written.borrow_mut().push(s)
                }
            },
            &mut |place| {
                if let Place::Local(s) | Place::LocalCell(s) = place {
                    written.borrow_mut().push(s)
                }
            },
        );
        let written = written.into_inner();
        let cells = &function.cell_slots;
        params.retain(|s| !written.contains(s) && !cells.contains(s));

        let mut binds = Binds {
            params: &params,
            writes: HashMap::new(),
            bound: HashMap::new(),
            from_params: Vec::new(),
            not_boxed: Vec::new(),
        };
        for s in &function.body {
            binds.visit_stmt(s);
        }
        let mut vars: Vec<Slot> = binds
            .from_params
            .iter()
            .copied()
            .filter(|s| {
                binds.writes.get(s) == binds.bound.get(s)
                    && !binds.not_boxed.contains(s)
                    && !params.contains(s)
                    && !cells.contains(s)
            })
            .collect();
        vars.sort_unstable();
        vars.dedup();
        Borrows { params, vars }
    }
}

/// Counts, per local slot, its writes and its bindings by match patterns.
struct Binds<'p> {
    params: &'p [Slot],
    writes: HashMap<Slot, usize>,
    bound: HashMap<Slot, usize>,
    /// Slots bound by a match on a parameter that may be borrowed.
    from_params: Vec<Slot>,
    /// Slots some pattern binds to a value native code holds in registers.
    not_boxed: Vec<Slot>,
}

impl Binds<'_> {
    fn arms<'a>(&mut self, scrutinee: &ExprKind, patterns: impl Iterator<Item = &'a Pattern>) {
        let on_param = matches!(scrutinee, ExprKind::Local(s) if self.params.contains(s));
        for p in patterns {
            for (place, p) in p.bindings() {
                if let Place::Local(s) = place {
                    *self.bound.entry(s).or_default() += 1;
                    if Repr::of(&p.ty).is_some() || Agg::of(&p.ty).is_some() {
                        self.not_boxed.push(s);
                    }
                    if on_param {
                        self.from_params.push(s);
                    }
                }
            }
        }
    }
}

impl<'ir> Visit<'ir> for Binds<'_> {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        if let Stmt::Match(x, arms) = s {
            self.arms(&x.kind, arms.iter().flat_map(|a| a.patterns.iter()));
        }
        walk_stmt(self, s)
    }
    fn visit_expr(&mut self, e: &'ir Expr) {
        if let ExprKind::Match(x, arms) = &e.kind {
            self.arms(&x.kind, arms.iter().flat_map(|a| a.patterns.iter()));
        }
        if let ExprKind::Take(s) = e.kind {
            self.visit_place(Place::Local(s));
        }
        walk_expr(self, e)
    }
    fn visit_place(&mut self, place: Place) {
        if let Place::Local(s) = place {
            *self.writes.entry(s).or_default() += 1;
        }
    }
}

impl Lower<'_, '_, '_> {
    /// Borrow the caller's value at `from` into the frame slot at `to`: a bitwise copy, which
    /// holds no reference of its own.
    pub(super) fn borrow_value(&mut self, from: ClValue, to: ClValue) {
        for word in (0..VALUE_SIZE as i32).step_by(8) {
            let w = self.b.ins().load(types::I64, flags(), from, word);
            self.b.ins().store(flags(), w, to, word);
        }
    }

    /// The parameter `s`, borrowed, is read where the caller's value is (`from`).
    pub(super) fn alias_param(&mut self, s: Slot, from: ClValue) {
        let at = self.b.declare_var(types::I64);
        self.b.def_var(at, from);
        self.aliases.insert(s, at);
        self.borrowed_params.push(s);
    }

    /// The variables `vars` may be bound to borrowed values: each is read where its address
    /// variable points, its own slot to start with (which holds `Unit`).
    pub(super) fn declare_borrowed(&mut self, vars: &[Slot]) {
        if !vars.is_empty() {
            let owned = self.b.declare_var(types::I64);
            let zero = self.iconst(0);
            self.b.def_var(owned, zero);
            self.vars_owned = Some(owned);
        }
        for s in vars {
            let at = self.b.declare_var(types::I64);
            let slot = self.frame_slot(*s);
            self.b.def_var(at, slot);
            self.aliases.insert(*s, at);
            self.borrowed_vars.push(*s);
        }
    }

    /// Is `s` a variable that may be bound to a borrowed value?
    pub(super) fn is_borrowed_var(&self, s: Slot) -> bool {
        self.borrowed_vars.contains(&s)
    }

    /// The slot of a borrowed variable is about to own a value: the frame is dropped with a
    /// test of each such slot (a function that only ever borrows tests none).
    fn slot_owns(&mut self) {
        self.frame_used = true;
        if let Some(owned) = self.vars_owned {
            let one = self.iconst(1);
            self.b.def_var(owned, one);
        }
    }

    /// Bind the variable `s` (which may be bound to a borrowed value) to the value at `addr`:
    /// borrowed in place when the match being lowered is on a borrowed parameter
    /// (`borrowing`), else copied into its slot.
    pub(super) fn bind_borrowed(&mut self, s: Slot, addr: ClValue) {
        let at = self.aliases[&s];
        if self.borrowing {
            self.b.def_var(at, addr);
        } else {
            self.slot_owns();
            let slot = self.frame_slot(s);
            self.copy_value(addr, slot);
            self.b.def_var(at, slot);
        }
    }

    /// The variables `slots` are about to be bound in their frame slots by the closure
    /// compiler's binder: read them there from now on.
    pub(super) fn bound_in_slots(&mut self, slots: &[Slot]) {
        for s in slots {
            if let Some(&at) = self.aliases.get(s) {
                self.slot_owns();
                let slot = self.frame_slot(*s);
                self.b.def_var(at, slot);
            }
        }
    }

    /// Put in their frame slots the borrowed values of the variables and parameters that the
    /// fallback piece (the statements `stmts` or the expression `expr`) reads: the closure
    /// compiler reads the frame.
    pub(super) fn own_for_piece(&mut self, stmts: &[Stmt], expr: Option<&Expr>) {
        if self.aliases.is_empty() {
            return;
        }
        let slots = RefCell::new(Vec::new());
        let mut on_expr = |e: &Expr| match e.kind {
            ExprKind::Local(s) => slots.borrow_mut().push(s),
            // A closure made here captures slots its function lists, not seen as reads.
            ExprKind::MakeFun { .. } | ExprKind::Closure { .. } => {
                slots.borrow_mut().extend(self.aliases.keys().copied())
            }
            _ => {}
        };
        let mut on_place = |place: Place| {
            if let Place::Local(s) = place {
                slots.borrow_mut().push(s)
            }
        };
        each_in_stmts(stmts, &mut on_expr, &mut on_place);
        if let Some(e) = expr {
            each_in_expr(e, &mut on_expr, &mut on_place);
        }
        let mut slots = slots.into_inner();
        slots.sort_unstable();
        slots.dedup();
        self.make_owned(&slots);
    }

    /// Put the values of `slots` that are read elsewhere than in their frame slots there,
    /// before code that reads the frame (the closure compiler) runs: a borrowed parameter's
    /// as a bitwise copy (let go of on exit), a variable's as a clone its slot owns, which
    /// native code then reads too.
    pub(super) fn make_owned(&mut self, slots: &[Slot]) {
        for s in slots {
            let Some(&at) = self.aliases.get(s) else {
                continue;
            };
            self.frame_used = true;
            let from = self.b.use_var(at);
            let slot = self.frame_slot(*s);
            if self.borrowed_params.contains(s) {
                self.borrow_value(from, slot);
                continue;
            }
            self.slot_owns();
            let elsewhere = self.b.ins().icmp(IntCC::NotEqual, from, slot);
            let copy = self.b.create_block();
            let next = self.b.create_block();
            self.b.ins().brif(elsewhere, copy, &[], next, &[]);
            self.b.seal_block(copy);
            self.b.switch_to_block(copy);
            self.copy_value(from, slot);
            self.b.ins().jump(next, &[]);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
            self.b.def_var(at, slot);
        }
    }

    /// Before the frame is dropped: let go of the bitwise copies of borrowed parameters
    /// (their slots set to `Unit`, nothing dropped).
    pub(super) fn release_borrowed(&mut self, params: &[Slot]) {
        let unit = self.b.ins().iconst(types::I8, layout::TAG_UNIT as i64);
        for s in params {
            let at = self.frame_slot(*s);
            self.b.ins().store(flags(), unit, at, 0);
        }
    }
}
