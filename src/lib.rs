//! Tessera: an interpreter for a Felix-style array language built on compact linear types.
//!
//! The pipeline: `syntax` (lex, parse) -> `check` (names, types, kinds; typed IR in `core`)
//! -> `eval` (compile the IR, run it). `Session` is the facade the CLI, the REPL and the tests
//! all use.

pub mod check;
pub mod core;
pub mod diag;
pub mod eval;
pub mod syntax;
pub mod types;
