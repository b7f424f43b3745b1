//! Codes of compact linear values (up to big index spaces): mixed-radix products and offset
//! sums.
//!
//! Layouts are computed once per type when compiling; the run-time functions below only do
//! integer arithmetic on `u64` codes (or `BigUint` codes for types bigger than 2^64).

use std::sync::{Arc, Mutex};

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use crate::types::layout::{product_digits, sum_summands};
use crate::types::size::{codes_fit_u64, size_of};
use crate::types::Type;

use super::value::Value;

/// How the codes of one compact type are represented as values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeRepr {
    /// The type `unit`: its only value is `Value::Unit` (code 0).
    Unit,
    /// Codes fit in 64 bits: `Value::Int` holding the `u64` bit pattern.
    Small,
    /// Codes need a `BigUint`: `Value::Big`.
    Big,
}

impl CodeRepr {
    pub fn of(ty: &Type) -> CodeRepr {
        if ty.is_unit() {
            CodeRepr::Unit
        } else if codes_fit_u64(ty) {
            CodeRepr::Small
        } else {
            CodeRepr::Big
        }
    }
}

/// Is a value of this type a `Value::Int` (an integer, a char, or a 64-bit compact code)?
pub fn is_int_like(ty: &Type) -> bool {
    match ty {
        Type::Int(_) | Type::Char => true,
        t => crate::types::kind::is_compact(t) && CodeRepr::of(t) == CodeRepr::Small,
    }
}

/// The code of a compact value as a `u64` (big codes saturate: they are never used where a
/// small code is expected).
pub fn code_u64(value: &Value) -> u64 {
    match value {
        Value::Int(i) => *i as u64,
        Value::Big(b) => b.to_u64().unwrap_or(u64::MAX),
        _ => 0,
    }
}

/// The code of a compact value as a `BigUint`.
pub fn code_big(value: &Value) -> BigUint {
    match value {
        Value::Int(i) => BigUint::from(*i as u64),
        Value::Big(b) => (**b).clone(),
        _ => BigUint::zero(),
    }
}

/// The value with code `code` in the given representation.
pub fn value_from_u64(code: u64, repr: CodeRepr) -> Value {
    match repr {
        CodeRepr::Unit => Value::Unit,
        CodeRepr::Small => Value::Int(code as i64),
        CodeRepr::Big => Value::Big(Arc::new(BigUint::from(code))),
    }
}

/// The value with code `code` in the given representation (the code must fit it).
pub fn value_from_big(code: BigUint, repr: CodeRepr) -> Value {
    match repr {
        CodeRepr::Unit => Value::Unit,
        CodeRepr::Small => Value::Int(code.to_u64().unwrap_or(u64::MAX) as i64),
        CodeRepr::Big => Value::Big(Arc::new(code)),
    }
}

/// The size of a compact type with variables substituted; 0 for a type without a size.
pub fn size_big(ty: &Type) -> BigUint {
    size_of(ty).unwrap_or_default()
}

/// The radices and weights of a compact product (`\*` or `\^`), most significant first.
#[derive(Clone, Debug)]
pub enum ProductLayout {
    Small {
        radices: Vec<u64>,
        weights: Vec<u64>,
        components: Vec<CodeRepr>,
    },
    Big {
        radices: Vec<BigUint>,
        weights: Vec<BigUint>,
        components: Vec<CodeRepr>,
    },
}

impl ProductLayout {
    /// `(radix, weight)` of component `index` of a compact product type when both its code and
    /// that component's code fit in a `u64` (the unboxed fast paths); `None` otherwise.
    pub fn small_digit(ty: &Type, index: usize) -> Option<(u64, u64)> {
        let ProductLayout::Small {
            radices,
            weights,
            components,
        } = ProductLayout::of(ty)?
        else {
            return None;
        };
        if components.get(index) != Some(&CodeRepr::Small) {
            return None;
        }
        Some((radices[index], weights[index]))
    }

