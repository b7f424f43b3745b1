//! Run-time sizes: an integer `val` (or parameter) used where a type is expected denotes the
//! unitsum of its value (`val n = …; var a : double ^ n;`).
//!
//! A `val` whose initialiser is a constant gives a static unitsum. Any other gives a *size
//! variable*: a rigid type variable of kind UNITSUM standing for the value, which the rest of
//! the checker treats like a type parameter. The statements that follow the `val` in its block
//! become one `Stmt::Specialise` binding the variable to the `val`'s value; the evaluator
//! compiles them once the value is known, so they run as code over static types. A size
//! variable must not appear outside the statements that bind it (`unbound_sizes`).

use crate::check::env::{Binding, VarBinding, VarLoc};
use crate::check::error::CheckError;
use crate::check::{contains_error, error_type, Checker};
use crate::core::ir::{self, Place};
use crate::core::visit::Fold;
use crate::syntax::ast::{self, BinOp, ExprKind, StmtKind, UnOp};
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, Kind, TyVar, Type};

/// A size variable and the variable whose value it stands for.
#[derive(Clone, Debug)]
pub(crate) struct RunTimeSize {
    pub var: TyVar,
    pub loc: VarLoc,
    pub ity: IntTy,
    /// The size is the length of the variable, an array of this type, not its value.
    pub array: Option<Type>,
    /// The declaration of the variable.
    pub span: Span,
    /// The variable whose assignment gives the size (`ys` of `val [m] ys = filter p xs;`):
    /// its assignment may mention it.
    pub defined_by: Option<VarLoc>,
}

/// The sizes a call gives to the run-time sizes of the callee's parameters.
#[derive(Default)]
pub(crate) struct SizeArguments {
    vars: Vec<TyVar>,
    sizes: Vec<Type>,
}

impl SizeArguments {
    /// `t` with the callee's parameter sizes replaced by the caller's.
    pub(crate) fn apply(&self, t: &Type) -> Type {
        t.subst_vars(&self.vars, &self.sizes)
    }

    /// `t` as the callee's code sees it: its body is compiled for the sizes it is given, where
    /// an array over a size of 0 or 1 stays an array (`Type::subst_sizes`), while the caller
    /// sees `T ^ 1` as `T` and `T ^ 0` as `unit` when the size is static.
    pub(crate) fn apply_in_callee(&self, t: &Type) -> Type {
        t.subst_sizes(&self.vars, &self.sizes)
    }
}

/// How deep constant `val`s may refer to each other before a size is taken as run-time.
const CONSTANT_DEPTH: u32 = 16;

impl Checker {
    /// The type the value `name` denotes when written as a type, or `None` when `name` is no
    /// variable (the caller reports an undefined type).
    pub(crate) fn size_type(&mut self, name: &str, span: Span) -> Option<Type> {
        let Some(Binding::Var(vb)) = self.lookup_value(name) else {
            return None;
        };
        let t = self.var_type(name, &vb, span);
        if contains_error(&t) {
            return Some(error_type());
        }
        let Type::Int(ity) = t else {
            self.error(CheckError::Type {
                span,
                message: format!(
                    "`{name}` is a value of type `{t}`, not a type: only an integer `val` can \
                     stand for a size"
                ),
                help: None,
            });
            return Some(error_type());
        };
        if vb.mutable {
            self.error(CheckError::Type {
                span,
                message: format!("`{name}` is a `var`: a size cannot change once an array has it"),
                help: Some(format!(
                    "declare it with `val {name} = …;`, or copy it: `val m = {name};`"
                )),
            });
            return Some(error_type());
        }
        if let Some(k) = self.constant_size(&vb, CONSTANT_DEPTH) {
            return Some(match u64::try_from(k) {
                Ok(k) => Type::Unitsum(k),
                Err(_) => {
                    self.type_error(
                        span,
                        format!("the size `{name}` is {k}: a size cannot be negative"),
                    );
                    error_type()
                }
            });
        }
        if vb.loc.frame != self.frame && !self.frame_encloses(vb.loc.frame, self.frame) {
            self.error(CheckError::Type {
                span,
                message: format!(
                    "the run-time size `{name}` belongs to an enclosing {}: it cannot be used \
                     as a type here",
                    if self.frames[vb.loc.frame].global {
                        "top level"
                    } else {
                        "function"
                    }
                ),
                help: Some(format!(
                    "pass `{name}` (or the array) as a parameter: `fun f (n: int) (a: double ^ n)`, \
                     or make the function generic: `fun f[N] (a: double ^ N)`"
                )),
            });
            return Some(error_type());
        }
        let var = match self.sizes.iter().find(|s| s.loc == vb.loc) {
            Some(size) => size.var.clone(),
            None => {
                let var = TyVar {
                    id: self.next_tyvar,
                    name: name.into(),
                    kind: Kind::Unitsum,
                };
                self.next_tyvar += 1;
                self.sizes.push(RunTimeSize {
                    var: var.clone(),
                    loc: vb.loc,
                    ity,
                    array: None,
                    span: vb.span,
                    defined_by: None,
                });
                var
            }
        };
        // A function nested in the size's frame takes it as a type parameter, given by its
        // `MakeFun`s: so do the functions between. Only lambdas can: their `MakeFun` is made
        // once their body is checked, while a named function may be called before its body is.
        let named = (0..self.funs.len()).find(|&i| {
            self.frames[self.funs[i].frame].parent.is_some()
                && self.frame_between(self.funs[i].frame, vb.loc.frame)
                && self.funs[i].name != "<lambda>"
        });
        if let Some(i) = named {
            let function = self.funs[i].name.clone();
            self.error(CheckError::Type {
                span,
                message: format!(
                    "the function `{function}` uses the run-time size `{name}` of the code around it"
                ),
                help: Some(format!(
                    "pass the size as a parameter: `fun {function} ({name}: int) …`, or write a lambda"
                )),
            });
            return Some(error_type());
        }
        let mut frame = self.frame;
        while frame != vb.loc.frame {
            if !self.frames[frame].borrowed_sizes.contains(&var) {
                self.frames[frame].borrowed_sizes.push(var.clone());
            }
            match self.frames[frame].parent {
                Some(parent) => frame = parent,
                None => break,
            }
        }
        Some(Type::Var(var))
    }

