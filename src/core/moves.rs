//! Moves into reassignments. In `x = Cons (i, x)` the old value of `x` is read once and then
//! replaced, so the read can take it (`x = Cons (i, take x)`): the new value holds the only
//! reference to the old one, and building a list, a tree or a queue in a loop copies and
//! later releases no reference count.
//!
//! The read must be the assignment's only read of `x` (in each branch of a conditional or
//! `match` giving the result), where the value it gives becomes part of the result: a
//! component of a tuple or array, the argument of a variant's case, or the result of a
//! conditional or `match` arm, however nested. `x` must be a plain local
//! (not a captured or addressed variable's cell), so nothing evaluated after the read can see
//! it; when that later evaluation fails, the function is left and `x` with it. Other reads
//! (an operand of an operator, such as `s = s + t`, which appends in place; an argument of a
//! call) are left as they are.
//!
//! The value a `match` arm gives is moved too when it is a variable the arm's pattern binds
//! (`| _ ! t => t`, the tail of a list): the binding's scope ends with the arm, so that read
//! is its last, and the value bound is not copied a second time.
//!
//! Architecture invariant: a pure rewrite of one function's (or a unit's) statements, before
//! the tail-call pass.

use crate::core::ir::{Expr, ExprKind, Place, Slot, Stmt};
use crate::core::visit::{walk_stmt, walk_stmt_mut, Visit, VisitMut};

/// Make the one read of the old value in each reassignment of a local a move, where that
/// read becomes part of the new value.
pub fn move_into_reassignments(stmts: &mut [Stmt]) {
    for s in stmts {
        Moves.visit_stmt_mut(s);
    }
}

/// `move_into_reassignments` on the body of `f`, copied first only when shared and changed.
pub fn move_into_reassignments_of(f: &mut std::sync::Arc<crate::core::ir::Function>) {
    let mut found = Found(false);
    for s in &f.body {
        found.visit_stmt(s);
    }
    if found.0 {
        move_into_reassignments(&mut std::sync::Arc::make_mut(f).body);
    }
}

/// The read of `x` that `e` moves when it is assigned to `x`, if any.
fn movable(e: &Expr, x: Slot) -> bool {
    !matches!(e.kind, ExprKind::Local(_)) && reads(e, x) == 1 && read_in_result(e, x)
}

/// The variables the pattern of `arm` binds whose one read in its value is that value (or
/// part of it): moved there.
fn arm_moves(arm: &crate::core::ir::Arm<Expr>) -> Vec<Slot> {
    let mut bound: Vec<Slot> = (arm.patterns.iter())
        .flat_map(|p| p.bindings())
        .filter_map(|(place, _)| match place {
            Place::Local(s) => Some(s),
            _ => None,
        })
        .collect();
    bound.sort_unstable();
    bound.dedup();
    bound.retain(|&s| all_reads(&arm.body, s) == 1 && read_in_result(&arm.body, s));
    bound
}

struct Moves;

impl VisitMut for Moves {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let Stmt::Assign(Place::Local(x), e) = s {
            if movable(e, *x) {
                take_in_result(e, *x);
            }
        }
        walk_stmt_mut(self, s);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let ExprKind::Match(_, arms) = &mut e.kind {
            for arm in arms {
                for s in arm_moves(arm) {
                    take_in_result(&mut arm.body, s);
                }
            }
        }
        crate::core::visit::walk_expr_mut(self, e);
    }
}

/// Has a reassignment, or a `match` arm, a read to move?
struct Found(bool);

impl<'ir> Visit<'ir> for Found {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        if let Stmt::Assign(Place::Local(x), e) = s {
            self.0 |= movable(e, *x);
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'ir Expr) {
        if let ExprKind::Match(_, arms) = &e.kind {
            self.0 |= arms.iter().any(|arm| !arm_moves(arm).is_empty());
        }
        crate::core::visit::walk_expr(self, e);
    }
}

