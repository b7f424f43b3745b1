//! Type expressions to types: names, typedefs (resolved on demand, so they are visible in their
//! whole scope), unitsum arithmetic, and the kind rules (compact linear types, array indices).

use std::sync::Arc;

use crate::check::env::TypeBinding;
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::syntax::ast::{self, SName, TypeExpr, TypeExprKind, UnitsumOp};
use crate::types::kind::{compact_hint, is_compact, kind_of};
use crate::types::ty::{instantiate_nominal, IntTy, Kind, NominalDef, TyVar, Type};

/// What a type name denotes: a type, or a parametric type that needs arguments.
#[derive(Clone, Debug)]
pub(crate) enum TypeScheme {
    Mono(Type),
    /// A parametric typedef: parameters and body.
    Alias(Vec<TyVar>, Type),
    /// A parametric struct or variant declaration.
    Nominal(Arc<NominalDef>),
}

impl TypeScheme {
    pub(crate) fn params(&self) -> &[TyVar] {
        match self {
            TypeScheme::Mono(_) => &[],
            TypeScheme::Alias(params, _) => params,
            TypeScheme::Nominal(definition) => &definition.params,
        }
    }

    /// The scheme applied to arguments (checked by the caller).
    pub(crate) fn apply(&self, args: Vec<Type>) -> Type {
        match self {
            TypeScheme::Mono(t) => t.clone(),
            TypeScheme::Alias(params, body) => body.subst_vars(params, &args),
            TypeScheme::Nominal(definition) => instantiate_nominal(definition, args),
        }
    }
}

/// The kind written in a type parameter declaration.
pub(crate) fn kind_of_expr(kind: ast::KindExpr) -> Kind {
    match kind {
        ast::KindExpr::Type => Kind::Type,
        ast::KindExpr::Unitsum => Kind::Unitsum,
        ast::KindExpr::CompactLinear => Kind::CompactLinear,
    }
}

/// The scalar type named `name`, if it is one of the built-in names.
pub fn builtin_type(name: &str) -> Option<Type> {
    Some(match name {
        "void" => Type::VOID,
        "unit" => Type::UNIT,
        "bool" => Type::BOOL,
        "float" => Type::Float,
        "double" => Type::Double,
        "string" => Type::String,
        "char" => Type::Char,
        "natural" => Type::Natural,
        other => Type::Int(IntTy::from_name(other)?),
    })
}

impl Checker {
    pub(crate) fn type_expr(&mut self, te: &TypeExpr) -> Type {
        let t = self.type_expr_node(te);
        // A compact type whose size cannot even be computed (more than MAX_SIZE_BITS bits)
        // cannot be iterated, decoded or counted: refuse it here, once.
        if matches!(t, Type::CProduct(_) | Type::CSum(_) | Type::CArray(..))
            && !t.has_var()
            && !t.has_meta()
            && is_compact(&t)
            && crate::types::size::size_of(&t).is_none()
        {
            self.error(CheckError::Type {
                span: te.span,
                message: format!(
                    "the size of `{t}` has more than {} bits: too large to compute",
                    crate::types::size::MAX_SIZE_BITS
                ),
                help: None,
            });
            return error_type();
        }
        t
    }

