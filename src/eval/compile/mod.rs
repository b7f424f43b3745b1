//! Compilation of the typed IR into trees of boxed closures.
//!
//! Every IR node becomes one closure; locals are frame slots, kernels are chosen here from the
//! `Prim` and the operand types, and layouts (radices, weights, offsets, array shapes) are
//! computed once. At run time the closures only unwrap values.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

use crate::core::ir::{
    ArithOp, Arm, BitOp, Capture, CmpOp, CoerceKind, Const, Expr, ExprKind, FunId, IndexMode,
    LabelId, PathStep, Pattern, PatternKind, Place, Prim, RangeKind, Stmt,
};
use crate::core::subst::instantiate;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, NominalBody};
use crate::types::Type;

use super::array::{self, LeafBuilder, Shape};
use super::closure::{
    apply, apply_one, call_instance, call_scalar, Closure, Instance, InstanceCode, IntEntry,
};
use super::compact::{
    code_big, code_u64, size_big, value_from_big, value_from_u64, CArrayLayout, CodeRepr, Digit,
    ProductLayout, SumLayout,
};
use super::error::{
    decode_error, interrupted, runtime_error, used_before_initialisation, Fault,
    CONVERSION_OUT_OF_RANGE, INDEX_OUT_OF_RANGE, INTERNAL, NO_MATCH, OVERFLOW,
};
use super::format as show;
use super::pointer::{store_into, Base, Pointer, Step, StepKind};
use super::prims::{
    self, float_arith, float_holds, holds, int_arith, int_from_i128, int_value, is_unsigned_64,
    round_float,
};
use super::value::{leaf_repr, leaf_type, Buffer, Value};
use super::vector::is_int_like;
use super::{Ctrl, Frame, Program};

mod columns;
mod float;
mod inlined;
mod loops;
mod stores;
pub use inlined::peel;

use super::code::{BindCode, CondCode, ExprCode, FloatCode, IntCode, StmtCode};

/// Compiles one unit's code, and every function instance it reaches, against a session's
/// program (function table and instance cache).
pub struct Compiler<'p> {
    program: &'p mut Program,
    /// One more than the highest slot used by the code being compiled.
    slots_used: usize,
    /// How many function instances are being compiled (0: the unit's top level).
    in_function: usize,
    /// Globals assigned by a top-level statement compiled so far (so run before any later
    /// top-level statement).
    defined: std::collections::HashSet<u32>,
    /// The variables of the column loops being compiled, which hold cursors (`columns.rs`).
    cursors: Vec<(Place, &'static super::value::ColumnLayout)>,
}

fn internal(message: impl Into<String>, span: Span) -> ExprCode {
    let message = message.into();
    Box::new(move |_| Err(runtime_error(INTERNAL, message.clone(), span)))
}

fn internal_stmt(message: impl Into<String>, span: Span) -> StmtCode {
    let message = message.into();
    Box::new(move |_| Err(runtime_error(INTERNAL, message.clone(), span)))
}

fn lock(cell: &Mutex<Value>) -> MutexGuard<'_, Value> {
    cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Read a variable.
#[inline]
pub fn read_place(frame: &Frame<'_, '_>, place: Place) -> Value {
    match place {
        Place::Local(s) => frame.slots[s as usize].clone(),
        Place::LocalCell(s) => match &frame.slots[s as usize] {
            Value::Cell(cell) => lock(cell).clone(),
            plain => plain.clone(),
        },
        Place::Global(s) => frame.rt.globals.get(s as usize),
        Place::CaptureCell(i) => match frame.captures.get(i as usize) {
            Some(Value::Cell(cell)) => lock(cell).clone(),
            Some(plain) => plain.clone(),
            None => Value::Unit,
        },
    }
}

/// Assign a variable.
#[inline]
pub fn assign(frame: &mut Frame<'_, '_>, place: Place, value: Value) {
    match place {
        Place::Local(s) => frame.slots[s as usize] = value,
        Place::LocalCell(s) => match &frame.slots[s as usize] {
            Value::Cell(cell) => *lock(cell) = value,
            _ => frame.slots[s as usize] = Value::Cell(Arc::new(Mutex::new(value))),
        },
        Place::Global(s) => frame.rt.globals.set(s as usize, value),
        Place::CaptureCell(i) => {
            if let Some(Value::Cell(cell)) = frame.captures.get(i as usize) {
                *lock(cell) = value;
            }
        }
    }
}

/// Read an integer-like variable without copying a `Value`.
#[inline]
fn read_int(frame: &Frame<'_, '_>, place: Place) -> i64 {
    match place {
        Place::Local(s) => frame.slots[s as usize].as_int_lossy(),
        Place::Global(s) => frame.rt.globals.get_int(s as usize),
        _ => read_place(frame, place).as_int_lossy(),
    }
}

/// Store an integer into a slot, in place when it already holds an integer (no drop).
#[inline]
fn store_int(slot: &mut Value, value: i64) {
    match slot {
        Value::Int(x) => *x = value,
        other => float::replace_value(other, Value::Int(value)),
    }
}

/// Assign an integer-like variable.
#[inline]
fn write_int(frame: &mut Frame<'_, '_>, place: Place, value: i64) {
    match place {
        Place::Local(s) => store_int(&mut frame.slots[s as usize], value),
        Place::Global(s) => frame.rt.globals.set_int(s as usize, value),
        _ => assign(frame, place, Value::Int(value)),
    }
}

/// Take a variable's value out (leaving `Unit`), so that a copy-on-write store finds its
/// storage unshared.
fn take_place(frame: &mut Frame<'_, '_>, place: Place) -> Value {
    match place {
        Place::Local(s) => std::mem::replace(&mut frame.slots[s as usize], Value::Unit),
        Place::LocalCell(s) => match &frame.slots[s as usize] {
            Value::Cell(cell) => std::mem::replace(&mut *lock(cell), Value::Unit),
            _ => std::mem::replace(&mut frame.slots[s as usize], Value::Unit),
        },
        Place::Global(s) => frame.rt.globals.take(s as usize),
        Place::CaptureCell(i) => match frame.captures.get(i as usize) {
            Some(Value::Cell(cell)) => std::mem::replace(&mut *lock(cell), Value::Unit),
            Some(plain) => plain.clone(),
            None => Value::Unit,
        },
    }
}

/// The value of a constant of type `ty`.
pub fn const_value(constant: &Const, ty: &Type) -> Value {
    let compact = crate::types::kind::is_compact(ty);
    match constant {
        Const::Unit => Value::Unit,
        Const::Int(_) if ty.is_unit() => Value::Unit,
        Const::Int(i) if compact && CodeRepr::of(ty) == CodeRepr::Big => {
            value_from_u64(*i as u64, CodeRepr::Big)
        }
        Const::Int(i) => Value::Int(*i),
        Const::Float(x) => Value::Float(*x),
        Const::Str(s) => Value::Str(Arc::new(s.to_vec())),
        Const::Big(b) if compact => value_from_big((**b).clone(), CodeRepr::of(ty)),
        Const::Big(b) => Value::Big(b.clone()),
    }
}

/// What a loop does after one run of its body.
enum Flow {
    Next,
    Exit,
}

/// The loop back-edge: also where Ctrl-C is noticed (R0012 at `span`, the loop's header).
#[inline]
fn after_body(result: Result<(), Ctrl>, label: LabelId, span: Span) -> Result<Flow, Ctrl> {
    if crate::interrupt::requested() {
        return Err(interrupted(span));
    }
    match result {
        Ok(()) => Ok(Flow::Next),
        Err(Ctrl::Break(l)) if l == label => Ok(Flow::Exit),
        Err(Ctrl::Continue(l)) if l == label => Ok(Flow::Next),
        Err(other) => Err(other),
    }
}

/// The integer type of an expression (for index and count operands), `int` otherwise.
fn int_ty_of(ty: &Type) -> IntTy {
    match ty {
        Type::Int(ity) => *ity,
        _ => IntTy::Long,
    }
}

/// Components of a tuple-like type: a tuple's or a struct's.
fn record_components(ty: &Type) -> Option<Vec<Type>> {
    match ty {
        Type::Tuple(cs) => Some(cs.to_vec()),
        Type::Nominal(def) => match def.body.get() {
            Some(NominalBody::Struct(fields)) => {
                Some(fields.iter().map(|(_, t)| t.clone()).collect())
            }
            _ => None,
        },
        _ => None,
    }
}

fn index_error(position: i128, array_ty: &Type, n: usize) -> Fault {
    let plural = if n == 1 { "element" } else { "elements" };
    Fault::new(
        INDEX_OUT_OF_RANGE,
        format!("index {position} out of range for {array_ty} ({n} {plural})"),
    )
}

