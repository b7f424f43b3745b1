//! Converting chumsky's errors to `SyntaxError`s: the expected alternatives are described,
//! long lists shortened, and a reserved word where a name was expected explained.

use std::cell::Cell;

use chumsky::error::{Error, LabelError, Rich, RichPattern, RichReason};
use chumsky::util::MaybeRef;

use super::{CodedMessage, TokenInput};
use crate::syntax::span::Span;
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

thread_local! {
    /// Whether the errors of this thread's parse are described (`described`) or only placed.
    static DESCRIBED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `parse` with its errors described, for a parse known to fail (`run_parser`).
pub(super) fn described<R>(parse: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DESCRIBED.with(|described| described.set(self.0));
        }
    }
    let _restore = Restore(DESCRIBED.with(|described| described.replace(true)));
    parse()
}

fn describing() -> bool {
    DESCRIBED.with(Cell::get)
}

/// The parser's error: where a parse failed, and when its errors are described (`described`),
/// chumsky's `Rich` error saying what was expected and found there.
#[derive(Clone, Debug)]
pub enum ParseError<'t> {
    Placed(Span),
    Described(Box<Rich<'t, Token, Span, CodedMessage>>),
}

impl<'t> ParseError<'t> {
    /// An error with its own code and message, made only when errors are described.
    pub(super) fn custom(span: Span, message: impl FnOnce() -> CodedMessage) -> Self {
        if describing() {
            ParseError::Described(Box::new(Rich::custom(span, message())))
        } else {
            ParseError::Placed(span)
        }
    }
}

impl<'t> Error<'t, TokenInput<'t>> for ParseError<'t> {
    fn merge(self, other: Self) -> Self {
        match (self, other) {
            (ParseError::Described(mine), ParseError::Described(theirs)) => {
                ParseError::Described(Box::new(<Rich<'t, Token, Span, CodedMessage> as Error<
                    't,
                    TokenInput<'t>,
                >>::merge(*mine, *theirs)))
            }
            (mine, _) => mine,
        }
    }
}

impl<'t, L> LabelError<'t, TokenInput<'t>, L> for ParseError<'t>
where
    L: TryInto<RichPattern<'t, Token>>,
{
    fn expected_found<E: IntoIterator<Item = L>>(
        expected: E,
        found: Option<MaybeRef<'t, Token>>,
        span: Span,
    ) -> Self {
        if describing() {
            ParseError::Described(
                Box::new(<Rich<'t, Token, Span, CodedMessage> as LabelError<
                    't,
                    TokenInput<'t>,
                    L,
                >>::expected_found(expected, found, span)),
            )
        } else {
            ParseError::Placed(span)
        }
    }

    fn merge_expected_found<E: IntoIterator<Item = L>>(
        self,
        expected: E,
        found: Option<MaybeRef<'t, Token>>,
        span: Span,
    ) -> Self {
        match self {
            ParseError::Described(rich) => {
                ParseError::Described(Box::new(
                    LabelError::<'t, TokenInput<'t>, L>::merge_expected_found(
                        *rich, expected, found, span,
                    ),
                ))
            }
            placed => placed,
        }
    }

    fn replace_expected_found<E: IntoIterator<Item = L>>(
        self,
        expected: E,
        found: Option<MaybeRef<'t, Token>>,
        span: Span,
    ) -> Self {
        match self {
            ParseError::Described(rich) => {
                ParseError::Described(Box::new(
                    LabelError::<'t, TokenInput<'t>, L>::replace_expected_found(
                        *rich, expected, found, span,
                    ),
                ))
            }
            ParseError::Placed(_) => ParseError::Placed(span),
        }
    }

    fn label_with(&mut self, label: L) {
        if let ParseError::Described(rich) = self {
            LabelError::<'t, TokenInput<'t>, L>::label_with(&mut **rich, label);
        }
    }

    fn in_context(&mut self, label: L, span: Span) {
        if let ParseError::Described(rich) = self {
            LabelError::<'t, TokenInput<'t>, L>::in_context(&mut **rich, label, span);
        }
    }
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
    let error = match error {
        ParseError::Described(rich) => rich,
        ParseError::Placed(span) => {
            return SyntaxError {
                span: *span,
                code: "E0100",
                message: "syntax error".to_string(),
                label: "syntax error".to_string(),
                help: None,
                at_end: false,
            }
        }
    };
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
            // A word Felix reserves but the language does not use can only have been meant
            // as a name, wherever it stands (`total += 1;`, `println total;`).
            if let Some(Token::Keyword(keyword)) = found.as_deref() {
                if matches!(keyword, Keyword::Reserved(_))
                    || descriptions
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