    /// The layout of component `index` alone (as component 0 of the result), for compact
    /// arrays too long for `of` to list every digit.
    pub fn one_digit(ty: &Type, index: usize) -> Option<ProductLayout> {
        let digit = crate::types::layout::product_digit(ty, index)?;
        Some(ProductLayout::Big {
            components: vec![CodeRepr::of(&digit.ty)],
            radices: vec![digit.radix],
            weights: vec![digit.weight],
        })
    }

    /// The layout of a compact product type; `None` for any other type.
    pub fn of(ty: &Type) -> Option<ProductLayout> {
        let digits = product_digits(ty)?;
        let components: Vec<CodeRepr> = digits.iter().map(|d| CodeRepr::of(&d.ty)).collect();
        let small_radices: Option<Vec<u64>> = digits.iter().map(|d| d.radix.to_u64()).collect();
        let small_weights: Option<Vec<u64>> = digits.iter().map(|d| d.weight.to_u64()).collect();
        match (codes_fit_u64(ty), small_radices, small_weights) {
            (true, Some(radices), Some(weights)) => Some(ProductLayout::Small {
                radices,
                weights,
                components,
            }),
            _ => Some(ProductLayout::Big {
                radices: digits.iter().map(|d| d.radix.clone()).collect(),
                weights: digits.iter().map(|d| d.weight.clone()).collect(),
                components,
            }),
        }
    }

    /// The code of the compact tuple with the given components.
    pub fn build(&self, parts: &[Value]) -> Value {
        match self {
            ProductLayout::Small { weights, .. } => {
                let mut code = 0u64;
                for (part, weight) in parts.iter().zip(weights) {
                    code = code.wrapping_add(code_u64(part).wrapping_mul(*weight));
                }
                Value::Int(code as i64)
            }
            ProductLayout::Big { weights, .. } => {
                let mut code = BigUint::zero();
                for (part, weight) in parts.iter().zip(weights) {
                    code += code_big(part) * weight;
                }
                Value::Big(Arc::new(code))
            }
        }
    }

    /// Component `index` of a compact tuple code: `(code / weight) % radix`.
    pub fn field(&self, value: &Value, index: usize) -> Value {
        match self {
            ProductLayout::Small {
                radices,
                weights,
                components,
            } => {
                let radix = radices[index];
                // A component of size 0 (or after one: weight 0) has no values: a value of this
                // type cannot exist, so the digit is never observed; 0 keeps this total.
                let digit = match code_u64(value).checked_div(weights[index]) {
                    Some(quotient) if radix != 0 => quotient % radix,
                    _ => 0,
                };
                value_from_u64(digit, components[index])
            }
            ProductLayout::Big {
                radices,
                weights,
                components,
            } => {
                let radix = &radices[index];
                let digit = if radix.is_zero() || weights[index].is_zero() {
                    BigUint::zero()
                } else {
                    (code_big(value) / &weights[index]) % radix
                };
                value_from_big(digit, components[index])
            }
        }
    }
}

/// A compact array `T \^ I` (an array like any other): `n` digits of one radix, the element at position
/// `p` (most significant first) being `(code / radix^(n-1-p)) % radix`. Elements are found by
/// position at run time, so the layout never lists the digits one by one.
#[derive(Clone, Debug)]
pub struct CArrayLayout {
    /// The number of elements (`size` of the index type).
    pub n: usize,
    /// How an element's code is represented.
    pub elem: CodeRepr,
    radix: BigUint,
    /// The radix and the weights of every position when the array's codes fit in 64 bits
    /// (then a radix of at least 2 allows at most 64 positions; a radix below 2 has only the
    /// digit 0 and needs no weights).
    small: Option<(u64, Vec<u64>)>,
    /// The big weight last asked for, as `(exponent, radix^exponent)`: a loop over the
    /// positions asks for neighbouring weights, each one multiplication or exact division by
    /// the radix away from the last (linear time) where `pow` is superlinear.
    last_weight: Arc<Mutex<Option<(usize, BigUint)>>>,
    /// The radix's digits packed in a `u64` limb (`radix^per_limb` fits a `u64`) when the
    /// radix fits a `u64` and is at least 2; the powers `radix^0 ..= radix^per_limb`.
    packing: Option<Arc<Vec<u64>>>,
    /// The last big code whose digits were asked for, expanded into limbs once it is asked
    /// for twice: a loop over the digits of one big code then reads and replaces each in
    /// constant or linear time, where dividing the whole code by the digit's weight each time
    /// was quadratic per digit.
    expansion: Arc<Mutex<Option<Expansion>>>,
}

