//! Expressions: every form of expression is dispatched here; literals, tuples, compact values,
//! conditionals, matches and lambdas are checked here too. Names are in `name.rs`, projections
//! in `project.rs`, operators and implicit conversions in `operator.rs`, applications in
//! `apply.rs`.

use std::sync::Arc;

use crate::check::build::{error_expr, int_const, mk, unit_const, Arg};
use crate::check::error::CheckError;
use crate::check::traits::{self, Behaviour};
use crate::check::{error_type, Checker};
use crate::core::ir::{self, Const, Prim};
use crate::syntax::ast::{self, BinOp, ExprKind, IntLit, UnOp};
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, NominalBody, Type};

/// Expressions nested deeper than this are refused (E0100) rather than risking the stack.
pub const MAX_EXPR_DEPTH: u32 = 100_000;

/// The integer type of a literal suffix; `Err` for an unsupported suffix.
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
        self.note_type(e.span, &r.ty);
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
            // `System::argc`, `Env::getenv`: a library function named by Felix's path.
            ExprKind::Qualified(path) if crate::core::prims::is_prim(&path.join("::")) => {
                self.name_expr(&path.join("::"), span, expected)
            }
            // A name of a module (type-applied forms such as `Typing::memcount[T]` are
            // `TypeApply`).
            ExprKind::Qualified(path) => self.qualified_expr(path, span, expected),
            ExprKind::TypeApply(head, targs) => self.type_apply_value(head, targs, span, expected),
            // `Show[int]::show`: the function of the module instantiated, as a value.
            ExprKind::QualifiedArgs(segments) => match self.qualified_instantiation(segments, span)
            {
                Some(e) => self.expr(&e, expected),
                None => crate::check::build::error_expr(span),
            },
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
                // Integers (loop variables of `for i in 0 ..< 3`) where compact values are
                // needed: one error for the tuple, with the two ways to get compact values.
                let ints: Vec<String> = items
                    .iter()
                    .zip(irs.iter())
                    .filter(|(_, ir)| matches!(self.zonk(&ir.ty), Type::Int(_)))
                    .map(|(x, _)| match &x.node {
                        ExprKind::Name(name) => format!("`{name}`"),
                        _ => "a component".to_string(),
                    })
                    .collect();
                if !ints.is_empty() {
                    let first = match &items[0].node {
                        ExprKind::Name(name) => name.clone(),
                        _ => "i".to_string(),
                    };
                    let (verb, plural) = if ints.len() == 1 {
                        ("is", "")
                    } else {
                        ("are", "s")
                    };
                    self.error(CheckError::Type {
                        span,
                        message: format!(
                            "a compact tuple `\\,` takes compact values, and {} {verb} `int`{plural}",
                            ints.join(" and ")
                        ),
                        help: Some(format!(
                            "loop with `for {first} in ..[3] do` (then `{first}` is a value of `3`, as an index needs), or convert with `({first} :>> 3)`, 3 being the size of that dimension"
                        )),
                    });
                    return error_expr(span);
                }
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
            ExprKind::Slice {
                base,
                from,
                to,
                inclusive,
            } => self.slice_expr(base, from.as_deref(), to.as_deref(), *inclusive, span),
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
                // secret, the right must have no effect.
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
                    self.secret_error(x.span, crate::check::error::SecretUse::Branch, detail);
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
                // A user definition of the operator accepting the operands comes first.
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
                // A secret operand: the public operation, narrowed.
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
                // The case of a secret is secret.
                let secret = t.has_secret();
                let t = t.erase_secret();
                x.ty = t.clone();
                let ok = matches!(t, Type::Unitsum(_) | Type::Sum(_) | Type::CSum(_))
                    || matches!(&t, Type::Nominal(n) if matches!(n.body(), Some(NominalBody::Variant(_))))
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
                // Also `aproj i of &(T ^ I)` and of `_pclt<D, T \^ I>` (pointers to elements).
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
                // `T` argument, as a function value.
                let t = self.type_expr(te);
                if t == error_type() {
                    return error_expr(span);
                }
                // `a of T` for a record or struct type with a field `a`: the projection
                // function of that field.
                if let ExprKind::Name(field) = &head.node {
                    // Also `a of &T` (a pointer to the field).
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
                // `i \, (y - 1) :>> C` converts the whole compact tuple (`\,` binds tighter
                // than `:>>`): with an `int` among its components, say so.
                if let ExprKind::CTuple(items) = &inner.node {
                    let mut probe = self.clone();
                    let has_int = items.iter().any(|x| {
                        let ir = probe.expr(x, None);
                        matches!(probe.zonk(&ir.ty), Type::Int(_))
                    });
                    if has_int {
                        self.error(CheckError::Type {
                            span: inner.span,
                            message: "`\\,` binds tighter than `:>>`: this converts the whole compact tuple, and a component of it is an `int`".to_string(),
                            help: Some("to convert one component, parenthesise it: `i \\, ((y - 1) :>> C)`, not `i \\, (y - 1) :>> C`".to_string()),
                        });
                        return error_expr(span);
                    }
                }
                let v = self.expr(inner, None);
                let t = self.type_expr(te);
                self.coerce_expr(v, t, span)
            }
            ExprKind::Lambda(def) => self.lambda(def, expected),
            ExprKind::If(branches, otherwise) => {
                let mut checked = Vec::new();
                let mut result_ty: Option<Type> = expected.cloned();
                // A secret branch makes the result secret (the conditions are public).
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
            ExprKind::Match(scrutinee, arms) => self.match_expr(scrutinee, arms, expected, span),
            ExprKind::Let(value, arm) => {
                self.match_expr(value, std::slice::from_ref(&**arm), expected, span)
            }
            ExprKind::Extend(bases, extension) => self.extend_expr(bases, extension, span),
            ExprKind::LetFun(def, body) => {
                let stmt = ast::Stmt::new(ast::StmtKind::Fun(Arc::new((**def).clone())), def.span);
                let block = crate::syntax::desugar::block_value(vec![stmt], (**body).clone(), span);
                self.expr(&block, expected)
            }
            ExprKind::Error => error_expr(span),
        }
    }

    /// Build a tuple value; a homogeneous tuple is an array.
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

    fn lambda(&mut self, def: &ast::FunDef, expected: Option<&Type>) -> ir::Expr {
        let idx = self.new_function(&Arc::new(def.clone()), "<lambda>");
        if let Some(t) = expected {
            self.narrow_lambda_params(idx, t);
        }
        self.check_function(idx);
        let ty = self.fun_type_of(idx);
        let sig = self.funs[idx].clone();
        let type_args = sig
            .outer_params
            .iter()
            .cloned()
            .map(Type::Var)
            .chain(self.borrowed_size_args(sig.frame))
            .collect();
        if !sig.own_params.is_empty() {
            self.type_error(def.span, "a lambda cannot have type parameters");
        }
        let id = sig.id;
        mk(ir::ExprKind::MakeFun { fun: id, type_args }, ty, def.span)
    }
}

