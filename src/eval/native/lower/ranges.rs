//! What the code being lowered knows of the values of integer expressions: an interval that
//! holds every value an expression can have where it is lowered, so that an arithmetic
//! check that cannot fail (`i * n + j` for loop variables in known ranges) and a bounds
//! check that cannot fail (`a.(k - 1)` for such a `k`) are left out.
//!
//! Intervals come from constants (and `val` globals of constants), from the types of values
//! (an `int` is within `int`'s range, a compact code below its type's size) and from
//! variables: a counting loop's variable within its loop when nothing else assigns it, and
//! a variable assigned once in the code being lowered, after that assignment, for the rest of
//! the statement list holding it (where the assignment has run on every path). What is
//! learnt inside a statement list is forgotten at its end. A variable that only assignments
//! change has its inductive range everywhere (`core::ranges::inductive`): a function's
//! register locals, and in a unit's top level, the unit's globals (`core::ranges::
//! global_ranges`); one only counting loops write lies between their bounds. The condition
//! of a `while` or an `if` bounds the register locals it compares in the body or branch
//! where it holds (or not), until a statement assigns them.
//!
//! One relation between variables is known besides: in a counting loop up to a variable `n`
//! (or `n + k`) held in a register, which the body leaves alone, the loop variable is at most
//! `n` (less one for `..<`). So `n - i`, `n - 1 - i` and `i - n` are known to stay within
//! their type when `i` starts at 0, where the intervals of `n` and `i` alone would allow an
//! overflow. The bound may also be the count of the elements of a string or varray whose
//! view the loop keeps (`for i in 0 ..< (len d).int`): no element is pushed or popped while
//! a view is kept (`hoist.rs`), so the count is the view's, and `d.i`, `d.(i - 1)` and `s.[i]`
//! for `i` from 0 (or 1) are inside it without a test.

use std::collections::{HashMap, HashSet};

use crate::core::ir::{
    ArithOp, CmpOp, Const, Expr, ExprKind, Pattern, Place, Prim, RangeKind, Slot, Stmt, VarrayOp,
};
use crate::core::ranges::{arith, constant, range_in, Interval};
use crate::types::ty::IntTy;
use crate::types::Type;

use super::Lower;

/// The code whose statements are being lowered, for what its variables' ranges may assume.
pub(super) enum Body<'a> {
    /// A function's body, with its parameters (which hold what the caller passes).
    Function(&'a [Pattern]),
    /// A unit's whole top level (its pieces share their locals), while the unit runs.
    TopLevel,
    /// A block run inside a function, whose locals the function assigns too.
    Block,
}

impl Body<'_> {
    /// A unit's top level, or a block that returns out of a function (`returns_out`).
    pub fn of_top_level(returns_out: bool) -> Self {
        match returns_out {
            true => Body::Block,
            false => Body::TopLevel,
        }
    }
}

#[derive(Default)]
pub(super) struct Ranges {
    known: HashMap<Place, Interval>,
    /// What the conditions of the `if`s and `while`s around the code being lowered say of
    /// variables, until a statement assigns them.
    conditions: HashMap<Place, Interval>,
    /// Loop variables known to be at most another variable, or a count, plus a constant
    /// (`i <= n - 1`), while neither changes.
    at_most: HashMap<Place, (Bound, i128)>,
    /// What to restore when statement lists end: each change and what it replaced.
    undo: Vec<Undo>,
    /// The variables the code being lowered writes exactly once, by an assignment.
    single: HashSet<Place>,
    /// The inductive ranges of the variables only assignments change.
    carried: HashMap<Place, Interval>,
}

/// A change to the facts, with what it replaced.
enum Undo {
    Known(Place, Option<Interval>),
    Condition(Place, Option<Interval>),
    AtMost(Place, Option<(Bound, i128)>),
}

/// What a loop variable is at most (plus a constant): a variable, or the count of the
/// elements of the string or varray a variable holds, whose view the loop keeps.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    Var(Place),
    Count(Place),
}