/// The digits of one big code, `per_limb` to a `u64` limb, least significant first. `code`
/// is kept alive so that its address names it.
#[derive(Debug)]
struct Expansion {
    code: Arc<BigUint>,
    limbs: Option<Vec<u64>>,
}

impl CArrayLayout {
    /// The layout of a compact array type; `None` for any other type, or when the element count
    /// does not fit in memory.
    pub fn of(ty: &Type) -> Option<CArrayLayout> {
        let Type::CArray(elem, index) = ty else {
            return None;
        };
        let n = size_of(index)?.to_usize()?;
        let radix = size_big(elem);
        let small = match (codes_fit_u64(ty), radix.to_u64()) {
            (true, Some(r)) if r < 2 => Some((r, Vec::new())),
            (true, Some(r)) => {
                let mut weights = vec![1u64; n];
                for p in (0..n.saturating_sub(1)).rev() {
                    weights[p] = weights[p + 1].wrapping_mul(r);
                }
                Some((r, weights))
            }
            _ => None,
        };
        let packing = match radix.to_u64() {
            Some(r) if r >= 2 => {
                let mut powers = vec![1u64];
                while let Some(next) = powers.last().and_then(|p| p.checked_mul(r)) {
                    powers.push(next);
                }
                Some(Arc::new(powers))
            }
            _ => None,
        };
        Some(CArrayLayout {
            n,
            elem: CodeRepr::of(elem),
            radix,
            small,
            last_weight: Arc::default(),
            packing,
            expansion: Arc::default(),
        })
    }

    /// With the limbs of `code` (expanded if it was asked for before), the digit of
    /// `radix^exponent` and what `edit` returns; `None` when the code is not expanded.
    fn with_limbs<R>(
        &self,
        code: &Arc<BigUint>,
        edit: impl FnOnce(&mut Vec<u64>, &[u64]) -> R,
    ) -> Option<R> {
        let powers = self.packing.as_ref()?;
        let mut cache = self
            .expansion
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match cache.as_mut() {
            Some(e) if Arc::ptr_eq(&e.code, code) => {
                if e.limbs.is_none() {
                    let per_limb = powers.len() - 1;
                    e.limbs = Some(to_limbs(code, powers[per_limb], self.n.div_ceil(per_limb)));
                }
                e.limbs.as_mut().map(|limbs| edit(limbs, powers))
            }
            _ => {
                *cache = Some(Expansion {
                    code: code.clone(),
                    limbs: None,
                });
                None
            }
        }
    }

    /// The digit at `radix^exponent` of an expanded code.
    fn limb_digit(limbs: &[u64], powers: &[u64], exponent: usize) -> u64 {
        let per_limb = powers.len() - 1;
        let limb = limbs.get(exponent / per_limb).copied().unwrap_or(0);
        let radix = powers[1];
        (limb / powers[exponent % per_limb]) % radix
    }

    /// Store `part` as the element at position `p` (checked to be below `n`) of a big
    /// compact array code in linear time; `false` (nothing done) when the code is not big.
    pub fn set_element(&self, code: &mut Value, p: usize, part: &Value) -> bool {
        let Value::Big(big) = &*code else {
            return false;
        };
        let exponent = self.n - 1 - p;
        let new = code_u64(part);
        let old = self.with_limbs(big, |limbs, powers| {
            let old = CArrayLayout::limb_digit(limbs, powers, exponent);
            let per_limb = powers.len() - 1;
            if let Some(limb) = limbs.get_mut(exponent / per_limb) {
                let weight = powers[exponent % per_limb];
                *limb = *limb - old * weight + new * weight;
            }
            old
        });
        let Some(old) = old else {
            self.digit(p).set(code, part);
            if let Value::Big(stored) = &*code {
                // The new code is the one the next store asks for: name it.
                self.rename_expansion(stored.clone());
            }
            return true;
        };
        let weight = self.big_weight(exponent);
        let updated = if new >= old {
            &**big + weight * (new - old)
        } else {
            &**big - weight * (old - new)
        };
        let updated = Arc::new(updated);
        self.rename_expansion(updated.clone());
        *code = Value::Big(updated);
        true
    }

