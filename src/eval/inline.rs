//! Inline expansion on the typed IR, the evaluator's first step for every function instance
//! and every unit's top level.
//!
//! One rewrite gives every form of a call the same compiled code:
//! - a call of a *known* function (a `MakeFun`: a lambda, a named function, a generic
//!   instance, or a partial application of one) whose arguments are all supplied is replaced
//!   by the function's body, relocated into the caller's frame (`ExprKind::Inlined`): its
//!   slots move past the caller's, its labels past the caller's, its captures become reads of
//!   the places the closure would have captured. A parameter whose argument is a stable value
//!   (a constant, a plain local, a known function, ...) is substituted, so a function passed
//!   to a function (`iter p a`) is known inside it and its calls inline in turn; any other
//!   argument is assigned to the parameter's relocated slot first, in order;
//! - `fold_left f init a` with a known `f` becomes the loop a user would write,
//!   `acc = init; for v in a do acc = f acc v; done`, and `map f a` a `MapLoop` over the
//!   inlined body; the loop compiler then gives them the same chunk kernels and unboxed loops
//!   as hand-written loops (`compile/`).
//!
//! What is not inlined (it is called as before): recursive functions, generators, functions
//! with cells (captured or addressed variables) or making closures that capture, bodies over
//! `MAX_BODY` nodes, and calls nested deeper than `MAX_DEPTH`. Semantics are unchanged: the
//! arguments are evaluated once, in order, before the body; runtime errors are the same
//! faults at the same spans.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::core::ir::{
    Arm, Capture, Expr, ExprKind, FunId, Function, Inlined, InlinedFrame, LabelId, PathStep,
    Pattern, PatternKind, Place, Prim, Slot, Stmt,
};
use crate::core::subst::instantiate;
use crate::syntax::ast::FunKind;
use crate::types::Type;

/// Largest callee body inlined, in IR nodes.
const MAX_BODY: usize = 160;
/// Deepest nesting of inlined calls.
const MAX_DEPTH: usize = 8;
/// Most IR nodes one function (or top level) may gain by inlining.
const MAX_GROWTH: usize = 20_000;
/// Relocated labels start here, far above any label the checker numbers.
const LABEL_BASE: LabelId = 1 << 24;

/// The inliner for one frame (a function instance's, or a unit's top level).
pub struct Inliner<'a> {
    program: &'a super::Program,
    functions: &'a [Option<Arc<Function>>],
    /// The frame size: slots of the original code, then of every inlined body.
    pub n_slots: u32,
    next_label: LabelId,
    /// Functions whose bodies are being expanded (no recursion through inlining).
    stack: Vec<FunId>,
    growth: usize,
    /// How often each local or global is assigned in the code being rewritten (a `val`
    /// holding a function is assigned once).
    assignments: HashMap<Place, usize>,
    /// Variables assigned exactly once, with a known function, by a statement already
    /// rewritten in an enclosing statement list: calls through them are calls of the function.
    known_places: HashMap<Place, Expr>,
}

/// A function value known at compile time: `fun` at `type_args`, applied to `args` so far
/// (all stable).
#[derive(Clone)]
struct Known {
    fun: FunId,
    type_args: Vec<Type>,
    args: Vec<Expr>,
    /// The captures, when they are not the function's own list (a relocated closure).
    captures: Option<Arc<[Capture]>>,
}

impl<'a> Inliner<'a> {
    /// An inliner for code whose frame has `n_slots` slots.
    pub fn new(program: &'a super::Program, n_slots: u32) -> Inliner<'a> {
        Inliner {
            program,
            functions: &program.functions,
            n_slots,
            next_label: LABEL_BASE,
            stack: Vec::new(),
            growth: 0,
            assignments: HashMap::new(),
            known_places: HashMap::new(),
        }
    }

    /// Count the assignments of the code about to be rewritten (a function body, or a unit's
    /// top level together with the functions the unit defines, which may assign its globals).
    pub fn count_assignments<'s>(&mut self, code: impl IntoIterator<Item = &'s Stmt>) {
        for s in code {
            walk_stmt(s, &mut |_| {}, &mut |p| {
                *self.assignments.entry(p).or_insert(0) += 1;
            });
        }
    }

    /// A function instance with its calls inlined (and its frame size grown to match).
    pub fn function(program: &super::Program, f: &Function, id: Option<FunId>) -> Function {
        let mut inliner = Inliner::new(program, f.n_slots);
        inliner.stack.extend(id);
        inliner.count_assignments(&f.body);
        let body = inliner.stmts(&f.body);
        Function {
            body,
            n_slots: inliner.n_slots,
            ..f.clone()
        }
    }

    /// The frame size a unit's top level needs before inlining: one more than its highest slot.
    pub fn top_level_slots(stmts: &[Stmt], result: Option<&Expr>) -> u32 {
        let max = std::cell::Cell::new(0u32);
        let note = |s: Slot| max.set(max.get().max(s + 1));
        let mut expr = |e: &Expr| {
            if let ExprKind::Local(s) | ExprKind::LocalCell(s) = e.kind {
                note(s);
            }
        };
        let mut place = |p: Place| {
            if let Place::Local(s) | Place::LocalCell(s) = p {
                note(s);
            }
        };
        for s in stmts {
            walk_stmt(s, &mut expr, &mut place);
        }
        if let Some(e) = result {
            walk_expr(e, &mut expr, &mut place);
        }
        max.get()
    }

