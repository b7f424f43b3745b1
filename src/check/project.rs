//! Projections `x.f`: fields of structs and records, components of tuples and compact
//! values, indexing of arrays.

use num_bigint::BigUint;

use crate::check::build::{error_expr, int_const, mk, Arg};
use crate::check::env::Binding;
use crate::check::error::CheckError;
use crate::check::expr::suffix_type;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, IndexMode};
use crate::syntax::ast::{self, ExprKind, IntLit};
use crate::syntax::span::Span;
use crate::types::size::size_of;
use crate::types::ty::{IntTy, NominalBody, Type};

/// A projection of a value of some type, resolved (used by `x.i` and by stores).
pub(crate) enum Projection {
    Field(u32, Type),
    CField(u32, Type),
    Index(ir::Expr, IndexMode, Type),
}

impl Checker {
    pub(crate) fn dot_expr(&mut self, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> ir::Expr {
        if let ExprKind::Float(_) = rhs.node {
            self.error(CheckError::Type {
                span: rhs.span,
                message: "`x.1.0` reads `1.0` as a floating literal".into(),
                help: Some("write `x.1 .0` or `(x.1).0`".into()),
            });
            return error_expr(span);
        }
        let l = self.expr(lhs, None);
        let lt = self.zonk(&l.ty);
        if lt == error_type() {
            return error_expr(span);
        }
        if lt.pointee().is_some() {
            return self.pointer_dot(l, rhs, span);
        }
        if self.indexes_dynamic_array(&lt, rhs) {
            return self.dynamic_element(l, rhs, span);
        }
        let errors_before = self.unit.errors.len();
        if let Some(p) = self.projection(&lt, rhs, None) {
            return self.apply_projection(l, p, span);
        }
        // A projection that failed with its own error is not tried as an application too.
        if self.unit.errors.len() > errors_before || self.misspelt_field(&lt, rhs) {
            return error_expr(span);
        }
        // Reverse application: `x.f` is `f x`.
        self.apply_ast_head(rhs, vec![Arg::Checked(l)], span, None)
    }

    pub(crate) fn apply_projection(&mut self, l: ir::Expr, p: Projection, span: Span) -> ir::Expr {
        match p {
            Projection::Field(i, t) => mk(ir::ExprKind::Field(Box::new(l), i), t, span),
            Projection::CField(i, t) => mk(ir::ExprKind::CField(Box::new(l), i), t, span),
            Projection::Index(e, mode, t) => mk(
                ir::ExprKind::Index {
                    array: Box::new(l),
                    index: Box::new(e),
                    mode,
                },
                t,
                span,
            ),
        }
    }

    /// Component `index` of a value destructured as a tuple of `count` components
    /// (tuple assignment, `def`, nested tuple parameters): the count must be the value's.
    pub(crate) fn component(
        &mut self,
        tuple: &ast::Expr,
        index: u32,
        count: u32,
        span: Span,
    ) -> ir::Expr {
        let v = self.expr(tuple, None);
        let t = self.zonk(&v.ty);
        if t == error_type() {
            return error_expr(span);
        }
        let n = match &t {
            Type::Nominal(nd) => match nd.body() {
                Some(NominalBody::Struct(fs)) => Some(fs.len() as u128),
                _ => None,
            },
            t => t.component_count(),
        };
        if n != Some(count as u128) {
            if index == 0 {
                self.type_error(
                    tuple.span,
                    format!("this is destructured into {count} components, but its value is `{t}`"),
                );
            }
            return error_expr(span);
        }
        let lit = ast::Expr::new(
            ExprKind::Int(IntLit {
                value: Some(index as u128),
                suffix: String::new(),
            }),
            span,
        );
        self.project(v, &lit, span)
    }

    /// `v.k` for an integer literal `k` on an already checked value.
    pub(crate) fn project(&mut self, v: ir::Expr, lit: &ast::Expr, span: Span) -> ir::Expr {
        let t = self.zonk(&v.ty);
        if t.pointee().is_some() {
            return self.pointer_dot(v, lit, span);
        }
        match self.projection(&t, lit, None) {
            Some(p) => self.apply_projection(v, p, span),
            None => {
                if t != error_type() {
                    self.type_error(span, format!("cannot project `{t}`"));
                }
                error_expr(span)
            }
        }
    }

    /// Resolve `x.rhs` as a projection of a value of type `ty`, if it is one: a literal
    /// component, a struct field, or an array index (an integer, or a value of the index type).
    pub(crate) fn projection(
        &mut self,
        ty: &Type,
        rhs: &ast::Expr,
        _unused: Option<()>,
    ) -> Option<Projection> {
        // One element of a distributed array lives on one process.
        if let Type::Distributed(inner) = ty {
            let inner = inner.clone();
            if self.at_owned_position(&inner, rhs) {
                return self.projection(&inner, rhs, None);
            }
            let p = self.projection(&inner, rhs, None)?;
            if let Projection::Index(index, ir::IndexMode::Linear, _) = &p {
                if self.at_owned_offset(&inner, index) {
                    return Some(p);
                }
            }
            self.needs_whole(rhs.span, "reading one element", ty);
            drop(p);
            return None;
        }
        // A component of a secret struct or compact value is secret.
        if let Type::Secret(inner) = ty {
            return self.projection(inner, rhs, None).map(|p| match p {
                Projection::Field(i, t) => Projection::Field(i, Type::secret(t)),
                Projection::CField(i, t) => Projection::CField(i, Type::secret(t)),
                Projection::Index(e, m, t) => Projection::Index(e, m, Type::secret(t)),
            });
        }
        if self.opaque_projection(ty, rhs) {
            return Some(Projection::Field(0, error_type()));
        }
        let literal = match &rhs.node {
            ExprKind::Int(lit) if suffix_type(&lit.suffix).is_ok() => lit.value,
            ExprKind::UnitsumValue(lit, _) => lit.value,
            _ => None,
        };
        if let Some(k) = literal {
            return self.literal_projection(ty, k, rhs.span);
        }
        if let ExprKind::Name(n) = &rhs.node {
            if let Some((i, t)) = self.record_field_projection(ty, n) {
                return Some(Projection::Field(i, t));
            }
            if let Type::Nominal(nd) = ty {
                if let Some(NominalBody::Struct(fields)) = nd.body() {
                    if let Some(i) = fields.iter().position(|(f, _)| **f == **n) {
                        self.note_field_use(rhs.span, nd, n);
                        return Some(Projection::Field(i as u32, fields[i].1.clone()));
                    }
                }
            }
            match self.lookup_value(n) {
                Some(Binding::Var(vb)) => {
                    let vt = self.var_type(n, &vb, rhs.span);
                    let vt = self.zonk(&vt);
                    if matches!(vt, Type::Fun(..)) {
                        return None;
                    }
                    let e = self.var_expr(n, &vb, rhs.span);
                    return self.index_projection(ty, e);
                }
                _ => return None,
            }
        }
        if matches!(
            rhs.node,
            ExprKind::Name(_)
                | ExprKind::Qualified(_)
                | ExprKind::TypeApply(..)
                | ExprKind::Lambda(_)
        ) {
            return None;
        }
        if matches!(ty, Type::Array(..) | Type::CArray(..)) {
            let e = self.expr(rhs, None);
            let et = self.zonk(&e.ty);
            if matches!(et, Type::Fun(..)) {
                return None;
            }
            return match self.index_projection(ty, e) {
                Some(p) => Some(p),
                // The index had an error of its own, already reported.
                None if et == error_type() => None,
                None => {
                    let (Type::Array(_, idx) | Type::CArray(_, idx)) = ty else {
                        unreachable!()
                    };
                    self.type_error(
                        rhs.span,
                        format!("an index of `{ty}` must be an integer or a value of `{idx}`, found `{et}`"),
                    );
                    None
                }
            };
        }
        None
    }

    fn index_projection(&mut self, ty: &Type, e: ir::Expr) -> Option<Projection> {
        let (Type::Array(elem, idx) | Type::CArray(elem, idx)) = ty else {
            return None;
        };
        let et = self.zonk(&e.ty);
        if et.has_secret() {
            // A secret position would be revealed by which element is read.
            self.secret_error(
                e.span,
                crate::check::error::SecretUse::Shape,
                "an array index or a projection",
            );
            return Some(Projection::Index(e, IndexMode::Linear, error_type()));
        }
        if matches!(et, Type::Int(_)) {
            return Some(Projection::Index(e, IndexMode::Linear, (**elem).clone()));
        }
        if et == **idx || (et.has_meta() && self.unify(&et, idx)) {
            return Some(Projection::Index(e, IndexMode::Code, (**elem).clone()));
        }
        None
    }

    fn literal_projection(&mut self, ty: &Type, k: u128, span: Span) -> Option<Projection> {
        let out_of_range = |c: &mut Checker, count: String| {
            c.error(CheckError::ProjectionRange {
                span,
                index: k,
                ty: ty.to_string(),
                count,
            });
        };
        match ty {
            Type::Record(..) => {
                self.type_error(
                    span,
                    format!("a record is not a tuple: `{ty}` has no component {k}; name a field"),
                );
                Some(Projection::Field(0, error_type()))
            }
            Type::Tuple(cs) | Type::CProduct(cs) => {
                if k as usize >= cs.len() {
                    out_of_range(self, cs.len().to_string());
                    return Some(Projection::Field(0, error_type()));
                }
                let t = cs[k as usize].clone();
                Some(if matches!(ty, Type::Tuple(_)) {
                    Projection::Field(k as u32, t)
                } else {
                    Projection::CField(k as u32, t)
                })
            }
            Type::Nominal(nd) => match nd.body() {
                Some(NominalBody::Struct(fs)) => {
                    if k as usize >= fs.len() {
                        out_of_range(self, fs.len().to_string());
                        return Some(Projection::Field(0, error_type()));
                    }
                    Some(Projection::Field(k as u32, fs[k as usize].1.clone()))
                }
                _ => None,
            },
            // A literal position of a compact array is a digit of its code, like a component
            // of a compact tuple (the unboxed and vectorised digit reads apply).
            Type::CArray(e, i) => {
                if let Some(n) = size_of(i) {
                    if BigUint::from(k) >= n {
                        out_of_range(self, n.to_string());
                        return Some(Projection::CField(0, error_type()));
                    }
                }
                Some(Projection::CField(k as u32, (**e).clone()))
            }
            Type::Array(e, i) => {
                if let Some(n) = size_of(i) {
                    if BigUint::from(k) >= n {
                        out_of_range(self, n.to_string());
                        return Some(Projection::Index(
                            int_const(0, Type::INT, span),
                            IndexMode::Linear,
                            error_type(),
                        ));
                    }
                }
                let ix = if k <= i64::MAX as u128 {
                    int_const(k as i64, Type::Int(IntTy::Long), span)
                } else {
                    int_const(i64::MAX, Type::Int(IntTy::Long), span)
                };
                Some(Projection::Index(ix, IndexMode::Linear, (**e).clone()))
            }
            _ => None,
        }
    }
}
