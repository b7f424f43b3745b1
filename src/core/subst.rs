//! Instantiation of generic functions: substituting concrete types for a function's declared
//! type parameters in every type the function's IR mentions.
//!
//! Architecture invariant: this is a pure tree rewrite of the IR; it knows nothing about
//! evaluation and never fails (a missing type argument leaves the variable in place).

use std::sync::Arc;

use crate::core::ir::{CoerceKind, Expr, ExprKind, FunId, Function, PathStep, Pattern, Prim, Stmt};
use crate::core::visit::{infallible, walk_expr_fold, walk_stmt_fold, Fold};
use crate::types::size::symbolic_count;
use crate::types::ty::{TyVar, Type, TypeRef};

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
///
/// A generic function called here is instantiated at the sizes as at any type, so where its
/// own parameter `N` becomes 1 its `T ^ N` is `T`, while the array the caller holds stays an
/// array of one: a full call of such an instance (`function` finds the callee) passes each
/// argument reshaped to the parameter's type and reshapes the result back.
pub fn substitute_sizes(
    stmts: &[Stmt],
    params: &[TyVar],
    args: &[Type],
    function: &dyn Fn(FunId) -> Option<Arc<Function>>,
) -> Vec<Stmt> {
    struct Sizes<'a> {
        params: &'a [TyVar],
        args: &'a [Type],
        function: &'a dyn Fn(FunId) -> Option<Arc<Function>>,
    }
    impl Sizes<'_> {
        /// The call `folded` with its arguments and result reshaped to and from the types its
        /// callee's instance has, where they differ.
        fn call_of_instance(&self, mut folded: Expr) -> Expr {
            let ExprKind::Call { func, args } = &mut folded.kind else {
                return folded;
            };
            let (ExprKind::MakeFun { fun, type_args } | ExprKind::Closure { fun, type_args, .. }) =
                &func.kind
            else {
                return folded;
            };
            if type_args.is_empty() {
                return folded;
            }
            let Some(callee) = (self.function)(*fun) else {
                return folded;
            };
            if callee.params.len() != args.len() || callee.type_params.len() != type_args.len() {
                return folded;
            }
            let substitution = Substitution {
                params: &callee.type_params,
                args: type_args,
                sizes_from: callee.type_params.len().saturating_sub(callee.size_params),
            };
            for (param, arg) in callee.params.iter().zip(args.iter_mut()) {
                let expected = substitution.ty(&param.ty);
                if expected != arg.ty && !expected.has_var() {
                    let taken = std::mem::replace(arg, placeholder(arg.span));
                    *arg = reshaped(taken, expected);
                }
            }
            let ret = substitution.ty(&callee.ret);
            if ret == folded.ty || ret.has_var() {
                return folded;
            }
            let kept = std::mem::replace(&mut folded.ty, ret);
            reshaped(folded, kept)
        }
    }
    impl Fold for Sizes<'_> {
        type Error = std::convert::Infallible;
        fn fold_type(&mut self, ty: &Type) -> Result<Type, Self::Error> {
            Ok(ty.subst_sizes(self.params, self.args))
        }
        fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
            let folded = checked_reshape(walk_expr_fold(self, e)?);
            Ok(self.call_of_instance(folded))
        }
    }
    infallible(
        Sizes {
            params,
            args,
            function,
        }
        .fold_stmts(stmts),
    )
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

    fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
        let folded = checked_reshape(walk_expr_fold(self, e)?);
        Ok(self.arrays_of_one(e, folded))
    }

    fn fold_stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        let mut folded = walk_stmt_fold(self, s)?;
        if let (
            Stmt::ForArray {
                array: original, ..
            },
            Stmt::ForArray { array, .. },
        ) = (s, &mut folded)
        {
            self.keep_array_of_one(original, array);
        }
        if let (
            Stmt::Store { root_ty, path, .. },
            Stmt::Store {
                place,
                path: steps,
                value,
                ..
            },
        ) = (s, &mut folded)
        {
            self.drop_indices_of_one(root_ty, path, steps);
            if steps.is_empty() {
                let value = std::mem::replace(value, placeholder(value.span));
                return Ok(Stmt::Assign(*place, value));
            }
        }
        Ok(folded)
    }
}

