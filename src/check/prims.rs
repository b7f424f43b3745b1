//! The one table of primitives: every built-in function, operator, conversion and internal
//! kernel is declared here once, with its name, its type scheme written in the language's own
//! type syntax (`check::scheme`: parsed, kind-checked, instantiated for inference, matched to
//! choose an overload, printed by `:type`), its purity, its documentation and an example, the
//! IR kernels (`ir::Prim`) it may select, and how the checker applies it: by its scheme (the
//! arguments unify with the parameter types, the classes of the variables are checked, and a
//! kernel is chosen by the representation of the argument types) or by a rule of its own
//! where the arguments' shape matters (`get (a, i)`, `sort` with or without a comparison).
//! The IR validator (`check::validate`) checks every kernel in the IR against the schemes of
//! the entries that own it, so a rule of its own cannot produce what its scheme does not say.
//!
//! Adding a primitive is adding one entry here (and its kernel in `eval`, keyed by its
//! `ir::Prim`); the tests check that every entry's schemes resolve, that every kernel has an
//! entry, and that every instance a scheme admits selects a kernel.

use crate::check::apply::Arg;
use crate::check::coerce;
use crate::check::error::CheckError;
use crate::check::expr::{error_expr, mk};
use crate::check::library as lib;
use crate::check::scheme::{match_type, Binds, Scheme};
use crate::check::{error_type, Checker};
use crate::core::ir::{self, ArithOp, BitOp, CharClass, CmpOp, IndexMode, MathFn, Prim};
use crate::syntax::ast::BinOp;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, Type};

type Rule = fn(&mut Checker, &mut Vec<Arg>, Span) -> ir::Expr;
/// Chooses the kernel for the argument types (after inference) and the result type.
type KernelFn = fn(&[Type], &Type) -> Option<Prim>;

/// How the checker applies an entry.
#[derive(Clone, Copy)]
pub(crate) enum Apply {
    /// Unify the arguments with the scheme's parameters, check the variables' classes, and
    /// select the kernel by representation.
    Scheme(KernelFn),
    /// A rule of its own (the arguments' shape decides the kernel).
    Rule(Rule),
    /// An operator or a conversion, applied by the operator and conversion rules of the
    /// checker (`expr.rs`, `apply.rs`); its kernel by representation is `Operator`'s.
    Operator(KernelFn),
    /// A kernel the checker inserts itself (widenings, record coercions); never applied by
    /// name.
    Internal,
    /// A classification of `e :>> T` (`check::coerce`): the coercion its selector gives for
    /// the source and target types its schemes admit, or its refusal.
    Coerce(crate::check::coerce::Select),
}

/// What a coercion entry produces in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coercion {
    /// `ExprKind::Coerce` of this kind.
    Kind(ir::CoerceKind),
    /// The checked conversion kernel `Prim::Convert` (between integer types).
    Convert,
}

/// What an entry is, for the library reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Function,
    Operator,
    Conversion,
    /// A classification of the coercion `e :>> T`, named `:>> decode`, `:>> reshape`, ….
    Coercion,
    Internal,
}

/// One primitive.
pub struct PrimDef {
    pub name: &'static str,
    pub section: Section,
    /// One scheme per overload, in the language's type syntax; several curried argument groups
    /// are `A -> B -> R`, a tupled argument `A * B -> R`.
    pub schemes: &'static [&'static str],
    /// How many curried arguments an application by name takes.
    pub arity: usize,
    /// Whether it writes output (an effect: L9.5 never runs it in parallel).
    pub effect: bool,
    pub doc: &'static str,
    pub example: &'static str,
    pub(crate) apply: Apply,
    /// The IR kernels this entry may select.
    pub kernels: fn(&Prim) -> bool,
    /// A condition on the operand and result types beyond the schemes (conversions: the
    /// *convertible* behaviour; widenings: the L2.16 lattice), checked by the validator.
    pub side: Option<Side>,
    /// The kernel's operands are the components of a tupled argument (`atan2 (y, x)`): a
    /// tuple literal gives them directly, any other tuple value is evaluated once and taken
    /// apart.
    pub tupled: bool,
}

/// A side condition on a kernel, its operand types and its result type.
type Side = fn(&Prim, &[Type], &Type) -> bool;

const fn func(
    name: &'static str,
    schemes: &'static [&'static str],
    arity: usize,
    doc: &'static str,
    example: &'static str,
    apply: Apply,
    kernels: fn(&Prim) -> bool,
) -> PrimDef {
    PrimDef {
        name,
        section: Section::Function,
        schemes,
        arity,
        effect: false,
        doc,
        example,
        apply,
        kernels,
        side: None,
        tupled: false,
    }
}

const fn writes(def: PrimDef) -> PrimDef {
    PrimDef {
        effect: true,
        ..def
    }
}

const fn tupled(def: PrimDef) -> PrimDef {
    PrimDef {
        tupled: true,
        ..def
    }
}

const fn op(
    name: &'static str,
    schemes: &'static [&'static str],
    doc: &'static str,
    example: &'static str,
    kernel: KernelFn,
    kernels: fn(&Prim) -> bool,
) -> PrimDef {
    PrimDef {
        name,
        section: Section::Operator,
        schemes,
        arity: 1,
        effect: false,
        doc,
        example,
        apply: Apply::Operator(kernel),
        kernels,
        side: None,
        tupled: false,
    }
}

const fn internal(
    name: &'static str,
    section: Section,
    schemes: &'static [&'static str],
    doc: &'static str,
    kernels: fn(&Prim) -> bool,
    side: Option<Side>,
) -> PrimDef {
    PrimDef {
        name,
        section,
        schemes,
        arity: 1,
        effect: false,
        doc,
        example: "",
        apply: Apply::Internal,
        kernels,
        side,
        tupled: false,
    }
}

const fn coercion(
    name: &'static str,
    section: Section,
    schemes: &'static [&'static str],
    doc: &'static str,
    example: &'static str,
    select: crate::check::coerce::Select,
) -> PrimDef {
    PrimDef {
        name,
        section,
        schemes,
        arity: 1,
        effect: false,
        doc,
        example,
        apply: Apply::Coerce(select),
        kernels: |_| false,
        side: None,
        tupled: false,
    }
}

/// `Some(true)` for `float`, `Some(false)` for `double`.
fn single(t: &Type) -> Option<bool> {
    match t {
        Type::Float => Some(true),
        Type::Double => Some(false),
        _ => None,
    }
}

fn int_of(t: &Type) -> Option<IntTy> {
    match t {
        Type::Int(i) => Some(*i),
        _ => None,
    }
}

/// The kernel of a unary math function: by the representation of its argument.
fn math(f: MathFn, args: &[Type]) -> Option<Prim> {
    match (&args[0], f) {
        (Type::Int(i), MathFn::Abs) if i.signed() => Some(Prim::IntAbs(*i)),
        (t, f) => single(t).map(|s| Prim::FloatFn(f, s)),
    }
}

/// The kernel of an arithmetic operator by the representation of its (promoted) operands.
fn arith_kernel(op: ArithOp, args: &[Type], result: &Type) -> Option<Prim> {
    match (&args[0], &args[1]) {
        (Type::Int(a), Type::Int(b)) if a == b => Some(Prim::IntArith(op, *a)),
        (Type::Double, Type::Double) => Some(Prim::FloatArith(op, false)),
        (Type::Float, Type::Float) => Some(Prim::FloatArith(op, true)),
        (Type::Natural, Type::Natural) => Some(Prim::NatArith(op)),
        (Type::String, Type::String) if op == ArithOp::Add => Some(Prim::StrConcat),
        (Type::String, Type::Int(_)) if op == ArithOp::Mul => Some(Prim::StrRepeat),
        (Type::Array(..), Type::Array(..))
            if op == ArithOp::Add && matches!(result, Type::Array(..)) =>
        {
            Some(Prim::Concat)
        }
        _ => None,
    }
}

fn bit_kernel(op: BitOp, args: &[Type]) -> Option<Prim> {
    int_of(&args[0]).map(|i| Prim::IntBit(op, i))
}

