//! Floating-point numbers as C++ streams print them: `printf("%g")`.

use std::fmt::Write as _;

/// A double as the C++ stream default prints it, which is `printf("%g")`: six significant
/// digits, fixed notation when the decimal exponent X satisfies -4 <= X < 6 and exponent
/// notation otherwise, trailing zeros removed; infinities are `+inf`/`-inf`, NaN is `nan`.
#[cfg(test)]
pub fn format_double(x: f64) -> String {
    let mut out = Vec::new();
    write_double(&mut out, x);
    String::from_utf8(out).expect("digits are ASCII")
}

/// A float prints like the double with the same value (C++ streams promote it).
#[cfg(test)]
pub fn format_float(x: f32) -> String {
    format_double(f64::from(x))
}

/// The significant digits of `%g`, and at most that many.
const PRECISION: i32 = 6;

/// Append `x` as `format_double` prints it to `out`, with no allocation of its own.
pub fn write_double(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"nan");
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"+inf" } else { b"-inf" });
        return;
    }
    if x.is_sign_negative() {
        out.push(b'-');
    }
    if x == 0.0 {
        out.push(b'0');
        return;
    }
    // Rust's exponent formatting rounds the exact binary value to the requested number of
    // digits with ties to even, as glibc's printf does; it yields the rounded significant
    // digits and the exponent X that `%g` bases its choice on: `d.ddddde-X`.
    let mut scientific = Scratch::default();
    if write!(scientific, "{:.*e}", (PRECISION - 1) as usize, x.abs()).is_err() {
        return;
    }
    let text = scientific.text();
    let Some(e) = text.iter().position(|&b| b == b'e') else {
        out.extend_from_slice(text);
        return;
    };
    let (negative, magnitude) = match &text[e + 1..] {
        [b'-', rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let magnitude = magnitude
        .iter()
        .fold(0i32, |n, &d| n * 10 + i32::from(d.wrapping_sub(b'0')));
    let exponent = if negative { -magnitude } else { magnitude };
    let mut digits = [b'0'; PRECISION as usize];
    let mut count = 0;
    for &b in text[..e].iter().filter(|b| b.is_ascii_digit()) {
        if let Some(slot) = digits.get_mut(count) {
            *slot = b;
            count += 1;
        }
    }
    // Trailing zeros are never printed; the first digit is not zero.
    let significant = digits[..count]
        .iter()
        .rposition(|&d| d != b'0')
        .map_or(1, |last| last + 1);
    let digits = &digits[..significant];
    if (-4..PRECISION).contains(&exponent) {
        fixed_notation(out, digits, exponent);
    } else {
        exponent_notation(out, digits, exponent);
    }
}

/// `%g` fixed notation from the significant digits `d0 d1 …` (value `d0.d1… × 10^X`, no
/// trailing zeros) and the exponent X.
fn fixed_notation(out: &mut Vec<u8>, digits: &[u8], exponent: i32) {
    if exponent >= 0 {
        let integer_digits = exponent as usize + 1;
        let (integer, fraction) = digits.split_at(integer_digits.min(digits.len()));
        out.extend_from_slice(integer);
        out.extend(std::iter::repeat_n(b'0', integer_digits - integer.len()));
        if !fraction.is_empty() {
            out.push(b'.');
            out.extend_from_slice(fraction);
        }
    } else {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-exponent - 1) as usize));
        out.extend_from_slice(digits);
    }
}

/// `%g` exponent notation: `d.ddd` (no trailing zeros), `e`, the sign, and at least two
/// exponent digits.
fn exponent_notation(out: &mut Vec<u8>, digits: &[u8], exponent: i32) {
    out.push(digits[0]);
    if digits.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&digits[1..]);
    }
    out.extend_from_slice(if exponent < 0 { b"e-" } else { b"e+" });
    if exponent.unsigned_abs() < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(
        itoa::Buffer::new()
            .format(exponent.unsigned_abs())
            .as_bytes(),
    );
}

/// The text of one `{:e}` formatting, on the stack.
#[derive(Default)]
struct Scratch {
    bytes: [u8; 32],
    len: usize,
}

impl Scratch {
    fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl std::fmt::Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
