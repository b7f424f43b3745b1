//! Store paths and pointers: a path `x.i.k` compiled to steps (fields, checked indices),
//! stores through a path, and the pointer operations (address-of, projection, dereference,
//! cast, store through a pointer).

use std::sync::Arc;

use num_traits::ToPrimitive;

use crate::core::ir::{Expr, ExprKind, IndexMode, PathStep, Place};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::array::{self, Shape};
use super::super::code::{ExprCode, StmtCode};
use super::super::compact::{code_u64, CArrayLayout, CodeRepr, Digit, ProductLayout};
use super::super::error::{
    runtime_error, used_before_initialisation, Fault, INDEX_OUT_OF_RANGE, INTERNAL,
};
use super::super::pointer::{store_into, Base, Pointer, Step, StepKind};
use super::super::prims::int_value;
use super::super::value::Value;
use super::super::{Ctrl, Frame};
use super::{assign, int_ty_of, internal, internal_stmt, record_components, take_place, Compiler};

/// R0011 when global `slot` still holds the placeholder of a variable whose declaration has
/// not run (reads, stores and addresses of it are all uses).
#[inline]
pub(super) fn check_initialised(
    frame: &Frame<'_, '_>,
    slot: usize,
    def: &crate::core::ir::GlobalDef,
    span: Span,
) -> Result<(), Ctrl> {
    // SAFETY: the closure only inspects the value.
    let unset = unsafe {
        frame
            .rt
            .globals
            .read_with(slot, |v| matches!(v, Value::Unit))
    };
    if unset {
        Err(used_before_initialisation(def, span))
    } else {
        Ok(())
    }
}

/// Where a store is reported: from its first index (or the value) to its value.
pub(super) fn store_span(path: &[PathStep], value: &Expr) -> Span {
    match path.first() {
        Some(PathStep::Index(index, _)) => {
            Span::new(index.span.start.min(value.span.start), value.span.end)
        }
        _ => value.span,
    }
}

pub(crate) fn index_error(position: i128, array_ty: &Type, n: usize) -> Fault {
    let plural = if n == 1 { "element" } else { "elements" };
    Fault::new(
        INDEX_OUT_OF_RANGE,
        format!("index {position} out of range for {array_ty} ({n} {plural})"),
    )
}

/// The element position an index value denotes, checked against `n` elements.
#[inline]
pub(super) fn position_of(
    index: &Value,
    mode: IndexMode,
    index_ity: IntTy,
    n: usize,
    array_ty: &Type,
) -> Result<usize, Fault> {
    let position: i128 = match mode {
        IndexMode::Linear => int_value(index.as_int_lossy(), index_ity),
        IndexMode::Code => match index {
            Value::Big(b) => b.to_i128().unwrap_or(i128::MAX),
            other => code_u64(other) as i128,
        },
    };
    if position < 0 || position >= n as i128 {
        return Err(index_error(position, array_ty, n));
    }
    Ok(position as usize)
}

/// The element position an unboxed integer index denotes (`linear`: a signed `index_ity`
/// value; otherwise a compact code), checked against `n` elements.
#[inline]
pub(super) fn unboxed_position(
    raw: i64,
    linear: bool,
    index_ity: IntTy,
    n: usize,
    array_ty: &Type,
) -> Result<usize, Fault> {
    let position = if linear {
        int_value(raw, index_ity)
    } else {
        raw as u64 as i128
    };
    if position < 0 || position >= n as i128 {
        return Err(index_error(position, array_ty, n));
    }
    Ok(position as usize)
}

/// One step of a compiled store path.
struct StoreStep {
    /// How the step finds its component.
    kind: StepKind,
    /// The number of elements a dynamic index is checked against.
    n_elements: usize,
    container: Type,
    index: StepIndex,
}

enum StepIndex {
    Field(usize),
    Dynamic {
        code: ExprCode,
        mode: IndexMode,
        ity: IntTy,
        span: Span,
    },
}

/// The positions a compiled path's steps select, dynamic indices checked (R0001).
fn step_positions(
    steps: &[StoreStep],
    frame: &mut Frame<'_, '_>,
) -> Result<smallvec::SmallVec<[usize; 4]>, Ctrl> {
    let mut positions = smallvec::SmallVec::with_capacity(steps.len());
    for step in steps {
        positions.push(match &step.index {
            StepIndex::Field(i) => *i,
            StepIndex::Dynamic {
                code,
                mode,
                ity,
                span,
            } => {
                let index = code(frame)?;
                position_of(&index, *mode, *ity, step.n_elements, &step.container)
                    .map_err(|fault| fault.at(*span))?
            }
        });
    }
    Ok(positions)
}

/// A compiled pointer access: the pointer to start from and the steps a projection adds.
struct PointerAccess {
    base: ExprCode,
    steps: Vec<StoreStep>,
    span: Span,
}

