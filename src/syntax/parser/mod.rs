//! The parser: tokens to the untyped AST, written with chumsky 0.13.
//!
//! Architecture invariant: the parser never gives up on the first error. Each statement that
//! fails is skipped up to its `;` (or the end of the enclosing block) and parsing continues, so a
//! file with several syntax errors reports all of them.

//!
//! The grammar is split by level: `types` (type expressions), `patterns`, `expressions` (from
//! atoms up to the arrow lambda), `statements` (with recovery and the whole program), and
//! `functions` (parameters, lambdas and definitions, which expressions and statements share).
//! `levels` builds one binary-operator level for types and expressions alike; `errors` turns
//! chumsky's errors into `SyntaxError`s.

mod errors;
mod expressions;
mod felix_forms;
mod functions;
mod levels;
mod modules;
mod patterns;
mod statements;
#[cfg(test)]
mod tests;
mod types;

use std::fmt;

use chumsky::input::{Input as _, MappedInput};
use chumsky::prelude::*;
use chumsky::recursive::Indirect;

use crate::syntax::ast::*;
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

pub use errors::convert_error;
pub use modules::starts_module_statement;

/// The token stream the parser reads: a slice of spanned tokens.
pub type TokenInput<'t> = MappedInput<'t, Token, Span, &'t [(Token, Span)]>;

/// A syntax error that is not an "expected … found …" mismatch: it carries its own code, message
/// and help.
#[derive(Clone, Debug, PartialEq)]
pub struct CodedMessage {
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
}

impl fmt::Display for CodedMessage {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.message)
    }
}

use errors::ParseError;
type Extra<'t> = extra::Err<ParseError<'t>>;
pub type BoxedParser<'t, O> = Boxed<'t, 't, TokenInput<'t>, O, Extra<'t>>;
type RecursiveParser<'t, O> = Recursive<Indirect<'t, 't, TokenInput<'t>, O, Extra<'t>>>;

/// The entry points of the grammar, built once per thread and mode (`syntax::with_grammar`).
pub struct Grammar<'t> {
    pub type_expr: BoxedParser<'t, TypeExpr>,
    pub type_list: BoxedParser<'t, Vec<TypeExpr>>,
    pub expr: BoxedParser<'t, Expr>,
    /// A whole program: statements up to the end of input, with recovery.
    pub program: BoxedParser<'t, Vec<Stmt>>,
}

fn coded_error<'t>(
    span: Span,
    code: &'static str,
    message: &str,
    help: Option<&str>,
) -> ParseError<'t> {
    ParseError::custom(span, || CodedMessage {
        code,
        message: message.to_string(),
        help: help.map(str::to_string),
    })
}

/// The mode after `&`: `<` read only, `>` write only, nothing read-write.
fn pointer_mode<'t>() -> impl Parser<'t, TokenInput<'t>, PtrMode, Extra<'t>> + Clone {
    choice((
        token(Token::Less).to(PtrMode::Read),
        token(Token::Greater).to(PtrMode::Write),
    ))
    .or_not()
    .map(|mode| mode.unwrap_or(PtrMode::ReadWrite))
}

fn token<'t>(expected: Token) -> impl Parser<'t, TokenInput<'t>, Token, Extra<'t>> + Clone {
    just(expected)
}

fn keyword<'t>(expected: Keyword) -> impl Parser<'t, TokenInput<'t>, Token, Extra<'t>> + Clone {
    just(Token::Keyword(expected))
}

fn name<'t>() -> impl Parser<'t, TokenInput<'t>, SName, Extra<'t>> + Clone {
    select! { Token::Ident(name) = extra => Spanned::new(name, extra.span()) }.labelled("name")
}

fn int_literal<'t>() -> impl Parser<'t, TokenInput<'t>, IntLit, Extra<'t>> + Clone {
    select! { Token::Int(literal) => literal }.labelled("integer literal")
}

/// The name `to` inside `s.[i to j]` (it is not a keyword).
fn to_word<'t>() -> impl Parser<'t, TokenInput<'t>, Token, Extra<'t>> + Clone {
    just(Token::Ident("to".to_string()))
}