    /// The cached expansion now names `code` (its limbs were edited to match it); a code not
    /// expanded yet is remembered for the next access.
    fn rename_expansion(&self, code: Arc<BigUint>) {
        let mut cache = self
            .expansion
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match cache.as_mut() {
            Some(e) => e.code = code,
            None => *cache = Some(Expansion { code, limbs: None }),
        }
    }

    /// The digit of the element at position `p` (checked to be below `n`).
    pub fn digit(&self, p: usize) -> Digit {
        match &self.small {
            Some((radix, weights)) => Digit::Small {
                radix: *radix,
                weight: weights.get(p).copied().unwrap_or(1),
            },
            None => Digit::Big {
                weight: self.big_weight(self.n - 1 - p),
                radix: self.radix.clone(),
            },
        }
    }

    /// `radix^exponent`, from the last weight asked for when it is a neighbour.
    fn big_weight(&self, exponent: usize) -> BigUint {
        let mut last = self
            .last_weight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let weight = match last.take() {
            Some((e, w)) if e == exponent => w,
            Some((e, w)) if e + 1 == exponent => w * &self.radix,
            Some((e, w)) if exponent + 1 == e && !self.radix.is_zero() => w / &self.radix,
            _ => self.radix.pow(exponent as u32),
        };
        *last = Some((exponent, weight.clone()));
        weight
    }

    /// The element at position `p` (checked to be below `n`) of a compact array code.
    pub fn element(&self, code: &Value, p: usize) -> Value {
        if let Value::Big(big) = code {
            let exponent = self.n - 1 - p;
            let digit = self.with_limbs(big, |limbs, powers| {
                CArrayLayout::limb_digit(limbs, powers, exponent)
            });
            if let Some(digit) = digit {
                return value_from_u64(digit, self.elem);
            }
        }
        self.digit(p).get(code, self.elem)
    }

    /// The code of the element at position `p` when the array's codes fit in 64 bits.
    #[inline]
    pub fn small_element(&self, code: u64, p: usize) -> Option<u64> {
        let (radix, weights) = self.small.as_ref()?;
        Some(match weights.get(p) {
            Some(w) => (code / w) % radix,
            None => 0,
        })
    }
}

/// The digits of `code` in base `base`, `count` limbs (the most significant ones zero when the
/// code is shorter), least significant first: halves split off by dividing by `base^half`,
/// so the cost is that of a few divisions of the whole code, not one per limb.
fn to_limbs(code: &BigUint, base: u64, count: usize) -> Vec<u64> {
    // powers[k] = base^(2^k), up to the first at least half the limbs.
    let mut powers = vec![BigUint::from(base)];
    while (1usize << (powers.len() - 1)) < count.div_ceil(2).max(1) {
        let last = powers.last().expect("one power");
        powers.push(last * last);
    }
    let mut limbs = vec![0u64; count];
    fill_limbs(code.clone(), &powers, &mut limbs);
    limbs
}

fn fill_limbs(code: BigUint, powers: &[BigUint], limbs: &mut [u64]) {
    if code.is_zero() || limbs.is_empty() {
        return;
    }
    if limbs.len() == 1 {
        limbs[0] = code.to_u64().unwrap_or(u64::MAX);
        return;
    }
    // The largest power base^(2^k) below the number of limbs splits them.
    let k = (usize::BITS - 1 - (limbs.len() - 1).leading_zeros()) as usize;
    let k = k.min(powers.len() - 1);
    let half = 1usize << k;
    let (high, low) = num_integer::Integer::div_rem(&code, &powers[k]);
    let (low_limbs, high_limbs) = limbs.split_at_mut(half);
    fill_limbs(low, &powers[..k], low_limbs);
    fill_limbs(high, powers, high_limbs);
}

