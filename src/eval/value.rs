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
//! - tuples, records and structs (fields in order): `Value::Tuple`; an array of them whose
//!   fields are all scalars is stored as columns (`Buffer::Columns`, one unboxed buffer per
//!   scalar field), and the tuple value of an element is built only when it is read whole;
//! - plain sums and variants: `Value::Sum`, the summand or constructor index and its
//!   argument in one allocation (`SumNode`); an argument whose type is a small anonymous
//!   tuple or a small array of boxed leaves (`Cons (h, t)`, `Add (a, b)`) is held as its parts
//!   there, so a list cell or a tree node is one allocation (`ArgForm::of`);
//! - arrays: `Value::Array`, a view into one flat, shared buffer; arrays of arrays share one
//!   buffer (the leaves in storage order), so reshapes move no data;
//! - functions: `Value::Fun`;
//! - `Value::Cell` only appears in frame slots of variables captured by inner functions or
//!   addressed by a pointer;
//! - pointers: `Value::Ptr`;
//! - `varray[T]` (and the varray inside a `darray[T]`): `Value::Varray`, a handle to one
//!   shared, growable buffer of elements, as Felix's varray is a pointer: copies of the value
//!   share the elements, and `push_back`, `pop`, `set` change them in place.

pub use super::scalars::{ScalarKind, Scalars};
use num_bigint::BigUint;
use std::sync::{Arc, Mutex};

/// The layout is fixed (`repr(u8)`: a one-byte tag at offset 0, the payload at offset 8), so
/// native code (`eval::native`) reads and writes the scalars of frame and global slots in
/// place: see `native::layout`.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Value {
    Unit = 0,
    Int(i64) = 1,
    Float(f64) = 2,
    Str(Text),
    Big(Arc<BigUint>),
    Tuple(Arc<[Value]>),
    Sum(Arc<SumNode>),
    Array(ArrayVal),
    Fun(Arc<crate::eval::closure::Closure>),
    Cell(Arc<CellLock>),
    /// A pointer.
    Ptr(Arc<crate::eval::pointer::Pointer>),
    /// A varray: a handle to its shared elements.
    Varray(Arc<Elements>),
}

/// The lock of a varray's elements, which every copy of the varray value shares. Each
/// operation holds it for a few instructions and threads almost never meet on it, so it is a
/// spin lock (yielding when held), whose release is one plain store where a `Mutex`'s is an
/// atomic exchange: a `push_back` in a loop pays one atomic operation, not two.
pub type Elements = spin::mutex::SpinMutex<DynArray, spin::relax::Yield>;

/// The cell of a captured or addressed variable, which the closures and pointers that see the
/// variable share. As a varray's `Elements`, it is held for a few instructions at a time, so
/// it is a spin lock: native code reading a captured variable pays one atomic operation.
pub type CellLock = spin::mutex::SpinMutex<Value, spin::relax::Yield>;

/// The tuple of `parts`, moved out of the slice (each left `Unit`). A tuple of up to four
/// parts (pairs, triples: list cells, tree nodes) is made as a fixed-size array, which is one
/// allocation and a copy; longer ones go through the slice iterator.
#[inline]
pub fn tuple_taking(parts: &mut [Value]) -> Value {
    let n = parts.len();
    let mut take = |i: usize| std::mem::replace(&mut parts[i], Value::Unit);
    let items: Arc<[Value]> = match n {
        2 => Arc::new([take(0), take(1)]),
        3 => Arc::new([take(0), take(1), take(2)]),
        4 => Arc::new([take(0), take(1), take(2), take(3)]),
        _ => (0..n).map(take).collect(),
    };
    Value::Tuple(items)
}

/// How a `SumNode` holds its case's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ArgForm {
    /// The argument is the one part.
    Whole = 0,
    /// The argument is the tuple (or record, or struct) of the parts.
    Tuple = 1,
    /// The argument is the array whose boxed leaves are the parts.
    Boxed = 2,
}

/// The most parts a `SumNode` holds its argument as: a larger tuple or array stays whole.
pub const MAX_SUM_PARTS: usize = 4;

/// A case of a sum or variant with its argument, in one allocation. The layout is fixed
/// (`repr(C)`: the case at offset 0, the form byte at 4, the parts from 8), so native code
/// reads a case and its parts in place: see `native::layout::sum_parts`.
#[derive(Debug)]
#[repr(C)]
pub struct SumNode<P: ?Sized + NodeParts = [Value]> {
    tag: u32,
    form: ArgForm,
    /// Dropped by `SumNode`'s `Drop`, which drops every part.
    parts: std::mem::ManuallyDrop<P>,
}

/// The parts of a `SumNode`, sized (as made) or not (as held).
pub trait NodeParts {
    fn values(&mut self) -> &mut [Value];
}

impl NodeParts for [Value] {
    fn values(&mut self) -> &mut [Value] {
        self
    }
}

