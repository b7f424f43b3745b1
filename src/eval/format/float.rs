//! Floating-point numbers as C++ streams print them: `printf("%g")`.

/// A double as the C++ stream default prints it, which is `printf("%g")`: six significant
/// digits, fixed notation when the decimal exponent X satisfies -4 <= X < 6 and exponent
/// notation otherwise, trailing zeros removed; infinities are `+inf`/`-inf`, NaN is `nan`.
pub fn format_double(x: f64) -> String {
    const PRECISION: i32 = 6;
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+inf" } else { "-inf" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0");
    }
    // Rust's exponent formatting rounds the exact binary value to the requested number of
    // digits with ties to even, as glibc's printf does; it yields the rounded significant
    // digits and the exponent X that `%g` bases its choice on.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x.abs());
    let Some((mantissa, exponent_text)) = scientific.split_once('e') else {
        return scientific;
    };
    let Ok(exponent) = exponent_text.parse::<i32>() else {
        return scientific;
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let body = if (-4..PRECISION).contains(&exponent) {
        fixed_notation(&digits, exponent)
    } else {
        exponent_notation(&digits, exponent)
    };
    format!("{sign}{body}")
}

/// A float prints like the double with the same value (C++ streams promote it).
#[cfg(test)]
pub fn format_float(x: f32) -> String {
    format_double(f64::from(x))
}

/// `%g` fixed notation from the rounded significant digits `d0 d1 …` (value `d0.d1… × 10^X`)
/// and the exponent X, with trailing fractional zeros and a bare point removed.
fn fixed_notation(digits: &[u8], exponent: i32) -> String {
    let mut integer_part = String::new();
    let mut fraction_part = String::new();
    if exponent >= 0 {
        let integer_digits = (exponent as usize + 1).min(digits.len());
        integer_part.extend(digits[..integer_digits].iter().map(|&d| d as char));
        for _ in digits.len()..exponent as usize + 1 {
            integer_part.push('0');
        }
        fraction_part.extend(digits[integer_digits..].iter().map(|&d| d as char));
    } else {
        integer_part.push('0');
        for _ in 0..(-exponent - 1) {
            fraction_part.push('0');
        }
        fraction_part.extend(digits.iter().map(|&d| d as char));
    }
    let fraction = fraction_part.trim_end_matches('0');
    if fraction.is_empty() {
        integer_part
    } else {
        format!("{integer_part}.{fraction}")
    }
}

/// `%g` exponent notation: `d.ddd` without trailing zeros, `e`, the sign, and at least two
/// exponent digits.
fn exponent_notation(digits: &[u8], exponent: i32) -> String {
    let mut text = String::new();
    if let Some(&first) = digits.first() {
        text.push(first as char);
    }
    let fraction: String = digits.iter().skip(1).map(|&d| d as char).collect();
    let fraction = fraction.trim_end_matches('0');
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(fraction);
    }
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    text.push_str(&format!("e{exponent_sign}{:02}", exponent.unsigned_abs()));
    text
}
