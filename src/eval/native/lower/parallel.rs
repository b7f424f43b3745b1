//! Loops whose iterations are independent, run over chunks on rayon workers (spec L9.5; the
//! run-time side, and why values and faults are the sequential loop's, is `native/chunks.rs`).
//!
//! A counting loop (`for i in ..[T]`, `for i in a ..< b` with bounds of the variable's type)
//! qualifies when it is closed (`hoist.rs`: its arrays' views are fetched before it) and its
//! body only stores, possibly under conditions, into array variables at the loop variable
//! (`&a.i <- e`), computing the values from pure expressions that read the stored arrays at
//! most at that same position. Its body is then also compiled as a function of a range of the
//! loop variable (the *chunk function*), which the loop calls through `chunk_loop` with a
//! context of words: the views' addresses, their counts, the register variables the body reads.
//! The ordinary loop stays beside it, for short loops, one thread, and arrays not there yet.
//! A loop whose count is known before it runs and is below `PARALLEL_THRESHOLD` never runs
//! on workers, so its chunk function is not compiled.

use std::collections::HashMap;

use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, InstBuilder, Signature, StackSlotData, StackSlotKind,
    Value as ClValue,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Module};

use crate::core::ir::{Const, Expr, ExprKind, PathStep, Place, RangeKind, Slot, Stmt};
use crate::core::visit::{each_in_expr, each_in_stmts, walk_expr_mut, VisitMut};
use crate::eval::native::chunks::ChunkLoop;
use crate::eval::native::{lock, Held, Repr};
use crate::eval::parallel::PARALLEL_THRESHOLD;
use crate::eval::value::ScalarKind;
use crate::types::Type;

use super::super::runtime::Helper;
use super::element::ElementPath;
use super::leaves::leaf_kinds;
use super::{context, define, entry_params, flags, Lower, V};

/// The slot the chunk function holds the loop variable in when the loop's is a global.
const LOOP_SLOT: Slot = u32::MAX - 1;

/// The range of a parallel loop's variable.
enum Bounds<'s> {
    /// `for i in ..[T]`: the codes below this count.
    Codes(u64),
    /// `for i in a ..< b`.
    Range(&'s Expr, &'s Expr),
}

/// A loop `chunk_loop` runs: its variable, body and range, the arrays it uses (with whether
/// it stores into them) and the register variables it reads.
struct Plan<'s> {
    stmt: &'s Stmt,
    var: Place,
    body: &'s [Stmt],
    bounds: Bounds<'s>,
    arrays: Vec<(Place, bool, Vec<ScalarKind>)>,
    reads: Vec<(Slot, Repr)>,
    captures: Vec<(u32, Repr)>,
    span: crate::syntax::span::Span,
}

impl Bounds<'_> {
    /// The number of iterations, when it is known before the loop runs.
    fn static_count(&self) -> Option<u64> {
        match self {
            Bounds::Codes(n) => Some(*n),
            Bounds::Range(from, to) => match (&from.kind, &to.kind) {
                (ExprKind::Const(Const::Int(a)), ExprKind::Const(Const::Int(b))) => {
                    Some(u64::try_from(i128::from(*b) - i128::from(*a)).unwrap_or(0))
                }
                _ => None,
            },
        }
    }
}

/// Could a loop of `count` iterations (`None`: not known before it runs) run on workers?
/// `chunk_loop` runs a shorter one on the calling thread, so its chunk function would never
/// be called.
pub(super) fn may_run_on_workers(count: Option<u64>) -> bool {
    count.is_none_or(|n| n >= PARALLEL_THRESHOLD as u64)
}

/// Is `e` the loop variable `var`?
fn is_var(e: &Expr, var: Place) -> bool {
    matches!((&e.kind, var), (ExprKind::Local(s), Place::Local(v)) if *s == v)
        || matches!((&e.kind, var), (ExprKind::Global(s), Place::Global(v)) if *s == v)
}

/// The place of an array variable.
fn place_of(e: &Expr) -> Option<Place> {
    match e.kind {
        ExprKind::Local(s) => Some(Place::Local(s)),
        ExprKind::Global(s) => Some(Place::Global(s)),
        _ => None,
    }
}

