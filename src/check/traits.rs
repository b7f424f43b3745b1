//! Behaviours as traits (seed 002): what a type can do, decided here and only here. Every
//! operator, library rule and conversion of the checker asks these functions, and an error
//! names the behaviour that failed and the component that lacks it ("`S` has no equality: its
//! field `f` is a function (`int -> int`)", "no `+` for `int` and `string`").
//!
//! The structural behaviours (equality, ordered, printable, compact linear) are derived
//! component by component through tuples, arrays, sums, records, structs and variants: a
//! compound has the behaviour when every component has it. Nominal bodies may be recursive
//! (`variant tree = | Leaf of int | Node of tree * tree;`); a nominal type met again while it
//! is being examined is assumed to have the behaviour (its components are examined at its
//! first visit), so the derivation terminates and is the greatest fixed point.

use std::collections::HashSet;

use crate::check::error::CheckError;
use crate::check::{contains_error, Checker};
use crate::core::ir;
use crate::syntax::ast::FunKind;
use crate::syntax::span::Span;
use crate::types::kind::{compact_hint, is_compact};
use crate::types::ty::{IntTy, Kind, NominalBody, NominalDef, TyVar, Type};

/// The behaviours types have or lack (what values of a type can do): each is a predicate on
/// types, except *convertible* (a relation, [`convertible`]) and *pure* (a property of
/// function values, [`pure_function`], [`pure_callee`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Behaviour {
    /// Can be applied to an argument (functions; also compact values applied to arrays and
    /// strings applied to strings).
    Invocable,
    /// `+ - * / %` within the type (and `\sum`, `\prod` of arrays of it).
    Arithmetic,
    /// `< <= > >=`, `min`, `max`, `sort`.
    Ordered,
    /// `== !=`, `\in`.
    Equality,
    /// `str`, `repr`, `_strr`, `print`.
    Printable,
    /// Kind COMPACTLINEAR: usable as an array index, encodable as one integer.
    CompactLinear,
}

impl Behaviour {
    /// The sentence saying that `ty` lacks this behaviour.
    pub fn lacking(self, ty: &Type) -> String {
        match self {
            Behaviour::Invocable => format!("`{ty}` cannot be applied"),
            Behaviour::Arithmetic => format!("`{ty}` is not arithmetic"),
            Behaviour::Ordered => format!("`{ty}` is not ordered"),
            Behaviour::Equality => format!("`{ty}` has no equality"),
            Behaviour::Printable => format!("`{ty}` is not printable"),
            Behaviour::CompactLinear => format!("`{ty}` is not compact linear"),
        }
    }

    /// What a generic function asks of a type parameter: "to have equality", "to be ordered".
    pub fn requirement(self) -> String {
        match self {
            Behaviour::Equality => "to have equality".into(),
            b => format!("to be {}", b.name()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Invocable => "invocable",
            Behaviour::Arithmetic => "arithmetic",
            Behaviour::Ordered => "ordered",
            Behaviour::Equality => "equality",
            Behaviour::Printable => "printable",
            Behaviour::CompactLinear => "compact linear",
        }
    }
}

/// One step from a type to a component of it: the path of a [`Lacking`] answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Field `f` of a struct or a record.
    Field(std::sync::Arc<str>),
    /// Component `i` of a tuple or of a compact product.
    Component(usize),
    /// The element type of an array (plain or compact).
    Element,
    /// The index type of a compact array.
    Index,
    /// Summand `i` of a sum (plain or compact).
    Summand(usize),
    /// The argument of constructor `C` of a variant.
    Constructor(std::sync::Arc<str>),
}

impl Step {
    /// The step as a noun phrase, owned by `owner` ("its" for the type asked about).
    /// `owner` is "its " for the first step of a path, "" for a step inside another.
    fn phrase(&self, owner: &str) -> String {
        let the = if owner.is_empty() { "the " } else { owner };
        match self {
            Step::Field(f) => format!("{owner}field `{f}`"),
            Step::Component(i) => format!("{owner}component {i}"),
            Step::Element => format!("{the}element type"),
            Step::Index => format!("{the}index type"),
            Step::Summand(i) => format!("{owner}summand {i}"),
            Step::Constructor(c) => format!("the argument of {owner}constructor `{c}`"),
        }
    }
}