    fn type_expr_node(&mut self, te: &TypeExpr) -> Type {
        match &te.node {
            TypeExprKind::Name(name) => self.type_name(name, te),
            TypeExprKind::Apply(name, args) => self.type_application(name, args, te),
            TypeExprKind::Unitsum(lit) => match lit.value.and_then(|v| u64::try_from(v).ok()) {
                Some(n) if lit.suffix.is_empty() => Type::Unitsum(n),
                _ => {
                    self.type_error(
                        te.span,
                        "a unitsum type must be a plain integer literal below 2^64",
                    );
                    error_type()
                }
            },
            TypeExprKind::Unit => Type::UNIT,
            TypeExprKind::Record(fields) => self.record_type(fields),
            TypeExprKind::Product(cs) => {
                let comps = cs.iter().map(|c| self.type_expr(c)).collect();
                Type::tuple(comps)
            }
            TypeExprKind::Sum(cs) => {
                let comps = cs.iter().map(|c| self.type_expr(c)).collect();
                Type::sum(comps)
            }
            TypeExprKind::CProduct(cs) => {
                let comps = cs
                    .iter()
                    .map(|c| self.compact_operand(c, "an operand of `\\*`"))
                    .collect();
                Type::cproduct(comps)
            }
            TypeExprKind::CSum(cs) => {
                let comps = cs
                    .iter()
                    .map(|c| self.compact_operand(c, "an operand of `\\+`"))
                    .collect();
                Type::csum(comps)
            }
            TypeExprKind::Array(e, i) => {
                let elem = self.type_expr(e);
                let index = self.compact_operand(i, "an array index");
                Type::array(elem, index)
            }
            TypeExprKind::CArray(e, i) => {
                let elem = self.compact_operand(e, "the element of `\\^`");
                let index = self.compact_operand(i, "the index of `\\^`");
                Type::carray(elem, index)
            }
            TypeExprKind::Fun(a, b) => {
                let a = self.type_expr(a);
                let b = self.type_expr(b);
                Type::fun(a, b)
            }
            TypeExprKind::Ptr(mode, t) => {
                let t = self.type_expr(t);
                Type::ptr(*mode, t)
            }
            TypeExprKind::Visibility(secret, t) => self.visibility_type(*secret, t, te.span),
            TypeExprKind::Distributed(t) => self.distributed_type(t, te.span),
            TypeExprKind::Extend(bases, extension) => self.extend_type(bases, extension),
            TypeExprKind::CPtr(mode, d, c) => {
                let d = self.compact_operand(d, "the whole of `_pclt<D, C>`");
                let c = self.compact_operand(c, "the component of `_pclt<D, C>`");
                Type::cptr(*mode, d, c)
            }
            TypeExprKind::UnitsumArith(op, a, b) => {
                let x = self.type_expr(a);
                let y = self.type_expr(b);
                match (&x, &y) {
                    (Type::Unitsum(m), Type::Unitsum(n)) => {
                        let r = match op {
                            UnitsumOp::Add => m.checked_add(*n),
                            UnitsumOp::Sub => m.checked_sub(*n),
                            UnitsumOp::Mul => m.checked_mul(*n),
                            UnitsumOp::Div => m.checked_div(*n),
                            UnitsumOp::Mod => m.checked_rem(*n),
                        };
                        match r {
                            Some(r) => Type::Unitsum(r),
                            None => {
                                self.type_error(te.span, "unitsum arithmetic out of range");
                                error_type()
                            }
                        }
                    }
                    _ if x.has_meta() || y.has_meta() => error_type(),
                    _ => {
                        self.type_error(
                            te.span,
                            format!("unitsum arithmetic needs unitsums, found `{x}` and `{y}`"),
                        );
                        error_type()
                    }
                }
            }
        }
    }

    /// `secret T` or `public T`.
    fn visibility_type(
        &mut self,
        secret: bool,
        te: &TypeExpr,
        span: crate::syntax::span::Span,
    ) -> Type {
        let t = self.type_expr(te);
        if crate::check::contains_error(&t) {
            return t;
        }
        let qualifier = crate::check::error::SecretUse::Qualifier;
        if secret {
            if t.has_fun() || matches!(t, Type::Ptr(..) | Type::CPtr(..)) {
                self.secret_error(
                    span,
                    qualifier,
                    format!("`secret` cannot qualify `{t}`: functions and pointers hold no data of their own"),
                );
                return crate::check::error_type();
            }
            self.secret.written = true;
            Type::secret(t)
        } else {
            if t.has_secret() {
                self.secret_error(
                    span,
                    qualifier,
                    format!("`public` cannot make the secret type `{t}` public"),
                );
                return crate::check::error_type();
            }
            t
        }
    }

