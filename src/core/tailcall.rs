//! Self tail calls become loops, as in Felix: a function whose result, on some path, is a call
//! of itself with all its parameters (`return f (n - 1, acc + n)`, or such a call in a branch
//! of the `if` or `match` a function returns) runs that path as new values for its parameters
//! and a jump back to its start. Accumulator recursion then runs in constant stack, on native
//! code and closures alike, and the call-depth limit (R0008) counts only calls that nest. A
//! procedure's call of itself that is the last thing it does is such a jump too.
//!
//! Architecture invariant: a pure rewrite of one function's IR; a function it cannot rewrite
//! (a parameter captured by reference, code over run-time sizes) is left as it is.

use crate::core::ir::{
    Arm, Expr, ExprKind, FunId, Function, Pattern, PatternKind, Place, Slot, Stmt,
};
use crate::core::visit::{infallible, walk_expr, walk_stmt, walk_stmt_fold, Fold, Visit};
use crate::types::ty::Type;
use std::convert::Infallible;

/// `f` (function `id`) with its self tail calls made jumps to its start, or `None` when it has
/// none it can rewrite.
pub fn loop_self_tail_calls(id: FunId, f: &Function) -> Option<Function> {
    if f.params.is_empty() || !f.params.iter().all(|p| rebindable(p, f)) || !names(id, &f.body) {
        return None;
    }
    let own_args: Vec<Type> = f.type_params.iter().cloned().map(Type::Var).collect();
    let mut rewrite = Rewrite {
        id,
        own_args,
        groups: f.params.len(),
        label: next_label(&f.body),
        temps: f.n_slots,
        params: &f.params,
        found: false,
    };
    let mut body = infallible(rewrite.fold_stmts(&f.body));
    if f.ret.is_unit() || f.ret.is_void() {
        rewrite.last_calls(&mut body, true);
    }
    if !rewrite.found {
        return None;
    }
    let label = rewrite.label;
    body.push(Stmt::Break(label));
    Some(Function {
        body: vec![Stmt::Loop { label, body }],
        n_slots: f.n_slots + f.params.iter().map(pattern_leaves).sum::<u32>(),
        ..f.clone()
    })
}

/// The number of parts a parameter pattern has when its tuples are taken apart: the most
/// temporaries one jump needs (`Rewrite::tail`).
fn pattern_leaves(p: &Pattern) -> u32 {
    match &p.kind {
        PatternKind::Tuple(parts) => parts.iter().map(pattern_leaves).sum(),
        _ => 1,
    }
}

/// The parameter pattern `p` and the argument `arg` it gets, taken apart where both are
/// tuples (`(p, lo, hi)` given `(p, i, hi)`; a tuple of one type, `(a, b)` of `long ^ 2`, is
/// an array literal), so a jump builds no tuple: each part is assigned on its own, and a part
/// that is the parameter itself (`p`, `hi`) not at all.
fn match_parts<'p>(p: &'p Pattern, arg: Expr, out: &mut Vec<(&'p Pattern, Expr)>) {
    match (&p.kind, arg.kind) {
        (PatternKind::Tuple(parts), ExprKind::Tuple(args) | ExprKind::Array(args))
            if parts.len() == args.len() =>
        {
            for (q, a) in parts.iter().zip(args) {
                match_parts(q, a, out);
            }
        }
        (_, kind) => out.push((
            p,
            Expr {
                kind,
                ty: arg.ty,
                span: arg.span,
            },
        )),
    }
}

/// The local slots `e` reads.
fn reads(e: &Expr) -> Vec<Slot> {
    let mut slots = Vec::new();
    crate::core::visit::each_in_expr(
        e,
        &mut |x| {
            if let ExprKind::Local(s) | ExprKind::Take(s) = x.kind {
                slots.push(s)
            }
        },
        &mut |_| {},
    );
    slots
}

/// Does a value of `ty` live in storage of its own (a string, a variant, a tuple, an array, a
/// function), so that moving it saves a copy, rather than being a number or a code?
fn held_by_reference(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Int(_) | Type::Float | Type::Double | Type::Char | Type::Unitsum(_)
    ) && !crate::types::kind::is_compact(ty)
}

/// Whether `body` names function `id` at all: most functions do not, and are not rebuilt.
fn names(id: FunId, body: &[Stmt]) -> bool {
    struct Finds(FunId, bool);
    impl<'ir> Visit<'ir> for Finds {
        fn visit_expr(&mut self, e: &'ir Expr) {
            match &e.kind {
                ExprKind::MakeFun { fun, .. } | ExprKind::Closure { fun, .. } if *fun == self.0 => {
                    self.1 = true
                }
                _ if !self.1 => walk_expr(self, e),
                _ => {}
            }
        }
    }
    let mut finds = Finds(id, false);
    for s in body {
        finds.visit_stmt(s);
    }
    finds.1
}

