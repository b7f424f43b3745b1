//! Function values: compiled function instances, closures (an instance with its captured
//! values and the argument groups collected so far), and calling them.

use std::sync::{Arc, OnceLock};

use crate::core::ir::{Capture, Slot};
use crate::syntax::span::Span;

use super::code::{BindCode, ExprCode, StmtCode};
use super::error::{note_frame, runtime_error, INTERNAL, RECURSION_TOO_DEEP};
use super::value::Value;
use super::{Ctrl, Frame, Runtime};

/// Stack left below which a call continues on a freshly allocated stack segment.
const STACK_RED_ZONE: usize = 256 * 1024;
/// The size of each additional stack segment.
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// The address of the current native stack position (a local variable's address).
#[inline(always)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(std::ptr::addr_of!(marker)) as usize
}

/// Run `f`, first moving to a new stack segment if the current one is nearly exhausted, so deep
/// (but bounded, see `MAX_CALL_DEPTH`) recursion never overflows the native stack.
///
/// The check is one comparison of the stack position with `rt.stack_floor`: the lowest
/// position (the stack grows down) at which the current segment still has `STACK_RED_ZONE`
/// bytes left. The floor is computed whenever execution enters a segment through here (and
/// starts at `usize::MAX`, so the first call computes it); below it, `stacker` moves to a
/// fresh segment and the floor is set for that one until the call returns.
#[inline(always)]
pub fn with_stack<R>(rt: &Runtime<'_>, f: impl FnOnce() -> R) -> R {
    if stack_position() >= rt.stack_floor.get() {
        f()
    } else {
        grow_stack(rt, f)
    }
}

thread_local! {
    /// The stack segments `grow_stack` has allocated on this thread and not yet freed (a
    /// fact of the thread's stack, not a setting: the budget is the session's `--max-stack`).
    static SEGMENTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// `None` when a call made here would need a new stack segment that takes the native stack
/// past `--max-stack`; otherwise the new segment (if any) is counted until the guard drops.
fn reserve_segment(rt: &Runtime<'_>) -> Option<SegmentGuard> {
    let grows = stacker::remaining_stack().is_none_or(|left| left < STACK_RED_ZONE);
    if !grows {
        return Some(SegmentGuard(false));
    }
    let used = SEGMENTS.with(|s| s.get());
    if (used + 1) * STACK_SEGMENT as u64 > rt.limits.max_stack_bytes {
        return None;
    }
    SEGMENTS.with(|s| s.set(used + 1));
    Some(SegmentGuard(true))
}

/// Counts a stack segment in `SEGMENTS` while it lives (also when a panic unwinds through).
struct SegmentGuard(bool);

impl Drop for SegmentGuard {
    fn drop(&mut self) {
        if self.0 {
            SEGMENTS.with(|s| s.set(s.get().saturating_sub(1)));
        }
    }
}

/// R0008 for a call that would take the native stack past `--max-stack`.
#[cold]
fn stack_exhausted(rt: &Runtime<'_>, instance: &Instance, span: Span) -> Ctrl {
    runtime_error(
        RECURSION_TOO_DEEP,
        format!(
            "recursion too deep: the nested calls need more than {} bytes of stack (calling {}; raise it with `--max-stack`)",
            rt.limits.max_stack_bytes, instance.name
        ),
        span,
    )
}

/// Run `f` (a call of `instance` made at `span`) on a fresh stack segment, or R0008 when that
/// would take the native stack past `--max-stack` (native code's deep calls).
pub(crate) fn grow_for_call<R>(
    rt: &Runtime<'_>,
    instance: &Instance,
    span: Span,
    f: impl FnOnce() -> R,
) -> Result<R, Ctrl> {
    let Some(_segment) = reserve_segment(rt) else {
        return Err(stack_exhausted(rt, instance, span));
    };
    Ok(grow_stack(rt, f))
}

/// The slow path of `with_stack`: possibly a new segment, and the floor of the segment run in.
#[cold]
#[inline(never)]
pub(crate) fn grow_stack<R>(rt: &Runtime<'_>, f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
        let saved = rt.stack_floor.get();
        let floor = match stacker::remaining_stack() {
            Some(remaining) => stack_position()
                .saturating_sub(remaining)
                .saturating_add(STACK_RED_ZONE),
            // Without a known limit every call takes this path (stacker checks each time).
            None => usize::MAX,
        };
        rt.stack_floor.set(floor);
        let result = f();
        rt.stack_floor.set(saved);
        result
    })
}