/// Joins an operand chain: one operand is itself, several make `make_chain`.
fn chain_or_single<T>(
    mut operands: Vec<Spanned<T>>,
    span: Span,
    make_chain: fn(Vec<Spanned<T>>) -> T,
) -> Spanned<T> {
    if operands.len() == 1 {
        operands.remove(0)
    } else {
        Spanned::new(make_chain(operands), span)
    }
}

/// `(name = item, …)`: the fields of a record literal or pattern.
fn record_fields<'t, T: 't>(
    item: impl Parser<'t, TokenInput<'t>, T, Extra<'t>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t>, Vec<(SName, T)>, Extra<'t>> + Clone {
    named_list(Token::Assign, item)
}

/// `(name SEP item, …)`, at least one.
fn named_list<'t, T: 't>(
    separator: Token,
    item: impl Parser<'t, TokenInput<'t>, T, Extra<'t>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t>, Vec<(SName, T)>, Extra<'t>> + Clone {
    name()
        .then_ignore(token(separator))
        .then(item)
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LParen), token(Token::RParen))
}

/// A list of statements. The empty statements (lone `;`s) between and after them make no node,
/// so a run of them costs no memory and no failed attempt at every other statement form.
fn statement_list<'t>(
    item: impl Parser<'t, TokenInput<'t>, Stmt, Extra<'t>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t>, Vec<Stmt>, Extra<'t>> + Clone {
    let empty = token(Token::Semicolon).repeated();
    empty
        .clone()
        .ignore_then(item)
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(empty)
}

/// The rules that every level refers to: the two recursive ones (expressions and statements
/// contain each other) and the ones built from them.
struct Rules<'t> {
    type_expr: BoxedParser<'t, TypeExpr>,
    expr: RecursiveParser<'t, Expr>,
    stmt: RecursiveParser<'t, Stmt>,
    /// Statements up to whatever closes them.
    stmts: BoxedParser<'t, Vec<Stmt>>,
    /// `{ stmts }`.
    braced_stmts: BoxedParser<'t, Vec<Stmt>>,
    /// Whether failed statements and parenthesised groups are skipped and reported.
    recovering: bool,
}

/// Builds the whole grammar. With `recovering`, failed statements and parenthesised groups are
/// skipped and reported and parsing goes on; without it the parse stops at the first failure
/// (the REPL uses that to tell incomplete input from invalid input).
pub fn grammar<'t>(recovering: bool) -> Grammar<'t> {
    let (type_expr, type_atom) = types::type_parsers();
    let type_list = type_expr
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .boxed();
    let expr: RecursiveParser<'t, Expr> = Recursive::declare();
    let stmt: RecursiveParser<'t, Stmt> = Recursive::declare();
    let stmts = statement_list(stmt.clone()).boxed();
    let braced_stmts = stmts
        .clone()
        .delimited_by(token(Token::LBrace), token(Token::RBrace))
        .boxed();
    let rules = Rules {
        type_expr: type_expr.clone(),
        expr: expr.clone(),
        stmt,
        stmts,
        braced_stmts,
        recovering,
    };

    let heads = functions::FunctionHeads::new(&rules.type_expr);
    let expressions = expressions::define_expressions(&rules, &heads, type_atom, type_list.clone());
    statements::define_statements(&rules, &heads, expressions);
    let program = statements::program(&rules);

    Grammar {
        type_expr,
        type_list,
        expr: expr.boxed(),
        program,
    }
}

/// Runs `parser` over `tokens` and returns its output (if any) and every error.
///
/// The first parse keeps only the spans of its errors: a parse that succeeds fails many
/// alternatives on the way, and describing each (what was expected, what was found) costs
/// more than the parse itself. Only a parse that did fail is run again with the errors
/// described; the grammar is the same, so it fails in the same places.
pub fn run_parser<'t, O>(
    parser: &BoxedParser<'t, O>,
    tokens: &'t [(Token, Span)],
    source_length: usize,
) -> (Option<O>, Vec<SyntaxError>) {
    let end_of_input = Span::new(source_length, source_length);
    let parse = || {
        parser
            .parse(tokens.split_token_span(end_of_input))
            .into_output_errors()
    };
    let (output, errors) = parse();
    if errors.is_empty() {
        return (output, Vec::new());
    }
    let (output, errors) = errors::described(parse);
    let errors = errors
        .iter()
        .map(|error| convert_error(error, source_length))
        .collect();
    (output, errors)
}