impl Substitution<'_> {
    /// `folded`, a primitive given an array over a type parameter that became the unitsum 1
    /// (`map f a` with `a : T ^ N` at `N = 1`): `T ^ 1` is `T`, but the primitive's kernel
    /// takes arrays, so the operand is reshaped into the array of one element it was, and a
    /// result that was such an array is reshaped back into its element.
    /// The same holds for the array an element is read from (`a.i`) and the one a `for v in a`
    /// loop runs over (`fold_stmt`).
    fn arrays_of_one(&self, original: &Expr, mut folded: Expr) -> Expr {
        if let (ExprKind::Index { array: o, .. }, ExprKind::Index { array, .. }) =
            (&original.kind, &mut folded.kind)
        {
            self.keep_array_of_one(o, array);
            return folded;
        }
        let ExprKind::Prim(_, original_args) = &original.kind else {
            return folded;
        };
        let ExprKind::Prim(_, args) = &mut folded.kind else {
            return folded;
        };
        let mut changed = false;
        for (o, a) in original_args.iter().zip(args.iter_mut()) {
            changed |= self.keep_array_of_one(o, a);
        }
        if !changed {
            return folded;
        }
        match self.array_of_one(&original.ty) {
            Some(array) if array != folded.ty => {
                let element = std::mem::replace(&mut folded.ty, array);
                reshaped(folded, element)
            }
            _ => folded,
        }
    }

    /// Reshape `folded`, the substituted `original`, into the array of one element it was, if
    /// it was one; whether it was.
    fn keep_array_of_one(&self, original: &Expr, folded: &mut Expr) -> bool {
        match self.array_of_one(&original.ty) {
            Some(array) if array != folded.ty => {
                let taken = std::mem::replace(folded, placeholder(folded.span));
                *folded = reshaped(taken, array);
                true
            }
            _ => false,
        }
    }

    /// A store's path, substituted (`steps`) from the generic one (`path`, from a root of type
    /// `root_ty`): an element of an array over `I = 1` is the array itself, so its step goes,
    /// when its index has no effect to keep (an index of type 1 is always 0).
    fn drop_indices_of_one(&self, root_ty: &Type, path: &[PathStep], steps: &mut Vec<PathStep>) {
        let mut ty = root_ty.clone();
        let mut keep = Vec::with_capacity(path.len());
        for step in path {
            let (drop, next) = match (step, &ty) {
                (PathStep::Index(index, _), Type::Array(element, _)) => (
                    self.array_of_one(&ty).is_some() && is_pure_index(index),
                    Some((**element).clone()),
                ),
                (PathStep::Field(i), Type::Tuple(components)) => {
                    (false, components.get(*i as usize).cloned())
                }
                _ => (false, None),
            };
            keep.push(!drop);
            match next {
                Some(next) => ty = next,
                None => break,
            }
        }
        keep.resize(steps.len(), true);
        let mut kept = keep.into_iter();
        steps.retain(|_| kept.next().unwrap_or(true));
    }

    /// `T ^ I` whose index becomes the unitsum 1, as the array it is (its element substituted
    /// as everywhere).
    fn array_of_one(&self, ty: &Type) -> Option<Type> {
        let Type::Array(element, index) = ty else {
            return None;
        };
        if !index.has_var() || self.ty(index) != Type::Unitsum(1) {
            return None;
        }
        Some(Type::Array(
            TypeRef::new(self.ty(element)),
            TypeRef::new(Type::Unitsum(1)),
        ))
    }
}

/// An index whose evaluation has no effect: a variable or a constant.
fn is_pure_index(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Const(_) | ExprKind::Zero
    )
}

/// `e` reshaped to `ty` (the same leaves in the same order).
fn reshaped(e: Expr, ty: Type) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Coerce(CoerceKind::Reshape, Box::new(e)),
        ty,
        span,
    }
}

/// An expression to stand in a tree for a moment, while its node is taken out and rebuilt.
fn placeholder(span: crate::syntax::span::Span) -> Expr {
    Expr {
        kind: ExprKind::Zero,
        ty: Type::UNIT,
        span,
    }
}

/// `folded`, an expression with its variables substituted. A reshape the checker took on the
/// promise that the element counts, which depend on the variables, are equal
/// (`double ^ n :>> double ^ (m \* 3)`: a `CheckedReshape`) is compared once no variable is
/// left: it becomes the reshape, or a fault (R0016 when it runs) whose message names both
/// types as written, the values of their variables and why the counts differ.
fn checked_reshape(folded: Expr) -> Expr {
    let ExprKind::Prim(Prim::CheckedReshape(types), args) = &folded.kind else {
        return folded;
    };
    let [reshape] = args.as_slice() else {
        return folded;
    };
    let ExprKind::Coerce(CoerceKind::Reshape, source) = &reshape.kind else {
        return folded;
    };
    if source.ty.has_var() || reshape.ty.has_var() {
        return folded;
    }
    let (Some(from), Some(to)) = (symbolic_count(&source.ty), symbolic_count(&reshape.ty)) else {
        return folded;
    };
    let (Some(count_from), Some(count_to)) = (from.value(), to.value()) else {
        return folded;
    };
    if count_from == count_to {
        return reshape.clone();
    }
    let (written_from, written_to) = (&types.0, &types.1);
    let mut values = Vec::new();
    bind_vars(written_from, &source.ty, &mut values);
    bind_vars(written_to, &reshape.ty, &mut values);
    let message = reshape_fault(written_from, written_to, &count_from, &count_to, &values);
    Expr {
        kind: ExprKind::Prim(
            Prim::ShapeFault(Arc::from(message)),
            vec![(**source).clone()],
        ),
        ty: folded.ty.clone(),
        span: folded.span,
    }
}

