//! The visibility dimension (after the SPU type system). A type is a data type with
//! a visibility, `public` (the default) or `secret` (`Type::Secret` around a scalar leaf), and
//! `narrow` is the join of the lattice `public < secret`: an operation with a secret operand has
//! a secret result.
//!
//! This module holds what the checker needs to keep secrets in:
//! - the *sinks*, where only a public value may go (printing, a branch, a shape, a public
//!   place, a public result), each with its own error code (E0800–E0806);
//! - where a secret value came from (the declaration of the secret variable it was computed
//!   from), named by every error;
//! - the *visibility instances* of functions: a function written for public parameters is
//!   checked again with secret parameters when it is called with secret arguments, so a
//!   function is polymorphic in visibility exactly when its body keeps secrets in.
//!
//! The evaluator never sees visibility: the checker erases it from the IR it produces
//! (`Type::erase_secret`), so a secret value costs what a public one does.

use crate::check::error::{CheckError, SecretUse};
use crate::check::Checker;
use crate::core::ir;
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// A read of a secret variable: where, its name, and the variable declared `secret` that it
/// is secret because of (name and declaration), when that is in the unit being checked.
pub(crate) type SecretRead = (Span, String, Option<(String, Span)>);

/// A visibility instance checked: the function, its marks (the narrowed parameter groups and
/// the secret type parameters), and whether its body keeps them secret.
pub(crate) type SecretInstance = (usize, Vec<Type>, Result<(), Box<CheckError>>);

impl Checker {
    /// Note a read of a variable whose type mentions `secret`: errors name it, and trace it
    /// to the secret variable it was computed from.
    pub(crate) fn note_secret_read(&mut self, name: &str, read: Span, declared: Span, local: bool) {
        let root = match self.secret.roots.get(&declared) {
            Some(root) => Some(root.clone()),
            None => local.then(|| (name.to_string(), declared)),
        };
        self.secret.reads.push((read, name.to_string(), root));
    }

    /// A variable declared at `declared` without `secret` got a secret value from the
    /// expression at `init`: it is secret because of what that expression reads.
    pub(crate) fn note_secret_variable(&mut self, declared: Span, init: Span) {
        if let Some((_, Some(root))) = self.secret_origin(init) {
            self.secret.roots.insert(declared, root);
        }
    }

    /// The secret variable an expression at `span` reads first: its name and the variable it
    /// is secret because of (declared in the unit being checked).
    fn secret_origin(&self, span: Span) -> Option<(String, Option<(String, Span)>)> {
        self.secret
            .reads
            .iter()
            .filter(|(read, _, _)| read.start >= span.start && read.end <= span.end)
            .min_by_key(|(read, _, _)| read.start)
            .map(|(_, name, root)| (name.clone(), root.clone()))
    }

    /// Complete a secret error made without the checker's knowledge (by the behaviours of
    /// `traits.rs`): the value's name and where it became secret.
    pub(crate) fn explain_secret(&self, e: CheckError) -> CheckError {
        match e {
            CheckError::Secret {
                span,
                use_,
                what,
                origin: None,
                detail,
                also,
            } => {
                let found = self.secret_origin(span);
                let what = match &found {
                    _ if !what.is_empty() => what,
                    Some((name, _)) if span_is_name(self, span, name) => format!("`{name}`"),
                    Some((name, _)) => format!("this value (computed from `{name}`)"),
                    None => "this value".to_string(),
                };
                CheckError::Secret {
                    span,
                    use_,
                    what,
                    origin: found.and_then(|(_, root)| root),
                    detail,
                    also,
                }
            }
            e => e,
        }
    }

    /// Report the secret value at `span` used as `use_`.
    pub(crate) fn secret_error(&mut self, span: Span, use_: SecretUse, detail: impl Into<String>) {
        self.error(CheckError::Secret {
            span,
            use_,
            what: String::new(),
            origin: None,
            detail: detail.into(),
            also: None,
        });
    }

    /// Require `e` to be public where it is used as `use_`; report and answer `false` if it
    /// is secret.
    pub(crate) fn require_public(
        &mut self,
        e: &ir::Expr,
        use_: SecretUse,
        detail: impl Into<String>,
    ) -> bool {
        let t = self.zonk(&e.ty);
        if !t.has_secret() {
            return true;
        }
        self.secret_error(e.span, use_, detail);
        false
    }