    /// A type that must be compact linear (E0401 otherwise, with the hint to write `\*`, `\+`
    /// and `\^` for the plain operators).
    fn compact_operand(&mut self, te: &TypeExpr, context: &'static str) -> Type {
        let t = self.type_expr(te);
        // An inference variable (or an earlier error) inside: decided later, or reported.
        if !t.has_meta()
            && !crate::check::traits::has(&t, crate::check::traits::Behaviour::CompactLinear)
        {
            self.error(CheckError::NotCompact {
                span: te.span,
                ty: t.to_string(),
                context,
                hint: compact_hint(&t),
            });
            return error_type();
        }
        t
    }

    fn type_name(&mut self, name: &str, te: &TypeExpr) -> Type {
        self.note_type_use(te.span, name);
        match self.type_scheme(name) {
            Some(TypeScheme::Mono(t)) => return t,
            Some(scheme) => {
                let n = scheme.params().len();
                let names: Vec<&str> = scheme.params().iter().map(|p| &*p.name).collect();
                self.error(CheckError::Type {
                    span: te.span,
                    message: format!(
                        "the parametric type `{name}` needs {n} type argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                    help: Some(format!("write `{name}[{}]`", names.join(", "))),
                });
                return error_type();
            }
            None => {}
        }
        if let Some(t) = builtin_type(name) {
            return t;
        }
        if let Some(t) = self.size_type(name, te.span) {
            return t;
        }
        self.error(CheckError::UndefinedName {
            name: name.to_string(),
            span: te.span,
            what: "type",
            hint: None,
        });
        error_type()
    }

    /// `name[args]`: a parametric typedef, struct or variant applied to type arguments, each
    /// of the kind its parameter declares (E0401 otherwise).
    fn type_application(&mut self, name: &SName, args: &[TypeExpr], te: &TypeExpr) -> Type {
        let types: Vec<Type> = args.iter().map(|a| self.type_expr(a)).collect();
        let scheme = match self.type_scheme(&name.node) {
            Some(scheme) => scheme,
            None if builtin_type(&name.node).is_some() => TypeScheme::Mono(Type::UNIT),
            None => {
                self.error(CheckError::UndefinedName {
                    name: name.node.clone(),
                    span: name.span,
                    what: "type",
                    hint: None,
                });
                return error_type();
            }
        };
        let params = scheme.params().to_vec();
        if matches!(&scheme, TypeScheme::Mono(t) if *t == error_type()) {
            return error_type();
        }
        if params.len() != types.len() {
            let names: Vec<&str> = params.iter().map(|p| &*p.name).collect();
            let n = params.len();
            self.error(CheckError::Type {
                span: te.span,
                message: if n == 0 {
                    format!(
                        "`{}` is not a parametric type: it takes no type arguments",
                        name.node
                    )
                } else {
                    format!(
                        "`{}` takes {n} type argument{}, but {} {} given",
                        name.node,
                        if n == 1 { "" } else { "s" },
                        types.len(),
                        if types.len() == 1 { "is" } else { "are" }
                    )
                },
                help: (n > 0).then(|| format!("write `{}[{}]`", name.node, names.join(", "))),
            });
            return error_type();
        }
        let mut ok = true;
        for ((param, arg), t) in params.iter().zip(args).zip(&types) {
            if t.has_meta() {
                ok &= *t != error_type();
                continue;
            }
            let kind = kind_of(t);
            if !kind.satisfies(param.kind) {
                self.error(CheckError::KindMismatch {
                    span: arg.span,
                    ty: t.to_string(),
                    kind: kind.name(),
                    param: param.name.to_string(),
                    of: name.node.clone(),
                    needed: param.kind.name(),
                });
                ok = false;
            }
        }
        if !ok {
            return error_type();
        }
        scheme.apply(types)
    }

    /// Look a type name up through the scope chain, resolving typedefs on demand. A parametric
    /// type is instantiated with fresh inference variables (`Box` in `Box (3)`).
    pub(crate) fn lookup_type(&mut self, name: &str) -> Option<Type> {
        let scheme = self.type_scheme(name)?;
        let params = scheme.params().to_vec();
        if !params.is_empty() {
            self.unit.recursion_metas = true;
        }
        let args = self.instantiate_params(&params);
        Some(scheme.apply(args))
    }

    /// The type of a value built by a constructor of `definition`: the definition itself, or
    /// for a parametric one an instance: the `expected` type when it is one, otherwise one
    /// with fresh inference variables, which the constructor's argument solves (`Leaf 1` is a
    /// `tree[int]`).
    pub(crate) fn nominal_instance(
        &mut self,
        definition: &Arc<NominalDef>,
        expected: Option<&Type>,
        span: crate::syntax::span::Span,
    ) -> Type {
        if definition.params.is_empty() {
            return Type::Nominal(definition.clone());
        }
        if let Some(t) = expected.map(|t| self.zonk(t)) {
            if matches!(&t, Type::Nominal(n) if n.instance_of(definition)) {
                return t;
            }
        }
        let args = self.instantiate_params(&definition.params);
        // Solved later in the unit (`if c then None else Some 1`): the unit's IR is zonked
        // once more at the end, and an argument still unknown then is E0302.
        self.unit.recursion_metas = true;
        let t = instantiate_nominal(definition, args);
        self.unit.open_instances.push((span, t.clone()));
        t
    }

    /// E0302 for each constructor use whose type arguments nothing determined
    /// (`println$ None;`), unless an error was already reported there.
    pub(crate) fn report_open_instances(&mut self) {
        for (span, t) in std::mem::take(&mut self.unit.open_instances) {
            let t = self.zonk(&t);
            let mut unsolved = false;
            t.walk(&mut |x| {
                unsolved |= matches!(x, Type::Meta(m) if *m != crate::check::ERROR_META)
            });
            if unsolved && !self.unit.errors.iter().any(|e| e.span() == span) {
                let name = match &t {
                    Type::Nominal(n) => n.name.to_string(),
                    other => other.to_string(),
                };
                self.error(CheckError::CannotInfer {
                    span,
                    message: format!(
                        "cannot infer the type arguments of `{name}` here; give the type, as in `val x : {name}[…] = …;`"
                    ),
                });
            }
        }
    }

    /// Is `name` a parametric type (a typedef, struct or variant with type parameters)?
    pub(crate) fn is_parametric_type(&mut self, name: &str) -> bool {
        matches!(self.type_scheme(name), Some(s) if !s.params().is_empty())
    }

    /// What a type name denotes, through the scope chain, resolving typedefs on demand.
    pub(crate) fn type_scheme(&mut self, name: &str) -> Option<TypeScheme> {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some((b, _)) = self.scopes[id].types.get(name) {
                let b = b.clone();
                return Some(self.resolve_type_binding(id, name, b));
            }
            if let Some(scheme) = self.opened_type(id, name) {
                return Some(scheme);
            }
            s = self.scopes[id].parent;
        }
        None
    }