/// The element position an index value denotes, checked against `n` elements.
#[inline]
fn position_of(
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

impl<'p> Compiler<'p> {
    /// A compiler for a unit's top level, whose frame has `slots` slots so far (those of
    /// the unit's own code and of the bodies inlined into it).
    pub fn new(program: &'p mut Program, slots: usize) -> Compiler<'p> {
        Compiler {
            program,
            slots_used: slots,
            in_function: 0,
            defined: std::collections::HashSet::new(),
            cursors: Vec::new(),
        }
    }

    /// Compile a unit's top-level statements, in order, noting which globals each one
    /// certainly initialises for the reads compiled after it.
    pub fn top_level_block(&mut self, stmts: &[Stmt]) -> StmtCode {
        let mut codes: Vec<StmtCode> = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            codes.push(self.stmt(stmt));
            if let Stmt::Assign(Place::Global(s), _) = stmt {
                self.defined.insert(*s);
            }
        }
        Box::new(move |frame| {
            for code in &codes {
                code(frame)?;
            }
            Ok(())
        })
    }

    /// The definition of global `s` when a read of it compiled here may run before its
    /// initialiser (in a function, or at the top level before its definition), and its type
    /// has more than one value; `None` when the read needs no check.
    fn uninitialised_check(&self, s: u32, ty: &Type) -> Option<Arc<crate::core::ir::GlobalDef>> {
        if self.program.initialised.contains(&s)
            || (self.in_function == 0 && self.defined.contains(&s))
        {
            return None;
        }
        if crate::types::size::size_of(ty).is_some_and(|n| n == BigUint::from(1u32)) {
            return None;
        }
        self.program.global_defs.get(&s).cloned()
    }

    /// A read of global `s` that reports R0011 when it has not been initialised yet.
    fn checked_global_read(def: Arc<crate::core::ir::GlobalDef>, span: Span) -> ExprCode {
        let s = def.slot as usize;
        Box::new(move |frame| match frame.rt.globals.get(s) {
            Value::Unit => Err(used_before_initialisation(&def, span)),
            value => Ok(value),
        })
    }

    /// The frame size the top-level code compiled so far needs.
    pub fn top_level_slots(&self) -> usize {
        self.slots_used
    }

    fn note_slot(&mut self, slot: u32) {
        self.slots_used = self.slots_used.max(slot as usize + 1);
    }

    fn note_place(&mut self, place: Place) {
        match place {
            Place::Local(s) | Place::LocalCell(s) => self.note_slot(s),
            Place::Global(_) | Place::CaptureCell(_) => {}
        }
    }

    /// The compiled instance of function `fun` at `type_args`, compiling it (and everything it
    /// reaches) on first use. Recursive references find the instance in the cache before its
    /// code is set.
    pub fn instance(&mut self, fun: FunId, type_args: &[Type]) -> Option<Arc<Instance>> {
        let key = (fun, type_args.to_vec());
        if let Some(found) = self.program.instances.get(&key) {
            return Some(found.clone());
        }
        let generic = self.program.inlined_functions.get(fun as usize)?.clone()?;
        let function = if generic.type_params.is_empty() {
            generic
        } else {
            Arc::new(instantiate(&generic, type_args))
        };
        let instance = Arc::new(Instance {
            name: function.name.clone(),
            span: function.span,
            unit: self.program.unit_of(fun),
            n_groups: function.params.len(),
            cell_slots: function.cell_slots.clone(),
            captures: function.captures.clone(),
            code: OnceLock::new(),
        });
        self.program.instances.insert(key, instance.clone());
        let outer_slots = std::mem::replace(&mut self.slots_used, function.n_slots as usize);
        // A function's own slots are not the cursors of the loop it is compiled from.
        let outer_cursors = std::mem::take(&mut self.cursors);
        self.in_function += 1;
        for slot in &function.cell_slots {
            self.note_slot(*slot);
        }
        let params: Vec<BindCode> = function.params.iter().map(|p| self.pattern(p)).collect();
        let param_slots = function
            .params
            .iter()
            .map(|p| match p.kind {
                PatternKind::Bind(Place::Local(s)) => Some(s as usize),
                _ => None,
            })
            .collect();
        let body = self.block(&function.body);
        let expr_body = match function.body.as_slice() {
            [Stmt::Return(Some(e))] => Some(self.expr(e)),
            _ => None,
        };
        let int_body = match function.body.as_slice() {
            [Stmt::Return(Some(e))] if is_int_like(&e.ty) => Some(self.int_code(e)),
            _ => None,
        };
        let float_body = match function.body.as_slice() {
            [Stmt::Return(Some(e))] if float::is_float(&e.ty) => Some(self.float_code(e)),
            _ => None,
        };
        let int_entry = match (function.params.as_slice(), function.cell_slots.is_empty()) {
            (
                [Pattern {
                    kind: PatternKind::Bind(Place::Local(slot)),
                    ..
                }],
                true,
            ) => Some(*slot as usize),
            _ => None,
        };
        let n_slots = std::mem::replace(&mut self.slots_used, outer_slots);
        self.cursors = outer_cursors;
        self.in_function -= 1;
        let _ = instance.code.set(InstanceCode {
            n_slots,
            params,
            param_slots,
            body,
            expr_body,
            int_body,
            float_body,
            int_entry: int_entry.map(|slot| IntEntry { n_slots, slot }),
        });
        Some(instance)
    }

    // ----- statements -----

    /// A statement list run in order.
    /// A loop's body: its statements run by the loop's own closure (no closure call for the
    /// block itself on every iteration).
    fn loop_body(&mut self, stmts: &[Stmt]) -> Block {
        let mut codes: Vec<StmtCode> = stmts.iter().map(|s| self.stmt(s)).collect();
        match codes.len() {
            1 => Block::One(codes.pop().expect("one statement")),
            _ => Block::Many(codes),
        }
    }

    pub fn block(&mut self, stmts: &[Stmt]) -> StmtCode {
        let mut codes: Vec<StmtCode> = stmts.iter().map(|s| self.stmt(s)).collect();
        match codes.len() {
            0 => Box::new(|_| Ok(())),
            1 => codes.pop().expect("one statement"),
            _ => Box::new(move |frame| {
                for code in &codes {
                    code(frame)?;
                }
                Ok(())
            }),
        }
    }

    pub fn stmt(&mut self, stmt: &Stmt) -> StmtCode {
        // A loop's variable has its value in the loop's body, even when it is a global first
        // assigned by the loop (no R0011 check needed on its reads there).
        let loop_var = match stmt {
            Stmt::ForRange { var, .. }
            | Stmt::ForCodes { var, .. }
            | Stmt::ForArray { var, .. } => Some(*var),
            _ => None,
        };
        let newly_defined = match loop_var {
            Some(Place::Global(s)) => self.defined.insert(s).then_some(s),
            _ => None,
        };
        let code = self.stmt_code(stmt);
        if let Some(s) = newly_defined {
            self.defined.remove(&s);
        }
        code
    }

    fn stmt_code(&mut self, stmt: &Stmt) -> StmtCode {
        match stmt {
            Stmt::Expr(e) => {
                let code = self.expr(e);
                Box::new(move |frame| code(frame).map(|_| ()))
            }
            Stmt::Assign(place, e) if is_int_like(&e.ty) => {
                let place = *place;
                self.note_place(place);
                if let ExprKind::Prim(Prim::IntArith(op, ity), args) = &e.kind {
                    if args.len() == 2 && matches!(place, Place::Local(_) | Place::Global(_)) {
                        // One closure for `x = a op b`: the operation and the store fused.
                        let a = self.int_operand(&args[0]);
                        let b = self.int_operand(&args[1]);
                        let (op, ity, span) = (*op, *ity, e.span);
                        return with_int_operands!(a, b, |x, y| crate::with_fast_int_op!(
                            op,
                            ity,
                            assign_int_binary(place, x, y, op, ity, span)
                        ));
                    }
                }
                let code = self.int_code(e);
                match place {
                    Place::Local(s) => Box::new(move |frame| {
                        let value = code(frame)?;
                        store_int(&mut frame.slots[s as usize], value);
                        Ok(())
                    }),
                    Place::Global(s) => Box::new(move |frame| {
                        let value = code(frame)?;
                        frame.rt.globals.set_int(s as usize, value);
                        Ok(())
                    }),
                    _ => Box::new(move |frame| {
                        let value = code(frame)?;
                        write_int(frame, place, value);
                        Ok(())
                    }),
                }
            }
            Stmt::Assign(place, e) if float::is_float(&e.ty) => self.assign_float(*place, e),
            Stmt::Assign(place, e) => {
                if let Some(code) = self.string_append(*place, e) {
                    return code;
                }
                let place = *place;
                self.note_place(place);
                let code = self.expr(e);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    assign(frame, place, value);
                    Ok(())
                })
            }
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => self.store(*place, root_ty, path, value),
            Stmt::StoreAt { pointer, value } => self.store_at(pointer, value),
            Stmt::If(c, then_branch, else_branch) => {
                let cond = self.condition(c);
                let then_code = self.block(then_branch);
                let else_code = self.block(else_branch);
                Box::new(move |frame| {
                    if cond.eval(frame)? {
                        then_code(frame)
                    } else {
                        else_code(frame)
                    }
                })
            }
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => {
                let (label, until) = (*label, *until);
                let span = cond.span;
                let cond = self.condition(cond);
                let body = self.loop_body(body);
                Box::new(move |frame| {
                    while cond.eval(frame)? != until {
                        if let Flow::Exit = after_body(body.run(frame), label, span)? {
                            break;
                        }
                    }
                    Ok(())
                })
            }
            Stmt::Loop { label, body } => {
                let label = *label;
                let body = self.loop_body(body);
                Box::new(move |frame| loop {
                    if let Flow::Exit = after_body(body.run(frame), label, Span::default())? {
                        return Ok(());
                    }
                })
            }
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => self.for_range(*label, *var, *var_ty, from, to, *kind, body),
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => self.for_codes(*label, *var, ty, body),
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => {
                let (label, var) = (*label, *var);
                self.note_place(var);
                let Some(shape) = Shape::of_array_or_unit(&array.ty) else {
                    let error = internal("for over a value that is not an array", array.span);
                    return Box::new(move |frame| error(frame).map(|_| ()));
                };
                let span = array.span;
                if let (false, Type::Array(elem, _)) = (shape.elem_is_array, &array.ty) {
                    let repr = shape.repr;
                    let elements = |c: &mut Self| Some(loops::Elements::Array(c.expr(array), repr));
                    if let Some(fused) = self.accumulate_loop(var, elem, elements, body) {
                        return fused;
                    }
                }
                if let Some(code) = self.column_loop(label, var, array, body) {
                    return code;
                }
                let array = self.expr(array);
                let body = self.block(body);
                Box::new(move |frame| {
                    let Value::Array(view) = array(frame)? else {
                        return Ok(());
                    };
                    for i in 0..shape.len_of(&view) {
                        assign(frame, var, shape.element(&view, i));
                        if let Flow::Exit = after_body(body(frame), label, span)? {
                            break;
                        }
                    }
                    Ok(())
                })
            }
            Stmt::Break(label) => {
                let label = *label;
                Box::new(move |_| Err(Ctrl::Break(label)))
            }
            Stmt::Continue(label) => {
                let label = *label;
                Box::new(move |_| Err(Ctrl::Continue(label)))
            }
            Stmt::Return(None) => Box::new(|frame| Err(frame.rt.give_return(Value::Unit))),
            Stmt::Return(Some(e)) => {
                let code = self.expr(e);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    Err(frame.rt.give_return(value))
                })
            }
            Stmt::Match(scrutinee, arms) => {
                let span = scrutinee.span;
                let ty = scrutinee.ty.clone();
                let scrutinee = self.expr(scrutinee);
                let arms: Vec<CompiledArm<StmtCode>> = arms
                    .iter()
                    .map(|arm| self.arm(arm, |c, b| c.block(b)))
                    .collect();
                Box::new(move |frame| {
                    let value = scrutinee(frame)?;
                    match select_arm(frame, &arms, &value)? {
                        Some(body) => body(frame),
                        None => Err(no_match(&value, &ty, span)),
                    }
                })
            }
            Stmt::Block(stmts) => self.block(stmts),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_range(
        &mut self,
        label: LabelId,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) -> StmtCode {
        let limit_ity = int_ty_of(&to.ty);
        if kind == RangeKind::Exclusive && !is_unsigned_64(var_ty) && !is_unsigned_64(limit_ity) {
            if let Some(fused) = self.fused_range_store(label, var, var_ty, from, to, body) {
                return fused;
            }
        }
        self.counting_loop(label, var, var_ty, from, to, kind, body)
    }

    /// A numeric loop as written (L5.9): `to` re-evaluated at every test.
    #[allow(clippy::too_many_arguments)]
    fn counting_loop(
        &mut self,
        label: LabelId,
        var: Place,
        var_ty: IntTy,
        from: &Expr,
        to: &Expr,
        kind: RangeKind,
        body: &[Stmt],
    ) -> StmtCode {
        self.note_place(var);
        let limit_ity = int_ty_of(&to.ty);
        let span = to.span;
        let from = self.int_code(from);
        if kind == RangeKind::Exclusive && !is_unsigned_64(var_ty) && !is_unsigned_64(limit_ity) {
            // The common counting loop, in native integers: both the variable and the limit
            // are their own i64 values.
            let to = self.int_operand(to);
            let body = self.loop_body(body);
            let last = var_ty.max() as i64;
            let looping = CountingLoop {
                label,
                var_ty,
                last,
                span,
            };
            return match (var, to) {
                (Place::Local(s), IntOperand::Const(limit)) => {
                    looping.build(LocalVar(s as usize), from, ConstRead(limit), body)
                }
                (Place::Global(s), IntOperand::Const(limit)) => {
                    looping.build(GlobalVar(s as usize), from, ConstRead(limit), body)
                }
                (Place::Local(s), to) => looping.build(LocalVar(s as usize), from, to, body),
                (Place::Global(s), to) => looping.build(GlobalVar(s as usize), from, to, body),
                (var, to) => looping.build(PlaceVar(var), from, to, body),
            };
        }
        let to = self.int_code(to);
        let body = self.block(body);
        let current = move |frame: &Frame<'_, '_>| -> i128 {
            let raw = match var {
                Place::Local(s) => frame.slots[s as usize].as_int_lossy(),
                _ => read_place(frame, var).as_int_lossy(),
            };
            int_value(raw, var_ty)
        };
        let step = move |frame: &mut Frame<'_, '_>, value: i128| -> Result<(), Ctrl> {
            let stored = int_from_i128(value, var_ty).ok_or_else(|| {
                runtime_error(
                    OVERFLOW,
                    format!(
                        "{} overflow: loop variable stepped to {value}",
                        var_ty.name()
                    ),
                    span,
                )
            })?;
            match var {
                Place::Local(s) => frame.slots[s as usize] = Value::Int(stored),
                _ => assign(frame, var, Value::Int(stored)),
            }
            Ok(())
        };
        Box::new(move |frame| {
            let start = from(frame)?;
            assign(frame, var, Value::Int(start));
            loop {
                let limit = int_value(to(frame)?, limit_ity);
                let i = current(frame);
                let enter = match kind {
                    RangeKind::Exclusive => i < limit,
                    RangeKind::Inclusive => i <= limit,
                    RangeKind::Downto => i >= limit,
                };
                if !enter {
                    return Ok(());
                }
                if let Flow::Exit = after_body(body(frame), label, span)? {
                    return Ok(());
                }
                let i = current(frame);
                match kind {
                    RangeKind::Exclusive => step(frame, i + 1)?,
                    RangeKind::Inclusive => {
                        let limit = int_value(to(frame)?, limit_ity);
                        if i >= limit {
                            return Ok(());
                        }
                        step(frame, i + 1)?
                    }
                    RangeKind::Downto => {
                        let limit = int_value(to(frame)?, limit_ity);
                        if i <= limit {
                            return Ok(());
                        }
                        step(frame, i - 1)?
                    }
                }
            }
        })
    }

    fn for_codes(&mut self, label: LabelId, var: Place, ty: &Type, body: &[Stmt]) -> StmtCode {
        if let (CodeRepr::Small, Some(n)) = (CodeRepr::of(ty), size_big(ty).to_u64()) {
            if let Some(store) = self.fused_store(var, IndexMode::Code, body) {
                if store.n() == n {
                    return Box::new(move |frame| {
                        store.run(frame, var, 0, n)?;
                        if n > 0 {
                            write_int(frame, var, (n - 1) as i64);
                        }
                        Ok(())
                    });
                }
            }
        }
        if CodeRepr::of(ty) == CodeRepr::Small {
            if let Some(n) = size_big(ty).to_u64() {
                let counter = |_: &mut Self| Some(loops::Elements::Counter(n));
                if let Some(fused) = self.accumulate_loop(var, ty, counter, body) {
                    return fused;
                }
            }
        }
        self.note_place(var);
        let repr = CodeRepr::of(ty);
        let size = size_big(ty);
        let body = self.block(body);
        let span = Span::default();
        match size.to_u128() {
            Some(n) if repr != CodeRepr::Big => Box::new(move |frame| {
                let mut code: u128 = 0;
                while code < n {
                    assign(frame, var, value_from_u64(code as u64, repr));
                    if let Flow::Exit = after_body(body(frame), label, span)? {
                        break;
                    }
                    code += 1;
                }
                Ok(())
            }),
            _ => Box::new(move |frame| {
                let mut code = BigUint::zero();
                while code < size {
                    assign(frame, var, value_from_big(code.clone(), repr));
                    if let Flow::Exit = after_body(body(frame), label, span)? {
                        break;
                    }
                    code += 1u32;
                }
                Ok(())
            }),
        }
    }

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

    fn store(&mut self, place: Place, root_ty: &Type, path: &[PathStep], value: &Expr) -> StmtCode {
        if let Some(code) = self.scalar_store(place, root_ty, path, value) {
            return code;
        }
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

    // ----- pointers (L11.1-L11.7) -----

    /// `&x.path`: a pointer to a variable (a global, or a cell) and a path into it.
    fn address(&mut self, place: Place, root_ty: &Type, path: &[PathStep], span: Span) -> ExprCode {
        self.note_place(place);
        let steps = match self.path_steps(root_ty, path) {
            Ok(steps) => steps,
            Err(message) => return internal(message, span),
        };
        Box::new(move |frame| {
            let positions = step_positions(&steps, frame)?;
            let base = match place {
                Place::Global(s) => Base::Global(s),
                Place::LocalCell(s) => match &frame.slots[s as usize] {
                    Value::Cell(cell) => Base::Cell(cell.clone()),
                    plain => {
                        let cell = Arc::new(Mutex::new(plain.clone()));
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

    /// `p.path`: the pointer `p` extended by a path into its target (L11.3).
    fn pointer_projection(&mut self, pointer: &Expr, path: &[PathStep], span: Span) -> ExprCode {
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

    /// `*p` (L11.2).
    fn dereference(&mut self, pointer: &Expr, ty: &Type, span: Span) -> ExprCode {
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

    /// `C_hack::cast[&U] p` (L11.7).
    fn pointer_cast(&mut self, pointer: &Expr, ty: &Type, span: Span) -> ExprCode {
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

    /// `p <- v;` (L11.2).
    fn store_at(&mut self, pointer: &Expr, value: &Expr) -> StmtCode {
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

    // ----- patterns and match -----

    fn arm<B, C>(&mut self, arm: &Arm<B>, body: impl FnOnce(&mut Self, &B) -> C) -> CompiledArm<C> {
        CompiledArm {
            patterns: arm.patterns.iter().map(|p| self.pattern(p)).collect(),
            guard: arm.guard.as_ref().map(|g| self.expr(g)),
            body: body(self, &arm.body),
        }
    }

    pub fn pattern(&mut self, pattern: &Pattern) -> BindCode {
        match &pattern.kind {
            PatternKind::Wildcard => Box::new(|_, _| Ok(true)),
            PatternKind::Bind(place) => {
                let place = *place;
                self.note_place(place);
                Box::new(move |frame, value| {
                    assign(frame, place, value);
                    Ok(true)
                })
            }
            PatternKind::Const(c) => {
                let expected = const_value(c, &pattern.ty);
                let compare = prims::comparator(&pattern.ty);
                Box::new(move |_, value| Ok(compare(&value, &expected).is_eq()))
            }
            PatternKind::Range(lo, hi) => {
                let (lo, hi) = (const_value(lo, &pattern.ty), const_value(hi, &pattern.ty));
                let compare = prims::comparator(&pattern.ty);
                Box::new(move |_, value| {
                    Ok(compare(&value, &lo).is_ge() && compare(&value, &hi).is_le())
                })
            }
            PatternKind::Tuple(parts) => {
                let codes: Vec<BindCode> = parts.iter().map(|p| self.pattern(p)).collect();
                let shape = Shape::of(&pattern.ty);
                Box::new(move |frame, value| {
                    for (i, code) in codes.iter().enumerate() {
                        let part = match (&value, &shape) {
                            (Value::Tuple(items), _) => {
                                items.get(i).cloned().unwrap_or(Value::Unit)
                            }
                            (Value::Array(view), Some(shape)) => shape.element(view, i),
                            _ => Value::Unit,
                        };
                        if !code(frame, part)? {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                })
            }
            PatternKind::Inject { tag, arg } => {
                let tag = *tag;
                let arg = arg.as_ref().map(|a| self.pattern(a));
                Box::new(move |frame, value| {
                    let (actual, payload) = match value {
                        Value::Sum(sum) => (sum.0, sum.1.clone()),
                        Value::Int(code) => (code as u32, Value::Unit),
                        _ => return Ok(false),
                    };
                    if actual != tag {
                        return Ok(false);
                    }
                    match &arg {
                        Some(code) => code(frame, payload),
                        None => Ok(true),
                    }
                })
            }
            PatternKind::CInject { tag, arg } => {
                let tag = *tag as usize;
                let arg = arg.as_ref().map(|a| self.pattern(a));
                let Some(layout) = SumLayout::of(&pattern.ty) else {
                    // A unitsum matched by case number: the code is the tag.
                    return Box::new(move |_, value| Ok(code_u64(&value) == tag as u64));
                };
                Box::new(move |frame, value| {
                    let (actual, payload) = layout.split(&value);
                    if actual != tag {
                        return Ok(false);
                    }
                    match &arg {
                        Some(code) => code(frame, payload),
                        None => Ok(true),
                    }
                })
            }
        }
    }

    // ----- unboxed integer code -----

    /// Compile an expression of an integer-like type to code producing the unboxed `i64`.
    pub fn int_code(&mut self, e: &Expr) -> IntCode {
        if let Some(code) = self.try_int_code(e) {
            return code;
        }
        let code = self.expr(e);
        Box::new(move |frame| Ok(code(frame)?.as_int_lossy()))
    }

    /// Compile an integer-like operand: constants and variable reads are kept as data so the
    /// operator's closure reads them inline instead of calling a nested closure.
    fn int_operand(&mut self, e: &Expr) -> IntOperand {
        match &e.kind {
            ExprKind::Const(Const::Int(i)) if is_int_like(&e.ty) => IntOperand::Const(*i),
            ExprKind::Local(s) if is_int_like(&e.ty) => {
                self.note_slot(*s);
                IntOperand::Local(*s as usize)
            }
            ExprKind::Global(s) if is_int_like(&e.ty) => {
                match self.uninitialised_check(*s, &e.ty) {
                    None => IntOperand::Global(*s as usize),
                    Some(def) => {
                        let read = Self::checked_global_read(def, e.span);
                        IntOperand::Code(Box::new(move |frame| Ok(read(frame)?.as_int_lossy())))
                    }
                }
            }
            ExprKind::Prim(Prim::IntArith(op @ (ArithOp::Add | ArithOp::Sub), ity), args)
                if args.len() == 2 && ity.signed() && matches!(ity.bits(), 32 | 64) =>
            {
                match (&args[0].kind, &args[1].kind) {
                    (ExprKind::Local(s), ExprKind::Const(Const::Int(delta)))
                        if is_int_like(&args[0].ty) =>
                    {
                        self.note_slot(*s);
                        IntOperand::Offset(OffsetRead {
                            slot: *s as usize,
                            delta: *delta,
                            subtract: *op == ArithOp::Sub,
                            ity: *ity,
                            span: e.span,
                        })
                    }
                    _ => IntOperand::Code(self.int_code(e)),
                }
            }
            ExprKind::Prim(Prim::Widen, args) if args.len() == 1 && is_int_like(&args[0].ty) => {
                self.int_operand(&args[0])
            }
            _ => IntOperand::Code(self.int_code(e)),
        }
    }

    /// The instance a direct call of `func` runs with `call_scalar`: a named function (not
    /// inlined), capture-free, of one parameter group.
    fn scalar_callee(&mut self, func: &Expr) -> Option<Arc<Instance>> {
        let ExprKind::MakeFun { fun, type_args } = &func.kind else {
            return None;
        };
        let instance = self.instance(*fun, type_args)?;
        (instance.captures.is_empty() && instance.n_groups == 1).then_some(instance)
    }

    /// A condition to be evaluated inline by a loop or a branch: a comparison of scalar
    /// operands is kept as data (no closure call of its own), anything else is `cond_code`.
    pub(super) fn condition(&mut self, e: &Expr) -> Condition {
        if let ExprKind::Prim(Prim::Compare(op), args) = &e.kind {
            if args.len() == 2 && float::is_float(&args[0].ty) {
                return Condition::Float(
                    *op,
                    self.float_operand(&args[0]),
                    self.float_operand(&args[1]),
                );
            }
            if args.len() == 2
                && int_comparable(&args[0].ty)
                && !unsigned_codes(&args[0].ty)
                && args[0].ty != Type::Char
            {
                return Condition::Int(*op, self.int_operand(&args[0]), self.int_operand(&args[1]));
            }
        }
        Condition::Code(self.cond_code(e))
    }

    /// Compile a condition (a `bool` expression).
    pub fn cond_code(&mut self, e: &Expr) -> CondCode {
        match &e.kind {
            ExprKind::Inlined(inlined) if inlined.stmts.is_empty() && inlined.result.is_some() => {
                let code = self.cond_code(inlined.result.as_ref().expect("a result"));
                inlined::framed(code, inlined)
            }
            ExprKind::Prim(Prim::Not, args) if args.len() == 1 => {
                let a = self.cond_code(&args[0]);
                Box::new(move |frame| Ok(!a(frame)?))
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.cond_code(a), self.cond_code(b));
                Box::new(move |frame| Ok(a(frame)? && b(frame)?))
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.cond_code(a), self.cond_code(b));
                Box::new(move |frame| Ok(a(frame)? || b(frame)?))
            }
            ExprKind::Prim(Prim::Compare(op), args)
                if args.len() == 2 && float::is_float(&args[0].ty) =>
            {
                self.float_compare(*op, &args[0], &args[1])
            }
            ExprKind::Prim(Prim::Compare(op), args)
                if args.len() == 2 && int_comparable(&args[0].ty) =>
            {
                let op = *op;
                let unsigned = unsigned_codes(&args[0].ty);
                let a = self.int_operand(&args[0]);
                let b = self.int_operand(&args[1]);
                if args[0].ty == Type::Char && !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    // `char` is signed (L11.26): bytes above 127 order below 0.
                    Box::new(move |frame| {
                        let x = a.eval(frame)? as u8 as i8;
                        Ok(holds(op, x.cmp(&(b.eval(frame)? as u8 as i8))))
                    })
                } else if unsigned {
                    Box::new(move |frame| {
                        let x = a.eval(frame)? as u64;
                        Ok(holds(op, x.cmp(&(b.eval(frame)? as u64))))
                    })
                } else {
                    with_int_operands!(a, b, |x, y| Box::new(move |frame| {
                        let left = x.read(frame)?;
                        Ok(holds(op, left.cmp(&y.read(frame)?)))
                    }))
                }
            }
            _ if is_int_like(&e.ty) => {
                let code = self.int_code(e);
                Box::new(move |frame| Ok(code(frame)? != 0))
            }
            _ => {
                let code = self.expr(e);
                Box::new(move |frame| Ok(code(frame)?.truthy()))
            }
        }
    }

    /// Unboxed code for the integer-like expressions that dominate loops and arithmetic;
    /// `None` for other shapes (the caller boxes them as usual).
    fn try_int_code(&mut self, e: &Expr) -> Option<IntCode> {
        if !is_int_like(&e.ty) {
            return None;
        }
        let span = e.span;
        match &e.kind {
            ExprKind::Inlined(inlined) => self.inlined_int(inlined),
            ExprKind::Field(..) => self.column_read::<i64>(e),
            ExprKind::Prim(Prim::Convert, args) if args.len() == 1 => {
                self.try_convert_int(e, &args[0])
            }
            ExprKind::Const(Const::Int(i)) => {
                let i = *i;
                Some(Box::new(move |_| Ok(i)))
            }
            ExprKind::Local(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Some(Box::new(move |frame| Ok(frame.slots[s].as_int_lossy())))
            }
            ExprKind::Global(s) => match self.uninitialised_check(*s, &e.ty) {
                None => {
                    let s = *s as usize;
                    Some(Box::new(move |frame| Ok(frame.rt.globals.get_int(s))))
                }
                Some(def) => {
                    let read = Self::checked_global_read(def, e.span);
                    Some(Box::new(move |frame| Ok(read(frame)?.as_int_lossy())))
                }
            },
            ExprKind::Prim(Prim::IntArith(op, ity), args) if args.len() == 2 => {
                let a = self.int_operand(&args[0]);
                let b = self.int_operand(&args[1]);
                let (op, ity) = (*op, *ity);
                Some(with_int_operands!(a, b, |x, y| crate::with_fast_int_op!(
                    op,
                    ity,
                    scalar_int_binary(x, y, op, ity, span)
                )))
            }
            ExprKind::Prim(Prim::Widen, args) if args.len() == 1 && is_int_like(&args[0].ty) => {
                Some(self.int_code(&args[0]))
            }
            // Bitwise operators and shifts (L11.30) stay unboxed in integer loops.
            ExprKind::Prim(Prim::IntBit(op, ity), args) if args.len() == 2 => {
                let a = self.int_code(&args[0]);
                let b = self.int_code(&args[1]);
                let (op, ity) = (*op, *ity);
                Some(match op {
                    BitOp::And => Box::new(move |frame| Ok(a(frame)? & b(frame)?)),
                    BitOp::Or => Box::new(move |frame| Ok(a(frame)? | b(frame)?)),
                    BitOp::Xor => Box::new(move |frame| Ok(a(frame)? ^ b(frame)?)),
                    BitOp::Shl | BitOp::Shr => Box::new(move |frame| {
                        let x = a(frame)?;
                        prims::int_bit(op, ity, x, b(frame)?).map_err(|f| f.at(span))
                    }),
                })
            }
            ExprKind::Prim(Prim::IntCompl(ity), args) if args.len() == 1 => {
                let a = self.int_code(&args[0]);
                let ity = *ity;
                Some(Box::new(move |frame| Ok(prims::int_compl(ity, a(frame)?))))
            }
            ExprKind::Prim(Prim::Compare(_), args)
                if args.len() == 2 && int_comparable(&args[0].ty) =>
            {
                let cond = self.cond_code(e);
                Some(Box::new(move |frame| Ok(cond(frame)? as i64)))
            }
            ExprKind::Prim(Prim::Not, _) | ExprKind::And(..) | ExprKind::Or(..) => {
                let cond = self.cond_code(e);
                Some(Box::new(move |frame| Ok(cond(frame)? as i64)))
            }
            ExprKind::Coerce(CoerceKind::EncodeInt, inner) if is_int_like(&inner.ty) => {
                let Type::Int(ity) = e.ty else { return None };
                let code = self.int_code(inner);
                Some(Box::new(move |frame| {
                    let c = code(frame)? as u64;
                    int_from_i128(c as i128, ity).ok_or_else(|| {
                        runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!(
                                "conversion out of range: code {c} does not fit {}",
                                ity.name()
                            ),
                            span,
                        )
                    })
                }))
            }
            ExprKind::Coerce(CoerceKind::Reinterpret, inner) if is_int_like(&inner.ty) => {
                Some(self.int_code(inner))
            }
            ExprKind::CField(inner, index) => {
                let (radix, weight) = ProductLayout::small_digit(&inner.ty, *index as usize)?;
                if radix == 0 || weight == 0 {
                    return None;
                }
                let code = self.int_code(inner);
                Some(Box::new(move |frame| {
                    Ok(((code(frame)? as u64 / weight) % radix) as i64)
                }))
            }
            ExprKind::Index { array, index, mode } => self.int_index(array, index, *mode),
            ExprKind::Call { func, args } if args.len() == 1 => {
                let instance = self.scalar_callee(func)?;
                if is_int_like(&args[0].ty) {
                    // The argument as an unboxed integer read by its kind, boxed only into the
                    // callee's slot.
                    return Some(match self.int_operand(&args[0]) {
                        IntOperand::Const(i) => int_call(ConstRead(i), instance, span),
                        IntOperand::Local(i) => int_call(LocalRead(i), instance, span),
                        IntOperand::Global(i) => int_call(GlobalRead(i), instance, span),
                        IntOperand::Offset(offset) => int_call(offset, instance, span),
                        IntOperand::Code(code) => int_call(CodeRead(code), instance, span),
                    });
                }
                let arg = self.expr(&args[0]);
                Some(Box::new(move |frame| {
                    let value = arg(frame)?;
                    call_scalar::<i64, Value>(frame.rt, &instance, value, span)
                }))
            }
            ExprKind::If(c, a, b) => {
                if let ExprKind::Prim(Prim::Compare(op), operands) = &c.kind {
                    if operands.len() == 2
                        && int_comparable(&operands[0].ty)
                        && !unsigned_codes(&operands[0].ty)
                        && operands[0].ty != Type::Char
                    {
                        // The comparison evaluated inline: no condition closure.
                        let op = *op;
                        let x = self.int_operand(&operands[0]);
                        let y = self.int_operand(&operands[1]);
                        let (a, b) = (self.int_operand(a), self.int_operand(b));
                        return Some(with_int_operands!(x, y, |x, y| Box::new(move |frame| {
                            let left = x.read(frame)?;
                            if holds(op, left.cmp(&y.read(frame)?)) {
                                a.eval(frame)
                            } else {
                                b.eval(frame)
                            }
                        })));
                    }
                }
                let (c, a, b) = (self.cond_code(c), self.int_code(a), self.int_code(b));
                Some(Box::new(
                    move |frame| {
                        if c(frame)? {
                            a(frame)
                        } else {
                            b(frame)
                        }
                    },
                ))
            }
            _ => None,
        }
    }

    /// An element of an integer array held in a variable, read without copying the array
    /// value. Only when the index cannot change the variable (no calls), so reading the
    /// variable after the index is the same as before it.
    fn int_index(&mut self, array: &Expr, index: &Expr, mode: IndexMode) -> Option<IntCode> {
        if let Type::CArray(..) = array.ty {
            return self.int_carray_index(array, index, mode);
        }
        let shape = Shape::of(&array.ty)?;
        if shape.elem_is_array || shape.repr != super::value::LeafRepr::I64 || !is_call_free(index)
        {
            return None;
        }
        let place = match array.kind {
            ExprKind::Local(s) => {
                self.note_slot(s);
                Place::Local(s)
            }
            ExprKind::Global(s) if self.uninitialised_check(s, &array.ty).is_none() => {
                Place::Global(s)
            }
            _ => return None,
        };
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let linear = mode == IndexMode::Linear && matches!(index.ty, Type::Int(_));
        let index = self.int_code(index);
        let leaf = move |value: &Value, raw: i64| -> Result<i64, Ctrl> {
            let Value::Array(view) = value else {
                return Ok(0);
            };
            let position = unboxed_position(raw, linear, index_ity, view.len, &array_ty)
                .map_err(|f| f.at(index_span))?;
            match &*view.buf {
                Buffer::I64(values) => Ok(values[view.start + position]),
                _ => Ok(0),
            }
        };
        Some(match place {
            Place::Local(s) => {
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    leaf(&frame.slots[s], raw)
                })
            }
            _ => {
                let Place::Global(s) = place else { return None };
                let s = s as usize;
                Box::new(move |frame| {
                    let raw = index(frame)?;
                    // SAFETY: `leaf` only reads the array value.
                    unsafe { frame.rt.globals.read_with(s, |value| leaf(value, raw)) }
                })
            }
        })
    }

    /// An element of a compact array whose codes fit in 64 bits, as an unboxed integer.
    fn int_carray_index(&mut self, array: &Expr, index: &Expr, mode: IndexMode) -> Option<IntCode> {
        let layout = CArrayLayout::of(&array.ty)?;
        if CodeRepr::of(&array.ty) != CodeRepr::Small || layout.elem != CodeRepr::Small {
            return None;
        }
        layout.small_element(0, 0)?;
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let linear = mode == IndexMode::Linear && matches!(index.ty, Type::Int(_));
        let code = self.int_code(array);
        let index = self.int_code(index);
        Some(Box::new(move |frame| {
            let code = code(frame)? as u64;
            let raw = index(frame)?;
            let position = unboxed_position(raw, linear, index_ity, layout.n, &array_ty)
                .map_err(|f| f.at(index_span))?;
            Ok(layout.small_element(code, position).unwrap_or(0) as i64)
        }))
    }

    // ----- expressions -----

    pub fn expr(&mut self, e: &Expr) -> ExprCode {
        let span = e.span;
        if let Some(code) = self.try_int_code(e) {
            return Box::new(move |frame| code(frame).map(Value::Int));
        }
        if matches!(
            e.kind,
            ExprKind::Prim(
                Prim::FloatArith(..) | Prim::FloatNeg | Prim::FloatFn(..) | Prim::Convert,
                _
            ) | ExprKind::Call { .. }
        ) {
            if let Some(code) = self.try_float_code(e) {
                return Box::new(move |frame| code(frame).map(Value::Float));
            }
        }
        match &e.kind {
            ExprKind::Const(c) => {
                let value = const_value(c, &e.ty);
                Box::new(move |_| Ok(value.clone()))
            }
            ExprKind::Zero => {
                if matches!(e.ty, Type::Array(..)) || record_components(&e.ty).is_some() {
                    let ty = e.ty.clone();
                    Box::new(move |frame| {
                        array::zero_value(&ty, &frame.rt.limits).map_err(|f| f.at(span))
                    })
                } else {
                    let value =
                        array::zero_value(&e.ty, &self.program.limits).unwrap_or(Value::Unit);
                    Box::new(move |_| Ok(value.clone()))
                }
            }
            ExprKind::Local(s) => {
                self.note_slot(*s);
                let s = *s as usize;
                Box::new(move |frame| Ok(frame.slots[s].clone()))
            }
            ExprKind::LocalCell(s) => {
                self.note_slot(*s);
                let place = Place::LocalCell(*s);
                Box::new(move |frame| Ok(read_place(frame, place)))
            }
            ExprKind::Global(s) => match self.uninitialised_check(*s, &e.ty) {
                None => {
                    let place = Place::Global(*s);
                    Box::new(move |frame| Ok(read_place(frame, place)))
                }
                Some(def) => Self::checked_global_read(def, span),
            },
            ExprKind::Capture(i) => {
                let i = *i as usize;
                Box::new(move |frame| Ok(frame.captures.get(i).cloned().unwrap_or(Value::Unit)))
            }
            ExprKind::CaptureCell(i) => {
                let place = Place::CaptureCell(*i);
                Box::new(move |frame| Ok(read_place(frame, place)))
            }
            ExprKind::MakeFun { fun, type_args } => {
                let Some(instance) = self.instance(*fun, type_args) else {
                    return internal(format!("unknown function {fun}"), span);
                };
                self.note_captures(&instance.captures);
                Box::new(move |frame| {
                    let captures = gather_captures(frame, &instance.captures);
                    Ok(Value::Fun(Arc::new(Closure {
                        instance: instance.clone(),
                        captures: captures.into(),
                        args: Vec::new(),
                    })))
                })
            }
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => {
                let Some(instance) = self.instance(*fun, type_args) else {
                    return internal(format!("unknown function {fun}"), span);
                };
                self.note_captures(captures);
                let captures = captures.clone();
                Box::new(move |frame| {
                    let captures = gather_captures(frame, &captures);
                    Ok(Value::Fun(Arc::new(Closure {
                        instance: instance.clone(),
                        captures: captures.into(),
                        args: Vec::new(),
                    })))
                })
            }
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Prim(prim, args) => self.prim(prim, args, &e.ty, span),
            ExprKind::Tuple(parts) if matches!(e.ty, Type::Array(..)) => {
                self.array_literal(parts, &e.ty, span)
            }
            ExprKind::Tuple(parts) if parts.is_empty() => Box::new(|_| Ok(Value::Unit)),
            ExprKind::Tuple(parts) => {
                let codes = self.exprs(parts);
                Box::new(move |frame| {
                    let mut values = Vec::with_capacity(codes.len());
                    for code in &codes {
                        values.push(code(frame)?);
                    }
                    Ok(Value::Tuple(values.into()))
                })
            }
            ExprKind::Array(parts) => self.array_literal(parts, &e.ty, span),
            ExprKind::CTuple(parts) => {
                let Some(layout) = ProductLayout::of(&e.ty) else {
                    return internal(format!("compact tuple of type {}", e.ty), span);
                };
                let codes = self.exprs(parts);
                Box::new(move |frame| {
                    let mut values = Vec::with_capacity(codes.len());
                    for code in &codes {
                        values.push(code(frame)?);
                    }
                    Ok(layout.build(&values))
                })
            }
            ExprKind::Field(inner, i) => {
                if let Some(code) = self.column_read::<Value>(e) {
                    return code;
                }
                let i = *i as usize;
                if let Some(shape) = Shape::of(&inner.ty) {
                    let inner = self.expr(inner);
                    return Box::new(move |frame| match inner(frame)? {
                        Value::Array(view) => Ok(shape.element(&view, i)),
                        other => Ok(other),
                    });
                }
                let inner = self.expr(inner);
                Box::new(move |frame| match inner(frame)? {
                    Value::Tuple(parts) => Ok(parts.get(i).cloned().unwrap_or(Value::Unit)),
                    other => Ok(other),
                })
            }
            ExprKind::CField(inner, i) => {
                let i = *i as usize;
                let (layout, i) = match ProductLayout::of(&inner.ty) {
                    Some(layout) => (layout, i),
                    None => match ProductLayout::one_digit(&inner.ty, i) {
                        Some(layout) => (layout, 0),
                        None => {
                            return internal(
                                format!("compact projection of type {}", inner.ty),
                                span,
                            )
                        }
                    },
                };
                let inner = self.expr(inner);
                Box::new(move |frame| Ok(layout.field(&inner(frame)?, i)))
            }
            ExprKind::Index { array, index, mode } => self.index(array, index, *mode, span),
            ExprKind::Inject { tag, arg } => {
                let tag = *tag;
                let arg = self.expr(arg);
                Box::new(move |frame| Ok(Value::Sum(Arc::new((tag, arg(frame)?)))))
            }
            ExprKind::CInject { tag, arg } => {
                let Some(layout) = SumLayout::of(&e.ty) else {
                    return internal(format!("compact injection into {}", e.ty), span);
                };
                let tag = *tag as usize;
                let arg = self.expr(arg);
                Box::new(move |frame| Ok(layout.inject(tag, &arg(frame)?)))
            }
            ExprKind::TypeSize(ty) => {
                let size = size_big(ty);
                let value = if e.ty == Type::Natural {
                    Value::Big(Arc::new(size))
                } else {
                    Value::Int(size.to_u64().unwrap_or(u64::MAX) as i64)
                };
                Box::new(move |_| Ok(value.clone()))
            }
            ExprKind::Coerce(kind, inner) => self.coerce(*kind, inner, &e.ty, span),
            ExprKind::If(c, a, b) => {
                let (c, a, b) = (self.expr(c), self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if c(frame)?.truthy() {
                        a(frame)
                    } else {
                        b(frame)
                    }
                })
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if a(frame)?.truthy() {
                        b(frame)
                    } else {
                        Ok(Value::bool(false))
                    }
                })
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Box::new(move |frame| {
                    if a(frame)?.truthy() {
                        Ok(Value::bool(true))
                    } else {
                        b(frame)
                    }
                })
            }
            ExprKind::AddrOf {
                place,
                root_ty,
                path,
            } => self.address(*place, root_ty, path, span),
            ExprKind::PtrProject { pointer, path } => self.pointer_projection(pointer, path, span),
            ExprKind::Deref(pointer) => self.dereference(pointer, &e.ty, span),
            ExprKind::PtrCast(pointer) => self.pointer_cast(pointer, &e.ty, span),
            ExprKind::Inlined(inlined) => self.inlined(inlined),
            ExprKind::MapLoop { var, array, body } => self.map_loop(*var, array, body, &e.ty, span),
            ExprKind::Match(scrutinee, arms) => {
                let ty = scrutinee.ty.clone();
                let scrutinee_span = scrutinee.span;
                let scrutinee = self.expr(scrutinee);
                let arms: Vec<CompiledArm<ExprCode>> = arms
                    .iter()
                    .map(|arm| self.arm(arm, |c, b| c.expr(b)))
                    .collect();
                Box::new(move |frame| {
                    let value = scrutinee(frame)?;
                    match select_arm(frame, &arms, &value)? {
                        Some(body) => body(frame),
                        None => Err(no_match(&value, &ty, scrutinee_span)),
                    }
                })
            }
        }
    }

    fn exprs(&mut self, es: &[Expr]) -> Vec<ExprCode> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn note_captures(&mut self, captures: &[Capture]) {
        for capture in captures {
            if let Capture::Slot(s) | Capture::Cell(s) = capture {
                self.note_slot(*s);
            }
        }
    }

    fn array_literal(&mut self, parts: &[Expr], ty: &Type, span: Span) -> ExprCode {
        let Some(shape) = Shape::of(ty) else {
            return internal(format!("array literal of type {ty}"), span);
        };
        let ty = ty.clone();
        let codes = self.exprs(parts);
        Box::new(move |frame| {
            let mut builder = LeafBuilder::new(shape.repr);
            let leaves = codes.len().saturating_mul(shape.elem_leaves);
            builder
                .reserve(leaves, &ty, &frame.rt.limits)
                .map_err(|f| f.at(span))?;
            for code in &codes {
                builder.push_element(code(frame)?);
            }
            Ok(Value::Array(builder.finish()))
        })
    }

    fn index(&mut self, array: &Expr, index: &Expr, mode: IndexMode, span: Span) -> ExprCode {
        if let Some(layout) = CArrayLayout::of(&array.ty) {
            let array_ty = array.ty.clone();
            let index_ity = int_ty_of(&index.ty);
            let index_span = index.span;
            let array = self.expr(array);
            let index = self.expr(index);
            return Box::new(move |frame| {
                let code = array(frame)?;
                let index = index(frame)?;
                let position = position_of(&index, mode, index_ity, layout.n, &array_ty)
                    .map_err(|f| f.at(index_span))?;
                Ok(layout.element(&code, position))
            });
        }
        let Some(shape) = Shape::of(&array.ty) else {
            return internal(format!("indexing a value of type {}", array.ty), span);
        };
        let array_ty = array.ty.clone();
        let index_ity = int_ty_of(&index.ty);
        let index_span = index.span;
        let array = self.expr(array);
        let index = self.expr(index);
        if mode == IndexMode::Linear && !shape.elem_is_array {
            // The common case: one leaf per element, checked position.
            return Box::new(move |frame| {
                let Value::Array(view) = array(frame)? else {
                    return Ok(Value::Unit);
                };
                let i = int_value(index(frame)?.as_int_lossy(), index_ity);
                if i < 0 || i >= view.len as i128 {
                    return Err(index_error(i, &array_ty, view.len).at(index_span));
                }
                Ok(view.leaf(i as usize))
            });
        }
        Box::new(move |frame| {
            let Value::Array(view) = array(frame)? else {
                return Ok(Value::Unit);
            };
            let index = index(frame)?;
            let n = shape.len_of(&view);
            let position =
                position_of(&index, mode, index_ity, n, &array_ty).map_err(|f| f.at(index_span))?;
            Ok(shape.element(&view, position))
        })
    }

    fn call(&mut self, func: &Expr, args: &[Expr], span: Span) -> ExprCode {
        let mut arg_codes = self.exprs(args);
        if let ExprKind::MakeFun { fun, type_args } = &func.kind {
            let Some(instance) = self.instance(*fun, type_args) else {
                return internal(format!("unknown function {fun}"), span);
            };
            self.note_captures(&instance.captures);
            let n_groups = instance.n_groups;
            // Direct call: no closure value is built.
            if instance.captures.is_empty() && n_groups == 1 && arg_codes.len() == 1 {
                let arg = arg_codes.pop().expect("one argument");
                return Box::new(move |frame| {
                    let value = arg(frame)?;
                    call_instance(frame.rt, &instance, &[], [value], span)
                });
            }
            return Box::new(move |frame| {
                let captures = gather_captures(frame, &instance.captures);
                let mut values = Vec::with_capacity(arg_codes.len());
                for code in &arg_codes {
                    values.push(code(frame)?);
                }
                if values.len() < n_groups {
                    return Ok(Value::Fun(Arc::new(Closure {
                        instance: instance.clone(),
                        captures: captures.into(),
                        args: values,
                    })));
                }
                let rest = values.split_off(n_groups);
                let result = call_instance(frame.rt, &instance, &captures, values, span)?;
                if rest.is_empty() {
                    Ok(result)
                } else {
                    apply(frame.rt, result, rest, span)
                }
            });
        }
        let func = self.expr(func);
        if arg_codes.len() == 1 {
            let arg = arg_codes.pop().expect("one argument");
            return Box::new(move |frame| {
                let f = func(frame)?;
                let value = arg(frame)?;
                apply_one(frame.rt, &f, value, span)
            });
        }
        Box::new(move |frame| {
            let f = func(frame)?;
            let mut values = Vec::with_capacity(arg_codes.len());
            for code in &arg_codes {
                values.push(code(frame)?);
            }
            apply(frame.rt, f, values, span)
        })
    }

    // ----- coercions -----

    fn coerce(&mut self, kind: CoerceKind, inner: &Expr, target: &Type, span: Span) -> ExprCode {
        let source = inner.ty.clone();
        let target = target.clone();
        let code = self.expr(inner);
        match kind {
            CoerceKind::EncodeInt => {
                let ity = int_ty_of(&target);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    let encoded = match &value {
                        Value::Big(b) => b.to_i128(),
                        other => Some(code_u64(other) as i128),
                    };
                    encoded
                        .and_then(|c| int_from_i128(c, ity))
                        .map(Value::Int)
                        .ok_or_else(|| {
                            runtime_error(
                                CONVERSION_OUT_OF_RANGE,
                                format!(
                                    "conversion out of range: code {} does not fit {}",
                                    code_big(&value),
                                    ity.name()
                                ),
                                span,
                            )
                        })
                })
            }
            CoerceKind::EncodeNatural => {
                Box::new(move |frame| Ok(Value::Big(Arc::new(code_big(&code(frame)?)))))
            }
            CoerceKind::EncodeString => Box::new(move |frame| {
                Ok(Value::str(code_big(&code(frame)?).to_string().as_bytes()))
            }),
            CoerceKind::DecodeInt => {
                let ity = int_ty_of(&source);
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                let small_size = size.to_u128();
                Box::new(move |frame| {
                    let n = int_value(code(frame)?.as_int_lossy(), ity);
                    let in_range = match small_size {
                        Some(s) => n >= 0 && (n as u128) < s,
                        None => n >= 0,
                    };
                    if !in_range {
                        return Err(decode_error(&n.to_string(), &target, &size, span));
                    }
                    Ok(value_from_u64(n as u64, repr))
                })
            }
            CoerceKind::DecodeNatural => {
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                Box::new(move |frame| {
                    let n = code_big(&code(frame)?);
                    if n >= size {
                        return Err(decode_error(&n.to_string(), &target, &size, span));
                    }
                    Ok(value_from_big(n, repr))
                })
            }
            CoerceKind::DecodeString => {
                let (size, repr) = (size_big(&target), CodeRepr::of(&target));
                Box::new(move |frame| {
                    let Value::Str(text) = code(frame)? else {
                        return Ok(Value::Unit);
                    };
                    let parsed = if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
                        BigUint::parse_bytes(&text, 10)
                    } else {
                        None
                    };
                    match parsed {
                        Some(n) if n < size => Ok(value_from_big(n, repr)),
                        _ => Err(decode_error(
                            &format!("\"{}\"", String::from_utf8_lossy(&text)),
                            &target,
                            &size,
                            span,
                        )),
                    }
                })
            }
            // An opaque value is stored as its representation.
            CoerceKind::Opaque => code,
            CoerceKind::Reinterpret => {
                let repr = CodeRepr::of(&target);
                Box::new(move |frame| {
                    let value = code(frame)?;
                    Ok(match (&value, repr) {
                        (Value::Int(_), CodeRepr::Small) | (Value::Big(_), CodeRepr::Big) => value,
                        _ => value_from_big(code_big(&value), repr),
                    })
                })
            }
            CoerceKind::Reshape => {
                if matches!(source, Type::Array(..))
                    && matches!(target, Type::Array(..))
                    && array::same_leaves(&source, &target)
                {
                    // Same leaves in the same order: the view is reused as is (zero copy).
                    return code;
                }
                Box::new(move |frame| {
                    let value = code(frame)?;
                    let mut leaves = Vec::new();
                    array::flatten(&value, &source, &mut leaves);
                    array::rebuild(&target, &mut leaves.into_iter(), &frame.rt.limits)
                        .map_err(|f| f.at(span))
                })
            }
            CoerceKind::IntToNatural => {
                let ity = int_ty_of(&source);
                Box::new(move |frame| {
                    let n = int_value(code(frame)?.as_int_lossy(), ity);
                    if n < 0 {
                        return Err(runtime_error(
                            CONVERSION_OUT_OF_RANGE,
                            format!("conversion out of range: {n} is negative, not a natural"),
                            span,
                        ));
                    }
                    Ok(Value::Big(Arc::new(BigUint::from(n as u128))))
                })
            }
            CoerceKind::NaturalToInt => {
                let ity = int_ty_of(&target);
                Box::new(move |frame| {
                    let n = code_big(&code(frame)?);
                    n.to_i128()
                        .and_then(|v| int_from_i128(v, ity))
                        .map(Value::Int)
                        .ok_or_else(|| {
                            runtime_error(
                                CONVERSION_OUT_OF_RANGE,
                                format!("conversion out of range: {n} does not fit {}", ity.name()),
                                span,
                            )
                        })
                })
            }
            CoerceKind::NaturalToString => Box::new(move |frame| {
                Ok(Value::str(code_big(&code(frame)?).to_string().as_bytes()))
            }),
        }
    }

    // ----- primitives -----

    fn prim(&mut self, prim: &Prim, args: &[Expr], result_ty: &Type, span: Span) -> ExprCode {
        let arg_tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        let mut codes = self.exprs(args);
        if crate::core::prims::operand_count(prim).is_some_and(|n| n != codes.len()) {
            return internal(
                format!("{prim:?} applied to {} arguments", codes.len()),
                span,
            );
        }
        match prim {
            Prim::IntArith(op, ity) => {
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                int_arith_code(*op, *ity, a, b, span)
            }
            Prim::FloatArith(op, single) => {
                let (op, single) = (*op, *single);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let x = a(frame)?.as_float_lossy();
                    let y = b(frame)?.as_float_lossy();
                    Ok(Value::Float(round_float(float_arith(op, x, y), single)))
                })
            }
            Prim::NatArith(op) => {
                let op = *op;
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let x = code_big(&a(frame)?);
                    let y = code_big(&b(frame)?);
                    prims::nat_arith(op, &x, &y, &frame.rt.limits)
                        .map(|r| Value::Big(Arc::new(r)))
                        .map_err(|f| f.at(span))
                })
            }
            Prim::IntNeg(ity) => {
                let ity = *ity;
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    prims::int_neg(ity, a(frame)?.as_int_lossy())
                        .map(Value::Int)
                        .map_err(|f| f.at(span))
                })
            }
            Prim::FloatNeg => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(Value::Float(-a(frame)?.as_float_lossy())))
            }
            Prim::Compare(op) => {
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                compare_code(*op, &arg_tys[0], a, b)
            }
            Prim::Not => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(Value::bool(!a(frame)?.truthy())))
            }
            Prim::StrConcat => {
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let (x, y) = (a(frame)?, b(frame)?);
                    let (Value::Str(x), Value::Str(y)) = (x, y) else {
                        return Ok(Value::str(b""));
                    };
                    prims::str_concat(&x, &y, &frame.rt.limits).map_err(|f| f.at(span))
                })
            }
            Prim::StrRepeat => {
                let ity = int_ty_of(&arg_tys[1]);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let s = a(frame)?;
                    let n = int_value(b(frame)?.as_int_lossy(), ity);
                    let Value::Str(s) = s else {
                        return Ok(Value::str(b""));
                    };
                    prims::str_repeat(&s, n, &frame.rt.limits).map_err(|f| f.at(span))
                })
            }
            Prim::StrIndex => {
                let ity = int_ty_of(&arg_tys[1]);
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| {
                    let s = a(frame)?;
                    let i = int_value(b(frame)?.as_int_lossy(), ity);
                    let Value::Str(s) = s else {
                        return Ok(Value::Int(0));
                    };
                    prims::str_index(&s, i).map_err(|f| f.at(span))
                })
            }
            Prim::StrSlice { from, to } => {
                let (has_from, has_to) = (*from, *to);
                let bound_tys: Vec<IntTy> = arg_tys[1..].iter().map(int_ty_of).collect();
                Box::new(move |frame| {
                    let Value::Str(s) = codes[0](frame)? else {
                        return Ok(Value::str(b""));
                    };
                    let mut next = 1;
                    let mut bound =
                        |present: bool, frame: &mut Frame<'_, '_>| -> Result<Option<i128>, Ctrl> {
                            if !present {
                                return Ok(None);
                            }
                            let value = codes[next](frame)?;
                            let ity = bound_tys[next - 1];
                            next += 1;
                            Ok(Some(int_value(value.as_int_lossy(), ity)))
                        };
                    let from = bound(has_from, frame)?;
                    let to = bound(has_to, frame)?;
                    Ok(prims::str_slice(&s, from, to))
                })
            }
            Prim::StrLen => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Str(s) => Ok(Value::Int(s.len() as i64)),
                    _ => Ok(Value::Int(0)),
                })
            }
            Prim::ToUpper => {
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Str(s) => Ok(Value::Str(s.to_ascii_uppercase().into())),
                    other => Ok(other),
                })
            }
            Prim::Str | Prim::Repr | Prim::Strr => {
                let render: fn(&Value, &Type) -> Vec<u8> = match prim {
                    Prim::Str => show::str_value_bytes,
                    Prim::Repr => show::repr_value_bytes,
                    _ => show::strr_value_bytes,
                };
                let ty = arg_tys[0].clone();
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(Value::str(&render(&a(frame)?, &ty))))
            }
            Prim::Print | Prim::Println => {
                let newline = *prim == Prim::Println;
                let ty = arg_tys[0].clone();
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    let mut text = show::str_value_bytes(&a(frame)?, &ty);
                    if newline {
                        text.push(b'\n');
                    }
                    frame.rt.write(&text);
                    Ok(Value::Unit)
                })
            }
            Prim::Endl => Box::new(|frame| {
                frame.rt.write(b"\n");
                Ok(Value::Unit)
            }),
            Prim::Caseno => {
                let a = codes.pop().expect("one operand");
                match SumLayout::of(&arg_tys[0]) {
                    Some(layout) => {
                        Box::new(move |frame| Ok(Value::Int(layout.split(&a(frame)?).0 as i64)))
                    }
                    None => Box::new(move |frame| match a(frame)? {
                        Value::Sum(sum) => Ok(Value::Int(sum.0 as i64)),
                        other => Ok(Value::Int(code_u64(&other) as i64)),
                    }),
                }
            }
            Prim::Len => {
                let shape = Shape::of(&arg_tys[0]);
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match (a(frame)?, &shape) {
                    (Value::Array(view), Some(shape)) => Ok(Value::Int(shape.len_of(&view) as i64)),
                    (Value::Str(s), _) => Ok(Value::Int(s.len() as i64)),
                    _ => Ok(Value::Int(0)),
                })
            }
            Prim::Convert => {
                let (from, to) = (arg_tys[0].clone(), result_ty.clone());
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| {
                    prims::convert(&a(frame)?, &from, &to).map_err(|f| f.at(span))
                })
            }
            Prim::Widen => codes.pop().expect("one operand"),
            Prim::Upcast => {
                let Some(conversion) = super::upcast::Conversion::new(&arg_tys[0], result_ty)
                else {
                    return internal(
                        format!("no subtype conversion from {} to {result_ty}", arg_tys[0]),
                        span,
                    );
                };
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| Ok(conversion.apply(a(frame)?)))
            }
            Prim::Permute(order) => {
                let order = order.clone();
                Box::new(move |frame| {
                    let mut values = vec![Value::Unit; codes.len()];
                    for (code, &position) in codes.iter().zip(order.iter()) {
                        values[position as usize] = code(frame)?;
                    }
                    Ok(Value::Tuple(values.into()))
                })
            }
            Prim::Map => self.map(codes, &arg_tys[1], result_ty, span),
            Prim::FoldLeft => {
                let Some(shape) = Shape::of_array_or_unit(&arg_tys[2]) else {
                    return internal("fold over a value that is not an array", span);
                };
                let mut codes = codes.into_iter();
                let (f, first, second) = (
                    codes.next().expect("three operands"),
                    codes.next().expect("three operands"),
                    codes.next().expect("three operands"),
                );
                Box::new(move |frame| {
                    let function = f(frame)?;
                    let (init, array) = (first(frame)?, second(frame)?);
                    let Value::Array(view) = array else {
                        return Ok(init);
                    };
                    let mut acc = init;
                    for i in 0..shape.len_of(&view) {
                        acc = apply(
                            frame.rt,
                            function.clone(),
                            [acc, shape.element(&view, i)],
                            span,
                        )?;
                    }
                    Ok(acc)
                })
            }
            Prim::Rev => {
                let Some(shape) = Shape::of_array_or_unit(&arg_tys[0]) else {
                    return internal("rev of a value that is not an array", span);
                };
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Array(view) => Ok(Value::Array(array::reverse(&view, &shape))),
                    other => Ok(other),
                })
            }
            Prim::Sum | Prim::Prod => {
                let a = codes.pop().expect("one operand");
                reduce_code(*prim == Prim::Sum, result_ty, a, span)
            }
            Prim::Concat => {
                let result = result_ty.clone();
                let repr = leaf_repr(leaf_type(&arg_tys[0]));
                let b = codes.pop().expect("two operands");
                let a = codes.pop().expect("two operands");
                Box::new(move |frame| match (a(frame)?, b(frame)?) {
                    (Value::Array(x), Value::Array(y)) => {
                        array::concat(&x, &y, repr, &result, &frame.rt.limits)
                            .map(Value::Array)
                            .map_err(|f| f.at(span))
                    }
                    (x, _) => Ok(x),
                })
            }
            Prim::Unresolved(_) => internal("an operator the checker did not resolve", span),
            Prim::Transpose => {
                let Some((rows, cols, block, repr)) = transpose_geometry(&arg_tys[0]) else {
                    return internal(format!("transpose of {}", arg_tys[0]), span);
                };
                let a = codes.pop().expect("one operand");
                Box::new(move |frame| match a(frame)? {
                    Value::Array(view) => Ok(Value::Array(array::transpose(
                        &view, rows, cols, block, repr,
                    ))),
                    other => Ok(other),
                })
            }
            // The kernels of the library functions.
            _ => super::library::compile(prim, args, codes, result_ty, span)
                .unwrap_or_else(|| internal(format!("{prim:?} of an unexpected type"), span)),
        }
    }

    /// `map f a` where `f` is a pure function without captures whose body is a single
    /// straight-line scalar expression of its parameter: one chunk kernel over the unboxed
    /// elements, split over rayon for large arrays (L9.5). `None` for any other shape.
    fn map(
        &mut self,
        mut codes: Vec<ExprCode>,
        array_ty: &Type,
        result_ty: &Type,
        span: Span,
    ) -> ExprCode {
        let (Some(input), Some(output)) = (
            Shape::of_array_or_unit(array_ty),
            Shape::of_array_or_unit(result_ty),
        ) else {
            return internal("map over a value that is not an array", span);
        };
        let result_ty = result_ty.clone();
        let a = codes.pop().expect("two operands");
        let f = codes.pop().expect("two operands");
        Box::new(move |frame| {
            let function = f(frame)?;
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            inlined::map_elements(
                frame,
                &view,
                (&input, &output, &result_ty),
                span,
                |frame, e| apply_one(frame.rt, &function, e, span),
            )
        })
    }
}

