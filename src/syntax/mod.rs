//! Lexing and parsing: source text to the untyped syntax tree (`ast`).
//!
//! Architecture invariant: this module knows nothing about types or evaluation. Parsing never
//! fails as a whole: it returns what it could parse and every error it found.

pub mod ast;
pub mod desugar;
pub mod lexer;
pub mod nesting;
pub mod parser;
pub mod span;
pub mod stored;
pub mod token;

#[cfg(test)]
mod conformance_tests;

pub use span::Span;

use chumsky::Parser as _;

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

/// How a source is parsed: the nesting limit (E0102, `--max-nesting`), from the session's
/// limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Openers nested deeper than this are E0102, reported before parsing.
    pub max_nesting: usize,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions {
            max_nesting: crate::limits::as_usize(crate::limits::DEFAULT_MAX_NESTING),
        }
    }
}

/// The result of parsing one REPL chunk.
#[derive(Clone, Debug)]
pub enum ChunkParse {
    Complete(ast::Chunk),
    /// Unexpected end of input: read another line.
    Incomplete,
    Invalid(Vec<SyntaxError>),
}

thread_local! {
    /// The grammar, built once per thread and mode (recovering or not). Its recursive rules
    /// refer to themselves through reference-counted cells, so a grammar is never freed:
    /// building one per parse would leak it each time (tens of kilobytes per REPL chunk).
    static GRAMMARS: [std::cell::OnceCell<parser::Grammar<'static>>; 2] =
        const { [std::cell::OnceCell::new(), std::cell::OnceCell::new()] };
}

/// Run `f` with this thread's grammar for the mode.
fn with_grammar<R>(recovering: bool, f: impl for<'t> FnOnce(&parser::Grammar<'t>) -> R) -> R {
    GRAMMARS.with(|grammars| {
        let grammar = grammars[recovering as usize].get_or_init(|| parser::grammar(recovering));
        f(grammar)
    })
}

/// Lexes `src` and runs one entry point of the grammar over it. Lexical errors come first in
/// source order together with the parser's errors.
fn parse_with<O>(
    src: &str,
    recovering: bool,
    options: ParseOptions,
    select_parser: impl for<'t> FnOnce(&parser::Grammar<'t>) -> parser::BoxedParser<'t, O>,
) -> (Option<O>, Vec<SyntaxError>) {
    let (tokens, mut errors) = lexer::lex(src);
    if let Some(too_deep) = nesting::check_nesting(&tokens, options.max_nesting) {
        // Parsing (and recovering from) such input costs stack and time in its depth.
        errors.push(too_deep);
        errors.sort_by_key(|error| (error.span.start, error.span.end));
        return (None, errors);
    }
    let (output, parse_errors) = with_grammar(recovering, |grammar| {
        // SAFETY: the grammar's parsers are immutable descriptions that keep nothing of an
        // input between parses; `'t` only ties a parse's tokens to the errors it returns,
        // which `run_parser` converts to owned `SyntaxError`s before the tokens go away. The
        // lifetime is erased at run time, so the `'static` grammar is the same code as one
        // built for these tokens.
        let grammar: &parser::Grammar<'_> =
            unsafe { std::mem::transmute::<&parser::Grammar<'_>, &parser::Grammar<'_>>(grammar) };
        let grammar_parser = select_parser(grammar);
        parser::run_parser(&grammar_parser, &tokens, src.len())
    });
    errors.extend(parse_errors);
    errors.sort_by_key(|error| (error.span.start, error.span.end));
    errors.dedup();
    let mut errors = nesting::explain_unclosed(errors, &tokens);
    errors.sort_by_key(|error| (error.span.start, error.span.end));
    (output, errors)
}

/// Parses a whole program. Parsing recovers after each error, so every syntax error of the
/// program is returned, together with the statements that could be parsed.
#[cfg(test)]
pub fn parse_program(src: &str) -> (Vec<ast::Stmt>, Vec<SyntaxError>) {
    parse_program_with(src, ParseOptions::default())
}

/// `parse_program` with the session's options.
pub fn parse_program_with(src: &str, options: ParseOptions) -> (Vec<ast::Stmt>, Vec<SyntaxError>) {
    let (output, errors) = parse_with(src, true, options, |grammar| grammar.program.clone());
    (output.unwrap_or_default(), errors)
}

thread_local! {
    /// The text and tokens of the last chunk `parse_chunk` lexed without error. A chunk typed
    /// line by line grows by a line each time; only the new line is lexed (no token spans a
    /// line break outside a string or comment, and an unterminated one is a lexical error),
    /// so a chunk of n lines costs O(n) lexing per line instead of O(n) per character.
    static CHUNK_LEX: std::cell::RefCell<(String, Vec<(token::Token, Span)>)> =
        const { std::cell::RefCell::new((String::new(), Vec::new())) };
}

/// Run `f` on the tokens of `src` and whether it lexed without error, reusing the tokens of
/// the previous chunk when `src` extends it by whole lines.
fn with_chunk_tokens<R>(src: &str, f: impl FnOnce(&[(token::Token, Span)], bool) -> R) -> R {
    CHUNK_LEX.with(|cache| {
        let mut cache = cache.borrow_mut();
        let (text, tokens) = &mut *cache;
        let extends = !text.is_empty()
            && text.ends_with('\n')
            && src.len() > text.len()
            && src.starts_with(text.as_str());
        if extends {
            let offset = text.len();
            let (more, errors) = lexer::lex(&src[offset..]);
            if errors.is_empty() {
                tokens.extend(more.into_iter().map(|(token, span)| {
                    (token, Span::new(span.start + offset, span.end + offset))
                }));
                text.push_str(&src[offset..]);
                return f(tokens, true);
            }
        }
        let (all, errors) = lexer::lex(src);
        if errors.is_empty() {
            *text = src.to_string();
            *tokens = all;
            f(tokens, true)
        } else {
            text.clear();
            tokens.clear();
            f(&all, false)
        }
    })
}

