//! Calls of a nested function by its own name. A function nested in another reaches itself
//! through a cell of the enclosing frame that holds its closure (`lc3 = f178` in the enclosing
//! function, `cc3 (row + 1)` in f178): a call of a function value. When every closure that
//! cell can hold is this very function over this same frame, the call is of the running
//! closure itself, and it is rewritten to a `Closure` of the function over its own captures
//! (`Outer(0) … Outer(n - 1)`). The self-tail-call pass (`core::tailcall`) then makes a tail
//! call a jump, so nested accumulator recursion runs in constant stack as in Felix, and both
//! back ends call the function directly otherwise.
//!
//! Architecture invariant: a pure rewrite of a unit's functions before any other pass; a cell
//! any code could write otherwise (an assignment of another value, a write through a captured
//! cell, a pointer to it) keeps its calls as they are.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::core::ir::{Capture, Expr, ExprKind, FunId, Function, Place, Slot, Stmt};
use crate::core::visit::{walk_expr, walk_expr_mut, walk_stmt, Visit, VisitMut};
use crate::types::ty::Type;

/// `functions` (one unit's) with each call of a nested function by its own name made a
/// direct call of itself where that is what the call does.
pub fn direct_self_calls(functions: &mut [(FunId, Arc<Function>)]) {
    let by_id: HashMap<FunId, &Function> = functions.iter().map(|(id, f)| (*id, &**f)).collect();
    // The functions whose frames make each function's closures (the frames its captures
    // name).
    let mut creators: HashMap<FunId, Vec<FunId>> = HashMap::new();
    for (id, f) in functions.iter() {
        crate::core::visit::each_in_stmts(
            &f.body,
            &mut |e| {
                if let ExprKind::MakeFun { fun, .. } = e.kind {
                    creators.entry(fun).or_default().push(*id);
                }
            },
            &mut |_| {},
        );
    }
    // Cells that code other than their defining assignment may write: through a captured
    // cell (a cell of each frame that makes the closure), or through a pointer to a cell.
    let mut writes = Writes::default();
    for (id, f) in functions.iter() {
        writes.function = Some(f);
        writes.creators = creators.get(id).map(Vec::as_slice).unwrap_or_default();
        for s in &f.body {
            writes.visit_stmt(s);
        }
    }
    // For each function, the capture that holds its own closure over the same frame.
    let mut own_capture: HashMap<FunId, Option<u32>> = HashMap::new();
    for (enclosing_id, enclosing) in functions.iter() {
        let mut assigns = CellAssigns::default();
        for s in &enclosing.body {
            assigns.visit_stmt(s);
        }
        for (cell, made) in assigns.made {
            let Some((fun, type_args)) = made else {
                continue;
            };
            let Some(f) = by_id.get(&fun) else {
                continue;
            };
            let own_args: Vec<Type> = f.type_params.iter().cloned().map(Type::Var).collect();
            let k = f.captures.iter().position(|c| *c == Capture::Cell(cell));
            let found = match k {
                Some(k)
                    if type_args == own_args
                        && !writes.any_outer
                        && !writes.cells.contains(&(*enclosing_id, cell))
                        && !assigns.addressed.contains(&cell) =>
                {
                    Some(k as u32)
                }
                _ => None,
            };
            // Made over two different cells (or once unusably): left alone.
            own_capture
                .entry(fun)
                .and_modify(|known| {
                    if *known != found {
                        *known = None;
                    }
                })
                .or_insert(found);
        }
    }
    for (id, f) in functions.iter_mut() {
        let Some(Some(k)) = own_capture.get(id).copied() else {
            continue;
        };
        let mut rewrite = Rewrite {
            capture: k,
            closure: ExprKind::Closure {
                fun: *id,
                type_args: f.type_params.iter().cloned().map(Type::Var).collect(),
                captures: (0..f.captures.len() as u32).map(Capture::Outer).collect(),
            },
            found: false,
        };
        let mut body = f.body.clone();
        for s in &mut body {
            rewrite.visit_stmt_mut(s);
        }
        if rewrite.found {
            *f = Arc::new(Function {
                body,
                ..(**f).clone()
            });
        }
    }
}

/// Whether `func`, called in function `id` (whose type parameters `own_args` name), calls the
/// running function itself: its own name (`MakeFun`), or its closure over its own captures
/// (made by `direct_self_calls`).
pub fn is_self(func: &Expr, id: FunId, own_args: &[Type]) -> bool {
    match &func.kind {
        ExprKind::MakeFun { fun, type_args } => *fun == id && type_args == own_args,
        ExprKind::Closure {
            fun,
            type_args,
            captures,
        } => {
            *fun == id
                && type_args == own_args
                && captures
                    .iter()
                    .enumerate()
                    .all(|(i, c)| *c == Capture::Outer(i as u32))
        }
        _ => false,
    }
}

