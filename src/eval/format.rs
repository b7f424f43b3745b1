//! Printing values (spec L7, L9.2 b/c/e, L9.3, L9.4): the three textual forms of every value.
//!
//! - `str` is the display form used by `print`, `println` and `str x`;
//! - `repr` is the quoted form used for the elements of arrays that are not pairs;
//! - `_strr` is the structural form, also used for REPL results.
//!
//! Every function takes the value together with its static (concrete) type, because values
//! carry no type tags: the type says whether an `Int` is an `int`, a `char`, a `bool` or the
//! code of a compact linear value, and how the leaves of an array buffer group into elements.
//! A value that does not fit its type never makes these functions panic; it prints as `<?>`.
//!
//! Output is built as bytes (strings are byte strings, L2.1); the `String` functions convert
//! the finished bytes once, lossily, and the `*_bytes` functions give the exact bytes.
//!
//! Choices where the spec leaves room (documented here because there is no oracle):
//! - `repr` and `_strr` of a `char` quote it like a one-character string: `'a'`, `'\''`.
//! - Compact sums use the plain-sum format of L7.8 in every respect: a compact-tuple (`\*`)
//!   argument brings its own parentheses, a compact-array (`\^`) argument keeps the extra
//!   parentheses like a plain array does, and a repeated compact sum always adds them.
//! - A variant constructor argument follows the same rules as a plain-sum argument: a
//!   (compact or plain, non-array) tuple brings its own parentheses (`Pair (1,'x')`), any
//!   other argument is parenthesised (`Num (4)`, and an array argument `Rect ((1,2))`).

use std::io::Write;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

use crate::eval::value::{leaf_count, ArrayVal, Value};
use crate::types::layout::{product_digits, split_sum_code, sum_summands};
use crate::types::size::size_of;
use crate::types::ty::{IntTy, NominalBody, Type};

/// What is printed in place of a value that does not match its type (or of a type that has
/// no values, or is not concrete).
const MISMATCH: &[u8] = b"<?>";

/// What every function value prints as.
const FUNCTION: &[u8] = b"<fun>";

/// The `str` form of a value of type `ty` (L7.1, L7.2, L7.4–L7.6, L9.2 c).
#[cfg(test)]
pub fn str_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(str_value_bytes(v, ty))
}

/// The `repr` form of a value of type `ty` (L7.3, L7.5, L9.2 c).
#[cfg(test)]
pub fn repr_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(repr_value_bytes(v, ty))
}

/// The `_strr` form of a value of type `ty` (L7.3–L7.10, L9.2 b).
pub fn strr_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(strr_value_bytes(v, ty))
}

/// The exact bytes of `str_value` (strings may hold bytes that are not UTF-8).
pub fn str_value_bytes(v: &Value, ty: &Type) -> Vec<u8> {
    let mut out = Vec::new();
    write_str(&mut out, v, ty);
    out
}

/// The exact bytes of `repr_value`.
pub fn repr_value_bytes(v: &Value, ty: &Type) -> Vec<u8> {
    let mut out = Vec::new();
    write_repr(&mut out, v, ty);
    out
}

/// The exact bytes of `strr_value`.
pub fn strr_value_bytes(v: &Value, ty: &Type) -> Vec<u8> {
    let mut out = Vec::new();
    write_strr(&mut out, v, ty);
    out
}

/// A double as the C++ stream default prints it, which is `printf("%g")`: six significant
/// digits, fixed notation when the decimal exponent X satisfies -4 <= X < 6 and exponent
/// notation otherwise, trailing zeros removed; infinities are `+inf`/`-inf`, NaN is `nan`
/// (L7.2).
pub fn format_double(x: f64) -> String {
    const PRECISION: i32 = 6;
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+inf" } else { "-inf" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0");
    }
    // Rust's exponent formatting rounds the exact binary value to the requested number of
    // digits with ties to even, as glibc's printf does; it yields the rounded significant
    // digits and the exponent X that `%g` bases its choice on.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x.abs());
    let Some((mantissa, exponent_text)) = scientific.split_once('e') else {
        return scientific;
    };
    let Ok(exponent) = exponent_text.parse::<i32>() else {
        return scientific;
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let body = if (-4..PRECISION).contains(&exponent) {
        fixed_notation(&digits, exponent)
    } else {
        exponent_notation(&digits, exponent)
    };
    format!("{sign}{body}")
}

/// A float prints like the double with the same value (C++ streams promote it), L7.2.
#[cfg(test)]
pub fn format_float(x: f32) -> String {
    format_double(f64::from(x))
}

/// `%g` fixed notation from the rounded significant digits `d0 d1 …` (value `d0.d1… × 10^X`)
/// and the exponent X, with trailing fractional zeros and a bare point removed.
fn fixed_notation(digits: &[u8], exponent: i32) -> String {
    let mut integer_part = String::new();
    let mut fraction_part = String::new();
    if exponent >= 0 {
        let integer_digits = (exponent as usize + 1).min(digits.len());
        integer_part.extend(digits[..integer_digits].iter().map(|&d| d as char));
        for _ in digits.len()..exponent as usize + 1 {
            integer_part.push('0');
        }
        fraction_part.extend(digits[integer_digits..].iter().map(|&d| d as char));
    } else {
        integer_part.push('0');
        for _ in 0..(-exponent - 1) {
            fraction_part.push('0');
        }
        fraction_part.extend(digits.iter().map(|&d| d as char));
    }
    let fraction = fraction_part.trim_end_matches('0');
    if fraction.is_empty() {
        integer_part
    } else {
        format!("{integer_part}.{fraction}")
    }
}

/// `%g` exponent notation: `d.ddd` without trailing zeros, `e`, the sign, and at least two
/// exponent digits.
fn exponent_notation(digits: &[u8], exponent: i32) -> String {
    let mut text = String::new();
    if let Some(&first) = digits.first() {
        text.push(first as char);
    }
    let fraction: String = digits.iter().skip(1).map(|&d| d as char).collect();
    let fraction = fraction.trim_end_matches('0');
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(fraction);
    }
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    text.push_str(&format!("e{exponent_sign}{:02}", exponent.unsigned_abs()));
    text
}