/// One function instantiated at concrete types, compiled once and shared by all closures.
pub struct Instance {
    pub name: String,
    /// The unit whose source has the body's spans (`Program::unit_of`), for call stacks.
    pub unit: u32,
    /// The number of curried parameter groups.
    pub n_groups: usize,
    /// Slots that get a fresh cell on entry.
    pub cell_slots: Vec<Slot>,
    /// What a closure of this instance captures from the frame creating it.
    pub captures: Vec<Capture>,
    /// Set right after compilation; recursive references see the instance before its code.
    pub code: OnceLock<InstanceCode>,
    /// The native code of the instance, once compiled (`eval::native`); calls run it instead
    /// of `code`.
    pub native: OnceLock<super::native::NativeEntry>,
    /// What native code calling a function value of this instance reads to call its native
    /// function straight (`native::layout::Dispatch`).
    pub native_call: NativeCall,
}

/// The native function of an instance as a call of a function value reaches it: its
/// address and the number of its register signature's shape (`native::call_shape`), both
/// 0 until the instance is compiled (the address is set first).
#[derive(Default)]
#[repr(C)]
pub struct NativeCall {
    pub(crate) func: std::sync::atomic::AtomicUsize,
    pub(crate) shape: std::sync::atomic::AtomicU64,
}

/// The executable part of an instance.
pub struct InstanceCode {
    pub n_slots: usize,
    /// One binder per parameter group.
    pub params: Vec<BindCode>,
    /// For each group bound to a plain local variable, its slot: bound by a direct store.
    pub param_slots: Vec<Option<usize>>,
    pub body: StmtCode,
    /// The body as one expression when it is a single `return e` (no unwinding through
    /// `Ctrl::Return`).
    pub expr_body: Option<ExprCode>,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<instance {} ({} groups)>", self.name, self.n_groups)
    }
}

/// A function value (a compiled function instance with its captures, possibly partially
/// applied). It is made by `Closure::new` and never changed after (it is shared behind an
/// `Arc`): native code reads the copies its `direct` field keeps of the others.
pub struct Closure {
    pub instance: Arc<Instance>,
    pub captures: Arc<[Value]>,
    /// Argument groups already supplied (fewer than `instance.n_groups`).
    pub args: Vec<Value>,
    /// The above as native code calling the closure reads them, set by `Closure::new`.
    direct: Direct,
}

/// What native code reads of a closure to call its instance straight
/// (`native::layout::Dispatch`): fixed once the closure is made.
#[repr(C)]
struct Direct {
    /// The groups a call gives at once: the instance's, when none is supplied yet; 0 for a
    /// partial application.
    groups: u64,
    /// The address of the instance.
    instance: usize,
    /// The address of the first capture.
    captures: usize,
}

impl Closure {
    pub fn new(instance: Arc<Instance>, captures: Arc<[Value]>, args: Vec<Value>) -> Closure {
        let direct = Direct {
            groups: match args.is_empty() {
                true => instance.n_groups.max(1) as u64,
                false => 0,
            },
            instance: Arc::as_ptr(&instance) as usize,
            captures: captures.as_ptr() as usize,
        };
        Closure {
            instance,
            captures,
            args,
            direct,
        }
    }

    /// The offsets in a closure of its `Direct` fields: the groups, the instance, the
    /// captures.
    pub(crate) fn direct_offsets() -> [usize; 3] {
        use std::mem::offset_of;
        let at = offset_of!(Closure, direct);
        [
            at + offset_of!(Direct, groups),
            at + offset_of!(Direct, instance),
            at + offset_of!(Direct, captures),
        ]
    }
}

impl std::fmt::Debug for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<closure {} with {} of {} groups>",
            self.instance.name,
            self.args.len(),
            self.instance.n_groups
        )
    }
}

