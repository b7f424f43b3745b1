//! Pointers: `&x`, `&<x`, `&>x`, pointer projections, `*p`, `p <- v` and
//! `C_hack::cast`.
//!
//! A pointer expression keeps the path it was formed with: `&x.a.(i)` is one
//! `AddrOf { place: x, path: [a, i] }`, and projecting a pointer extends its path, so a chain
//! of projections is resolved to positions once, when the pointer is made. A projection into
//! a compact value gives a `_pclt<D, C>`; the evaluator turns such a path into one
//! digit of the code of `D`.

use crate::check::build::{error_expr, mk};
use crate::check::error::CheckError;
use crate::check::project::Projection;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, PathStep};
use crate::syntax::ast::{self, ExprKind, PtrMode};
use crate::syntax::span::Span;
use crate::types::iso::{classify, Iso};
use crate::types::kind::is_compact;
use crate::types::ty::Type;

use super::env::Binding;

/// What a pointer of type `pointer` to a value of type `whole` gives when projected to a
/// component of type `component` (a component of a compact value included).
fn projected_pointer(pointer: &Type, component: Type) -> Option<Type> {
    match pointer {
        Type::Ptr(mode, whole) if is_compact(whole) => {
            Some(Type::cptr(*mode, (**whole).clone(), component))
        }
        Type::Ptr(mode, _) => Some(Type::ptr(*mode, component)),
        Type::CPtr(mode, whole, _) => Some(Type::cptr(*mode, (**whole).clone(), component)),
        _ => None,
    }
}

fn mode_name(mode: PtrMode) -> &'static str {
    match mode {
        PtrMode::ReadWrite => "&",
        PtrMode::Read => "&<",
        PtrMode::Write => "&>",
    }
}

impl Checker {
    /// `&x`, `&<x`, `&>x`, and `&x.a.b`, which is `((&x).a).b`.
    pub(crate) fn address_expr(
        &mut self,
        mode: PtrMode,
        target: &ast::Expr,
        span: Span,
    ) -> ir::Expr {
        let mut steps = Vec::new();
        let mut root = target;
        while let ExprKind::Dot(lhs, rhs) = &root.node {
            steps.push(rhs.as_ref());
            root = lhs;
        }
        steps.reverse();
        // `&(x.1)`: the parentheses make the projection a value, which has no address;
        // the parser keeps them only in the span.
        if !steps.is_empty() && target.span.start < root.span.start {
            self.error(CheckError::NotAddressable {
                span: target.span,
                what: "an expression (`&x.1` is `(&x).1`, a pointer to the component)".into(),
            });
            return error_expr(span);
        }
        let Some(pointer) = self.variable_address(mode, root) else {
            return error_expr(span);
        };
        let mut pointer = pointer;
        for rhs in steps {
            let span = pointer.span.to(rhs.span);
            pointer = self.pointer_dot(pointer, rhs, span);
            if pointer.ty == error_type() {
                return pointer;
            }
        }
        pointer
    }

    /// The pointer of mode `mode` to the variable `root` names; E0702 when it is not a
    /// variable that has an address.
    fn variable_address(&mut self, mode: PtrMode, root: &ast::Expr) -> Option<ir::Expr> {
        let not_addressable = |c: &mut Checker, what: String| {
            c.error(CheckError::NotAddressable {
                span: root.span,
                what,
            });
            None
        };
        let ExprKind::Name(name) = &root.node else {
            return not_addressable(self, "an expression".into());
        };
        let vb = match self.lookup_value(name) {
            Some(Binding::Var(vb)) => vb,
            Some(_) => return not_addressable(self, format!("`{name}`, which is not a variable")),
            None => {
                self.error(CheckError::UndefinedName {
                    name: name.clone(),
                    span: root.span,
                    what: "variable",
                    hint: None,
                });
                return None;
            }
        };
        if !vb.mutable && mode != PtrMode::Read {
            return not_addressable(
                self,
                format!("`{name}`, which is a `val` or a parameter (`&<{name}` reads a `val`)"),
            );
        }
        let root_ty = self.var_type(name, &vb, root.span);
        let place = match self.var_access(&vb) {
            ir::ExprKind::Global(s) => ir::Place::Global(s),
            ir::ExprKind::LocalCell(s) => ir::Place::LocalCell(s),
            ir::ExprKind::CaptureCell(i) => ir::Place::CaptureCell(i),
            _ => {
                return not_addressable(
                    self,
                    format!("`{name}`, a value parameter or loop variable (declare a parameter `var` to address it)"),
                )
            }
        };
        if mode.can_write() {
            self.note_effect();
        }
        Some(mk(
            ir::ExprKind::AddrOf {
                place,
                root_ty: root_ty.clone(),
                path: Vec::new(),
            },
            Type::ptr(mode, root_ty),
            root.span,
        ))
    }

