//! Converting chumsky's errors to `SyntaxError`s: the expected alternatives are described,
//! long lists shortened, and a reserved word where a name was expected explained.

use chumsky::error::{RichPattern, RichReason};

use super::ParseError;
use crate::syntax::span::Span;
use crate::syntax::token::Token;
use crate::syntax::SyntaxError;

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
