//! Runtime errors (L8.3): each is a `Diagnostic` with `Stage::Runtime`, wrapped in `Ctrl`.

use crate::diag::{Diagnostic, Stage};
use crate::syntax::span::Span;

use super::Ctrl;

/// The codes of L8.3.
pub const INDEX_OUT_OF_RANGE: &str = "R0001";
pub const DECODE_OUT_OF_RANGE: &str = "R0002";
pub const OVERFLOW: &str = "R0003";
pub const DIVISION_BY_ZERO: &str = "R0004";
pub const CONVERSION_OUT_OF_RANGE: &str = "R0005";
pub const NO_MATCH: &str = "R0006";
pub const TOO_LARGE: &str = "R0007";
pub const RECURSION_TOO_DEEP: &str = "R0008";
/// `assert` of a false condition (L11.24).
pub const ASSERTION_FAILURE: &str = "R0009";
/// A shift count below 0 or not below the bit width (L11.30).
pub const SHIFT_OUT_OF_RANGE: &str = "R0010";
/// A hoisted variable read before its initialiser has run.
pub const USED_BEFORE_INITIALISATION: &str = "R0011";
/// Evaluation stopped by the user (Ctrl-C).
pub const INTERRUPTED: &str = "R0012";
/// A violated evaluator invariant (an IR shape the checker never produces); not a user error.
pub const INTERNAL: &str = "R0000";

/// A runtime error with the given code and message at `span`.
pub fn runtime_error(code: &'static str, message: impl Into<String>, span: Span) -> Ctrl {
    let message = message.into();
    let label = match code {
        INDEX_OUT_OF_RANGE => "index out of range",
        DECODE_OUT_OF_RANGE => "decode out of range",
        OVERFLOW => "integer overflow",
        DIVISION_BY_ZERO => "division by zero",
        CONVERSION_OUT_OF_RANGE => "conversion out of range",
        NO_MATCH => "no match case",
        TOO_LARGE => "allocation too large",
        RECURSION_TOO_DEEP => "recursion too deep",
        ASSERTION_FAILURE => "assertion failure",
        SHIFT_OUT_OF_RANGE => "shift count out of range",
        USED_BEFORE_INITIALISATION => "read before its initialiser has run",
        INTERRUPTED => "interrupted here",
        INTERNAL => "internal evaluator error",
        _ => "runtime error",
    };
    Ctrl::Error(Box::new(
        Diagnostic::new(Stage::Runtime, code, message, span).with_label(label),
    ))
}

/// A fault found by a kernel that does not know its span; the compiled node adds the span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub code: &'static str,
    pub message: String,
}

impl Fault {
    pub fn new(code: &'static str, message: impl Into<String>) -> Fault {
        Fault {
            code,
            message: message.into(),
        }
    }

    pub fn at(self, span: Span) -> Ctrl {
        runtime_error(self.code, self.message, span)
    }
}

/// R0011: the global `def` was read at `span` before its initialiser ran.
pub fn used_before_initialisation(def: &crate::core::ir::GlobalDef, span: Span) -> Ctrl {
    let name = &def.name;
    Ctrl::Error(Box::new(
        Diagnostic::new(
            Stage::Runtime,
            USED_BEFORE_INITIALISATION,
            format!("`{name}` is used before its initialiser has run"),
            span,
        )
        .with_label(format!("`{name}` has no value yet here"))
        .with_secondary(def.span, format!("`{name}` is defined here"))
        .with_help(format!(
            "definitions are visible in their whole scope, but `{name}` only gets its \
             value when its definition runs: move the definition before the first use"
        )),
    ))
}

/// R0012: evaluation stopped by Ctrl-C at `span` (a loop header or a call).
pub fn interrupted(span: Span) -> Ctrl {
    Ctrl::Error(Box::new(
        Diagnostic::new(Stage::Runtime, INTERRUPTED, "Interrupted.", span)
            .with_label("evaluation was here when Ctrl-C was pressed"),
    ))
}