    /// A branch of a conditional expression or a `match` arm, for a result of type `t`: a
    /// secret branch where the others are public makes the result secret (`secret` is set).
    pub(crate) fn coerce_branch(
        &mut self,
        mut v: ir::Expr,
        t: &Type,
        context: &str,
        secret: &mut bool,
    ) -> ir::Expr {
        let found = self.zonk(&v.ty);
        let wanted = self.zonk(t);
        if found.has_secret() && !visibility_fits(&found, &wanted) {
            *secret = true;
            v.ty = found;
            strip(&mut v);
            return self.coerce_to(v, &wanted.erase_secret(), context);
        }
        self.coerce_to(v, &wanted, context)
    }

    /// The sink a coercion's context names (`coerce_to`'s `context`).
    pub(crate) fn sink_of_context(context: &str) -> (SecretUse, String) {
        if context.contains("format string") {
            (
                SecretUse::Print,
                "formatted (the argument of a format string)".into(),
            )
        } else if context.contains("loop") {
            (SecretUse::Shape, format!("a loop bound ({context})"))
        } else if context.contains("index")
            || context.contains("position")
            || context.contains("substring")
        {
            (SecretUse::Shape, format!("a position ({context})"))
        } else if context.contains("returned") || context.contains("function result") {
            (
                SecretUse::Return,
                "a function whose result is public".into(),
            )
        } else if context == "this argument" {
            // A user function's public parameters are narrowed at the call (its visibility
            // instance); what remains is a function value's.
            (
                SecretUse::Call,
                "the public parameter of a function value".into(),
            )
        } else if context.contains("argument") || context.contains("parameter") {
            (SecretUse::Call, format!("a public parameter ({context})"))
        } else {
            (SecretUse::Store, format!("a public place ({context})"))
        }
    }
}

/// Is the text at `span` just the variable's name (so the error says `` `s` is secret ``)?
fn span_is_name(c: &Checker, span: Span, name: &str) -> bool {
    c.secret
        .reads
        .iter()
        .any(|(read, n, _)| *read == span && n == name)
}

/// May a value of type `found` go where `expected` is wanted, as far as visibility goes (the
/// data types being the same)? Public goes anywhere; secret only into secret.
pub(crate) fn visibility_fits(found: &Type, expected: &Type) -> bool {
    // Only a function expected to take a secret asks anything of a public type.
    if !(found.has_secret() || (expected.has_secret() && expected.has_fun())) {
        return true;
    }
    match (found, expected) {
        // An inference variable may become the secret type.
        (_, Type::Secret(_) | Type::Meta(_)) => true,
        (Type::Secret(_), _) => false,
        (Type::Fun(a1, r1), Type::Fun(a2, r2)) => {
            // Contravariant in the argument.
            visibility_fits(a2, a1) && visibility_fits(r1, r2)
        }
        _ => {
            let (fs, es): (Vec<&Type>, Vec<&Type>) = match (found, expected) {
                (Type::Tuple(_) | Type::Array(..), Type::Tuple(_) | Type::Array(..)) => {
                    match (found.tuple_components(), expected.tuple_components()) {
                        (Some(f), Some(e)) if f.len() == e.len() => {
                            return f.iter().zip(&e).all(|(f, e)| visibility_fits(f, e));
                        }
                        _ => (found.children().collect(), expected.children().collect()),
                    }
                }
                _ => (found.children().collect(), expected.children().collect()),
            };
            fs.len() == es.len() && fs.iter().zip(&es).all(|(f, e)| visibility_fits(f, e))
        }
    }
}

/// Give an operand the public type of its data (its root, and the components of a tuple or
/// array literal, which rules take apart): the operation is then typed on data types, and
/// its result narrowed.
pub(crate) fn strip(e: &mut ir::Expr) {
    e.ty = e.ty.erase_secret();
    if let ir::ExprKind::Tuple(parts) | ir::ExprKind::Array(parts) | ir::ExprKind::CTuple(parts) =
        &mut e.kind
    {
        parts.iter_mut().for_each(strip);
    }
}

