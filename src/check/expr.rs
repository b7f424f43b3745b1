//! Expressions (L4): literals, names, tuples, compact values, projections, operators,
//! coercions, conditionals, lambdas.

use std::sync::Arc;

use num_bigint::BigUint;

use crate::check::apply::Arg;
use crate::check::env::{Binding, Frame, FunState, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::stmt::{unit_const, Projection};
use crate::check::traits::{self, Behaviour};
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, ArithOp, Const, IndexMode, Prim};
use crate::syntax::ast::{self, BinOp, ExprKind, IntLit, UnOp};
use crate::syntax::span::Span;
use crate::types::size::size_of;
use crate::types::ty::{IntTy, NominalBody, Type};

/// Expressions nested deeper than this are refused (E0100) rather than risking the stack.
pub const MAX_EXPR_DEPTH: u32 = 100_000;

pub(crate) fn mk(kind: ir::ExprKind, ty: Type, span: Span) -> ir::Expr {
    ir::Expr { kind, ty, span }
}

/// The value of summand `tag` of the sum type `t` (compact or plain) with argument `arg`.
fn injection(compact: bool, tag: u32, arg: ir::Expr, t: Type, span: Span) -> ir::Expr {
    let arg = Box::new(arg);
    let kind = if compact {
        ir::ExprKind::CInject { tag, arg }
    } else {
        ir::ExprKind::Inject { tag, arg }
    };
    mk(kind, t, span)
}

pub(crate) fn int_const(v: i64, ty: Type, span: Span) -> ir::Expr {
    mk(ir::ExprKind::Const(Const::Int(v)), ty, span)
}

pub(crate) fn error_expr(span: Span) -> ir::Expr {
    mk(ir::ExprKind::Const(Const::Unit), error_type(), span)
}

/// The integer type of a literal suffix (L1.4); `Err` for an unsupported suffix.
pub(crate) fn suffix_type(suffix: &str) -> Result<IntTy, ()> {
    Ok(match suffix {
        "" | "i" => IntTy::Int,
        "i8" => IntTy::I8,
        "i16" => IntTy::I16,
        "i32" => IntTy::I32,
        "i64" => IntTy::I64,
        "u" | "ui" | "iu" => IntTy::UInt,
        "u8" => IntTy::U8,
        "u16" => IntTy::U16,
        "u32" => IntTy::U32,
        "u64" => IntTy::U64,
        "l" => IntTy::Long,
        "ul" | "lu" => IntTy::ULong,
        "v" | "ll" => IntTy::VLong,
        "uv" | "ull" | "llu" => IntTy::UVLong,
        "uz" | "zu" => IntTy::Size,
        "t" => IntTy::Tiny,
        "ut" | "tu" => IntTy::UTiny,
        "s" => IntTy::Short,
        "us" | "su" => IntTy::UShort,
        _ => return Err(()),
    })
}

