//! Scopes and hoisting: the declarations of a scope (types, variables, functions) are
//! entered before its statements are checked, so they may be used before they appear.

use std::sync::Arc;

use crate::check::env::{Binding, TypeBinding, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, Place};
use crate::syntax::ast::{self, ForKind, FunDef, Stmt, StmtKind};
use crate::types::ty::{NominalBody, NominalDef, Type};

impl Checker {
    /// Hoist the declarations of `stmts` into the current scope, then check them in order.
    pub(crate) fn block_in_scope(&mut self, stmts: &[Stmt]) -> Vec<ir::Stmt> {
        let mut out = Vec::new();
        self.hoist(stmts, &mut out);
        if Self::has_labels(stmts) {
            out.extend(self.labelled_stmts(stmts));
            return out;
        }
        for s in stmts {
            self.stmt(s, &mut out);
        }
        self.bind_sizes_after_assignments(&mut out);
        out
    }

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
                    if self.library_source {
                        def.library
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    self.next_nominal += 1;
                    self.declare_type(name, TypeBinding::Nominal(def.clone()));
                    if let StmtKind::Struct { fields, .. } = &s.node {
                        self.note_fields(def.id, fields);
                    }
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
        // Only now, when no body can grow without end, are the bodies set (the instances
        // made so far have theirs from then on).
        let declared: Vec<Arc<NominalDef>> = nominals.iter().map(|(_, d, _)| d.clone()).collect();
        for ((s, def, _), body) in nominals.iter().zip(bodies) {
            let body = self.regular_body(s, &declared, body);
            def.set_body(body);
        }
        self.define_opaque(&flat, opaque, prelude);
        self.hoist_modules(&flat, prelude);
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
        // Names declared here other than by a range loop.
        let other_names: std::collections::HashSet<ast::Name> = flat
            .iter()
            .filter_map(|s| match &s.node {
                StmtKind::Var { name, .. } | StmtKind::Val { name, .. } => Some(name.node.clone()),
                StmtKind::For {
                    var,
                    kind:
                        ForKind::Upto { declare: true, .. } | ForKind::Downto { declare: true, .. },
                    ..
                } => Some(var.node.clone()),
                StmtKind::Fun(def) => def.name.as_ref().map(|n| n.node.clone()),
                _ => None,
            })
            .collect();
        for s in &flat {
            match &s.node {
                StmtKind::Var { name, ty, .. } => self.declare_var(s, name, ty.as_ref(), true),
                StmtKind::Val {
                    name, ty, sizes, ..
                } => {
                    for size in sizes {
                        self.declare_size_name(size);
                    }
                    self.declare_var(s, name, ty.as_ref(), false)
                }
                StmtKind::For { var, kind, .. } => {
                    let declares = match kind {
                        // Felix binds a range loop's variable by a pattern inside the loop, so
                        // the name may be reused; the first loop over a name not otherwise
                        // declared here declares it in this scope (readable after the loop),
                        // any other binds it in the loop only.
                        ForKind::RangeExclusive(..) | ForKind::RangeInclusive(..) => {
                            !other_names.contains(&var.node)
                                && !self.scopes[self.scope].values.contains_key(&var.node)
                        }
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
        if !matches!(b, TypeBinding::Param(_)) {
            self.note_def(&name.node, super::index::DefKind::Type, name.span, None);
        }
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
        use super::index::DefKind;
        let kind = match &b {
            Binding::Var(v) if v.mutable => Some(DefKind::Var),
            Binding::Var(_) => Some(DefKind::Val),
            Binding::Funs(_) => Some(DefKind::Fun),
            Binding::Ctor { .. } => Some(DefKind::Ctor),
            Binding::Opaque { .. } => None,
        };
        if let Some(kind) = kind {
            self.note_def(&name.node, kind, name.span, None);
        }
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
        let loc = self.new_variable_slot(name, mutable);
        let vty = match ty {
            Some(t) => VarType::Known(self.type_expr(t)),
            None => VarType::Pending,
        };
        let scope = self.scope;
        self.scopes[scope].decls.insert(s.span, name.node.clone());
        self.declare_value(
            name,
            Binding::Var(VarBinding {
                loc,
                ty: vty,
                mutable,
                span: name.span,
                decl: Some(Arc::new(s.clone())),
                scope,
            }),
        );
    }

    /// A slot of the current frame for the variable `name` (a cell when a closure captures
    /// it; a global at the top level).
    fn new_variable_slot(&mut self, name: &ast::SName, mutable: bool) -> VarLoc {
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
                unit: 0,
                mutable,
            });
        }
        VarLoc { frame, slot, cell }
    }

    /// Declare the name `m` of `val [m] x = e;`: an integer `val`, assigned the size after `x`.
    fn declare_size_name(&mut self, name: &ast::SName) {
        let loc = self.new_variable_slot(name, false);
        let scope = self.scope;
        self.declare_value(
            name,
            Binding::Var(VarBinding {
                loc,
                ty: VarType::Known(Type::INT),
                mutable: false,
                span: name.span,
                decl: None,
                scope,
            }),
        );
    }

    /// Declare a function: its frame, scope, type parameters, parameter bindings, signature.
    fn declare_fun(&mut self, def: &std::sync::Arc<FunDef>, prelude: &mut Vec<ir::Stmt>) {
        let name = def
            .name
            .clone()
            .unwrap_or_else(|| ast::SName::new("<lambda>".into(), def.span));
        let idx = self.new_function(def, &name.node);
        self.note_template(idx);
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

    /// The hoisted binding of a declaration statement.
    pub(crate) fn hoisted_var(&self, s: &Stmt) -> Option<VarBinding> {
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

    /// The type of a struct field or a constructor argument: public (a struct or
    /// variant value is secret as a whole, `secret P`, which the evaluator never sees; a
    /// nominal type's own body stays public).
    fn field_type(&mut self, te: &ast::TypeExpr) -> Type {
        let t = self.type_expr(te);
        if t.has_secret() {
            self.secret_error(
                te.span,
                crate::check::error::SecretUse::Qualifier,
                format!("a field of a struct or variant cannot be `{t}`: declare the values secret instead (`secret P`)"),
            );
            return crate::check::error_type();
        }
        t
    }
}

/// The statements whose declarations belong to this scope: the statements themselves and
/// those inside bodies that do not open a scope (if, loops, match arms).
pub(crate) fn collect_hoisted<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
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
