//! Hover, go to definition, find references and document symbols, read off an analysis.

use lsp_types::{
    DocumentSymbol, Hover, HoverContents, Location, MarkupContent, MarkupKind, SymbolKind,
};

use super::analysis::{name_span, Analysis, Base};
use crate::check::index::{DefKind, Target};
use crate::syntax::ast::{FunBody, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::Type;

fn contains(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end && !span.is_empty()
}

/// The use or definition of a name at `offset`, the span written there, and the definition
/// it denotes.
pub(crate) fn target_at(analysis: &Analysis, offset: usize) -> Option<(Span, Target)> {
    let used = analysis
        .index
        .uses
        .iter()
        .map(|u| (name_span(&analysis.text, u.span, &u.target.name), &u.target))
        .filter(|(span, _)| contains(*span, offset))
        .min_by_key(|(span, _)| span.len());
    if let Some((span, target)) = used {
        return Some((span, target.clone()));
    }
    analysis
        .index
        .defs
        .iter()
        .filter(|d| contains(d.target.span, offset))
        .min_by_key(|d| d.target.span.len())
        .map(|d| (d.target.span, d.target.clone()))
}

/// The definition's own entry (for its type), in the document or the prelude.
fn def_type(base: &Base, analysis: &Analysis, target: &Target) -> Option<Type> {
    let source = if target.library {
        &*base.prelude
    } else {
        analysis
    };
    let span = name_span(&source.text, target.span, &target.name);
    source
        .index
        .defs
        .iter()
        .find(|d| d.target.span == span && d.target.name == target.name)
        .and_then(|d| d.ty.clone())
}

/// The type of the smallest expression around `offset`.
fn type_at(analysis: &Analysis, offset: usize) -> Option<(Span, Type)> {
    analysis
        .index
        .types
        .iter()
        .filter(|(span, _)| contains(*span, offset))
        .min_by_key(|(span, _)| span.len())
        .cloned()
}

/// The identifier around `offset` in a text.
pub(crate) fn word_at(text: &str, offset: usize) -> Option<(Span, &str)> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let offset = text.floor_char_boundary(offset.min(text.len()));
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| word(*c))
        .last()
        .map_or(offset, |(at, _)| at);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !word(*c))
        .map_or(text.len(), |(at, _)| offset + at);
    let found = text[start..end].trim_matches(':');
    (!found.is_empty()).then(|| (Span::new(start, end), found))
}

/// What `:size`, `:layout` and `:kind` say of a type, for arrays and compact types: the
/// kind, the number of values (or, for an array, of elements) and the layout line.
pub(crate) fn shape_lines(ty: &Type) -> Vec<String> {
    let mut lines = Vec::new();
    let kind = crate::types::kind::kind_of(ty);
    let (compact, index) = match ty {
        Type::Array(_, index) | Type::CArray(_, index) => {
            (crate::types::kind::is_compact(ty), Some((**index).clone()))
        }
        _ => (crate::types::kind::is_compact(ty), None),
    };
    if !compact && index.is_none() {
        return lines;
    }
    lines.push(format!("kind: `{}`", kind.name()));
    if let Some(index) = &index {
        let count = crate::types::size::size_of(index).map(|n| n.to_string());
        let index = crate::types::print::type_to_string(index);
        match count {
            Some(count) => lines.push(format!("shape: `{index}` ({count} elements)")),
            None => lines.push(format!("shape: `{index}`")),
        }
    }
    if compact {
        if let Some(size) = crate::types::size::size_of(ty) {
            lines.push(format!("size: {size}"));
        }
    }
    if let Ok(layout) = crate::types::layout::describe_layout(ty) {
        lines.push(format!("layout: {layout}"));
    }
    lines
}

/// The documentation of a library name: a primitive's `:doc` entry, or a documented
/// definition of the prelude.
pub(crate) fn library_doc(name: &str) -> Option<String> {
    crate::core::doc::prim_doc(name).or_else(|| {
        crate::core::doc::stdlib_docs_of(crate::PRELUDE_NAME, crate::PRELUDE)
            .into_iter()
            .find(|doc| doc.definitions.iter().any(|(_, n, _)| n == name))
            .map(|doc| {
                let lines: Vec<&str> = doc.definitions.iter().map(|d| d.2.as_str()).collect();
                format!("{}\n\n{}", lines.join("\n"), doc.doc)
            })
    })
}

