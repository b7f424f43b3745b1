//! Kernels of the library functions beyond the core operators: assert, bitwise operators and shifts,
//! numeric functions, characters, strings, format strings, array functions and the standard
//! streams. `compile/prim.rs` hands each such `Prim` here with its compiled operands.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::core::ir::{CharClass, Const, Expr, ExprKind, MathFn, Prim, StrSearch};
use crate::interrupt::POLL_INTERVAL;
use crate::syntax::span::Span;
use crate::types::Type;

use super::array::{LeafBuilder, Shape};
use super::closure::{apply, apply_one};
use super::code::ExprCode;
use super::compact::SumLayout;
use super::distributed::sample_sort::float_key;
use super::error::{interrupted, poll_interrupt, runtime_error, Fault, ASSERTION_FAILURE};
use super::parallel::{thread_count, PARALLEL_THRESHOLD};
use super::prims::{self, int_bit, int_compl, int_value};
use super::scalars::{self, Elem, Scalars};
use super::value::{ArrayVal, Buffer, Value};
use super::Ctrl;

/// The compiled code of a library primitive, `None` for primitives not handled here.
pub fn compile(
    prim: &Prim,
    args: &[Expr],
    mut codes: Vec<ExprCode>,
    result_ty: &Type,
    span: Span,
) -> Option<ExprCode> {
    let arg_tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
    let arg_tys = arg_tys.as_slice();
    let mut pop = || codes.pop().expect("the operand count was checked");
    Some(match prim {
        Prim::Assert => {
            let c = pop();
            Box::new(move |frame| {
                if c(frame)?.truthy() {
                    Ok(Value::Unit)
                } else {
                    Err(runtime_error(ASSERTION_FAILURE, "assertion failure", span))
                }
            })
        }
        Prim::IntBit(op, ity) => {
            let (op, ity) = (*op, *ity);
            let b = pop();
            let a = pop();
            Box::new(move |frame| {
                let x = a(frame)?.as_int_lossy();
                let y = b(frame)?.as_int_lossy();
                int_bit(op, ity, x, y)
                    .map(Value::Int)
                    .map_err(|f| f.at(span))
            })
        }
        Prim::IntCompl(ity) => {
            let ity = *ity;
            let a = pop();
            Box::new(move |frame| Ok(Value::Int(int_compl(ity, a(frame)?.as_int_lossy()))))
        }
        Prim::FloatFn(f, single) => {
            let (f, single) = (*f, *single);
            let a = pop();
            Box::new(move |frame| {
                let x = a(frame)?.as_float_lossy();
                Ok(Value::Float(prims::round_float(math(f, x), single)))
            })
        }
        Prim::Atan2(single) | Prim::Pow(single) | Prim::PowInt(single) => {
            let single = *single;
            let kind = prim.clone();
            let b = pop();
            let a = pop();
            Box::new(move |frame| {
                let x = a(frame)?;
                let y = b(frame)?;
                let r = match kind {
                    Prim::Atan2(_) => x.as_float_lossy().atan2(y.as_float_lossy()),
                    Prim::Pow(_) => x.as_float_lossy().powf(y.as_float_lossy()),
                    _ => {
                        let n = y.as_int_lossy();
                        if single {
                            (x.as_float_lossy() as f32).powi(n as i32) as f64
                        } else {
                            x.as_float_lossy().powi(n as i32)
                        }
                    }
                };
                Ok(Value::Float(prims::round_float(r, single)))
            })
        }
        Prim::IntAbs(ity) => {
            let ity = *ity;
            let a = pop();
            Box::new(move |frame| {
                let x = a(frame)?.as_int_lossy();
                if int_value(x, ity) < 0 {
                    prims::int_neg(ity, x)
                        .map(Value::Int)
                        .map_err(|f| f.at(span))
                } else {
                    Ok(Value::Int(x))
                }
            })
        }
        Prim::IntSgn(ity) => {
            let ity = *ity;
            let a = pop();
            Box::new(move |frame| {
                Ok(Value::Int(
                    int_value(a(frame)?.as_int_lossy(), ity).signum() as i64,
                ))
            })
        }
        Prim::Min | Prim::Max => {
            let max = *prim == Prim::Max;
            let less = less_than(&arg_tys[0]);
            let b = pop();
            let a = pop();
            Box::new(move |frame| {
                let x = a(frame)?;
                let y = b(frame)?;
                let lt = less(&x, &y);
                Ok(if lt == max { y } else { x })
            })
        }
        Prim::Ord => {
            let a = pop();
            Box::new(move |frame| Ok(Value::Int(a(frame)?.as_int_lossy() as u8 as i8 as i64)))
        }
        Prim::CharToStr => {
            let a = pop();
            Box::new(move |frame| Ok(Value::str(&[a(frame)?.as_int_lossy() as u8])))
        }
        Prim::CharCase(upper) => {
            let upper = *upper;
            let a = pop();
            Box::new(move |frame| {
                let c = a(frame)?.as_int_lossy() as u8;
                let c = if upper {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                Ok(Value::Int(c as i64))
            })
        }
        Prim::ToLower => {
            let a = pop();
            Box::new(move |frame| match a(frame)? {
                Value::Str(s) => Ok(Value::Str(s.to_ascii_lowercase().into())),
                other => Ok(other),
            })
        }
        Prim::CharIs(class) => {
            let class = *class;
            let a = pop();
            Box::new(move |frame| Ok(Value::bool(char_is(class, a(frame)?.as_int_lossy() as u8))))
        }
        Prim::Strip { left, right, set } => {
            let (left, right) = (*left, *right);
            let cs = if *set { Some(pop()) } else { None };
            let a = pop();
            Box::new(move |frame| {
                let s = str_bytes(a(frame)?);
                let set = match &cs {
                    Some(cs) => str_bytes(cs(frame)?),
                    None => std::sync::Arc::new(b" \t\n\r\x0c\x0b".to_vec()),
                };
                Ok(Value::str(strip(&s, &set, left, right)))
            })
        }
        Prim::StartsWith | Prim::EndsWith => {
            let start = *prim == Prim::StartsWith;
            let char_affix = arg_tys[1] == Type::Char;
            let e = pop();
            let s = pop();
            Box::new(move |frame| {
                let s = str_bytes(s(frame)?);
                let e = e(frame)?;
                let affix: Vec<u8> = if char_affix {
                    vec![e.as_int_lossy() as u8]
                } else {
                    str_bytes(e).to_vec()
                };
                Ok(Value::bool(if start {
                    s.starts_with(&affix)
                } else {
                    s.ends_with(&affix)
                }))
            })
        }
        Prim::StrSearch { how, from } => {
            let how = *how;
            let char_needle = arg_tys[1] == Type::Char;
            let pos = if *from { Some(pop()) } else { None };
            let e = pop();
            let s = pop();
            Box::new(move |frame| {
                let s = s(frame)?;
                let e = e(frame)?;
                let pos = match &pos {
                    Some(p) => Some(p(frame)?),
                    None => None,
                };
                Ok(Value::Int(search_text(
                    how,
                    char_needle,
                    &s,
                    &e,
                    pos.as_ref(),
                )))
            })
        }
        Prim::StrHasChar => {
            let s = pop();
            let c = pop();
            Box::new(move |frame| {
                let c = c(frame)?.as_int_lossy() as u8;
                Ok(Value::bool(str_bytes(s(frame)?).contains(&c)))
            })
        }
        Prim::Format => {
            // The text was validated by the checker; it is read once, here.
            let ExprKind::Const(Const::Str(text)) = &args[0].kind else {
                return None;
            };
            let spec = crate::core::printf::parse(text).ok()?;
            let n = spec.conversions().count();
            let shape = Shape::of(&arg_tys[1]);
            let a = pop();
            Box::new(move |frame| {
                let v = a(frame)?;
                let values: Vec<Value> = match (n, v) {
                    (0, _) => Vec::new(),
                    (1, v) => vec![v],
                    (_, Value::Tuple(items)) => items.to_vec(),
                    (_, Value::Array(view)) => match &shape {
                        Some(shape) => (0..shape.len_of(&view))
                            .map(|i| shape.element(&view, i))
                            .collect(),
                        None => Vec::new(),
                    },
                    (_, other) => vec![other],
                };
                Ok(Value::str(&super::printf::format(&spec, &values)))
            })
        }
        Prim::Mem | Prim::ArrayHas => {
            let array_first = *prim == Prim::Mem;
            let a = pop();
            let x = pop();
            let shape = Shape::of(&arg_tys[1])?;
            let equal = (!array_first).then(|| equal_to(&arg_tys[0]));
            Box::new(move |frame| {
                let x = x(frame)?;
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::bool(false));
                };
                for i in 0..shape.len_of(&view) {
                    let v = shape.element(&view, i);
                    let hit = match &equal {
                        Some(eq) => eq(&v, &x),
                        None => apply_one(frame.rt, &x, v, span)?.truthy(),
                    };
                    if hit {
                        return Ok(Value::bool(true));
                    }
                }
                Ok(Value::bool(false))
            })
        }
        Prim::MemRel => {
            let shape = Shape::of(&arg_tys[1])?;
            let e = pop();
            let a = pop();
            let r = pop();
            Box::new(move |frame| {
                let r = r(frame)?;
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::bool(false));
                };
                let e = e(frame)?;
                for i in 0..shape.len_of(&view) {
                    let pair = Value::Tuple(vec![shape.element(&view, i), e.clone()].into());
                    if apply_one(frame.rt, &r, pair, span)?.truthy() {
                        return Ok(Value::bool(true));
                    }
                }
                Ok(Value::bool(false))
            })
        }
        Prim::Sort | Prim::SortBy => return Some(sort_code(prim, codes, arg_tys, span)),
        Prim::Subarray => {
            let ExprKind::Const(Const::Int(first)) = args[1].kind else {
                return None;
            };
            let first = first as usize;
            let _ = pop();
            let shape = Shape::of(&arg_tys[0])?;
            let count = Shape::of(result_ty)?.n_elements?;
            let a = pop();
            Box::new(move |frame| match a(frame)? {
                Value::Array(view) => Ok(Value::Array(view.slice(
                    (first * shape.elem_leaves).min(view.len),
                    count * shape.elem_leaves,
                ))),
                other => Ok(other),
            })
        }
        Prim::Slice => {
            let shape = Shape::of(&arg_tys[0])?;
            let bound_ty = |t: &Type| match t {
                Type::Int(ity) => *ity,
                _ => crate::types::ty::IntTy::Long,
            };
            let (from_ty, to_ty) = (bound_ty(&arg_tys[1]), bound_ty(&arg_tys[2]));
            let to = pop();
            let from = pop();
            let a = pop();
            Box::new(move |frame| {
                let array = a(frame)?;
                let from = int_value(from(frame)?.as_int_lossy(), from_ty);
                let to = int_value(to(frame)?.as_int_lossy(), to_ty);
                let Value::Array(view) = array else {
                    return Ok(array);
                };
                let n = shape.len_of(&view) as i128;
                let first = from.clamp(0, n);
                let end = to.clamp(first, n);
                let leaves = shape.elem_leaves;
                Ok(Value::Array(view.slice(
                    first as usize * leaves,
                    (end - first) as usize * leaves,
                )))
            })
        }
        Prim::FWrite(newline) => {
            let newline = *newline;
            let ty = arg_tys[1].clone();
            let x = pop();
            let f = pop();
            let min_bytes = super::format::min_text_bytes(&ty);
            Box::new(move |frame| {
                let stream = f(frame)?;
                let value = x(frame)?;
                super::format::check_text_size(min_bytes, &ty, &frame.rt.limits)
                    .map_err(|f| f.at(span))?;
                let mut text = super::format::str_value_bytes(&value, &ty);
                if newline {
                    text.push(b'\n');
                }
                write_stream(frame.rt, &stream, &text, span)
            })
        }
        Prim::LoadNpy
        | Prim::SaveNpy
        | Prim::LoadNpz
        | Prim::SaveNpz
        | Prim::SavePicture(_)
        | Prim::LoadCsv(_)
        | Prim::SaveCsv(_) => return super::data::compile(prim, args, codes, result_ty, span),
        Prim::FEndl => {
            let f = pop();
            Box::new(move |frame| {
                let stream = f(frame)?;
                write_stream(frame.rt, &stream, b"\n", span)
            })
        }
        Prim::World(op) => super::world::compile(*op, codes, span),
        Prim::Parse(double) => super::world::compile_parse(*double, codes, span),
        Prim::Lines | Prim::Split => super::world::compile_pieces(prim, codes, result_ty, span),
        Prim::RandomFill(normal) => {
            super::world::compile_random_fill(*normal, codes, result_ty, span)
        }
        _ => return None,
    })
}

