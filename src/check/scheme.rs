//! Type schemes of the primitive table, written in the language's own type syntax.
//!
//! A scheme is `[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T`: the quantified variables, each
//! with a kind (`TYPE` when absent) or a class its instances must belong to, then a type
//! parsed by the ordinary type parser and resolved (and kind-checked) by the ordinary type
//! resolver with the variables bound as type parameters. The checker instantiates schemes
//! for inference (`prims::apply_scheme`), matches them one way to choose an overload and to
//! validate kernels (`match_type`), and prints them for `:type` and `:doc`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::check::env::TypeBinding;
use crate::check::functor::Functor;
use crate::check::traits::{self, Behaviour};
use crate::check::Checker;
use crate::types::kind::is_compact;
use crate::types::ty::{Kind, TyVar, Type};

/// What the instances of a scheme variable must be, beyond its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A behaviour of `check::traits`.
    Behaviour(Behaviour),
    /// Any integer type.
    Integer,
    /// A signed integer type.
    Signed,
    /// An unsigned integer type.
    Unsigned,
    /// `float` or `double`.
    Floating,
}

impl Class {
    fn parse(text: &str) -> Option<Class> {
        Some(match text {
            "arithmetic" => Class::Behaviour(Behaviour::Arithmetic),
            "ordered" => Class::Behaviour(Behaviour::Ordered),
            "equality" => Class::Behaviour(Behaviour::Equality),
            "printable" => Class::Behaviour(Behaviour::Printable),
            "integer" => Class::Integer,
            "signed" => Class::Signed,
            "unsigned" => Class::Unsigned,
            "floating" => Class::Floating,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Behaviour(b) => b.name(),
            Class::Integer => "integer",
            Class::Signed => "signed",
            Class::Unsigned => "unsigned",
            Class::Floating => "floating",
        }
    }

    /// Does `t` belong to the class?
    pub fn admits(self, t: &Type) -> bool {
        match (self, t) {
            (Class::Behaviour(b), t) => traits::has(t, b),
            // A secret number is in the number classes of its data type.
            (_, Type::Secret(t)) => self.admits(t),
            (Class::Integer, Type::Int(_)) => true,
            (Class::Signed, Type::Int(i)) => i.signed(),
            (Class::Unsigned, Type::Int(i)) => !i.signed(),
            (Class::Floating, Type::Float | Type::Double) => true,
            _ => false,
        }
    }

    /// The sentence saying that `t` is not in the class.
    pub fn lacking(self, t: &Type) -> String {
        match self {
            Class::Behaviour(b) => match traits::check(t, b) {
                Err(lacking) => lacking.message(),
                Ok(()) => b.lacking(t),
            },
            Class::Integer => format!("`{t}` is not an integer type"),
            Class::Signed => format!("`{t}` is not a signed integer type"),
            Class::Unsigned => format!("`{t}` is not an unsigned integer type"),
            Class::Floating => format!("`{t}` is not `float` or `double`"),
        }
    }

    /// The behaviour an error names.
    pub fn behaviour(self) -> &'static str {
        match self {
            Class::Behaviour(b) => b.name(),
            _ => "arithmetic",
        }
    }
}

/// A quantified variable of a scheme.
#[derive(Clone, Debug)]
pub struct SchemeVar {
    pub var: TyVar,
    pub class: Option<Class>,
}

/// `where C = promote(A, B)`: a variable defined by a type functor of others.
#[derive(Clone, Debug)]
pub struct Where {
    pub var: TyVar,
    pub functor: Functor,
    pub args: Vec<TyVar>,
    /// The right-hand side as written.
    pub text: String,
}

/// A resolved type scheme.
#[derive(Clone, Debug)]
pub struct Scheme {
    pub vars: Vec<SchemeVar>,
    pub ty: Type,
    pub wheres: Vec<Where>,
    /// The type as written (`string * string -> string`, where the normal form is
    /// `string ^ 2 -> string`), for `:type` and `:doc`.
    pub written: String,
}

impl Scheme {
    /// The parameter types of the curried groups, then the result.
    pub fn params_and_result(&self) -> (Vec<Type>, Type) {
        curried(&self.ty)
    }

    /// Bind the variables defined by `where` clauses from the bindings of their arguments;
    /// false when a functor does not apply (no promotion of `int` and `double`).
    pub fn apply_wheres(&self, binds: &mut Binds) -> bool {
        self.wheres.iter().all(|w| {
            let args: Option<Vec<Type>> =
                w.args.iter().map(|a| binds.get(&a.id).cloned()).collect();
            let Some(args) = args else {
                return true;
            };
            if args.iter().any(|a| a.has_meta()) {
                return true;
            }
            match w.functor.apply(&args) {
                Some(t) => match binds.get(&w.var.id) {
                    Some(bound) => *bound == t || bound.has_meta(),
                    None => {
                        binds.insert(w.var.id, t);
                        true
                    }
                },
                None => false,
            }
        })
    }

