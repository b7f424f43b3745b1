//! What is compiled to native code and what stays on the closure compiler, which prepares
//! code in a small part of the time Cranelift takes: a top level is cut into pieces, its
//! statements without a loop (which run once) on closures and the others native
//! (`top_level_pieces`); a cheap function only such statements call stays on closures until
//! native code calls it (`defer_instance`, `take_deferred`).

use std::ops::Range;
use std::sync::Arc;

use crate::core::ir::{Expr, Function, Stmt};
use crate::types::Type;

use super::super::closure::Instance;
use super::{lock, Report, SharedBackend};

/// A native piece of top-level code holds statements of at most about this many expressions
/// (a single larger statement is a piece of its own). Compiling a function costs Cranelift
/// more than linear time in its size (register allocation), so a long top level (a generated
/// script of thousands of statements) is compiled as a sequence of functions of bounded size,
/// each starting from the frame where the previous one left it.
const TOP_LEVEL_PIECE_EXPRS: usize = 500;

/// `stmts` cut into consecutive pieces, each with whether it is compiled to native code.
///
/// With `run_once_on_closures`, a run of statements without a loop (a `while`, a `for`, an
/// inlined `map`) is a piece that runs on closures: each of its statements runs once, and
/// Cranelift takes tens of microseconds per expression to compile what the closure compiler
/// prepares in about one (the functions it calls are native code either way). The others are
/// native pieces of at most `TOP_LEVEL_PIECE_EXPRS` expressions (or one statement).
pub(super) fn top_level_pieces(
    stmts: &[Stmt],
    run_once_on_closures: bool,
) -> Vec<(Range<usize>, bool)> {
    let mut pieces: Vec<(Range<usize>, bool)> = Vec::new();
    let mut size = 0;
    for (i, stmt) in stmts.iter().enumerate() {
        let (n, looped) = size_and_loop(stmt);
        let native = looped || !run_once_on_closures;
        match pieces.last_mut() {
            Some((range, was_native))
                if *was_native == native && !(native && size + n > TOP_LEVEL_PIECE_EXPRS) =>
            {
                range.end = i + 1;
                size += n;
            }
            _ => {
                pieces.push((i..i + 1, native));
                size = n;
            }
        }
    }
    pieces
}

/// The number of expressions in `stmts` (and one for each statement).
pub(super) fn size(stmts: &[Stmt]) -> usize {
    stmts.iter().map(|s| size_and_loop(s).0).sum()
}

/// The number of expressions in `stmt` (and one for the statement), and whether it has a loop
/// (a `while`, a `for`, an inlined `map`).
pub(super) fn size_and_loop(stmt: &Stmt) -> (usize, bool) {
    use crate::core::ir::ExprKind;
    use crate::core::visit::{walk_expr, walk_stmt, Visit};
    struct Count {
        exprs: usize,
        looped: bool,
    }
    impl<'ir> Visit<'ir> for Count {
        fn visit_expr(&mut self, e: &'ir Expr) {
            self.exprs += 1;
            self.looped |= matches!(e.kind, ExprKind::MapLoop { .. });
            walk_expr(self, e);
        }
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            self.looped |= matches!(
                s,
                Stmt::While { .. }
                    | Stmt::Loop { .. }
                    | Stmt::ForRange { .. }
                    | Stmt::ForCodes { .. }
                    | Stmt::ForArray { .. }
            );
            walk_stmt(self, s);
        }
    }
    let mut count = Count {
        exprs: 1,
        looped: false,
    };
    count.visit_stmt(stmt);
    (count.exprs, count.looped)
}

/// Leave `instance` (of `function`), called directly from top-level statements that run
/// once, on closures when one call of it is cheap (`call_cost`): each call site runs once,
/// in less time on closures than compiling it would take. `false` when it must be compiled
/// (which the caller does). Native code that calls it later compiles it (`take_deferred`).
pub fn defer_instance(
    backend: &SharedBackend,
    functions: &[Option<Arc<Function>>],
    instance: &Arc<Instance>,
    function: &Arc<Function>,
) -> bool {
    let mut b = lock(backend);
    if b.compile_run_once {
        return false;
    }
    let Some(cost) = call_cost(functions, &function.body, &mut Vec::new()) else {
        return false;
    };
    b.deferred
        .insert(Arc::as_ptr(instance) as usize, function.clone());
    b.reports.push(Report {
        name: function.name.clone(),
        native: false,
        notes: vec![format!(
            "called only from statements that run once, each call evaluating at most {cost} \
             expressions: on closures until native code calls it"
        )],
    });
    true
}

/// The function of `instance` when it was left on closures (`defer_instance`), which is to be
/// compiled now; `None` when it was not.
pub fn take_deferred(backend: &SharedBackend, instance: &Arc<Instance>) -> Option<Arc<Function>> {
    lock(backend)
        .deferred
        .remove(&(Arc::as_ptr(instance) as usize))
}

