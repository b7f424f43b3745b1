//! Slices `x.(i..j)`, `x.(i..<j)`, `x.(i..)`, `x.(..j)` and `x.(..<j)` of arrays, tuples and
//! strings. Bounds past either end are clamped, as in Felix.
//!
//! With constant bounds, a slice of a tuple or of an array of static size has a static type
//! (`(1, "a", 2.5).(1..2)` is a `string * double`, and `(x : int ^ 100).(1..2000)` an
//! `int ^ 99`). Any other array slice has a fresh run-time size, like `filter`'s result.

use crate::check::build::{error_expr, int_const, mk};
use crate::check::{error_type, Checker};
use crate::core::ir::{self, IndexMode, Prim};
use crate::syntax::ast::{self, BinOp, ExprKind, IntLit};
use crate::syntax::span::{Span, Spanned};
use crate::types::size::size_of;
use crate::types::ty::{IntTy, Type};
use num_traits::ToPrimitive;

impl Checker {
    pub(crate) fn slice_expr(
        &mut self,
        base: &ast::Expr,
        from: Option<&ast::Expr>,
        to: Option<&ast::Expr>,
        inclusive: bool,
        span: Span,
    ) -> ir::Expr {
        let x = self.expr(base, None);
        let t = self.zonk(&x.ty);
        if t == error_type() {
            return error_expr(span);
        }
        // The end, exclusive: `j + 1` for `..j`.
        let end_ast = to.map(|j| match inclusive {
            true => plus_one(j),
            false => j.clone(),
        });
        let constant_from = match from {
            Some(i) => self.constant_integer(i),
            None => Some(0),
        };
        let constant_to = match &end_ast {
            Some(j) => self.constant_integer(j),
            None => Some(i128::MAX),
        };
        match &t {
            Type::String => {
                let mut args = vec![x];
                if let Some(i) = from {
                    args.push(self.int_expr(i));
                }
                if let Some(j) = &end_ast {
                    args.push(self.int_expr(j));
                }
                let prim = Prim::StrSlice {
                    from: from.is_some(),
                    to: end_ast.is_some(),
                };
                mk(ir::ExprKind::Prim(prim, args), Type::String, span)
            }
            Type::Tuple(components) => {
                let (Some(lo), Some(hi)) = (constant_from, constant_to) else {
                    self.error(crate::check::error::CheckError::Type {
                        span,
                        message: "a slice of a tuple needs constant bounds: its type depends \
                                  on them"
                            .into(),
                        help: Some(
                            "write the bounds as literals or constant `val`s, or make the \
                             tuple an array"
                                .into(),
                        ),
                    });
                    return error_expr(span);
                };
                let (lo, hi) = clamp(lo, hi, components.len() as i128);
                let x = self.computed_first(x);
                let parts = (lo..hi)
                    .map(|i| {
                        let ty = components[i].clone();
                        mk(ir::ExprKind::Field(Box::new(x.clone()), i as u32), ty, span)
                    })
                    .collect();
                self.build_tuple(parts, span)
            }
            Type::Array(elem, index) => {
                let static_count = size_of(index).and_then(|n| n.to_i128());
                if let (Some(n), Some(lo), Some(hi)) = (static_count, constant_from, constant_to) {
                    let (lo, hi) = clamp(lo, hi, n);
                    return static_slice(x, elem, lo, hi - lo, span);
                }
                let lo = match from {
                    Some(i) => self.int_expr(i),
                    None => int_const(0, Type::INT, span),
                };
                let hi = match &end_ast {
                    Some(j) => self.int_expr(j),
                    None => int_const(i64::MAX, Type::Int(IntTy::VLong), span),
                };
                let size = self.fresh_size("slice");
                let result = Type::Array(elem.clone(), crate::types::ty::TypeRef::new(size));
                mk(
                    ir::ExprKind::Prim(Prim::Slice, vec![x, lo, hi]),
                    result,
                    span,
                )
            }
            other => {
                self.type_error(
                    base.span,
                    format!("only arrays, tuples and strings can be sliced, not `{other}`"),
                );
                error_expr(span)
            }
        }
    }
}

/// `lo .. hi` clamped to `0 .. n`, never decreasing.
fn clamp(lo: i128, hi: i128, n: i128) -> (usize, usize) {
    let lo = lo.clamp(0, n);
    let hi = hi.clamp(lo, n);
    (lo as usize, hi as usize)
}

/// `count` elements of the array `a` from position `first`, of static type `T ^ count`
/// (`T ^ 1` is `T` and `T ^ 0` is unit: the element itself, or `()`).
pub(crate) fn static_slice(
    a: ir::Expr,
    elem: &Type,
    first: usize,
    count: usize,
    span: Span,
) -> ir::Expr {
    let result = Type::array(elem.clone(), Type::Unitsum(count as u64));
    match count {
        0 => mk(ir::ExprKind::Const(ir::Const::Unit), result, span),
        1 => mk(
            ir::ExprKind::Index {
                array: Box::new(a),
                index: Box::new(int_const(first as i64, Type::INT, span)),
                mode: IndexMode::Linear,
            },
            result,
            span,
        ),
        _ => mk(
            ir::ExprKind::Prim(
                Prim::Subarray,
                vec![a, int_const(first as i64, Type::SIZE, span)],
            ),
            result,
            span,
        ),
    }
}

/// `e + 1`, as written.
fn plus_one(e: &ast::Expr) -> ast::Expr {
    let one = Spanned::new(
        ExprKind::Int(IntLit {
            value: Some(1),
            suffix: String::new(),
        }),
        e.span,
    );
    Spanned::new(
        ExprKind::Binary(BinOp::Add, Box::new(e.clone()), Box::new(one)),
        e.span,
    )
}
