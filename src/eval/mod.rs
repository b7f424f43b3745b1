//! The evaluator: compiles the typed IR to an executable form and runs it over unboxed,
//! shared storage.
//!
//! Architecture invariant: no type checking happens here; every value's type is known from
//! the IR. Output goes only through the writer passed in.

pub mod closure;
pub mod value;

use std::io::Write;

use crate::core::ir::Unit;
use crate::diag::Diagnostic;
use value::Value;

/// The evaluator's persistent state for a session: compiled functions and global slots.
pub struct Machine {}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

impl Machine {
    pub fn new() -> Machine {
        Machine {}
    }

    /// Run one unit (a program, the prelude or a REPL chunk). Returns the value of
    /// `Unit::result` when there is one. A runtime error keeps the effects before it.
    pub fn run(&mut self, unit: &Unit, out: &mut dyn Write) -> Result<Option<Value>, Diagnostic> {
        let _ = (unit, out);
        todo!("evaluator")
    }
}