/// Write to the output file `stream` (a handle of the world's file table).
fn write_stream(
    rt: &super::Runtime<'_>,
    stream: &Value,
    text: &[u8],
    span: Span,
) -> Result<Value, Ctrl> {
    let handle = stream.as_int_lossy();
    rt.world
        .borrow_mut()
        .write(handle, rt, text, span)
        .map_err(|fault| fault.at(span))?;
    Ok(Value::Unit)
}

/// `stl_find (s, e)` and its family on the evaluator's values: the string `s`, the needle `e`
/// (a string, or a char when `char_needle`), the position `pos` to search from (by default
/// the start, or the end for the searches backwards); the position found, or -1.
pub(crate) fn search_text(
    how: StrSearch,
    char_needle: bool,
    s: &Value,
    e: &Value,
    pos: Option<&Value>,
) -> i64 {
    let byte = [e.as_int_lossy() as u8];
    let needle: &[u8] = match (char_needle, e) {
        (true, _) => &byte,
        (false, Value::Str(t)) => t,
        (false, _) => b"",
    };
    // A negative position is C++'s conversion to a huge size_t.
    let pos = match pos {
        Some(p) => usize::try_from(p.as_int_lossy()).unwrap_or(usize::MAX),
        None => match how {
            StrSearch::Find | StrSearch::FirstOf(_) => 0,
            StrSearch::RFind | StrSearch::LastOf(_) => usize::MAX,
        },
    };
    let s: &[u8] = match s {
        Value::Str(t) => t,
        _ => b"",
    };
    str_search(how, s, needle, pos).map_or(-1, |i| i as i64)
}

