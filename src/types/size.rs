//! Sizes of compact linear types: the type evaluated as arithmetic. `\*`
//! multiplies, `\+` adds, `T \^ I` is `size(T) ^ size(I)` and the unitsum `n` is `n`.
//!
//! Sizes are unbounded naturals, but a size with more than `MAX_SIZE_BITS` bits is not
//! computed (such a type could never be iterated or printed in reasonable time); `size_of`
//! answers `None` for it, as it does for types that are not compact linear.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::types::ty::Type;

/// The largest size, in bits, that `size_of` computes: 2^20 bits, about 315,000 decimal digits.
pub const MAX_SIZE_BITS: u64 = 1 << 20;

/// `size(T)` for a compact linear type without type variables; `None` for any other type and
/// for a size of more than `MAX_SIZE_BITS` bits.
pub fn size_of(ty: &Type) -> Option<BigUint> {
    let size = match ty {
        Type::Unitsum(n) => BigUint::from(*n),
        Type::CProduct(components) => {
            let mut product = BigUint::one();
            for component in components.iter() {
                product *= size_of(component)?;
                if product.bits() > MAX_SIZE_BITS {
                    return None;
                }
            }
            product
        }
        Type::CSum(summands) => summands.iter().try_fold(BigUint::zero(), |sum, summand| {
            Some(sum + size_of(summand)?)
        })?,
        Type::CArray(element, index) => power_size(size_of(element)?, &size_of(index)?)?,
        // Plain products, sums and arrays are never compact linear, nor are scalars,
        // functions and nominal types; a type variable has no known size.
        _ => return None,
    };
    (size.bits() <= MAX_SIZE_BITS).then_some(size)
}

/// `base ^ exponent` when the result has at most `MAX_SIZE_BITS` bits. The bit count is
/// estimated before multiplying, so a huge exponent neither hangs nor allocates.
fn power_size(base: BigUint, exponent: &BigUint) -> Option<BigUint> {
    if exponent.is_zero() {
        return Some(BigUint::one());
    }
    if base.is_zero() || base.is_one() {
        return Some(base);
    }
    // base ≥ 2, so the result has at least `(bits(base) - 1) * exponent + 1` bits.
    let exponent = exponent.to_u64().filter(|e| *e <= MAX_SIZE_BITS)?;
    let minimum_bits = (base.bits() - 1).saturating_mul(exponent).saturating_add(1);
    if minimum_bits > MAX_SIZE_BITS {
        return None;
    }
    let exponent = u32::try_from(exponent).ok()?;
    Some(base.pow(exponent))
}

/// The element count of an array type over a non-array leaf, as a product of a constant and
/// type variables: `int ^ (n \* 3)` has `3 * n` elements of `int`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicCount {
    /// The scalar (non-array) element type.
    pub leaf: Type,
    pub constant: BigUint,
    /// The ids of the variables of the product, sorted, with repetitions.
    pub vars: Vec<u32>,
}

impl SymbolicCount {
    /// Could the two counts be equal for some values of their variables? Each common variable
    /// cancels; a side left without variables must then be a multiple of the other's constant.
    pub fn may_equal(&self, other: &SymbolicCount) -> bool {
        if self.leaf != other.leaf {
            return false;
        }
        let (mut a, mut b) = (self.vars.clone(), other.vars.clone());
        a.retain(|v| match b.iter().position(|w| w == v) {
            Some(at) => {
                b.remove(at);
                false
            }
            None => true,
        });
        let (ka, kb) = (&self.constant, &other.constant);
        match (a.is_empty(), b.is_empty()) {
            (true, true) => ka == kb,
            (true, false) => kb.is_zero() || (ka % kb).is_zero(),
            (false, true) => ka.is_zero() || (kb % ka).is_zero(),
            (false, false) => true,
        }
    }
}

/// The symbolic element count of `t`, an array (of arrays) over compact indices whose sizes
/// are constants or variables; `None` when it cannot be written so.
pub fn symbolic_count(t: &Type) -> Option<SymbolicCount> {
    fn index_size(i: &Type) -> Option<(BigUint, Vec<u32>)> {
        match i {
            Type::Unitsum(n) => Some((BigUint::from(*n), vec![])),
            Type::Var(v) => Some((BigUint::one(), vec![v.id])),
            Type::CProduct(cs) => cs
                .iter()
                .try_fold((BigUint::one(), vec![]), |(k, mut vs), c| {
                    let (k2, vs2) = index_size(c)?;
                    vs.extend(vs2);
                    Some((k * k2, vs))
                }),
            Type::CArray(e, n) => {
                let Type::Unitsum(n) = **n else { return None };
                let (k, vs) = index_size(e)?;
                let n = u32::try_from(n).ok()?;
                Some((
                    k.pow(n),
                    vs.iter()
                        .copied()
                        .cycle()
                        .take(vs.len() * n as usize)
                        .collect(),
                ))
            }
            other if !other.has_var() => Some((size_of(other)?, vec![])),
            _ => None,
        }
    }
    match t {
        Type::Array(e, i) => {
            let (k, mut vs) = index_size(i)?;
            let inner = match &**e {
                Type::Array(..) => symbolic_count(e)?,
                leaf => SymbolicCount {
                    leaf: leaf.clone(),
                    constant: BigUint::one(),
                    vars: vec![],
                },
            };
            vs.extend(inner.vars);
            vs.sort_unstable();
            Some(SymbolicCount {
                leaf: inner.leaf,
                constant: k * inner.constant,
                vars: vs,
            })
        }
        _ => None,
    }
}

