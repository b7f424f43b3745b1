//! Array storage kernels: zero values, building flat leaf buffers, element access, copy-on-write
//! stores, reshapes (flatten to leaves and rebuild), concatenation and transposition.

use std::sync::Arc;

use num_traits::ToPrimitive;

use crate::limits::Limits;
use crate::types::ty::NominalBody;
use crate::types::Type;

use super::compact::{value_from_u64, CodeRepr};
use super::error::{Fault, TOO_LARGE};
use super::scalars;
use super::value::{
    leaf_count, leaf_repr, leaf_type, ArrayVal, Buffer, Columns, LeafRepr, Leaves, Scalars, Value,
};

/// Arrays with more leaves than this are R0007 before any allocation is tried.
pub const MAX_LEAVES: usize = 1 << 40;

/// How an array type's elements map onto leaves; computed once per type when compiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Leaves per element.
    pub elem_leaves: usize,
    /// Is the element itself an array (a sub-view) rather than one leaf?
    pub elem_is_array: bool,
    /// The buffer kind of the leaves.
    pub repr: LeafRepr,
    /// The number of elements (`size` of the index), when it fits in memory.
    pub n_elements: Option<usize>,
}

impl Shape {
    /// The shape of an array type `E ^ I`; `None` for other types.
    pub fn of(ty: &Type) -> Option<Shape> {
        let Type::Array(elem, index) = ty else {
            return None;
        };
        Some(Shape {
            elem_leaves: leaf_count(elem).unwrap_or(usize::MAX),
            elem_is_array: matches!(**elem, Type::Array(..)),
            repr: leaf_repr(leaf_type(elem)),
            n_elements: crate::types::size::size_of(index).and_then(|n| n.to_usize()),
        })
    }

    /// The shape of an array type, or of `unit`, the normal form of every array type without
    /// elements (`T ^ 0` normalises to `unit`): a generic array function instantiated at an empty index type
    /// sees `unit` (its value `()` has no elements).
    pub fn of_array_or_unit(ty: &Type) -> Option<Shape> {
        Shape::of(ty).or_else(|| {
            ty.is_unit().then_some(Shape {
                elem_leaves: 1,
                elem_is_array: false,
                repr: LeafRepr::Boxed,
                n_elements: Some(0),
            })
        })
    }

    /// The element at position `i` (already checked to be in range).
    #[inline]
    pub fn element(&self, array: &ArrayVal, i: usize) -> Value {
        if self.elem_is_array {
            Value::Array(array.slice(i * self.elem_leaves, self.elem_leaves))
        } else {
            array.leaf(i)
        }
    }

    /// The number of elements of an array value of this shape.
    #[inline]
    pub fn len_of(&self, array: &ArrayVal) -> usize {
        array
            .len
            .checked_div(self.elem_leaves)
            .unwrap_or(self.n_elements.unwrap_or(0))
    }
}

/// Check that `leaves` leaves can be allocated (R0007 otherwise).
pub fn check_allocation(leaves: Option<usize>, ty: &Type, limits: &Limits) -> Result<usize, Fault> {
    match leaves {
        Some(n) => {
            within_limit(n, ty, limits)?;
            Ok(n)
        }
        None => Err(Fault::new(
            TOO_LARGE,
            format!("array of type {ty} is too large to allocate"),
        )),
    }
}

/// The bytes one leaf of an array of type `ty` takes (8 for a boxed leaf, as the budget has
/// always counted it).
fn leaf_bytes(ty: &Type) -> u128 {
    match leaf_repr(leaf_type(ty)) {
        LeafRepr::Scalar(kind) => kind.bytes() as u128,
        LeafRepr::Columns(layout) => layout.kinds.iter().map(|k| k.bytes() as u128).sum(),
        LeafRepr::Boxed => 8,
    }
}

/// R0007 unless `n` leaves of an array of type `ty` fit in `--max-alloc` and the memory
/// budget, and the system grants them (`Limits::check_allocation`).
fn within_limit(n: usize, ty: &Type, limits: &Limits) -> Result<(), Fault> {
    let bytes = n as u128 * leaf_bytes(ty);
    let limit = u128::from(limits.max_alloc_bytes);
    let refusal = if n > MAX_LEAVES {
        Err(crate::limits::Refusal::OverLimit(limit as u64))
    } else {
        limits.check_allocation(bytes)
    };
    refusal.map_err(|refusal| {
        Fault::new(
            TOO_LARGE,
            format!(
                "array of type {ty} is too large to allocate: {}",
                refusal.describe(bytes)
            ),
        )
    })
}