    /// The type arguments a `MakeFun` of the function of `frame` gives for the run-time sizes
    /// it takes from the code around it (its last type parameters).
    pub(crate) fn borrowed_size_args(&self, frame: usize) -> Vec<Type> {
        self.frames[frame]
            .borrowed_sizes
            .iter()
            .cloned()
            .map(Type::Var)
            .collect()
    }

    /// Is `frame` the current frame or one enclosing it, below `home`?
    fn frame_between(&self, frame: usize, home: usize) -> bool {
        let mut f = Some(self.frame);
        while let Some(at) = f {
            if at == home {
                return false;
            }
            if at == frame {
                return true;
            }
            f = self.frames[at].parent;
        }
        false
    }

    /// Is `outer` an enclosing frame of `inner`?
    fn frame_encloses(&self, outer: usize, inner: usize) -> bool {
        let mut frame = self.frames[inner].parent;
        while let Some(f) = frame {
            if f == outer {
                return true;
            }
            frame = self.frames[f].parent;
        }
        false
    }

    /// The value of an integer `val` whose initialiser is a constant expression (literals,
    /// arithmetic, other such `val`s).
    fn constant_size(&mut self, vb: &VarBinding, depth: u32) -> Option<i128> {
        let decl = vb.decl.clone()?;
        let StmtKind::Val { init, .. } = &decl.node else {
            return None;
        };
        self.constant_int(init, depth)
    }

    /// The value of an integer expression made of unsuffixed literals, arithmetic and
    /// constant `val`s; `None` for any other.
    pub(crate) fn constant_integer(&mut self, e: &ast::Expr) -> Option<i128> {
        self.constant_int(e, CONSTANT_DEPTH)
    }

