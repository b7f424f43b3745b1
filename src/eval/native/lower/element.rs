//! Array elements by index: the path of an element access (`a.(i).(j)`, `*p.i`, through a
//! pointer variable or in a captured variable's cell), its checks and leaf position, the view
//! of the array's leaves, and element reads.

use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, types, Block, InstBuilder, Value as ClValue};

use crate::core::ir::{ArithOp, Expr, ExprKind, IndexMode, PathStep, Prim};
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::runtime::{Helper, Site};
use super::hoist::Outside;
use super::leaves::scalar_kind;
use super::{args, flags, Lower, V};
use crate::eval::array::Shape;
use crate::eval::native::Repr;
use crate::eval::value::LeafRepr;

/// The steps of an element access `base.(i).(j)...`: the base variable and, outermost array
/// first, each index with its array type. The base variable holds the array, or, when
/// `pointer`, a pointer to it (`*p.i`, `(*p).i`, `p.i <- v`).
pub(super) struct ElementPath<'e> {
    pub base: &'e Expr,
    pub pointer: bool,
    pub steps: Vec<(&'e Expr, IndexMode, Type)>,
}

/// The operation of an index whose range check `linear_index` folds into its bounds check:
/// an arithmetic operation and its operands, or a conversion between integer types (and the
/// operand's type).
enum Folded {
    Arith(ArithOp, IntTy, ClValue, ClValue),
    Convert(IntTy, IntTy, Type),
}

/// The kind of the scalar leaves of an element path `element_path_ok` accepted.
pub(super) fn path_kind(path: &ElementPath<'_>) -> crate::eval::value::ScalarKind {
    path.steps
        .first()
        .and_then(|(_, _, t)| scalar_kind(t))
        .expect("checked by element_path_ok: scalar leaves")
}

impl<'e> ElementPath<'e> {
    /// The path of an `Index` chain ending in a scalar of an array of unboxed leaves, read
    /// from a variable (a captured one too) or through a pointer variable (`*p.i.j`,
    /// `(*p).i`).
    pub fn of(e: &'e Expr) -> Option<ElementPath<'e>> {
        let mut steps = Vec::new();
        let mut at = e;
        while let ExprKind::Index { array, index, mode } = &at.kind {
            steps.push((&**index, *mode, array.ty.clone()));
            at = array;
        }
        steps.reverse();
        if let ExprKind::Deref(pointer) = &at.kind {
            let mut path = ElementPath::through(pointer)?;
            path.steps.extend(steps);
            return (!path.steps.is_empty()).then_some(path);
        }
        let variable = matches!(
            at.kind,
            ExprKind::Local(_)
                | ExprKind::Global(_)
                | ExprKind::Capture(_)
                | ExprKind::LocalCell(_)
                | ExprKind::CaptureCell(_)
        );
        if steps.is_empty() || !variable {
            return None;
        }
        Some(ElementPath {
            base: at,
            pointer: false,
            steps,
        })
    }

    /// The path a pointer expression designates: a pointer variable, or its projection
    /// `p.(i).(j)` by indices.
    pub fn through(pointer: &'e Expr) -> Option<ElementPath<'e>> {
        match &pointer.kind {
            ExprKind::PtrProject { pointer, path } => ElementPath::through_steps(pointer, path),
            _ => ElementPath::through_steps(pointer, &[]),
        }
    }

    /// The path of a pointer variable `base` projected by indices `path`.
    pub fn through_steps(base: &'e Expr, path: &'e [PathStep]) -> Option<ElementPath<'e>> {
        if !matches!(base.kind, ExprKind::Local(_) | ExprKind::Global(_)) {
            return None;
        }
        let (_, mut container) = base.ty.pointee()?;
        let mut steps = Vec::new();
        for step in path {
            let (PathStep::Index(index, mode), Type::Array(elem, _)) = (step, container) else {
                return None;
            };
            steps.push((index, *mode, container.clone()));
            container = elem;
        }
        Some(ElementPath {
            base,
            pointer: true,
            steps,
        })
    }
}

impl Lower<'_, '_, '_> {
    /// Are the arrays of an element path of unboxed leaves of `repr`, with known sizes?
    pub(super) fn element_path_ok(&self, path: &ElementPath<'_>, repr: Repr) -> bool {
        let Some(kind) = path.steps.first().and_then(|(_, _, t)| scalar_kind(t)) else {
            return false;
        };
        let fits = match repr {
            Repr::I64 => !kind.is_float(),
            Repr::F64 => kind.is_float(),
            Repr::Unit | Repr::Ref => false,
        };
        fits && self.leaf_path_ok(path, LeafRepr::Scalar(kind))
    }

