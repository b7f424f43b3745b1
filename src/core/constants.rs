//! The globals a unit declares by `val` with a constant (`val n = 200;`, `val pi = 3.14;`):
//! every value such a global ever holds is that constant, so code that reads it after the
//! declaration ran may use the constant instead (native code does, which lets loop limits,
//! array indices and their checks fold).

use std::collections::HashMap;

use crate::core::ir::{Const, ExprKind, Place, Slot, Stmt, Unit};
use crate::core::visit::{walk_stmt, Visit};
use crate::types::Type;

/// The `val` globals of `unit` whose every write, in its top level and in its functions, is
/// an assignment of one and the same integer or floating-point constant.
pub fn constant_globals(unit: &Unit) -> Vec<(Slot, Const)> {
    let mut writes = Writes::default();
    walk_all(&mut writes, &unit.body);
    for (_, f) in &unit.functions {
        walk_all(&mut writes, &f.body);
    }
    let mut found: Vec<(Slot, Const)> = unit
        .globals
        .iter()
        .filter(|def| !def.mutable)
        .filter_map(|def| {
            let (c, n_const) = writes.constant.get(&def.slot)?;
            let c = c.as_ref()?;
            (writes.all.get(&def.slot) == Some(n_const)).then(|| (def.slot, c.clone()))
        })
        .collect();
    found.sort_by_key(|(s, _)| *s);
    found
}

fn walk_all(writes: &mut Writes, stmts: &[Stmt]) {
    for s in stmts {
        writes.visit_stmt(s);
    }
}

/// Per global: how many writes of any kind, and the constant its constant assignments
/// agree on (`None` once two disagree) with their number.
#[derive(Default)]
struct Writes {
    all: HashMap<Slot, usize>,
    constant: HashMap<Slot, (Option<Const>, usize)>,
}

impl<'ir> Visit<'ir> for Writes {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        if let Stmt::Assign(Place::Global(g), e) = s {
            if let Some(c) = scalar_constant(&e.kind, &e.ty) {
                let entry = self.constant.entry(*g).or_insert((Some(c.clone()), 0));
                if !entry.0.as_ref().is_some_and(|known| same(known, &c)) {
                    entry.0 = None;
                }
                entry.1 += 1;
            }
        }
        walk_stmt(self, s)
    }

    fn visit_place(&mut self, place: Place) {
        if let Place::Global(g) = place {
            *self.all.entry(g).or_insert(0) += 1;
        }
    }
}

fn scalar_constant(kind: &ExprKind, ty: &Type) -> Option<Const> {
    match (kind, ty) {
        (ExprKind::Const(c @ Const::Int(_)), Type::Int(_)) => Some(c.clone()),
        (ExprKind::Const(c @ Const::Float(_)), Type::Double | Type::Float) => Some(c.clone()),
        _ => None,
    }
}

fn same(a: &Const, b: &Const) -> bool {
    match (a, b) {
        (Const::Int(x), Const::Int(y)) => x == y,
        (Const::Float(x), Const::Float(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constants(src: &str) -> Vec<(String, String)> {
        let unit = crate::core::tests::checked_unit(src);
        let name = |slot: Slot| crate::core::tests::global_name(&unit, slot);
        constant_globals(&unit)
            .into_iter()
            .map(|(slot, c)| (name(slot), format!("{c:?}")))
            .collect()
    }

    #[test]
    fn vals_of_constants_are_found() {
        let found = constants(
            "val n = 200; val pi = 3.5; val m = n * 2; var k = 7; val s = \"x\";\n\
             val big = 5000000000L; println$ n + m + k; println$ pi; println$ s; println$ big;",
        );
        assert_eq!(
            found,
            [
                ("n".to_string(), "Int(200)".to_string()),
                ("pi".to_string(), "Float(3.5)".to_string()),
                ("big".to_string(), "Int(5000000000)".to_string()),
            ]
        );
    }

    #[test]
    fn a_val_in_a_loop_is_the_same_constant_each_time() {
        let found = constants("for i in 0 ..< 3 do val c = 4; println$ c + i; done");
        assert_eq!(found, [("c".to_string(), "Int(4)".to_string())]);
    }

    #[test]
    fn vars_and_computed_vals_are_not_constants() {
        let found = constants(
            "var a = 1; a = 1; val b = a; val c = a + 1;\n\
             println$ a + b + c;",
        );
        assert_eq!(found, []);
    }
}
