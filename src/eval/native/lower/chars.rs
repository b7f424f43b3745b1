//! Characters in registers: `toupper`/`tolower` and the character classes (`isdigit` …) of
//! a byte, as the evaluator's kernels compute them (`eval::library`).

use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value as ClValue};

use crate::core::ir::CharClass;

use super::Lower;

impl Lower<'_, '_, '_> {
    /// `toupper` (`upper`) or `tolower` of the byte `v` (its low 8 bits): an ASCII letter of
    /// the other case moves by 32; any other byte stays.
    pub(super) fn char_case(&mut self, upper: bool, v: ClValue) -> ClValue {
        let c = self.b.ins().band_imm_u(v, 0xff);
        let (first, delta) = if upper { (b'a', -32) } else { (b'A', 32) };
        let off = self.b.ins().iadd_imm_s(c, -i64::from(first));
        let letter = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, off, 26);
        let moved = self.b.ins().iadd_imm_s(c, delta);
        self.b.ins().select(letter, moved, c)
    }

    /// Whether the byte `v` (its low 8 bits) is in `class`: a bit of the class's 256-bit
    /// set, computed from the evaluator's `char_is`, the word picked by the byte's top bits.
    pub(super) fn char_is(&mut self, class: CharClass, v: ClValue) -> ClValue {
        let mut words = [0u64; 4];
        for c in 0..=255u8 {
            if crate::eval::library::char_is(class, c) {
                words[usize::from(c >> 6)] |= 1 << (c & 63);
            }
        }
        let c = self.b.ins().band_imm_u(v, 0xff);
        let words = words.map(|w| self.iconst(w as i64));
        let bit6 = self.b.ins().band_imm_u(c, 64);
        let bit7 = self.b.ins().band_imm_u(c, 128);
        let low = self.b.ins().select(bit6, words[1], words[0]);
        let high = self.b.ins().select(bit6, words[3], words[2]);
        let word = self.b.ins().select(bit7, high, low);
        let shifted = self.b.ins().ushr(word, c);
        self.b.ins().band_imm_u(shifted, 1)
    }
}
