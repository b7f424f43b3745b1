//! Expressions of native types: constants, variables, operators, conditions, compact codes,
//! array elements (by `element.rs`'s paths), direct calls and inlined bodies (strings' bytes
//! are `chars.rs`'s, varrays' elements `varray.rs`'s). Anything else is a fallback piece.

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, Block, InstBuilder, Value as ClValue,
};

use crate::core::ir::{
    ArithOp, CmpOp, CoerceKind, Const, Expr, ExprKind, MathFn, Place, Prim, VarrayOp, WorldOp,
};
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::runtime::{Helper, Site};
use super::agg::constant_component;
use super::element::ElementPath;
use super::{args, flags, Lower, V};
use crate::eval::array::Shape;
use crate::eval::native::{Agg, Repr};

/// Is a value of `ty` compared unsigned (`uint64`-like integers and compact codes)?
fn unsigned(ty: &Type) -> bool {
    match ty {
        Type::Int(ity) => !ity.signed() && ity.bits() == 64,
        Type::Char => false,
        _ => true,
    }
}

pub(super) fn int_cc(op: CmpOp, unsigned: bool) -> IntCC {
    match (op, unsigned) {
        (CmpOp::Eq, _) => IntCC::Equal,
        (CmpOp::Ne, _) => IntCC::NotEqual,
        (CmpOp::Lt, false) => IntCC::SignedLessThan,
        (CmpOp::Le, false) => IntCC::SignedLessThanOrEqual,
        (CmpOp::Gt, false) => IntCC::SignedGreaterThan,
        (CmpOp::Ge, false) => IntCC::SignedGreaterThanOrEqual,
        (CmpOp::Lt, true) => IntCC::UnsignedLessThan,
        (CmpOp::Le, true) => IntCC::UnsignedLessThanOrEqual,
        (CmpOp::Gt, true) => IntCC::UnsignedGreaterThan,
        (CmpOp::Ge, true) => IntCC::UnsignedGreaterThanOrEqual,
    }
}

fn float_cc(op: CmpOp) -> FloatCC {
    match op {
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::NotEqual,
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
    }
}

