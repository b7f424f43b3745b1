//! The native code backend: the typed IR (after inlining) compiled to machine code with
//! Cranelift, lazily, per function instance and per top-level unit.
//!
//! - `lower/`: IR -> Cranelift IR. Scalars (every integer width, `char`, `bool`, compact codes
//!   that fit 64 bits, `double`, `float`) live in registers; numeric arrays, also through
//!   pointers, and the bytes of strings are read and written in place; loops, conditions,
//!   matches and direct calls become branches and calls.
//! - `runtime.rs`: what compiled code calls (errors with their spans, array views, the
//!   evaluator for the parts lowering does not represent); `text.rs`: its helpers that build,
//!   render and print text.
//! - `layout.rs`: the evaluator's data as native code sees it.
//!
//! What lowering does not represent yet (library kernels over arrays and strings, calls of
//! unknown function values with results not in registers, pointers to scalars and fields,
//! cast pointers, ...) runs on the closure compiler *inside* native code: such an
//! expression or statement is compiled by `compile::Compiler` and called with the native
//! frame, whose slots hold the evaluator's `Value`s (the native scalars it reads are written to
//! their slots before the call, those it assigns read back after). So one function is native
//! code with fallback pieces, never two copies of the same code running side by side; the
//! report (`tessera --jit-report`) lists the pieces and why.

mod calls;
mod chunks;
mod layout;
mod lower;
mod pointee;
mod runtime;
mod text;
mod tiers;
mod varrays;

use tiers::top_level_pieces;
pub use tiers::{defer_instance, take_deferred};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use cranelift_codegen::ir::{types, AbiParam, Signature};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Module};

use crate::core::ir::{Expr, Function, Stmt};
use crate::types::Type;

use super::closure::Instance;
use super::compile::Compiler;
use super::value::Value;
use super::{Ctrl, Frame};

pub use runtime::Fault;

/// How a value of a type is held by native code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repr {
    /// In an `i64` register: integers (their value), `char`, and compact codes of 64 bits.
    I64,
    /// In an `f64` register: `double`, and `float` kept rounded to `f32`.
    F64,
    /// Nothing: `unit`.
    Unit,
    /// A parameter that is not in registers, passed by reference: the address of the
    /// caller's evaluator value (an `i64`), which the callee copies into its frame slot.
    Ref,
}

impl Repr {
    /// How native code holds a value of `ty`; `None` for types it keeps in the frame as
    /// evaluator values.
    pub fn of(ty: &Type) -> Option<Repr> {
        if ty.is_unit() {
            Some(Repr::Unit)
        } else if super::compile::float::is_float(ty) {
            Some(Repr::F64)
        } else if super::compact::is_int_like(ty) {
            Some(Repr::I64)
        } else {
            None
        }
    }

    fn clif(self) -> Option<types::Type> {
        match self {
            Repr::I64 | Repr::Ref => Some(types::I64),
            Repr::F64 => Some(types::F64),
            Repr::Unit => None,
        }
    }

    /// The evaluator's value of the bits of a native value of this representation (for
    /// `Ref`, a copy of the value at that address).
    pub fn boxed(self, bits: u64) -> Value {
        match self {
            Repr::I64 => Value::Int(bits as i64),
            Repr::F64 => Value::Float(f64::from_bits(bits)),
            Repr::Unit => Value::Unit,
            // SAFETY: a `Ref` word is the address of a live value (see `unboxed`).
            Repr::Ref => unsafe { (*(bits as *const Value)).clone() },
        }
    }

    /// The bits of an evaluator value of this representation (for `Ref`, its address: the
    /// value must outlive their use).
    pub fn unboxed(self, value: &Value) -> u64 {
        match self {
            Repr::I64 => value.as_int_lossy() as u64,
            Repr::F64 => value.as_float_lossy().to_bits(),
            Repr::Unit => 0,
            Repr::Ref => value as *const Value as u64,
        }
    }
}

