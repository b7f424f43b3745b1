//! IR -> Cranelift IR: the state of one function's lowering and the entry points (a function
//! instance, a unit's top level, trampolines and boxed entries).
//!
//! Native scalars are Cranelift variables. Everything else lives in the frame, an array of
//! the evaluator's `Value`s on the native stack (a unit's is given by its caller), addressed
//! by the fallback pieces (`fallback.rs`). Errors unwind through `unwind` blocks: each call
//! or check that can fail tests the runtime's failure flag and branches to the innermost one,
//! which notes the call-stack frame of an inlined body when there is one, drops the frame and
//! returns.

mod agg;
mod borrow;
mod boxed;
mod call;
mod capture;
mod chars;
mod closed;
mod counting;
mod dead;
mod element;
mod entries;

pub(super) use entries::{boxed_entry, trampoline};
use entries::{cold_stub, entry_params};
use frame::{droppable_slots, slot_reprs};
mod expr;
mod fallback;
mod for_each;
mod frame;
mod hoist;
mod leaves;
mod map;
mod matching;
mod parallel;
mod pointee;
mod pushes;
mod ranges;
mod select;
mod stmt;
mod text;
mod varray;

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, Opcode, Signature,
    StackSlotData, StackSlotKind, Value as ClValue, ValueDef,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{FuncId, Module};

use crate::core::ir::{Expr, ExprKind, Function, LabelId, PatternKind, Place, Slot, Stmt};
use crate::core::visit::each_in_expr;

use super::super::closure::Instance;
use super::super::compile::Compiler;
use super::layout::{self, VALUE_SIZE};
use super::runtime::{self, Helper, Site};
use super::{lock, Agg, Held, NativeSig, Repr, SharedBackend};

/// A lowered native value.
#[derive(Clone, Copy, Debug)]
pub(super) enum V {
    I(ClValue),
    F(ClValue),
    Unit,
    /// An aggregate: its leaves are `Lower::aggs[k]`.
    Agg(u32),
}

impl V {
    fn int(self) -> ClValue {
        match self {
            V::I(v) | V::F(v) => v,
            V::Unit | V::Agg(_) => panic!("a unit or aggregate value used as a number"),
        }
    }

    /// The Cranelift values of a scalar (none for `unit`).
    fn scalars(self) -> Vec<ClValue> {
        match self {
            V::I(v) | V::F(v) => vec![v],
            V::Unit | V::Agg(_) => vec![],
        }
    }
}

/// The views of an array fetched before a closed loop: the address of each column's leaves
/// (one column for an array of scalars), the count, and whether it was made unshared. A
/// varray's has two words: the address of its first element and the count of elements read
/// there, which is 0 when the address is null (elements that are not scalars, or no varray).
type Views = (Vec<ClValue>, ClValue, bool);

/// A loop being lowered: where `break` and `continue` of its label go.
struct LoopTarget {
    label: LabelId,
    exit: cranelift_codegen::ir::Block,
    next: cranelift_codegen::ir::Block,
}

/// Where a `return` goes: the function's return block, or the end of an inlined body.
#[derive(Clone, Copy)]
struct ReturnTarget {
    block: cranelift_codegen::ir::Block,
    repr: Repr,
    /// Where a boxed result goes (the function's `out` parameter).
    out: Option<ClValue>,
    /// An aggregate result: the block takes its leaves (`agg_ptr` of its aggregate).
    agg: Option<usize>,
}