    /// Type variables for declared type parameters, bound in `scope`.
    pub(crate) fn bind_type_params(
        &mut self,
        params: &[ast::TypeParam],
        scope: usize,
    ) -> Vec<TyVar> {
        let mut vars = Vec::new();
        for tp in params {
            let v = TyVar {
                id: self.next_tyvar,
                name: tp.name.node.as_str().into(),
                kind: kind_of_expr(tp.kind),
            };
            self.next_tyvar += 1;
            if self.scopes[scope].types.contains_key(&tp.name.node) {
                let previous = self.scopes[scope].types[&tp.name.node].1;
                self.error(CheckError::Duplicate {
                    name: tp.name.node.clone(),
                    span: tp.name.span,
                    previous,
                });
            }
            self.scopes[scope].types.insert(
                tp.name.node.clone(),
                (TypeBinding::Param(v.clone()), tp.name.span),
            );
            vars.push(v);
        }
        vars
    }

    pub(crate) fn resolve_type_binding(
        &mut self,
        scope: usize,
        name: &str,
        b: TypeBinding,
    ) -> TypeScheme {
        match b {
            TypeBinding::Alias(t) => TypeScheme::Mono(t),
            TypeBinding::Generic(params, t) => TypeScheme::Alias(params, t),
            TypeBinding::Nominal(n) if !n.params.is_empty() => TypeScheme::Nominal(n),
            TypeBinding::Nominal(n) => TypeScheme::Mono(Type::Nominal(n)),
            TypeBinding::Param(v) => TypeScheme::Mono(Type::Var(v)),
            TypeBinding::ResolvingAlias => {
                let span = self.scopes[scope].types[name].1;
                self.type_error(span, format!("typedef `{name}` refers to itself"));
                TypeScheme::Mono(error_type())
            }
            TypeBinding::PendingGeneric(params, te, def_scope) => {
                let span = self.scopes[scope].types[name].1;
                self.scopes[scope]
                    .types
                    .insert(name.to_string(), (TypeBinding::ResolvingAlias, span));
                let saved = self.scope;
                let inner = self.new_scope(Some(def_scope));
                let vars = self.bind_type_params(&params, inner);
                self.scope = inner;
                let t = self.type_expr(&te);
                self.scope = saved;
                self.scopes[scope].types.insert(
                    name.to_string(),
                    (TypeBinding::Generic(vars.clone(), t.clone()), span),
                );
                TypeScheme::Alias(vars, t)
            }
            TypeBinding::PendingAlias(te, def_scope) => {
                let span = self.scopes[scope].types[name].1;
                self.scopes[scope]
                    .types
                    .insert(name.to_string(), (TypeBinding::ResolvingAlias, span));
                let saved = self.scope;
                self.scope = def_scope;
                let t = self.type_expr(&te);
                self.scope = saved;
                self.scopes[scope]
                    .types
                    .insert(name.to_string(), (TypeBinding::Alias(t.clone()), span));
                TypeScheme::Mono(t)
            }
        }
    }
}