    pub fn stmts(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        let mut known_here: Vec<Place> = Vec::new();
        let mut rewritten = Vec::with_capacity(stmts.len());
        for s in stmts {
            let s = self.stmt(s);
            if let Stmt::Assign(place @ (Place::Local(_) | Place::Global(_)), value) = &s {
                if self.assignments.get(place) == Some(&1) && self.known(value).is_some() {
                    self.known_places.insert(*place, value.clone());
                    known_here.push(*place);
                }
            }
            rewritten.push(s);
        }
        for place in known_here {
            self.known_places.remove(&place);
        }
        rewritten
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Expr(e) => Stmt::Expr(self.expr(e)),
            Stmt::Assign(place, e) => Stmt::Assign(*place, self.expr(e)),
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => Stmt::Store {
                place: *place,
                root_ty: root_ty.clone(),
                path: self.path(path),
                value: self.expr(value),
            },
            Stmt::StoreAt { pointer, value } => Stmt::StoreAt {
                pointer: self.expr(pointer),
                value: self.expr(value),
            },
            Stmt::If(c, a, b) => Stmt::If(self.expr(c), self.stmts(a), self.stmts(b)),
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => Stmt::While {
                label: *label,
                cond: self.expr(cond),
                until: *until,
                body: self.stmts(body),
            },
            Stmt::Loop { label, body } => Stmt::Loop {
                label: *label,
                body: self.stmts(body),
            },
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => Stmt::ForRange {
                label: *label,
                var: *var,
                var_ty: *var_ty,
                from: self.expr(from),
                to: self.expr(to),
                kind: *kind,
                body: self.stmts(body),
            },
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => Stmt::ForCodes {
                label: *label,
                var: *var,
                ty: ty.clone(),
                body: self.stmts(body),
            },
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => Stmt::ForArray {
                label: *label,
                var: *var,
                array: self.expr(array),
                body: self.stmts(body),
            },
            Stmt::Break(l) => Stmt::Break(*l),
            Stmt::Continue(l) => Stmt::Continue(*l),
            Stmt::Return(e) => Stmt::Return(e.as_ref().map(|e| self.expr(e))),
            Stmt::Match(x, arms) => Stmt::Match(
                self.expr(x),
                arms.iter()
                    .map(|arm| Arm {
                        patterns: arm.patterns.clone(),
                        guard: arm.guard.as_ref().map(|g| self.expr(g)),
                        body: self.stmts(&arm.body),
                    })
                    .collect(),
            ),
            Stmt::Block(ss) => Stmt::Block(self.stmts(ss)),
        }
    }

    fn path(&mut self, path: &[PathStep]) -> Vec<PathStep> {
        path.iter()
            .map(|step| match step {
                PathStep::Field(i) => PathStep::Field(*i),
                PathStep::Index(e, mode) => PathStep::Index(self.expr(e), *mode),
            })
            .collect()
    }

    fn exprs(&mut self, es: &[Expr]) -> Vec<Expr> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    /// `e` with its calls of known functions inlined, innermost first.
    pub fn expr(&mut self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Call { func, args } => {
                let func = self.expr(func);
                let args = self.exprs(args);
                if let Some(inlined) = self.call(&func, &args, &e.ty, e.span) {
                    return inlined;
                }
                ExprKind::Call {
                    func: Box::new(func),
                    args,
                }
            }
            ExprKind::Prim(prim, args) => {
                let args = self.exprs(args);
                if let Some(lowered) = self.lower_prim(prim, &args, &e.ty, e) {
                    return lowered;
                }
                ExprKind::Prim(prim.clone(), args)
            }
            ExprKind::Tuple(es) => ExprKind::Tuple(self.exprs(es)),
            ExprKind::Array(es) => ExprKind::Array(self.exprs(es)),
            ExprKind::CTuple(es) => ExprKind::CTuple(self.exprs(es)),
            ExprKind::Field(x, i) => ExprKind::Field(Box::new(self.expr(x)), *i),
            ExprKind::CField(x, i) => ExprKind::CField(Box::new(self.expr(x)), *i),
            ExprKind::Index { array, index, mode } => ExprKind::Index {
                array: Box::new(self.expr(array)),
                index: Box::new(self.expr(index)),
                mode: *mode,
            },
            ExprKind::Inject { tag, arg } => ExprKind::Inject {
                tag: *tag,
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::CInject { tag, arg } => ExprKind::CInject {
                tag: *tag,
                arg: Box::new(self.expr(arg)),
            },
            ExprKind::Coerce(k, x) => ExprKind::Coerce(*k, Box::new(self.expr(x))),
            ExprKind::If(c, a, b) => ExprKind::If(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            ),
            ExprKind::And(a, b) => ExprKind::And(Box::new(self.expr(a)), Box::new(self.expr(b))),
            ExprKind::Or(a, b) => ExprKind::Or(Box::new(self.expr(a)), Box::new(self.expr(b))),
            ExprKind::Match(x, arms) => ExprKind::Match(
                Box::new(self.expr(x)),
                arms.iter()
                    .map(|arm| Arm {
                        patterns: arm.patterns.clone(),
                        guard: arm.guard.as_ref().map(|g| self.expr(g)),
                        body: self.expr(&arm.body),
                    })
                    .collect(),
            ),
            ExprKind::PtrProject { pointer, path } => ExprKind::PtrProject {
                pointer: Box::new(self.expr(pointer)),
                path: self.path(path),
            },
            ExprKind::AddrOf {
                place,
                root_ty,
                path,
            } => ExprKind::AddrOf {
                place: *place,
                root_ty: root_ty.clone(),
                path: self.path(path),
            },
            ExprKind::Deref(x) => ExprKind::Deref(Box::new(self.expr(x))),
            ExprKind::PtrCast(x) => ExprKind::PtrCast(Box::new(self.expr(x))),
            ExprKind::Inlined(inlined) => ExprKind::Inlined(Box::new(Inlined {
                frame: inlined.frame.clone(),
                call: inlined.call,
                stmts: self.stmts(&inlined.stmts),
                result: inlined.result.as_ref().map(|r| self.expr(r)),
            })),
            ExprKind::MapLoop { var, array, body } => ExprKind::MapLoop {
                var: *var,
                array: Box::new(self.expr(array)),
                body: Box::new(self.expr(body)),
            },
            ExprKind::Const(_)
            | ExprKind::Zero
            | ExprKind::Local(_)
            | ExprKind::LocalCell(_)
            | ExprKind::Global(_)
            | ExprKind::Capture(_)
            | ExprKind::CaptureCell(_)
            | ExprKind::MakeFun { .. }
            | ExprKind::Closure { .. }
            | ExprKind::TypeSize(_) => return e.clone(),
        };
        Expr {
            kind,
            ty: e.ty.clone(),
            span: e.span,
        }
    }

    /// The function value `e` denotes when it is known here (its arguments so far stable).
    fn known(&self, e: &Expr) -> Option<Known> {
        match &e.kind {
            ExprKind::Local(s) => self.known(self.known_places.get(&Place::Local(*s))?),
            ExprKind::Global(s) => self.known(self.known_places.get(&Place::Global(*s))?),
            ExprKind::MakeFun { fun, type_args } => Some(Known {
                fun: *fun,
                type_args: type_args.clone(),
                args: Vec::new(),
                captures: None,
            }),
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => Some(Known {
                fun: *fun,
                type_args: type_args.clone(),
                args: Vec::new(),
                captures: Some(captures.clone()),
            }),
            ExprKind::Call { func, args } => {
                let mut known = self.known(func)?;
                if !args.iter().all(|a| stable(a, false)) {
                    return None;
                }
                known.args.extend(args.iter().cloned());
                let groups = self
                    .functions
                    .get(known.fun as usize)?
                    .as_ref()?
                    .params
                    .len();
                (known.args.len() < groups).then_some(known)
            }
            _ => None,
        }
    }

    /// The callee instantiated, when its body may be inlined.
    fn inlinable(&self, known: &Known) -> Option<Function> {
        if self.program.no_inline
            || self.stack.len() >= MAX_DEPTH
            || self.stack.contains(&known.fun)
            || self.growth >= MAX_GROWTH
        {
            return None;
        }
        let generic = self.functions.get(known.fun as usize)?.as_ref()?;
        if generic.kind == FunKind::Gen
            || !generic.cell_slots.is_empty()
            || generic.type_params.len() != known.type_args.len()
        {
            return None;
        }
        let mut size = 0usize;
        let refused = std::cell::Cell::new(false);
        for s in &generic.body {
            walk_stmt(
                s,
                &mut |e: &Expr| {
                    size += 1;
                    match &e.kind {
                        // A closure of the function itself: recursion, never inlined.
                        ExprKind::MakeFun { fun, .. } | ExprKind::Closure { fun, .. }
                            if *fun == known.fun || self.functions.get(*fun as usize).is_none() =>
                        {
                            refused.set(true)
                        }
                        ExprKind::LocalCell(_) | ExprKind::AddrOf { .. } => refused.set(true),
                        _ => {}
                    }
                },
                &mut |p| {
                    if matches!(p, Place::LocalCell(_)) {
                        refused.set(true);
                    }
                },
            );
        }
        if refused.get() || size > MAX_BODY {
            return None;
        }
        Some(if generic.type_params.is_empty() {
            (**generic).clone()
        } else {
            instantiate(generic, &known.type_args)
        })
    }

    /// Inline the call of `func` to `args` (of type `ty`), or `None` to keep the call.
    fn call(
        &mut self,
        func: &Expr,
        args: &[Expr],
        ty: &Type,
        span: crate::syntax::span::Span,
    ) -> Option<Expr> {
        let through = match func.kind {
            ExprKind::Local(s) => self.known_places.get(&Place::Local(s)),
            ExprKind::Global(s) => self.known_places.get(&Place::Global(s)),
            _ => None,
        };
        if let Some(value) = through {
            let value = value.clone();
            return self.call(&value, args, ty, span);
        }
        let known = match &func.kind {
            ExprKind::MakeFun { .. } | ExprKind::Closure { .. } => self.known(func)?,
            ExprKind::Call {
                func: inner,
                args: first,
            } => {
                let mut known = self.known(inner)?;
                if !first.iter().all(|a| stable(a, false)) {
                    return None;
                }
                known.args.extend(first.iter().cloned());
                known
            }
            _ => return None,
        };
        let callee = self.inlinable(&known)?;
        let groups = callee.params.len();
        let mut all: Vec<Expr> = known.args.clone();
        all.extend(args.iter().cloned());
        if all.len() < groups {
            return None;
        }
        let rest = all.split_off(groups);
        // The closure would capture from this frame, where its body now runs.
        let captures = match &known.captures {
            Some(captures) => captures.to_vec(),
            None => callee.captures.clone(),
        };
        let body = self.expand(&callee, known.fun, &captures, all, span)?;
        if rest.is_empty() {
            return Some(Expr {
                ty: ty.clone(),
                ..body
            });
        }
        Some(Expr {
            kind: ExprKind::Call {
                func: Box::new(body),
                args: rest,
            },
            ty: ty.clone(),
            span,
        })
    }

    /// The body of `callee` (already instantiated) applied to one argument per group, relocated
    /// into this frame; its own calls inlined in turn.
    fn expand(
        &mut self,
        callee: &Function,
        id: FunId,
        captures: &[Capture],
        args: Vec<Expr>,
        span: crate::syntax::span::Span,
    ) -> Option<Expr> {
        let base = self.n_slots;
        let mut relocation = Relocation {
            functions: self.functions,
            base,
            captures,
            params: HashMap::new(),
            label_offset: self.next_label,
        };
        let mut written = written_slots(&callee.body);
        written.extend(self.captured_slots(&callee.body));
        let mut pre: Vec<Stmt> = Vec::new();
        for (pattern, arg) in callee.params.iter().zip(args) {
            bind(
                &mut relocation,
                pattern,
                arg,
                &written,
                callee.pure_,
                &mut pre,
            )?;
        }
        // A body ending in its only `return e` is its statements, then `e`.
        let (stmts, result) = match callee.body.as_slice() {
            [first @ .., Stmt::Return(Some(e))] if !has_return(first) => {
                (relocation.stmts(first)?, Some(relocation.expr(e)?))
            }
            body => (relocation.stmts(body)?, None),
        };
        let mut labels = 0;
        for s in &callee.body {
            max_label(s, &mut labels);
        }
        self.next_label = self.next_label.saturating_add(labels + 1);
        self.n_slots = base + callee.n_slots;
        self.growth += callee.body.iter().map(stmt_size).sum::<usize>();
        self.stack.push(id);
        let stmts = self.stmts(&stmts);
        let result = result.map(|r| self.expr(&r));
        self.stack.pop();
        pre.extend(stmts);
        let ret = callee.ret.clone();
        Some(Expr {
            kind: ExprKind::Inlined(Box::new(Inlined {
                frame: Some(InlinedFrame {
                    name: Arc::from(callee.name.as_str()),
                    unit: self.program.unit_of(id),
                }),
                call: span,
                stmts: pre,
                result,
            })),
            ty: ret,
            span,
        })
    }

    /// The local slots of a body that closures made in it capture (their parameters among
    /// them must stay in their slots to be captured).
    fn captured_slots(&self, body: &[Stmt]) -> Vec<Slot> {
        let mut captured = Vec::new();
        for s in body {
            walk_stmt(
                s,
                &mut |e: &Expr| {
                    let captures: Vec<Capture> = match &e.kind {
                        ExprKind::MakeFun { fun, .. } => self
                            .functions
                            .get(*fun as usize)
                            .and_then(|f| f.as_ref())
                            .map(|f| f.captures.clone())
                            .unwrap_or_default(),
                        ExprKind::Closure { captures, .. } => captures.to_vec(),
                        _ => Vec::new(),
                    };
                    for capture in captures {
                        if let Capture::Slot(s) | Capture::Cell(s) = capture {
                            captured.push(s);
                        }
                    }
                },
                &mut |_| {},
            );
        }
        captured
    }

    fn fresh_slot(&mut self) -> Slot {
        self.n_slots += 1;
        self.n_slots - 1
    }

    /// Library calls whose function argument is known, as loops (`fold_left`, `map`).
    fn lower_prim(&mut self, prim: &Prim, args: &[Expr], ty: &Type, e: &Expr) -> Option<Expr> {
        match (prim, args) {
            (Prim::FoldLeft, [f, init, array]) => {
                self.known_function_arg(f)?;
                let Type::Array(elem, _) = &array.ty else {
                    return None;
                };
                let acc = self.fresh_slot();
                let var = self.fresh_slot();
                let local = |s: Slot, ty: &Type| Expr {
                    kind: ExprKind::Local(s),
                    ty: ty.clone(),
                    span: e.span,
                };
                let step = self.call(
                    f,
                    &[local(acc, &init.ty), local(var, elem)],
                    &init.ty,
                    e.span,
                )?;
                let label = self.next_label;
                self.next_label += 1;
                let stmts = vec![
                    Stmt::Assign(Place::Local(acc), init.clone()),
                    Stmt::ForArray {
                        label,
                        var: Place::Local(var),
                        array: array.clone(),
                        body: vec![Stmt::Assign(Place::Local(acc), step)],
                    },
                ];
                Some(Expr {
                    kind: ExprKind::Inlined(Box::new(Inlined {
                        frame: None,
                        call: e.span,
                        stmts,
                        result: Some(local(acc, ty)),
                    })),
                    ty: ty.clone(),
                    span: e.span,
                })
            }
            (Prim::Map, [f, array]) => {
                self.known_function_arg(f)?;
                let Type::Array(elem, _) = &array.ty else {
                    return None;
                };
                let Type::Array(out_elem, _) = ty else {
                    return None;
                };
                let var = self.fresh_slot();
                let element = Expr {
                    kind: ExprKind::Local(var),
                    ty: (**elem).clone(),
                    span: e.span,
                };
                let body = self.call(f, &[element], out_elem, e.span)?;
                Some(Expr {
                    kind: ExprKind::MapLoop {
                        var,
                        array: Box::new(array.clone()),
                        body: Box::new(body),
                    },
                    ty: ty.clone(),
                    span: e.span,
                })
            }
            _ => None,
        }
    }

    fn known_function_arg(&self, f: &Expr) -> Option<Known> {
        let known = self.known(f)?;
        self.inlinable(&known)?;
        Some(known)
    }
}

