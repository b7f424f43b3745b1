//! Patterns, checked against the type of the value they match.

use crate::check::alternatives::Step;
use crate::check::error::CheckError;
use crate::check::expr::suffix_type;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, Const, PatternKind};
use crate::syntax::ast::{self, Pattern};
use crate::types::ty::{NominalBody, Type};

impl Checker {
    pub(crate) fn pattern(&mut self, p: &Pattern, ty: &Type) -> ir::Pattern {
        let ty = self.zonk(ty);
        let span = p.span;
        let pat = |kind: PatternKind, ty: Type| ir::Pattern { kind, ty, span };
        match &p.node {
            ast::PatternKind::Wildcard | ast::PatternKind::Unit => pat(PatternKind::Wildcard, ty),
            ast::PatternKind::Name(n) => {
                // A constant constructor of the matched variant is not a binding.
                if let Type::Nominal(nd) = &ty {
                    if let Some(NominalBody::Variant(cs)) = nd.body() {
                        if let Some(k) = cs.iter().position(|(c, a)| **c == **n && a.is_none()) {
                            return pat(
                                PatternKind::Inject {
                                    tag: k as u32,
                                    arg: None,
                                },
                                ty,
                            );
                        }
                    }
                }
                let place = self.bind_pattern_name(n, span, &ty);
                pat(PatternKind::Bind(place), ty)
            }
            ast::PatternKind::Int { negative, lit } => {
                let value = lit.value.unwrap_or(u128::MAX) as i128;
                let value = if *negative { -value } else { value };
                match &ty {
                    Type::Int(it) if suffix_type(&lit.suffix).is_ok() => {
                        if !it.contains(value) {
                            self.error(CheckError::LiteralRange {
                                span,
                                value: value.to_string(),
                                ty: it.name().into(),
                            });
                        }
                        pat(PatternKind::Const(Const::Int(value as i64)), ty)
                    }
                    Type::Unitsum(n) if value >= 0 && (value as u128) < *n as u128 => {
                        pat(PatternKind::Const(Const::Int(value as i64)), ty)
                    }
                    t => self.pattern_mismatch(p, t, "an integer"),
                }
            }
            ast::PatternKind::Str(s) => match &ty {
                Type::String => pat(PatternKind::Const(Const::Str(s.as_slice().into())), ty),
                t => self.pattern_mismatch(p, t, "a string"),
            },
            ast::PatternKind::Bool(b) => {
                if ty.is_bool() {
                    pat(PatternKind::Const(Const::Int(*b as i64)), ty)
                } else {
                    self.pattern_mismatch(p, &ty, "a bool")
                }
            }
            ast::PatternKind::Tuple(ps) => {
                let comps = match &ty {
                    Type::Nominal(nd) => match nd.body() {
                        Some(NominalBody::Struct(fs)) => {
                            Some(fs.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>())
                        }
                        _ => None,
                    },
                    t => t.tuple_components(),
                };
                match comps {
                    Some(cs) if cs.len() == ps.len() => {
                        let subs = ps
                            .iter()
                            .zip(cs.iter())
                            .map(|(q, t)| self.pattern(q, t))
                            .collect();
                        pat(PatternKind::Tuple(subs), ty)
                    }
                    _ => self.pattern_mismatch(
                        p,
                        &ty,
                        &format!("a tuple of {} components", ps.len()),
                    ),
                }
            }
            ast::PatternKind::Record(fields) => self.record_pattern(fields, &ty, span),
            ast::PatternKind::Case(k, arg) => {
                let kv = k.value.unwrap_or(u128::MAX);
                match &ty {
                    Type::Unitsum(n) if arg.is_none() => {
                        if kv >= *n as u128 {
                            self.error(CheckError::UnitsumRange {
                                span,
                                k: kv,
                                n: n.to_string(),
                            });
                        }
                        pat(PatternKind::Const(Const::Int(kv as i64)), ty)
                    }
                    Type::Sum(cs) | Type::CSum(cs) => {
                        let compact = matches!(ty, Type::CSum(_));
                        let Some(summand) = cs.get(kv as usize).cloned() else {
                            self.error(CheckError::UnitsumRange {
                                span,
                                k: kv,
                                n: format!("{} summands of `{ty}`", cs.len()),
                            });
                            return pat(PatternKind::Wildcard, ty);
                        };
                        let sub = arg.as_ref().map(|a| Box::new(self.pattern(a, &summand)));
                        let tag = kv as u32;
                        if compact {
                            pat(PatternKind::CInject { tag, arg: sub }, ty)
                        } else {
                            pat(PatternKind::Inject { tag, arg: sub }, ty)
                        }
                    }
                    t => self.pattern_mismatch(p, t, "a sum"),
                }
            }
            ast::PatternKind::Constant(name) => self.constant_pattern(p, name, &ty),
            ast::PatternKind::As(inner, name) => {
                let inner = self.pattern(inner, &ty);
                let place = self.bind_pattern_name(&name.node, name.span, &ty);
                pat(PatternKind::As(Box::new(inner), place), ty)
            }
            // Alternatives are distributed by `arm_heads` before their patterns are checked.
            ast::PatternKind::Alt(_) => {
                self.type_error(
                    span,
                    "alternatives may stand only in a `match` arm or a `let … in`",
                );
                pat(PatternKind::Wildcard, ty)
            }
            // `with` bindings and a guard inside the pattern: done by `arm_heads` once the
            // whole alternative matched.
            ast::PatternKind::Guarded {
                pattern,
                with,
                guard,
            } => {
                let inner = self.pattern(pattern, &ty);
                if !with.is_empty() {
                    self.unit.pattern_steps.push(Step::With(with.clone()));
                }
                if let Some(g) = guard {
                    self.unit.pattern_steps.push(Step::Guard((**g).clone()));
                }
                inner
            }
            // `$(e)`: the value is bound to a variable the program cannot name, which
            // `arm_heads` compares with `e`.
            ast::PatternKind::Expr(value) => {
                let place = self.hidden_place();
                self.unit.pattern_steps.push(Step::Equal {
                    place,
                    ty: ty.clone(),
                    value: (**value).clone(),
                    span,
                });
                pat(PatternKind::Bind(place), ty)
            }
            ast::PatternKind::Range(lo, hi) => self.range_pattern(p, lo, hi, &ty),
            ast::PatternKind::Ctor(name, arg) => {
                if let Type::Nominal(nd) = &ty {
                    if let Some(NominalBody::Variant(cs)) = nd.body() {
                        if let Some(k) = cs.iter().position(|(c, _)| **c == **name) {
                            self.note_ctor_use(span, name);
                            let sub = match &cs[k].1 {
                                Some(at) => Some(Box::new(self.pattern(arg, at))),
                                None => {
                                    self.type_error(
                                        span,
                                        format!("the constructor `{name}` takes no argument"),
                                    );
                                    None
                                }
                            };
                            return pat(
                                PatternKind::Inject {
                                    tag: k as u32,
                                    arg: sub,
                                },
                                ty,
                            );
                        }
                    }
                }
                self.pattern_mismatch(p, &ty, &format!("the constructor `{name}`"))
            }
        }
    }