impl Ranges {
    /// The facts for code whose statements are `stmts`, in which `writable` says which
    /// places an assignment may be trusted for (not written behind the code's back), and
    /// `inductive` which of those start at 0 and change only by the assignments in `stmts`.
    pub fn of(
        stmts: &[Stmt],
        writable: impl Fn(Place) -> bool,
        inductive: impl Fn(Place) -> bool,
        var: &dyn Fn(Place, IntTy) -> Option<Interval>,
    ) -> Ranges {
        let mut writes: HashMap<Place, usize> = HashMap::new();
        let mut assigned: HashMap<Place, Vec<&Expr>> = HashMap::new();
        let mut loops: HashMap<Place, Vec<(&Expr, &Expr, RangeKind)>> = HashMap::new();
        type Loops<'ir> = HashMap<Place, Vec<(&'ir Expr, &'ir Expr, RangeKind)>>;
        struct Count<'a, 'ir> {
            writes: &'a mut HashMap<Place, usize>,
            assigned: &'a mut HashMap<Place, Vec<&'ir Expr>>,
            loops: &'a mut Loops<'ir>,
        }
        impl<'ir> crate::core::visit::Visit<'ir> for Count<'_, 'ir> {
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                match s {
                    Stmt::Assign(place, e) => self.assigned.entry(*place).or_default().push(e),
                    Stmt::ForRange {
                        var,
                        from,
                        to,
                        kind,
                        ..
                    } => self.loops.entry(*var).or_default().push((from, to, *kind)),
                    _ => {}
                }
                crate::core::visit::walk_stmt(self, s)
            }
            fn visit_place(&mut self, place: Place) {
                *self.writes.entry(place).or_insert(0) += 1;
            }
        }
        let mut count = Count {
            writes: &mut writes,
            assigned: &mut assigned,
            loops: &mut loops,
        };
        for s in stmts {
            crate::core::visit::Visit::visit_stmt(&mut count, s);
        }
        let only_assigned = |place: &Place| {
            let n = assigned.get(place).map_or(0, Vec::len);
            n > 0 && writes.get(place) == Some(&n) && writable(*place)
        };
        let single = (writes.keys())
            .filter(|place| only_assigned(place) && assigned[*place].len() == 1)
            .copied()
            .collect();
        let candidates: HashMap<Place, Vec<&Expr>> = (assigned.iter())
            .filter(|(place, rhs)| {
                only_assigned(place)
                    && inductive(**place)
                    && rhs
                        .iter()
                        .all(|e| matches!(e.ty, crate::types::Type::Int(_)))
            })
            .map(|(place, rhs)| (*place, rhs.clone()))
            .collect();
        // A variable only counting loops write lies between their bounds (one step past,
        // after a loop; 0 before any).
        let mut counters: HashMap<Place, Interval> = HashMap::new();
        for (place, ranges) in &loops {
            if writes.get(place) != Some(&ranges.len()) || !inductive(*place) {
                continue;
            }
            let mut r = Some((0, 0));
            for (from, to, _) in ranges {
                let (Some((a, b)), Some((c, d))) = (range_in(from, var), range_in(to, var)) else {
                    r = None;
                    break;
                };
                r = r.map(|(lo, hi)| (lo.min(a).min(c) - 1, hi.max(b).max(d) + 1));
            }
            counters.extend(r.map(|r| (*place, r)));
        }
        let known = |place: Place, ity: IntTy| counters.get(&place).copied().or(var(place, ity));
        let mut carried = crate::core::ranges::inductive(&candidates, Some((0, 0)), &known);
        carried.extend(counters);
        Ranges {
            single,
            carried,
            ..Ranges::default()
        }
    }
}