/// A compiled match arm.
struct CompiledArm<B> {
    patterns: Vec<BindCode>,
    guard: Option<ExprCode>,
    body: B,
}

/// The body of the first arm whose pattern matches and whose guard holds.
fn select_arm<'b, B>(
    frame: &mut Frame<'_, '_>,
    arms: &'b [CompiledArm<B>],
    value: &Value,
) -> Result<Option<&'b B>, Ctrl> {
    for arm in arms {
        let mut matched = false;
        for pattern in &arm.patterns {
            if pattern(frame, value.clone())? {
                matched = true;
                break;
            }
        }
        if !matched {
            continue;
        }
        let guard_holds = match &arm.guard {
            Some(guard) => guard(frame)?.truthy(),
            None => true,
        };
        if guard_holds {
            return Ok(Some(&arm.body));
        }
    }
    Ok(None)
}

fn no_match(value: &Value, ty: &Type, span: Span) -> Ctrl {
    runtime_error(
        NO_MATCH,
        format!(
            "no match case for the value {} of type {ty}",
            show::strr_value(value, ty)
        ),
        span,
    )
}

/// The captured values of a new closure, taken from the creating frame.
fn gather_captures(frame: &Frame<'_, '_>, captures: &[Capture]) -> Vec<Value> {
    captures
        .iter()
        .map(|capture| match capture {
            Capture::Slot(s) | Capture::Cell(s) => frame.slots[*s as usize].clone(),
            Capture::Outer(i) => frame
                .captures
                .get(*i as usize)
                .cloned()
                .unwrap_or(Value::Unit),
        })
        .collect()
}