const CMP_SCHEMES: &[&str] = &["[T:ordered] T * T -> bool"];
const EQ_SCHEMES: &[&str] = &["[T:equality] T * T -> bool"];
const MATH: &[&str] = &["[T:floating] T -> T"];
const CHAR_CLASS: &[&str] = &["char -> bool"];
const ARITH: &[&str] = &["[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)"];
const STRIP: &[&str] = &["string -> string", "string * string -> string"];
const AFFIX: &[&str] = &["string -> string -> bool", "string -> char -> bool"];
const BITS: &[&str] = &["[T:unsigned] T * T -> T"];
const SHIFTS: &[&str] = &["[T:integer] T * T -> T"];
const FORMAT: &[&str] = &["[T:printable] T -> string"];
const PRINT: &[&str] = &["[T:printable] T -> void"];
const FPRINT: &[&str] = &["[T:printable] ofile * T -> void"];

macro_rules! math_entry {
    ($name:literal, $f:expr, $doc:literal, $example:literal) => {
        func(
            $name,
            MATH,
            1,
            $doc,
            $example,
            Apply::Scheme(|a, _| math($f, a)),
            |p| matches!(p, Prim::FloatFn(f, _) if *f == $f),
        )
    };
}

macro_rules! char_class_entry {
    ($name:literal, $class:expr) => {
        func(
            $name,
            CHAR_CLASS,
            1,
            concat!($name, " c: C's ", $name, " in the \"C\" locale"),
            concat!("println$ ", $name, " (char \"a\");"),
            Apply::Scheme(|_, _| Some(Prim::CharIs($class))),
            |p| *p == Prim::CharIs($class),
        )
    };
}

