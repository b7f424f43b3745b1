//! The runtime's side of a call of a function value from native code (`lower/call.rs`,
//! `call_value`), for the calls native code does not make straight to the closure's native
//! function (`dispatch_value`: those whose shape it does not match, or whose bookkeeping
//! needs the runtime). Native code passes the arguments as words, each group as it holds it: a
//! scalar's bits, an aggregate's leaves, or the address of an evaluator value. When the
//! closure's instance is native and its signature takes the groups so, they go to its entry
//! as they are (an aggregate it takes by reference boxed first); anything else (a partial
//! application, an instance on the closure compiler) is boxed and given to the evaluator's
//! `apply`. Either way the call's bookkeeping (depth, Ctrl-C, stack, the call stack of an
//! error) is `closure::enter_call`'s.

use std::collections::HashMap;
use std::sync::Mutex;

use cranelift_codegen::ir::Signature;
use cranelift_codegen::isa::CallConv;
use smallvec::SmallVec;

use super::super::closure::{self, Closure, Instance};
use super::super::value::Value;
use super::super::{Ctrl, Runtime};
use super::runtime::guarded;
use super::{push_group, Agg, Held, NativeEntry, NativeSig, Repr};
use crate::syntax::span::Span;

/// How a native function takes its parameters and gives its result, as a caller that does
/// not know the function (a call of a function value) can pass them: per group, the
/// scalars it takes in registers, with a group taken as an evaluator value (boxed, or one
/// variable by reference) as `[Ref]`, its address; the result in a register, or written to
/// `out` (an evaluator value or a buffer of leaves).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallShape {
    pub params: Vec<Vec<Repr>>,
    pub ret: Repr,
    pub ret_boxed: bool,
    pub ret_agg: Option<Agg>,
}

impl CallShape {
    pub fn of(sig: &NativeSig) -> CallShape {
        CallShape {
            params: (sig.groups.iter().zip(&sig.boxed))
                .map(|(group, boxed)| match boxed {
                    true => vec![Repr::Ref],
                    false => group.clone(),
                })
                .collect(),
            ret: match sig.has_out() {
                true => Repr::Unit,
                false => sig.ret,
            },
            ret_boxed: sig.ret_boxed,
            ret_agg: sig.ret_agg.clone(),
        }
    }

    /// The shape of a call passing each group as native code holds it (`None`: an
    /// evaluator value, by its address) and wanting the result so (`None`: an evaluator
    /// value).
    pub fn of_call(groups: &[Option<Held>], ret: &Option<Held>) -> CallShape {
        let params = groups
            .iter()
            .map(|held| match held {
                None => vec![Repr::Ref],
                Some(Held::Scalar(Repr::Unit)) => vec![],
                Some(Held::Scalar(repr)) => vec![*repr],
                Some(Held::Agg(agg)) => agg.leaves.clone(),
            })
            .collect();
        let (ret, ret_boxed, ret_agg) = match ret {
            None => (Repr::Unit, true, None),
            Some(Held::Scalar(repr)) => (*repr, false, None),
            Some(Held::Agg(agg)) => (Repr::Unit, false, Some(agg.clone())),
        };
        CallShape {
            params,
            ret,
            ret_boxed,
            ret_agg,
        }
    }

    /// The shape's number, the same for equal shapes in the whole process; never 0.
    pub fn number(&self) -> u64 {
        static NUMBERS: std::sync::OnceLock<Mutex<HashMap<CallShape, u64>>> =
            std::sync::OnceLock::new();
        let numbers = NUMBERS.get_or_init(Default::default);
        let mut numbers = numbers.lock().unwrap_or_else(|e| e.into_inner());
        let next = numbers.len() as u64 + 1;
        *numbers.entry(self.clone()).or_insert(next)
    }

    /// The Cranelift signature of a native function of this shape.
    pub fn clif(&self, call_conv: CallConv) -> Signature {
        NativeSig {
            groups: self.params.clone(),
            boxed: vec![false; self.params.len()],
            arrays: vec![None; self.params.len()],
            ret: self.ret,
            ret_boxed: self.ret_boxed,
            ret_agg: self.ret_agg.clone(),
        }
        .clif(call_conv)
    }
}

/// A call of a function value, as native code makes it.
pub struct ValueCall {
    /// How native code holds each argument group (`None`: an evaluator value, passed as its
    /// address; the callee copies or moves what it keeps).
    pub groups: Vec<Option<Held>>,
    /// How it wants the result: bits returned, leaves written to the `out` buffer, or (`None`)
    /// an evaluator value written to the value at `out`.
    pub ret: Option<Held>,
    pub span: Span,
    /// The words native code passes.
    pub n_words: usize,
}

/// The words native code passes for a group held so.
fn words_of(held: &Option<Held>) -> usize {
    match held {
        None => 1,
        Some(Held::Scalar(Repr::Unit)) => 0,
        Some(Held::Scalar(_)) => 1,
        Some(Held::Agg(agg)) => agg.leaves.len(),
    }
}

