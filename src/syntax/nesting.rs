//! The nesting-depth limit (E0102, `--max-nesting`), checked on the tokens before parsing.
//!
//! The parser, the checker and the evaluator recurse once per level of nesting, so a program
//! nested a million levels deep would need gigabytes of stack (and the parser's error recovery
//! is slow on deeply unclosed input). Brackets and the keyword blocks that enclose code are
//! counted with a stack of openers; a closer pops its own opener (a mismatched closer is left
//! to the parser to report). The first opener past the limit is reported, with the span of the
//! innermost opener.

use crate::syntax::span::Span;
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

/// The stable code of the nesting-depth error.
pub const NESTING_TOO_DEEP: &str = "E0102";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opener {
    Paren,
    Bracket,
    Brace,
    Begin,
    Match,
    Do,
    Then,
}

/// The E0102 error for the first opener nested deeper than `limit` (`--max-nesting`), if any.
pub fn check_nesting(tokens: &[(Token, Span)], limit: usize) -> Option<SyntaxError> {
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
            // An open-ended `if … then … else …` or `match` may end here (it extends to the
            // enclosing `)` or `;`): whether it did is the parser's to say.
            Token::Semicolon if matches!(open.last(), Some(Opener::Then | Opener::Match)) => {
                return false
            }
            _ => continue,
        };
        if matches!(closes, Opener::Paren | Opener::Bracket | Opener::Brace)
            && matches!(open.last(), Some(Opener::Then | Opener::Match))
        {
            return false;
        }
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

/// A block of the token stream: its header (`for`, `if`, `while`, `match`, `begin`, `do`,
/// `(`, …) and the closer it needs.
#[derive(Clone, Debug)]
struct Block {
    header: Span,
    header_text: &'static str,
    closer: &'static str,
    /// The token that opened the block (the `do` of a `for`, the `then` of an `if`).
    opener: Opener,
    /// `else`, `elif` and `|` tokens at this block's level.
    structural: Vec<Span>,
}

/// A block left open: at the end of input (`found` is `None`) or when a closer of an
/// enclosing block was met (`found` is that closer's span).
#[derive(Clone, Debug)]
struct Unclosed {
    block: Block,
    found: Option<Span>,
}

/// The blocks of a token stream, matched as the parser will need them: the ones closed
/// (header span and closer span) and the ones left open.
struct Blocks {
    closed: Vec<(Span, Span)>,
    unclosed: Vec<Unclosed>,
}

fn closer_of(opener: Opener) -> &'static str {
    match opener {
        Opener::Paren => ")",
        Opener::Bracket => "]",
        Opener::Brace => "}",
        Opener::Begin => "end",
        Opener::Match => "endmatch",
        Opener::Do => "done",
        Opener::Then => "endif",
    }
}

