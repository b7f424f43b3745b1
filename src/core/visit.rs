//! One walker for the typed IR, in three forms: `Visit` reads a tree, `VisitMut` edits it in
//! place, `Fold` rebuilds it (possibly failing, to give up on a rewrite).
//!
//! Each form is a trait with one method per kind of node (expression, statement, pattern,
//! type, place, and for `Fold` statement list and label); every method's default recurses
//! through the node's children with the matching `walk_*` function, the only place where the
//! shape of the IR is spelt out. A pass implements the trait, overrides the nodes it cares
//! about, and calls the `walk_*` function from its override where it wants the default
//! recursion (or does not, to stop descending).
//!
//! The default recursion of `Visit` and `VisitMut` is one definition (`walkers!`) instantiated
//! for shared and for mutable references; `Fold`'s rebuilds each node from its folded parts.
//!
//! The order of the default recursion is the evaluation order: an expression's type and then
//! its operands left to right; a statement's assigned or bound place, then its expressions,
//! then its nested statements; a match's scrutinee, then per arm its patterns, guard and
//! body. `visit_place` sees the places a statement assigns or a pattern (or a `MapLoop`)
//! binds, not the variable a pointer is taken of (`AddrOf::place`), which is not written.

use std::convert::Infallible;
use std::sync::Arc;

use crate::core::ir::{
    Arm, Expr, ExprKind, Inlined, LabelId, PathStep, Pattern, PatternKind, Place, Stmt,
};
use crate::types::ty::Type;

/// A read-only traversal; `'ir` lets a visitor keep references into the tree.
pub trait Visit<'ir> {
    fn visit_expr(&mut self, e: &'ir Expr) {
        walk_expr(self, e)
    }
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        walk_stmt(self, s)
    }
    fn visit_pattern(&mut self, p: &'ir Pattern) {
        walk_pattern(self, p)
    }
    /// A place assigned by a statement or bound by a pattern, a loop or a `MapLoop`.
    fn visit_place(&mut self, _place: Place) {}
    /// A type written in the tree (an expression's or pattern's, a type argument, ...).
    fn visit_type(&mut self, _ty: &'ir Type) {}
}

