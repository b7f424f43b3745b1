//! Arrays stored in columns (`Buffer::Columns`: an array of tuples, records or structs of
//! scalars, one unboxed buffer per scalar field). The paths that never build the tuple of an
//! element:
//! - a projection `a.i.k` (any chain of projections of an element) reads one column;
//! - `for p in a` whose body uses `p` only through projections `p.k`: the loop variable
//!   holds a *cursor* (a one-element view of the array, moved in place from element to
//!   element), `p.k` reads a column at the cursor, and the variable receives the tuple of the
//!   last element visited when the loop ends, as the loop as written leaves it;
//! - `&a.i <- (e1, e2)`: the components computed unboxed and written into their columns.
//!
//! Every other consumer reads and writes elements through `Columns::get` and `Columns::set`.

use crate::core::ir::{Expr, ExprKind, IndexMode, LabelId, PathStep, Place, Stmt};
use crate::syntax::span::Span;
use crate::types::Type;

use smallvec::SmallVec;

use super::super::array::{make_unique, set_leaf, LeafBuilder, Shape};
use super::super::compact::is_int_like;
use super::super::prims::int_value;
use super::super::value::{Buffer, ColumnField, ColumnLayout, LeafRepr, Scalars, Value};
use super::super::{Ctrl, Frame};
use super::int::is_call_free;
use super::paths::{index_error, unboxed_position};
use super::stmt::{after_body, Flow};
use super::stores::with_place;
use super::{assign, int_ty_of, Compiler, ExprCode, StmtCode};

/// A value read out of a column: an unboxed integer, an unboxed float, or a boxed value.
pub(super) trait ColumnValue: Sized + 'static {
    fn from_column(column: &Scalars, i: usize) -> Self;
    fn from_value(value: Value) -> Self;
}

impl ColumnValue for i64 {
    #[inline(always)]
    fn from_column(column: &Scalars, i: usize) -> i64 {
        column.int(i)
    }
    fn from_value(value: Value) -> i64 {
        value.as_int_lossy()
    }
}

impl ColumnValue for f64 {
    #[inline(always)]
    fn from_column(column: &Scalars, i: usize) -> f64 {
        column.float(i)
    }
    fn from_value(value: Value) -> f64 {
        value.as_float_lossy()
    }
}

impl ColumnValue for Value {
    fn from_column(column: &Scalars, i: usize) -> Value {
        column.get(i)
    }
    fn from_value(value: Value) -> Value {
        value
    }
}

type ColumnCode<T> = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<T, Ctrl> + Send + Sync>;

/// The component at `path` of leaf `i` of a buffer holding elements of `layout`: one load
/// from a column when the buffer is in columns, the element built and projected otherwise.
#[inline(always)]
fn component<T: ColumnValue>(
    buffer: &Buffer,
    i: usize,
    layout: &'static ColumnLayout,
    target: &'static ColumnField,
    path: &[usize],
) -> T {
    match (buffer, target) {
        (Buffer::Columns(columns), ColumnField::Column(c))
            if std::ptr::eq(columns.layout, layout) =>
        {
            T::from_column(&columns.columns[*c], i)
        }
        (Buffer::Columns(columns), ColumnField::Tuple(fields))
            if std::ptr::eq(columns.layout, layout) =>
        {
            T::from_value(ColumnLayout::gather_fields(fields, &mut |c| {
                columns.columns[c].get(i)
            }))
        }
        (other, _) => {
            let mut value = other.get(i);
            for &k in path {
                value = match value {
                    Value::Tuple(parts) => parts.get(k).cloned().unwrap_or(Value::Unit),
                    other => other,
                };
            }
            T::from_value(value)
        }
    }
}

/// `e` as a chain of projections `base.k1.k2…`: the base and the path (`[k1, k2, …]`).
fn projections(e: &Expr) -> (&Expr, Vec<usize>) {
    let mut path = Vec::new();
    let mut current = e;
    while let ExprKind::Field(inner, k) = &current.kind {
        path.push(*k as usize);
        current = inner;
    }
    path.reverse();
    (current, path)
}

