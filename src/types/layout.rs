//! Mixed-radix layouts of compact linear types (L3.6–L3.8): the digits of products, the
//! offsets of sums. The leftmost component of a product is the most significant digit.
//!
//! These functions work on `BigUint` and are meant to be called once per type (at compile
//! time); hot paths precompute `u64` radices and weights from them when the size fits.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::types::size::size_of;
use crate::types::ty::Type;

/// One digit of a compact product: the component's type, its radix (= its size) and its
/// weight (the product of the sizes of the components to its right).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digit {
    pub ty: Type,
    pub radix: BigUint,
    pub weight: BigUint,
}

/// The top-level components of a compact product `A \* B \* …` or compact array `T \^ n`
/// (n copies of T), with radices and weights. `None` for other types, for a compact array
/// whose index is not a unitsum of at most 2^16 components, and for types with variables.
pub fn product_digits(ty: &Type) -> Option<Vec<Digit>> {
    let comps: Vec<Type> = match ty {
        Type::CProduct(cs) => cs.to_vec(),
        Type::CArray(e, i) => {
            let n = size_of(i)?.to_usize()?;
            if n > 1 << 16 {
                return None;
            }
            vec![(**e).clone(); n]
        }
        _ => return None,
    };
    let sizes: Vec<BigUint> = comps.iter().map(size_of).collect::<Option<_>>()?;
    let mut weight = BigUint::one();
    let mut digits = Vec::with_capacity(comps.len());
    for (c, s) in comps.into_iter().zip(sizes).rev() {
        digits.push(Digit {
            ty: c,
            radix: s.clone(),
            weight: weight.clone(),
        });
        weight *= s;
    }
    digits.reverse();
    Some(digits)
}

/// One summand of a compact sum: its type, size, and offset (the sum of the sizes of the
/// summands before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summand {
    pub ty: Type,
    pub size: BigUint,
    pub offset: BigUint,
}

/// The summands of a compact sum `A \+ B \+ …`; `None` for other types.
pub fn sum_summands(ty: &Type) -> Option<Vec<Summand>> {
    let Type::CSum(cs) = ty else { return None };
    let mut offset = BigUint::zero();
    let mut out = Vec::with_capacity(cs.len());
    for c in cs.iter() {
        let size = size_of(c)?;
        out.push(Summand {
            ty: c.clone(),
            size: size.clone(),
            offset: offset.clone(),
        });
        offset += size;
    }
    Some(out)
}

/// The summand a code of a compact sum belongs to, and the code of its argument.
pub fn split_sum_code(summands: &[Summand], code: &BigUint) -> Option<(usize, BigUint)> {
    summands
        .iter()
        .enumerate()
        .find(|(_, s)| *code >= s.offset && *code < &s.offset + &s.size)
        .map(|(k, s)| (k, code - &s.offset))
}