/// A value native code holds as several scalars (its *leaves*, in registers or a caller's
/// buffer of 64-bit words) and never boxes: a tuple, record or struct of scalars (nested ones
/// flattened depth first, as the column layout of an array of them), or a small array of
/// scalars. The evaluator's value is rebuilt (`boxed`) only where it leaves native code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Agg {
    /// How the evaluator stores it: a tuple gathered by its column layout, or an array.
    kind: AggKind,
    /// The representation of each leaf.
    pub leaves: Vec<Repr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum AggKind {
    Tuple(&'static super::value::ColumnLayout),
    /// A small array, of leaves of this kind.
    Array(super::value::ScalarKind),
}

/// Aggregates of more leaves than this stay evaluator values.
const MAX_AGG_LEAVES: usize = 16;

impl Agg {
    /// The aggregate of a value of `ty`; `None` when `ty` is a scalar or holds anything but
    /// scalars.
    pub fn of(ty: &Type) -> Option<Agg> {
        use super::value::{leaf_count, leaf_repr, leaf_type, ColumnLayout, LeafRepr, ScalarKind};
        let of_scalar = |s: ScalarKind| match s.is_float() {
            false => Repr::I64,
            true => Repr::F64,
        };
        let agg = match ty {
            Type::Tuple(_) | Type::Record(..) | Type::Nominal(_) => {
                let layout = ColumnLayout::of(ty)?;
                Agg {
                    kind: AggKind::Tuple(layout),
                    leaves: layout.kinds.iter().map(|k| of_scalar(*k)).collect(),
                }
            }
            Type::Array(..) => {
                let n = leaf_count(ty).filter(|n| *n <= MAX_AGG_LEAVES)?;
                let LeafRepr::Scalar(kind) = leaf_repr(leaf_type(ty)) else {
                    return None;
                };
                Agg {
                    kind: AggKind::Array(kind),
                    leaves: vec![of_scalar(kind); n],
                }
            }
            _ => return None,
        };
        (!agg.leaves.is_empty() && agg.leaves.len() <= MAX_AGG_LEAVES).then_some(agg)
    }

    /// The column layout of an array of such tuples (`None` for a small array).
    pub fn layout(&self) -> Option<&'static super::value::ColumnLayout> {
        match self.kind {
            AggKind::Tuple(layout) => Some(layout),
            AggKind::Array(_) => None,
        }
    }

    /// The evaluator's value of the leaves `bits`.
    pub fn boxed(&self, bits: &[u64]) -> Value {
        match self.kind {
            AggKind::Tuple(layout) => layout.gather(&mut |c| self.leaves[c].boxed(bits[c])),
            AggKind::Array(kind) => {
                Value::Array(super::value::ArrayVal::new(super::value::Buffer::Scalars(
                    super::value::Scalars::from_bits(kind, bits.iter().copied()),
                )))
            }
        }
    }

    /// Write the leaves of the evaluator's `value` (of this aggregate's type) to `bits`.
    pub fn unbox(&self, value: &Value, bits: &mut [u64]) {
        match (self.kind, value) {
            (AggKind::Tuple(layout), _) => {
                layout.scatter(value, &mut |c, leaf| bits[c] = self.leaves[c].unboxed(leaf))
            }
            (AggKind::Array(_), Value::Array(view)) => {
                for (i, bit) in bits.iter_mut().enumerate().take(view.len) {
                    *bit = self.leaves[i].unboxed(&view.leaf(i));
                }
            }
            _ => {}
        }
    }

    /// The leaves of component `i` of a value of type `ty` (a field of a tuple, record or
    /// struct, an element of an array): their first position and count; `None` when `i` is
    /// not a component.
    pub fn component(ty: &Type, i: usize) -> Option<(usize, usize)> {
        use crate::types::ty::NominalBody;
        Agg::of(ty)?;
        let count = |t: &Type| {
            Agg::of(t)
                .map(|a| a.leaves.len())
                .or_else(|| matches!(Repr::of(t), Some(r) if r != Repr::Unit).then_some(1))
        };
        match ty {
            Type::Tuple(parts) | Type::Record(_, parts) => {
                let parts: Vec<&Type> = parts.iter().collect();
                component_of(&parts, i, count)
            }
            Type::Nominal(def) => match def.body() {
                Some(NominalBody::Struct(fields)) => {
                    let parts: Vec<&Type> = fields.iter().map(|(_, t)| t).collect();
                    component_of(&parts, i, count)
                }
                _ => None,
            },
            Type::Array(elem, _) => {
                let per = count(elem)?;
                let n = super::value::leaf_count(ty)? / super::value::leaf_count(elem)?;
                (i < n).then_some((i * per, per))
            }
            _ => None,
        }
    }
}

