//! Scalars a pointer variable points at, and scalar fields of the struct, tuple or record it
//! points at: `*p` and `(*p).x` (`p*.x`) read, `p <- v` and `p.x <- v` stored where they
//! live, through the runtime's pointee helpers, with no copy of the object (a pointer into
//! an array too: the helpers follow its element steps). When a helper cannot see the target
//! (a pointer into a compact value, a cast pointer, a variable not assigned yet) the access
//! runs on the closure compiler in a cold block, which reads or stores it or raises its
//! error.

use cranelift_codegen::ir::{types, InstBuilder};

use crate::core::ir::{Expr, ExprKind, PathStep, Stmt};
use crate::types::Type;

use super::super::runtime::{repr_code, Helper};
use super::{args, flags, Lower, V};
use crate::eval::native::Repr;

/// The pointer variable and the fields of a scalar read through it: `*p`, `(*p).f.g`, or
/// `*(p.f.g)` (the projection `&(p).f.g` dereferenced); `None` for any other read.
pub(super) fn read_through(e: &Expr) -> Option<(&Expr, Vec<u32>)> {
    let mut fields = Vec::new();
    let mut at = e;
    while let ExprKind::Field(inner, i) = &at.kind {
        fields.push(*i);
        at = inner;
    }
    fields.reverse();
    let ExprKind::Deref(pointer) = &at.kind else {
        return None;
    };
    let (base, mut path) = projected_fields(pointer)?;
    path.extend(fields);
    held(&base.ty, &path, Repr::of(&e.ty)?).then_some((base, path))
}

/// A pointer variable (a local, a global or a captured one) and the fields its projection
/// takes: `p` (none) or `&(p).f.g`.
fn projected_fields(pointer: &Expr) -> Option<(&Expr, Vec<u32>)> {
    let (base, steps) = match &pointer.kind {
        ExprKind::PtrProject { pointer, path } => (&**pointer, &path[..]),
        _ => (pointer, &[][..]),
    };
    if !matches!(
        base.kind,
        ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Capture(_)
    ) {
        return None;
    }
    let fields = steps
        .iter()
        .map(|step| match step {
            PathStep::Field(i) => Some(*i),
            PathStep::Index(..) => None,
        })
        .collect::<Option<Vec<u32>>>()?;
    Some((base, fields))
}

/// Do `fields` lead from the target of the pointer type `pointer_ty` through tuples,
/// records or structs held as values (not compact codes, not arrays) to a scalar of `repr`
/// (the target itself, when there are none)?
fn held(pointer_ty: &Type, fields: &[u32], repr: Repr) -> bool {
    let Some((_, mut ty)) = pointer_ty.pointee() else {
        return false;
    };
    let mut owned;
    for &i in fields {
        if Repr::of(ty).is_some() || crate::eval::array::Shape::of(ty).is_some() {
            return false;
        }
        let Some(field) = ty.field_type(i as usize) else {
            return false;
        };
        owned = field;
        ty = &owned;
    }
    matches!(repr, Repr::I64 | Repr::F64) && Repr::of(ty) == Some(repr)
}

impl Lower<'_, '_, '_> {
    /// The scalar field `e` (of `repr`) of the object the pointer variable `base` points at,
    /// `fields` into it (`read_through`), read where it lives.
    pub(super) fn read_pointee(
        &mut self,
        e: &Expr,
        base: &Expr,
        fields: Vec<u32>,
        repr: Repr,
    ) -> V {
        self.check_base(base);
        let pointer = self.base_addr(base);
        let (path, n) = self.field_path(fields);
        let code = self.iconst(repr_code(repr) as i64);
        let out = self.leaf_buffer(1);
        let rt = self.rt;
        let seen = self
            .call_helper(
                Helper::PointerLeafBits,
                &[types::I64; 6],
                &[types::I32],
                &[rt, pointer, path, n, code, out],
            )
            .expect("pointer_leaf_bits returns a status");
        let join = self.b.create_block();
        self.b
            .append_block_param(join, repr.clif().expect("a scalar"));
        self.unviewable(seen, |l| {
            let v = l.fallback_expr(e, "");
            l.b.ins().jump(join, &args(&[v.int()]));
        });
        let bits = self.b.ins().load(types::I64, flags(), out, 0);
        let v = self.bits_value(bits, repr);
        self.b.ins().jump(join, &args(&[v.int()]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_value(join, repr)
    }

    /// The store `s`, `pointer <- value`, when `pointer` is a pointer variable to a scalar or
    /// projects one to a scalar field of the object it points at (`p <- v`, `p.f.g <- v`)
    /// and `value` can run twice:
    /// `value` is computed, then the field replaced where it lives. False, having done
    /// nothing, for any other store.
    pub(super) fn store_pointee(&mut self, s: &Stmt, pointer: &Expr, value: &Expr) -> bool {
        let Some((base, fields)) = projected_fields(pointer) else {
            return false;
        };
        let repr = Repr::of(&value.ty);
        if !repr.is_some_and(|r| held(&base.ty, &fields, r)) || !self.pure(value) {
            return false;
        }
        self.check_base(base);
        let v = self.expr(value);
        let pointer_at = self.base_addr(base);
        let [path, n, code, bits] = self.leaf_store_args(fields, v).expect("a scalar");
        let rt = self.rt;
        let stored = self
            .call_helper(
                Helper::PointerSetLeaf,
                &[types::I64; 6],
                &[types::I32],
                &[rt, pointer_at, path, n, code, bits],
            )
            .expect("pointer_set_leaf returns a status");
        let after = self.b.create_block();
        self.unviewable(stored, |l| {
            l.fallback_stmt(s, "", pointer.span);
            if !l.filled() {
                l.b.ins().jump(after, &[]);
            }
        });
        self.b.ins().jump(after, &[]);
        self.b.seal_block(after);
        self.b.switch_to_block(after);
        true
    }
}
