//! Names used as values: variables, functions (overloads, explicit type arguments),
//! constructors and injections, primitives, and the synthetic functions they become.

use std::sync::Arc;

use num_bigint::BigUint;

use crate::check::build::{error_expr, int_const, mk, unit_const, Arg};
use crate::check::env::{Binding, Frame, FunState, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::traits::{self, Behaviour};
use crate::check::{error_type, Checker};
use crate::core::ir;
use crate::syntax::ast::{self, ExprKind, IntLit};
use crate::syntax::span::Span;
use crate::types::size::size_of;
use crate::types::ty::{NominalBody, Type};

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

impl Checker {
    /// Look a value name up through the scope chain.
    pub(crate) fn lookup_value(&self, name: &str) -> Option<Binding> {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some(b) = self.visible_binding(id, name) {
                return Some(b.clone());
            }
            if let Some(b) = self.opened_binding(id, name) {
                return Some(b);
            }
            s = self.scopes[id].parent;
        }
        None
    }

    /// The binding of `name` in scope `id`, unless it is a variable whose own initialiser is
    /// being checked.
    fn visible_binding(&self, id: usize, name: &str) -> Option<&Binding> {
        let b = self.scopes[id].values.get(name)?;
        if !self.unit.hidden.is_empty()
            && self.unit.hidden.iter().any(|(s, n)| *s == id && n == name)
        {
            return None;
        }
        Some(b)
    }

    /// All overload sets of a name, innermost scope first (overloads resolve scope by scope). A
    /// variable of that name ends the search: functions of outer scopes are hidden by it.
    pub(crate) fn lookup_fun_sets(&self, name: &str) -> Vec<Vec<usize>> {
        let mut sets = Vec::new();
        let mut s = Some(self.scope);
        while let Some(id) = s {
            match self.visible_binding(id, name) {
                Some(Binding::Funs(l)) => sets.push(l.clone()),
                Some(_) => break,
                None => {}
            }
            // The modules the scope opens come after its own names.
            match self.opened_binding(id, name) {
                Some(Binding::Funs(l)) => sets.push(l),
                Some(_) => break,
                None => {}
            }
            s = self.scopes[id].parent;
        }
        sets
    }

    /// The declaration of the variable that `e` reads, if it is one: the span of its type
    /// annotation when it has one, else of its name. Only error paths ask, so a walk of the
    /// visible scopes is fine.
    pub(crate) fn declaration_of(&self, e: &ir::Expr) -> Option<Span> {
        let (global, slot) = match e.kind {
            ir::ExprKind::Global(slot) => (true, slot),
            ir::ExprKind::Local(slot) | ir::ExprKind::LocalCell(slot) => (false, slot),
            _ => return None,
        };
        let mut s = Some(self.scope);
        while let Some(id) = s {
            for b in self.scopes[id].values.values() {
                let Binding::Var(vb) = b else { continue };
                let matches = vb.loc.slot == slot
                    && if global {
                        self.frames[vb.loc.frame].global
                    } else {
                        vb.loc.frame == self.frame
                    };
                if matches {
                    return Some(vb.declared_type_span());
                }
            }
            s = self.scopes[id].parent;
        }
        None
    }

    pub(crate) fn var_expr(&mut self, name: &str, vb: &VarBinding, span: Span) -> ir::Expr {
        self.note_var_use(span, name, vb);
        self.check_jumping_use(vb.loc, name, span);
        if !self.secret.owned_loop_vars.is_empty() {
            self.check_owned_loop_read(name, vb, span);
        }
        let t = self.var_type(name, vb, span);
        if t.has_secret() {
            self.secret.written = true;
            let local = vb.scope >= self.unit.unit_scope;
            self.note_secret_read(name, span, vb.span, local);
        }
        let kind = self.var_access(vb);
        mk(kind, t, span)
    }

    /// The argument type of the constructor of the non-parametric struct `n`: its field, or
    /// the tuple of its fields.
    fn struct_ctor_param(&mut self, n: &str) -> Option<Type> {
        let Some(Type::Nominal(def)) = self.lookup_type(n) else {
            return None;
        };
        match def.body() {
            Some(NominalBody::Struct(fields)) if !fields.is_empty() && def.params.is_empty() => {
                let mut types: Vec<Type> = fields.iter().map(|(_, t)| t.clone()).collect();
                Some(if types.len() == 1 {
                    types.remove(0)
                } else {
                    Type::tuple(types)
                })
            }
            _ => None,
        }
    }

    pub(crate) fn name_expr(&mut self, n: &str, span: Span, expected: Option<&Type>) -> ir::Expr {
        match self.lookup_value(n) {
            Some(Binding::Var(vb)) => self.var_expr(n, &vb, span),
            Some(Binding::Funs(_)) => self.fun_value(n, span, expected),
            Some(Binding::Ctor { nominal, index, .. }) => {
                self.note_ctor_use(span, n);
                self.ctor_value(&nominal, index, span, expected)
            }
            Some(Binding::Opaque { make, types }) => {
                self.opaque_value(n, make, types, span, expected)
            }
            None => {
                // A struct's name alone is its constructor as a function value (`val f = S;`).
                if let Some(param) = self.struct_ctor_param(n) {
                    let name = n.to_string();
                    return self.synthetic_fun(n, param, span, move |c, param| {
                        c.apply_name(&name, span, vec![Arg::Checked(param)], span, None)
                    });
                }
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
        self.note_fun_use(span, idx);
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
        // A template or a virtual function as a value: its specialisation or instance.
        let ty = self.zonk(&ty);
        match self.class_dispatch(idx, &type_args[outer..], span) {
            crate::check::class::Dispatch::Plain => {}
            crate::check::class::Dispatch::To(n, targs) => {
                let kind = self.dispatched_value(n, targs, span);
                return mk(kind, ty, span);
            }
            crate::check::class::Dispatch::Failed => return error_expr(span),
        }
        let mut type_args = type_args;
        type_args.extend(self.borrowed_size_args(sig.frame));
        mk(self.fun_value_kind(idx, type_args), ty, span)
    }

    /// Record the effects of calling function `idx` (for purity, which allows parallel
    /// evaluation).
    pub(crate) fn note_call(&mut self, idx: usize) {
        if matches!(
            self.funs[idx].state,
            FunState::Unchecked | FunState::Deferred
        ) {
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
            Type::Nominal(instance) => match instance.body() {
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

    /// `case k of T` and `` `k:n `` (unitsum values, injections): a value, or an injection
    /// function.
    pub(crate) fn case_value(&mut self, k: &IntLit, t: Type, span: Span) -> ir::Expr {
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
            size_params: 0,
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

    /// `Typing::memcount[T]` as a value, or `f[T]` used as a function value.
    pub(crate) fn type_apply_value(
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
            // `M::f[int]`: the function of the module instantiated, as a value.
            ExprKind::Qualified(_) => {
                let whole = ast::Expr::new(
                    ExprKind::TypeApply(Box::new(head.clone()), targs.to_vec()),
                    span,
                );
                match self.instantiate_qualified(&whole) {
                    Some(e) => self.expr(&e, expected),
                    None => error_expr(span),
                }
            }
            ExprKind::Name(n) => {
                let types: Vec<Type> = targs.iter().map(|t| self.type_expr(t)).collect();
                // `Empty[int]`, `Some[int]`: a constructor of the variant's instance at these
                // type arguments.
                if let Some(Binding::Ctor { nominal, index, .. }) = self.lookup_value(n) {
                    if nominal.params.len() == types.len() && !types.is_empty() {
                        self.note_ctor_use(head.span, n);
                        let instance = crate::types::ty::instantiate_nominal(&nominal, types);
                        return self.ctor_value(&nominal, index, span, Some(&instance));
                    }
                }
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
}