/// Where a component of a compact value sits in its code: `(code / weight) % radix`. Digits of
/// nested components compose by multiplying weights ([`Digit::then`]), so any path of
/// projections into a compact value is one digit of the outermost code.
#[derive(Clone, Debug)]
pub enum Digit {
    /// The outermost code fits in 64 bits.
    Small {
        weight: u64,
        radix: u64,
    },
    Big {
        weight: BigUint,
        radix: BigUint,
    },
}

impl Digit {
    /// The digit of component `index` of a compact product layout.
    pub fn of_field(layout: &ProductLayout, index: usize) -> Digit {
        match layout {
            ProductLayout::Small {
                radices, weights, ..
            } => Digit::Small {
                weight: weights[index],
                radix: radices[index],
            },
            ProductLayout::Big {
                radices, weights, ..
            } => Digit::Big {
                weight: weights[index].clone(),
                radix: radices[index].clone(),
            },
        }
    }

    /// The digit of `inner`, a component of the value at `self`, within the outer code.
    pub fn then(self, inner: Digit) -> Digit {
        match (self, inner) {
            (Digit::Small { weight, .. }, Digit::Small { weight: w, radix }) => Digit::Small {
                weight: weight.wrapping_mul(w),
                radix,
            },
            (outer, inner) => {
                let (weight, _) = outer.big();
                let (w, radix) = inner.big();
                Digit::Big {
                    weight: weight * w,
                    radix,
                }
            }
        }
    }

    fn big(self) -> (BigUint, BigUint) {
        match self {
            Digit::Small { weight, radix } => (BigUint::from(weight), BigUint::from(radix)),
            Digit::Big { weight, radix } => (weight, radix),
        }
    }

    /// The component's value, represented as `repr`.
    pub fn get(&self, code: &Value, repr: CodeRepr) -> Value {
        match self {
            Digit::Small { weight, radix } => {
                let digit = (code_u64(code) / weight.max(&1))
                    .checked_rem(*radix)
                    .unwrap_or(0);
                value_from_u64(digit, repr)
            }
            Digit::Big { weight, radix } => {
                if radix.is_zero() || weight.is_zero() {
                    return value_from_u64(0, repr);
                }
                value_from_big((code_big(code) / weight) % radix, repr)
            }
        }
    }

    /// Replace the component's digits in `code` by the code of `part`, keeping every other
    /// digit.
    pub fn set(&self, code: &mut Value, part: &Value) {
        match self {
            Digit::Small { weight, radix } => {
                if *radix == 0 || *weight == 0 || matches!(code, Value::Unit) {
                    return;
                }
                let old = code_u64(code);
                let digit = (old / weight) % radix;
                let new = old - digit * weight + code_u64(part) * weight;
                *code = Value::Int(new as i64);
            }
            Digit::Big { weight, radix } => {
                if radix.is_zero() || weight.is_zero() || matches!(code, Value::Unit) {
                    return;
                }
                let old = code_big(code);
                let digit = (&old / weight) % radix;
                let new = old - digit * weight + code_big(part) * weight;
                *code = match code {
                    Value::Int(_) => Value::Int(new.to_u64().unwrap_or(u64::MAX) as i64),
                    _ => Value::Big(Arc::new(new)),
                };
            }
        }
    }
}

/// The offsets and sizes of the summands of a compact sum (`\+`).
#[derive(Clone, Debug)]
pub struct SumLayout {
    pub offsets: Vec<BigUint>,
    pub sizes: Vec<BigUint>,
    /// The offsets as `u64` when the whole sum's codes fit.
    pub small_offsets: Option<Vec<u64>>,
    pub summands: Vec<CodeRepr>,
    pub repr: CodeRepr,
}

