//! The evaluator: compiles the typed IR to an executable form and runs it over unboxed,
//! shared storage.
//!
//! `compile` turns IR into trees of boxed Rust closures with locals resolved to frame slots and
//! kernels chosen from the IR's `Prim` and operand types; `closure` holds function instances and
//! function values; `array`, `compact` and `prims` are the kernels; `error` builds runtime
//! diagnostics.
//!
//! Architecture invariant: no type checking happens here; every value's type is known from
//! the IR. Output goes only through the writer passed in. Run-time code never looks at a
//! `Type` in a hot loop: types are consulted when compiling.

pub mod array;
pub mod closure;
pub mod code;
pub mod compact;
pub mod compile;
pub mod data;
pub mod distributed;
pub mod error;
pub mod exchange;
pub mod format;
pub mod library;
pub mod native;
pub mod parallel;
pub mod pointer;
pub mod prims;
pub mod printf;
pub mod scalars;
pub mod upcast;
pub mod value;
pub mod world;

#[cfg(test)]
pub(crate) mod test_ir;
#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell, UnsafeCell};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use crate::core::ir::{FunId, LabelId, Unit};
use crate::diag::Diagnostic;
use crate::types::Type;
use closure::Instance;
use value::Value;

/// Calls nested deeper than this are reported as R0008 instead of exhausting memory.
#[cfg(test)]
pub const MAX_CALL_DEPTH: u32 = 100_000;

/// Non-local control flow out of compiled code: loop exits, function returns and runtime
/// errors.
///
/// Two words, so that the `Result<i64, Ctrl>`, `Result<f64, Ctrl>` and `Result<bool, Ctrl>`
/// of unboxed code come back in registers: a `return` leaves its value in
/// `Runtime::returned` for the call that catches it (`Runtime::take_returned`).
#[derive(Debug)]
pub enum Ctrl {
    Break(LabelId),
    Continue(LabelId),
    Return,
    Error(Box<Diagnostic>),
}

/// State shared by all frames of one `Machine::run`: the globals, the output and the current
/// call depth.
pub struct Runtime<'o> {
    pub globals: Globals,
    pub out: RefCell<&'o mut dyn Write>,
    /// Standard error of the program (`eprint`, `fprint (cstderr, x)`).
    pub err: RefCell<&'o mut dyn Write>,
    pub depth: Cell<u32>,
    /// Calls nested deeper than this are R0008 (`Limits::max_call_depth`).
    pub max_depth: u32,
    /// The session's limits, for the allocations of strings, naturals and arrays (R0007).
    pub limits: crate::limits::Limits,
    /// The lowest native stack position at which the current stack segment still has room
    /// for a call (see `closure::with_stack`).
    pub stack_floor: Cell<usize>,
    /// Slot vectors of finished calls, reused so a call does not allocate its frame.
    pub frame_pool: RefCell<Vec<Vec<Value>>>,
    /// The value of the `return` being propagated as `Ctrl::Return`.
    pub returned: Cell<Value>,
    /// Set (to 1) by a runtime helper of native code that failed; the failure itself is in
    /// `native_fault`. Native code tests it after every call that can fail (`native`).
    pub native_failed: Cell<u8>,
    /// The error (or panic) that native code is unwinding with.
    pub native_fault: RefCell<Option<native::Fault>>,
    /// The label of a `break` or `continue` that left fallback code run by native code.
    pub native_label: Cell<u32>,
    /// The result of a runtime helper called from a cold block of native code: its stub
    /// writes it here and the block reads it back right after the call (each thread running
    /// native code has its own runtime).
    pub native_result: Cell<u64>,
    /// The session's program, for code compiled while the unit runs (blocks over run-time
    /// sizes, `compile::specialise`); borrowed only while compiling.
    pub program: RefCell<Option<&'o mut Program>>,
    /// The program's world (arguments, files, generator), lent by the machine for the run.
    pub world: RefCell<world::World>,
}

