//! The entries of native functions other than their bodies: the trampoline of a function
//! that runs on the evaluator, the boxed entry the evaluator calls, and the cold stubs of
//! the runtime's helpers.

use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    Value as ClValue,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Module};
use std::sync::Arc;

use super::super::layout::VALUE_SIZE;
use super::super::runtime::{self, Helper};
use super::super::{Agg, Backend, NativeSig, Repr};
use super::flags;
use crate::eval::closure::Instance;

/// The body of a declared function that has no native lowering: it calls the evaluator.
pub(in crate::eval::native) fn trampoline(
    backend: &mut Backend,
    instance: &Arc<Instance>,
    sig: &NativeSig,
    id: FuncId,
) -> Result<(), String> {
    let mut ctx = backend.module.make_context();
    ctx.func.signature = sig.clif(backend.call_conv);
    let target = Box::new(runtime::Trampoline {
        instance: instance.clone(),
        sig: sig.clone(),
        span: crate::syntax::span::Span::default(),
    });
    let target_ptr: *const runtime::Trampoline = &*target;
    backend.keep.push(target);
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let params = entry_params(&mut b);
        let first = if sig.has_out() { 3 } else { 2 };
        // An aggregate result comes back as the evaluator's value in a temporary.
        let temp = sig.ret_agg.as_ref().map(|_| {
            let slot = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                VALUE_SIZE as u32,
                3,
            ));
            let temp = b.ins().stack_addr(types::I64, slot, 0);
            let unit = b.ins().iconst(types::I8, 0);
            b.ins().store(flags(), unit, temp, 0);
            temp
        });
        let out = match temp {
            Some(temp) => temp,
            None if sig.ret_boxed => params[2],
            None => b.ins().iconst(types::I64, 0),
        };
        let n = params.len() - first;
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (n.max(1) * 8) as u32,
            3,
        ));
        let bits = b.ins().stack_addr(types::I64, slot, 0);
        for (i, p) in params[first..].iter().enumerate() {
            let word = if b.func.dfg.value_type(*p) == types::F64 {
                b.ins().bitcast(types::I64, MemFlagsData::new(), *p)
            } else {
                *p
            };
            b.ins().store(flags(), word, bits, (i * 8) as i32);
        }
        let cc = backend.call_conv;
        let target = b.ins().iconst(types::I64, target_ptr as i64);
        let result = entry_call(
            &mut b,
            cc,
            Helper::CallEvaluator,
            &[params[0], target, params[1], bits, out],
            true,
        )
        .expect("call_evaluator returns the result's bits");
        if let (Some(agg), Some(temp)) = (&sig.ret_agg, temp) {
            let desc = kept_agg(backend, agg);
            let desc = b.ins().iconst(types::I64, desc as i64);
            entry_call(
                &mut b,
                cc,
                Helper::UnboxLeaves,
                &[desc, temp, params[2]],
                false,
            );
            let one = b.ins().iconst(types::I64, 1);
            entry_call(&mut b, cc, Helper::DropFrame, &[temp, one], false);
        }
        match sig.ret {
            Repr::I64 | Repr::Ref => b.ins().return_(&[result]),
            Repr::F64 => {
                let f = b.ins().bitcast(types::F64, MemFlagsData::new(), result);
                b.ins().return_(&[f])
            }
            Repr::Unit => b.ins().return_(&[]),
        };
        b.finalize(backend.module.target_config());
    }
    backend
        .module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))
}

/// The boxed entry of the function `id` (`fn(rt, captures, args: *const u64) -> u64`), for
/// calls from the evaluator and on a fresh stack segment.
pub(in crate::eval::native) fn boxed_entry(
    backend: &mut Backend,
    sig: &NativeSig,
    id: FuncId,
) -> Result<FuncId, String> {
    let mut s = Signature::new(backend.call_conv);
    s.params.extend([AbiParam::new(types::I64); 4]);
    s.returns.push(AbiParam::new(types::I64));
    let boxed = backend
        .module
        .declare_anonymous_function(&s)
        .map_err(|e| format!("{e:?}"))?;
    let mut ctx = backend.module.make_context();
    ctx.func.signature = s;
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let params = entry_params(&mut b);
        let mut call_args = vec![params[0], params[1]];
        // An aggregate result: its leaves in a buffer, boxed into `out` after the call.
        let leaves = sig.ret_agg.as_ref().map(|agg| {
            let slot = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (agg.leaves.len() * 8) as u32,
                3,
            ));
            b.ins().stack_addr(types::I64, slot, 0)
        });
        if sig.ret_boxed {
            call_args.push(params[3]);
        }
        if let Some(buf) = leaves {
            call_args.push(buf);
        }
        for (i, repr) in sig.params().enumerate() {
            let ty = repr.clif().unwrap_or(types::I64);
            call_args.push(b.ins().load(ty, flags(), params[2], (i * 8) as i32));
        }
        let callee = backend.module.declare_func_in_func(id, b.func);
        let call = b.ins().call(callee, &call_args);
        let result = b.inst_results(call).first().copied();
        if let (Some(agg), Some(buf)) = (&sig.ret_agg, leaves) {
            let desc = kept_agg(backend, agg);
            let desc = b.ins().iconst(types::I64, desc as i64);
            let cc = backend.call_conv;
            entry_call(
                &mut b,
                cc,
                Helper::BoxLeaves,
                &[desc, buf, params[3]],
                false,
            );
        }
        let result = match (sig.ret, result) {
            (Repr::F64, Some(f)) => b.ins().bitcast(types::I64, MemFlagsData::new(), f),
            (_, Some(i)) => i,
            (_, None) => b.ins().iconst(types::I64, 0),
        };
        b.ins().return_(&[result]);
        b.finalize(backend.module.target_config());
    }
    backend
        .module
        .define_function(boxed, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    Ok(boxed)
}