/// The values the variables of `written` have in `concrete`, the same type with them
/// substituted, where the two have the same structure.
fn bind_vars(written: &Type, concrete: &Type, out: &mut Vec<(TyVar, Type)>) {
    match (written, concrete) {
        (Type::Var(v), t) if !out.iter().any(|(w, _)| w.id == v.id) => {
            out.push((v.clone(), t.clone()));
        }
        (Type::Var(_), _) => {}
        (Type::Array(e, i), Type::Array(e2, i2)) | (Type::CArray(e, i), Type::CArray(e2, i2)) => {
            bind_vars(e, e2, out);
            bind_vars(i, i2, out);
        }
        (Type::CProduct(a), Type::CProduct(b)) | (Type::CSum(a), Type::CSum(b))
            if a.len() == b.len() =>
        {
            for (x, y) in a.iter().zip(b.iter()) {
                bind_vars(x, y, out);
            }
        }
        _ => {}
    }
}

/// Why `from` (with `count_from` elements once its variables have their values) cannot be
/// reshaped to `to` (with `count_to`).
fn reshape_fault(
    from: &Type,
    to: &Type,
    count_from: &num_bigint::BigUint,
    count_to: &num_bigint::BigUint,
    values: &[(TyVar, Type)],
) -> String {
    use num_traits::{One, Zero};
    // The variables of both types, in order, with their values.
    let mut vars: Vec<TyVar> = Vec::new();
    for t in [from, to] {
        t.for_each_var(&mut |v| {
            if !vars.iter().any(|w| w.id == v.id) {
                vars.push(v.clone());
            }
        });
    }
    let value_of = |v: &TyVar| {
        let (_, t) = values.iter().find(|(w, _)| w.id == v.id)?;
        Some(match t {
            Type::Unitsum(k) => k.to_string(),
            other => format!("`{other}`"),
        })
    };
    let mut named: Vec<u32> = Vec::new();
    let monomial = |t: &Type| symbolic_count(t).and_then(|c| c.monomial());
    let (sym_from, sym_to) = (monomial(from), monomial(to));
    // A side that is one variable and the other side's constant factor it is no multiple of:
    // "`n` is 35, not a multiple of 3".
    let mut why = None;
    for (this, this_ty, count, other) in [
        (&sym_from, from, count_from, &sym_to),
        (&sym_to, to, count_to, &sym_from),
    ] {
        let (Some(this), Some(other)) = (this, other) else {
            continue;
        };
        let k = &other.coefficient;
        if other.vars.is_empty() || *k <= num_bigint::BigUint::one() || (count % k).is_zero() {
            continue;
        }
        let subject = match (this.vars.as_slice(), this.coefficient.is_one()) {
            ([single], true) => match vars.iter().find(|v| v.id == *single) {
                Some(v) => {
                    named.push(v.id);
                    format!("`{}` is {count}", v.name)
                }
                None => format!("`{this_ty}` has {count} elements"),
            },
            _ => format!("`{this_ty}` has {count} elements"),
        };
        why = Some(format!("{subject}, not a multiple of {k}"));
        break;
    }
    let why = why.unwrap_or_else(|| {
        let mut subject = |sym: &Option<crate::types::size::Monomial>, ty: &Type, count| {
            if let Some(sym) = sym {
                if let ([single], true) = (sym.vars.as_slice(), sym.coefficient.is_one()) {
                    if let Some(v) = vars.iter().find(|v| v.id == *single) {
                        named.push(v.id);
                        return format!("`{}` is {count}", v.name);
                    }
                }
            }
            format!("`{ty}` has {count} elements")
        };
        let a = subject(&sym_from, from, count_from);
        let b = subject(&sym_to, to, count_to);
        format!("{a} but {b}")
    });
    let values: Vec<String> = vars
        .iter()
        .filter(|v| !named.contains(&v.id))
        .filter_map(|v| Some(format!("`{}` is {}", v.name, value_of(v)?)))
        .collect();
    let values = if values.is_empty() {
        String::new()
    } else {
        format!(" ({})", values.join(", "))
    };
    format!("`{from}` cannot be reshaped to `{to}`: {why}{values}")
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
