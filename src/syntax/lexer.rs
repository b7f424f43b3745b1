//! The lexer: source text to tokens with byte spans.
//!
//! Architecture invariant: lexing never fails. A bad character, an unterminated literal or an
//! unsupported suffix becomes a `SyntaxError` and lexing continues with the next character.

use crate::syntax::ast::{FloatLit, IntLit, UnitsumOp};
use crate::syntax::span::Span;
use crate::syntax::token::{Keyword, Token};
use crate::syntax::SyntaxError;

/// Integer suffixes of the subset (with `tiny` and `short`), lower-cased.
const VALID_INT_SUFFIXES: &[&str] = &[
    "i", "i8", "i16", "i32", "i64", "u", "ui", "iu", "u8", "u16", "u32", "u64", "l", "ul", "lu",
    "v", "ll", "uv", "ull", "llu", "uz", "zu", "t", "ut", "tu", "s", "us", "su",
];

/// Felix suffixes outside the subset (ssize, intmax, intptr, ptrdiff and their unsigned
/// forms): E0602.
const UNSUPPORTED_INT_SUFFIXES: &[&str] = &["z", "j", "p", "d", "uj", "up", "ud", "ju", "pu", "du"];

/// Splits `src` into tokens. Returns every token it could form and every lexical error.
pub fn lex(src: &str) -> (Vec<(Token, Span)>, Vec<SyntaxError>) {
    let mut lexer = Lexer::new(src);
    lexer.run();
    mark_let_in(&mut lexer.tokens);
    (lexer.tokens, lexer.errors)
}

/// `in` is also the membership operator, so the `in` that ends the value of `let p = e in
/// body` (or of `let fun … => e in body`) is told apart here: the first `in` after the
/// `let`'s `=` (or `=>`) at the same depth of
/// brackets becomes `Token::LetIn`. A `;` or a closing bracket at that depth ends the search
/// (the `let` was a name, or the `in` is missing, which the parser reports).
fn mark_let_in(tokens: &mut [(Token, Span)]) {
    // Each pending `let`: its depth, and whether its `=` was seen.
    let mut pending: Vec<(u32, bool)> = Vec::new();
    let mut depth = 0u32;
    for k in 0..tokens.len() {
        match &tokens[k].0 {
            Token::Ident(word) if word == "let" => {
                let starts_pattern = matches!(
                    tokens.get(k + 1).map(|t| &t.0),
                    Some(
                        Token::Ident(_)
                            | Token::LParen
                            | Token::Int(_)
                            | Token::Str(_)
                            | Token::Hash
                            | Token::Backtick
                            | Token::Question
                            | Token::Dollar
                            | Token::LBracket
                            | Token::Keyword(
                                Keyword::Case
                                    | Keyword::True
                                    | Keyword::False
                                    | Keyword::Val
                                    | Keyword::Fun
                            )
                    )
                );
                if starts_pattern {
                    pending.push((depth, false));
                }
            }
            // `let fun f (x: int) => e in body` has no `=`: its `=>` takes that place.
            Token::Assign | Token::FatArrow => {
                if let Some(last) = pending.last_mut() {
                    if last.0 == depth {
                        last.1 = true;
                    }
                }
            }
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => {
                depth = depth.saturating_sub(1);
                while pending.last().is_some_and(|p| p.0 > depth) {
                    pending.pop();
                }
            }
            Token::Semicolon => {
                while pending.last().is_some_and(|p| p.0 >= depth) {
                    pending.pop();
                }
            }
            Token::Keyword(Keyword::In)
                if pending.last().is_some_and(|&(d, eq)| d == depth && eq) =>
            {
                pending.pop();
                tokens[k].0 = Token::LetIn;
            }
            _ => {}
        }
    }
}

struct Lexer {
    chars: Vec<char>,
    /// `offsets[i]` is the byte offset of `chars[i]`; one extra entry holds the source length.
    offsets: Vec<usize>,
    position: usize,
    tokens: Vec<(Token, Span)>,
    errors: Vec<SyntaxError>,
}

fn syntax_error(span: Span, message: impl Into<String>, at_end: bool) -> SyntaxError {
    let message = message.into();
    SyntaxError {
        span,
        code: "E0100",
        label: message.clone(),
        message,
        help: None,
        at_end,
    }
}