    fn constant_int(&mut self, e: &ast::Expr, depth: u32) -> Option<i128> {
        let depth = depth.checked_sub(1)?;
        match &e.node {
            ExprKind::Int(lit) if lit.suffix.is_empty() => i128::try_from(lit.value?).ok(),
            ExprKind::Unary(UnOp::Neg, a) => self.constant_int(a, depth)?.checked_neg(),
            ExprKind::Unary(UnOp::Plus, a) => self.constant_int(a, depth),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.constant_int(a, depth)?, self.constant_int(b, depth)?);
                match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => a.checked_div(b),
                    BinOp::Mod => a.checked_rem(b),
                    _ => None,
                }
                .filter(|v| IntTy::Int.contains(*v))
            }
            ExprKind::Name(name) => match self.lookup_value(name)? {
                Binding::Var(vb) if !vb.mutable => self.constant_size(&vb, depth),
                _ => None,
            },
            _ => None,
        }
    }

    /// The size variables of the current frame used so far that are bound to a variable of
    /// the frame assigned at the top of `stmts`: the statements after each assignment become a
    /// `Stmt::Specialise` binding it.
    pub(crate) fn bind_sizes_after_assignments(&mut self, stmts: &mut Vec<ir::Stmt>) {
        let frame = self.frame;
        let mut found: Vec<(usize, RunTimeSize)> = Vec::new();
        for size in self.sizes.iter().filter(|s| s.loc.frame == frame) {
            let place = self.place_at(size.loc);
            let assigned = stmts
                .iter()
                .position(|s| matches!(s, ir::Stmt::Assign(p, _) if *p == place));
            if let Some(at) = assigned {
                found.push((at, size.clone()));
            }
        }
        // Innermost (latest) first, so an earlier binding wraps the later ones.
        found.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        for (at, size) in found {
            if at + 1 >= stmts.len() {
                continue;
            }
            let body: Vec<ir::Stmt> = stmts.drain(at + 1..).collect();
            let span = self.stmts_span(&body);
            let read = self.size_read(&size);
            stmts.push(ir::Stmt::Specialise {
                sizes: vec![(size.var.clone(), read)],
                body,
                span,
            });
        }
    }

    /// Wrap all of `stmts` in a `Stmt::Specialise` binding every size variable of the current
    /// frame that `stmts` mention and that is bound outside them (a parameter, a variable of an
    /// earlier unit).
    pub(crate) fn bind_sizes_around(&mut self, stmts: &mut Vec<ir::Stmt>) {
        let frame = self.frame;
        let mentioned = mentioned_vars(stmts);
        let sizes: Vec<RunTimeSize> = self
            .sizes
            .iter()
            .filter(|s| s.loc.frame == frame && mentioned.contains(&s.var.id))
            .filter(|s| !binds(stmts, s.var.id))
            .filter(|s| {
                let place = self.place_at(s.loc);
                !stmts
                    .iter()
                    .any(|st| matches!(st, ir::Stmt::Assign(p, _) if *p == place))
            })
            .cloned()
            .collect();
        if sizes.is_empty() || stmts.is_empty() {
            return;
        }
        let span = self.stmts_span(stmts);
        let sizes = sizes
            .iter()
            .map(|s| (s.var.clone(), self.size_read(s)))
            .collect();
        let body = std::mem::take(stmts);
        stmts.push(ir::Stmt::Specialise { sizes, body, span });
    }

    pub(crate) fn place_at(&self, loc: VarLoc) -> Place {
        if self.frames[loc.frame].global {
            Place::Global(loc.slot)
        } else if loc.cell {
            Place::LocalCell(loc.slot)
        } else {
            Place::Local(loc.slot)
        }
    }

    /// An expression reading the value a size variable stands for.
    fn size_read(&self, size: &RunTimeSize) -> ir::Expr {
        let kind = crate::check::build::read_place(self.place_at(size.loc));
        let Some(array_ty) = &size.array else {
            return ir::Expr {
                kind,
                ty: Type::Int(size.ity),
                span: size.span,
            };
        };
        let holder = ir::Expr {
            kind,
            ty: array_ty.clone(),
            span: size.span,
        };
        size_of_factor(holder, &size.var)
    }

    /// The argument `arg` of parameter group `group` of a call of `sig`: when the parameter (or
    /// a component of it) is a run-time size of the function, the size the argument gives it
    /// goes to `sizes`: a constant's unitsum, the caller's own size for a sized `val`, or for
    /// any other argument a fresh size, the argument being computed first into a hidden
    /// variable (`pre_stmts`).
    pub(crate) fn size_argument(
        &mut self,
        sig: &crate::check::env::FunSig,
        group: usize,
        arg: ir::Expr,
        sizes: &mut SizeArguments,
    ) -> ir::Expr {
        let callee: Vec<RunTimeSize> = self
            .sizes
            .iter()
            .filter(|s| s.loc.frame == sig.frame && s.array.is_none())
            .cloned()
            .collect();
        if callee.is_empty() {
            return arg;
        }
        let Some(pattern) = sig.params.get(group) else {
            return arg;
        };
        let mut arg = arg;
        match &pattern.kind {
            ir::PatternKind::Bind(Place::Local(slot)) => {
                if let Some(size) = callee.iter().find(|s| s.loc.slot == *slot) {
                    arg = self.size_of_argument(size, arg, sizes);
                }
            }
            ir::PatternKind::Tuple(components) => {
                if let ir::ExprKind::Tuple(items) = &mut arg.kind {
                    for (p, item) in components.iter().zip(items.iter_mut()) {
                        let ir::PatternKind::Bind(Place::Local(slot)) = p.kind else {
                            continue;
                        };
                        if let Some(size) = callee.iter().find(|s| s.loc.slot == slot) {
                            let taken =
                                std::mem::replace(item, crate::check::build::error_expr(item.span));
                            *item = self.size_of_argument(size, taken, sizes);
                        }
                    }
                }
            }
            _ => {}
        }
        arg
    }

    /// The sizes of the result of a call of `sig` that its arguments do not give (the length
    /// of an array the function made, `take`): fresh run-time sizes, as for `filter`.
    pub(crate) fn fresh_result_sizes(
        &mut self,
        sig: &crate::check::env::FunSig,
        result: &Type,
        sizes: &mut SizeArguments,
    ) {
        let mut vars = Vec::new();
        sizes.apply(result).for_each_var(&mut |v| {
            if !vars.contains(v) {
                vars.push(v.clone());
            }
        });
        for v in vars {
            let own = self
                .sizes
                .iter()
                .any(|s| s.var.id == v.id && s.loc.frame == sig.frame);
            if !own {
                continue;
            }
            let fresh = self.fresh_size(&sig.name);
            sizes.vars.push(v);
            sizes.sizes.push(fresh);
        }
    }

    fn size_of_argument(
        &mut self,
        size: &RunTimeSize,
        arg: ir::Expr,
        sizes: &mut SizeArguments,
    ) -> ir::Expr {
        let mut inner = &arg;
        while let ir::ExprKind::Prim(ir::Prim::Widen, operands) = &inner.kind {
            match operands.as_slice() {
                [operand] => inner = operand,
                _ => break,
            }
        }
        let given = match &inner.kind {
            ir::ExprKind::Const(ir::Const::Int(k)) => match u64::try_from(*k) {
                Ok(k) => Some(Type::Unitsum(k)),
                Err(_) => {
                    self.type_error(
                        arg.span,
                        format!(
                            "the size `{}` would be {k}: a size cannot be negative",
                            size.var.name
                        ),
                    );
                    Some(crate::check::error_type())
                }
            },
            ir::ExprKind::Local(_) | ir::ExprKind::Global(_) => {
                let frame = self.frame;
                let reads = |place: Place| match place {
                    Place::Global(g) => matches!(inner.kind, ir::ExprKind::Global(x) if x == g),
                    Place::Local(l) => matches!(inner.kind, ir::ExprKind::Local(x) if x == l),
                    _ => false,
                };
                let known = self
                    .sizes
                    .iter()
                    .filter(|s| s.loc.frame == frame && s.array.is_none())
                    .find(|s| reads(self.place_at(s.loc)))
                    .map(|s| Type::Var(s.var.clone()));
                // A `val` of this frame no type has mentioned yet is a size of its own
                // (`push n xs` before `double ^ n` is written).
                known.or_else(|| {
                    let name = self.val_read_by(frame, &reads)?;
                    self.size_type(&name, arg.span)
                })
            }
            _ => None,
        };
        if let Some(t) = given {
            sizes.vars.push(size.var.clone());
            sizes.sizes.push(t);
            return arg;
        }
        // Any other argument: computed first into a hidden variable whose value is the size.
        let (arg_span, arg_ty) = (arg.span, arg.ty.clone());
        let (loc, read) = self.computed_first_at(arg);
        let var = TyVar {
            id: self.next_tyvar,
            name: format!("{}'", size.var.name).into(),
            kind: Kind::Unitsum,
        };
        self.next_tyvar += 1;
        let ity = match arg_ty {
            Type::Int(ity) => ity,
            _ => size.ity,
        };
        self.sizes.push(RunTimeSize {
            var: var.clone(),
            loc,
            ity,
            array: None,
            span: arg_span,
            defined_by: None,
        });
        sizes.vars.push(size.var.clone());
        sizes.sizes.push(Type::Var(var));
        read
    }

    /// The name of the integer `val` of `frame` in scope whose place `reads` accepts.
    fn val_read_by(
        &mut self,
        frame: crate::check::FrameId,
        reads: &dyn Fn(Place) -> bool,
    ) -> Option<String> {
        let mut scope = Some(self.scope);
        while let Some(id) = scope {
            let found = self.scopes[id].values.iter().find_map(|(name, b)| match b {
                Binding::Var(vb)
                    if !vb.mutable && vb.loc.frame == frame && reads(self.place_at(vb.loc)) =>
                {
                    Some((name.clone(), vb.clone()))
                }
                _ => None,
            });
            if let Some((name, vb)) = found {
                let integer = matches!(self.var_type(&name, &vb, vb.span), Type::Int(_));
                return integer.then_some(name);
            }
            scope = self.scopes[id].parent;
        }
        None
    }

    /// Give each unitsum variable of `scheme` that its application left unsolved (it is
    /// mentioned by the result only) a fresh run-time size, to be bound to the variable the
    /// result is assigned to (`size_of_variable`) or to a hidden one (`bind_fresh_sizes`).
    pub(crate) fn fresh_sizes_of(
        &mut self,
        scheme: &crate::check::scheme::Scheme,
        metas: &[Type],
        name: &str,
    ) {
        for (v, m) in scheme.vars.iter().zip(metas) {
            if v.var.kind != Kind::Unitsum || !matches!(self.zonk(m), Type::Meta(_)) {
                continue;
            }
            let fresh = self.fresh_size(name);
            self.unify(m, &fresh);
        }
    }

    /// A fresh run-time size named after `name` (`filter'`), to be bound to the variable the
    /// value that has it is assigned to, or to a hidden one.
    pub(crate) fn fresh_size(&mut self, name: &str) -> Type {
        let var = TyVar {
            id: self.next_tyvar,
            name: format!("{name}'").into(),
            kind: Kind::Unitsum,
        };
        self.next_tyvar += 1;
        self.unit.fresh_sizes.push(var.clone());
        Type::Var(var)
    }

    /// `value` computed first, before the statement it is part of, into a hidden variable of
    /// the current frame: where it is, and the expression that reads it.
    pub(crate) fn computed_first_at(&mut self, value: ir::Expr) -> (VarLoc, ir::Expr) {
        let frame = self.frame;
        let slot = self.frames[frame].alloc();
        let loc = VarLoc {
            frame,
            slot,
            cell: false,
        };
        let place = self.place_at(loc);
        let read = ir::Expr {
            kind: match place {
                Place::Global(g) => ir::ExprKind::Global(g),
                _ => ir::ExprKind::Local(slot),
            },
            ty: value.ty.clone(),
            span: value.span,
        };
        self.unit.pre_stmts.push(ir::Stmt::Assign(place, value));
        (loc, read)
    }

    /// `value` itself when reading it twice costs nothing, otherwise computed first
    /// (`computed_first_at`).
    pub(crate) fn computed_first(&mut self, value: ir::Expr) -> ir::Expr {
        match value.kind {
            ir::ExprKind::Local(_)
            | ir::ExprKind::Global(_)
            | ir::ExprKind::Capture(_)
            | ir::ExprKind::Const(_) => value,
            _ => self.computed_first_at(value).1,
        }
    }

    /// The type of variable `name` (bound by `vb`) initialised with a value of type `t`: when
    /// `t` is an array over a fresh run-time size, that size becomes the variable's length,
    /// named after it (`len(ys)`).
    pub(crate) fn size_of_variable(&mut self, vb: &VarBinding, name: &str, t: Type) -> Type {
        // A distributed array (a filter's result) has its length on every process too.
        let data = match &t {
            Type::Distributed(inner) => &**inner,
            t => t,
        };
        let Type::Array(elem, index) = data else {
            return t;
        };
        let Type::Var(v) = &**index else {
            return t;
        };
        let Some(at) = self.unit.fresh_sizes.iter().position(|f| f.id == v.id) else {
            return t;
        };
        self.unit.fresh_sizes.remove(at);
        let var = TyVar {
            id: v.id,
            name: format!("len({name})").into(),
            kind: Kind::Unitsum,
        };
        let array = Type::array((**elem).clone(), Type::Var(var.clone()));
        let distributed = matches!(t, Type::Distributed(_));
        self.sizes.push(RunTimeSize {
            var,
            loc: vb.loc,
            ity: IntTy::Size,
            array: Some(array.clone()),
            span: vb.span,
            defined_by: None,
        });
        if distributed {
            Type::distributed(array)
        } else {
            array
        }
    }

    /// The fresh run-time sizes from `fresh` on, made by the statement `out[start..]` and not
    /// bound to a variable: each expression of such a size is computed first into a hidden
    /// variable, whose length the size becomes.
    pub(crate) fn bind_fresh_sizes(
        &mut self,
        span: Span,
        out: &mut Vec<ir::Stmt>,
        start: usize,
        fresh: usize,
    ) {
        let pending: Vec<TyVar> = self.unit.fresh_sizes.drain(fresh..).collect();
        if out.len() <= start {
            return;
        }
        // Only an array made inside a loop's condition or bounds cannot be hoisted before the
        // statement; one the statement computes before its loop (a `for x in c` holds `c`
        // first) can.
        let makes_pending = |s: &ir::Stmt| {
            let mut found = false;
            crate::core::visit::each_in_stmts(
                std::slice::from_ref(s),
                &mut |e| {
                    found |= factors(&self.zonk(&e.ty).erase_secret())
                        .iter()
                        .any(|f| matches!(f, Type::Var(v) if pending.iter().any(|p| p.id == v.id)));
                },
                &mut |_| {},
            );
            found
        };
        if out[start..].iter().any(|s| {
            matches!(s, ir::Stmt::While { .. } | ir::Stmt::ForRange { .. }) && makes_pending(s)
        }) {
            self.error(CheckError::Type {
                span,
                message: "an array whose size is known only when it runs cannot be made in a \
                          loop's condition or bounds"
                    .to_string(),
                help: Some("compute it first: `val ys = …;`".to_string()),
            });
            return;
        }
        let stmts: Vec<ir::Stmt> = out.drain(start..).collect();
        let mut hoist = Hoist {
            checker: self,
            pending: &pending,
            hoisted: Vec::new(),
        };
        let stmts: Vec<ir::Stmt> = stmts
            .iter()
            .map(|s| crate::core::visit::infallible(hoist.fold_stmt(s)))
            .collect();
        let hoisted = std::mem::take(&mut hoist.hoisted);
        out.extend(hoisted);
        out.extend(stmts);
    }

    /// The hidden variables of sizes given by arguments in the statement `out[start..]`
    /// (`size_of_argument`), assigned before it.
    pub(crate) fn flush_pre_stmts(&mut self, span: Span, out: &mut Vec<ir::Stmt>, start: usize) {
        let pre: Vec<ir::Stmt> = std::mem::take(&mut self.unit.pre_stmts);
        if out[start..]
            .iter()
            .any(|s| matches!(s, ir::Stmt::While { .. } | ir::Stmt::ForRange { .. }))
        {
            self.error(CheckError::Type {
                span,
                message: "a size computed in a loop's condition or bounds cannot be a run-time \
                          size"
                    .to_string(),
                help: Some("compute it first: `val n = …;`".to_string()),
            });
            return;
        }
        let stmts: Vec<ir::Stmt> = out.drain(start..).collect();
        out.extend(pre);
        out.extend(stmts);
    }

    fn stmts_span(&self, stmts: &[ir::Stmt]) -> Span {
        let mut span: Option<Span> = None;
        crate::core::visit::each_in_stmts(
            stmts,
            &mut |e| {
                span = Some(match span {
                    None => e.span,
                    Some(s) => Span::new(s.start.min(e.span.start), s.end.max(e.span.end)),
                })
            },
            &mut |_| {},
        );
        span.unwrap_or(Span::new(0, 0))
    }

    /// Report (once per variable) each size variable mentioned by `stmts` outside the
    /// statements that bind it.
    pub(crate) fn unbound_sizes(&mut self, stmts: &[ir::Stmt]) {
        if self.sizes.is_empty() {
            return;
        }
        let ids: std::collections::HashSet<u32> = self.sizes.iter().map(|s| s.var.id).collect();
        let homes: Vec<(Place, u32)> = self
            .sizes
            .iter()
            .flat_map(|s| {
                // The assignment of the array, and (for a size name) the size's own.
                let homes = match s.defined_by {
                    Some(array) => vec![array, s.loc],
                    None if s.array.is_some() => vec![s.loc],
                    None => vec![],
                };
                homes
                    .into_iter()
                    .filter(|home| home.frame == self.frame)
                    .map(|home| (self.place_at(home), s.var.id))
                    .collect::<Vec<_>>()
            })
            .collect();
        // Sizes of enclosing frames are this function's type parameters.
        let borrowed: Vec<u32> = self.frames[self.frame]
            .borrowed_sizes
            .iter()
            .map(|v| v.id)
            .collect();
        let mut finder = Unbound {
            ids: &ids,
            homes: &homes,
            bound: borrowed,
            found: Vec::new(),
            span: Span::new(0, 0),
        };
        for s in stmts {
            crate::core::visit::Visit::visit_stmt(&mut finder, s);
        }
        let mut reported = std::collections::HashSet::new();
        for (var, span) in finder.found {
            if reported.insert(var.id) {
                self.error(CheckError::Type {
                    span,
                    message: format!(
                        "the size `{}` is used here before its `val` has a value",
                        var.name
                    ),
                    help: Some(format!("move this after the definition of `{}`", var.name)),
                });
            }
        }
    }
}

