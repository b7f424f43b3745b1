//! The isomorphism engine behind `:>>` (L9.1): normal forms and classification.

use std::fmt;

use num_bigint::BigUint;

use crate::types::ty::Type;

/// The normal form of a type: its leaves in storage order, equal adjacent leaves grouped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalForm {
    pub groups: Vec<(Type, BigUint)>,
}

impl fmt::Display for NormalForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.groups)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    AtElement { index: BigUint, a: Type, b: Type },
    Count { a: BigUint, b: BigUint },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Iso {
    LayoutIdentical(NormalForm),
    NotIsomorphic { a: NormalForm, b: NormalForm, mismatch: Mismatch },
}

pub fn classify(a: &Type, b: &Type) -> Iso {
    let nf = NormalForm { groups: vec![] };
    if a == b {
        Iso::LayoutIdentical(nf)
    } else {
        Iso::NotIsomorphic { a: nf.clone(), b: nf, mismatch: Mismatch::Count { a: BigUint::from(0u8), b: BigUint::from(0u8) } }
    }
}
