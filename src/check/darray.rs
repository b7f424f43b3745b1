//! What the checker knows of the prelude's dynamic arrays, `varray[T]` and `darray[T]`: their
//! functions are the prelude's `_varray_…` and `_darray_…` definitions, found by the fallback
//! of `apply_name`, over the kernels of `Prim::Varray`. Three forms need the checker: `v += x`
//! (Felix's `+=` on a varray or darray variable appends), `v.i` (an element, of a list too)
//! and `for x in c`
//! over a container that is not an array (the prelude's cursor functions, `_in_start`,
//! `_in_more`, `_in_elem`, `_in_next`, for lists, options, varrays and darrays).

use crate::check::build::{mk, read_place, Arg};
use crate::check::env::Binding;
use crate::check::Checker;
use crate::core::ir::{self, Place};
use crate::syntax::ast::{self, ExprKind, Stmt};
use crate::syntax::span::{Span, Spanned};
use crate::types::ty::{NominalDef, Type};

/// The prelude's types that `for v in c` walks with their cursor functions.
const ITERABLE: &[&str] = &["list", "opt", "varray", "darray"];

/// Whether `t` is the prelude's `varray[T]` or `darray[T]`.
pub(crate) fn is_dynamic_array(t: &Type) -> bool {
    match t {
        Type::Nominal(n) => is_dynamic_declaration(n),
        _ => false,
    }
}

/// Whether `t` is the prelude's `list[T]`, whose `l.i` is its element `i` too (Felix's lists
/// are an `ArrayValue`: the walk to the position, R0001 past the end).
pub(crate) fn is_list(t: &Type) -> bool {
    match t {
        Type::Nominal(n) => library_name(n) == Some("list"),
        _ => false,
    }
}

/// Whether `n` is an instance of the prelude's `varray` or `darray`.
pub(crate) fn is_dynamic_declaration(n: &NominalDef) -> bool {
    library_name(n).is_some_and(|n| n == "varray" || n == "darray")
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
    /// `v += x;` on a variable holding a dynamic array: `push_back (v, x);`.
    pub(crate) fn append_stmt(
        &mut self,
        target: &ast::Expr,
        value: &ast::Expr,
        span: Span,
    ) -> Option<ir::Stmt> {
        let call = Spanned::new(
            ExprKind::Apply {
                func: Box::new(Spanned::new(ExprKind::Name("push_back".into()), span)),
                arg: Box::new(Spanned::new(
                    ExprKind::Tuple(vec![target.clone(), value.clone()]),
                    span,
                )),
                how: ast::ApplyForm::Juxtapose,
            },
            span,
        );
        Some(ir::Stmt::Expr(self.expr(&call, None)))
    }

    /// Whether `v.rhs`, `v` of type `vt`, is an element of a dynamic array or a list: `rhs` is
    /// a literal, a parenthesised expression or a variable; a function's name is a reverse
    /// application (`v.len`).
    pub(crate) fn indexes_dynamic_array(&mut self, vt: &Type, rhs: &ast::Expr) -> bool {
        if !is_dynamic_array(vt) && !is_list(vt) {
            return false;
        }
        match &rhs.node {
            ExprKind::Name(n) => matches!(self.lookup_value(n), Some(Binding::Var(_))),
            _ => true,
        }
    }

    /// `v.i` on a dynamic array or a list: the element at the position `i`, of any integer
    /// type.
    pub(crate) fn dynamic_element(
        &mut self,
        base: ir::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> ir::Expr {
        let list = is_list(&self.zonk(&base.ty));
        let i = self.expr(index, None);
        let pair = mk(
            ir::ExprKind::Tuple(vec![base.clone(), i.clone()]),
            Type::tuple(vec![base.ty.clone(), i.ty.clone()]),
            span,
        );
        let get = if list { "_list_get" } else { "_vget" };
        self.apply_name(get, span, vec![Arg::Checked(pair)], span, None)
    }

    /// `for x in c do … done` over a container that is not an array: the container is held
    /// in a hidden variable, its cursor in another, and the loop is
    /// `while _in_more (c, s) do x = _in_elem (c, s); s = _in_next (c, s); … done`.
    pub(crate) fn for_cursor(
        &mut self,
        label: Option<&ast::SName>,
        var: &ast::SName,
        container: ir::Expr,
        body: &[Stmt],
        out: &mut Vec<ir::Stmt>,
    ) {
        let span = container.span;
        let (held, cursor) = (self.hidden_place(), self.hidden_place());
        let c_ty = container.ty.clone();
        let read = |place: Place, ty: &Type| mk(read_place(place), ty.clone(), span);
        let iterable = match self.zonk(&c_ty) {
            Type::Nominal(n) => library_name(&n).is_some_and(|n| ITERABLE.contains(&n)),
            _ => false,
        };
        if !iterable {
            let t = self.zonk(&c_ty);
            self.type_error(
                span,
                format!("`for v in a` needs an array, a string, a list, an option, a varray or a darray, found `{t}`"),
            );
            return;
        }
        let start = self.apply_name(
            "_in_start",
            span,
            vec![Arg::Checked(read(held, &c_ty))],
            span,
            None,
        );
        let s_ty = self.zonk(&start.ty);
        let both = || {
            let pair = vec![read(held, &c_ty), read(cursor, &s_ty)];
            let ty = Type::tuple(pair.iter().map(|e| e.ty.clone()).collect());
            vec![Arg::Checked(mk(ir::ExprKind::Tuple(pair), ty, span))]
        };
        let more = self.apply_name("_in_more", span, both(), span, Some(&Type::BOOL));
        let elem = self.apply_name("_in_elem", span, both(), span, None);
        let next = self.apply_name("_in_next", span, both(), span, Some(&s_ty));
        let elem_ty = self.zonk(&elem.ty);
        let (place, body_ir, label) = self.loop_with_local(label, var, elem_ty, body);
        out.push(ir::Stmt::Assign(held, container));
        out.push(ir::Stmt::Assign(cursor, start));
        let mut loop_body = vec![
            ir::Stmt::Assign(place, elem),
            ir::Stmt::Assign(cursor, next),
        ];
        loop_body.extend(body_ir);
        out.push(ir::Stmt::While {
            label,
            cond: more,
            until: false,
            body: loop_body,
        });
    }
}
