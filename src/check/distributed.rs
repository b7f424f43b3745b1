//! The distribution dimension (after the MPLang type design): `distributed T ^ I` is an array
//! stored as equal chunks of its linear index, one per process, whatever its shape. It is a
//! type dimension beside visibility, handled by the same machinery: the qualifier is a
//! `Type` node (`Type::Distributed`, around an array), operations are typed on the data type
//! and the distribution joined back onto their result, sinks that need the whole array refuse
//! it (E0810, naming the operation and suggesting `collect a`), and the unit's IR is erased of
//! it at the end (`zonk.rs`). What the evaluator keeps of it is the kernel: an operation on a
//! distributed operand is given its chunked kernel here (`Prim::Dist`), which computes the
//! owned positions only and combines across processes (`eval::distributed`).
//!
//! What runs on chunks: `map f a` (a distributed result), `\sum` and `\prod` (a scalar),
//! `len` (the shape), `save_npy`, `collect` (the whole array), a reshape `:>>` (the linear
//! index does not change, so no data moves), `load_npy` into a distributed type, and the
//! library functions written in Tessera that have a chunked kernel (`ir::ChunkedFn`:
//! `minimum`, `maximum`, `mean`, `dot`, `map2`, `reduce`, `scan_left`, `cumsum`, `cumprod`,
//! `fold_right`, `scan_right`, `rev_map`), chosen by `call_library`. `fold_left f init a`,
//! `scan_left f init a`, `fold_right f a init` and `scan_right f a init` run on chunks when
//! the accumulator is an element (`f : T -> T -> T`): they are tiled folds and scans
//! (`eval::distributed::tiles`). `rev` and `transpose` move elements in one exchange. A plain
//! array goes where a distributed one is wanted (each process keeps its chunk); the other
//! way needs `collect`.

use crate::check::build::{error_expr, Arg};
use crate::check::error::CheckError;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, DistOp, Prim};
use crate::syntax::ast::TypeExpr;
use crate::syntax::span::Span;
use crate::types::ty::Type;

impl Checker {
    /// `distributed T`: `T` must be an array (E0811 otherwise).
    pub(crate) fn distributed_type(&mut self, te: &TypeExpr, span: Span) -> Type {
        let t = self.type_expr(te);
        if crate::check::contains_error(&t) {
            return t;
        }
        match t {
            Type::Array(..) | Type::Distributed(_) => {
                self.secret.distributed = true;
                Type::distributed(t)
            }
            t => {
                self.error(CheckError::NotDistributable {
                    span,
                    ty: t.to_string(),
                });
                error_type()
            }
        }
    }

    /// E0810: the distributed value at `span` given to `operation`.
    pub(crate) fn needs_whole(&mut self, span: Span, operation: impl Into<String>, ty: &Type) {
        self.error(CheckError::NeedsWhole {
            span,
            operation: operation.into(),
            ty: ty.to_string(),
        });
    }

    /// A value going where type `wanted` is: a distributed array where a plain one is wanted
    /// is an error (E0810); a plain array where a distributed one is wanted is the same data
    /// (a loader reads only the chunk). `None` when distribution plays no part.
    pub(crate) fn coerce_distribution(
        &mut self,
        e: ir::Expr,
        wanted: &Type,
        context: &str,
    ) -> Result<ir::Expr, ir::Expr> {
        let found = self.zonk(&e.ty);
        let wanted = self.zonk(wanted);
        match (found.distributed_array(), wanted.distributed_array()) {
            (Some(_), None) if !matches!(wanted, Type::Meta(_)) && !found.has_meta() => {
                if crate::check::contains_error(&wanted) {
                    return Ok(error_expr(e.span));
                }
                self.needs_whole(e.span, format!("{context} (a plain array)"), &found);
                Ok(error_expr(e.span))
            }
            (None, Some(inner)) if !matches!(found, Type::Meta(_)) => {
                let inner = inner.clone();
                let mut v = self.coerce_to(e, &inner, context);
                if v.ty == error_type() {
                    return Ok(v);
                }
                retarget(&mut v, &Prim::LoadNpy, Prim::Dist(DistOp::LoadNpy));
                v.ty = wanted;
                Ok(v)
            }
            _ => Err(e),
        }
    }
}

