//! Inline expansion on the typed IR: the pass between the checker and the evaluator's
//! compiler, run on every unit (its top level and each function it defines) before it is
//! compiled. `inline_unit` is the pass; `core::print` shows its result (`--dump-ir=inlined`).
//!
//! One rewrite gives every form of a call the same compiled code:
//! - a call of a *known* function (a `MakeFun`: a lambda, a named function, a generic
//!   instance, or a partial application of one) whose arguments are all supplied is replaced
//!   by the function's body, relocated into the caller's frame (`ExprKind::Inlined`): its
//!   slots move past the caller's, its labels past the caller's, its captures become reads of
//!   the places the closure would have captured. A parameter whose argument is a stable value
//!   (a constant, a plain local, a known function, a global or cell when neither the body nor
//!   the arguments assign one, store through a pointer or call anything, ...) is substituted, so a function passed
//!   to a function (`iter p a`) is known inside it and its calls inline in turn; any other
//!   argument is assigned to the parameter's relocated slot first, in order;
//! - `fold_left f init a` with a known `f` becomes the loop a user would write,
//!   `acc = init; for v in a do acc = f acc v; done`, and `map f a` (`filter f a`) a `MapLoop` over the
//!   inlined body; the back ends then compile them as the hand-written loops (native code,
//!   `eval/native/lower/map.rs`, and on rayon workers where the body is pure). `map f a`
//!   (`filter f a`) of a function value is a `MapLoop` calling the value, taken once before
//!   it, as the library's loop would.
//!
//! Callees are read as checked (`Callees::functions`, not already inlined), so what is inlined
//! into a function does not depend on the order in which units or instances are compiled; a
//! generic function is inlined once, and its instances are made from the result by
//! substitution (`core::subst`).
//!
//! What is not inlined (it is called as before): recursive functions, generators, functions
//! with cells (captured or addressed variables), taking the address of a variable, or making
//! closures that capture, bodies over `MAX_BODY` nodes, calls nested deeper than
//! `MAX_DEPTH`, and a call outside any loop of a function with a loop, unless it is given a
//! function (its loop costs the same either way; a copy of it is only more code to compile).
//! A body that only uses pointers it is given (`*p.i`, `p.i <- v`) is inlined. A local
//! holding an address (`val p = bs.i;`) is read as the address where nothing assigns what it
//! is made of (`inline/addresses.rs`). Semantics are unchanged: the arguments are evaluated
//! once, in order, before the body; runtime errors are the same faults at the same spans.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::Arc;

use crate::core::ir::{
    Arm, Capture, Expr, ExprKind, FunId, Function, IndexMode, Inlined, InlinedFrame, LabelId,
    PathStep, Pattern, PatternKind, Place, Slot, Stmt, Unit,
};
use crate::core::subst::instantiate;
use crate::core::visit::{
    each_in_expr, each_in_stmts, infallible, walk_expr_fold, walk_stmt, walk_stmt_fold, walk_stmts,
    Fold, Visit,
};
use crate::syntax::ast::FunKind;
use crate::types::Type;

/// What the pass reads of the session: the functions a unit can call and where they come from.
pub trait Callees {
    /// The function table as checked, indexed by `FunId` (this unit's functions included);
    /// `None` for a number not in use.
    fn functions(&self) -> &[Option<Arc<Function>>];
    /// The evaluator's number of the unit that defined `fun` (whose source holds its spans).
    fn unit_of(&self, fun: FunId) -> u32;
}

/// A unit after inlining.
#[derive(Clone, Debug)]
pub struct InlinedUnit {
    /// The unit with the calls in its top level and result inlined; its functions as checked
    /// (each is inlined by `inline_function` when it is first needed).
    pub unit: Unit,
    /// The frame size of the top level (its own slots, then those of the inlined bodies).
    pub top_level_slots: u32,
}

