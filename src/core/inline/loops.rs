//! Library calls given a function, as the loops a user would write: `fold_left f init a`
//! with a known `f` becomes `acc = init; for v in a do acc = f acc v; done`, and `map f a`
//! (`filter f a`) a `MapLoop` over the inlined body, or over a call of `f` when it is a
//! function value.

use crate::core::ir::{Expr, ExprKind, Inlined, Place, Prim, Slot, Stmt};
use crate::types::Type;

use super::{Inliner, Known};

impl Inliner<'_> {
    /// Library calls whose function argument is known, as loops (`fold_left`, `map`); `map`
    /// and `filter` of a function value too, calling it from the loop.
    pub(super) fn lower_prim(
        &mut self,
        prim: &Prim,
        args: &[Expr],
        ty: &Type,
        e: &Expr,
    ) -> Option<Expr> {
        match (prim, args) {
            (Prim::FoldLeft, [f, init, array]) => {
                self.known_function_arg(f)?;
                let Type::Array(elem, _) = &array.ty else {
                    return None;
                };
                let acc = self.fresh_slot();
                let var = self.fresh_slot();
                let local = |s: Slot, ty: &Type| Expr {
                    kind: ExprKind::Local(s),
                    ty: ty.clone(),
                    span: e.span,
                };
                let step = self.call(
                    f,
                    &[local(acc, &init.ty), local(var, elem)],
                    &init.ty,
                    e.span,
                )?;
                let label = self.next_label;
                self.next_label += 1;
                let stmts = vec![
                    Stmt::Assign(Place::Local(acc), init.clone()),
                    Stmt::ForArray {
                        label,
                        var: Place::Local(var),
                        array: array.clone(),
                        body: vec![Stmt::Assign(Place::Local(acc), step)],
                    },
                ];
                Some(Expr {
                    kind: ExprKind::Inlined(Box::new(Inlined {
                        frame: None,
                        call: e.span,
                        stmts,
                        result: Some(local(acc, ty)),
                    })),
                    ty: ty.clone(),
                    span: e.span,
                })
            }
            (Prim::Map | Prim::Filter, [f, array]) => {
                let known = self.known_function_arg(f).is_some();
                let Type::Array(elem, _) = &array.ty else {
                    return None;
                };
                // A predicate's value is a `bool`; a mapped function's, an element of the result.
                let filter = matches!(prim, Prim::Filter);
                let body_ty = match (filter, ty) {
                    (true, _) => Type::Unitsum(2),
                    (false, Type::Array(out_elem, _)) => (**out_elem).clone(),
                    (false, _) => return None,
                };
                let var = self.fresh_slot();
                let element = Expr {
                    kind: ExprKind::Local(var),
                    ty: (**elem).clone(),
                    span: e.span,
                };
                if known {
                    let body = self.call(f, &[element], &body_ty, e.span)?;
                    return Some(map_loop(var, array, body, filter, ty, e.span));
                }
                // A function value: taken once, into a slot of its own, then called on each
                // element where the library's loop would call it (at the `map`).
                let func = self.fresh_slot();
                let body = Expr {
                    kind: ExprKind::Call {
                        func: Box::new(Expr {
                            kind: ExprKind::Local(func),
                            ty: f.ty.clone(),
                            span: f.span,
                        }),
                        args: vec![element],
                    },
                    ty: body_ty,
                    span: e.span,
                };
                Some(Expr {
                    kind: ExprKind::Inlined(Box::new(Inlined {
                        frame: None,
                        call: e.span,
                        stmts: vec![Stmt::Assign(Place::Local(func), f.clone())],
                        result: Some(map_loop(var, array, body, filter, ty, e.span)),
                    })),
                    ty: ty.clone(),
                    span: e.span,
                })
            }
            _ => None,
        }
    }

    fn known_function_arg(&self, f: &Expr) -> Option<Known> {
        let known = self.known(f)?;
        self.inlinable(&known)?;
        Some(known)
    }
}

/// The `MapLoop` of `body` over the elements of `array`, each bound to the slot `var`.
fn map_loop(
    var: Slot,
    array: &Expr,
    body: Expr,
    filter: bool,
    ty: &Type,
    span: crate::syntax::span::Span,
) -> Expr {
    Expr {
        kind: ExprKind::MapLoop {
            var,
            array: Box::new(array.clone()),
            body: Box::new(body),
            filter,
        },
        ty: ty.clone(),
        span,
    }
}