/// Replace the kernel `from` by `to` in an application (or in the body of the `match` that
/// takes a tupled argument apart around it).
fn retarget(e: &mut ir::Expr, from: &Prim, to: Prim) {
    match &mut e.kind {
        ir::ExprKind::Prim(p, _) if p == from => *p = to,
        ir::ExprKind::Match(_, arms) if arms.len() == 1 => retarget(&mut arms[0].body, from, to),
        _ => {}
    }
}

/// Give an operand the plain type of its data: its root, and the components of a tuple
/// literal (which a tupled primitive takes apart).
fn strip(e: &mut ir::Expr) {
    e.ty = e.ty.erase_distributed();
    if let ir::ExprKind::Tuple(parts) = &mut e.kind {
        parts.iter_mut().for_each(strip);
    }
}

/// The element type of an array type (`None` for another type).
fn element_type(c: &mut Checker, ty: &Type) -> Option<Type> {
    match c.zonk(ty) {
        Type::Array(elem, _) => Some((*elem).clone()),
        _ => None,
    }
}

/// Is `acc`, the accumulator type of a fold or scan, the element type `elem`? A chunked fold
/// or scan combines the results of tiles with the folded function, so it needs both alike.
fn accumulates_elements(c: &mut Checker, acc: &Type, elem: Option<&Type>) -> bool {
    elem.is_some_and(|elem| c.zonk(acc) == *elem)
}

/// Is this argument written as a lambda (checked only against the parameter type it meets)?
fn is_lambda(a: &Arg) -> bool {
    matches!(a, Arg::Ast(e) if matches!(e.node, crate::syntax::ast::ExprKind::Lambda(_)))
}

/// The primitive `name` applied where the session has written `distributed`: the data
/// arguments are checked first; when one is distributed, the application is typed on the data
/// types, given its chunked kernel and its result the distribution it keeps. `None` (with the
/// arguments checked in place) when no argument is distributed.
pub(crate) fn apply_distributed(
    c: &mut Checker,
    name: &'static str,
    args: &mut Vec<Arg>,
    span: Span,
    apply: impl FnOnce(&mut Checker, &mut Vec<Arg>) -> ir::Expr,
) -> Option<ir::Expr> {
    let mut distributed = None;
    for i in 0..args.len() {
        // A function argument is checked against the parameter type it meets.
        if is_lambda(&args[i])
            || (i == 0 && matches!(name, "map" | "fold_left" | "fold" | "filter"))
        {
            continue;
        }
        let e = crate::check::prims::take(c, args, i, None);
        if distributed.is_none() && e.ty.has_distributed() {
            distributed = Some((e.ty.clone(), e.span));
        }
        args[i] = Arg::Checked(e);
    }
    let (ty, at_span) = distributed?;
    let (kernel, keeps) = match name {
        "map" => (Some((Prim::Map, Prim::Dist(DistOp::Map))), true),
        "\\sum" => (Some((Prim::Sum, Prim::Dist(DistOp::Reduce(true)))), false),
        "\\prod" => (Some((Prim::Prod, Prim::Dist(DistOp::Reduce(false)))), false),
        "save_npy" => (Some((Prim::SaveNpy, Prim::Dist(DistOp::SaveNpy))), false),
        "fold_left" | "fold" => (Some((Prim::FoldLeft, Prim::Dist(DistOp::Fold))), false),
        "filter" => (Some((Prim::Filter, Prim::Dist(DistOp::Filter))), true),
        "transpose" => (Some((Prim::Transpose, Prim::Dist(DistOp::Transpose))), true),
        "rev" => (Some((Prim::Rev, Prim::Dist(DistOp::Rev))), true),
        "sort" if args.len() == 1 => (Some((Prim::Sort, Prim::Dist(DistOp::Sort))), true),
        "sort" => {
            c.needs_whole(at_span, "`sort` by a comparison function", &ty);
            return Some(error_expr(span));
        }
        "len" | "collect" => (None, false),
        _ => {
            c.needs_whole(at_span, format!("`{name}`"), &ty);
            return Some(error_expr(span));
        }
    };
    for a in args.iter_mut() {
        if let Arg::Checked(e) = a {
            strip(e);
        }
    }
    // A chunked fold combines tile results with `f`, so its accumulator is an element.
    let fold_elem = match (name, args.get(2)) {
        ("fold_left" | "fold", Some(Arg::Checked(a))) => Some(element_type(c, &a.ty)),
        _ => None,
    };
    // Typed on the data types, with no second look at distribution.
    let written = std::mem::replace(&mut c.secret.distributed, false);
    let mut r = apply(c, args);
    c.secret.distributed = written || c.secret.distributed;
    if r.ty == error_type() {
        return Some(r);
    }
    if let Some(elem) = fold_elem {
        if !accumulates_elements(c, &r.ty, elem.as_ref()) {
            c.needs_whole(
                at_span,
                format!("`{name}` with an accumulator type other than the element type"),
                &ty,
            );
            return Some(error_expr(span));
        }
    }
    if let Some((from, to)) = kernel {
        retarget(&mut r, &from, to);
    }
    if keeps {
        r.ty = Type::distributed(c.zonk(&r.ty));
    }
    Some(r)
}

