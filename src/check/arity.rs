//! Wrong arity: "`add3` takes 3 arguments, 2 given", with the call form that fits
//! the function (curried `add a b`, tupled `add3 (a, b, c)`, mixed `f (a, b) c`), for user
//! functions and library primitives. E0301, the code of every failed application.

use crate::check::build::{error_expr, Arg};
use crate::check::error::CheckError;
use crate::check::traits::{self, Behaviour};
use crate::check::{error_type, Checker};
use crate::core::ir;
use crate::syntax::ast;
use crate::syntax::span::Span;
use crate::types::ty::Type;

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// How a user function is called: `add a b`, `add3 (a, b, c)`, `f (a, b) c`, `g ()`.
pub(crate) fn call_form(name: &str, def: &ast::FunDef) -> String {
    let mut form = name.to_string();
    for group in &def.params {
        let names: Vec<&str> = group.params.iter().map(|p| p.name.node.as_str()).collect();
        match names.len() {
            1 => form.push_str(&format!(" {}", names[0])),
            _ => form.push_str(&format!(" ({})", names.join(", "))),
        }
    }
    form
}

/// Are all of a function's groups single parameters (a curried function, or one of one
/// parameter)? Then an argument group is an argument.
fn curried(def: &ast::FunDef) -> bool {
    def.params.iter().all(|g| g.params.len() == 1)
}

impl Checker {
    /// After a function was applied to its `taken` argument groups, giving `call`: are the
    /// further arguments `rest` too many (its result cannot be applied)? Then report the
    /// arity of `name` (`form` is how it is called) and `Ok(error)`; otherwise give the
    /// arguments back.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn over_application<'a>(
        &mut self,
        name: &str,
        form: &str,
        taken: usize,
        curried_form: bool,
        call: &ir::Expr,
        rest: Vec<Arg<'a>>,
        span: Span,
    ) -> Result<ir::Expr, Vec<Arg<'a>>> {
        if rest.is_empty() {
            return Err(rest);
        }
        let result = self.zonk(&call.ty);
        if result == error_type()
            || result.has_meta()
            || traits::check(&result, Behaviour::Invocable).is_ok()
        {
            return Err(rest);
        }
        let given = taken + rest.len();
        let message = if curried_form {
            format!(
                "`{name}` takes {}, {given} given",
                plural(taken, "argument")
            )
        } else {
            format!(
                "`{name}` takes {}, {given} given",
                plural(taken, "argument group")
            )
        };
        self.error(CheckError::Arity {
            span,
            message,
            label: format!("{} given", plural(given, "argument")),
            help: format!(
                "call it as `{form}`; its result, of type `{result}`, cannot be applied to a further argument"
            ),
        });
        // The extra arguments are still checked for their own errors.
        for a in rest {
            if let Arg::Ast(e) = a {
                self.expr(e, None);
            }
        }
        Ok(error_expr(span))
    }

    /// A user function applied to too many argument groups.
    pub(crate) fn over_applied_fun<'a>(
        &mut self,
        idx: usize,
        call: &ir::Expr,
        rest: Vec<Arg<'a>>,
        span: Span,
    ) -> Result<ir::Expr, Vec<Arg<'a>>> {
        let def = self.funs[idx].def.clone();
        let name = self.funs[idx].name.clone();
        let form = call_form(&name, &def);
        self.over_application(
            &name,
            &form,
            def.params.len(),
            curried(&def),
            call,
            rest,
            span,
        )
    }

    /// The sole definition `idx` of `name` does not accept the first argument, of type
    /// `at`: when the mismatch is the number of arguments of a tuple parameter group
    /// (`add3 (1, 2)`, `add3 1 2 3`, `sq (1, 2)`), report it as an arity (`true`).
    pub(crate) fn tuple_arity_mismatch(
        &mut self,
        idx: usize,
        at: &Type,
        further: usize,
        span: Span,
    ) -> bool {
        let def = self.funs[idx].def.clone();
        let name = self.funs[idx].name.clone();
        let Some(first) = def.params.first() else {
            return false;
        };
        let wanted = first.params.len();
        let group_ty = self.funs[idx].groups.first().cloned();
        let group_components = group_ty
            .as_ref()
            .and_then(|t| t.tuple_components())
            .map(|c| c.len());
        // A group of one parameter of a tuple type is not counted in arguments.
        if wanted == 1 && group_components.is_some() {
            return false;
        }
        if wanted == 0 {
            return false;
        }
        let given = at.tuple_components().map_or(1, |c| c.len());
        let form = call_form(&name, &def);
        let (message, label) = if given == 1 && further > 0 {
            // `add3 1 2 3`: the arguments given one by one.
            (
                format!(
                    "`{name}` takes {} in one tuple, {} given one by one",
                    plural(wanted, "argument"),
                    further + 1
                ),
                format!("{} given separately", plural(further + 1, "argument")),
            )
        } else if given != wanted {
            (
                format!(
                    "`{name}` takes {}, {given} given",
                    plural(wanted, "argument")
                ),
                format!("{} given", plural(given, "argument")),
            )
        } else {
            return false;
        };
        self.error(CheckError::Arity {
            span,
            message,
            label,
            help: format!("call it as `{form}`"),
        });
        true
    }
}