impl SumLayout {
    pub fn of(ty: &Type) -> Option<SumLayout> {
        let summands = sum_summands(ty)?;
        let repr = CodeRepr::of(ty);
        let offsets: Vec<BigUint> = summands.iter().map(|s| s.offset.clone()).collect();
        let small_offsets = if repr == CodeRepr::Small {
            offsets.iter().map(|o| o.to_u64()).collect()
        } else {
            None
        };
        Some(SumLayout {
            sizes: summands.iter().map(|s| s.size.clone()).collect(),
            summands: summands.iter().map(|s| CodeRepr::of(&s.ty)).collect(),
            offsets,
            small_offsets,
            repr,
        })
    }

    /// The code of summand `tag` with the argument `arg`.
    pub fn inject(&self, tag: usize, arg: &Value) -> Value {
        match &self.small_offsets {
            Some(offsets) => Value::Int(offsets[tag].wrapping_add(code_u64(arg)) as i64),
            None => value_from_big(&self.offsets[tag] + code_big(arg), self.repr),
        }
    }

    /// The summand a code belongs to, and its argument's value. A code outside every summand
    /// (impossible for a well-typed value) yields the last summand.
    pub fn split(&self, value: &Value) -> (usize, Value) {
        if let Some(offsets) = &self.small_offsets {
            let code = code_u64(value);
            let tag = offsets
                .iter()
                .rposition(|offset| *offset <= code)
                .unwrap_or(0);
            // An empty summand shares its offset with the next summand, so the last summand
            // starting at or before the code is the one that contains it.
            return (tag, value_from_u64(code - offsets[tag], self.summands[tag]));
        }
        let code = code_big(value);
        for (tag, (offset, size)) in self.offsets.iter().zip(&self.sizes).enumerate() {
            if code >= *offset && code < offset + size {
                return (tag, value_from_big(code - offset, self.summands[tag]));
            }
        }
        let last = self.offsets.len().saturating_sub(1);
        (last, Value::Unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_codes_are_mixed_radix_leftmost_most_significant() {
        let ty = Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(4), Type::Unitsum(5)]);
        let layout = ProductLayout::of(&ty).expect("a compact product");
        let code = layout.build(&[Value::Int(2), Value::Int(1), Value::Int(3)]);
        assert_eq!(code.as_int(), 20 * 2 + 5 + 3);
        assert_eq!(layout.field(&code, 0).as_int(), 2);
        assert_eq!(layout.field(&code, 1).as_int(), 1);
        assert_eq!(layout.field(&code, 2).as_int(), 3);
    }

    #[test]
    fn compact_array_elements_are_digits_by_position() {
        // 5 \^ 3 holding (1, 4, 2): code 1*25 + 4*5 + 2 = 47.
        let ty = Type::carray(Type::Unitsum(5), Type::Unitsum(3));
        let layout = CArrayLayout::of(&ty).expect("a compact array");
        let code = Value::Int(47);
        let got: Vec<i64> = (0..3).map(|p| layout.element(&code, p).as_int()).collect();
        assert_eq!(got, vec![1, 4, 2]);
        assert_eq!(layout.small_element(47, 1), Some(4));
    }

    #[test]
    fn big_weights_stepped_from_the_last_equal_powers() {
        let ty = Type::carray(Type::Unitsum(3), Type::Unitsum(200));
        let layout = CArrayLayout::of(&ty).expect("a compact array");
        let radix = BigUint::from(3u8);
        for p in [0, 1, 2, 3, 2, 1, 150, 151, 199, 198, 198, 0] {
            let Digit::Big { weight, .. } = layout.digit(p) else {
                panic!("a 318-bit code has big digits");
            };
            assert_eq!(weight, radix.pow(199 - p as u32), "position {p}");
        }
    }

