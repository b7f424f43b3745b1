//! Definite return: whether a function body's statements can end without `return` (fall off
//! the end). A function with a result that can do so is a static error (E0304), as in Felix:
//! the evaluator would otherwise have no value to give back.
//!
//! The analysis is the usual conservative one over the IR's structured statements: a
//! statement completes normally unless it is a `return`, `break` or `continue`, a loop that can
//! only be left by `return` (`while true` or `repeat` with no `break` to it), an `if` both of
//! whose branches do not complete, or a `match` none of whose arms completes. Conditions are
//! not evaluated, except the literal `true` (and `false` for `until`) of an endless loop.

use std::collections::HashSet;

use crate::core::ir::{Const, Expr, ExprKind, LabelId, Stmt};

/// Whether `stmts` can run to their end (the function then falls off its end).
pub(crate) fn can_complete(stmts: &[Stmt]) -> bool {
    let mut broken = HashSet::new();
    block(stmts, &mut broken)
}

fn block(stmts: &[Stmt], broken: &mut HashSet<LabelId>) -> bool {
    // Statements after one that cannot complete are unreachable; their breaks still count
    // nowhere, so stop there.
    stmts.iter().all(|s| stmt(s, broken))
}

fn is_true(e: &Expr, value: bool) -> bool {
    matches!(e.kind, ExprKind::Const(Const::Int(v)) if e.ty.is_bool() && (v != 0) == value)
}

fn stmt(s: &Stmt, broken: &mut HashSet<LabelId>) -> bool {
    match s {
        Stmt::Expr(_) | Stmt::Assign(..) | Stmt::Store { .. } | Stmt::StoreAt { .. } => true,
        Stmt::Return(_) | Stmt::Continue(_) => false,
        Stmt::Break(label) => {
            broken.insert(*label);
            false
        }
        Stmt::If(_, then, els) => {
            // Both branches are visited so that every `break` in them is recorded.
            let a = block(then, broken);
            let b = block(els, broken);
            a || b
        }
        Stmt::While {
            label,
            cond,
            until,
            body,
        } => {
            block(body, broken);
            !is_true(cond, !until) || broken.contains(label)
        }
        Stmt::Loop { label, body } => {
            block(body, broken);
            broken.contains(label)
        }
        Stmt::ForRange { body, .. } | Stmt::ForCodes { body, .. } | Stmt::ForArray { body, .. } => {
            block(body, broken);
            true
        }
        Stmt::Match(_, arms) => {
            let mut any = false;
            for arm in arms {
                any |= block(&arm.body, broken);
            }
            any
        }
        Stmt::Block(stmts) | Stmt::Specialise { body: stmts, .. } => block(stmts, broken),
    }
}