pub(super) struct Lower<'a, 'c, 'p> {
    b: FunctionBuilder<'a>,
    c: &'c mut Compiler<'p>,
    backend: SharedBackend,
    rt: ClValue,
    /// The frame's address and size (in slots).
    frame: ClValue,
    n_slots: ClValue,
    /// The slot fallback expressions leave their value in.
    out: ClValue,
    /// Does the frame hold values that must be dropped (set by the first fallback piece)?
    frame_used: bool,
    /// Helper calls go through their cold stubs (`cold_stub`), which keep every register,
    /// while this is set: the calls once around a loop (the views, promoted globals and
    /// pushes of a hoisted loop, the drop of the copy of the array a loop walks, the release
    /// of an inlined body's slots), so that what the loop carries in registers stays there.
    keep_registers: bool,
    /// The native variable of each local slot held in a register.
    vars: HashMap<Slot, (Variable, Repr)>,
    /// The native variables of each local slot holding an aggregate, one per leaf.
    avars: HashMap<Slot, (Vec<(Variable, Repr)>, Agg)>,
    /// The leaves of each aggregate value lowered (`V::Agg`).
    aggs: Vec<Vec<V>>,
    /// The address of each aggregate descriptor the runtime helpers are given.
    agg_ptrs: HashMap<Agg, usize>,
    loops: Vec<LoopTarget>,
    returns: Vec<ReturnTarget>,
    /// The innermost block errors unwind to.
    unwind: cranelift_codegen::ir::Block,
    /// The pieces that run on the closure compiler, with the reason.
    pub notes: Vec<String>,
    /// The array views fetched before the closed loops being lowered (`hoist.rs`): the
    /// leaves' address and count of each array variable, and whether it was made unshared
    /// for stores.
    /// For an array of tuples stored as columns, each column's address.
    views: HashMap<Place, Views>,
    /// The variables whose views the code being lowered runs only with, not null
    /// (`hoist.rs`, `version`).
    viewed: std::collections::HashSet<Place>,
    /// Is the code being lowered inside a closed loop or region (`hoist.rs`), whose views
    /// are all fetched already?
    closed: bool,
    /// The scalar globals held in registers while the closed loops being lowered run
    /// (`hoist.rs`): each one's variable and representation.
    promoted: HashMap<u32, hoist::Promoted>,
    /// The promoted scalars the innermost loop being lowered writes back where control leaves
    /// it, not at each assignment (`hoist::sink_assignments`).
    sunk: std::collections::HashSet<u32>,
    /// The unwind block that writes the sunk scalars back, and the one in force before it.
    sunk_unwind: Option<(cranelift_codegen::ir::Block, cranelift_codegen::ir::Block)>,
    /// The runs of blocks past tests, and the indices tested in them (`element.rs`).
    straight: element::StraightRuns,
    /// The varray variables the closed loops being lowered push onto in place (`pushes.rs`).
    pushing: HashMap<Place, pushes::PushView>,
    /// Has a helper been called that only the session's thread may call (`Helper::on_workers`)?
    foreign: bool,
    /// The captures of the function being lowered (`*const Value`) and their number (0 for a
    /// unit's top level and a chunk function, whose captures pointer is not read).
    captures: ClValue,
    n_captures: usize,
    /// The captured scalars the body reads, loaded once at its entry (`capture.rs`), by
    /// capture position.
    capture_values: HashMap<u32, V>,
    /// The parameters that are borrowed, and the variables that may be bound to borrowed
    /// values (`borrow.rs`).
    borrowed_params: Vec<Slot>,
    borrowed_vars: Vec<Slot>,
    /// The variables read where an address variable points rather than in their frame slots:
    /// the borrowed parameters (at the caller's value) and the borrowed variables (in place
    /// in a parameter's value, or in their own slots).
    aliases: HashMap<Slot, Variable>,
    /// 1 once the slot of a borrowed variable may own a value (`borrow.rs`).
    vars_owned: Option<Variable>,
    /// Are the patterns being tested matched against a borrowed parameter, so that the parts
    /// they bind may be borrowed too?
    borrowing: bool,
    /// Per block errors unwind to, the one block that raises them (its parameters: the site,
    /// the operands), which every failed check jumps to: one helper call per function and
    /// unwind target, not one per check.
    raisers: HashMap<cranelift_codegen::ir::Block, cranelift_codegen::ir::Block>,
    /// What is known of the values of integer variables where the code being lowered is
    /// (`ranges.rs`).
    ranges: ranges::Ranges,
}