pub static PRIMS: &[PrimDef] = &[
    // ----- formatting and output (L7) -----
    func("reveal", &["[T] secret T -> T"], 1, "reveal e: the value of e made public (issue 14): the one explicit conversion from `secret T` to `T`", "var s : secret int = 6 * 7; println$ reveal s;", Apply::Rule(reveal_rule), |_| false),
    func("str", FORMAT, 1, "str x: the display form of any value", "println$ str (1, 2.5);", Apply::Scheme(|_, _| Some(Prim::Str)), |p| *p == Prim::Str),
    func("repr", FORMAT, 1, "repr x: the quoted form used inside arrays", "println$ repr \"a\";", Apply::Scheme(|_, _| Some(Prim::Repr)), |p| *p == Prim::Repr),
    func("_strr", FORMAT, 1, "x._strr: the structural form", "println$ (1, 2)._strr;", Apply::Scheme(|_, _| Some(Prim::Strr)), |p| *p == Prim::Strr),
    writes(func("print", PRINT, 1, "print x: write str x", "print 42; endl;", Apply::Scheme(|_, _| Some(Prim::Print)), |p| *p == Prim::Print)),
    writes(func("println", PRINT, 1, "println x: write str x and a newline", "println (1, 2);", Apply::Scheme(|_, _| Some(Prim::Println)), |p| *p == Prim::Println)),
    writes(func("endl", &["unit -> void", "ofile -> void"], 1, "endl: write a newline; endl f: a newline on the stream f", "print 1; endl;", Apply::Rule(endl_rule), |p| matches!(p, Prim::Endl | Prim::FEndl))),
    writes(tupled(func("fprint", FPRINT, 1, "fprint (f, x): write str x to f", "fprint (cstdout, 42); endl;", Apply::Scheme(|_, _| Some(Prim::FWrite(false))), |p| *p == Prim::FWrite(false)))),
    writes(tupled(func("fprintln", FPRINT, 1, "fprintln (f, x): write str x and a newline to f", "fprintln (cstderr, \"oops\");", Apply::Scheme(|_, _| Some(Prim::FWrite(true))), |p| *p == Prim::FWrite(true)))),
    // ----- arrays (L6, L9) -----
    func("len", &["[T, N:COMPACTLINEAR] T ^ N -> size", "string -> size"], 1, "len a: the element count of an array, or the byte count of a string (a size)", "println$ len (1, 2, 3);", Apply::Scheme(|a, _| match &a[0] { Type::String => Some(Prim::StrLen), _ => Some(Prim::Len) }), |p| matches!(p, Prim::Len | Prim::StrLen)),
    func("map", &["[T, U, N:COMPACTLINEAR] (T -> U) -> T ^ N -> U ^ N"], 2, "map f a: f applied to every element, indexed like a", "println$ map (fun (x:int) => x * x) (1, 2, 3);", Apply::Scheme(|_, _| Some(Prim::Map)), |p| *p == Prim::Map),
    func("fold_left", &["[T, U, N:COMPACTLINEAR] (U -> T -> U) -> U -> T ^ N -> U"], 3, "fold_left f init a: left fold in code order", "println$ fold_left (fun (s:int) (x:int) => s + x) 0 (1, 2, 3);", Apply::Scheme(|_, _| Some(Prim::FoldLeft)), |p| *p == Prim::FoldLeft),
    func("fold", &["[T, U, N:COMPACTLINEAR] (U -> T -> U) -> U -> T ^ N -> U"], 3, "fold f init a: fold_left f init a", "println$ fold (fun (s:int) (x:int) => s + x) 0 (1, 2, 3);", Apply::Scheme(|_, _| Some(Prim::FoldLeft)), |p| *p == Prim::FoldLeft),
    func("rev", &["[T, N:COMPACTLINEAR] T ^ N -> T ^ N"], 1, "rev a: the elements in reverse code order", "println$ rev (1, 2, 3);", Apply::Scheme(|_, _| Some(Prim::Rev)), |p| *p == Prim::Rev),
    func("join", &["[T, N:UNITSUM, M:UNITSUM, K:UNITSUM] T ^ N -> T ^ M -> T ^ K where K = N `+ M"], 2, "join a b: concatenation of arrays over unitsums; the index is the unitsum of the sum of the sizes", "println$ join (1, 2) (3, 4, 5);", Apply::Scheme(|_, _| Some(Prim::Concat)), |p| *p == Prim::Concat),
    func("\\sum", &["[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T"], 1, "\\sum a: left fold of + from zero", "println$ \\sum (1, 2, 3);", Apply::Scheme(|_, _| Some(Prim::Sum)), |p| *p == Prim::Sum),
    func("\\prod", &["[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T"], 1, "\\prod a: left fold of * from one", "println$ \\prod (1, 2, 3, 4);", Apply::Scheme(|_, _| Some(Prim::Prod)), |p| *p == Prim::Prod),
    PrimDef {
        side: Some(transpose_side),
        ..func("transpose", &["[T, M:COMPACTLINEAR, N:COMPACTLINEAR] T ^ M ^ N -> T ^ N ^ M", "[T, A:COMPACTLINEAR, B:COMPACTLINEAR] T ^ (A \\* B) -> T ^ (B \\* A)", "[T, A:COMPACTLINEAR] T ^ (A \\^ 2) -> T ^ (A \\^ 2)"], 1, "transpose a: T ^ M ^ N to T ^ N ^ M, or T ^ (A \\* B) to T ^ (B \\* A), a copy", "println$ transpose ((1, 2, 3), (4, 5, 6));", Apply::Scheme(|_, _| Some(Prim::Transpose)), |p| *p == Prim::Transpose)
    },
    func("get", &["[T, N:COMPACTLINEAR, I:integer] T ^ N * I -> T"], 1, "get (a, i): the element at linear position i", "println$ get ((10, 20, 30), 1);", Apply::Rule(get_rule), |_| false),
    func("unsafe_get", &["[T, N:COMPACTLINEAR] T ^ N * size -> T"], 1, "unsafe_get (a, i): the element at linear position i", "println$ unsafe_get ((10, 20, 30), 2uz);", Apply::Rule(lib::unsafe_get_rule), |_| false),
    func("mem", &["[T, N:COMPACTLINEAR] (T -> bool) -> T ^ N -> bool", "[T, U, N:COMPACTLINEAR] (T * U -> bool) -> T ^ N -> U -> bool"], 2, "mem p a: does an element satisfy p; mem r a e: does an element v satisfy r (v, e)", "println$ mem (fun (x:int) => x > 2) (1, 2, 3);", Apply::Scheme(|a, _| Some(if a.len() == 2 { Prim::Mem } else { Prim::MemRel })), |p| matches!(p, Prim::Mem | Prim::MemRel)),
    func("sort", &["[T:ordered, N:COMPACTLINEAR] T ^ N -> T ^ N", "[T, N:COMPACTLINEAR] (T * T -> bool) -> T ^ N -> T ^ N"], 1, "sort a, sort cmp a: a stable sort by < or by cmp", "println$ sort (3, 1, 2);", Apply::Scheme(|a, _| Some(if a.len() == 1 { Prim::Sort } else { Prim::SortBy })), |p| matches!(p, Prim::Sort | Prim::SortBy)),
    // ----- numbers (L11.25) -----
    math_entry!("sqrt", MathFn::Sqrt, "sqrt x", "println$ sqrt 2.0;"),
    math_entry!("sin", MathFn::Sin, "sin x", "println$ sin 0.5;"),
    math_entry!("cos", MathFn::Cos, "cos x", "println$ cos 0.5;"),
    math_entry!("tan", MathFn::Tan, "tan x", "println$ tan 0.5;"),
    math_entry!("asin", MathFn::Asin, "asin x", "println$ asin 0.5;"),
    math_entry!("acos", MathFn::Acos, "acos x", "println$ acos 0.5;"),
    math_entry!("atan", MathFn::Atan, "atan x", "println$ atan 0.5;"),
    math_entry!("sinh", MathFn::Sinh, "sinh x", "println$ sinh 0.5;"),
    math_entry!("cosh", MathFn::Cosh, "cosh x", "println$ cosh 0.5;"),
    math_entry!("tanh", MathFn::Tanh, "tanh x", "println$ tanh 0.5;"),
    math_entry!("exp", MathFn::Exp, "exp x", "println$ exp 1.0;"),
    math_entry!("log", MathFn::Log, "log x: the natural logarithm", "println$ log 10.0;"),
    math_entry!("ln", MathFn::Log, "ln x: the natural logarithm", "println$ ln 10.0;"),
    math_entry!("log10", MathFn::Log10, "log10 x", "println$ log10 1000.0;"),
    math_entry!("ceil", MathFn::Ceil, "ceil x", "println$ ceil 1.5;"),
    math_entry!("floor", MathFn::Floor, "floor x", "println$ floor 1.5;"),
    math_entry!("trunc", MathFn::Trunc, "trunc x", "println$ trunc (-1.5);"),
    func("abs", &["[T:floating] T -> T", "[T:signed] T -> T"], 1, "abs x", "println$ abs (-3), abs (-2.5);", Apply::Scheme(|a, _| math(MathFn::Abs, a)), |p| matches!(p, Prim::FloatFn(MathFn::Abs, _) | Prim::IntAbs(_))),
    tupled(func("atan2", &["[T:floating] T * T -> T"], 1, "atan2 (y, x): the angle of the point (x, y)", "println$ atan2 (1.0, 1.0);", Apply::Scheme(|a, _| single(&a[0]).map(Prim::Atan2)), |p| matches!(p, Prim::Atan2(_)))),
    tupled(func("pow", &["[T:floating] T * T -> T", "[T:floating] T * int -> T"], 1, "pow (x, y): x to the power y", "println$ pow (2.0, 10);", Apply::Scheme(|a, _| match a.get(1) { Some(Type::Int(_)) => single(&a[0]).map(Prim::PowInt), _ => single(&a[0]).map(Prim::Pow) }), |p| matches!(p, Prim::Pow(_) | Prim::PowInt(_)))),
    func("sgn", &["[T:signed] T -> int"], 1, "sgn x: -1, 0 or 1", "println$ sgn (-7);", Apply::Scheme(|a, _| int_of(&a[0]).map(Prim::IntSgn)), |p| matches!(p, Prim::IntSgn(_))),
    func("min", &["[T:ordered] T * T -> T"], 1, "min (x, y): if x < y then x else y", "println$ min (3, 2);", Apply::Rule(|c, a, s| lib::minmax_rule(c, a, s, false)), |p| *p == Prim::Min),
    func("max", &["[T:ordered] T * T -> T"], 1, "max (x, y): if x < y then y else x", "println$ max (3, 2);", Apply::Rule(|c, a, s| lib::minmax_rule(c, a, s, true)), |p| *p == Prim::Max),
    // ----- characters and strings (L11.26, L11.27) -----
    func("ord", &["char -> int"], 1, "ord c: the byte of c as a signed value, -128 … 127", "println$ ord (char \"A\");", Apply::Scheme(|_, _| Some(Prim::Ord)), |p| *p == Prim::Ord),
    func("toupper", &["string -> string", "char -> char"], 1, "toupper s: the string in upper case; toupper c: a char", "println$ toupper \"abc\";", Apply::Scheme(|a, _| match &a[0] { Type::Char => Some(Prim::CharCase(true)), _ => Some(Prim::ToUpper) }), |p| matches!(p, Prim::ToUpper | Prim::CharCase(true))),
    func("tolower", &["string -> string", "char -> char"], 1, "tolower c: ASCII letters to lower case", "println$ tolower 'Q';", Apply::Scheme(|a, _| match &a[0] { Type::Char => Some(Prim::CharCase(false)), _ => Some(Prim::ToLower) }), |p| matches!(p, Prim::ToLower | Prim::CharCase(false))),
    char_class_entry!("isupper", CharClass::Upper),
    char_class_entry!("islower", CharClass::Lower),
    char_class_entry!("isalpha", CharClass::Alpha),
    char_class_entry!("isdigit", CharClass::Digit),
    char_class_entry!("isalnum", CharClass::Alnum),
    char_class_entry!("isxdigit", CharClass::XDigit),
    char_class_entry!("isspace", CharClass::Space),
    char_class_entry!("isblank", CharClass::Blank),
    char_class_entry!("iscntrl", CharClass::Cntrl),
    char_class_entry!("isprint", CharClass::Print),
    char_class_entry!("ispunct", CharClass::Punct),
    tupled(func("strip", STRIP, 1, "strip s, strip (s, cs): without leading and trailing white space, or bytes of cs", "println$ strip \"  a b  \";", Apply::Scheme(|a, _| Some(Prim::Strip { left: true, right: true, set: a.len() == 2 })), |p| matches!(p, Prim::Strip { left: true, right: true, .. }))),
    tupled(func("lstrip", STRIP, 1, "lstrip s, lstrip (s, cs): without leading white space, or bytes of cs", "println$ lstrip \"  a\";", Apply::Scheme(|a, _| Some(Prim::Strip { left: true, right: false, set: a.len() == 2 })), |p| matches!(p, Prim::Strip { left: true, right: false, .. }))),
    tupled(func("rstrip", STRIP, 1, "rstrip s, rstrip (s, cs): without trailing white space, or bytes of cs", "println$ rstrip \"a  \" + \"|\";", Apply::Scheme(|a, _| Some(Prim::Strip { left: false, right: true, set: a.len() == 2 })), |p| matches!(p, Prim::Strip { left: false, right: true, .. }))),
    func("startswith", AFFIX, 2, "startswith s e: does s begin with e", "println$ startswith \"hello\" \"he\";", Apply::Scheme(|_, _| Some(Prim::StartsWith)), |p| *p == Prim::StartsWith),
    func("endswith", AFFIX, 2, "endswith s e: does s end with e", "println$ endswith \"hello\" 'o';", Apply::Scheme(|_, _| Some(Prim::EndsWith)), |p| *p == Prim::EndsWith),
    // ----- bits (L11.30) -----
    func("band", BITS, 1, "band (a, b): a \\& b", "println$ band (12u, 10u);", Apply::Rule(|c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitAnd)), |p| matches!(p, Prim::IntBit(BitOp::And, _))),
    func("bor", BITS, 1, "bor (a, b): a \\| b", "println$ bor (12u, 10u);", Apply::Rule(|c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitOr)), |p| matches!(p, Prim::IntBit(BitOp::Or, _))),
    func("bxor", BITS, 1, "bxor (a, b): a \\^ b", "println$ bxor (12u, 10u);", Apply::Rule(|c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitXor)), |p| matches!(p, Prim::IntBit(BitOp::Xor, _))),
    func("shl", SHIFTS, 1, "shl (a, n): a << n", "println$ shl (1, 4);", Apply::Rule(|c, a, s| lib::bit_named_rule(c, a, s, BinOp::Shl)), |p| matches!(p, Prim::IntBit(BitOp::Shl, _))),
    func("shr", SHIFTS, 1, "shr (a, n): a >> n", "println$ shr (256, 4);", Apply::Rule(|c, a, s| lib::bit_named_rule(c, a, s, BinOp::Shr)), |p| matches!(p, Prim::IntBit(BitOp::Shr, _))),
    func("bnot", &["[T:unsigned] T -> T"], 1, "bnot a: ~a", "println$ bnot 0u8;", Apply::Scheme(|a, _| int_of(&a[0]).map(Prim::IntCompl)), |p| matches!(p, Prim::IntCompl(_))),
    // ----- operators (L4.2, L4.3, L11.27, L11.30) -----
    op("+", &["[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)", "string * string -> string", "[T, N:UNITSUM, M:UNITSUM, K:UNITSUM] T ^ N * T ^ M -> T ^ K where K = N `+ M"], "x + y: sum (integer operands promote); string concatenation; array concatenation", "println$ 1i8 + 2i32;", |a, r| arith_kernel(ArithOp::Add, a, r), |p| matches!(p, Prim::IntArith(ArithOp::Add, _) | Prim::FloatArith(ArithOp::Add, _) | Prim::NatArith(ArithOp::Add) | Prim::StrConcat | Prim::Concat)),
    op("-", ARITH, "x - y: difference", "println$ 5 - 7;", |a, r| arith_kernel(ArithOp::Sub, a, r), |p| matches!(p, Prim::IntArith(ArithOp::Sub, _) | Prim::FloatArith(ArithOp::Sub, _) | Prim::NatArith(ArithOp::Sub))),
    op("*", &["[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)", "[I:integer] string * I -> string"], "x * y: product; s * n: s repeated n times", "println$ 6 * 7;", |a, r| arith_kernel(ArithOp::Mul, a, r), |p| matches!(p, Prim::IntArith(ArithOp::Mul, _) | Prim::FloatArith(ArithOp::Mul, _) | Prim::NatArith(ArithOp::Mul) | Prim::StrRepeat)),
    op("/", ARITH, "x / y: quotient (integers truncate toward zero)", "println$ 7 / 2;", |a, r| arith_kernel(ArithOp::Div, a, r), |p| matches!(p, Prim::IntArith(ArithOp::Div, _) | Prim::FloatArith(ArithOp::Div, _) | Prim::NatArith(ArithOp::Div))),
    op("%", ARITH, "x % y: remainder, with the sign of x", "println$ -7 % 2;", |a, r| arith_kernel(ArithOp::Mod, a, r), |p| matches!(p, Prim::IntArith(ArithOp::Mod, _) | Prim::FloatArith(ArithOp::Mod, _) | Prim::NatArith(ArithOp::Mod))),
    op("neg", &["[T:integer] T -> T", "[T:floating] T -> T"], "-x: negation", "println$ -(3);", |a, _| match &a[0] { Type::Int(i) => Some(Prim::IntNeg(*i)), t => single(t).map(|_| Prim::FloatNeg) }, |p| matches!(p, Prim::IntNeg(_) | Prim::FloatNeg)),
    op("==", EQ_SCHEMES, "x == y: equality (any type with equality)", "println$ (1, 2) == (1, 2);", |_, _| Some(Prim::Compare(CmpOp::Eq)), |p| *p == Prim::Compare(CmpOp::Eq)),
    op("!=", EQ_SCHEMES, "x != y: inequality", "println$ 1 != 2;", |_, _| Some(Prim::Compare(CmpOp::Ne)), |p| *p == Prim::Compare(CmpOp::Ne)),
    op("<", CMP_SCHEMES, "x < y: order (numbers, strings, compact values by code, tuples and arrays lexicographically)", "println$ \"a\" < \"b\";", |_, _| Some(Prim::Compare(CmpOp::Lt)), |p| *p == Prim::Compare(CmpOp::Lt)),
    op("<=", CMP_SCHEMES, "x <= y", "println$ 2 <= 2;", |_, _| Some(Prim::Compare(CmpOp::Le)), |p| *p == Prim::Compare(CmpOp::Le)),
    op(">", CMP_SCHEMES, "x > y", "println$ 3 > 2;", |_, _| Some(Prim::Compare(CmpOp::Gt)), |p| *p == Prim::Compare(CmpOp::Gt)),
    op(">=", CMP_SCHEMES, "x >= y", "println$ 3 >= 4;", |_, _| Some(Prim::Compare(CmpOp::Ge)), |p| *p == Prim::Compare(CmpOp::Ge)),
    op("not", &["bool -> bool"], "not b: negation", "println$ not true;", |_, _| Some(Prim::Not), |p| *p == Prim::Not),
    op("\\&", BITS, "a \\& b: bitwise and of unsigned integers", "println$ 12u \\& 10u;", |a, _| bit_kernel(BitOp::And, a), |p| matches!(p, Prim::IntBit(BitOp::And, _))),
    op("\\|", BITS, "a \\| b: bitwise or", "println$ 12u \\| 10u;", |a, _| bit_kernel(BitOp::Or, a), |p| matches!(p, Prim::IntBit(BitOp::Or, _))),
    op("\\^", BITS, "a \\^ b: bitwise exclusive or", "println$ 12u \\^ 10u;", |a, _| bit_kernel(BitOp::Xor, a), |p| matches!(p, Prim::IntBit(BitOp::Xor, _))),
    op("<<", SHIFTS, "a << n: shift left", "println$ 1 << 4;", |a, _| bit_kernel(BitOp::Shl, a), |p| matches!(p, Prim::IntBit(BitOp::Shl, _))),
    op(">>", SHIFTS, "a >> n: shift right", "println$ 256 >> 4;", |a, _| bit_kernel(BitOp::Shr, a), |p| matches!(p, Prim::IntBit(BitOp::Shr, _))),
    op("~", &["[T:unsigned] T -> T"], "~a: the complement within the width of an unsigned type", "println$ ~0u8;", |a, _| int_of(&a[0]).map(Prim::IntCompl), |p| matches!(p, Prim::IntCompl(_))),
    op("\\in", &["[T:equality, N:COMPACTLINEAR] T * T ^ N -> bool", "char * string -> bool"], "e \\in a: is an element of a equal to e; c \\in s: does the byte c occur in s", "println$ 2 \\in (1, 2, 3);", |a, _| match &a[1] { Type::String => Some(Prim::StrHasChar), _ => Some(Prim::ArrayHas) }, |p| matches!(p, Prim::ArrayHas | Prim::StrHasChar)),
    op(".[]", &["[I:integer] string * I -> char"], "s.[i]: the byte at i, a char; negative i counts from the end", "println$ \"abc\".[1];", |_, _| Some(Prim::StrIndex), |p| *p == Prim::StrIndex),
    internal(".[to]", Section::Operator, &["[I:integer, J:integer] string * I * J -> string", "[I:integer] string * I -> string", "string -> string"], "s.[i to j], s.[i to], s.[to j]: a substring, bounds clamped; negative bounds count from the end", |p| matches!(p, Prim::StrSlice { .. }), None),
    op("caseno", &["[T] T -> int"], "caseno v: the summand index of a sum, variant, unitsum or bool value", "println$ caseno (case 1 of 3);", |_, _| Some(Prim::Caseno), |p| *p == Prim::Caseno),
    op("assert", &["bool -> void"], "assert c;: R0009 when c is false", "assert 1 < 2;", |_, _| Some(Prim::Assert), |p| *p == Prim::Assert),
    internal("f\"\"", Section::Operator, &["[T] string * T -> string"], "f\"…\" x: C's printf conversions applied to x; the format is a constant the checker reads", |p| *p == Prim::Format, None),
    internal("subarray", Section::Function, &["[T, N:COMPACTLINEAR, M:COMPACTLINEAR] T ^ N * size -> T ^ M"], "subarray[F, L] a: the elements F to L of a; F and L are constants", |p| *p == Prim::Subarray, None),
    // ----- conversions (L4.14, L6.10, L11.26) -----
    internal("convert", Section::Conversion, &["[T, U] T -> U"], "T x, x.T: an explicit conversion to the type T (numbers to numbers, strings to numbers, char and integers, string and char, integers to natural)", |p| matches!(p, Prim::Convert | Prim::CharToStr), Some(|_, a, r| crate::check::traits::convertible(&a[0], r) != crate::check::traits::Conversion::None)),
    internal("widen", Section::Conversion, &["[T:integer, U:integer] T -> U"], "an implicit widening int8 → int16 → int32 → int64, int → long → vlong", |p| *p == Prim::Widen, Some(|_, a, r| matches!((&a[0], r), (Type::Int(x), Type::Int(y)) if crate::check::unify_widens_to(*x, *y)))),
    internal("upcast", Section::Internal, &["[T, U] T -> U"], "a record argument passed where a supertype is expected, a struct built from a record, a read-write pointer where a read-only or write-only one is expected", |p| *p == Prim::Upcast, Some(upcast_side)),
    // ----- coercions `e :>> T` (L3.9–L3.11, L4.13, L9.1, L9.3), tried in this order -----
    coercion(":>> decode", Section::Coercion, &["[I:integer, C:COMPACTLINEAR] I -> C", "[C:COMPACTLINEAR] natural -> C", "[C:COMPACTLINEAR] string -> C"], "n :>> C is the value of the compact type C whose code is n (an integer, a natural, or a string of decimal digits); R0002 outside 0 .. size - 1", "println$ (5 :>> 2 \\* 3)._strr;", coerce::select_decode),
    coercion(":>> reinterpret", Section::Coercion, &["[A:COMPACTLINEAR, B:COMPACTLINEAR] A -> B"], "a compact value as another compact type of the same size, the code kept (E0502 when the sizes differ)", "println$ ((`1:3 \\, `2:4) :>> 4 \\* 3)._strr;", coerce::select_reinterpret),
    coercion(":>> encode", Section::Coercion, &["[C:COMPACTLINEAR, I:integer] C -> I", "[C:COMPACTLINEAR] C -> natural", "[C:COMPACTLINEAR] C -> string"], "the code of a compact value as an integer (R0005 if it does not fit), a natural or a decimal string", "println$ ((`1:3 \\, true) :>> int);", coerce::select_encode),
    coercion(":>> natural", Section::Coercion, &["[I:integer] I -> natural", "[I:integer] natural -> I", "natural -> string"], "an integer as a natural (R0005 when negative), a natural as an integer type (R0005 if it does not fit), a natural's decimal digits", "println$ (2 :>> natural);", coerce::select_natural),
    coercion(":>> integer", Section::Coercion, &["[I:integer, J:integer] I -> J"], "between integer types: the checked conversion of `convert` (R0005 if the value does not fit)", "println$ (300 :>> uint16);", coerce::select_int),
    coercion(":>> reshape", Section::Coercion, &["[A, B] A -> B"], "a value as a layout-identical type, the same scalar leaves in the same order; zero copy between arrays (E0500 when the types are not layout-identical)", "println$ ((1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3));", coerce::select_reshape),
    coercion("opaque", Section::Internal, &["[A, B] A -> B"], "an opaque type's representation to the opaque type (`_make_K`) or back (`_repr_`): only the static type changes", "", coerce::select_opaque),
    internal("permute", Section::Internal, &["[R] R -> R"], "a record literal written out of field order: its field values in source order to the record R", |p| matches!(p, Prim::Permute(_)), Some(permute_side)),
];