/// Why a component lacks a behaviour: what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A function: no equality, no order.
    Function,
    /// A pointer: no equality, no order, does not print.
    Pointer,
    /// A record: no equality, no order.
    Record,
    /// Not a number (`+ - * / %` need `int`s, `float`, `double` or `natural`).
    NotNumber,
    /// Not a function, a compact value or a string.
    NotApplicable,
    /// A plain product, sum or array (`*`, `+`, `^` are never compact linear).
    Plain,
    /// A type of kind TYPE that no rewriting makes compact (`int`, `string`, a function, …).
    NotCompact,
    /// An opaque type: equality only when its declaration grants it, no
    /// other behaviour outside its representation's scope.
    Opaque,
    /// A secret: no printing, no use as an index or a function without `reveal`.
    Secret,
    /// A distributed array: printing needs the whole array (`collect a`).
    Distributed,
}

/// The answer "no, and why": the behaviour, the type asked about, the path to the first
/// component (in declaration order) that lacks it, that component's type and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lacking {
    pub behaviour: Behaviour,
    pub ty: Type,
    pub path: Vec<Step>,
    pub component: Type,
    pub reason: Reason,
}

impl Lacking {
    /// The component as a noun phrase: "its field `f`", "component 1 of its element type".
    pub fn where_(&self) -> Option<String> {
        let (first, rest) = self.path.split_first()?;
        let mut phrase = first.phrase("its ");
        for step in rest {
            phrase = format!("{} of {phrase}", step.phrase(""));
        }
        Some(phrase)
    }

    /// The error message: "`S` has no equality: its field `f` is a function (`int -> int`)".
    pub fn message(&self) -> String {
        let head = self.behaviour.lacking(&self.ty);
        let Some(place) = self.where_() else {
            return head;
        };
        let c = &self.component;
        let what = match self.reason {
            Reason::Function => format!("is a function (`{c}`)"),
            Reason::Pointer => format!("is a pointer (`{c}`)"),
            Reason::Record => format!("is a record (`{c}`)"),
            Reason::NotNumber => format!("is `{c}`, not a number"),
            Reason::NotApplicable => format!("is `{c}`"),
            Reason::Plain | Reason::NotCompact => format!("`{c}` is not compact linear"),
            Reason::Opaque => format!("is the opaque type `{c}`"),
            Reason::Secret | Reason::Distributed => format!("is `{c}`"),
        };
        match self.reason {
            Reason::Plain | Reason::NotCompact => format!("{head}: {place}, {what}"),
            _ => format!("{head}: {place} {what}"),
        }
    }

    /// What the user can do, or the rule that decides.
    pub fn help(&self) -> Option<String> {
        match (self.reason, self.behaviour) {
            (Reason::Pointer, Behaviour::Printable) => {
                Some("pointers do not print: print the value it points at, `*p`".into())
            }
            (Reason::Pointer, _) => Some("pointers have no `==` or `<`".into()),
            (Reason::Record, _) => {
                Some("records have no `==` or `<`: compare their fields".into())
            }
            (Reason::Function, _) => {
                Some("functions have no `==` or `<`: compare the values they compute".into())
            }
            (Reason::Plain, _) => compact_hint(&self.component).map(|h| format!("write `{h}`")),
            (Reason::Opaque, _) => Some(
                "an opaque type has equality only when its declaration grants it (`with Eq`), and no other behaviour".into(),
            ),
            _ => None,
        }
    }

    /// The E0301 error reporting this answer at `span` (E0801, E0803 for a secret).
    pub fn error(&self, span: Span) -> CheckError {
        if self.reason == Reason::Distributed {
            return CheckError::NeedsWhole {
                span,
                operation: "printing".into(),
                ty: self.component.to_string(),
            };
        }
        if self.reason == Reason::Secret {
            use crate::check::error::SecretUse;
            let (use_, detail) = match self.behaviour {
                Behaviour::Printable => (SecretUse::Print, "printed or turned into a string"),
                Behaviour::Invocable => (SecretUse::Shape, "an index (applied to an array)"),
                _ => (SecretUse::Shape, "a shape or an index (compact linear)"),
            };
            return CheckError::Secret {
                span,
                use_,
                what: String::new(),
                origin: None,
                detail: format!("{detail}: it is `{}`", self.ty),
                also: None,
            };
        }
        CheckError::NoOverload {
            span,
            message: self.message(),
            behaviour: self.behaviour.name(),
            help: self.help(),
        }
    }
}

