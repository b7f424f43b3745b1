//! Kinds (L2.13): UNITSUM, COMPACTLINEAR or TYPE, the most specific one of a type.

use crate::types::ty::{Kind, Type};

/// The most specific kind of a (normalised) type. Plain `*`, `+` and `^` are TYPE whatever
/// their parts; `\*`, `\+`, `\^` of compact linear types are COMPACTLINEAR (never UNITSUM).
pub fn kind_of(ty: &Type) -> Kind {
    match ty {
        Type::Unitsum(_) => Kind::Unitsum,
        Type::Var(v) => v.kind,
        Type::CProduct(cs) | Type::CSum(cs) => {
            if cs.iter().all(is_compact) {
                Kind::CompactLinear
            } else {
                Kind::Type
            }
        }
        Type::CArray(e, i) => {
            if is_compact(e) && is_compact(i) {
                Kind::CompactLinear
            } else {
                Kind::Type
            }
        }
        _ => Kind::Type,
    }
}

/// Is the type compact linear (kind UNITSUM or COMPACTLINEAR)?
pub fn is_compact(ty: &Type) -> bool {
    kind_of(ty) <= Kind::CompactLinear
}

/// When `ty` is a plain product, sum or array that would be compact linear if written with
/// `\*`, `\+`, `\^`, the rewritten type as text (the E0401 help of L2.14).
pub fn compact_hint(ty: &Type) -> Option<String> {
    fn rewrite(t: &Type) -> Option<Type> {
        match t {
            Type::Tuple(cs) => Some(Type::cproduct(cs.iter().map(rewrite).collect::<Option<_>>()?)),
            Type::Sum(cs) => Some(Type::csum(cs.iter().map(rewrite).collect::<Option<_>>()?)),
            Type::Array(e, i) => Some(Type::carray(rewrite(e)?, rewrite(i)?)),
            t if is_compact(t) => Some(t.clone()),
            _ => None,
        }
    }
    if is_compact(ty) {
        return None;
    }
    rewrite(ty).map(|t| t.to_string())
}
