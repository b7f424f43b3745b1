//! Felix's statement forms outside the structured core: a label `name:>` and `goto name;`.
//! `goto` is a contextual word: it starts a statement only when a name and `;` follow it.

use chumsky::prelude::*;

use super::{name, token, BoxedParser};
use crate::syntax::ast::{Stmt, StmtKind};
use crate::syntax::span::Spanned;
use crate::syntax::token::Token;

/// `name:>` (a label) or `goto name;`.
pub(super) fn goto_forms<'t>() -> BoxedParser<'t, Stmt> {
    let label = name()
        .then_ignore(token(Token::Colon))
        .then_ignore(token(Token::Greater))
        .map(StmtKind::Label);
    let goto = just(Token::Ident("goto".to_string()))
        .ignore_then(name())
        .then_ignore(token(Token::Semicolon))
        .map(StmtKind::Goto);
    choice((label, goto))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed()
}
