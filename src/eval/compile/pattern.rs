//! Patterns and `match`: a pattern compiled to a test that binds variables as it goes, an
//! arm to its patterns, guard and body.

use crate::core::ir::{Arm, Pattern, PatternKind};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::array::Shape;
use super::super::code::{BindCode, ExprCode};
use super::super::compact::{code_u64, SumLayout};
use super::super::error::{runtime_error, NO_MATCH};
use super::super::format as show;
use super::super::prims;
use super::super::value::{ArgForm, Value};
use super::super::{Ctrl, Frame};
use super::{assign, const_value, Compiler};
use std::sync::Arc;

impl Compiler<'_> {
    pub(super) fn arm<B, C>(
        &mut self,
        arm: &Arm<B>,
        body: impl FnOnce(&mut Self, &B) -> C,
    ) -> CompiledArm<C> {
        CompiledArm {
            patterns: arm.patterns.iter().map(|p| self.pattern(p)).collect(),
            guard: arm.guard.as_ref().map(|g| self.expr(g)),
            body: body(self, &arm.body),
        }
    }

    pub fn pattern(&mut self, pattern: &Pattern) -> BindCode {
        match &pattern.kind {
            PatternKind::Wildcard => Box::new(|_, _| Ok(true)),
            PatternKind::Bind(place) => {
                let place = *place;
                self.note_place(place);
                Box::new(move |frame, value| {
                    assign(frame, place, value.clone());
                    Ok(true)
                })
            }
            PatternKind::As(inner, place) => {
                let place = *place;
                self.note_place(place);
                let inner = self.pattern(inner);
                Box::new(move |frame, value| {
                    if inner(frame, value)? {
                        assign(frame, place, value.clone());
                        Ok(true)
                    } else {
                        Ok(false)
                    }
                })
            }
            PatternKind::Const(c) => {
                let expected = const_value(c, &pattern.ty);
                let compare = prims::comparator(&pattern.ty);
                Box::new(move |_, value| Ok(compare(value, &expected).is_eq()))
            }
            PatternKind::Range(lo, hi) => {
                let (lo, hi) = (const_value(lo, &pattern.ty), const_value(hi, &pattern.ty));
                let compare = prims::comparator(&pattern.ty);
                Box::new(move |_, value| {
                    Ok(compare(value, &lo).is_ge() && compare(value, &hi).is_le())
                })
            }
            PatternKind::Tuple(parts) => {
                let codes: Arc<[BindCode]> = parts.iter().map(|p| self.pattern(p)).collect();
                tuple_test(codes, Shape::of(&pattern.ty))
            }
            PatternKind::Inject { tag, arg } => {
                let tag = *tag;
                // A pattern of parts (`Cons (h, t)`) tests a node holding its argument as
                // parts (`value::SumNode`) on the parts where they are.
                let (arg, parts) = match arg.as_deref() {
                    Some(
                        arg @ Pattern {
                            kind: PatternKind::Tuple(parts),
                            ..
                        },
                    ) => {
                        let codes: Arc<[BindCode]> =
                            parts.iter().map(|p| self.pattern(p)).collect();
                        let of_parts = ArgForm::of(&arg.ty) != ArgForm::Whole;
                        let test = tuple_test(codes.clone(), Shape::of(&arg.ty));
                        (Some(test), of_parts.then_some(codes))
                    }
                    Some(arg) => (Some(self.pattern(arg)), None),
                    None => (None, None),
                };
                Box::new(move |frame, value| {
                    let sum = match value {
                        Value::Sum(sum) if sum.tag() == tag => sum,
                        Value::Int(code) if *code as u32 == tag => {
                            return match &arg {
                                Some(code) => code(frame, &Value::Unit),
                                None => Ok(true),
                            };
                        }
                        _ => return Ok(false),
                    };
                    match (&arg, &parts, sum.form()) {
                        (None, _, _) => Ok(true),
                        (Some(code), _, ArgForm::Whole) => code(frame, &sum.parts()[0]),
                        (_, Some(parts), _) if parts.len() == sum.parts().len() => {
                            for (code, part) in parts.iter().zip(sum.parts()) {
                                if !code(frame, part)? {
                                    return Ok(false);
                                }
                            }
                            Ok(true)
                        }
                        (Some(code), _, _) => code(frame, &sum.argument()),
                    }
                })
            }
            PatternKind::CInject { tag, arg } => {
                let tag = *tag as usize;
                let arg = arg.as_ref().map(|a| self.pattern(a));
                let Some(layout) = SumLayout::of(&pattern.ty) else {
                    // A unitsum matched by case number: the code is the tag.
                    return Box::new(move |_, value| Ok(code_u64(value) == tag as u64));
                };
                Box::new(move |frame, value| {
                    let (actual, payload) = layout.split(value);
                    if actual != tag {
                        return Ok(false);
                    }
                    match &arg {
                        Some(code) => code(frame, &payload),
                        None => Ok(true),
                    }
                })
            }
        }
    }
}

/// A compiled match arm.
pub(super) struct CompiledArm<B> {
    patterns: Vec<BindCode>,
    guard: Option<ExprCode>,
    body: B,
}

/// The body of the first arm whose pattern matches and whose guard holds.
pub(super) fn select_arm<'b, B>(
    frame: &mut Frame<'_, '_>,
    arms: &'b [CompiledArm<B>],
    value: &Value,
) -> Result<Option<&'b B>, Ctrl> {
    for arm in arms {
        let mut matched = false;
        for pattern in &arm.patterns {
            if pattern(frame, value)? {
                matched = true;
                break;
            }
        }
        if !matched {
            continue;
        }
        let guard_holds = match &arm.guard {
            Some(guard) => guard(frame)?.truthy(),
            None => true,
        };
        if guard_holds {
            return Ok(Some(&arm.body));
        }
    }
    Ok(None)
}

pub(crate) fn no_match(value: &Value, ty: &Type, span: Span) -> Ctrl {
    runtime_error(
        NO_MATCH,
        format!(
            "no match case for the value {} of type {ty}",
            show::strr_value(value, ty)
        ),
        span,
    )
}

/// The test of a tuple pattern whose parts' tests are `codes`, on a tuple, or on an array of
/// shape `shape` (a tuple of equal types is one).
fn tuple_test(codes: Arc<[BindCode]>, shape: Option<Shape>) -> BindCode {
    Box::new(move |frame, value| {
        for (i, code) in codes.iter().enumerate() {
            let matched = match (value, &shape) {
                (Value::Tuple(items), _) => code(frame, items.get(i).unwrap_or(&Value::Unit))?,
                (Value::Array(view), Some(shape)) => {
                    match view.boxed_leaf(i).filter(|_| !shape.elem_is_array) {
                        Some(leaf) => code(frame, leaf)?,
                        None => code(frame, &shape.element(view, i))?,
                    }
                }
                _ => code(frame, &Value::Unit)?,
            };
            if !matched {
                return Ok(false);
            }
        }
        Ok(true)
    })
}