/// Does `ty` have behaviour `b`?
pub fn has(ty: &Type, b: Behaviour) -> bool {
    check(ty, b).is_ok()
}

/// Does `ty` have behaviour `b`, and if not, which component lacks it and why? The one
/// decision of every behaviour; derived structurally where the behaviour is structural.
pub fn check(ty: &Type, b: Behaviour) -> Result<(), Lacking> {
    // A secret computes like its data type, but does not print, index or apply.
    if ty.has_secret() {
        return match b {
            Behaviour::Printable | Behaviour::CompactLinear | Behaviour::Invocable => {
                let mut secret = None;
                ty.walk(&mut |t| {
                    if secret.is_none() && matches!(t, Type::Secret(_)) {
                        secret = Some(t.clone());
                    }
                });
                Err(Lacking {
                    behaviour: b,
                    ty: ty.clone(),
                    path: Vec::new(),
                    component: secret.unwrap_or_else(|| ty.clone()),
                    reason: Reason::Secret,
                })
            }
            _ => check(&ty.erase_secret(), b),
        };
    }
    // Fast paths: the common answers need no walk.
    match (b, ty) {
        (Behaviour::CompactLinear, _) if is_compact(ty) => return Ok(()),
        (Behaviour::Equality | Behaviour::Ordered | Behaviour::Printable, t)
            if is_scalar(t) || is_compact(t) =>
        {
            return Ok(())
        }
        _ => {}
    }
    let mut search = Search {
        behaviour: b,
        nodes: HashSet::new(),
        nominals: HashSet::new(),
        path: Vec::new(),
    };
    match search.find(ty) {
        None => Ok(()),
        Some((component, reason)) => Err(Lacking {
            behaviour: b,
            ty: ty.clone(),
            path: search.path,
            component,
            reason,
        }),
    }
}

fn is_scalar(t: &Type) -> bool {
    matches!(
        t,
        Type::Int(_) | Type::Float | Type::Double | Type::String | Type::Char | Type::Natural
    )
}

/// What a behaviour says of one node of a type.
enum Verdict {
    Has,
    Lacks(Reason),
    /// The node has the behaviour when each of its components has it.
    Components,
}

/// The node-level rule of each behaviour.
fn verdict(b: Behaviour, ty: &Type) -> Verdict {
    match b {
        Behaviour::Invocable => {
            if matches!(ty, Type::Fun(..) | Type::String) || is_compact(ty) {
                Verdict::Has
            } else {
                Verdict::Lacks(Reason::NotApplicable)
            }
        }
        Behaviour::Arithmetic => match ty {
            Type::Int(_) | Type::Float | Type::Double | Type::Natural => Verdict::Has,
            _ => Verdict::Lacks(Reason::NotNumber),
        },
        Behaviour::Equality | Behaviour::Ordered => match ty {
            Type::Fun(..) => Verdict::Lacks(Reason::Function),
            Type::Ptr(..) | Type::CPtr(..) => Verdict::Lacks(Reason::Pointer),
            Type::Record(..) => Verdict::Lacks(Reason::Record),
            Type::Tuple(_) | Type::Array(..) | Type::Sum(_) | Type::Nominal(_) => {
                Verdict::Components
            }
            // Scalars and compact values (compared by their codes); a type parameter is checked at
            // the types it is instantiated with.
            _ => Verdict::Has,
        },
        Behaviour::Printable => match ty {
            Type::Ptr(..) | Type::CPtr(..) => Verdict::Lacks(Reason::Pointer),
            Type::Secret(_) => Verdict::Lacks(Reason::Secret),
            Type::Distributed(_) => Verdict::Lacks(Reason::Distributed),
            Type::Tuple(_)
            | Type::Array(..)
            | Type::Sum(_)
            | Type::Record(..)
            | Type::Nominal(_) => Verdict::Components,
            // A function prints as `<fun>` whatever its parameter and result types.
            _ => Verdict::Has,
        },
        Behaviour::CompactLinear => match ty {
            Type::Unitsum(_) => Verdict::Has,
            Type::Var(v) if v.kind.satisfies(Kind::CompactLinear) => Verdict::Has,
            Type::CProduct(_) | Type::CSum(_) | Type::CArray(..) => Verdict::Components,
            Type::Tuple(_) | Type::Sum(_) | Type::Array(..) => Verdict::Lacks(Reason::Plain),
            _ => Verdict::Lacks(Reason::NotCompact),
        },
    }
}