/// `std::string`'s searches of `e` in `s` from `pos`, as C++ defines them (`None` is npos).
fn str_search(how: StrSearch, s: &[u8], e: &[u8], pos: usize) -> Option<usize> {
    let n = s.len();
    match how {
        // An empty needle is found where the search starts, and a one-byte needle by a scan
        // for the byte; `starts_with` compares through `memcmp` (see `prims::compare_text` for
        // what that costs with an empty needle).
        StrSearch::Find => {
            if pos > n || e.len() > n - pos {
                return None;
            }
            match e {
                [] => Some(pos),
                [byte] => s[pos..].iter().position(|b| b == byte).map(|i| pos + i),
                _ => (pos..=n - e.len()).find(|&i| s[i..].starts_with(e)),
            }
        }
        StrSearch::RFind => {
            if e.len() > n {
                return None;
            }
            let last = pos.min(n - e.len());
            match e {
                [] => Some(last),
                [byte] => s[..=last].iter().rposition(|b| b == byte),
                _ => (0..=last).rev().find(|&i| s[i..].starts_with(e)),
            }
        }
        StrSearch::FirstOf(inside) => (pos.min(n)..n).find(|&i| e.contains(&s[i]) == inside),
        StrSearch::LastOf(inside) => {
            if n == 0 {
                return None;
            }
            (0..=pos.min(n - 1))
                .rev()
                .find(|&i| e.contains(&s[i]) == inside)
        }
    }
}