fn bytes_to_string(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// Look through a captured-variable cell to the value inside it.
fn with_cell_contents(v: &Value, out: &mut Vec<u8>, print: &dyn Fn(&mut Vec<u8>, &Value)) {
    match v {
        Value::Cell(cell) => match cell.lock() {
            Ok(inner) => {
                let inner = inner.clone();
                print(out, &inner)
            }
            Err(_) => out.extend_from_slice(MISMATCH),
        },
        other => print(out, other),
    }
}

/// `str`: display form.
fn write_str(out: &mut Vec<u8>, v: &Value, ty: &Type) {
    if let Value::Cell(_) = v {
        return with_cell_contents(v, out, &|out, inner| write_str(out, inner, ty));
    }
    match ty {
        Type::Int(int_ty) => write_integer(out, v, *int_ty, false),
        Type::Double | Type::Float => write_floating(out, v),
        Type::String => match v {
            Value::Str(bytes) => out.extend_from_slice(bytes),
            _ => out.extend_from_slice(MISMATCH),
        },
        Type::Char => match char_byte(v) {
            Some(byte) => out.push(byte),
            None => out.extend_from_slice(MISMATCH),
        },
        Type::Natural => write_natural(out, v),
        Type::Tuple(components) => match v {
            Value::Tuple(values) if values.len() == components.len() => {
                out.push(b'(');
                for (position, (value, component)) in
                    values.iter().zip(components.iter()).enumerate()
                {
                    if position > 0 {
                        out.extend_from_slice(b", ");
                    }
                    write_str(out, value, component);
                }
                out.push(b')');
            }
            _ => out.extend_from_slice(MISMATCH),
        },
        Type::Array(element, index) => {
            // A homogeneous pair prints like a tuple; every other array uses `repr` on its
            // elements (L7.5).
            let is_pair = **index == Type::Unitsum(2);
            write_array(out, v, element, index, b", ", &|out, value| {
                if is_pair {
                    write_str(out, value, element)
                } else {
                    write_repr(out, value, element)
                }
            });
        }
        Type::Fun(_, _) => out.extend_from_slice(FUNCTION),
        // Types without a Felix `Str` instance print their `_strr` (L9.2 c); bool and unit
        // print the same in both forms.
        _ => write_strr(out, v, ty),
    }
}

/// `repr`: quoted form of scalars; tuples and arrays print their `str`.
fn write_repr(out: &mut Vec<u8>, v: &Value, ty: &Type) {
    if let Value::Cell(_) = v {
        return with_cell_contents(v, out, &|out, inner| write_repr(out, inner, ty));
    }
    match ty {
        Type::Tuple(_) | Type::Array(_, _) => write_str(out, v, ty),
        _ => write_strr(out, v, ty),
    }
}

/// `_strr`: structural form.
fn write_strr(out: &mut Vec<u8>, v: &Value, ty: &Type) {
    if let Value::Cell(_) = v {
        return with_cell_contents(v, out, &|out, inner| write_strr(out, inner, ty));
    }
    match ty {
        Type::Int(int_ty) => write_integer(out, v, *int_ty, true),
        Type::Double | Type::Float => write_floating(out, v),
        Type::String => match v {
            Value::Str(bytes) => write_quoted(out, bytes),
            _ => out.extend_from_slice(MISMATCH),
        },
        Type::Char => match char_byte(v) {
            Some(byte) => write_escaped(out, &[byte]),
            None => out.extend_from_slice(MISMATCH),
        },
        Type::Natural => write_natural(out, v),
        Type::Tuple(components) => match v {
            Value::Tuple(values) if values.len() == components.len() => {
                out.push(b'(');
                for (position, (value, component)) in
                    values.iter().zip(components.iter()).enumerate()
                {
                    if position > 0 {
                        out.push(b',');
                    }
                    write_strr(out, value, component);
                }
                out.push(b')');
            }
            _ => out.extend_from_slice(MISMATCH),
        },
        Type::Array(element, index) => write_array(out, v, element, index, b",", &|out, value| {
            write_strr(out, value, element)
        }),
        Type::Sum(summands) => write_plain_sum(out, v, summands),
        Type::Nominal(definition) => match definition.body.get() {
            Some(NominalBody::Struct(fields)) => write_struct(out, v, &definition.name, fields),
            Some(NominalBody::Variant(constructors)) => write_variant(out, v, constructors),
            // The checker rejects printing an opaque value (its representation is hidden).
            Some(NominalBody::Opaque { .. }) | None => out.extend_from_slice(MISMATCH),
        },
        Type::Fun(_, _) => out.extend_from_slice(FUNCTION),
        // The checker rejects printing a pointer (L11.6).
        Type::Ptr(..) | Type::CPtr(..) => out.extend_from_slice(MISMATCH),
        Type::Record(names, types) => match v {
            Value::Tuple(values) if values.len() == types.len() => {
                out.push(b'(');
                for (position, ((value, field), name)) in values
                    .iter()
                    .zip(types.iter())
                    .zip(names.iter())
                    .enumerate()
                {
                    if position > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(name.as_bytes());
                    out.push(b'=');
                    write_strr(out, value, field);
                }
                out.push(b')');
            }
            _ => out.extend_from_slice(MISMATCH),
        },
        Type::Unitsum(_) | Type::CProduct(_) | Type::CSum(_) | Type::CArray(_, _) => {
            match compact_code(v) {
                Some(code) => write_compact(out, &code, ty),
                None => out.extend_from_slice(MISMATCH),
            }
        }
        // The IR is erased of visibility (the checker refuses to print a secret).
        Type::Var(_) | Type::Meta(_) | Type::Secret(_) => out.extend_from_slice(MISMATCH),
    }
}

/// An integer of type `int_ty` in decimal; unsigned 64-bit types are stored as bit patterns.
/// With `suffix`, the type's literal suffix follows (L7.3).
fn write_integer(out: &mut Vec<u8>, v: &Value, int_ty: IntTy, suffix: bool) {
    let Value::Int(bits) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    // Writing into a `Vec<u8>` cannot fail.
    let _ = if int_ty.signed() {
        write!(out, "{bits}")
    } else {
        write!(out, "{}", *bits as u64)
    };
    if suffix {
        out.extend_from_slice(int_ty.suffix().as_bytes());
    }
}

fn write_floating(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Float(x) => out.extend_from_slice(format_double(*x).as_bytes()),
        _ => out.extend_from_slice(MISMATCH),
    }
}

fn write_natural(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Big(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int(n) if *n >= 0 => out.extend_from_slice(n.to_string().as_bytes()),
        _ => out.extend_from_slice(MISMATCH),
    }
}

/// The byte of a `char` value.
fn char_byte(v: &Value) -> Option<u8> {
    match v {
        Value::Int(code) => u8::try_from(*code).ok(),
        _ => None,
    }
}

/// A string in single quotes with `'` and the control characters tab, newline, CR, FF and VT
/// escaped; every other byte unchanged (L7.3).
fn write_quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'\'');
    write_escaped(out, bytes);
    out.push(b'\'');
}

/// Bytes with `'`, tab, newline, CR, FF and VT escaped (L7.3); the `repr` of a char is its
/// byte escaped this way, without quotes (L11.35).
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    for &byte in bytes {
        match byte {
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0b => out.extend_from_slice(b"\\v"),
            other => out.push(other),
        }
    }
}

/// An array `element ^ index`: `(` elements in code order joined by `separator` `)`, each
/// printed by `print_element`. An element that is itself an array is a view of
/// `leaf_count(element)` consecutive leaves.
fn write_array(
    out: &mut Vec<u8>,
    v: &Value,
    element: &Type,
    index: &Type,
    separator: &[u8],
    print_element: &dyn Fn(&mut Vec<u8>, &Value),
) {
    let Value::Array(array) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let Some(layout) = array_layout(array, element, index) else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    out.push(b'(');
    for position in 0..layout.element_count {
        if position > 0 {
            out.extend_from_slice(separator);
        }
        let value = if layout.element_is_array {
            Value::Array(array.slice(position * layout.stride, layout.stride))
        } else {
            array.leaf(position)
        };
        print_element(out, &value);
    }
    out.push(b')');
}