/// The default recursion of `Visit` and of `VisitMut`, written once: `walkers!` makes
/// `walk_stmts`, `walk_expr`, `walk_stmt` and `walk_pattern` (and their helpers) for shared
/// references, or the `_mut` ones for mutable references, from the same arms. `borrow` is how
/// a field is borrowed, `place` how a place is passed to the place method, `map_var` what a
/// `MapLoop` does with its variable's slot.
macro_rules! walkers {
    (
        generics: [$($gen:tt)*],
        arm_generics: [$($arm_gen:tt)*],
        reference: [$($r:tt)*],
        borrow: [$($b:tt)*],
        walk: [$walk_stmts:ident, $walk_path:ident, $walk_arm:ident, $walk_expr:ident,
               $walk_stmt:ident, $walk_pattern:ident],
        visit: [$visit_expr:ident, $visit_stmt:ident, $visit_pattern:ident, $visit_place:ident,
                $visit_type:ident],
        place: |$p:ident| $place:expr,
        map_var: |$mv:ident, $var:ident| $map_var:block $(,)?
    ) => {
        /// Visit each statement of a list.
        pub fn $walk_stmts $($gen)* (v: &mut V, stmts: $($r)* [Stmt]) {
            for s in stmts {
                v.$visit_stmt(s);
            }
        }

        fn $walk_path $($gen)* (v: &mut V, path: $($r)* [PathStep]) {
            for step in path {
                if let PathStep::Index(e, _) = step {
                    v.$visit_expr(e);
                }
            }
        }

        fn $walk_arm $($arm_gen)* (
            v: &mut V,
            arm: $($r)* Arm<B>,
            body: impl FnOnce(&mut V, $($r)* B),
        ) {
            for p in $($b)* arm.patterns {
                v.$visit_pattern(p);
            }
            if let Some(g) = $($b)* arm.guard {
                v.$visit_expr(g);
            }
            body(v, $($b)* arm.body);
        }

        /// The children of `e`: its type, then its operands.
        pub fn $walk_expr $($gen)* (v: &mut V, e: $($r)* Expr) {
            v.$visit_type($($b)* e.ty);
            match $($b)* e.kind {
                ExprKind::Const(_)
                | ExprKind::Zero
                | ExprKind::Local(_)
                | ExprKind::Take(_)
                | ExprKind::LocalCell(_)
                | ExprKind::Global(_)
                | ExprKind::Capture(_)
                | ExprKind::CaptureCell(_) => {}
                ExprKind::MakeFun { type_args, .. } | ExprKind::Closure { type_args, .. } => {
                    for t in type_args {
                        v.$visit_type(t);
                    }
                }
                ExprKind::TypeSize(t) => v.$visit_type(t),
                ExprKind::Call { func, args } => {
                    v.$visit_expr(func);
                    for a in args {
                        v.$visit_expr(a);
                    }
                }
                ExprKind::Prim(_, args)
                | ExprKind::Tuple(args)
                | ExprKind::Array(args)
                | ExprKind::CTuple(args) => {
                    for a in args {
                        v.$visit_expr(a);
                    }
                }
                ExprKind::Field(x, _)
                | ExprKind::CField(x, _)
                | ExprKind::Coerce(_, x)
                | ExprKind::Deref(x)
                | ExprKind::PtrCast(x)
                | ExprKind::Inject { arg: x, .. }
                | ExprKind::CInject { arg: x, .. } => v.$visit_expr(x),
                ExprKind::Index { array, index, .. } => {
                    v.$visit_expr(array);
                    v.$visit_expr(index);
                }
                ExprKind::If(a, b, c) => {
                    v.$visit_expr(a);
                    v.$visit_expr(b);
                    v.$visit_expr(c);
                }
                ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                    v.$visit_expr(a);
                    v.$visit_expr(b);
                }
                ExprKind::Match(x, arms) => {
                    v.$visit_expr(x);
                    for arm in arms {
                        $walk_arm(v, arm, |v, body| v.$visit_expr(body));
                    }
                }
                ExprKind::AddrOf { root_ty, path, .. } => {
                    v.$visit_type(root_ty);
                    $walk_path(v, path);
                }
                ExprKind::PtrProject { pointer, path } => {
                    v.$visit_expr(pointer);
                    $walk_path(v, path);
                }
                ExprKind::Inlined(inlined) => {
                    $walk_stmts(v, $($b)* inlined.stmts);
                    if let Some(r) = $($b)* inlined.result {
                        v.$visit_expr(r);
                    }
                }
                ExprKind::MapLoop {
                    var, array, body, ..
                } => {
                    {
                        let ($mv, $var) = (&mut *v, var);
                        $map_var
                    }
                    v.$visit_expr(array);
                    v.$visit_expr(body);
                }
            }
        }

        /// The children of `s`: its place, its expressions, its nested statements.
        pub fn $walk_stmt $($gen)* (v: &mut V, s: $($r)* Stmt) {
            match s {
                Stmt::Expr(e) | Stmt::Return(Some(e)) => v.$visit_expr(e),
                Stmt::Assign(p, e) => {
                    v.$visit_place({ let $p = p; $place });
                    v.$visit_expr(e);
                }
                Stmt::Store {
                    place: p,
                    root_ty,
                    path,
                    value,
                } => {
                    v.$visit_place({ let $p = p; $place });
                    v.$visit_type(root_ty);
                    $walk_path(v, path);
                    v.$visit_expr(value);
                }
                Stmt::StoreAt { pointer, value } => {
                    v.$visit_expr(pointer);
                    v.$visit_expr(value);
                }
                Stmt::If(c, a, b) => {
                    v.$visit_expr(c);
                    $walk_stmts(v, a);
                    $walk_stmts(v, b);
                }
                Stmt::While { cond, body, .. } => {
                    v.$visit_expr(cond);
                    $walk_stmts(v, body);
                }
                Stmt::Loop { body, .. } | Stmt::Block(body) => $walk_stmts(v, body),
                Stmt::Specialise { sizes, body, .. } => {
                    for (_, e) in sizes {
                        v.$visit_expr(e);
                    }
                    $walk_stmts(v, body);
                }
                Stmt::ForRange {
                    var,
                    from,
                    to,
                    body,
                    ..
                } => {
                    v.$visit_place({ let $p = var; $place });
                    v.$visit_expr(from);
                    v.$visit_expr(to);
                    $walk_stmts(v, body);
                }
                Stmt::ForCodes { var, ty, body, .. } => {
                    v.$visit_place({ let $p = var; $place });
                    v.$visit_type(ty);
                    $walk_stmts(v, body);
                }
                Stmt::ForArray {
                    var, array, body, ..
                } => {
                    v.$visit_place({ let $p = var; $place });
                    v.$visit_expr(array);
                    $walk_stmts(v, body);
                }
                Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None) => {}
                Stmt::Match(x, arms) => {
                    v.$visit_expr(x);
                    for arm in arms {
                        $walk_arm(v, arm, |v, body| $walk_stmts(v, body));
                    }
                }
            }
        }

        /// The children of `p`: its type, the place it binds, its sub-patterns.
        pub fn $walk_pattern $($gen)* (v: &mut V, p: $($r)* Pattern) {
            v.$visit_type($($b)* p.ty);
            match $($b)* p.kind {
                PatternKind::Bind(p) => v.$visit_place({ let $p = p; $place }),
                PatternKind::As(q, p) => {
                    v.$visit_pattern(q);
                    v.$visit_place({ let $p = p; $place })
                }
                PatternKind::Tuple(ps) => {
                    for q in ps {
                        v.$visit_pattern(q);
                    }
                }
                PatternKind::Inject { arg: Some(a), .. }
                | PatternKind::CInject { arg: Some(a), .. } => v.$visit_pattern(a),
                PatternKind::Inject { arg: None, .. }
                | PatternKind::CInject { arg: None, .. }
                | PatternKind::Wildcard
                | PatternKind::Const(_)
                | PatternKind::Range(..) => {}
            }
        }
    };
}