/// One call evaluating more expressions than this is compiled to native code even when it is
/// made once (`defer_instance`).
const CHEAP_CALL_EXPRS: usize = 2_000;

/// An upper bound on the expressions one run of `body` evaluates, following the calls it makes
/// of known functions, when it is at most `CHEAP_CALL_EXPRS`; `None` when it is more or not
/// known: a `while`, a loop over bounds or an array whose size is not known before it runs, a
/// call through a function value or of a function being followed (recursion), a function
/// value made (a library kernel may call it any number of times).
fn call_cost(
    functions: &[Option<Arc<Function>>],
    body: &[Stmt],
    following: &mut Vec<crate::core::ir::FunId>,
) -> Option<usize> {
    use crate::core::ir::{ExprKind, Place, RangeKind};
    use crate::core::ranges::{range_in, Interval};
    use crate::core::visit::{walk_expr, walk_stmt, Visit};
    struct Cost<'f> {
        functions: &'f [Option<Arc<Function>>],
        following: &'f mut Vec<crate::core::ir::FunId>,
        /// The values of the variables of the counting loops around.
        vars: Vec<(Place, Interval)>,
        total: usize,
        times: usize,
        known: bool,
    }
    fn count(ty: &Type) -> Option<usize> {
        crate::types::size::size_of(ty).and_then(|n| usize::try_from(n).ok())
    }
    fn elements(ty: &Type) -> Option<usize> {
        match ty {
            Type::Array(_, index) => count(index),
            _ => None,
        }
    }
    impl Cost<'_> {
        fn repeated(&mut self, n: Option<usize>, walk: impl FnOnce(&mut Self)) {
            let Some(n) = n else {
                self.known = false;
                return;
            };
            let outer = self.times;
            self.times = self.times.saturating_mul(n.max(1));
            walk(self);
            self.times = outer;
        }
        fn add(&mut self, n: usize) {
            self.total = self.total.saturating_add(self.times.saturating_mul(n));
            if self.total > CHEAP_CALL_EXPRS {
                self.known = false;
            }
        }
    }
    impl<'ir> Visit<'ir> for Cost<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if !self.known {
                return;
            }
            match s {
                Stmt::While { .. } | Stmt::Loop { .. } => self.known = false,
                Stmt::ForRange {
                    var,
                    from,
                    to,
                    kind,
                    ..
                } => {
                    // The bounds' intervals, from the enclosing loops' variables.
                    let vars = &self.vars;
                    let known = |place: Place, _| {
                        vars.iter()
                            .rev()
                            .find(|(p, _)| *p == place)
                            .map(|(_, i)| *i)
                    };
                    let bounds = range_in(from, &known).zip(range_in(to, &known));
                    let Some(((a, b), (c, d))) = bounds else {
                        self.known = false;
                        return;
                    };
                    let (trips, values) = match kind {
                        RangeKind::Exclusive => (d - a, (a, d - 1)),
                        RangeKind::Inclusive => (d - a + 1, (a, d)),
                        RangeKind::Downto => (b - c + 1, (c, b)),
                    };
                    let trips = usize::try_from(trips.max(0)).unwrap_or(usize::MAX);
                    self.vars.push((*var, values));
                    self.repeated(Some(trips), |c| walk_stmt(c, s));
                    self.vars.pop();
                }
                Stmt::ForCodes { ty, .. } => self.repeated(count(ty), |c| walk_stmt(c, s)),
                Stmt::ForArray { array, .. } => {
                    self.repeated(elements(&array.ty), |c| walk_stmt(c, s))
                }
                _ => walk_stmt(self, s),
            }
        }
        fn visit_expr(&mut self, e: &'ir Expr) {
            if !self.known {
                return;
            }
            self.add(1);
            match &e.kind {
                ExprKind::MapLoop { array, .. } => {
                    self.repeated(elements(&array.ty), |c| walk_expr(c, e))
                }
                ExprKind::Call { func, args } => {
                    let fun = match func.kind {
                        ExprKind::MakeFun { fun, .. } | ExprKind::Closure { fun, .. } => fun,
                        _ => {
                            self.known = false;
                            return;
                        }
                    };
                    let callee = self.functions.get(fun as usize).and_then(|f| f.as_ref());
                    let cost = match callee {
                        Some(callee) if !self.following.contains(&fun) => {
                            self.following.push(fun);
                            let cost = call_cost(self.functions, &callee.body, self.following);
                            self.following.pop();
                            cost
                        }
                        _ => None,
                    };
                    match cost {
                        Some(cost) => self.add(cost),
                        None => self.known = false,
                    }
                    for arg in args {
                        self.visit_expr(arg);
                    }
                }
                ExprKind::MakeFun { .. } | ExprKind::Closure { .. } => self.known = false,
                _ => walk_expr(self, e),
            }
        }
    }
    let mut cost = Cost {
        functions,
        following,
        vars: Vec::new(),
        total: 0,
        times: 1,
        known: true,
    };
    for stmt in body {
        cost.visit_stmt(stmt);
    }
    cost.known.then_some(cost.total)
}
