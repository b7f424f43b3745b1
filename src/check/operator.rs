//! Implicit conversions (a value used where another type is expected) and operators: their
//! type rules, and the kernels selected by the types of the operands.

use crate::check::build::{error_expr, mk};
use crate::check::error::CheckError;
use crate::check::traits::{self, Behaviour};
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, ArithOp, Prim};
use crate::syntax::ast::BinOp;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, Type};

impl Checker {
    /// Use `e` where `t` is expected: unify, or insert an explicit widening, or report E0301.
    pub(crate) fn coerce_to(&mut self, e: ir::Expr, t: &Type, context: &str) -> ir::Expr {
        let e = if self.secret.distributed {
            match self.coerce_distribution(e, t, context) {
                Ok(done) => return done,
                Err(e) => e,
            }
        } else {
            e
        };
        match self.assignable(&e.ty, t) {
            Some(false) => {
                let mut e = e;
                e.ty = self.zonk(&e.ty);
                e
            }
            Some(true) => {
                let span = e.span;
                mk(ir::ExprKind::Prim(Prim::Widen, vec![e]), self.zonk(t), span)
            }
            None => {
                let found = self.zonk(&e.ty);
                let expected = self.zonk(t);
                if contains_error(&found) || contains_error(&expected) {
                    return error_expr(e.span);
                }
                // The same data, but a secret where a public value is wanted, or a function
                // of public values where one must take secrets.
                if (found.has_secret() || expected.has_secret())
                    && !crate::check::secret::visibility_fits(&found, &expected)
                    && self
                        .assignable(&found.erase_secret(), &expected.erase_secret())
                        .is_some()
                {
                    let (use_, detail) = Checker::sink_of_context(context);
                    if found.has_secret() {
                        self.secret_error(e.span, use_, detail);
                    } else {
                        // A function of public values given where secrets will be passed.
                        self.error(CheckError::Secret {
                            span: e.span,
                            use_: crate::check::error::SecretUse::Call,
                            what: "what this function is given".into(),
                            origin: None,
                            detail: format!(
                                "a function value with a public parameter (`{found}`, where `{}` is wanted)",
                                expected.with_unknowns_numbered()
                            ),
                            also: None,
                        });
                    }
                    return error_expr(e.span);
                }
                // A read-write pointer where a read-only or write-only one is expected
                // (a subtype): the only subtyping outside function arguments.
                if matches!(
                    (&found, &expected),
                    (Type::Ptr(..), Type::Ptr(..)) | (Type::CPtr(..), Type::CPtr(..))
                ) && crate::types::subtype::is_subtype(&found, &expected)
                {
                    let span = e.span;
                    return mk(ir::ExprKind::Prim(Prim::Upcast, vec![e]), expected, span);
                }
                let help = match (&found, &expected) {
                    (Type::Int(f), Type::Int(x)) => Some(format!(
                        "`{}` is not convertible to `{}` implicitly: only the widenings int8 → int16 → int32 → int64 and int → long → vlong are; convert explicitly with `{}`",
                        f.name(),
                        x.name(),
                        x.name()
                    )),
                    (Type::Int(_), Type::Double | Type::Float) | (Type::Double | Type::Float, Type::Int(_)) => Some(format!(
                        "integers and floating types are not convertible implicitly; convert explicitly with `{expected} x`"
                    )),
                    // Arrays whose sizes are known only when the program runs.
                    (Type::Array(..), Type::Array(..))
                        if (found.has_var() || expected.has_var())
                            && matches!(
                                (
                                    crate::types::size::symbolic_count(&found),
                                    crate::types::size::symbolic_count(&expected),
                                ),
                                (Some(a), Some(b)) if a.may_equal(&b)
                            ) =>
                    {
                        Some(format!(
                            "the sizes may differ when the program runs; a reshape checks that \
                             they are equal: `(…) :>> {expected}`"
                        ))
                    }
                    _ => None,
                };
                self.error(CheckError::Mismatch {
                    span: e.span,
                    expected: expected.to_string(),
                    found: found.to_string(),
                    help,
                    context: context.to_string(),
                });
                error_expr(e.span)
            }
        }
    }

