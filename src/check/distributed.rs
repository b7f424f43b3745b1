//! The distribution dimension (after the MPLang type design): `distributed T ^ I` is an array
//! stored as equal chunks of its linear index, one per process, whatever its shape. It is a
//! type dimension beside visibility, handled by the same machinery: the qualifier is a
//! `Type` node (`Type::Distributed`, around an array), operations are typed on the data type
//! and the distribution joined back onto their result, sinks that need the whole array refuse
//! it (E0810, naming the operation and suggesting `collect a`), and the unit's IR is erased of
//! it at the end (`zonk.rs`). What the evaluator keeps of it is the kernel: an operation on a
//! distributed operand is given its chunked kernel here (`Prim::Dist`), which computes the
//! owned positions only and combines across processes (`eval::distributed`).
//!
//! What runs on chunks: `map f a` (a distributed result), `\sum` and `\prod` (a scalar),
//! `len` (the shape), `save_npy`, `collect` (the whole array), a reshape `:>>` (the linear
//! index does not change, so no data moves) and `load_npy` into a distributed type. A plain
//! array goes where a distributed one is wanted (each process keeps its chunk); the other
//! way needs `collect`.

use crate::check::build::{error_expr, Arg};
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, DistOp, Prim};
use crate::syntax::ast::TypeExpr;
use crate::syntax::span::Span;
use crate::types::ty::Type;

impl Checker {
    /// `distributed T`: `T` must be an array (E0811 otherwise).
    pub(crate) fn distributed_type(&mut self, te: &TypeExpr, span: Span) -> Type {
        let t = self.type_expr(te);
        if crate::check::contains_error(&t) {
            return t;
        }
        match t {
            Type::Array(..) | Type::Distributed(_) => {
                self.secret.distributed = true;
                Type::distributed(t)
            }
            t => {
                self.error(CheckError::NotDistributable {
                    span,
                    ty: t.to_string(),
                });
                error_type()
            }
        }
    }

    /// E0810: the distributed value at `span` given to `operation`.
    pub(crate) fn needs_whole(&mut self, span: Span, operation: impl Into<String>, ty: &Type) {
        self.error(CheckError::NeedsWhole {
            span,
            operation: operation.into(),
            ty: ty.to_string(),
        });
    }

    /// A value going where type `wanted` is: a distributed array where a plain one is wanted
    /// is an error (E0810); a plain array where a distributed one is wanted is the same data
    /// (a loader reads only the chunk). `None` when distribution plays no part.
    pub(crate) fn coerce_distribution(
        &mut self,
        e: ir::Expr,
        wanted: &Type,
        context: &str,
    ) -> Result<ir::Expr, ir::Expr> {
        let found = self.zonk(&e.ty);
        let wanted = self.zonk(wanted);
        match (found.distributed_array(), wanted.distributed_array()) {
            (Some(_), None) if !matches!(wanted, Type::Meta(_)) && !found.has_meta() => {
                if crate::check::contains_error(&wanted) {
                    return Ok(error_expr(e.span));
                }
                self.needs_whole(e.span, format!("{context} (a plain array)"), &found);
                Ok(error_expr(e.span))
            }
            (None, Some(inner)) if !matches!(found, Type::Meta(_)) => {
                let inner = inner.clone();
                let mut v = self.coerce_to(e, &inner, context);
                if v.ty == error_type() {
                    return Ok(v);
                }
                retarget(&mut v, &Prim::LoadNpy, Prim::Dist(DistOp::LoadNpy));
                v.ty = wanted;
                Ok(v)
            }
            _ => Err(e),
        }
    }
}

/// Replace the kernel `from` by `to` in an application (or in the body of the `match` that
/// takes a tupled argument apart around it).
fn retarget(e: &mut ir::Expr, from: &Prim, to: Prim) {
    match &mut e.kind {
        ir::ExprKind::Prim(p, _) if p == from => *p = to,
        ir::ExprKind::Match(_, arms) if arms.len() == 1 => retarget(&mut arms[0].body, from, to),
        _ => {}
    }
}

/// Give an operand the plain type of its data: its root, and the components of a tuple
/// literal (which a tupled primitive takes apart).
fn strip(e: &mut ir::Expr) {
    e.ty = e.ty.erase_distributed();
    if let ir::ExprKind::Tuple(parts) = &mut e.kind {
        parts.iter_mut().for_each(strip);
    }
}

/// Is this argument written as a lambda (checked only against the parameter type it meets)?
fn is_lambda(a: &Arg) -> bool {
    matches!(a, Arg::Ast(e) if matches!(e.node, crate::syntax::ast::ExprKind::Lambda(_)))
}

/// The primitive `name` applied where the session has written `distributed`: the data
/// arguments are checked first; when one is distributed, the application is typed on the data
/// types, given its chunked kernel and its result the distribution it keeps. `None` (with the
/// arguments checked in place) when no argument is distributed.
pub(crate) fn apply_distributed(
    c: &mut Checker,
    name: &'static str,
    args: &mut Vec<Arg>,
    span: Span,
    apply: impl FnOnce(&mut Checker, &mut Vec<Arg>) -> ir::Expr,
) -> Option<ir::Expr> {
    let mut distributed = None;
    for i in 0..args.len() {
        // A function argument is checked against the parameter type it meets.
        if is_lambda(&args[i]) || (name == "map" && i == 0) {
            continue;
        }
        let e = crate::check::prims::take(c, args, i, None);
        if distributed.is_none() && e.ty.has_distributed() {
            distributed = Some((e.ty.clone(), e.span));
        }
        args[i] = Arg::Checked(e);
    }
    let (ty, at_span) = distributed?;
    let (kernel, keeps) = match name {
        "map" => (Some((Prim::Map, Prim::Dist(DistOp::Map))), true),
        "\\sum" => (Some((Prim::Sum, Prim::Dist(DistOp::Reduce(true)))), false),
        "\\prod" => (Some((Prim::Prod, Prim::Dist(DistOp::Reduce(false)))), false),
        "save_npy" => (Some((Prim::SaveNpy, Prim::Dist(DistOp::SaveNpy))), false),
        "len" | "collect" => (None, false),
        _ => {
            c.needs_whole(at_span, format!("`{name}`"), &ty);
            return Some(error_expr(span));
        }
    };
    for a in args.iter_mut() {
        if let Arg::Checked(e) = a {
            strip(e);
        }
    }
    // Typed on the data types, with no second look at distribution.
    let written = std::mem::replace(&mut c.secret.distributed, false);
    let mut r = apply(c, args);
    c.secret.distributed = written || c.secret.distributed;
    if r.ty == error_type() {
        return Some(r);
    }
    if let Some((from, to)) = kernel {
        retarget(&mut r, &from, to);
    }
    if keeps {
        r.ty = Type::distributed(c.zonk(&r.ty));
    }
    Some(r)
}
