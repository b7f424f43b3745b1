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

/// Append `x` as `format_double` prints it to `out`, with no allocation of its own: the text
/// is made on the stack and copied once.
pub fn write_double(out: &mut Vec<u8>, x: f64) {
    let mut text = Scratch::default();
    if x.is_nan() {
        text.put(b"nan");
    } else if x.is_infinite() {
        text.put(if x > 0.0 { b"+inf" } else { b"-inf" });
    } else {
        if x.is_sign_negative() {
            text.put(b"-");
        }
        if x == 0.0 {
            text.put(b"0");
        } else {
            let shortest = if x.is_normal() {
                rounded_shortest(x.abs())
            } else {
                None
            };
            let (digits, exponent) = shortest.unwrap_or_else(|| rounded_exact(x.abs()));
            // Trailing zeros are never printed; the first digit is not zero.
            let significant = digits
                .iter()
                .rposition(|&d| d != b'0')
                .map_or(1, |last| last + 1);
            let digits = &digits[..significant];
            if (-4..PRECISION).contains(&exponent) {
                fixed_notation(&mut text, digits, exponent);
            } else {
                exponent_notation(&mut text, digits, exponent);
            }
        }
    }
    out.extend_from_slice(text.text());
}

/// The six significant digits of `x` (positive and normal) rounded as `%g` rounds them, and
/// the decimal exponent X of the first (`x ≈ d0.d1… × 10^X`), from the shortest digits that
/// read back as `x` (`ryu`), when they decide it:
/// - with at most six digits, they are the rounding: they are within 2^-53 of `x` (relative),
///   far closer than any other number of six digits (a subnormal's precision is too coarse
///   for this, so it takes `rounded_exact`);
/// - with more, rounding them rounds `x` the same way, unless they are a tie (a seventh digit
///   `5` and nothing after it), where `x` itself may lie on either side: `None`.
fn rounded_shortest(x: f64) -> Option<([u8; PRECISION as usize], i32)> {
    let mut shortest = ryu::Buffer::new();
    let text = shortest.format_finite(x).as_bytes();
    let (mantissa, scale) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    // One pass: the digits before the point, the zeros before the first significant digit,
    // the significant digits.
    let (mut integer_digits, mut leading) = (0i32, 0i32);
    let mut significant = [b'0'; 17];
    let mut count = 0;
    let mut after_point = false;
    for &b in mantissa {
        if b == b'.' {
            after_point = true;
            continue;
        }
        if !after_point {
            integer_digits += 1;
        }
        if count == 0 && b == b'0' {
            leading += 1;
        } else {
            *significant.get_mut(count)? = b;
            count += 1;
        }
    }
    while count > 1 && significant[count - 1] == b'0' {
        count -= 1;
    }
    let mut exponent = integer_digits - 1 - leading + scale;
    let mut digits = [b'0'; PRECISION as usize];
    let kept = count.min(digits.len());
    digits[..kept].copy_from_slice(&significant[..kept]);
    let tail = &significant[kept..count];
    if tail == b"5" {
        return None;
    }
    if tail.first().is_some_and(|&d| d >= b'5') && round_up(&mut digits) {
        exponent += 1;
    }
    Some((digits, exponent))
}

/// Add one to the last of `digits`, carrying; true when it carried out of the first, which
/// leaves `1` and zeros (the exponent then grows by one).
fn round_up(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits[0] = b'1';
    true
}

/// The digits and exponent `rounded_shortest` gives, for any finite `x`, from Rust's exponent
/// formatting, which rounds the exact binary value to six digits with ties to even, as
/// glibc's printf does.
fn rounded_exact(x: f64) -> ([u8; PRECISION as usize], i32) {
    let mut digits = [b'0'; PRECISION as usize];
    let mut scientific = Scratch::default();
    if write!(scientific, "{:.*e}", (PRECISION - 1) as usize, x).is_err() {
        return (digits, 0);
    }
    let text = scientific.text();
    let e = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let mantissa = text[..e].iter().filter(|b| b.is_ascii_digit());
    for (slot, &d) in digits.iter_mut().zip(mantissa) {
        *slot = d;
    }
    (
        digits,
        parse_exponent(text.get(e + 1..).unwrap_or_default()),
    )
}

/// The exponent after an `e`: an optional `-` and decimal digits.
fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, magnitude) = match text {
        [b'-', rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let magnitude = magnitude
        .iter()
        .fold(0i32, |n, &d| n * 10 + i32::from(d.wrapping_sub(b'0')));
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// `%g` fixed notation from the significant digits `d0 d1 …` (value `d0.d1… × 10^X`, no
/// trailing zeros) and the exponent X.
fn fixed_notation(out: &mut Scratch, digits: &[u8], exponent: i32) {
    const ZEROS: &[u8] = b"000000";
    if exponent >= 0 {
        let integer_digits = exponent as usize + 1;
        let (integer, fraction) = digits.split_at(integer_digits.min(digits.len()));
        out.put(integer);
        out.put(&ZEROS[..integer_digits - integer.len()]);
        if !fraction.is_empty() {
            out.put(b".");
            out.put(fraction);
        }
    } else {
        out.put(b"0.");
        out.put(&ZEROS[..(-exponent - 1) as usize]);
        out.put(digits);
    }
}

/// `%g` exponent notation: `d.ddd` (no trailing zeros), `e`, the sign, and at least two
/// exponent digits.
fn exponent_notation(out: &mut Scratch, digits: &[u8], exponent: i32) {
    out.put(&digits[..1]);
    if digits.len() > 1 {
        out.put(b".");
        out.put(&digits[1..]);
    }
    out.put(if exponent < 0 { b"e-" } else { b"e+" });
    if exponent.unsigned_abs() < 10 {
        out.put(b"0");
    }
    out.put(
        itoa::Buffer::new()
            .format(exponent.unsigned_abs())
            .as_bytes(),
    );
}

/// A short text on the stack: one `{:e}` formatting, or a double as printed (at most 13
/// bytes: a sign, `0.000` and six digits, or six digits, a point and `e-308`).
#[derive(Default)]
struct Scratch {
    bytes: [u8; 32],
    len: usize,
}

impl Scratch {
    fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Append `bytes` (never past the buffer, whose size bounds every text put here).
    fn put(&mut self, bytes: &[u8]) {
        let end = (self.len + bytes.len()).min(self.bytes.len());
        self.bytes[self.len..end].copy_from_slice(&bytes[..end - self.len]);
        self.len = end;
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
