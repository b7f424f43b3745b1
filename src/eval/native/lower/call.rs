//! Calls: direct calls of native instances (with the evaluator's bookkeeping: the depth
//! limit, Ctrl-C, a fresh stack segment when the current one runs low, the call stack of an
//! error), and bodies inlined at their call.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value as ClValue};
use cranelift_module::Module;

use crate::core::ir::{Expr, ExprKind, Inlined, Place};

use super::super::layout;
use super::super::runtime::{Helper, Site};
use super::{args, flags, Lower, ReturnTarget, V};
use crate::eval::native::calls::{CallShape, ValueCall};
use crate::eval::native::layout::VALUE_SIZE;
use crate::eval::native::{lock, Held, Repr};

impl Lower<'_, '_, '_> {
    /// A call: direct to a native instance when the callee is known and its signature is in
    /// registers (a function that captures is passed the values its captures name here);
    /// otherwise a fallback piece.
    pub(super) fn call(&mut self, e: &Expr, func: &Expr, call_args: &[Expr], repr: Repr) -> V {
        self.call_to(e, func, call_args, repr, None)
    }

    /// A call whose result is not in registers, written to the value at `out` (replaced once
    /// the callee returns; left as it was when it fails): direct when the callee is a native
    /// instance, otherwise a fallback piece.
    pub(super) fn call_into(&mut self, e: &Expr, func: &Expr, call_args: &[Expr], out: ClValue) {
        self.call_to(e, func, call_args, Repr::Unit, Some(out));
    }

    fn call_to(
        &mut self,
        e: &Expr,
        func: &Expr,
        call_args: &[Expr],
        repr: Repr,
        out: Option<ClValue>,
    ) -> V {
        let fallback = |l: &mut Self, why: &str| match out {
            Some(out) => {
                l.eval_into(e, out, why);
                V::Unit
            }
            None => l.fallback_expr(e, why),
        };
        let (fun, type_args, own_captures) = match &func.kind {
            ExprKind::MakeFun { fun, type_args } => (fun, type_args, None),
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => (fun, type_args, Some(captures.clone())),
            _ => return self.call_value(e, func, call_args, repr, out),
        };
        let Some(instance) = self.c.instance(*fun, type_args) else {
            return fallback(self, "a call of an unknown function");
        };
        let captures = own_captures.map_or_else(|| instance.captures.clone(), |c| c.to_vec());
        let key = std::sync::Arc::as_ptr(&instance) as usize;
        let declared = lock(&self.backend).declared.get(&key).cloned();
        let Some((id, sig)) = declared else {
            return fallback(self, "a call of a function that is not native");
        };
        let agg = crate::eval::native::Agg::of(&e.ty);
        if sig.groups.len() != call_args.len()
            || sig.ret != repr
            || sig.ret_agg != agg
            || sig.ret_boxed != out.is_some()
        {
            return fallback(self, "a partial or curried call");
        }
        // The arguments, flattened as the signature's parameters.
        let fits = |repr: Repr, arg: &Expr| match repr {
            Repr::Ref => true,
            _ => Repr::of(&arg.ty).is_some_and(|r| r != Repr::Unit),
        };
        let mut shapes_ok = true;
        for ((group, boxed), arg) in sig.groups.iter().zip(&sig.boxed).zip(call_args) {
            if *boxed {
                continue;
            }
            match group.as_slice() {
                [] => shapes_ok &= Repr::of(&arg.ty) == Some(Repr::Unit),
                [one] => shapes_ok &= fits(*one, arg),
                many => {
                    shapes_ok &= matches!(&arg.kind, ExprKind::Tuple(parts) | ExprKind::Array(parts)
                        if parts.len() == many.len()
                            && parts.iter().zip(many).all(|(p, r)| fits(*r, p)))
                }
            }
        }
        if !shapes_ok {
            return fallback(self, "a call whose arguments are not in registers");
        }
        if !self.captures_reachable(&captures) {
            return fallback(self, "a call capturing values of enclosing code");
        }
        let mut values = vec![self.rt, self.iconst(0)];
        // Boxed arguments and those passed by reference are the addresses of their values
        // (the callee copies what it keeps): a frame slot, or a value on the stack the
        // argument is evaluated into, dropped after the call.
        let mut temps = Vec::new();
        for ((arg, boxed), group) in call_args.iter().zip(&sig.boxed).zip(&sig.groups) {
            if *boxed {
                let addr = self.by_reference(arg, &mut temps);
                values.push(addr);
                continue;
            }
            let parts = match &arg.kind {
                ExprKind::Tuple(parts) | ExprKind::Array(parts) if group.len() > 1 => {
                    parts.iter().collect()
                }
                _ => vec![arg],
            };
            for (part, repr) in parts.into_iter().zip(group) {
                if *repr == Repr::Ref {
                    let addr = self.by_reference(part, &mut temps);
                    values.push(addr);
                    continue;
                }
                let v = self.expr(part);
                values.extend(v.scalars());
            }
        }
        // The captures, gathered once the arguments are computed: the buffer borrows the
        // frame's values, which nothing changes until the call returns.
        let own = captures.len() == self.n_captures
            && captures
                .iter()
                .enumerate()
                .all(|(i, c)| *c == crate::core::ir::Capture::Outer(i as u32));
        let caps = match captures.is_empty() {
            true => values[1],
            // The running closure calling itself (`core::selfcall`) passes its captures on.
            false if own => self.captures,
            false => self.captures_buffer(&captures).expect("reachable"),
        };
        values[1] = caps;
        let span = e.span;
        // The call's bookkeeping, as `call_instance` does it: depth, Ctrl-C, stack.
        let depth = self.b.ins().uload32(
            MemFlagsData::trusted(),
            self.rt,
            super::super::layout::depth(),
        );
        let max = self.b.ins().uload32(
            MemFlagsData::trusted(),
            self.rt,
            super::super::layout::max_depth(),
        );
        let too_deep = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, depth, max);
        let zero = self.iconst(0);
        self.raise_if(
            too_deep,
            Site::TooDeep(instance.name.clone(), span),
            zero,
            zero,
        );
        self.poll_interrupt(span);
        let deeper = self.b.ins().iadd_imm_s(depth, 1);
        let deeper32 = self.b.ins().ireduce(types::I32, deeper);
        self.b.ins().store(
            MemFlagsData::trusted(),
            deeper32,
            self.rt,
            super::super::layout::depth(),
        );
        // Deep recursion continues on a fresh stack segment, through the boxed entry.
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let floor = self.b.ins().load(
            types::I64,
            flags(),
            self.rt,
            super::super::layout::stack_floor(),
        );
        let low = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, floor);
        let direct = self.b.create_block();
        let grow = self.b.create_block();
        let join = self.b.create_block();
        if let Some(ty) = repr.clif() {
            self.b.append_block_param(join, ty);
        }
        // An aggregate result comes back in a buffer of its leaves, a boxed one in `out`.
        let leaves = match out {
            Some(out) => Some(out),
            None => agg.as_ref().map(|a| self.leaf_buffer(a.leaves.len())),
        };
        self.b.set_cold_block(grow);
        self.b.ins().brif(low, grow, &[], direct, &[]);
        self.b.seal_block(direct);
        self.b.switch_to_block(direct);
        let callee = {
            let mut backend = lock(&self.backend);
            backend.module.declare_func_in_func(id, self.b.func)
        };
        let mut direct_values = values.clone();
        if let Some(buf) = leaves {
            direct_values.insert(2, buf);
        }
        let call = self.b.ins().call(callee, &direct_values);
        let results = self.b.inst_results(call).to_vec();
        self.b.ins().jump(join, &args(&results));
        self.b.seal_block(grow);
        self.b.switch_to_block(grow);
        let n = values.len() - 2;
        let buf = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                (n.max(1) * 8) as u32,
                3,
            ));
        let bits = self.b.ins().stack_addr(types::I64, buf, 0);
        for (i, v) in values[2..].iter().enumerate() {
            let word = if self.b.func.dfg.value_type(*v) == types::F64 {
                self.b.ins().bitcast(types::I64, MemFlagsData::new(), *v)
            } else {
                *v
            };
            self.b.ins().store(flags(), word, bits, (i * 8) as i32);
        }
        let target = self.keep(super::super::runtime::Trampoline {
            instance: instance.clone(),
            sig: sig.clone(),
            span,
        });
        let target = self.ptr_const(target);
        let rt = self.rt;
        let buf = match leaves {
            Some(buf) => buf,
            None => self.iconst(0),
        };
        let r = self
            .call_helper(
                Helper::GrowCall,
                &[types::I64; 5],
                &[types::I64],
                &[rt, target, caps, bits, buf],
            )
            .expect("grow_call returns bits");
        let r: Vec<ClValue> = match repr {
            Repr::I64 | Repr::Ref => vec![r],
            Repr::F64 => vec![self.b.ins().bitcast(types::F64, MemFlagsData::new(), r)],
            Repr::Unit => vec![],
        };
        self.b.ins().jump(join, &args(&r));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.drop_temps(&temps);
        let depth32 = self.b.ins().ireduce(types::I32, depth);
        self.b.ins().store(
            MemFlagsData::trusted(),
            depth32,
            self.rt,
            super::super::layout::depth(),
        );
        // An error in the callee: note this call in its call stack, then unwind.
        let flag =
            self.b
                .ins()
                .uload8(types::I64, flags(), self.rt, super::super::layout::failed());
        let noted = self.b.create_block();
        let next = self.b.create_block();
        self.b.set_cold_block(noted);
        self.b.ins().brif(flag, noted, &[], next, &[]);
        self.b.seal_block(noted);
        self.b.switch_to_block(noted);
        let site = self.keep(Site::Frame(instance.name.clone(), instance.unit, span));
        let site = self.ptr_const(site);
        let rt = self.rt;
        self.call_helper(
            Helper::NoteCall,
            &[types::I64, types::I64],
            &[],
            &[rt, site],
        );
        let unwind = self.unwind;
        self.b.ins().jump(unwind, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        match (&agg, leaves) {
            (Some(agg), Some(buf)) => {
                let leaves = self.load_leaves(buf, agg);
                self.agg_value(leaves)
            }
            _ => self.join_value(join, repr),
        }
    }

    /// A call through a function value (a closure in a variable, a captured function, a
    /// function's result): the value taken first (read in place when it is a variable of the
    /// frame or a capture that no argument can change), then the arguments computed here in
    /// order, each group as native code holds it (a scalar's bits, an aggregate's leaves, the
    /// address of an evaluator value). The call goes straight to the closure's native
    /// function when that takes them so (`dispatch_value`); otherwise to the runtime's
    /// `call_value`, which adapts them (`native/calls.rs`). The result comes back as bits, as
    /// leaves, or (`out`) as the value written there.
    fn call_value(
        &mut self,
        e: &Expr,
        func: &Expr,
        call_args: &[Expr],
        repr: Repr,
        out: Option<ClValue>,
    ) -> V {
        let from = match func.kind {
            ExprKind::Local(s) if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) => {
                self.frame_used = true;
                Some(self.slot_addr(s))
            }
            ExprKind::Capture(i) if (i as usize) < self.n_captures => Some(self.capture_addr(i)),
            _ => None,
        };
        let in_place = call_args.iter().all(crate::eval::compile::is_call_free);
        let outer_unwind = self.unwind;
        let (f, copied) = match (from, &func.kind) {
            (Some(from), _) if in_place => (from, false),
            _ => {
                let f = self.temp_value();
                match (from, &func.kind) {
                    (Some(from), _) => {
                        self.copy_value(from, f);
                    }
                    (None, ExprKind::LocalCell(s)) => self.cell_value_into(Place::LocalCell(*s), f),
                    (None, ExprKind::CaptureCell(i)) if self.cell_place(Place::CaptureCell(*i)) => {
                        self.cell_value_into(Place::CaptureCell(*i), f)
                    }
                    _ => self.value_into(func, f, "a function value"),
                }
                (f, true)
            }
        };
        if copied {
            self.unwind = self.side_block(|l| {
                l.drop_value(f);
                l.b.ins().jump(outer_unwind, &[]);
            });
        }
        let groups: Vec<Option<Held>> = call_args.iter().map(|a| Held::of(&a.ty)).collect();
        // The arguments not in registers, each computed into a value of its own (all `unit`
        // before the first can fail), dropped after the call.
        let n_values = groups.iter().filter(|g| g.is_none()).count();
        let values = (n_values > 0).then(|| self.temp_values(n_values));
        let values_unwind = self.unwind;
        if let Some(values) = values {
            self.unwind = self.side_block(|l| {
                l.drop_values(values, n_values);
                l.b.ins().jump(values_unwind, &[]);
            });
        }
        let mut words: Vec<V> = Vec::new();
        let mut k = 0;
        for (arg, held) in call_args.iter().zip(&groups) {
            match (held, values) {
                (None, Some(values)) => {
                    let at = self.b.ins().iadd_imm_s(values, (k * VALUE_SIZE) as i64);
                    k += 1;
                    self.value_into(arg, at, "an argument that is not in registers");
                    words.push(V::I(at));
                }
                _ => {
                    let v = self.expr(arg);
                    words.extend(self.leaves(v));
                }
            }
        }
        let agg = crate::eval::native::Agg::of(&e.ty);
        let ret = match (out, &agg) {
            (Some(_), _) => None,
            (None, Some(agg)) => Some(Held::Agg(agg.clone())),
            (None, None) => Some(Held::Scalar(repr)),
        };
        let leaves = match (out, &agg) {
            (Some(out), _) => out,
            (None, Some(agg)) => self.leaf_buffer(agg.leaves.len()),
            (None, None) => self.iconst(0),
        };
        let shape = CallShape::of_call(&groups, &ret);
        let call = self.keep(ValueCall::new(groups, ret, e.span));
        let result = match layout::dispatch() {
            Some(d) if !call_args.is_empty() => {
                self.dispatch_value(d, f, &words, &shape, leaves, call, e.span)
            }
            _ => self.value_call_helper(f, &words, call, leaves, shape.ret),
        };
        if let Some(values) = values {
            let unwind = self.unwind;
            self.b.seal_block(unwind);
            self.unwind = values_unwind;
            self.drop_values(values, n_values);
        }
        if copied {
            let unwind = self.unwind;
            self.b.seal_block(unwind);
            self.drop_value(f);
        }
        self.unwind = outer_unwind;
        match (out, agg) {
            (Some(_), _) => V::Unit,
            (None, Some(agg)) => {
                let leaves = self.load_leaves(leaves, &agg);
                self.agg_value(leaves)
            }
            (None, None) => match (repr, result) {
                (Repr::F64, Some(x)) => V::F(x),
                (_, Some(x)) => V::I(x),
                (_, None) => V::Unit,
            },
        }
    }

    /// A call of the function value at `f` with the arguments `words` through the runtime's
    /// `call_value` (`native/calls.rs`): the result in a register of its type, if any.
    fn value_call_helper(
        &mut self,
        f: ClValue,
        words: &[V],
        call: *const ValueCall,
        out: ClValue,
        ret: Repr,
    ) -> Option<ClValue> {
        let buf = self.leaf_buffer(words.len());
        self.store_leaves(buf, words);
        let call = self.ptr_const(call);
        let rt = self.rt;
        let bits = self
            .call_helper(
                Helper::CallValue,
                &[types::I64; 5],
                &[types::I64],
                &[rt, f, buf, call, out],
            )
            .expect("call_value returns bits");
        self.check_failed();
        match ret {
            Repr::F64 => Some(self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits)),
            Repr::Unit => None,
            Repr::I64 | Repr::Ref => Some(bits),
        }
    }

    /// A call of the function value at `f` made straight to its instance's native function
    /// when the value is a closure given all its groups at once, whose instance is native
    /// code of the call's `shape`, and the call's bookkeeping needs nothing of the runtime
    /// (not too deep, no Ctrl-C, room on the stack): the closure's fields read at the offsets
    /// `d` gives, the arguments passed in registers. Anything else goes to `call_value`,
    /// which makes the same call or adapts it. The result in a register of its type, if any;
    /// an aggregate or boxed one is at `out`.
    #[allow(clippy::too_many_arguments)]
    fn dispatch_value(
        &mut self,
        d: layout::Dispatch,
        f: ClValue,
        words: &[V],
        shape: &CallShape,
        out: ClValue,
        call: *const ValueCall,
        span: crate::syntax::span::Span,
    ) -> Option<ClValue> {
        let ret_ty = shape
            .ret
            .clif()
            .filter(|_| !shape.ret_boxed && shape.ret_agg.is_none());
        let slow = self.b.create_block();
        let join = self.b.create_block();
        if let Some(ty) = ret_ty {
            self.b.append_block_param(join, ty);
        }
        self.b.set_cold_block(slow);
        let next_unless = |l: &mut Self, cond: ClValue| {
            let next = l.b.create_block();
            l.b.ins().brif(cond, next, &[], slow, &[]);
            l.b.seal_block(next);
            l.b.switch_to_block(next);
        };
        // A closure of all its groups, of a native instance of this shape.
        let tag = self.b.ins().uload8(types::I64, flags(), f, 0);
        let is_fun = self.b.ins().icmp_imm_s(IntCC::Equal, tag, d.tag as i64);
        next_unless(self, is_fun);
        let closure = self.b.ins().load(types::I64, flags(), f, d.word);
        let groups = self.b.ins().load(types::I64, flags(), closure, d.groups);
        let n_groups = shape.params.len() as i64;
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, groups, n_groups);
        next_unless(self, whole);
        let instance = self.b.ins().load(types::I64, flags(), closure, d.instance);
        let number = self.b.ins().load(types::I64, flags(), instance, d.shape);
        let fits = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, number, shape.number() as i64);
        next_unless(self, fits);
        // The bookkeeping `closure::enter_call` does; any of its cases goes to the runtime.
        let depth = self
            .b
            .ins()
            .uload32(MemFlagsData::trusted(), self.rt, layout::depth());
        let max = self
            .b
            .ins()
            .uload32(MemFlagsData::trusted(), self.rt, layout::max_depth());
        let room = self.b.ins().icmp(IntCC::UnsignedLessThan, depth, max);
        let flag = self.ptr_const(crate::interrupt::flag_address());
        let interrupted = self.b.ins().uload8(types::I64, flags(), flag, 0);
        let quiet = self.b.ins().icmp_imm_s(IntCC::Equal, interrupted, 0);
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let floor = self
            .b
            .ins()
            .load(types::I64, flags(), self.rt, layout::stack_floor());
        let high = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, sp, floor);
        let go = self.b.ins().band(room, quiet);
        let go = self.b.ins().band(go, high);
        next_unless(self, go);
        let func = self.b.ins().load(types::I64, flags(), instance, d.func);
        let captures = self.b.ins().load(types::I64, flags(), closure, d.captures);
        let deeper = self.b.ins().iadd_imm_s(depth, 1);
        let deeper32 = self.b.ins().ireduce(types::I32, deeper);
        (self.b.ins()).store(MemFlagsData::trusted(), deeper32, self.rt, layout::depth());
        let mut values = vec![self.rt, captures];
        if shape.ret_boxed || shape.ret_agg.is_some() {
            values.push(out);
        }
        values.extend(words.iter().filter_map(|w| match w {
            V::I(x) | V::F(x) => Some(*x),
            _ => None,
        }));
        let call_conv = lock(&self.backend).call_conv;
        let sig = self.b.import_signature(shape.clif(call_conv));
        let inst = self.b.ins().call_indirect(sig, func, &values);
        let results = self.b.inst_results(inst).to_vec();
        let depth32 = self.b.ins().ireduce(types::I32, depth);
        (self.b.ins()).store(MemFlagsData::trusted(), depth32, self.rt, layout::depth());
        // An error in the callee: note this call in its call stack, then unwind.
        let failed = self
            .b
            .ins()
            .uload8(types::I64, flags(), self.rt, layout::failed());
        let returned = self.cold_if(failed);
        let span = self.keep(span);
        let span = self.ptr_const(span);
        let rt = self.rt;
        self.call_helper(
            Helper::NoteValueCall,
            &[types::I64; 3],
            &[],
            &[rt, instance, span],
        );
        let unwind = self.unwind;
        self.b.ins().jump(unwind, &[]);
        self.b.seal_block(returned);
        self.b.switch_to_block(returned);
        self.b.ins().jump(join, &args(&results));
        self.b.seal_block(slow);
        self.b.switch_to_block(slow);
        let result = self.value_call_helper(f, words, call, out, shape.ret);
        self.b
            .ins()
            .jump(join, &args(&result.into_iter().collect::<Vec<_>>()));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        ret_ty.map(|_| self.b.block_params(join)[0])
    }

    /// The address of the value of an argument passed by reference: its frame slot when it is
    /// a variable kept in the frame (which no later argument can assign), otherwise a stack
    /// temporary it is evaluated into (added to `temps`).
    fn by_reference(&mut self, arg: &Expr, temps: &mut Vec<ClValue>) -> ClValue {
        if let ExprKind::Local(s) = arg.kind {
            if !self.vars.contains_key(&s) && !self.avars.contains_key(&s) {
                self.frame_used = true;
                return self.slot_addr(s);
            }
        }
        let temp = self.temp_value();
        self.value_into(arg, temp, "an argument that is not in registers");
        temps.push(temp);
        temp
    }

    /// Drop the values of boxed arguments after a call.
    fn drop_temps(&mut self, temps: &[ClValue]) {
        for temp in temps {
            self.drop_value(*temp);
        }
    }

    /// Errors raised from here on note the inlined call in their call stack (when the body
    /// comes from a function); returns the unwind block to restore with `leave_inlined`.
    pub(super) fn enter_inlined(&mut self, inlined: &Inlined) -> cranelift_codegen::ir::Block {
        let outer_unwind = self.unwind;
        if let Some(frame) = &inlined.frame {
            self.unwind = self.side_block(|l| {
                let site = l.keep(Site::Frame(
                    frame.name.to_string(),
                    frame.unit,
                    inlined.call,
                ));
                let site = l.ptr_const(site);
                let rt = l.rt;
                l.call_helper(
                    Helper::NoteCall,
                    &[types::I64, types::I64],
                    &[],
                    &[rt, site],
                );
                l.b.ins().jump(outer_unwind, &[]);
            });
        }
        outer_unwind
    }

    /// The end of an inlined body's region (see `enter_inlined`), once its value is where it
    /// goes: the frame slots of the body's own variables let go of their values
    /// (`release_inlined_slots`).
    pub(super) fn leave_inlined(
        &mut self,
        inlined: &Inlined,
        outer_unwind: cranelift_codegen::ir::Block,
    ) {
        self.release_inlined_slots(inlined);
        if inlined.frame.is_some() {
            let note = self.unwind;
            self.b.seal_block(note);
        }
        self.unwind = outer_unwind;
    }

    /// Drop the values of the frame slots an inlined body assigns, leaving them `unit`. The
    /// inliner relocates the body's variables to slots of their own, past the caller's, and
    /// nothing but the body reads them; its value was copied or moved out before this. Held
    /// until the body runs again, a parameter bound to a view of an array (a reshaped
    /// global) kept its storage shared, and the next store into that array copied all of
    /// it. Borrowed slots (`borrow.rs`) own nothing and are left alone, and so are the slots
    /// of bodies inlined in this one, which release their own. The body's value is live
    /// across the drops: after a body with a loop (a reduction inlined), they go through the
    /// helper's stub, which keeps every register, so that the loop's accumulator stays in
    /// one (`keeping_registers`).
    fn release_inlined_slots(&mut self, inlined: &Inlined) {
        if self.filled() {
            return;
        }
        let looped = (inlined.stmts.iter()).any(|s| super::super::tiers::size_and_loop(s).1);
        let mut slots: Vec<_> = own_places(&inlined.stmts)
            .into_iter()
            .filter_map(|place| match place {
                Place::Local(s)
                    if !self.vars.contains_key(&s)
                        && !self.avars.contains_key(&s)
                        && !self.borrowed_params.contains(&s)
                        && !self.borrowed_vars.contains(&s) =>
                {
                    Some(s)
                }
                _ => None,
            })
            .collect();
        slots.sort_unstable();
        for slot in slots {
            self.frame_used = true;
            let addr = self.slot_addr(slot);
            match looped {
                true => self.keeping_registers(|l| l.drop_value(addr)),
                false => self.drop_value(addr),
            }
            let unit = self.b.ins().iconst(types::I8, i64::from(layout::TAG_UNIT));
            self.b.ins().store(flags(), unit, addr, 0);
        }
    }

    /// A body inlined at its call: its statements in this frame, then its value.
    pub(super) fn inlined(&mut self, inlined: &Inlined, repr: Repr, e: &Expr) -> V {
        let outer_unwind = self.enter_inlined(inlined);
        let value = match &inlined.result {
            Some(result) => {
                self.stmts(&inlined.stmts);
                self.ensure_open();
                self.expr(result)
            }
            None => {
                let agg = crate::eval::native::Agg::of(&e.ty);
                let done = self.b.create_block();
                self.value_params(done, repr, agg.as_ref());
                let desc = agg.as_ref().map(|a| self.agg_ptr(a));
                self.returns.push(ReturnTarget {
                    block: done,
                    repr,
                    out: None,
                    agg: desc,
                });
                self.stmts(&inlined.stmts);
                self.returns.pop();
                if !self.filled() {
                    let vals = self.zero_values(repr, agg.as_ref());
                    self.b.ins().jump(done, &args(&vals));
                }
                self.b.seal_block(done);
                self.b.switch_to_block(done);
                self.join_values(done, repr, agg.as_ref())
            }
        };
        self.leave_inlined(inlined, outer_unwind);
        value
    }
}

/// The places `stmts` assign (or move out of, `take`), outside the bodies inlined in them.
fn own_places(stmts: &[crate::core::ir::Stmt]) -> std::collections::HashSet<Place> {
    use crate::core::visit::{walk_expr, walk_stmts, Visit};
    struct Own(std::collections::HashSet<Place>);
    impl<'ir> Visit<'ir> for Own {
        fn visit_expr(&mut self, e: &'ir Expr) {
            match e.kind {
                ExprKind::Inlined(_) => {}
                ExprKind::Take(s) => {
                    self.0.insert(Place::Local(s));
                }
                _ => walk_expr(self, e),
            }
        }
        fn visit_place(&mut self, place: Place) {
            self.0.insert(place);
        }
    }
    let mut own = Own(std::collections::HashSet::new());
    walk_stmts(&mut own, stmts);
    own.0
}