/// The most times one evaluation of `e` reads the local `x`: the reads of the branches of a
/// conditional or `match` the result comes from count once, the largest; anywhere else every
/// read counts.
fn reads(e: &Expr, x: Slot) -> usize {
    match &e.kind {
        ExprKind::Tuple(parts) | ExprKind::Array(parts) => parts.iter().map(|p| reads(p, x)).sum(),
        ExprKind::Inject { arg, .. } => reads(arg, x),
        ExprKind::If(c, t, f) => all_reads(c, x) + reads(t, x).max(reads(f, x)),
        ExprKind::Match(scrutinee, arms) => {
            let arm = |arm: &crate::core::ir::Arm<Expr>| {
                arm.guard.as_ref().map_or(0, |g| all_reads(g, x)) + reads(&arm.body, x)
            };
            all_reads(scrutinee, x) + arms.iter().map(arm).max().unwrap_or(0)
        }
        _ => all_reads(e, x),
    }
}

/// How many times `e` mentions the local `x` (anywhere, at any depth).
fn all_reads(e: &Expr, x: Slot) -> usize {
    let mut n = 0;
    crate::core::visit::each_in_expr(
        e,
        &mut |e| {
            if matches!(e.kind, ExprKind::Local(s) | ExprKind::Take(s) if s == x) {
                n += 1;
            }
        },
        &mut |_| {},
    );
    n
}

/// Does `e` read `x` where the value read becomes part of the value of `e`?
fn read_in_result(e: &Expr, x: Slot) -> bool {
    match &e.kind {
        ExprKind::Local(s) => *s == x,
        ExprKind::Tuple(parts) | ExprKind::Array(parts) => {
            parts.iter().any(|p| read_in_result(p, x))
        }
        ExprKind::Inject { arg, .. } => read_in_result(arg, x),
        ExprKind::If(_, t, f) => read_in_result(t, x) || read_in_result(f, x),
        ExprKind::Match(_, arms) => arms.iter().any(|arm| read_in_result(&arm.body, x)),
        _ => false,
    }
}

/// Replace a read of `x` that becomes part of the value of `e` by a move.
fn take_in_result(e: &mut Expr, x: Slot) {
    match &mut e.kind {
        ExprKind::Local(s) if *s == x => e.kind = ExprKind::Take(x),
        ExprKind::Tuple(parts) | ExprKind::Array(parts) => {
            for part in parts {
                take_in_result(part, x);
            }
        }
        ExprKind::Inject { arg, .. } => take_in_result(arg, x),
        ExprKind::If(_, t, f) => {
            take_in_result(t, x);
            take_in_result(f, x);
        }
        ExprKind::Match(_, arms) => {
            for arm in arms {
                take_in_result(&mut arm.body, x);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::core::tests::checked_ir;

    #[test]
    fn a_list_built_in_a_loop_moves_its_tail() {
        let ir = checked_ir(
            "variant L = | E | C of int * L;\n\
             fun build (n: int) : L = { var l = E; for i in 0 ..< n do l = C (i, l); done return l; }",
        );
        assert!(ir.contains("l1 = inj1((l2, take l1))"), "{ir}");
    }

    #[test]
    fn each_branch_giving_the_result_moves_its_read() {
        let ir = checked_ir(
            "variant T = | L | N of T * int;\n\
             fun f (n: int) : T = { var t = L; for i in 0 ..< n do t = if i > 2 then N (t, i) else N (t, 0) endif; done return t; }",
        );
        assert_eq!(ir.matches("take l1").count(), 2, "{ir}");
    }

    #[test]
    fn other_reads_are_left_as_they_are() {
        let ir = checked_ir(
            "fun f (n: int) : string = { var s = \"\"; for i in 0 ..< n do s = s + \"x\"; done return s; }\n\
             fun g (n: int) : int * int = { var p = (0, 0); for i in 0 ..< n do p = (p.0 + i, p.1); done return p; }\n\
             variant T = | L | N of T * T;\n\
             fun h (n: int) : T = { var t = L; for i in 0 ..< n do t = N (t, t); done return t; }",
        );
        assert!(!ir.contains("take"), "{ir}");
    }

    #[test]
    fn an_arm_giving_its_own_binding_moves_it() {
        let ir = checked_ir(
            "variant L = | E | C of int * L;\n\
             fun rest (l: L) : L => match l with | C (_, t) => t | E => l endmatch;\n\
             fun both (l: L) : L * L => match l with | C (_, t) => t, t | E => l, l endmatch;\n\
             fun first (l: L) : int => match l with | C (h, t) => h + first t | E => 0 endmatch;",
        );
        assert_eq!(ir.matches("take").count(), 1, "{ir}");
        assert!(ir.contains("=> take l"), "{ir}");
    }
}
