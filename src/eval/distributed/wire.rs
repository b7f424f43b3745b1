//! Elements as they travel between processes. Every kernel that moves elements (`collect`,
//! `filter`, the permutations, halos, the pieces of folds and scans) sends the leaves of an
//! array's buffer as bytes and writes what it receives into a buffer of the same
//! representation, so every element type that can be stored travels:
//!
//! - scalars at their storage width (the buffer's bytes, as they are);
//! - tuples, records and structs stored as columns: for a run of leaves, each column's bytes
//!   in turn;
//! - boxed leaves (strings, naturals, sums, nested boxed tuples and arrays): each value in a
//!   self-describing encoding (`encode_value`), a tag byte and its contents.
//!
//! A value that has no meaning on another process (a function, a pointer, a cell, a varray)
//! does not travel: the operation is refused with an error on every process. All processes
//! run the same program on the same machine kind, so bytes are in the machine's order.

use std::ops::Range;
use std::sync::Arc;

use num_bigint::BigUint;

use crate::eval::error::{Fault, DATA_FORMAT};
use crate::eval::scalars::{ScalarKind, Scalars};
use crate::eval::value::{
    ArgForm, ArrayVal, Buffer, ColumnField, ColumnLayout, Columns, Leaves, Value,
};

/// The error of a value that cannot be sent to another process.
fn stays(what: &str) -> Fault {
    Fault::new(
        DATA_FORMAT,
        format!("{what} cannot be sent to another process"),
    )
}

fn truncated() -> Fault {
    Fault::new(
        super::super::error::INTERNAL,
        "a message between processes ended early",
    )
}

/// Appends the leaves `range` of `buf` to `out`.
pub fn encode_leaves(buf: &Buffer, range: Range<usize>, out: &mut Vec<u8>) -> Result<(), Fault> {
    match buf {
        Buffer::Scalars(values) => out.extend_from_slice(values.bytes(range)),
        Buffer::Columns(columns) => {
            for column in &columns.columns {
                out.extend_from_slice(column.bytes(range.clone()));
            }
        }
        Buffer::Boxed(values) => {
            for v in &values[range] {
                encode_value(v, out)?;
            }
        }
    }
    Ok(())
}

/// Writes `count` leaves read from the front of `bytes` into `buf` from leaf `at`; returns
/// the number of bytes read.
pub fn decode_leaves(
    buf: &mut Buffer,
    at: usize,
    count: usize,
    bytes: &[u8],
) -> Result<usize, Fault> {
    match buf {
        Buffer::Scalars(values) => {
            let width = values.kind().bytes();
            copy_scalars(values, at, count, bytes)?;
            Ok(count * width)
        }
        Buffer::Columns(columns) => {
            let mut read = 0;
            for column in &mut columns.columns {
                let width = column.kind().bytes();
                copy_scalars(column, at, count, &bytes[read.min(bytes.len())..])?;
                read += count * width;
            }
            Ok(read)
        }
        Buffer::Boxed(values) => {
            let mut reader = Reader { bytes, at: 0 };
            for slot in &mut values[at..at + count] {
                *slot = reader.value()?;
            }
            Ok(reader.at)
        }
    }
}

fn copy_scalars(values: &mut Scalars, at: usize, count: usize, bytes: &[u8]) -> Result<(), Fault> {
    let width = values.kind().bytes();
    let from = bytes.get(..count * width).ok_or_else(truncated)?;
    values.bytes_mut()[at * width..(at + count) * width].copy_from_slice(from);
    Ok(())
}

/// A buffer of `len` leaves of the same representation as `like` (the same scalar kind, the
/// same columns), every leaf a zero (`zero` for boxed leaves).
pub fn blank_like(like: &Buffer, len: usize, zero: &Value) -> Buffer {
    match like {
        Buffer::Scalars(values) => Buffer::Scalars(Scalars::zeros(values.kind(), len)),
        Buffer::Columns(columns) => Buffer::Columns(Columns {
            layout: columns.layout,
            columns: columns
                .columns
                .iter()
                .map(|c| Scalars::zeros(c.kind(), len))
                .collect(),
        }),
        Buffer::Boxed(_) => Buffer::Boxed(Leaves::from_elem(zero.clone(), len)),
    }
}

