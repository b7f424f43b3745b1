//! Compilation of the typed IR into trees of boxed closures.
//!
//! Every IR node becomes one closure; locals are frame slots, kernels are chosen here from the
//! `Prim` and the operand types, and layouts (radices, weights, offsets, array shapes) are
//! computed once. At run time the closures only unwrap values.

use std::sync::{Arc, OnceLock};

use num_bigint::BigUint;

use crate::core::ir::{Capture, Const, Expr, FunId, PatternKind, Place, Stmt};
use crate::core::subst::instantiate;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, NominalBody};
use crate::types::Type;

use super::closure::{Instance, InstanceCode};
use super::compact::is_int_like;
use super::compact::{value_from_u64, CodeRepr};
use super::error::{runtime_error, used_before_initialisation, CONVERSION_OUT_OF_RANGE, INTERNAL};
use super::prims::int_from_i128;
use super::value::Value;
use super::{Ctrl, Frame, Program};

mod columns;
mod dist;
mod dist_fold;
mod dist_library;
mod dist_move;
mod dist_sort;
mod expr;
pub(crate) mod float;
mod inlined;
mod int;
mod operands;
mod paths;
mod pattern;
mod prim;
mod specialise;
mod stmt;
mod stores;
pub(crate) mod varray;
pub(crate) use expr::literal_builder;
pub(crate) use int::is_call_free;
pub(crate) use paths::index_error;
pub(crate) use pattern::no_match;
pub(crate) use stores::string_append_tails;

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
    /// Compiling top-level statements that run once (`native::tiers`): a function
    /// they call directly and that is cheap may stay on closures (`native::defer_instance`).
    run_once: bool,
}

fn internal(message: impl Into<String>, span: Span) -> ExprCode {
    let message = message.into();
    Box::new(move |_| Err(runtime_error(INTERNAL, message.clone(), span)))
}

/// `code`, then R0007 at `span` unless a copy of the array it gives can be allocated
/// (`array::admit_copy`): the operand of a kernel that builds a new array as large as it.
pub(crate) fn admitting_copy(code: ExprCode, span: Span) -> ExprCode {
    Box::new(move |frame| {
        let value = code(frame)?;
        if let Value::Array(view) = &value {
            super::array::admit_copy(view, &frame.rt.limits).map_err(|f| f.at(span))?;
        }
        Ok(value)
    })
}

fn internal_stmt(message: impl Into<String>, span: Span) -> StmtCode {
    let message = message.into();
    Box::new(move |_| Err(runtime_error(INTERNAL, message.clone(), span)))
}

