//! The kernels of Felix's dynamic arrays, `varray[T]` (and `darray[T]`, a varray that grows):
//! the prelude's functions of the same meaning call them. Their schemes name the prelude's
//! `varray` and `darray` types.

use super::*;
use crate::core::ir::VarrayOp;

/// The entry of an internal kernel the prelude applies as `name`: it reads or changes the
/// shared elements, so it is an effect (never reordered, hoisted or run in parallel).
const fn kernel(
    name: &'static str,
    scheme: &'static [&'static str],
    tupled: bool,
    select: Select,
    kernels: fn(&Prim) -> Option<usize>,
    doc: &'static str,
) -> PrimDef {
    PrimDef {
        name,
        section: Section::Internal,
        schemes: scheme,
        tupled,
        effect: true,
        doc,
        typing: Typing::Scheme(select),
        kernels,
        ..FUNCTION
    }
}

pub(super) const VARRAY: &[PrimDef] = &[
    PrimDef {
        name: "array",
        schemes: &[
            "[T, K:UNITSUM] varray[T] -> T ^ K",
            "[T, K:UNITSUM] darray[T] -> T ^ K",
        ],
        fresh_sizes: true,
        form: "array v",
        doc: "the elements of the varray or darray v, in order, as an array of a run-time size \
              (its length when it runs); `:>>` reshapes it to a shape of the program's, checked \
              when it runs",
        example: "var v = varray[int] 4uz;\npush_back (v, 3); push_back (v, 5);\nval [n] a = array v;\nprintln$ a, n, (a :>> int ^ 2);",
        typing: Typing::Scheme(|_, _| Some(Prim::Varray(VarrayOp::ToArray))),
        kernels: |p| (*p == Prim::Varray(VarrayOp::ToArray)).then_some(1),
        ..FUNCTION
    },
    kernel(
        "_vnew",
        &["[T] size -> varray[T]"],
        false,
        |_, _| Some(Prim::Varray(VarrayOp::New)),
        |p| (*p == Prim::Varray(VarrayOp::New)).then_some(1),
        "an empty varray of bound n",
    ),
    kernel(
        "_vlen",
        &["[T] varray[T] -> size", "[T] darray[T] -> size"],
        false,
        |_, _| Some(Prim::Varray(VarrayOp::Len)),
        |p| (*p == Prim::Varray(VarrayOp::Len)).then_some(1),
        "the number of elements of a varray",
    ),
    kernel(
        "_vmaxlen",
        &["[T] varray[T] -> size"],
        false,
        |_, _| Some(Prim::Varray(VarrayOp::MaxLen)),
        |p| (*p == Prim::Varray(VarrayOp::MaxLen)).then_some(1),
        "the bound of a varray",
    ),
    kernel(
        "_vget",
        &["[T, I:integer] varray[T] * I -> T", "[T, I:integer] darray[T] * I -> T"],
        true,
        |_, _| Some(Prim::Varray(VarrayOp::Get)),
        |p| (*p == Prim::Varray(VarrayOp::Get)).then_some(2),
        "element i of a varray (R0001 outside `0 ..< len v`)",
    ),
    kernel(
        "_vset",
        &[
            "[T, I:integer] varray[T] * I * T -> void",
            "[T, I:integer] darray[T] * I * T -> void",
        ],
        true,
        |_, _| Some(Prim::Varray(VarrayOp::Set)),
        |p| (*p == Prim::Varray(VarrayOp::Set)).then_some(3),
        "store x at position i of a varray (R0001 outside `0 ..< len v`)",
    ),
    kernel(
        "_vpush",
        &["[T] varray[T] * T -> void", "[T] darray[T] * T -> void"],
        true,
        |_, _| Some(Prim::Varray(VarrayOp::Push)),
        |p| (*p == Prim::Varray(VarrayOp::Push)).then_some(2),
        "append x to a varray (R0009 past its bound)",
    ),
    kernel(
        "_vpop",
        &["[T] varray[T] -> void", "[T] darray[T] -> void"],
        false,
        |_, _| Some(Prim::Varray(VarrayOp::Pop)),
        |p| (*p == Prim::Varray(VarrayOp::Pop)).then_some(1),
        "remove the last element of a varray (R0009 when it is empty)",
    ),
];
