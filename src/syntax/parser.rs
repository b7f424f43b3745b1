//! The parser: tokens to the untyped AST (L2.8, L4, L5), written with chumsky 0.13.
//!
//! Architecture invariant: the parser never gives up on the first error. Each statement that
//! fails is skipped up to its `;` (or the end of the enclosing block) and parsing continues, so a
//! file with several syntax errors reports all of them.

use std::fmt;

use chumsky::error::{RichPattern, RichReason};
use chumsky::input::{Input as _, MappedInput};
use chumsky::prelude::*;
use chumsky::recursive::Indirect;

use crate::syntax::ast::*;
use crate::syntax::desugar::{self, Bind, ParamItem, Target};
use crate::syntax::span::{Span, Spanned};
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

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

type ParseError<'t> = Rich<'t, Token, Span, CodedMessage>;
type Extra<'t> = extra::Err<ParseError<'t>>;
pub type BoxedParser<'t, O> = Boxed<'t, 't, TokenInput<'t>, O, Extra<'t>>;
type RecursiveParser<'t, O> = Recursive<Indirect<'t, 't, TokenInput<'t>, O, Extra<'t>>>;

/// The entry points of the grammar, built once per parse.
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
    Rich::custom(
        span,
        CodedMessage {
            code,
            message: message.to_string(),
            help: help.map(str::to_string),
        },
    )
}

/// Is `e` an `if` or `match` written without `endif`/`endmatch` (its last branch ends where it
/// does)?
fn is_open_conditional(e: &Expr) -> bool {
    match &e.node {
        ExprKind::If(_, otherwise) => otherwise.span.end == e.span.end,
        ExprKind::Match(_, arms) => arms
            .last()
            .is_some_and(|arm| arm.body.span.end == e.span.end),
        _ => false,
    }
}

/// An open `if` or `match` extends to the end of the enclosing expression, so when it is not
/// the whole expression it is its last operand (`println$ if c then 1 else 2`), which L11.18
/// forbids. Branches and lambda bodies are whole expressions, checked where they are parsed.
fn open_operand(e: &Expr) -> Option<Span> {
    let mut node = e;
    loop {
        let last = match &node.node {
            ExprKind::Apply { arg: last, .. }
            | ExprKind::Binary(_, _, last)
            | ExprKind::Unary(_, last)
            | ExprKind::Caseno(last)
            | ExprKind::Hash(last)
            | ExprKind::Addr(_, last)
            | ExprKind::Deref(last) => last,
            ExprKind::Tuple(items) | ExprKind::CTuple(items) => items.last()?,
            _ => return None,
        };
        if last.span.end != e.span.end {
            return None;
        }
        if is_open_conditional(last) {
            return Some(last.span);
        }
        node = last;
    }
}

/// The mode after `&`: `<` read only, `>` write only, nothing read-write (L11.4).
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

/// A name, or an operator defined like a name (`fun + (a:V, b:V) …`, L11.21).
fn name_or_operator<'t>() -> impl Parser<'t, TokenInput<'t>, SName, Extra<'t>> + Clone {
    let operator = select! {
        Token::Plus => BinOp::Add,
        Token::Minus => BinOp::Sub,
        Token::Star => BinOp::Mul,
        Token::Slash => BinOp::Div,
        Token::Percent => BinOp::Mod,
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Less => BinOp::Lt,
        Token::LessEq => BinOp::Le,
        Token::Greater => BinOp::Gt,
        Token::GreaterEq => BinOp::Ge,
        Token::ShiftLeft => BinOp::Shl,
        Token::BitAnd => BinOp::BitAnd,
        Token::BitOr => BinOp::BitOr,
        Token::CompactCaret => BinOp::BitXor,
    };
    // `>>` is two `>` tokens (so that `_pclt<A, _pclt<B, C>>` closes twice).
    let shift_right = token(Token::Greater)
        .then(token(Token::Greater))
        .to(BinOp::Shr);
    let operator = shift_right
        .or(operator)
        .map_with(|op: BinOp, extra| Spanned::new(op.symbol().to_string(), extra.span()));
    // `~` is a prefix operator only.
    let complement =
        token(Token::Tilde).map_with(|_, extra| Spanned::new("~".to_string(), extra.span()));
    name().or(operator).or(complement).labelled("name")
}

/// The built-in operator of a C binding template `"$1 OP $2"` (spaces optional, L11.21).
fn operator_template(template: &[u8]) -> Option<BinOp> {
    let text: String = String::from_utf8_lossy(template)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let op = text.strip_prefix("$1")?.strip_suffix("$2")?;
    [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
    ]
    .into_iter()
    .find(|b| b.symbol() == op)
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

/// Folds a type operator level that mixes an n-ary chain operator (`op == None`) with the binary
/// left-associative unitsum operators (`op == Some(…)`, L2.15).
fn fold_type_level(
    first: TypeExpr,
    rest: Vec<(Option<UnitsumOp>, TypeExpr)>,
    make_chain: fn(Vec<TypeExpr>) -> TypeExprKind,
) -> TypeExpr {
    fn collapse(
        operands: Vec<TypeExpr>,
        make_chain: fn(Vec<TypeExpr>) -> TypeExprKind,
    ) -> TypeExpr {
        let span = operands[0].span.to(operands[operands.len() - 1].span);
        chain_or_single(operands, span, make_chain)
    }
    let mut operands = vec![first];
    for (operator, operand) in rest {
        match operator {
            None => operands.push(operand),
            Some(operator) => {
                let left = collapse(std::mem::take(&mut operands), make_chain);
                let span = left.span.to(operand.span);
                operands.push(Spanned::new(
                    TypeExprKind::UnitsumArith(operator, Box::new(left), Box::new(operand)),
                    span,
                ));
            }
        }
    }
    collapse(operands, make_chain)
}

/// Type expressions (L2.8): returns the full type parser and the atomic type parser.
fn type_parsers<'t>() -> (BoxedParser<'t, TypeExpr>, BoxedParser<'t, TypeExpr>) {
    let mut type_expr: RecursiveParser<'t, TypeExpr> = Recursive::declare();

    let mut atom: RecursiveParser<'t, TypeExpr> = Recursive::declare();
    // `&T`, `&<T`, `&>T` bind tightest: `&int ^ 3` is `(&int) ^ 3` (L11.1).
    let pointer = token(Token::Ampersand)
        .ignore_then(pointer_mode())
        .then(atom.clone())
        .map(|(mode, target)| TypeExprKind::Ptr(mode, Box::new(target)));
    // `_pclt<D, C>` and its read-only and write-only forms (L11.5).
    let compact_pointer = select! {
        Token::Ident(name) if name == "_pclt" => PtrMode::ReadWrite,
        Token::Ident(name) if name == "_rpclt" => PtrMode::Read,
        Token::Ident(name) if name == "_wpclt" => PtrMode::Write,
    }
    .then_ignore(token(Token::Less))
    .then(type_expr.clone())
    .then_ignore(token(Token::Comma))
    .then(type_expr.clone())
    .then_ignore(token(Token::Greater))
    .map(|((mode, whole), component)| {
        TypeExprKind::CPtr(mode, Box::new(whole), Box::new(component))
    });
    // `secret T`, `public T` (issue 14): a prefix like `&`.
    let visibility = select! {
        Token::Ident(name) if name == "secret" => true,
        Token::Ident(name) if name == "public" => false,
    }
    .then(atom.clone())
    .map(|(secret, target)| TypeExprKind::Visibility(secret, Box::new(target)));
    atom.define(
        choice((
            pointer,
            visibility,
            compact_pointer,
            // `pair[int]`: a parametric type applied to its arguments.
            name()
                .then(
                    type_expr
                        .clone()
                        .separated_by(token(Token::Comma))
                        .at_least(1)
                        .collect::<Vec<_>>()
                        .delimited_by(token(Token::LBracket), token(Token::RBracket)),
                )
                .map(|(name, args)| TypeExprKind::Apply(name, args)),
            select! { Token::Ident(name) => TypeExprKind::Name(name) },
            int_literal().map(TypeExprKind::Unitsum),
            token(Token::LParen)
                .then(token(Token::RParen))
                .to(TypeExprKind::Unit),
        ))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .or(record_type(type_expr.clone()))
        .or(type_expr
            .clone()
            .delimited_by(token(Token::LParen), token(Token::RParen)))
        .labelled("type"),
    );
    let atom = atom.boxed();

    let power = atom
        .clone()
        .foldl_with(
            choice((
                token(Token::Caret).to(false),
                token(Token::CompactCaret).to(true),
            ))
            .then(atom.clone())
            .repeated(),
            |base, (compact, index), extra| {
                let kind = if compact {
                    TypeExprKind::CArray(Box::new(base), Box::new(index))
                } else {
                    TypeExprKind::Array(Box::new(base), Box::new(index))
                };
                Spanned::new(kind, extra.span())
            },
        )
        .boxed();

    let compact_product = power
        .clone()
        .separated_by(token(Token::CompactStar))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|operands, extra| chain_or_single(operands, extra.span(), TypeExprKind::CProduct))
        .boxed();

    let product_operator = choice((
        token(Token::Star).to(None),
        token(Token::UnitsumArith(UnitsumOp::Mul)).to(Some(UnitsumOp::Mul)),
        token(Token::UnitsumArith(UnitsumOp::Div)).to(Some(UnitsumOp::Div)),
        token(Token::UnitsumArith(UnitsumOp::Mod)).to(Some(UnitsumOp::Mod)),
    ));
    let product = compact_product
        .clone()
        .then(
            product_operator
                .then(compact_product)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map(|(first, rest)| fold_type_level(first, rest, TypeExprKind::Product))
        .boxed();

    let compact_sum = product
        .clone()
        .separated_by(token(Token::CompactPlus))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|operands, extra| chain_or_single(operands, extra.span(), TypeExprKind::CSum))
        .boxed();

    let sum_operator = choice((
        token(Token::Plus).to(None),
        token(Token::UnitsumArith(UnitsumOp::Add)).to(Some(UnitsumOp::Add)),
        token(Token::UnitsumArith(UnitsumOp::Sub)).to(Some(UnitsumOp::Sub)),
    ));
    let sum = compact_sum
        .clone()
        .then(
            sum_operator
                .then(compact_sum)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map(|(first, rest)| fold_type_level(first, rest, TypeExprKind::Sum))
        .boxed();

    type_expr.define(
        sum.then(
            token(Token::RightArrow)
                .ignore_then(type_expr.clone())
                .or_not(),
        )
        .map_with(|(domain, codomain), extra| match codomain {
            Some(codomain) => Spanned::new(
                TypeExprKind::Fun(Box::new(domain), Box::new(codomain)),
                extra.span(),
            ),
            None => domain,
        }),
    );
    (type_expr.labelled("type").boxed(), atom)
}

/// `(a:int, b:string)`: a record type (L11.8).
fn record_type<'t>(
    type_expr: impl Parser<'t, TokenInput<'t>, TypeExpr, Extra<'t>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t>, TypeExpr, Extra<'t>> + Clone {
    named_list(Token::Colon, type_expr)
        .map_with(|fields, extra| Spanned::new(TypeExprKind::Record(fields), extra.span()))
}

/// `(name = item, …)`: the fields of a record literal or pattern (L11.8, L11.9).
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