/// The type the checker gives a transpose is the one the isomorphism engine derives the
/// evaluator's permutation from (L9.7); a shape with type variables is decided at its instance.
fn transpose_side(_: &Prim, args: &[Type], result: &Type) -> bool {
    match crate::types::iso::transpose_permutation(&args[0]) {
        Ok(permutation) => permutation.target_type() == result,
        Err(crate::types::iso::NotTransposable::UnknownExtent(_)) => true,
        Err(_) => false,
    }
}

/// A record subtype, a struct built from a record, or a pointer to a weaker mode.
fn upcast_side(_: &Prim, args: &[Type], result: &Type) -> bool {
    crate::types::subtype::is_subtype(&args[0], result)
        || crate::types::subtype::record_builds_struct(&args[0], result)
}

/// Operand `k` is field `order[k]` of the result record, every field once.
fn permute_side(prim: &Prim, args: &[Type], result: &Type) -> bool {
    let Prim::Permute(order) = prim else {
        return false;
    };
    let fields: Vec<&Type> = match result {
        Type::Record(_, types) => types.iter().collect(),
        _ => Vec::new(),
    };
    let mut seen = vec![false; fields.len()];
    order.len() == fields.len()
        && order.len() == args.len()
        && order.iter().zip(args).all(|(&p, a)| {
            let p = p as usize;
            p < fields.len() && !std::mem::replace(&mut seen[p], true) && *fields[p] == *a
        })
}

