//! Borrowed values: boxed values a function reads without a reference count of its own.
//!
//! A boxed argument is passed by reference: the address of the caller's frame slot or
//! temporary, which nothing assigns while the call runs. When the function never assigns the
//! parameter, its frame slot holds a bitwise copy of the caller's value (a *borrowed* slot)
//! instead of a clone: no atomic increment on entry, no decrement on exit. The slot is set back
//! to `Unit` before the frame is dropped, and every copy taken from it is a real clone.
//!
//! The variables a `match` on such a parameter binds to parts of it (`| Add (a, b) => ...`)
//! are borrowed the same way, as long as the parameter's value lives, which is the whole call.
//! Such a variable's slot may also come to own its value: when a fallback piece or the
//! closure compiler's pattern binder assigns it, or a match on something else binds it. A
//! flag per variable (a Cranelift variable, 1: owned) says which; an owned value is dropped
//! before a borrowed one replaces it, and a borrowed one is let go of (not dropped) on exit.
//!
//! Only the native lowering of a function's own body writes these slots (the analysis admits
//! a variable only when every write of it in the body is a pattern's binding; a chunk
//! function of a parallel loop binds no boxed values).

use std::cell::RefCell;
use std::collections::HashMap;

use cranelift_codegen::ir::{types, InstBuilder, Value as ClValue};
use cranelift_frontend::Variable;

use crate::core::ir::{Expr, ExprKind, Function, Pattern, PatternKind, Place, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts, walk_expr, walk_stmt, Visit};
use crate::eval::native::{Agg, Repr};

use super::super::layout::{self, VALUE_SIZE};
use super::super::runtime::Helper;
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

    /// The variables `vars` may hold borrowed values: each gets its ownership flag, 0 (its
    /// slot holds `Unit`, which needs no drop either way).
    pub(super) fn declare_borrowed(&mut self, vars: &[Slot]) {
        for s in vars {
            let flag = self.b.declare_var(types::I64);
            let zero = self.iconst(0);
            self.b.def_var(flag, zero);
            self.borrowed_vars.insert(*s, flag);
        }
    }

    /// The ownership flag of `s` when it may hold a borrowed value.
    pub(super) fn borrow_flag(&self, s: Slot) -> Option<Variable> {
        self.borrowed_vars.get(&s).copied()
    }

    /// Bind the variable `s` (which may hold a borrowed value) to the value at `addr`:
    /// borrowed when the match being lowered is on a borrowed parameter (`borrowing`), else
    /// copied.
    pub(super) fn bind_borrowed(&mut self, s: Slot, flag: Variable, addr: ClValue) {
        let to = self.slot_addr(s);
        if self.borrowing {
            self.when_flag(flag, true, |l| l.drop_value(to));
            self.borrow_value(addr, to);
            let zero = self.iconst(0);
            self.b.def_var(flag, zero);
        } else {
            // Let go of a borrowed value (it is replaced), then own the copy.
            self.when_flag(flag, false, |l| {
                let unit = l.b.ins().iconst(types::I8, layout::TAG_UNIT as i64);
                l.b.ins().store(flags(), unit, to, 0);
            });
            self.copy_value(addr, to);
            let one = self.iconst(1);
            self.b.def_var(flag, one);
        }
    }

    /// Make owned every variable that may hold a borrowed value and that the fallback piece
    /// (the statements `stmts` or the expression `expr`) mentions.
    pub(super) fn own_for_piece(&mut self, stmts: &[Stmt], expr: Option<&Expr>) {
        if self.borrowed_vars.is_empty() {
            return;
        }
        let slots = RefCell::new(Vec::new());
        let mut on_expr = |e: &Expr| {
            if let ExprKind::Local(s) = e.kind {
                slots.borrow_mut().push(s)
            }
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

    /// Make the borrowed values of `slots` owned (a clone in place), before code that does not
    /// know of borrowing (the closure compiler) may assign them.
    pub(super) fn make_owned(&mut self, slots: &[Slot]) {
        for s in slots {
            let Some(flag) = self.borrow_flag(*s) else {
                continue;
            };
            let at = self.slot_addr(*s);
            self.when_flag(flag, false, |l| {
                l.call_helper(Helper::OwnValue, &[types::I64], &[], &[at]);
            });
            let one = self.iconst(1);
            self.b.def_var(flag, one);
        }
    }

    /// Before the frame is dropped: let go of the borrowed values, parameters' and variables'
    /// (their slots set to `Unit`, nothing dropped).
    pub(super) fn release_borrowed(&mut self, params: &[Slot]) {
        let unit = self.b.ins().iconst(types::I8, layout::TAG_UNIT as i64);
        for s in params {
            let at = self.slot_addr(*s);
            self.b.ins().store(flags(), unit, at, 0);
        }
        let mut vars: Vec<(Slot, Variable)> =
            self.borrowed_vars.iter().map(|(s, f)| (*s, *f)).collect();
        vars.sort_unstable_by_key(|(s, _)| *s);
        for (s, flag) in vars {
            let at = self.slot_addr(s);
            self.when_flag(flag, false, |l| {
                let unit = l.b.ins().iconst(types::I8, layout::TAG_UNIT as i64);
                l.b.ins().store(flags(), unit, at, 0);
            });
        }
    }

    /// Run `then` when the ownership flag `flag` is `owned`.
    fn when_flag(&mut self, flag: Variable, owned: bool, then: impl FnOnce(&mut Self)) {
        let value = self.b.use_var(flag);
        let taken = self.b.create_block();
        let next = self.b.create_block();
        if owned {
            self.b.set_cold_block(taken);
            self.b.ins().brif(value, taken, &[], next, &[]);
        } else {
            self.b.ins().brif(value, next, &[], taken, &[]);
        }
        self.b.seal_block(taken);
        self.b.switch_to_block(taken);
        then(self);
        self.b.ins().jump(next, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }
}
