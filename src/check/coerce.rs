//! Coercions `e :>> T`, applied from the primitive table.
//!
//! Every classification of a coercion is an entry of `core::prims::PRIMS` in the section
//! `Coercion` (named `:>>`): its type schemes say which source and target types it takes
//! (`[I:integer, C:COMPACTLINEAR] I -> C` is a decode), and its selector says, for the
//! concrete types, which IR coercion it produces, or refuses them (a reinterpretation between
//! compact types of different sizes). The checker takes the first entry whose scheme admits
//! the two types; when that entry refuses, its refusal is the error. The IR validator checks
//! every `Coerce` in the IR against the same entries (`check_coercion`).

use crate::check::build::{error_expr, mk};
use crate::check::error::CheckError;
use crate::check::prims::{self, Coercion};
use crate::check::{contains_error, Checker};
use crate::core::ir::{self, CoerceKind, Prim};
use crate::core::prims::{Coercer, Section, Typing, PRIMS};
use crate::syntax::span::Span;
use crate::types::iso::{classify, Iso};
use crate::types::size::{size_of, symbolic_count};
use crate::types::ty::{NominalBody, Type};

impl Checker {
    pub(crate) fn coerce_expr(&mut self, v: ir::Expr, t: Type, span: Span) -> ir::Expr {
        let s = self.zonk(&v.ty);
        if contains_error(&s) || contains_error(&t) {
            return error_expr(span);
        }
        if s == t {
            return v;
        }
        // Distribution: a reshape keeps the linear index, so a distributed array stays
        // distributed and no data moves; a plain array may become distributed.
        if s.has_distributed() || t.has_distributed() {
            if let (Some(_), None) = (s.distributed_array(), t.distributed_array()) {
                self.needs_whole(v.span, "`:>>` to a plain array", &s);
                return error_expr(span);
            }
            let (ds, dt) = (s.erase_distributed(), t.erase_distributed());
            let mut v = v;
            v.ty = ds;
            let mut r = self.coerce_expr(v, dt, span);
            if r.ty != crate::check::error_type() {
                r.ty = t;
            }
            return r;
        }
        // Visibility: a coercion of a secret keeps it secret; decoding one to a
        // compact type would make a position of it. `:>> secret T` only narrows.
        if s.has_secret() || t.has_secret() {
            let (ds, dt) = (s.erase_secret(), t.erase_secret());
            if s.has_secret() && crate::types::kind::is_compact(&dt) && ds != dt {
                self.secret_error(
                    v.span,
                    crate::check::error::SecretUse::Shape,
                    format!("a value of the compact type `{dt}` (a decode with `:>>`)"),
                );
                return error_expr(span);
            }
            let secret = s.has_secret();
            let mut v = v;
            v.ty = ds;
            let mut r = self.coerce_expr(v, dt, span);
            if r.ty != crate::check::error_type() {
                r.ty = if secret { Type::secret(t) } else { t };
            }
            return r;
        }
        if self.opaque_coerce(&s, &t, span) {
            return error_expr(span);
        }
        if s.is_void() {
            self.type_error(
                v.span,
                "a procedure call has no value to coerce; `println$ x :>> T` is `(println$ x) :>> T`, write `println$ (x :>> T)`",
            );
            return error_expr(span);
        }
        if matches!(s, Type::Meta(_)) {
            self.error(CheckError::CannotInfer {
                span: v.span,
                message: format!("cannot infer the type of the value coerced to `{t}`; declare it"),
            });
            return error_expr(span);
        }
        match self.classify_coercion(Section::Coercion, &s, &t) {
            Ok(Coercion::Kind(CoerceKind::Reshape)) if !counts_agree(&s, &t) => {
                // Compared when the variables have values (`core::subst`).
                let types = std::sync::Arc::new((s, t.clone()));
                let reshape = mk(
                    ir::ExprKind::Coerce(CoerceKind::Reshape, Box::new(v)),
                    t.clone(),
                    span,
                );
                mk(
                    ir::ExprKind::Prim(Prim::CheckedReshape(types), vec![reshape]),
                    t,
                    span,
                )
            }
            Ok(Coercion::Kind(kind)) => mk(ir::ExprKind::Coerce(kind, Box::new(v)), t, span),
            Ok(Coercion::Convert) => mk(ir::ExprKind::Prim(Prim::Convert, vec![v]), t, span),
            Err(refusal) => {
                self.error(refusal.error(&s, &t, span));
                error_expr(span)
            }
        }
    }