    /// Do the variables bound in `binds` belong to their classes and kinds? The first that
    /// does not, with its instance.
    pub fn violated(&self, binds: &Binds) -> Option<(&SchemeVar, Type)> {
        self.vars.iter().find_map(|v| {
            let t = binds.get(&v.var.id)?;
            if t.has_meta() {
                return None;
            }
            let kind_ok = match v.var.kind {
                Kind::Type => true,
                // A unitsum, or a type parameter or run-time size of that kind.
                Kind::Unitsum => {
                    matches!(t, Type::Unitsum(_))
                        || matches!(t, Type::Var(v) if v.kind == Kind::Unitsum)
                }
                Kind::CompactLinear => is_compact(t),
            };
            let class_ok = v.class.is_none_or(|c| c.admits(t));
            (!(kind_ok && class_ok)).then(|| (v, t.clone()))
        })
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.vars.is_empty() {
            let vars: Vec<String> = self
                .vars
                .iter()
                .map(|v| match (v.class, v.var.kind) {
                    (Some(c), _) => format!("{}:{}", v.var.name, c.name()),
                    (None, Kind::Type) => v.var.name.to_string(),
                    (None, k) => format!("{}:{}", v.var.name, k.name()),
                })
                .collect();
            write!(f, "[{}] ", vars.join(", "))?;
        }
        write!(f, "{}", self.written)?;
        for (i, w) in self.wheres.iter().enumerate() {
            let sep = if i == 0 { " where" } else { "," };
            write!(f, "{sep} {} = {}", w.var.name, w.text)?;
        }
        Ok(())
    }
}

/// The parameter types of a curried function type `A -> B -> R`, then its result.
pub fn curried(ty: &Type) -> (Vec<Type>, Type) {
    let mut params = Vec::new();
    let mut t = ty.clone();
    while let Type::Fun(a, r) = t {
        params.push((*a).clone());
        t = (*r).clone();
    }
    (params, t)
}

/// Bindings of scheme variables (by `TyVar::id`) found by `match_type`.
pub type Binds = HashMap<u32, Type>;

/// Resolved schemes, shared by every clone of a session's checker: entry index to the
/// schemes of its overloads.
pub(crate) type SchemeCache = Arc<Mutex<HashMap<usize, Arc<[Scheme]>>>>;

/// Match `pattern` (a scheme type whose variables are free) against `actual` one way, binding
/// the variables. An inference variable in `actual` matches anything; a tuple pattern matches
/// an array over a unitsum of as many elements (the normal form of a homogeneous tuple).
pub fn match_type(pattern: &Type, actual: &Type, binds: &mut Binds) -> bool {
    if let Type::Var(v) = pattern {
        return match binds.get(&v.id) {
            Some(bound) => bound == actual || bound.has_meta() || actual.has_meta(),
            None => {
                binds.insert(v.id, actual.clone());
                true
            }
        };
    }
    if matches!(actual, Type::Meta(_)) {
        return true;
    }
    if !pattern.has_var() {
        return pattern == actual || (actual.has_meta() && same_node(pattern, actual));
    }
    match (pattern, actual) {
        (Type::Tuple(ps), Type::Array(e, i)) if **i == Type::Unitsum(ps.len() as u64) => {
            ps.iter().all(|p| match_type(p, e, binds))
        }
        _ if same_node(pattern, actual) => pattern
            .children()
            .zip(actual.children())
            .all(|(p, a)| match_type(p, a, binds)),
        _ => false,
    }
}

/// Same constructor, same number of children, same names and modes.
fn same_node(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Tuple(x), Type::Tuple(y))
        | (Type::Sum(x), Type::Sum(y))
        | (Type::CProduct(x), Type::CProduct(y))
        | (Type::CSum(x), Type::CSum(y)) => x.len() == y.len(),
        (Type::Record(n, x), Type::Record(m, y)) => n == m && x.len() == y.len(),
        (Type::Array(..), Type::Array(..))
        | (Type::CArray(..), Type::CArray(..))
        | (Type::Fun(..), Type::Fun(..)) => true,
        (Type::Ptr(p, _), Type::Ptr(q, _)) => p == q,
        (Type::CPtr(p, ..), Type::CPtr(q, ..)) => p == q,
        // Two instances of one parametric nominal type (the prelude's `varray[T]`).
        (Type::Nominal(x), Type::Nominal(y)) => match (&x.instance, &y.instance) {
            (Some((d, _)), Some((e, _))) => std::sync::Arc::ptr_eq(d, e),
            _ => false,
        },
        _ => false,
    }
}

/// A variable's name and its constraint as written (`T`, `arithmetic`).
type NamedConstraint = (String, String);

