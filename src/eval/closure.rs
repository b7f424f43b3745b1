//! Function values: compiled function instances, closures (an instance with its captured
//! values and the argument groups collected so far), and calling them.

use std::sync::{Arc, Mutex, OnceLock};

use crate::core::ir::{Capture, Slot};
use crate::syntax::span::Span;

use super::compile::{BindCode, ExprCode, StmtCode};
use super::error::{runtime_error, INTERNAL, RECURSION_TOO_DEEP};
use super::value::Value;
use super::{Ctrl, Frame, Runtime, MAX_CALL_DEPTH};

/// Stack left below which a call continues on a freshly allocated stack segment.
const STACK_RED_ZONE: usize = 256 * 1024;
/// The size of each additional stack segment.
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// Run `f`, first moving to a new stack segment if the current one is nearly exhausted, so deep
/// (but bounded, see `MAX_CALL_DEPTH`) recursion never overflows the native stack.
pub fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
}

/// One function instantiated at concrete types, compiled once and shared by all closures.
pub struct Instance {
    pub name: String,
    pub span: Span,
    /// The number of curried parameter groups.
    pub n_groups: usize,
    /// Slots that get a fresh cell on entry.
    pub cell_slots: Vec<Slot>,
    /// What a closure of this instance captures from the frame creating it.
    pub captures: Vec<Capture>,
    /// Set right after compilation; recursive references see the instance before its code.
    pub code: OnceLock<InstanceCode>,
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
/// applied).
pub struct Closure {
    pub instance: Arc<Instance>,
    pub captures: Arc<[Value]>,
    /// Argument groups already supplied (fewer than `instance.n_groups`).
    pub args: Vec<Value>,
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
    let depth = rt.depth.get();
    if depth >= MAX_CALL_DEPTH {
        return Err(runtime_error(
            RECURSION_TOO_DEEP,
            format!(
                "recursion too deep: more than {MAX_CALL_DEPTH} nested calls (calling {})",
                instance.name
            ),
            span,
        ));
    }
    rt.depth.set(depth + 1);
    let result = with_stack(|| {
        let mut slots = match rt.frame_pool.borrow_mut().pop() {
            Some(slots) => slots,
            None => Vec::with_capacity(code.n_slots),
        };
        slots.resize(code.n_slots, Value::Unit);
        let mut frame = Frame {
            slots,
            captures,
            rt,
        };
        for slot in &instance.cell_slots {
            if let Some(place) = frame.slots.get_mut(*slot as usize) {
                *place = Value::Cell(Arc::new(Mutex::new(Value::Unit)));
            }
        }
        let mut bound = Ok(true);
        for ((binder, slot), arg) in code.params.iter().zip(&code.param_slots).zip(args) {
            match slot {
                Some(slot) => frame.slots[*slot] = arg,
                None => {
                    bound = binder(&mut frame, arg);
                    if bound.is_err() {
                        break;
                    }
                }
            }
        }
        let outcome = match (bound, &code.expr_body) {
            (Err(error), _) => Err(error),
            (Ok(_), Some(body)) => match body(&mut frame) {
                Err(Ctrl::Return(value)) => Ok(value),
                other => other,
            },
            (Ok(_), None) => match (code.body)(&mut frame) {
                Ok(()) => Ok(Value::Unit),
                Err(Ctrl::Return(value)) => Ok(value),
                Err(Ctrl::Break(_) | Ctrl::Continue(_)) => Ok(Value::Unit),
                Err(error) => Err(error),
            },
        };
        let mut slots = frame.slots;
        slots.clear();
        rt.frame_pool.borrow_mut().push(slots);
        outcome
    });
    rt.depth.set(depth);
    result
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
            Value::Fun(Arc::new(Closure {
                instance: closure.instance.clone(),
                captures: closure.captures.clone(),
                args: collected,
            }))
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