impl Runtime<'_> {
    /// Leave `value` as the result of a `return` and give the control flow that carries it
    /// to the call.
    #[inline]
    pub fn give_return(&self, value: Value) -> Ctrl {
        self.returned.set(value);
        Ctrl::Return
    }

    /// The value of the `return` caught by a call.
    #[inline]
    pub fn take_returned(&self) -> Value {
        self.returned.replace(Value::Unit)
    }

    /// Write bytes to the program's output. A failing writer (a closed pipe) is ignored: the
    /// program's own semantics do not depend on it.
    pub fn write(&self, bytes: &[u8]) {
        let _ = self.out.borrow_mut().write_all(bytes);
    }

    /// Write bytes to the program's standard error, likewise. The output is flushed first, so
    /// both streams interleave in program order when they go to one place.
    pub fn write_err(&self, bytes: &[u8]) {
        let _ = self.out.borrow_mut().flush();
        let _ = self.err.borrow_mut().write_all(bytes);
    }
}

/// The global variables of one run (top-level variables of every unit).
///
/// Reads and writes are single short accesses that finish before the method returns and run
/// no program code in between (dropping a replaced value only frees memory), so two accesses
/// never overlap; the type is not `Sync`, so all accesses come from one thread. That is what
/// makes the unchecked interior mutability sound, and it saves the `RefCell` flag updates on
/// every access of a top-level variable in a hot loop.
pub struct Globals {
    slots: UnsafeCell<Vec<Value>>,
    /// The address of slot 0, for native code (kept up to date when the slots grow).
    pub base: Cell<*mut Value>,
}

impl Globals {
    pub fn new(mut slots: Vec<Value>) -> Globals {
        let base = Cell::new(slots.as_mut_ptr());
        Globals {
            slots: UnsafeCell::new(slots),
            base,
        }
    }

    /// Grow the slots to hold `slot`, keeping `base` up to date.
    fn grow_to(&self, slots: &mut Vec<Value>, slot: usize) {
        if slots.len() <= slot {
            slots.resize(slot + 1, Value::Unit);
            self.base.set(slots.as_mut_ptr());
        }
    }

    pub fn into_inner(self) -> Vec<Value> {
        self.slots.into_inner()
    }

    /// A copy of global `slot` (`Unit` if it was never assigned).
    #[inline]
    pub fn get(&self, slot: usize) -> Value {
        // SAFETY: a single access that ends before returning (see the type's comment).
        let slots = unsafe { &*self.slots.get() };
        slots.get(slot).cloned().unwrap_or(Value::Unit)
    }

    /// The integer in global `slot` (0 if it holds no integer).
    #[inline]
    pub fn get_int(&self, slot: usize) -> i64 {
        // SAFETY: a single access that ends before returning (see the type's comment).
        let slots = unsafe { &*self.slots.get() };
        slots.get(slot).map_or(0, Value::as_int_lossy)
    }

    /// The double in global `slot` (0 if it holds none).
    #[inline]
    pub fn get_float(&self, slot: usize) -> f64 {
        // SAFETY: a single access that ends before returning (see the type's comment).
        let slots = unsafe { &*self.slots.get() };
        slots.get(slot).map_or(0.0, Value::as_float_lossy)
    }

    /// Apply `read` to global `slot` without copying it.
    ///
    /// # Safety
    /// `read` must not access the globals (it should be a pure kernel over the value).
    #[inline]
    pub unsafe fn read_with<R>(&self, slot: usize, read: impl FnOnce(&Value) -> R) -> R {
        let slots = &*self.slots.get();
        read(slots.get(slot).unwrap_or(&Value::Unit))
    }

    /// Apply `write` to global `slot` in place.
    ///
    /// # Safety
    /// `write` must not access the globals (it should only update the value).
    #[inline]
    pub unsafe fn with_mut<R>(&self, slot: usize, write: impl FnOnce(&mut Value) -> R) -> R {
        let slots = &mut *self.slots.get();
        self.grow_to(slots, slot);
        write(&mut slots[slot])
    }

    /// Assign global `slot`.
    #[inline]
    pub fn set(&self, slot: usize, value: Value) {
        let old = {
            // SAFETY: a single access that ends before returning (see the type's comment).
            let slots = unsafe { &mut *self.slots.get() };
            self.grow_to(slots, slot);
            std::mem::replace(&mut slots[slot], value)
        };
        drop(old);
    }

