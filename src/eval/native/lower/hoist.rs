//! Array views fetched once before a loop, or a run of statements, instead of at every
//! element access.
//!
//! A loop is *closed* when nothing in it can replace, share or reallocate an array's storage:
//! it assigns only register variables and scalar globals, stores only into elements, calls
//! nothing, and has no fallback piece (every expression is one lowering compiles natively).
//! Inside a closed loop the storage of each array it uses stays where it is, so its view (the
//! leaves' address and count) is fetched before the loop, made unshared first when the loop
//! stores into it. A pointer variable's view is the view of the array it points at, or of
//! the leaves of the struct, tuple or scalar it points at (`pointee.rs`). A
//! `return` of closed values (`return Some i`) may leave a closed loop. A closed loop may push
//! onto a varray variable, in place (`pushes.rs`), when nothing else in it reaches that varray.
//!
//! Straight-line code is treated the same way: a run of closed statements outside any
//! closed loop (the ifs, stores and loops of a function body between two calls) is a
//! *region*, whose views are fetched once before its first statement (`region`). A quicksort
//! step through a pointer parameter fetches its array's view once, not at each of its reads
//! and stores and again before each of its loops.
//!
//! A view kept for the loop has the count its array's type gives (a view with another count,
//! as the empty one of a variable that holds no array yet, is given up: null; a pointer's
//! has at least that count, the leaves after its target in the array it points into, as the
//! rest of a matrix after a row, being none of its own). So inside the
//! loop an access whose indices were checked against their index types (`leaf_position`;
//! a compact index cannot be outside its type) is inside the view, and checks nothing more;
//! an access through a given-up view fetches its own and checks the position against it.
//!
//! The globals a closed loop reads that are scalars, tuples, records or structs of scalars,
//! or small arrays of them (a top-level loop's counters and accumulators, its `for p in pts`
//! variable) are held in registers while it runs: loaded before it, and read from there. A
//! scalar is also written to its slot at each assignment (`promoted_write`), so its slot is
//! right wherever control leaves the loops and nothing has to carry it to the loop's end or
//! to the unwind of each check: a value carried that way through nested loops is live at
//! every check and across every call, and Cranelift keeps it on the stack, reloading the
//! innermost loop's own counters. In a loop with no loop inside, the scalars it assigns
//! (that hold a value where it starts) are written back where it is left instead
//! (`sink_assignments`): at its end, a `break` or `continue` of a loop around it, each check
//! that fails (`raise`), a piece of the closure compiler. Tuples, records and structs are
//! written back after the loop and on every error leaving it. A small array the loop also reads
//! through a view (at a variable position), or loops over, stays in memory, and a loop that
//! assigns such an array is not closed. Nothing else reads a global meanwhile (the loop calls nothing; a
//! parallel loop inside it gets them written back first, `store_promoted`), so top-level
//! code runs like code in a function. A global that may not hold a value yet (a loop's
//! counter, a variable declared in the loop) is checked where it is read (R0011): a scalar
//! by its slot's tag, which its first assignment writes; an aggregate by a flag in a
//! register, which an assignment sets (and one whose flag is still clear is not written
//! back). A loop's counter holds a value in the loop's own body,
//! where its reads check nothing (`note_defined_in_loop`), as does a global assigned earlier
//! in the block. The globals of a loop left by a `return` or a jump past its end stay in
//! memory.

use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place, Stmt};
use crate::eval::native::Repr;

use super::super::runtime::Site;
use super::element::ElementPath;
use super::{args, flags, Lower, Views};
use crate::syntax::span::Span;

/// The number of columns of the array a variable holds (or a pointer variable points at)
/// when it is an array of tuples of scalars stored as columns.
pub(super) fn columns_of(base: &Expr) -> Option<usize> {
    let ty = base.ty.pointee().map_or(&base.ty, |(_, t)| t);
    match crate::eval::array::Shape::of(ty)?.repr {
        crate::eval::value::LeafRepr::Columns(layout) => Some(layout.kinds.len()),
        _ => None,
    }
}

/// The variable an element path starts at (for a path through a pointer, the pointer's), as a
/// place: `None` for a captured value, which no code can replace.
pub(super) fn base_place(base: &Expr) -> Option<Place> {
    match base.kind {
        ExprKind::Local(s) => Some(Place::Local(s)),
        ExprKind::Global(s) => Some(Place::Global(s)),
        ExprKind::LocalCell(s) => Some(Place::LocalCell(s)),
        ExprKind::CaptureCell(i) => Some(Place::CaptureCell(i)),
        _ => None,
    }
}

/// The places `stmts` assign, bind or move out of (`take`).
pub(super) fn assigned_places(stmts: &[Stmt]) -> std::collections::HashSet<Place> {
    let assigned = std::cell::RefCell::new(std::collections::HashSet::new());
    crate::core::visit::each_in_stmts(
        stmts,
        &mut |e| {
            if let ExprKind::Take(s) = e.kind {
                assigned.borrow_mut().insert(Place::Local(s));
            }
        },
        &mut |p| {
            assigned.borrow_mut().insert(p);
        },
    );
    assigned.into_inner()
}