impl<const N: usize> NodeParts for [Value; N] {
    fn values(&mut self) -> &mut [Value] {
        self
    }
}

/// How deep node drops may nest before the parts that are nodes are left for the outermost
/// drop to free (`SumNode`'s `Drop`).
const DROP_NESTING: u32 = 512;

thread_local! {
    /// How many node drops enclose the current one on this thread.
    static NESTING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Nodes left by drops nested `DROP_NESTING` deep, freed by the outermost drop.
    static DEFERRED: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A list or tree is dropped in bounded stack: node drops nest as usual up to
/// `DROP_NESTING` deep, where the parts that are nodes are left on a list the outermost drop
/// then frees, each from the top again. A list of any length is freed in constant stack, and
/// a shallow tree pays a counter a node.
impl<P: ?Sized + NodeParts> Drop for SumNode<P> {
    fn drop(&mut self) {
        let parts = self.parts.values();
        // A node with no node among its parts (a leaf, a list's last cell) drops its parts
        // where they are. So does any node once the thread's storage is gone (the thread is
        // ending).
        let nested = match parts.iter().any(|p| matches!(p, Value::Sum(_))) {
            true => NESTING.try_with(|n| n.replace(n.get() + 1)).ok(),
            false => None,
        };
        let Some(depth) = nested else {
            // SAFETY: the parts are dropped once, here; the node is never read again.
            return unsafe { std::ptr::drop_in_place(parts) };
        };
        if depth < DROP_NESTING {
            // SAFETY: as above.
            unsafe { std::ptr::drop_in_place(parts) };
        } else {
            for part in parts.iter_mut() {
                // SAFETY: each part is moved out or dropped once, here.
                match unsafe { std::ptr::read(part) } {
                    // Should the storage be gone, the closure is dropped, and the node with it.
                    node @ Value::Sum(_) => {
                        let _ = DEFERRED.try_with(|d| d.borrow_mut().push(node));
                    }
                    part => drop(part),
                }
            }
        }
        if depth == 0 {
            while let Some(node) = DEFERRED.try_with(|d| d.borrow_mut().pop()).ok().flatten() {
                drop(node);
            }
        }
        NESTING.with(|n| n.set(depth));
    }
}

/// The byte offsets in a `SumNode` of the case, the form byte and the first part.
pub fn sum_node_offsets() -> (usize, usize, usize) {
    use std::mem::offset_of;
    type Node = SumNode<[Value; 1]>;
    (
        offset_of!(Node, tag),
        offset_of!(Node, form),
        offset_of!(Node, parts),
    )
}

impl SumNode {
    /// The case (summand or constructor index).
    pub fn tag(&self) -> u32 {
        self.tag
    }

    /// How the argument is held.
    pub fn form(&self) -> ArgForm {
        self.form
    }

    /// The parts the argument is held as: the argument itself when `form` is `Whole`.
    pub fn parts(&self) -> &[Value] {
        &self.parts
    }

    /// The argument: borrowed when held whole, otherwise made again from the parts.
    pub fn argument(&self) -> std::borrow::Cow<'_, Value> {
        use std::borrow::Cow;
        match self.form {
            ArgForm::Whole => Cow::Borrowed(&self.parts[0]),
            ArgForm::Tuple => Cow::Owned(Value::Tuple(self.parts.iter().cloned().collect())),
            ArgForm::Boxed => Cow::Owned(Value::Array(ArrayVal::new(Buffer::Boxed(
                self.parts.iter().cloned().collect(),
            )))),
        }
    }
}

impl ArgForm {
    /// The form whose byte (`form as u8`) is `byte`.
    pub fn from_byte(byte: u8) -> Option<ArgForm> {
        [ArgForm::Whole, ArgForm::Tuple, ArgForm::Boxed]
            .into_iter()
            .find(|&form| form as u8 == byte)
    }

    /// The form a case's node holds an argument of type `ty` in: an anonymous tuple of 2 to
    /// `MAX_SUM_PARTS` components as its parts (`Cons (h, t)`, `Node (l, k, r)`), an array of
    /// as many boxed leaves as its leaves (`Add of expr * expr`), anything else whole.
    /// Structs and records are held whole: a pattern mostly binds them whole (`| Circle c =>
    /// c.r`), which is then a copy rather than a tuple made again from parts.
    pub fn of(ty: &crate::types::Type) -> ArgForm {
        use crate::types::Type;
        match ty {
            Type::Tuple(components) if components.len() <= MAX_SUM_PARTS => ArgForm::Tuple,
            Type::Array(..) => match super::array::Shape::of(ty) {
                Some(shape)
                    if shape.repr == LeafRepr::Boxed
                        && shape.elem_leaves == 1
                        && !shape.elem_is_array
                        && shape
                            .n_elements
                            .is_some_and(|n| (2..=MAX_SUM_PARTS).contains(&n)) =>
                {
                    ArgForm::Boxed
                }
                _ => ArgForm::Whole,
            },
            _ => ArgForm::Whole,
        }
    }
}