    /// Assign an integer to global `slot`, in place when it already holds one.
    #[inline]
    pub fn set_int(&self, slot: usize, value: i64) {
        {
            // SAFETY: a single access that ends before returning (see the type's comment).
            let slots = unsafe { &mut *self.slots.get() };
            if let Some(Value::Int(x)) = slots.get_mut(slot) {
                *x = value;
                return;
            }
        }
        self.set_cold(slot, Value::Int(value));
    }

    /// `set`, out of line: the first store of a scalar into a global (the hot paths store in
    /// place).
    #[cold]
    #[inline(never)]
    fn set_cold(&self, slot: usize, value: Value) {
        self.set(slot, value)
    }

    /// Assign a float to global `slot`, in place when it already holds one.
    #[inline]
    pub fn set_float(&self, slot: usize, value: f64) {
        {
            // SAFETY: a single access that ends before returning (see the type's comment).
            let slots = unsafe { &mut *self.slots.get() };
            if let Some(Value::Float(x)) = slots.get_mut(slot) {
                *x = value;
                return;
            }
        }
        self.set_cold(slot, Value::Float(value));
    }

    /// Take global `slot`'s value out, leaving `Unit`.
    #[inline]
    pub fn take(&self, slot: usize) -> Value {
        // SAFETY: a single access that ends before returning (see the type's comment).
        let slots = unsafe { &mut *self.slots.get() };
        slots
            .get_mut(slot)
            .map(|value| std::mem::replace(value, Value::Unit))
            .unwrap_or(Value::Unit)
    }
}

/// The activation of one function body (or of a unit's top level): its slots, the captures of
/// the closure being run, and the shared runtime.
pub struct Frame<'a, 'o> {
    pub slots: &'a mut [Value],
    pub captures: &'a [Value],
    pub rt: &'a Runtime<'o>,
}

/// The function table and the compiled-instance cache, kept across units.
#[derive(Default)]
pub struct Program {
    pub functions: Vec<Option<Arc<crate::core::ir::Function>>>,
    pub instances: HashMap<(FunId, Vec<Type>), Arc<Instance>>,
    /// The name and definition of each global variable (for R0011).
    pub global_defs: HashMap<u32, Arc<crate::core::ir::GlobalDef>>,
    /// Globals that hold their value since an earlier unit: reads of them need no check.
    pub initialised: std::collections::HashSet<u32>,
    /// The `val` globals declared with a constant, and the constant (`core::constants`).
    pub global_constants: HashMap<u32, crate::core::ir::Const>,
    /// The inductive ranges of the integer globals the last unit defined declares, which hold
    /// while its top level runs (`core::ranges::global_ranges`).
    pub global_ranges: Vec<(u32, crate::core::ranges::Interval)>,
    /// The number of units run so far (`Machine::run_with_stderr`): the unit of a run is
    /// numbered by the count before it, from 0.
    pub units_run: u32,
    /// For each function, the unit that defined it (whose source holds its spans): for a
    /// library function first used by a later unit, the library's.
    pub fun_units: Vec<u32>,
    /// The library's unit (the prelude's), once run.
    pub library_unit: Option<u32>,
    /// The session's limits (allocations, call depth).
    pub limits: crate::limits::Limits,
    /// Each function after the inlining pass, what instances are compiled from (`functions`
    /// keeps them as checked, what the pass inlines from): made on first use (`inlined`), so
    /// a library function a program never calls is never inlined.
    inlined_functions: Vec<std::sync::OnceLock<Arc<crate::core::ir::Function>>>,
    /// Are calls of known functions inlined (see `core::inline`)? Results never depend on it.
    inlining: bool,
    /// The native code backend, when native code is on (`Machine::set_native`).
    pub native: Option<native::SharedBackend>,
}

impl Program {
    /// The unit that defined function `fun` (for call stacks: its spans are in that unit's
    /// source); the unit being run for a function it does not know.
    pub fn unit_of(&self, fun: FunId) -> u32 {
        self.fun_units
            .get(fun as usize)
            .copied()
            .unwrap_or(self.units_run.saturating_sub(1))
    }
}