/// The ids of the type variables mentioned by `stmts`.
fn mentioned_vars(stmts: &[ir::Stmt]) -> std::collections::HashSet<u32> {
    struct Vars(std::collections::HashSet<u32>);
    impl crate::core::visit::Visit<'_> for Vars {
        fn visit_type(&mut self, ty: &Type) {
            if ty.has_var() {
                collect_vars(ty, &mut self.0);
            }
        }
    }
    let mut vars = Vars(Default::default());
    for s in stmts {
        crate::core::visit::Visit::visit_stmt(&mut vars, s);
    }
    vars.0
}

fn collect_vars(ty: &Type, out: &mut std::collections::HashSet<u32>) {
    ty.for_each_var(&mut |v| {
        out.insert(v.id);
    });
}

/// Does `stmts` contain a `Specialise` binding variable `id`?
fn binds(stmts: &[ir::Stmt], id: u32) -> bool {
    struct Binds(u32, bool);
    impl crate::core::visit::Visit<'_> for Binds {
        fn visit_stmt(&mut self, s: &ir::Stmt) {
            if let ir::Stmt::Specialise { sizes, .. } = s {
                self.1 |= sizes.iter().any(|(v, _)| v.id == self.0);
            }
            crate::core::visit::walk_stmt(self, s);
        }
    }
    let mut finder = Binds(id, false);
    for s in stmts {
        crate::core::visit::Visit::visit_stmt(&mut finder, s);
    }
    finder.1
}