    /// Are the arrays of an element path stored as `leaves` (scalars, or the columns of
    /// tuples of scalars), with known sizes?
    pub(super) fn leaf_path_ok(&self, path: &ElementPath<'_>, leaves: LeafRepr) -> bool {
        match path.base.kind {
            ExprKind::Local(s) if self.vars.contains_key(&s) || self.avars.contains_key(&s) => {
                return false;
            }
            ExprKind::Capture(i) | ExprKind::CaptureCell(i) if i as usize >= self.n_captures => {
                return false
            }
            _ => {}
        }
        // An access through a pointer may run again on the closure compiler (a target native
        // code cannot view): its indices must have no effect.
        let mut scratch = std::collections::HashMap::new();
        path.steps.iter().all(|(index, _, array_ty)| {
            Repr::of(&index.ty) == Some(Repr::I64)
                && (!path.pointer || self.closed_expr(index, &mut scratch))
                && Shape::of(array_ty).is_some_and(|s| {
                    s.repr == leaves && s.n_elements.is_some() && s.elem_leaves != usize::MAX
                })
        })
    }

    /// The address of the `Value` holding the base array of a path.
    pub(super) fn base_addr(&mut self, base: &Expr) -> ClValue {
        match base.kind {
            ExprKind::Local(s) => {
                self.frame_used = true;
                self.slot_addr(s)
            }
            ExprKind::Global(s) => self.global_addr(s),
            // A captured variable: the cell, which the view helpers see through.
            ExprKind::LocalCell(s) => {
                self.frame_used = true;
                self.slot_addr(s)
            }
            ExprKind::Capture(i) | ExprKind::CaptureCell(i) => self.capture_addr(i),
            _ => unreachable!("an element path starts at a variable"),
        }
    }

    /// The leaf position of an element path, each linear index checked (R0001 at the
    /// index); compact indices are codes of the index type, so below its size: no check.
    pub(super) fn leaf_position(&mut self, path: &ElementPath<'_>) -> ClValue {
        let mut pos = self.iconst(0);
        for (index, mode, array_ty) in &path.steps {
            let shape = Shape::of(array_ty).expect("checked by element_path_ok");
            let n = shape.n_elements.unwrap_or(0);
            let i = if *mode == IndexMode::Linear {
                self.linear_index(index, array_ty, n)
            } else {
                self.expr(index).int()
            };
            let scaled = if shape.elem_leaves == 1 {
                i
            } else {
                self.b.ins().imul_imm_s(i, shape.elem_leaves as i64)
            };
            pos = self.b.ins().iadd(pos, scaled);
        }
        pos
    }