/// Patterns (L4.12).
fn pattern_parser<'t>() -> BoxedParser<'t, Pattern> {
    recursive(|pattern| {
        let atom = choice((
            select! { Token::Ident(name) => name_pattern(name) },
            // `#A`: a constant constructor (L11.19).
            token(Token::Hash)
                .ignore_then(select! { Token::Ident(name) => PatternKind::Constant(name) }),
            token(Token::Minus)
                .or_not()
                .then(int_literal())
                .map(|(minus, lit)| PatternKind::Int {
                    negative: minus.is_some(),
                    lit,
                }),
            select! {
                Token::Str(bytes) => PatternKind::Str(bytes),
                Token::Keyword(Keyword::True) => PatternKind::Bool(true),
                Token::Keyword(Keyword::False) => PatternKind::Bool(false),
            },
            token(Token::LParen)
                .then(token(Token::RParen))
                .to(PatternKind::Unit),
            record_fields(pattern.clone()).map(PatternKind::Record),
        ))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .or(pattern
            .separated_by(token(Token::Comma))
            .at_least(1)
            .collect::<Vec<_>>()
            .delimited_by(token(Token::LParen), token(Token::RParen))
            .map_with(|patterns, extra| {
                chain_or_single(patterns, extra.span(), PatternKind::Tuple)
            }))
        .boxed();

        let case = keyword(Keyword::Case)
            .or(token(Token::Backtick))
            .ignore_then(int_literal())
            .then(atom.clone().or_not())
            .map(|(lit, argument)| PatternKind::Case(lit, argument.map(Box::new)));
        let constructor = select! { Token::Ident(name) if name != "_" => name }
            .then(atom.clone())
            .map(|(name, argument)| PatternKind::Ctor(name, Box::new(argument)));
        // `lo .. hi` between two literals (L11.19); a negative bound is not a literal.
        let bound = select! {
            Token::Int(lit) => PatternKind::Int { negative: false, lit },
            Token::Str(bytes) => PatternKind::Str(bytes),
        }
        .map_with(|kind, extra| Spanned::new(kind, extra.span()));
        let range = bound
            .then_ignore(token(Token::DotDot))
            .then(bound)
            .map(|(lo, hi)| PatternKind::Range(Box::new(lo), Box::new(hi)));
        choice((range, case, constructor))
            .map_with(|kind, extra| Spanned::new(kind, extra.span()))
            .or(atom)
            .labelled("pattern")
    })
    .boxed()
}

/// A bare name in a pattern: `_`, a constant constructor if it starts with an upper-case letter
/// (L11.19), otherwise a binding.
fn name_pattern(name: Name) -> PatternKind {
    if name == "_" {
        PatternKind::Wildcard
    } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
        PatternKind::Constant(name)
    } else {
        PatternKind::Name(name)
    }
}