fn component_of(
    parts: &[&Type],
    i: usize,
    count: impl Fn(&Type) -> Option<usize>,
) -> Option<(usize, usize)> {
    let mut start = 0;
    for part in parts.get(..i)? {
        start += count(part)?;
    }
    Some((start, count(parts.get(i)?)?))
}

/// How native code holds a local variable: one scalar, or the leaves of an aggregate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Held {
    Scalar(Repr),
    Agg(Agg),
}

impl Held {
    pub fn of(ty: &Type) -> Option<Held> {
        match Repr::of(ty) {
            Some(r) => Some(Held::Scalar(r)),
            None => Agg::of(ty).map(Held::Agg),
        }
    }
}

/// The register signature of a function instance: its parameters flattened (a group that
/// is a tuple of variables gives one parameter per variable, a variable of a type not in
/// registers by reference; any other group is passed *boxed*, as the address of an evaluator
/// value the callee binds with its pattern) and its
/// result (a scalar in a register, or boxed: written to an `out` value the caller passes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeSig {
    /// Per parameter group, the representation of each variable it binds (none for `()`;
    /// one `I64`, the value's address, for a boxed group).
    pub groups: Vec<Vec<Repr>>,
    /// Which groups are boxed.
    pub boxed: Vec<bool>,
    /// Which groups of several variables are arrays (`int ^ 2`: a tuple of equal types is an
    /// array) rather than tuples.
    /// (`Some` of the kind of its leaves).
    pub arrays: Vec<Option<super::value::ScalarKind>>,
    /// The result in a register (`Unit` when boxed).
    pub ret: Repr,
    /// Is the result boxed (written to the `out` parameter)?
    pub ret_boxed: bool,
    /// A result of several leaves, written to the `out` parameter's buffer of words.
    pub ret_agg: Option<Agg>,
}

impl NativeSig {
    /// The flattened parameters.
    pub fn params(&self) -> impl Iterator<Item = Repr> + '_ {
        self.groups.iter().flatten().copied()
    }

    /// Does the function take an `out` parameter (a boxed result's value, or an
    /// aggregate result's buffer)?
    pub fn has_out(&self) -> bool {
        self.ret_boxed || self.ret_agg.is_some()
    }

    /// The Cranelift signature: `(runtime, captures, [out,] parameters...) -> result`.
    fn clif(&self, call_conv: CallConv) -> Signature {
        let mut sig = Signature::new(call_conv);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        if self.has_out() {
            sig.params.push(AbiParam::new(types::I64));
        }
        for repr in self.params() {
            if let Some(ty) = repr.clif() {
                sig.params.push(AbiParam::new(ty));
            }
        }
        if let Some(ty) = self.ret.clif() {
            sig.returns.push(AbiParam::new(ty));
        }
        sig
    }
}

/// What the report says of one function instance or unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The function's name, or `top level` for a unit.
    pub name: String,
    /// Compiled to native code (possibly with fallback pieces)?
    pub native: bool,
    /// Why not, or which pieces run on the closure compiler and why.
    pub notes: Vec<String>,
}

/// The compiled entry of a native function instance, for calls from the evaluator.
#[derive(Clone, Debug)]
pub struct NativeEntry {
    /// `extern "C" fn(rt, captures, args: *const u64, out: *mut Value) -> u64`: the
    /// parameters as bits in memory (a boxed group as its value's address), the result as
    /// bits or, when boxed, in `out`.
    pub boxed: usize,
    pub sig: NativeSig,
}

/// The Cranelift module holding all code of a session, and what was compiled into it.
pub struct Backend {
    module: JITModule,
    call_conv: CallConv,
    /// The native function of each instance compiled (by the instance's address; instances
    /// live as long as the program).
    declared: HashMap<usize, (FuncId, NativeSig)>,
    /// The cold stub of each helper and signature (`lower::cold_stub`).
    cold_stubs: HashMap<ColdStubKey, FuncId>,
    /// Instances defined but not yet finalised, with their functions and boxed entries.
    pending: Vec<(Arc<Instance>, FuncId, FuncId, NativeSig)>,
    /// How many compilations are in progress (nested: a function reaches its callees).
    depth: usize,
    /// When the outermost compilation in progress started.
    started: Option<std::time::Instant>,
    /// The time spent compiling to native code in this session, from the outermost
    /// compilation's start to the end of its `finalize` (lowering, Cranelift, linking).
    compile_time: std::time::Duration,
    /// Code the native code calls back into, kept as long as the module.
    keep: Vec<Box<dyn std::any::Any + Send + Sync>>,
    /// One entry per instance and unit compiled.
    pub reports: Vec<Report>,
    unit_counter: usize,
    /// Compile a top level's statements that run once (those without a loop) to native code
    /// too (`Settings::jit_all`); otherwise they run on closures (`top_level_pieces`).
    compile_run_once: bool,
    /// The instances left on closures (`defer_instance`), by address, with their functions:
    /// compiled when other code needs them.
    deferred: HashMap<usize, Arc<Function>>,
}