impl Checker {
    /// Check the body of function `idx` again, as its *visibility instance*: with the
    /// parameter groups given a type in `secret_groups` (the parameter's type narrowed like its
    /// argument) and the type parameters marked in `secret_params` made secret, and its
    /// declared result narrowed. The function takes those
    /// secret arguments when this finds no error; the answer is kept per function and marks.
    ///
    /// The check runs on a copy of the checker, so nothing it produces is kept but the
    /// answer: the IR of a call is the same whatever the visibility of its arguments.
    pub(crate) fn secret_instance(
        &mut self,
        idx: usize,
        secret_groups: &[Option<Type>],
        secret_params: &[bool],
    ) -> Result<(), Box<CheckError>> {
        let key: Vec<Type> = secret_groups
            .iter()
            .map(|g| g.clone().unwrap_or(Type::VOID))
            .chain(secret_params.iter().map(|&s| Type::BOOL.narrow(s)))
            .collect();
        if let Some((_, _, answer)) = self
            .secret
            .instances
            .iter()
            .find(|(f, k, _)| *f == idx && *k == key)
        {
            return answer.clone();
        }
        // A recursive call of the instance being checked is assumed to keep secrets (the body
        // around it is what decides).
        self.secret.instances.push((idx, key.clone(), Ok(())));
        let (answer, learned) = self.probe_instance(idx, secret_groups, secret_params);
        if answer.is_ok() {
            // The instances the probe checked inside this one are kept: without them, a chain
            // of functions each calling the next with its arguments in two orders is checked
            // in time exponential in its length. They are kept only when this instance holds,
            // since they were checked assuming it does (a recursive call assumes so).
            for instance in learned {
                let known = self
                    .secret
                    .instances
                    .iter()
                    .any(|(f, k, _)| *f == instance.0 && *k == instance.1);
                if !known {
                    self.secret.instances.push(instance);
                }
            }
        }
        if let Some(entry) = self
            .secret
            .instances
            .iter_mut()
            .find(|(f, k, _)| *f == idx && *k == key)
        {
            entry.2 = answer.clone();
        }
        answer
    }

    /// The answer of `secret_instance`, with the visibility instances known at the end of the
    /// check (those checked inside it included).
    fn probe_instance(
        &self,
        idx: usize,
        secret_groups: &[Option<Type>],
        secret_params: &[bool],
    ) -> (Result<(), Box<CheckError>>, Vec<SecretInstance>) {
        use crate::check::env::{Binding, FunState, TypeBinding};
        let mut probe = self.clone();
        probe.unit.errors.clear();
        probe.secret.in_instance = true;
        probe.secret.vars_wanted.clear();
        let sig = probe.funs[idx].clone();
        // Type parameters made secret: `T` means `secret T` in the body.
        let secret_vars: Vec<crate::types::ty::TyVar> = sig
            .own_params
            .iter()
            .zip(secret_params)
            .filter(|(_, s)| **s)
            .map(|(v, _)| v.clone())
            .collect();
        let narrow_vars = |t: &Type| -> Type {
            if secret_vars.is_empty() {
                return t.clone();
            }
            t.map(&mut |x| match x {
                Type::Var(v) if secret_vars.contains(v) => Some(Type::secret(x.clone())),
                _ => None,
            })
        };
        for v in &secret_vars {
            if let Some(entry) = probe.scopes[sig.scope].types.get_mut(&*v.name) {
                entry.0 = TypeBinding::Alias(Type::secret(Type::Var(v.clone())));
            }
        }
        // The parameters' types in the instance, by slot.
        let mut slot_types: Vec<(ir::Slot, Type)> = Vec::new();
        for (p, g) in sig.params.iter().zip(secret_groups) {
            if let Some(t) = g {
                pattern_types(p, t, &mut slot_types);
            }
        }
        // The body is checked in a scope of its own holding only the type parameters and
        // the parameters (what the body declares is declared again there).
        let mut params = Vec::new();
        for p in &sig.params {
            pattern_types(p, &p.ty, &mut params);
        }
        let old_scope = &probe.scopes[sig.scope];
        let mut scope = crate::check::env::Scope::new(old_scope.parent);
        for (name, (binding, span)) in &old_scope.types {
            if matches!(binding, TypeBinding::Param(_))
                || secret_vars.iter().any(|v| *v.name == **name)
            {
                scope.types.insert(name.clone(), (binding.clone(), *span));
            }
        }
        for (name, binding) in &old_scope.values {
            if let Binding::Var(vb) = binding {
                if vb.loc.frame == sig.frame && params.iter().any(|(s, _)| *s == vb.loc.slot) {
                    scope.values.insert(name.clone(), binding.clone());
                }
            }
        }
        probe.scopes.push(scope);
        let new_scope = probe.scopes.len() - 1;
        probe.funs[idx].scope = new_scope;
        retype_parameters(
            &mut probe.scopes[new_scope],
            sig.frame,
            |slot, t| match slot_types.iter().find(|(s, _)| *s == slot) {
                Some((_, narrowed)) => narrowed.clone(),
                None => narrow_vars(t),
            },
        );
        let any_secret =
            secret_groups.iter().any(Option::is_some) || secret_params.iter().any(|s| *s);
        let f = &mut probe.funs[idx];
        f.groups = f
            .groups
            .iter()
            .zip(secret_groups)
            .map(|(g, s)| s.clone().unwrap_or_else(|| narrow_vars(g)))
            .collect();
        f.ret = match &sig.def.ret {
            Some(_) => sig.ret.as_ref().map(|r| narrow_vars(r).narrow(any_secret)),
            None if sig.kind == crate::syntax::ast::FunKind::Proc => Some(Type::VOID),
            None => None,
        };
        f.ret_meta = None;
        f.state = FunState::Unchecked;
        // Local variables declared without a type take the visibility of what the body
        // assigns them: a variable given a secret is declared secret, and the body checked
        // once more (at most once per variable).
        let start = probe.clone();
        let mut forced = self.secret.vars_forced.clone();
        loop {
            let mut attempt = start.clone();
            attempt.secret.vars_forced = forced.clone();
            attempt.check_function(idx);
            let wanted: Vec<Span> = attempt
                .secret
                .vars_wanted
                .iter()
                .filter(|s| !forced.contains(s))
                .copied()
                .collect();
            if attempt.unit.errors.is_empty() || wanted.is_empty() {
                let answer = match attempt.unit.errors.into_iter().next() {
                    None => Ok(()),
                    Some(e) => Err(Box::new(e)),
                };
                return (answer, attempt.secret.instances);
            }
            forced.extend(wanted);
        }
    }

