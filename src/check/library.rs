//! The type rules of the library additions: numeric functions, characters,
//! strings, format strings, array functions, standard streams, bitwise operators and
//! membership. The primitives are declared in the table of `prims.rs`; their rules are here.

use std::sync::Arc;

use crate::check::build::{error_expr, int_const, mk, Arg};
use crate::check::error::CheckError;
use crate::check::prims::take;
use crate::check::traits::Behaviour;
use crate::check::unify::promote;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, IndexMode, Prim};
use crate::core::printf;
use crate::syntax::ast::{self, BinOp};
use crate::syntax::span::Span;
use crate::types::ty::{NominalBody, Type};

/// The name of the type of `cstdout`, `cstderr` and files open for writing (declared in the
/// prelude).
pub const OFILE: &str = "ofile";

/// Split a checked pair argument `(x, y)` into its two components. A literal pair gives its
/// items; a value of a pair type is projected (it is evaluated once per component).
pub(crate) fn pair(x: &ir::Expr) -> Option<(ir::Expr, ir::Expr)> {
    match &x.kind {
        ir::ExprKind::Tuple(items) | ir::ExprKind::Array(items) if items.len() == 2 => {
            return Some((items[0].clone(), items[1].clone()))
        }
        _ => {}
    }
    match &x.ty {
        Type::Tuple(cs) if cs.len() == 2 => {
            let field = |i: u32| {
                mk(
                    ir::ExprKind::Field(Box::new(x.clone()), i),
                    cs[i as usize].clone(),
                    x.span,
                )
            };
            Some((field(0), field(1)))
        }
        Type::Array(elem, index) if **index == Type::Unitsum(2) => {
            let element = |i: i64| {
                mk(
                    ir::ExprKind::Index {
                        array: Box::new(x.clone()),
                        index: Box::new(int_const(i, Type::INT, x.span)),
                        mode: IndexMode::Linear,
                    },
                    (**elem).clone(),
                    x.span,
                )
            };
            Some((element(0), element(1)))
        }
        _ => None,
    }
}

fn no_overload(c: &mut Checker, span: Span, message: String, behaviour: &'static str) -> ir::Expr {
    c.error(CheckError::NoOverload {
        span,
        message,
        behaviour,
        help: None,
    });
    error_expr(span)
}

/// Take the pair argument of a primitive written `name (x, y)`.
fn take_pair(
    c: &mut Checker,
    args: &mut [Arg],
    span: Span,
    name: &str,
) -> Option<(ir::Expr, ir::Expr)> {
    let x = take(c, args, 0, None);
    if x.ty == error_type() {
        return None;
    }
    match pair(&x) {
        Some(p) => Some(p),
        None => {
            no_overload(
                c,
                span,
                format!("`{name}` takes a pair `(x, y)`, found `{}`", x.ty),
                "invocable",
            );
            None
        }
    }
}

// ----- numeric functions -----

/// `min (x, y)`, `max (x, y)` for any ordered type.
pub(crate) fn minmax_rule(
    c: &mut Checker,
    name: &str,
    args: &mut [Arg],
    span: Span,
    max: bool,
) -> ir::Expr {
    let Some((x, y)) = take_pair(c, args, span, name) else {
        return error_expr(span);
    };
    let (a, b) = (c.zonk(&x.ty), c.zonk(&y.ty));
    let (x, y, t) = match (&a, &b) {
        (Type::Int(p), Type::Int(q)) => match promote(*p, *q) {
            Some(r) => {
                let rt = Type::Int(r);
                (
                    c.coerce_to(x, &rt, "an argument"),
                    c.coerce_to(y, &rt, "an argument"),
                    rt,
                )
            }
            None => {
                return no_overload(
                    c,
                    span,
                    format!("no `{name}` for `{a}` and `{b}`"),
                    "ordered",
                )
            }
        },
        _ if c.unify(&a, &b) => {
            let t = c.zonk(&a);
            (x, y, t)
        }
        _ => {
            return no_overload(
                c,
                span,
                format!("no `{name}` for `{a}` and `{b}`"),
                "ordered",
            )
        }
    };
    if let Err(lacking) = c.require(&t, Behaviour::Ordered) {
        c.error(lacking.error(span));
        return error_expr(span);
    }
    let prim = if max { Prim::Max } else { Prim::Min };
    mk(ir::ExprKind::Prim(prim, vec![x, y]), t, span)
}

// ----- characters, strings -----

/// The `string` of a char (`string c`, and a char operand of a string operator).
pub(crate) fn char_to_string(x: ir::Expr) -> ir::Expr {
    let span = x.span;
    mk(
        ir::ExprKind::Prim(Prim::CharToStr, vec![x]),
        Type::String,
        span,
    )
}

// ----- format strings -----

/// `f"…"`: the format spec, or E0603 at the literal.
fn format_spec(c: &mut Checker, text: &[u8], span: Span) -> Option<Arc<printf::FormatSpec>> {
    match printf::parse(text) {
        Ok(spec) => Some(Arc::new(spec)),
        Err(e) => {
            c.error(CheckError::FormatConversion {
                span,
                message: e.message,
            });
            None
        }
    }
}

