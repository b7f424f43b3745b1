//! Type classes: `class C[T] { virtual fun f: T -> R; … }`, `instance C[int] { … }`, and
//! functions with `with` constraints (`fun g[T with C[T]] (x:T) => f x;`).
//!
//! A class is a module (`module.rs`) whose definitions take the class's parameters first; a
//! virtual function is a generic function with no body (or a default one). Dispatch is
//! resolved while checking, never at run time: a function with constraints (every class
//! definition with a body has its class as one) is a *template*, checked once generically for
//! its errors and its result type, whose IR is not kept; each call at concrete types calls a
//! copy specialised to them (made once per type arguments), in which the constraints' classes
//! are opened at those types, so a virtual called there has concrete types and resolves to the
//! instance's function. A constraint on one of Felix's built-in classes (`Str[T]`, `Eq[T]`,
//! `Tord[T]`, …) asks the type for the matching behaviour (`traits.rs`).

use std::collections::{HashMap, HashSet};

use crate::check::env::{Binding, FunState, ScopeId, TypeBinding};
use crate::check::error::CheckError;
use crate::check::module::Open;
use crate::check::traits::Behaviour;
use crate::check::Checker;
use crate::core::ir;
use crate::syntax::ast::{self, Stmt};
use crate::syntax::span::Span;
use crate::types::ty::{TyVar, Type};

#[derive(Clone, Default)]
pub(crate) struct ClassState {
    /// Module, class and instance bodies as hoisted (with the parameters given to their
    /// definitions), by statement span.
    pub(crate) rewritten: HashMap<(ScopeId, Span), Vec<Stmt>>,
    pub(crate) instances: Vec<InstanceInfo>,
    /// The functions with constraints (by index into `Checker::funs`).
    pub(crate) templates: HashSet<usize>,
    pub(crate) virtuals: HashMap<usize, VirtualInfo>,
    /// The specialised copies of templates, by template and type arguments.
    pub(crate) specialised: HashMap<(usize, Vec<Type>), usize>,
    /// Inside the generic check of a template.
    pub(crate) template_depth: u32,
    /// The statements that make the closures of specialised copies nested in a function
    /// frame, by frame: run when the frame is entered, before its body.
    pub(crate) late_holders: HashMap<usize, Vec<ir::Stmt>>,
}

#[derive(Clone, Debug)]
pub(crate) struct InstanceInfo {
    /// The class's scope.
    pub(crate) class: ScopeId,
    pub(crate) scope: ScopeId,
    /// The instance's own type parameters (`instance[U] C[list[U]]`).
    pub(crate) vars: Vec<TyVar>,
    pub(crate) args: Vec<Type>,
    pub(crate) span: Span,
    /// The `with` constraints of the instance's own parameters
    /// (`instance[U with Show[U]] Show[list[U]]`), resolved in its scope.
    pub(crate) constraints: Vec<ast::Constraint>,
    /// The frame the instance is declared in: one declared in a function body is in force
    /// there only (its functions are nested in the function).
    pub(crate) frame: usize,
}

/// A constraint of an instance's `with` clause that its arguments do not meet: its class,
/// the constraint as written (`Show[U]`) and its arguments here.
struct Unmet {
    class: String,
    written: String,
    args: Vec<Type>,
}

/// What the search for an instance found.
enum Found {
    Instance(InstanceInfo),
    /// None fits.
    None,
    /// An instance fits the arguments, but one that its `with` clause needs is missing:
    /// the instance, the constraint's class, and the arguments it lacks.
    Lacking(InstanceInfo, Unmet),
    /// None in force here, but one fits in a function body this code is not in.
    Elsewhere(InstanceInfo),
}

#[derive(Clone, Debug)]
pub(crate) struct VirtualInfo {
    pub(crate) class: ScopeId,
    pub(crate) class_name: String,
    pub(crate) class_span: Span,
    pub(crate) n_class: usize,
    pub(crate) bodiless: bool,
}