/// Builds the whole grammar. With `recovering`, failed statements and parenthesised groups are
/// skipped and reported and parsing goes on; without it the parse stops at the first failure
/// (the REPL uses that to tell incomplete input from invalid input).
pub fn grammar<'t>(recovering: bool) -> Grammar<'t> {
    let (type_expr, type_atom) = type_parsers();
    let type_list = type_expr
        .clone()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .boxed();
    let pattern = pattern_parser();

    let mut expr: RecursiveParser<'t, Expr> = Recursive::declare();
    let mut stmt: RecursiveParser<'t, Stmt> = Recursive::declare();
    let stmts = stmt.clone().repeated().collect::<Vec<_>>().boxed();
    let braced_stmts = stmts
        .clone()
        .delimited_by(token(Token::LBrace), token(Token::RBrace))
        .boxed();

    // Parameters and functions (L4.10, L5.13, L5.14, L5.16).
    // A parameter is `x : T` or a parenthesised list of parameters (L11.16).
    let param_item = recursive(|item| {
        choice((
            // `var x : T` (L11.1); `val x : T` is the default written out.
            keyword(Keyword::Var)
                .ignore_then(name())
                .then_ignore(token(Token::Colon))
                .then(type_expr.clone())
                .map(|(name, ty)| ParamItem::Var(Param { name, ty })),
            keyword(Keyword::Val)
                .or_not()
                .ignore_then(name())
                .then_ignore(token(Token::Colon))
                .then(type_expr.clone())
                .map(|(name, ty)| ParamItem::Simple(Param { name, ty })),
            item.separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .delimited_by(token(Token::LParen), token(Token::RParen))
                .map_with(|items, extra| ParamItem::Nested(items, extra.span())),
        ))
    });
    let param_group = param_item
        .separated_by(token(Token::Comma))
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LParen), token(Token::RParen))
        .map_with(|items, extra| desugar::lower_params(items, extra.span()))
        .labelled("parameter list");
    // The groups, and the statements binding nested parameters at entry.
    let param_groups = param_group
        .repeated()
        .at_least(1)
        .collect::<Vec<_>>()
        .map(|groups| {
            let mut prelude = Vec::new();
            let groups = groups
                .into_iter()
                .map(|(group, stmts)| {
                    prelude.extend(stmts);
                    group
                })
                .collect::<Vec<_>>();
            (groups, prelude)
        })
        .boxed();
    let kind_expr = select! {
        Token::Ident(word) if word == "TYPE" => KindExpr::Type,
        Token::Ident(word) if word == "UNITSUM" => KindExpr::Unitsum,
        Token::Ident(word) if word == "COMPACTLINEAR" => KindExpr::CompactLinear,
    }
    .labelled("kind (`TYPE`, `UNITSUM` or `COMPACTLINEAR`)");
    let type_params = name()
        .then(token(Token::Colon).ignore_then(kind_expr).or_not())
        .map(|(name, kind)| TypeParam {
            name,
            kind: kind.unwrap_or(KindExpr::Type),
        })
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LBracket), token(Token::RBracket))
        .boxed();
    let return_type = token(Token::Colon)
        .ignore_then(type_expr.clone())
        .or_not()
        .boxed();
    let fun_or_gen = choice((
        keyword(Keyword::Fun).to(FunKind::Fun),
        keyword(Keyword::Cfun).to(FunKind::Fun),
        keyword(Keyword::Gen).to(FunKind::Gen),
    ));
    let proc_keyword = keyword(Keyword::Proc).or(keyword(Keyword::Cproc));

    // `{ stmts }`, optionally after `=` (L11.12).
    let block_function_tail = choice((
        fun_or_gen
            .clone()
            .then(param_groups.clone())
            .then(return_type.clone())
            .then_ignore(token(Token::Assign).or_not())
            .then(braced_stmts.clone())
            .map(|(((kind, (params, prelude)), ret), body)| {
                let body = desugar::with_prelude(prelude, FunBody::Block(body));
                (kind, params, ret, body)
            }),
        proc_keyword
            .clone()
            .ignore_then(param_groups.clone())
            .then_ignore(token(Token::Assign).or_not())
            .then(braced_stmts.clone())
            .map(|((params, prelude), body)| {
                let body = desugar::with_prelude(prelude, FunBody::Block(body));
                (FunKind::Proc, params, None, body)
            }),
    ))
    .boxed();
    let block_lambda = block_function_tail
        .clone()
        .map_with(|(kind, params, ret, body), extra| {
            let span = extra.span();
            Spanned::new(
                ExprKind::Lambda(Box::new(FunDef {
                    kind,
                    name: None,
                    type_params: Vec::new(),
                    params,
                    ret,
                    body,
                    span,
                })),
                span,
            )
        })
        .boxed();
    let arrow_lambda = fun_or_gen
        .clone()
        .then(param_groups.clone())
        .then(return_type.clone())
        .then_ignore(token(Token::FatArrow))
        .then(expr.clone())
        .map_with(|(((kind, (params, prelude)), ret), body), extra| {
            let span = extra.span();
            Spanned::new(
                ExprKind::Lambda(Box::new(FunDef {
                    kind,
                    name: None,
                    type_params: Vec::new(),
                    params,
                    ret,
                    body: desugar::with_prelude(prelude, FunBody::Expr(body)),
                    span,
                })),
                span,
            )
        })
        .boxed();

    // Level 18: atoms.
    let mut atom: RecursiveParser<'t, Expr> = Recursive::declare();
    // A record field's value: an expression without a top-level `,` (L11.8).
    let mut field_value: RecursiveParser<'t, Expr> = Recursive::declare();

    // `p*.f` and `p->f` are `(*p).f`; `x&.f` is `(&x).f` (L11.2).
    let pointer_dot = choice((
        token(Token::Star)
            .then(token(Token::Dot))
            .to(PostfixPointer::Deref),
        token(Token::RightArrow).to(PostfixPointer::Deref),
        token(Token::Ampersand)
            .then(token(Token::Dot))
            .to(PostfixPointer::Addr),
    ))
    .then(
        select! {
            Token::Ident(name) = extra => Spanned::new(ExprKind::Name(name), extra.span()),
            Token::Int(lit) = extra => Spanned::new(ExprKind::Int(lit), extra.span()),
        }
        .or(expr
            .clone()
            .delimited_by(token(Token::LParen), token(Token::RParen))),
    )
    .map(|(how, rhs)| Postfix::PointerDot(how, rhs));
    let postfix_operation = token(Token::Dot)
        .ignore_then(choice((
            token(Token::LBracket)
                .ignore_then(choice((
                    to_word()
                        .ignore_then(expr.clone())
                        .map(|end| Postfix::Slice(None, Some(end))),
                    expr.clone()
                        .then_ignore(to_word())
                        .then(expr.clone().or_not())
                        .map(|(start, end)| Postfix::Slice(Some(start), end)),
                    expr.clone().map(Postfix::Index),
                )))
                .then_ignore(token(Token::RBracket)),
            select! {
                Token::Ident(name) = extra => Postfix::Dot(Spanned::new(ExprKind::Name(name), extra.span())),
                Token::Int(lit) = extra => Postfix::Dot(Spanned::new(ExprKind::Int(lit), extra.span())),
                Token::Keyword(Keyword::True) = extra => Postfix::Dot(Spanned::new(ExprKind::Bool(true), extra.span())),
                Token::Keyword(Keyword::False) = extra => Postfix::Dot(Spanned::new(ExprKind::Bool(false), extra.span())),
            },
            expr.clone()
                .delimited_by(token(Token::LParen), token(Token::RParen))
                .map(Postfix::Dot),
        )))
        .or(pointer_dot);
    let postfix = atom
        .clone()
        .foldl_with(postfix_operation.repeated(), |lhs, operation, extra| {
            let kind = match operation {
                Postfix::Dot(rhs) => ExprKind::Dot(Box::new(lhs), Box::new(rhs)),
                Postfix::PointerDot(how, rhs) => {
                    let span = lhs.span;
                    let pointer = match how {
                        PostfixPointer::Deref => ExprKind::Deref(Box::new(lhs)),
                        PostfixPointer::Addr => ExprKind::Addr(PtrMode::ReadWrite, Box::new(lhs)),
                    };
                    ExprKind::Dot(Box::new(Spanned::new(pointer, span)), Box::new(rhs))
                }
                Postfix::Index(index) => ExprKind::StrIndex(Box::new(lhs), Box::new(index)),
                Postfix::Slice(start, end) => {
                    ExprKind::StrSlice(Box::new(lhs), start.map(Box::new), end.map(Box::new))
                }
            };
            Spanned::new(kind, extra.span())
        })
        .boxed();

    let literal = select! {
        Token::Int(lit) => ExprKind::Int(lit),
        Token::Float(lit) => ExprKind::Float(lit),
        Token::Str(bytes) => ExprKind::Str(bytes),
        Token::FormatStr(bytes) => ExprKind::Format(bytes),
        Token::Keyword(Keyword::True) => ExprKind::Bool(true),
        Token::Keyword(Keyword::False) => ExprKind::Bool(false),
    };
    let path = select! { Token::Ident(name) => name }
        .then(
            token(Token::ColonColon)
                .ignore_then(select! { Token::Ident(name) => name })
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map(|(first, rest)| {
            if rest.is_empty() {
                ExprKind::Name(first)
            } else {
                let mut segments = vec![first];
                segments.extend(rest);
                ExprKind::Qualified(segments)
            }
        })
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .then(
            type_list
                .clone()
                .delimited_by(token(Token::LBracket), token(Token::RBracket))
                .or_not(),
        )
        .map_with(|(head, type_arguments), extra| match type_arguments {
            Some(type_arguments) => Spanned::new(
                ExprKind::TypeApply(Box::new(head), type_arguments),
                extra.span(),
            ),
            None => head,
        });
    let if_expr = keyword(Keyword::If)
        .ignore_then(expr.clone())
        .then_ignore(keyword(Keyword::Then))
        .then(expr.clone())
        .then(
            keyword(Keyword::Elif)
                .ignore_then(expr.clone())
                .then_ignore(keyword(Keyword::Then))
                .then(expr.clone())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then_ignore(keyword(Keyword::Else))
        .then(expr.clone())
        // Without `endif` the last branch extends as far as it can (L11.18); such an `if` stands
        // only where a whole expression does, which `expr` checks (`open_operand`).
        .then_ignore(keyword(Keyword::Endif).or_not())
        .map_with(|(((condition, then_branch), elifs), otherwise), extra| {
            let mut branches = vec![(condition, then_branch)];
            branches.extend(elifs);
            Spanned::new(ExprKind::If(branches, Box::new(otherwise)), extra.span())
        })
        .boxed();
    let parenthesised = token(Token::LParen)
        .ignore_then(expr.clone())
        .then_ignore(token(Token::RParen))
        .map_with(|inner, extra| Spanned::new(inner.node, extra.span()));
    let parenthesised = if recovering {
        parenthesised
            .recover_with(via_parser(nested_delimiters(
                Token::LParen,
                Token::RParen,
                [
                    (Token::LBracket, Token::RBracket),
                    (Token::LBrace, Token::RBrace),
                ],
                |span| Spanned::new(ExprKind::Error, span),
            )))
            .boxed()
    } else {
        parenthesised.boxed()
    };
    // `match … endmatch` (level 1 in L4.1, but closed by `endmatch`, so Felix also accepts it as
    // an operand: `println$ match … endmatch`).
    let guard = keyword(Keyword::When)
        .ignore_then(expr.clone())
        .or_not()
        .boxed();
    let arm_patterns = token(Token::Bar)
        .ignore_then(
            pattern
                .clone()
                .separated_by(token(Token::Bar))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then(guard)
        .then_ignore(token(Token::FatArrow))
        .boxed();
    let match_head = keyword(Keyword::Match)
        .ignore_then(expr.clone())
        .then_ignore(keyword(Keyword::With))
        .boxed();
    let match_expr = match_head
        .clone()
        .then(
            arm_patterns
                .clone()
                .then(expr.clone())
                .map_with(|((patterns, guard), body), extra| MatchArm {
                    patterns,
                    guard,
                    body,
                    span: extra.span(),
                })
                .repeated()
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .boxed();
    // Like `if`: without `endmatch` the last arm extends as far as it can (L11.18).
    let match_expr = match_expr
        .then_ignore(keyword(Keyword::Endmatch).or_not())
        .map_with(|(scrutinee, arms), extra| {
            Spanned::new(ExprKind::Match(Box::new(scrutinee), arms), extra.span())
        });

    atom.define(
        choice((
            literal.map_with(|kind, extra| Spanned::new(kind, extra.span())),
            path,
            token(Token::LParen)
                .then(token(Token::RParen))
                .map_with(|_, extra| Spanned::new(ExprKind::Unit, extra.span())),
            record_fields(field_value.clone())
                .map_with(|fields, extra| Spanned::new(ExprKind::Record(fields), extra.span())),
            parenthesised,
            token(Token::Hash)
                .ignore_then(atom.clone())
                .map_with(|operand, extra| {
                    Spanned::new(ExprKind::Hash(Box::new(operand)), extra.span())
                }),
            token(Token::Ampersand)
                .ignore_then(pointer_mode())
                .then(postfix.clone())
                .map_with(|(mode, operand), extra| {
                    Spanned::new(ExprKind::Addr(mode, Box::new(operand)), extra.span())
                }),
            if_expr,
            block_lambda,
            match_expr,
            // `{ stmts }`: a closure of `()` (L11.13).
            braced_stmts
                .clone()
                .map_with(|body, extra| desugar::closure(body, extra.span())),
        ))
        .labelled("expression"),
    );

    // Level 16: juxtaposition and `caseno`.
    let argument = postfix.clone().and_is(to_word().not());
    let caseno_or_postfix = keyword(Keyword::Caseno)
        .ignore_then(postfix.clone())
        .map_with(|operand, extra| Spanned::new(ExprKind::Caseno(Box::new(operand)), extra.span()))
        .or(postfix.clone())
        .boxed();
    // `f of (T)`: the overload or constructor taking a `T` (L11.20); the type is an atom.
    let application_head = caseno_or_postfix
        .clone()
        .then(keyword(Keyword::Of).ignore_then(type_atom.clone()).or_not())
        .map_with(|(head, of), extra| match of {
            Some(ty) => Spanned::new(ExprKind::OfType(Box::new(head), ty), extra.span()),
            None => head,
        });
    let apply_all =
        |func: Expr,
         arg: Expr,
         extra: &mut chumsky::input::MapExtra<'t, '_, TokenInput<'t>, Extra<'t>>| {
            Spanned::new(
                ExprKind::Apply {
                    func: Box::new(func),
                    arg: Box::new(arg),
                    how: ApplyForm::Juxtapose,
                },
                extra.span(),
            )
        };
    // `aproj i of T`: the index is an application without the `of` suffix.
    let plain_application = caseno_or_postfix
        .foldl_with(argument.clone().repeated(), apply_all)
        .boxed();
    let application = application_head
        .foldl_with(argument.repeated(), |func, arg, extra| {
            Spanned::new(
                ExprKind::Apply {
                    func: Box::new(func),
                    arg: Box::new(arg),
                    how: ApplyForm::Juxtapose,
                },
                extra.span(),
            )
        })
        .boxed();

    // Between levels 15 and 16: prefix `*`, the dereference (L11.2): `*f x` is `*(f x)`.
    let dereference = token(Token::Star)
        .map_with(|_, extra| extra.span())
        .repeated()
        .foldr_with(application.clone(), |star_span: Span, operand, _| {
            let span = star_span.to(operand.span);
            Spanned::new(ExprKind::Deref(Box::new(operand)), span)
        })
        .boxed();
    // Level 15: prefix `-`, `+` and `~` (L11.30).
    let prefix = choice((
        token(Token::Minus).to(UnOp::Neg),
        token(Token::Plus).to(UnOp::Plus),
        token(Token::Tilde).to(UnOp::Compl),
    ))
    .map_with(|operator, extra| (operator, extra.span()))
    .repeated()
    .foldr_with(dereference, |(operator, operator_span), operand, _| {
        let span = operator_span.to(operand.span);
        Spanned::new(ExprKind::Unary(operator, Box::new(operand)), span)
    })
    .boxed();

    // Levels 14 and 13: multiplicative and additive operators.
    let multiplicative = binary_level(
        prefix,
        choice((
            token(Token::Star).to(BinOp::Mul),
            token(Token::Slash).to(BinOp::Div),
            token(Token::Percent).to(BinOp::Mod),
        )),
    );
    let additive = binary_level(
        multiplicative,
        choice((
            token(Token::Plus).to(BinOp::Add),
            token(Token::Minus).to(BinOp::Sub),
        )),
    );

    // Bitwise operators and shifts (L11.30), between levels 13 and 12, loosest first:
    // `\|` < `\^` < `\&` < `<<` `>>`, each left associative.
    let bitwise = bitwise_levels(additive);

    // Level 12: injections and unitsum values, stand-alone projections.
    let of_type = keyword(Keyword::Of).ignore_then(type_expr.clone());
    let level12 = choice((
        keyword(Keyword::Case)
            .ignore_then(int_literal())
            .then(of_type.clone())
            .map(|(lit, ty)| ExprKind::Case(lit, ty)),
        token(Token::Backtick)
            .ignore_then(int_literal())
            .then_ignore(token(Token::Colon).or(keyword(Keyword::Of)))
            .then(type_atom.clone())
            .map(|(lit, ty)| ExprKind::UnitsumValue(lit, ty)),
        keyword(Keyword::Proj)
            .ignore_then(int_literal())
            .then(of_type.clone())
            .map(|(lit, ty)| ExprKind::Proj(lit, ty)),
        keyword(Keyword::Aproj)
            .ignore_then(plain_application)
            .then(of_type.clone())
            .map(|(index, ty)| ExprKind::Aproj(Box::new(index), ty)),
        keyword(Keyword::Ident)
            .ignore_then(of_type)
            .map(ExprKind::Ident),
    ))
    .map_with(|kind, extra| Spanned::new(kind, extra.span()))
    .or(bitwise)
    .boxed();

    // Level 10: comparisons, non-associative.
    let comparison_operator = choice((
        token(Token::EqEq).to(BinOp::Eq),
        token(Token::NotEq).to(BinOp::Ne),
        token(Token::LessEq).to(BinOp::Le),
        token(Token::Less).to(BinOp::Lt),
        token(Token::GreaterEq).to(BinOp::Ge),
        token(Token::Greater).to(BinOp::Gt),
        // Membership (L11.27, L11.28): `\in`, `in`, `\notin`, `not in`.
        token(Token::SetIn).to(BinOp::In),
        keyword(Keyword::In).to(BinOp::In),
        token(Token::SetNotIn).to(BinOp::NotIn),
        keyword(Keyword::Not)
            .then(keyword(Keyword::In))
            .to(BinOp::NotIn),
    ))
    .map_with(|operator, extra| (operator, extra.span()));
    let comparison = level12
        .clone()
        .then(comparison_operator.then(level12).repeated().collect::<Vec<_>>())
        .validate(|(first, rest), _, emitter| {
            if let Some(((operator, operator_span), _)) = rest.get(1) {
                emitter.emit(coded_error(
                    *operator_span,
                    "E0100",
                    &format!(
                        "comparison operators are not associative: a second `{}` cannot follow a comparison",
                        operator.symbol()
                    ),
                    Some("parenthesise one comparison, or combine them with `and`: `a < b and b < c`"),
                ));
            }
            rest.into_iter().fold(first, |lhs, ((operator, _), rhs)| {
                let span = lhs.span.to(rhs.span);
                Spanned::new(ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)), span)
            })
        })
        .boxed();

    // Levels 9, 8, 7: `not`, `and`, `or`.
    let negation = keyword(Keyword::Not)
        .map_with(|_, extra| extra.span())
        .repeated()
        .foldr_with(comparison, |not_span: Span, operand: Expr, _| {
            let span = not_span.to(operand.span);
            Spanned::new(ExprKind::Unary(UnOp::Not, Box::new(operand)), span)
        })
        .boxed();
    let conjunction = binary_level(negation, keyword(Keyword::And).to(BinOp::And));
    let disjunction = binary_level(conjunction, keyword(Keyword::Or).to(BinOp::Or));

    // Levels 6 and 5: compact tuples and tuples.
    let compact_tuple = disjunction
        .separated_by(token(Token::CompactComma))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|items, extra| chain_or_single(items, extra.span(), ExprKind::CTuple))
        .boxed();
    field_value.define(compact_tuple.clone());
    let tuple = compact_tuple
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|items, extra| chain_or_single(items, extra.span(), ExprKind::Tuple))
        .boxed();

    // Level 4: `f $ x`, right associative.
    let dollar = recursive(|dollar| {
        tuple
            .clone()
            .then(token(Token::Dollar).ignore_then(dollar).or_not())
            .map_with(|(func, arg), extra| match arg {
                Some(arg) => Spanned::new(
                    ExprKind::Apply {
                        func: Box::new(func),
                        arg: Box::new(arg),
                        how: ApplyForm::Dollar,
                    },
                    extra.span(),
                ),
                None => func,
            })
    })
    .boxed();

    // Level 3: `x |> f`, left associative.
    let pipe = dollar
        .clone()
        .foldl_with(
            token(Token::PipeRight).ignore_then(dollar).repeated(),
            |arg, func, extra| {
                Spanned::new(
                    ExprKind::Apply {
                        func: Box::new(func),
                        arg: Box::new(arg),
                        how: ApplyForm::Pipe,
                    },
                    extra.span(),
                )
            },
        )
        .boxed();

    // Level 2: `e :>> T` and the arrow lambda.
    let coercion = pipe
        .then(token(Token::Coerce).ignore_then(type_expr.clone()).or_not())
        .map_with(|(value, target), extra| match target {
            Some(target) => Spanned::new(ExprKind::Coerce(Box::new(value), target), extra.span()),
            None => value,
        });
    let level2 = arrow_lambda.or(coercion).boxed();

    expr.define(
        level2
            .validate(|e, _, emitter| {
                if let Some(span) = open_operand(&e) {
                    emitter.emit(coded_error(
                        span,
                        "E0100",
                        "an `if` or `match` without `endif`/`endmatch` cannot be an operand",
                        Some("close it with `endif`/`endmatch`, or put it in parentheses"),
                    ));
                }
                e
            })
            .labelled("expression"),
    );

    // Statements (L5).
    let semicolon = token(Token::Semicolon);

    let var_stmt = keyword(Keyword::Var)
        .ignore_then(name())
        .then(token(Token::Colon).ignore_then(type_expr.clone()).or_not())
        .then(token(Token::Assign).ignore_then(expr.clone()).or_not())
        .then_ignore(semicolon.clone())
        .validate(|((name, ty), init), extra, emitter| {
            if ty.is_none() && init.is_none() {
                emitter.emit(coded_error(
                    extra.span(),
                    "E0100",
                    "a `var` needs a type or an initialiser",
                    Some("write `var x : T;` or `var x = e;`"),
                ));
            }
            StmtKind::Var { name, ty, init }
        });
    let val_stmt = keyword(Keyword::Val)
        .ignore_then(name())
        .then(token(Token::Colon).ignore_then(type_expr.clone()).or_not())
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(|((name, ty), init)| StmtKind::Val { name, ty, init });

    // `val a, b = e;` and `var a, b, c = e;`: names only, one per component (L11.14).
    let name_list_stmt = keyword(Keyword::Val)
        .to(Bind::Val)
        .or(keyword(Keyword::Var).to(Bind::Var))
        .then(
            name()
                .separated_by(token(Token::Comma))
                .at_least(2)
                .collect::<Vec<_>>()
                .map_with(|names, extra| (names, extra.span())),
        )
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map_with(|((bind, (names, names_span)), init), extra| {
            let parts = names
                .into_iter()
                .map(|name| {
                    if name.node == "_" {
                        Target::Ignore(name.span)
                    } else {
                        Target::Name {
                            bind,
                            name,
                            ty: None,
                        }
                    }
                })
                .collect();
            desugar::destructure(Target::Tuple(parts, names_span), init, extra.span())
        });

    // `def a, val b, var c : T, (d, _) = e;` (L11.15).
    let type_annotation = token(Token::Colon).ignore_then(type_expr.clone()).or_not();
    let def_item = recursive(|item| {
        choice((
            keyword(Keyword::Val)
                .to(Bind::Val)
                .or(keyword(Keyword::Var).to(Bind::Var))
                .then(name())
                .then(type_annotation.clone())
                .map(|((bind, name), ty)| Target::Name { bind, name, ty }),
            name().then(type_annotation.clone()).map(|(name, ty)| {
                if name.node == "_" {
                    Target::Ignore(name.span)
                } else {
                    Target::Name {
                        bind: Bind::Assign,
                        name,
                        ty,
                    }
                }
            }),
            item.separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .delimited_by(token(Token::LParen), token(Token::RParen))
                .map_with(|parts, extra| Target::Tuple(parts, extra.span())),
        ))
    });
    let def_stmt = keyword(Keyword::Def)
        .ignore_then(
            def_item
                .separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .map_with(|mut parts, extra| {
                    if parts.len() == 1 {
                        parts.pop().expect("one target")
                    } else {
                        Target::Tuple(parts, extra.span())
                    }
                }),
        )
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map_with(|(target, init), extra| desugar::destructure(target, init, extra.span()));

    // `fun == : A * A -> B = "$1==$2";`: an operator C binding, the built-in `OP` on `A`
    // (L11.21); any other C binding is E0100.
    let c_binding = fun_or_gen
        .clone()
        .ignore_then(name_or_operator())
        .then_ignore(token(Token::Colon))
        .then(type_expr.clone())
        .then_ignore(token(Token::Assign))
        .then(select! { Token::Str(bytes) = extra => (bytes, extra.span()) })
        .then_ignore(semicolon.clone())
        .validate(|((name, ty), (template, template_span)), extra, emitter| {
            let span: Span = extra.span();
            let operands = match &ty.node {
                TypeExprKind::Fun(domain, result) => match &domain.node {
                    TypeExprKind::Product(parts) if parts.len() == 2 => {
                        Some((parts[0].clone(), parts[1].clone(), (**result).clone()))
                    }
                    _ => None,
                },
                _ => None,
            };
            let (Some(op), Some((a, b, result))) = (operator_template(&template), operands) else {
                emitter.emit(coded_error(
                    template_span,
                    "E0100",
                    "the only C bindings are operator templates `\"$1 OP $2\"` of type `A * A -> B`",
                    Some("OP is one of == != < <= > >= + - * / %"),
                ));
                return StmtKind::Error;
            };
            let param = |n: &str, ty: TypeExpr| Param {
                name: Spanned::new(n.to_string(), ty.span),
                ty,
            };
            let operand = |n: &str| Box::new(Spanned::new(ExprKind::Name(n.to_string()), template_span));
            StmtKind::Fun(FunDef {
                kind: FunKind::Fun,
                name: Some(name),
                type_params: Vec::new(),
                params: vec![ParamGroup {
                    params: vec![param("$1", a), param("$2", b)],
                    span: ty.span,
                }],
                ret: Some(result),
                body: FunBody::Expr(Spanned::new(
                    ExprKind::BuiltinBinary(op, operand("$1"), operand("$2")),
                    template_span,
                )),
                span,
            })
        })
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed();

    let named_fun_or_gen = fun_or_gen
        .then(name_or_operator())
        .then(type_params.clone().or_not())
        .then(param_groups.clone())
        .then(return_type.clone())
        .then(choice((
            token(Token::FatArrow)
                .ignore_then(expr.clone())
                .then_ignore(semicolon.clone())
                .map(FunBody::Expr),
            token(Token::Assign)
                .or_not()
                .ignore_then(braced_stmts.clone())
                .then_ignore(semicolon.clone().or_not())
                .map(FunBody::Block),
        )))
        .map(
            |(((((kind, name), type_params), (params, prelude)), ret), body)| {
                let body = desugar::with_prelude(prelude, body);
                (kind, name, type_params, params, ret, body)
            },
        );
    let named_proc = proc_keyword
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then(param_groups.clone())
        .then(choice((
            // `proc p (x:int) => stmt;` (L11.12).
            token(Token::FatArrow)
                .ignore_then(stmt.clone())
                .map(|body| vec![body]),
            token(Token::Assign)
                .or_not()
                .ignore_then(braced_stmts.clone())
                .then_ignore(semicolon.clone().or_not()),
        )))
        .map(|(((name, type_params), (params, prelude)), body)| {
            (
                FunKind::Proc,
                name,
                type_params,
                params,
                None,
                desugar::with_prelude(prelude, FunBody::Block(body)),
            )
        });
    let fun_stmt = named_fun_or_gen
        .or(named_proc)
        .map_with(|(kind, name, type_params, params, ret, body), extra| {
            let span = extra.span();
            let definition = FunDef {
                kind,
                name: Some(name),
                type_params: type_params.unwrap_or_default(),
                params,
                ret,
                body,
                span,
            };
            Spanned::new(StmtKind::Fun(definition), span)
        })
        .boxed();

    let typedef_stmt = keyword(Keyword::Typedef)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then_ignore(token(Token::Assign))
        .then(type_expr.clone())
        .then_ignore(semicolon.clone())
        .map(|((name, params), ty)| StmtKind::Typedef {
            name,
            params: params.unwrap_or_default(),
            ty,
        });
    // `type K = new R [with Eq];` and `type K;`: `type` is not reserved (L1.3), so it is
    // recognised here by position; `new` is reserved, so the first form is unambiguous.
    let type_word = select! { Token::Ident(word) if word == "type" => () };
    let new_type_stmt = type_word
        .ignore_then(name())
        .then(
            token(Token::Assign)
                .ignore_then(keyword(Keyword::Reserved("new")))
                .ignore_then(type_expr.clone())
                .then(
                    keyword(Keyword::With)
                        .ignore_then(
                            name()
                                .separated_by(token(Token::Comma))
                                .at_least(1)
                                .collect::<Vec<_>>(),
                        )
                        .or_not(),
                )
                .or_not(),
        )
        .then_ignore(semicolon.clone())
        .map(|(name, rest)| match rest {
            Some((repr, grants)) => StmtKind::NewType {
                name,
                repr: Some(repr),
                grants: grants.unwrap_or_default(),
            },
            None => StmtKind::NewType {
                name,
                repr: None,
                grants: Vec::new(),
            },
        });
    let struct_stmt = keyword(Keyword::Struct)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then(
            name()
                .then_ignore(token(Token::Colon))
                .then(type_expr.clone())
                .then_ignore(semicolon.clone())
                .map(|(name, ty)| Param { name, ty })
                .repeated()
                .collect::<Vec<_>>()
                .delimited_by(token(Token::LBrace), token(Token::RBrace)),
        )
        .then_ignore(semicolon.clone().or_not())
        .map(|((name, params), fields)| StmtKind::Struct {
            name,
            params: params.unwrap_or_default(),
            fields,
        });
    let variant_stmt = keyword(Keyword::Variant)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then_ignore(token(Token::Assign))
        .then_ignore(token(Token::Bar).or_not())
        .then(
            name()
                .then(keyword(Keyword::Of).ignore_then(type_expr.clone()).or_not())
                .separated_by(token(Token::Bar))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(semicolon.clone())
        .map(|((name, params), ctors)| StmtKind::Variant {
            name,
            params: params.unwrap_or_default(),
            ctors,
        });

    let label_use = name().then_ignore(semicolon.clone());
    let break_stmt = keyword(Keyword::Break)
        .ignore_then(label_use.clone())
        .map(StmtKind::Break);
    let continue_stmt = keyword(Keyword::Continue)
        .ignore_then(label_use)
        .map(StmtKind::Continue);

    let return_stmt = keyword(Keyword::Return)
        .ignore_then(expr.clone().or_not())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Return)
        .boxed();
    let return_body = return_stmt
        .clone()
        .map_with(|kind, extra| vec![Spanned::new(kind, extra.span())]);

    // `if` statements, including the E0101 form `if c then … endif`.
    let if_head = keyword(Keyword::If)
        .map_with(|_, extra| extra.span())
        .then(expr.clone())
        .boxed();
    let do_block = keyword(Keyword::Do)
        .ignore_then(stmts.clone())
        .then(
            keyword(Keyword::Elif)
                .ignore_then(expr.clone())
                .then(
                    keyword(Keyword::Do)
                        .ignore_then(stmts.clone())
                        .or(return_body.clone()),
                )
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(keyword(Keyword::Else).ignore_then(stmts.clone()).or_not())
        .then_ignore(keyword(Keyword::Done))
        .map(|((body, elifs), otherwise)| (body, elifs, otherwise));
    let if_tail = choice((
        do_block,
        keyword(Keyword::Perform)
            .ignore_then(stmt.clone())
            .map(|body| (vec![body], Vec::new(), None)),
        break_stmt
            .clone()
            .or(continue_stmt.clone())
            .map_with(|kind, extra| (vec![Spanned::new(kind, extra.span())], Vec::new(), None)),
        // `if c return;` and `if c return e;` (L11.17).
        return_body.map(|body| (body, Vec::new(), None)),
    ));
    let if_stmt =
        if_head
            .clone()
            .then(if_tail)
            .map(|((_, condition), (body, elifs, otherwise))| {
                let mut branches = vec![(condition, body)];
                branches.extend(elifs);
                StmtKind::If {
                    branches,
                    otherwise,
                }
            });
    let if_then_stmt = if_head
        .then_ignore(keyword(Keyword::Then))
        .then_ignore(
            any()
                .and_is(keyword(Keyword::Endif).not())
                .repeated()
                .then(keyword(Keyword::Endif))
                .then(semicolon.clone().or_not()),
        )
        .validate(|(if_span, condition), _, emitter| {
            emitter.emit(coded_error(
                if_span,
                "E0101",
                "`if … then … endif` is an expression, not a statement",
                Some("as a statement, write `if c do … done` (or `if c perform stmt;`)"),
            ));
            StmtKind::IfThenStatement(condition)
        });

    // Loops (L5.7–L5.12).
    let loop_stmt = recursive(|loop_stmt| {
        let body = choice((
            keyword(Keyword::Do)
                .ignore_then(stmts.clone())
                .then_ignore(keyword(Keyword::Done)),
            keyword(Keyword::Perform)
                .ignore_then(stmt.clone())
                .map(|body| vec![body]),
            loop_stmt.map(|body| vec![body]),
        ))
        .labelled("loop body")
        .boxed();
        let for_kind = choice((
            token(Token::DotDot)
                .ignore_then(
                    type_expr
                        .clone()
                        .delimited_by(token(Token::LBracket), token(Token::RBracket)),
                )
                .map(|ty| (ForKind::Type(ty), false)),
            expr.clone()
                .then(
                    choice((
                        token(Token::DotDotLess).to(0u8),
                        token(Token::DotDot).to(1u8),
                        keyword(Keyword::Upto).to(2u8),
                        keyword(Keyword::Downto).to(3u8),
                    ))
                    .then(expr.clone())
                    .or_not(),
                )
                .map(|(first, range)| match range {
                    None => (ForKind::Array(first), false),
                    Some((0, last)) => (ForKind::RangeExclusive(first, last), false),
                    Some((1, last)) => (ForKind::RangeInclusive(first, last), false),
                    Some((2, last)) => (
                        ForKind::Upto {
                            from: first,
                            to: last,
                            declare: false,
                        },
                        true,
                    ),
                    Some((_, last)) => (
                        ForKind::Downto {
                            from: first,
                            to: last,
                            declare: false,
                        },
                        true,
                    ),
                }),
        ));
        let for_loop = keyword(Keyword::For)
            .ignore_then(keyword(Keyword::Var).or_not().map(|var| var.is_some()))
            .then(name())
            .then_ignore(keyword(Keyword::In))
            .then(for_kind)
            .then(body.clone())
            .map(|(((declare, var), (mut kind, stepped)), body)| {
                if stepped {
                    if let ForKind::Upto { declare: flag, .. }
                    | ForKind::Downto { declare: flag, .. } = &mut kind
                    {
                        *flag = declare;
                    }
                }
                StmtKind::For {
                    label: None,
                    var,
                    kind,
                    body,
                }
            });
        let while_loop = keyword(Keyword::While)
            .ignore_then(expr.clone())
            .then(body.clone())
            .map(|(cond, body)| StmtKind::While {
                label: None,
                cond,
                body,
            });
        let until_loop = keyword(Keyword::Until)
            .ignore_then(expr.clone())
            .then(body.clone())
            .map(|(cond, body)| StmtKind::Until {
                label: None,
                cond,
                body,
            });
        let repeat_loop = keyword(Keyword::Repeat)
            .ignore_then(body)
            .map(|body| StmtKind::Repeat { label: None, body });
        name()
            .then_ignore(token(Token::Colon))
            .or_not()
            .then(choice((for_loop, while_loop, until_loop, repeat_loop)))
            .map_with(|(label, mut kind), extra| {
                match &mut kind {
                    StmtKind::For { label: slot, .. }
                    | StmtKind::While { label: slot, .. }
                    | StmtKind::Until { label: slot, .. }
                    | StmtKind::Repeat { label: slot, .. } => *slot = label,
                    _ => {}
                }
                Spanned::new(kind, extra.span())
            })
    })
    .boxed();

    let assert_stmt = keyword(Keyword::Assert)
        .ignore_then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Assert);
    let begin_stmt = keyword(Keyword::Begin)
        .ignore_then(stmts.clone())
        .then_ignore(keyword(Keyword::End))
        .then_ignore(semicolon.clone().or_not())
        .map(StmtKind::Block);
    let match_stmt = match_head
        .then(
            arm_patterns
                .then(stmts.clone())
                .map_with(|((patterns, guard), body), extra| MatchArm {
                    patterns,
                    guard,
                    body,
                    span: extra.span(),
                })
                .repeated()
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(keyword(Keyword::Endmatch))
        .then_ignore(semicolon.clone().or_not())
        .map(|(scrutinee, arms)| StmtKind::Match(scrutinee, arms));

    let increment = token(Token::PlusPlus)
        .to(true)
        .or(token(Token::MinusMinus).to(false))
        .then(postfix.clone())
        .then_ignore(semicolon.clone())
        .map(|(up, target)| StmtKind::Incr { target, up });
    let assign_operator = choice((
        token(Token::Assign).to(AssignOp::Set),
        token(Token::PlusAssign).to(AssignOp::Add),
        token(Token::MinusAssign).to(AssignOp::Sub),
        token(Token::StarAssign).to(AssignOp::Mul),
        token(Token::SlashAssign).to(AssignOp::Div),
        token(Token::PercentAssign).to(AssignOp::Mod),
        token(Token::AmpAssign).to(AssignOp::BitAnd),
        token(Token::BarAssign).to(AssignOp::BitOr),
        token(Token::CaretAssign).to(AssignOp::BitXor),
        token(Token::ShiftLeftAssign).to(AssignOp::Shl),
        token(Token::ShiftRightAssign).to(AssignOp::Shr),
    ));
    // `None` for `:=` (L11.14).
    let assignment = assign_operator
        .map(Some)
        .or(token(Token::ColonAssign).to(None));
    let expression_stmt = expr
        .clone()
        .then(
            assignment
                .then(expr.clone())
                .map(|(op, value)| (Some(op), value))
                // `p <- v;` through any pointer (L11.2): parsed with the expression statement
                // so that the target is parsed once.
                .or(token(Token::LeftArrow)
                    .ignore_then(expr.clone())
                    .map(|value| (None, value)))
                .or_not(),
        )
        .then_ignore(semicolon.clone())
        .validate(|(target, assignment), extra, emitter| {
            let (op, value) = match assignment {
                None => return StmtKind::Expr(target),
                // `&x.i <- v;`: a store into a component of a variable (L5.4).
                Some((None, value)) => {
                    return match target.node {
                        ExprKind::Addr(PtrMode::ReadWrite, target) => StmtKind::Store {
                            target: *target,
                            value,
                        },
                        _ => StmtKind::StoreAt {
                            pointer: target,
                            value,
                        },
                    }
                }
                Some((Some(op), value)) => (op, value),
            };
            let (bind, what) = match op {
                Some(AssignOp::Set) if matches!(target.node, ExprKind::Tuple(_)) => {
                    (Bind::Assign, "a tuple assignment")
                }
                Some(op) => return StmtKind::Assign { target, op, value },
                None => (Bind::Val, "`:=`"),
            };
            match desugar::target_of_expr(&target, bind) {
                Ok(t) => desugar::destructure(t, value, extra.span()),
                Err(span) => {
                    emitter.emit(coded_error(
                        span,
                        "E0100",
                        &format!(
                            "the left side of {what} is a name or a parenthesised list of names"
                        ),
                        Some("write `a, (b, c) := e;` or `a, b = e;`"),
                    ));
                    StmtKind::Error
                }
            }
        });
    // `if c then { … } else { … } endif;`: an expression statement (L11.13), tried before the
    // E0101 form.
    let if_expression_stmt = keyword(Keyword::If)
        .rewind()
        .ignore_then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Expr);

    let simple_stmt = choice((
        name_list_stmt,
        def_stmt,
        var_stmt,
        val_stmt,
        typedef_stmt,
        new_type_stmt,
        struct_stmt,
        variant_stmt,
        break_stmt,
        continue_stmt,
        return_stmt,
        assert_stmt,
        begin_stmt,
        if_stmt,
        if_expression_stmt,
        if_then_stmt,
        increment,
    ))
    .map_with(|kind, extra| Spanned::new(kind, extra.span()))
    .boxed();
    let late_stmt = choice((match_stmt, expression_stmt))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed();

    // Recovery: skip a failed statement up to and including its `;`, never past the end of the
    // enclosing block (a `}` or a keyword that closes a statement list). A stray `)` or `]` is
    // skipped with the statement it ends.
    let stop_tokens = [
        Token::Semicolon,
        Token::RBrace,
        Token::Bar,
        Token::Keyword(Keyword::Done),
        Token::Keyword(Keyword::End),
        Token::Keyword(Keyword::Endmatch),
        Token::Keyword(Keyword::Elif),
        Token::Keyword(Keyword::Else),
    ];
    let delimited_group = choice((
        nested_delimiters(
            Token::LParen,
            Token::RParen,
            [
                (Token::LBracket, Token::RBracket),
                (Token::LBrace, Token::RBrace),
            ],
            |_| (),
        ),
        nested_delimiters(
            Token::LBracket,
            Token::RBracket,
            [
                (Token::LParen, Token::RParen),
                (Token::LBrace, Token::RBrace),
            ],
            |_| (),
        ),
        nested_delimiters(
            Token::LBrace,
            Token::RBrace,
            [
                (Token::LParen, Token::RParen),
                (Token::LBracket, Token::RBracket),
            ],
            |_| (),
        ),
    ));
    // Memoized: an unclosed opener makes `nested_delimiters` scan to the end of the input, and
    // nested failing blocks would otherwise rescan it from every position at every level.
    let skip_unit = delimited_group
        .memoized()
        .or(none_of(stop_tokens).ignored());
    let skip_statement = skip_unit
        .repeated()
        .at_least(1)
        .then(semicolon.clone().or_not())
        .ignored()
        .or(semicolon.clone().ignored())
        .map_with(|_, extra| Spanned::new(StmtKind::Error, extra.span()));

    // A lone `;` (as in `done;`) is an empty statement.
    let empty_stmt = semicolon
        .clone()
        .map_with(|_, extra| Spanned::new(StmtKind::Block(Vec::new()), extra.span()));
    let statement = choice((
        c_binding,
        fun_stmt,
        loop_stmt,
        simple_stmt,
        late_stmt,
        empty_stmt,
    ))
    .labelled("statement")
    // Memoized (failures): after an unclosed `for … do` or `{` fails at the end of the input
    // and recovery skips a little, the statements inside are tried again from the same
    // positions; without the memo, nested unclosed blocks cost exponential time.
    .memoized();
    if recovering {
        stmt.define(statement.recover_with(via_parser(skip_statement)).boxed());
    } else {
        stmt.define(statement.boxed());
    }

    // At the top level a stray closing token is reported and skipped.
    let stray_token = any().validate(|found: Token, extra, emitter| {
        emitter.emit(coded_error(
            extra.span(),
            "E0100",
            &format!("unexpected {found}: expected a statement"),
            None,
        ));
        Spanned::new(StmtKind::Error, extra.span())
    });
    let program = if recovering {
        stmt.clone()
            .or(stray_token)
            .repeated()
            .collect::<Vec<_>>()
            .then_ignore(end())
            .boxed()
    } else {
        stmt.clone()
            .repeated()
            .collect::<Vec<_>>()
            .then_ignore(end())
            .boxed()
    };

    Grammar {
        type_expr,
        type_list,
        expr: expr.boxed(),
        program,
    }
}

