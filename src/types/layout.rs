//! Mixed-radix layouts of compact linear types: the digits of products, the
//! offsets of sums, encoding and decoding of codes, and the `:layout` line. The leftmost
//! component of a product is the most significant digit.
//!
//! The `BigUint` functions are meant to be called once per type (at compile time) or on big
//! codes; hot paths use `ProductRadicesU64` and `SumOffsetsU64`, precomputed from them when the
//! codes fit in a `u64`, which always agree with the `BigUint` functions.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::types::kind::{compact_hint, is_compact};
use crate::types::size::{size_of, MAX_SIZE_BITS};
use crate::types::ty::Type;

/// The most digits `describe_layout` lists (and `product_digits` expands for a compact array).
pub const MAX_LAYOUT_DIGITS: usize = 1 << 16;

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
/// whose index has more than `MAX_LAYOUT_DIGITS` values, and for types with variables.
pub fn product_digits(ty: &Type) -> Option<Vec<Digit>> {
    let components: Vec<Type> = match ty {
        Type::CProduct(components) => components.to_vec(),
        Type::CArray(element, index) => {
            let count = size_of(index)?.to_usize()?;
            if count > MAX_LAYOUT_DIGITS {
                return None;
            }
            vec![(**element).clone(); count]
        }
        _ => return None,
    };
    let sizes: Vec<BigUint> = components.iter().map(size_of).collect::<Option<_>>()?;
    let weights = weights_of(&sizes);
    Some(
        components
            .into_iter()
            .zip(sizes)
            .zip(weights)
            .map(|((ty, radix), weight)| Digit { ty, radix, weight })
            .collect(),
    )
}

/// Digit `index` of a compact product type alone, without the others: for a compact array
/// with more components than `product_digits` lists, the radix is the element's size and the
/// weight that size to the power of the number of components after `index`.
pub fn product_digit(ty: &Type, index: usize) -> Option<Digit> {
    match ty {
        Type::CArray(element, count) => {
            let count = size_of(count)?;
            let index_big = BigUint::from(index);
            if index_big >= count {
                return None;
            }
            let after = (count - index_big - 1u32).to_u32()?;
            let radix = size_of(element)?;
            let weight = num_traits::pow::Pow::pow(&radix, after);
            Some(Digit {
                ty: (**element).clone(),
                radix,
                weight,
            })
        }
        _ => product_digits(ty)?.into_iter().nth(index),
    }
}

/// The weights of mixed-radix digits, most significant first: each is the product of the
/// radices to its right.
fn weights_of(radices: &[BigUint]) -> Vec<BigUint> {
    let mut weight = BigUint::one();
    let mut weights = vec![BigUint::zero(); radices.len()];
    for (slot, radix) in weights.iter_mut().zip(radices).rev() {
        *slot = weight.clone();
        weight *= radix;
    }
    weights
}

/// The code of a compact product value from the codes of its components (one per digit,
/// each below its radix): `Σ weight_k · component_k`.
#[cfg(test)]
pub fn encode_product(digits: &[Digit], components: &[BigUint]) -> BigUint {
    digits
        .iter()
        .zip(components)
        .fold(BigUint::zero(), |code, (digit, component)| {
            code + &digit.weight * component
        })
}

/// The codes of the components of a compact product value: `(code / weight_k) % radix_k`.
#[cfg(test)]
pub fn decode_product(digits: &[Digit], code: &BigUint) -> Vec<BigUint> {
    digits
        .iter()
        .map(|digit| project_product(digit, code))
        .collect()
}

/// The code of one component of a compact product value (a projection).
#[cfg(test)]
pub fn project_product(digit: &Digit, code: &BigUint) -> BigUint {
    if digit.radix.is_zero() || digit.weight.is_zero() {
        // A product with a zero radix has no values; answer something harmless.
        return BigUint::zero();
    }
    (code / &digit.weight) % &digit.radix
}

/// Radices and weights of a compact product as `u64`s, for products whose codes fit in a
/// `u64` (size at most 2^64). Agrees with `encode_product` and `decode_product`.
///
/// Two corner cases of sizes near 2^64 are stored specially so that every such product has a
/// fast path: a radix of exactly 2^64 (possible only when every other radix is 1) is stored
/// as 0, meaning "no modulus"; a weight of 2^64 (possible only for a digit of radix 1, whose
/// component is always 0) is stored as 0, and projecting it gives 0. A true radix of 0 occurs
/// only in a product without values, where nothing is ever decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(test)]
pub struct ProductRadicesU64 {
    pub radices: Vec<u64>,
    pub weights: Vec<u64>,
}