/// Finds size variables outside the `Specialise` statements that bind them.
struct Unbound<'a> {
    ids: &'a std::collections::HashSet<u32>,
    /// The variables whose lengths are sizes: their assignments define the sizes.
    homes: &'a [(Place, u32)],
    bound: Vec<u32>,
    found: Vec<(TyVar, Span)>,
    /// The span of the innermost expression being visited.
    span: Span,
}

impl<'ir> crate::core::visit::Visit<'ir> for Unbound<'_> {
    fn visit_stmt(&mut self, s: &'ir ir::Stmt) {
        match s {
            ir::Stmt::Specialise { sizes, body, .. } => {
                // The sizes' own reads (`len ys`, `shape.1.(0)`) read the variables that
                // define them, whose types mention them: they are not visited.
                let n = self.bound.len();
                self.bound.extend(sizes.iter().map(|(v, _)| v.id));
                for s in body {
                    self.visit_stmt(s);
                }
                self.bound.truncate(n);
            }
            ir::Stmt::Assign(place, e) => {
                let n = self.bound.len();
                self.bound.extend(
                    self.homes
                        .iter()
                        .filter(|(p, _)| p == place)
                        .map(|(_, id)| *id),
                );
                self.visit_expr(e);
                self.bound.truncate(n);
            }
            _ => crate::core::visit::walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &'ir ir::Expr) {
        let outer = std::mem::replace(&mut self.span, e.span);
        crate::core::visit::walk_expr(self, e);
        self.span = outer;
    }

    fn visit_type(&mut self, ty: &'ir Type) {
        if !ty.has_var() {
            return;
        }
        let mut vars = Vec::new();
        ty.for_each_var(&mut |v| vars.push(v.clone()));
        for v in vars {
            if self.ids.contains(&v.id) && !self.bound.contains(&v.id) {
                self.found.push((v, self.span));
            }
        }
    }
}

