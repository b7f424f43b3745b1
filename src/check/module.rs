//! Modules: `module M { … }` (and the scopes of classes and instances, `class.rs`), `open`,
//! qualified names `M::f`, `M::N::T`.
//!
//! A module is a scope nested in the one that declares it, hoisted with it (so its names are
//! usable anywhere in that scope) and checked where it stands. Its functions, constructors and
//! types are also entered in the declaring scope under their qualified names (`M::f`), so a
//! qualified name resolves through the ordinary scope chain; its variables are read from the
//! module's scope. A parameterised module `module X[t] { … }` gives each of its definitions
//! the parameters `t` first (they are also bound, as type parameters, in a scope around the
//! module's, for its `open` and `inherit` statements). `open M;` makes the module's names
//! visible in the scope of the statement, after that scope's own names and before the
//! enclosing scope's; `open X[long];` fixes the parameters of the module's types. `inherit M;`
//! does the same and also makes `M`'s names members of the module that inherits it, as Felix
//! does: they are named `N::f` through it, and whoever opens (or inherits) it sees them too,
//! transitively. A module may stand in a function body: its functions are then nested in the
//! function, and may use its parameters and variables.

use std::collections::HashMap;

use crate::check::env::{Binding, ScopeId, TypeBinding};
use crate::check::error::CheckError;
use crate::check::typeexpr::TypeScheme;
use crate::check::Checker;
use crate::core::ir;
use crate::syntax::ast::{self, ModuleItem, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// What the checker keeps about modules and classes.
#[derive(Clone, Default)]
pub(crate) struct ModuleState {
    /// Modules and classes, by the scope that declares them and their name.
    pub(crate) modules: HashMap<(ScopeId, String), ModuleInfo>,
    /// The scope of each module, class and instance statement, by the scope it stands in and
    /// its span: made and hoisted with the enclosing scope, entered when the statement is
    /// checked.
    pub(crate) bodies: HashMap<(ScopeId, Span), ScopeId>,
    /// The modules each scope opens (those it inherits included).
    pub(crate) opens: HashMap<ScopeId, Vec<Open>>,
    /// The modules each module inherits, with its type parameters (the arguments of an
    /// `inherit` may mention them).
    pub(crate) inherits: HashMap<ScopeId, Vec<Inherit>>,
    /// The class state (`class.rs`).
    pub(crate) classes: crate::check::class::ClassState,
}

#[derive(Clone, Debug)]
pub(crate) struct ModuleInfo {
    pub(crate) scope: ScopeId,
    /// The number of the module's (or class's) type parameters.
    pub(crate) n_params: usize,
    pub(crate) class: bool,
    pub(crate) span: Span,
    /// The module's type parameters, as bound around its scope.
    pub(crate) vars: Vec<crate::types::ty::TyVar>,
}

/// A module opened in a scope, with the type arguments given to its parameters.
#[derive(Clone, Debug)]
pub(crate) struct Open {
    pub(crate) scope: ScopeId,
    pub(crate) args: Vec<Type>,
}

/// A module inherited by another: its scope, and the type arguments of the `inherit`, over
/// the inheriting module's parameters `vars`.
#[derive(Clone, Debug)]
pub(crate) struct Inherit {
    pub(crate) scope: ScopeId,
    pub(crate) args: Vec<Type>,
    pub(crate) vars: Vec<crate::types::ty::TyVar>,
}

/// The module names of Felix's library whose functions Tessera's library provides under
/// plain names (`List::map` is the list `map`), or under the prefix given (`System::args` is
/// `_system_args`): opening them changes nothing.
const LIBRARY_MODULES: &[(&str, &str)] = &[
    ("List", "_list_"),
    ("Option", "_opt_"),
    ("Str", ""),
    ("String", ""),
    ("Array", ""),
    ("Carray", ""),
    ("Farray", ""),
    ("System", "_system_"),
    ("Env", ""),
];

impl Checker {
    /// The module `path` (`M` or `M::N`) as seen from the current scope.
    pub(crate) fn find_module(&self, path: &str) -> Option<ModuleInfo> {
        let mut parts = path.split("::");
        let first = parts.next()?;
        let mut s = Some(self.scope);
        let mut found = None;
        while let Some(id) = s {
            if let Some(m) = self.modules.modules.get(&(id, first.to_string())) {
                found = Some(m.clone());
                break;
            }
            // A module of a module opened here (or of one it inherits).
            if let Some(opens) = self.modules.opens.get(&id) {
                found = opens
                    .iter()
                    .flat_map(|o| self.member_scopes(o))
                    .find_map(|o| self.modules.modules.get(&(o.scope, first.to_string())))
                    .cloned();
                if found.is_some() {
                    break;
                }
            }
            s = self.scopes[id].parent;
        }
        let mut m = found?;
        for part in parts {
            m = self
                .modules
                .modules
                .get(&(m.scope, part.to_string()))?
                .clone();
        }
        Some(m)
    }

    /// Hoist the modules, classes, instances and opens among a scope's statements (after its
    /// types, before its values).
    pub(crate) fn hoist_modules(&mut self, flat: &[&Stmt], prelude: &mut Vec<ir::Stmt>) {
        let items: Vec<(&Stmt, &ModuleItem)> = flat
            .iter()
            .filter_map(|s| match &s.node {
                StmtKind::Module(item) => Some((*s, item.as_ref())),
                _ => None,
            })
            .collect();
        if items.is_empty() {
            return;
        }
        for (s, item) in &items {
            if let ModuleItem::Module {
                name,
                params,
                body,
                class,
            } = item
            {
                self.hoist_module(s, name, params, body, *class, prelude);
            }
        }
        for (s, item) in &items {
            match item {
                ModuleItem::Open {
                    module,
                    args,
                    inherit,
                } => self.hoist_open(module, args, *inherit),
                ModuleItem::Instance {
                    params,
                    class,
                    args,
                    body,
                } => self.hoist_instance(s, params, class, args, body, prelude),
                ModuleItem::Virtual { def, bodiless } => self.declare_virtual(def, *bodiless),
                ModuleItem::Module { .. } => {}
            }
        }
    }

    fn hoist_module(
        &mut self,
        s: &Stmt,
        name: &ast::SName,
        params: &[ast::TypeParam],
        body: &[Stmt],
        class: bool,
        prelude: &mut Vec<ir::Stmt>,
    ) {
        let outer = self.scope;
        let key = (outer, name.node.clone());
        if let Some(previous) = self.modules.modules.get(&key) {
            let previous = previous.span;
            self.error(CheckError::Duplicate {
                name: name.node.clone(),
                span: name.span,
                previous,
            });
            return;
        }
        // The module's parameters are bound around its scope, for its `open` and `inherit`
        // statements; its definitions take them as their own first parameters.
        let (scope, vars) = if params.is_empty() {
            (self.new_scope(Some(outer)), Vec::new())
        } else {
            let around = self.new_scope(Some(outer));
            let vars = self.bind_type_params(params, around);
            (self.new_scope(Some(around)), vars)
        };
        self.modules.modules.insert(
            key,
            ModuleInfo {
                scope,
                n_params: params.len(),
                class,
                span: name.span,
                vars,
            },
        );
        self.modules.bodies.insert((outer, s.span), scope);
        let implicit = class.then(|| ast::Constraint {
            class: name.clone(),
            args: params
                .iter()
                .map(|p| {
                    ast::TypeExpr::new(ast::TypeExprKind::Name(p.name.node.clone()), p.name.span)
                })
                .collect(),
        });
        let body = self.parameterise(body, params, implicit.as_ref(), false);
        self.scope = scope;
        self.hoist(&body, prelude);
        self.scope = outer;
        // The statements checked later are the parameterised ones.
        self.modules.classes.rewritten.insert((outer, s.span), body);
        self.enter_qualified(scope, &name.node);
    }

    /// The definitions of a module body with the module's type parameters first (and, in a
    /// class, the class's constraint on every definition with a body; the parameters' own
    /// `with` constraints when `keep`, as an instance's are).
    pub(crate) fn parameterise(
        &mut self,
        body: &[Stmt],
        params: &[ast::TypeParam],
        implicit: Option<&ast::Constraint>,
        keep: bool,
    ) -> Vec<Stmt> {
        let prepend = |own: &[ast::TypeParam], with_body: bool| {
            let mut all: Vec<ast::TypeParam> = params.to_vec();
            if !keep || !with_body {
                all.iter_mut().for_each(|p| p.constraints.clear());
            }
            all.extend(own.iter().cloned());
            if let (Some(c), true, Some(last)) = (implicit, with_body, all.last_mut()) {
                last.constraints.push(c.clone());
            }
            all
        };
        if params.is_empty() {
            return body.to_vec();
        }
        let mut out = Vec::new();
        for s in body {
            let mut s = s.clone();
            match &mut s.node {
                StmtKind::Fun(def) => {
                    let def = std::sync::Arc::make_mut(def);
                    def.type_params = prepend(&def.type_params, true)
                }
                StmtKind::Typedef { params: p, .. }
                | StmtKind::Struct { params: p, .. }
                | StmtKind::Variant { params: p, .. } => *p = prepend(p, false),
                StmtKind::Module(item) => match item.as_mut() {
                    ModuleItem::Module { params: p, .. } => *p = prepend(p, false),
                    ModuleItem::Virtual { def, bodiless } => {
                        let def = std::sync::Arc::make_mut(def);
                        def.type_params = prepend(&def.type_params, !*bodiless)
                    }
                    _ => {}
                },
                StmtKind::Var { name, .. } | StmtKind::Val { name, .. } => {
                    self.type_error(
                        name.span,
                        "a module with type parameters holds no variables: define them outside it",
                    );
                }
                _ => {}
            }
            out.push(s);
        }
        out
    }

    /// Enter the functions, constructors and types of the module `scope` (and those of its
    /// own modules, already entered there, and of the modules it inherits) in the current
    /// scope as `name::…`. An inherited name that is not a function and that the module also
    /// defines clashes with its definition, as in Felix.
    fn enter_qualified(&mut self, scope: ScopeId, name: &str) {
        let here = self.scope;
        let mut values: Vec<(String, Binding)> = Vec::new();
        let mut types: Vec<(String, (TypeBinding, Span))> = Vec::new();
        let members = self.member_scopes(&Open {
            scope,
            args: Vec::new(),
        });
        for (k, m) in members.iter().enumerate() {
            let mut own: Vec<(String, Binding)> = self.scopes[m.scope]
                .values
                .iter()
                .filter(|(_, b)| {
                    matches!(b, Binding::Funs(_) | Binding::Ctor { .. } | Binding::Var(_))
                })
                .map(|(n, b)| (n.clone(), b.clone()))
                .collect();
            own.sort_by(|a, b| a.0.cmp(&b.0));
            for (n, b) in &own {
                let qualified = format!("{name}::{n}");
                match (values.iter_mut().find(|(q, _)| *q == qualified), b) {
                    (None, Binding::Var(_)) => {}
                    (None, b) => values.push((qualified, b.clone())),
                    (Some((_, Binding::Funs(list))), Binding::Funs(more)) => {
                        for f in more {
                            if !list.contains(f) {
                                list.push(*f);
                            }
                        }
                    }
                    (Some(_), _) => {}
                }
                if k > 0 && !matches!(b, Binding::Funs(_)) {
                    if let Some(previous) = self.scopes[scope].values.get(n).cloned() {
                        let span = binding_span(self, &previous);
                        let inherited = binding_span(self, b);
                        self.error(CheckError::Duplicate {
                            name: n.clone(),
                            span,
                            previous: inherited,
                        });
                    }
                }
            }
            let mut own_types: Vec<(String, (TypeBinding, Span))> = self.scopes[m.scope]
                .types
                .iter()
                .map(|(n, b)| (n.clone(), b.clone()))
                .collect();
            own_types.sort_by(|a, b| a.0.cmp(&b.0));
            for (n, b) in own_types {
                let qualified = format!("{name}::{n}");
                if types.iter().any(|(q, _)| *q == qualified) {
                    continue;
                }
                if k > 0 {
                    if let Some((_, span)) = self.scopes[scope].types.get(&n) {
                        let span = *span;
                        self.error(CheckError::Duplicate {
                            name: n.clone(),
                            span,
                            previous: b.1,
                        });
                    }
                }
                types.push((qualified, b));
            }
        }
        // Variables are read from the module's scope (`qualified_expr`).
        values.retain(|(_, b)| !matches!(b, Binding::Var(_)));
        self.scopes[here].values.extend(values);
        self.scopes[here].types.extend(types);
    }

    /// The scopes whose names are members of the module opened as `open`: its own, then those
    /// of the modules it inherits, transitively (each once), with the type arguments the
    /// inheritance gives their parameters.
    pub(crate) fn member_scopes(&self, open: &Open) -> Vec<Open> {
        let mut out = vec![open.clone()];
        let mut i = 0;
        while i < out.len() {
            let o = out[i].clone();
            i += 1;
            let Some(inherits) = self.modules.inherits.get(&o.scope) else {
                continue;
            };
            for inh in inherits {
                if out.iter().any(|x| x.scope == inh.scope) {
                    continue;
                }
                let k = inh.vars.len().min(o.args.len());
                let args = inh
                    .args
                    .iter()
                    .map(|t| t.subst_vars(&inh.vars[..k], &o.args[..k]))
                    .collect();
                out.push(Open {
                    scope: inh.scope,
                    args,
                });
            }
        }
        out
    }

    /// The binding of `name` among the members of the module whose scope is `scope` (its own
    /// names first, then those it inherits).
    pub(crate) fn module_member(&self, scope: ScopeId, name: &str) -> Option<Binding> {
        let members = self.member_scopes(&Open {
            scope,
            args: Vec::new(),
        });
        members
            .iter()
            .find_map(|m| self.scopes[m.scope].values.get(name).cloned())
    }

    fn hoist_open(&mut self, module: &ast::SName, args: &[ast::TypeExpr], inherit: bool) {
        let args: Vec<Type> = args.iter().map(|t| self.type_expr(t)).collect();
        match self.find_module(&module.node) {
            Some(m) => {
                if args.len() > m.n_params {
                    self.type_error(
                        module.span,
                        format!(
                            "`{}` takes {} type arguments, not {}",
                            module.node,
                            m.n_params,
                            args.len()
                        ),
                    );
                    return;
                }
                let here = self.scope;
                // Only a module's members are named from outside it (`M::f`, `open M;`):
                // elsewhere (a function, the file's top level) `inherit` is `open`.
                if inherit {
                    let vars = self
                        .modules
                        .modules
                        .values()
                        .find(|i| i.scope == here)
                        .map(|i| i.vars.clone())
                        .unwrap_or_default();
                    self.modules
                        .inherits
                        .entry(here)
                        .or_default()
                        .push(Inherit {
                            scope: m.scope,
                            args: args.clone(),
                            vars,
                        });
                }
                self.modules.opens.entry(here).or_default().push(Open {
                    scope: m.scope,
                    args,
                });
            }
            None if LIBRARY_MODULES.iter().any(|(n, _)| *n == module.node) => {}
            None => {
                let hint = self.module_suggestion(&module.node);
                self.error(CheckError::UndefinedName {
                    name: module.node.clone(),
                    span: module.span,
                    what: "module",
                    hint,
                });
            }
        }
    }

    /// "did you mean …" among the modules visible here.
    fn module_suggestion(&self, name: &str) -> Option<String> {
        let mut names = Vec::new();
        let mut s = Some(self.scope);
        while let Some(id) = s {
            names.extend(
                self.modules
                    .modules
                    .keys()
                    .filter(|(sc, _)| *sc == id)
                    .map(|(_, n)| n.clone()),
            );
            s = self.scopes[id].parent;
        }
        names.extend(LIBRARY_MODULES.iter().map(|(n, _)| n.to_string()));
        crate::check::suggest::closest(name, names.iter().map(String::as_str))
            .map(|n| format!("did you mean `{n}`?"))
    }

    /// The binding `name` has in the modules the scope `id` opens, and in those they inherit
    /// (overloads merged).
    pub(crate) fn opened_binding(&self, id: ScopeId, name: &str) -> Option<Binding> {
        if self.modules.opens.is_empty() {
            return None;
        }
        let opens = self.modules.opens.get(&id)?;
        let mut found: Option<Binding> = None;
        for open in opens {
            for o in self.member_scopes(open) {
                match (self.scopes[o.scope].values.get(name), &mut found) {
                    (None, _) => {}
                    (Some(Binding::Funs(more)), Some(Binding::Funs(list))) => {
                        for f in more {
                            if !list.contains(f) {
                                list.push(*f);
                            }
                        }
                    }
                    (Some(b), None) => found = Some(b.clone()),
                    (Some(_), Some(_)) => {}
                }
            }
        }
        found
    }

    /// The type `name` denotes in the modules the scope `id` opens (and those they inherit),
    /// with the arguments of the open given to the module's parameters.
    pub(crate) fn opened_type(&mut self, id: ScopeId, name: &str) -> Option<TypeScheme> {
        if self.modules.opens.is_empty() {
            return None;
        }
        let opens: Vec<Open> = self
            .modules
            .opens
            .get(&id)?
            .iter()
            .flat_map(|o| self.member_scopes(o))
            .collect();
        for o in opens {
            let Some((b, _)) = self.scopes[o.scope].types.get(name) else {
                continue;
            };
            let b = b.clone();
            let scheme = self.resolve_type_binding(o.scope, name, b);
            let k = o.args.len();
            return Some(match scheme {
                TypeScheme::Alias(params, t) if k > 0 && params.len() >= k => {
                    let t = t.subst_vars(&params[..k], &o.args);
                    if params.len() == k {
                        TypeScheme::Mono(t)
                    } else {
                        TypeScheme::Alias(params[k..].to_vec(), t)
                    }
                }
                TypeScheme::Nominal(def) if k > 0 && def.params.len() == k => {
                    TypeScheme::Mono(crate::types::ty::instantiate_nominal(&def, o.args.clone()))
                }
                other => other,
            });
        }
        None
    }

    /// The name a qualified name `M::f` denotes as a function or constructor here: its
    /// entry under the qualified name, or for a module of Felix's library the function
    /// Tessera's library gives (`List::map` is the list `map`). `None` when the path does not
    /// name one.
    pub(crate) fn qualified_function(&self, path: &[String]) -> Option<String> {
        let joined = path.join("::");
        if matches!(
            self.lookup_value(&joined),
            Some(Binding::Funs(_) | Binding::Ctor { .. })
        ) || self.type_declared(&joined)
        {
            return Some(joined);
        }
        let (module, last) = path.split_last().map(|(l, m)| (m.join("::"), l))?;
        if self.find_module(&module).is_some() {
            return None;
        }
        let (_, prefix) = LIBRARY_MODULES.iter().find(|(n, _)| *n == module)?;
        let prefixed = format!("{prefix}{last}");
        if !prefix.is_empty() && self.lookup_value(&prefixed).is_some() {
            return Some(prefixed);
        }
        (self.lookup_value(last).is_some() || crate::core::prims::is_prim(last))
            .then(|| last.clone())
    }

    /// The instantiation `qualified_instantiation` gives the qualified name with type
    /// arguments `head`.
    pub(crate) fn instantiate_qualified(&mut self, head: &ast::Expr) -> Option<ast::Expr> {
        let segments = qualified_with_args(head)?;
        self.qualified_instantiation(&segments, head.span)
    }

    /// `M::f[int]`, `Show[int]::show`, `X[long]::f[int]`: the explicit instantiation a
    /// qualified name with type arguments denotes, as the name its definition is entered
    /// under (`X::f`) applied to all of them, those of the modules first (a definition of a
    /// parameterised module takes the module's parameters first), then its own. `None` after
    /// an error (a module given the wrong number of type arguments, a function given more than
    /// it takes, a name no module defines).
    pub(crate) fn qualified_instantiation(
        &mut self,
        segments: &[(ast::SName, Vec<ast::TypeExpr>)],
        span: Span,
    ) -> Option<ast::Expr> {
        let path: Vec<String> = segments.iter().map(|(n, _)| n.node.clone()).collect();
        let head_span = Span::new(span.start, segments.last()?.0.span.end);
        let Some(name) = self.qualified_function(&path) else {
            self.qualified_expr(&path, head_span, None);
            return None;
        };
        let mut all = Vec::new();
        let mut of_modules = 0;
        for (i, (segment, args)) in segments[..segments.len() - 1].iter().enumerate() {
            if args.is_empty() {
                continue;
            }
            let module = path[..=i].join("::");
            let at = Span::new(segment.span.start, args.last()?.span.end);
            let n_params = self.find_module(&module).map_or(0, |m| m.n_params);
            if args.len() != n_params {
                let message = if n_params == 0 {
                    format!(
                        "the module `{module}` has no type parameters: it takes no type arguments"
                    )
                } else {
                    format!(
                        "the module `{module}` takes {n_params} type argument{}, but {} {} given",
                        if n_params == 1 { "" } else { "s" },
                        args.len(),
                        if args.len() == 1 { "is" } else { "are" }
                    )
                };
                self.type_error(at, message);
                return None;
            }
            of_modules += args.len();
            all.extend(args.iter().cloned());
        }
        all.extend(segments.last()?.1.iter().cloned());
        // A function given more type arguments than any of its overloads takes.
        if let Some(Binding::Funs(list)) = self.lookup_value(&name) {
            let most = list
                .iter()
                .map(|&f| self.funs[f].own_params.len())
                .max()
                .unwrap_or(0);
            if all.len() > most {
                let joined = path.join("::");
                let parameterised = (1..path.len()).any(|i| {
                    self.find_module(&path[..i].join("::"))
                        .is_some_and(|m| m.n_params > 0)
                });
                let modules = if of_modules > 0 {
                    format!(" ({of_modules} of them the module's)")
                } else {
                    String::new()
                };
                self.error(CheckError::Type {
                    span,
                    message: format!(
                        "`{joined}` takes {most} type argument{}, but {} {} given{modules}",
                        if most == 1 { "" } else { "s" },
                        all.len(),
                        if all.len() == 1 { "is" } else { "are" }
                    ),
                    help: parameterised.then(|| {
                        "a name in a module with type parameters takes the module's first, then its own: `X[long]::f[int]` is `X::f[long, int]`"
                            .into()
                    }),
                });
                return None;
            }
        }
        let head = ast::Expr::new(ast::ExprKind::Name(name), head_span);
        Some(ast::Expr::new(
            ast::ExprKind::TypeApply(Box::new(head), all),
            span,
        ))
    }

    /// Is `name` a type declared in a scope visible here (a struct is its constructor)?
    fn type_declared(&self, name: &str) -> bool {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if self.scopes[id].types.contains_key(name) {
                return true;
            }
            s = self.scopes[id].parent;
        }
        false
    }

    /// `M::x` as a value: a variable of the module, or its function or constructor.
    pub(crate) fn qualified_expr(
        &mut self,
        path: &[String],
        span: Span,
        expected: Option<&Type>,
    ) -> ir::Expr {
        if let Some(n) = self.qualified_function(path) {
            return self.name_expr(&n, span, expected);
        }
        let joined = path.join("::");
        let (last, module) = path.split_last().expect("a qualified name has segments");
        let module = module.join("::");
        match self.find_module(&module) {
            Some(m) => {
                if let Some(Binding::Var(vb)) = self.module_member(m.scope, last) {
                    return self.var_expr(&joined, &vb, span);
                }
                // The qualified functions and types are suggested by `explain_undefined`; the
                // module's variables here.
                let members: Vec<String> = self.scopes[m.scope].values.keys().cloned().collect();
                // A name the module opens is no member of it; one it inherits is.
                let opened = self.modules.opens.get(&m.scope).and_then(|opens| {
                    opens.iter().find_map(|o| {
                        self.scopes[o.scope]
                            .values
                            .contains_key(last.as_str())
                            .then_some(o.scope)
                    })
                });
                let opened = opened.and_then(|scope| {
                    self.modules
                        .modules
                        .iter()
                        .find(|(_, i)| i.scope == scope)
                        .map(|((_, n), _)| n.clone())
                });
                let hint = if let Some(source) = opened {
                    Some(format!(
                        "`{module}` opens `{source}`, which makes `{last}` visible inside `{module}` only; `inherit {source};` would make it a member of `{module}`"
                    ))
                } else if self.suggest_name(&joined, "name").is_some() {
                    None
                } else {
                    crate::check::suggest::closest(last, members.iter().map(String::as_str))
                        .map(|n| format!("did you mean `{module}::{n}`?"))
                        .or_else(|| Some(format!("`{module}` defines no `{last}`")))
                };
                self.error(CheckError::UndefinedName {
                    name: joined,
                    span,
                    what: "name",
                    hint,
                });
            }
            None => {
                let hint = if LIBRARY_MODULES.iter().any(|(n, _)| *n == module) {
                    Some(format!("the library has no `{last}`"))
                } else {
                    self.module_suggestion(&module)
                        .map(|h| format!("there is no module `{module}`: {h}"))
                        .or_else(|| Some("the library's qualified names are listed by `:browse ::` in the REPL and in the library reference".to_string()))
                };
                self.error(CheckError::UndefinedName {
                    name: joined,
                    span,
                    what: "name",
                    hint,
                });
            }
        }
        crate::check::build::error_expr(span)
    }

    /// Check a module, class or instance statement: its statements, in its scope.
    pub(crate) fn module_stmt(&mut self, s: &Stmt, item: &ModuleItem, out: &mut Vec<ir::Stmt>) {
        let (ModuleItem::Module { body, .. } | ModuleItem::Instance { body, .. }) = item else {
            return;
        };
        // The scope the statement was hoisted in: this one, or one enclosing it.
        let mut at = Some(self.scope);
        let mut hoisted = None;
        while let Some(id) = at {
            if let Some(&scope) = self.modules.bodies.get(&(id, s.span)) {
                hoisted = Some((id, scope));
                break;
            }
            at = self.scopes[id].parent;
        }
        let Some((outer, scope)) = hoisted else {
            return;
        };
        let body = self
            .modules
            .classes
            .rewritten
            .get(&(outer, s.span))
            .cloned()
            .unwrap_or_else(|| body.clone());
        let saved = self.scope;
        self.scope = scope;
        let stmts = self.stmts(&body);
        self.scope = saved;
        out.push(ir::Stmt::Block(stmts));
    }
}

/// Where a binding is defined.
fn binding_span(c: &Checker, b: &Binding) -> Span {
    match b {
        Binding::Var(v) => v.span,
        Binding::Ctor { span, .. } => *span,
        Binding::Opaque { types, .. } => types[0].1,
        Binding::Funs(l) => c.funs[l[0]].span,
    }
}

/// The segments of a qualified name given type arguments (`M::N::f[int]`, `Show[int]::show`),
/// each with its own (none: empty); `None` for any other expression.
pub(crate) fn qualified_with_args(e: &ast::Expr) -> Option<Vec<(ast::SName, Vec<ast::TypeExpr>)>> {
    match &e.node {
        ast::ExprKind::QualifiedArgs(segments) => Some(segments.clone()),
        ast::ExprKind::TypeApply(inner, targs) => {
            let ast::ExprKind::Qualified(path) = &inner.node else {
                return None;
            };
            let n = path.len();
            Some(
                path.iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let args = if i + 1 == n {
                            targs.clone()
                        } else {
                            Vec::new()
                        };
                        (
                            crate::syntax::span::Spanned::new(p.clone(), inner.span),
                            args,
                        )
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}