/// A depth-first search for the first component lacking the behaviour; `path` holds the
/// steps to it when one is found.
struct Search {
    behaviour: Behaviour,
    /// Shared subtrees already found to have the behaviour (the walk is linear in the DAG).
    nodes: HashSet<(u8, usize, usize)>,
    /// Nominal types being examined or examined: assumed to have the behaviour when met again.
    nominals: HashSet<u32>,
    path: Vec<Step>,
}

impl Search {
    fn find(&mut self, ty: &Type) -> Option<(Type, Reason)> {
        match verdict(self.behaviour, ty) {
            Verdict::Has => None,
            Verdict::Lacks(reason) => Some((ty.clone(), reason)),
            Verdict::Components => {
                if let Some(key) = ty.node_key() {
                    if !self.nodes.insert(key) {
                        return None;
                    }
                }
                let steps: Vec<(Step, Type)> = match ty {
                    Type::Tuple(cs) | Type::CProduct(cs) => cs
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (Step::Component(i), c.clone()))
                        .collect(),
                    Type::Sum(ss) | Type::CSum(ss) => ss
                        .iter()
                        .enumerate()
                        .map(|(i, s)| (Step::Summand(i), s.clone()))
                        .collect(),
                    // The index of a plain array is compact linear: it has every
                    // structural behaviour; only the elements matter.
                    Type::Array(e, _) => vec![(Step::Element, (**e).clone())],
                    Type::CArray(e, i) => {
                        vec![(Step::Element, (**e).clone()), (Step::Index, (**i).clone())]
                    }
                    Type::Record(names, ts) => names
                        .iter()
                        .zip(ts.iter())
                        .map(|(n, t)| (Step::Field(n.clone()), t.clone()))
                        .collect(),
                    Type::Nominal(def) => {
                        if !self.nominals.insert(def.id) {
                            return None;
                        }
                        match nominal_components(def, self.behaviour) {
                            NominalAnswer::Granted => return None,
                            NominalAnswer::Lacks(reason) => return Some((ty.clone(), reason)),
                            NominalAnswer::Components(steps) => steps,
                        }
                    }
                    _ => Vec::new(),
                };
                for (step, component) in steps {
                    self.path.push(step);
                    if let Some(found) = self.find(&component) {
                        return Some(found);
                    }
                    self.path.pop();
                }
                None
            }
        }
    }
}

/// What a nominal type says about a structural behaviour.
enum NominalAnswer {
    /// The declaration decides (an opaque type whose declaration grants equality
    /// answers here without looking at its representation).
    Granted,
    /// The declaration refuses it (an opaque type without the grant).
    Lacks(Reason),
    /// Derived from the fields or the constructor arguments.
    Components(Vec<(Step, Type)>),
}

fn nominal_components(def: &NominalDef, b: Behaviour) -> NominalAnswer {
    // A varray or darray is a pointer to its elements, which Felix neither compares nor orders.
    if matches!(b, Behaviour::Equality | Behaviour::Ordered)
        && crate::check::darray::is_dynamic_declaration(def)
    {
        return NominalAnswer::Lacks(Reason::Pointer);
    }
    match def.body() {
        Some(NominalBody::Struct(fields)) => NominalAnswer::Components(
            fields
                .iter()
                .map(|(n, t)| (Step::Field(n.clone()), t.clone()))
                .collect(),
        ),
        Some(NominalBody::Variant(constructors)) => NominalAnswer::Components(
            constructors
                .iter()
                .filter_map(|(n, a)| {
                    a.as_ref()
                        .map(|t| (Step::Constructor(n.clone()), t.clone()))
                })
                .collect(),
        ),
        Some(NominalBody::Opaque { eq, .. }) => {
            if *eq && b == Behaviour::Equality {
                NominalAnswer::Granted
            } else {
                NominalAnswer::Lacks(Reason::Opaque)
            }
        }
        // A nominal type whose body is not set yet (being declared): nothing to derive.
        None => NominalAnswer::Granted,
    }
}