    /// `p.rhs` for a pointer `p`: a pointer to the component, or, when `rhs` is not a
    /// projection of the target, the reverse application `rhs p`.
    pub(crate) fn pointer_dot(
        &mut self,
        pointer: ir::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> ir::Expr {
        let pointer_ty = self.zonk(&pointer.ty);
        let Some((_, target)) = pointer_ty.pointee() else {
            return self.apply_ast_head(rhs, vec![super::build::Arg::Checked(pointer)], span, None);
        };
        let target = target.clone();
        let (step, component) = match self.projection(&target, rhs, None) {
            Some(Projection::Field(i, t)) | Some(Projection::CField(i, t)) => {
                (PathStep::Field(i), t)
            }
            Some(Projection::Index(e, mode, t)) => (PathStep::Index(e, mode), t),
            // A literal that projects nothing: not an application (`2 p` would project again).
            None if matches!(rhs.node, ExprKind::Int(_) | ExprKind::UnitsumValue(..)) => {
                if target != error_type() && !target.has_meta() {
                    self.type_error(span, format!("cannot project `{target}`"));
                }
                return error_expr(span);
            }
            None => {
                return self.apply_ast_head(
                    rhs,
                    vec![super::build::Arg::Checked(pointer)],
                    span,
                    None,
                )
            }
        };
        if component == error_type() {
            return error_expr(span);
        }
        let Some(ty) = projected_pointer(&pointer_ty, component) else {
            return error_expr(span);
        };
        self.extend_pointer(pointer, step, ty, span)
    }

    /// The pointer `pointer` extended by one step, typed `ty`.
    fn extend_pointer(
        &mut self,
        pointer: ir::Expr,
        step: PathStep,
        ty: Type,
        span: Span,
    ) -> ir::Expr {
        let ir::Expr { kind, .. } = pointer;
        let kind = match kind {
            ir::ExprKind::AddrOf {
                place,
                root_ty,
                mut path,
            } => {
                path.push(step);
                ir::ExprKind::AddrOf {
                    place,
                    root_ty,
                    path,
                }
            }
            ir::ExprKind::PtrProject { pointer, mut path } => {
                path.push(step);
                ir::ExprKind::PtrProject { pointer, path }
            }
            kind => ir::ExprKind::PtrProject {
                pointer: Box::new(mk(kind, self.zonk(&pointer.ty), pointer.span)),
                path: vec![step],
            },
        };
        mk(kind, ty, span)
    }

    /// `*p`: the value a pointer points at.
    pub(crate) fn deref_expr(&mut self, operand: &ast::Expr, span: Span) -> ir::Expr {
        let p = self.expr(operand, None);
        let t = self.zonk(&p.ty);
        if t == error_type() {
            return error_expr(span);
        }
        match t.pointee() {
            Some((mode, target)) if mode.can_read() => {
                let target = target.clone();
                mk(ir::ExprKind::Deref(Box::new(p)), target, span)
            }
            Some(_) => {
                self.type_error(
                    span,
                    format!("cannot read through the write-only pointer `{t}`"),
                );
                error_expr(span)
            }
            None => {
                self.error(CheckError::Type {
                    span: operand.span,
                    message: format!("`*` needs a pointer, found `{t}`"),
                    help: Some(
                        "prefix `*` reads through a pointer; if you meant a power (`2 ** 10`), Felix has no `**`: use `pow (2.0, 10.0)` for doubles, or a loop for integers"
                            .to_string(),
                    ),
                });
                error_expr(span)
            }
        }
    }

    /// `p <- v;`: a store through a pointer.
    pub(crate) fn store_at(&mut self, pointer: &ast::Expr, value: &ast::Expr) -> Option<ir::Stmt> {
        let p = self.expr(pointer, None);
        let t = self.zonk(&p.ty);
        if t == error_type() {
            return None;
        }
        let target = match t.pointee() {
            Some((mode, target)) if mode.can_write() => target.clone(),
            Some(_) => {
                self.type_error(
                    pointer.span,
                    format!("cannot store through the read-only pointer `{t}`"),
                );
                return None;
            }
            None => {
                self.type_error(
                    pointer.span,
                    format!("`<-` stores through a pointer, found `{t}`"),
                );
                return None;
            }
        };
        self.note_effect();
        let v = self.expr(value, Some(&target));
        let v = self.coerce_to(v, &target, "this store");
        Some(ir::Stmt::StoreAt {
            pointer: p,
            value: v,
        })
    }

    /// `C_hack::cast[&U] p`, a pointer reshape: `p : &T` seen as `&U`, `T` and `U`
    /// layout-identical.
    pub(crate) fn pointer_cast(&mut self, to: Type, p: ir::Expr, span: Span) -> ir::Expr {
        let from = self.zonk(&p.ty);
        if from == error_type() || to == error_type() {
            return error_expr(span);
        }
        let (Some((from_mode, from_target)), Some((to_mode, to_target))) =
            (from.pointee(), to.pointee())
        else {
            self.type_error(
                span,
                format!("`C_hack::cast` converts a pointer to a pointer, not `{from}` to `{to}`"),
            );
            return error_expr(span);
        };
        if !matches!(from, Type::Ptr(..))
            || !matches!(to, Type::Ptr(..))
            || !from_mode.converts_to(to_mode)
        {
            self.type_error(
                span,
                format!(
                    "`C_hack::cast` views a `{}T` as a `{}U`, not `{from}` as `{to}`",
                    mode_name(from_mode),
                    mode_name(to_mode)
                ),
            );
            return error_expr(span);
        }
        if let Iso::NotIsomorphic { a, b, mismatch } = classify(from_target, to_target) {
            self.error(CheckError::NotIsomorphic {
                span,
                from: from_target.to_string(),
                to: to_target.to_string(),
                detail: format!("normal forms: {a} vs {b}; {mismatch}"),
            });
            return error_expr(span);
        }
        mk(ir::ExprKind::PtrCast(Box::new(p)), to, span)
    }
}
