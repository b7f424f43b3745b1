//! The head of a `match` arm (and of `let p = e in body`): its alternatives (`| p | q`, also
//! nested `(p | q)`), each with its `with` bindings and guards (at its end or in parentheses
//! inside it) and its `$(e)` tests. Every alternative binds the same names, at the same types
//! and in the same places, so the body reads them whichever alternative matched.

use crate::check::build::{mk, read_place};
use crate::check::env::{Binding, VarBinding, VarLoc, VarType};
use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir::{self, Const, Place};
use crate::syntax::ast::{BinOp, Expr, MatchArm, Name, Pattern, PatternKind, SName};
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

/// What an alternative does once its pattern matched, in the order of the source (inner
/// before outer, left to right): bind `with` names, test a `when` guard, or test that the
/// value a `$(e)` pattern stands for equals `e`.
#[derive(Clone)]
pub(crate) enum Step {
    With(Vec<(SName, Expr)>),
    Guard(Expr),
    Equal {
        place: Place,
        ty: Type,
        value: Expr,
        span: Span,
    },
}

/// A step as checked.
enum Checked {
    Bind(Place, ir::Expr),
    Test(ir::Expr),
}

/// An arm's head as checked: groups of alternatives with the guard they share. There are
/// several groups only when alternatives have `with` bindings, guards or `$(e)` tests of
/// their own; each group becomes an arm of the IR with the same body.
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
            .all(|a| a.with.is_empty() && a.guard.is_none() && !has_steps(&a.pattern));
        let outer = self.unit.alt_names.take();
        let outer_steps = std::mem::take(&mut self.unit.pattern_steps);
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
            let mut steps = std::mem::take(&mut self.unit.pattern_steps);
            if !alt.with.is_empty() {
                steps.push(Step::With(alt.with.to_vec()));
            }
            if let Some(g) = alt.guard {
                steps.push(Step::Guard(g.clone()));
            }
            if !plain {
                if let Some(g) = &arm.guard {
                    steps.push(Step::Guard(g.clone()));
                }
            }
            let checked = self.check_steps(steps);
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
            heads.push((pattern, fold_steps(checked, alt.pattern.span)));
        }
        self.unit.alt_names = outer;
        self.unit.pattern_steps = outer_steps;
        if plain {
            let guard = arm.guard.as_ref().map(|g| self.bool_expr(g));
            vec![(heads.into_iter().map(|(p, _)| p).collect(), guard)]
        } else {
            heads.into_iter().map(|(p, g)| (vec![p], g)).collect()
        }
    }

    /// Checks an alternative's steps after its pattern: `with` names are bound like the
    /// pattern's (the same places in every alternative); the expressions are checked as
    /// ordinary expressions, whatever patterns they hold.
    fn check_steps(&mut self, steps: Vec<Step>) -> Vec<Checked> {
        let mut out = Vec::new();
        for step in steps {
            match step {
                Step::With(bindings) => {
                    for (name, e) in &bindings {
                        let names = self.unit.alt_names.take();
                        let value = self.expr(e, None);
                        self.unit.alt_names = names;
                        let value_ty = self.zonk(&value.ty);
                        let place = self.bind_pattern_name(&name.node, name.span, &value_ty);
                        out.push(Checked::Bind(place, value));
                    }
                }
                Step::Guard(g) => {
                    let names = self.unit.alt_names.take();
                    out.push(Checked::Test(self.bool_expr(&g)));
                    self.unit.alt_names = names;
                }
                Step::Equal {
                    place,
                    ty,
                    value,
                    span,
                } => {
                    let names = self.unit.alt_names.take();
                    let value = self.expr(&value, Some(&ty));
                    let value = self.coerce_to(value, &ty, "the expression of a `$(e)` pattern");
                    let read = mk(read_place(place), ty, span);
                    out.push(Checked::Test(self.binary_ir(BinOp::Eq, read, value, span)));
                    self.unit.alt_names = names;
                }
            }
        }
        out
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

/// The guard of an alternative with steps: each `with` value bound in turn (a one-arm match
/// around what follows), each test joined by `and` to what follows, so later steps and the
/// body see the names bound before them. `None` without steps.
fn fold_steps(steps: Vec<Checked>, span: Span) -> Option<ir::Expr> {
    let mut acc: Option<ir::Expr> = None;
    for step in steps.into_iter().rev() {
        acc = Some(match step {
            Checked::Test(test) => match acc {
                None => test,
                Some(rest) => mk(
                    ir::ExprKind::And(Box::new(test), Box::new(rest)),
                    Type::BOOL,
                    span,
                ),
            },
            Checked::Bind(place, value) => {
                let rest =
                    acc.unwrap_or_else(|| mk(ir::ExprKind::Const(Const::Int(1)), Type::BOOL, span));
                let bind = ir::Pattern {
                    kind: ir::PatternKind::Bind(place),
                    ty: value.ty.clone(),
                    span: value.span,
                };
                let arm = ir::Arm {
                    patterns: vec![bind],
                    guard: None,
                    body: rest,
                };
                mk(
                    ir::ExprKind::Match(Box::new(value), vec![arm]),
                    Type::BOOL,
                    span,
                )
            }
        });
    }
    acc
}

/// Does the pattern hold steps (`with` bindings or guards in parentheses, `$(e)`)?
pub(crate) fn has_steps(p: &Pattern) -> bool {
    match &p.node {
        PatternKind::Guarded { .. } | PatternKind::Expr(_) => true,
        PatternKind::Tuple(ps) | PatternKind::Alt(ps) => ps.iter().any(has_steps),
        PatternKind::Record(fields) => fields.iter().any(|(_, q)| has_steps(q)),
        PatternKind::Case(_, Some(q)) | PatternKind::Ctor(_, q) | PatternKind::As(q, _) => {
            has_steps(q)
        }
        PatternKind::Range(a, b) => has_steps(a) || has_steps(b),
        _ => false,
    }
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
        PatternKind::Guarded {
            pattern,
            with,
            guard,
        } => expand(pattern)
            .into_iter()
            .map(|q| {
                at(PatternKind::Guarded {
                    pattern: Box::new(q),
                    with: with.clone(),
                    guard: guard.clone(),
                })
            })
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
