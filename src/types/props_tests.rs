//! Property tests of the type algebra: sizes, mixed-radix encodings, kinds and the
//! isomorphism engine, on randomly generated types.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use proptest::prelude::*;

use crate::types::iso::{
    classify, normal_form, transpose_permutation, Iso, Leaf, Mismatch, NormalForm,
};
use crate::types::kind::{compact_hint, kind_of};
use crate::types::layout::{
    decode_product, encode_product, encode_sum, product_digits, split_sum_code, sum_summands,
    ProductRadicesU64, SumOffsetsU64,
};
use crate::types::size::{codes_fit_u64, size_of, size_u64, MAX_SIZE_BITS};
use crate::types::{Kind, Type};

/// Small compact index types: unitsums and one level of `\*`, `\+` over them.
fn small_index_type() -> impl Strategy<Value = Type> {
    let unitsum = (0u64..4).prop_map(Type::Unitsum);
    prop_oneof![
        3 => unitsum.clone(),
        1 => prop::collection::vec(unitsum.clone(), 2..3).prop_map(Type::cproduct),
        1 => prop::collection::vec(unitsum, 2..3).prop_map(Type::csum),
    ]
}

/// Random compact linear types over the given unitsum leaves, nested a few levels.
fn compact_type_over(leaf: BoxedStrategy<Type>) -> impl Strategy<Value = Type> {
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Type::cproduct),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Type::csum),
            (inner, small_index_type()).prop_map(|(element, index)| Type::carray(element, index)),
        ]
    })
}

fn small_compact_type() -> impl Strategy<Value = Type> {
    // Void is rare: any product mentioning it has no values at all.
    let leaf = prop_oneof![1 => Just(0u64), 8 => 1u64..6].prop_map(Type::Unitsum);
    compact_type_over(leaf.boxed())
}

/// Compact types whose sizes often exceed 2^64.
fn big_compact_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        (1u64..6).prop_map(Type::Unitsum),
        (1_000_000_000u64..1_000_000_100).prop_map(Type::Unitsum),
        (u64::MAX - 10..=u64::MAX).prop_map(Type::Unitsum),
    ];
    compact_type_over(leaf.boxed())
}

/// A natural below `bound` (which is positive), drawn from random limbs.
fn natural_below(limbs: &[u32], bound: &BigUint) -> BigUint {
    BigUint::new(limbs.to_vec()) % bound
}

/// The codes of all values of a compact type, built structurally from the codes of its parts
/// with the layout functions; `None` when the type has more than `limit` values.
fn all_codes(ty: &Type, limit: u64) -> Option<Vec<BigUint>> {
    if size_u64(ty)? > limit {
        return None;
    }
    match ty {
        Type::Unitsum(n) => Some((0..*n).map(BigUint::from).collect()),
        Type::CSum(_) => {
            let mut codes = Vec::new();
            for summand in sum_summands(ty)? {
                for argument in all_codes(&summand.ty, limit)? {
                    codes.push(encode_sum(&summand, &argument));
                }
            }
            Some(codes)
        }
        Type::CProduct(_) | Type::CArray(..) => {
            let digits = product_digits(ty)?;
            let mut tuples: Vec<Vec<BigUint>> = vec![Vec::new()];
            for digit in &digits {
                let component_codes = all_codes(&digit.ty, limit)?;
                tuples = tuples
                    .into_iter()
                    .flat_map(|prefix| {
                        component_codes.iter().map(move |code| {
                            let mut extended = prefix.clone();
                            extended.push(code.clone());
                            extended
                        })
                    })
                    .collect();
            }
            Some(
                tuples
                    .iter()
                    .map(|components| encode_product(&digits, components))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// The same type with every `\*`, `\+`, `\^` written plainly.
fn plain_version(ty: &Type) -> Type {
    match ty {
        Type::CProduct(components) => Type::tuple(components.iter().map(plain_version).collect()),
        Type::CSum(summands) => Type::sum(summands.iter().map(plain_version).collect()),
        Type::CArray(element, index) => Type::array(plain_version(element), plain_version(index)),
        other => other.clone(),
    }
}

/// Random types for the isomorphism engine: scalars, small compact types, units, tuples and
/// arrays over small compact indexes.
fn data_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        3 => Just(Type::INT),
        2 => Just(Type::Double),
        1 => Just(Type::String),
        1 => Just(Type::UNIT),
        1 => small_index_type(),
        1 => Just(Type::sum(vec![Type::INT, Type::Double])),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Type::tuple),
            (inner, small_index_type()).prop_map(|(element, index)| Type::array(element, index)),
        ]
    })
}