impl Checker {
    /// Ask behaviour `b` of `ty` on behalf of a check of the checker. Inside a generic body a
    /// type parameter `T` is assumed to have it; the requirement is recorded and checked
    /// against the type arguments of every instantiation ([`Checker::check_requirements`]), so
    /// `fun eq[T] (x:T, y:T) => x == y;` cannot compare two functions either.
    pub(crate) fn require(&mut self, ty: &Type, b: Behaviour) -> Result<(), Lacking> {
        check(ty, b)?;
        if ty.has_var() {
            let mut vars = Vec::new();
            ty.walk(&mut |t| {
                if let Type::Var(v) = t {
                    vars.push(v.id);
                }
            });
            for v in vars {
                let list = std::sync::Arc::make_mut(&mut self.requirements)
                    .entry(v)
                    .or_default();
                if !list.contains(&b) {
                    list.push(b);
                }
            }
        }
        Ok(())
    }

    /// The behaviours the body of `name` asked of its type parameters `params`, checked at the
    /// type arguments `args` of one instantiation; E0301 at `span` for the first one lacking.
    pub(crate) fn check_requirements(
        &mut self,
        name: &str,
        params: &[TyVar],
        args: &[Type],
        span: Span,
    ) -> bool {
        for (p, a) in params.iter().zip(args) {
            let Some(wanted) = self.requirements.get(&p.id).cloned() else {
                continue;
            };
            if contains_error(a) {
                continue;
            }
            for b in wanted {
                if let Err(lacking) = self.require(a, b) {
                    let mut error = lacking.error(span);
                    if let CheckError::NoOverload { message, .. } = &mut error {
                        message.push_str(&format!(
                            " (`{name}` needs its type parameter `{}` {})",
                            p.name,
                            b.requirement()
                        ));
                    }
                    self.error(error);
                    return false;
                }
            }
        }
        true
    }
}

/// The *pure* behaviour (what allows parallel evaluation) belongs to function values, not to types
/// (a type says nothing of effects). A function is pure when it is a `fun` (not a `proc` or a
/// `gen`) and its body, transitively, does no output, calls nothing impure and assigns no variable
/// outside its own locals. The checker records each such effect in the frame being checked
/// (`Checker::note_effect`); this turns the record into the answer, stored as
/// `ir::Function::pure_`, which is what parallel evaluation asks.
pub fn pure_function(kind: FunKind, effects: bool) -> bool {
    kind == FunKind::Fun && !effects
}

/// Is calling the function value `callee` pure? Only a function the checker has checked
/// (a named function or a lambda: `MakeFun`, or the inliner's `Closure` of one, which takes
/// its captures from another frame) can be; any other value (a parameter, a variable or a
/// component holding a function) may have effects. `pure_of` answers for a checked function
/// ([`pure_function`] of its body).
pub fn pure_callee(callee: &ir::Expr, pure_of: impl Fn(ir::FunId) -> bool) -> bool {
    match &callee.kind {
        ir::ExprKind::MakeFun { fun, .. } | ir::ExprKind::Closure { fun, .. } => pure_of(*fun),
        _ => false,
    }
}

/// The implicit integer widenings: `int8 → int16 → int32 → int64` and
/// `tiny → short → int → long → vlong` (transitively). Written once; both implicit
/// conversion and operator promotion use it.
pub fn widens_to(from: IntTy, to: IntTy) -> bool {
    const CHAINS: [&[IntTy]; 2] = [
        &[IntTy::I8, IntTy::I16, IntTy::I32, IntTy::I64],
        &[
            IntTy::Tiny,
            IntTy::Short,
            IntTy::Int,
            IntTy::Long,
            IntTy::VLong,
        ],
    ];
    if from == to {
        return true;
    }
    CHAINS.iter().any(|chain| {
        match (
            chain.iter().position(|t| *t == from),
            chain.iter().position(|t| *t == to),
        ) {
            (Some(a), Some(b)) => a < b,
            _ => false,
        }
    })
}

/// How a value of one type may become a value of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// The same type.
    Identity,
    /// Implicitly: exactly the implicit integer widenings.
    Implicit,
    /// Only explicitly, by applying the target type's name (`int 3.7`, `"42".int`).
    Explicit,
    /// Not at all (`:>>` has its own rules: encodings, decodings, reshapes).
    None,
}