// SAFETY: the module is only used under the backend's mutex; the code it holds is immutable
// once finalised and is called from the thread that runs the session.
unsafe impl Send for Backend {}

/// A helper's address, parameter types and result types.
type ColdStubKey = (usize, Vec<types::Type>, Vec<types::Type>);

/// A session's backend, shared by the compiler (which runs on one thread at a time).
pub type SharedBackend = Arc<Mutex<Backend>>;

/// The backend, locked (a panic while it was held leaves it usable).
fn lock(backend: &SharedBackend) -> MutexGuard<'_, Backend> {
    backend
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Backend {
    /// A backend for this machine's processor; `None` when Cranelift does not support it
    /// (everything then runs on the closure compiler).
    pub fn new(compile_run_once: bool) -> Option<SharedBackend> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        flags.set("use_colocated_libcalls", "false").ok()?;
        flags.set("is_pic", "false").ok()?;
        // Cranelift's IR verifier runs in debug builds (and so in `cargo test`); release
        // builds skip it, to compile faster.
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        flags.set("enable_verifier", verify).ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let call_conv = isa.default_call_conv();
        let builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        Some(Arc::new(Mutex::new(Backend {
            module: JITModule::new(builder),
            call_conv,
            declared: HashMap::new(),
            cold_stubs: HashMap::new(),
            pending: Vec::new(),
            depth: 0,
            started: None,
            compile_time: std::time::Duration::ZERO,
            keep: Vec::new(),
            reports: Vec::new(),
            unit_counter: 0,
            compile_run_once,
            deferred: HashMap::new(),
        })))
    }

    /// A compilation starts (the outermost one starts the clock of `compile_time`).
    fn enter(&mut self) {
        if self.depth == 0 {
            self.started = Some(std::time::Instant::now());
        }
        self.depth += 1;
    }

    /// Make the code defined so far callable, and give each instance compiled its entry
    /// (when the outermost compilation ends, which stops the clock).
    fn finalize(&mut self) -> Result<(), String> {
        let finalized = self.module.finalize_definitions();
        if let Some(started) = self.started.take() {
            self.compile_time += started.elapsed();
        }
        finalized.map_err(|e| format!("finalising native code: {e}"))?;
        for (instance, id, boxed, sig) in std::mem::take(&mut self.pending) {
            let call = &instance.native_call;
            let func = self.module.get_finalized_function(id) as usize;
            call.func.store(func, std::sync::atomic::Ordering::Release);
            let shape = calls::CallShape::of(&sig).number();
            call.shape
                .store(shape, std::sync::atomic::Ordering::Release);
            let entry = NativeEntry {
                boxed: self.module.get_finalized_function(boxed) as usize,
                sig,
            };
            let _ = instance.native.set(entry);
        }
        Ok(())
    }
}