/// Start the function `b` builds at its entry block: the function's parameters.
pub(super) fn entry_params(b: &mut FunctionBuilder<'_>) -> Vec<ClValue> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    b.block_params(entry).to_vec()
}

/// Call the runtime's `helper` from an entry being built (outside `Lower`) with word
/// arguments; its word result when `returns`.
pub(super) fn entry_call(
    b: &mut FunctionBuilder<'_>,
    call_conv: cranelift_codegen::isa::CallConv,
    helper: Helper,
    values: &[ClValue],
    returns: bool,
) -> Option<ClValue> {
    let mut s = Signature::new(call_conv);
    s.params
        .extend(std::iter::repeat_n(AbiParam::new(types::I64), values.len()));
    if returns {
        s.returns.push(AbiParam::new(types::I64));
    }
    let s = b.import_signature(s);
    let callee = b.ins().iconst(types::I64, runtime::address(helper) as i64);
    let call = b.ins().call_indirect(s, callee, values);
    b.inst_results(call).first().copied()
}

/// The cold stub of `helper` called with `params` and giving `returns` (at most one): a
/// function of the `preserve_all` convention, which calls the helper and stores its result in
/// the runtime passed after the parameters (`Runtime::native_result`). Every register the
/// helper may change is saved and restored by the stub, so a call from a cold block (an error
/// raised, a view fetched again, a fallback piece) leaves the values of the hot path in their
/// registers: without it a value live across such a call (a float accumulator: no float
/// register survives a C call) is kept on the stack through the whole loop around it.
pub(super) fn cold_stub(
    backend: &mut Backend,
    helper: Helper,
    params: &[types::Type],
    returns: &[types::Type],
) -> Result<FuncId, String> {
    let key = (runtime::address(helper), params.to_vec(), returns.to_vec());
    if let Some(id) = backend.cold_stubs.get(&key) {
        return Ok(*id);
    }
    let mut stub_sig = Signature::new(cranelift_codegen::isa::CallConv::PreserveAll);
    stub_sig
        .params
        .extend(params.iter().map(|t| AbiParam::new(*t)));
    if !returns.is_empty() {
        stub_sig.params.push(AbiParam::new(types::I64));
    }
    let id = backend
        .module
        .declare_anonymous_function(&stub_sig)
        .map_err(|e| format!("{e:?}"))?;
    let mut ctx = backend.module.make_context();
    ctx.func.signature = stub_sig;
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let args = entry_params(&mut b);
        let mut sig = Signature::new(backend.call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns
            .extend(returns.iter().map(|t| AbiParam::new(*t)));
        let sig = b.import_signature(sig);
        let callee = b.ins().iconst(types::I64, key.0 as i64);
        let call = b.ins().call_indirect(sig, callee, &args[..params.len()]);
        if let Some(result) = b.inst_results(call).first().copied() {
            let rt = args[params.len()];
            b.ins()
                .store(flags(), result, rt, super::super::layout::native_result());
        }
        b.ins().return_(&[]);
        b.finalize(backend.module.target_config());
    }
    backend
        .module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("{e:?}"))?;
    backend.cold_stubs.insert(key, id);
    Ok(id)
}

/// A copy of `agg` kept as long as the module: what the leaf helpers read.
pub(super) fn kept_agg(backend: &mut Backend, agg: &Agg) -> *const Agg {
    let desc = Box::new(agg.clone());
    let desc_ptr: *const Agg = &*desc;
    backend.keep.push(desc);
    desc_ptr
}