/// The *convertible* behaviour.
pub fn convertible(from: &Type, to: &Type) -> Conversion {
    if from == to {
        return Conversion::Identity;
    }
    let numeric = |t: &Type| matches!(t, Type::Int(_) | Type::Double | Type::Float);
    match (from, to) {
        (Type::Int(a), Type::Int(b)) if widens_to(*a, *b) => Conversion::Implicit,
        (a, b) if numeric(a) && numeric(b) => Conversion::Explicit,
        (Type::String, b) if numeric(b) => Conversion::Explicit,
        (Type::Char, Type::Int(_)) | (Type::Int(_), Type::Char) => Conversion::Explicit,
        // `char s` (the first byte) and `string c` (the one-byte string).
        (Type::String, Type::Char) | (Type::Char, Type::String) => Conversion::Explicit,
        (Type::Int(_), Type::Natural) => Conversion::Explicit,
        _ => Conversion::None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::syntax::ast::PtrMode;
    use crate::types::ty::IntTy;

    #[test]
    fn implicit_conversions_are_exactly_the_widenings() {
        for a in IntTy::ALL {
            for b in IntTy::ALL {
                let c = convertible(&Type::Int(a), &Type::Int(b));
                let expected = if a == b {
                    Conversion::Identity
                } else if widens_to(a, b) {
                    Conversion::Implicit
                } else {
                    Conversion::Explicit
                };
                assert_eq!(c, expected, "{} -> {}", a.name(), b.name());
            }
        }
        assert_eq!(convertible(&Type::INT, &Type::Double), Conversion::Explicit);
        assert_eq!(convertible(&Type::Double, &Type::INT), Conversion::Explicit);
        assert_eq!(convertible(&Type::BOOL, &Type::INT), Conversion::None);
        assert_eq!(
            convertible(&Type::Int(IntTy::I8), &Type::Int(IntTy::I64)),
            Conversion::Implicit
        );
        assert_eq!(
            convertible(&Type::Int(IntTy::Int), &Type::Int(IntTy::VLong)),
            Conversion::Implicit
        );
        assert_eq!(
            convertible(&Type::Int(IntTy::Int), &Type::Int(IntTy::I32)),
            Conversion::Explicit
        );
        assert_eq!(
            convertible(&Type::Int(IntTy::UInt), &Type::Int(IntTy::ULong)),
            Conversion::Explicit
        );
    }

    #[test]
    fn behaviour_table() {
        assert!(has(&Type::INT, Behaviour::Arithmetic));
        assert!(!has(&Type::BOOL, Behaviour::Arithmetic));
        assert!(!has(&Type::String, Behaviour::Arithmetic));
        assert!(has(&Type::String, Behaviour::Ordered));
        assert!(!has(&Type::fun(Type::INT, Type::INT), Behaviour::Equality));
        assert!(has(&Type::fun(Type::INT, Type::INT), Behaviour::Invocable));
        assert!(has(&Type::Unitsum(3), Behaviour::Invocable));
        assert!(!has(&Type::INT, Behaviour::Invocable));
        assert!(has(&Type::Natural, Behaviour::Arithmetic));
        assert!(!has(
            &Type::tuple(vec![Type::INT, Type::Double]),
            Behaviour::Arithmetic
        ));
        // A function prints (`<fun>`) whatever its parameter type.
        let takes_pointer = Type::fun(Type::ptr(PtrMode::ReadWrite, Type::INT), Type::INT);
        assert!(has(&takes_pointer, Behaviour::Printable));
        assert!(!has(&takes_pointer, Behaviour::Equality));
    }

    fn int_fun() -> Type {
        Type::fun(Type::INT, Type::INT)
    }

    /// A nominal type whose body is set by `body`, given the type itself (for recursion).
    fn nominal(id: u32, name: &str, body: impl FnOnce(&Type) -> NominalBody) -> Type {
        let def = Arc::new(NominalDef::new(id, Arc::from(name), Vec::new()));
        let ty = Type::Nominal(def.clone());
        assert!(def.set_body(body(&ty)), "set once");
        ty
    }

    fn structure(id: u32, name: &str, fields: Vec<(&str, Type)>) -> Type {
        nominal(id, name, |_| {
            NominalBody::Struct(fields.into_iter().map(|(n, t)| (Arc::from(n), t)).collect())
        })
    }

    fn lacking(ty: &Type, b: Behaviour) -> Lacking {
        check(ty, b).expect_err("the behaviour is lacking")
    }

    #[test]
    fn tuples_name_the_component() {
        let t = Type::tuple(vec![Type::INT, Type::String, int_fun()]);
        let l = lacking(&t, Behaviour::Equality);
        assert_eq!(l.path, vec![Step::Component(2)]);
        assert_eq!(l.component, int_fun());
        assert_eq!(l.reason, Reason::Function);
        assert_eq!(
            l.message(),
            "`int * string * (int -> int)` has no equality: its component 2 is a function (`int -> int`)"
        );
        assert!(has(
            &Type::tuple(vec![Type::INT, Type::String]),
            Behaviour::Ordered
        ));
    }

    #[test]
    fn arrays_name_the_element_type() {
        let t = Type::array(Type::tuple(vec![Type::INT, int_fun()]), Type::Unitsum(3));
        let l = lacking(&t, Behaviour::Ordered);
        assert_eq!(l.path, vec![Step::Element, Step::Component(1)]);
        assert_eq!(
            l.message(),
            "`(int * (int -> int)) ^ 3` is not ordered: component 1 of its element type is a function (`int -> int`)"
        );
        // Arrays of arrays of scalars compare (lexicographically).
        let m = Type::array(
            Type::array(Type::Double, Type::Unitsum(2)),
            Type::Unitsum(4),
        );
        assert!(has(&m, Behaviour::Equality) && has(&m, Behaviour::Ordered));
    }

    #[test]
    fn nested_structs_give_the_whole_path() {
        let inner = structure(1, "S", vec![("n", Type::INT), ("f", int_fun())]);
        let outer = structure(
            2,
            "W",
            vec![
                ("k", Type::String),
                ("s", Type::tuple(vec![Type::INT, inner.clone()])),
            ],
        );
        let l = lacking(&inner, Behaviour::Equality);
        assert_eq!(
            l.message(),
            "`S` has no equality: its field `f` is a function (`int -> int`)"
        );
        let l = lacking(&outer, Behaviour::Equality);
        assert_eq!(
            l.path,
            vec![
                Step::Field(Arc::from("s")),
                Step::Component(1),
                Step::Field(Arc::from("f"))
            ]
        );
        assert_eq!(
            l.message(),
            "`W` has no equality: field `f` of component 1 of its field `s` is a function (`int -> int`)"
        );
        // Functions print; a struct of them too.
        assert!(has(&outer, Behaviour::Printable));
        let plain = structure(3, "P", vec![("x", Type::INT), ("y", Type::String)]);
        assert!(has(&plain, Behaviour::Equality) && has(&plain, Behaviour::Ordered));
        assert!(!has(&plain, Behaviour::Arithmetic));
    }

    #[test]
    fn recursive_variants_terminate() {
        // variant tree = | Leaf of int | Node of tree * tree;
        let tree = nominal(10, "tree", |me| {
            NominalBody::Variant(vec![
                (Arc::from("Leaf"), Some(Type::INT)),
                (
                    Arc::from("Node"),
                    Some(Type::array(me.clone(), Type::Unitsum(2))),
                ),
                (Arc::from("Empty"), None),
            ])
        });
        for b in [
            Behaviour::Equality,
            Behaviour::Ordered,
            Behaviour::Printable,
        ] {
            assert!(has(&tree, b), "{b:?}");
        }
        // variant ftree = | Node of ftree * ftree | Fn of int -> int;  (the function is
        // found behind the recursive constructor)
        let ftree = nominal(11, "ftree", |me| {
            NominalBody::Variant(vec![
                (
                    Arc::from("Node"),
                    Some(Type::array(me.clone(), Type::Unitsum(2))),
                ),
                (Arc::from("Fn"), Some(int_fun())),
            ])
        });
        let l = lacking(&ftree, Behaviour::Equality);
        assert_eq!(l.path, vec![Step::Constructor(Arc::from("Fn"))]);
        assert_eq!(
            l.message(),
            "`ftree` has no equality: the argument of its constructor `Fn` is a function (`int -> int`)"
        );
        // Mutual recursion through a struct: struct A { b: B; }, variant B = | Stop | More of A * (int -> int)
        let b_def = Arc::new(NominalDef::new(12, Arc::from("B"), Vec::new()));
        let b_ty = Type::Nominal(b_def.clone());
        let a_ty = structure(13, "A", vec![("b", b_ty.clone())]);
        assert!(b_def.set_body(NominalBody::Variant(vec![
            (Arc::from("Stop"), None),
            (
                Arc::from("More"),
                Some(Type::tuple(vec![a_ty.clone(), int_fun()])),
            ),
        ])));
        let l = lacking(&a_ty, Behaviour::Ordered);
        assert_eq!(
            l.message(),
            "`A` is not ordered: component 1 of the argument of constructor `More` of its field `b` is a function (`int -> int`)"
        );
    }

    #[test]
    fn pointers_and_records() {
        let p = Type::ptr(PtrMode::Read, Type::INT);
        let l = lacking(
            &Type::tuple(vec![Type::INT, p.clone()]),
            Behaviour::Printable,
        );
        assert_eq!(l.reason, Reason::Pointer);
        assert_eq!(l.path, vec![Step::Component(1)]);
        let r = Type::record(vec![(Arc::from("a"), Type::INT)]);
        let l = lacking(&r, Behaviour::Equality);
        assert_eq!((l.reason, l.path.len()), (Reason::Record, 0));
        assert!(has(&r, Behaviour::Printable));
        let l = lacking(
            &Type::record(vec![(Arc::from("a"), Type::INT), (Arc::from("p"), p)]),
            Behaviour::Printable,
        );
        assert_eq!(l.path, vec![Step::Field(Arc::from("p"))]);
    }

    #[test]
    fn compact_linear_names_the_plain_part() {
        let good = Type::cproduct(vec![
            Type::Unitsum(3),
            Type::carray(Type::BOOL, Type::Unitsum(4)),
        ]);
        assert!(has(&good, Behaviour::CompactLinear));
        let l = lacking(
            &Type::tuple(vec![Type::Unitsum(3), Type::Unitsum(2)]),
            Behaviour::CompactLinear,
        );
        assert_eq!((l.reason, l.path.len()), (Reason::Plain, 0));
        assert_eq!(l.help().as_deref(), Some("write `3 \\* 2`"));
        let l = lacking(&Type::INT, Behaviour::CompactLinear);
        assert_eq!(l.reason, Reason::NotCompact);
    }

    #[test]
    fn shared_subtrees_are_examined_once() {
        // t(k+1) = t(k) * (t(k) + int): 2^60 leaves as a tree, 60 nodes as a DAG.
        let mut t = Type::Double;
        for _ in 0..60 {
            t = Type::tuple(vec![t.clone(), Type::sum(vec![t, Type::INT])]);
        }
        for b in [
            Behaviour::Equality,
            Behaviour::Ordered,
            Behaviour::Printable,
        ] {
            assert!(has(&t, b));
        }
        let with_fun = Type::tuple(vec![t, int_fun()]);
        assert_eq!(
            lacking(&with_fun, Behaviour::Equality).path,
            vec![Step::Component(1)]
        );
    }

    #[test]
    fn purity_of_functions_and_callees() {
        assert!(pure_function(FunKind::Fun, false));
        assert!(!pure_function(FunKind::Fun, true));
        assert!(!pure_function(FunKind::Gen, false));
        assert!(!pure_function(FunKind::Proc, false));
        let make = |fun| ir::Expr {
            kind: ir::ExprKind::MakeFun {
                fun,
                type_args: vec![],
            },
            ty: int_fun(),
            span: Span::default(),
        };
        assert!(pure_callee(&make(3), |f| f == 3));
        assert!(!pure_callee(&make(4), |f| f == 3));
        let closure = |fun| ir::Expr {
            kind: ir::ExprKind::Closure {
                fun,
                type_args: vec![],
                captures: std::sync::Arc::from(vec![ir::Capture::Slot(0)]),
            },
            ty: int_fun(),
            span: Span::default(),
        };
        assert!(pure_callee(&closure(3), |f| f == 3));
        assert!(!pure_callee(&closure(4), |f| f == 3));
        let local = ir::Expr {
            kind: ir::ExprKind::Local(0),
            ty: int_fun(),
            span: Span::default(),
        };
        assert!(!pure_callee(&local, |_| true));
    }
}