/// A layout-identical reshape of a type: nested tuples spliced, arrays of arrays turned into
/// arrays over compact products, compact types replaced by the unitsum of their size.
fn reshape(ty: &Type) -> Type {
    if let Some(size) = size_u64(ty) {
        return Type::Unitsum(size);
    }
    match ty {
        Type::Tuple(components) => {
            let mut spliced = Vec::new();
            for component in components.iter() {
                match reshape(component) {
                    Type::Tuple(inner) => spliced.extend(inner.iter().cloned()),
                    other => spliced.push(other),
                }
            }
            Type::tuple(spliced)
        }
        Type::Array(element, outer_index) => match &**element {
            Type::Array(inner_element, inner_index) => Type::array(
                reshape(inner_element),
                Type::cproduct(vec![(**outer_index).clone(), (**inner_index).clone()]),
            ),
            _ => Type::array(reshape(element), (**outer_index).clone()),
        },
        other => other.clone(),
    }
}

/// The leaves of a small normal form, one per element.
fn expand(form: &NormalForm) -> Vec<Leaf> {
    let mut leaves = Vec::new();
    for group in form.groups() {
        let count = group
            .count
            .to_usize()
            .expect("small types have small counts");
        for _ in 0..count {
            leaves.push(group.leaf.clone());
        }
    }
    leaves
}

/// Compact index types with at least two values: the extents of a transposable matrix.
fn matrix_extent() -> impl Strategy<Value = Type> {
    let unitsum = (2u64..5).prop_map(Type::Unitsum);
    prop_oneof![
        3 => unitsum.clone(),
        1 => prop::collection::vec(unitsum.clone(), 2..3).prop_map(Type::cproduct),
        1 => prop::collection::vec(unitsum, 2..3).prop_map(Type::csum),
    ]
}

