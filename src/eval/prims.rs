//! Scalar kernels: checked integer arithmetic with C division, floats, naturals, comparisons,
//! conversions and string operations. Kernels are plain functions over unwrapped values; the
//! compiler picks them per operand type.

use std::cmp::Ordering;
use std::sync::Arc;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use crate::core::ir::{ArithOp, BitOp, CmpOp};
use crate::types::ty::{IntTy, NominalBody};
use crate::types::Type;

use super::compact::{code_big, code_u64, CodeRepr};
use super::error::{
    Fault, CONVERSION_OUT_OF_RANGE, DIVISION_BY_ZERO, INDEX_OUT_OF_RANGE, OVERFLOW,
    SHIFT_OUT_OF_RANGE,
};
use super::value::{ArgForm, Value};

/// Is this integer type stored as a `u64` bit pattern in the `i64`?
pub fn is_unsigned_64(ity: IntTy) -> bool {
    !ity.signed() && ity.bits() == 64
}

/// The mathematical value of an integer of type `ity` stored as `raw`.
pub fn int_value(raw: i64, ity: IntTy) -> i128 {
    if is_unsigned_64(ity) {
        raw as u64 as i128
    } else {
        raw as i128
    }
}

/// The stored form of the mathematical value `v`, or `None` if it does not fit `ity`.
pub fn int_from_i128(v: i128, ity: IntTy) -> Option<i64> {
    if ity.contains(v) {
        Some(if is_unsigned_64(ity) {
            v as u64 as i64
        } else {
            v as i64
        })
    } else {
        None
    }
}

pub fn op_symbol(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::Mod => "%",
    }
}

/// Checked integer arithmetic in type `ity` with C semantics for `/` and `%` (truncation, the
/// sign of the dividend).
#[inline]
pub fn int_arith(op: ArithOp, ity: IntTy, a: i64, b: i64) -> Result<i64, Fault> {
    let x = int_value(a, ity);
    let y = int_value(b, ity);
    let result = match op {
        ArithOp::Add => x + y,
        ArithOp::Sub => x - y,
        // Two 64-bit unsigned operands can overflow even `i128`: then out of range anyway.
        ArithOp::Mul => x.checked_mul(y).unwrap_or(i128::MAX),
        ArithOp::Div | ArithOp::Mod if y == 0 => {
            return Err(Fault::new(
                DIVISION_BY_ZERO,
                format!("division by zero: {x} {} {y}", op_symbol(op)),
            ))
        }
        // Rust's `/` and `%` on integers truncate toward zero like C.
        ArithOp::Div => x / y,
        ArithOp::Mod => x % y,
    };
    int_from_i128(result, ity).ok_or_else(|| {
        Fault::new(
            OVERFLOW,
            format!("{} overflow: {x} {} {y}", ity.name(), op_symbol(op)),
        )
    })
}

/// Expands to `$build(args..., op_closure)`, where `op_closure: Fn(i64, i64) -> Option<i64>`
/// computes `op` in `ity` with native machine arithmetic and returns `None` whenever the fast
/// path cannot decide (overflow, division by zero, `MIN % -1`). Callers then run `int_arith`,
/// which gives the exact result or fault, so semantics never depend on the fast path. Each
/// common (operation, type) pair gets its own monomorphic closure so loops over it inline.
macro_rules! with_fast_int_op {
    ($op:expr, $ity:expr, $build:ident ( $($arg:expr),* )) => {{
        use $crate::core::ir::ArithOp as FastOp;
        let fits32 = |r: i64| r as i32 as i64 == r;
        match ($op, $ity.signed(), $ity.bits()) {
            (FastOp::Add, true, 64) => $build($($arg,)* |x: i64, y: i64| x.checked_add(y)),
            (FastOp::Sub, true, 64) => $build($($arg,)* |x: i64, y: i64| x.checked_sub(y)),
            (FastOp::Mul, true, 64) => $build($($arg,)* |x: i64, y: i64| x.checked_mul(y)),
            (FastOp::Div, true, 64) => $build($($arg,)* |x: i64, y: i64| x.checked_div(y)),
            (FastOp::Mod, true, 64) => $build($($arg,)* |x: i64, y: i64| x.checked_rem(y)),
            (FastOp::Add, true, 32) => {
                $build($($arg,)* move |x: i64, y: i64| Some(x + y).filter(|r| fits32(*r)))
            }
            (FastOp::Sub, true, 32) => {
                $build($($arg,)* move |x: i64, y: i64| Some(x - y).filter(|r| fits32(*r)))
            }
            (FastOp::Mul, true, 32) => {
                $build($($arg,)* move |x: i64, y: i64| Some(x * y).filter(|r| fits32(*r)))
            }
            (FastOp::Div, true, 32) => {
                $build($($arg,)* move |x: i64, y: i64| x.checked_div(y).filter(|r| fits32(*r)))
            }
            (FastOp::Mod, true, 32) => $build($($arg,)* |x: i64, y: i64| x.checked_rem(y)),
            (op, _, _) => {
                let ity = $ity;
                $build($($arg,)* move |x: i64, y: i64| $crate::eval::prims::int_arith(op, ity, x, y).ok())
            }
        }
    }};
}
pub(crate) use with_fast_int_op;