fn str_bytes(v: Value) -> super::value::Text {
    match v {
        Value::Str(s) => s,
        _ => std::sync::Arc::new(Vec::new()),
    }
}

pub(crate) fn math(f: MathFn, x: f64) -> f64 {
    match f {
        MathFn::Sqrt => x.sqrt(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tan => x.tan(),
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Tanh => x.tanh(),
        MathFn::Exp => x.exp(),
        MathFn::Log => x.ln(),
        MathFn::Log10 => x.log10(),
        MathFn::Ceil => x.ceil(),
        MathFn::Floor => x.floor(),
        MathFn::Trunc => x.trunc(),
        MathFn::Abs => x.abs(),
    }
}

/// C's `<ctype.h>` classes in the "C" locale; bytes above 127 are in none.
pub fn char_is(class: CharClass, c: u8) -> bool {
    match class {
        CharClass::Upper => c.is_ascii_uppercase(),
        CharClass::Lower => c.is_ascii_lowercase(),
        CharClass::Alpha => c.is_ascii_alphabetic(),
        CharClass::Digit => c.is_ascii_digit(),
        CharClass::Alnum => c.is_ascii_alphanumeric(),
        CharClass::XDigit => c.is_ascii_hexdigit(),
        CharClass::Space => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        CharClass::Blank => matches!(c, b' ' | b'\t'),
        CharClass::Cntrl => c < 0x20 || c == 0x7f,
        CharClass::Print => (0x20..0x7f).contains(&c),
        CharClass::Punct => c.is_ascii_punctuation(),
    }
}

/// `s` without its leading (`left`) and trailing (`right`) bytes found in `set`.
pub fn strip<'s>(s: &'s [u8], set: &[u8], left: bool, right: bool) -> &'s [u8] {
    let mut from = 0;
    let mut to = s.len();
    if left {
        while from < to && set.contains(&s[from]) {
            from += 1;
        }
    }
    if right {
        while to > from && set.contains(&s[to - 1]) {
            to -= 1;
        }
    }
    &s[from..to]
}