/// What a call of a function becomes.
pub(crate) enum Dispatch {
    /// The function itself.
    Plain,
    /// Another function (an instance's, or a specialised copy) at these type arguments.
    To(usize, Vec<Type>),
    /// An error was reported.
    Failed,
}

/// The behaviours Felix's built-in classes name.
fn builtin_class(name: &str) -> Option<&'static [Behaviour]> {
    Some(match name {
        "Str" | "Repr" | "Show" => &[Behaviour::Printable],
        "Eq" => &[Behaviour::Equality],
        "Tord" | "Pord" => &[Behaviour::Ordered, Behaviour::Equality],
        "Addgrp" | "Ring" | "FloatAddgrp" | "FloatRing" => &[Behaviour::Arithmetic],
        _ => return None,
    })
}

impl Checker {
    pub(crate) fn hoist_instance(
        &mut self,
        s: &Stmt,
        params: &[ast::TypeParam],
        class: &ast::SName,
        args: &[ast::TypeExpr],
        body: &[Stmt],
        prelude: &mut Vec<ir::Stmt>,
    ) {
        let Some(info) = self.find_module(&class.node).filter(|m| m.class) else {
            let hint = self.class_suggestion(&class.node);
            self.error(CheckError::UndefinedName {
                name: class.node.clone(),
                span: class.span,
                what: "class",
                hint,
            });
            return;
        };
        let outer = self.scope;
        let scope = self.new_scope(Some(outer));
        let vars = self.bind_type_params(params, scope);
        self.scope = scope;
        let args: Vec<Type> = args.iter().map(|t| self.type_expr(t)).collect();
        if args.len() != info.n_params {
            self.type_error(
                class.span,
                format!(
                    "the class `{}` takes {} type arguments, not {}",
                    class.node,
                    info.n_params,
                    args.len()
                ),
            );
        }
        // The instance's functions take its parameters first, with their `with` constraints:
        // they are templates, specialised where they are called.
        let body = self.parameterise(body, params, None, true);
        self.hoist(&body, prelude);
        self.scope = outer;
        self.modules.classes.rewritten.insert((outer, s.span), body);
        self.modules.bodies.insert((outer, s.span), scope);
        let constraints = params
            .iter()
            .flat_map(|p| p.constraints.iter().cloned())
            .collect();
        let frame = self.frame;
        self.modules.classes.instances.push(InstanceInfo {
            class: info.scope,
            scope,
            vars,
            args,
            span: class.span,
            constraints,
            frame,
        });
    }

    /// "did you mean …" among the classes visible here.
    fn class_suggestion(&self, name: &str) -> Option<String> {
        let mut names: Vec<String> = Vec::new();
        let mut s = Some(self.scope);
        while let Some(id) = s {
            names.extend(
                self.modules
                    .modules
                    .iter()
                    .filter(|((sc, _), m)| *sc == id && m.class)
                    .map(|((_, n), _)| n.clone()),
            );
            s = self.scopes[id].parent;
        }
        crate::check::suggest::closest(name, names.iter().map(String::as_str))
            .map(|n| format!("did you mean `{n}`?"))
    }

    /// Declare a virtual function of the class whose scope is the current one.
    pub(crate) fn declare_virtual(&mut self, def: &std::sync::Arc<ast::FunDef>, bodiless: bool) {
        let Some(name) = def.name.clone() else {
            return;
        };
        let here = self.scope;
        let Some(((_, class_name), class)) = self
            .modules
            .modules
            .iter()
            .find(|(_, m)| m.scope == here && m.class)
            .map(|(k, m)| (k.clone(), m.clone()))
        else {
            self.type_error(def.span, "a `virtual` function is defined in a class");
            return;
        };
        let idx = self.new_function(def, &name.node);
        if bodiless {
            self.funs[idx].state = FunState::Done;
        }
        self.modules.classes.virtuals.insert(
            idx,
            VirtualInfo {
                class: here,
                class_name,
                class_span: class.span,
                n_class: class.n_params,
                bodiless,
            },
        );
        if !bodiless {
            self.note_template(idx);
        }
        self.declare_value(&name, Binding::Funs(vec![idx]));
    }

