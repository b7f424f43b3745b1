//! The register variables of the code being lowered and their frame slots: which slots a
//! piece of code mentions, writing them to the frame (before code that reads the frame, and
//! at the end of a top-level piece) and reading them back; the frame's initialisation and its
//! drop; the check that a global's slot holds a value; which slots are held in registers
//! (`slot_reprs`) and which the frame drops (`droppable_slots`).

use std::collections::HashMap;

use crate::core::ir::{Capture, Expr, ExprKind, PatternKind, Place, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts};
use crate::eval::native::{Agg, Held, Repr};

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};

use super::super::runtime::Helper;
use super::{flags, Lower, V};

/// The local slots of `captures`.
fn captured_slots(captures: &[Capture]) -> impl Iterator<Item = Slot> + '_ {
    captures.iter().filter_map(|c| match c {
        Capture::Slot(s) | Capture::Cell(s) => Some(*s),
        Capture::Outer(_) => None,
    })
}

impl Lower<'_, '_, '_> {
    /// R0011 at `span` when the global `g` (of type `ty`) may be read before its declaration
    /// runs (`global_read_check`) and its slot holds no value. Nothing is emitted when it
    /// cannot be.
    pub(super) fn check_global_set(
        &mut self,
        g: u32,
        ty: &crate::types::Type,
        span: crate::syntax::span::Span,
    ) {
        if let Some(def) = self.c.global_read_check(g, ty) {
            let at = self.global_addr(g);
            let tag = self.b.ins().uload8(types::I64, super::flags(), at, 0);
            let unset = self.b.ins().icmp_imm_s(IntCC::Equal, tag, 0);
            let zero = self.iconst(0);
            self.raise_if(
                unset,
                super::super::runtime::Site::Uninitialised(def, span),
                zero,
                zero,
            );
        }
    }

    /// The local slots an expression mentions that are held in registers.
    pub(super) fn mentioned_expr(&self, e: &Expr) -> Vec<Slot> {
        self.mentioned(|expr, place| each_in_expr(e, expr, place))
    }

    /// The local slots statements mention that are held in registers.
    pub(super) fn mentioned_stmts(&self, stmts: &[Stmt]) -> Vec<Slot> {
        self.mentioned(|expr, place| each_in_stmts(stmts, expr, place))
    }

    /// The register slots statements may read before they assign them: the slots a
    /// statement mentions, less those a statement before it assigned whole (`x = e` at the
    /// top of `stmts`, not inside a block that might not run).
    pub(super) fn read_before_assigned(&self, stmts: &[Stmt]) -> Vec<Slot> {
        let mut assigned = Vec::new();
        let mut read = Vec::new();
        for stmt in stmts {
            let mentioned = match stmt {
                Stmt::Assign(Place::Local(_), e) => self.mentioned_expr(e),
                _ => self.mentioned_stmts(std::slice::from_ref(stmt)),
            };
            read.extend(mentioned.into_iter().filter(|s| !assigned.contains(s)));
            if let Stmt::Assign(Place::Local(s), _) = stmt {
                assigned.push(*s);
            }
        }
        self.registered(read)
    }

    /// The register slots a walk (`each_in_expr`, `each_in_stmts`) reads or assigns.
    fn mentioned(
        &self,
        walk: impl FnOnce(&mut dyn FnMut(&Expr), &mut dyn FnMut(Place)),
    ) -> Vec<Slot> {
        let slots = std::cell::RefCell::new(Vec::new());
        walk(
            &mut |e| match e.kind {
                ExprKind::Local(s) | ExprKind::Take(s) => slots.borrow_mut().push(s),
                // A closure made here reads the slots it captures from the frame.
                ExprKind::MakeFun { fun, .. } => {
                    let captures = self.c.function_captures(fun);
                    slots.borrow_mut().extend(captured_slots(&captures))
                }
                ExprKind::Closure { ref captures, .. } => {
                    slots.borrow_mut().extend(captured_slots(captures))
                }
                _ => {}
            },
            &mut |p| {
                if let Place::Local(s) = p {
                    slots.borrow_mut().push(s)
                }
            },
        );
        self.registered(slots.into_inner())
    }

    pub(super) fn registered(&self, mut slots: Vec<Slot>) -> Vec<Slot> {
        slots.sort_unstable();
        slots.dedup();
        slots.retain(|s| self.vars.contains_key(s) || self.avars.contains_key(s));
        slots
    }

    /// Every slot held in registers.
    pub(super) fn held_slots(&self) -> Vec<Slot> {
        let mut all: Vec<Slot> = self.vars.keys().chain(self.avars.keys()).copied().collect();
        all.sort_unstable();
        all
    }

    /// Write the register variables `slots` to their frame slots.
    pub(super) fn spill(&mut self, slots: &[Slot]) {
        for s in slots {
            if let Some((_, agg)) = self.avars.get(s) {
                let agg = agg.clone();
                let v = self.read_agg_var(*s);
                let addr = self.slot_addr(*s);
                self.box_into(addr, &agg, v);
                continue;
            }
            let (var, repr) = self.vars[s];
            let value = self.b.use_var(var);
            let v = match repr {
                Repr::F64 => V::F(value),
                _ => V::I(value),
            };
            let addr = self.slot_addr(*s);
            self.store_value(addr, v);
        }
    }

    /// Read the register variables `slots` back from their frame slots.
    pub(super) fn reload(&mut self, slots: &[Slot]) {
        for s in slots {
            if let Some((_, agg)) = self.avars.get(s) {
                let agg = agg.clone();
                let addr = self.slot_addr(*s);
                let v = self.unbox_from(addr, &agg);
                self.write_agg_var(*s, v);
                continue;
            }
            let (var, repr) = self.vars[s];
            let addr = self.slot_addr(*s);
            let v = self.load_value(addr, repr).int();
            self.b.def_var(var, v);
        }
    }

    /// Tag every slot of the frame `Unit`, and put fresh cells into the cell slots.
    pub(super) fn init_frame(&mut self, n_slots: usize, cells: &[Slot]) {
        let zero = self.b.ins().iconst(types::I8, 0);
        for s in 0..n_slots {
            let addr = self.frame_slot(s as u32);
            self.b.ins().store(flags(), zero, addr, 0);
        }
        if !cells.is_empty() {
            let list = self.keep(cells.to_vec());
            // SAFETY: the vector is kept alive by the backend; its buffer does not move.
            let data = unsafe { (*list).as_ptr() };
            let data = self.ptr_const(data);
            let count = self.iconst(cells.len() as i64);
            let frame = self.frame;
            self.call_helper(
                Helper::InitCells,
                &[types::I64; 3],
                &[],
                &[frame, data, count],
            );
        }
    }

    /// Let go of the frame's values as the function returns. Only the slots `droppable` can
    /// hold a value that owns something (the others only ever hold scalars). A borrowed
    /// parameter's slot (`borrowed`) owns nothing: it holds `Unit`, or the bitwise copy a
    /// fallback piece read. A few slots are tested one by one, so that a frame of scalars,
    /// units and borrowed values (the usual case) costs no call and writes nothing (the slots of
    /// borrowed variables are tested only once one of them may own a value); a larger
    /// frame has its borrowed parameters set to `Unit` and is dropped whole by the runtime.
    pub(super) fn leave_frame(&mut self, borrowed: &[Slot], droppable: &[Slot]) {
        const TESTED: usize = 8;
        let tested: Vec<Slot> = droppable
            .iter()
            .copied()
            .filter(|s| !borrowed.contains(s))
            .collect();
        if tested.len() > TESTED {
            self.release_borrowed(borrowed);
            let (frame, n) = (self.frame, self.n_slots);
            self.call_helper(
                Helper::DropFrame,
                &[types::I64, types::I64],
                &[],
                &[frame, n],
            );
            return;
        }
        let (vars, others): (Vec<Slot>, Vec<Slot>) =
            tested.into_iter().partition(|s| self.is_borrowed_var(*s));
        for s in others {
            let at = self.frame_slot(s);
            self.drop_value(at);
        }
        if let (Some(owned), false) = (self.vars_owned, vars.is_empty()) {
            let owned = self.b.use_var(owned);
            let drop = self.b.create_block();
            let done = self.b.create_block();
            self.b.ins().brif(owned, drop, &[], done, &[]);
            self.b.seal_block(drop);
            self.b.switch_to_block(drop);
            for s in vars {
                let at = self.frame_slot(s);
                self.drop_value(at);
            }
            self.b.ins().jump(done, &[]);
            self.b.seal_block(done);
            self.b.switch_to_block(done);
        }
    }
}

