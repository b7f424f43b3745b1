//! Lexing and parsing: source text to the untyped syntax tree (`ast`).
//!
//! Architecture invariant: this module knows nothing about types or evaluation. Parsing never
//! fails as a whole: it returns what it could parse and every error it found.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod span;
pub mod token;

pub use span::{Span, Spanned};

/// A syntax error (E0100, or a literal error E0601/E0602 found while lexing).
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub span: Span,
    /// The stable code: `E0100` for syntax errors, `E0602` for an unsupported literal suffix.
    pub code: &'static str,
    pub message: String,
    /// A label for the span (e.g. "expected `;`").
    pub label: String,
    pub help: Option<String>,
    /// The parser ran out of input (the REPL reads another line instead of reporting it).
    pub at_end: bool,
}

/// The result of parsing one REPL chunk (L9.4).
#[derive(Clone, Debug)]
pub enum ChunkParse {
    Complete(ast::Chunk),
    /// Unexpected end of input: read another line.
    Incomplete,
    Invalid(Vec<SyntaxError>),
}
