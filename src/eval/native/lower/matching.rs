//! `match`, as a statement or an expression. A scrutinee in a register matched by constants,
//! ranges, bindings, wildcards and compact sums' cases is tested by native compares; so is a
//! tuple, record, struct or pair of one type (`int ^ 2`) of scalars held as its leaves in
//! registers, taken apart by tuple patterns, each leaf tested so. Any other
//! scrutinee (a variant, an option, a list, a string, a tuple) is boxed, its value in the frame
//! or in a stack temporary, and is tested in place: a variant's case is read from its
//! allocation and a tuple's parts are addressed where they are (`layout::sum_parts`,
//! `layout::tuple_parts`), scalars compared and bound from their slots, boxed parts bound by a
//! copy; an array of scalars inside such a value (a variant's `double * double`) is unboxed
//! into registers and tested as an aggregate's leaves. What the native test does not cover (a
//! constant string, a compact sum inside a boxed value, a binding in a captured cell, a value
//! of another shape than its type's usual one) goes to the closure compiler's pattern binder (`runtime::match_pattern`), which binds the
//! pattern's variables in the frame; the register variables it bound are read back. Guards
//! and arm bodies are native either way, and a value no arm takes raises R0006 with the value
//! shown.

use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, Value as ClValue};

use crate::core::ir::{Arm, Const, Expr, ExprKind, Pattern, PatternKind, Place, Slot};
use crate::types::Type;

use super::super::layout::{self, VALUE_SIZE};
use super::super::runtime::{Helper, Site};
use super::{args, Lower, V};
use crate::eval::array::Shape;
use crate::eval::compact::SumLayout;
use crate::eval::native::{Agg, Repr};
use crate::eval::value::{ArgForm, LeafRepr, MAX_SUM_PARTS};

/// Where the scrutinee is: a native code, or the address of its boxed value (a stack
/// temporary to drop once an arm is taken, or a frame slot).
#[derive(Clone, Copy)]
enum Scrutinee {
    Code(ClValue, bool),
    /// A tuple, record, struct or small array of scalars as its leaves in registers (an
    /// aggregate value, `V::Agg`).
    Leaves(V),
    Boxed {
        addr: ClValue,
        temp: bool,
    },
}