impl Lower<'_, '_, '_> {
    /// Lower an expression of a native type.
    pub(super) fn expr(&mut self, e: &Expr) -> V {
        let Some(repr) = Repr::of(&e.ty) else {
            if let Some(agg) = Agg::of(&e.ty) {
                return self.agg_expr(e, &agg);
            }
            // Not a native type: evaluated for its effects only (a statement's operand).
            self.fallback_expr(e, "a value that is not in registers");
            return V::Unit;
        };
        match &e.kind {
            ExprKind::Const(c) => match (c, repr) {
                (_, Repr::Unit) => V::Unit,
                (Const::Int(i), Repr::I64) => V::I(self.iconst(*i)),
                (Const::Float(x), Repr::F64) => V::F(self.b.ins().f64const(*x)),
                _ => self.fallback_expr(e, "a constant"),
            },
            ExprKind::Zero => self.zero(repr),
            // Moving a value out of a register is reading it.
            ExprKind::Take(s) => {
                let read = Expr {
                    kind: ExprKind::Local(*s),
                    ..e.clone()
                };
                self.expr(&read)
            }
            ExprKind::Local(s) => match self.vars.get(s) {
                Some((var, r)) => {
                    let v = self.b.use_var(*var);
                    match r {
                        Repr::F64 => V::F(v),
                        _ => V::I(v),
                    }
                }
                None if repr == Repr::Unit => V::Unit,
                None => self.fallback_expr(e, "a variable kept in the frame"),
            },
            ExprKind::Global(s) => self.global_read(*s, &e.ty, e.span, repr),
            ExprKind::Capture(i) => self.capture_read(e, *i, repr),
            ExprKind::LocalCell(s) => self.cell_read(Place::LocalCell(*s), repr),
            ExprKind::CaptureCell(i) if self.cell_place(Place::CaptureCell(*i)) => {
                self.cell_read(Place::CaptureCell(*i), repr)
            }
            ExprKind::Prim(p, a) => self.prim(p, a, e, repr),
            ExprKind::If(c, t, f) => {
                if let Some(v) = self.if_value_as_select(c, t, f, repr) {
                    return v;
                }
                let join = self.join_block(repr, None);
                self.lower_if((c, t, f), join, |l, arm| l.expr(arm).scalars());
                self.joined(join, repr, None)
            }
            ExprKind::And(x, y) | ExprKind::Or(x, y) => {
                let is_and = matches!(e.kind, ExprKind::And(..));
                if let Some(v) = self.logic_without_branch(x, y, is_and) {
                    return v;
                }
                let x = self.expr(x).int();
                let rhs = self.b.create_block();
                let join = self.b.create_block();
                self.b.append_block_param(join, types::I64);
                if is_and {
                    self.b.ins().brif(x, rhs, &[], join, &args(&[x]));
                } else {
                    self.b.ins().brif(x, join, &args(&[x]), rhs, &[]);
                }
                self.b.seal_block(rhs);
                self.b.switch_to_block(rhs);
                let y = self.expr(y).int();
                self.b.ins().jump(join, &args(&[y]));
                self.b.seal_block(join);
                self.b.switch_to_block(join);
                V::I(self.b.block_params(join)[0])
            }
            ExprKind::CField(inner, i) if Repr::of(&inner.ty) == Some(Repr::I64) => {
                match crate::eval::compact::ProductLayout::small_digit(&inner.ty, *i as usize) {
                    Some((radix, weight)) if radix != 0 && weight != 0 => {
                        let code = self.expr(inner).int();
                        let q = if weight == 1 {
                            code
                        } else {
                            let w = self.iconst(weight as i64);
                            self.b.ins().udiv(code, w)
                        };
                        let r = self.iconst(radix as i64);
                        V::I(self.b.ins().urem(q, r))
                    }
                    _ => self.fallback_expr(e, "a digit of a large compact value"),
                }
            }
            ExprKind::CTuple(parts)
                if repr == Repr::I64
                    && parts.iter().all(|p| Repr::of(&p.ty) == Some(Repr::I64)) =>
            {
                let Some(crate::eval::compact::ProductLayout::Small { weights, .. }) =
                    crate::eval::compact::ProductLayout::of(&e.ty)
                else {
                    return self.fallback_expr(e, "a large compact tuple");
                };
                let mut code = self.iconst(0);
                for (part, weight) in parts.iter().zip(weights) {
                    let v = self.expr(part).int();
                    let term = self.b.ins().imul_imm_s(v, weight as i64);
                    code = self.b.ins().iadd(code, term);
                }
                V::I(code)
            }
            ExprKind::Coerce(CoerceKind::Reinterpret | CoerceKind::Opaque, inner)
                if Repr::of(&inner.ty) == Some(repr) =>
            {
                self.expr(inner)
            }
            ExprKind::Coerce(CoerceKind::DecodeInt, inner)
                if repr == Repr::I64 && self.pure(inner) && matches!(inner.ty, Type::Int(_)) =>
            {
                let size = crate::types::size::size_of(&e.ty).and_then(|n| u64::try_from(n).ok());
                let Some(size) = size.filter(|n| *n > 0) else {
                    return self.fallback_expr(e, "a decode into a large type");
                };
                let v = self.expr(inner).int();
                // A negative signed value is above every size as unsigned.
                let bad =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, v, size as i64);
                self.slow_path_if(bad, e, "a decode out of range", |_| v)
            }
            ExprKind::Coerce(CoerceKind::EncodeInt, inner)
                if repr == Repr::I64
                    && Repr::of(&inner.ty) == Some(Repr::I64)
                    && self.pure(inner) =>
            {
                // A code is below 2^64; it must fit the integer type.
                let Type::Int(ity) = e.ty else {
                    return self.fallback_expr(e, "an encode into a non-integer");
                };
                let v = self.expr(inner).int();
                let max = IntTy::max(ity).min(u64::MAX as i128) as u64;
                // No check when every code of the type fits.
                let fits = crate::types::size::size_of(&inner.ty)
                    .and_then(|n| u64::try_from(n).ok())
                    .is_some_and(|n| n.saturating_sub(1) <= max);
                if max < u64::MAX && !fits {
                    let bad = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThan, v, max as i64);
                    return self.slow_path_if(bad, e, "an encode out of range", |_| v);
                }
                V::I(v)
            }
            ExprKind::TypeSize(ty) if repr == Repr::I64 => {
                match crate::types::size::size_of(ty).and_then(|n| u64::try_from(n).ok()) {
                    Some(n) => V::I(self.iconst(n as i64)),
                    None => self.fallback_expr(e, "the size of a large type"),
                }
            }
            // A scalar field of the object a pointer variable points at, read where it lives.
            ExprKind::Field(..) | ExprKind::Deref(_)
                if super::pointee::read_through(e).is_some() =>
            {
                let (base, fields) = super::pointee::read_through(e).expect("checked");
                self.read_pointee(e, base, fields, repr)
            }
            // A scalar field of a variable held as a value: read in place, not unboxed whole.
            ExprKind::Field(..)
                if matches!(repr, Repr::I64 | Repr::F64) && self.boxed_fields(e).is_some() =>
            {
                let (root, place, fields) = self.boxed_fields(e).expect("checked");
                let at = self
                    .boxed_var_addr(place)
                    .expect("a variable held as a value");
                if let Place::Global(g) = place {
                    self.check_global_set(g, &root.ty, root.span);
                }
                self.leaf_bits(at, fields, repr)
            }
            ExprKind::Field(inner, i)
                if repr != Repr::Unit && Agg::component(&inner.ty, *i as usize).is_some() =>
            {
                let range = Agg::component(&inner.ty, *i as usize).expect("checked");
                self.project(inner, range)
            }
            // A scalar field of a tuple, record or struct not in registers (one holding a
            // string): read from its value in place.
            ExprKind::Field(inner, i)
                if repr != Repr::Unit
                    && Agg::of(&inner.ty).is_none()
                    && crate::eval::array::Shape::of(&inner.ty).is_none() =>
            {
                let (addr, temp) = self.boxed_operand(inner, "a tuple not in registers");
                let v = self.leaf_bits(addr, vec![*i], repr);
                if temp {
                    self.drop_value(addr);
                }
                v
            }
            ExprKind::CInject { tag, arg }
                if repr == Repr::I64
                    && matches!(Repr::of(&arg.ty), Some(Repr::I64 | Repr::Unit)) =>
            {
                match crate::eval::compact::SumLayout::of(&e.ty).and_then(|l| l.small_offsets) {
                    Some(offsets) => {
                        let offset = offsets[*tag as usize] as i64;
                        match self.expr(arg) {
                            V::I(code) => V::I(self.b.ins().iadd_imm_s(code, offset)),
                            _ => V::I(self.iconst(offset)),
                        }
                    }
                    None => self.fallback_expr(e, "an injection into a large compact sum"),
                }
            }
            ExprKind::Index { array, index, .. }
                if repr != Repr::Unit
                    && !self.element_base(array)
                    && constant_component(&array.ty, index).is_some() =>
            {
                let range = constant_component(&array.ty, index).expect("checked");
                self.project(array, range)
            }
            ExprKind::Index { .. } | ExprKind::Deref(_) if repr != Repr::Unit => {
                match ElementPath::of(e) {
                    Some(path) if self.element_path_ok(&path, repr) => {
                        self.element_read(e, &path, repr)
                    }
                    _ => self.fallback_expr(e, "an element of an array not of unboxed scalars"),
                }
            }
            ExprKind::Call { func, args } => self.call(e, func, args, repr),
            ExprKind::Inlined(inlined) => self.inlined(inlined, repr, e),
            ExprKind::Match(scrutinee, arms) => {
                let join = self.join_block(repr, None);
                self.lower_match(scrutinee, arms, join, |l, body| {
                    Some(l.expr(body).scalars())
                });
                self.joined(join, repr, None)
            }
            _ => self.fallback_expr(e, "an expression form not lowered yet"),
        }
    }

    /// The value arriving at `join` (its parameter).
    pub(super) fn join_value(&mut self, join: cranelift_codegen::ir::Block, repr: Repr) -> V {
        match repr {
            Repr::I64 | Repr::Ref => V::I(self.b.block_params(join)[0]),
            Repr::F64 => V::F(self.b.block_params(join)[0]),
            Repr::Unit => V::Unit,
        }
    }

    /// Can `e` be evaluated a second time with the same result and no visible effect (so a
    /// failed check may re-run it on the closure compiler to raise the exact error)?
    pub(super) fn pure(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Zero | ExprKind::TypeSize(_) => true,
            ExprKind::Local(s) | ExprKind::Take(s) => {
                self.vars.contains_key(s) || self.avars.contains_key(s)
            }
            ExprKind::Capture(i) => self.capture_values.contains_key(i),
            ExprKind::Global(_) => Repr::of(&e.ty).is_some(),
            // The length or a byte of the string in a variable, read in place, and the
            // length or bound of a varray variable.
            ExprKind::Prim(Prim::StrLen | Prim::StrIndex, a) => {
                matches!(a[0].kind, ExprKind::Local(_) | ExprKind::Global(_))
                    && a[1..].iter().all(|x| self.pure(x))
            }
            ExprKind::Prim(Prim::Varray(VarrayOp::Len | VarrayOp::MaxLen), a) => {
                matches!(a[..], [ref v] if matches!(v.kind, ExprKind::Local(_) | ExprKind::Global(_)))
            }
            // A body inlined with nothing to run but its value (`len d`).
            ExprKind::Inlined(inlined) => {
                inlined.stmts.is_empty() && inlined.result.as_ref().is_some_and(|r| self.pure(r))
            }
            // A conversion between types in registers (`tiny (i % 100)`, `x.int`).
            ExprKind::Prim(Prim::Convert, a) => {
                Repr::of(&e.ty).is_some()
                    && a.iter().all(|x| Repr::of(&x.ty).is_some() && self.pure(x))
            }
            ExprKind::Prim(p, a) => {
                matches!(
                    p,
                    Prim::IntArith(..)
                        | Prim::FloatArith(..)
                        | Prim::Compare(_)
                        | Prim::Not
                        | Prim::Widen
                        | Prim::FloatNeg
                        | Prim::IntNeg(_)
                        | Prim::IntBit(..)
                        | Prim::IntCompl(_)
                        | Prim::IntAbs(_)
                        | Prim::IntSgn(_)
                        | Prim::Min
                        | Prim::Max
                        | Prim::Ord
                        | Prim::CharCase(_)
                        | Prim::CharIs(_)
                ) && a.iter().all(|x| self.pure(x))
            }
            ExprKind::If(a, b, c) => self.pure(a) && self.pure(b) && self.pure(c),
            ExprKind::And(a, b) | ExprKind::Or(a, b) => self.pure(a) && self.pure(b),
            ExprKind::CField(a, _) => self.pure(a),
            ExprKind::CTuple(parts) | ExprKind::Tuple(parts) => parts.iter().all(|p| self.pure(p)),
            ExprKind::Coerce(_, a) => self.pure(a),
            // A field of a value read without effect (an aggregate in registers, what a pointer
            // variable points at).
            ExprKind::Field(a, _) => self.pure(a),
            ExprKind::Deref(p) => matches!(
                p.kind,
                ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Capture(_)
            ),
            ExprKind::Index { array, index, .. } => {
                matches!(
                    array.kind,
                    ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Index { .. }
                ) && (matches!(array.kind, ExprKind::Local(_) | ExprKind::Global(_))
                    || self.pure(array))
                    && self.pure(index)
            }
            _ => false,
        }
    }

    /// The integer value of `e`: when `bad`, computed by the closure compiler (which raises
    /// the exact error), else by `fast`. `e` must be pure, and its value an integer. Should
    /// the closure compiler find the value valid after all, the program goes on with it.
    pub(super) fn slow_path_if(
        &mut self,
        bad: ClValue,
        e: &Expr,
        why: &str,
        fast: impl FnOnce(&mut Self) -> ClValue,
    ) -> V {
        let join = self.b.create_block();
        let value = self.b.append_block_param(join, types::I64);
        let next = self.cold_if(bad);
        let notes = self.notes.len();
        let slow = self.fallback_expr(e, why).int();
        self.notes.truncate(notes);
        self.b.ins().jump(join, &super::args(&[slow]));
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        let v = fast(self);
        self.b.ins().jump(join, &super::args(&[v]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        V::I(value)
    }

    /// A read of global `s`.
    fn global_read(&mut self, s: u32, ty: &Type, span: Span, repr: Repr) -> V {
        if repr == Repr::Unit {
            return V::Unit;
        }
        if let Some(v) = self.promoted_read(s, Some(span)) {
            return v;
        }
        self.check_global_set(s, ty, span);
        if let Some(v) = self.constant_global(s, repr) {
            return v;
        }
        let addr = self.global_addr(s);
        self.load_value(addr, repr)
    }

    /// The value of global `s` when it is a `val` of a constant (`core::constants`), as
    /// `repr`: every value it holds is that constant.
    pub(super) fn constant_global(&mut self, s: u32, repr: Repr) -> Option<V> {
        match (self.c.global_constant(s)?, repr) {
            (Const::Int(k), Repr::I64) => {
                let k = *k;
                Some(V::I(self.iconst(k)))
            }
            (Const::Float(x), Repr::F64) => {
                let x = *x;
                Some(V::F(self.b.ins().f64const(x)))
            }
            _ => None,
        }
    }

    /// A primitive with native operands.
    fn prim(&mut self, p: &Prim, a: &[Expr], e: &Expr, repr: Repr) -> V {
        if let (Prim::Print | Prim::Println, [x]) = (p, a) {
            self.print(x, *p == Prim::Println, e.span);
            return V::Unit;
        }
        if let (Prim::Len, [array]) = (p, a) {
            if let (Some(shape), ExprKind::Local(_) | ExprKind::Global(_)) =
                (Shape::of(&array.ty), &array.kind)
            {
                if let (Some(n), Repr::I64) = (shape.n_elements, repr) {
                    return V::I(self.iconst(n as i64));
                }
            }
        }
        if let Some(c) = constant_conversion(e) {
            return V::I(self.iconst(c));
        }
        if let (Prim::StrLen | Prim::StrIndex, [text, index @ ..]) = (p, a) {
            let variable = match text.kind {
                ExprKind::Local(s) => !self.vars.contains_key(&s),
                ExprKind::Global(_) => true,
                _ => false,
            };
            let index_ok = index.iter().all(|i| {
                matches!(i.ty, Type::Int(ity) if ity.signed() || ity.bits() < 64)
                    && self.closed_expr(i, &mut std::collections::HashMap::new())
            });
            let computed = !variable && text.ty == Type::String;
            if (variable || computed) && index_ok && repr == Repr::I64 {
                return self.string_read(text, index.first(), e.span);
            }
        }
        if let Prim::Varray(op) = p {
            if let Some(v) = self.varray_op(e, *op, a) {
                return v;
            }
        }
        if let (Prim::Compare(op), [x, y]) = (p, a) {
            if super::boxed::compared_in_place(&x.ty) {
                return V::I(self.compare_boxed(*op, x, y));
            }
        }
        if let (Prim::Convert, [x]) = (p, a) {
            let number = matches!(e.ty, Type::Int(_) | Type::Double | Type::Float);
            if x.ty == Type::String && number {
                return self.parse_text(x, e, repr, false);
            }
        }
        if let (Prim::Parse(_), [x]) = (p, a) {
            return self.parse_text(x, e, repr, true);
        }
        if let Prim::StrSearch { how, from } = p {
            return self.search_text(*how, *from, a);
        }
        if let (Prim::World(WorldOp::Write(newline)), [_, text]) = (p, a) {
            if text.ty == Type::String {
                return self.write_text(*newline, a, e.span);
            }
        }
        if let Some(x) = a.iter().find(|x| Repr::of(&x.ty).is_none()) {
            // Operands native code computes (aggregates boxed for the kernel), so a global
            // held in registers by a closed loop is read there.
            let native = a.iter().any(|o| self.worth_native(o))
                || a.iter()
                    .all(|o| Repr::of(&o.ty).is_some() || Agg::of(&o.ty).is_some());
            if evaluates_operands_first(p) && (native || matches!(p, Prim::World(_))) {
                return self.kernel(e, a, |args| ExprKind::Prim(p.clone(), args));
            }
            let why = format!("{p:?} of a value of type {} (not in registers)", x.ty);
            return self.fallback_expr(e, &why);
        }
        match (p, a) {
            (Prim::IntArith(op, ity), [x, y]) => {
                let exact = match op {
                    ArithOp::Add | ArithOp::Sub | ArithOp::Mul => {
                        self.arith_in_range(*op, *ity, x, y)
                    }
                    ArithOp::Div | ArithOp::Mod => self.natural_division(x, y),
                };
                let x = self.expr(x).int();
                let y = self.expr(y).int();
                V::I(match (exact, op) {
                    (true, ArithOp::Add) => self.b.ins().iadd(x, y),
                    (true, ArithOp::Sub) => self.b.ins().isub(x, y),
                    (true, ArithOp::Mul) => self.b.ins().imul(x, y),
                    // Both operands non-negative: unsigned division is the same, and cheaper
                    // (a power of two is a shift or a mask).
                    (true, ArithOp::Div) => self.b.ins().udiv(x, y),
                    (true, ArithOp::Mod) => self.b.ins().urem(x, y),
                    (false, _) => self.int_arith(*op, *ity, x, y, e.span),
                })
            }
            (Prim::FloatArith(op, single), [x, y_expr]) if *op != ArithOp::Mod => {
                let x = self.expr(x).int();
                // Dividing by a power of two is multiplying by its reciprocal, which is exact:
                // both round the same real number.
                let reciprocal = match (op, &y_expr.kind) {
                    (ArithOp::Div, ExprKind::Const(Const::Float(k))) => exact_reciprocal(*k),
                    _ => None,
                };
                if let Some(r) = reciprocal {
                    let r = self.b.ins().f64const(r);
                    let product = self.b.ins().fmul(x, r);
                    return V::F(self.round(product, *single));
                }
                let y = self.expr(y_expr).int();
                let r = match op {
                    ArithOp::Add => self.b.ins().fadd(x, y),
                    ArithOp::Sub => self.b.ins().fsub(x, y),
                    ArithOp::Mul => self.b.ins().fmul(x, y),
                    _ => self.b.ins().fdiv(x, y),
                };
                V::F(self.round(r, *single))
            }
            (Prim::FloatNeg, [x]) => {
                let x = self.expr(x).int();
                V::F(self.b.ins().fneg(x))
            }
            (Prim::IntNeg(ity), [x]) if ity.signed() && self.pure(x) => {
                // A constant other than the type's least value negates here.
                if let ExprKind::Const(Const::Int(k)) = x.kind {
                    if i128::from(k) != IntTy::min(*ity) {
                        return V::I(self.iconst(-k));
                    }
                }
                let v = self.expr(x).int();
                let bad = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, v, IntTy::min(*ity) as i64);
                self.slow_path_if(bad, e, "a negation that overflows", |l| l.b.ins().ineg(v))
            }
            (Prim::Compare(op), [x, y]) if !matches!(x.ty, Type::CSum(_)) => {
                let uns = unsigned(&x.ty);
                let xr = Repr::of(&x.ty);
                let xv = self.expr(x).int();
                let yv = self.expr(y).int();
                // Chars compare by their signed byte (as C's `char`).
                let (xv, yv) = if x.ty == Type::Char {
                    (self.signed_byte(xv), self.signed_byte(yv))
                } else {
                    (xv, yv)
                };
                let c = match xr {
                    Some(Repr::F64) => self.b.ins().fcmp(float_cc(*op), xv, yv),
                    Some(Repr::I64) => self.b.ins().icmp(int_cc(*op, uns), xv, yv),
                    _ => {
                        let t = matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge);
                        return V::I(self.iconst(t as i64));
                    }
                };
                V::I(self.b.ins().uextend(types::I64, c))
            }
            (Prim::Not, [x]) => {
                let v = self.expr(x).int();
                V::I(self.b.ins().bxor_imm_s(v, 1))
            }
            (Prim::IntBit(op, _), [x, y])
                if matches!(
                    op,
                    crate::core::ir::BitOp::And
                        | crate::core::ir::BitOp::Or
                        | crate::core::ir::BitOp::Xor
                ) =>
            {
                let x = self.expr(x).int();
                let y = self.expr(y).int();
                V::I(match op {
                    crate::core::ir::BitOp::And => self.b.ins().band(x, y),
                    crate::core::ir::BitOp::Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                })
            }
            (Prim::FloatFn(f, single), [x]) => {
                let x = self.expr(x).int();
                let r = match f {
                    MathFn::Sqrt => self.b.ins().sqrt(x),
                    MathFn::Floor => self.b.ins().floor(x),
                    MathFn::Ceil => self.b.ins().ceil(x),
                    MathFn::Trunc => self.b.ins().trunc(x),
                    MathFn::Abs => self.b.ins().fabs(x),
                    other => {
                        let code = self
                            .b
                            .ins()
                            .iconst(types::I32, super::super::runtime::math_code(*other) as i64);
                        self.call_helper(
                            Helper::Math,
                            &[types::I32, types::F64],
                            &[types::F64],
                            &[code, x],
                        )
                        .expect("math returns a value")
                    }
                };
                V::F(self.round(r, *single))
            }
            (Prim::Atan2(single) | Prim::Pow(single), [x, y]) => {
                let helper = if matches!(p, Prim::Atan2(_)) {
                    Helper::Atan2
                } else {
                    Helper::Pow
                };
                let x = self.expr(x).int();
                let y = self.expr(y).int();
                let r = self
                    .call_helper(helper, &[types::F64, types::F64], &[types::F64], &[x, y])
                    .expect("a math helper returns a value");
                V::F(self.round(r, *single))
            }
            (Prim::Min | Prim::Max, [x, y])
                if repr != Repr::Unit && !matches!(x.ty, Type::CSum(_)) =>
            {
                let uns = unsigned(&x.ty);
                let xv = self.expr(x).int();
                let yv = self.expr(y).int();
                let (cx, cy) = if x.ty == Type::Char {
                    (self.signed_byte(xv), self.signed_byte(yv))
                } else {
                    (xv, yv)
                };
                let less = match repr {
                    Repr::F64 => self.b.ins().fcmp(FloatCC::LessThan, xv, yv),
                    _ => self.b.ins().icmp(int_cc(CmpOp::Lt, uns), cx, cy),
                };
                let r = match p {
                    Prim::Min => self.b.ins().select(less, xv, yv),
                    _ => self.b.ins().select(less, yv, xv),
                };
                match repr {
                    Repr::F64 => V::F(r),
                    _ => V::I(r),
                }
            }
            (Prim::Widen, [x]) => self.expr(x),
            (Prim::Convert, [x]) => self.convert(x, e, repr),
            (Prim::Ord, [x]) => {
                let v = self.expr(x).int();
                V::I(self.signed_byte(v))
            }
            (Prim::CharCase(upper), [x]) => {
                let v = self.expr(x).int();
                V::I(self.char_case(*upper, v))
            }
            (Prim::CharIs(class), [x]) => {
                let v = self.expr(x).int();
                V::I(self.char_is(*class, v))
            }
            _ => self.kernel(e, a, |args| ExprKind::Prim(p.clone(), args)),
        }
    }

    /// The low byte of `v` as a signed value.
    fn signed_byte(&mut self, v: ClValue) -> ClValue {
        let byte = self.b.ins().ireduce(types::I8, v);
        self.b.ins().sextend(types::I64, byte)
    }

    /// `x` rounded to `float` when `single`.
    fn round(&mut self, x: ClValue, single: bool) -> ClValue {
        if single {
            let f = self.b.ins().fdemote(types::F32, x);
            self.b.ins().fpromote(types::F64, f)
        } else {
            x
        }
    }

    /// An explicit scalar conversion.
    fn convert(&mut self, x: &Expr, e: &Expr, repr: Repr) -> V {
        match (&x.ty, &e.ty) {
            (Type::Int(from), Type::Double | Type::Float) => {
                let v = self.expr(x).int();
                let f = if !from.signed() && from.bits() == 64 {
                    self.b.ins().fcvt_from_uint(types::F64, v)
                } else {
                    self.b.ins().fcvt_from_sint(types::F64, v)
                };
                V::F(self.round(f, e.ty == Type::Float))
            }
            (Type::Double | Type::Float, Type::Double | Type::Float) => {
                let v = self.expr(x).int();
                V::F(self.round(v, e.ty == Type::Float))
            }
            // A char's value converts to an integer type as a `long` does, as
            // `prims::convert` reads it.
            (Type::Int(_) | Type::Char, Type::Int(to)) => {
                let v = self.expr(x).int();
                let from = match x.ty {
                    Type::Int(from) => from,
                    _ => IntTy::Long,
                };
                let to = *to;
                if from.min() >= IntTy::min(to) && from.max() <= IntTy::max(to) {
                    return V::I(v);
                }
                let bad = self.int_convert_fails(v, from, to);
                let zero = self.iconst(0);
                self.raise_if(
                    bad,
                    Site::Convert(x.ty.clone(), e.ty.clone(), e.span),
                    v,
                    zero,
                );
                V::I(v)
            }
            (Type::Double | Type::Float, Type::Int(to))
                if self.pure(x) && (to.signed() || to.bits() < 64) =>
            {
                let v = self.expr(x).int();
                let t = self.b.ins().trunc(v);
                // In range when min <= t < max + 1 (NaN fails both comparisons). Both bounds
                // are powers of two, exact as doubles (`min - 1` is not, for a 64-bit type).
                let lo = self.b.ins().f64const(IntTy::min(*to) as f64);
                let hi = self.b.ins().f64const(IntTy::max(*to) as f64 + 1.0);
                let above = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, lo);
                let below = self.b.ins().fcmp(FloatCC::LessThan, t, hi);
                let ok = self.b.ins().band(above, below);
                let bad = self.b.ins().bxor_imm_s(ok, 1);
                self.slow_path_if(bad, e, "a conversion out of range", |l| {
                    l.b.ins().fcvt_to_sint_sat(types::I64, t)
                })
            }
            // `char n` is the byte `n mod 256` (the low byte of the bits, for every integer
            // type).
            (Type::Int(_), Type::Char) => {
                let v = self.expr(x).int();
                V::I(self.b.ins().band_imm_u(v, 255))
            }
            _ => {
                let _ = repr;
                self.kernel(e, std::slice::from_ref(x), |args| {
                    ExprKind::Prim(Prim::Convert, args)
                })
            }
        }
    }

    /// Is the integer `v` of type `from` outside the range of `to`?
    pub(super) fn int_convert_fails(&mut self, v: ClValue, from: IntTy, to: IntTy) -> ClValue {
        if !from.signed() && from.bits() == 64 {
            // Non-negative as unsigned: only the upper bound can fail.
            let max = IntTy::max(to).min(u64::MAX as i128) as u64;
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, v, max as i64)
        } else if !to.signed() && to.bits() == 64 {
            self.b.ins().icmp_imm_s(IntCC::SignedLessThan, v, 0)
        } else {
            // A narrow type, `v` exact in 64 bits.
            self.out_of_range(v, to)
        }
    }

    /// Checked integer arithmetic: the machine operation, and the evaluator's kernel in a
    /// cold block when the fast check cannot decide (overflow, division by zero).
    pub(super) fn int_arith(
        &mut self,
        op: ArithOp,
        ity: IntTy,
        x: ClValue,
        y: ClValue,
        span: Span,
    ) -> ClValue {
        let signed = ity.signed();
        if let ArithOp::Add | ArithOp::Sub | ArithOp::Mul = op {
            // Exact: the flag is set exactly when the result is outside `ity`, so the cold
            // block only raises and never rejoins (nothing stays live across its call).
            let (r, bad) = self.overflowing(op, ity, x, y);
            self.raise_if(bad, Site::Overflow(op, ity, span), x, y);
            return r;
        }
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
        let bad = if signed {
            let min = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, x, IntTy::min(ity) as i64);
            let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            let both = self.b.ins().band(min, minus_one);
            self.b.ins().bor(zero, both)
        } else {
            zero
        };
        let hot = self.b.create_block();
        self.b.ins().brif(bad, cold, &[], hot, &[]);
        self.b.seal_block(hot);
        self.b.switch_to_block(hot);
        let r = match (op, signed) {
            (ArithOp::Div, true) => self.b.ins().sdiv(x, y),
            (ArithOp::Div, false) => self.b.ins().udiv(x, y),
            (_, true) => self.b.ins().srem(x, y),
            (_, false) => self.b.ins().urem(x, y),
        };
        self.b.ins().jump(join, &args(&[r]));
        // The kernel decides the cold cases: division by zero fails, `MIN % -1` does not.
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        let site = self.keep(Site::IntArith(op, ity, span));
        let site = self.ptr_const(site);
        let rt = self.rt;
        let v = self
            .call_helper(
                Helper::Fault,
                &[types::I64; 4],
                &[types::I64],
                &[rt, site, x, y],
            )
            .expect("fault returns a value");
        self.check_failed();
        self.b.ins().jump(join, &args(&[v]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// `x op y` for `op` one of `+ - *` on `ity` (operands in range, held in 64 bits), and
    /// whether the exact result is outside `ity`.
    fn overflowing(
        &mut self,
        op: ArithOp,
        ity: IntTy,
        x: ClValue,
        y: ClValue,
    ) -> (ClValue, ClValue) {
        if ity.bits() == 64 {
            let ins = self.b.ins();
            return match (op, ity.signed()) {
                (ArithOp::Add, true) => ins.sadd_overflow(x, y),
                (ArithOp::Sub, true) => ins.ssub_overflow(x, y),
                (ArithOp::Mul, true) => ins.smul_overflow(x, y),
                (ArithOp::Add, false) => ins.uadd_overflow(x, y),
                (ArithOp::Sub, false) => ins.usub_overflow(x, y),
                _ => ins.umul_overflow(x, y),
            };
        }
        // Exact in 64 bits, whose result is the value (no extension after).
        let r = match op {
            ArithOp::Add => self.b.ins().iadd(x, y),
            ArithOp::Sub => self.b.ins().isub(x, y),
            _ => self.b.ins().imul(x, y),
        };
        let bad = self.out_of_range(r, ity);
        (r, bad)
    }

    /// Is `r` (computed exactly in 64 bits) outside the range of the narrow type `ity`?
    pub(super) fn out_of_range(&mut self, r: ClValue, ity: IntTy) -> ClValue {
        if ity.signed() {
            // Outside exactly when its low bits sign-extended differ from it: one extension
            // and one comparison, off the path of the result itself.
            let narrow = types::Type::int(ity.bits() as u16).expect("8, 16 or 32 bits");
            let low = self.b.ins().ireduce(narrow, r);
            let back = self.b.ins().sextend(types::I64, low);
            self.b.ins().icmp(IntCC::NotEqual, back, r)
        } else {
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, r, IntTy::max(ity) as i64)
        }
    }

    /// An operation whose kernel is the evaluator's: its operands computed here in order
    /// (see `operands_into`) and passed as values to the node `rebuild` makes of them (read
    /// as captures), compiled once by the closure compiler; the result in `out`.
    pub(super) fn kernel(
        &mut self,
        e: &Expr,
        operands: &[Expr],
        rebuild: impl FnOnce(Vec<Expr>) -> ExprKind,
    ) -> V {
        let repr = Repr::of(&e.ty).unwrap_or(Repr::Unit);
        let out = self.out;
        self.kernel_into(e, operands, rebuild, out);
        self.load_value(out, repr)
    }

    /// `kernel`, its value into the evaluator's value at `out` (which holds a value,
    /// replaced).
    pub(super) fn kernel_into(
        &mut self,
        e: &Expr,
        operands: &[Expr],
        rebuild: impl FnOnce(Vec<Expr>) -> ExprKind,
        out: ClValue,
    ) {
        // Constants stay in place (some kernels read them when compiled, as the format of
        // `Format`); the other operands become captures.
        let computed: Vec<&Expr> = operands
            .iter()
            .filter(|o| !matches!(o.kind, ExprKind::Const(_)))
            .collect();
        let mut k = 0;
        let placeholders = operands
            .iter()
            .map(|o| match o.kind {
                ExprKind::Const(_) => o.clone(),
                _ => {
                    k += 1;
                    Expr {
                        kind: ExprKind::Capture(k as u32 - 1),
                        ty: o.ty.clone(),
                        span: o.span,
                    }
                }
            })
            .collect();
        let node = Expr {
            kind: rebuild(placeholders),
            ty: e.ty.clone(),
            span: e.span,
        };
        let code = self.c.expr(&node);
        let code = self.keep(code);
        let operands = computed;
        let (caps, owned, outer_unwind) = self.operands_into(&operands);
        let code = self.ptr_const(code);
        let count = self.iconst(operands.len() as i64);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::EvalKernel,
                &[types::I64; 5],
                &[types::I32],
                &[rt, code, caps, count, out],
            )
            .expect("eval_kernel returns a status");
        self.branch_unwind_if(status);
        if owned {
            let unwind = self.unwind;
            self.b.seal_block(unwind);
            self.unwind = outer_unwind;
            self.drop_values(caps, operands.len());
        }
    }

    /// Compute `operands` in order into a buffer of evaluator values, its address returned
    /// with whether any of them may own storage (and so must be dropped; until the caller
    /// does, its unwind block drops them, and the third result is the one to restore):
    /// native operands in registers, aggregates boxed, an operation of the evaluator's on such
    /// operands by `kernel_into`, anything else by a fallback piece for that operand alone.
    pub(super) fn operands_into(&mut self, operands: &[&Expr]) -> (ClValue, bool, Block) {
        let size = crate::eval::native::layout::VALUE_SIZE;
        let buffer = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                (operands.len().max(1) * size) as u32,
                3,
            ));
        let caps = self.b.ins().stack_addr(types::I64, buffer, 0);
        let owned = operands.iter().any(|o| Repr::of(&o.ty).is_none());
        if owned {
            // Every value valid (`unit`) before the first operand can fail.
            let unit = self.b.ins().iconst(types::I8, 0);
            for i in 0..operands.len() {
                self.b.ins().store(flags(), unit, caps, (i * size) as i32);
            }
        }
        let outer_unwind = self.unwind;
        if owned {
            let n = operands.len();
            self.unwind = self.side_block(|l| {
                l.drop_values(caps, n);
                l.b.ins().jump(outer_unwind, &[]);
            });
        }
        for (i, o) in operands.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(caps, (i * size) as i64);
            if Repr::of(&o.ty).is_some() {
                let v = self.expr(o);
                self.store_value(at, v);
            } else {
                self.value_into(o, at, "an operand that is not in registers");
            }
        }
        (caps, owned, outer_unwind)
    }

    /// Is computing `e` natively worth a kernel call of its own: a native value (or
    /// aggregate) holding a loop, a call or arithmetic, or an operation over such?
    pub(super) fn worth_native(&self, e: &Expr) -> bool {
        let native = Repr::of(&e.ty).is_some() || Agg::of(&e.ty).is_some();
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Take(_) | ExprKind::Global(_) => {
                false
            }
            ExprKind::Prim(p, _) if super::boxed::text_prim(p) => true,
            ExprKind::Prim(p, a) if !native => {
                evaluates_operands_first(p) && a.iter().any(|o| self.worth_native(o))
            }
            ExprKind::MapLoop { .. } => self.native_map(e) || self.native_filter(e),
            // A function's body inlined for its value (`init`, a user's function ending in a
            // `map`): worth it when its result is, or when it ends in returns (its statements
            // are the work).
            ExprKind::Inlined(inlined) if !native => {
                inlined.result.as_ref().is_none_or(|r| self.worth_native(r))
            }
            _ => native,
        }
    }

    /// Drop the `n` evaluator values at `at`.
    pub(super) fn drop_values(&mut self, at: ClValue, n: usize) {
        let n = self.iconst(n as i64);
        self.call_helper(Helper::DropFrame, &[types::I64, types::I64], &[], &[at, n]);
    }
}