/// The evaluator's value of a group held as `words`.
fn boxed(held: &Held, words: &[u64]) -> Value {
    match held {
        Held::Scalar(repr) => repr.boxed(words.first().copied().unwrap_or(0)),
        Held::Agg(agg) => agg.boxed(words),
    }
}

/// Does the callee take group `g` as an evaluator value (boxed, or one variable by
/// reference)?
fn takes_value(sig: &NativeSig, g: usize) -> bool {
    sig.boxed[g] || sig.groups[g].as_slice() == [Repr::Ref]
}

impl ValueCall {
    pub fn new(groups: Vec<Option<Held>>, ret: Option<Held>, span: Span) -> ValueCall {
        ValueCall {
            n_words: groups.iter().map(words_of).sum(),
            groups,
            ret,
            span,
        }
    }

    /// The groups with their words.
    fn split<'w>(&self, words: &'w [u64]) -> impl Iterator<Item = (&Option<Held>, &'w [u64])> {
        let mut at = 0;
        self.groups.iter().map(move |held| {
            let n = words_of(held);
            at += n;
            (held, &words[at - n..at])
        })
    }

    /// Does the signature take every group as the words native code passes (no group an
    /// evaluator value) and give the result as this call wants it?
    fn passes_through(&self, sig: &NativeSig) -> bool {
        self.result_fits(sig)
            && sig.groups.len() == self.groups.len()
            && self
                .groups
                .iter()
                .zip(&sig.groups)
                .zip(&sig.boxed)
                .all(|((held, group), boxed)| {
                    !boxed
                        && match held {
                            Some(Held::Scalar(Repr::Unit)) => group.is_empty(),
                            Some(Held::Scalar(repr)) => group.as_slice() == [*repr],
                            Some(Held::Agg(agg)) => *group == agg.leaves,
                            None => false,
                        }
                })
    }

    /// Does the signature give the result as this call wants it?
    fn result_fits(&self, sig: &NativeSig) -> bool {
        match &self.ret {
            Some(Held::Scalar(repr)) => !sig.ret_boxed && sig.ret_agg.is_none() && sig.ret == *repr,
            Some(Held::Agg(agg)) => sig.ret_agg.as_ref() == Some(agg),
            None => sig.ret_boxed,
        }
    }

    /// The result `value` (bits `bits` when the callee returned them) as native code wants
    /// it: bits, or written to `out`.
    fn deliver(&self, bits: Option<u64>, value: Value, out: *mut u64) -> u64 {
        match &self.ret {
            Some(Held::Scalar(repr)) => bits.unwrap_or_else(|| repr.unboxed(&value)),
            Some(Held::Agg(agg)) => {
                // SAFETY: native code passes a buffer of one word per leaf.
                let leaves = unsafe { std::slice::from_raw_parts_mut(out, agg.leaves.len()) };
                agg.unbox(&value, leaves);
                0
            }
            None => {
                // SAFETY: native code passes the address of a live value, replaced.
                unsafe { *(out as *mut Value) = value };
                0
            }
        }
    }

    /// The call made straight to the closure's native `entry`, when its signature takes the
    /// groups as native code holds them (`None` otherwise).
    fn direct(
        &self,
        rt: &Runtime<'_>,
        closure: &Closure,
        entry: &NativeEntry,
        words: &[u64],
        out: *mut u64,
    ) -> Result<Option<u64>, Ctrl> {
        if self.passes_through(&entry.sig) {
            return self.run(rt, closure, entry, words, out).map(Some);
        }
        let sig = &entry.sig;
        if sig.groups.len() != self.groups.len() || !self.result_fits(sig) {
            return Ok(None);
        }
        // Groups held as words that the callee takes as values, boxed before any address is
        // taken (the vector does not move after).
        let held: SmallVec<[Value; 2]> = self
            .split(words)
            .enumerate()
            .filter_map(|(g, (h, w))| match h {
                Some(h) if takes_value(sig, g) => Some(boxed(h, w)),
                _ => None,
            })
            .collect();
        let mut bits: SmallVec<[u64; 8]> = SmallVec::new();
        let mut next_held = held.iter();
        for (g, (h, w)) in self.split(words).enumerate() {
            let (group, by_value) = (&sig.groups[g], sig.boxed[g]);
            match h {
                None => {
                    // SAFETY: the word of a value group is the address of the caller's value,
                    // alive during the call.
                    let arg = unsafe { &*(w[0] as *const Value) };
                    push_group(&mut bits, group, by_value, arg);
                }
                Some(_) if takes_value(sig, g) => {
                    let arg = next_held.next().expect("boxed above");
                    push_group(&mut bits, group, by_value, arg);
                }
                Some(Held::Scalar(Repr::Unit)) if group.is_empty() => {}
                Some(Held::Scalar(repr)) if group.as_slice() == [*repr] => bits.push(w[0]),
                Some(Held::Agg(agg)) if *group == agg.leaves => bits.extend_from_slice(w),
                _ => return Ok(None),
            }
        }
        self.run(rt, closure, entry, &bits, out).map(Some)
    }

    /// Run the closure's native `entry` with its parameters `bits`.
    fn run(
        &self,
        rt: &Runtime<'_>,
        closure: &Closure,
        entry: &NativeEntry,
        bits: &[u64],
        out: *mut u64,
    ) -> Result<u64, Ctrl> {
        let mut value = Value::Unit;
        let result = closure::enter_call(rt, &closure.instance, self.span, || {
            super::run_entry(rt, entry, &closure.captures, bits, &mut value)
        })?;
        let bits = matches!(self.ret, Some(Held::Scalar(_))).then_some(result);
        Ok(self.deliver(bits, value, out))
    }

    /// The call made by the evaluator, the arguments boxed (a value group's value moved out
    /// of the caller's, which is left `unit`).
    fn boxed(
        &self,
        rt: &Runtime<'_>,
        func: &Value,
        words: &[u64],
        out: *mut u64,
    ) -> Result<u64, Ctrl> {
        let mut args: SmallVec<[Value; 4]> = SmallVec::new();
        for (h, w) in self.split(words) {
            args.push(match h {
                Some(h) => boxed(h, w),
                // SAFETY: the word of a value group is the address of the caller's value.
                None => std::mem::replace(unsafe { &mut *(w[0] as *mut Value) }, Value::Unit),
            });
        }
        let value = match func {
            // All of a closure's argument groups at once: its instance called directly.
            Value::Fun(closure)
                if closure.args.is_empty()
                    && closure.instance.n_groups.max(1) == self.groups.len() =>
            {
                closure::call_instance(rt, &closure.instance, &closure.captures, args, self.span)?
            }
            _ => closure::apply(rt, func.clone(), args, self.span)?,
        };
        Ok(self.deliver(None, value, out))
    }
}