walkers! {
    generics: [<'ir, V: Visit<'ir> + ?Sized>],
    arm_generics: [<'ir, V: Visit<'ir> + ?Sized, B>],
    reference: [&'ir],
    borrow: [&],
    walk: [walk_stmts, walk_path, walk_arm, walk_expr, walk_stmt, walk_pattern],
    visit: [visit_expr, visit_stmt, visit_pattern, visit_place, visit_type],
    place: |p| *p,
    map_var: |v, var| { v.visit_place(Place::Local(*var)) },
}

/// The simplest visitor: `expr` on every expression (pre-order), `place` on every place
/// assigned or bound.
struct Each<'f> {
    expr: &'f mut dyn FnMut(&Expr),
    place: &'f mut dyn FnMut(Place),
}

impl<'ir> Visit<'ir> for Each<'_> {
    fn visit_expr(&mut self, e: &'ir Expr) {
        (self.expr)(e);
        walk_expr(self, e)
    }
    fn visit_place(&mut self, place: Place) {
        (self.place)(place)
    }
}

/// Does control leave `body` by a `break` or `continue` of a loop around it?
pub fn jumps_out(body: &[Stmt]) -> bool {
    struct Jumps {
        labels: Vec<u32>,
        found: bool,
    }
    impl<'ir> Visit<'ir> for Jumps {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let Stmt::Break(l) | Stmt::Continue(l) = s {
                self.found |= !self.labels.contains(l);
            }
            let label = s.loop_label();
            self.labels.extend(label);
            walk_stmt(self, s);
            if label.is_some() {
                self.labels.pop();
            }
        }
    }
    let mut jumps = Jumps {
        labels: Vec::new(),
        found: false,
    };
    for s in body {
        jumps.visit_stmt(s);
    }
    jumps.found
}

/// How many loops `stmts` hold, themselves and nested (in inlined bodies too).
pub fn count_loops(stmts: &[Stmt]) -> usize {
    struct Loops(usize);
    impl<'ir> Visit<'ir> for Loops {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            self.0 += usize::from(s.loop_label().is_some());
            walk_stmt(self, s);
        }
    }
    let mut loops = Loops(0);
    for s in stmts {
        loops.visit_stmt(s);
    }
    loops.0
}

/// Call `expr` on every expression of `stmts` (pre-order) and `place` on every place they
/// assign or bind.
pub fn each_in_stmts(stmts: &[Stmt], expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)) {
    walk_stmts(&mut Each { expr, place }, stmts)
}

/// Call `expr` on `e` and every expression inside it (pre-order) and `place` on every place
/// bound inside it.
pub fn each_in_expr(e: &Expr, expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)) {
    Each { expr, place }.visit_expr(e)
}