/// Copies the leaves `from` of `src` into `dst` from leaf `at` (both of one representation).
pub fn copy_leaves(src: &Buffer, from: Range<usize>, dst: &mut Buffer, at: usize) {
    match (src, dst) {
        (Buffer::Scalars(s), Buffer::Scalars(d)) => copy_range(s, from, d, at),
        (Buffer::Columns(s), Buffer::Columns(d)) => {
            for (s, d) in s.columns.iter().zip(&mut d.columns) {
                copy_range(s, from.clone(), d, at);
            }
        }
        (Buffer::Boxed(s), Buffer::Boxed(d)) => {
            d[at..at + from.len()].clone_from_slice(&s[from]);
        }
        _ => unreachable!("copy_leaves between buffers of two representations"),
    }
}

fn copy_range(src: &Scalars, from: Range<usize>, dst: &mut Scalars, at: usize) {
    let width = src.kind().bytes();
    let len = from.len() * width;
    dst.bytes_mut()[at * width..at * width + len].copy_from_slice(src.bytes(from));
}

const UNIT: u8 = 0;
const INT: u8 = 1;
const FLOAT: u8 = 2;
const STR: u8 = 3;
const BIG: u8 = 4;
const TUPLE: u8 = 5;
const SUM: u8 = 6;
const SCALARS: u8 = 7;
const COLUMNS: u8 = 8;
const BOXED: u8 = 9;

const KINDS: [ScalarKind; 9] = [
    ScalarKind::I8,
    ScalarKind::U8,
    ScalarKind::I16,
    ScalarKind::U16,
    ScalarKind::I32,
    ScalarKind::U32,
    ScalarKind::I64,
    ScalarKind::F32,
    ScalarKind::F64,
];

fn kind_byte(kind: ScalarKind) -> u8 {
    KINDS.iter().position(|&k| k == kind).unwrap_or(0) as u8
}

fn put_len(n: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&(n as u64).to_le_bytes());
}

