//! The compact linear calculus end to end: every coercion the isomorphism engine
//! accepts keeps each element at its position, checked by running programs in a real session,
//! and coercions between types that are not layout-identical are rejected with E0500.
//!
//! Types are generated from an element count: arrays over random compact indexes of that size
//! (products, sums and compact arrays of factorisations), arrays of arrays, and tuples that
//! split the count. Programs print their values with `_strr`, and the numbers in the output,
//! read in order, must be the same sequence before and after each reshape.

use proptest::prelude::*;

use crate::types::iso::{classify, transpose_permutation, Iso};
use crate::types::print::type_to_string;
use crate::types::Type;
use crate::{Session, Settings, SharedBuffer};

/// Run a program in a fresh session: its output, or the codes of its diagnostics.
fn run(program: &str) -> Result<String, Vec<&'static str>> {
    let buffer = SharedBuffer::default();
    let mut session = Session::new(Settings::default().with_stdout(buffer.clone()));
    match session.run_source(program) {
        Ok(()) => Ok(buffer.text()),
        Err(diagnostics) => Err(diagnostics.iter().map(|diag| diag.code).collect()),
    }
}

/// A deterministic source of choices drawn from a random vector, so that proptest can
/// generate (and shrink) the whole recursive structure as one list of numbers.
struct Choices {
    values: Vec<u32>,
    position: usize,
}

impl Choices {
    fn new(values: Vec<u32>) -> Choices {
        Choices {
            values,
            position: 0,
        }
    }

    /// A number below `bound` (which is positive).
    fn below(&mut self, bound: u64) -> u64 {
        let value = self
            .values
            .get(self.position % self.values.len().max(1))
            .copied()
            .unwrap_or(0);
        self.position += 1;
        u64::from(value) % bound
    }

    /// One of the items.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// The divisors of `n` strictly between 1 and `n`.
fn proper_divisors(n: u64) -> Vec<u64> {
    (2..n)
        .filter(|divisor| n.is_multiple_of(*divisor))
        .collect()
}

/// `(base, exponent)` with `base ^ exponent = n` and `exponent >= 2`, when there is one.
fn perfect_powers(n: u64) -> Vec<(u64, u32)> {
    (2..n)
        .filter_map(|base| {
            let mut power = base * base;
            let mut exponent = 2;
            while power < n {
                power *= base;
                exponent += 1;
            }
            (power == n).then_some((base, exponent))
        })
        .collect()
}

/// A random compact linear type with exactly `size` values (`size >= 1`).
fn compact_index(size: u64, depth: u32, choices: &mut Choices) -> Type {
    if size <= 1 || depth == 0 {
        return Type::Unitsum(size);
    }
    match choices.below(4) {
        1 => {
            let divisors = proper_divisors(size);
            if divisors.is_empty() {
                return Type::Unitsum(size);
            }
            let left = choices.pick(&divisors);
            Type::cproduct(vec![
                compact_index(left, depth - 1, choices),
                compact_index(size / left, depth - 1, choices),
            ])
        }
        2 => {
            let left = 1 + choices.below(size - 1);
            Type::csum(vec![
                compact_index(left, depth - 1, choices),
                compact_index(size - left, depth - 1, choices),
            ])
        }
        3 => {
            let powers = perfect_powers(size);
            if powers.is_empty() {
                return Type::Unitsum(size);
            }
            let (base, exponent) = choices.pick(&powers);
            Type::carray(
                compact_index(base, depth - 1, choices),
                Type::Unitsum(u64::from(exponent)),
            )
        }
        _ => Type::Unitsum(size),
    }
}

/// A random type whose normal form is `leaf ^ count`: arrays over compact indexes of the
/// count, arrays of arrays over its factors, and tuples splitting it.
fn layout_of(count: u64, leaf: &Type, depth: u32, choices: &mut Choices) -> Type {
    if count == 1 {
        return leaf.clone();
    }
    let choice = if depth == 0 { 0 } else { choices.below(3) };
    match choice {
        1 => {
            let divisors = proper_divisors(count);
            if divisors.is_empty() {
                return Type::array(leaf.clone(), compact_index(count, depth, choices));
            }
            let outer = choices.pick(&divisors);
            Type::array(
                layout_of(count / outer, leaf, depth - 1, choices),
                compact_index(outer, depth - 1, choices),
            )
        }
        2 => {
            let parts = 2 + choices.below(count.min(3) - 1);
            let mut left = count;
            let mut components = Vec::new();
            for part in 0..parts {
                let remaining_parts = parts - part;
                let take = if remaining_parts == 1 {
                    left
                } else {
                    1 + choices.below(left - remaining_parts + 1)
                };
                left -= take;
                components.push(layout_of(take, leaf, depth - 1, choices));
            }
            Type::tuple(components)
        }
        _ => Type::array(leaf.clone(), compact_index(count, depth, choices)),
    }
}

/// A nested tuple literal holding the numbers `first ..` in order, `count` of them.
fn nested_literal(first: u64, count: u64, depth: u32, choices: &mut Choices) -> String {
    if count == 1 {
        return element_value(first).to_string();
    }
    let parts = if depth == 0 {
        count
    } else {
        2 + choices.below(count.min(4) - 1)
    };
    let mut next = first;
    let mut left = count;
    let mut components = Vec::new();
    for part in 0..parts {
        let remaining_parts = parts - part;
        let take = if remaining_parts == 1 {
            left
        } else if depth == 0 {
            1
        } else {
            1 + choices.below(left - remaining_parts + 1)
        };
        components.push(nested_literal(next, take, depth.saturating_sub(1), choices));
        next += take;
        left -= take;
    }
    format!("({})", components.join(", "))
}

/// The element at position `position`: distinct, and never a digit sequence of another.
fn element_value(position: u64) -> u64 {
    100 + 7 * position
}

/// The numbers in a line of output, in order.
fn numbers_in(line: &str) -> Vec<u64> {
    line.split(|character: char| !character.is_ascii_digit())
        .filter(|piece| !piece.is_empty())
        .filter_map(|piece| piece.parse().ok())
        .collect()
}

/// How the value to reshape is built.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A nested tuple literal (the coercion copies out of a tuple).
    NestedTuple,
    /// A flat tuple reshaped to a random array type first (later coercions share storage).
    ReshapedArray,
}