fn slow_fault(op: ArithOp, ity: IntTy, x: i64, y: i64) -> Fault {
    int_arith(op, ity, x, y)
        .err()
        .unwrap_or_else(|| Fault::new(OVERFLOW, format!("{} overflow", ity.name())))
}

fn binary_int<K>(a: ExprCode, b: ExprCode, span: Span, kernel: K) -> ExprCode
where
    K: Fn(i64, i64) -> Result<i64, Fault> + Send + Sync + 'static,
{
    Box::new(move |frame| {
        let x = a(frame)?.as_int_lossy();
        let y = b(frame)?.as_int_lossy();
        kernel(x, y).map(Value::Int).map_err(|f| f.at(span))
    })
}

/// Integer arithmetic with a specialised kernel for the common signed 32- and 64-bit cases.
fn int_arith_code(op: ArithOp, ity: IntTy, a: ExprCode, b: ExprCode, span: Span) -> ExprCode {
    let fits32 = |r: i64| r as i32 as i64 == r;
    match (op, ity.signed(), ity.bits()) {
        (ArithOp::Add, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_add(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Sub, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_sub(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Mul, true, 64) => binary_int(a, b, span, move |x, y| {
            x.checked_mul(y).ok_or_else(|| slow_fault(op, ity, x, y))
        }),
        (ArithOp::Add, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x + y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        (ArithOp::Sub, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x - y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        (ArithOp::Mul, true, 32) => binary_int(a, b, span, move |x, y| {
            let r = x * y;
            if fits32(r) {
                Ok(r)
            } else {
                Err(slow_fault(op, ity, x, y))
            }
        }),
        _ => binary_int(a, b, span, move |x, y| int_arith(op, ity, x, y)),
    }
}

/// A comparison with the kernel chosen by the operand type.
fn compare_code(op: CmpOp, ty: &Type, a: ExprCode, b: ExprCode) -> ExprCode {
    match ty {
        Type::Int(ity) if is_unsigned_64(*ity) => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy() as u64;
            let y = b(frame)?.as_int_lossy() as u64;
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        Type::Int(_) => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy();
            let y = b(frame)?.as_int_lossy();
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        // `char` is signed (L11.26): bytes above 127 order below 0.
        Type::Char => Box::new(move |frame| {
            let x = a(frame)?.as_int_lossy() as u8 as i8;
            let y = b(frame)?.as_int_lossy() as u8 as i8;
            Ok(Value::bool(holds(op, x.cmp(&y))))
        }),
        Type::Double | Type::Float => Box::new(move |frame| {
            let x = a(frame)?.as_float_lossy();
            let y = b(frame)?.as_float_lossy();
            Ok(Value::bool(float_holds(op, x, y)))
        }),
        // Real Felix compares compact sums by their summand tag (`caseno`), not by code: its
        // COMPACTLINEAR `==` and `<` are defined through `caseno` (conformance
        // compact/csum_inject). Tessera keeps that for programs to print what Felix prints.
        Type::CSum(_) if SumLayout::of(ty).is_some() => {
            let layout = SumLayout::of(ty).expect("checked above");
            Box::new(move |frame| {
                let x = layout.split(&a(frame)?).0;
                let y = layout.split(&b(frame)?).0;
                Ok(Value::bool(holds(op, x.cmp(&y))))
            })
        }
        t if crate::types::kind::is_compact(t) && CodeRepr::of(t) == CodeRepr::Small => {
            Box::new(move |frame| {
                let x = code_u64(&a(frame)?);
                let y = code_u64(&b(frame)?);
                Ok(Value::bool(holds(op, x.cmp(&y))))
            })
        }
        _ => {
            let compare = prims::comparator(ty);
            Box::new(move |frame| {
                let x = a(frame)?;
                let y = b(frame)?;
                Ok(Value::bool(holds(op, compare(&x, &y))))
            })
        }
    }
}

/// `\sum` (when `sum`) or `\prod` of an array whose elements have type `elem`.
fn reduce_code(sum: bool, elem: &Type, a: ExprCode, span: Span) -> ExprCode {
    let op = if sum { ArithOp::Add } else { ArithOp::Mul };
    match elem {
        Type::Int(ity) if sum => {
            let ity = *ity;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Int(0));
                };
                match &*view.buf {
                    Buffer::I64(values) => {
                        super::parallel::sum_int(&values[view.start..view.start + view.len], ity)
                            .map(Value::Int)
                            .map_err(|f| f.at(span))
                    }
                    _ => Ok(Value::Int(0)),
                }
            })
        }
        Type::Int(ity) => {
            let ity = *ity;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Int(0));
                };
                let init: i64 = if sum { 0 } else { 1 };
                let Buffer::I64(values) = &*view.buf else {
                    return Ok(Value::Int(init));
                };
                let values = &values[view.start..view.start + view.len];
                super::parallel::fold_int(values, op, ity, init)
                    .map(Value::Int)
                    .map_err(|f| f.at(span))
            })
        }
        Type::Double | Type::Float => {
            let single = *elem == Type::Float;
            Box::new(move |frame| {
                let Value::Array(view) = a(frame)? else {
                    return Ok(Value::Float(0.0));
                };
                let init: f64 = if sum { 0.0 } else { 1.0 };
                let Buffer::F64(values) = &*view.buf else {
                    return Ok(Value::Float(init));
                };
                let values = &values[view.start..view.start + view.len];
                super::parallel::fold_float(values, op, single, init)
                    .map(Value::Float)
                    .map_err(|f| f.at(span))
            })
        }
        _ => Box::new(move |frame| {
            let Value::Array(view) = a(frame)? else {
                return Ok(Value::Unit);
            };
            let mut acc = BigUint::from(if sum { 0u32 } else { 1u32 });
            for k in 0..view.len {
                if k % crate::interrupt::POLL_INTERVAL == 0 && crate::interrupt::kernel_poll() {
                    return Err(interrupted(span));
                }
                let x = code_big(&view.leaf(k));
                acc = if sum { acc + x } else { acc * x };
            }
            Ok(Value::Big(Arc::new(acc)))
        }),
    }
}