/// Moves each expression whose type is an array over a pending fresh size into a hidden
/// variable assigned before the statement.
struct Hoist<'a> {
    checker: &'a mut Checker,
    pending: &'a [TyVar],
    hoisted: Vec<ir::Stmt>,
}

impl crate::core::visit::Fold for Hoist<'_> {
    type Error = std::convert::Infallible;

    fn fold_expr(&mut self, e: &ir::Expr) -> Result<ir::Expr, Self::Error> {
        let ty = self.checker.zonk(&e.ty).erase_secret();
        // The pending sizes among the array's dimensions.
        let fresh: Vec<TyVar> = factors(&ty)
            .iter()
            .filter_map(|f| match f {
                Type::Var(v) => self.pending.iter().find(|p| p.id == v.id).cloned(),
                _ => None,
            })
            .collect();
        if fresh.is_empty() {
            return crate::core::visit::walk_expr_fold(self, e);
        }
        // The operands may hold further fresh sizes (`filter p (filter q xs)`).
        let mut inner = crate::core::visit::walk_expr_fold(self, e)?;
        // Several unknown dimensions come from the loader with the array: the hidden variable
        // holds `(array, dims)`, each size read as `dims.(axis)`.
        let shaped =
            fresh.len() > 1 && matches!(&inner.kind, ir::ExprKind::Prim(p, _) if p.is_loader());
        let mut held = ty.clone();
        if shaped {
            let rank = factors(&ty).len() as u64;
            held = Type::tuple(vec![
                ty.clone(),
                Type::array(Type::Int(IntTy::Size), Type::Unitsum(rank)),
            ]);
            inner = ir::Expr {
                span: inner.span,
                ty: held.clone(),
                kind: ir::ExprKind::Prim(ir::Prim::Shaped, vec![inner]),
            };
        }
        let c = &mut *self.checker;
        let frame = c.frame;
        let slot = c.frames[frame].alloc();
        let loc = VarLoc {
            frame,
            slot,
            cell: false,
        };
        let place = c.place_at(loc);
        for var in fresh {
            c.sizes.push(RunTimeSize {
                var,
                loc,
                ity: IntTy::Size,
                array: Some(held.clone()),
                span: e.span,
                defined_by: None,
            });
        }
        self.hoisted.push(ir::Stmt::Assign(place, inner));
        let kind = crate::check::build::read_place(place);
        let read = ir::Expr {
            kind,
            ty: held,
            span: e.span,
        };
        Ok(if shaped {
            ir::Expr {
                kind: ir::ExprKind::Field(Box::new(read), 0),
                ty: e.ty.clone(),
                span: e.span,
            }
        } else {
            ir::Expr {
                ty: e.ty.clone(),
                ..read
            }
        })
    }
}

