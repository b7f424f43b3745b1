//! The isomorphism engine behind `:>>`: normal forms and classification.
//!
//! A type's normal form is the sequence of its *leaves* in storage order. A leaf is a scalar
//! type, a compact linear type (represented by its size: `3 \* 2` is the leaf `6`), a plain
//! sum, a function type, a nominal type or a type variable. Tuples and arrays are flattened
//! (`T ^ I` contributes `size(I)` copies of the sequence of `T`) and units (compact types of
//! size 1) vanish. Equal adjacent leaves are grouped as (leaf, count), with counts kept as big
//! naturals, so `int ^ (2 \^ 100)` is one group and never a huge vector.
//!
//! Repeating a sequence of several groups is expanded only up to `MAX_EXPANDED_GROUPS` groups;
//! beyond that the repetition is kept as one group whose leaf is a *block* (the repeated
//! sequence, reduced to its shortest period). Blocks keep the representation exact. When the
//! two sides of a comparison hold different leaves and one is a block, the block is unfolded
//! one repetition at a time, up to `MAX_BLOCK_UNFOLDINGS` times; two differently aligned block
//! structures that spell the same huge sequence can exhaust that budget, and the engine then
//! reports the types as not isomorphic, the safe answer for a check that guards zero-copy
//! reshapes.

use std::fmt;

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::types::print::{type_to_string_in_slot, OperandSlot};
use crate::types::size::size_of;
use crate::types::ty::Type;

/// The most groups a repetition is expanded into before it is kept as a block.
pub const MAX_EXPANDED_GROUPS: usize = 1 << 16;

/// One element kind of a normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// A compact linear type of this size (never 1: units vanish).
    Compact(BigUint),
    /// A scalar, plain sum, function, nominal type, type variable, or a type whose parts have
    /// no known size (an array over a type variable).
    Opaque(Type),
    /// A repeated sequence too long to expand (see the module documentation).
    Block(BlockRef),
}

/// The body of a block leaf, shared (blocks nest: a block of a block is a pointer, never a
/// copy), with its element count computed once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockRef(std::sync::Arc<(NormalForm, BigUint)>);

impl BlockRef {
    fn new(body: NormalForm) -> BlockRef {
        let width = body.element_count();
        BlockRef(std::sync::Arc::new((body, width)))
    }

    /// The number of elements one repetition of the block stands for.
    pub fn width(&self) -> &BigUint {
        &self.0 .1
    }
}

impl std::ops::Deref for BlockRef {
    type Target = NormalForm;
    fn deref(&self) -> &NormalForm {
        &self.0 .0
    }
}

impl fmt::Display for BlockRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0 .0, f)
    }
}

impl Leaf {
    /// The number of elements one occurrence of this leaf stands for.
    pub fn width(&self) -> BigUint {
        match self {
            Leaf::Block(body) => body.width().clone(),
            Leaf::Compact(_) | Leaf::Opaque(_) => BigUint::one(),
        }
    }

    /// The leaf printed as if it were a type in `slot`.
    fn to_string_in_slot(&self, slot: OperandSlot) -> String {
        match self {
            Leaf::Compact(size) => match size.to_u64() {
                Some(size) => type_to_string_in_slot(&Type::Unitsum(size), slot),
                None => size.to_string(),
            },
            Leaf::Opaque(ty) => type_to_string_in_slot(ty, slot),
            Leaf::Block(body) if slot == OperandSlot::Top => body.to_string(),
            Leaf::Block(body) => format!("({body})"),
        }
    }
}

impl fmt::Display for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_in_slot(OperandSlot::Top))
    }
}

/// A run of equal adjacent leaves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    pub leaf: Leaf,
    /// At least 1.
    pub count: BigUint,
}

/// The sequence of leaves of a type in storage order, equal adjacent leaves grouped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NormalForm {
    groups: Vec<Group>,
}

impl NormalForm {
    #[cfg(test)]
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The number of elements (leaves, counted with repetition).
    pub fn element_count(&self) -> BigUint {
        self.groups
            .iter()
            .map(|group| &group.count * group.leaf.width())
            .sum()
    }

    /// Is the sequence empty (the type is a unit)?
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Append `count` occurrences of `leaf`, merging with the last group when it is equal.
    fn push(&mut self, leaf: Leaf, count: BigUint) {
        if count.is_zero() {
            return;
        }
        match self.groups.last_mut() {
            Some(last) if last.leaf == leaf => last.count += count,
            _ => self.groups.push(Group { leaf, count }),
        }
    }

