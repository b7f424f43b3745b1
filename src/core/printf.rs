//! Format strings `f"…"`: the conversions a format string is made of, read once by
//! the checker (which types the argument and reports E0603) and carried in the IR to the
//! evaluator (which formats exactly as C `printf` does, `eval::printf`).
//!
//! The accepted syntax is the spec's, exactly: `%%`, or `%` followed by flags (at most one of
//! `+` and `-`, at most one space, at most one `0`), width digits, an optional `.` with
//! precision digits, a length and a conversion from C's table. Anything else (`%s`,
//! `%p`, `%n`, `*`, `$`, `#`, other lengths) is an error.

use crate::types::ty::{IntTy, Type};

/// One piece of a format string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Bytes copied as they are (`%%` already turned into `%`).
    Text(Vec<u8>),
    /// A conversion, consuming the next argument.
    Conv(Conversion),
}

/// The argument a conversion takes and how it prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvKind {
    /// `d`, `i`: a signed integer in decimal.
    Signed(IntTy),
    /// `u`, `o`, `x`, `X`: an unsigned integer in radix 10, 8 or 16 (`upper` for `X`).
    Unsigned { ty: IntTy, radix: u32, upper: bool },
    /// `c`: the byte of an `int`.
    Char,
    /// `e E f F g G a A`: a double; `style` is the lower-case letter.
    Float { style: u8, upper: bool },
    /// `S`: a string.
    Str,
}

impl ConvKind {
    /// The type of the argument.
    pub fn arg_type(self) -> Type {
        match self {
            ConvKind::Signed(ty) | ConvKind::Unsigned { ty, .. } => Type::Int(ty),
            ConvKind::Char => Type::INT,
            ConvKind::Float { .. } => Type::Double,
            ConvKind::Str => Type::String,
        }
    }
}

/// A conversion with its flags, width and precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conversion {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: always a sign for signed and floating conversions.
    pub plus: bool,
    /// ` `: a space where a `+` would go.
    pub space: bool,
    /// `0`: pad with zeros after the sign.
    pub zero: bool,
    pub width: usize,
    pub precision: Option<usize>,
    pub kind: ConvKind,
}

/// A parsed format string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FormatSpec {
    pub pieces: Vec<Piece>,
}

impl FormatSpec {
    /// The argument types, in order.
    pub fn arg_types(&self) -> Vec<Type> {
        self.conversions().map(|c| c.kind.arg_type()).collect()
    }

    /// The conversions, in order.
    pub fn conversions(&self) -> impl Iterator<Item = &Conversion> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Conv(c) => Some(c),
            Piece::Text(_) => None,
        })
    }

    /// The parameter type of the format function: the tuple of the argument types (`()` for
    /// none, the type itself for one), normalised like every tuple type.
    pub fn param_type(&self) -> Type {
        Type::tuple(self.arg_types())
    }
}

/// Why a format string was refused: the byte offset of the offending conversion in the text
/// and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub offset: usize,
    pub message: String,
}

/// The length-and-conversion table (as C's `printf`).
fn conversion(spec: &str) -> Option<ConvKind> {
    let signed = |ty| Some(ConvKind::Signed(ty));
    let unsigned = |ty, letter: char| {
        let (radix, upper) = match letter {
            'u' => (10, false),
            'o' => (8, false),
            'x' => (16, false),
            'X' => (16, true),
            _ => return None,
        };
        Some(ConvKind::Unsigned { ty, radix, upper })
    };
    let (length, letter) = spec.split_at(spec.len() - 1);
    let letter = letter.chars().next()?;
    match (length, letter) {
        ("", 'd' | 'i') => signed(IntTy::Int),
        ("", 'c') => Some(ConvKind::Char),
        ("", 'u' | 'o' | 'x' | 'X') => unsigned(IntTy::UInt, letter),
        ("l", 'd' | 'i') => signed(IntTy::Long),
        ("l", 'u' | 'o' | 'x' | 'X') => unsigned(IntTy::ULong, letter),
        ("ll", 'd' | 'i') => signed(IntTy::VLong),
        ("ll", 'u' | 'o' | 'x' | 'X') => unsigned(IntTy::UVLong, letter),
        ("z", 'u' | 'o' | 'x' | 'X') => unsigned(IntTy::Size, letter),
        ("hh", 'd' | 'i') => signed(IntTy::Tiny),
        ("hh", 'o' | 'x' | 'X') => unsigned(IntTy::UTiny, letter),
        ("h", 'd' | 'i') => signed(IntTy::Short),
        ("h", 'u' | 'o' | 'x' | 'X') => unsigned(IntTy::UShort, letter),
        ("", 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A') => Some(ConvKind::Float {
            style: letter.to_ascii_lowercase() as u8,
            upper: letter.is_ascii_uppercase(),
        }),
        ("", 'S') => Some(ConvKind::Str),
        _ => None,
    }
}