fn block_structure(tokens: &[(Token, Span)]) -> Blocks {
    let mut open: Vec<Block> = Vec::new();
    // `if`, `elif`, `for`, `while` waiting for their `do`/`then`, with the depth they are at.
    let mut headers: Vec<(usize, Span, Keyword)> = Vec::new();
    let mut blocks = Blocks {
        closed: Vec::new(),
        unclosed: Vec::new(),
    };
    for (token, span) in tokens {
        let depth = open.len();
        let opener = match token {
            Token::LParen => Some((Opener::Paren, "(")),
            Token::LBracket => Some((Opener::Bracket, "[")),
            Token::LBrace => Some((Opener::Brace, "{")),
            Token::Keyword(Keyword::Begin) => Some((Opener::Begin, "begin")),
            Token::Keyword(Keyword::Match) => Some((Opener::Match, "match")),
            Token::Keyword(Keyword::Do) => Some((Opener::Do, "do")),
            Token::Keyword(Keyword::Then) => Some((Opener::Then, "then")),
            _ => None,
        };
        if let Some((opener, text)) = opener {
            let mut header = (*span, text);
            if matches!(opener, Opener::Do | Opener::Then) {
                if let Some(&(at, header_span, keyword)) = headers.last() {
                    if at == depth {
                        headers.pop();
                        if keyword == Keyword::Elif {
                            // `elif c do` continues the block its `if` opened.
                            continue;
                        }
                        header = (header_span, keyword.spelling());
                    }
                }
            }
            open.push(Block {
                header: header.0,
                header_text: header.1,
                closer: closer_of(opener),
                opener,
                structural: Vec::new(),
            });
            continue;
        }
        match token {
            Token::Keyword(
                keyword @ (Keyword::If | Keyword::Elif | Keyword::For | Keyword::While),
            ) => {
                headers.push((depth, *span, *keyword));
                if *keyword == Keyword::Elif {
                    if let Some(block) = open.last_mut() {
                        block.structural.push(*span);
                    }
                }
                continue;
            }
            Token::Keyword(Keyword::Else | Keyword::With) | Token::Bar => {
                if let Some(block) = open.last_mut() {
                    block.structural.push(*span);
                }
                continue;
            }
            Token::Semicolon => {
                headers.retain(|&(at, _, _)| at < depth);
                // A statement never ends inside `(…)` or `[…]`: those are left unclosed.
                while open
                    .last()
                    .is_some_and(|b| matches!(b.opener, Opener::Paren | Opener::Bracket))
                {
                    let block = open.pop().expect("a bracket");
                    blocks.unclosed.push(Unclosed {
                        block,
                        found: Some(*span),
                    });
                }
                continue;
            }
            _ => {}
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
        headers.retain(|&(at, _, _)| at < depth);
        if let Some(position) = open.iter().rposition(|block| block.opener == closes) {
            for block in open.drain(position + 1..) {
                blocks.unclosed.push(Unclosed {
                    block,
                    found: Some(*span),
                });
            }
            let block = open.pop().expect("the matching block");
            blocks.closed.push((block.header, *span));
        }
    }
    for block in open {
        blocks.unclosed.push(Unclosed { block, found: None });
    }
    blocks
}

/// One error per mistake for unclosed blocks: an error at the end of input, or at a
/// closer that ends an enclosing block, is replaced by "this `for` is never closed: add
/// `done`" pointing at the block's header; errors at the `else`/`elif`/`|` of that block, and
/// errors at a closer whose block already holds an earlier error (the parser's recovery
/// skipped its header), are follow-ons and are dropped.
pub fn explain_unclosed(errors: Vec<SyntaxError>, tokens: &[(Token, Span)]) -> Vec<SyntaxError> {
    if errors.is_empty() || errors.iter().any(|e| e.code == NESTING_TOO_DEEP) {
        return errors;
    }
    let blocks = block_structure(tokens);
    let mut explained: Vec<&Unclosed> = Vec::new();
    let mut out: Vec<SyntaxError> = Vec::new();
    for error in &errors {
        if error.code != "E0100" {
            out.push(error.clone());
            continue;
        }
        // The innermost block this error's position leaves open.
        let unclosed = blocks.unclosed.iter().rev().find(|u| match u.found {
            None => error.at_end,
            Some(closer) => closer.start == error.span.start && !error.at_end,
        });
        match unclosed {
            Some(u) => {
                if !explained.iter().any(|e| e.block.header == u.block.header) {
                    explained.push(u);
                    out.push(never_closed(u, error));
                }
            }
            None => out.push(error.clone()),
        }
    }
    let structural: Vec<Span> = explained
        .iter()
        .flat_map(|u| u.block.structural.iter().copied())
        .collect();
    out.retain(|e| !structural.iter().any(|s| s.start == e.span.start) || e.code != "E0100");
    // Inside a block left open at the end of input, the parser's complaints about closers
    // are the same mistake (the scan and the parser paired them differently).
    let open_at_end: Vec<Span> = explained
        .iter()
        .filter(|u| u.found.is_none())
        .map(|u| u.block.header)
        .collect();
    out.retain(|e| {
        e.code != "E0100"
            || e.at_end
            || !open_at_end.iter().any(|h| e.span.start > h.start)
            || !tokens
                .iter()
                .any(|(t, s)| s.start == e.span.start && is_closer(t))
    });
    // A closer whose block holds an earlier error.
    let mut kept: Vec<SyntaxError> = Vec::new();
    for error in out {
        let follow_on = error.code == "E0100"
            && blocks.closed.iter().any(|&(header, closer)| {
                closer.start == error.span.start
                    && kept
                        .iter()
                        .any(|k| k.span.start >= header.start && k.span.start < closer.start)
            });
        if !follow_on {
            kept.push(error);
        }
    }
    kept
}

fn is_closer(token: &Token) -> bool {
    matches!(
        token,
        Token::RParen
            | Token::RBracket
            | Token::RBrace
            | Token::Keyword(Keyword::End | Keyword::Endmatch | Keyword::Done | Keyword::Endif)
    )
}

fn never_closed(u: &Unclosed, error: &SyntaxError) -> SyntaxError {
    let block = &u.block;
    let what = match block.header_text {
        "(" | "[" | "{" => format!("`{}`", block.header_text),
        text => format!("`{text}`"),
    };
    let (label, help) = match u.found {
        None => (
            format!("this {what} is never closed"),
            format!(
                "add `{}` where the {what} block should end (the input ends before it)",
                block.closer
            ),
        ),
        Some(_) if matches!(block.opener, Opener::Paren | Opener::Bracket) => (
            format!("this {what} is never closed"),
            format!(
                "add `{}` before the `;` that ends the statement",
                block.closer
            ),
        ),
        Some(_) => (
            format!("this {what} is not closed before an enclosing block ends"),
            format!(
                "add `{}` where the {what} block should end, before the closer of the \
                 enclosing block",
                block.closer
            ),
        ),
    };
    SyntaxError {
        span: block.header,
        code: "E0100",
        message: format!("this {what} is never closed: add `{}`", block.closer),
        label,
        help: Some(help),
        at_end: error.at_end,
    }
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

    const LIMIT: usize = crate::limits::DEFAULT_MAX_NESTING as usize;

    fn depth_error(src: &str) -> Option<SyntaxError> {
        check_nesting(&lex(src).0, LIMIT)
    }

    #[test]
    fn nesting_at_the_limit_is_accepted_and_one_more_is_e0102() {
        let limit = LIMIT;
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
        let limit = LIMIT;
        let many = "if a do x; elif b do y; else z; done\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
        let many = "val v = if a then 1 elif b then 2 else 3 endif;\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
        let many = "begin (1); [2]; {3}; match x with | _ => 1 endmatch; end\n".repeat(limit * 2);
        assert!(depth_error(&many).is_none());
    }

    #[test]
    fn unclosed_blocks_of_any_kind_count() {
        let limit = LIMIT;
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