    /// Append the sequence `body` repeated `times` times.
    fn push_repeated(&mut self, body: NormalForm, times: BigUint) {
        if times.is_zero() || body.is_empty() {
            return;
        }
        if let [only] = body.groups.as_slice() {
            self.push(only.leaf.clone(), &only.count * times);
            return;
        }
        let expanded_groups = times
            .to_usize()
            .and_then(|times| times.checked_mul(body.groups.len()))
            .filter(|total| self.groups.len().saturating_add(*total) <= MAX_EXPANDED_GROUPS);
        match (expanded_groups, times.to_usize()) {
            (Some(_), Some(times)) => {
                for _ in 0..times {
                    for group in &body.groups {
                        self.push(group.leaf.clone(), group.count.clone());
                    }
                }
            }
            _ => {
                let (root, repetitions) = primitive_root(body);
                self.push(Leaf::Block(BlockRef::new(root)), times * repetitions)
            }
        }
    }

    /// Append the leaves of `ty`.
    fn push_type(&mut self, ty: &Type) {
        if let Some(size) = size_of(ty) {
            if !size.is_one() {
                self.push(Leaf::Compact(size), BigUint::one());
            }
            return;
        }
        match ty {
            Type::Tuple(components) => {
                for component in components.iter() {
                    self.push_type(component);
                }
            }
            Type::Array(element, index) => match size_of(index) {
                Some(count) => self.push_repeated(normal_form(element), count),
                None => self.push(Leaf::Opaque(ty.clone()), BigUint::one()),
            },
            _ => self.push(Leaf::Opaque(ty.clone()), BigUint::one()),
        }
    }
}

impl fmt::Display for NormalForm {
    /// Groups joined by ` * `, a group `leaf ^ count` when its count exceeds 1; the empty
    /// sequence is `unit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.groups.is_empty() {
            return f.write_str("unit");
        }
        let alone = self.groups.len() == 1;
        // A form with blocks can spell an exponentially long sequence: past the width of
        // `--max-type-width` the rest is elided.
        let budget = super::print::type_width();
        let mut out = String::new();
        for (position, group) in self.groups.iter().enumerate() {
            if position > 0 {
                out.push_str(" * ");
                if out.len() > budget {
                    out.push('…');
                    break;
                }
            }
            if group.count.is_one() {
                let slot = if alone {
                    OperandSlot::Top
                } else {
                    OperandSlot::TupleComponent
                };
                out.push_str(&group.leaf.to_string_in_slot(slot));
            } else {
                out.push_str(&group.leaf.to_string_in_slot(OperandSlot::ArrayElement));
                out.push_str(" ^ ");
                out.push_str(&group.count.to_string());
            }
        }
        f.write_str(&out)
    }
}

/// The shortest sequence whose repetition is `body`, and the number of repetitions, so that
/// equal sequences spelled with different blocks (`((int * double) ^ 2) ^ n` and
/// `(int * double) ^ 2n`) get the same block. Only group lists whose first and last leaves
/// differ are reduced: for them, repeating the group list never merges groups.
fn primitive_root(body: NormalForm) -> (NormalForm, BigUint) {
    let groups = &body.groups;
    let length = groups.len();
    let first_and_last_differ = match (groups.first(), groups.last()) {
        (Some(first), Some(last)) => first.leaf != last.leaf,
        _ => false,
    };
    if !first_and_last_differ {
        return (body, BigUint::one());
    }
    // The prefix function of Knuth, Morris and Pratt gives the shortest period.
    let mut border = vec![0usize; length];
    for position in 1..length {
        let mut candidate = border[position - 1];
        while candidate > 0 && groups[position] != groups[candidate] {
            candidate = border[candidate - 1];
        }
        if groups[position] == groups[candidate] {
            candidate += 1;
        }
        border[position] = candidate;
    }
    let period = length - border[length - 1];
    if period < length && length.is_multiple_of(period) {
        let root = NormalForm {
            groups: groups[..period].to_vec(),
        };
        (root, BigUint::from(length / period))
    } else {
        (body, BigUint::one())
    }
}

/// The normal form of a type.
pub fn normal_form(ty: &Type) -> NormalForm {
    let mut form = NormalForm::default();
    form.push_type(ty);
    form
}

