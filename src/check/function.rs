//! Function definitions: signatures, frames, parameters, the checking of bodies (on demand, or
//! at the end of the unit), and the names that functions nested in a body mention (the
//! variables they may capture, kept in cells).

use std::collections::HashSet;
use std::sync::Arc;

use crate::check::env::{
    Binding, Frame, FunSig, FunState, TypeBinding, VarBinding, VarLoc, VarType,
};
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, Place};
use crate::syntax::ast::{self, ExprKind, ForKind, FunBody, FunDef, FunKind, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::{Kind, TyVar, Type};

impl Checker {
    /// Create the signature, frame and scope of a function or lambda. Returns its index in
    /// `self.funs`.
    pub(crate) fn new_function(&mut self, def: &Arc<FunDef>, name: &str) -> usize {
        let id = self.next_fun;
        self.next_fun += 1;
        let parent_frame = self.frame;
        let mut frame = Frame::new(Some(parent_frame), false);
        frame.kind = def.kind;
        let outer_params = self.frames[parent_frame].type_params.clone();
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
            def: def.clone(),
            scope,
            frame: frame_id,
            params: patterns,
            state: FunState::Unchecked,
            pure_: def.kind == FunKind::Fun,
            library: self.library_source,
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
                // A recursive call while the result type is being inferred: the call
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
            FunState::Deferred => return self.check_library_body(idx),
        }
        self.funs[idx].state = FunState::InProgress;
        let template = self.enter_template(idx);
        let saved = (self.scope, self.frame);
        let sig = self.funs[idx].clone();
        self.scope = sig.scope;
        self.frame = sig.frame;
        self.frames[sig.frame].ret = sig.ret.clone();
        // What the body's nested functions mention is read here, not with the signature: a
        // library function's body is not decoded until it is first used.
        self.frames[sig.frame].captured_names = match &*sig.def.body {
            FunBody::Expr(e) => names_in_nested_functions_expr(e),
            FunBody::Block(b) => names_in_nested_functions(b),
        };
        // Sizes pending in the statement that asked for this body are not the body's.
        let caller_fresh = std::mem::take(&mut self.unit.fresh_sizes);
        let caller_pre = std::mem::take(&mut self.unit.pre_stmts);
        let body = match &*sig.def.body {
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
                let mut out = vec![ir::Stmt::Return(Some(ir))];
                if !self.unit.fresh_sizes.is_empty() {
                    self.bind_fresh_sizes(e.span, &mut out, 0, 0);
                }
                if !self.unit.pre_stmts.is_empty() {
                    self.flush_pre_stmts(e.span, &mut out, 0);
                }
                self.bind_sizes_after_assignments(&mut out);
                out
            }
            FunBody::Block(stmts) => {
                let out = self.block_in_scope(stmts);
                match self.frames[sig.frame].ret.clone() {
                    None => self.frames[sig.frame].ret = Some(Type::VOID),
                    Some(t)
                        if !t.is_void() && t != error_type() && super::flow::can_complete(&out) =>
                    {
                        let end = sig.def.span.end;
                        let name = match &sig.def.name {
                            Some(_) => format!("`{}`", sig.name),
                            None => "this function".to_string(),
                        };
                        let ret = self.zonk(&t).to_string();
                        self.error(CheckError::MissingReturn {
                            span: Span::new(end.saturating_sub(1), end),
                            name,
                            ret,
                        });
                    }
                    Some(_) => {}
                }
                out
            }
        };
        self.unit.fresh_sizes = caller_fresh;
        self.unit.pre_stmts = caller_pre;
        let mut body = body;
        self.bind_sizes_around(&mut body);
        self.unbound_sizes(&body);
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
        self.resolve_closures(sig.frame);
        // The closures of the specialised copies of templates nested here come first.
        if let Some(mut holders) = self.modules.classes.late_holders.remove(&sig.frame) {
            holders.append(&mut body);
            body = holders;
        }
        let frame = &self.frames[sig.frame];
        let mut type_params = frame.type_params.clone();
        type_params.extend(frame.borrowed_sizes.iter().cloned());
        let function = ir::Function {
            name: sig.name.clone(),
            kind: sig.kind,
            span: sig.span,
            type_params,
            size_params: frame.borrowed_sizes.len(),
            params: sig.params.clone(),
            ret,
            n_slots: frame.n_slots,
            cell_slots: frame.cell_slots.clone(),
            captures: frame.captures.iter().map(|(_, c)| *c).collect(),
            body,
            pure_: crate::check::traits::pure_function(sig.kind, frame.impure),
        };
        self.funs[idx].pure_ = function.pure_;
        if template {
            self.leave_template(sig.frame);
        } else {
            self.unit.out_funs.push((sig.id, Arc::new(function)));
        }
        self.funs[idx].state = FunState::Done;
        self.scope = saved.0;
        self.frame = saved.1;
    }

    /// Check the body of a library function on its first use in a later unit: in the
    /// library's scope (its signature's), as the library (`library_source`), recording
    /// nothing for an editor (the spans are the library's). Its IR and that of the
    /// functions nested in it join this unit as the library's.
    fn check_library_body(&mut self, idx: usize) {
        self.funs[idx].state = FunState::Unchecked;
        let first = self.unit.out_funs.len();
        let library = std::mem::replace(&mut self.library_source, true);
        let index = self.unit.index.take();
        self.check_function(idx);
        self.unit.index = index;
        self.library_source = library;
        let made: Vec<ir::FunId> = self.unit.out_funs[first.min(self.unit.out_funs.len())..]
            .iter()
            .map(|(id, _)| *id)
            .collect();
        self.unit.out_library_funs.extend(made);
    }

    /// Check every function of the unit that nobody called. In the library, a top-level
    /// function nobody called is left for its first use (`FunState::Deferred`).
    pub(crate) fn check_pending_functions(&mut self) {
        let mut i = 0;
        while i < self.funs.len() {
            if self.funs[i].state == FunState::Unchecked {
                if self.library_source && self.deferrable(i) {
                    self.funs[i].state = FunState::Deferred;
                } else {
                    self.check_function(i);
                }
            }
            i += 1;
        }
    }

    /// May the body of library function `idx` wait for its first use? A top-level function
    /// that no class mechanism (templates, virtual functions) needs checked now.
    fn deferrable(&self, idx: usize) -> bool {
        let sig = &self.funs[idx];
        sig.library
            && sig.holder.is_none()
            && self.frames[sig.frame].parent == Some(0)
            && !self.modules.classes.templates.contains(&idx)
            && !self.modules.classes.virtuals.contains_key(&idx)
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
        match &*f.body {
            FunBody::Expr(e) => self.expr(e),
            FunBody::Block(b) => {
                for s in b {
                    self.stmt(s)
                }
            }
        }
        self.inside -= 1;
    }

    pub(crate) fn stmt(&mut self, s: &Stmt) {
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
                    self.arm(a);
                    for s in &a.body {
                        self.stmt(s)
                    }
                }
            }
            // The functions of a module, class or instance in this body are nested in it.
            StmtKind::Module(item) => match item.as_ref() {
                ast::ModuleItem::Module { body, .. } | ast::ModuleItem::Instance { body, .. } => {
                    for s in body {
                        self.stmt(s)
                    }
                }
                ast::ModuleItem::Virtual { def, .. } => self.fundef(def),
                ast::ModuleItem::Open { .. } => {}
            },
            _ => {}
        }
    }

    /// The guards of an arm and the `with` bindings and guards of its alternatives.
    fn arm<B>(&mut self, a: &ast::MatchArm<B>) {
        if let Some(g) = &a.guard {
            self.expr(g)
        }
        for p in &a.patterns {
            self.pattern(p)
        }
    }

    /// The expressions inside a pattern: `with` values, guards and `$(e)`.
    fn pattern(&mut self, p: &ast::Pattern) {
        use ast::PatternKind as P;
        match &p.node {
            P::Guarded {
                pattern,
                with,
                guard,
            } => {
                self.pattern(pattern);
                for (_, e) in with {
                    self.expr(e)
                }
                if let Some(g) = guard {
                    self.expr(g)
                }
            }
            P::Expr(e) => self.expr(e),
            P::Tuple(ps) | P::Alt(ps) => ps.iter().for_each(|q| self.pattern(q)),
            P::Record(fields) => fields.iter().for_each(|(_, q)| self.pattern(q)),
            P::Case(_, Some(q)) | P::Ctor(_, q) | P::As(q, _) => self.pattern(q),
            P::Range(a, b) => {
                self.pattern(a);
                self.pattern(b)
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
            // An addressed variable is a cell: its pointer may outlive the frame.
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
            // The body is in the function of `()` the `let` stands for.
            ExprKind::LetFun(f, body) => {
                self.inside += 1;
                self.fundef(f);
                self.expr(body);
                self.inside -= 1;
            }
            ExprKind::Extend(bases, extension) => {
                for x in bases {
                    self.expr(x)
                }
                self.expr(extension)
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
            ExprKind::StrSlice(a, b, c)
            | ExprKind::Slice {
                base: a,
                from: b,
                to: c,
                ..
            } => {
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
                    self.arm(a);
                    self.expr(&a.body)
                }
            }
            ExprKind::Let(s, a) => {
                self.expr(s);
                self.arm(a);
                self.expr(&a.body)
            }
            _ => {}
        }
    }
}
