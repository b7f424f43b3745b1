//! The small pieces every part of the checker builds with: constructors of IR expressions,
//! and the argument of an application.

use crate::check::error_type;
use crate::core::ir::{self, Const};
use crate::syntax::ast;
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// An IR expression of this kind, type and span.
/// The expression that reads the variable at `place`.
pub(crate) fn read_place(place: ir::Place) -> ir::ExprKind {
    match place {
        ir::Place::Local(s) => ir::ExprKind::Local(s),
        ir::Place::LocalCell(s) => ir::ExprKind::LocalCell(s),
        ir::Place::Global(s) => ir::ExprKind::Global(s),
        ir::Place::CaptureCell(c) => ir::ExprKind::CaptureCell(c),
    }
}

pub(crate) fn mk(kind: ir::ExprKind, ty: Type, span: Span) -> ir::Expr {
    ir::Expr { kind, ty, span }
}

/// An integer constant of type `ty`.
pub(crate) fn int_const(v: i64, ty: Type, span: Span) -> ir::Expr {
    mk(ir::ExprKind::Const(Const::Int(v)), ty, span)
}

/// The placeholder for an expression that failed to check (of the error type, so no
/// further error is reported about it).
pub(crate) fn error_expr(span: Span) -> ir::Expr {
    mk(ir::ExprKind::Const(Const::Unit), error_type(), span)
}

/// A unit constant.
pub(crate) fn unit_const(span: Span) -> ir::Expr {
    ir::Expr {
        kind: ir::ExprKind::Const(ir::Const::Unit),
        ty: Type::UNIT,
        span,
    }
}

/// An argument of an application: not yet checked (so it can be checked against the
/// parameter type), or already checked (the left side of `x.f`, `x |> f`).
#[derive(Clone)]
pub(crate) enum Arg<'a> {
    Ast(&'a ast::Expr),
    Checked(ir::Expr),
}