/// The text of a format string as the constant operand of `Prim::Format`.
fn format_text(text: &[u8], span: Span) -> ir::Expr {
    mk(
        ir::ExprKind::Const(ir::Const::Str(Arc::from(text))),
        Type::String,
        span,
    )
}

impl Checker {
    /// `f"…"` as a value: a function of the conversions' argument tuple.
    pub(crate) fn format_value(&mut self, text: &[u8], span: Span) -> ir::Expr {
        let Some(spec) = format_spec(self, text, span) else {
            return error_expr(span);
        };
        let param = spec.param_type();
        let text = format_text(text, span);
        self.synthetic_fun("f\"…\"", param, span, move |_, arg| {
            mk(
                ir::ExprKind::Prim(Prim::Format, vec![text, arg]),
                Type::String,
                span,
            )
        })
    }

    /// `f"…" x`: the format applied directly.
    pub(crate) fn format_apply(
        &mut self,
        text: &[u8],
        head_span: Span,
        mut args: Vec<Arg>,
        span: Span,
    ) -> ir::Expr {
        let Some(spec) = format_spec(self, text, head_span) else {
            for a in args {
                if let Arg::Ast(e) = a {
                    self.expr(e, None);
                }
            }
            return error_expr(span);
        };
        let param = spec.param_type();
        let first = args.remove(0);
        let x = self.arg_expr(first, Some(&param));
        let x = self.coerce_to(x, &param, "the argument of the format string");
        let r = mk(
            ir::ExprKind::Prim(Prim::Format, vec![format_text(text, head_span), x]),
            Type::String,
            span,
        );
        self.call_rest(r, args, span)
    }

    // ----- bitwise operators, membership in strings and arrays -----

    /// `a \& b`, `a \| b`, `a \^ b`, `a << n`, `a >> n`.
    pub(crate) fn bitwise_ir(
        &mut self,
        op: BinOp,
        x: ir::Expr,
        y: ir::Expr,
        a: Type,
        b: Type,
        span: Span,
    ) -> ir::Expr {
        let shift = matches!(op, BinOp::Shl | BinOp::Shr);
        // The entry types the operator: one integer type, unsigned but for the shifts.
        let instance = match (&a, &b) {
            (Type::Int(p), Type::Int(q)) if p == q => {
                crate::check::prims::operator_instance(self, op.symbol(), &[a.clone(), b.clone()])
            }
            _ => None,
        };
        match (&a, &b) {
            (Type::Int(p), Type::Int(q)) if p == q && instance.is_some() => {
                let instance = instance.expect("checked");
                match instance.kernel {
                    Some(kernel) => mk(
                        ir::ExprKind::Prim(kernel, vec![x, y]),
                        instance.result,
                        span,
                    ),
                    None => error_expr(span),
                }
            }
            (Type::Int(p), Type::Int(q)) if p == q => no_overload(
                self,
                span,
                format!(
                    "no `{}` for `{a}`: the bitwise operators take one unsigned type (`uint`, `ulong`, `uvlong`, `size`, `utiny`, `ushort`, `uint8` … `uint64`)",
                    op.symbol()
                ),
                "bitwise",
            ),
            _ => {
                self.error(CheckError::NoOverload {
                    span,
                    message: format!("no `{}` for `{a}` and `{b}`", op.symbol()),
                    behaviour: "bitwise",
                    help: Some(format!(
                        "`{}` takes two operands of one integer type{}; convert one side (e.g. `1u << 3u`)",
                        op.symbol(),
                        if shift { "" } else { " (unsigned)" }
                    )),
                });
                error_expr(span)
            }
        }
    }

    /// `~a` on an unsigned type.
    pub(crate) fn complement_ir(&mut self, x: ir::Expr, span: Span) -> ir::Expr {
        let t = self.zonk(&x.ty);
        // The entry types the operator: an unsigned integer type.
        let instance = match t {
            Type::Int(_) => {
                crate::check::prims::operator_instance(self, "~", std::slice::from_ref(&t))
            }
            _ => None,
        };
        match t {
            Type::Int(_) if instance.as_ref().is_some_and(|i| i.kernel.is_some()) => {
                let instance = instance.expect("checked");
                let kernel = instance.kernel.expect("checked");
                mk(ir::ExprKind::Prim(kernel, vec![x]), instance.result, span)
            }
            t if t == error_type() => error_expr(span),
            t => no_overload(
                self,
                span,
                format!("no `~` for `{t}`: `~` takes an unsigned integer type"),
                "bitwise",
            ),
        }
    }

