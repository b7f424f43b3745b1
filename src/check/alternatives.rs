//! The head of a `match` arm (and of `let p = e in body`): its alternatives (`| p | q`, also
//! nested `(p | q)`), each with its `with` bindings and guard. Every alternative binds the
//! same names, at the same types and in the same places, so the body reads them whichever
//! alternative matched.

use crate::check::build::mk;
use crate::check::env::{Binding, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir::{self, Const, Place};
use crate::syntax::ast::{Expr, MatchArm, Name, Pattern, PatternKind, SName};
use crate::syntax::span::{Span, Spanned};
use crate::types::ty::Type;

/// The names an arm's alternatives bind: recorded while the first is checked, then bound
/// again (same places) by each of the others.
#[derive(Clone)]
pub(crate) enum AltNames {
    Recording(Vec<(Name, VarBinding, Type)>),
    Checking {
        expected: Vec<(Name, VarBinding, Type)>,
        seen: Vec<Name>,
    },
}

/// An arm's head as checked: groups of alternatives with the guard they share. There are
/// several groups only when alternatives have `with` bindings or guards of their own; each
/// group becomes an arm of the IR with the same body.
pub(crate) type ArmHeads = Vec<(Vec<ir::Pattern>, Option<ir::Expr>)>;

/// One alternative of an arm, its nested alternatives chosen.
struct Alternative<'a> {
    pattern: Pattern,
    with: &'a [(SName, Expr)],
    guard: Option<&'a Expr>,
}

impl Checker {
    /// Checks the head of `arm` against the matched type `ty`, binding its names in the
    /// current scope (a fresh one per arm, made by the caller).
    pub(crate) fn arm_heads<B>(&mut self, arm: &MatchArm<B>, ty: &Type) -> ArmHeads {
        let mut alternatives = Vec::new();
        for p in &arm.patterns {
            let (inner, with, guard) = match &p.node {
                PatternKind::Guarded {
                    pattern,
                    with,
                    guard,
                } => (&**pattern, with.as_slice(), guard.as_deref()),
                _ => (p, &[][..], None),
            };
            for pattern in expand(inner) {
                alternatives.push(Alternative {
                    pattern,
                    with,
                    guard,
                });
            }
        }
        let plain = alternatives
            .iter()
            .all(|a| a.with.is_empty() && a.guard.is_none());
        let outer = self.unit.alt_names.take();
        let mut first: Option<Vec<(Name, VarBinding, Type)>> = None;
        let mut heads = Vec::new();
        for alt in &alternatives {
            self.unit.alt_names = Some(match &first {
                None => AltNames::Recording(Vec::new()),
                Some(expected) => AltNames::Checking {
                    expected: expected.clone(),
                    seen: Vec::new(),
                },
            });
            let pattern = self.pattern(&alt.pattern, ty);
            let mut withs = Vec::new();
            for (name, e) in alt.with {
                let names = self.unit.alt_names.take();
                let value = self.expr(e, None);
                self.unit.alt_names = names;
                let value_ty = self.zonk(&value.ty);
                let place = self.bind_pattern_name(&name.node, name.span, &value_ty);
                withs.push((place, value));
            }
            match self.unit.alt_names.take() {
                Some(AltNames::Recording(names)) => first = Some(names),
                Some(AltNames::Checking { expected, seen }) => {
                    for (name, _, _) in expected.iter().filter(|(n, _, _)| !seen.contains(n)) {
                        self.error(CheckError::Type {
                            span: alt.pattern.span,
                            message: format!(
                                "this alternative does not bind `{name}`, which the first alternative of the arm binds"
                            ),
                            help: Some(
                                "every alternative of an arm must bind the same names".into(),
                            ),
                        });
                    }
                }
                None => {}
            }
            let guard = alt.guard.map(|g| self.bool_expr(g));
            heads.push((pattern, with_bindings(withs, guard, alt.pattern.span)));
        }
        self.unit.alt_names = outer;
        if plain {
            let guard = arm.guard.as_ref().map(|g| self.bool_expr(g));
            vec![(heads.into_iter().map(|(p, _)| p).collect(), guard)]
        } else {
            heads.into_iter().map(|(p, g)| (vec![p], g)).collect()
        }
    }

