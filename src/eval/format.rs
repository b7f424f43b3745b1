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
pub fn str_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(str_value_bytes(v, ty))
}

/// The `repr` form of a value of type `ty` (L7.3, L7.5, L9.2 c).
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
            Some(byte) => write_quoted(out, &[byte]),
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
            None => out.extend_from_slice(MISMATCH),
        },
        Type::Fun(_, _) => out.extend_from_slice(FUNCTION),
        Type::Unitsum(_) | Type::CProduct(_) | Type::CSum(_) | Type::CArray(_, _) => {
            match compact_code(v) {
                Some(code) => write_compact(out, &code, ty),
                None => out.extend_from_slice(MISMATCH),
            }
        }
        Type::Var(_) | Type::Meta(_) => out.extend_from_slice(MISMATCH),
    }
}

/// An integer of type `int_ty` in decimal; unsigned 64-bit types are stored as bit patterns.
/// With `suffix`, the type's literal suffix follows (L7.3).
fn write_integer(out: &mut Vec<u8>, v: &Value, int_ty: IntTy, suffix: bool) {
    let Value::Int(bits) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let text = if int_ty.signed() {
        bits.to_string()
    } else {
        (*bits as u64).to_string()
    };
    out.extend_from_slice(text.as_bytes());
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
    out.push(b'\'');
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
    if let Some(digits) = product_digits(ty) {
        return Some(
            digits
                .into_iter()
                .map(|digit| {
                    let component_code = (code / &digit.weight) % &digit.radix;
                    (digit.ty, component_code)
                })
                .collect(),
        );
    }
    // `product_digits` declines compact arrays with more than 2^16 components; peel their
    // digits off the least significant end instead.
    let Type::CArray(element, index) = ty else {
        return None;
    };
    let count = size_of(index)?.to_usize()?;
    let radix = size_of(element)?;
    if radix.is_zero() {
        return None;
    }
    let mut remaining = code.clone();
    let mut components = Vec::with_capacity(count);
    for _ in 0..count {
        let (quotient, digit) = remaining.div_rem(&radix);
        components.push(((**element).clone(), digit));
        remaining = quotient;
    }
    components.reverse();
    Some(components)
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