pub(crate) fn hover(base: &Base, analysis: &Analysis, offset: usize) -> Option<Hover> {
    let (span, name, ty, library) = match target_at(analysis, offset) {
        Some((span, target)) => {
            let ty = match target.kind {
                DefKind::Fun | DefKind::Type | DefKind::Field => None,
                _ => analysis
                    .index
                    .types
                    .iter()
                    .rev()
                    .find(|(s, _)| *s == span)
                    .map(|(_, t)| t.clone()),
            }
            .or_else(|| def_type(base, analysis, &target));
            (span, target.name.clone(), ty, target.library)
        }
        None => {
            let word = word_at(&analysis.text, offset);
            match type_at(analysis, offset) {
                Some((span, ty)) if word.is_none_or(|(w, _)| span.len() <= w.len()) => {
                    let text = analysis.text[span.range()].to_string();
                    (span, text, Some(ty), false)
                }
                _ => {
                    let (span, word) = word?;
                    (span, word.to_string(), None, true)
                }
            }
        }
    };
    let mut parts = Vec::new();
    let shown = match &ty {
        Some(ty) => Some(crate::types::print::type_to_string(ty)),
        None if library => base.checker.clone().signature_of(&name),
        None => None,
    };
    match &shown {
        Some(shown) => {
            // A library primitive has one signature per line.
            let lines: Vec<String> = shown.lines().map(|l| format!("{name} : {l}")).collect();
            parts.push(format!("```tessera\n{}\n```", lines.join("\n")));
        }
        None if analysis.index.types.is_empty() && !library => return None,
        None => {}
    }
    if let Some(ty) = &ty {
        let lines = shape_lines(ty);
        if !lines.is_empty() {
            parts.push(lines.join("  \n"));
        }
    }
    if library {
        if let Some(doc) = library_doc(&name) {
            parts.push(doc);
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: Some(analysis.lines.range(&analysis.text, span)),
    })
}

pub(crate) fn definition(base: &Base, analysis: &Analysis, offset: usize) -> Option<Location> {
    let (_, target) = target_at(analysis, offset)?;
    Some(base.location(analysis, &target))
}

pub(crate) fn references(
    base: &Base,
    analysis: &Analysis,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    let Some((_, target)) = target_at(analysis, offset) else {
        return Vec::new();
    };
    let wanted = base.location(analysis, &target);
    let mut found = Vec::new();
    if include_declaration {
        found.push(wanted.clone());
    }
    for u in &analysis.index.uses {
        if u.target.name == target.name && base.location(analysis, &u.target) == wanted {
            let span = name_span(&analysis.text, u.span, &u.target.name);
            let at = Location::new(
                analysis.uri.clone(),
                analysis.lines.range(&analysis.text, span),
            );
            if !found.contains(&at) {
                found.push(at);
            }
        }
    }
    found
}

/// The functions, types and top-level values of a document, functions with what they
/// define inside.
pub(crate) fn symbols(analysis: &Analysis) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    for stmt in &analysis.stmts {
        symbols_of(analysis, stmt, true, &mut out);
    }
    out
}

fn symbols_of(analysis: &Analysis, stmt: &Stmt, top: bool, out: &mut Vec<DocumentSymbol>) {
    let range = |span: Span| analysis.lines.range(&analysis.text, span);
    let mut push = |name: &str, name_span: Span, kind, detail: Option<String>, children| {
        #[allow(deprecated)]
        out.push(DocumentSymbol {
            name: name.to_string(),
            detail,
            kind,
            tags: None,
            deprecated: None,
            range: range(stmt.span.to(name_span)),
            selection_range: range(name_span),
            children,
        });
    };
    let detail = |span: Span| {
        analysis
            .index
            .defs
            .iter()
            .find(|d| d.target.span == span)
            .and_then(|d| d.ty.as_ref())
            .map(crate::types::print::type_to_string)
    };
    match &stmt.node {
        StmtKind::Fun(def) => {
            let Some(name) = &def.name else { return };
            let mut children = Vec::new();
            if let FunBody::Block(body) = &*def.body {
                for s in body {
                    symbols_of(analysis, s, false, &mut children);
                }
            }
            push(
                &name.node,
                name.span,
                SymbolKind::FUNCTION,
                detail(name.span),
                Some(children),
            );
        }
        StmtKind::Val { name, .. } if top => push(
            &name.node,
            name.span,
            SymbolKind::CONSTANT,
            detail(name.span),
            None,
        ),
        StmtKind::Var { name, .. } if top => push(
            &name.node,
            name.span,
            SymbolKind::VARIABLE,
            detail(name.span),
            None,
        ),
        StmtKind::Typedef { name, .. } | StmtKind::NewType { name, .. } => push(
            &name.node,
            name.span,
            SymbolKind::TYPE_PARAMETER,
            None,
            None,
        ),
        StmtKind::Struct { name, fields, .. } => {
            let children = fields
                .iter()
                .map(|f| {
                    #[allow(deprecated)]
                    DocumentSymbol {
                        name: f.name.node.clone(),
                        detail: analysis.text.get(f.ty.span.range()).map(str::to_string),
                        kind: SymbolKind::FIELD,
                        tags: None,
                        deprecated: None,
                        range: range(f.name.span.to(f.ty.span)),
                        selection_range: range(f.name.span),
                        children: None,
                    }
                })
                .collect();
            push(
                &name.node,
                name.span,
                SymbolKind::STRUCT,
                None,
                Some(children),
            )
        }
        StmtKind::Variant { name, ctors, .. } => {
            let children = ctors
                .iter()
                .map(|(c, _)| {
                    #[allow(deprecated)]
                    DocumentSymbol {
                        name: c.node.clone(),
                        detail: None,
                        kind: SymbolKind::ENUM_MEMBER,
                        tags: None,
                        deprecated: None,
                        range: range(c.span),
                        selection_range: range(c.span),
                        children: None,
                    }
                })
                .collect();
            push(
                &name.node,
                name.span,
                SymbolKind::ENUM,
                None,
                Some(children),
            )
        }
        StmtKind::Seq(stmts) | StmtKind::Block(stmts) if top => {
            for s in stmts {
                symbols_of(analysis, s, top, out);
            }
        }
        _ => {}
    }
}