/// Rows, columns, leaves per block and leaf kind of a transposable array type: an array of
/// arrays `T ^ M ^ N` (N rows of M) or a matrix `T ^ (A \* B)` (|A| rows of |B|).
fn transpose_geometry(ty: &Type) -> Option<(usize, usize, usize, super::value::LeafRepr)> {
    // The isomorphism engine derives the permutation of the copy (L9.7): the source is `rows`
    // by `columns` elements, and target position p reads source (p % rows) * columns + p / rows.
    let permutation = crate::types::iso::transpose_permutation(ty).ok()?;
    let rows = permutation.rows().to_usize()?;
    let cols = permutation.columns().to_usize()?;
    let Type::Array(elem, _) = ty else {
        return None;
    };
    let moved = match &**elem {
        Type::Array(inner, _) => inner,
        elem => elem,
    };
    let block = super::value::leaf_count(moved)?;
    Some((rows, cols, block, leaf_repr(leaf_type(moved))))
}

/// Can integer comparison of codes decide `Prim::Compare` on this type? (Compact sums compare
/// by summand tag, not code.)
fn int_comparable(ty: &Type) -> bool {
    is_int_like(ty) && !matches!(ty, Type::CSum(_))
}

/// Are values of this integer-like type compared as unsigned 64-bit codes?
fn unsigned_codes(ty: &Type) -> bool {
    match ty {
        Type::Int(ity) => is_unsigned_64(*ity),
        Type::Char => false,
        _ => true,
    }
}

