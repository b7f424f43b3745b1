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
//! learnt inside a statement list is forgotten at its end.

use std::collections::{HashMap, HashSet};

use crate::core::ir::{ArithOp, CoerceKind, Const, Expr, ExprKind, Place, Prim, RangeKind, Stmt};
use crate::types::ty::IntTy;
use crate::types::Type;

use super::Lower;

/// The least and greatest value, as exact integers (a 64-bit unsigned value is its bits
/// read as unsigned).
pub(super) type Interval = (i128, i128);

#[derive(Default)]
pub(super) struct Ranges {
    known: HashMap<Place, Interval>,
    /// What to restore when statement lists end: each change's place and what it replaced.
    undo: Vec<(Place, Option<Interval>)>,
    /// The variables the code being lowered writes exactly once, by an assignment.
    single: HashSet<Place>,
}

impl Ranges {
    /// The facts for code whose statements are `stmts`, in which `writable` says which
    /// places an assignment may be trusted for (not written behind the code's back).
    pub fn of(stmts: &[Stmt], writable: impl Fn(Place) -> bool) -> Ranges {
        let mut writes: HashMap<Place, usize> = HashMap::new();
        let mut assigns: HashMap<Place, usize> = HashMap::new();
        struct Count<'a> {
            writes: &'a mut HashMap<Place, usize>,
            assigns: &'a mut HashMap<Place, usize>,
        }
        impl<'ir> crate::core::visit::Visit<'ir> for Count<'_> {
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                if let Stmt::Assign(place, _) = s {
                    *self.assigns.entry(*place).or_insert(0) += 1;
                }
                crate::core::visit::walk_stmt(self, s)
            }
            fn visit_place(&mut self, place: Place) {
                *self.writes.entry(place).or_insert(0) += 1;
            }
        }
        let mut count = Count {
            writes: &mut writes,
            assigns: &mut assigns,
        };
        for s in stmts {
            crate::core::visit::Visit::visit_stmt(&mut count, s);
        }
        let single = writes
            .into_iter()
            .filter(|(place, n)| *n == 1 && assigns.get(place) == Some(&1) && writable(*place))
            .map(|(place, _)| place)
            .collect();
        Ranges {
            single,
            ..Ranges::default()
        }
    }
}

