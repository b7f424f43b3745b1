//! Tokens produced by the lexer and consumed by the parser.

use std::fmt;

use crate::syntax::ast::{FloatLit, IntLit, UnitsumOp};

/// A reserved word. Keywords are never identifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    Begin,
    End,
    Do,
    Done,
    Perform,
    If,
    Then,
    Elif,
    Else,
    Endif,
    Match,
    With,
    Endmatch,
    When,
    For,
    In,
    While,
    Until,
    Repeat,
    Upto,
    Downto,
    Break,
    Continue,
    Redo,
    Return,
    Var,
    Val,
    Fun,
    Proc,
    Gen,
    Typedef,
    Struct,
    Variant,
    Case,
    Of,
    Proj,
    Aproj,
    Caseno,
    /// `def a, val b, var c = e;`.
    Def,
    /// `cfun` and `cproc`: ordinary functions and procedures.
    Cfun,
    Cproc,
    And,
    Or,
    Not,
    True,
    False,
    /// `assert e;`.
    Assert,
    /// A word Felix rejects as a name although the subset has no construct for it
    /// (`total`, `pure`, …): kept as written for messages.
    Reserved(&'static str),
}

/// Every keyword with its spelling.
const KEYWORDS: &[(&str, Keyword)] = &[
    ("begin", Keyword::Begin),
    ("end", Keyword::End),
    ("do", Keyword::Do),
    ("done", Keyword::Done),
    ("perform", Keyword::Perform),
    ("if", Keyword::If),
    ("then", Keyword::Then),
    ("elif", Keyword::Elif),
    ("else", Keyword::Else),
    ("endif", Keyword::Endif),
    ("match", Keyword::Match),
    ("with", Keyword::With),
    ("endmatch", Keyword::Endmatch),
    ("when", Keyword::When),
    ("for", Keyword::For),
    ("in", Keyword::In),
    ("while", Keyword::While),
    ("until", Keyword::Until),
    ("repeat", Keyword::Repeat),
    ("upto", Keyword::Upto),
    ("downto", Keyword::Downto),
    ("break", Keyword::Break),
    ("continue", Keyword::Continue),
    ("redo", Keyword::Redo),
    ("return", Keyword::Return),
    ("var", Keyword::Var),
    ("val", Keyword::Val),
    ("fun", Keyword::Fun),
    ("proc", Keyword::Proc),
    ("gen", Keyword::Gen),
    ("typedef", Keyword::Typedef),
    ("struct", Keyword::Struct),
    ("variant", Keyword::Variant),
    ("case", Keyword::Case),
    ("of", Keyword::Of),
    ("proj", Keyword::Proj),
    ("aproj", Keyword::Aproj),
    ("caseno", Keyword::Caseno),
    ("def", Keyword::Def),
    ("cfun", Keyword::Cfun),
    ("cproc", Keyword::Cproc),
    ("and", Keyword::And),
    ("or", Keyword::Or),
    ("not", Keyword::Not),
    ("true", Keyword::True),
    ("false", Keyword::False),
    ("assert", Keyword::Assert),
    ("total", Keyword::Reserved("total")),
    ("partial", Keyword::Reserved("partial")),
    ("pure", Keyword::Reserved("pure")),
    ("impure", Keyword::Reserved("impure")),
    ("inline", Keyword::Reserved("inline")),
    ("noinline", Keyword::Reserved("noinline")),
    ("strict", Keyword::Reserved("strict")),
    ("virtual", Keyword::Reserved("virtual")),
    ("method", Keyword::Reserved("method")),
    ("object", Keyword::Reserved("object")),
    ("callback", Keyword::Reserved("callback")),
    ("new", Keyword::Reserved("new")),
    ("export", Keyword::Reserved("export")),
    ("extern", Keyword::Reserved("extern")),
    ("regexp", Keyword::Reserved("regexp")),
];

impl Keyword {
    /// Every keyword of the language as written (not the words only reserved).
    pub fn spellings() -> impl Iterator<Item = &'static str> {
        KEYWORDS
            .iter()
            .filter(|(_, keyword)| !matches!(keyword, Keyword::Reserved(_)))
            .map(|(spelling, _)| *spelling)
    }

    /// The keyword spelled `word`, if `word` is reserved.
    pub fn from_word(word: &str) -> Option<Keyword> {
        KEYWORDS
            .iter()
            .find(|(spelling, _)| *spelling == word)
            .map(|(_, keyword)| *keyword)
    }

    /// The keyword as written in source.
    pub fn spelling(self) -> &'static str {
        if let Keyword::Reserved(word) = self {
            return word;
        }
        KEYWORDS
            .iter()
            .find(|(_, keyword)| *keyword == self)
            .map(|(spelling, _)| *spelling)
            .unwrap_or("<keyword>")
    }
}

