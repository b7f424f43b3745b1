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

/// One term of a symbolic count: a coefficient times a product of type variables.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Monomial {
    /// The ids of the variables of the product, sorted, with repetitions.
    pub vars: Vec<u32>,
    pub coefficient: BigUint,
}

/// The element count of an array type over a non-array leaf, as a polynomial in its type
/// variables: `int ^ (n \* 3)` has `3n` elements of `int`, `int ^ (n \+ 1)` has `n + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicCount {
    /// The scalar (non-array) element type.
    pub leaf: Type,
    /// The terms, sorted by their variables, none with a zero coefficient.
    pub terms: Vec<Monomial>,
}

/// The most terms a symbolic count is expanded to; beyond it the count is unknown.
const MAX_TERMS: usize = 64;

/// A polynomial in type variables, its terms sorted and combined.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Polynomial(Vec<Monomial>);

impl Polynomial {
    fn constant(k: BigUint) -> Polynomial {
        Polynomial::normal(vec![Monomial {
            vars: vec![],
            coefficient: k,
        }])
    }

    fn var(id: u32) -> Polynomial {
        Polynomial(vec![Monomial {
            vars: vec![id],
            coefficient: BigUint::one(),
        }])
    }

    fn normal(mut terms: Vec<Monomial>) -> Polynomial {
        terms.sort();
        let mut out: Vec<Monomial> = Vec::with_capacity(terms.len());
        for term in terms {
            match out.last_mut() {
                Some(last) if last.vars == term.vars => last.coefficient += term.coefficient,
                _ => out.push(term),
            }
        }
        out.retain(|t| !t.coefficient.is_zero());
        Polynomial(out)
    }

    fn add(self, other: Polynomial) -> Option<Polynomial> {
        let sum = Polynomial::normal(self.0.into_iter().chain(other.0).collect());
        (sum.0.len() <= MAX_TERMS).then_some(sum)
    }

    fn mul(&self, other: &Polynomial) -> Option<Polynomial> {
        if self.0.len().saturating_mul(other.0.len()) > MAX_TERMS * MAX_TERMS {
            return None;
        }
        let mut terms = Vec::with_capacity(self.0.len() * other.0.len());
        for a in &self.0 {
            for b in &other.0 {
                let mut vars = a.vars.clone();
                vars.extend_from_slice(&b.vars);
                vars.sort_unstable();
                terms.push(Monomial {
                    vars,
                    coefficient: &a.coefficient * &b.coefficient,
                });
            }
        }
        let product = Polynomial::normal(terms);
        (product.0.len() <= MAX_TERMS).then_some(product)
    }
}

impl SymbolicCount {
    /// The count when it has no variables.
    pub fn value(&self) -> Option<BigUint> {
        match self.terms.as_slice() {
            [] => Some(BigUint::zero()),
            [t] if t.vars.is_empty() => Some(t.coefficient.clone()),
            _ => None,
        }
    }

    /// The count as one term (`3n`, `7`, `nm`), if it is one.
    pub fn monomial(&self) -> Option<Monomial> {
        match self.terms.as_slice() {
            [] => Some(Monomial {
                vars: vec![],
                coefficient: BigUint::zero(),
            }),
            [t] => Some(t.clone()),
            _ => None,
        }
    }

    /// The count written out, the variables named by `name`: `3n + 1`, `nm`.
    pub fn render(&self, name: &dyn Fn(u32) -> String) -> String {
        if self.terms.is_empty() {
            return "0".into();
        }
        let term = |t: &Monomial| {
            let vars: String = t
                .vars
                .iter()
                .map(|v| name(*v))
                .collect::<Vec<_>>()
                .join("·");
            match (t.coefficient.is_one(), vars.is_empty()) {
                (_, true) => t.coefficient.to_string(),
                (true, false) => vars,
                (false, false) => format!("{}·{vars}", t.coefficient),
            }
        };
        // Terms with variables first, as people write `n + 1`.
        let (constant, variable): (Vec<_>, Vec<_>) =
            self.terms.iter().partition(|t| t.vars.is_empty());
        variable
            .iter()
            .chain(constant.iter())
            .map(|t| term(t))
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// Could the two counts be equal for some values of their variables (all naturals)?
    /// Between single terms, each common variable cancels and a side left without variables
    /// must be a multiple of the other's coefficient. Otherwise the counts differ for sure
    /// only when one exceeds the other by a constant and terms of its own (`n + 1` and `n`).
    pub fn may_equal(&self, other: &SymbolicCount) -> bool {
        if self.leaf != other.leaf {
            return false;
        }
        if let (Some(a), Some(b)) = (self.monomial(), other.monomial()) {
            return monomials_may_equal(&a, &b);
        }
        // The terms by which each side exceeds the other.
        let (mut excess_a, mut excess_b) = (Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.terms, &other.terms);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.vars == y.vars => {
                    if x.coefficient > y.coefficient {
                        excess_a.push(x.vars.is_empty());
                    } else if y.coefficient > x.coefficient {
                        excess_b.push(y.vars.is_empty());
                    }
                    i += 1;
                    j += 1;
                }
                (Some(x), y) if y.is_none_or(|y| x.vars < y.vars) => {
                    excess_a.push(x.vars.is_empty());
                    i += 1;
                }
                (_, Some(y)) => {
                    excess_b.push(y.vars.is_empty());
                    j += 1;
                }
                _ => unreachable!("one side has terms left"),
            }
        }
        let strictly_more =
            |excess: &[bool], other: &[bool]| other.is_empty() && excess.contains(&true);
        !(strictly_more(&excess_a, &excess_b) || strictly_more(&excess_b, &excess_a))
    }
}