    pub(crate) fn binary_ir(
        &mut self,
        op: BinOp,
        mut x: ir::Expr,
        mut y: ir::Expr,
        span: Span,
    ) -> ir::Expr {
        let mut a = self.zonk(&x.ty);
        let mut b = self.zonk(&y.ty);
        if a == error_type() || b == error_type() {
            return error_expr(span);
        }
        // Visibility: the public operation on the operands' data types, its result
        // narrowed: `type(narrow(V0, V1), promote(D0, D1))`.
        if a.has_secret() || b.has_secret() {
            x.ty = a.erase_secret();
            y.ty = b.erase_secret();
            let mut r = self.binary_ir(op, x, y, span);
            if r.ty == error_type() {
                return r;
            }
            let data = self.zonk(&r.ty);
            r.ty = data.clone().narrow(true);
            let visibility = |t: &Type| if t.has_secret() { "secret" } else { "public" };
            let dtype = match self.unit.derivations.iter().rposition(|(s, _)| *s == span) {
                Some(i) => self.unit.derivations.remove(i).1,
                None => data.to_string(),
            };
            self.unit.derivations.push((
                span,
                format!(
                    "type(narrow({}, {}), {dtype})",
                    visibility(&a),
                    visibility(&b)
                ),
            ));
            return r;
        }
        if let Some(e) = self.opaque_operands(op, &a, &b, span) {
            return e;
        }
        // Membership relates an element to an array (or a char to a string): the operand
        // types differ, so neither takes the other's.
        if matches!(op, BinOp::In | BinOp::NotIn) {
            return self.membership_ir(op, x, y, a, b, span);
        }
        // An operand whose type is still being inferred (a recursive call) takes the
        // type of the other operand.
        match (&a, &b) {
            (Type::Meta(_), Type::Meta(_)) => {
                // Both unknown: the kernel is chosen once the recursive result is inferred; the
                // result is the entry's when its scheme fixes it (a comparison's `bool`).
                self.unify(&a, &b);
                self.unit.recursion_metas = true;
                let ty = crate::check::prims::operator_fixed_result(self, op.symbol())
                    .unwrap_or_else(|| a.clone());
                return mk(
                    ir::ExprKind::Prim(Prim::Unresolved(op), vec![x, y]),
                    ty,
                    span,
                );
            }
            (Type::Meta(_), _) if self.unify(&a, &b) => {
                a = b.clone();
            }
            (_, Type::Meta(_)) if self.unify(&b, &a) => {
                b = a.clone();
            }
            _ => {}
        }
        let arith = match op {
            BinOp::Add => Some(ArithOp::Add),
            BinOp::Sub => Some(ArithOp::Sub),
            BinOp::Mul => Some(ArithOp::Mul),
            BinOp::Div => Some(ArithOp::Div),
            BinOp::Mod => Some(ArithOp::Mod),
            _ => None,
        };
        if let Some(aop) = arith {
            return self.arith(op, aop, x, y, a, b, span);
        }
        match op {
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
                return self.bitwise_ir(op, x, y, a, b, span)
            }
            _ => {}
        }
        // A comparison: integer operands promote, others are of one type.
        let (x, y) = match (&a, &b) {
            (Type::Int(_), Type::Int(_)) => match crate::check::functor::promote(&a, &b) {
                Some(rt) => (
                    self.coerce_to(x, &rt, "a comparison"),
                    self.coerce_to(y, &rt, "a comparison"),
                ),
                None => return self.no_operator(op, &a, &b, span, Behaviour::Ordered),
            },
            _ => {
                if !self.unify(&a, &b) {
                    return self.no_operator(op, &a, &b, span, Behaviour::Ordered);
                }
                (x, y)
            }
        };
        self.operator_expr(op, vec![x, y], span)
    }

    /// `promote` of two operand types (the implicit integer widenings), recorded for `:type -v`.
    fn promote_operands(&mut self, a: &Type, b: &Type, span: Span) -> Option<Type> {
        let r = crate::check::functor::promote(a, b)?;
        let shown = crate::check::functor::Functor::Promote.show(&[a.clone(), b.clone()]);
        self.unit.derivations.push((span, shown));
        Some(r)
    }

    /// The application of operator `op` to operands of their final types, typed by the
    /// primitive table's entry for `op`: its scheme gives the result type and the behaviours
    /// asked of the operands' types, its selector the kernel.
    pub(crate) fn operator_expr(
        &mut self,
        op: BinOp,
        operands: Vec<ir::Expr>,
        span: Span,
    ) -> ir::Expr {
        let types: Vec<Type> = operands.iter().map(|e| self.zonk(&e.ty)).collect();
        if types.contains(&error_type()) {
            return error_expr(span);
        }
        let Some(instance) = crate::check::prims::operator_instance(self, op.symbol(), &types)
        else {
            return self.no_operator(op, &types[0], &types[1], span, Behaviour::Arithmetic);
        };
        for (t, behaviour) in &instance.asks {
            if let Err(lacking) = self.require(t, *behaviour) {
                self.error(lacking.error(span));
                return error_expr(span);
            }
        }
        match instance.kernel {
            Some(kernel) => mk(ir::ExprKind::Prim(kernel, operands), instance.result, span),
            None => self.no_operator(op, &types[0], &types[1], span, Behaviour::Arithmetic),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn arith(
        &mut self,
        op: BinOp,
        aop: ArithOp,
        x: ir::Expr,
        y: ir::Expr,
        a: Type,
        b: Type,
        span: Span,
    ) -> ir::Expr {
        match (&a, &b) {
            (Type::Int(_), Type::Int(_))
            | (Type::Double, Type::Double)
            | (Type::Float, Type::Float)
            | (Type::Natural, Type::Natural) => match self.promote_operands(&a, &b, span) {
                Some(rt) => {
                    let x = self.coerce_to(x, &rt, "an operand");
                    let y = self.coerce_to(y, &rt, "an operand");
                    self.operator_expr(op, vec![x, y], span)
                }
                None => self.no_operator(op, &a, &b, span, Behaviour::Arithmetic),
            },
            (Type::String, Type::String) if aop == ArithOp::Add => {
                self.operator_expr(op, vec![x, y], span)
            }
            (Type::String, Type::Int(_)) if aop == ArithOp::Mul => {
                self.operator_expr(op, vec![x, y], span)
            }
            // Characters and strings: `c * n`, `s + c`, `c + s`, `s + n` (n : int).
            // A char operand is its one-byte string, an `int` added to a string its display
            // form.
            (Type::Char, Type::Int(_)) if aop == ArithOp::Mul => {
                let s = crate::check::library::char_to_string(x);
                self.operator_expr(op, vec![s, y], span)
            }
            (Type::String, Type::Char) if aop == ArithOp::Add => {
                let c = crate::check::library::char_to_string(y);
                self.operator_expr(op, vec![x, c], span)
            }
            (Type::Char, Type::String) if aop == ArithOp::Add => {
                let c = crate::check::library::char_to_string(x);
                self.operator_expr(op, vec![c, y], span)
            }
            (Type::String, Type::Int(IntTy::Int)) if aop == ArithOp::Add => {
                let n = mk(ir::ExprKind::Prim(Prim::Str, vec![y]), Type::String, span);
                self.operator_expr(op, vec![x, n], span)
            }
            (Type::Array(..), Type::Array(..)) if aop == ArithOp::Add => {
                match self.concat_type(&a, &b) {
                    Some(_) => {
                        if let (Type::Array(_, n), Type::Array(_, m)) = (&a, &b) {
                            let shape = crate::check::functor::Functor::UnitsumSum;
                            let shown = shape.show(&[(**n).clone(), (**m).clone()]);
                            self.unit.derivations.push((span, shown));
                        }
                        self.operator_expr(op, vec![x, y], span)
                    }
                    None => self.no_operator(op, &a, &b, span, Behaviour::Arithmetic),
                }
            }
            _ => self.no_operator(op, &a, &b, span, Behaviour::Arithmetic),
        }
    }

    /// `T ^ n` + `T ^ m` = `T ^ (n + m)`; `None` if not both over unitsums of one
    /// element type.
    pub(crate) fn concat_type(&mut self, a: &Type, b: &Type) -> Option<Type> {
        match (a, b) {
            (Type::Array(e1, i1), Type::Array(e2, i2)) => match (&**i1, &**i2) {
                (Type::Unitsum(n), Type::Unitsum(m)) if self.unify(e1, e2) => Some(Type::array(
                    self.zonk(e1),
                    Type::Unitsum(n.checked_add(*m)?),
                )),
                _ => None,
            },
            _ => None,
        }
    }

    fn no_operator(
        &mut self,
        op: BinOp,
        a: &Type,
        b: &Type,
        span: Span,
        behaviour: Behaviour,
    ) -> ir::Expr {
        let help = match (a, b) {
            (Type::Int(_), Type::Double) | (Type::Double, Type::Int(_)) => {
                Some("there is no implicit conversion between integers and doubles: convert one side, e.g. `double n` or `int d`".to_string())
            }
            (Type::Int(x), Type::Int(y)) => Some(format!(
                "`{}` and `{}` do not widen to one another: convert explicitly, e.g. `{}`",
                x.name(),
                y.name(),
                format_args!("x.{}", y.name())
            )),
            // `n + "s"`: a number is not converted to a string implicitly.
            (Type::String, other) | (other, Type::String)
                if op == BinOp::Add && traits::check(other, Behaviour::Printable).is_ok() =>
            {
                let (x, y) = if *a == Type::String {
                    ("s", "x.str")
                } else {
                    ("x.str", "s")
                };
                Some(format!(
                    "`+` joins two strings: convert the `{other}` with `.str`, as in `{x} + {y}`"
                ))
            }
            // `println x + y`: the procedure is applied to `x` first, and `void + y` fails.
            (Type::Unitsum(0), _) => Some(
                "the left operand is `void`, the result of a procedure: `println x + y` applies `println` to `x` first; write `println$ x + y` (`$` applies it to everything after it)"
                    .to_string(),
            ),
            _ => None,
        };
        if a == b {
            if let Err(lacking) = traits::check(a, behaviour) {
                self.error(lacking.error(span));
                return error_expr(span);
            }
        }
        self.error(CheckError::NoOverload {
            span,
            message: format!("no `{}` for `{a}` and `{b}`", op.symbol()),
            behaviour: behaviour.name(),
            help,
        });
        error_expr(span)
    }
}