/// A global held in registers for a closed loop: a scalar (one leaf) or a tuple, record or
/// struct of scalars (its leaves, `agg`), each leaf's variable and representation, and when
/// it may hold no value yet, its flag.
#[derive(Clone)]
pub(super) struct Promoted {
    leaves: Vec<(cranelift_frontend::Variable, Repr)>,
    agg: Option<crate::eval::native::Agg>,
    flag: Option<Flag>,
    /// Does the loop assign it? (One it only reads is not written back.)
    assigned: bool,
}

impl Promoted {
    /// Is it one scalar in a register?
    pub(super) fn plain(&self) -> bool {
        self.agg.is_none() && self.leaves.len() == 1
    }

    /// Is it a tuple, record or struct (its leaves in registers)?
    pub(super) fn aggregate(&self) -> bool {
        self.agg.is_some()
    }

    /// Does it have a flag (it may hold no value yet where the loop starts)?
    pub(super) fn flagged(&self) -> bool {
        self.flag.is_some()
    }
}

/// Is a global of type `ty` held in registers by a closed loop that uses it: a scalar, a
/// tuple, record or struct of scalars, or a small array of scalars (unless the loop also
/// reads it through a view, `promote_globals`)?
pub(super) fn promotable(ty: &crate::types::Type) -> bool {
    match Repr::of(ty) {
        Some(r) => r == Repr::I64 || r == Repr::F64,
        None => crate::eval::native::Agg::of(ty).is_some(),
    }
}

/// Do the closed statements `stmts` assign a global of `in_memory`, those they also read in
/// memory (`globals_in_memory`)? Such a global, a small array, would be held in registers
/// for a loop, and its storage replaced in straight-line code, where its view is kept.
fn reads_assigned_global(stmts: &[Stmt], in_memory: &[u32]) -> bool {
    // The globals given a whole new value (not those only stored into, in place).
    struct Assigned(std::collections::HashSet<u32>);
    impl<'ir> crate::core::visit::Visit<'ir> for Assigned {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match s {
                Stmt::Assign(Place::Global(g), _)
                | Stmt::ForArray {
                    var: Place::Global(g),
                    ..
                } => {
                    self.0.insert(*g);
                }
                Stmt::Store {
                    place: Place::Global(g),
                    path,
                    ..
                } if path.is_empty() => {
                    self.0.insert(*g);
                }
                _ => {}
            }
            crate::core::visit::walk_stmt(self, s);
        }
    }
    let mut assigned = Assigned(std::collections::HashSet::new());
    for s in stmts {
        crate::core::visit::Visit::visit_stmt(&mut assigned, s);
    }
    in_memory.iter().any(|g| assigned.0.contains(g))
}

/// The globals the closed statements `stmts` read in memory: those whose views they use
/// (`arrays`), and the arrays they loop over (read from their slots).
fn globals_in_memory(stmts: &[Stmt], arrays: &HashMap<Place, (Expr, bool)>) -> Vec<u32> {
    let mut globals: Vec<u32> = arrays
        .keys()
        .filter_map(|p| match p {
            Place::Global(g) => Some(*g),
            _ => None,
        })
        .collect();
    struct Iterated<'g>(&'g mut Vec<u32>);
    impl<'ir> crate::core::visit::Visit<'ir> for Iterated<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let Stmt::ForArray { array, .. } = s {
                if let ExprKind::Global(g) = array.kind {
                    self.0.push(g);
                }
            }
            crate::core::visit::walk_stmt(self, s);
        }
    }
    let mut iterated = Iterated(&mut globals);
    for s in stmts {
        crate::core::visit::Visit::visit_stmt(&mut iterated, s);
    }
    globals
}

/// Whether a promoted global holds a value: the variable, the constant 1 made before the
/// loop that every assignment gives it (so a loop counter, assigned before the loop's first
/// test, has a flag Cranelift knows is set, and its reads check nothing), and the global's
/// declaration (for R0011).
#[derive(Clone)]
struct Flag {
    /// `None` for a scalar, whose slot's tag says it (its slot is written at every assignment).
    var: Option<cranelift_frontend::Variable>,
    set: ClValue,
    def: std::sync::Arc<crate::core::ir::GlobalDef>,
}

/// What `Lower::hoist` set up for a closed loop, undone after it by `Lower::unhoist`.
pub(super) struct Hoisted {
    /// The views in force before the loop, and the places known to have one.
    views: HashMap<Place, Views>,
    viewed: std::collections::HashSet<Place>,
    closed: bool,
    /// Where the loop's two versions meet (`version`).
    after: Option<cranelift_codegen::ir::Block>,
    /// The globals held in registers for the loop.
    promoted: Vec<u32>,
    /// The unwind block in force before the loop.
    unwind: cranelift_codegen::ir::Block,
    /// The varrays pushed onto in place in the loop.
    pushing: Option<super::pushes::Pushing>,
    /// The promoted scalars the loop writes back where control leaves it
    /// (`sink_assignments`), and the unwind block in force before it did.
    sunk: Option<(Vec<u32>, cranelift_codegen::ir::Block)>,
}

/// Does control leave the loop `stmt` only at its end (or by an error)? No `return`, no
/// `break` or `continue` of a loop around it. Inlined bodies (inside expressions) return
/// within themselves.
fn leaves_only_at_its_end(stmt: &Stmt) -> bool {
    let body = std::slice::from_ref(stmt);
    !crate::core::visit::jumps_out(body) && !crate::core::inline::has_return(body)
}