#[cfg(test)]
impl ProductRadicesU64 {
    /// `None` exactly when the codes of the product do not fit in a `u64`.
    pub fn from_digits(digits: &[Digit]) -> Option<ProductRadicesU64> {
        let two_to_the_sixty_four = BigUint::one() << 64u32;
        let size = digits
            .first()
            .map(|digit| &digit.radix * &digit.weight)
            .unwrap_or_else(BigUint::one);
        if size > two_to_the_sixty_four {
            return None;
        }
        let mut radices = Vec::with_capacity(digits.len());
        let mut weights = Vec::with_capacity(digits.len());
        for digit in digits {
            let radix = match digit.radix.to_u64() {
                Some(radix) => radix,
                None if digit.radix == two_to_the_sixty_four => 0,
                None => return None,
            };
            let weight = match digit.weight.to_u64() {
                Some(weight) => weight,
                None if digit.radix <= BigUint::one() => 0,
                None => return None,
            };
            radices.push(radix);
            weights.push(weight);
        }
        Some(ProductRadicesU64 { radices, weights })
    }

    /// The code from the component codes (each below its radix).
    pub fn encode(&self, components: &[u64]) -> u64 {
        self.weights
            .iter()
            .zip(components)
            .fold(0u64, |code, (weight, component)| {
                code.wrapping_add(weight.wrapping_mul(*component))
            })
    }

    /// The component codes of a code.
    pub fn decode(&self, code: u64) -> Vec<u64> {
        (0..self.radices.len())
            .map(|position| self.project(code, position))
            .collect()
    }

    /// The code of the component at `position`: `(code / weight) % radix`.
    pub fn project(&self, code: u64, position: usize) -> u64 {
        let (Some(radix), Some(weight)) = (self.radices.get(position), self.weights.get(position))
        else {
            return 0;
        };
        let Some(quotient) = code.checked_div(*weight) else {
            return 0;
        };
        if *radix == 0 {
            quotient
        } else {
            quotient % radix
        }
    }
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
    let Type::CSum(summands) = ty else {
        return None;
    };
    let mut offset = BigUint::zero();
    let mut out = Vec::with_capacity(summands.len());
    for summand in summands.iter() {
        let size = size_of(summand)?;
        out.push(Summand {
            ty: summand.clone(),
            size: size.clone(),
            offset: offset.clone(),
        });
        offset += size;
    }
    Some(out)
}

/// The code of the injection of an argument (by its code) into a summand.
#[cfg(test)]
pub fn encode_sum(summand: &Summand, argument: &BigUint) -> BigUint {
    &summand.offset + argument
}

/// The summand a code of a compact sum belongs to, and the code of its argument.
pub fn split_sum_code(summands: &[Summand], code: &BigUint) -> Option<(usize, BigUint)> {
    summands
        .iter()
        .enumerate()
        .find(|(_, summand)| *code >= summand.offset && *code < &summand.offset + &summand.size)
        .map(|(tag, summand)| (tag, code - &summand.offset))
}

/// Offsets and sizes of a compact sum, for sums whose codes fit in a `u64` (size at most
/// 2^64). Agrees with `encode_sum` and `split_sum_code`. Sizes are `u128` because one summand
/// may have exactly 2^64 values; an offset of 2^64 (possible only for trailing summands
/// without values) is stored as `u64::MAX`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(test)]
pub struct SumOffsetsU64 {
    pub offsets: Vec<u64>,
    pub sizes: Vec<u128>,
}

#[cfg(test)]
impl SumOffsetsU64 {
    /// `None` exactly when the codes of the sum do not fit in a `u64`.
    pub fn from_summands(summands: &[Summand]) -> Option<SumOffsetsU64> {
        let mut offsets = Vec::with_capacity(summands.len());
        let mut sizes = Vec::with_capacity(summands.len());
        let mut total: u128 = 0;
        for summand in summands {
            let size = summand.size.to_u128()?;
            offsets.push(u64::try_from(total).unwrap_or(u64::MAX));
            sizes.push(size);
            total = total.checked_add(size)?;
        }
        (total <= 1u128 << 64).then_some(SumOffsetsU64 { offsets, sizes })
    }

