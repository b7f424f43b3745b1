//! Statements, scopes and hoisting (L5), function definitions and their bodies.

use std::collections::HashSet;
use std::sync::Arc;

use crate::check::env::{
    Binding, Frame, FunSig, FunState, TypeBinding, VarBinding, VarLoc, VarType,
};
use crate::check::error::CheckError;
use crate::check::expr::mk;
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, Capture, IndexMode, PathStep, Place, Prim, RangeKind};
use crate::syntax::ast::{
    self, AssignOp, ExprKind, ForKind, FunBody, FunDef, FunKind, Stmt, StmtKind,
};
use crate::syntax::span::Span;
use crate::types::ty::{Kind, NominalBody, NominalDef, TyVar, Type};

impl Checker {
    /// Hoist the declarations of `stmts` into the current scope, then check them in order.
    pub(crate) fn block_in_scope(&mut self, stmts: &[Stmt]) -> Vec<ir::Stmt> {
        let mut out = Vec::new();
        self.hoist(stmts, &mut out);
        for s in stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    // -----------------------------------------------------------------------------------------
    // Hoisting (L5.2)
    // -----------------------------------------------------------------------------------------

    pub(crate) fn hoist(&mut self, stmts: &[Stmt], prelude: &mut Vec<ir::Stmt>) {
        let mut flat = Vec::new();
        collect_hoisted(stmts, &mut flat);
        // Types first, so values can mention them in annotations.
        let mut nominals = Vec::new();
        let mut opaque = Vec::new();
        for s in &flat {
            match &s.node {
                StmtKind::NewType { .. } => opaque.extend(self.declare_opaque(s).map(|d| (*s, d))),
                StmtKind::Typedef { name, params, ty } => {
                    let scope = self.scope;
                    let binding = if params.is_empty() {
                        TypeBinding::PendingAlias(Arc::new(ty.clone()), scope)
                    } else {
                        TypeBinding::PendingGeneric(
                            params.as_slice().into(),
                            Arc::new(ty.clone()),
                            scope,
                        )
                    };
                    self.declare_type(name, binding);
                }
                StmtKind::Struct { name, params, .. } | StmtKind::Variant { name, params, .. } => {
                    // The parameters of a parametric struct or variant are bound in a scope
                    // of their own, where its body is resolved.
                    let scope = if params.is_empty() {
                        self.scope
                    } else {
                        self.new_scope(Some(self.scope))
                    };
                    let vars = self.bind_type_params(params, scope);
                    let def = Arc::new(NominalDef::new(
                        self.next_nominal,
                        name.node.as_str().into(),
                        vars,
                    ));
                    self.next_nominal += 1;
                    self.declare_type(name, TypeBinding::Nominal(def.clone()));
                    nominals.push((s, def, scope));
                }
                _ => {}
            }
        }
        let mut bodies = Vec::new();
        for (s, def, scope) in &nominals {
            let saved = self.scope;
            self.scope = *scope;
            let body = match &s.node {
                StmtKind::Struct { fields, .. } => NominalBody::Struct(
                    fields
                        .iter()
                        .map(|f| (f.name.node.as_str().into(), self.field_type(&f.ty)))
                        .collect(),
                ),
                StmtKind::Variant { ctors, .. } => NominalBody::Variant(
                    ctors
                        .iter()
                        .map(|(cname, cty)| {
                            (
                                cname.node.as_str().into(),
                                cty.as_ref().map(|t| self.field_type(t)),
                            )
                        })
                        .collect(),
                ),
                _ => NominalBody::Struct(Vec::new()),
            };
            self.scope = saved;
            if let StmtKind::Variant { ctors, .. } = &s.node {
                for (k, (cname, _)) in ctors.iter().enumerate() {
                    self.declare_value(
                        cname,
                        Binding::Ctor {
                            nominal: def.clone(),
                            index: k as u32,
                            span: cname.span,
                        },
                    );
                }
            }
            bodies.push(body);
        }
        // Only now, when no body can grow without end, are the bodies set (which fills in the
        // instances made so far).
        let declared: Vec<Arc<NominalDef>> = nominals.iter().map(|(_, d, _)| d.clone()).collect();
        for ((s, def, _), body) in nominals.iter().zip(bodies) {
            let body = self.regular_body(s, &declared, body);
            def.set_body(body);
        }
        self.define_opaque(&flat, opaque, prelude);
        // Every typedef of the scope is resolved now, so an unused bad one is still reported.
        let pending: Vec<String> = self.scopes[self.scope]
            .types
            .iter()
            .filter(|(_, (b, _))| {
                matches!(
                    b,
                    TypeBinding::PendingAlias(..) | TypeBinding::PendingGeneric(..)
                )
            })
            .map(|(n, _)| n.clone())
            .collect();
        for name in pending {
            self.type_scheme(&name);
        }
        for s in &flat {
            match &s.node {
                StmtKind::Var { name, ty, .. } => self.declare_var(s, name, ty.as_ref(), true),
                StmtKind::Val { name, ty, .. } => self.declare_var(s, name, ty.as_ref(), false),
                StmtKind::For { var, kind, .. } => {
                    let declares = match kind {
                        ForKind::RangeExclusive(..) | ForKind::RangeInclusive(..) => true,
                        ForKind::Upto { declare, .. } | ForKind::Downto { declare, .. } => *declare,
                        _ => false,
                    };
                    if declares {
                        self.declare_var(s, var, None, true);
                    }
                }
                StmtKind::Fun(def) => self.declare_fun(def, prelude),
                _ => {}
            }
        }
    }

    /// A parametric struct or variant of this group of declarations must mention the
    /// parametric types of the group only at plain type parameters or closed types (a
    /// *regular* recursive type): `tree[T]` in `tree[T]`'s body, never `tree[T * T]`, whose
    /// instances would grow without end. An offending component becomes the error type.
    fn regular_body(
        &mut self,
        s: &Stmt,
        group: &[Arc<NominalDef>],
        body: NominalBody,
    ) -> NominalBody {
        let regular = |t: Type, checker: &mut Checker| -> Type {
            let mut bad = None;
            t.walk(&mut |x| {
                if let Type::Nominal(n) = x {
                    if group.iter().any(|g| n.instance_of(g))
                        && n.args()
                            .iter()
                            .any(|a| a.has_var() && !matches!(a, Type::Var(_)))
                    {
                        bad.get_or_insert_with(|| x.to_string());
                    }
                }
            });
            match bad {
                None => t,
                Some(instance) => {
                    checker.error(CheckError::Type {
                        span: s.span,
                        message: format!(
                            "the recursive type `{instance}` is not regular: its instances would grow without end"
                        ),
                        help: Some(
                            "give a recursive use of a parametric type plain type parameters, as in `tree[T]`".into(),
                        ),
                    });
                    error_type()
                }
            }
        };
        match body {
            NominalBody::Struct(fields) => NominalBody::Struct(
                fields
                    .into_iter()
                    .map(|(n, t)| (n, regular(t, self)))
                    .collect(),
            ),
            NominalBody::Variant(ctors) => NominalBody::Variant(
                ctors
                    .into_iter()
                    .map(|(n, t)| (n, t.map(|t| regular(t, self))))
                    .collect(),
            ),
            NominalBody::Opaque { repr, eq } => NominalBody::Opaque {
                repr: regular(repr, self),
                eq,
            },
        }
    }

    pub(crate) fn declare_type(&mut self, name: &ast::SName, b: TypeBinding) {
        let scope = self.scope;
        if let Some((_, prev)) = self.scopes[scope].types.get(&name.node) {
            let prev = *prev;
            self.error(CheckError::Duplicate {
                name: name.node.clone(),
                span: name.span,
                previous: prev,
            });
            return;
        }
        self.scopes[scope]
            .types
            .insert(name.node.clone(), (b, name.span));
    }

    pub(crate) fn declare_value(&mut self, name: &ast::SName, b: Binding) {
        let scope = self.scope;
        match (self.scopes[scope].values.get_mut(&name.node), &b) {
            (None, _) => {
                self.scopes[scope].values.insert(name.node.clone(), b);
            }
            (Some(Binding::Funs(list)), Binding::Funs(more)) => list.extend(more.iter().copied()),
            // `_repr_` of several opaque types of one scope.
            (
                Some(Binding::Opaque { make: false, types }),
                Binding::Opaque {
                    make: false,
                    types: more,
                },
            ) => types.extend(more.iter().cloned()),
            (Some(prev), _) => {
                let previous = match prev {
                    Binding::Var(v) => v.span,
                    Binding::Ctor { span, .. } => *span,
                    Binding::Opaque { types, .. } => types[0].1,
                    Binding::Funs(l) => self.funs[l[0]].span,
                };
                self.error(CheckError::Duplicate {
                    name: name.node.clone(),
                    span: name.span,
                    previous,
                });
            }
        }
    }

    fn declare_var(
        &mut self,
        s: &Stmt,
        name: &ast::SName,
        ty: Option<&ast::TypeExpr>,
        mutable: bool,
    ) {
        let frame = self.frame;
        let global = self.frames[frame].global;
        let cell = !global && self.frames[frame].captured_names.contains(&name.node);
        let slot = self.frames[frame].alloc();
        if cell {
            self.frames[frame].cell_slots.push(slot);
        }
        if global {
            self.unit.out_globals.push(ir::GlobalDef {
                slot,
                name: name.node.clone(),
                span: name.span,
            });
        }
        let vty = match ty {
            Some(t) => VarType::Known(self.type_expr(t)),
            None => VarType::Pending,
        };
        let scope = self.scope;
        self.scopes[scope].decls.insert(s.span, name.node.clone());
        self.declare_value(
            name,
            Binding::Var(VarBinding {
                loc: VarLoc { frame, slot, cell },
                ty: vty,
                mutable,
                span: name.span,
                decl: Some(Arc::new(s.clone())),
                scope,
            }),
        );
    }

    /// Declare a function: its frame, scope, type parameters, parameter bindings, signature.
    fn declare_fun(&mut self, def: &FunDef, prelude: &mut Vec<ir::Stmt>) {
        let name = def
            .name
            .clone()
            .unwrap_or_else(|| ast::SName::new("<lambda>".into(), def.span));
        let idx = self.new_function(def, &name.node);
        // A function nested in a function frame keeps its closure in a slot, created when the
        // enclosing frame is entered (so it can capture).
        let frame = self.frame;
        if !self.frames[frame].global && self.funs[idx].own_params.is_empty() {
            let cell = self.frames[frame].captured_names.contains(&name.node);
            let slot = self.frames[frame].alloc();
            if cell {
                self.frames[frame].cell_slots.push(slot);
            }
            let loc = VarLoc { frame, slot, cell };
            self.funs[idx].holder = Some(loc);
            let fun_ty = self.fun_type_of(idx);
            let id = self.funs[idx].id;
            let type_args = self.funs[idx]
                .outer_params
                .iter()
                .cloned()
                .map(Type::Var)
                .collect();
            let place = if cell {
                Place::LocalCell(slot)
            } else {
                Place::Local(slot)
            };
            prelude.push(ir::Stmt::Assign(
                place,
                ir::Expr {
                    kind: ir::ExprKind::MakeFun { fun: id, type_args },
                    ty: fun_ty,
                    span: def.span,
                },
            ));
        }
        self.declare_value(&name, Binding::Funs(vec![idx]));
    }

    /// Create the signature, frame and scope of a function or lambda. Returns its index in
    /// `self.funs`.
    pub(crate) fn new_function(&mut self, def: &FunDef, name: &str) -> usize {
        let id = self.next_fun;
        self.next_fun += 1;
        let parent_frame = self.frame;
        let mut frame = Frame::new(Some(parent_frame), false);
        frame.kind = def.kind;
        let outer_params = self.frames[parent_frame].type_params.clone();
        frame.captured_names = match &def.body {
            FunBody::Expr(e) => names_in_nested_functions_expr(e),
            FunBody::Block(b) => names_in_nested_functions(b),
        };
        self.frames.push(frame);
        let frame_id = self.frames.len() - 1;
        let scope = self.new_scope(Some(self.scope));
        // Type parameters.
        let mut own_params = Vec::new();
        for tp in &def.type_params {
            let v = TyVar {
                id: self.next_tyvar,
                name: tp.name.node.as_str().into(),
                kind: match tp.kind {
                    ast::KindExpr::Type => Kind::Type,
                    ast::KindExpr::Unitsum => Kind::Unitsum,
                    ast::KindExpr::CompactLinear => Kind::CompactLinear,
                },
            };
            self.next_tyvar += 1;
            self.scopes[scope].types.insert(
                tp.name.node.clone(),
                (TypeBinding::Param(v.clone()), tp.name.span),
            );
            own_params.push(v);
        }
        let mut all_params = outer_params.clone();
        all_params.extend(own_params.iter().cloned());
        self.frames[frame_id].type_params = all_params;
        // Parameter types, resolved in the function's scope.
        let saved = (self.scope, self.frame);
        self.scope = scope;
        self.frame = frame_id;
        let mut groups = Vec::new();
        let mut patterns = Vec::new();
        for g in &def.params {
            let (ty, pat) = self.param_group(g);
            groups.push(ty);
            patterns.push(pat);
        }
        let ret = def.ret.as_ref().map(|t| self.type_expr(t));
        let ret = match (def.kind, ret) {
            (FunKind::Proc, None) => Some(Type::VOID),
            (_, r) => r,
        };
        self.scope = saved.0;
        self.frame = saved.1;
        self.funs.push(FunSig {
            id,
            name: name.to_string(),
            kind: def.kind,
            own_params,
            outer_params,
            groups,
            ret,
            ret_meta: None,
            span: def.name.as_ref().map(|n| n.span).unwrap_or(def.span),
            holder: None,
            def: Arc::new(def.clone()),
            scope,
            frame: frame_id,
            params: patterns,
            state: FunState::Unchecked,
            pure_: def.kind == FunKind::Fun,
        });
        self.funs.len() - 1
    }

    /// A parameter group: its type and the pattern binding its parameters.
    fn param_group(&mut self, g: &ast::ParamGroup) -> (Type, ir::Pattern) {
        let mut tys = Vec::new();
        let mut pats = Vec::new();
        for p in &g.params {
            let t = self.type_expr(&p.ty);
            let slot = self.frames[self.frame].alloc();
            let scope = self.scope;
            let frame = self.frame;
            self.declare_value(
                &p.name,
                Binding::Var(VarBinding {
                    loc: VarLoc {
                        frame,
                        slot,
                        cell: false,
                    },
                    ty: VarType::Known(t.clone()),
                    mutable: false,
                    span: p.name.span,
                    decl: None,
                    scope,
                }),
            );
            pats.push(ir::Pattern {
                kind: ir::PatternKind::Bind(Place::Local(slot)),
                ty: t.clone(),
                span: p.name.span,
            });
            tys.push(t);
        }
        let ty = Type::tuple(tys);
        let pat = match pats.len() {
            0 => ir::Pattern {
                kind: ir::PatternKind::Wildcard,
                ty: Type::UNIT,
                span: g.span,
            },
            1 => pats.pop().unwrap(),
            _ => ir::Pattern {
                kind: ir::PatternKind::Tuple(pats),
                ty: ty.clone(),
                span: g.span,
            },
        };
        (ty, pat)
    }

    /// The type of a function value: its groups curried onto the result.
    pub(crate) fn fun_type_of(&mut self, idx: usize) -> Type {
        let ret = match self.funs[idx].ret.clone() {
            Some(r) => r,
            None => {
                self.check_function(idx);
                self.funs[idx].ret.clone().unwrap_or_else(error_type)
            }
        };
        self.funs[idx]
            .groups
            .iter()
            .rev()
            .fold(ret, |acc, g| Type::fun(g.clone(), acc))
    }

    /// Check a function's body (on demand: when its result type is needed, or at the end of
    /// the unit) and emit its IR.
    pub(crate) fn check_function(&mut self, idx: usize) {
        match self.funs[idx].state {
            FunState::Done => return,
            FunState::InProgress => {
                // A recursive call while the result type is being inferred (L11.34): the call
                // has a fresh inference variable as its type, which the other returned
                // expressions solve; `check_function` unifies it with the result type.
                if self.funs[idx].ret.is_none() {
                    let m = self.fresh_meta(Kind::Type);
                    self.funs[idx].ret = Some(m.clone());
                    self.funs[idx].ret_meta = Some(m);
                    self.unit.recursion_metas = true;
                }
                return;
            }
            FunState::Unchecked => {}
        }
        self.funs[idx].state = FunState::InProgress;
        let saved = (self.scope, self.frame);
        let sig = self.funs[idx].clone();
        self.scope = sig.scope;
        self.frame = sig.frame;
        self.frames[sig.frame].ret = sig.ret.clone();
        let body = match &sig.def.body {
            FunBody::Expr(e) => {
                let expected = sig.ret.clone();
                let ir = self.expr(e, expected.as_ref());
                let ir = match &expected {
                    Some(t) => self.coerce_to(ir, t, "the function result"),
                    None => {
                        self.frames[sig.frame].ret = Some(ir.ty.clone());
                        ir
                    }
                };
                vec![ir::Stmt::Return(Some(ir))]
            }
            FunBody::Block(stmts) => {
                let out = self.block_in_scope(stmts);
                if self.frames[sig.frame].ret.is_none() {
                    self.frames[sig.frame].ret = Some(Type::VOID);
                }
                out
            }
        };
        let ret = self.frames[sig.frame].ret.clone().unwrap_or(Type::VOID);
        if let Some(m) = self.funs[idx].ret_meta.clone() {
            if !self.unify(&m, &ret) {
                let name = sig.name.clone();
                let found = self.zonk(&ret);
                self.type_error(
                    sig.span,
                    format!("the result type of the recursive function `{name}` is inconsistent: its recursive calls are used as `{}`, but it returns `{found}`", self.zonk(&m)),
                );
            }
        }
        let ret = self.zonk(&ret);
        self.funs[idx].ret = Some(ret.clone());
        // Nested functions must be complete before this frame's capture list is final.
        let nested: Vec<usize> = (0..self.funs.len())
            .filter(|&j| {
                self.funs[j].state == FunState::Unchecked
                    && self.frames[self.funs[j].frame].parent == Some(sig.frame)
            })
            .collect();
        for j in nested {
            self.check_function(j);
        }
        let frame = &self.frames[sig.frame];
        let function = ir::Function {
            name: sig.name.clone(),
            kind: sig.kind,
            span: sig.span,
            type_params: frame.type_params.clone(),
            params: sig.params.clone(),
            ret,
            n_slots: frame.n_slots,
            cell_slots: frame.cell_slots.clone(),
            captures: frame.captures.iter().map(|(_, c)| *c).collect(),
            body,
            pure_: crate::check::traits::pure_function(sig.kind, frame.impure),
        };
        self.funs[idx].pure_ = function.pure_;
        self.unit.out_funs.push((sig.id, Arc::new(function)));
        self.funs[idx].state = FunState::Done;
        self.scope = saved.0;
        self.frame = saved.1;
    }

    /// Check every function of the unit that nobody called.
    pub(crate) fn check_pending_functions(&mut self) {
        let mut i = 0;
        while i < self.funs.len() {
            if self.funs[i].state == FunState::Unchecked {
                self.check_function(i);
            }
            i += 1;
        }
    }

    // -----------------------------------------------------------------------------------------
    // Statements
    // -----------------------------------------------------------------------------------------

    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) -> Vec<ir::Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    fn stmt(&mut self, s: &Stmt, out: &mut Vec<ir::Stmt>) {
        match &s.node {
            StmtKind::Var { name, init, .. } => self.var_stmt(s, name, init.as_ref(), out),
            StmtKind::Val { name, init, .. } => self.var_stmt(s, name, Some(init), out),
            StmtKind::Fun(_)
            | StmtKind::NewType { .. }
            | StmtKind::Typedef { .. }
            | StmtKind::Struct { .. }
            | StmtKind::Variant { .. } => {}
            StmtKind::Expr(e) => {
                if let Some(st) = self.expr_stmt(e) {
                    out.push(st);
                }
            }
            StmtKind::Assign { target, op, value } => {
                if let Some(st) = self.assign(target, *op, value, s.span) {
                    out.push(st);
                }
            }
            StmtKind::Incr { target, up } => {
                let one = ast::Expr::new(
                    ExprKind::Int(ast::IntLit {
                        value: Some(1),
                        suffix: String::new(),
                    }),
                    s.span,
                );
                let op = if *up { AssignOp::Add } else { AssignOp::Sub };
                if let Some(st) = self.assign(target, op, &one, s.span) {
                    out.push(st);
                }
            }
            StmtKind::Store { target, value } => {
                if let Some(st) = self.store(target, value) {
                    out.push(st);
                }
            }
            StmtKind::StoreAt { pointer, value } => {
                if let Some(st) = self.store_at(pointer, value) {
                    out.push(st);
                }
            }
            StmtKind::Assert(e) => {
                let cond = self.bool_expr(e);
                self.note_effect();
                out.push(ir::Stmt::Expr(mk(
                    ir::ExprKind::Prim(Prim::Assert, vec![cond]),
                    Type::VOID,
                    s.span,
                )));
            }
            StmtKind::Return(e) => {
                let frame = self.frame;
                if self.frames[frame].global {
                    self.type_error(s.span, "`return` outside a function");
                    return;
                }
                let value = e.as_ref().map(|e| {
                    let expected = self.frames[frame].ret.clone();
                    let ir = self.expr(e, expected.as_ref());
                    match expected {
                        Some(t) => self.coerce_to(ir, &t, "the returned value"),
                        None => {
                            self.frames[frame].ret = Some(ir.ty.clone());
                            ir
                        }
                    }
                });
                if value.is_none() {
                    match self.frames[frame].ret.clone() {
                        None => self.frames[frame].ret = Some(Type::VOID),
                        Some(t) if !t.is_void() && t != error_type() => self.type_error(
                            s.span,
                            format!("`return;` without a value in a function returning `{t}`"),
                        ),
                        _ => {}
                    }
                }
                out.push(ir::Stmt::Return(value));
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut else_ = match otherwise {
                    Some(b) => self.stmts(b),
                    None => Vec::new(),
                };
                let mut checked = Vec::new();
                for (c, b) in branches {
                    let cond = self.bool_expr(c);
                    let body = self.stmts(b);
                    checked.push((cond, body));
                }
                for (cond, body) in checked.into_iter().rev() {
                    else_ = vec![ir::Stmt::If(cond, body, else_)];
                }
                out.extend(else_);
            }
            StmtKind::IfThenStatement(_) => {
                self.error(CheckError::IfThenStatement { span: s.span })
            }
            StmtKind::While { label, cond, body } | StmtKind::Until { label, cond, body } => {
                let until = matches!(s.node, StmtKind::Until { .. });
                let cond = self.bool_expr(cond);
                let (label, body) = self.loop_body(label.as_ref(), body);
                out.push(ir::Stmt::While {
                    label,
                    cond,
                    until,
                    body,
                });
            }
            StmtKind::Repeat { label, body } => {
                let (label, body) = self.loop_body(label.as_ref(), body);
                out.push(ir::Stmt::Loop { label, body });
            }
            StmtKind::For {
                label,
                var,
                kind,
                body,
            } => self.for_stmt(s, label.as_ref(), var, kind, body, out),
            StmtKind::Break(l) | StmtKind::Continue(l) => {
                let frame = self.frame;
                match self.frames[frame]
                    .labels
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == l.node)
                {
                    Some((_, id)) => out.push(if matches!(s.node, StmtKind::Break(_)) {
                        ir::Stmt::Break(*id)
                    } else {
                        ir::Stmt::Continue(*id)
                    }),
                    None => self.error(CheckError::UndefinedName {
                        name: l.node.clone(),
                        span: l.span,
                        what: "loop label",
                        hint: Some("label the loop: `name: for …` / `name: while …`".into()),
                    }),
                }
            }
            StmtKind::Seq(stmts) => {
                for s in stmts {
                    self.stmt(s, out);
                }
            }
            StmtKind::Block(stmts) => {
                let saved = self.scope;
                // An opaque type's implementation block was hoisted with this scope.
                let body = if let Some(inner) = self.impl_blocks.remove(&s.span) {
                    self.scope = inner;
                    self.stmts(stmts)
                } else {
                    self.scope = self.new_scope(Some(saved));
                    self.block_in_scope(stmts)
                };
                self.scope = saved;
                out.push(ir::Stmt::Block(body));
            }
            StmtKind::Match(scrutinee, arms) => {
                let scr = self.expr(scrutinee, None);
                let mut ir_arms = Vec::new();
                for arm in arms {
                    let saved = self.scope;
                    self.scope = self.new_scope(Some(saved));
                    let patterns = arm
                        .patterns
                        .iter()
                        .map(|p| self.pattern(p, &scr.ty))
                        .collect();
                    let guard = arm.guard.as_ref().map(|g| self.bool_expr(g));
                    let body = self.stmts(&arm.body);
                    self.scope = saved;
                    ir_arms.push(ir::Arm {
                        patterns,
                        guard,
                        body,
                    });
                }
                out.push(ir::Stmt::Match(scr, ir_arms));
            }
            StmtKind::Error => {}
        }
    }

    fn loop_body(
        &mut self,
        label: Option<&ast::SName>,
        body: &[Stmt],
    ) -> (ir::LabelId, Vec<ir::Stmt>) {
        let frame = self.frame;
        let id = self.frames[frame].next_label;
        self.frames[frame].next_label += 1;
        let name = label.map(|l| l.node.clone()).unwrap_or_default();
        self.frames[frame].labels.push((name, id));
        let body = self.stmts(body);
        self.frames[frame].labels.pop();
        (id, body)
    }

    /// The hoisted binding of a declaration statement.
    fn hoisted_var(&self, s: &Stmt) -> Option<VarBinding> {
        let mut sc = Some(self.scope);
        while let Some(id) = sc {
            if let Some(name) = self.scopes[id].decls.get(&s.span) {
                if let Some(Binding::Var(v)) = self.scopes[id].values.get(name) {
                    if v.decl.as_ref().map(|d| d.span) == Some(s.span) {
                        return Some(v.clone());
                    }
                }
                return None;
            }
            sc = self.scopes[id].parent;
        }
        None
    }

    pub(crate) fn set_var_type(&mut self, vb: &VarBinding, name: &str, t: Type) {
        if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
            if v.loc == vb.loc {
                v.ty = VarType::Known(t);
            }
        }
    }

    fn var_stmt(
        &mut self,
        s: &Stmt,
        name: &ast::SName,
        init: Option<&ast::Expr>,
        out: &mut Vec<ir::Stmt>,
    ) {
        let Some(vb) = self.hoisted_var(s) else {
            return;
        };
        let place = self.place_of(&vb);
        match (&vb.ty, init) {
            (VarType::Known(t), Some(e)) => {
                let t = t.clone();
                let ir = self.initialiser(&vb, &name.node, e, Some(&t));
                let ir = self.coerce_to(ir, &t, "this initialiser");
                out.push(ir::Stmt::Assign(place, ir));
            }
            (VarType::Known(t), None) => {
                let t = t.clone();
                if contains_error(&t) {
                    return;
                }
                if !has_zero(&t) {
                    self.error(CheckError::Type {
                        span: s.span,
                        message: format!(
                            "`{t}` has no zero value, so `{}` needs an initialiser",
                            name.node
                        ),
                        help: Some(format!("write `var {} : {t} = …;`", name.node)),
                    });
                    return;
                }
                out.push(ir::Stmt::Assign(
                    place,
                    ir::Expr {
                        kind: ir::ExprKind::Zero,
                        ty: t,
                        span: s.span,
                    },
                ));
            }
            (_, Some(e)) => {
                let ir = self.initialiser(&vb, &name.node, e, None);
                let t = self.zonk(&ir.ty);
                // A type still being inferred (a primitive named alone: `val h = rev;`) is
                // fixed by later uses in the unit; what remains unsolved at its end is E0302.
                if t.has_meta() && !crate::check::contains_error(&t) {
                    self.unit.deferred_vars.push((
                        e.span,
                        vb.clone(),
                        name.node.to_string(),
                        t.clone(),
                    ));
                }
                if t.is_void() {
                    self.type_error(e.span, "a procedure call has no value to store");
                }
                if t.has_secret() {
                    self.note_secret_variable(vb.span, e.span);
                }
                // A variable a visibility instance assigns secrets to (`secret.rs`).
                let t = t.narrow(self.secret.vars_forced.contains(&vb.span));
                self.set_var_type(&vb, &name.node, t);
                out.push(ir::Stmt::Assign(place, ir));
            }
            (_, None) => self.type_error(s.span, "a variable needs a type or an initialiser"),
        }
    }

    /// Check the initialiser of the variable `name` (bound by `vb`): inside it, `name` is the
    /// binding of the nearest enclosing scope, not the variable being defined (L11.36).
    pub(crate) fn initialiser(
        &mut self,
        vb: &VarBinding,
        name: &str,
        e: &ast::Expr,
        expected: Option<&Type>,
    ) -> ir::Expr {
        self.unit.hidden.push((vb.scope, name.to_string()));
        let ir = self.expr(e, expected);
        self.unit.hidden.pop();
        ir
    }

    /// The type of a variable, checking its declaration's initialiser now if it has not been
    /// reached yet (hoisting: a function may use a variable defined later).
    pub(crate) fn var_type(&mut self, name: &str, vb: &VarBinding, span: Span) -> Type {
        match &vb.ty {
            VarType::Known(t) => t.clone(),
            VarType::InProgress => {
                self.type_error(span, format!("`{name}` is used in its own initialiser"));
                error_type()
            }
            VarType::Pending => {
                let Some(decl) = vb.decl.clone() else {
                    return error_type();
                };
                if let Some(Binding::Var(v)) = self.scopes[vb.scope].values.get_mut(name) {
                    v.ty = VarType::InProgress;
                }
                let saved = (self.scope, self.frame);
                self.scope = vb.scope;
                self.frame = vb.loc.frame;
                let n_errors = self.unit.errors.len();
                let t = match &decl.node {
                    StmtKind::Var { init: Some(e), .. } | StmtKind::Val { init: e, .. } => {
                        self.initialiser(vb, name, e, None).ty
                    }
                    StmtKind::For {
                        kind:
                            ForKind::RangeExclusive(a, _)
                            | ForKind::RangeInclusive(a, _)
                            | ForKind::Upto { from: a, .. }
                            | ForKind::Downto { from: a, .. },
                        ..
                    } => self.expr(a, None).ty,
                    _ => error_type(),
                };
                // Errors are reported when the declaration itself is checked.
                self.unit.errors.truncate(n_errors);
                self.scope = saved.0;
                self.frame = saved.1;
                let t = self.zonk(&t);
                self.set_var_type(vb, name, t.clone());
                t
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Variables, places and captures
    // -----------------------------------------------------------------------------------------

    /// How the current frame reaches a variable: a local, a global, or a capture (adding the
    /// captures along the chain of enclosing functions).
    pub(crate) fn var_access(&mut self, vb: &VarBinding) -> ir::ExprKind {
        let loc = vb.loc;
        if self.frames[loc.frame].global {
            return ir::ExprKind::Global(loc.slot);
        }
        if loc.frame == self.frame {
            return if loc.cell {
                ir::ExprKind::LocalCell(loc.slot)
            } else {
                ir::ExprKind::Local(loc.slot)
            };
        }
        let idx = self.capture_chain(loc);
        if loc.cell {
            ir::ExprKind::CaptureCell(idx)
        } else {
            ir::ExprKind::Capture(idx)
        }
    }

    fn capture_chain(&mut self, loc: VarLoc) -> u32 {
        let mut chain = Vec::new();
        let mut f = self.frame;
        while f != loc.frame {
            chain.push(f);
            match self.frames[f].parent {
                Some(p) => f = p,
                None => break,
            }
        }
        let mut source = if loc.cell {
            Capture::Cell(loc.slot)
        } else {
            Capture::Slot(loc.slot)
        };
        let mut idx = 0;
        for fr in chain.into_iter().rev() {
            idx = self.frames[fr].capture(loc, source);
            source = Capture::Outer(idx);
        }
        idx
    }

    pub(crate) fn place_of(&mut self, vb: &VarBinding) -> Place {
        match self.var_access(vb) {
            ir::ExprKind::Global(s) => Place::Global(s),
            ir::ExprKind::Local(s) => Place::Local(s),
            ir::ExprKind::LocalCell(s) => Place::LocalCell(s),
            ir::ExprKind::CaptureCell(i) => Place::CaptureCell(i),
            _ => Place::Local(vb.loc.slot),
        }
    }

    /// Note an assignment for purity (L9.5): assigning outside the frame's own locals.
    fn note_assignment(&mut self, place: Place) {
        if matches!(place, Place::Global(_) | Place::CaptureCell(_)) {
            let frame = self.frame;
            self.frames[frame].impure = true;
        }
    }

    // -----------------------------------------------------------------------------------------
    // Assignment and stores (L5.3, L5.4)
    // -----------------------------------------------------------------------------------------

    fn assignable_var(&mut self, target: &ast::Expr) -> Option<(VarBinding, Type)> {
        let name = match &target.node {
            ExprKind::Name(n) => n,
            _ => {
                self.error(CheckError::NotAssignable {
                    span: target.span,
                    what: "this expression".into(),
                });
                return None;
            }
        };
        match self.lookup_value(name) {
            Some(Binding::Var(vb)) if vb.mutable => {
                let t = self.var_type(name, &vb, target.span);
                Some((vb, t))
            }
            Some(Binding::Var(_)) => {
                self.error(CheckError::NotAssignable {
                    span: target.span,
                    what: format!("`{name}`, which is a `val` or a parameter"),
                });
                None
            }
            Some(_) => {
                self.error(CheckError::NotAssignable {
                    span: target.span,
                    what: format!("`{name}`, which is not a variable"),
                });
                None
            }
            None => {
                self.error(CheckError::UndefinedName {
                    name: name.clone(),
                    span: target.span,
                    what: "variable",
                    hint: None,
                });
                None
            }
        }
    }

    fn assign(
        &mut self,
        target: &ast::Expr,
        op: AssignOp,
        value: &ast::Expr,
        span: Span,
    ) -> Option<ir::Stmt> {
        let (vb, t) = self.assignable_var(target)?;
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let rhs = match op {
            AssignOp::Set => {
                let ir = self.expr(value, Some(&t));
                self.want_secret_var(&vb, &ir.ty, &t);
                self.coerce_to(ir, &t, "this assignment")
            }
            _ => {
                let bop = match op {
                    AssignOp::Add => ast::BinOp::Add,
                    AssignOp::Sub => ast::BinOp::Sub,
                    AssignOp::Mul => ast::BinOp::Mul,
                    AssignOp::Div => ast::BinOp::Div,
                    AssignOp::Mod => ast::BinOp::Mod,
                    AssignOp::BitAnd => ast::BinOp::BitAnd,
                    AssignOp::BitOr => ast::BinOp::BitOr,
                    AssignOp::BitXor => ast::BinOp::BitXor,
                    AssignOp::Shl => ast::BinOp::Shl,
                    AssignOp::Shr => ast::BinOp::Shr,
                    AssignOp::Set => unreachable!(),
                };
                let current = ir::Expr {
                    kind: self.var_access(&vb),
                    ty: t.clone(),
                    span: target.span,
                };
                let rhs = self.expr(value, Some(&t));
                let combined = self.binary_ir(bop, current, rhs, span);
                self.want_secret_var(&vb, &combined.ty, &t);
                self.coerce_to(combined, &t, "this assignment")
            }
        };
        Some(ir::Stmt::Assign(place, rhs))
    }

    /// `&x.i.j <- v;`
    fn store(&mut self, target: &ast::Expr, value: &ast::Expr) -> Option<ir::Stmt> {
        // Unwind the projection chain down to the variable.
        let mut steps = Vec::new();
        let mut cur = target;
        loop {
            match &cur.node {
                ExprKind::Dot(lhs, rhs) => {
                    steps.push(rhs.as_ref());
                    cur = lhs;
                }
                ExprKind::Name(_) => break,
                _ => {
                    self.error(CheckError::NotAssignable {
                        span: target.span,
                        what: "this expression (store into a component of a `var`: `&x.i <- v;`)"
                            .into(),
                    });
                    return None;
                }
            }
        }
        steps.reverse();
        let (vb, root_ty) = self.assignable_var(cur)?;
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let mut ty = root_ty.clone();
        let mut path = Vec::new();
        for rhs in steps {
            if !ty.has_meta() && !self.is_projection(&ty, rhs) {
                // A step that is not a projection (`&x.px <- v` with a projection function
                // `px`): a store through the pointer the whole chain makes (L11.3). A local
                // has an address only when the function takes it with `&x` somewhere.
                if matches!(place, Place::Local(_)) {
                    self.error(CheckError::NotAddressable {
                        span: cur.span,
                        what: format!(
                            "`{}` here: `{}` is applied to a pointer; make one first with `val p = &{};`",
                            target_name(cur),
                            rhs_text(rhs),
                            target_name(cur)
                        ),
                    });
                    return None;
                }
                let pointer = ast::Expr::new(
                    ExprKind::Addr(
                        crate::syntax::ast::PtrMode::ReadWrite,
                        Box::new(target.clone()),
                    ),
                    target.span,
                );
                return self.store_at(&pointer, value);
            }
            let (step, next) = self.store_step(&ty, rhs)?;
            path.push(step);
            ty = next;
        }
        let v = self.expr(value, Some(&ty));
        // A visibility instance storing a secret into an element of an untyped variable
        // makes the variable secret (`secret.rs`).
        self.want_secret_var(&vb, &v.ty, &ty);
        let v = self.coerce_to(v, &ty, "this store");
        Some(ir::Stmt::Store {
            place,
            root_ty,
            path,
            value: v,
        })
    }

    /// Is `x.rhs` a projection (not a reverse application) for `x : ty`? Decided from the
    /// syntax and the bindings alone, without checking `rhs`.
    fn is_projection(&mut self, ty: &Type, rhs: &ast::Expr) -> bool {
        match &rhs.node {
            ExprKind::Name(n) => {
                if self.record_field_projection(ty, n).is_some()
                    || Checker::named_fields(ty)
                        .is_some_and(|fs| fs.iter().any(|(f, _)| **f == **n))
                {
                    return true;
                }
                match self.lookup_value(n) {
                    Some(Binding::Var(vb)) => {
                        let vt = self.var_type(n, &vb, rhs.span);
                        !matches!(self.zonk(&vt), Type::Fun(..))
                    }
                    _ => false,
                }
            }
            ExprKind::Qualified(_) | ExprKind::TypeApply(..) | ExprKind::Lambda(_) => false,
            _ => true,
        }
    }

    fn store_step(&mut self, ty: &Type, rhs: &ast::Expr) -> Option<(PathStep, Type)> {
        match self.projection(ty, rhs, None) {
            Some(Projection::Field(i, t)) => Some((PathStep::Field(i), t)),
            Some(Projection::Index(e, mode, t)) => Some((PathStep::Index(e, mode), t)),
            // A component of a compact value: the store rewrites its digits (L11.5).
            Some(Projection::CField(i, t)) => Some((PathStep::Field(i), t)),
            None => {
                if !ty.has_meta() {
                    self.type_error(
                        rhs.span,
                        format!("cannot store into a component of `{ty}` here"),
                    );
                }
                None
            }
        }
    }

    /// `set (&a, i, v)`: a store at a linear int position (L6.11).
    pub(crate) fn set_stmt(&mut self, arg: &ast::Expr, span: Span) -> Option<ir::Stmt> {
        let ExprKind::Tuple(items) = &arg.node else {
            self.type_error(span, "`set` takes `(&a, i, v)`");
            return None;
        };
        if items.len() != 3 {
            self.type_error(span, "`set` takes `(&a, i, v)`");
            return None;
        }
        let ExprKind::Addr(crate::syntax::ast::PtrMode::ReadWrite, target) = &items[0].node else {
            self.type_error(items[0].span, "the first argument of `set` is `&a`");
            return None;
        };
        let (vb, root_ty) = self.assignable_var(target)?;
        let place = self.place_of(&vb);
        self.note_assignment(place);
        let Type::Array(elem, _) = &root_ty else {
            self.type_error(
                target.span,
                format!("`set` needs an array, found `{root_ty}`"),
            );
            return None;
        };
        let elem = (**elem).clone();
        let i = self.expr(&items[1], None);
        if !matches!(i.ty, Type::Int(_)) {
            self.type_error(
                items[1].span,
                format!("the position must be an integer, found `{}`", i.ty),
            );
            return None;
        }
        let v = self.expr(&items[2], Some(&elem));
        let v = self.coerce_to(v, &elem, "`set`");
        Some(ir::Stmt::Store {
            place,
            root_ty,
            path: vec![PathStep::Index(i, IndexMode::Linear)],
            value: v,
        })
    }

    /// An expression statement: a procedure call, or a unit function called for effect.
    fn expr_stmt(&mut self, e: &ast::Expr) -> Option<ir::Stmt> {
        // `set (&a, i, v);`
        if let ExprKind::Apply { func, arg, .. } = &e.node {
            if let ExprKind::Name(n) = &func.node {
                if n == "set" && self.lookup_value(n).is_none() {
                    return self.set_stmt(arg, e.span);
                }
            }
        }
        let ir = self.expr(e, None);
        let t = self.zonk(&ir.ty);
        if t.is_void() || t == error_type() {
            return Some(ir::Stmt::Expr(ir));
        }
        if let Type::Fun(a, r) = &t {
            if a.is_unit() && r.is_void() {
                // `p;` calls a procedure with a unit parameter (L5.20).
                let span = ir.span;
                return Some(ir::Stmt::Expr(ir::Expr {
                    kind: ir::ExprKind::Call {
                        func: Box::new(ir),
                        args: vec![unit_const(span)],
                    },
                    ty: Type::VOID,
                    span,
                }));
            }
        }
        self.error(CheckError::Type {
            span: e.span,
            message: format!("the value of this expression (of type `{t}`) is discarded"),
            help: Some("only procedure calls can be statements; use the value or assign it".into()),
        });
        None
    }

    // -----------------------------------------------------------------------------------------
    // for loops (L5.7–L5.10)
    // -----------------------------------------------------------------------------------------

    fn for_stmt(
        &mut self,
        s: &Stmt,
        label: Option<&ast::SName>,
        var: &ast::SName,
        kind: &ForKind,
        body: &[Stmt],
        out: &mut Vec<ir::Stmt>,
    ) {
        match kind {
            ForKind::Type(te) => {
                let ty = self.type_expr(te);
                if !ty.has_meta()
                    && !crate::check::traits::has(
                        &ty,
                        crate::check::traits::Behaviour::CompactLinear,
                    )
                {
                    self.error(CheckError::NotCompact {
                        span: te.span,
                        ty: ty.to_string(),
                        context: "the type iterated by `..[T]`",
                        hint: crate::types::kind::compact_hint(&ty),
                    });
                    return;
                }
                let (place, body_ir, label) = self.loop_with_local(label, var, ty.clone(), body);
                out.push(ir::Stmt::ForCodes {
                    label,
                    var: place,
                    ty,
                    body: body_ir,
                });
            }
            ForKind::Array(arr) => {
                let a = self.expr(arr, None);
                let elem = match self.zonk(&a.ty) {
                    Type::Array(e, _) => (*e).clone(),
                    t => {
                        if t != error_type() {
                            self.type_error(
                                arr.span,
                                format!("`for v in a` needs an array, found `{t}`"),
                            );
                        }
                        return;
                    }
                };
                let (place, body_ir, label) = self.loop_with_local(label, var, elem, body);
                out.push(ir::Stmt::ForArray {
                    label,
                    var: place,
                    array: a,
                    body: body_ir,
                });
            }
            ForKind::RangeExclusive(a, b)
            | ForKind::RangeInclusive(a, b)
            | ForKind::Upto { from: a, to: b, .. }
            | ForKind::Downto { from: a, to: b, .. } => {
                let declares = match kind {
                    ForKind::Upto { declare, .. } | ForKind::Downto { declare, .. } => *declare,
                    _ => true,
                };
                let vb = if declares {
                    match self.hoisted_var(s) {
                        Some(vb) => vb,
                        None => return,
                    }
                } else {
                    match self.lookup_value(&var.node) {
                        Some(Binding::Var(vb)) if vb.mutable => vb,
                        Some(_) => {
                            self.error(CheckError::NotAssignable {
                                span: var.span,
                                what: format!("`{}` (`for … upto` assigns an existing `var`; write `for var {} in …` to declare it)", var.node, var.node),
                            });
                            return;
                        }
                        None => {
                            self.error(CheckError::UndefinedName {
                                name: var.node.clone(),
                                span: var.span,
                                what: "variable",
                                hint: Some(format!("`for … upto/downto` assigns an existing variable; write `for var {} in …`", var.node)),
                            });
                            return;
                        }
                    }
                };
                let from = self.expr(a, None);
                let ty = match &vb.ty {
                    VarType::Known(t) => t.clone(),
                    _ => {
                        let t = self.zonk(&from.ty);
                        self.set_var_type(&vb, &var.node, t.clone());
                        t
                    }
                };
                let Type::Int(ity) = ty else {
                    if ty != error_type() {
                        self.type_error(
                            a.span,
                            format!("a numeric `for` needs an integer, found `{ty}`"),
                        );
                    }
                    return;
                };
                let from = self.coerce_to(from, &ty, "the loop start");
                let to = self.expr(b, Some(&ty));
                let to = self.coerce_to(to, &ty, "the loop limit");
                let place = self.place_of(&vb);
                self.note_assignment(place);
                let rk = match kind {
                    ForKind::RangeExclusive(..) => RangeKind::Exclusive,
                    ForKind::Downto { .. } => RangeKind::Downto,
                    _ => RangeKind::Inclusive,
                };
                let (label, body_ir) = self.loop_body(label, body);
                out.push(ir::Stmt::ForRange {
                    label,
                    var: place,
                    var_ty: ity,
                    from,
                    to,
                    kind: rk,
                    body: body_ir,
                });
            }
        }
    }

    /// A loop whose variable is bound in the body only (`..[T]`, `for v in a`): a child scope
    /// holding just the variable; declarations in the body were hoisted to the enclosing scope.
    fn loop_with_local(
        &mut self,
        label: Option<&ast::SName>,
        var: &ast::SName,
        ty: Type,
        body: &[Stmt],
    ) -> (Place, Vec<ir::Stmt>, ir::LabelId) {
        let saved = self.scope;
        let frame = self.frame;
        let scope = self.new_scope(Some(saved));
        self.scope = scope;
        let global = self.frames[frame].global;
        let cell = !global && self.frames[frame].captured_names.contains(&var.node);
        let slot = self.frames[frame].alloc();
        if cell {
            self.frames[frame].cell_slots.push(slot);
        }
        let vb = VarBinding {
            loc: VarLoc { frame, slot, cell },
            ty: VarType::Known(ty),
            mutable: false,
            span: var.span,
            decl: None,
            scope,
        };
        self.scopes[scope]
            .values
            .insert(var.node.clone(), Binding::Var(vb.clone()));
        let place = self.place_of(&vb);
        let (label, body_ir) = self.loop_body(label, body);
        self.scope = saved;
        (place, body_ir, label)
    }

    /// The type of a struct field or a constructor argument: public (issue 14: a struct or
    /// variant value is secret as a whole, `secret P`, which the evaluator never sees; a
    /// nominal type's own body stays public).
    fn field_type(&mut self, te: &ast::TypeExpr) -> Type {
        let t = self.type_expr(te);
        if t.has_secret() {
            self.secret_error(
                te.span,
                crate::check::secret::SecretUse::Qualifier,
                format!("a field of a struct or variant cannot be `{t}`: declare the values secret instead (`secret P`)"),
            );
            return crate::check::error_type();
        }
        t
    }

    /// A condition (`if`, `while`, `until`, `assert`, a guard): a public `bool`.
    pub(crate) fn bool_expr(&mut self, e: &ast::Expr) -> ir::Expr {
        let ir = self.expr(e, Some(&Type::BOOL));
        if !self.require_public(
            &ir,
            crate::check::secret::SecretUse::Branch,
            "a branch (the condition of `if`, `while`, `until`, `assert` or a guard)",
        ) {
            return crate::check::expr::error_expr(ir.span);
        }
        self.coerce_to(ir, &Type::BOOL, "this condition")
    }

    /// An operand of `and`, `or`, `not`: a `bool`, public or secret (issue 14); the checked
    /// operand (its type erased to `bool`) and whether it was secret.
    pub(crate) fn bool_operand(&mut self, e: &ast::Expr) -> (ir::Expr, bool) {
        let ir = self.expr(e, Some(&Type::BOOL));
        let t = self.zonk(&ir.ty);
        if t == Type::secret(Type::BOOL) {
            let mut ir = ir;
            ir.ty = Type::BOOL;
            return (ir, true);
        }
        (self.coerce_to(ir, &Type::BOOL, "this condition"), false)
    }
}

/// A unit constant.
pub(crate) fn unit_const(span: Span) -> ir::Expr {
    ir::Expr {
        kind: ir::ExprKind::Const(ir::Const::Unit),
        ty: Type::UNIT,
        span,
    }
}

/// Does the type have a zero value (L5.1)? A shared part (a typedef used twice) is decided
/// once, so this is linear in the size of the type's DAG.
pub(crate) fn has_zero(t: &Type) -> bool {
    has_zero_shared(t, &mut std::collections::HashMap::new())
}

fn has_zero_shared(
    t: &Type,
    memo: &mut std::collections::HashMap<(u8, usize, usize), bool>,
) -> bool {
    let key = t.node_key().filter(|_| t.tree_size() > 8);
    if let Some(known) = key.and_then(|key| memo.get(&key)) {
        return *known;
    }
    let mut has_zero = |t: &Type| has_zero_shared(t, memo);
    let answer = match t {
        Type::Unitsum(0) => false,
        Type::Unitsum(_)
        | Type::Int(_)
        | Type::Float
        | Type::Double
        | Type::String
        | Type::Char
        | Type::Natural => true,
        Type::Tuple(cs) | Type::CProduct(cs) | Type::Record(_, cs) => cs.iter().all(&mut has_zero),
        Type::CSum(cs) => cs.iter().any(&mut has_zero),
        Type::Array(e, _) | Type::CArray(e, _) | Type::Secret(e) => has_zero(e),
        Type::Sum(_)
        | Type::Fun(..)
        | Type::Var(_)
        | Type::Meta(_)
        | Type::Ptr(..)
        | Type::CPtr(..) => false,
        Type::Nominal(n) => match n.body.get() {
            Some(NominalBody::Struct(fs)) => fs.iter().all(|(_, t)| has_zero(t)),
            _ => false,
        },
    };
    if let Some(key) = key {
        memo.insert(key, answer);
    }
    answer
}

/// The statements whose declarations belong to this scope: the statements themselves and
/// those inside bodies that do not open a scope (if, loops, match arms).
fn collect_hoisted<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
    for s in stmts {
        out.push(s);
        match &s.node {
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches {
                    collect_hoisted(b, out);
                }
                if let Some(b) = otherwise {
                    collect_hoisted(b, out);
                }
            }
            StmtKind::While { body, .. }
            | StmtKind::Until { body, .. }
            | StmtKind::Repeat { body, .. }
            | StmtKind::For { body, .. }
            | StmtKind::Seq(body) => collect_hoisted(body, out),
            StmtKind::Match(_, arms) => {
                for a in arms {
                    collect_hoisted(&a.body, out);
                }
            }
            _ => {}
        }
    }
}