impl Value {
    /// The value of case `tag` with argument `arg`, held as `form` (`ArgForm::of` the
    /// argument's type): as its parts, moved out when not shared, when `arg` is a tuple or
    /// an array of boxed leaves of 2 to `MAX_SUM_PARTS` of them, else whole.
    pub fn sum(tag: u32, form: ArgForm, arg: Value) -> Value {
        match (form, arg) {
            (ArgForm::Tuple, Value::Tuple(mut items))
                if (2..=MAX_SUM_PARTS).contains(&items.len()) =>
            {
                match Arc::get_mut(&mut items) {
                    Some(parts) => Value::sum_taking(tag, ArgForm::Tuple, parts),
                    None => Value::sum_taking(tag, ArgForm::Tuple, &mut items.to_vec()),
                }
            }
            (ArgForm::Boxed, Value::Array(view))
                if (2..=MAX_SUM_PARTS).contains(&view.len)
                    && matches!(&*view.buf, Buffer::Boxed(_)) =>
            {
                let ArrayVal { buf, start, len } = view;
                let copied = |buf: &Buffer| match buf {
                    Buffer::Boxed(leaves) => leaves[start..start + len].iter().cloned().collect(),
                    _ => unreachable!("checked to be boxed"),
                };
                let mut leaves: Leaves = match Arc::try_unwrap(buf) {
                    Ok(Buffer::Boxed(leaves)) if start == 0 && len == leaves.len() => leaves,
                    Ok(buf) => copied(&buf),
                    Err(buf) => copied(&buf),
                };
                Value::sum_taking(tag, ArgForm::Boxed, &mut leaves)
            }
            (_, arg) => Value::sum_taking(tag, ArgForm::Whole, &mut [arg]),
        }
    }

    /// The value of case `tag` whose argument, held as `form`, is `parts` (1 to
    /// `MAX_SUM_PARTS` of them, moved out of the slice, each left `Unit`).
    pub fn sum_taking(tag: u32, form: ArgForm, parts: &mut [Value]) -> Value {
        let n = parts.len();
        let mut take = |i: usize| std::mem::replace(&mut parts[i], Value::Unit);
        let node: Arc<SumNode> = match n {
            1 => Arc::new(SumNode {
                tag,
                form,
                parts: std::mem::ManuallyDrop::new([take(0)]),
            }),
            2 => Arc::new(SumNode {
                tag,
                form,
                parts: std::mem::ManuallyDrop::new([take(0), take(1)]),
            }),
            3 => Arc::new(SumNode {
                tag,
                form,
                parts: std::mem::ManuallyDrop::new([take(0), take(1), take(2)]),
            }),
            4 => Arc::new(SumNode {
                tag,
                form,
                parts: std::mem::ManuallyDrop::new([take(0), take(1), take(2), take(3)]),
            }),
            n => unreachable!("a sum node of {n} parts"),
        };
        Value::Sum(node)
    }
}

/// A new cell holding `value`.
pub fn new_cell(value: Value) -> Arc<CellLock> {
    Arc::new(CellLock::new(value))
}

/// The elements of a varray: at most `bound` of them. A darray's varray has the bound
/// `usize::MAX`. The buffer grows as `Vec` does (amortised O(1) appends), each growth admitted
/// by the memory budget first.
#[derive(Debug)]
pub struct DynArray {
    pub bound: usize,
    pub items: Items,
}

/// The elements of a varray, stored as an array of their type stores its leaves
/// (`leaf_repr`): scalars at their kind's width (so a `varray[tiny]` takes a byte an
/// element), tuples, records and structs of scalars as one column per scalar field, anything
/// else one `Value` each.
#[derive(Debug)]
pub enum Items {
    Scalars(Scalars),
    Columns(Columns),
    Values(Vec<Value>),
}