/// Is `e` pure and independent of other iterations: no primitive with an effect, no pointer,
/// no read of a stored array but at the loop variable?
fn pure(e: &Expr, var: Place, stored: &[Place]) -> bool {
    let mut ok = true;
    each_in_expr(
        e,
        &mut |x| match &x.kind {
            ExprKind::Prim(p, _) => ok &= !crate::core::prims::calls_or_writes(p),
            ExprKind::Deref(_) | ExprKind::PtrProject { .. } => ok = false,
            ExprKind::Index { .. } => {
                if let Some(path) = ElementPath::of(x) {
                    let at_var = path.steps.len() == 1 && is_var(path.steps[0].0, var);
                    let base = place_of(path.base);
                    ok &= !path.pointer && (at_var || base.is_none_or(|b| !stored.contains(&b)));
                }
            }
            _ => {}
        },
        &mut |_| {},
    );
    ok
}

/// The array variables `body` stores into, when it only stores at `var` (under conditions
/// at most) from pure values.
fn stores_at(body: &[Stmt], var: Place, stored: &mut Vec<Place>) -> bool {
    body.iter().all(|s| match s {
        Stmt::Store {
            place: place @ (Place::Local(_) | Place::Global(_)),
            path,
            ..
        } => match path.as_slice() {
            [PathStep::Index(index, _)] if is_var(index, var) => {
                stored.push(*place);
                true
            }
            _ => false,
        },
        Stmt::If(_, a, b) => stores_at(a, var, stored) && stores_at(b, var, stored),
        _ => false,
    })
}

/// Are the values and conditions of `body` (checked by `stores_at`) pure?
fn values_pure(body: &[Stmt], var: Place, stored: &[Place]) -> bool {
    body.iter().all(|s| match s {
        Stmt::Store { value, .. } => pure(value, var, stored),
        Stmt::If(c, a, b) => {
            pure(c, var, stored) && values_pure(a, var, stored) && values_pure(b, var, stored)
        }
        _ => false,
    })
}

/// The loop variable, a global of the top level, read as the chunk function's register.
struct Localise(Slot);

impl VisitMut for Localise {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if matches!(e.kind, ExprKind::Global(g) if g == self.0) {
            e.kind = ExprKind::Local(LOOP_SLOT);
        }
        walk_expr_mut(self, e)
    }
}

/// What a chunk function finds in its context words: `extra` words of its own first (they must
/// be non-null: the leaves of a map's source and result), then the columns of each array's
/// view, each view's count, the register variables the body reads and the captured scalars it
/// reads (`Capture(i)`, held in registers since the function's entry).
struct Words<'p> {
    extra: usize,
    arrays: &'p [(Place, bool, Vec<ScalarKind>)],
    reads: &'p [(Slot, Repr)],
    captures: &'p [(u32, Repr)],
    /// Where Ctrl-C is reported, as the sequential loop reports it.
    span: crate::syntax::span::Span,
}