/// Every name mentioned inside functions nested in this body (an over-approximation of the
/// variables they capture).
pub(crate) fn names_in_nested_functions(body: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut v = NameCollector {
        names: &mut names,
        inside: 0,
    };
    for s in body {
        v.stmt(s);
    }
    names
}

pub(crate) fn names_in_nested_functions_expr(e: &ast::Expr) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut v = NameCollector {
        names: &mut names,
        inside: 0,
    };
    v.expr(e);
    names
}

struct NameCollector<'a> {
    names: &'a mut HashSet<String>,
    inside: u32,
}

impl NameCollector<'_> {
    /// Visit the indices of a projection chain `x.a.(i)` and return its root.
    fn path_root<'e>(&mut self, mut e: &'e ast::Expr) -> &'e ast::Expr {
        while let ExprKind::Dot(lhs, rhs) = &e.node {
            self.expr(rhs);
            e = lhs;
        }
        if !matches!(e.node, ExprKind::Name(_)) {
            self.expr(e);
        }
        e
    }

    fn fundef(&mut self, f: &FunDef) {
        self.inside += 1;
        match &f.body {
            FunBody::Expr(e) => self.expr(e),
            FunBody::Block(b) => {
                for s in b {
                    self.stmt(s)
                }
            }
        }
        self.inside -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.node {
            StmtKind::Var { init: Some(e), .. } => self.expr(e),
            StmtKind::Val { init, .. } => self.expr(init),
            StmtKind::Fun(f) => self.fundef(f),
            StmtKind::Expr(e) | StmtKind::IfThenStatement(e) => self.expr(e),
            StmtKind::Assign { target, value, .. }
            | StmtKind::Store { target, value }
            | StmtKind::StoreAt {
                pointer: target,
                value,
            } => {
                self.expr(target);
                self.expr(value)
            }
            StmtKind::Incr { target, .. } => self.expr(target),
            StmtKind::Return(Some(e)) | StmtKind::Assert(e) => self.expr(e),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, b) in branches {
                    self.expr(c);
                    for s in b {
                        self.stmt(s)
                    }
                }
                if let Some(b) = otherwise {
                    for s in b {
                        self.stmt(s)
                    }
                }
            }
            StmtKind::While { cond, body, .. } | StmtKind::Until { cond, body, .. } => {
                self.expr(cond);
                for s in body {
                    self.stmt(s)
                }
            }
            StmtKind::Repeat { body, .. } | StmtKind::Block(body) | StmtKind::Seq(body) => {
                for s in body {
                    self.stmt(s)
                }
            }
            StmtKind::For {
                var, kind, body, ..
            } => {
                if self.inside > 0 {
                    self.names.insert(var.node.clone());
                }
                match kind {
                    ForKind::Array(e) => self.expr(e),
                    ForKind::RangeExclusive(a, b) | ForKind::RangeInclusive(a, b) => {
                        self.expr(a);
                        self.expr(b)
                    }
                    ForKind::Upto { from, to, .. } | ForKind::Downto { from, to, .. } => {
                        self.expr(from);
                        self.expr(to)
                    }
                    ForKind::Type(_) => {}
                }
                for s in body {
                    self.stmt(s)
                }
            }
            StmtKind::Match(e, arms) => {
                self.expr(e);
                for a in arms {
                    if let Some(g) = &a.guard {
                        self.expr(g)
                    }
                    for s in &a.body {
                        self.stmt(s)
                    }
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &ast::Expr) {
        match &e.node {
            ExprKind::Name(n) if self.inside > 0 => {
                self.names.insert(n.clone());
            }
            ExprKind::Lambda(f) => self.fundef(f),
            // An addressed variable is a cell (L11.1): its pointer may outlive the frame.
            ExprKind::Addr(_, a) => {
                let root = self.path_root(a);
                if let ExprKind::Name(n) = &root.node {
                    self.names.insert(n.clone());
                }
            }
            // `set (&a, i, v)` stores in place; `a` needs no address.
            ExprKind::Apply { func, arg, .. }
                if matches!(&func.node, ExprKind::Name(n) if n == "set")
                    && matches!(&arg.node, ExprKind::Tuple(items)
                        if matches!(items.first().map(|i| &i.node), Some(ExprKind::Addr(..)))) =>
            {
                let ExprKind::Tuple(items) = &arg.node else {
                    return;
                };
                for (k, item) in items.iter().enumerate() {
                    match &item.node {
                        ExprKind::Addr(_, a) if k == 0 => {
                            self.path_root(a);
                        }
                        _ => self.expr(item),
                    }
                }
            }
            ExprKind::TypeApply(a, _)
            | ExprKind::Hash(a)
            | ExprKind::Deref(a)
            | ExprKind::Unary(_, a)
            | ExprKind::Caseno(a)
            | ExprKind::Aproj(a, _)
            | ExprKind::OfType(a, _)
            | ExprKind::Component { tuple: a, .. }
            | ExprKind::Coerce(a, _) => self.expr(a),
            ExprKind::Tuple(xs) | ExprKind::CTuple(xs) => {
                for x in xs {
                    self.expr(x)
                }
            }
            ExprKind::Record(fields) => {
                for (_, x) in fields {
                    self.expr(x)
                }
            }
            ExprKind::Apply { func, arg, .. } => {
                self.expr(func);
                self.expr(arg)
            }
            ExprKind::Dot(a, b)
            | ExprKind::StrIndex(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::BuiltinBinary(_, a, b) => {
                self.expr(a);
                self.expr(b)
            }
            ExprKind::StrSlice(a, b, c) => {
                self.expr(a);
                if let Some(b) = b {
                    self.expr(b)
                }
                if let Some(c) = c {
                    self.expr(c)
                }
            }
            ExprKind::If(bs, e) => {
                for (c, x) in bs {
                    self.expr(c);
                    self.expr(x)
                }
                self.expr(e)
            }
            ExprKind::Match(s, arms) => {
                self.expr(s);
                for a in arms {
                    if let Some(g) = &a.guard {
                        self.expr(g)
                    }
                    self.expr(&a.body)
                }
            }
            _ => {}
        }
    }
}

/// A projection of a value of some type, resolved (used by `x.i` and by stores).
pub(crate) enum Projection {
    Field(u32, Type),
    CField(u32, Type),
    Index(ir::Expr, IndexMode, Type),
}

fn target_name(e: &ast::Expr) -> String {
    match &e.node {
        ExprKind::Name(n) => n.to_string(),
        _ => "this".into(),
    }
}

fn rhs_text(e: &ast::Expr) -> String {
    match &e.node {
        ExprKind::Name(n) => n.to_string(),
        _ => "this function".into(),
    }
}