/// Where two normal forms first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The leaves at this 0-based element position differ.
    AtElement { index: BigUint, a: Leaf, b: Leaf },
    /// One sequence is a proper prefix of the other; the element counts.
    Count { a: BigUint, b: BigUint },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::AtElement { index, a, b } => write!(f, "at element {index}: {a} vs {b}"),
            Mismatch::Count { a, b } => write!(f, "element count {a} vs {b}"),
        }
    }
}

/// The classification of a coercion `a :>> b` that is not an encode, decode or compact
/// reinterpretation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Iso {
    /// Equal normal forms: the coercion keeps the storage.
    LayoutIdentical(NormalForm),
    NotIsomorphic {
        a: NormalForm,
        b: NormalForm,
        mismatch: Mismatch,
    },
}

/// Classify two types by their normal forms. Two compact linear types of equal size are
/// layout-identical (both normal forms are that size).
pub fn classify(a: &Type, b: &Type) -> Iso {
    let form_a = normal_form(a);
    let form_b = normal_form(b);
    match first_mismatch(&form_a, &form_b) {
        None => Iso::LayoutIdentical(form_a),
        Some(mismatch) => Iso::NotIsomorphic {
            a: form_a,
            b: form_b,
            mismatch,
        },
    }
}

/// The leaf a (possibly block) leaf starts with, for reporting a mismatch.
fn first_plain_leaf(leaf: &Leaf) -> &Leaf {
    match leaf {
        Leaf::Block(body) => body
            .groups
            .first()
            .map(|group| first_plain_leaf(&group.leaf))
            .unwrap_or(leaf),
        _ => leaf,
    }
}

/// How many blocks a comparison unfolds before it gives up and reports the blocks as
/// different (see the module documentation).
const MAX_BLOCK_UNFOLDINGS: usize = 64;

/// One level of a walk over a normal form: a group list, the current group, and how many
/// occurrences of its leaf are left.
struct Frame<'form> {
    groups: &'form [Group],
    index: usize,
    remaining: BigUint,
}

impl<'form> Frame<'form> {
    fn new(groups: &'form [Group]) -> Frame<'form> {
        Frame {
            groups,
            index: 0,
            remaining: groups
                .first()
                .map(|group| group.count.clone())
                .unwrap_or_default(),
        }
    }

    /// Consume `step` occurrences of the current leaf.
    fn consume(&mut self, step: &BigUint) {
        self.remaining -= step;
        if self.remaining.is_zero() {
            self.index += 1;
            if let Some(group) = self.groups.get(self.index) {
                self.remaining = group.count.clone();
            }
        }
    }
}

/// A run-by-run walk over a normal form that can unfold one repetition of a block.
struct Cursor<'form> {
    frames: Vec<Frame<'form>>,
}