/// Checked negation in `ity`.
pub fn int_neg(ity: IntTy, a: i64) -> Result<i64, Fault> {
    let x = int_value(a, ity);
    int_from_i128(-x, ity)
        .ok_or_else(|| Fault::new(OVERFLOW, format!("{} overflow: -{x}", ity.name())))
}

/// Bitwise operators and shifts in `ity`.
pub fn int_bit(op: BitOp, ity: IntTy, a: i64, b: i64) -> Result<i64, Fault> {
    let bits = ity.bits();
    let mask = |v: i64| -> i64 {
        if bits == 64 {
            v
        } else {
            v & ((1i64 << bits) - 1)
        }
    };
    match op {
        BitOp::And => Ok(a & b),
        BitOp::Or => Ok(a | b),
        BitOp::Xor => Ok(a ^ b),
        BitOp::Shl | BitOp::Shr => {
            let n = int_value(b, ity);
            if n < 0 || n >= bits as i128 {
                return Err(Fault::new(
                    SHIFT_OUT_OF_RANGE,
                    format!(
                        "shift count {n} out of range for {} (0 to {})",
                        ity.name(),
                        bits - 1
                    ),
                ));
            }
            let n = n as u32;
            let x = int_value(a, ity);
            if op == BitOp::Shr {
                // Arithmetic for signed types, logical for unsigned (stored non-negative, or
                // as the u64 bit pattern for 64-bit unsigned types).
                return Ok(if ity.signed() {
                    a >> n
                } else {
                    ((a as u64) >> n) as i64
                });
            }
            if ity.signed() {
                let r = x << n;
                int_from_i128(r, ity).ok_or_else(|| {
                    Fault::new(OVERFLOW, format!("{} overflow: {x} << {n}", ity.name()))
                })
            } else {
                Ok(mask(((a as u64) << n) as i64))
            }
        }
    }
}

/// `~a` in the unsigned type `ity`.
pub fn int_compl(ity: IntTy, a: i64) -> i64 {
    if ity.bits() == 64 {
        !a
    } else {
        !a & ((1i64 << ity.bits()) - 1)
    }
}

/// Round to `float` when `single`.
#[inline]
pub fn round_float(x: f64, single: bool) -> f64 {
    if single {
        x as f32 as f64
    } else {
        x
    }
}

#[inline]
pub fn float_arith(op: ArithOp, a: f64, b: f64) -> f64 {
    match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        ArithOp::Div => a / b,
        // C's fmod: the sign of the dividend, like Rust's `%` on floats.
        ArithOp::Mod => a % b,
    }
}

/// `natural` arithmetic: a negative result is R0003, division by zero R0004.
pub fn nat_arith(
    op: ArithOp,
    a: &BigUint,
    b: &BigUint,
    limits: &crate::limits::Limits,
) -> Result<BigUint, Fault> {
    match op {
        ArithOp::Add => {
            check_natural_bits(a.bits().max(b.bits()) + 1, limits)?;
            Ok(a + b)
        }
        ArithOp::Sub => {
            if a < b {
                Err(Fault::new(
                    OVERFLOW,
                    format!("natural overflow: {a} - {b} is negative"),
                ))
            } else {
                Ok(a - b)
            }
        }
        ArithOp::Mul => {
            check_natural_bits(a.bits() + b.bits(), limits)?;
            Ok(a * b)
        }
        ArithOp::Div | ArithOp::Mod if b.is_zero() => Err(Fault::new(
            DIVISION_BY_ZERO,
            format!("division by zero: {a} {} {b}", op_symbol(op)),
        )),
        ArithOp::Div => Ok(a / b),
        ArithOp::Mod => Ok(a % b),
    }
}

/// Does an ordering satisfy the comparison?
#[inline]
pub fn holds(op: CmpOp, ordering: Ordering) -> bool {
    match op {
        CmpOp::Eq => ordering == Ordering::Equal,
        CmpOp::Ne => ordering != Ordering::Equal,
        CmpOp::Lt => ordering == Ordering::Less,
        CmpOp::Le => ordering != Ordering::Greater,
        CmpOp::Gt => ordering == Ordering::Greater,
        CmpOp::Ge => ordering != Ordering::Less,
    }
}

