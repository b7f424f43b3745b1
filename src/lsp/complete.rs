//! Completion (names in scope, library functions, keywords, type names, the fields of a
//! value after `.`) and signature help for calls.

use lsp_types::{
    CompletionItem, CompletionItemKind, ParameterInformation, ParameterLabel, SignatureHelp,
    SignatureInformation,
};

use super::analysis::{Analysis, Base};
use crate::check::browse::NameKind;
use crate::check::index::DefKind;
use crate::syntax::ast::{FunBody, FunDef, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::{NominalBody, Type};

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The word being typed before `offset` and where it starts.
fn prefix(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(at, _)| at);
    (start, &text[start..offset])
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..Default::default()
    }
}

/// The completions at `offset`. `good` is the document's last analysis that parsed (for the
/// type of the value before a `.`, which the text being typed rarely has).
pub(crate) fn completion(
    base: &Base,
    analysis: &Analysis,
    good: Option<&Analysis>,
    offset: usize,
) -> Vec<CompletionItem> {
    let text = &analysis.text;
    let offset = text.floor_char_boundary(offset.min(text.len()));
    let (start, typed) = prefix(text, offset);
    if text[..start].ends_with('.') {
        let (_, owner) = prefix(text, start - 1);
        return field_items(good.unwrap_or(analysis), owner);
    }
    let mut items: Vec<CompletionItem> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |item: CompletionItem| {
        if item.label.starts_with(typed) && seen.insert(item.label.clone()) {
            items.push(item);
        }
    };
    for source in [Some(analysis), good].into_iter().flatten() {
        let mut functions = Vec::new();
        function_spans(&source.stmts, &mut functions);
        // Offsets of an older text are near enough for what is visible where.
        let offset = offset.min(source.text.len());
        for def in &source.index.defs {
            if def.target.kind == DefKind::Field || !visible(&functions, def.target.span, offset) {
                continue;
            }
            let kind = match def.target.kind {
                DefKind::Fun => CompletionItemKind::FUNCTION,
                DefKind::Type => CompletionItemKind::STRUCT,
                DefKind::Ctor => CompletionItemKind::ENUM_MEMBER,
                DefKind::Var => CompletionItemKind::VARIABLE,
                _ => CompletionItemKind::CONSTANT,
            };
            let detail = def.ty.as_ref().map(crate::types::print::type_to_string);
            add(item(&def.target.name, kind, detail));
        }
    }
    for def in &base.prelude.index.defs {
        if def.target.kind == DefKind::Fun {
            let detail = def.ty.as_ref().map(crate::types::print::type_to_string);
            add(item(&def.target.name, CompletionItemKind::FUNCTION, detail));
        }
    }
    for prim in crate::core::prims::PRIMS {
        if prim.form.is_empty() || !prim.name.starts_with(is_word) {
            continue;
        }
        add(item(
            prim.name,
            CompletionItemKind::FUNCTION,
            Some(prim.schemes.join("  |  ")),
        ));
    }
    for name in &base.names {
        let kind = match name.kind {
            NameKind::Type => CompletionItemKind::STRUCT,
            NameKind::Value => CompletionItemKind::FUNCTION,
        };
        add(item(&name.name, kind, None));
    }
    for name in crate::check::browse::BUILTIN_TYPES {
        add(item(
            name,
            CompletionItemKind::TYPE_PARAMETER,
            Some("type".into()),
        ));
    }
    for keyword in crate::syntax::token::Keyword::spellings() {
        add(item(keyword, CompletionItemKind::KEYWORD, None));
    }
    items
}

/// The spans of the named functions of some statements, with their names' spans.
fn function_spans(stmts: &[Stmt], out: &mut Vec<(Span, Span)>) {
    for stmt in stmts {
        match &stmt.node {
            StmtKind::Fun(def) => {
                if let Some(name) = &def.name {
                    out.push((def.span, name.span));
                }
                if let FunBody::Block(body) = &*def.body {
                    function_spans(body, out);
                }
            }
            StmtKind::Block(body)
            | StmtKind::Seq(body)
            | StmtKind::While { body, .. }
            | StmtKind::Until { body, .. }
            | StmtKind::Repeat { body, .. }
            | StmtKind::For { body, .. } => function_spans(body, out),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (_, body) in branches {
                    function_spans(body, out);
                }
                if let Some(body) = otherwise {
                    function_spans(body, out);
                }
            }
            _ => {}
        }
    }
}

/// Is a definition at `def` visible at `offset`: is `offset` inside every function that
/// defines it (parameters and locals stay in their function; a function's own name is its
/// enclosing scope's)?
fn visible(functions: &[(Span, Span)], def: Span, offset: usize) -> bool {
    let inside = |outer: Span, at: usize| outer.start <= at && at <= outer.end;
    functions.iter().all(|&(body, name)| {
        name == def || !(inside(body, def.start) && inside(body, def.end)) || inside(body, offset)
    })
}