/// Bind a parameter pattern to its argument: substitute a stable argument for a parameter
/// the body never assigns, otherwise assign the relocated slot (a statement of `pre`).
fn bind(
    relocation: &mut Relocation<'_>,
    pattern: &Pattern,
    arg: Expr,
    written: &HashSet<Slot>,
    pure_: bool,
    pre: &mut Vec<Stmt>,
) -> Option<()> {
    match (&pattern.kind, &arg.kind) {
        (PatternKind::Bind(Place::Local(s)), _) => {
            if !written.contains(s) && stable(&arg, pure_) {
                relocation.params.insert(*s, arg);
            } else {
                pre.push(Stmt::Assign(Place::Local(s + relocation.base), arg));
            }
            Some(())
        }
        (PatternKind::Wildcard, _) => {
            if !stable(&arg, true) {
                pre.push(Stmt::Expr(arg));
            }
            Some(())
        }
        // A tuple literal, or an array literal over a unitsum (`(s, i)` of two longs), binds
        // component by component: nothing is built.
        (PatternKind::Tuple(parts), ExprKind::Tuple(items) | ExprKind::Array(items))
            if parts.len() == items.len() =>
        {
            for (part, item) in parts.iter().zip(items.iter().cloned()) {
                bind(relocation, part, item, written, pure_, pre)?;
            }
            Some(())
        }
        (PatternKind::Tuple(_), _) => {
            let pattern = relocation.pattern(pattern)?;
            pre.push(Stmt::Match(
                arg,
                vec![Arm {
                    patterns: vec![pattern],
                    guard: None,
                    body: Vec::new(),
                }],
            ));
            Some(())
        }
        _ => None,
    }
}