/// A postfix operation of level 17.
#[derive(Clone)]
enum Postfix {
    Dot(Expr),
    /// `p*.f`, `p->f` (through `*p`) or `x&.f` (through `&x`).
    PointerDot(PostfixPointer, Expr),
    Index(Expr),
    Slice(Option<Expr>, Option<Expr>),
}

#[derive(Clone, Copy)]
enum PostfixPointer {
    Deref,
    Addr,
}

/// A left-associative binary operator level.
fn binary_level<'t>(
    operand: BoxedParser<'t, Expr>,
    operator: impl Parser<'t, TokenInput<'t>, BinOp, Extra<'t>> + Clone + 't,
) -> BoxedParser<'t, Expr> {
    operand
        .clone()
        .foldl_with(
            operator.then(operand).repeated(),
            |lhs, (operator, rhs), extra| {
                Spanned::new(
                    ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)),
                    extra.span(),
                )
            },
        )
        .boxed()
}

/// The levels of the bitwise operators and shifts (L11.30) over `operand` (the additive
/// level): shifts, then `\&`, `\^`, `\|`, each a left-associative level. `>>` is two `>`
/// tokens with nothing between them (the lexer keeps them apart for nested brackets).
fn bitwise_levels<'t>(operand: BoxedParser<'t, Expr>) -> BoxedParser<'t, Expr> {
    let greater = || token(Token::Greater).map_with(|_, extra| -> Span { extra.span() });
    let shift_right = greater().then(greater()).try_map(|(first, second), span| {
        if first.end == second.start {
            Ok(BinOp::Shr)
        } else {
            Err(coded_error(
                span,
                "E0100",
                "`>>` is written without a space between the two `>`",
                None,
            ))
        }
    });
    let shift = binary_level(
        operand,
        choice((token(Token::ShiftLeft).to(BinOp::Shl), shift_right)),
    );
    let and = binary_level(shift, token(Token::BitAnd).to(BinOp::BitAnd));
    let xor = binary_level(and, token(Token::CompactCaret).to(BinOp::BitXor));
    binary_level(xor, token(Token::BitOr).to(BinOp::BitOr))
}