impl Checker {
    pub(crate) fn expr(&mut self, e: &ast::Expr, expected: Option<&Type>) -> ir::Expr {
        // Deeply nested expressions recurse deeply (here and in the evaluator): grow the stack
        // on the heap when it runs low, and refuse absurd nesting with a diagnostic.
        if self.unit.depth >= MAX_EXPR_DEPTH {
            if !self
                .unit
                .errors
                .iter()
                .any(|x| matches!(x, CheckError::TooDeep { .. }))
            {
                self.error(CheckError::TooDeep {
                    span: e.span,
                    limit: MAX_EXPR_DEPTH,
                });
            }
            return error_expr(e.span);
        }
        self.unit.depth += 1;
        let r = stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.expr_node(e, expected));
        self.unit.depth -= 1;
        r
    }

    fn expr_node(&mut self, e: &ast::Expr, expected: Option<&Type>) -> ir::Expr {
        let span = e.span;
        match &e.node {
            ExprKind::Int(lit) => self.int_lit(lit, span),
            ExprKind::Float(f) => {
                if f.single {
                    mk(
                        ir::ExprKind::Const(Const::Float(f.value as f32 as f64)),
                        Type::Float,
                        span,
                    )
                } else {
                    mk(
                        ir::ExprKind::Const(Const::Float(f.value)),
                        Type::Double,
                        span,
                    )
                }
            }
            ExprKind::Str(bytes) => mk(
                ir::ExprKind::Const(Const::Str(Arc::from(bytes.as_slice()))),
                Type::String,
                span,
            ),
            ExprKind::Format(text) => self.format_value(text, span),
            ExprKind::Bool(b) => int_const(*b as i64, Type::BOOL, span),
            ExprKind::Unit => unit_const(span),
            ExprKind::Name(n) => self.name_expr(n, span, expected),
            ExprKind::Qualified(path) => {
                self.type_error(
                    span,
                    format!(
                        "`{}` needs a type argument: `{}[T]`",
                        path.join("::"),
                        path.join("::")
                    ),
                );
                error_expr(span)
            }
            ExprKind::TypeApply(head, targs) => self.type_apply_value(head, targs, span, expected),
            ExprKind::Tuple(items) => {
                let comps: Vec<Option<Type>> = match expected.map(|t| self.zonk(t)) {
                    Some(t) => match t.tuple_components() {
                        Some(cs) if cs.len() == items.len() => cs.into_iter().map(Some).collect(),
                        _ => vec![None; items.len()],
                    },
                    None => vec![None; items.len()],
                };
                let irs: Vec<ir::Expr> = items
                    .iter()
                    .zip(comps.iter())
                    .map(|(x, t)| self.expr(x, t.as_ref()))
                    .collect();
                self.build_tuple(irs, span)
            }
            ExprKind::CTuple(items) => {
                let irs: Vec<ir::Expr> = items.iter().map(|x| self.expr(x, None)).collect();
                let mut tys = Vec::new();
                for (x, ir) in items.iter().zip(irs.iter()) {
                    let t = self.zonk(&ir.ty);
                    if t != error_type() && !traits::has(&t, Behaviour::CompactLinear) {
                        self.error(CheckError::NotCompact {
                            span: x.span,
                            ty: t.to_string(),
                            context: "a component of a compact tuple `\\,`",
                            hint: None,
                        });
                    }
                    tys.push(t);
                }
                let ty = Type::cproduct(tys);
                mk(ir::ExprKind::CTuple(irs), ty, span)
            }
            ExprKind::Record(fields) => self.record_literal(fields, span, expected),
            ExprKind::Apply { .. } => self.apply_expr(e, expected),
            ExprKind::Dot(lhs, rhs) => self.dot_expr(lhs, rhs, span),
            ExprKind::Hash(f) => {
                self.apply_ast_head(f, vec![Arg::Checked(unit_const(span))], span, expected)
            }
            ExprKind::Addr(mode, target) => self.address_expr(*mode, target, span),
            ExprKind::Deref(p) => self.deref_expr(p, span),
            ExprKind::StrIndex(s, i) => {
                let s = self.expr(s, Some(&Type::String));
                let s = self.coerce_to(s, &Type::String, "string indexing");
                let i = self.int_expr(i);
                mk(
                    ir::ExprKind::Prim(Prim::StrIndex, vec![s, i]),
                    Type::Char,
                    span,
                )
            }
            ExprKind::StrSlice(s, a, b) => {
                let s = self.expr(s, Some(&Type::String));
                let s = self.coerce_to(s, &Type::String, "a substring");
                let mut args = vec![s];
                if let Some(a) = a {
                    args.push(self.int_expr(a));
                }
                if let Some(b) = b {
                    args.push(self.int_expr(b));
                }
                mk(
                    ir::ExprKind::Prim(
                        Prim::StrSlice {
                            from: a.is_some(),
                            to: b.is_some(),
                        },
                        args,
                    ),
                    Type::String,
                    span,
                )
            }
            ExprKind::Binary(BinOp::And, a, b) | ExprKind::Binary(BinOp::Or, a, b) => {
                let (x, x_secret) = self.bool_operand(a);
                // Whether the right operand runs depends on the left: when the left is
                // secret, the right must have no effect (issue 14).
                let frame = self.frame;
                let impure_before = std::mem::replace(&mut self.frames[frame].impure, false);
                let (y, y_secret) = self.bool_operand(b);
                let y_impure = self.frames[frame].impure;
                self.frames[frame].impure |= impure_before;
                let and = matches!(e.node, ExprKind::Binary(BinOp::And, ..));
                if x_secret && y_impure {
                    let detail = format!(
                        "whether the right operand of `{}` runs, which has an effect",
                        if and { "and" } else { "or" }
                    );
                    self.secret_error(x.span, crate::check::secret::SecretUse::Branch, detail);
                    return error_expr(span);
                }
                let kind = if and {
                    ir::ExprKind::And(Box::new(x), Box::new(y))
                } else {
                    ir::ExprKind::Or(Box::new(x), Box::new(y))
                };
                mk(kind, Type::BOOL.narrow(x_secret || y_secret), span)
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, None);
                let hint = self.zonk(&x.ty);
                let y = self.expr(b, Some(&hint));
                // A user definition of the operator accepting the operands comes first (L11.21).
                match self.user_operator(op.symbol(), x, y, span) {
                    Ok(call) => call,
                    Err((x, y)) => self.binary_ir(*op, x, y, span),
                }
            }
            ExprKind::BuiltinBinary(op, a, b) => {
                let x = self.expr(a, None);
                let hint = self.zonk(&x.ty);
                let y = self.expr(b, Some(&hint));
                self.binary_ir(*op, x, y, span)
            }
            ExprKind::Unary(UnOp::Not, a) => {
                let (x, secret) = self.bool_operand(a);
                match crate::check::prims::operator_kernel("not", &[Type::BOOL], &Type::BOOL) {
                    Some(kernel) => mk(
                        ir::ExprKind::Prim(kernel, vec![x]),
                        Type::BOOL.narrow(secret),
                        span,
                    ),
                    None => error_expr(span),
                }
            }
            ExprKind::Unary(UnOp::Plus, a) => self.expr(a, expected),
            ExprKind::Unary(UnOp::Compl, a) => {
                let x = self.expr(a, None);
                match self.user_prefix_operator("~", x, span) {
                    Ok(call) => call,
                    Err(x) => self.complement_ir(x, span),
                }
            }
            ExprKind::Unary(UnOp::Neg, a) => {
                let mut x = self.expr(a, expected);
                let t = self.zonk(&x.ty);
                // A secret operand: the public operation, narrowed (issue 14).
                let secret = t.has_secret();
                let t = t.erase_secret();
                x.ty = t.clone();
                let instance =
                    crate::check::prims::operator_instance(self, "neg", std::slice::from_ref(&t));
                match instance.and_then(|i| Some((i.kernel?, i.result))) {
                    Some((kernel, result)) => mk(
                        ir::ExprKind::Prim(kernel, vec![x]),
                        result.narrow(secret),
                        span,
                    ),
                    None => match t {
                        t if t == error_type() => error_expr(span),
                        t if self.opaque_lacks(&t, Behaviour::Arithmetic, span) => error_expr(span),
                        t => {
                            match traits::check(&t, Behaviour::Arithmetic) {
                                Err(lacking) => self.error(lacking.error(span)),
                                Ok(()) => self.error(CheckError::NoOverload {
                                    span,
                                    message: format!("no unary `-` for `{t}`"),
                                    behaviour: "arithmetic",
                                    help: None,
                                }),
                            }
                            error_expr(span)
                        }
                    },
                }
            }
            ExprKind::Caseno(a) => {
                let mut x = self.expr(a, None);
                let t = self.zonk(&x.ty);
                // The case of a secret is secret (issue 14).
                let secret = t.has_secret();
                let t = t.erase_secret();
                x.ty = t.clone();
                let ok = matches!(t, Type::Unitsum(_) | Type::Sum(_) | Type::CSum(_))
                    || matches!(&t, Type::Nominal(n) if matches!(n.body.get(), Some(NominalBody::Variant(_))))
                    || t == error_type();
                if !ok {
                    self.error(CheckError::CasenoNotSum {
                        span: a.span,
                        ty: t.to_string(),
                    });
                    return error_expr(span);
                }
                mk(
                    ir::ExprKind::Prim(Prim::Caseno, vec![x]),
                    Type::INT.narrow(secret),
                    span,
                )
            }
            ExprKind::Case(k, te) => {
                let t = self.type_expr(te);
                self.case_value(k, t, span)
            }
            ExprKind::UnitsumValue(k, te) => {
                let t = self.type_expr(te);
                self.case_value(k, t, span)
            }
            ExprKind::Proj(k, te) => {
                let t = self.type_expr(te);
                let Some(k) = k.value.and_then(|v| u32::try_from(v).ok()) else {
                    self.type_error(span, "projection index out of range");
                    return error_expr(span);
                };
                let lit = ast::Expr::new(
                    ExprKind::Int(IntLit {
                        value: Some(k as u128),
                        suffix: String::new(),
                    }),
                    span,
                );
                self.synthetic_fun("proj", t.clone(), span, |c, param| {
                    c.project(param, &lit, span)
                })
            }
            ExprKind::Aproj(index, te) => {
                let t = self.type_expr(te);
                // Also `aproj i of &(T ^ I)` and of `_pclt<D, T \^ I>` (L11.3).
                let target = t.pointee().map_or(&t, |(_, target)| target);
                if !matches!(target, Type::Array(..) | Type::CArray(..)) && t != error_type() {
                    self.type_error(
                        te.span,
                        format!("`aproj … of T` needs an array type, found `{t}`"),
                    );
                    return error_expr(span);
                }
                let index = (**index).clone();
                self.synthetic_fun("aproj", t, span, |c, param| c.project(param, &index, span))
            }
            ExprKind::OfType(head, te) => {
                // `f of (T)` is `fun (x:T) => f x`: the overload (or constructor) chosen for a
                // `T` argument, as a function value (L11.20).
                let t = self.type_expr(te);
                if t == error_type() {
                    return error_expr(span);
                }
                // `a of T` for a record or struct type with a field `a`: the projection
                // function of that field (L11.9).
                if let ExprKind::Name(field) = &head.node {
                    // Also `a of &T` (L11.3).
                    let target = t.pointee().map_or(&t, |(_, target)| target);
                    if Checker::named_fields(target)
                        .is_some_and(|fs| fs.iter().any(|(f, _)| **f == **field))
                    {
                        let rhs = (**head).clone();
                        return self.synthetic_fun("field", t, span, |c, param| {
                            c.project(param, &rhs, span)
                        });
                    }
                }
                let head = (**head).clone();
                self.synthetic_fun("of", t, span, |c, param| {
                    c.apply_ast_head(&head, vec![Arg::Checked(param)], span, None)
                })
            }
            ExprKind::Component {
                tuple,
                index,
                count,
            } => self.component(tuple, *index, *count, span),
            ExprKind::Ident(te) => {
                let t = self.type_expr(te);
                self.synthetic_fun("ident", t, span, |_, param| param)
            }
            ExprKind::Coerce(inner, te) => {
                let v = self.expr(inner, None);
                let t = self.type_expr(te);
                self.coerce_expr(v, t, span)
            }
            ExprKind::Lambda(def) => self.lambda(def, expected),
            ExprKind::If(branches, otherwise) => {
                let mut checked = Vec::new();
                let mut result_ty: Option<Type> = expected.cloned();
                // A secret branch makes the result secret (issue 14; the conditions are public).
                let mut secret = false;
                for (c, x) in branches {
                    let cond = self.bool_expr(c);
                    let v = self.expr(x, result_ty.as_ref());
                    let v = match &result_ty {
                        Some(t) => self.coerce_branch(v, t, "this branch", &mut secret),
                        None => {
                            result_ty = Some(self.zonk(&v.ty));
                            v
                        }
                    };
                    checked.push((cond, v));
                }
                let t = result_ty.unwrap_or_else(error_type);
                let e = self.expr(otherwise, Some(&t));
                let mut acc = self.coerce_branch(e, &t, "the `else` branch", &mut secret);
                // The expected type may have been an inference variable the branches solved.
                let t = self.zonk(&t).narrow(secret);
                for (cond, v) in checked.into_iter().rev() {
                    acc = mk(
                        ir::ExprKind::If(Box::new(cond), Box::new(v), Box::new(acc)),
                        t.clone(),
                        span,
                    );
                }
                acc
            }
            ExprKind::Match(scrutinee, arms) => {
                let scr = self.expr(scrutinee, None);
                let scr_ty = self.zonk(&scr.ty);
                // Choosing an arm by a secret reveals it (issue 14); one arm without a guard
                // only takes the value apart.
                if (arms.len() > 1 || arms.iter().any(|a| a.guard.is_some()))
                    && !self.require_public(
                        &scr,
                        crate::check::secret::SecretUse::Branch,
                        "which arm of a `match` runs",
                    )
                {
                    return error_expr(span);
                }
                let mut secret = false;
                let mut result_ty: Option<Type> = expected.cloned();
                let mut ir_arms = Vec::new();
                for arm in arms {
                    let saved = self.scope;
                    self.scope = self.new_scope(Some(saved));
                    let patterns = arm
                        .patterns
                        .iter()
                        .map(|p| self.pattern(p, &scr_ty))
                        .collect();
                    let guard = arm.guard.as_ref().map(|g| self.bool_expr(g));
                    let body = self.expr(&arm.body, result_ty.as_ref());
                    let body = match &result_ty {
                        Some(t) => self.coerce_branch(body, t, "this match arm", &mut secret),
                        None => {
                            result_ty = Some(self.zonk(&body.ty));
                            body
                        }
                    };
                    self.scope = saved;
                    ir_arms.push(ir::Arm {
                        patterns,
                        guard,
                        body,
                    });
                }
                let t = result_ty.map_or_else(error_type, |t| self.zonk(&t).narrow(secret));
                mk(ir::ExprKind::Match(Box::new(scr), ir_arms), t, span)
            }
            ExprKind::Error => error_expr(span),
        }
    }

    /// Build a tuple value; a homogeneous tuple is an array (L2.9).
    pub(crate) fn build_tuple(&mut self, irs: Vec<ir::Expr>, span: Span) -> ir::Expr {
        let tys: Vec<Type> = irs.iter().map(|x| self.zonk(&x.ty)).collect();
        let ty = Type::tuple(tys);
        match &ty {
            Type::Array(..) => mk(ir::ExprKind::Array(irs), ty, span),
            _ => mk(ir::ExprKind::Tuple(irs), ty, span),
        }
    }

    pub(crate) fn int_expr(&mut self, e: &ast::Expr) -> ir::Expr {
        let x = self.expr(e, None);
        let t = self.zonk(&x.ty);
        if !matches!(t, Type::Int(_)) && t != error_type() {
            self.type_error(e.span, format!("expected an integer, found `{t}`"));
        }
        x
    }

    pub(crate) fn int_lit(&mut self, lit: &IntLit, span: Span) -> ir::Expr {
        let Ok(it) = suffix_type(&lit.suffix) else {
            self.error(CheckError::LiteralSuffix {
                span,
                suffix: lit.suffix.clone(),
            });
            return error_expr(span);
        };
        match lit.value {
            Some(v) if (v as i128) >= 0 && it.contains(v as i128) => {
                int_const(v as u64 as i64, Type::Int(it), span)
            }
            _ => {
                self.error(CheckError::LiteralRange {
                    span,
                    value: lit
                        .value
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "(huge)".into()),
                    ty: it.name().into(),
                });
                error_expr(span)
            }
        }
    }

    /// Look a value name up through the scope chain.
    pub(crate) fn lookup_value(&self, name: &str) -> Option<Binding> {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some(b) = self.visible_binding(id, name) {
                return Some(b.clone());
            }
            s = self.scopes[id].parent;
        }
        None
    }

    /// The binding of `name` in scope `id`, unless it is a variable whose own initialiser is
    /// being checked (L11.36).
    fn visible_binding(&self, id: usize, name: &str) -> Option<&Binding> {
        let b = self.scopes[id].values.get(name)?;
        if !self.unit.hidden.is_empty()
            && self.unit.hidden.iter().any(|(s, n)| *s == id && n == name)
        {
            return None;
        }
        Some(b)
    }

    /// All overload sets of a name, innermost scope first (L11.32). A variable of that name
    /// ends the search: functions of outer scopes are hidden by it.
    pub(crate) fn lookup_fun_sets(&self, name: &str) -> Vec<Vec<usize>> {
        let mut sets = Vec::new();
        let mut s = Some(self.scope);
        while let Some(id) = s {
            match self.visible_binding(id, name) {
                Some(Binding::Funs(l)) => sets.push(l.clone()),
                Some(_) => break,
                None => {}
            }
            s = self.scopes[id].parent;
        }
        sets
    }

    pub(crate) fn var_expr(&mut self, name: &str, vb: &VarBinding, span: Span) -> ir::Expr {
        let t = self.var_type(name, vb, span);
        if t.has_secret() {
            self.secret.written = true;
            let local = vb.scope >= self.unit.unit_scope;
            self.note_secret_read(name, span, vb.span, local);
        }
        let kind = self.var_access(vb);
        mk(kind, t, span)
    }

    fn name_expr(&mut self, n: &str, span: Span, expected: Option<&Type>) -> ir::Expr {
        match self.lookup_value(n) {
            Some(Binding::Var(vb)) => self.var_expr(n, &vb, span),
            Some(Binding::Funs(_)) => self.fun_value(n, span, expected),
            Some(Binding::Ctor { nominal, index, .. }) => {
                self.ctor_value(&nominal, index, span, expected)
            }
            Some(Binding::Opaque { make, types }) => {
                self.opaque_value(n, make, types, span, expected)
            }
            None => {
                // A primitive of `unit` named alone is applied (`endl;`).
                if self.prim_takes_unit(n) {
                    let unit = mk(ir::ExprKind::Const(ir::Const::Unit), Type::UNIT, span);
                    return self.apply_name(n, span, vec![Arg::Checked(unit)], span, None);
                }
                // A primitive of several argument groups (`val m = map;`): a curried function
                // of its groups.
                if let Some(params) = self.prim_value_groups(n, expected) {
                    return self.curried_prim_value(n, params, Vec::new(), span);
                }
                let expected_param = match expected.map(|t| self.zonk(t)) {
                    Some(Type::Fun(a, _)) => Some((*a).clone()),
                    _ => None,
                };
                // A primitive used as a value: its parameter type from the expected function
                // type, or from its scheme instantiated afresh (`val h = rev;`).
                let param = expected_param.or_else(|| self.prim_value_param(n));
                if let Some(a) = param {
                    if crate::core::prims::is_prim(n)
                        || self.lookup_type(n).is_some()
                        || crate::check::typeexpr::builtin_type(n).is_some()
                    {
                        let name = n.to_string();
                        return self.synthetic_fun(n, a, span, move |c, param| {
                            c.apply_name(&name, span, vec![Arg::Checked(param)], span, None)
                        });
                    }
                }
                if let Some(index) = crate::core::prims::function_index(n) {
                    // Several overloads (or a kernel chosen by the argument's type): the
                    // user says which type they mean.
                    let types: Vec<String> = self
                        .prim_schemes(index)
                        .map(|s| s.iter().map(|s| format!("`{s}`")).collect())
                        .unwrap_or_default();
                    // A concrete overload makes the example; otherwise the user writes one.
                    let example = crate::core::prims::PRIMS[index]
                        .schemes
                        .iter()
                        .find(|s| !s.starts_with('['))
                        .copied()
                        .unwrap_or("TYPE");
                    let help = format!(
                        "`{n}` has the type{} {}: say which, e.g. `val f : {example} = {n};`, or apply it",
                        if types.len() == 1 { "" } else { "s" },
                        types.join(" and "),
                    );
                    self.error(CheckError::Type {
                        span,
                        message: format!("`{n}` used as a value needs a known function type here"),
                        help: Some(help),
                    });
                } else {
                    self.error(CheckError::UndefinedName {
                        name: n.to_string(),
                        span,
                        what: "name",
                        hint: if n.contains('-') {
                            Some("a `-` between letters or digits is part of a name: write `x - 1` for a subtraction".into())
                        } else {
                            crate::check::opaque::conversion_hint(n)
                        },
                    });
                }
                error_expr(span)
            }
        }
    }

    /// A function used as a value (not applied): the unique overload, or the one matching the
    /// expected function type.
    fn fun_value(&mut self, n: &str, span: Span, expected: Option<&Type>) -> ir::Expr {
        let sets = self.lookup_fun_sets(n);
        let candidates: Vec<usize> = sets.into_iter().next().unwrap_or_default();
        let chosen = if candidates.len() == 1 {
            Some(candidates[0])
        } else if let Some(Type::Fun(a, _)) = expected.map(|t| self.zonk(t)) {
            let mut found = None;
            for &c in &candidates {
                let saved = self.metas.clone();
                let targs = self.instantiate_params(&self.funs[c].own_params.clone());
                let g0 = self.funs[c].groups.first().cloned().unwrap_or(Type::UNIT);
                let g0 = g0.subst_vars(&self.funs[c].own_params.clone(), &targs);
                let ok = self.unify(&g0, &a);
                self.metas = saved;
                if ok {
                    found = Some(c);
                    break;
                }
            }
            found
        } else {
            None
        };
        let Some(idx) = chosen else {
            self.type_error(
                span,
                format!("`{n}` is overloaded; apply it, or use it where its type is known"),
            );
            return error_expr(span);
        };
        self.fun_ref(idx, None, span, expected)
    }

    /// A reference to function `idx` as a value, instantiated with explicit type arguments or
    /// by unification with `expected`.
    pub(crate) fn fun_ref(
        &mut self,
        idx: usize,
        explicit: Option<Vec<Type>>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        let ty = self.fun_type_of(idx);
        let sig = self.funs[idx].clone();
        if let Some(holder) = sig.holder {
            let vb = VarBinding {
                loc: holder,
                ty: VarType::Known(ty.clone()),
                mutable: false,
                span,
                decl: None,
                scope: sig.scope,
            };
            let kind = self.var_access(&vb);
            return mk(kind, ty, span);
        }
        let targs = match explicit {
            Some(t) => t,
            None => self.instantiate_params(&sig.own_params),
        };
        let ty = ty.subst_vars(&sig.own_params, &targs);
        if let Some(e) = expected {
            self.unify(&ty, e);
        }
        let mut type_args: Vec<Type> = sig.outer_params.iter().cloned().map(Type::Var).collect();
        for t in &targs {
            let z = self.zonk(t);
            self.no_meta_left(&z, span);
            type_args.push(z);
        }
        self.note_call(idx);
        let outer = sig.outer_params.len();
        if !self.check_requirements(&sig.name, &sig.own_params, &type_args[outer..], span) {
            return error_expr(span);
        }
        let ty = self.zonk(&ty);
        mk(
            ir::ExprKind::MakeFun {
                fun: sig.id,
                type_args,
            },
            ty,
            span,
        )
    }

    /// Record the effects of calling function `idx` (L9.5).
    pub(crate) fn note_call(&mut self, idx: usize) {
        if self.funs[idx].state == FunState::Unchecked {
            self.check_function(idx);
        }
        if !self.funs[idx].pure_ {
            self.note_effect();
        }
    }

    pub(crate) fn note_effect(&mut self) {
        let f = self.frame;
        self.frames[f].impure = true;
    }

    fn ctor_value(
        &mut self,
        nominal: &Arc<crate::types::ty::NominalDef>,
        index: u32,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        // A constant constructor is a value of the variant; any other is a function to it.
        let result = match expected.map(|t| self.zonk(t)) {
            Some(Type::Fun(_, r)) => Some((*r).clone()),
            other => other,
        };
        let ty = self.nominal_instance(nominal, result.as_ref(), span);
        let arg_ty = match &ty {
            Type::Nominal(instance) => match instance.body.get() {
                Some(NominalBody::Variant(cs)) => cs[index as usize].1.clone(),
                _ => None,
            },
            _ => None,
        };
        match arg_ty {
            None => mk(
                ir::ExprKind::Inject {
                    tag: index,
                    arg: Box::new(unit_const(span)),
                },
                ty,
                span,
            ),
            Some(a) => {
                // A constructor of a parametric variant as a function value: its type
                // arguments come from the expected argument type, or are given (`Leaf of (T)`
                // is not needed when the use determines them).
                let (a, ty) = if ty.has_meta() {
                    if let Some(Type::Fun(ea, _)) = expected.map(|t| self.zonk(t)) {
                        self.unify(&a, &ea);
                    }
                    let ty = self.zonk(&ty);
                    if !self.no_meta_left(&ty, span) {
                        return error_expr(span);
                    }
                    (self.zonk(&a), ty)
                } else {
                    (a, ty)
                };
                self.synthetic_fun("ctor", a, span, move |_, param| {
                    mk(
                        ir::ExprKind::Inject {
                            tag: index,
                            arg: Box::new(param),
                        },
                        ty,
                        span,
                    )
                })
            }
        }
    }

    /// `case k of T` and `` `k:n `` (L3.1, L3.4): a value, or an injection function.
    fn case_value(&mut self, k: &IntLit, t: Type, span: Span) -> ir::Expr {
        let Some(kv) = k.value else {
            self.error(CheckError::UnitsumRange {
                span,
                k: u128::MAX,
                n: t.to_string(),
            });
            return error_expr(span);
        };
        match &t {
            Type::Unitsum(n) => {
                if kv >= *n as u128 {
                    self.error(CheckError::UnitsumRange {
                        span,
                        k: kv,
                        n: n.to_string(),
                    });
                    return error_expr(span);
                }
                if t.is_unit() {
                    return unit_const(span);
                }
                int_const(kv as i64, t, span)
            }
            Type::Sum(cs) | Type::CSum(cs) => {
                let compact = matches!(t, Type::CSum(_));
                if kv >= cs.len() as u128 {
                    self.error(CheckError::UnitsumRange {
                        span,
                        k: kv,
                        n: format!("{} summands of `{t}`", cs.len()),
                    });
                    return error_expr(span);
                }
                let tag = kv as u32;
                let summand = cs[tag as usize].clone();
                let build = move |arg: ir::Expr| injection(compact, tag, arg, t.clone(), span);
                if summand.is_unit() {
                    build(unit_const(span))
                } else {
                    self.synthetic_fun("inject", summand, span, move |_, param| build(param))
                }
            }
            t if *t == error_type() => error_expr(span),
            t => {
                self.type_error(
                    span,
                    format!("`case k of T` needs a sum or a unitsum, found `{t}`"),
                );
                error_expr(span)
            }
        }
    }

    /// Apply an injection `case k of T` directly to an argument (no function value needed).
    pub(crate) fn inject_direct(
        &mut self,
        k: &IntLit,
        t: Type,
        arg: ir::Expr,
        span: Span,
    ) -> ir::Expr {
        let (cs, compact) = match &t {
            Type::Sum(cs) => (cs.clone(), false),
            Type::CSum(cs) => (cs.clone(), true),
            _ => {
                let f = self.case_value(k, t, span);
                return self.call_value(f, vec![arg], span);
            }
        };
        let Some(tag) = k
            .value
            .and_then(|v| u32::try_from(v).ok())
            .filter(|v| (*v as usize) < cs.len())
        else {
            self.error(CheckError::UnitsumRange {
                span,
                k: k.value.unwrap_or(u128::MAX),
                n: format!("{} summands of `{t}`", cs.len()),
            });
            return error_expr(span);
        };
        let summand = cs[tag as usize].clone();
        let arg = self.coerce_to(arg, &summand, "the injected value");
        injection(compact, tag, arg, t, span)
    }

    /// Does primitive `name` take `unit` in its first overload (`endl`)?
    fn prim_takes_unit(&mut self, name: &str) -> bool {
        let Some(index) = crate::core::prims::function_index(name) else {
            return false;
        };
        self.prim_schemes(index).is_ok_and(|schemes| {
            schemes
                .first()
                .is_some_and(|s| s.params_and_result().0.first() == Some(&Type::UNIT))
        })
    }

    /// The parameter type of primitive `name` used as a value with no expected type: its one
    /// scheme's parameter, with fresh inference variables (`None` for an overloaded primitive
    /// or one of several arguments).
    fn prim_value_param(&mut self, name: &str) -> Option<Type> {
        let index = crate::core::prims::function_index(name)?;
        if crate::core::prims::PRIMS[index].arity != 1 {
            return None;
        }
        let schemes = self.prim_schemes(index).ok()?;
        let [scheme] = &schemes[..] else {
            return None;
        };
        let (ty, _) = self.instantiate_scheme(scheme);
        match ty {
            Type::Fun(a, _) => Some((*a).clone()),
            _ => None,
        }
    }

    /// The parameter types of the argument groups of a primitive of several groups used as a
    /// value: from the expected function type when it has that many groups, else from the
    /// entry's one overload of that many groups instantiated afresh (inference settles them at
    /// the uses).
    fn prim_value_groups(&mut self, name: &str, expected: Option<&Type>) -> Option<Vec<Type>> {
        let index = crate::core::prims::function_index(name)?;
        let arity = crate::core::prims::PRIMS[index].arity;
        if arity < 2 {
            return None;
        }
        if let Some(t) = expected {
            let (params, _) = crate::check::scheme::curried(&self.zonk(t));
            if params.len() >= arity {
                return Some(params[..arity].to_vec());
            }
        }
        let schemes = self.prim_schemes(index).ok()?;
        let mut fitting = schemes
            .iter()
            .filter(|s| s.params_and_result().0.len() == arity);
        let (Some(scheme), None) = (fitting.next(), fitting.next()) else {
            return None;
        };
        let (ty, _) = self.instantiate_scheme(scheme);
        let (params, _) = crate::check::scheme::curried(&ty);
        Some(params)
    }

    /// `fun p1 => fun p2 => … name p1 p2 …`: one synthetic function per argument group, each
    /// capturing the parameters of the ones around it.
    fn curried_prim_value(
        &mut self,
        name: &str,
        mut params: Vec<Type>,
        mut outer: Vec<VarBinding>,
        span: Span,
    ) -> ir::Expr {
        let param_ty = params.remove(0);
        let name = name.to_string();
        self.synthetic_fun(&name.clone(), param_ty.clone(), span, move |c, param| {
            let ir::ExprKind::Local(slot) = param.kind else {
                return error_expr(span);
            };
            outer.push(VarBinding {
                loc: VarLoc {
                    frame: c.frame,
                    slot,
                    cell: false,
                },
                ty: VarType::Known(param_ty),
                mutable: false,
                span,
                decl: None,
                scope: c.scope,
            });
            if !params.is_empty() {
                return c.curried_prim_value(&name, params, outer, span);
            }
            let args = outer
                .iter()
                .map(|vb| {
                    let VarType::Known(t) = &vb.ty else {
                        unreachable!("parameters have known types")
                    };
                    Arg::Checked(mk(c.var_access(vb), t.clone(), span))
                })
                .collect();
            c.apply_name(&name, span, args, span, None)
        })
    }

    /// A compiler-made function of one parameter (`proj`, `aproj`, `ident`, injections,
    /// constructors, primitives used as values). Its body is built in its own frame, so names
    /// it mentions are captured like in a lambda.
    pub(crate) fn synthetic_fun(
        &mut self,
        name: &str,
        param_ty: Type,
        span: Span,
        body: impl FnOnce(&mut Checker, ir::Expr) -> ir::Expr,
    ) -> ir::Expr {
        let id = self.next_fun;
        self.next_fun += 1;
        let parent = self.frame;
        let mut frame = Frame::new(Some(parent), false);
        frame.type_params = self.frames[parent].type_params.clone();
        self.frames.push(frame);
        let fid = self.frames.len() - 1;
        let saved = (self.scope, self.frame);
        self.scope = self.new_scope(Some(saved.0));
        self.frame = fid;
        let slot = self.frames[fid].alloc();
        let param = mk(ir::ExprKind::Local(slot), param_ty.clone(), span);
        let result = body(self, param);
        let ret = self.zonk(&result.ty);
        let frame = &self.frames[fid];
        let function = ir::Function {
            name: name.to_string(),
            kind: ast::FunKind::Fun,
            span,
            type_params: frame.type_params.clone(),
            params: vec![ir::Pattern {
                kind: ir::PatternKind::Bind(ir::Place::Local(slot)),
                ty: param_ty.clone(),
                span,
            }],
            ret: ret.clone(),
            n_slots: frame.n_slots,
            cell_slots: frame.cell_slots.clone(),
            captures: frame.captures.iter().map(|(_, c)| *c).collect(),
            body: vec![ir::Stmt::Return(Some(result))],
            pure_: traits::pure_function(ast::FunKind::Fun, frame.impure),
        };
        let impure = frame.impure;
        let type_args = function
            .type_params
            .iter()
            .cloned()
            .map(Type::Var)
            .collect();
        self.unit.out_funs.push((id, Arc::new(function)));
        self.scope = saved.0;
        self.frame = saved.1;
        if impure {
            self.note_effect();
        }
        mk(
            ir::ExprKind::MakeFun { fun: id, type_args },
            Type::fun(param_ty, ret),
            span,
        )
    }

    fn lambda(&mut self, def: &ast::FunDef, expected: Option<&Type>) -> ir::Expr {
        let idx = self.new_function(def, "<lambda>");
        if let Some(t) = expected {
            self.narrow_lambda_params(idx, t);
        }
        self.check_function(idx);
        let ty = self.fun_type_of(idx);
        let sig = self.funs[idx].clone();
        let type_args = sig.outer_params.iter().cloned().map(Type::Var).collect();
        if !sig.own_params.is_empty() {
            self.type_error(def.span, "a lambda cannot have type parameters");
        }
        let id = sig.id;
        mk(ir::ExprKind::MakeFun { fun: id, type_args }, ty, def.span)
    }

    /// `Typing::memcount[T]` as a value, or `f[T]` used as a function value.
    fn type_apply_value(
        &mut self,
        head: &ast::Expr,
        targs: &[ast::TypeExpr],
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        match &head.node {
            ExprKind::Qualified(path)
                if path.len() == 2
                    && path[0] == "Typing"
                    && (path[1] == "memcount" || path[1] == "arrayindexcount") =>
            {
                if targs.len() != 1 {
                    self.type_error(span, "`Typing::memcount` takes one type argument");
                    return error_expr(span);
                }
                let t = self.type_expr(&targs[0]);
                if !traits::has(&t, Behaviour::CompactLinear) {
                    if t != error_type() {
                        self.error(CheckError::NotCompact {
                            span: targs[0].span,
                            ty: t.to_string(),
                            context: "the argument of `Typing::memcount`",
                            hint: crate::types::kind::compact_hint(&t),
                        });
                    }
                    return error_expr(span);
                }
                let fits = match size_of(&t) {
                    Some(s) => s <= BigUint::from(u64::MAX),
                    None => true,
                };
                let ty = if fits { Type::SIZE } else { Type::Natural };
                mk(ir::ExprKind::TypeSize(t), ty, span)
            }
            ExprKind::Name(n) => {
                let types: Vec<Type> = targs.iter().map(|t| self.type_expr(t)).collect();
                let sets = self.lookup_fun_sets(n);
                let Some(&idx) = sets.first().and_then(|s| {
                    s.iter()
                        .find(|&&i| self.funs[i].own_params.len() == types.len())
                }) else {
                    self.type_error(
                        span,
                        format!("no function `{n}` with {} type parameters", types.len()),
                    );
                    return error_expr(span);
                };
                if !self.check_kinds(idx, &types, span) {
                    return error_expr(span);
                }
                self.fun_ref(idx, Some(types), span, expected)
            }
            _ => {
                self.type_error(span, "type arguments `[…]` follow a function name");
                error_expr(span)
            }
        }
    }

    /// Check explicit type arguments against the kinds of the type parameters.
    pub(crate) fn check_kinds(&mut self, idx: usize, types: &[Type], span: Span) -> bool {
        let params = self.funs[idx].own_params.clone();
        let mut ok = true;
        for (p, t) in params.iter().zip(types) {
            let k = crate::types::kind::kind_of(t);
            if !k.satisfies(p.kind) && *t != error_type() {
                self.type_error(
                    span,
                    format!(
                        "`{t}` has kind {}, but the type parameter `{}` needs {}",
                        k.name(),
                        p.name,
                        p.kind.name()
                    ),
                );
                ok = false;
            }
        }
        ok
    }

    // -----------------------------------------------------------------------------------------
    // Projections `x.f` (L4.5, L4.8)
    // -----------------------------------------------------------------------------------------

    fn dot_expr(&mut self, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> ir::Expr {
        if let ExprKind::Float(_) = rhs.node {
            self.error(CheckError::Type {
                span: rhs.span,
                message: "`x.1.0` reads `1.0` as a floating literal".into(),
                help: Some("write `x.1 .0` or `(x.1).0`".into()),
            });
            return error_expr(span);
        }
        let l = self.expr(lhs, None);
        let lt = self.zonk(&l.ty);
        if lt == error_type() {
            return error_expr(span);
        }
        if lt.pointee().is_some() {
            return self.pointer_dot(l, rhs, span);
        }
        let errors_before = self.unit.errors.len();
        if let Some(p) = self.projection(&lt, rhs, None) {
            return self.apply_projection(l, p, span);
        }
        // A projection that failed with its own error is not tried as an application too.
        if self.unit.errors.len() > errors_before || self.misspelt_field(&lt, rhs) {
            return error_expr(span);
        }
        // Reverse application: `x.f` is `f x`.
        self.apply_ast_head(rhs, vec![Arg::Checked(l)], span, None)
    }

    pub(crate) fn apply_projection(&mut self, l: ir::Expr, p: Projection, span: Span) -> ir::Expr {
        match p {
            Projection::Field(i, t) => mk(ir::ExprKind::Field(Box::new(l), i), t, span),
            Projection::CField(i, t) => mk(ir::ExprKind::CField(Box::new(l), i), t, span),
            Projection::Index(e, mode, t) => mk(
                ir::ExprKind::Index {
                    array: Box::new(l),
                    index: Box::new(e),
                    mode,
                },
                t,
                span,
            ),
        }
    }

    /// Component `index` of a value destructured as a tuple of `count` components
    /// (L11.14–L11.16): the count must be the value's.
    fn component(&mut self, tuple: &ast::Expr, index: u32, count: u32, span: Span) -> ir::Expr {
        let v = self.expr(tuple, None);
        let t = self.zonk(&v.ty);
        if t == error_type() {
            return error_expr(span);
        }
        let n = match &t {
            Type::Nominal(nd) => match nd.body.get() {
                Some(NominalBody::Struct(fs)) => Some(fs.len()),
                _ => None,
            },
            t => t
                .tuple_components()
                .or_else(|| t.cproduct_components())
                .map(|cs| cs.len()),
        };
        if n != Some(count as usize) {
            if index == 0 {
                self.type_error(
                    tuple.span,
                    format!("this is destructured into {count} components, but its value is `{t}`"),
                );
            }
            return error_expr(span);
        }
        let lit = ast::Expr::new(
            ExprKind::Int(IntLit {
                value: Some(index as u128),
                suffix: String::new(),
            }),
            span,
        );
        self.project(v, &lit, span)
    }

    /// `v.k` for an integer literal `k` on an already checked value.
    pub(crate) fn project(&mut self, v: ir::Expr, lit: &ast::Expr, span: Span) -> ir::Expr {
        let t = self.zonk(&v.ty);
        if t.pointee().is_some() {
            return self.pointer_dot(v, lit, span);
        }
        match self.projection(&t, lit, None) {
            Some(p) => self.apply_projection(v, p, span),
            None => {
                if t != error_type() {
                    self.type_error(span, format!("cannot project `{t}`"));
                }
                error_expr(span)
            }
        }
    }

    /// Resolve `x.rhs` as a projection of a value of type `ty`, if it is one: a literal
    /// component, a struct field, or an array index (an integer, or a value of the index type).
    pub(crate) fn projection(
        &mut self,
        ty: &Type,
        rhs: &ast::Expr,
        _unused: Option<()>,
    ) -> Option<Projection> {
        // A component of a secret struct or compact value is secret (issue 14).
        if let Type::Secret(inner) = ty {
            return self.projection(inner, rhs, None).map(|p| match p {
                Projection::Field(i, t) => Projection::Field(i, Type::secret(t)),
                Projection::CField(i, t) => Projection::CField(i, Type::secret(t)),
                Projection::Index(e, m, t) => Projection::Index(e, m, Type::secret(t)),
            });
        }
        if self.opaque_projection(ty, rhs) {
            return Some(Projection::Field(0, error_type()));
        }
        let literal = match &rhs.node {
            ExprKind::Int(lit) if suffix_type(&lit.suffix).is_ok() => lit.value,
            ExprKind::UnitsumValue(lit, _) => lit.value,
            _ => None,
        };
        if let Some(k) = literal {
            return self.literal_projection(ty, k, rhs.span);
        }
        if let ExprKind::Name(n) = &rhs.node {
            if let Some((i, t)) = self.record_field_projection(ty, n) {
                return Some(Projection::Field(i, t));
            }
            if let Type::Nominal(nd) = ty {
                if let Some(NominalBody::Struct(fields)) = nd.body.get() {
                    if let Some(i) = fields.iter().position(|(f, _)| **f == **n) {
                        return Some(Projection::Field(i as u32, fields[i].1.clone()));
                    }
                }
            }
            match self.lookup_value(n) {
                Some(Binding::Var(vb)) => {
                    let vt = self.var_type(n, &vb, rhs.span);
                    let vt = self.zonk(&vt);
                    if matches!(vt, Type::Fun(..)) {
                        return None;
                    }
                    let e = self.var_expr(n, &vb, rhs.span);
                    return self.index_projection(ty, e);
                }
                _ => return None,
            }
        }
        if matches!(
            rhs.node,
            ExprKind::Name(_)
                | ExprKind::Qualified(_)
                | ExprKind::TypeApply(..)
                | ExprKind::Lambda(_)
        ) {
            return None;
        }
        if matches!(ty, Type::Array(..) | Type::CArray(..)) {
            let e = self.expr(rhs, None);
            let et = self.zonk(&e.ty);
            if matches!(et, Type::Fun(..)) {
                return None;
            }
            return match self.index_projection(ty, e) {
                Some(p) => Some(p),
                None => {
                    let (Type::Array(_, idx) | Type::CArray(_, idx)) = ty else {
                        unreachable!()
                    };
                    self.type_error(
                        rhs.span,
                        format!("an index of `{ty}` must be an integer or a value of `{idx}`, found `{et}`"),
                    );
                    None
                }
            };
        }
        None
    }

    fn index_projection(&mut self, ty: &Type, e: ir::Expr) -> Option<Projection> {
        let (Type::Array(elem, idx) | Type::CArray(elem, idx)) = ty else {
            return None;
        };
        let et = self.zonk(&e.ty);
        if et.has_secret() {
            // A secret position would be revealed by which element is read (issue 14).
            self.secret_error(
                e.span,
                crate::check::secret::SecretUse::Shape,
                "an array index or a projection",
            );
            return Some(Projection::Index(e, IndexMode::Linear, error_type()));
        }
        if matches!(et, Type::Int(_)) {
            return Some(Projection::Index(e, IndexMode::Linear, (**elem).clone()));
        }
        if et == **idx || (et.has_meta() && self.unify(&et, idx)) {
            return Some(Projection::Index(e, IndexMode::Code, (**elem).clone()));
        }
        None
    }

    fn literal_projection(&mut self, ty: &Type, k: u128, span: Span) -> Option<Projection> {
        let out_of_range = |c: &mut Checker, count: String| {
            c.error(CheckError::ProjectionRange {
                span,
                index: k,
                ty: ty.to_string(),
                count,
            });
        };
        match ty {
            Type::Record(..) => {
                self.type_error(
                    span,
                    format!("a record is not a tuple: `{ty}` has no component {k}; name a field"),
                );
                Some(Projection::Field(0, error_type()))
            }
            Type::Tuple(cs) | Type::CProduct(cs) => {
                if k as usize >= cs.len() {
                    out_of_range(self, cs.len().to_string());
                    return Some(Projection::Field(0, error_type()));
                }
                let t = cs[k as usize].clone();
                Some(if matches!(ty, Type::Tuple(_)) {
                    Projection::Field(k as u32, t)
                } else {
                    Projection::CField(k as u32, t)
                })
            }
            Type::Nominal(nd) => match nd.body.get() {
                Some(NominalBody::Struct(fs)) => {
                    if k as usize >= fs.len() {
                        out_of_range(self, fs.len().to_string());
                        return Some(Projection::Field(0, error_type()));
                    }
                    Some(Projection::Field(k as u32, fs[k as usize].1.clone()))
                }
                _ => None,
            },
            // A literal position of a compact array is a digit of its code, like a component
            // of a compact tuple (the unboxed and vectorised digit reads apply).
            Type::CArray(e, i) => {
                if let Some(n) = size_of(i) {
                    if BigUint::from(k) >= n {
                        out_of_range(self, n.to_string());
                        return Some(Projection::CField(0, error_type()));
                    }
                }
                Some(Projection::CField(k as u32, (**e).clone()))
            }
            Type::Array(e, i) => {
                if let Some(n) = size_of(i) {
                    if BigUint::from(k) >= n {
                        out_of_range(self, n.to_string());
                        return Some(Projection::Index(
                            int_const(0, Type::INT, span),
                            IndexMode::Linear,
                            error_type(),
                        ));
                    }
                }
                let ix = if k <= i64::MAX as u128 {
                    int_const(k as i64, Type::Int(IntTy::Long), span)
                } else {
                    int_const(i64::MAX, Type::Int(IntTy::Long), span)
                };
                Some(Projection::Index(ix, IndexMode::Linear, (**e).clone()))
            }
            _ => None,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Implicit conversion (L2.16)
    // -----------------------------------------------------------------------------------------

    /// Use `e` where `t` is expected: unify, or insert an explicit widening, or report E0301.
    pub(crate) fn coerce_to(&mut self, e: ir::Expr, t: &Type, context: &str) -> ir::Expr {
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
                // of public values where one must take secrets (issue 14).
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
                            use_: crate::check::secret::SecretUse::Call,
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
                // (L11.4): the only subtyping outside function arguments.
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

    // -----------------------------------------------------------------------------------------
    // Operators (L4.2, L4.3): the type rules, kernels selected by dtype (layered dispatch)
    // -----------------------------------------------------------------------------------------

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
        // Visibility (issue 14): the public operation on the operands' data types, its result
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
        // types differ, so neither takes the other's (L11.27, L11.28).
        if matches!(op, BinOp::In | BinOp::NotIn) {
            return self.membership_ir(op, x, y, a, b, span);
        }
        // An operand whose type is still being inferred (a recursive call, L11.34) takes the
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

    /// `promote` of two operand types (the L2.16 lattice), recorded for `:type -v`.
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
            // L11.26, L11.27: `c * n`, `s + c`, `c + s`, `s + n` (n : int).
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

    /// `T ^ n` + `T ^ m` = `T ^ (n + m)` (L6.7); `None` if not both over unitsums of one
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