/// The inlining pass over a unit's top level: `unit` with the calls of known functions inlined
/// in its body and result, reading callees from `callees` (the functions it defines are
/// passed to `inline_function` one by one, when they are needed). With `on` false every call
/// is kept as written (results never depend on it).
pub fn inline_unit(callees: &dyn Callees, unit: &Unit, on: bool) -> InlinedUnit {
    let top_level_slots = top_level_slots(&unit.body, unit.result.as_ref());
    if !on {
        return InlinedUnit {
            unit: unit.clone(),
            top_level_slots,
        };
    }
    let mut inliner = Inliner::new(callees, top_level_slots);
    inliner.count_assignments(
        unit.body
            .iter()
            .chain(unit.functions.iter().flat_map(|(_, f)| f.body.iter())),
    );
    inliner.count_reads(unit.body.iter());
    let body = inliner.stmts(&unit.body);
    let result = unit.result.as_ref().map(|e| inliner.expr(e));
    InlinedUnit {
        unit: Unit {
            body,
            result,
            ..unit.clone()
        },
        top_level_slots: inliner.n_slots,
    }
}

/// Function `id` with its calls inlined (and its frame size grown to match).
pub fn inline_function(callees: &dyn Callees, f: &Function, id: FunId) -> Function {
    let mut inliner = Inliner::new(callees, f.n_slots);
    inliner.stack.push(id);
    inliner.count_assignments(&f.body);
    inliner.count_reads(&f.body);
    let body = inliner.stmts(&f.body);
    Function {
        n_slots: inliner.n_slots,
        ..inliner.without_unneeded_cells(f, body)
    }
}

/// The frame size a unit's top level needs before inlining: one more than its highest slot.
fn top_level_slots(stmts: &[Stmt], result: Option<&Expr>) -> u32 {
    let max = std::cell::Cell::new(0u32);
    let note = |s: Slot| max.set(max.get().max(s + 1));
    let mut expr = |e: &Expr| {
        if let ExprKind::Local(s) | ExprKind::Take(s) | ExprKind::LocalCell(s) = e.kind {
            note(s);
        }
    };
    let mut place = |p: Place| {
        if let Place::Local(s) | Place::LocalCell(s) = p {
            note(s);
        }
    };
    each_in_stmts(stmts, &mut expr, &mut place);
    if let Some(e) = result {
        each_in_expr(e, &mut expr, &mut place);
    }
    max.get()
}

/// Largest callee body inlined, in IR nodes.
const MAX_BODY: usize = 160;
/// Deepest nesting of inlined calls.
const MAX_DEPTH: usize = 8;
/// Most IR nodes one function (or top level) may gain by inlining.
const MAX_GROWTH: usize = 20_000;
/// Relocated labels start here, far above any label the checker numbers.
const LABEL_BASE: LabelId = 1 << 24;

/// The inliner for one frame (a function's, or a unit's top level).
struct Inliner<'a> {
    callees: &'a dyn Callees,
    functions: &'a [Option<Arc<Function>>],
    /// The frame size: slots of the original code, then of every inlined body.
    n_slots: u32,
    next_label: LabelId,
    /// Functions whose bodies are being expanded (no recursion through inlining).
    stack: Vec<FunId>,
    growth: usize,
    /// How many loops enclose the code being rewritten.
    loops: usize,
    /// How often each local or global is assigned in the code being rewritten (a `val`
    /// holding a function is assigned once).
    assignments: HashMap<Place, usize>,
    /// Variables assigned exactly once, with a known function, by a statement already
    /// rewritten in an enclosing statement list: calls through them are calls of the function.
    known_places: HashMap<Place, Expr>,
    /// How often each local slot of the code being rewritten is read, and the slots it
    /// captures (`addresses.rs`).
    reads: HashMap<Slot, usize>,
    captured: HashSet<Slot>,
    /// Locals holding an address, read as the address in the statements after their
    /// assignment (`addresses.rs`).
    addresses: HashMap<Slot, Expr>,
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

