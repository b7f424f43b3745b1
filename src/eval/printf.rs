//! Formatting the conversions of a format string `f"…"` exactly as C `printf` does
//! for them: flags `+ - space 0`, width, precision, `%d %u %o %x %X %c %e %f %g %a %S`.
//! The format string was read by the checker (`core::printf`).

use crate::core::printf::{ConvKind, Conversion, FormatSpec, Piece};

use super::prims::int_value;
use super::value::Value;

/// The text of `spec` applied to `values` (one per conversion, in order).
pub fn format(spec: &FormatSpec, values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = values.iter();
    for piece in &spec.pieces {
        match piece {
            Piece::Text(bytes) => out.extend_from_slice(bytes),
            Piece::Conv(conv) => {
                let value = next.next().cloned().unwrap_or(Value::Unit);
                convert(conv, &value, &mut out);
            }
        }
    }
    out
}

/// One conversion of one value.
fn convert(conv: &Conversion, value: &Value, out: &mut Vec<u8>) {
    match conv.kind {
        ConvKind::Signed(ty) => {
            let v = int_value(value.as_int_lossy(), ty);
            let sign = sign_of(conv, v < 0);
            let digits = int_digits(v.unsigned_abs(), 10, false, conv.precision);
            pad(conv, sign, &digits, conv.precision.is_none(), out);
        }
        ConvKind::Unsigned { ty, radix, upper } => {
            let v = int_value(value.as_int_lossy(), ty);
            let digits = int_digits(v.unsigned_abs(), radix, upper, conv.precision);
            pad(conv, "", &digits, conv.precision.is_none(), out);
        }
        ConvKind::Char => {
            let byte = value.as_int_lossy() as u8;
            pad(conv, "", &[byte], false, out);
        }
        ConvKind::Str => {
            let bytes: &[u8] = match value {
                Value::Str(s) => s,
                _ => b"",
            };
            let shown = match conv.precision {
                Some(p) if p < bytes.len() => &bytes[..p],
                _ => bytes,
            };
            pad(conv, "", shown, false, out);
        }
        ConvKind::Float { style, upper } => {
            let x = value.as_float_lossy();
            let sign = sign_of(conv, x.is_sign_negative());
            let (body, finite) = if x.is_nan() {
                ("nan".to_string(), false)
            } else if x.is_infinite() {
                ("inf".to_string(), false)
            } else {
                let x = x.abs();
                let body = match style {
                    b'e' => exp_form(x, conv.precision.unwrap_or(6)),
                    b'f' => fixed_form(x, conv.precision.unwrap_or(6)),
                    b'g' => general_form(x, conv.precision.unwrap_or(6)),
                    _ => hex_form(x, conv.precision),
                };
                (body, true)
            };
            let body = if upper {
                body.to_ascii_uppercase()
            } else {
                body
            };
            // A hex float's `0x` goes before the zero padding.
            let (prefix, digits) = match body.strip_prefix("0x").or(body.strip_prefix("0X")) {
                Some(rest) => (format!("{sign}{}", &body[..2]), rest.to_string()),
                None => (sign.to_string(), body.clone()),
            };
            pad(conv, &prefix, digits.as_bytes(), finite, out);
        }
    }
}

/// The sign of a signed or floating conversion: `-`, or what the `+` and space flags ask.
fn sign_of(conv: &Conversion, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if conv.plus {
        "+"
    } else if conv.space {
        " "
    } else {
        ""
    }
}

/// The digits of `v` in `radix`, at least `precision` of them (`%.0d` of 0 is empty).
fn int_digits(v: u128, radix: u32, upper: bool, precision: Option<usize>) -> Vec<u8> {
    let mut digits = Vec::new();
    let mut n = v;
    while n > 0 {
        let d = (n % radix as u128) as u32;
        let c = std::char::from_digit(d, radix).unwrap_or('0');
        digits.push(if upper { c.to_ascii_uppercase() } else { c } as u8);
        n /= radix as u128;
    }
    let min = precision.unwrap_or(1);
    while digits.len() < min {
        digits.push(b'0');
    }
    digits.reverse();
    digits
}