/// Appends one value: a tag byte, then its contents (numbers as their 64 bits, strings and
/// naturals as a length and bytes, tuples and sums component by component, an array as its
/// representation and leaves).
pub fn encode_value(v: &Value, out: &mut Vec<u8>) -> Result<(), Fault> {
    match v {
        Value::Unit => out.push(UNIT),
        Value::Int(i) => {
            out.push(INT);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float(x) => {
            out.push(FLOAT);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
        Value::Str(text) => {
            out.push(STR);
            put_len(text.len(), out);
            out.extend_from_slice(text);
        }
        Value::Big(n) => {
            let bytes = n.to_bytes_le();
            out.push(BIG);
            put_len(bytes.len(), out);
            out.extend_from_slice(&bytes);
        }
        Value::Tuple(items) => {
            out.push(TUPLE);
            put_len(items.len(), out);
            for item in items.iter() {
                encode_value(item, out)?;
            }
        }
        Value::Sum(sum) => {
            out.push(SUM);
            out.extend_from_slice(&sum.tag().to_le_bytes());
            out.push(sum.form() as u8);
            encode_value(&sum.argument(), out)?;
        }
        Value::Array(view) => {
            match &*view.buf {
                Buffer::Scalars(values) => {
                    out.extend([SCALARS, kind_byte(values.kind())]);
                }
                Buffer::Columns(columns) => {
                    out.push(COLUMNS);
                    encode_fields(&columns.layout.fields, out);
                    put_len(columns.layout.kinds.len(), out);
                    out.extend(columns.layout.kinds.iter().map(|&k| kind_byte(k)));
                }
                Buffer::Boxed(_) => out.push(BOXED),
            }
            put_len(view.len, out);
            encode_leaves(&view.buf, view.start..view.start + view.len, out)?;
        }
        Value::Fun(_) => return Err(stays("a function")),
        Value::Cell(_) => return Err(stays("a variable's cell")),
        Value::Ptr(_) => return Err(stays("a pointer")),
        Value::Varray(_) => return Err(stays("a varray")),
    }
    Ok(())
}

fn encode_fields(fields: &[ColumnField], out: &mut Vec<u8>) {
    put_len(fields.len(), out);
    for field in fields {
        match field {
            ColumnField::Column(c) => {
                out.push(0);
                put_len(*c, out);
            }
            ColumnField::Tuple(inner) => {
                out.push(1);
                encode_fields(inner, out);
            }
        }
    }
}

/// Reads values back from the bytes `encode_value` wrote.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Fault> {
        let end = self.at.checked_add(n).ok_or_else(truncated)?;
        let slice = self.bytes.get(self.at..end).ok_or_else(truncated)?;
        self.at = end;
        Ok(slice)
    }

    fn byte(&mut self) -> Result<u8, Fault> {
        Ok(self.take(1)?[0])
    }

    fn word(&mut self) -> Result<u64, Fault> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
    }

    /// A length, which the remaining bytes must be able to hold (at one byte an item).
    fn len(&mut self) -> Result<usize, Fault> {
        let n = self.word()?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(truncated());
        }
        Ok(n as usize)
    }

    fn kind(&mut self) -> Result<ScalarKind, Fault> {
        KINDS
            .get(usize::from(self.byte()?))
            .copied()
            .ok_or_else(truncated)
    }

    fn value(&mut self) -> Result<Value, Fault> {
        Ok(match self.byte()? {
            UNIT => Value::Unit,
            INT => Value::Int(self.word()? as i64),
            FLOAT => Value::Float(f64::from_bits(self.word()?)),
            STR => {
                let n = self.len()?;
                Value::Str(Arc::new(self.take(n)?.to_vec()))
            }
            BIG => {
                let n = self.len()?;
                Value::Big(Arc::new(BigUint::from_bytes_le(self.take(n)?)))
            }
            TUPLE => {
                let n = self.len()?;
                let items = (0..n)
                    .map(|_| self.value())
                    .collect::<Result<Vec<_>, _>>()?;
                Value::Tuple(items.into())
            }
            SUM => {
                let tag = u32::from_le_bytes(self.take(4)?.try_into().expect("four bytes"));
                let form = ArgForm::from_byte(self.byte()?).ok_or_else(truncated)?;
                Value::sum(tag, form, self.value()?)
            }
            SCALARS => {
                let kind = self.kind()?;
                let n = self.word()? as usize;
                let mut buf = Buffer::Scalars(Scalars::zeros(kind, 0));
                self.array(&mut buf, n, kind.bytes())?
            }
            COLUMNS => {
                let fields = self.fields()?;
                let k = self.len()?;
                let kinds = (0..k).map(|_| self.kind()).collect::<Result<Vec<_>, _>>()?;
                let width = kinds.iter().map(|k| k.bytes()).sum();
                let layout = ColumnLayout::interned(fields, kinds.clone());
                let n = self.word()? as usize;
                let mut buf = Buffer::Columns(Columns {
                    layout,
                    columns: kinds.iter().map(|&k| Scalars::zeros(k, 0)).collect(),
                });
                self.array(&mut buf, n, width)?
            }
            BOXED => {
                let n = self.len()?;
                let mut buf = Buffer::Boxed(Leaves::from_elem(Value::Unit, n));
                self.array(&mut buf, n, 0)?
            }
            _ => return Err(truncated()),
        })
    }

    /// The array of `n` leaves of `buf`'s representation (each of `width` bytes, 0 for boxed
    /// leaves) that follows.
    fn array(&mut self, buf: &mut Buffer, n: usize, width: usize) -> Result<Value, Fault> {
        if width > 0 {
            let bytes = n.checked_mul(width).ok_or_else(truncated)?;
            if bytes > self.bytes.len() - self.at {
                return Err(truncated());
            }
            *buf = blank_like(buf, n, &Value::Unit);
        }
        let read = decode_leaves(buf, 0, n, &self.bytes[self.at..])?;
        self.at += read;
        Ok(Value::Array(ArrayVal::new(std::mem::replace(
            buf,
            Buffer::Boxed(Leaves::new()),
        ))))
    }

    fn fields(&mut self) -> Result<Vec<ColumnField>, Fault> {
        let n = self.len()?;
        (0..n)
            .map(|_| {
                Ok(match self.byte()? {
                    0 => ColumnField::Column(self.word()? as usize),
                    _ => ColumnField::Tuple(self.fields()?),
                })
            })
            .collect()
    }
}

