//! Inference variables, unification, instantiation, and assignability (a type where another
//! is expected: the same, or widened implicitly).

use std::sync::Arc;

use crate::check::traits::widens_to;
use crate::check::{Checker, ERROR_META};
use crate::types::kind::kind_of;
use crate::types::ty::{IntTy, Kind, TyVar, Type};

/// `promote` over the widening lattice: the common integer type of two operands, if one
/// widens to the other.
pub fn promote(a: IntTy, b: IntTy) -> Option<IntTy> {
    if widens_to(a, b) {
        Some(b)
    } else if widens_to(b, a) {
        Some(a)
    } else {
        None
    }
}

impl Checker {
    pub(crate) fn fresh_meta(&mut self, kind: Kind) -> Type {
        self.metas.push((None, kind));
        Type::Meta((self.metas.len() - 1) as u32)
    }

    /// Replace solved inference variables by their solutions.
    pub(crate) fn zonk(&self, t: &Type) -> Type {
        if !t.has_meta() {
            return t.clone();
        }
        t.map(&mut |t| match t {
            Type::Meta(m) if *m != ERROR_META => {
                self.metas[*m as usize].0.as_ref().map(|s| self.zonk(s))
            }
            _ => None,
        })
    }

    /// Instantiate type parameters with fresh inference variables of the same kinds.
    pub(crate) fn instantiate_params(&mut self, params: &[TyVar]) -> Vec<Type> {
        params.iter().map(|p| self.fresh_meta(p.kind)).collect()
    }

    /// Unify two types, solving inference variables. Arrays over a unitsum unify with tuples
    /// of that many components.
    pub(crate) fn unify(&mut self, a: &Type, b: &Type) -> bool {
        let a = self.zonk(a);
        let b = self.zonk(b);
        if a == b {
            return true;
        }
        match (&a, &b) {
            (Type::Meta(ERROR_META), _) | (_, Type::Meta(ERROR_META)) => true,
            (Type::Meta(m), t) | (t, Type::Meta(m)) => self.bind_meta(*m, t),
            (Type::Tuple(x), Type::Tuple(y))
            | (Type::Sum(x), Type::Sum(y))
            | (Type::CProduct(x), Type::CProduct(y))
            | (Type::CSum(x), Type::CSum(y)) => {
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| self.unify(p, q))
            }
            (Type::Array(e1, i1), Type::Array(e2, i2))
            | (Type::CArray(e1, i1), Type::CArray(e2, i2)) => {
                self.unify(i1, i2) && self.unify(e1, e2)
            }
            (Type::Fun(a1, r1), Type::Fun(a2, r2)) => self.unify(a1, a2) && self.unify(r1, r2),
            (Type::Ptr(m1, t1), Type::Ptr(m2, t2)) => m1 == m2 && self.unify(t1, t2),
            (Type::Secret(t1), Type::Secret(t2)) => self.unify(t1, t2),
            (Type::Distributed(t1), Type::Distributed(t2)) => self.unify(t1, t2),
            (Type::CPtr(m1, d1, c1), Type::CPtr(m2, d2, c2)) => {
                m1 == m2 && self.unify(d1, d2) && self.unify(c1, c2)
            }
            // Two instances of one parametric struct or variant: their arguments unify.
            (Type::Nominal(x), Type::Nominal(y)) => match (&x.instance, &y.instance) {
                (Some((d1, a1)), Some((d2, a2))) if Arc::ptr_eq(d1, d2) => {
                    a1.len() == a2.len() && a1.iter().zip(a2.iter()).all(|(p, q)| self.unify(p, q))
                }
                _ => false,
            },
            (Type::Record(n1, x), Type::Record(n2, y)) => {
                n1 == n2 && x.iter().zip(y.iter()).all(|(p, q)| self.unify(p, q))
            }
            (Type::Tuple(cs), arr @ Type::Array(..)) | (arr @ Type::Array(..), Type::Tuple(cs)) => {
                match arr.tuple_components() {
                    Some(xs) if xs.len() == cs.len() => {
                        xs.iter().zip(cs.iter()).all(|(p, q)| self.unify(p, q))
                    }
                    _ => false,
                }
            }
            (Type::CProduct(cs), arr @ Type::CArray(..))
            | (arr @ Type::CArray(..), Type::CProduct(cs)) => match arr.cproduct_components() {
                Some(xs) if xs.len() == cs.len() => {
                    xs.iter().zip(cs.iter()).all(|(p, q)| self.unify(p, q))
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn bind_meta(&mut self, m: u32, t: &Type) -> bool {
        let mut occurs = false;
        t.walk(&mut |x| occurs |= *x == Type::Meta(m));
        if occurs {
            return false;
        }
        let bound = self.metas[m as usize].1;
        if bound != Kind::Type {
            // A meta of kind COMPACTLINEAR/UNITSUM only takes types of that kind (or metas,
            // which inherit the tighter bound).
            if let Type::Meta(n) = t {
                let nk = self.metas[*n as usize].1;
                self.metas[*n as usize].1 = nk.min(bound);
            } else if !kind_of(t).satisfies(bound) {
                return false;
            }
        }
        self.metas[m as usize].0 = Some(t.clone());
        true
    }

    /// Can a value of type `from` be used where `to` is expected, with at most an implicit
    /// widening? Unifies when no widening applies. Returns `Some(true)` when a widening is
    /// needed, `Some(false)` when the types unify, `None` when neither.
    pub(crate) fn assignable(&mut self, from: &Type, to: &Type) -> Option<bool> {
        let f = self.zonk(from);
        let t = self.zonk(to);
        if let (Type::Int(_), Type::Int(_)) = (&f, &t) {
            return match crate::check::traits::convertible(&f, &t) {
                crate::check::traits::Conversion::Identity => Some(false),
                crate::check::traits::Conversion::Implicit => Some(true),
                _ => None,
            };
        }
        if self.unify(&f, &t) {
            Some(false)
        } else if (f.has_secret() || t.has_secret())
            && crate::check::secret::visibility_fits(&f, &t)
        {
            // A public value where a secret is wanted: the same data, narrowed.
            self.assignable(&f.erase_secret(), &t.erase_secret())
        } else {
            None
        }
    }

    /// Is the type (after zonking) free of unsolved inference variables? Reports E0302 if not.
    pub(crate) fn no_meta_left(&mut self, t: &Type, span: crate::syntax::span::Span) -> bool {
        let z = self.zonk(t);
        let mut unsolved = false;
        z.walk(&mut |x| unsolved |= matches!(x, Type::Meta(m) if *m != ERROR_META));
        if unsolved {
            self.error(crate::check::error::CheckError::CannotInfer {
                span,
                message: format!(
                    "cannot infer a type parameter here (type `{}`); give it explicitly with `f[T]`",
                    z.with_unknowns_numbered()
                ),
            });
        }
        !unsolved
    }
}