impl Lower<'_, '_, '_> {
    /// Lower `match scrutinee with arms`: each arm's body is lowered by `body`, which gives the
    /// values to pass to `join` (`None` when the body ended its block, as a `return` does). No
    /// block is left open: the caller goes on at `join`.
    pub(super) fn lower_match<B>(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm<B>],
        join: Block,
        mut body: impl FnMut(&mut Self, &B) -> Option<Vec<ClValue>>,
    ) {
        let on = self.scrutinee(scrutinee, arms);
        // A borrowed parameter matched in place: the parts bound may be borrowed too.
        let borrowing = matches!(on, Scrutinee::Boxed { temp: false, .. })
            && matches!(scrutinee.kind, ExprKind::Local(s) if self.borrowed_params.contains(&s));
        for arm in arms {
            let body_block = self.b.create_block();
            for p in &arm.patterns {
                let next_alt = self.b.create_block();
                match on {
                    Scrutinee::Code(v, unsigned) => {
                        let matched = self.test_code(p, v, unsigned);
                        let bound = self.b.create_block();
                        self.b.ins().brif(matched, bound, &[], next_alt, &[]);
                        self.b.seal_block(bound);
                        self.b.switch_to_block(bound);
                        self.bind_code(p, v);
                    }
                    Scrutinee::Leaves(v) => {
                        let leaves = self.leaves(v);
                        let matched = self.test_leaves(p, &leaves);
                        let bound = self.b.create_block();
                        self.b.ins().brif(matched, bound, &[], next_alt, &[]);
                        self.b.seal_block(bound);
                        self.b.switch_to_block(bound);
                        self.bind_leaves(p, &leaves);
                    }
                    Scrutinee::Boxed { addr, .. } => {
                        self.borrowing = borrowing;
                        self.test_boxed(p, addr, next_alt);
                        self.borrowing = false;
                    }
                }
                match &arm.guard {
                    Some(g) => {
                        let ok = self.expr(g).int();
                        self.b.ins().brif(ok, body_block, &[], next_alt, &[]);
                    }
                    None => {
                        self.b.ins().jump(body_block, &[]);
                    }
                }
                self.b.seal_block(next_alt);
                self.b.switch_to_block(next_alt);
            }
            let next_arm = self.b.create_block();
            self.b.ins().jump(next_arm, &[]);
            self.b.seal_block(body_block);
            self.b.switch_to_block(body_block);
            // The pattern took what it binds: the temporary is not needed any more.
            if let Scrutinee::Boxed { addr, temp: true } = on {
                self.drop_value(addr);
            }
            if let Some(values) = body(self, &arm.body) {
                self.b.ins().jump(join, &args(&values));
            }
            self.b.seal_block(next_arm);
            self.b.switch_to_block(next_arm);
        }
        self.no_match(scrutinee, on);
    }

    /// Evaluate the scrutinee: a native code when every pattern is tested natively, its boxed
    /// value otherwise.
    fn scrutinee<B>(&mut self, scrutinee: &Expr, arms: &[Arm<B>]) -> Scrutinee {
        let repr = Repr::of(&scrutinee.ty);
        let native = repr == Some(Repr::I64)
            && arms
                .iter()
                .all(|arm| arm.patterns.iter().all(|p| self.native_pattern(p)));
        if native {
            let v = self.expr(scrutinee).int();
            return Scrutinee::Code(v, unsigned_codes(&scrutinee.ty));
        }
        let on_leaves = Agg::of(&scrutinee.ty).is_some()
            && arms
                .iter()
                .all(|arm| arm.patterns.iter().all(|p| self.leaves_pattern(p)));
        if on_leaves {
            return Scrutinee::Leaves(self.expr(scrutinee));
        }
        // A variable kept in the frame, or a global, is matched in place (its parts bound by
        // copies), unless a pattern rebinds it or a guard could assign it.
        let alone = |place: Place| {
            !arms.iter().any(|arm| {
                arm.patterns
                    .iter()
                    .any(|p| p.bindings().iter().any(|(bound, _)| *bound == place))
                    || arm.guard.as_ref().is_some_and(|g| !self.pure(g))
            })
        };
        let in_place = match scrutinee.kind {
            ExprKind::Local(s) => alone(Place::Local(s)),
            ExprKind::Global(g) => alone(Place::Global(g)),
            _ => true,
        };
        self.frame_used = true;
        let why = "a scrutinee not in registers";
        if in_place {
            let (addr, temp) = match scrutinee.kind {
                ExprKind::Global(_) => self.read_operand(scrutinee, why),
                _ => self.boxed_operand(scrutinee, why),
            };
            return Scrutinee::Boxed { addr, temp };
        }
        let addr = self.temp_value();
        self.part_into(scrutinee, addr, why);
        Scrutinee::Boxed { addr, temp: true }
    }

    /// Is `p` tested on a native code directly?
    fn native_pattern(&self, p: &Pattern) -> bool {
        match &p.kind {
            PatternKind::Wildcard => true,
            PatternKind::Bind(place) => self.native_var(*place, &p.ty),
            PatternKind::Const(Const::Int(_)) => true,
            PatternKind::Range(Const::Int(_), Const::Int(_)) => true,
            // A compact sum's case: its code range, the argument's code bound by subtraction.
            PatternKind::CInject { arg, .. } => {
                SumLayout::of(&p.ty).is_none_or(|l| l.small_offsets.is_some())
                    && arg.as_deref().is_none_or(|a| match a.kind {
                        PatternKind::Wildcard => true,
                        PatternKind::Bind(place) => self.native_var(place, &a.ty),
                        _ => false,
                    })
            }
            _ => false,
        }
    }

    /// Is `p`, a pattern on an aggregate of scalars or on one of its leaves, tested on the
    /// leaves in registers (`test_leaves`)? Components taken apart by tuple patterns, leaves
    /// tested as `native_pattern` tests a code, and variables in registers bound to a leaf or to
    /// an aggregate.
    fn leaves_pattern(&self, p: &Pattern) -> bool {
        let binds = |place: Place| match Agg::of(&p.ty) {
            Some(_) => matches!(place, Place::Local(s) if self.avars.contains_key(&s)),
            None => self.native_var(place, &p.ty),
        };
        match &p.kind {
            PatternKind::Wildcard => true,
            PatternKind::Bind(place) => binds(*place),
            PatternKind::As(inner, place) => self.leaves_pattern(inner) && binds(*place),
            PatternKind::Tuple(parts) => parts
                .iter()
                .enumerate()
                .all(|(i, part)| Agg::component(&p.ty, i).is_some() && self.leaves_pattern(part)),
            _ => Repr::of(&p.ty) == Some(Repr::I64) && self.native_pattern(p),
        }
    }

    /// Do the leaves `leaves` (of `p`'s type) match the `leaves_pattern` `p`? 1 or 0.
    fn test_leaves(&mut self, p: &Pattern, leaves: &[V]) -> ClValue {
        match &p.kind {
            PatternKind::Wildcard | PatternKind::Bind(_) => self.iconst(1),
            PatternKind::As(inner, _) => self.test_leaves(inner, leaves),
            PatternKind::Tuple(parts) => {
                let mut all = self.iconst(1);
                for (i, part) in parts.iter().enumerate() {
                    let (first, n) = Agg::component(&p.ty, i).expect("checked: a component");
                    let matched = self.test_leaves(part, &leaves[first..first + n]);
                    all = self.b.ins().band(all, matched);
                }
                all
            }
            _ => {
                let v = leaves[0].int();
                self.test_code(p, v, unsigned_codes(&p.ty))
            }
        }
    }

    /// Bind the variables of the `leaves_pattern` `p` to `leaves`, which matched it.
    fn bind_leaves(&mut self, p: &Pattern, leaves: &[V]) {
        let bind = |l: &mut Self, place: Place| match (Agg::of(&p.ty), place) {
            (Some(_), Place::Local(s)) => {
                let v = l.agg_value(leaves.to_vec());
                l.write_agg_var(s, v);
            }
            _ => l.write_var(place, leaves[0]),
        };
        match &p.kind {
            PatternKind::Bind(place) => bind(self, *place),
            PatternKind::As(inner, place) => {
                self.bind_leaves(inner, leaves);
                bind(self, *place);
            }
            PatternKind::Tuple(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    let (first, n) = Agg::component(&p.ty, i).expect("checked: a component");
                    self.bind_leaves(part, &leaves[first..first + n]);
                }
            }
            PatternKind::CInject { .. } => {
                let v = leaves[0].int();
                self.bind_code(p, v);
            }
            _ => {}
        }
    }

    /// The codes of case `tag` of the compact sum `ty`: from the first to the next case's first
    /// (`None`: to the end), as the evaluator's `SumLayout::split` divides them; a unitsum's
    /// case is its one code.
    fn case_codes(ty: &Type, tag: u32) -> (u64, Option<u64>) {
        match SumLayout::of(ty).and_then(|l| l.small_offsets) {
            Some(offsets) => {
                let t = tag as usize;
                (offsets[t], offsets.get(t + 1).copied())
            }
            None => (tag as u64, Some(tag as u64 + 1)),
        }
    }

    /// Does the native code `v` match `p`?
    fn test_code(&mut self, p: &Pattern, v: ClValue, unsigned: bool) -> ClValue {
        match &p.kind {
            PatternKind::Const(Const::Int(c)) => {
                let t = self.b.ins().icmp_imm_s(IntCC::Equal, v, *c);
                self.b.ins().uextend(types::I64, t)
            }
            PatternKind::Range(Const::Int(lo), Const::Int(hi)) => {
                let (ge, le) = if unsigned {
                    (
                        IntCC::UnsignedGreaterThanOrEqual,
                        IntCC::UnsignedLessThanOrEqual,
                    )
                } else {
                    (
                        IntCC::SignedGreaterThanOrEqual,
                        IntCC::SignedLessThanOrEqual,
                    )
                };
                let a = self.b.ins().icmp_imm_s(ge, v, *lo);
                let b = self.b.ins().icmp_imm_s(le, v, *hi);
                let t = self.b.ins().band(a, b);
                self.b.ins().uextend(types::I64, t)
            }
            PatternKind::CInject { tag, .. } => {
                let (first, end) = Self::case_codes(&p.ty, *tag);
                let from =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, v, first as i64);
                let t = match end {
                    Some(end) => {
                        let below = self
                            .b
                            .ins()
                            .icmp_imm_s(IntCC::UnsignedLessThan, v, end as i64);
                        self.b.ins().band(from, below)
                    }
                    None => from,
                };
                self.b.ins().uextend(types::I64, t)
            }
            _ => self.iconst(1),
        }
    }

    /// Bind a natively tested pattern's variable to the code (a compact sum's argument to the
    /// code less its case's first).
    fn bind_code(&mut self, p: &Pattern, v: ClValue) {
        match &p.kind {
            PatternKind::Bind(place) => self.write_var(*place, V::I(v)),
            PatternKind::CInject { tag, arg: Some(a) } => {
                if let PatternKind::Bind(place) = a.kind {
                    let (first, _) = Self::case_codes(&p.ty, *tag);
                    let code = self.b.ins().iadd_imm_s(v, (first as i64).wrapping_neg());
                    self.write_var(place, V::I(code));
                }
            }
            _ => {}
        }
    }

    /// Test the boxed value at `addr` against `p`, binding its variables as the test goes:
    /// lowering goes on in the current block when it matched; `fail` is taken when not.
    fn test_boxed(&mut self, p: &Pattern, addr: ClValue, fail: Block) {
        if !self.binds_natively(p) {
            return self.escape(p, addr, fail);
        }
        match &p.kind {
            PatternKind::Wildcard => {}
            PatternKind::Bind(place) => self.bind_boxed(*place, &p.ty, addr),
            PatternKind::As(inner, place) => {
                self.test_boxed(inner, addr, fail);
                self.bind_boxed(*place, &p.ty, addr);
            }
            PatternKind::Const(c) => match (Repr::of(&p.ty), c) {
                (Some(Repr::I64), Const::Int(k)) => {
                    let v = self.load_value(addr, Repr::I64).int();
                    let same = self.b.ins().icmp_imm_s(IntCC::Equal, v, *k);
                    self.continue_if(same, fail);
                }
                _ => self.escape(p, addr, fail),
            },
            PatternKind::Range(Const::Int(_), Const::Int(_))
                if Repr::of(&p.ty) == Some(Repr::I64) =>
            {
                let v = self.load_value(addr, Repr::I64).int();
                let inside = self.test_code(p, v, unsigned_codes(&p.ty));
                self.continue_if(inside, fail);
            }
            PatternKind::Inject { tag, arg } => match layout::sum_parts() {
                Some(node) => {
                    let is_sum = self.has_tag(addr, layout::TAG_SUM);
                    self.in_shape(p, addr, is_sum, fail, |l| {
                        let at = l.b.ins().load(types::I64, super::flags(), addr, node.word);
                        let case = l.b.ins().uload32(super::flags(), at, node.tag);
                        let same = l.b.ins().icmp_imm_s(IntCC::Equal, case, *tag as i64);
                        l.continue_if(same, fail);
                        let Some(arg) = arg.as_deref() else { return };
                        if matches!(arg.kind, PatternKind::Wildcard) {
                            return;
                        }
                        // The argument is tested where the node holds it: its parts for a
                        // pattern of parts when the node holds it so, else the argument
                        // itself when held whole. A pattern of parts on a node holding its
                        // argument whole goes to the closure compiler; any other pattern on a
                        // node holding its argument as parts is tested on the argument made
                        // again.
                        let form = l.b.ins().uload8(types::I64, super::flags(), at, node.form);
                        let first = l.b.ins().iadd_imm_s(at, node.parts as i64);
                        match held_as_parts(arg) {
                            Some((parts, held)) => {
                                let as_parts =
                                    l.b.ins().icmp_imm_s(IntCC::Equal, form, held as i64);
                                l.in_shape(p, addr, as_parts, fail, |l| {
                                    l.test_parts(parts, first, fail)
                                });
                            }
                            None => {
                                let whole = ArgForm::Whole as i64;
                                let is_whole = l.b.ins().icmp_imm_s(IntCC::Equal, form, whole);
                                l.test_argument(arg, addr, first, is_whole, fail);
                            }
                        }
                    });
                }
                None => self.escape(p, addr, fail),
            },
            PatternKind::Tuple(parts) => match (Shape::of(&p.ty), layout::tuple_parts()) {
                // A tuple: its parts where the tuple's allocation holds them.
                (None, Some(layout)) => {
                    let is_tuple = self.has_tag(addr, layout::TAG_TUPLE);
                    self.in_shape(p, addr, is_tuple, fail, |l| {
                        let at =
                            l.b.ins()
                                .load(types::I64, super::flags(), addr, layout.word);
                        let first = l.b.ins().iadd_imm_s(at, layout.parts as i64);
                        l.test_parts(parts, first, fail);
                    });
                }
                // An array of scalars (a variant's `double * double`): its leaves unboxed
                // into registers and tested there.
                (Some(shape), _) if shape.repr != LeafRepr::Boxed && self.leaves_pattern(p) => {
                    let agg = Agg::of(&p.ty).expect("leaves_pattern: an aggregate");
                    let v = self.unbox_from(addr, &agg);
                    let leaves = self.leaves(v);
                    let matched = self.test_leaves(p, &leaves);
                    self.continue_if(matched, fail);
                    self.bind_leaves(p, &leaves);
                }
                // An array (a tuple of equal types is one) whose elements are boxed leaves:
                // its elements where its buffer holds them.
                (Some(shape), _)
                    if shape.elem_leaves == 1
                        && !shape.elem_is_array
                        && shape.repr == LeafRepr::Boxed =>
                {
                    let first = self
                        .call_helper(Helper::BoxedParts, &[types::I64], &[types::I64], &[addr])
                        .expect("boxed_parts returns an address");
                    let held = self.b.ins().icmp_imm_s(IntCC::NotEqual, first, 0);
                    self.in_shape(p, addr, held, fail, |l| l.test_parts(parts, first, fail));
                }
                _ => self.escape(p, addr, fail),
            },
            _ => self.escape(p, addr, fail),
        }
    }

    /// Can every variable `p` binds be bound from a boxed value natively: a local (in
    /// registers or in the frame), or a global of a scalar or boxed type?
    fn binds_natively(&self, p: &Pattern) -> bool {
        p.bindings().iter().all(|(place, p)| match place {
            Place::Local(_) => true,
            Place::Global(_) => {
                Repr::of(&p.ty).is_some() || crate::eval::native::Agg::of(&p.ty).is_none()
            }
            Place::LocalCell(_) | Place::CaptureCell(_) => false,
        })
    }

    /// Bind `place` to the value at `addr` (of type `ty`): a scalar read from its slot, an
    /// aggregate held in registers unboxed, anything else copied.
    fn bind_boxed(&mut self, place: Place, ty: &Type, addr: ClValue) {
        match place {
            Place::Local(s) => {
                if let Some(&(var, repr)) = self.vars.get(&s) {
                    let v = self.load_value(addr, repr).int();
                    self.b.def_var(var, v);
                } else if let Some((_, agg)) = self.avars.get(&s) {
                    let agg = agg.clone();
                    let v = self.unbox_from(addr, &agg);
                    self.write_agg_var(s, v);
                } else if self.is_borrowed_var(s) {
                    self.bind_borrowed(s, addr);
                } else {
                    self.frame_used = true;
                    let to = self.slot_addr(s);
                    self.copy_value(addr, to);
                }
            }
            Place::Global(g) => match Repr::of(ty) {
                Some(Repr::Unit) => {}
                Some(repr) => {
                    let v = self.load_value(addr, repr);
                    self.write_var(place, v);
                }
                None => {
                    let to = self.global_addr(g);
                    self.copy_value(addr, to);
                }
            },
            Place::LocalCell(_) | Place::CaptureCell(_) => {
                unreachable!("binds_natively admits no captured cell")
            }
        }
    }

    /// Go on in a fresh block when `cond` holds, else to `fail`.
    fn continue_if(&mut self, cond: ClValue, fail: Block) {
        let next = self.b.create_block();
        self.b.ins().brif(cond, next, &[], fail, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// Test the argument of the case at `addr` against `arg`: where the node holds it, at
    /// `first`, when `whole` holds; otherwise on a temporary holding it made again from the
    /// node's parts (dropped whether it matched or not, so what is bound from it is copied).
    fn test_argument(
        &mut self,
        arg: &Pattern,
        addr: ClValue,
        first: ClValue,
        whole: ClValue,
        fail: Block,
    ) {
        let held = self.b.create_block();
        let made = self.b.create_block();
        let made_fail = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(whole, held, &[], made, &[]);
        self.b.seal_block(held);
        self.b.seal_block(made);
        self.b.switch_to_block(held);
        self.test_boxed(arg, first, fail);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(made);
        let temp = self.temp_value();
        self.call_helper(Helper::SumArgument, &[types::I64; 2], &[], &[addr, temp]);
        // What is bound from the temporary is copied, never borrowed: it is dropped below.
        let borrowing = std::mem::replace(&mut self.borrowing, false);
        self.test_boxed(arg, temp, made_fail);
        self.borrowing = borrowing;
        self.drop_value(temp);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(made_fail);
        self.b.switch_to_block(made_fail);
        self.drop_value(temp);
        self.b.ins().jump(fail, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
    }

    /// Test the parts of a tuple pattern against the consecutive values from `first`.
    fn test_parts(&mut self, parts: &[Pattern], first: ClValue, fail: Block) {
        for (i, part) in parts.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(first, (i * VALUE_SIZE) as i64);
            self.test_boxed(part, at, fail);
        }
    }

    /// Is the value at `addr` of the variant of `Value` whose tag is `tag`?
    pub(super) fn has_tag(&mut self, addr: ClValue, tag: u8) -> ClValue {
        let actual = self.b.ins().uload8(types::I64, super::flags(), addr, 0);
        self.b.ins().icmp_imm_s(IntCC::Equal, actual, tag as i64)
    }

    /// Test the value at `addr` with `test` when `shaped_cond` holds (the value has the
    /// representation `p`'s type usually has); a value of another representation goes to the
    /// closure compiler's binder (a cold path). Lowering goes on where both meet.
    fn in_shape(
        &mut self,
        p: &Pattern,
        addr: ClValue,
        shaped_cond: ClValue,
        fail: Block,
        test: impl FnOnce(&mut Self),
    ) {
        let shaped = self.b.create_block();
        let other = self.b.create_block();
        let done = self.b.create_block();
        self.b.set_cold_block(other);
        self.b.ins().brif(shaped_cond, shaped, &[], other, &[]);
        self.b.seal_block(shaped);
        self.b.seal_block(other);
        self.b.switch_to_block(other);
        self.escape(p, addr, fail);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(shaped);
        test(self);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
    }

    /// Test the value at `addr` against `p` with the closure compiler's binder, then read
    /// back the register variables it bound: lowering goes on when it matched.
    fn escape(&mut self, p: &Pattern, addr: ClValue, fail: Block) {
        self.bound_in_slots(&bound_slots(p));
        let matched = self.match_boxed(p, addr);
        let bound = self.registered(bound_slots(p));
        let next = self.b.create_block();
        self.b.ins().brif(matched, next, &[], fail, &[]);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        self.reload(&bound);
    }

    /// Test the boxed value at `addr` against `p` with the closure compiler's binder: 1 when
    /// it matched (its variables bound in the frame), else 0.
    fn match_boxed(&mut self, p: &Pattern, addr: ClValue) -> ClValue {
        let code = self.c.pattern(p);
        let code = self.keep(code) as usize;
        let (rt, frame, n) = (self.rt, self.frame, self.n_slots);
        let code = self.iconst(code as i64);
        let ncaps = self.iconst(self.n_captures as i64);
        let captures = self.captures;
        let status = self
            .call_helper(
                Helper::MatchPattern,
                &[types::I64; 7],
                &[types::I32],
                &[rt, code, frame, n, captures, ncaps, addr],
            )
            .expect("match_pattern returns a status");
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, status, 2);
        self.branch_unwind_if(failed);
        self.b.ins().uextend(types::I64, status)
    }

    /// No arm took the value: raise R0006 showing it (the block ends).
    fn no_match(&mut self, scrutinee: &Expr, on: Scrutinee) {
        let addr = match on {
            Scrutinee::Boxed { addr, .. } => addr,
            Scrutinee::Code(v, _) => {
                let addr = self.temp_value();
                self.store_value(addr, V::I(v));
                addr
            }
            Scrutinee::Leaves(v) => {
                let agg = Agg::of(&scrutinee.ty).expect("checked: an aggregate");
                let addr = self.temp_value();
                self.box_into(addr, &agg, v);
                addr
            }
        };
        let site = Site::NoMatch(scrutinee.ty.clone(), scrutinee.span);
        let zero = self.iconst(0);
        self.raise(site, addr, zero);
    }
}

/// Are the codes of `ty` compared unsigned? Compact codes are; integers and chars compare
/// signed (their bits are sign- or zero-extended to 64).
fn unsigned_codes(ty: &Type) -> bool {
    !matches!(ty, Type::Char | Type::Int(_))
}

/// The local slots a pattern binds.
pub(super) fn bound_slots(p: &Pattern) -> Vec<Slot> {
    p.bindings()
        .into_iter()
        .filter_map(|(place, _)| match place {
            Place::Local(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// The parts of `arg`, a pattern of parts, and the form a case's node holds an argument of
/// its type in (`ArgForm::of`) when that is as parts. `None` when a node holds it whole.
fn held_as_parts(arg: &Pattern) -> Option<(&[Pattern], ArgForm)> {
    let PatternKind::Tuple(parts) = &arg.kind else {
        return None;
    };
    match ArgForm::of(&arg.ty) {
        ArgForm::Whole => None,
        form => (2..=MAX_SUM_PARTS)
            .contains(&parts.len())
            .then_some((&parts[..], form)),
    }
}