impl Program {
    /// Function `fun` after the inlining pass (as checked when inlining is off), made the
    /// first time it is asked for. The pass reads only the functions as checked, which never
    /// change once defined, so when it runs does not matter.
    pub fn inlined(&self, fun: FunId) -> Option<Arc<crate::core::ir::Function>> {
        let function = self.functions.get(fun as usize)?.as_ref()?;
        let cell = self.inlined_functions.get(fun as usize)?;
        let inlined = cell.get_or_init(|| match self.inlining {
            true => Arc::new(crate::core::inline::inline_function(self, function, fun)),
            false => function.clone(),
        });
        Some(inlined.clone())
    }
}

impl crate::core::inline::Callees for Program {
    fn functions(&self) -> &[Option<Arc<crate::core::ir::Function>>] {
        &self.functions
    }

    fn unit_of(&self, fun: FunId) -> u32 {
        Program::unit_of(self, fun)
    }
}

/// The evaluator's persistent state for a session: compiled functions and global slots.
pub struct Machine {
    program: Program,
    globals: Vec<Value>,
    /// The program's world, kept from one unit to the next.
    world: world::World,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

impl Machine {
    /// Undo the definitions of a unit whose run failed (a REPL chunk): its globals
    /// become unassigned slots again and its functions are forgotten, so the checker can
    /// reuse their numbers. Effects on earlier variables and output are kept.
    pub fn forget_definitions(&mut self, unit: &Unit, n_globals_before: u32) {
        for slot in n_globals_before as usize..self.globals.len() {
            self.globals[slot] = Value::Unit;
            self.program.initialised.remove(&(slot as u32));
            self.program.global_defs.remove(&(slot as u32));
            self.program.global_constants.remove(&(slot as u32));
        }
        self.program.global_ranges.clear();
        self.globals.truncate(n_globals_before as usize);
        for (id, _) in &unit.functions {
            if let Some(entry) = self.program.functions.get_mut(*id as usize) {
                *entry = None;
            }
            if let Some(entry) = self.program.inlined_functions.get_mut(*id as usize) {
                *entry = std::sync::OnceLock::new();
            }
        }
        let forgotten: std::collections::HashSet<FunId> =
            unit.functions.iter().map(|(id, _)| *id).collect();
        self.program
            .instances
            .retain(|(id, _), _| !forgotten.contains(id));
    }

    /// Forget the globals from `n` on (after an internal error in a chunk).
    pub fn truncate_globals(&mut self, n: u32) {
        for slot in n as usize..self.globals.len() {
            self.program.initialised.remove(&(slot as u32));
            self.program.global_defs.remove(&(slot as u32));
            self.program.global_constants.remove(&(slot as u32));
        }
        self.program.global_ranges.clear();
        self.globals.truncate(n as usize);
    }

    /// The number the next unit run gets: a runtime error's spans in a function of an
    /// earlier unit are `Origin::Unit(n)` with that unit's number (see `eval::error::note_frame`).
    pub fn next_unit(&self) -> u32 {
        self.program.units_run
    }

    /// The number of global slots in use.
    pub fn n_globals(&self) -> u32 {
        self.globals.len() as u32
    }

    pub fn new() -> Machine {
        Machine {
            program: Program {
                inlining: true,
                ..Program::default()
            },
            globals: Vec::new(),
            world: world::World::default(),
        }
    }

    /// The program's world (its arguments, standard input, files and generator).
    pub fn world(&self) -> &world::World {
        &self.world
    }

    /// The program's world, to change.
    pub fn world_mut(&mut self) -> &mut world::World {
        &mut self.world
    }

    /// Give the machine another world, keeping the old one.
    pub fn replace_world(&mut self, world: world::World) -> world::World {
        std::mem::replace(&mut self.world, world)
    }

    /// The exit status the program asked for with `System::exit`, once: the run that asked
    /// ended there without an error.
    pub fn exit_request(&mut self) -> Option<i32> {
        self.world.take_exit()
    }