    /// The value of the linear index `index` into an array of type `array_ty` of `n`
    /// elements, R0001 at the index unless it is below `n`. No check when what is known of
    /// the index (`ranges.rs`) puts it below `n`.
    ///
    /// An index whose last operation has a range check of its own, into a type whose every
    /// value below `n` is in range, has that check folded into the bounds check: `+`, `-` or
    /// `*` on an integer type narrower than 64 bits (`a.(k - 1)`, `a.(i * n + j)`), exact in
    /// 64 bits, and a conversion between integer types (`a.(j.int)`). A result below `n` is
    /// in range, so one test decides both on the hot path. The cold path tells them apart,
    /// the operation's fault first, as it came before the access; no code runs between the
    /// operation and the test, so the faults are the same.
    pub(super) fn linear_index(&mut self, index: &Expr, array_ty: &Type, n: usize) -> ClValue {
        if self.index_in_range(index, n) {
            return self.expr(index).int();
        }
        let site = Site::Index {
            array_ty: array_ty.clone(),
            n,
            linear: Some(match index.ty {
                Type::Int(ity) => ity,
                _ => IntTy::Long,
            }),
            span: index.span,
        };
        let (i, folded) = match self.foldable_index(index, n) {
            Some((i, folded)) => (i, Some(folded)),
            None => (self.expr(index).int(), None),
        };
        let plain = folded.is_none();
        if plain && self.checked_below(i, n) {
            return i;
        }
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, n as i64);
        let next = self.cold_if(bad);
        let zero = self.iconst(0);
        match folded {
            None => {}
            Some(Folded::Arith(op, ity, x, y)) => {
                let overflow = self.out_of_range(i, ity);
                self.raise_if(overflow, Site::Overflow(op, ity, index.span), x, y);
            }
            // A widening conversion has no check.
            Some(Folded::Convert(from, to, _))
                if from.min() >= to.min() && from.max() <= to.max() => {}
            Some(Folded::Convert(from, to, converted)) => {
                let out = self.int_convert_fails(i, from, to);
                let site = Site::Convert(converted, index.ty.clone(), index.span);
                self.raise_if(out, site, i, zero);
            }
        }
        self.raise(site, i, zero);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
        if plain {
            self.note_checked_below(i, n);
        }
        i
    }

    /// Was the value `i` tested below `n` in code that dominates this point: earlier in this
    /// run of blocks, each entered from the one before past a test (`StraightRuns`)? Two
    /// accesses at one index (`a.i` read, then `&a.i <- v`) test it once.
    fn checked_below(&mut self, i: ClValue, n: usize) -> bool {
        let run = self.b.current_block().and_then(|b| self.straight.run_of(b));
        run.is_some() && self.straight.checked.get(&(i, n)) == run.as_ref()
    }

    /// Note that `i` is below `n` from here on, in this run of blocks.
    fn note_checked_below(&mut self, i: ClValue, n: usize) {
        if let Some(block) = self.b.current_block() {
            let run = self.straight.run_or_new(block);
            self.straight.checked.insert((i, n), run);
        }
    }

    /// The value of `index`, computed without the range check of its last operation, when
    /// the bounds check of an array of `n` elements can decide it (`linear_index`).
    fn foldable_index(&mut self, index: &Expr, n: usize) -> Option<(ClValue, Folded)> {
        let Type::Int(ity) = index.ty else {
            return None;
        };
        if n as i128 > IntTy::max(ity) + 1 {
            return None;
        }
        let int = |x: &Expr| matches!(x.ty, Type::Int(_));
        match &index.kind {
            ExprKind::Prim(Prim::IntArith(op, ity), operands) => {
                let exact =
                    matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul) && ity.bits() < 64;
                let [x, y] = &operands[..] else {
                    return None;
                };
                if !exact || !int(x) || !int(y) {
                    return None;
                }
                let x = self.expr(x).int();
                let y = self.expr(y).int();
                let r = match op {
                    ArithOp::Add => self.b.ins().iadd(x, y),
                    ArithOp::Sub => self.b.ins().isub(x, y),
                    _ => self.b.ins().imul(x, y),
                };
                Some((r, Folded::Arith(*op, *ity, x, y)))
            }
            ExprKind::Prim(Prim::Convert, operands) => {
                let [x] = &operands[..] else {
                    return None;
                };
                let Type::Int(from) = x.ty else {
                    return None;
                };
                let v = self.expr(x).int();
                Some((v, Folded::Convert(from, ity, x.ty.clone())))
            }
            _ => None,
        }
    }
    /// The view of the array in the `Value` at `addr` (or, when `pointer`, of the array the
    /// pointer there points at): its leaves' address and count, made unshared first when
    /// `write`. A pointer's view is null when native code cannot see its target.
    pub(super) fn view(&mut self, addr: ClValue, write: bool, pointer: bool) -> (ClValue, ClValue) {
        let out = self.leaf_buffer(2);
        let helpers = (Helper::ArrayView, Helper::PointerView);
        self.call_view(helpers, addr, write, pointer, out);
        let data = self.b.ins().load(types::I64, flags(), out, 0);
        let len = self.b.ins().load(types::I64, flags(), out, 8);
        (data, len)
    }

    /// Call the view helper `helpers.0` (`(value, write, out)`) of the array in the value at
    /// `addr` or, when `pointer`, `helpers.1` (`(rt, pointer, write, out)`) of the array the
    /// pointer there points at; the helper writes the view's words to `out`.
    pub(super) fn call_view(
        &mut self,
        (plain, through): (Helper, Helper),
        addr: ClValue,
        write: bool,
        pointer: bool,
        out: ClValue,
    ) {
        let write = self.b.ins().iconst(types::I32, write as i64);
        if pointer {
            let rt = self.rt;
            self.call_helper(
                through,
                &[types::I64, types::I64, types::I32, types::I64],
                &[],
                &[rt, addr, write, out],
            );
        } else {
            self.call_helper(
                plain,
                &[types::I64, types::I32, types::I64],
                &[],
                &[addr, write, out],
            );
        }
    }

    /// When the view `data` of a pointer path is null (a target native code cannot see),
    /// run `fallback` in a cold block, which ends it; lowering goes on in the other branch.
    pub(super) fn unviewable(&mut self, data: ClValue, fallback: impl FnOnce(&mut Self)) {
        let cold = self.b.create_block();
        let next = self.b.create_block();
        self.b.set_cold_block(cold);
        self.b.ins().brif(data, next, &[], cold, &[]);
        self.b.seal_block(cold);
        self.b.switch_to_block(cold);
        let notes = self.notes.len();
        fallback(self);
        self.notes.truncate(notes);
        self.b.seal_block(next);
        self.b.switch_to_block(next);
    }

    /// The variable an element path starts at is read before its indices: a global whose
    /// declaration has not run is R0011 first.
    pub(super) fn check_base(&mut self, base: &Expr) {
        if let ExprKind::Global(s) = base.kind {
            self.check_global_set(s, &base.ty, base.span);
        }
    }

    /// Read an element of an array of unboxed scalar leaves (`e`, whose path is `path`).
    pub(super) fn element_read(&mut self, e: &Expr, path: &ElementPath<'_>, repr: Repr) -> V {
        self.check_base(path.base);
        let pos = self.leaf_position(path);
        let join = self.b.create_block();
        let ty = repr.clif().unwrap_or(types::I64);
        self.b.append_block_param(join, ty);
        let slow = std::cell::Cell::new(false);
        let unviewable = |l: &mut Self| {
            slow.set(true);
            let v = l.fallback_expr(e, "");
            l.b.ins().jump(join, &args(&[v.int()]));
        };
        let data = self.checked_view(path, false, None, pos, unviewable, Outside::Raise);
        let kind = path_kind(path);
        let at = self.leaf_addr(kind, data[0], pos);
        let v = self.load_leaf(kind, at).int();
        if let (false, Some(block)) = (slow.get(), self.b.current_block()) {
            self.straight.continue_into(block, join);
        }
        self.b.ins().jump(join, &args(&[v]));
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.join_value(join, repr)
    }
}

/// Runs of blocks that straight-line code continues through past tests: a block a failed
/// test leaves for a cold one, and the block the test goes on to, which only it enters
/// (`Lower::cold_if`), are in one run, so what was tested in the first holds in the second.
/// The values tested below a bound in a run, for the accesses after the test.
#[derive(Default)]
pub(super) struct StraightRuns {
    runs: HashMap<Block, u32>,
    checked: HashMap<(ClValue, usize), u32>,
    count: u32,
    /// How many stores skip to the block after them when their position is outside the
    /// view (`Outside::Skip`): that block is then entered from two places.
    pub(super) skips: u32,
}

impl StraightRuns {
    fn run_of(&self, block: Block) -> Option<u32> {
        self.runs.get(&block).copied()
    }

    fn run_or_new(&mut self, block: Block) -> u32 {
        let count = &mut self.count;
        *self.runs.entry(block).or_insert_with(|| {
            *count += 1;
            *count
        })
    }

    /// `next` goes on from `block` past a test, and is entered only from there.
    pub(super) fn continue_into(&mut self, block: Block, next: Block) {
        if let Some(run) = self.run_of(block) {
            self.runs.insert(next, run);
        }
    }
}
