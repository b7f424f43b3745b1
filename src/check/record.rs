//! Records: record types and literals, field names, record patterns, record
//! subtyping of arguments and structs built from records.
//!
//! A record value is represented exactly as a tuple of its fields in sorted order, so field
//! access is `ir::ExprKind::Field` and stores, copies and zero values work unchanged. The
//! only record-specific IR are two conversions: `Prim::Permute` (a literal written out of
//! sorted order, evaluated in source order) and `Prim::Upcast` (subtype coercion).

use std::sync::Arc;

use crate::check::build::{error_expr, mk};
use crate::check::error::CheckError;
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, PatternKind, Prim};
use crate::syntax::ast::{self, SName};
use crate::syntax::span::Span;
use crate::types::subtype::is_subtype;
use crate::types::ty::{NominalBody, Type};

impl Checker {
    /// E0202 for every name of `names` that repeats an earlier one; true when all differ.
    fn distinct_field_names<'a>(&mut self, names: impl Iterator<Item = &'a SName>) -> bool {
        let mut seen: Vec<&SName> = Vec::new();
        let mut ok = true;
        for name in names {
            if let Some(previous) = seen.iter().find(|p| p.node == name.node) {
                self.error(CheckError::Duplicate {
                    name: name.node.clone(),
                    span: name.span,
                    previous: previous.span,
                });
                ok = false;
            } else {
                seen.push(name);
            }
        }
        ok
    }

    /// `(a:int, b:string)`.
    pub(crate) fn record_type(&mut self, fields: &[(SName, ast::TypeExpr)]) -> Type {
        let types: Vec<Type> = fields.iter().map(|(_, t)| self.type_expr(t)).collect();
        if !self.distinct_field_names(fields.iter().map(|(n, _)| n)) {
            return error_type();
        }
        Type::record(
            fields
                .iter()
                .zip(types)
                .map(|((n, _), t)| (Arc::from(n.node.as_str()), t))
                .collect(),
        )
    }

    /// `(b="x", a=1)`: fields evaluated in source order, stored sorted by name.
    pub(crate) fn record_literal(
        &mut self,
        fields: &[(SName, ast::Expr)],
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        let expected = expected.map(|t| self.zonk(t));
        let values: Vec<ir::Expr> = fields
            .iter()
            .map(|(n, e)| {
                let hint = expected
                    .as_ref()
                    .and_then(|t| t.record_field(&n.node).map(|(_, t)| t.clone()));
                self.expr(e, hint.as_ref())
            })
            .collect();
        if !self.distinct_field_names(fields.iter().map(|(n, _)| n)) {
            return error_expr(span);
        }
        let named: Vec<(Arc<str>, Type)> = fields
            .iter()
            .zip(&values)
            .map(|((n, _), v)| (Arc::from(n.node.as_str()), self.zonk(&v.ty)))
            .collect();
        let ty = Type::record(named);
        // Position of each source field in the sorted record.
        let order: Vec<u32> = fields
            .iter()
            .map(|(n, _)| ty.record_field(&n.node).expect("a field of the record").0 as u32)
            .collect();
        if order.iter().enumerate().all(|(k, &p)| k as u32 == p) {
            return mk(ir::ExprKind::Tuple(values), ty, span);
        }
        mk(
            ir::ExprKind::Prim(Prim::Permute(order.into()), values),
            ty,
            span,
        )
    }

    /// `r.a`, for a record type with a field `a`: its position and type.
    pub(crate) fn record_field_projection(&self, ty: &Type, name: &str) -> Option<(u32, Type)> {
        ty.record_field(name).map(|(i, t)| (i as u32, t.clone()))
    }

    /// The named fields of a record or struct type, in storage order.
    pub(crate) fn named_fields(ty: &Type) -> Option<Vec<(Arc<str>, Type)>> {
        match ty {
            Type::Record(..) => ty
                .record_fields()
                .map(|fs| fs.map(|(n, t)| (Arc::from(n), t.clone())).collect()),
            Type::Nominal(nd) => match nd.body() {
                Some(NominalBody::Struct(fs)) => Some(fs.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `(a=p, b=q)` against a record (or struct): each named field must exist; the other
    /// fields are not looked at.
    pub(crate) fn record_pattern(
        &mut self,
        fields: &[(SName, ast::Pattern)],
        ty: &Type,
        span: Span,
    ) -> ir::Pattern {
        let wildcard = |ty: Type| ir::Pattern {
            kind: PatternKind::Wildcard,
            ty,
            span,
        };
        let Some(all) = Self::named_fields(ty) else {
            if *ty != error_type() {
                self.type_error(
                    span,
                    format!("this pattern is a record, but the value is `{ty}`"),
                );
            }
            return wildcard(ty.clone());
        };
        self.distinct_field_names(fields.iter().map(|(n, _)| n));
        let mut parts: Vec<ir::Pattern> = all.iter().map(|(_, t)| wildcard(t.clone())).collect();
        for (name, p) in fields {
            match all.iter().position(|(f, _)| **f == *name.node) {
                Some(i) => parts[i] = self.pattern(p, &all[i].1),
                None => self.type_error(name.span, format!("`{ty}` has no field `{}`", name.node)),
            }
        }
        ir::Pattern {
            kind: PatternKind::Tuple(parts),
            ty: ty.clone(),
            span,
        }
    }

    /// An argument of type `from` passed where `to` is expected, when `from` is a proper
    /// subtype of `to`: the explicit copy that drops the extra fields. `None` when
    /// it is not a subtype (or the types are not known yet).
    pub(crate) fn upcast_argument(&mut self, e: &ir::Expr, to: &Type) -> Option<ir::Expr> {
        let from = self.zonk(&e.ty);
        let to = self.zonk(to);
        if from.has_meta() || to.has_meta() || contains_error(&from) || contains_error(&to) {
            return None;
        }
        if from == to || !is_subtype(&from, &to) {
            return None;
        }
        let mut e = e.clone();
        e.ty = from;
        let span = e.span;
        Some(mk(ir::ExprKind::Prim(Prim::Upcast, vec![e]), to, span))
    }

    /// Use `e` as an argument of parameter type `t`: as `coerce_to`, and also by record
    /// subtyping (only arguments are coerced that way).
    pub(crate) fn coerce_argument(&mut self, e: ir::Expr, t: &Type, context: &str) -> ir::Expr {
        if self.assignable(&e.ty, t).is_none() {
            if let Some(up) = self.upcast_argument(&e, t) {
                return up;
            }
        }
        self.coerce_to(e, t, context)
    }

    /// Can an argument of type `from` be passed for a parameter of type `to` by record
    /// subtyping (for overload resolution)?
    pub(crate) fn argument_subtype(&mut self, from: &Type, to: &Type) -> bool {
        let from = self.zonk(from);
        let to = self.zonk(to);
        !from.has_meta() && !to.has_meta() && is_subtype(&from, &to)
    }

    /// `X (c=4.2, a=1, b="x")`: a struct from a record by field name, each field exactly once.
    /// `v` is the checked record.
    pub(crate) fn struct_from_record(
        &mut self,
        struct_ty: Type,
        fields: &[(Arc<str>, Type)],
        v: ir::Expr,
        span: Span,
    ) -> ir::Expr {
        let rt = self.zonk(&v.ty);
        let given: Vec<(Arc<str>, Type)> = rt
            .record_fields()
            .map(|fs| fs.map(|(n, t)| (Arc::from(n), t.clone())).collect())
            .unwrap_or_default();
        let missing: Vec<&str> = fields
            .iter()
            .filter(|(f, _)| !given.iter().any(|(g, _)| g == f))
            .map(|(f, _)| &**f)
            .collect();
        let extra: Vec<&str> = given
            .iter()
            .filter(|(g, _)| !fields.iter().any(|(f, _)| f == g))
            .map(|(g, _)| &**g)
            .collect();
        if !missing.is_empty() || !extra.is_empty() {
            let mut problems = Vec::new();
            if !missing.is_empty() {
                problems.push(format!("no field `{}`", missing.join("`, `")));
            }
            if !extra.is_empty() {
                problems.push(format!(
                    "no field of `{struct_ty}` named `{}`",
                    extra.join("`, `")
                ));
            }
            self.error(CheckError::Type {
                span: v.span,
                message: format!(
                    "the record `{rt}` does not give each field of `{struct_ty}` exactly once: {}",
                    problems.join("; ")
                ),
                help: None,
            });
            return error_expr(span);
        }
        for (f, ft) in fields {
            let (_, t) = rt.record_field(f).expect("checked above");
            // A field of a parametric struct whose type arguments are being inferred
            // (`Box (v=5)`): the record's field decides.
            let ft = &if ft.has_meta() {
                self.unify(ft, t);
                self.zonk(ft)
            } else {
                ft.clone()
            };
            if !is_subtype(t, ft) {
                self.error(CheckError::Mismatch {
                    span: v.span,
                    expected: ft.to_string(),
                    found: t.to_string(),
                    context: format!("field `{f}` of `{struct_ty}`"),
                    help: None,
                });
                return error_expr(span);
            }
        }
        // One evaluation of the record, then its fields by name in declaration order.
        let struct_ty = self.zonk(&struct_ty);
        mk(ir::ExprKind::Prim(Prim::Upcast, vec![v]), struct_ty, span)
    }

    /// The record type with the fields of a struct: the expected type of a record literal
    /// given to the struct's constructor.
    pub(crate) fn struct_as_record(fields: &[(Arc<str>, Type)]) -> Type {
        Type::record(fields.to_vec())
    }
}