    /// Compile functions and units to native code from now on (the default), or run
    /// everything on the closure compiler; with `all`, a top level's statements that run
    /// once are native code too (`Settings::jit_all`). Functions compiled so far are
    /// compiled again.
    pub fn set_native(&mut self, on: bool, all: bool) {
        let now = self.program.native.as_ref().map(native::compiles_run_once);
        if now == on.then_some(all) {
            return;
        }
        self.program.native = if on { native::Backend::new(all) } else { None };
        self.program.instances.clear();
    }

    /// The native backend's report: one line per function instance and unit.
    pub fn native_report(&self) -> Vec<String> {
        let Some(backend) = &self.program.native else {
            return vec!["native code is off (--no-jit): everything runs on closures".into()];
        };
        native::reports(backend)
            .into_iter()
            .map(|r| {
                let mut line = format!(
                    "{}: {}",
                    r.name,
                    if r.native { "native" } else { "closures" }
                );
                for note in r.notes {
                    line.push_str("\n    ");
                    line.push_str(&note);
                }
                line
            })
            .collect()
    }

    /// The time spent compiling to native code in this session; `None` with native code off.
    pub fn native_compile_time(&self) -> Option<std::time::Duration> {
        self.program.native.as_ref().map(native::compile_time)
    }

    /// Use `limits` for the units run from now on.
    pub fn set_limits(&mut self, limits: crate::limits::Limits) {
        self.program.limits = limits;
    }

    /// Inline calls of known functions (the default), or make every call as written (for
    /// comparing speed and checking the inliner; results are the same).
    pub fn set_inlining(&mut self, on: bool) {
        if on == self.program.inlining {
            return;
        }
        self.program.inlining = on;
        // The functions defined so far (the prelude's) are inlined again, or not, on first
        // use, and their instances compiled anew.
        for cell in &mut self.program.inlined_functions {
            *cell = std::sync::OnceLock::new();
        }
        self.program.instances.clear();
    }

    /// The unit's IR after the inlining pass, as a run compiles it, with the unit's
    /// definitions made as a run makes them (nothing runs): for printing (`--dump-ir=inlined`).
    pub fn inlined_ir(&mut self, unit: &Unit) -> Unit {
        self.define(unit);
        let mut inlined = self.inline(unit).unit;
        for (id, function) in &mut inlined.functions {
            if let Some(made) = self.program.inlined(*id) {
                *function = made;
            }
        }
        inlined
    }

    /// Number the unit and enter its functions and globals in the program; the unit's number.
    fn define(&mut self, unit: &Unit) -> u32 {
        let unit_id = self.next_unit();
        self.program.units_run += 1;
        if unit.library {
            self.program.library_unit = Some(unit_id);
        }
        let library_unit = self.program.library_unit.unwrap_or(unit_id);
        for (id, function) in &unit.functions {
            let index = *id as usize;
            if self.program.functions.len() <= index {
                self.program.functions.resize(index + 1, None);
            }
            self.program.functions[index] = Some(function.clone());
            if self.program.inlined_functions.len() <= index {
                self.program
                    .inlined_functions
                    .resize_with(index + 1, Default::default);
            }
            self.program.inlined_functions[index] = std::sync::OnceLock::new();
            if self.program.fun_units.len() <= index {
                self.program.fun_units.resize(index + 1, unit_id);
            }
            self.program.fun_units[index] = if unit.library_functions.contains(id) {
                library_unit
            } else {
                unit_id
            };
        }
        if self.globals.len() < unit.n_globals as usize {
            self.globals.resize(unit.n_globals as usize, Value::Unit);
        }
        for def in &unit.globals {
            let def = crate::core::ir::GlobalDef {
                unit: unit_id,
                ..def.clone()
            };
            self.program.global_defs.insert(def.slot, Arc::new(def));
        }
        (self.program.global_constants).extend(crate::core::constants::constant_globals(unit));
        let constants = &self.program.global_constants;
        self.program.global_ranges =
            crate::core::ranges::global_ranges(unit, &|g| match constants.get(&g) {
                Some(crate::core::ir::Const::Int(k)) => Some(*k),
                _ => None,
            });
        unit_id
    }

    /// The inlining pass over a defined unit's top level (its functions are inlined on first
    /// use, `Program::inlined`).
    fn inline(&mut self, unit: &Unit) -> crate::core::inline::InlinedUnit {
        crate::core::inline::inline_unit(&self.program, unit, self.program.inlining)
    }