/// The order of `Prim::Compare` on values of type `ty`, outside floats: compact sums by their
/// summand tag (as `compare_code`, after Felix), everything else structurally.
fn ordering(ty: &Type) -> prims::Comparator {
    if let (Type::CSum(_), Some(layout)) = (ty, SumLayout::of(ty)) {
        return std::sync::Arc::new(move |x, y| layout.split(x).0.cmp(&layout.split(y).0));
    }
    prims::comparator(ty)
}

/// `x == y` for values of type `ty`, as `Prim::Compare(Eq)` decides it (IEEE for floats).
fn equal_to(ty: &Type) -> Less {
    match ty {
        Type::Double | Type::Float => Box::new(|x, y| x.as_float_lossy() == y.as_float_lossy()),
        _ => {
            let compare = ordering(ty);
            Box::new(move |x, y| compare(x, y) == Ordering::Equal)
        }
    }
}

/// A test on two values (a strict order, or an equality).
pub(crate) type Less = Box<dyn Fn(&Value, &Value) -> bool + Send + Sync>;

/// `x < y` for values of type `ty`, as `Prim::Compare(Lt)` decides it (IEEE for floats).
pub(crate) fn less_than(ty: &Type) -> Less {
    match ty {
        Type::Double | Type::Float => Box::new(|x, y| x.as_float_lossy() < y.as_float_lossy()),
        _ => {
            let compare = ordering(ty);
            Box::new(move |x, y| compare(x, y) == Ordering::Less)
        }
    }
}

/// A stable merge sort with a fallible `less` (a user's comparison may fail or be
/// inconsistent; the sort still ends, with some permutation of the elements). Ctrl-C is
/// polled every `POLL_INTERVAL` elements moved; when it was pressed the sort stops with
/// `interrupted()` (the elements are then in some permutation).
pub fn merge_sort<T: Clone, E>(
    items: &mut Vec<T>,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, E>,
    interrupted: &dyn Fn() -> E,
) -> Result<(), E> {
    let n = items.len();
    let mut width = 1;
    let mut buffer: Vec<T> = Vec::with_capacity(n);
    while width < n {
        buffer.clear();
        let mut next_poll = 0;
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            while i < mid && j < end {
                if buffer.len() >= next_poll {
                    if crate::interrupt::kernel_poll() {
                        return Err(interrupted());
                    }
                    next_poll = buffer.len() + POLL_INTERVAL;
                }
                // Take from the right only when strictly less: stable.
                if less(&items[j], &items[i])? {
                    buffer.push(items[j].clone());
                    j += 1;
                } else {
                    buffer.push(items[i].clone());
                    i += 1;
                }
            }
            for block in items[i..mid]
                .chunks(POLL_INTERVAL)
                .chain(items[j..end].chunks(POLL_INTERVAL))
            {
                if block.len() == POLL_INTERVAL && crate::interrupt::kernel_poll() {
                    return Err(interrupted());
                }
                buffer.extend_from_slice(block);
            }
            start = end;
        }
        std::mem::swap(items, &mut buffer);
        width *= 2;
    }
    Ok(())
}

/// Numbers per block `sort_codes` sorts with one call of the standard sort (a few
/// tens of milliseconds: the longest stretch between two polls of Ctrl-C).
const SORT_BLOCK: usize = 1 << 20;

/// Sort numbers by `key`, stably: blocks of `SORT_BLOCK` numbers sorted in place (on rayon for
/// large arrays), then merged pairwise, wider and wider. Ctrl-C is polled before each block
/// and every `POLL_INTERVAL` merged numbers (R0012). The key is an integer code's order
/// (signed, unsigned or as a `char`), a floating value's order key or a string's
/// (`TextKey`), so the result is the stable sort by it, whatever the thread count.
fn sort_codes<T: Copy + Default + Send + Sync, K: Ord>(
    items: &mut Vec<T>,
    key: impl Fn(T) -> K + Sync,
) -> Result<(), Fault> {
    sort_codes_in_blocks(items, SORT_BLOCK, key)
}