/// Check a kernel in the IR against the entries that own it: one of their schemes must
/// match the operand and result types (with its classes, functors and side condition), and
/// an entry that selects kernels by representation must select this one. The IR validator
/// calls this for every `Prim` it meets.
pub(crate) fn check_kernel(
    c: &mut Checker,
    prim: &Prim,
    args: &[Type],
    result: &Type,
) -> Result<(), String> {
    let owners: Vec<usize> = owners(prim).collect();
    if owners.is_empty() {
        return Err(format!(
            "kernel {prim:?} has no entry in the primitive table"
        ));
    }
    let show = || {
        let args: Vec<String> = args.iter().map(|t| format!("`{t}`")).collect();
        format!("{prim:?} on ({}) giving `{result}`", args.join(", "))
    };
    for index in owners {
        let def = &PRIMS[index];
        let schemes = c.prim_schemes(index)?;
        let side = def.side.is_none_or(|side| side(prim, args, result));
        // An internal kernel with a side condition (a record permutation of any number of
        // operands) is decided by it.
        let decided_by_side = matches!(def.apply, Apply::Internal) && def.side.is_some();
        let fits = decided_by_side || schemes.iter().any(|s| scheme_fits(s, args, result));
        if !(fits && side) {
            continue;
        }
        let selected = match def.apply {
            Apply::Scheme(k) | Apply::Operator(k) if !args.iter().any(Type::has_var) => {
                k(args, result)
            }
            _ => None,
        };
        match selected {
            Some(k) if k != *prim => {
                return Err(format!(
                    "{}: `{}` selects {k:?} for these types",
                    show(),
                    def.name
                ))
            }
            _ => return Ok(()),
        }
    }
    Err(format!("{}: no declared type admits it", show()))
}

/// Does the scheme admit these operand types (its parameters flattened: curried groups, or the
/// components of one tupled parameter) and this result?
pub(crate) fn scheme_fits(scheme: &Scheme, args: &[Type], result: &Type) -> bool {
    let (params, ret) = scheme.params_and_result();
    let params: Vec<Type> = if params.len() == args.len() {
        params
    } else if args.is_empty() && params == [Type::UNIT] {
        Vec::new()
    } else {
        match params.as_slice() {
            [Type::Tuple(ps)] if ps.len() == args.len() => ps.to_vec(),
            [Type::Array(e, i)] if **i == Type::Unitsum(args.len() as u64) => {
                vec![(**e).clone(); args.len()]
            }
            _ => return false,
        }
    };
    let mut binds = Binds::new();
    params
        .iter()
        .zip(args)
        .all(|(p, a)| match_type(p, a, &mut binds))
        && scheme.apply_wheres(&mut binds)
        && match_type(&ret, result, &mut binds)
        && scheme.violated(&binds).is_none()
}

/// The index of the entry applied by `name` (functions only: operators are applied by the
/// operator rules, and an internal entry such as `subarray[F, L]` by a rule of the checker).
pub fn function_index(name: &str) -> Option<usize> {
    PRIMS.iter().position(|p| {
        p.name == name
            && p.section == Section::Function
            && matches!(p.apply, Apply::Scheme(_) | Apply::Rule(_))
    })
}