impl<'form> Cursor<'form> {
    fn new(form: &'form NormalForm) -> Cursor<'form> {
        Cursor {
            frames: vec![Frame::new(&form.groups)],
        }
    }

    /// Drop the finished levels.
    fn settle(&mut self) {
        while self
            .frames
            .last()
            .is_some_and(|frame| frame.index >= frame.groups.len())
        {
            self.frames.pop();
        }
    }

    /// The current leaf and how many occurrences of it are left in this run.
    fn current(&mut self) -> Option<(&'form Leaf, BigUint)> {
        self.settle();
        let frame = self.frames.last()?;
        Some((&frame.groups[frame.index].leaf, frame.remaining.clone()))
    }

    fn consume(&mut self, step: &BigUint) {
        if let Some(frame) = self.frames.last_mut() {
            frame.consume(step);
        }
    }

    /// Replace one occurrence of the current block leaf by its body.
    fn unfold(&mut self, body: &'form NormalForm) {
        self.consume(&BigUint::one());
        self.frames.push(Frame::new(&body.groups));
    }
}

/// Walk both sequences run by run; `None` when they are equal.
fn first_mismatch(a: &NormalForm, b: &NormalForm) -> Option<Mismatch> {
    if a == b {
        return None;
    }
    let mut position = BigUint::zero();
    let mut cursor_a = Cursor::new(a);
    let mut cursor_b = Cursor::new(b);
    let mut unfoldings_left = MAX_BLOCK_UNFOLDINGS;
    loop {
        let (Some((leaf_a, left)), Some((leaf_b, right))) =
            (cursor_a.current(), cursor_b.current())
        else {
            if cursor_a.current().is_none() && cursor_b.current().is_none() {
                return None;
            }
            return Some(Mismatch::Count {
                a: a.element_count(),
                b: b.element_count(),
            });
        };
        if leaf_a == leaf_b {
            let step = left.min(right);
            position += &step * leaf_a.width();
            cursor_a.consume(&step);
            cursor_b.consume(&step);
            continue;
        }
        let is_block = |leaf: &Leaf| matches!(leaf, Leaf::Block(_));
        if (is_block(leaf_a) || is_block(leaf_b)) && unfoldings_left > 0 {
            unfoldings_left -= 1;
            if let Leaf::Block(body) = leaf_a {
                cursor_a.unfold(body);
            }
            if let Leaf::Block(body) = leaf_b {
                cursor_b.unfold(body);
            }
            continue;
        }
        // Report the first plain leaves when they differ; after too many unfoldings they may
        // be equal, and then the blocks themselves are shown.
        let (plain_a, plain_b) = (first_plain_leaf(leaf_a), first_plain_leaf(leaf_b));
        let (reported_a, reported_b) = if plain_a != plain_b {
            (plain_a, plain_b)
        } else {
            (leaf_a, leaf_b)
        };
        return Some(Mismatch::AtElement {
            index: position,
            a: reported_a.clone(),
            b: reported_b.clone(),
        });
    }
}

/// The whole output of the REPL command `:iso A, B`: `layout-identical: int ^ 6` or
/// `not isomorphic: int ^ 6 vs int ^ 5; element count 6 vs 5`.
pub fn iso_line(a: &Type, b: &Type) -> String {
    match classify(a, b) {
        Iso::LayoutIdentical(form) => format!("layout-identical: {form}"),
        Iso::NotIsomorphic { a, b, mismatch } => {
            format!("not isomorphic: {a} vs {b}; {mismatch}")
        }
    }
}

/// Why a type has no transpose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotTransposable {
    /// The type is not an array of arrays `T ^ M ^ N` nor a matrix `T ^ (A \* B)`.
    NotAMatrix(Type),
    /// The shape mentions a type variable, so its extents are not known.
    UnknownExtent(Type),
}

impl fmt::Display for NotTransposable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotTransposable::NotAMatrix(ty) => write!(
                f,
                "`{ty}` is neither an array of arrays `T ^ M ^ N` nor a matrix `T ^ (A \\* B)`"
            ),
            NotTransposable::UnknownExtent(ty) => {
                write!(f, "the extents of `{ty}` are not known")
            }
        }
    }
}

/// The data-moving isomorphism of the copying `transpose`, derived from the
/// source type: a `rows x columns` arrangement of elements, stored row after row, becomes the
/// `columns x rows` arrangement with element `(i, j)` moved to `(j, i)`.
///
/// For an array of arrays `T ^ M ^ N` the rows are the `size(N)` outer elements and the columns
/// the `size(M)` inner ones; the target is `T ^ N ^ M`. For a matrix `T ^ (A \* B)` (or
/// `T ^ (A \^ 2)`) the rows are indexed by `A`, the most significant digit, and the columns by
/// `B`; the target is `T ^ (B \* A)`. Positions are linear element positions in code order;
/// `source_leaf_u64` maps positions of normal-form leaves, for elements that are themselves
/// tuples or arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransposePermutation {
    source_type: Type,
    target_type: Type,
    rows: BigUint,
    columns: BigUint,
    leaves_per_element: BigUint,
    /// `(rows, columns, leaves_per_element)` when every leaf position fits in a `u64`.
    fast: Option<(u64, u64, u64)>,
}

impl TransposePermutation {
    fn new(
        source_type: Type,
        target_type: Type,
        rows: BigUint,
        columns: BigUint,
        leaves_per_element: BigUint,
    ) -> TransposePermutation {
        let leaf_count = &rows * &columns * &leaves_per_element;
        let fast = match (
            rows.to_u64(),
            columns.to_u64(),
            leaves_per_element.to_u64(),
            leaf_count.to_u64(),
        ) {
            (Some(rows), Some(columns), Some(leaves), Some(_)) => Some((rows, columns, leaves)),
            _ => None,
        };
        TransposePermutation {
            source_type,
            target_type,
            rows,
            columns,
            leaves_per_element,
            fast,
        }
    }

    /// The type of the transpose.
    pub fn target_type(&self) -> &Type {
        &self.target_type
    }