/// Can `e` be evaluated any number of times, later, with the same value and no effect or
/// fault? `pure_`: the code in between writes no global and no cell.
fn stable(e: &Expr, pure_: bool) -> bool {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Capture(_) | ExprKind::TypeSize(_) => {
            true
        }
        ExprKind::MakeFun { .. } | ExprKind::Closure { .. } => true,
        ExprKind::Global(_) | ExprKind::LocalCell(_) | ExprKind::CaptureCell(_) => pure_,
        ExprKind::Index {
            array,
            index,
            mode: crate::core::ir::IndexMode::Code,
        } => pure_ && stable(array, pure_) && stable(index, pure_),
        ExprKind::Call { func, args } => {
            matches!(
                func.kind,
                ExprKind::MakeFun { .. } | ExprKind::Closure { .. }
            ) && args.iter().all(|a| stable(a, pure_))
        }
        _ => false,
    }
}

/// The local slots a body assigns (parameters among them are not substituted).
fn written_slots(body: &[Stmt]) -> HashSet<Slot> {
    let mut written = HashSet::new();
    for s in body {
        walk_stmt(s, &mut |_| {}, &mut |p| {
            if let Place::Local(s) = p {
                written.insert(s);
            }
        });
    }
    written
}

/// Moves a callee's body into the caller's frame.
struct Relocation<'a> {
    functions: &'a [Option<Arc<Function>>],
    base: Slot,
    /// How the callee's closure would capture from this frame.
    captures: &'a [Capture],
    /// Parameters replaced by their (stable) arguments, in the callee's numbering.
    params: HashMap<Slot, Expr>,
    label_offset: LabelId,
}