/// R0007 unless a fresh copy of `array` can be allocated: the output or working copy of a
/// kernel that builds an array as large as its operand (`map`, `rev`, `sort`, `transpose`),
/// checked before the kernel allocates it infallibly.
pub fn admit_copy(array: &ArrayVal, limits: &Limits) -> Result<(), Fault> {
    let leaf_bytes = match &*array.buf {
        Buffer::Scalars(v) => v.kind().bytes(),
        Buffer::Boxed(_) => std::mem::size_of::<Value>(),
        Buffer::Columns(columns) => columns.layout.kinds.iter().map(|k| k.bytes()).sum(),
    };
    let bytes = array.len as u128 * leaf_bytes as u128;
    limits.check_allocation(bytes).map_err(|refusal| {
        Fault::new(
            TOO_LARGE,
            format!("array too large to allocate: {}", refusal.describe(bytes)),
        )
    })
}

fn too_large(ty: &Type, n: usize) -> Fault {
    Fault::new(
        TOO_LARGE,
        format!("array of type {ty} ({n} leaves) is too large to allocate"),
    )
}

/// Buffers at least this large ask the kernel for transparent huge pages before they are
/// first touched: first touch of fresh memory dominates filling a large array, and huge pages
/// make it several times cheaper (see the baselines' notes).
const HUGE_PAGE_THRESHOLD_BYTES: usize = 4 << 20;

/// … and at most this large: for buffers of hundreds of MiB the kernel often has to compact
/// memory to find the huge pages, which costs more than it saves (K1's 400 MB fill became
/// slower and erratic with the advice; K2, K3, K7's 30–80 MB buffers 2–3x faster).
const HUGE_PAGE_LIMIT_BYTES: usize = 256 << 20;

/// `n` zeros (of an integer or float type) in a fresh allocation, advised to use huge pages
/// when it is large. The memory is untouched until written (a zeroed allocation).
pub fn zeroed<T: Copy + Default>(n: usize) -> Vec<T> {
    let v = vec![T::default(); n];
    advise_huge_pages(&v);
    v
}