    /// The code of the injection of `argument` into summand `tag`; `None` for a bad tag.
    pub fn encode(&self, tag: usize, argument: u64) -> Option<u64> {
        self.offsets.get(tag)?.checked_add(argument)
    }

    /// The summand a code belongs to and the code of its argument.
    pub fn split(&self, code: u64) -> Option<(usize, u64)> {
        self.offsets
            .iter()
            .zip(&self.sizes)
            .position(|(offset, size)| code >= *offset && u128::from(code - offset) < *size)
            .map(|tag| (tag, code - self.offsets[tag]))
    }
}

/// The radices of a product-like compact type with nested products flattened, most
/// significant first: a unitsum or a compact sum is one digit, `T \^ I` is `size(I)` copies of
/// the digits of `T`. `Err` when the type is not compact linear or has too many digits.
fn flattened_radices(ty: &Type, radices: &mut Vec<BigUint>) -> Result<(), String> {
    match ty {
        Type::CProduct(components) => {
            for component in components.iter() {
                flattened_radices(component, radices)?;
            }
        }
        Type::CArray(element, index) => {
            let count = size_of(index)
                .ok_or_else(|| no_layout_message(index))?
                .to_usize()
                .filter(|count| radices.len().saturating_add(*count) <= MAX_LAYOUT_DIGITS)
                .ok_or_else(|| too_many_digits_message(ty))?;
            let mut element_radices = Vec::new();
            flattened_radices(element, &mut element_radices)?;
            for _ in 0..count {
                radices.extend(element_radices.iter().cloned());
            }
        }
        _ => radices.push(size_of(ty).ok_or_else(|| no_layout_message(ty))?),
    }
    if radices.len() > MAX_LAYOUT_DIGITS {
        return Err(too_many_digits_message(ty));
    }
    Ok(())
}

fn no_layout_message(ty: &Type) -> String {
    if is_compact(ty) {
        return if ty.has_var() || ty.has_meta() {
            format!("`{ty}` mentions a type variable, so its layout is not known")
        } else {
            format!(
                "the size of `{ty}` has more than {MAX_SIZE_BITS} bits; its layout is not listed"
            )
        };
    }
    let mut message = format!("`{ty}` is not compact linear, so it has no layout");
    if let Some(hint) = compact_hint(ty) {
        message.push_str(&format!("; write `{hint}`"));
    }
    message
}

fn too_many_digits_message(ty: &Type) -> String {
    format!("`{ty}` has more than {MAX_LAYOUT_DIGITS} digits; its layout is not listed")
}

/// The most numbers of one `:layout` list printed; the rest are counted.
const MAX_LISTED_NUMBERS: usize = 512;

/// Numbers of more bits than this are printed in scientific form: their decimal
/// conversion would cost more than linear time and fill the output (`:layout` of
/// `4294967295 \^ 8000` has 8000 weights of up to 77,000 digits each).
const MAX_EXACT_BITS: u64 = 256;

fn join_numbers(numbers: &[BigUint]) -> String {
    let mut text = numbers
        .iter()
        .take(MAX_LISTED_NUMBERS)
        .map(show_number)
        .collect::<Vec<_>>()
        .join(" ");
    if numbers.len() > MAX_LISTED_NUMBERS {
        text.push_str(&format!(" … ({} more)", numbers.len() - MAX_LISTED_NUMBERS));
    }
    text
}

/// A number in decimal, or (when it has more than `MAX_EXACT_BITS` bits) as `≈d.ddddddde+N`
/// from its leading 64 bits.
fn show_number(n: &BigUint) -> String {
    let bits = n.bits();
    if bits <= MAX_EXACT_BITS {
        return n.to_string();
    }
    let shift = bits - 64;
    let top = (n >> shift).to_u64().unwrap_or(u64::MAX) as f64;
    let log10 = top.log10() + shift as f64 * std::f64::consts::LOG10_2;
    let exponent = log10.floor();
    let mantissa = 10f64.powf(log10 - exponent);
    format!("≈{mantissa:.9}e+{exponent}")
}