impl Checker {
    /// The type of the variable `name` as its declaration wrote it (`grid[3 \* 4]`), when the
    /// written type names a typedef (plain or parametric) and still means the variable's type
    /// where `:type` is asked; `None` otherwise (then the normal form is printed).
    pub fn written_type_of(&mut self, name: &str) -> Option<String> {
        let saved = self.clone();
        self.scope = self.top;
        self.frame = 0;
        let result = self.written_type_in_scope(name);
        *self = saved;
        result
    }

    fn written_type_in_scope(&mut self, name: &str) -> Option<String> {
        let Some(crate::check::env::Binding::Var(vb)) = self.lookup_value(name) else {
            return None;
        };
        let crate::check::env::VarType::Known(known) = &vb.ty else {
            return None;
        };
        let te = match &vb.decl.as_deref()?.node {
            ast::StmtKind::Var { ty: Some(te), .. } | ast::StmtKind::Val { ty: Some(te), .. } => {
                te.clone()
            }
            _ => return None,
        };
        let mut names_alias = false;
        walk_type_names(&te, &mut |n| {
            names_alias |= matches!(self.type_scheme(n), Some(TypeScheme::Alias(..)))
                || self.names_plain_alias(n);
        });
        if !names_alias {
            return None;
        }
        // The written type must still mean the variable's type here (a later chunk may have
        // defined a type of the same name).
        let here = self.type_expr(&te);
        let errors = std::mem::take(&mut self.unit.errors);
        (errors.is_empty() && here == *known).then(|| written_type(&te))
    }

