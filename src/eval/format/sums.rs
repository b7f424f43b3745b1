//! The `_strr` forms of sums, variants, structs and compact values.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

use crate::eval::value::Value;
use crate::types::layout::{product_digits, split_sum_code, sum_summands};
use crate::types::size::size_of;
use crate::types::ty::Type;

use super::{write_fields, write_strr, MISMATCH};

/// The code of a compact value: a 64-bit pattern, a big natural, or the unit value (code 0).
pub(super) fn compact_code(v: &Value) -> Option<BigUint> {
    match v {
        Value::Int(bits) => Some(BigUint::from(*bits as u64)),
        Value::Big(code) => Some((**code).clone()),
        Value::Unit => Some(BigUint::zero()),
        _ => None,
    }
}

/// The `_strr` of the compact value with code `code` of the compact type `ty`.
pub(super) fn write_compact(out: &mut Vec<u8>, code: &BigUint, ty: &Type) {
    match size_of(ty) {
        Some(size) if *code < size => {}
        _ => {
            out.extend_from_slice(MISMATCH);
            return;
        }
    }
    match ty {
        Type::Unitsum(1) => out.extend_from_slice(b"()"),
        Type::Unitsum(2) => {
            let text: &[u8] = if code.is_zero() { b"false" } else { b"true" };
            out.extend_from_slice(text);
        }
        Type::Unitsum(n) => out.extend_from_slice(format!("case {code} of {n}").as_bytes()),
        Type::CProduct(_) | Type::CArray(_, _) => match component_codes(ty, code) {
            Some(components) => {
                out.push(b'(');
                for (position, (component_ty, component_code)) in components.iter().enumerate() {
                    if position > 0 {
                        out.push(b',');
                    }
                    write_compact(out, component_code, component_ty);
                }
                out.push(b')');
            }
            None => out.extend_from_slice(MISMATCH),
        },
        Type::CSum(summand_types) => {
            let split = sum_summands(ty).and_then(|summands| split_sum_code(&summands, code));
            match split {
                Some((tag, argument_code)) => {
                    let argument_ty = &summand_types[tag];
                    out.extend_from_slice(format!("case {tag} ").as_bytes());
                    write_argument(out, argument_ty, is_repeated(summand_types), |out| {
                        write_compact(out, &argument_code, argument_ty)
                    });
                }
                None => out.extend_from_slice(MISMATCH),
            }
        }
        _ => out.extend_from_slice(MISMATCH),
    }
}

/// Split the code of a compact product or compact array into the codes of its top-level
/// components, most significant (leftmost) first.
fn component_codes(ty: &Type, code: &BigUint) -> Option<Vec<(Type, BigUint)>> {
    match ty {
        Type::CProduct(_) => Some(
            product_digits(ty)?
                .into_iter()
                .map(|digit| {
                    let component_code = (code / &digit.weight) % &digit.radix;
                    (digit.ty, component_code)
                })
                .collect(),
        ),
        // A compact array can have very many components (`2 \^ 100000`), for which a table
        // of weights would be quadratic in memory; peel its digits off the least significant
        // end instead, one division each.
        Type::CArray(element, index) => {
            let count = size_of(index)?.to_usize()?;
            let radix = size_of(element)?;
            if radix.is_zero() {
                return None;
            }
            let mut remaining = code.clone();
            let mut components = Vec::with_capacity(count.min(1 << 16));
            for _ in 0..count {
                let (quotient, digit) = remaining.div_rem(&radix);
                components.push(((**element).clone(), digit));
                remaining = quotient;
            }
            components.reverse();
            Some(components)
        }
        _ => None,
    }
}

/// Are all summands of a sum the same type (a repeated sum)?
fn is_repeated(summands: &[Type]) -> bool {
    summands.iter().all(|summand| *summand == summands[0])
}

/// Does an argument of this type print its own parentheses after a constructor or `case k`?
/// Only non-array tuples, plain or compact, do.
fn argument_brings_parentheses(argument_ty: &Type) -> bool {
    matches!(argument_ty, Type::Tuple(_) | Type::CProduct(_))
}

/// The argument part of a sum or variant value: `()` for unit, the tuple's own `_strr` text
/// for a tuple (unless the sum is repeated), otherwise the text in parentheses. The text is
/// written straight into `out` (the parentheses depend on the type only), so a value nested
/// `n` deep prints in time linear in its text, not quadratic.
fn write_argument(
    out: &mut Vec<u8>,
    argument_ty: &Type,
    repeated: bool,
    write_text: impl FnOnce(&mut Vec<u8>),
) {
    if argument_ty.is_unit() {
        out.extend_from_slice(b"()");
    } else if argument_brings_parentheses(argument_ty) && !repeated {
        write_text(out);
    } else {
        out.push(b'(');
        write_text(out);
        out.push(b')');
    }
}

/// A plain sum value `(tag, argument)`.
pub(super) fn write_plain_sum(out: &mut Vec<u8>, v: &Value, summands: &[Type]) {
    let Value::Sum(pair) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let (tag, argument_value) = (pair.tag(), pair.argument());
    let argument_value = &*argument_value;
    let Some(argument_ty) = summands.get(tag as usize) else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    out.extend_from_slice(format!("case {tag} ").as_bytes());
    write_argument(out, argument_ty, is_repeated(summands), |out| {
        write_strr(out, argument_value, argument_ty)
    });
}

/// A struct value: `Name {f1=v1,f2=v2}` with `_strr` field values.
pub(super) fn write_struct(
    out: &mut Vec<u8>,
    v: &Value,
    name: &str,
    fields: &[(std::sync::Arc<str>, Type)],
) {
    // Fields are a `Value::Tuple` in declaration order; tolerate a lone field stored bare.
    let bare;
    let values: &[Value] = match v {
        Value::Tuple(values) => values,
        other if fields.len() == 1 => {
            bare = [other.clone()];
            &bare
        }
        _ => &[],
    };
    if values.len() != fields.len() {
        out.extend_from_slice(MISMATCH);
        return;
    }
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" {");
    write_fields(
        out,
        fields
            .iter()
            .map(|(name, ty)| (name, ty))
            .zip(values.iter()),
    );
    out.push(b'}');
}

/// A variant value `(constructor index, argument)`: `Dot`, `Pair (1,'x')`, `Num (4)`.
pub(super) fn write_variant(
    out: &mut Vec<u8>,
    v: &Value,
    constructors: &[(std::sync::Arc<str>, Option<Type>)],
) {
    let Value::Sum(pair) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let (index, argument_value) = (pair.tag(), pair.argument());
    let argument_value = &*argument_value;
    let Some((name, argument_ty)) = constructors.get(index as usize) else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    out.extend_from_slice(name.as_bytes());
    if let Some(argument_ty) = argument_ty {
        out.push(b' ');
        write_argument(out, argument_ty, false, |out| {
            write_strr(out, argument_value, argument_ty)
        });
    }
}
