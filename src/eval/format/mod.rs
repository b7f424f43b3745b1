//! Printing values: the three textual forms of every value.
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
//! Output is built as bytes (strings are byte strings); the `String` functions convert
//! the finished bytes once, lossily, and the `*_bytes` functions give the exact bytes.
//!
//! `float` holds the `%g` formatting of floating-point numbers, `sums` the forms of sums,
//! variants, structs and compact values; this file the three entry points, scalars, tuples,
//! records and arrays.
//!
//! Choices where the spec leaves room (documented here because there is no oracle):
//! - `repr` and `_strr` of a `char` quote it like a one-character string: `'a'`, `'\''`.
//! - Compact sums use the plain-sum format in every respect: a compact-tuple (`\*`)
//!   argument brings its own parentheses, a compact-array (`\^`) argument keeps the extra
//!   parentheses like a plain array does, and a repeated compact sum always adds them.
//! - A variant constructor argument follows the same rules as a plain-sum argument: a
//!   (compact or plain, non-array) tuple brings its own parentheses (`Pair (1,'x')`), any
//!   other argument is parenthesised (`Num (4)`, and an array argument `Rect ((1,2))`).

mod float;
mod sums;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use num_traits::ToPrimitive;

use crate::eval::value::{leaf_count, ArgForm, ArrayVal, Value};
use crate::types::size::size_of;
use crate::types::ty::{IntTy, NominalBody, NominalDef, Type};

#[cfg(test)]
pub use float::format_double;
#[cfg(test)]
pub use float::format_float;
use float::write_double;
use sums::{compact_code, write_compact, write_plain_sum, write_struct, write_variant};

/// What is printed in place of a value that does not match its type (or of a type that has
/// no values, or is not concrete).
const MISMATCH: &[u8] = b"<?>";

/// What every function value prints as.
const FUNCTION: &[u8] = b"<fun>";

/// The `str` form of a value of type `ty`.
#[cfg(test)]
pub fn str_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(str_value_bytes(v, ty))
}

/// The `repr` form of a value of type `ty`.
#[cfg(test)]
pub fn repr_value(v: &Value, ty: &Type) -> String {
    bytes_to_string(repr_value_bytes(v, ty))
}

/// The `_strr` form of a value of type `ty`.
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

/// A lower bound of the bytes any value of `ty` prints as (in every form): one per leaf of
/// tuples, structs and arrays, whose sizes the type fixes; shared parts (a typedef or a
/// struct used twice) are counted once, so this is linear in the type's DAG. Saturates.
pub fn min_text_bytes(ty: &Type) -> u128 {
    min_text_shared(ty, &mut std::collections::HashMap::new())
}

fn min_text_shared(
    ty: &Type,
    memo: &mut std::collections::HashMap<(u8, usize, usize), u128>,
) -> u128 {
    let key = match ty {
        Type::Nominal(def) => Some((u8::MAX, def.id as usize, 0)),
        _ => ty.node_key(),
    };
    if let Some(known) = key.and_then(|key| memo.get(&key)) {
        return *known;
    }
    if let Some(key) = key {
        // A struct that contains itself has no values; 1 stops the walk.
        memo.insert(key, 1);
    }
    let mut sum = |types: &mut dyn Iterator<Item = &Type>| {
        types.fold(0u128, |total, t| {
            total.saturating_add(min_text_shared(t, memo))
        })
    };
    let bytes = match ty {
        Type::Tuple(components) | Type::Record(_, components) => sum(&mut components.iter()).max(1),
        Type::Nominal(def) => match def.body() {
            Some(NominalBody::Struct(fields)) => sum(&mut fields.iter().map(|(_, t)| t)).max(1),
            _ => 1,
        },
        Type::Array(element, index) => {
            let n = size_of(index)
                .and_then(|n| n.to_u128())
                .unwrap_or(u128::MAX);
            n.saturating_mul(min_text_shared(element, memo)).max(1)
        }
        _ => 1,
    };
    if let Some(key) = key {
        memo.insert(key, bytes);
    }
    bytes
}

/// R0007 when every value of `ty` prints as more than `--max-alloc` bytes (a value with
/// 2^40 shared leaves is cheap to hold, but not its text).
pub fn check_text_size(
    min_bytes: u128,
    ty: &Type,
    limits: &crate::limits::Limits,
) -> Result<(), crate::eval::error::Fault> {
    if min_bytes > u128::from(limits.max_alloc_bytes) {
        return Err(crate::eval::error::Fault::new(
            crate::eval::error::TOO_LARGE,
            format!(
                "the text of a value of type {ty} is too large: at least {min_bytes} bytes, more than the limit of {} bytes for one allocation (raise it with `--max-alloc`)",
                limits.max_alloc_bytes
            ),
        ));
    }
    Ok(())
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
        Value::Cell(cell) => {
            let inner = cell.lock().clone();
            print(out, &inner)
        }
        other => print(out, other),
    }
}

