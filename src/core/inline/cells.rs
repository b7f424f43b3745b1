//! Cells no closure needs any more. A local is a cell when a closure captures it or its
//! address is taken; once the closures that captured it are inlined (`map (fun x => first) a`,
//! the lambda's body now reading the cell in place), a cell nothing captures and nothing
//! addresses is an ordinary local: its reads and assignments are rewritten to the slot's,
//! which the back ends hold in registers. (A function's cells are made once, when it is
//! entered, so a cell is one variable for the whole call, as the local is.)

use std::collections::HashSet;

use crate::core::ir::{Expr, ExprKind, Function, Pattern, Place, Slot, Stmt};
use crate::core::visit::{
    each_in_stmts, walk_expr_mut, walk_pattern_mut, walk_stmts_mut, VisitMut,
};

use super::Inliner;

/// Rewrites the cells of a set to plain locals.
struct Demote<'a>(&'a HashSet<Slot>);

impl VisitMut for Demote<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let ExprKind::LocalCell(s) = e.kind {
            if self.0.contains(&s) {
                e.kind = ExprKind::Local(s);
            }
        }
        walk_expr_mut(self, e)
    }

    fn visit_place_mut(&mut self, place: &mut Place) {
        if let Place::LocalCell(s) = *place {
            if self.0.contains(&s) {
                *place = Place::Local(s);
            }
        }
    }
}

impl Inliner<'_> {
    /// `f` with `body` (its inlined body) and its cells that nothing in `body` captures or
    /// addresses made plain locals (in the body and in the parameters' patterns).
    pub(super) fn without_unneeded_cells(&self, f: &Function, mut body: Vec<Stmt>) -> Function {
        if f.cell_slots.is_empty() {
            return Function { body, ..f.clone() };
        }
        let mut needed: HashSet<Slot> = self.captured_slots(&body).into_iter().collect();
        each_in_stmts(
            &body,
            &mut |e| {
                if let ExprKind::AddrOf {
                    place: Place::LocalCell(s),
                    ..
                } = e.kind
                {
                    needed.insert(s);
                }
            },
            &mut |_| {},
        );
        let demoted: HashSet<Slot> = f
            .cell_slots
            .iter()
            .copied()
            .filter(|s| !needed.contains(s))
            .collect();
        if demoted.is_empty() {
            return Function { body, ..f.clone() };
        }
        let mut demote = Demote(&demoted);
        walk_stmts_mut(&mut demote, &mut body);
        let params: Vec<Pattern> = f
            .params
            .iter()
            .cloned()
            .map(|mut p| {
                walk_pattern_mut(&mut demote, &mut p);
                p
            })
            .collect();
        Function {
            body,
            params,
            cell_slots: f
                .cell_slots
                .iter()
                .copied()
                .filter(|s| !demoted.contains(s))
                .collect(),
            ..f.clone()
        }
    }
}