/// IEEE comparison (every comparison with NaN is false except `!=`).
#[inline]
pub fn float_holds(op: CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// A total order on the values of one type, built once per type.
pub type Comparator = Arc<dyn Fn(&Value, &Value) -> Ordering + Send + Sync>;

/// The structural order of equality and comparison (`Prim::Compare`) for values of type `ty`.
pub fn comparator(ty: &Type) -> Comparator {
    comparator_in(ty, &mut Vec::new())
}

/// The order of two strings' bytes, as `a.cmp(b)`. An empty string is not compared by `memcmp`:
/// its bytes' address is a placeholder in page 0, and glibc's `memcmp` for processors with
/// AVX-512 reads inputs shorter than 32 bytes with masked loads, which on some processors (the
/// AMD EPYC of our machines) take a microcode assist of about 80 ns at an unmapped address
/// even when they load nothing: a loop testing `line != ""` spent nine tenths of its time there.
pub(crate) fn compare_text(a: &[u8], b: &[u8]) -> Ordering {
    match a.is_empty() || b.is_empty() {
        true => a.len().cmp(&b.len()),
        false => a.cmp(b),
    }
}

/// The comparator of a nominal type whose body is being built, reached again through its own
/// body (a recursive variant): a weak reference, so the comparator is built once and holds
/// no reference cycle.
type Open = Vec<(u32, std::sync::Weak<std::sync::OnceLock<Comparator>>)>;

fn comparator_in(ty: &Type, open: &mut Open) -> Comparator {
    let mut comparator = |t: &Type| comparator_in(t, open);
    match ty {
        Type::Int(ity) if is_unsigned_64(*ity) => {
            Arc::new(|a, b| (a.as_int_lossy() as u64).cmp(&(b.as_int_lossy() as u64)))
        }
        Type::Int(_) => Arc::new(|a, b| a.as_int_lossy().cmp(&b.as_int_lossy())),
        // `char` is signed.
        Type::Char => {
            Arc::new(|a, b| (a.as_int_lossy() as u8 as i8).cmp(&(b.as_int_lossy() as u8 as i8)))
        }
        Type::Double | Type::Float => Arc::new(|a, b| {
            a.as_float_lossy()
                .partial_cmp(&b.as_float_lossy())
                .unwrap_or(Ordering::Equal)
        }),
        Type::String => Arc::new(|a, b| match (a, b) {
            (Value::Str(x), Value::Str(y)) => compare_text(x, y),
            _ => Ordering::Equal,
        }),
        Type::Natural => Arc::new(|a, b| code_big(a).cmp(&code_big(b))),
        t if crate::types::kind::is_compact(t) => match CodeRepr::of(t) {
            CodeRepr::Unit => Arc::new(|_, _| Ordering::Equal),
            CodeRepr::Small => Arc::new(|a, b| code_u64(a).cmp(&code_u64(b))),
            CodeRepr::Big => Arc::new(|a, b| code_big(a).cmp(&code_big(b))),
        },
        Type::Tuple(components) => {
            let parts: Vec<Comparator> = components.iter().map(comparator).collect();
            Arc::new(move |a, b| compare_components(&parts, a, b))
        }
        // A nominal type may be recursive (`variant tree = | Leaf of int | Node of tree *
        // tree;`): met again inside its own body, it refers to the comparator being built.
        // Values nested deeper than the stack allows move to a new stack segment, like calls
        // (closure.rs).
        Type::Nominal(def) => {
            if let Some((_, cell)) = open.iter().find(|(id, _)| *id == def.id) {
                let cell = cell.clone();
                return Arc::new(move |a, b| match cell.upgrade() {
                    Some(cell) => match cell.get() {
                        Some(compare) => {
                            stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || compare(a, b))
                        }
                        None => Ordering::Equal,
                    },
                    None => Ordering::Equal,
                });
            }
            let cell = Arc::new(std::sync::OnceLock::new());
            open.push((def.id, Arc::downgrade(&cell)));
            let body = nominal_comparator(def, open);
            open.pop();
            let _ = cell.set(body);
            Arc::new(move |a, b| match cell.get() {
                Some(compare) => stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || compare(a, b)),
                None => Ordering::Equal,
            })
        }
        Type::Sum(summands) => {
            let args: Vec<Option<CaseOrder>> =
                summands.iter().map(|t| Some(case_order(t, open))).collect();
            Arc::new(move |a, b| compare_sums(&args, a, b))
        }
        Type::Array(elem, _) => {
            let element = comparator(elem);
            let leaves = super::value::leaf_count(elem).unwrap_or(1);
            let elem_is_array = matches!(**elem, Type::Array(..));
            Arc::new(move |a, b| match (a, b) {
                (Value::Array(x), Value::Array(y)) => {
                    let n = x.len.min(y.len) / leaves.max(1);
                    for i in 0..n {
                        let (p, q) = if elem_is_array {
                            (
                                Value::Array(x.slice(i * leaves, leaves)),
                                Value::Array(y.slice(i * leaves, leaves)),
                            )
                        } else {
                            (x.leaf(i), y.leaf(i))
                        };
                        let ordering = element(&p, &q);
                        if ordering != Ordering::Equal {
                            return ordering;
                        }
                    }
                    x.len.cmp(&y.len)
                }
                _ => Ordering::Equal,
            })
        }
        _ => Arc::new(|_, _| Ordering::Equal),
    }
}

