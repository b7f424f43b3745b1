//! `match`, as a statement or an expression. A scrutinee in a register matched by constants,
//! ranges, bindings, wildcards and compact sums' cases is tested by native compares. Any other
//! scrutinee (a variant, an option, a list, a string, a tuple) is boxed, its value in
//! the frame or in a stack temporary, and each alternative is tested by the closure compiler's
//! pattern binder (`runtime::match_pattern`), which binds the pattern's variables in the frame;
//! the register variables it bound are read back. Guards and arm bodies are native either way,
//! and a value no arm takes raises R0006 with the value shown.

use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, Value as ClValue};

use crate::core::ir::{Arm, Const, Expr, ExprKind, Pattern, PatternKind, Place, Slot};
use crate::types::Type;

use super::super::runtime::{Helper, Site};
use super::{args, Lower, V};
use crate::eval::compact::SumLayout;
use crate::eval::native::Repr;

/// Where the scrutinee is: a native code, or the address of its boxed value (a stack
/// temporary to drop once an arm is taken, or a frame slot).
#[derive(Clone, Copy)]
enum Scrutinee {
    Code(ClValue, bool),
    Boxed { addr: ClValue, temp: bool },
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
        for arm in arms {
            let body_block = self.b.create_block();
            for p in &arm.patterns {
                let matched = self.test_pattern(p, on);
                let bound = self.b.create_block();
                let next_alt = self.b.create_block();
                self.b.ins().brif(matched, bound, &[], next_alt, &[]);
                self.b.seal_block(bound);
                self.b.switch_to_block(bound);
                match on {
                    Scrutinee::Code(v, _) => self.bind_code(p, v),
                    Scrutinee::Boxed { .. } => {
                        let bound = self.registered(bound_slots(p));
                        self.reload(&bound);
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
            let unsigned = !matches!(scrutinee.ty, Type::Int(ity) if ity.signed() || ity.bits() < 64)
                && !matches!(scrutinee.ty, Type::Char | Type::Int(_));
            let v = self.expr(scrutinee).int();
            return Scrutinee::Code(v, unsigned);
        }
        // A variable kept in the frame is matched in place, unless a pattern rebinds its slot
        // or a guard could assign it.
        let in_place = match scrutinee.kind {
            ExprKind::Local(s) => !arms.iter().any(|arm| {
                arm.patterns.iter().any(|p| bound_slots(p).contains(&s))
                    || arm.guard.as_ref().is_some_and(|g| !self.pure(g))
            }),
            _ => true,
        };
        self.frame_used = true;
        let why = "a scrutinee not in registers";
        if in_place {
            let (addr, temp) = self.boxed_operand(scrutinee, why);
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

    /// Does the scrutinee match `p`? A boxed one is bound in the frame as it is tested.
    fn test_pattern(&mut self, p: &Pattern, on: Scrutinee) -> ClValue {
        let (v, unsigned) = match on {
            Scrutinee::Code(v, unsigned) => (v, unsigned),
            Scrutinee::Boxed { addr, .. } => return self.match_boxed(p, addr),
        };
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
        };
        let site = Site::NoMatch(scrutinee.ty.clone(), scrutinee.span);
        let zero = self.iconst(0);
        self.raise(site, addr, zero);
    }
}

/// The local slots a pattern binds.
pub(super) fn bound_slots(p: &Pattern) -> Vec<Slot> {
    let mut slots = Vec::new();
    let mut patterns = vec![p];
    while let Some(p) = patterns.pop() {
        match &p.kind {
            PatternKind::Bind(Place::Local(s)) => slots.push(*s),
            PatternKind::As(inner, place) => {
                if let Place::Local(s) = place {
                    slots.push(*s);
                }
                patterns.push(inner);
            }
            PatternKind::Tuple(parts) => patterns.extend(parts.iter()),
            PatternKind::Inject { arg: Some(a), .. }
            | PatternKind::CInject { arg: Some(a), .. } => patterns.push(a),
            _ => {}
        }
    }
    slots
}
