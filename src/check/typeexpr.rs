//! Type expressions to types: names, typedefs (resolved on demand, so they are visible in
//! their whole scope), unitsum arithmetic, and the kind rules of L2.13/L2.14.

use crate::check::env::TypeBinding;
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::syntax::ast::{TypeExpr, TypeExprKind, UnitsumOp};
use crate::types::kind::{compact_hint, is_compact};
use crate::types::ty::{IntTy, Type};

/// The scalar type named `name`, if it is one of the built-in names.
pub fn builtin_type(name: &str) -> Option<Type> {
    Some(match name {
        "void" => Type::VOID,
        "unit" => Type::UNIT,
        "bool" => Type::BOOL,
        "float" => Type::Float,
        "double" => Type::Double,
        "string" => Type::String,
        "char" => Type::Char,
        "natural" => Type::Natural,
        other => Type::Int(IntTy::from_name(other)?),
    })
}

impl Checker {
    pub(crate) fn type_expr(&mut self, te: &TypeExpr) -> Type {
        let t = self.type_expr_node(te);
        // A compact type whose size cannot even be computed (more than MAX_SIZE_BITS bits)
        // cannot be iterated, decoded or counted: refuse it here, once.
        if matches!(t, Type::CProduct(_) | Type::CSum(_) | Type::CArray(..))
            && !t.has_var()
            && !t.has_meta()
            && is_compact(&t)
            && crate::types::size::size_of(&t).is_none()
        {
            self.error(CheckError::Type {
                span: te.span,
                message: format!(
                    "the size of `{t}` has more than {} bits: too large to compute",
                    crate::types::size::MAX_SIZE_BITS
                ),
                help: None,
            });
            return error_type();
        }
        t
    }

    fn type_expr_node(&mut self, te: &TypeExpr) -> Type {
        match &te.node {
            TypeExprKind::Name(name) => self.type_name(name, te),
            TypeExprKind::Unitsum(lit) => match lit.value.and_then(|v| u64::try_from(v).ok()) {
                Some(n) if lit.suffix.is_empty() => Type::Unitsum(n),
                _ => {
                    self.type_error(
                        te.span,
                        "a unitsum type must be a plain integer literal below 2^64",
                    );
                    error_type()
                }
            },
            TypeExprKind::Unit => Type::UNIT,
            TypeExprKind::Record(fields) => self.record_type(fields),
            TypeExprKind::Product(cs) => {
                let comps = cs.iter().map(|c| self.type_expr(c)).collect();
                Type::tuple(comps)
            }
            TypeExprKind::Sum(cs) => {
                let comps = cs.iter().map(|c| self.type_expr(c)).collect();
                Type::sum(comps)
            }
            TypeExprKind::CProduct(cs) => {
                let comps = cs
                    .iter()
                    .map(|c| self.compact_operand(c, "an operand of `\\*`"))
                    .collect();
                Type::cproduct(comps)
            }
            TypeExprKind::CSum(cs) => {
                let comps = cs
                    .iter()
                    .map(|c| self.compact_operand(c, "an operand of `\\+`"))
                    .collect();
                Type::csum(comps)
            }
            TypeExprKind::Array(e, i) => {
                let elem = self.type_expr(e);
                let index = self.compact_operand(i, "an array index");
                Type::array(elem, index)
            }
            TypeExprKind::CArray(e, i) => {
                let elem = self.compact_operand(e, "the element of `\\^`");
                let index = self.compact_operand(i, "the index of `\\^`");
                Type::carray(elem, index)
            }
            TypeExprKind::Fun(a, b) => {
                let a = self.type_expr(a);
                let b = self.type_expr(b);
                Type::fun(a, b)
            }
            TypeExprKind::Ptr(mode, t) => {
                let t = self.type_expr(t);
                Type::ptr(*mode, t)
            }
            TypeExprKind::CPtr(mode, d, c) => {
                let d = self.compact_operand(d, "the whole of `_pclt<D, C>`");
                let c = self.compact_operand(c, "the component of `_pclt<D, C>`");
                Type::cptr(*mode, d, c)
            }
            TypeExprKind::UnitsumArith(op, a, b) => {
                let x = self.type_expr(a);
                let y = self.type_expr(b);
                match (&x, &y) {
                    (Type::Unitsum(m), Type::Unitsum(n)) => {
                        let r = match op {
                            UnitsumOp::Add => m.checked_add(*n),
                            UnitsumOp::Sub => m.checked_sub(*n),
                            UnitsumOp::Mul => m.checked_mul(*n),
                            UnitsumOp::Div => m.checked_div(*n),
                            UnitsumOp::Mod => m.checked_rem(*n),
                        };
                        match r {
                            Some(r) => Type::Unitsum(r),
                            None => {
                                self.type_error(te.span, "unitsum arithmetic out of range");
                                error_type()
                            }
                        }
                    }
                    _ if x.has_meta() || y.has_meta() => error_type(),
                    _ => {
                        self.type_error(
                            te.span,
                            format!("unitsum arithmetic needs unitsums, found `{x}` and `{y}`"),
                        );
                        error_type()
                    }
                }
            }
            TypeExprKind::Error => error_type(),
        }
    }

    /// A type that must be compact linear (E0401 otherwise, with the `\*` hint of L2.14).
    fn compact_operand(&mut self, te: &TypeExpr, context: &'static str) -> Type {
        let t = self.type_expr(te);
        // An inference variable (or an earlier error) inside: decided later, or reported.
        if !t.has_meta()
            && !crate::check::traits::has(&t, crate::check::traits::Behaviour::CompactLinear)
        {
            self.error(CheckError::NotCompact {
                span: te.span,
                ty: t.to_string(),
                context,
                hint: compact_hint(&t),
            });
            return error_type();
        }
        t
    }

    fn type_name(&mut self, name: &str, te: &TypeExpr) -> Type {
        if let Some(t) = self.lookup_type(name) {
            return t;
        }
        if let Some(t) = builtin_type(name) {
            return t;
        }
        self.error(CheckError::UndefinedName {
            name: name.to_string(),
            span: te.span,
            what: "type",
            hint: None,
        });
        error_type()
    }

    /// Look a type name up through the scope chain, resolving typedefs on demand.
    pub(crate) fn lookup_type(&mut self, name: &str) -> Option<Type> {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some((b, _)) = self.scopes[id].types.get(name) {
                let b = b.clone();
                return Some(self.resolve_type_binding(id, name, b));
            }
            s = self.scopes[id].parent;
        }
        None
    }

    fn resolve_type_binding(&mut self, scope: usize, name: &str, b: TypeBinding) -> Type {
        match b {
            TypeBinding::Alias(t) => t,
            TypeBinding::Nominal(n) => Type::Nominal(n),
            TypeBinding::Param(v) => Type::Var(v),
            TypeBinding::ResolvingAlias => {
                let span = self.scopes[scope].types[name].1;
                self.type_error(span, format!("typedef `{name}` refers to itself"));
                error_type()
            }
            TypeBinding::PendingAlias(te, def_scope) => {
                let span = self.scopes[scope].types[name].1;
                self.scopes[scope]
                    .types
                    .insert(name.to_string(), (TypeBinding::ResolvingAlias, span));
                let saved = self.scope;
                self.scope = def_scope;
                let t = self.type_expr(&te);
                self.scope = saved;
                self.scopes[scope]
                    .types
                    .insert(name.to_string(), (TypeBinding::Alias(t.clone()), span));
                t
            }
        }
    }
}