    /// `#A` or `A`: a constant constructor of the matched variant.
    fn constant_pattern(&mut self, p: &Pattern, name: &str, ty: &Type) -> ir::Pattern {
        let span = p.span;
        if let Type::Nominal(nd) = ty {
            if let Some(NominalBody::Variant(cs)) = nd.body() {
                if let Some(k) = cs.iter().position(|(c, a)| **c == *name && a.is_none()) {
                    return ir::Pattern {
                        kind: PatternKind::Inject {
                            tag: k as u32,
                            arg: None,
                        },
                        ty: ty.clone(),
                        span,
                    };
                }
            }
        }
        if *ty != error_type() {
            let hint = match ty {
                Type::Nominal(_) => format!("`{ty}` has no constant constructor `{name}`"),
                _ => format!("the value matched is `{ty}`, not a variant"),
            };
            self.error(CheckError::UndefinedName {
                name: name.into(),
                span,
                what: "constant constructor",
                hint: Some(format!(
                    "{hint}; a pattern name starting with an upper-case letter is a constructor, never a binding"
                )),
            });
        }
        ir::Pattern {
            kind: PatternKind::Wildcard,
            ty: ty.clone(),
            span,
        }
    }

    /// `lo .. hi`: both bounds literals of the matched type.
    fn range_pattern(&mut self, p: &Pattern, lo: &Pattern, hi: &Pattern, ty: &Type) -> ir::Pattern {
        let lo = self.pattern(lo, ty);
        let hi = self.pattern(hi, ty);
        let kind = match (lo.kind, hi.kind) {
            (PatternKind::Const(a), PatternKind::Const(b)) => PatternKind::Range(a, b),
            (PatternKind::Wildcard, _) | (_, PatternKind::Wildcard) => PatternKind::Wildcard,
            _ => {
                self.type_error(p.span, "the bounds of a range pattern must be literals");
                PatternKind::Wildcard
            }
        };
        ir::Pattern {
            kind,
            ty: ty.clone(),
            span: p.span,
        }
    }

    fn pattern_mismatch(&mut self, p: &Pattern, t: &Type, what: &str) -> ir::Pattern {
        if *t != error_type() {
            self.type_error(
                p.span,
                format!("this pattern is {what}, but the value is `{t}`"),
            );
        }
        ir::Pattern {
            kind: PatternKind::Wildcard,
            ty: t.clone(),
            span: p.span,
        }
    }
}