/// An in-place traversal.
pub trait VisitMut {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e)
    }
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        walk_stmt_mut(self, s)
    }
    fn visit_pattern_mut(&mut self, p: &mut Pattern) {
        walk_pattern_mut(self, p)
    }
    fn visit_place_mut(&mut self, _place: &mut Place) {}
    fn visit_type_mut(&mut self, _ty: &mut Type) {}
}

walkers! {
    generics: [<V: VisitMut + ?Sized>],
    arm_generics: [<V: VisitMut + ?Sized, B>],
    reference: [&mut],
    borrow: [&mut],
    walk: [walk_stmts_mut, walk_path_mut, walk_arm_mut, walk_expr_mut, walk_stmt_mut,
           walk_pattern_mut],
    visit: [visit_expr_mut, visit_stmt_mut, visit_pattern_mut, visit_place_mut, visit_type_mut],
    place: |p| p,
    map_var: |v, var| {
        let mut place = Place::Local(*var);
        v.visit_place_mut(&mut place);
        if let Place::Local(s) = place {
            *var = s;
        }
    },
}

/// A rebuilding traversal: every method gives the node's replacement, or an error to abandon
/// the rebuild (`Infallible` for a fold that always succeeds: see `infallible`).
pub trait Fold {
    type Error;
    fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
        walk_expr_fold(self, e)
    }
    fn fold_stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        walk_stmt_fold(self, s)
    }
    /// Every nested statement list goes through here (a branch, a loop body, an arm, an
    /// inlined body).
    fn fold_stmts(&mut self, stmts: &[Stmt]) -> Result<Vec<Stmt>, Self::Error> {
        stmts.iter().map(|s| self.fold_stmt(s)).collect()
    }
    fn fold_pattern(&mut self, p: &Pattern) -> Result<Pattern, Self::Error> {
        walk_pattern_fold(self, p)
    }
    /// A place assigned or bound, as `Visit::visit_place`; a local must stay a local (the
    /// variable of a `MapLoop` is a slot).
    fn fold_place(&mut self, place: Place) -> Result<Place, Self::Error> {
        Ok(place)
    }
    /// A loop's label, or the target of a `break` or `continue`.
    fn fold_label(&mut self, label: LabelId) -> Result<LabelId, Self::Error> {
        Ok(label)
    }
    fn fold_type(&mut self, ty: &Type) -> Result<Type, Self::Error> {
        Ok(ty.clone())
    }
}

