//! Arrays stored in columns (`Buffer::Columns`: an array of tuples, records or structs of
//! scalars, one unboxed buffer per scalar field). The paths that never build the tuple of an
//! element:
//! - a projection `a.i.k` (any chain of projections of an element) reads one column;
//! - `for p in a` whose body uses `p` only through projections `p.k`: the loop variable
//!   holds a *cursor* (a one-element view of the array, moved in place from element to
//!   element), `p.k` reads a column at the cursor, and the variable receives the tuple of the
//!   last element visited when the loop ends, as the loop as written leaves it.
//!
//! Every other consumer reads and writes elements through `Columns::get` and `Columns::set`.

use crate::core::ir::{Expr, ExprKind, IndexMode, LabelId, Place, Stmt};
use crate::types::Type;

use super::super::array::Shape;
use super::super::compact::is_int_like;
use super::super::value::{Buffer, ColumnField, ColumnLayout, LeafRepr, Scalars, Value};
use super::super::{Ctrl, Frame};
use super::int::is_call_free;
use super::paths::unboxed_position;
use super::stmt::{after_body, Flow};
use super::stores::with_place;
use super::{assign, int_ty_of, Compiler, StmtCode};

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
