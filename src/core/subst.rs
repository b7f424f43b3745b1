//! Instantiation of generic functions: substituting concrete types for a function's declared
//! type parameters in every type the function's IR mentions.
//!
//! Architecture invariant: this is a pure tree rewrite of the IR; it knows nothing about
//! evaluation and never fails (a missing type argument leaves the variable in place).

use crate::core::ir::{Function, Pattern, Stmt};
use crate::core::visit::{infallible, Fold};
use crate::types::ty::{TyVar, Type};

/// The function `f` with `args[i]` substituted for `f.type_params[i]` everywhere: in every
/// `Expr::ty`, `Pattern::ty`, `MakeFun::type_args`, `TypeSize`, `ForCodes::ty`,
/// `Store::root_ty`, the parameter patterns and the result type. The returned function has no
/// type parameters left.
pub fn instantiate(f: &Function, args: &[Type]) -> Function {
    let sizes_from = f.type_params.len().saturating_sub(f.size_params);
    let mut substitution = Substitution {
        params: &f.type_params,
        args,
        sizes_from,
    };
    let params: Vec<Pattern> = f
        .params
        .iter()
        .map(|p| infallible(substitution.fold_pattern(p)))
        .collect();
    let body: Vec<Stmt> = infallible(substitution.fold_stmts(&f.body));
    Function {
        name: f.name.clone(),
        kind: f.kind,
        span: f.span,
        type_params: Vec::new(),
        size_params: 0,
        params,
        ret: substitution.ty(&f.ret),
        n_slots: f.n_slots,
        cell_slots: f.cell_slots.clone(),
        captures: f.captures.clone(),
        body,
        pure_: f.pure_,
    }
}

/// `stmts` with the sizes `args[i]` substituted for the size variables `params[i]` in every
/// type they mention (`Type::subst_sizes`: arrays over 0 or 1 stay arrays).
pub fn substitute_sizes(stmts: &[Stmt], params: &[TyVar], args: &[Type]) -> Vec<Stmt> {
    struct Sizes<'a> {
        params: &'a [TyVar],
        args: &'a [Type],
    }
    impl Fold for Sizes<'_> {
        type Error = std::convert::Infallible;
        fn fold_type(&mut self, ty: &Type) -> Result<Type, Self::Error> {
            Ok(ty.subst_sizes(self.params, self.args))
        }
    }
    infallible(Sizes { params, args }.fold_stmts(stmts))
}

/// The pairing of type parameters with their arguments, applied to every type of a tree.
struct Substitution<'a> {
    params: &'a [TyVar],
    args: &'a [Type],
    /// The parameters from this one on are run-time sizes (`Type::subst_sizes`).
    sizes_from: usize,
}

impl Substitution<'_> {
    fn ty(&self, ty: &Type) -> Type {
        if self.params.is_empty() || !ty.has_var() {
            return ty.clone();
        }
        let usable = self.params.len().min(self.args.len());
        let split = self.sizes_from.min(usable);
        ty.subst_sizes(&self.params[split..usable], &self.args[split..usable])
            .subst_vars(&self.params[..split], &self.args[..split])
    }
}

impl Fold for Substitution<'_> {
    type Error = std::convert::Infallible;

    fn fold_type(&mut self, ty: &Type) -> Result<Type, Self::Error> {
        Ok(self.ty(ty))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ir::{Expr, ExprKind, PatternKind, Place};
    use crate::syntax::ast::FunKind;
    use crate::syntax::span::Span;
    use crate::types::ty::Kind;
    use std::sync::Arc;

    #[test]
    fn substitutes_every_type_position() {
        let t = TyVar {
            id: 7,
            name: Arc::from("T"),
            kind: Kind::CompactLinear,
        };
        let var = Type::Var(t.clone());
        let array_of_var = Type::array(Type::INT, var.clone());
        let f = Function {
            name: "f".into(),
            kind: FunKind::Fun,
            span: Span::default(),
            type_params: vec![t],
            size_params: 0,
            params: vec![Pattern {
                kind: PatternKind::Bind(Place::Local(0)),
                ty: array_of_var.clone(),
                span: Span::default(),
            }],
            ret: var.clone(),
            n_slots: 1,
            cell_slots: vec![],
            captures: vec![],
            body: vec![
                Stmt::ForCodes {
                    label: 0,
                    var: Place::Local(0),
                    ty: var.clone(),
                    body: vec![],
                },
                Stmt::Return(Some(Expr {
                    kind: ExprKind::TypeSize(var.clone()),
                    ty: Type::SIZE,
                    span: Span::default(),
                })),
            ],
            pure_: true,
        };
        let three = Type::Unitsum(3);
        let g = instantiate(&f, std::slice::from_ref(&three));
        assert!(g.type_params.is_empty());
        assert_eq!(g.ret, three);
        assert_eq!(g.params[0].ty, Type::array(Type::INT, three.clone()));
        match &g.body[0] {
            Stmt::ForCodes { ty, .. } => assert_eq!(*ty, three),
            other => panic!("unexpected statement {other:?}"),
        }
        match &g.body[1] {
            Stmt::Return(Some(Expr {
                kind: ExprKind::TypeSize(ty),
                ..
            })) => assert_eq!(*ty, three),
            other => panic!("unexpected statement {other:?}"),
        }
    }
}
