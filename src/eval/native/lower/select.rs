//! Branch-free forms of short conditionals. A branch on data that varies from one iteration to
//! the next is mispredicted about half the time, which costs more than computing a few values
//! it would have skipped. So, when the skipped part is *cheap and infallible* (a few compares,
//! `not`, `and`, `or`, arithmetic that cannot overflow, division by a constant other than 0
//! and -1 and widening conversions, of register values and constants: computing it has no
//! effect and cannot fail):
//!
//! - `x and y`, `x or y` compute both operands and combine them bit by bit;
//! - `if c then a else b endif` computes both values and selects one, a conditional move;
//! - `if c do v = e; done` (and its forms with an `else` assigning the same variable, or
//!   assigning it only in the `else`) on a variable in a register computes `e` and selects
//!   between it and the variable's value, a conditional move;
//! - `if c do n = n + k; done` (a count, a sum: `+`, `-` or `*` by a cheap infallible `k`),
//!   whose checked operation may fail, steps `n` by `k` or by the operation's identity:
//!   `n + (c ? k : 0)`, the same operation with the same check when `c` holds, and one that
//!   leaves `n` as it is, and cannot fail, when not;
//! - a branch of several such assignments, the other branch empty (`if c do hits = hits + 1;
//!   sum = sum + x; done`), is one conditional move or masked step each, in order.
//!
//! The results are those of the branching forms: the skipped computation has no effect.

use cranelift_codegen::ir::{InstBuilder, Value as ClValue};

use crate::core::ir::{ArithOp, Const, Expr, ExprKind, Place, Prim, Stmt};
use crate::eval::native::Repr;
use crate::types::ty::IntTy;
use crate::types::Type;

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
            // A constant made a scalar (`char "a"`): folded.
            ExprKind::Prim(Prim::Convert, _) if super::expr::constant_conversion(e).is_some() => {
                true
            }
            // A widening of an integer, or an integer made a double.
            ExprKind::Prim(Prim::Convert, a)
                if a.len() == 1
                    && scalar(e)
                    && match (&a[0].ty, &e.ty) {
                        (Type::Int(from), Type::Int(to)) => {
                            IntTy::min(*from) >= IntTy::min(*to)
                                && IntTy::max(*from) <= IntTy::max(*to)
                        }
                        (Type::Int(_), Type::Double) => true,
                        _ => false,
                    } =>
            {
                self.infallible_within(&a[0], budget)
            }
            // A division or remainder by a constant other than 0 and -1 cannot fail, and is
            // a shift or a multiplication.
            ExprKind::Prim(Prim::IntArith(ArithOp::Div | ArithOp::Mod, _), a)
                if a.len() == 2
                    && scalar(e)
                    && matches!(a[1].kind, ExprKind::Const(Const::Int(k)) if k != 0 && k != -1) =>
            {
                self.infallible_within(&a[0], budget)
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
    /// conditional move; and a branch of several such assignments (`if x > best do best = x;
    /// at = i; done`), the other branch empty, as one conditional move or masked step each:
    /// `true` when lowered so.
    pub(super) fn if_as_select(&mut self, c: &Expr, then: &[Stmt], otherwise: &[Stmt]) -> bool {
        match (assigned(then), assigned(otherwise)) {
            (Some(Some((p, e1))), Some(Some((q, e2)))) => {
                p == q && self.in_register(p) && self.cheap_value(e1) && self.cheap_value(e2) && {
                    let cond = self.expr(c).int();
                    let a = self.expr(e1).int();
                    let b = self.expr(e2).int();
                    self.select_into(p, cond, a, b, &e1.ty);
                    true
                }
            }
            (Some(None), _) => self.steps_as_selects(c, otherwise, false),
            (_, Some(None)) => self.steps_as_selects(c, then, true),
            _ => false,
        }
    }

    /// A branch of assignments to variables in registers, run when `c` is `when` (the other
    /// branch empty), without a branch: an assignment of a cheap infallible value is a
    /// conditional move, a checked step by one (`n = n + k`) steps by `k` or by the
    /// operation's identity. They are lowered in order, so a value reading a variable the
    /// branch assigned before it reads what the branch would have given it when `c` holds
    /// (and, when it does not, a value that is then discarded). `true` when lowered so;
    /// nothing is lowered otherwise.
    fn steps_as_selects(&mut self, c: &Expr, branch: &[Stmt], when: bool) -> bool {
        let ok = !branch.is_empty()
            && branch.iter().all(|s| match s {
                Stmt::Assign(place, e) => {
                    self.in_register(*place)
                        && (self.cheap_value(e) || self.masked_step(*place, e).is_some())
                }
                _ => false,
            });
        if !ok {
            return false;
        }
        let cond = self.expr(c).int();
        for s in branch {
            let Stmt::Assign(place, e) = s else {
                unreachable!("checked above")
            };
            let repr = Repr::of(&e.ty).unwrap_or(Repr::I64);
            if self.cheap_value(e) {
                let new = self.expr(e).int();
                let old = self.read_var(*place, repr).int();
                let (a, b) = if when { (new, old) } else { (old, new) };
                self.select_into(*place, cond, a, b, &e.ty);
                continue;
            }
            let (op, ity, other, identity) = self.masked_step(*place, e).expect("checked above");
            let v = self.read_var(*place, Repr::I64).int();
            let k = self.expr(other).int();
            let identity = self.iconst(identity);
            let k = match when {
                true => self.b.ins().select(cond, k, identity),
                false => self.b.ins().select(cond, identity, k),
            };
            let r = self.int_arith(op, ity, v, k, e.span);
            self.write_var(*place, V::I(r));
        }
        true
    }

    /// Assign `place` (a variable in a register, of type `ty`) `a` when `cond` holds, else `b`.
    fn select_into(&mut self, place: Place, cond: ClValue, a: ClValue, b: ClValue, ty: &Type) {
        let chosen = self.b.ins().select(cond, a, b);
        let v = match Repr::of(ty) {
            Some(Repr::F64) => V::F(chosen),
            _ => V::I(chosen),
        };
        self.write_var(place, v);
    }

    /// Is `place` a scalar variable held in a register (a local, or a promoted global known
    /// to hold a value)?
    fn in_register(&self, place: Place) -> bool {
        match place {
            Place::Local(s) => self
                .vars
                .get(&s)
                .is_some_and(|(_, repr)| matches!(repr, Repr::I64 | Repr::F64)),
            Place::Global(g) => self.promoted_plain(g),
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        }
    }

    /// Is `e` a cheap infallible value of a scalar type held as an integer or a double?
    fn cheap_value(&self, e: &Expr) -> bool {
        matches!(Repr::of(&e.ty), Some(Repr::I64 | Repr::F64)) && self.cheap_infallible(e)
    }

    /// `e` as a checked step of the integer variable `place` by a cheap infallible value
    /// (`v + k`, `v - k`, `k + v`, `v * k`, `k * v`): the operation, its type, `k` and the
    /// operation's identity.
    fn masked_step<'e>(
        &self,
        place: Place,
        e: &'e Expr,
    ) -> Option<(ArithOp, IntTy, &'e Expr, i64)> {
        let ExprKind::Prim(Prim::IntArith(op, ity), a) = &e.kind else {
            return None;
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
            _ => return None,
        };
        (Repr::of(&e.ty) == Some(Repr::I64) && self.cheap_infallible(other))
            .then_some((*op, *ity, other, identity))
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