impl Items {
    /// No elements yet, stored as elements of type `element` are.
    pub fn of(element: &crate::types::Type) -> Items {
        match leaf_repr(element) {
            LeafRepr::Scalar(kind) => Items::Scalars(Scalars::new(kind)),
            LeafRepr::Columns(layout) => Items::Columns(Columns {
                layout,
                columns: layout.kinds.iter().map(|k| Scalars::new(*k)).collect(),
            }),
            LeafRepr::Boxed => Items::Values(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Items::Scalars(s) => s.len(),
            Items::Columns(c) => c.len(),
            Items::Values(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many elements fit before the storage grows.
    pub fn capacity(&self) -> usize {
        match self {
            Items::Scalars(s) => s.capacity(),
            Items::Columns(c) => c.columns.iter().map(Scalars::capacity).min().unwrap_or(0),
            Items::Values(v) => v.capacity(),
        }
    }

    /// The bytes one element takes.
    pub fn element_bytes(&self) -> usize {
        match self {
            Items::Scalars(s) => s.kind().bytes(),
            Items::Columns(c) => c.layout.kinds.iter().map(|k| k.bytes()).sum(),
            Items::Values(_) => std::mem::size_of::<Value>(),
        }
    }

    pub fn get(&self, k: usize) -> Value {
        match self {
            Items::Scalars(s) => s.get(k),
            Items::Columns(c) => c.get(k),
            Items::Values(v) => v[k].clone(),
        }
    }

    pub fn set(&mut self, k: usize, x: Value) {
        match self {
            Items::Scalars(s) => s.set(k, &x),
            Items::Columns(c) => c.set(k, &x),
            Items::Values(v) => v[k] = x,
        }
    }

    pub fn push(&mut self, x: Value) {
        match self {
            Items::Scalars(s) => s.push(&x),
            Items::Columns(c) => {
                let columns = &mut c.columns;
                c.layout.scatter(&x, &mut |i, leaf| columns[i].push(leaf));
            }
            Items::Values(v) => v.push(x),
        }
    }

    /// Drop the last element; `false` when there is none.
    pub fn pop(&mut self) -> bool {
        match self {
            Items::Scalars(s) => s.pop(),
            Items::Columns(c) => c.columns.iter_mut().fold(false, |_, c| c.pop()),
            Items::Values(v) => v.pop().is_some(),
        }
    }

    /// Room for `more` elements past the present ones, or the allocator's refusal.
    pub fn try_reserve_exact(
        &mut self,
        more: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        match self {
            Items::Scalars(s) => s.try_reserve_exact(more),
            Items::Columns(c) => c
                .columns
                .iter_mut()
                .try_for_each(|c| c.try_reserve_exact(more)),
            Items::Values(v) => v.try_reserve_exact(more),
        }
    }

    /// The elements as values, in order.
    pub fn values(&self) -> Vec<Value> {
        match self {
            Items::Scalars(s) => (0..s.len()).map(|k| s.get(k)).collect(),
            Items::Columns(c) => (0..c.len()).map(|k| c.get(k)).collect(),
            Items::Values(v) => v.clone(),
        }
    }
}

/// The bytes of a string value: shared, copy-on-write, with spare capacity for appends.
pub type Text = Arc<Vec<u8>>;

/// The leaves of a buffer of boxed values.
pub type Leaves = smallvec::SmallVec<[Value; 2]>;

/// The storage of an array: one flat buffer of leaves.
#[derive(Clone, Debug)]
pub enum Buffer {
    /// Integers, chars, floating numbers and compact codes, each at its own width
    /// (`ScalarKind::of`).
    Scalars(Scalars),
    /// Everything else, one `Value` per leaf; up to two of them (the parts of a pair of
    /// equal types, as a variant node holds its subtrees) inside the buffer itself.
    Boxed(Leaves),
    /// Tuples, records and structs of scalar fields: one unboxed buffer per scalar field
    /// (a structure of arrays), the layout of the type (`leaf_repr`) saying which.
    Columns(Columns),
}

/// The leaves of an array of tuples of scalars, one buffer per scalar field (nested tuples
/// flattened, depth first). Every column has one entry per leaf. `get` and `set` are the one
/// place that turns an element into its tuple value and back.
#[derive(Clone, Debug)]
pub struct Columns {
    pub layout: &'static ColumnLayout,
    /// One buffer per scalar field, of the kind `layout.kinds` says.
    pub columns: Vec<Scalars>,
}

impl Columns {
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Scalars::len)
    }

    /// The tuple value of leaf `i` (gathered from the columns).
    pub fn get(&self, i: usize) -> Value {
        self.layout.gather(&mut |c| self.columns[c].get(i))
    }

    /// Overwrite leaf `i` with the tuple `value` (scattered into the columns).
    pub fn set(&mut self, i: usize, value: &Value) {
        let columns = &mut self.columns;
        self.layout
            .scatter(value, &mut |c, leaf| columns[c].set(i, leaf));
    }

    /// The leaves `range` as columns of their own.
    pub fn copy_range(&self, range: std::ops::Range<usize>) -> Columns {
        Columns {
            layout: self.layout,
            columns: self
                .columns
                .iter()
                .map(|column| column.copy_range(range.clone()))
                .collect(),
        }
    }
}

/// A component of a column-stored tuple: a scalar in column `c`, or a nested tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ColumnField {
    Column(usize),
    Tuple(Vec<ColumnField>),
}

/// How a tuple (record, struct) of scalars is split into columns: its components (a tree
/// whose leaves are column numbers, depth first) and each column's representation. Layouts
/// are interned, so two types of the same structure (a tuple and a record of the same
/// field types) share one, and a `LeafRepr` stays `Copy`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ColumnLayout {
    pub fields: Vec<ColumnField>,
    pub kinds: Vec<ScalarKind>,
}

/// Nested tuples deeper than this are stored boxed.
const MAX_COLUMN_DEPTH: usize = 8;

