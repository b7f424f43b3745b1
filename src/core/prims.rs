//! The one table of primitives, as data: every built-in function, operator, conversion,
//! coercion and internal kernel is one entry, a struct literal naming its fields. An entry
//! says how a program writes it (name, call form, aliases), what it is (section, type schemes
//! in the language's own type syntax, arity, whether its argument is a tuple taken apart,
//! whether it writes output or calls the functions it is given), what the reference says of it
//! (documentation and an example), how the checker types it (`Typing`: by its schemes with a
//! kernel selector, or by a named rule of the checker), and which IR kernels (`ir::Prim`) it
//! owns and how many operands each takes.
//!
//! The table sits below the checker and the evaluator: `check` turns the schemes into types
//! and maps the named rules, side conditions and coercion classifications to its functions;
//! `eval` reads a kernel's operand count and effects here; `docs` prints the library
//! reference from it. Entries are in `prims/functions.rs` and `prims/operators.rs` (operators,
//! conversions, coercions and internal kernels); a section keeps the order of its entries.

use crate::core::ir::{ArithOp, BitOp, DistOp, MathFn, Prim};
use crate::syntax::ast::BinOp;
use crate::types::ty::{IntTy, Type};

mod data;
mod functions;
mod io;
mod operators;
mod varray;

/// What an entry is, for the library reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// A library function built into the interpreter.
    Function,
    /// An operator, written between (or before) its operands.
    Operator,
    /// A conversion between types.
    Conversion,
    /// A classification of the coercion `e :>> T`, named `:>> decode`, `:>> reshape`, ….
    Coercion,
    /// A kernel the checker inserts itself; no program names it.
    Internal,
}

/// Chooses the kernel for the operand types (after inference) and the result type.
pub type Select = fn(&[Type], &Type) -> Option<Prim>;

/// How the checker types an application of an entry.
#[derive(Clone, Copy, Debug)]
pub enum Typing {
    /// The arguments unify with a scheme's parameters, the classes of the variables are
    /// checked, and the kernel is selected by the representation of the operand types.
    Scheme(Select),
    /// A rule of the checker's own (the arguments' shape decides the kernel).
    Rule(Rule),
    /// An operator, applied by the operator rules of the checker; its kernel is selected by
    /// representation.
    Operator(Select),
    /// Applied to type arguments, then to its argument (`subarray[F, L] a`), by the checker's
    /// rule for it.
    TypeApplied,
    /// A kernel the checker inserts itself (widenings, record coercions, substrings); never
    /// applied by name.
    Internal,
    /// A classification of `e :>> T`: the coercion it gives for the source and target types
    /// its schemes admit, or its refusal.
    Coerce(Coercer),
}

/// The checker's rules for entries whose arguments' shape matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `reveal e`: the value with its type made public.
    Reveal,
    /// `endl` or `endl f`.
    Endl,
    /// `get (a, i)`: indexing at a linear position of any integer type.
    Get,
    /// `unsafe_get (a, i)`: indexing at a linear position of type `size`.
    UnsafeGet,
    /// `min (x, y)`, `max (x, y)`: integer operands promote.
    Min,
    Max,
    /// The bitwise operator applied to a pair (`band (a, b)` is `a \& b`).
    Bits(BinOp),
}

impl Rule {
    /// The position operand (the second component of the pair) must be public.
    pub fn indexes(self) -> bool {
        matches!(self, Rule::Get | Rule::UnsafeGet)
    }
}

/// A condition on a kernel, its operand types and its result type beyond the schemes,
/// checked by the IR validator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The result is the transposition the isomorphism engine derives.
    Transpose,
    /// The explicit conversions' *convertible* relation.
    Convertible,
    /// The implicit integer widening lattice.
    Widens,
    /// A record subtype, a struct built from a record, or a pointer to a weaker mode.
    Upcast,
    /// Operand `k` is field `order[k]` of the result record, every field once.
    Permute,
}

/// The classifications of the coercion `e :>> T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coercer {
    Decode,
    Reinterpret,
    Encode,
    Natural,
    Integer,
    Reshape,
    /// An opaque type's representation to the opaque type, or back.
    Opaque,
}

/// Another name of an entry: applied like it, documented by its own entry in the reference
/// (`fold f init a: fold_left f init a`).
#[derive(Clone, Copy, Debug)]
pub struct Alias {
    pub name: &'static str,
    /// How it is written (the entry's form with this name).
    pub form: &'static str,
    pub example: &'static str,
}