impl Fold for Inliner<'_> {
    type Error = Infallible;

    fn fold_stmts(&mut self, stmts: &[Stmt]) -> Result<Vec<Stmt>, Infallible> {
        let mut known_here: Vec<Place> = Vec::new();
        let mut addresses_here: Vec<Slot> = Vec::new();
        let mut rewritten = Vec::with_capacity(stmts.len());
        for (i, s) in stmts.iter().enumerate() {
            let s = self.fold_stmt(s)?;
            if let Some((slot, address, checks)) = self.address_val(&s, &stmts[i + 1..]) {
                self.addresses.insert(slot, address);
                addresses_here.push(slot);
                rewritten.extend(checks);
                continue;
            }
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
        for slot in addresses_here {
            self.addresses.remove(&slot);
        }
        Ok(rewritten)
    }

    /// `e` with its calls of known functions inlined, innermost first.
    fn fold_expr(&mut self, e: &Expr) -> Result<Expr, Infallible> {
        if let ExprKind::Local(s) | ExprKind::Take(s) = e.kind {
            if let Some(address) = self.addresses.get(&s) {
                return Ok(address.clone());
            }
        }
        let folded = walk_expr_fold(self, e)?;
        let replaced = match &folded.kind {
            ExprKind::Call { func, args } => self.call(func, args, &e.ty, e.span),
            ExprKind::Prim(prim, args) => self.lower_prim(prim, args, &e.ty, e),
            ExprKind::PtrProject { .. } | ExprKind::Deref(_) => return Ok(through_address(folded)),
            _ => None,
        };
        Ok(replaced.unwrap_or(folded))
    }

    fn fold_stmt(&mut self, s: &Stmt) -> Result<Stmt, Infallible> {
        let in_loop = is_loop(s);
        self.loops += in_loop as usize;
        let folded = walk_stmt_fold(self, s);
        self.loops -= in_loop as usize;
        Ok(store_through_address(folded?))
    }
}