/// How the leaves of an array view group into elements.
struct ArrayLayout {
    element_count: usize,
    /// Leaves per element.
    stride: usize,
    element_is_array: bool,
}

/// Check that the view covers exactly `size(index) * leaf_count(element)` leaves that exist
/// in its buffer, and say how they group into elements.
fn array_layout(array: &ArrayVal, element: &Type, index: &Type) -> Option<ArrayLayout> {
    let element_count = size_of(index)?.to_usize()?;
    let stride = leaf_count(element)?;
    let leaves = element_count.checked_mul(stride)?;
    let end = array.start.checked_add(array.len)?;
    if leaves != array.len || end > array.buf.len() {
        return None;
    }
    Some(ArrayLayout {
        element_count,
        stride,
        element_is_array: matches!(element, Type::Array(_, _)),
    })
}

/// The code of a compact value: a 64-bit pattern, a big natural, or the unit value (code 0).
fn compact_code(v: &Value) -> Option<BigUint> {
    match v {
        Value::Int(bits) => Some(BigUint::from(*bits as u64)),
        Value::Big(code) => Some((**code).clone()),
        Value::Unit => Some(BigUint::zero()),
        _ => None,
    }
}

/// The `_strr` of the compact value with code `code` of the compact type `ty` (L7.7, L9.2 b).
fn write_compact(out: &mut Vec<u8>, code: &BigUint, ty: &Type) {
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
                    let mut argument = Vec::new();
                    write_compact(&mut argument, &argument_code, argument_ty);
                    write_case(out, tag, &argument, argument_ty, is_repeated(summand_types));
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

/// Are all summands of a sum the same type (a repeated sum, L2.9)?
fn is_repeated(summands: &[Type]) -> bool {
    summands.iter().all(|summand| *summand == summands[0])
}

/// Does an argument of this type print its own parentheses after a constructor or `case k`
/// (L7.8, L7.10, L9.2 b)? Only non-array tuples, plain or compact, do.
fn argument_brings_parentheses(argument_ty: &Type) -> bool {
    matches!(argument_ty, Type::Tuple(_) | Type::CProduct(_))
}

/// `case k (ARG)` for a sum value whose argument has the `_strr` text `argument` (L7.8).
fn write_case(out: &mut Vec<u8>, tag: usize, argument: &[u8], argument_ty: &Type, repeated: bool) {
    out.extend_from_slice(format!("case {tag} ").as_bytes());
    write_argument(out, argument, argument_ty, repeated);
}

/// The argument part of a sum or variant value: `()` for unit, the tuple's own text for a
/// tuple (unless the sum is repeated), otherwise the text in parentheses.
fn write_argument(out: &mut Vec<u8>, argument: &[u8], argument_ty: &Type, repeated: bool) {
    if argument_ty.is_unit() {
        out.extend_from_slice(b"()");
    } else if argument_brings_parentheses(argument_ty) && !repeated {
        out.extend_from_slice(argument);
    } else {
        out.push(b'(');
        out.extend_from_slice(argument);
        out.push(b')');
    }
}

/// A plain sum value `(tag, argument)`.
fn write_plain_sum(out: &mut Vec<u8>, v: &Value, summands: &[Type]) {
    let Value::Sum(pair) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let (tag, argument_value) = &**pair;
    let Some(argument_ty) = summands.get(*tag as usize) else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let mut argument = Vec::new();
    write_strr(&mut argument, argument_value, argument_ty);
    write_case(
        out,
        *tag as usize,
        &argument,
        argument_ty,
        is_repeated(summands),
    );
}

/// A struct value: `Name {f1=v1,f2=v2}` with `_strr` field values (L7.9).
fn write_struct(out: &mut Vec<u8>, v: &Value, name: &str, fields: &[(std::sync::Arc<str>, Type)]) {
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
    for (position, ((field_name, field_ty), value)) in fields.iter().zip(values).enumerate() {
        if position > 0 {
            out.push(b',');
        }
        out.extend_from_slice(field_name.as_bytes());
        out.push(b'=');
        write_strr(out, value, field_ty);
    }
    out.push(b'}');
}

/// A variant value `(constructor index, argument)`: `Dot`, `Pair (1,'x')`, `Num (4)` (L7.10).
fn write_variant(
    out: &mut Vec<u8>,
    v: &Value,
    constructors: &[(std::sync::Arc<str>, Option<Type>)],
) {
    let Value::Sum(pair) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let (index, argument_value) = &**pair;
    let Some((name, argument_ty)) = constructors.get(*index as usize) else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    out.extend_from_slice(name.as_bytes());
    if let Some(argument_ty) = argument_ty {
        let mut argument = Vec::new();
        write_strr(&mut argument, argument_value, argument_ty);
        out.push(b' ');
        write_argument(out, &argument, argument_ty, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::value::Buffer;
    use crate::types::ty::NominalDef;
    use std::sync::{Arc, Mutex};

    fn int(i: i64) -> Value {
        Value::Int(i)
    }

    fn string(text: &str) -> Value {
        Value::str(text.as_bytes())
    }

    fn tuple(values: Vec<Value>) -> Value {
        Value::Tuple(Arc::from(values))
    }

    fn sum(tag: u32, argument: Value) -> Value {
        Value::Sum(Arc::new((tag, argument)))
    }

    fn ints(values: &[i64]) -> Value {
        Value::Array(ArrayVal::new(Buffer::I64(values.to_vec())))
    }

    fn doubles(values: &[f64]) -> Value {
        Value::Array(ArrayVal::new(Buffer::F64(values.to_vec())))
    }

    fn boxed(values: Vec<Value>) -> Value {
        Value::Array(ArrayVal::new(Buffer::Boxed(values)))
    }

    fn strings(texts: &[&str]) -> Value {
        boxed(texts.iter().map(|text| string(text)).collect())
    }

    fn big(decimal: &str) -> Value {
        Value::Big(Arc::new(decimal.parse::<BigUint>().unwrap()))
    }

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    fn array(element: Type, n: u64) -> Type {
        Type::array(element, unitsum(n))
    }

    fn tuple_ty(components: Vec<Type>) -> Type {
        Type::tuple(components)
    }

    fn integer(int_ty: IntTy) -> Type {
        Type::Int(int_ty)
    }

    fn nominal(id: u32, name: &str, body: NominalBody) -> Type {
        let definition = NominalDef::new(id, Arc::from(name), Vec::new());
        definition.body.set(body).unwrap();
        Type::Nominal(Arc::new(definition))
    }

    fn struct_ty(id: u32, name: &str, fields: &[(&str, Type)]) -> Type {
        let fields = fields
            .iter()
            .map(|(field, ty)| (Arc::from(*field), ty.clone()))
            .collect();
        nominal(id, name, NominalBody::Struct(fields))
    }

    fn variant_ty(id: u32, name: &str, constructors: &[(&str, Option<Type>)]) -> Type {
        let constructors = constructors
            .iter()
            .map(|(constructor, ty)| (Arc::from(*constructor), ty.clone()))
            .collect();
        nominal(id, name, NominalBody::Variant(constructors))
    }

    /// Check all three forms of one value.
    fn check(v: &Value, ty: &Type, str_form: &str, repr_form: &str, strr_form: &str) {
        assert_eq!(str_value(v, ty), str_form, "str of {v:?} : {ty:?}");
        assert_eq!(repr_value(v, ty), repr_form, "repr of {v:?} : {ty:?}");
        assert_eq!(strr_value(v, ty), strr_form, "_strr of {v:?} : {ty:?}");
    }

    #[test]
    fn doubles_follow_printf_g() {
        // Expected strings are what C's printf("%g") gives for these doubles.
        let table: &[(f64, &str)] = &[
            (1.5, "1.5"),
            (2.0, "2"),
            (1.0 / 3.0, "0.333333"),
            (1e10, "1e+10"),
            (1.5e-7, "1.5e-07"),
            (123456789.0, "1.23457e+08"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (-0.0, "-0"),
            (0.0, "0"),
            (999999.5, "1e+06"),
            (999999.4, "999999"),
            (9.999995e-05, "0.0001"),
            (9.9999951e-05, "0.0001"),
            (1e100, "1e+100"),
            (5e-324, "4.94066e-324"),
            (123456.5, "123456"),
            (1000005.0, "1e+06"),
            (-2.5, "-2.5"),
            (1.65, "1.65"),
            (0.1, "0.1"),
            (100.0 / 3.0, "33.3333"),
            (1234567.0, "1.23457e+06"),
            (0.000123456789, "0.000123457"),
            (16777216.0, "1.67772e+07"),
            (1e-300, "1e-300"),
            (f64::MAX, "1.79769e+308"),
            (0.5, "0.5"),
            (99999.95, "99999.9"),
            (9.9999949, "9.99999"),
            (-1e-10, "-1e-10"),
            (2.5e15, "2.5e+15"),
            (1.234e-05, "1.234e-05"),
            (100.0, "100"),
            (1e21, "1e+21"),
            (12.0, "12"),
            (3.25, "3.25"),
            (-123.456, "-123.456"),
            (0.001, "0.001"),
            (7.0, "7"),
        ];
        for &(x, expected) in table {
            assert_eq!(format_double(x), expected, "format_double({x:e})");
        }
    }

    #[test]
    fn special_doubles_and_floats() {
        assert_eq!(format_double(f64::INFINITY), "+inf");
        assert_eq!(format_double(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_double(f64::NAN), "nan");
        assert_eq!(format_float(1.1f32), "1.1");
        assert_eq!(format_float(16777217.0f32), "1.67772e+07");
        assert_eq!(format_float(0.1f32), "0.1");
        assert_eq!(format_float(-0.0f32), "-0");
        assert_eq!(format_float(f32::INFINITY), "+inf");
        // A float value is kept rounded to f32 in a `Value::Float`.
        check(
            &Value::Float(f64::from(2.5f32)),
            &Type::Float,
            "2.5",
            "2.5",
            "2.5",
        );
        check(&Value::Float(2.0), &Type::Double, "2", "2", "2");
    }

    #[test]
    fn integers_with_and_without_suffixes() {
        check(&int(42), &Type::INT, "42", "42", "42");
        check(&int(-5), &Type::INT, "-5", "-5", "-5");
        check(&int(5), &Type::SIZE, "5", "5uz", "5uz");
        check(&int(7), &integer(IntTy::Long), "7", "7l", "7l");
        check(&int(7), &integer(IntTy::UInt), "7", "7u", "7u");
        check(&int(7), &integer(IntTy::ULong), "7", "7ul", "7ul");
        check(&int(7), &integer(IntTy::VLong), "7", "7v", "7v");
        check(&int(7), &integer(IntTy::UVLong), "7", "7uv", "7uv");
        check(&int(7), &integer(IntTy::I8), "7", "7i8", "7i8");
        check(&int(-7), &integer(IntTy::I16), "-7", "-7i16", "-7i16");
        check(&int(7), &integer(IntTy::I32), "7", "7i32", "7i32");
        check(&int(7), &integer(IntTy::I64), "7", "7i64", "7i64");
        check(&int(255), &integer(IntTy::U8), "255", "255u8", "255u8");
        check(&int(7), &integer(IntTy::U16), "7", "7u16", "7u16");
        check(&int(7), &integer(IntTy::U32), "7", "7u32", "7u32");
        check(&int(7), &integer(IntTy::U64), "7", "7u64", "7u64");
        // Unsigned 64-bit values are stored as bit patterns.
        let max = u64::MAX.to_string();
        check(
            &int(-1),
            &integer(IntTy::U64),
            &max,
            &format!("{max}u64"),
            &format!("{max}u64"),
        );
        check(
            &int(i64::MIN),
            &Type::SIZE,
            "9223372036854775808",
            "9223372036854775808uz",
            "9223372036854775808uz",
        );
        check(
            &int(i64::MIN),
            &integer(IntTy::Long),
            "-9223372036854775808",
            "-9223372036854775808l",
            "-9223372036854775808l",
        );
    }

    #[test]
    fn strings_chars_bools_unit_naturals() {
        check(
            &string("it's"),
            &Type::String,
            "it's",
            "'it\\'s'",
            "'it\\'s'",
        );
        check(
            &string("a\tb\nc\rd\x0ce\x0bf\\g\"h"),
            &Type::String,
            "a\tb\nc\rd\x0ce\x0bf\\g\"h",
            "'a\\tb\\nc\\rd\\fe\\vf\\g\"h'",
            "'a\\tb\\nc\\rd\\fe\\vf\\g\"h'",
        );
        check(&string(""), &Type::String, "", "''", "''");
        check(&int(b'x' as i64), &Type::Char, "x", "x", "x");
        check(&int(b'\'' as i64), &Type::Char, "'", "\\'", "\\'");
        check(&int(b'\n' as i64), &Type::Char, "\n", "\\n", "\\n");
        check(&Value::bool(true), &Type::BOOL, "true", "true", "true");
        check(&Value::bool(false), &Type::BOOL, "false", "false", "false");
        check(&Value::Unit, &Type::UNIT, "()", "()", "()");
        let huge = "1267650600228229401496703205376";
        check(&big(huge), &Type::Natural, huge, huge, huge);
        check(&int(12), &Type::Natural, "12", "12", "12");
    }

    #[test]
    fn non_utf8_bytes_are_kept_exactly() {
        let bytes = [b'a', 0xff, b'b'];
        assert_eq!(
            str_value_bytes(&Value::str(&bytes), &Type::String),
            bytes.to_vec()
        );
        assert_eq!(
            strr_value_bytes(&Value::str(&bytes), &Type::String),
            b"'a\xffb'".to_vec()
        );
        assert_eq!(repr_value_bytes(&int(0xe9), &Type::Char), b"\xe9".to_vec());
        assert_eq!(str_value(&Value::str(&bytes), &Type::String), "a\u{fffd}b");
    }

    #[test]
    fn tuples_conformance_print_str() {
        let int_string_double = tuple_ty(vec![Type::INT, Type::String, Type::Double]);
        let value = tuple(vec![int(1), string("a"), Value::Float(2.5)]);
        check(
            &value,
            &int_string_double,
            "(1, a, 2.5)",
            "(1, a, 2.5)",
            "(1,'a',2.5)",
        );

        let inner = tuple_ty(vec![Type::INT, Type::String]);
        let nested_ty = tuple_ty(vec![Type::INT, inner.clone()]);
        let nested = tuple(vec![int(1), tuple(vec![int(2), string("x")])]);
        check(
            &nested,
            &nested_ty,
            "(1, (2, x))",
            "(1, (2, x))",
            "(1,(2,'x'))",
        );

        let string_int = tuple_ty(vec![Type::String, Type::INT]);
        assert_eq!(
            str_value(&tuple(vec![string("a"), int(1)]), &string_int),
            "(a, 1)"
        );

        let pair_then_double = tuple_ty(vec![inner.clone(), Type::Double]);
        let value = tuple(vec![tuple(vec![int(1), string("a")]), Value::Float(2.5)]);
        assert_eq!(str_value(&value, &pair_then_double), "((1, a), 2.5)");

        let int_pair = array(Type::INT, 2);
        assert_eq!(str_value(&ints(&[1, 2]), &int_pair), "(1, 2)");
        assert_eq!(str_value(&ints(&[-5, 0]), &int_pair), "(-5, 0)");
        let int_double = tuple_ty(vec![Type::INT, Type::Double]);
        assert_eq!(
            str_value(&tuple(vec![int(1), Value::Float(2.5)]), &int_double),
            "(1, 2.5)"
        );
        assert_eq!(
            str_value(&tuple(vec![int(1), string("p")]), &inner),
            "(1, p)"
        );

        let size_string = tuple_ty(vec![Type::SIZE, Type::String]);
        assert_eq!(
            str_value(&tuple(vec![int(1), string("z")]), &size_string),
            "(1, z)"
        );

        let string_triple = tuple_ty(vec![Type::String, array(Type::INT, 3)]);
        let value = tuple(vec![string("x"), ints(&[1, 2, 3])]);
        assert_eq!(str_value(&value, &string_triple), "(x, (1, 2, 3))");

        let bool_int = tuple_ty(vec![Type::BOOL, Type::INT]);
        assert_eq!(
            str_value(&tuple(vec![Value::bool(true), int(5)]), &bool_int),
            "(true, 5)"
        );
    }

    #[test]
    fn tuples_conformance_print_strr() {
        let strings_of_suffixes = array(Type::String, 4);
        let value = strings(&["5uz", "7l", "7u", "7ul"]);
        assert_eq!(
            str_value(&value, &strings_of_suffixes),
            "('5uz', '7l', '7u', '7ul')"
        );
        assert_eq!(
            str_value(&strings(&["7i8", "7u64"]), &array(Type::String, 2)),
            "(7i8, 7u64)"
        );
        let bool_unit = tuple_ty(vec![Type::String, Type::String]);
        assert_eq!(
            str_value(&strings(&["true", "()"]), &bool_unit),
            "(true, ())"
        );
        let true_unit = tuple_ty(vec![Type::BOOL, Type::UNIT]);
        check(
            &tuple(vec![Value::bool(true), Value::Unit]),
            &true_unit,
            "(true, ())",
            "(true, ())",
            "(true,())",
        );

        let matrix = array(array(Type::INT, 2), 3);
        assert_eq!(
            strr_value(&ints(&[1, 2, 3, 4, 5, 6]), &matrix),
            "((1,2),(3,4),(5,6))"
        );
        assert_eq!(
            strr_value(&strings(&["a", "b", "c"]), &array(Type::String, 3)),
            "('a','b','c')"
        );
        assert_eq!(
            strr_value(&doubles(&[1.5, 2.0]), &array(Type::Double, 2)),
            "(1.5,2)"
        );

        // L7.4 and L9.2 (e): a tuple whose first component is an array.
        let first_array = tuple_ty(vec![array(Type::INT, 3), Type::String, Type::String]);
        let value = tuple(vec![ints(&[1, 2, 3]), string("a"), string("b")]);
        check(
            &value,
            &first_array,
            "((1, 2, 3), a, b)",
            "((1, 2, 3), a, b)",
            "((1,2,3),'a','b')",
        );
    }

    #[test]
    fn arrays_conformance_print_arrays() {
        check(
            &strings(&["a", "b"]),
            &array(Type::String, 2),
            "(a, b)",
            "(a, b)",
            "('a','b')",
        );
        check(
            &strings(&["a", "b", "c"]),
            &array(Type::String, 3),
            "('a', 'b', 'c')",
            "('a', 'b', 'c')",
            "('a','b','c')",
        );
        check(
            &ints(&[1, 2]),
            &array(Type::SIZE, 2),
            "(1, 2)",
            "(1, 2)",
            "(1uz,2uz)",
        );
        check(
            &ints(&[1, 2, 3]),
            &array(Type::SIZE, 3),
            "(1uz, 2uz, 3uz)",
            "(1uz, 2uz, 3uz)",
            "(1uz,2uz,3uz)",
        );
        let longs = array(integer(IntTy::Long), 3);
        assert_eq!(str_value(&ints(&[1, 2, 3]), &longs), "(1l, 2l, 3l)");
        check(
            &doubles(&[1.5, 2.0, 3.25]),
            &array(Type::Double, 3),
            "(1.5, 2, 3.25)",
            "(1.5, 2, 3.25)",
            "(1.5,2,3.25)",
        );
        let rows = array(array(Type::INT, 2), 3);
        check(
            &ints(&[1, 2, 3, 4, 5, 6]),
            &rows,
            "((1, 2), (3, 4), (5, 6))",
            "((1, 2), (3, 4), (5, 6))",
            "((1,2),(3,4),(5,6))",
        );
        let letters = array(array(Type::String, 3), 2);
        check(
            &strings(&["a", "b", "c", "d", "e", "f"]),
            &letters,
            "(('a', 'b', 'c'), ('d', 'e', 'f'))",
            "(('a', 'b', 'c'), ('d', 'e', 'f'))",
            "(('a','b','c'),('d','e','f'))",
        );
        assert_eq!(
            str_value(&ints(&[4, 3, 2, 1]), &array(Type::INT, 4)),
            "(4, 3, 2, 1)"
        );
        let bools = array(Type::BOOL, 3);
        check(
            &ints(&[1, 0, 1]),
            &bools,
            "(true, false, true)",
            "(true, false, true)",
            "(true,false,true)",
        );
        let two_triples = array(array(Type::INT, 3), 2);
        assert_eq!(
            str_value(&ints(&[1, 2, 3, 4, 5, 6]), &two_triples),
            "((1, 2, 3), (4, 5, 6))"
        );
        let words = strings(&["one", "other", "other"]);
        assert_eq!(
            str_value(&words, &array(Type::String, 3)),
            "('one', 'other', 'other')"
        );
    }

    #[test]
    fn arrays_with_compact_indices_print_flat() {
        let matrix = Type::array(Type::INT, Type::cproduct(vec![unitsum(3), unitsum(2)]));
        let value = ints(&[0, 1, 10, 11, 20, 21]);
        check(
            &value,
            &matrix,
            "(0, 1, 10, 11, 20, 21)",
            "(0, 1, 10, 11, 20, 21)",
            "(0,1,10,11,20,21)",
        );
        let nested = array(array(Type::INT, 2), 3);
        assert_eq!(strr_value(&value, &nested), "((0,1),(10,11),(20,21))");
        // An index that is exactly bool is the unitsum 2: a pair.
        let by_bool = Type::array(Type::String, Type::BOOL);
        assert_eq!(str_value(&strings(&["x", "y"]), &by_bool), "(x, y)");
        // An index of size 2 that is not the unitsum 2 is not a pair.
        let by_sum = Type::array(Type::String, Type::csum(vec![unitsum(1), unitsum(1)]));
        assert_eq!(str_value(&strings(&["x", "y"]), &by_sum), "('x', 'y')");
        // A matrix of pairs, over a compact sum index.
        let rows = Type::array(
            array(Type::INT, 2),
            Type::csum(vec![unitsum(2), unitsum(1)]),
        );
        assert_eq!(str_value(&value, &rows), "((0, 1), (10, 11), (20, 21))");
    }

    #[test]
    fn empty_arrays_views_and_cells() {
        let empty_index = Type::cproduct(vec![unitsum(0), unitsum(3)]);
        let empty = Type::array(Type::INT, empty_index);
        check(&ints(&[]), &empty, "()", "()", "()");
        // A view into the middle of a shared buffer (the second row of a 3 x 2 matrix).
        let Value::Array(whole) = ints(&[1, 2, 3, 4, 5, 6]) else {
            unreachable!()
        };
        let row = Value::Array(whole.slice(2, 2));
        assert_eq!(str_value(&row, &array(Type::INT, 2)), "(3, 4)");
        let rows = Value::Array(whole.slice(2, 4));
        assert_eq!(
            strr_value(&rows, &array(array(Type::INT, 2), 2)),
            "((3,4),(5,6))"
        );
        let cell = Value::Cell(Arc::new(Mutex::new(int(3))));
        check(&cell, &Type::SIZE, "3", "3uz", "3uz");
        // Arrays of tuples keep one boxed leaf per element.
        let pairs = boxed(vec![
            tuple(vec![int(1), string("a")]),
            tuple(vec![int(2), string("b")]),
        ]);
        let element = tuple_ty(vec![Type::INT, Type::String]);
        check(
            &pairs,
            &array(element.clone(), 2),
            "((1, a), (2, b))",
            "((1, a), (2, b))",
            "((1,'a'),(2,'b'))",
        );
        let triple = boxed(vec![
            tuple(vec![int(1), string("a")]),
            tuple(vec![int(2), string("b")]),
            tuple(vec![int(3), string("c")]),
        ]);
        assert_eq!(
            str_value(&triple, &array(element, 3)),
            "((1, a), (2, b), (3, c))"
        );
        let units = boxed(vec![Value::Unit, Value::Unit, Value::Unit]);
        check(
            &units,
            &array(Type::UNIT, 3),
            "((), (), ())",
            "((), (), ())",
            "((),(),())",
        );
    }

    #[test]
    fn compact_values_conformance_strr_compact() {
        // `2:3 \, (true \, (`1:3 \, (`3:5 \, `7:8))) has code 2·240 + 1·120 + 1·40 + 3·8 + 7.
        let innermost = Type::cproduct(vec![unitsum(5), unitsum(8)]);
        let third = Type::cproduct(vec![unitsum(3), innermost]);
        let second = Type::cproduct(vec![Type::BOOL, third]);
        let whole = Type::cproduct(vec![unitsum(3), second]);
        let expected = "(case 2 of 3,(true,(case 1 of 3,(case 3 of 5,case 7 of 8))))";
        check(&int(671), &whole, expected, expected, expected);

        let arr = array(unitsum(3), 4);
        let value = ints(&[0, 2, 1, 2]);
        assert_eq!(
            strr_value(&value, &arr),
            "(case 0 of 3,case 2 of 3,case 1 of 3,case 2 of 3)"
        );
        assert_eq!(
            str_value(&value, &arr),
            "(case 0 of 3, case 2 of 3, case 1 of 3, case 2 of 3)"
        );

        let pairs = array(Type::cproduct(vec![unitsum(3), unitsum(2)]), 2);
        let value = ints(&[2, 5]);
        assert_eq!(
            strr_value(&value, &pairs),
            "((case 1 of 3,false),(case 2 of 3,true))"
        );
        assert_eq!(
            str_value(&value, &pairs),
            "((case 1 of 3,false), (case 2 of 3,true))"
        );

        let two_unitsums = tuple_ty(vec![unitsum(3), unitsum(4)]);
        let value = tuple(vec![int(1), int(2)]);
        check(
            &value,
            &two_unitsums,
            "(case 1 of 3, case 2 of 4)",
            "(case 1 of 3, case 2 of 4)",
            "(case 1 of 3,case 2 of 4)",
        );
    }

    #[test]
    fn compact_values_from_the_spec() {
        // L7.7: nested exactly as built.
        let nested = Type::cproduct(vec![
            Type::cproduct(vec![unitsum(3), unitsum(2)]),
            unitsum(4),
        ]);
        assert_eq!(
            strr_value(&int(23), &nested),
            "((case 2 of 3,true),case 3 of 4)"
        );
        // L3.8: `1:3 \, `2:3 is a compact array with code 5.
        let compact_array = Type::cproduct(vec![unitsum(3), unitsum(3)]);
        assert_eq!(compact_array, Type::carray(unitsum(3), unitsum(2)));
        assert_eq!(
            strr_value(&int(5), &compact_array),
            "(case 1 of 3,case 2 of 3)"
        );
        // L3.10 and L3.11.
        let three_by_two = Type::cproduct(vec![unitsum(3), unitsum(2)]);
        assert_eq!(strr_value(&int(5), &three_by_two), "(case 2 of 3,true)");
        let two_by_three = Type::cproduct(vec![unitsum(2), unitsum(3)]);
        assert_eq!(strr_value(&int(3), &two_by_three), "(true,case 0 of 3)");
        // A compact array over a compact index prints its components flat, in code order.
        let square = Type::carray(unitsum(2), Type::cproduct(vec![unitsum(2), unitsum(2)]));
        assert_eq!(strr_value(&int(0b0110), &square), "(false,true,true,false)");
        // Unitsums: `case k of n`; unit inside a compact product prints `()`.
        check(
            &int(1),
            &unitsum(3),
            "case 1 of 3",
            "case 1 of 3",
            "case 1 of 3",
        );
        let with_unit = Type::cproduct(vec![unitsum(3), Type::carray(Type::UNIT, unitsum(2))]);
        assert_eq!(strr_value(&int(2), &with_unit), "(case 2 of 3,((),()))");
        // L9.2 (c), beyond/str_everything.flx.
        let unitsum_int = tuple_ty(vec![unitsum(3), Type::INT]);
        assert_eq!(
            str_value(&tuple(vec![int(1), int(5)]), &unitsum_int),
            "(case 1 of 3, 5)"
        );
        let three = array(unitsum(3), 3);
        assert_eq!(
            str_value(&ints(&[0, 2, 1]), &three),
            "(case 0 of 3, case 2 of 3, case 1 of 3)"
        );
        let built = Type::cproduct(vec![unitsum(3), Type::BOOL]);
        assert_eq!(str_value(&int(3), &built), "(case 1 of 3,true)");
        // L9.2 (c): str of a unitsum is its _strr; appending "!" happens elsewhere.
        assert_eq!(str_value(&int(1), &unitsum(3)) + "!", "case 1 of 3!");
    }

    #[test]
    fn big_compact_codes() {
        // 1000000007 \* 1000000009 \* 1000000021: code of (1, 2, 3).
        let primes = Type::cproduct(vec![
            unitsum(1000000007),
            unitsum(1000000009),
            unitsum(1000000021),
        ]);
        let code = BigUint::from(1000000009u64) * BigUint::from(1000000021u64)
            + BigUint::from(2u32) * BigUint::from(1000000021u64)
            + BigUint::from(3u32);
        let value = Value::Big(Arc::new(code));
        assert_eq!(
            strr_value(&value, &primes),
            "(case 1 of 1000000007,case 2 of 1000000009,case 3 of 1000000021)"
        );
        // 2 \^ 100 with code 2^99 + 1: first and last components are true.
        let bits = Type::carray(Type::BOOL, unitsum(100));
        let code = (BigUint::from(1u32) << 99usize) + BigUint::from(1u32);
        let text = strr_value(&Value::Big(Arc::new(code)), &bits);
        assert!(text.starts_with("(true,false,false,"), "{text}");
        assert!(text.ends_with(",false,true)"), "{text}");
        assert_eq!(text.matches("true").count(), 2);
        assert_eq!(text.matches("false").count(), 98);
        // A compact array with more components than `product_digits` handles.
        let many_bits = Type::carray(Type::BOOL, unitsum(70000));
        let text = strr_value(&big("1"), &many_bits);
        assert_eq!(text.matches(',').count(), 69999);
        assert!(text.starts_with("(false,false,"));
        assert!(text.ends_with(",false,true)"));
        // A 64-bit code that uses the top bit (stored as a negative bit pattern).
        let wide = Type::carray(unitsum(2), unitsum(64));
        let text = strr_value(&int(i64::MIN), &wide);
        assert!(text.starts_with("(true,false,"));
        assert!(text.ends_with(",false)"));
    }

    #[test]
    fn compact_sums_conformance_strr_compact_sum() {
        let three_or_two = Type::csum(vec![unitsum(3), unitsum(2)]);
        check(
            &int(2),
            &three_or_two,
            "case 0 (case 2 of 3)",
            "case 0 (case 2 of 3)",
            "case 0 (case 2 of 3)",
        );
        assert_eq!(strr_value(&int(4), &three_or_two), "case 1 (true)");
        assert_eq!(str_value(&int(3), &three_or_two), "case 1 (false)");
        let with_unit = Type::csum(vec![unitsum(2), unitsum(1)]);
        assert_eq!(strr_value(&int(2), &with_unit), "case 1 ()");
        let tuple_or_unit = Type::csum(vec![
            Type::cproduct(vec![unitsum(3), unitsum(2)]),
            unitsum(1),
        ]);
        assert_eq!(
            strr_value(&int(3), &tuple_or_unit),
            "case 0 (case 1 of 3,true)"
        );
        assert_eq!(strr_value(&int(6), &tuple_or_unit), "case 1 ()");
        let nested = Type::csum(vec![unitsum(2), Type::csum(vec![unitsum(3), unitsum(1)])]);
        assert_eq!(
            strr_value(&int(4), &nested),
            "case 1 (case 0 (case 2 of 3))"
        );
        assert_eq!(strr_value(&int(5), &nested), "case 1 (case 1 ())");
        // Documented choices: a compact-array argument keeps the extra parentheses, and a
        // repeated compact sum always adds them.
        let array_or_unit = Type::csum(vec![Type::carray(unitsum(3), unitsum(2)), unitsum(1)]);
        assert_eq!(
            strr_value(&int(5), &array_or_unit),
            "case 0 ((case 1 of 3,case 2 of 3))"
        );
        let product = Type::cproduct(vec![unitsum(3), unitsum(2)]);
        let repeated = Type::csum(vec![product.clone(), product]);
        assert_eq!(
            strr_value(&int(9), &repeated),
            "case 1 ((case 1 of 3,true))"
        );
        // Inside a tuple, `str` puts ", " between components.
        let pair = tuple_ty(vec![three_or_two, Type::INT]);
        assert_eq!(
            str_value(&tuple(vec![int(4), int(5)]), &pair),
            "(case 1 (true), 5)"
        );
    }

    #[test]
    fn plain_sums_conformance_plain_sum() {
        let int_or_string = Type::sum(vec![Type::INT, Type::String]);
        let value = sum(1, string("hello"));
        check(
            &value,
            &int_or_string,
            "case 1 ('hello')",
            "case 1 ('hello')",
            "case 1 ('hello')",
        );
        assert_eq!(
            str_value(&sum(1, string("hi")), &int_or_string),
            "case 1 ('hi')"
        );
        let maybe = Type::sum(vec![Type::INT, Type::UNIT]);
        assert_eq!(strr_value(&sum(0, int(5)), &maybe), "case 0 (5)");
        assert_eq!(strr_value(&sum(1, Value::Unit), &maybe), "case 1 ()");
        let pair_or_double = Type::sum(vec![tuple_ty(vec![Type::INT, Type::String]), Type::Double]);
        let value = sum(0, tuple(vec![int(1), string("a")]));
        assert_eq!(strr_value(&value, &pair_or_double), "case 0 (1,'a')");
        assert_eq!(
            strr_value(&sum(1, Value::Float(2.5)), &pair_or_double),
            "case 1 (2.5)"
        );
        let array_or_double = Type::sum(vec![tuple_ty(vec![Type::INT, Type::INT]), Type::Double]);
        assert_eq!(
            strr_value(&sum(0, ints(&[1, 2])), &array_or_double),
            "case 0 ((1,2))"
        );
        // L7.8: a repeated sum always adds the parentheses.
        let pair = tuple_ty(vec![Type::INT, Type::String]);
        let repeated = Type::sum(vec![pair.clone(), pair]);
        let value = sum(1, tuple(vec![int(1), string("a")]));
        assert_eq!(strr_value(&value, &repeated), "case 1 ((1,'a'))");
        // A compact-tuple argument brings its own parentheses here too.
        let compact_or_int = Type::sum(vec![
            Type::cproduct(vec![unitsum(3), unitsum(2)]),
            Type::INT,
        ]);
        assert_eq!(
            strr_value(&sum(0, int(3)), &compact_or_int),
            "case 0 (case 1 of 3,true)"
        );
        // Nested plain sums.
        let outer = Type::sum(vec![Type::INT, int_or_string]);
        assert_eq!(
            strr_value(&sum(1, sum(0, int(7))), &outer),
            "case 1 (case 0 (7))"
        );
    }

    #[test]
    fn structs_conformance_struct_def() {
        let point = struct_ty(1, "Point", &[("x", Type::INT), ("y", Type::INT)]);
        let value = tuple(vec![int(3), int(4)]);
        check(
            &value,
            &point,
            "Point {x=3,y=4}",
            "Point {x=3,y=4}",
            "Point {x=3,y=4}",
        );
        assert_eq!(
            strr_value(&tuple(vec![int(10), int(4)]), &point),
            "Point {x=10,y=4}"
        );
        let person = struct_ty(
            2,
            "Person",
            &[
                ("name", Type::String),
                ("age", Type::INT),
                ("height", Type::Double),
            ],
        );
        let value = tuple(vec![string("Ada"), int(36), Value::Float(1.65)]);
        assert_eq!(
            strr_value(&value, &person),
            "Person {name='Ada',age=36,height=1.65}"
        );
        let p = struct_ty(3, "P", &[("x", Type::INT), ("y", Type::String)]);
        assert_eq!(
            str_value(&tuple(vec![int(1), string("a")]), &p),
            "P {x=1,y='a'}"
        );
        // A one-field struct, stored as a one-element tuple or bare.
        let wrapper = struct_ty(4, "W", &[("n", Type::SIZE)]);
        assert_eq!(strr_value(&tuple(vec![int(2)]), &wrapper), "W {n=2uz}");
        assert_eq!(strr_value(&int(2), &wrapper), "W {n=2uz}");
        let empty = struct_ty(5, "E", &[]);
        assert_eq!(strr_value(&tuple(vec![]), &empty), "E {}");
        // Structs inside tuples and arrays.
        let pair = tuple_ty(vec![point.clone(), Type::INT]);
        let value = tuple(vec![tuple(vec![int(1), int(2)]), int(5)]);
        assert_eq!(str_value(&value, &pair), "(Point {x=1,y=2}, 5)");
        let points = boxed(vec![
            tuple(vec![int(1), int(2)]),
            tuple(vec![int(3), int(4)]),
            tuple(vec![int(5), int(6)]),
        ]);
        assert_eq!(
            str_value(&points, &array(point, 3)),
            "(Point {x=1,y=2}, Point {x=3,y=4}, Point {x=5,y=6})"
        );
    }

    #[test]
    fn variants_conformance_variant() {
        let token = variant_ty(
            10,
            "tok",
            &[
                ("Num", Some(Type::INT)),
                ("Word", Some(Type::String)),
                ("Pair", Some(tuple_ty(vec![Type::INT, Type::String]))),
                ("End", None),
            ],
        );
        check(&sum(0, int(4)), &token, "Num (4)", "Num (4)", "Num (4)");
        assert_eq!(strr_value(&sum(1, string("hi")), &token), "Word ('hi')");
        assert_eq!(
            strr_value(&sum(2, tuple(vec![int(1), string("x")])), &token),
            "Pair (1,'x')"
        );
        assert_eq!(strr_value(&sum(3, Value::Unit), &token), "End");
        let v = variant_ty(11, "V", &[("A", Some(Type::INT)), ("B", None)]);
        assert_eq!(str_value(&sum(0, int(4)), &v), "A (4)");
        assert_eq!(str_value(&sum(1, Value::Unit), &v), "B");
        // Documented choice: an array argument keeps the extra parentheses, like plain sums.
        let shape = variant_ty(
            12,
            "shape",
            &[
                ("Circle", Some(Type::Double)),
                ("Rect", Some(array(Type::Double, 2))),
                ("Dot", None),
            ],
        );
        assert_eq!(strr_value(&sum(0, Value::Float(2.0)), &shape), "Circle (2)");
        assert_eq!(
            strr_value(&sum(1, doubles(&[1.0, 2.5])), &shape),
            "Rect ((1,2.5))"
        );
        assert_eq!(strr_value(&sum(2, Value::Unit), &shape), "Dot");
    }

    #[test]
    fn functions_and_repl_results() {
        let function = Type::fun(Type::INT, Type::INT);
        check(&Value::Unit, &function, "<fun>", "<fun>", "<fun>");
        // L9.4: REPL results use _strr.
        let value = tuple(vec![int(1), string("a"), Value::Float(2.5)]);
        assert_eq!(
            strr_value(
                &value,
                &tuple_ty(vec![Type::INT, Type::String, Type::Double])
            ),
            "(1,'a',2.5)"
        );
        assert_eq!(
            strr_value(&int(3), &Type::csum(vec![unitsum(3), unitsum(2)])),
            "case 1 (false)"
        );
    }

    #[test]
    fn mismatches_print_a_marker_instead_of_panicking() {
        assert_eq!(str_value(&string("x"), &Type::INT), "<?>");
        assert_eq!(str_value(&int(1), &Type::String), "<?>");
        assert_eq!(str_value(&int(300), &Type::Char), "<?>");
        assert_eq!(str_value(&int(1), &Type::Double), "<?>");
        assert_eq!(str_value(&int(-1), &Type::Natural), "<?>");
        assert_eq!(strr_value(&int(3), &unitsum(3)), "<?>");
        assert_eq!(strr_value(&int(0), &Type::VOID), "<?>");
        assert_eq!(strr_value(&string("x"), &unitsum(3)), "<?>");
        assert_eq!(str_value(&ints(&[1, 2]), &array(Type::INT, 3)), "<?>");
        assert_eq!(str_value(&int(1), &array(Type::INT, 3)), "<?>");
        assert_eq!(
            str_value(
                &tuple(vec![int(1)]),
                &tuple_ty(vec![Type::INT, Type::String])
            ),
            "<?>"
        );
        let int_or_string = Type::sum(vec![Type::INT, Type::String]);
        assert_eq!(strr_value(&sum(5, int(1)), &int_or_string), "<?>");
        assert_eq!(strr_value(&int(1), &int_or_string), "<?>");
        let point = struct_ty(20, "Point", &[("x", Type::INT), ("y", Type::INT)]);
        assert_eq!(strr_value(&tuple(vec![int(1)]), &point), "<?>");
        let unset = Type::Nominal(Arc::new(NominalDef::new(
            21,
            Arc::from("Unset"),
            Vec::new(),
        )));
        assert_eq!(strr_value(&Value::Unit, &unset), "<?>");
        let unknown = Type::Meta(0);
        assert_eq!(str_value(&int(1), &unknown), "<?>");
        // A component mismatch only marks that component.
        let pair = tuple_ty(vec![Type::INT, Type::String]);
        assert_eq!(str_value(&tuple(vec![int(1), int(2)]), &pair), "(1, <?>)");
    }
}