/// The native signature of `function`: groups that are `()`, a variable or a tuple of
/// variables in registers (a variable of a type not in registers by reference; not in an
/// array group, whose value the evaluator rebuilds from native leaves), any other group boxed; the result in a register
/// when its type is native, boxed otherwise. Captures are not parameters: every native
/// function is passed the address of its closure's captured values.
pub fn signature(function: &Function) -> NativeSig {
    use crate::core::ir::{PatternKind, Place};
    let (mut groups, mut boxed, mut arrays) = (Vec::new(), Vec::new(), Vec::new());
    for param in &function.params {
        let array = matches!(param.ty, Type::Array(..));
        let bind = |p: &crate::core::ir::Pattern| -> Option<Repr> {
            match (&p.kind, Repr::of(&p.ty)) {
                (PatternKind::Bind(Place::Local(_)), Some(repr)) if repr != Repr::Unit => {
                    Some(repr)
                }
                (PatternKind::Wildcard, Some(Repr::Unit)) => Some(Repr::Unit),
                (PatternKind::Bind(Place::Local(_)), None) if !array => Some(Repr::Ref),
                _ => None,
            }
        };
        let group = match &param.kind {
            PatternKind::Tuple(parts) if matches!(param.ty, Type::Tuple(_) | Type::Array(..)) => {
                parts.iter().map(bind).collect::<Option<Vec<_>>>()
            }
            _ => bind(param).map(|r| vec![r]),
        };
        arrays.push(if array {
            super::value::ScalarKind::of(super::value::leaf_type(&param.ty))
        } else {
            None
        });
        match group {
            Some(group) if group.len() == 1 || !group.contains(&Repr::Unit) => {
                groups.push(group.into_iter().filter(|r| *r != Repr::Unit).collect());
                boxed.push(false);
            }
            _ => {
                groups.push(vec![Repr::I64]);
                boxed.push(true);
            }
        }
    }
    let ret_agg = Agg::of(&function.ret);
    let (ret, ret_boxed) = match Repr::of(&function.ret) {
        Some(repr) => (repr, false),
        None => (Repr::Unit, ret_agg.is_none()),
    };
    NativeSig {
        groups,
        boxed,
        arrays,
        ret,
        ret_boxed,
        ret_agg,
    }
}

/// Compile `instance` (of `function`, already compiled to closures by `compiler`) to native
/// code; its entry is set once the outermost compilation ends.
pub fn compile_instance(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    instance: &Arc<Instance>,
    function: &Function,
) {
    let sig = signature(function);
    let key = Arc::as_ptr(instance) as usize;
    let id = {
        let mut b = lock(backend);
        if b.declared.contains_key(&key) {
            return;
        }
        let clif = sig.clif(b.call_conv);
        let name = format!("f{key:x}");
        let Ok(id) = b
            .module
            .declare_function(&name, cranelift_module::Linkage::Local, &clif)
        else {
            return;
        };
        b.declared.insert(key, (id, sig.clone()));
        b.enter();
        id
    };
    let n_slots = instance.code.get().map_or(0, |code| code.n_slots);
    let size = tiers::size(&function.body);
    let lowered = if size > LARGEST_FUNCTION_EXPRS {
        Err(format!(
            "{size} expressions, more than {LARGEST_FUNCTION_EXPRS}: compiling a function takes \
             time growing faster than its size (register allocation), so one this large runs \
             on closures"
        ))
    } else {
        lower::function(compiler, backend, instance, function, &sig, n_slots, id)
    };
    let mut b = lock(backend);
    let notes = match lowered {
        Ok(notes) => notes,
        Err(reason) => {
            // The declared function must exist for its callers: it calls the evaluator.
            let trampoline = lower::trampoline(&mut b, instance, &sig, id);
            vec![
                format!("not compiled: {reason}"),
                match trampoline {
                    Ok(()) => "runs on the closure compiler".into(),
                    Err(e) => format!("no trampoline either: {e}"),
                },
            ]
        }
    };
    let native = !notes.iter().any(|n| n.starts_with("not compiled"));
    match lower::boxed_entry(&mut b, &sig, id) {
        Ok(boxed) => b.pending.push((instance.clone(), id, boxed, sig.clone())),
        Err(e) => b.reports.push(Report {
            name: function.name.clone(),
            native: false,
            notes: vec![format!("no entry: {e}")],
        }),
    }
    b.reports.push(Report {
        name: function.name.clone(),
        native,
        notes,
    });
    b.depth -= 1;
    if b.depth == 0 {
        if let Err(e) = b.finalize() {
            b.reports.push(Report {
                name: function.name.clone(),
                native: false,
                notes: vec![e],
            });
        }
    }
}

/// A unit's top level, compiled: `run` it with the unit's frame.
pub struct UnitCode {
    /// The pieces of the top level (`top_level_pieces`), run in order.
    pieces: Vec<UnitPiece>,
    n_slots: usize,
}

/// A piece of a top level: a native function, or statements that run once on closures.
enum UnitPiece {
    Native(usize),
    Closures(super::code::StmtCode),
}

