//! What the checker knows of the prelude's dynamic arrays, `varray[T]` and `darray[T]`: their
//! functions are the prelude's `_varray_…` and `_darray_…` definitions, found by the fallback
//! of `apply_name`; only `set (&v, i, x);`, a statement form of arrays, needs telling apart.

use crate::check::env::Binding;
use crate::check::Checker;
use crate::syntax::ast::{self, ExprKind};
use crate::types::ty::{NominalDef, Type};

/// Whether `t` is the prelude's `varray[T]` or `darray[T]`.
pub(crate) fn is_dynamic_array(t: &Type) -> bool {
    match t {
        Type::Nominal(n) => library_name(n).is_some_and(|n| n == "varray" || n == "darray"),
        _ => false,
    }
}

/// The name of the declaration of a prelude nominal type's instance.
fn library_name(n: &NominalDef) -> Option<&str> {
    let (declaration, _) = n.instance.as_ref()?;
    declaration
        .library
        .load(std::sync::atomic::Ordering::Relaxed)
        .then_some(&*declaration.name)
}

impl Checker {
    /// Whether the arguments of `set (&v, i, x)` point at a variable holding a dynamic array.
    pub(crate) fn sets_dynamic_array(&mut self, arg: &ast::Expr) -> bool {
        let ExprKind::Tuple(items) = &arg.node else {
            return false;
        };
        let Some(ExprKind::Addr(_, target)) = items.first().map(|e| &e.node) else {
            return false;
        };
        let ExprKind::Name(name) = &target.node else {
            return false;
        };
        let Some(Binding::Var(vb)) = self.lookup_value(name) else {
            return false;
        };
        let t = self.var_type(name, &vb, target.span);
        is_dynamic_array(&self.zonk(&t))
    }
}