/// `size(T)` when it fits in a `u64`.
#[cfg(test)]
pub fn size_u64(ty: &Type) -> Option<u64> {
    size_of(ty)?.to_u64()
}

/// Do the codes of this compact type (`0 .. size-1`) fit in a `u64`, that is, is
/// `size(T) ≤ 2^64`? Decided statically; the evaluator represents codes as `u64` when
/// true and as big naturals otherwise.
pub fn codes_fit_u64(ty: &Type) -> bool {
    match size_of(ty) {
        Some(size) => size.bits() <= 64 || size == BigUint::one() << 64u32,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    fn size_string(ty: &Type) -> Option<String> {
        size_of(ty).map(|size| size.to_string())
    }

    #[test]
    fn sizes_follow_the_arithmetic() {
        let product = Type::cproduct(vec![unitsum(3), unitsum(4), unitsum(5)]);
        assert_eq!(size_u64(&product), Some(60));
        assert_eq!(size_u64(&Type::csum(vec![unitsum(3), unitsum(2)])), Some(5));
        assert_eq!(size_u64(&Type::carray(unitsum(3), unitsum(2))), Some(9));
        assert_eq!(size_u64(&Type::BOOL), Some(2));
        assert_eq!(size_u64(&Type::VOID), Some(0));
        assert_eq!(size_u64(&Type::UNIT), Some(1));
        let nested = Type::carray(
            Type::csum(vec![unitsum(3), unitsum(2)]),
            Type::cproduct(vec![unitsum(2), unitsum(1)]),
        );
        assert_eq!(size_u64(&nested), Some(25));
    }

    #[test]
    fn big_sizes_are_exact() {
        let big = Type::carray(unitsum(2), unitsum(100));
        assert_eq!(
            size_string(&big).as_deref(),
            Some("1267650600228229401496703205376")
        );
        assert_eq!(size_u64(&big), None);
        assert!(!codes_fit_u64(&big));
        let primes = Type::cproduct(vec![
            unitsum(1_000_000_007),
            unitsum(1_000_000_009),
            unitsum(1_000_000_021),
        ]);
        assert_eq!(
            size_string(&primes).as_deref(),
            Some("1000000037000000399000001323")
        );
    }

    #[test]
    fn codes_fit_u64_up_to_two_to_the_sixty_four() {
        assert!(codes_fit_u64(&Type::carray(unitsum(2), unitsum(64))));
        assert!(!codes_fit_u64(&Type::carray(unitsum(2), unitsum(65))));
        assert!(codes_fit_u64(&unitsum(u64::MAX)));
        assert!(!codes_fit_u64(&Type::INT));
    }

    #[test]
    fn huge_exponents_do_not_hang() {
        let huge_index = Type::carray(unitsum(2), unitsum(64));
        assert_eq!(size_of(&Type::carray(unitsum(2), huge_index.clone())), None);
        assert_eq!(
            size_u64(&Type::carray(unitsum(1), huge_index.clone())),
            Some(1)
        );
        assert_eq!(
            size_u64(&Type::carray(unitsum(0), huge_index.clone())),
            Some(0)
        );
        assert_eq!(size_of(&Type::carray(unitsum(3), unitsum(u64::MAX))), None);
        let doubly = Type::carray(unitsum(2), Type::carray(unitsum(2), unitsum(100)));
        assert_eq!(size_of(&doubly), None);
        let empty_index = Type::cproduct(vec![unitsum(0), unitsum(5)]);
        assert_eq!(size_u64(&Type::carray(unitsum(7), empty_index)), Some(1));
    }

    #[test]
    fn plain_and_non_compact_types_have_no_size() {
        assert_eq!(size_of(&Type::tuple(vec![unitsum(3), unitsum(2)])), None);
        assert_eq!(size_of(&Type::sum(vec![unitsum(3), unitsum(2)])), None);
        assert_eq!(size_of(&Type::array(unitsum(3), unitsum(2))), None);
        assert_eq!(size_of(&Type::INT), None);
        assert_eq!(size_of(&Type::cproduct(vec![Type::INT, unitsum(2)])), None);
        assert_eq!(size_of(&Type::fun(Type::BOOL, Type::BOOL)), None);
    }
}