    /// The coercion the entries of `section` give from `s` to `t`: the first entry whose
    /// scheme admits the types and whose selector accepts them; otherwise the refusal of the
    /// first that admits them.
    fn classify_coercion(
        &mut self,
        section: Section,
        s: &Type,
        t: &Type,
    ) -> Result<Coercion, Refusal> {
        let mut refusal = None;
        for index in coercion_entries(section) {
            let Typing::Coerce(coercer) = PRIMS[index].typing else {
                continue;
            };
            if !self.scheme_admits(index, s, t) {
                continue;
            }
            match select(coercer)(s, t) {
                Ok(coercion) => return Ok(coercion),
                Err(refuse) => {
                    refusal.get_or_insert(refuse);
                }
            }
        }
        Err(refusal.unwrap_or(Refusal::NotIsomorphic))
    }

    /// Does one of entry `index`'s schemes take `from` to `to`?
    fn scheme_admits(&mut self, index: usize, from: &Type, to: &Type) -> bool {
        match self.prim_schemes(index) {
            Ok(schemes) => schemes
                .iter()
                .any(|s| prims::scheme_fits(s, std::slice::from_ref(from), to)),
            Err(_) => false,
        }
    }

    /// The validator's check of `kind` from `from` to `to`: the table classifies the pair as
    /// exactly this coercion.
    pub(crate) fn check_coercion(
        &mut self,
        kind: CoerceKind,
        from: &Type,
        to: &Type,
    ) -> Result<(), String> {
        // What `:>>` gives for these types, or what the checker inserts itself (`_make_K`).
        let admitted = [Section::Coercion, Section::Internal]
            .into_iter()
            .any(|section| self.classify_coercion(section, from, to) == Ok(Coercion::Kind(kind)));
        if admitted {
            Ok(())
        } else {
            Err(format!(
                "coercion {kind:?} from `{from}` to `{to}`: no entry of the table selects it"
            ))
        }
    }
}

/// The entries of a section applied as coercions, in table order.
fn coercion_entries(section: Section) -> impl Iterator<Item = usize> {
    PRIMS
        .iter()
        .enumerate()
        .filter(move |(_, d)| d.section == section && matches!(d.typing, Typing::Coerce(_)))
        .map(|(i, _)| i)
}

/// Why an entry whose scheme admits two types refuses them: the error it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Compact types of different sizes (E0501).
    SizeMismatch,
    /// An integer or natural target from a value that is not compact.
    NotCompact,
    /// Not layout-identical (E0500).
    NotIsomorphic,
}

impl Refusal {
    fn error(self, s: &Type, t: &Type, span: Span) -> CheckError {
        match self {
            Refusal::SizeMismatch => {
                let (ss, ts) = (size_of(s), size_of(t));
                CheckError::CompactSizeMismatch {
                    span,
                    from: s.to_string(),
                    from_size: ss.map(|x| x.to_string()).unwrap_or_else(|| "?".into()),
                    to: t.to_string(),
                    to_size: ts.map(|x| x.to_string()).unwrap_or_else(|| "?".into()),
                }
            }
            Refusal::NotCompact => CheckError::EncodeNotCompact {
                span,
                ty: s.to_string(),
            },
            Refusal::NotIsomorphic => {
                let detail = match counts_never_equal(s, t) {
                    Some(detail) => detail,
                    None => match classify(s, t) {
                        Iso::NotIsomorphic { a, b, mismatch } => {
                            format!("normal forms: {a} vs {b}; {mismatch}")
                        }
                        Iso::LayoutIdentical(_) => "the element counts differ".to_string(),
                    },
                };
                CheckError::NotIsomorphic {
                    span,
                    from: s.to_string(),
                    to: t.to_string(),
                    detail,
                }
            }
        }
    }
}

/// The selector of an entry: the coercion for these concrete types, or its refusal.
type Select = fn(&Type, &Type) -> Result<Coercion, Refusal>;

/// The checker's selector of a classification.
fn select(coercer: Coercer) -> Select {
    match coercer {
        Coercer::Decode => select_decode,
        Coercer::Reinterpret => select_reinterpret,
        Coercer::Encode => select_encode,
        Coercer::Natural => select_natural,
        Coercer::Integer => select_int,
        Coercer::Reshape => select_reshape,
        Coercer::Opaque => select_opaque,
    }
}

/// `decode`: an integer, a natural or a decimal string to a compact type.
fn select_decode(s: &Type, _: &Type) -> Result<Coercion, Refusal> {
    Ok(Coercion::Kind(match s {
        Type::Natural => CoerceKind::DecodeNatural,
        Type::String => CoerceKind::DecodeString,
        _ => CoerceKind::DecodeInt,
    }))
}

/// `encode`: a compact value to its code as an integer, a natural or a decimal string.
fn select_encode(_: &Type, t: &Type) -> Result<Coercion, Refusal> {
    Ok(Coercion::Kind(match t {
        Type::Natural => CoerceKind::EncodeNatural,
        Type::String => CoerceKind::EncodeString,
        _ => CoerceKind::EncodeInt,
    }))
}