impl Relocation<'_> {
    fn label(&self, l: LabelId) -> LabelId {
        l + self.label_offset
    }

    fn place(&self, p: Place) -> Option<Place> {
        match p {
            Place::Local(s) if !self.params.contains_key(&s) => Some(Place::Local(s + self.base)),
            Place::Local(_) | Place::LocalCell(_) => None,
            Place::Global(g) => Some(Place::Global(g)),
            Place::CaptureCell(i) => match self.captures.get(i as usize)? {
                Capture::Cell(s) => Some(Place::LocalCell(*s)),
                Capture::Outer(j) => Some(Place::CaptureCell(*j)),
                Capture::Slot(_) => None,
            },
        }
    }

    fn exprs(&self, es: &[Expr]) -> Option<Vec<Expr>> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    /// The captures of a closure made in the callee's body, from this frame: its slots moved,
    /// the callee's own captures replaced by what they capture here.
    fn captures_of(&self, captures: &[Capture]) -> Option<Arc<[Capture]>> {
        captures
            .iter()
            .map(|capture| match capture {
                Capture::Slot(s) if !self.params.contains_key(s) => {
                    Some(Capture::Slot(s + self.base))
                }
                Capture::Slot(_) | Capture::Cell(_) => None,
                Capture::Outer(i) => self.captures.get(*i as usize).copied(),
            })
            .collect()
    }

    fn boxed(&self, e: &Expr) -> Option<Box<Expr>> {
        self.expr(e).map(Box::new)
    }

    fn expr(&self, e: &Expr) -> Option<Expr> {
        let kind = match &e.kind {
            // The argument, with the span of the parameter's use (where a fault of the
            // expression the use is in points).
            ExprKind::Local(s) => match self.params.get(s) {
                Some(arg) => {
                    return Some(Expr {
                        span: e.span,
                        ..arg.clone()
                    })
                }
                None => ExprKind::Local(s + self.base),
            },
            ExprKind::LocalCell(_) => return None,
            ExprKind::Capture(i) => match self.captures.get(*i as usize)? {
                Capture::Slot(s) => ExprKind::Local(*s),
                Capture::Outer(j) => ExprKind::Capture(*j),
                Capture::Cell(_) => return None,
            },
            ExprKind::CaptureCell(i) => match self.captures.get(*i as usize)? {
                Capture::Cell(s) => ExprKind::LocalCell(*s),
                Capture::Outer(j) => ExprKind::CaptureCell(*j),
                Capture::Slot(_) => return None,
            },
            ExprKind::MakeFun { fun, type_args } => {
                let own = self.functions.get(*fun as usize)?.as_ref()?;
                if own.captures.is_empty() {
                    e.kind.clone()
                } else {
                    ExprKind::Closure {
                        fun: *fun,
                        type_args: type_args.clone(),
                        captures: self.captures_of(&own.captures)?,
                    }
                }
            }
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => ExprKind::Closure {
                fun: *fun,
                type_args: type_args.clone(),
                captures: self.captures_of(captures)?,
            },
            ExprKind::Const(_) | ExprKind::Zero | ExprKind::Global(_) | ExprKind::TypeSize(_) => {
                e.kind.clone()
            }
            ExprKind::Call { func, args } => ExprKind::Call {
                func: self.boxed(func)?,
                args: self.exprs(args)?,
            },
            ExprKind::Prim(p, args) => ExprKind::Prim(p.clone(), self.exprs(args)?),
            ExprKind::Tuple(es) => ExprKind::Tuple(self.exprs(es)?),
            ExprKind::Array(es) => ExprKind::Array(self.exprs(es)?),
            ExprKind::CTuple(es) => ExprKind::CTuple(self.exprs(es)?),
            ExprKind::Field(x, i) => ExprKind::Field(self.boxed(x)?, *i),
            ExprKind::CField(x, i) => ExprKind::CField(self.boxed(x)?, *i),
            ExprKind::Index { array, index, mode } => ExprKind::Index {
                array: self.boxed(array)?,
                index: self.boxed(index)?,
                mode: *mode,
            },
            ExprKind::Inject { tag, arg } => ExprKind::Inject {
                tag: *tag,
                arg: self.boxed(arg)?,
            },
            ExprKind::CInject { tag, arg } => ExprKind::CInject {
                tag: *tag,
                arg: self.boxed(arg)?,
            },
            ExprKind::Coerce(k, x) => ExprKind::Coerce(*k, self.boxed(x)?),
            ExprKind::If(c, a, b) => ExprKind::If(self.boxed(c)?, self.boxed(a)?, self.boxed(b)?),
            ExprKind::And(a, b) => ExprKind::And(self.boxed(a)?, self.boxed(b)?),
            ExprKind::Or(a, b) => ExprKind::Or(self.boxed(a)?, self.boxed(b)?),
            ExprKind::Match(x, arms) => ExprKind::Match(
                self.boxed(x)?,
                arms.iter()
                    .map(|arm| self.arm(arm, |b| self.expr(b)))
                    .collect::<Option<_>>()?,
            ),
            ExprKind::Inlined(inlined) => ExprKind::Inlined(Box::new(Inlined {
                frame: inlined.frame.clone(),
                call: inlined.call,
                stmts: self.stmts(&inlined.stmts)?,
                result: match &inlined.result {
                    Some(r) => Some(self.expr(r)?),
                    None => None,
                },
            })),
            ExprKind::MapLoop { var, array, body } => ExprKind::MapLoop {
                var: var + self.base,
                array: self.boxed(array)?,
                body: self.boxed(body)?,
            },
            // Pointers name places through paths the checker resolved: not relocated.
            ExprKind::AddrOf { .. }
            | ExprKind::PtrProject { .. }
            | ExprKind::Deref(_)
            | ExprKind::PtrCast(_) => return None,
        };
        Some(Expr {
            kind,
            ty: e.ty.clone(),
            span: e.span,
        })
    }

    fn path(&self, path: &[PathStep]) -> Option<Vec<PathStep>> {
        path.iter()
            .map(|step| match step {
                PathStep::Field(i) => Some(PathStep::Field(*i)),
                PathStep::Index(e, mode) => Some(PathStep::Index(self.expr(e)?, *mode)),
            })
            .collect()
    }

    fn pattern(&self, p: &Pattern) -> Option<Pattern> {
        let kind = match &p.kind {
            PatternKind::Bind(place) => PatternKind::Bind(self.place(*place)?),
            PatternKind::Tuple(ps) => {
                PatternKind::Tuple(ps.iter().map(|q| self.pattern(q)).collect::<Option<_>>()?)
            }
            PatternKind::Inject { tag, arg } => PatternKind::Inject {
                tag: *tag,
                arg: match arg {
                    Some(a) => Some(Box::new(self.pattern(a)?)),
                    None => None,
                },
            },
            PatternKind::CInject { tag, arg } => PatternKind::CInject {
                tag: *tag,
                arg: match arg {
                    Some(a) => Some(Box::new(self.pattern(a)?)),
                    None => None,
                },
            },
            other => other.clone(),
        };
        Some(Pattern {
            kind,
            ty: p.ty.clone(),
            span: p.span,
        })
    }

    fn arm<B, C>(&self, arm: &Arm<B>, body: impl Fn(&B) -> Option<C>) -> Option<Arm<C>> {
        Some(Arm {
            patterns: arm
                .patterns
                .iter()
                .map(|p| self.pattern(p))
                .collect::<Option<_>>()?,
            guard: match &arm.guard {
                Some(g) => Some(self.expr(g)?),
                None => None,
            },
            body: body(&arm.body)?,
        })
    }

    fn stmts(&self, ss: &[Stmt]) -> Option<Vec<Stmt>> {
        ss.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Option<Stmt> {
        Some(match s {
            Stmt::Expr(e) => Stmt::Expr(self.expr(e)?),
            Stmt::Assign(place, e) => Stmt::Assign(self.place(*place)?, self.expr(e)?),
            Stmt::Store {
                place,
                root_ty,
                path,
                value,
            } => Stmt::Store {
                place: self.place(*place)?,
                root_ty: root_ty.clone(),
                path: self.path(path)?,
                value: self.expr(value)?,
            },
            Stmt::StoreAt { .. } => return None,
            Stmt::If(c, a, b) => Stmt::If(self.expr(c)?, self.stmts(a)?, self.stmts(b)?),
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => Stmt::While {
                label: self.label(*label),
                cond: self.expr(cond)?,
                until: *until,
                body: self.stmts(body)?,
            },
            Stmt::Loop { label, body } => Stmt::Loop {
                label: self.label(*label),
                body: self.stmts(body)?,
            },
            Stmt::ForRange {
                label,
                var,
                var_ty,
                from,
                to,
                kind,
                body,
            } => Stmt::ForRange {
                label: self.label(*label),
                var: self.place(*var)?,
                var_ty: *var_ty,
                from: self.expr(from)?,
                to: self.expr(to)?,
                kind: *kind,
                body: self.stmts(body)?,
            },
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => Stmt::ForCodes {
                label: self.label(*label),
                var: self.place(*var)?,
                ty: ty.clone(),
                body: self.stmts(body)?,
            },
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => Stmt::ForArray {
                label: self.label(*label),
                var: self.place(*var)?,
                array: self.expr(array)?,
                body: self.stmts(body)?,
            },
            Stmt::Break(l) => Stmt::Break(self.label(*l)),
            Stmt::Continue(l) => Stmt::Continue(self.label(*l)),
            Stmt::Return(e) => Stmt::Return(match e {
                Some(e) => Some(self.expr(e)?),
                None => None,
            }),
            Stmt::Match(x, arms) => Stmt::Match(
                self.expr(x)?,
                arms.iter()
                    .map(|arm| self.arm(arm, |b| self.stmts(b)))
                    .collect::<Option<_>>()?,
            ),
            Stmt::Block(ss) => Stmt::Block(self.stmts(ss)?),
        })
    }
}