/// The index of the entry named `name` of any section.
pub fn entry_index(name: &str) -> Option<usize> {
    PRIMS.iter().position(|p| p.name == name)
}

/// The indices of the entries a name documents: the entry of that name, or for `:>>` every
/// classification of the coercion (`:>> decode`, `:>> reshape`, …).
pub fn entries_named(name: &str) -> impl Iterator<Item = usize> + '_ {
    PRIMS
        .iter()
        .enumerate()
        .filter(move |(_, p)| p.name == name || (p.section == Section::Coercion && name == ":>>"))
        .map(|(i, _)| i)
}

pub fn is_prim(name: &str) -> bool {
    function_index(name).is_some()
}

/// The entries that own kernel `p`.
pub fn owners(p: &Prim) -> impl Iterator<Item = usize> + '_ {
    PRIMS
        .iter()
        .enumerate()
        .filter(move |(_, d)| (d.kernels)(p))
        .map(|(i, _)| i)
}

/// Does kernel `p` write output or call a function it is given (so an expression using it is
/// not a straight-line computation)? From the table: an entry with an effect, or whose
/// scheme has a function parameter.
pub fn calls_or_writes(p: &Prim) -> bool {
    static CALLS: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let calls = CALLS.get_or_init(|| {
        PRIMS
            .iter()
            .map(|def| def.effect || def.schemes.iter().any(|s| has_function_parameter(s)))
            .collect()
    });
    owners(p).any(|i| calls[i])
}

/// Does the scheme's text have a parameter of a function type (`(T -> U) -> …`)?
fn has_function_parameter(scheme: &str) -> bool {
    use crate::syntax::ast::TypeExprKind;
    let body = scheme.split_once(']').map_or(scheme, |(_, b)| b);
    let body = body.split_once(" where ").map_or(body, |(b, _)| b);
    let Ok(mut t) = crate::syntax::parse_type(body) else {
        return false;
    };
    while let TypeExprKind::Fun(a, r) = t.node {
        if matches!(a.node, TypeExprKind::Fun(..)) {
            return true;
        }
        t = *r;
    }
    false
}

/// Does the entry select its kernel by the representation of its operand types (so a test can
/// ask it for every instance its schemes admit)?
#[cfg(test)]
pub(crate) fn selects_by_representation(def: &PrimDef) -> bool {
    matches!(def.apply, Apply::Scheme(_) | Apply::Operator(_))
}

/// The kernel an entry selects for these operand and result types.
pub(crate) fn kernel_for(def: &PrimDef, args: &[Type], result: &Type) -> Option<Prim> {
    match def.apply {
        Apply::Scheme(k) | Apply::Operator(k) => k(args, result),
        _ => None,
    }
}

/// The operand types of an entry's instance as its kernel receives them: the curried groups,
/// or the components of the one tupled operand of an operator or a `tupled` entry.
#[cfg(test)]
pub(crate) fn flat_params(def: &PrimDef, ty: &Type) -> (Vec<Type>, Type) {
    let (mut params, t) = crate::check::scheme::curried(ty);
    if (def.section == Section::Operator || def.tupled) && params.len() == 1 {
        match &params[0] {
            Type::Tuple(ps) => params = ps.to_vec(),
            Type::Array(e, i) if **i == Type::Unitsum(2) => params = vec![(**e).clone(); 2],
            _ => {}
        }
    }
    (params, t)
}

/// The kernel operator `name` selects for these operand types (`Apply::Operator`).
pub(crate) fn operator_kernel(name: &str, args: &[Type], result: &Type) -> Option<Prim> {
    kernel_for(PRIMS.iter().find(|p| p.name == name)?, args, result)
}

/// Apply the primitive `name` to its arguments; extra arguments apply to its result.
pub(crate) fn apply_prim(c: &mut Checker, name: &str, mut args: Vec<Arg>, span: Span) -> ir::Expr {
    let index = function_index(name).expect("is_prim was checked");
    let def = &PRIMS[index];
    if args.len() < def.arity {
        c.type_error(
            span,
            format!(
                "`{name}` takes {} argument{}; apply it to all of them (or wrap it in a lambda)",
                def.arity,
                if def.arity == 1 { "" } else { "s" }
            ),
        );
        return error_expr(span);
    }
    let arity = optional_arity(c, def, &mut args).unwrap_or(def.arity);
    let rest = args.split_off(arity);
    let r = match def.apply {
        Apply::Scheme(kernel) => apply_scheme(c, index, kernel, &mut args, span),
        Apply::Rule(rule) if c.secret.written && def.name != "reveal" => {
            rule_with_visibility(c, def, rule, &mut args, span)
        }
        Apply::Rule(rule) => rule(c, &mut args, span),
        Apply::Operator(_) | Apply::Internal | Apply::Coerce(_) => {
            unreachable!("functions only")
        }
    };
    if def.effect {
        c.note_effect();
    }
    // The call form is the start of the entry's description: `len a: …`.
    let form = def.doc.split(':').next().unwrap_or(def.name);
    match c.over_application(name, form, arity, true, &r, rest, span) {
        Ok(error) => error,
        Err(rest) => c.call_rest(r, rest, span),
    }
}

/// A rule applied in a session that uses `secret` (issue 14): the rule sees the operands'
/// data types and its result is narrowed, except that a secret position (`get (a, i)` with a
/// secret `i`) is an error.
fn rule_with_visibility(
    c: &mut Checker,
    def: &PrimDef,
    rule: Rule,
    args: &mut Vec<Arg>,
    span: Span,
) -> ir::Expr {
    let mut secret = false;
    for i in 0..args.len() {
        let mut e = take(c, args, i, None);
        let t = c.zonk(&e.ty);
        if t.has_secret() {
            if def.name.ends_with("get") {
                if let Some(position) = t.tuple_components().and_then(|cs| cs.get(1).cloned()) {
                    if position.has_secret() {
                        c.secret_error(
                            e.span,
                            crate::check::secret::SecretUse::Shape,
                            format!("an array index (the position given to `{}`)", def.name),
                        );
                        return error_expr(span);
                    }
                }
                args[i] = Arg::Checked(e);
                continue;
            }
            secret = true;
            e.ty = t;
            crate::check::secret::strip(&mut e);
        }
        args[i] = Arg::Checked(e);
    }
    let mut r = rule(c, args, span);
    if secret && r.ty != error_type() {
        r.ty = c.zonk(&r.ty).narrow(true);
    }
    r
}

/// `reveal e` (issue 14): the value, its type made public. The IR is the value itself (the
/// evaluator never sees visibility).
fn reveal_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let mut e = take(c, args, 0, None);
    e.ty = c.zonk(&e.ty).erase_secret();
    e.span = span;
    e
}

/// A second overload with one argument group more (`mem r a e`, `sort cmp a`) applies when
/// the call has that many arguments and, for an entry whose first parameter is then a
/// function, the first argument is one.
fn optional_arity(c: &mut Checker, def: &PrimDef, args: &mut [Arg]) -> Option<usize> {
    let index = entry_index(def.name)?;
    let schemes = c.prim_schemes(index).ok()?;
    let longest = schemes
        .iter()
        .map(|s| s.params_and_result().0.len())
        .max()?;
    let wider = longest.max(def.arity);
    if longest <= def.arity || args.len() < wider {
        return None;
    }
    // The longer overload of `sort` starts with a function; take it only when the first
    // argument is one.
    let first_is_function = schemes.iter().any(|s| {
        let (ps, _) = s.params_and_result();
        ps.len() == wider && matches!(ps[0], Type::Fun(..))
    });
    if first_is_function && def.arity + 1 == wider && def.arity == 1 {
        let f = take(c, args, 0, None);
        let function = matches!(f.ty, Type::Fun(..));
        args[0] = Arg::Checked(f);
        return function.then_some(wider);
    }
    Some(wider)
}

