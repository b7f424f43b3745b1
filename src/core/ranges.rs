//! Intervals of integer values: an interval holding every value an integer expression can
//! have, from what is known of the variables it reads, and the intervals of variables that
//! hold in every execution (*inductive* ranges: every assignment keeps the variable inside,
//! as `x = (x * 1103515245L + 12345L) % 2147483648L` keeps `x` in `0 .. 2^31 - 1` once it
//! starts there). Native code uses them to leave out checks that cannot fail
//! (`eval/native/lower/ranges.rs`).

use std::collections::HashMap;

use crate::core::ir::{ArithOp, CoerceKind, Const, Expr, ExprKind, Place, Prim, Slot, Stmt, Unit};
use crate::core::visit::{walk_expr, walk_stmt, Visit};
use crate::types::ty::IntTy;
use crate::types::Type;

/// The least and greatest value, as exact integers (a 64-bit unsigned value is its bits
/// read as unsigned).
pub type Interval = (i128, i128);

/// An interval holding every value of the integer expression `e`, when `var` gives what is
/// known of the variables (`None`: only their type), and their types otherwise. `None` for
/// an expression that is not an integer.
pub fn range_in(e: &Expr, var: &dyn Fn(Place, IntTy) -> Option<Interval>) -> Option<Interval> {
    let Type::Int(ity) = e.ty else {
        return None;
    };
    let of_type = (ity.min(), ity.max());
    let found = match &e.kind {
        ExprKind::Const(Const::Int(k)) => Some(constant(*k, ity)),
        ExprKind::Zero => Some((0, 0)),
        ExprKind::Global(g) => var(Place::Global(*g), ity),
        ExprKind::Local(s) => var(Place::Local(*s), ity),
        ExprKind::Prim(Prim::IntArith(op, _), operands) => match &operands[..] {
            [x, y] => arith(*op, range_in(x, var)?, range_in(y, var)?),
            _ => None,
        },
        // Negation is exact (it fails on the least value).
        ExprKind::Prim(Prim::IntNeg(_), operands) if ity.signed() => match &operands[..] {
            [x] => range_in(x, var).map(|(lo, hi)| (-hi, -lo)),
            _ => None,
        },
        // A conversion keeps the value (it fails when the value does not fit).
        ExprKind::Prim(Prim::Convert, operands) => match &operands[..] {
            [x] => range_in(x, var),
            _ => None,
        },
        ExprKind::Coerce(CoerceKind::EncodeInt, x) => compact_codes(&x.ty),
        // The code of a char: a signed byte.
        ExprKind::Prim(Prim::Ord, _) => Some((i128::from(i8::MIN), i128::from(i8::MAX))),
        // The length of an array of a static size.
        ExprKind::Prim(Prim::Len, operands) => match &operands[..] {
            [array] => match &array.ty {
                Type::Array(_, index) => crate::types::size::size_of(index)
                    .and_then(|n| i128::try_from(n).ok())
                    .map(|n| (n, n)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    // A value the operation produced is of its type (it fails otherwise).
    let (lo, hi) = found.unwrap_or(of_type);
    let (lo, hi) = (lo.max(of_type.0), hi.min(of_type.1));
    (lo <= hi).then_some((lo, hi))
}

/// The value of the constant `k` of type `ity` (the bits of a 64-bit unsigned one).
pub fn constant(k: i64, ity: IntTy) -> Interval {
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
pub fn arith(op: ArithOp, (a, b): Interval, (c, d): Interval) -> Option<Interval> {
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

fn hull((a, b): Interval, (c, d): Interval) -> Interval {
    (a.min(c), b.max(d))
}

/// How many times the intervals grow before one that still grows is widened to its type's
/// bound on the side it grows (a counter, which no interval short of its type's holds).
const ROUNDS: usize = 8;

/// The inductive ranges of the integer variables `assigned` gives the assigned expressions
/// of: for each, an interval holding every value the variable ever has, when each of these
/// expressions is its only way to change, given `var` for the other variables. Each starts
/// at `start` (0 for a local, the value it holds before any assignment) and its assignments
/// of expressions that read none of them. Then each interval grows to hold the assignments'
/// values for variables within the intervals, until none grows: every assignment then keeps
/// its variable inside its interval. An interval that still grows after `ROUNDS` is widened
/// to its type's bound on the side it grows (so a counter from 0 is known not negative).
pub fn inductive(
    assigned: &HashMap<Place, Vec<&Expr>>,
    start: Option<Interval>,
    var: &dyn Fn(Place, IntTy) -> Option<Interval>,
) -> HashMap<Place, Interval> {
    let mut candidates: Vec<Place> = assigned.keys().copied().collect();
    candidates.sort_unstable_by_key(|p| match p {
        Place::Local(s) => (0, *s),
        Place::Global(s) => (1, *s),
        Place::LocalCell(s) => (2, *s),
        Place::CaptureCell(s) => (3, *s),
    });
    'restart: loop {
        let members: std::collections::HashSet<Place> = candidates.iter().copied().collect();
        let reads_candidate = |e: &Expr| {
            let mut found = false;
            crate::core::visit::each_in_expr(
                e,
                &mut |x| match x.kind {
                    ExprKind::Local(s) => found |= members.contains(&Place::Local(s)),
                    ExprKind::Global(s) => found |= members.contains(&Place::Global(s)),
                    _ => {}
                },
                &mut |_| {},
            );
            found
        };
        let mut ranges: HashMap<Place, Interval> = HashMap::new();
        let mut unbounded = Vec::new();
        for place in &candidates {
            let mut r = start;
            for e in &assigned[place] {
                if !reads_candidate(e) {
                    match range_in(e, var) {
                        Some(x) => r = Some(r.map_or(x, |r| hull(r, x))),
                        None => unbounded.push(*place),
                    }
                }
            }
            match r {
                Some(r) => {
                    ranges.insert(*place, r);
                }
                // Assigned only from itself or the others: none starts it (a global is
                // unset until assigned), so it holds no value to bound yet.
                None => unbounded.push(*place),
            }
        }
        if !unbounded.is_empty() {
            candidates.retain(|p| !unbounded.contains(p));
            continue 'restart;
        }
        let mut grown = Vec::new();
        for round in 0..3 * ROUNDS {
            let known = |p: Place, ity| ranges.get(&p).copied().or_else(|| var(p, ity));
            grown.clear();
            let mut next = ranges.clone();
            for place in &candidates {
                for e in &assigned[place] {
                    let Some(x) = range_in(e, &known) else {
                        unbounded.push(*place);
                        continue;
                    };
                    let r = next[place];
                    let wider = hull(r, x);
                    if wider != r {
                        next.insert(*place, wider);
                        grown.push(*place);
                    }
                }
            }
            if !unbounded.is_empty() {
                candidates.retain(|p| !unbounded.contains(p));
                continue 'restart;
            }
            if grown.is_empty() {
                return ranges;
            }
            // Still growing: the side that grows goes to its type's bound (a counter from 0
            // is at least 0), where it can grow no more.
            if round >= ROUNDS {
                for place in &grown {
                    let Type::Int(ity) = assigned[place][0].ty else {
                        continue;
                    };
                    let ((lo, hi), (old_lo, old_hi)) = (next[place], ranges[place]);
                    let lo = if lo < old_lo { ity.min() } else { lo };
                    let hi = if hi > old_hi { ity.max() } else { hi };
                    next.insert(*place, (lo, hi));
                }
            }
            ranges = next;
        }
        candidates.retain(|p| !grown.contains(p));
    }
}

/// The inductive ranges of the integer globals `unit` declares that only assignments change:
/// no pointer to one is taken, and every write of one, in the unit's top level and in its
/// functions, is an assignment. They hold while the unit's top level runs (a later unit may
/// assign such a global anything, and may call the unit's functions after it does).
pub fn global_ranges(
    unit: &Unit,
    constant_of: &dyn Fn(Slot) -> Option<i64>,
) -> Vec<(Slot, Interval)> {
    let mut writes = GlobalWrites::default();
    for s in &unit.body {
        writes.visit_stmt(s);
    }
    for (_, f) in &unit.functions {
        for s in &f.body {
            writes.visit_stmt(s);
        }
    }
    let mut assigned: HashMap<Place, Vec<&Expr>> = HashMap::new();
    for def in &unit.globals {
        let g = def.slot;
        let (Some(rhs), Some(n)) = (writes.assigned.get(&g), writes.all.get(&g)) else {
            continue;
        };
        if rhs.len() == *n
            && !writes.addressed.contains(&g)
            && rhs.iter().all(|e| matches!(e.ty, Type::Int(_)))
        {
            assigned.insert(Place::Global(g), rhs.clone());
        }
    }
    let var = |p: Place, ity| match p {
        Place::Global(g) => constant_of(g).map(|k| constant(k, ity)),
        _ => None,
    };
    let mut found: Vec<(Slot, Interval)> = inductive(&assigned, None, &var)
        .into_iter()
        .filter_map(|(p, r)| match p {
            Place::Global(g) => Some((g, r)),
            _ => None,
        })
        .collect();
    found.sort_unstable();
    found
}

/// Per global: the expressions assigned to it, how many writes of any kind, and whether a
/// pointer to it is taken.
#[derive(Default)]
struct GlobalWrites<'ir> {
    assigned: HashMap<Slot, Vec<&'ir Expr>>,
    all: HashMap<Slot, usize>,
    addressed: std::collections::HashSet<Slot>,
}

impl<'ir> Visit<'ir> for GlobalWrites<'ir> {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        if let Stmt::Assign(Place::Global(g), e) = s {
            self.assigned.entry(*g).or_default().push(e);
        }
        walk_stmt(self, s)
    }

    fn visit_expr(&mut self, e: &'ir Expr) {
        if let ExprKind::AddrOf {
            place: Place::Global(g),
            ..
        } = e.kind
        {
            self.addressed.insert(g);
        }
        walk_expr(self, e)
    }

    fn visit_place(&mut self, place: Place) {
        if let Place::Global(g) = place {
            *self.all.entry(g).or_insert(0) += 1;
        }
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

    /// The inductive ranges of the globals of `src` (checked without the prelude), by name.
    fn globals(src: &str) -> Vec<(String, Interval)> {
        let unit = crate::core::tests::checked_unit(src);
        let name = |slot: Slot| crate::core::tests::global_name(&unit, slot);
        global_ranges(&unit, &|_| None)
            .into_iter()
            .map(|(slot, r)| (name(slot), r))
            .collect()
    }

    proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            /// Every value a generator `x = (x * a + c) % m` takes from its start, step by step
            /// until a step would leave `long` (the program would fail there), is inside the
            /// range found for it.
            #[test]
            fn a_generator_stays_in_its_range(
                start in -50i64..1000,
                a in -40i64..100_000,
                c in -1000i64..1000,
                m in 1i64..3_000_000_000,
            ) {
                let src = format!(
                    "var x = {start}L; var i = 0;\n\
                     while i < 10 do x = (x * {a}L + {c}L) % {m}L; i = i + 1; done\n\
                     println$ x;"
                )
    ;
                let found = globals(&src);
                let Some(&(_, (lo, hi))) = found.iter().find(|(name, _)| name == "x") else {
                    return Ok(());
                };
                let mut x = i128::from(start);
                for _ in 0..200 {
                    prop_assert!(lo <= x && x <= hi, "{x} outside {lo}..{hi} in {src}");
                    let next = x * i128::from(a) + i128::from(c);
                    if next < i128::from(i64::MIN) || next > i128::from(i64::MAX) {
                        break;
                    }
                    x = next % i128::from(m);
                }
            }
        }

    #[test]
    fn the_code_of_a_char_is_a_signed_byte() {
        let found = globals("val zero = ord (char \"0\"); val d = ord (char 200) - 1; println$ d;");
        assert_eq!(
            found,
            [
                ("zero".to_string(), (-128, 127)),
                ("d".to_string(), (-129, 126))
            ]
        );
    }

    #[test]
    fn a_generator_stays_below_its_modulus() {
        let found = globals(
            "var x = 42L; var i = 0;\n\
             while i < 10 do x = (x * 1103515245L + 12345L) % 2147483648L; i = i + 1; done\n\
             println$ x;",
        );
        assert_eq!(
            found,
            [
                ("x".to_string(), (0, 2147483647)),
                ("i".to_string(), (0, 2147483647))
            ]
        );
    }

    #[test]
    fn a_negative_start_a_counter_and_a_remainder() {
        let found = globals(
            "var x = -5L; var n = 0L; var k = 3;\n\
             while n < 10L do x = (x * 7L + 1L) % 100L; n = n + 1L; done\n\
             k = k % 4; println$ x; println$ n; println$ k;",
        );
        assert_eq!(
            found,
            [
                ("x".to_string(), (-99, 99)),
                ("n".to_string(), (0, i64::MAX as i128)),
                ("k".to_string(), (0, 3))
            ]
        );
    }

    #[test]
    fn a_global_written_elsewhere_is_left_out() {
        let found = globals(
            "var x = 1; var z = 1;\n\
             proc bump () { x = x * 2 % 1000 + 7000; }\n\
             bump ();\n\
             val p = &z; p <- -4; println$ x + z;",
        );
        assert_eq!(found, [("x".to_string(), (1, 7999))]);
    }
}
