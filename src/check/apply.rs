//! Application: juxtaposition, `$`, `|>`, `x.f`, `#f`; overload resolution
//! (the *invocable* behaviour), polymorphic instantiation at the call site, constructors,
//! conversions, projections by application.

use crate::check::build::{error_expr, mk, Arg};
use crate::check::env::Binding;
use crate::check::error::CheckError;
use crate::check::prims::{apply_prim, apply_prim_expecting};
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, IndexMode, Prim};
use crate::syntax::ast::{self, ExprKind};
use crate::syntax::span::Span;
use crate::types::ty::{NominalBody, Type};

impl Checker {
    /// Check an argument, against an expected type if known.
    pub(crate) fn arg_expr(&mut self, a: Arg, expected: Option<&Type>) -> ir::Expr {
        match a {
            Arg::Ast(e) => self.expr(e, expected),
            Arg::Checked(e) => e,
        }
    }

    /// `f a b c` (any mix of juxtaposition, `$`, `|>`): flatten the spine and apply.
    pub(crate) fn apply_expr(&mut self, e: &ast::Expr, expected: Option<&Type>) -> ir::Expr {
        let mut args = Vec::new();
        let mut head = e;
        while let ExprKind::Apply { func, arg, .. } = &head.node {
            args.push(arg.as_ref());
            head = func;
        }
        args.reverse();
        let args = args.into_iter().map(Arg::Ast).collect();
        self.apply_ast_head(head, args, e.span, expected)
    }

    /// Apply an unchecked head expression to arguments.
    pub(crate) fn apply_ast_head(
        &mut self,
        head: &ast::Expr,
        mut args: Vec<Arg>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        match &head.node {
            ExprKind::Name(n) => self.apply_name(n, head.span, args, span, expected),
            // `System::argv 1`: a library function named by Felix's path.
            ExprKind::Qualified(path) if crate::core::prims::is_prim(&path.join("::")) => {
                self.apply_name(&path.join("::"), head.span, args, span, expected)
            }
            // `M::f x`, `List::map f l`: a function of a module.
            ExprKind::Qualified(path) if self.qualified_function(path).is_some() => {
                let n = self.qualified_function(path).expect("checked by the guard");
                self.apply_name(&n, head.span, args, span, expected)
            }
            ExprKind::Format(text) => self.format_apply(text, head.span, args, span),
            ExprKind::TypeApply(inner, targs) if matches!(&inner.node, ExprKind::Name(n) if crate::core::prims::is_type_applied(n) && self.lookup_value(n).is_none()) => {
                self.subarray_apply(targs, args, span)
            }
            // `Box[int] (3)`: a parametric struct (or typedef) applied to type arguments
            // constructs (or converts), as its name alone does.
            ExprKind::TypeApply(inner, targs) if matches!(&inner.node, ExprKind::Name(n) if self.lookup_value(n).is_none() && self.is_parametric_type(n)) =>
            {
                let ExprKind::Name(n) = &inner.node else {
                    unreachable!()
                };
                let te = ast::TypeExpr::new(
                    ast::TypeExprKind::Apply(
                        crate::syntax::span::Spanned::new(n.clone(), inner.span),
                        targs.clone(),
                    ),
                    head.span,
                );
                let t = self.type_expr(&te);
                if t == error_type() {
                    return error_expr(span);
                }
                self.apply_type(t, args, span)
            }
            // `Some[int] 5`: the constructor of the variant's instance, applied.
            ExprKind::TypeApply(inner, _) if matches!(&inner.node, ExprKind::Name(n) if matches!(self.lookup_value(n), Some(Binding::Ctor { .. }))) =>
            {
                let f = self.expr(head, None);
                self.call_rest(f, args, span)
            }
            ExprKind::TypeApply(inner, targs) if matches!(inner.node, ExprKind::Name(_)) => {
                let ExprKind::Name(n) = &inner.node else {
                    unreachable!()
                };
                let types: Vec<Type> = targs.iter().map(|t| self.type_expr(t)).collect();
                self.call_named(n, head.span, Some(types), args, span, expected)
            }
            // `C_hack::cast[&U] p`: a pointer reshape; every other `C_hack` is E0201.
            ExprKind::TypeApply(inner, targs) if matches!(&inner.node, ExprKind::Qualified(path) if path.len() == 2 && path[0] == "C_hack" && path[1] == "cast") =>
            {
                if targs.len() != 1 || args.is_empty() {
                    self.type_error(span, "`C_hack::cast[&U] p` takes one type and one pointer");
                    return error_expr(span);
                }
                let to = self.type_expr(&targs[0]);
                let p = self.arg_expr(args.remove(0), None);
                let r = self.pointer_cast(to, p, span);
                self.call_rest(r, args, span)
            }
            // `M::f[int] x`, `Show[int]::show x`: the module's function instantiated.
            _ if super::module::qualified_with_args(head).is_some() => {
                match self.instantiate_qualified(head) {
                    Some(e) => self.apply_ast_head(&e, args, span, expected),
                    None => error_expr(span),
                }
            }
            // An integer literal applied to a tuple or array projects: `1 x` is `x.1`.
            ExprKind::Int(_) => {
                let v = self.arg_expr(args.remove(0), None);
                let r = self.project(v, head, span);
                self.call_rest(r, args, span)
            }
            // `(case k of T) v` injects directly.
            ExprKind::Case(k, te) | ExprKind::UnitsumValue(k, te) => {
                let t = self.type_expr(te);
                let first = args.remove(0);
                let summand = match &t {
                    Type::Sum(cs) | Type::CSum(cs) => {
                        k.value.and_then(|v| cs.get(v as usize)).cloned()
                    }
                    _ => None,
                };
                let v = self.arg_expr(first, summand.as_ref());
                let r = self.inject_direct(k, t, v, span);
                self.call_rest(r, args, span)
            }
            // `x.f a b` is `f x a b`: the overloads of `f` see every argument group.
            ExprKind::Dot(lhs, rhs) if matches!(rhs.node, ExprKind::Name(_)) => {
                let l = self.expr(lhs, None);
                let lt = self.zonk(&l.ty);
                if lt == error_type() {
                    return error_expr(span);
                }
                // `d.i x` of a darray or list `d` and an index `i`: its element applied.
                if self.indexes_dynamic_array(&lt, rhs) {
                    let f = self.dynamic_element(l, rhs, head.span);
                    return self.call_rest(f, args, span);
                }
                let errors_before = self.unit.errors.len();
                if let Some(p) = self.projection(&lt, rhs, None) {
                    let f = self.apply_projection(l, p, head.span);
                    return self.call_rest(f, args, span);
                }
                if self.unit.errors.len() > errors_before || self.misspelt_field(&lt, rhs) {
                    return error_expr(span);
                }
                let mut all = vec![Arg::Checked(l)];
                all.extend(args);
                self.apply_ast_head(rhs, all, span, expected)
            }
            _ => {
                let f = self.expr(head, None);
                self.call_rest(f, args, span)
            }
        }
    }