/// Apply an entry by its schemes: choose the overload whose parameters match the arguments'
/// types (arguments that are not functions are checked first, so a lambda is checked against
/// known parameter types), unify, check the variables' classes, and select the kernel by the
/// representation of the argument types.
fn apply_scheme(
    c: &mut Checker,
    index: usize,
    kernel: KernelFn,
    args: &mut [Arg],
    span: Span,
) -> ir::Expr {
    let def = &PRIMS[index];
    let schemes = match c.prim_schemes(index) {
        Ok(s) => s,
        Err(e) => {
            c.type_error(span, format!("internal: {e}"));
            return error_expr(span);
        }
    };
    let n = args.len();
    let shapes: Vec<(Vec<Type>, Type)> = schemes.iter().map(Scheme::params_and_result).collect();
    let candidates: Vec<usize> = (0..schemes.len())
        .filter(|&k| shapes[k].0.len() == n)
        .collect();
    // Is parameter i a function in every candidate overload?
    let function_param = |i: usize| {
        candidates
            .iter()
            .all(|&k| matches!(shapes[k].0[i], Type::Fun(..)))
    };
    let mut checked: Vec<Option<ir::Expr>> = (0..n).map(|_| None).collect();
    let order: Vec<usize> = (0..n)
        .filter(|&i| !function_param(i))
        .chain((0..n).filter(|&i| function_param(i)))
        .collect();
    // Choose the overload from the arguments that are not functions.
    let chosen = if candidates.len() == 1 {
        Some(candidates[0])
    } else {
        for &i in order.iter().filter(|&&i| !function_param(i)) {
            checked[i] = Some(take(c, args, i, None));
        }
        candidates.iter().copied().find(|&k| {
            let mut binds = Binds::new();
            order.iter().filter(|&&i| !function_param(i)).all(|&i| {
                // The overload is chosen by data type (a secret is narrowed after).
                let actual = c
                    .zonk(&checked[i].as_ref().expect("checked").ty)
                    .erase_secret();
                match_type(&shapes[k].0[i], &actual, &mut binds)
            }) && schemes[k].violated(&binds).is_none()
        })
    };
    let no_overload = |c: &mut Checker, found: Vec<&ir::Expr>| {
        if found.iter().any(|e| e.ty == error_type()) {
            return error_expr(span);
        }
        let found: Vec<String> = found.iter().map(|e| c.zonk(&e.ty).to_string()).collect();
        let types: Vec<String> = schemes.iter().map(|s| format!("`{s}`")).collect();
        c.error(CheckError::NoOverload {
            span,
            message: format!("no `{}` for `{}`", def.name, found.join("`, `")),
            behaviour: "invocable",
            help: Some(format!(
                "`{}` has the type{} {}",
                def.name,
                if types.len() == 1 { "" } else { "s" },
                types.join(" and ")
            )),
        });
        error_expr(span)
    };
    let Some(k) = chosen else {
        return no_overload(c, checked.iter().flatten().collect());
    };
    let scheme = &schemes[k];
    let (ty, metas) = c.instantiate_scheme(scheme);
    let (params, result) = crate::check::scheme::curried(&ty);
    // Visibility (issue 14): an application with a secret operand has a secret result
    // (`narrow`). A primitive that takes a function (`map`, `fold_left`, …) gets every data
    // operand narrowed to the join first, so the function is checked with secret parameters
    // and its result is secret; any other primitive is applied to the operands' data types and
    // its result narrowed. A primitive that prints asks its class, which a secret lacks.
    let higher_order = (0..n).any(function_param);
    let prints = scheme.vars.iter().any(|v| {
        v.class
            == Some(crate::check::scheme::Class::Behaviour(
                crate::check::traits::Behaviour::Printable,
            ))
    });
    let mut secret = false;
    // Only a session that has written `secret` checks the data operands ahead (with no
    // expected type); any other keeps the order of `order` and pays nothing.
    if higher_order && c.secret.written {
        for &i in order.iter().filter(|&&i| !function_param(i)) {
            if checked[i].is_none() {
                checked[i] = Some(take(c, args, i, None));
            }
        }
        secret = checked.iter().flatten().any(|e| c.zonk(&e.ty).has_secret());
        if secret {
            for e in checked.iter_mut().flatten() {
                e.ty = Type::secret(c.zonk(&e.ty));
            }
        }
    }
    let mut exprs: Vec<Option<ir::Expr>> = (0..n).map(|_| None).collect();
    for &i in &order {
        let expected = c.zonk(&params[i]);
        let mut e = match checked[i].take() {
            Some(e) => e,
            None => take(c, args, i, Some(&expected)),
        };
        if e.ty == error_type() {
            return error_expr(span);
        }
        if !higher_order && !prints {
            let t = c.zonk(&e.ty);
            if t.has_secret() {
                if def.name == "len" && t.erase_secret() == Type::String {
                    c.secret_error(
                        e.span,
                        crate::check::secret::SecretUse::Shape,
                        "the string of `len` (a length is a shape, and shapes are public)",
                    );
                    return error_expr(span);
                }
                // The length of an array is its shape, which is public.
                secret |= def.name != "len";
                e.ty = t;
                crate::check::secret::strip(&mut e);
            }
        }
        // An argument that is not a function and does not fit the overload's shape (a
        // compact array given to `sort`) is no overload, not a mismatch with half-inferred
        // parameter types.
        let mut binds = Binds::new();
        if !function_param(i)
            && !match_type(&shapes[k].0[i], &c.zonk(&e.ty).erase_secret(), &mut binds)
        {
            return no_overload(c, vec![&e]);
        }
        let context = format!("the argument of `{}`", def.name);
        let e = c.coerce_to(e, &expected, &context);
        if e.ty == error_type() {
            return error_expr(span);
        }
        exprs[i] = Some(e);
    }
    // The variables defined by type functors (`where K = N `+ M`): applied to the solved
    // arguments (recorded for `:type -v`), or once inference solves them.
    for w in &scheme.wheres {
        let position = |id: u32| scheme.vars.iter().position(|v| v.var.id == id);
        let operands: Vec<Type> = w
            .args
            .iter()
            .filter_map(|a| position(a.id).map(|i| metas[i].clone()))
            .collect();
        let Some(defined) = position(w.var.id) else {
            continue;
        };
        if operands.len() != w.args.len() {
            continue;
        }
        let pending = PendingFunctor {
            span,
            name: def.name,
            scheme: scheme.to_string(),
            functor: w.functor,
            operands,
            defined: metas[defined].clone(),
        };
        if pending.operands.iter().any(|t| c.zonk(t).has_meta()) {
            c.unit.pending_functors.push(pending);
        } else if apply_pending_functor(c, &pending) == Some(false) {
            return error_expr(span);
        }
    }
    // The classes of the variables.
    for (v, m) in scheme.vars.iter().zip(&metas) {
        let t = c.zonk(m);
        if t.has_meta() || crate::check::contains_error(&t) {
            continue;
        }
        if let Some(class) = v.class {
            // A behaviour is asked through the checker, which records what a generic body
            // asks of its type parameters (traits.rs).
            let admitted = match class {
                crate::check::scheme::Class::Behaviour(b) => c.require(&t, b).is_ok(),
                _ => class.admits(&t),
            };
            if !admitted {
                if t.has_secret() {
                    // The secret operand is what does not print.
                    let at = exprs
                        .iter()
                        .flatten()
                        .find(|e| c.zonk(&e.ty).has_secret())
                        .map_or(span, |e| e.span);
                    if let crate::check::scheme::Class::Behaviour(b) = class {
                        if let Err(lacking) = crate::check::traits::check(&t, b) {
                            c.error(lacking.error(at));
                            return error_expr(span);
                        }
                    }
                }
                let e = exprs.iter().flatten().next().expect("an argument");
                if class
                    == crate::check::scheme::Class::Behaviour(
                        crate::check::traits::Behaviour::Printable,
                    )
                {
                    // The variable's instance is what does not print (`&int` in
                    // `fprint (cstdout, p)`), with the reason and its help.
                    require_printable_type(c, &t, span);
                } else {
                    c.error(CheckError::NoOverload {
                        span,
                        message: format!(
                            "no `{}` for `{}`: {}",
                            def.name,
                            c.zonk(&e.ty),
                            class.lacking(&t)
                        ),
                        behaviour: class.behaviour(),
                        help: Some(format!("`{}` has the type `{scheme}`", def.name)),
                    });
                }
                return error_expr(span);
            }
        }
    }
    let mut exprs: Vec<ir::Expr> = exprs
        .into_iter()
        .map(|e| e.expect("every argument"))
        .collect();
    // The components of a tupled argument are the kernel's operands.
    let mut taken_apart = None;
    if def.tupled && exprs.len() == 1 && is_product(&shapes[k].0[0]) {
        let (operands, binding) = spread(c, exprs.pop().expect("one argument"));
        exprs = operands;
        taken_apart = binding;
    }
    // Kernels are chosen by the data types (the evaluator never sees visibility).
    let arg_tys: Vec<Type> = exprs.iter().map(|e| c.zonk(&e.ty).erase_secret()).collect();
    let result = c.zonk(&result);
    let (result, kernel_result) = if higher_order {
        let data = result.erase_secret();
        (result, data)
    } else {
        (result.clone().narrow(secret), result)
    };
    match kernel(&arg_tys, &kernel_result) {
        Some(prim) => {
            let applied = mk(ir::ExprKind::Prim(prim, exprs), result.clone(), span);
            match taken_apart {
                None => applied,
                Some((value, pattern)) => mk(
                    ir::ExprKind::Match(
                        Box::new(value),
                        vec![ir::Arm {
                            patterns: vec![pattern],
                            guard: None,
                            body: applied,
                        }],
                    ),
                    result,
                    span,
                ),
            }
        }
        None if arg_tys.iter().chain([&result]).any(|t| t.has_meta()) => {
            // Not yet known (a recursive result): the kernel cannot be chosen.
            c.error(CheckError::CannotInfer {
                span,
                message: format!("cannot infer the type of the argument of `{}`", def.name),
            });
            error_expr(span)
        }
        None => {
            c.type_error(
                span,
                format!(
                    "internal: `{}` has no kernel for `{}`",
                    def.name,
                    arg_tys
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join("`, `")
                ),
            );
            error_expr(span)
        }
    }
}

