//! The runtime's text helpers: what native code calls to concatenate strings (into a new
//! string, or appended in place to a variable's), to render a value as text (`str`, `repr`,
//! `_strr`) and to print one. Each takes its operands where native code keeps them (a frame
//! slot, a global, a kept constant or a stack temporary) and copies none of them; the
//! kernels, limits and messages are the evaluator's own.

use crate::syntax::span::Span;
use crate::types::Type;

use super::super::format as show;
use super::super::prims;
use super::super::value::Value;
use super::super::world;
use super::super::Runtime;
use super::runtime::guarded;

/// A concatenation native code computes: where it is in the source, and for each operand
/// whether it is a string or a scalar rendered as `str` renders it (`str i` in the chain, of
/// that type), written straight into the result.
pub struct Concat {
    pub span: Span,
    pub rendered: Vec<Option<Type>>,
}

thread_local! {
    /// The text of the rendered operands of one concatenation, reused.
    static RENDERED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` on the bytes of the `n` operands at `parts` (`Concat::rendered` says which are
/// scalars to render).
///
/// SAFETY: the caller passes `n` addresses of live values, strings where `rendered` has
/// `None`, scalars of the type it names elsewhere.
unsafe fn with_texts<R>(
    concat: &Concat,
    parts: *const *const Value,
    n: usize,
    f: impl FnOnce(&[&[u8]]) -> R,
) -> R {
    let parts = unsafe { std::slice::from_raw_parts(parts, n) };
    RENDERED.with(|rendered| {
        let mut scratch = rendered.borrow_mut();
        scratch.clear();
        let mut ends = smallvec::SmallVec::<[usize; 8]>::new();
        for (&part, ty) in parts.iter().zip(&concat.rendered) {
            if let Some(ty) = ty {
                show::write_str(&mut scratch, unsafe { &*part }, ty);
            }
            ends.push(scratch.len());
        }
        let mut start = 0;
        let mut texts = smallvec::SmallVec::<[&[u8]; 8]>::new();
        for ((&part, ty), &end) in parts.iter().zip(&concat.rendered).zip(&ends) {
            texts.push(match ty {
                Some(_) => &scratch[start..end],
                None => prims::str_bytes(unsafe { &*part }),
            });
            start = end;
        }
        f(&texts)
    })
}

/// `parts[0] + … + parts[n - 1]`, allocated once at its size, into `out` (which holds a
/// value, replaced only when the result is complete: `out` may be one of the parts). 0: done;
/// 1: failed (R0007, too large).
pub(super) extern "C" fn concat_strings(
    rt: &Runtime<'_>,
    concat: &Concat,
    parts: *const *const Value,
    n: usize,
    out: *mut Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: native code passes `n` operands as `concat` describes, alive.
        let joined = unsafe {
            with_texts(concat, parts, n, |texts| {
                prims::str_concat_all(texts, &rt.limits)
            })
        }
        .map_err(|f| f.at(concat.span))?;
        // SAFETY: `out` is a value native code owns; no part is borrowed past this point.
        unsafe { *out = joined };
        Ok(0)
    })
}

/// `*place = *place + parts[0] + … + parts[n - 1]`: appended in place when the variable's
/// string is not shared (so a loop of appends is linear), else copied once. No part is the
/// variable's own value. 0: done; 1: failed (R0007, too large; the variable unchanged).
pub(super) extern "C" fn append_strings(
    rt: &Runtime<'_>,
    concat: &Concat,
    parts: *const *const Value,
    n: usize,
    place: &mut Value,
) -> u32 {
    guarded(rt, 1, || {
        if let Value::Str(text) = place {
            // SAFETY: as `concat_strings`; the parts are values other than `place`.
            unsafe {
                with_texts(concat, parts, n, |tails| {
                    prims::str_append(text, tails, &rt.limits)
                })
            }
            .map_err(|f| f.at(concat.span))?;
        }
        Ok(0)
    })
}

/// How a value is rendered or printed: its type, the least size of its text (checked against
/// the allocation limit first, as the evaluator does), and where in the source.
pub struct Shown {
    pub ty: Type,
    pub min_bytes: u128,
    pub span: Span,
    /// `str`, `repr` or `_strr`.
    pub render: fn(&Value, &Type) -> Vec<u8>,
    /// For printing: end with a newline (`println`).
    pub newline: bool,
}

impl Shown {
    pub fn new(ty: &Type, span: Span) -> Shown {
        Shown {
            ty: ty.clone(),
            min_bytes: show::min_text_bytes(ty),
            span,
            render: show::str_value_bytes,
            newline: false,
        }
    }

    fn text(&self, rt: &Runtime<'_>, value: &Value) -> Result<Vec<u8>, super::super::Ctrl> {
        show::check_text_size(self.min_bytes, &self.ty, &rt.limits).map_err(|f| f.at(self.span))?;
        Ok((self.render)(value, &self.ty))
    }
}

/// The text of the value at `value` into `out` (which holds a value, replaced). 0: done; 1:
/// failed (R0007).
pub(super) extern "C" fn show_value(
    rt: &Runtime<'_>,
    shown: &Shown,
    value: &Value,
    out: &mut Value,
) -> u32 {
    guarded(rt, 1, || {
        *out = Value::Str(std::sync::Arc::new(shown.text(rt, value)?));
        Ok(0)
    })
}

/// Print the value at `value` as `str` renders it (a string's own bytes, written as they are),
/// then a newline for `println`. 0: done; 1: failed (R0007).
pub(super) extern "C" fn print_value(rt: &Runtime<'_>, shown: &Shown, value: &Value) -> u32 {
    guarded(rt, 1, || {
        match (value, &shown.ty) {
            (Value::Str(text), Type::String) if !shown.newline => rt.write(text),
            _ => {
                let mut text = shown.text(rt, value)?;
                if shown.newline {
                    text.push(b'\n');
                }
                rt.write(&text);
            }
        }
        Ok(0)
    })
}

/// A number read from text: the type read, how, where in the source, and the substring of
/// the text read when it is one (`int (s.[a to b])`, read where `s` lives, never made).
pub struct Parse {
    pub to: Type,
    pub repr: super::Repr,
    /// `parse_int s` or `parse_double s`, which read the whole text or fail (R0014), instead
    /// of a conversion (`int s`, `double s`, any integer or floating type), which reads what it
    /// can.
    pub checked: bool,
    pub span: Span,
    pub slice: Option<Slice>,
}

/// The number `parse` reads from the string `parts[0]` (or its substring, the bounds the
/// integers after it), as the evaluator reads it: its bits; 0 after a fault.
pub(super) extern "C" fn parse_text(
    rt: &Runtime<'_>,
    parse: &Parse,
    parts: *const *const Value,
) -> u64 {
    guarded(rt, 0, || {
        let n = 1 + parse.slice.as_ref().map_or(0, |s| s.bound_tys.len());
        // SAFETY: native code passes the string and one integer value per bound, alive.
        let parts = unsafe { std::slice::from_raw_parts(parts, n) };
        let bytes: &[u8] = match unsafe { &*parts[0] } {
            Value::Str(bytes) => bytes,
            _ => b"",
        };
        let bytes = match &parse.slice {
            Some(slice) => &bytes[slice.range(bytes.len(), &parts[1..])],
            None => bytes,
        };
        let number = match (parse.checked, &parse.to) {
            (false, to) => prims::convert_text(bytes, to),
            (true, Type::Double) => world::parse_double(bytes).map(Value::Float),
            (true, _) => world::parse_int(bytes).map(Value::Int),
        };
        let number = number.map_err(|f| f.at(parse.span))?;
        Ok(parse.repr.unboxed(&number))
    })
}

/// A search in a string (`stl_find (s, e)` and its family): which, whether the needle is a
/// char, whether a position to search from is given.
pub struct Search {
    pub how: crate::core::ir::StrSearch,
    pub char_needle: bool,
    pub from: bool,
}

/// The position `search` finds in the string `parts[0]` of the needle `parts[1]`, from the
/// position `parts[2]` when it has one, as the evaluator finds it; -1 for none.
pub(super) extern "C" fn search_text(
    rt: &Runtime<'_>,
    search: &Search,
    parts: *const *const Value,
) -> i64 {
    guarded(rt, -1, || {
        // SAFETY: native code passes the string, the needle and the position if any, alive.
        let parts = unsafe { std::slice::from_raw_parts(parts, 2 + search.from as usize) };
        let (s, e) = unsafe { (&*parts[0], &*parts[1]) };
        let pos = parts.get(2).map(|&p| unsafe { &*p });
        Ok(super::super::library::search_text(
            search.how,
            search.char_needle,
            s,
            e,
            pos,
        ))
    })
}

/// A substring (`s.[a to b]`, `s.[a to]`, `s.[to b]`): which bounds it has and their types.
pub struct Slice {
    pub from: bool,
    pub to: bool,
    pub bound_tys: Vec<crate::types::IntTy>,
}

impl Slice {
    /// The bytes it takes of a string of `len` bytes, its bounds the integer values at
    /// `bounds`, as the evaluator's kernel takes them.
    fn range(&self, len: usize, bounds: &[*const Value]) -> std::ops::Range<usize> {
        let mut bounds = bounds
            .iter()
            .zip(&self.bound_tys)
            // SAFETY: native code passes one live integer value per bound.
            .map(|(&v, &ity)| prims::int_value(unsafe { &*v }.as_int_lossy(), ity));
        let from = if self.from { bounds.next() } else { None };
        let to = if self.to { bounds.next() } else { None };
        prims::slice_range(len, from, to)
    }
}

/// The substring `slice` takes of the string `parts[0]`, its bounds the integers after it, as
/// the evaluator's kernel takes it, into `out` (which holds a value, replaced). 0: done.
pub(super) extern "C" fn slice_text(
    rt: &Runtime<'_>,
    slice: &Slice,
    parts: *const *const Value,
    out: *mut Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: native code passes the string and one integer value per bound, alive.
        let parts = unsafe { std::slice::from_raw_parts(parts, 1 + slice.bound_tys.len()) };
        let substring = match unsafe { &*parts[0] } {
            Value::Str(text) => Value::str(&text[slice.range(text.len(), &parts[1..])]),
            _ => Value::str(b""),
        };
        // SAFETY: `out` is a value native code owns, none of the parts.
        unsafe { *out = substring };
        Ok(0)
    })
}

/// A file operation native code calls the world for: `writeln` rather than `write`, and where
/// in the source.
pub struct FileOp {
    pub newline: bool,
    pub span: Span,
}

/// `write (f, s)` or `writeln (f, s)` of the handle `parts[0]` and the string `parts[1]`, as
/// the evaluator writes them. 0: done; 1: failed.
pub(super) extern "C" fn write_text(
    rt: &Runtime<'_>,
    op: &FileOp,
    parts: *const *const Value,
) -> u32 {
    guarded(rt, 1, || {
        // SAFETY: native code passes the handle and the string, alive.
        let parts = unsafe { std::slice::from_raw_parts(parts, 2) };
        let f = unsafe { &*parts[0] }.as_int_lossy();
        let text: &[u8] = match unsafe { &*parts[1] } {
            Value::Str(text) => text,
            _ => b"",
        };
        world::write_text(rt, f, text, op.newline, op.span)?;
        Ok(0)
    })
}

/// `readln f` of the handle `f` into `out` (which holds a value, replaced). 0: done; 1:
/// failed.
pub(super) extern "C" fn read_line(
    rt: &Runtime<'_>,
    op: &FileOp,
    f: &Value,
    out: *mut Value,
) -> u32 {
    guarded(rt, 1, || {
        let line = world::read_line(rt, f.as_int_lossy(), op.span)?;
        // SAFETY: `out` is a value native code owns.
        unsafe { *out = line };
        Ok(0)
    })
}