    /// Apply a checked value to the remaining arguments (if any).
    pub(crate) fn call_rest(&mut self, f: ir::Expr, args: Vec<Arg>, span: Span) -> ir::Expr {
        if args.is_empty() {
            return f;
        }
        let mut checked = Vec::new();
        let mut fty = self.zonk(&f.ty);
        for a in args {
            let expected = match &fty {
                Type::Fun(p, r) => {
                    let p = (**p).clone();
                    fty = (**r).clone();
                    Some(p)
                }
                _ => None,
            };
            checked.push(self.arg_expr(a, expected.as_ref()));
        }
        self.call_value(f, checked, span)
    }

    /// Apply a function value (or a compact index, or a string) to checked arguments.
    pub(crate) fn call_value(&mut self, f: ir::Expr, args: Vec<ir::Expr>, span: Span) -> ir::Expr {
        let mut acc = f;
        let mut pending: Vec<ir::Expr> = Vec::new();
        let mut fty = self.zonk(&acc.ty);
        let known_pure = crate::check::traits::pure_callee(&acc, |fun| {
            self.funs
                .iter()
                .find(|s| s.id == fun)
                .map(|s| s.pure_)
                .unwrap_or_else(|| {
                    self.unit
                        .out_funs
                        .iter()
                        .any(|(id, f)| *id == fun && f.pure_)
                })
        });
        if !known_pure {
            self.note_effect();
        }
        for a in args {
            match fty.clone() {
                Type::Fun(p, r) => {
                    let a = self.coerce_argument(a, &p, "this argument");
                    pending.push(a);
                    fty = (*r).clone();
                }
                other => {
                    if !pending.is_empty() {
                        acc = mk(
                            ir::ExprKind::Call {
                                func: Box::new(acc),
                                args: std::mem::take(&mut pending),
                            },
                            other.clone(),
                            span,
                        );
                    }
                    acc = self.apply_non_function(acc, a, span);
                    fty = self.zonk(&acc.ty);
                }
            }
        }
        if !pending.is_empty() {
            acc = mk(
                ir::ExprKind::Call {
                    func: Box::new(acc),
                    args: pending,
                },
                fty,
                span,
            );
        }
        acc
    }

    /// Application of something that is not a function: a compact value indexing an array
    /// (projection by application), a string concatenated with a string.
    fn apply_non_function(&mut self, f: ir::Expr, a: ir::Expr, span: Span) -> ir::Expr {
        let ft = self.zonk(&f.ty);
        let at = self.zonk(&a.ty);
        if ft == error_type() || at == error_type() {
            return error_expr(span);
        }
        match (&ft, &at) {
            (Type::String, Type::String) => mk(
                ir::ExprKind::Prim(Prim::StrConcat, vec![f, a]),
                Type::String,
                span,
            ),
            // A string applied to an `int` is `s + str n`.
            (Type::String, Type::Int(crate::types::ty::IntTy::Int)) => {
                let n = mk(ir::ExprKind::Prim(Prim::Str, vec![a]), Type::String, span);
                mk(
                    ir::ExprKind::Prim(Prim::StrConcat, vec![f, n]),
                    Type::String,
                    span,
                )
            }
            (_, Type::Array(elem, idx) | Type::CArray(elem, idx)) if **idx == ft => mk(
                ir::ExprKind::Index {
                    array: Box::new(a),
                    index: Box::new(f),
                    mode: IndexMode::Code,
                },
                (**elem).clone(),
                span,
            ),
            _ => {
                let invocable =
                    crate::check::traits::check(&ft, crate::check::traits::Behaviour::Invocable);
                let pair_not_matrix = matches!(&at, Type::Tuple(components)
                    if matches!(components.first(), Some(Type::Array(..))))
                    && matches!(ft, Type::CProduct(_) | Type::CArray(..));
                let declared = pair_not_matrix.then(|| self.declaration_of(&a)).flatten();
                let error = CheckError::NoOverload {
                    span,
                    message: match invocable {
                        Err(lacking) => format!("{} to `{at}`", lacking.message()),
                        Ok(()) => format!("a value of type `{ft}` cannot be applied to `{at}`"),
                    },
                    behaviour: "invocable",
                    // `var m : int ^ 3 * 2;` is `(int ^ 3) * bool`, not a matrix.
                    help: Some(if pair_not_matrix {
                        format!(
                            "`{at}` is a pair, not a matrix: `^` binds tighter than `*`, so `int ^ 3 * 2` is `(int ^ 3) * bool`; for an array indexed by `{ft}` declare it as `T ^ ({ft})`, as in `int ^ (3 \\* 2)`"
                        )
                    } else {
                        "only functions, compact values (indexing an array over them) and strings can be applied".into()
                    }),
                };
                match declared {
                    Some(at_decl) => self.error(CheckError::Noted {
                        error: Box::new(error),
                        at: at_decl,
                        label: format!("declared here as `{at}`: `^` binds tighter than `*`"),
                    }),
                    None => self.error(error),
                }
                error_expr(span)
            }
        }
    }