/// The order of a struct (fields in declaration order) or a variant (constructor index, then
/// argument).
fn nominal_comparator(def: &crate::types::ty::NominalDef, open: &mut Open) -> Comparator {
    let mut comparator = |t: &Type| comparator_in(t, open);
    match def.body() {
        Some(NominalBody::Struct(fields)) => {
            let parts: Vec<Comparator> = fields.iter().map(|(_, t)| comparator(t)).collect();
            Arc::new(move |a, b| compare_components(&parts, a, b))
        }
        Some(NominalBody::Variant(constructors)) => {
            let args: Vec<Option<CaseOrder>> = constructors
                .iter()
                .map(|(_, t)| t.as_ref().map(|t| case_order(t, open)))
                .collect();
            Arc::new(move |a, b| compare_sums(&args, a, b))
        }
        // Stored as its representation; the checker allows only `==`/`!=` (when granted).
        Some(NominalBody::Opaque { repr, .. }) => comparator(repr),
        None => Arc::new(|_, _| Ordering::Equal),
    }
}

fn compare_components(parts: &[Comparator], a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Tuple(x), Value::Tuple(y)) => compare_parts(parts, x, y),
        _ => Ordering::Equal,
    }
}

/// The order of `x` and `y`, part by part (`parts` compares each).
fn compare_parts(parts: &[Comparator], x: &[Value], y: &[Value]) -> Ordering {
    for ((compare, p), q) in parts.iter().zip(x).zip(y) {
        let ordering = compare(p, q);
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    Ordering::Equal
}

/// The order of a case's arguments: `whole` on the arguments, and, for an argument a node
/// holds as its parts (`ArgForm::of`: a small tuple, or a small array of boxed leaves), one
/// comparator a part, so such nodes are compared where they hold the parts.
struct CaseOrder {
    whole: Comparator,
    parts: Option<Vec<Comparator>>,
}

fn case_order(ty: &Type, open: &mut Open) -> CaseOrder {
    let whole = comparator_in(ty, open);
    let parts = match (ArgForm::of(ty), ty) {
        (ArgForm::Tuple, Type::Tuple(components)) => {
            Some(components.iter().map(|t| comparator_in(t, open)).collect())
        }
        (ArgForm::Boxed, Type::Array(elem, _)) => super::array::Shape::of(ty)
            .and_then(|shape| shape.n_elements)
            .map(|n| vec![comparator_in(elem, open); n]),
        _ => None,
    };
    CaseOrder { whole, parts }
}

fn compare_sums(args: &[Option<CaseOrder>], a: &Value, b: &Value) -> Ordering {
    let (Value::Sum(x), Value::Sum(y)) = (a, b) else {
        return Ordering::Equal;
    };
    let tag = x.tag();
    tag.cmp(&y.tag()).then_with(|| {
        let Some(Some(order)) = args.get(tag as usize) else {
            return Ordering::Equal;
        };
        let n = x.parts().len();
        match (x.form(), y.form(), &order.parts) {
            (ArgForm::Whole, ArgForm::Whole, _) => (order.whole)(&x.parts()[0], &y.parts()[0]),
            (form, other, Some(parts))
                if form == other
                    && form != ArgForm::Whole
                    && n == parts.len()
                    && n == y.parts().len() =>
            {
                compare_parts(parts, x.parts(), y.parts())
            }
            _ => (order.whole)(&x.argument(), &y.argument()),
        }
    })
}

/// Parse an optional sign and leading decimal digits (C's `atoi` without whitespace rules
/// beyond leading blanks): `"12x"` is 12, `"abc"` is 0. `None` only on overflow of i128.
pub fn parse_leading_int(bytes: &[u8]) -> Option<i128> {
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut negative = false;
    if i < bytes.len() && (bytes[i] == b'-' || bytes[i] == b'+') {
        negative = bytes[i] == b'-';
        i += 1;
    }
    let mut value: i128 = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        value = value
            .checked_mul(10)?
            .checked_add((bytes[i] - b'0') as i128)?;
        i += 1;
    }
    Some(if negative { -value } else { value })
}