/// Describes one expected pattern for a message.
fn describe_pattern(pattern: &RichPattern<'_, Token>) -> Option<String> {
    match pattern {
        RichPattern::Token(token) => {
            let token: &Token = token;
            Some(token.to_string())
        }
        RichPattern::Label(label) => Some(label.to_string()),
        RichPattern::Identifier(identifier) => Some(format!("`{identifier}`")),
        RichPattern::Any => Some("a token".to_string()),
        RichPattern::EndOfInput => Some("end of input".to_string()),
        _ => None,
    }
}

/// Beyond this many alternatives a message lists only the important ones.
const MAXIMUM_LISTED_EXPECTATIONS: usize = 5;

/// Keeps the labelled categories (expression, statement, type, …) and the closing tokens of a
/// long list of expectations, which are what a reader needs.
fn shorten_expectations(descriptions: Vec<String>) -> Vec<String> {
    const CLOSING: &[&str] = &[
        "`;`",
        "`)`",
        "`]`",
        "`}`",
        "`=>`",
        "keyword `done`",
        "keyword `end`",
        "keyword `endif`",
        "keyword `endmatch`",
    ];
    let important: Vec<String> = descriptions
        .iter()
        .filter(|description| {
            CLOSING.contains(&description.as_str())
                || !(description.starts_with('`') || description.starts_with("keyword"))
        })
        .cloned()
        .collect();
    if important.is_empty() {
        descriptions
            .into_iter()
            .take(MAXIMUM_LISTED_EXPECTATIONS)
            .collect()
    } else {
        important
    }
}