/// A call of a library function that has a chunked kernel (`ChunkedFn`: `minimum`, `mean`,
/// `dot`, `map2`, …) where the session has written `distributed`: the arguments are checked
/// first; when one is distributed, the call is typed on the data types as a call of the
/// library function, and given the chunked kernel, which also keeps that call (for what it
/// does not chunk). A user's overload of the name chosen for the data types gets the
/// arguments as plain arrays, which is E0810. `None` (with the arguments checked in place)
/// when the name is not such a function or no argument is distributed.
pub(crate) fn call_library(
    c: &mut Checker,
    name: &str,
    candidates: &[usize],
    args: &mut Vec<Arg>,
    span: Span,
    call: impl FnOnce(&mut Checker, Vec<Arg>) -> ir::Expr,
) -> Option<ir::Expr> {
    let f = ir::ChunkedFn::of_name(name)?;
    if !candidates.iter().any(|&i| c.is_library_fun(i)) {
        return None;
    }
    let function_at = usize::from(f.takes_function());
    let mut distributed = None;
    for i in 0..args.len().min(f.operands()) {
        if i < function_at || is_lambda(&args[i]) {
            continue;
        }
        let e = crate::check::prims::take(c, args, i, None);
        if distributed.is_none() && e.ty.has_distributed() {
            distributed = Some((e.ty.clone(), e.span));
        }
        args[i] = Arg::Checked(e);
    }
    distributed.as_ref()?;
    if args.len() != f.operands() {
        let (ty, at) = distributed.expect("checked above");
        c.needs_whole(
            at,
            format!("`{name}` applied to a different number of arguments"),
            &ty,
        );
        return Some(error_expr(span));
    }
    for a in args.iter_mut() {
        if let Arg::Checked(e) = a {
            strip(e);
        }
    }
    let written = std::mem::replace(&mut c.secret.distributed, false);
    let r = call(c, std::mem::take(args));
    c.secret.distributed = written || c.secret.distributed;
    if r.ty == error_type() {
        return Some(r);
    }
    let ir::ExprKind::Call {
        func,
        args: operands,
    } = &r.kind
    else {
        return Some(r);
    };
    let library = match &func.kind {
        ir::ExprKind::MakeFun { fun, .. } => c.funs.iter().position(|s| s.id == *fun),
        _ => None,
    };
    if !library.is_some_and(|i| c.is_library_fun(i)) {
        let (ty, at) = distributed.expect("checked above");
        c.needs_whole(at, format!("`{name}` (a plain array)"), &ty);
        return Some(error_expr(span));
    }
    let mut operands = operands.clone();
    if let Some((init, array)) = f.accumulator() {
        let elem = element_type(c, &operands[array].ty);
        if !accumulates_elements(c, &operands[init].ty, elem.as_ref()) {
            let (ty, at) = distributed.expect("checked above");
            c.needs_whole(
                at,
                format!("`{name}` with an accumulator type other than the element type"),
                &ty,
            );
            return Some(error_expr(span));
        }
    }
    let ty = c.zonk(&r.ty);
    let ty = if f.keeps_distribution() {
        Type::distributed(ty)
    } else {
        ty
    };
    operands.push(r);
    Some(ir::Expr {
        kind: ir::ExprKind::Prim(Prim::Dist(DistOp::Library(f)), operands),
        ty,
        span,
    })
}