/// The cells written through captures or pointers.
#[derive(Default)]
struct Writes<'f> {
    function: Option<&'f Function>,
    /// The functions whose frames make closures of `function`.
    creators: &'f [FunId],
    /// The cells (the function whose frame holds each, and its slot) written through a
    /// capture of a closure that shares them.
    cells: HashSet<(FunId, Slot)>,
    /// A captured cell written that an outer closure passed on (`Outer`), or of a closure
    /// made nowhere in sight: which frame's cell is not followed, so no cell is trusted.
    any_outer: bool,
}

impl Writes<'_> {
    fn captured(&mut self, i: u32) {
        match self.function.and_then(|f| f.captures.get(i as usize)) {
            Some(Capture::Cell(slot)) if !self.creators.is_empty() => {
                for creator in self.creators {
                    self.cells.insert((*creator, *slot));
                }
            }
            _ => self.any_outer = true,
        }
    }
}

impl<'ir> Visit<'ir> for Writes<'_> {
    fn visit_place(&mut self, place: Place) {
        if let Place::CaptureCell(i) = place {
            self.captured(i);
        }
    }

    fn visit_expr(&mut self, e: &'ir Expr) {
        if let ExprKind::AddrOf {
            place: Place::CaptureCell(i),
            ..
        } = e.kind
        {
            self.captured(i);
        }
        walk_expr(self, e);
    }
}

/// What one function assigns to its cells: for each cell, the one function value every
/// assignment makes (`None` when they differ or one is something else), and the cells a
/// pointer is taken of.
#[derive(Default)]
struct CellAssigns {
    made: HashMap<Slot, Option<(FunId, Vec<Type>)>>,
    addressed: HashSet<Slot>,
}

impl<'ir> Visit<'ir> for CellAssigns {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        if let Stmt::Assign(Place::LocalCell(cell), e) = s {
            let value = match &e.kind {
                ExprKind::MakeFun { fun, type_args } => Some((*fun, type_args.clone())),
                _ => None,
            };
            self.made
                .entry(*cell)
                .and_modify(|known| {
                    if *known != value {
                        *known = None;
                    }
                })
                .or_insert(value);
            return self.visit_expr(e);
        }
        walk_stmt(self, s);
    }

    fn visit_place(&mut self, place: Place) {
        // Any other write of a cell (a store into it, a pattern binding it).
        if let Place::LocalCell(cell) = place {
            self.made.insert(cell, None);
        }
    }

    fn visit_expr(&mut self, e: &'ir Expr) {
        if let ExprKind::AddrOf {
            place: Place::LocalCell(cell),
            ..
        } = e.kind
        {
            self.addressed.insert(cell);
        }
        walk_expr(self, e);
    }
}

/// Calls of capture `capture`'s function value made calls of `closure`.
struct Rewrite {
    capture: u32,
    closure: ExprKind,
    found: bool,
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let ExprKind::Call { func, .. } = &mut e.kind {
            if matches!(func.kind, ExprKind::CaptureCell(i) if i == self.capture) {
                func.kind = self.closure.clone();
                self.found = true;
            }
        }
        walk_expr_mut(self, e);
    }
}

#[cfg(test)]
mod tests {
    use crate::core::tests::checked_ir as checked;

    #[test]
    fn a_nested_function_calls_itself_directly_and_a_tail_call_is_a_jump() {
        let ir = checked(
            "fun outer (n: int) : int = {\n\
               fun down (k: int) : int => if k == 0 then n else 1 + down (k - 1);\n\
               fun go (k: int, acc: int) : int => if k == 0 then acc else go (k - 1, acc + n);\n\
               return down 3 + go (3, 0);\n\
             }\n",
        );
        // `down` over its own captures, no read of the cell holding it.
        assert!(ir.contains("IntArith(Add, Int)(1, f1{c0, c1}("), "{ir}");
        assert!(!ir.contains("cc1("), "{ir}");
        // `go` loops.
        assert!(ir.contains("loop L0"), "{ir}");
    }

    #[test]
    fn mutually_recursive_nested_functions_call_through_their_cells() {
        let ir = checked(
            "fun parity (n: int) : bool = {\n\
               fun even (k: int) : bool => if k == 0 then true else odd (k - 1);\n\
               fun odd (k: int) : bool => if k == 0 then false else even (k - 1);\n\
               return even n;\n\
             }\n",
        );
        assert!(ir.contains("cc0(IntArith(Sub, Int)(l0, 1))"), "{ir}");
        assert!(!ir.contains("{c0}("), "{ir}");
    }
}
