//! Branch-free forms of short conditionals. A branch on data that varies from one iteration to
//! the next is mispredicted about half the time, which costs more than computing a few values
//! it would have skipped. So, when the skipped part is *cheap and infallible* (a few compares,
//! `not`, `and`, `or` and arithmetic that cannot overflow, of register values and constants:
//! computing it has no effect and cannot fail):
//!
//! - `x and y`, `x or y` compute both operands and combine them bit by bit;
//! - `if c then a else b endif` computes both values and selects one, a conditional move;
//! - `if c do v = e; done` (and its forms with an `else` assigning the same variable, or
//!   assigning it only in the `else`) on a variable in a register computes `e` and selects
//!   between it and the variable's value, a conditional move;
//! - `if c do n = n + k; done` (a count, a sum: `+`, `-` or `*` by a cheap infallible `k`),
//!   whose checked operation may fail, steps `n` by `k` or by the operation's identity:
//!   `n + (c ? k : 0)`, the same operation with the same check when `c` holds, and one that
//!   leaves `n` as it is, and cannot fail, when not.
//!
//! The results are those of the branching forms: the skipped computation has no effect.

use cranelift_codegen::ir::{InstBuilder, Value as ClValue};

use crate::core::ir::{ArithOp, Const, Expr, ExprKind, Place, Prim, Stmt};
use crate::eval::native::Repr;

use super::{Lower, V};

/// The most nodes a cheap expression has.
const CHEAP: usize = 8;