/// The values `encode_value` wrote one after another into `bytes`, `count` of them from the
/// front; returns them and the number of bytes read.
pub fn decode_values(bytes: &[u8], count: usize) -> Result<(Vec<Value>, usize), Fault> {
    let mut reader = Reader { bytes, at: 0 };
    let values = (0..count)
        .map(|_| reader.value())
        .collect::<Result<Vec<_>, _>>()?;
    Ok((values, reader.at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: &Value) -> Value {
        let mut bytes = Vec::new();
        encode_value(v, &mut bytes).expect("encodes");
        let (mut values, read) = decode_values(&bytes, 1).expect("decodes");
        assert_eq!(read, bytes.len());
        values.pop().expect("one value")
    }

    fn same(a: &Value, b: &Value) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn values_of_every_kind_that_travels_come_back_equal() {
        let columns = Columns {
            layout: ColumnLayout::interned(
                vec![
                    ColumnField::Column(0),
                    ColumnField::Tuple(vec![ColumnField::Column(1), ColumnField::Column(2)]),
                ],
                vec![ScalarKind::I32, ScalarKind::F64, ScalarKind::U8],
            ),
            columns: vec![
                Scalars::from_ints(ScalarKind::I32, [1, -2, 3]),
                Scalars::from_floats(ScalarKind::F64, [0.5, -0.0, f64::NAN]),
                Scalars::from_ints(ScalarKind::U8, [7, 8, 255]),
            ],
        };
        let values = [
            Value::Unit,
            Value::Int(i64::MIN),
            Value::Float(-0.0),
            Value::Str(Arc::new(b"a\0b\xff".to_vec())),
            Value::Big(Arc::new(BigUint::from(3u8).pow(100))),
            Value::Tuple(vec![Value::Int(1), Value::Str(Arc::new(b"x".to_vec()))].into()),
            Value::sum(2, ArgForm::Whole, Value::Float(1.5)),
            Value::sum(
                1,
                ArgForm::Whole,
                Value::Tuple(vec![Value::Int(7), Value::Unit].into()),
            ),
            Value::sum(
                1,
                ArgForm::Tuple,
                Value::Tuple(vec![Value::Int(7), Value::Unit].into()),
            ),
            Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::from_ints(
                ScalarKind::I16,
                [1, 2, -3],
            )))),
            Value::Array(ArrayVal::new(Buffer::Columns(columns))),
            Value::Array(ArrayVal::new(Buffer::Boxed(Leaves::from_vec(vec![
                Value::Str(Arc::new(b"p".to_vec())),
                Value::Unit,
            ])))),
        ];
        for v in &values {
            assert!(same(v, &round_trip(v)), "{v:?}");
        }
    }

    #[test]
    fn runs_of_leaves_travel_in_every_representation() {
        let scalars = Buffer::Scalars(Scalars::from_floats(ScalarKind::F32, [1.0, 2.0, 3.0]));
        let boxed = Buffer::Boxed(Leaves::from_vec(vec![
            Value::Str(Arc::new(b"one".to_vec())),
            Value::Str(Arc::new(b"two".to_vec())),
            Value::Str(Arc::new(b"three".to_vec())),
        ]));
        for buf in [scalars, boxed] {
            let mut bytes = Vec::new();
            encode_leaves(&buf, 1..3, &mut bytes).expect("encodes");
            let mut out = blank_like(&buf, 4, &Value::Unit);
            let read = decode_leaves(&mut out, 2, 2, &bytes).expect("decodes");
            assert_eq!(read, bytes.len());
            assert!(same(&out.get(2), &buf.get(1)) && same(&out.get(3), &buf.get(2)));
        }
    }

    #[test]
    fn what_has_no_meaning_elsewhere_does_not_travel_and_short_input_is_an_error() {
        let cell = Value::Cell(crate::eval::value::new_cell(Value::Unit));
        assert!(encode_value(&cell, &mut Vec::new()).is_err());
        let mut bytes = Vec::new();
        encode_value(&Value::Str(Arc::new(b"hello".to_vec())), &mut bytes).expect("encodes");
        for cut in 0..bytes.len() {
            assert!(decode_values(&bytes[..cut], 1).is_err());
        }
    }
}