    /// Apply a name: a variable, overloaded functions, a constructor, a conversion, or a
    /// library primitive. A name that the prelude also defines for lists or options
    /// (`_list_map` beside `map`, as Felix's `List::map` beside the array one) is applied as
    /// written first; when that fails, the list or option function is tried, and its answer
    /// is kept if it succeeds.
    pub(crate) fn apply_name(
        &mut self,
        n: &str,
        name_span: Span,
        args: Vec<Arg>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        // Only a whole call falls back: a partial one (`fold_left f 0`) means the array function.
        let alternatives: Vec<String> = ["_list_", "_opt_", "_varray_", "_darray_"]
            .iter()
            .map(|prefix| format!("{prefix}{n}"))
            .filter(|name| match self.lookup_value(name) {
                Some(Binding::Funs(funs)) => funs
                    .iter()
                    .any(|&f| self.funs[f].groups.len() <= args.len()),
                _ => false,
            })
            .collect();
        if alternatives.is_empty() {
            return self.apply_name_once(n, name_span, args, span, expected);
        }
        let u = &self.unit;
        let start = (
            u.errors.len(),
            u.open_instances.len(),
            u.deferred_vars.len(),
        );
        let first = self.apply_name_once(n, name_span, args.clone(), span, expected);
        if self.unit.errors.len() == start.0 {
            return first;
        }
        let failure = (
            self.unit.errors.split_off(start.0),
            self.unit.open_instances.split_off(start.1),
            self.unit.deferred_vars.split_off(start.2),
        );
        // When only the alternatives bear the name (`set`), their refusals say why it failed.
        let unbound = matches!(&failure.0[..], [CheckError::UndefinedName { .. }]);
        let mut refusals: Option<CheckError> = None;
        for name in alternatives {
            let r = self.apply_name_once(&name, name_span, args.clone(), span, expected);
            if self.unit.errors.len() == start.0 {
                return r;
            }
            let refused = self.unit.errors.split_off(start.0);
            refusals = unbound
                .then(|| CheckError::merge_refusals(refusals, refused, &name, n))
                .flatten();
            self.unit.open_instances.truncate(start.1);
            self.unit.deferred_vars.truncate(start.2);
        }
        (self.unit.errors).extend(refusals.map_or(failure.0, |refusal| vec![refusal]));
        self.unit.open_instances.extend(failure.1);
        self.unit.deferred_vars.extend(failure.2);
        first
    }