/// Does evaluating the expression involve no call (so no effect on variables)?
fn is_call_free(e: &Expr) -> bool {
    use crate::core::visit::{walk_expr, Visit};
    struct CallFree(bool);
    impl Visit<'_> for CallFree {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 &= match &e.kind {
                ExprKind::Prim(prim, _) => !crate::core::prims::calls_or_writes(prim),
                // Conservative: a pointer reads (or makes a cell of) a variable out of sight.
                ExprKind::MakeFun { .. }
                | ExprKind::Closure { .. }
                | ExprKind::Call { .. }
                | ExprKind::Match(..)
                | ExprKind::AddrOf { .. }
                | ExprKind::PtrProject { .. }
                | ExprKind::Deref(_)
                | ExprKind::PtrCast(_)
                | ExprKind::Inlined(_)
                | ExprKind::MapLoop { .. } => false,
                _ => true,
            };
            if self.0 {
                walk_expr(self, e)
            }
        }
    }
    let mut free = CallFree(true);
    free.visit_expr(e);
    free.0
}

/// How an integer operand is read; implemented per operand kind so that an operator's closure
/// is compiled for its operands' kinds (no dispatch on the kind at run time).
pub trait IntRead: Send + Sync + 'static {
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl>;
}

/// A plain local plus or minus a constant, in signed 32- or 64-bit arithmetic (`n - 1`).
pub struct OffsetRead {
    slot: usize,
    delta: i64,
    subtract: bool,
    ity: IntTy,
    span: Span,
}