/// Compact to compact: the code is kept when the sizes are equal (or decided at the instance
/// of a generic body).
fn select_reinterpret(s: &Type, t: &Type) -> Result<Coercion, Refusal> {
    let (ss, ts) = (size_of(s), size_of(t));
    if ss.is_some() && ss == ts || s.has_var() || t.has_var() {
        Ok(Coercion::Kind(CoerceKind::Reinterpret))
    } else {
        Err(Refusal::SizeMismatch)
    }
}

/// Between integers and `natural`, and a natural to its decimal string.
fn select_natural(s: &Type, t: &Type) -> Result<Coercion, Refusal> {
    Ok(Coercion::Kind(match (s, t) {
        (Type::Natural, Type::String) => CoerceKind::NaturalToString,
        (Type::Natural, _) => CoerceKind::NaturalToInt,
        _ => CoerceKind::IntToNatural,
    }))
}

/// Between integer types: the checked conversion of `convert`.
fn select_int(_: &Type, _: &Type) -> Result<Coercion, Refusal> {
    Ok(Coercion::Convert)
}

/// A layout-identical reshape: the same scalar leaves in the same order. Between arrays over
/// type variables (type parameters, run-time sizes) it takes the same scalar leaves when
/// their element counts, products of constants and the variables, could be equal
/// (`int ^ (A \* B) :>> int ^ B ^ A`, `double ^ n :>> double ^ (m \* 3)`): the counts are
/// compared when the variables get their values (`core::subst`), a difference being R0016 at
/// the coercion. An integer or natural target takes only a compact value (an encode).
fn select_reshape(s: &Type, t: &Type) -> Result<Coercion, Refusal> {
    // An array over a size of 0 or 1 kept as an array for code compiled for its sizes
    // (`Type::subst_sizes`) and the element or unit its callers see: rebuilding a type with
    // the normalising constructors is its callers' form.
    let normal = |x: &Type| x.map(&mut |_| None);
    if s != t && (normal(s) == *t || normal(t) == *s) {
        return Ok(Coercion::Kind(CoerceKind::Reshape));
    }
    if matches!(t, Type::Int(_) | Type::Natural) {
        return Err(Refusal::NotCompact);
    }
    if s.has_var() || t.has_var() {
        if let (Some(a), Some(b)) = (symbolic_count(s), symbolic_count(t)) {
            if a.may_equal(&b) {
                return Ok(Coercion::Kind(CoerceKind::Reshape));
            }
        }
    }
    match classify(s, t) {
        Iso::LayoutIdentical(_) => Ok(Coercion::Kind(CoerceKind::Reshape)),
        Iso::NotIsomorphic { .. } => Err(Refusal::NotIsomorphic),
    }
}

/// Why arrays over run-time sizes can never be reshaped into one another: their element
/// counts differ whatever the sizes are (`int ^ (n \+ 1)` and `int ^ n`).
fn counts_never_equal(s: &Type, t: &Type) -> Option<String> {
    if !(s.has_var() || t.has_var()) {
        return None;
    }
    let (a, b) = (symbolic_count(s)?, symbolic_count(t)?);
    if a.leaf != b.leaf || a.may_equal(&b) {
        return None;
    }
    let mut names: Vec<(u32, String)> = Vec::new();
    for ty in [s, t] {
        ty.for_each_var(&mut |v| names.push((v.id, v.name.to_string())));
    }
    let name = |id: u32| {
        names
            .iter()
            .find(|(v, _)| *v == id)
            .map_or_else(|| "?".to_string(), |(_, n)| n.clone())
    };
    Some(format!(
        "`{s}` has {} elements and `{t}` has {}: the counts differ whatever the sizes are",
        a.render(&name),
        b.render(&name)
    ))
}

/// Are the element counts of `s` and `t` equal whatever their variables are (a reshape that
/// needs no comparison when they get values)?
fn counts_agree(s: &Type, t: &Type) -> bool {
    if !(s.has_var() || t.has_var()) {
        return true;
    }
    match (symbolic_count(s), symbolic_count(t)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// An opaque type's representation to the opaque type, or back (`_make_K`, `_repr_`).
fn select_opaque(s: &Type, t: &Type) -> Result<Coercion, Refusal> {
    let repr_of = |x: &Type| match x {
        Type::Nominal(def) => match def.body() {
            Some(NominalBody::Opaque { repr, .. }) => Some(repr.clone()),
            _ => None,
        },
        _ => None,
    };
    if repr_of(t).as_ref() == Some(s) || repr_of(s).as_ref() == Some(t) {
        Ok(Coercion::Kind(CoerceKind::Opaque))
    } else {
        Err(Refusal::NotIsomorphic)
    }
}