/// Does `t` mention the type variable `id`?
pub(crate) fn mentions(t: &Type, id: u32) -> bool {
    let mut found = false;
    t.for_each_var(&mut |v| found |= v.id == id);
    found
}

/// The dimensions of an array type, outermost first: the factors of its index (a compact
/// product, a power with a static exponent), then its element's (`double ^ c ^ r` is `r`, `c`).
pub(crate) fn factors(ty: &Type) -> Vec<Type> {
    fn index_factors(index: &Type, out: &mut Vec<Type>) {
        match index {
            Type::CProduct(components) => components.iter().for_each(|c| index_factors(c, out)),
            Type::CArray(base, exponent) => {
                match crate::types::size::size_of(exponent).and_then(|n| {
                    use num_traits::ToPrimitive;
                    n.to_usize()
                }) {
                    Some(copies) if copies <= 32 => {
                        (0..copies).for_each(|_| index_factors(base, out))
                    }
                    _ => out.push(index.clone()),
                }
            }
            other => out.push(other.clone()),
        }
    }
    let mut out = Vec::new();
    let mut t = match ty {
        Type::Distributed(inner) => &**inner,
        ty => ty,
    };
    while let Type::Array(element, index) = t {
        index_factors(index, &mut out);
        t = element;
    }
    out
}