impl ColumnLayout {
    /// The column layout of a tuple, record or struct type whose components are all scalars
    /// stored unboxed (integers, chars, floating, 64-bit compact codes) or such tuples; `None`
    /// for any other type.
    pub fn of(ty: &crate::types::Type) -> Option<&'static ColumnLayout> {
        let mut kinds = Vec::new();
        let ColumnField::Tuple(fields) = column_field(ty, &mut kinds, 0)? else {
            return None;
        };
        Some(intern(ColumnLayout { fields, kinds }))
    }

    /// The one layout of these components and column kinds (as `of` gives it for a type of
    /// that structure).
    pub fn interned(fields: Vec<ColumnField>, kinds: Vec<ScalarKind>) -> &'static ColumnLayout {
        intern(ColumnLayout { fields, kinds })
    }

    /// The tuple value whose scalar in column `c` is `leaf(c)`.
    pub fn gather(&self, leaf: &mut dyn FnMut(usize) -> Value) -> Value {
        ColumnLayout::gather_fields(&self.fields, leaf)
    }

    /// The tuple of the components `fields` (of a layout, or of a nested tuple of one).
    pub fn gather_fields(fields: &[ColumnField], leaf: &mut dyn FnMut(usize) -> Value) -> Value {
        // Collected straight into the shared slice: one allocation of the known length.
        Value::Tuple(
            fields
                .iter()
                .map(|field| match field {
                    ColumnField::Column(c) => leaf(*c),
                    ColumnField::Tuple(inner) => ColumnLayout::gather_fields(inner, leaf),
                })
                .collect(),
        )
    }

    /// Visit the scalars of the tuple `value` with their column numbers.
    pub fn scatter(&self, value: &Value, set: &mut dyn FnMut(usize, &Value)) {
        fn visit(fields: &[ColumnField], value: &Value, set: &mut dyn FnMut(usize, &Value)) {
            let Value::Tuple(parts) = value else {
                return;
            };
            for (field, part) in fields.iter().zip(parts.iter()) {
                match field {
                    ColumnField::Column(c) => set(*c, part),
                    ColumnField::Tuple(inner) => visit(inner, part, set),
                }
            }
        }
        visit(&self.fields, value, set)
    }

    /// The component at a path of projections (`x.1.0` is `[1, 0]`).
    pub fn field(&self, path: &[usize]) -> Option<&ColumnField> {
        let (first, rest) = path.split_first()?;
        let mut field = self.fields.get(*first)?;
        for &i in rest {
            let ColumnField::Tuple(inner) = field else {
                return None;
            };
            field = inner.get(i)?;
        }
        Some(field)
    }
}

fn column_field(
    ty: &crate::types::Type,
    kinds: &mut Vec<ScalarKind>,
    depth: usize,
) -> Option<ColumnField> {
    use crate::types::ty::NominalBody;
    use crate::types::Type;
    let components: Vec<&Type> = match ty {
        t if crate::types::kind::is_compact(t)
            || !matches!(t, Type::Tuple(_) | Type::Record(..) | Type::Nominal(_)) =>
        {
            let LeafRepr::Scalar(scalar) = leaf_repr(t) else {
                return None;
            };
            kinds.push(scalar);
            return Some(ColumnField::Column(kinds.len() - 1));
        }
        Type::Tuple(components) | Type::Record(_, components) => components.iter().collect(),
        Type::Nominal(def) => match def.body() {
            Some(NominalBody::Struct(fields)) => fields.iter().map(|(_, t)| t).collect(),
            _ => return None,
        },
        _ => return None,
    };
    if components.is_empty() || depth >= MAX_COLUMN_DEPTH {
        return None;
    }
    let fields = components
        .into_iter()
        .map(|t| column_field(t, kinds, depth + 1))
        .collect::<Option<Vec<_>>>()?;
    Some(ColumnField::Tuple(fields))
}

/// The one shared copy of a layout (layouts are few: one per element type a program uses).
fn intern(layout: ColumnLayout) -> &'static ColumnLayout {
    static LAYOUTS: Mutex<Option<rustc_hash::FxHashSet<&'static ColumnLayout>>> = Mutex::new(None);
    let mut table = LAYOUTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let table = table.get_or_insert_with(Default::default);
    if let Some(known) = table.get(&layout) {
        return known;
    }
    let leaked: &'static ColumnLayout = Box::leak(Box::new(layout));
    table.insert(leaked);
    leaked
}

impl Buffer {
    pub fn len(&self) -> usize {
        match self {
            Buffer::Scalars(v) => v.len(),
            Buffer::Boxed(v) => v.len(),
            Buffer::Columns(c) => c.len(),
        }
    }