impl Lower<'_, '_, '_> {
    /// Lower the counting loop `s` (its views hoisted) as a parallel loop beside the ordinary
    /// one, when it qualifies; `false` (nothing emitted) otherwise.
    pub(super) fn chunk_loop(&mut self, s: &Stmt) -> bool {
        let Some(plan) = self.chunk_plan(s) else {
            return false;
        };
        if !may_run_on_workers(plan.bounds.static_count()) {
            return false;
        }
        let words = Words {
            extra: 0,
            arrays: &plan.arrays,
            reads: &plan.reads,
            captures: &plan.captures,
            span: plan.span,
        };
        let (loop_slot, body) = match plan.var {
            Place::Local(s) => (s, plan.body.to_vec()),
            Place::Global(g) => {
                let mut body = plan.body.to_vec();
                crate::core::visit::walk_stmts_mut(&mut Localise(g), &mut body);
                (LOOP_SLOT, body)
            }
            _ => return false,
        };
        let id = self.chunk_function(&words, loop_slot, |l, i, _| {
            l.write_var(Place::Local(loop_slot), V::I(i));
            l.stmts(&body);
        });
        let Some(id) = id else {
            return false;
        };
        let (first, count) = match plan.bounds {
            Bounds::Codes(n) => (self.iconst(0), self.iconst(n as i64)),
            Bounds::Range(from, to) => {
                let (f, t) = (self.expr(from).int(), self.expr(to).int());
                let more = self.b.ins().icmp(IntCC::SignedLessThan, f, t);
                let n = self.b.ins().isub(t, f);
                let zero = self.iconst(0);
                (f, self.b.ins().select(more, n, zero))
            }
        };
        let ran = self.run_chunks(id, &words, &[], first, count);
        let (parallel, sequential, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(ran, parallel, &[], sequential, &[]);
        self.b.seal_block(parallel);
        self.b.seal_block(sequential);
        self.b.switch_to_block(parallel);
        self.check_failed();
        // The variable as the sequential loop leaves it.
        let last = match plan.bounds {
            Bounds::Codes(n) => self.iconst(n.saturating_sub(1) as i64),
            Bounds::Range(..) => {
                let end = self.b.ins().iadd(first, count);
                let empty = self.b.ins().icmp_imm_s(IntCC::Equal, count, 0);
                self.b.ins().select(empty, first, end)
            }
        };
        if !matches!(plan.bounds, Bounds::Codes(0)) {
            self.write_var(plan.var, V::I(last));
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(sequential);
        match plan.stmt {
            Stmt::ForCodes { label, var, .. } => {
                let Bounds::Codes(n) = plan.bounds else {
                    unreachable!("a loop over codes")
                };
                self.for_codes(*label, *var, n, plan.body)
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
            _ => unreachable!("checked by chunk_plan"),
        }
        if !self.filled() {
            self.b.ins().jump(done, &[]);
        }
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        true
    }

    /// The parallel form of a `map` (`map.rs`) with its element `var` in a register, reading
    /// `src` (the source's leaves) and writing `dest` (the result's), `n` elements: whether it
    /// ran (0: the sequential loop runs). `None` when the body does not qualify: it reads an
    /// array, calls, or is not pure.
    pub(super) fn chunk_map(
        &mut self,
        var: Slot,
        body: &Expr,
        (src, dest, n): (ClValue, ClValue, ClValue),
        (in_kind, out_kind): (ScalarKind, ScalarKind),
    ) -> Option<ClValue> {
        let mut arrays = HashMap::new();
        if !self.vars.contains_key(&var) {
            return None;
        }
        // The inlined function's value (its frame is noted by the worker's runtime).
        let mut value = body;
        while let ExprKind::Inlined(inlined) = &value.kind {
            match (&inlined.result, inlined.stmts.is_empty()) {
                (Some(result), true) => value = result,
                _ => return None,
            }
        }
        if !self.closed_expr(value, &mut arrays) || !arrays.is_empty() {
            return None;
        }
        if !pure(value, Place::Local(var), &[]) {
            return None;
        }
        let mut reads = Vec::new();
        for slot in self.mentioned_expr(body) {
            match self.vars.get(&slot) {
                _ if slot == var => {}
                Some((_, r)) if matches!(r, Repr::I64 | Repr::F64) => reads.push((slot, *r)),
                _ => return None,
            }
        }
        let captures = self.captures_read(|e, p| each_in_expr(body, e, p))?;
        let words = Words {
            extra: 2,
            arrays: &[],
            reads: &reads,
            captures: &captures,
            span: body.span,
        };
        let id = self.chunk_function(&words, var, |l, i, extra| {
            let at = l.leaf_addr(in_kind, extra[0], i);
            let x = l.load_leaf(in_kind, at);
            l.write_var(Place::Local(var), x);
            let (V::I(v) | V::F(v)) = l.expr(body) else {
                unreachable!("checked by native_map: a scalar body")
            };
            let at = l.leaf_addr(out_kind, extra[1], i);
            l.store_leaf(out_kind, v, at);
        })?;
        let zero = self.iconst(0);
        Some(self.run_chunks(id, &words, &[src, dest], zero, n))
    }

    /// Call `chunk_loop` with the chunk function `id` over `count` positions from `first`:
    /// the context words written to the stack, `extra` first. Whether it ran.
    fn run_chunks(
        &mut self,
        id: FuncId,
        layout: &Words<'_>,
        extra: &[ClValue],
        first: ClValue,
        count: ClValue,
    ) -> ClValue {
        // The chunks read globals from their slots.
        let promoted: Vec<u32> = self.promoted.keys().copied().collect();
        self.store_promoted(&promoted);
        let mut words: Vec<ClValue> = extra.to_vec();
        let mut stored = Vec::new();
        let mut lens = Vec::new();
        for (place, write, kinds) in layout.arrays {
            let (data, len, _) = self.views[place].clone();
            let first = words.len();
            words.extend(data.iter().copied());
            lens.push((len, first..words.len(), *write, kinds));
        }
        let views = words.len();
        for (len, columns, write, kinds) in lens {
            let at = words.len();
            words.push(len);
            if write {
                stored.extend(columns.zip(kinds).map(|(c, k)| (c, at, k.bytes())));
            }
        }
        for (slot, repr) in layout.reads {
            let v = self.read_var(Place::Local(*slot), *repr);
            words.extend(v.scalars());
        }
        for (i, _) in layout.captures {
            words.extend(self.capture_values[i].scalars());
        }
        let frame = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (words.len().max(1) * 8) as u32,
            3,
        ));
        let base = self.b.ins().stack_addr(types::I64, frame, 0);
        for (k, w) in words.iter().enumerate() {
            self.b.ins().store(flags(), *w, base, (k * 8) as i32);
        }
        let desc = self.keep(ChunkLoop { views, stored });
        let desc = self.ptr_const(desc);
        let func = lock(&self.backend)
            .module
            .declare_func_in_func(id, self.b.func);
        let func = self.b.ins().func_addr(types::I64, func);
        let rt = self.rt;
        self.call_helper(
            Helper::ChunkLoop,
            &[types::I64; 6],
            &[types::I32],
            &[rt, func, base, first, count, desc],
        )
        .expect("chunk_loop returns whether it ran")
    }

    /// Does the loop `s` qualify (see the module's comment)?
    fn chunk_plan<'s>(&self, s: &'s Stmt) -> Option<Plan<'s>> {
        let simple = |e: &Expr| match e.kind {
            ExprKind::Const(_) => true,
            ExprKind::Local(s) => self.vars.contains_key(&s),
            ExprKind::Global(_) => true,
            _ => false,
        };
        let (var, body, bounds, span) = match s {
            Stmt::ForCodes { var, ty, body, .. } => {
                let n = crate::types::size::size_of(ty).and_then(|n| u64::try_from(n).ok())?;
                (n < i64::MAX as u64 && Repr::of(ty) == Some(Repr::I64)).then_some((
                    *var,
                    body,
                    Bounds::Codes(n),
                    Default::default(),
                ))?
            }
            Stmt::ForRange {
                var,
                var_ty,
                from,
                to,
                kind: RangeKind::Exclusive,
                body,
                ..
            } => (to.ty == Type::Int(*var_ty)
                && from.ty == Type::Int(*var_ty)
                && (var_ty.signed() || var_ty.bits() < 64)
                && simple(from)
                && simple(to))
            .then_some((*var, body, Bounds::Range(from, to), to.span))?,
            _ => return None,
        };
        let mut stored = Vec::new();
        if !stores_at(body, var, &mut stored) || !values_pure(body, var, &stored) {
            return None;
        }
        let mut arrays = HashMap::new();
        if !self.closed_stmt(s, &mut arrays) {
            return None;
        }
        let mut arrays: Vec<(Place, bool, Vec<ScalarKind>)> = arrays
            .into_iter()
            .map(|(p, (base, w))| (p, w, leaf_kinds(&base)))
            .collect();
        arrays.sort_by_key(|(p, _, _)| format!("{p:?}"));
        let hoisted = arrays.iter().all(|(place, write, _)| {
            self.views
                .get(place)
                .is_some_and(|(_, _, mutable)| *mutable || !write)
        });
        let mut reads = Vec::new();
        for slot in self.mentioned_stmts(body) {
            if Place::Local(slot) == var {
                continue;
            }
            match self.vars.get(&slot) {
                Some((_, repr)) if matches!(repr, Repr::I64 | Repr::F64) => {
                    reads.push((slot, *repr))
                }
                _ => return None,
            }
        }
        let captures = self.captures_read(|e, p| each_in_stmts(body, e, p))?;
        hoisted.then_some(Plan {
            stmt: s,
            var,
            body,
            bounds,
            arrays,
            reads,
            captures,
            span,
        })
    }

    /// The captured scalars the code `walk` visits reads (`Capture(i)`, held in registers);
    /// `None` when it reads a capture that is not, which a chunk function cannot be given.
    fn captures_read(
        &self,
        walk: impl FnOnce(&mut dyn FnMut(&Expr), &mut dyn FnMut(Place)),
    ) -> Option<Vec<(u32, Repr)>> {
        let mut captures = Vec::new();
        walk(
            &mut |e| {
                let ExprKind::Capture(i) = e.kind else {
                    return;
                };
                let held = match self.capture_values.get(&i) {
                    Some(V::I(_)) => Some((i, Repr::I64)),
                    Some(V::F(_)) => Some((i, Repr::F64)),
                    _ => None,
                };
                if !captures.contains(&held) {
                    captures.push(held);
                }
            },
            &mut |_| {},
        );
        captures.into_iter().collect()
    }

    /// A chunk function (`fn(rt, words, lo, hi)`) running `iteration` (given the position and
    /// the extra words) for each position from `lo` below `hi`, with the loop variable in the
    /// register `loop_slot`; `None` when its code needs something a worker cannot do (a
    /// fallback piece, a helper of the session's thread).
    fn chunk_function(
        &mut self,
        layout: &Words<'_>,
        loop_slot: Slot,
        iteration: impl FnOnce(&mut Lower<'_, '_, '_>, ClValue, &[ClValue]),
    ) -> Option<FuncId> {
        let call_conv = lock(&self.backend).call_conv;
        let mut sig = Signature::new(call_conv);
        sig.params.extend([AbiParam::new(types::I64); 4]);
        let id = lock(&self.backend)
            .module
            .declare_anonymous_function(&sig)
            .ok()?;
        let mut reprs: HashMap<Slot, Held> = layout
            .reads
            .iter()
            .map(|(s, r)| (*s, Held::Scalar(*r)))
            .collect();
        let repr = self.vars.get(&loop_slot).map_or(Repr::I64, |v| v.1);
        reprs.entry(loop_slot).or_insert(Held::Scalar(repr));
        let mut ctx = context(&self.backend, sig);
        let mut fbc = FunctionBuilderContext::new();
        let slots = self.c.slots_now();
        let runs_on_workers;
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
            let params = entry_params(&mut b);
            let (rt, words, lo, hi) = (params[0], params[1], params[2], params[3]);
            let zero = b.ins().iconst(types::I64, 0);
            let mut l = Lower::new(
                b,
                &mut *self.c,
                self.backend.clone(),
                rt,
                zero,
                zero,
                &reprs,
                (zero, 0),
            );
            let mut k: i32 = 0;
            let mut word = |l: &mut Lower<'_, '_, '_>, ty| {
                k += 1;
                l.b.ins().load(ty, flags(), words, (k - 1) * 8)
            };
            let extra: Vec<ClValue> = (0..layout.extra)
                .map(|_| word(&mut l, types::I64))
                .collect();
            let mut columns = Vec::new();
            for (place, _, _) in layout.arrays {
                let n = self.views[place].0.len();
                columns.push((0..n).map(|_| word(&mut l, types::I64)).collect::<Vec<_>>());
            }
            for ((place, write, _), data) in layout.arrays.iter().zip(columns) {
                let len = word(&mut l, types::I64);
                l.views.insert(*place, (data, len, *write));
            }
            let mut scalar = |l: &mut Lower<'_, '_, '_>, repr: &Repr| match repr {
                Repr::F64 => V::F(word(l, types::F64)),
                _ => V::I(word(l, types::I64)),
            };
            for (slot, repr) in layout.reads {
                let v = scalar(&mut l, repr);
                l.write_var(Place::Local(*slot), v);
            }
            for (i, repr) in layout.captures {
                let v = scalar(&mut l, repr);
                l.capture_values.insert(*i, v);
            }
            // The loop over `lo .. hi`.
            let counter = l.b.declare_var(types::I64);
            l.b.def_var(counter, lo);
            let (header, body_block, exit) =
                (l.b.create_block(), l.b.create_block(), l.b.create_block());
            l.b.ins().jump(header, &[]);
            l.b.switch_to_block(header);
            let i = l.b.use_var(counter);
            let more = l.b.ins().icmp(IntCC::SignedLessThan, i, hi);
            l.b.ins().brif(more, body_block, &[], exit, &[]);
            l.b.seal_block(body_block);
            l.b.switch_to_block(body_block);
            iteration(&mut l, i, &extra);
            l.poll_interrupt(layout.span);
            let i = l.b.use_var(counter);
            let next = l.b.ins().iadd_imm_s(i, 1);
            l.b.def_var(counter, next);
            l.b.ins().jump(header, &[]);
            l.b.seal_block(header);
            l.b.seal_block(exit);
            l.b.switch_to_block(exit);
            l.b.ins().return_(&[]);
            let unwind = l.unwind;
            l.b.seal_block(unwind);
            l.b.switch_to_block(unwind);
            l.b.ins().return_(&[]);
            runs_on_workers = !l.foreign && l.notes.is_empty();
            l.b.seal_all_blocks();
            let config = lock(&l.backend).module.target_config();
            l.b.finalize(config);
        }
        // A fallback piece noted the slots it uses; the function is not used then.
        self.c.reset_slots(slots);
        define(&self.backend, id, &mut ctx).ok()?;
        runs_on_workers.then_some(id)
    }
}
