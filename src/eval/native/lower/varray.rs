//! Varrays in native code: the operations of a varray variable whose elements are held in
//! registers, each one call of the runtime's `varray_op`, which runs the kernels' own code
//! (`compile/varray.rs`) under the varray's lock, so values and faults are theirs.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData};

use crate::core::ir::{Expr, ExprKind, VarrayOp};
use crate::eval::compile::varray::NativeVarrayOp;
use crate::eval::native::Repr;
use crate::types::Type;

use super::super::runtime::Helper;
use super::{Lower, V};

impl Lower<'_, '_, '_> {
    /// A varray operation (`Prim::Varray`: its length or bound, an element read, set, pushed,
    /// popped) on a varray variable whose elements are held in registers, by the runtime's
    /// `varray_op` (the kernels' own code, under the varray's lock); `None` for any other,
    /// left to a kernel call or a fallback piece. The variable's varray is taken when the
    /// operation runs, after the index and element, which are closed (no call, no effect), so
    /// the order cannot show.
    pub(super) fn varray_op(&mut self, e: &Expr, op: VarrayOp, a: &[Expr]) -> Option<V> {
        let (varray, rest) = a.split_first()?;
        let variable = match varray.kind {
            ExprKind::Local(s) => !self.vars.contains_key(&s) && !self.avars.contains_key(&s),
            ExprKind::Global(_) => true,
            ExprKind::Capture(i) => (i as usize) < self.n_captures,
            _ => false,
        };
        let element = match (op, rest) {
            (VarrayOp::Len | VarrayOp::MaxLen | VarrayOp::Pop, []) => None,
            (VarrayOp::Get, [_]) => Some(&e.ty),
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => Some(&x.ty),
            _ => return None,
        };
        let element = match element.map(Repr::of) {
            None => Repr::I64,
            Some(Some(r @ (Repr::I64 | Repr::F64))) => r,
            Some(_) => return None,
        };
        let index = match (op, rest.first().map(|i| &i.ty)) {
            (VarrayOp::Get | VarrayOp::Set, Some(Type::Int(ity))) => Some(*ity),
            (VarrayOp::Get | VarrayOp::Set, _) => return None,
            _ => None,
        };
        let closed = rest
            .iter()
            .all(|x| self.closed_expr(x, &mut std::collections::HashMap::new()));
        if !variable || !closed {
            return None;
        }
        self.check_base(varray);
        let zero = self.iconst(0);
        let i = match index {
            Some(_) => self.expr(&rest[0]).int(),
            None => zero,
        };
        let x = match (op, rest) {
            (VarrayOp::Set, [_, x]) | (VarrayOp::Push, [x]) => match self.expr(x) {
                V::F(f) => self.b.ins().bitcast(types::I64, MemFlagsData::new(), f),
                v => v.int(),
            },
            _ => zero,
        };
        let addr = self.base_addr(varray);
        let site = self.keep(NativeVarrayOp {
            op,
            index,
            element,
            span: e.span,
        });
        let site = self.ptr_const(site);
        let rt = self.rt;
        let r = self
            .call_helper(
                Helper::VarrayOp,
                &[types::I64; 5],
                &[types::I64],
                &[rt, site, addr, i, x],
            )
            .expect("varray_op returns bits");
        self.check_failed();
        Some(match op {
            VarrayOp::Get => self.bits_value(r, element),
            VarrayOp::Len | VarrayOp::MaxLen => V::I(r),
            _ => V::Unit,
        })
    }
}
