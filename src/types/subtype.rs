//! Record subtyping: `R` is a subtype of `S` when every field of `S` is in `R` with a
//! subtype of its type in `S`; the relation extends covariantly through tuples, arrays with
//! the same index type, and records. A struct built from a record uses the same
//! field-by-name rule. Pointer modes follow the same rule: `&T` is a subtype of `&<T`
//! and `&>T`. Pure functions of types.

use crate::types::ty::{NominalBody, Type};

/// Is `from` a subtype of (or equal to) `to`?
pub fn is_subtype(from: &Type, to: &Type) -> bool {
    if from == to {
        return true;
    }
    match (from, to) {
        (Type::Record(..), Type::Record(..)) => to.record_fields().is_some_and(|mut fields| {
            fields.all(|(name, t)| {
                from.record_field(name)
                    .is_some_and(|(_, f)| is_subtype(f, t))
            })
        }),
        (Type::Array(e1, i1), Type::Array(e2, i2)) if i1 == i2 => is_subtype(e1, e2),
        // A read-write pointer is a read-only and a write-only one; the target is
        // invariant.
        (Type::Ptr(m1, t1), Type::Ptr(m2, t2)) => m1.converts_to(*m2) && t1 == t2,
        (Type::CPtr(m1, d1, c1), Type::CPtr(m2, d2, c2)) => {
            m1.converts_to(*m2) && d1 == d2 && c1 == c2
        }
        (Type::Tuple(_) | Type::Array(..), Type::Tuple(_) | Type::Array(..)) => {
            match (from.tuple_components(), to.tuple_components()) {
                (Some(fs), Some(ts)) if fs.len() == ts.len() => {
                    fs.iter().zip(&ts).all(|(f, t)| is_subtype(f, t))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Does the record type `from` give exactly the fields of the struct type `to`, each with a
/// subtype of the field's type?
pub fn record_builds_struct(from: &Type, to: &Type) -> bool {
    let (Some(given), Type::Nominal(def)) = (from.record_fields(), to) else {
        return false;
    };
    let Some(NominalBody::Struct(fields)) = def.body() else {
        return false;
    };
    let given: Vec<(&str, &Type)> = given.collect();
    given.len() == fields.len()
        && fields
            .iter()
            .all(|(name, t)| given.iter().any(|(g, f)| *g == &**name && is_subtype(f, t)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn record(fields: &[(&str, Type)]) -> Type {
        Type::record(
            fields
                .iter()
                .map(|(n, t)| (Arc::from(*n), t.clone()))
                .collect(),
        )
    }

    #[test]
    fn records_drop_fields_covariantly() {
        let ab = record(&[("b", Type::String), ("a", Type::INT)]);
        let a = record(&[("a", Type::INT)]);
        assert!(is_subtype(&ab, &a));
        assert!(!is_subtype(&a, &ab));
        assert!(!is_subtype(&ab, &record(&[("a", Type::Double)])));
        let nested = record(&[("r", ab.clone()), ("x", Type::INT)]);
        assert!(is_subtype(&nested, &record(&[("r", a.clone())])));
        // Tuples and arrays with the same index type, also across the tuple/array normal form.
        let cd = record(&[("c", Type::INT), ("d", Type::INT)]);
        let d = record(&[("d", Type::INT)]);
        let pair = Type::tuple(vec![ab.clone(), cd.clone()]);
        assert!(is_subtype(&pair, &Type::tuple(vec![a.clone(), d.clone()])));
        assert!(is_subtype(
            &Type::array(pair.clone(), Type::Unitsum(22)),
            &Type::array(Type::tuple(vec![a.clone(), d]), Type::Unitsum(22))
        ));
        assert!(is_subtype(
            &Type::tuple(vec![ab.clone(), ab.clone()]),
            &Type::tuple(vec![a.clone(), a.clone()])
        ));
        assert!(!is_subtype(
            &Type::array(ab.clone(), Type::Unitsum(3)),
            &Type::array(a, Type::Unitsum(2))
        ));
        assert!(!is_subtype(
            &Type::INT,
            &Type::Int(crate::types::ty::IntTy::Long)
        ));
    }
}