fn args(values: &[ClValue]) -> Vec<BlockArg> {
    values.iter().map(|v| BlockArg::Value(*v)).collect()
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl<'a, 'c, 'p> Lower<'a, 'c, 'p> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        mut b: FunctionBuilder<'a>,
        c: &'c mut Compiler<'p>,
        backend: SharedBackend,
        rt: ClValue,
        frame: ClValue,
        n_slots: ClValue,
        reprs: &HashMap<Slot, Held>,
        (captures, n_captures): (ClValue, usize),
    ) -> Self {
        let out_slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            VALUE_SIZE as u32,
            3,
        ));
        let out = b.ins().stack_addr(types::I64, out_slot, 0);
        let zero = b.ins().iconst(types::I8, 0);
        b.ins().store(flags(), zero, out, 0);
        let mut vars = HashMap::new();
        let mut avars = HashMap::new();
        let mut slots: Vec<_> = reprs.iter().collect();
        slots.sort_by_key(|(s, _)| **s);
        let declare = |b: &mut FunctionBuilder<'a>, repr: Repr| {
            let ty = repr.clif().unwrap_or(types::I64);
            let var = b.declare_var(ty);
            let init = match repr {
                Repr::F64 => b.ins().f64const(0.0),
                _ => b.ins().iconst(types::I64, 0),
            };
            b.def_var(var, init);
            var
        };
        for (slot, held) in slots {
            match held {
                Held::Scalar(repr) => {
                    let var = declare(&mut b, *repr);
                    vars.insert(*slot, (var, *repr));
                }
                Held::Agg(agg) => {
                    let leaves = agg
                        .leaves
                        .iter()
                        .map(|r| (declare(&mut b, *r), *r))
                        .collect();
                    avars.insert(*slot, (leaves, agg.clone()));
                }
            }
        }
        let unwind = b.create_block();
        Lower {
            b,
            c,
            backend,
            rt,
            frame,
            n_slots,
            out,
            frame_used: false,
            keep_registers: false,
            vars,
            avars,
            aggs: Vec::new(),
            agg_ptrs: HashMap::new(),
            loops: Vec::new(),
            returns: Vec::new(),
            unwind,
            notes: Vec::new(),
            ranges: ranges::Ranges::default(),
            views: HashMap::new(),
            viewed: std::collections::HashSet::new(),
            closed: false,
            promoted: HashMap::new(),
            sunk: std::collections::HashSet::new(),
            sunk_unwind: None,
            straight: element::StraightRuns::default(),
            pushing: HashMap::new(),
            foreign: false,
            captures,
            n_captures,
            capture_values: HashMap::new(),
            borrowed_params: Vec::new(),
            borrowed_vars: Vec::new(),
            aliases: HashMap::new(),
            vars_owned: None,
            borrowing: false,
            raisers: HashMap::new(),
        }
    }

    // ---- small builders ----

    fn iconst(&mut self, v: i64) -> ClValue {
        self.b.ins().iconst(types::I64, v)
    }

    fn ptr_const<T>(&mut self, p: *const T) -> ClValue {
        self.b.ins().iconst(types::I64, p as usize as i64)
    }

    /// Call a runtime helper with the given parameter and result types. From a cold block
    /// the call goes through the helper's cold stub (`cold_stub`), which keeps every register.
    fn call_helper(
        &mut self,
        helper: Helper,
        params: &[types::Type],
        returns: &[types::Type],
        values: &[ClValue],
    ) -> Option<ClValue> {
        self.foreign |= !helper.on_workers();
        let cold = self
            .b
            .current_block()
            .is_some_and(|block| self.b.func.layout.is_cold(block));
        if (cold || self.keep_registers) && returns.len() <= 1 {
            let stub = {
                let mut backend = lock(&self.backend);
                cold_stub(&mut backend, helper, params, returns)
                    .map(|id| backend.module.declare_func_in_func(id, self.b.func))
            };
            if let Ok(stub) = stub {
                let mut args = values.to_vec();
                args.extend(returns.first().map(|_| self.rt));
                self.b.ins().call(stub, &args);
                return returns.first().map(|ty| {
                    self.b
                        .ins()
                        .load(*ty, flags(), self.rt, layout::native_result())
                });
            }
        }
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns
            .extend(returns.iter().map(|t| AbiParam::new(*t)));
        let sig = self.b.import_signature(sig);
        let callee = self.iconst(runtime::address(helper) as i64);
        let call = self.b.ins().call_indirect(sig, callee, values);
        self.b.inst_results(call).first().copied()
    }

    /// Run `f` with its helper calls keeping every register (`keep_registers`).
    fn keeping_registers<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let outer = std::mem::replace(&mut self.keep_registers, true);
        let r = f(self);
        self.keep_registers = outer;
        r
    }

    /// Keep `value` alive as long as the module, and give its address.
    fn keep<T: Send + Sync + 'static>(&mut self, value: T) -> *const T {
        let boxed = Box::new(value);
        let p: *const T = &*boxed;
        lock(&self.backend).keep.push(boxed);
        p
    }

    /// Branch to the innermost unwind block when the runtime's failure flag is set.
    fn check_failed(&mut self) {
        let flag = self
            .b
            .ins()
            .uload8(types::I64, flags(), self.rt, layout::failed());
        self.branch_unwind_if(flag);
    }

    /// Branch to the innermost unwind block when `cond` is non-zero.
    fn branch_unwind_if(&mut self, cond: ClValue) {
        let next = self.b.create_block();
        let unwind = self.unwind;
        self.b.set_cold_block(unwind);
        self.b.ins().brif(cond, unwind, &[], next, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// Raise the error of `site` (operands `a`, `b`) and unwind: the current block ends.
    fn raise(&mut self, site: Site, a: ClValue, b: ClValue) {
        let site = self.keep(site);
        let site = self.ptr_const(site);
        let mut unwind = self.unwind;
        // In a loop that writes scalars back where it is left, they are written here, and the
        // error goes on to the unwind block around the loop's: passed on to a raiser shared by
        // the loop's checks, they would be live across its call, and kept on the stack
        // through the whole loop.
        if let Some((_, outer)) = self.sunk_unwind.filter(|(side, _)| *side == unwind) {
            let mut sunk: Vec<u32> = self.sunk.iter().copied().collect();
            sunk.sort_unstable();
            self.store_sunk(&sunk);
            unwind = outer;
        }
        if let Some(raiser) = self.raisers.get(&unwind) {
            self.b.ins().jump(*raiser, &args(&[site, a, b]));
            return;
        }
        let raiser = self.b.create_block();
        self.b.set_cold_block(raiser);
        let params: Vec<ClValue> = (0..3)
            .map(|_| self.b.append_block_param(raiser, types::I64))
            .collect();
        self.raisers.insert(unwind, raiser);
        self.b.ins().jump(raiser, &args(&[site, a, b]));
        // Filled now, while its unwind target takes predecessors; sealed with the others.
        self.b.switch_to_block(raiser);
        let rt = self.rt;
        self.call_helper(
            Helper::Fault,
            &[types::I64; 4],
            &[types::I64],
            &[rt, params[0], params[1], params[2]],
        );
        self.b.ins().jump(unwind, &[]);
    }

    /// When `cond` is non-zero, raise the error of `site` in a cold block.
    fn raise_if(&mut self, cond: ClValue, site: Site, a: ClValue, b: ClValue) {
        let next = self.cold_if(cond);
        self.raise(site, a, b);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// Branch to a fresh cold block when `cond` is non-zero and go on lowering there; the
    /// block returned is where the other branch goes (the cold code ends its block, then
    /// lowering switches to it).
    fn cold_if(&mut self, cond: ClValue) -> cranelift_codegen::ir::Block {
        let cold = self.b.create_block();
        let next = self.b.create_block();
        if let Some(block) = self.b.current_block() {
            self.straight.continue_into(block, next);
        }
        self.b.set_cold_block(cold);
        self.b.ins().brif(cond, cold, &[], next, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        next
    }

    /// The address of the value of the variable kept in frame slot `s`: the slot, or where a
    /// borrowed variable's value is (`borrow.rs`). Only a pattern's binding writes a borrowed
    /// variable, and only through `bind_borrowed`.
    fn slot_addr(&mut self, s: u32) -> ClValue {
        match self.aliases.get(&s) {
            Some(&at) => self.b.use_var(at),
            None => self.frame_slot(s),
        }
    }

    /// The address of frame slot `s`.
    fn frame_slot(&mut self, s: u32) -> ClValue {
        self.b
            .ins()
            .iadd_imm_s(self.frame, s as i64 * VALUE_SIZE as i64)
    }

    /// The address of global slot `s`.
    fn global_addr(&mut self, s: u32) -> ClValue {
        // The slots are sized for the unit before it runs and do not move while code runs:
        // the address is the same at every read in a call (Cranelift computes it once).
        let base = self.b.ins().load(
            types::I64,
            flags().with_readonly().with_can_move(),
            self.rt,
            layout::globals_base(),
        );
        self.b.ins().iadd_imm_s(base, s as i64 * VALUE_SIZE as i64)
    }

    /// Store a native value into the `Value` at `addr`, which holds `Unit` or a scalar.
    fn store_value(&mut self, addr: ClValue, v: V) {
        let tag = match v {
            V::I(_) => layout::TAG_INT,
            V::F(_) => layout::TAG_FLOAT,
            V::Unit | V::Agg(_) => layout::TAG_UNIT,
        };
        let tag = self.b.ins().iconst(types::I8, tag as i64);
        self.b.ins().store(flags(), tag, addr, 0);
        if let V::I(x) | V::F(x) = v {
            self.b.ins().store(flags(), x, addr, layout::PAYLOAD);
        }
    }

    /// Load a native value of `repr` from the `Value` at `addr`.
    fn load_value(&mut self, addr: ClValue, repr: Repr) -> V {
        match repr {
            Repr::I64 | Repr::Ref => V::I(self.b.ins().load(
                types::I64,
                flags(),
                addr,
                layout::PAYLOAD,
            )),
            Repr::F64 => V::F(
                self.b
                    .ins()
                    .load(types::F64, flags(), addr, layout::PAYLOAD),
            ),
            Repr::Unit => V::Unit,
        }
    }

    /// The native value of `repr` whose bits a helper returned.
    pub(super) fn bits_value(&mut self, bits: ClValue, repr: Repr) -> V {
        match repr {
            Repr::F64 => V::F(self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits)),
            Repr::Unit => V::Unit,
            Repr::I64 | Repr::Ref => V::I(bits),
        }
    }

    /// The Cranelift values of the zero of `repr`, or of each leaf of `agg`.
    pub(super) fn zero_values(&mut self, repr: Repr, agg: Option<&Agg>) -> Vec<ClValue> {
        match agg {
            Some(agg) => agg
                .leaves
                .iter()
                .flat_map(|r| self.zero(*r).scalars())
                .collect(),
            None => self.zero(repr).scalars(),
        }
    }

    /// The zero of a representation.
    fn zero(&mut self, repr: Repr) -> V {
        match repr {
            Repr::I64 | Repr::Ref => V::I(self.iconst(0)),
            Repr::F64 => V::F(self.b.ins().f64const(0.0)),
            Repr::Unit => V::Unit,
        }
    }

    /// A cold block filled by `fill` (which must end it), made without leaving the current
    /// block open: the current block jumps to a fresh one, where lowering goes on.
    pub(super) fn side_block(
        &mut self,
        fill: impl FnOnce(&mut Self),
    ) -> cranelift_codegen::ir::Block {
        let side = self.b.create_block();
        self.b.set_cold_block(side);
        let here = self.b.create_block();
        self.b.ins().jump(here, &[]);
        self.b.seal_block(here);
        self.b.switch_to_block(side);
        fill(self);
        self.b.switch_to_block(here);
        side
    }

    /// A `Value` on the stack, holding `Unit` (drop it with `drop_value`).
    pub(super) fn temp_value(&mut self) -> ClValue {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            VALUE_SIZE as u32,
            3,
        ));
        let temp = self.b.ins().stack_addr(types::I64, slot, 0);
        let unit = self.b.ins().iconst(types::I8, 0);
        self.b.ins().store(flags(), unit, temp, 0);
        temp
    }

    /// Drop the value at `addr` (a stack temporary).
    pub(super) fn drop_value(&mut self, addr: ClValue) {
        let owns = self.owns(addr);
        let drop = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(owns, drop, &[], done, &[]);
        self.b.seal_block(drop);
        self.b.switch_to_block(drop);
        let one = self.iconst(1);
        self.call_helper(
            Helper::DropFrame,
            &[types::I64, types::I64],
            &[],
            &[addr, one],
        );
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
    }

    /// 1 when the value at `addr` may own something, else 0: a unit, an integer or a float
    /// owns nothing, and native code drops and copies those alone.
    pub(super) fn owns(&mut self, addr: ClValue) -> ClValue {
        let tag = self.b.ins().uload8(types::I64, flags(), addr, 0);
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, tag, layout::TAG_FLOAT as i64)
    }

    /// The words of the value at `addr`, as they are (a bitwise copy: whoever stores them
    /// owns what they own).
    pub(super) fn value_words(&mut self, addr: ClValue) -> Vec<ClValue> {
        (0..layout::VALUE_SIZE / 8)
            .map(|i| self.b.ins().load(types::I64, flags(), addr, (i * 8) as i32))
            .collect()
    }

    /// Store the words of a value (`value_words`) at `addr`.
    pub(super) fn store_value_words(&mut self, words: &[ClValue], addr: ClValue) {
        for (i, w) in words.iter().enumerate() {
            self.b.ins().store(flags(), *w, addr, (i * 8) as i32);
        }
    }

    /// Has the current block ended (with a jump, a branch or a return)?
    pub(super) fn filled(&self) -> bool {
        let Some(block) = self.b.current_block() else {
            return true;
        };
        self.b
            .func
            .layout
            .last_inst(block)
            .is_some_and(|inst| self.b.func.dfg.insts[inst].opcode().is_terminator())
    }

    /// A block where the arms of a choice (`if`, `match`) meet, with parameters for a value
    /// of `repr` or the leaves of the aggregate `agg`.
    pub(super) fn join_block(
        &mut self,
        repr: Repr,
        agg: Option<&Agg>,
    ) -> cranelift_codegen::ir::Block {
        let join = self.b.create_block();
        self.value_params(join, repr, agg);
        join
    }

    /// Go on at `join`: the value arriving there.
    pub(super) fn joined(
        &mut self,
        join: cranelift_codegen::ir::Block,
        repr: Repr,
        agg: Option<&Agg>,
    ) -> V {
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_values(join, repr, agg)
    }

    /// `if c then t else f`: each arm lowered by `arm` to the values it passes to `join`, knowing
    /// what `c` (or its negation) says of the variables it compares.
    pub(super) fn lower_if(
        &mut self,
        (c, t, f): (&Expr, &Expr, &Expr),
        join: cranelift_codegen::ir::Block,
        mut arm: impl FnMut(&mut Self, &Expr) -> Vec<ClValue>,
    ) {
        let (then_b, else_b) = (self.b.create_block(), self.b.create_block());
        self.branch(c, then_b, else_b);
        for (block, e, holds) in [(then_b, t, true), (else_b, f, false)] {
            self.b.seal_block(block);
            self.b.switch_to_block(block);
            let values = self.knowing(c, holds, |l| arm(l, e));
            self.b.ins().jump(join, &args(&values));
        }
    }

    /// Branch to `then` when the boolean `c` is true, else to `otherwise` (both sealed by the
    /// caller): `and`, `or` and `not` as jumps between their operands' tests, so no boolean
    /// is made in between, the operands evaluated in the same order; an `and` or `or` whose
    /// second operand is cheap and infallible as one boolean (`select.rs`).
    pub(super) fn branch(
        &mut self,
        c: &Expr,
        then: cranelift_codegen::ir::Block,
        otherwise: cranelift_codegen::ir::Block,
    ) {
        match &c.kind {
            ExprKind::And(x, y) | ExprKind::Or(x, y) if !self.cheap_infallible(y) => {
                let rhs = self.b.create_block();
                match c.kind {
                    ExprKind::And(..) => self.branch(x, rhs, otherwise),
                    _ => self.branch(x, then, rhs),
                }
                self.b.seal_block(rhs);
                self.b.switch_to_block(rhs);
                self.branch(y, then, otherwise);
            }
            ExprKind::Prim(crate::core::ir::Prim::Not, a) if a.len() == 1 => {
                self.branch(&a[0], otherwise, then)
            }
            _ => {
                let v = self.expr(c).int();
                self.b.ins().brif(v, then, &[], otherwise, &[]);
            }
        }
    }

    /// `values`, computed here. Cranelift places a pure computation at its first use, in the
    /// block of that use; a value stored under a check (a store skipped outside its array)
    /// would be computed in the check's block, and again for each later use that block does
    /// not dominate, as the parts several stores share (a square root and a division, for
    /// each of six stores). A branch on each value, to the next block either way, uses it
    /// here, so it is computed once, before. (Passing it to a block as a parameter would not
    /// do: a parameter with one incoming value is replaced by that value first.)
    pub(super) fn pin(&mut self, values: &[ClValue]) {
        for v in values {
            // Only a computation moves: a constant is made where it is used, for free, and a
            // block's parameter or a load stays where it is.
            let movable = match self.b.func.dfg.value_def(*v) {
                ValueDef::Result(inst, _) => {
                    let op = self.b.func.dfg.insts[inst].opcode();
                    !op.can_load()
                        && !matches!(op, Opcode::Iconst | Opcode::F32const | Opcode::F64const)
                }
                _ => false,
            };
            if !movable {
                continue;
            }
            let ty = self.b.func.dfg.value_type(*v);
            let bits = match ty.is_float() {
                true => {
                    let int = ty.as_int();
                    self.b.ins().bitcast(int, MemFlagsData::new(), *v)
                }
                false => *v,
            };
            let next = self.b.create_block();
            self.b.ins().brif(bits, next, &[], next, &[]);
            self.b.seal_block(next);
            self.b.switch_to_block(next);
        }
    }

    /// Is the current block already ended (after a jump)? Then a fresh unreachable block is
    /// started so that lowering can go on.
    fn ensure_open(&mut self) {
        if self.filled() {
            let dead = self.b.create_block();
            self.b.seal_block(dead);
            self.b.switch_to_block(dead);
        }
    }
}

