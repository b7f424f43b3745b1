//! Statements: declarations of variables, expression statements, control flow, loops.

use crate::check::build::{error_expr, mk, unit_const};
use crate::check::env::{Binding, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, Place, Prim, RangeKind};
use crate::syntax::ast::{self, AssignOp, ExprKind, ForKind, Stmt, StmtKind};
use crate::types::ty::{IntTy, NominalBody, Type};

impl Checker {
    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) -> Vec<ir::Stmt> {
        if Self::has_labels(stmts) {
            return self.labelled_stmts(stmts);
        }
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out);
        }
        self.bind_sizes_after_assignments(&mut out);
        out
    }

    pub(crate) fn stmt(&mut self, s: &Stmt, out: &mut Vec<ir::Stmt>) {
        let fresh = self.unit.fresh_sizes.len();
        let pre = std::mem::take(&mut self.unit.pre_stmts);
        let start = out.len();
        let jumps = self.pending_jumps();
        self.stmt_kind(s, out);
        self.report_jumps(jumps);
        if self.unit.fresh_sizes.len() > fresh {
            self.bind_fresh_sizes(s.span, out, start, fresh);
        }
        if !self.unit.pre_stmts.is_empty() {
            self.flush_pre_stmts(s.span, out, start);
        }
        self.unit.pre_stmts = pre;
    }

    fn stmt_kind(&mut self, s: &Stmt, out: &mut Vec<ir::Stmt>) {
        match &s.node {
            StmtKind::Var { name, init, .. } => {
                let jumps = self.pending_jumps();
                self.var_stmt(s, name, init.as_ref(), out);
                if let Some(e) = init {
                    self.claim_jumps(jumps, e, s);
                }
            }
            StmtKind::Val { name, init, .. } => {
                let jumps = self.pending_jumps();
                let before = out.len();
                self.var_stmt(s, name, Some(init), out);
                if out.len() == before + 1 {
                    self.note_offset_alias(&out[before]);
                }
                self.claim_jumps(jumps, init, s);
            }
            StmtKind::Module(item) => self.module_stmt(s, item, out),
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
            // A label outside a list that has it (`labelled_stmts`) cannot happen.
            StmtKind::Label(_) => {}
            StmtKind::Goto(l) => self.goto_stmt(l, s.span, out),
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
                    let heads = self.arm_heads(arm, &scr.ty);
                    let body = self.stmts(&arm.body);
                    self.scope = saved;
                    crate::check::expr::push_arms(&mut ir_arms, heads, body);
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
        // `val [m] x = e;`: the names of the value's run-time sizes.
        let size_names: &[ast::SName] = match &s.node {
            StmtKind::Val { sizes, .. } => sizes,
            _ => &[],
        };
        match (&vb.ty, init) {
            (VarType::Known(t), Some(e)) => {
                let t = t.clone();
                let ir = self.initialiser(&vb, &name.node, e, Some(&t));
                let ir = self.name_fresh_sizes(size_names, ir);
                let ir = self.coerce_to(ir, &t, "this initialiser");
                out.push(ir::Stmt::Assign(place, ir));
                self.assign_size_names(&vb, &name.node, size_names, &t, out);
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
                let ir = self.name_fresh_sizes(size_names, ir);
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
                // An array of a size known only now (`val ys = filter p xs;`): the size is
                // the variable's length.
                let t = if size_names.is_empty() {
                    self.size_of_variable(&vb, &name.node, t)
                } else {
                    t
                };
                self.set_var_type(&vb, &name.node, t.clone());
                out.push(ir::Stmt::Assign(place, ir));
                self.assign_size_names(&vb, &name.node, size_names, &t, out);
            }
            (_, None) => self.type_error(s.span, "a variable needs a type or an initialiser"),
        }
    }

    /// Check the initialiser of the variable `name` (bound by `vb`): inside it, `name` is the
    /// binding of the nearest enclosing scope, not the variable being defined.
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

    /// An expression statement: a procedure call, or a unit function called for effect.
    fn expr_stmt(&mut self, e: &ast::Expr) -> Option<ir::Stmt> {
        // `set (&a, i, v);`
        if let ExprKind::Apply { func, arg, .. } = &e.node {
            if let ExprKind::Name(n) = &func.node {
                if n == "set" && self.lookup_value(n).is_none() && stores_through_pointer(arg) {
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
                // `p;` calls a procedure with a unit parameter.
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
                let owned = self
                    .secret
                    .distributed
                    .then(|| self.enter_owned_loop(&var.node, &ty, body));
                let (place, body_ir, label) = self.loop_with_local(label, var, ty.clone(), body);
                let mut stmt = ir::Stmt::ForCodes {
                    label,
                    var: place,
                    ty,
                    body: body_ir,
                };
                if let Some(first_scope) = owned {
                    stmt = self.leave_owned_loop(first_scope, body, stmt, var.span);
                }
                out.push(stmt);
            }
            ForKind::Array(arr) => {
                let a = self.expr(arr, None);
                let elem = match self.zonk(&a.ty) {
                    Type::Array(e, _) => (*e).clone(),
                    Type::String => return self.for_chars(label, var, a, body, out),
                    Type::Nominal(_) => return self.for_cursor(label, var, a, body, out),
                    t => {
                        if t != error_type() {
                            self.type_error(
                                arr.span,
                                format!(
                                    "`for v in a` needs an array, a string, a list, an option, a varray or a darray, found `{t}`"
                                ),
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
                let from = self.expr(a, None);
                let saved_scope = self.scope;
                let vb = if declares {
                    match self.hoisted_var(s) {
                        Some(vb) => vb,
                        None if matches!(
                            kind,
                            ForKind::RangeExclusive(..) | ForKind::RangeInclusive(..)
                        ) =>
                        {
                            self.loop_local_var(var)
                        }
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
                    self.scope = saved_scope;
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
                self.scope = saved_scope;
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

    /// A fresh variable of the current frame the program cannot name (a loop's container or
    /// cursor).
    pub(crate) fn hidden_place(&mut self) -> Place {
        let frame = self.frame;
        let slot = self.frames[frame].alloc();
        self.place_at(VarLoc {
            frame,
            slot,
            cell: false,
        })
    }

    /// A loop whose variable is bound in the body only (`..[T]`, `for v in a`): a child scope
    /// holding just the variable; declarations in the body were hoisted to the enclosing scope.
    /// `for c in s` over a string: its characters (bytes) in order, as
    /// `for i in 0 ..< len s do val c = s.[i]; … done` over a copy of `s` made first.
    fn for_chars(
        &mut self,
        label: Option<&ast::SName>,
        var: &ast::SName,
        text: ir::Expr,
        body: &[Stmt],
        out: &mut Vec<ir::Stmt>,
    ) {
        let span = text.span;
        let (string, index) = (self.hidden_place(), self.hidden_place());
        let read = |place: Place, ty: Type| mk(crate::check::build::read_place(place), ty, span);
        let (place, body_ir, label) = self.loop_with_local(label, var, Type::Char, body);
        out.push(ir::Stmt::Assign(string, text));
        let len = mk(
            ir::ExprKind::Prim(Prim::StrLen, vec![read(string, Type::String)]),
            Type::SIZE,
            span,
        );
        let to = mk(
            ir::ExprKind::Prim(Prim::Convert, vec![len]),
            Type::INT,
            span,
        );
        let char_at = mk(
            ir::ExprKind::Prim(
                Prim::StrIndex,
                vec![read(string, Type::String), read(index, Type::INT)],
            ),
            Type::Char,
            span,
        );
        let mut loop_body = vec![ir::Stmt::Assign(place, char_at)];
        loop_body.extend(body_ir);
        out.push(ir::Stmt::ForRange {
            label,
            var: index,
            var_ty: IntTy::Int,
            from: mk(ir::ExprKind::Const(ir::Const::Int(0)), Type::INT, span),
            to,
            kind: ir::RangeKind::Exclusive,
            body: loop_body,
        });
    }

    /// A range loop's variable bound in the loop only: a child scope, made current, holding
    /// just the variable, whose type the loop's start gives.
    fn loop_local_var(&mut self, var: &ast::SName) -> VarBinding {
        self.bind_in_child_scope(var, VarType::Pending, true)
    }

    /// A new scope inside the current one, made current, holding just the variable `var` in
    /// a fresh slot of the current frame.
    fn bind_in_child_scope(&mut self, var: &ast::SName, ty: VarType, mutable: bool) -> VarBinding {
        let frame = self.frame;
        let scope = self.new_scope(Some(self.scope));
        self.scope = scope;
        let global = self.frames[frame].global;
        let cell = !global && self.frames[frame].captured_names.contains(&var.node);
        let slot = self.frames[frame].alloc();
        if cell {
            self.frames[frame].cell_slots.push(slot);
        }
        let (kind, known) = match (&ty, mutable) {
            (VarType::Known(t), false) => (super::index::DefKind::Val, Some(t.clone())),
            (VarType::Known(t), true) => (super::index::DefKind::Var, Some(t.clone())),
            (_, false) => (super::index::DefKind::Val, None),
            (_, true) => (super::index::DefKind::Var, None),
        };
        self.note_def(&var.node, kind, var.span, known);
        let vb = VarBinding {
            loc: VarLoc { frame, slot, cell },
            ty,
            mutable,
            span: var.span,
            decl: None,
            scope,
        };
        self.scopes[scope]
            .values
            .insert(var.node.clone(), Binding::Var(vb.clone()));
        vb
    }

    pub(crate) fn loop_with_local(
        &mut self,
        label: Option<&ast::SName>,
        var: &ast::SName,
        ty: Type,
        body: &[Stmt],
    ) -> (Place, Vec<ir::Stmt>, ir::LabelId) {
        let saved = self.scope;
        let vb = self.bind_in_child_scope(var, VarType::Known(ty), false);
        let place = self.place_of(&vb);
        let (label, body_ir) = self.loop_body(label, body);
        self.scope = saved;
        (place, body_ir, label)
    }

    /// A condition (`if`, `while`, `until`, `assert`, a guard): a public `bool`.
    pub(crate) fn bool_expr(&mut self, e: &ast::Expr) -> ir::Expr {
        let ir = self.expr(e, Some(&Type::BOOL));
        if !self.require_public(
            &ir,
            crate::check::error::SecretUse::Branch,
            "a branch (the condition of `if`, `while`, `until`, `assert` or a guard)",
        ) {
            return error_expr(ir.span);
        }
        self.coerce_to(ir, &Type::BOOL, "this condition")
    }

    /// An operand of `and`, `or`, `not`: a `bool`, public or secret; the checked
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

/// Does the type have a zero value (the initial value of a `var` declared without one)? A shared
/// part (a typedef used twice) is decided once, so this is linear in the size of the type's DAG.
pub(crate) fn has_zero(t: &Type) -> bool {
    has_zero_shared(t, &mut std::collections::HashMap::new())
}

fn has_zero_shared(
    t: &Type,
    memo: &mut std::collections::HashMap<(u8, usize, usize), bool>,
) -> bool {
    // A struct is decided once (a chain of structs each holding the previous one twice is
    // linear, not exponential), and one that contains itself without indirection has no zero
    // value (no finite value at all): it is marked `false` while its fields are decided.
    let key = match t {
        Type::Nominal(n) => Some((u8::MAX, n.id as usize, 0)),
        _ => t.node_key().filter(|_| t.tree_size() > 8),
    };
    if let Some(known) = key.and_then(|key| memo.get(&key)) {
        return *known;
    }
    if let (Some(key), Type::Nominal(_)) = (key, t) {
        memo.insert(key, false);
    }
    let mut has_zero = |t: &Type| has_zero_shared(t, memo);
    let answer = match t {
        Type::Unitsum(0) => false,
        // A compact type parameter or run-time size: code 0 (an array over it of any size,
        // none included, has a zero).
        Type::Var(v) if v.kind != crate::types::ty::Kind::Type => true,
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
        Type::Distributed(a) => has_zero(a),
        Type::Sum(_)
        | Type::Fun(..)
        | Type::Var(_)
        | Type::Meta(_)
        | Type::Ptr(..)
        | Type::CPtr(..) => false,
        Type::Nominal(n) => match n.body() {
            Some(NominalBody::Struct(fs)) => fs.iter().all(|(_, t)| has_zero(t)),
            _ => false,
        },
    };
    if let Some(key) = key {
        memo.insert(key, answer);
    }
    answer
}

/// Whether `set (…)` is the store into an array variable, `set (&a, i, v)`: its first argument
/// is a pointer. Any other `set (v, i, x)` is an application (a varray's `set`).
fn stores_through_pointer(arg: &ast::Expr) -> bool {
    match &arg.node {
        ExprKind::Tuple(items) => {
            matches!(items.first().map(|e| &e.node), Some(ExprKind::Addr(..)))
        }
        _ => true,
    }
}
