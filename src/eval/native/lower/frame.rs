//! The register variables of the code being lowered and their frame slots: which slots a
//! piece of code mentions, writing them to the frame (before code that reads the frame, and
//! at the end of a top-level piece) and reading them back; the frame's initialisation and its
//! drop; the check that a global's slot holds a value.

use crate::core::ir::{Expr, ExprKind, Place, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts};
use crate::eval::native::Repr;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};

use super::super::runtime::Helper;
use super::{flags, Lower, V};

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

    /// The register slots a walk (`each_in_expr`, `each_in_stmts`) reads or assigns.
    fn mentioned(
        &self,
        walk: impl FnOnce(&mut dyn FnMut(&Expr), &mut dyn FnMut(Place)),
    ) -> Vec<Slot> {
        let slots = std::cell::RefCell::new(Vec::new());
        walk(
            &mut |e| match e.kind {
                ExprKind::Local(s) | ExprKind::Take(s) => slots.borrow_mut().push(s),
                // A closure made here captures slots its function lists, not seen as reads:
                // every register variable goes to the frame.
                ExprKind::MakeFun { .. } | ExprKind::Closure { .. } => {
                    slots.borrow_mut().extend(self.vars.keys().copied());
                    slots.borrow_mut().extend(self.avars.keys().copied())
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
            let addr = self.slot_addr(s as u32);
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

    /// Drop the values of the frame's slots as the function returns; only the slots
    /// `droppable` can hold a value that owns something (the others only ever hold scalars).
    /// A few such slots are tested one by one, so that a frame of scalars, units and let-go
    /// borrowed values (the usual case) costs no call.
    pub(super) fn drop_frame(&mut self, droppable: &[Slot]) {
        const TESTED: usize = 8;
        if droppable.len() > TESTED {
            let (frame, n) = (self.frame, self.n_slots);
            self.call_helper(
                Helper::DropFrame,
                &[types::I64, types::I64],
                &[],
                &[frame, n],
            );
            return;
        }
        for s in droppable {
            let at = self.slot_addr(*s);
            self.drop_value(at);
        }
    }
}
