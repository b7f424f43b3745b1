//! Runtime values. The static type of every value is known to the code that handles it (the
//! typed IR says it), so values carry no type tags beyond what their representation needs.
//!
//! Representation by type:
//! - every integer type (uint64 and size as their bit pattern), `char`, and the code of every
//!   compact linear type whose size fits in 64 bits (so `bool`, unitsums, `\*`, `\+`, `\^`):
//!   `Value::Int` (codes are stored as the `u64` bit pattern);
//! - `double` and `float` (a float is kept rounded to `f32`): `Value::Float`;
//! - `string`: `Value::Str` (bytes, growable: appending to a string that is not shared
//!   extends it in place, so `s += x` in a loop is amortised O(1));
//! - `natural`, and the code of a compact type whose size exceeds 2^64: `Value::Big`;
//! - `unit`: `Value::Unit`;
//! - tuples and structs (fields in order): `Value::Tuple`;
//! - plain sums and variants: `Value::Sum` (summand or constructor index, argument);
//! - arrays: `Value::Array`, a view into one flat, shared buffer; arrays of arrays share one
//!   buffer (the leaves in storage order), so reshapes move no data;
//! - functions: `Value::Fun`;
//! - `Value::Cell` only appears in frame slots of variables captured by inner functions or
//!   addressed by a pointer;
//! - pointers: `Value::Ptr`.

use num_bigint::BigUint;
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug)]
pub enum Value {
    Unit,
    Int(i64),
    Float(f64),
    Str(Text),
    Big(Arc<BigUint>),
    Tuple(Arc<[Value]>),
    Sum(Arc<(u32, Value)>),
    Array(ArrayVal),
    Fun(Arc<crate::eval::closure::Closure>),
    Cell(Arc<Mutex<Value>>),
    /// A pointer (L11.1).
    Ptr(Arc<crate::eval::pointer::Pointer>),
}

/// The bytes of a string value: shared, copy-on-write, with spare capacity for appends.
pub type Text = Arc<Vec<u8>>;

/// The storage of an array: one flat buffer of leaves.
#[derive(Clone, Debug)]
pub enum Buffer {
    /// Integers of every width, chars, and 64-bit compact codes.
    I64(Vec<i64>),
    /// Doubles and floats.
    F64(Vec<f64>),
    /// Everything else, one `Value` per leaf.
    Boxed(Vec<Value>),
}

impl Buffer {
    pub fn len(&self) -> usize {
        match self {
            Buffer::I64(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::Boxed(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The leaf at position `i` as a value.
    pub fn get(&self, i: usize) -> Value {
        match self {
            Buffer::I64(v) => Value::Int(v[i]),
            Buffer::F64(v) => Value::Float(v[i]),
            Buffer::Boxed(v) => v[i].clone(),
        }
    }
}

/// A view of `len` consecutive leaves of a shared buffer, starting at `start`. The static
/// type says how the leaves group into elements (an element of `int ^ 2 ^ 3` is a view of two
/// leaves). Copy-on-write: mutation goes through `Arc::make_mut` on a view that covers the
/// whole buffer, or copies the view first.
#[derive(Clone, Debug)]
pub struct ArrayVal {
    pub buf: Arc<Buffer>,
    pub start: usize,
    pub len: usize,
}

impl ArrayVal {
    pub fn new(buf: Buffer) -> ArrayVal {
        let len = buf.len();
        ArrayVal {
            buf: Arc::new(buf),
            start: 0,
            len,
        }
    }

    /// The leaf at position `i` of this view.
    pub fn leaf(&self, i: usize) -> Value {
        self.buf.get(self.start + i)
    }

    /// The sub-view of `n` leaves starting at leaf `i` of this view.
    pub fn slice(&self, i: usize, n: usize) -> ArrayVal {
        ArrayVal {
            buf: self.buf.clone(),
            start: self.start + i,
            len: n,
        }
    }
}

impl Value {
    pub fn str(s: &[u8]) -> Value {
        Value::Str(Arc::new(s.to_vec()))
    }

    pub fn bool(b: bool) -> Value {
        Value::Int(b as i64)
    }

    pub fn as_int(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            other => panic!("internal: expected an integer value, found {other:?}"),
        }
    }
}

/// Which buffer variant stores leaves of a given (non-array) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafRepr {
    I64,
    F64,
    Boxed,
}

/// The leaf type of an array element type: arrays of arrays are flattened, so the leaf of
/// `int ^ 2 ^ 3` is `int`.
pub fn leaf_type(ty: &crate::types::Type) -> &crate::types::Type {
    match ty {
        crate::types::Type::Array(e, _) => leaf_type(e),
        t => t,
    }
}

/// How leaves of the (non-array) type `ty` are stored.
pub fn leaf_repr(ty: &crate::types::Type) -> LeafRepr {
    use crate::types::Type;
    match ty {
        Type::Int(_) | Type::Char => LeafRepr::I64,
        Type::Double | Type::Float => LeafRepr::F64,
        t if crate::types::kind::is_compact(t) && crate::types::size::codes_fit_u64(t) => {
            if t.is_unit() {
                LeafRepr::Boxed
            } else {
                LeafRepr::I64
            }
        }
        _ => LeafRepr::Boxed,
    }
}

/// How many leaves one value of type `ty` occupies in an array buffer: `size(I) *
/// leaf_count(E)` for an array `E ^ I`, 1 for anything else. `None` if that does not fit in
/// memory-sized integers (or the type has variables).
pub fn leaf_count(ty: &crate::types::Type) -> Option<usize> {
    use num_traits::ToPrimitive;
    match ty {
        crate::types::Type::Array(e, i) => {
            let n = crate::types::size::size_of(i)?.to_usize()?;
            n.checked_mul(leaf_count(e)?)
        }
        _ => Some(1),
    }
}
