//! Kinds: UNITSUM, COMPACTLINEAR or TYPE, the most specific one of a type; and the
//! hint of E0401 that rewrites a plain product, sum or array into its compact form.

use crate::types::ty::{Kind, Type};

/// The most specific kind of a (normalised) type. Plain `*`, `+` and `^` are TYPE whatever
/// their parts; `\*`, `\+`, `\^` of compact linear types are COMPACTLINEAR (never UNITSUM).
/// A type variable has its declared kind; an inference variable is TYPE.
pub fn kind_of(ty: &Type) -> Kind {
    match ty {
        Type::Unitsum(_) => Kind::Unitsum,
        Type::Var(variable) => variable.kind,
        // The types' cached facts say whether any part is not compact (no walk).
        Type::CProduct(_) | Type::CSum(_) | Type::CArray(..) => {
            if ty.facts().flags & crate::types::ty::FACT_NONCOMPACT == 0 {
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
    kind_of(ty).satisfies(Kind::CompactLinear)
}

/// The compact linear type a type would be if its plain `*`, `+` and `^` were written `\*`,
/// `\+` and `\^` (recursively), printed; `None` when the type is compact linear
/// already or cannot become compact that way (it mentions `int`, a function, …). This is the
/// help of E0401: `int ^ (3 * 2)` gets ``help: write `3 \* 2` ``.
pub fn compact_hint(ty: &Type) -> Option<String> {
    if is_compact(ty) {
        return None;
    }
    compact_rewrite(ty).map(|rewritten| rewritten.to_string())
}

/// The type with every plain product, sum and array replaced by its compact counterpart;
/// `None` when some part can never be compact linear.
pub fn compact_rewrite(ty: &Type) -> Option<Type> {
    let rewrite_all = |parts: &[Type]| {
        parts
            .iter()
            .map(compact_rewrite)
            .collect::<Option<Vec<_>>>()
    };
    let rewritten = match ty {
        Type::Unitsum(_) => ty.clone(),
        Type::Var(variable) if variable.kind.satisfies(Kind::CompactLinear) => ty.clone(),
        Type::Tuple(components) | Type::CProduct(components) => {
            Type::cproduct(rewrite_all(components)?)
        }
        Type::Sum(summands) | Type::CSum(summands) => Type::csum(rewrite_all(summands)?),
        Type::Array(element, index) | Type::CArray(element, index) => {
            Type::carray(compact_rewrite(element)?, compact_rewrite(index)?)
        }
        _ => return None,
    };
    Some(rewritten)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::types::ty::TyVar;

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    fn variable(kind: Kind) -> Type {
        Type::Var(TyVar {
            id: 1,
            name: Arc::from("N"),
            kind,
        })
    }

    #[test]
    fn kinds_of_the_transcript() {
        assert_eq!(
            kind_of(&Type::cproduct(vec![unitsum(3), unitsum(2)])),
            Kind::CompactLinear
        );
        assert_eq!(kind_of(&Type::INT), Kind::Type);
        assert_eq!(kind_of(&unitsum(5)), Kind::Unitsum);
        assert_eq!(kind_of(&Type::BOOL), Kind::Unitsum);
        let array = Type::array(Type::INT, Type::cproduct(vec![unitsum(3), unitsum(2)]));
        assert_eq!(kind_of(&array), Kind::Type);
    }

    #[test]
    fn plain_operators_are_never_compact() {
        assert_eq!(
            kind_of(&Type::tuple(vec![unitsum(3), unitsum(2)])),
            Kind::Type
        );
        assert_eq!(
            kind_of(&Type::sum(vec![unitsum(3), unitsum(2)])),
            Kind::Type
        );
        assert_eq!(kind_of(&Type::array(unitsum(3), unitsum(2))), Kind::Type);
        assert_eq!(
            kind_of(&Type::csum(vec![unitsum(3), unitsum(2)])),
            Kind::CompactLinear
        );
        assert_eq!(
            kind_of(&Type::carray(unitsum(3), unitsum(2))),
            Kind::CompactLinear
        );
        let mixed = Type::cproduct(vec![unitsum(3), Type::tuple(vec![unitsum(2), unitsum(4)])]);
        assert_eq!(kind_of(&mixed), Kind::Type);
        assert_eq!(
            kind_of(&Type::cproduct(vec![Type::INT, unitsum(2)])),
            Kind::Type
        );
    }

    #[test]
    fn variables_have_their_declared_kind() {
        assert_eq!(kind_of(&variable(Kind::CompactLinear)), Kind::CompactLinear);
        assert_eq!(kind_of(&variable(Kind::Unitsum)), Kind::Unitsum);
        assert_eq!(kind_of(&variable(Kind::Type)), Kind::Type);
        let product = Type::cproduct(vec![variable(Kind::Unitsum), unitsum(2)]);
        assert_eq!(kind_of(&product), Kind::CompactLinear);
        assert_eq!(kind_of(&Type::Meta(0)), Kind::Type);
    }

    #[test]
    fn hints_rewrite_plain_operators() {
        let plain_product = Type::tuple(vec![unitsum(3), unitsum(2)]);
        assert_eq!(compact_hint(&plain_product).as_deref(), Some("3 \\* 2"));
        let plain_sum = Type::sum(vec![unitsum(3), unitsum(2)]);
        assert_eq!(compact_hint(&plain_sum).as_deref(), Some("3 \\+ 2"));
        let plain_array = Type::array(unitsum(3), unitsum(2));
        assert_eq!(compact_hint(&plain_array).as_deref(), Some("3 \\^ 2"));
        let nested = Type::tuple(vec![Type::sum(vec![unitsum(3), unitsum(2)]), Type::BOOL]);
        assert_eq!(compact_hint(&nested).as_deref(), Some("(3 \\+ 2) \\* 2"));
        let inner_plain = Type::cproduct(vec![unitsum(3), Type::array(Type::BOOL, unitsum(2))]);
        assert_eq!(compact_hint(&inner_plain).as_deref(), Some("3 \\* 2 \\^ 2"));
    }

    #[test]
    fn no_hint_for_compact_or_hopeless_types() {
        assert_eq!(
            compact_hint(&Type::cproduct(vec![unitsum(3), unitsum(2)])),
            None
        );
        assert_eq!(compact_hint(&unitsum(4)), None);
        assert_eq!(
            compact_hint(&Type::tuple(vec![Type::INT, unitsum(2)])),
            None
        );
        assert_eq!(compact_hint(&Type::fun(Type::BOOL, Type::BOOL)), None);
        assert_eq!(compact_hint(&variable(Kind::Type)), None);
        let with_variable = Type::tuple(vec![variable(Kind::CompactLinear), unitsum(2)]);
        assert_eq!(compact_hint(&with_variable).as_deref(), Some("N \\* 2"));
    }
}
