//! The distribution dimension of types: `distributed T ^ I` (`Type::Distributed`), an array
//! stored as equal chunks of its linear index, one per process.

use super::ty::{Type, TypeRef, FACT_DISTRIBUTED};

impl Type {
    /// Does this type mention `distributed`?
    pub fn has_distributed(&self) -> bool {
        self.facts().flags & FACT_DISTRIBUTED != 0
    }

    /// `distributed t`, normalised: idempotent, and only around an array (a scalar, a unit or
    /// a one-element array is itself: there is nothing to split).
    pub fn distributed(t: Type) -> Type {
        match t {
            Type::Array(..) => Type::Distributed(TypeRef::new(t)),
            t => t,
        }
    }

    /// The type with every `distributed` removed: what the IR and the evaluator see.
    pub fn erase_distributed(&self) -> Type {
        if !self.has_distributed() {
            return self.clone();
        }
        self.map(&mut |t| match t {
            Type::Distributed(a) => Some(a.erase_distributed()),
            _ => None,
        })
    }

    /// The array type inside `distributed`, when this is a distributed array.
    pub fn distributed_array(&self) -> Option<&Type> {
        match self {
            Type::Distributed(a) => Some(a),
            _ => None,
        }
    }
}