/// Pad `prefix` (sign, `0x`) and `body` to the width: on the right for `-`, with zeros after
/// the prefix for `0` when `zero_ok`, else with spaces on the left.
fn pad(conv: &Conversion, prefix: &str, body: &[u8], zero_ok: bool, out: &mut Vec<u8>) {
    let len = prefix.len() + body.len();
    let fill = conv.width.saturating_sub(len);
    if conv.left {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if conv.zero && zero_ok {
        out.extend_from_slice(prefix.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
    }
}

/// `%e` of a non-negative finite `x`: `d.ddddde+XX`.
fn exp_form(x: f64, precision: usize) -> String {
    let text = format!("{:.*e}", precision, x);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!(
        "{mantissa}e{}{:02}",
        if exponent < 0 { '-' } else { '+' },
        exponent.abs()
    )
}

/// `%f` of a non-negative finite `x`: `precision` digits after the point, the exact binary
/// value rounded to them, ties to even, as C's printf rounds.
fn fixed_form(x: f64, precision: usize) -> String {
    fixed_by_integers(x, precision).unwrap_or_else(|| format!("{:.*}", precision, x))
}

/// `fixed_form` in integer arithmetic, when `x` is below 10^18 and `precision` at most 18:
/// with `x = m * 2^e`, the digits are `m * 10^precision * 2^e` rounded to an integer, which
/// fits 128 bits (`m < 2^53`, `10^18 < 2^60`). Rust's exact formatting gives the same digits,
/// but falls back to a slow bignum algorithm whenever its fast one cannot decide, which for
/// values with few binary digits (`0.25`, `12.5`) is always.
fn fixed_by_integers(x: f64, precision: usize) -> Option<String> {
    if precision > 18 || !(0.0..1e18).contains(&x) {
        return None;
    }
    let bits = x.to_bits();
    let (biased, fraction) = ((bits >> 52) as i32 & 0x7ff, bits & ((1 << 52) - 1));
    let (m, e) = match biased {
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, biased - 1075),
    };
    let scale = 10u128.pow(precision as u32);
    let scaled = if e >= 0 {
        ((m as u128) << e) * scale
    } else {
        let (product, k) = (m as u128 * scale, e.unsigned_abs());
        if k >= 128 {
            // Below 2^113 / 2^128: nearer 0 than 1.
            0
        } else {
            let (q, r, half) = (product >> k, product & ((1 << k) - 1), 1u128 << (k - 1));
            q + u128::from(r > half || (r == half && q & 1 == 1))
        }
    };
    let (whole, part) = ((scaled / scale) as u64, (scaled % scale) as u64);
    Some(match precision {
        0 => whole.to_string(),
        _ => format!("{whole}.{part:0precision$}"),
    })
}

/// `%g` of a non-negative finite `x`: `%e` or `%f` by the exponent, trailing zeros removed.
fn general_form(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    let exponent = if x == 0.0 {
        0
    } else {
        let text = format!("{:.*e}", p - 1, x);
        text.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let body = if exponent < -4 || exponent >= p as i64 {
        exp_form(x, p - 1)
    } else {
        format!("{:.*}", (p as i64 - 1 - exponent) as usize, x)
    };
    strip_fraction_zeros(&body)
}

/// Remove trailing zeros of the fraction (and a bare point), before any exponent.
fn strip_fraction_zeros(body: &str) -> String {
    let (number, exponent) = match body.find('e') {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    if !number.contains('.') {
        return body.to_string();
    }
    let number = number.trim_end_matches('0').trim_end_matches('.');
    format!("{number}{exponent}")
}

/// `%a` of a non-negative finite `x` as glibc prints it: `0x1.8p+1`; with a precision, the
/// fraction rounded to that many hex digits (ties to even).
fn hex_form(x: f64, precision: Option<usize>) -> String {
    let bits = x.to_bits();
    let raw_exponent = ((bits >> 52) & 0x7ff) as i64;
    let mut fraction = bits & ((1u64 << 52) - 1);
    if raw_exponent == 0 && fraction == 0 {
        let zeros = "0".repeat(precision.unwrap_or(0));
        let point = if zeros.is_empty() { "" } else { "." };
        return format!("0x0{point}{zeros}p+0");
    }
    // Subnormals print with a leading 0 and the minimum exponent.
    let (mut lead, exponent) = if raw_exponent == 0 {
        (0u64, -1022)
    } else {
        (1u64, raw_exponent - 1023)
    };
    let mut digits = 13usize;
    if let Some(p) = precision {
        if p < 13 {
            let drop = (13 - p) * 4;
            let rest = fraction & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            fraction >>= drop;
            // Ties to even, the leading digit included when no fraction digit is kept.
            let odd = if p == 0 {
                lead & 1 == 1
            } else {
                fraction & 1 == 1
            };
            if rest > half || (rest == half && odd) {
                fraction += 1;
                if fraction >> (p * 4) != 0 {
                    fraction &= (1u64 << (p * 4)) - 1;
                    lead += 1;
                }
            }
            digits = p;
        }
    }
    let mut hex = if digits == 0 {
        String::new()
    } else {
        format!("{:0width$x}", fraction, width = digits)
    };
    match precision {
        None => {
            while hex.ends_with('0') {
                hex.pop();
            }
        }
        Some(p) => {
            while hex.len() < p {
                hex.push('0');
            }
        }
    }
    let point = if hex.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{point}{hex}p{}{}",
        if exponent < 0 { '-' } else { '+' },
        exponent.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::printf::parse;

    fn f(text: &str, values: &[Value]) -> String {
        let spec = parse(text.as_bytes()).unwrap();
        String::from_utf8(format(&spec, values)).unwrap()
    }

    fn d(x: f64) -> Value {
        Value::Float(x)
    }

    fn i(x: i64) -> Value {
        Value::Int(x)
    }

    // Expected outputs are those of C's printf (checked against Python's `%`, which follows
    // the same rules).
    #[test]
    fn integers() {
        assert_eq!(f("B %d", &[i(5)]), "B 5");
        assert_eq!(f("%03d%%", &[i(7)]), "007%");
        assert_eq!(
            f(
                "[%5d|%-5d|%+d|% d|%05d]",
                &[i(42), i(42), i(42), i(42), i(-42)]
            ),
            "[   42|42   |+42| 42|-0042]"
        );
        assert_eq!(
            f("[%.3d|%8.3d|%08.3d|%.0d]", &[i(7), i(-7), i(7), i(0)]),
            "[007|    -007|     007|]"
        );
        assert_eq!(
            f("%x %X %o %u", &[i(255), i(255), i(8), i(4294967295)]),
            "ff FF 10 4294967295"
        );
        assert_eq!(f("%llu", &[i(-1)]), "18446744073709551615");
        assert_eq!(f("[%c|%3c|%-3c]", &[i(65), i(66), i(67)]), "[A|  B|C  ]");
        assert_eq!(
            f(
                "[%S|%5S|%-5S|%.2S]",
                &[
                    Value::str(b"ab"),
                    Value::str(b"ab"),
                    Value::str(b"ab"),
                    Value::str(b"abc")
                ]
            ),
            "[ab|   ab|ab   |ab]"
        );
    }

    #[test]
    fn doubles() {
        assert_eq!(f("[%5.2f]", &[d(3.14169)]), "[ 3.14]");
        assert_eq!(
            f("%f %e %g", &[d(1.5), d(1.5), d(1.5)]),
            "1.500000 1.500000e+00 1.5"
        );
        assert_eq!(
            f(
                "%g %g %g %g",
                &[d(100000.0), d(1000000.0), d(0.0001), d(0.00001)]
            ),
            "100000 1e+06 0.0001 1e-05"
        );
        assert_eq!(
            f("%.3g %.10g %G", &[d(3.14169), d(1.0 / 3.0), d(1e-10)]),
            "3.14 0.3333333333 1E-10"
        );
        assert_eq!(
            f(
                "[%+.1f|% .1f|%08.2f|%-8.2f|%+08.2f]",
                &[d(2.25), d(2.5), d(-3.14169), d(3.14169), d(3.14169)]
            ),
            "[+2.2| 2.5|-0003.14|3.14    |+0003.14]"
        );
        assert_eq!(
            f("%.0f %.0f %.0f %.2f", &[d(0.5), d(1.5), d(2.5), d(0.125)]),
            "0 2 2 0.12"
        );
        assert_eq!(
            f("%e %.2E", &[d(12345.678), d(-0.000123)]),
            "1.234568e+04 -1.23E-04"
        );
        assert_eq!(
            f(
                "[%f|%5f|%-5f|%05f|%E]",
                &[
                    d(f64::INFINITY),
                    d(f64::NAN),
                    d(f64::NEG_INFINITY),
                    d(f64::INFINITY),
                    d(f64::NAN)
                ]
            ),
            "[inf|  nan|-inf |  inf|NAN]"
        );
        assert_eq!(f("%g %g", &[d(0.0), d(-0.0)]), "0 -0");
        assert_eq!(f("%e", &[d(0.0)]), "0.000000e+00");
        assert_eq!(f("%g", &[d(1e100)]), "1e+100");
    }

    proptest::proptest! {
        /// Integer arithmetic gives `%f` the digits Rust's exact formatting gives, for any
        /// double (as bits), at any precision, and for values with few binary digits, where
        /// ties are.
        #[test]
        fn fixed_form_digits_are_the_exact_ones(
            bits in 0u64..0x7ff0_0000_0000_0000,
            k in 0u64..1 << 40,
            shift in 0i32..40,
            precision in 0usize..19,
        ) {
            for x in [f64::from_bits(bits), k as f64 / 2f64.powi(shift)] {
                if let Some(fast) = fixed_by_integers(x, precision) {
                    proptest::prop_assert_eq!(fast, format!("{:.*}", precision, x));
                }
            }
        }
    }

    #[test]
    fn hex_floats() {
        assert_eq!(
            f("%a %a %a %A", &[d(1.0), d(3.0), d(0.1), d(-2.5)]),
            "0x1p+0 0x1.8p+1 0x1.999999999999ap-4 -0X1.4P+1"
        );
        assert_eq!(
            f("%a %.2a %.0a", &[d(0.0), d(1.0), d(1.5)]),
            "0x0p+0 0x1.00p+0 0x2p+0"
        );
        assert_eq!(f("%a", &[d(5e-324)]), "0x0.0000000000001p-1022");
    }
}