/// One primitive.
#[derive(Clone, Copy, Debug)]
pub struct PrimDef {
    /// The name a program applies it by, or the operator's symbol.
    pub name: &'static str,
    pub aliases: &'static [Alias],
    pub section: Section,
    /// One scheme per overload, in the language's type syntax; several curried argument groups
    /// are `A -> B -> R`, a tupled argument `A * B -> R`.
    pub schemes: &'static [&'static str],
    /// How many curried arguments an application by name takes.
    pub arity: usize,
    /// The kernel's operands are the components of a tupled argument (`atan2 (y, x)`): a
    /// tuple literal gives them directly, any other tuple value is evaluated once and taken
    /// apart.
    pub tupled: bool,
    /// Whether it has an effect: writes output, or reads or changes the program's world (its
    /// files, arguments, generator, clock). Never run in parallel, never inlined away.
    pub effect: bool,
    /// Whether it calls a function it is given (`map f a`).
    pub calls: bool,
    /// Its result measures the operand's shape (the length of an array), which is public even
    /// for a secret operand; a secret string has no public length.
    pub measures_shape: bool,
    /// The unitsum variables of its schemes that only its result mentions are sizes known
    /// when it runs (`filter`): each application gives them a fresh run-time size.
    pub fresh_sizes: bool,
    /// Felix's function of this name gives a list: an application is the array where an
    /// array is expected (`val [n] p : string ^ n = split (s, ',')`) and the list of its
    /// elements anywhere else.
    pub list_unless_array: bool,
    /// How an application is written (`len a`, `x + y`); empty for an entry no program
    /// writes.
    pub form: &'static str,
    /// What it does; the reference prints it after the form.
    pub doc: &'static str,
    pub example: &'static str,
    pub typing: Typing,
    /// The IR kernels this entry owns, each with its number of operands.
    pub kernels: fn(&Prim) -> Option<usize>,
    pub side: Option<Side>,
}

impl PrimDef {
    /// The entry's description: its form, then what it does.
    pub fn description(&self) -> String {
        match (self.form, self.doc) {
            ("", doc) => doc.to_string(),
            (form, "") => form.to_string(),
            (form, doc) => format!("{form}: {doc}"),
        }
    }

    /// The names a program applies it by: its name, then its aliases.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().map(|a| a.name))
    }

    /// Does it select its kernel by the representation of its operand types?
    pub fn selector(&self) -> Option<Select> {
        match self.typing {
            Typing::Scheme(select) | Typing::Operator(select) => Some(select),
            _ => None,
        }
    }
}

/// The fields most entries share; an entry states the others.
const FUNCTION: PrimDef = PrimDef {
    name: "",
    aliases: &[],
    section: Section::Function,
    schemes: &[],
    arity: 1,
    tupled: false,
    effect: false,
    calls: false,
    measures_shape: false,
    fresh_sizes: false,
    list_unless_array: false,
    form: "",
    doc: "",
    example: "",
    typing: Typing::Internal,
    kernels: |_| None,
    side: None,
};
const OPERATOR: PrimDef = PrimDef {
    section: Section::Operator,
    ..FUNCTION
};
const CONVERSION: PrimDef = PrimDef {
    section: Section::Conversion,
    ..FUNCTION
};
const COERCION: PrimDef = PrimDef {
    section: Section::Coercion,
    ..FUNCTION
};
const INTERNAL: PrimDef = PrimDef {
    section: Section::Internal,
    ..FUNCTION
};

/// Every entry: the functions, those of the program's world (`prims/io.rs`) and of data files
/// (`prims/data.rs`), then the operators, conversions, coercions (in the order `e :>> T` tries
/// them) and internal kernels.
pub static PRIMS: &[PrimDef] = &concat::<COUNT>(&[
    functions::FUNCTIONS,
    io::IO_FUNCTIONS,
    data::DATA,
    varray::VARRAY,
    operators::OPERATORS,
]);
const COUNT: usize = functions::FUNCTIONS.len()
    + io::IO_FUNCTIONS.len()
    + data::DATA.len()
    + varray::VARRAY.len()
    + operators::OPERATORS.len();

const fn concat<const N: usize>(parts: &[&[PrimDef]]) -> [PrimDef; N] {
    let mut all = [FUNCTION; N];
    let mut i = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut j = 0;
        while j < parts[part].len() {
            all[i] = parts[part][j];
            i += 1;
            j += 1;
        }
        part += 1;
    }
    all
}

/// The index of the function applied by `name` (or one of its aliases), or of an internal
/// kernel typed by its schemes that the prelude applies by name (`_vget`). Operators are
/// applied by the operator rules, and an internal entry such as `subarray[F, L]` by a rule of
/// the checker.
pub fn function_index(name: &str) -> Option<usize> {
    PRIMS.iter().position(|p| {
        (p.section == Section::Function
            || (p.section == Section::Internal && matches!(p.typing, Typing::Scheme(_))))
            && matches!(p.typing, Typing::Scheme(_) | Typing::Rule(_))
            && p.names().any(|n| n == name)
    })
}

/// The index of the entry named `name` (or aliased so) of any section.
pub fn entry_index(name: &str) -> Option<usize> {
    PRIMS.iter().position(|p| p.names().any(|n| n == name))
}

