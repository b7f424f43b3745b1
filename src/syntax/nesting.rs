//! The nesting-depth limit (E0102, `--max-nesting`), checked on the tokens before parsing.
//!
//! The parser, the checker and the evaluator recurse once per level of nesting, so a program
//! nested a million levels deep would need gigabytes of stack (and the parser's error recovery
//! is slow on deeply unclosed input). Brackets and the keyword blocks that enclose code are
//! counted with a stack of openers; a closer pops its own opener (a mismatched closer is left
//! to the parser to report). The first opener past the limit is reported, with the span of the
//! innermost opener.

use crate::limits;
use crate::syntax::span::Span;
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

/// The stable code of the nesting-depth error.
pub const NESTING_TOO_DEEP: &str = "E0102";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opener {
    Paren,
    Bracket,
    Brace,
    Begin,
    Match,
    Do,
    Then,
}

/// The E0102 error for the first opener nested deeper than `--max-nesting`, if any.
pub fn check_nesting(tokens: &[(Token, Span)]) -> Option<SyntaxError> {
    let limit = limits::max_nesting();
    let mut open: Vec<Opener> = Vec::new();
    for (token, span) in tokens {
        let opener = match token {
            Token::LParen => Some(Opener::Paren),
            Token::LBracket => Some(Opener::Bracket),
            Token::LBrace => Some(Opener::Brace),
            Token::Keyword(Keyword::Begin) => Some(Opener::Begin),
            Token::Keyword(Keyword::Match) => Some(Opener::Match),
            Token::Keyword(Keyword::Do) => Some(Opener::Do),
            Token::Keyword(Keyword::Then) => Some(Opener::Then),
            _ => None,
        };
        if let Some(opener) = opener {
            // `elif c do` and `elif c then` continue the block their `if` opened.
            if matches!(opener, Opener::Do | Opener::Then) && open.last() == Some(&opener) {
                if let Some(previous) = previous_keyword(tokens, span) {
                    if previous == Keyword::Elif {
                        continue;
                    }
                }
            }
            open.push(opener);
            if open.len() > limit {
                return Some(too_deep(*span, limit));
            }
            continue;
        }
        let closes = match token {
            Token::RParen => Opener::Paren,
            Token::RBracket => Opener::Bracket,
            Token::RBrace => Opener::Brace,
            Token::Keyword(Keyword::End) => Opener::Begin,
            Token::Keyword(Keyword::Endmatch) => Opener::Match,
            Token::Keyword(Keyword::Done) => Opener::Do,
            Token::Keyword(Keyword::Endif) => Opener::Then,
            _ => continue,
        };
        if let Some(depth) = open.iter().rposition(|&opener| opener == closes) {
            // Anything opened after the matching opener was left unclosed: the parser
            // reports that; the depth counts from the matching opener.
            open.truncate(depth);
        }
    }
    None
}

/// Is the input a well-nested prefix that leaves brackets or blocks open (so a REPL chunk is
/// certainly incomplete, without parsing it)? `false` when everything is closed or a closer
/// does not match its opener (the parser reports that).
pub fn leaves_blocks_open(tokens: &[(Token, Span)]) -> bool {
    let mut open: Vec<Opener> = Vec::new();
    for (token, span) in tokens {
        let opener = match token {
            Token::LParen => Some(Opener::Paren),
            Token::LBracket => Some(Opener::Bracket),
            Token::LBrace => Some(Opener::Brace),
            Token::Keyword(Keyword::Begin) => Some(Opener::Begin),
            Token::Keyword(Keyword::Match) => Some(Opener::Match),
            Token::Keyword(Keyword::Do) => Some(Opener::Do),
            Token::Keyword(Keyword::Then) => Some(Opener::Then),
            _ => None,
        };
        if let Some(opener) = opener {
            if matches!(opener, Opener::Do | Opener::Then)
                && open.last() == Some(&opener)
                && previous_keyword(tokens, span) == Some(Keyword::Elif)
            {
                continue;
            }
            open.push(opener);
            continue;
        }
        let closes = match token {
            Token::RParen => Opener::Paren,
            Token::RBracket => Opener::Bracket,
            Token::RBrace => Opener::Brace,
            Token::Keyword(Keyword::End) => Opener::Begin,
            Token::Keyword(Keyword::Endmatch) => Opener::Match,
            Token::Keyword(Keyword::Done) => Opener::Do,
            Token::Keyword(Keyword::Endif) => Opener::Then,
            _ => continue,
        };
        if open.pop() != Some(closes) {
            return false;
        }
    }
    !open.is_empty()
}

/// The keyword that most recently opened an `elif` clause before `span`, looking back over the
/// condition (which contains no `do`/`then` at this level).
fn previous_keyword(tokens: &[(Token, Span)], span: &Span) -> Option<Keyword> {
    let position = tokens.partition_point(|(_, s)| s.start < span.start);
    tokens[..position]
        .iter()
        .rev()
        .find_map(|(token, _)| match token {
            Token::Keyword(
                keyword @ (Keyword::Elif
                | Keyword::If
                | Keyword::Do
                | Keyword::Then
                | Keyword::Done
                | Keyword::Endif
                | Keyword::While
                | Keyword::For
                | Keyword::Else),
            ) => Some(*keyword),
            _ => None,
        })
}

fn too_deep(span: Span, limit: usize) -> SyntaxError {
    SyntaxError {
        span,
        code: NESTING_TOO_DEEP,
        message: format!("the program is nested more than {limit} levels deep"),
        label: "this opens one level too many".to_string(),
        help: Some(
            "split the expression with `val` definitions or functions, or raise the limit \
             with `--max-nesting`"
                .to_string(),
        ),
        at_end: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lexer::lex;

    fn depth_error(src: &str) -> Option<SyntaxError> {
        check_nesting(&lex(src).0)
    }

    #[test]
    fn nesting_at_the_limit_is_accepted_and_one_more_is_e0102() {
        let limit = limits::max_nesting();
        let at_limit = format!("{}1{}", "(".repeat(limit), ")".repeat(limit));
        assert!(depth_error(&at_limit).is_none());
        let past = format!("{}1{}", "(".repeat(limit + 1), ")".repeat(limit + 1));
        let error = depth_error(&past).expect("too deep");
        assert_eq!(error.code, NESTING_TOO_DEEP);
        assert_eq!(
            error.span,
            Span::new(limit, limit + 1),
            "the innermost opener"
        );
    }

    #[test]
    fn sequences_and_elif_chains_do_not_accumulate_depth() {
        let limit = limits::max_nesting();
        let many = "if a do x; elif b do y; else z; done\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
        let many = "val v = if a then 1 elif b then 2 else 3 endif;\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
        let many = "begin (1); [2]; {3}; match x with | _ => 1 endmatch; end\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
    }

    #[test]
    fn unclosed_blocks_of_any_kind_count() {
        let limit = limits::max_nesting();
        for opener in [
            "(",
            "[",
            "{",
            "begin ",
            "match 1 with | _ => ",
            "for i in 0..<2 do ",
        ] {
            let src = opener.repeat(limit + 1);
            assert!(depth_error(&src).is_some(), "{opener}");
        }
    }
}