    /// The leaf at position `i` as a value.
    pub fn get(&self, i: usize) -> Value {
        match self {
            Buffer::Scalars(v) => v.get(i),
            Buffer::Boxed(v) => v[i].clone(),
            Buffer::Columns(c) => c.get(i),
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

    /// Leaf `i` itself when the buffer holds values (no copy), `None` for unboxed leaves.
    pub fn boxed_leaf(&self, i: usize) -> Option<&Value> {
        match &*self.buf {
            Buffer::Boxed(v) => v.get(self.start + i),
            Buffer::Scalars(_) | Buffer::Columns(_) => None,
        }
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

    #[cfg(test)]
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
    /// Scalars of one kind, at its width.
    Scalar(ScalarKind),
    Boxed,
    Columns(&'static ColumnLayout),
}

/// The leaf type of an array element type: arrays of arrays are flattened, so the leaf of
/// `int ^ 2 ^ 3` is `int`.
pub fn leaf_type(ty: &crate::types::Type) -> &crate::types::Type {
    match ty {
        crate::types::Type::Array(e, _) => leaf_type(e),
        t => t,
    }
}

/// How leaves of the (non-array) type `ty` are stored: **the one decision of an array's
/// layout**.
pub fn leaf_repr(ty: &crate::types::Type) -> LeafRepr {
    use crate::types::Type;
    if let Some(kind) = ScalarKind::of(ty) {
        return LeafRepr::Scalar(kind);
    }
    match ty {
        Type::Tuple(_) | Type::Record(..) | Type::Nominal(_) => match ColumnLayout::of(ty) {
            Some(layout) => LeafRepr::Columns(layout),
            None => LeafRepr::Boxed,
        },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::array::{
        filled_buffer, make_unique, reverse, set_leaf, zero_value, LeafBuilder, Shape,
    };
    use crate::types::ty::IntTy;
    use crate::types::Type;

    fn long_double() -> Type {
        Type::tuple(vec![Type::Int(IntTy::Long), Type::Double])
    }

    fn nested() -> Type {
        // int * (double * bool) * char
        Type::tuple(vec![
            Type::INT,
            Type::tuple(vec![Type::Double, Type::BOOL]),
            Type::Char,
        ])
    }

    fn tuple(parts: Vec<Value>) -> Value {
        Value::Tuple(parts.into())
    }

    fn same(a: &Value, b: &Value) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn tuples_records_and_structs_of_scalars_are_stored_in_columns() {
        let LeafRepr::Columns(layout) = leaf_repr(&long_double()) else {
            panic!("long * double is not in columns");
        };
        assert_eq!(layout.kinds, vec![ScalarKind::I64, ScalarKind::F64]);
        assert_eq!(
            layout.fields,
            vec![ColumnField::Column(0), ColumnField::Column(1)]
        );
        let LeafRepr::Columns(layout) = leaf_repr(&nested()) else {
            panic!("a nested tuple of scalars is not in columns");
        };
        assert_eq!(
            layout.kinds,
            vec![
                ScalarKind::I32,
                ScalarKind::F64,
                ScalarKind::U8,
                ScalarKind::U8
            ]
        );
        assert_eq!(
            layout.field(&[1, 0]),
            Some(&ColumnField::Column(1)),
            "x.1.0 is the second column"
        );
        // A record of the same field types shares the tuple's layout.
        let record = Type::record(vec![
            ("x".into(), Type::Int(IntTy::Long)),
            ("y".into(), Type::Double),
        ]);
        assert_eq!(leaf_repr(&record), leaf_repr(&long_double()));
    }

    #[test]
    fn a_varray_of_tuples_of_scalars_keeps_one_column_a_field() {
        let mut items = Items::of(&nested());
        let Items::Columns(columns) = &items else {
            panic!("a varray of a nested tuple of scalars is not in columns");
        };
        assert_eq!(columns.columns.len(), 4);
        assert_eq!(items.element_bytes(), 4 + 8 + 1 + 1);
        let element = |i: i64| {
            tuple(vec![
                Value::Int(i),
                tuple(vec![Value::Float(i as f64 / 2.0), Value::bool(i % 2 == 1)]),
                Value::Int(65 + i),
            ])
        };
        items.try_reserve_exact(2).expect("room for two");
        assert!(items.capacity() >= 2);
        for i in 0..3 {
            items.push(element(i));
        }
        assert_eq!(items.len(), 3);
        assert!(same(&items.get(1), &element(1)));
        items.set(0, element(7));
        assert!(same(&items.get(0), &element(7)));
        assert!(items.pop());
        assert_eq!(items.len(), 2);
        let values = items.values();
        assert!(same(&values[0], &element(7)) && same(&values[1], &element(1)));
        assert!(items.pop() && items.pop() && !items.pop());
        // A tuple holding a string keeps whole values.
        let boxed = Items::of(&Type::tuple(vec![Type::INT, Type::String]));
        assert!(matches!(boxed, Items::Values(_)));
    }

    #[test]
    fn other_element_types_keep_their_layout() {
        assert_eq!(leaf_repr(&Type::INT), LeafRepr::Scalar(ScalarKind::I32));
        assert_eq!(leaf_repr(&Type::Double), LeafRepr::Scalar(ScalarKind::F64));
        assert_eq!(leaf_repr(&Type::BOOL), LeafRepr::Scalar(ScalarKind::U8));
        assert_eq!(leaf_repr(&Type::String), LeafRepr::Boxed);
        // A tuple with a string, a unit-free array or a natural component stays boxed.
        assert_eq!(
            leaf_repr(&Type::tuple(vec![Type::INT, Type::String])),
            LeafRepr::Boxed
        );
        assert_eq!(
            leaf_repr(&Type::tuple(vec![
                Type::array(Type::INT, Type::Unitsum(3)),
                Type::Double
            ])),
            LeafRepr::Boxed
        );
        assert_eq!(
            leaf_repr(&Type::tuple(vec![Type::Natural, Type::Double])),
            LeafRepr::Boxed
        );
    }

    #[test]
    fn gather_and_scatter_round_trip() {
        let ty = nested();
        let LeafRepr::Columns(layout) = leaf_repr(&ty) else {
            panic!("not in columns");
        };
        let array_ty = Type::array(ty.clone(), Type::Unitsum(3));
        let Value::Array(mut view) = zero_value(&array_ty, &Default::default()).expect("a zero")
        else {
            panic!("not an array");
        };
        assert!(matches!(&*view.buf, Buffer::Columns(_)));
        let element = |i: i64| {
            tuple(vec![
                Value::Int(i),
                tuple(vec![Value::Float(i as f64 / 4.0), Value::bool(i % 2 == 1)]),
                Value::Int(65 + i),
            ])
        };
        let shared = view.clone();
        for i in 0..3 {
            set_leaf(make_unique(&mut view), i, element(i as i64));
        }
        for i in 0..3 {
            assert!(same(&view.leaf(i), &element(i as i64)));
            // Copy-on-write: the copy taken before the stores still holds zeros.
            assert!(same(
                &shared.leaf(i),
                &zero_value(&ty, &Default::default()).expect("a zero")
            ));
        }
        // Each scalar is in its column.
        let Buffer::Columns(columns) = &*view.buf else {
            panic!("not in columns");
        };
        assert!(std::ptr::eq(columns.layout, layout));
        assert!(matches!(&columns.columns[1], Scalars::F64(v) if v == &[0.0, 0.25, 0.5]));
        assert!(matches!(&columns.columns[2], Scalars::U8(v) if v == &[0, 1, 0]));
        // Views, builders and reversal keep the layout and the values.
        let middle = view.slice(1, 2);
        assert!(same(&middle.leaf(0), &element(1)));
        let shape = Shape::of(&array_ty).expect("an array shape");
        let reversed = reverse(&view, &shape);
        assert!(matches!(&*reversed.buf, Buffer::Columns(_)));
        assert!(same(&reversed.leaf(0), &element(2)));
        let mut builder = LeafBuilder::new(shape.repr);
        builder.push_view(&middle);
        builder.push_leaf(element(7));
        let built = builder.finish();
        assert_eq!(built.len, 3);
        assert!(same(&built.leaf(0), &element(1)));
        assert!(same(&built.leaf(2), &element(7)));
        let mut copy = middle.clone();
        make_unique(&mut copy);
        assert_eq!(copy.buf.len(), 2);
        assert!(same(&copy.leaf(1), &element(2)));
    }

    #[test]
    fn a_fill_is_one_zeroed_column_per_field() {
        let ty = long_double();
        let repr = leaf_repr(&ty);
        let fill = tuple(vec![Value::Int(3), Value::Float(0.5)]);
        let Buffer::Columns(columns) = filled_buffer(
            repr,
            &fill,
            4,
            &Type::array(ty, Type::Unitsum(4)),
            &Default::default(),
        )
        .expect("a fill") else {
            panic!("not in columns");
        };
        assert!(matches!(&columns.columns[0], Scalars::I64(v) if v == &[3; 4]));
        assert!(matches!(&columns.columns[1], Scalars::F64(v) if v == &[0.5; 4]));
        assert!(same(&columns.get(3), &fill));
    }

    #[test]
    fn the_form_of_a_case_argument_follows_its_type() {
        use crate::types::ty::{NominalBody, NominalDef};
        let int = Type::Int(IntTy::Int);
        let pair = Type::tuple(vec![int.clone(), Type::String]);
        let five = Type::tuple(vec![
            int.clone(),
            Type::String,
            int.clone(),
            int.clone(),
            int.clone(),
        ]);
        let point = NominalDef::new(1, Arc::from("point"), Vec::new());
        assert!(point.set_body(NominalBody::Struct(vec![
            (Arc::from("x"), int.clone()),
            (Arc::from("y"), Type::String),
        ])));
        let record = Type::record(vec![
            (Arc::from("a"), int.clone()),
            (Arc::from("b"), Type::String),
        ]);
        let cases = [
            (pair, ArgForm::Tuple),
            (five, ArgForm::Whole),
            (Type::Nominal(Arc::new(point)), ArgForm::Whole),
            (record, ArgForm::Whole),
            (Type::array(Type::String, Type::Unitsum(2)), ArgForm::Boxed),
            (Type::array(Type::String, Type::Unitsum(4)), ArgForm::Boxed),
            (Type::array(Type::String, Type::Unitsum(5)), ArgForm::Whole),
            (Type::array(int.clone(), Type::Unitsum(3)), ArgForm::Whole),
            (
                Type::array(
                    Type::array(Type::String, Type::Unitsum(2)),
                    Type::Unitsum(2),
                ),
                ArgForm::Whole,
            ),
            (int, ArgForm::Whole),
            (Type::String, ArgForm::Whole),
        ];
        for (ty, form) in cases {
            assert_eq!(ArgForm::of(&ty), form, "{ty:?}");
        }
        for form in [ArgForm::Whole, ArgForm::Tuple, ArgForm::Boxed] {
            assert_eq!(ArgForm::from_byte(form as u8), Some(form));
        }
        assert_eq!(ArgForm::from_byte(3), None);
    }

    #[test]
    fn a_case_holds_its_argument_as_parts_where_its_form_and_its_value_allow() {
        let text = |t: &str| Value::Str(Arc::new(t.as_bytes().to_vec()));
        let boxed = |leaves: Vec<Value>| Value::Array(ArrayVal::new(Buffer::Boxed(leaves.into())));
        let shared = tuple(vec![Value::Int(1), text("x")]);
        let window = ArrayVal {
            buf: Arc::new(Buffer::Boxed((0..6).map(Value::Int).collect())),
            start: 1,
            len: 3,
        };
        let (whole, parts, leaves) = (ArgForm::Whole, ArgForm::Tuple, ArgForm::Boxed);
        // The argument, the form asked for, the form held and the number of parts.
        let cases = [
            (Value::Unit, whole, whole, 1),
            (Value::Int(-7), parts, whole, 1),
            (tuple(vec![Value::Int(1), text("a")]), parts, parts, 2),
            (tuple(vec![Value::Int(1), text("a")]), whole, whole, 1),
            (tuple((0..4).map(Value::Int).collect()), parts, parts, 4),
            (tuple((0..5).map(Value::Int).collect()), parts, whole, 1),
            (shared.clone(), parts, parts, 2),
            (boxed(vec![text("l"), text("r")]), leaves, leaves, 2),
            (boxed(vec![text("l"), text("r")]), parts, whole, 1),
            (Value::Array(window.clone()), leaves, leaves, 3),
            (boxed((0..5).map(Value::Int).collect()), leaves, whole, 1),
            (
                Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::I64(vec![1, 2])))),
                leaves,
                whole,
                1,
            ),
        ];
        for (arg, asked, form, n) in cases {
            let sum = Value::sum(3, asked, arg.clone());
            let Value::Sum(node) = &sum else {
                panic!("a sum")
            };
            assert_eq!((node.tag(), node.form(), node.parts().len()), (3, form, n));
            let again = node.argument();
            // An array made again is the same leaves, from the start of a buffer of its own.
            let expected = match &arg {
                Value::Array(view) if form == ArgForm::Boxed => {
                    boxed((0..view.len).map(|i| view.leaf(i)).collect())
                }
                _ => arg.clone(),
            };
            assert!(same(&again, &expected), "{again:?} against {expected:?}");
        }
        // A shared tuple or buffer is copied from, never changed.
        assert!(same(&shared, &tuple(vec![Value::Int(1), text("x")])));
        assert_eq!(window.buf.len(), 6);
    }

    #[test]
    fn a_long_list_or_chain_of_cases_drops_in_constant_stack() {
        // A million cells (a list, a chain of cases held whole, a tree leaning left) on a
        // thread of 256 KiB of stack: dropping them one nested call a cell would need far more.
        let dropped = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut list = Value::sum(0, ArgForm::Whole, Value::Unit);
                let mut chain = Value::sum(0, ArgForm::Whole, Value::Unit);
                let mut left = Value::sum(0, ArgForm::Whole, Value::Unit);
                for i in 0..1_000_000 {
                    list = Value::sum_taking(1, ArgForm::Tuple, &mut [Value::Int(i), list]);
                    chain = Value::sum(2, ArgForm::Whole, chain);
                    let leaf = Value::sum(0, ArgForm::Whole, Value::Unit);
                    left = Value::sum_taking(1, ArgForm::Tuple, &mut [left, Value::Int(i), leaf]);
                }
                drop(left);
                // A list whose tail is shared keeps the tail when its head is dropped.
                let shared_tail = match &list {
                    Value::Sum(node) => node.parts()[1].clone(),
                    _ => unreachable!(),
                };
                drop(list);
                drop(chain);
                match &shared_tail {
                    Value::Sum(node) => {
                        node.tag() == 1 && matches!(node.parts()[0], Value::Int(999_998))
                    }
                    _ => false,
                }
            })
            .expect("a thread")
            .join()
            .expect("no stack overflow");
        assert!(dropped);
    }
}