/// The frame slots of `function` that may hold a value owning something when it returns:
/// its cells and the slots its parameters and body mention, except those every use of which
/// is a scalar held in a register (a slot nothing mentions, a parameter of a body inlined
/// away, stays `Unit`).
pub(super) fn droppable_slots(
    function: &crate::core::ir::Function,
    reprs: &HashMap<Slot, Held>,
) -> Vec<Slot> {
    let mut mentioned: std::collections::BTreeSet<Slot> =
        function.cell_slots.iter().copied().collect();
    let cells = mentioned.clone();
    for (place, _) in function.params.iter().flat_map(|p| p.bindings()) {
        if let Place::Local(s) | Place::LocalCell(s) = place {
            mentioned.insert(s);
        }
    }
    let mentioned = std::cell::RefCell::new(mentioned);
    each_in_stmts(
        &function.body,
        &mut |e| {
            if let ExprKind::Local(s) | ExprKind::Take(s) | ExprKind::LocalCell(s) = e.kind {
                mentioned.borrow_mut().insert(s);
            }
        },
        &mut |place| {
            if let Place::Local(s) | Place::LocalCell(s) = place {
                mentioned.borrow_mut().insert(s);
            }
        },
    );
    let scalar = |s: &Slot| {
        !cells.contains(s) && matches!(reprs.get(s), Some(Held::Scalar(Repr::I64 | Repr::F64)))
    };
    mentioned
        .into_inner()
        .into_iter()
        .filter(|s| !scalar(s))
        .collect()
}