/// The Cranelift context for one function of `sig`.
fn context(backend: &SharedBackend, sig: Signature) -> Context {
    let b = lock(backend);
    let mut ctx = b.module.make_context();
    ctx.func.signature = sig;
    ctx
}

fn define(backend: &SharedBackend, id: FuncId, ctx: &mut Context) -> Result<(), String> {
    dead::remove_dead_code(&mut ctx.func);
    // For those working on the backend: the Cranelift IR of each function as lowered, the
    // machine code Cranelift made of it (before branch simplification) and the IR after
    // Cranelift's optimisation, on stderr.
    if std::env::var_os("TESSERA_DUMP_CLIF").is_some() {
        eprintln!("{}", ctx.func.display());
    }
    let machine_code = std::env::var_os("TESSERA_DUMP_ASM").is_some();
    ctx.set_disasm(machine_code);
    let mut b = lock(backend);
    let defined = b
        .module
        .define_function(id, ctx)
        .map_err(|e| format!("Cranelift rejected the code: {e:?}"));
    if let Some(code) = ctx.compiled_code() {
        if let Some(text) = code.vcode.as_deref() {
            eprintln!("{text}");
        }
        // For profiles of compiled code: each function's machine code, in order, to
        // disassemble with `objdump -D -b binary -mi386:x86-64` against `perf script` offsets.
        if let Some(dir) = std::env::var_os("TESSERA_DUMP_CODE") {
            let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
            let path = std::path::Path::new(&dir).join(format!("{n:04}.bin"));
            let _ = std::fs::write(path, code.code_buffer());
        }
    }
    if std::env::var_os("TESSERA_DUMP_OPT").is_some() {
        eprintln!("{}", ctx.func.display());
    }
    defined
}