impl Checker {
    /// Is function `idx` the library's (defined at the top of the prelude)?
    pub(crate) fn is_library_fun(&self, idx: usize) -> bool {
        let scope = self.funs[idx].scope;
        self.prelude_scope.is_some() && self.scopes[scope].parent == self.prelude_scope
    }
}

/// A `for i in ..[I]` loop being checked where the session has written `distributed`: in its
/// body a distributed array indexed by `I` may be read and stored at `i` (`used` says whether
/// the body does). Such a loop runs on each process over the positions it owns, so its body
/// may have no other effect: it stores into distributed arrays at `i` and into variables it
/// declares itself, calls no procedure, prints nothing and does not leave the loop early.
#[derive(Clone, Debug)]
pub(crate) struct OwnedLoop {
    pub(crate) var: String,
    pub(crate) index: Type,
    pub(crate) used: bool,
    /// The `val`s of its body bound to its position plus a constant, with the constant.
    pub(crate) aliases: Vec<(ir::Place, i64)>,
}

impl Checker {
    /// Is `a.rhs`, for `a` a distributed array of type `distributed inner`, an element at the
    /// position of the innermost loop over `inner`'s index? (Noted as a use of the loop.)
    pub(crate) fn at_owned_position(
        &mut self,
        inner: &Type,
        rhs: &crate::syntax::ast::Expr,
    ) -> bool {
        let crate::syntax::ast::ExprKind::Name(n) = &rhs.node else {
            return false;
        };
        let Type::Array(_, index) = inner else {
            return false;
        };
        let index = self.zonk(index);
        let Some(l) = self.secret.owned_loops.last_mut() else {
            return false;
        };
        if l.var != **n || l.index != index {
            return false;
        }
        l.used = true;
        true
    }

    /// Where `body` applies a primitive with an effect (printing, reading the world) or makes
    /// a function value of a function whose body has one.
    fn effect_in(&self, body: &[ir::Stmt]) -> Option<Span> {
        let mut at = None;
        crate::core::visit::each_in_stmts(
            body,
            &mut |e| {
                let effect = match &e.kind {
                    ir::ExprKind::Prim(p, _) => crate::core::prims::has_effect(p),
                    ir::ExprKind::MakeFun { fun, .. } | ir::ExprKind::Closure { fun, .. } => {
                        self.funs.iter().find(|f| f.id == *fun).is_some_and(|f| {
                            f.state == crate::check::env::FunState::Done && !f.pure_
                        })
                    }
                    _ => false,
                };
                if effect && at.is_none() {
                    at = Some(e.span);
                }
            },
            &mut |_| {},
        );
        at
    }

    /// The variables declared by the statements `written` (hoisted into the enclosing scope).
    fn declared_in(
        &self,
        written: &[crate::syntax::ast::Stmt],
    ) -> Vec<crate::check::env::VarBinding> {
        let mut declared = Vec::new();
        crate::check::hoist::collect_hoisted(written, &mut declared);
        declared
            .into_iter()
            .filter_map(|s| self.hoisted_var(s))
            .collect()
    }