pub fn is_prim(name: &str) -> bool {
    function_index(name).is_some()
}

/// Is `name` a primitive applied to type arguments first (`subarray[F, L] a`)?
pub fn is_type_applied(name: &str) -> bool {
    PRIMS
        .iter()
        .any(|p| p.name == name && matches!(p.typing, Typing::TypeApplied))
}

/// The index of the operator entry of `symbol` (`+`, `neg`, `not`, …).
pub fn operator_index(symbol: &str) -> Option<usize> {
    PRIMS
        .iter()
        .position(|p| p.section == Section::Operator && p.name == symbol)
}

/// The operator entry of `symbol`.
pub fn operator(symbol: &str) -> Option<&'static PrimDef> {
    operator_index(symbol).map(|i| &PRIMS[i])
}

/// The entries that own kernel `p`.
pub fn owners(p: &Prim) -> impl Iterator<Item = usize> + '_ {
    PRIMS
        .iter()
        .enumerate()
        .filter(move |(_, d)| (d.kernels)(p).is_some())
        .map(|(i, _)| i)
}

/// How many operands kernel `p` takes (`None` for a kernel no entry owns: an operator the
/// checker has not resolved yet).
pub fn operand_count(p: &Prim) -> Option<usize> {
    PRIMS.iter().find_map(|d| (d.kernels)(p))
}

/// Does kernel `p` have an effect (write output, read or change the program's world)?
pub fn has_effect(p: &Prim) -> bool {
    PRIMS.iter().any(|d| d.effect && (d.kernels)(p).is_some())
}

/// Does kernel `p` call a function it is given?
pub fn calls(p: &Prim) -> bool {
    PRIMS.iter().any(|d| d.calls && (d.kernels)(p).is_some())
}

/// Does kernel `p` write output or call a function it is given (so an expression using it is
/// not a straight-line computation)?
pub fn calls_or_writes(p: &Prim) -> bool {
    PRIMS
        .iter()
        .any(|d| (d.effect || d.calls) && (d.kernels)(p).is_some())
}

// ----- kernel selectors by representation -----

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

// ----- schemes several entries share -----

const CMP_SCHEMES: &[&str] = &["[T:ordered] T * T -> bool"];
const EQ_SCHEMES: &[&str] = &["[T:equality] T * T -> bool"];
const MATH: &[&str] = &["[T:floating] T -> T"];
const CHAR_CLASS: &[&str] = &["char -> bool"];
const ARITH: &[&str] = &["[A:arithmetic, B:arithmetic, C] A * B -> C where C = promote(A, B)"];
const STRIP: &[&str] = &["string -> string", "string * string -> string"];
const AFFIX: &[&str] = &["string -> string -> bool", "string -> char -> bool"];
const SEARCH: &[&str] = &[
    "string * string -> int",
    "string * string * int -> int",
    "string * char -> int",
    "string * char * int -> int",
];
const BITS: &[&str] = &["[T:unsigned] T * T -> T"];
const SHIFTS: &[&str] = &["[T:integer] T * T -> T"];
const FORMAT: &[&str] = &["[T:printable] T -> string"];
const PRINT: &[&str] = &["[T:printable] T -> void"];
const FPRINT: &[&str] = &["[T:printable] ofile * T -> void"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_of_a_kernel_agree_on_its_operand_count() {
        let kernels = [
            Prim::IntBit(BitOp::And, IntTy::UInt),
            Prim::IntCompl(IntTy::U8),
            Prim::FloatFn(MathFn::Log, false),
            Prim::FloatFn(MathFn::Abs, true),
            Prim::IntArith(ArithOp::Add, IntTy::Int),
            Prim::Concat,
            Prim::FoldLeft,
        ];
        for kernel in kernels {
            let counts: Vec<usize> = PRIMS.iter().filter_map(|d| (d.kernels)(&kernel)).collect();
            assert!(!counts.is_empty(), "{kernel:?} has an owner");
            assert!(
                counts.iter().all(|&n| n == counts[0]),
                "{kernel:?}: {counts:?}"
            );
        }
        assert_eq!(operand_count(&Prim::Endl), Some(0));
        assert_eq!(operand_count(&Prim::MemRel), Some(3));
        let slice = Prim::StrSlice {
            from: true,
            to: false,
        };
        assert_eq!(operand_count(&slice), Some(2));
        assert_eq!(operand_count(&Prim::Unresolved(BinOp::Add)), None);
    }

    #[test]
    fn aliases_are_functions_of_their_entry() {
        let fold_left = function_index("fold_left").expect("fold_left");
        assert_eq!(function_index("fold"), Some(fold_left));
        assert!(calls_or_writes(&Prim::FoldLeft));
        assert!(calls_or_writes(&Prim::Println));
        assert!(!calls_or_writes(&Prim::Len));
    }
}