    /// The number of rows of the source (the columns of the target).
    pub fn rows(&self) -> &BigUint {
        &self.rows
    }

    /// The number of columns of the source (the rows of the target).
    pub fn columns(&self) -> &BigUint {
        &self.columns
    }

    /// The number of normal-form leaves one element stands for (0 for a unit element).
    #[cfg(test)]
    pub fn leaves_per_element(&self) -> &BigUint {
        &self.leaves_per_element
    }

    /// The number of elements moved.
    #[cfg(test)]
    pub fn element_count(&self) -> BigUint {
        &self.rows * &self.columns
    }

    /// Does every leaf position fit in a `u64` (so the `_u64` methods answer)?
    #[cfg(test)]
    pub fn fits_u64(&self) -> bool {
        self.fast.is_some()
    }

    /// The source position of the element at target position `target` (in code order), or
    /// `None` when `target` is not below the element count.
    #[cfg(test)]
    pub fn source_of(&self, target: &BigUint) -> Option<BigUint> {
        if *target >= self.element_count() {
            return None;
        }
        // The target is `columns x rows`: target (j, i) holds source (i, j).
        let column = target / &self.rows;
        let row = target % &self.rows;
        Some(row * &self.columns + column)
    }

    /// The target position the element at source position `source` moves to (the inverse of
    /// `source_of`).
    #[cfg(test)]
    pub fn target_of(&self, source: &BigUint) -> Option<BigUint> {
        if *source >= self.element_count() {
            return None;
        }
        let row = source / &self.columns;
        let column = source % &self.columns;
        Some(column * &self.rows + row)
    }

    /// `source_of` on the `u64` fast path: `None` when the positions do not fit in a `u64` or
    /// `target` is out of range.
    #[cfg(test)]
    pub fn source_of_u64(&self, target: u64) -> Option<u64> {
        let (rows, columns, _) = self.fast?;
        if rows == 0 || columns == 0 || target / rows >= columns {
            return None;
        }
        Some((target % rows) * columns + target / rows)
    }

    /// `target_of` on the `u64` fast path.
    #[cfg(test)]
    pub fn target_of_u64(&self, source: u64) -> Option<u64> {
        let (rows, columns, _) = self.fast?;
        if rows == 0 || columns == 0 || source / columns >= rows {
            return None;
        }
        Some((source % columns) * rows + source / columns)
    }

    /// The source position of normal-form leaf `target` of the transpose: whole elements move,
    /// the leaves inside an element keep their order.
    #[cfg(test)]
    pub fn source_leaf_u64(&self, target: u64) -> Option<u64> {
        let (_, _, leaves) = self.fast?;
        if leaves == 0 {
            return None;
        }
        let element = self.source_of_u64(target / leaves)?;
        Some(element * leaves + target % leaves)
    }

    /// The permutation of transposing the transpose back: its `source_of` is this one's
    /// `target_of`.
    #[cfg(test)]
    pub fn inverse(&self) -> TransposePermutation {
        TransposePermutation::new(
            self.target_type.clone(),
            self.source_type.clone(),
            self.columns.clone(),
            self.rows.clone(),
            self.leaves_per_element.clone(),
        )
    }
}