/// What an element access does at a position outside its array's view.
#[derive(Clone, Copy)]
pub(super) enum Outside {
    /// A read: R0001.
    Raise,
    /// A store: nothing, going on at this block.
    Skip(cranelift_codegen::ir::Block),
}

/// The number of leaves (columns: rows) of the array a variable of `base`'s type holds (or a
/// pointer variable's points at), when its type fixes it.
fn static_count(base: &Expr) -> Option<usize> {
    let ty = base.ty.pointee().map_or(&base.ty, |(_, t)| t);
    match ty {
        crate::types::Type::Array(..) => crate::eval::value::leaf_count(ty),
        _ => None,
    }
}

impl Lower<'_, '_, '_> {
    /// Before lowering the loop `stmt`: when it is closed, fetch the views of the arrays it
    /// uses and hold the scalar globals it reads in registers (the helpers called once for
    /// these keep the registers). Returns what to undo after the loop (`unhoist`).
    pub(super) fn hoist(&mut self, stmt: &Stmt) -> Hoisted {
        let hoisted = self.saved();
        let mut arrays: HashMap<Place, (Expr, bool)> = HashMap::new();
        let stmts = std::slice::from_ref(stmt);
        let closed = self.closed_stmt(stmt, &mut arrays);
        let in_memory = globals_in_memory(stmts, &arrays);
        if !closed
            || reads_assigned_global(stmts, &in_memory)
            || !self.pushes_in_place(stmts)
            || !self.leaf_views_kept(stmts, &arrays)
        {
            self.pin_invariants(stmt);
            return hoisted;
        }
        let nullable = self.keeping_registers(|l| l.fetch_views(arrays));
        let after = self.version(stmt, &nullable);
        self.closed = true;
        let promoted = self.keeping_registers(|l| l.promote_globals(stmt, &in_memory));
        let pushing = self.keeping_registers(|l| l.fetch_pushes(stmts));
        let sunk = self.sink_assignments(stmt);
        self.pin_invariants(stmt);
        Hoisted {
            promoted,
            after,
            pushing,
            sunk,
            ..hoisted
        }
    }

    /// The views, flags and unwind block in force now, for `unhoist` to restore.
    fn saved(&self) -> Hoisted {
        Hoisted {
            views: self.views.clone(),
            viewed: self.viewed.clone(),
            closed: self.closed,
            after: None,
            promoted: Vec::new(),
            unwind: self.unwind,
            pushing: None,
            sunk: None,
        }
    }

    /// In a loop with no loop inside it, the promoted scalars it assigns that hold a value
    /// where it starts are written back where control leaves it (its end, a `break` or
    /// `continue` of a loop around it, an error, a piece of the closure compiler) rather
    /// than at each assignment: an accumulator stays in its register. A loop with loops
    /// inside does not: what it carried for its end would be live, in registers or on the
    /// stack, through all of them. The globals and the unwind block in force before.
    fn sink_assignments(
        &mut self,
        stmt: &Stmt,
    ) -> Option<(Vec<u32>, cranelift_codegen::ir::Block)> {
        if crate::core::visit::count_loops(std::slice::from_ref(stmt)) != 1 {
            return None;
        }
        let assigned = assigned_places(std::slice::from_ref(stmt));
        let mut sunk: Vec<u32> = self
            .promoted
            .iter()
            .filter(|(g, p)| {
                p.plain()
                    && assigned.contains(&Place::Global(**g))
                    && (p.flag.is_none() || self.c.known_defined(**g))
                    && !self.sunk.contains(g)
            })
            .map(|(g, _)| *g)
            .collect();
        if sunk.is_empty() {
            return None;
        }
        sunk.sort_unstable();
        self.sunk.extend(&sunk);
        let outer = self.unwind;
        let list = sunk.clone();
        self.unwind = self.side_block(|l| {
            l.store_sunk(&list);
            l.b.ins().jump(outer, &[]);
        });
        self.sunk_unwind = Some((self.unwind, outer));
        Some((sunk, outer))
    }

    /// Write the sunk scalars `globals` (which hold a value: only the payload) to their slots.
    pub(super) fn store_sunk(&mut self, globals: &[u32]) {
        for g in globals {
            let promoted = self.promoted[g].clone();
            if let super::V::I(x) | super::V::F(x) = self.promoted_value(&promoted) {
                let addr = self.global_addr(*g);
                self.b
                    .ins()
                    .store(flags(), x, addr, crate::eval::native::layout::PAYLOAD);
            }
        }
    }

    /// Lower the statements at the start of `stmts` that are closed (as a loop's body is) as
    /// one region, when they use arrays whose views are not kept yet: the views are fetched
    /// once before the first of them (and the region runs in two versions, as a loop does),
    /// instead of at every access, or before every loop. Returns how many statements it
    /// lowered: 0 when there is no such region (or it is one loop, which does this itself).
    pub(super) fn region(&mut self, stmts: &[Stmt]) -> usize {
        if self.closed {
            return 0;
        }
        let mut uses = Vec::new();
        for s in stmts {
            let mut used = HashMap::new();
            if !self.closed_stmt(s, &mut used) {
                break;
            }
            uses.push(used);
        }
        // A run whose pushes cannot be made in place ends before its first push.
        let mut n = uses.len();
        if !self.pushes_in_place(&stmts[..n]) {
            n = stmts[..n]
                .iter()
                .take_while(|s| !super::pushes::pushes(s))
                .count();
        }
        let merged = |n: usize| {
            let mut arrays: HashMap<Place, (Expr, bool)> = HashMap::new();
            for (place, (base, write)) in uses.iter().take(n).flatten() {
                arrays
                    .entry(*place)
                    .and_modify(|(_, w)| *w |= *write)
                    .or_insert((base.clone(), *write));
            }
            arrays
        };
        // A run whose views of pointers' objects cannot be kept ends before its first use
        // of one.
        if !self.leaf_views_kept(&stmts[..n], &merged(n)) {
            n = uses[..n]
                .iter()
                .take_while(|used| {
                    used.values()
                        .all(|(base, _)| super::pointee::viewed_object(base).is_none())
                })
                .count();
        }
        // A run that assigns a global it also reads in memory ends before the statement
        // that makes it so.
        while n > 0
            && reads_assigned_global(&stmts[..n], &globals_in_memory(&stmts[..n], &merged(n)))
        {
            n -= 1;
        }
        let arrays = merged(n);
        let fetched = |(place, (_, write)): (&Place, &(Expr, bool))| {
            self.views
                .get(place)
                .is_some_and(|(_, _, mutable)| *mutable || !write)
        };
        if n == 0 || (n == 1 && stmts[0].loop_label().is_some()) || arrays.iter().all(fetched) {
            return 0;
        }
        let hoisted = self.saved();
        let nullable = self.fetch_views(arrays);
        let run = Stmt::Block(stmts[..n].to_vec());
        let after = self.version(&run, &nullable);
        self.closed = true;
        let pushing = self.fetch_pushes(&stmts[..n]);
        for s in &stmts[..n] {
            self.ensure_open();
            self.stmt(s);
        }
        self.unhoist(Hoisted {
            after,
            pushing,
            ..hoisted
        });
        n
    }

    /// Run the closed loop `stmt`, whose views of the arrays at `nullable` may be null (a
    /// variable holding no array yet, a pointer whose target native code cannot see), in
    /// two versions: when one of them is, the whole loop on the closure compiler (a cold
    /// path), else the loop lowered next, whose accesses through these views test nothing.
    /// The block where both continue, for `unhoist`; `None` when there is one version.
    fn version(&mut self, stmt: &Stmt, nullable: &[Place]) -> Option<cranelift_codegen::ir::Block> {
        // A global held in registers by an enclosing loop would be stale in its slot, and a
        // piece of the closure compiler cannot jump to a native loop around it.
        if nullable.is_empty() || !self.promoted.is_empty() || !leaves_only_at_its_end(stmt) {
            return None;
        }
        let mut any_null = None;
        for place in nullable {
            let data = self.views[place].0[0];
            let null = self.b.ins().icmp_imm_s(IntCC::Equal, data, 0);
            any_null = Some(match any_null {
                Some(any) => self.b.ins().bor(any, null),
                None => null,
            });
        }
        let (slow, fast, after) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.set_cold_block(slow);
        let any_null = any_null.expect("a nullable view");
        self.b.ins().brif(any_null, slow, &[], fast, &[]);
        self.b.seal_block(slow);
        self.b.seal_block(fast);
        self.b.switch_to_block(slow);
        let views = std::mem::take(&mut self.views);
        self.fallback_stmt(stmt, "", crate::syntax::span::Span::default());
        self.views = views;
        if !self.filled() {
            self.b.ins().jump(after, &[]);
        }
        self.b.switch_to_block(fast);
        self.viewed.extend(nullable.iter().copied());
        Some(after)
    }

    /// After the loop `hoist` prepared, in the block that follows it: the promoted globals
    /// written back, the views and the unwind block in force before restored, the loop's
    /// versions joined.
    pub(super) fn unhoist(&mut self, hoisted: Hoisted) {
        self.end_pushes(hoisted.pushing);
        self.views = hoisted.views;
        self.viewed = hoisted.viewed;
        self.closed = hoisted.closed;
        if let Some((sunk, outer)) = hoisted.sunk {
            self.keeping_registers(|l| l.store_sunk(&sunk));
            let side = self.unwind;
            self.b.seal_block(side);
            self.unwind = outer;
            self.sunk_unwind = None;
            for g in &sunk {
                self.sunk.remove(g);
            }
        }
        if !hoisted.promoted.is_empty() {
            self.keeping_registers(|l| l.store_promoted(&hoisted.promoted));
            let side = self.unwind;
            self.b.seal_block(side);
            self.unwind = hoisted.unwind;
            for g in &hoisted.promoted {
                self.promoted.remove(g);
            }
        }
        if let Some(after) = hoisted.after {
            if !self.filled() {
                self.b.ins().jump(after, &[]);
            }
            self.b.seal_block(after);
            self.b.switch_to_block(after);
        }
    }

    /// Hold the globals the closed loop `stmt` reads (`promotable`, and not `in_memory`) in
    /// registers (see the module's comment); the globals promoted.
    fn promote_globals(&mut self, stmt: &Stmt, in_memory: &[u32]) -> Vec<u32> {
        if !leaves_only_at_its_end(stmt) {
            return Vec::new();
        }
        // The variables of the loop and of the loops in it, which each loop assigns even
        // when its body does not read them.
        struct LoopVars(std::collections::BTreeMap<u32, crate::types::Type>);
        impl<'ir> crate::core::visit::Visit<'ir> for LoopVars {
            fn visit_stmt(&mut self, s: &'ir Stmt) {
                let var = match s {
                    Stmt::ForRange {
                        var: Place::Global(g),
                        var_ty,
                        ..
                    } => Some((*g, crate::types::Type::Int(*var_ty))),
                    Stmt::ForCodes {
                        var: Place::Global(g),
                        ty,
                        ..
                    } => Some((*g, ty.clone())),
                    Stmt::ForArray {
                        var: Place::Global(g),
                        array,
                        ..
                    } => match &array.ty {
                        crate::types::Type::Array(elem, _) => Some((*g, (**elem).clone())),
                        _ => None,
                    },
                    _ => None,
                };
                self.0.extend(var);
                crate::core::visit::walk_stmt(self, s);
            }
        }
        let mut vars = LoopVars(std::collections::BTreeMap::new());
        crate::core::visit::Visit::visit_stmt(&mut vars, stmt);
        let mut read = vars.0;
        crate::core::visit::each_in_stmts(
            std::slice::from_ref(stmt),
            &mut |e| {
                if let ExprKind::Global(g) = e.kind {
                    read.entry(g).or_insert_with(|| e.ty.clone());
                }
            },
            &mut |_| {},
        );
        let assigned = assigned_places(std::slice::from_ref(stmt));
        let mut promoted = Vec::new();
        for (g, ty) in read {
            let agg = crate::eval::native::Agg::of(&ty);
            // Nor one whose view is kept for an enclosing loop or region: writing it back would
            // replace the storage that view addresses.
            if !promotable(&ty)
                || self.promoted.contains_key(&g)
                || in_memory.contains(&g)
                || self.views.contains_key(&Place::Global(g))
            {
                continue;
            }
            let addr = self.global_addr(g);
            let value = match &agg {
                Some(agg) => self.unbox_from(addr, agg),
                None => self.load_value(addr, Repr::of(&ty).expect("promotable")),
            };
            let mut leaves = Vec::new();
            for leaf in self.leaves(value) {
                let (x, repr) = match leaf {
                    super::V::F(x) => (x, Repr::F64),
                    other => (other.int(), Repr::I64),
                };
                let var = self.b.declare_var(repr.clif().unwrap_or(types::I64));
                self.b.def_var(var, x);
                leaves.push((var, repr));
            }
            // A scalar's slot is kept up to date (`promoted_write`): its tag is its flag.
            let plain = agg.is_none() && leaves.len() == 1;
            let flag = self.c.global_read_check(g, &ty).map(|def| {
                let var = (!plain).then(|| {
                    let held = self.slot_holds_value(addr);
                    let var = self.b.declare_var(types::I64);
                    self.b.def_var(var, held);
                    var
                });
                let set = self.iconst(1);
                Flag { var, set, def }
            });
            let assigned = assigned.contains(&Place::Global(g));
            self.promoted.insert(
                g,
                Promoted {
                    leaves,
                    agg,
                    flag,
                    assigned,
                },
            );
            promoted.push(g);
        }
        if !promoted.is_empty() {
            let outer = self.unwind;
            let list = promoted.clone();
            self.unwind = self.side_block(|l| {
                l.store_promoted(&list);
                l.b.ins().jump(outer, &[]);
            });
        }
        promoted
    }

    /// Compute before the loop `stmt` the values of the variables held in registers (locals,
    /// and globals held there for a closed loop) that it reads and does not assign (`pin`).
    /// Cranelift would otherwise compute such a value where the loop first uses it, at every
    /// iteration: a mean divided out before the loop that subtracts it from each element.
    /// Constants are left where they are used.
    fn pin_invariants(&mut self, stmt: &Stmt) {
        // In the order first read, so the code does not depend on a hash.
        let mut read = Vec::new();
        crate::core::visit::each_in_stmts(
            std::slice::from_ref(stmt),
            &mut |e| match e.kind {
                ExprKind::Local(s) => read.push(Place::Local(s)),
                ExprKind::Global(g) => read.push(Place::Global(g)),
                _ => {}
            },
            &mut |_| {},
        );
        let assigned = assigned_places(std::slice::from_ref(stmt));
        let mut vars = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for place in read {
            if assigned.contains(&place) || !seen.insert(place) {
                continue;
            }
            match place {
                Place::Local(s) => vars.extend(self.vars.get(&s).map(|(var, _)| *var)),
                Place::Global(g) => {
                    if let Some(promoted) = self.promoted.get(&g) {
                        vars.extend(promoted.leaves.iter().map(|(var, _)| *var));
                    }
                }
                _ => {}
            }
        }
        let mut values = Vec::new();
        for var in vars {
            let v = self.b.use_var(var);
            let constant = match self.b.func.dfg.value_def(v) {
                cranelift_codegen::ir::ValueDef::Result(inst, _) => {
                    use cranelift_codegen::ir::Opcode;
                    matches!(
                        self.b.func.dfg.insts[inst].opcode(),
                        Opcode::Iconst | Opcode::F64const | Opcode::F32const
                    )
                }
                _ => true,
            };
            if !constant {
                values.push(v);
            }
        }
        self.pin(&values);
    }

    /// Write the promoted globals `globals` the loop assigns to their slots (those whose flag
    /// says they hold a value). After a loop, `unhoist` boxes aggregates through the helpers' stubs.
    pub(super) fn store_promoted(&mut self, globals: &[u32]) {
        for g in globals {
            let promoted = self.promoted[g].clone();
            // A scalar's slot is written at every assignment, or where its loop is left.
            if !promoted.assigned || (promoted.plain() && !self.sunk.contains(g)) {
                continue;
            }
            let v = self.promoted_value(&promoted);
            let store = |l: &mut Self| {
                let addr = l.global_addr(*g);
                match &promoted.agg {
                    Some(agg) => l.box_into(addr, agg, v),
                    None => l.store_value(addr, v),
                }
            };
            let Some(flag) = promoted.flag.clone() else {
                store(self);
                continue;
            };
            let Some(var) = flag.var else {
                store(self);
                continue;
            };
            let set = self.b.use_var(var);
            let store_block = self.b.create_block();
            let after = self.b.create_block();
            self.b.ins().brif(set, store_block, &[], after, &[]);
            self.b.seal_block(store_block);
            self.b.switch_to_block(store_block);
            store(self);
            self.b.ins().jump(after, &[]);
            self.b.seal_block(after);
            self.b.switch_to_block(after);
        }
    }

    /// Around a call that reads or assigns globals in their slots (a piece run on the closure
    /// compiler, as the cold path of a check that may fail): before it (`before`), the
    /// promoted globals written back; after it, read again, so that what it assigned is
    /// what the registers hold. The globals promoted, for the call after.
    pub(super) fn promoted_in_slots(&mut self, before: Option<Vec<u32>>) -> Vec<u32> {
        let Some(globals) = before else {
            let mut globals: Vec<u32> = self.promoted.keys().copied().collect();
            globals.sort_unstable();
            self.store_promoted(&globals);
            return globals;
        };
        for g in &globals {
            let promoted = self.promoted[g].clone();
            let addr = self.global_addr(*g);
            let value = match &promoted.agg {
                Some(agg) => self.unbox_from(addr, agg),
                None => self.load_value(addr, promoted.leaves[0].1),
            };
            for ((var, _), leaf) in promoted.leaves.iter().zip(self.leaves(value)) {
                if let super::V::I(x) | super::V::F(x) = leaf {
                    self.b.def_var(*var, x);
                }
            }
            if let Some(var) = promoted.flag.and_then(|flag| flag.var) {
                let held = self.slot_holds_value(addr);
                self.b.def_var(var, held);
            }
        }
        globals
    }

    /// 1 when the global slot at `addr` holds a value (its tag is not `Unit`'s), else 0.
    fn slot_holds_value(&mut self, addr: ClValue) -> ClValue {
        let tag = self.b.ins().uload8(types::I64, flags(), addr, 0);
        let held = self.b.ins().icmp_imm_s(IntCC::NotEqual, tag, 0);
        self.b.ins().uextend(types::I64, held)
    }

    /// The value a promoted global holds in its register, when `g` is one; a `checked` read
    /// is R0011 at its span when the global holds none yet.
    pub(super) fn promoted_read(&mut self, g: u32, checked: Option<Span>) -> Option<super::V> {
        let promoted = self.promoted.get(&g)?.clone();
        // A global assigned earlier in the block being lowered holds a value: no check.
        let checked = checked.filter(|_| !self.c.known_defined(g));
        if let (Some(Flag { var, def, .. }), Some(span)) = (promoted.flag.clone(), checked) {
            let set = match var {
                Some(var) => self.b.use_var(var),
                None => {
                    let addr = self.global_addr(g);
                    self.slot_holds_value(addr)
                }
            };
            let unset = self.b.ins().icmp_imm_s(IntCC::Equal, set, 0);
            let zero = self.iconst(0);
            self.raise_if(unset, Site::Uninitialised(def, span), zero, zero);
        }
        if let (None, [(_, repr)]) = (&promoted.agg, &promoted.leaves[..]) {
            if let Some(v) = self.constant_global(g, *repr) {
                return Some(v);
            }
        }
        Some(self.promoted_value(&promoted))
    }

    /// The value of a promoted global, from its registers.
    fn promoted_value(&mut self, promoted: &Promoted) -> super::V {
        let leaves: Vec<super::V> = promoted
            .leaves
            .iter()
            .map(|(var, repr)| {
                let x = self.b.use_var(*var);
                match repr {
                    Repr::F64 => super::V::F(x),
                    _ => super::V::I(x),
                }
            })
            .collect();
        match promoted.agg {
            Some(_) => self.agg_value(leaves),
            None => leaves[0],
        }
    }

    /// Assign the promoted global `g` the value `v`, when it is one: whether it was.
    pub(super) fn promoted_write(&mut self, g: u32, v: super::V) -> bool {
        let Some(promoted) = self.promoted.get(&g).cloned() else {
            return false;
        };
        for ((var, _), leaf) in promoted.leaves.iter().zip(self.leaves(v)) {
            if let super::V::I(x) | super::V::F(x) = leaf {
                self.b.def_var(*var, x);
            }
        }
        if promoted.plain() && !self.sunk.contains(&g) {
            // Written through to its slot: the slot is right wherever the code leaves the
            // loop or meets the evaluator, and nothing holds the register for an unwind.
            let addr = self.global_addr(g);
            // Its tag is written by the first assignment, where none dominates this one.
            let tagged = promoted.flag.is_none() || self.c.known_defined(g);
            match (tagged, v) {
                (false, _) => self.store_value(addr, v),
                (true, super::V::I(x) | super::V::F(x)) => {
                    self.b
                        .ins()
                        .store(flags(), x, addr, crate::eval::native::layout::PAYLOAD);
                }
                (true, _) => {}
            }
        }
        if let Some(flag) = promoted.flag {
            if let Some(var) = flag.var {
                self.b.def_var(var, flag.set);
            }
        }
        true
    }

    /// The views of the arrays of a closed loop (`closed_stmt` collected them), fetched: the
    /// places whose view may be null though their array's count is known (a static count,
    /// a pointer's target).
    fn fetch_views(&mut self, arrays: HashMap<Place, (Expr, bool)>) -> Vec<Place> {
        // The views stored into first: a pointer may reach the storage of another variable
        // of the loop, whose view must be taken once that storage is unshared.
        let mut arrays: Vec<_> = arrays.into_iter().collect();
        arrays.sort_by_key(|(place, (_, write))| match place {
            Place::Local(s) => (!write, 0, *s),
            Place::Global(s) => (!write, 1, *s),
            Place::LocalCell(s) => (!write, 2, *s),
            Place::CaptureCell(i) => (!write, 3, *i),
        });
        let mut fetched = Vec::new();
        let mut unviewable = None;
        for (place, (base, write)) in arrays {
            if self.views.get(&place).is_some_and(|v| v.2 || !write) {
                continue;
            }
            let addr = self.base_addr(&base);
            let pointer = base.ty.pointee().is_some();
            if base.ty == crate::types::Type::String {
                let (data, len) = self.string_view(addr);
                self.views.insert(place, (vec![data], len, false));
                continue;
            }
            if super::varray::varray_base(&base) {
                // The data (or each column) and the count readable there (0 for null data).
                let (mut data, len) = self.varray_view(addr, &base.ty);
                let null = self.b.ins().icmp_imm_s(IntCC::Equal, data[0], 0);
                data.push(self.null_if(null, vec![len])[0]);
                self.views.insert(place, (data, len, false));
                continue;
            }
            let (data, len) = match columns_of(&base) {
                _ if super::pointee::viewed_object(&base).is_some() => {
                    let object = super::pointee::viewed_object(&base).expect("checked");
                    self.leaves_view(addr, object, write)
                }
                Some(n) => {
                    let (len, columns) = self.columns_at(addr, write, pointer, n);
                    (columns, len)
                }
                None => {
                    let (data, len) = self.view(addr, write, pointer);
                    (vec![data], len)
                }
            };
            if pointer {
                let null = self.b.ins().icmp_imm_s(IntCC::Equal, data[0], 0);
                unviewable = Some(match unviewable {
                    Some(any) => self.b.ins().bor(any, null),
                    None => null,
                });
            }
            let count = static_count(&base);
            fetched.push((place, data, len, write, count, pointer));
        }
        // A pointer whose target native code cannot see (a cast pointer) runs its accesses on
        // the closure compiler, which may replace any array's storage: then no view is kept
        // and every access fetches its own (`access_view`).
        let mut nullable = Vec::new();
        for (place, data, len, write, count, pointer) in fetched {
            if count.is_some() || unviewable.is_some() {
                nullable.push(place);
            }
            let data = match unviewable {
                Some(any) => self.null_if(any, data),
                None => data,
            };
            // Kept only with the count of its type (see the module's comment).
            let (data, len) = match count {
                Some(count) if pointer => {
                    let short = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedLessThan, len, count as i64);
                    (self.null_if(short, data), self.iconst(count as i64))
                }
                Some(count) => {
                    let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, len, count as i64);
                    (self.null_if(other, data), len)
                }
                None => (data, len),
            };
            self.views.insert(place, (data, len, write));
        }
        nullable
    }

    /// `values`, or nulls when `cond` is non-zero: block parameters defined here, before the
    /// loop. (A `select` with a null constant would be placed by Cranelift in the loop, at
    /// every use, since the constant is rematerialised there.)
    fn null_if(&mut self, cond: ClValue, values: Vec<ClValue>) -> Vec<ClValue> {
        let nulls = self.b.create_block();
        let join = self.b.create_block();
        for _ in &values {
            self.b.append_block_param(join, types::I64);
        }
        self.b.ins().brif(cond, nulls, &[], join, &args(&values));
        self.b.seal_block(nulls);
        self.b.switch_to_block(nulls);
        let zero = self.iconst(0);
        self.b.ins().jump(join, &args(&vec![zero; values.len()]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.b.block_params(join).to_vec()
    }

    /// The view (the address of the leaves, or of each of `n_columns` columns) of the array
    /// of `path` for a read or a store at leaf position `pos` (whose indices
    /// `leaf_position` checked), with the access's checks made. Through a pointer whose
    /// target native code cannot see, `unviewable` runs instead (and ends its block); at a
    /// position outside the view (of a variable holding no array) a read raises R0001 and a
    /// store jumps to the block of `Outside::Skip`. Through a view kept for the enclosing
    /// closed loop, nothing is checked (see the module's comment).
    pub(super) fn checked_view(
        &mut self,
        path: &ElementPath<'_>,
        write: bool,
        n_columns: Option<usize>,
        pos: ClValue,
        unviewable: impl FnOnce(&mut Self),
        outside: Outside,
    ) -> Vec<ClValue> {
        let hoisted = base_place(path.base)
            .and_then(|place| self.views.get(&place))
            .filter(|(data, _, mutable)| {
                (*mutable || !write) && data.len() == n_columns.unwrap_or(1)
            })
            .cloned();
        let Some((data, len, _)) = hoisted else {
            return self.fetched_view(path, write, n_columns, pos, unviewable, outside);
        };
        if base_place(path.base).is_some_and(|place| self.viewed.contains(&place)) {
            if static_count(path.base).is_none() {
                self.check_inside(path, pos, len, outside);
            }
            return data;
        }
        let kept = self.b.create_block();
        let fetch = self.b.create_block();
        let join = self.b.create_block();
        for _ in &data {
            self.b.append_block_param(join, types::I64);
        }
        self.b.set_cold_block(fetch);
        self.b.ins().brif(data[0], kept, &[], fetch, &[]);
        self.b.seal_block(kept);
        self.b.seal_block(fetch);
        self.b.switch_to_block(kept);
        if static_count(path.base).is_none() {
            self.check_inside(path, pos, len, outside);
        }
        self.b.ins().jump(join, &args(&data));
        self.b.switch_to_block(fetch);
        let fetched = self.fetched_view(path, write, n_columns, pos, unviewable, outside);
        self.b.ins().jump(join, &args(&fetched));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.b.block_params(join).to_vec()
    }

    /// Does an access to the array of `path` (`write`: a store; `n_columns` as for
    /// `checked_view`) go through a view kept for the loop that it checks nothing against
    /// (no branch around it)?
    pub(super) fn unchecked_view(
        &self,
        path: &ElementPath<'_>,
        write: bool,
        n_columns: Option<usize>,
    ) -> bool {
        base_place(path.base).is_some_and(|place| {
            self.viewed.contains(&place)
                && self.views.get(&place).is_some_and(|(data, _, mutable)| {
                    (*mutable || !write) && data.len() == n_columns.unwrap_or(1)
                })
        }) && static_count(path.base).is_some()
    }

    /// `checked_view` through a view fetched here.
    fn fetched_view(
        &mut self,
        path: &ElementPath<'_>,
        write: bool,
        n_columns: Option<usize>,
        pos: ClValue,
        unviewable: impl FnOnce(&mut Self),
        outside: Outside,
    ) -> Vec<ClValue> {
        let addr = self.base_addr(path.base);
        let (data, len) = match n_columns {
            Some(n) => {
                let (len, columns) = self.columns_at(addr, write, path.pointer, n);
                (columns, len)
            }
            None => {
                let (data, len) = self.view(addr, write, path.pointer);
                (vec![data], len)
            }
        };
        if path.pointer {
            self.unviewable(data[0], unviewable);
        }
        self.check_inside(path, pos, len, outside);
        data
    }

    /// What `outside` says when the leaf position `pos` is not below the view's count `len`.
    fn check_inside(
        &mut self,
        path: &ElementPath<'_>,
        pos: ClValue,
        len: ClValue,
        outside: Outside,
    ) {
        match outside {
            Outside::Raise => self.check_position(path, pos, len),
            Outside::Skip(after) => {
                self.straight.skips += 1;
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, pos, len);
                let next = self.b.create_block();
                self.b.ins().brif(inside, next, &[], after, &[]);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last top-level statement of `src` (a loop), checked without the prelude.
    fn body(src: &str) -> Vec<Stmt> {
        let stmts = crate::parse_program_or_errors(src, Default::default()).expect("it parses");
        let mut body = crate::check::Checker::new()
            .check_program(&stmts)
            .expect("it checks")
            .body;
        body.split_off(body.len() - 1)
    }

    /// The arrays `stmts` read in memory, as `closed_stmt` would collect them: every global
    /// indexed at a variable position.
    fn viewed(stmts: &[Stmt]) -> HashMap<Place, (Expr, bool)> {
        let mut arrays = HashMap::new();
        crate::core::visit::each_in_stmts(
            stmts,
            &mut |e| {
                if let ExprKind::Index { array, .. } = &e.kind {
                    if let ExprKind::Global(g) = array.kind {
                        arrays.insert(Place::Global(g), ((**array).clone(), false));
                    }
                }
            },
            &mut |_| {},
        );
        arrays
    }

    #[test]
    fn stores_into_an_array_read_in_memory_keep_a_loop_closed() {
        let stmts =
            body("var a : int ^ 4;\nfor i in 0 ..< 4 do &a.(i :>> 4) <- a.(i :>> 4) + i; done");
        let arrays = viewed(&stmts);
        assert!(!arrays.is_empty());
        assert!(!reads_assigned_global(
            &stmts,
            &globals_in_memory(&stmts, &arrays)
        ));
    }

    #[test]
    fn a_pair_assigned_whole_and_read_in_memory_opens_a_loop() {
        let stmts = body(
            "var v = (1, 2);\nvar t = 0;\nfor i in 0 ..< 2 do v = (v.1, v.0); t += v.(i :>> 2); done",
        );
        let in_memory = globals_in_memory(&stmts, &viewed(&stmts));
        assert!(reads_assigned_global(&stmts, &in_memory));
    }
}