/// Transposable types: arrays of arrays `T ^ M ^ N` over any data type, and matrices
/// `T ^ (A \* B)` over non-array elements.
fn matrix_type() -> impl Strategy<Value = Type> {
    let plain_element = prop_oneof![
        Just(Type::INT),
        Just(Type::tuple(vec![Type::INT, Type::Double])),
        Just(Type::UNIT),
        matrix_extent(),
    ];
    prop_oneof![
        (data_type(), matrix_extent(), matrix_extent()).prop_map(|(element, columns, rows)| {
            Type::array(Type::array(element, columns), rows)
        }),
        (plain_element, matrix_extent(), matrix_extent()).prop_map(|(element, rows, columns)| {
            Type::array(element, Type::cproduct(vec![rows, columns]))
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        max_global_rejects: 1 << 20,
        ..ProptestConfig::default()
    })]

    #[test]
    fn sizes_follow_the_arithmetic(parts in prop::collection::vec(small_compact_type(), 2..4)) {
        let sizes: Option<Vec<BigUint>> = parts.iter().map(size_of).collect();
        prop_assume!(sizes.is_some());
        let sizes = sizes.unwrap();
        let product: BigUint = sizes.iter().product();
        let sum: BigUint = sizes.iter().sum();
        prop_assert_eq!(size_of(&Type::cproduct(parts.clone())), Some(product));
        prop_assert_eq!(size_of(&Type::csum(parts.clone())), Some(sum));
        let power = Type::carray(parts[0].clone(), parts[1].clone());
        if let Some(exponent) = sizes[1].to_u32().filter(|exponent| *exponent <= 4096) {
            let expected = sizes[0].pow(exponent);
            if expected.bits() <= MAX_SIZE_BITS {
                prop_assert_eq!(size_of(&power), Some(expected));
            }
        }
    }

    #[test]
    fn every_code_appears_exactly_once(ty in small_compact_type()) {
        let size = size_u64(&ty);
        prop_assume!(size.is_some_and(|size| size <= 3000));
        let size = size.unwrap();
        let codes = all_codes(&ty, 3000);
        // A product without values may still have a component with too many values.
        prop_assume!(codes.is_some());
        let mut codes = codes.unwrap();
        codes.sort();
        let expected: Vec<BigUint> = (0..size).map(BigUint::from).collect();
        prop_assert_eq!(codes, expected);
    }

    #[test]
    fn product_codes_round_trip(ty in big_compact_type(), limbs in prop::collection::vec(any::<u32>(), 1..6)) {
        let Some(digits) = product_digits(&ty) else { return Ok(()) };
        let size = size_of(&ty).unwrap();
        prop_assume!(!size.is_zero());
        let code = natural_below(&limbs, &size);
        let components = decode_product(&digits, &code);
        for (component, digit) in components.iter().zip(&digits) {
            prop_assert!(component < &digit.radix);
        }
        prop_assert_eq!(encode_product(&digits, &components), code);
    }

    #[test]
    fn sum_codes_round_trip(ty in big_compact_type(), limbs in prop::collection::vec(any::<u32>(), 1..6)) {
        let Some(summands) = sum_summands(&ty) else { return Ok(()) };
        let size = size_of(&ty).unwrap();
        prop_assume!(!size.is_zero());
        let code = natural_below(&limbs, &size);
        let (tag, argument) = split_sum_code(&summands, &code).unwrap();
        prop_assert!(argument < summands[tag].size);
        prop_assert_eq!(encode_sum(&summands[tag], &argument), code);
    }

    #[test]
    fn u64_paths_agree_with_big_paths(ty in prop_oneof![3 => small_compact_type().boxed(), 1 => big_compact_type().boxed()], seed in any::<u64>()) {
        prop_assume!(codes_fit_u64(&ty));
        let size = size_of(&ty).unwrap();
        prop_assume!(!size.is_zero());
        let code = BigUint::from(seed) % &size;
        let code_u64 = code.to_u64().unwrap();
        if let Some(digits) = product_digits(&ty) {
            let fast = ProductRadicesU64::from_digits(&digits);
            prop_assert!(fast.is_some(), "no fast path for {}", ty);
            if let Some(fast) = fast {
                let big_components = decode_product(&digits, &code);
                let fast_components = fast.decode(code_u64);
                let widened: Vec<BigUint> = fast_components.iter().copied().map(BigUint::from).collect();
                prop_assert_eq!(&widened, &big_components);
                prop_assert_eq!(fast.encode(&fast_components), code_u64);
            }
        }
        if let Some(summands) = sum_summands(&ty) {
            let fast = SumOffsetsU64::from_summands(&summands).unwrap();
            let (tag, argument) = fast.split(code_u64).unwrap();
            prop_assert_eq!(split_sum_code(&summands, &code), Some((tag, BigUint::from(argument))));
            prop_assert_eq!(fast.encode(tag, argument), Some(code_u64));
        }
    }

    #[test]
    fn kinds_of_compact_and_plain_operators(ty in small_compact_type()) {
        let expected = if matches!(ty, Type::Unitsum(_)) { Kind::Unitsum } else { Kind::CompactLinear };
        prop_assert_eq!(kind_of(&ty), expected);
        let plain = plain_version(&ty);
        if plain != ty {
            prop_assert_eq!(kind_of(&plain), Kind::Type);
            // The plain version forgets how equal factors were written (`2 * 2` is `2 ^ 2`):
            // the hint is the compact type in normal form.
            prop_assert_eq!(compact_hint(&plain), Some(ty.normal_form().to_string()));
        } else {
            prop_assert_eq!(compact_hint(&plain), None);
        }
    }

    #[test]
    fn products_of_unitsums(sizes in prop::collection::vec(0u64..50, 2..5)) {
        let unitsums: Vec<Type> = sizes.iter().copied().map(Type::Unitsum).collect();
        prop_assert_eq!(kind_of(&Type::tuple(unitsums.clone())), Kind::Type);
        prop_assert_eq!(kind_of(&Type::sum(unitsums.clone())), Kind::Type);
        prop_assert_eq!(kind_of(&Type::cproduct(unitsums.clone())), Kind::CompactLinear);
        prop_assert_eq!(kind_of(&Type::csum(unitsums)), Kind::CompactLinear);
    }

    #[test]
    fn layout_identical_means_equal_normal_forms(a in data_type(), b in data_type()) {
        match classify(&a, &b) {
            Iso::LayoutIdentical(form) => {
                prop_assert_eq!(&form, &normal_form(&a));
                prop_assert_eq!(&form, &normal_form(&b));
            }
            Iso::NotIsomorphic { a: form_a, b: form_b, mismatch } => {
                let leaves_a = expand(&form_a);
                let leaves_b = expand(&form_b);
                prop_assert_ne!(&leaves_a, &leaves_b);
                match mismatch {
                    Mismatch::AtElement { index, a: leaf_a, b: leaf_b } => {
                        let index = index.to_usize().unwrap();
                        prop_assert_eq!(&leaves_a[..index], &leaves_b[..index]);
                        prop_assert_eq!(&leaves_a[index], &leaf_a);
                        prop_assert_eq!(&leaves_b[index], &leaf_b);
                    }
                    Mismatch::Count { a: count_a, b: count_b } => {
                        prop_assert_eq!(count_a, BigUint::from(leaves_a.len()));
                        prop_assert_eq!(count_b, BigUint::from(leaves_b.len()));
                        let shorter = leaves_a.len().min(leaves_b.len());
                        prop_assert_eq!(&leaves_a[..shorter], &leaves_b[..shorter]);
                    }
                }
            }
        }
    }

    #[test]
    fn reshapes_are_layout_identical(ty in data_type()) {
        let reshaped = reshape(&ty);
        match classify(&ty, &reshaped) {
            Iso::LayoutIdentical(form) => {
                prop_assert_eq!(form.element_count(), normal_form(&reshaped).element_count());
            }
            other => prop_assert!(false, "{} and {} classified {:?}", ty, reshaped, other),
        }
        prop_assert!(matches!(classify(&ty, &ty), Iso::LayoutIdentical(_)));
    }

    #[test]
    fn tuple_counts_add(a in data_type(), b in data_type()) {
        let together = normal_form(&Type::tuple(vec![a.clone(), b.clone()])).element_count();
        prop_assert_eq!(together, normal_form(&a).element_count() + normal_form(&b).element_count());
        let repeated = normal_form(&Type::array(a.clone(), Type::Unitsum(3))).element_count();
        prop_assert_eq!(repeated, normal_form(&a).element_count() * 3u32);
        prop_assert!(normal_form(&Type::UNIT).element_count() == BigUint::zero());
        prop_assert!(normal_form(&Type::INT).element_count() == BigUint::one());
    }
    #[test]
    fn transpose_is_a_bijection_undone_by_transposing_back(ty in matrix_type()) {
        let permutation = transpose_permutation(&ty).expect("a transposable type");
        let count = permutation.element_count().to_u64().expect("a small matrix");
        prop_assert!(permutation.fits_u64());
        let mut seen = vec![false; count as usize];
        for target in 0..count {
            let source = permutation.source_of_u64(target).expect("in range");
            prop_assert!(source < count);
            prop_assert!(!seen[source as usize], "source {} used twice in {}", source, ty);
            seen[source as usize] = true;
            prop_assert_eq!(permutation.target_of_u64(source), Some(target));
            prop_assert_eq!(
                permutation.source_of(&BigUint::from(target)),
                Some(BigUint::from(source))
            );
        }
        prop_assert_eq!(permutation.source_of_u64(count), None);
        let back = transpose_permutation(permutation.target_type()).expect("the transpose transposes");
        prop_assert_eq!(back.target_type(), &ty);
        prop_assert_eq!(&back, &permutation.inverse());
        for position in 0..count {
            let there = back.source_of_u64(position).expect("in range");
            prop_assert_eq!(permutation.source_of_u64(there), Some(position));
        }
        let leaves = permutation.leaves_per_element().to_u64().expect("small elements");
        prop_assert_eq!(
            BigUint::from(count * leaves),
            normal_form(&ty).element_count()
        );
        for target in 0..count * leaves {
            let source = permutation.source_leaf_u64(target).expect("in range");
            prop_assert_eq!(source % leaves, target % leaves);
        }
    }
}
