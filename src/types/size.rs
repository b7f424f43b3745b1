//! Sizes of compact linear types (L3.6): the type evaluated as arithmetic.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::types::kind::is_compact;
use crate::types::ty::Type;

/// `size(T)` for a compact linear type without type variables; `None` otherwise.
pub fn size_of(ty: &Type) -> Option<BigUint> {
    if !is_compact(ty) {
        return None;
    }
    match ty {
        Type::Unitsum(n) => Some(BigUint::from(*n)),
        Type::CProduct(cs) => cs
            .iter()
            .try_fold(BigUint::one(), |acc, c| Some(acc * size_of(c)?)),
        Type::CSum(cs) => cs
            .iter()
            .try_fold(BigUint::zero(), |acc, c| Some(acc + size_of(c)?)),
        Type::CArray(e, i) => {
            let base = size_of(e)?;
            let exp = size_of(i)?.to_u32()?;
            Some(base.pow(exp))
        }
        _ => None,
    }
}

/// `size(T)` when it fits in a `u64`.
pub fn size_u64(ty: &Type) -> Option<u64> {
    size_of(ty)?.to_u64()
}

/// Do the codes of this compact type (`0 .. size-1`) fit in a `u64`? Decided statically; the
/// evaluator represents codes as `Value::Int` when true and as `Value::Big` otherwise.
pub fn codes_fit_u64(ty: &Type) -> bool {
    match size_of(ty) {
        Some(s) => s <= BigUint::from(u64::MAX) + 1u32,
        None => false,
    }
}
