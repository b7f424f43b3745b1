//! Opaque types (Felix's abstract types): `type K = new R;` declares a
//! nominal type `K` whose values are stored exactly as values of its representation `R`.
//!
//! The representation is reached only through two conversions, which Felix names and Tessera
//! keeps: `_make_K : R -> K` and `_repr_ : K -> R` (one `_repr_` overload per opaque type).
//! They are bound in the scope of the declaration, so only that scope and the scopes nested in
//! it see them; everywhere else `K` has no structure. `type K;` declares `K` in a scope whose
//! `begin … end` block gives the representation (`type K = new R;` inside it): that block is
//! `K`'s *implementation block*; its functions are visible in the enclosing scope too, while
//! the conversions and everything else it defines stay inside it. Both conversions become
//! `CoerceKind::Opaque` in the IR (a no-op at run time).
//!
//! A value of an opaque type can be passed, returned, stored, put in tuples, arrays, structs
//! and variants; it has equality only if its declaration grants it (`with Eq`), and no other
//! behaviour: projecting, `:>>`, arithmetic, ordering and printing it are E0303, naming the
//! type and never its representation.

use std::collections::HashSet;
use std::sync::Arc;

use crate::check::build::{error_expr, mk, Arg};
use crate::check::env::{Binding, ScopeId, TypeBinding};
use crate::check::error::CheckError;
use crate::check::traits::Behaviour;
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, CoerceKind};
use crate::syntax::ast::{self, BinOp, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::{NominalBody, NominalDef, Type};

/// The behaviours an opaque type's declaration may grant (`with Eq`).
const GRANTABLE: &[&str] = &["Eq"];

/// The opaque type `t` is, with its representation and whether it has equality.
pub(crate) fn opaque_of(t: &Type) -> Option<(&Arc<NominalDef>, &Type, bool)> {
    match t {
        Type::Nominal(n) => match n.body() {
            Some(NominalBody::Opaque { repr, eq }) => Some((n, repr, *eq)),
            _ => None,
        },
        _ => None,
    }
}

/// The first opaque type that a value of `ty` holds (through tuples, arrays, sums, records,
/// structs and variants; a function or a pointer holds none) and that lacks behaviour `b`.
/// Only equality can be granted; no opaque type is invocable, arithmetic, ordered or printable.
pub fn lacking(ty: &Type, b: Behaviour) -> Option<Arc<NominalDef>> {
    fn go(
        t: &Type,
        b: Behaviour,
        seen: &mut HashSet<(u8, usize, usize)>,
        nominals: &mut HashSet<u32>,
    ) -> Option<Arc<NominalDef>> {
        match t {
            Type::Fun(..) | Type::Ptr(..) | Type::CPtr(..) => None,
            Type::Nominal(n) => {
                if !nominals.insert(n.id) {
                    return None;
                }
                match n.body()? {
                    NominalBody::Opaque { eq, .. } => {
                        let has = b == Behaviour::Equality && *eq;
                        (!has).then(|| n.clone())
                    }
                    NominalBody::Struct(fs) => {
                        fs.iter().find_map(|(_, f)| go(f, b, seen, nominals))
                    }
                    NominalBody::Variant(cs) => cs
                        .iter()
                        .filter_map(|(_, a)| a.as_ref())
                        .find_map(|a| go(a, b, seen, nominals)),
                }
            }
            _ => {
                if let Some(key) = t.node_key() {
                    if !seen.insert(key) {
                        return None;
                    }
                }
                t.children().find_map(|c| go(c, b, seen, nominals))
            }
        }
    }
    go(ty, b, &mut HashSet::new(), &mut HashSet::new())
}

/// The help of E0201 for an opaque type's conversion used where it is not visible.
pub(crate) fn conversion_hint(name: &str) -> Option<String> {
    (name == "_repr_" || name.starts_with("_make_")).then(|| {
        "an opaque type's conversions `_make_K` and `_repr_` are visible only in the scope that declares `K`; elsewhere use the functions that scope defines".to_string()
    })
}

impl Checker {
    /// E0303: a value of the opaque type `def` used where its structure would be needed.
    pub(crate) fn opaque_error(&mut self, span: Span, def: &NominalDef, what: impl Into<String>) {
        self.error(CheckError::OpaqueUse {
            span,
            ty: def.name.to_string(),
            what: what.into(),
        });
    }

    /// E0303 if a value of `ty` holds an opaque type lacking `b`; `what` says what was tried.
    /// Returns whether it reported.
    pub(crate) fn opaque_lacks(&mut self, ty: &Type, b: Behaviour, span: Span) -> bool {
        let Some(def) = lacking(ty, b) else {
            return false;
        };
        let what = match b {
            Behaviour::Equality => {
                "it has no equality (its declaration does not grant `Eq`)".to_string()
            }
            Behaviour::Ordered => "it is not ordered".to_string(),
            Behaviour::Arithmetic => "it is not arithmetic".to_string(),
            Behaviour::Printable => "it does not print (no `str`, `repr` or `_strr`)".to_string(),
            Behaviour::Invocable => "it cannot be applied".to_string(),
            Behaviour::CompactLinear => "it is not compact linear".to_string(),
        };
        let what = if *ty == Type::Nominal(def.clone()) {
            what
        } else {
            format!("{what}, and `{ty}` holds one")
        };
        self.opaque_error(span, &def, what);
        true
    }

    /// A binary operator with an opaque operand: E0303 unless the operator is `==`/`!=` (or
    /// `\in`) and equality is granted. `None` lets the ordinary rules run.
    pub(crate) fn opaque_operands(
        &mut self,
        op: BinOp,
        a: &Type,
        b: &Type,
        span: Span,
    ) -> Option<ir::Expr> {
        let behaviour = match op {
            BinOp::Eq | BinOp::Ne | BinOp::In | BinOp::NotIn => Behaviour::Equality,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Behaviour::Ordered,
            BinOp::And | BinOp::Or => return None,
            _ => Behaviour::Arithmetic,
        };
        if opaque_of(a).is_none() && opaque_of(b).is_none() && behaviour != Behaviour::Ordered {
            // Equality of compounds holding an opaque type is decided below, by the type.
            if behaviour == Behaviour::Equality {
                for t in [a, b] {
                    if self.opaque_lacks(t, behaviour, span) {
                        return Some(error_expr(span));
                    }
                }
            }
            return None;
        }
        for t in [a, b] {
            if self.opaque_lacks(t, behaviour, span) {
                return Some(error_expr(span));
            }
        }
        None
    }

    /// `k.0`, `k.(i)`: E0303 for an opaque `ty` (a named right side may still be a reverse
    /// application `k.f`, so only literals and index expressions are refused here).
    pub(crate) fn opaque_projection(&mut self, ty: &Type, rhs: &ast::Expr) -> bool {
        let Some((def, _, _)) = opaque_of(ty) else {
            return false;
        };
        if matches!(
            rhs.node,
            ast::ExprKind::Name(_)
                | ast::ExprKind::Qualified(_)
                | ast::ExprKind::TypeApply(..)
                | ast::ExprKind::Lambda(_)
        ) {
            return false;
        }
        let def = def.clone();
        self.opaque_error(rhs.span, &def, "it has no components to project");
        true
    }

    /// `e :>> T` where either side is opaque (and they differ): E0303.
    pub(crate) fn opaque_coerce(&mut self, s: &Type, t: &Type, span: Span) -> bool {
        let Some((def, _, _)) = opaque_of(s).or_else(|| opaque_of(t)) else {
            return false;
        };
        let def = def.clone();
        self.opaque_error(
            span,
            &def,
            "`:>>` cannot reshape it (its representation is hidden)",
        );
        true
    }

    // -----------------------------------------------------------------------------------------
    // Declarations (hoisted with the rest of their scope)
    // -----------------------------------------------------------------------------------------

    /// First hoisting pass: declare the type name of `type K …;` (body set later, so other
    /// declarations of the scope may mention `K`). A `type K = new R;` in the implementation
    /// block of an outer `type K;` completes that type instead of declaring a new one.
    pub(crate) fn declare_opaque(&mut self, s: &Stmt) -> Option<Arc<NominalDef>> {
        let StmtKind::NewType { name, .. } = &s.node else {
            return None;
        };
        if let Some(def) = self.unit.completing.get(&(self.scope, name.node.clone())) {
            return Some(def.clone());
        }
        let def = Arc::new(NominalDef::new(
            self.next_nominal,
            name.node.as_str().into(),
            Vec::new(),
        ));
        self.next_nominal += 1;
        self.declare_type(name, TypeBinding::Nominal(def.clone()));
        Some(def)
    }

    /// Second hoisting pass: the representation of each `type K = new R;` of the scope, its
    /// conversions `_make_K` and `_repr_`, and the implementation blocks of each `type K;`.
    pub(crate) fn define_opaque(
        &mut self,
        flat: &[&Stmt],
        decls: Vec<(&Stmt, Arc<NominalDef>)>,
        prelude: &mut Vec<ir::Stmt>,
    ) {
        let mut forward = Vec::new();
        for (s, def) in decls {
            let StmtKind::NewType { name, repr, grants } = &s.node else {
                continue;
            };
            let Some(repr) = repr else {
                forward.push((name.clone(), def));
                continue;
            };
            let rt = self.type_expr(repr);
            let mut eq = false;
            for g in grants {
                if GRANTABLE.contains(&g.node.as_str()) {
                    eq = true;
                } else {
                    self.error(CheckError::OpaqueDecl {
                        span: g.span,
                        message: format!(
                            "`{}` cannot be granted to an opaque type: only `Eq` can",
                            g.node
                        ),
                    });
                }
            }
            let mut self_ref = false;
            rt.walk(&mut |t| self_ref |= matches!(t, Type::Nominal(n) if n.id == def.id));
            if self_ref {
                self.error(CheckError::OpaqueDecl {
                    span: repr.span,
                    message: format!(
                        "the opaque type `{}` cannot be represented by itself",
                        name.node
                    ),
                });
            } else if eq
                && !contains_error(&rt)
                && !crate::check::traits::has(&rt, Behaviour::Equality)
            {
                self.error(CheckError::OpaqueDecl {
                    span: repr.span,
                    message: format!(
                        "`{}` cannot grant `Eq`: its representation `{rt}` has no equality",
                        name.node
                    ),
                });
            }
            if !def.set_body(NominalBody::Opaque {
                repr: rt,
                eq: eq && !self_ref,
            }) {
                // A second `type K = new …;` of one implementation block.
                self.error(CheckError::Duplicate {
                    name: name.node.clone(),
                    span: name.span,
                    previous: name.span,
                });
                continue;
            }
            let make = ast::SName::new(format!("_make_{}", name.node), name.span);
            self.declare_value(
                &make,
                Binding::Opaque {
                    make: true,
                    types: vec![(def.clone(), name.span)],
                },
            );
            let reveal = ast::SName::new("_repr_".into(), name.span);
            self.declare_value(
                &reveal,
                Binding::Opaque {
                    make: false,
                    types: vec![(def.clone(), name.span)],
                },
            );
        }
        if forward.is_empty() {
            return;
        }
        // The implementation blocks: a `begin … end` of this scope that gives `type K = new R;`
        // for a `type K;` of this scope.
        let outer = self.scope;
        for s in flat {
            let StmtKind::Block(body) = &s.node else {
                continue;
            };
            let implemented: Vec<(String, Arc<NominalDef>)> = forward
                .iter()
                .filter(|(name, _)| {
                    body.iter().any(|b| {
                        matches!(&b.node, StmtKind::NewType { name: n, repr: Some(_), .. } if n.node == name.node)
                    })
                })
                .map(|(name, def)| (name.node.clone(), def.clone()))
                .collect();
            if implemented.is_empty() {
                continue;
            }
            let inner: ScopeId = self.new_scope(Some(outer));
            for (name, def) in &implemented {
                self.unit
                    .completing
                    .insert((inner, name.clone()), def.clone());
            }
            self.scope = inner;
            self.hoist(body, prelude);
            self.scope = outer;
            for (name, _) in &implemented {
                self.unit.completing.remove(&(inner, name.clone()));
            }
            self.impl_blocks.insert(s.span, inner);
            // Export the block's functions to the enclosing scope.
            let mut exported: Vec<(String, Vec<usize>)> = self.scopes[inner]
                .values
                .iter()
                .filter_map(|(n, b)| match b {
                    Binding::Funs(list) => Some((n.clone(), list.clone())),
                    _ => None,
                })
                .collect();
            exported.sort_by_key(|(_, list)| list[0]);
            for (n, list) in exported {
                let span = self.funs[list[0]].span;
                self.declare_value(&ast::SName::new(n, span), Binding::Funs(list));
            }
        }
        for (name, def) in forward {
            if def.body().is_none() {
                self.error(CheckError::OpaqueDecl {
                    span: name.span,
                    message: format!(
                        "the opaque type `{}` has no representation: give it with `type {} = new T;` in a `begin … end` block of the same scope",
                        name.node, name.node
                    ),
                });
                def.set_body(NominalBody::Opaque {
                    repr: error_type(),
                    eq: true,
                });
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // The conversions `_make_K` and `_repr_`
    // -----------------------------------------------------------------------------------------

    /// Every opaque type whose `_repr_` is visible here, innermost scope first (the overloads
    /// of `_repr_`; a variable or function named `_repr_` ends the search).
    fn visible_reprs(&self) -> Vec<(Arc<NominalDef>, Span)> {
        let mut out = Vec::new();
        let mut s = Some(self.scope);
        while let Some(id) = s {
            match self.scopes[id].values.get("_repr_") {
                Some(Binding::Opaque { make: false, types }) => out.extend(types.iter().cloned()),
                Some(_) => break,
                None => {}
            }
            s = self.scopes[id].parent;
        }
        out
    }

    /// `_make_K r` or `_repr_ k` applied to its first argument (further arguments apply the
    /// result).
    pub(crate) fn apply_opaque(
        &mut self,
        make: bool,
        types: &[(Arc<NominalDef>, Span)],
        mut args: Vec<Arg>,
        name_span: Span,
        span: Span,
    ) -> ir::Expr {
        let first = args.remove(0);
        let converted = if make {
            let def = types[0].0.clone();
            let repr = match def.body() {
                Some(NominalBody::Opaque { repr, .. }) => repr.clone(),
                _ => error_type(),
            };
            let v = self.arg_expr(first, Some(&repr));
            let v = self.coerce_to(v, &repr, &format!("the argument of `_make_{}`", def.name));
            mk(
                ir::ExprKind::Coerce(CoerceKind::Opaque, Box::new(v)),
                Type::Nominal(def),
                span,
            )
        } else {
            let v = self.arg_expr(first, None);
            let t = self.zonk(&v.ty);
            if contains_error(&t) {
                return error_expr(span);
            }
            let visible = self.visible_reprs();
            match opaque_of(&t) {
                Some((def, repr, _)) if visible.iter().any(|(d, _)| d == def) => mk(
                    ir::ExprKind::Coerce(CoerceKind::Opaque, Box::new(v)),
                    repr.clone(),
                    span,
                ),
                Some((def, _, _)) => {
                    let def = def.clone();
                    self.opaque_error(
                        name_span,
                        &def,
                        "its representation is hidden here: `_repr_` works only in the scope that declares it",
                    );
                    return error_expr(span);
                }
                None => {
                    self.error(CheckError::NoOverload {
                        span: v.span,
                        message: format!("`_repr_` needs a value of an opaque type, found `{t}`"),
                        behaviour: "invocable",
                        help: None,
                    });
                    return error_expr(span);
                }
            }
        };
        self.call_rest(converted, args, span)
    }

    /// `_make_K` or `_repr_` used as a value: a function when the expected type says which.
    pub(crate) fn opaque_value(
        &mut self,
        n: &str,
        make: bool,
        types: Vec<(Arc<NominalDef>, Span)>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        let param = match expected.map(|t| self.zonk(t)) {
            Some(Type::Fun(a, _)) => Some((*a).clone()),
            _ if make => match types[0].0.body() {
                Some(NominalBody::Opaque { repr, .. }) => Some(repr.clone()),
                _ => None,
            },
            _ => None,
        };
        match param {
            Some(a) if !a.has_meta() => self.synthetic_fun(n, a, span, move |c, p| {
                c.apply_opaque(make, &types, vec![Arg::Checked(p)], span, span)
            }),
            _ => {
                self.error(CheckError::CannotInfer {
                    span,
                    message: format!(
                        "which `{n}` is meant cannot be inferred here: apply it, or give the parameter type (`fun (k:K) => {n} k`)"
                    ),
                });
                error_expr(span)
            }
        }
    }
}
