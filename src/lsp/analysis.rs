//! One check of one document: its syntax tree, the checker's index and the diagnostics the
//! command line would print, as LSP values. The prelude is checked once (`Base`) and every
//! document is checked in a clone of that checker, as `tessera check` checks a file.

use std::str::FromStr;
use std::sync::Arc;

use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri};

use super::position::LineIndex;
use crate::check::index::{Index, Target};
use crate::check::Checker;
use crate::diag::Diagnostic;
use crate::syntax::ast::Stmt;
use crate::syntax::span::Span;

/// A checked text.
pub(crate) struct Analysis {
    pub(crate) uri: Uri,
    pub(crate) text: String,
    pub(crate) lines: LineIndex,
    /// What the parser made of it (also when it reported errors).
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) index: Index,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Whether the text parsed without errors.
    pub(crate) parsed: bool,
}

/// The prelude, checked once: the checker every document is checked in, and its own analysis
/// (for definitions in the library).
pub(crate) struct Base {
    pub(crate) checker: Checker,
    pub(crate) prelude: Arc<Analysis>,
    /// The names the library defines, with what they are.
    pub(crate) names: Vec<crate::check::browse::ScopeName>,
}

impl Base {
    pub(crate) fn new() -> Base {
        let mut checker = Checker::new();
        let prelude = analyse(&mut checker, prelude_uri(), crate::PRELUDE.to_string());
        let names = checker.names_in_scope();
        Base {
            checker,
            prelude: Arc::new(prelude),
            names,
        }
    }

    /// Check a document (the prelude itself in a fresh checker). Nothing runs.
    pub(crate) fn check(&self, uri: Uri, text: String) -> Analysis {
        let mut checker = if uri == self.prelude.uri {
            Checker::new()
        } else {
            self.checker.clone()
        };
        analyse(&mut checker, uri, text)
    }

    /// Where a definition is: in the document, or in the prelude.
    pub(crate) fn location(&self, analysis: &Analysis, target: &Target) -> Location {
        let source = if target.library {
            &self.prelude
        } else {
            analysis
        };
        let span = name_span(&source.text, target.span, &target.name);
        Location::new(source.uri.clone(), source.lines.range(&source.text, span))
    }
}

fn analyse(checker: &mut Checker, uri: Uri, text: String) -> Analysis {
    let lines = LineIndex::new(&text);
    let (stmts, errors) =
        crate::syntax::parse_program_with(&text, crate::syntax::ParseOptions::default());
    let mut analysis = Analysis {
        uri,
        text,
        lines,
        stmts,
        index: Index::default(),
        diagnostics: Vec::new(),
        parsed: errors.is_empty(),
    };
    if !errors.is_empty() {
        // As `tessera check`: the syntax errors, and no checking.
        analysis.diagnostics = errors.iter().map(crate::diag::syntax_diagnostic).collect();
        return analysis;
    }
    let outcome = crate::catch_internal_error(|| checker.check_program_indexed(&analysis.stmts));
    match outcome {
        Ok((result, index)) => {
            analysis.index = index;
            if let Err(diags) = result {
                analysis.diagnostics = diags;
            }
        }
        Err(message) => {
            analysis.diagnostics = vec![crate::internal_error_diagnostic(&message, &analysis.text)]
        }
    }
    analysis
}

/// The span of `name` in a definition's span: the span itself when it is the name, else the
/// name's first whole-word occurrence in it (a function's span is its whole definition).
pub(crate) fn name_span(text: &str, span: Span, name: &str) -> Span {
    let Some(inside) = text.get(span.start..span.end) else {
        return span;
    };
    if inside == name || name.is_empty() {
        return span;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = inside[from..].find(name) {
        let start = from + at;
        let end = start + name.len();
        let before = inside[..start].chars().next_back();
        let after = inside[end..].chars().next();
        if !before.is_some_and(word) && !after.is_some_and(word) {
            return Span::new(span.start + start, span.start + end);
        }
        from = end;
    }
    span
}

/// The diagnostics of an analysis as the protocol's: the code, the message with the
/// primary label, notes and help the command line prints, the secondary spans as related
/// information.
pub(crate) fn lsp_diagnostics(analysis: &Analysis) -> Vec<lsp_types::Diagnostic> {
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            let mut message = d.message.clone();
            if !d.label.is_empty() && d.label != d.message {
                message.push_str(&format!("\n{}", d.label));
            }
            for note in &d.notes {
                message.push_str(&format!("\nnote: {note}"));
            }
            if let Some(help) = &d.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let related = d
                .secondary
                .iter()
                .map(|(span, label)| DiagnosticRelatedInformation {
                    location: Location::new(
                        analysis.uri.clone(),
                        analysis.lines.range(&analysis.text, *span),
                    ),
                    message: label.clone(),
                })
                .collect::<Vec<_>>();
            lsp_types::Diagnostic {
                range: analysis.lines.range(&analysis.text, d.span),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(d.code.to_string())),
                code_description: None,
                source: Some("tessera".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: None,
            }
        })
        .collect()
}

/// A `file://` URI for a path (spaces and the few characters a URI reserves escaped).
pub(crate) fn file_uri(path: &std::path::Path) -> Uri {
    let mut text = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' | '%' | '#' | '?' | '[' | ']' => text.push_str(&format!("%{:02X}", c as u32)),
            c => text.push(c),
        }
    }
    Uri::from_str(&text).unwrap_or_else(|_| Uri::from_str("file:///prelude.flx").expect("a URI"))
}

/// The prelude as a file an editor can open: the source tree's when this binary was built
/// from one that still holds the same text, else a copy in the temporary directory.
fn prelude_uri() -> Uri {
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("stdlib/prelude.flx");
    if std::fs::read_to_string(&built).is_ok_and(|text| text == crate::PRELUDE) {
        return file_uri(&built);
    }
    let dir = std::env::temp_dir().join(format!("tessera-{}", env!("CARGO_PKG_VERSION")));
    let copy = dir.join(crate::PRELUDE_NAME);
    if !std::fs::read_to_string(&copy).is_ok_and(|text| text == crate::PRELUDE) {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(&copy, crate::PRELUDE);
    }
    file_uri(&copy)
}