impl<'a> Inliner<'a> {
    /// An inliner for code whose frame has `n_slots` slots.
    fn new(callees: &'a dyn Callees, n_slots: u32) -> Inliner<'a> {
        Inliner {
            callees,
            functions: callees.functions(),
            n_slots,
            next_label: LABEL_BASE,
            stack: Vec::new(),
            growth: 0,
            loops: 0,
            assignments: HashMap::new(),
            known_places: HashMap::new(),
            reads: HashMap::new(),
            captured: HashSet::new(),
            addresses: HashMap::new(),
        }
    }

    /// Count the assignments of the code about to be rewritten (a function body, or a unit's
    /// top level together with the functions the unit defines, which may assign its globals).
    fn count_assignments<'s>(&mut self, code: impl IntoIterator<Item = &'s Stmt>) {
        let mut note = |p: Place| *self.assignments.entry(p).or_insert(0) += 1;
        for s in code {
            each_in_stmts(std::slice::from_ref(s), &mut |_| {}, &mut note);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        infallible(self.fold_stmts(stmts))
    }

    fn expr(&mut self, e: &Expr) -> Expr {
        infallible(self.fold_expr(e))
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
        if self.stack.len() >= MAX_DEPTH
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
        each_in_stmts(
            &generic.body,
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
        // A call outside any loop of a function with a loop stays a call: the loop is where
        // the time goes, the same either way, and a copy of it is more code to compile. A
        // function given a function (`iter p a`) is inlined still, so the loop calls what it
        // is given directly.
        let given_function = all.iter().any(|a| carries_function(&a.ty));
        if self.loops == 0 && !given_function && has_loop(&callee.body) {
            return None;
        }
        let rest = all.split_off(groups);
        // The closure would capture from this frame, where its body now runs.
        let captures = match &known.captures {
            Some(captures) => captures.to_vec(),
            None => callee.captures.clone(),
        };
        let result_ty = rest.is_empty().then_some(ty);
        let body = self.expand(&callee, known.fun, &captures, all, result_ty, span)?;
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
        result_ty: Option<&Type>,
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
        // Globals and cells read as arguments keep their values through the body.
        let kept = callee.pure_
            || (keeps_variables(|e, p| each_in_stmts(&callee.body, e, p))
                && !stores_through_pointers(&callee.body)
                && args
                    .iter()
                    .all(|a| keeps_variables(|e, p| each_in_expr(a, e, p))));
        let mut pre: Vec<Stmt> = Vec::new();
        let mut positions = base + callee.n_slots..base + callee.n_slots;
        for (pattern, arg) in callee.params.iter().zip(args) {
            let binding = Binding {
                written: &written,
                pure_: kept,
            };
            bind(
                &mut relocation,
                pattern,
                arg,
                binding,
                &mut positions,
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
        let labels = max_label(&callee.body);
        self.next_label = self.next_label.saturating_add(labels + 1);
        self.n_slots = positions.end;
        self.growth += size(&callee.body);
        self.stack.push(id);
        self.count_reads(&stmts);
        if let Some(r) = &result {
            self.count_reads(&[Stmt::Expr(r.clone())]);
        }
        let stmts = self.stmts(&stmts);
        let result = result.map(|r| self.expr(&r));
        self.stack.pop();
        // The call's type, where the callee's result mentions its run-time sizes (which the
        // call gave values).
        let ret = result_ty.cloned().unwrap_or_else(|| callee.ret.clone());
        let body = Expr {
            kind: ExprKind::Inlined(Box::new(Inlined {
                frame: Some(InlinedFrame {
                    name: Arc::from(callee.name.as_str()),
                    unit: self.callees.unit_of(id),
                }),
                call: span,
                stmts,
                result,
            })),
            ty: ret.clone(),
            span,
        };
        if pre.is_empty() {
            return Some(body);
        }
        // The arguments are computed by the caller: a fault in one is not in the callee.
        let (stmts, result) = if ret.is_void() {
            pre.push(Stmt::Expr(body));
            (pre, None)
        } else {
            (pre, Some(body))
        };
        Some(Expr {
            kind: ExprKind::Inlined(Box::new(Inlined {
                frame: None,
                call: span,
                stmts,
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
        each_in_stmts(
            body,
            &mut |e: &Expr| {
                let captures: &[Capture] = match &e.kind {
                    ExprKind::MakeFun { fun, .. } => self
                        .functions
                        .get(*fun as usize)
                        .and_then(|f| f.as_ref())
                        .map_or(&[], |f| &f.captures),
                    ExprKind::Closure { captures, .. } => captures,
                    _ => &[],
                };
                for capture in captures {
                    if let Capture::Slot(s) | Capture::Cell(s) = capture {
                        captured.push(*s);
                    }
                }
            },
            &mut |_| {},
        );
        captured
    }

    fn fresh_slot(&mut self) -> Slot {
        self.n_slots += 1;
        self.n_slots - 1
    }
}

/// What binding a callee's parameters needs to know of its body.
#[derive(Clone, Copy)]
struct Binding<'a> {
    /// The local slots the body assigns (parameters among them are not substituted).
    written: &'a HashSet<Slot>,
    /// The body writes no global and no cell: a global read as an argument can be
    /// substituted.
    pure_: bool,
}

/// Bind a parameter pattern to its argument: substitute a stable argument for a parameter
/// the body never assigns, otherwise assign the relocated slot (a statement of `pre`). A
/// pointer to an element at a computed position is made stable first (`fixed_address`, with
/// new locals from `positions`).
fn bind(
    relocation: &mut Relocation<'_>,
    pattern: &Pattern,
    arg: Expr,
    binding: Binding<'_>,
    positions: &mut std::ops::Range<Slot>,
    pre: &mut Vec<Stmt>,
) -> Option<()> {
    match (&pattern.kind, &arg.kind) {
        (PatternKind::Bind(Place::Local(s)), _) => {
            if binding.written.contains(s) {
                pre.push(Stmt::Assign(Place::Local(s + relocation.base), arg));
                return Some(());
            }
            let arg = fixed_address(arg, positions, pre);
            if stable(&arg, binding.pure_) {
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
                bind(relocation, part, item, binding, positions, pre)?;
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

/// A pointer argument to an element at a computed position (`&ps.(k)`, `&m.(i \, j).x`) as
/// an address the body can be given in place of its parameter (`stable`): each index that is
/// neither a constant nor a local is computed into a new local of the caller (the next of
/// `positions`, a statement of `pre`), in the order taking the pointer computes them, and a
/// linear index is checked there as taking the pointer checks it (R0001), by a read of the
/// element. Any other argument is returned as it is.
fn fixed_address(arg: Expr, positions: &mut std::ops::Range<Slot>, pre: &mut Vec<Stmt>) -> Expr {
    let ExprKind::AddrOf {
        place,
        root_ty,
        path,
    } = &arg.kind
    else {
        return arg;
    };
    let computed = |index: &Expr| !matches!(index.kind, ExprKind::Const(_));
    if !path
        .iter()
        .any(|step| matches!(step, PathStep::Index(index, _) if computed(index)))
        || component_read(*place, root_ty, path, arg.span).is_none()
    {
        return arg;
    }
    let mut fixed = Vec::with_capacity(path.len());
    for step in path {
        let PathStep::Index(index, mode) = step else {
            fixed.push(step.clone());
            continue;
        };
        if !computed(index) {
            fixed.push(step.clone());
            continue;
        }
        let index = match index.kind {
            ExprKind::Local(_) => index.clone(),
            _ => {
                let slot = positions.end;
                positions.end += 1;
                pre.push(Stmt::Assign(Place::Local(slot), index.clone()));
                Expr {
                    kind: ExprKind::Local(slot),
                    ..index.clone()
                }
            }
        };
        if *mode == IndexMode::Linear {
            let container = component_read(*place, root_ty, &fixed, arg.span)
                .expect("a prefix of a readable path is readable");
            pre.push(Stmt::Expr(Expr {
                ty: component_read(*place, root_ty, &path[..=fixed.len()], arg.span)
                    .expect("a prefix of a readable path is readable")
                    .ty,
                kind: ExprKind::Index {
                    array: Box::new(container),
                    index: Box::new(index.clone()),
                    mode: *mode,
                },
                span: index.span,
            }));
        }
        fixed.push(PathStep::Index(index, *mode));
    }
    Expr {
        kind: ExprKind::AddrOf {
            place: *place,
            root_ty: root_ty.clone(),
            path: fixed,
        },
        ..arg
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
        // The address of a variable, or of a component of it at constant indices, is the
        // same pointer every time (`&a`, `&m.1`).
        ExprKind::AddrOf { path, .. } => path.iter().all(|step| match step {
            PathStep::Field(_) => true,
            PathStep::Index(index, _) => {
                matches!(index.kind, ExprKind::Const(_) | ExprKind::Local(_))
            }
        }),
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

/// Does the code `walk` visits (with an expression and a place visitor) leave every global and
/// cell as it is? It assigns none, stores through no pointer, calls no function (nor a kernel
/// that calls one it is given) and gives no kernel a pointer.
fn keeps_variables(walk: impl FnOnce(&mut dyn FnMut(&Expr), &mut dyn FnMut(Place))) -> bool {
    let mut keeps = true;
    let mut places = true;
    walk(
        &mut |e| match &e.kind {
            ExprKind::Call { .. } => keeps = false,
            ExprKind::Prim(p, args) => {
                keeps &= !crate::core::prims::calls(p)
                    && !args
                        .iter()
                        .any(|a| matches!(a.ty, Type::Ptr(..) | Type::CPtr(..)))
            }
            ExprKind::Inlined(inlined) => keeps &= !stores_through_pointers(&inlined.stmts),
            _ => {}
        },
        &mut |p| places &= matches!(p, Place::Local(_)),
    );
    keeps && places
}

/// Does `body` store through a pointer (`p <- v`, `p.i <- v`) anywhere?
fn stores_through_pointers(body: &[Stmt]) -> bool {
    struct Finds(bool);
    impl<'ir> Visit<'ir> for Finds {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if matches!(s, Stmt::StoreAt { .. }) {
                self.0 = true;
            }
            walk_stmt(self, s)
        }
    }
    let mut finds = Finds(false);
    for s in body {
        finds.visit_stmt(s);
    }
    finds.0
}

/// The local slots a body assigns (parameters among them are not substituted).
fn written_slots(body: &[Stmt]) -> HashSet<Slot> {
    let mut written = HashSet::new();
    let mut note = |p: Place| {
        if let Place::Local(s) = p {
            written.insert(s);
        }
    };
    each_in_stmts(body, &mut |_| {}, &mut note);
    written
}

/// Moves a callee's body into the caller's frame; fails (`Err(())`) on what cannot move:
/// cells of the callee's own frame, pointers, a parameter assigned after substitution.
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
    fn stmts(&mut self, ss: &[Stmt]) -> Option<Vec<Stmt>> {
        self.fold_stmts(ss).ok()
    }

    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        self.fold_expr(e).ok()
    }

    fn pattern(&mut self, p: &Pattern) -> Option<Pattern> {
        self.fold_pattern(p).ok()
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
}

impl Fold for Relocation<'_> {
    type Error = ();

    fn fold_label(&mut self, label: LabelId) -> Result<LabelId, ()> {
        Ok(label + self.label_offset)
    }

    fn fold_place(&mut self, place: Place) -> Result<Place, ()> {
        self.place(place).ok_or(())
    }

    fn fold_expr(&mut self, e: &Expr) -> Result<Expr, ()> {
        let kind = match &e.kind {
            // The argument, with the span of the parameter's use (where a fault of the
            // expression the use is in points). A parameter replaced by its argument is read,
            // never moved (`take`): the argument's variable is the caller's.
            ExprKind::Local(s) | ExprKind::Take(s) => match self.params.get(s) {
                Some(arg) => {
                    return Ok(Expr {
                        span: e.span,
                        ..arg.clone()
                    })
                }
                None if matches!(e.kind, ExprKind::Take(_)) => ExprKind::Take(s + self.base),
                None => ExprKind::Local(s + self.base),
            },
            ExprKind::LocalCell(_) => return Err(()),
            ExprKind::Capture(i) => match self.captures.get(*i as usize).ok_or(())? {
                Capture::Slot(s) => ExprKind::Local(*s),
                Capture::Outer(j) => ExprKind::Capture(*j),
                Capture::Cell(_) => return Err(()),
            },
            ExprKind::CaptureCell(i) => match self.captures.get(*i as usize).ok_or(())? {
                Capture::Cell(s) => ExprKind::LocalCell(*s),
                Capture::Outer(j) => ExprKind::CaptureCell(*j),
                Capture::Slot(_) => return Err(()),
            },
            ExprKind::MakeFun { fun, type_args } => {
                let own = self
                    .functions
                    .get(*fun as usize)
                    .and_then(Option::as_ref)
                    .ok_or(())?;
                if own.captures.is_empty() {
                    e.kind.clone()
                } else {
                    ExprKind::Closure {
                        fun: *fun,
                        type_args: type_args.clone(),
                        captures: self.captures_of(&own.captures).ok_or(())?,
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
                captures: self.captures_of(captures).ok_or(())?,
            },
            // A pointer taken in the body is refused with the body (`inlinable`). A pointer
            // value (a parameter, `*p`, `p.i <- v`, a cast) is an ordinary value: the places it
            // reaches are the caller's objects (a local that is addressed is a cell, never a
            // slot the relocation moves), so its expressions are relocated as any others.
            ExprKind::AddrOf { .. } => return Err(()),
            // A pointer parameter given an address (`advance (&bodies)`): what the body
            // reaches through it is that variable's component, read or stored in place.
            ExprKind::PtrProject { .. } | ExprKind::Deref(_) => {
                let folded = walk_expr_fold(self, e)?;
                return Ok(through_address(folded));
            }
            _ => return walk_expr_fold(self, e),
        };
        Ok(Expr {
            kind,
            ty: e.ty.clone(),
            span: e.span,
        })
    }

    fn fold_stmt(&mut self, s: &Stmt) -> Result<Stmt, ()> {
        Ok(store_through_address(walk_stmt_fold(self, s)?))
    }
}

/// A store through an address (`&a.i <- v` as `p.i <- v` with `p = &a`) is a store into the
/// variable's component, or an assignment of the variable (`p <- v` with `p = &n`).
fn store_through_address(s: Stmt) -> Stmt {
    let Stmt::StoreAt { pointer, value } = s else {
        return s;
    };
    match pointer.kind {
        ExprKind::AddrOf {
            place,
            root_ty,
            path,
        } => match path.is_empty() {
            true => Stmt::Assign(place, value),
            false => Stmt::Store {
                place,
                root_ty,
                path,
                value,
            },
        },
        kind => Stmt::StoreAt {
            pointer: Expr { kind, ..pointer },
            value,
        },
    }
}

/// `e` (a projection or a dereference) when its pointer is an address: a projection of an
/// address is the address of the component (`&a` projected to `i` is `&a.i`), and the
/// dereference of an address through array indices and tuple, record and struct fields is
/// the variable's component itself (`*&a.i` is `a.i`). Anything else stays as it is.
fn through_address(e: Expr) -> Expr {
    let folded = match &e.kind {
        ExprKind::PtrProject { pointer, path } => match &pointer.kind {
            ExprKind::AddrOf {
                place,
                root_ty,
                path: first,
            } => Some(Expr {
                kind: ExprKind::AddrOf {
                    place: *place,
                    root_ty: root_ty.clone(),
                    path: first.iter().chain(path).cloned().collect(),
                },
                ty: e.ty.clone(),
                span: e.span,
            }),
            // A projection of a projection is one projection by both paths.
            ExprKind::PtrProject {
                pointer: inner,
                path: first,
            } => Some(Expr {
                kind: ExprKind::PtrProject {
                    pointer: inner.clone(),
                    path: first.iter().chain(path).cloned().collect(),
                },
                ty: e.ty.clone(),
                span: e.span,
            }),
            _ => None,
        },
        ExprKind::Deref(pointer) => match &pointer.kind {
            ExprKind::AddrOf {
                place,
                root_ty,
                path,
            } => component_read(*place, root_ty, path, pointer.span),
            _ => None,
        },
        _ => None,
    };
    folded.unwrap_or(e)
}

/// The read of the component of variable `place` (of type `root_ty`) that `path` leads to,
/// when every step is an array index or a field of a tuple, record or struct; `span` is the
/// address's (where a read of a variable with no value yet points, as through the pointer).
fn component_read(
    place: Place,
    root_ty: &Type,
    path: &[PathStep],
    span: crate::syntax::span::Span,
) -> Option<Expr> {
    let kind = match place {
        Place::Local(s) => ExprKind::Local(s),
        Place::Global(g) => ExprKind::Global(g),
        Place::LocalCell(s) => ExprKind::LocalCell(s),
        Place::CaptureCell(i) => ExprKind::CaptureCell(i),
    };
    let mut at = Expr {
        kind,
        ty: root_ty.clone(),
        span,
    };
    for step in path {
        at = match (step, &at.ty) {
            (PathStep::Index(index, mode), Type::Array(elem, _)) => Expr {
                ty: (**elem).clone(),
                kind: ExprKind::Index {
                    array: Box::new(at),
                    index: Box::new(index.clone()),
                    mode: *mode,
                },
                span,
            },
            (PathStep::Field(k), container) => {
                let ty = container.field_type(*k as usize)?;
                Expr {
                    ty,
                    kind: ExprKind::Field(Box::new(at), *k),
                    span,
                }
            }
            _ => return None,
        };
    }
    Some(at)
}

/// Visits the statements of a list and those nested in them, not those inside expressions
/// (the bodies inlined there belong to other functions).
struct Statements<F>(F);

impl<'ir, F: FnMut(&'ir Stmt)> Visit<'ir> for Statements<F> {
    fn visit_stmt(&mut self, s: &'ir Stmt) {
        (self.0)(s);
        walk_stmt(self, s)
    }
    fn visit_expr(&mut self, _: &'ir Expr) {}
    fn visit_pattern(&mut self, _: &'ir Pattern) {}
}

/// Does a statement list contain a `return` (outside nested functions, which the IR keeps
/// apart, and the bodies inlined in its expressions)?
pub fn has_return(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(
        &mut Statements(|s: &Stmt| found |= matches!(s, Stmt::Return(_))),
        stmts,
    );
    found
}

/// The highest label of a loop in `stmts` (0 when none).
fn max_label(stmts: &[Stmt]) -> LabelId {
    let mut max = 0;
    walk_stmts(
        &mut Statements(|s: &Stmt| {
            if let Some(label) = s.loop_label() {
                max = max.max(label);
            }
        }),
        stmts,
    );
    max
}

/// The number of expressions in `stmts`.
fn size(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    each_in_stmts(stmts, &mut |_| n += 1, &mut |_| {});
    n
}

/// Is `s` a loop?
fn is_loop(s: &Stmt) -> bool {
    matches!(
        s,
        Stmt::While { .. }
            | Stmt::Loop { .. }
            | Stmt::ForRange { .. }
            | Stmt::ForCodes { .. }
            | Stmt::ForArray { .. }
    )
}

/// Is `ty` a function, or a tuple with one among its components (a tupled call's argument,
/// `sum_by (d, f)`)?
fn carries_function(ty: &Type) -> bool {
    match ty {
        Type::Fun(..) => true,
        Type::Tuple(parts) => parts.iter().any(carries_function),
        _ => false,
    }
}

/// Does `body` have a loop?
fn has_loop(body: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(&mut Statements(|s: &Stmt| found |= is_loop(s)), body);
    found
}

mod addresses;
mod cells;
mod loops;
#[cfg(test)]
mod tests;
