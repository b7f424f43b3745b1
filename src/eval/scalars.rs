//! Scalar leaves stored at their own width. `ScalarKind::of` is **the one mapping** from a
//! scalar type to its storage (width, signedness, integer or floating); `Scalars` is a flat
//! buffer of leaves of one kind, a typed vector per kind. Everything outside this file reads
//! and writes leaves as the evaluator's `i64` (integers, chars, codes: the value, or the bit
//! pattern of a 64-bit unsigned one) and `f64` (floats rounded to `f32` are exact in either),
//! through the width-generic helpers here; a kernel that wants a whole slice is written once,
//! generic over `Elem`, and dispatched with `each!`.

use super::value::Value;
use crate::types::Type;

/// How one scalar leaf is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    /// Every 64-bit integer (unsigned ones as their bit pattern) and compact code over 2^32.
    I64,
    F32,
    F64,
}

impl ScalarKind {
    /// The storage of leaves of the scalar type `ty`: integers at their width and signedness,
    /// `char` a byte, `float` 4 bytes, `double` 8, the code of a compact type in the fewest of
    /// 1, 2, 4 or 8 bytes that hold its largest code; `None` for any other type (and for the
    /// unit, which stores nothing).
    pub fn of(ty: &Type) -> Option<ScalarKind> {
        use crate::types::ty::IntTy;
        Some(match ty {
            Type::Int(ity) => match (IntTy::bits(*ity), ity.signed()) {
                (8, true) => ScalarKind::I8,
                (8, false) => ScalarKind::U8,
                (16, true) => ScalarKind::I16,
                (16, false) => ScalarKind::U16,
                (32, true) => ScalarKind::I32,
                (32, false) => ScalarKind::U32,
                _ => ScalarKind::I64,
            },
            Type::Char => ScalarKind::U8,
            Type::Float => ScalarKind::F32,
            Type::Double => ScalarKind::F64,
            t if crate::types::kind::is_compact(t) && crate::types::size::codes_fit_u64(t) => {
                if t.is_unit() {
                    return None;
                }
                // The largest code is `size - 1`.
                let size = crate::types::size::size_of(t)?;
                let bits = if size <= num_bigint::BigUint::from(1u8) {
                    0
                } else {
                    (size - 1u8).bits()
                };
                match bits {
                    0..=8 => ScalarKind::U8,
                    9..=16 => ScalarKind::U16,
                    17..=32 => ScalarKind::U32,
                    _ => ScalarKind::I64,
                }
            }
            _ => return None,
        })
    }

    /// Bytes per leaf.
    pub fn bytes(self) -> usize {
        match self {
            ScalarKind::I8 | ScalarKind::U8 => 1,
            ScalarKind::I16 | ScalarKind::U16 => 2,
            ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32 => 4,
            ScalarKind::I64 | ScalarKind::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarKind::F32 | ScalarKind::F64)
    }

    /// Does a narrow load sign-extend (else zero-extend)?
    pub fn signed(self) -> bool {
        matches!(
            self,
            ScalarKind::I8 | ScalarKind::I16 | ScalarKind::I32 | ScalarKind::I64
        )
    }
}

/// A leaf type of a `Scalars` buffer, read and written as the evaluator's `i64` or `f64`.
pub trait Elem: Copy + Default + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    const KIND: ScalarKind;
    fn to_i64(self) -> i64;
    fn from_i64(x: i64) -> Self;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;

    /// The evaluator's value of the leaf.
    fn to_value(self) -> Value {
        if Self::KIND.is_float() {
            Value::Float(self.to_f64())
        } else {
            Value::Int(self.to_i64())
        }
    }

    fn from_value(v: &Value) -> Self {
        if Self::KIND.is_float() {
            Self::from_f64(v.as_float_lossy())
        } else {
            Self::from_i64(v.as_int_lossy())
        }
    }

    /// The leaf as the 64 bits native code holds it in a register.
    fn to_bits(self) -> u64 {
        if Self::KIND.is_float() {
            self.to_f64().to_bits()
        } else {
            self.to_i64() as u64
        }
    }

    fn from_bits(bits: u64) -> Self {
        if Self::KIND.is_float() {
            Self::from_f64(f64::from_bits(bits))
        } else {
            Self::from_i64(bits as i64)
        }
    }
}