fn source_strategy() -> impl Strategy<Value = Source> {
    prop_oneof![Just(Source::NestedTuple), Just(Source::ReshapedArray)]
}

/// The source expression holding `count` numbers.
fn source_expression(source: Source, count: u64, choices: &mut Choices) -> String {
    match source {
        Source::NestedTuple => nested_literal(0, count, 3, choices),
        Source::ReshapedArray => {
            let flat = nested_literal(0, count, 0, choices);
            let array_type = Type::array(Type::INT, compact_index(count, 3, choices));
            format!("{flat} :>> {}", type_to_string(&array_type))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    })]

    /// Reshape a value twice to random layout-identical types: the engine accepts each pair,
    /// and the numbers printed by `_strr` keep their order.
    #[test]
    fn accepted_coercions_keep_every_element_in_place(
        count in 2u64..25,
        source in source_strategy(),
        values in prop::collection::vec(any::<u32>(), 1..40),
    ) {
        let mut choices = Choices::new(values);
        let expression = source_expression(source, count, &mut choices);
        let first = layout_of(count, &Type::INT, 3, &mut choices);
        let second = layout_of(count, &Type::INT, 3, &mut choices);
        prop_assert!(matches!(classify(&first, &second), Iso::LayoutIdentical(_)));
        let program = format!(
            "var x = {expression};\n\
             println$ x._strr;\n\
             var y = x :>> {first};\n\
             println$ y._strr;\n\
             var z = y :>> {second};\n\
             println$ z._strr;\n\
             println$ (z :>> int ^ {count})._strr;\n",
            first = type_to_string(&first),
            second = type_to_string(&second),
        );
        let output = match run(&program) {
            Ok(output) => output,
            Err(codes) => {
                prop_assert!(false, "rejected with {:?}:\n{}", codes, program);
                unreachable!()
            }
        };
        let expected: Vec<u64> = (0..count).map(element_value).collect();
        let lines: Vec<&str> = output.lines().collect();
        prop_assert_eq!(lines.len(), 4, "output:\n{}\nprogram:\n{}", output, program);
        for line in lines {
            prop_assert_eq!(numbers_in(line), expected.clone(), "line {} of\n{}", line, program);
        }
    }

    /// A coercion to a type with one element more or less, or with another element type, is
    /// rejected statically with E0500, and nothing runs.
    #[test]
    fn coercions_between_different_layouts_are_rejected(
        count in 2u64..25,
        source in source_strategy(),
        change in 0u32..3,
        values in prop::collection::vec(any::<u32>(), 1..40),
    ) {
        let mut choices = Choices::new(values);
        let expression = source_expression(source, count, &mut choices);
        let target = match change {
            // One element is `int` itself, whose `:>>` is an encoding, not a reshape.
            1 if count > 2 => layout_of(count - 1, &Type::INT, 3, &mut choices),
            0 | 1 => layout_of(count + 1, &Type::INT, 3, &mut choices),
            _ => layout_of(count, &Type::Double, 3, &mut choices),
        };
        let source_type = Type::array(Type::INT, Type::Unitsum(count));
        let classified_apart = matches!(classify(&source_type, &target), Iso::NotIsomorphic { .. });
        prop_assert!(classified_apart, "{} and {} are layout-identical", source_type, target);
        let program = format!(
            "println \"ran\";\nvar x = {expression};\nvar y = x :>> {target};\nprintln$ y._strr;\n",
            target = type_to_string(&target),
        );
        match run(&program) {
            Ok(output) => prop_assert!(false, "accepted, printing {}:\n{}", output, program),
            Err(codes) => prop_assert_eq!(codes.first().copied(), Some("E0500"), "{}", program),
        }
    }
    /// The interpreter's `transpose` moves each element where the engine's permutation says:
    /// target position `p` holds the element at `source_of(p)`, and whole elements move.
    #[test]
    fn transpose_follows_the_derived_permutation(
        rows_size in 2u64..7,
        columns_size in 2u64..7,
        pairs in any::<bool>(),
        array_of_arrays in any::<bool>(),
        values in prop::collection::vec(any::<u32>(), 1..20),
    ) {
        let mut choices = Choices::new(values);
        let rows = compact_index(rows_size, 2, &mut choices);
        let columns = compact_index(columns_size, 2, &mut choices);
        let element = if pairs {
            Type::tuple(vec![Type::INT, Type::Unitsum(5)])
        } else {
            Type::INT
        };
        let matrix = if array_of_arrays {
            Type::array(Type::array(element.clone(), columns), rows)
        } else {
            Type::array(element.clone(), Type::cproduct(vec![rows, columns]))
        };
        let permutation = transpose_permutation(&matrix).expect("a matrix");
        let count = rows_size * columns_size;
        let element_literal = |position: u64| {
            if pairs {
                format!("({}, `{}:5)", element_value(position), position % 5)
            } else {
                element_value(position).to_string()
            }
        };
        let literal: Vec<String> = (0..count).map(element_literal).collect();
        let program = format!(
            "var m = ({}) :>> {};\nprintln$ (transpose m)._strr;\n",
            literal.join(", "),
            type_to_string(&matrix),
        );
        let output = match run(&program) {
            Ok(output) => output,
            Err(codes) => {
                prop_assert!(false, "rejected with {:?}:\n{}", codes, program);
                unreachable!()
            }
        };
        let expected: Vec<u64> = (0..count)
            .map(|target| element_value(permutation.source_of_u64(target).expect("in range")))
            .collect();
        // A unitsum component prints as `case k of 5`: keep only the element values.
        let printed: Vec<u64> = numbers_in(&output)
            .into_iter()
            .filter(|number| *number >= element_value(0))
            .collect();
        prop_assert_eq!(printed, expected, "{}", program);
    }
}