impl IntRead for OffsetRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        let x = frame.slots[self.slot].as_int_lossy();
        let result = if self.subtract {
            x.checked_sub(self.delta)
        } else {
            x.checked_add(self.delta)
        };
        match result {
            Some(r) if self.ity.bits() == 64 || r as i32 as i64 == r => Ok(r),
            _ => {
                let op = if self.subtract {
                    ArithOp::Sub
                } else {
                    ArithOp::Add
                };
                int_arith(op, self.ity, x, self.delta).map_err(|f| f.at(self.span))
            }
        }
    }
}

/// A constant operand.
pub struct ConstRead(i64);
/// A plain local variable operand.
pub struct LocalRead(usize);
/// A global variable operand.
pub struct GlobalRead(usize);
/// An operand computed by nested code.
pub struct CodeRead(IntCode);

impl IntRead for ConstRead {
    #[inline(always)]
    fn read(&self, _: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(self.0)
    }
}

impl IntRead for LocalRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(frame.slots[self.0].as_int_lossy())
    }
}

impl IntRead for GlobalRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        Ok(frame.rt.globals.get_int(self.0))
    }
}

impl IntRead for CodeRead {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        (self.0)(frame)
    }
}

impl IntRead for IntOperand {
    #[inline(always)]
    fn read(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        self.eval(frame)
    }
}