/// The `:layout` line of the REPL. Product-like types (`\*`, `\^`, unitsums): `size 60; radices
/// 3 4 5; weights 20 5 1`; compact sums: `size 5; summands 3 2; offsets 0 3`; an array type
/// `T ^ I`: the layout of `I`. `Err` with a message for any other type.
pub fn describe_layout(ty: &Type) -> Result<String, String> {
    match ty {
        // Visibility changes no layout: a secret is stored like its public type,
        // and an array's shape (its index) is always public.
        Type::Array(element, index) if element.has_secret() => Ok(format!(
            "{}; secret elements, public shape",
            describe_layout(index)?
        )),
        Type::Secret(inner) => Ok(format!(
            "{}; secret, stored like `{inner}`",
            describe_layout(inner)?
        )),
        Type::Distributed(inner) => Ok(format!(
            "{}; distributed in equal chunks of the linear index",
            describe_layout(inner)?
        )),
        Type::Array(_, index) => describe_layout(index),
        Type::CSum(_) => {
            let summands = sum_summands(ty).ok_or_else(|| no_layout_message(ty))?;
            let size = summands
                .iter()
                .fold(BigUint::zero(), |total, summand| total + &summand.size);
            let sizes: Vec<BigUint> = summands
                .iter()
                .map(|summand| summand.size.clone())
                .collect();
            let offsets: Vec<BigUint> = summands
                .iter()
                .map(|summand| summand.offset.clone())
                .collect();
            Ok(format!(
                "size {}; summands {}; offsets {}",
                show_number(&size),
                join_numbers(&sizes),
                join_numbers(&offsets)
            ))
        }
        Type::Unitsum(_) | Type::CProduct(_) | Type::CArray(..) => {
            let size = size_of(ty).ok_or_else(|| no_layout_message(ty))?;
            let mut radices = Vec::new();
            flattened_radices(ty, &mut radices)?;
            let weights = weights_of(&radices);
            Ok(format!(
                "size {}; radices {}; weights {}",
                show_number(&size),
                join_numbers(&radices),
                join_numbers(&weights)
            ))
        }
        _ => Err(no_layout_message(ty)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    fn big(n: u64) -> BigUint {
        BigUint::from(n)
    }

    fn check_layout(ty: Type, expected: &str) {
        assert_eq!(describe_layout(&ty).as_deref(), Ok(expected));
    }

    #[test]
    fn layouts_of_the_transcript() {
        check_layout(
            Type::cproduct(vec![unitsum(3), unitsum(4), unitsum(5)]),
            "size 60; radices 3 4 5; weights 20 5 1",
        );
        check_layout(
            Type::cproduct(vec![
                Type::cproduct(vec![unitsum(3), unitsum(2)]),
                unitsum(4),
            ]),
            "size 24; radices 3 2 4; weights 8 4 1",
        );
        check_layout(
            Type::csum(vec![unitsum(3), unitsum(2)]),
            "size 5; summands 3 2; offsets 0 3",
        );
        check_layout(
            Type::cproduct(vec![Type::csum(vec![unitsum(3), unitsum(2)]), unitsum(2)]),
            "size 10; radices 5 2; weights 2 1",
        );
        check_layout(
            Type::carray(unitsum(3), unitsum(2)),
            "size 9; radices 3 3; weights 3 1",
        );
        check_layout(
            Type::array(Type::INT, Type::cproduct(vec![unitsum(2), unitsum(5)])),
            "size 10; radices 2 5; weights 5 1",
        );
        check_layout(unitsum(5), "size 5; radices 5; weights 1");
    }

    #[test]
    fn nested_compact_arrays_flatten() {
        check_layout(
            Type::carray(Type::carray(unitsum(2), unitsum(2)), unitsum(2)),
            "size 16; radices 2 2 2 2; weights 8 4 2 1",
        );
        check_layout(
            Type::array(Type::INT, Type::csum(vec![unitsum(3), unitsum(2)])),
            "size 5; summands 3 2; offsets 0 3",
        );
    }

    #[test]
    fn big_layouts_print_in_decimal() {
        let layout = describe_layout(&Type::carray(unitsum(2), unitsum(70))).unwrap();
        assert!(layout.starts_with("size 1180591620717411303424; radices 2 2"));
        assert!(layout.contains("weights 590295810358705651712 295147905179352825856"));
        assert!(layout.ends_with(" 4 2 1"));
    }

    #[test]
    fn non_compact_types_have_no_layout() {
        assert!(describe_layout(&Type::INT).is_err());
        let plain = describe_layout(&Type::tuple(vec![unitsum(3), unitsum(2)])).unwrap_err();
        assert!(plain.contains("write `3 \\* 2`"), "{plain}");
        assert!(describe_layout(&Type::array(Type::INT, Type::INT)).is_err());
        let huge = Type::carray(unitsum(1), Type::carray(unitsum(2), unitsum(40)));
        assert!(describe_layout(&huge).unwrap_err().contains("digits"));
        let enormous = Type::carray(unitsum(2), Type::carray(unitsum(2), unitsum(40)));
        assert!(describe_layout(&enormous).unwrap_err().contains("bits"));
    }

    #[test]
    fn products_encode_and_decode() {
        let ty = Type::cproduct(vec![unitsum(3), unitsum(4), unitsum(5)]);
        let digits = product_digits(&ty).unwrap();
        let components = vec![big(2), big(1), big(3)];
        let code = encode_product(&digits, &components);
        assert_eq!(code, big(48));
        assert_eq!(decode_product(&digits, &code), components);
        let fast = ProductRadicesU64::from_digits(&digits).unwrap();
        assert_eq!(fast.encode(&[2, 1, 3]), 48);
        assert_eq!(fast.decode(48), vec![2, 1, 3]);
        assert_eq!(fast.project(48, 1), 1);
        assert_eq!(fast.project(48, 7), 0);
    }

    #[test]
    fn compact_arrays_encode_like_products() {
        let digits = product_digits(&Type::carray(unitsum(3), unitsum(2))).unwrap();
        assert_eq!(encode_product(&digits, &[big(1), big(2)]), big(5));
    }

    #[test]
    fn sums_encode_and_split() {
        let summands = sum_summands(&Type::csum(vec![unitsum(3), unitsum(2)])).unwrap();
        assert_eq!(encode_sum(&summands[0], &big(2)), big(2));
        assert_eq!(encode_sum(&summands[1], &big(1)), big(4));
        assert_eq!(split_sum_code(&summands, &big(4)), Some((1, big(1))));
        assert_eq!(split_sum_code(&summands, &big(5)), None);
        let fast = SumOffsetsU64::from_summands(&summands).unwrap();
        assert_eq!(fast.encode(1, 1), Some(4));
        assert_eq!(fast.encode(2, 0), None);
        assert_eq!(fast.split(2), Some((0, 2)));
        assert_eq!(fast.split(4), Some((1, 1)));
        assert_eq!(fast.split(5), None);
    }

    #[test]
    fn fast_paths_cover_sizes_of_two_to_the_sixty_four() {
        let wide = Type::cproduct(vec![unitsum(1), Type::carray(unitsum(2), unitsum(64))]);
        let digits = product_digits(&wide).unwrap();
        let fast = ProductRadicesU64::from_digits(&digits).unwrap();
        assert_eq!(fast.decode(u64::MAX), vec![0, u64::MAX]);
        assert_eq!(fast.encode(&[0, u64::MAX]), u64::MAX);
        let too_wide = Type::cproduct(vec![unitsum(2), Type::carray(unitsum(2), unitsum(64))]);
        let digits = product_digits(&too_wide).unwrap();
        assert_eq!(ProductRadicesU64::from_digits(&digits), None);
        let sum = Type::csum(vec![Type::carray(unitsum(2), unitsum(64)), unitsum(0)]);
        let fast = SumOffsetsU64::from_summands(&sum_summands(&sum).unwrap()).unwrap();
        assert_eq!(fast.split(u64::MAX), Some((0, u64::MAX)));
        let too_big = Type::csum(vec![Type::carray(unitsum(2), unitsum(64)), unitsum(1)]);
        assert_eq!(
            SumOffsetsU64::from_summands(&sum_summands(&too_big).unwrap()),
            None
        );
    }

    #[test]
    fn empty_products_do_not_divide_by_zero() {
        let digits = product_digits(&Type::cproduct(vec![unitsum(0), unitsum(3)])).unwrap();
        assert_eq!(decode_product(&digits, &big(1)), vec![big(0), big(1)]);
        let fast = ProductRadicesU64::from_digits(&digits).unwrap();
        assert_eq!(fast.decode(1), vec![0, 1]);
    }
}