impl PointerAccess {
    /// The base pointer and the positions of the added steps.
    fn resolve(
        &self,
        frame: &mut Frame<'_, '_>,
    ) -> Result<(Arc<Pointer>, smallvec::SmallVec<[usize; 4]>), Ctrl> {
        let Value::Ptr(p) = (self.base)(frame)? else {
            return Err(runtime_error(INTERNAL, "a pointer expected", self.span));
        };
        Ok((p, step_positions(&self.steps, frame)?))
    }
}

impl Step for StoreStep {
    fn kind(&self) -> &StepKind {
        &self.kind
    }
}

impl Compiler<'_> {
    /// Compile the steps of a path into a value of type `root_ty` (a store path or a
    /// pointer's); `Err` with a message when the path cannot be compiled.
    fn path_steps(&mut self, root_ty: &Type, path: &[PathStep]) -> Result<Vec<StoreStep>, String> {
        let mut steps = Vec::with_capacity(path.len());
        let mut container = root_ty.clone();
        for step in path {
            let (kind, n_elements, next) = match &container {
                Type::Array(elem, _) => {
                    let shape = Shape::of(&container).expect("an array type has a shape");
                    let n = shape.n_elements.unwrap_or(0);
                    (StepKind::Element(shape), n, (**elem).clone())
                }
                Type::CArray(elem, _) => match CArrayLayout::of(&container) {
                    Some(layout) => {
                        let n = layout.n;
                        (StepKind::CElement(layout), n, (**elem).clone())
                    }
                    None => return Err("a compact array too large to index".into()),
                },
                Type::CProduct(cs) => {
                    let (PathStep::Field(i), Some(layout)) = (step, ProductLayout::of(&container))
                    else {
                        return Err("a bad compact store path".into());
                    };
                    let i = *i as usize;
                    let next = cs.get(i).cloned().unwrap_or(Type::UNIT);
                    (StepKind::CField(Digit::of_field(&layout, i)), 0, next)
                }
                _ => {
                    let next = match step {
                        PathStep::Field(i) => record_components(&container)
                            .and_then(|cs| cs.get(*i as usize).cloned())
                            .unwrap_or(Type::UNIT),
                        PathStep::Index(..) => Type::UNIT,
                    };
                    (StepKind::Field, 0, next)
                }
            };
            let index = match step {
                PathStep::Field(i) => StepIndex::Field(*i as usize),
                PathStep::Index(e, mode) => StepIndex::Dynamic {
                    ity: int_ty_of(&e.ty),
                    span: e.span,
                    mode: *mode,
                    code: self.expr(e),
                },
            };
            steps.push(StoreStep {
                kind,
                n_elements,
                container,
                index,
            });
            container = next;
        }
        Ok(steps)
    }

    /// `&x.path <- value`. A store into a global that may run before the global's declaration
    /// is R0011 then (as a read would be): a store into the placeholder would be lost and
    /// the stores of the kernels assume the declared shape.
    pub(super) fn store(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> StmtCode {
        let code = self.store_unchecked(place, root_ty, path, value);
        match self.global_needing_check(place, root_ty) {
            None => code,
            Some((slot, def)) => {
                let span = store_span(path, value);
                Box::new(move |frame| {
                    check_initialised(frame, slot, &def, span)?;
                    code(frame)
                })
            }
        }
    }

    /// The slot and definition of `place` when it is a global that code compiled here may
    /// reach before its declaration has run (see `uninitialised_check`).
    pub(super) fn global_needing_check(
        &self,
        place: Place,
        ty: &Type,
    ) -> Option<(usize, Arc<crate::core::ir::GlobalDef>)> {
        match place {
            Place::Global(s) => self.uninitialised_check(s, ty).map(|def| (s as usize, def)),
            _ => None,
        }
    }

    fn store_unchecked(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        value: &Expr,
    ) -> StmtCode {
        self.note_place(place);
        let steps = match self.path_steps(root_ty, path) {
            Ok(steps) => steps,
            Err(message) => return internal_stmt(message, value.span),
        };
        let value = self.expr(value);
        Box::new(move |frame| {
            let positions = step_positions(&steps, frame)?;
            let new = value(frame)?;
            let mut root = take_place(frame, place);
            store_into(&mut root, &steps, &positions, new);
            assign(frame, place, root);
            Ok(())
        })
    }

    /// `&x.path`: a pointer to a variable (a global, or a cell) and a path into it.
    pub(super) fn address(
        &mut self,
        place: Place,
        root_ty: &Type,
        path: &[PathStep],
        span: Span,
    ) -> ExprCode {
        self.note_place(place);
        let steps = match self.path_steps(root_ty, path) {
            Ok(steps) => steps,
            Err(message) => return internal(message, span),
        };
        let uninitialised = self.global_needing_check(place, root_ty);
        Box::new(move |frame| {
            if let Some((slot, def)) = &uninitialised {
                check_initialised(frame, *slot, def, span)?;
            }
            let positions = step_positions(&steps, frame)?;
            let base = match place {
                Place::Global(s) => Base::Global(s),
                Place::LocalCell(s) => match &frame.slots[s as usize] {
                    Value::Cell(cell) => Base::Cell(cell.clone()),
                    plain => {
                        let cell = crate::eval::value::new_cell(plain.clone());
                        frame.slots[s as usize] = Value::Cell(cell.clone());
                        Base::Cell(cell)
                    }
                },
                Place::CaptureCell(i) => match frame.captures.get(i as usize) {
                    Some(Value::Cell(cell)) => Base::Cell(cell.clone()),
                    _ => {
                        return Err(runtime_error(
                            INTERNAL,
                            "address of a captured value that is not a cell",
                            span,
                        ))
                    }
                },
                Place::Local(_) => {
                    return Err(runtime_error(
                        INTERNAL,
                        "address of a local that is not a cell",
                        span,
                    ))
                }
            };
            let steps = steps
                .iter()
                .zip(positions)
                .map(|(step, position)| (step.kind.clone(), position))
                .collect();
            Ok(Value::Ptr(Arc::new(Pointer { base, steps })))
        })
    }

    /// `p.path`: the pointer `p` extended by a path into its target.
    pub(super) fn pointer_projection(
        &mut self,
        pointer: &Expr,
        path: &[PathStep],
        span: Span,
    ) -> ExprCode {
        let Some((_, target)) = pointer.ty.pointee() else {
            return internal("projection of a non-pointer", span);
        };
        let target = target.clone();
        let steps = match self.path_steps(&target, path) {
            Ok(steps) => steps,
            Err(message) => return internal(message, span),
        };
        let pointer = self.expr(pointer);
        Box::new(move |frame| {
            let Value::Ptr(base) = pointer(frame)? else {
                return Err(runtime_error(INTERNAL, "a pointer expected", span));
            };
            let positions = step_positions(&steps, frame)?;
            let more = steps
                .iter()
                .zip(positions)
                .map(|(step, position)| (step.kind.clone(), position));
            Ok(Value::Ptr(Arc::new(base.project(more))))
        })
    }

    /// `*p`.
    pub(super) fn dereference(&mut self, pointer: &Expr, ty: &Type, span: Span) -> ExprCode {
        let repr = CodeRepr::of(ty);
        let access = self.pointer_access(pointer);
        Box::new(move |frame| {
            let (p, positions) = access.resolve(frame)?;
            p.load(frame, &access.steps, &positions, repr)
                .map_err(|fault| fault.at(span))
        })
    }

    /// A pointer expression about to be read or stored through. A projection `p.path` is
    /// kept as `p` and the path's steps, so `*p.i` and `p.i <- v` make no intermediate
    /// pointer.
    fn pointer_access(&mut self, pointer: &Expr) -> PointerAccess {
        if let ExprKind::PtrProject {
            pointer: base,
            path,
        } = &pointer.kind
        {
            if let Some((_, target)) = base.ty.pointee() {
                if let Ok(steps) = self.path_steps(&target.clone(), path) {
                    return PointerAccess {
                        base: self.expr(base),
                        steps,
                        span: pointer.span,
                    };
                }
            }
        }
        PointerAccess {
            base: self.expr(pointer),
            steps: Vec::new(),
            span: pointer.span,
        }
    }

    /// `C_hack::cast[&U] p`.
    pub(super) fn pointer_cast(&mut self, pointer: &Expr, ty: &Type, span: Span) -> ExprCode {
        let (Some((_, from)), Some((_, to))) = (pointer.ty.pointee(), ty.pointee()) else {
            return internal("cast of a non-pointer", span);
        };
        let (from, to) = (from.clone(), to.clone());
        let code = self.expr(pointer);
        if matches!(from, Type::Array(..))
            && matches!(to, Type::Array(..))
            && array::same_leaves(&from, &to)
        {
            // The same leaves in the same order: steps computed from `U` index the same view.
            return code;
        }
        Box::new(move |frame| match code(frame)? {
            Value::Ptr(inner) => Ok(Value::Ptr(Arc::new(Pointer {
                base: Base::Cast {
                    inner,
                    from: from.clone(),
                    to: to.clone(),
                },
                steps: Vec::new(),
            }))),
            _ => Err(runtime_error(INTERNAL, "a pointer expected", span)),
        })
    }

    /// `p <- v;`.
    pub(super) fn store_at(&mut self, pointer: &Expr, value: &Expr) -> StmtCode {
        let span = pointer.span;
        let access = self.pointer_access(pointer);
        let value = self.expr(value);
        Box::new(move |frame| {
            let (p, positions) = access.resolve(frame)?;
            let new = value(frame)?;
            p.store(frame, &access.steps, &positions, new)
                .map_err(|fault| fault.at(span))?;
            Ok(())
        })
    }
}