/// Call an instance with all its argument groups (exactly `n_groups` of them).
pub fn call_instance(
    rt: &Runtime<'_>,
    instance: &Instance,
    captures: &[Value],
    args: impl IntoIterator<Item = Value>,
    span: Span,
) -> Result<Value, Ctrl> {
    let Some(code) = instance.code.get() else {
        return Err(runtime_error(
            INTERNAL,
            format!("function {} called before it was compiled", instance.name),
            span,
        ));
    };
    enter_call(rt, instance, span, || match instance.native.get() {
        Some(entry) => {
            // Pushed one by one: `collect` goes through `SmallVec::extend`, which the
            // optimiser may leave out of line (a call and moves per argument).
            let mut collected: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
            for arg in args {
                collected.push(arg);
            }
            super::native::call_boxed(rt, entry, captures, &collected)
        }
        None => run_code(rt, instance, code, captures, args),
    })
}

/// The bookkeeping of a call of `instance` made at `span` around `run`: the depth limit,
/// Ctrl-C, a fresh stack segment when the current one runs low, and the call stack of an
/// error leaving it.
#[inline(always)]
pub(crate) fn enter_call<R>(
    rt: &Runtime<'_>,
    instance: &Instance,
    span: Span,
    run: impl FnOnce() -> Result<R, Ctrl>,
) -> Result<R, Ctrl> {
    let depth = rt.depth.get();
    if depth >= rt.max_depth {
        return Err(too_deep(instance, span, rt.max_depth));
    }
    if crate::interrupt::requested() {
        return Err(super::error::interrupted(span));
    }
    let _segment = if stack_position() < rt.stack_floor.get() {
        match reserve_segment(rt) {
            Some(guard) => Some(guard),
            None => return Err(stack_exhausted(rt, instance, span)),
        }
    } else {
        None
    };
    rt.depth.set(depth + 1);
    let result = with_stack(rt, run);
    rt.depth.set(depth);
    result.map_err(|error| note_frame(error, &instance.name, instance.unit, span))
}

/// A function value of one parameter group, a scalar, and a scalar result, whose instance
/// is native code: what a library kernel calling it once per element (`filter`) calls,
/// with the bookkeeping of `call_instance` and the argument and result as bits.
pub struct ScalarCall<'f> {
    closure: &'f Closure,
    entry: &'f super::native::NativeEntry,
    pub param: super::native::Repr,
    pub ret: super::native::Repr,
}

