//! Felix's extension `extend a, b with c end` and its type `extend A, B with C end`.
//!
//! When the extension `c` is a record, every base must be a record too, and the result is the
//! record of all their fields, where a field of a later operand (the extension last) replaces
//! a field of the same name of an earlier one. Otherwise the result is the tuple of the
//! components of the operands in order: a tuple gives its components, an array over a unitsum
//! its elements, any other value itself; as for any tuple, components all of one type make an
//! array. The operands are evaluated once, in order.

use std::sync::Arc;

use crate::check::build::{error_expr, mk, read_place, unit_const};
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, PatternKind, Place};
use crate::syntax::ast;
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// Where each component of the result comes from: an operand, and its field or component
/// (`None`: the operand itself).
struct Source {
    operand: usize,
    part: Option<usize>,
    ty: Type,
}

/// The result of an extension: a record (fields by name) or a tuple.
enum Layout {
    Record(Vec<(Arc<str>, Source)>),
    Tuple(Vec<Source>),
}

impl Layout {
    fn result_type(&self) -> Type {
        match self {
            Layout::Record(fields) => Type::record(
                fields
                    .iter()
                    .map(|(n, s)| (n.clone(), s.ty.clone()))
                    .collect(),
            ),
            Layout::Tuple(parts) => Type::tuple(parts.iter().map(|s| s.ty.clone()).collect()),
        }
    }

    fn sources(&self) -> Vec<&Source> {
        match self {
            Layout::Record(fields) => fields.iter().map(|(_, s)| s).collect(),
            Layout::Tuple(parts) => parts.iter().collect(),
        }
    }
}

/// The largest array whose elements an extension spreads.
const MAX_SPREAD: u64 = 4096;

impl Checker {
    /// `extend A, B with C end`.
    pub(crate) fn extend_type(
        &mut self,
        bases: &[ast::TypeExpr],
        extension: &ast::TypeExpr,
    ) -> Type {
        let mut types: Vec<Type> = bases.iter().map(|b| self.type_expr(b)).collect();
        types.push(self.type_expr(extension));
        if types.iter().any(contains_error) {
            return error_type();
        }
        let spans: Vec<Span> = bases.iter().chain([extension]).map(|t| t.span).collect();
        match self.extension_layout(&types, &spans) {
            Some(layout) => layout.result_type(),
            None => error_type(),
        }
    }

    /// `extend a, b with c end`: a match of the operands, bound to variables the program
    /// cannot name, whose one arm builds the result.
    pub(crate) fn extend_expr(
        &mut self,
        bases: &[ast::Expr],
        extension: &ast::Expr,
        span: Span,
    ) -> ir::Expr {
        let mut operands: Vec<ir::Expr> = bases.iter().map(|b| self.expr(b, None)).collect();
        operands.push(self.expr(extension, None));
        let types: Vec<Type> = operands.iter().map(|e| self.zonk(&e.ty)).collect();
        if types.iter().any(contains_error) {
            return error_expr(span);
        }
        let spans: Vec<Span> = operands.iter().map(|e| e.span).collect();
        let Some(layout) = self.extension_layout(&types, &spans) else {
            return error_expr(span);
        };
        // A variable for each part of an operand the result takes.
        let record = matches!(layout, Layout::Record(_));
        let mut places: Vec<Vec<Option<Place>>> = types
            .iter()
            .map(|t| vec![None; spread(record, t).map_or(1, |p| p.len())])
            .collect();
        let mut reads = Vec::new();
        for source in layout.sources() {
            let place = self.hidden_place();
            places[source.operand][source.part.unwrap_or(0)] = Some(place);
            reads.push(mk(read_place(place), source.ty.clone(), span));
        }
        let patterns: Vec<ir::Pattern> = types
            .iter()
            .zip(&places)
            .zip(&spans)
            .map(|((t, parts), &at)| {
                let part_types = spread(record, t);
                let leaf = |place: &Option<Place>, ty: Type| ir::Pattern {
                    kind: match place {
                        Some(p) => PatternKind::Bind(*p),
                        None => PatternKind::Wildcard,
                    },
                    ty,
                    span: at,
                };
                match part_types {
                    None => leaf(&parts[0], t.clone()),
                    Some(pts) => ir::Pattern {
                        kind: PatternKind::Tuple(
                            parts
                                .iter()
                                .zip(pts)
                                .map(|(place, ty)| leaf(place, ty))
                                .collect(),
                        ),
                        ty: t.clone(),
                        span: at,
                    },
                }
            })
            .collect();
        let result_ty = layout.result_type();
        let body = match &layout {
            Layout::Record(_) => mk(ir::ExprKind::Tuple(reads), result_ty.clone(), span),
            Layout::Tuple(_) => match reads.len() {
                0 => unit_const(span),
                1 => reads.pop().expect("one component"),
                _ => self.build_tuple(reads, span),
            },
        };
        let scrutinee = self.build_tuple(operands, span);
        let pattern = ir::Pattern {
            kind: PatternKind::Tuple(patterns),
            ty: scrutinee.ty.clone(),
            span,
        };
        let arm = ir::Arm {
            patterns: vec![pattern],
            guard: None,
            body,
        };
        mk(
            ir::ExprKind::Match(Box::new(scrutinee), vec![arm]),
            result_ty,
            span,
        )
    }