/// An expression reading the run-time size `var`, a factor of the type of `holder`, which is
/// either an array (the size its length divided by the product of the other factors, which
/// must be static) or a loaded array with its dimensions, `(array, dims)` (`Prim::Shaped`):
/// the size is `dims.(axis)`.
fn size_of_factor(holder: ir::Expr, var: &TyVar) -> ir::Expr {
    let span = holder.span;
    let size_ty = Type::Int(IntTy::Size);
    let mk = |kind, ty: &Type| ir::Expr {
        kind,
        ty: ty.clone(),
        span,
    };
    let is_var = |t: &Type| matches!(t, Type::Var(v) if v.id == var.id);
    if let Type::Tuple(parts) = &holder.ty {
        if let [array_ty, dims_ty] = &parts[..] {
            let axis = factors(array_ty).iter().position(is_var).unwrap_or(0);
            let dims = mk(ir::ExprKind::Field(Box::new(holder.clone()), 1), dims_ty);
            return mk(
                ir::ExprKind::Index {
                    array: Box::new(dims),
                    index: Box::new(mk(
                        ir::ExprKind::Const(ir::Const::Int(axis as i64)),
                        &size_ty,
                    )),
                    mode: ir::IndexMode::Linear,
                },
                &size_ty,
            );
        }
    }
    // The product of the other factors of the outermost index (`Len` counts its elements); a
    // checker that names several unknown factors of one array binds them through
    // `Prim::Shaped`, so these are static.
    let outer = match holder.ty.erase_distributed() {
        Type::Array(_, index) => Type::array(Type::Double, (*index).clone()),
        other => other,
    };
    let others: u64 = factors(&outer)
        .iter()
        .filter(|t| !is_var(t))
        .filter_map(|t| {
            use num_traits::ToPrimitive;
            crate::types::size::size_of(t).and_then(|n| n.to_u64())
        })
        .product();
    let len = mk(ir::ExprKind::Prim(ir::Prim::Len, vec![holder]), &size_ty);
    if others <= 1 {
        return len;
    }
    mk(
        ir::ExprKind::Prim(
            ir::Prim::IntArith(ir::ArithOp::Div, IntTy::Size),
            vec![
                len,
                mk(ir::ExprKind::Const(ir::Const::Int(others as i64)), &size_ty),
            ],
        ),
        &size_ty,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(id: u32) -> TyVar {
        TyVar {
            id,
            name: format!("n{id}").into(),
            kind: Kind::Unitsum,
        }
    }

    fn holder(ty: Type) -> ir::Expr {
        ir::Expr {
            kind: ir::ExprKind::Local(0),
            ty,
            span: Span::new(0, 0),
        }
    }

    fn printed(e: &ir::Expr) -> String {
        format!("{:?}", e.kind)
    }

    #[test]
    fn a_size_alone_is_the_length() {
        // double ^ n and (double ^ 5) ^ n: n = len, the number of outer elements.
        for a in [
            Type::array(Type::Double, Type::Var(var(1))),
            Type::array(
                Type::array(Type::Double, Type::Unitsum(5)),
                Type::Var(var(1)),
            ),
        ] {
            check_alone(a);
        }
    }

    fn check_alone(a: Type) {
        let read = size_of_factor(holder(a), &var(1));
        assert!(
            matches!(read.kind, ir::ExprKind::Prim(ir::Prim::Len, _)),
            "{}",
            printed(&read)
        );
        assert_eq!(read.ty, Type::Int(IntTy::Size));
    }

    #[test]
    fn one_unknown_factor_is_the_length_over_the_others() {
        // double ^ (n \* 3 \* 4): n = len / 12; (double ^ 5) ^ (n \* 2): n = len / 2, as
        // `len` counts the outer elements (rows of 5).
        let a = Type::array(
            Type::Double,
            Type::cproduct(vec![Type::Var(var(1)), Type::Unitsum(3), Type::Unitsum(4)]),
        );
        let b = Type::array(
            Type::array(Type::Double, Type::Unitsum(5)),
            Type::cproduct(vec![Type::Var(var(1)), Type::Unitsum(2)]),
        );
        for (ty, others) in [(a, 12), (b, 2)] {
            let read = size_of_factor(holder(ty), &var(1));
            let ir::ExprKind::Prim(ir::Prim::IntArith(ir::ArithOp::Div, IntTy::Size), operands) =
                &read.kind
            else {
                panic!("not a division: {}", printed(&read));
            };
            assert!(matches!(
                operands[0].kind,
                ir::ExprKind::Prim(ir::Prim::Len, _)
            ));
            assert!(
                matches!(operands[1].kind, ir::ExprKind::Const(ir::Const::Int(k)) if k == others)
            );
        }
    }

    #[test]
    fn several_unknown_factors_are_read_from_the_loaded_dimensions() {
        let array = Type::array(
            Type::Double,
            Type::cproduct(vec![Type::Var(var(1)), Type::Unitsum(2), Type::Var(var(2))]),
        );
        assert_eq!(factors(&array).len(), 3);
        let pair = Type::tuple(vec![
            array,
            Type::array(Type::Int(IntTy::Size), Type::Unitsum(3)),
        ]);
        for (v, axis) in [(1, 0), (2, 2)] {
            let read = size_of_factor(holder(pair.clone()), &var(v));
            let ir::ExprKind::Index { array, index, mode } = &read.kind else {
                panic!("not an index: {}", printed(&read));
            };
            assert_eq!(*mode, ir::IndexMode::Linear);
            assert!(matches!(array.kind, ir::ExprKind::Field(_, 1)));
            assert!(
                matches!(index.kind, ir::ExprKind::Const(ir::Const::Int(k)) if k == axis),
                "{}",
                printed(&read)
            );
        }
    }
}