    /// Run one unit (a program, the prelude or a REPL chunk). Returns the value of
    /// `Unit::result` when there is one. A runtime error keeps the effects before it and
    /// leaves the machine usable.
    // The signature is the contract with the session; `Diagnostic` is the shared error type.
    #[allow(clippy::result_large_err)]
    #[cfg(test)]
    pub fn run(&mut self, unit: &Unit, out: &mut dyn Write) -> Result<Option<Value>, Diagnostic> {
        self.run_with_stderr(unit, out, &mut std::io::sink())
    }

    /// `run` with the program's standard error going to `err`.
    #[allow(clippy::result_large_err)]
    pub fn run_with_stderr(
        &mut self,
        unit: &Unit,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<Option<Value>, Diagnostic> {
        let unit_id = self.define(unit);
        let inlined = self.inline(unit);
        let (stmts, result) = (&inlined.unit.body, inlined.unit.result.as_ref());
        let slots = inlined.top_level_slots as usize;
        let backend = self.program.native.clone();
        let mut compiler = compile::Compiler::new(&mut self.program, slots);
        let native = backend
            .as_ref()
            .and_then(|backend| native::compile_unit(&mut compiler, backend, stmts, result));
        let body = match &native {
            Some(_) => None,
            None => Some(compiler.top_level_block(stmts)),
        };
        let result = result.map(|e| compiler.expr(e));
        let n_slots = compiler.top_level_slots() + 1;

        let max_depth = u32::try_from(self.program.limits.max_call_depth).unwrap_or(u32::MAX);
        let limits = self.program.limits;
        let runtime = Runtime {
            globals: Globals::new(std::mem::take(&mut self.globals)),
            out: RefCell::new(out),
            err: RefCell::new(err),
            depth: Cell::new(0),
            max_depth,
            limits,
            stack_floor: Cell::new(usize::MAX),
            frame_pool: RefCell::new(Vec::new()),
            returned: Cell::new(Value::Unit),
            native_failed: Cell::new(0),
            native_fault: RefCell::new(None),
            native_label: Cell::new(0),
            native_result: Cell::new(0),
            world: RefCell::new(std::mem::take(&mut self.world)),
            program: RefCell::new(Some(&mut self.program)),
        };
        let outcome = {
            let mut slots = vec![Value::Unit; n_slots];
            let mut frame = Frame {
                slots: &mut slots,
                captures: &[],
                rt: &runtime,
            };
            // A panic (a bug) must not lose the globals: they go back to the machine first.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let run = |frame: &mut Frame<'_, '_>| match (&native, &body) {
                    (Some(code), _) => code.run(frame),
                    (None, Some(body)) => body(frame),
                    (None, None) => Ok(()),
                };
                closure::with_stack(&runtime, || match run(&mut frame) {
                    Ok(()) | Err(Ctrl::Return) => match &result {
                        Some(code) => code(&mut frame).map(Some),
                        None => Ok(None),
                    },
                    Err(other) => Err(other),
                })
            }))
        };
        let Runtime {
            globals,
            out,
            world,
            ..
        } = runtime;
        self.globals = globals.into_inner();
        self.world = world.into_inner();
        let _ = out.into_inner().flush();
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // Files written by the unit are flushed at its end; a write that fails only then is
        // the unit's error.
        let flushed = self.world.flush_files();
        let outcome = match (outcome, flushed) {
            (Err(Ctrl::Error(diagnostic)), _) if diagnostic.code == world::EXIT => Ok(None),
            (Ok(_), Err(fault)) => Err(fault),
            (outcome, _) => outcome,
        };
        for def in &unit.globals {
            if !matches!(
                self.globals.get(def.slot as usize),
                None | Some(Value::Unit)
            ) {
                self.program.initialised.insert(def.slot);
            }
        }
        match outcome {
            Ok(value) => Ok(value),
            Err(Ctrl::Error(diagnostic)) => Err(error::finish_frames(*diagnostic, unit_id)),
            Err(Ctrl::Return) => Ok(None),
            Err(Ctrl::Break(_) | Ctrl::Continue(_)) => Ok(None),
        }
    }
}