impl Lower<'_, '_, '_> {
    /// Is `e` cheap and infallible: computing it has no effect, cannot fail and takes a few
    /// instructions?
    pub(super) fn cheap_infallible(&self, e: &Expr) -> bool {
        let mut budget = CHEAP;
        self.infallible_within(e, &mut budget)
    }

    fn infallible_within(&self, e: &Expr, budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let scalar = |x: &Expr| matches!(Repr::of(&x.ty), Some(Repr::I64 | Repr::F64));
        match &e.kind {
            ExprKind::Const(Const::Int(_) | Const::Float(_)) => scalar(e),
            ExprKind::Local(s) => self.vars.contains_key(s),
            ExprKind::Global(g) => self.promoted_plain(*g),
            ExprKind::Capture(i) => self.capture_values.contains_key(i),
            ExprKind::And(x, y) | ExprKind::Or(x, y) => {
                self.infallible_within(x, budget) && self.infallible_within(y, budget)
            }
            ExprKind::If(c, x, y) => {
                scalar(e)
                    && self.infallible_within(c, budget)
                    && self.infallible_within(x, budget)
                    && self.infallible_within(y, budget)
            }
            ExprKind::Prim(Prim::Not, a) => {
                a.len() == 1 && scalar(e) && self.infallible_within(&a[0], budget)
            }
            ExprKind::Prim(Prim::Compare(_), a) => {
                a.len() == 2
                    && a.iter().all(scalar)
                    && a.iter().all(|x| self.infallible_within(x, budget))
            }
            ExprKind::Prim(
                Prim::IntArith(op @ (ArithOp::Add | ArithOp::Sub | ArithOp::Mul), ity),
                a,
            ) if a.len() == 2 => {
                self.arith_in_range(*op, *ity, &a[0], &a[1])
                    && a.iter().all(|x| self.infallible_within(x, budget))
            }
            ExprKind::Prim(Prim::FloatArith(ArithOp::Add | ArithOp::Sub | ArithOp::Mul, _), a) => {
                a.len() == 2 && a.iter().all(|x| self.infallible_within(x, budget))
            }
            _ => false,
        }
    }

    /// Is the global `g` held in a register by the loop being lowered, as one scalar that is
    /// known to be set (so that reading it cannot fail)?
    fn promoted_plain(&self, g: u32) -> bool {
        self.promoted
            .get(&g)
            .is_some_and(|p| p.plain() && (!p.flagged() || self.c.known_defined(g)))
    }

    /// `x and y` (`is_and`) or `x or y` as a boolean, both operands computed, when `y` is
    /// cheap and infallible; `None` otherwise.
    pub(super) fn logic_without_branch(&mut self, x: &Expr, y: &Expr, is_and: bool) -> Option<V> {
        if !self.cheap_infallible(y) {
            return None;
        }
        let x = self.expr(x).int();
        let y = self.expr(y).int();
        Some(V::I(if is_and {
            self.b.ins().band(x, y)
        } else {
            self.b.ins().bor(x, y)
        }))
    }

    /// `if c then a else b endif` of a scalar, with `a` and `b` cheap and infallible, as a
    /// conditional move (`if x > m then x else m endif`); `None` otherwise.
    pub(super) fn if_value_as_select(
        &mut self,
        c: &Expr,
        a: &Expr,
        b: &Expr,
        repr: Repr,
    ) -> Option<V> {
        if !matches!(repr, Repr::I64 | Repr::F64)
            || !self.cheap_infallible(a)
            || !self.cheap_infallible(b)
        {
            return None;
        }
        let cond = self.expr(c).int();
        let x = self.expr(a).int();
        let y = self.expr(b).int();
        let chosen = self.b.ins().select(cond, x, y);
        Some(match repr {
            Repr::F64 => V::F(chosen),
            _ => V::I(chosen),
        })
    }

    /// `if c do v = e; done`, `if c do v = e1; else v = e2; done` or `if c do ; else v = e;
    /// done` on a variable `v` in a register, with cheap and infallible values, as a
    /// conditional move: `true` when lowered so.
    pub(super) fn if_as_select(&mut self, c: &Expr, then: &[Stmt], otherwise: &[Stmt]) -> bool {
        let (Some(t), Some(f)) = (assigned(then), assigned(otherwise)) else {
            return false;
        };
        let place = match (t, f) {
            (Some((p, _)), None) | (None, Some((p, _))) => p,
            (Some((p, _)), Some((q, _))) if p == q => p,
            _ => return false,
        };
        let in_register = match place {
            Place::Local(s) => self
                .vars
                .get(&s)
                .is_some_and(|(_, repr)| matches!(repr, Repr::I64 | Repr::F64)),
            Place::Global(g) => self.promoted_plain(g),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        };
        let cheap = |l: &Self, side: Option<(Place, &Expr)>| {
            side.is_none_or(|(_, e)| {
                matches!(Repr::of(&e.ty), Some(Repr::I64 | Repr::F64)) && l.cheap_infallible(e)
            })
        };
        if !in_register {
            return false;
        }
        if !cheap(self, t) || !cheap(self, f) {
            return self.masked_step(c, place, t, f);
        }
        let repr = match Repr::of(&then_or(t, f).ty) {
            Some(Repr::F64) => Repr::F64,
            _ => Repr::I64,
        };
        let cond = self.expr(c).int();
        let value = |l: &mut Self, side: Option<(Place, &Expr)>| -> ClValue {
            match side {
                Some((_, e)) => l.expr(e).int(),
                None => l.read_var(place, repr).int(),
            }
        };
        let (a, b) = (value(self, t), value(self, f));
        let chosen = self.b.ins().select(cond, a, b);
        let v = match repr {
            Repr::F64 => V::F(chosen),
            _ => V::I(chosen),
        };
        self.write_var(place, v);
        true
    }

    /// `if c do v = v + e; done` (or `v - e`, `e + v`, `v * e`, `e * v`; or the step in the
    /// `else`) on an integer variable `v` in a register, with `e` cheap and infallible, as an
    /// unconditional step by `e` or by the operation's identity: `v + (c ? e : 0)`. The
    /// checked operation is the same when the branch would run, and cannot fail otherwise
    /// (it leaves `v` as it is): `true` when lowered so.
    fn masked_step(
        &mut self,
        c: &Expr,
        place: Place,
        t: Option<(Place, &Expr)>,
        f: Option<(Place, &Expr)>,
    ) -> bool {
        let (step, when) = match (t, f) {
            (Some((_, e)), None) => (e, true),
            (None, Some((_, e))) => (e, false),
            _ => return false,
        };
        let ExprKind::Prim(Prim::IntArith(op, ity), a) = &step.kind else {
            return false;
        };
        let is_var = |x: &Expr| match (&x.kind, place) {
            (ExprKind::Local(s), Place::Local(p)) => *s == p,
            (ExprKind::Global(g), Place::Global(p)) => *g == p,
            _ => false,
        };
        let (other, identity) = match (op, a.as_slice()) {
            (ArithOp::Add | ArithOp::Sub, [x, y]) if is_var(x) => (y, 0),
            (ArithOp::Add, [x, y]) if is_var(y) => (x, 0),
            (ArithOp::Mul, [x, y]) if is_var(x) => (y, 1),
            (ArithOp::Mul, [x, y]) if is_var(y) => (x, 1),
            _ => return false,
        };
        if Repr::of(&step.ty) != Some(Repr::I64) || !self.cheap_infallible(other) {
            return false;
        }
        let cond = self.expr(c).int();
        let v = self.read_var(place, Repr::I64).int();
        let k = self.expr(other).int();
        let identity = self.iconst(identity);
        let k = match when {
            true => self.b.ins().select(cond, k, identity),
            false => self.b.ins().select(cond, identity, k),
        };
        let r = self.int_arith(*op, *ity, v, k, step.span);
        self.write_var(place, V::I(r));
        true
    }
}

/// What a branch of an `if` is when it assigns at most one variable: `Some(None)` for an
/// empty branch, the place and value of its one assignment, `None` for anything else.
fn assigned(branch: &[Stmt]) -> Option<Option<(Place, &Expr)>> {
    match branch {
        [] => Some(None),
        [Stmt::Assign(place, e)] => Some(Some((*place, e))),
        _ => None,
    }
}

/// The value assigned by one of the two branches (at least one assigns).
fn then_or<'e>(t: Option<(Place, &'e Expr)>, f: Option<(Place, &'e Expr)>) -> &'e Expr {
    t.or(f).map(|(_, e)| e).expect("a branch assigns")
}