/// Does a statement list contain a `return` (outside nested functions, which the IR keeps
/// apart)?
pub fn has_return(stmts: &[Stmt]) -> bool {
    let mut found = false;
    for s in stmts {
        walk_stmt_shallow(s, &mut |s| {
            if matches!(s, Stmt::Return(_)) {
                found = true;
            }
        });
    }
    found
}

/// Visit `s` and every statement nested in it (not those inside inlined expressions).
fn walk_stmt_shallow(s: &Stmt, visit: &mut dyn FnMut(&Stmt)) {
    visit(s);
    let nested = |ss: &[Stmt], visit: &mut dyn FnMut(&Stmt)| {
        for s in ss {
            walk_stmt_shallow(s, visit);
        }
    };
    match s {
        Stmt::If(_, a, b) => {
            nested(a, visit);
            nested(b, visit);
        }
        Stmt::While { body, .. }
        | Stmt::Loop { body, .. }
        | Stmt::ForRange { body, .. }
        | Stmt::ForCodes { body, .. }
        | Stmt::ForArray { body, .. }
        | Stmt::Block(body) => nested(body, visit),
        Stmt::Match(_, arms) => {
            for arm in arms {
                nested(&arm.body, visit);
            }
        }
        _ => {}
    }
}

fn max_label(s: &Stmt, max: &mut LabelId) {
    walk_stmt_shallow(s, &mut |s| match s {
        Stmt::While { label, .. }
        | Stmt::Loop { label, .. }
        | Stmt::ForRange { label, .. }
        | Stmt::ForCodes { label, .. }
        | Stmt::ForArray { label, .. } => *max = (*max).max(*label),
        _ => {}
    });
}

