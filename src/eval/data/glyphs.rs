//! A pixel font for the numbers on the pictures `save_png` draws: digits, sign, point and
//! the letters of `inf` and `nan`, each 3 × 5 pixels (drawn at twice that size). The PNG
//! encoder needs no font file this way, and the labels read the same on every machine.

/// The rows of a character, top first, the leftmost pixel as the highest of three bits.
fn rows(c: char) -> [u8; 5] {
    match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        '-' => [0b000, 0b000, 0b111, 0b000, 0b000],
        '+' => [0b000, 0b010, 0b111, 0b010, 0b000],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        'e' => [0b111, 0b100, 0b111, 0b100, 0b111],
        'i' => [0b010, 0b000, 0b010, 0b010, 0b010],
        'n' => [0b000, 0b110, 0b101, 0b101, 0b101],
        'f' => [0b011, 0b100, 0b110, 0b100, 0b100],
        'a' => [0b000, 0b011, 0b101, 0b101, 0b011],
        ' ' => [0; 5],
        _ => [0b111, 0b001, 0b010, 0b000, 0b010],
    }
}

/// Pixels of one font pixel, each way.
const SCALE: usize = 2;
/// The width of one character with the space after it, in pixels.
pub const ADVANCE: usize = 4 * SCALE;
/// The height of a line of text, in pixels.
pub const HEIGHT: usize = 5 * SCALE;

/// The width of `text` in pixels.
pub fn width(text: &str) -> usize {
    (text.chars().count() * ADVANCE).saturating_sub(SCALE)
}

/// Draw `text` with its top-left corner at (`x`, `y`), each lit pixel through `put`.
pub fn draw(text: &str, x: usize, y: usize, put: &mut impl FnMut(usize, usize)) {
    for (i, c) in text.chars().enumerate() {
        let left = x + i * ADVANCE;
        for (row, bits) in rows(c).iter().enumerate() {
            for column in 0..3 {
                if bits & (0b100 >> column) != 0 {
                    for dy in 0..SCALE {
                        for dx in 0..SCALE {
                            put(left + column * SCALE + dx, y + row * SCALE + dy);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digit_lights_its_pixels_at_twice_the_size() {
        let mut lit = Vec::new();
        draw("1", 10, 20, &mut |x, y| lit.push((x, y)));
        // `1` has 8 lit font pixels, each 2 × 2.
        assert_eq!(lit.len(), 8 * 4);
        assert!(lit.contains(&(12, 20)) && lit.contains(&(13, 21)));
        assert!(lit
            .iter()
            .all(|&(x, y)| (10..16).contains(&x) && (20..30).contains(&y)));
        assert_eq!(width("10"), 14);
    }
}
