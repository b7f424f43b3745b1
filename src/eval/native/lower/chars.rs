//! Characters and strings in registers: the bytes and length of a string (a variable's read
//! in place), and `toupper`/`tolower` and the character classes (`isdigit` …) of a byte, as the
//! evaluator's kernels compute them (`eval::library`).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value as ClValue};

use crate::core::ir::{CharClass, Const, Expr, ExprKind};
use crate::syntax::span::Span;

use super::super::runtime::{Helper, Site};
use super::{args, flags, Lower, V};

impl Lower<'_, '_, '_> {
    /// `len s` (no `index`) or `s.[i]`: a variable's bytes read in place, any other string
    /// computed into a temporary first (a constant's length is a constant). The string is read
    /// before the index (R0011 first), whose evaluation has no effect; a negative index counts
    /// from the end; a variable holding no string gives 0, as the evaluator's kernels do.
    pub(super) fn string_read(&mut self, text: &Expr, index: Option<&Expr>, span: Span) -> V {
        if let (ExprKind::Const(Const::Str(bytes)), None) = (&text.kind, index) {
            return V::I(self.iconst(bytes.len() as i64));
        }
        // An index known not to be negative (a counter from 0) needs no count from the end.
        let from_start = index.is_some_and(|x| self.int_range(x).is_some_and(|(lo, _)| lo >= 0));
        let variable = matches!(text.kind, ExprKind::Local(_) | ExprKind::Global(_));
        let hoisted = super::hoist::base_place(text)
            .filter(|_| variable)
            .and_then(|place| self.views.get(&place))
            .map(|(data, len, _)| (data[0], *len));
        if let Some((data, len)) = hoisted {
            self.check_base(text);
            let inside = index.is_some_and(|x| {
                super::hoist::base_place(text).is_some_and(|place| self.below_count(x, place))
            });
            let i = index.map(|x| self.expr(x).int());
            if let (true, Some(i)) = (inside, i) {
                // Inside the count, so the string is held and `data` its bytes.
                let at = self.b.ins().iadd(data, i);
                return V::I(self.b.ins().uload8(types::I64, flags(), at, 0));
            }
            return self.string_byte(data, len, i, from_start, span);
        }
        let (i, addr, read) = if variable {
            self.check_base(text);
            let i = index.map(|x| self.expr(x).int());
            (i, self.base_addr(text), None)
        } else {
            // Any other string: computed first (as the evaluator does), dropped after.
            let read = self.read_operands(&[text], "a string whose bytes are read");
            let i = index.map(|x| self.expr(x).int());
            (i, read.addrs[0], Some(read))
        };
        let (data, len) = self.string_view(addr);
        let v = self.string_byte(data, len, i, from_start, span);
        if let Some(read) = read {
            self.release_operands(read);
        }
        v
    }

    /// The bytes of the string at `addr` (a slot): their address (null when it holds no
    /// string) and count.
    pub(super) fn string_view(&mut self, addr: ClValue) -> (ClValue, ClValue) {
        let slot = self
            .b
            .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                16,
                3,
            ));
        let out = self.b.ins().stack_addr(types::I64, slot, 0);
        self.call_helper(Helper::StringView, &[types::I64; 2], &[], &[addr, out]);
        let data = self.b.ins().load(types::I64, flags(), out, 0);
        let len = self.b.ins().load(types::I64, flags(), out, 8);
        (data, len)
    }

    /// The count `len` of the bytes at `data` when `i` is `None`, else byte `i` (from the end
    /// when negative, unless `from_start` says it is not), R0001 outside them; 0 when `data`
    /// is null (no string).
    fn string_byte(
        &mut self,
        data: ClValue,
        len: ClValue,
        i: Option<ClValue>,
        from_start: bool,
        span: Span,
    ) -> V {
        let Some(i) = i else {
            return V::I(len);
        };
        // Null bytes come with a count of 0: one unsigned compare admits the read, and the
        // cold path tells no string (0) from a position outside it (R0001).
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        let pos = if from_start {
            i
        } else {
            let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
            let from_end = self.b.ins().iadd(i, len);
            self.b.ins().select(negative, from_end, i)
        };
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, pos, len);
        let (read, outside) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(outside);
        self.b.ins().brif(inside, read, &[], outside, &[]);
        self.b.seal_block(read);
        self.b.seal_block(outside);
        self.b.switch_to_block(outside);
        let held = self.b.ins().icmp_imm_s(IntCC::NotEqual, data, 0);
        self.raise_if(held, Site::StrIndex(span), i, len);
        let zero = self.iconst(0);
        self.b.ins().jump(join, &args(&[zero]));
        self.b.switch_to_block(read);
        let at = self.b.ins().iadd(data, pos);
        let byte = self.b.ins().uload8(types::I64, flags(), at, 0);
        self.b.ins().jump(join, &args(&[byte]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        V::I(self.b.block_params(join)[0])
    }

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

    /// Whether the byte `v` (its low 8 bits) is in `class`, from the evaluator's `char_is`
    /// (1 or 0): a range test when the class is one run of bytes (`isdigit`), a bit of one
    /// word when it lies within 64 bytes (`isalpha`), else a bit of its 256-bit set, the
    /// word picked by the byte's top bits.
    pub(super) fn char_is(&mut self, class: CharClass, v: ClValue) -> ClValue {
        let members: Vec<u8> = (0..=255u8)
            .filter(|&c| crate::eval::library::char_is(class, c))
            .collect();
        let c = self.b.ins().band_imm_u(v, 0xff);
        let (Some(&lo), Some(&hi)) = (members.first(), members.last()) else {
            return self.iconst(0);
        };
        let span = u64::from(hi - lo) + 1;
        if span == members.len() as u64 {
            let off = self.b.ins().iadd_imm_s(c, -i64::from(lo));
            let inside = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, off, span as i64);
            return self.b.ins().uextend(types::I64, inside);
        }
        if span <= 64 {
            let word = members.iter().fold(0u64, |w, &m| w | 1 << (m - lo));
            let off = self.b.ins().iadd_imm_s(c, -i64::from(lo));
            let inside = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, off, 64);
            let inside = self.b.ins().uextend(types::I64, inside);
            let word = self.iconst(word as i64);
            let shifted = self.b.ins().ushr(word, off);
            let bit = self.b.ins().band_imm_u(shifted, 1);
            return self.b.ins().band(bit, inside);
        }
        let mut words = [0u64; 4];
        for m in members {
            words[usize::from(m >> 6)] |= 1 << (m & 63);
        }
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