/// `str`: display form, appended to `out`.
pub fn write_str(out: &mut Vec<u8>, v: &Value, ty: &Type) {
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
        Type::Tuple(components) => write_str_tuple(out, v, components),
        Type::Array(element, index) => {
            // A homogeneous pair prints like a tuple; every other array uses `repr` on its
            // elements.
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
        Type::Nominal(definition) if library_variant(definition).is_some() => {
            write_library_variant(out, v, definition)
        }
        // Types without a Felix `Str` instance print their `_strr`; bool and unit
        // print the same in both forms.
        _ => write_strr(out, v, ty),
    }
}

/// The prelude's variants with a Felix `Str` instance of their own: `opt`, `list`, `varray`
/// and `darray`.
fn library_variant(definition: &NominalDef) -> Option<&str> {
    let (declaration, _) = definition.instance.as_ref()?;
    (declaration
        .library
        .load(std::sync::atomic::Ordering::Relaxed)
        && matches!(&*declaration.name, "opt" | "list" | "varray" | "darray"))
    .then_some(&*declaration.name)
}

/// `str` of an `opt` (`Some v` with `str v`, or `None`) or of a `list` (`list(` its elements
/// with `repr`, joined by `, ` `)`), as Felix's instances print them.
fn write_library_variant(out: &mut Vec<u8>, v: &Value, definition: &NominalDef) {
    let Some(NominalBody::Variant(constructors)) = definition.body() else {
        return out.extend_from_slice(MISMATCH);
    };
    let payload = |v: &Value| match v {
        Value::Sum(pair) => Some((pair.tag(), pair.argument().into_owned())),
        _ => None,
    };
    if library_variant(definition) == Some("opt") {
        match (payload(v), constructors.get(1)) {
            (Some((1, value)), Some((_, Some(element)))) => {
                out.extend_from_slice(b"Some ");
                write_str(out, &value, element);
            }
            (Some((0, _)), _) => out.extend_from_slice(b"None"),
            _ => out.extend_from_slice(MISMATCH),
        }
        return;
    }
    match library_variant(definition) {
        Some("varray") => return write_varray(out, v, constructors),
        Some("darray") => {
            return match (payload(v), constructors.first()) {
                (Some((0, inner)), Some((_, Some(ty)))) => write_str(out, &inner, ty),
                _ => out.extend_from_slice(MISMATCH),
            }
        }
        _ => {}
    }
    let Some((_, Some(Type::Tuple(cell)))) = constructors.get(1) else {
        return out.extend_from_slice(MISMATCH);
    };
    out.extend_from_slice(b"list(");
    let mut current = v;
    let mut first = true;
    loop {
        // A cell's node holds its head and tail as its parts (or, held whole, as a pair).
        let parts = match current {
            Value::Sum(node) if node.tag() == 1 => match (node.form(), node.parts()) {
                (ArgForm::Whole, [Value::Tuple(pair)]) => &pair[..],
                (_, parts) => parts,
            },
            Value::Sum(node) if node.tag() == 0 => break,
            _ => return out.extend_from_slice(MISMATCH),
        };
        let [head, tail] = parts else {
            return out.extend_from_slice(MISMATCH);
        };
        if !first {
            out.extend_from_slice(b", ");
        }
        first = false;
        write_repr(out, head, &cell[0]);
        current = tail;
    }
    out.push(b')');
}

/// `str` of a `varray` (a handle to its elements, `Value::Varray`; the constructor's argument
/// type is the element type): `varray(` its elements in order with `repr`, joined by `, `
/// `)`, as Felix prints it.
fn write_varray(out: &mut Vec<u8>, v: &Value, constructors: &[(Arc<str>, Option<Type>)]) {
    let (Value::Varray(elements), Some((_, Some(element)))) = (v, constructors.first()) else {
        return out.extend_from_slice(MISMATCH);
    };
    let items = elements.lock().items.values();
    out.extend_from_slice(b"varray(");
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        write_repr(out, item, element);
    }
    out.push(b')');
}

