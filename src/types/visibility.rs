//! The visibility dimension of types: `secret T` (`Type::Secret`), a value a program may
//! compute with but never print, branch on or use as a shape without `reveal`.

use super::ty::{Type, TypeList, TypeRef, FACT_SECRET};

impl Type {
    /// Does this type mention `secret`?
    pub fn has_secret(&self) -> bool {
        self.facts().flags & FACT_SECRET != 0
    }

    /// `secret t`, normalised: the qualifier distributes over tuples, records and
    /// array elements (an array's index type is its shape, which is public), is idempotent,
    /// and leaves `unit`, `void`, functions and pointers as they are (they carry no secret
    /// data of their own; the checker refuses `secret` written on them).
    pub fn secret(t: Type) -> Type {
        match t {
            Type::Secret(_) | Type::Fun(..) | Type::Ptr(..) | Type::CPtr(..) => t,
            Type::Unitsum(0 | 1) => t,
            Type::Tuple(cs) => Type::tuple(cs.iter().cloned().map(Type::secret).collect()),
            Type::Array(e, i) => Type::array(Type::secret((*e).clone()), (*i).clone()),
            Type::Record(names, cs) => Type::Record(
                names,
                TypeList::new(cs.iter().cloned().map(Type::secret).collect()),
            ),
            t => Type::Secret(TypeRef::new(t)),
        }
    }

    /// The type with every `secret` removed: the public type of the same values, which is
    /// what the IR and the evaluator see.
    pub fn erase_secret(&self) -> Type {
        if !self.has_secret() {
            return self.clone();
        }
        self.map(&mut |t| match t {
            Type::Secret(a) => Some(a.erase_secret()),
            _ => None,
        })
    }

    /// `narrow(v, t)` for a visibility `v` given as "is secret": `secret t` or `t`.
    pub fn narrow(self, secret: bool) -> Type {
        if secret {
            Type::secret(self)
        } else {
            self
        }
    }
}
