//! Aggregates of scalars (tuples, records and structs of scalars, small arrays of scalars) as
//! their leaves in registers: construction, projection at constant positions, variables,
//! conditions, calls and returns. Where an aggregate meets code that needs the evaluator's
//! value (a fallback piece, a global, a frame slot), it is boxed or unboxed by a runtime
//! helper at that point only.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};

use crate::core::ir::{CoerceKind, Const, Expr, ExprKind};
use crate::types::Type;

use super::super::runtime::Site;
use super::{args, flags, Lower, V};
use crate::eval::native::{Agg, Repr};

/// The leaves of component `index` of a value of `ty` when `index` is a constant naming one
/// (a field number, or an in-range element position): first leaf and count.
pub(super) fn constant_component(ty: &Type, index: &Expr) -> Option<(usize, usize)> {
    Agg::of(ty)?;
    match index.kind {
        ExprKind::Const(Const::Int(k)) => Agg::component(ty, usize::try_from(k).ok()?),
        _ => None,
    }
}

impl Lower<'_, '_, '_> {
    /// Lower an expression whose value is the aggregate `agg`.
    pub(super) fn agg_expr(&mut self, e: &Expr, agg: &Agg) -> V {
        match &e.kind {
            ExprKind::Tuple(parts) | ExprKind::Array(parts) => {
                let mut leaves = Vec::with_capacity(agg.leaves.len());
                for part in parts {
                    let v = self.expr(part);
                    leaves.extend(self.leaves(v));
                }
                if leaves.len() != agg.leaves.len() {
                    return self.agg_fallback(e, agg, "a tuple of unexpected leaves");
                }
                self.agg_value(leaves)
            }
            ExprKind::Local(s) if self.avars.contains_key(s) => self.read_agg_var(*s),
            ExprKind::Local(s) => {
                self.frame_used = true;
                let addr = self.slot_addr(*s);
                self.unbox_from(addr, agg)
            }
            ExprKind::Global(s) => {
                let addr = self.global_addr(*s);
                if let Some(def) = self.c.global_read_check(*s, &e.ty) {
                    let tag = self.b.ins().uload8(types::I64, flags(), addr, 0);
                    let unset = self.b.ins().icmp_imm_s(IntCC::Equal, tag, 0);
                    let zero = self.iconst(0);
                    self.raise_if(unset, Site::Uninitialised(def, e.span), zero, zero);
                }
                self.unbox_from(addr, agg)
            }
            ExprKind::Zero => {
                let leaves = agg.leaves.iter().map(|r| self.zero(*r)).collect();
                self.agg_value(leaves)
            }
            ExprKind::Field(inner, i) if Agg::of(&inner.ty).is_some() => {
                match Agg::component(&inner.ty, *i as usize) {
                    Some(range) => self.project(inner, range),
                    None => self.agg_fallback(e, agg, "a field of an unknown layout"),
                }
            }
            ExprKind::Index { array, index, .. }
                if !self.element_base(array) && constant_component(&array.ty, index).is_some() =>
            {
                let range = constant_component(&array.ty, index).expect("checked");
                self.project(array, range)
            }
            ExprKind::Coerce(CoerceKind::Reinterpret | CoerceKind::Opaque, inner)
                if Agg::of(&inner.ty).is_some_and(|a| a.leaves == agg.leaves) =>
            {
                self.expr(inner)
            }
            ExprKind::If(c, t, f) => {
                let c = self.expr(c).int();
                let (then_b, else_b, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.value_params(join, Repr::Unit, Some(agg));
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                for (block, arm) in [(then_b, t), (else_b, f)] {
                    self.b.seal_block(block);
                    self.b.switch_to_block(block);
                    let v = self.expr(arm);
                    let vals = self.jump_values(v);
                    self.b.ins().jump(join, &args(&vals));
                }
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                self.join_values(join, Repr::Unit, Some(agg))
            }
            ExprKind::Call { func, args } => self.call(e, func, args, Repr::Unit),
            ExprKind::Inlined(inlined) => self.inlined(inlined, Repr::Unit, e),
            _ => self.agg_fallback(e, agg, "an aggregate expression form not lowered yet"),
        }
    }

    /// Is `array` a variable whose elements native code reads in place (an array global, or
    /// a local kept in the frame), rather than an aggregate in registers?
    pub(super) fn element_base(&self, array: &Expr) -> bool {
        match &array.kind {
            ExprKind::Global(_) => matches!(array.ty, Type::Array(..)),
            ExprKind::Local(s) => {
                matches!(array.ty, Type::Array(..)) && !self.avars.contains_key(s)
            }
            ExprKind::Deref(_) => true,
            ExprKind::Index { array, .. } => self.element_base(array),
            _ => false,
        }
    }

    /// The leaves `range` (first, count) of the aggregate `inner`: one scalar, or an
    /// aggregate.
    pub(super) fn project(&mut self, inner: &Expr, (first, count): (usize, usize)) -> V {
        let v = self.expr(inner);
        let leaves = self.leaves(v);
        let part: Vec<V> = leaves[first..first + count].to_vec();
        match part.as_slice() {
            [one] => *one,
            _ => self.agg_value(part),
        }
    }

    /// Evaluate the aggregate `e` on the closure compiler and unbox its leaves.
    pub(super) fn agg_fallback(&mut self, e: &Expr, agg: &Agg, why: &str) -> V {
        let temp = self.temp_value();
        self.eval_into(e, temp, why);
        let v = self.unbox_from(temp, agg);
        self.drop_value(temp);
        v
    }

    /// Evaluate `e` into the evaluator's value at `out` (which holds a value, replaced):
    /// natively and boxed when it is an aggregate, otherwise as a fallback piece.
    pub(super) fn value_into(&mut self, e: &Expr, out: cranelift_codegen::ir::Value, why: &str) {
        match Agg::of(&e.ty) {
            Some(agg) => {
                let v = self.expr(&*e);
                self.box_into(out, &agg, v);
            }
            None => self.eval_into(e, out, why),
        }
    }
}