fn monomials_may_equal(x: &Monomial, y: &Monomial) -> bool {
    let (mut a, mut b) = (x.vars.clone(), y.vars.clone());
    a.retain(|v| match b.iter().position(|w| w == v) {
        Some(at) => {
            b.remove(at);
            false
        }
        None => true,
    });
    let (ka, kb) = (&x.coefficient, &y.coefficient);
    match (a.is_empty(), b.is_empty()) {
        (true, true) => ka == kb,
        (true, false) => kb.is_zero() || (ka % kb).is_zero(),
        (false, true) => ka.is_zero() || (kb % ka).is_zero(),
        (false, false) => true,
    }
}

/// The symbolic element count of `t`, an array (of arrays) over compact indices whose sizes
/// are constants, variables, and their sums, products and constant powers; `None` when it
/// cannot be written so.
pub fn symbolic_count(t: &Type) -> Option<SymbolicCount> {
    fn index_size(i: &Type) -> Option<Polynomial> {
        match i {
            Type::Var(v) => Some(Polynomial::var(v.id)),
            other if !other.has_var() => Some(Polynomial::constant(size_of(other)?)),
            Type::CProduct(cs) => cs
                .iter()
                .try_fold(Polynomial::constant(BigUint::one()), |p, c| {
                    p.mul(&index_size(c)?)
                }),
            Type::CSum(cs) => cs
                .iter()
                .try_fold(Polynomial(vec![]), |p, c| p.add(index_size(c)?)),
            Type::CArray(e, n) => {
                let Type::Unitsum(n) = **n else { return None };
                if n > MAX_TERMS as u64 {
                    return None;
                }
                let e = index_size(e)?;
                (0..n).try_fold(Polynomial::constant(BigUint::one()), |p, _| p.mul(&e))
            }
            _ => None,
        }
    }
    match t {
        Type::Array(e, i) => {
            let index = index_size(i)?;
            let (leaf, inner) = match &**e {
                Type::Array(..) => {
                    let inner = symbolic_count(e)?;
                    (inner.leaf, Polynomial(inner.terms))
                }
                leaf => (leaf.clone(), Polynomial::constant(BigUint::one())),
            };
            Some(SymbolicCount {
                leaf,
                terms: index.mul(&inner)?.0,
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
    fn symbolic_counts_are_polynomials_in_the_sizes() {
        let var = |id: u32| {
            Type::Var(crate::types::ty::TyVar {
                id,
                name: format!("v{id}").into(),
                kind: crate::types::ty::Kind::Unitsum,
            })
        };
        let count = |index: Type| symbolic_count(&Type::array(Type::INT, index)).unwrap();
        let n_plus_1 = count(Type::csum(vec![var(1), unitsum(1)]));
        let one_plus_n = count(Type::csum(vec![unitsum(1), var(1)]));
        assert_eq!(n_plus_1, one_plus_n);
        assert!(!n_plus_1.may_equal(&count(var(1))));
        assert!(n_plus_1.may_equal(&count(var(2))));
        let name = |id: u32| format!("v{id}");
        assert_eq!(n_plus_1.render(&name), "v1 + 1");
        // (n + 1)(m + 2) = nm + 2n + m + 2.
        let product = count(Type::cproduct(vec![
            Type::csum(vec![var(1), unitsum(1)]),
            Type::csum(vec![var(2), unitsum(2)]),
        ]));
        assert_eq!(product.render(&name), "2·v1 + v1·v2 + v2 + 2");
        assert!(!product.may_equal(&count(Type::cproduct(vec![var(1), var(2)]))));
        // Single terms keep the divisibility rule: 3n is never 7.
        let three_n = count(Type::cproduct(vec![var(1), unitsum(3)]));
        assert!(!three_n.may_equal(&count(unitsum(7))));
        assert!(three_n.may_equal(&count(unitsum(9))));
        assert_eq!(count(Type::csum(vec![var(1), unitsum(0)])), count(var(1)));
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
