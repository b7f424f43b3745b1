//! Behaviours as traits (seed 002): what a type can do, held as data the checker consults.
//! Every operator and conversion rule asks these questions, and an error names the behaviour
//! that failed ("`bool` is not arithmetic", "no `+` for `int` and `string`").

use crate::check::unify::widens_to;
use crate::types::kind::is_compact;
use crate::types::ty::{NominalBody, Type};

/// The behaviours of L2/L4 (issue "one type system"): each is a predicate on types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Behaviour {
    /// Can be applied to an argument (functions; also compact values applied to arrays and
    /// strings applied to strings, L4.4–L4.6).
    Invocable,
    /// `+ - * / %` within the type.
    Arithmetic,
    /// `< <= > >=`.
    Ordered,
    /// `== !=`.
    Equality,
    /// `str`, `repr`, `_strr`, `print`.
    Printable,
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
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Invocable => "invocable",
            Behaviour::Arithmetic => "arithmetic",
            Behaviour::Ordered => "ordered",
            Behaviour::Equality => "equality",
            Behaviour::Printable => "printable",
        }
    }
}

/// The table: does `ty` have behaviour `b`?
pub fn has(ty: &Type, b: Behaviour) -> bool {
    match b {
        Behaviour::Invocable => {
            matches!(ty, Type::Fun(..)) || is_compact(ty) || *ty == Type::String
        }
        Behaviour::Arithmetic => matches!(
            ty,
            Type::Int(_) | Type::Float | Type::Double | Type::Natural
        ),
        Behaviour::Ordered | Behaviour::Equality => {
            no_function_inside(ty) && !has_pointer(ty) && opaque_has(ty, b)
        }
        // Pointers do not print (L11.6).
        Behaviour::Printable => !has_pointer(ty) && opaque_has(ty, b),
    }
}

/// An opaque type has equality only if its declaration grants it, and no other behaviour
/// (issue 10 item 5, `check/opaque.rs`).
fn opaque_has(ty: &Type, b: Behaviour) -> bool {
    crate::check::opaque::lacking(ty, b).is_none()
}

/// Does a value of `ty` contain a pointer (through tuples, arrays, records, structs and
/// variants)?
pub fn has_pointer(ty: &Type) -> bool {
    let mut found = false;
    let mut seen = std::collections::HashSet::new();
    let mut pending = vec![ty.clone()];
    while let Some(t) = pending.pop() {
        t.walk(&mut |x| match x {
            Type::Ptr(..) | Type::CPtr(..) => found = true,
            Type::Nominal(n) if seen.insert(n.id) => match n.body.get() {
                Some(NominalBody::Struct(fs)) => pending.extend(fs.iter().map(|(_, f)| f.clone())),
                Some(NominalBody::Variant(cs)) => {
                    pending.extend(cs.iter().filter_map(|(_, a)| a.clone()))
                }
                Some(NominalBody::Opaque { repr, .. }) => pending.push(repr.clone()),
                None => {}
            },
            _ => {}
        });
        if found {
            return true;
        }
    }
    false
}

fn no_function_inside(ty: &Type) -> bool {
    let mut ok = true;
    ty.walk(&mut |t| {
        if matches!(t, Type::Fun(..)) {
            ok = false;
        }
        if let Type::Nominal(n) = t {
            match n.body.get() {
                Some(NominalBody::Struct(fs)) => {
                    ok &= fs.iter().all(|(_, f)| !matches!(f, Type::Fun(..)))
                }
                Some(NominalBody::Variant(cs)) => {
                    ok &= cs.iter().all(|(_, a)| !matches!(a, Some(Type::Fun(..))))
                }
                Some(NominalBody::Opaque { .. }) | None => {}
            }
        }
    });
    ok
}

/// How a value of one type may become a value of another (L2.16, L4.14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// The same type.
    Identity,
    /// Implicitly: exactly the integer widenings of L2.16.
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
        // L11.26: `char s` (the first byte) and `string c` (the one-byte string).
        (Type::String, Type::Char) | (Type::Char, Type::String) => Conversion::Explicit,
        (Type::Int(_), Type::Natural) => Conversion::Explicit,
        _ => Conversion::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    }
}