/// Call the function value `func` with the arguments native code passes as `words` (see
/// `ValueCall`): the result's bits, or 0 with the result at `out`; 0 after a fault.
pub(super) extern "C" fn call_value(
    rt: &Runtime<'_>,
    func: &Value,
    words: *const u64,
    call: &ValueCall,
    out: *mut u64,
) -> u64 {
    guarded(rt, 0, || {
        // SAFETY: native code passes the words `call` describes.
        let words = unsafe { std::slice::from_raw_parts(words, call.n_words) };
        if let Value::Fun(closure) = func {
            if closure.args.is_empty() && closure.instance.n_groups.max(1) == call.groups.len() {
                // Not held: native code read `func` from a frame slot or a capture, which no
                // callee can assign, or holds a copy of it.
                if let Some(entry) = closure.instance.native.get() {
                    if let Some(bits) = call.direct(rt, closure, entry, words, out)? {
                        return Ok(bits);
                    }
                }
            }
        }
        call.boxed(rt, func, words, out)
    })
}

/// Note on the error being unwound that it left the call at `span` of a function value of
/// `instance`, which native code called straight (`lower/call.rs`, `dispatch_value`).
pub(super) extern "C" fn note_value_call(rt: &Runtime<'_>, instance: &Instance, span: &Span) {
    super::runtime::note_frame_of(rt, &instance.name, instance.unit, *span);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(groups: Vec<Vec<Repr>>, boxed: Vec<bool>, ret: Repr, ret_boxed: bool) -> NativeSig {
        NativeSig {
            arrays: vec![None; groups.len()],
            groups,
            boxed,
            ret,
            ret_boxed,
            ret_agg: None,
        }
    }

    #[test]
    fn a_call_has_the_shape_of_the_signatures_that_take_its_words_as_they_are() {
        use Repr::*;
        let scalar = |r| Some(Held::Scalar(r));
        // `double -> double`.
        let callee = CallShape::of(&sig(vec![vec![F64]], vec![false], F64, false));
        let call = CallShape::of_call(&[scalar(F64)], &scalar(F64));
        assert_eq!(callee, call);
        assert_eq!(callee.number(), call.number());
        // A string parameter (by reference) and a boxed group both take a value's address.
        let by_ref = CallShape::of(&sig(vec![vec![Ref], vec![I64]], vec![false; 2], I64, false));
        let boxed = CallShape::of(&sig(
            vec![vec![I64], vec![I64]],
            vec![true, false],
            I64,
            false,
        ));
        let call = CallShape::of_call(&[None, scalar(I64)], &scalar(I64));
        assert_eq!(by_ref, call);
        assert_eq!(boxed, call);
        // A string result is written to `out`; `unit` groups pass no word.
        let callee = CallShape::of(&sig(vec![vec![]], vec![false], Unit, true));
        assert_eq!(callee, CallShape::of_call(&[scalar(Unit)], &None));
        // Different shapes have different numbers.
        let other = CallShape::of_call(&[scalar(I64)], &scalar(F64));
        assert_ne!(
            other.number(),
            CallShape::of_call(&[scalar(F64)], &scalar(F64)).number()
        );
        assert_ne!(other.number(), 0);
    }
}