/// Does the evaluator's kernel of `p` compute all its operands, in order, before anything
/// else (so they may be computed first by native code)?
pub(super) fn evaluates_operands_first(p: &Prim) -> bool {
    !matches!(p, Prim::Shaped)
}

/// The value of `e` when it is a conversion of a string constant to a scalar in an integer
/// register that succeeds (`char "a"`): a constant.
pub(super) fn constant_conversion(e: &Expr) -> Option<i64> {
    let ExprKind::Prim(Prim::Convert, a) = &e.kind else {
        return None;
    };
    let ([x], Some(Repr::I64)) = (a.as_slice(), Repr::of(&e.ty)) else {
        return None;
    };
    let ExprKind::Const(Const::Str(bytes)) = &x.kind else {
        return None;
    };
    let value = crate::eval::value::Value::str(bytes);
    match crate::eval::prims::convert(&value, &x.ty, &e.ty) {
        Ok(crate::eval::value::Value::Int(c)) => Some(c),
        _ => None,
    }
}

/// `1 / k` when `k` is a power of two (of either sign) whose reciprocal is a double too, so
/// that `x / k` and `x * (1 / k)` are the same number for every `x`.
fn exact_reciprocal(k: f64) -> Option<f64> {
    let r = 1.0 / k;
    let power_of_two = k.is_normal() && k.abs().to_bits() & ((1u64 << 52) - 1) == 0;
    (power_of_two && r.is_finite() && r != 0.0 && 1.0 / r == k).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::exact_reciprocal;

    #[test]
    fn a_power_of_two_divides_as_its_reciprocal_multiplies() {
        let xs = [
            0.0,
            -0.0,
            1.0,
            -3.75,
            0.1,
            1e308,
            -2.5e-308,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123456789.123,
        ];
        let mut ks: Vec<f64> = (-1022..=1023).map(|e| 2f64.powi(e)).collect();
        ks.extend(ks.clone().iter().map(|k| -k));
        for k in ks {
            let r = exact_reciprocal(k).expect("a power of two");
            for x in xs {
                assert_eq!((x / k).to_bits(), (x * r).to_bits(), "{x} / {k}");
            }
        }
        for k in [3.0, 0.1, 0.0, -0.0, 5e-324, f64::INFINITY, f64::NAN, 1.5] {
            assert_eq!(exact_reciprocal(k), None, "{k}");
        }
    }
}
