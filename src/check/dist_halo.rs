//! Stencils over distributed arrays: in a loop over a distributed array's positions
//! (`check::distributed`'s owned loops), a read of a distributed array at a constant offset
//! from the loop's position, `a.((i :>> int) - 1)` or `a.((i :>> int) + k)`, reads positions
//! that other processes own near the edges of each chunk. Such a loop runs on chunks too:
//! before it, each array read at offsets gets its *halo*, the positions around each
//! process's chunk that the loop reads, from the processes that own them (`DistOp::Halo`);
//! then every read is local. A read outside the array faults as the sequential loop does.

use crate::check::env::Binding;
use crate::check::Checker;
use crate::core::ir::{self, ArithOp, CoerceKind, DistOp, Prim};
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, Type};

/// The constant offset from the loop's position that `index` reads at: the loop's variable
/// converted to an integer (`i :>> int`), or a `val` of the loop's body bound to such an
/// offset (`aliases`: `val k = i :>> int;`), plus or minus integer constants. `is_var` tells
/// the loop's variable.
pub(crate) fn offset_from(
    index: &ir::Expr,
    is_var: &dyn Fn(&ir::Expr) -> bool,
    aliases: &[(ir::Place, i64)],
) -> Option<i64> {
    use ir::ExprKind as K;
    if let Some(place) = place_of(index) {
        return aliases.iter().find(|(p, _)| *p == place).map(|(_, c)| *c);
    }
    match &index.kind {
        K::Coerce(CoerceKind::EncodeInt, v) if is_var(v) => Some(0),
        K::Prim(Prim::IntArith(op @ (ArithOp::Add | ArithOp::Sub), _), args) if args.len() == 2 => {
            match (&args[0].kind, &args[1].kind) {
                (_, K::Const(ir::Const::Int(c))) => {
                    let base = offset_from(&args[0], is_var, aliases)?;
                    match op {
                        ArithOp::Add => base.checked_add(*c),
                        _ => base.checked_sub(*c),
                    }
                }
                (K::Const(ir::Const::Int(c)), _) if *op == ArithOp::Add => {
                    offset_from(&args[1], is_var, aliases)?.checked_add(*c)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The variable place an expression reads, if it is one.
fn place_of(e: &ir::Expr) -> Option<ir::Place> {
    match e.kind {
        ir::ExprKind::Local(s) => Some(ir::Place::Local(s)),
        ir::ExprKind::LocalCell(s) => Some(ir::Place::LocalCell(s)),
        ir::ExprKind::Global(s) => Some(ir::Place::Global(s)),
        _ => None,
    }
}

fn read_of(place: &ir::Place, ty: Type, span: Span) -> ir::Expr {
    let kind = match *place {
        ir::Place::Local(s) => ir::ExprKind::Local(s),
        ir::Place::LocalCell(s) => ir::ExprKind::LocalCell(s),
        ir::Place::Global(s) => ir::ExprKind::Global(s),
        ir::Place::CaptureCell(c) => ir::ExprKind::CaptureCell(c),
    };
    ir::Expr { kind, ty, span }
}

/// The variables that `body` stores into (at any path).
fn stored(body: &[ir::Stmt], out: &mut Vec<ir::Place>) {
    use ir::Stmt as S;
    for stmt in body {
        match stmt {
            S::Store { place, .. } => out.push(*place),
            S::If(_, a, b) => {
                stored(a, out);
                stored(b, out);
            }
            S::While { body, .. }
            | S::Loop { body, .. }
            | S::ForRange { body, .. }
            | S::ForCodes { body, .. }
            | S::ForArray { body, .. }
            | S::Block(body)
            | S::Specialise { body, .. } => stored(body, out),
            S::Match(_, arms) => arms.iter().for_each(|a| stored(&a.body, out)),
            _ => {}
        }
    }
}

/// One array read at offsets from the loop's position: how far before and after it.
struct Reach {
    ty: Type,
    before: i64,
    after: i64,
}

/// The halos the loop `body` over the variable `var` needs: for each distributed array it
/// reads at a nonzero offset from `var`, the statement that gives it its halo. `Err` with what
/// stands in the way: an array read at an offset that is not a variable, or one the loop also
/// stores into (each position would need its neighbours' new values).
pub(crate) fn halo_statements(
    body: &[ir::Stmt],
    at_var: &dyn Fn(&ir::Expr) -> bool,
    aliases: &[(ir::Place, i64)],
    span: Span,
) -> Result<Vec<ir::Stmt>, (String, Option<Span>)> {
    let mut reaches: Vec<(ir::Place, Reach)> = Vec::new();
    let mut problem = None;
    let mut stores = Vec::new();
    stored(body, &mut stores);
    crate::core::visit::each_in_stmts(
        body,
        &mut |e| {
            let ir::ExprKind::Index {
                array,
                index,
                mode: ir::IndexMode::Linear,
            } = &e.kind
            else {
                return;
            };
            if array.ty.distributed_array().is_none() || problem.is_some() {
                return;
            }
            let Some(offset) = offset_from(index, at_var, aliases) else {
                return;
            };
            if offset == 0 {
                return;
            }
            let Some(place) = place_of(array) else {
                problem = Some((
                    "reads a distributed array at an offset from its position through an expression other than the array's variable".to_string(),
                    Some(array.span),
                ));
                return;
            };
            if stores.contains(&place) {
                problem = Some((
                    "reads at an offset from its position a distributed array it also stores into (a position would need its neighbours' new values)".to_string(),
                    Some(e.span),
                ));
                return;
            }
            let at = match reaches.iter().position(|(p, _)| *p == place) {
                Some(at) => at,
                None => {
                    let ty = array.ty.clone();
                    reaches.push((
                        place,
                        Reach {
                            ty,
                            before: 0,
                            after: 0,
                        },
                    ));
                    reaches.len() - 1
                }
            };
            let reach = &mut reaches[at].1;
            reach.before = reach.before.max(-offset);
            reach.after = reach.after.max(offset);
        },
        &mut |_| {},
    );
    if let Some(p) = problem {
        return Err(p);
    }
    let size = |k: i64| ir::Expr {
        kind: ir::ExprKind::Const(ir::Const::Int(k)),
        ty: Type::Int(IntTy::Size),
        span,
    };
    Ok(reaches
        .into_iter()
        .map(|(place, reach)| {
            let read = read_of(&place, reach.ty.clone(), span);
            let halo = ir::Expr {
                kind: ir::ExprKind::Prim(
                    Prim::Dist(DistOp::Halo),
                    vec![read, size(reach.before), size(reach.after)],
                ),
                ty: reach.ty,
                span,
            };
            ir::Stmt::Assign(place, halo)
        })
        .collect())
}

impl Checker {
    /// Is an expression a read of the innermost loop over owned positions' variable? `None`
    /// outside such a loop.
    fn reads_owned_var(&self) -> Option<impl Fn(&ir::Expr) -> bool> {
        let l = self.secret.owned_loops.last()?;
        let Some(Binding::Var(vb)) = self.lookup_value(&l.var) else {
            return None;
        };
        let (loc, frame) = (vb.loc, self.frame);
        Some(move |e: &ir::Expr| {
            loc.frame == frame
                && matches!(e.kind,
                    ir::ExprKind::Local(s) | ir::ExprKind::LocalCell(s) | ir::ExprKind::Global(s)
                        if s == loc.slot)
        })
    }

    /// After `val NAME = init;` (the assignment `stmt`) in the body of a loop over owned
    /// positions: when `init` is the loop's position as an integer plus or minus a constant,
    /// the `val` is noted as that offset, so `a.(k - 1)` reads as `a.((i :>> int) - 1)`.
    pub(crate) fn note_offset_alias(&mut self, stmt: &ir::Stmt) {
        let ir::Stmt::Assign(place, init) = stmt else {
            return;
        };
        let Some(l) = self.secret.owned_loops.last() else {
            return;
        };
        let Some(is_var) = self.reads_owned_var() else {
            return;
        };
        let Some(offset) = offset_from(init, &is_var, &l.aliases) else {
            return;
        };
        if let Some(l) = self.secret.owned_loops.last_mut() {
            l.aliases.retain(|(p, _)| p != place);
            l.aliases.push((*place, offset));
        }
    }

    /// Is `index`, the index of a read of a distributed array of type `distributed inner`,
    /// the position of the innermost loop over `inner`'s index plus or minus a constant?
    /// (Noted as a use of the loop, which then gives the array its halo.)
    pub(crate) fn at_owned_offset(&mut self, inner: &Type, index: &ir::Expr) -> bool {
        let Type::Array(_, array_index) = inner else {
            return false;
        };
        let array_index = self.zonk(array_index);
        let Some(l) = self.secret.owned_loops.last() else {
            return false;
        };
        if l.index != array_index {
            return false;
        }
        let Some(is_var) = self.reads_owned_var() else {
            return false;
        };
        if offset_from(index, &is_var, &l.aliases).is_none() {
            return false;
        }
        if let Some(l) = self.secret.owned_loops.last_mut() {
            l.used = true;
        }
        true
    }
}