/// Derive the permutation of `transpose` for a value of type `ty`: an array of arrays
/// `T ^ M ^ N` (to `T ^ N ^ M`) or a matrix over a compact product of two factors
/// `T ^ (A \* B)` (to `T ^ (B \* A)`).
pub fn transpose_permutation(ty: &Type) -> Result<TransposePermutation, NotTransposable> {
    let Type::Array(element, index) = ty else {
        return Err(NotTransposable::NotAMatrix(ty.clone()));
    };
    let known = |extent: &Type| size_of(extent).ok_or(NotTransposable::UnknownExtent(ty.clone()));
    if let Type::Array(inner, columns_index) = &**element {
        let leaves = normal_form(inner).element_count();
        let target = Type::array(
            Type::array((**inner).clone(), (**index).clone()),
            (**columns_index).clone(),
        );
        return Ok(TransposePermutation::new(
            ty.clone(),
            target,
            known(index)?,
            known(columns_index)?,
            leaves,
        ));
    }
    let (row_factor, column_factor) = match &**index {
        Type::CProduct(factors) if factors.len() == 2 => (factors[0].clone(), factors[1].clone()),
        Type::CArray(factor, two) if **two == Type::BOOL => {
            ((**factor).clone(), (**factor).clone())
        }
        _ => return Err(NotTransposable::NotAMatrix(ty.clone())),
    };
    let leaves = normal_form(element).element_count();
    let target = Type::array(
        (**element).clone(),
        Type::cproduct(vec![column_factor.clone(), row_factor.clone()]),
    );
    Ok(TransposePermutation::new(
        ty.clone(),
        target,
        known(&row_factor)?,
        known(&column_factor)?,
        leaves,
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::types::ty::{Kind, TyVar};

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    fn array(element: Type, index: Type) -> Type {
        Type::array(element, index)
    }

    fn tuple(components: Vec<Type>) -> Type {
        Type::tuple(components)
    }

    fn cproduct(components: Vec<Type>) -> Type {
        Type::cproduct(components)
    }

    fn int_double() -> Type {
        tuple(vec![Type::INT, Type::Double])
    }

    #[test]
    fn transcript_lines() {
        let rows = array(array(Type::INT, unitsum(2)), unitsum(3));
        let matrix = array(Type::INT, cproduct(vec![unitsum(3), unitsum(2)]));
        assert_eq!(iso_line(&rows, &matrix), "layout-identical: int ^ 6");
        let two_arrays = tuple(vec![
            array(Type::INT, unitsum(3)),
            array(Type::INT, unitsum(2)),
        ]);
        let over_sum = array(Type::INT, Type::csum(vec![unitsum(3), unitsum(2)]));
        assert_eq!(
            iso_line(&two_arrays, &over_sum),
            "layout-identical: int ^ 5"
        );
        assert_eq!(
            iso_line(
                &cproduct(vec![unitsum(3), unitsum(2)]),
                &cproduct(vec![unitsum(2), unitsum(3)])
            ),
            "layout-identical: 6"
        );
        assert_eq!(
            iso_line(&array(Type::INT, unitsum(6)), &array(Type::INT, unitsum(5))),
            "not isomorphic: int ^ 6 vs int ^ 5; element count 6 vs 5"
        );
        assert_eq!(
            iso_line(
                &array(int_double(), unitsum(2)),
                &array(Type::INT, unitsum(4))
            ),
            "not isomorphic: int * double * int * double vs int ^ 4; at element 1: double vs int"
        );
    }

    #[test]
    fn tuples_flatten_and_units_vanish() {
        let nested = tuple(vec![Type::INT, tuple(vec![Type::INT, Type::String])]);
        assert_eq!(normal_form(&nested).to_string(), "int ^ 2 * string");
        let with_units = tuple(vec![Type::UNIT, Type::INT, Type::UNIT, Type::INT]);
        assert_eq!(normal_form(&with_units).to_string(), "int ^ 2");
        assert_eq!(normal_form(&Type::UNIT).to_string(), "unit");
        assert!(normal_form(&Type::carray(unitsum(1), unitsum(9))).is_empty());
        let with_bool = tuple(vec![Type::BOOL, Type::INT]);
        assert_eq!(normal_form(&with_bool).to_string(), "bool * int");
    }

    #[test]
    fn opaque_leaves_print_with_parentheses() {
        let function = Type::fun(Type::INT, Type::INT);
        let sum = Type::sum(vec![Type::INT, Type::Double]);
        let form = normal_form(&tuple(vec![function.clone(), sum.clone(), Type::INT]));
        assert_eq!(form.to_string(), "(int -> int) * (int + double) * int");
        assert_eq!(
            normal_form(&array(function, unitsum(3))).to_string(),
            "(int -> int) ^ 3"
        );
        assert_eq!(normal_form(&sum).to_string(), "int + double");
    }

    #[test]
    fn huge_counts_stay_counts() {
        let huge = array(Type::INT, Type::carray(unitsum(2), unitsum(100)));
        let form = normal_form(&huge);
        assert_eq!(form.groups().len(), 1);
        assert_eq!(form.to_string(), "int ^ 1267650600228229401496703205376");
        let halves = array(
            array(Type::INT, Type::carray(unitsum(2), unitsum(50))),
            Type::carray(unitsum(2), unitsum(50)),
        );
        assert_eq!(classify(&huge, &halves), Iso::LayoutIdentical(form));
    }

    #[test]
    fn huge_repetitions_become_blocks() {
        let huge = array(int_double(), Type::carray(unitsum(2), unitsum(100)));
        let form = normal_form(&huge);
        assert_eq!(form.groups().len(), 1);
        assert_eq!(
            form.to_string(),
            "(int * double) ^ 1267650600228229401496703205376"
        );
        let expected_count = BigUint::from(2u32) << 100u32;
        assert_eq!(form.element_count(), expected_count);
        assert!(matches!(classify(&huge, &huge), Iso::LayoutIdentical(_)));
        let ints = array(Type::INT, Type::carray(unitsum(2), unitsum(101)));
        assert_eq!(
            iso_line(&huge, &ints).rsplit("; ").next(),
            Some("at element 1: double vs int")
        );
    }

    #[test]
    fn shifted_blocks_unfold_until_they_differ() {
        let huge_index = Type::carray(unitsum(2), unitsum(80));
        let a = tuple(vec![Type::INT, array(int_double(), huge_index.clone())]);
        let b = array(int_double(), huge_index);
        assert_eq!(
            iso_line(&a, &b).rsplit("; ").next(),
            Some("at element 1: int vs double")
        );
    }

    #[test]
    fn equal_repetitions_get_equal_blocks() {
        let huge_index = Type::carray(unitsum(2), unitsum(99));
        let pairs = array(array(int_double(), unitsum(2)), huge_index.clone());
        let doubled_index = cproduct(vec![unitsum(2), huge_index]);
        let flat = array(int_double(), doubled_index);
        assert!(matches!(classify(&pairs, &flat), Iso::LayoutIdentical(_)));
        assert_eq!(normal_form(&pairs), normal_form(&flat));
    }

    #[test]
    fn mismatch_after_a_block_counts_its_elements() {
        let huge_index = Type::carray(unitsum(2), unitsum(80));
        let a = tuple(vec![array(int_double(), huge_index.clone()), Type::String]);
        let b = tuple(vec![array(int_double(), huge_index), Type::INT]);
        let line = iso_line(&a, &b);
        assert!(
            line.ends_with("at element 2417851639229258349412352: string vs int"),
            "{line}"
        );
    }

    #[test]
    fn mismatch_positions_count_elements() {
        let a = tuple(vec![array(Type::INT, unitsum(4)), Type::Double]);
        let b = tuple(vec![array(Type::INT, unitsum(4)), Type::String]);
        assert_eq!(
            iso_line(&a, &b),
            "not isomorphic: int ^ 4 * double vs int ^ 4 * string; at element 4: double vs string"
        );
        let shorter = array(Type::INT, unitsum(4));
        assert_eq!(
            iso_line(&a, &shorter),
            "not isomorphic: int ^ 4 * double vs int ^ 4; element count 5 vs 4"
        );
    }

    #[test]
    fn compact_sizes_compare_by_value() {
        let big_a = Type::carray(unitsum(2), unitsum(100));
        let big_b = Type::carray(unitsum(4), unitsum(50));
        assert_eq!(
            iso_line(&big_a, &big_b),
            "layout-identical: 1267650600228229401496703205376"
        );
        assert_eq!(
            iso_line(&unitsum(6), &Type::csum(vec![unitsum(3), unitsum(2)])),
            "not isomorphic: 6 vs 5; at element 0: 6 vs 5"
        );
    }

    #[test]
    fn arrays_over_variables_are_leaves() {
        let variable = Type::Var(TyVar {
            id: 9,
            name: Arc::from("N"),
            kind: Kind::CompactLinear,
        });
        let over_variable = array(Type::INT, variable.clone());
        assert_eq!(normal_form(&over_variable).to_string(), "int ^ N");
        assert_eq!(normal_form(&variable).to_string(), "N");
        assert!(matches!(
            classify(&over_variable, &over_variable),
            Iso::LayoutIdentical(_)
        ));
    }
    fn sources(permutation: &TransposePermutation) -> Vec<u64> {
        let count = permutation
            .element_count()
            .to_u64()
            .expect("a small matrix");
        (0..count)
            .map(|target| permutation.source_of_u64(target).expect("in range"))
            .collect()
    }

    #[test]
    fn transposing_a_matrix_over_a_compact_product() {
        // (1,2,3,4,5,6) :>> int ^ (2 \* 3) transposes to (1,4,2,5,3,6).
        let matrix = array(Type::INT, cproduct(vec![unitsum(2), unitsum(3)]));
        let permutation = transpose_permutation(&matrix).expect("a matrix");
        assert_eq!(
            permutation.target_type(),
            &array(Type::INT, cproduct(vec![unitsum(3), unitsum(2)]))
        );
        assert_eq!(sources(&permutation), vec![0, 3, 1, 4, 2, 5]);
        let values = [1, 2, 3, 4, 5, 6];
        let transposed: Vec<i32> = sources(&permutation)
            .into_iter()
            .map(|source| values[source as usize])
            .collect();
        assert_eq!(transposed, vec![1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn transposing_an_array_of_arrays() {
        // ((1, 2), (3, 4), (5, 6)) : int ^ 2 ^ 3 transposes to ((1, 3, 5), (2, 4, 6)).
        let rows = array(array(Type::INT, unitsum(2)), unitsum(3));
        let permutation = transpose_permutation(&rows).expect("an array of arrays");
        assert_eq!(
            permutation.target_type(),
            &array(array(Type::INT, unitsum(3)), unitsum(2))
        );
        assert_eq!(permutation.rows(), &BigUint::from(3u32));
        assert_eq!(permutation.columns(), &BigUint::from(2u32));
        assert_eq!(sources(&permutation), vec![0, 2, 4, 1, 3, 5]);
    }

    #[test]
    fn transposing_a_square_compact_array_index() {
        let square = array(Type::INT, Type::carray(unitsum(3), unitsum(2)));
        let permutation = transpose_permutation(&square).expect("a square matrix");
        assert_eq!(permutation.target_type(), &square);
        assert_eq!(sources(&permutation), vec![0, 3, 6, 1, 4, 7, 2, 5, 8]);
    }

    #[test]
    fn whole_elements_move_together() {
        // Each element of `(int * double) ^ (2 \* 3)` is two leaves.
        let matrix = array(int_double(), cproduct(vec![unitsum(2), unitsum(3)]));
        let permutation = transpose_permutation(&matrix).expect("a matrix");
        assert_eq!(permutation.leaves_per_element(), &BigUint::from(2u32));
        let leaves: Vec<u64> = (0..12)
            .map(|target| permutation.source_leaf_u64(target).expect("in range"))
            .collect();
        assert_eq!(leaves, vec![0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11]);
    }

    #[test]
    fn out_of_range_positions_have_no_source() {
        let matrix = array(Type::INT, cproduct(vec![unitsum(2), unitsum(3)]));
        let permutation = transpose_permutation(&matrix).expect("a matrix");
        assert_eq!(permutation.source_of_u64(6), None);
        assert_eq!(permutation.target_of_u64(6), None);
        assert_eq!(permutation.source_of(&BigUint::from(6u32)), None);
        assert_eq!(
            permutation.source_of(&BigUint::from(5u32)),
            Some(BigUint::from(5u32))
        );
    }

    #[test]
    fn huge_matrices_use_the_big_path() {
        let half = Type::carray(unitsum(2), unitsum(70));
        let matrix = array(Type::INT, cproduct(vec![half.clone(), unitsum(3)]));
        let permutation = transpose_permutation(&matrix).expect("a matrix");
        assert!(!permutation.fits_u64());
        assert_eq!(permutation.source_of_u64(1), None);
        let rows = BigUint::one() << 70u32;
        // Target position `rows` is (column 1, row 0): source position 1.
        assert_eq!(permutation.source_of(&rows), Some(BigUint::one()));
        let last = permutation.element_count() - 1u32;
        assert_eq!(permutation.source_of(&last), Some(last.clone()));
        assert_eq!(permutation.target_of(&BigUint::one()), Some(rows));
    }

    #[test]
    fn only_matrices_transpose() {
        let flat = array(Type::INT, unitsum(6));
        assert_eq!(
            transpose_permutation(&flat),
            Err(NotTransposable::NotAMatrix(flat.clone()))
        );
        let three_factors = array(
            Type::INT,
            cproduct(vec![unitsum(2), unitsum(3), unitsum(4)]),
        );
        assert!(transpose_permutation(&three_factors).is_err());
        assert!(transpose_permutation(&Type::INT).is_err());
        let variable = Type::Var(TyVar {
            id: 4,
            name: Arc::from("N"),
            kind: Kind::CompactLinear,
        });
        let generic = array(array(Type::INT, unitsum(2)), variable);
        assert_eq!(
            transpose_permutation(&generic),
            Err(NotTransposable::UnknownExtent(generic.clone()))
        );
        assert!(NotTransposable::NotAMatrix(flat)
            .to_string()
            .contains("neither an array of arrays"));
    }
}