/// Split `[T:arithmetic, N:COMPACTLINEAR] body` into its variables and its body.
fn split_scheme(text: &str) -> Result<(Vec<NamedConstraint>, &str), String> {
    let text = text.trim();
    let Some(rest) = text.strip_prefix('[') else {
        return Ok((Vec::new(), text));
    };
    let close = rest
        .find(']')
        .ok_or_else(|| format!("unclosed `[` in `{text}`"))?;
    let vars = rest[..close]
        .split(',')
        .map(|v| {
            let mut parts = v.splitn(2, ':');
            let name = parts.next().unwrap_or("").trim().to_string();
            let constraint = parts.next().unwrap_or("").trim().to_string();
            (name, constraint)
        })
        .collect();
    Ok((vars, &rest[close + 1..]))
}

impl Checker {
    /// Resolve a scheme's text in the prelude's scope (so `ofile` and other library types are
    /// visible, and no user definition can change a primitive's type).
    pub(crate) fn resolve_scheme(&mut self, text: &str) -> Result<Scheme, String> {
        let (names, body) = split_scheme(text)?;
        let (body, where_text) = match body.split_once(" where ") {
            Some((b, w)) => (b, Some(w)),
            None => (body, None),
        };
        let parsed = crate::syntax::parse_type(body).map_err(|errors| {
            format!(
                "`{body}` does not parse: {}",
                errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
        let saved_scope = self.scope;
        let saved_errors = std::mem::take(&mut self.unit.errors);
        // While the prelude itself is checked, its scope so far.
        let scope = self.new_scope(Some(self.prelude_scope.unwrap_or(self.scope)));
        let mut vars = Vec::new();
        for (name, constraint) in names {
            let (kind, class) = match constraint.as_str() {
                "" | "TYPE" => (Kind::Type, None),
                "UNITSUM" => (Kind::Unitsum, None),
                "COMPACTLINEAR" => (Kind::CompactLinear, None),
                other => (
                    Kind::Type,
                    Some(
                        Class::parse(other)
                            .ok_or_else(|| format!("unknown class `{other}` in `{text}`"))?,
                    ),
                ),
            };
            let var = TyVar {
                id: self.next_tyvar,
                name: name.as_str().into(),
                kind,
            };
            self.next_tyvar += 1;
            self.scopes[scope].types.insert(
                name,
                (
                    TypeBinding::Param(var.clone()),
                    crate::syntax::span::Span::default(),
                ),
            );
            vars.push(SchemeVar { var, class });
        }
        self.scope = scope;
        let ty = self.type_expr(&parsed);
        self.scope = saved_scope;
        let errors = std::mem::replace(&mut self.unit.errors, saved_errors);
        if let Some(e) = errors.first() {
            return Err(format!(
                "`{text}` does not resolve: {}",
                e.to_diagnostic().message
            ));
        }
        let mut wheres = Vec::new();
        for clause in where_text.into_iter().flat_map(|w| w.split(';')) {
            let (var, rhs) = clause
                .split_once('=')
                .ok_or_else(|| format!("`where {clause}` needs `VAR = FUNCTOR(…)`"))?;
            let find = |name: &str| {
                vars.iter()
                    .find(|v| &*v.var.name == name.trim())
                    .map(|v| v.var.clone())
                    .ok_or_else(|| format!("`{}` is not a variable of `{text}`", name.trim()))
            };
            let (functor, args) = crate::check::functor::parse(rhs)
                .ok_or_else(|| format!("unknown functor in `{rhs}`"))?;
            wheres.push(Where {
                var: find(var)?,
                functor,
                args: args.iter().map(|a| find(a)).collect::<Result<_, _>>()?,
                text: rhs.trim().to_string(),
            });
        }
        let written = body.split_whitespace().collect::<Vec<_>>().join(" ");
        Ok(Scheme {
            vars,
            ty,
            wheres,
            written,
        })
    }

    /// The resolved schemes of table entry `index`, resolved once per session.
    pub(crate) fn prim_schemes(&mut self, index: usize) -> Result<Arc<[Scheme]>, String> {
        if let Some(s) = self.schemes.lock().expect("scheme cache").get(&index) {
            return Ok(s.clone());
        }
        let def = &crate::core::prims::PRIMS[index];
        let schemes: Vec<Scheme> = def
            .schemes
            .iter()
            .map(|text| self.resolve_scheme(text))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("the scheme of `{}`: {e}", def.name))?;
        let schemes: Arc<[Scheme]> = schemes.into();
        self.schemes
            .lock()
            .expect("scheme cache")
            .insert(index, schemes.clone());
        Ok(schemes)
    }

    /// The scheme's type with its variables replaced by fresh inference variables, and those
    /// variables.
    pub(crate) fn instantiate_scheme(&mut self, scheme: &Scheme) -> (Type, Vec<Type>) {
        let params: Vec<TyVar> = scheme.vars.iter().map(|v| v.var.clone()).collect();
        let metas = self.instantiate_params(&params);
        (scheme.ty.subst_vars(&params, &metas), metas)
    }
}