    /// E0810 for a read of `vb`, declared in the body of a loop over owned positions, after
    /// that loop.
    pub(crate) fn check_owned_loop_read(
        &mut self,
        name: &str,
        vb: &crate::check::env::VarBinding,
        span: Span,
    ) {
        if let Some(&(_, loop_span)) = self
            .secret
            .owned_loop_vars
            .iter()
            .find(|(loc, _)| *loc == vb.loc)
        {
            self.error(CheckError::OwnedLoopVar {
                span,
                name: name.to_string(),
                loop_span,
            });
        }
    }

    /// Start checking `for var in ..[index]` (body `written`): the next scope (the loop's own
    /// variables are bound in it and the scopes after it).
    pub(crate) fn enter_owned_loop(
        &mut self,
        var: &str,
        index: &Type,
        written: &[crate::syntax::ast::Stmt],
    ) -> usize {
        // A body checked again (a generic function's instance) reads its own variables.
        let own: Vec<crate::check::env::VarLoc> =
            self.declared_in(written).iter().map(|vb| vb.loc).collect();
        self.secret
            .owned_loop_vars
            .retain(|(loc, _)| !own.contains(loc));
        self.secret.owned_loops.push(OwnedLoop {
            var: var.to_string(),
            index: index.clone(),
            used: false,
            aliases: Vec::new(),
        });
        self.scopes.len()
    }

    /// The loop `for var in ..[index]` checked (`var` at `place`, body `body`, written
    /// `written`): unchanged when its body reads no distributed element at its position;
    /// otherwise, when the body has no other effect, a loop over the owned positions (E0810
    /// when it has one).
    pub(crate) fn leave_owned_loop(
        &mut self,
        first_scope: usize,
        written: &[crate::syntax::ast::Stmt],
        loop_: ir::Stmt,
        span: Span,
    ) -> ir::Stmt {
        let l = self.secret.owned_loops.pop().expect("entered");
        let frame = self.frame;
        let ir::Stmt::ForCodes {
            label,
            var,
            ty,
            body,
        } = loop_
        else {
            return loop_;
        };
        if !l.used {
            return ir::Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            };
        }
        let n = crate::types::size::size_of(&ty).and_then(|n| num_traits::ToPrimitive::to_i64(&n));
        let global = self.frames[frame].global;
        // The loop's own variables: those of the scopes it opened (its variable), and those
        // its body declares, which Felix hoists into the enclosing scope (a loop opens none).
        let hoisted = self.declared_in(written);
        let own_slots: std::collections::HashSet<ir::Slot> = (first_scope..self.scopes.len())
            .flat_map(|id| self.scopes[id].values.values())
            .filter_map(|b| match b {
                crate::check::env::Binding::Var(vb) => Some(vb),
                _ => None,
            })
            .chain(&hoisted)
            .filter(|vb| vb.loc.frame == frame)
            .map(|vb| vb.loc.slot)
            .collect();
        let own = |p: &ir::Place| match p {
            ir::Place::Local(s) | ir::Place::LocalCell(s) => !global && own_slots.contains(s),
            ir::Place::Global(s) => global && own_slots.contains(s),
            ir::Place::CaptureCell(_) => false,
        };
        let problem = if let Some(at) = self.effect_in(&body) {
            Some(("calls a function with an effect".to_string(), Some(at)))
        } else if n.is_none() {
            Some((
                "runs over an index whose size is known only when it runs".to_string(),
                None,
            ))
        } else {
            body_problem(&body, &var, label, &own)
        };
        // The arrays read at offsets from the loop's position get their halos first.
        let (problem, halos) = match problem {
            Some(p) => (Some(p), Vec::new()),
            None => {
                let at_var = |e: &ir::Expr| reads_place(e, &var);
                match crate::check::dist_halo::halo_statements(&body, &at_var, &l.aliases, span) {
                    Ok(halos) => (None, halos),
                    Err(p) => (Some(p), Vec::new()),
                }
            }
        };
        if let Some((problem, at)) = problem {
            self.error(CheckError::OwnedLoop {
                span: at.unwrap_or(span),
                problem,
            });
            return ir::Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            };
        }
        self.secret
            .owned_loop_vars
            .extend(hoisted.iter().map(|vb| (vb.loc, span)));
        let n = n.expect("checked above");
        let bound = |end: bool| ir::Expr {
            kind: ir::ExprKind::Prim(
                Prim::Dist(DistOp::Owned(end)),
                vec![ir::Expr {
                    kind: ir::ExprKind::Const(ir::Const::Int(n)),
                    ty: Type::Int(crate::types::ty::IntTy::Size),
                    span,
                }],
            ),
            // Signed, so native code runs the loop (a position is below 2^63).
            ty: Type::Int(crate::types::ty::IntTy::Long),
            span,
        };
        let range = ir::Stmt::ForRange {
            label,
            var,
            var_ty: crate::types::ty::IntTy::Long,
            from: bound(false),
            to: bound(true),
            kind: ir::RangeKind::Exclusive,
            body,
        };
        // A process that fails in the loop stops there; the others learn of it right after
        // the loop, before any of them goes on.
        let agree = ir::Stmt::Expr(ir::Expr {
            kind: ir::ExprKind::Prim(Prim::Dist(DistOp::Agree), Vec::new()),
            ty: Type::Unitsum(1),
            span,
        });
        let mut block = halos;
        block.extend([range, agree]);
        ir::Stmt::Block(block)
    }
}