/// `repr`: quoted form of scalars; tuples and arrays print their `str`.
fn write_repr(out: &mut Vec<u8>, v: &Value, ty: &Type) {
    if let Value::Cell(_) = v {
        return with_cell_contents(v, out, &|out, inner| write_repr(out, inner, ty));
    }
    match ty {
        Type::Tuple(_) | Type::Array(_, _) => write_str(out, v, ty),
        Type::Nominal(definition) if library_variant(definition).is_some() => write_str(out, v, ty),
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
        Type::Tuple(components) => write_tuple(out, v, components, b",", write_strr),
        Type::Array(element, index) => write_array(out, v, element, index, b",", &|out, value| {
            write_strr(out, value, element)
        }),
        Type::Sum(summands) => write_plain_sum(out, v, summands),
        Type::Nominal(definition) => match definition.body() {
            Some(NominalBody::Struct(fields)) => write_struct(out, v, &definition.name, fields),
            Some(NominalBody::Variant(constructors)) => write_variant(out, v, constructors),
            // The checker rejects printing an opaque value (its representation is hidden).
            Some(NominalBody::Opaque { .. }) | None => out.extend_from_slice(MISMATCH),
        },
        Type::Fun(_, _) => out.extend_from_slice(FUNCTION),
        // The checker rejects printing a pointer.
        Type::Ptr(..) | Type::CPtr(..) => out.extend_from_slice(MISMATCH),
        Type::Record(names, types) => match v {
            Value::Tuple(values) if values.len() == types.len() => {
                out.push(b'(');
                write_fields(out, names.iter().zip(types.iter()).zip(values.iter()));
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
        Type::Var(_) | Type::Meta(_) | Type::Secret(_) | Type::Distributed(_) => {
            out.extend_from_slice(MISMATCH)
        }
    }
}

/// `str` of a tuple. In Felix a tuple type whose last three or more components have one type
/// is a tuple ending in an array of them (`double * int * int * int` is `double * int ^ 3`), so
/// `str` prints that tail as an array: `(1.5, (2, 3, 4))`, its elements by `repr`. A tail of
/// two is a pair, which prints like the flat tuple.
fn write_str_tuple(out: &mut Vec<u8>, v: &Value, components: &[Type]) {
    let Some(start) = homogeneous_tail(components) else {
        return write_tuple(out, v, components, b", ", write_str);
    };
    match v {
        Value::Tuple(values) if values.len() == components.len() => {
            out.push(b'(');
            for (value, component) in values[..start].iter().zip(&components[..start]) {
                write_str(out, value, component);
                out.extend_from_slice(b", ");
            }
            out.push(b'(');
            for (position, value) in values[start..].iter().enumerate() {
                if position > 0 {
                    out.extend_from_slice(b", ");
                }
                write_repr(out, value, &components[start]);
            }
            out.extend_from_slice(b"))");
        }
        _ => out.extend_from_slice(MISMATCH),
    }
}

/// Where the tail of three or more components of one type starts, when a tuple has one after
/// at least one component of another type.
fn homogeneous_tail(components: &[Type]) -> Option<usize> {
    let last = components.last()?;
    let start = components.iter().rposition(|component| component != last)? + 1;
    (components.len() - start >= 3).then_some(start)
}

/// A tuple: `(` its components joined by `separator` `)`, each printed by `print`.
fn write_tuple(
    out: &mut Vec<u8>,
    v: &Value,
    components: &[Type],
    separator: &[u8],
    print: fn(&mut Vec<u8>, &Value, &Type),
) {
    match v {
        Value::Tuple(values) if values.len() == components.len() => {
            out.push(b'(');
            for (position, (value, component)) in values.iter().zip(components.iter()).enumerate() {
                if position > 0 {
                    out.extend_from_slice(separator);
                }
                print(out, value, component);
            }
            out.push(b')');
        }
        _ => out.extend_from_slice(MISMATCH),
    }
}

/// The fields of a record or struct, `name=value` with the `_strr` of each value, joined by `,`.
fn write_fields<'a>(
    out: &mut Vec<u8>,
    fields: impl Iterator<Item = ((&'a std::sync::Arc<str>, &'a Type), &'a Value)>,
) {
    for (position, ((name, ty), value)) in fields.enumerate() {
        if position > 0 {
            out.push(b',');
        }
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        write_strr(out, value, ty);
    }
}

/// An integer of type `int_ty` in decimal; unsigned 64-bit types are stored as bit patterns.
/// With `suffix`, the type's literal suffix follows.
fn write_integer(out: &mut Vec<u8>, v: &Value, int_ty: IntTy, suffix: bool) {
    let Value::Int(bits) = v else {
        out.extend_from_slice(MISMATCH);
        return;
    };
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(
        if int_ty.signed() {
            digits.format(*bits)
        } else {
            digits.format(*bits as u64)
        }
        .as_bytes(),
    );
    if suffix {
        out.extend_from_slice(int_ty.suffix().as_bytes());
    }
}

fn write_floating(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Float(x) => write_double(out, *x),
        _ => out.extend_from_slice(MISMATCH),
    }
}

fn write_natural(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Big(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int(n) if *n >= 0 => {
            out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes())
        }
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
/// escaped; every other byte unchanged.
fn write_quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'\'');
    write_escaped(out, bytes);
    out.push(b'\'');
}

/// Bytes with `'`, tab, newline, CR, FF and VT escaped; the `repr` of a char is its
/// byte escaped this way, without quotes.
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
    let stride = leaf_count(element)?;
    // An index of run-time size (seen only by the REPL's display of a result): the count is
    // the view's.
    let element_count = match size_of(index) {
        Some(n) => n.to_usize()?,
        None if index.has_var() && stride > 0 && array.len.is_multiple_of(stride) => {
            array.len / stride
        }
        None => return None,
    };
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