    fn apply_name_once(
        &mut self,
        n: &str,
        name_span: Span,
        mut args: Vec<Arg>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        match self.lookup_value(n) {
            Some(Binding::Var(vb)) => {
                let f = self.var_expr(n, &vb, name_span);
                self.call_rest(f, args, span)
            }
            Some(Binding::Funs(_)) => self.call_named(n, name_span, None, args, span, expected),
            Some(Binding::Ctor { nominal, index, .. }) => {
                self.note_ctor_use(name_span, n);
                let ty =
                    self.nominal_instance(&nominal, expected.filter(|_| args.len() == 1), span);
                let arg_ty = match &ty {
                    Type::Nominal(instance) => match instance.body() {
                        Some(NominalBody::Variant(cs)) => cs[index as usize].1.clone(),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(arg_ty) = arg_ty else {
                    let v = self.expr(
                        &ast::Expr::new(ExprKind::Name(n.to_string()), name_span),
                        None,
                    );
                    return self.call_rest(v, args, span);
                };
                let first = args.remove(0);
                let v = self.arg_expr(first, Some(&arg_ty));
                let v = self.coerce_to(v, &arg_ty, "the constructor argument");
                let r = mk(
                    ir::ExprKind::Inject {
                        tag: index,
                        arg: Box::new(v),
                    },
                    self.zonk(&ty),
                    span,
                );
                self.call_rest(r, args, span)
            }
            Some(Binding::Opaque { make, types }) => {
                self.apply_opaque(make, &types, args, name_span, span)
            }
            None => self.apply_builtin(n, name_span, args, span, expected),
        }
    }

    /// Names that are not user bindings: struct constructors, conversions, primitives.
    fn apply_builtin(
        &mut self,
        n: &str,
        name_span: Span,
        mut args: Vec<Arg>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        if let Some(t) = self.lookup_type(n) {
            if !matches!(&t, Type::Nominal(nd) if matches!(nd.body(), Some(NominalBody::Struct(_))))
                && crate::core::prims::is_prim(n)
            {
                return apply_prim(self, n, args, span);
            }
            return self.apply_type(t, args, span);
        }
        if let Some(t) = crate::check::typeexpr::builtin_type(n) {
            let r = self.convert(t, args.remove(0), span);
            return self.call_rest(r, args, span);
        }
        if crate::core::prims::is_prim(n) {
            return apply_prim_expecting(self, n, name_span, args, span, expected);
        }
        self.error(CheckError::UndefinedName {
            name: n.to_string(),
            span: name_span,
            what: "name",
            hint: if n.contains('-') {
                Some("a `-` between letters or digits is part of a name: write `x - 1` for a subtraction".into())
            } else {
                crate::check::opaque::conversion_hint(n)
            },
        });
        for a in args {
            if let Arg::Ast(e) = a {
                self.expr(e, None);
            }
        }
        error_expr(span)
    }

    /// `P (1, "a")`: fields in order.
    /// A type applied to arguments: a struct constructs, any other type converts.
    fn apply_type(&mut self, t: Type, mut args: Vec<Arg>, span: Span) -> ir::Expr {
        if let Type::Nominal(nd) = &t {
            if let Some(NominalBody::Struct(fields)) = nd.body() {
                let fields = fields.clone();
                let first = args.remove(0);
                let mut r = self.construct_struct(t.clone(), &fields, first, span);
                // The argument solved the type arguments of a parametric struct.
                r.ty = self.zonk(&r.ty);
                return self.call_rest(r, args, span);
            }
        }
        let mut first = args.remove(0);
        let mut t = t;
        if t.has_meta() {
            // A parametric typedef named alone (`pair (1, 2)`): the argument decides its type
            // arguments.
            let v = self.arg_expr(first, Some(&t));
            self.unify(&v.ty, &t);
            t = self.zonk(&t);
            first = Arg::Checked(v);
        }
        let r = self.convert(t, first, span);
        self.call_rest(r, args, span)
    }

    fn construct_struct(
        &mut self,
        ty: Type,
        fields: &[(std::sync::Arc<str>, Type)],
        arg: Arg,
        span: Span,
    ) -> ir::Expr {
        // From a record, by field name.
        if let Arg::Ast(e) = &arg {
            if let ExprKind::Record(_) = &e.node {
                let expected = Checker::struct_as_record(fields);
                let v = self.expr(e, Some(&expected));
                if contains_error(&self.zonk(&v.ty)) {
                    return error_expr(span);
                }
                return self.struct_from_record(ty, fields, v, span);
            }
        }
        let arg = match arg {
            Arg::Checked(v) if matches!(self.zonk(&v.ty), Type::Record(..)) => {
                return self.struct_from_record(ty, fields, v, span);
            }
            arg => arg,
        };
        if fields.len() == 1 {
            let v = self.arg_expr(arg, Some(&fields[0].1));
            let v = self.coerce_to(v, &fields[0].1, "the field");
            return mk(ir::ExprKind::Tuple(vec![v]), ty, span);
        }
        if let Arg::Ast(e) = &arg {
            if let ExprKind::Tuple(items) = &e.node {
                if items.len() == fields.len() {
                    let mut comps = Vec::new();
                    for (x, (_, ft)) in items.iter().zip(fields) {
                        let v = self.expr(x, Some(ft));
                        comps.push(self.coerce_to(v, ft, "a field"));
                    }
                    return mk(ir::ExprKind::Tuple(comps), ty, span);
                }
            }
        }
        let v = self.arg_expr(arg, None);
        let vt = self.zonk(&v.ty);
        if matches!(vt, Type::Record(..)) {
            return self.struct_from_record(ty, fields, v, span);
        }
        let plain = Type::tuple(fields.iter().map(|(_, t)| t.clone()).collect());
        if self.unify(&vt, &plain) {
            // Same components: project each one (the argument is a variable or a simple
            // expression; it is evaluated once per field).
            let mut comps = Vec::new();
            for (i, (_, ft)) in fields.iter().enumerate() {
                let lit = ast::Expr::new(
                    ExprKind::Int(ast::IntLit {
                        value: Some(i as u128),
                        suffix: String::new(),
                    }),
                    span,
                );
                let c = self.project(v.clone(), &lit, span);
                comps.push(self.coerce_to(c, ft, "a field"));
            }
            return mk(ir::ExprKind::Tuple(comps), ty, span);
        }
        self.error(CheckError::Mismatch {
            span: v.span,
            expected: plain.to_string(),
            found: vt.to_string(),
            help: None,
            context: "the constructor argument".into(),
        });
        error_expr(span)
    }

    /// `int 3.7`, `3.double`, `"42".int`, `7.long`.
    fn convert(&mut self, target: Type, arg: Arg, span: Span) -> ir::Expr {
        let v = self.arg_expr(arg, None);
        let s = self.zonk(&v.ty);
        if s == error_type() {
            return error_expr(span);
        }
        // A conversion of a secret is the conversion of its data, narrowed.
        if s.has_secret() && !target.has_secret() {
            let mut v = v;
            crate::check::secret::strip(&mut v);
            let mut r = self.convert(target, Arg::Checked(v), span);
            if r.ty != error_type() {
                r.ty = Type::secret(self.zonk(&r.ty));
            }
            return r;
        }
        let ok = crate::check::traits::convertible(&s, &target)
            != crate::check::traits::Conversion::None;
        if target == Type::Natural && matches!(s, Type::Int(_)) {
            return mk(
                ir::ExprKind::Coerce(ir::CoerceKind::IntToNatural, Box::new(v)),
                target,
                span,
            );
        }
        if s == Type::Char && target == Type::String {
            return crate::check::library::char_to_string(v);
        }
        if !ok {
            self.error(CheckError::NoOverload {
                span,
                message: format!("`{s}` is not convertible to `{target}`"),
                behaviour: "convertible",
                help: None,
            });
            return error_expr(span);
        }
        mk(ir::ExprKind::Prim(Prim::Convert, vec![v]), target, span)
    }

    /// Call a (possibly overloaded) user function by name. Candidates are tried innermost
    /// scope first; a name none of whose overloads accepts the argument falls through to an
    /// outer scope and finally to the library primitives.
    pub(crate) fn call_named(
        &mut self,
        n: &str,
        name_span: Span,
        explicit: Option<Vec<Type>>,
        args: Vec<Arg>,
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        let sets = self.lookup_fun_sets(n);
        let all: Vec<usize> = sets.iter().flatten().copied().collect();
        let mut args = args;
        if self.secret.distributed && !args.is_empty() {
            let chunked = crate::check::distributed::call_library(
                self,
                n,
                &all,
                &mut args,
                span,
                |c, args| c.call_named(n, name_span, explicit.clone(), args, span, expected),
            );
            if let Some(r) = chunked {
                return r;
            }
        }
        if args.is_empty() {
            return match explicit {
                Some(t) => {
                    let idx = all
                        .iter()
                        .copied()
                        .find(|&i| self.funs[i].own_params.len() == t.len());
                    match idx {
                        Some(i) => self.fun_ref(i, Some(t), name_span, expected),
                        None => error_expr(span),
                    }
                }
                None => self.expr(
                    &ast::Expr::new(ExprKind::Name(n.to_string()), name_span),
                    expected,
                ),
            };
        }
        // Explicit type arguments are checked against the kinds first, so a kind error is
        // reported as one rather than as a failed overload.
        if let Some(t) = &explicit {
            let with_count: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| self.funs[i].own_params.len() == t.len())
                .collect();
            if with_count.len() == 1 && !self.check_kinds(with_count[0], t, span) {
                return error_expr(span);
            }
        }
        // The argument's type is computed first, without regard to the candidates,
        // unless the name has exactly one definition anywhere: then checking the argument
        // against that function's parameter type gives the same answer with better inference
        // (lambdas, literals, primitives passed as values).
        let first = args.remove(0);
        let continues_outward = crate::core::prims::is_prim(n)
            || crate::check::typeexpr::builtin_type(n).is_some()
            || self.lookup_type(n).is_some();
        let sole = all.len() == 1 && !continues_outward;
        if sole {
            if let Arg::Ast(e) = &first {
                if self.needs_expected_type(e) {
                    if let Some(t) = &explicit {
                        if !self.check_kinds(all[0], t, span) {
                            return error_expr(span);
                        }
                    }
                    return self.call_fun(all[0], explicit, name_span, first, args, span);
                }
            }
        }
        let first_ir = if sole && explicit.is_none() && self.funs[all[0]].own_params.is_empty() {
            let g0 = self.funs[all[0]].groups.first().cloned();
            self.arg_expr(first, g0.as_ref())
        } else {
            self.arg_expr(first, None)
        };
        let at = self.zonk(&first_ir.ty);
        let mut checked = vec![first_ir];
        let mut rest: std::collections::VecDeque<Arg> = args.into();
        let mut chosen = None;
        for set in &sets {
            let candidates: Vec<usize> = set
                .iter()
                .copied()
                .filter(|&c| match &explicit {
                    Some(t) => t.len() <= self.funs[c].own_params.len(),
                    None => true,
                })
                .collect();
            // Filter on the argument groups left to right: a further argument is
            // checked only while more than one candidate remains.
            let mut viable: Vec<(usize, u32)> = candidates
                .iter()
                .filter_map(|&c| {
                    self.overload_fit(c, explicit.as_ref(), &checked)
                        .map(|r| (c, r))
                })
                .collect();
            while viable.len() > 1
                && !rest.is_empty()
                && viable
                    .iter()
                    .any(|&(c, _)| self.funs[c].groups.len() > checked.len())
            {
                let next = rest.pop_front().expect("a further argument");
                let v = self.arg_expr(next, None);
                checked.push(v);
                viable = viable
                    .iter()
                    .filter_map(|&(c, _)| {
                        self.overload_fit(c, explicit.as_ref(), &checked)
                            .map(|r| (c, r))
                    })
                    .collect();
            }
            if viable.is_empty() {
                continue;
            }
            match self.best_overload(&viable, checked.len()) {
                Ok(c) => chosen = Some(c),
                Err(tied) => {
                    let names: Vec<String> = tied
                        .iter()
                        .map(|&i| format!("{n} : {}", self.fun_type_of(i)))
                        .collect();
                    self.error(CheckError::NoOverload {
                        span,
                        message: format!(
                            "the call of `{n}` is ambiguous: {} overloads accept these arguments",
                            tied.len()
                        ),
                        behaviour: "invocable",
                        help: Some(format!("candidates: {}", names.join("; "))),
                    });
                    return error_expr(span);
                }
            }
            break;
        }
        let mut checked = checked.into_iter();
        let first_ir = checked.next().expect("the first argument");
        let args: Vec<Arg> = checked.map(Arg::Checked).chain(rest).collect();
        let Some(idx) = chosen else {
            if continues_outward {
                let mut all_args = vec![Arg::Checked(first_ir)];
                all_args.extend(args);
                return self.apply_builtin(n, name_span, all_args, span, expected);
            }
            // No function of this name at all: the name is undefined.
            if all.is_empty() && at != error_type() {
                self.error(CheckError::UndefinedName {
                    name: n.to_string(),
                    span: name_span,
                    what: "name",
                    hint: crate::check::suggest::well_known_hint(n),
                });
                return error_expr(span);
            }
            if at != error_type()
                && !(all.len() == 1 && self.tuple_arity_mismatch(all[0], &at, args.len(), span))
            {
                let cands: Vec<String> = all
                    .iter()
                    .map(|&i| {
                        let g = self.funs[i].groups.first().cloned().unwrap_or(Type::UNIT);
                        format!("{n} : {g} -> …")
                    })
                    .collect();
                self.error(CheckError::NoOverload {
                    span,
                    message: format!("no overload of `{n}` accepts an argument of type `{at}`"),
                    behaviour: "invocable",
                    help: (!cands.is_empty()).then(|| format!("candidates: {}", cands.join("; "))),
                });
            }
            return error_expr(span);
        };
        if let Some(t) = &explicit {
            if !self.check_kinds(idx, t, span) {
                return error_expr(span);
            }
        }
        self.call_fun(idx, explicit, name_span, Arg::Checked(first_ir), args, span)
    }

    /// `~x` with a user definition of `~`, tried before the built-in complement.
    pub(crate) fn user_prefix_operator(
        &mut self,
        symbol: &str,
        x: ir::Expr,
        span: Span,
    ) -> Result<ir::Expr, ir::Expr> {
        let sets = self.lookup_fun_sets(symbol);
        let xt = self.zonk(&x.ty);
        if sets.is_empty() || xt.has_meta() || xt == error_type() {
            return Err(x);
        }
        for set in sets {
            let mut viable: Vec<(usize, u32)> = Vec::new();
            for c in set {
                if self.funs[c].groups.len() != 1 {
                    continue;
                }
                if let Some(rank) = self.overload_fit(c, None, std::slice::from_ref(&x)) {
                    viable.push((c, rank));
                }
            }
            if viable.is_empty() {
                continue;
            }
            let best = self.best_overload(&viable, 1).unwrap_or(viable[0].0);
            return Ok(self.call_fun(best, None, span, Arg::Checked(x), Vec::new(), span));
        }
        Err(x)
    }

    /// `x OP y` when a user function named `OP` (`fun + (a:V, b:V) …`, or an operator C
    /// binding) in scope accepts `(x, y)`: its call, searched scope by scope as for any name.
    /// `Err` gives the operands back for the built-in operator.
    #[allow(clippy::result_large_err)]
    pub(crate) fn user_operator(
        &mut self,
        symbol: &str,
        x: ir::Expr,
        y: ir::Expr,
        span: Span,
    ) -> Result<ir::Expr, (ir::Expr, ir::Expr)> {
        let sets = self.lookup_fun_sets(symbol);
        if sets.is_empty() {
            return Err((x, y));
        }
        let (xt, yt) = (self.zonk(&x.ty), self.zonk(&y.ty));
        if xt.has_meta() || yt.has_meta() || xt == error_type() || yt == error_type() {
            return Err((x, y));
        }
        let arg = self.build_tuple(vec![x, y], span);
        for set in sets {
            let mut viable: Vec<(usize, u32)> = Vec::new();
            for c in set {
                if self.funs[c].groups.len() != 1 {
                    continue;
                }
                if let Some(rank) = self.overload_fit(c, None, std::slice::from_ref(&arg)) {
                    viable.push((c, rank));
                }
            }
            if viable.is_empty() {
                continue;
            }
            let best = match self.best_overload(&viable, 1) {
                Ok(c) => c,
                Err(_) => viable[0].0,
            };
            return Ok(self.call_fun(best, None, span, Arg::Checked(arg), Vec::new(), span));
        }
        match arg.kind {
            ir::ExprKind::Tuple(mut parts) | ir::ExprKind::Array(mut parts) if parts.len() == 2 => {
                let y = parts.pop().expect("two operands");
                let x = parts.pop().expect("two operands");
                Err((x, y))
            }
            _ => Err((error_expr(span), error_expr(span))),
        }
    }

    /// Does candidate `c` accept the checked arguments, one per parameter group (as far as it
    /// has groups)? Its rank if so: 0 for an exact non-generic match of every group, more for
    /// generic parameters and implicit widenings. Inference variables are restored.
    fn overload_fit(
        &mut self,
        c: usize,
        explicit: Option<&Vec<Type>>,
        args: &[ir::Expr],
    ) -> Option<u32> {
        let saved = self.metas.clone();
        let own = self.funs[c].own_params.clone();
        let targs = match explicit {
            Some(t) => {
                let mut t = t.clone();
                if t.len() < own.len() {
                    let rest = self.instantiate_params(&own[t.len()..]);
                    t.extend(rest);
                }
                t
            }
            None => self.instantiate_params(&own),
        };
        let groups = self.funs[c].groups.clone();
        let mut rank = 0;
        let mut ok = true;
        for (g, a) in groups.iter().zip(args) {
            let g = g.subst_vars(&own, &targs);
            match self.assignable(&a.ty, &g) {
                Some(widen) => {
                    rank += if widen {
                        2
                    } else if own.is_empty() {
                        0
                    } else {
                        1
                    }
                }
                None if self.argument_subtype(&a.ty, &g) => rank += 3,
                // A secret for a public parameter of the same data type: the function's
                // visibility instance decides, once chosen.
                None if a.ty.has_secret()
                    && self
                        .assignable(&a.ty.erase_secret(), &g.erase_secret())
                        .is_some() =>
                {
                    rank += 4
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        self.metas = saved;
        ok.then_some(rank)
    }

    /// The best of the viable candidates: the lowest rank; among equals, the one more specific
    /// than all the others. `Err` with the tied candidates when there is none.
    fn best_overload(
        &mut self,
        viable: &[(usize, u32)],
        n_args: usize,
    ) -> Result<usize, Vec<usize>> {
        let best = viable.iter().map(|&(_, r)| r).min().unwrap_or(0);
        let tied: Vec<usize> = viable
            .iter()
            .filter(|&&(_, r)| r == best)
            .map(|&(c, _)| c)
            .collect();
        if tied.len() == 1 {
            return Ok(tied[0]);
        }
        for &a in &tied {
            if tied.iter().all(|&b| {
                a == b
                    || (self.at_least_as_specific(a, b, n_args)
                        && !self.at_least_as_specific(b, a, n_args))
            }) {
                return Ok(a);
            }
        }
        Err(tied)
    }

    /// Is every parameter group of `a` (its type parameters held fixed) accepted by the
    /// corresponding group of `b` (its type parameters free)?
    fn at_least_as_specific(&mut self, a: usize, b: usize, n_args: usize) -> bool {
        let saved = self.metas.clone();
        let own_b = self.funs[b].own_params.clone();
        let targs = self.instantiate_params(&own_b);
        let ga = self.funs[a].groups.clone();
        let gb = self.funs[b].groups.clone();
        let ok = ga.iter().zip(gb.iter()).take(n_args).all(|(x, y)| {
            let y = y.subst_vars(&own_b, &targs);
            self.assignable(x, &y).is_some() || self.argument_subtype(x, &y)
        });
        self.metas = saved;
        ok
    }

    /// Is this argument a bare name whose value needs an expected type: a primitive or a type
    /// name used as a function, or an overloaded function?
    fn needs_expected_type(&self, e: &ast::Expr) -> bool {
        let ExprKind::Name(n) = &e.node else {
            return false;
        };
        match self.lookup_value(n) {
            None => {
                crate::core::prims::is_prim(n) || crate::check::typeexpr::builtin_type(n).is_some()
            }
            Some(Binding::Funs(l)) => l.len() > 1,
            Some(_) => false,
        }
    }

    /// Call function `idx` with its first argument checked and the rest not yet.
    fn call_fun(
        &mut self,
        idx: usize,
        explicit: Option<Vec<Type>>,
        name_span: Span,
        first: Arg,
        rest: Vec<Arg>,
        span: Span,
    ) -> ir::Expr {
        self.note_fun_use(name_span, idx);
        if self.funs[idx].ret.is_none() {
            self.check_function(idx);
        }
        let sig = self.funs[idx].clone();
        let own = sig.own_params.clone();
        let targs = match explicit {
            // Type arguments given for the first parameters only: the others are inferred
            // (`init[n] f`).
            Some(mut t) if t.len() < own.len() => {
                let rest = self.instantiate_params(&own[t.len()..]);
                t.extend(rest);
                t
            }
            Some(t) => t,
            None => self.instantiate_params(&own),
        };
        let groups: Vec<Type> = sig
            .groups
            .iter()
            .map(|g| g.subst_vars(&own, &targs))
            .collect();
        let ret = sig
            .ret
            .clone()
            .unwrap_or_else(error_type)
            .subst_vars(&own, &targs);
        let mut args = Vec::new();
        // The groups given a secret argument where the parameter is public.
        let mut secret_groups: Vec<Option<Type>> = Vec::new();
        let mut rest = std::iter::once(first).chain(rest);
        // Arguments that are bare names of primitives or overloaded functions are checked
        // last, once the other arguments have fixed their parameter types (`iter println a`).
        let mut deferred = Vec::new();
        // The run-time sizes of the function's parameters, as the arguments give them.
        let mut sizes = crate::check::sizes::SizeArguments::default();
        while args.len() < groups.len() {
            let Some(a) = rest.next() else { break };
            if let Arg::Ast(e) = &a {
                if self.needs_expected_type(e) {
                    deferred.push((args.len(), a));
                    args.push(None);
                    secret_groups.push(None);
                    continue;
                }
            }
            let g = self.zonk(&sizes.apply(&groups[args.len()]));
            let v = self.arg_expr(a, Some(&g));
            let declared = sig.groups[args.len()].clone();
            let v = self.secret_argument(v, &g, &declared, &mut secret_groups);
            let v = self.coerce_argument(v, &g, "this argument");
            let v = self.size_argument(&sig, args.len(), v, &mut sizes);
            args.push(Some(v));
        }
        // Arguments of types over sizes of 0 or 1 become the arrays the callee's code takes.
        for (i, a) in args.iter_mut().enumerate() {
            if let Some(v) = a {
                let callee = self.zonk(&sizes.apply_in_callee(&groups[i]));
                let caller = self.zonk(&sizes.apply(&groups[i]));
                if callee != caller && !callee.has_meta() && !callee.has_fun() && !v.ty.has_secret()
                {
                    let taken = std::mem::replace(v, error_expr(v.span));
                    let span = taken.span;
                    *v = mk(
                        ir::ExprKind::Coerce(ir::CoerceKind::Reshape, Box::new(taken)),
                        callee,
                        span,
                    );
                }
            }
        }
        for (i, a) in deferred {
            let g = self.zonk(&sizes.apply(&groups[i]));
            let v = self.arg_expr(a, Some(&g));
            let mut marks = Vec::new();
            let v = self.secret_argument(v, &g, &sig.groups[i], &mut marks);
            secret_groups[i] = marks.pop().flatten();
            args[i] = Some(self.coerce_argument(v, &g, "this argument"));
        }
        let args: Vec<ir::Expr> = args
            .into_iter()
            .map(|a| a.expect("every argument is checked"))
            .collect();
        let result_ty = groups[args.len()..]
            .iter()
            .rev()
            .fold(ret, |acc, g| Type::fun(g.clone(), acc));
        self.fresh_result_sizes(&sig, &result_ty, &mut sizes);
        let mut callee_result = self.zonk(&sizes.apply_in_callee(&result_ty));
        let result_ty = sizes.apply(&result_ty);
        let mut result_ty = self.zonk(&result_ty);
        // A result over a size of 0 or 1 is the array the callee made: the caller sees it as
        // its element or as unit.
        let reshaped = callee_result != result_ty && !result_ty.has_fun();
        // Visibility: a function called with secret arguments (for its public
        // parameters, or as type arguments) is checked again with them; its result is narrowed.
        secret_groups.resize(sig.groups.len(), None);
        let secret_params: Vec<bool> = targs.iter().map(|t| self.zonk(t).has_secret()).collect();
        if secret_groups.iter().any(Option::is_some) || secret_params.iter().any(|s| *s) {
            self.secret_function_arguments(&sig.groups, &args, &mut secret_groups);
            let mut answer = self.secret_instance(idx, &secret_groups, &secret_params);
            // A generic body may keep the secrets in variables of its type parameters
            // (`var r : U ^ N`): it is also checked with them all secret, when every function
            // it is given was found to take secrets (a function of `T` must then take a
            // `secret T`, which only those are known to).
            let functions_take_secrets = sig
                .groups
                .iter()
                .zip(&secret_groups)
                .all(|(g, mark)| !g.has_fun() || mark.is_some());
            if answer.is_err() && functions_take_secrets && secret_params.iter().any(|s| !s) {
                let all = vec![true; secret_params.len()];
                if self.secret_instance(idx, &secret_groups, &all).is_ok() {
                    answer = Ok(());
                }
            }
            if let Err(inner) = answer {
                let at = secret_groups
                    .iter()
                    .position(Option::is_some)
                    .and_then(|i| args.get(i))
                    .map_or(span, |a| a.span);
                self.secret_call_error(idx, at, &inner);
                return error_expr(span);
            }
            result_ty = result_ty.narrow(true);
            callee_result = callee_result.narrow(true);
        }
        let mut type_args: Vec<Type> = sig.outer_params.iter().cloned().map(Type::Var).collect();
        let mut ok = true;
        self.infer_from_instances(idx, &targs);
        for t in &targs {
            let z = self.zonk(t);
            ok &= self.no_meta_left(&z, span);
            type_args.push(z);
        }
        if !ok {
            return error_expr(span);
        }
        let own_args = type_args[sig.outer_params.len()..].to_vec();
        type_args.extend(self.borrowed_size_args(sig.frame));
        let mut func = match sig.holder {
            Some(_) => self.fun_ref(idx, None, name_span, None),
            None => {
                let fty = sizes.apply_in_callee(
                    &self
                        .fun_type_of(idx)
                        .subst_vars(&own, &type_args[sig.outer_params.len()..]),
                );
                self.note_call(idx);
                mk(self.fun_value_kind(idx, type_args), fty, name_span)
            }
        };
        if !self.check_requirements(&sig.name, &own, &own_args, span) {
            return error_expr(span);
        }
        // A virtual function resolves to its instance's; a template to its specialisation.
        match self.class_dispatch(idx, &own_args, span) {
            crate::check::class::Dispatch::Plain => {}
            crate::check::class::Dispatch::To(n, targs) => {
                func.kind = self.dispatched_value(n, targs, name_span);
            }
            crate::check::class::Dispatch::Failed => return error_expr(span),
        }
        if sig.kind != ast::FunKind::Fun {
            self.note_effect();
        }
        let call = mk(
            ir::ExprKind::Call {
                func: Box::new(func),
                args,
            },
            if reshaped {
                callee_result
            } else {
                result_ty.clone()
            },
            span,
        );
        let call = if reshaped {
            mk(
                ir::ExprKind::Coerce(ir::CoerceKind::Reshape, Box::new(call)),
                result_ty,
                span,
            )
        } else {
            call
        };
        match self.over_applied_fun(idx, &call, rest.collect(), span) {
            Ok(error) => error,
            Err(rest) => self.call_rest(call, rest, span),
        }
    }
}