/// A parameter pattern whose variables can be assigned again: plain slots, not cells a closure
/// may hold on to.
fn rebindable(p: &Pattern, f: &Function) -> bool {
    match &p.kind {
        PatternKind::Wildcard => true,
        PatternKind::Bind(Place::Local(slot)) => !f.cell_slots.contains(slot),
        PatternKind::Tuple(parts) => parts.iter().all(|q| rebindable(q, f)),
        _ => false,
    }
}

/// One more than the highest loop label the body uses.
fn next_label(body: &[Stmt]) -> u32 {
    struct Labels(u32);
    impl<'ir> Visit<'ir> for Labels {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            let label = match s {
                Stmt::Break(label) | Stmt::Continue(label) => Some(*label),
                _ => s.loop_label(),
            };
            if let Some(label) = label {
                self.0 = self.0.max(label + 1);
            }
            walk_stmt(self, s)
        }
    }
    let mut labels = Labels(0);
    for s in body {
        labels.visit_stmt(s);
    }
    labels.0
}

struct Rewrite<'f> {
    id: FunId,
    own_args: Vec<Type>,
    groups: usize,
    label: u32,
    /// The first of the slots the new parameter values are held in while they are computed.
    temps: u32,
    params: &'f [Pattern],
    found: bool,
}

impl Fold for Rewrite<'_> {
    type Error = Infallible;

    /// Before inlining, no statement of the function is inside an expression.
    fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Infallible> {
        Ok(e.clone())
    }

    fn fold_stmt(&mut self, s: &Stmt) -> Result<Stmt, Infallible> {
        match s {
            Stmt::Return(Some(e)) if self.has_tail_call(e) => {
                let mut out = Vec::new();
                self.tail(e.clone(), &mut out);
                Ok(Stmt::Block(out))
            }
            // Code over run-time sizes runs compiled apart: its returns stay calls.
            Stmt::Specialise { .. } => Ok(s.clone()),
            _ => walk_stmt_fold(self, s),
        }
    }
}

