//! The visibility dimension (issue 14; seed: the SPU type system). A type is a data type with
//! a visibility, `public` (the default) or `secret` (`Type::Secret` around a scalar leaf), and
//! `narrow` is the join of the lattice `public < secret`: an operation with a secret operand has
//! a secret result.
//!
//! This module holds what the checker needs to keep secrets in:
//! - the *sinks*, where only a public value may go (printing, a branch, a shape, a public
//!   place, a public result), each with its own error code (E0800–E0806);
//! - where a secret value came from (the declaration of the secret variable it was computed
//!   from), named by every error;
//! - the *visibility instances* of functions: a function written for public parameters is
//!   checked again with secret parameters when it is called with secret arguments, so a
//!   function is polymorphic in visibility exactly when its body keeps secrets in.
//!
//! The evaluator never sees visibility: the checker erases it from the IR it produces
//! (`Type::erase_secret`), so a secret value costs what a public one does.

use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir;
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// Where a secret may not go without `reveal`; each is an error code of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretUse {
    /// E0800: `secret` written on a type that holds no data of its own (a function, a
    /// pointer), or `public` on a secret type.
    Qualifier,
    /// E0801: printed, or turned into a string (`str`, `repr`, a format).
    Print,
    /// E0802: the condition of `if`, `while`, `until`, a conditional expression, a `match`.
    Branch,
    /// E0803: a shape or a position: a loop bound, an array index, a projection, a decode to a
    /// compact type, the length of a string.
    Shape,
    /// E0804: stored into a public variable, array element or pointer target.
    Store,
    /// E0805: returned from a function whose result is public.
    Return,
    /// E0806: passed to a function that does not keep it secret (a public parameter of a
    /// function value, or a function whose body would reveal it).
    Call,
}

impl SecretUse {
    pub fn code(self) -> &'static str {
        match self {
            SecretUse::Qualifier => "E0800",
            SecretUse::Print => "E0801",
            SecretUse::Branch => "E0802",
            SecretUse::Shape => "E0803",
            SecretUse::Store => "E0804",
            SecretUse::Return => "E0805",
            SecretUse::Call => "E0806",
        }
    }

    /// The message, completed by the error's detail.
    pub fn message(self, detail: &str) -> String {
        match self {
            SecretUse::Qualifier => detail.to_string(),
            SecretUse::Print => format!("a secret value cannot be {detail}"),
            SecretUse::Branch => format!("a secret `bool` cannot decide {detail}"),
            SecretUse::Shape => format!("a secret value cannot be used as {detail}"),
            SecretUse::Store => format!("a secret value cannot be stored into {detail}"),
            SecretUse::Return => format!("a secret value cannot be returned from {detail}"),
            SecretUse::Call => format!("a secret value cannot be passed to {detail}"),
        }
    }

    pub fn help(self) -> String {
        match self {
            SecretUse::Qualifier => "`secret` qualifies data: scalars, and (distributed to their elements) tuples, arrays and records".into(),
            SecretUse::Print | SecretUse::Shape => "write `reveal e` where the program means to make the value public".into(),
            SecretUse::Branch => "a branch on a secret would reveal it through what runs; compute both sides and combine them arithmetically, or `reveal` the condition".into(),
            SecretUse::Store => "declare the destination `secret`, or `reveal` the value".into(),
            SecretUse::Return => "declare the result `secret`, or `reveal` the value".into(),
            SecretUse::Call => "declare the parameter `secret`, or call a named function whose body keeps the value secret".into(),
        }
    }
}

impl Checker {
    /// Note a read of a variable whose type mentions `secret`: errors name it, and trace it
    /// to the secret variable it was computed from.
    pub(crate) fn note_secret_read(&mut self, name: &str, read: Span, declared: Span, local: bool) {
        let root = match self.secret_roots.get(&declared) {
            Some(root) => Some(root.clone()),
            None => local.then(|| (name.to_string(), declared)),
        };
        self.secret_reads.push((read, name.to_string(), root));
    }

    /// A variable declared at `declared` without `secret` got a secret value from the
    /// expression at `init`: it is secret because of what that expression reads.
    pub(crate) fn note_secret_variable(&mut self, declared: Span, init: Span) {
        if let Some((_, Some(root))) = self.secret_origin(init) {
            self.secret_roots.insert(declared, root);
        }
    }