    /// Is `name` a non-parametric typedef where the lookup starts?
    fn names_plain_alias(&self, name: &str) -> bool {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some((b, _)) = self.scopes[id].types.get(name) {
                return matches!(b, TypeBinding::Alias(_) | TypeBinding::PendingAlias(..));
            }
            s = self.scopes[id].parent;
        }
        false
    }
}

/// Call `f` with every type name a type expression mentions (applied or not).
fn walk_type_names(te: &TypeExpr, f: &mut dyn FnMut(&str)) {
    match &te.node {
        TypeExprKind::Name(n) => f(n),
        TypeExprKind::Apply(n, args) => {
            f(&n.node);
            args.iter().for_each(|a| walk_type_names(a, f));
        }
        TypeExprKind::Product(cs)
        | TypeExprKind::Sum(cs)
        | TypeExprKind::CProduct(cs)
        | TypeExprKind::CSum(cs) => cs.iter().for_each(|c| walk_type_names(c, f)),
        TypeExprKind::Array(a, b)
        | TypeExprKind::CArray(a, b)
        | TypeExprKind::Fun(a, b)
        | TypeExprKind::UnitsumArith(_, a, b)
        | TypeExprKind::CPtr(_, a, b) => {
            walk_type_names(a, f);
            walk_type_names(b, f);
        }
        TypeExprKind::Ptr(_, a) | TypeExprKind::Visibility(_, a) | TypeExprKind::Distributed(a) => {
            walk_type_names(a, f)
        }
        TypeExprKind::Record(fields) => fields.iter().for_each(|(_, t)| walk_type_names(t, f)),
        TypeExprKind::Extend(bases, extension) => {
            bases.iter().for_each(|b| walk_type_names(b, f));
            walk_type_names(extension, f);
        }
        TypeExprKind::Unitsum(_) | TypeExprKind::Unit => {}
    }
}

/// A type expression printed as written (names kept, typedefs not expanded), with the
/// spacing of `types::print` and parentheses only where the grammar needs them (loosest first:
/// `->` < `+` < `\+` < `*` < `\*` < `^`, `\^` < atoms).
pub(crate) fn written_type(te: &TypeExpr) -> String {
    let mut out = String::new();
    write_type_expr(te, 0, &mut out);
    out
}

fn type_expr_level(te: &TypeExpr) -> u8 {
    match &te.node {
        TypeExprKind::Fun(..) => 0,
        TypeExprKind::Sum(_) => 1,
        TypeExprKind::UnitsumArith(UnitsumOp::Add | UnitsumOp::Sub, ..) => 1,
        TypeExprKind::CSum(_) => 2,
        TypeExprKind::Product(_) | TypeExprKind::UnitsumArith(..) => 3,
        TypeExprKind::CProduct(_) => 4,
        TypeExprKind::Array(..) | TypeExprKind::CArray(..) => 5,
        _ => 6,
    }
}

