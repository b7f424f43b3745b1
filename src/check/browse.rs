//! The names in scope at the top level, for the REPL's `:browse` and completion: the
//! user's definitions (every chunk since the prelude, innermost first) and the library's
//! (the prelude's scope and everything above it).

use std::collections::HashSet;

use super::env::Binding;
use super::Checker;

/// What a name in scope denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// A variable, function or constructor.
    Value,
    /// A typedef, struct, variant or opaque type.
    Type,
}

/// One name in scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeName {
    /// The name.
    pub name: String,
    /// Whether it names a value or a type.
    pub kind: NameKind,
    /// Defined by the prelude (the library), not by the user.
    pub library: bool,
}

impl Checker {
    /// Every name visible at the top level, each once (the innermost binding wins): user
    /// definitions first, innermost chunk first, names of one chunk sorted; then the
    /// prelude's. The representation functions of opaque types are left out.
    pub fn names_in_scope(&self) -> Vec<ScopeName> {
        let mut seen: HashSet<(String, bool)> = HashSet::new();
        let mut names = Vec::new();
        let mut library = false;
        let mut scope = Some(self.top);
        while let Some(id) = scope {
            if self.prelude_scope == Some(id) {
                library = true;
            }
            let current = &self.scopes[id];
            let mut values: Vec<&String> = current
                .values
                .iter()
                .filter(|(_, binding)| !matches!(binding, Binding::Opaque { .. }))
                .map(|(name, _)| name)
                .collect();
            values.sort();
            let mut types: Vec<&String> = current.types.keys().collect();
            types.sort();
            for (list, kind) in [(values, NameKind::Value), (types, NameKind::Type)] {
                for name in list {
                    if seen.insert((name.clone(), kind == NameKind::Type)) {
                        names.push(ScopeName {
                            name: name.clone(),
                            kind,
                            library,
                        });
                    }
                }
            }
            scope = current.parent;
        }
        names
    }
}

impl Checker {
    /// Check a REPL expression chunk as `val it = e;` followed by the result `it`, so the
    /// printed value is named `it` in the next chunks (ghci's convention). Fails like
    /// [`Checker::check_chunk`] when that does not check (the caller then checks `e` alone).
    pub fn check_chunk_naming_it(
        &mut self,
        expr: &crate::syntax::ast::Expr,
    ) -> Result<crate::core::ir::Unit, Vec<crate::diag::Diagnostic>> {
        use crate::syntax::ast::{ExprKind, StmtKind};
        use crate::syntax::span::Spanned;
        let name = || Spanned::new("it".to_string(), expr.span);
        let binding = Spanned::new(
            StmtKind::Val {
                name: name(),
                ty: None,
                init: expr.clone(),
                sizes: Vec::new(),
            },
            expr.span,
        );
        let result = Spanned::new(ExprKind::Name("it".to_string()), expr.span);
        self.check_unit(&[binding], Some(&result), true)
    }
}

/// The built-in type names (completed where a type is expected; a test checks them).
pub const BUILTIN_TYPES: &[&str] = &[
    "void", "unit", "bool", "int", "uint", "long", "ulong", "vlong", "uvlong", "size", "int8",
    "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "tiny", "utiny", "short",
    "ushort", "float", "double", "string", "char", "natural",
];

/// Is `name` a built-in type name (`int`, `double`, …)?
pub fn is_builtin_type(name: &str) -> bool {
    super::typeexpr::builtin_type(name).is_some()
}