impl Lower<'_, '_, '_> {
    /// Start lowering `stmts` (a function's body or a unit's top level): which variables
    /// they assign once. A local counts when it is held in registers (nothing can write it
    /// through a pointer), a global when it is a `val` (nothing else assigns it).
    pub(super) fn know_ranges(&mut self, stmts: &[Stmt]) {
        let vars = &self.vars;
        let c = &self.c;
        self.ranges = Ranges::of(stmts, |place| match place {
            Place::Local(s) => vars.contains_key(&s),
            Place::Global(g) => c.global_is_val(g),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        });
    }

    /// An interval holding every value of the integer expression `e` here, when one is
    /// known (always, for a type narrower than 64 bits).
    pub(super) fn int_range(&self, e: &Expr) -> Option<Interval> {
        let Type::Int(ity) = e.ty else {
            return None;
        };
        let of_type = (ity.min(), ity.max());
        let found = match &e.kind {
            ExprKind::Const(Const::Int(k)) => Some(constant(*k, ity)),
            ExprKind::Global(g) => match self.c.global_constant(*g) {
                Some(Const::Int(k)) => Some(constant(*k, ity)),
                _ => self.ranges.known.get(&Place::Global(*g)).copied(),
            },
            ExprKind::Local(s) => self.ranges.known.get(&Place::Local(*s)).copied(),
            ExprKind::Prim(Prim::IntArith(op, _), operands) => match &operands[..] {
                [x, y] => arith(*op, self.int_range(x)?, self.int_range(y)?),
                _ => None,
            },
            ExprKind::Prim(Prim::Convert, operands) => match &operands[..] {
                [x] => self.int_range(x),
                _ => None,
            },
            ExprKind::Coerce(CoerceKind::EncodeInt, x) => compact_codes(&x.ty),
            // The length of an array of a static size.
            ExprKind::Prim(Prim::Len, operands) => match &operands[..] {
                [array] => crate::eval::array::Shape::of(&array.ty)
                    .and_then(|shape| shape.n_elements)
                    .map(|n| (n as i128, n as i128)),
                _ => None,
            },
            _ => None,
        };
        // A value the operation produced is of its type (it fails otherwise).
        let (lo, hi) = found.unwrap_or(of_type);
        let (lo, hi) = (lo.max(of_type.0), hi.min(of_type.1));
        (lo <= hi).then_some((lo, hi))
    }

    /// Does `x op y` (`+ - *` on `ity`) certainly stay within `ity`, by what is known of the
    /// operands?
    pub(super) fn arith_in_range(&self, op: ArithOp, ity: IntTy, x: &Expr, y: &Expr) -> bool {
        let (Some(rx), Some(ry)) = (self.int_range(x), self.int_range(y)) else {
            return false;
        };
        arith(op, rx, ry).is_some_and(|(lo, hi)| lo >= ity.min() && hi <= ity.max())
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
            let (place, old) = self.ranges.undo.pop().expect("longer than the mark");
            match old {
                Some(r) => self.ranges.known.insert(place, r),
                None => self.ranges.known.remove(&place),
            };
        }
    }

    fn learn(&mut self, place: Place, r: Interval) {
        let old = self.ranges.known.insert(place, r);
        self.ranges.undo.push((place, old));
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

    /// In the body of a counting loop over `var` from `from` to `to`, which neither the body
    /// nor anything else assigns: the values the variable takes there.
    pub(super) fn learn_loop_variable(
        &mut self,
        var: Place,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
    ) {
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

/// The value of the constant `k` of type `ity` (the bits of a 64-bit unsigned one).
fn constant(k: i64, ity: IntTy) -> Interval {
    let v = match (ity.signed(), ity.bits()) {
        (false, 64) => i128::from(k as u64),
        _ => i128::from(k),
    };
    (v, v)
}

/// The codes of a compact type: 0 to its size less one.
fn compact_codes(ty: &Type) -> Option<Interval> {
    let n = crate::types::size::size_of(ty)?;
    let n = i128::from(u64::try_from(n).ok()?);
    (n > 0).then_some((0, n - 1))
}

/// The exact results of `x op y` for `x` in `rx` and `y` in `ry`, when they are decided:
/// `+ - *`, and division and remainder by a positive divisor (truncated, as C's).
fn arith(op: ArithOp, (a, b): Interval, (c, d): Interval) -> Option<Interval> {
    let corners = |f: fn(i128, i128) -> Option<i128>| -> Option<Interval> {
        let v = [f(a, c)?, f(a, d)?, f(b, c)?, f(b, d)?];
        Some((*v.iter().min()?, *v.iter().max()?))
    };
    match op {
        ArithOp::Add => Some((a.checked_add(c)?, b.checked_add(d)?)),
        ArithOp::Sub => Some((a.checked_sub(d)?, b.checked_sub(c)?)),
        ArithOp::Mul => corners(i128::checked_mul),
        ArithOp::Div if c > 0 => corners(i128::checked_div),
        // The remainder has the dividend's sign and is smaller than the divisor.
        ArithOp::Mod if c > 0 => {
            let lo = if a >= 0 { 0 } else { a.max(1 - d) };
            let hi = if b <= 0 { 0 } else { b.min(d - 1) };
            Some((lo, hi))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact(op: ArithOp, x: i128, y: i128) -> Option<i128> {
        match op {
            ArithOp::Add => Some(x + y),
            ArithOp::Sub => Some(x - y),
            ArithOp::Mul => Some(x * y),
            ArithOp::Div => (y != 0).then(|| x / y),
            ArithOp::Mod => (y != 0).then(|| x % y),
        }
    }

    proptest! {
        /// Every result of operands drawn from two intervals is in the interval `arith`
        /// gives.
        #[test]
        fn arith_holds_every_result(
            op in prop::sample::select(vec![
                ArithOp::Add, ArithOp::Sub, ArithOp::Mul, ArithOp::Div, ArithOp::Mod,
            ]),
            a in -1000i128..1000, da in 0i128..500,
            c in -1000i128..1000, dc in 0i128..500,
            px in 0.0f64..=1.0, py in 0.0f64..=1.0,
        ) {
            let (b, d) = (a + da, c + dc);
            let x = a + (da as f64 * px) as i128;
            let y = c + (dc as f64 * py) as i128;
            if let Some((lo, hi)) = arith(op, (a, b), (c, d)) {
                let r = exact(op, x, y).expect("decided only for nonzero divisors");
                prop_assert!(lo <= r && r <= hi, "{op:?} {x} {y} = {r} outside {lo}..{hi}");
            }
        }
    }

    #[test]
    fn division_by_a_range_with_zero_is_not_decided() {
        assert_eq!(arith(ArithOp::Div, (1, 5), (-1, 1)), None);
        assert_eq!(arith(ArithOp::Mod, (1, 5), (0, 3)), None);
        assert_eq!(arith(ArithOp::Mod, (-7, 20), (16, 16)), Some((-7, 15)));
        assert_eq!(
            arith(ArithOp::Mul, (1, 198), (200, 200)),
            Some((200, 39600))
        );
    }

    #[test]
    fn unsigned_constants_are_their_bits() {
        assert_eq!(
            constant(-1, IntTy::ULong),
            (u64::MAX as i128, u64::MAX as i128)
        );
        assert_eq!(constant(-1, IntTy::Long), (-1, -1));
    }
}