/// Parses one REPL chunk: a single expression with no trailing `;` is `Chunk::Expr`,
/// statements are `Chunk::Stmts`; a chunk that only fails because the input ended is
/// `Incomplete`; anything else is `Invalid`.
#[cfg(test)]
pub fn parse_chunk(src: &str) -> ChunkParse {
    parse_chunk_with(src, ParseOptions::default())
}

/// `parse_chunk` with the session's options.
pub fn parse_chunk_with(src: &str, options: ParseOptions) -> ChunkParse {
    // A chunk with an open bracket or block is incomplete: no need to parse it (a chunk typed
    // over thousands of lines would otherwise be parsed again at every line).
    let leaves_open = with_chunk_tokens(src, |tokens, lexed_cleanly| {
        lexed_cleanly
            && nesting::check_nesting(tokens, options.max_nesting).is_none()
            && nesting::leaves_blocks_open(tokens)
    });
    if leaves_open {
        return ChunkParse::Incomplete;
    }
    // `module M { … }` and the like are statements even without a `;`.
    let statement = with_chunk_tokens(src, |tokens, _| parser::starts_module_statement(tokens));
    if let Some(expression) = (!statement)
        .then(|| parse_expr_with(src, options).ok())
        .flatten()
    {
        // An open-ended `match` at the end of a chunk may get more arms on the next
        // line: the REPL waits for them, or for `endmatch`.
        if open_match_at_end(&expression) {
            return ChunkParse::Incomplete;
        }
        return ChunkParse::Complete(ast::Chunk::Expr(expression));
    }
    let (statements, errors) = parse_program_with(src, options);
    if errors.is_empty() {
        return ChunkParse::Complete(ast::Chunk::Stmts(statements));
    }
    // Without recovery the parse stops at its first failure: the chunk is incomplete exactly
    // when that failure (and every lexical error) is at the end of the input.
    let (_, first_failure) = parse_with(src, false, options, |grammar| grammar.program.clone());
    if !first_failure.is_empty() && first_failure.iter().all(|error| error.at_end) {
        ChunkParse::Incomplete
    } else {
        ChunkParse::Invalid(errors)
    }
}

/// Does the expression end with the last arm of a `match` written without `endmatch`?
fn open_match_at_end(e: &ast::Expr) -> bool {
    use ast::ExprKind;
    match &e.node {
        ExprKind::Match(_, arms) => arms
            .last()
            .is_some_and(|arm| arm.body.span.end == e.span.end),
        ExprKind::Let(_, arm) => open_match_at_end(&arm.body),
        ExprKind::LetFun(_, body) => open_match_at_end(body),
        ExprKind::Apply { arg: last, .. }
        | ExprKind::Binary(_, _, last)
        | ExprKind::Unary(_, last)
        | ExprKind::If(_, last) => last.span.end == e.span.end && open_match_at_end(last),
        ExprKind::Tuple(items) => items.last().is_some_and(open_match_at_end),
        _ => false,
    }
}

/// Parses `src` as exactly one type expression.
pub fn parse_type(src: &str) -> Result<ast::TypeExpr, Vec<SyntaxError>> {
    parse_type_with(src, ParseOptions::default())
}

/// `parse_type` with the session's options.
pub fn parse_type_with(
    src: &str,
    options: ParseOptions,
) -> Result<ast::TypeExpr, Vec<SyntaxError>> {
    into_result(parse_with(src, true, options, |grammar| {
        grammar
            .type_expr
            .clone()
            .then_ignore(chumsky::primitive::end())
            .boxed()
    }))
}

/// Parses `src` as a comma-separated list of types (`A, B` for `:iso`).
#[cfg(test)]
pub fn parse_type_list(src: &str) -> Result<Vec<ast::TypeExpr>, Vec<SyntaxError>> {
    parse_type_list_with(src, ParseOptions::default())
}

/// `parse_type_list` with the session's options.
pub fn parse_type_list_with(
    src: &str,
    options: ParseOptions,
) -> Result<Vec<ast::TypeExpr>, Vec<SyntaxError>> {
    into_result(parse_with(src, true, options, |grammar| {
        grammar
            .type_list
            .clone()
            .then_ignore(chumsky::primitive::end())
            .boxed()
    }))
}

/// Parses `src` as exactly one expression.
#[cfg(test)]
pub fn parse_expr(src: &str) -> Result<ast::Expr, Vec<SyntaxError>> {
    parse_expr_with(src, ParseOptions::default())
}

/// `parse_expr` with the session's options.
pub fn parse_expr_with(src: &str, options: ParseOptions) -> Result<ast::Expr, Vec<SyntaxError>> {
    into_result(parse_with(src, true, options, |grammar| {
        grammar
            .expr
            .clone()
            .then_ignore(chumsky::primitive::end())
            .boxed()
    }))
}

fn into_result<O>((output, errors): (Option<O>, Vec<SyntaxError>)) -> Result<O, Vec<SyntaxError>> {
    match output {
        Some(output) if errors.is_empty() => Ok(output),
        _ => Err(errors),
    }
}