/// One token. Literal tokens carry their decoded value.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// An identifier, including `\sum`-style backslash names and `_`.
    Ident(String),
    Keyword(Keyword),
    Int(IntLit),
    Float(FloatLit),
    /// A string literal's bytes, escapes processed.
    Str(Vec<u8>),
    /// A format string `f"…"`: the bytes of its text, escapes processed.
    FormatStr(Vec<u8>),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semicolon,
    Colon,
    ColonColon,
    /// `:=`.
    ColonAssign,
    Dot,
    DotDot,
    DotDotLess,
    Dollar,
    PipeRight,
    /// The `in` that ends the value of a `let p = e in body` (`lexer::mark_let_in`).
    LetIn,
    Bar,
    Hash,
    Ampersand,
    LeftArrow,
    RightArrow,
    FatArrow,
    Coerce,
    Assign,
    EqEq,
    NotEq,
    /// `!`: Felix's list cons, `h ! t`.
    Bang,
    /// `?`: `?x` in a pattern binds `x`.
    Question,
    Less,
    LessEq,
    Greater,
    GreaterEq,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    PlusPlus,
    MinusMinus,
    /// `\*`
    CompactStar,
    /// `\+`
    CompactPlus,
    /// `\^`
    CompactCaret,
    /// `\,`
    CompactComma,
    /// `` ` `` before a unitsum literal or a sum pattern.
    Backtick,
    /// `\&` (bitwise and).
    BitAnd,
    /// `\|` (bitwise or).
    BitOr,
    /// `~` (bitwise complement).
    Tilde,
    /// `\in`, `\notin`: membership comparisons.
    SetIn,
    SetNotIn,
    /// `<<`. (`>>` is two adjacent `>` tokens, so `>` closing nested brackets still lexes.)
    ShiftLeft,
    AmpAssign,
    BarAssign,
    CaretAssign,
    ShiftLeftAssign,
    ShiftRightAssign,
    /// `` `+ `` `` `- `` `` `* `` `` `/ `` `` `% ``: type-level unitsum arithmetic.
    UnitsumArith(UnitsumOp),
}

impl Token {
    /// How the token is shown in a message, without quotes.
    fn text(&self) -> String {
        let fixed = match self {
            Token::Ident(name) => return name.clone(),
            Token::Keyword(keyword) => return keyword.spelling().to_string(),
            Token::Int(literal) => {
                return match literal.value {
                    Some(value) => format!("{value}{}", literal.suffix),
                    None => "integer literal".to_string(),
                }
            }
            Token::Float(literal) => return format!("{:?}", literal.value),
            Token::Str(bytes) => return format!("\"{}\"", String::from_utf8_lossy(bytes)),
            Token::FormatStr(bytes) => return format!("f\"{}\"", String::from_utf8_lossy(bytes)),
            Token::UnitsumArith(op) => {
                return match op {
                    UnitsumOp::Add => "`+",
                    UnitsumOp::Sub => "`-",
                    UnitsumOp::Mul => "`*",
                    UnitsumOp::Div => "`/",
                    UnitsumOp::Mod => "`%",
                }
                .to_string()
            }
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::Comma => ",",
            Token::Semicolon => ";",
            Token::Colon => ":",
            Token::ColonColon => "::",
            Token::ColonAssign => ":=",
            Token::Dot => ".",
            Token::DotDot => "..",
            Token::DotDotLess => "..<",
            Token::Dollar => "$",
            Token::PipeRight => "|>",
            Token::LetIn => "in",
            Token::Bar => "|",
            Token::Hash => "#",
            Token::Ampersand => "&",
            Token::LeftArrow => "<-",
            Token::RightArrow => "->",
            Token::FatArrow => "=>",
            Token::Coerce => ":>>",
            Token::Assign => "=",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Bang => "!",
            Token::Question => "?",
            Token::Less => "<",
            Token::LessEq => "<=",
            Token::Greater => ">",
            Token::GreaterEq => ">=",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::Caret => "^",
            Token::PlusAssign => "+=",
            Token::MinusAssign => "-=",
            Token::StarAssign => "*=",
            Token::SlashAssign => "/=",
            Token::PercentAssign => "%=",
            Token::PlusPlus => "++",
            Token::MinusMinus => "--",
            Token::CompactStar => "\\*",
            Token::CompactPlus => "\\+",
            Token::CompactCaret => "\\^",
            Token::CompactComma => "\\,",
            Token::Backtick => "`",
            Token::BitAnd => "\\&",
            Token::BitOr => "\\|",
            Token::Tilde => "~",
            Token::SetIn => "\\in",
            Token::SetNotIn => "\\notin",
            Token::ShiftLeft => "<<",
            Token::AmpAssign => "&=",
            Token::BarAssign => "|=",
            Token::CaretAssign => "^=",
            Token::ShiftLeftAssign => "<<=",
            Token::ShiftRightAssign => ">>=",
        };
        fixed.to_string()
    }
}

impl fmt::Display for Token {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Str(_) | Token::FormatStr(_) | Token::Int(_) | Token::Float(_) => {
                write!(formatter, "{}", self.text())
            }
            Token::Keyword(_) => write!(formatter, "keyword `{}`", self.text()),
            _ => write!(formatter, "`{}`", self.text()),
        }
    }
}