/// Parse the longest leading decimal floating-point number (like `strtod`); 0 when none.
/// The prefix is the longest one Rust's `f64` parser accepts: a sign, then `inf`,
/// `infinity` or `nan` in any case, or digits with at most one point (one digit at least) and
/// an exponent (`e`, a sign, digits) when digits follow the `e`.
pub fn parse_leading_float(bytes: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start();
    let end = float_prefix(text.as_bytes());
    text[..end].parse().unwrap_or(0.0)
}

/// The length of the longest prefix of `text` that reads as an `f64` (0 when none).
fn float_prefix(text: &[u8]) -> usize {
    let digits = |from: usize| {
        from + text[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let signed = usize::from(matches!(text.first(), Some(b'+' | b'-')));
    let rest = &text[signed..];
    let word = |w: &[u8]| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w);
    if word(b"infinity") {
        return signed + 8;
    }
    if word(b"inf") || word(b"nan") {
        return signed + 3;
    }
    let whole = digits(signed);
    let mut end = whole;
    let mut any = whole > signed;
    if text.get(end) == Some(&b'.') {
        let fraction = digits(end + 1);
        any |= fraction > end + 1;
        end = fraction;
    }
    if !any {
        return 0;
    }
    if matches!(text.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(text.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > end + 1 + sign {
            end = exponent;
        }
    }
    end
}

/// A scalar conversion (a cast or a conversion function) from `from` to `to`.
pub fn convert(value: &Value, from: &Type, to: &Type) -> Result<Value, Fault> {
    // The source as an exact integer or a float.
    enum Source {
        Integer(i128),
        Float(f64),
    }
    let source = match (from, value) {
        (Type::Int(ity), Value::Int(raw)) => Source::Integer(int_value(*raw, *ity)),
        (Type::Char, Value::Int(raw)) => Source::Integer(*raw as i128),
        (Type::Double | Type::Float, Value::Float(x)) => Source::Float(*x),
        (Type::String, Value::Str(s)) if *to != Type::String => return convert_text(s, to),
        (Type::Natural, Value::Big(b)) => match b.to_i128() {
            Some(v) => Source::Integer(v),
            None => return Err(out_of_range(b.to_string(), to)),
        },
        (_, Value::Int(raw)) => Source::Integer(*raw as i128),
        (_, Value::Float(x)) => Source::Float(*x),
        (_, other) => return Ok(other.clone()),
    };
    match to {
        Type::Int(ity) => {
            let v = match source {
                Source::Integer(v) => v,
                Source::Float(x) => {
                    if x.is_nan() || x.is_infinite() || x.abs() >= 1e38 {
                        return Err(out_of_range(x.to_string(), to));
                    }
                    x.trunc() as i128
                }
            };
            int_from_i128(v, *ity)
                .map(Value::Int)
                .ok_or_else(|| out_of_range(v.to_string(), to))
        }
        Type::Char => match source {
            // `char n` is the byte `n` mod 256.
            Source::Integer(v) => Ok(Value::Int(v.rem_euclid(256) as i64)),
            Source::Float(x) => Err(out_of_range(x.to_string(), to)),
        },
        Type::Double | Type::Float => {
            let single = *to == Type::Float;
            let x = match source {
                Source::Integer(v) => v as f64,
                Source::Float(x) => x,
            };
            Ok(Value::Float(round_float(x, single)))
        }
        Type::Natural => match source {
            Source::Integer(v) if v >= 0 => Ok(Value::Big(Arc::new(BigUint::from(v as u128)))),
            Source::Integer(v) => Err(out_of_range(v.to_string(), to)),
            Source::Float(x) if x >= 0.0 && x.is_finite() => {
                Ok(Value::Big(Arc::new(BigUint::from(x.trunc() as u128))))
            }
            Source::Float(x) => Err(out_of_range(x.to_string(), to)),
        },
        Type::String => Ok(match source {
            Source::Integer(v) => Value::str(v.to_string().as_bytes()),
            Source::Float(x) => Value::str(x.to_string().as_bytes()),
        }),
        _ => Ok(value.clone()),
    }
}

/// The conversion of the text `s` to `to` (`int s`, `double s`, `char s`): the leading
/// number it reads, or its first byte.
pub fn convert_text(s: &[u8], to: &Type) -> Result<Value, Fault> {
    match to {
        Type::Int(ity) => {
            let v = parse_leading_int(s)
                .ok_or_else(|| out_of_range(format!("\"{}\"", String::from_utf8_lossy(s)), to))?;
            int_from_i128(v, *ity)
                .map(Value::Int)
                .ok_or_else(|| out_of_range(v.to_string(), to))
        }
        Type::Char => Ok(Value::Int(s.first().copied().unwrap_or(0) as i64)),
        Type::Double | Type::Float => Ok(Value::Float(round_float(
            parse_leading_float(s),
            *to == Type::Float,
        ))),
        Type::Natural => Ok(Value::Big(Arc::new(BigUint::from(
            parse_leading_int(s).unwrap_or(0).max(0) as u128,
        )))),
        _ => Ok(Value::str(s)),
    }
}

/// R0005: the value `shown` does not fit `to`.
fn out_of_range(shown: String, to: &Type) -> Fault {
    Fault::new(
        CONVERSION_OUT_OF_RANGE,
        format!("conversion out of range: {shown} does not fit {to}"),
    )
}

/// `s.[i]`: negative `i` counts from the end; outside `-len .. len-1` is R0001.
pub fn str_index(s: &[u8], i: i128) -> Result<Value, Fault> {
    let len = s.len() as i128;
    let position = if i < 0 { i + len } else { i };
    if position < 0 || position >= len {
        return Err(str_index_error(i, len));
    }
    Ok(Value::Int(s[position as usize] as i64))
}

/// The error of `s.[i]` out of range for a string of `len` bytes.
pub fn str_index_error(i: i128, len: i128) -> Fault {
    Fault::new(
        INDEX_OUT_OF_RANGE,
        format!("string index {i} out of range for a string of length {len}"),
    )
}

/// `s.[from to to]`: negative bounds count from the end, bounds are clamped.
pub fn str_slice(s: &[u8], from: Option<i128>, to: Option<i128>) -> Value {
    Value::str(&s[slice_range(s.len(), from, to)])
}

/// The bytes `s.[from to to]` takes of a string of `len` bytes: negative bounds count from
/// the end, bounds are clamped (an empty range when they cross).
pub fn slice_range(len: usize, from: Option<i128>, to: Option<i128>) -> std::ops::Range<usize> {
    let n = len as i128;
    let clamp = |bound: i128| {
        let b = if bound < 0 { bound + n } else { bound };
        b.clamp(0, n) as usize
    };
    let start = from.map(clamp).unwrap_or(0);
    let end = to.map(clamp).unwrap_or(len);
    start..end.max(start)
}

/// `s * n`: `n` copies; `n <= 0` gives the empty string. R0007 when the result is too big.
pub fn str_repeat(s: &[u8], n: i128, limits: &crate::limits::Limits) -> Result<Value, Fault> {
    if n <= 0 || s.is_empty() {
        return Ok(Value::str(b""));
    }
    let total = (s.len() as u128).saturating_mul(n as u128);
    let text = new_string(total, limits, |out| {
        // Doubling what is written so far: a few large copies instead of `n` small ones.
        out.extend_from_slice(s);
        while out.len() < total as usize {
            let more = out.len().min(total as usize - out.len());
            out.extend_from_within(..more);
        }
    })?;
    Ok(Value::Str(text))
}

/// `parts[0] + parts[1] + …`, the result allocated once at its size (a chain of `+` on
/// strings, however nested, is one concatenation of its operands: `string_parts`); R0007 when
/// it is too big.
pub fn str_concat_all(parts: &[&[u8]], limits: &crate::limits::Limits) -> Result<Value, Fault> {
    let total = parts.iter().map(|p| p.len() as u128).sum();
    let text = new_string(total, limits, |out| {
        for part in parts {
            out.extend_from_slice(part);
        }
    })?;
    Ok(Value::Str(text))
}

/// The bytes of a string value (none for anything else, which the checker rules out where
/// a string is expected).
pub fn str_bytes(value: &Value) -> &[u8] {
    match value {
        Value::Str(text) => text.as_slice(),
        _ => b"",
    }
}

/// The operands of a chain of string concatenations (`a + b + c`, however nested), in
/// evaluation order; a single operand when `e` is not a concatenation.
pub fn string_parts(e: &crate::core::ir::Expr) -> Vec<&crate::core::ir::Expr> {
    match &e.kind {
        crate::core::ir::ExprKind::Prim(crate::core::ir::Prim::StrConcat, operands) => {
            operands.iter().flat_map(string_parts).collect()
        }
        _ => vec![e],
    }
}

/// A fresh string of `bytes` bytes appended by `fill` to an empty buffer of that capacity,
/// allocated once (no intermediate copy, no zeroing), after `Limits::admit` (R0007 when it
/// is refused, or when the system refuses the reservation).
pub fn new_string(
    bytes: u128,
    limits: &crate::limits::Limits,
    fill: impl FnOnce(&mut Vec<u8>),
) -> Result<super::value::Text, Fault> {
    let too_large = |refusal: crate::limits::Refusal| {
        Fault::new(
            super::error::TOO_LARGE,
            format!("string too large: {}", refusal.describe(bytes)),
        )
    };
    limits.admit(bytes).map_err(too_large)?;
    let mut text: Vec<u8> = Vec::new();
    if text.try_reserve_exact(bytes as usize).is_err() {
        return Err(Fault::new(
            super::error::TOO_LARGE,
            format!("string too large: {bytes} bytes cannot be allocated"),
        ));
    }
    fill(&mut text);
    debug_assert_eq!(text.len() as u128, bytes);
    Ok(Arc::new(text))
}

/// `text + tails[0] + tails[1] + …`, in place when `text` is not shared (the string grows
/// geometrically, so a loop of appends is linear); R0007 when the result is too big, `text`
/// then unchanged.
pub fn str_append(
    text: &mut super::value::Text,
    tails: &[&[u8]],
    limits: &crate::limits::Limits,
) -> Result<(), Fault> {
    let added: usize = tails.iter().map(|t| t.len()).sum();
    let total = text.len() as u128 + added as u128;
    match Arc::get_mut(text) {
        Some(bytes) => {
            limits.admit(total).map_err(|refusal| {
                Fault::new(
                    super::error::TOO_LARGE,
                    format!("string too large: {}", refusal.describe(total)),
                )
            })?;
            if bytes.try_reserve(added).is_err() {
                return Err(Fault::new(
                    super::error::TOO_LARGE,
                    format!("string too large: {total} bytes cannot be allocated"),
                ));
            }
            for tail in tails {
                bytes.extend_from_slice(tail);
            }
            Ok(())
        }
        None => {
            let mut parts = Vec::with_capacity(tails.len() + 1);
            parts.push(text.as_slice());
            parts.extend_from_slice(tails);
            let Value::Str(joined) = str_concat_all(&parts, limits)? else {
                return Ok(());
            };
            *text = joined;
            Ok(())
        }
    }
}

/// R0007 unless a natural number of `bits` bits is within `--max-natural-bits` and can be
/// allocated.
pub fn check_natural_bits(bits: u64, limits: &crate::limits::Limits) -> Result<(), Fault> {
    let limit = limits.max_natural_bits;
    if bits > limit {
        return Err(Fault::new(
            super::error::TOO_LARGE,
            format!(
                "natural number too large: the result would have about {bits} bits, more than \
                 the limit of {limit} bits (raise it with `--max-natural-bits`)"
            ),
        ));
    }
    let bytes = u128::from(bits / 8 + 8);
    limits.check_allocation(bytes).map_err(|refusal| {
        Fault::new(
            super::error::TOO_LARGE,
            format!("natural number too large: {}", refusal.describe(bytes)),
        )
    })
}

impl Value {
    /// The integer in an `Int`, or 0 (used by kernels whose operand types are known).
    #[inline]
    pub fn as_int_lossy(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            _ => 0,
        }
    }

    /// The double in a `Float`, or 0.
    #[inline]
    pub fn as_float_lossy(&self) -> f64 {
        match self {
            Value::Float(x) => *x,
            _ => 0.0,
        }
    }

    /// A boolean stored as code 0 or 1.
    #[inline]
    pub fn truthy(&self) -> bool {
        matches!(self, Value::Int(i) if *i != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_and_masks() {
        assert_eq!(int_bit(BitOp::Shl, IntTy::UInt, 3, 31), Ok(2147483648));
        assert_eq!(
            int_bit(BitOp::Shl, IntTy::UInt, 3, 32).unwrap_err().code,
            "R0010"
        );
        assert_eq!(int_bit(BitOp::Shr, IntTy::Int, -16, 2), Ok(-4));
        assert_eq!(
            int_bit(BitOp::Shl, IntTy::Int, 1, 31).unwrap_err().code,
            "R0003"
        );
        assert_eq!(int_bit(BitOp::Shl, IntTy::Int, 1, 30), Ok(1 << 30));
        assert_eq!(int_bit(BitOp::Shr, IntTy::UVLong, -1, 63), Ok(1));
        assert_eq!(int_bit(BitOp::Shl, IntTy::UTiny, 255, 1), Ok(254));
        assert_eq!(
            int_bit(BitOp::Shl, IntTy::Int, 1, -1).unwrap_err().code,
            "R0010"
        );
        assert_eq!(int_compl(IntTy::UInt, 0), 4294967295);
        assert_eq!(int_compl(IntTy::U64, 0), -1);
        assert_eq!(int_compl(IntTy::UTiny, 5), 250);
    }

    #[test]
    fn c_division_semantics() {
        assert_eq!(int_arith(ArithOp::Div, IntTy::Int, -7, 2), Ok(-3));
        assert_eq!(int_arith(ArithOp::Mod, IntTy::Int, -7, 2), Ok(-1));
        assert_eq!(int_arith(ArithOp::Div, IntTy::Int, 7, -2), Ok(-3));
        assert_eq!(int_arith(ArithOp::Mod, IntTy::Int, 7, -2), Ok(1));
    }

    #[test]
    fn overflow_and_division_by_zero_are_faults() {
        let fault = int_arith(ArithOp::Add, IntTy::Int, 2147483647, 1).unwrap_err();
        assert_eq!(fault.code, OVERFLOW);
        assert_eq!(fault.message, "int overflow: 2147483647 + 1");
        let fault = int_arith(ArithOp::Div, IntTy::Long, 1, 0).unwrap_err();
        assert_eq!(fault.code, DIVISION_BY_ZERO);
        assert_eq!(
            int_arith(ArithOp::Sub, IntTy::Size, 0, 1).unwrap_err().code,
            OVERFLOW
        );
        assert_eq!(
            int_arith(ArithOp::Add, IntTy::U64, -2, 1),
            Ok(-1),
            "u64::MAX - 1 + 1 is u64::MAX"
        );
    }

    #[test]
    fn string_conversions_read_leading_digits() {
        let int = Type::INT;
        let parse = |s: &str| convert(&Value::str(s.as_bytes()), &Type::String, &int);
        assert_eq!(parse("12x").unwrap().as_int(), 12);
        assert_eq!(parse("abc").unwrap().as_int(), 0);
        assert_eq!(parse("-42").unwrap().as_int(), -42);
        assert_eq!(
            parse("99999999999").unwrap_err().code,
            CONVERSION_OUT_OF_RANGE
        );
        let truncated = convert(&Value::Float(3.7), &Type::Double, &int).unwrap();
        assert_eq!(truncated.as_int(), 3);
        let byte = Type::Int(IntTy::U8);
        assert!(convert(&Value::Int(300), &int, &byte).is_err());
    }

    /// The longest prefix `f64::from_str` accepts, found by trying every prefix.
    fn float_by_every_prefix(bytes: &[u8]) -> f64 {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_start();
        let mut best = 0.0;
        for (i, _) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if let Ok(v) = text[..i].parse::<f64>() {
                best = v;
            }
        }
        best
    }

    proptest::proptest! {
        #[test]
        fn leading_floats_are_the_longest_prefix_rust_reads(
            s in proptest::collection::vec(proptest::sample::select(
                b" +-.0123456789eEinfINFtyTYaAx\t".to_vec()), 0..14),
        ) {
            let expected = float_by_every_prefix(&s);
            let got = parse_leading_float(&s);
            proptest::prop_assert!(
                got.to_bits() == expected.to_bits() || (got.is_nan() && expected.is_nan()),
                "{:?}: {} against {}", String::from_utf8_lossy(&s), got, expected
            );
        }
    }

    #[test]
    fn leading_floats_of_typical_fields() {
        for (text, x) in [
            ("49.123456", 49.123456),
            (" -0.5e-3,", -0.0005),
            ("1e", 1.0),
            ("1.e5x", 1.0e5),
            (".5", 0.5),
            ("-.", 0.0),
            ("Infinity!", f64::INFINITY),
            ("-inf", f64::NEG_INFINITY),
            ("", 0.0),
        ] {
            assert_eq!(parse_leading_float(text.as_bytes()), x, "{text:?}");
        }
        assert!(parse_leading_float(b"NaN3").is_nan());
    }

    #[test]
    fn string_slices_clamp_and_index_from_the_end() {
        let s = b"hello";
        match str_slice(s, Some(3), Some(10)) {
            Value::Str(t) => assert_eq!(&*t, b"lo"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(str_index(s, -1).unwrap().as_int(), b'o' as i64);
        assert!(str_index(s, 5).is_err());
    }
}