fn write_type_expr(te: &TypeExpr, min_level: u8, out: &mut String) {
    let level = type_expr_level(te);
    if level < min_level {
        out.push('(');
    }
    let chain = |cs: &[TypeExpr], op: &str, out: &mut String| {
        for (i, c) in cs.iter().enumerate() {
            if i > 0 {
                out.push_str(op);
            }
            write_type_expr(c, level + 1, out);
        }
    };
    match &te.node {
        TypeExprKind::Name(n) => out.push_str(n),
        TypeExprKind::Apply(n, args) => {
            out.push_str(&n.node);
            out.push('[');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type_expr(a, 0, out);
            }
            out.push(']');
        }
        TypeExprKind::Unitsum(lit) => match lit.value {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push('?'),
        },
        TypeExprKind::Unit => out.push_str("()"),
        TypeExprKind::Product(cs) => chain(cs, " * ", out),
        TypeExprKind::Sum(cs) => chain(cs, " + ", out),
        TypeExprKind::CProduct(cs) => chain(cs, " \\* ", out),
        TypeExprKind::CSum(cs) => chain(cs, " \\+ ", out),
        TypeExprKind::Array(e, i) | TypeExprKind::CArray(e, i) => {
            write_type_expr(e, level, out);
            out.push_str(if matches!(te.node, TypeExprKind::Array(..)) {
                " ^ "
            } else {
                " \\^ "
            });
            write_type_expr(i, level + 1, out);
        }
        TypeExprKind::Fun(a, b) => {
            write_type_expr(a, 1, out);
            out.push_str(" -> ");
            write_type_expr(b, 0, out);
        }
        TypeExprKind::UnitsumArith(op, a, b) => {
            write_type_expr(a, level, out);
            out.push_str(match op {
                UnitsumOp::Add => " `+ ",
                UnitsumOp::Sub => " `- ",
                UnitsumOp::Mul => " `* ",
                UnitsumOp::Div => " `/ ",
                UnitsumOp::Mod => " `% ",
            });
            write_type_expr(b, level + 1, out);
        }
        TypeExprKind::Record(fields) => {
            out.push('(');
            for (i, (n, t)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&n.node);
                out.push(':');
                write_type_expr(t, 0, out);
            }
            out.push(')');
        }
        TypeExprKind::Ptr(mode, t) => {
            out.push_str(pointer_prefix(*mode));
            write_type_expr(t, 6, out);
        }
        TypeExprKind::Visibility(secret, t) => {
            out.push_str(if *secret { "secret " } else { "public " });
            write_type_expr(t, 6, out);
        }
        TypeExprKind::Distributed(t) => {
            out.push_str("distributed ");
            write_type_expr(t, 6, out);
        }
        TypeExprKind::Extend(bases, extension) => {
            out.push_str("extend ");
            for (i, b) in bases.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type_expr(b, 0, out);
            }
            out.push_str(" with ");
            write_type_expr(extension, 0, out);
            out.push_str(" end");
        }
        TypeExprKind::CPtr(mode, d, c) => {
            out.push_str(match mode {
                crate::syntax::ast::PtrMode::ReadWrite => "_pclt<",
                crate::syntax::ast::PtrMode::Read => "_rpclt<",
                crate::syntax::ast::PtrMode::Write => "_wpclt<",
            });
            write_type_expr(d, 0, out);
            out.push_str(", ");
            write_type_expr(c, 0, out);
            out.push('>');
        }
    }
    if level < min_level {
        out.push(')');
    }
}

fn pointer_prefix(mode: crate::syntax::ast::PtrMode) -> &'static str {
    match mode {
        crate::syntax::ast::PtrMode::ReadWrite => "&",
        crate::syntax::ast::PtrMode::Read => "&<",
        crate::syntax::ast::PtrMode::Write => "&>",
    }
}

#[cfg(test)]
mod tests {
    use super::written_type;

    fn check(source: &str, expected: &str) {
        let te = crate::syntax::parse_type(source).expect("a type");
        assert_eq!(written_type(&te), expected, "{source}");
    }

    #[test]
    fn written_types_keep_names_and_needed_parentheses() {
        check("grid[3\\*4]", "grid[3 \\* 4]");
        check("pair[int] ^ 3", "pair[int] ^ 3");
        check("(int * int) * string", "(int * int) * string");
        check("int * (int * int)", "int * (int * int)");
        check(
            "(int -> int) -> pair[int -> int]",
            "(int -> int) -> pair[int -> int]",
        );
        check("int ^ 2 ^ 3", "int ^ 2 ^ 3");
        check("int ^ (2 ^ 3)", "int ^ (2 ^ 3)");
        check("(a:pair[int], b:&string)", "(a:pair[int], b:&string)");
        check("2 `+ 3 `* 4", "2 `+ 3 `* 4");
    }
}