impl Checker {
    /// `match scrutinee with arms` (and `let p = e in body`, one arm).
    fn match_expr(
        &mut self,
        scrutinee: &ast::Expr,
        arms: &[ast::MatchArm<ast::Expr>],
        expected: Option<&Type>,
        span: Span,
    ) -> ir::Expr {
        let scr = self.expr(scrutinee, None);
        let scr_ty = self.zonk(&scr.ty);
        // Choosing an arm by a secret reveals it; one arm without a guard
        // only takes the value apart.
        let guarded = |a: &ast::MatchArm<ast::Expr>| {
            a.guard.is_some() || a.patterns.len() > 1 || a.patterns.iter().any(refutable_head)
        };
        if (arms.len() > 1 || arms.iter().any(guarded))
            && !self.require_public(
                &scr,
                crate::check::error::SecretUse::Branch,
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
            let heads = self.arm_heads(arm, &scr_ty);
            let body = self.expr(&arm.body, result_ty.as_ref());
            let body = match &result_ty {
                Some(t) => self.coerce_branch(body, t, "this match arm", &mut secret),
                None => {
                    result_ty = Some(self.zonk(&body.ty));
                    body
                }
            };
            self.scope = saved;
            push_arms(&mut ir_arms, heads, body);
        }
        let t = result_ty.map_or_else(error_type, |t| self.zonk(&t).narrow(secret));
        mk(ir::ExprKind::Match(Box::new(scr), ir_arms), t, span)
    }
}

/// An alternative with a guard or `with` bindings of its own, or nested alternatives: the
/// arm chooses by the value.
fn refutable_head(p: &ast::Pattern) -> bool {
    matches!(p.node, ast::PatternKind::Alt(_)) || crate::check::alternatives::has_steps(p)
}

/// The arms of the IR for one arm of the source: one per group of its head, each with the body.
pub(crate) fn push_arms<B: Clone>(
    out: &mut Vec<ir::Arm<B>>,
    heads: crate::check::alternatives::ArmHeads,
    body: B,
) {
    let last = heads.len().saturating_sub(1);
    let mut body = Some(body);
    for (k, (patterns, guard)) in heads.into_iter().enumerate() {
        let body = if k == last {
            body.take()
                .expect("the body is moved once, into the last arm")
        } else {
            body.clone().expect("the body is there until the last arm")
        };
        out.push(ir::Arm {
            patterns,
            guard,
            body,
        });
    }
}
