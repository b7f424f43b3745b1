//! The evaluator's access to value printing (`str`, `repr`, `_strr`, L7).
//!
//! TEMPORARY STAND-IN: the real printers are `eval::format::{str_value, repr_value,
//! strr_value}`, written on another branch. Until that branch is merged, these wrappers use a
//! minimal local rendering (scalars, tuples, arrays, codes) so the evaluator can be tested.
//! When merging, replace each body by a call to the `format` function of the same name.

use crate::types::Type;

use super::prims::int_value;
use super::value::{leaf_count, Value};

/// `str v` for a value of type `ty`.
pub fn str_value(value: &Value, ty: &Type) -> String {
    render(value, ty, false)
}

/// `repr v` for a value of type `ty`.
pub fn repr_value(value: &Value, ty: &Type) -> String {
    render(value, ty, true)
}

/// `_strr v` for a value of type `ty`.
pub fn strr_value(value: &Value, ty: &Type) -> String {
    render(value, ty, true)
}

fn render(value: &Value, ty: &Type, quoted: bool) -> String {
    match (ty, value) {
        (Type::Int(ity), Value::Int(raw)) => int_value(*raw, *ity).to_string(),
        (Type::Char, Value::Int(raw)) => (*raw as u8 as char).to_string(),
        (Type::Double | Type::Float, Value::Float(x)) => format!("{x}"),
        (Type::String, Value::Str(s)) => {
            let text = String::from_utf8_lossy(s).into_owned();
            if quoted {
                format!("'{text}'")
            } else {
                text
            }
        }
        (t, Value::Int(code)) if t.is_bool() => (*code != 0).to_string(),
        (Type::Unitsum(n), Value::Int(code)) => format!("case {code} of {n}"),
        (_, Value::Unit) => "()".to_string(),
        (_, Value::Big(b)) => b.to_string(),
        (_, Value::Int(code)) => (*code as u64).to_string(),
        (Type::Tuple(components), Value::Tuple(parts)) => {
            let shown: Vec<String> = parts
                .iter()
                .zip(components.iter())
                .map(|(p, t)| render(p, t, quoted))
                .collect();
            format!("({})", shown.join(", "))
        }
        (Type::Array(elem, _), Value::Array(view)) => {
            let k = leaf_count(elem).unwrap_or(1).max(1);
            let shown: Vec<String> = (0..view.len / k)
                .map(|i| {
                    let element = if matches!(**elem, Type::Array(..)) {
                        Value::Array(view.slice(i * k, k))
                    } else {
                        view.leaf(i)
                    };
                    render(&element, elem, quoted)
                })
                .collect();
            format!("({})", shown.join(", "))
        }
        (_, Value::Fun(_)) => "<fun>".to_string(),
        (_, other) => format!("{other:?}"),
    }
}