    /// In a visibility instance, a secret assigned to a variable declared without a type
    /// where it was inferred public: note it (`probe_instance` declares it secret).
    pub(crate) fn want_secret_var(
        &mut self,
        vb: &crate::check::env::VarBinding,
        value: &Type,
        var: &Type,
    ) {
        if !self.secret.in_instance {
            return;
        }
        let value = self.zonk(value);
        if !value.has_secret() || visibility_fits(&value, var) {
            return;
        }
        let untyped = matches!(
            vb.decl.as_deref().map(|d| &d.node),
            Some(crate::syntax::ast::StmtKind::Var { ty: None, .. })
        );
        if untyped {
            self.secret.vars_wanted.push(vb.span);
        }
    }

    /// Report that `f` cannot take the secret argument at `span`, with the error its body
    /// gave when checked with it.
    pub(crate) fn secret_call_error(&mut self, idx: usize, span: Span, inner: &CheckError) {
        let name = self.funs[idx].name.clone();
        let here = self.funs[idx].scope >= self.unit.unit_scope;
        let reason = inner.to_diagnostic().message;
        let detail = format!("`{name}`, whose body would not keep it secret: {reason}");
        // The place in the body, when it is in this unit's source.
        let also = here.then(|| (inner.span(), format!("`{name}` would reveal it here")));
        self.error(CheckError::Secret {
            span,
            use_: SecretUse::Call,
            what: String::new(),
            origin: None,
            detail,
            also,
        });
    }
}

/// Give the variables of `frame` bound in `scope` (a function's parameters) the types
/// `retype` makes of their slot and type.
fn retype_parameters(
    scope: &mut crate::check::env::Scope,
    frame: crate::check::env::FrameId,
    retype: impl Fn(ir::Slot, &Type) -> Type,
) {
    use crate::check::env::{Binding, VarType};
    for binding in scope.values.values_mut() {
        let Binding::Var(vb) = binding else { continue };
        if vb.loc.frame != frame {
            continue;
        }
        if let VarType::Known(t) = &vb.ty {
            vb.ty = VarType::Known(retype(vb.loc.slot, t));
        }
    }
}

