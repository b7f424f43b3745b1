//! Local pointers to components, substituted: `val p = bs.i;` (an element through a pointer
//! parameter, or `&ps.(i)`, `&m.(i \, j).x`) followed by `p.x <- p*.x + dt * p*.vx` reads and
//! stores the component itself, as if the user had written `bs.i.x` (`&ps.(i).x <- ...`).
//!
//! A local assigned the address of a component of a variable, or a projection of a pointer
//! variable, whose indices are constants or locals, is the same pointer wherever it is read
//! until one of them is assigned again (a pointer designates the variable, not its value).
//! So when the statements after the assignment, in its own list, read the local everywhere
//! it is read in the code being rewritten, assign neither it nor the index locals nor the
//! pointer variable, and capture none of them, its reads there are replaced by the address,
//! and the assignment by what taking the address checks: each linear index against its
//! array (R0001, by a read of the element, as `fixed_address` does for an argument).
//! Dereferences and projections of the address then fold into the component
//! (`through_address`), which the back ends read and store in place.

use std::collections::HashMap;

use crate::core::ir::{Expr, ExprKind, IndexMode, PathStep, Place, Slot, Stmt};
use crate::core::visit::each_in_stmts;
use crate::types::Type;

use super::{through_address, Inliner};

impl Inliner<'_> {
    /// Count the reads (and captures, `captured`) of each local slot in `code`, which is
    /// about to be rewritten.
    pub(super) fn count_reads<'s>(&mut self, code: impl IntoIterator<Item = &'s Stmt>) {
        for s in code {
            let (reads, captured) = self.slot_uses(std::slice::from_ref(s));
            for (slot, n) in reads {
                *self.reads.entry(slot).or_insert(0) += n;
            }
            self.captured.extend(captured);
        }
    }

    /// The reads of each local slot in `stmts`, and the slots they capture.
    fn slot_uses(&self, stmts: &[Stmt]) -> (HashMap<Slot, usize>, Vec<Slot>) {
        let mut reads = HashMap::new();
        each_in_stmts(
            stmts,
            &mut |e| {
                if let ExprKind::Local(s) | ExprKind::Take(s) = e.kind {
                    *reads.entry(s).or_insert(0) += 1;
                }
            },
            &mut |_| {},
        );
        let captured = self.captured_slots(stmts);
        (reads, captured)
    }

    /// When the statement `s` (rewritten) assigns a local an address that the statements
    /// `rest` after it may read in its place (see the module's comment): the local, the
    /// address, and the statements that check what taking it checks.
    pub(super) fn address_val(&self, s: &Stmt, rest: &[Stmt]) -> Option<(Slot, Expr, Vec<Stmt>)> {
        let Stmt::Assign(Place::Local(slot), address) = s else {
            return None;
        };
        if !matches!(address.ty, Type::Ptr(..)) {
            return None;
        }
        let path = match &address.kind {
            ExprKind::AddrOf { path, .. } => path,
            ExprKind::PtrProject { pointer, path }
                if matches!(pointer.kind, ExprKind::Local(_)) =>
            {
                path
            }
            _ => return None,
        };
        // The locals the address is made of, which `rest` must not assign.
        let mut fixed = vec![*slot];
        if let ExprKind::PtrProject { pointer, .. } = &address.kind {
            if let ExprKind::Local(p) = pointer.kind {
                fixed.push(p);
            }
        }
        for step in path {
            if let PathStep::Index(index, _) = step {
                match index.kind {
                    ExprKind::Const(_) => {}
                    ExprKind::Local(i) => fixed.push(i),
                    _ => return None,
                }
            }
        }
        let assigned = super::written_slots(rest);
        let (reads, captured) = self.slot_uses(rest);
        if fixed
            .iter()
            .any(|s| assigned.contains(s) || captured.contains(s))
            || self.captured.contains(slot)
            || reads.get(slot).copied().unwrap_or(0) != self.reads.get(slot).copied().unwrap_or(0)
        {
            return None;
        }
        let checks = linear_checks(address, path)?;
        Some((*slot, address.clone(), checks))
    }
}

/// A read of the element at each linear index of `path` (the path of `address`), in order:
/// the checks taking the address makes. `None` when a step's type is not known.
fn linear_checks(address: &Expr, path: &[PathStep]) -> Option<Vec<Stmt>> {
    let mut at = match &address.kind {
        ExprKind::AddrOf { root_ty, .. } => root_ty.clone(),
        ExprKind::PtrProject { pointer, .. } => pointer.ty.pointee()?.1.clone(),
        _ => return None,
    };
    let mut checks = Vec::new();
    for (k, step) in path.iter().enumerate() {
        at = match (step, &at) {
            (PathStep::Index(..), Type::Array(elem, _)) => (**elem).clone(),
            (PathStep::Field(i), container) => container.field_type(*i as usize)?,
            _ => return None,
        };
        if matches!(step, PathStep::Index(_, IndexMode::Linear)) {
            let prefix = with_path(address, &path[..=k], &at);
            checks.push(Stmt::Expr(through_address(Expr {
                kind: ExprKind::Deref(Box::new(prefix)),
                ty: at.clone(),
                span: address.span,
            })));
        }
    }
    Some(checks)
}

/// `address` with only the steps `path` (a prefix of its own), pointing at a `ty`.
fn with_path(address: &Expr, path: &[PathStep], ty: &Type) -> Expr {
    let kind = match &address.kind {
        ExprKind::AddrOf { place, root_ty, .. } => ExprKind::AddrOf {
            place: *place,
            root_ty: root_ty.clone(),
            path: path.to_vec(),
        },
        ExprKind::PtrProject { pointer, .. } => ExprKind::PtrProject {
            pointer: pointer.clone(),
            path: path.to_vec(),
        },
        other => other.clone(),
    };
    let (mode, _) = address.ty.pointee().expect("an address");
    Expr {
        kind,
        ty: Type::ptr(mode, ty.clone()),
        span: address.span,
    }
}