/// `sort_codes` with blocks of `block` codes.
fn sort_codes_in_blocks<T: Copy + Default + Send + Sync, K: Ord>(
    items: &mut Vec<T>,
    block: usize,
    key: impl Fn(T) -> K + Sync,
) -> Result<(), Fault> {
    let n = items.len();
    let parallel = n >= PARALLEL_THRESHOLD && thread_count() > 1;
    let sort_block = |codes: &mut [T]| -> Result<(), Fault> {
        poll_interrupt()?;
        codes.sort_by_key(|&x| key(x));
        Ok(())
    };
    if parallel {
        items.par_chunks_mut(block).try_for_each(sort_block)?;
    } else {
        items.chunks_mut(block).try_for_each(sort_block)?;
    }
    if n <= block {
        return Ok(());
    }
    let mut buffer = super::array::zeroed::<T>(n);
    let mut width = block;
    while width < n {
        let merge_pair = |(pair, out): (&[T], &mut [T])| -> Result<(), Fault> {
            let (left, right) = pair.split_at(width.min(pair.len()));
            merge_codes(left, right, out, &key)
        };
        if parallel {
            items
                .par_chunks(2 * width)
                .zip(buffer.par_chunks_mut(2 * width))
                .try_for_each(merge_pair)?;
        } else {
            items
                .chunks(2 * width)
                .zip(buffer.chunks_mut(2 * width))
                .try_for_each(merge_pair)?;
        }
        std::mem::swap(items, &mut buffer);
        width *= 2;
    }
    Ok(())
}

/// Merge two runs sorted by `key` into `out` (their total length), the left one first among
/// equal keys, polling Ctrl-C every `POLL_INTERVAL` codes.
fn merge_codes<T: Copy, K: Ord>(
    left: &[T],
    right: &[T],
    out: &mut [T],
    key: &impl Fn(T) -> K,
) -> Result<(), Fault> {
    let (mut i, mut j) = (0, 0);
    for block in out.chunks_mut(POLL_INTERVAL) {
        poll_interrupt()?;
        for slot in block {
            // From the right only when strictly less: stable.
            *slot = match (left.get(i), right.get(j)) {
                (Some(&l), Some(&r)) if key(r) < key(l) => {
                    j += 1;
                    r
                }
                (Some(&l), _) => {
                    i += 1;
                    l
                }
                (None, Some(&r)) => {
                    j += 1;
                    r
                }
                (None, None) => break,
            };
        }
    }
    Ok(())
}

/// A string's bytes as a sort key, in the order of `<` on strings (`prims::compare_text`,
/// bytes compared in order, a proper prefix first). Its first eight bytes, zero-padded and
/// read big-endian, order two keys whenever they differ (a shorter text pads with zeros, which
/// sort before any byte it could be followed by), so most comparisons of short or distinct
/// texts are one integer comparison; equal prefixes compare the lengths or the bytes after.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct TextKey<'a> {
    prefix: u64,
    bytes: &'a [u8],
}

impl<'a> TextKey<'a> {
    fn of(v: &'a Value) -> Self {
        let bytes: &[u8] = match v {
            Value::Str(s) => s,
            _ => &[],
        };
        let mut first = [0u8; 8];
        let n = bytes.len().min(8);
        first[..n].copy_from_slice(&bytes[..n]);
        TextKey {
            prefix: u64::from_be_bytes(first),
            bytes,
        }
    }
}

impl Ord for TextKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        // With equal prefixes, a text of at most eight bytes is the other's first bytes (its
        // padding zeros theirs too): the shorter is first. Longer texts compare the rest.
        self.prefix.cmp(&other.prefix).then_with(|| {
            match (self.bytes.get(8..), other.bytes.get(8..)) {
                (Some(a), Some(b)) => prims::compare_text(a, b),
                _ => self.bytes.len().cmp(&other.bytes.len()),
            }
        })
    }
}