#[test]
fn the_generators_build_the_requested_sizes() {
    use crate::types::iso::normal_form;
    use crate::types::size::size_u64;
    for seed in 0..200u32 {
        let mut choices = Choices::new(vec![seed, seed * 7 + 3, seed / 3, seed * 13 + 1]);
        for count in 1..30u64 {
            let index = compact_index(count, 3, &mut choices);
            assert_eq!(size_u64(&index), Some(count), "{index}");
            let layout = layout_of(count, &Type::INT, 3, &mut choices);
            assert_eq!(
                normal_form(&layout).to_string(),
                if count == 1 {
                    "int".to_string()
                } else {
                    format!("int ^ {count}")
                },
                "{layout}"
            );
            let literal = nested_literal(0, count, 3, &mut choices);
            let expected: Vec<u64> = (0..count).map(element_value).collect();
            assert_eq!(numbers_in(&literal), expected, "{literal}");
        }
    }
}

#[test]
fn a_known_reshape_chain_prints_in_order() {
    let output = run(concat!(
        "var x = ((1, 2, 3), (4, 5));\n",
        "var y = x :>> int ^ (3 \\+ 2);\n",
        "println$ y._strr;\n",
        "println$ (y :>> int ^ 5)._strr;\n",
        "println$ ((1, 2, 3, 4, 5, 6) :>> int ^ 2 ^ 3)._strr;\n",
    ))
    .expect("the program runs");
    assert_eq!(output, "(1,2,3,4,5)\n(1,2,3,4,5)\n((1,2),(3,4),(5,6))\n");
    assert_eq!(run("var x = (1, 2, 3) :>> int ^ 4;"), Err(vec!["E0500"]));
}