impl Lexer {
    fn new(src: &str) -> Lexer {
        let mut chars = Vec::new();
        let mut offsets = Vec::new();
        for (offset, character) in src.char_indices() {
            chars.push(character);
            offsets.push(offset);
        }
        offsets.push(src.len());
        Lexer {
            chars,
            offsets,
            position: 0,
            tokens: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn peek_at(&self, distance: usize) -> Option<char> {
        self.chars.get(self.position + distance).copied()
    }

    fn span_from(&self, start: usize) -> Span {
        Span::new(self.offsets[start], self.offsets[self.position])
    }

    fn push(&mut self, token: Token, start: usize) {
        let span = self.span_from(start);
        self.tokens.push((token, span));
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(index, expected)| self.peek_at(index) == Some(expected))
    }

    fn run(&mut self) {
        while let Some(character) = self.peek_at(0) {
            let start = self.position;
            if character.is_whitespace() {
                self.position += 1;
            } else if self.starts_with("//") {
                while self.peek_at(0).is_some_and(|c| c != '\n') {
                    self.position += 1;
                }
            } else if self.starts_with("/*") {
                self.block_comment();
            } else if character == 'r' && self.peek_at(1) == Some('"') {
                self.position += 1;
                self.string(start, true);
            } else if matches!(character, 'f' | 'F') && self.peek_at(1) == Some('"') {
                // A format string: `f"…"`, `F"…"`, `f"""…"""`, never `f'…'`.
                self.position += 1;
                self.string(start, false);
                if let Some((token, _)) = self.tokens.last_mut() {
                    if let Token::Str(bytes) = token {
                        *token = Token::FormatStr(std::mem::take(bytes));
                    }
                }
            } else if character.is_alphabetic() || character == '_' {
                self.identifier(start);
            } else if character.is_ascii_digit() {
                self.number(start);
            } else if character == '"' || character == '\'' {
                self.string(start, false);
            } else if character == '\\' {
                self.backslash(start);
            } else if character == '`' {
                self.position += 1;
                let operator = match self.peek_at(0) {
                    Some('+') => Some(UnitsumOp::Add),
                    Some('-') => Some(UnitsumOp::Sub),
                    Some('*') => Some(UnitsumOp::Mul),
                    Some('/') => Some(UnitsumOp::Div),
                    Some('%') => Some(UnitsumOp::Mod),
                    _ => None,
                };
                match operator {
                    Some(operator) => {
                        self.position += 1;
                        self.push(Token::UnitsumArith(operator), start);
                    }
                    None => self.push(Token::Backtick, start),
                }
            } else {
                self.operator(start, character);
            }
        }
    }

    /// A nested block comment; the cursor is on `/*`.
    fn block_comment(&mut self) {
        let start = self.position;
        let mut depth = 0usize;
        loop {
            if self.starts_with("/*") {
                depth += 1;
                self.position += 2;
            } else if self.starts_with("*/") {
                depth -= 1;
                self.position += 2;
                if depth == 0 {
                    return;
                }
            } else if self.peek_at(0).is_some() {
                self.position += 1;
            } else {
                let span = Span::new(self.offsets[start], self.offsets[start] + 2);
                self.errors
                    .push(syntax_error(span, "unterminated block comment", true));
                return;
            }
        }
    }

    fn identifier(&mut self, start: usize) {
        while let Some(character) = self.peek_at(0) {
            let continues = character.is_alphanumeric()
                || character == '_'
                || character == '\''
                || (character == '-'
                    && self
                        .peek_at(1)
                        .is_some_and(|next| next.is_alphanumeric() || next == '_'));
            if !continues {
                break;
            }
            self.position += 1;
        }
        let word: String = self.chars[start..self.position].iter().collect();
        let token = match Keyword::from_word(&word) {
            Some(keyword) => Token::Keyword(keyword),
            None => Token::Ident(word),
        };
        self.push(token, start);
    }

    /// `\sum` (a name), `\*`, `\+`, `\^`, `\,`, `\&`, `\|` (operators).
    fn backslash(&mut self, start: usize) {
        self.position += 1;
        let operator = match self.peek_at(0) {
            Some('*') => Some(Token::CompactStar),
            Some('+') => Some(Token::CompactPlus),
            Some('^') => Some(Token::CompactCaret),
            Some(',') => Some(Token::CompactComma),
            Some('&') => Some(Token::BitAnd),
            Some('|') => Some(Token::BitOr),
            _ => None,
        };
        if let Some(operator) = operator {
            self.position += 1;
            self.push(operator, start);
            return;
        }
        if self.peek_at(0).is_some_and(|c| c.is_alphabetic()) {
            while self.peek_at(0).is_some_and(|c| c.is_alphabetic()) {
                self.position += 1;
            }
            let word: String = self.chars[start..self.position].iter().collect();
            let token = match word.as_str() {
                "\\in" => Token::SetIn,
                "\\notin" => Token::SetNotIn,
                _ => Token::Ident(word),
            };
            self.push(token, start);
            return;
        }
        let span = self.span_from(start);
        self.errors.push(syntax_error(
            span,
            "unexpected `\\`: expected `\\*`, `\\+`, `\\^`, `\\,`, `\\&`, `\\|` or a name like `\\sum`",
            false,
        ));
    }

    /// Scans digits of `radix` with `_` and `'` allowed between digits; returns the digits.
    fn digits(&mut self, radix: u32) -> String {
        let mut digits = String::new();
        while let Some(character) = self.peek_at(0) {
            if character.is_digit(radix) {
                digits.push(character);
                self.position += 1;
            } else if (character == '_' || character == '\'')
                && !digits.is_empty()
                && self.peek_at(1).is_some_and(|next| next.is_digit(radix))
            {
                self.position += 1;
            } else {
                break;
            }
        }
        digits
    }

    fn number(&mut self, start: usize) {
        let radix = match (self.peek_at(0), self.peek_at(1)) {
            (Some('0'), Some(prefix)) => match prefix.to_ascii_lowercase() {
                'x' => 16,
                'b' => 2,
                'o' => 8,
                'd' => 10,
                _ => 0,
            },
            _ => 0,
        };
        let has_prefix = radix != 0 && self.peek_at(2).is_some_and(|c| c.is_digit(radix));
        let radix = if has_prefix {
            self.position += 2;
            radix
        } else {
            10
        };
        let mut digits = self.digits(radix);
        let after_dot = matches!(self.tokens.last(), Some((Token::Dot, _)));

        // A float: digits `.` digits, never with a radix prefix.
        if !has_prefix
            && self.peek_at(0) == Some('.')
            && self.peek_at(1).is_some_and(|c| c.is_ascii_digit())
        {
            if after_dot {
                // `x.1.0`: Felix lexes `1.0` as a float. Report it and read `1`, `.`, `0`.
                let float_end = self.position + 2;
                let span = Span::new(
                    self.offsets[start],
                    self.offsets[float_end.min(self.chars.len())],
                );
                let mut error = syntax_error(
                    span,
                    "a floating literal cannot follow `.`: `x.1.0` reads `1.0` as a float",
                    false,
                );
                error.help = Some("write `x.1 .0` (or `(x.1).0`)".to_string());
                self.errors.push(error);
            } else {
                self.float(start, digits);
                return;
            }
        }

        let mut suffix = self.int_suffix();
        if suffix.is_none() && radix == 16 && digits.len() > 1 && digits.ends_with(['d', 'D']) {
            // For a hex literal a trailing `d` is the ptrdiff suffix, not a digit.
            digits.pop();
            suffix = Some("d".to_string());
        }
        let suffix = suffix.unwrap_or_default();
        let span = self.span_from(start);
        if UNSUPPORTED_INT_SUFFIXES.contains(&suffix.as_str()) {
            self.errors.push(SyntaxError {
                span,
                code: "E0602",
                message: format!("unsupported integer literal suffix `{suffix}`"),
                label: "this suffix is outside the subset".to_string(),
                help: Some(
                    "use a suffix of the integer types: `u`, `L`, `uz`, `i8` … `u64`, `t`, `s`, … (for a hex literal ending in `d`, add `i`: `0x1di`)"
                        .to_string(),
                ),
                at_end: false,
            });
        }
        let value = digits.chars().try_fold(0u128, |value, digit| {
            value
                .checked_mul(u128::from(radix))?
                .checked_add(u128::from(digit.to_digit(radix)?))
        });
        self.push(Token::Int(IntLit { value, suffix }), start);
    }

    /// Reads an integer suffix at the cursor if it is a known (valid or unsupported) suffix;
    /// otherwise consumes nothing (`1e10` is `1` then the name `e10`).
    fn int_suffix(&mut self) -> Option<String> {
        let mut length = 0;
        if self.peek_at(0) == Some('_') {
            length = 1;
        }
        if !self
            .peek_at(length)
            .is_some_and(|c| c.is_ascii_alphabetic())
        {
            return None;
        }
        let mut candidate = String::new();
        while let Some(character) = self.peek_at(length) {
            if !character.is_ascii_alphanumeric() {
                break;
            }
            candidate.push(character.to_ascii_lowercase());
            length += 1;
        }
        let known = VALID_INT_SUFFIXES.contains(&candidate.as_str())
            || UNSUPPORTED_INT_SUFFIXES.contains(&candidate.as_str());
        // A suffix must end the literal: `1uz_x` is not a suffix followed by a name.
        let ends_word = !self
            .peek_at(length)
            .is_some_and(|c| c == '_' || c == '\'' || c.is_alphanumeric());
        if known && ends_word {
            self.position += length;
            Some(candidate)
        } else {
            None
        }
    }

    /// The rest of a float after its integer digits; the cursor is on the `.`.
    fn float(&mut self, start: usize, integer_digits: String) {
        self.position += 1;
        let fraction = self.digits(10);
        let mut text = format!("{integer_digits}.{fraction}");
        if matches!(self.peek_at(0), Some('e' | 'E')) {
            let sign_length = usize::from(matches!(self.peek_at(1), Some('+' | '-')));
            if self
                .peek_at(1 + sign_length)
                .is_some_and(|c| c.is_ascii_digit())
            {
                if sign_length == 1 && self.peek_at(1) == Some('-') {
                    text.push_str("e-");
                } else {
                    text.push('e');
                }
                self.position += 1 + sign_length;
                text.push_str(&self.digits(10));
            }
        }
        let single = matches!(self.peek_at(0), Some('f' | 'F'))
            && !self
                .peek_at(1)
                .is_some_and(|c| c == '_' || c.is_alphanumeric());
        if single {
            self.position += 1;
        }
        let value = text.parse::<f64>().unwrap_or(f64::INFINITY);
        self.push(Token::Float(FloatLit { value, single }), start);
    }

    /// A string literal; the cursor is on the opening quote.
    fn string(&mut self, start: usize, raw: bool) {
        let Some(quote) = self.peek_at(0) else {
            return;
        };
        let triple = self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote);
        self.position += if triple { 3 } else { 1 };
        let mut bytes = Vec::new();
        loop {
            let Some(character) = self.peek_at(0) else {
                let span = self.span_from(start);
                self.errors
                    .push(syntax_error(span, "unterminated string literal", true));
                break;
            };
            if character == quote {
                if !triple {
                    self.position += 1;
                    break;
                }
                if self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote) {
                    self.position += 3;
                    break;
                }
            }
            if character == '\n' && !triple {
                let span = self.span_from(start);
                self.errors.push(syntax_error(
                    span,
                    "unterminated string literal (use `\"\"\"…\"\"\"` for a string that spans lines)",
                    false,
                ));
                break;
            }
            if character == '\\' && !raw {
                self.escape(&mut bytes);
                continue;
            }
            let mut buffer = [0u8; 4];
            bytes.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
            self.position += 1;
        }
        self.push(Token::Str(bytes), start);
    }

    /// An escape sequence; the cursor is on the backslash.
    fn escape(&mut self, bytes: &mut Vec<u8>) {
        let simple = match self.peek_at(1) {
            Some('n') => Some(b'\n'),
            Some('t') => Some(b'\t'),
            Some('r') => Some(b'\r'),
            Some('\\') => Some(b'\\'),
            Some('"') => Some(b'"'),
            Some('\'') => Some(b'\''),
            Some('a') => Some(7),
            Some('b') => Some(8),
            Some('f') => Some(12),
            Some('v') => Some(11),
            Some('e') => Some(27),
            _ => None,
        };
        if let Some(byte) = simple {
            bytes.push(byte);
            self.position += 2;
            return;
        }
        if self.peek_at(1) == Some('x') {
            let high = self.peek_at(2).and_then(|c| c.to_digit(16));
            let low = self.peek_at(3).and_then(|c| c.to_digit(16));
            if let (Some(high), Some(low)) = (high, low) {
                bytes.push((high * 16 + low) as u8);
                self.position += 4;
                return;
            }
        }
        // An unknown escape is kept as written.
        bytes.push(b'\\');
        self.position += 1;
    }

    fn operator(&mut self, start: usize, character: char) {
        const OPERATORS: &[(&str, Token)] = &[
            (":>>", Token::Coerce),
            ("::", Token::ColonColon),
            (":=", Token::ColonAssign),
            (":", Token::Colon),
            ("..<", Token::DotDotLess),
            ("..", Token::DotDot),
            (".", Token::Dot),
            ("|>", Token::PipeRight),
            ("|=", Token::BarAssign),
            ("|", Token::Bar),
            ("<<=", Token::ShiftLeftAssign),
            ("<<", Token::ShiftLeft),
            ("<-", Token::LeftArrow),
            ("<=", Token::LessEq),
            ("<", Token::Less),
            ("->", Token::RightArrow),
            ("-=", Token::MinusAssign),
            ("--", Token::MinusMinus),
            ("-", Token::Minus),
            ("=>", Token::FatArrow),
            ("==", Token::EqEq),
            ("=", Token::Assign),
            ("!=", Token::NotEq),
            ("!", Token::Bang),
            ("?", Token::Question),
            (">>=", Token::ShiftRightAssign),
            (">=", Token::GreaterEq),
            (">", Token::Greater),
            ("+=", Token::PlusAssign),
            ("++", Token::PlusPlus),
            ("+", Token::Plus),
            ("*=", Token::StarAssign),
            ("*", Token::Star),
            ("/=", Token::SlashAssign),
            ("/", Token::Slash),
            ("%=", Token::PercentAssign),
            ("%", Token::Percent),
            ("^=", Token::CaretAssign),
            ("^", Token::Caret),
            ("~", Token::Tilde),
            ("$", Token::Dollar),
            ("#", Token::Hash),
            ("&=", Token::AmpAssign),
            ("&", Token::Ampersand),
            ("(", Token::LParen),
            (")", Token::RParen),
            ("[", Token::LBracket),
            ("]", Token::RBracket),
            ("{", Token::LBrace),
            ("}", Token::RBrace),
            (",", Token::Comma),
            (";", Token::Semicolon),
        ];
        for (spelling, token) in OPERATORS {
            if self.starts_with(spelling) {
                self.position += spelling.chars().count();
                self.push(token.clone(), start);
                return;
            }
        }
        self.position += 1;
        let span = self.span_from(start);
        self.errors.push(syntax_error(
            span,
            format!("unexpected character `{character}`"),
            false,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token> {
        let (tokens, errors) = lex(src);
        assert!(
            errors.is_empty(),
            "unexpected errors for {src:?}: {errors:?}"
        );
        tokens.into_iter().map(|(token, _)| token).collect()
    }

    fn ident(name: &str) -> Token {
        Token::Ident(name.to_string())
    }

    fn int(value: u128) -> Token {
        Token::Int(IntLit {
            value: Some(value),
            suffix: String::new(),
        })
    }

    fn int_with_suffix(value: u128, suffix: &str) -> Token {
        Token::Int(IntLit {
            value: Some(value),
            suffix: suffix.to_string(),
        })
    }

    #[test]
    fn nested_block_comments_and_line_comments() {
        assert_eq!(
            tokens("a /* x /* y */ z */ b // c\nd"),
            vec![ident("a"), ident("b"), ident("d")]
        );
    }

    #[test]
    fn unterminated_comment_is_an_error_at_end() {
        let (_, errors) = lex("a /* x /* y */");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].at_end);
    }

    #[test]
    fn identifiers_with_inner_dashes_and_primes() {
        assert_eq!(tokens("x-1"), vec![ident("x-1")]);
        assert_eq!(
            tokens("a-b x'' _y"),
            vec![ident("a-b"), ident("x''"), ident("_y")]
        );
        assert_eq!(tokens("x - 1"), vec![ident("x"), Token::Minus, int(1)]);
        assert_eq!(
            tokens("x->y"),
            vec![ident("x"), Token::RightArrow, ident("y")]
        );
        assert_eq!(tokens("x-"), vec![ident("x"), Token::Minus]);
    }

    #[test]
    fn keywords_are_not_identifiers() {
        assert_eq!(
            tokens("var total"),
            vec![
                Token::Keyword(Keyword::Var),
                Token::Keyword(Keyword::Reserved("total"))
            ]
        );
        assert_eq!(tokens("class"), vec![ident("class")]);
    }

    #[test]
    fn backslash_names_and_operators() {
        assert_eq!(
            tokens("\\sum \\* \\+ \\^ \\,"),
            vec![
                ident("\\sum"),
                Token::CompactStar,
                Token::CompactPlus,
                Token::CompactCaret,
                Token::CompactComma
            ]
        );
    }

    #[test]
    fn backtick_forms() {
        assert_eq!(
            tokens("`1:3 2 `+ 3 `* `- `/ `%"),
            vec![
                Token::Backtick,
                int(1),
                Token::Colon,
                int(3),
                int(2),
                Token::UnitsumArith(UnitsumOp::Add),
                int(3),
                Token::UnitsumArith(UnitsumOp::Mul),
                Token::UnitsumArith(UnitsumOp::Sub),
                Token::UnitsumArith(UnitsumOp::Div),
                Token::UnitsumArith(UnitsumOp::Mod),
            ]
        );
    }

    #[test]
    fn integer_literals() {
        assert_eq!(tokens("010 007"), vec![int(10), int(7)]);
        assert_eq!(
            tokens("0x1F 0b101 0o17 0d99"),
            vec![int(31), int(5), int(15), int(99)]
        );
        assert_eq!(tokens("1_000_000 1'000"), vec![int(1_000_000), int(1000)]);
        assert_eq!(
            tokens("5uz 7L 3_u8 1LLU 0x1di"),
            vec![
                int_with_suffix(5, "uz"),
                int_with_suffix(7, "l"),
                int_with_suffix(3, "u8"),
                int_with_suffix(1, "llu"),
                int_with_suffix(0x1d, "i"),
            ]
        );
        assert_eq!(
            tokens("340282366920938463463374607431768211456"),
            vec![Token::Int(IntLit {
                value: None,
                suffix: String::new()
            })]
        );
    }

    #[test]
    fn library_tokens() {
        // Integer suffixes, format strings, bitwise operators, membership.
        assert_eq!(
            tokens("5t 6ut 7TU 8s 9us 10su"),
            vec![
                int_with_suffix(5, "t"),
                int_with_suffix(6, "ut"),
                int_with_suffix(7, "tu"),
                int_with_suffix(8, "s"),
                int_with_suffix(9, "us"),
                int_with_suffix(10, "su"),
            ]
        );
        assert_eq!(
            tokens("f\"%d\" F\"x\" f \"y\""),
            vec![
                Token::FormatStr(b"%d".to_vec()),
                Token::FormatStr(b"x".to_vec()),
                ident("f"),
                Token::Str(b"y".to_vec()),
            ]
        );
        assert_eq!(
            tokens("a \\& b \\| c \\^ d << e >> f ~g"),
            vec![
                ident("a"),
                Token::BitAnd,
                ident("b"),
                Token::BitOr,
                ident("c"),
                Token::CompactCaret,
                ident("d"),
                Token::ShiftLeft,
                ident("e"),
                Token::Greater,
                Token::Greater,
                ident("f"),
                Token::Tilde,
                ident("g"),
            ]
        );
        assert_eq!(
            tokens("&= |= ^= <<= >>= \\in \\notin \\inx"),
            vec![
                Token::AmpAssign,
                Token::BarAssign,
                Token::CaretAssign,
                Token::ShiftLeftAssign,
                Token::ShiftRightAssign,
                Token::SetIn,
                Token::SetNotIn,
                ident("\\inx"),
            ]
        );
        assert_eq!(tokens("assert"), vec![Token::Keyword(Keyword::Assert)]);
    }

    #[test]
    fn unsupported_suffixes_are_e0602() {
        for src in ["0x1d", "5z", "5uj", "7d"] {
            let (_, errors) = lex(src);
            assert_eq!(errors.len(), 1, "{src}");
            assert_eq!(errors[0].code, "E0602", "{src}");
        }
        let (tokens, _) = lex("0x1d");
        assert_eq!(tokens[0].0, int_with_suffix(1, "d"));
    }

    #[test]
    fn exponent_without_point_is_a_name() {
        assert_eq!(tokens("1e10"), vec![int(1), ident("e10")]);
    }

    #[test]
    fn floats() {
        assert_eq!(
            tokens("1.5 2.5E3 1.5e-7 1.25f"),
            vec![
                Token::Float(FloatLit {
                    value: 1.5,
                    single: false
                }),
                Token::Float(FloatLit {
                    value: 2500.0,
                    single: false
                }),
                Token::Float(FloatLit {
                    value: 1.5e-7,
                    single: false
                }),
                Token::Float(FloatLit {
                    value: 1.25,
                    single: true
                }),
            ]
        );
        assert_eq!(
            tokens("42._strr"),
            vec![int(42), Token::Dot, ident("_strr")]
        );
        assert_eq!(tokens("1..3"), vec![int(1), Token::DotDot, int(3)]);
    }

    #[test]
    fn float_after_dot_is_reported_and_split() {
        let (tokens, errors) = lex("x.1.0");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].help.as_deref().unwrap().contains("x.1 .0"));
        let tokens: Vec<Token> = tokens.into_iter().map(|(token, _)| token).collect();
        assert_eq!(
            tokens,
            vec![ident("x"), Token::Dot, int(1), Token::Dot, int(0)]
        );
        assert_eq!(
            self::tokens("t.1 .1"),
            vec![ident("t"), Token::Dot, int(1), Token::Dot, int(1)]
        );
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(tokens(r#""a\nb""#), vec![Token::Str(b"a\nb".to_vec())]);
        assert_eq!(tokens(r#""\tb""#), vec![Token::Str(b"\tb".to_vec())]);
        assert_eq!(
            tokens(r#"'it\'s' "\x41""#),
            vec![Token::Str(b"it's".to_vec()), Token::Str(b"A".to_vec())]
        );
        assert_eq!(tokens(r#"r"a\n""#), vec![Token::Str(b"a\\n".to_vec())]);
        assert_eq!(
            tokens("\"\"\"a\nb\"\"\""),
            vec![Token::Str(b"a\nb".to_vec())]
        );
        assert_eq!(tokens("'''x'''"), vec![Token::Str(b"x".to_vec())]);
        assert_eq!(
            tokens(r#""ab" "cd""#),
            vec![Token::Str(b"ab".to_vec()), Token::Str(b"cd".to_vec())]
        );
    }

    #[test]
    fn unterminated_string_is_at_end() {
        let (_, errors) = lex("\"\"\"abc");
        assert!(errors[0].at_end);
    }

    #[test]
    fn operators_longest_match() {
        assert_eq!(
            tokens(":>> :: : ..< .. |> | <- -> => == != <= >= += -= *= /= %= ++ -- $ # & ^"),
            vec![
                Token::Coerce,
                Token::ColonColon,
                Token::Colon,
                Token::DotDotLess,
                Token::DotDot,
                Token::PipeRight,
                Token::Bar,
                Token::LeftArrow,
                Token::RightArrow,
                Token::FatArrow,
                Token::EqEq,
                Token::NotEq,
                Token::LessEq,
                Token::GreaterEq,
                Token::PlusAssign,
                Token::MinusAssign,
                Token::StarAssign,
                Token::SlashAssign,
                Token::PercentAssign,
                Token::PlusPlus,
                Token::MinusMinus,
                Token::Dollar,
                Token::Hash,
                Token::Ampersand,
                Token::Caret,
            ]
        );
    }

    #[test]
    fn bad_characters_do_not_stop_lexing() {
        let (tokens, errors) = lex("a @ b");
        assert_eq!(errors.len(), 1);
        assert_eq!(tokens.len(), 2);
        assert_eq!(errors[0].span, Span::new(2, 3));
    }
}