    /// Note a function's `with` constraints: it becomes a template, and the constraints'
    /// classes are opened in its scope.
    pub(crate) fn note_template(&mut self, idx: usize) {
        let constraints: Vec<ast::Constraint> = self.funs[idx]
            .def
            .type_params
            .iter()
            .flat_map(|p| p.constraints.iter().cloned())
            .collect();
        if constraints.is_empty() {
            return;
        }
        self.modules.classes.templates.insert(idx);
        let scope = self.funs[idx].scope;
        self.open_constraints(scope, &constraints, true);
    }

    /// Open the classes of `constraints` in `scope` at their arguments (resolved there); a
    /// built-in class asks its behaviours of a type parameter (`generic`).
    fn open_constraints(&mut self, scope: ScopeId, constraints: &[ast::Constraint], generic: bool) {
        let saved = self.scope;
        self.scope = scope;
        for c in constraints {
            let args: Vec<Type> = c.args.iter().map(|t| self.type_expr(t)).collect();
            match self.find_module(&c.class.node) {
                Some(m) if m.class => {
                    self.modules.opens.entry(scope).or_default().push(Open {
                        scope: m.scope,
                        args,
                    });
                }
                _ => match builtin_class(&c.class.node) {
                    Some(behaviours) => {
                        if generic {
                            for a in &args {
                                if let Type::Var(v) = a {
                                    let wanted = std::sync::Arc::make_mut(&mut self.requirements)
                                        .entry(v.id)
                                        .or_default();
                                    for b in behaviours {
                                        if !wanted.contains(b) {
                                            wanted.push(*b);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    None => {
                        let hint = self.class_suggestion(&c.class.node);
                        self.error(CheckError::UndefinedName {
                            name: c.class.node.clone(),
                            span: c.class.span,
                            what: "class",
                            hint,
                        });
                    }
                },
            }
        }
        self.scope = saved;
    }

    /// Entering the check of function `idx`: whether it is a template (checked generically,
    /// its IR dropped).
    pub(crate) fn enter_template(&mut self, idx: usize) -> bool {
        let template = self.modules.classes.templates.contains(&idx);
        if template {
            self.modules.classes.template_depth += 1;
        }
        template
    }

    /// Leaving the generic check of a template whose frame is `frame`: the IR of its
    /// functions (itself and those nested in it) is dropped.
    pub(crate) fn leave_template(&mut self, frame: usize) {
        self.modules.classes.template_depth -= 1;
        let inside = |c: &Checker, mut f: usize| loop {
            if f == frame {
                return true;
            }
            match c.frames[f].parent {
                Some(p) => f = p,
                None => return false,
            }
        };
        let dropped: HashSet<ir::FunId> = self
            .funs
            .iter()
            .filter(|sig| inside(self, sig.frame))
            .map(|sig| sig.id)
            .collect();
        self.unit.out_funs.retain(|(id, _)| !dropped.contains(id));
    }

    /// What a call of function `idx` at the type arguments `args` (its own) calls.
    pub(crate) fn class_dispatch(&mut self, idx: usize, args: &[Type], span: Span) -> Dispatch {
        let virtual_info = self.modules.classes.virtuals.get(&idx).cloned();
        let template = self.modules.classes.templates.contains(&idx);
        if virtual_info.is_none() && !template {
            return Dispatch::Plain;
        }
        let args: Vec<Type> = args.iter().map(|t| self.zonk(t)).collect();
        if args.iter().any(|t| t.has_var() || t.has_meta()) {
            if self.modules.classes.template_depth > 0 {
                return Dispatch::Plain;
            }
            let name = self.funs[idx].name.clone();
            let what = match &virtual_info {
                Some(v) => format!("a virtual function of the class `{}`", v.class_name),
                None => "a function with `with` constraints".to_string(),
            };
            let shown: Vec<String> = args.iter().map(|t| t.to_string()).collect();
            self.error(CheckError::Type {
                span,
                message: format!(
                    "`{name}` is {what}, called here at `{}`, which is not a concrete type",
                    shown.join(", ")
                ),
                help: Some(
                    "give the enclosing function the same constraint, as in `fun g[T with C[T]] (x:T) => …`"
                        .into(),
                ),
            });
            return Dispatch::Failed;
        }
        match virtual_info {
            Some(v) => self.resolve_virtual(idx, &v, &args, span),
            None if !self.check_constraints(idx, &args, span) => Dispatch::Failed,
            None => match self.specialise(idx, &args) {
                Some(n) => Dispatch::To(n, Vec::new()),
                None => Dispatch::Failed,
            },
        }
    }

    /// The instance of the class whose scope is `class` at the concrete `args`: one in force
    /// here that fits them and whose `with` clause is met (its classes have instances at the
    /// arguments it gets, in turn).
    fn find_instance(&mut self, class: ScopeId, args: &[Type]) -> Found {
        self.find_instance_at(class, args, 0)
    }

    fn find_instance_at(&mut self, class: ScopeId, args: &[Type], depth: u32) -> Found {
        let instances: Vec<InstanceInfo> = self
            .modules
            .classes
            .instances
            .iter()
            .filter(|i| i.class == class && i.args.len() == args.len())
            .cloned()
            .collect();
        let mut lacking = None;
        let mut elsewhere = None;
        for inst in instances {
            let in_force = self.frame_within(self.frame, inst.frame);
            let saved = self.metas.clone();
            let fresh = self.instantiate_params(&inst.vars);
            let fits = inst
                .args
                .iter()
                .zip(args)
                .all(|(a, c)| self.unify(&a.subst_vars(&inst.vars, &fresh), c));
            let solved: Vec<Type> = fresh.iter().map(|t| self.zonk(t)).collect();
            self.metas = saved;
            if !fits {
                continue;
            }
            if !in_force {
                elsewhere.get_or_insert(inst);
                continue;
            }
            match self.unmet_constraint(&inst, &solved, depth) {
                None => return Found::Instance(inst),
                Some(unmet) => {
                    lacking.get_or_insert((inst, unmet));
                }
            }
        }
        match (lacking, elsewhere) {
            (Some((inst, unmet)), _) => Found::Lacking(inst, unmet),
            (None, Some(inst)) => Found::Elsewhere(inst),
            (None, None) => Found::None,
        }
    }

    /// The first constraint of the `with` clause of `inst` that its parameters at `solved`
    /// do not meet: its class's name and arguments.
    fn unmet_constraint(
        &mut self,
        inst: &InstanceInfo,
        solved: &[Type],
        depth: u32,
    ) -> Option<Unmet> {
        if inst.constraints.is_empty() {
            return None;
        }
        let saved = self.scope;
        self.scope = inst.scope;
        let mut unmet = None;
        for c in &inst.constraints {
            let written: Vec<Type> = c.args.iter().map(|t| self.type_expr(t)).collect();
            let cargs: Vec<Type> = written
                .iter()
                .map(|t| t.subst_vars(&inst.vars, solved))
                .collect();
            let met = match self.find_module(&c.class.node) {
                // Instances needing instances: a chain longer than any program's types is a
                // loop, met by none.
                Some(m) if m.class => {
                    depth < 64
                        && matches!(
                            self.find_instance_at(m.scope, &cargs, depth + 1),
                            Found::Instance(_)
                        )
                }
                _ => match builtin_class(&c.class.node) {
                    Some(behaviours) => cargs
                        .iter()
                        .all(|t| behaviours.iter().all(|b| self.require(t, *b).is_ok())),
                    None => true,
                },
            };
            if !met {
                let shown: Vec<String> = written.iter().map(|t| t.to_string()).collect();
                unmet = Some(Unmet {
                    class: c.class.node.clone(),
                    written: format!("{}[{}]", c.class.node, shown.join(", ")),
                    args: cargs,
                });
                break;
            }
        }
        self.scope = saved;
        unmet
    }

    /// Is frame `inner` the frame `outer` or nested in it (every frame is in the global one)?
    fn frame_within(&self, inner: usize, outer: usize) -> bool {
        if self.frames[outer].global {
            return true;
        }
        let mut f = Some(inner);
        while let Some(at) = f {
            if at == outer {
                return true;
            }
            f = self.frames[at].parent;
        }
        false
    }

    /// Report that no instance of the class `class_name` (defined at `class_span`) fits
    /// `instance` (`C[T]`), at `span`, with what `found` says of the nearest one; `what` is
    /// the message's beginning.
    #[allow(clippy::too_many_arguments)]
    fn no_instance(
        &mut self,
        found: Found,
        span: Span,
        instance: &str,
        what: String,
        class_name: &str,
        class_span: Span,
    ) {
        let shown = |ts: &[Type]| {
            ts.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let error = match found {
            Found::Lacking(inst, unmet) => {
                let inner = format!("{}[{}]", unmet.class, shown(&unmet.args));
                let instance_shown = format!("{}[{}]", class_name, shown(&inst.args));
                CheckError::Noted {
                    error: Box::new(CheckError::NoOverload {
                        span,
                        message: format!(
                            "no instance `{inner}`: the instance `{instance_shown}` that `{instance}` would use needs `{}`",
                            unmet.written
                        ),
                        behaviour: "invocable",
                        help: Some(format!("define `instance {inner} {{ … }}`")),
                    }),
                    at: inst.span,
                    label: format!("the instance `{instance_shown}` is defined here"),
                }
            }
            Found::Elsewhere(inst) => CheckError::Noted {
                error: Box::new(CheckError::NoOverload {
                    span,
                    message: format!("no instance `{instance}` here: {what}"),
                    behaviour: "invocable",
                    help: Some(
                        "an instance declared in a function body is in force in that body only: declare it at the top level or in a module to use it everywhere"
                            .into(),
                    ),
                }),
                at: inst.span,
                label: "the instance in a function body".to_string(),
            },
            _ => CheckError::Noted {
                error: Box::new(CheckError::NoOverload {
                    span,
                    message: format!("no instance `{instance}`: {what}"),
                    behaviour: "invocable",
                    help: Some(format!("define `instance {instance} {{ … }}`")),
                }),
                at: class_span,
                label: format!("the class `{class_name}` is defined here"),
            },
        };
        self.error(error);
    }

    /// Has each class that template `idx` names in its constraints an instance at the
    /// concrete `args`? Reports the first that has none, at the call.
    fn check_constraints(&mut self, idx: usize, args: &[Type], span: Span) -> bool {
        let sig = self.funs[idx].clone();
        let constraints: Vec<ast::Constraint> = sig
            .def
            .type_params
            .iter()
            .flat_map(|p| p.constraints.iter().cloned())
            .collect();
        let saved = self.scope;
        self.scope = sig.scope;
        let mut ok = true;
        for c in &constraints {
            let Some(m) = self.find_module(&c.class.node).filter(|m| m.class) else {
                continue;
            };
            let written: Vec<Type> = c.args.iter().map(|t| self.type_expr(t)).collect();
            let cargs: Vec<Type> = written
                .iter()
                .map(|t| t.subst_vars(&sig.own_params, args))
                .collect();
            let found = self.find_instance(m.scope, &cargs);
            if !matches!(found, Found::Instance(_)) {
                let shown = |ts: &[Type]| {
                    ts.iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let instance = format!("{}[{}]", c.class.node, shown(&cargs));
                let what = format!(
                    "`{}` needs `{}[{}]`",
                    sig.name,
                    c.class.node,
                    shown(&written)
                );
                self.no_instance(found, span, &instance, what, &c.class.node, m.span);
                ok = false;
                break;
            }
        }
        self.scope = saved;
        ok
    }

    /// A virtual function's class arguments that its call leaves unknown (`first l`, with
    /// `virtual fun first: C -> E;`, fixes `C` but not `E`) are those of the one instance that
    /// fits the known ones, when only one does.
    pub(crate) fn infer_from_instances(&mut self, idx: usize, args: &[Type]) {
        let Some(v) = self.modules.classes.virtuals.get(&idx).cloned() else {
            return;
        };
        let class_args: Vec<Type> = args[..v.n_class.min(args.len())]
            .iter()
            .map(|t| self.zonk(t))
            .collect();
        if !class_args.iter().any(|t| t.has_meta()) {
            return;
        }
        let instances: Vec<InstanceInfo> = self
            .modules
            .classes
            .instances
            .iter()
            .filter(|i| i.class == v.class && i.args.len() == class_args.len())
            .cloned()
            .collect();
        let mut fitting = Vec::new();
        for inst in instances {
            let saved = self.metas.clone();
            let fresh = self.instantiate_params(&inst.vars);
            let fits = inst
                .args
                .iter()
                .zip(&class_args)
                .all(|(a, c)| self.unify(&a.subst_vars(&inst.vars, &fresh), c));
            self.metas = saved;
            if fits {
                fitting.push(inst);
            }
        }
        if let [inst] = fitting.as_slice() {
            let fresh = self.instantiate_params(&inst.vars);
            for (a, c) in inst.args.iter().zip(&class_args) {
                self.unify(&a.subst_vars(&inst.vars, &fresh), c);
            }
        }
    }

    /// The instance function a virtual called at concrete types resolves to.
    fn resolve_virtual(
        &mut self,
        idx: usize,
        v: &VirtualInfo,
        args: &[Type],
        span: Span,
    ) -> Dispatch {
        let class_args = &args[..v.n_class.min(args.len())];
        let found = self.find_instance(v.class, class_args);
        let name = self.funs[idx].name.clone();
        let shown: Vec<String> = class_args.iter().map(|t| t.to_string()).collect();
        let instance_name = format!("{}[{}]", v.class_name, shown.join(", "));
        let inst = match found {
            Found::Instance(inst) => inst,
            // An instance whose `with` clause is not met is not one (Felix): the default.
            Found::None | Found::Lacking(..) | Found::Elsewhere(_) if !v.bodiless => {
                return self.default_of(idx, args)
            }
            found => {
                let what = format!(
                    "`{name}` is a virtual function of the class `{}`",
                    v.class_name
                );
                self.no_instance(
                    found,
                    span,
                    &instance_name,
                    what,
                    &v.class_name,
                    v.class_span,
                );
                return Dispatch::Failed;
            }
        };
        let own = self.funs[idx].own_params.clone();
        let wanted = self.fun_type_of(idx).subst_vars(&own, args);
        let members = match self.scopes[inst.scope].values.get(&name) {
            Some(Binding::Funs(list)) => list.clone(),
            _ => Vec::new(),
        };
        for c in members {
            let saved = self.metas.clone();
            let own_c = self.funs[c].own_params.clone();
            let fresh = self.instantiate_params(&own_c);
            let t = self.fun_type_of(c).subst_vars(&own_c, &fresh);
            if self.unify(&t, &wanted) {
                let targs: Vec<Type> = fresh.iter().map(|t| self.zonk(t)).collect();
                self.metas = saved;
                if targs.iter().any(|t| t.has_meta()) {
                    continue;
                }
                // A template, or a generic function nested in a function frame (its copy
                // keeps its closure there), is called as its specialised copy.
                let nested =
                    !self.frames[self.frames[self.funs[c].frame].parent.unwrap_or(0)].global;
                if self.modules.classes.templates.contains(&c) || (nested && !targs.is_empty()) {
                    return match self.specialise(c, &targs) {
                        Some(n) => Dispatch::To(n, Vec::new()),
                        None => Dispatch::Failed,
                    };
                }
                return Dispatch::To(c, targs);
            }
            self.metas = saved;
        }
        if !v.bodiless {
            return self.default_of(idx, args);
        }
        self.error(CheckError::Noted {
            error: Box::new(CheckError::Type {
                span,
                message: format!(
                    "the instance `{instance_name}` defines no `{name} : {wanted}`, and the class `{}` gives `{name}` no default",
                    v.class_name
                ),
                help: Some(format!(
                    "define `{name}` in the instance, or give the virtual function a body in the class"
                )),
            }),
            at: inst.span,
            label: format!("the instance `{instance_name}` is defined here"),
        });
        Dispatch::Failed
    }

    /// The default body of a virtual function, specialised.
    fn default_of(&mut self, idx: usize, args: &[Type]) -> Dispatch {
        match self.specialise(idx, args) {
            Some(n) => Dispatch::To(n, Vec::new()),
            None => Dispatch::Failed,
        }
    }

    /// The copy of template `idx` specialised to the concrete `args` (made once).
    fn specialise(&mut self, idx: usize, args: &[Type]) -> Option<usize> {
        let key = (idx, args.to_vec());
        if let Some(&n) = self.modules.classes.specialised.get(&key) {
            return Some(n);
        }
        let sig = self.funs[idx].clone();
        let declaring = self.scopes[sig.scope].parent?;
        let saved = (self.scope, self.frame);
        let scope = self.new_scope(Some(declaring));
        for (p, a) in sig.def.type_params.iter().zip(args) {
            self.scopes[scope].types.insert(
                p.name.node.clone(),
                (TypeBinding::Alias(a.clone()), p.name.span),
            );
        }
        let constraints: Vec<ast::Constraint> = sig
            .def
            .type_params
            .iter()
            .flat_map(|p| p.constraints.iter().cloned())
            .collect();
        self.open_constraints(scope, &constraints, false);
        let mut def = (*sig.def).clone();
        def.type_params.clear();
        // The copy is nested where the template is: in a function's frame, it keeps its
        // closure in a slot of that frame, made when the frame is entered.
        let frame = self.frames[sig.frame].parent.unwrap_or(0);
        self.scope = scope;
        self.frame = frame;
        let n = self.new_function(&std::sync::Arc::new(def), &sig.name);
        self.modules.classes.specialised.insert(key, n);
        if !self.frames[frame].global {
            // A cell: the copy (or another made here) may call itself through it, from a
            // closure made before the cell is filled.
            let slot = self.frames[frame].alloc();
            self.frames[frame].cell_slots.push(slot);
            let loc = crate::check::env::VarLoc {
                frame,
                slot,
                cell: true,
            };
            self.funs[n].holder = Some(loc);
            let fun_ty = self.fun_type_of(n);
            let id = self.funs[n].id;
            let type_args = self.funs[n]
                .outer_params
                .iter()
                .cloned()
                .map(Type::Var)
                .collect();
            self.modules
                .classes
                .late_holders
                .entry(frame)
                .or_default()
                .push(ir::Stmt::Assign(
                    ir::Place::LocalCell(slot),
                    ir::Expr {
                        kind: ir::ExprKind::MakeFun { fun: id, type_args },
                        ty: fun_ty,
                        span: sig.span,
                    },
                ));
        }
        self.scope = saved.0;
        self.frame = saved.1;
        Some(n)
    }

    /// The value of function `n` (an instance's function or a specialised copy, which a
    /// call dispatches to) at its own type arguments `targs`, as seen from here: its closure
    /// when it has one in a function frame, else the function made here.
    pub(crate) fn dispatched_value(
        &mut self,
        n: usize,
        targs: Vec<Type>,
        span: Span,
    ) -> ir::ExprKind {
        self.note_call(n);
        let ty = self.fun_type_of(n);
        if let Some(holder) = self.funs[n].holder {
            let vb = crate::check::env::VarBinding {
                loc: holder,
                ty: crate::check::env::VarType::Known(ty),
                mutable: false,
                span,
                decl: None,
                scope: self.funs[n].scope,
            };
            return self.var_access(&vb);
        }
        let mut type_args: Vec<Type> = self.funs[n]
            .outer_params
            .iter()
            .cloned()
            .map(Type::Var)
            .collect();
        type_args.extend(targs);
        type_args.extend(self.borrowed_size_args(self.funs[n].frame));
        ir::ExprKind::MakeFun {
            fun: self.funs[n].id,
            type_args,
        }
    }
}