impl PartialOrd for TextKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `sort a` and `sort cmp a`: the elements in a new buffer of the same type. Integer and
/// floating elements are sorted unboxed; floating ones by their order key (`<`, with every
/// NaN after every number, `sample_sort::float_key`), stably.
pub(crate) fn sort_code(
    prim: &Prim,
    mut codes: Vec<ExprCode>,
    arg_tys: &[Type],
    span: Span,
) -> ExprCode {
    let by = *prim == Prim::SortBy;
    let array_ty = arg_tys[if by { 1 } else { 0 }].clone();
    let shape = Shape::of(&array_ty);
    let elem = match &array_ty {
        Type::Array(e, _) => (**e).clone(),
        _ => Type::UNIT,
    };
    let a = super::compile::admitting_copy(codes.pop().expect("the array"), span);
    let f = codes.pop();
    if !by {
        match &elem {
            Type::Int(_) | Type::Char => {
                let unsigned64 = matches!(elem, Type::Int(ity) if prims::is_unsigned_64(ity));
                // `char` is signed.
                let char = elem == Type::Char;
                return Box::new(move |frame| {
                    let Value::Array(view) = a(frame)? else {
                        return Ok(Value::Unit);
                    };
                    let Buffer::Scalars(v) = &*view.buf else {
                        return Ok(Value::Array(view));
                    };
                    let range = view.start..view.start + view.len;
                    let sorted: Result<Scalars, Fault> = scalars::each!(v, v => {
                        let mut items = v[range].to_vec();
                        if unsigned64 {
                            sort_codes(&mut items, |x| x.to_i64() as u64)
                        } else if char {
                            sort_codes(&mut items, |x| x.to_i64() as u8 as i8)
                        } else {
                            sort_codes(&mut items, |x| x.to_i64())
                        }
                        .map(|()| items.into())
                    });
                    let sorted = sorted.map_err(|f| f.at(span))?;
                    Ok(Value::Array(ArrayVal::new(Buffer::Scalars(sorted))))
                });
            }
            Type::Double | Type::Float => {
                return Box::new(move |frame| {
                    let Value::Array(view) = a(frame)? else {
                        return Ok(Value::Unit);
                    };
                    let Buffer::Scalars(v) = &*view.buf else {
                        return Ok(Value::Array(view));
                    };
                    let range = view.start..view.start + view.len;
                    let sorted: Result<Scalars, Fault> = scalars::each!(v, v => {
                        let mut items = v[range].to_vec();
                        sort_codes(&mut items, |x| float_key(x.to_f64())).map(|()| items.into())
                    });
                    let sorted = sorted.map_err(|f| f.at(span))?;
                    Ok(Value::Array(ArrayVal::new(Buffer::Scalars(sorted))))
                });
            }
            _ => {}
        }
    }
    let less = (!by).then(|| less_than(&elem));
    let text = elem == Type::String;
    Box::new(move |frame| {
        let cmp = match &f {
            Some(f) => Some(f(frame)?),
            None => None,
        };
        let Value::Array(view) = a(frame)? else {
            return Ok(Value::Unit);
        };
        let Some(shape) = &shape else {
            return Ok(Value::Array(view));
        };
        let n = shape.len_of(&view);
        let mut items: Vec<Value> = (0..n).map(|i| shape.element(&view, i)).collect();
        // The sort moves positions, not values (a value's clone and drop cost two atomic
        // operations, a position nothing).
        let order: Vec<usize> = if text && cmp.is_none() {
            // Strings by their bytes: a total order, so the standard sort in blocks, of the
            // keys with their positions (a comparison reads the key where it is sorted).
            let mut keyed: Vec<(TextKey, usize)> = items.iter().map(TextKey::of).zip(0..).collect();
            sort_codes(&mut keyed, |(key, _)| key).map_err(|f| f.at(span))?;
            keyed.into_iter().map(|(_, i)| i).collect()
        } else {
            let rt = frame.rt;
            let mut compare = |&i: &usize, &j: &usize| -> Result<bool, Ctrl> {
                let (x, y) = (&items[i], &items[j]);
                match (&cmp, &less) {
                    (Some(cmp), _) => Ok(apply(
                        rt,
                        cmp.clone(),
                        [Value::Tuple(vec![x.clone(), y.clone()].into())],
                        span,
                    )?
                    .truthy()),
                    (None, Some(less)) => Ok(less(x, y)),
                    (None, None) => Ok(false),
                }
            };
            let mut order: Vec<usize> = (0..n).collect();
            merge_sort(&mut order, &mut compare, &|| interrupted(span))?;
            order
        };
        let mut builder = LeafBuilder::new(shape.repr);
        for i in order {
            builder.push_element(std::mem::replace(&mut items[i], Value::Unit));
        }
        Ok(Value::Array(builder.finish()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C++'s definitions of `find` and `rfind` taken literally: every start tried.
    fn naive_search(how: StrSearch, s: &[u8], e: &[u8], pos: usize) -> Option<usize> {
        let starts = |i: &usize| *i + e.len() <= s.len() && &s[*i..*i + e.len()] == e;
        match how {
            StrSearch::Find => (pos..=s.len()).find(starts),
            StrSearch::RFind => (0..=pos.min(s.len())).rev().find(starts),
            _ => unreachable!("only the substring searches"),
        }
    }

    proptest::proptest! {
        #[test]
        fn text_keys_order_as_strings_compare(
            a in proptest::collection::vec(0u8..4, 0..14),
            cut in 0usize..14,
            tail in proptest::collection::vec(0u8..2, 0..6),
        ) {
            // `b` shares a prefix of `a` (often its first eight bytes, or all of it).
            let mut b = a[..cut.min(a.len())].to_vec();
            b.extend(tail);
            let (x, y) = (Value::str(&a), Value::str(&b));
            proptest::prop_assert_eq!(
                TextKey::of(&x).cmp(&TextKey::of(&y)),
                prims::compare_text(&a, &b)
            );
        }

        #[test]
        fn searches_agree_with_cpp_definitions(
            s in proptest::collection::vec(0u8..3, 0..12),
            e in proptest::collection::vec(0u8..3, 0..4),
            pos in 0usize..16,
        ) {
            for how in [StrSearch::Find, StrSearch::RFind] {
                proptest::prop_assert_eq!(
                    str_search(how, &s, &e, pos),
                    naive_search(how, &s, &e, pos),
                    "{:?} of {:?} in {:?} from {}", how, e, s, pos
                );
            }
        }
    }

    #[test]
    fn strip_and_classes() {
        assert_eq!(strip(b"  ab \n", b" \n", true, true), b"ab");
        assert_eq!(strip(b"  ab \n", b" \n", true, false), b"ab \n");
        assert_eq!(strip(b"xxx", b"x", true, true), b"");
        assert_eq!(strip(b"abc", b"", true, true), b"abc");
        assert!(char_is(CharClass::Punct, b'!') && !char_is(CharClass::Punct, b'a'));
        assert!(char_is(CharClass::Space, 0x0b) && !char_is(CharClass::Blank, b'\n'));
        assert!(!char_is(CharClass::Print, 0x7f) && char_is(CharClass::Cntrl, 0x7f));
        assert!(!char_is(CharClass::Alpha, 0xe9));
    }

    /// Pseudo-random codes (a linear congruential generator), `modulus` distinct values.
    fn codes(n: usize, modulus: i64, seed: u64) -> Vec<i64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) as i64).rem_euclid(modulus) - modulus / 3
            })
            .collect()
    }

    #[test]
    fn sorting_codes_in_blocks_agrees_with_the_standard_sort() {
        let block = POLL_INTERVAL;
        for (k, n) in [
            0,
            1,
            2,
            1000,
            block - 1,
            block,
            block + 1,
            3 * block + 7,
            300_007,
        ]
        .into_iter()
        .enumerate()
        {
            let values = codes(n, if k % 2 == 0 { 1000 } else { i64::MAX / 2 }, k as u64);
            let mut signed = values.clone();
            sort_codes(&mut signed, |x| x).unwrap();
            let mut small_blocks = values.clone();
            sort_codes_in_blocks(&mut small_blocks, 1000, |x| x).unwrap();
            let mut expected = values.clone();
            expected.sort();
            assert_eq!(signed, expected, "signed, n = {n}");
            assert_eq!(small_blocks, expected, "signed in blocks of 1000, n = {n}");
            let mut unsigned = values.clone();
            sort_codes_in_blocks(&mut unsigned, block, |x| x as u64).unwrap();
            expected.sort_by_key(|x| *x as u64);
            assert_eq!(unsigned, expected, "unsigned, n = {n}");
            let mut chars: Vec<i64> = values.iter().map(|x| x.rem_euclid(256)).collect();
            let mut expected: Vec<i64> = chars.clone();
            sort_codes_in_blocks(&mut chars, block, |x| x as u8 as i8).unwrap();
            expected.sort_by_key(|x| *x as u8 as i8);
            assert_eq!(chars, expected, "chars, n = {n}");
        }
    }

    #[test]
    fn merge_sort_is_stable() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        merge_sort(
            &mut v,
            &mut |x: &(i32, char), y: &(i32, char)| -> Result<bool, ()> { Ok(x.0 < y.0) },
            &|| (),
        )
        .unwrap();
        assert_eq!(v, vec![(0, 'e'), (1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
    }
}