impl Compiler<'_> {
    /// A chain of projections of a cursor variable (`p.k` in a column loop) or of an element
    /// of an array stored in columns (`a.i.k`), read from its column; `None` for any other
    /// expression.
    pub(super) fn column_read<T: ColumnValue>(&mut self, e: &Expr) -> Option<ColumnCode<T>> {
        let (base, path) = projections(e);
        if path.is_empty() {
            return None;
        }
        if let Some(code) = self.cursor_read(base, &path) {
            return Some(code);
        }
        let ExprKind::Index { array, index, mode } = &base.kind else {
            return None;
        };
        let shape = Shape::of(&array.ty)?;
        let LeafRepr::Columns(layout) = shape.repr else {
            return None;
        };
        if shape.elem_is_array || !is_int_like(&index.ty) {
            return None;
        }
        let target = layout.field(&path)?;
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let linear = *mode == IndexMode::Linear && matches!(index.ty, Type::Int(_));
        let read = move |value: &Value, raw: i64, path: &[usize]| -> Result<T, Ctrl> {
            let Value::Array(view) = value else {
                return Ok(T::from_value(Value::Unit));
            };
            let position = unboxed_position(raw, linear, index_ity, view.len, &array_ty)
                .map_err(|f| f.at(index_span))?;
            Ok(component(
                &view.buf,
                view.start + position,
                layout,
                target,
                path,
            ))
        };
        // An array held in a variable is read in place when the index cannot change it.
        let in_place = match array.kind {
            ExprKind::Local(s) if is_call_free(index) => Some(Place::Local(s)),
            ExprKind::Global(s)
                if is_call_free(index) && self.uninitialised_check(s, &array.ty).is_none() =>
            {
                Some(Place::Global(s))
            }
            _ => None,
        };
        let index = self.int_code(index);
        Some(match in_place {
            Some(Place::Local(s)) => {
                self.note_slot(s);
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    read(&frame.slots[s], raw, &path)
                })
            }
            Some(Place::Global(s)) => {
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    // SAFETY: `read` only reads the array value.
                    unsafe {
                        frame
                            .rt
                            .globals
                            .read_with(s, |value| read(value, raw, &path))
                    }
                })
            }
            _ => {
                let array = self.expr(array);
                Box::new(move |frame| {
                    let value = array(frame)?;
                    let raw = index(frame)?;
                    read(&value, raw, &path)
                })
            }
        })
    }

    /// `p.k…` for a cursor variable `p` of a column loop being compiled.
    fn cursor_read<T: ColumnValue>(
        &mut self,
        base: &Expr,
        path: &[usize],
    ) -> Option<ColumnCode<T>> {
        let place = match base.kind {
            ExprKind::Local(s) => Place::Local(s),
            ExprKind::Global(s) => Place::Global(s),
            _ => return None,
        };
        let layout = self
            .cursors
            .iter()
            .rev()
            .find(|(p, _)| *p == place)
            .map(|(_, layout)| *layout)?;
        let target = layout.field(path)?;
        let path = path.to_vec();
        let read = move |value: &Value| -> T {
            match value {
                Value::Array(cursor) => component(&cursor.buf, cursor.start, layout, target, &path),
                _ => T::from_value(Value::Unit),
            }
        };
        Some(match place {
            Place::Local(s) => {
                self.note_slot(s);
                let s = s as usize;
                Box::new(move |frame| Ok(read(&frame.slots[s])))
            }
            _ => {
                let Place::Global(s) = place else { return None };
                let s = s as usize;
                // SAFETY: `read` only reads the cursor.
                Box::new(move |frame| Ok(unsafe { frame.rt.globals.read_with(s, &read) }))
            }
        })
    }

    /// `for p in a do … done` over an array stored in columns, when the body uses `p` only
    /// through projections: the loop with a cursor in `p` (see the module's comment); `None`
    /// when the loop does not qualify.
    pub(super) fn column_loop(
        &mut self,
        label: LabelId,
        var: Place,
        array: &Expr,
        body: &[Stmt],
    ) -> Option<StmtCode> {
        let shape = Shape::of(&array.ty)?;
        let LeafRepr::Columns(layout) = shape.repr else {
            return None;
        };
        if shape.elem_is_array
            || !matches!(var, Place::Local(_) | Place::Global(_))
            || !only_projected(body, var)
        {
            return None;
        }
        self.note_place(var);
        let span = array.span;
        let array = self.expr(array);
        self.cursors.push((var, layout));
        let body = self.block(body);
        self.cursors.pop();
        Some(Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(());
            };
            if view.len == 0 {
                return Ok(());
            }
            assign(frame, var, Value::Array(view.slice(0, 1)));
            let mut result = Ok(());
            for i in 0..view.len {
                with_place(frame, var, |cursor| {
                    if let Value::Array(cursor) = cursor {
                        cursor.start = view.start + i;
                    }
                });
                match after_body(body(frame), label, span) {
                    Ok(Flow::Next) => {}
                    Ok(Flow::Exit) => break,
                    Err(ctrl) => {
                        result = Err(ctrl);
                        break;
                    }
                }
            }
            // The variable holds the element of the last iteration, as after the loop.
            let last = with_place(frame, var, |cursor| match cursor {
                Value::Array(cursor) => cursor.leaf(0),
                other => other.clone(),
            });
            assign(frame, var, last);
            result
        }))
    }

    /// `map` (with its function inlined, `MapLoop`) over an array stored in columns, when the
    /// body uses the element only through projections: the body run with a cursor in the
    /// element's slot, the results collected as any map's. `None` when it does not qualify.
    pub(super) fn column_map(
        &mut self,
        var: u32,
        array: &Expr,
        body: &Expr,
        (input, output, result_ty): (&Shape, &Shape, &Type),
        span: Span,
    ) -> Option<ExprCode> {
        let LeafRepr::Columns(layout) = input.repr else {
            return None;
        };
        let place = Place::Local(var);
        if input.elem_is_array
            || !only_projected_in(place, |expr, place| {
                crate::core::visit::each_in_expr(body, expr, place)
            })
        {
            return None;
        }
        self.note_slot(var);
        let array = self.expr(array);
        self.cursors.push((place, layout));
        let body = self.expr(body);
        self.cursors.pop();
        let (output, result_ty) = (*output, result_ty.clone());
        let var = var as usize;
        Some(Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            let mut builder = LeafBuilder::new(output.repr);
            builder
                .reserve(
                    view.len.saturating_mul(output.elem_leaves),
                    &result_ty,
                    &frame.rt.limits,
                )
                .map_err(|f| f.at(span))?;
            if view.len == 0 {
                return Ok(Value::Array(builder.finish()));
            }
            frame.slots[var] = Value::Array(view.slice(0, 1));
            let mut result = Ok(());
            for i in 0..view.len {
                if let Value::Array(cursor) = &mut frame.slots[var] {
                    cursor.start = view.start + i;
                }
                match body(frame) {
                    Ok(value) => builder.push_element(value),
                    Err(ctrl) => {
                        result = Err(ctrl);
                        break;
                    }
                }
            }
            // The slot holds the last element the body saw, as after the loop as written.
            if let Value::Array(cursor) = &frame.slots[var] {
                frame.slots[var] = cursor.leaf(0);
            }
            result.map(|()| Value::Array(builder.finish()))
        }))
    }

    /// `&a.i <- (e1, e2, …)` into a variable holding an array stored in columns, `e1, e2, …`
    /// scalars (nested tuple literals flattened): the components computed unboxed, in order,
    /// then written into their columns, copy-on-write as any store. `None` for other stores.
    pub(super) fn column_store(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> Option<StmtCode> {
        let [PathStep::Index(index, mode)] = path else {
            return None;
        };
        if !matches!(place, Place::Local(_) | Place::Global(_)) || !is_int_like(&index.ty) {
            return None;
        }
        let shape = Shape::of(root_ty)?;
        let LeafRepr::Columns(layout) = shape.repr else {
            return None;
        };
        let n = shape.n_elements?;
        if shape.elem_is_array {
            return None;
        }
        let mut scalars = Vec::with_capacity(layout.kinds.len());
        tuple_literal_scalars(value, &layout.fields, &mut scalars)?;
        // The scalars of a literal come in column order (both depth first).
        let mut parts: Vec<Part> = Vec::with_capacity(scalars.len());
        for (k, (part, column)) in scalars.into_iter().enumerate() {
            let code = match layout.kinds[column] {
                kind if !kind.is_float() && column == k && is_int_like(&part.ty) => {
                    Part::Int(self.int_code(part))
                }
                kind if kind.is_float() && column == k && super::float::is_float(&part.ty) => {
                    Part::Float(self.float_code(part))
                }
                _ => return None,
            };
            parts.push(code);
        }
        self.note_place(place);
        let (mode, ity, span) = (*mode, int_ty_of(&index.ty), index.span);
        let array_ty = root_ty.clone();
        let position = self.int_code(index);
        Some(Box::new(move |frame| {
            let raw = position(frame)?;
            let i: i128 = match mode {
                IndexMode::Linear => int_value(raw, ity),
                IndexMode::Code => raw as u64 as i128,
            };
            if i < 0 || i >= n as i128 {
                return Err(index_error(i, &array_ty, n).at(span));
            }
            let i = i as usize;
            // All components first (one may fault), then the stores.
            let mut bits: SmallVec<[u64; 8]> = SmallVec::with_capacity(parts.len());
            for part in &parts {
                bits.push(match part {
                    Part::Int(code) => code(frame)? as u64,
                    Part::Float(code) => code(frame)?.to_bits(),
                });
            }
            with_place(frame, place, |root| {
                let Value::Array(view) = root else { return };
                match make_unique(view) {
                    Buffer::Columns(columns) if std::ptr::eq(columns.layout, layout) => {
                        for (column, x) in columns.columns.iter_mut().zip(&bits) {
                            column.set_bits(i, *x);
                        }
                    }
                    // Not in columns (built elsewhere): the element as a value.
                    buffer => {
                        let element = layout.gather(&mut |c| match layout.kinds[c].is_float() {
                            false => Value::Int(bits[c] as i64),
                            true => Value::Float(f64::from_bits(bits[c])),
                        });
                        set_leaf(buffer, i, element);
                    }
                }
            });
            Ok(())
        }))
    }
}

