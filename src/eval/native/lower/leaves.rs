//! Leaves of arrays in memory, each at its own width (`ScalarKind`): the address of a leaf,
//! a load widened to the register (sign- or zero-extended by the kind's signedness, a `float`
//! promoted to `f64`) and a store narrowed to the leaf. Every element access of native code
//! goes through these three.

use cranelift_codegen::ir::{types, InstBuilder, Value as ClValue};

use crate::core::ir::Expr;
use crate::eval::value::{leaf_repr, leaf_type, LeafRepr, ScalarKind};

use super::{flags, Lower, V};

/// The kinds of the columns of the array `base` holds (or points at): one for an array of
/// scalars, one per field for an array of tuples stored as columns; none for anything else.
pub(super) fn leaf_kinds(base: &Expr) -> Vec<ScalarKind> {
    let ty = base.ty.pointee().map_or(&base.ty, |(_, t)| t);
    match leaf_repr(leaf_type(ty)) {
        LeafRepr::Scalar(kind) => vec![kind],
        LeafRepr::Columns(layout) => layout.kinds.clone(),
        LeafRepr::Boxed => Vec::new(),
    }
}

/// The kind of the leaves of an array type whose leaves are scalars.
pub(super) fn scalar_kind(array_ty: &crate::types::Type) -> Option<ScalarKind> {
    match leaf_repr(leaf_type(array_ty)) {
        LeafRepr::Scalar(kind) => Some(kind),
        _ => None,
    }
}

impl Lower<'_, '_, '_> {
    /// The address of leaf `pos` of the leaves of `kind` that begin at `data`.
    pub(super) fn leaf_addr(&mut self, kind: ScalarKind, data: ClValue, pos: ClValue) -> ClValue {
        let shift = kind.bytes().trailing_zeros() as i64;
        let offset = if shift == 0 {
            pos
        } else {
            self.b.ins().ishl_imm_s(pos, shift)
        };
        self.b.ins().iadd(data, offset)
    }

    /// The leaf of `kind` at `at`, in a register.
    pub(super) fn load_leaf(&mut self, kind: ScalarKind, at: ClValue) -> V {
        let ins = self.b.ins();
        match kind {
            ScalarKind::I8 => V::I(ins.sload8(types::I64, flags(), at, 0)),
            ScalarKind::U8 => V::I(ins.uload8(types::I64, flags(), at, 0)),
            ScalarKind::I16 => V::I(ins.sload16(types::I64, flags(), at, 0)),
            ScalarKind::U16 => V::I(ins.uload16(types::I64, flags(), at, 0)),
            ScalarKind::I32 => V::I(ins.sload32(flags(), at, 0)),
            ScalarKind::U32 => V::I(ins.uload32(flags(), at, 0)),
            ScalarKind::I64 => V::I(ins.load(types::I64, flags(), at, 0)),
            ScalarKind::F32 => {
                let x = ins.load(types::F32, flags(), at, 0);
                V::F(self.b.ins().fpromote(types::F64, x))
            }
            ScalarKind::F64 => V::F(ins.load(types::F64, flags(), at, 0)),
        }
    }

    /// Store the register `v` (an `i64` or `f64`) as a leaf of `kind` at `at`.
    pub(super) fn store_leaf(&mut self, kind: ScalarKind, v: ClValue, at: ClValue) {
        let ins = self.b.ins();
        match kind {
            ScalarKind::I8 | ScalarKind::U8 => {
                ins.istore8(flags(), v, at, 0);
            }
            ScalarKind::I16 | ScalarKind::U16 => {
                ins.istore16(flags(), v, at, 0);
            }
            ScalarKind::I32 | ScalarKind::U32 => {
                ins.istore32(flags(), v, at, 0);
            }
            ScalarKind::I64 | ScalarKind::F64 => {
                ins.store(flags(), v, at, 0);
            }
            ScalarKind::F32 => {
                let x = ins.fdemote(types::F32, v);
                self.b.ins().store(flags(), x, at, 0);
            }
        }
    }
}
