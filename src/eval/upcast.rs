//! Record subtype coercion and structs from records: a conversion compiled
//! once per (from, to) type pair into a small tree, then applied to values. Records and
//! structs are `Value::Tuple`s of their fields in storage order, so a conversion picks
//! fields by position; arrays are rebuilt leaf by leaf.

use std::sync::Arc;

use crate::types::ty::{NominalBody, Type};

use super::array::{LeafBuilder, Shape};
use super::value::{leaf_repr, leaf_type, LeafRepr, Value};

/// How to convert a value of one type into a value of a supertype.
#[derive(Debug)]
pub enum Conversion {
    /// The types are equal: the value itself.
    Same,
    /// A record or struct from a record: result field `k` is the converted source field
    /// `picks[k].0`.
    Fields(Vec<(usize, Conversion)>),
    /// A product (a tuple, or an array over a unitsum) into a product with as many
    /// components: each component converted, read from an array when `from` is one, and
    /// the result built as an array of `to` leaves when `to` is one.
    Product {
        from: Option<Shape>,
        parts: Vec<Conversion>,
        to: Option<LeafRepr>,
    },
    /// An array into an array with the same index types at every level: every leaf
    /// converted.
    Leaves(Box<Conversion>, LeafRepr),
}

impl Conversion {
    /// The conversion from `from` to `to`, or `None` when `from` is not a subtype of `to`
    /// (the checker only emits conversions that exist).
    pub fn new(from: &Type, to: &Type) -> Option<Conversion> {
        if from == to {
            return Some(Conversion::Same);
        }
        match (from, to) {
            // A pointer to a pointer of another mode (read-only, write-only): the same pointer.
            (Type::Ptr(..) | Type::CPtr(..), Type::Ptr(..) | Type::CPtr(..)) => {
                Some(Conversion::Same)
            }
            (Type::Record(..), Type::Record(..)) => {
                let fields = to.record_fields()?;
                let picks = fields
                    .map(|(name, t)| {
                        let (i, f) = from.record_field(name)?;
                        Some((i, Conversion::new(f, t)?))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(Conversion::Fields(picks))
            }
            (Type::Record(..), Type::Nominal(def)) => {
                let Some(NominalBody::Struct(fields)) = def.body() else {
                    return None;
                };
                let picks = fields
                    .iter()
                    .map(|(name, t)| {
                        let (i, f) = from.record_field(name)?;
                        Some((i, Conversion::new(f, t)?))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(Conversion::Fields(picks))
            }
            (Type::Array(e1, i1), Type::Array(e2, i2)) if i1 == i2 => {
                let leaf = Conversion::new(leaf_type(e1), leaf_type(e2))?;
                // Same index types all the way down, so the leaves correspond one to one.
                let mut a: &Type = e1;
                let mut b: &Type = e2;
                while let (Type::Array(x, i), Type::Array(y, j)) = (a, b) {
                    if i != j {
                        return None;
                    }
                    (a, b) = (x, y);
                }
                if matches!(a, Type::Array(..)) || matches!(b, Type::Array(..)) {
                    return None;
                }
                Some(Conversion::Leaves(Box::new(leaf), leaf_repr(leaf_type(e2))))
            }
            (Type::Tuple(_) | Type::Array(..), Type::Tuple(_) | Type::Array(..)) => {
                let fs = from.tuple_components()?;
                let ts = to.tuple_components()?;
                if fs.len() != ts.len() {
                    return None;
                }
                let parts = fs
                    .iter()
                    .zip(&ts)
                    .map(|(f, t)| Conversion::new(f, t))
                    .collect::<Option<Vec<_>>>()?;
                Some(Conversion::Product {
                    from: Shape::of(from),
                    parts,
                    to: match to {
                        Type::Array(e, _) => Some(leaf_repr(leaf_type(e))),
                        _ => None,
                    },
                })
            }
            _ => None,
        }
    }

    pub fn apply(&self, value: Value) -> Value {
        match self {
            Conversion::Same => value,
            Conversion::Fields(picks) => match value {
                Value::Tuple(fields) => Value::Tuple(
                    picks
                        .iter()
                        .map(|(i, c)| c.apply(fields[*i].clone()))
                        .collect::<Vec<_>>()
                        .into(),
                ),
                other => other,
            },
            Conversion::Leaves(leaf, repr) => match value {
                Value::Array(view) => {
                    let mut builder = LeafBuilder::new(*repr);
                    for k in 0..view.len {
                        builder.push_leaf(leaf.apply(view.leaf(k)));
                    }
                    Value::Array(builder.finish())
                }
                other => other,
            },
            Conversion::Product { from, parts, to } => {
                let component = |k: usize| match (&value, from) {
                    (Value::Array(view), Some(shape)) => shape.element(view, k),
                    (Value::Tuple(items), _) => items[k].clone(),
                    (other, _) => other.clone(),
                };
                let converted = parts.iter().enumerate().map(|(k, c)| c.apply(component(k)));
                match to {
                    Some(repr) => {
                        let mut builder = LeafBuilder::new(*repr);
                        for element in converted {
                            builder.push_element(element);
                        }
                        Value::Array(builder.finish())
                    }
                    None => Value::Tuple(Arc::from(converted.collect::<Vec<_>>())),
                }
            }
        }
    }
}