/// The slot types of a body: each local slot with the one native representation all its
/// uses agree on (slots used at two representations, or at a type that is not native, stay
/// in the frame). An aggregate is held in registers only when native code never needs its
/// frame slot: it is only assigned whole, read whole, or projected at constant positions.
pub(super) fn slot_reprs(
    params: &[crate::core::ir::Pattern],
    body: &[Stmt],
) -> HashMap<Slot, Held> {
    let mut seen: HashMap<Slot, Option<Held>> = HashMap::new();
    let mut note = |slot: Slot, ty: &crate::types::Type| {
        let repr = Held::of(ty).filter(|r| *r != Held::Scalar(Repr::Unit));
        let entry = seen.entry(slot).or_insert(repr.clone());
        if *entry != repr {
            *entry = None;
        }
    };
    for (place, p) in params.iter().flat_map(|p| p.bindings()) {
        if let Place::Local(s) = place {
            note(s, &p.ty);
        }
    }
    let mut cells: Vec<Slot> = Vec::new();
    // Slots whose frame slot native code addresses (element paths, stores, pointers, loops
    // over them): not held as aggregates.
    let mut addressed: Vec<Slot> = Vec::new();
    each_in_stmts(
        body,
        &mut |e| match &e.kind {
            ExprKind::Local(s) | ExprKind::Take(s) => note(*s, &e.ty),
            ExprKind::LocalCell(s) => cells.push(*s),
            ExprKind::Index { array, index, .. } => {
                if let ExprKind::Local(s) = array.kind {
                    let at = super::agg::constant_position(index);
                    if at.and_then(|k| Agg::component(&array.ty, k)).is_none() {
                        addressed.push(s);
                    }
                }
            }
            ExprKind::MapLoop { array, .. } => {
                if let ExprKind::Local(s) = array.kind {
                    addressed.push(s);
                }
            }
            ExprKind::AddrOf {
                place: Place::Local(s),
                ..
            } => addressed.push(*s),
            _ => {}
        },
        &mut |_| {},
    );
    struct Addressed<'n>(&'n mut Vec<Slot>);
    impl<'ir> crate::core::visit::Visit<'ir> for Addressed<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match s {
                Stmt::Store {
                    place: Place::Local(slot),
                    ..
                } => self.0.push(*slot),
                Stmt::ForArray { array, .. } => {
                    if let ExprKind::Local(slot) = array.kind {
                        self.0.push(slot)
                    }
                }
                _ => {}
            }
            crate::core::visit::walk_stmt(self, s)
        }
    }
    crate::core::visit::walk_stmts(&mut Addressed(&mut addressed), body);
    // Assignments, loop variables and pattern binds carry the variable's type in their value
    // or pattern; walk them with their types.
    struct Binds<'n, F: FnMut(Slot, &crate::types::Type)>(&'n mut F, &'n mut Vec<Slot>);
    impl<'ir, F: FnMut(Slot, &crate::types::Type)> crate::core::visit::Visit<'ir> for Binds<'_, F> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            match s {
                Stmt::Assign(Place::Local(slot), e) => (self.0)(*slot, &e.ty),
                Stmt::ForRange {
                    var: Place::Local(slot),
                    var_ty,
                    ..
                } => (self.0)(*slot, &crate::types::Type::Int(*var_ty)),
                Stmt::ForCodes {
                    var: Place::Local(slot),
                    ty,
                    ..
                } => (self.0)(*slot, ty),
                Stmt::ForArray {
                    var: Place::Local(slot),
                    array,
                    ..
                } => match &array.ty {
                    crate::types::Type::Array(elem, _) => (self.0)(*slot, elem),
                    _ => (self.0)(*slot, &crate::types::Type::String),
                },
                _ => {}
            }
            crate::core::visit::walk_stmt(self, s)
        }
        fn visit_expr(&mut self, e: &'ir Expr) {
            if let ExprKind::MapLoop { var, array, .. } = &e.kind {
                match &array.ty {
                    crate::types::Type::Array(elem, _) => (self.0)(*var, elem),
                    _ => (self.0)(*var, &crate::types::Type::String),
                }
            }
            crate::core::visit::walk_expr(self, e)
        }
        fn visit_pattern(&mut self, p: &'ir crate::core::ir::Pattern) {
            if let PatternKind::Bind(Place::Local(s)) = p.kind {
                (self.0)(s, &p.ty)
            }
            if let PatternKind::Bind(Place::LocalCell(s)) = p.kind {
                self.1.push(s)
            }
            crate::core::visit::walk_pattern(self, p)
        }
        fn visit_place(&mut self, place: Place) {
            if let Place::LocalCell(s) = place {
                self.1.push(s)
            }
        }
    }
    crate::core::visit::walk_stmts(&mut Binds(&mut note, &mut cells), body);
    let mut reprs: HashMap<Slot, Held> = seen
        .into_iter()
        .filter_map(|(s, r)| Some((s, r?)))
        .collect();
    for s in cells {
        reprs.remove(&s);
    }
    for s in addressed {
        if matches!(reprs.get(&s), Some(Held::Agg(_))) {
            reprs.remove(&s);
        }
    }
    reprs
}