fn stmt_size(s: &Stmt) -> usize {
    let mut n = 0;
    walk_stmt(s, &mut |_| n += 1, &mut |_| {});
    n
}

/// Visit every expression of `s` (pre-order) and every place it assigns or binds.
pub fn walk_stmt(s: &Stmt, expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)) {
    let stmts = |ss: &[Stmt], expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)| {
        for s in ss {
            walk_stmt(s, expr, place);
        }
    };
    match s {
        Stmt::Expr(e) => walk_expr(e, expr, place),
        Stmt::Assign(p, e) => {
            place(*p);
            walk_expr(e, expr, place);
        }
        Stmt::Store {
            place: p,
            path,
            value,
            ..
        } => {
            place(*p);
            walk_path(path, expr, place);
            walk_expr(value, expr, place);
        }
        Stmt::StoreAt { pointer, value } => {
            walk_expr(pointer, expr, place);
            walk_expr(value, expr, place);
        }
        Stmt::If(c, a, b) => {
            walk_expr(c, expr, place);
            stmts(a, expr, place);
            stmts(b, expr, place);
        }
        Stmt::While { cond, body, .. } => {
            walk_expr(cond, expr, place);
            stmts(body, expr, place);
        }
        Stmt::Loop { body, .. } | Stmt::Block(body) => stmts(body, expr, place),
        Stmt::ForRange {
            var,
            from,
            to,
            body,
            ..
        } => {
            place(*var);
            walk_expr(from, expr, place);
            walk_expr(to, expr, place);
            stmts(body, expr, place);
        }
        Stmt::ForCodes { var, body, .. } => {
            place(*var);
            stmts(body, expr, place);
        }
        Stmt::ForArray {
            var, array, body, ..
        } => {
            place(*var);
            walk_expr(array, expr, place);
            stmts(body, expr, place);
        }
        Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None) => {}
        Stmt::Return(Some(e)) => walk_expr(e, expr, place),
        Stmt::Match(x, arms) => {
            walk_expr(x, expr, place);
            for arm in arms {
                walk_arm_patterns(&arm.patterns, place);
                if let Some(g) = &arm.guard {
                    walk_expr(g, expr, place);
                }
                stmts(&arm.body, expr, place);
            }
        }
    }
}