    #[test]
    fn digit_stores_replace_only_their_component() {
        // 3 \* 4 \* 5 holding (2, 3, 4) is code 59; storing 2 into component 1 gives 54.
        let ty = Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(4), Type::Unitsum(5)]);
        let layout = ProductLayout::of(&ty).expect("a compact product");
        let mut code = Value::Int(59);
        Digit::of_field(&layout, 1).set(&mut code, &Value::Int(2));
        assert_eq!(code.as_int(), 54);
        // Nested digits compose: component 0 of component 1 of (3 \* (2 \* 2)).
        let inner_ty = Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(2)]);
        let outer_ty = Type::cproduct(vec![Type::Unitsum(3), inner_ty.clone()]);
        let outer = ProductLayout::of(&outer_ty).expect("outer");
        let inner = ProductLayout::of(&inner_ty).expect("inner");
        let digit = Digit::of_field(&outer, 1).then(Digit::of_field(&inner, 0));
        let mut code = Value::Int(2 * 4 + 1); // (2, (0, 1))
        digit.set(&mut code, &Value::Int(1));
        assert_eq!(code.as_int(), 2 * 4 + 2 + 1); // (2, (1, 1))
        assert_eq!(digit.get(&code, CodeRepr::Small).as_int(), 1);
        // The same store on big codes.
        let big = Digit::of_field(&outer, 1)
            .then(Digit::of_field(&inner, 0))
            .then(Digit::Big {
                weight: BigUint::from(1u8),
                radix: BigUint::from(2u8),
            });
        let mut code = Value::Big(Arc::new(BigUint::from(9u8)));
        big.set(&mut code, &Value::Int(1));
        assert_eq!(code_big(&code), BigUint::from(11u8));
    }

    #[test]
    fn sum_codes_add_offsets() {
        let ty = Type::csum(vec![Type::Unitsum(3), Type::Unitsum(2)]);
        let layout = SumLayout::of(&ty).expect("a compact sum");
        let code = layout.inject(1, &Value::Int(1));
        assert_eq!(code.as_int(), 4);
        let (tag, arg) = layout.split(&code);
        assert_eq!(tag, 1);
        assert_eq!(arg.as_int(), 1);
        let (tag, arg) = layout.split(&Value::Int(2));
        assert_eq!((tag, arg.as_int()), (0, 2));
    }

    #[test]
    fn big_codes_expand_into_limbs_and_keep_their_digits() {
        // 7 \^ 300: a 843-bit code, 22 digits of 7 to a limb.
        let ty = Type::carray(Type::Unitsum(7), Type::Unitsum(300));
        let layout = CArrayLayout::of(&ty).expect("a compact array");
        let digits: Vec<u64> = (0..300u64).map(|p| (p * p + 3) % 7).collect();
        let code = digits
            .iter()
            .fold(BigUint::zero(), |code, d| code * 7u32 + d);
        let limbs = to_limbs(&code, 7u64.pow(22), 300usize.div_ceil(22));
        for (e, d) in digits.iter().rev().enumerate() {
            let limb = limbs[e / 22];
            assert_eq!((limb / 7u64.pow((e % 22) as u32)) % 7, *d, "digit {e}");
        }
        // Reads (the first remembers the code, the second expands it) and stores agree with
        // the digits, and a store leaves a copy of the old code as it was.
        let mut value = Value::Big(Arc::new(code.clone()));
        let kept = value.clone();
        for (p, d) in digits.iter().enumerate() {
            assert_eq!(layout.element(&value, p).as_int() as u64, *d);
        }
        let mut expected = digits.clone();
        for p in (0..300).step_by(7) {
            let new = (expected[p] + 1) % 7;
            assert!(layout.set_element(&mut value, p, &Value::Int(new as i64)));
            expected[p] = new;
        }
        let expected_code = expected
            .iter()
            .fold(BigUint::zero(), |code, d| code * 7u32 + d);
        assert_eq!(code_big(&value), expected_code);
        assert_eq!(code_big(&kept), code);
        for (p, d) in expected.iter().enumerate() {
            assert_eq!(layout.element(&value, p).as_int() as u64, *d);
            assert_eq!(layout.element(&kept, p).as_int() as u64, digits[p]);
        }
    }
}
