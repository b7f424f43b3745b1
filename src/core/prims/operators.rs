//! The operators, conversions, coercions and internal kernels of the primitive table, each
//! section in the order of the library reference.

use super::*;
use crate::core::ir::CmpOp;

pub(super) const OPERATORS: &[PrimDef] = &[
    PrimDef {
        name: "+",
        schemes: &[
            "[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)",
            "string * string -> string",
            "[T, N:UNITSUM, M:UNITSUM, K:UNITSUM] T ^ N * T ^ M -> T ^ K where K = N `+ M",
        ],
        form: "x + y",
        doc: "sum (integer operands promote); string concatenation; array concatenation",
        example: "println$ 1i8 + 2i32;",
        typing: Typing::Operator(|a, r| arith_kernel(ArithOp::Add, a, r)),
        kernels: |p| {
            matches!(
                p,
                Prim::IntArith(ArithOp::Add, _)
                    | Prim::FloatArith(ArithOp::Add, _)
                    | Prim::NatArith(ArithOp::Add)
                    | Prim::StrConcat
                    | Prim::Concat
            )
            .then_some(2)
        },
        ..OPERATOR
    },
    PrimDef {
        name: "-",
        schemes: ARITH,
        form: "x - y",
        doc: "difference",
        example: "println$ 5 - 7;",
        typing: Typing::Operator(|a, r| arith_kernel(ArithOp::Sub, a, r)),
        kernels: |p| {
            matches!(
                p,
                Prim::IntArith(ArithOp::Sub, _)
                    | Prim::FloatArith(ArithOp::Sub, _)
                    | Prim::NatArith(ArithOp::Sub)
            )
            .then_some(2)
        },
        ..OPERATOR
    },
    PrimDef {
        name: "*",
        schemes: &[
            "[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)",
            "[I:integer] string * I -> string",
        ],
        form: "x * y",
        doc: "product; s * n: s repeated n times",
        example: "println$ 6 * 7;",
        typing: Typing::Operator(|a, r| arith_kernel(ArithOp::Mul, a, r)),
        kernels: |p| {
            matches!(
                p,
                Prim::IntArith(ArithOp::Mul, _)
                    | Prim::FloatArith(ArithOp::Mul, _)
                    | Prim::NatArith(ArithOp::Mul)
                    | Prim::StrRepeat
            )
            .then_some(2)
        },
        ..OPERATOR
    },
    PrimDef {
        name: "/",
        schemes: ARITH,
        form: "x / y",
        doc: "quotient (integers truncate toward zero)",
        example: "println$ 7 / 2;",
        typing: Typing::Operator(|a, r| arith_kernel(ArithOp::Div, a, r)),
        kernels: |p| {
            matches!(
                p,
                Prim::IntArith(ArithOp::Div, _)
                    | Prim::FloatArith(ArithOp::Div, _)
                    | Prim::NatArith(ArithOp::Div)
            )
            .then_some(2)
        },
        ..OPERATOR
    },
    PrimDef {
        name: "%",
        schemes: ARITH,
        form: "x % y",
        doc: "remainder, with the sign of x",
        example: "println$ -7 % 2;",
        typing: Typing::Operator(|a, r| arith_kernel(ArithOp::Mod, a, r)),
        kernels: |p| {
            matches!(
                p,
                Prim::IntArith(ArithOp::Mod, _)
                    | Prim::FloatArith(ArithOp::Mod, _)
                    | Prim::NatArith(ArithOp::Mod)
            )
            .then_some(2)
        },
        ..OPERATOR
    },
    PrimDef {
        name: "neg",
        schemes: &["[T:integer] T -> T", "[T:floating] T -> T"],
        form: "-x",
        doc: "negation",
        example: "println$ -(3);",
        typing: Typing::Operator(|a, _| match &a[0] {
            Type::Int(i) => Some(Prim::IntNeg(*i)),
            t => single(t).map(|_| Prim::FloatNeg),
        }),
        kernels: |p| matches!(p, Prim::IntNeg(_) | Prim::FloatNeg).then_some(1),
        ..OPERATOR
    },
    PrimDef {
        name: "==",
        schemes: EQ_SCHEMES,
        form: "x == y",
        doc: "equality (any type with equality)",
        example: "println$ (1, 2) == (1, 2);",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Eq))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Eq)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "!=",
        schemes: EQ_SCHEMES,
        form: "x != y",
        doc: "inequality",
        example: "println$ 1 != 2;",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Ne))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Ne)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "<",
        schemes: CMP_SCHEMES,
        form: "x < y",
        doc: "order (numbers, strings, compact values by code, tuples and arrays \
            lexicographically)",
        example: "println$ \"a\" < \"b\";",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Lt))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Lt)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "<=",
        schemes: CMP_SCHEMES,
        form: "x <= y",
        example: "println$ 2 <= 2;",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Le))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Le)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: ">",
        schemes: CMP_SCHEMES,
        form: "x > y",
        example: "println$ 3 > 2;",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Gt))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Gt)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: ">=",
        schemes: CMP_SCHEMES,
        form: "x >= y",
        example: "println$ 3 >= 4;",
        typing: Typing::Operator(|_, _| Some(Prim::Compare(CmpOp::Ge))),
        kernels: |p| (*p == Prim::Compare(CmpOp::Ge)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "not",
        schemes: &["bool -> bool"],
        form: "not b",
        doc: "negation",
        example: "println$ not true;",
        typing: Typing::Operator(|_, _| Some(Prim::Not)),
        kernels: |p| (*p == Prim::Not).then_some(1),
        ..OPERATOR
    },
    PrimDef {
        name: "\\&",
        schemes: BITS,
        form: "a \\& b",
        doc: "bitwise and of unsigned integers",
        example: "println$ 12u \\& 10u;",
        typing: Typing::Operator(|a, _| bit_kernel(BitOp::And, a)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::And, _)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "\\|",
        schemes: BITS,
        form: "a \\| b",
        doc: "bitwise or",
        example: "println$ 12u \\| 10u;",
        typing: Typing::Operator(|a, _| bit_kernel(BitOp::Or, a)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Or, _)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "\\^",
        schemes: BITS,
        form: "a \\^ b",
        doc: "bitwise exclusive or",
        example: "println$ 12u \\^ 10u;",
        typing: Typing::Operator(|a, _| bit_kernel(BitOp::Xor, a)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Xor, _)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "<<",
        schemes: SHIFTS,
        form: "a << n",
        doc: "shift left",
        example: "println$ 1 << 4;",
        typing: Typing::Operator(|a, _| bit_kernel(BitOp::Shl, a)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Shl, _)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: ">>",
        schemes: SHIFTS,
        form: "a >> n",
        doc: "shift right",
        example: "println$ 256 >> 4;",
        typing: Typing::Operator(|a, _| bit_kernel(BitOp::Shr, a)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Shr, _)).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "~",
        schemes: &["[T:unsigned] T -> T"],
        form: "~a",
        doc: "the complement within the width of an unsigned type",
        example: "println$ ~0u8;",
        typing: Typing::Operator(|a, _| int_of(&a[0]).map(Prim::IntCompl)),
        kernels: |p| matches!(p, Prim::IntCompl(_)).then_some(1),
        ..OPERATOR
    },
    PrimDef {
        name: "\\in",
        schemes: &[
            "[T:equality, N:COMPACTLINEAR] T * T ^ N -> bool",
            "char * string -> bool",
        ],
        form: "e \\in a",
        doc: "is an element of a equal to e; c \\in s: does the byte c occur in s",
        example: "println$ 2 \\in (1, 2, 3);",
        typing: Typing::Operator(|a, _| match &a[1] {
            Type::String => Some(Prim::StrHasChar),
            _ => Some(Prim::ArrayHas),
        }),
        kernels: |p| matches!(p, Prim::ArrayHas | Prim::StrHasChar).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: ".[]",
        schemes: &["[I:integer] string * I -> char"],
        form: "s.[i]",
        doc: "the byte at i, a char; negative i counts from the end",
        example: "println$ \"abc\".[1];",
        typing: Typing::Operator(|_, _| Some(Prim::StrIndex)),
        kernels: |p| (*p == Prim::StrIndex).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: ".[to]",
        schemes: &[
            "[I:integer, J:integer] string * I * J -> string",
            "[I:integer] string * I -> string",
            "string -> string",
        ],
        form: "s.[i to j], s.[i to], s.[to j]",
        doc: "a substring, bounds clamped; negative bounds count from the end",
        kernels: |p| match p {
            Prim::StrSlice { from, to } => Some(1 + *from as usize + *to as usize),
            _ => None,
        },
        ..OPERATOR
    },
    PrimDef {
        name: "caseno",
        schemes: &["[T] T -> int"],
        form: "caseno v",
        doc: "the summand index of a sum, variant, unitsum or bool value",
        example: "println$ caseno (case 1 of 3);",
        typing: Typing::Operator(|_, _| Some(Prim::Caseno)),
        kernels: |p| (*p == Prim::Caseno).then_some(1),
        ..OPERATOR
    },
    PrimDef {
        name: "assert",
        schemes: &["bool -> void"],
        form: "assert c;",
        doc: "R0009 when c is false",
        example: "assert 1 < 2;",
        typing: Typing::Operator(|_, _| Some(Prim::Assert)),
        kernels: |p| (*p == Prim::Assert).then_some(1),
        ..OPERATOR
    },
    PrimDef {
        name: "f\"\"",
        schemes: &["[T] string * T -> string"],
        form: "f\"…\" x",
        doc: "C's printf conversions applied to x; the format is a constant the checker reads",
        kernels: |p| (*p == Prim::Format).then_some(2),
        ..OPERATOR
    },
    PrimDef {
        name: "convert",
        schemes: &["[T, U] T -> U"],
        form: "T x, x.T",
        doc: "an explicit conversion to the type T (numbers to numbers, strings to numbers, char \
            and integers, string and char, integers to natural)",
        kernels: |p| matches!(p, Prim::Convert | Prim::CharToStr).then_some(1),
        side: Some(Side::Convertible),
        ..CONVERSION
    },
    PrimDef {
        name: "widen",
        schemes: &["[T:integer, U:integer] T -> U"],
        doc: "an implicit widening int8 → int16 → int32 → int64, int → long → vlong",
        kernels: |p| (*p == Prim::Widen).then_some(1),
        side: Some(Side::Widens),
        ..CONVERSION
    },
    PrimDef {
        name: "upcast",
        schemes: &["[T, U] T -> U"],
        doc: "a record argument passed where a supertype is expected, a struct built from a \
            record, a read-write pointer where a read-only or write-only one is expected",
        kernels: |p| (*p == Prim::Upcast).then_some(1),
        side: Some(Side::Upcast),
        ..INTERNAL
    },
    PrimDef {
        name: ":>> decode",
        schemes: &[
            "[I:integer, C:COMPACTLINEAR] I -> C",
            "[C:COMPACTLINEAR] natural -> C",
            "[C:COMPACTLINEAR] string -> C",
        ],
        doc: "n :>> C is the value of the compact type C whose code is n (an integer, a natural, \
            or a string of decimal digits); R0002 outside 0 .. size - 1",
        example: "println$ (5 :>> 2 \\* 3)._strr;",
        typing: Typing::Coerce(Coercer::Decode),
        ..COERCION
    },
    PrimDef {
        name: ":>> reinterpret",
        schemes: &["[A:COMPACTLINEAR, B:COMPACTLINEAR] A -> B"],
        doc: "a compact value as another compact type of the same size, the code kept (E0502 when \
            the sizes differ)",
        example: "println$ ((`1:3 \\, `2:4) :>> 4 \\* 3)._strr;",
        typing: Typing::Coerce(Coercer::Reinterpret),
        ..COERCION
    },
    PrimDef {
        name: ":>> encode",
        schemes: &[
            "[C:COMPACTLINEAR, I:integer] C -> I",
            "[C:COMPACTLINEAR] C -> natural",
            "[C:COMPACTLINEAR] C -> string",
        ],
        doc: "the code of a compact value as an integer (R0005 if it does not fit), a natural or \
            a decimal string",
        example: "println$ ((`1:3 \\, true) :>> int);",
        typing: Typing::Coerce(Coercer::Encode),
        ..COERCION
    },
    PrimDef {
        name: ":>> natural",
        schemes: &[
            "[I:integer] I -> natural",
            "[I:integer] natural -> I",
            "natural -> string",
        ],
        doc: "an integer as a natural (R0005 when negative), a natural as an integer type (R0005 \
            if it does not fit), a natural's decimal digits",
        example: "println$ (2 :>> natural);",
        typing: Typing::Coerce(Coercer::Natural),
        ..COERCION
    },
    PrimDef {
        name: ":>> integer",
        schemes: &["[I:integer, J:integer] I -> J"],
        doc: "between integer types: the checked conversion of `convert` (R0005 if the value does \
            not fit)",
        example: "println$ (300 :>> uint16);",
        typing: Typing::Coerce(Coercer::Integer),
        ..COERCION
    },
    PrimDef {
        name: ":>> reshape",
        schemes: &["[A, B] A -> B"],
        doc: "a value as a layout-identical type, the same scalar leaves in the same order; zero \
            copy between arrays (E0500 when the types are not layout-identical)",
        example: "println$ ((1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3));",
        typing: Typing::Coerce(Coercer::Reshape),
        ..COERCION
    },
    PrimDef {
        name: "opaque",
        schemes: &["[A, B] A -> B"],
        doc: "an opaque type's representation to the opaque type (`_make_K`) or back (`_repr_`): \
            only the static type changes",
        typing: Typing::Coerce(Coercer::Opaque),
        ..INTERNAL
    },
    PrimDef {
        name: "permute",
        schemes: &["[R] R -> R"],
        doc: "a record literal written out of field order: its field values in source order to \
            the record R",
        kernels: |p| match p {
            Prim::Permute(order) => Some(order.len()),
            _ => None,
        },
        side: Some(Side::Permute),
        ..INTERNAL
    },
    PrimDef {
        name: "checked_reshape",
        schemes: &["[A] A -> A"],
        doc: "a reshape between types whose element counts depend on run-time sizes, compared \
            once the sizes are known",
        kernels: |p| matches!(p, Prim::CheckedReshape(_)).then_some(1),
        ..INTERNAL
    },
    PrimDef {
        name: "shape_fault",
        schemes: &["[A, B] A -> B"],
        doc: "a reshape whose element counts differ once its run-time sizes are known: the \
            operand is computed, then R0016 names both types and the sizes",
        kernels: |p| matches!(p, Prim::ShapeFault(_)).then_some(1),
        ..INTERNAL
    },
];