macro_rules! int_elem {
    ($($t:ty => $k:ident),*) => {$(
        impl Elem for $t {
            const KIND: ScalarKind = ScalarKind::$k;
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_i64(x: i64) -> Self {
                x as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
        }
    )*};
}
int_elem!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64);

impl Elem for f32 {
    const KIND: ScalarKind = ScalarKind::F32;
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_i64(x: i64) -> Self {
        x as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Elem for f64 {
    const KIND: ScalarKind = ScalarKind::F64;
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_i64(x: i64) -> Self {
        x as f64
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// A flat buffer of scalar leaves of one kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalars {
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// `each!(scalars, v => body)`: `body` with `v` the typed vector, whatever its kind (`body`
/// is compiled once per kind, so it may call functions generic over `Elem`).
macro_rules! each {
    ($s:expr, $v:ident => $body:expr) => {
        match $s {
            $crate::eval::scalars::Scalars::I8($v) => $body,
            $crate::eval::scalars::Scalars::U8($v) => $body,
            $crate::eval::scalars::Scalars::I16($v) => $body,
            $crate::eval::scalars::Scalars::U16($v) => $body,
            $crate::eval::scalars::Scalars::I32($v) => $body,
            $crate::eval::scalars::Scalars::U32($v) => $body,
            $crate::eval::scalars::Scalars::I64($v) => $body,
            $crate::eval::scalars::Scalars::F32($v) => $body,
            $crate::eval::scalars::Scalars::F64($v) => $body,
        }
    };
}
pub(crate) use each;

/// `each_same!(scalars, v => body)`: a buffer of the same kind made of `body` (a `Vec` of the
/// same element type as `v`'s).
macro_rules! each_same {
    ($s:expr, $v:ident => $body:expr) => {
        match $s {
            $crate::eval::scalars::Scalars::I8($v) => $crate::eval::scalars::Scalars::I8($body),
            $crate::eval::scalars::Scalars::U8($v) => $crate::eval::scalars::Scalars::U8($body),
            $crate::eval::scalars::Scalars::I16($v) => $crate::eval::scalars::Scalars::I16($body),
            $crate::eval::scalars::Scalars::U16($v) => $crate::eval::scalars::Scalars::U16($body),
            $crate::eval::scalars::Scalars::I32($v) => $crate::eval::scalars::Scalars::I32($body),
            $crate::eval::scalars::Scalars::U32($v) => $crate::eval::scalars::Scalars::U32($body),
            $crate::eval::scalars::Scalars::I64($v) => $crate::eval::scalars::Scalars::I64($body),
            $crate::eval::scalars::Scalars::F32($v) => $crate::eval::scalars::Scalars::F32($body),
            $crate::eval::scalars::Scalars::F64($v) => $crate::eval::scalars::Scalars::F64($body),
        }
    };
}
pub(crate) use each_same;

/// `of_kind!(kind, T => body)`: `body` with `T` the element type of `kind`, giving a `Vec<T>`
/// wrapped in that kind's `Scalars`.
macro_rules! of_kind {
    ($k:expr, $t:ident => $body:expr) => {
        match $k {
            ScalarKind::I8 => {
                type $t = i8;
                Scalars::I8($body)
            }
            ScalarKind::U8 => {
                type $t = u8;
                Scalars::U8($body)
            }
            ScalarKind::I16 => {
                type $t = i16;
                Scalars::I16($body)
            }
            ScalarKind::U16 => {
                type $t = u16;
                Scalars::U16($body)
            }
            ScalarKind::I32 => {
                type $t = i32;
                Scalars::I32($body)
            }
            ScalarKind::U32 => {
                type $t = u32;
                Scalars::U32($body)
            }
            ScalarKind::I64 => {
                type $t = i64;
                Scalars::I64($body)
            }
            ScalarKind::F32 => {
                type $t = f32;
                Scalars::F32($body)
            }
            ScalarKind::F64 => {
                type $t = f64;
                Scalars::F64($body)
            }
        }
    };
}

macro_rules! from_vec {
    ($($t:ty => $k:ident),*) => {$(
        impl From<Vec<$t>> for Scalars {
            fn from(v: Vec<$t>) -> Scalars {
                Scalars::$k(v)
            }
        }
    )*};
}
from_vec!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64,
    f32 => F32, f64 => F64);

impl Scalars {
    pub fn kind(&self) -> ScalarKind {
        match self {
            Scalars::I8(_) => ScalarKind::I8,
            Scalars::U8(_) => ScalarKind::U8,
            Scalars::I16(_) => ScalarKind::I16,
            Scalars::U16(_) => ScalarKind::U16,
            Scalars::I32(_) => ScalarKind::I32,
            Scalars::U32(_) => ScalarKind::U32,
            Scalars::I64(_) => ScalarKind::I64,
            Scalars::F32(_) => ScalarKind::F32,
            Scalars::F64(_) => ScalarKind::F64,
        }
    }

    /// An empty buffer of `kind`.
    pub fn new(kind: ScalarKind) -> Scalars {
        of_kind!(kind, T => Vec::<T>::new())
    }

    /// `n` zero leaves, from a zeroed allocation the system serves lazily.
    pub fn zeros(kind: ScalarKind, n: usize) -> Scalars {
        of_kind!(kind, T => super::array::zeroed::<T>(n))
    }

    /// `n` copies of `leaf`; `None` when the allocation is refused.
    pub fn try_filled(kind: ScalarKind, leaf: &Value, n: usize) -> Option<Scalars> {
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(n.checked_mul(kind.bytes())?).ok()?;
        drop(probe);
        let zero = match kind.is_float() {
            true => leaf.as_float_lossy().to_bits() == 0,
            false => leaf.as_int_lossy() == 0,
        };
        if zero {
            return Some(Scalars::zeros(kind, n));
        }
        Some(of_kind!(kind, T => vec![T::from_value(leaf); n]))
    }

    /// The leaves of the evaluator's integers (narrowed to `kind`).
    pub fn from_ints(kind: ScalarKind, values: impl IntoIterator<Item = i64>) -> Scalars {
        of_kind!(kind, T => values.into_iter().map(T::from_i64).collect())
    }

    /// The leaves of the evaluator's floats (narrowed to `kind`).
    pub fn from_floats(kind: ScalarKind, values: impl IntoIterator<Item = f64>) -> Scalars {
        of_kind!(kind, T => values.into_iter().map(T::from_f64).collect())
    }

    /// The leaves of the evaluator's values.
    pub fn from_values<'a>(
        kind: ScalarKind,
        values: impl IntoIterator<Item = &'a Value>,
    ) -> Scalars {
        of_kind!(kind, T => values.into_iter().map(T::from_value).collect())
    }

    /// The leaves of register bits (`Elem::to_bits`).
    pub fn from_bits(kind: ScalarKind, bits: impl IntoIterator<Item = u64>) -> Scalars {
        of_kind!(kind, T => bits.into_iter().map(<T as Elem>::from_bits).collect())
    }

    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keep the first `n` leaves (all when there are fewer), giving back the room of the rest.
    pub fn truncate(&mut self, n: usize) {
        each!(self, v => {
            v.truncate(n);
            v.shrink_to_fit();
        })
    }

    /// The leaf at `i` as a value.
    #[inline]
    pub fn get(&self, i: usize) -> Value {
        each!(self, v => v[i].to_value())
    }

    /// The integer leaf at `i`.
    #[inline]
    pub fn int(&self, i: usize) -> i64 {
        each!(self, v => v[i].to_i64())
    }

    /// The floating leaf at `i`.
    #[inline]
    pub fn float(&self, i: usize) -> f64 {
        each!(self, v => v[i].to_f64())
    }

    /// The leaf at `i` as register bits.
    #[inline]
    pub fn bits(&self, i: usize) -> u64 {
        each!(self, v => Elem::to_bits(v[i]))
    }

    #[inline]
    pub fn set(&mut self, i: usize, leaf: &Value) {
        each!(self, v => v[i] = Elem::from_value(leaf))
    }

    #[inline]
    pub fn set_int(&mut self, i: usize, x: i64) {
        each!(self, v => v[i] = Elem::from_i64(x))
    }

    #[inline]
    pub fn set_float(&mut self, i: usize, x: f64) {
        each!(self, v => v[i] = Elem::from_f64(x))
    }

    #[inline]
    pub fn set_bits(&mut self, i: usize, x: u64) {
        each!(self, v => v[i] = Elem::from_bits(x))
    }

    /// Push the leaf of bits `x` when there are fewer than `bound` leaves and the buffer has
    /// room for one more without moving: whether it did. One dispatch on the kind, for a
    /// varray's push from native code.
    #[inline]
    pub fn push_bits_within(&mut self, x: u64, bound: usize) -> bool {
        each!(self, v => {
            let room = v.len() < bound && v.len() < v.capacity();
            if room {
                v.push(Elem::from_bits(x));
            }
            room
        })
    }

    pub fn push(&mut self, leaf: &Value) {
        each!(self, v => v.push(Elem::from_value(leaf)))
    }

    pub fn reserve(&mut self, n: usize) {
        each!(self, v => v.reserve(n))
    }

    /// Room for `n` more leaves, or the allocator's refusal.
    pub fn try_reserve_exact(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        each!(self, v => v.try_reserve_exact(n))
    }

    pub fn capacity(&self) -> usize {
        each!(self, v => v.capacity())
    }

    /// Drop the last leaf; `false` when there is none.
    pub fn pop(&mut self) -> bool {
        each!(self, v => v.pop().is_some())
    }

    /// Append the leaves `range` of `src` (of any kind; the same kind copies the slice).
    pub fn extend_range(&mut self, src: &Scalars, range: std::ops::Range<usize>) {
        macro_rules! same {
            ($($k:ident),*) => {
                match (&mut *self, src) {
                    $((Scalars::$k(to), Scalars::$k(from)) => to.extend_from_slice(&from[range]),)*
                    (to, from) => {
                        to.reserve(range.len());
                        for i in range {
                            to.push(&from.get(i));
                        }
                    }
                }
            };
        }
        same!(I8, U8, I16, U16, I32, U32, I64, F32, F64)
    }

    /// The leaves `range` as a buffer of their own.
    pub fn copy_range(&self, range: std::ops::Range<usize>) -> Scalars {
        each_same!(self, v => v[range].to_vec())
    }

    /// The integer leaves from `start`, one per slot of `out`.
    pub fn read_ints(&self, start: usize, out: &mut [i64]) {
        let end = start + out.len();
        if let Scalars::I64(v) = self {
            out.copy_from_slice(&v[start..end]);
            return;
        }
        each!(self, v => {
            for (o, x) in out.iter_mut().zip(&v[start..end]) {
                *o = x.to_i64();
            }
        })
    }

    /// The floating leaves from `start`, one per slot of `out`.
    pub fn read_floats(&self, start: usize, out: &mut [f64]) {
        let end = start + out.len();
        each!(self, v => {
            for (o, x) in out.iter_mut().zip(&v[start..end]) {
                *o = x.to_f64();
            }
        })
    }

    /// Overwrite the leaves from `start` with the integers `values`.
    pub fn write_ints(&mut self, start: usize, values: &[i64]) {
        each!(self, v => {
            for (o, x) in v[start..start + values.len()].iter_mut().zip(values) {
                *o = Elem::from_i64(*x);
            }
        })
    }

    /// Overwrite the leaves from `start` with the floats `values`.
    pub fn write_floats(&mut self, start: usize, values: &[f64]) {
        each!(self, v => {
            for (o, x) in v[start..start + values.len()].iter_mut().zip(values) {
                *o = Elem::from_f64(*x);
            }
        })
    }

    /// The address of the leaf at `start` (native code reads the leaves from it).
    pub fn addr(&self, start: usize) -> usize {
        each!(self, v => v[start..].as_ptr() as usize)
    }

    /// Set the count of leaves to `n`, which native code has written up to (`varray_commit`).
    ///
    /// # Safety
    /// `n` is at most the capacity, and every leaf below it is initialised.
    pub unsafe fn set_len(&mut self, n: usize) {
        // SAFETY: the caller's promise.
        each!(self, v => unsafe { v.set_len(n) })
    }

    /// The address of the first leaf, for writing.
    pub fn addr_mut(&mut self) -> usize {
        each!(self, v => v.as_mut_ptr() as usize)
    }

    /// The bytes of the leaves `range`, in the machine's byte order.
    pub fn bytes(&self, range: std::ops::Range<usize>) -> &[u8] {
        each!(self, v => {
            let leaves = &v[range];
            // SAFETY: the leaves are plain integers or floats, with no padding; any byte
            // pattern of them is a valid `u8`.
            unsafe {
                std::slice::from_raw_parts(
                    leaves.as_ptr().cast::<u8>(),
                    std::mem::size_of_val(leaves),
                )
            }
        })
    }

    /// The bytes of every leaf, for writing, in the machine's byte order.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        each!(self, v => {
            let leaves = &mut v[..];
            // SAFETY: as in `bytes`; and every byte pattern is a valid leaf of these types.
            unsafe {
                std::slice::from_raw_parts_mut(
                    leaves.as_mut_ptr().cast::<u8>(),
                    std::mem::size_of_val(leaves),
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ty::IntTy;

    #[test]
    fn every_scalar_type_has_its_width() {
        let width = |t: Type| ScalarKind::of(&t).map(ScalarKind::bytes);
        for ity in IntTy::ALL {
            assert_eq!(
                width(Type::Int(ity)),
                Some(ity.bits() as usize / 8),
                "{ity:?}"
            );
            let kind = ScalarKind::of(&Type::Int(ity)).expect("an integer kind");
            if ity.bits() < 64 {
                assert_eq!(kind.signed(), ity.signed(), "{ity:?}");
            }
        }
        assert_eq!(width(Type::Char), Some(1));
        assert_eq!(width(Type::BOOL), Some(1));
        assert_eq!(width(Type::Float), Some(4));
        assert_eq!(width(Type::Double), Some(8));
        assert_eq!(width(Type::Unitsum(256)), Some(1));
        assert_eq!(width(Type::Unitsum(257)), Some(2));
        assert_eq!(width(Type::Unitsum(65536)), Some(2));
        assert_eq!(width(Type::Unitsum(65537)), Some(4));
        assert_eq!(width(Type::UNIT), None);
        assert_eq!(width(Type::String), None);
    }

    #[test]
    fn leaves_round_trip_at_every_width() {
        let cases: [(ScalarKind, &[i64]); 7] = [
            (ScalarKind::I8, &[-128, 127, 0, -1]),
            (ScalarKind::U8, &[0, 255, 1]),
            (ScalarKind::I16, &[-32768, 32767]),
            (ScalarKind::U16, &[0, 65535]),
            (ScalarKind::I32, &[i32::MIN as i64, i32::MAX as i64]),
            (ScalarKind::U32, &[0, u32::MAX as i64]),
            (ScalarKind::I64, &[i64::MIN, i64::MAX, -1]),
        ];
        for (kind, values) in cases {
            let mut s = Scalars::from_ints(kind, values.iter().copied());
            assert_eq!(s.kind(), kind);
            assert_eq!(s.len() * kind.bytes(), s.bytes(0..s.len()).len());
            let mut read = vec![0; values.len()];
            s.read_ints(0, &mut read);
            assert_eq!(read, values, "{kind:?}");
            for (i, x) in values.iter().enumerate() {
                assert_eq!(s.int(i), *x);
                assert_eq!(s.bits(i), *x as u64);
                s.set_int(i, 0);
                s.set(i, &Value::Int(*x));
                assert_eq!(s.get(i).as_int(), *x);
            }
            let mut copy = Scalars::new(kind);
            copy.extend_range(&s, 1..values.len());
            assert_eq!(copy, s.copy_range(1..values.len()));
        }
        let f = Scalars::from_floats(ScalarKind::F32, [0.5, -2.25, f32::MAX as f64]);
        assert_eq!(f.float(2), f32::MAX as f64);
        assert_eq!(f.bytes(0..3).len(), 12);
        // A different kind converts leaf by leaf.
        let mut d = Scalars::new(ScalarKind::F64);
        d.extend_range(&f, 0..2);
        assert_eq!(d, Scalars::F64(vec![0.5, -2.25]));
    }
}