impl UnitCode {
    /// Run the unit's statements in `frame` (of `n_slots()` slots).
    pub fn run(&self, frame: &mut Frame<'_, '_>) -> Result<(), Ctrl> {
        assert!(frame.slots.len() >= self.n_slots);
        for piece in &self.pieces {
            match piece {
                UnitPiece::Native(entry) => {
                    // SAFETY: the code was compiled for this signature; the frame has the
                    // slots it addresses; `rt` outlives the call.
                    let f: extern "C" fn(
                        *const super::Runtime<'_>,
                        *const Value,
                        *mut Value,
                        usize,
                    ) = unsafe { std::mem::transmute(*entry) };
                    let n = frame.slots.len();
                    f(
                        frame.rt,
                        frame.captures.as_ptr(),
                        frame.slots.as_mut_ptr(),
                        n,
                    );
                    runtime::take_failure(frame.rt)?;
                }
                UnitPiece::Closures(code) => code(frame)?,
            }
        }
        Ok(())
    }
}

/// Compile a unit's top-level statements to native code, in a frame of `n_slots` slots (the
/// compiler's top-level slots); `None` when that fails (the unit then runs on closures).
/// The statements are compiled as consecutive pieces (`top_level_pieces`); the variables a
/// native piece keeps in registers are read from the frame when it starts and written back
/// when it ends, so the pieces share the frame as one function would.
pub fn compile_unit(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    stmts: &[Stmt],
    result: Option<&Expr>,
) -> Option<UnitCode> {
    compile_top_level(compiler, backend, stmts, result, false)
}

/// Functions larger than this many expressions run on closures: Cranelift compiles one of
/// this size in about half a second, and its time grows faster than the size (a top level has
/// no such bound: it is compiled in pieces, `top_level_pieces`).
const LARGEST_FUNCTION_EXPRS: usize = 16_000;

/// `compile_unit` for a block the evaluator runs inside a function (code over run-time
/// sizes): a `return` in it returns from that function (`UnitCode::run` fails with
/// `Ctrl::Return`, the value in the runtime's `returned`).
pub fn compile_block(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    stmts: &[Stmt],
) -> Option<UnitCode> {
    compile_top_level(compiler, backend, stmts, None, true)
}

fn compile_top_level(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    stmts: &[Stmt],
    result: Option<&Expr>,
    returns_out: bool,
) -> Option<UnitCode> {
    // A block inside a function runs once per call: all of it is native code.
    let run_once_on_closures = !returns_out && !lock(backend).compile_run_once;
    lock(backend).enter();
    let defined = compiler.defined_globals();
    let mut pieces = Vec::new();
    let mut notes = Vec::new();
    let mut failure = None;
    let mut n_slots = 0;
    let (mut native, mut closures) = (0, 0);
    for (piece, is_native) in top_level_pieces(stmts, run_once_on_closures) {
        if !is_native {
            let run = &stmts[piece];
            let size = tiers::size(run);
            let what = match run.len() {
                1 => "1 statement".to_string(),
                n => format!("{n} statements"),
            };
            notes.push(format!(
                "{what} ({size} expressions) without a loop run once, on closures"
            ));
            pieces.push(Err(compiler.run_once_block(run)));
            n_slots = compiler.top_level_slots();
            closures += 1;
            continue;
        }
        let id = {
            let mut b = lock(backend);
            b.unit_counter += 1;
            let name = format!("unit{}", b.unit_counter);
            let mut sig = Signature::new(b.call_conv);
            for _ in 0..3 {
                sig.params.push(AbiParam::new(types::I64));
            }
            b.module
                .declare_function(&name, cranelift_module::Linkage::Local, &sig)
        };
        let id = match id {
            Ok(id) => id,
            Err(e) => {
                failure = Some(format!("declaring the top level: {e}"));
                break;
            }
        };
        // What reads the frame after the piece: the pieces after it (the result expression's
        // slots are never in registers), or for a block, the rest of its function.
        match lower::unit(compiler, backend, stmts, piece, result, returns_out, id) {
            Ok((piece_notes, slots)) => {
                notes.extend(piece_notes);
                n_slots = slots;
                pieces.push(Ok(id));
                native += 1;
            }
            Err(reason) => {
                failure = Some(reason);
                break;
            }
        }
    }
    let mut b = lock(backend);
    b.depth -= 1;
    if let Some(reason) = failure {
        // The whole unit runs on closures, compiled again from its first statement.
        compiler.set_defined_globals(defined);
        b.reports.push(Report {
            name: "top level".into(),
            native: false,
            notes: vec![format!("not compiled: {reason}")],
        });
        if b.depth == 0 {
            let _ = b.finalize();
        }
        return None;
    }
    b.reports.push(Report {
        name: "top level".into(),
        native: native > 0 || closures == 0,
        notes,
    });
    if b.depth == 0 && b.finalize().is_err() {
        return None;
    }
    let pieces = pieces
        .into_iter()
        .map(|piece| match piece {
            Ok(id) => UnitPiece::Native(b.module.get_finalized_function(id) as usize),
            Err(code) => UnitPiece::Closures(code),
        })
        .collect();
    Some(UnitCode { pieces, n_slots })
}

