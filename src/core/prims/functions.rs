//! The functions of the primitive table, in the order of the library reference.

use super::*;
use crate::core::ir::{CharClass, StrSearch};

pub(super) const FUNCTIONS: &[PrimDef] = &[
    PrimDef {
        name: "reveal",
        schemes: &["[T] secret T -> T"],
        form: "reveal e",
        doc: "the value of e made public: the one explicit conversion from `secret T` to `T`",
        example: "var s : secret int = 6 * 7; println$ reveal s;",
        typing: Typing::Rule(Rule::Reveal),
        ..FUNCTION
    },
    PrimDef {
        name: "str",
        schemes: FORMAT,
        form: "str x",
        doc: "the display form of any value",
        example: "println$ str (1, 2.5);",
        typing: Typing::Scheme(|_, _| Some(Prim::Str)),
        kernels: |p| (*p == Prim::Str).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "repr",
        schemes: FORMAT,
        form: "repr x",
        doc: "the quoted form used inside arrays",
        example: "println$ repr \"a\";",
        typing: Typing::Scheme(|_, _| Some(Prim::Repr)),
        kernels: |p| (*p == Prim::Repr).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "_strr",
        schemes: FORMAT,
        form: "x._strr",
        doc: "the structural form",
        example: "println$ (1, 2)._strr;",
        typing: Typing::Scheme(|_, _| Some(Prim::Strr)),
        kernels: |p| (*p == Prim::Strr).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "print",
        schemes: PRINT,
        effect: true,
        form: "print x",
        doc: "write str x",
        example: "print 42; endl;",
        typing: Typing::Scheme(|_, _| Some(Prim::Print)),
        kernels: |p| (*p == Prim::Print).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "println",
        schemes: PRINT,
        effect: true,
        form: "println x",
        doc: "write str x and a newline",
        example: "println (1, 2);",
        typing: Typing::Scheme(|_, _| Some(Prim::Println)),
        kernels: |p| (*p == Prim::Println).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "endl",
        schemes: &["unit -> void", "ofile -> void"],
        effect: true,
        form: "endl",
        doc: "write a newline; endl f: a newline on the stream f",
        example: "print 1; endl;",
        typing: Typing::Rule(Rule::Endl),
        kernels: |p| match p {
            Prim::Endl => Some(0),
            Prim::FEndl => Some(1),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "fprint",
        schemes: FPRINT,
        tupled: true,
        effect: true,
        form: "fprint (f, x)",
        doc: "write str x to f",
        example: "fprint (cstdout, 42); endl;",
        typing: Typing::Scheme(|_, _| Some(Prim::FWrite(false))),
        kernels: |p| (*p == Prim::FWrite(false)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "fprintln",
        schemes: FPRINT,
        tupled: true,
        effect: true,
        form: "fprintln (f, x)",
        doc: "write str x and a newline to f",
        example: "fprintln (cstderr, \"oops\");",
        typing: Typing::Scheme(|_, _| Some(Prim::FWrite(true))),
        kernels: |p| (*p == Prim::FWrite(true)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "len",
        schemes: &["[T, N:COMPACTLINEAR] T ^ N -> size", "string -> size"],
        measures_shape: true,
        form: "len a",
        doc: "the element count of an array, or the byte count of a string (a size)",
        example: "println$ len (1, 2, 3);",
        typing: Typing::Scheme(|a, _| match &a[0] {
            Type::String => Some(Prim::StrLen),
            _ => Some(Prim::Len),
        }),
        kernels: |p| matches!(p, Prim::Len | Prim::StrLen).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "filter",
        schemes: &["[T, N:COMPACTLINEAR, M:UNITSUM] (T -> bool) -> T ^ N -> T ^ M"],
        arity: 2,
        calls: true,
        fresh_sizes: true,
        form: "filter p a",
        doc: "the elements of a for which p holds, in order: an array whose size is known \
              only when it runs (a run-time size)",
        example: "println$ filter (fun (x:int) => x % 2 == 0) (1, 2, 3, 4);",
        typing: Typing::Scheme(|_, _| Some(Prim::Filter)),
        kernels: |p| matches!(p, Prim::Filter | Prim::Dist(DistOp::Filter)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "concat",
        schemes: &["[T, N:COMPACTLINEAR, M:COMPACTLINEAR, K:UNITSUM] T ^ N * T ^ M -> T ^ K"],
        tupled: true,
        fresh_sizes: true,
        form: "concat (a, b)",
        doc: "the elements of a (in code order), then those of b: an array whose size, the sum \
              of theirs, is known only when it runs",
        example: "println$ concat ((1, 2), (3, 4, 5));",
        typing: Typing::Scheme(|_, _| Some(Prim::Append)),
        kernels: |p| (*p == Prim::Append).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "map",
        schemes: &["[T, U, N:COMPACTLINEAR] (T -> U) -> T ^ N -> U ^ N"],
        arity: 2,
        calls: true,
        form: "map f a",
        doc: "f applied to every element, indexed like a",
        example: "println$ map (fun (x:int) => x * x) (1, 2, 3);",
        typing: Typing::Scheme(|_, _| Some(Prim::Map)),
        kernels: |p| matches!(p, Prim::Map | Prim::Dist(DistOp::Map)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "fold_left",
        schemes: &["[T, U, N:COMPACTLINEAR] (U -> T -> U) -> U -> T ^ N -> U"],
        arity: 3,
        calls: true,
        form: "fold_left f init a",
        doc: "left fold in code order",
        example: "println$ fold_left (fun (s:int) (x:int) => s + x) 0 (1, 2, 3);",
        aliases: &[Alias {
            name: "fold",
            form: "fold f init a",
            example: "println$ fold (fun (s:int) (x:int) => s + x) 0 (1, 2, 3);",
        }],
        typing: Typing::Scheme(|_, _| Some(Prim::FoldLeft)),
        kernels: |p| matches!(p, Prim::FoldLeft | Prim::Dist(DistOp::Fold)).then_some(3),
        ..FUNCTION
    },
    PrimDef {
        name: "rev",
        schemes: &["[T, N:COMPACTLINEAR] T ^ N -> T ^ N"],
        form: "rev a",
        doc: "the elements in reverse code order",
        example: "println$ rev (1, 2, 3);",
        typing: Typing::Scheme(|_, _| Some(Prim::Rev)),
        kernels: |p| matches!(p, Prim::Rev | Prim::Dist(DistOp::Rev)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "join",
        schemes: &["[T, N:UNITSUM, M:UNITSUM, K:UNITSUM] \
            T ^ N -> T ^ M -> T ^ K where K = N `+ M"],
        arity: 2,
        form: "join a b",
        doc: "concatenation of arrays over unitsums; the index is the unitsum of the sum of the \
            sizes",
        example: "println$ join (1, 2) (3, 4, 5);",
        typing: Typing::Scheme(|_, _| Some(Prim::Concat)),
        kernels: |p| (*p == Prim::Concat).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "\\sum",
        schemes: &["[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T"],
        form: "\\sum a",
        doc: "left fold of + from zero",
        example: "println$ \\sum (1, 2, 3);",
        typing: Typing::Scheme(|_, _| Some(Prim::Sum)),
        kernels: |p| matches!(p, Prim::Sum | Prim::Dist(DistOp::Reduce(true))).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "\\prod",
        schemes: &["[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T"],
        form: "\\prod a",
        doc: "left fold of * from one",
        example: "println$ \\prod (1, 2, 3, 4);",
        typing: Typing::Scheme(|_, _| Some(Prim::Prod)),
        kernels: |p| matches!(p, Prim::Prod | Prim::Dist(DistOp::Reduce(false))).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "collect",
        schemes: &["[T, N:COMPACTLINEAR] T ^ N -> T ^ N"],
        form: "collect a",
        doc: "a distributed array gathered whole to every process, as a plain array (of a \
            plain array, the array itself)",
        example: "val d : distributed int ^ 4 = (1, 2, 3, 4);\nprintln$ collect d;",
        typing: Typing::Scheme(|_, _| Some(Prim::Collect)),
        kernels: |p| (*p == Prim::Collect).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "_owned",
        section: Section::Internal,
        schemes: &["size -> long"],
        doc: "the first or the end of the positions this process owns of a distributed array \
            of n positions: the bounds of a loop that reads and stores distributed arrays at \
            its own position only",
        typing: Typing::Internal,
        kernels: |p| matches!(p, Prim::Dist(DistOp::Owned(_))).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "_agree",
        section: Section::Internal,
        arity: 0,
        schemes: &["unit"],
        effect: true,
        doc: "after a loop that each process runs over its own positions: every process \
            learns whether another failed in it, and stops if one did",
        typing: Typing::Internal,
        kernels: |p| matches!(p, Prim::Dist(DistOp::Agree)).then_some(0),
        ..FUNCTION
    },
    PrimDef {
        name: "_halo",
        section: Section::Internal,
        arity: 3,
        schemes: &["[T, N:COMPACTLINEAR] T ^ N -> size -> size -> T ^ N"],
        doc: "a distributed array with, on each process, the positions up to the second \
            operand before its chunk and up to the third after it filled in from the \
            processes that own them: the halo of a loop that reads the array at constant \
            offsets from its own position",
        typing: Typing::Internal,
        kernels: |p| matches!(p, Prim::Dist(DistOp::Halo)).then_some(3),
        ..FUNCTION
    },
    PrimDef {
        name: "_chunked",
        section: Section::Internal,
        schemes: &[
            "[T, N:COMPACTLINEAR] T ^ N -> T -> T",
            "[T, N:COMPACTLINEAR] T ^ N -> T ^ N -> T -> T",
            "[T, U, V, N:COMPACTLINEAR] (T -> U -> V) -> T ^ N -> U ^ N -> V ^ N -> V ^ N",
            "[T, N:COMPACTLINEAR] (T -> T -> T) -> T ^ N -> T -> T",
            "[T, N:COMPACTLINEAR] (T -> T -> T) -> T -> T ^ N -> T ^ N -> T ^ N",
            "[T, N:COMPACTLINEAR] T ^ N -> T ^ N -> T ^ N",
            "[T, N:COMPACTLINEAR] (T -> T -> T) -> T ^ N -> T -> T -> T",
            "[T, N:COMPACTLINEAR] (T -> T -> T) -> T ^ N -> T -> T ^ N -> T ^ N",
            "[T, U, N:COMPACTLINEAR] (T -> U) -> T ^ N -> U ^ N -> U ^ N",
        ],
        doc: "a library function written in Tessera (`minimum`, `maximum`, `mean`, `dot`, \
            `map2`, `reduce`, `scan_left`, `cumsum`, `cumprod`, `fold_right`, `scan_right`, \
            `rev_map`) applied to a distributed array: its chunked kernel, on the operands and the \
            call of the library function itself (for what the kernel does not chunk)",
        typing: Typing::Internal,
        calls: true,
        kernels: |p| match p {
            Prim::Dist(DistOp::Library(f)) => Some(f.operands() + 1),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "transpose",
        schemes: &[
            "[T, M:COMPACTLINEAR, N:COMPACTLINEAR] T ^ M ^ N -> T ^ N ^ M",
            "[T, A:COMPACTLINEAR, B:COMPACTLINEAR] T ^ (A \\* B) -> T ^ (B \\* A)",
            "[T, A:COMPACTLINEAR] T ^ (A \\^ 2) -> T ^ (A \\^ 2)",
        ],
        form: "transpose a",
        doc: "T ^ M ^ N to T ^ N ^ M, or T ^ (A \\* B) to T ^ (B \\* A), a copy",
        example: "println$ transpose ((1, 2, 3), (4, 5, 6));",
        typing: Typing::Scheme(|_, _| Some(Prim::Transpose)),
        kernels: |p| matches!(p, Prim::Transpose | Prim::Dist(DistOp::Transpose)).then_some(1),
        side: Some(Side::Transpose),
        ..FUNCTION
    },
    PrimDef {
        name: "get",
        schemes: &["[T, N:COMPACTLINEAR, I:integer] T ^ N * I -> T"],
        form: "get (a, i)",
        doc: "the element at linear position i",
        example: "println$ get ((10, 20, 30), 1);",
        typing: Typing::Rule(Rule::Get),
        ..FUNCTION
    },
    PrimDef {
        name: "unsafe_get",
        schemes: &["[T, N:COMPACTLINEAR] T ^ N * size -> T"],
        form: "unsafe_get (a, i)",
        doc: "the element at linear position i",
        example: "println$ unsafe_get ((10, 20, 30), 2uz);",
        typing: Typing::Rule(Rule::UnsafeGet),
        ..FUNCTION
    },
    PrimDef {
        name: "mem",
        schemes: &[
            "[T, N:COMPACTLINEAR] (T -> bool) -> T ^ N -> bool",
            "[T, U, N:COMPACTLINEAR] (T * U -> bool) -> T ^ N -> U -> bool",
        ],
        arity: 2,
        calls: true,
        form: "mem p a",
        doc: "does an element satisfy p; mem r a e: does an element v satisfy r (v, e)",
        example: "println$ mem (fun (x:int) => x > 2) (1, 2, 3);",
        typing: Typing::Scheme(|a, _| {
            Some(if a.len() == 2 {
                Prim::Mem
            } else {
                Prim::MemRel
            })
        }),
        kernels: |p| match p {
            Prim::Mem => Some(2),
            Prim::MemRel => Some(3),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "sort",
        schemes: &[
            "[T:ordered, N:COMPACTLINEAR] T ^ N -> T ^ N",
            "[T, N:COMPACTLINEAR] (T * T -> bool) -> T ^ N -> T ^ N",
        ],
        calls: true,
        form: "sort a, sort cmp a",
        doc: "a stable sort by < or by cmp",
        example: "println$ sort (3, 1, 2);",
        typing: Typing::Scheme(|a, _| {
            Some(if a.len() == 1 {
                Prim::Sort
            } else {
                Prim::SortBy
            })
        }),
        kernels: |p| match p {
            Prim::Sort | Prim::Dist(DistOp::Sort) => Some(1),
            Prim::SortBy => Some(2),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "sqrt",
        schemes: MATH,
        form: "sqrt x",
        example: "println$ sqrt 2.0;",
        typing: Typing::Scheme(|a, _| math(MathFn::Sqrt, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Sqrt, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "sin",
        schemes: MATH,
        form: "sin x",
        example: "println$ sin 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Sin, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Sin, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "cos",
        schemes: MATH,
        form: "cos x",
        example: "println$ cos 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Cos, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Cos, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "tan",
        schemes: MATH,
        form: "tan x",
        example: "println$ tan 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Tan, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Tan, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "asin",
        schemes: MATH,
        form: "asin x",
        example: "println$ asin 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Asin, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Asin, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "acos",
        schemes: MATH,
        form: "acos x",
        example: "println$ acos 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Acos, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Acos, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "atan",
        schemes: MATH,
        form: "atan x",
        example: "println$ atan 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Atan, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Atan, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "sinh",
        schemes: MATH,
        form: "sinh x",
        example: "println$ sinh 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Sinh, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Sinh, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "cosh",
        schemes: MATH,
        form: "cosh x",
        example: "println$ cosh 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Cosh, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Cosh, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "tanh",
        schemes: MATH,
        form: "tanh x",
        example: "println$ tanh 0.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Tanh, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Tanh, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "exp",
        schemes: MATH,
        form: "exp x",
        example: "println$ exp 1.0;",
        typing: Typing::Scheme(|a, _| math(MathFn::Exp, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Exp, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "log",
        schemes: MATH,
        form: "log x",
        doc: "the natural logarithm",
        example: "println$ log 10.0;",
        typing: Typing::Scheme(|a, _| math(MathFn::Log, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Log, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "ln",
        schemes: MATH,
        form: "ln x",
        doc: "the natural logarithm",
        example: "println$ ln 10.0;",
        typing: Typing::Scheme(|a, _| math(MathFn::Log, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Log, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "log10",
        schemes: MATH,
        form: "log10 x",
        example: "println$ log10 1000.0;",
        typing: Typing::Scheme(|a, _| math(MathFn::Log10, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Log10, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "ceil",
        schemes: MATH,
        form: "ceil x",
        example: "println$ ceil 1.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Ceil, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Ceil, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "floor",
        schemes: MATH,
        form: "floor x",
        example: "println$ floor 1.5;",
        typing: Typing::Scheme(|a, _| math(MathFn::Floor, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Floor, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "trunc",
        schemes: MATH,
        form: "trunc x",
        example: "println$ trunc (-1.5);",
        typing: Typing::Scheme(|a, _| math(MathFn::Trunc, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Trunc, _)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "abs",
        schemes: &["[T:floating] T -> T", "[T:signed] T -> T"],
        form: "abs x",
        example: "println$ abs (-3), abs (-2.5);",
        typing: Typing::Scheme(|a, _| math(MathFn::Abs, a)),
        kernels: |p| matches!(p, Prim::FloatFn(MathFn::Abs, _) | Prim::IntAbs(_)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "atan2",
        schemes: &["[T:floating] T * T -> T"],
        tupled: true,
        form: "atan2 (y, x)",
        doc: "the angle of the point (x, y)",
        example: "println$ atan2 (1.0, 1.0);",
        typing: Typing::Scheme(|a, _| single(&a[0]).map(Prim::Atan2)),
        kernels: |p| matches!(p, Prim::Atan2(_)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "pow",
        schemes: &["[T:floating] T * T -> T", "[T:floating] T * int -> T"],
        tupled: true,
        form: "pow (x, y)",
        doc: "x to the power y",
        example: "println$ pow (2.0, 10);",
        typing: Typing::Scheme(|a, _| match a.get(1) {
            Some(Type::Int(_)) => single(&a[0]).map(Prim::PowInt),
            _ => single(&a[0]).map(Prim::Pow),
        }),
        kernels: |p| matches!(p, Prim::Pow(_) | Prim::PowInt(_)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "sgn",
        schemes: &["[T:signed] T -> int"],
        form: "sgn x",
        doc: "-1, 0 or 1",
        example: "println$ sgn (-7);",
        typing: Typing::Scheme(|a, _| int_of(&a[0]).map(Prim::IntSgn)),
        kernels: |p| matches!(p, Prim::IntSgn(_)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "min",
        schemes: &["[T:ordered] T * T -> T"],
        form: "min (x, y)",
        doc: "if x < y then x else y",
        example: "println$ min (3, 2);",
        typing: Typing::Rule(Rule::Min),
        kernels: |p| (*p == Prim::Min).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "max",
        schemes: &["[T:ordered] T * T -> T"],
        form: "max (x, y)",
        doc: "if x < y then y else x",
        example: "println$ max (3, 2);",
        typing: Typing::Rule(Rule::Max),
        kernels: |p| (*p == Prim::Max).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "ord",
        schemes: &["char -> int"],
        form: "ord c",
        doc: "the byte of c as a signed value, -128 … 127",
        example: "println$ ord (char \"A\");",
        typing: Typing::Scheme(|_, _| Some(Prim::Ord)),
        kernels: |p| (*p == Prim::Ord).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "toupper",
        schemes: &["string -> string", "char -> char"],
        form: "toupper s",
        doc: "the string in upper case; toupper c: a char",
        example: "println$ toupper \"abc\";",
        typing: Typing::Scheme(|a, _| match &a[0] {
            Type::Char => Some(Prim::CharCase(true)),
            _ => Some(Prim::ToUpper),
        }),
        kernels: |p| matches!(p, Prim::ToUpper | Prim::CharCase(true)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "tolower",
        schemes: &["string -> string", "char -> char"],
        form: "tolower c",
        doc: "ASCII letters to lower case",
        example: "println$ tolower 'Q';",
        typing: Typing::Scheme(|a, _| match &a[0] {
            Type::Char => Some(Prim::CharCase(false)),
            _ => Some(Prim::ToLower),
        }),
        kernels: |p| matches!(p, Prim::ToLower | Prim::CharCase(false)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isupper",
        schemes: CHAR_CLASS,
        form: "isupper c",
        doc: "C's isupper in the \"C\" locale",
        example: "println$ isupper (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Upper))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Upper)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "islower",
        schemes: CHAR_CLASS,
        form: "islower c",
        doc: "C's islower in the \"C\" locale",
        example: "println$ islower (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Lower))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Lower)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isalpha",
        schemes: CHAR_CLASS,
        form: "isalpha c",
        doc: "C's isalpha in the \"C\" locale",
        example: "println$ isalpha (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Alpha))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Alpha)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isdigit",
        schemes: CHAR_CLASS,
        form: "isdigit c",
        doc: "C's isdigit in the \"C\" locale",
        example: "println$ isdigit (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Digit))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Digit)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isalnum",
        schemes: CHAR_CLASS,
        form: "isalnum c",
        doc: "C's isalnum in the \"C\" locale",
        example: "println$ isalnum (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Alnum))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Alnum)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isxdigit",
        schemes: CHAR_CLASS,
        form: "isxdigit c",
        doc: "C's isxdigit in the \"C\" locale",
        example: "println$ isxdigit (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::XDigit))),
        kernels: |p| (*p == Prim::CharIs(CharClass::XDigit)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isspace",
        schemes: CHAR_CLASS,
        form: "isspace c",
        doc: "C's isspace in the \"C\" locale",
        example: "println$ isspace (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Space))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Space)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isblank",
        schemes: CHAR_CLASS,
        form: "isblank c",
        doc: "C's isblank in the \"C\" locale",
        example: "println$ isblank (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Blank))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Blank)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "iscntrl",
        schemes: CHAR_CLASS,
        form: "iscntrl c",
        doc: "C's iscntrl in the \"C\" locale",
        example: "println$ iscntrl (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Cntrl))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Cntrl)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "isprint",
        schemes: CHAR_CLASS,
        form: "isprint c",
        doc: "C's isprint in the \"C\" locale",
        example: "println$ isprint (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Print))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Print)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "ispunct",
        schemes: CHAR_CLASS,
        form: "ispunct c",
        doc: "C's ispunct in the \"C\" locale",
        example: "println$ ispunct (char \"a\");",
        typing: Typing::Scheme(|_, _| Some(Prim::CharIs(CharClass::Punct))),
        kernels: |p| (*p == Prim::CharIs(CharClass::Punct)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "strip",
        schemes: STRIP,
        tupled: true,
        form: "strip s, strip (s, cs)",
        doc: "without leading and trailing white space, or bytes of cs",
        example: "println$ strip \"  a b  \";",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::Strip {
                left: true,
                right: true,
                set: a.len() == 2,
            })
        }),
        kernels: |p| match p {
            Prim::Strip {
                left: true,
                right: true,
                set,
            } => Some(1 + *set as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "lstrip",
        schemes: STRIP,
        tupled: true,
        form: "lstrip s, lstrip (s, cs)",
        doc: "without leading white space, or bytes of cs",
        example: "println$ lstrip \"  a\";",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::Strip {
                left: true,
                right: false,
                set: a.len() == 2,
            })
        }),
        kernels: |p| match p {
            Prim::Strip {
                left: true,
                right: false,
                set,
            } => Some(1 + *set as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "rstrip",
        schemes: STRIP,
        tupled: true,
        form: "rstrip s, rstrip (s, cs)",
        doc: "without trailing white space, or bytes of cs",
        example: "println$ rstrip \"a  \" + \"|\";",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::Strip {
                left: false,
                right: true,
                set: a.len() == 2,
            })
        }),
        kernels: |p| match p {
            Prim::Strip {
                left: false,
                right: true,
                set,
            } => Some(1 + *set as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "startswith",
        schemes: AFFIX,
        arity: 2,
        form: "startswith s e",
        doc: "does s begin with e",
        example: "println$ startswith \"hello\" \"he\";",
        typing: Typing::Scheme(|_, _| Some(Prim::StartsWith)),
        kernels: |p| (*p == Prim::StartsWith).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "endswith",
        schemes: AFFIX,
        arity: 2,
        form: "endswith s e",
        doc: "does s end with e",
        example: "println$ endswith \"hello\" 'o';",
        typing: Typing::Scheme(|_, _| Some(Prim::EndsWith)),
        kernels: |p| (*p == Prim::EndsWith).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "stl_find",
        schemes: SEARCH,
        tupled: true,
        form: "stl_find (s, e), stl_find (s, e, pos)",
        doc: "the position of the first e (a string or a char) in s, at or after pos (default 0), or -1",
        example: "println$ stl_find (\"banana\", \"an\"), stl_find (\"banana\", \"an\", 2), stl_find (\"banana\", \"x\");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::Find,
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::Find,
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "stl_rfind",
        schemes: SEARCH,
        tupled: true,
        form: "stl_rfind (s, e), stl_rfind (s, e, pos)",
        doc: "the position of the last e (a string or a char) in s starting at or before pos (default the end), or -1",
        example: "println$ stl_rfind (\"banana\", \"an\"), stl_rfind (\"banana\", char \"a\", 4);",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::RFind,
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::RFind,
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "stl_find_first_of",
        schemes: SEARCH,
        tupled: true,
        form: "stl_find_first_of (s, e), stl_find_first_of (s, e, pos)",
        doc: "the position of the first byte of s at or after pos (default 0) that is one of the bytes of e (a string or a char), or -1",
        example: "println$ stl_find_first_of (\"a,b;c\", \";,\");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::FirstOf(true),
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::FirstOf(true),
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "stl_find_first_not_of",
        schemes: SEARCH,
        tupled: true,
        form: "stl_find_first_not_of (s, e), stl_find_first_not_of (s, e, pos)",
        doc: "the position of the first byte of s at or after pos (default 0) that is none of the bytes of e, or -1",
        example: "println$ stl_find_first_not_of (\"  x\", char \" \");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::FirstOf(false),
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::FirstOf(false),
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "stl_find_last_of",
        schemes: SEARCH,
        tupled: true,
        form: "stl_find_last_of (s, e), stl_find_last_of (s, e, pos)",
        doc: "the position of the last byte of s at or before pos (default the end) that is one of the bytes of e, or -1",
        example: "println$ stl_find_last_of (\"a,b;c\", \";,\");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::LastOf(true),
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::LastOf(true),
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "stl_find_last_not_of",
        schemes: SEARCH,
        tupled: true,
        form: "stl_find_last_not_of (s, e), stl_find_last_not_of (s, e, pos)",
        doc: "the position of the last byte of s at or before pos (default the end) that is none of the bytes of e, or -1",
        example: "println$ stl_find_last_not_of (\"x  \", char \" \");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::StrSearch {
                how: StrSearch::LastOf(false),
                from: a.len() == 3,
            })
        }),
        kernels: |p| match p {
            Prim::StrSearch {
                how: StrSearch::LastOf(false),
                from,
            } => Some(2 + *from as usize),
            _ => None,
        },
        ..FUNCTION
    },
    PrimDef {
        name: "band",
        schemes: BITS,
        form: "band (a, b)",
        doc: "a \\& b",
        example: "println$ band (12u, 10u);",
        typing: Typing::Rule(Rule::Bits(BinOp::BitAnd)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::And, _)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "bor",
        schemes: BITS,
        form: "bor (a, b)",
        doc: "a \\| b",
        example: "println$ bor (12u, 10u);",
        typing: Typing::Rule(Rule::Bits(BinOp::BitOr)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Or, _)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "bxor",
        schemes: BITS,
        form: "bxor (a, b)",
        doc: "a \\^ b",
        example: "println$ bxor (12u, 10u);",
        typing: Typing::Rule(Rule::Bits(BinOp::BitXor)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Xor, _)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "shl",
        schemes: SHIFTS,
        form: "shl (a, n)",
        doc: "a << n",
        example: "println$ shl (1, 4);",
        typing: Typing::Rule(Rule::Bits(BinOp::Shl)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Shl, _)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "shr",
        schemes: SHIFTS,
        form: "shr (a, n)",
        doc: "a >> n",
        example: "println$ shr (256, 4);",
        typing: Typing::Rule(Rule::Bits(BinOp::Shr)),
        kernels: |p| matches!(p, Prim::IntBit(BitOp::Shr, _)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "bnot",
        schemes: &["[T:unsigned] T -> T"],
        form: "bnot a",
        doc: "~a",
        example: "println$ bnot 0u8;",
        typing: Typing::Scheme(|a, _| int_of(&a[0]).map(Prim::IntCompl)),
        kernels: |p| matches!(p, Prim::IntCompl(_)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "subarray",
        schemes: &["[T, N:COMPACTLINEAR, M:COMPACTLINEAR] T ^ N * size -> T ^ M"],
        form: "subarray[F, L] a",
        doc: "the elements F to L of a; F and L are constants",
        typing: Typing::TypeApplied,
        kernels: |p| (*p == Prim::Subarray).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "_slice",
        section: Section::Internal,
        schemes: &["[T, N:COMPACTLINEAR, K:UNITSUM, I:integer, J:integer] T ^ N * I * J -> T ^ K"],
        doc: "the slice `x.(i..<j)` of an array whose length, or the bounds, are known only \
              when it runs: positions i to j (excluded), clamped to the array",
        typing: Typing::Internal,
        kernels: |p| (*p == Prim::Slice).then_some(3),
        ..FUNCTION
    },
];