    /// Where the result's components come from, given the operands' types (the extension
    /// last); `None` after reporting an operand that does not fit.
    fn extension_layout(&mut self, types: &[Type], spans: &[Span]) -> Option<Layout> {
        let last = types.len() - 1;
        if let Type::Record(..) = &types[last] {
            let mut fields: Vec<(Arc<str>, Source)> = Vec::new();
            let mut ok = true;
            for (operand, t) in types.iter().enumerate() {
                let Some(fs) = t.record_fields() else {
                    self.type_error(
                        spans[operand],
                        format!(
                            "the extension is a record, so each base must be a record too, but this is `{t}`"
                        ),
                    );
                    ok = false;
                    continue;
                };
                for (part, (name, ty)) in fs.enumerate() {
                    let source = Source {
                        operand,
                        part: Some(part),
                        ty: ty.clone(),
                    };
                    match fields.iter_mut().find(|(n, _)| **n == *name) {
                        Some(field) => field.1 = source,
                        None => fields.push((Arc::from(name), source)),
                    }
                }
            }
            if !ok {
                return None;
            }
            // Stored in the record's order, by name.
            fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            return Some(Layout::Record(fields));
        }
        let mut parts = Vec::new();
        for (operand, t) in types.iter().enumerate() {
            if let Type::Array(_, index) = t {
                if let Type::Unitsum(n) = **index {
                    if n > MAX_SPREAD {
                        self.type_error(
                            spans[operand],
                            format!(
                                "an extension spreads the elements of an array of at most {MAX_SPREAD}, but this is `{t}`"
                            ),
                        );
                        return None;
                    }
                }
            }
            match spread(false, t) {
                Some(pts) => parts.extend(pts.into_iter().enumerate().map(|(k, ty)| Source {
                    operand,
                    part: Some(k),
                    ty,
                })),
                None => parts.push(Source {
                    operand,
                    part: None,
                    ty: t.clone(),
                }),
            }
        }
        Some(Layout::Tuple(parts))
    }
}

/// The parts an extension takes an operand apart into: a record's fields (`record`: the
/// extension is a record), or a tuple's components or an array's elements (over a unitsum);
/// `None` for a value taken whole.
fn spread(record: bool, t: &Type) -> Option<Vec<Type>> {
    if record {
        t.record_fields()
            .map(|fs| fs.map(|(_, ty)| ty.clone()).collect())
    } else {
        t.tuple_components()
    }
}