/// A component of a stored tuple literal, compiled unboxed.
enum Part {
    Int(super::IntCode),
    Float(super::FloatCode),
}

/// The scalar parts of a tuple literal of the column layout `fields` (nested literals
/// flattened), with their columns, in evaluation order; `None` if `value` is not such a
/// literal.
pub(super) fn tuple_literal_scalars<'e>(
    value: &'e Expr,
    fields: &[ColumnField],
    out: &mut Vec<(&'e Expr, usize)>,
) -> Option<()> {
    let ExprKind::Tuple(parts) = &value.kind else {
        return None;
    };
    if parts.len() != fields.len() {
        return None;
    }
    for (part, field) in parts.iter().zip(fields) {
        match field {
            ColumnField::Column(c) => out.push((part, *c)),
            ColumnField::Tuple(inner) => tuple_literal_scalars(part, inner, out)?,
        }
    }
    Some(())
}

/// Does `body` use `var` only as the base of projections `var.k`, never assign, bind, capture
/// or address it? For a global, also: nothing in the body may read or write it out of sight
/// (no call, no pointer), since during the loop it holds a cursor.
fn only_projected(body: &[Stmt], var: Place) -> bool {
    body.iter()
        .all(|s| !(matches!(var, Place::Global(_)) && matches!(s, Stmt::StoreAt { .. })))
        && only_projected_in(var, |expr, place| {
            crate::core::visit::each_in_stmts(body, expr, place)
        })
}