/// The slots a parameter pattern binds, with their types when the parameter has type `t`.
fn pattern_types(p: &ir::Pattern, t: &Type, out: &mut Vec<(ir::Slot, Type)>) {
    match &p.kind {
        ir::PatternKind::Bind(ir::Place::Local(s) | ir::Place::LocalCell(s)) => {
            out.push((*s, t.clone()))
        }
        ir::PatternKind::Tuple(parts) => {
            let components = t.tuple_components().or_else(|| {
                t.record_fields()
                    .map(|fs| fs.map(|(_, f)| f.clone()).collect())
            });
            match components {
                Some(cs) if cs.len() == parts.len() => {
                    for (q, c) in parts.iter().zip(&cs) {
                        pattern_types(q, c, out);
                    }
                }
                // A shape the argument does not show: every part as secret as the whole.
                _ => {
                    for q in parts {
                        pattern_types(q, &Type::secret(q.ty.clone()), out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The parameter type `p` narrowed where its argument's type `a` is secret, component by
/// component.
pub(crate) fn narrow_like(p: &Type, a: &Type) -> Type {
    if !a.has_secret() {
        return p.clone();
    }
    if let Type::Secret(_) = a {
        return Type::secret(p.clone());
    }
    if let (Some(ps), Some(xs)) = (p.tuple_components(), a.tuple_components()) {
        if ps.len() == xs.len() {
            return Type::tuple(ps.iter().zip(&xs).map(|(p, a)| narrow_like(p, a)).collect());
        }
    }
    match (p, a) {
        (Type::Array(pe, pi), Type::Array(ae, _)) => {
            Type::array(narrow_like(pe, ae), (**pi).clone())
        }
        // A pointer to a secret: the instance's parameter points at a secret.
        (Type::Ptr(mode, pt), Type::Ptr(_, at)) => Type::ptr(*mode, narrow_like(pt, at)),
        _ => Type::secret(p.clone()),
    }
}

impl Checker {
    /// An argument for a parameter of type `param` (declared as `declared`) of a user
    /// function: a secret where the
    /// parameter is public is given its data type, and its group is marked (the function is
    /// then checked again with that group secret: `secret_instance`). A parameter whose type
    /// is still being inferred (a type parameter) takes the secret type itself.
    pub(crate) fn secret_argument(
        &mut self,
        mut v: ir::Expr,
        param: &Type,
        declared: &Type,
        marks: &mut Vec<Option<Type>>,
    ) -> ir::Expr {
        let t = self.zonk(&v.ty);
        let param = self.zonk(param);
        let mark = t.has_secret() && !visibility_fits(&t, &param);
        if mark {
            // The declared type (over the function's type parameters) as the body sees it.
            marks.push(Some(narrow_like(declared, &t)));
            v.ty = t;
            strip(&mut v);
        } else {
            marks.push(None);
        }
        v
    }
}

impl Checker {
    /// A lambda checked where a function of `expected` is wanted (`map f a` over a secret
    /// array): a parameter written public whose expected type is secret takes the secret type
    /// (the lambda is polymorphic in visibility, and its body is checked at the visibility it
    /// is used with); a declared result is narrowed with it.
    pub(crate) fn narrow_lambda_params(&mut self, idx: usize, expected: &Type) {
        let expected = self.zonk(expected);
        if !expected.has_secret() {
            return;
        }
        let sig = self.funs[idx].clone();
        let mut domains = Vec::new();
        let mut rest = expected;
        while let Type::Fun(a, r) = rest {
            domains.push((*a).clone());
            rest = (*r).clone();
        }
        let mut slot_types = Vec::new();
        let mut groups = sig.groups.clone();
        for (i, (g, d)) in sig.groups.iter().zip(&domains).enumerate() {
            let g = self.zonk(g);
            if d.has_secret() && !visibility_fits(d, &g) && d.erase_secret() == g.erase_secret() {
                let narrowed = narrow_like(&g, d);
                pattern_types(&sig.params[i], &narrowed, &mut slot_types);
                groups[i] = narrowed;
            }
        }
        if slot_types.is_empty() {
            return;
        }
        retype_parameters(
            &mut self.scopes[sig.scope],
            sig.frame,
            |slot, t| match slot_types.iter().find(|(s, _)| *s == slot) {
                Some((_, narrowed)) => narrowed.clone(),
                None => t.clone(),
            },
        );
        let f = &mut self.funs[idx];
        f.groups = groups;
        if sig.def.ret.is_some() {
            f.ret = f.ret.take().map(|r| r.narrow(true));
        }
    }
}

impl Checker {
    /// A call with secret arguments also passes functions (`iter (proc (x:int) {…}) a`): a
    /// known function (a lambda, a named function) that keeps secrets when *all* its parameters
    /// are secret is given to the callee's visibility instance as a function of secrets, so
    /// the callee may apply it to them. `declared` are the callee's parameter groups, `args`
    /// the checked arguments.
    pub(crate) fn secret_function_arguments(
        &mut self,
        declared: &[Type],
        args: &[ir::Expr],
        marks: &mut [Option<Type>],
    ) {
        for (i, arg) in args.iter().enumerate() {
            if marks.get(i).is_none_or(Option::is_some) {
                continue;
            }
            let Some(group) = declared.get(i) else {
                continue;
            };
            if !matches!(group, Type::Fun(..)) {
                continue;
            }
            let ir::ExprKind::MakeFun { fun, .. } = &arg.kind else {
                continue;
            };
            let Some(f) = self.funs.iter().position(|s| s.id == *fun) else {
                continue;
            };
            let all_secret: Vec<Option<Type>> = self.funs[f]
                .groups
                .iter()
                .map(|g| Some(Type::secret(g.clone())))
                .collect();
            let type_params = vec![false; self.funs[f].own_params.len()];
            if self.secret_instance(f, &all_secret, &type_params).is_ok() {
                marks[i] = Some(of_secrets(group));
            }
        }
    }
}

/// A function type taking secrets in every argument group and giving a secret result.
fn of_secrets(t: &Type) -> Type {
    match t {
        Type::Fun(a, r) => Type::fun(Type::secret((**a).clone()), of_secrets(r)),
        t => Type::secret(t.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn checked_unit(src: &str) -> Result<ir::Unit, Vec<&'static str>> {
        let mut c = Checker::new();
        let (stmts, errors) = syntax::parse_program(crate::PRELUDE);
        assert!(errors.is_empty());
        c.check_program(&stmts).expect("prelude checks");
        let (stmts, errors) = syntax::parse_program(src);
        assert!(errors.is_empty(), "{errors:?}");
        c.check_program(&stmts)
            .map_err(|d| d.iter().map(|d| d.code).collect())
    }

    /// The program with the qualifier `secret` and the function `reveal` blanked out (same
    /// length, so the same spans; words inside strings and comments are kept).
    fn public_twin(src: &str) -> String {
        src.replace("secret ", "       ")
            .replace("reveal ", "       ")
    }

    /// The IR's debug text with every `span: A..B` removed.
    fn without_spans(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("span: ") {
            out.push_str(&rest[..at]);
            rest = rest[at + 6..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        }
        out.push_str(rest);
        out
    }

    /// Secrets cost nothing at run time: the evaluator is handed exactly the program it would run
    /// without the qualifiers, so a secret costs what a public value does.
    #[test]
    fn a_secret_program_compiles_to_the_ir_of_its_public_twin() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let mut compared = 0;
        for entry in std::fs::read_dir(&folder).expect("examples") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !(name.starts_with("secret_") && name.ends_with(".flx")) {
                continue;
            }
            let src = std::fs::read_to_string(&path).expect("readable");
            let secret = checked_unit(&src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let public = checked_unit(&public_twin(&src))
                .unwrap_or_else(|e| panic!("{name} without qualifiers: {e:?}"));
            // The same code (a `reveal e` call spans more text than `e` alone).
            assert_eq!(
                without_spans(&format!("{secret:?}")),
                without_spans(&format!("{public:?}")),
                "{name}: the IR differs from its public twin's"
            );
            assert!(
                !format!("{secret:?}").contains("Secret"),
                "{name}: not erased"
            );
            compared += 1;
        }
        assert!(compared >= 3, "only {compared} secret examples compared");
    }

    #[test]
    fn narrow_is_a_join() {
        let s = Type::secret(Type::INT);
        // Idempotent, and it distributes over tuples, arrays (not their shape) and records.
        assert_eq!(Type::secret(s.clone()), s);
        let pair = Type::tuple(vec![Type::INT, Type::Double]);
        assert_eq!(
            Type::secret(pair),
            Type::tuple(vec![s.clone(), Type::secret(Type::Double)])
        );
        let array = Type::array(Type::INT, Type::Unitsum(3));
        assert_eq!(
            Type::secret(array.clone()),
            Type::array(s.clone(), Type::Unitsum(3))
        );
        // unit, functions and pointers carry no secret data of their own.
        assert_eq!(Type::secret(Type::UNIT), Type::UNIT);
        let f = Type::fun(Type::INT, Type::INT);
        assert_eq!(Type::secret(f.clone()), f);
        // Erasure undoes it; public flows into secret, never the other way.
        assert_eq!(Type::secret(array.clone()).erase_secret(), array);
        assert!(visibility_fits(&Type::INT, &s));
        assert!(!visibility_fits(&s, &Type::INT));
        assert!(visibility_fits(&s, &s));
        // Functions are contravariant in their parameter.
        let takes_secret = Type::fun(s.clone(), Type::INT);
        assert!(visibility_fits(&takes_secret, &f));
        assert!(!visibility_fits(&f, &takes_secret));
    }

    #[test]
    fn secret_types_are_printed_and_narrowed() {
        let shown = |t: Type| t.to_string();
        assert_eq!(shown(Type::secret(Type::INT)), "secret int");
        assert_eq!(
            shown(Type::secret(Type::array(Type::INT, Type::Unitsum(3)))),
            "secret int ^ 3"
        );
        let sum = Type::sum(vec![Type::INT, Type::Double]);
        assert_eq!(shown(Type::secret(sum)), "secret (int + double)");
        assert_eq!(
            narrow_like(&Type::INT, &Type::secret(Type::INT)),
            Type::secret(Type::INT)
        );
        let params = Type::tuple(vec![Type::INT, Type::INT]);
        let args = Type::tuple(vec![Type::secret(Type::INT), Type::INT]);
        assert_eq!(narrow_like(&params, &args), args);
    }

    #[test]
    fn visibility_polymorphic_functions_and_their_limits() {
        let ok = |src: &str| assert_eq!(checked_unit(src).err(), None, "{src}");
        let fails =
            |src: &str, code: &str| assert_eq!(checked_unit(src).err(), Some(vec![code]), "{src}");
        ok("fun f (x:int, n:int) : int = { var r = 0; for i in 0 ..< n do r = r + x; done return r; }\nvar s : secret int = 1;\nval y : secret int = f (s, 3);");
        fails("fun f (x:int, n:int) : int = { var r = 0; for i in 0 ..< n do r = r + x; done return r; }\nvar s : secret int = 1;\nval y = f (3, s);", "E0806");
        ok("fun id[T] (x:T) : T => x;\nvar s : secret int = 1;\nval y : secret int = id s;\nval z : int = id 3;");
        // The result of a call with a secret is secret.
        fails(
            "fun g (x:int) : int => x + 1;\nvar s : secret int = 1;\nval y : int = g s;",
            "E0804",
        );
        // A recursive function is checked once per visibility.
        ok("fun fact (n:int) : int => if n <= 1 then 1 else n * fact (n - 1);\nval y = fact 5;");
        fails("fun fact (n:int) : int => if n <= 1 then 1 else n * fact (n - 1);\nvar s : secret int = 3;\nval y = fact s;", "E0806");
        // fold_left with a lambda over a secret array, and the lambda's captured secret.
        ok("var a : secret int ^ 3 = 1, 2, 3;\nval t : secret int = fold_left (fun (acc:int) (v:int) => acc + v) 0 a;");
        ok("var k : secret int = 2;\nval b = map (fun (x:int) => x * k) (1, 2, 3);\nval c : secret int ^ 3 = b;");
        fails(
            "var k : secret int = 2;\nval b : int ^ 3 = map (fun (x:int) => x * k) (1, 2, 3);",
            "E0804",
        );
        // A pointer to a secret for a pointer parameter: the instance's pointer is to a secret.
        ok("proc bump (p: &int, by: int) { p <- *p + by; }\nvar s : secret int = 5;\nvar acc : secret int = 0;\nbump (&acc, s);");
        fails("proc bump (p: &int, by: int) { p <- *p + by; }\nvar s : secret int = 5;\nvar pub = 0;\nbump (&pub, s);", "E0806");
        // A conditional expression with one secret branch is secret.
        fails(
            "var k : secret int = 2;\nvar p = 1;\nval x : int = if p > 0 then k else 0;",
            "E0804",
        );
    }
}