impl<'f> ScalarCall<'f> {
    pub fn of(func: &'f Value) -> Option<ScalarCall<'f>> {
        use super::native::Repr;
        let Value::Fun(closure) = func else {
            return None;
        };
        let instance = &closure.instance;
        if !closure.args.is_empty() || instance.n_groups != 1 || instance.code.get().is_none() {
            return None;
        }
        let entry = instance.native.get()?;
        let sig = &entry.sig;
        let param = match (sig.groups.as_slice(), sig.boxed.as_slice()) {
            ([group], [false]) => match group.as_slice() {
                [r @ (Repr::I64 | Repr::F64)] => *r,
                _ => return None,
            },
            _ => return None,
        };
        if sig.has_out() || !matches!(sig.ret, Repr::I64 | Repr::F64) {
            return None;
        }
        Some(ScalarCall {
            closure,
            entry,
            param,
            ret: sig.ret,
        })
    }

    /// Call with the argument's bits; the result's bits.
    #[inline]
    pub fn call(&self, rt: &Runtime<'_>, arg: u64, span: Span) -> Result<u64, Ctrl> {
        let instance = &self.closure.instance;
        let captures = &self.closure.captures;
        enter_call(rt, instance, span, || {
            super::native::call_bits(rt, self.entry, captures, &[arg])
        })
    }
}

/// Run an instance's closure code with all its argument groups, without the call's
/// bookkeeping (depth, call stack): what a native call of a function that has no native
/// body runs.
pub fn run_instance(
    rt: &Runtime<'_>,
    instance: &Instance,
    captures: &[Value],
    args: Vec<Value>,
) -> Result<Value, Ctrl> {
    let Some(code) = instance.code.get() else {
        return Err(runtime_error(
            INTERNAL,
            format!("function {} called before it was compiled", instance.name),
            Span::default(),
        ));
    };
    with_stack(rt, || run_code(rt, instance, code, captures, args))
}

/// Run an instance's closure code in a fresh frame.
fn run_code(
    rt: &Runtime<'_>,
    instance: &Instance,
    code: &InstanceCode,
    captures: &[Value],
    args: impl IntoIterator<Item = Value>,
) -> Result<Value, Ctrl> {
    {
        let mut slots = match rt.frame_pool.borrow_mut().pop() {
            Some(slots) => slots,
            None => Vec::with_capacity(code.n_slots),
        };
        slots.resize(code.n_slots, Value::Unit);
        let mut frame = Frame {
            slots: &mut slots,
            captures,
            rt,
        };
        for slot in &instance.cell_slots {
            if let Some(place) = frame.slots.get_mut(*slot as usize) {
                *place = Value::Cell(super::value::new_cell(Value::Unit));
            }
        }
        let mut bound = Ok(true);
        for ((binder, slot), arg) in code.params.iter().zip(&code.param_slots).zip(args) {
            match slot {
                Some(slot) => frame.slots[*slot] = arg,
                None => {
                    bound = binder(&mut frame, &arg);
                    if bound.is_err() {
                        break;
                    }
                }
            }
        }
        let outcome = match (bound, &code.expr_body) {
            (Err(error), _) => Err(error),
            (Ok(_), Some(body)) => match body(&mut frame) {
                Err(Ctrl::Return) => Ok(rt.take_returned()),
                other => other,
            },
            (Ok(_), None) => match (code.body)(&mut frame) {
                Ok(()) => Ok(Value::Unit),
                Err(Ctrl::Return) => Ok(rt.take_returned()),
                Err(Ctrl::Break(_) | Ctrl::Continue(_)) => Ok(Value::Unit),
                Err(error) => Err(error),
            },
        };
        slots.clear();
        rt.frame_pool.borrow_mut().push(slots);
        outcome
    }
}

/// The error for a call nested deeper than `MAX_CALL_DEPTH`.
#[cold]
fn too_deep(instance: &Instance, span: Span, max_depth: u32) -> Ctrl {
    runtime_error(
        RECURSION_TOO_DEEP,
        format!(
            "recursion too deep: more than {max_depth} nested calls (calling {})",
            instance.name
        ),
        span,
    )
}

/// Apply a function value to argument groups one at a time (curried application): the body
/// runs whenever all of a closure's groups are present, and its result is applied to the
/// remaining arguments.
pub fn apply(
    rt: &Runtime<'_>,
    func: Value,
    args: impl IntoIterator<Item = Value>,
    span: Span,
) -> Result<Value, Ctrl> {
    let mut args = args.into_iter().peekable();
    let mut func = func;
    while args.peek().is_some() {
        let Value::Fun(closure) = &func else {
            return Err(runtime_error(
                INTERNAL,
                "a value that is not a function was applied",
                span,
            ));
        };
        let closure = closure.clone();
        let n_groups = closure.instance.n_groups.max(1);
        let mut collected = closure.args.clone();
        while collected.len() < n_groups {
            match args.next() {
                Some(arg) => collected.push(arg),
                None => break,
            }
        }
        func = if collected.len() == n_groups {
            call_instance(rt, &closure.instance, &closure.captures, collected, span)?
        } else {
            Value::Fun(Arc::new(Closure::new(
                closure.instance.clone(),
                closure.captures.clone(),
                collected,
            )))
        };
    }
    Ok(func)
}

/// Apply a function value to one argument; the common case of a one-group closure with no
/// pending arguments calls directly.
pub fn apply_one(rt: &Runtime<'_>, func: &Value, arg: Value, span: Span) -> Result<Value, Ctrl> {
    if let Value::Fun(closure) = func {
        if closure.args.is_empty() && closure.instance.n_groups == 1 {
            return call_instance(rt, &closure.instance, &closure.captures, [arg], span);
        }
    }
    apply(rt, func.clone(), [arg], span)
}
