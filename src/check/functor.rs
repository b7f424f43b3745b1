//! Type functors (seed: the SPU type system): named rules that compute a result type from
//! operand types. A scheme of the primitive table names them in a `where` clause
//! (`[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)`), the checker applies
//! them when it types an application, and `:type -v` shows the application that produced a
//! result type (`int32  = promote(int8, int32)`).
//!
//! - `promote` (dtype): the implicit integer widenings, the wider of two integer types when one
//!   widens to the other; any other type promotes only with itself.
//! - `shape` (index types of element-wise and structural results): `shape(N `+ M)` is the
//!   unitsum of the sum of two unitsums (concatenation).
//! - `kind` (the lattice of kinds) is `types::kind::kind_of`, the join of the kinds of the
//!   components; `:kind` shows it.
//!
//! - `narrow` (visibility) is the join of `public < secret` (`Type::narrow`): an
//!   operator's result is `type(narrow(V0, V1), promote(D0, D1))`, applied by the operator and
//!   primitive rules and explained by `check/secret.rs`.

use crate::check::unify;
use crate::types::ty::Type;

/// A functor applied to scheme variables, as written in a `where` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Functor {
    /// `promote(A, B)`
    Promote,
    /// `N `+ M`, the shape of a concatenation.
    UnitsumSum,
}

impl Functor {
    /// Apply the functor to concrete operand types.
    pub fn apply(self, args: &[Type]) -> Option<Type> {
        match (self, args) {
            (Functor::Promote, [a, b]) => promote(a, b),
            (Functor::UnitsumSum, [Type::Unitsum(n), Type::Unitsum(m)]) => {
                n.checked_add(*m).map(Type::Unitsum)
            }
            _ => None,
        }
    }

    /// The application as `:type -v` prints it.
    pub fn show(self, args: &[Type]) -> String {
        match (self, args) {
            (Functor::UnitsumSum, [a, b]) => {
                // A unitsum as its size (`2`, not `bool`).
                let size = |t: &Type| match t {
                    Type::Unitsum(n) => n.to_string(),
                    t => t.to_string(),
                };
                format!("shape({} `+ {})", size(a), size(b))
            }
            (_, args) => format!(
                "promote({})",
                args.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// `promote` over the dtype lattice (the implicit integer widenings).
pub fn promote(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Int(p), Type::Int(q)) => unify::promote(*p, *q).map(Type::Int),
        (a, b) if a == b => Some(a.clone()),
        _ => None,
    }
}

/// Parse the right-hand side of a `where` clause: `promote(A, B)` or `N `+ M`; the functor
/// and its argument names.
pub fn parse(text: &str) -> Option<(Functor, Vec<String>)> {
    let text = text.trim();
    if let Some(inner) = text
        .strip_prefix("promote(")
        .and_then(|t| t.strip_suffix(')'))
    {
        let args = inner.split(',').map(|a| a.trim().to_string()).collect();
        return Some((Functor::Promote, args));
    }
    let (a, b) = text.split_once("`+")?;
    Some((
        Functor::UnitsumSum,
        vec![a.trim().to_string(), b.trim().to_string()],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ty::IntTy;

    #[test]
    fn promote_is_the_widening_lattice() {
        let t = |i| Type::Int(i);
        assert_eq!(promote(&t(IntTy::I8), &t(IntTy::I32)), Some(t(IntTy::I32)));
        assert_eq!(promote(&t(IntTy::I32), &t(IntTy::I8)), Some(t(IntTy::I32)));
        assert_eq!(promote(&t(IntTy::Int), &t(IntTy::I8)), None);
        assert_eq!(promote(&Type::Double, &Type::Double), Some(Type::Double));
        assert_eq!(promote(&Type::Double, &Type::Float), None);
    }

    #[test]
    fn unitsum_sum_and_its_display() {
        let args = [Type::Unitsum(2), Type::Unitsum(3)];
        assert_eq!(Functor::UnitsumSum.apply(&args), Some(Type::Unitsum(5)));
        assert_eq!(Functor::UnitsumSum.show(&args), "shape(2 `+ 3)");
        assert_eq!(
            parse("promote(A, B)"),
            Some((Functor::Promote, vec!["A".into(), "B".into()]))
        );
        assert_eq!(
            parse("N `+ M"),
            Some((Functor::UnitsumSum, vec!["N".into(), "M".into()]))
        );
    }
}