/// Converts a chumsky error to a `SyntaxError`. `source_length` locates the end of input.
pub fn convert_error(error: &ParseError<'_>, source_length: usize) -> SyntaxError {
    let span = *error.span();
    match error.reason() {
        RichReason::Custom(coded) => SyntaxError {
            span,
            code: coded.code,
            message: coded.message.clone(),
            label: coded.message.clone(),
            help: coded.help.clone(),
            at_end: false,
        },
        RichReason::ExpectedFound { expected, found } => {
            let mut descriptions: Vec<String> = Vec::new();
            for pattern in expected {
                if let Some(description) = describe_pattern(pattern) {
                    if !descriptions.contains(&description) {
                        descriptions.push(description);
                    }
                }
            }
            if descriptions.len() > MAXIMUM_LISTED_EXPECTATIONS {
                descriptions = shorten_expectations(descriptions);
            }
            let expected_text = match descriptions.len() {
                0 => "something else".to_string(),
                1 => descriptions[0].clone(),
                count => format!(
                    "{} or {}",
                    descriptions[..count - 1].join(", "),
                    descriptions[count - 1]
                ),
            };
            let found_text = match found {
                Some(token) => {
                    let token: &Token = token;
                    token.to_string()
                }
                None => "end of input".to_string(),
            };
            if let Some(Token::Keyword(keyword)) = found.as_deref() {
                if descriptions
                    .iter()
                    .any(|d| d == "name" || d.starts_with("name "))
                {
                    return reserved_word_as_name(span, keyword.spelling());
                }
            }
            let at_end = found.is_none();
            let span = if at_end {
                Span::new(source_length, source_length)
            } else {
                span
            };
            SyntaxError {
                span,
                code: "E0100",
                message: format!("expected {expected_text}, found {found_text}"),
                label: format!("expected {expected_text}"),
                help: None,
                at_end,
            }
        }
    }
}

/// A keyword (`total`, `new`, `if`, …) where a name was expected: say it is reserved and
/// offer a name that is not.
fn reserved_word_as_name(span: Span, word: &str) -> SyntaxError {
    SyntaxError {
        span,
        code: "E0100",
        message: format!("`{word}` is a reserved word in Felix and cannot be used as a name"),
        label: "a reserved word".to_string(),
        help: Some(format!(
            "choose another name, such as `{word}_` or `my_{word}`"
        )),
        at_end: false,
    }
}

/// Runs `parser` over `tokens` and returns its output (if any) and every error.
pub fn run_parser<'t, O>(
    parser: &BoxedParser<'t, O>,
    tokens: &'t [(Token, Span)],
    source_length: usize,
) -> (Option<O>, Vec<SyntaxError>) {
    let end_of_input = Span::new(source_length, source_length);
    let input = tokens.split_token_span(end_of_input);
    let (output, errors) = parser.parse(input).into_output_errors();
    let errors = errors
        .iter()
        .map(|error| convert_error(error, source_length))
        .collect();
    (output, errors)
}

#[cfg(test)]
mod tests {
    use crate::syntax::ast::*;
    use crate::syntax::span::{Span, Spanned};
    use crate::syntax::{
        parse_chunk, parse_expr, parse_program, parse_type, parse_type_list, ChunkParse,
    };

    fn at<T>(node: T) -> Spanned<T> {
        Spanned::new(node, Span::default())
    }

    fn name(text: &str) -> Expr {
        at(ExprKind::Name(text.to_string()))
    }

    fn int(value: u128) -> Expr {
        at(ExprKind::Int(literal(value)))
    }

    fn literal(value: u128) -> IntLit {
        IntLit {
            value: Some(value),
            suffix: String::new(),
        }
    }

    fn apply(func: Expr, arg: Expr, how: ApplyForm) -> Expr {
        at(ExprKind::Apply {
            func: Box::new(func),
            arg: Box::new(arg),
            how,
        })
    }

    fn juxtapose(func: Expr, arg: Expr) -> Expr {
        apply(func, arg, ApplyForm::Juxtapose)
    }