/// Expand `$body` with `$x` and `$y` bound to readers specialised to the kinds of the operands
/// `$a` and `$b` (the common pairs; others read through `IntOperand`'s dispatch).
macro_rules! with_int_operands {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            (IntOperand::Local(i), IntOperand::Const(j)) => {
                let ($x, $y) = (LocalRead(i), ConstRead(j));
                $body
            }
            (IntOperand::Local(i), IntOperand::Local(j)) => {
                let ($x, $y) = (LocalRead(i), LocalRead(j));
                $body
            }
            (IntOperand::Local(i), IntOperand::Code(j)) => {
                let ($x, $y) = (LocalRead(i), CodeRead(j));
                $body
            }
            (IntOperand::Global(i), IntOperand::Const(j)) => {
                let ($x, $y) = (GlobalRead(i), ConstRead(j));
                $body
            }
            (IntOperand::Global(i), IntOperand::Global(j)) => {
                let ($x, $y) = (GlobalRead(i), GlobalRead(j));
                $body
            }
            (IntOperand::Global(i), IntOperand::Code(j)) => {
                let ($x, $y) = (GlobalRead(i), CodeRead(j));
                $body
            }
            (IntOperand::Code(i), IntOperand::Const(j)) => {
                let ($x, $y) = (CodeRead(i), ConstRead(j));
                $body
            }
            (IntOperand::Code(i), IntOperand::Local(j)) => {
                let ($x, $y) = (CodeRead(i), LocalRead(j));
                $body
            }
            (IntOperand::Code(i), IntOperand::Global(j)) => {
                let ($x, $y) = (CodeRead(i), GlobalRead(j));
                $body
            }
            (IntOperand::Code(i), IntOperand::Code(j)) => {
                let ($x, $y) = (CodeRead(i), CodeRead(j));
                $body
            }
            (a, b) => {
                let ($x, $y) = (a, b);
                $body
            }
        }
    };
}
use with_int_operands;

/// The statements of a loop's body.
pub enum Block {
    One(StmtCode),
    Many(Vec<StmtCode>),
}

impl Block {
    #[inline(always)]
    fn run(&self, frame: &mut Frame<'_, '_>) -> Result<(), Ctrl> {
        match self {
            Block::One(code) => code(frame),
            Block::Many(codes) => {
                for code in codes {
                    code(frame)?;
                }
                Ok(())
            }
        }
    }
}

/// A condition of a loop or a branch, evaluated where it is used.
pub enum Condition {
    Float(CmpOp, float::FloatOperand, float::FloatOperand),
    /// Signed integers (and narrower codes), compared as `i64`.
    Int(CmpOp, IntOperand, IntOperand),
    Code(CondCode),
}

impl Condition {
    #[inline(always)]
    pub fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<bool, Ctrl> {
        match self {
            Condition::Float(op, a, b) => {
                let x = a.eval(frame)?;
                Ok(float_holds(*op, x, b.eval(frame)?))
            }
            Condition::Int(op, a, b) => {
                let x = a.eval(frame)?;
                Ok(holds(*op, x.cmp(&b.eval(frame)?)))
            }
            Condition::Code(code) => code(frame),
        }
    }
}

/// An operand of an unboxed integer operation: a constant, a variable read inline, or nested
/// code.
pub enum IntOperand {
    Const(i64),
    Local(usize),
    Global(usize),
    Offset(OffsetRead),
    Code(IntCode),
}

impl IntOperand {
    /// The operand's value.
    #[inline(always)]
    pub fn eval(&self, frame: &mut Frame<'_, '_>) -> Result<i64, Ctrl> {
        match self {
            IntOperand::Const(i) => Ok(*i),
            IntOperand::Local(s) => Ok(frame.slots[*s].as_int_lossy()),
            IntOperand::Global(s) => Ok(frame.rt.globals.get_int(*s)),
            IntOperand::Offset(offset) => offset.read(frame),
            IntOperand::Code(code) => code(frame),
        }
    }
}

/// A direct call of a one-group, capture-free function with an integer argument and result.
fn int_call<A: IntRead>(arg: A, instance: Arc<Instance>, span: Span) -> IntCode {
    Box::new(move |frame| {
        let value = arg.read(frame)?;
        call_scalar::<i64, i64>(frame.rt, &instance, value, span)
    })
}

/// The integer variable of a counting loop, accessed by its kind.
trait LoopVar: Copy + Send + Sync + 'static {
    fn get(self, frame: &Frame<'_, '_>) -> i64;
    fn set(self, frame: &mut Frame<'_, '_>, value: i64);
}

/// A plain local loop variable.
#[derive(Clone, Copy)]
struct LocalVar(usize);
/// A global loop variable (a top-level loop).
#[derive(Clone, Copy)]
struct GlobalVar(usize);
/// Any other variable.
#[derive(Clone, Copy)]
struct PlaceVar(Place);

impl LoopVar for LocalVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        frame.slots[self.0].as_int_lossy()
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        store_int(&mut frame.slots[self.0], value)
    }
}

impl LoopVar for GlobalVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        frame.rt.globals.get_int(self.0)
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        frame.rt.globals.set_int(self.0, value)
    }
}

impl LoopVar for PlaceVar {
    #[inline(always)]
    fn get(self, frame: &Frame<'_, '_>) -> i64 {
        read_int(frame, self.0)
    }
    #[inline(always)]
    fn set(self, frame: &mut Frame<'_, '_>, value: i64) {
        write_int(frame, self.0, value)
    }
}

/// The counting loop `for i in a ..< b` over signed (or narrow) integers, in native integers:
/// the limit is re-read before every iteration and the variable after the body (the body may
/// assign it), as in the general loop.
struct CountingLoop {
    label: LabelId,
    var_ty: IntTy,
    /// The largest value of the variable's type: stepping past it is an overflow.
    last: i64,
    span: Span,
}

impl CountingLoop {
    fn build<V: LoopVar, T: IntRead>(self, var: V, from: IntCode, to: T, body: Block) -> StmtCode {
        let CountingLoop {
            label,
            var_ty,
            last,
            span,
        } = self;
        Box::new(move |frame| {
            let start = from(frame)?;
            var.set(frame, start);
            loop {
                let limit = to.read(frame)?;
                if var.get(frame) >= limit {
                    return Ok(());
                }
                if let Flow::Exit = after_body(body.run(frame), label, span)? {
                    return Ok(());
                }
                let i = var.get(frame);
                if i >= last {
                    return Err(runtime_error(
                        OVERFLOW,
                        format!(
                            "{} overflow: loop variable stepped to {}",
                            var_ty.name(),
                            i as i128 + 1
                        ),
                        span,
                    ));
                }
                var.set(frame, i + 1);
            }
        })
    }
}

/// `place = a op b` on integers as one closure (`place` is a plain local or a global).
fn assign_int_binary<A: IntRead, B: IntRead, F>(
    place: Place,
    a: A,
    b: B,
    op: ArithOp,
    ity: IntTy,
    span: Span,
    fast: F,
) -> StmtCode
where
    F: Fn(i64, i64) -> Option<i64> + Send + Sync + 'static,
{
    let compute = move |frame: &mut Frame<'_, '_>| -> Result<i64, Ctrl> {
        let x = a.read(frame)?;
        let y = b.read(frame)?;
        match fast(x, y) {
            Some(r) => Ok(r),
            None => int_arith(op, ity, x, y).map_err(|f| f.at(span)),
        }
    };
    match place {
        Place::Local(s) => Box::new(move |frame| {
            let value = compute(frame)?;
            store_int(&mut frame.slots[s as usize], value);
            Ok(())
        }),
        Place::Global(s) => Box::new(move |frame| {
            let value = compute(frame)?;
            frame.rt.globals.set_int(s as usize, value);
            Ok(())
        }),
        _ => Box::new(move |frame| {
            let value = compute(frame)?;
            write_int(frame, place, value);
            Ok(())
        }),
    }
}

fn scalar_int_binary<A: IntRead, B: IntRead, F>(
    a: A,
    b: B,
    op: ArithOp,
    ity: IntTy,
    span: Span,
    fast: F,
) -> IntCode
where
    F: Fn(i64, i64) -> Option<i64> + Send + Sync + 'static,
{
    Box::new(move |frame| {
        let x = a.read(frame)?;
        let y = b.read(frame)?;
        match fast(x, y) {
            Some(r) => Ok(r),
            None => int_arith(op, ity, x, y).map_err(|f| f.at(span)),
        }
    })
}
