//! Size names: `val [m] ys = e;` names the run-time sizes of a value, for other declarations
//! to use (`var out : double ^ m;`). Each name is an integer `val` and a size: it takes a fresh
//! size of the value's type (`filter`'s result), or the size the annotation gives it, and is
//! assigned the size read off the value once the value is computed.

use crate::check::env::{Binding, VarBinding, VarLoc};
use crate::check::error::CheckError;
use crate::check::sizes::{factors, mentions, RunTimeSize};
use crate::check::{contains_error, Checker};
use crate::core::ir;
use crate::core::visit::Fold;
use crate::syntax::ast;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, Kind, TyVar, Type};

impl Checker {
    /// `val [m, k] x = e;` where `e` checked to `init`: the fresh run-time sizes of its type
    /// (`filter`'s result, a loaded array's shape), in order, become the sizes `names` stand
    /// for, those the annotation did not use first. Returns `init` with them replaced.
    pub(crate) fn name_fresh_sizes(&mut self, names: &[ast::SName], init: ir::Expr) -> ir::Expr {
        let t = self.zonk(&init.ty);
        let mut fresh = Vec::new();
        t.for_each_var(&mut |v| {
            if !fresh.iter().any(|f: &TyVar| f.id == v.id) {
                fresh.push(v.clone());
            }
        });
        fresh.retain(|v| self.unit.fresh_sizes.iter().any(|f| f.id == v.id));
        let mut fresh = fresh.into_iter();
        let (mut from, mut to) = (Vec::new(), Vec::new());
        for name in names {
            let Some(Binding::Var(nb)) = self.lookup_value(&name.node) else {
                continue;
            };
            let var = match self.sizes.iter().find(|s| s.loc == nb.loc) {
                Some(size) => size.var.clone(),
                None => {
                    let var = TyVar {
                        id: self.next_tyvar,
                        name: name.node.as_str().into(),
                        kind: Kind::Unitsum,
                    };
                    self.next_tyvar += 1;
                    self.sizes.push(RunTimeSize {
                        var: var.clone(),
                        loc: nb.loc,
                        ity: IntTy::Int,
                        array: None,
                        span: name.span,
                        defined_by: None,
                    });
                    var
                }
            };
            if mentions(&t, var.id) {
                continue;
            }
            let Some(old) = fresh.next() else {
                continue;
            };
            self.unit.fresh_sizes.retain(|f| f.id != old.id);
            from.push(old);
            to.push(Type::Var(var));
        }
        if from.is_empty() {
            return init;
        }
        struct Rename<'a> {
            checker: &'a mut Checker,
            from: &'a [TyVar],
            to: &'a [Type],
        }
        impl Fold for Rename<'_> {
            type Error = std::convert::Infallible;
            fn fold_type(&mut self, ty: &Type) -> Result<Type, Self::Error> {
                Ok(self.checker.zonk(ty).subst_vars(self.from, self.to))
            }
        }
        crate::core::visit::infallible(
            Rename {
                checker: self,
                from: &from,
                to: &to,
            }
            .fold_expr(&init),
        )
    }

    /// After `x`'s assignment in `val [m, k] x = e;` (`x` of type `t`, bound by `value`):
    /// assign each size name the size it stands for, read off `x` (its length, or its length
    /// divided by the other, static, factors of a product).
    pub(crate) fn assign_size_names(
        &mut self,
        value: &VarBinding,
        value_name: &str,
        names: &[ast::SName],
        t: &Type,
        out: &mut Vec<ir::Stmt>,
    ) {
        if contains_error(t) {
            return;
        }
        for name in names {
            let Some(Binding::Var(nb)) = self.lookup_value(&name.node) else {
                continue;
            };
            let Some(size) = self
                .sizes
                .iter_mut()
                .find(|s| s.loc == nb.loc && mentions(t, s.var.id))
            else {
                self.error(CheckError::Type {
                    span: name.span,
                    message: format!(
                        "`{}` names no run-time size: `{value_name}` has type `{t}`",
                        name.node
                    ),
                    help: Some(format!(
                        "a size name stands for a size known only when the program runs: of \
                         `filter`'s result, a loaded array, or one the type gives it \
                         (`val [{n}] {value_name} : double ^ {n} = …;`)",
                        n = name.node
                    )),
                });
                continue;
            };
            size.defined_by = Some(value.loc);
            let var = size.var.clone();
            if several_unknown(t) {
                // Several sizes only the value knows (`double ^ (r \* c)` from a file): the
                // expression is computed first into a hidden variable that holds its shape
                // too (`Hoist`), which binds them; the name reads the bound size.
                if !self.unit.fresh_sizes.iter().any(|f| f.id == var.id) {
                    self.unit.fresh_sizes.push(var.clone());
                }
                let size = ir::Expr {
                    kind: ir::ExprKind::TypeSize(Type::Var(var.clone())),
                    ty: Type::SIZE,
                    span: name.span,
                };
                let read = ir::Expr {
                    kind: ir::ExprKind::Prim(ir::Prim::Convert, vec![size]),
                    ty: Type::INT,
                    span: name.span,
                };
                out.push(ir::Stmt::Assign(self.place_at(nb.loc), read));
                continue;
            }
            let Some(read) = self.size_from_array(value.loc, t, &var, name.span) else {
                self.error(CheckError::Type {
                    span: name.span,
                    message: format!(
                        "the size `{}` cannot be read from `{value_name} : {t}`",
                        name.node
                    ),
                    help: Some(
                        "a size name stands for the array's index, or for one factor of a \
                         product index whose other factors are known (`double ^ (r \\* 3)`)"
                            .to_string(),
                    ),
                });
                continue;
            };
            // A factor of a product: the length must be a multiple of the others.
            let read = match &read.kind {
                ir::ExprKind::Prim(ir::Prim::IntArith(ir::ArithOp::Div, _), operands) => {
                    let (len, divisor) = (operands[0].clone(), operands[1].clone());
                    let k = match divisor.kind {
                        ir::ExprKind::Const(ir::Const::Int(k)) => k,
                        _ => 0,
                    };
                    let int = |kind| ir::Expr {
                        kind,
                        ty: Type::INT,
                        span: name.span,
                    };
                    let rem = int(ir::ExprKind::Prim(
                        ir::Prim::IntArith(ir::ArithOp::Mod, IntTy::Int),
                        vec![len, divisor],
                    ));
                    let zero = int(ir::ExprKind::Const(ir::Const::Int(0)));
                    let differs = ir::Expr {
                        kind: ir::ExprKind::Prim(ir::Prim::Compare(ir::CmpOp::Ne), vec![rem, zero]),
                        ty: Type::BOOL,
                        span: name.span,
                    };
                    let message = format!(
                        "`{value_name}` cannot have the type `{t}`: its element count is not a \
                         multiple of {k}, so no size `{}` gives it",
                        name.node
                    );
                    let unit = ir::Expr {
                        kind: ir::ExprKind::Const(ir::Const::Unit),
                        ty: Type::UNIT,
                        span: name.span,
                    };
                    let fault = int(ir::ExprKind::Prim(
                        ir::Prim::ShapeFault(message.into()),
                        vec![unit],
                    ));
                    int(ir::ExprKind::If(
                        Box::new(differs),
                        Box::new(fault),
                        Box::new(read.clone()),
                    ))
                }
                _ => read,
            };
            let place = self.place_at(nb.loc);
            out.push(ir::Stmt::Assign(place, read));
        }
    }

    /// The value of the size `var` of the array variable at `loc`, of type `t`: its length
    /// when `var` is its index, its length divided by the other factors when `var` is one
    /// factor of a product whose others are static.
    fn size_from_array(&self, loc: VarLoc, t: &Type, var: &TyVar, span: Span) -> Option<ir::Expr> {
        let Type::Array(_, index) = t else {
            return None;
        };
        let divisor: u64 = match &**index {
            Type::Var(v) if v.id == var.id => 1,
            Type::CProduct(factors) => {
                let mut found = 0;
                let mut divisor: u64 = 1;
                for f in factors.iter() {
                    match f {
                        Type::Var(v) if v.id == var.id => found += 1,
                        other => {
                            let k = crate::types::size::size_of(other)?;
                            divisor = divisor.checked_mul(u64::try_from(k).ok()?)?;
                        }
                    }
                }
                if found != 1 || divisor == 0 {
                    return None;
                }
                divisor
            }
            _ => return None,
        };
        let kind = crate::check::build::read_place(self.place_at(loc));
        let array = ir::Expr {
            kind,
            ty: t.clone(),
            span,
        };
        let len = ir::Expr {
            kind: ir::ExprKind::Prim(ir::Prim::Len, vec![array]),
            ty: Type::SIZE,
            span,
        };
        let len = ir::Expr {
            kind: ir::ExprKind::Prim(ir::Prim::Convert, vec![len]),
            ty: Type::INT,
            span,
        };
        if divisor == 1 {
            return Some(len);
        }
        let divisor = ir::Expr {
            kind: ir::ExprKind::Const(ir::Const::Int(divisor as i64)),
            ty: Type::INT,
            span,
        };
        Some(ir::Expr {
            kind: ir::ExprKind::Prim(
                ir::Prim::IntArith(ir::ArithOp::Div, IntTy::Int),
                vec![len, divisor],
            ),
            ty: Type::INT,
            span,
        })
    }
}

/// Is `t` an array whose dimensions include more than one type variable?
fn several_unknown(t: &Type) -> bool {
    factors(t)
        .iter()
        .filter(|f| matches!(f, Type::Var(_)))
        .count()
        > 1
}