/// Does `e` read the variable `var`?
fn reads_place(e: &ir::Expr, var: &ir::Place) -> bool {
    match (&e.kind, var) {
        (ir::ExprKind::Local(a), ir::Place::Local(b))
        | (ir::ExprKind::LocalCell(a), ir::Place::LocalCell(b))
        | (ir::ExprKind::Global(a), ir::Place::Global(b)) => a == b,
        _ => false,
    }
}

/// What in the body of a loop over owned positions has an effect beyond them, and where (when
/// an expression says): the loop's variable is at `var`, the variables it declares are `own`.
fn body_problem(
    body: &[ir::Stmt],
    var: &ir::Place,
    label: ir::LabelId,
    own: &dyn Fn(&ir::Place) -> bool,
) -> Option<(String, Option<Span>)> {
    use ir::Stmt as S;
    let at_var = |e: &ir::Expr| reads_place(e, var);
    for stmt in body {
        let found = match stmt {
            S::Assign(p, e) if !own(p) => {
                Some(("assigns a variable declared outside it", Some(e.span)))
            }
            S::Store {
                place,
                root_ty,
                path,
                value,
            } if !own(place) => {
                let at_position = root_ty.distributed_array().is_some()
                    && matches!(path.first(), Some(ir::PathStep::Index(i, _)) if at_var(i));
                (!at_position).then_some((
                    "stores into a variable declared outside it, other than a distributed array at the loop's position",
                    Some(value.span),
                ))
            }
            S::StoreAt { value, .. } => Some(("stores through a pointer", Some(value.span))),
            S::Expr(e) => Some(("calls a procedure", Some(e.span))),
            S::Return(_) => Some(("returns from the function", None)),
            S::Break(l) if *l == label => Some(("leaves it with `break`", None)),
            _ => None,
        };
        if let Some((p, at)) = found {
            return Some((p.to_string(), at));
        }
        let nested: Vec<&[ir::Stmt]> = match stmt {
            S::If(_, a, b) => vec![a, b],
            S::While { body, .. }
            | S::Loop { body, .. }
            | S::ForRange { body, .. }
            | S::ForCodes { body, .. }
            | S::ForArray { body, .. }
            | S::Block(body)
            | S::Specialise { body, .. } => vec![body],
            S::Match(_, arms) => arms.iter().map(|a| a.body.as_slice()).collect(),
            _ => Vec::new(),
        };
        for b in nested {
            if let Some(p) = body_problem(b, var, label, own) {
                return Some(p);
            }
        }
    }
    None
}