impl Lower<'_, '_, '_> {
    /// Start lowering `stmts`, the statements of `body`: which variables they assign once,
    /// and the inductive ranges of the variables only assignments change. A local counts
    /// when it is held in registers (nothing can write it through a pointer) and only
    /// `stmts` assign it; a global is assigned once when it is a `val`, and has its inductive
    /// range in the top level of the unit declaring it (`Program::global_ranges`).
    pub(super) fn know_ranges(&mut self, stmts: &[Stmt], body: Body<'_>) {
        let params: Vec<Slot> = match body {
            Body::Function(params) => (params.iter())
                .flat_map(super::matching::bound_slots)
                .collect(),
            _ => Vec::new(),
        };
        let vars = &self.vars;
        let c = &self.c;
        let var = |place: Place, ity: IntTy| match place {
            Place::Global(g) => match c.global_constant(g) {
                Some(Const::Int(k)) => Some(constant(*k, ity)),
                _ => None,
            },
            _ => None,
        };
        self.ranges = Ranges::of(
            stmts,
            |place| match place {
                Place::Local(s) => vars.contains_key(&s),
                Place::Global(g) => c.global_is_val(g),
                Place::LocalCell(_) | Place::CaptureCell(_) => false,
            },
            |place| match (place, &body) {
                (Place::Local(s), Body::Function(_)) => !params.contains(&s),
                (Place::Local(_), Body::TopLevel) => true,
                _ => false,
            },
            &var,
        );
        if let Body::TopLevel = body {
            let globals = c.unit_global_ranges();
            let globals = globals.iter().map(|(g, r)| (Place::Global(*g), *r));
            self.ranges.carried.extend(globals);
        }
    }

    /// What is known of the variable `place` (of type `ity`) here.
    fn place_range(&self, place: Place, ity: IntTy) -> Option<Interval> {
        if let Place::Global(g) = place {
            if let Some(Const::Int(k)) = self.c.global_constant(g) {
                return Some(constant(*k, ity));
            }
        }
        let facts = [
            self.ranges.known.get(&place),
            self.ranges.carried.get(&place),
            self.ranges.conditions.get(&place),
        ];
        (facts.into_iter().flatten().copied()).reduce(|(a, b), (c, d)| (a.max(c), b.min(d)))
    }

    /// An interval holding every value of the integer expression `e` here, when one is
    /// known (always, for a type narrower than 64 bits).
    pub(super) fn int_range(&self, e: &Expr) -> Option<Interval> {
        let r = range_in(e, &|place, ity| self.place_range(place, ity))?;
        match &e.kind {
            ExprKind::Prim(Prim::IntArith(ArithOp::Sub, _), operands) => match &operands[..] {
                [x, y] => Some(self.difference_range(x, y, r)),
                _ => Some(r),
            },
            _ => Some(r),
        }
    }

    /// The interval `r` of `x - y` narrowed by what is known of a loop variable against its
    /// bound: `n + a - (i + b)` is at least `a - b - k` when `i <= n + k`, and
    /// `i + b - (n + a)` at most `k + b - a`.
    fn difference_range(&self, x: &Expr, y: &Expr, r: Interval) -> Interval {
        let (Some((x, a)), Some((y, b))) = (self.offset_bound(x), self.offset_bound(y)) else {
            return r;
        };
        let (mut lo, mut hi) = r;
        if let Bound::Var(y) = y {
            if let Some(&(n, k)) = self.ranges.at_most.get(&y) {
                if n == x {
                    lo = lo.max(a - b - k);
                }
            }
        }
        if let Bound::Var(x) = x {
            if let Some(&(n, k)) = self.ranges.at_most.get(&x) {
                if n == y {
                    hi = hi.min(k + a - b);
                }
            }
        }
        // Bounds that cross belong to code that cannot run (a loop that makes no trip).
        if lo <= hi {
            (lo, hi)
        } else {
            r
        }
    }

    /// `e` as a variable or a kept count plus a constant (`n`, `n - 1`, `i + 2`, `(len d).int`),
    /// when it is one. An integer conversion keeps the value (it fails when it cannot).
    fn offset_bound(&self, e: &Expr) -> Option<(Bound, i128)> {
        match &e.kind {
            ExprKind::Local(s) => Some((Bound::Var(Place::Local(*s)), 0)),
            ExprKind::Global(g) => Some((Bound::Var(Place::Global(*g)), 0)),
            ExprKind::Prim(Prim::IntArith(op @ (ArithOp::Add | ArithOp::Sub), ity), operands) => {
                let [x, y] = &operands[..] else {
                    return None;
                };
                let ExprKind::Const(Const::Int(k)) = y.kind else {
                    return None;
                };
                let (bound, c) = self.offset_bound(x)?;
                let k = constant(k, *ity).0;
                Some((bound, if *op == ArithOp::Add { c + k } else { c - k }))
            }
            ExprKind::Prim(Prim::Convert, operands) => match &operands[..] {
                [x] if matches!((&x.ty, &e.ty), (Type::Int(_), Type::Int(_))) => {
                    self.offset_bound(x)
                }
                _ => None,
            },
            ExprKind::Inlined(inlined) if inlined.stmts.is_empty() => {
                self.offset_bound(inlined.result.as_ref()?)
            }
            ExprKind::Prim(Prim::Varray(VarrayOp::Len) | Prim::StrLen, operands) => {
                let [base] = &operands[..] else {
                    return None;
                };
                let place = match base.kind {
                    ExprKind::Local(s) => Place::Local(s),
                    ExprKind::Global(g) => Place::Global(g),
                    _ => return None,
                };
                self.views
                    .contains_key(&place)
                    .then_some((Bound::Count(place), 0))
            }
            _ => None,
        }
    }

    /// Is the index `index` of the string or varray held in `place`, whose view is kept,
    /// certainly inside its count: not negative, and at most a loop variable bounded by that
    /// count, less one?
    pub(super) fn below_count(&self, index: &Expr, place: Place) -> bool {
        let Some((Bound::Var(i), b)) = self.offset_bound(index) else {
            return false;
        };
        let within = (self.ranges.at_most.get(&i))
            .is_some_and(|&(n, k)| n == Bound::Count(place) && k + b < 0);
        within && self.int_range(index).is_some_and(|(lo, _)| lo >= 0)
    }

    /// Does `x op y` (`+ - *` on `ity`) certainly stay within `ity`, by what is known of the
    /// operands?
    pub(super) fn arith_in_range(&self, op: ArithOp, ity: IntTy, x: &Expr, y: &Expr) -> bool {
        let (Some(rx), Some(ry)) = (self.int_range(x), self.int_range(y)) else {
            return false;
        };
        let r = match (op, arith(op, rx, ry)) {
            (ArithOp::Sub, Some(r)) => Some(self.difference_range(x, y, r)),
            (_, r) => r,
        };
        r.is_some_and(|(lo, hi)| lo >= ity.min() && hi <= ity.max())
    }

    /// Is `x / y` (or `x % y`) certainly a division of a non-negative value by a positive
    /// one, which cannot fail?
    pub(super) fn natural_division(&self, x: &Expr, y: &Expr) -> bool {
        let (Some((x_lo, _)), Some((y_lo, _))) = (self.int_range(x), self.int_range(y)) else {
            return false;
        };
        x_lo >= 0 && y_lo > 0
    }

    /// Is the index `index` certainly below `n` (and not negative)?
    pub(super) fn index_in_range(&self, index: &Expr, n: usize) -> bool {
        self.int_range(index)
            .is_some_and(|(lo, hi)| lo >= 0 && hi < n as i128)
    }

    /// Where statement lists start: the mark `forget_since` returns to.
    pub(super) fn ranges_mark(&self) -> usize {
        self.ranges.undo.len()
    }

    /// Forget what was learnt since `mark`.
    pub(super) fn forget_since(&mut self, mark: usize) {
        while self.ranges.undo.len() > mark {
            let undo = self.ranges.undo.pop().expect("longer than the mark");
            let (facts, place, old) = match undo {
                Undo::Known(place, old) => (&mut self.ranges.known, place, old),
                Undo::Condition(place, old) => (&mut self.ranges.conditions, place, old),
                Undo::AtMost(place, old) => {
                    match old {
                        Some(r) => self.ranges.at_most.insert(place, r),
                        None => self.ranges.at_most.remove(&place),
                    };
                    continue;
                }
            };
            match old {
                Some(r) => facts.insert(place, r),
                None => facts.remove(&place),
            };
        }
    }

    fn learn(&mut self, place: Place, r: Interval) {
        let old = self.ranges.known.insert(place, r);
        self.ranges.undo.push(Undo::Known(place, old));
    }

    /// Where the condition `cond` is known to hold (`holds`) or not, at the start of a
    /// branch or of a loop's body: what it says of the integer variables it compares with
    /// values in known ranges (`i < n`: `i` is below `n`'s greatest value), until a
    /// statement assigns them (`before_stmt`). Only of register locals, which nothing but
    /// the statements in view can assign (a call may assign a global), and only when the
    /// condition itself assigns nothing (an inlined body in it may).
    fn learn_condition(&mut self, cond: &Expr, holds: bool) {
        let mut assigns = false;
        crate::core::visit::each_in_expr(cond, &mut |_| {}, &mut |_| assigns = true);
        if assigns {
            return;
        }
        for (place, r) in self.condition_facts(cond, holds) {
            let old = self.ranges.conditions.insert(place, r);
            self.ranges.undo.push(Undo::Condition(place, old));
        }
    }

    /// Lower code by `lower` where `cond` is known to hold (`holds`) or not, forgetting after
    /// it what was learnt there: a branch, an arm or a loop's body.
    pub(super) fn knowing<R>(
        &mut self,
        cond: &Expr,
        holds: bool,
        lower: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let mark = self.ranges_mark();
        self.learn_condition(cond, holds);
        let result = lower(self);
        self.forget_since(mark);
        result
    }

    fn condition_facts(&self, cond: &Expr, holds: bool) -> Vec<(Place, Interval)> {
        match (&cond.kind, holds) {
            (ExprKind::And(a, b), true) | (ExprKind::Or(a, b), false) => {
                let mut facts = self.condition_facts(a, holds);
                facts.extend(self.condition_facts(b, holds));
                facts
            }
            (ExprKind::Prim(Prim::Compare(op), operands), _) => {
                let [x, y] = &operands[..] else {
                    return Vec::new();
                };
                let op = if holds { *op } else { negated(*op) };
                let mut facts = Vec::new();
                for (v, other, op) in [(x, y, op), (y, x, flipped(op))] {
                    let place = match v.kind {
                        ExprKind::Local(s) if self.vars.contains_key(&s) => Place::Local(s),
                        _ => continue,
                    };
                    let (Some((lo, hi)), Some((o_lo, o_hi))) =
                        (self.int_range(v), self.int_range(other))
                    else {
                        continue;
                    };
                    let (lo, hi) = match op {
                        CmpOp::Lt => (lo, hi.min(o_hi - 1)),
                        CmpOp::Le => (lo, hi.min(o_hi)),
                        CmpOp::Gt => (lo.max(o_lo + 1), hi),
                        CmpOp::Ge => (lo.max(o_lo), hi),
                        CmpOp::Eq => (lo.max(o_lo), hi.min(o_hi)),
                        CmpOp::Ne => continue,
                    };
                    if lo <= hi {
                        facts.push((place, (lo, hi)));
                    }
                }
                facts
            }
            _ => Vec::new(),
        }
    }

    /// Before lowering the statement `s`: what the conditions around it say of a variable
    /// `s` assigns no longer holds (for an assignment of the variable itself, only after
    /// it: its value is computed first, while the condition holds).
    pub(super) fn before_stmt(&mut self, s: &Stmt) {
        if self.ranges.conditions.is_empty() {
            return;
        }
        let direct = match s {
            // Unless the value's own code assigns the variable (an inlined body).
            Stmt::Assign(place, e) => {
                let mut inner = false;
                crate::core::visit::each_in_expr(e, &mut |_| {}, &mut |p| inner |= p == *place);
                (!inner).then_some(*place)
            }
            _ => None,
        };
        let assigned = super::hoist::assigned_places(std::slice::from_ref(s));
        let stale: Vec<Place> = (self.ranges.conditions.keys())
            .filter(|p| assigned.contains(*p) && Some(**p) != direct)
            .copied()
            .collect();
        for place in stale {
            self.forget_condition(place);
        }
    }

    /// After lowering the statement `s`: an assigned variable's condition no longer holds.
    pub(super) fn after_stmt(&mut self, s: &Stmt) {
        if let Stmt::Assign(place, _) = s {
            if self.ranges.conditions.contains_key(place) {
                self.forget_condition(*place);
            }
        }
    }

    fn forget_condition(&mut self, place: Place) {
        let old = self.ranges.conditions.remove(&place);
        self.ranges.undo.push(Undo::Condition(place, old));
    }

    /// After `place = e` has run: what is known of `e` holds for `place` while it is not
    /// assigned again, which it is not when the code assigns it only here.
    pub(super) fn learn_assigned(&mut self, place: Place, e: &Expr) {
        if !self.ranges.single.contains(&place) {
            return;
        }
        if let Some(r) = self.int_range(e) {
            self.learn(place, r);
        }
    }

    /// In the body `body` of a counting loop over `var` from `from` to `to`, which neither
    /// the body nor anything else assigns: the values the variable takes there, and when the
    /// upper bound is a variable held in a register, or the count of a string or varray whose
    /// view is kept (plus a constant), which the body leaves alone, that the variable is at
    /// most it.
    pub(super) fn learn_loop_variable(
        &mut self,
        var: Place,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) {
        let (bound, below) = match kind {
            RangeKind::Exclusive => (to, 1),
            RangeKind::Inclusive => (to, 0),
            RangeKind::Downto => (from, 0),
        };
        if let Some((n, k)) = self.offset_bound(bound) {
            let kept = match n {
                Bound::Var(Place::Local(s)) => self.vars.contains_key(&s),
                Bound::Var(Place::Global(g)) => self.promoted.contains_key(&g),
                Bound::Var(Place::LocalCell(_) | Place::CaptureCell(_)) => false,
                Bound::Count(_) => true,
            };
            let (Bound::Var(place) | Bound::Count(place)) = n;
            if kept && place != var && !super::hoist::assigned_places(body).contains(&place) {
                let old = self.ranges.at_most.insert(var, (n, k - below));
                self.ranges.undo.push(Undo::AtMost(var, old));
            }
        }
        let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (self.int_range(from), self.int_range(to))
        else {
            return;
        };
        let r = match kind {
            RangeKind::Exclusive => (a_lo, b_hi - 1),
            RangeKind::Inclusive => (a_lo, b_hi),
            RangeKind::Downto => (b_lo, a_hi),
        };
        if r.0 <= r.1 {
            self.learn(var, r);
        }
    }
}

/// The comparison that holds when `op` does not.
fn negated(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
    }
}

/// `op` with its operands swapped: `x < y` is `y > x`.
fn flipped(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}
