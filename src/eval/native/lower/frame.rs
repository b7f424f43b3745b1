//! The register variables of the code being lowered and their frame slots: which slots a
//! piece of code mentions, writing them to the frame (before code that reads the frame, and
//! at the end of a top-level piece) and reading them back; the check that a global's slot
//! holds a value.

use crate::core::ir::{Expr, ExprKind, Place, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts};
use crate::eval::native::Repr;

use super::{Lower, V};

impl Lower<'_, '_, '_> {
    /// R0011 at `span` when the global `g` (of type `ty`), whose slot is at `at`, may be read
    /// before its declaration runs (`global_read_check`) and holds no value.
    pub(super) fn check_global_set(
        &mut self,
        g: u32,
        ty: &crate::types::Type,
        at: cranelift_codegen::ir::Value,
        span: crate::syntax::span::Span,
    ) {
        use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
        if let Some(def) = self.c.global_read_check(g, ty) {
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
                ExprKind::Local(s) => slots.borrow_mut().push(s),
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
}