impl Rewrite<'_> {
    /// A procedure's calls of itself that are the last thing it does: one followed by
    /// `return;`, anywhere, or the last statement of its body (`at_end`) or of a branch of an
    /// `if` or `match` that is.
    fn last_calls(&mut self, stmts: &mut [Stmt], at_end: bool) {
        for i in 0..stmts.len() {
            let last = match stmts.get(i + 1) {
                None => at_end,
                Some(next) => matches!(next, Stmt::Return(None)),
            };
            match &mut stmts[i] {
                Stmt::Expr(call)
                    if last
                        && matches!(call.kind, ExprKind::Call { .. })
                        && self.has_tail_call(call) =>
                {
                    let mut out = Vec::new();
                    self.tail(call.clone(), &mut out);
                    stmts[i] = Stmt::Block(out);
                }
                Stmt::If(_, then_branch, else_branch) => {
                    self.last_calls(then_branch, last);
                    self.last_calls(else_branch, last);
                }
                Stmt::Match(_, arms) => {
                    for arm in arms {
                        self.last_calls(&mut arm.body, last);
                    }
                }
                Stmt::Block(body) => self.last_calls(body, last),
                Stmt::While { body, .. }
                | Stmt::Loop { body, .. }
                | Stmt::ForRange { body, .. }
                | Stmt::ForCodes { body, .. }
                | Stmt::ForArray { body, .. } => self.last_calls(body, false),
                _ => {}
            }
        }
    }

    /// `return e`: the branches of an `if` or `match` returned one by one when a self tail
    /// call is among them, and a self tail call made a jump.
    fn tail(&mut self, e: Expr, out: &mut Vec<Stmt>) {
        if !self.has_tail_call(&e) {
            out.push(Stmt::Return(Some(e)));
            return;
        }
        match e.kind {
            ExprKind::If(c, t, f) => {
                let mut then_branch = Vec::new();
                self.tail(*t, &mut then_branch);
                let mut else_branch = Vec::new();
                self.tail(*f, &mut else_branch);
                out.push(Stmt::If(*c, then_branch, else_branch));
            }
            ExprKind::Match(scrutinee, arms) => {
                let arms = arms
                    .into_iter()
                    .map(|arm| {
                        let mut body = Vec::new();
                        self.tail(arm.body, &mut body);
                        Arm {
                            patterns: arm.patterns,
                            guard: arm.guard,
                            body,
                        }
                    })
                    .collect();
                out.push(Stmt::Match(*scrutinee, arms));
            }
            ExprKind::Call { args, .. } => {
                self.found = true;
                let mut parts = Vec::new();
                for (p, arg) in self.params.iter().zip(args) {
                    match_parts(p, arg, &mut parts);
                }
                // A parameter given its own value keeps it.
                let kept = |(p, arg): &(&Pattern, Expr)| {
                    matches!((&p.kind, &arg.kind),
                        (PatternKind::Bind(Place::Local(s)), ExprKind::Local(t)) if s == t)
                };
                let kept_params: Vec<Slot> = parts
                    .iter()
                    .filter(|part| kept(part))
                    .flat_map(|(_, arg)| reads(arg))
                    .collect();
                parts.retain(|part| !kept(part));
                // Every argument is computed before any parameter changes. An argument that is
                // a variable no later argument reads (and no parameter that keeps its value)
                // is moved (`take`): after the jump, the body binds it again before reading
                // it. So is each computed value, into its parameter.
                let mut params = Vec::new();
                let later_reads: Vec<Vec<Slot>> = (0..parts.len())
                    .map(|k| {
                        parts[k + 1..]
                            .iter()
                            .flat_map(|(_, a)| reads(a))
                            .chain(kept_params.iter().copied())
                            .collect()
                    })
                    .collect();
                for (k, (p, arg)) in parts.into_iter().enumerate() {
                    let arg = match arg.kind {
                        ExprKind::Local(s)
                            if held_by_reference(&arg.ty) && !later_reads[k].contains(&s) =>
                        {
                            Expr {
                                kind: ExprKind::Take(s),
                                ..arg
                            }
                        }
                        _ => arg,
                    };
                    out.push(Stmt::Assign(Place::Local(self.temps + k as u32), arg));
                    params.push(p);
                }
                for (k, p) in params.into_iter().enumerate() {
                    let temp = self.temps + k as u32;
                    let value = Expr {
                        kind: if held_by_reference(&p.ty) {
                            ExprKind::Take(temp)
                        } else {
                            ExprKind::Local(temp)
                        },
                        ty: p.ty.clone(),
                        span: p.span,
                    };
                    match &p.kind {
                        PatternKind::Wildcard => {}
                        PatternKind::Bind(place) => out.push(Stmt::Assign(*place, value)),
                        _ => out.push(Stmt::Match(
                            value,
                            vec![Arm {
                                patterns: vec![p.clone()],
                                guard: None,
                                body: Vec::new(),
                            }],
                        )),
                    }
                }
                out.push(Stmt::Continue(self.label));
            }
            _ => unreachable!("has_tail_call found a tail call"),
        }
    }

    /// Whether `e`, returned, ends in a call of this function with all its parameters on some
    /// path.
    fn has_tail_call(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::If(_, t, f) => self.has_tail_call(t) || self.has_tail_call(f),
            ExprKind::Match(_, arms) => arms.iter().any(|arm| self.has_tail_call(&arm.body)),
            ExprKind::Call { func, args } => {
                args.len() == self.groups
                    && crate::core::selfcall::is_self(func, self.id, &self.own_args)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::core::tests::checked_ir as checked;

    #[test]
    fn a_jump_assigns_the_parts_of_a_tuple_argument_and_keeps_a_parameter_given_itself() {
        let ir = checked(
            "proc walk (p: &(int ^ 4), lo: int, hi: int) {\n\
               if lo < hi do p.lo <- hi; walk (p, lo + 1, hi); done\n\
             }\n",
        );
        // No tuple is built and matched: only `lo` changes, through its temporary.
        assert!(!ir.contains("match"), "{ir}");
        assert!(ir.contains("l3 = IntArith(Add, Int)(l1, 1)"), "{ir}");
        assert!(ir.contains("l1 = l3"), "{ir}");
        assert!(!ir.contains("l0 = "), "{ir}");
        assert!(!ir.contains("l2 = "), "{ir}");
    }

    #[test]
    fn a_jump_assigns_the_parts_of_parameters_of_one_type() {
        // `(a: long, b: long)` is one parameter of type `long ^ 2`, its argument an array
        // literal: taken apart as a tuple's.
        let ir = checked(
            "fun gcd (a: long, b: long) : long => if b == 0L then a else gcd (b, a % b);
",
        );
        assert!(!ir.contains("match"), "{ir}");
        assert!(ir.contains("l0 = l2") && ir.contains("l1 = l3"), "{ir}");
    }
}