fn lock(cell: &crate::eval::value::CellLock) -> spin::mutex::SpinMutexGuard<'_, Value> {
    cell.lock()
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
            _ => frame.slots[s as usize] = Value::Cell(crate::eval::value::new_cell(value)),
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
        Type::Nominal(def) => match def.body() {
            Some(NominalBody::Struct(fields)) => {
                Some(fields.iter().map(|(_, t)| t.clone()).collect())
            }
            _ => None,
        },
        _ => None,
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
            run_once: false,
        }
    }

    /// `top_level_block` for statements that run once: a cheap function they call directly
    /// is compiled to native code only when other code needs it.
    pub fn run_once_block(&mut self, stmts: &[Stmt]) -> StmtCode {
        self.run_once = true;
        let code = self.top_level_block(stmts);
        self.run_once = false;
        code
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
        if self.known_defined(s) {
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

    /// The check a read of global `s` of type `ty` compiled now needs (see
    /// `uninitialised_check`), for native code.
    pub(crate) fn global_read_check(
        &self,
        s: u32,
        ty: &Type,
    ) -> Option<Arc<crate::core::ir::GlobalDef>> {
        self.uninitialised_check(s, ty)
    }

    /// The constant every value of global `s` is, when it is a `val` declared with one.
    pub(crate) fn global_constant(&self, s: u32) -> Option<&crate::core::ir::Const> {
        self.program.global_constants.get(&s)
    }

    /// The inductive ranges of the globals of the unit being run, for its top level.
    pub(crate) fn unit_global_ranges(&self) -> &[(u32, crate::core::ranges::Interval)] {
        &self.program.global_ranges
    }

    /// The captures of a closure of `fun` made without a list of its own (`MakeFun`): the
    /// function's (empty for an unknown function).
    pub(crate) fn function_captures(&self, fun: FunId) -> Vec<Capture> {
        self.program
            .functions
            .get(fun as usize)
            .and_then(|f| f.as_ref())
            .map(|f| f.captures.clone())
            .unwrap_or_default()
    }

    /// Is global `s` a `val`, assigned only by its declaration?
    pub(crate) fn global_is_val(&self, s: u32) -> bool {
        self.program
            .global_defs
            .get(&s)
            .is_some_and(|def| !def.mutable)
    }

    /// Note that a top-level statement compiled from now on runs after global `s` was
    /// assigned (native code compiles the top level itself, in order).
    /// `false` when it was noted already.
    pub(crate) fn note_defined(&mut self, s: u32) -> bool {
        self.defined.insert(s)
    }

    /// The globals noted as assigned so far (`note_defined`).
    pub(crate) fn defined_globals(&self) -> std::collections::HashSet<u32> {
        self.defined.clone()
    }

    /// Note exactly `defined` as assigned: back to `defined_globals`' answer, for code
    /// compiled again from there.
    pub(crate) fn set_defined_globals(&mut self, defined: std::collections::HashSet<u32>) {
        self.defined = defined;
    }

    /// Forget that global `s` was assigned: the end of a block whose own assignments hold
    /// only inside it (a loop's body may run no time at all).
    pub(crate) fn forget_defined(&mut self, s: u32) {
        self.defined.remove(&s);
    }

    /// Is global `s` known to hold a value in the code compiled now?
    pub(crate) fn known_defined(&self, s: u32) -> bool {
        self.program.initialised.contains(&s)
            || (self.in_function == 0 && self.defined.contains(&s))
    }

    /// One more than the highest slot the code compiled so far uses.
    pub(crate) fn slots_now(&self) -> usize {
        self.slots_used
    }

    /// Forget the slots noted since `slots_now` gave `n` (code compiled and then dropped).
    pub(crate) fn reset_slots(&mut self, n: usize) {
        self.slots_used = n;
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
        self.instance_for(fun, type_args, false)
    }

    /// `instance` for a direct call with `n_args` argument groups: a call of all its groups
    /// from statements that run once may leave a cheap function on closures (a partial
    /// application makes a function value, which may be called anywhere).
    pub(super) fn called_instance(
        &mut self,
        fun: FunId,
        type_args: &[Type],
        n_args: usize,
    ) -> Option<Arc<Instance>> {
        let whole = (self.program.functions.get(fun as usize))
            .and_then(|f| f.as_ref())
            .is_some_and(|f| n_args >= f.params.len());
        let once = self.run_once && self.in_function == 0 && whole;
        self.instance_for(fun, type_args, once)
    }

    fn instance_for(
        &mut self,
        fun: FunId,
        type_args: &[Type],
        called_once: bool,
    ) -> Option<Arc<Instance>> {
        let key = (fun, type_args.to_vec());
        if let Some(found) = self.program.instances.get(&key) {
            let found = found.clone();
            if !called_once {
                if let Some(backend) = self.program.native.clone() {
                    if let Some(function) = super::native::take_deferred(&backend, &found) {
                        self.compile_native(&backend, &found, &function);
                    }
                }
            }
            return Some(found);
        }
        let generic = self.program.inlined(fun)?;
        let function = if generic.type_params.is_empty() {
            generic
        } else {
            Arc::new(instantiate(&generic, type_args))
        };
        let instance = Arc::new(Instance {
            name: function.name.clone(),
            unit: self.program.unit_of(fun),
            n_groups: function.params.len(),
            cell_slots: function.cell_slots.clone(),
            captures: function.captures.clone(),
            code: OnceLock::new(),
            native: OnceLock::new(),
            native_call: Default::default(),
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
        let n_slots = std::mem::replace(&mut self.slots_used, outer_slots);
        self.cursors = outer_cursors;
        self.in_function -= 1;
        let _ = instance.code.set(InstanceCode {
            n_slots,
            params,
            param_slots,
            body,
            expr_body,
        });
        if let Some(backend) = self.program.native.clone() {
            let deferred = called_once
                && super::native::defer_instance(
                    &backend,
                    &self.program.functions,
                    &instance,
                    &function,
                );
            if !deferred {
                self.compile_native(&backend, &instance, &function);
            }
        }
        Some(instance)
    }

    /// Compile `instance` (of `function`, compiled to closures already) to native code.
    fn compile_native(
        &mut self,
        backend: &super::native::SharedBackend,
        instance: &Arc<Instance>,
        function: &Arc<crate::core::ir::Function>,
    ) {
        let n_slots = instance.code.get().map_or(0, |code| code.n_slots);
        self.in_function += 1;
        let outer = std::mem::replace(&mut self.slots_used, n_slots);
        super::native::compile_instance(self, backend, instance, function);
        self.slots_used = outer;
        self.in_function -= 1;
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
