//! The one table of library primitives (L6): every built-in function is declared here once,
//! with its name, a description and its type rule; the rule checks the arguments and selects
//! the kernel (an `ir::Prim`) the evaluator runs. Operators have their type rules in
//! `expr.rs` (`binary_ir`); conversions (`int x`, …) in `apply.rs` (`convert`).

use crate::check::apply::Arg;
use crate::check::error::CheckError;
use crate::check::expr::{error_expr, mk};
use crate::check::library as lib;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, CharClass, IndexMode, MathFn, Prim};
use crate::syntax::ast::BinOp;
use crate::syntax::span::Span;
use crate::types::ty::{Kind, Type};

type Rule = fn(&mut Checker, &mut Vec<Arg>, Span) -> ir::Expr;

/// A library primitive: its name, how many curried arguments it takes, what it does, and
/// its type rule (which also picks the kernel).
pub struct PrimDef {
    pub name: &'static str,
    /// The type scheme, for people (`:type map`); the rule below is what the checker applies.
    pub signature: &'static str,
    pub arity: usize,
    pub doc: &'static str,
    rule: Rule,
}

pub static PRIMS: &[PrimDef] = &[
    PrimDef { name: "str", signature: "T -> string", arity: 1, doc: "str x: the display form of any value (L7)", rule: |c, a, s| format_rule(c, a, s, Prim::Str) },
    PrimDef { name: "repr", signature: "T -> string", arity: 1, doc: "repr x: the quoted form used inside arrays", rule: |c, a, s| format_rule(c, a, s, Prim::Repr) },
    PrimDef { name: "_strr", signature: "T -> string", arity: 1, doc: "x._strr: the structural form (L7)", rule: |c, a, s| format_rule(c, a, s, Prim::Strr) },
    PrimDef { name: "print", signature: "T -> void", arity: 1, doc: "print x: write str x", rule: |c, a, s| print_rule(c, a, s, Prim::Print) },
    PrimDef { name: "println", signature: "T -> void", arity: 1, doc: "println x: write str x and a newline", rule: |c, a, s| print_rule(c, a, s, Prim::Println) },
    PrimDef { name: "endl", signature: "unit -> void", arity: 1, doc: "endl: write a newline", rule: endl_rule },
    PrimDef { name: "len", signature: "T ^ N -> size  (and string -> size)", arity: 1, doc: "len a: the element count of an array, or the byte count of a string (a size)", rule: len_rule },
    PrimDef { name: "toupper", signature: "string -> string  (and char -> char)", arity: 1, doc: "toupper s: the string in upper case (a char: L11.26)", rule: |c, a, s| lib::case_rule(c, a, s, true) },
    PrimDef { name: "map", signature: "(T -> U) -> T ^ N -> U ^ N", arity: 2, doc: "map f a: f applied to every element, indexed like a (L6.3)", rule: map_rule },
    PrimDef { name: "fold_left", signature: "(U -> T -> U) -> U -> T ^ N -> U", arity: 3, doc: "fold_left f init a: left fold in code order (L6.4)", rule: fold_left_rule },
    PrimDef { name: "rev", signature: "T ^ N -> T ^ N", arity: 1, doc: "rev a: the elements in reverse code order (L6.5)", rule: rev_rule },
    PrimDef { name: "join", signature: "T ^ N -> T ^ M -> T ^ (N `+ M)", arity: 2, doc: "join a b: concatenation of arrays over unitsums (L6.7)", rule: join_rule },
    PrimDef { name: "\\sum", signature: "T ^ N -> T  (T arithmetic)", arity: 1, doc: "\\sum a: left fold of + from zero (L9.6)", rule: |c, a, s| reduce_rule(c, a, s, Prim::Sum) },
    PrimDef { name: "\\prod", signature: "T ^ N -> T  (T arithmetic)", arity: 1, doc: "\\prod a: left fold of * from one (L9.6)", rule: |c, a, s| reduce_rule(c, a, s, Prim::Prod) },
    PrimDef { name: "transpose", signature: "T ^ M ^ N -> T ^ N ^ M  (and T ^ (A \\* B) -> T ^ (B \\* A))", arity: 1, doc: "transpose a: T ^ M ^ N to T ^ N ^ M, or T ^ (A \\* B) to T ^ (B \\* A), a copy (L6.13, L9.7)", rule: transpose_rule },
    PrimDef { name: "get", signature: "T ^ N * int -> T", arity: 1, doc: "get (a, i): the element at linear position i (L6.11)", rule: get_rule },
    PrimDef { name: "sqrt", signature: "T -> T  (T = float, double)", arity: 1, doc: "sqrt x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Sqrt, "sqrt") },
    PrimDef { name: "sin", signature: "T -> T  (T = float, double)", arity: 1, doc: "sin x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Sin, "sin") },
    PrimDef { name: "cos", signature: "T -> T  (T = float, double)", arity: 1, doc: "cos x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Cos, "cos") },
    PrimDef { name: "tan", signature: "T -> T  (T = float, double)", arity: 1, doc: "tan x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Tan, "tan") },
    PrimDef { name: "asin", signature: "T -> T  (T = float, double)", arity: 1, doc: "asin x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Asin, "asin") },
    PrimDef { name: "acos", signature: "T -> T  (T = float, double)", arity: 1, doc: "acos x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Acos, "acos") },
    PrimDef { name: "atan", signature: "T -> T  (T = float, double)", arity: 1, doc: "atan x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Atan, "atan") },
    PrimDef { name: "sinh", signature: "T -> T  (T = float, double)", arity: 1, doc: "sinh x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Sinh, "sinh") },
    PrimDef { name: "cosh", signature: "T -> T  (T = float, double)", arity: 1, doc: "cosh x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Cosh, "cosh") },
    PrimDef { name: "tanh", signature: "T -> T  (T = float, double)", arity: 1, doc: "tanh x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Tanh, "tanh") },
    PrimDef { name: "exp", signature: "T -> T  (T = float, double)", arity: 1, doc: "exp x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Exp, "exp") },
    PrimDef { name: "log", signature: "T -> T  (T = float, double)", arity: 1, doc: "log x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Log, "log") },
    PrimDef { name: "ln", signature: "T -> T  (T = float, double)", arity: 1, doc: "ln x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Log, "ln") },
    PrimDef { name: "log10", signature: "T -> T  (T = float, double)", arity: 1, doc: "log10 x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Log10, "log10") },
    PrimDef { name: "ceil", signature: "T -> T  (T = float, double)", arity: 1, doc: "ceil x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Ceil, "ceil") },
    PrimDef { name: "floor", signature: "T -> T  (T = float, double)", arity: 1, doc: "floor x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Floor, "floor") },
    PrimDef { name: "trunc", signature: "T -> T  (T = float, double)", arity: 1, doc: "trunc x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Trunc, "trunc") },
    PrimDef { name: "abs", signature: "T -> T  (T = float, double; abs also signed integers)", arity: 1, doc: "abs x (L11.25)", rule: |c, a, s| lib::math_rule(c, a, s, MathFn::Abs, "abs") },
    PrimDef { name: "atan2", signature: "T * T -> T  (T = float, double)", arity: 1, doc: "atan2 (y, x): the angle of the point (x, y) (L11.25)", rule: |c, a, s| lib::float2_rule(c, a, s, false) },
    PrimDef { name: "pow", signature: "T * T -> T  and  T * int -> T  (T = float, double)", arity: 1, doc: "pow (x, y): x to the power y (L11.25)", rule: |c, a, s| lib::float2_rule(c, a, s, true) },
    PrimDef { name: "sgn", signature: "T -> int  (T signed integer)", arity: 1, doc: "sgn x: -1, 0 or 1 (L11.25)", rule: lib::sgn_rule },
    PrimDef { name: "min", signature: "T * T -> T  (T ordered)", arity: 1, doc: "min (x, y): if x < y then x else y (L11.25)", rule: |c, a, s| lib::minmax_rule(c, a, s, false) },
    PrimDef { name: "max", signature: "T * T -> T  (T ordered)", arity: 1, doc: "max (x, y): if x < y then y else x (L11.25)", rule: |c, a, s| lib::minmax_rule(c, a, s, true) },
    PrimDef { name: "ord", signature: "char -> int", arity: 1, doc: "ord c: the byte of c as a signed value, -128 … 127 (L11.26)", rule: lib::ord_rule },
    PrimDef { name: "tolower", signature: "char -> char  (and string -> string)", arity: 1, doc: "tolower c: ASCII letters to lower case (L11.26, L11.27)", rule: |c, a, s| lib::case_rule(c, a, s, false) },
    PrimDef { name: "isupper", signature: "char -> bool", arity: 1, doc: "isupper c: C's isupper in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Upper) },
    PrimDef { name: "islower", signature: "char -> bool", arity: 1, doc: "islower c: C's islower in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Lower) },
    PrimDef { name: "isalpha", signature: "char -> bool", arity: 1, doc: "isalpha c: C's isalpha in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Alpha) },
    PrimDef { name: "isdigit", signature: "char -> bool", arity: 1, doc: "isdigit c: C's isdigit in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Digit) },
    PrimDef { name: "isalnum", signature: "char -> bool", arity: 1, doc: "isalnum c: C's isalnum in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Alnum) },
    PrimDef { name: "isxdigit", signature: "char -> bool", arity: 1, doc: "isxdigit c: C's isxdigit in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::XDigit) },
    PrimDef { name: "isspace", signature: "char -> bool", arity: 1, doc: "isspace c: C's isspace in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Space) },
    PrimDef { name: "isblank", signature: "char -> bool", arity: 1, doc: "isblank c: C's isblank in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Blank) },
    PrimDef { name: "iscntrl", signature: "char -> bool", arity: 1, doc: "iscntrl c: C's iscntrl in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Cntrl) },
    PrimDef { name: "isprint", signature: "char -> bool", arity: 1, doc: "isprint c: C's isprint in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Print) },
    PrimDef { name: "ispunct", signature: "char -> bool", arity: 1, doc: "ispunct c: C's ispunct in the \"C\" locale (L11.26)", rule: |c, a, s| lib::char_class_rule(c, a, s, CharClass::Punct) },
    PrimDef { name: "strip", signature: "string -> string  (and string * string -> string)", arity: 1, doc: "strip s, strip (s, cs): without leading and trailing white space, or bytes of cs (L11.27)", rule: |c, a, s| lib::strip_rule(c, a, s, true, true) },
    PrimDef { name: "lstrip", signature: "string -> string  (and string * string -> string)", arity: 1, doc: "lstrip s, lstrip (s, cs): without leading white space, or bytes of cs (L11.27)", rule: |c, a, s| lib::strip_rule(c, a, s, true, false) },
    PrimDef { name: "rstrip", signature: "string -> string  (and string * string -> string)", arity: 1, doc: "rstrip s, rstrip (s, cs): without trailing white space, or bytes of cs (L11.27)", rule: |c, a, s| lib::strip_rule(c, a, s, false, true) },
    PrimDef { name: "startswith", signature: "string -> string -> bool  (or char)", arity: 2, doc: "startswith s e: does s begin with e (L11.27)", rule: |c, a, s| lib::affix_rule(c, a, s, true) },
    PrimDef { name: "endswith", signature: "string -> string -> bool  (or char)", arity: 2, doc: "endswith s e: does s end with e (L11.27)", rule: |c, a, s| lib::affix_rule(c, a, s, false) },
    PrimDef { name: "unsafe_get", signature: "T ^ N * size -> T", arity: 1, doc: "unsafe_get (a, i): the element at linear position i (L11.28)", rule: lib::unsafe_get_rule },
    PrimDef { name: "fold", signature: "(U -> T -> U) -> U -> T ^ N -> U", arity: 3, doc: "fold f init a: fold_left f init a (L11.28)", rule: fold_left_rule },
    PrimDef { name: "mem", signature: "(T -> bool) -> T ^ N -> bool  (and (T * U -> bool) -> T ^ N -> U -> bool)", arity: 2, doc: "mem p a: does an element satisfy p; mem r a e: does an element v satisfy r (v, e) (L11.28)", rule: lib::mem_rule },
    PrimDef { name: "sort", signature: "T ^ N -> T ^ N  (and (T * T -> bool) -> T ^ N -> T ^ N)", arity: 1, doc: "sort a, sort cmp a: a stable sort by < or by cmp (L11.28)", rule: lib::sort_rule },
    PrimDef { name: "fprint", signature: "ofile * T -> void", arity: 1, doc: "fprint (f, x): write str x to f (L11.29)", rule: |c, a, s| lib::fprint_rule(c, a, s, false) },
    PrimDef { name: "fprintln", signature: "ofile * T -> void", arity: 1, doc: "fprintln (f, x): write str x and a newline to f (L11.29)", rule: |c, a, s| lib::fprint_rule(c, a, s, true) },
    PrimDef { name: "band", signature: "T * T -> T  (T unsigned)", arity: 1, doc: "band (a, b): a \\& b (L11.30)", rule: |c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitAnd) },
    PrimDef { name: "bor", signature: "T * T -> T  (T unsigned)", arity: 1, doc: "bor (a, b): a \\| b (L11.30)", rule: |c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitOr) },
    PrimDef { name: "bxor", signature: "T * T -> T  (T unsigned)", arity: 1, doc: "bxor (a, b): a \\^ b (L11.30)", rule: |c, a, s| lib::bit_named_rule(c, a, s, BinOp::BitXor) },
    PrimDef { name: "shl", signature: "T * T -> T  (T integer)", arity: 1, doc: "shl (a, n): a << n (L11.30)", rule: |c, a, s| lib::bit_named_rule(c, a, s, BinOp::Shl) },
    PrimDef { name: "shr", signature: "T * T -> T  (T integer)", arity: 1, doc: "shr (a, n): a >> n (L11.30)", rule: |c, a, s| lib::bit_named_rule(c, a, s, BinOp::Shr) },
    PrimDef { name: "bnot", signature: "T -> T  (T unsigned)", arity: 1, doc: "bnot a: ~a (L11.30)", rule: lib::bnot_rule },
];

/// The declared signature of a primitive, for `:type`.
pub fn signature(name: &str) -> Option<&'static str> {
    PRIMS.iter().find(|p| p.name == name).map(|p| p.signature)
}

pub fn is_prim(name: &str) -> bool {
    PRIMS.iter().any(|p| p.name == name)
}

/// Apply the primitive `name` to its arguments; extra arguments apply to its result.
pub(crate) fn apply_prim(c: &mut Checker, name: &str, mut args: Vec<Arg>, span: Span) -> ir::Expr {
    let def = PRIMS
        .iter()
        .find(|p| p.name == name)
        .expect("is_prim was checked");
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
    let arity = optional_arity(c, name, &mut args).unwrap_or(def.arity);
    let rest = args.split_off(arity);
    let r = (def.rule)(c, &mut args, span);
    c.call_rest(r, rest, span)
}

/// `mem r a e` and `sort cmp a` take one argument more than `mem p a` and `sort a`.
fn optional_arity(c: &mut Checker, name: &str, args: &mut [Arg]) -> Option<usize> {
    match name {
        "mem" if args.len() >= 3 => Some(3),
        "sort" if args.len() >= 2 => {
            let f = take(c, args, 0, None);
            let function = matches!(f.ty, Type::Fun(..));
            args[0] = Arg::Checked(f);
            function.then_some(2)
        }
        _ => None,
    }
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
    if let Err(lacking) = c.require(&t, crate::check::traits::Behaviour::Printable) {
        c.error(lacking.error(span));
    }
}

fn format_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span, prim: Prim) -> ir::Expr {
    let x = take(c, args, 0, None);
    require_printable(c, &x, span);
    mk(ir::ExprKind::Prim(prim, vec![x]), Type::String, span)
}

fn print_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span, prim: Prim) -> ir::Expr {
    let x = take(c, args, 0, None);
    require_printable(c, &x, span);
    c.note_effect();
    mk(ir::ExprKind::Prim(prim, vec![x]), Type::VOID, span)
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

fn len_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let x = take(c, args, 0, None);
    match &x.ty {
        Type::Array(..) => mk(ir::ExprKind::Prim(Prim::Len, vec![x]), Type::SIZE, span),
        Type::String => mk(ir::ExprKind::Prim(Prim::StrLen, vec![x]), Type::SIZE, span),
        t => {
            let t = t.clone();
            not_array(c, span, "len", &t)
        }
    }
}

/// Split an array type into element and index.
fn array_parts(t: &Type) -> Option<(Type, Type)> {
    match t {
        Type::Array(e, i) => Some(((**e).clone(), (**i).clone())),
        _ => None,
    }
}

fn map_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    // The array first, so the function can be checked against its element type.
    let a = take(c, args, 1, None);
    let Some((elem, index)) = array_parts(&a.ty) else {
        let t = a.ty.clone();
        return not_array(c, span, "map", &t);
    };
    let result = c.fresh_meta(Kind::Type);
    let fty = Type::fun(elem, result.clone());
    let f = take(c, args, 0, Some(&fty));
    if !c.unify(&f.ty, &fty) {
        let found = c.zonk(&f.ty);
        c.error(CheckError::Mismatch {
            span: f.span,
            expected: c.zonk(&fty).to_string(),
            found: found.to_string(),
            help: None,
            context: "the function given to `map`".into(),
        });
        return error_expr(span);
    }
    let r = c.zonk(&result);
    mk(
        ir::ExprKind::Prim(Prim::Map, vec![f, a]),
        Type::array(r, index),
        span,
    )
}

fn fold_left_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let a = take(c, args, 2, None);
    let Some((elem, _)) = array_parts(&a.ty) else {
        let t = a.ty.clone();
        return not_array(c, span, "fold_left", &t);
    };
    let init = take(c, args, 1, None);
    let acc = init.ty.clone();
    let fty = Type::fun(acc.clone(), Type::fun(elem, acc.clone()));
    let f = take(c, args, 0, Some(&fty));
    let f = c.coerce_to(f, &fty, "the function given to `fold_left`");
    mk(
        ir::ExprKind::Prim(Prim::FoldLeft, vec![f, init, a]),
        acc,
        span,
    )
}

fn rev_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let a = take(c, args, 0, None);
    if array_parts(&a.ty).is_none() {
        let t = a.ty.clone();
        return not_array(c, span, "rev", &t);
    }
    let t = a.ty.clone();
    mk(ir::ExprKind::Prim(Prim::Rev, vec![a]), t, span)
}

fn join_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let a = take(c, args, 0, None);
    let b = take(c, args, 1, None);
    match c.concat_type(&a.ty, &b.ty) {
        Some(t) => mk(ir::ExprKind::Prim(Prim::Concat, vec![a, b]), t, span),
        None => {
            let (x, y) = (a.ty.clone(), b.ty.clone());
            if x != error_type() && y != error_type() {
                c.error(CheckError::NoOverload {
                    span,
                    message: format!("`join` needs two arrays over unitsums with one element type, found `{x}` and `{y}`"),
                    behaviour: "invocable",
                    help: None,
                });
            }
            error_expr(span)
        }
    }
}

fn reduce_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span, prim: Prim) -> ir::Expr {
    let a = take(c, args, 0, None);
    let Some((elem, _)) = array_parts(&a.ty) else {
        let t = a.ty.clone();
        return not_array(
            c,
            span,
            if prim == Prim::Sum { "\\sum" } else { "\\prod" },
            &t,
        );
    };
    if let Err(lacking) = c.require(&elem, crate::check::traits::Behaviour::Arithmetic) {
        c.error(lacking.error(span));
        return error_expr(span);
    }
    mk(ir::ExprKind::Prim(prim, vec![a]), elem, span)
}

fn transpose_rule(c: &mut Checker, args: &mut Vec<Arg>, span: Span) -> ir::Expr {
    let a = take(c, args, 0, None);
    let t = a.ty.clone();
    let result = match &t {
        // T ^ M ^ N -> T ^ N ^ M
        Type::Array(inner, n) => match &**inner {
            Type::Array(elem, m) => Some(Type::array(
                Type::array((**elem).clone(), (**n).clone()),
                (**m).clone(),
            )),
            elem => match &**n {
                // T ^ (A \* B) -> T ^ (B \* A)
                Type::CProduct(cs) if cs.len() == 2 => Some(Type::array(
                    elem.clone(),
                    Type::cproduct(vec![cs[1].clone(), cs[0].clone()]),
                )),
                Type::CArray(x, two) if **two == Type::Unitsum(2) => Some(Type::array(
                    elem.clone(),
                    Type::carray((**x).clone(), Type::Unitsum(2)),
                )),
                _ => None,
            },
        },
        _ => None,
    };
    match result {
        Some(r) => mk(ir::ExprKind::Prim(Prim::Transpose, vec![a]), r, span),
        None => {
            if t != error_type() {
                c.error(CheckError::NoOverload {
                    span,
                    message: format!("`transpose` needs an array of arrays `T ^ M ^ N` or a matrix `T ^ (A \\* B)`, found `{t}`"),
                    behaviour: "invocable",
                    help: None,
                });
            }
            error_expr(span)
        }
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