/// The fields of the value named `owner`, with their types.
fn field_items(analysis: &Analysis, owner: &str) -> Vec<CompletionItem> {
    let text = &analysis.text;
    let ty = analysis
        .index
        .types
        .iter()
        .rev()
        .find(|(span, _)| text.get(span.range()) == Some(owner))
        .map(|(_, t)| t.clone())
        .or_else(|| {
            analysis
                .index
                .defs
                .iter()
                .find(|d| d.target.name == owner)
                .and_then(|d| d.ty.clone())
        });
    let fields: Vec<(String, Type)> = match ty {
        Some(Type::Nominal(nominal)) => match nominal.body() {
            Some(NominalBody::Struct(fields)) => fields
                .iter()
                .map(|(n, t)| (n.to_string(), t.clone()))
                .collect(),
            _ => Vec::new(),
        },
        Some(Type::Record(names, types)) => names
            .iter()
            .zip(types.iter())
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect(),
        _ => Vec::new(),
    };
    fields
        .into_iter()
        .map(|(name, ty)| {
            item(
                &name,
                CompletionItemKind::FIELD,
                Some(crate::types::print::type_to_string(&ty)),
            )
        })
        .collect()
}

/// The call around `offset`: the function's name and the index of the argument being
/// written (its commas before `offset`).
fn call_at(text: &str, offset: usize) -> Option<(String, u32)> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut commas = 0u32;
    let mut at = offset.min(text.len());
    while at > 0 {
        at -= 1;
        match bytes[at] {
            b')' | b']' => depth += 1,
            b'(' | b'[' if depth > 0 => depth -= 1,
            b'(' => {
                let before = text[..at].trim_end();
                let (_, name) = prefix(before, before.len());
                return (!name.is_empty()).then(|| (name.to_string(), commas));
            }
            b',' if depth == 0 => commas += 1,
            b';' | b'{' | b'}' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

fn find_fun<'a>(stmts: &'a [Stmt], name: &str) -> Option<&'a FunDef> {
    for stmt in stmts {
        let found = match &stmt.node {
            StmtKind::Fun(def) if def.name.as_ref().is_some_and(|n| n.node == name) => Some(&**def),
            StmtKind::Fun(def) => match &*def.body {
                FunBody::Block(body) => find_fun(body, name),
                _ => None,
            },
            StmtKind::Seq(body) | StmtKind::Block(body) => find_fun(body, name),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// A user function's signature as written: `f(x: int, y: int) : int`.
fn written_signature(text: &str, def: &FunDef, name: &str) -> SignatureInformation {
    let slice = |span: Span| text.get(span.range()).unwrap_or("_");
    let mut parameters = Vec::new();
    let mut label = name.to_string();
    for group in &def.params {
        let params: Vec<String> = group
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name.node, slice(p.ty.span)))
            .collect();
        label.push_str(&format!("({})", params.join(", ")));
        parameters.extend(params.into_iter().map(|p| ParameterInformation {
            label: ParameterLabel::Simple(p),
            documentation: None,
        }));
    }
    if let Some(ret) = &def.ret {
        label.push_str(&format!(" : {}", slice(ret.span)));
    }
    SignatureInformation {
        label,
        documentation: None,
        parameters: Some(parameters),
        active_parameter: None,
    }
}

pub(crate) fn signature_help(
    base: &Base,
    analysis: &Analysis,
    offset: usize,
) -> Option<SignatureHelp> {
    let (name, argument) = call_at(&analysis.text, offset)?;
    let signatures = if let Some(def) = find_fun(&analysis.stmts, &name) {
        vec![written_signature(&analysis.text, def, &name)]
    } else if let Some(def) = find_fun(&base.prelude.stmts, &name) {
        vec![written_signature(&base.prelude.text, def, &name)]
    } else {
        let prim = crate::core::prims::PRIMS.iter().find(|p| p.name == name)?;
        prim.schemes
            .iter()
            .map(|scheme| SignatureInformation {
                label: format!("{name} : {scheme}"),
                documentation: (!prim.doc.is_empty())
                    .then(|| lsp_types::Documentation::String(prim.doc.to_string())),
                parameters: None,
                active_parameter: None,
            })
            .collect()
    };
    Some(SignatureHelp {
        signatures,
        active_signature: Some(0),
        active_parameter: Some(argument),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn calls_are_found_before_the_cursor() {
        let text = "val a = add(1, (2, 3), ";
        assert_eq!(super::call_at(text, text.len()), Some(("add".into(), 2)));
        assert_eq!(super::call_at("f(x); g", 7), None);
    }
}