/// Call a native instance with evaluator values (from `closure::call_instance`): one value
/// per parameter group (a tuple for a group of several variables).
pub fn call_boxed(
    rt: &super::Runtime<'_>,
    entry: &NativeEntry,
    captures: &[Value],
    args: &[Value],
) -> Result<Value, Ctrl> {
    let mut bits: smallvec::SmallVec<[u64; 8]> = smallvec::SmallVec::new();
    for ((group, boxed), arg) in entry.sig.groups.iter().zip(&entry.sig.boxed).zip(args) {
        push_group(&mut bits, group, *boxed, arg);
    }
    if entry.sig.has_out() {
        let mut out = Value::Unit;
        run_entry(rt, entry, captures, &bits, &mut out)?;
        Ok(out)
    } else {
        call_bits(rt, entry, captures, &bits).map(|bits| entry.sig.ret.boxed(bits))
    }
}

/// The words a native entry takes for the parameter group `group` (`boxed` or not) given the
/// evaluator's value `arg`: a boxed group, or one variable by reference, as `arg`'s address
/// (so `arg` must outlive the call), any other as the bits of its parts.
fn push_group(bits: &mut smallvec::SmallVec<[u64; 8]>, group: &[Repr], boxed: bool, arg: &Value) {
    // Array groups have no `Ref` parts (`signature`), so every address taken here is of
    // `arg` or a part of it.
    match (group, arg) {
        _ if boxed => bits.push(arg as *const Value as u64),
        ([], _) => {}
        ([one], _) => bits.push(one.unboxed(arg)),
        (many, Value::Tuple(parts)) => {
            for (repr, part) in many.iter().zip(parts.iter()) {
                bits.push(repr.unboxed(part));
            }
        }
        (many, Value::Array(view)) => {
            for (i, repr) in many.iter().enumerate() {
                bits.push(repr.unboxed(&view.leaf(i)));
            }
        }
        (many, other) => bits.push(many[0].unboxed(other)),
    }
}

/// Call a native instance whose result is not boxed with its parameters as bits (a boxed
/// group as its value's address, alive during the call): the result's bits.
#[inline]
pub fn call_bits(
    rt: &super::Runtime<'_>,
    entry: &NativeEntry,
    captures: &[Value],
    bits: &[u64],
) -> Result<u64, Ctrl> {
    let mut out = Value::Unit;
    run_entry(rt, entry, captures, bits, &mut out)
}

#[inline]
fn run_entry(
    rt: &super::Runtime<'_>,
    entry: &NativeEntry,
    captures: &[Value],
    bits: &[u64],
    out: &mut Value,
) -> Result<u64, Ctrl> {
    // SAFETY: the entry was compiled for this signature (`lower::boxed_entry`), `bits` has
    // its parameters; the boxed arguments and `out` outlive the call.
    let f: extern "C" fn(*const super::Runtime<'_>, *const Value, *const u64, *mut Value) -> u64 =
        unsafe { std::mem::transmute(entry.boxed) };
    let result = f(rt, captures.as_ptr(), bits.as_ptr(), out);
    runtime::take_failure(rt)?;
    Ok(result)
}

/// Does the backend compile a top level's statements that run once (`Settings::jit_all`)?
pub fn compiles_run_once(backend: &SharedBackend) -> bool {
    lock(backend).compile_run_once
}

/// The report of everything compiled so far.
pub fn reports(backend: &SharedBackend) -> Vec<Report> {
    lock(backend).reports.clone()
}

/// The time spent compiling to native code so far (`Backend::compile_time`).
pub fn compile_time(backend: &SharedBackend) -> std::time::Duration {
    lock(backend).compile_time
}