    /// `e \in a`, `c \in s` and their negations.
    pub(crate) fn membership_ir(
        &mut self,
        op: BinOp,
        x: ir::Expr,
        y: ir::Expr,
        a: Type,
        b: Type,
        span: Span,
    ) -> ir::Expr {
        let test = match (&a, &b) {
            (Type::Char, Type::String) => self.operator_expr(BinOp::In, vec![x, y], span),
            (_, Type::Array(elem, _)) => {
                let elem = (**elem).clone();
                let x = match (&a, &elem) {
                    (Type::Int(p), Type::Int(q)) if p != q => {
                        self.coerce_to(x, &elem, "the element looked for")
                    }
                    _ => {
                        if !self.unify(&a, &elem) {
                            return no_overload(
                                self,
                                span,
                                format!("no `{}` for `{a}` and `{b}`: the array's elements are `{elem}`", op.symbol()),
                                "equality",
                            );
                        }
                        x
                    }
                };
                self.operator_expr(BinOp::In, vec![x, y], span)
            }
            _ => {
                return no_overload(
                    self,
                    span,
                    format!("no `{}` for `{a}` and `{b}`: it tests an element of an array or a char of a string", op.symbol()),
                    "equality",
                )
            }
        };
        if test.ty == error_type() {
            return test;
        }
        if op == BinOp::NotIn {
            mk(ir::ExprKind::Prim(Prim::Not, vec![test]), Type::BOOL, span)
        } else {
            test
        }
    }

    /// `subarray[F, L] a`: `L` elements of `a` from position `F` (fewer near its end).
    pub(crate) fn subarray_apply(
        &mut self,
        targs: &[ast::TypeExpr],
        mut args: Vec<Arg>,
        span: Span,
    ) -> ir::Expr {
        let types: Vec<Type> = targs.iter().map(|t| self.type_expr(t)).collect();
        let first = args.remove(0);
        let a = self.arg_expr(first, None);
        let at = self.zonk(&a.ty);
        if at == error_type() || types.contains(&error_type()) {
            return error_expr(span);
        }
        let (Type::Array(elem, index), [Type::Unitsum(f), Type::Unitsum(l)]) =
            (&at, types.as_slice())
        else {
            return no_overload(
                self,
                span,
                format!("`subarray[F, L] a` takes two unitsums `F`, `L` and an array over a unitsum, found `{at}`"),
                "invocable",
            );
        };
        let Type::Unitsum(n) = **index else {
            return no_overload(
                self,
                span,
                format!("`subarray` takes an array over a unitsum, found `{at}`"),
                "invocable",
            );
        };
        if *f > n {
            self.error(CheckError::UnitsumRange {
                span: targs[0].span,
                k: *f as u128,
                // F ranges over 0 .. N: the unitsum N + 1.
                n: (n + 1).to_string(),
            });
            return error_expr(span);
        }
        let k = (*l).min(n - f);
        let r = crate::check::slice::static_slice(a, elem, *f as usize, k as usize, span);
        self.call_rest(r, args, span)
    }

    /// Is `t` the library's `ofile`?
    pub(crate) fn is_ofile(&mut self, t: &Type) -> bool {
        matches!(t, Type::Nominal(n) if &*n.name == OFILE
            && matches!(n.body(), Some(NominalBody::Opaque { .. })))
            && self.lookup_type(OFILE).as_ref() == Some(t)
    }
}

// ----- array functions -----

fn array_elem(t: &Type) -> Option<Type> {
    match t {
        Type::Array(e, _) => Some((**e).clone()),
        _ => None,
    }
}

fn not_an_array(c: &mut Checker, span: Span, what: &str, t: &Type) -> ir::Expr {
    if *t == error_type() {
        return error_expr(span);
    }
    no_overload(
        c,
        span,
        format!("`{what}` needs an array, found `{t}`"),
        "invocable",
    )
}

/// `unsafe_get (a, i)`: the element at linear position `i : size`.
pub(crate) fn unsafe_get_rule(
    c: &mut Checker,
    name: &str,
    args: &mut [Arg],
    span: Span,
) -> ir::Expr {
    let Some((a, i)) = take_pair(c, args, span, name) else {
        return error_expr(span);
    };
    let Some(elem) = array_elem(&a.ty) else {
        let t = a.ty.clone();
        return not_an_array(c, span, name, &t);
    };
    let context = format!("the position given to `{name}`");
    let i = c.coerce_to(i, &Type::SIZE, &context);
    mk(
        ir::ExprKind::Index {
            array: Box::new(a),
            index: Box::new(i),
            mode: IndexMode::Linear,
        },
        elem,
        span,
    )
}

// ----- standard streams -----

// ----- named forms of the bitwise operators -----

/// `band (a, b)`, `bor`, `bxor`, `shl`, `shr`: the operators as functions of a pair.
pub(crate) fn bit_named_rule(
    c: &mut Checker,
    name: &str,
    args: &mut [Arg],
    span: Span,
    op: BinOp,
) -> ir::Expr {
    let Some((x, y)) = take_pair(c, args, span, name) else {
        return error_expr(span);
    };
    let (a, b) = (c.zonk(&x.ty), c.zonk(&y.ty));
    c.bitwise_ir(op, x, y, a, b, span)
}