/// The check of `only_projected` over the expressions and places `walk` visits.
fn only_projected_in(
    var: Place,
    walk: impl FnOnce(&mut dyn FnMut(&Expr), &mut dyn FnMut(Place)),
) -> bool {
    let global = matches!(var, Place::Global(_));
    let reads = |e: &Expr| match (&e.kind, var) {
        (ExprKind::Local(s), Place::Local(t)) | (ExprKind::Global(s), Place::Global(t)) => *s == t,
        _ => false,
    };
    let (mut all_reads, mut projected, mut ok, mut bound) = (0usize, 0usize, true, false);
    walk(
        &mut |e| {
            if reads(e) {
                all_reads += 1;
            }
            match &e.kind {
                ExprKind::Field(inner, _) if reads(inner) => projected += 1,
                // A function value may capture the variable.
                ExprKind::Closure { .. } | ExprKind::MakeFun { .. } => ok = false,
                ExprKind::AddrOf { place, .. } if *place == var => ok = false,
                ExprKind::Call { .. }
                | ExprKind::AddrOf { .. }
                | ExprKind::PtrProject { .. }
                | ExprKind::Deref(_)
                | ExprKind::PtrCast(_)
                    if global =>
                {
                    ok = false
                }
                ExprKind::Prim(prim, _) if global && crate::core::prims::calls_or_writes(prim) => {
                    ok = false
                }
                _ => {}
            }
        },
        &mut |p| bound |= p == var,
    );
    ok && !bound && all_reads == projected
}
