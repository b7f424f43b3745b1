//! The checker: names, scopes, types, kinds, overloads; produces the typed IR (`core::ir`).
//!
//! Architecture invariant: all typing complexity (overloads, implicit conversions, inference,
//! polymorphism) lives here; the IR it produces has concrete kernels and explicit conversions.

use crate::core::ir::Unit;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Chunk, Expr, Stmt, TypeExpr};
use crate::types::Type;

/// The checker's persistent state: the global scopes of a session (the prelude, then each
/// program or REPL chunk as a new nested scope), the function table, the type definitions.
pub struct Checker {}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

impl Checker {
    pub fn new() -> Checker {
        Checker {}
    }

    /// Check a whole program (or the prelude) as one new scope nested in everything defined so
    /// far. On error nothing is kept.
    pub fn check_program(&mut self, stmts: &[Stmt]) -> Result<Unit, Vec<Diagnostic>> {
        let _ = stmts;
        todo!("checker")
    }

    /// Check one REPL chunk (L9.4): a new nested scope; an expression chunk sets `Unit::result`.
    pub fn check_chunk(&mut self, chunk: &Chunk) -> Result<Unit, Vec<Diagnostic>> {
        let _ = chunk;
        todo!("checker")
    }

    /// The type of an expression in the current scope, without running anything (`:type`).
    pub fn type_of_expr(&mut self, expr: &Expr) -> Result<Type, Vec<Diagnostic>> {
        let _ = expr;
        todo!("checker")
    }

    /// Resolve a type expression in the current scope (`:kind`, `:size`, `:layout`, `:iso`).
    pub fn resolve_type(&mut self, ty: &TypeExpr) -> Result<Type, Vec<Diagnostic>> {
        let _ = ty;
        todo!("checker")
    }
}