    fn binary(operator: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        at(ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)))
    }

    fn unary(operator: UnOp, operand: Expr) -> Expr {
        at(ExprKind::Unary(operator, Box::new(operand)))
    }

    fn dot(lhs: Expr, rhs: Expr) -> Expr {
        at(ExprKind::Dot(Box::new(lhs), Box::new(rhs)))
    }

    fn tuple(items: Vec<Expr>) -> Expr {
        at(ExprKind::Tuple(items))
    }

    fn ty_name(text: &str) -> TypeExpr {
        at(TypeExprKind::Name(text.to_string()))
    }

    fn unitsum(value: u128) -> TypeExpr {
        at(TypeExprKind::Unitsum(literal(value)))
    }

    fn array(base: TypeExpr, index: TypeExpr) -> TypeExpr {
        at(TypeExprKind::Array(Box::new(base), Box::new(index)))
    }

    fn expr(src: &str) -> Expr {
        parse_expr(src).unwrap_or_else(|errors| panic!("{src:?} failed: {errors:?}"))
    }

    fn type_of(src: &str) -> TypeExpr {
        parse_type(src).unwrap_or_else(|errors| panic!("{src:?} failed: {errors:?}"))
    }

    fn program(src: &str) -> Vec<Stmt> {
        let (statements, errors) = parse_program(src);
        assert!(errors.is_empty(), "{src:?} failed: {errors:?}");
        statements
    }

    fn single_statement(src: &str) -> StmtKind {
        let mut statements = program(src);
        assert_eq!(statements.len(), 1, "{src:?}: {statements:?}");
        statements.remove(0).node
    }

    fn line_of(src: &str, offset: usize) -> usize {
        src[..offset].matches('\n').count() + 1
    }

    #[test]
    fn dollar_takes_tuples_on_both_sides() {
        assert_eq!(
            expr("println$ a, b"),
            apply(
                name("println"),
                tuple(vec![name("a"), name("b")]),
                ApplyForm::Dollar
            )
        );
        assert_eq!(
            expr("f (1,2), g$ 3,4"),
            apply(
                tuple(vec![
                    juxtapose(name("f"), tuple(vec![int(1), int(2)])),
                    name("g")
                ]),
                tuple(vec![int(3), int(4)]),
                ApplyForm::Dollar
            )
        );
        assert_eq!(
            expr("f$ g$ x"),
            apply(
                name("f"),
                apply(name("g"), name("x"), ApplyForm::Dollar),
                ApplyForm::Dollar
            )
        );
    }

    #[test]
    fn coercion_is_looser_than_dollar() {
        assert_eq!(
            expr("println$ x :>> int"),
            at(ExprKind::Coerce(
                Box::new(apply(name("println"), name("x"), ApplyForm::Dollar)),
                ty_name("int")
            ))
        );
    }

    #[test]
    fn pipe_is_left_associative_and_looser_than_dollar() {
        assert_eq!(
            expr("3 |> inc |> dbl"),
            apply(
                name("dbl"),
                apply(name("inc"), int(3), ApplyForm::Pipe),
                ApplyForm::Pipe
            )
        );
        assert_eq!(
            expr("x |> f $ y"),
            apply(
                apply(name("f"), name("y"), ApplyForm::Dollar),
                name("x"),
                ApplyForm::Pipe
            )
        );
    }

    #[test]
    fn juxtaposition_postfix_and_prefix_minus() {
        assert_eq!(
            expr("f x y"),
            juxtapose(juxtapose(name("f"), name("x")), name("y"))
        );
        assert_eq!(expr("f x.1"), juxtapose(name("f"), dot(name("x"), int(1))));
        assert_eq!(expr("-x.f"), unary(UnOp::Neg, dot(name("x"), name("f"))));
        assert_eq!(
            expr("-7 / 2"),
            binary(BinOp::Div, unary(UnOp::Neg, int(7)), int(2))
        );
        assert_eq!(expr("f -x"), binary(BinOp::Sub, name("f"), name("x")));
        assert_eq!(
            expr("1 + 2 * 3 - 4"),
            binary(
                BinOp::Sub,
                binary(BinOp::Add, int(1), binary(BinOp::Mul, int(2), int(3))),
                int(4)
            )
        );
        assert_eq!(
            expr("\"ab\" \"cd\""),
            juxtapose(
                at(ExprKind::Str(b"ab".to_vec())),
                at(ExprKind::Str(b"cd".to_vec()))
            )
        );
        assert_eq!(
            expr("caseno x y"),
            juxtapose(at(ExprKind::Caseno(Box::new(name("x")))), name("y"))
        );
        assert_eq!(
            expr("3.inc.dbl"),
            dot(dot(int(3), name("inc")), name("dbl"))
        );
    }

    #[test]
    fn dots_with_spaces_and_parenthesised_right_hand_sides() {
        assert_eq!(
            expr("y . sel . _strr"),
            dot(dot(name("y"), name("sel")), name("_strr"))
        );
        assert_eq!(expr("t.1 .1"), dot(dot(name("t"), int(1)), int(1)));
        assert_eq!(
            expr("y.(i \\, j)"),
            dot(name("y"), at(ExprKind::CTuple(vec![name("i"), name("j")])))
        );
        assert_eq!(expr("a.true"), dot(name("a"), at(ExprKind::Bool(true))));
        assert_eq!(expr("42._strr"), dot(int(42), name("_strr")));
    }

    #[test]
    fn string_index_and_slices() {
        let s = || Box::new(name("s"));
        assert_eq!(
            expr("s.[i]"),
            at(ExprKind::StrIndex(s(), Box::new(name("i"))))
        );
        assert_eq!(
            expr("s.[i to j]"),
            at(ExprKind::StrSlice(
                s(),
                Some(Box::new(name("i"))),
                Some(Box::new(name("j")))
            ))
        );
        assert_eq!(
            expr("s.[i to]"),
            at(ExprKind::StrSlice(s(), Some(Box::new(name("i"))), None))
        );
        assert_eq!(
            expr("s.[to j]"),
            at(ExprKind::StrSlice(s(), None, Some(Box::new(name("j")))))
        );
    }

    #[test]
    fn logic_and_comparisons() {
        assert_eq!(
            expr("not a == b"),
            unary(UnOp::Not, binary(BinOp::Eq, name("a"), name("b")))
        );
        assert_eq!(
            expr("a or b and c"),
            binary(
                BinOp::Or,
                name("a"),
                binary(BinOp::And, name("b"), name("c"))
            )
        );
        let errors = parse_expr("1 < a < 3").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].span, Span::new(6, 7));
    }

    #[test]
    fn bitwise_levels_between_comparisons_and_sums() {
        // L11.30: `\|` < `\^` < `\&` < `<<` `>>` < `+ -`, all above the comparisons.
        assert_eq!(
            expr("x \\& m == 0u"),
            binary(
                BinOp::Eq,
                binary(BinOp::BitAnd, name("x"), name("m")),
                at(ExprKind::Int(IntLit {
                    value: Some(0),
                    suffix: "u".into()
                }))
            )
        );
        assert_eq!(
            expr("1 << 2 + 1"),
            binary(BinOp::Shl, int(1), binary(BinOp::Add, int(2), int(1)))
        );
        assert_eq!(
            expr("a \\| b \\^ c \\& d >> e"),
            binary(
                BinOp::BitOr,
                name("a"),
                binary(
                    BinOp::BitXor,
                    name("b"),
                    binary(
                        BinOp::BitAnd,
                        name("c"),
                        binary(BinOp::Shr, name("d"), name("e"))
                    )
                )
            )
        );
        assert_eq!(
            expr("a << b << c"),
            binary(
                BinOp::Shl,
                binary(BinOp::Shl, name("a"), name("b")),
                name("c")
            )
        );
        assert_eq!(expr("~a"), unary(UnOp::Compl, name("a")));
        // `>>` is two adjacent `>`; `> >` is not a shift, `:>>` is still a coercion.
        assert!(parse_expr("a > > b").is_err());
        assert_eq!(
            expr("x :>> int"),
            at(ExprKind::Coerce(Box::new(name("x")), ty_name("int")))
        );
        assert_eq!(expr("a >= b"), binary(BinOp::Ge, name("a"), name("b")));
    }

    #[test]
    fn membership_is_a_comparison() {
        // L11.27, L11.28: row 10 of L4.1.
        assert_eq!(
            expr("1 + 2 in a"),
            binary(BinOp::In, binary(BinOp::Add, int(1), int(2)), name("a"))
        );
        assert_eq!(expr("e \\in a"), binary(BinOp::In, name("e"), name("a")));
        assert_eq!(
            expr("e \\notin a"),
            binary(BinOp::NotIn, name("e"), name("a"))
        );
        assert_eq!(
            expr("e not in a"),
            binary(BinOp::NotIn, name("e"), name("a"))
        );
        assert_eq!(
            expr("x in a and y not in a"),
            binary(
                BinOp::And,
                binary(BinOp::In, name("x"), name("a")),
                binary(BinOp::NotIn, name("y"), name("a"))
            )
        );
    }

    #[test]
    fn assert_and_compound_bitwise_assignments() {
        assert_eq!(
            single_statement("assert(x == 1);"),
            StmtKind::Assert(binary(BinOp::Eq, name("x"), int(1)))
        );
        for (src, op) in [
            ("x &= m;", AssignOp::BitAnd),
            ("x |= m;", AssignOp::BitOr),
            ("x ^= m;", AssignOp::BitXor),
            ("x <<= m;", AssignOp::Shl),
            ("x >>= m;", AssignOp::Shr),
        ] {
            assert_eq!(
                single_statement(src),
                StmtKind::Assign {
                    target: name("x"),
                    op,
                    value: name("m")
                },
                "{src}"
            );
        }
        assert_eq!(
            expr("f\"%d\" 5"),
            juxtapose(at(ExprKind::Format(b"%d".to_vec())), int(5))
        );
    }

    #[test]
    fn compact_tuples_chain_and_nest() {
        assert_eq!(
            expr("a \\, b \\, c"),
            at(ExprKind::CTuple(vec![name("a"), name("b"), name("c")]))
        );
        assert_eq!(
            expr("(a \\, b) \\, c"),
            at(ExprKind::CTuple(vec![
                at(ExprKind::CTuple(vec![name("a"), name("b")])),
                name("c")
            ]))
        );
        assert_eq!(
            expr("`1:3 \\, true"),
            at(ExprKind::CTuple(vec![
                at(ExprKind::UnitsumValue(literal(1), unitsum(3))),
                at(ExprKind::Bool(true))
            ]))
        );
        assert_eq!(
            expr("`2 of 3"),
            at(ExprKind::UnitsumValue(literal(2), unitsum(3)))
        );
    }

    #[test]
    fn injections_projections_and_instantiation() {
        assert_eq!(
            expr("case 1 of (3 \\+ 2)"),
            at(ExprKind::Case(
                literal(1),
                at(TypeExprKind::CSum(vec![unitsum(3), unitsum(2)]))
            ))
        );
        assert_eq!(
            expr("(case 1 of (3 \\+ 2)) (`1:2)"),
            juxtapose(
                at(ExprKind::Case(
                    literal(1),
                    at(TypeExprKind::CSum(vec![unitsum(3), unitsum(2)]))
                )),
                at(ExprKind::UnitsumValue(literal(1), unitsum(2)))
            )
        );
        assert_eq!(
            expr("proj 1 of int * string"),
            at(ExprKind::Proj(
                literal(1),
                at(TypeExprKind::Product(vec![
                    ty_name("int"),
                    ty_name("string")
                ]))
            ))
        );
        assert_eq!(
            expr("aproj i of int ^ 3"),
            at(ExprKind::Aproj(
                Box::new(name("i")),
                array(ty_name("int"), unitsum(3))
            ))
        );
        assert_eq!(expr("ident of int"), at(ExprKind::Ident(ty_name("int"))));
        assert_eq!(
            expr("Typing::memcount[3 \\* 4]"),
            at(ExprKind::TypeApply(
                Box::new(at(ExprKind::Qualified(vec![
                    "Typing".into(),
                    "memcount".into()
                ]))),
                vec![at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(4)]))]
            ))
        );
        assert_eq!(
            expr("f[int, 3 \\* 2] ()"),
            juxtapose(
                at(ExprKind::TypeApply(
                    Box::new(name("f")),
                    vec![
                        ty_name("int"),
                        at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)]))
                    ]
                )),
                at(ExprKind::Unit)
            )
        );
    }

    #[test]
    fn atoms_hash_address_if_and_lambdas() {
        assert_eq!(expr("#f"), at(ExprKind::Hash(Box::new(name("f")))));
        assert_eq!(
            expr("&x.i"),
            at(ExprKind::Addr(
                crate::types::ty::PtrMode::ReadWrite,
                Box::new(dot(name("x"), name("i"))),
            ))
        );
        assert_eq!(
            expr("if c then a elif d then b else e endif"),
            at(ExprKind::If(
                vec![(name("c"), name("a")), (name("d"), name("b"))],
                Box::new(name("e"))
            ))
        );
        let ExprKind::Lambda(definition) = expr("fun (x:int) (y:int) : int => x + y").node else {
            panic!("not a lambda");
        };
        assert_eq!(definition.params.len(), 2);
        assert_eq!(definition.ret, Some(ty_name("int")));
        assert_eq!(
            definition.body,
            FunBody::Expr(binary(BinOp::Add, name("x"), name("y")))
        );
        let ExprKind::Lambda(definition) = expr("proc (x:int) { println x; }").node else {
            panic!("not a lambda");
        };
        assert_eq!(definition.kind, FunKind::Proc);
        assert!(matches!(definition.body, FunBody::Block(ref body) if body.len() == 1));
        assert!(matches!(
            expr("(g, (fun (n:int) => n * n))").node,
            ExprKind::Tuple(ref items) if matches!(items[1].node, ExprKind::Lambda(_))
        ));
    }

    #[test]
    fn match_expressions() {
        let ExprKind::Match(scrutinee, arms) = expr(
            "match x with | 1 | 2 => \"small\" | k when k < 0 => \"neg\" | _ => \"other\" endmatch",
        )
        .node
        else {
            panic!("not a match");
        };
        assert_eq!(*scrutinee, name("x"));
        assert_eq!(arms.len(), 3);
        assert_eq!(arms[0].patterns.len(), 2);
        assert!(arms[1].guard.is_some());
        assert_eq!(arms[2].patterns[0], at(PatternKind::Wildcard));
        assert!(matches!(
            expr("println$ match 2 with | _ => 1 endmatch").node,
            ExprKind::Apply {
                how: ApplyForm::Dollar,
                ..
            }
        ));
    }

    #[test]
    fn patterns() {
        let ExprKind::Match(_, arms) = expr(
            "match v with | (a, (b, -1)) => 0 | case 2 => 1 | case 1 x => 2 | `0 y => 3 | Rect (w, h) => 4 | Dot => 5 | \"s\" => 6 | () => 7 endmatch",
        )
        .node
        else {
            panic!("not a match");
        };
        let first: Vec<Pattern> = arms.iter().map(|arm| arm.patterns[0].clone()).collect();
        assert_eq!(
            first[0],
            at(PatternKind::Tuple(vec![
                at(PatternKind::Name("a".into())),
                at(PatternKind::Tuple(vec![
                    at(PatternKind::Name("b".into())),
                    at(PatternKind::Int {
                        negative: true,
                        lit: literal(1)
                    })
                ]))
            ]))
        );
        assert_eq!(first[1], at(PatternKind::Case(literal(2), None)));
        assert_eq!(
            first[2],
            at(PatternKind::Case(
                literal(1),
                Some(Box::new(at(PatternKind::Name("x".into()))))
            ))
        );
        assert_eq!(
            first[3],
            at(PatternKind::Case(
                literal(0),
                Some(Box::new(at(PatternKind::Name("y".into()))))
            ))
        );
        assert!(matches!(first[4].node, PatternKind::Ctor(ref ctor, _) if ctor == "Rect"));
        // A bare upper-case name is a constant constructor (L11.19).
        assert_eq!(first[5], at(PatternKind::Constant("Dot".into())));
        assert_eq!(first[6], at(PatternKind::Str(b"s".to_vec())));
        assert_eq!(first[7], at(PatternKind::Unit));
    }

    #[test]
    fn type_precedence() {
        assert_eq!(
            type_of("int ^ 2 ^ 3"),
            array(array(ty_name("int"), unitsum(2)), unitsum(3))
        );
        assert_eq!(
            type_of("int ^ 3 \\* 2"),
            at(TypeExprKind::CProduct(vec![
                array(ty_name("int"), unitsum(3)),
                unitsum(2)
            ]))
        );
        assert_eq!(
            type_of("3 \\+ 2 * 4"),
            at(TypeExprKind::CSum(vec![
                unitsum(3),
                at(TypeExprKind::Product(vec![unitsum(2), unitsum(4)]))
            ]))
        );
        assert_eq!(
            type_of("int -> int -> int"),
            at(TypeExprKind::Fun(
                Box::new(ty_name("int")),
                Box::new(at(TypeExprKind::Fun(
                    Box::new(ty_name("int")),
                    Box::new(ty_name("int"))
                )))
            ))
        );
        assert_eq!(
            type_of("(3 \\* 2) \\* 4"),
            at(TypeExprKind::CProduct(vec![
                at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)])),
                unitsum(4)
            ]))
        );
        assert_eq!(
            type_of("3 \\* 2 \\* 4"),
            at(TypeExprKind::CProduct(vec![
                unitsum(3),
                unitsum(2),
                unitsum(4)
            ]))
        );
        assert_eq!(
            type_of("int + string * 2"),
            at(TypeExprKind::Sum(vec![
                ty_name("int"),
                at(TypeExprKind::Product(vec![ty_name("string"), unitsum(2)]))
            ]))
        );
        assert_eq!(type_of("()"), at(TypeExprKind::Unit));
        assert_eq!(
            type_of("2 \\^ 100"),
            at(TypeExprKind::CArray(
                Box::new(unitsum(2)),
                Box::new(unitsum(100))
            ))
        );
        assert!(parse_type("int ^").is_err());
    }

    #[test]
    fn unitsum_arithmetic() {
        let arith = |op, lhs, rhs| at(TypeExprKind::UnitsumArith(op, Box::new(lhs), Box::new(rhs)));
        assert_eq!(
            type_of("2 `+ 3"),
            arith(UnitsumOp::Add, unitsum(2), unitsum(3))
        );
        assert_eq!(
            type_of("2 `* 3 `+ 1"),
            arith(
                UnitsumOp::Add,
                arith(UnitsumOp::Mul, unitsum(2), unitsum(3)),
                unitsum(1)
            )
        );
        assert_eq!(
            type_of("7 `- 2 `- 1"),
            arith(
                UnitsumOp::Sub,
                arith(UnitsumOp::Sub, unitsum(7), unitsum(2)),
                unitsum(1)
            )
        );
    }

    #[test]
    fn type_lists() {
        let types = parse_type_list("int ^ 2 ^ 3, int ^ (3 \\* 2)").unwrap();
        assert_eq!(types.len(), 2);
        assert_eq!(
            types[1],
            array(
                ty_name("int"),
                at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)]))
            )
        );
    }

    #[test]
    fn variables_and_assignments() {
        assert!(matches!(
            single_statement("var x : int;"),
            StmtKind::Var {
                ty: Some(_),
                init: None,
                ..
            }
        ));
        assert!(matches!(
            single_statement("var t = 1, \"one\";"),
            StmtKind::Var {
                ty: None,
                init: Some(Spanned {
                    node: ExprKind::Tuple(_),
                    ..
                }),
                ..
            }
        ));
        assert!(matches!(
            single_statement("val y : int = 3;"),
            StmtKind::Val { ty: Some(_), .. }
        ));
        assert_eq!(
            single_statement("x += 1;"),
            StmtKind::Assign {
                target: name("x"),
                op: AssignOp::Add,
                value: int(1)
            }
        );
        assert_eq!(
            single_statement("--x;"),
            StmtKind::Incr {
                target: name("x"),
                up: false
            }
        );
        assert_eq!(
            single_statement("&x.i <- v;"),
            StmtKind::Store {
                target: dot(name("x"), name("i")),
                value: name("v")
            }
        );
        assert_eq!(single_statement("endl;"), StmtKind::Expr(name("endl")));
        assert_eq!(single_statement("return;"), StmtKind::Return(None));
    }

    #[test]
    fn definitions() {
        let StmtKind::Fun(definition) =
            single_statement("fun f [T, N:COMPACTLINEAR] (x:int, y:int) (z:T) : T => z;")
        else {
            panic!("not a function");
        };
        assert_eq!(definition.type_params.len(), 2);
        assert_eq!(definition.type_params[0].kind, KindExpr::Type);
        assert_eq!(definition.type_params[1].kind, KindExpr::CompactLinear);
        assert_eq!(definition.params.len(), 2);
        assert_eq!(definition.params[0].params.len(), 2);
        let statements = program(
            "fun g (x:int) : int = { return x; } proc p (s:string) { println s; } gen h () : int = { return 1; }",
        );
        assert_eq!(statements.len(), 3);
        assert!(matches!(
            &statements[1].node,
            StmtKind::Fun(FunDef {
                kind: FunKind::Proc,
                ..
            })
        ));
        assert!(matches!(
            &statements[2].node,
            StmtKind::Fun(FunDef { kind: FunKind::Gen, params, .. }) if params[0].params.is_empty()
        ));
        assert_eq!(
            single_statement("typedef five = 2 `+ 3;"),
            StmtKind::Typedef {
                name: at("five".to_string()),
                params: Vec::new(),
                ty: at(TypeExprKind::UnitsumArith(
                    UnitsumOp::Add,
                    Box::new(unitsum(2)),
                    Box::new(unitsum(3))
                ))
            }
        );
        // Opaque types: `type` is recognised by position (it is not reserved).
        assert_eq!(
            single_statement("type Key = new string with Eq;"),
            StmtKind::NewType {
                name: at("Key".to_string()),
                repr: Some(at(TypeExprKind::Name("string".to_string()))),
                grants: vec![at("Eq".to_string())],
            }
        );
        assert_eq!(
            single_statement("type Key;"),
            StmtKind::NewType {
                name: at("Key".to_string()),
                repr: None,
                grants: vec![],
            }
        );
        assert!(matches!(
            single_statement("type Pair = new int * int;"),
            StmtKind::NewType { repr: Some(_), ref grants, .. } if grants.is_empty()
        ));
        assert!(matches!(
            single_statement("struct P { x:int; y:string; }"),
            StmtKind::Struct { ref fields, .. } if fields.len() == 2
        ));
        let StmtKind::Variant { ctors, .. } =
            single_statement("variant shape = | Circle of double | Rect of double * double | Dot;")
        else {
            panic!("not a variant");
        };
        assert_eq!(ctors.len(), 3);
        assert!(ctors[2].1.is_none());
        // Parametric declarations and type applications.
        let StmtKind::Typedef { params, ty, .. } =
            single_statement("typedef grid[N:COMPACTLINEAR] = double ^ N;")
        else {
            panic!("not a typedef");
        };
        assert_eq!(params.len(), 1);
        assert_eq!(params[0].kind, KindExpr::CompactLinear);
        assert!(matches!(ty.node, TypeExprKind::Array(..)));
        assert!(matches!(
            single_statement("struct Box[T] { v:T; }"),
            StmtKind::Struct { ref params, ref fields, .. } if params.len() == 1 && fields.len() == 1
        ));
        let StmtKind::Variant { params, ctors, .. } =
            single_statement("variant tree[T] = | Leaf of T | Node of tree[T] * tree[T];")
        else {
            panic!("not a variant");
        };
        assert_eq!((params.len(), ctors.len()), (1, 2));
        let Some(TypeExprKind::Product(operands)) = ctors[1].1.as_ref().map(|t| &t.node) else {
            panic!("not a product");
        };
        assert_eq!(
            operands[0],
            at(TypeExprKind::Apply(
                at("tree".to_string()),
                vec![at(TypeExprKind::Name("T".to_string()))]
            ))
        );
        assert!(matches!(
            single_statement("variant v = A of int | B;"),
            StmtKind::Variant { ref ctors, .. } if ctors.len() == 2
        ));
    }

    #[test]
    fn if_statements() {
        let StmtKind::If {
            branches,
            otherwise,
        } = single_statement("if a do x; elif b do y; z; else w; done")
        else {
            panic!("not an if");
        };
        assert_eq!(branches.len(), 2);
        assert_eq!(branches[1].1.len(), 2);
        assert_eq!(otherwise.map(|body| body.len()), Some(1));
        assert!(matches!(
            single_statement("if a perform x = 1;"),
            StmtKind::If { ref branches, otherwise: None } if branches[0].1.len() == 1
        ));
        assert!(matches!(
            single_statement("if a break outer;"),
            StmtKind::If { ref branches, .. } if matches!(branches[0].1[0].node, StmtKind::Break(_))
        ));
    }

    #[test]
    fn if_then_statement_is_e0101_at_the_if() {
        let src = "var x = 1;\nif x > 0 then println \"pos\"; endif\nprintln x;";
        let (statements, errors) = parse_program(src);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].code, "E0101");
        assert_eq!(errors[0].span, Span::new(11, 13));
        assert!(errors[0].help.as_deref().unwrap().contains("do"));
        assert_eq!(statements.len(), 3);
        assert!(matches!(statements[1].node, StmtKind::IfThenStatement(_)));
    }

    #[test]
    fn loops() {
        let StmtKind::For {
            label,
            var,
            kind,
            body,
        } = single_statement("lp: for i in ..[3 \\* 2] do println i; done")
        else {
            panic!("not a for");
        };
        assert_eq!(label.map(|label| label.node), Some("lp".to_string()));
        assert_eq!(var.node, "i");
        assert!(matches!(kind, ForKind::Type(_)));
        assert_eq!(body.len(), 1);
        let StmtKind::For { kind, body, .. } =
            single_statement("for i in ..[2] for j in ..[3] perform print$ i;")
        else {
            panic!("not a for");
        };
        assert!(matches!(kind, ForKind::Type(_)));
        assert!(matches!(body[0].node, StmtKind::For { ref body, .. } if body.len() == 1));
        let kinds: Vec<ForKind> = program(
            "for v in arr do done for i in 0 ..< n do done for i in 1 .. 3 do done \
             for i in 1 upto 3 do done for var i in 3 downto 1 do done",
        )
        .into_iter()
        .map(|statement| match statement.node {
            StmtKind::For { kind, .. } => kind,
            other => panic!("not a for: {other:?}"),
        })
        .collect();
        assert_eq!(kinds[0], ForKind::Array(name("arr")));
        assert_eq!(kinds[1], ForKind::RangeExclusive(int(0), name("n")));
        assert_eq!(kinds[2], ForKind::RangeInclusive(int(1), int(3)));
        assert_eq!(
            kinds[3],
            ForKind::Upto {
                from: int(1),
                to: int(3),
                declare: false
            }
        );
        assert_eq!(
            kinds[4],
            ForKind::Downto {
                from: int(3),
                to: int(1),
                declare: true
            }
        );
        assert!(matches!(
            single_statement("w: while i < 3 do ++i; if i == 2 continue w; done"),
            StmtKind::While { label: Some(_), ref body, .. } if body.len() == 2
        ));
        assert!(matches!(
            single_statement("until done_ do x; done"),
            StmtKind::Until { .. }
        ));
        assert!(matches!(
            single_statement("r: repeat do break r; done"),
            StmtKind::Repeat { .. }
        ));
        assert!(
            matches!(single_statement("begin var x = 1; end"), StmtKind::Block(ref body) if body.len() == 1)
        );
    }

    #[test]
    fn unlabelled_break_is_a_syntax_error() {
        let (_, errors) = parse_program("while true do break; done");
        assert!(!errors.is_empty());
    }

    #[test]
    fn match_statements() {
        let StmtKind::Match(_, arms) = single_statement(
            "match x with | 1 => println \"one\"; | _ => println \"other\"; endmatch;",
        ) else {
            panic!("not a match statement");
        };
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[0].body.len(), 1);
    }

    #[test]
    fn keyword_as_name_errors_at_the_keyword() {
        let src = "var sum_ = 0;\nvar total = 0;\nprintln total;";
        let (_, errors) = parse_program(src);
        assert!(!errors.is_empty());
        assert_eq!(line_of(src, errors[0].span.start), 2);
        assert!(errors[0].message.contains("total"), "{}", errors[0].message);
    }

    #[test]
    fn several_errors_are_all_reported() {
        let src = "var a = ;\nvar b = 1;\nvar c = );\nprintln b;\nval = 3;";
        let (statements, errors) = parse_program(src);
        let lines: Vec<usize> = errors
            .iter()
            .map(|error| line_of(src, error.span.start))
            .collect();
        assert_eq!(lines, vec![1, 3, 5], "{errors:?}");
        assert_eq!(errors[0].message, "expected expression, found `;`");
        assert!(statements
            .iter()
            .any(|statement| matches!(statement.node, StmtKind::Var { .. })));
    }

    #[test]
    fn expected_semicolon_message() {
        let (_, errors) = parse_program("println (1, 2));");
        assert_eq!(errors[0].code, "E0100");
        assert!(errors[0].message.contains("`;`"), "{}", errors[0].message);
        assert!(
            errors[0].message.ends_with("found `)`"),
            "{}",
            errors[0].message
        );
        assert!(!errors[0].at_end);
    }

    #[test]
    fn lexical_errors_are_reported_by_the_parser_entry_points() {
        let (_, errors) = parse_program("var x = 0x1d;");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].code, "E0602");
        let (_, errors) = parse_program("println$ x.1.0;");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].help.is_some());
    }

    #[test]
    fn repl_chunks() {
        for src in [
            "1 +",
            "var t = (1,",
            "fun f (x:int) : int = {",
            "if true do",
            "match 3 with | 1 => \"one\"",
            "\"\"\"abc",
            "/* open",
        ] {
            assert!(
                matches!(parse_chunk(src), ChunkParse::Incomplete),
                "{src:?}"
            );
        }
        assert!(matches!(parse_chunk("var b = ;"), ChunkParse::Invalid(_)));
        assert!(matches!(parse_chunk("1 2 )"), ChunkParse::Invalid(_)));
        for src in [
            "sq x",
            "(1, \"a\", 2.5)",
            "`1:3 \\, true",
            "match 3 with | _ => 1 endmatch",
        ] {
            assert!(
                matches!(parse_chunk(src), ChunkParse::Complete(Chunk::Expr(_))),
                "{src:?}"
            );
        }
        for (src, count) in [
            ("x = x + 1;", 1),
            ("for i in ..[3] do print$ i; done println \"\";", 2),
            ("  // only a comment", 0),
            ("", 0),
            ("sq x;", 1),
        ] {
            match parse_chunk(src) {
                ChunkParse::Complete(Chunk::Stmts(statements)) => {
                    assert_eq!(statements.len(), count, "{src:?}")
                }
                other => panic!("{src:?}: {other:?}"),
            }
        }
    }
}