/// A `where` clause of a scheme applied at `span`: `defined = functor(operands)`.
#[derive(Clone, Debug)]
pub(crate) struct PendingFunctor {
    span: Span,
    name: &'static str,
    scheme: String,
    functor: crate::check::functor::Functor,
    operands: Vec<Type>,
    defined: Type,
}

/// Apply a `where` clause whose operands are known: unify the defined variable with the
/// functor's result and record the derivation for `:type -v`. `None` while an operand is
/// unknown; `Some(false)` when the functor does not take the operands (reported).
pub(crate) fn apply_pending_functor(c: &mut Checker, p: &PendingFunctor) -> Option<bool> {
    let operands: Vec<Type> = p.operands.iter().map(|t| c.zonk(t)).collect();
    if operands.iter().any(Type::has_meta) {
        return None;
    }
    match p.functor.apply(&operands) {
        Some(t) if c.unify(&p.defined, &t) => {
            c.unit.derivations.push((p.span, p.functor.show(&operands)));
            Some(true)
        }
        _ => {
            c.error(CheckError::NoOverload {
                span: p.span,
                message: format!(
                    "no `{}` here: `{}` does not apply",
                    p.name,
                    p.functor.show(&operands)
                ),
                behaviour: "invocable",
                help: Some(format!("`{}` has the type `{}`", p.name, p.scheme)),
            });
            Some(false)
        }
    }
}

/// A tuple type, or an array over a unitsum of at least two (a homogeneous tuple's normal
/// form).
fn is_product(t: &Type) -> bool {
    match t {
        Type::Tuple(_) => true,
        Type::Array(_, i) => matches!(**i, Type::Unitsum(n) if n >= 2),
        _ => false,
    }
}

/// A value and the pattern binding its components, when it is not a tuple literal.
type TakenApart = Option<(ir::Expr, ir::Pattern)>;

/// The components of a tuple-typed argument: a literal's items, or fresh locals bound by a
/// pattern to the value, which is evaluated once.
fn spread(c: &mut Checker, e: ir::Expr) -> (Vec<ir::Expr>, TakenApart) {
    use crate::check::env::{VarBinding, VarLoc, VarType};
    let t = c.zonk(&e.ty);
    let components: Vec<Type> = match &t {
        Type::Tuple(ps) => ps.to_vec(),
        Type::Array(elem, i) => match **i {
            Type::Unitsum(n) => vec![(**elem).clone(); n as usize],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if let ir::ExprKind::Tuple(items) | ir::ExprKind::Array(items) = &e.kind {
        if items.len() == components.len() {
            return (items.clone(), None);
        }
    }
    let mut operands = Vec::new();
    let mut patterns = Vec::new();
    for ct in components {
        let frame = c.frame;
        let slot = c.frames[frame].alloc();
        let vb = VarBinding {
            loc: VarLoc {
                frame,
                slot,
                cell: false,
            },
            ty: VarType::Known(ct.clone()),
            mutable: false,
            span: e.span,
            decl: None,
            scope: c.scope,
        };
        let place = c.place_of(&vb);
        patterns.push(ir::Pattern {
            kind: ir::PatternKind::Bind(place),
            ty: ct.clone(),
            span: e.span,
        });
        operands.push(mk(c.var_access(&vb), ct, e.span));
    }
    let pattern = ir::Pattern {
        kind: ir::PatternKind::Tuple(patterns),
        ty: t,
        span: e.span,
    };
    (operands, Some((e, pattern)))
}

pub(crate) fn take(
    c: &mut Checker,
    args: &mut [Arg],
    i: usize,
    expected: Option<&Type>,
) -> ir::Expr {
    let a = std::mem::replace(&mut args[i], Arg::Checked(error_expr(Span::default())));
    let e = c.arg_expr(a, expected);
    let t = c.zonk(&e.ty);
    ir::Expr { ty: t, ..e }
}

/// E0301 when values of the argument's type do not print (L11.6: pointers).
pub(crate) fn require_printable(c: &mut Checker, x: &ir::Expr, span: Span) {
    let t = c.zonk(&x.ty);
    require_printable_type(c, &t, span);
}

fn require_printable_type(c: &mut Checker, t: &Type, span: Span) {
    if c.opaque_lacks(t, crate::check::traits::Behaviour::Printable, span) {
        return;
    }
    if let Err(lacking) = c.require(t, crate::check::traits::Behaviour::Printable) {
        c.error(lacking.error(span));
    }
}

fn endl_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let x = take(c, args, 0, None);
    if c.is_ofile(&x.ty) {
        c.note_effect();
        return mk(ir::ExprKind::Prim(Prim::FEndl, vec![x]), Type::VOID, span);
    }
    c.coerce_to(x, &Type::UNIT, "the argument of `endl`");
    c.note_effect();
    mk(ir::ExprKind::Prim(Prim::Endl, vec![]), Type::VOID, span)
}

fn not_array(c: &mut Checker, span: Span, what: &str, t: &Type) -> ir::Expr {
    if *t != error_type() {
        c.error(CheckError::NoOverload {
            span,
            message: format!("`{what}` needs an array, found `{t}`"),
            behaviour: "invocable",
            help: None,
        });
    }
    error_expr(span)
}

/// Split an array type into element and index.
fn array_parts(t: &Type) -> Option<(Type, Type)> {
    match t {
        Type::Array(e, i) => Some(((**e).clone(), (**i).clone())),
        _ => None,
    }
}

fn get_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let x = take(c, args, 0, None);
    let parts = match &x.kind {
        ir::ExprKind::Tuple(items) if items.len() == 2 => {
            Some((items[0].clone(), items[1].clone()))
        }
        _ => None,
    };
    let Some((a, i)) = parts else {
        c.type_error(
            span,
            "`get` takes `(a, i)`: an array and an integer position",
        );
        return error_expr(span);
    };
    let Some((elem, _)) = array_parts(&a.ty) else {
        let t = a.ty.clone();
        return not_array(c, span, "get", &t);
    };
    if !matches!(i.ty, Type::Int(_)) {
        c.type_error(
            i.span,
            format!("the position must be an integer, found `{}`", i.ty),
        );
        return error_expr(span);
    }
    mk(
        ir::ExprKind::Index {
            array: Box::new(a),
            index: Box::new(i),
            mode: IndexMode::Linear,
        },
        elem,
        span,
    )
}