    /// The secret variable an expression at `span` reads first: its name and the variable it
    /// is secret because of (declared in the unit being checked).
    fn secret_origin(&self, span: Span) -> Option<(String, Option<(String, Span)>)> {
        self.secret_reads
            .iter()
            .filter(|(read, _, _)| read.start >= span.start && read.end <= span.end)
            .min_by_key(|(read, _, _)| read.start)
            .map(|(_, name, root)| (name.clone(), root.clone()))
    }

    /// Complete a secret error made without the checker's knowledge (by the behaviours of
    /// `traits.rs`): the value's name and where it became secret.
    pub(crate) fn explain_secret(&self, e: CheckError) -> CheckError {
        match e {
            CheckError::Secret {
                span,
                use_,
                origin: None,
                detail,
                ..
            } => {
                let found = self.secret_origin(span);
                let what = match &found {
                    Some((name, _)) if span_is_name(self, span, name) => format!("`{name}`"),
                    Some((name, _)) => format!("this value (computed from `{name}`)"),
                    None => "this value".to_string(),
                };
                CheckError::Secret {
                    span,
                    use_,
                    what,
                    origin: found.and_then(|(_, root)| root),
                    detail,
                }
            }
            e => e,
        }
    }

    /// Report the secret value at `span` used as `use_`.
    pub(crate) fn secret_error(&mut self, span: Span, use_: SecretUse, detail: impl Into<String>) {
        self.error(CheckError::Secret {
            span,
            use_,
            what: String::new(),
            origin: None,
            detail: detail.into(),
        });
    }

    /// Require `e` to be public where it is used as `use_`; report and answer `false` if it
    /// is secret.
    pub(crate) fn require_public(
        &mut self,
        e: &ir::Expr,
        use_: SecretUse,
        detail: impl Into<String>,
    ) -> bool {
        let t = self.zonk(&e.ty);
        if !t.has_secret() {
            return true;
        }
        self.secret_error(e.span, use_, detail);
        false
    }

    /// The sink a coercion's context names (`coerce_to`'s `context`).
    pub(crate) fn sink_of_context(context: &str) -> (SecretUse, String) {
        if context.contains("returned") || context.contains("function result") {
            (SecretUse::Return, "a function whose result is public".into())
        } else if context.starts_with("the argument") || context.contains("parameter") {
            (SecretUse::Call, format!("a public parameter ({context})"))
        } else {
            (SecretUse::Store, format!("a public place ({context})"))
        }
    }
}

/// Is the text at `span` just the variable's name (so the error says `` `s` is secret ``)?
fn span_is_name(c: &Checker, span: Span, name: &str) -> bool {
    c.secret_reads
        .iter()
        .any(|(read, n, _)| *read == span && n == name)
}

/// May a value of type `found` go where `expected` is wanted, as far as visibility goes (the
/// data types being the same)? Public goes anywhere; secret only into secret.
pub(crate) fn visibility_fits(found: &Type, expected: &Type) -> bool {
    if !found.has_secret() {
        return true;
    }
    match (found, expected) {
        (_, Type::Secret(_)) => true,
        (Type::Secret(_), _) => false,
        (Type::Fun(a1, r1), Type::Fun(a2, r2)) => {
            // Contravariant in the argument.
            visibility_fits(a2, a1) && visibility_fits(r1, r2)
        }
        _ => {
            let (fs, es): (Vec<&Type>, Vec<&Type>) = match (found, expected) {
                (Type::Tuple(_) | Type::Array(..), Type::Tuple(_) | Type::Array(..)) => {
                    match (found.tuple_components(), expected.tuple_components()) {
                        (Some(f), Some(e)) if f.len() == e.len() => {
                            return f.iter().zip(&e).all(|(f, e)| visibility_fits(f, e));
                        }
                        _ => (found.children().collect(), expected.children().collect()),
                    }
                }
                _ => (found.children().collect(), expected.children().collect()),
            };
            fs.len() == es.len() && fs.iter().zip(&es).all(|(f, e)| visibility_fits(f, e))
        }
    }
}

/// Give an operand the public type of its data (its root, and the components of a tuple or
/// array literal, which rules take apart): the operation is then typed on data types, and
/// its result narrowed.
pub(crate) fn strip(e: &mut ir::Expr) {
    e.ty = e.ty.erase_secret();
    if let ir::ExprKind::Tuple(parts) | ir::ExprKind::Array(parts) | ir::ExprKind::CTuple(parts) =
        &mut e.kind
    {
        parts.iter_mut().for_each(strip);
    }
}