/// Advise the kernel to back a large buffer with transparent huge pages (Linux; a no-op
/// elsewhere and for small buffers; failure only loses the speed-up).
pub fn advise_huge_pages<T>(v: &[T]) {
    let bytes = std::mem::size_of_val(v);
    if !(HUGE_PAGE_THRESHOLD_BYTES..=HUGE_PAGE_LIMIT_BYTES).contains(&bytes) {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        // madvise needs a page-aligned start: advise the whole pages inside the buffer.
        let page = 4096usize;
        let start = v.as_ptr() as usize;
        let aligned = (start + page - 1) & !(page - 1);
        let end = start + bytes;
        if end > aligned {
            // SAFETY: the range lies inside the live allocation of `v`; MADV_HUGEPAGE only
            // changes how the kernel backs those pages, never their contents.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
}

/// A buffer of `n` copies of `leaf`, with the allocation tried first (R0007 on failure).
/// Integer and float zeros come from a zeroed allocation the system can serve lazily.
pub fn filled_buffer(
    repr: LeafRepr,
    leaf: &Value,
    n: usize,
    ty: &Type,
    limits: &Limits,
) -> Result<Buffer, Fault> {
    within_limit(n, ty, limits)?;
    match repr {
        LeafRepr::Scalar(kind) => Scalars::try_filled(kind, leaf, n)
            .map(Buffer::Scalars)
            .ok_or_else(|| too_large(ty, n)),
        LeafRepr::Boxed => {
            let mut values = Leaves::new();
            values.try_reserve_exact(n).map_err(|_| too_large(ty, n))?;
            values.resize(n, leaf.clone());
            Ok(Buffer::Boxed(values))
        }
        LeafRepr::Columns(layout) => {
            let mut columns: Vec<Scalars> = layout.kinds.iter().map(|&k| Scalars::new(k)).collect();
            let mut result = Ok(());
            layout.scatter(leaf, &mut |c, part| {
                if result.is_ok() {
                    match Scalars::try_filled(layout.kinds[c], part, n) {
                        Some(column) => columns[c] = column,
                        None => result = Err(too_large(ty, n)),
                    }
                }
            });
            result?;
            Ok(Buffer::Columns(Columns { layout, columns }))
        }
    }
}

/// The zero of a type (what a `var` without an initialiser holds). Types without a zero (functions, variants) give `Unit`; the
/// checker never asks for them.
/// Values are immutable (copy-on-write), so the zero of a part shared by the type (a typedef
/// used twice) is built once and shared: a type whose expanded tree is exponential in its
/// definition gets a zero of the size of its definition.
pub fn zero_value(ty: &Type, limits: &Limits) -> Result<Value, Fault> {
    zero_value_shared(ty, limits, &mut std::collections::HashMap::new())
}

fn zero_value_shared(
    ty: &Type,
    limits: &Limits,
    memo: &mut std::collections::HashMap<(u8, usize, usize), Value>,
) -> Result<Value, Fault> {
    // A struct's zero is built once and shared, like a typedef's: a chain of structs each
    // holding the previous one twice is linear in the chain, not in its leaves.
    let key = match ty {
        Type::Nominal(def) => Some((u8::MAX, def.id as usize, 0)),
        _ => ty.node_key().filter(|_| ty.tree_size() > 8),
    };
    if let Some(known) = key.and_then(|key| memo.get(&key)) {
        return Ok(known.clone());
    }
    let zero = zero_value_of(ty, limits, memo)?;
    if let Some(key) = key {
        memo.insert(key, zero.clone());
    }
    Ok(zero)
}

fn zero_value_of(
    ty: &Type,
    limits: &Limits,
    memo: &mut std::collections::HashMap<(u8, usize, usize), Value>,
) -> Result<Value, Fault> {
    let mut zero_value = |t: &Type| zero_value_shared(t, limits, memo);
    Ok(match ty {
        Type::Int(_) | Type::Char => Value::Int(0),
        Type::Double | Type::Float => Value::Float(0.0),
        Type::String => Value::str(b""),
        Type::Natural => Value::Big(Arc::new(num_bigint::BigUint::default())),
        Type::Tuple(components) | Type::Record(_, components) => Value::Tuple(
            components
                .iter()
                .map(&mut zero_value)
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        ),
        Type::Nominal(def) => match def.body() {
            Some(NominalBody::Struct(fields)) => Value::Tuple(
                fields
                    .iter()
                    .map(|(_, t)| zero_value(t))
                    .collect::<Result<Vec<_>, _>>()?
                    .into(),
            ),
            _ => Value::Unit,
        },
        Type::Array(..) => {
            let leaf = leaf_type(ty);
            let n = check_allocation(leaf_count(ty), ty, limits)?;
            let zero = zero_value(leaf)?;
            Value::Array(ArrayVal::new(filled_buffer(
                leaf_repr(leaf),
                &zero,
                n,
                ty,
                limits,
            )?))
        }
        t if crate::types::kind::is_compact(t) => value_from_u64(0, CodeRepr::of(t)),
        _ => Value::Unit,
    })
}

/// Accumulates the leaves of a new buffer.
pub enum LeafBuilder {
    Scalars(Scalars),
    Boxed(Leaves),
    /// One buffer per column.
    Columns(&'static super::value::ColumnLayout, Vec<Scalars>),
}

/// The array of type `ty` whose elements, each one boxed leaf, are `leaves` in order (a
/// literal of strings, variants, lists): one buffer made of them, no builder. R0007 past the
/// limits, as `LeafBuilder::reserve` checks them.
pub fn boxed_leaves(leaves: Leaves, ty: &Type, limits: &Limits) -> Result<ArrayVal, Fault> {
    within_limit(leaves.len(), ty, limits)?;
    Ok(ArrayVal::new(Buffer::Boxed(leaves)))
}

impl LeafBuilder {
    pub fn new(repr: LeafRepr) -> LeafBuilder {
        match repr {
            LeafRepr::Scalar(kind) => LeafBuilder::Scalars(Scalars::new(kind)),
            LeafRepr::Boxed => LeafBuilder::Boxed(Leaves::new()),
            LeafRepr::Columns(layout) => LeafBuilder::Columns(
                layout,
                layout.kinds.iter().map(|&k| Scalars::new(k)).collect(),
            ),
        }
    }

    /// Reserve room for `n` more leaves; R0007 when that is impossible.
    pub fn reserve(&mut self, n: usize, ty: &Type, limits: &Limits) -> Result<(), Fault> {
        within_limit(n, ty, limits)?;
        let ok = match self {
            LeafBuilder::Scalars(v) => scalars::each!(v, v => v.try_reserve_exact(n).is_ok()),
            LeafBuilder::Boxed(v) => v.try_reserve_exact(n).is_ok(),
            LeafBuilder::Columns(_, columns) => columns
                .iter_mut()
                .all(|c| scalars::each!(c, v => v.try_reserve_exact(n).is_ok())),
        };
        if ok {
            Ok(())
        } else {
            Err(too_large(ty, n))
        }
    }

    /// Room for `n` more leaves when the system grants it, for a copy of an array that exists
    /// already (so within the limits); a refusal only leaves the buffer to grow as it fills.
    fn presize(&mut self, n: usize) {
        match self {
            LeafBuilder::Scalars(v) => scalars::each!(v, v => drop(v.try_reserve_exact(n))),
            LeafBuilder::Boxed(v) => drop(v.try_reserve_exact(n)),
            LeafBuilder::Columns(_, columns) => columns
                .iter_mut()
                .for_each(|c| scalars::each!(c, v => drop(v.try_reserve_exact(n)))),
        }
    }

    /// Append one leaf.
    #[inline]
    pub fn push_leaf(&mut self, leaf: Value) {
        match self {
            LeafBuilder::Scalars(v) => v.push(&leaf),
            LeafBuilder::Boxed(v) => v.push(leaf),
            LeafBuilder::Columns(layout, columns) => {
                layout.scatter(&leaf, &mut |c, part| columns[c].push(part))
            }
        }
    }

    /// Append the leaves of a view (of a buffer of the same kind).
    pub fn push_view(&mut self, view: &ArrayVal) {
        self.push_range(&view.buf, view.start..view.start + view.len);
    }

    /// Append the leaves `range` of a buffer (copied slice by slice when it is of this
    /// builder's kind, leaf by leaf otherwise).
    fn push_range(&mut self, buf: &Buffer, range: std::ops::Range<usize>) {
        match (self, buf) {
            (LeafBuilder::Scalars(v), Buffer::Scalars(src)) => v.extend_range(src, range),
            (LeafBuilder::Boxed(v), Buffer::Boxed(src)) => v.extend(src[range].iter().cloned()),
            (LeafBuilder::Columns(layout, columns), Buffer::Columns(src))
                if std::ptr::eq(*layout, src.layout) =>
            {
                for (column, source) in columns.iter_mut().zip(&src.columns) {
                    column.extend_range(source, range.clone());
                }
            }
            (builder, _) => {
                for i in range {
                    builder.push_leaf(buf.get(i));
                }
            }
        }
    }

    /// Append an element: a leaf, or all leaves of a sub-array.
    #[inline]
    pub fn push_element(&mut self, element: Value) {
        match element {
            Value::Array(view) => self.push_view(&view),
            leaf => self.push_leaf(leaf),
        }
    }

    pub fn finish(self) -> ArrayVal {
        ArrayVal::new(self.into_buffer())
    }

    fn into_buffer(self) -> Buffer {
        match self {
            LeafBuilder::Scalars(v) => Buffer::Scalars(v),
            LeafBuilder::Boxed(v) => Buffer::Boxed(v),
            LeafBuilder::Columns(layout, columns) => Buffer::Columns(Columns { layout, columns }),
        }
    }
}

/// Make the view own its whole buffer exclusively (copying the viewed leaves if the buffer is
/// shared or larger than the view), and return the buffer for mutation.
pub fn make_unique(array: &mut ArrayVal) -> &mut Buffer {
    let owns_everything = array.start == 0 && array.len == array.buf.len();
    if !owns_everything || Arc::get_mut(&mut array.buf).is_none() {
        let range = array.start..array.start + array.len;
        let copy = match &*array.buf {
            Buffer::Scalars(v) => Buffer::Scalars(v.copy_range(range)),
            Buffer::Boxed(v) => Buffer::Boxed(Leaves::from(&v[range])),
            Buffer::Columns(c) => Buffer::Columns(c.copy_range(range)),
        };
        *array = ArrayVal::new(copy);
    }
    Arc::get_mut(&mut array.buf).expect("a freshly copied buffer is unshared")
}

/// Overwrite one leaf of a buffer.
#[inline]
pub fn set_leaf(buffer: &mut Buffer, position: usize, leaf: Value) {
    match buffer {
        Buffer::Scalars(v) => v.set(position, &leaf),
        Buffer::Boxed(v) => v[position] = leaf,
        Buffer::Columns(c) => c.set(position, &leaf),
    }
}

/// Overwrite `view.len` leaves of a buffer starting at `position` with the leaves of `view`.
pub fn set_leaves(buffer: &mut Buffer, position: usize, view: &ArrayVal) {
    for k in 0..view.len {
        set_leaf(buffer, position + k, view.leaf(k));
    }
}

/// Append the leaves of a value in the storage order a reshape keeps: scalars, compact values, sums,
/// functions and nominal types are leaves; tuples and arrays are flattened; units vanish.
pub fn flatten(value: &Value, ty: &Type, out: &mut Vec<Value>) {
    match ty {
        t if t.is_unit() => {}
        Type::Tuple(components) => {
            if let Value::Tuple(parts) = value {
                for (part, part_ty) in parts.iter().zip(components.iter()) {
                    flatten(part, part_ty, out);
                }
            }
        }
        Type::Array(elem, _) => {
            if let Value::Array(view) = value {
                // The buffer holds the leaves of the element type, already flat.
                let leaf = leaf_type(elem);
                for k in 0..view.len {
                    flatten(&view.leaf(k), leaf, out);
                }
            }
        }
        _ => out.push(value.clone()),
    }
}

/// Rebuild a value of type `ty` from leaves in storage order (the inverse of `flatten`).
pub fn rebuild(
    ty: &Type,
    leaves: &mut impl Iterator<Item = Value>,
    limits: &Limits,
) -> Result<Value, Fault> {
    Ok(match ty {
        t if t.is_unit() => Value::Unit,
        Type::Tuple(components) => Value::Tuple(
            components
                .iter()
                .map(|c| rebuild(c, leaves, limits))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        ),
        Type::Array(..) => {
            let leaf = leaf_type(ty);
            let n = check_allocation(leaf_count(ty), ty, limits)?;
            let mut builder = LeafBuilder::new(leaf_repr(leaf));
            builder.reserve(n, ty, limits)?;
            for _ in 0..n {
                builder.push_leaf(rebuild(leaf, leaves, limits)?);
            }
            Value::Array(builder.finish())
        }
        _ => leaves.next().unwrap_or(Value::Unit),
    })
}

/// Can an array of `from` be viewed as an array of `to` without touching the leaves? True when
/// the leaves are the same type, or compact types of equal size (equal codes).
pub fn same_leaves(from: &Type, to: &Type) -> bool {
    let (a, b) = (leaf_type(from), leaf_type(to));
    if a == b {
        return !matches!(a, Type::Tuple(_));
    }
    let compact = crate::types::kind::is_compact;
    compact(a)
        && compact(b)
        && !a.is_unit()
        && !b.is_unit()
        && crate::types::size::size_of(a) == crate::types::size::size_of(b)
}

/// The transpose of a `rows x cols` matrix of blocks of `block` leaves: block `(i, j)` moves
/// to `(j, i)`.
pub fn transpose(
    array: &ArrayVal,
    rows: usize,
    cols: usize,
    block: usize,
    repr: LeafRepr,
) -> ArrayVal {
    if block == 1 && array.len == rows * cols {
        let range = array.start..array.start + array.len;
        if let Buffer::Scalars(values) = &*array.buf {
            return ArrayVal::new(Buffer::Scalars(scalars::each_same!(
                values,
                v => transpose_tiled(&v[range], rows, cols)
            )));
        }
    }
    let mut builder = LeafBuilder::new(repr);
    builder.presize(rows * cols * block);
    for j in 0..cols {
        for i in 0..rows {
            builder.push_view(&array.slice((i * cols + j) * block, block));
        }
    }
    builder.finish()
}

/// The concatenation of two arrays of the same leaf kind.
pub fn concat(
    a: &ArrayVal,
    b: &ArrayVal,
    repr: LeafRepr,
    ty: &Type,
    limits: &Limits,
) -> Result<ArrayVal, Fault> {
    let mut builder = LeafBuilder::new(repr);
    builder.reserve(a.len + b.len, ty, limits)?;
    builder.push_view(a);
    builder.push_view(b);
    Ok(builder.finish())
}

/// The array reversed in code order, element by element.
pub fn reverse(array: &ArrayVal, shape: &Shape) -> ArrayVal {
    let mut builder = LeafBuilder::new(shape.repr);
    let n = shape.len_of(array);
    builder.presize(array.len);
    for i in (0..n).rev() {
        builder.push_view(&array.slice(i * shape.elem_leaves, shape.elem_leaves));
    }
    builder.finish()
}

/// The transpose of a `rows x cols` row-major matrix of scalars, by square tiles so that both
/// the reads and the writes of a tile stay in cache.
fn transpose_tiled<T: Copy + Default>(source: &[T], rows: usize, cols: usize) -> Vec<T> {
    const TILE: usize = 32;
    let mut out = zeroed::<T>(rows * cols);
    for row_start in (0..rows).step_by(TILE) {
        let row_end = (row_start + TILE).min(rows);
        for col_start in (0..cols).step_by(TILE) {
            let col_end = (col_start + TILE).min(cols);
            for row in row_start..row_end {
                let source_row = &source[row * cols..row * cols + cols];
                for col in col_start..col_end {
                    out[col * rows + row] = source_row[col];
                }
            }
        }
    }
    out
}