fn walk_arm_patterns(patterns: &[Pattern], place: &mut dyn FnMut(Place)) {
    fn pattern(p: &Pattern, place: &mut dyn FnMut(Place)) {
        match &p.kind {
            PatternKind::Bind(p) => place(*p),
            PatternKind::Tuple(ps) => ps.iter().for_each(|q| pattern(q, place)),
            PatternKind::Inject { arg: Some(a), .. }
            | PatternKind::CInject { arg: Some(a), .. } => pattern(a, place),
            _ => {}
        }
    }
    for p in patterns {
        pattern(p, place);
    }
}

fn walk_path(path: &[PathStep], expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)) {
    for step in path {
        if let PathStep::Index(e, _) = step {
            walk_expr(e, expr, place);
        }
    }
}

/// Visit every expression inside `e` (pre-order) and every place bound inside it.
pub fn walk_expr(e: &Expr, expr: &mut dyn FnMut(&Expr), place: &mut dyn FnMut(Place)) {
    expr(e);
    match &e.kind {
        ExprKind::Call { func, args } => {
            walk_expr(func, expr, place);
            args.iter().for_each(|a| walk_expr(a, expr, place));
        }
        ExprKind::Prim(_, args)
        | ExprKind::Tuple(args)
        | ExprKind::Array(args)
        | ExprKind::CTuple(args) => args.iter().for_each(|a| walk_expr(a, expr, place)),
        ExprKind::Field(x, _)
        | ExprKind::CField(x, _)
        | ExprKind::Coerce(_, x)
        | ExprKind::Deref(x)
        | ExprKind::PtrCast(x)
        | ExprKind::Inject { arg: x, .. }
        | ExprKind::CInject { arg: x, .. } => walk_expr(x, expr, place),
        ExprKind::Index { array, index, .. } => {
            walk_expr(array, expr, place);
            walk_expr(index, expr, place);
        }
        ExprKind::If(a, b, c) => {
            walk_expr(a, expr, place);
            walk_expr(b, expr, place);
            walk_expr(c, expr, place);
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            walk_expr(a, expr, place);
            walk_expr(b, expr, place);
        }
        ExprKind::Match(x, arms) => {
            walk_expr(x, expr, place);
            for arm in arms {
                walk_arm_patterns(&arm.patterns, place);
                if let Some(g) = &arm.guard {
                    walk_expr(g, expr, place);
                }
                walk_expr(&arm.body, expr, place);
            }
        }
        ExprKind::AddrOf { path, .. } => walk_path(path, expr, place),
        ExprKind::PtrProject { pointer, path } => {
            walk_expr(pointer, expr, place);
            walk_path(path, expr, place);
        }
        ExprKind::Inlined(inlined) => {
            for s in &inlined.stmts {
                walk_stmt(s, expr, place);
            }
            if let Some(r) = &inlined.result {
                walk_expr(r, expr, place);
            }
        }
        ExprKind::MapLoop { var, array, body } => {
            place(Place::Local(*var));
            walk_expr(array, expr, place);
            walk_expr(body, expr, place);
        }
        ExprKind::Const(_)
        | ExprKind::Zero
        | ExprKind::Local(_)
        | ExprKind::LocalCell(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::CaptureCell(_)
        | ExprKind::MakeFun { .. }
        | ExprKind::Closure { .. }
        | ExprKind::TypeSize(_) => {}
    }
}