/// The value of a fold that cannot fail.
pub fn infallible<T>(result: Result<T, Infallible>) -> T {
    match result {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

fn fold_boxed<F: Fold + ?Sized>(f: &mut F, e: &Expr) -> Result<Box<Expr>, F::Error> {
    f.fold_expr(e).map(Box::new)
}

fn fold_exprs<F: Fold + ?Sized>(f: &mut F, es: &[Expr]) -> Result<Vec<Expr>, F::Error> {
    es.iter().map(|e| f.fold_expr(e)).collect()
}

fn fold_types<F: Fold + ?Sized>(f: &mut F, ts: &[Type]) -> Result<Vec<Type>, F::Error> {
    ts.iter().map(|t| f.fold_type(t)).collect()
}

fn fold_path<F: Fold + ?Sized>(f: &mut F, path: &[PathStep]) -> Result<Vec<PathStep>, F::Error> {
    path.iter()
        .map(|step| {
            Ok(match step {
                PathStep::Field(i) => PathStep::Field(*i),
                PathStep::Index(e, mode) => PathStep::Index(f.fold_expr(e)?, *mode),
            })
        })
        .collect()
}

fn fold_arm<F: Fold + ?Sized, B, C>(
    f: &mut F,
    arm: &Arm<B>,
    body: impl FnOnce(&mut F, &B) -> Result<C, F::Error>,
) -> Result<Arm<C>, F::Error> {
    let patterns = arm
        .patterns
        .iter()
        .map(|p| f.fold_pattern(p))
        .collect::<Result<_, _>>()?;
    let guard = match &arm.guard {
        Some(g) => Some(f.fold_expr(g)?),
        None => None,
    };
    Ok(Arm {
        patterns,
        guard,
        body: body(f, &arm.body)?,
    })
}

fn fold_local<F: Fold + ?Sized>(f: &mut F, slot: u32) -> Result<u32, F::Error> {
    match f.fold_place(Place::Local(slot))? {
        Place::Local(s) => Ok(s),
        other => panic!("the local slot {slot} folded to {other:?}"),
    }
}

/// `e` rebuilt from its folded children.
pub fn walk_expr_fold<F: Fold + ?Sized>(f: &mut F, e: &Expr) -> Result<Expr, F::Error> {
    let ty = f.fold_type(&e.ty)?;
    let kind = match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Zero
        | ExprKind::Local(_)
        | ExprKind::Take(_)
        | ExprKind::LocalCell(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::CaptureCell(_) => e.kind.clone(),
        ExprKind::MakeFun { fun, type_args } => ExprKind::MakeFun {
            fun: *fun,
            type_args: fold_types(f, type_args)?,
        },
        ExprKind::Closure {
            fun,
            type_args,
            captures,
        } => ExprKind::Closure {
            fun: *fun,
            type_args: fold_types(f, type_args)?,
            captures: Arc::clone(captures),
        },
        ExprKind::TypeSize(t) => ExprKind::TypeSize(f.fold_type(t)?),
        ExprKind::Call { func, args } => ExprKind::Call {
            func: fold_boxed(f, func)?,
            args: fold_exprs(f, args)?,
        },
        ExprKind::Prim(p, args) => ExprKind::Prim(p.clone(), fold_exprs(f, args)?),
        ExprKind::Tuple(es) => ExprKind::Tuple(fold_exprs(f, es)?),
        ExprKind::Array(es) => ExprKind::Array(fold_exprs(f, es)?),
        ExprKind::CTuple(es) => ExprKind::CTuple(fold_exprs(f, es)?),
        ExprKind::Field(x, i) => ExprKind::Field(fold_boxed(f, x)?, *i),
        ExprKind::CField(x, i) => ExprKind::CField(fold_boxed(f, x)?, *i),
        ExprKind::Index { array, index, mode } => ExprKind::Index {
            array: fold_boxed(f, array)?,
            index: fold_boxed(f, index)?,
            mode: *mode,
        },
        ExprKind::Inject { tag, arg } => ExprKind::Inject {
            tag: *tag,
            arg: fold_boxed(f, arg)?,
        },
        ExprKind::CInject { tag, arg } => ExprKind::CInject {
            tag: *tag,
            arg: fold_boxed(f, arg)?,
        },
        ExprKind::Coerce(k, x) => ExprKind::Coerce(*k, fold_boxed(f, x)?),
        ExprKind::If(c, a, b) => {
            ExprKind::If(fold_boxed(f, c)?, fold_boxed(f, a)?, fold_boxed(f, b)?)
        }
        ExprKind::And(a, b) => ExprKind::And(fold_boxed(f, a)?, fold_boxed(f, b)?),
        ExprKind::Or(a, b) => ExprKind::Or(fold_boxed(f, a)?, fold_boxed(f, b)?),
        ExprKind::Match(x, arms) => ExprKind::Match(
            fold_boxed(f, x)?,
            arms.iter()
                .map(|arm| fold_arm(f, arm, |f, body| f.fold_expr(body)))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::AddrOf {
            place,
            root_ty,
            path,
        } => ExprKind::AddrOf {
            place: *place,
            root_ty: f.fold_type(root_ty)?,
            path: fold_path(f, path)?,
        },
        ExprKind::PtrProject { pointer, path } => ExprKind::PtrProject {
            pointer: fold_boxed(f, pointer)?,
            path: fold_path(f, path)?,
        },
        ExprKind::Deref(x) => ExprKind::Deref(fold_boxed(f, x)?),
        ExprKind::PtrCast(x) => ExprKind::PtrCast(fold_boxed(f, x)?),
        ExprKind::Inlined(inlined) => ExprKind::Inlined(Box::new(Inlined {
            frame: inlined.frame.clone(),
            call: inlined.call,
            stmts: f.fold_stmts(&inlined.stmts)?,
            result: match &inlined.result {
                Some(r) => Some(f.fold_expr(r)?),
                None => None,
            },
        })),
        ExprKind::MapLoop {
            var,
            array,
            body,
            filter,
        } => ExprKind::MapLoop {
            var: fold_local(f, *var)?,
            array: fold_boxed(f, array)?,
            body: fold_boxed(f, body)?,
            filter: *filter,
        },
    };
    Ok(Expr {
        kind,
        ty,
        span: e.span,
    })
}

/// `s` rebuilt from its folded children.
pub fn walk_stmt_fold<F: Fold + ?Sized>(f: &mut F, s: &Stmt) -> Result<Stmt, F::Error> {
    Ok(match s {
        Stmt::Expr(e) => Stmt::Expr(f.fold_expr(e)?),
        Stmt::Assign(place, e) => Stmt::Assign(f.fold_place(*place)?, f.fold_expr(e)?),
        Stmt::Store {
            place,
            root_ty,
            path,
            value,
        } => Stmt::Store {
            place: f.fold_place(*place)?,
            root_ty: f.fold_type(root_ty)?,
            path: fold_path(f, path)?,
            value: f.fold_expr(value)?,
        },
        Stmt::StoreAt { pointer, value } => Stmt::StoreAt {
            pointer: f.fold_expr(pointer)?,
            value: f.fold_expr(value)?,
        },
        Stmt::If(c, a, b) => Stmt::If(f.fold_expr(c)?, f.fold_stmts(a)?, f.fold_stmts(b)?),
        Stmt::While {
            label,
            cond,
            until,
            body,
        } => Stmt::While {
            label: f.fold_label(*label)?,
            cond: f.fold_expr(cond)?,
            until: *until,
            body: f.fold_stmts(body)?,
        },
        Stmt::Loop { label, body } => Stmt::Loop {
            label: f.fold_label(*label)?,
            body: f.fold_stmts(body)?,
        },
        Stmt::ForRange {
            label,
            var,
            var_ty,
            from,
            to,
            kind,
            body,
        } => Stmt::ForRange {
            label: f.fold_label(*label)?,
            var: f.fold_place(*var)?,
            var_ty: *var_ty,
            from: f.fold_expr(from)?,
            to: f.fold_expr(to)?,
            kind: *kind,
            body: f.fold_stmts(body)?,
        },
        Stmt::ForCodes {
            label,
            var,
            ty,
            body,
        } => Stmt::ForCodes {
            label: f.fold_label(*label)?,
            var: f.fold_place(*var)?,
            ty: f.fold_type(ty)?,
            body: f.fold_stmts(body)?,
        },
        Stmt::ForArray {
            label,
            var,
            array,
            body,
        } => Stmt::ForArray {
            label: f.fold_label(*label)?,
            var: f.fold_place(*var)?,
            array: f.fold_expr(array)?,
            body: f.fold_stmts(body)?,
        },
        Stmt::Break(l) => Stmt::Break(f.fold_label(*l)?),
        Stmt::Continue(l) => Stmt::Continue(f.fold_label(*l)?),
        Stmt::Return(e) => Stmt::Return(match e {
            Some(e) => Some(f.fold_expr(e)?),
            None => None,
        }),
        Stmt::Match(x, arms) => Stmt::Match(
            f.fold_expr(x)?,
            arms.iter()
                .map(|arm| fold_arm(f, arm, |f, body| f.fold_stmts(body)))
                .collect::<Result<_, _>>()?,
        ),
        Stmt::Block(ss) => Stmt::Block(f.fold_stmts(ss)?),
        Stmt::Specialise { sizes, body, span } => Stmt::Specialise {
            sizes: sizes
                .iter()
                .map(|(v, e)| Ok((v.clone(), f.fold_expr(e)?)))
                .collect::<Result<_, _>>()?,
            body: f.fold_stmts(body)?,
            span: *span,
        },
    })
}

/// `p` rebuilt from its folded children.
pub fn walk_pattern_fold<F: Fold + ?Sized>(f: &mut F, p: &Pattern) -> Result<Pattern, F::Error> {
    let ty = f.fold_type(&p.ty)?;
    let kind = match &p.kind {
        PatternKind::Bind(place) => PatternKind::Bind(f.fold_place(*place)?),
        PatternKind::As(q, place) => {
            PatternKind::As(Box::new(f.fold_pattern(q)?), f.fold_place(*place)?)
        }
        PatternKind::Tuple(ps) => PatternKind::Tuple(
            ps.iter()
                .map(|q| f.fold_pattern(q))
                .collect::<Result<_, _>>()?,
        ),
        PatternKind::Inject { tag, arg } => PatternKind::Inject {
            tag: *tag,
            arg: match arg {
                Some(a) => Some(Box::new(f.fold_pattern(a)?)),
                None => None,
            },
        },
        PatternKind::CInject { tag, arg } => PatternKind::CInject {
            tag: *tag,
            arg: match arg {
                Some(a) => Some(Box::new(f.fold_pattern(a)?)),
                None => None,
            },
        },
        PatternKind::Wildcard | PatternKind::Const(_) | PatternKind::Range(..) => p.kind.clone(),
    };
    Ok(Pattern {
        kind,
        ty,
        span: p.span,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Checker;
    use crate::core::ir::{Function, Unit};
    use crate::core::print;

    fn unit(src: &str) -> Unit {
        let stmts =
            crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
        Checker::new()
            .check_program(&stmts)
            .expect("the program checks")
    }

    const PROGRAM: &str =
        "fun f (x: int) : int { var s = x; for i in 0 ..< 3 do s = s + i; done return s; }
fun g (y: int) : int => match y with | 1 => f y | z => z + 1 endmatch;
var t = 0;
while t < 2 do t = t + g t; done
println (t, f 2);";

    /// What a walk saw: expressions, places and types, in order.
    #[derive(Default, PartialEq, Debug)]
    struct Seen {
        exprs: Vec<String>,
        places: Vec<Place>,
        types: Vec<String>,
    }

    impl<'ir> Visit<'ir> for Seen {
        fn visit_expr(&mut self, e: &'ir Expr) {
            self.exprs
                .push(format!("{:?}", e.kind).chars().take(12).collect());
            walk_expr(self, e)
        }
        fn visit_place(&mut self, place: Place) {
            self.places.push(place)
        }
        fn visit_type(&mut self, ty: &'ir Type) {
            self.types.push(ty.to_string())
        }
    }

    impl VisitMut for Seen {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            self.exprs
                .push(format!("{:?}", e.kind).chars().take(12).collect());
            walk_expr_mut(self, e)
        }
        fn visit_place_mut(&mut self, place: &mut Place) {
            self.places.push(*place)
        }
        fn visit_type_mut(&mut self, ty: &mut Type) {
            self.types.push(ty.to_string())
        }
    }

    /// Moves every local slot up by 10 and every label by 100.
    struct Shift;

    impl Fold for Shift {
        type Error = Infallible;
        fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Infallible> {
            match e.kind {
                ExprKind::Local(s) => Ok(Expr {
                    kind: ExprKind::Local(s + 10),
                    ..e.clone()
                }),
                _ => walk_expr_fold(self, e),
            }
        }
        fn fold_place(&mut self, place: Place) -> Result<Place, Infallible> {
            Ok(match place {
                Place::Local(s) => Place::Local(s + 10),
                other => other,
            })
        }
        fn fold_label(&mut self, label: LabelId) -> Result<LabelId, Infallible> {
            Ok(label + 100)
        }
    }

    #[test]
    fn the_shared_and_the_mutable_walk_see_the_same_nodes_in_the_same_order() {
        let mut unit = unit(PROGRAM);
        let mut shared = Seen::default();
        for (_, f) in &unit.functions {
            f.params.iter().for_each(|p| shared.visit_pattern(p));
            walk_stmts(&mut shared, &f.body);
        }
        walk_stmts(&mut shared, &unit.body);
        let mut mutable = Seen::default();
        for (_, f) in &mut unit.functions {
            let f = Arc::make_mut(f);
            f.params
                .iter_mut()
                .for_each(|p| mutable.visit_pattern_mut(p));
            walk_stmts_mut(&mut mutable, &mut f.body);
        }
        walk_stmts_mut(&mut mutable, &mut unit.body);
        assert_eq!(shared, mutable);
        // `f` binds `x`, assigns `s`, binds `i`, assigns `s`; `g` binds `y` and `z`; the top
        // level assigns `t` twice.
        assert_eq!(shared.places.len(), 8, "{:?}", shared.places);
        assert!(shared.exprs.len() > 20 && shared.types.len() > shared.exprs.len());
    }

    #[test]
    fn a_fold_rebuilds_what_it_does_not_override() {
        let unit = unit(PROGRAM);
        let (_, f) = &unit.functions[0];
        let same = Function {
            body: infallible(Shift.fold_stmts(&f.body)),
            ..(**f).clone()
        };
        assert_eq!(
            print::function(0, &same),
            "fun f0 f (l0 : int) : int slots 3 pure {
  l11 = l10
  for L100 l12 in 0 ..< 3 {
    l11 = IntArith(Add, Int)(l11, l12)
  }
  return l11
}
"
        );
    }
}
