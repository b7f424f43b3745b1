//! Polymorphic recursion at a growing type: a generic function that (directly or through
//! others) uses itself at a type built from its own type parameter (`f (x, x)` inside
//! `f[T] (x:T)` uses `f[T * T]`). The evaluator compiles one instance per type arguments, so
//! such a function needs infinitely many instances: it is a static error (E0301).
//!
//! The test is the "expansive cycle" rule of generic instantiation (as in ECMA-335, II.9.2):
//! the nodes of a graph are the type parameters of the unit's generic functions; a use of
//! `g[.., A_i, ..]` inside the body of `f` gives, for each parameter `T` of `f` that occurs in
//! `A_i`, an edge from `T` to `g`'s parameter `i`, *expanding* when `A_i` is not `T` itself.
//! The instances are finite exactly when no cycle of the graph contains an expanding edge,
//! that is when no expanding edge joins two parameters of one strongly connected component.

use std::collections::HashMap;

use crate::core::ir::{Expr, ExprKind, FunId, Function};
use crate::core::visit::{walk_expr, Visit};
use crate::syntax::span::Span;
use crate::types::ty::{TyVar, Type};

/// One use of a generic function inside another that instantiates it at a type built
/// from the user's own parameter: the user, the callee, where, and the instance it asks.
pub(crate) struct Growing {
    pub user: String,
    pub callee: String,
    pub span: Span,
    pub param: String,
    pub arg: Type,
}

type Node = (FunId, usize);

struct Edge {
    from: Node,
    to: Node,
    expanding: bool,
    span: Span,
    arg: Type,
}

/// The first expanding use on a cycle among `funs` (the functions of one unit), if any.
pub(crate) fn growing_instantiation(funs: &[(FunId, std::sync::Arc<Function>)]) -> Option<Growing> {
    let generic: HashMap<FunId, &Function> = funs
        .iter()
        .filter(|(_, f)| !f.type_params.is_empty())
        .map(|(id, f)| (*id, &**f))
        .collect();
    if generic.is_empty() {
        return None;
    }
    let mut edges = Vec::new();
    for (&id, f) in &generic {
        let mut uses = Uses {
            generic: &generic,
            found: Vec::new(),
        };
        for s in &f.body {
            uses.visit_stmt(s);
        }
        for (callee, args, span) in uses.found {
            for (i, arg) in args.iter().enumerate() {
                for (j, param) in f.type_params.iter().enumerate() {
                    if let Some(expanding) = occurs(param, arg) {
                        edges.push(Edge {
                            from: (id, j),
                            to: (callee, i),
                            expanding,
                            span,
                            arg: arg.clone(),
                        });
                    }
                }
            }
        }
    }
    if !edges.iter().any(|e| e.expanding) {
        return None;
    }
    let component = components(&edges);
    let mut bad: Vec<&Edge> = edges
        .iter()
        .filter(|e| e.expanding && component[&e.from] == component[&e.to])
        .collect();
    bad.sort_by_key(|e| e.span.start);
    let e = bad.first()?;
    let user = generic[&e.from.0];
    let callee = generic[&e.to.0];
    let arg = e.arg.clone();
    Some(Growing {
        user: user.name.clone(),
        callee: callee.name.clone(),
        span: e.span,
        param: callee.type_params[e.to.1].name.to_string(),
        arg,
    })
}

/// Whether `param` occurs in `arg`: `Some(false)` when `arg` is `param` itself, `Some(true)`
/// when it occurs inside a bigger type.
fn occurs(param: &TyVar, arg: &Type) -> Option<bool> {
    if let Type::Var(v) = arg {
        return (v == param).then_some(false);
    }
    let mut found = false;
    arg.walk(&mut |t| found |= matches!(t, Type::Var(v) if v == param));
    found.then_some(true)
}

struct Uses<'a> {
    generic: &'a HashMap<FunId, &'a Function>,
    found: Vec<(FunId, Vec<Type>, Span)>,
}

impl<'ir> Visit<'ir> for Uses<'_> {
    fn visit_expr(&mut self, e: &'ir Expr) {
        match &e.kind {
            ExprKind::MakeFun { fun, type_args } | ExprKind::Closure { fun, type_args, .. }
                if self.generic.contains_key(fun) =>
            {
                self.found.push((*fun, type_args.clone(), e.span));
            }
            _ => {}
        }
        walk_expr(self, e)
    }
}

/// The strongly connected component of every node (Tarjan's algorithm, iterative).
fn components(edges: &[Edge]) -> HashMap<Node, usize> {
    let mut succ: HashMap<Node, Vec<Node>> = HashMap::new();
    for e in edges {
        succ.entry(e.from).or_default().push(e.to);
        succ.entry(e.to).or_default();
    }
    let mut nodes: Vec<Node> = succ.keys().copied().collect();
    nodes.sort();
    let mut index: HashMap<Node, usize> = HashMap::new();
    let mut low: HashMap<Node, usize> = HashMap::new();
    let mut on_stack: HashMap<Node, bool> = HashMap::new();
    let mut stack: Vec<Node> = Vec::new();
    let mut component: HashMap<Node, usize> = HashMap::new();
    let mut next = 0;
    let mut n_components = 0;
    for &root in &nodes {
        if index.contains_key(&root) {
            continue;
        }
        // The call stack of the recursive formulation: a node and its next successor.
        let mut work: Vec<(Node, usize)> = vec![(root, 0)];
        index.insert(root, next);
        low.insert(root, next);
        next += 1;
        stack.push(root);
        on_stack.insert(root, true);
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            let next_succ = succ[&v].get(*i).copied();
            *i += 1;
            match next_succ {
                Some(w) if !index.contains_key(&w) => {
                    index.insert(w, next);
                    low.insert(w, next);
                    next += 1;
                    stack.push(w);
                    on_stack.insert(w, true);
                    work.push((w, 0));
                }
                Some(w) => {
                    if on_stack.get(&w).copied().unwrap_or(false) {
                        let lw = index[&w];
                        let lv = low.get_mut(&v).expect("visited");
                        *lv = (*lv).min(lw);
                    }
                }
                None => {
                    work.pop();
                    if let Some(&(parent, _)) = work.last() {
                        let lv = low[&v];
                        let lp = low.get_mut(&parent).expect("visited");
                        *lp = (*lp).min(lv);
                    }
                    if low[&v] == index[&v] {
                        while let Some(w) = stack.pop() {
                            on_stack.insert(w, false);
                            component.insert(w, n_components);
                            if w == v {
                                break;
                            }
                        }
                        n_components += 1;
                    }
                }
            }
        }
    }
    component
}