/// Lower a function instance's body into the declared function `id`; the notes on its
/// fallback pieces, or why it could not be lowered.
pub(super) fn function(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    instance: &Arc<Instance>,
    function: &Function,
    sig: &NativeSig,
    n_slots: usize,
    id: FuncId,
) -> Result<Vec<String>, String> {
    let call_conv = lock(backend).call_conv;
    let mut ctx = context(backend, sig.clif(call_conv));
    let mut fbc = FunctionBuilderContext::new();
    let notes;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let params = entry_params(&mut b);
        let rt = params[0];
        let frame_slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (n_slots.max(1) * VALUE_SIZE) as u32,
            3,
        ));
        let frame = b.ins().stack_addr(types::I64, frame_slot, 0);
        let n = b.ins().iconst(types::I64, n_slots as i64);
        // The frame's initialisation is written last, when it is known to be needed.
        let prologue = b.create_block();
        b.ins().jump(prologue, &[]);
        b.seal_block(prologue);
        b.switch_to_block(prologue);
        let init_point = b.create_block();
        b.ins().jump(init_point, &[]);
        let body = b.create_block();

        let reprs = slot_reprs(&function.params, &function.body);
        b.switch_to_block(body);
        let captures = (params[1], function.captures.len());
        let mut l = Lower::new(b, compiler, backend.clone(), rt, frame, n, &reprs, captures);
        l.load_captures(&function.body);
        // Bind the parameters: register groups directly, boxed groups by their pattern.
        let borrows = borrow::Borrows::of(function);
        let mut k = if sig.has_out() { 3 } else { 2 };
        let ret_out = sig.ret_boxed.then(|| params[2]);
        for (group, param) in function.params.iter().enumerate() {
            if sig.boxed[group] {
                let value = params[k];
                k += 1;
                l.frame_used = true;
                let keep = l.keep(instance.clone());
                // SAFETY: the Arc is kept alive by the backend.
                let target = l.ptr_const(unsafe { Arc::as_ptr(&*keep) });
                let index = l.iconst(group as i64);
                let (rt, frame, n) = (l.rt, l.frame, l.n_slots);
                let status = l
                    .call_helper(
                        Helper::BindGroup,
                        &[types::I64; 6],
                        &[types::I32],
                        &[rt, target, index, frame, n, value],
                    )
                    .expect("bind_group returns a status");
                l.branch_unwind_if(status);
                let bound = l.registered(matching::bound_slots(param));
                l.reload(&bound);
                continue;
            }
            let binds: Vec<&crate::core::ir::Pattern> = match &param.kind {
                PatternKind::Tuple(parts)
                    if matches!(
                        param.ty,
                        crate::types::Type::Tuple(_) | crate::types::Type::Array(..)
                    ) =>
                {
                    parts.iter().collect()
                }
                _ => vec![param],
            };
            for p in binds {
                if let (PatternKind::Bind(Place::Local(s)), None) = (&p.kind, Repr::of(&p.ty)) {
                    // Passed by reference: copied into its slot, or borrowed when the body
                    // never assigns it.
                    let from = params[k];
                    k += 1;
                    // (Not one held in registers: spilling it writes its slot.)
                    let held = l.vars.contains_key(s) || l.avars.contains_key(s);
                    if borrows.params.contains(s) && !held {
                        l.alias_param(*s, from);
                    } else {
                        let to = l.frame_slot(*s);
                        l.frame_used = true;
                        l.copy_value(from, to);
                    }
                    let held = l.registered(vec![*s]);
                    l.reload(&held);
                    continue;
                }
                if let (PatternKind::Bind(Place::Local(s)), Some(repr)) = (&p.kind, Repr::of(&p.ty))
                {
                    if repr == Repr::Unit {
                        continue;
                    }
                    let value = params[k];
                    k += 1;
                    match l.vars.get(s) {
                        Some((var, _)) => l.b.def_var(*var, value),
                        None => {
                            let v = if repr == Repr::F64 {
                                V::F(value)
                            } else {
                                V::I(value)
                            };
                            let addr = l.slot_addr(*s);
                            l.store_value(addr, v);
                            l.frame_used = true;
                        }
                    }
                }
            }
        }
        let borrowed = l.borrowed_params.clone();
        l.declare_borrowed(&borrows.vars);
        let ret_block = l.b.create_block();
        l.value_params(ret_block, sig.ret, sig.ret_agg.as_ref());
        let ret_agg = sig.ret_agg.as_ref().map(|agg| l.agg_ptr(agg));
        l.returns.push(ReturnTarget {
            block: ret_block,
            repr: sig.ret,
            out: ret_out,
            agg: ret_agg,
        });
        l.know_ranges(&function.body, ranges::Body::Function(&function.params));
        l.stmts(&function.body);
        // Falling off the end: a procedure returns; a function's body always returns.
        if !l.filled() {
            let a = l.zero_values(sig.ret, sig.ret_agg.as_ref());
            l.b.ins().jump(ret_block, &args(&a));
        }
        let cells = function.cell_slots.clone();
        let frame_used = l.frame_used || !cells.is_empty();
        // The return block.
        l.b.seal_block(ret_block);
        l.b.switch_to_block(ret_block);
        let mut results = l.b.block_params(ret_block).to_vec();
        if sig.ret_agg.is_some() {
            // The leaves go to the caller's buffer.
            let leaves: Vec<V> = results.iter().map(|x| V::I(*x)).collect();
            l.store_leaves(params[2], &leaves);
            results.clear();
        }
        let droppable = match frame_used {
            true => droppable_slots(function, &reprs),
            false => Vec::new(),
        };
        if frame_used {
            l.leave_frame(&borrowed, &droppable);
        }
        l.b.ins().return_(&results);
        // The unwind block.
        let unwind = l.unwind;
        l.b.seal_block(unwind);
        l.b.switch_to_block(unwind);
        if frame_used {
            l.leave_frame(&borrowed, &droppable);
        }
        let z = l.zero(sig.ret).scalars();
        l.b.ins().return_(&z);
        // The frame's initialisation.
        l.b.seal_block(init_point);
        l.b.switch_to_block(init_point);
        if frame_used {
            l.init_frame(n_slots, &cells);
        }
        l.b.ins().jump(body, &[]);
        l.b.seal_block(body);
        if l.c.slots_now() > n_slots {
            return Err("its closure code needs a larger frame".into());
        }
        notes = std::mem::take(&mut l.notes);
        l.b.seal_all_blocks();
        let config = lock(&l.backend).module.target_config();
        l.b.finalize(config);
    }
    let _ = instance;
    define(backend, id, &mut ctx)?;
    Ok(notes)
}

