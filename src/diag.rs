//! Diagnostics: one renderer-independent `Diagnostic` for every stage's errors, and its
//! rendering with ariadne. This is the only module that imports ariadne.

use crate::syntax::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
}

/// Where an error was found: decides the exit status (L0.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Syntax, name, type, kind, `:>>`: nothing has run. Exit status 1.
    Static,
    /// A runtime error (L8.3). Exit status 3.
    Runtime,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub stage: Stage,
    /// Stable code (`E0301`, `R0003`, …).
    pub code: &'static str,
    pub message: String,
    /// The primary location.
    pub span: Span,
    /// The label on the primary span.
    pub label: String,
    /// Secondary labelled spans.
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(stage: Stage, code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            stage,
            code,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}