    /// Binds the name `n` of a pattern (or a `with` binding) to a value of type `ty`: a new
    /// variable of the current scope, or, in the second and later alternatives of an arm, the
    /// variable the first one bound.
    pub(crate) fn bind_pattern_name(&mut self, n: &Name, span: Span, ty: &Type) -> Place {
        if let Some(AltNames::Checking { expected, .. }) = &self.unit.alt_names {
            match expected.iter().find(|(name, _, _)| name == n).cloned() {
                Some((_, vb, first_ty)) => {
                    if let Some(AltNames::Checking { seen, .. }) = &mut self.unit.alt_names {
                        seen.push(n.clone());
                    }
                    let first_ty = self.zonk(&first_ty);
                    if first_ty != *ty {
                        self.error(CheckError::Noted {
                            error: Box::new(CheckError::Type {
                                span,
                                message: format!(
                                    "`{n}` has type `{ty}` here but type `{first_ty}` in the first alternative of the arm"
                                ),
                                help: Some(
                                    "every alternative of an arm must bind its names at the same types"
                                        .into(),
                                ),
                            }),
                            at: vb.span,
                            label: format!("`{n}` bound here with type `{first_ty}`"),
                        });
                    }
                    return self.place_of(&vb);
                }
                None => self.error(CheckError::Type {
                    span,
                    message: format!(
                        "`{n}` is bound in this alternative but not in the first alternative of the arm"
                    ),
                    help: Some("every alternative of an arm must bind the same names".into()),
                }),
            }
        }
        let frame = self.frame;
        let global = self.frames[frame].global;
        let cell = !global && self.frames[frame].captured_names.contains(n);
        let slot = self.frames[frame].alloc();
        if cell {
            self.frames[frame].cell_slots.push(slot);
        }
        let scope = self.scope;
        self.note_def(n, super::index::DefKind::Val, span, Some(ty.clone()));
        let vb = VarBinding {
            loc: VarLoc { frame, slot, cell },
            ty: VarType::Known(ty.clone()),
            mutable: false,
            span,
            decl: None,
            scope,
        };
        self.scopes[scope]
            .values
            .insert(n.clone(), Binding::Var(vb.clone()));
        if let Some(AltNames::Recording(names)) = &mut self.unit.alt_names {
            names.push((n.clone(), vb.clone(), ty.clone()));
        }
        self.place_of(&vb)
    }
}

/// The guard of an alternative with `with` bindings: each value bound in turn (a one-arm
/// match), then the guard (`true` without one), so the guard and the body see them.
fn with_bindings(
    withs: Vec<(Place, ir::Expr)>,
    guard: Option<ir::Expr>,
    span: Span,
) -> Option<ir::Expr> {
    if withs.is_empty() {
        return guard;
    }
    let mut acc = guard.unwrap_or_else(|| mk(ir::ExprKind::Const(Const::Int(1)), Type::BOOL, span));
    for (place, value) in withs.into_iter().rev() {
        let bind = ir::Pattern {
            kind: ir::PatternKind::Bind(place),
            ty: value.ty.clone(),
            span: value.span,
        };
        let arm = ir::Arm {
            patterns: vec![bind],
            guard: None,
            body: acc,
        };
        acc = mk(
            ir::ExprKind::Match(Box::new(value), vec![arm]),
            Type::BOOL,
            span,
        );
    }
    Some(acc)
}

/// The alternatives of a pattern, its nested `p | q` distributed over the patterns around
/// them: `(1 | 2, x)` is `(1, x)` or `(2, x)`, in order.
fn expand(p: &Pattern) -> Vec<Pattern> {
    let at = |node: PatternKind| Spanned::new(node, p.span);
    match &p.node {
        PatternKind::Alt(ps) => ps.iter().flat_map(expand).collect(),
        PatternKind::Tuple(ps) => combinations(ps.iter().map(expand).collect())
            .into_iter()
            .map(|ps| at(PatternKind::Tuple(ps)))
            .collect(),
        PatternKind::Record(fields) => {
            let names: Vec<SName> = fields.iter().map(|(n, _)| n.clone()).collect();
            combinations(fields.iter().map(|(_, q)| expand(q)).collect())
                .into_iter()
                .map(|ps| at(PatternKind::Record(names.iter().cloned().zip(ps).collect())))
                .collect()
        }
        PatternKind::Case(k, Some(arg)) => expand(arg)
            .into_iter()
            .map(|a| at(PatternKind::Case(k.clone(), Some(Box::new(a)))))
            .collect(),
        PatternKind::Ctor(name, arg) => expand(arg)
            .into_iter()
            .map(|a| at(PatternKind::Ctor(name.clone(), Box::new(a))))
            .collect(),
        PatternKind::As(inner, name) => expand(inner)
            .into_iter()
            .map(|q| at(PatternKind::As(Box::new(q), name.clone())))
            .collect(),
        _ => vec![p.clone()],
    }
}

/// Every choice of one element from each list, the first list varying slowest.
fn combinations(lists: Vec<Vec<Pattern>>) -> Vec<Vec<Pattern>> {
    let mut out: Vec<Vec<Pattern>> = vec![Vec::new()];
    for list in lists {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                list.iter().map(move |q| {
                    let mut next = prefix.clone();
                    next.push(q.clone());
                    next
                })
            })
            .collect();
    }
    out
}