/// Read a format string. Every `%` starts a conversion (or is `%%`).
pub fn parse(text: &[u8]) -> Result<FormatSpec, FormatError> {
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'%' {
            literal.push(text[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if text.get(i) == Some(&b'%') {
            literal.push(b'%');
            i += 1;
            continue;
        }
        let error = |message: String| FormatError {
            offset: start,
            message,
        };
        let mut conv = Conversion {
            left: false,
            plus: false,
            space: false,
            zero: false,
            width: 0,
            precision: None,
            kind: ConvKind::Str,
        };
        // Flags.
        while let Some(&flag) = text.get(i) {
            let (seen, other) = match flag {
                b'-' => (conv.left || conv.plus, false),
                b'+' => (conv.plus || conv.left, false),
                b' ' => (conv.space, false),
                b'0' => (conv.zero, false),
                _ => (false, true),
            };
            if other {
                break;
            }
            if seen {
                return Err(error(match flag {
                    b'-' | b'+' => "a conversion takes one `+` or `-` flag".to_string(),
                    _ => format!("the flag `{}` is repeated", flag as char),
                }));
            }
            match flag {
                b'-' => conv.left = true,
                b'+' => conv.plus = true,
                b' ' => conv.space = true,
                _ => conv.zero = true,
            }
            i += 1;
        }
        // Width and precision.
        let digits = |i: &mut usize| -> Result<Option<usize>, FormatError> {
            let begin = *i;
            while text.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            if begin == *i {
                return Ok(None);
            }
            std::str::from_utf8(&text[begin..*i])
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
                .filter(|n| *n <= 1 << 20)
                .map(Some)
                .ok_or_else(|| error("the width or precision is too large".to_string()))
        };
        conv.width = digits(&mut i)?.unwrap_or(0);
        if text.get(i) == Some(&b'.') {
            i += 1;
            conv.precision = Some(digits(&mut i)?.unwrap_or(0));
        }
        // Length and conversion letter.
        let begin = i;
        while text.get(i).is_some_and(|c| matches!(c, b'h' | b'l' | b'z')) {
            i += 1;
        }
        if i >= text.len() {
            return Err(error(format!(
                "the conversion `{}` is unfinished",
                String::from_utf8_lossy(&text[start..])
            )));
        };
        i += 1;
        let spec = String::from_utf8_lossy(&text[begin..i]).into_owned();
        conv.kind = conversion(&spec).ok_or_else(|| {
            error(format!(
                "unsupported conversion `{}`",
                String::from_utf8_lossy(&text[start..i])
            ))
        })?;
        if !literal.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Conv(conv));
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(FormatSpec { pieces })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(text: &str) -> Vec<String> {
        parse(text.as_bytes())
            .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
            .arg_types()
            .iter()
            .map(|t| t.to_string())
            .collect()
    }

    fn refused(text: &str) -> FormatError {
        parse(text.as_bytes()).expect_err(text)
    }

    #[test]
    fn argument_types_follow_the_table() {
        assert_eq!(types("B %d"), ["int"]);
        assert_eq!(types("%d-%S"), ["int", "string"]);
        assert_eq!(types("[%5.2f]"), ["double"]);
        assert_eq!(types("%03d%%"), ["int"]);
        assert_eq!(
            types("%i %c %u %o %x %X"),
            ["int", "int", "uint", "uint", "uint", "uint"]
        );
        assert_eq!(types("%ld %lu %lld %llX %zu %zx"), {
            ["long", "ulong", "vlong", "uvlong", "size", "size"]
        });
        assert_eq!(
            types("%hhd %hhx %hd %hu %hX"),
            ["tiny", "utiny", "short", "ushort", "ushort"]
        );
        assert_eq!(
            types("%e%E%f%F%g%G%a%A"),
            ["double", "double", "double", "double", "double", "double", "double", "double"]
        );
        assert_eq!(types("no conversions"), Vec::<String>::new());
    }

    #[test]
    fn flags_width_precision() {
        let spec = parse(b"%-+ 07.3f").unwrap_err();
        assert!(spec.message.contains("`+` or `-`"), "{spec:?}");
        let spec = parse(b"% 07.3f").unwrap();
        let Piece::Conv(c) = &spec.pieces[0] else {
            panic!()
        };
        assert!(c.space && c.zero && !c.left && !c.plus);
        assert_eq!((c.width, c.precision), (7, Some(3)));
        let spec = parse(b"%.f").unwrap();
        let Piece::Conv(c) = &spec.pieces[0] else {
            panic!()
        };
        assert_eq!(c.precision, Some(0));
    }

    #[test]
    fn percent_percent_is_text() {
        let spec = parse(b"100%% sure").unwrap();
        assert_eq!(spec.pieces, vec![Piece::Text(b"100% sure".to_vec())]);
    }

    #[test]
    fn everything_else_is_refused_at_its_offset() {
        for (text, offset) in [
            ("%s", 0),
            ("a %p", 2),
            ("%n", 0),
            ("%*d", 0),
            ("%1$d", 0),
            ("%#x", 0),
            ("%Lf", 0),
            ("%hhu", 0),
            ("%zd", 0),
            ("%jd", 0),
            ("x%", 1),
            ("%5", 0),
            ("%--d", 0),
            ("%  d", 0),
            ("%5%", 0),
        ] {
            assert_eq!(refused(text).offset, offset, "{text}");
        }
    }
}
