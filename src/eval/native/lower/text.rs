//! Text natively: a chain of string concatenations computed into one new string, or appended
//! in place to the variable it starts with (`s += t`); `str`, `repr` and `_strr` of a value;
//! printing. The operands are read where they live (`read_operands`) and the runtime's text
//! helpers (`native::text`) do the work: only an operand native code does not compute is a
//! fallback piece.

use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value as ClValue};

use crate::core::ir::{Expr, ExprKind, Place, Prim, StrSearch};
use crate::syntax::span::Span;
use crate::types::Type;

use super::super::runtime::Helper;
use super::super::text::{Concat, FileOp, Parse, Search, Shown, Slice};
use super::{flags, Lower, V};
use crate::eval::native::Repr;

impl Lower<'_, '_, '_> {
    /// The addresses `addrs` stored in a stack array, its address returned.
    fn address_list(&mut self, addrs: &[ClValue]) -> ClValue {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (addrs.len().max(1) * 8) as u32,
            3,
        ));
        let list = self.b.ins().stack_addr(types::I64, slot, 0);
        for (i, at) in addrs.iter().enumerate() {
            self.b.ins().store(flags(), *at, list, (i * 8) as i32);
        }
        list
    }

    /// Call the text helper `helper` (rt, concat, parts, n, target) on the operands `parts`
    /// of a chain of concatenations (`string_parts`) at `span`: each read where it lives, a
    /// scalar's `str x` (and a char's one-byte string) as `x` rendered by the helper into the
    /// result; unwinding when it fails.
    fn strings_helper(&mut self, helper: Helper, span: Span, parts: &[&Expr], target: ClValue) {
        let mut operands = Vec::with_capacity(parts.len());
        let mut rendered = Vec::with_capacity(parts.len());
        for part in parts {
            match &part.kind {
                ExprKind::Prim(Prim::Str, x)
                    if x.len() == 1
                        && matches!(Repr::of(&x[0].ty), Some(Repr::I64 | Repr::F64)) =>
                {
                    operands.push(&x[0]);
                    rendered.push(Some(x[0].ty.clone()));
                }
                // A char as a one-byte string (`s + c`) is its `str`.
                ExprKind::Prim(Prim::CharToStr, x) if x.len() == 1 && x[0].ty == Type::Char => {
                    operands.push(&x[0]);
                    rendered.push(Some(Type::Char));
                }
                _ => {
                    operands.push(*part);
                    rendered.push(None);
                }
            }
        }
        let read = self.read_operands(&operands, "an operand of a string concatenation");
        let list = self.address_list(&read.addrs);
        let concat = self.keep(Concat { span, rendered });
        let concat = self.ptr_const(concat);
        let n = self.iconst(parts.len() as i64);
        let rt = self.rt;
        let status = self
            .call_helper(
                helper,
                &[types::I64; 5],
                &[types::I32],
                &[rt, concat, list, n, target],
            )
            .expect("a text helper returns a status");
        self.branch_unwind_if(status);
        self.release_operands(read);
    }

    /// A chain of string concatenations `a + b + …` (however nested) into the value at `out`:
    /// its operands in order, then one string of their total size. `out` is replaced only
    /// then, so it may be one of the operands.
    pub(super) fn concat_into(&mut self, e: &Expr, out: ClValue) {
        let parts = crate::eval::prims::string_parts(e);
        self.strings_helper(Helper::ConcatStrings, e.span, &parts, out);
    }

    /// `place = place + t1 + … + tn` (`string_append_tails`) on a string variable held in its
    /// slot (a local) or a global: the variable is checked for a value first, as the
    /// evaluator reads it first, then the tails are computed and appended in place.
    pub(super) fn append_into(&mut self, place: Place, value: &Expr, tails: &[&Expr]) {
        let addr = match place {
            Place::Local(slot) => {
                self.frame_used = true;
                self.slot_addr(slot)
            }
            Place::Global(g) => {
                let first = crate::eval::prims::string_parts(value)[0];
                self.check_global_set(g, &value.ty, first.span);
                self.global_addr(g)
            }
            Place::LocalCell(_) | Place::CaptureCell(_) => {
                unreachable!("the caller passes a variable held in its slot")
            }
        };
        self.strings_helper(Helper::AppendStrings, value.span, tails, addr);
    }

    /// A number read from the string `x` (`int s`, `double s`; `parse_int s`, `parse_double
    /// s` when `checked`): the string read where it lives (or computed first), the evaluator's
    /// conversion or parse run on it by the runtime. A substring of it by integer bounds
    /// (`int (s.[a to b])`) is read where the string lives, never made.
    pub(super) fn parse_text(&mut self, x: &Expr, e: &Expr, repr: Repr, checked: bool) -> V {
        let (operands, slice) = match &x.kind {
            ExprKind::Prim(Prim::StrSlice { from, to }, a) if super::boxed::sliced_natively(x) => {
                (a.iter().collect(), Some(self.slice_of(*from, *to, &a[1..])))
            }
            _ => (vec![x], None),
        };
        let read = self.read_operands(&operands, "the text of a conversion to a number");
        let list = self.address_list(&read.addrs);
        let parse = self.keep(Parse {
            to: e.ty.clone(),
            repr,
            checked,
            span: e.span,
            slice,
        });
        let parse = self.ptr_const(parse);
        let rt = self.rt;
        let bits = self
            .call_helper(
                Helper::ParseText,
                &[types::I64; 3],
                &[types::I64],
                &[rt, parse, list],
            )
            .expect("parse_text returns bits");
        self.check_failed();
        self.release_operands(read);
        self.bits_value(bits, repr)
    }

    /// `stl_find (s, e)` and its family (`find`, `rfind`, …; args `s`, `e`, and the position
    /// when `from`): the operands read or computed in order, the evaluator's search run on them
    /// by the runtime; the position found, or -1.
    pub(super) fn search_text(&mut self, how: StrSearch, from: bool, operands: &[Expr]) -> V {
        let all: Vec<&Expr> = operands.iter().collect();
        let read = self.read_operands(&all, "an operand of a search in a string");
        let list = self.address_list(&read.addrs);
        let search = self.keep(Search {
            how,
            char_needle: operands[1].ty == Type::Char,
            from,
        });
        let search = self.ptr_const(search);
        let rt = self.rt;
        let position = self
            .call_helper(
                Helper::SearchText,
                &[types::I64; 3],
                &[types::I64],
                &[rt, search, list],
            )
            .expect("search_text returns a position");
        self.check_failed();
        self.release_operands(read);
        V::I(position)
    }

    /// A substring `s.[a to b]` (either bound may be absent) into the value at `out`: the
    /// string and its bounds read or computed in order, the evaluator's kernel run on them.
    pub(super) fn slice_into(&mut self, from: bool, to: bool, operands: &[Expr], out: ClValue) {
        let all: Vec<&Expr> = operands.iter().collect();
        let read = self.read_operands(&all, "an operand of a substring");
        let list = self.address_list(&read.addrs);
        let slice = self.slice_of(from, to, &operands[1..]);
        let slice = self.keep(slice);
        let slice = self.ptr_const(slice);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::SliceText,
                &[types::I64; 4],
                &[types::I32],
                &[rt, slice, list, out],
            )
            .expect("slice_text returns a status");
        self.branch_unwind_if(status);
        self.release_operands(read);
    }

    /// `write (f, s)` or `writeln (f, s)` (`newline`) of a string: the handle and the string
    /// read or computed in order, the runtime's write.
    pub(super) fn write_text(&mut self, newline: bool, operands: &[Expr], span: Span) -> V {
        let all: Vec<&Expr> = operands.iter().collect();
        let read = self.read_operands(&all, "an operand of a write");
        let list = self.address_list(&read.addrs);
        let op = self.keep(FileOp { newline, span });
        let op = self.ptr_const(op);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::WriteText,
                &[types::I64; 3],
                &[types::I32],
                &[rt, op, list],
            )
            .expect("write_text returns a status");
        self.branch_unwind_if(status);
        self.release_operands(read);
        V::Unit
    }

    /// `readln f` into the value at `out`: the handle read or computed, the runtime's read.
    pub(super) fn read_line_into(&mut self, f: &Expr, span: Span, out: ClValue) {
        let read = self.read_operands(&[f], "the file of a readln");
        let op = self.keep(FileOp {
            newline: false,
            span,
        });
        let op = self.ptr_const(op);
        let rt = self.rt;
        let status = self
            .call_helper(
                Helper::ReadLine,
                &[types::I64; 4],
                &[types::I32],
                &[rt, op, read.addrs[0], out],
            )
            .expect("read_line returns a status");
        self.branch_unwind_if(status);
        self.release_operands(read);
    }

    /// The substring that has the bounds `from` and `to` (integers, `bounds`).
    fn slice_of(&self, from: bool, to: bool, bounds: &[Expr]) -> Slice {
        let bound_tys = bounds
            .iter()
            .map(|b| match b.ty {
                Type::Int(ity) => ity,
                _ => unreachable!("checked by the caller: integer bounds"),
            })
            .collect();
        Slice {
            from,
            to,
            bound_tys,
        }
    }

    /// `str x`, `repr x` or `_strr x` into the value at `out`.
    pub(super) fn show_into(&mut self, p: &Prim, x: &Expr, span: Span, out: ClValue) {
        let mut shown = Shown::new(&x.ty, span);
        shown.render = match p {
            Prim::Repr => crate::eval::format::repr_value_bytes,
            Prim::Strr => crate::eval::format::strr_value_bytes,
            _ => crate::eval::format::str_value_bytes,
        };
        self.shown_helper(Helper::ShowValue, shown, x, Some(out));
    }

    /// `print x` or `println x` of a value of any type.
    pub(super) fn print(&mut self, x: &Expr, newline: bool, span: Span) {
        let mut shown = Shown::new(&x.ty, span);
        shown.newline = newline;
        self.shown_helper(Helper::PrintValue, shown, x, None);
    }

    /// Call `helper` (rt, shown, the value of `x`, then `out` if any), unwinding when it fails.
    fn shown_helper(&mut self, helper: Helper, shown: Shown, x: &Expr, out: Option<ClValue>) {
        let read = self.read_operands(&[x], "the operand of a conversion to text or a print");
        let shown = self.keep(shown);
        let shown = self.ptr_const(shown);
        let mut values = vec![self.rt, shown, read.addrs[0]];
        values.extend(out);
        let status = self
            .call_helper(
                helper,
                &vec![types::I64; values.len()],
                &[types::I32],
                &values,
            )
            .expect("a text helper returns a status");
        self.branch_unwind_if(status);
        self.release_operands(read);
    }
}