/// Lower the statements `piece` of a unit's top level `whole` into the declared function
/// `id` (`fn(rt, captures, frame, n_slots)`); the notes and the frame size it needs. The
/// register variables are written to the frame at the end when the statements after the
/// piece mention them; for a block returning out of a function, all of them.
pub(super) fn unit(
    compiler: &mut Compiler<'_>,
    backend: &SharedBackend,
    whole: &[Stmt],
    piece: std::ops::Range<usize>,
    result: Option<&Expr>,
    returns_out: bool,
    id: FuncId,
) -> Result<(Vec<String>, usize), String> {
    let (stmts, after) = (&whole[piece.clone()], &whole[piece.end..]);
    let call_conv = lock(backend).call_conv;
    let mut sig = Signature::new(call_conv);
    for _ in 0..4 {
        sig.params.push(AbiParam::new(types::I64));
    }
    let mut ctx = context(backend, sig);
    let mut fbc = FunctionBuilderContext::new();
    let notes;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let params = entry_params(&mut b);
        let (rt, frame, n) = (params[0], params[2], params[3]);
        let mut reprs = slot_reprs(&[], stmts);
        // Slots the result expression reads stay in the frame, where it finds them.
        if let Some(result) = result {
            each_in_expr(
                result,
                &mut |e| {
                    if let ExprKind::Local(s) = e.kind {
                        reprs.remove(&s);
                    }
                },
                &mut |_| {},
            );
        }
        let captures = (params[1], 0);
        let mut l = Lower::new(b, compiler, backend.clone(), rt, frame, n, &reprs, captures);
        l.frame_used = true;
        // A top level compiled in pieces continues from the frame the previous piece left.
        // (scalars and aggregates alike).
        let registers: Vec<Slot> = (l.vars.iter())
            .filter(|(_, (_, repr))| *repr != Repr::Unit)
            .map(|(s, _)| *s)
            .chain(l.avars.keys().copied())
            .collect();
        l.reload(&registers);
        let done = l.b.create_block();
        // A `return` of a block inside a function leaves to the evaluator (`fallback.rs`).
        if !returns_out {
            l.returns.push(ReturnTarget {
                block: done,
                repr: Repr::Unit,
                out: None,
                agg: None,
            });
        }
        let (body, all) = (ranges::Body::of_top_level(returns_out), &whole[..piece.end]);
        l.know_ranges(if returns_out { stmts } else { all }, body);
        for stmt in stmts {
            l.stmt(stmt);
            if let Stmt::Assign(Place::Global(s), _) = stmt {
                l.c.note_defined(*s);
            }
        }
        if !l.filled() {
            l.b.ins().jump(done, &[]);
        }
        l.b.seal_block(done);
        l.b.switch_to_block(done);
        let read_after = match (!returns_out).then_some(after) {
            Some(after) => l.read_before_assigned(after),
            None => l.held_slots(),
        };
        l.spill(&read_after);
        l.b.ins().return_(&[]);
        // An error ends the unit, and nothing reads its frame's slots after: the unwind block
        // spills nothing (so the many paths to it carry no register values).
        let unwind = l.unwind;
        l.b.seal_block(unwind);
        l.b.switch_to_block(unwind);
        l.b.ins().return_(&[]);
        notes = std::mem::take(&mut l.notes);
        l.b.seal_all_blocks();
        let config = lock(&l.backend).module.target_config();
        l.b.finalize(config);
    }
    define(backend, id, &mut ctx)?;
    Ok((notes, compiler.top_level_slots()))
}
